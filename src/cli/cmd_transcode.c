/* cmd_transcode.c - `clvid transcode -i INPUT [-vf CHAIN] -o OUTPUT`: the
 * decoder thread feeds the GPU stage, whose frames go to the encoder
 * thread; audio and subtitles are copied. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "../io/io.h"
#include "clvid.h"

typedef struct transcode_args {
    clv_input_options in;
    clv_output_options out;
    const char *chain;
    const char *device;
    const char *progress_path;
    const char *mic, *mic_format; /* --audio, --audio-format */
    int overwrite, quiet;
} transcode_args;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clvid transcode -i INPUT [-vf CHAIN] -o OUTPUT [options]\n"
            "  -i INPUT          file, image (sequence: img_%%04d.png), stream or device\n"
            "  -f FORMAT         force the input format (lavfi, v4l2, image2, ...)\n"
            "  -vf CHAIN         filters, ffmpeg syntax: 'median=radius=2,sharpen' (clvid "
            "filters)\n"
            "  -o OUTPUT         output file; the format follows the extension\n"
            "  -y                overwrite OUTPUT if it exists\n"
            "  -c:v CODEC        video encoder (default: libx264 for mp4/mkv/mov, png for .png)\n"
            "  -crf N            x264/x265 quality, 0..51 (default 18)\n"
            "  -preset NAME      x264/x265 preset (default veryfast)\n"
            "  -b:v RATE         video bit rate (2M, 800k)\n"
            "  -pix_fmt FMT      encoder pixel format\n"
            "  -an, -sn          leave the input's audio, subtitle streams out (default: "
            "copied)\n"
            "  -ss TIME -t TIME  start and duration (seconds or [hh:]mm:ss[.ms])\n"
            "  --frames N        stop after N video frames\n"
            "  --device N|NAME   OpenCL device (clvid devices)\n"
            "  -q                quiet: no progress, no summary\n"
            "  --progress FILE   key=value progress blocks, as ffmpeg's -progress\n"
            "  --live            a camera or stream: no demuxer buffering, small probe\n"
            "  --input-size WxH --input-fps N --input-format F   capture options\n"
            "  --audio DEVICE    with --live: record a microphone too (ALSA: default, hw:1)\n"
            "  --audio-format F  its capture format: alsa (default), pulse, oss, lavfi\n");
}

static int parse_args(int argc, char **argv, transcode_args *a)
{
    memset(a, 0, sizeof *a);
    a->out.crf = -1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-y")) {
            a->overwrite = 1;
            continue;
        }
        if (!strcmp(o, "-q")) {
            a->quiet = 1;
            continue;
        }
        if (!strcmp(o, "--live")) {
            a->in.live = 1;
            continue;
        }
        if (!strcmp(o, "-an") || !strcmp(o, "-sn")) {
            *(o[1] == 'a' ? &a->out.no_audio : &a->out.no_subtitles) = 1;
            continue;
        }
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            exit(CLV_EXIT_OK);
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "clvid transcode: %s needs a value\n", o);
            return -1;
        }
        const char *v = argv[++i];
        char *end;
        int r;
        if (!strcmp(o, "-i"))
            a->in.path = v;
        else if (!strcmp(o, "-o"))
            a->out.path = v;
        else if (!strcmp(o, "-f"))
            a->in.format = v;
        else if (!strcmp(o, "-vf"))
            a->chain = v;
        else if (!strcmp(o, "--device"))
            a->device = v;
        else if (!strcmp(o, "--progress"))
            a->progress_path = v;
        else if ((r = clv_cli_output_option(o, v, &a->out)) != 0 ||
                 (r = clv_cli_capture_option(o, v, &a->in, &a->mic, &a->mic_format)) != 0) {
            if (r < 0)
                return -1;
        } else if (!strcmp(o, "-ss") || !strcmp(o, "-t")) {
            int64_t us = clv_cli_parse_time(v);
            if (us < 0 || (!strcmp(o, "-t") && us == 0)) {
                fprintf(stderr, "clvid transcode: %s %s: expected seconds or [hh:]mm:ss%s\n", o, v,
                        !strcmp(o, "-t") ? ", more than 0" : "");
                return -1;
            }
            *(!strcmp(o, "-ss") ? &a->in.start_us : &a->in.duration_us) = us;
        } else if (!strcmp(o, "--frames") || !strcmp(o, "-frames:v")) {
            long long n = strtoll(v, &end, 10);
            if (*end || end == v || n < 1) {
                fprintf(stderr, "clvid transcode: %s %s: expected a positive integer\n", o, v);
                return -1;
            }
            a->in.max_frames = n;
        } else {
            fprintf(stderr, "clvid transcode: unknown option %s\n", o);
            return -1;
        }
    }
    if (!a->in.path || !a->out.path) {
        fprintf(stderr, "clvid transcode: %s\n",
                !a->in.path ? "-i INPUT is missing" : "-o OUTPUT is missing");
        return -1;
    }
    if (a->mic && !a->in.live) {
        fprintf(stderr,
                "clvid transcode: --audio %s records a microphone with a live source; "
                "add --live (a file's own sound is kept without it)\n",
                a->mic);
        return -1;
    }
    return 0;
}

