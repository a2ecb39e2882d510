/* rotate.c - ffmpeg's rotate (libavfilter/vf_rotate.c): the picture turned
 * by an angle (an expression of the frame number and time) about its centre
 * into a frame of ow x oh, the uncovered corners filled; cl/rotate.cl. The
 * arithmetic after the angle is ffmpeg's integer arithmetic, computed here
 * on the host once a frame, so device, reference and ffmpeg agree.
 *
 * At 16 bits: the same turn and copies, the fill's channels c * 257, and
 * the bilinear weights of 8 bits on 16-bit samples (ffmpeg's
 * interpolate_bilinear16, which its rotate runs on 16-bit YUV) in 64-bit
 * arithmetic: ffmpeg sums each row in an int, which overflows where a
 * row's sum passes 2^31 - 1 (samples from 32768), and this does not; it
 * gives ffmpeg's samples wherever that int does not overflow
 * (tests/rotate_test.py's matches_ffmpeg_16). */
#include "filters.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* The parameters, in the order of the table below (ffmpeg's). */
enum { ROT_ANGLE, ROT_OUT_W, ROT_OUT_H, ROT_FILL, ROT_BILINEAR, ROT_PARAM_COUNT };

/* The expressions' names, ffmpeg's var_names and func1_names: the values
 * array of an evaluation has one slot for each (the functions' unused). */
#define ROT_NAMES "n|t|hsub|vsub|in_w|iw|in_h|ih|out_w|ow|out_h|oh|rotw()|roth()"
enum {
    V_N,
    V_T,
    V_HSUB,
    V_VSUB,
    V_IN_W,
    V_IW,
    V_IN_H,
    V_IH,
    V_OUT_W,
    V_OW,
    V_OUT_H,
    V_OH,
    V_COUNT
};
#define ROT_NAME_COUNT (V_COUNT + 2)

/* ffmpeg's fixed point: sin and cos in 16.16, angles in 12.20. */
#define FIXP (1 << 16)
#define INT_PI 3294199 /* pi * (1 << 20) */
#define ROT_PI 3.14159265358979323846

/* ffmpeg's FFMAX, which (unlike fmax) passes a NAN in b on. */
static double ffmax(double a, double b)
{
    return a > b ? a : b;
}

/* rotw(a), roth(a): the bounding box of the input turned by a, with
 * ffmpeg's float sine and cosine. */
static double rotated_w(const double *v, double angle)
{
    double inw = v[V_IN_W], inh = v[V_IN_H];
    float sinx = (float)sin(angle), cosx = (float)cos(angle);
    return ffmax(0, inh * sinx) + ffmax(0, -inw * cosx) + ffmax(0, inw * cosx) +
           ffmax(0, -inh * sinx);
}

static double rotated_h(const double *v, double angle)
{
    double inw = v[V_IN_W], inh = v[V_IN_H];
    float sinx = (float)sin(angle), cosx = (float)cos(angle);
    return ffmax(0, -inh * cosx) + ffmax(0, -inw * sinx) + ffmax(0, inh * cosx) +
           ffmax(0, inw * sinx);
}

static const clv__expr_fn functions[ROT_NAME_COUNT] = {[V_COUNT] = rotated_w,
                                                       [V_COUNT + 1] = rotated_h};

/* Parses one of the filter's expressions (the chain parser has checked it). */
static int parse(const clv_value *v, clv__expr **out, clv_msg *msg)
{
    char buf[128];
    const char *names[ROT_NAME_COUNT + 1];
    clv__expr_names(ROT_NAMES, buf, sizeof buf, names, ROT_NAME_COUNT + 1);
    return clv__expr_parse_with(clv_value_text(v), names, functions, out, msg);
}

static double eval_text(const clv_value *v, const double *vars, int *err, clv_msg *msg)
{
    clv__expr *e = NULL;
    *err = parse(v, &e, msg);
    double r = *err ? NAN : clv__expr_eval(e, vars);
    clv__expr_free(e);
    return r;
}

/* The variables of a w x h input at configuration, as ffmpeg's
 * config_props leaves them: ow and oh evaluated (width, height, width
 * again: the width may use the height), n and t NAN, hsub and vsub 1
 * (RGBA has no subsampled planes). *ow_px, *oh_px: the output size,
 * rounded as ffmpeg rounds it. */
