/* options.c - the options several subcommands share: capture (a camera, a
 * microphone) and the encoder's. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int clv_cli_capture_option(const char *option, const char *value, clv_transcode_options *o)
{
    clv_msg msg;
    if (!strcmp(option, "--input-size"))
        o->capture_size = value;
    else if (!strcmp(option, "--input-fps"))
        o->capture_rate = value;
    else if (!strcmp(option, "--input-format") || !strcmp(option, "--audio-format")) {
        int mic = option[2] == 'a';
        if (clv_capture_format_check(mic ? NULL : value, mic ? value : NULL, &msg)) {
            fprintf(stderr, "clvid: %s\n", msg.text);
            return -1;
        }
        *(mic ? &o->mic_format : &o->capture_format) = value;
    } else if (!strcmp(option, "--audio"))
        o->mic = value;
    else
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

int clv_cli_output_option(const char *option, const char *value, clv_transcode_options *out)
{
    char *end;
    if (!strcmp(option, "-c:v") || !strcmp(option, "-vcodec"))
        out->codec = value;
    else if (!strcmp(option, "-preset"))
        out->preset = value;
    else if (!strcmp(option, "-pix_fmt"))
        out->pix_fmt = value;
    else if (!strcmp(option, "-c:a") || !strcmp(option, "-acodec"))
        out->audio_codec = value;
    else if (!strcmp(option, "-aspect")) {
        /* 16:9, 4:3, 1.7778 */
        int n = 0, d = 0;
        double v = 0;
        char tail;
        if (sscanf(value, "%d:%d%c", &n, &d, &tail) == 2 && n > 0 && d > 0) {
            out->aspect_num = n;
            out->aspect_den = d;
        } else if (sscanf(value, "%lf%c", &v, &tail) == 1 && v > 0 && v < 100) {
            out->aspect_num = (int)(v * 10000 + 0.5);
            out->aspect_den = 10000;
        } else {
            fprintf(stderr, "clvid: -aspect %s: expected W:H (16:9) or a number (1.7778)\n", value);
            return -1;
        }
    } else if (!strcmp(option, "-crf")) {
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

/* One value of the environment, or NULL when unset or empty. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

void clv_cli_engine_settings(clv_context_options *e, char *dir, size_t size)
{
    if (!e->device)
        e->device = env("CLVID_DEVICE");
    const char *shape = env("CLVID_SHAPE");
    if (!e->shape && shape)
        e->shape = !strcmp(shape, "row") ? 1 : !strcmp(shape, "gpu") ? 2 : 0;
    const char *no_cache = env("CLVID_NO_CACHE");
    if (no_cache && strcmp(no_cache, "0"))
        e->no_cache = 1;
    if (!e->cache_dir)
        e->cache_dir = env("CLVID_CACHE_DIR");
    if (!e->cache_dir) {
        /* The XDG place, written into the caller's buffer. */
        const char *xdg = env("XDG_CACHE_HOME"), *home = env("HOME");
        if (xdg || home) {
            snprintf(dir, size, "%s%s", xdg ? xdg : home, xdg ? "/clvid" : "/.cache/clvid");
            e->cache_dir = dir;
        }
    }
    if (!e->kernel_dir)
        e->kernel_dir = env("CLVID_KERNEL_DIR");
    const char *log = env("CLVID_LOG");
    if (log)
        e->log_level = !strcasecmp(log, "error")   ? CLV_LOG_ERROR
                       : !strcasecmp(log, "info")  ? CLV_LOG_INFO
                       : !strcasecmp(log, "debug") ? CLV_LOG_DEBUG
                                                   : CLV_LOG_WARN;
}

int clv_cli_exit_status(int err)
{
    switch (err) {
    case 0:
        return CLV_EXIT_OK;
    case CLV_EPARSE:
    case CLV_ERANGE:
    case CLV_EOPTION:
    case CLV_ENODEVICE:
        return CLV_EXIT_USAGE;
    default:
        return CLV_EXIT_RUNTIME;
    }
}

/* Edit distance, for suggestions: words are short. */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40)
        return 99;
    int row[41];
    for (size_t j = 0; j <= m; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int prev = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int cur = row[j];
            int sub = prev + (a[i - 1] != b[j - 1]);
            int best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            prev = cur;
        }
    }
    return row[m];
}

const char *clv_cli_closest(const char *word, const char *const *known)
{
    const char *best = NULL;
    int best_d = 99;
    for (; *known; known++) {
        int d = distance(word, *known);
        if (d < best_d) {
            best_d = d;
            best = *known;
        }
    }
    /* Near enough to be a slip: two edits, or three in a long word. */
    return best && (best_d <= 2 || (best_d <= 3 && strlen(word) > 8)) ? best : NULL;
}

int clv_cli_unknown(const char *option, const char *const *known, const char *command)
{
    for (const char *const *k = known; *k; k++)
        if (!strcmp(option, *k))
            return 0;
    const char *near = clv_cli_closest(option, known);
    fprintf(stderr, "clvid %s: unknown option %s%s%s%s\n", command, option,
            near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    return 1;
}
