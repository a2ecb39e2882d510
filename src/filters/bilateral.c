/* bilateral.c - a true bilateral filter under ffmpeg's name and options
 * (sigmaS, sigmaR, planes), on OpenCV's definition (cv::bilateralFilter on
 * a colour image), in fixed point; cl/bilateral.cl.
 *
 * ffmpeg's bilateral is a recursive approximation (Yang's O(1) filter, a
 * range weight exp(-|d| / (sigmaR maxv)) along rows and columns); this one
 * is the filter itself: each pixel p becomes the weighted mean of the
 * pixels q of a disc around it,
 *   w(p, q) = ws(q - p) * wr(d(p, q)),
 *   ws = exp(-(dx^2 + dy^2) / (2 sigmaS^2)) for dx^2 + dy^2 <= radius^2,
 *   radius = max(1, lrint(1.5 sigmaS)) (OpenCV's rule for d <= 0),
 *   d(p, q) = the sum over the filtered channels of |q_c - p_c| in codes,
 *   wr = exp(-d^2 / (2 sigmaC^2)), sigmaC = sigmaR * 255 codes at 8 bits
 * (sigmaR is ffmpeg's 0-1 scale; OpenCV's sigmaColor is sigmaR * 255, its
 * sigmaSpace sigmaS), neighbours outside the picture clamped to its edge
 * (OpenCV's BORDER_REPLICATE). The channels `planes` names (1 red, 2
 * green, 4 blue; 8, ffmpeg's alpha plane, is ignored: alpha is kept) share
 * one weight, as OpenCV's colour filter does; the others are copied.
 *
 * The host builds both weights as tables (bil_tables): the disc's taps
 * (dx, dy, ws) with ws in Q15 (taps whose weight rounds to 0 left out, so
 * a small sigmaS costs nothing), and wr by d in Q15 (wr[0] = 32768):
 * d + 1 entries at 8 bits (d <= 3 * 255); at 16 bits the table is indexed
 * by d >> 6 (bins of 64 codes, each weighted at its smallest difference
 * k * 64, sigmaC = sigmaR * 65535). A tap weighs (ws * wr) >> 15; the
 * sums are integers (the weights' in 32 bits, weight * value in 64), the
 * output (sum + weights / 2) / weights per channel: exact on every device.
 * sigmaS = 0 or sigmaR = 0 leave only the pixel itself (OpenCV reads
 * sigmas <= 0 as 1). The cost grows as sigmaS^2 (a disc of radius 48 at
 * sigmaS = 32, ffmpeg's limit being 512 for its O(1) approximation). */
#include "filters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BIL_SIGMA_S, BIL_SIGMA_R, BIL_PLANES, BIL_PARAM_COUNT };

/* cl/bilateral.cl's at 16 bits: d >> 6 indexes the range table. */
#define BIL_SHIFT16 6

/* The filtered channels of `planes`: bits 0-2 (R, G, B). */
static int selected(const clv_value *v)
{
    return (int)(v[BIL_PLANES].i & 7);
}

/* The host's tables for the values at a depth: taps (dx, dy, ws, 0) of the
 * disc, the centre first, and the range weights. */
typedef struct bil_tables {
    cl_int *taps; /* 4 a tap */
    int ntaps, radius;
    cl_uint *range;
    int nrange, shift;
    int nweights; /* range's entries in all: nrange, and weight_tables' after them */
} bil_tables;

static void tables_free(bil_tables *t)
{
    free(t->taps);
    free(t->range);
    memset(t, 0, sizeof *t);
}

