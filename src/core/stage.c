/* stage.c - the pipelined GPU stage: pinned staging, an upload queue, the
 * compute queue (conversion, chain, conversion) and a download queue,
 * chained by events, with several frames in flight. */
/* OpenCL 2.0 for the shared (SVM) staging; the rest is 1.2, as everywhere. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "clvid_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The output memory of a stage with shared staging, one block per slot. A
 * block the caller keeps (clv_stage_keep) leaves its slot, which takes a
 * spare (or a new block) instead; a kept block comes back as a spare. The
 * blocks outlive the stage while one is kept: the last reference frees them,
 * the OpenCL context retained until then. */
typedef struct stage_outputs {
    pthread_mutex_t lock; /* guards refs and the spares */
    int refs;             /* the stage's, and one per kept block */
    cl_context cl;        /* retained */
    size_t size;          /* bytes a block holds (the frame and its padding) */
    clv_block **spare;
    int spares, spare_cap;
} stage_outputs;

struct clv_block {
    stage_outputs *owner;
    uint8_t *pixels; /* fine-grained SVM */
    size_t size;     /* the frame's bytes: the spares are o->size, input blocks any */
};

/* Where the planes of the frame a submit sends lie: the slot's input
 * staging, tightly packed, or a block a decoder wrote (clv_stage_submit_block). */
typedef struct stage_source {
    const uint8_t *svm;                  /* NULL: the slot's own staging */
    cl_int yoff, uoff, voff, ys, us, vs; /* bytes from svm, bytes a row */
} stage_source;

typedef struct stage_slot {
    /* Copied staging: pinned (CL_MEM_ALLOC_HOST_PTR, mapped for the stage's
     * life) and the same layouts on the device. Shared staging: host_in and
     * host_out are fine-grained SVM the kernels read and write themselves;
     * the cl_mem are NULL. */
    cl_mem pin_in, pin_out;
    uint8_t *host_in, *host_out;
    cl_mem dev_in, dev_out;
    clv_block *out_block; /* shared staging: host_out's block */
    clv_frame rgba_src;   /* before orientation (only with one) */
    clv_frame rgba_in, rgba_out;
    cl_event up, first_kernel, last_kernel, down; /* last_kernel: the frame is computed */
    uint64_t frame_index;
    int watched; /* sent through a user kernel: waited for with the watchdog */
    int fused;   /* its filter did the conversions (clv__chain_run_yuv) */
} stage_slot;

/* A stage over several devices deals frames to lanes: one one-device stage
 * each, plus, after a fault, a rescue lane on a healthy device that runs the
 * failed one's frames again and takes no others. */
typedef struct stage_lane {
    clv_stage *stage;
    int device;          /* index into the stage's devices */
    int draining;        /* a rescue lane */
    double ms;           /* measured ms per frame (moving average), 0 until measured */
    double last_done;    /* the device clock's seconds at the end of its last frame */
    uint64_t last_given; /* the stage's submit count when it was last given a frame */
} stage_lane;

struct clv_stage {
    clv_context *ctx;
    clv_chain *chain; /* not owned */
    clv_stage_options opt;
    cl_command_queue up_q, down_q;        /* the compute queue is ctx->queue */
    cl_kernel to_rgba, from_rgba, orient; /* orient: NULL when upright */
    int out_w, out_h;                     /* after orientation */
    cl_int orient_coef[6];                /* ax bx cx ay by cy, see cl/color.cl */
    cl_mem coeff_in, coeff_out;
    size_t in_size, out_size;
    stage_outputs *outputs; /* shared staging: the output blocks */
    stage_slot *slots;
    int count;
    int next;        /* slot the next submit uses */
    int pending;     /* submitted, not yet released; the oldest is (next - pending) */
    int holding;     /* the oldest is being read by the caller */
    int passthrough; /* no filter and the same layout both sides: copy, no conversion */
    clv_stage_times times;
    uint64_t fused_frames; /* clv_stage_fused_frames */
    /* The frame clv_stage_output gave last: when its upload started and its
     * download ended, in seconds of the device's clock (with profiling; 0
     * when the device did not say). */
    double out_start, out_end;

    /* Several devices (lanes != NULL); the fields above are unused then. */
    stage_lane *lanes;
    int lane_count, lane_cap;
    int device_count;
    clv_context *dctx[CLV_DEVICES_MAX];
    clv_stage_device dev[CLV_DEVICES_MAX];
    int fault_set[CLV_DEVICES_MAX]; /* clv_stage_inject_fault */
    uint64_t fault_after[CLV_DEVICES_MAX];
    int fault_submit[CLV_DEVICES_MAX]; /* clv_stage_inject_submit_fault */
    int *order;                        /* the lane of each frame in flight, oldest first (a ring) */
    int order_cap, order_head, order_count;
    int chosen; /* the lane clv_stage_input gave memory of, -1: none */
    uint64_t submits;
    int holding_lane; /* the lane of the frame the caller holds, -1: none */
};

static void release_event(cl_event *e)
{
    if (*e)
        clReleaseEvent(*e);
    *e = NULL;
}

/* Encoders may read a little past a frame's last row with SIMD loads, as
 * FFmpeg's own frame pools allow for: a kept block is that much longer. */
#define OUTPUT_PADDING 64

static stage_outputs *outputs_create(clv_context *ctx, size_t frame_size)
{
    stage_outputs *o = calloc(1, sizeof *o);
    if (!o || pthread_mutex_init(&o->lock, NULL)) {
        free(o);
        return NULL;
    }
    o->refs = 1;
    o->cl = ctx->cl;
    clRetainContext(o->cl);
    o->size = frame_size + OUTPUT_PADDING;
    return o;
}

static void block_free(stage_outputs *o, clv_block *b)
{
    if (b) {
        clSVMFree(o->cl, b->pixels);
        free(b);
    }
}

static clv_block *block_new(stage_outputs *o, size_t size)
{
    clv_block *b = calloc(1, sizeof *b);
    if (b)
        b->pixels = clSVMAlloc(o->cl, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, size, 0);
    if (!b || !b->pixels) {
        free(b);
        return NULL;
    }
    b->owner = o;
    b->size = size;
    return b;
}

/* A spare block, or a new one; NULL when out of memory. */
static clv_block *block_get(stage_outputs *o)
{
    clv_block *b = NULL;
    pthread_mutex_lock(&o->lock);
    if (o->spares > 0)
        b = o->spare[--o->spares];
    pthread_mutex_unlock(&o->lock);
    return b ? b : block_new(o, o->size);
}