static int sizes(const clv_value *values, int w, int h, double vars[ROT_NAME_COUNT], int *ow_px,
                 int *oh_px, clv_msg *msg)
{
    for (int i = 0; i < ROT_NAME_COUNT; i++)
        vars[i] = NAN;
    vars[V_IN_W] = vars[V_IW] = w;
    vars[V_IN_H] = vars[V_IH] = h;
    vars[V_HSUB] = vars[V_VSUB] = 1;
    int err;
    double ow = eval_text(&values[ROT_OUT_W], vars, &err, msg);
    if (err)
        return err;
    vars[V_OUT_W] = vars[V_OW] = ow;
    for (int pass = 0; pass < 2; pass++) {
        int p = pass == 0 ? ROT_OUT_H : ROT_OUT_W;
        double r = eval_text(&values[p], vars, &err, msg);
        if (err)
            return err;
        /* (int)(r + 0.5) must be a side of at least one pixel, and fit an int */
        if (!(r >= 0.5 && r < CLV__SIDE_MAX + 1))
            return clv__fail(msg, CLV_ERANGE,
                             "%s='%s' gives %g (%dx%d in), the output's side must be from 1 to %d",
                             pass == 0 ? "out_h" : "out_w", clv_value_text(&values[p]), r, w, h,
                             CLV__SIDE_MAX);
        if (pass == 0) {
            vars[V_OUT_H] = vars[V_OH] = r;
            *oh_px = (int)(r + 0.5);
        } else {
            vars[V_OUT_W] = vars[V_OW] = r;
            *ow_px = (int)(r + 0.5);
        }
    }
    return 0;
}

static int output_size(const clv_value *values, const clv_size *in, clv_size *out, clv_msg *msg)
{
    double vars[ROT_NAME_COUNT];
    return sizes(values, in->width, in->height, vars, &out->width, &out->height, msg);
}

/* ffmpeg's int_sin: sin of a (12.20 fixed point) in 16.16, by five terms
 * of the Taylor series. */
static int64_t int_sin(int64_t a)
{
    int64_t a2, res = 0;
    if (a < 0)
        a = INT_PI - a;
    a %= 2 * INT_PI;
    if (a >= INT_PI * 3 / 2)
        a -= 2 * INT_PI;
    if (a >= INT_PI / 2)
        a = INT_PI - a;
    a2 = (a * a) / (1 << 20);
    for (int i = 2; i < 11; i += 2) {
        res += a;
        a = -a * a2 / ((1 << 20) * i * (i + 1));
    }
    return (res + 8) >> 4;
}

/* One frame's turn, as the kernel takes it. mode 0: output pixel (i, j)
 * reads the input at x = bx + j*s + i*c, y = by + j*c - i*s (16.16, each
 * sum wrapping at 32 bits as ffmpeg's running sums do), filled where
 * (x >> 16, y >> 16) lies beyond one pixel outside the input. Modes 1-4:
 * ffmpeg's exact copies for the angles 0, PI/2, PI and 3*PI/2 (within
 * FLT_EPSILON) when the output has the turned input's size. */
typedef struct rot_turn {
    int mode;
    int32_t bx, by, s, c;
} rot_turn;

static rot_turn turn(double angle, int inw, int inh, int outw, int outh)
{
    rot_turn t = {0, 0, 0, 0, 0};
    if (fabs(angle - 0) < FLT_EPSILON && outw == inw && outh == inh)
        t.mode = 1;
    else if (fabs(angle - ROT_PI / 2) < FLT_EPSILON && outw == inh && outh == inw)
        t.mode = 2;
    else if (fabs(angle - ROT_PI) < FLT_EPSILON && outw == inw && outh == inh)
        t.mode = 3;
    else if (fabs(angle - 3 * ROT_PI / 2) < FLT_EPSILON && outw == inh && outh == inw)
        t.mode = 4;
    /* ffmpeg's `int angle_int = res * FIXP * 16`: past an int (and for NAN)
     * x86 gives INT_MIN, the "integer indefinite", which this takes as the
     * definition. */
    double scaled = angle * FIXP * 16;
    int32_t angle_int =
        scaled > -2147483649.0 && scaled < 2147483648.0 ? (int32_t)scaled : INT32_MIN;
    t.s = (int32_t)int_sin(angle_int);
    t.c = (int32_t)int_sin((int32_t)((uint32_t)angle_int + INT_PI / 2));
    int32_t xi = -(outw - 1) * t.c / 2, yi = (outw - 1) * t.s / 2;
    int32_t xprime = -(outh - 1) * t.s / 2, yprime = -(outh - 1) * t.c / 2;
    t.bx = (int32_t)((uint32_t)xprime + (uint32_t)xi + (uint32_t)(FIXP * (inw - 1) / 2));
    t.by = (int32_t)((uint32_t)yprime + (uint32_t)yi + (uint32_t)(FIXP * (inh - 1) / 2));
    return t;
}

