/* lut.c - ffmpeg's lut and lutrgb (vf_lut.c, 5.1) on RGBA frames
 * (cl/lut.cl): each channel through a table its expression gives, built
 * once per input size as ffmpeg's config_props builds it on RGB formats:
 *
 *   for every value v of the depth (0..255, 0..65535 at 16 bits, as
 *   ffmpeg's rgba and rgba64): val = clipval = v, negval = maxval - v,
 *   minval 0, maxval 255 (65535), w and h the input's size; the table
 *   holds clip((int)expr, 0, maxval), (int) truncating and giving INT_MIN
 *   beyond int as x86 does (so 0 there). gammaval(g) = ((clipval - minval) /
 *   (maxval - minval))^g (maxval - minval) + minval; gammaval709(g) the
 *   Rec.709 curve of its level (4.5 l below 0.018, else 1.099 l^(1/g) -
 *   0.099), in double as ffmpeg's.
 *
 * ffmpeg evaluates 65536 values at every depth (clipval maxval and negval
 * 0 past maxval), one parsed expression a channel whose st/ld registers
 * carry from value to value; so does clvid. r, g, b, a (c0..c3; y, u, v
 * for the first three) name R, G, B and alpha, as lut and lutrgb do on
 * ffmpeg's RGB frames; at 16 bits the expressions see 16-bit values, as
 * ffmpeg's on rgba64. A value that is not a number is refused naming the
 * expression, the channel and the value, as ffmpeg refuses it. On Y'CbCr
 * video ffmpeg's lut works on Y, Cb and Cr (lutyuv, which clvid does not
 * have: its frames are RGBA). */
#include "filters.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* vf_lut's variables, in the order of its var_names; its functions after. */
enum { V_W, V_H, V_VAL, V_MAXVAL, V_MINVAL, V_NEGVAL, V_CLIPVAL, V_COUNT };
#define LUT_VARS "w|h|val|maxval|minval|negval|clipval|gammaval()|gammaval709()"
#define LUT_NAMES (V_COUNT + 2)

typedef struct lut_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem tab;
    int depth, built;
    cl_int use[4]; /* 0 where a channel's table is the identity */
} lut_state;

/* C's conversion of a double to int as x86 does it: NaN and values beyond
 * int give INT_MIN. */
static int to_int(double d)
{
    return d > -2147483649.0 && d < 2147483648.0 ? (int)d : INT_MIN;
}

static int clip_int(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static double fn_gammaval(const double *v, double gamma)
{
    const double val = v[V_CLIPVAL], lo = v[V_MINVAL], hi = v[V_MAXVAL];
    return pow((val - lo) / (hi - lo), gamma) * (hi - lo) + lo;
}

static double fn_gammaval709(const double *v, double gamma)
{
    const double val = v[V_CLIPVAL], lo = v[V_MINVAL], hi = v[V_MAXVAL];
    double level = (val - lo) / (hi - lo);
    level = level < 0.018 ? 4.5 * level : 1.099 * pow(level, 1.0 / gamma) - 0.099;
    return level * (hi - lo) + lo;
}

/* vf_lut's func1 clip(x) is never reached: libavutil's own clip(x, min,
 * max) takes the name first, so `clip(val)` is an error there as here. */
static const clv__expr_fn functions[LUT_NAMES] = {[V_COUNT] = fn_gammaval,
                                                  [V_COUNT + 1] = fn_gammaval709};

/* The four tables, maxv + 1 values each (R's, G's, B's, A's), for a w x h
 * input; *out is malloc'd. */
static int tables(const clv_value *v, int w, int h, int maxv, uint16_t **out, const char *filter,
                  clv_msg *msg)
{
    static const char *const rgba[4] = {"r", "g", "b", "a"}, *const cn[4] = {"c0", "c1", "c2",
                                                                             "c3"};
    const char *const *channel = strcmp(filter, "lut") ? rgba : cn;
    char buf[128];
    const char *names[LUT_NAMES + 1];
    clv__expr_names(LUT_VARS, buf, sizeof buf, names, LUT_NAMES + 1);
    const size_t n = (size_t)maxv + 1;
    uint16_t *t = malloc(4 * n * sizeof *t);
    if (!t)
        return clv__fail(msg, CLV_ENOMEM, "%s: no memory for its tables", filter);
    double vars[LUT_NAMES] = {0};
    vars[V_W] = w;
    vars[V_H] = h;
    vars[V_MAXVAL] = maxv;
    vars[V_MINVAL] = 0;
    for (int c = 0; c < 4; c++) {
        clv__expr *e = NULL;
        int err = clv__expr_parse_with(clv_value_text(&v[c]), names, functions, &e, msg);
        /* ffmpeg's table has 65536 values at every depth and evaluates them
         * all in order, one expression whose registers carry over (st, ld,
         * random); past maxval clipval is maxval and negval 0, and a NaN
         * there is refused as anywhere. */
        double regs[CLV__EXPR_REGS] = {0};
        for (int val = 0; !err && val <= 65535; val++) {
            vars[V_VAL] = val;
            vars[V_CLIPVAL] = val < maxv ? val : maxv;
            vars[V_NEGVAL] = val < maxv ? maxv - val : 0;
            const double res = clv__expr_eval_regs(e, vars, regs);
            if (isnan(res))
                err = clv__fail(msg, CLV_ERANGE,
                                "%s '%s' is not a number for the value %d; ffmpeg refuses it too",
                                channel[c], clv_value_text(&v[c]), val);
            else if (val <= maxv)
                t[(size_t)c * n + (size_t)val] = (uint16_t)clip_int(to_int(res), 0, maxv);
        }
        clv__expr_free(e);
        if (err) {
            free(t);
            return err;
        }
    }
    *out = t;
    return 0;
}

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    (void)msg;
    lut_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    return 0;
}

