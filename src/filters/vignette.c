/* vignette.c - ffmpeg's vignette (libavfilter/vf_vignette.c): the picture
 * darkened towards its edges as by a lens, or (mode=backward) the same
 * undone; on RGB as ffmpeg does it for rgb24, alpha kept; cl/vignette.cl.
 *
 * vf_vignette computes a factor for each pixel in double and keeps it as a
 * float: with xx = (int)((x - x0) * xscale), yy = (int)((y - y0) * yscale)
 * and d = hypot(xx, yy) / hypot(w / 2, h / 2), the factor is 0 past d = 1
 * and cos(angle * d)^4 within (its inverse with mode=backward); a channel
 * becomes (int)(c * factor + dither), clamped. Here the host computes the
 * same map for each frame size (its resize hook) in double and float as
 * vf_vignette does, and uploads it in 16.16 fixed point; the kernel
 * multiplies in integers: out = min((c * f + d) >> 16, maxv), with d the
 * dither's 16 top bits (cl/vignette.cl has the dither and the encoding of
 * the factors past 32767, which mode=backward makes near a factor of 0,
 * where ffmpeg's conversion of a product past 2^31 to int gives black).
 *
 * The dither is ffmpeg's own: its generator's draws in its order (red,
 * green, blue of each pixel, row after row, frame after frame from 0), so
 * frame n starts at draw 3 n w h; the kernel jumps to any draw, and the
 * output depends on the frame's index only. dither=0: truncation.
 *
 * The expressions are over w, h, n, t and pts (t here) and tb (1), r NAN:
 * with eval=init they are evaluated once a size with n, t and pts NAN, and
 * when that gives NAN (they use n or t) every frame, as ffmpeg does; with
 * eval=frame every frame. The aspect is the input's sample aspect ratio
 * (its reference here: 1) and `aspect`, as vf_vignette's xscale and
 * yscale. At 16 bits the same map on 16-bit channels, and the dither's
 * draws a fraction of a 16-bit level (ffmpeg's vignette takes 8-bit
 * formats only). */
#include "filters.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VIG_ANGLE, VIG_X0, VIG_Y0, VIG_MODE, VIG_EVAL, VIG_DITHER, VIG_ASPECT, VIG_PARAM_COUNT };

#define VIG_VARS "w|h|n|pts|r|t|tb"
enum { V_W, V_H, V_N, V_PTS, V_R, V_T, V_TB, V_COUNT };

#define VIG_PI 3.14159265358979323846

/* angle, x0 and y0, parsed. */
typedef struct vig_exprs {
    clv__expr *angle, *x0, *y0;
} vig_exprs;

static void exprs_free(vig_exprs *x)
{
    clv__expr_free(x->angle);
    clv__expr_free(x->x0);
    clv__expr_free(x->y0);
    x->angle = x->x0 = x->y0 = NULL;
}

static int exprs_parse(const clv_value *values, vig_exprs *x, clv_msg *msg)
{
    char buf[64];
    const char *names[V_COUNT + 1];
    clv__expr_names(VIG_VARS, buf, sizeof buf, names, V_COUNT + 1);
    int err = clv__expr_parse(clv_value_text(&values[VIG_ANGLE]), names, &x->angle, msg);
    if (!err)
        err = clv__expr_parse(clv_value_text(&values[VIG_X0]), names, &x->x0, msg);
    if (!err)
        err = clv__expr_parse(clv_value_text(&values[VIG_Y0]), names, &x->y0, msg);
    if (err)
        exprs_free(x);
    return err;
}

/* What the map depends on besides the size and aspect. */
typedef struct vig_lens {
    double angle, x0, y0;
} vig_lens;

/* The expressions for a w x h input; frame: at frame n, time t (else n, t
 * and pts NAN, as at configuration). 1 when one of them is NAN (ffmpeg then
 * evaluates them every frame). */