static int tables_make(const clv_value *v, int depth, bil_tables *t)
{
    memset(t, 0, sizeof *t);
    const double sigma_s = (double)v[BIL_SIGMA_S].i / 1000.0,
                 sigma_r = (double)v[BIL_SIGMA_R].i / 1000.0;
    int radius = (int)lrint(1.5 * sigma_s);
    radius = radius < 1 ? 1 : radius;
    const int maxv = depth == 16 ? 65535 : 255, sel = selected(v),
              nsel = (sel & 1) + (sel >> 1 & 1) + (sel >> 2 & 1);
    t->shift = depth == 16 ? BIL_SHIFT16 : 0;
    t->nrange = ((nsel * maxv) >> t->shift) + 1;
    const size_t side = 2 * (size_t)radius + 1;
    t->taps = malloc((side * side + 3) * 4 * sizeof *t->taps);
    t->nweights = t->nrange;
    t->range = malloc((size_t)t->nrange * sizeof *t->range);
    if (!t->taps || !t->range) {
        tables_free(t);
        return CLV_ENOMEM;
    }
    t->radius = radius;
    t->taps[0] = t->taps[1] = t->taps[3] = 0;
    t->taps[2] = 32768;
    t->ntaps = 1;
    for (int dy = -radius; dy <= radius; dy++)
        for (int dx = -radius; dx <= radius; dx++) {
            const int r2 = dx * dx + dy * dy;
            if (r2 == 0 || r2 > radius * radius || sigma_s <= 0)
                continue;
            const long ws = lrint(32768.0 * exp(-r2 / (2.0 * sigma_s * sigma_s)));
            if (ws <= 0)
                continue;
            cl_int *tap = t->taps + 4 * t->ntaps++;
            tap[0] = dx;
            tap[1] = dy;
            tap[2] = (cl_int)ws;
            tap[3] = 0;
        }
    /* weightless taps up to a multiple of four (cl/bilateral.cl's passes) */
    while (t->ntaps % 4) {
        cl_int *tap = t->taps + 4 * t->ntaps++;
        tap[0] = tap[1] = tap[2] = tap[3] = 0;
    }
    const double sigma_c = sigma_r * maxv;
    for (int k = 0; k < t->nrange; k++) {
        const double d = (double)k * (1 << t->shift);
        t->range[k] = k == 0 ? 32768u
                      : sigma_c > 0
                          ? (cl_uint)lrint(32768.0 * exp(-d * d / (2.0 * sigma_c * sigma_c)))
                          : 0u;
    }
    return 0;
}

/* CPUs at 8 bits: each tap's weights (ws * range[d]) >> 15 for every d, a
 * table for each spatial weight but the centre's (whose 32768 is no
 * 16-bit operand for cl/bilateral.cl's products), after the range table,
 * tap[3] its offset there: the kernel reads a tap's weight where it read
 * the range weight, and no longer multiplies. Only where the tables stay
 * small (a disc has as many spatial weights as distances: 9 for sigmaS 3,
 * 33 for 5); otherwise tap[3] stays 0 (the range table and a multiply). */
#define BIL_WEIGHT_TABLES 64
static int weight_tables(bil_tables *t)
{
    int ws[BIL_WEIGHT_TABLES], n = 0;
    for (int k = 1; k < t->ntaps; k++) {
        const int w = t->taps[4 * k + 2];
        int j = 0;
        while (j < n && ws[j] != w)
            j++;
        if (w == 0 || w >= 32768 || j < n)
            continue;
        if (n == BIL_WEIGHT_TABLES)
            return 0;
        ws[n++] = w;
    }
    cl_uint *range = realloc(t->range, (size_t)t->nrange * (size_t)(n + 1) * sizeof *range);
    if (!range)
        return CLV_ENOMEM;
    t->range = range;
    t->nweights = t->nrange * (n + 1);
    for (int j = 0; j < n; j++)
        for (int d = 0; d < t->nrange; d++)
            range[t->nrange * (j + 1) + d] = ((cl_uint)ws[j] * range[d]) >> 15;
    for (int k = 1; k < t->ntaps; k++)
        for (int j = 0; j < n; j++)
            if (t->taps[4 * k + 2] == ws[j])
                t->taps[4 * k + 3] = t->nrange * (j + 1);
    return 0;
}

typedef struct bil_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_kernel tile;   /* GPUs: bilateral_tile, where its local memory fits */
    cl_mem taps, range;
    int ntaps, radius, shift, sel, nrange;
    int depth;
} bil_state;

static const char *const kernels[] = {"bilateral", NULL};

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    bil_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    return ctx->row_shape ? 0 : clv__kernel_create(prog, "bilateral_tile", &s->tile, msg);
}

static void tables_release(bil_state *s)
{
    clv__mem_release(&s->taps);
    clv__mem_release(&s->range);
}

static void uninit(void *state)
{
    bil_state *s = state;
    clv__kernel_release(&s->tile);
    tables_release(s);
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    bil_state *s = state;
    bil_tables t;
    if (tables_make(values, s->depth, &t) ||
        (ctx->row_shape && s->depth == 8 && weight_tables(&t))) {
        tables_free(&t);
        return clv__fail(msg, CLV_ENOMEM, "bilateral: out of memory for its tables");
    }
    tables_release(s);
    cl_int st = CL_SUCCESS;
    s->taps = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             (size_t)t.ntaps * 4 * sizeof(cl_int), t.taps, &st);
    if (st == CL_SUCCESS)
        s->range = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  (size_t)t.nweights * sizeof(cl_uint), t.range, &st);
    s->ntaps = t.ntaps;
    s->radius = t.radius;
    s->shift = t.shift;
    s->nrange = t.nrange;
    s->sel = selected(values);
    tables_free(&t);
    return st == CL_SUCCESS
               ? 0
               : clv__fail(msg, CLV_ENOMEM, "bilateral: cannot allocate its tables: %s",
                           clv__cl_strerror(st));
}

