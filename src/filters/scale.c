/* scale.c - ffmpeg's scale filter (vf_scale): the output size from ffmpeg's
 * expressions and options, the pixels resampled exactly as swscale's 8-bit
 * per-plane path computes them (docs/notes/swscale.md), each RGBA channel a
 * plane of its own (cl/scale.cl); at 16 bits, as its 16-bit planes' path
 * does, with the same taps and exact sums (see scale_bits). */
#include "filters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a*x + b*y + c*z modulo 2^64, as swscale's int64 arithmetic wraps (no
 * undefined signed overflow in the reference). */
static int64_t wrap_sum3(int64_t a, int64_t x, int64_t b, int64_t y, int64_t c, int64_t z)
{
    return (int64_t)((uint64_t)a * (uint64_t)x + (uint64_t)b * (uint64_t)y +
                     (uint64_t)c * (uint64_t)z);
}

/* The parameters, in the order of the table below. */
enum {
    SCALE_W,
    SCALE_H,
    SCALE_FLAGS,
    SCALE_PARAM0,
    SCALE_PARAM1,
    SCALE_FORCE_OAR,
    SCALE_DIVISIBLE,
    SCALE_SIZE,
    SCALE_PARAM_COUNT
};

/* flags' words, bit k for the k-th (the order of the choices below). */
enum {
    F_FAST_BILINEAR = 1 << 0,
    F_BILINEAR = 1 << 1,
    F_BICUBIC = 1 << 2,
    F_X = 1 << 3, /* experimental */
    F_POINT = 1 << 4,
    F_AREA = 1 << 5,
    F_BICUBLIN = 1 << 6,
    F_GAUSS = 1 << 7,
    F_SINC = 1 << 8,
    F_LANCZOS = 1 << 9,
    F_SPLINE = 1 << 10,
    F_ACCURATE_RND = 1 << 11,
    F_FULL_CHROMA_INT = 1 << 12,
    F_FULL_CHROMA_INP = 1 << 13,
    F_BITEXACT = 1 << 14,
    F_ALGORITHMS = (1 << 11) - 1,
};

/* swscale's SWS_PARAM_DEFAULT: param0/param1 left to the algorithm. */
#define PARAM_DEFAULT 123456.0

/* M_PI (POSIX, not C11), the value swscale uses. */
#define SCALE_PI 3.14159265358979323846

/* The expressions' variables, in vf_scale's order (values[] follows it). */
#define SCALE_VARS "in_w|iw|in_h|ih|out_w|ow|out_h|oh|a|sar|dar|hsub|vsub|ohsub|ovsub"
enum {
    V_IN_W,
    V_IW,
    V_IN_H,
    V_IH,
    V_OUT_W,
    V_OW,
    V_OUT_H,
    V_OH,
    V_A,
    V_SAR,
    V_DAR,
    V_HSUB,
    V_VSUB,
    V_OHSUB,
    V_OVSUB,
    V_COUNT
};

/* ---- The size (vf_scale.c's scale_eval_dimensions, scale_eval.c) -------- */

/* ffmpeg's av_rescale(a, b, c) for b, c > 0: a * b / c rounded to the
 * nearest, halves away from zero. */
static int64_t rescale(int64_t a, int64_t b, int64_t c)
{
    return a < 0 ? -((-a * b + c / 2) / c) : (a * b + c / 2) / c;
}

/* (int)res as x86 gives it: INT_MIN for NaN and values beyond int. */
static int to_int(double res)
{
    return res >= -2147483648.0 && res < 2147483648.0 ? (int)res : (-2147483647 - 1);
}

/* Parses expression `which` (w or h) with every variable but its own value
 * (vf_scale: "cannot be self-referencing"). */
static int parse_size_expr(const clv_value *values, int which, clv__expr **out, clv_msg *msg)
{
    char buf[256];
    const char *names[V_COUNT + 1];
    clv__expr_names(SCALE_VARS, buf, sizeof buf, names, V_COUNT + 1);
    const char *text = clv_value_text(&values[which]);
    clv_msg why = {{0}};
    int err = clv__expr_parse(text, names, out, &why);
    if (err)
        return clv__fail(msg, err, "%s: %s", which == SCALE_W ? "w" : "h", why.text);
    /* "#" starts no name the parser reads: the own variables become unknown. */
    int own = which == SCALE_W ? V_OUT_W : V_OUT_H;
    names[own] = "#out";
    names[own + 1] = "#o";
    clv__expr *probe = NULL;
    err = clv__expr_parse(text, names, &probe, &why);
    clv__expr_free(probe);
    if (err) {
        clv__expr_free(*out);
        *out = NULL;
        return clv__fail(msg, CLV_EPARSE,
                         "%s: the %s expression '%s' cannot use its own value (%s), as in ffmpeg",
                         which == SCALE_W ? "w" : "h", which == SCALE_W ? "width" : "height", text,
                         which == SCALE_W ? "out_w, ow" : "out_h, oh");
    }
    return 0;
}

