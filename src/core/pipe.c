/* pipe.c - the stage on one device: pinned staging, an upload queue, the
 * compute queue (conversion, chain, conversion) and a download queue,
 * chained by events, with several frames in flight. */
/* OpenCL 2.0 for the shared (SVM) staging; the rest is 1.2, as everywhere. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "stage_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void release_event(cl_event *e)
{
    if (*e)
        clReleaseEvent(*e);
    *e = NULL;
}

static int is_packed(clv_pixfmt f)
{
    return !clv_pixfmt_is_yuv(f);
}

/* The 16-bit conversions' format numbers (cl/color.cl's fmt). */
static cl_int deep_code(clv_pixfmt f)
{
    switch (f) {
    case CLV_PIX_YUV420P10:
        return 0;
    case CLV_PIX_P010:
        return 1;
    case CLV_PIX_YUV444P16:
        return 2;
    case CLV_PIX_RGBA64:
        return 3;
    case CLV_PIX_NV12:
        return 5;
    default:
        return 4; /* yuv420p */
    }
}

static void packed_args(clv_pixfmt f, cl_int *bpp, cl_int *bgr, cl_int *alpha)
{
    *bpp = f == CLV_PIX_RGB24 || f == CLV_PIX_BGR24 ? 3 : f == CLV_PIX_RGBA64 ? 8 : 4;
    *bgr = f == CLV_PIX_BGRA || f == CLV_PIX_BGR0 || f == CLV_PIX_BGR24;
    *alpha = f == CLV_PIX_RGBA || f == CLV_PIX_BGRA;
}

/* Releases the output side of every slot (the chain's output frame and the
 * output staging), after the queues finished. */
static void release_outputs(clv__pipe *stage)
{
    for (int i = 0; stage->slots && i < stage->count; i++) {
        clv__slot *s = &stage->slots[i];
        if (stage->outputs) /* after the downloads: the queues finished */
            clv__block_put(stage->outputs, s->out_block);
        s->out_block = NULL;
        s->host_out = NULL;
        clv__mem_release(&s->dev_out);
        clv_frame_destroy(&s->rgba_out);
    }
    clv__outputs_unref(stage->outputs); /* the blocks go with the last one kept */
    stage->outputs = NULL;
}

void clv__pipe_destroy(clv__pipe *stage)
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
    release_outputs(stage);
    for (int i = 0; stage->slots && i < stage->count; i++) {
        clv__slot *s = &stage->slots[i];
        release_event(&s->up);
        release_event(&s->first_kernel);
        release_event(&s->last_kernel);
        release_event(&s->down);
        if (ctx->shared_staging) {
            clSVMFree(ctx->cl, s->host_in); /* NULL is allowed */
        } else {
            if (s->host_in)
                clEnqueueUnmapMemObject(stage->up_q, s->pin_in, s->host_in, 0, NULL, NULL);
            if (stage->up_q)
                clFinish(stage->up_q);
        }
        clv__mem_release(&s->pin_in);
        clv__mem_release(&s->dev_in);
        clv_frame_destroy(&s->rgba_src);
        clv_frame_destroy(&s->rgba_in);
        for (int j = 1; s->extra && j < stage->graph_inputs; j++) {
            clv__slot_input *e = &s->extra[j];
            if (ctx->shared_staging) {
                clSVMFree(ctx->cl, e->host);
            } else if (e->host) {
                clEnqueueUnmapMemObject(stage->up_q, e->pin, e->host, 0, NULL, NULL);
                clFinish(stage->up_q);
            }
            clv__mem_release(&e->pin);
            clv__mem_release(&e->dev);
            clv_frame_destroy(&e->rgba);
        }
        free(s->extra);
    }
    free(stage->slots);
    for (int j = 1; stage->gin && j < stage->graph_inputs; j++) {
        clv__kernel_release(&stage->gin[j].to_rgba);
        clv__mem_release(&stage->gin[j].coeff);
    }
    free(stage->gin);
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

