/* decode.c - clvid-bench --pipeline --input VIDEO: the clip decoded by the
 * transcode's decoder (its thread, frame threads, -hwaccel) and sent into
 * the GPU stage as a transcode sends it, timed against the decode alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libavutil/log.h>
#include <libavutil/pixdesc.h>

#include "io.h"

#include "decode.h"
#include "../pipeline/blocks.h"

#define QUEUE_FRAMES 8 /* the decoder's queue, as a transcode's */
/* Frames taken out before the clock starts: twice the decoder's queue, so
 * that the frames it decoded ahead while the stage started up are not
 * counted as if decoded in the timed span. */
#define WARM_FRAMES (2 * QUEUE_FRAMES)
#define ROUNDS 3
/* Frames decoded into blocks and still in the stage, by submit index:
 * at most every slot of every device. */
#define HELD_RING (4 * CLV_DEVICES_MAX)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int clv_bench_is_video(const char *path)
{
    AVFormatContext *fmt = NULL;
    int video = 0, level = av_log_get_level();
    av_log_set_level(AV_LOG_QUIET); /* raw RGBA is no media: FFmpeg need not say so */
    if (avformat_open_input(&fmt, path, NULL, NULL) == 0) {
        if (avformat_find_stream_info(fmt, NULL) >= 0)
            video = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0) >= 0;
        avformat_close_input(&fmt);
    }
    av_log_set_level(level);
    return video;
}

int clv_bench_hwaccel_check(const char *name)
{
    clv_msg msg = {{0}};
    if (!clv_hwaccel_check(name, &msg))
        return 0;
    fprintf(stderr, "clvid-bench: -%s\n", msg.text); /* "-hwaccel X: ..." as --hwaccel */
    return 2;
}

/* What a run sends the stage: the decode alone, or through the stage from
 * the blocks the decoder wrote, or copied into the staging. */
enum video_path { DECODE_ALONE, FROM_BLOCKS, FROM_COPIES, VIDEO_PATHS };

/* One timed run. */
typedef struct video_run {
    double fps;
    /* ms per timed frame on the submitting thread: waiting for the
     * decoder's next frame, copying it into the staging, clv_stage_submit
     * or _submit_block, waiting in clv_stage_output */
    double decode_wait_ms, copy_ms, submit_ms, wait_ms;
    long in_blocks, copied; /* frames sent from the decoder's blocks, frames copied */
    int kept_out;           /* every output kept (clv_stage_keep) */
    int decoded_into;       /* the decoder was given the stage's blocks */
} video_run;

/* The clip as the runs found it (the first run's). */
typedef struct video_about {
    char codec[64], decode[700], pix_fmt[64], in_format[64], out_format[64];
    int width, height, depth;
    long clip_frames; /* frames of one pass through the clip; 0: never reached its end */
    int looped;       /* a run went round the clip */
} video_about;

/* The decoder and its queue; when the clip ends it goes back to the start. */
typedef struct video_source {
    clv_input_options in;
    clv_decoder *dec;
    clv_queue *q;
    long pass_frames; /* frames since the start or the last loop */
    long clip_frames; /* one whole pass's, once one ended */
    int loops;
} video_source;