/* The checks of param0/param1 that keep swscale's arithmetic defined. */
static int check_params(const clv_value *values, clv_msg *msg)
{
    int64_t flags = values[SCALE_FLAGS].i;
    int64_t algo = flags & F_ALGORITHMS;
    if (algo & (algo - 1))
        return clv__fail(msg, CLV_EPARSE,
                         "flags: choose one scaling algorithm, not several (as swscale)");
    double p0 = (double)values[SCALE_PARAM0].i / 1000.0,
           p1 = (double)values[SCALE_PARAM1].i / 1000.0;
    if ((algo == 0 || algo & (F_BICUBIC | F_BICUBLIN)) &&
        ((p0 != PARAM_DEFAULT && fabs(p0) > 10) || (p1 != PARAM_DEFAULT && fabs(p1) > 10)))
        return clv__fail(msg, CLV_ERANGE,
                         "bicubic: param0 (B) and param1 (C) must lie in [-10, 10] (got %g, %g)",
                         p0, p1);
    if (algo & F_LANCZOS && p0 != PARAM_DEFAULT && (p0 <= 0 || ceil(2 * p0) > 50))
        return clv__fail(
            msg, CLV_ERANGE,
            "lanczos: param0 (its lobes) must lie in (0, 25] (swscale's limit), got %g", p0);
    if (algo & (F_GAUSS | F_X) && p0 != PARAM_DEFAULT && (p0 < 0 || p0 > 1000))
        return clv__fail(msg, CLV_ERANGE, "%s: param0 must lie in [0, 1000], got %g",
                         algo & F_GAUSS ? "gauss" : "experimental", p0);
    return 0;
}

/* vf_scale's size for frames of *in: w, then h, then w again, 0 meaning
 * the input's side, then ff_scale_adjust_dimensions. */
static int eval_size(const clv_value *values, const clv_size *in, int *out_w, int *out_h,
                     clv_msg *msg)
{
    clv__expr *we = NULL, *he = NULL;
    int err = parse_size_expr(values, SCALE_W, &we, msg);
    if (!err)
        err = parse_size_expr(values, SCALE_H, &he, msg);
    if (!err)
        err = check_params(values, msg);
    if (err) {
        clv__expr_free(we);
        clv__expr_free(he);
        return err;
    }
    double v[V_COUNT];
    v[V_IN_W] = v[V_IW] = in->width;
    v[V_IN_H] = v[V_IH] = in->height;
    v[V_OUT_W] = v[V_OW] = NAN;
    v[V_OUT_H] = v[V_OH] = NAN;
    v[V_A] = (double)in->width / in->height;
    v[V_SAR] = in->sar_num > 0 && in->sar_den > 0 ? (double)in->sar_num / in->sar_den : 1;
    v[V_DAR] = v[V_A] * v[V_SAR];
    v[V_HSUB] = v[V_VSUB] = v[V_OHSUB] = v[V_OVSUB] = 1; /* RGBA: no subsampling */

    double res = clv__expr_eval(we, v);
    int w = to_int(res);
    v[V_OUT_W] = v[V_OW] = w == 0 ? in->width : w;
    res = clv__expr_eval(he, v);
    const char *bad = NULL;
    if (isnan(res) || fabs(res) >= 2147483648.0)
        bad = "h";
    int h = to_int(res);
    v[V_OUT_H] = v[V_OH] = h == 0 ? in->height : h;
    if (!bad) {
        res = clv__expr_eval(we, v);
        if (isnan(res) || fabs(res) >= 2147483648.0)
            bad = "w";
        w = to_int(res);
    }
    clv__expr_free(we);
    clv__expr_free(he);
    if (bad) {
        int which = *bad == 'w' ? SCALE_W : SCALE_H;
        return clv__fail(msg, CLV_ERANGE, "%s: the expression '%s' gives %g, not a size", bad,
                         clv_value_text(&values[which]), res);
    }
    int64_t ow = w == 0 ? in->width : w, oh = h == 0 ? in->height : h;

    /* ff_scale_adjust_dimensions: -n keeps the aspect, divisible by n. */
    int64_t fw = ow < -1 ? -ow : 1, fh = oh < -1 ? -oh : 1;
    if (ow < 0 && oh < 0) {
        ow = in->width;
        oh = in->height;
    }
    if (ow < 0)
        ow = rescale(oh, in->width, (int64_t)in->height * fw) * fw;
    if (oh < 0)
        oh = rescale(ow, in->height, (int64_t)in->width * fh) * fh;
    int64_t oar = values[SCALE_FORCE_OAR].i, n = values[SCALE_DIVISIBLE].i;
    if (oar) {
        int64_t tw = rescale(oh, in->width, in->height), th = rescale(ow, in->height, in->width);
        if (oar == 1) {
            ow = tw < ow ? tw : ow;
            oh = th < oh ? th : oh;
            if (n > 1) {
                ow = ow / n * n;
                oh = oh / n * n;
            }
        } else {
            ow = tw > ow ? tw : ow;
            oh = th > oh ? th : oh;
            if (n > 1) {
                ow = (ow + n - 1) / n * n;
                oh = (oh + n - 1) / n * n;
            }
        }
    }
    if (ow < -2147483647 || ow > 2147483647 || oh < -2147483647 || oh > 2147483647)
        return clv__fail(msg, CLV_ERANGE, "w '%s' and h '%s' give a size beyond any frame",
                         clv_value_text(&values[SCALE_W]), clv_value_text(&values[SCALE_H]));
    *out_w = (int)ow;
    *out_h = (int)oh;
    return 0;
}

static int output_size(const clv_value *values, const clv_size *in, clv_size *out, clv_msg *msg)
{
    int w = 0, h = 0;
    int err = eval_size(values, in, &w, &h, msg);
    if (err)
        return err;
    out->width = w;
    out->height = h;
    /* vf_scale keeps the display aspect: SAR * (oh * iw) / (ow * ih). */
    if (w > 0 && h > 0)
        clv__sar_mul(in, (int64_t)h * in->width, (int64_t)w * in->height, out);
    return 0;
}

