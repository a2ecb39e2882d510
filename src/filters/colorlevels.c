/* colorlevels.c - ffmpeg 5.1's colorlevels (vf_colorlevels.c) on RGBA at 8
 * and 16 bits (cl/channels.cl): each channel's input levels imin..imax
 * stretched to omin..omax,
 *   v' = clip((int)((v - imin) * k + omin)),
 *   k = (float)((omax - omin) / (double)(imax - imin)),
 * in floats as ffmpeg computes it (a product and a sum, each rounded, the
 * float truncated; NaN and values beyond int's range INT_MIN, as x86's
 * conversion gives them, so a flat input range gives 0), the points
 * lrint(x * max) of the options (kept to 1/1000, as every decimal
 * parameter). An in-point below 0 (x < -0.5 / max) is the frame's least
 * (imin) or greatest (imax) value of the channel, found on the device
 * (colorlevels_minmax, colorlevels_coeff), so every frame has its own.
 *
 * preserve keeps a lightness of the input, as ffmpeg's: where the output's
 * measure lout > 0, each of R, G, B times lin / lout, truncated. The ratio
 * is colorchannelmixer's pc in integers (clv__preserve_ratio), so it
 * agrees with ffmpeg's floats by PSNR (scripts/compare-grade), not to the
 * bit. nrm and pwr measure the outputs taken within -8 max .. 8 max (a
 * narrow input range stretches far past the output's, and the squares
 * and cubes of a flat range's INT_MIN would not fit 64 bits), so where one
 * lies beyond, their ratio is not ffmpeg's; lum, max, avg and sum measure
 * the outputs as they are. A scaled channel beyond int's range is INT_MIN,
 * as ffmpeg's float is on x86. Without preserve every byte is ffmpeg's. */
#include "filters.h"

#include <math.h>
#include <string.h>

enum {
    LV_IMIN, /* rimin gimin bimin aimin, then imax, omin, omax: 4 each */
    LV_IMAX = LV_IMIN + 4,
    LV_OMIN = LV_IMAX + 4,
    LV_OMAX = LV_OMIN + 4,
    LV_PRESERVE = LV_OMAX + 4,
    LV_PARAM_COUNT
};

typedef struct levels_state {
    cl_kernel minmax, coeff, apply, fill, lut;
    cl_mem sets[2]; /* 16 words each (cl/channels.cl), the frames alternating */
    int parity;     /* the set this frame's points go into */
    cl_mem tab;     /* without preserve: the four channels' levels of every value */
    int filled;     /* tab holds the levels of `made` (points given, not the frame's) */
    cl_int made[12];
} levels_state;

/* A channel's points at the depth's maximum maxv: lrint(x * maxv) of the
 * options (x in thousandths), each in-point -1 where the frame gives it. */
typedef struct levels {
    int imin[4], imax[4], omin[4], omax[4];
    int mask; /* bit c: imin of channel c from the frame; 4 + c: imax */
} levels;

static int level(int64_t milli, int maxv)
{
    return (int)clv__div_even(milli * maxv, 1000);
}

static void points(const clv_value *v, int maxv, levels *lv)
{
    lv->mask = 0;
    for (int c = 0; c < 4; c++) {
        lv->imin[c] = level(v[LV_IMIN + c].i, maxv);
        lv->imax[c] = level(v[LV_IMAX + c].i, maxv);
        lv->omin[c] = level(v[LV_OMIN + c].i, maxv);
        lv->omax[c] = level(v[LV_OMAX + c].i, maxv);
        lv->mask |= (lv->imin[c] < 0) << c | (lv->imax[c] < 0) << (4 + c);
    }
}

/* ffmpeg's coefficient. */
static float coefficient(int omin, int omax, int imin, int imax)
{
    return (float)((omax - omin) / (double)(imax - imin));
}

/* The kernel's levels_div in C: the float nearest n / d (d != 0, |n|, |d| <
 * 2^17), ties to even, by integers. filter_colorlevels checks it against
 * coefficient()'s double for every pair at 8 bits and a sweep at 16. */
