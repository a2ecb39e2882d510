/* pad.c - ffmpeg's pad (vf_pad): the picture placed at (x, y) of a larger
 * w x h one filled with a colour (cl/pad.cl). The expressions are
 * evaluated once per input size in vf_pad's order, with its rounding. At
 * 16 bits each channel c of the colour is c * 257 (255: 65535), as
 * ffmpeg's ff_draw_color makes it for 16-bit RGB formats (gbrap16, which
 * vf_pad takes rgba64 to), and the picture is copied whole. */
#include "filters.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

enum { PAD_W, PAD_H, PAD_X, PAD_Y, PAD_COLOR, PAD_EVAL, PAD_ASPECT, PAD_PARAM_COUNT };

/* vf_pad's variables, in the order of its var_names (and of `choices`). */
enum {
    V_IN_W,
    V_IW,
    V_IN_H,
    V_IH,
    V_OUT_W,
    V_OW,
    V_OUT_H,
    V_OH,
    V_X,
    V_Y,
    V_A,
    V_SAR,
    V_DAR,
    V_HSUB,
    V_VSUB,
    V_COUNT
};
#define PAD_VARS "in_w|iw|in_h|ih|out_w|ow|out_h|oh|x|y|a|sar|dar|hsub|vsub"
/* What ffmpeg's option parser lets a number option's expression use. */
#define ASPECT_CONSTS "default|max|min|none|all"

static const char *const kernels[] = {"pad", NULL};

typedef struct pad_layout {
    int w, h, x, y; /* the output's size and where the input goes in it */
} pad_layout;

typedef struct pad_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    pad_layout at;    /* for the size of the last resize */
    int sized;
} pad_state;

/* C's conversion of a double to int as x86 does it (cvttsd2si, which vf_pad's
 * `s->w = res` compiles to): NaN and values beyond int give INT_MIN. */
static int to_int(double d)
{
    return d > -2147483649.0 && d < 2147483648.0 ? (int)d : INT_MIN;
}

/* The aspect option as ffmpeg's AV_OPT_TYPE_RATIONAL reads it: "N/D" as
 * written, else the expression's value (an integer as N/1, else av_d2q of
 * it). 0/0 (no aspect) for 0. */
static void aspect_of(const clv_value *v, int *num, int *den)
{
    const char *text = clv_value_text(v);
    int n, d;
    char c;
    *num = 0;
    *den = 1;
    if (sscanf(text, "%d%*1[:/]%d%c", &n, &d, &c) == 2 && d > 0 && n >= 0) {
        *num = n;
        *den = d;
        return;
    }
    /* the constants ffmpeg's options give every expression */
    char buf[64];
    const char *names[6];
    const double consts[5] = {0, DBL_MAX, 0, 0, -1};
    clv__expr_names(ASPECT_CONSTS, buf, sizeof buf, names, 6);
    clv__expr *e = NULL;
    if (clv__expr_parse(text, names, &e, NULL))
        return;
    double q = clv__expr_eval(e, consts);
    clv__expr_free(e);
    if (!(q >= 0)) /* out of the option's range: ffmpeg refuses it */
        return;
    if (q < 2147483648.0 && (double)(int)q == q) {
        *num = (int)q;
        *den = 1;
    } else
        clv__d2q(q, 1 << 24, num, den);
}

/* The aspect's value as ffmpeg's option takes it (an expression; "N/D"
 * reads as the division), which must lie in [0, DBL_MAX]: -1, 1/0 (inf)
 * and 0/0 (nan) are refused as ffmpeg refuses them. */
static int check(const clv_value *values, clv_msg *msg)
{
    char buf[64];
    const char *names[6];
    const double consts[5] = {0, DBL_MAX, 0, 0, -1};
    clv__expr_names(ASPECT_CONSTS, buf, sizeof buf, names, 6);
    clv__expr *e = NULL;
    if (clv__expr_parse(clv_value_text(&values[PAD_ASPECT]), names, &e, NULL))
        return 0; /* the parameter's own parse says where */
    double q = clv__expr_eval(e, consts);
    clv__expr_free(e);
    if (q >= 0 && q <= DBL_MAX)
        return 0;
    q = isnan(q) ? fabs(q) : q; /* "nan", not "-nan" */
    return clv__fail(msg, CLV_EPARSE,
                     "filter 'pad' parameter 'aspect': '%s' gives %g, out of range [0, %g]",
                     clv_value_text(&values[PAD_ASPECT]), q, DBL_MAX);
}

/* av_rescale(a, b, c): a * b / c rounded to nearest, halves away from 0. */
static int64_t rescale(int64_t a, int64_t b, int64_t c)
{
    if (c <= 0)
        return INT64_MIN;
    return a < 0 ? -((-a * b + c / 2) / c) : (a * b + c / 2) / c;
}

