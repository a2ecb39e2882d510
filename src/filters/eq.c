/* eq.c - ffmpeg's eq (libavfilter/vf_eq.c): contrast, brightness,
 * saturation and gamma on Y'CbCr (ycbcr.h: BT.601 limited range, the
 * conversion ffmpeg makes for eq on RGB input), cl/eq.cl.
 *
 * vf_eq gives each plane a curve: Y' gets contrast, brightness and gamma *
 * gamma_g, Cb (U) contrast = saturation and gamma sqrt(gamma_b / gamma_g),
 * Cr (V) saturation and sqrt(gamma_r / gamma_g), all weighted by
 * gamma_weight; a plane whose curve is the identity is copied, one with
 * gamma 1 and |contrast| < 7.9 goes through its integer arithmetic
 * (process_c), the rest through the table create_lut builds in double.
 * Here each curve is a table built the same way on the host: at 8 bits
 * ffmpeg's own 256 codes exactly (its float-rounded parameters, its
 * truncations); at 16 bits the same formulas on 65536 codes, code i being
 * the 8-bit code i / 256 (create_lut's v = i / 65280, its 256 v becoming
 * 65536 v capped at 65280, 255 * 256; process_c's brightness term * 256).
 * The kernel reads the table between entries at each component's fraction
 * (cl/eq.cl), so an identity curve changes nothing and the picture comes
 * back bit for bit when nothing is adjusted.
 *
 * The expressions are ffmpeg's, over n, pos, r and t: with eval=init once,
 * with n, pos, r and t 0 (vf_eq evaluates them before it knows its
 * input); with eval=frame every frame, with n the frame's index, t its
 * time, and pos and r NAN (a frame's byte position and the rate are not
 * known here). */
#include "ycbcr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    EQ_CONTRAST,
    EQ_BRIGHTNESS,
    EQ_SATURATION,
    EQ_GAMMA,
    EQ_GAMMA_R,
    EQ_GAMMA_G,
    EQ_GAMMA_B,
    EQ_GAMMA_WEIGHT,
    EQ_EXPRS, /* the expressions come first */
    EQ_EVAL = EQ_EXPRS,
    EQ_PARAM_COUNT
};

#define EQ_VARS "n|pos|r|t"
enum { V_N, V_POS, V_R, V_T, V_COUNT };

/* One plane's curve, as vf_eq's EQParameters. */
typedef struct eq_curve {
    double brightness, contrast, gamma, gamma_weight;
} eq_curve;

/* The expressions of a chain's values, parsed. */
typedef struct eq_exprs {
    clv__expr *e[EQ_EXPRS];
} eq_exprs;

static void exprs_free(eq_exprs *x)
{
    for (int i = 0; i < EQ_EXPRS; i++) {
        clv__expr_free(x->e[i]);
        x->e[i] = NULL;
    }
}

static int exprs_parse(const clv_value *values, eq_exprs *x, clv_msg *msg)
{
    char buf[64];
    const char *names[V_COUNT + 1];
    clv__expr_names(EQ_VARS, buf, sizeof buf, names, V_COUNT + 1);
    for (int i = 0; i < EQ_EXPRS; i++) {
        int err = clv__expr_parse(clv_value_text(&values[i]), names, &x->e[i], msg);
        if (err) {
            exprs_free(x);
            return err;
        }
    }
    return 0;
}

/* The expressions' values for frame n at time t (init: every variable 0). */
static void exprs_eval(const eq_exprs *x, int frame_eval, uint64_t n, double t,
                       double out[EQ_EXPRS])
{
    double vars[V_COUNT] = {0, 0, 0, 0};
    if (frame_eval) {
        vars[V_N] = (double)n;
        vars[V_POS] = NAN;
        vars[V_R] = NAN;
        vars[V_T] = t;
    }
    for (int i = 0; i < EQ_EXPRS; i++)
        out[i] = clv__expr_eval(x->e[i], vars);
}

