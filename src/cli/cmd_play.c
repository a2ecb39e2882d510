/* cmd_play.c - `clvid play [INPUT]` and `clvid webcam [DEVICE]`: the words
 * become clv_player_options and one call to the player (src/player); a
 * headless webcam recording is a live transcode through the pipeline. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clvid/graph.h"
#include "player.h"

typedef struct play_args {
    clv_player_options player;
    int no_window;           /* webcam: record without a window */
    clv_cli_outputs outputs; /* several -o */
    int live;                /* --live */
    /* Inputs after the first (-filter_complex), what is given for the next
     * before its -i (-f, -ss, -t), -map's label, the scripts' texts. */
    clv_transcode_input more[CLV_GRAPH_INPUTS - 1];
    clv_transcode_input next;
    char map[256];
    char *scripts[CLV_PLAYER_CHAINS];
} play_args;

/* The options of play and webcam beside the shared capture and encoder
 * ones (options.c), for "did you mean". */
static const char *const play_words[] = {"-i",
                                         "-f",
                                         "-vf",
                                         "-filter_complex",
                                         "-lavfi",
                                         "-filter_complex_script",
                                         "-map",
                                         "-t",
                                         "-itsoffset",
                                         "-ss",
                                         "--device",
                                         "--size",
                                         "--fullscreen",
                                         "--untimed",
                                         "--loop",
                                         "--autoexit",
                                         "-an",
                                         "--volume",
                                         "--no-hud",
                                         "--exit-after-frames",
                                         "--screenshot",
                                         "--keys",
                                         "--stats",
                                         "--ipc",
                                         "--live",
                                         "--reconnect",
                                         "--no-window",
                                         "-o",
                                         "-y",
                                         "--no-autorotate",
                                         "-noautorotate",
                                         "--help",
                                         NULL};

static void usage(FILE *f)
{
    fprintf(f, "usage: clvid play [INPUT] [options]        (no INPUT: the bundled sample)\n"
               "  -f FORMAT          the format of the file named next: the input's (lavfi,\n"
               "                     v4l2, ...) or -o's (-f v4l2 -o /dev/video10: a virtual\n"
               "                     camera, v4l2loopback; docs/live.md)\n"
               "  -vf CHAIN          a filter chain (repeat -vf for several; w cycles them);\n"
               "                     opencl=file=KERNEL.cl reloads when the file is saved\n"
               "  -i A -i B ... -filter_complex GRAPH   several inputs joined by a graph\n"
               "                     (ffmpeg's syntax; -lavfi GRAPH, -filter_complex_script\n"
               "                     FILE too): the window shows its output live; repeat it\n"
               "                     for several graphs, w cycles them; -f, -ss, -t,\n"
               "                     -itsoffset before a later -i are that input's; xfade\n"
               "                     hands over to its second input after its transition;\n"
               "                     webcam: the camera is input 0, each -i a further\n"
               "                     input (webcam DEV -i logo.png -filter_complex\n"
               "                     '[0][1]overlay=W-w-10:10'); one -vf is the chain after\n"
               "                     the graph, the one the keys 1-9 switch\n"
               "  -map '[LABEL]'     the graph's output shown (default: its one unlabelled)\n"
               "  -ss TIME           start at TIME (seconds or [hh:]mm:ss)\n"
               "  --device LIST      OpenCL device(s) (clvid devices): N, NAME, 1,2, gpu, all\n"
               "  --size WxH         window size in points (default: the video's, fitted)\n"
               "  --fullscreen       start fullscreen\n"
               "  --untimed          show every frame as fast as the pipeline allows\n"
               "  --loop             start again at the end\n"
               "  --autoexit         quit at the end of the input\n"
               "  -an                no sound\n"
               "  --volume PERCENT   0..200 (default 100)\n"
               "  --no-hud           start with the HUD hidden (i toggles it)\n"
               "  --exit-after-frames N   quit after showing N frames\n"
               "  --screenshot PATH  at exit, save the window as a PNG\n"
               "  --keys \"2 w c\"     replay key presses, one per frame shown\n"
               "  --stats FILE       at exit, write the player's state as key=value lines\n"
               "  --ipc PATH         a control socket (JSON lines, as mpv's): set_chain, "
               "set_param,\n"
               "                     get, screenshot, pause, resume, seek, quit (docs/ipc.md)\n"
               "  --live             a camera or stream: newest frame first (webcam and a\n"
               "                     network input: rtsp://, srt://, udp://, ... set it)\n"
               "  -hwaccel auto|cuda|vaapi|none [-hwaccel_device D]  decode on the GPU's video\n"
               "                     decoder (clvid transcode --help; default none)\n"
               "  -rtsp_transport tcp|udp  RTSP's transport;  -rw_timeout US  a network input\n"
               "                     silent that long has dropped (default 5000000: 5 s)\n"
               "  --reconnect [--reconnect-max S]  a network input that drops is opened\n"
               "                     again, the window showing the last frame meanwhile\n"
               "                     (give up after S seconds; clvid transcode --help)\n"
               "  --no-window        with --live and -o: record without a window\n"
               "  --no-autorotate    show frames as stored, not turned upright\n"
               "  --input-size WxH --input-fps N --input-format mjpeg|yuyv422|...  capture\n"
               "  -o OUTPUT [-y] [-c:v CODEC] [-crf N] [-preset P] [-b:v RATE] [-pix_fmt F]\n"
               "                     record the frames shown; several -o: record and\n"
               "                     stream at once (-o rec.mkv -o udp://HOST:PORT)\n"
               "  --audio DEVICE     record a microphone too (ALSA: default, hw:1, ...)\n"
               "  --audio-format F   its capture format: alsa (default), pulse, oss, lavfi\n"
               "Keys 1-9 pick presets, shift+1..9 a second bank (blur, unsharp, denoise,\n"
               "colour); press h in the window for every key.\n");
}