/* The frame's angle and turn for a w x h input: the angle expression over
 * n, t and the configuration's variables. */
static int frame_turn(const clv__expr *angle, const clv_value *values, int w, int h,
                      uint64_t frame_index, double time, rot_turn *out, clv_msg *msg)
{
    double vars[ROT_NAME_COUNT];
    int ow, oh;
    int err = sizes(values, w, h, vars, &ow, &oh, msg);
    if (err)
        return err;
    vars[V_N] = (double)frame_index;
    vars[V_T] = time;
    *out = turn(clv__expr_eval(angle, vars), w, h, ow, oh);
    return 0;
}

typedef struct rot_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    clv__expr *angle;
} rot_state;

/* not "rotate": OpenCL C has a built-in function of that name */
static const char *const kernels[] = {"rotate_frame", NULL};

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    (void)ctx;
    rot_state *st = state;
    clv__expr_free(st->angle);
    st->angle = NULL;
    return parse(&values[ROT_ANGLE], &st->angle, msg);
}

static void uninit(void *state)
{
    rot_state *st = state;
    clv__expr_free(st->angle);
    st->angle = NULL;
}

static int run(void *state, const clv_launch *l)
{
    rot_state *st = state;
    rot_turn t;
    if (frame_turn(st->angle, l->values, l->width, l->height, l->frame_index, l->time, &t, NULL))
        return CLV_EINVAL;
    cl_int ow = l->out_width, oh = l->out_height, ostride = l->out_stride;
    cl_int mode = t.mode, bx = t.bx, by = t.by, s = t.s, c = t.c;
    cl_uint fill = (cl_uint)l->values[ROT_FILL].i;
    cl_int bilinear = (cl_int)l->values[ROT_BILINEAR].i;
    int err = clv__kernel_frame_args(st->kernel, l);
    if (!err)
        err = clv__kernel_args(st->kernel, 5, 10, CLV__ARG(ow), CLV__ARG(oh), CLV__ARG(ostride),
                               CLV__ARG(mode), CLV__ARG(bx), CLV__ARG(by), CLV__ARG(s), CLV__ARG(c),
                               CLV__ARG(fill), CLV__ARG(bilinear));
    return err ? err : clv__launch_pixels(l, st->kernel, ow, oh);
}

/* interpolate_bilinear8 of ffmpeg on one channel: the four neighbours of
 * (x, y) (16.16) clamped to the frame, weighted in 16.16, the sum's top
 * 32 bits. At 16 bits the same (interpolate_bilinear16): a row's sum
 * reaches 65535 << 16, past an int, so it is 64-bit at both depths. */
static int bilinear_channel(const clv_image *src, int32_t x, int32_t y, int ch)
{
    int max_x = src->width - 1, max_y = src->height - 1;
    int ix = clv__clamp(x >> 16, 0, max_x), iy = clv__clamp(y >> 16, 0, max_y);
    int64_t fx = x & 0xFFFF, fy = y & 0xFFFF;
    int ix1 = ix + 1 < max_x ? ix + 1 : max_x, iy1 = iy + 1 < max_y ? iy + 1 : max_y;
    int64_t s00 = clv__get(src, ix, iy, ch), s01 = clv__get(src, ix1, iy, ch);
    int64_t s10 = clv__get(src, ix, iy1, ch), s11 = clv__get(src, ix1, iy1, ch);
    int64_t s0 = (FIXP - fx) * s00 + fx * s01;
    int64_t s1 = (FIXP - fx) * s10 + fx * s11;
    return (int)(((FIXP - fy) * s0 + fy * s1) >> 32);
}

