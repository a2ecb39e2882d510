/* cmd_transcode.c - `clvid transcode -i INPUT [-vf CHAIN] -o OUTPUT`: the
 * words become clv_transcode_options for the pipeline library; the progress
 * line, the summary and Ctrl-C stay here. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clvid/graph.h"
#include "clvid/pipeline.h"

typedef struct transcode_args {
    clv_transcode_options run;
    clv_cli_outputs outputs; /* several -o */
    const char *progress_path;
    int quiet;
    /* Inputs after the first (-filter_complex), and what is given for the
     * next before its -i (-f, -ss, -t). */
    clv_transcode_input more[CLV_GRAPH_INPUTS - 1];
    clv_transcode_input next;
    char map[256];    /* -map '[label]' without its brackets */
    int sound_mapped; /* -map N:a given */
    char *script;     /* -filter_complex_script's text */
} transcode_args;

/* The options of transcode beside the shared capture and encoder ones
 * (options.c), for "did you mean". */
static const char *const transcode_words[] = {"-i",
                                              "-o",
                                              "-f",
                                              "-vf",
                                              "-y",
                                              "-q",
                                              "-an",
                                              "-sn",
                                              "-ss",
                                              "-t",
                                              "-itsoffset",
                                              "--frames",
                                              "-frames:v",
                                              "-frames",
                                              "-vframes",
                                              "--device",
                                              "--progress",
                                              "--ipc",
                                              "--live",
                                              "--reconnect",
                                              "-re",
                                              "-hls_time",
                                              "-hls_list_size",
                                              "--no-autorotate",
                                              "-noautorotate",
                                              "--frame-index",
                                              "--help",
                                              "-filter_complex",
                                              "-filter_complex_script",
                                              "-lavfi",
                                              "-map",
                                              NULL};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clvid transcode -i INPUT [-vf CHAIN] -o OUTPUT [options]\n"
            "  -i INPUT          file, image (sequence: img_%%04d.png), stream, device, - (stdin)\n"
            "  -f FORMAT         before -i: the input format (lavfi, v4l2, image2, ...);\n"
            "                    after -i: the output format (matroska, nut, mpegts, v4l2)\n"
            "  -vf CHAIN         filters, ffmpeg syntax: 'median=radius=2,sharpen' (clvid "
            "filters);\n"
            "                    your own kernel: opencl=file=KERNEL.cl (docs/kernels.md)\n"
            "  -i A -i B ... -filter_complex GRAPH   several inputs joined by a graph, ffmpeg's\n"
            "                    syntax: '[0][1]overlay=W-w-10:10', '[0][1]hstack' (-lavfi\n"
            "                    too; -filter_complex_script FILE reads it from FILE); -f,\n"
            "                    -ss, -t, -itsoffset S given before a later -i are that\n"
            "                    input's (docs/graphs.md)\n"
            "  -map '[LABEL]'    the graph's output to write (default: its one unlabelled)\n"
            "  -map N:a          the sound kept: input N's (default 0:a, the first's;\n"
            "                    N:a? none when it has none; -an: none)\n"
            "  -o OUTPUT         output file; the format follows the extension ('-': standard\n"
            "                    output, with -f FORMAT after -i: -f matroska -o -); a\n"
            "                    stream: udp://, srt://, rtp:// (MPEG-TS), rtmp:// (FLV),\n"
            "                    rtsp:// (publish); live.m3u8: HLS; -f v4l2 -o /dev/videoN:\n"
            "                    a virtual camera, v4l2loopback (docs/live.md)\n"
            "                    several -o: one encoding written to each (record and stream)\n"
            "  -f tee -o 'A|[f=FMT:onfail=ignore]B'   the same in ffmpeg's tee syntax, each\n"
            "                    output's options in [...]: f, onfail=abort|ignore, select\n"
            "  -y                overwrite OUTPUT if it exists\n"
            "  -c:v CODEC        video encoder (default: libx264 for mp4/mkv/mov, png for .png)\n"
            "  -crf N            x264/x265 quality, 0..51 (default 18)\n"
            "  -preset NAME      x264/x265 preset (default veryfast)\n"
            "  -b:v RATE         video bit rate (2M, 800k)\n"
            "  -pix_fmt FMT      encoder pixel format (default: the input's depth where the\n"
            "                    encoder holds it: 10-bit in, yuv420p10le out with libx265)\n"
            "  -c:a CODEC|copy   sound: by default copied when the container takes it, else\n"
            "                    encoded to its own codec (aac for mp4/mov, libopus for webm)\n"
            "  -aspect W:H       display aspect ratio of the output (16:9, 4:3, 1.7778)\n"
            "  -r RATE           after -i: the output's frames per second (24, 30000/1001,\n"
            "                    ntsc), frames repeated or dropped as ffmpeg's -r\n"
            "  -an, -sn          leave the input's audio, subtitle streams out (default: "
            "copied)\n"
            "  -ss TIME -t TIME  start and duration (seconds or [hh:]mm:ss[.ms])\n"
            "  --no-autorotate   keep frames as stored (by default a phone video's rotation or\n"
            "                    a photo's EXIF orientation turns them upright first)\n"
            "  --frames N        stop after N video frames\n"
            "  --frame-index N   the first frame's index for per-frame filters (noise) when the\n"
            "                    run starts mid-video (-ss), as a segment of a longer job\n"
            "  --device LIST     OpenCL device(s) (clvid devices): N, NAME, 1,2, gpu, all\n"
            "  -q                quiet: no progress, no summary\n"
            "  --progress FILE   key=value progress blocks (frames, speed, latency), as\n"
            "                    ffmpeg's -progress\n"
            "  --ipc PATH        a control socket (JSON lines, as mpv's): set_chain, set_param,\n"
            "                    get, pause, resume, quit (docs/ipc.md)\n"
            "  --live            a camera or stream: no demuxer buffering, small probe (a\n"
            "                    network input: rtsp://, srt://, rtmp://, udp://, rtp://,\n"
            "                    tcp://, http(s)://, has it by default)\n");
    fprintf(f, "  -hwaccel auto|cuda|vaapi|none   decode on the GPU's video decoder (NVDEC,\n"
               "                    VA-API; the frames come back as nv12/p010); auto: the first\n"
               "                    that decodes the stream, else software (the summary says\n"
               "                    which); a named one that cannot is an error (exit 1);\n"
               "                    default none (docs/transcode.md, \"Hardware decoding\")\n"
               "  -hwaccel_device D its device: 0, 1 (cuda), /dev/dri/renderD128 (vaapi)\n"
               "  -rtsp_transport tcp|udp   before -i: RTSP's transport (default: FFmpeg's)\n"
               "  -rw_timeout US    a network input that sends nothing for US microseconds has\n"
               "                    dropped (default 5000000: 5 s)\n"
               "  --reconnect       a network input that drops or ends is opened again (waits\n"
               "                    0.5 s doubling to 8 s); the output goes on on one timeline\n"
               "  --reconnect-max S give up after S seconds of trying (default: never)\n"
               "  -re               read the input at its native rate (a file feeding a live\n"
               "                    output), never ahead of real time\n"
               "  -g N              frames from one keyframe to the next (default for a network\n"
               "                    or HLS output: 2 s of frames)\n"
               "  -hls_time S       HLS (-o live.m3u8): segment length, seconds (default 2)\n"
               "  -hls_list_size N  HLS: segments the playlist names (default 5; 0: all)\n"
               "  --input-size WxH --input-fps N --input-format F   capture options\n"
               "  --audio DEVICE    with --live: record a microphone too (ALSA: default, hw:1)\n"
               "  --audio-format F  its capture format: alsa (default), pulse, oss, lavfi\n");
}

