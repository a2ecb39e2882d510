/* hue.c - ffmpeg's hue (libavfilter/vf_hue.c): the chroma turned by an
 * angle and scaled by a saturation, the luma moved by a brightness, on
 * Y'CbCr (ycbcr.h: BT.601 limited range, the conversion ffmpeg makes for
 * hue on RGB input), cl/hue.cl.
 *
 * vf_hue evaluates its expressions every frame (n, t) in float and turns
 * (U - 128, V - 128) with the integers c = lrint(cos(H) * 2^16 * s) and
 * s = lrint(sin(H) * 2^16 * s), rounding: ((c u - s v + 2^15) >> 16) + 128,
 * clamped to 0-255; the luma becomes Y + b * 25.5, truncated and clamped.
 * This does the same arithmetic on the components' fixed point (8 more
 * bits at 8 bits, 16 at 16): the same c and s, the brightness added as
 * floor(b * 25.5 * 2^P) (on whole codes, as vf_hue's table). At 16 bits
 * the components are on the same 8-bit code scale, so the brightness moves
 * Y' by the same b * 25.5 codes (vf_hue's 10-bit path takes b * 102.4 of
 * 1023, a little more).
 *
 * The variables: n the frame's index, t its time, pts t and tb 1 (times in
 * seconds), r NAN (the rate is not known here). h (degrees) and H
 * (radians) exclude each other as in ffmpeg; as the options here always
 * have a value, "given" means "not 0". */
#include "ycbcr.h"

#include <math.h>
#include <string.h>

enum { HUE_H, HUE_S, HUE_HR, HUE_B, HUE_PARAM_COUNT };

#define HUE_VARS "n|pts|r|t|tb"
enum { V_N, V_PTS, V_R, V_T, V_TB, V_COUNT };

#define HUE_PI 3.14159265358979323846

typedef struct hue_exprs {
    clv__expr *e[HUE_PARAM_COUNT];
    int degrees; /* h was given (else H, or neither: 0) */
} hue_exprs;

static void exprs_free(hue_exprs *x)
{
    for (int i = 0; i < HUE_PARAM_COUNT; i++) {
        clv__expr_free(x->e[i]);
        x->e[i] = NULL;
    }
}

/* ffmpeg's refusal of both h and H (the chain parser's check). */
static int check(const clv_value *values, clv_msg *msg)
{
    if (strcmp(clv_value_text(&values[HUE_H]), "0") && strcmp(clv_value_text(&values[HUE_HR]), "0"))
        return clv__fail(msg, CLV_EPARSE,
                         "filter 'hue': H and h are incompatible and cannot be given together");
    return 0;
}

static int exprs_parse(const clv_value *values, hue_exprs *x, clv_msg *msg)
{
    if (check(values, msg))
        return CLV_EPARSE;
    x->degrees = strcmp(clv_value_text(&values[HUE_H]), "0") != 0;
    char buf[64];
    const char *names[V_COUNT + 1];
    clv__expr_names(HUE_VARS, buf, sizeof buf, names, V_COUNT + 1);
    for (int i = 0; i < HUE_PARAM_COUNT; i++) {
        int err = clv__expr_parse(clv_value_text(&values[i]), names, &x->e[i], msg);
        if (err) {
            exprs_free(x);
            return err;
        }
    }
    return 0;
}

/* C's conversion of a double to int as x86 makes it: NAN and values past
 * int give INT_MIN. */
static int to_int(double d)
{
    return d > -2147483649.0 && d < 2147483648.0 ? (int)d : INT32_MIN;
}

/* lrint into an int32_t, as vf_hue stores it on x86-64: NAN and values
 * past a long give LONG_MIN, whose low 32 bits are 0. */
static int32_t lrint32(double d)
{
    if (!(fabs(d) < 9.2e18))
        return 0;
    return (int32_t)(uint32_t)(uint64_t)llrint(d);
}

/* One frame's arithmetic: the rotation and scale, and the brightness in
 * the components' fixed point (p fractional bits). */
typedef struct hue_turn {
    int c, s, boff;
} hue_turn;

static hue_turn frame_turn(const hue_exprs *x, uint64_t n, double t, int p)
{
    double vars[V_COUNT];
    vars[V_N] = (double)n;
    vars[V_PTS] = t;
    vars[V_R] = NAN;
    vars[V_T] = t;
    vars[V_TB] = 1;
    float saturation = (float)clv__expr_eval(x->e[HUE_S], vars);
    if (saturation < -10 || saturation > 10) {
        int i = to_int(saturation); /* av_clip takes an int */
        saturation = (float)(i < -10 ? -10 : i > 10 ? 10 : i);
    }
    float brightness = (float)clv__expr_eval(x->e[HUE_B], vars);
    if (brightness < -10 || brightness > 10)
        brightness = brightness < -10 ? -10.0f : 10.0f;
    float hue = 0;
    if (x->degrees) {
        float degrees = (float)clv__expr_eval(x->e[HUE_H], vars);
        hue = (float)(degrees * HUE_PI / 180);
    } else {
        hue = (float)clv__expr_eval(x->e[HUE_HR], vars);
    }
    hue_turn turn;
    turn.s = lrint32(sin(hue) * (1 << 16) * saturation);
    turn.c = lrint32(cos(hue) * (1 << 16) * saturation);
    /* a NAN brightness makes vf_hue's luma INT_MIN, clamped to 0 */
    turn.boff = isnan(brightness) ? INT32_MIN / 2 : (int)floor(brightness * 25.5 * (1 << p));
    return turn;
}