/* Reads a positive integer, or prints why not and returns -1. */
static int64_t positive(const char *o, const char *v)
{
    char *end;
    long long n = strtoll(v, &end, 10);
    if (*end || end == v || n < 1) {
        fprintf(stderr, "clvid play: %s %s: expected a positive integer\n", o, v);
        return -1;
    }
    return n;
}

/* -filter_complex_script FILE: its text as graph n (a->scripts keeps it);
 * -1 after saying why. */
static int read_script(play_args *a, int n, const char *path)
{
    if (clv_cli_read_script("play", path, &a->scripts[n]))
        return -1;
    a->player.graphs[n] = a->scripts[n];
    a->player.graph_files[n] = path;
    return 0;
}

/* -filter_complex, -lavfi or -filter_complex_script (script: v is a file):
 * one more graph; -1 after saying why. */
static int add_graph(play_args *a, const char *o, const char *v, int script)
{
    clv_player_options *p = &a->player;
    if (p->graph_count == CLV_PLAYER_CHAINS) {
        fprintf(stderr, "clvid play: %s: at most %d graphs\n", o, CLV_PLAYER_CHAINS);
        return -1;
    }
    if (script)
        return read_script(a, p->graph_count++, v);
    p->graphs[p->graph_count++] = v;
    return 0;
}

/* -map '[LABEL]': the graphs' output shown; -1 after saying why. */
static int map_option(play_args *a, const char *v)
{
    size_t n = strlen(v);
    if (v[0] != '[' || n < 3 || v[n - 1] != ']' || n - 2 >= sizeof a->map) {
        fprintf(stderr,
                "clvid play: -map %s: expected a graph's output label in brackets, '[out]' (the "
                "sound played is input 0's)\n",
                v);
        return -1;
    }
    if (a->map[0]) {
        fprintf(stderr, "clvid play: -map %s: the graph's output is already [%s]\n", v, a->map);
        return -1;
    }
    memcpy(a->map, v + 1, n - 2);
    a->map[n - 2] = 0;
    a->player.io.map = a->map;
    return 0;
}

/* Input `path` given with -i: a further input of the graph (webcam: every
 * -i; play: those after the first), with what was given for it before.
 * 1 when it was one, 0 when it is input 0, -1 after saying why. */
