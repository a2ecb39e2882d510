/* options.c - the options several subcommands share: capture (a camera, a
 * microphone) and the encoder's. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavutil/pixdesc.h>

int clv_cli_capture_option(const char *option, const char *value, clv_input_options *in,
                           const char **mic, const char **mic_format)
{
    clv_msg msg;
    if (!strcmp(option, "--input-size"))
        in->video_size = value;
    else if (!strcmp(option, "--input-fps"))
        in->framerate = value;
    else if (!strcmp(option, "--input-format")) {
        if (av_get_pix_fmt(value) == AV_PIX_FMT_NONE && !avcodec_find_decoder_by_name(value)) {
            fprintf(stderr,
                    "clvid: --input-format %s: not a pixel format or codec FFmpeg knows (cameras "
                    "offer e.g. mjpeg, yuyv422, nv12, h264; clvid sources lists each camera's)\n",
                    value);
            return -1;
        }
        in->input_format = value;
    } else if (!strcmp(option, "--audio"))
        *mic = value;
    else if (!strcmp(option, "--audio-format")) {
        if (clv_mic_format_check(value, &msg)) {
            fprintf(stderr, "clvid: %s\n", msg.text);
            return -1;
        }
        *mic_format = value;
    } else
        return 0;
    return 1;
}

/* 2M, 800k, 1500000: bit/s, or -1. */
static int64_t parse_rate(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v <= 0)
        return -1;
    if (*end == 'k' || *end == 'K')
        v *= 1e3, end++;
    else if (*end == 'M' || *end == 'm')
        v *= 1e6, end++;
    return *end ? -1 : (int64_t)v;
}

int clv_cli_output_option(const char *option, const char *value, clv_output_options *out)
{
    char *end;
    if (!strcmp(option, "-c:v") || !strcmp(option, "-vcodec"))
        out->codec = value;
    else if (!strcmp(option, "-preset"))
        out->preset = value;
    else if (!strcmp(option, "-pix_fmt"))
        out->pix_fmt = value;
    else if (!strcmp(option, "-crf")) {
        long n = strtol(value, &end, 10);
        if (*end || end == value || n < 0 || n > 51) {
            fprintf(stderr, "clvid: -crf %s: expected an integer from 0 to 51\n", value);
            return -1;
        }
        out->crf = (int)n;
    } else if (!strcmp(option, "-b:v")) {
        if ((out->bitrate = parse_rate(value)) < 0) {
            fprintf(stderr, "clvid: -b:v %s: expected a rate such as 2M or 800k\n", value);
            return -1;
        }
    } else
        return 0;
    return 1;
}