/* ---- The taps (swscale's initFilter, libswscale/utils.c) -------------- */

/* One direction's filter: output sample i is
 * sum over j < size of coef[i * size + j] * in[pos[i] + j]. */
typedef struct scale_taps {
    int size, count;
    int32_t *pos;
    int16_t *coef;
} scale_taps;

static void taps_free(scale_taps *t)
{
    free(t->pos);
    free(t->coef);
    t->pos = NULL;
    t->coef = NULL;
}

static int av_log2_int(unsigned v)
{
    int n = 0;
    while (v >>= 1)
        n++;
    return n;
}

static double spline_coeff(double a, double b, double c, double d, double dist)
{
    if (dist <= 1.0)
        return ((d * dist + c) * dist + b) * dist + a;
    return spline_coeff(0.0, b + 2.0 * c + 3.0 * d, c + 3.0 * d, -b - 3.0 * c - 6.0 * d,
                        dist - 1.0);
}

static int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* ROUNDED_DIV of libavutil: halves away from zero, C division. */
static int64_t rounded_div(int64_t a, int64_t b)
{
    return (a >= 0 ? a + b / 2 : a - b / 2) / b;
}

/* swscale's initFilter for one direction, with srcPos = dstPos = 128 (every
 * plane of an RGB or 4:4:4 picture), no source or destination vectors and
 * x86's tap alignment (align: 4 across, 2 down), so the taps are those of
 * the ffmpeg this was checked against: the padding taps keep the small
 * values trimming dropped, unless bitexact. inc is xInc or yInc (16.16), one
 * the normalised sum (1 << 14 across, 1 << 12 down). */