/* libavutil's av_clipf as x86 builds it (minss, then maxss): the value as
 * a float, NAN giving the maximum. */
static double clipf(double a, double lo, double hi)
{
    float v = (float)a, mn = (float)lo, mx = (float)hi;
    v = v < mx ? v : mx;
    return v > mn ? v : mn;
}

/* vf_eq's set_gamma, set_contrast, set_brightness and set_saturation. */
static void curves(const double v[EQ_EXPRS], eq_curve c[3])
{
    double gamma = clipf(v[EQ_GAMMA], 0.1, 10.0), gamma_r = clipf(v[EQ_GAMMA_R], 0.1, 10.0);
    double gamma_g = clipf(v[EQ_GAMMA_G], 0.1, 10.0), gamma_b = clipf(v[EQ_GAMMA_B], 0.1, 10.0);
    double weight = clipf(v[EQ_GAMMA_WEIGHT], 0.0, 1.0);
    double saturation = clipf(v[EQ_SATURATION], 0.0, 3.0);
    c[0].contrast = clipf(v[EQ_CONTRAST], -1000.0, 1000.0);
    c[0].brightness = clipf(v[EQ_BRIGHTNESS], -1.0, 1.0);
    c[0].gamma = gamma * gamma_g;
    c[1].gamma = sqrt(gamma_b / gamma_g);
    c[2].gamma = sqrt(gamma_r / gamma_g);
    for (int i = 0; i < 3; i++) {
        c[i].gamma_weight = weight;
        if (i) {
            c[i].contrast = saturation;
            c[i].brightness = 0;
        }
    }
}

/* C's conversion of a double to int as x86 makes it: NAN and values past
 * int give INT_MIN. */
static int to_int(double d)
{
    return d > -2147483649.0 && d < 2147483648.0 ? (int)d : INT32_MIN;
}

/* The n + 1 codes of a curve at a depth (n = 256 or 65536; the last entry
 * repeats the one before, for the kernel's reading between entries). */
static void curve_table(const eq_curve *c, int depth, uint16_t *lut)
{
    const int unit = depth == 16 ? 256 : 1, n = 256 * unit, top = 255 * unit;
    if (c->contrast == 1.0 && c->brightness == 0.0 && c->gamma == 1.0) {
        for (int i = 0; i < n; i++)
            lut[i] = (uint16_t)i; /* ffmpeg copies the plane */
    } else if (c->gamma == 1.0 && fabs(c->contrast) < 7.9) {
        /* process_c (and its SSE2 twin, which computes the same) */
        int contrast = to_int(c->contrast * 256 * 16);
        int brightness = (to_int(100.0 * c->brightness + 100.0) * 511) / 200 - 128 - contrast / 32;
        for (int i = 0; i < n; i++) {
            int64_t pel = (((int64_t)i * contrast) >> 12) + (int64_t)brightness * unit;
            lut[i] = (uint16_t)(pel < 0 ? 0 : pel > top ? top : pel);
        }
    } else {
        /* create_lut */
        double g = 1.0 / c->gamma, lw = 1.0 - c->gamma_weight;
        for (int i = 0; i < n; i++) {
            double v = i / (255.0 * unit);
            v = c->contrast * (v - 0.5) + 0.5 + c->brightness;
            if (v <= 0.0) {
                lut[i] = 0;
                continue;
            }
            v = v * lw + pow(v, g) * c->gamma_weight;
            if (v >= 1.0) {
                lut[i] = (uint16_t)top;
            } else {
                /* a NAN converts to INT_MIN, whose low byte ffmpeg stores */
                int code = isnan(v) ? 0 : to_int(256.0 * unit * v);
                lut[i] = (uint16_t)(code > top ? top : code);
            }
        }
    }
    lut[n] = lut[n - 1];
}