/* -filter_complex_script FILE's text into a->script (the caller frees it);
 * -1 after saying why. */
static int read_script(transcode_args *a, const char *path)
{
    free(a->script);
    a->run.filter_complex_file = path;
    if (clv_cli_read_script("transcode", path, &a->script))
        return -1;
    a->run.filter_complex = a->script;
    return 0;
}

/* -map V: "[label]" (the graph's output) or "N:a" / "N:a?" (the sound
 * kept: input N's); "0", "0:v": input 0's video. */
static int map_option(transcode_args *a, const char *v)
{
    size_t n = strlen(v);
    if (v[0] == '[') {
        if (n < 3 || v[n - 1] != ']' || n - 2 >= sizeof a->map) {
            fprintf(stderr, "clvid transcode: -map %s: expected a label in brackets, '[out]'\n", v);
            return -1;
        }
        if (a->map[0]) {
            fprintf(stderr,
                    "clvid transcode: -map %s: the graph's output is already [%s] (one "
                    "video output)\n",
                    v, a->map);
            return -1;
        }
        memcpy(a->map, v + 1, n - 2);
        a->map[n - 2] = 0;
        a->run.map = a->map;
        return 0;
    }
    char *end;
    long index = strtol(v, &end, 10);
    int optional = n > 0 && v[n - 1] == '?';
    if (end == v || index < 0 || index >= CLV_GRAPH_INPUTS ||
        (*end && strcmp(end, ":a") && strcmp(end, ":a?") && strcmp(end, ":v"))) {
        fprintf(stderr,
                "clvid transcode: -map %s: expected '[LABEL]' (a graph's output), N:a or N:a? "
                "(input N's sound)\n",
                v);
        return -1;
    }
    int inputs = (a->run.input ? 1 : 0) + a->run.more_input_count;
    if (index >= inputs) {
        fprintf(stderr, "clvid transcode: -map %s: no input %ld (%d input%s given before it)\n", v,
                index, inputs, inputs == 1 ? "" : "s");
        return -1;
    }
    if (strcmp(end, ":v")) {
        if (a->sound_mapped && a->run.audio_input != (int)index) {
            fprintf(stderr,
                    "clvid transcode: -map %s: the sound is already input %d's (one input's "
                    "sound is kept)\n",
                    v, a->run.audio_input);
            return -1;
        }
        a->sound_mapped = 1;
        a->run.audio_input = (int)index;
        a->run.audio_optional = optional; /* ffmpeg's '?': none when it has none */
        return 0;
    }
    if (index > 0) {
        fprintf(stderr,
                "clvid transcode: -map %s: input %ld's video goes out through a graph: "
                "-filter_complex ... and -map '[LABEL]'\n",
                v, index);
        return -1;
    }
    return 0;
}