static int more_input(play_args *a, const char *path, const char *format, int webcam)
{
    clv_transcode_options *io = &a->player.io;
    if (!webcam && !io->input)
        return 0;
    if (io->more_input_count == CLV_GRAPH_INPUTS - 1) {
        fprintf(stderr, "clvid play: -i %s: at most %d inputs\n", path, CLV_GRAPH_INPUTS);
        return -1;
    }
    a->next.path = path;
    a->next.format = format;
    a->more[io->more_input_count++] = a->next;
    memset(&a->next, 0, sizeof a->next);
    return 1;
}

static int parse_args(int argc, char **argv, play_args *a, int webcam)
{
    memset(a, 0, sizeof *a);
    clv_player_options *p = &a->player;
    clv_transcode_options_init(&p->io);
    p->io.more_inputs = a->more;
    p->volume = 1.0;
    /* -ss and -t given before a later -i are that input's (ffmpeg's input
     * options); webcam: every -i is a further input. */
    int last_i = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-i"))
            last_i = i;
    /* -f applies to the file named next, as in ffmpeg: the INPUT's
     * (-f lavfi testsrc2), or -o's (-f v4l2 -o /dev/video10). */
    const char *format = NULL;
    int last_output = 0;             /* the last file named is -o's */
    const char *encoder_word = NULL; /* the last encoder option given */
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        static const struct {
            const char *name;
            size_t offset;
        } flags[] = {
            {"--fullscreen", offsetof(play_args, player.fullscreen)},
            {"--untimed", offsetof(play_args, player.untimed)},
            {"--loop", offsetof(play_args, player.loop)},
            {"--autoexit", offsetof(play_args, player.autoexit)},
            {"-an", offsetof(play_args, player.no_audio)},
            {"--no-hud", offsetof(play_args, player.no_hud)},
            {"--live", offsetof(play_args, live)},
            {"--reconnect", offsetof(play_args, player.io.reconnect)},
            {"-y", offsetof(play_args, player.io.overwrite)},
            {"--no-window", offsetof(play_args, no_window)},
            {"--no-autorotate", offsetof(play_args, player.io.no_autorotate)},
            {"-noautorotate", offsetof(play_args, player.io.no_autorotate)},
        };
        int matched = 0;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (!strcmp(o, flags[k].name)) {
                *(int *)((char *)a + flags[k].offset) = 1;
                matched = 1;
            }
        if (matched)
            continue;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            exit(CLV_EXIT_OK);
        }
        if (o[0] != '-' || !o[1]) {
            if (p->io.input) {
                fprintf(stderr, "clvid play: one INPUT only ('%s' and '%s')\n", p->io.input, o);
                return -1;
            }
            p->io.input = o;
            if (format)
                p->io.input_format = format;
            format = NULL;
            last_output = 0;
            continue;
        }
        if (clv_cli_unknown(o, play_words, "play"))
            return -1;
        if (i + 1 >= argc) {
            fprintf(stderr, "clvid play: %s needs a value\n", o);
            return -1;
        }
        const char *v = argv[++i];
        char *end;
        int known, more;
        int for_next = (webcam || p->io.input) && i < last_i;
        if (!strcmp(o, "-i") && (more = more_input(a, v, format, webcam)) != 0) {
            if (more < 0)
                return -1;
            format = NULL;
            last_output = 0;
        } else if (for_next && (!strcmp(o, "-ss") || !strcmp(o, "-t"))) {
            int64_t us = clv_parse_time(v);
            if (us < 0) {
                fprintf(stderr,
                        "clvid play: %s %s: expected seconds or [hh:]mm:ss[.ms], from 0 to %d s\n",
                        o, v, CLV_TIME_MAX_SECONDS);
                return -1;
            }
            *(o[1] == 's' ? &a->next.start_us : &a->next.duration_us) = us;
        } else if (for_next && !strcmp(o, "-itsoffset")) {
            int neg = v[0] == '-';
            int64_t us = clv_parse_time(v + neg);
            if (us < 0) {
                fprintf(stderr,
                        "clvid play: -itsoffset %s: expected seconds, [-]5.2 or "
                        "[-][hh:]mm:ss[.ms], from -%d to %d s\n",
                        v, CLV_TIME_MAX_SECONDS, CLV_TIME_MAX_SECONDS);
                return -1;
            }
            a->next.offset_us = neg ? -us : us;
        } else if (!strcmp(o, "-t") || !strcmp(o, "-itsoffset")) {
            fprintf(stderr, "clvid play: %s %s: a further input's %s: give it before its -i\n", o,
                    v, o[1] == 't' ? "duration" : "offset");
            return -1;
        } else if (!strcmp(o, "-filter_complex") || !strcmp(o, "-lavfi") ||
                   !strcmp(o, "-filter_complex_script")) {
            if (add_graph(a, o, v, !strcmp(o, "-filter_complex_script")))
                return -1;
        } else if (!strcmp(o, "-map")) {
            if (map_option(a, v))
                return -1;
        } else if (!strcmp(o, "-i")) {
            p->io.input = v;
            if (format)
                p->io.input_format = format;
            format = NULL;
            last_output = 0;
        } else if (!strcmp(o, "-o")) {
            if (clv_cli_add_output(&a->outputs, v, &p->io, "play"))
                return -1;
            if (format) /* with several -o, refused by clv_cli_outputs_done */
                p->io.output_format = format;
            format = NULL;
            last_output = 1;
        } else if (!strcmp(o, "-f"))
            format = v;
        else if (!strcmp(o, "-vf")) {
            if (p->chain_count == CLV_PLAYER_CHAINS) {
                fprintf(stderr, "clvid play: at most %d -vf chains\n", CLV_PLAYER_CHAINS);
                return -1;
            }
            p->chains[p->chain_count++] = v;
        } else if (!strcmp(o, "--device"))
            p->io.device = v;
        else if (!strcmp(o, "--screenshot"))
            p->screenshot = v;
        else if (!strcmp(o, "--keys"))
            p->keys = v;
        else if (!strcmp(o, "--stats"))
            p->stats = v;
        else if (!strcmp(o, "--ipc"))
            p->io.ipc = v;
        else if ((known = clv_cli_output_option(o, v, &p->io)) != 0) {
            if (known < 0)
                return -1;
            encoder_word = o;
        } else if ((known = clv_cli_capture_option(o, v, &p->io)) != 0) {
            if (known < 0)
                return -1;
        } else if (!strcmp(o, "-ss")) {
            if ((p->io.start_us = clv_parse_time(v)) < 0) {
                fprintf(stderr,
                        "clvid play: -ss %s: expected seconds or [hh:]mm:ss, from 0 to %d s\n", v,
                        CLV_TIME_MAX_SECONDS);
                return -1;
            }
        } else if (!strcmp(o, "--size")) {
            if (sscanf(v, "%dx%d", &p->width, &p->height) != 2 || p->width < 16 || p->height < 16 ||
                p->width > 16384 || p->height > 16384) {
                fprintf(stderr,
                        "clvid play: --size %s: expected WIDTHxHEIGHT, each 16..16384 "
                        "(1280x720)\n",
                        v);
                return -1;
            }
        } else if (!strcmp(o, "--exit-after-frames")) {
            if ((p->exit_after = positive(o, v)) < 0)
                return -1;
        } else if (!strcmp(o, "--volume")) {
            double pct = strtod(v, &end);
            if (*end || end == v || pct < 0 || pct > 200) {
                fprintf(stderr, "clvid play: --volume %s: expected a percentage from 0 to 200\n",
                        v);
                return -1;
            }
            p->volume = pct / 100;
        } else {
            fprintf(stderr, "clvid play: unknown option %s\n", o);
            return -1;
        }
    }
    /* A -f after every file is the last one's: the output's after -o
     * ("-o /dev/video10 -f v4l2"), else the input's ("play x -f lavfi"). */
    if (format)
        *(last_output ? &p->io.output_format : &p->io.input_format) = format;
    /* A network input is live whatever is said (docs/live.md, Inputs). */
    p->io.live = a->live || clv_input_is_network(p->io.input);
    if (clv_cli_outputs_done(&a->outputs, &p->io, "play"))
        return -1;
    /* The encoder's options act on a recording only. */
    if (encoder_word && !p->io.output) {
        fprintf(stderr, "clvid play: %s is an output option: give -o OUTPUT to record with it\n",
                encoder_word);
        return -1;
    }
    clv_msg msg;
    if (clv_player_check_keys(p->keys, &msg)) {
        fprintf(stderr, "clvid play: %s\n", msg.text);
        return -1;
    }
    return 0;
}

