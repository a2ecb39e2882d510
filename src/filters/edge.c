/* edge.c - ffmpeg's sobel, roberts, scharr and kirsch
 * (libavfilter/vf_convolution.c): per channel of the plane mask,
 * clamp(floor(sqrt(gx^2 + gy^2) * scale + delta)) (scharr's sqrt over 256;
 * kirsch's the largest compass sum instead of the root) in exact integers
 * (cl/edge.cl), at 8 and 16 bits (delta on the 8-bit scale: times 257). The mask's bits are
 * ffmpeg's planes of the gbrp it filters RGB in: 1 green, 2 blue, 4 red; alpha (8) always passes
 * through, as every filter's does. Edges are clamped (ffmpeg mirrors its
 * left and top ones). */
#include "filters.h"

/* scale = p / 1000, delta = d / 1000 (cl/edge.cl's EDGE_Q). */
#define EDGE_Q 1000

enum { EDGE_PLANES, EDGE_SCALE, EDGE_DELTA, EDGE_PARAM_COUNT };

/* The kernels, in the order of each filter's list below. */
typedef struct edge_state {
    cl_kernel general, unit;
} edge_state;

/* R, G, B bits (1, 2, 4) of ffmpeg's plane mask over gbrp. */
static int edge_sel(int64_t planes)
{
    return (planes & 4 ? 1 : 0) | (planes & 1 ? 2 : 0) | (planes & 2 ? 4 : 0);
}

/* What the kernels and the reference take for a depth's maximum maxv:
 * p^2, the limit on m past which a channel saturates, d. */
typedef struct edge_args {
    uint64_t p2, mlim;
    int d;
} edge_args;

static edge_args edge_args_of(const clv_value *v, int maxv)
{
    edge_args a;
    uint64_t p = (uint64_t)v[EDGE_SCALE].i, cap = (2 * (uint64_t)maxv + 1) * EDGE_Q;
    a.p2 = p * p;
    a.mlim = a.p2 ? cap * cap / a.p2 : UINT64_MAX;
    a.d = (int)v[EDGE_DELTA].i * (maxv == 65535 ? 257 : 1);
    return a;
}

/* sobel and roberts (kind 0) and scharr (1) take p^2 and mlim (scharr
 * leaves it); kirsch (2) p and the v past which v p saturates (cl/edge.cl). */
static int edge_launch(edge_state *s, const clv_launch *l, int kind)
{
    const int maxv = l->depth == 16 ? 65535 : 255;
    edge_args a = edge_args_of(l->values, maxv);
    const uint64_t p = (uint64_t)l->values[EDGE_SCALE].i, cap = (2 * (uint64_t)maxv + 1) * EDGE_Q;
    cl_ulong p2 = kind == 2 ? p : a.p2, third = kind == 2 ? (p ? cap / p : UINT64_MAX) : a.mlim;
    cl_int d = a.d, sel = edge_sel(l->values[EDGE_PLANES].i);
    cl_kernel k = p == EDGE_Q && d % EDGE_Q == 0 ? s->unit : s->general;
    int err = clv__kernel_frame_args(k, l);
    if (!err)
        err = clv__kernel_args(k, 5, 4, CLV__ARG(p2), CLV__ARG(third), CLV__ARG(d), CLV__ARG(sel));
    return err ? err : clv__launch_pixels(l, k, l->width, l->height);
}

static int edge_run(void *state, const clv_launch *l)
{
    return edge_launch(state, l, 0);
}

static int scharr_run(void *state, const clv_launch *l)
{
    return edge_launch(state, l, 1);
}

static int kirsch_run(void *state, const clv_launch *l)
{
    return edge_launch(state, l, 2);
}