static int coeff_buffer(clv_context *ctx, clv_color color, int depth, cl_mem *out)
{
    clv__yuv_coeffs k;
    if (depth == 16)
        clv__yuv_coeffs_make16(color, &k);
    else
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

int clv__pipe_wanted(clv__pipe *stage, int *w, int *h, clv_msg *msg)
{
    if (stage->graph) { /* the inputs' sizes are fixed: so is the output's */
        *w = stage->out_w;
        *h = stage->out_h;
        return 0;
    }
    *w = stage->up_w;
    *h = stage->up_h;
    if (!stage->chain)
        return 0;
    if (clv_chain_depth(stage->chain) != stage->depth)
        return clv__fail(msg, CLV_EDEPTH,
                         "GPU stage: the chain runs at %d bits a channel and the stage's frames "
                         "(%s in) at %d",
                         clv_chain_depth(stage->chain), clv_pixfmt_name(stage->opt.in_format),
                         stage->depth);
    clv_size out;
    int err = clv__chain_size(stage->chain, stage->up_w, stage->up_h, &out, msg);
    if (!err) {
        *w = out.width;
        *h = out.height;
    }
    return err;
}

void clv__pipe_set_chain(clv__pipe *stage, clv_chain *chain)
{
    if (stage->graph) /* a graph's stage keeps its graph */
        return;
    stage->chain = chain;
    stage->passthrough = passthrough(&stage->opt, chain);
    int w, h;
    memset(&stage->chain_msg, 0, sizeof stage->chain_msg);
    stage->chain_err = clv__pipe_wanted(stage, &w, &h, &stage->chain_msg);
}

/* The chain's frames go out as they are (RGBA8, or RGBA16 as rgba64le):
 * no conversion out. */
static int stage_direct(const clv__pipe *stage)
{
    return stage->opt.out_format == (stage->depth == 16 ? CLV_PIX_RGBA64 : CLV_PIX_RGBA);
}

/* The output side of every slot for frames of out_w x out_h: the chain's
 * output frame and the output staging. */
static int alloc_outputs(clv__pipe *stage, clv_msg *msg)
{
    clv_context *ctx = stage->ctx;
    const clv_stage_options *options = &stage->opt;
    int ow = stage->out_w, oh = stage->out_h, err = 0;
    stage->out_size = clv_pixfmt_size(options->out_format, ow, oh);
    /* See clv__pipe_create: shared staging shares the RGBA frames. */
    int share_rgba = ctx->shared_staging && !stage_direct(stage);
    for (int i = 0; i < stage->count; i++) {
        clv__slot *s = &stage->slots[i];
        if (i > 0 && share_rgba) {
            s->rgba_out = stage->slots[0].rgba_out;
            clRetainMemObject(s->rgba_out.buffer);
        } else if ((err = clv_frame_create_depth(ctx, ow, oh, stage->depth, &s->rgba_out, msg))) {
            return err;
        }
        /* The output staging is a block either way, so that clv_stage_keep
         * can hand it over: SVM the kernels write (shared staging), or
         * pinned memory the download copies into. */
        if (!stage->outputs)
            stage->outputs = clv__outputs_create(ctx, stage->out_size);
        s->out_block = stage->outputs ? clv__block_get(stage->outputs) : NULL;
        s->host_out = s->out_block ? s->out_block->pixels : NULL;
        if (!s->host_out)
            return clv__fail(msg, CLV_ENOMEM, "cannot allocate %d output frames of %dx%d on %s",
                             stage->count, ow, oh, ctx->dev.name);
        if (ctx->shared_staging)
            continue;
        s->dev_out = buffer(ctx, CL_MEM_WRITE_ONLY, stage->out_size, &err);
        if (err)
            return clv__fail(msg, err, "cannot allocate %d output frames of %dx%d on %s",
                             stage->count, ow, oh, ctx->dev.name);
    }
    return 0;
}

/* Makes the output side again when the chain's output size changed and
 * nothing is in flight: 0 when the slots fit the next frame, 1 when frames
 * in flight must be taken first, else an error. */
static int reshape(clv__pipe *stage, clv_msg *msg)
{
    if (stage->chain_err) {
        /* The chain may take the frames now (a parameter moved back). */
        int w, h;
        int err = clv__pipe_wanted(stage, &w, &h, &stage->chain_msg);
        if (err) {
            if (msg)
                *msg = stage->chain_msg;
            return err;
        }
        stage->chain_err = 0;
    }
    int w, h, err;
    if ((err = clv__pipe_wanted(stage, &w, &h, msg)))
        return err;
    if (w == stage->out_w && h == stage->out_h)
        return 0;
    if (stage->pending)
        return 1;
    clFinish(stage->ctx->queue);
    clFinish(stage->down_q);
    release_outputs(stage);
    stage->out_w = w;
    stage->out_h = h;
    if ((err = alloc_outputs(stage, msg))) {
        release_outputs(stage);
        stage->out_w = stage->out_h = 0; /* tried again at the next frame */
        return err;
    }
    return 0;
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

/* A graph's stage: the graph's inputs (their frames, checked against the
 * stage's depth) and its output size for them. */
static int graph_inputs(clv__pipe *stage, clv_graph *graph, const clv_stage_input_format *inputs,
                        clv_msg *msg)
{
    const clv_graph_desc *desc = clv_graph_get_desc(graph);
    int n = clv_graph_desc_inputs(desc);
    if (n < 1 || n > CLV_GRAPH_INPUTS)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: a graph of %d inputs: expected 1 to %d", n,
                         CLV_GRAPH_INPUTS);
    if (n > 1 && !inputs)
        return clv__fail(msg, CLV_EINVAL,
                         "GPU stage: the graph reads %d inputs and no frames are given for "
                         "inputs 1 to %d",
                         n, n - 1);
    stage->gin = calloc((size_t)n, sizeof *stage->gin);
    if (!stage->gin)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    stage->graph = graph;
    stage->graph_inputs = n;
    stage->passthrough = 0;
    clv_size in[CLV_GRAPH_INPUTS];
    memset(in, 0, sizeof in);
    in[0].width = stage->up_w;
    in[0].height = stage->up_h;
    stage->gin[0].used = clv_graph_desc_uses(desc, 0);
    for (int i = 1; i < n; i++) {
        clv__graph_input *g = &stage->gin[i];
        g->f = inputs[i];
        g->used = clv_graph_desc_uses(desc, i);
        in[i].width = g->f.width;
        in[i].height = g->f.height;
        if (!g->used)
            continue;
        int d = clv_pixfmt_depth(g->f.format);
        /* A 16-bit stage reads 8-bit Y'CbCr too (cl/color.cl's deep_to_rgba). */
        int yuv8 = g->f.format == CLV_PIX_YUV420P || g->f.format == CLV_PIX_NV12;
        if (g->f.width < 1 || g->f.height < 1)
            return clv__fail(msg, CLV_EINVAL, "GPU stage: input %d is %dx%d", i, g->f.width,
                             g->f.height);
        if (d != stage->depth && !(stage->depth == 16 && yuv8))
            return clv__fail(msg, CLV_EDEPTH,
                             "GPU stage: input %d's frames are %s (%d bits a channel) and the "
                             "graph runs at %d",
                             i, clv_pixfmt_name(g->f.format), d, stage->depth);
        g->size = clv_pixfmt_size(g->f.format, g->f.width, g->f.height);
    }
    clv_size size;
    int err = clv_graph_output_size(graph, in, &size, msg);
    if (err)
        return err;
    stage->out_w = size.width;
    stage->out_h = size.height;
    return 0;
}

/* Input i's staging and RGBA frame in slot s (first: the first slot's,
 * which the others share with shared staging). */
static int graph_slot_input(clv__pipe *stage, clv__slot *s, int i, const clv__slot *first,
                            int share_rgba, clv_msg *msg)
{
    clv_context *ctx = stage->ctx;
    const clv__graph_input *g = &stage->gin[i];
    clv__slot_input *e = &s->extra[i];
    int err = 0;
    if (first && share_rgba) {
        e->rgba = first->extra[i].rgba;
        clRetainMemObject(e->rgba.buffer);
    } else if ((err = clv_frame_create_depth(ctx, g->f.width, g->f.height, stage->depth, &e->rgba,
                                             msg))) {
        return err;
    }
    if (ctx->shared_staging) {
        e->host = clSVMAlloc(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, g->size, 0);
        return e->host ? 0 : CLV_ENOMEM;
    }
    e->pin = buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, g->size, &err);
    e->dev = err ? NULL : buffer(ctx, CL_MEM_READ_ONLY, g->size, &err);
    if (err)
        return err;
    cl_int st = CL_SUCCESS;
    e->host = clEnqueueMapBuffer(stage->up_q, e->pin, CL_TRUE, CL_MAP_WRITE, 0, g->size, 0, NULL,
                                 NULL, &st);
    if (st != CL_SUCCESS) {
        e->host = NULL;
        return CLV_ENOMEM;
    }
    return 0;
}

