/* equalize.c - histogram equalization of gray(p) over each frame, as
 * OpenCV's equalizeHist. mode=gray: R=G=B=lut[gray]; mode=luma: R,G,B each
 * move by lut[Y] - Y (the luma becomes lut[Y], Cb and Cr are kept).
 * mode=gray, and at 8 bits either mode on CPUs, keeps the histogram pass's
 * gray levels in the scratch frame for the apply pass.
 *
 * At 16 bits the histogram has all 65536 levels of gray16(p) and
 * lut[v] = floor((2 * 65535 * (cdf(v) - cdf_min) + D) / (2 D)),
 * D = N - cdf_min: equalizeHist's map on 0-65535, rounded exactly (half
 * up) in 64-bit integers where the 8-bit map rounds a float (make_lut).
 * No binning: 4096 bins of the top 12 bits would need a made-up mapping
 * inside each bin, where every level here gets its own cdf; two levels
 * join only when the equalization itself joins them (a level holding
 * fewer than about D / 65535 pixels), so a 10-bit source's codes stay
 * apart. The cost stays that of a pass over the frame: CPUs count into one
 * 256 KB histogram per compute unit (their caches hold it), GPUs with one
 * global atomic per run of a level in 16 pixels, and the table is 65536
 * entries made once per frame (run_deep, cl/equalize.cl). */
#include "filters.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIST_WORDS 257     /* cl/equalize.cl: 256 counters, then EQ_ALPHA */
#define HIST_WORDS16 65537 /* at 16 bits: 65536 counters, then EQ_ALPHA */
#define LUT_ITEMS16 256    /* cl/equalize.cl: EQ_LUT_ITEMS, eq_lut's group on GPUs */
#define EQ_ROWS 5          /* cl/equalize.cl: run_yuv's rows a work-item */

/* The parameters, in the order of the table below, and mode's choices in
 * the order of its list. */
enum { EQUALIZE_MODE, EQUALIZE_PARAM_COUNT };
enum { MODE_LUMA, MODE_GRAY };

typedef struct equalize_state {
    cl_kernel hist, lut, apply;
    cl_kernel hist_yuv, apply_yuv; /* CPUs: run_yuv's */
    clv__rows rows;                /* run_yuv's rows: EQ_ROWS a work-item */
    cl_mem hist_sets[2];           /* 256 counters and the alpha word each, alternating */
    cl_mem pairs;                  /* CPUs: eq_lut's table of LUT pairs; NULL on GPUs; at
                                      16 bits on every device: the table of 65536 levels */
    cl_mem sub;                    /* 16 bits, CPUs: a histogram per eq_hist work-item */
    int deep;                      /* built at 16 bits */
    int parity;                    /* the set this frame counts into */
} equalize_state;

/* 16 bits, CPUs: eq_hist's work-items, one histogram each (the sub
 * buffer holds as many as the device has compute units). */
static size_t sub_count(const clv_context *ctx, int height)
{
    size_t n = ctx->dev.compute_units;
    if (n > (size_t)height)
        n = (size_t)height;
    return n < 1 ? 1 : n;
}

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    equalize_state *s = state;
    s->deep = ctx->build_depth == 16;
    int err = clv__kernel_create(prog, "eq_hist", &s->hist, msg);
    if (!err && (ctx->row_shape || s->deep)) /* at 8 bits CPUs only: cl/equalize.cl */
        err = clv__kernel_create(prog, "eq_lut", &s->lut, msg);
    if (!err && ctx->row_shape && !s->deep) /* run_yuv's: 8 bits only */
        err = clv__kernel_create(prog, "eq_hist_yuv", &s->hist_yuv, msg);
    if (!err && ctx->row_shape && !s->deep)
        err = clv__kernel_create(prog, "eq_apply_yuv", &s->apply_yuv, msg);
    if (!err)
        err = clv__kernel_create(prog, "eq_apply", &s->apply, msg);
    if (err)
        return err;
    cl_int st = CL_SUCCESS;
    size_t words = s->deep ? HIST_WORDS16 : HIST_WORDS;
    for (int i = 0; i < 2 && st == CL_SUCCESS; i++)
        s->hist_sets[i] =
            clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, words * sizeof(cl_uint), NULL, &st);
    if (st == CL_SUCCESS && (ctx->row_shape || s->deep))
        s->pairs = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, 65536 * sizeof(cl_ushort), NULL, &st);
    if (st == CL_SUCCESS && ctx->row_shape && s->deep)
        s->sub =
            clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE,
                           sub_count(ctx, INT_MAX) * HIST_WORDS16 * sizeof(cl_uint), NULL, &st);
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ENOMEM, "equalize: cannot allocate its histogram: %s",
                         clv__cl_strerror(st));
    /* Cleared once: then eq_hist clears the other set for the next frame. */
    cl_uint *zero = calloc(words, sizeof *zero);
    if (!zero)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    for (int i = 0; i < 2 && st == CL_SUCCESS; i++)
        st = clEnqueueWriteBuffer(ctx->queue, s->hist_sets[i], CL_TRUE, 0, words * sizeof *zero,
                                  zero, 0, NULL, NULL);
    free(zero);
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ECL, "equalize: cannot clear its histogram: %s",
                         clv__cl_strerror(st));
    return 0;
}