float clv__levels_div(int n, int d)
{
    int neg = (n < 0) != (d < 0);
    if (n == 0)
        return neg ? -0.0f : 0.0f;
    uint64_t a = (uint64_t)(n < 0 ? -(int64_t)n : n), b = (uint64_t)(d < 0 ? -(int64_t)d : d);
    int s = 0;
    while ((a << s) < (b << 25))
        ++s;
    uint64_t q = (a << s) / b, r = (a << s) % b, m = q >> 2;
    unsigned low = (unsigned)(q & 3u);
    m += low > 2u || (low == 2u && (r > 0 || (m & 1u)));
    float f = ldexpf((float)m, 2 - s);
    return neg ? -f : f;
}

/* Whether init makes the points' table, which maps the frame without
 * preserve (run takes the whole map where there is none): everywhere but
 * at 16 bits on GPUs, where each pixel is worked out whole instead (a
 * 512 KiB table, a gather a channel from the cache); CPUs keep it (in
 * their caches, where the whole map took three times as long). */
static int table_used(int depth, int row_shape)
{
    return depth != 16 || row_shape;
}

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    levels_state *s = state;
    int err = clv__kernel_create(prog, "colorlevels", &s->apply, msg);
    if (!err)
        err = clv__kernel_create(prog, "colorlevels_minmax", &s->minmax, msg);
    if (!err)
        err = clv__kernel_create(prog, "colorlevels_coeff", &s->coeff, msg);
    if (!err)
        err = clv__kernel_create(prog, "colorlevels_fill", &s->fill, msg);
    /* the frame through the table: lut/lutrgb's kernel (cl/lut.cl) */
    cl_program tables = NULL;
    if (!err)
        err = clv__program_get(ctx, "lut", &tables, msg);
    if (!err)
        err = clv__kernel_create(tables, "lut", &s->lut, msg);
    if (err)
        return err;
    /* Each set starts as colorlevels_minmax leaves the next frame's. */
    cl_int start[16] = {0}, st = CL_SUCCESS;
    int maxv = ctx->build_depth == 16 ? 65535 : 255;
    for (int c = 0; c < 4; c++)
        start[c] = maxv;
    for (int i = 0; i < 2 && st == CL_SUCCESS; i++) {
        s->sets[i] = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, sizeof start, NULL, &st);
        if (st == CL_SUCCESS)
            st = clEnqueueWriteBuffer(ctx->queue, s->sets[i], CL_TRUE, 0, sizeof start, start, 0,
                                      NULL, NULL);
    }
    size_t bytes = 4 * ((size_t)maxv + 1) * (maxv > 255 ? 2 : 1);
    if (st == CL_SUCCESS && table_used(ctx->build_depth, ctx->row_shape))
        s->tab = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &st);
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ECL, "colorlevels: cannot make its buffers: %s",
                         clv__cl_strerror(st));
    return 0;
}

static void uninit(void *state)
{
    levels_state *s = state;
    clv__kernel_release(&s->apply);
    clv__kernel_release(&s->minmax);
    clv__kernel_release(&s->coeff);
    clv__kernel_release(&s->fill);
    clv__kernel_release(&s->lut);
    clv__mem_release(&s->tab);
    clv__mem_release(&s->sets[0]);
    clv__mem_release(&s->sets[1]);
}

/* On GPUs a work-item of colorlevels_minmax takes this many rows (its
 * argument `rows`; 1 on CPUs, a work-item a row). */
enum { LEVELS_ROWS = 32 };

/* Launch i of a frame's n: the first waits for the frame's input, the last
 * says when it is done (the queue runs them in turn). items 0: a launch
 * over the frame's pixels, `height` rows of them. */
static int in_turn(const clv_launch *l, int i, int n, cl_kernel k, size_t items, size_t group,
                   int height)
{
    clv_launch t = *l;
    if (i > 0)
        t.wait_count = 0, t.wait = NULL;
    if (i < n - 1)
        t.done = NULL;
    return items ? clv__launch(&t, k, 1, &items, &group)
                 : clv__launch_pixels(&t, k, l->width, height);
}

