/* frame.c - host images, device frames and the kernel launch helpers. */
/* OpenCL 2.0 for a kernel argument in SVM memory (clv__kernel_mem_arg); the
 * rest is 1.2, as everywhere. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "clvid_internal.h"

#include <stdlib.h>
#include <string.h>

/* The largest side a frame may have: keeps every pixel index in an int on
 * the device (16384 * 16384 < 2^31). */

int clv_image_alloc(clv_image *img, int width, int height)
{
    return clv_image_alloc_depth(img, width, height, 8);
}

int clv_image_alloc_depth(clv_image *img, int width, int height, int depth)
{
    memset(img, 0, sizeof *img);
    if (width < 1 || height < 1 || width > CLV__SIDE_MAX || height > CLV__SIDE_MAX ||
        (depth != 8 && depth != 16))
        return CLV_EINVAL;
    int bytes = depth == 16 ? 8 : 4;
    img->pixels = calloc((size_t)width * height, (size_t)bytes);
    if (!img->pixels)
        return CLV_ENOMEM;
    img->width = width;
    img->height = height;
    img->stride = (size_t)width * (size_t)bytes;
    img->depth = depth;
    return 0;
}

int clv_image_pixel_bytes(const clv_image *img)
{
    return img->depth == 16 ? 8 : 4;
}

void clv_image_free(clv_image *img)
{
    if (!img)
        return;
    free(img->pixels);
    memset(img, 0, sizeof *img);
}

int clv_frame_create(clv_context *ctx, int width, int height, clv_frame *frame, clv_msg *msg)
{
    return clv_frame_create_depth(ctx, width, height, 8, frame, msg);
}

int clv_frame_create_depth(clv_context *ctx, int width, int height, int depth, clv_frame *frame,
                           clv_msg *msg)
{
    memset(frame, 0, sizeof *frame);
    if (depth != 8 && depth != 16)
        return clv__fail(msg, CLV_EINVAL, "frame depth %d: expected 8 or 16 bits a channel", depth);
    if (width < 1 || height < 1)
        return clv__fail(msg, CLV_EINVAL, "frame size %dx%d: both sides must be at least 1", width,
                         height);
    if (width > CLV__SIDE_MAX || height > CLV__SIDE_MAX)
        return clv__fail(msg, CLV_ELIMIT, "frame size %dx%d: the largest side clvid takes is %d",
                         width, height, CLV__SIDE_MAX);
    int stride = (width + 15) & ~15;
    size_t bytes = (size_t)stride * (size_t)height * (depth == 16 ? 8 : 4);
    if (bytes > ctx->dev.max_alloc)
        return clv__fail(msg, CLV_ELIMIT,
                         "frame size %dx%d needs %zu MiB in one buffer; %s allows at most "
                         "%llu MiB (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                         width, height, bytes >> 20, ctx->dev.name,
                         (unsigned long long)(ctx->dev.max_alloc >> 20));
    cl_int st = CL_SUCCESS;
    frame->buffer = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &st);
    if (st != CL_SUCCESS || !frame->buffer) {
        frame->buffer = NULL;
        return clv__fail(msg, CLV_ENOMEM, "cannot allocate a %dx%d frame (%zu MiB) on %s: %s",
                         width, height, bytes >> 20, ctx->dev.name, clv__cl_strerror(st));
    }
    frame->width = width;
    frame->height = height;
    frame->stride = stride;
    frame->depth = depth;
    return 0;
}

void clv_frame_destroy(clv_frame *frame)
{
    if (!frame)
        return;
    if (frame->buffer)
        clReleaseMemObject(frame->buffer);
    memset(frame, 0, sizeof *frame);
}

static int rect_copy(clv_context *ctx, const clv_frame *frame, const clv_image *img, int write)
{
    int bytes = frame->depth == 16 ? 8 : 4;
    if (img->width != frame->width || img->height != frame->height ||
        clv_image_pixel_bytes(img) != bytes)
        return CLV_EINVAL;
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {(size_t)frame->width * (size_t)bytes, (size_t)frame->height, 1};
    size_t pitch = (size_t)frame->stride * (size_t)bytes;
    cl_int st =
        write ? clEnqueueWriteBufferRect(ctx->queue, frame->buffer, CL_TRUE, origin, origin, region,
                                         pitch, 0, img->stride, 0, img->pixels, 0, NULL, NULL)
              : clEnqueueReadBufferRect(ctx->queue, frame->buffer, CL_TRUE, origin, origin, region,
                                        pitch, 0, img->stride, 0, img->pixels, 0, NULL, NULL);
    if (st != CL_SUCCESS) {
        clv__log(ctx, CLV__LOG_ERROR, "%s: %s",
                 write ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect",
                 clv__cl_strerror(st));
        return CLV_ECL;
    }
    return 0;
}

int clv__frame_copy(clv_context *ctx, const clv_frame *src, clv_frame *dst)
{
    int bpp = dst->depth == 16 ? 8 : 4, err = 0;
    size_t origin[3] = {0, 0, 0}, region[3] = {(size_t)src->width * bpp, (size_t)src->height, 1};
    CLV__CL_CHECK(ctx,
                  clEnqueueCopyBufferRect(ctx->queue, src->buffer, dst->buffer, origin, origin,
                                          region, (size_t)src->stride * bpp, 0,
                                          (size_t)dst->stride * bpp, 0, 0, NULL, NULL),
                  "clEnqueueCopyBufferRect");
fail:
    return err;
}