static void uninit(void *state)
{
    equalize_state *s = state;
    clv__kernel_release(&s->hist);
    clv__kernel_release(&s->lut);
    clv__kernel_release(&s->apply);
    clv__kernel_release(&s->hist_yuv);
    clv__kernel_release(&s->apply_yuv);
    clv__mem_release(&s->hist_sets[0]);
    clv__mem_release(&s->hist_sets[1]);
    clv__mem_release(&s->pairs);
    clv__mem_release(&s->sub);
    clv__rows_release(&s->rows);
}

/* The histogram's work-items: 4 per compute unit paid on the H100 (against
 * 2, 8 and 16), at most one a row. */
static size_t hist_groups(const clv_launch *l)
{
    size_t groups = l->ctx->dev.compute_units * 4;
    if (groups > (size_t)l->height)
        groups = (size_t)l->height;
    return groups < 1 ? 1 : groups;
}

/* CPUs: the frame's lookup table as pairs of levels (eq_lut). */
static int make_pairs(equalize_state *s, const clv_launch *l, cl_mem hist)
{
    cl_uint total = (cl_uint)((uint64_t)l->width * (uint64_t)l->height);
    size_t lut_items = 8, one = 1; /* cl/equalize.cl: EQ_PAIR_ROWS rows of pairs each */
    clv_launch plain = *l;
    plain.wait_count = 0, plain.wait = NULL, plain.done = NULL;
    int err = clv__kernel_args(s->lut, 0, 3, CLV__ARG(hist), CLV__ARG(s->pairs), CLV__ARG(total));
    return err ? err : clv__launch(&plain, s->lut, 1, &lut_items, &one);
}

/* 16 bits (cl/equalize.cl): the histogram of 65536 levels (CPUs: one per
 * work-item in sub; GPUs: global atomics into the frame's set), eq_lut's
 * table of them on every device, the apply pass through it. mode=gray
 * keeps the levels for the apply pass; mode=luma works them out again
 * from the pixels it reads anyway. */