static int edge_reference(const clv_value *v, const clv_image *src, clv_image *dst, int roberts)
{
    const int maxv = clv__maxv(src), sel = edge_sel(v[EDGE_PLANES].i);
    const edge_args a = edge_args_of(v, maxv);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            for (int c = 0; c < 4; c++) {
                int64_t gx, gy;
                if (c == 3 || !(sel >> c & 1)) {
                    clv__put(dst, x, y, c, clv__get(src, x, y, c));
                    continue;
                }
                if (roberts) {
                    gx =
                        clv__get_clamped(src, x - 1, y - 1, c) - clv__get_clamped(src, x, y - 1, c);
                    gy = clv__get(src, x, y, c) - clv__get_clamped(src, x - 1, y, c);
                } else {
                    gx = gy = 0;
                    for (int k = -1; k <= 1; k++) {
                        const int wk = k ? 1 : 2;
                        gx += wk * (clv__get_clamped(src, x + 1, y + k, c) -
                                    clv__get_clamped(src, x - 1, y + k, c));
                        gy += wk * (clv__get_clamped(src, x + k, y + 1, c) -
                                    clv__get_clamped(src, x + k, y - 1, c));
                    }
                }
                const uint64_t m = (uint64_t)(gx * gx + gy * gy);
                int out = maxv;
                if (m <= a.mlim) {
                    const int r = (int)clv__isqrt64(m * a.p2) + a.d;
                    out = clv__clamp(clv__floor_div(r, EDGE_Q), 0, maxv);
                }
                clv__put(dst, x, y, c, out);
            }
        }
    return 0;
}

/* floor(a * b / 2^16) where it is below 2^54, else UINT64_MAX. */
static uint64_t mul_shift16(uint64_t a, uint64_t b)
{
    const uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    const uint64_t ll = al * bl, lh = al * bh, hl = ah * bl;
    const uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    const uint64_t hi = ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    const uint64_t lo = (mid << 32) | (ll & 0xffffffffu);
    return hi >> 6 ? UINT64_MAX : hi << 48 | lo >> 16;
}

/* scharr (kirsch = 0) or kirsch at a channel: cl/edge.cl's scharr_out and kirsch_out. */
static int edge_more_value(const clv_image *src, int x, int y, int c, int kirsch, uint64_t p, int d,
                           int maxv)
{
    int64_t q[9];
    for (int i = 0; i < 9; i++)
        q[i] = clv__get_clamped(src, x + i % 3 - 1, y + i / 3 - 1, c);
    int64_t r;
    if (!kirsch) {
        const int64_t gy = 47 * (q[6] - q[0]) + 162 * (q[7] - q[1]) + 47 * (q[8] - q[2]);
        const int64_t gx = 47 * (q[2] - q[0]) + 162 * (q[5] - q[3]) + 47 * (q[8] - q[6]);
        const uint64_t s = mul_shift16((uint64_t)(gx * gx + gy * gy), p * p);
        if (s == UINT64_MAX)
            return maxv;
        r = (int64_t)clv__isqrt64(s) + d;
    } else {
        /* ffmpeg's sum0 .. sum7: 5 on three neighbours running through the
         * raster order (0 1 2 3 5 6 7 8, round to 0), -3 on the rest */
        static const int ring[8] = {0, 1, 2, 3, 5, 6, 7, 8};
        int64_t best = INT64_MIN;
        for (int k = 0; k < 8; k++) {
            int64_t sum = 0;
            for (int j = 0; j < 8; j++) {
                const int in = (j - k + 8) % 8 < 3;
                sum += (in ? 5 : -3) * q[ring[j]];
            }
            best = sum > best ? sum : best;
        }
        r = (best < 0 ? -best : best) * (int64_t)p + d;
    }
    const int64_t f = r / EDGE_Q - (r % EDGE_Q < 0);
    return f < 0 ? 0 : f > maxv ? maxv : (int)f;
}

static int edge_more_reference(const clv_value *v, const clv_image *src, clv_image *dst, int kirsch)
{
    const int maxv = clv__maxv(src), sel = edge_sel(v[EDGE_PLANES].i);
    const edge_args a = edge_args_of(v, maxv);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c,
                         c == 3 || !(sel >> c & 1)
                             ? clv__get(src, x, y, c)
                             : edge_more_value(src, x, y, c, kirsch, (uint64_t)v[EDGE_SCALE].i, a.d,
                                               maxv));
    return 0;
}