static int lens_eval(const vig_exprs *x, int w, int h, int frame, uint64_t n, double t,
                     vig_lens *out)
{
    double vars[V_COUNT];
    vars[V_W] = w;
    vars[V_H] = h;
    vars[V_N] = frame ? (double)n : NAN;
    vars[V_PTS] = vars[V_T] = frame ? t : NAN;
    vars[V_R] = NAN;
    vars[V_TB] = 1;
    out->angle = clv__expr_eval(x->angle, vars);
    out->x0 = clv__expr_eval(x->x0, vars);
    out->y0 = clv__expr_eval(x->y0, vars);
    return isnan(out->angle) || isnan(out->x0) || isnan(out->y0);
}

/* C's conversion of a double to int as x86 makes it: NAN and values past
 * int give INT_MIN. */
static int to_int(double d)
{
    return d > -2147483649.0 && d < 2147483648.0 ? (int)d : INT32_MIN;
}

/* What ffmpeg's option parser gives a number option's expression: its
 * default (1), max, min, none and all. */
#define ASPECT_CONSTS "default|max|min|none|all"

/* The aspect parameter's value: "NUM/DEN" or "NUM:DEN", or an expression
 * (NAN when it does not parse). */
static double aspect_of(const clv_value *values)
{
    const char *text = clv_value_text(&values[VIG_ASPECT]);
    int n, d;
    char c;
    if (sscanf(text, "%d%*1[:/]%d%c", &n, &d, &c) == 2 && d > 0)
        return (double)n / d;
    char buf[64];
    const char *names[6];
    const double consts[5] = {1, DBL_MAX, 0, 0, -1};
    clv__expr_names(ASPECT_CONSTS, buf, sizeof buf, names, 6);
    clv__expr *e = NULL;
    if (clv__expr_parse(text, names, &e, NULL))
        return NAN;
    double a = clv__expr_eval(e, consts);
    clv__expr_free(e);
    return a;
}

/* The w x h map (16.16 factors, cl/vignette.cl's encoding) of a lens, for
 * a sample aspect ratio sar_num:sar_den (0 or 0:0 for unknown) and frames
 * of depth 8 or 16. ffmpeg's products past 2^31 (black) are on the 8-bit
 * scale: at 16 bits the limit is 2^31 * 257, so that a 16-bit picture
 * darkens where the 8-bit one does. */
static void make_map(const clv_value *values, const vig_lens *lens, int w, int h, int sar_num,
                     int sar_den, int depth, uint32_t *map)
{
    if (sar_num <= 0 || sar_den <= 0)
        sar_num = sar_den = 1;
    double aspect = aspect_of(values), sar = (double)sar_num / sar_den;
    float xscale = 1, yscale = 1;
    if (sar_num > sar_den)
        xscale = (float)(sar / aspect);
    else
        yscale = (float)(aspect / sar);
    /* av_clipf as x86 builds it: NAN gives the maximum */
    float angle = (float)lens->angle;
    angle = angle < (float)(VIG_PI / 2) ? angle : (float)(VIG_PI / 2);
    angle = angle > 0.f ? angle : 0.f;
    const double dmax = hypot(w / 2., h / 2.);
    const int backward = values[VIG_MODE].i == 1;
    for (int y = 0; y < h; y++) {
        const int yy = to_int((y - lens->y0) * yscale);
        for (int x = 0; x < w; x++) {
            const int xx = to_int((x - lens->x0) * xscale);
            const double dnorm = hypot(xx, yy) / dmax;
            double factor = 0;
            if (!(dnorm > 1)) {
                const double c = cos(angle * dnorm);
                factor = (c * c) * (c * c);
            }
            const float f = backward ? (float)(1. / factor) : (float)factor;
            uint32_t m;
            if (f < 32768.f) {
                m = (uint32_t)llround((double)f * 65536);
            } else {
                /* the smallest channel whose product reaches 2^31 */
                double limit = 2147483648.0 * (depth == 16 ? 257 : 1);
                double smin = isinf(f) ? 0 : ceil(limit / f);
                m = 0x80000000u | (uint32_t)smin;
            }
            map[(size_t)y * (size_t)w + (size_t)x] = m;
        }
    }
}