static int reference_at(void *ref_state, const clv_value *values, const clv_image *src,
                        clv_image *dst, uint64_t frame_index, double time)
{
    (void)ref_state;
    clv__expr *angle = NULL;
    rot_turn t;
    if (parse(&values[ROT_ANGLE], &angle, NULL))
        return CLV_EINVAL;
    int err = frame_turn(angle, values, src->width, src->height, frame_index, time, &t, NULL);
    clv__expr_free(angle);
    if (err)
        return CLV_EINVAL;
    uint32_t fill = (uint32_t)values[ROT_FILL].i;
    int fill_px[4]; /* at the frames' depth */
    for (int ch = 0; ch < 4; ch++)
        fill_px[ch] = clv__scale8(dst, (int)(fill >> (24 - 8 * ch)) & 255);
    int inw = src->width, inh = src->height;
    for (int j = 0; j < dst->height; j++)
        for (int i = 0; i < dst->width; i++) {
            /* the input pixel copied (sx -1: none), else px: the fill or
             * the interpolated colour */
            int px[4], sx = -1, sy = 0;
            for (int ch = 0; ch < 4; ch++)
                px[ch] = fill_px[ch];
            switch (t.mode) {
            case 1:
                sx = i;
                sy = j;
                break;
            case 2:
                sx = j;
                sy = inh - 1 - i;
                break;
            case 3:
                sx = inw - 1 - i;
                sy = inh - 1 - j;
                break;
            case 4:
                sx = inw - 1 - j;
                sy = i;
                break;
            default: {
                int32_t x = (int32_t)((uint32_t)t.bx + (uint32_t)j * (uint32_t)t.s +
                                      (uint32_t)i * (uint32_t)t.c);
                int32_t y = (int32_t)((uint32_t)t.by + (uint32_t)j * (uint32_t)t.c -
                                      (uint32_t)i * (uint32_t)t.s);
                int x1 = x >> 16, y1 = y >> 16;
                if (!(x1 >= -1 && x1 <= inw && y1 >= -1 && y1 <= inh))
                    break;
                if (values[ROT_BILINEAR].i) {
                    for (int ch = 0; ch < 4; ch++)
                        px[ch] = bilinear_channel(src, x, y, ch);
                } else {
                    sx = clv__clamp(x1, 0, inw - 1);
                    sy = clv__clamp(y1, 0, inh - 1);
                }
            }
            }
            for (int ch = 0; ch < 4; ch++)
                clv__put(dst, i, j, ch, sx >= 0 ? clv__get(src, sx, sy, ch) : px[ch]);
        }
    return 0;
}

static const char *const aliases[] = {"a",     "angle", "ow",        "out_w", "oh",
                                      "out_h", "c",     "fillcolor", NULL};

static const clv_param params[] = {
    {"angle", CLV_PARAM_EXPR, "0", 0, 0, ROT_NAMES,
     "angle in radians, clockwise; evaluated every frame (n: frame number, t: seconds)", 0},
    {"out_w", CLV_PARAM_EXPR, "iw", 0, 0, ROT_NAMES,
     "output width; rotw(a): the width of the input turned by a", 0},
    {"out_h", CLV_PARAM_EXPR, "ih", 0, 0, ROT_NAMES,
     "output height; roth(a): the height of the input turned by a", 0},
    {"fillcolor", CLV_PARAM_COLOR, "black", 0, 0, NULL,
     "colour outside the turned picture, alpha and all (ffmpeg's none, no fill, is not taken)", 0},
    {"bilinear", CLV_PARAM_INT, "1", 0, 1, NULL, "1: bilinear interpolation, 0: nearest pixel", 1},
};
_Static_assert(sizeof params / sizeof params[0] == ROT_PARAM_COUNT,
               "rotate: the enum and the params table differ");

const clv_filter clv__filter_rotate = {
    .timeline = 1, /* ffmpeg's enable= */
    .name = "rotate",
    .help = "turn the picture by an angle (an expression of n and t) about its centre into "
            "ow x oh, corners filled (ffmpeg's rotate)",
    .params = params,
    .param_count = ROT_PARAM_COUNT,
    .program = "rotate",
    .kernels = kernels,
    .deep = 1,
    .output_size = output_size,
    .aliases = aliases,
    .state_size = sizeof(rot_state),
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference_at = reference_at,
};