typedef struct hue_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem ycc;
    int depth;
    hue_exprs exprs;
} hue_state;

static const char *const kernels[] = {"hue", NULL};

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    hue_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    clv__ycc m;
    clv__ycc_make(s->depth, &m);
    return clv__ycc_upload(ctx, &m, &s->ycc, "hue", msg);
}

static void uninit(void *state)
{
    hue_state *s = state;
    exprs_free(&s->exprs);
    clv__mem_release(&s->ycc);
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    (void)ctx;
    hue_state *s = state;
    exprs_free(&s->exprs);
    return exprs_parse(values, &s->exprs, msg);
}

static int run(void *state, const clv_launch *l)
{
    hue_state *s = state;
    hue_turn t = frame_turn(&s->exprs, l->frame_index, l->time, clv__ycc_bits(s->depth));
    cl_int c = t.c, sn = t.s, boff = t.boff;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 4, CLV__ARG(s->ycc), CLV__ARG(c), CLV__ARG(sn),
                               CLV__ARG(boff));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

/* cl/hue.cl's hue_round: (x + 2^15) >> 16, floored. */
static int64_t round16(int64_t x)
{
    return ((x + 32768 + ((int64_t)1 << 48)) >> 16) - ((int64_t)1 << 32);
}

static int64_t clamp_code(int64_t v, int64_t top)
{
    return v < 0 ? 0 : v > top ? top : v;
}

static int reference_at(void *ref_state, const clv_value *values, const clv_image *src,
                        clv_image *dst, uint64_t frame_index, double time)
{
    (void)ref_state;
    hue_exprs x = {{NULL}, 0};
    if (exprs_parse(values, &x, NULL))
        return CLV_EINVAL;
    const int depth = clv__depth(src), p = clv__ycc_bits(depth), maxv = clv__maxv(src);
    hue_turn t = frame_turn(&x, frame_index, time, p);
    exprs_free(&x);
    clv__ycc m;
    clv__ycc_make(depth, &m);
    const int64_t centre = (int64_t)128 << p, top = (int64_t)255 << p;
    for (int y = 0; y < src->height; y++)
        for (int xx = 0; xx < src->width; xx++) {
            int64_t v[3];
            clv__ycc_from_rgb(&m, clv__get(src, xx, y, 0), clv__get(src, xx, y, 1),
                              clv__get(src, xx, y, 2), v);
            int64_t u = v[1] - centre, w = v[2] - centre;
            v[0] = clamp_code(v[0] + t.boff, top);
            v[1] = clamp_code(round16(t.c * u - t.s * w) + centre, top);
            v[2] = clamp_code(round16(t.s * u + t.c * w) + centre, top);
            for (int i = 0; i < 3; i++)
                clv__put(dst, xx, y, i, clv__ycc_channel(&m, v, i, maxv));
            clv__put(dst, xx, y, 3, clv__get(src, xx, y, 3));
        }
    return 0;
}

static const clv_param params[] = {
    {"h", CLV_PARAM_EXPR, "0", 0, 0, HUE_VARS, "hue angle in degrees (not with H)", 0},
    {"s", CLV_PARAM_EXPR, "1", 0, 0, HUE_VARS, "saturation (-10 to 10; negative: the opposite hue)",
     0},
    {"H", CLV_PARAM_EXPR, "0", 0, 0, HUE_VARS, "hue angle in radians (not with h)", 0},
    {"b", CLV_PARAM_EXPR, "0", 0, 0, HUE_VARS,
     "brightness (-10 to 10): b * 25.5 added to Y' (of 16-235)", 0},
};
_Static_assert(sizeof params / sizeof params[0] == HUE_PARAM_COUNT,
               "hue: the enum and the params table differ");

const clv_filter clv__filter_hue = {
    .name = "hue",
    .help = "turn the hue, scale the saturation, move the brightness (ffmpeg's hue, on BT.601 "
            "Y'CbCr); evaluated every frame (n, t)",
    .params = params,
    .param_count = HUE_PARAM_COUNT,
    .check = check,
    .program = "hue",
    .kernels = kernels,
    .deep = 1,
    .state_size = sizeof(hue_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference_at = reference_at,
};