/* Ctrl-C, SIGTERM or SIGHUP ends the run as q does (a recording is
 * finished); a recording into a FIFO whose reader left fails instead of
 * dying of SIGPIPE. What a signal handler touches has to be static. */
static volatile sig_atomic_t quit_signal;

static void on_signal(int sig)
{
    quit_signal = sig;
}

static int play(play_args *a)
{
    char cache[4096];
    clv_context_options engine;
    clv_context_options_init(&engine);
    clv_env_engine_settings(&engine, cache, sizeof cache);
    a->player.io.engine = &engine;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    clv_msg msg = {{0}};
    int err = clv_player_run(&a->player, &quit_signal, &msg);
    if (err)
        fprintf(stderr, "clvid: %s\n", msg.text[0] ? msg.text : clv_strerror(err));
    return clv_cli_exit_status(err);
}

/* --no-window: the live source recorded without a window, through the
 * pipeline (a live transcode with the first -vf chain). */
static int headless(play_args *a, const char *command)
{
    clv_transcode_options *io = &a->player.io;
    if (!io->live) {
        fprintf(stderr,
                "clvid %s: --no-window is for live sources (--live): to filter a file without "
                "a window use clvid transcode\n",
                command);
        return CLV_EXIT_USAGE;
    }
    if (!io->output) {
        fprintf(stderr, "clvid %s: --no-window records only: give -o OUTPUT\n", command);
        return CLV_EXIT_USAGE;
    }
    /* The window's own options have nothing to act on. */
    const char *window_option = a->player.screenshot ? "--screenshot"
                                : a->player.stats    ? "--stats"
                                : a->player.keys     ? "--keys"
                                                     : NULL;
    if (window_option) {
        fprintf(stderr, "clvid %s: %s is the window's; --no-window records without one\n", command,
                window_option);
        return CLV_EXIT_USAGE;
    }
    if (a->player.chain_count > 1 || a->player.graph_count > 1) {
        fprintf(stderr,
                "clvid %s: --no-window records one chain: %d -vf and %d -filter_complex given (w "
                "cycles them in the window)\n",
                command, a->player.chain_count, a->player.graph_count);
        return CLV_EXIT_USAGE;
    }
    io->chain = a->player.chain_count ? a->player.chains[0] : NULL;
    io->filter_complex = a->player.graph_count ? a->player.graphs[0] : NULL;
    io->filter_complex_file = a->player.graph_count ? a->player.graph_files[0] : NULL;
    io->max_frames = a->player.exit_after;
    return clv_cli_transcode(io, 0, NULL);
}

