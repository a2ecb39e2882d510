/* options.c - the options several subcommands share: capture (a camera, a
 * microphone) and the encoder's. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The options of the pipeline's own parser (clv_transcode_options_set). */
static int shared(const char *option, const char *value, clv_transcode_options *o,
                  const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(option, *names)) {
            clv_msg msg;
            if (clv_transcode_options_set(o, option, value, &msg)) {
                fprintf(stderr, "clvid: %s\n", msg.text);
                return -1;
            }
            return 1;
        }
    return 0;
}

/* The shared options, each group once: parsing and "did you mean" read them. */
static const char *const capture_words[] = {"--input-size",
                                            "--input-fps",
                                            "--input-format",
                                            "--audio",
                                            "--audio-format",
                                            "-rtsp_transport",
                                            "-rw_timeout",
                                            "--reconnect-max",
                                            "-hwaccel",
                                            "-hwaccel_device",
                                            NULL};
static const char *const encoder_words[] = {"-c:v", "-vcodec", "-preset", "-pix_fmt",
                                            "-c:a", "-acodec", "-aspect", "-crf",
                                            "-b:v", "-g",      "-r",      NULL};

int clv_cli_capture_option(const char *option, const char *value, clv_transcode_options *o)
{
    return shared(option, value, o, capture_words);
}

int clv_cli_output_option(const char *option, const char *value, clv_transcode_options *o)
{
    return shared(option, value, o, encoder_words);
}

/* The longest -filter_complex_script, bytes. */
#define SCRIPT_MAX ((1 << 16) - 1)

int clv_cli_read_script(const char *command, const char *path, char **text)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "clvid %s: -filter_complex_script %s: %s\n", command, path,
                strerror(errno));
        return -1;
    }
    if (!(*text = malloc(SCRIPT_MAX + 2))) {
        fclose(f);
        fprintf(stderr, "clvid %s: -filter_complex_script %s: out of memory\n", command, path);
        return -1;
    }
    /* One byte past the limit is read to tell a file at the limit from
     * one over it (feof is not set until a read meets the end). */
    size_t n = fread(*text, 1, SCRIPT_MAX + 1, f);
    int failed = ferror(f), why = errno; /* a directory: EISDIR */
    fclose(f);
    if (failed) {
        fprintf(stderr, "clvid %s: -filter_complex_script %s: cannot read it: %s\n", command, path,
                strerror(why));
        return -1;
    }
    if (n > SCRIPT_MAX) {
        fprintf(stderr,
                "clvid %s: -filter_complex_script %s: over %d bytes, the most a script may have\n",
                command, path, SCRIPT_MAX);
        return -1;
    }
    (*text)[n] = 0;
    return 0;
}

/* Appends path to spec (size bytes) as one output of ffmpeg's tee syntax:
 * backslashes before the characters av_get_token reads (quotes,
 * backslashes, '|', white space), and "[]" (no options) before a path that
 * starts with '['. 0, or -1 when it does not fit. */
static int tee_append(char *spec, size_t size, const char *path)
{
    size_t n = strlen(spec);
    if (n && n + 1 < size)
        spec[n++] = '|';
    if (path[0] == '[' && n + 2 < size) {
        spec[n++] = '[';
        spec[n++] = ']';
    }
    for (const char *c = path; *c && n + 2 < size; c++) {
        if (strchr("\\'| \t\r\n", *c))
            spec[n++] = '\\';
        spec[n++] = *c;
    }
    spec[n] = 0;
    return n + 2 < size ? 0 : -1;
}

int clv_cli_add_output(clv_cli_outputs *outputs, const char *path, clv_transcode_options *o,
                       const char *command)
{
    if (!outputs->count++) {
        outputs->spec[0] = 0;
        o->output = path;
        return tee_append(outputs->spec, sizeof outputs->spec, path);
    }
    if (tee_append(outputs->spec, sizeof outputs->spec, path)) {
        fprintf(stderr, "clvid %s: too many or too long -o outputs\n", command);
        return -1;
    }
    o->output = outputs->spec;
    return 0;
}

int clv_cli_outputs_done(const clv_cli_outputs *outputs, clv_transcode_options *o,
                         const char *command)
{
    if (outputs->count < 2)
        return 0;
    if (o->output_format) {
        fprintf(stderr,
                "clvid %s: -f %s with several -o: name each output's format in the tee form "
                "instead (-f tee -o 'a.mkv|[f=mpegts]udp://...')\n",
                command, o->output_format);
        return -1;
    }
    o->output_format = "tee";
    return 0;
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
    case CLV_EKERNEL: /* the user's kernel file does not build */
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

/* The nearest of several NULL-terminated lists, and its distance. */
static const char *nearest(const char *word, const char *const *const *lists, int *best_d)
{
    const char *best = NULL;
    *best_d = 99;
    for (; *lists; lists++)
        for (const char *const *k = *lists; *k; k++) {
            int d = distance(word, *k);
            if (d < *best_d) {
                *best_d = d;
                best = *k;
            }
        }
    /* Near enough to be a slip: two edits, or three in a long word. */
    return best && (*best_d <= 2 || (*best_d <= 3 && strlen(word) > 8)) ? best : NULL;
}

const char *clv_cli_closest(const char *word, const char *const *known)
{
    const char *const *lists[] = {known, NULL};
    int d;
    return nearest(word, lists, &d);
}

int clv_cli_unknown(const char *option, const char *const *known, const char *command)
{
    const char *const *lists[] = {known, capture_words, encoder_words, NULL};
    int d;
    for (int l = 0; lists[l]; l++)
        for (const char *const *k = lists[l]; *k; k++)
            if (!strcmp(option, *k))
                return 0;
    const char *near = nearest(option, lists, &d);
    fprintf(stderr, "clvid %s: unknown option %s%s%s%s\n", command, option,
            near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    return 1;
}
