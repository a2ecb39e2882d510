/* equalize.c - histogram equalization of gray(p) over each frame, as
 * OpenCV's equalizeHist. mode=gray: R=G=B=lut[gray]; mode=luma: R,G,B each
 * move by lut[Y] - Y (the luma becomes lut[Y], Cb and Cr are kept).
 * mode=gray, and either mode on CPUs, keeps the histogram pass's gray levels
 * in the scratch frame for the apply pass. */
#include "filters.h"

#include <math.h>
#include <string.h>

#define HIST_WORDS 257 /* cl/equalize.cl: 256 counters, then EQ_ALPHA */
#define EQ_ROWS 5      /* cl/equalize.cl: run_yuv's rows a work-item */

/* The parameters, in the order of the table below, and mode's choices in
 * the order of its list. */
enum { EQUALIZE_MODE, EQUALIZE_PARAM_COUNT };
enum { MODE_LUMA, MODE_GRAY };

typedef struct equalize_state {
    cl_kernel hist, lut, apply;
    cl_kernel hist_yuv, apply_yuv; /* CPUs: run_yuv's */
    clv__rows rows;                /* run_yuv's rows: EQ_ROWS a work-item */
    cl_mem hist_sets[2];           /* 256 counters and the alpha word each, alternating */
    cl_mem pairs;                  /* CPUs: eq_lut's table of LUT pairs; NULL on GPUs */
    int parity;                    /* the set this frame counts into */
} equalize_state;

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    equalize_state *s = state;
    int err = clv__kernel_create(prog, "eq_hist", &s->hist, msg);
    if (!err && ctx->row_shape) /* CPUs only: cl/equalize.cl */
        err = clv__kernel_create(prog, "eq_lut", &s->lut, msg);
    if (!err && ctx->row_shape)
        err = clv__kernel_create(prog, "eq_hist_yuv", &s->hist_yuv, msg);
    if (!err && ctx->row_shape)
        err = clv__kernel_create(prog, "eq_apply_yuv", &s->apply_yuv, msg);
    if (!err)
        err = clv__kernel_create(prog, "eq_apply", &s->apply, msg);
    if (err)
        return err;
    cl_int st = CL_SUCCESS;
    for (int i = 0; i < 2 && st == CL_SUCCESS; i++)
        s->hist_sets[i] =
            clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, HIST_WORDS * sizeof(cl_uint), NULL, &st);
    if (st == CL_SUCCESS && ctx->row_shape)
        s->pairs = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, 65536 * sizeof(cl_ushort), NULL, &st);
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ENOMEM, "equalize: cannot allocate its histogram: %s",
                         clv__cl_strerror(st));
    /* Cleared once: then eq_hist clears the other set for the next frame. */
    cl_uint zero[HIST_WORDS] = {0};
    for (int i = 0; i < 2 && st == CL_SUCCESS; i++)
        st = clEnqueueWriteBuffer(ctx->queue, s->hist_sets[i], CL_TRUE, 0, sizeof zero, zero, 0,
                                  NULL, NULL);
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

static int run(void *state, const clv_launch *l)
{
    equalize_state *s = state;
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

/* OpenCV's equalizeHist, written out. */
static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    int w = src->width, h = src->height;
    int total = w * h, gray_mode = v[EQUALIZE_MODE].i == MODE_GRAY;
    int hist[256], lut[256];
    memset(hist, 0, sizeof hist);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            hist[clv__gray(clv__px(src, x, y))]++;
    int i = 0;
    while (!hist[i])
        i++;
    if (hist[i] == total) {
        for (int k = 0; k < 256; k++)
            lut[k] = k;
    } else {
        float scale = 255.0f / (float)(total - hist[i]);
        int sum = 0;
        memset(lut, 0, sizeof lut);
        for (i++; i < 256; i++) {
            sum += hist[i];
            float f = rintf((float)sum * scale);
            lut[i] = f > 255.0f ? 255 : (int)f;
        }
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = clv__px(src, x, y);
            uint8_t *o = clv__px_mut(dst, x, y);
            int g = clv__gray(p), l = lut[g];
            for (int c = 0; c < 3; c++)
                o[c] = (uint8_t)(gray_mode ? l : clv__clamp(p[c] + l - g, 0, 255));
            o[3] = p[3];
        }
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
    .init = init,
    .uninit = uninit,
    .run = run,
    .run_yuv = run_yuv,
    .reference = reference,
};
