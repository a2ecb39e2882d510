/* nlmeans.c - ffmpeg's nlmeans (libavfilter/vf_nlmeans.c), non-local
 * means, on each of R, G and B as ffmpeg does on each plane of gbrp, in
 * integers; cl/nlmeans.cl.
 *
 * Each sample v(x) of a channel becomes the weighted mean of v(x) (weight
 * 1) and of v(x + o) for every offset o of the research window
 * (|ox|, |oy| <= r / 2, o != 0, x + o inside the picture), weighed by the
 * distance of the patches around x and x + o:
 *   D = sum over |i|, |j| <= p / 2 of (v(x + o + (i, j)) - v(x + (i, j)))^2
 * with coordinates clamped to the picture (vf_nlmeans' integral images do
 * the same), and vf_nlmeans' weight exp(-D / h^2), h = 10 s, which it
 * cuts to 0 from D >= M = (uint32_t)(log(255) h^2) on. p and r are made odd
 * as ffmpeg does (p |= 1). pc and rc, ffmpeg's settings for its chroma
 * planes, are read and act on nothing: R, G and B all take p and r, as
 * ffmpeg's gbrp planes would with pc = p and rc = r.
 *
 * In integers: the host's table (nlm_table) holds the weights in Q16
 * (65536 = 1) of D >> shift, shift the least that keeps the table within
 * NLM_TABLE entries, each bin weighted at its smallest distance (shift 0,
 * every distance its own weight, while M + 2 <= NLM_TABLE: s up to 2.7 at
 * 8 bits), 0 from the first bin whose smallest distance reaches M on; the
 * sample is (65536 v(x) + sum w v(x + o) + den / 2) / den with
 * den = 65536 + sum w. At 16 bits the same on 16-bit samples with
 * h = 257 * 10 s (the distances of a picture times 257 are 257^2 times its
 * 8-bit ones), distances in 64 bits. Alpha is kept.
 *
 * The device walks tiles of the picture, each offset in turn, the patch
 * distances of a tile's rows as sliding sums of its columns' squared
 * differences (vf_nlmeans' integral images, restated per tile): O(1) a
 * sample and offset for a patch's rows, O(p) for its columns. */
#include "filters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NLM_S, NLM_P, NLM_PC, NLM_R, NLM_RC, NLM_PARAM_COUNT };

/* The most entries of the weight table (cl/nlmeans.cl's NLM_TABLE). */
#define NLM_TABLE 4096

/* The weight table of s at a depth: Q16 weights of D >> shift. */
typedef struct nlm_table {
    cl_uint w[NLM_TABLE + 1];
    int count, shift;
} nlm_table;

static void table_make(double s, int depth, nlm_table *t)
{
    const double h = 10.0 * s * (depth == 16 ? 257.0 : 1.0), h2 = h * h;
    /* ffmpeg's max_meaningful_diff: the double converted to uint32_t (64
     * bits here: it passes 2^32 at 16 bits) */
    const uint64_t m = (uint64_t)(log(255.0) * h2);
    int shift = 0;
    while ((m >> shift) + 2 > NLM_TABLE)
        shift++;
    t->shift = shift;
    t->count = (int)(m >> shift) + 2;
    for (int k = 0; k < t->count; k++) {
        const uint64_t d = (uint64_t)k << shift;
        t->w[k] = d < m ? (cl_uint)lrint(65536.0 * exp(-(double)d / h2)) : 0;
    }
}

/* p and r as ffmpeg uses them: odd, halved. */
static int half(const clv_value *v, int which)
{
    return (int)(v[which].i | 1) / 2;
}

typedef struct nlm_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_kernel tile;   /* GPUs: nlmeans_tile, where its local memory fits */
    cl_mem table;
    cl_int count, shift, p, r;
    int depth;
} nlm_state;

static const char *const kernels[] = {"nlmeans", NULL};

/* cl/nlmeans.cl's tile, in pixels (row shape). */
#define NLM_TW 64
#define NLM_TH 16

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    nlm_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    if (!ctx->row_shape) {
        int err = clv__kernel_create(prog, "nlmeans_tile", &s->tile, msg);
        if (err)
            return err;
    }
    cl_int st = CL_SUCCESS;
    s->table =
        clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, (NLM_TABLE + 1) * sizeof(cl_uint), NULL, &st);
    return st == CL_SUCCESS ? 0
                            : clv__fail(msg, CLV_ENOMEM, "nlmeans: cannot allocate its table: %s",
                                        clv__cl_strerror(st));
}

