/* median.c - per-channel median of the (2r+1)^2 window. */
#include "filters.h"

#include <stdio.h>

/* The kernels by kind: 3x3, 5x5 and 7x7 networks, counting (CPUs from
 * 7x7 on), sliding histograms (GPUs from 9x9 on); cl/median.cl builds one
 * kind a program. */
enum { K3, K5, K7, KRADIX, KHIST, KINDS };
#define MAX_RADIUS 7
/* The parameters, in the order of the table below. */
enum { MEDIAN_RADIUS, MEDIAN_PARAM_COUNT };
static const char *const kernel_name[KINDS] = {"median3", "median5", "median7", "median_radix",
                                               "median_hist"};

typedef struct median_state {
    cl_kernel k[MAX_RADIUS + 1];     /* by radius, made when a radius first needs one */
    cl_kernel fused[MAX_RADIUS + 1]; /* CPUs: the same inside the conversions (<kind>_yuv) */
    clv__rows rows;                  /* the fused kernels' strips */
} median_state;

/* On GPUs: 7x7 by shared sorted columns, larger windows by sliding
 * histograms. On CPUs from 7x7 on by counting, whose byte loops vectorize.
 * At 16 bits (depth) the 7x7 network and the histograms of bytes have no
 * counterpart: counting takes every window from 7x7 on, in both shapes. */
static int kind_of(int r, int row_shape, int depth)
{
    if (r <= 2)
        return r == 1 ? K3 : K5;
    return row_shape || depth == 16 ? KRADIX : r == 3 ? K7 : KHIST;
}

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)state, (void)ctx, (void)prog, (void)msg;
    return 0; /* configure builds the kernel the radius takes */
}

/* Builds the radius's kernel alone (all four took NVIDIA's compiler
 * 1.35-1.55 s, median3 alone 0.19-0.23 s); a radius changed later builds
 * its own on the change. The chain sets ctx->build_depth around every
 * configure, so a state builds at one depth. */
static int configure(void *state, clv_context *ctx, const clv_value *v, clv_msg *msg)
{
    median_state *s = state;
    const int deep = ctx->build_depth == 16;
    const int r = (int)v[MEDIAN_RADIUS].i, kind = kind_of(r, ctx->row_shape, deep ? 16 : 8);
    if (s->k[r])
        return 0;
    char defines[48];
    snprintf(defines, sizeof defines, "-DCLV_MEDIAN_KIND=%d", kind);
    if (kind == KHIST || (kind == KRADIX && deep)) /* the radius's own program */
        snprintf(defines, sizeof defines, "-DCLV_MEDIAN_KIND=%d -DCLV_MEDIAN_R=%d", kind, r);
    cl_program prog = NULL;
    int err = clv__program_variant(ctx, "median", defines, &prog, msg);
    if (!err && ctx->row_shape && !deep) { /* the conversions are 8-bit only */
        char name[32];
        snprintf(name, sizeof name, "%s_yuv", kernel_name[kind]);
        err = clv__kernel_create(prog, name, &s->fused[r], msg);
    }
    return err ? err : clv__kernel_create(prog, kernel_name[kind], &s->k[r], msg);
}

static void uninit(void *state)
{
    median_state *s = state;
    for (int r = 0; r <= MAX_RADIUS; r++) {
        clv__kernel_release(&s->k[r]);
        clv__kernel_release(&s->fused[r]);
    }
    clv__rows_release(&s->rows);
}

