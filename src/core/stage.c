/* stage.c - the stage's calls (clvid.h's clv_stage_*): one device's pipe
 * (pipe.c) or the scheduler over several (sched.c). */
#include "stage_internal.h"

#include <stdlib.h>
#include <string.h>

void clv_stage_output_size(const clv_stage *stage, int *width, int *height)
{
    /* Frames in flight have the current size; with none, the next one's. */
    clv__pipe *one = stage->one ? stage->one : stage->several->lanes[0].pipe;
    int busy = stage->one ? one->pending > 0 : stage->several->order_count > 0;
    *width = stage->one ? one->out_w : stage->several->out_w;
    *height = stage->one ? one->out_h : stage->several->out_h;
    if (!busy && !one->chain_err)
        clv__pipe_wanted(one, width, height, NULL);
}

void clv_stage_options_init(clv_stage_options *options)
{
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
}

int clv_stage_create(clv_context *ctx, const clv_stage_options *given, clv_chain *chain,
                     clv_stage **out, clv_msg *msg)
{
    *out = NULL;
    clv_stage_options copy;
    clv_stage_options_init(&copy);
    int err = clv__options_copy(given, &copy, sizeof copy, "clv_stage_options", msg);
    if (err)
        return err;
    const clv_stage_options *options = &copy;
    clv_stage *stage = calloc(1, sizeof *stage);
    if (!stage)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    err = clv_context_device_count(ctx) > 1
              ? clv__sched_create(ctx, options, chain, &stage->several, msg)
              : clv__pipe_create(ctx, options, chain, &stage->one, msg);
    if (err) {
        free(stage);
        return err;
    }
    *out = stage;
    return 0;
}

int clv_stage_create_graph(clv_context *ctx, const clv_stage_options *given, clv_graph *graph,
                           const clv_stage_input_format *inputs, clv_stage **out, clv_msg *msg)
{
    *out = NULL;
    clv_stage_options options;
    clv_stage_options_init(&options);
    int err = clv__options_copy(given, &options, sizeof options, "clv_stage_options", msg);
    if (err)
        return err;
    if (!graph)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: no graph given");
    clv_stage *stage = calloc(1, sizeof *stage);
    if (!stage)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    /* A graph runs on one device: the context's first (ctx itself). */
    if ((err = clv__pipe_create_graph(ctx, &options, graph, inputs, &stage->one, msg))) {
        free(stage);
        return err;
    }
    *out = stage;
    return 0;
}

uint8_t *clv_stage_input_at(clv_stage *stage, int index)
{
    if (index == 0)
        return clv_stage_input(stage);
    return stage->one ? clv__pipe_input_at(stage->one, index) : NULL;
}

void clv_stage_input_absent(clv_stage *stage, int index)
{
    if (stage->one)
        clv__pipe_input_absent(stage->one, index);
}

int clv_stage_submit_at(clv_stage *stage, uint64_t frame_index, double time, clv_msg *msg)
{
    if (!stage->one || !stage->one->graph)
        return clv_stage_submit(stage, frame_index, msg);
    const clv_stage_options *o = &stage->one->opt;
    size_t off[3] = {0, 0, 0};
    int stride[3] = {0, 0, 0}, rows[3];
    if (clv_pixfmt_is_yuv(o->in_format))
        clv__yuv_planes(o->in_format, o->width, o->height, off, stride, rows);
    clv__stage_source packed = {.uoff = (cl_int)off[1],
                                .voff = (cl_int)off[2],
                                .ys = stride[0],
                                .us = stride[1],
                                .vs = stride[2]};
    return clv__pipe_send_at(stage->one, frame_index, time, &packed, msg);
}

void clv_stage_destroy(clv_stage *stage)
{
    if (!stage)
        return;
    clv__sched_destroy(stage->several);
    clv__pipe_destroy(stage->one);
    free(stage);
}

int clv_stage_use_chain(clv_stage *stage, clv_chain *chain, clv_msg *msg)
{
    if (stage->one && stage->one->graph)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: a stage with a graph keeps its graph");
    if (chain) {
        const clv__pipe *one = stage->one ? stage->one : stage->several->lanes[0].pipe;
        clv_size out;
        int err = clv__chain_size(chain, one->up_w, one->up_h, &out, msg);
        if (err)
            return err;
    }
    clv_stage_set_chain(stage, chain);
    return 0;
}

void clv_stage_set_chain(clv_stage *stage, clv_chain *chain)
{
    if (stage->one)
        clv__pipe_set_chain(stage->one, chain);
    else
        clv__sched_set_chain(stage->several, chain);
}

uint8_t *clv_stage_input(clv_stage *stage)
{
    return stage->one ? clv__pipe_input(stage->one) : clv__sched_input(stage->several);
}

int clv_stage_submit(clv_stage *stage, uint64_t frame_index, clv_msg *msg)
{
    return stage->one ? clv__pipe_submit(stage->one, frame_index, msg)
                      : clv__sched_submit(stage->several, frame_index, msg);
}

int clv_stage_pending(const clv_stage *stage)
{
    return stage->one ? stage->one->pending : stage->several->order_count;
}

int clv_stage_output(clv_stage *stage, const uint8_t **out, uint64_t *frame_index, clv_msg *msg)
{
    return stage->one ? clv__pipe_output(stage->one, out, frame_index, msg)
                      : clv__sched_output(stage->several, out, frame_index, msg);
}

void clv_stage_release(clv_stage *stage)
{
    if (stage->one)
        clv__pipe_release(stage->one);
    else
        clv__sched_release(stage->several);
}

