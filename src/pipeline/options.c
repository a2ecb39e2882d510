/* options.c - transcode options by name, as the command line writes them,
 * for the clvid command and for bindings that cannot see the struct's
 * layout: one parser for times, rates, aspect ratios and codecs' words. */
#include "clvid/pipeline.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/parseutils.h>

#include "../io/io.h"
#include "clvid/graph.h"

int64_t clv_parse_time(const char *text)
{
    double seconds = 0;
    const char *p = text;
    for (int part = 0; part < 3; part++) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || v < 0)
            return -1;
        seconds = seconds * 60 + v; /* hh:mm:ss is ((hh * 60) + mm) * 60 + ss */
        if (*end != ':')            /* nan and inf fail the range too */
            return *end || !(seconds <= CLV_TIME_MAX_SECONDS) ? -1 : (int64_t)(seconds * 1e6 + 0.5);
        p = end + 1;
    }
    return -1; /* more than three parts */
}

clv_transcode_options *clv_transcode_options_create(void)
{
    clv_transcode_options *o = malloc(sizeof *o);
    if (o)
        clv_transcode_options_init(o);
    return o;
}

void clv_transcode_options_destroy(clv_transcode_options *o)
{
    free(o);
}

/* The largest capture size and rate asked of a camera: clvid's largest
 * frame side, and beyond any camera's rate. */
#define CAPTURE_SIDE_MAX 16384
#define CAPTURE_RATE_MAX 1000
#define OUTPUT_RATE_MAX 1000 /* -r */

/* The highest -b:v, bit/s: beyond any encoder's, and within the int that
 * x264 keeps in kbit/s. */
#define RATE_MAX 1e11

/* 2M, 800k, 1500000: bit/s from 1 to RATE_MAX, or -1. */
static int64_t parse_rate(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return -1;
    if (*end == 'k' || *end == 'K')
        v *= 1e3, end++;
    else if (*end == 'M' || *end == 'm')
        v *= 1e6, end++;
    return *end || !(v >= 1 && v <= RATE_MAX) ? -1 : (int64_t)v; /* nan fails too */
}

static int flag(const char *v)
{
    return !v || !*v || !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes");
}

int clv_transcode_options_set_inputs(clv_transcode_options *o, const clv_transcode_input *inputs,
                                     int count, clv_msg *msg)
{
    if (count < 0 || count > CLV_GRAPH_INPUTS - 1 || (count > 0 && !inputs))
        return clv_io_fail(msg, CLV_EOPTION, "%d inputs after the first: expected 0 to %d", count,
                           CLV_GRAPH_INPUTS - 1);
    o->more_inputs = count ? inputs : NULL;
    o->more_input_count = count;
    return 0;
}