/* Without preserve: the table of levels (made again for every frame whose
 * points are its own, else when the points change), the frame through it.
 * With preserve, and at 16 bits on GPUs: the whole map a pixel
 * (colorlevels). Either after the frame's points where some are its own. */
static int run(void *state, const clv_launch *l)
{
    levels_state *s = state;
    int maxv = l->depth == 16 ? 65535 : 255;
    levels lv;
    points(l->values, maxv, &lv);
    cl_int4 imin, imax, omin, span, use;
    cl_float4 k;
    for (int c = 0; c < 4; c++) {
        imin.s[c] = lv.imin[c];
        imax.s[c] = lv.imax[c];
        omin.s[c] = lv.omin[c];
        span.s[c] = lv.omax[c] - lv.omin[c];
        k.s[c] = coefficient(lv.omin[c], lv.omax[c], lv.imin[c], lv.imax[c]);
        /* (v - imin) * 1 + imin is v: that channel is left as it is */
        use.s[c] = lv.mask >> c & 0x11 || k.s[c] != 1.0f || lv.imin[c] != lv.omin[c];
    }
    cl_int mask = lv.mask, pc = (cl_int)l->values[LV_PRESERVE].i;
    cl_mem cur = s->sets[s->parity], spare = s->sets[1 - s->parity];
    cl_int made[12];
    memcpy(made, imin.s, sizeof imin.s);
    memcpy(made + 4, k.s, sizeof k.s);
    memcpy(made + 8, omin.s, sizeof omin.s);
    const int whole = pc || !s->tab; /* no table: table_used */
    int fill = !whole && (mask || !s->filled || memcmp(made, s->made, sizeof made));
    int n = (mask ? 2 : 0) + 1 + fill, i = 0, err = 0;
    size_t one = 1, items = 4 * ((size_t)maxv + 1);
    cl_int rows = l->ctx->row_shape ? 1 : LEVELS_ROWS;
    if (mask) {
        err = clv__kernel_frame_args(s->minmax, l);
        if (!err)
            err = clv__kernel_args(s->minmax, 5, 3, CLV__ARG(cur), CLV__ARG(spare), CLV__ARG(rows));
        if (!err)
            err = in_turn(l, i++, n, s->minmax, 0, 0, (l->height + rows - 1) / rows);
        if (err)
            return err;
        s->parity ^= 1; /* minmax has reset the other set: the next frame's */
        err = clv__kernel_args(s->coeff, 0, 5, CLV__ARG(cur), CLV__ARG(imin), CLV__ARG(imax),
                               CLV__ARG(span), CLV__ARG(mask));
        if (!err)
            err = in_turn(l, i++, n, s->coeff, one, one, 0);
        if (err)
            return err;
    }
    if (whole) {
        err = clv__kernel_frame_args(s->apply, l);
        if (!err)
            err = clv__kernel_args(s->apply, 5, 6, CLV__ARG(imin), CLV__ARG(k), CLV__ARG(omin),
                                   CLV__ARG(mask), CLV__ARG(pc), CLV__ARG(cur));
        return err ? err : in_turn(l, i, n, s->apply, 0, 0, l->height);
    }
    if (fill) {
        s->filled = 0;
        err = clv__kernel_args(s->fill, 0, 6, CLV__ARG(s->tab), CLV__ARG(imin), CLV__ARG(k),
                               CLV__ARG(omin), CLV__ARG(mask), CLV__ARG(cur));
        if (!err)
            err = in_turn(l, i++, n, s->fill, items, 64, 0);
        if (err)
            return err;
        /* a table of the frame's own points is made again for the next */
        s->filled = !mask;
        memcpy(s->made, made, sizeof made);
    }
    err = clv__kernel_frame_args(s->lut, l);
    if (!err)
        err = clv__kernel_args(s->lut, 5, 2, CLV__ARG(s->tab), CLV__ARG(use));
    return err ? err : in_turn(l, i, n, s->lut, 0, 0, l->height);
}