static void block_put(stage_outputs *o, clv_block *b)
{
    if (!b)
        return;
    if (b->size != o->size) { /* an input block: not a spare */
        block_free(o, b);
        return;
    }
    pthread_mutex_lock(&o->lock);
    if (o->spares == o->spare_cap) {
        int cap = o->spare_cap ? o->spare_cap * 2 : 8;
        clv_block **grown = realloc(o->spare, (size_t)cap * sizeof *grown);
        if (grown) {
            o->spare = grown;
            o->spare_cap = cap;
        }
    }
    int kept = o->spares < o->spare_cap;
    if (kept)
        o->spare[o->spares++] = b;
    pthread_mutex_unlock(&o->lock);
    if (!kept)
        block_free(o, b);
}

static void outputs_unref(stage_outputs *o)
{
    if (!o)
        return;
    pthread_mutex_lock(&o->lock);
    int last = --o->refs == 0;
    pthread_mutex_unlock(&o->lock);
    if (!last)
        return;
    for (int i = 0; i < o->spares; i++)
        block_free(o, o->spare[i]);
    free(o->spare);
    clReleaseContext(o->cl);
    pthread_mutex_destroy(&o->lock);
    free(o);
}

static void outputs_ref(stage_outputs *o)
{
    pthread_mutex_lock(&o->lock);
    o->refs++;
    pthread_mutex_unlock(&o->lock);
}

void clv_block_free(clv_block *block)
{
    if (!block)
        return;
    stage_outputs *o = block->owner;
    block_put(o, block);
    outputs_unref(o);
}

uint8_t *clv_block_pixels(const clv_block *block)
{
    return block->pixels;
}

static int is_packed(clv_pixfmt f)
{
    return !clv_pixfmt_is_yuv(f);
}

static void packed_args(clv_pixfmt f, cl_int *bpp, cl_int *bgr, cl_int *alpha)
{
    *bpp = f == CLV_PIX_RGB24 || f == CLV_PIX_BGR24 ? 3 : 4;
    *bgr = f == CLV_PIX_BGRA || f == CLV_PIX_BGR0 || f == CLV_PIX_BGR24;
    *alpha = f == CLV_PIX_RGBA || f == CLV_PIX_BGRA;
}

static void one_destroy(clv_stage *stage)
{
    if (!stage)
        return;
    clv_context *ctx = stage->ctx;
    if (ctx->hung) {
        free(stage->slots);
        free(stage);
        return;
    }
    clFinish(ctx->queue);
    if (stage->up_q)
        clFinish(stage->up_q);
    if (stage->down_q)
        clFinish(stage->down_q);
    for (int i = 0; stage->slots && i < stage->count; i++) {
        stage_slot *s = &stage->slots[i];
        release_event(&s->up);
        release_event(&s->first_kernel);
        release_event(&s->last_kernel);
        release_event(&s->down);
        if (ctx->shared_staging) {
            clSVMFree(ctx->cl, s->host_in); /* NULL is allowed */
            if (stage->outputs)
                block_put(stage->outputs, s->out_block);
        } else {
            if (s->host_in)
                clEnqueueUnmapMemObject(stage->up_q, s->pin_in, s->host_in, 0, NULL, NULL);
            if (s->host_out)
                clEnqueueUnmapMemObject(stage->down_q, s->pin_out, s->host_out, 0, NULL, NULL);
            if (stage->up_q)
                clFinish(stage->up_q);
            if (stage->down_q)
                clFinish(stage->down_q);
        }
        clv__mem_release(&s->pin_in);
        clv__mem_release(&s->pin_out);
        clv__mem_release(&s->dev_in);
        clv__mem_release(&s->dev_out);
        clv_frame_destroy(&s->rgba_src);
        clv_frame_destroy(&s->rgba_in);
        clv_frame_destroy(&s->rgba_out);
    }
    free(stage->slots);
    outputs_unref(stage->outputs); /* the blocks go with the last one kept */
    clv__kernel_release(&stage->to_rgba);
    clv__kernel_release(&stage->from_rgba);
    clv__kernel_release(&stage->orient);
    clv__mem_release(&stage->coeff_in);
    clv__mem_release(&stage->coeff_out);
    if (stage->up_q)
        clReleaseCommandQueue(stage->up_q);
    if (stage->down_q)
        clReleaseCommandQueue(stage->down_q);
    free(stage);
}

static cl_mem buffer(clv_context *ctx, cl_mem_flags flags, size_t size, int *err)
{
    cl_int st = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx->cl, flags, size, NULL, &st);
    if (st != CL_SUCCESS) {
        clv__log(ctx, CLV__LOG_ERROR, "clCreateBuffer of %zu bytes: %s", size,
                 clv__cl_strerror(st));
        *err = CLV_ENOMEM;
        return NULL;
    }
    return m;
}

static int coeff_buffer(clv_context *ctx, clv_color color, cl_mem *out)
{
    clv__yuv_coeffs k;
    clv__yuv_coeffs_make(color, &k);
    cl_int st = CL_SUCCESS;
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof k, &k, &st);
    return st == CL_SUCCESS ? 0 : CLV_ENOMEM;
}

/* With nothing to do, frames are copied untouched: a round trip through
 * RGBA8 would clip colours outside the RGB cube (a few percent of the
 * pixels of ordinary video). */
static int passthrough(const clv_stage_options *o, const clv_chain *chain)
{
    return (!chain || clv_chain_get_desc(chain)->count == 0) && o->in_format == o->out_format &&
           !o->rotation && !o->hflip && o->in_format != CLV_PIX_RGB0 &&
           o->in_format != CLV_PIX_BGR0 && /* their padding becomes 255 */
           (!clv_pixfmt_is_yuv(o->in_format) ||
            (o->in_color.matrix == o->out_color.matrix &&
             o->in_color.full_range == o->out_color.full_range));
}

static void one_set_chain(clv_stage *stage, clv_chain *chain)
{
    stage->chain = chain;
    stage->passthrough = passthrough(&stage->opt, chain);
}

/* Where each upright pixel comes from (cl/color.cl's orient): mirrored
 * first, then turned clockwise. */
static void orientation(int w, int h, int rotation, int hflip, cl_int *k, int *ow, int *oh)
{
    /* (ux, uy) in the mirrored source from (x, y) upright: ux = ax*x + bx*y + cx, ... */
    cl_int ax = 1, bx = 0, cx = 0, ay = 0, by = 1, cy = 0;
    *ow = w;
    *oh = h;
    if (rotation == 90) { /* ux = y, uy = h-1-x */
        ax = 0, bx = 1, cx = 0, ay = -1, by = 0, cy = h - 1;
        *ow = h, *oh = w;
    } else if (rotation == 180) { /* ux = w-1-x, uy = h-1-y */
        ax = -1, bx = 0, cx = w - 1, ay = 0, by = -1, cy = h - 1;
    } else if (rotation == 270) { /* ux = w-1-y, uy = x */
        ax = 0, bx = -1, cx = w - 1, ay = 1, by = 0, cy = 0;
        *ow = h, *oh = w;
    }
    if (hflip) { /* sx = w-1-ux */
        ax = -ax, bx = -bx, cx = w - 1 - cx;
    }
    k[0] = ax, k[1] = bx, k[2] = cx, k[3] = ay, k[4] = by, k[5] = cy;
}