int clv_transcode_options_set(clv_transcode_options *o, const char *key, const char *v,
                              clv_msg *msg)
{
    static const struct {
        const char *key, *alias;
        size_t offset;
    } strings[] = {
        {"i", "input", offsetof(clv_transcode_options, input)},
        {"o", "output", offsetof(clv_transcode_options, output)},
        {"vf", "chain", offsetof(clv_transcode_options, chain)},
        {"input_format", "format", offsetof(clv_transcode_options, input_format)},
        {"output_format", NULL, offsetof(clv_transcode_options, output_format)},
        {"c:v", "vcodec", offsetof(clv_transcode_options, codec)},
        {"c:a", "acodec", offsetof(clv_transcode_options, audio_codec)},
        {"preset", NULL, offsetof(clv_transcode_options, preset)},
        {"pix_fmt", NULL, offsetof(clv_transcode_options, pix_fmt)},
        {"device", NULL, offsetof(clv_transcode_options, device)},
        {"audio", "mic", offsetof(clv_transcode_options, mic)},
        {"ipc", NULL, offsetof(clv_transcode_options, ipc)},
        {"hwaccel_device", NULL, offsetof(clv_transcode_options, hwaccel_device)},
        {"filter_complex", "lavfi", offsetof(clv_transcode_options, filter_complex)},
        {"map", NULL, offsetof(clv_transcode_options, map)},
    };
    static const struct {
        const char *key, *alias;
        size_t offset;
    } flags[] = {
        {"y", "overwrite", offsetof(clv_transcode_options, overwrite)},
        {"an", "no_audio", offsetof(clv_transcode_options, no_audio)},
        {"sn", "no_subtitles", offsetof(clv_transcode_options, no_subtitles)},
        {"live", NULL, offsetof(clv_transcode_options, live)},
        {"re", "realtime", offsetof(clv_transcode_options, realtime)},
        {"no-autorotate", "no_autorotate", offsetof(clv_transcode_options, no_autorotate)},
        {"q", "quiet", offsetof(clv_transcode_options, quiet)},
        {"reconnect", NULL, offsetof(clv_transcode_options, reconnect)},
    };
    key += key[0] == '-';
    key += key[0] == '-';
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        if (!strcmp(key, strings[i].key) || (strings[i].alias && !strcmp(key, strings[i].alias))) {
            *(const char **)((char *)o + strings[i].offset) = v && *v ? v : NULL;
            return 0;
        }
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (!strcmp(key, flags[i].key) || (flags[i].alias && !strcmp(key, flags[i].alias))) {
            *(int *)((char *)o + flags[i].offset) = flag(v);
            return 0;
        }
    if (!v)
        v = "";
    char *end;
    if (!strcmp(key, "input-format") || !strcmp(key, "audio-format")) {
        int mic = key[0] == 'a';
        int err = clv_capture_format_check(mic ? NULL : v, mic ? v : NULL, msg);
        if (!err)
            *(mic ? &o->mic_format : &o->capture_format) = v;
        return err;
    }
    /* Checked here, though only a camera reads them: a file input would
     * ignore a slip silently, and a camera's driver would take a bad word
     * for its default. */
    if (!strcmp(key, "input-size") || !strcmp(key, "video_size")) {
        int w = 0, h = 0;
        if (*v &&
            (av_parse_video_size(&w, &h, v) < 0 || w > CAPTURE_SIDE_MAX || h > CAPTURE_SIDE_MAX))
            return clv_io_fail(msg, CLV_EOPTION,
                               "--input-size %.100s: expected WIDTHxHEIGHT, each from 1 to %d "
                               "(1280x720), or a size name such as hd720 or vga",
                               v, CAPTURE_SIDE_MAX);
        o->capture_size = *v ? v : NULL;
        return 0;
    }
    if (!strcmp(key, "input-fps") || !strcmp(key, "framerate")) {
        AVRational rate;
        if (*v && (av_parse_video_rate(&rate, v) < 0 || av_q2d(rate) > CAPTURE_RATE_MAX))
            return clv_io_fail(msg, CLV_EOPTION,
                               "--input-fps %.100s: expected frames per second, more than 0 and "
                               "at most %d (30, 29.97, 30000/1001, ntsc)",
                               v, CAPTURE_RATE_MAX);
        o->capture_rate = *v ? v : NULL;
        return 0;
    }
    if (!strcmp(key, "r")) {
        AVRational rate;
        if (av_parse_video_rate(&rate, v) < 0 || rate.num <= 0 || rate.den <= 0 ||
            av_q2d(rate) > OUTPUT_RATE_MAX)
            return clv_io_fail(msg, CLV_EOPTION,
                               "-r %.100s: expected the output's frames per second, more than 0 "
                               "and at most %d (30, 29.97, 30000/1001, ntsc, pal, film)",
                               v, OUTPUT_RATE_MAX);
        o->frame_rate = v;
        return 0;
    }
    if (!strcmp(key, "crf")) {
        long n = strtol(v, &end, 10);
        if (*end || end == v || n < 0 || n > 51)
            return clv_io_fail(msg, CLV_EOPTION, "-crf %.100s: expected an integer from 0 to 51",
                               v);
        o->crf = (int)n;
        return 0;
    }
    if (!strcmp(key, "g") || !strcmp(key, "gop") || !strcmp(key, "hls_list_size")) {
        int gop = key[0] == 'g';
        errno = 0;
        long n = strtol(v, &end, 10);
        if (*end || end == v || errno || n < (gop ? 1 : 0) || n > 100000)
            return clv_io_fail(msg, CLV_EOPTION,
                               "-%s %.100s: expected an integer from %d to 100000",
                               gop ? "g" : "hls_list_size", v, gop ? 1 : 0);
        *(gop ? &o->gop : &o->hls_list_size) = (int)n;
        return 0;
    }
    if (!strcmp(key, "hls_time")) {
        double x = strtod(v, &end);
        if (*end || end == v || !(x > 0 && x <= 3600))
            return clv_io_fail(msg, CLV_EOPTION,
                               "-hls_time %.100s: expected seconds, more than 0 (2, 0.5, 6)", v);
        o->hls_time = x;
        return 0;
    }
    if (!strcmp(key, "rtsp_transport")) {
        static const char *const ways[] = {"tcp", "udp", "udp_multicast", "http", "https", NULL};
        for (int i = 0; ways[i]; i++)
            if (!strcmp(v, ways[i])) {
                o->rtsp_transport = ways[i];
                return 0;
            }
        return clv_io_fail(msg, CLV_EOPTION,
                           "-rtsp_transport %.100s: expected tcp, udp, udp_multicast, http or "
                           "https",
                           v);
    }
    if (!strcmp(key, "hwaccel")) {
        int err = clv_hwaccel_check(v, msg);
        if (!err)
            o->hwaccel = *v ? v : NULL;
        return err;
    }
    if (!strcmp(key, "reconnect-max") || !strcmp(key, "reconnect_max")) {
        double x = strtod(v, &end);
        if (*end || end == v || !(x > 0 && x <= 1e7))
            return clv_io_fail(msg, CLV_EOPTION,
                               "--reconnect-max %.100s: expected seconds, more than 0 (30, 2.5)",
                               v);
        o->reconnect_max = x;
        o->reconnect = 1;
        return 0;
    }
    if (!strcmp(key, "rw_timeout")) {
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (*end || end == v || errno || n < 1000 || n > 3600000000LL)
            return clv_io_fail(msg, CLV_EOPTION,
                               "-rw_timeout %.100s: expected microseconds, from 1000 to "
                               "3600000000 (5000000: 5 s)",
                               v);
        o->rw_timeout_us = n;
        return 0;
    }
    if (!strcmp(key, "b:v") || !strcmp(key, "bitrate")) {
        if ((o->bitrate = parse_rate(v)) < 0)
            return clv_io_fail(msg, CLV_EOPTION,
                               "-b:v %.100s: expected a rate such as 2M or 800k, from 1 bit/s to "
                               "%.0fM",
                               v, RATE_MAX / 1e6);
        return 0;
    }
    if (!strcmp(key, "ss") || !strcmp(key, "t") || !strcmp(key, "start") ||
        !strcmp(key, "duration")) {
        int start = key[0] == 's';
        int64_t us = clv_parse_time(v);
        if (us < 0 || (!start && us == 0))
            return clv_io_fail(
                msg, CLV_EOPTION, "-%s %.100s: expected seconds or [hh:]mm:ss, %s %d s",
                start ? "ss" : "t", v, start ? "from 0 to" : "more than 0 and at most",
                CLV_TIME_MAX_SECONDS);
        *(start ? &o->start_us : &o->duration_us) = us;
        return 0;
    }
    if (!strcmp(key, "frame-index") || !strcmp(key, "first_frame_index")) {
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (*end || end == v || n < 0 || errno)
            return clv_io_fail(msg, CLV_EOPTION,
                               "--frame-index %.100s: expected an integer from 0 to %lld", v,
                               LLONG_MAX);
        o->first_frame_index = (uint64_t)n;
        return 0;
    }
    if (!strcmp(key, "lead-frames") || !strcmp(key, "lead_frames") || !strcmp(key, "keep-frames") ||
        !strcmp(key, "keep_frames")) {
        int lead = key[0] == 'l';
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (*end || end == v || n < 0 || errno)
            return clv_io_fail(msg, CLV_EOPTION,
                               "--%s-frames %.100s: expected an integer from 0 to %lld",
                               lead ? "lead" : "keep", v, LLONG_MAX);
        *(lead ? &o->lead_frames : &o->keep_frames) = n;
        return 0;
    }
    if (!strcmp(key, "frames") || !strcmp(key, "frames:v") || !strcmp(key, "vframes")) {
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (*end || end == v || n < 1 || errno)
            return clv_io_fail(msg, CLV_EOPTION,
                               "--frames %.100s: expected an integer from 1 to %lld", v, LLONG_MAX);
        o->max_frames = n;
        return 0;
    }
    if (!strcmp(key, "aspect")) {
        int n = 0, d = 0;
        double x = 0;
        char tail;
        if (sscanf(v, "%d:%d%c", &n, &d, &tail) == 2 && n > 0 && d > 0) {
            o->aspect_num = n;
            o->aspect_den = d;
        } else if (sscanf(v, "%lf%c", &x, &tail) == 1 && x > 0 && x < 100) {
            o->aspect_num = (int)(x * 10000 + 0.5);
            o->aspect_den = 10000;
        } else {
            return clv_io_fail(msg, CLV_EOPTION,
                               "-aspect %.100s: expected W:H (16:9) or a number (1.7778)", v);
        }
        return 0;
    }
    return clv_io_fail(msg, CLV_EOPTION, "unknown transcode option '%.100s'", key);
}