static const char *to_rgba_name(int depth, clv_pixfmt f)
{
    return depth == 16 ? "deep_to_rgba" : is_packed(f) ? "packed_to_rgba" : "yuv420_to_rgba";
}

static int pipe_create(clv_context *ctx, const clv_stage_options *options, clv_chain *chain,
                       clv_graph *graph, const clv_stage_input_format *inputs, clv__pipe **out,
                       clv_msg *msg)
{
    *out = NULL;
    int err = 0;
    int rot = options->rotation;
    if (rot != 0 && rot != 90 && rot != 180 && rot != 270)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: rotation %d: expected 0, 90, 180 or 270",
                         rot);
    int in_depth = clv_pixfmt_depth(options->in_format);
    int out_depth = clv_pixfmt_depth(options->out_format);
    int depth = options->depth ? options->depth : in_depth;
    if (depth != 8 && depth != 16)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: depth %d: expected 8 or 16 (or 0)", depth);
    /* A graph's 16-bit stage reads 8-bit Y'CbCr too, on every input. */
    int yuv8 = options->in_format == CLV_PIX_YUV420P || options->in_format == CLV_PIX_NV12;
    if (depth != in_depth && !(graph && depth == 16 && yuv8))
        return clv__fail(msg, CLV_EDEPTH,
                         "GPU stage: %s frames in run a chain of %d bits a channel, not %d",
                         clv_pixfmt_name(options->in_format), in_depth, depth);
    if (out_depth > depth)
        return clv__fail(msg, CLV_EDEPTH,
                         "GPU stage: %s out needs frames of more than 8 bits in; %s has 8",
                         clv_pixfmt_name(options->out_format), clv_pixfmt_name(options->in_format));
    clv__pipe *stage = calloc(1, sizeof *stage);
    if (!stage)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    stage->ctx = ctx;
    stage->chain = chain;
    stage->opt = *options;
    stage->depth = depth;
    int w = options->width, h = options->height;
    stage->count = options->slots >= 2 ? options->slots : 3;
    stage->in_size = clv_pixfmt_size(options->in_format, w, h);
    stage->passthrough = passthrough(options, chain);
    orientation(w, h, rot, options->hflip, stage->orient_coef, &stage->up_w, &stage->up_h);
    int ow = stage->up_w, oh = stage->up_h, oriented = rot || options->hflip;
    if (graph && (err = graph_inputs(stage, graph, inputs, msg))) {
        clv__pipe_destroy(stage);
        return err;
    }
    /* 8-bit 4:2:0 in and out of one size and colours, upright: a graph
     * that blends into input 0's planes does (ffmpeg's default overlay) */
    int yuv_out = options->out_format == CLV_PIX_YUV420P || options->out_format == CLV_PIX_NV12;
    stage->planes = graph && depth == 8 && yuv8 && yuv_out && !oriented &&
                    options->in_color.matrix == options->out_color.matrix &&
                    options->in_color.full_range == options->out_color.full_range &&
                    stage->out_w == w && stage->out_h == h && clv__graph_planes(graph);
    stage->inplace =
        stage->planes && ctx->shared_staging && options->in_format == options->out_format;
    if ((err = clv__pipe_wanted(stage, &stage->out_w, &stage->out_h, msg))) {
        free(stage);
        return err;
    }

    cl_int st = CL_SUCCESS;
    cl_command_queue_properties props = options->profiling ? CL_QUEUE_PROFILING_ENABLE : 0;
    stage->up_q = clCreateCommandQueue(ctx->cl, ctx->dev.device_id, props, &st);
    CLV__CL_CHECK(ctx, st, "clCreateCommandQueue (upload)");
    stage->down_q = clCreateCommandQueue(ctx->cl, ctx->dev.device_id, props, &st);
    CLV__CL_CHECK(ctx, st, "clCreateCommandQueue (download)");

    cl_program prog = NULL;
    int deep = depth == 16;
    if ((err = deep ? clv__program_variant(
                          ctx, "color", ctx->build_depth == 16 ? "" : "-DCLV_DEPTH=16", &prog, msg)
                    : clv__program_get(ctx, "color", &prog, msg)))
        goto fail_msg;
    const char *to = to_rgba_name(depth, options->in_format);
    const char *from = deep
                           ? (is_packed(options->out_format) ? "rgba16_to_packed" : "rgba16_to_yuv")
                       : is_packed(options->out_format) ? "rgba_to_packed"
                                                        : "rgba_to_yuv420";
    if ((err = clv__kernel_create(prog, to, &stage->to_rgba, msg)) ||
        (err = clv__kernel_create(prog, from, &stage->from_rgba, msg)) ||
        (oriented && (err = clv__kernel_create(prog, "orient", &stage->orient, msg))))
        goto fail_msg;
    if ((err = coeff_buffer(ctx, options->in_color, depth, &stage->coeff_in)) ||
        (err = coeff_buffer(ctx, options->out_color, depth, &stage->coeff_out)))
        goto fail_alloc;
    for (int i = 1; i < stage->graph_inputs; i++) {
        clv__graph_input *g = &stage->gin[i];
        if (g->used &&
            ((err = clv__kernel_create(prog, to_rgba_name(depth, g->f.format), &g->to_rgba, msg)) ||
             (err = coeff_buffer(ctx, g->f.color, depth, &g->coeff))))
            goto fail_msg;
    }

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
    int share_rgba = ctx->shared_staging && !stage_direct(stage);
    for (int i = 0; i < stage->count; i++) {
        clv__slot *s = &stage->slots[i];
        if (i > 0 && share_rgba) {
            s->rgba_src = stage->slots[0].rgba_src;
            s->rgba_in = stage->slots[0].rgba_in;
            if (s->rgba_src.buffer)
                clRetainMemObject(s->rgba_src.buffer);
            clRetainMemObject(s->rgba_in.buffer);
        } else if ((oriented &&
                    (err = clv_frame_create_depth(ctx, w, h, depth, &s->rgba_src, msg))) ||
                   (err = clv_frame_create_depth(ctx, ow, oh, depth, &s->rgba_in, msg)))
            goto fail_msg;
        if (stage->graph_inputs > 1 &&
            !(s->extra = calloc((size_t)stage->graph_inputs, sizeof *s->extra))) {
            err = CLV_ENOMEM;
            goto fail_alloc;
        }
        for (int j = 1; j < stage->graph_inputs; j++)
            if (stage->gin[j].used &&
                (err = graph_slot_input(stage, s, j, i > 0 ? &stage->slots[0] : NULL, share_rgba,
                                        msg)))
                goto fail_alloc;
        if (ctx->shared_staging) {
            cl_svm_mem_flags f = CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER;
            s->host_in = clSVMAlloc(ctx->cl, f, stage->in_size, 0);
            if (!s->host_in) {
                err = CLV_ENOMEM;
                goto fail_alloc;
            }
            continue;
        }
        s->pin_in = buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, stage->in_size, &err);
        s->dev_in = err ? NULL : buffer(ctx, CL_MEM_READ_ONLY, stage->in_size, &err);
        if (err)
            goto fail_alloc;
        s->host_in = clEnqueueMapBuffer(stage->up_q, s->pin_in, CL_TRUE, CL_MAP_WRITE, 0,
                                        stage->in_size, 0, NULL, NULL, &st);
        CLV__CL_CHECK(ctx, st, "clEnqueueMapBuffer (input staging)");
    }
    if ((err = alloc_outputs(stage, msg)))
        goto fail_msg;
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
    clv__pipe_destroy(stage);
    return err;
}