static int build_taps(int src, int dst, int inc, int flags, double param0, double param1, int align,
                      int one, scale_taps *out)
{
    memset(out, 0, sizeof *out);
    const int64_t fone =
        1LL << (54 -
                (av_log2_int((unsigned)(src / dst)) < 8 ? av_log2_int((unsigned)(src / dst)) : 8));
    int size;
    int64_t *filter = NULL, *filter2 = NULL;
    int32_t *pos = calloc((size_t)dst, sizeof *pos);
    if (!pos)
        return CLV_ENOMEM;
    if (abs(inc - 0x10000) < 10) { /* unscaled */
        size = 1;
        filter = calloc((size_t)dst, sizeof *filter);
        if (!filter)
            goto nomem;
        for (int i = 0; i < dst; i++) {
            filter[i] = fone;
            pos[i] = i;
        }
    } else if (flags & F_POINT) {
        size = 1;
        filter = calloc((size_t)dst, sizeof *filter);
        if (!filter)
            goto nomem;
        int64_t x = ((128 * (int64_t)inc) >> 8) - ((128 * 0x8000LL) >> 7);
        for (int i = 0; i < dst; i++) {
            pos[i] = (int)((x + (1 << 15)) >> 16);
            filter[i] = fone;
            x += inc;
        }
    } else if ((inc <= (1 << 16) && (flags & F_AREA)) || (flags & F_FAST_BILINEAR)) {
        size = 2;
        filter = calloc((size_t)dst * 2, sizeof *filter);
        if (!filter)
            goto nomem;
        int64_t x = ((128 * (int64_t)inc) >> 8) - ((128 * 0x8000LL) >> 7);
        for (int i = 0; i < dst; i++) {
            int xx = (int)((x - (1 << 15) + (1 << 15)) >> 16);
            pos[i] = xx;
            for (int j = 0; j < 2; j++) {
                int64_t c = fone - abs64((int64_t)xx * (1 << 16) - x) * (fone >> 16);
                filter[i * 2 + j] = c < 0 ? 0 : c;
                xx++;
            }
            x += inc;
        }
    } else {
        int factor = flags & F_AREA       ? 1
                     : flags & F_BILINEAR ? 2
                     : flags & F_GAUSS    ? 8
                     : flags & F_SINC     ? 20
                     : flags & F_SPLINE   ? 20
                     : flags & F_X        ? 8
                                          : 4; /* bicubic */
        if (flags & F_LANCZOS)
            factor = param0 != PARAM_DEFAULT ? (int)ceil(2 * param0) : 6;
        if (inc <= 1 << 16)
            size = 1 + factor;
        else
            size = (int)(1 + ((int64_t)factor * src + dst - 1) / dst);
        size = size < src - 2 ? size : src - 2;
        size = size > 1 ? size : 1;
        filter = calloc((size_t)dst * (size_t)size, sizeof *filter);
        if (!filter)
            goto nomem;
        int64_t x = ((128 * (int64_t)inc) >> 7) - ((128 * 0x10000LL) >> 7);
        for (int i = 0; i < dst; i++) {
            int xx = (int)((x - (size - 2) * (1LL << 16)) / (1 << 17));
            pos[i] = xx;
            for (int j = 0; j < size; j++) {
                int64_t d = abs64((int64_t)xx * (1 << 17) - x) << 13;
                if (inc > 1 << 16)
                    d = d * dst / src;
                double fd = (double)d * (1.0 / (1 << 30));
                int64_t c;
                if (flags & F_X) {
                    double a = param0 != PARAM_DEFAULT ? param0 : 1.0;
                    double k = fd < 1.0 ? cos(fd * SCALE_PI) : -1.0;
                    k = k < 0.0 ? -pow(-k, a) : pow(k, a);
                    c = (int64_t)((k * 0.5 + 0.5) * (double)fone);
                } else if (flags & F_AREA) {
                    int64_t d2 = d - (1 << 29);
                    if (d2 * inc < -(1LL << (29 + 16)))
                        c = 1LL << (30 + 16);
                    else if (d2 * inc < (1LL << (29 + 16)))
                        c = -d2 * inc + (1LL << (29 + 16));
                    else
                        c = 0;
                    c *= fone >> (30 + 16);
                } else if (flags & F_GAUSS) {
                    double p = param0 != PARAM_DEFAULT ? param0 : 3.0;
                    c = (int64_t)(exp2(-p * fd * fd) * (double)fone);
                } else if (flags & F_SINC) {
                    c = (int64_t)((d ? sin(fd * SCALE_PI) / (fd * SCALE_PI) : 1.0) * (double)fone);
                } else if (flags & F_LANCZOS) {
                    double p = param0 != PARAM_DEFAULT ? param0 : 3.0;
                    c = (int64_t)((d ? sin(fd * SCALE_PI) * sin(fd * SCALE_PI / p) /
                                           (fd * fd * SCALE_PI * SCALE_PI / p)
                                     : 1.0) *
                                  (double)fone);
                    if (fd > p)
                        c = 0;
                } else if (flags & F_BILINEAR) {
                    c = (1 << 30) - d;
                    if (c < 0)
                        c = 0;
                    c *= fone >> 30;
                } else if (flags & F_SPLINE) {
                    double p = -2.196152422706632;
                    c = (int64_t)(spline_coeff(1.0, 0.0, p, -p - 1.0, fd) * (double)fone);
                } else { /* bicubic (and bicublin: every plane is a luma here) */
                    int64_t B = (int64_t)((param0 != PARAM_DEFAULT ? param0 : 0) * (1 << 24));
                    int64_t C = (int64_t)((param1 != PARAM_DEFAULT ? param1 : 0.6) * (1 << 24));
                    if (d >= 1LL << 31) {
                        c = 0;
                    } else {
                        int64_t dd = (d * d) >> 30, ddd = (dd * d) >> 30;
                        /* swscale's int64 sums, which extreme B and C
                         * (param0=-10:param1=10) overflow: done modulo
                         * 2^64 as its build does, without C's undefined
                         * signed overflow. */
                        if (d < 1LL << 30)
                            c = wrap_sum3(12 * (1 << 24) - 9 * B - 6 * C, ddd,
                                          -18 * (1 << 24) + 12 * B + 6 * C, dd,
                                          6 * (1 << 24) - 2 * B, 1 << 30);
                        else
                            c = (int64_t)((uint64_t)wrap_sum3(-B - 6 * C, ddd, 6 * B + 30 * C, dd,
                                                              -12 * B - 48 * C, d) +
                                          (uint64_t)((8 * B + 24 * C) * (1 << 30)));
                    }
                    c /= (1LL << 54) / fone;
                }
                filter[(size_t)i * (size_t)size + (size_t)j] = c;
                xx++;
            }
            x += 2LL * inc;
        }
    }

    /* Trim near-zero taps (SWS_MAX_REDUCE_CUTOFF): shift each row left past
     * its leading ones (keeping positions monotonic), count trailing ones. */
    const int size2 = size;
    filter2 = filter;
    filter = NULL;
    int min_size = 0;
    for (int i = dst - 1; i >= 0; i--) {
        int64_t *row = filter2 + (size_t)i * (size_t)size2;
        int keep = size2;
        int64_t cut = 0;
        for (int j = 0; j < size2; j++) {
            cut += abs64(row[0]);
            if ((double)cut > 0.002 * (double)fone)
                break;
            if (i < dst - 1 && pos[i] >= pos[i + 1])
                break;
            for (int k = 1; k < size2; k++)
                row[k - 1] = row[k];
            row[size2 - 1] = 0;
            pos[i]++;
        }
        cut = 0;
        for (int j = size2 - 1; j > 0; j--) {
            cut += abs64(row[j]);
            if ((double)cut > 0.002 * (double)fone)
                break;
            keep--;
        }
        if (keep > min_size)
            min_size = keep;
    }
    if (align == 2 && min_size == 1)
        align = 1; /* x86's special case for one vertical tap */
    size = (min_size + align - 1) & ~(align - 1);
    filter = calloc((size_t)dst * (size_t)size, sizeof *filter);
    if (!filter)
        goto nomem;
    for (int i = 0; i < dst; i++)
        for (int j = 0; j < size; j++)
            filter[(size_t)i * (size_t)size + (size_t)j] =
                j < size2 && !((flags & F_BITEXACT) && j >= min_size)
                    ? filter2[(size_t)i * (size_t)size2 + (size_t)j]
                    : 0;

    /* Borders: taps outside the source are folded onto the edge pixels. */
    for (int i = 0; i < dst; i++) {
        int64_t *row = filter + (size_t)i * (size_t)size;
        if (pos[i] < 0) {
            for (int j = 1; j < size; j++) {
                int left = j + pos[i] > 0 ? j + pos[i] : 0;
                row[left] += row[j];
                row[j] = 0;
            }
            pos[i] = 0;
        }
        if (pos[i] + size > src) {
            int shift = pos[i] + (size - src < 0 ? size - src : 0);
            int64_t acc = 0;
            for (int j = size - 1; j >= 0; j--)
                if (pos[i] + j >= src) {
                    acc += row[j];
                    row[j] = 0;
                }
            for (int j = size - 1; j >= 0; j--)
                row[j] = j < shift ? 0 : row[j - shift];
            pos[i] -= shift;
            row[src - 1 - pos[i]] += acc;
        }
    }

    /* Normalise to `one` with the rounding error carried along the row. */
    out->coef = calloc((size_t)dst * (size_t)size, sizeof *out->coef);
    if (!out->coef)
        goto nomem;
    for (int i = 0; i < dst; i++) {
        const int64_t *row = filter + (size_t)i * (size_t)size;
        int64_t sum = 0, error = 0;
        for (int j = 0; j < size; j++)
            sum += row[j];
        sum = (sum + one / 2) / one;
        if (!sum)
            sum = 1;
        for (int j = 0; j < size; j++) {
            int64_t v = row[j] + error;
            int q = (int)rounded_div(v, sum);
            out->coef[(size_t)i * (size_t)size + (size_t)j] = (int16_t)q;
            error = v - (int64_t)q * sum;
        }
    }
    free(filter);
    free(filter2);
    out->pos = pos;
    out->size = size;
    out->count = dst;
    return 0;
nomem:
    free(filter);
    free(filter2);
    free(pos);
    taps_free(out);
    return CLV_ENOMEM;
}