/* ffmpeg's dither generator: draw k (from 0), by jumps of powers of two. */
static uint32_t lcg_jump(uint32_t k)
{
    uint32_t add = 0, cur_mul = 1664525u, cur_add = 1013904223u;
    while (k) {
        if (k & 1u)
            add = add * cur_mul + cur_add;
        cur_add = (cur_mul + 1u) * cur_add;
        cur_mul *= cur_mul;
        k >>= 1;
    }
    return add;
}

/* The first draw of frame n of w x h. */
static uint32_t dither_base(uint64_t n, int w, int h)
{
    return (uint32_t)(n * (uint64_t)w * (uint64_t)h * 3u);
}

typedef struct vig_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem map;
    size_t map_bytes;
    uint32_t *host; /* the map as built */
    vig_exprs exprs;
    int depth;
    int w, h, sar_num, sar_den;
    int frame_eval; /* eval=frame, or the expressions need the frame */
    int built;      /* the device has the map of `lens` */
    vig_lens lens;
} vig_state;

static const char *const kernels[] = {"vignette", NULL};

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    (void)msg;
    vig_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    return 0;
}

static void uninit(void *state)
{
    vig_state *s = state;
    exprs_free(&s->exprs);
    clv__mem_release(&s->map);
    free(s->host);
    s->host = NULL;
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    (void)ctx;
    vig_state *s = state;
    exprs_free(&s->exprs);
    s->built = 0;
    double aspect = aspect_of(values);
    if (!(aspect >= 0))
        return clv__fail(msg, CLV_ERANGE, "vignette: aspect='%s' gives %g; it must be 0 or more",
                         clv_value_text(&values[VIG_ASPECT]), aspect);
    return exprs_parse(values, &s->exprs, msg);
}

/* Builds and uploads the map of lens for the state's size unless the
 * device has it. */
static int update(vig_state *s, cl_command_queue queue, const clv_value *values,
                  const vig_lens *lens, clv_msg *msg)
{
    if (s->built && !memcmp(lens, &s->lens, sizeof *lens))
        return 0;
    make_map(values, lens, s->w, s->h, s->sar_num, s->sar_den, s->depth, s->host);
    cl_int st =
        clEnqueueWriteBuffer(queue, s->map, CL_TRUE, 0,
                             (size_t)s->w * (size_t)s->h * sizeof(cl_uint), s->host, 0, NULL, NULL);
    s->built = st == CL_SUCCESS;
    s->lens = *lens;
    return st == CL_SUCCESS ? 0
                            : clv__fail(msg, CLV_ECL, "vignette: cannot upload its map: %s",
                                        clv__cl_strerror(st));
}

static int resize(void *state, clv_context *ctx, const clv_value *values, const clv_size *in,
                  const clv_size *out, clv_msg *msg)
{
    (void)out;
    vig_state *s = state;
    size_t bytes = (size_t)in->width * (size_t)in->height * sizeof(cl_uint);
    if (bytes > s->map_bytes) {
        clv__mem_release(&s->map);
        free(s->host);
        s->map_bytes = 0;
        s->host = malloc(bytes);
        cl_int st = CL_SUCCESS;
        s->map = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, bytes, NULL, &st);
        if (!s->host || st != CL_SUCCESS) {
            clv__mem_release(&s->map);
            return clv__fail(msg, CLV_ENOMEM, "vignette: cannot allocate its map for %dx%d: %s",
                             in->width, in->height, clv__cl_strerror(st));
        }
        s->map_bytes = bytes;
    }
    s->w = in->width;
    s->h = in->height;
    s->sar_num = in->sar_num;
    s->sar_den = in->sar_den;
    s->built = 0;
    vig_lens lens;
    s->frame_eval = lens_eval(&s->exprs, s->w, s->h, 0, 0, 0, &lens) || values[VIG_EVAL].i == 1;
    return s->frame_eval ? 0 : update(s, ctx->queue, values, &lens, msg);
}