static int parse_args(int argc, char **argv, transcode_args *a)
{
    memset(a, 0, sizeof *a);
    clv_transcode_options_init(&a->run);
    clv_transcode_options *r = &a->run;
    /* -f, -ss and -t between two -i are the second's, as ffmpeg's. */
    int last_i = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-i"))
            last_i = i;
    r->more_inputs = a->more;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-y")) {
            r->overwrite = 1;
            continue;
        }
        if (!strcmp(o, "-q")) {
            a->quiet = 1;
            continue;
        }
        if (!strcmp(o, "--live")) {
            r->live = 1;
            continue;
        }
        if (!strcmp(o, "--reconnect")) {
            r->reconnect = 1;
            continue;
        }
        if (!strcmp(o, "-re")) {
            r->realtime = 1;
            continue;
        }
        if (!strcmp(o, "--no-autorotate") || !strcmp(o, "-noautorotate")) {
            r->no_autorotate = 1;
            continue;
        }
        if (!strcmp(o, "-an") || !strcmp(o, "-sn")) {
            *(o[1] == 'a' ? &r->no_audio : &r->no_subtitles) = 1;
            continue;
        }
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            exit(CLV_EXIT_OK);
        }
        if (o[0] != '-' || !o[1]) {
            fprintf(stderr,
                    "clvid transcode: '%s': %s (clvid transcode -i INPUT [-vf CHAIN] -o "
                    "OUTPUT)\n",
                    o,
                    !r->input    ? "give the input with -i"
                    : !r->output ? "give the output with -o"
                                 : "one input and one output only");
            return -1;
        }
        if (clv_cli_unknown(o, transcode_words, "transcode"))
            return -1;
        if (i + 1 >= argc) {
            fprintf(stderr, "clvid transcode: %s needs a value\n", o);
            return -1;
        }
        const char *v = argv[++i];
        int known;
        int for_next = r->input && i < last_i; /* given before a later -i */
        if (!strcmp(o, "-i") && r->input) {
            if (r->more_input_count == CLV_GRAPH_INPUTS - 1) {
                fprintf(stderr, "clvid transcode: -i %s: at most %d inputs\n", v, CLV_GRAPH_INPUTS);
                return -1;
            }
            a->next.path = v;
            a->more[r->more_input_count++] = a->next;
            memset(&a->next, 0, sizeof a->next);
        } else if (!strcmp(o, "-i"))
            r->input = v;
        else if (!strcmp(o, "-r") && (!r->input || for_next)) {
            fprintf(stderr,
                    "clvid transcode: -r %s before -i is ffmpeg's input frame rate, which clvid "
                    "does not take (the input's timestamps are kept); after -i, -r sets the "
                    "output's\n",
                    v);
            return -1;
        } else if (for_next && !strcmp(o, "-itsoffset")) {
            int neg = v[0] == '-';
            int64_t us = clv_parse_time(v + neg);
            if (us < 0) {
                fprintf(stderr,
                        "clvid transcode: -itsoffset %s: expected seconds, [-]5.2 or "
                        "[-][hh:]mm:ss[.ms], from -%d to %d s\n",
                        v, CLV_TIME_MAX_SECONDS, CLV_TIME_MAX_SECONDS);
                return -1;
            }
            a->next.offset_us = neg ? -us : us;
        } else if (for_next && (!strcmp(o, "-f") || !strcmp(o, "-ss") || !strcmp(o, "-t"))) {
            int64_t us = o[1] == 'f' ? 0 : clv_parse_time(v);
            if (us < 0) {
                fprintf(stderr,
                        "clvid transcode: %s %s: expected seconds or [hh:]mm:ss[.ms], from 0 to "
                        "%d s\n",
                        o, v, CLV_TIME_MAX_SECONDS);
                return -1;
            }
            if (o[1] == 'f')
                a->next.format = v;
            else
                *(o[1] == 's' ? &a->next.start_us : &a->next.duration_us) = us;
        } else if ((!strcmp(o, "-vf") && r->chain) ||
                   ((!strcmp(o, "-filter_complex") || !strcmp(o, "-lavfi") ||
                     !strcmp(o, "-filter_complex_script")) &&
                    r->filter_complex)) {
            /* One run writes one chain or graph: a second would win
             * silently, the first not even parsed (play takes several). */
            if (o[1] == 'v')
                fprintf(stderr,
                        "clvid transcode: -vf given twice ('%.200s', then '%.200s'): give one "
                        "chain, its filters joined by commas (-vf 'a,b')\n",
                        r->chain, v);
            else
                fprintf(stderr,
                        "clvid transcode: %s %.200s: a graph was given before (-filter_complex, "
                        "-lavfi or -filter_complex_script): give one graph, its chains joined "
                        "by ';'\n",
                        o, v);
            return -1;
        } else if (!strcmp(o, "-filter_complex") || !strcmp(o, "-lavfi")) {
            r->filter_complex = v;
            r->filter_complex_file = NULL;
        } else if (!strcmp(o, "-filter_complex_script")) {
            if (read_script(a, v))
                return -1;
        } else if (!strcmp(o, "-map")) {
            if (map_option(a, v))
                return -1;
        } else if (!strcmp(o, "-o")) {
            if (clv_cli_add_output(&a->outputs, v, r, "transcode"))
                return -1;
        } else if (!strcmp(o,
                           "-f")) /* as in ffmpeg: before -i the input's, after it the output's */
            *(r->input ? &r->output_format : &r->input_format) = v;
        else if (!strcmp(o, "-vf"))
            r->chain = v;
        else if (!strcmp(o, "--device"))
            r->device = v;
        else if (!strcmp(o, "--progress"))
            a->progress_path = v;
        else if (!strcmp(o, "--ipc"))
            r->ipc = v;
        else if ((known = clv_cli_output_option(o, v, r)) != 0 ||
                 (known = clv_cli_capture_option(o, v, r)) != 0) {
            if (known < 0)
                return -1;
        } else if (!strcmp(o, "-ss") || !strcmp(o, "-t") || !strcmp(o, "--frames") ||
                   !strcmp(o, "-frames:v") || !strcmp(o, "-frames") || !strcmp(o, "-vframes") ||
                   !strcmp(o, "--frame-index") || !strcmp(o, "-hls_time") ||
                   !strcmp(o, "-hls_list_size")) {
            clv_msg msg;
            if (clv_transcode_options_set(r, o, v, &msg)) {
                fprintf(stderr, "clvid transcode: %s\n", msg.text);
                return -1;
            }
        } else {
            fprintf(stderr, "clvid transcode: unknown option %s\n", o);
            return -1;
        }
    }
    if (!r->input || !r->output) {
        fprintf(stderr, "clvid transcode: %s\n",
                !r->input ? "-i INPUT is missing" : "-o OUTPUT is missing");
        return -1;
    }
    return clv_cli_outputs_done(&a->outputs, r, "transcode");
}