static int run(void *state, const clv_launch *l)
{
    median_state *s = state;
    cl_int r = (cl_int)l->values[MEDIAN_RADIUS].i;
    const int kind = kind_of(r, l->ctx->row_shape, l->depth);
    cl_kernel k = s->k[r];
    if (!k) /* configure failed for this radius (and said why) */
        return CLV_EBUILD;
    int err = clv__kernel_frame_args(k, l);
    if (!err && kind == KRADIX)
        err = clv__kernel_args(k, 5, 1, CLV__ARG(r));
    if (err)
        return err;
    if (kind == KHIST) {
        /* A group of 32 columns, each work-item sliding down `strip` rows:
         * the longest strip (up to 128) that leaves 16 groups a compute
         * unit (longer strips share more of the histogram's updates; fewer
         * groups than that left units idle). */
        const size_t columns = ((size_t)l->width + 31) / 32;
        const size_t cu = l->ctx->dev.compute_units;
        size_t strip = ((size_t)l->height * columns / (16 * (cu ? cu : 1)) + 7) / 8 * 8;
        strip = strip < 8 ? 8 : strip > 128 ? 128 : strip;
        cl_int strip_arg = (cl_int)strip;
        size_t local[2] = {32, 1};
        size_t global[2] = {columns * 32, ((size_t)l->height + strip - 1) / strip};
        err = clv__kernel_args(k, 5, 1, CLV__ARG(strip_arg));
        return err ? err : clv__launch(l, k, 2, global, local);
    }
    /* The GPU shape's 3x3 makes eight pixels of two rows a work-item (at 8
     * bits: MED3_PX in cl/median3.cl), the 5x5 four of two rows. */
    if (kind == K3 && l->depth != 16 && !l->ctx->row_shape)
        return clv__launch_pixels(l, k, (l->width + 1) / 2, (l->height + 1) / 2);
    return (kind == K3 || kind == K5) && l->depth != 16
               ? clv__launch_pixel_pairs(l, k)
               : clv__launch_pixels(l, k, l->width, l->height);
}

/* CPUs: the window inside the stage's conversions (cl/yuv.cl). */
static int run_yuv(void *state, const clv_launch *l, const clv__yuv_io *io)
{
    median_state *s = state;
    cl_int r = (cl_int)l->values[MEDIAN_RADIUS].i;
    cl_kernel k = s->fused[r];
    if (!k)
        return 1;
    int err = kind_of(r, l->ctx->row_shape, l->depth) == KRADIX
                  ? clv__kernel_args(k, CLV__FUSED_ARGS, 1, CLV__ARG(r))
                  : 0;
    return err ? err : clv__run_fused(l, io, k, r, &s->rows, "median");
}

/* The k-th smallest (from 0) of the n values of `bits` bits (8 or 16) by
 * counting, a byte at a time from the top: the byte of the bin where the
 * count passes k, then the same among the values in that bin. */
static int kth_smallest(const int *values, int n, int k, int bits)
{
    int prefix = 0; /* the bytes found so far */
    for (int shift = bits - 8; shift >= 0; shift -= 8) {
        int count[256] = {0};
        for (int i = 0; i < n; i++)
            if (values[i] >> (shift + 8) == prefix)
                count[(values[i] >> shift) & 255]++;
        int b = 0;
        while (k >= count[b])
            k -= count[b++];
        prefix = prefix << 8 | b;
    }
    return prefix;
}

/* The median: the smallest v with more than n/2 of the window's values
 * <= v, per channel; alpha is the centre's. At either depth. */
static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    int r = (int)v[MEDIAN_RADIUS].i, n = (2 * r + 1) * (2 * r + 1);
    int window[3][(2 * MAX_RADIUS + 1) * (2 * MAX_RADIUS + 1)];
    for (int y = 0; y < src->height; y++) {
        for (int x = 0; x < src->width; x++) {
            int m = 0;
            for (int j = -r; j <= r; j++) {
                const int yy = clv__clamp(y + j, 0, src->height - 1);
                for (int i = -r; i <= r; i++, m++) {
                    const int xx = clv__clamp(x + i, 0, src->width - 1);
                    for (int c = 0; c < 3; c++)
                        window[c][m] = clv__get(src, xx, yy, c);
                }
            }
            for (int c = 0; c < 3; c++)
                clv__put(dst, x, y, c, kth_smallest(window[c], n, n / 2, clv__depth(src)));
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    }
    return 0;
}

static const clv_param params[] = {
    {"radius", CLV_PARAM_INT, "1", 1, MAX_RADIUS, NULL, "window of (2r+1) x (2r+1) pixels", 1},
};
_Static_assert(sizeof params / sizeof params[0] == MEDIAN_PARAM_COUNT,
               "median: the enum and the params table differ");

const clv_filter clv__filter_median = {
    .name = "median",
    .help = "per-channel median of the (2r+1) x (2r+1) window",
    .params = params,
    .param_count = MEDIAN_PARAM_COUNT,
    .program = NULL, /* cl/median.cl, built a kernel at a time by configure */
    .deep = 1,
    .state_size = sizeof(median_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .run_yuv = run_yuv,
    .reference = reference,
};