static void uninit(void *state)
{
    nlm_state *s = state;
    clv__kernel_release(&s->tile);
    clv__mem_release(&s->table);
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    nlm_state *s = state;
    nlm_table *t = malloc(sizeof *t);
    if (!t)
        return clv__fail(msg, CLV_ENOMEM, "nlmeans: out of memory for its table");
    table_make((double)values[NLM_S].i / 1000.0, s->depth, t);
    cl_int st = clEnqueueWriteBuffer(ctx->queue, s->table, CL_TRUE, 0,
                                     (size_t)t->count * sizeof(cl_uint), t->w, 0, NULL, NULL);
    s->count = t->count;
    s->shift = t->shift;
    s->p = half(values, NLM_P);
    s->r = half(values, NLM_R);
    free(t);
    return st == CL_SUCCESS ? 0
                            : clv__fail(msg, CLV_ECL, "nlmeans: cannot upload its table: %s",
                                        clv__cl_strerror(st));
}

/* cl/nlmeans.cl's nlmeans_tile, in pixels, and its local memory: the
 * picture around the tile (a pixel each), the squared differences of the
 * tile and its patch reach and their column sums (three channels each). */
#define NLM_GTW 32
#define NLM_GTH 16

static int run_tile(nlm_state *s, const clv_launch *l)
{
    const size_t px = l->depth == 16 ? 8 : 4, d = l->depth == 16 ? 8 : 4;
    const size_t reach = (size_t)(s->p + s->r), sw = NLM_GTW + 2 * (size_t)s->p;
    const size_t img = (NLM_GTW + 2 * reach) * (NLM_GTH + 2 * reach) * px;
    const size_t sq = 3 * sw * (NLM_GTH + 2 * (size_t)s->p) * d, col = 3 * sw * NLM_GTH * d;
    if (img + sq + col + 1024 > l->ctx->dev.local_mem)
        return 1; /* the per-pixel kernel */
    int err = clv__kernel_frame_args(s->tile, l);
    if (!err)
        err = clv__kernel_args(s->tile, 5, 5, CLV__ARG(s->p), CLV__ARG(s->r), CLV__ARG(s->table),
                               CLV__ARG(s->count), CLV__ARG(s->shift));
    if (!err && (clSetKernelArg(s->tile, 10, img, NULL) != CL_SUCCESS ||
                 clSetKernelArg(s->tile, 11, sq, NULL) != CL_SUCCESS ||
                 clSetKernelArg(s->tile, 12, col, NULL) != CL_SUCCESS))
        err = CLV_ECL;
    size_t local[2] = {32, 8};
    size_t global[2] = {((size_t)l->width + NLM_GTW - 1) / NLM_GTW * 32,
                        ((size_t)l->height + NLM_GTH - 1) / NLM_GTH * 8};
    return err ? err : clv__launch(l, s->tile, 2, global, local);
}

static int run(void *state, const clv_launch *l)
{
    nlm_state *s = state;
    if (s->tile) {
        int tiled = run_tile(s, l); /* 1: it does not fit */
        if (tiled != 1)
            return tiled;
    }
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 5, CLV__ARG(s->p), CLV__ARG(s->r), CLV__ARG(s->table),
                               CLV__ARG(s->count), CLV__ARG(s->shift));
    if (err)
        return err;
    if (l->ctx->row_shape) {
        /* a tile a work-item, a group each (PoCL makes one group of all
         * of them without a local size) */
        size_t global[2] = {((size_t)l->width + NLM_TW - 1) / NLM_TW,
                            ((size_t)l->height + NLM_TH - 1) / NLM_TH},
               local[2] = {1, 1};
        return clv__launch(l, s->kernel, 2, global, local);
    }
    return clv__launch_pixels(l, s->kernel, l->width, l->height);
}