/* Ctrl-C, SIGTERM and SIGHUP (the terminal closed): the first asks the run
 * to stop after the frames in flight, so that the output is finished,
 * complete up to there and playable; a second exits at once and removes
 * every partial output (a partial left by SIGKILL or a crash is unlocked,
 * and the next run into that path removes it). The handlers are in place
 * before the run makes its partials; their names are known from START on,
 * so a second signal before START exits there. A reader of a FIFO output
 * that goes away is a write error, not a silent death by SIGPIPE. What a
 * signal handler touches has to be static: these are the only such state. */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t quit_signal; /* a second signal came before START */
static char partial_paths[16][1100];      /* written before partial_count is raised */
static volatile sig_atomic_t partial_count;
static volatile sig_atomic_t partials_known; /* from START on */

static void remove_partials(void)
{
    for (int i = 0; i < partial_count; i++)
        unlink(partial_paths[i]);
}

static void on_signal(int sig)
{
    if (stop_signal && partials_known) {
        remove_partials();
        _exit(128 + sig);
    }
    if (stop_signal && !quit_signal) {
        /* Before START: exit there, or in 2 s if it does not come (an
         * input whose open blocks, a FIFO with no writer), with whatever
         * partials are known (the next run into a path removes the rest). */
        quit_signal = sig;
        alarm(2);
    }
    stop_signal = sig;
}