/* The three tables of a set of values, one after the other. */
static void tables(const double v[EQ_EXPRS], int depth, uint16_t *luts)
{
    eq_curve c[3];
    curves(v, c);
    const int n = depth == 16 ? 65536 : 256;
    for (int i = 0; i < 3; i++)
        curve_table(&c[i], depth, luts + (size_t)i * (size_t)(n + 1));
}

typedef struct eq_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem ycc, luts;
    int depth;
    eq_exprs exprs;
    int frame_eval;
    int built; /* the device's tables are those of `now` */
    double now[EQ_EXPRS];
    uint16_t *host; /* the tables as built (3 x (n + 1)) */
} eq_state;

static const char *const kernels[] = {"eq", NULL};

static size_t table_count(int depth)
{
    return 3 * (size_t)((depth == 16 ? 65536 : 256) + 1);
}

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    eq_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    clv__ycc m;
    clv__ycc_make(s->depth, &m);
    int err = clv__ycc_upload(ctx, &m, &s->ycc, "eq", msg);
    if (err)
        return err;
    size_t count = table_count(s->depth);
    s->host = malloc(count * sizeof *s->host);
    cl_int st = CL_SUCCESS;
    s->luts = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, count * (size_t)(s->depth / 8), NULL, &st);
    if (!s->host || st != CL_SUCCESS)
        return clv__fail(msg, CLV_ENOMEM, "eq: cannot allocate its tables: %s",
                         clv__cl_strerror(st));
    return 0;
}

static void uninit(void *state)
{
    eq_state *s = state;
    exprs_free(&s->exprs);
    clv__mem_release(&s->ycc);
    clv__mem_release(&s->luts);
    free(s->host);
    s->host = NULL;
}

/* Builds and uploads the tables of values v unless the device has them. */
static int update(eq_state *s, cl_command_queue queue, const double v[EQ_EXPRS], clv_msg *msg)
{
    if (s->built && !memcmp(v, s->now, sizeof s->now))
        return 0;
    tables(v, s->depth, s->host);
    size_t count = table_count(s->depth);
    cl_int st;
    if (s->depth == 16) {
        st = clEnqueueWriteBuffer(queue, s->luts, CL_TRUE, 0, count * sizeof(cl_ushort), s->host, 0,
                                  NULL, NULL);
    } else {
        /* the 8-bit kernel reads bytes: the codes (all below 256) narrowed
         * in place, each byte written before the codes still to be read */
        uint8_t *bytes = (uint8_t *)s->host;
        for (size_t i = 0; i < count; i++)
            bytes[i] = (uint8_t)s->host[i];
        st = clEnqueueWriteBuffer(queue, s->luts, CL_TRUE, 0, count, bytes, 0, NULL, NULL);
    }
    s->built = st == CL_SUCCESS;
    memcpy(s->now, v, sizeof s->now);
    return st == CL_SUCCESS
               ? 0
               : clv__fail(msg, CLV_ECL, "eq: cannot upload its tables: %s", clv__cl_strerror(st));
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    eq_state *s = state;
    exprs_free(&s->exprs);
    s->built = 0;
    int err = exprs_parse(values, &s->exprs, msg);
    if (err)
        return err;
    s->frame_eval = values[EQ_EVAL].i == 1;
    if (s->frame_eval)
        return 0;
    double v[EQ_EXPRS];
    exprs_eval(&s->exprs, 0, 0, 0, v);
    return update(s, ctx->queue, v, msg);
}

static int run(void *state, const clv_launch *l)
{
    eq_state *s = state;
    if (s->frame_eval) {
        double v[EQ_EXPRS];
        exprs_eval(&s->exprs, 1, l->frame_index, l->time, v);
        int err = update(s, l->queue, v, NULL);
        if (err)
            return err;
    }
    cl_int n = s->depth == 16 ? 65536 : 256;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 3, CLV__ARG(s->ycc), CLV__ARG(s->luts), CLV__ARG(n));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