static void uninit(void *state)
{
    lut_state *s = state;
    clv__mem_release(&s->tab);
}

static int resize_any(void *state, clv_context *ctx, const clv_value *v, const clv_size *in,
                      const char *filter, clv_msg *msg)
{
    lut_state *s = state;
    const int maxv = s->depth == 16 ? 65535 : 255;
    uint16_t *t = NULL;
    int err = tables(v, in->width, in->height, maxv, &t, filter, msg);
    if (err)
        return err;
    const size_t n = 4 * ((size_t)maxv + 1);
    for (int c = 0; c < 4; c++) {
        s->use[c] = 0;
        for (int val = 0; val <= maxv && !s->use[c]; val++)
            s->use[c] = t[(size_t)c * ((size_t)maxv + 1) + (size_t)val] != val;
    }
    uint8_t *bytes = (uint8_t *)t;
    if (maxv == 255) /* the tables as uchar at 8 bits (in place: each byte before its value) */
        for (size_t i = 0; i < n; i++)
            bytes[i] = (uint8_t)t[i];
    clv__mem_release(&s->tab);
    cl_int cl = CL_SUCCESS;
    s->tab = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            n * (maxv == 255 ? 1 : 2), t, &cl);
    free(t);
    s->built = cl == CL_SUCCESS;
    if (cl != CL_SUCCESS)
        return clv__fail(msg, CLV_ENOMEM, "%s: cannot allocate its tables on %s: %s", filter,
                         ctx->dev.name, clv__cl_strerror(cl));
    return 0;
}

static int resize_lut(void *state, clv_context *ctx, const clv_value *v, const clv_size *in,
                      const clv_size *out, clv_msg *msg)
{
    (void)out;
    return resize_any(state, ctx, v, in, "lut", msg);
}

static int resize_lutrgb(void *state, clv_context *ctx, const clv_value *v, const clv_size *in,
                         const clv_size *out, clv_msg *msg)
{
    (void)out;
    return resize_any(state, ctx, v, in, "lutrgb", msg);
}

/* The expressions checked on the input's size at configuration (a NaN
 * found here, not at the first frame), at 8 bits. */
static int sized(const clv_value *v, const clv_size *in, clv_size *out, const char *filter,
                 clv_msg *msg)
{
    uint16_t *t = NULL;
    *out = *in;
    int err = tables(v, in->width, in->height, 255, &t, filter, msg);
    free(t);
    return err;
}

static int output_size_lut(const clv_value *v, const clv_size *in, clv_size *out, clv_msg *msg)
{
    return sized(v, in, out, "lut", msg);
}

static int output_size_lutrgb(const clv_value *v, const clv_size *in, clv_size *out, clv_msg *msg)
{
    return sized(v, in, out, "lutrgb", msg);
}

static int run(void *state, const clv_launch *l)
{
    lut_state *s = state;
    if (!s->built)
        return CLV_EINVAL;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err && clv__kernel_mem_arg(s->kernel, 5, s->tab, NULL) != CL_SUCCESS)
        err = CLV_ECL;
    cl_int4 use = {{s->use[0], s->use[1], s->use[2], s->use[3]}};
    if (!err)
        err = clv__kernel_args(s->kernel, 6, 1, CLV__ARG(use));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

/* The reference's tables, kept while the expressions, size and depth
 * stay (at 16 bits a table is 262,144 evaluations). */