int clv__pipe_create(clv_context *ctx, const clv_stage_options *options, clv_chain *chain,
                     clv__pipe **out, clv_msg *msg)
{
    return pipe_create(ctx, options, chain, NULL, NULL, out, msg);
}

int clv__pipe_create_graph(clv_context *ctx, const clv_stage_options *options, clv_graph *graph,
                           const clv_stage_input_format *inputs, clv__pipe **out, clv_msg *msg)
{
    return pipe_create(ctx, options, NULL, graph, inputs, out, msg);
}

uint8_t *clv__pipe_input(clv__pipe *stage)
{
    if (stage->pending == stage->count || (!stage->chain_err && reshape(stage, NULL) == 1))
        return NULL;
    return clv__pipe_slot_memory(stage, stage->next);
}

uint8_t *clv__pipe_slot_memory(clv__pipe *stage, int slot)
{
    /* In place: the graph blends into the output where it is. */
    return stage->inplace ? stage->slots[slot].host_out : stage->slots[slot].host_in;
}

/* Enqueues one conversion kernel over w x h (or the chroma grid) from
 * `from` (or the SVM memory at from_svm) to `to` (or at to_svm), after
 * `wait` (may be NULL); *done (may be NULL) gets its event. */
static int convert_sized(clv__pipe *stage, cl_kernel k, cl_mem from, const void *from_svm,
                         cl_mem to, void *to_svm, clv_pixfmt f, cl_mem coeffs, int to_rgba, int w,
                         int h, cl_event wait, cl_event *done, const clv__stage_source *src)
{
    clv_context *ctx = stage->ctx;
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
    /* Into RGBA before a deinterlacer: 4:2:0 chroma field by field. */
    cl_int fields = to_rgba && clv__chain_fields(stage->chain);
    if (stage->depth == 16 && to_rgba) {
        cl_int fmt = deep_code(f);
        cl_int ys = f == CLV_PIX_RGBA64 ? 8 * w : src->ys;
        cl_int yoff = f == CLV_PIX_RGBA64 ? 0 : src->yoff;
        if (!err)
            err = clv__kernel_args(k, 5, 2, CLV__ARG(fmt), CLV__ARG(coeffs));
        if (!err)
            err = clv__kernel_args(k, 7, 7, CLV__ARG(yoff), CLV__ARG(src->uoff),
                                   CLV__ARG(src->voff), CLV__ARG(ys), CLV__ARG(src->us),
                                   CLV__ARG(src->vs), CLV__ARG(fields));
        if (!err)
            err = clv__launch_pixels(&l, k, w, h);
    } else if (stage->depth == 16 && !is_packed(f)) {
        cl_int fmt = deep_code(f), limited = !stage->opt.out_color.full_range;
        if (!err)
            err = clv__kernel_args(k, 5, 3, CLV__ARG(fmt), CLV__ARG(coeffs), CLV__ARG(limited));
        if (!err)
            err = clv__launch_pixels(&l, k, (w + 1) / 2, (h + 1) / 2);
    } else if (is_packed(f)) {
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
            err = clv__kernel_args(k, 7, 7, CLV__ARG(src->yoff), CLV__ARG(src->uoff),
                                   CLV__ARG(src->voff), CLV__ARG(src->ys), CLV__ARG(src->us),
                                   CLV__ARG(src->vs), CLV__ARG(fields));
        if (!err)
            err = to_rgba ? clv__launch_pixels(&l, k, w, h)
                          : clv__launch_pixels(&l, k, (w + 1) / 2, (h + 1) / 2);
    }
    return err;
}