static int parse(const clv_value *v, int param, clv__expr **out, clv_msg *msg)
{
    char buf[256];
    const char *names[V_COUNT + 1];
    clv__expr_names(PAD_VARS, buf, sizeof buf, names, V_COUNT + 1);
    return clv__expr_parse(clv_value_text(&v[param]), names, out, msg);
}

/* vf_pad's config_input: where frames of *in go in which output size. An
 * unknown aspect reads as 1 (sar), where vf_pad's `aspect` fails on it. */
static int layout(const clv_value *v, const clv_size *in, pad_layout *at, clv_msg *msg)
{
    double vars[V_COUNT];
    const int iw = in->width, ih = in->height;
    const int known = in->sar_num > 0 && in->sar_den > 0;
    vars[V_IN_W] = vars[V_IW] = iw;
    vars[V_IN_H] = vars[V_IH] = ih;
    vars[V_OUT_W] = vars[V_OW] = vars[V_OUT_H] = vars[V_OH] = NAN;
    vars[V_X] = vars[V_Y] = NAN;
    vars[V_A] = (double)iw / ih;
    vars[V_SAR] = known ? (double)in->sar_num / in->sar_den : 1;
    vars[V_DAR] = vars[V_A] * vars[V_SAR];
    vars[V_HSUB] = vars[V_VSUB] = 1; /* RGBA: no chroma subsampling */
    clv__expr *e[4] = {NULL, NULL, NULL, NULL};
    int err = 0;
    for (int i = 0; i < 4 && !err; i++)
        err = parse(v, PAD_W + i, &e[i], msg);
    if (err)
        goto done;
        /* vf_pad's av_expr_parse_and_eval: a NaN is an error, but for the
         * first w and x (which may use oh and y) */
#define PAD_CHECK(param)                                                                           \
    if (isnan(res)) {                                                                              \
        err = clv__fail(msg, CLV_ERANGE, "%s '%s' is not a number (is it self-referencing?)",      \
                        &"w\0\0h\0\0x\0\0y"[3 * (param - PAD_W)], clv_value_text(&v[param]));      \
        goto done;                                                                                 \
    }
    double res = clv__expr_eval(e[PAD_W], vars);
    int w = to_int(res), h;
    vars[V_OUT_W] = vars[V_OW] = res;
    res = clv__expr_eval(e[PAD_H], vars);
    PAD_CHECK(PAD_H);
    h = to_int(res);
    vars[V_OUT_H] = vars[V_OH] = res;
    if (!h)
        vars[V_OUT_H] = vars[V_OH] = h = ih;
    res = clv__expr_eval(e[PAD_W], vars); /* again: w may use oh */
    PAD_CHECK(PAD_W);
    w = to_int(res);
    vars[V_OUT_W] = vars[V_OW] = res;
    if (!w)
        vars[V_OUT_W] = vars[V_OW] = w = iw;

    int an, ad;
    aspect_of(&v[PAD_ASPECT], &an, &ad);
    if (an && ad) {
        int sn = known ? in->sar_num : 1, sd = known ? in->sar_den : 1;
        clv__reduce(&an, &ad, (int64_t)an * sd, (int64_t)ad * sn, INT_MAX); /* av_div_q */
        if (h < rescale(w, ad, an))
            vars[V_OUT_H] = vars[V_OH] = h = (int)rescale(w, ad, an);
        else
            vars[V_OUT_W] = vars[V_OW] = w = (int)rescale(h, an, ad);
    }

    res = clv__expr_eval(e[PAD_X], vars);
    int x = to_int(res), y;
    vars[V_X] = res;
    res = clv__expr_eval(e[PAD_Y], vars);
    PAD_CHECK(PAD_Y);
    y = to_int(res);
    vars[V_Y] = res;
    res = clv__expr_eval(e[PAD_X], vars); /* again: x may use y */
    PAD_CHECK(PAD_X);
    x = to_int(res);
    vars[V_X] = res;
    /* vf_pad's int sums, which wrap (as gcc compiles them) */
    if (x < 0 || (int)((unsigned)x + (unsigned)iw) > w)
        x = (w - iw) / 2;
    if (y < 0 || (int)((unsigned)y + (unsigned)ih) > h)
        y = (h - ih) / 2;
    if (w < iw || h < ih) {
        err = clv__fail(msg, CLV_ERANGE,
                        "the padded size %dx%d (w '%s', h '%s') is smaller than the %dx%d input", w,
                        h, clv_value_text(&v[PAD_W]), clv_value_text(&v[PAD_H]), iw, ih);
        goto done;
    }
    if (x < 0 || y < 0 || w <= 0 || h <= 0 || (unsigned)x + (unsigned)iw > (unsigned)w ||
        (unsigned)y + (unsigned)ih > (unsigned)h) {
        err = clv__fail(msg, CLV_ERANGE,
                        "the %dx%d input at (%d, %d) is not within the padded %dx%d (x '%s', y "
                        "'%s')",
                        iw, ih, x, y, w, h, clv_value_text(&v[PAD_X]), clv_value_text(&v[PAD_Y]));
        goto done;
    }
    at->w = w;
    at->h = h;
    at->x = x;
    at->y = y;
done:
#undef PAD_CHECK
    for (int i = 0; i < 4; i++)
        clv__expr_free(e[i]);
    return err;
}