clv_block *clv_stage_block_new(clv_stage *stage, size_t size)
{
    /* Over several devices: the first device's memory, which every device
     * uploads from (pinned on a GPU) or, on shared staging, reads in place. */
    clv__pipe *one = stage->one ? stage->one : stage->several->lanes[0].pipe;
    if (!one->outputs || !size)
        return NULL;
    clv_block *b = clv__block_new(one->outputs, size);
    if (b)
        clv__outputs_ref(one->outputs);
    return b;
}

/* Where the frame whose planes lie in block goes from, for the pipe that
 * takes it, when no host copy is needed: 1 and *src, else 0. Copied
 * staging uploads from any block (pinned when it is a stage's: a DMA),
 * into the packed layout the kernels then read; shared staging reads its
 * own blocks in place (packed RGB when its rows are tight: the kernels
 * take no stride for it). */
static int block_source(const clv__pipe *to, const clv_block *block, const size_t offset[3],
                        const int stride[3], clv__stage_source *src)
{
    const clv_stage_options *o = &to->opt;
    size_t packed_off[3];
    int packed_stride[3], rows[3];
    int planes = clv__packed_planes(o, packed_off, packed_stride, rows);
    int yuv = clv_pixfmt_is_yuv(o->in_format);
    int nv12 = o->in_format == CLV_PIX_NV12 || o->in_format == CLV_PIX_P010;
    memset(src, 0, sizeof *src);
    /* Where the planes lie in host memory: the upload's source, and a
     * failed device's frames are sent again from there. */
    src->host = block->pixels;
    for (int i = 0; i < planes; i++) {
        src->host_off[i] = offset[i];
        src->host_stride[i] = stride[i];
    }
    if (!to->ctx->shared_staging) {
        if (yuv) {
            src->uoff = (cl_int)packed_off[1];
            src->voff = (cl_int)packed_off[2];
            src->ys = packed_stride[0];
            src->us = packed_stride[1];
            src->vs = packed_stride[2];
        }
        return 1;
    }
    if (!to->outputs || block->owner != to->outputs || to->passthrough ||
        (!yuv && stride[0] != packed_stride[0]))
        return 0;
    src->svm = yuv ? block->pixels : block->pixels + offset[0];
    src->yoff = yuv ? (cl_int)offset[0] : 0;
    src->uoff = yuv ? (cl_int)offset[1] : 0;
    src->voff = nv12 || !yuv ? 0 : (cl_int)offset[2];
    src->ys = stride[0];
    src->us = yuv ? stride[1] : 0;
    src->vs = nv12 || !yuv ? 0 : stride[2];
    return 1;
}

int clv_stage_submit_block(clv_stage *stage, uint64_t frame_index, const clv_block *block,
                           const size_t offset[3], const int stride[3], clv_msg *msg)
{
    const clv_stage_options *o = stage->one ? &stage->one->opt : &stage->several->opt;
    size_t packed_off[3];
    int packed_stride[3], rows[3];
    int planes = clv__packed_planes(o, packed_off, packed_stride, rows);
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
    clv__pipe *one = stage->one;
    if (one && one->pending == one->count)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    clv__pipe *to = one ? one : clv__sched_next(stage->several);
    if (!to)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    clv__stage_source src;
    if (block_source(to, block, offset, stride, &src))
        return one ? clv__pipe_send(one, frame_index, &src, msg)
                   : clv__sched_send(stage->several, frame_index, &src, msg);
    /* Shared staging with another stage's block, packed RGB's rows apart,
     * or a plain copy through the stage: the planes are packed into the
     * staging as clv_stage_input's. */
    uint8_t *in = clv_stage_input(stage);
    if (!in)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    clv__pack_input(o, in, block->pixels, offset, stride);
    return clv_stage_submit(stage, frame_index, msg);
}

clv_block *clv_stage_keep(clv_stage *stage)
{
    clv__sched *m = stage->several;
    if (!m)
        return clv__pipe_keep(stage->one);
    return clv__sched_keep(m);
}

uint64_t clv_stage_fused_frames(const clv_stage *stage)
{
    if (stage->one)
        return stage->one->fused_frames;
    uint64_t n = 0;
    for (int i = 0; i < stage->several->lane_count; i++)
        n += stage->several->lanes[i].pipe->fused_frames;
    return n;
}

void clv_stage_get_times(const clv_stage *stage, clv_stage_times *times)
{
    const clv__sched *m = stage->several;
    if (!m) {
        *times = stage->one->times;
        return;
    }
    memset(times, 0, sizeof *times);
    for (int i = 0; i < m->lane_count; i++) {
        const clv_stage_times *t = &m->lanes[i].pipe->times;
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
    return stage->several ? stage->several->device_count : 1;
}

void clv_stage_device_stats(const clv_stage *stage, int device, clv_stage_device *out)
{
    const clv__sched *m = stage->several;
    memset(out, 0, sizeof *out);
    if (!m) {
        if (device == 0) {
            out->name = stage->one->ctx->dev.name;
            out->frames = stage->one->times.frames;
        }
        return;
    }
    if (device >= 0 && device < m->device_count)
        *out = m->dev[device];
}

void clv_stage_inject_fault(clv_stage *stage, int device, uint64_t frames)
{
    clv__sched *m = stage->several;
    if (m && device >= 0 && device < m->device_count) {
        m->fault_set[device] = 1;
        m->fault_after[device] = frames;
    }
}

void clv_stage_settle(clv_stage *stage)
{
    if (stage->several)
        clv__sched_settle(stage->several);
}

void clv_stage_hold_sends(clv_stage *stage, int device, int hold)
{
    if (stage->several)
        clv__sched_hold_sends(stage->several, device, hold);
}

void clv_stage_inject_submit_fault(clv_stage *stage, int device)
{
    clv__sched *m = stage->several;
    if (m && device >= 0 && device < m->device_count)
        m->fault_submit[device] = 1;
}