/* convert_sized over the stage's frames: into RGBA the source's size, out
 * of it the chain's output size. */
static int convert(clv__pipe *stage, cl_kernel k, cl_mem from, const void *from_svm, cl_mem to,
                   void *to_svm, clv_pixfmt f, cl_mem coeffs, int to_rgba, cl_event wait,
                   cl_event *done, const clv__stage_source *src)
{
    int w = to_rgba ? stage->opt.width : stage->out_w;
    int h = to_rgba ? stage->opt.height : stage->out_h;
    return convert_sized(stage, k, from, from_svm, to, to_svm, f, coeffs, to_rgba, w, h, wait, done,
                         src);
}

/* rgba_src turned upright into rgba_in (in order on the compute queue). */
static int orient(clv__pipe *stage, clv__slot *s, cl_event *done)
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

/* The packed planes of a frame of format f, w x h, in its staging. */
static clv__stage_source packed_source(clv_pixfmt f, int w, int h)
{
    clv__stage_source packed = {0};
    if (clv_pixfmt_is_yuv(f)) {
        size_t off[3];
        int stride[3], rows[3];
        clv__yuv_planes(f, w, h, off, stride, rows);
        packed = (clv__stage_source){.uoff = (cl_int)off[1],
                                     .voff = (cl_int)off[2],
                                     .ys = stride[0],
                                     .us = stride[1],
                                     .vs = stride[2]};
    }
    return packed;
}

uint8_t *clv__pipe_input_at(clv__pipe *stage, int index)
{
    if (index == 0)
        return clv__pipe_input(stage);
    if (!stage->graph || index < 0 || index >= stage->graph_inputs || !stage->gin[index].used ||
        stage->pending == stage->count)
        return NULL;
    return stage->slots[stage->next].extra[index].host;
}

void clv__pipe_input_absent(clv__pipe *stage, int index)
{
    if (stage->graph && index >= 0 && index < stage->graph_inputs)
        stage->slots[stage->next].absent |= 1u << index;
}

/* Input i (>= 1) of a graph's frame in slot s: uploaded and converted into
 * its RGBA frame, after the first kernel when *first is set. */
static int graph_input(clv__pipe *stage, clv__slot *s, int i, cl_event **first)
{
    clv_context *ctx = stage->ctx;
    const clv__graph_input *g = &stage->gin[i];
    clv__slot_input *e = &s->extra[i];
    cl_event up = NULL;
    int err = 0;
    if (!ctx->shared_staging) {
        CLV__CL_CHECK(
            ctx,
            clEnqueueWriteBuffer(stage->up_q, e->dev, CL_FALSE, 0, g->size, e->host, 0, NULL, &up),
            "upload (clEnqueueWriteBuffer)");
        clFlush(stage->up_q);
    }
    clv__stage_source src = packed_source(g->f.format, g->f.width, g->f.height);
    err = convert_sized(stage, g->to_rgba, e->dev, e->host, e->rgba.buffer, NULL, g->f.format,
                        g->coeff, 1, g->f.width, g->f.height, up, *first, &src);
    release_event(&up);
    *first = NULL;
    return err;
fail:
    return err;
}

int clv__packed_planes(const clv_stage_options *o, size_t offset[3], int stride[3], int rows[3])
{
    if (clv_pixfmt_is_yuv(o->in_format))
        return clv__yuv_planes(o->in_format, o->width, o->height, offset, stride, rows);
    offset[0] = 0;
    stride[0] = (int)clv_pixfmt_size(o->in_format, o->width, 1);
    rows[0] = o->height;
    return 1;
}

/* Copied staging: input 0 of the frame in slot s into dev_in, packed, on
 * the upload queue (s->up its end). From host_in, or straight from the
 * caller's block src->host says: no host copy, a DMA when the block is
 * pinned (clv_stage_block_new's). Rows as the staging packs them go in
 * one clEnqueueWriteBuffer; rows apart (a decoder's aligned lines) in one
 * clEnqueueWriteBufferRect a plane, still without a host copy. The queue
 * is in order: the last command's end is the frame's. */