/* Both directions' taps for in_w x in_h -> out_w x out_h with the values'
 * flags and parameters, as sws_init_context picks them. */
static int plan_taps(const clv_value *values, int in_w, int in_h, int out_w, int out_h,
                     scale_taps *across, scale_taps *down)
{
    memset(across, 0, sizeof *across);
    memset(down, 0, sizeof *down);
    int flags = (int)values[SCALE_FLAGS].i;
    if (!(flags & F_ALGORITHMS))
        flags |= F_BICUBIC;
    if (flags & F_BICUBLIN) /* luma's filter: every RGBA plane is a full plane */
        flags = (flags & ~F_BICUBLIN) | F_BICUBIC;
    if ((flags & F_FAST_BILINEAR) && (in_w < 8 || out_w < 8))
        flags ^= F_FAST_BILINEAR | F_BILINEAR;
    double p0 = (double)values[SCALE_PARAM0].i / 1000.0;
    double p1 = (double)values[SCALE_PARAM1].i / 1000.0;
    int x_inc = (int)((((int64_t)in_w << 16) + (out_w >> 1)) / out_w);
    int y_inc = (int)((((int64_t)in_h << 16) + (out_h >> 1)) / out_h);
    /* fast_bilinear matches the first and the next-to-last pixels across
     * (x86 without its MMXEXT code, which runs for 8-bit planes enlarged
     * from a multiple of 16 to a multiple of 32 and differs by one). */
    if (flags & F_FAST_BILINEAR)
        x_inc = (int)((((int64_t)in_w - 2) << 16) / (out_w - 2) - 20);
    int err = build_taps(in_w, out_w, x_inc, flags, p0, p1, 4, 1 << 14, across);
    if (!err)
        err = build_taps(in_h, out_h, y_inc, flags, p0, p1, 2, 1 << 12, down);
    if (err) {
        taps_free(across);
        taps_free(down);
    }
    return err;
}

/* ---- The reference ------------------------------------------------------ */

/* swscale's arithmetic for planes of a depth, around the same taps (14-bit
 * across, 12-bit down). 8 bits (hScale8To15, yuv2planeX_8): the pass across
 * keeps min(sum >> 7, 32767), >= -32768 (its SIMD saturates), the pass down
 * (64 << 12 + sum) >> 19 clamped to 0..255. 16 bits (hScale16To19,
 * yuv2planeX_16): the pass across keeps a 19-bit value, min(sum >> 11,
 * 2^19 - 1) (swscale clamps only above), the pass down
 * (2^14 + sum) >> 15 clamped to 0..65535. swscale sums in 32 bits, which
 * wrap at 16 bits on filters with large negative lobes; here both sums are
 * exact (64 bits), and the value kept across is an int32 (the clamp below
 * at -2^31 bites on no filter swscale makes: it bounds the sum down). */
typedef struct scale_bits {
    int across_shift, down_shift;
    int32_t mid_min, mid_max;
    int64_t down_bias;
    int maxv;
} scale_bits;

static const scale_bits bits8 = {7, 19, -32768, 32767, 64 << 12, 255};
static const scale_bits bits16 = {11, 15, INT32_MIN, (1 << 19) - 1, 1 << 14, 65535};

