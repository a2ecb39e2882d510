/* tee.c - several outputs of one encoding, written in ffmpeg's tee syntax
 * ("-f tee -o 'rec.mkv|[f=flv:onfail=ignore]rtmp://...'"): the outputs are
 * split at '|' and each one's options read from "[KEY=VALUE:...]" before
 * its path, with the same libavutil calls (and so the same quoting and
 * escaping) as FFmpeg's tee muxer (libavformat/tee.c, tee_common.c). */
#include "io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/avstring.h>
#include <libavutil/opt.h>

void clv_tee_free(clv_tee_output *outputs, int count)
{
    for (int i = 0; outputs && i < count; i++)
        av_dict_free(&outputs[i].options);
    free(outputs);
}

/* The muxer output t will use, as the encoder chooses it (f=, the
 * protocol's, the extension's), or NULL. */
static const AVOutputFormat *muxer_of(const clv_tee_output *t)
{
    const char *name = t->format[0]                     ? t->format
                       : clv_output_is_network(t->path) ? clv_output_network_format(t->path)
                                                        : NULL;
    if (name && !t->format[0] && !strcmp(name, "rtp_mpegts"))
        name = "mpegts"; /* put in RTP by clvid (rtp_ts.c), as the encoder does */
    if (name)
        return av_guess_format(name, NULL, NULL);
    return clv_output_is_network(t->path) || !strcmp(t->path, "-")
               ? NULL
               : av_guess_format(NULL, t->path, NULL);
}

/* 1 when the muxer (or any muxer: avformat's own options) has an option
 * called key. */
static int muxer_option(const AVOutputFormat *ofmt, const char *key)
{
    const AVClass *generic = avformat_get_class(), *own = ofmt->priv_class;
    return av_opt_find(&generic, key, NULL, 0, AV_OPT_SEARCH_FAKE_OBJ) ||
           (own && av_opt_find(&own, key, NULL, 0, AV_OPT_SEARCH_FAKE_OBJ));
}

/* Reads "[KEY=VALUE:...]" at the start of token (an output of the spec,
 * unquoted) into t, and the path after it. n counts from 1, for messages. */
static int parse_one(const char *token, int n, clv_tee_output *t, clv_msg *msg)
{
    const char *p = token;
    if (*p == '[') {
        p++;
        while (*p != ']') {
            char *key = NULL, *value = NULL;
            if (av_opt_get_key_value(&p, "=", ":]", 0, &key, &value) < 0 || !*p) {
                av_free(key);
                av_free(value);
                return clv_io_fail(msg, CLV_EOPTION,
                                   "-f tee: output %d ('%.300s'): expected [KEY=VALUE:...] "
                                   "before its path%s%.100s%s",
                                   n, token, *p ? ", near '" : " (no closing ']')", p,
                                   *p ? "'" : "");
            }
            int err = 0;
            if (!strcmp(key, "f")) {
                snprintf(t->format, sizeof t->format, "%s", value);
            } else if (!strcmp(key, "onfail")) {
                if (!strcmp(value, "abort") || !strcmp(value, "ignore"))
                    t->ignore_failure = !strcmp(value, "ignore");
                else
                    err = clv_io_fail(msg, CLV_EOPTION,
                                      "-f tee: output %d: onfail=%.100s: expected abort or ignore",
                                      n, value);
            } else if (!strcmp(key, "select")) {
                snprintf(t->select, sizeof t->select, "%s", value);
            } else if (!strcmp(key, "bsfs") || !strncmp(key, "bsfs/", 5) ||
                       !strcmp(key, "use_fifo") || !strcmp(key, "fifo_options")) {
                err = clv_io_fail(msg, CLV_EOPTION,
                                  "-f tee: output %d: %.100s: ffmpeg's tee option is not "
                                  "supported by clvid (f, onfail, select and the muxer's own "
                                  "options are)",
                                  n, key);
            } else {
                av_dict_set(&t->options, key, value, 0);
            }
            av_free(key);
            av_free(value);
            if (err)
                return err;
            if (*p == ':')
                p++;
        }
        p++;
    }
    if (!*p)
        return clv_io_fail(msg, CLV_EOPTION, "-f tee: output %d ('%.300s') has no path", n, token);
    if (snprintf(t->path, sizeof t->path, "%s", p) >= (int)sizeof t->path)
        return clv_io_fail(msg, CLV_EOPTION, "-f tee: output %d: the path is too long", n);
    /* A virtual camera takes raw frames and no sound (libavdevice's v4l2
     * muxer, registered only when a run uses it): not the one encoding
     * that several outputs share. */
    if (t->format[0] && av_match_name(t->format, "v4l2,video4linux2"))
        return clv_io_fail(msg, CLV_EOPTION,
                           "-f tee: '%.300s': a virtual camera (f=%.30s) cannot be one of several "
                           "outputs: it takes raw frames without sound, not the encoding they "
                           "share; write it in a run of its own (-f v4l2 -o %.300s)",
                           t->path, t->format, t->path);
    const AVOutputFormat *ofmt = muxer_of(t);
    if (t->format[0] && !ofmt)
        return clv_io_fail(msg, CLV_EOPTION,
                           "-f tee: output %d ('%.300s'): f=%.60s: no such output format in this "
                           "FFmpeg",
                           n, t->path, t->format);
    if (!ofmt)
        return clv_io_fail(msg, CLV_EOPTION,
                           "-f tee: '%.300s': cannot tell its format; name it with [f=FORMAT] "
                           "before it",
                           t->path);
    if (!strcmp(ofmt->name, "tee") || !strcmp(ofmt->name, "image2") ||
        !strcmp(ofmt->name, "image2pipe"))
        return clv_io_fail(msg, CLV_EOPTION,
                           "-f tee: '%.300s': %s output cannot be one of several outputs%s",
                           t->path, !strcmp(ofmt->name, "tee") ? "a tee" : "an image",
                           !strcmp(ofmt->name, "tee") ? "" : "; write it in a run of its own");
    const AVDictionaryEntry *e = NULL;
    while ((e = av_dict_get(t->options, "", e, AV_DICT_IGNORE_SUFFIX)))
        if (!muxer_option(ofmt, e->key))
            return clv_io_fail(msg, CLV_EOPTION,
                               "-f tee: output %d ('%.300s'): unknown option '%.100s' (tee's are "
                               "f, onfail and select; else it must be an option of the %s muxer)",
                               n, t->path, e->key, ofmt->name);
    return 0;
}