/* The kernel's reading of a table between its entries (cl/eq.cl). */
static int64_t component(const uint16_t *lut, int64_t v, int n)
{
    int64_t top = ((int64_t)n << 8) - 1;
    v = v < 0 ? 0 : v > top ? top : v;
    int64_t k = v >> 8, lo = lut[k], hi = lut[k + 1];
    return (lo << 8) + (hi - lo) * (v & 255);
}

static int reference_at(void *ref_state, const clv_value *values, const clv_image *src,
                        clv_image *dst, uint64_t frame_index, double time)
{
    (void)ref_state;
    eq_exprs x = {{NULL}};
    if (exprs_parse(values, &x, NULL))
        return CLV_EINVAL;
    double v[EQ_EXPRS];
    exprs_eval(&x, values[EQ_EVAL].i == 1, frame_index, time, v);
    exprs_free(&x);
    const int depth = clv__depth(src), n = depth == 16 ? 65536 : 256, maxv = clv__maxv(src);
    uint16_t *luts = malloc(table_count(depth) * sizeof *luts);
    if (!luts)
        return CLV_ENOMEM;
    tables(v, depth, luts);
    clv__ycc m;
    clv__ycc_make(depth, &m);
    for (int y = 0; y < src->height; y++)
        for (int xx = 0; xx < src->width; xx++) {
            int64_t c[3];
            clv__ycc_from_rgb(&m, clv__get(src, xx, y, 0), clv__get(src, xx, y, 1),
                              clv__get(src, xx, y, 2), c);
            for (int j = 0; j < 3; j++)
                c[j] = component(luts + (size_t)j * (size_t)(n + 1), c[j], n);
            for (int i = 0; i < 3; i++)
                clv__put(dst, xx, y, i, clv__ycc_channel(&m, c, i, maxv));
            clv__put(dst, xx, y, 3, clv__get(src, xx, y, 3));
        }
    free(luts);
    return 0;
}

static const clv_param params[] = {
    {"contrast", CLV_PARAM_EXPR, "1.0", 0, 0, EQ_VARS,
     "contrast of Y' (-1000 to 1000; negative: a negative image)", 0},
    {"brightness", CLV_PARAM_EXPR, "0.0", 0, 0, EQ_VARS, "brightness added to Y' (-1 to 1)", 0},
    {"saturation", CLV_PARAM_EXPR, "1.0", 0, 0, EQ_VARS,
     "saturation: Cb and Cr's contrast (0 to 3)", 0},
    {"gamma", CLV_PARAM_EXPR, "1.0", 0, 0, EQ_VARS, "gamma of Y' (0.1 to 10)", 0},
    {"gamma_r", CLV_PARAM_EXPR, "1.0", 0, 0, EQ_VARS, "gamma of red (0.1 to 10)", 0},
    {"gamma_g", CLV_PARAM_EXPR, "1.0", 0, 0, EQ_VARS, "gamma of green (0.1 to 10)", 0},
    {"gamma_b", CLV_PARAM_EXPR, "1.0", 0, 0, EQ_VARS, "gamma of blue (0.1 to 10)", 0},
    {"gamma_weight", CLV_PARAM_EXPR, "1.0", 0, 0, EQ_VARS,
     "how much of gamma applies (0 to 1): less spares the bright areas", 0},
    {"eval", CLV_PARAM_ENUM, "init", 0, 1, "init|frame",
     "evaluate the expressions once, or every frame (n, t)", 1},
};
_Static_assert(sizeof params / sizeof params[0] == EQ_PARAM_COUNT,
               "eq: the enum and the params table differ");

const clv_filter clv__filter_eq = {
    .name = "eq",
    .help = "brightness, contrast, saturation and gamma (ffmpeg's eq, on BT.601 Y'CbCr)",
    .params = params,
    .param_count = EQ_PARAM_COUNT,
    .program = "eq",
    .kernels = kernels,
    .deep = 1,
    .state_size = sizeof(eq_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference_at = reference_at,
};