static int reference(void *ref_state, const clv_value *values, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int iw = src->width, ih = src->height, ow = dst->width, oh = dst->height;
    if (iw == ow && ih == oh) { /* vf_scale makes no scaler for the same size */
        for (int y = 0; y < ih; y++)
            memcpy(dst->pixels + (size_t)y * dst->stride, src->pixels + (size_t)y * src->stride,
                   (size_t)iw * (size_t)clv_image_pixel_bytes(src));
        return 0;
    }
    const scale_bits *b = clv__depth(src) == 16 ? &bits16 : &bits8;
    scale_taps across, down;
    if (plan_taps(values, iw, ih, ow, oh, &across, &down))
        return CLV_ENOMEM;
    int32_t *mid = malloc((size_t)ow * (size_t)ih * 4 * sizeof *mid);
    if (!mid) {
        taps_free(&across);
        taps_free(&down);
        return CLV_ENOMEM;
    }
    /* Across, each channel a plane. */
    for (int y = 0; y < ih; y++)
        for (int x = 0; x < ow; x++)
            for (int c = 0; c < 4; c++) {
                int64_t sum = 0;
                /* Taps past the row's end (swscale's alignment makes more
                 * than a narrow row has) weigh 0: the last pixel is read. */
                for (int j = 0; j < across.size; j++)
                    sum += (int64_t)clv__get_clamped(src, across.pos[x] + j, y, c) *
                           across.coef[(size_t)x * (size_t)across.size + (size_t)j];
                sum >>= b->across_shift;
                mid[((size_t)y * (size_t)ow + (size_t)x) * 4 + (size_t)c] =
                    (int32_t)(sum < b->mid_min   ? b->mid_min
                              : sum > b->mid_max ? b->mid_max
                                                 : sum);
            }
    /* Down, rounding to the nearest (halves up). */
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++)
            for (int c = 0; c < 4; c++) {
                int64_t sum = b->down_bias;
                for (int j = 0; j < down.size; j++) {
                    const int row = down.pos[y] + j < ih ? down.pos[y] + j : ih - 1; /* as across */
                    sum += (int64_t)mid[((size_t)row * (size_t)ow + (size_t)x) * 4 + (size_t)c] *
                           down.coef[(size_t)y * (size_t)down.size + (size_t)j];
                }
                sum >>= b->down_shift;
                clv__put(dst, x, y, c, sum < 0 ? 0 : sum > b->maxv ? b->maxv : (int)sum);
            }
    free(mid);
    taps_free(&across);
    taps_free(&down);
    return 0;
}

/* ---- The device --------------------------------------------------------- */

static const char *const kernels[] = {"scale_rows",   "scale_tile",  "scale_across", "scale_down",
                                      "scale_copy",   "scale_tile4", "scale_tile8",  "scale_tile12",
                                      "scale_tile16", NULL};

/* cl/scale.cl's tile width and work-group height (scale_tile). */
#define TILE_W 64
#define TILE_Y 4
/* Local memory a tile takes at most: 24 KiB ran 4K -> 1080p a few percent
 * faster on an H200 than 16 or 48 (more work-groups in flight against
 * fewer rows made twice). */
#define TILE_LOCAL_MAX (24 * 1024)

typedef enum { PLAN_COPY, PLAN_ROWS, PLAN_TILE, PLAN_TWO_PASS } scale_plan;

typedef struct scale_state {
    cl_kernel rows, tile, across, down, copy; /* in the order of kernels[] */
    cl_kernel tile_taps[4];                   /* scale_tile4 .. scale_tile16 */
    cl_mem across_pos, across_coef, down_pos, down_coef;
    cl_mem scratch; /* PLAN_ROWS: the bands' rings; PLAN_TWO_PASS: out_w x in_h values */
    int across_size, down_size;
    int depth; /* the chain's: 8 (short4 values between the passes) or 16 (int4) */
    scale_plan plan;
    int band, ring, bands; /* PLAN_ROWS: output rows per work-item, ring rows, work-items */
    int tile_h, tile_rows; /* PLAN_TILE: output rows per tile, most input rows a tile needs */
} scale_state;

static void release_tables(scale_state *s)
{
    clv__mem_release(&s->across_pos);
    clv__mem_release(&s->across_coef);
    clv__mem_release(&s->down_pos);
    clv__mem_release(&s->down_coef);
    clv__mem_release(&s->scratch);
}

static void uninit(void *state)
{
    release_tables(state);
}

/* The bytes of one pixel's four values between the passes: swscale's
 * 15-bit ones are shorts, its 19-bit ones ints. */
static size_t mid_bytes(const scale_state *s)
{
    return s->depth == 16 ? 4 * sizeof(cl_int) : 4 * sizeof(cl_short);
}

/* The most input rows any tile of tile_h output rows reads. */
static int tile_rows(const scale_taps *down, int tile_h)
{
    int most = 0;
    for (int y0 = 0; y0 < down->count; y0 += tile_h) {
        int y1 = y0 + tile_h < down->count ? y0 + tile_h : down->count;
        int n = down->pos[y1 - 1] + down->size - down->pos[y0];
        if (n > most)
            most = n;
    }
    return most;
}

/* The across coefficients for scale_rows' pairwise multiply-adds
 * (cl/scale.cl): per column, per 4 taps, c0 c1 repeated four times then c2
 * c3 four times; *size is the taps rounded up to 4 (x86's across alignment
 * makes them so already; zeros otherwise). */
static int16_t *pair_table(const scale_taps *t, int *size)
{
    const int n = (t->size + 3) & ~3;
    int16_t *pairs = calloc((size_t)t->count * (size_t)n * 4, sizeof *pairs);
    if (!pairs)
        return NULL;
    for (int x = 0; x < t->count; x++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < 4; k++) {
                const int16_t c =
                    j < t->size ? t->coef[(size_t)x * (size_t)t->size + (size_t)j] : 0;
                /* tap j of group g = j / 4 sits at lanes 8 * (j % 4 / 2) + 2 * k + j % 2 */
                pairs[((size_t)x * (size_t)n + (size_t)(j & ~3)) * 4 +
                      (size_t)(8 * ((j & 3) >> 1) + 2 * k + (j & 1))] = c;
            }
    *size = n;
    return pairs;
}