void clv_stage_output_size(const clv_stage *stage, int *width, int *height)
{
    *width = stage->out_w;
    *height = stage->out_h;
}

static int one_create(clv_context *ctx, const clv_stage_options *options, clv_chain *chain,
                      clv_stage **out, clv_msg *msg)
{
    *out = NULL;
    int err = 0;
    int rot = options->rotation;
    if (rot != 0 && rot != 90 && rot != 180 && rot != 270)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: rotation %d: expected 0, 90, 180 or 270",
                         rot);
    clv_stage *stage = calloc(1, sizeof *stage);
    if (!stage)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    stage->ctx = ctx;
    stage->chain = chain;
    stage->opt = *options;
    int w = options->width, h = options->height;
    stage->count = options->slots >= 2 ? options->slots : 3;
    stage->in_size = clv_pixfmt_size(options->in_format, w, h);
    stage->passthrough = passthrough(options, chain);
    orientation(w, h, rot, options->hflip, stage->orient_coef, &stage->out_w, &stage->out_h);
    int ow = stage->out_w, oh = stage->out_h, oriented = rot || options->hflip;
    stage->out_size = clv_pixfmt_size(options->out_format, ow, oh);

    cl_int st = CL_SUCCESS;
    cl_command_queue_properties props = options->profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
    stage->up_q = clCreateCommandQueue(ctx->cl, ctx->dev.device_id, props, &st);
    CLV__CL_CHECK(ctx, st, "clCreateCommandQueue (upload)");
    stage->down_q = clCreateCommandQueue(ctx->cl, ctx->dev.device_id, props, &st);
    CLV__CL_CHECK(ctx, st, "clCreateCommandQueue (download)");

    cl_program prog = NULL;
    if ((err = clv__program_get(ctx, "color", &prog, msg)))
        goto fail_msg;
    if ((err = clv__kernel_create(
             prog, is_packed(options->in_format) ? "packed_to_rgba" : "yuv420_to_rgba",
             &stage->to_rgba, msg)) ||
        (err = clv__kernel_create(
             prog, is_packed(options->out_format) ? "rgba_to_packed" : "rgba_to_yuv420",
             &stage->from_rgba, msg)) ||
        (oriented && (err = clv__kernel_create(prog, "orient", &stage->orient, msg))))
        goto fail_msg;
    if ((err = coeff_buffer(ctx, options->in_color, &stage->coeff_in)) ||
        (err = coeff_buffer(ctx, options->out_color, &stage->coeff_out)))
        goto fail_alloc;

    stage->slots = calloc((size_t)stage->count, sizeof *stage->slots);
    if (!stage->slots) {
        err = CLV_ENOMEM;
        goto fail_alloc;
    }
    /* With shared staging every command of every slot runs on the compute
     * queue, in order, so the slots can share their RGBA frames: at 1080p 32
     * MB and 8 k first-touch page faults less, and the frames stay warm in
     * the cache. Not when the RGBA frame is itself downloaded (the window),
     * which runs beside the next slot's kernels. */
    int share_rgba = ctx->shared_staging && options->out_format != CLV_PIX_RGBA;
    for (int i = 0; i < stage->count; i++) {
        stage_slot *s = &stage->slots[i];
        if (i > 0 && share_rgba) {
            s->rgba_src = stage->slots[0].rgba_src;
            s->rgba_in = stage->slots[0].rgba_in;
            s->rgba_out = stage->slots[0].rgba_out;
            if (s->rgba_src.buffer)
                clRetainMemObject(s->rgba_src.buffer);
            clRetainMemObject(s->rgba_in.buffer);
            clRetainMemObject(s->rgba_out.buffer);
        } else if ((oriented && (err = clv_frame_create(ctx, w, h, &s->rgba_src, msg))) ||
                   (err = clv_frame_create(ctx, ow, oh, &s->rgba_in, msg)) ||
                   (err = clv_frame_create(ctx, ow, oh, &s->rgba_out, msg)))
            goto fail_msg;
        if (ctx->shared_staging) {
            cl_svm_mem_flags f = CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER;
            s->host_in = clSVMAlloc(ctx->cl, f, stage->in_size, 0);
            if (!stage->outputs)
                stage->outputs = outputs_create(ctx, stage->out_size);
            s->out_block = stage->outputs ? block_get(stage->outputs) : NULL;
            s->host_out = s->out_block ? s->out_block->pixels : NULL;
            if (!s->host_in || !s->host_out) {
                err = CLV_ENOMEM;
                goto fail_alloc;
            }
            continue;
        }
        s->pin_in = buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, stage->in_size, &err);
        s->pin_out =
            err ? NULL
                : buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, stage->out_size, &err);
        s->dev_in = err ? NULL : buffer(ctx, CL_MEM_READ_ONLY, stage->in_size, &err);
        s->dev_out = err ? NULL : buffer(ctx, CL_MEM_WRITE_ONLY, stage->out_size, &err);
        if (err)
            goto fail_alloc;
        s->host_in = clEnqueueMapBuffer(stage->up_q, s->pin_in, CL_TRUE, CL_MAP_WRITE, 0,
                                        stage->in_size, 0, NULL, NULL, &st);
        CLV__CL_CHECK(ctx, st, "clEnqueueMapBuffer (input staging)");
        s->host_out = clEnqueueMapBuffer(stage->down_q, s->pin_out, CL_TRUE, CL_MAP_READ, 0,
                                         stage->out_size, 0, NULL, NULL, &st);
        CLV__CL_CHECK(ctx, st, "clEnqueueMapBuffer (output staging)");
    }
    *out = stage;
    return 0;
fail:
    clv__fail(msg, err, "cannot set up the GPU stage for %dx%d frames on %s: %s", w, h,
              ctx->dev.name, clv_strerror(err));
    goto fail_msg;
fail_alloc:
    clv__fail(msg, err, "cannot allocate %d frame slots of %dx%d on %s (%s)", stage->count, w, h,
              ctx->dev.name, clv_strerror(err));
fail_msg:
    one_destroy(stage);
    return err;
}

static uint8_t *one_input(clv_stage *stage)
{
    if (stage->pending == stage->count)
        return NULL;
    return stage->slots[stage->next].host_in;
}

/* Enqueues one conversion kernel over w x h (or the chroma grid) from
 * `from` (or the SVM memory at from_svm) to `to` (or at to_svm), after
 * `wait` (may be NULL); *done (may be NULL) gets its event. */
