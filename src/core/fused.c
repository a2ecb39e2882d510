/* fused.c - helpers for a filter's kernels inside the stage's conversions
 * (clv_filter's run_yuv): the strips of rows and a fused kernel's launch. */
#include "clvid_internal.h"

int clv__rows_reserve(clv_context *ctx, clv__rows *rows, size_t need, const char *who)
{
    if (rows->size >= need)
        return 0;
    clv__mem_release(&rows->mem);
    rows->size = 0;
    cl_int st = CL_SUCCESS;
    rows->mem = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, need, NULL, &st);
    if (st != CL_SUCCESS) {
        rows->mem = NULL;
        clv__log(ctx, CLV__LOG_ERROR, "%s: cannot allocate %zu bytes of rows: %s", who, need,
                 clv__cl_strerror(st));
        return CLV_ENOMEM;
    }
    rows->size = need;
    return 0;
}

void clv__rows_release(clv__rows *rows)
{
    clv__mem_release(&rows->mem);
    rows->size = 0;
}

int clv__yuv_in_args(cl_kernel kernel, const clv_launch *l, const clv__yuv_io *io, cl_mem rows,
                     const char *who)
{
    if (clv__kernel_mem_arg(kernel, 0, io->in, io->in_svm) != CL_SUCCESS) {
        clv__log(l->ctx, CLV__LOG_ERROR, "%s: clSetKernelArg (the stage's input)", who);
        return CLV_ECL;
    }
    return clv__kernel_args(kernel, 1, 12, CLV__ARG(rows), CLV__ARG(l->width), CLV__ARG(l->height),
                            CLV__ARG(l->stride), CLV__ARG(io->in_nv12), CLV__ARG(io->in_coeffs),
                            CLV__ARG(io->yoff), CLV__ARG(io->uoff), CLV__ARG(io->voff),
                            CLV__ARG(io->ys), CLV__ARG(io->us), CLV__ARG(io->vs));
}

int clv__run_fused(const clv_launch *l, const clv__yuv_io *io, cl_kernel kernel, int reach,
                   clv__rows *rows, const char *who)
{
    /* Four blocks of whole chroma rows a compute unit, as equalize's. */
    size_t one = 1, groups = l->ctx->dev.compute_units * 4, chroma = (size_t)(l->height + 1) / 2;
    if (groups > chroma)
        groups = chroma;
    if (groups < 1)
        groups = 1;
    size_t strip = 2 * (size_t)(CLV__FUSE_ROWS + 2 * reach) * (size_t)l->stride * 4;
    int err = clv__rows_reserve(l->ctx, rows, groups * strip, who);
    if (err)
        return err;
    cl_int r = reach;
    if ((err = clv__yuv_in_args(kernel, l, io, rows->mem, who)))
        return err;
    /* then CLV_FUSED_ARGS' output frame, its layout and colours, reach */
    if (clv__kernel_mem_arg(kernel, 13, io->out, io->out_svm) != CL_SUCCESS) {
        clv__log(l->ctx, CLV__LOG_ERROR, "%s: clSetKernelArg (the stage's output)", who);
        return CLV_ECL;
    }
    err = clv__kernel_args(kernel, 14, 3, CLV__ARG(io->out_nv12), CLV__ARG(io->out_coeffs),
                           CLV__ARG(r));
    if (!err)
        err = clv__launch(l, kernel, 1, &groups, &one);
    /* one kernel: the first is the last */
    if (!err && io->first && l->done && *l->done) {
        *io->first = *l->done;
        clRetainEvent(*io->first);
    }
    return err;
}