static int sobel_reference(void *ref_state, const clv_value *v, const clv_image *src,
                           clv_image *dst, uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    return edge_reference(v, src, dst, 0);
}

static int roberts_reference(void *ref_state, const clv_value *v, const clv_image *src,
                             clv_image *dst, uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    return edge_reference(v, src, dst, 1);
}

/* ffmpeg's options in its order; scale to 65535 as ffmpeg's, delta on the
 * 8-bit scale (ffmpeg's is on the plane's: at most 255 makes sense there). */
static const clv_param params[] = {
    {"planes", CLV_PARAM_INT, "15", 0, 15, NULL,
     "ffmpeg's planes of gbrp to filter: 1 green, 2 blue, 4 red (8, alpha, is kept)", 1},
    {"scale", CLV_PARAM_REAL, "1", 0, 65535, NULL, "multiplies the magnitude (to 1/1000)", 0.25},
    {"delta", CLV_PARAM_REAL, "0", -255, 255, NULL,
     "added to the scaled magnitude (8-bit scale; to 1/1000)", 1},
};
_Static_assert(sizeof params / sizeof params[0] == EDGE_PARAM_COUNT,
               "edge: the enum and the params table differ");

static const char *const sobel_kernels[] = {"sobel", "sobel_unit", NULL};
static const char *const roberts_kernels[] = {"roberts", "roberts_unit", NULL};
static const char *const scharr_kernels[] = {"scharr", "scharr_unit", NULL};
static const char *const kirsch_kernels[] = {"kirsch", "kirsch_unit", NULL};

static int scharr_reference(void *ref_state, const clv_value *v, const clv_image *src,
                            clv_image *dst, uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    return edge_more_reference(v, src, dst, 0);
}

static int kirsch_reference(void *ref_state, const clv_value *v, const clv_image *src,
                            clv_image *dst, uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    return edge_more_reference(v, src, dst, 1);
}

const clv_filter clv__filter_sobel = {
    .name = "sobel",
    .help = "Sobel edges: clamp(floor(sqrt(gx^2 + gy^2) * scale + delta)) per channel (ffmpeg's "
            "sobel)",
    .params = params,
    .param_count = EDGE_PARAM_COUNT,
    .program = "edge",
    .kernels = sobel_kernels,
    .state_size = sizeof(edge_state),
    .deep = 1,
    .run = edge_run,
    .reference = sobel_reference,
};

const clv_filter clv__filter_roberts = {
    .name = "roberts",
    .help = "Roberts cross edges as ffmpeg's roberts: clamp(floor(sqrt(gx^2 + gy^2) * scale + "
            "delta)) per channel",
    .params = params,
    .param_count = EDGE_PARAM_COUNT,
    .program = "edge",
    .kernels = roberts_kernels,
    .state_size = sizeof(edge_state),
    .deep = 1,
    .run = edge_run,
    .reference = roberts_reference,
};

const clv_filter clv__filter_scharr = {
    .name = "scharr",
    .help = "Scharr edges as ffmpeg's scharr: clamp(floor(sqrt(gx^2 + gy^2) / 256 * scale + "
            "delta)) per channel, weights 47, 162, 47",
    .params = params,
    .param_count = EDGE_PARAM_COUNT,
    .program = "edge",
    .kernels = scharr_kernels,
    .state_size = sizeof(edge_state),
    .deep = 1,
    .run = scharr_run,
    .reference = scharr_reference,
};

const clv_filter clv__filter_kirsch = {
    .name = "kirsch",
    .help = "Kirsch compass edges as ffmpeg's kirsch: clamp(floor(|the largest of eight compass "
            "sums| * scale + delta)) per channel",
    .params = params,
    .param_count = EDGE_PARAM_COUNT,
    .program = "edge",
    .kernels = kirsch_kernels,
    .state_size = sizeof(edge_state),
    .deep = 1,
    .run = kirsch_run,
    .reference = kirsch_reference,
};