static int convert(clv_stage *stage, cl_kernel k, cl_mem from, const void *from_svm, cl_mem to,
                   void *to_svm, clv_pixfmt f, cl_mem coeffs, int to_rgba, cl_event wait,
                   cl_event *done, const stage_source *src)
{
    clv_context *ctx = stage->ctx;
    /* Into RGBA: the source's size; out of it: the upright size. */
    int w = to_rgba ? stage->opt.width : stage->out_w;
    int h = to_rgba ? stage->opt.height : stage->out_h;
    cl_int stride = (cl_int)((w + 15) & ~15);
    clv_launch l = {.ctx = ctx,
                    .queue = ctx->queue,
                    .width = w,
                    .height = h,
                    .wait_count = wait ? 1 : 0,
                    .wait = wait ? &wait : NULL,
                    .done = done};
    cl_int st = clv__kernel_mem_arg(k, 0, from, from_svm);
    if (st == CL_SUCCESS)
        st = clv__kernel_mem_arg(k, 1, to, to_svm);
    if (st != CL_SUCCESS) {
        clv__log(ctx, CLV__LOG_ERROR, "clSetKernelArg (conversion buffers): %s",
                 clv__cl_strerror(st));
        return CLV_ECL;
    }
    int err = clv__kernel_args(k, 2, 3, CLV__ARG(w), CLV__ARG(h), CLV__ARG(stride));
    if (is_packed(f)) {
        cl_int bpp, bgr, alpha;
        packed_args(f, &bpp, &bgr, &alpha);
        if (!err)
            err = clv__kernel_args(k, 5, 3, CLV__ARG(bpp), CLV__ARG(bgr), CLV__ARG(alpha));
        if (!err)
            err = clv__launch_pixels(&l, k, w, h);
    } else {
        cl_int nv12 = f == CLV_PIX_NV12;
        if (!err)
            err = clv__kernel_args(k, 5, 2, CLV__ARG(nv12), CLV__ARG(coeffs));
        if (!err && to_rgba)
            err = clv__kernel_args(k, 7, 6, CLV__ARG(src->yoff), CLV__ARG(src->uoff),
                                   CLV__ARG(src->voff), CLV__ARG(src->ys), CLV__ARG(src->us),
                                   CLV__ARG(src->vs));
        if (!err)
            err = to_rgba ? clv__launch_pixels(&l, k, w, h)
                          : clv__launch_pixels(&l, k, (w + 1) / 2, (h + 1) / 2);
    }
    return err;
}

/* rgba_src turned upright into rgba_in (in order on the compute queue). */
static int orient(clv_stage *stage, stage_slot *s, cl_event *done)
{
    clv_context *ctx = stage->ctx;
    const cl_int *k = stage->orient_coef;
    cl_int dw = s->rgba_in.width, dh = s->rgba_in.height, dstride = s->rgba_in.stride,
           sstride = s->rgba_src.stride;
    clv_launch l = {.ctx = ctx, .queue = ctx->queue, .width = dw, .height = dh, .done = done};
    int err = clv__kernel_args(stage->orient, 0, 12, CLV__ARG(s->rgba_src.buffer),
                               CLV__ARG(s->rgba_in.buffer), CLV__ARG(dw), CLV__ARG(dh),
                               CLV__ARG(dstride), CLV__ARG(sstride), CLV__ARG(k[0]), CLV__ARG(k[1]),
                               CLV__ARG(k[2]), CLV__ARG(k[3]), CLV__ARG(k[4]), CLV__ARG(k[5]));
    size_t global[2] = {((size_t)dw + 15) & ~(size_t)15, (size_t)dh};
    return err ? err : clv__launch(&l, stage->orient, 2, global, NULL);
}