/* Ctrl-C and SIGTERM: the first asks the run to stop after the frames in
 * flight, so that the output is finished, complete up to there and playable;
 * a second exits at once and removes the partial output. What a signal
 * handler touches has to be static: these two are the only such state. */
static volatile sig_atomic_t stop_signal;
static char partial_path[1100]; /* written before the handler is installed */

static void on_signal(int sig)
{
    if (stop_signal) {
        if (partial_path[0])
            unlink(partial_path);
        _exit(128 + sig);
    }
    stop_signal = sig;
}

static void catch_signals(const clv_encoder *enc)
{
    const char *partial = clv_encoder_partial_path(enc);
    snprintf(partial_path, sizeof partial_path, "%s", partial ? partial : "");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

typedef struct progress {
    double start, last;
    double total_s; /* of output, 0 if unknown */
    FILE *file;
    int tty;
} progress;

static void report(progress *p, int64_t frames, double out_s, int final)
{
    double now = clv_io_seconds();
    if (!final && now - p->last < 0.5)
        return;
    p->last = now;
    double elapsed = now - p->start, fps = elapsed > 0 ? (double)frames / elapsed : 0;
    double speed = elapsed > 0 ? out_s / elapsed : 0;
    if (p->tty) {
        char bar[32] = "";
        char eta[32] = "";
        if (p->total_s > 0) {
            double frac = out_s / p->total_s;
            frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
            int n = (int)(frac * 20);
            snprintf(bar, sizeof bar, "[%.*s%*s] %3.0f%%", n, "####################", 20 - n, "",
                     frac * 100);
            if (speed > 0)
                snprintf(eta, sizeof eta, " eta %.0fs", (p->total_s - out_s) / speed);
        }
        fprintf(stderr, "\rframe %6lld  fps %6.1f  speed %5.2fx  elapsed %5.1fs%s %s\033[K",
                (long long)frames, fps, speed, elapsed, eta, bar);
        if (final)
            fputc('\n', stderr);
    }
    if (p->file) {
        fprintf(p->file,
                "frame=%lld\nfps=%.2f\nout_time_us=%lld\nout_time=%.6f\nspeed=%.3fx\n"
                "progress=%s\n",
                (long long)frames, fps, (long long)(out_s * 1e6), out_s, speed,
                final ? "end" : "continue");
        fflush(p->file);
    }
}

/* Sends one output frame of the stage to the encoder. */
static int emit(clv_stage *stage, AVBufferPool *pool, clv_pixfmt out_f, struct SwsContext *sws,
                enum AVPixelFormat enc_f, int w, int h, const int64_t *pts_ring, clv_queue *enc_q,
                double *out_s, int64_t *emitted, AVRational tb, clv_msg *msg)
{
    const uint8_t *pixels;
    uint64_t index;
    int err = clv_stage_output(stage, &pixels, &index, msg);
    if (err)
        return err;
    AVFrame *f = av_frame_alloc();
    if (!f)
        return CLV_ENOMEM;
    f->format = enc_f;
    f->width = w;
    f->height = h;
    /* Frames for the encoder come from a pool: a fresh 1.4 MB (720p)
     * allocation per frame is an mmap and page faults each time. The
     * buffer returns to the pool when the encoder thread frees the frame. */
    f->buf[0] = av_buffer_pool_get(pool);
    if (!f->buf[0] ||
        av_image_fill_arrays(f->data, f->linesize, f->buf[0]->data, enc_f, w, h, 32) < 0) {
        av_frame_free(&f);
        clv_stage_release(stage);
        return CLV_ENOMEM;
    }
    if (sws) {
        const uint8_t *src[4] = {pixels, NULL, NULL, NULL};
        int src_stride[4] = {w * 4, 0, 0, 0};
        sws_scale(sws, src, src_stride, 0, h, f->data, f->linesize);
    } else {
        clv_copy_planes(out_f, w, h, (uint8_t *)pixels, f, 1);
    }
    clv_stage_release(stage);
    f->pts = pts_ring[index % 64];
    *out_s = (double)f->pts * av_q2d(tb);
    (*emitted)++;
    return clv_queue_push(enc_q, CLV_ITEM_FRAME, f) < 0 ? CLV_EIO : 0;
}

int clv_cmd_transcode(int argc, char **argv)
{
    transcode_args a;
    if (parse_args(argc, argv, &a)) {
        fprintf(stderr, "(clvid transcode --help lists the options)\n");
        return CLV_EXIT_USAGE;
    }
    clv_msg msg = {{0}};
    clv_chain_desc desc;
    if (clv_chain_parse(a.chain, &desc, &msg)) {
        fprintf(stderr, "clvid: -vf: %s\n", msg.text);
        return CLV_EXIT_USAGE;
    }
    /* Never overwrite without -y, and never write over the input. */
    struct stat out_st, in_st;
    if (stat(a.out.path, &out_st) == 0) {
        if (stat(a.in.path, &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
            in_st.st_ino == out_st.st_ino) {
            fprintf(stderr,
                    "clvid: '%s' is the input as well as the output; write to another "
                    "file\n",
                    a.out.path);
            return CLV_EXIT_USAGE;
        }
        if (!a.overwrite) {
            fprintf(stderr, "clvid: '%s' already exists; use -y to overwrite it\n", a.out.path);
            return CLV_EXIT_RUNTIME;
        }
    }
    if (!a.quiet)
        av_log_set_level(AV_LOG_WARNING);
    else
        av_log_set_level(AV_LOG_ERROR);

    int status = CLV_EXIT_RUNTIME, err = 0;
    clv_decoder *dec = NULL;
    clv_encoder *enc = NULL;
    clv_mic *mic = NULL;
    clv_context *ctx = NULL;
    clv_chain *chain = NULL;
    clv_stage *stage = NULL;
    clv_queue *dec_q = NULL, *enc_q = NULL;
    clv_feed *feed = NULL;
    struct SwsContext *sws_out = NULL;
    AVBufferPool *pool = NULL;
    progress prog = {0};

    if ((err = clv_decoder_open(&a.in, &dec, &msg)))
        goto fail;
    AVCodecContext *dc = clv_decoder_codec(dec);
    AVFormatContext *ic = clv_decoder_format(dec);
    AVRational tb = ic->streams[clv_decoder_video_index(dec)]->time_base;
    int w = dc->width, h = dc->height;

    /* Layouts: the decoder's own when the stage takes it, else swscale. */
    if ((err = clv_feed_create(dc, a.in.path, &feed, &msg)))
        goto fail;
    int rgb_src = clv_av_pixfmt_is_rgb(dc->pix_fmt), alpha = clv_av_pixfmt_has_alpha(dc->pix_fmt);
    clv_pixfmt in_f = clv_feed_format(feed);
    clv_color in_color = clv_feed_color(feed);
    clv_color out_color = in_color;
    if (!clv_pixfmt_is_yuv(in_f)) {
        out_color.matrix = h >= 720 ? CLV_MATRIX_BT709 : CLV_MATRIX_BT601;
        out_color.full_range = 0;
    }
    if (a.mic) {
        if ((err = clv_mic_open(a.mic, a.mic_format, &mic, &msg)))
            goto fail;
        a.out.extra_audio = clv_mic_stream(mic);
    }
    if ((err = clv_encoder_open(&a.out, dec, rgb_src, alpha, out_color, &enc, &msg)))
        goto fail;
    enum AVPixelFormat enc_f = clv_encoder_pix_fmt(enc);
    int out_native = clv_native_pixfmt(enc_f);
    if (enc_f == AV_PIX_FMT_YUVJ420P)
        out_color.full_range = 1;
    clv_pixfmt out_f = out_native >= 0 ? (clv_pixfmt)out_native : CLV_PIX_RGBA;

    if (out_native < 0) {
        sws_out =
            sws_getContext(w, h, AV_PIX_FMT_RGBA, w, h, enc_f,
                           SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
        if (!sws_out) {
            snprintf(msg.text, sizeof msg.text, "cannot convert RGBA frames to %s",
                     av_get_pix_fmt_name(enc_f));
            goto fail;
        }
        clv_sws_colors(sws_out, out_color, 1, out_color, clv_av_pixfmt_is_rgb(enc_f));
    }

    clv_context_options copt = {.device = a.device, .profiling = 1};
    if ((err = clv_context_create(&copt, &ctx, &msg)))
        goto fail;
    if ((err = clv_chain_create(ctx, &desc, &chain, &msg)))
        goto fail;
    clv_stage_options sopt = {.width = w,
                              .height = h,
                              .in_format = in_f,
                              .out_format = out_f,
                              .in_color = in_color,
                              .out_color = out_color,
                              .slots = 3,
                              .profiling = 1};
    if ((err = clv_stage_create(ctx, &sopt, chain, &stage, &msg)))
        goto fail;

    if (!a.quiet) {
        char text[1024];
        clv_chain_format(&desc, text, sizeof text);
        fprintf(stderr, "clvid: %s (%dx%d %s, %s %s range) -> [%s] on %s -> %s (%s %s)\n",
                a.in.path, w, h, av_get_pix_fmt_name(dc->pix_fmt), clv_matrix_name(in_color.matrix),
                in_color.full_range ? "full" : "limited", text[0] ? text : "no filter",
                clv_context_device(ctx)->name, a.out.path, clv_encoder_codec_name(enc),
                av_get_pix_fmt_name(enc_f));
    }
    if (a.progress_path) {
        prog.file = fopen(a.progress_path, "w");
        if (!prog.file) {
            snprintf(msg.text, sizeof msg.text, "--progress: cannot write '%s': %s",
                     a.progress_path, strerror(errno));
            goto fail;
        }
    }
    prog.tty = !a.quiet && isatty(2);
    prog.start = prog.last = clv_io_seconds();
    if (ic->duration > 0) {
        double total = (double)ic->duration / 1e6 - (double)a.in.start_us / 1e6;
        if (a.in.duration_us > 0 && (double)a.in.duration_us / 1e6 < total)
            total = (double)a.in.duration_us / 1e6;
        prog.total_s = total;
    }

    int pool_size = av_image_get_buffer_size(enc_f, w, h, 32);
    pool = pool_size > 0 ? av_buffer_pool_init((size_t)pool_size, NULL) : NULL;
    if (!pool)
        goto oom;
    dec_q = clv_queue_create(8);
    enc_q = clv_queue_create(16);
    if (!dec_q || !enc_q)
        goto oom;
    catch_signals(enc);
    if (clv_decoder_start(dec, dec_q, NULL) || clv_encoder_start(enc, enc_q) ||
        (mic && clv_mic_start(mic, dec, enc_q, clv_encoder_extra_index(enc))))
        goto oom;

    int direct = desc.count == 0 && clv_feed_native(feed) && out_native == (int)in_f &&
                 (!clv_pixfmt_is_yuv(in_f) || (in_color.matrix == out_color.matrix &&
                                               in_color.full_range == out_color.full_range));
    int64_t pts_ring[64];
    int64_t stage_fault = clv_fault_after("stage");
    uint64_t submitted = 0;
    int64_t emitted = 0;
    double out_s = 0;
    for (;;) {
        int kind;
        void *item;
        int got = clv_queue_pop_wait(dec_q, &kind, &item, 0.1);
        if (stop_signal) {
            if (got == 0)
                clv_item_free(kind, item);
            clv_decoder_stop(dec); /* what is decoded and not yet sent is dropped */
            break;
        }
        if (got == 1)
            continue;
        if (got < 0)
            break;
        if (kind == CLV_ITEM_END)
            break;
        if (kind == CLV_ITEM_PACKET) {
            if (clv_queue_push(enc_q, kind, item) < 0) {
                err = CLV_EIO;
                break;
            }
            continue;
        }
        AVFrame *f = item;
        if (direct && f->format == enc_f && f->width == w && f->height == h) {
            /* Nothing to filter and the encoder takes the decoder's frames:
             * hand them over as they are, as ffmpeg would. */
            out_s = (double)f->pts * av_q2d(tb);
            emitted++;
            submitted++;
            if (clv_queue_push(enc_q, CLV_ITEM_FRAME, f) < 0) {
                err = CLV_EIO;
                break;
            }
            report(&prog, emitted, out_s, 0);
            continue;
        }
        /* A free slot: take the oldest result first when all are busy. */
        while (!clv_stage_input(stage)) {
            if ((err = emit(stage, pool, out_f, sws_out, enc_f, w, h, pts_ring, enc_q, &out_s,
                            &emitted, tb, &msg)))
                break;
            report(&prog, emitted, out_s, 0);
        }
        if (err) {
            av_frame_free(&f);
            break;
        }
        if ((err = clv_feed_write(feed, f, clv_stage_input(stage), &msg))) {
            av_frame_free(&f);
            break;
        }
        pts_ring[submitted % 64] = f->pts;
        av_frame_free(&f);
        if ((int64_t)submitted == stage_fault) {
            snprintf(msg.text, sizeof msg.text, "GPU stage failed (injected fault)");
            err = CLV_ECL;
            break;
        }
        if ((err = clv_stage_submit(stage, submitted, &msg)))
            break;
        submitted++;
    }
    while (!err && clv_stage_pending(stage) > 0) {
        err = emit(stage, pool, out_f, sws_out, enc_f, w, h, pts_ring, enc_q, &out_s, &emitted, tb,
                   &msg);
        report(&prog, emitted, out_s, 0);
    }
    /* The decoder is done (or failed, or was stopped) before the encoder is
     * told to finish: a file is completed only when every part succeeded. */
    clv_msg dmsg = {{0}}, emsg = {{0}};
    if (err)
        clv_queue_abort(dec_q);
    int derr = clv_decoder_finish(dec, &dmsg);
    /* A thread that failed says why; a push refused because of it does not. */
    if (derr && (!err || !msg.text[0])) {
        err = derr;
        msg = dmsg;
    }
    if (!err && submitted == 0) {
        /* Nothing to write: the output (or a file already there) is left
         * as it was rather than replaced by an empty one. */
        err = CLV_EINVAL;
        if (stop_signal)
            snprintf(msg.text, sizeof msg.text,
                     "interrupted before the first frame; '%s' not written", a.out.path);
        else
            snprintf(msg.text, sizeof msg.text, "'%s': no video frame to write%s", a.in.path,
                     a.in.start_us ? " (is -ss past the end?)" : "");
    }
    if (err) {
        clv_queue_abort(enc_q);
    } else {
        clv_msg mmsg = {{0}};
        clv_mic_stop(mic, &mmsg); /* its last packets go before the end */
        if (mmsg.text[0])
            fprintf(stderr, "clvid: %s\n", mmsg.text);
        clv_queue_push(enc_q, CLV_ITEM_END, NULL);
    }
    int eerr = clv_encoder_finish(enc, &emsg);
    if (eerr && (!err || !msg.text[0])) {
        err = eerr;
        msg = emsg;
    }
    if (err)
        goto fail;
    report(&prog, (int64_t)submitted, out_s, 1);
    if (!a.quiet) {
        clv_stage_times t;
        clv_stage_get_times(stage, &t);
        double elapsed = clv_io_seconds() - prog.start;
        fprintf(stderr,
                "clvid: %llu frames in %.2f s (%.1f fps) -> %s\n"
                "       decode %.2f s | upload %.2f s | kernels %.2f s | download %.2f s | "
                "encode %.2f s\n",
                (unsigned long long)submitted, elapsed, (double)submitted / elapsed, a.out.path,
                clv_decoder_busy_seconds(dec), (double)t.upload_ns / 1e9,
                (double)t.kernels_ns / 1e9, (double)t.download_ns / 1e9,
                clv_encoder_busy_seconds(enc));
    }
    status = CLV_EXIT_OK;
    if (stop_signal) {
        fprintf(stderr, "clvid: interrupted (%s): '%s' holds the %llu frames before the stop\n",
                stop_signal == SIGINT ? "Ctrl-C" : "SIGTERM", a.out.path,
                (unsigned long long)submitted);
        status = 128 + stop_signal;
    }
    goto done;
oom:
    snprintf(msg.text, sizeof msg.text, "out of memory");
fail:
    if (prog.tty)
        fputc('\n', stderr);
    fprintf(stderr, "clvid: %s\n", msg.text[0] ? msg.text : clv_strerror(err));
    status = err == CLV_ENODEVICE ? CLV_EXIT_USAGE
             : stop_signal        ? 128 + stop_signal
                                  : CLV_EXIT_RUNTIME;
    if (dec_q)
        clv_queue_abort(dec_q);
    if (enc_q)
        clv_queue_abort(enc_q);
done:
    clv_mic_close(mic); /* a push it waits on was aborted above */
    clv_encoder_close(enc, status != CLV_EXIT_OK);
    clv_decoder_close(dec);
    clv_stage_destroy(stage);
    clv_chain_destroy(chain);
    clv_context_destroy(ctx);
    clv_queue_destroy(dec_q);
    clv_queue_destroy(enc_q);
    clv_feed_destroy(feed);
    sws_freeContext(sws_out);
    av_buffer_pool_uninit(&pool); /* freed once the last frame returns its buffer */
    if (prog.file)
        fclose(prog.file);
    return status;
}