static int upload_input(clv__pipe *stage, clv__slot *s, const clv__stage_source *src)
{
    clv_context *ctx = stage->ctx;
    int err = 0;
    s->from = *src;
    if (ctx->shared_staging)
        return 0;
    if (!src->host) {
        CLV__CL_CHECK(ctx,
                      clEnqueueWriteBuffer(stage->up_q, s->dev_in, CL_FALSE, 0, stage->in_size,
                                           s->host_in, 0, NULL, &s->up),
                      "upload (clEnqueueWriteBuffer)");
        clFlush(stage->up_q);
        return 0;
    }
    size_t off[3];
    int stride[3], rows[3], tight = 1;
    int planes = clv__packed_planes(&stage->opt, off, stride, rows);
    for (int i = 0; i < planes; i++)
        tight = tight && src->host_stride[i] == stride[i] && src->host_off[i] >= src->host_off[0] &&
                src->host_off[i] - src->host_off[0] == off[i];
    if (tight) {
        CLV__CL_CHECK(ctx,
                      clEnqueueWriteBuffer(stage->up_q, s->dev_in, CL_FALSE, 0, stage->in_size,
                                           src->host + src->host_off[0], 0, NULL, &s->up),
                      "upload from a block (clEnqueueWriteBuffer)");
    } else {
        for (int i = 0; i < planes; i++) {
            size_t dev_origin[3] = {off[i], 0, 0}, host_origin[3] = {src->host_off[i], 0, 0};
            size_t region[3] = {(size_t)stride[i], (size_t)rows[i], 1};
            CLV__CL_CHECK(ctx,
                          clEnqueueWriteBufferRect(stage->up_q, s->dev_in, CL_FALSE, dev_origin,
                                                   host_origin, region, (size_t)stride[i], 0,
                                                   (size_t)src->host_stride[i], 0, src->host, 0,
                                                   NULL, i == planes - 1 ? &s->up : NULL),
                          "upload from a block (clEnqueueWriteBufferRect)");
        }
    }
    clFlush(stage->up_q);
fail:
    return err;
}

void clv__pack_input(const clv_stage_options *o, uint8_t *dst, const uint8_t *src,
                     const size_t offset[3], const int stride[3])
{
    size_t off[3];
    int packed[3], rows[3];
    int planes = clv__packed_planes(o, off, packed, rows);
    for (int i = 0; i < planes; i++)
        for (int y = 0; y < rows[i]; y++)
            memcpy(dst + off[i] + (size_t)y * (size_t)packed[i],
                   src + offset[i] + (size_t)y * (size_t)stride[i], (size_t)packed[i]);
}

void clv__pipe_slot_input(const clv__pipe *stage, const clv__slot *s, uint8_t *dst)
{
    if (!s->from.host)
        memcpy(dst, s->host_in, stage->in_size);
    else
        clv__pack_input(&stage->opt, dst, s->from.host, s->from.host_off, s->from.host_stride);
}

/* Sends the frame in slot s down once its last kernel is done: shared
 * staging needs no download (that kernel wrote host_out, its event is the
 * frame's end); copied staging reads dev_out back on the download queue. */
static int queue_download(clv__pipe *stage, clv__slot *s)
{
    clv_context *ctx = stage->ctx;
    int err = 0;
    clFlush(ctx->queue);
    if (ctx->shared_staging) {
        s->down = s->last_kernel;
        clRetainEvent(s->down);
        return 0;
    }
    CLV__CL_CHECK(ctx,
                  clEnqueueReadBuffer(stage->down_q, s->dev_out, CL_FALSE, 0, stage->out_size,
                                      s->host_out, 1, &s->last_kernel, &s->down),
                  "download (clEnqueueReadBuffer)");
    clFlush(stage->down_q);
fail:
    return err;
}

/* clv__pipe_send_at of a stage whose graph blends into input 0's planes
 * (stage->planes): input 0 uploaded, never converted; the other inputs as
 * there; the graph writes the output's planes itself. */
static int send_planes(clv__pipe *stage, clv__slot *s, unsigned absent, uint64_t frame_index,
                       double time, const clv__stage_source *src, clv_msg *msg)
{
    clv_context *ctx = stage->ctx;
    int err = 0;
    cl_event *first = ctx->profiling ? &s->first_kernel : NULL;
    const clv_frame *in[CLV_GRAPH_INPUTS] = {NULL};
    if ((err = upload_input(stage, s, src)))
        goto fail;
    for (int i = 1; i < stage->graph_inputs; i++) {
        if (!stage->gin[i].used || absent >> i & 1)
            continue;
        if ((err = graph_input(stage, s, i, &first)))
            goto fail;
        in[i] = &s->extra[i].rgba;
    }
    /* in place: input 0 was written into host_out (clv__pipe_input) */
    const void *in_svm = src->svm ? src->svm : stage->inplace ? s->host_out : s->host_in;
    clv__yuv_io io = {.in = s->dev_in,
                      .in_svm = in_svm,
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
                      .out_coeffs = stage->coeff_out};
    if ((err = clv__graph_run_planes(stage->graph, in, stage->opt.width, stage->opt.height, &io,
                                     frame_index, time, s->up, &s->last_kernel, msg))) {
        clFinish(ctx->queue);
        release_event(&s->up);
        release_event(&s->first_kernel);
        release_event(&s->last_kernel);
        return err;
    }
    if (first && !*first && s->last_kernel) { /* one kernel: the first is the last */
        *first = s->last_kernel;
        clRetainEvent(*first);
    }
    if ((err = queue_download(stage, s)))
        goto fail;
    stage->next = (stage->next + 1) % stage->count;
    stage->pending++;
    return 0;
fail:
    clFinish(ctx->queue);
    release_event(&s->up);
    release_event(&s->first_kernel);
    release_event(&s->last_kernel);
    return clv__fail(msg, err, "GPU stage on %s: %s (see the log above)", ctx->dev.name,
                     clv_strerror(err));
}