static int one_send(clv_stage *stage, uint64_t frame_index, const stage_source *src, clv_msg *msg)
{
    int err = 0;
    clv_context *ctx = stage->ctx;
    if (stage->pending == stage->count)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    stage_slot *s = &stage->slots[stage->next];
    s->frame_index = frame_index;
    s->watched = clv__chain_watched(stage->chain);
    if (!ctx->shared_staging) { /* shared: the kernels read host_in themselves */
        CLV__CL_CHECK(ctx,
                      clEnqueueWriteBuffer(stage->up_q, s->dev_in, CL_FALSE, 0, stage->in_size,
                                           s->host_in, 0, NULL, &s->up),
                      "upload (clEnqueueWriteBuffer)");
        clFlush(stage->up_q);
    }
    /* The first command waits for the upload, the download for the last
     * command: no barrier or marker commands (each costs ~0.15 ms on PoCL). */
    if (stage->passthrough && ctx->shared_staging) {
        CLV__CL_CHECK(ctx,
                      clEnqueueSVMMemcpy(ctx->queue, CL_FALSE, s->host_out, s->host_in,
                                         stage->in_size, 0, NULL, &s->last_kernel),
                      "clEnqueueSVMMemcpy");
    } else if (stage->passthrough) {
        CLV__CL_CHECK(ctx,
                      clEnqueueCopyBuffer(ctx->queue, s->dev_in, s->dev_out, 0, 0, stage->in_size,
                                          1, &s->up, &s->last_kernel),
                      "clEnqueueCopyBuffer");
    } else {
        /* RGBA out (the window) needs no conversion: the filtered frame is
         * downloaded row by row as it is. */
        int direct = stage->opt.out_format == CLV_PIX_RGBA;
        int filtering = stage->chain && clv_chain_get_desc(stage->chain)->count > 0;
        cl_event *first = direct && !filtering ? &s->last_kernel
                          : ctx->profiling     ? &s->first_kernel
                                               : NULL;
        if (stage->orient && first == &s->last_kernel)
            first = ctx->profiling ? &s->first_kernel : NULL;
        /* CPUs: a filter that can do the conversions in its own passes does
         * (clv__chain_run_yuv says whether it can). */
        s->fused = 0;
        if (filtering && !direct && !stage->orient && !is_packed(stage->opt.in_format) &&
            !is_packed(stage->opt.out_format)) {
            clv__yuv_io io = {.in = s->dev_in,
                              .in_svm = src->svm ? src->svm : s->host_in,
                              .in_nv12 = stage->opt.in_format == CLV_PIX_NV12,
                              .yoff = src->yoff,
                              .uoff = src->uoff,
                              .voff = src->voff,
                              .ys = src->ys,
                              .us = src->us,
                              .vs = src->vs,
                              .in_coeffs = stage->coeff_in,
                              .out = s->dev_out,
                              .out_svm = s->host_out,
                              .out_nv12 = stage->opt.out_format == CLV_PIX_NV12,
                              .out_coeffs = stage->coeff_out,
                              .first = first};
            int r = clv__chain_run_yuv(stage->chain, &s->rgba_in, &s->rgba_out, frame_index, &io,
                                       s->up, &s->last_kernel, msg);
            if (r < 0) {
                clFinish(ctx->queue);
                release_event(&s->up);
                release_event(&s->first_kernel);
                return r;
            }
            s->fused = r == 0;
        }
        if (s->fused)
            goto queued;
        if ((err = convert(stage, stage->to_rgba, s->dev_in, src->svm ? src->svm : s->host_in,
                           stage->orient ? s->rgba_src.buffer : s->rgba_in.buffer, NULL,
                           stage->opt.in_format, stage->coeff_in, 1, s->up, first, src)))
            goto fail;
        if (first == &s->last_kernel && ctx->profiling) {
            s->first_kernel = s->last_kernel;
            clRetainEvent(s->first_kernel);
        }
        if (stage->orient &&
            (err = orient(stage, s, direct && !filtering ? &s->last_kernel : NULL)))
            goto fail;
        clv_frame *filtered = &s->rgba_in;
        if (filtering) {
            if ((err = clv_chain_run(stage->chain, &s->rgba_in, &s->rgba_out, frame_index, NULL,
                                     direct ? &s->last_kernel : NULL, msg))) {
                clFinish(ctx->queue);
                release_event(&s->up);
                release_event(&s->first_kernel);
                return err;
            }
            filtered = &s->rgba_out;
        }
        if (direct) {
            clFlush(ctx->queue);
            size_t zero[3] = {0, 0, 0};
            size_t region[3] = {(size_t)filtered->width * 4, (size_t)filtered->height, 1};
            CLV__CL_CHECK(ctx,
                          clEnqueueReadBufferRect(stage->down_q, filtered->buffer, CL_FALSE, zero,
                                                  zero, region, (size_t)filtered->stride * 4, 0,
                                                  (size_t)filtered->width * 4, 0, s->host_out, 1,
                                                  &s->last_kernel, &s->down),
                          "download (clEnqueueReadBufferRect)");
            clFlush(stage->down_q);
            stage->next = (stage->next + 1) % stage->count;
            stage->pending++;
            return 0;
        }
        if ((err =
                 convert(stage, stage->from_rgba, filtered->buffer, NULL, s->dev_out, s->host_out,
                         stage->opt.out_format, stage->coeff_out, 0, NULL, &s->last_kernel, NULL)))
            goto fail;
    }
queued:
    clFlush(ctx->queue);
    if (ctx->shared_staging) { /* the last kernel wrote host_out: it is the frame's end */
        s->down = s->last_kernel;
        clRetainEvent(s->down);
    } else {
        CLV__CL_CHECK(ctx,
                      clEnqueueReadBuffer(stage->down_q, s->dev_out, CL_FALSE, 0, stage->out_size,
                                          s->host_out, 1, &s->last_kernel, &s->down),
                      "download (clEnqueueReadBuffer)");
        clFlush(stage->down_q);
    }
    stage->next = (stage->next + 1) % stage->count;
    stage->pending++;
    return 0;
fail:
    return clv__fail(msg, err, "GPU stage on %s: %s (see the log above)", ctx->dev.name,
                     clv_strerror(err));
}

/* The planes of a yuv420p or nv12 frame of w x h: each one's first byte,
 * rows and bytes a row, as the stage's staging packs them. */
static int yuv_planes(clv_pixfmt f, int w, int h, size_t offset[3], int stride[3], int rows[3])
{
    int cw = (w + 1) / 2, ch = (h + 1) / 2, nv12 = f == CLV_PIX_NV12;
    offset[0] = 0, stride[0] = w, rows[0] = h;
    offset[1] = (size_t)w * (size_t)h, stride[1] = nv12 ? 2 * cw : cw, rows[1] = ch;
    offset[2] = offset[1] + (size_t)cw * (size_t)ch, stride[2] = cw, rows[2] = nv12 ? 0 : ch;
    return nv12 ? 2 : 3;
}

static int one_submit(clv_stage *stage, uint64_t frame_index, clv_msg *msg)
{
    stage_source packed = {0};
    if (clv_pixfmt_is_yuv(stage->opt.in_format)) {
        size_t off[3];
        int stride[3], rows[3];
        yuv_planes(stage->opt.in_format, stage->opt.width, stage->opt.height, off, stride, rows);
        packed = (stage_source){NULL,      0,         (cl_int)off[1], (cl_int)off[2],
                                stride[0], stride[1], stride[2]};
    }
    return one_send(stage, frame_index, &packed, msg);
}

#define CLV__WATCHDOG_FIRED 1

/* Waits for ev like clWaitForEvents, but gives up after the context's
 * watchdog time (returning CLV__WATCHDOG_FIRED): polled, from every 50 µs
 * to every 2 ms, so that a quick frame costs little more than a wait. */
static cl_int watchdog_wait(const clv_context *ctx, cl_event ev)
{
    if (ctx->watchdog_s < 0)
        return clWaitForEvents(1, &ev);
    clFlush(ctx->queue);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long pause_us = 50;
    for (;;) {
        cl_int status = CL_QUEUED;
        cl_int st =
            clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
        if (st != CL_SUCCESS)
            return st;
        if (status == CL_COMPLETE)
            return CL_SUCCESS;
        if (status < 0)
            return status; /* the command failed */
        clock_gettime(CLOCK_MONOTONIC, &now);
        double waited = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
        if (waited > ctx->watchdog_s)
            return CLV__WATCHDOG_FIRED;
        struct timespec pause = {0, pause_us * 1000};
        nanosleep(&pause, NULL);
        pause_us = pause_us < 2000 ? pause_us * 2 : 2000;
    }
}