int clv_cmd_play(int argc, char **argv)
{
    play_args a;
    int status = CLV_EXIT_USAGE;
    if (parse_args(argc, argv, &a, 0))
        fprintf(stderr, "(clvid play --help lists the options)\n");
    else
        status = a.no_window ? headless(&a, "play") : play(&a);
    for (int i = 0; i < CLV_PLAYER_CHAINS; i++)
        free(a.scripts[i]);
    return status;
}

/* `clvid webcam [DEVICE]`: play -f v4l2 DEVICE (default /dev/video0) live;
 * with --no-window -o OUT it records headlessly: a live transcode. */
int clv_cmd_webcam(int argc, char **argv)
{
    play_args a;
    if (parse_args(argc, argv, &a, 1)) {
        fprintf(stderr, "(clvid webcam takes the options of clvid play --help)\n");
        for (int i = 0; i < CLV_PLAYER_CHAINS; i++)
            free(a.scripts[i]);
        return CLV_EXIT_USAGE;
    }
    clv_transcode_options *io = &a.player.io;
    if (!io->input_format) {
        io->input_format = "v4l2";
        a.player.prefer_mjpeg = 1;
    }
    if (!io->input)
        io->input = "/dev/video0";
    io->live = 1;
    int status = a.no_window ? headless(&a, "webcam") : play(&a);
    for (int i = 0; i < CLV_PLAYER_CHAINS; i++)
        free(a.scripts[i]);
    return status;
}