static int run(void *state, const clv_launch *l)
{
    vig_state *s = state;
    if (l->width != s->w || l->height != s->h)
        return CLV_EINVAL; /* resize did not run for this size */
    if (s->frame_eval) {
        vig_lens lens;
        lens_eval(&s->exprs, s->w, s->h, 1, l->frame_index, l->time, &lens);
        int err = update(s, l->queue, l->values, &lens, NULL);
        if (err)
            return err;
    }
    cl_int dither = (cl_int)l->values[VIG_DITHER].i;
    cl_uint base = dither_base(l->frame_index, l->width, l->height);
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 3, CLV__ARG(s->map), CLV__ARG(dither), CLV__ARG(base));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

/* cl/vignette.cl's channel. */
static int channel(uint32_t f, int c, uint32_t d, int maxv)
{
    if (f & 0x80000000u)
        return c == 0 || (uint32_t)c >= (f & 0x7FFFFFFFu) ? 0 : maxv;
    uint64_t v = ((uint64_t)c * f + d) >> 16;
    return v > (uint64_t)maxv ? maxv : (int)v;
}

static int reference_at(void *ref_state, const clv_value *values, const clv_image *src,
                        clv_image *dst, uint64_t frame_index, double time)
{
    (void)ref_state;
    vig_exprs x = {NULL, NULL, NULL};
    if (exprs_parse(values, &x, NULL))
        return CLV_EINVAL;
    const int w = src->width, h = src->height, maxv = clv__maxv(src);
    vig_lens lens;
    if (lens_eval(&x, w, h, 0, 0, 0, &lens) || values[VIG_EVAL].i == 1)
        lens_eval(&x, w, h, 1, frame_index, time, &lens);
    exprs_free(&x);
    uint32_t *map = malloc((size_t)w * (size_t)h * sizeof *map);
    if (!map)
        return CLV_ENOMEM;
    make_map(values, &lens, w, h, 0, 0, clv__depth(src), map);
    const int dither = values[VIG_DITHER].i != 0;
    uint32_t state = dither ? lcg_jump(dither_base(frame_index, w, h)) : 0;
    for (int y = 0; y < h; y++)
        for (int xx = 0; xx < w; xx++) {
            const uint32_t f = map[(size_t)y * (size_t)w + (size_t)xx];
            for (int c = 0; c < 3; c++) {
                clv__put(dst, xx, y, c, channel(f, clv__get(src, xx, y, c), state >> 16, maxv));
                if (dither)
                    state = 1664525u * state + 1013904223u;
            }
            clv__put(dst, xx, y, 3, clv__get(src, xx, y, 3));
        }
    free(map);
    return 0;
}

static const char *const aliases[] = {"a", "angle", NULL};

static const clv_param params[] = {
    {"angle", CLV_PARAM_EXPR, "PI/5", 0, 0, VIG_VARS,
     "the lens angle in radians, 0 to PI/2: larger, darker edges", 0},
    {"x0", CLV_PARAM_EXPR, "w/2", 0, 0, VIG_VARS, "the centre's x", 0},
    {"y0", CLV_PARAM_EXPR, "h/2", 0, 0, VIG_VARS, "the centre's y", 0},
    {"mode", CLV_PARAM_ENUM, "forward", 0, 1, "forward|backward",
     "forward: darken; backward: undo a vignette", 1},
    {"eval", CLV_PARAM_ENUM, "init", 0, 1, "init|frame",
     "evaluate the expressions once a size (every frame when they need n or t), or every frame", 1},
    {"dither", CLV_PARAM_INT, "1", 0, 1, NULL, "1: ffmpeg's dither; 0: truncate", 1},
    {"aspect", CLV_PARAM_EXPR, "1", 0, 0, ASPECT_CONSTS, "the vignette's aspect (\"4/3\")", 0},
};
_Static_assert(sizeof params / sizeof params[0] == VIG_PARAM_COUNT,
               "vignette: the enum and the params table differ");

const clv_filter clv__filter_vignette = {
    .name = "vignette",
    .help = "darken the edges as a lens does, or undo that (ffmpeg's vignette)",
    .params = params,
    .param_count = VIG_PARAM_COUNT,
    .program = "vignette",
    .kernels = kernels,
    .deep = 1,
    .aliases = aliases,
    .state_size = sizeof(vig_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .resize = resize,
    .run = run,
    .reference_at = reference_at,
};