int clv__pipe_send_at(clv__pipe *stage, uint64_t frame_index, double time,
                      const clv__stage_source *src, clv_msg *msg)
{
    int err = 0;
    clv_context *ctx = stage->ctx;
    if (!stage->graph)
        return clv__fail(msg, CLV_EINVAL,
                         "GPU stage: a stage without a graph takes no inputs "
                         "beyond its one (clv_stage_submit)");
    if (stage->pending == stage->count)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    clv__slot *s = &stage->slots[stage->next];
    unsigned absent = s->absent;
    s->absent = 0;
    s->frame_index = frame_index;
    s->watched = 0;
    s->fused = 0;
    int direct = stage_direct(stage);
    cl_event *first = ctx->profiling ? &s->first_kernel : NULL;
    const clv_frame *in[CLV_GRAPH_INPUTS] = {NULL};
    if (stage->planes && !(absent & 1))
        return send_planes(stage, s, absent, frame_index, time, src, msg);
    if (stage->gin[0].used && !(absent & 1)) {
        if ((err = upload_input(stage, s, src)))
            goto fail;
        if ((err = convert(stage, stage->to_rgba, s->dev_in, src->svm ? src->svm : s->host_in,
                           stage->orient ? s->rgba_src.buffer : s->rgba_in.buffer, NULL,
                           stage->opt.in_format, stage->coeff_in, 1, s->up, first, src)))
            goto fail;
        first = NULL;
        if (stage->orient && (err = orient(stage, s, NULL)))
            goto fail;
        in[0] = &s->rgba_in;
    }
    for (int i = 1; i < stage->graph_inputs; i++) {
        if (!stage->gin[i].used || absent >> i & 1)
            continue;
        if ((err = graph_input(stage, s, i, &first)))
            goto fail;
        in[i] = &s->extra[i].rgba;
    }
    if ((err = clv_graph_run(stage->graph, in, &s->rgba_out, frame_index, time, NULL,
                             direct ? &s->last_kernel : NULL, msg))) {
        clFinish(ctx->queue);
        release_event(&s->up);
        release_event(&s->first_kernel);
        return err;
    }
    if (direct) {
        clFlush(ctx->queue);
        size_t zero[3] = {0, 0, 0};
        size_t px = stage->depth == 16 ? 8 : 4;
        const clv_frame *o = &s->rgba_out;
        size_t region[3] = {(size_t)o->width * px, (size_t)o->height, 1};
        CLV__CL_CHECK(ctx,
                      clEnqueueReadBufferRect(stage->down_q, o->buffer, CL_FALSE, zero, zero,
                                              region, (size_t)o->stride * px, 0,
                                              (size_t)o->width * px, 0, s->host_out, 1,
                                              &s->last_kernel, &s->down),
                      "download (clEnqueueReadBufferRect)");
        clFlush(stage->down_q);
    } else {
        if ((err =
                 convert(stage, stage->from_rgba, s->rgba_out.buffer, NULL, s->dev_out, s->host_out,
                         stage->opt.out_format, stage->coeff_out, 0, NULL, &s->last_kernel, NULL)))
            goto fail;
        if ((err = queue_download(stage, s)))
            goto fail;
    }
    stage->next = (stage->next + 1) % stage->count;
    stage->pending++;
    return 0;
fail:
    clFinish(ctx->queue);
    release_event(&s->up);
    release_event(&s->first_kernel);
    release_event(&s->last_kernel);
    return clv__fail(msg, err, "GPU stage on %s: %s (see the log above)", ctx->dev.name,
                     clv_strerror(err));
}