static int run_deep(equalize_state *s, const clv_launch *l)
{
    cl_uint total = (cl_uint)((uint64_t)l->width * (uint64_t)l->height);
    cl_int gray_mode = l->values[EQUALIZE_MODE].i == MODE_GRAY, keep = gray_mode;
    int row = l->ctx->row_shape;
    cl_int subs = row ? (cl_int)sub_count(l->ctx, l->height) : 0;
    size_t items = (size_t)subs, one = 1, lut_items = row ? 1 : LUT_ITEMS16;
    cl_mem cur = s->hist_sets[s->parity], spare = s->hist_sets[1 - s->parity];
    clv_launch first = *l, plain = *l;
    first.done = NULL;
    plain.wait_count = 0, plain.wait = NULL, plain.done = NULL;
    int err =
        clv__kernel_args(s->hist, 0, 9, CLV__ARG(l->src), CLV__ARG(l->width), CLV__ARG(l->height),
                         CLV__ARG(l->stride), CLV__ARG(cur), CLV__ARG(spare), CLV__ARG(l->scratch),
                         CLV__ARG(keep), CLV__ARG(s->sub));
    if (!err)
        err = row ? clv__launch(&first, s->hist, 1, &items, &one)
                  : clv__launch_pixels(&first, s->hist, (l->width + 3) / 4, l->height);
    if (!err)
        err = clv__kernel_args(s->lut, 0, 5, CLV__ARG(cur), CLV__ARG(s->pairs), CLV__ARG(total),
                               CLV__ARG(s->sub), CLV__ARG(subs));
    if (!err)
        err = clv__launch(&plain, s->lut, 1, &lut_items, &lut_items);
    if (!err)
        err = clv__kernel_frame_args(s->apply, l);
    if (!err)
        err = clv__kernel_args(s->apply, 5, 5, CLV__ARG(s->pairs), CLV__ARG(gray_mode),
                               CLV__ARG(cur), CLV__ARG(total), CLV__ARG(l->scratch));
    if (err)
        return err;
    s->parity ^= 1;
    plain.done = l->done;
    return clv__launch_pixels(&plain, s->apply, l->width, l->height);
}

static int run(void *state, const clv_launch *l)
{
    equalize_state *s = state;
    if (l->depth == 16)
        return run_deep(s, l);
    cl_uint total = (cl_uint)((uint64_t)l->width * (uint64_t)l->height);
    cl_int gray_mode = l->values[EQUALIZE_MODE].i == MODE_GRAY;
    size_t groups = hist_groups(l), one = 1, wg = 256;
    int row = l->ctx->row_shape;
    size_t global = row ? groups : groups * wg;
    cl_mem cur = s->hist_sets[s->parity], spare = s->hist_sets[1 - s->parity];
    /* CPUs keep the levels in both modes: eq_apply reads them back */
    cl_int keep = gray_mode || row;
    int err = clv__kernel_args(s->hist, 0, 8, CLV__ARG(l->src), CLV__ARG(l->width),
                               CLV__ARG(l->height), CLV__ARG(l->stride), CLV__ARG(cur),
                               CLV__ARG(spare), CLV__ARG(l->scratch), CLV__ARG(keep));
    if (!err)
        err = clv__launch(l, s->hist, 1, &global, row ? &one : &wg);
    if (!err && row)
        err = make_pairs(s, l, cur);
    if (!err)
        err = clv__kernel_frame_args(s->apply, l);
    if (!err)
        err = clv__kernel_args(s->apply, 5, 5, CLV__ARG(s->pairs), CLV__ARG(gray_mode),
                               CLV__ARG(cur), CLV__ARG(total), CLV__ARG(l->scratch));
    if (err)
        return err;
    s->parity ^= 1;
    return row ? clv__launch_pixels(l, s->apply, l->width, l->height)
               : clv__launch(l, s->apply, 1, &global, &wg);
}

/* The one-filter chain between 4:2:0 frames in three kernels instead of
 * five, its RGBA rows kept in the cache (cl/equalize.cl): the input's rows
 * converted and counted (eq_hist_yuv), the table, the rows converted again,
 * mapped and converted out (eq_apply_yuv). */