typedef struct lut_ref {
    uint16_t *t;
    int w, h, maxv;
    char text[4][CLV_EXPR_MAX + 1];
} lut_ref;

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)frame_index;
    lut_ref *r = ref_state;
    const int maxv = clv__maxv(src);
    int same = r->t && r->w == src->width && r->h == src->height && r->maxv == maxv;
    for (int c = 0; c < 4 && same; c++)
        same = !strcmp(r->text[c], clv_value_text(&v[c]));
    if (!same) {
        free(r->t);
        r->t = NULL;
        if (tables(v, src->width, src->height, maxv, &r->t, "lut", NULL))
            return CLV_EINVAL;
        r->w = src->width;
        r->h = src->height;
        r->maxv = maxv;
        for (int c = 0; c < 4; c++)
            snprintf(r->text[c], sizeof r->text[c], "%s", clv_value_text(&v[c]));
    }
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c,
                         r->t[(size_t)c * ((size_t)maxv + 1) + clv__get(src, x, y, c)]);
    return 0;
}

static void reference_uninit(void *ref_state)
{
    lut_ref *r = ref_state;
    free(r->t);
    r->t = NULL;
}

#define LUT_HELP(what) "expression of val, the " what " in (ffmpeg's; default clipval: as it is)"
static const clv_param lut_params[] = {
    {"c0", CLV_PARAM_EXPR, "clipval", 0, 0, LUT_VARS, LUT_HELP("red"), 0},
    {"c1", CLV_PARAM_EXPR, "clipval", 0, 0, LUT_VARS, LUT_HELP("green"), 0},
    {"c2", CLV_PARAM_EXPR, "clipval", 0, 0, LUT_VARS, LUT_HELP("blue"), 0},
    {"c3", CLV_PARAM_EXPR, "clipval", 0, 0, LUT_VARS, LUT_HELP("alpha"), 0},
};
static const clv_param lutrgb_params[] = {
    {"r", CLV_PARAM_EXPR, "clipval", 0, 0, LUT_VARS, LUT_HELP("red"), 0},
    {"g", CLV_PARAM_EXPR, "clipval", 0, 0, LUT_VARS, LUT_HELP("green"), 0},
    {"b", CLV_PARAM_EXPR, "clipval", 0, 0, LUT_VARS, LUT_HELP("blue"), 0},
    {"a", CLV_PARAM_EXPR, "clipval", 0, 0, LUT_VARS, LUT_HELP("alpha"), 0},
};
#undef LUT_HELP
_Static_assert(sizeof lut_params / sizeof lut_params[0] == 4, "lut: four channels");
_Static_assert(sizeof lutrgb_params / sizeof lutrgb_params[0] == 4, "lutrgb: four channels");

/* ffmpeg's lut filters share one option table: c0..c3, y, u, v, r, g, b,
 * a; on RGB frames y, u and v name components 0, 1 and 2 (R, G, B). */
static const char *const lut_aliases[] = {"r", "c0", "g", "c1", "b", "c2", "a", "c3",
                                          "y", "c0", "u", "c1", "v", "c2", NULL};
static const char *const lutrgb_aliases[] = {"c0", "r", "c1", "g", "c2", "b", "c3", "a",
                                             "y",  "r", "u",  "g", "v",  "b", NULL};
static const char *const kernels[] = {"lut", NULL};

const clv_filter clv__filter_lut = {
    .name = "lut",
    .help = "each channel through a table of an expression of its value (ffmpeg's lut on RGB)",
    .params = lut_params,
    .param_count = 4,
    .program = "lut",
    .output_size = output_size_lut,
    .aliases = lut_aliases,
    .state_size = sizeof(lut_state),
    .kernels = kernels,
    .deep = 1,
    .init = init,
    .uninit = uninit,
    .resize = resize_lut,
    .run = run,
    .ref_state_size = sizeof(lut_ref),
    .reference = reference,
    .reference_uninit = reference_uninit,
};

const clv_filter clv__filter_lutrgb = {
    .name = "lutrgb",
    .help = "R, G, B and alpha through tables of expressions of their values (ffmpeg's lutrgb)",
    .params = lutrgb_params,
    .param_count = 4,
    .program = "lut",
    .output_size = output_size_lutrgb,
    .aliases = lutrgb_aliases,
    .state_size = sizeof(lut_state),
    .kernels = kernels,
    .deep = 1,
    .init = init,
    .uninit = uninit,
    .resize = resize_lutrgb,
    .run = run,
    .ref_state_size = sizeof(lut_ref),
    .reference = reference,
    .reference_uninit = reference_uninit,
};