/* cl/bilateral.cl's bilateral_tile, in pixels. */
#define BIL_TW 64
#define BIL_TH 16

/* GPUs: the tile kernel where the picture around a tile and the range
 * weights fit local memory; 1 where they do not. */
static int run_tile(bil_state *s, const clv_launch *l)
{
    const size_t px = l->depth == 16 ? 8 : 4;
    const size_t img = (BIL_TW + 2 * (size_t)s->radius) * (BIL_TH + 2 * (size_t)s->radius) * px,
                 range = (size_t)s->nrange * sizeof(cl_uint);
    if (img + range + 1024 > l->ctx->dev.local_mem)
        return 1;
    cl_int ntaps = s->ntaps, radius = s->radius, shift = s->shift, sel = s->sel, nrange = s->nrange;
    int err = clv__kernel_frame_args(s->tile, l);
    if (!err)
        err =
            clv__kernel_args(s->tile, 5, 7, CLV__ARG(s->taps), CLV__ARG(ntaps), CLV__ARG(radius),
                             CLV__ARG(s->range), CLV__ARG(shift), CLV__ARG(sel), CLV__ARG(nrange));
    if (!err && (clSetKernelArg(s->tile, 12, img, NULL) != CL_SUCCESS ||
                 clSetKernelArg(s->tile, 13, range, NULL) != CL_SUCCESS))
        err = CLV_ECL;
    size_t local[2] = {16, 16};
    size_t global[2] = {((size_t)l->width + BIL_TW - 1) / BIL_TW * 16,
                        ((size_t)l->height + BIL_TH - 1) / BIL_TH * 16};
    return err ? err : clv__launch(l, s->tile, 2, global, local);
}

static int run(void *state, const clv_launch *l)
{
    bil_state *s = state;
    if (s->tile) {
        int tiled = run_tile(s, l);
        if (tiled != 1)
            return tiled;
    }
    cl_int ntaps = s->ntaps, radius = s->radius, shift = s->shift, sel = s->sel;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err =
            clv__kernel_args(s->kernel, 5, 6, CLV__ARG(s->taps), CLV__ARG(ntaps), CLV__ARG(radius),
                             CLV__ARG(s->range), CLV__ARG(shift), CLV__ARG(sel));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    bil_tables t;
    if (tables_make(v, clv__depth(src), &t))
        return CLV_ENOMEM;
    const int sel = selected(v), w = src->width, h = src->height;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int p[3];
            for (int c = 0; c < 3; c++)
                p[c] = clv__get(src, x, y, c);
            uint32_t den = 0;
            uint64_t num[3] = {0, 0, 0};
            for (int k = 0; k < t.ntaps; k++) {
                const cl_int *tap = t.taps + 4 * k;
                int q[3], d = 0;
                for (int c = 0; c < 3; c++) {
                    q[c] = clv__get_clamped(src, x + tap[0], y + tap[1], c);
                    if (sel >> c & 1)
                        d += abs(q[c] - p[c]);
                }
                const uint32_t wt = ((uint32_t)tap[2] * t.range[d >> t.shift]) >> 15;
                den += wt;
                for (int c = 0; c < 3; c++)
                    num[c] += (uint64_t)wt * (uint64_t)q[c];
            }
            for (int c = 0; c < 3; c++)
                clv__put(dst, x, y, c, sel >> c & 1 ? (int)((num[c] + den / 2) / den) : p[c]);
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    tables_free(&t);
    return 0;
}

static const clv_param params[] = {
    {"sigmaS", CLV_PARAM_REAL, "0.1", 0, 32, NULL,
     "spatial sigma in pixels (the disc's radius: 1.5 sigmaS)", 0.5},
    {"sigmaR", CLV_PARAM_REAL, "0.1", 0, 1, NULL,
     "range sigma on a 0-1 scale (OpenCV's sigmaColor / 255)", 0.02},
    {"planes", CLV_PARAM_INT, "7", 0, 15, NULL,
     "channels to filter: 1 red, 2 green, 4 blue (8: alpha, kept)", 1},
};
_Static_assert(sizeof params / sizeof params[0] == BIL_PARAM_COUNT,
               "bilateral: the enum and the params table differ");

const clv_filter clv__filter_bilateral = {
    .name = "bilateral",
    .help = "edge-preserving smoothing: a true bilateral filter (OpenCV's), ffmpeg's options",
    .params = params,
    .param_count = BIL_PARAM_COUNT,
    .program = "bilateral",
    .kernels = kernels,
    .deep = 1,
    .state_size = sizeof(bil_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