static int output_size(const clv_value *v, const clv_size *in, clv_size *out, clv_msg *msg)
{
    pad_layout at;
    int err = layout(v, in, &at, msg);
    if (!err) {
        out->width = at.w;
        out->height = at.h;
    }
    return err;
}

static int resize(void *state, clv_context *ctx, const clv_value *v, const clv_size *in,
                  const clv_size *out, clv_msg *msg)
{
    (void)ctx;
    (void)out;
    pad_state *s = state;
    int err = layout(v, in, &s->at, msg);
    s->sized = !err;
    return err;
}

/* The colour's bytes in memory order (R, G, B, A) as one value. */
static cl_uchar4 color_of(const clv_value *v)
{
    uint32_t c = (uint32_t)v[PAD_COLOR].i;
    cl_uchar4 p;
    p.s[0] = (cl_uchar)(c >> 24);
    p.s[1] = (cl_uchar)(c >> 16);
    p.s[2] = (cl_uchar)(c >> 8);
    p.s[3] = (cl_uchar)c;
    return p;
}

static int run(void *state, const clv_launch *l)
{
    pad_state *s = state;
    if (!s->sized)
        return CLV_EINVAL;
    cl_int ow = l->out_width, oh = l->out_height, os = l->out_stride;
    cl_int x = s->at.x, y = s->at.y;
    cl_uchar4 color = color_of(l->values);
    cl_ushort4 color16; /* the kernel's clv_px at 16 bits: each channel c * 257 */
    for (int c = 0; c < 4; c++)
        color16.s[c] = (cl_ushort)(color.s[c] * 257);
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 5, CLV__ARG(ow), CLV__ARG(oh), CLV__ARG(os),
                               CLV__ARG(x), CLV__ARG(y));
    if (!err)
        err = l->depth == 16 ? clv__kernel_args(s->kernel, 10, 1, CLV__ARG(color16))
                             : clv__kernel_args(s->kernel, 10, 1, CLV__ARG(color));
    return err ? err : clv__launch_pixels(l, s->kernel, ow, oh);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    pad_layout at;
    clv_size in = {src->width, src->height, 0, 1, 0, 0, 0};
    if (layout(v, &in, &at, NULL))
        return CLV_EINVAL;
    const cl_uchar4 color = color_of(v);
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++) {
            const int sx = x - at.x, sy = y - at.y;
            const int inside = sx >= 0 && sx < src->width && sy >= 0 && sy < src->height;
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c,
                         inside ? clv__get(src, sx, sy, c) : clv__scale8(dst, color.s[c]));
        }
    return 0;
}

static const clv_param params[] = {
    {"w", CLV_PARAM_EXPR, "iw", 0, 0, PAD_VARS, "width of the padded picture; 0: the input's", 0},
    {"h", CLV_PARAM_EXPR, "ih", 0, 0, PAD_VARS, "height of the padded picture; 0: the input's", 0},
    {"x", CLV_PARAM_EXPR, "0", 0, 0, PAD_VARS,
     "left edge of the input in it; negative or too far: centred", 0},
    {"y", CLV_PARAM_EXPR, "0", 0, 0, PAD_VARS,
     "top edge of the input in it; negative or too far: centred", 0},
    {"color", CLV_PARAM_COLOR, "black", 0, 0, NULL,
     "colour of the padding, alpha included (\"red\", \"0x00ff0080\", \"black@0.5\")", 0},
    {"eval", CLV_PARAM_ENUM, "init", 0, 1, "init|frame",
     "when to evaluate the expressions; the same here (no per-frame variables)", 1},
    {"aspect", CLV_PARAM_EXPR, "0", 0, 0, ASPECT_CONSTS,
     "pad to this display aspect (\"16/9\") instead of w x h; 0: none", 0},
};
_Static_assert(sizeof params / sizeof params[0] == PAD_PARAM_COUNT,
               "pad: the enum and the params table differ");

static const char *const aliases[] = {"width", "w", "height", "h", NULL};

const clv_filter clv__filter_pad = {
    .name = "pad",
    .help = "the picture at (x, y) of a w x h one of a colour (ffmpeg's pad)",
    .params = params,
    .param_count = PAD_PARAM_COUNT,
    .check = check,
    .program = "pad",
    .output_size = output_size,
    .aliases = aliases,
    .state_size = sizeof(pad_state),
    .kernels = kernels,
    .deep = 1,
    .resize = resize,
    .run = run,
    .reference = reference,
};