static int resize(void *state, clv_context *ctx, const clv_value *values, const clv_size *in,
                  const clv_size *out, clv_msg *msg)
{
    scale_state *s = state;
    release_tables(s);
    s->plan = PLAN_COPY;
    s->depth = ctx->build_depth == 16 ? 16 : 8; /* the chain's, while it resizes */
    if (in->width == out->width && in->height == out->height)
        return 0;
    scale_taps across, down;
    if (plan_taps(values, in->width, in->height, out->width, out->height, &across, &down))
        return clv__fail(msg, CLV_ENOMEM, "scale: out of memory for the filter taps");
    int16_t *pairs = NULL;
    size_t scratch = 0;
    if (ctx->row_shape) {
        /* Bands of output rows: a few per compute unit so that the cores
         * stay balanced, not so few rows that the rows shared by
         * neighbouring bands (made by both) cost much. */
        unsigned units = ctx->dev.compute_units ? ctx->dev.compute_units : 1;
        int band = (out->height + (int)units * 4 - 1) / ((int)units * 4);
        if (band < 16)
            band = 16;
        s->plan = PLAN_ROWS;
        s->band = band;
        s->bands = (out->height + band - 1) / band;
        s->ring = down.size;
        scratch = (size_t)s->bands * 2 * (size_t)s->ring * (size_t)out->width * mid_bytes(s);
        /* The 8-bit kernel's multiply-adds take pairs; the 16-bit one the
         * plain table. */
        if (s->depth == 8)
            pairs = pair_table(&across, &s->across_size);
    } else {
        /* Tiles as tall as the device's local memory allows (32 rows of
         * output keep the rows a tile shares with the next few). */
        size_t local = ctx->dev.local_mem ? (size_t)ctx->dev.local_mem : 16384;
        if (local > TILE_LOCAL_MAX)
            local = TILE_LOCAL_MAX; /* beyond 48 KiB NVIDIA wants an opt-in */
        s->plan = PLAN_TWO_PASS;
        for (int th = 32; th >= 4; th /= 2) {
            int rows = tile_rows(&down, th);
            if ((size_t)rows * TILE_W * mid_bytes(s) <= local - 1024) {
                s->plan = PLAN_TILE;
                s->tile_h = th;
                s->tile_rows = rows;
                break;
            }
        }
        if (s->plan == PLAN_TWO_PASS)
            scratch = (size_t)out->width * (size_t)in->height * mid_bytes(s);
    }
    cl_int st = pairs || s->plan != PLAN_ROWS || s->depth != 8 ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    const cl_mem_flags ro = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    if (st == CL_SUCCESS)
        s->across_pos =
            clCreateBuffer(ctx->cl, ro, (size_t)across.count * sizeof(cl_int), across.pos, &st);
    if (st == CL_SUCCESS)
        s->across_coef = clCreateBuffer(
            ctx->cl, ro,
            pairs ? (size_t)across.count * (size_t)s->across_size * 4 * sizeof(cl_short)
                  : (size_t)across.count * (size_t)across.size * sizeof(cl_short),
            pairs ? pairs : across.coef, &st);
    if (st == CL_SUCCESS)
        s->down_pos =
            clCreateBuffer(ctx->cl, ro, (size_t)down.count * sizeof(cl_int), down.pos, &st);
    if (st == CL_SUCCESS)
        s->down_coef = clCreateBuffer(
            ctx->cl, ro, (size_t)down.count * (size_t)down.size * sizeof(cl_short), down.coef, &st);
    if (st == CL_SUCCESS && scratch)
        s->scratch = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, scratch, NULL, &st);
    if (!pairs)
        s->across_size = across.size;
    s->down_size = down.size;
    free(pairs);
    taps_free(&across);
    taps_free(&down);
    if (st != CL_SUCCESS) {
        release_tables(s);
        s->plan = PLAN_COPY;
        return clv__fail(msg, CLV_ENOMEM,
                         "scale: cannot allocate its tables for %dx%d -> %dx%d: %s", in->width,
                         in->height, out->width, out->height, clv__cl_strerror(st));
    }
    return 0;
}