int clv_tee_parse(const char *spec, clv_tee_output **out, int *count, clv_msg *msg)
{
    *out = NULL;
    *count = 0;
    clv_tee_output *list = NULL;
    int n = 0, err = 0;
    const char *p = spec ? spec : "";
    while (!err) {
        char *token = av_get_token(&p, "|");
        if (!token) {
            err = clv_io_fail(msg, CLV_ENOMEM, "out of memory");
            break;
        }
        if (n == CLV_TEE_MAX) {
            err = clv_io_fail(msg, CLV_EOPTION, "-f tee: more than %d outputs", CLV_TEE_MAX);
        } else if (!token[0]) {
            err = clv_io_fail(msg, CLV_EOPTION,
                              "-f tee: output %d is empty (outputs are separated by one '|': "
                              "'a.mkv|[f=mpegts]udp://...')",
                              n + 1);
        } else {
            clv_tee_output *grown = realloc(list, (size_t)(n + 1) * sizeof *list);
            if (!grown) {
                err = clv_io_fail(msg, CLV_ENOMEM, "out of memory");
            } else {
                list = grown;
                memset(&list[n], 0, sizeof list[n]);
                err = parse_one(token, n + 1, &list[n], msg);
                n++;
            }
        }
        av_free(token);
        if (*p != '|')
            break;
        p++;
    }
    for (int i = 0; !err && i < n; i++)
        for (int j = 0; !err && j < i; j++)
            if (!strcmp(list[i].path, list[j].path) && !clv_output_is_network(list[i].path))
                err = clv_io_fail(msg, CLV_EOPTION, "'%.900s' is named twice as an output",
                                  list[i].path);
            else if (!clv_output_is_network(list[i].path) && strcmp(list[i].path, "-") &&
                     clv_output_same_file(list[i].path, list[j].path))
                err = clv_io_fail(msg, CLV_EOPTION,
                                  "'%.500s' and '%.500s' are one file: an "
                                  "output is named twice",
                                  list[j].path, list[i].path);
    if (err) {
        clv_tee_free(list, n);
        return err;
    }
    *out = list;
    *count = n;
    return 0;
}

int clv_output_is_tee(const char *format)
{
    return format && !strcmp(format, "tee");
}