static int source_start(video_source *s, clv_msg *msg)
{
    if (!(s->q = clv_queue_create(QUEUE_FRAMES)) || clv_decoder_start(s->dec, s->q, NULL))
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory (the decoder's thread)");
    return 0;
}

/* The next decoded frame (*f, the caller's); at the clip's end the decoder
 * goes back to its start (a seek, timed with the rest). */
static int source_next(video_source *s, AVFrame **f, clv_msg *msg)
{
    for (;;) {
        int kind;
        void *item;
        if (clv_queue_pop(s->q, &kind, &item) < 0)
            return clv_io_fail(msg, CLV_EIO, "'%s': the decoder's queue was aborted", s->in.path);
        if (kind == CLV_ITEM_FRAME) {
            s->pass_frames++;
            *f = item;
            return 0;
        }
        if (kind != CLV_ITEM_END) {
            clv_item_free(kind, item); /* sound and subtitles: not timed */
            continue;
        }
        int err = clv_decoder_finish(s->dec, msg);
        if (err)
            return err;
        if (!s->pass_frames)
            return clv_io_fail(msg, CLV_EIO, "'%s': no video frame could be decoded", s->in.path);
        if (!s->clip_frames)
            s->clip_frames = s->pass_frames;
        s->pass_frames = 0;
        s->loops++;
        clv_queue_destroy(s->q);
        s->q = NULL;
        if ((err = clv_decoder_seek(s->dec, 0, msg)) || (err = source_start(s, msg)))
            return err;
    }
}

static void source_close(video_source *s)
{
    if (s->dec)
        clv_decoder_stop(s->dec); /* aborts the queue, joins the thread */
    clv_queue_destroy(s->q);      /* the frames in it go back to their blocks */
    clv_decoder_close(s->dec);
}

/* The depth the chain runs at, as a transcode's: 16 for an input of more
 * than 8 bits when every filter runs there, else 8. */
static int chain_depth(const clv_media_desc *in, const clv_chain_desc *desc)
{
    if (clv_av_pixfmt_bits(in->pix_fmt) <= 8)
        return 8;
    for (int i = 0; i < clv_chain_desc_count(desc); i++)
        if (!clv_filter_deep(clv_chain_desc_filter(desc, i)))
            return 8;
    return 16;
}

/* One run of `path`: WARM_FRAMES frames, then v->frames timed. */
static int video_measure(clv_context *ctx, const clv_chain_desc *desc, const clv_bench_video *v,
                         enum video_path path, video_run *out, video_about *about, clv_msg *msg)
{
    video_source src = {.in = {.path = v->path, .hwaccel = v->hwaccel}};
    clv_feed *feed = NULL;
    clv_chain *chain = NULL;
    clv_stage *stage = NULL;
    AVFrame *held[HELD_RING] = {NULL};
    video_run r = {.kept_out = 1};
    const int total = WARM_FRAMES + v->frames;
    double start = 0, t0, t1, t2;
    int err = clv_decoder_open(&src.in, &src.dec, msg);
    if (err)
        goto done;
    const clv_media_desc *media = clv_decoder_media(src.dec);
    const int depth = chain_depth(media, desc);
    if ((err = clv_feed_create(media, depth, &feed, msg)))
        goto done;
    const clv_pixfmt in_format = clv_feed_format(feed);
    clv_stage_options o = {.struct_size = sizeof(clv_stage_options),
                           .width = media->width,
                           .height = media->height,
                           .in_format = in_format,
                           .out_format = v->out_format,
                           .in_color = clv_feed_color(feed),
                           .out_color = clv_feed_output_color(feed),
                           .slots = 3,
                           .profiling = 1};
    if (path != DECODE_ALONE) {
        if ((err = clv_chain_create_depth(ctx, desc, depth, &chain, msg)))
            goto done;
        clv_chain_set_frame_rate(chain, media->frame_rate.num, media->frame_rate.den);
        clv_chain_set_filter_timing(chain, 0); /* as the transcode: the stage's times only */
    }
    /* The decode alone makes a stage too: its blocks are what the decoder
     * writes into, as in the run through the stage. */
    if ((err = clv_stage_create(ctx, &o, chain, &stage, msg)))
        goto done;
    /* As a transcode: the layouts the stage reads as they are go into its
     * blocks; the others are converted (swscale) into the staging. */
    clv_frame_memory memory = {clv__stage_block_alloc, clv__stage_block_free, stage};
    r.decoded_into = path != FROM_COPIES && clv_feed_native(feed) && clv_pixfmt_is_yuv(in_format) &&
                     !clv_decoder_set_memory(src.dec, &memory);
    if (!about->codec[0]) {
        snprintf(about->codec, sizeof about->codec, "%s", avcodec_get_name(media->codec_id));
        clv_decode_text(media, about->decode, sizeof about->decode);
        snprintf(about->pix_fmt, sizeof about->pix_fmt, "%s",
                 av_get_pix_fmt_name(media->pix_fmt) ? av_get_pix_fmt_name(media->pix_fmt) : "?");
        snprintf(about->in_format, sizeof about->in_format, "%s", clv_pixfmt_name(in_format));
        snprintf(about->out_format, sizeof about->out_format, "%s", clv_pixfmt_name(v->out_format));
        about->width = media->width;
        about->height = media->height;
        about->depth = depth;
    }
    if ((err = source_start(&src, msg)))
        goto done;
    AVFrame *f = NULL;
    if (path == DECODE_ALONE) {
        for (int n = 0; n < total; n++) {
            t0 = now_ms();
            if ((err = source_next(&src, &f, msg)))
                goto done;
            r.decode_wait_ms += n >= WARM_FRAMES ? now_ms() - t0 : 0;
            const uint8_t *base;
            if (clv_decoder_frame_block(src.dec, f, &base))
                r.in_blocks++;
            else
                r.copied++;    /* in FFmpeg's memory: what the copies would copy */
            av_frame_free(&f); /* its block back to the stage's spares */
            if (n + 1 == WARM_FRAMES)
                start = now_ms();
        }
    } else {
        int submitted = 0, taken = 0;
        while (taken < total) {
            const int timed = taken >= WARM_FRAMES;
            if (submitted < total && clv_stage_input(stage)) {
                t0 = now_ms();
                if ((err = source_next(&src, &f, msg)))
                    goto done;
                t1 = now_ms();
                r.decode_wait_ms += timed ? t1 - t0 : 0;
                if ((err = clv_feed_check(feed, f, msg)))
                    goto done;
                int copy = 1;
                if (r.decoded_into && (copy = clv__stage_submit_decoded(
                                           stage, src.dec, f, (uint64_t)submitted, msg)) < 0) {
                    err = copy;
                    goto done;
                }
                if (copy) {
                    t1 = now_ms();
                    if ((err = clv_feed_write(feed, f, clv_stage_input(stage), msg)))
                        goto done;
                    t2 = now_ms();
                    r.copy_ms += timed ? t2 - t1 : 0;
                    t1 = t2;
                    err = clv_stage_submit(stage, (uint64_t)submitted, msg);
                    av_frame_free(&f);
                    if (err)
                        goto done;
                    r.copied++;
                } else {
                    held[submitted % HELD_RING] = f; /* until its output is taken */
                    f = NULL;
                    r.in_blocks++;
                }
                r.submit_ms += timed ? now_ms() - t1 : 0;
                submitted++;
                continue;
            }
            const uint8_t *pixels;
            uint64_t index = 0;
            t0 = now_ms();
            if ((err = clv_stage_output(stage, &pixels, &index, msg)))
                goto done;
            r.wait_ms += timed ? now_ms() - t0 : 0;
            av_frame_free(&held[index % HELD_RING]); /* read: back to the decoder's pool */
            /* What an encoder's thread reads, as a transcode hands it over. */
            clv_block *kept = clv_stage_keep(stage);
            r.kept_out = r.kept_out && kept;
            clv_block_free(kept);
            clv_stage_release(stage);
            if (++taken == WARM_FRAMES)
                start = now_ms();
        }
    }
    r.fps = v->frames / ((now_ms() - start) / 1e3);
    r.decode_wait_ms /= v->frames;
    r.copy_ms /= v->frames;
    r.submit_ms /= v->frames;
    r.wait_ms /= v->frames;
    *out = r;
    if (src.clip_frames)
        about->clip_frames = src.clip_frames;
    about->looped |= src.loops > 0;
done:
    /* The decoder stops, the stage waits for its kernels, and only then
     * do the frames they read go back to the decoder's pool (transcode.c's
     * close_all says why). */
    if (src.dec)
        clv_decoder_stop(src.dec);
    clv_stage_destroy(stage);
    for (int i = 0; i < HELD_RING; i++)
        av_frame_free(&held[i]);
    source_close(&src);
    clv_feed_destroy(feed);
    clv_chain_destroy(chain);
    return err;
}

/* Which way the frames went in and out, in a word and in words. */
static const char *in_word(const video_run *r, int shared)
{
    if (!r->in_blocks)
        return "copies";
    if (r->copied)
        return "mixed";
    return shared ? "shared" : "pinned";
}

static const char *in_words(const video_run *r, int shared)
{
    if (!r->decoded_into)
        return "copied into the staging (this format is converted, not decoded into blocks)";
    if (!r->in_blocks)
        return "copied into the staging (the decoder gave no frame in the stage's blocks)";
    if (r->copied)
        return "some frames in the stage's blocks, the others copied into the staging";
    return shared ? "decoded into the stage's shared-memory blocks, read in place by the kernels"
                  : "decoded into the stage's pinned blocks, uploaded from them (no host copy)";
}

static const char *out_word(const video_run *r, int shared)
{
    return !r->kept_out ? "copies" : shared ? "kept shared" : "kept pinned";
}

int clv_bench_video_run(clv_context *ctx, const clv_chain_desc *desc, const clv_bench_video *v)
{
    clv_msg msg = {{0}};
    int delay = 0, rate = 1;
    if (clv_chain_desc_cadence(desc, &delay, &rate, &msg) || delay || rate != 1) {
        fprintf(stderr,
                "clvid-bench: --input %s: a deinterlacer's chain is not timed from a "
                "video here (clvid transcode times it; or give raw RGBA)\n",
                v->path);
        return 2;
    }
    if (av_log_get_level() > AV_LOG_ERROR)
        av_log_set_level(AV_LOG_ERROR);
    video_run best[VIDEO_PATHS] = {{0}};
    video_about about;
    memset(&about, 0, sizeof about);
    /* In turns, three times, the best of each: the host's memory speed and
     * the decoder's threads drift between runs and move all alike. */
    for (int round = 0; round < ROUNDS; round++)
        for (int p = 0; p < VIDEO_PATHS; p++) {
            video_run r = {0};
            int err = video_measure(ctx, desc, v, (enum video_path)p, &r, &about, &msg);
            if (err) {
                fprintf(stderr, "clvid-bench: %s\n", msg.text);
                return err == CLV_EOPTION ? 2 : 1;
            }
            if (r.fps > best[p].fps)
                best[p] = r;
            /* FFmpeg has said what it had to once (-hwaccel auto's devices
             * that are not there): not again for each of the runs. */
            if (av_log_get_level() > AV_LOG_FATAL)
                av_log_set_level(AV_LOG_FATAL);
        }
    const video_run *a = &best[DECODE_ALONE], *b = &best[FROM_BLOCKS], *c = &best[FROM_COPIES];
    const int shared = clv_context_shared_staging(ctx);
    char names[1200];
    size_t used = 0;
    names[0] = 0;
    for (int d = 0; d < clv_context_device_count(ctx) && used < sizeof names; d++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", d ? " + " : "",
                                 clv_context_device_at(ctx, d)->name);
    char clip[160];
    if (about.looped)
        snprintf(clip, sizeof clip, "the clip's %ld frames looped (a seek back, timed)",
                 about.clip_frames);
    else
        snprintf(clip, sizeof clip, "the clip's first frames, no loop");
    if (v->json) {
        printf("{\"device\": ");
        clv_bench_json_string(names);
        printf(", \"input\": ");
        clv_bench_json_string(v->path);
        printf(", \"codec\": ");
        clv_bench_json_string(about.codec);
        printf(", \"decode\": ");
        clv_bench_json_string(about.decode);
        printf(", \"hwaccel\": ");
        clv_bench_json_string(v->hwaccel ? v->hwaccel : "none");
        printf(", \"pix_fmt\": \"%s\", \"in_format\": \"%s\", \"out\": \"%s\", \"depth\": %d, "
               "\"width\": %d, \"height\": %d, \"frames\": %d, \"warmup\": %d, "
               "\"clip_frames\": %ld, \"looped\": %s, \"staging\": \"%s\", \"chain\": ",
               about.pix_fmt, about.in_format, about.out_format, about.depth, about.width,
               about.height, v->frames, WARM_FRAMES, about.clip_frames,
               about.looped ? "true" : "false", shared ? "shared" : "copied");
        clv_bench_json_string(v->chain_text);
        printf(", \"decode_alone\": {\"fps\": %.1f, \"into\": \"%s\"}", a->fps,
               a->in_blocks && !a->copied ? (shared ? "shared blocks" : "pinned blocks")
               : a->in_blocks             ? "mixed"
                                          : "ffmpeg");
        printf(", \"blocks\": {\"fps\": %.1f, \"fraction_of_decode\": %.3f, \"in\": \"%s\", "
               "\"out\": \"%s\", \"frames_in_blocks\": %ld, \"frames_copied\": %ld, "
               "\"host_decode_wait_ms\": %.3f, \"host_copy_ms\": %.3f, \"host_submit_ms\": %.3f, "
               "\"host_wait_ms\": %.3f}",
               b->fps, a->fps > 0 ? b->fps / a->fps : 0.0, in_word(b, shared), out_word(b, shared),
               b->in_blocks, b->copied, b->decode_wait_ms, b->copy_ms, b->submit_ms, b->wait_ms);
        printf(", \"copies\": {\"fps\": %.1f, \"fraction_of_decode\": %.3f, \"in\": \"copies\", "
               "\"out\": \"%s\", \"host_decode_wait_ms\": %.3f, \"host_copy_ms\": %.3f, "
               "\"host_submit_ms\": %.3f, \"host_wait_ms\": %.3f}",
               c->fps, a->fps > 0 ? c->fps / a->fps : 0.0, out_word(c, shared), c->decode_wait_ms,
               c->copy_ms, c->submit_ms, c->wait_ms);
        printf(", \"target_fraction\": 0.9}\n");
        return 0;
    }
    printf("clvid-bench --pipeline: %s (%s %dx%d %s, decoded by %s) -> %s -> '%s' -> %s on %s, "
           "%s staging\n",
           v->path, about.codec, about.width, about.height, about.pix_fmt, about.decode,
           about.in_format, v->chain_text, about.out_format, names, shared ? "shared" : "copied");
    printf("  %d frames a run after %d untimed, %s; the best of %d runs each, in turns\n",
           v->frames, WARM_FRAMES, clip, ROUNDS);
    printf("  decode alone:                              %8.1f frames/s (%s)\n", a->fps,
           a->in_blocks ? "into the stage's blocks, dropped" : "in FFmpeg's memory, dropped");
    printf("  decode -> blocks -> chain -> outputs kept: %8.1f frames/s, %.2f of the decode alone "
           "(the target: 0.90)\n",
           b->fps, a->fps > 0 ? b->fps / a->fps : 0.0);
    printf("    in:  %s\n", in_words(b, shared));
    printf("    out: %s\n", !b->kept_out ? "not kept (a reader would copy them out)"
                            : shared
                                ? "kept where the kernels wrote them (shared memory), then freed"
                                : "kept in the pinned memory the download landed in, then freed");
    printf("    per frame (the submitting thread): waiting for the decoder %.3f ms, "
           "clv_stage_submit_block %.3f ms, waiting in clv_stage_output %.3f ms\n",
           b->decode_wait_ms, b->submit_ms, b->wait_ms);
    printf("  decode -> copies -> chain -> outputs kept: %8.1f frames/s, %.2f of the decode alone "
           "(FFmpeg's memory copied into clv_stage_input)\n",
           c->fps, a->fps > 0 ? c->fps / a->fps : 0.0);
    printf("    per frame (the submitting thread): waiting for the decoder %.3f ms, copy %.3f ms, "
           "clv_stage_submit %.3f ms, waiting in clv_stage_output %.3f ms\n",
           c->decode_wait_ms, c->copy_ms, c->submit_ms, c->wait_ms);
    return 0;
}
