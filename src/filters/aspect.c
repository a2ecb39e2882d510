/* aspect.c - setsar and setdar, as ffmpeg's (libavfilter/vf_aspect.c): the
 * frames' sample aspect ratio set from an expression of w, h, a, sar, dar,
 * hsub and vsub ("16/9", "sar*2") or a ratio ("16:9" when quoted), made a
 * fraction of terms up to max (av_d2q). setdar sets the display aspect:
 * the SAR becomes dar * h / w (0: 1/1). No pixel changes (clv_filter's
 * passes). */
#include "filters.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { ASPECT_RATIO, ASPECT_MAX, ASPECT_PARAM_COUNT };

/* ffmpeg's var_names of vf_aspect, in its order. */
static const char *const names[] = {"w", "h", "a", "sar", "dar", "hsub", "vsub", NULL};

/* "N:D" as av_parse_ratio's sscanf("%d:%d%c") takes it: two integers and
 * nothing after. */
static int ratio_text(const char *text, int *num, int *den)
{
    char c;
    return sscanf(text, "%d:%d%c", num, den, &c) == 2;
}

/* get_aspect_ratio: the expression, else av_parse_ratio's "N:D". */
static int eval_ratio(const clv_value *values, const clv_size *in, int *num, int *den, clv_msg *msg)
{
    const char *text = clv_value_text(&values[ASPECT_RATIO]);
    int max = (int)values[ASPECT_MAX].i;
    clv__expr *e = NULL;
    clv_msg why = {{0}};
    if (!clv__expr_parse(text, names, &e, &why)) {
        double sar = in->sar_num > 0 && in->sar_den > 0 ? (double)in->sar_num / in->sar_den : 1;
        double a = (double)in->width / in->height;
        const double v[] = {in->width, in->height, a, sar, a * sar, 1, 1}; /* RGBA: hsub 1 */
        double r = clv__expr_eval(e, v);
        clv__expr_free(e);
        clv__d2q(r, max, num, den);
    } else if (ratio_text(text, num, den)) {
        clv__reduce(num, den, *num, *den, max);
    } else {
        return clv__fail(msg, CLV_EPARSE, "'%s' is neither an expression nor a ratio N:D", text);
    }
    if (*num < 0 || *den <= 0)
        return clv__fail(msg, CLV_ERANGE,
                         "'%s' gives %d/%d, not an aspect ratio (0 or more, over more than 0)",
                         text, *num, *den);
    return 0;
}

static int check(const clv_value *values, clv_msg *msg)
{
    const char *text = clv_value_text(&values[ASPECT_RATIO]);
    int num, den;
    clv__expr *e = NULL;
    clv_msg why = {{0}};
    if (!clv__expr_parse(text, names, &e, &why)) {
        clv__expr_free(e);
        return 0;
    }
    if (ratio_text(text, &num, &den))
        return 0;
    return clv__fail(msg, CLV_EPARSE,
                     "'%s' is neither an expression of w, h, a, sar, dar, hsub and vsub nor a "
                     "ratio N:D (%s)",
                     text, why.text);
}

static int setsar_size(const clv_value *values, const clv_size *in, clv_size *out, clv_msg *msg)
{
    int num, den, err = eval_ratio(values, in, &num, &den, msg);
    if (err)
        return err;
    out->sar_num = num;
    out->sar_den = den;
    return 0;
}

static int setdar_size(const clv_value *values, const clv_size *in, clv_size *out, clv_msg *msg)
{
    int num, den, err = eval_ratio(values, in, &num, &den, msg);
    if (err)
        return err;
    if (num && den) {
        clv__reduce(&out->sar_num, &out->sar_den, (int64_t)num * in->height,
                    (int64_t)den * in->width, INT_MAX);
    } else {
        out->sar_num = out->sar_den = 1;
    }
    return 0;
}

#define ASPECT_PARAMS(word, what)                                                                  \
    {                                                                                              \
        {word,                                                                                     \
         CLV_PARAM_TEXT,                                                                           \
         "0",                                                                                      \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         what " aspect ratio: an expression of w, h, a, sar, dar, hsub, vsub ('16/9'), or N:D "    \
              "quoted",                                                                            \
         0},                                                                                       \
            {"max",                                                                                \
             CLV_PARAM_INT,                                                                        \
             "100",                                                                                \
             1,                                                                                    \
             2147483647,                                                                           \
             NULL,                                                                                 \
             "the largest numerator or denominator of the ratio's fraction",                       \
             1},                                                                                   \
    }

static const clv_param sar_params[ASPECT_PARAM_COUNT] = ASPECT_PARAMS("sar", "sample (pixel)");
static const clv_param dar_params[ASPECT_PARAM_COUNT] = ASPECT_PARAMS("dar", "display");
static const char *const sar_aliases[] = {"ratio", "sar", "r", "sar", NULL};
static const char *const dar_aliases[] = {"ratio", "dar", "r", "dar", NULL};

const clv_filter clv__filter_setsar = {
    .name = "setsar",
    .help = "set the sample (pixel) aspect ratio (ffmpeg's setsar; 0: unknown); no pixel changes",
    .params = sar_params,
    .param_count = ASPECT_PARAM_COUNT,
    .aliases = sar_aliases,
    .check = check,
    .deep = 1,
    .passes = 1,
    .output_size = setsar_size,
    .reference = clv__pass_reference,
};

const clv_filter clv__filter_setdar = {
    .name = "setdar",
    .help = "set the display aspect ratio through the SAR (ffmpeg's setdar; 0: square "
            "pixels); no pixel changes",
    .params = dar_params,
    .param_count = ASPECT_PARAM_COUNT,
    .aliases = dar_aliases,
    .check = check,
    .deep = 1,
    .passes = 1,
    .output_size = setdar_size,
    .reference = clv__pass_reference,
};