static void on_alarm(int sig)
{
    (void)sig;
    remove_partials();
    _exit(128 + quit_signal);
}

/* From START: the partials a second signal removes. */
static void know_partials(const char *const *partials)
{
    for (int i = 0; partials && partials[i] && i < 16; i++) {
        snprintf(partial_paths[i], sizeof partial_paths[i], "%s", partials[i]);
        partial_count = i + 1;
    }
    partials_known = 1;
    if (quit_signal) {
        remove_partials();
        _exit(128 + quit_signal);
    }
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* The terminal's progress line, ffmpeg's -progress blocks and the summary. */
typedef struct display {
    int quiet, tty;
    int reconnecting; /* between RECONNECTING and RECONNECTED */
    FILE *file;
    double last;
    const char *rate; /* -r, or NULL */
} display;

static void progress_line(display *d, const clv_transcode_status *s, int final)
{
    double fps = s->elapsed > 0 ? (double)s->frames / s->elapsed : 0;
    double speed = s->elapsed > 0 ? s->out_seconds / s->elapsed : 0;
    if (d->tty) {
        char bar[32] = "";
        char eta[32] = "";
        if (s->total_seconds > 0) {
            double frac = s->out_seconds / s->total_seconds;
            frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
            int n = (int)(frac * 20);
            snprintf(bar, sizeof bar, "[%.*s%*s] %3.0f%%", n, "####################", 20 - n, "",
                     frac * 100);
            if (speed > 0)
                snprintf(eta, sizeof eta, " eta %.0fs",
                         (s->total_seconds - s->out_seconds) / speed);
        }
        fprintf(stderr, "\rframe %6lld  fps %6.1f  speed %5.2fx  elapsed %5.1fs%s %s\033[K",
                (long long)s->frames, fps, speed, s->elapsed, eta, bar);
        if (final)
            fputc('\n', stderr);
    }
    if (d->file) {
        fprintf(d->file,
                "frame=%lld\nfps=%.2f\nout_time_us=%lld\nout_time=%.6f\nspeed=%.3fx\n"
                "latency_p50_ms=%.3f\nlatency_p99_ms=%.3f\nlatency_max_ms=%.3f\n"
                "encoder_p50_ms=%.3f\nencoder_p99_ms=%.3f\nprogress=%s\n",
                (long long)s->frames, fps, (long long)(s->out_seconds * 1e6), s->out_seconds, speed,
                s->latency_p50_ms, s->latency_p99_ms, s->latency_max_ms, s->encoder_p50_ms,
                s->encoder_p99_ms, final ? "end" : "continue");
        fflush(d->file);
    }
}

static int on_status(const clv_transcode_status *s, void *user)
{
    display *d = user;
    switch (s->event) {
    case CLV_TRANSCODE_START:
        know_partials(s->partial_paths);
        if (!d->quiet)
            fprintf(stderr, "clvid: %s (%dx%d %s, %s %s range) -> [%s] on %s -> %s (%s %s%s%s)\n",
                    s->input, s->width, s->height, s->input_pix_fmt, s->matrix,
                    s->full_range ? "full" : "limited", s->chain[0] ? s->chain : "no filter",
                    s->device, s->output, s->codec, s->output_pix_fmt, d->rate ? ", -r " : "",
                    d->rate ? d->rate : "");
        break;
    case CLV_TRANSCODE_PROGRESS:
        if (s->elapsed - d->last >= 0.5) {
            d->last = s->elapsed;
            progress_line(d, s, 0);
        }
        break;
    case CLV_TRANSCODE_RECONNECTING:
    case CLV_TRANSCODE_RECONNECTED:
        /* Said once per drop, and in the progress file at every try. */
        if (!d->quiet && (s->event == CLV_TRANSCODE_RECONNECTED || !d->reconnecting))
            fprintf(stderr, "%sclvid: '%s' %s\n", d->tty ? "\r\033[K" : "", s->input,
                    s->event == CLV_TRANSCODE_RECONNECTED ? "is back: reconnected"
                                                          : "dropped: reconnecting...");
        d->reconnecting = s->event == CLV_TRANSCODE_RECONNECTING;
        if (d->file && d->reconnecting) {
            fprintf(d->file, "frame=%lld\nout_time_us=%lld\nprogress=reconnecting\n",
                    (long long)s->frames, (long long)(s->out_seconds * 1e6));
            fflush(d->file);
        }
        break;
    case CLV_TRANSCODE_END:
        progress_line(d, s, 1);
        if (!d->quiet) {
            fprintf(
                stderr, "clvid: %lld frames in %.2f s (%.1f fps, the first after %.2f s) -> %s\n",
                (long long)s->frames, s->elapsed,
                s->elapsed > 0 ? (double)s->frames / s->elapsed : 0, s->first_frame_s, s->output);
            if (s->shared_staging && s->upload_s == 0 && s->download_s == 0)
                fprintf(stderr,
                        "       decode: %s, %.2f s | kernels %.2f s (frames in memory shared with "
                        "the device: no upload or download) | encode %.2f s\n",
                        s->decode, s->decode_s, s->kernels_s, s->encode_s);
            else
                fprintf(stderr,
                        "       decode: %s, %.2f s | upload %.2f s | kernels %.2f s | download "
                        "%.2f s | encode %.2f s\n",
                        s->decode, s->decode_s, s->upload_s, s->kernels_s, s->download_s,
                        s->encode_s);
        }
        if (!d->quiet && s->frames > 0)
            fprintf(stderr,
                    "       latency (packet read to written) p50 %.1f ms, p99 %.1f ms, max %.1f ms "
                    "| encoder p50 %.1f ms, p99 %.1f ms\n",
                    s->latency_p50_ms, s->latency_p99_ms, s->latency_max_ms, s->encoder_p50_ms,
                    s->encoder_p99_ms);
        if (!d->quiet && s->device_shares && s->device_shares[0])
            fprintf(stderr, "       devices: %s\n", s->device_shares);
        /* Said even with -q: the output lacks what the input lost. */
        if (s->corrupt_packets || s->corrupt_frames)
            fprintf(stderr,
                    "clvid: '%s' is damaged: %lld corrupt video packet%s dropped, %lld damaged "
                    "frame%s concealed by the decoder\n",
                    s->input, (long long)s->corrupt_packets, s->corrupt_packets == 1 ? "" : "s",
                    (long long)s->corrupt_frames, s->corrupt_frames == 1 ? "" : "s");
        if (s->stopped && stop_signal)
            fprintf(stderr, "clvid: interrupted (%s): '%s' holds the %lld frames before the stop\n",
                    stop_signal == SIGINT   ? "Ctrl-C"
                    : stop_signal == SIGHUP ? "SIGHUP"
                                            : "SIGTERM",
                    s->output, (long long)s->frames);
        break;
    }
    return 0;
}

/* The progress file, once its checks passed: "-", /dev/stdout or
 * /dev/stderr (or what they name: 2>log with --progress /dev/stderr) are
 * this process's own streams, written as they are; a file that was not
 * there is made only if nothing appeared there since the check (without
 * -y); a FIFO or a device is written in place. */
static FILE *progress_open(const char *path, int overwrite)
{
    struct stat st, own;
    if (!strcmp(path, "-"))
        return stdout;
    int exists = stat(path, &st) == 0;
    for (int fd = 1; exists && fd <= 2; fd++)
        if (fstat(fd, &own) == 0 && own.st_dev == st.st_dev && own.st_ino == st.st_ino)
            return fd == 1 ? stdout : stderr;
    int flags = O_WRONLY | O_CLOEXEC;
    if (!exists)
        flags |= O_CREAT | (overwrite ? O_TRUNC : O_EXCL);
    else if (S_ISREG(st.st_mode))
        flags |= O_TRUNC;
    int fd = open(path, flags, 0666);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (fd >= 0 && !f)
        close(fd);
    return f;
}

int clv_cli_transcode(clv_transcode_options *options, int quiet, const char *progress_path)
{
    char cache[4096];
    clv_context_options engine;
    clv_context_options_init(&engine);
    clv_env_engine_settings(&engine, cache, sizeof cache);
    options->engine = &engine;
    options->quiet = quiet;
    display d = {.quiet = quiet, .tty = !quiet && isatty(2), .rate = options->frame_rate};
    /* The progress file is a file the run writes, as its output is: never
     * an input, a file the chain reads or the output (a slip of the
     * keyboard would destroy it), an existing one replaced only with -y;
     * opened once the run's own checks passed too. */
    clv_msg msg = {{0}};
    int checked = progress_path && strcmp(progress_path, "-")
                      ? clv_transcode_check_side_file(options, progress_path, "--progress", &msg)
                      : 0;
    if (checked) {
        fprintf(stderr, "clvid: %s\n", msg.text);
        return clv_cli_exit_status(checked);
    }
    if (progress_path && !(d.file = progress_open(progress_path, options->overwrite))) {
        fprintf(stderr, "clvid: --progress: cannot write '%s': %s\n", progress_path,
                strerror(errno));
        return CLV_EXIT_RUNTIME;
    }
    catch_signals();
    int err = clv_transcode_run(options, on_status, &d, &stop_signal, &msg);
    if (d.file && d.file != stdout && d.file != stderr)
        fclose(d.file);
    if (msg.text[0] || err) {
        if (d.tty && err)
            fputc('\n', stderr);
        fprintf(stderr, "clvid: %s\n", msg.text[0] ? msg.text : clv_strerror(err));
    }
    if (stop_signal)
        return 128 + stop_signal;
    return clv_cli_exit_status(err);
}

int clv_cmd_transcode(int argc, char **argv)
{
    transcode_args a;
    if (parse_args(argc, argv, &a)) {
        free(a.script);
        fprintf(stderr, "(clvid transcode --help lists the options)\n");
        return CLV_EXIT_USAGE;
    }
    int status = clv_cli_transcode(&a.run, a.quiet, a.progress_path);
    free(a.script);
    return status;
}