static int run(void *state, const clv_launch *l)
{
    scale_state *s = state;
    int err;
    cl_int across_taps = s->across_size, down_taps = s->down_size;
    if (s->plan == PLAN_COPY) {
        if (l->width != l->out_width || l->height != l->out_height)
            return CLV_EINVAL; /* resize did not run for this size */
        if ((err = clv__kernel_args(s->copy, 0, 6, CLV__ARG(l->src), CLV__ARG(l->dst),
                                    CLV__ARG(l->width), CLV__ARG(l->height), CLV__ARG(l->stride),
                                    CLV__ARG(l->out_stride))))
            return err;
        return clv__launch_pixels(l, s->copy, l->width, l->height);
    }
    if (s->plan == PLAN_ROWS || s->plan == PLAN_TILE) {
        /* Tiles of 4 to 16 taps across (multiples of 4) have a kernel of
         * their own, the taps unrolled. */
        cl_kernel k = s->plan == PLAN_ROWS ? s->rows
                      : across_taps % 4 == 0 && across_taps <= 16
                          ? s->tile_taps[across_taps / 4 - 1]
                          : s->tile;
        if ((err = clv__kernel_args(
                 k, 0, 14, CLV__ARG(l->src), CLV__ARG(l->dst), CLV__ARG(l->width),
                 CLV__ARG(l->height), CLV__ARG(l->stride), CLV__ARG(l->out_width),
                 CLV__ARG(l->out_height), CLV__ARG(l->out_stride), CLV__ARG(s->across_pos),
                 CLV__ARG(s->across_coef), CLV__ARG(across_taps), CLV__ARG(s->down_pos),
                 CLV__ARG(s->down_coef), CLV__ARG(down_taps))))
            return err;
        if (s->plan == PLAN_ROWS) {
            cl_int band = s->band, ring = s->ring;
            if ((err = clv__kernel_args(k, 14, 3, CLV__ARG(s->scratch), CLV__ARG(band),
                                        CLV__ARG(ring))))
                return err;
            size_t global = (size_t)s->bands, one = 1;
            return clv__launch(l, k, 1, &global, &one);
        }
        cl_int tile_h = s->tile_h;
        cl_int st = clSetKernelArg(k, 14, (size_t)s->tile_rows * TILE_W * mid_bytes(s), NULL);
        if (st != CL_SUCCESS)
            return CLV_ECL;
        if ((err = clv__kernel_args(k, 15, 1, CLV__ARG(tile_h))))
            return err;
        size_t local[2] = {TILE_W, TILE_Y};
        size_t global[2] = {((size_t)l->out_width + TILE_W - 1) / TILE_W * TILE_W,
                            ((size_t)l->out_height + (size_t)s->tile_h - 1) / (size_t)s->tile_h *
                                TILE_Y};
        return clv__launch(l, k, 2, global, local);
    }
    if ((err = clv__kernel_args(s->across, 0, 9, CLV__ARG(l->src), CLV__ARG(s->scratch),
                                CLV__ARG(l->width), CLV__ARG(l->height), CLV__ARG(l->stride),
                                CLV__ARG(l->out_width), CLV__ARG(s->across_pos),
                                CLV__ARG(s->across_coef), CLV__ARG(across_taps))))
        return err;
    /* Two kernels: the wait list goes to the first, the done event comes
     * from the second. */
    clv_launch first = *l, second = *l;
    first.done = NULL;
    second.wait_count = 0;
    second.wait = NULL;
    if ((err = clv__launch_pixels(&first, s->across, l->out_width, l->height)))
        return err;
    if ((err = clv__kernel_args(
             s->down, 0, 9, CLV__ARG(s->scratch), CLV__ARG(l->dst), CLV__ARG(l->height),
             CLV__ARG(l->out_width), CLV__ARG(l->out_height), CLV__ARG(l->out_stride),
             CLV__ARG(s->down_pos), CLV__ARG(s->down_coef), CLV__ARG(down_taps))))
        return err;
    return clv__launch_pixels(&second, s->down, l->out_width, l->out_height);
}

static const char *const aliases[] = {"width", "w", "height", "h", "s", "size", NULL};

/* ffmpeg's size and s: "640x360" or a name ("hd720") for w and h; a w of
 * that kind with no h too ("scale=640x360"). */
static const int image_size[] = {SCALE_SIZE, SCALE_W, SCALE_H};

static const clv_param params[] = {
    {"w", CLV_PARAM_EXPR, "iw", 0, 0, SCALE_VARS,
     "output width: an expression; 0 the input's, -1 keeps the aspect, -n also divisible by n", 0},
    {"h", CLV_PARAM_EXPR, "ih", 0, 0, SCALE_VARS,
     "output height: an expression; 0 the input's, -1 keeps the aspect, -n also divisible by n", 0},
    {"flags", CLV_PARAM_FLAGS, "bicubic", 0, 0,
     "fast_bilinear|bilinear|bicubic|experimental|neighbor|area|bicublin|gauss|sinc|lanczos|"
     "spline|accurate_rnd|full_chroma_int|full_chroma_inp|bitexact",
     "swscale's algorithm (one) and flags; the result is always accurate_rnd's", 0},
    {"param0", CLV_PARAM_REAL, "123456", -100, 123456, NULL,
     "bicubic B, lanczos lobes, gauss exponent, experimental power; 123456: the algorithm's own "
     "(B 0, lobes 3, gauss 3, power 1); not stepped by keys",
     0},
    {"param1", CLV_PARAM_REAL, "123456", -100, 123456, NULL,
     "bicubic C; 123456: the algorithm's own (0.6); not stepped by keys", 0},
    {"force_original_aspect_ratio", CLV_PARAM_ENUM, "disable", 0, 2, "disable|decrease|increase",
     "shrink or grow the size given to keep the input's aspect", 1},
    {"force_divisible_by", CLV_PARAM_INT, "1", 1, 256, NULL,
     "with force_original_aspect_ratio: round both sides to multiples of this", 1},
    {"size", CLV_PARAM_TEXT, "", 0, 0, NULL,
     "ffmpeg's size for w and h, WxH or a name (hd720, vga, qvga, ...); not with w or h", 0},
};
_Static_assert(sizeof params / sizeof params[0] == SCALE_PARAM_COUNT,
               "scale: the enum and the params table differ");

const clv_filter clv__filter_scale = {
    .name = "scale",
    .help = "resize, as ffmpeg's scale: sizes from expressions, swscale's filters exactly",
    .params = params,
    .param_count = SCALE_PARAM_COUNT,
    .program = "scale",
    .kernels = kernels,
    .state_size = sizeof(scale_state),
    .uninit = uninit,
    .output_size = output_size,
    .aliases = aliases,
    .image_size = image_size,
    .resize = resize,
    .run = run,
    .deep = 1,
    .reference = reference,
};