int clv__pipe_send(clv__pipe *stage, uint64_t frame_index, const clv__stage_source *src,
                   clv_msg *msg)
{
    int err = 0;
    clv_context *ctx = stage->ctx;
    if (stage->graph) /* without a time: the frame's at the graph's frame rate */
        return clv__pipe_send_at(stage, frame_index, clv__graph_seconds(stage->graph, frame_index),
                                 src, msg);
    if (stage->pending == stage->count)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    int shaped = reshape(stage, msg);
    if (shaped == 1)
        return clv__fail(msg, CLV_EINVAL,
                         "GPU stage: the chain changes the frames' size; take the frames in "
                         "flight first");
    if (shaped)
        return shaped;
    clv__slot *s = &stage->slots[stage->next];
    s->frame_index = frame_index;
    s->watched = clv__chain_watched(stage->chain);
    if ((err = upload_input(stage, s, src))) /* shared: the kernels read it themselves */
        goto fail;
    /* The first command waits for the upload, the download for the last
     * command: no barrier or marker commands (each is a whole command's
     * cost on PoCL). */
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
        int direct = stage_direct(stage);
        int filtering = stage->chain && clv_chain_get_desc(stage->chain)->count > 0;
        cl_event *first = direct && !filtering ? &s->last_kernel
                          : ctx->profiling     ? &s->first_kernel
                                               : NULL;
        if (stage->orient && first == &s->last_kernel)
            first = ctx->profiling ? &s->first_kernel : NULL;
        /* CPUs: a filter that can do the conversions in its own passes does
         * (clv__chain_run_yuv says whether it can). */
        s->fused = 0;
        if (filtering && !direct && !stage->orient && stage->depth == 8 &&
            !is_packed(stage->opt.in_format) && !is_packed(stage->opt.out_format)) {
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
            size_t px = stage->depth == 16 ? 8 : 4;
            size_t region[3] = {(size_t)filtered->width * px, (size_t)filtered->height, 1};
            CLV__CL_CHECK(ctx,
                          clEnqueueReadBufferRect(stage->down_q, filtered->buffer, CL_FALSE, zero,
                                                  zero, region, (size_t)filtered->stride * px, 0,
                                                  (size_t)filtered->width * px, 0, s->host_out, 1,
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
    if ((err = queue_download(stage, s)))
        goto fail;
    stage->next = (stage->next + 1) % stage->count;
    stage->pending++;
    return 0;
fail:
    return clv__fail(msg, err, "GPU stage on %s: %s (see the log above)", ctx->dev.name,
                     clv_strerror(err));
}

int clv__yuv_planes(clv_pixfmt f, int w, int h, size_t offset[3], int stride[3], int rows[3])
{
    int cw = (w + 1) / 2, ch = (h + 1) / 2, nv12 = f == CLV_PIX_NV12 || f == CLV_PIX_P010;
    int b = clv_pixfmt_depth(f) == 16 ? 2 : 1; /* bytes a sample */
    if (f == CLV_PIX_YUV444P16)
        cw = w, ch = h;
    offset[0] = 0, stride[0] = b * w, rows[0] = h;
    offset[1] = (size_t)b * w * (size_t)h, stride[1] = b * (nv12 ? 2 * cw : cw), rows[1] = ch;
    offset[2] = offset[1] + (size_t)b * cw * (size_t)ch, stride[2] = b * cw,
    rows[2] = nv12 ? 0 : ch;
    return nv12 ? 2 : 3;
}

int clv__pipe_submit(clv__pipe *stage, uint64_t frame_index, clv_msg *msg)
{
    clv__stage_source packed =
        packed_source(stage->opt.in_format, stage->opt.width, stage->opt.height);
    return clv__pipe_send(stage, frame_index, &packed, msg);
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
static clv__slot *oldest_slot(clv__pipe *stage)
{
    return &stage->slots[(stage->next - stage->pending + stage->count) % stage->count];
}

int clv__pipe_output(clv__pipe *stage, const uint8_t **out, uint64_t *frame_index, clv_msg *msg)
{
    if (!stage->pending || stage->holding)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: no frame to take");
    int at = (int)(oldest_slot(stage) - stage->slots);
    clv__pipe_finish(stage, at);
    return clv__pipe_take(stage, at, out, frame_index, msg);
}

void clv__pipe_finish(clv__pipe *stage, int at)
{
    clv__slot *s = &stage->slots[at];
    /* A device a user kernel hung: the frames after are not waited for (a
     * watchdog's time each), the stage is stopping. */
    cl_int st = stage->ctx->hung ? CLV__WATCHDOG_FIRED
                : s->watched     ? watchdog_wait(stage->ctx, s->down)
                                 : clWaitForEvents(1, &s->down);
    /* The download waited for the kernels and they for the upload; waited
     * here too all the same, since the caller may reuse the block the frame
     * was uploaded from once it is out. */
    if (st == CL_SUCCESS && s->up)
        st = clWaitForEvents(1, &s->up);
    memset(&s->fin.times, 0, sizeof s->fin.times);
    s->fin.start = s->fin.end = 0;
    s->fin.err = 0;
    if (st == CLV__WATCHDOG_FIRED) {
        stage->ctx->hung = 1;
        s->fin.err = CLV_ETIMEOUT;
        snprintf(s->fin.why, sizeof s->fin.why,
                 "a frame took more than %g s on %s: a user kernel that does not finish "
                 "(an endless loop?); stopped, and the device left as it is",
                 stage->ctx->watchdog_s, stage->ctx->dev.name);
        return;
    }
    if (st != CL_SUCCESS) {
        s->fin.err = CLV_ECL;
        snprintf(s->fin.why, sizeof s->fin.why, "GPU stage on %s: a frame failed (%s)",
                 stage->ctx->dev.name, clv__cl_strerror(st));
        return;
    }
    clv_stage_times *t = &s->fin.times;
    if (stage->opt.profiling) {
        t->upload_ns = elapsed(s->up, 0, s->up);
        t->kernels_ns = elapsed(s->first_kernel, 0, s->last_kernel);
        if (s->down != s->last_kernel) /* shared staging: no download */
            t->download_ns = elapsed(s->down, 0, s->down);
        if (!stage->passthrough) {
            t->to_rgba_ns = elapsed(s->first_kernel, 0, s->first_kernel);
            /* a fused kernel is both conversions: counted once */
            if (stage->opt.out_format != CLV_PIX_RGBA && s->last_kernel != s->first_kernel)
                t->from_rgba_ns = elapsed(s->last_kernel, 0, s->last_kernel);
        }
    }
    cl_ulong start = 0, end = 0;
    /* Shared staging has no upload: the frame starts with its first kernel. */
    cl_event begin = s->up ? s->up : s->first_kernel ? s->first_kernel : s->last_kernel;
    if (stage->opt.profiling &&
        clGetEventProfilingInfo(begin, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(s->down, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
            CL_SUCCESS &&
        end > start) {
        s->fin.start = (double)start / 1e9;
        s->fin.end = (double)end / 1e9;
    }
    release_event(&s->up);
    release_event(&s->first_kernel);
    release_event(&s->last_kernel);
    release_event(&s->down);
}

int clv__pipe_take(clv__pipe *stage, int at, const uint8_t **out, uint64_t *frame_index,
                   clv_msg *msg)
{
    if (stage->holding)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: no frame to take");
    clv__slot *s = &stage->slots[at];
    if (s->fin.err)
        return clv__fail(msg, s->fin.err, "%s", s->fin.why);
    const clv_stage_times *t = &s->fin.times;
    stage->times.upload_ns += t->upload_ns;
    stage->times.kernels_ns += t->kernels_ns;
    stage->times.download_ns += t->download_ns;
    stage->times.to_rgba_ns += t->to_rgba_ns;
    stage->times.from_rgba_ns += t->from_rgba_ns;
    stage->times.frames++;
    stage->fused_frames += (uint64_t)s->fused;
    stage->out_start = s->fin.start;
    stage->out_end = s->fin.end;
    *out = s->host_out;
    if (frame_index)
        *frame_index = s->frame_index;
    stage->holding = 1;
    stage->held_slot = at;
    return 0;
}

clv_block *clv__pipe_keep(clv__pipe *stage)
{
    if (!stage->holding || !stage->outputs)
        return NULL;
    clv__slot *s = &stage->slots[stage->held_slot];
    clv_block *spare = clv__block_get(stage->outputs);
    if (!spare)
        return NULL;
    clv_block *kept = s->out_block;
    s->out_block = spare;
    s->host_out = spare->pixels;
    clv__outputs_ref(stage->outputs);
    return kept;
}

void clv__pipe_release(clv__pipe *stage)
{
    if (!stage->holding)
        return;
    stage->holding = 0;
    stage->pending--;
}