int clv_frame_upload(clv_context *ctx, clv_frame *frame, const clv_image *img)
{
    return rect_copy(ctx, frame, img, 1);
}

int clv_frame_download(clv_context *ctx, const clv_frame *frame, clv_image *img)
{
    return rect_copy(ctx, frame, img, 0);
}

int clv__kernel_args(cl_kernel kernel, int first, int count, ...)
{
    va_list ap;
    va_start(ap, count);
    cl_int st = CL_SUCCESS;
    int i;
    for (i = first; i < first + count && st == CL_SUCCESS; i++) {
        size_t size = va_arg(ap, size_t);
        const void *value = va_arg(ap, const void *);
        st = clSetKernelArg(kernel, (cl_uint)i, size, value);
    }
    va_end(ap);
    if (st != CL_SUCCESS) {
        char name[128] = "?";
        clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        clv__log(NULL, CLV__LOG_ERROR, "kernel %s argument %d: %s", name, i - 1,
                 clv__cl_strerror(st));
        return CLV_ECL;
    }
    return 0;
}

static size_t round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

int clv__launch(const clv_launch *l, cl_kernel kernel, cl_uint dims, const size_t *global,
                const size_t *local)
{
    return clv__launch_at(l, kernel, dims, NULL, global, local);
}

int clv__launch_at(const clv_launch *l, cl_kernel kernel, cl_uint dims, const size_t *offset,
                   const size_t *global, const size_t *local)
{
    cl_event ev = NULL;
    clv__events *evs = l->events;
    cl_int st = clEnqueueNDRangeKernel(l->queue, kernel, dims, offset, global, local, l->wait_count,
                                       l->wait, evs || l->done ? &ev : NULL);
    if (st != CL_SUCCESS) {
        char name[128] = "?";
        clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        clv__log(l->ctx, CLV__LOG_ERROR, "kernel %s on %dx%d: clEnqueueNDRangeKernel: %s", name,
                 l->width, l->height, clv__cl_strerror(st));
        return st == CL_OUT_OF_RESOURCES || st == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                       st == CL_OUT_OF_HOST_MEMORY
                   ? CLV_ENOMEM
                   : CLV_ECL;
    }
    if (l->done) {
        if (evs)
            clRetainEvent(ev);
        *l->done = ev;
    }
    if (evs) {
        if (evs->count == evs->capacity) {
            int cap = evs->capacity ? evs->capacity * 2 : 32;
            cl_event *list = realloc(evs->list, (size_t)cap * sizeof *list);
            int *owner = list ? realloc(evs->owner, (size_t)cap * sizeof *owner) : NULL;
            if (list)
                evs->list = list;
            if (owner)
                evs->owner = owner;
            if (!list || !owner) {
                clReleaseEvent(ev);
                return CLV_ENOMEM;
            }
            evs->capacity = cap;
        }
        evs->list[evs->count] = ev;
        evs->owner[evs->count] = evs->current;
        evs->count++;
    }
    return 0;
}

int clv__launch_pixels(const clv_launch *l, cl_kernel kernel, int width, int height)
{
    if (l->ctx->row_shape) {
        /* A few rows per work-group: one row each is all overhead, and with
         * no local size PoCL makes one group of every row (one core). */
        size_t rows = 4;
        size_t local[2] = {1, rows};
        size_t global[2] = {1, round_up((size_t)height, rows)};
        return clv__launch(l, kernel, 2, global, local);
    }
    size_t local[2] = {16, 8};
    size_t global[2] = {round_up(((size_t)width + CLV__GPU_PX - 1) / CLV__GPU_PX, local[0]),
                        round_up((size_t)height, local[1])};
    return clv__launch(l, kernel, 2, global, local);
}

int clv__launch_pixel_pairs(const clv_launch *l, cl_kernel kernel)
{
    return clv__launch_pixels(l, kernel, l->width,
                              l->ctx->row_shape ? l->height : (l->height + 1) / 2);
}

/* Kernel argument `index`: the buffer m, or (m NULL) the SVM memory at svm:
 * the stage's conversions, equalize's run_yuv and the fused kernels use it. */
cl_int clv__kernel_mem_arg(cl_kernel kernel, cl_uint index, cl_mem m, const void *svm)
{
    return m ? clSetKernelArg(kernel, index, sizeof m, &m)
             : clSetKernelArgSVMPointer(kernel, index, svm);
}

int clv__kernel_frame_args(cl_kernel kernel, const clv_launch *l)
{
    return clv__kernel_args(kernel, 0, 5, CLV__ARG(l->src), CLV__ARG(l->dst), CLV__ARG(l->width),
                            CLV__ARG(l->height), CLV__ARG(l->stride));
}

void clv__kernel_release(cl_kernel *k)
{
    if (*k)
        clReleaseKernel(*k);
    *k = NULL;
}

void clv__mem_release(cl_mem *m)
{
    if (*m)
        clReleaseMemObject(*m);
    *m = NULL;
}