/* ---- The reference: vf_nlmeans' sums, an integral image an offset. ----- */

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int w = src->width, h = src->height, p = half(v, NLM_P), r = half(v, NLM_R);
    nlm_table *t = malloc(sizeof *t);
    /* the integral image of the squared differences over x in
     * [-p, w + p) x [-p, h + p), a zero row and column before */
    const int iw = w + 2 * p + 1, ih = h + 2 * p + 1;
    uint64_t *ii = malloc((size_t)iw * (size_t)ih * sizeof *ii);
    uint64_t *num = malloc((size_t)w * (size_t)h * sizeof *num);
    uint64_t *den = malloc((size_t)w * (size_t)h * sizeof *den);
    if (!t || !ii || !num || !den) {
        free(t);
        free(ii);
        free(num);
        free(den);
        return CLV_ENOMEM;
    }
    table_make((double)v[NLM_S].i / 1000.0, clv__depth(src), t);
    for (int c = 0; c < 3; c++) {
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
            num[i] = den[i] = 0;
        for (int oy = -r; oy <= r; oy++)
            for (int ox = -r; ox <= r; ox++) {
                if (!ox && !oy)
                    continue;
                for (int x = 0; x < iw; x++)
                    ii[x] = 0;
                for (int y = 1; y < ih; y++) {
                    uint64_t row = 0;
                    ii[(size_t)y * (size_t)iw] = 0;
                    for (int x = 1; x < iw; x++) {
                        const int zx = x - 1 - p, zy = y - 1 - p;
                        const int64_t d = clv__get_clamped(src, zx + ox, zy + oy, c) -
                                          clv__get_clamped(src, zx, zy, c);
                        row += (uint64_t)(d * d);
                        ii[(size_t)y * (size_t)iw + (size_t)x] =
                            ii[(size_t)(y - 1) * (size_t)iw + (size_t)x] + row;
                    }
                }
                for (int y = 0; y < h; y++) {
                    if (y + oy < 0 || y + oy >= h)
                        continue;
                    for (int x = 0; x < w; x++) {
                        if (x + ox < 0 || x + ox >= w)
                            continue;
                        /* the patch around x: ii's rows y .. y + 2p + 1 */
                        const size_t a = (size_t)y * (size_t)iw + (size_t)x,
                                     b = a + 2 * (size_t)p + 1,
                                     dd = (size_t)(y + 2 * p + 1) * (size_t)iw + (size_t)x,
                                     e = dd + 2 * (size_t)p + 1;
                        const uint64_t dist = ii[e] - ii[dd] - ii[b] + ii[a];
                        uint64_t k = dist >> t->shift;
                        k = k < (uint64_t)t->count - 1 ? k : (uint64_t)t->count - 1;
                        const size_t at = (size_t)y * (size_t)w + (size_t)x;
                        den[at] += t->w[k];
                        num[at] += (uint64_t)t->w[k] * (uint64_t)clv__get(src, x + ox, y + oy, c);
                    }
                }
            }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const size_t at = (size_t)y * (size_t)w + (size_t)x;
                const uint64_t dn = den[at] + 65536,
                               nm = num[at] + 65536 * (uint64_t)clv__get(src, x, y, c);
                clv__put(dst, x, y, c, (int)((nm + dn / 2) / dn));
            }
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
    free(t);
    free(ii);
    free(num);
    free(den);
    return 0;
}

static const clv_param params[] = {
    {"s", CLV_PARAM_REAL, "1", 1, 30, NULL, "denoising strength (h = 10 s)", 0.5},
    {"p", CLV_PARAM_INT, "7", 0, 99, NULL, "patch size (odd; an even one is made odd)", 2},
    {"pc", CLV_PARAM_INT, "0", 0, 99, NULL,
     "ffmpeg's patch size for chroma planes: RGB has none (R, G, B take p)", 2},
    {"r", CLV_PARAM_INT, "15", 0, 99, NULL, "research window (odd; an even one is made odd)", 2},
    {"rc", CLV_PARAM_INT, "0", 0, 99, NULL,
     "ffmpeg's research window for chroma planes: RGB has none (R, G, B take r)", 2},
};
_Static_assert(sizeof params / sizeof params[0] == NLM_PARAM_COUNT,
               "nlmeans: the enum and the params table differ");

const clv_filter clv__filter_nlmeans = {
    .name = "nlmeans",
    .help = "non-local means denoiser (ffmpeg's nlmeans) on each of R, G, B",
    .params = params,
    .param_count = NLM_PARAM_COUNT,
    .program = "nlmeans",
    .kernels = kernels,
    .deep = 1,
    .state_size = sizeof(nlm_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