/* The reference: ffmpeg's loops, the frame's points found first. */
static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    int maxv = clv__maxv(src), pc = (int)v[LV_PRESERVE].i;
    levels lv;
    points(v, maxv, &lv);
    int lo[4], hi[4];
    for (int c = 0; c < 4; c++) {
        lo[c] = maxv;
        hi[c] = 0;
    }
    if (lv.mask)
        for (int y = 0; y < src->height; y++)
            for (int x = 0; x < src->width; x++)
                for (int c = 0; c < 4; c++) {
                    int p = clv__get(src, x, y, c);
                    lo[c] = p < lo[c] ? p : lo[c];
                    hi[c] = p > hi[c] ? p : hi[c];
                }
    float k[4];
    int imin[4];
    for (int c = 0; c < 4; c++) {
        imin[c] = lv.mask >> c & 1 ? lo[c] : lv.imin[c];
        int imax = lv.mask >> (4 + c) & 1 ? hi[c] : lv.imax[c];
        k[c] = coefficient(lv.omin[c], lv.omax[c], imin[c], imax);
    }
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            int in[4], o[4];
            for (int c = 0; c < 4; c++) {
                in[c] = clv__get(src, x, y, c);
                float t = (float)(in[c] - imin[c]) * k[c];
                float f = t + (float)lv.omin[c];
                o[c] = f >= -2147483648.0f && f < 2147483648.0f ? (int)f : INT32_MIN;
            }
            int64_t p, q;
            int m[3];
            for (int c = 0; c < 3; c++)
                m[c] = pc < 5             ? o[c]
                       : o[c] < -8 * maxv ? -8 * maxv
                       : o[c] > 8 * maxv  ? 8 * maxv
                                          : o[c];
            if (pc && !clv__preserve_ratio(pc, maxv, in, m, &p, &q))
                for (int c = 0; c < 3; c++) {
                    int64_t t = (int64_t)o[c] * p / q;
                    o[c] = t >= INT32_MIN && t <= INT32_MAX ? (int)t : INT32_MIN;
                }
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c, o[c] < 0 ? 0 : o[c] > maxv ? maxv : o[c]);
        }
    return 0;
}

#define POINT(name, def, min, what)                                                                \
    {                                                                                              \
        name, CLV_PARAM_REAL, def, min, 1, NULL, what, 0.02                                        \
    }

static const clv_param params[] = {
    POINT("rimin", "0", -1, "red's input black point (below 0: the frame's least red)"),
    POINT("gimin", "0", -1, "green's input black point (below 0: the frame's least)"),
    POINT("bimin", "0", -1, "blue's input black point (below 0: the frame's least)"),
    POINT("aimin", "0", -1, "alpha's input black point (below 0: the frame's least)"),
    POINT("rimax", "1", -1, "red's input white point (below 0: the frame's greatest red)"),
    POINT("gimax", "1", -1, "green's input white point (below 0: the frame's greatest)"),
    POINT("bimax", "1", -1, "blue's input white point (below 0: the frame's greatest)"),
    POINT("aimax", "1", -1, "alpha's input white point (below 0: the frame's greatest)"),
    POINT("romin", "0", 0, "red's output black point"),
    POINT("gomin", "0", 0, "green's output black point"),
    POINT("bomin", "0", 0, "blue's output black point"),
    POINT("aomin", "0", 0, "alpha's output black point"),
    POINT("romax", "1", 0, "red's output white point"),
    POINT("gomax", "1", 0, "green's output white point"),
    POINT("bomax", "1", 0, "blue's output white point"),
    POINT("aomax", "1", 0, "alpha's output white point"),
    {"preserve", CLV_PARAM_ENUM, "none", 0, 6, "none|lum|max|avg|sum|nrm|pwr",
     "preserve colour: the input's lightness by this measure", 1},
};
_Static_assert(sizeof params / sizeof params[0] == LV_PARAM_COUNT,
               "colorlevels: the enum and the params table differ");

const clv_filter clv__filter_colorlevels = {
    .name = "colorlevels",
    .help = "stretch each channel's levels: input black and white points to output ones, or the "
            "frame's own (ffmpeg's colorlevels)",
    .params = params,
    .param_count = LV_PARAM_COUNT,
    .program = "channels",
    .state_size = sizeof(levels_state),
    .deep = 1,
    .init = init,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