static int run_yuv(void *state, const clv_launch *l, const clv__yuv_io *io)
{
    equalize_state *s = state;
    cl_int gray_mode = l->values[EQUALIZE_MODE].i == MODE_GRAY;
    cl_mem cur = s->hist_sets[s->parity], spare = s->hist_sets[1 - s->parity];
    size_t one = 1, groups = hist_groups(l);
    size_t need = groups * EQ_ROWS * (size_t)l->stride * 4;
    int err = clv__rows_reserve(l->ctx, &s->rows, need, "equalize");
    if (err)
        return err;
    clv_launch first = *l, last = *l;
    first.done = io->first;
    last.wait_count = 0, last.wait = NULL;
    cl_kernel both[2] = {s->hist_yuv, s->apply_yuv};
    for (int i = 0; i < 2 && !err; i++)
        err = clv__yuv_in_args(both[i], l, io, s->rows.mem, "equalize");
    if (!err)
        err = clv__kernel_args(s->hist_yuv, 13, 2, CLV__ARG(cur), CLV__ARG(spare));
    if (!err)
        err = clv__launch(&first, s->hist_yuv, 1, &groups, &one);
    if (!err)
        err = make_pairs(s, l, cur);
    if (!err)
        err = clv__kernel_args(s->apply_yuv, 13, 2, CLV__ARG(s->pairs), CLV__ARG(gray_mode));
    if (!err && clv__kernel_mem_arg(s->apply_yuv, 15, io->out, io->out_svm) != CL_SUCCESS) {
        clv__log(l->ctx, CLV__LOG_ERROR, "equalize: clSetKernelArg (the stage's output)");
        return CLV_ECL;
    }
    if (!err)
        err =
            clv__kernel_args(s->apply_yuv, 16, 2, CLV__ARG(io->out_nv12), CLV__ARG(io->out_coeffs));
    if (err)
        return err;
    s->parity ^= 1;
    return clv__launch(&last, s->apply_yuv, 1, &groups, &one);
}

/* The table of levels 0 .. maxv from the histogram of a frame of `total`
 * pixels. 8 bits: OpenCV's equalizeHist, its float arithmetic and all.
 * 16 bits: the same map rounded exactly, in 64-bit integers (cl/equalize.cl).
 * Levels below the lowest occupied one (never looked up) map to 0. */
static void make_lut(const uint32_t *hist, int maxv, uint32_t total, int *lut)
{
    int i = 0;
    while (!hist[i])
        i++;
    if (hist[i] == total) {
        for (int k = 0; k <= maxv; k++)
            lut[k] = k;
        return;
    }
    memset(lut, 0, (size_t)(maxv + 1) * sizeof *lut);
    if (maxv == 255) {
        float scale = 255.0f / (float)(total - hist[i]);
        int sum = 0;
        for (i++; i < 256; i++) {
            sum += (int)hist[i];
            float f = rintf((float)sum * scale);
            lut[i] = f > 255.0f ? 255 : (int)f;
        }
        return;
    }
    uint64_t d = total - hist[i], sum = 0;
    for (i++; i <= maxv; i++) {
        sum += hist[i];
        lut[i] = (int)((2 * 65535 * sum + d) / (2 * d));
    }
}

/* OpenCV's equalizeHist, written out; at 16 bits over 65536 levels. */
static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    int w = src->width, h = src->height, maxv = clv__maxv(src);
    int gray_mode = v[EQUALIZE_MODE].i == MODE_GRAY;
    uint32_t *hist = calloc((size_t)maxv + 1, sizeof *hist);
    int *lut = malloc(((size_t)maxv + 1) * sizeof *lut);
    if (!hist || !lut) {
        free(hist);
        free(lut);
        return CLV_ENOMEM;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            hist[clv__luma_at(src, x, y)]++;
    make_lut(hist, maxv, (uint32_t)w * (uint32_t)h, lut);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int g = clv__luma_at(src, x, y), l = lut[g];
            for (int c = 0; c < 3; c++)
                clv__put(dst, x, y, c,
                         gray_mode ? l : clv__clamp(clv__get(src, x, y, c) + l - g, 0, maxv));
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    free(hist);
    free(lut);
    return 0;
}

static const clv_param params[] = {
    {"mode", CLV_PARAM_ENUM, "luma", 0, 0, "luma|gray",
     "luma: equalize the luma and keep the colour; gray: output the equalized gray", 1},
};
_Static_assert(sizeof params / sizeof params[0] == EQUALIZE_PARAM_COUNT,
               "equalize: the enum and the params table differ");

const clv_filter clv__filter_equalize = {
    .name = "equalize",
    .help = "histogram equalization of the luma, per frame (OpenCV's equalizeHist)",
    .params = params,
    .param_count = EQUALIZE_PARAM_COUNT,
    .program = "equalize",
    .state_size = sizeof(equalize_state),
    .needs_scratch = 1,
    .deep = 1,
    .init = init,
    .uninit = uninit,
    .run = run,
    .run_yuv = run_yuv,
    .reference = reference,
};