static uint64_t elapsed(cl_event from, int from_end, cl_event to)
{
    cl_ulong a = 0, b = 0;
    if (!from || !to ||
        clGetEventProfilingInfo(from,
                                from_end ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START,
                                sizeof a, &a, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(to, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL) != CL_SUCCESS)
        return 0;
    return b > a ? b - a : 0;
}

/* The oldest frame in flight: the one clv_stage_output takes (or gave). */
static stage_slot *oldest_slot(clv_stage *stage)
{
    return &stage->slots[(stage->next - stage->pending + stage->count) % stage->count];
}

static int one_output(clv_stage *stage, const uint8_t **out, uint64_t *frame_index, clv_msg *msg)
{
    if (!stage->pending || stage->holding)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: no frame to take");
    stage_slot *s = oldest_slot(stage);
    cl_int st = s->watched ? watchdog_wait(stage->ctx, s->down) : clWaitForEvents(1, &s->down);
    if (st == CLV__WATCHDOG_FIRED) {
        stage->ctx->hung = 1;
        return clv__fail(msg, CLV_ETIMEOUT,
                         "a frame took more than %g s on %s: a user kernel that does not finish "
                         "(an endless loop?); stopped, and the device left as it is",
                         stage->ctx->watchdog_s, stage->ctx->dev.name);
    }
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ECL, "GPU stage on %s: a frame failed (%s)", stage->ctx->dev.name,
                         clv__cl_strerror(st));
    if (stage->opt.profiling) {
        stage->times.upload_ns += elapsed(s->up, 0, s->up);
        stage->times.kernels_ns += elapsed(s->first_kernel, 0, s->last_kernel);
        if (s->down != s->last_kernel) /* shared staging: no download */
            stage->times.download_ns += elapsed(s->down, 0, s->down);
        if (!stage->passthrough) {
            stage->times.to_rgba_ns += elapsed(s->first_kernel, 0, s->first_kernel);
            /* a fused kernel is both conversions: counted once */
            if (stage->opt.out_format != CLV_PIX_RGBA && s->last_kernel != s->first_kernel)
                stage->times.from_rgba_ns += elapsed(s->last_kernel, 0, s->last_kernel);
        }
    }
    stage->times.frames++;
    stage->fused_frames += (uint64_t)s->fused;
    cl_ulong start = 0, end = 0;
    stage->out_start = stage->out_end = 0;
    /* Shared staging has no upload: the frame starts with its first kernel. */
    cl_event begin = s->up ? s->up : s->first_kernel ? s->first_kernel : s->last_kernel;
    if (stage->opt.profiling &&
        clGetEventProfilingInfo(begin, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(s->down, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
            CL_SUCCESS &&
        end > start) {
        stage->out_start = (double)start / 1e9;
        stage->out_end = (double)end / 1e9;
    }
    release_event(&s->up);
    release_event(&s->first_kernel);
    release_event(&s->last_kernel);
    release_event(&s->down);
    *out = s->host_out;
    if (frame_index)
        *frame_index = s->frame_index;
    stage->holding = 1;
    return 0;
}

static clv_block *one_keep(clv_stage *stage)
{
    if (!stage->holding || !stage->outputs)
        return NULL;
    stage_slot *s = oldest_slot(stage);
    clv_block *spare = block_get(stage->outputs);
    if (!spare)
        return NULL;
    clv_block *kept = s->out_block;
    s->out_block = spare;
    s->host_out = spare->pixels;
    outputs_ref(stage->outputs);
    return kept;
}

static void one_release(clv_stage *stage)
{
    if (!stage->holding)
        return;
    stage->holding = 0;
    stage->pending--;
}

/* ---- Several devices ------------------------------------------------------ */

static int lane_pending(const stage_lane *l)
{
    return l->stage->pending;
}

static int lane_full(const stage_lane *l)
{
    return l->stage->pending == l->stage->count;
}

static int lane_usable(const clv_stage *m, int i)
{
    const stage_lane *l = &m->lanes[i];
    return !l->draining && !m->dev[l->device].failed;
}

/* The lane expected to finish a new frame first: its queued frames and the
 * new one at its measured time per frame (unmeasured lanes first, the one
 * with fewer frames queued on a tie). -1 when that lane is full (the caller
 * takes a frame out first) or none is usable. A temporal chain stays on the
 * first usable device. */
static int choose_lane(clv_stage *m)
{
    int temporal = clv__chain_temporal(m->chain), best = -1;
    double best_t = 0, fastest = 0;
    for (int i = 0; i < m->lane_count; i++)
        if (lane_usable(m, i) && m->lanes[i].ms > 0 && (fastest == 0 || m->lanes[i].ms < fastest))
            fastest = m->lanes[i].ms;
    /* A lane left out for being slow is given a frame again now and then,
     * to measure it anew (the load may have changed): when the frames since
     * its last took the fastest 20 times as long as one of its own, so
     * that the wait on it costs at most about 5%. */
    for (int i = 0; !temporal && fastest > 0 && i < m->lane_count; i++) {
        const stage_lane *l = &m->lanes[i];
        if (lane_usable(m, i) && !lane_pending(l) &&
            (double)(m->submits - l->last_given) * fastest >= 20 * l->ms)
            return i;
    }
    for (int i = 0; i < m->lane_count; i++) {
        if (!lane_usable(m, i))
            continue;
        const stage_lane *l = &m->lanes[i];
        /* Unmeasured: one frame until its time is known, and none to the
         * others meanwhile (a slow one would be chosen for being known). */
        if (l->ms == 0 && lane_pending(l) > 0 && !temporal)
            return -1;
        double t = (lane_pending(l) + 1) * l->ms;
        int gpu = m->dctx[l->device]->dev.is_gpu,
            best_gpu = best >= 0 && m->dctx[m->lanes[best].device]->dev.is_gpu;
        if (best < 0 || t < best_t ||
            (t == best_t &&
             (gpu > best_gpu ||
              (gpu == best_gpu && lane_pending(l) < lane_pending(&m->lanes[best]))))) {
            best = i;
            best_t = t;
        }
        if (temporal)
            break;
    }
    return best >= 0 && !lane_full(&m->lanes[best]) ? best : -1;
}

static int push_order(clv_stage *m, int lane)
{
    if (m->order_count == m->order_cap)
        return -1;
    m->order[(m->order_head + m->order_count++) % m->order_cap] = lane;
    return 0;
}

/* Device d failed: every lane of it with frames in flight (and the frame
 * written into lane `unsent`'s input memory but not sent, when unsent >= 0)
 * is sent again, in order, through a rescue lane on the usable device
 * expected to be fastest. A frame the caller holds (taken, not released)
 * has been given out already: it stays where it is and is not sent again. */
static int fail_device(clv_stage *m, int d, int unsent, uint64_t unsent_index, const char *why,
                       clv_msg *msg)
{
    m->dev[d].failed = 1;
    m->chosen = -1;
    clv__log(m->dctx[d], CLV__LOG_WARN,
             "device %d (%s) failed: %s; its frames in flight go to the other devices", d,
             m->dev[d].name, why);
    for (int i = 0; i < m->lane_count; i++) {
        stage_lane *l = &m->lanes[i];
        int extra = i == unsent, held = i == m->holding_lane;
        if (l->device != d || (l->stage->pending - held == 0 && !extra))
            continue;
        int target = -1;
        for (int k = 0; k < m->lane_count; k++)
            if (lane_usable(m, k) && (target < 0 || m->lanes[k].ms < m->lanes[target].ms))
                target = k;
        if (target < 0)
            return clv__fail(msg, CLV_ECL, "device %d (%s) failed (%s) and no other device is left",
                             d, m->dev[d].name, why);
        int t = m->lanes[target].device;
        if (m->lane_count == m->lane_cap) {
            stage_lane *grown = realloc(m->lanes, (size_t)m->lane_cap * 2 * sizeof *grown);
            if (!grown)
                return clv__fail(msg, CLV_ENOMEM, "out of memory");
            m->lanes = grown;
            m->lane_cap *= 2;
            l = &m->lanes[i];
        }
        clv_stage *failed = l->stage, *rescue = NULL;
        int sent = failed->pending - held, n = sent + extra;
        clv_stage_options o = failed->opt;
        o.slots = n < 2 ? 2 : n;
        int err = one_create(m->dctx[t], &o, clv__chain_at(m->chain, t), &rescue, msg);
        for (int k = 0; !err && k < n; k++) {
            int at = (failed->next - sent + k + failed->count) % failed->count;
            stage_slot *s = &failed->slots[at];
            memcpy(one_input(rescue), s->host_in, failed->in_size);
            err = one_submit(rescue, k < sent ? s->frame_index : unsent_index, msg);
        }
        if (err) {
            one_destroy(rescue);
            return err;
        }
        int r = m->lane_count++;
        m->lanes[r] =
            (stage_lane){.stage = rescue, .device = t, .draining = 1, .ms = m->lanes[target].ms};
        for (int k = held; k < m->order_count; k++) /* the held one is first */
            if (m->order[(m->order_head + k) % m->order_cap] == i)
                m->order[(m->order_head + k) % m->order_cap] = r;
        if (extra && push_order(m, r))
            return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
        /* The failed lane's frames are now the rescue's (but the held one,
         * released from this lane). */
        failed->pending = held;
        failed->holding = held;
    }
    return 0;
}

static void multi_destroy(clv_stage *m)
{
    for (int i = 0; i < m->lane_count; i++)
        one_destroy(m->lanes[i].stage);
    free(m->lanes);
    free(m->order);
    free(m);
}

static int multi_create(clv_context *ctx, const clv_stage_options *options, clv_chain *chain,
                        clv_stage **out, clv_msg *msg)
{
    clv_stage *m = calloc(1, sizeof *m);
    int n = clv_context_device_count(ctx);
    int slots = options->slots >= 2 ? options->slots : 3;
    if (m) {
        m->lanes = calloc((size_t)n * 2, sizeof *m->lanes);
        m->order = calloc((size_t)(n * slots + 1), sizeof *m->order);
    }
    if (!m || !m->lanes || !m->order) {
        if (m) {
            free(m->lanes);
            free(m->order);
        }
        free(m);
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    }
    m->ctx = ctx;
    m->chain = chain;
    m->opt = *options;
    m->lane_cap = n * 2;
    m->order_cap = n * slots + 1;
    m->device_count = n;
    m->chosen = m->holding_lane = -1;
    for (int d = 0; d < n; d++) {
        m->dctx[d] = clv__context_at(ctx, d);
        m->dev[d].name = clv_context_device(m->dctx[d])->name;
        clv_stage_options timed = *options;
        timed.profiling = 1; /* the upload and download queues: each device's time per frame */
        int err = one_create(m->dctx[d], &timed, clv__chain_at(chain, d), &m->lanes[d].stage, msg);
        if (err) {
            multi_destroy(m);
            return err;
        }
        m->lanes[d].device = d;
        m->lane_count = d + 1;
    }
    m->out_w = m->lanes[0].stage->out_w;
    m->out_h = m->lanes[0].stage->out_h;
    *out = m;
    return 0;
}

static uint8_t *multi_input(clv_stage *m)
{
    if (m->chosen >= 0 && lane_usable(m, m->chosen) && !lane_full(&m->lanes[m->chosen]))
        return one_input(m->lanes[m->chosen].stage);
    m->chosen = choose_lane(m);
    return m->chosen >= 0 ? one_input(m->lanes[m->chosen].stage) : NULL;
}

static int multi_submit(clv_stage *m, uint64_t frame_index, clv_msg *msg)
{
    if (!multi_input(m))
        return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    int i = m->chosen;
    m->chosen = -1;
    m->lanes[i].last_given = m->submits++;
    clv_msg why = {{0}};
    int d = m->lanes[i].device, err;
    if (m->fault_submit[d]) {
        m->fault_submit[d] = 0;
        err = CLV_ECL;
        snprintf(why.text, sizeof why.text, "injected fault at a submit");
    } else {
        err = one_submit(m->lanes[i].stage, frame_index, &why);
    }
    if (!err)
        return push_order(m, i) ? clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight")
                                : 0;
    return fail_device(m, d, i, frame_index, why.text, msg);
}

static int multi_output(clv_stage *m, const uint8_t **out, uint64_t *frame_index, clv_msg *msg)
{
    if (!m->order_count || m->holding_lane >= 0)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: no frame to take");
    for (;;) {
        int i = m->order[m->order_head];
        stage_lane *l = &m->lanes[i];
        int d = l->device;
        clv_msg why = {{0}};
        int err;
        if (m->fault_set[d] && m->dev[d].frames >= m->fault_after[d]) {
            err = CLV_ECL;
            snprintf(why.text, sizeof why.text, "injected fault after %llu frames",
                     (unsigned long long)m->fault_after[d]);
        } else {
            err = one_output(l->stage, out, frame_index, &why);
        }
        if (err == CLV_ETIMEOUT) { /* the kernel's fault, not the device's: no retry */
            *msg = why;
            return err;
        }
        if (err) {
            if ((err = fail_device(m, d, -1, 0, why.text, msg)))
                return err;
            continue; /* the frame is on a rescue lane now */
        }
        /* The device's own clock: from the upload's start (or the previous
         * frame's end, when it was still busy) to the download's end. */
        const clv_stage *one = l->stage;
        m->dev[d].frames++;
        if (one->out_end > 0) {
            double from = one->out_start > l->last_done ? one->out_start : l->last_done;
            double service = (one->out_end - from) * 1000;
            l->last_done = one->out_end;
            l->ms = l->ms > 0 ? 0.7 * l->ms + 0.3 * service : service;
            m->dev[d].busy_ms += service;
        }
        if (!l->draining) /* the device's other lanes learn its speed too */
            for (int k = 0; k < m->lane_count; k++)
                if (m->lanes[k].device == d && m->lanes[k].draining)
                    m->lanes[k].ms = l->ms;
        m->holding_lane = i;
        return 0;
    }
}

static void multi_release(clv_stage *m)
{
    if (m->holding_lane < 0)
        return;
    one_release(m->lanes[m->holding_lane].stage);
    m->holding_lane = -1;
    m->order_head = (m->order_head + 1) % m->order_cap;
    m->order_count--;
}

/* ---- The calls ------------------------------------------------------------ */

int clv_stage_create(clv_context *ctx, const clv_stage_options *options, clv_chain *chain,
                     clv_stage **out, clv_msg *msg)
{
    *out = NULL;
    if (clv_context_device_count(ctx) > 1)
        return multi_create(ctx, options, chain, out, msg);
    return one_create(ctx, options, chain, out, msg);
}

void clv_stage_destroy(clv_stage *stage)
{
    if (stage && stage->lanes)
        multi_destroy(stage);
    else
        one_destroy(stage);
}

void clv_stage_set_chain(clv_stage *stage, clv_chain *chain)
{
    if (!stage->lanes) {
        one_set_chain(stage, chain);
        return;
    }
    stage->chain = chain;
    for (int i = 0; i < stage->lane_count; i++) {
        one_set_chain(stage->lanes[i].stage, clv__chain_at(chain, stage->lanes[i].device));
        stage->lanes[i].ms = 0; /* another chain: measured again */
    }
}

uint8_t *clv_stage_input(clv_stage *stage)
{
    return stage->lanes ? multi_input(stage) : one_input(stage);
}

int clv_stage_submit(clv_stage *stage, uint64_t frame_index, clv_msg *msg)
{
    return stage->lanes ? multi_submit(stage, frame_index, msg)
                        : one_submit(stage, frame_index, msg);
}

int clv_stage_pending(const clv_stage *stage)
{
    return stage->lanes ? stage->order_count : stage->pending;
}

int clv_stage_output(clv_stage *stage, const uint8_t **out, uint64_t *frame_index, clv_msg *msg)
{
    return stage->lanes ? multi_output(stage, out, frame_index, msg)
                        : one_output(stage, out, frame_index, msg);
}

void clv_stage_release(clv_stage *stage)
{
    if (stage->lanes)
        multi_release(stage);
    else
        one_release(stage);
}

clv_block *clv_stage_block_new(clv_stage *stage, size_t size)
{
    if (stage->lanes || !stage->outputs || !size)
        return NULL;
    clv_block *b = block_new(stage->outputs, size);
    if (b)
        outputs_ref(stage->outputs);
    return b;
}

int clv_stage_submit_block(clv_stage *stage, uint64_t frame_index, const clv_block *block,
                           const size_t offset[3], const int stride[3], clv_msg *msg)
{
    const clv_stage_options *o = &stage->opt;
    if (!clv_pixfmt_is_yuv(o->in_format))
        return clv__fail(msg, CLV_EINVAL,
                         "GPU stage: frames in blocks are yuv420p or nv12, this stage takes %s",
                         clv_pixfmt_name(o->in_format));
    size_t packed_off[3];
    int packed_stride[3], rows[3];
    int planes = yuv_planes(o->in_format, o->width, o->height, packed_off, packed_stride, rows);
    for (int i = 0; i < planes; i++) {
        /* The last row needs only its own bytes, not a whole stride. */
        if (stride[i] < packed_stride[i] || offset[i] > block->size ||
            (size_t)(rows[i] - 1) * (size_t)stride[i] + (size_t)packed_stride[i] >
                block->size - offset[i] ||
            block->size > (size_t)CL_INT_MAX)
            return clv__fail(msg, CLV_EINVAL,
                             "GPU stage: plane %d (%d rows of %d bytes, %d apart, from byte %zu) "
                             "does not fit in its block of %zu bytes",
                             i, rows[i], packed_stride[i], stride[i], offset[i], block->size);
    }
    clv_stage *one = stage->lanes ? NULL : stage;
    if (one && one->pending == one->count)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    if (one && one->outputs && block->owner == one->outputs && !one->passthrough) {
        /* The kernels read the block where it is. */
        int nv12 = o->in_format == CLV_PIX_NV12;
        stage_source src = {.svm = block->pixels,
                            .yoff = (cl_int)offset[0],
                            .uoff = (cl_int)offset[1],
                            .voff = nv12 ? 0 : (cl_int)offset[2],
                            .ys = stride[0],
                            .us = stride[1],
                            .vs = nv12 ? 0 : stride[2]};
        return one_send(one, frame_index, &src, msg);
    }
    /* Another device's memory, several devices, or a plain copy through the
     * stage: the planes are packed into the staging as clv_stage_input's. */
    uint8_t *in = clv_stage_input(stage);
    if (!in)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    for (int i = 0; i < planes; i++)
        for (int y = 0; y < rows[i]; y++)
            memcpy(in + packed_off[i] + (size_t)y * (size_t)packed_stride[i],
                   block->pixels + offset[i] + (size_t)y * (size_t)stride[i],
                   (size_t)packed_stride[i]);
    return clv_stage_submit(stage, frame_index, msg);
}

clv_block *clv_stage_keep(clv_stage *stage)
{
    if (!stage->lanes)
        return one_keep(stage);
    return stage->holding_lane >= 0 ? one_keep(stage->lanes[stage->holding_lane].stage) : NULL;
}

uint64_t clv_stage_fused_frames(const clv_stage *stage)
{
    uint64_t n = stage->fused_frames;
    for (int i = 0; stage->lanes && i < stage->lane_count; i++)
        n += stage->lanes[i].stage->fused_frames;
    return n;
}

void clv_stage_get_times(const clv_stage *stage, clv_stage_times *times)
{
    if (!stage->lanes) {
        *times = stage->times;
        return;
    }
    memset(times, 0, sizeof *times);
    for (int i = 0; i < stage->lane_count; i++) {
        const clv_stage_times *t = &stage->lanes[i].stage->times;
        times->frames += t->frames;
        times->upload_ns += t->upload_ns;
        times->kernels_ns += t->kernels_ns;
        times->download_ns += t->download_ns;
        times->to_rgba_ns += t->to_rgba_ns;
        times->from_rgba_ns += t->from_rgba_ns;
    }
}

int clv_stage_device_count(const clv_stage *stage)
{
    return stage->lanes ? stage->device_count : 1;
}

void clv_stage_device_stats(const clv_stage *stage, int device, clv_stage_device *out)
{
    memset(out, 0, sizeof *out);
    if (!stage->lanes) {
        if (device == 0) {
            out->name = stage->ctx->dev.name;
            out->frames = stage->times.frames;
        }
        return;
    }
    if (device >= 0 && device < stage->device_count)
        *out = stage->dev[device];
}

void clv_stage_inject_fault(clv_stage *stage, int device, uint64_t frames)
{
    if (stage->lanes && device >= 0 && device < stage->device_count) {
        stage->fault_set[device] = 1;
        stage->fault_after[device] = frames;
    }
}

void clv_stage_inject_submit_fault(clv_stage *stage, int device)
{
    if (stage->lanes && device >= 0 && device < stage->device_count)
        stage->fault_submit[device] = 1;
}
