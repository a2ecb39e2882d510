/* chain.c - the chain runner on a device: each filter's state, ping-pong
 * frames between filters (no host round trip), parameter changes, live
 * reload and per-filter kernel times. */
#include "clvid_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct clv_chain {
    clv_context *ctx;
    clv_chain_desc desc;
    int depth; /* 8 or 16: the frames it runs on, its programs' CLV_DEPTH */
    void *state[CLV_CHAIN_MAX];
    int initialized[CLV_CHAIN_MAX];
    /* Ping-pong buffers between filters: link i (after filter i - 1) lives
     * in mid[(i - 1) % 2], each as large as the largest link it holds. */
    cl_mem mid[2];
    size_t mid_bytes[2];
    cl_mem scratch; /* as large as the largest input of a filter */
    size_t scratch_bytes;
    int needs_scratch;
    /* The size of every link for the last input size (link[0]) and the
     * aspect and colour (transfer, primaries, peak) the caller said come
     * (clv_chain_output_size); sized: the filters' resize hooks ran for
     * these sizes. */
    clv_size link[CLV_CHAIN_MAX + 1];
    clv_size in_aspect;
    int sized;
    /* Kernel events of the last runs, per filter: the newest for
     * clv_chain_profile; the oldest, finished by the time its slot comes
     * round again, are summed into filter_ns (clv_chain_times). */
    clv__events ring[4];
    int ring_at;
    uint64_t filter_ns[CLV_CHAIN_MAX], timed_runs;
    int filter_timing;      /* record those events (with profiling; 1 unless turned off) */
    int rate_num, rate_den; /* for user kernels' `time` */
    /* A filter that holds frames (clv_chain_cadence): its index (-1: none)
     * and frames out per frame in; runs counts the runs, whose phase
     * (runs % fields) is the field a run makes. */
    int held_at, fields;
    uint64_t runs;
    /* On a context of several devices: the same chain on the others. */
    clv_chain *more[CLV_DEVICES_MAX - 1];
    int more_count;
    /* Runs in flight on a stage's sending threads (clv__chain_hold): what
     * changes the chain or reads what a run writes waits for none (quiet). */
    pthread_mutex_t hold_lock;
    pthread_cond_t hold_done;
    int holds;
    clv__expr *enable[CLV_CHAIN_MAX]; /* the items' enable= (NULL: none) */
};

void clv__chain_hold(clv_chain *chain)
{
    pthread_mutex_lock(&chain->hold_lock);
    chain->holds++;
    pthread_mutex_unlock(&chain->hold_lock);
}

void clv__chain_unhold(clv_chain *chain)
{
    pthread_mutex_lock(&chain->hold_lock);
    if (--chain->holds == 0)
        pthread_cond_broadcast(&chain->hold_done);
    pthread_mutex_unlock(&chain->hold_lock);
}

/* Waits until no run of this chain (this device's) is in flight on a
 * sending thread; the lock is not the chain's state, hence the cast. */
static void quiet(const clv_chain *chain)
{
    clv_chain *c = (clv_chain *)chain;
    pthread_mutex_lock(&c->hold_lock);
    while (c->holds > 0)
        pthread_cond_wait(&c->hold_done, &c->hold_lock);
    pthread_mutex_unlock(&c->hold_lock);
}

static void release_events(clv__events *e)
{
    for (int i = 0; i < e->count; i++)
        clReleaseEvent(e->list[i]);
    e->count = 0;
}

/* Adds a finished run's kernel times to the chain's sums; a run not yet
 * finished (or without profiling) is left out. */
static void sum_events(clv_chain *chain, const clv__events *e)
{
    uint64_t ns[CLV_CHAIN_MAX] = {0};
    if (!e->count)
        return;
    for (int i = 0; i < e->count; i++) {
        cl_int status = 0;
        cl_ulong start = 0, end = 0;
        if (clGetEventInfo(e->list[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                           NULL) != CL_SUCCESS ||
            status != CL_COMPLETE ||
            clGetEventProfilingInfo(e->list[i], CL_PROFILING_COMMAND_START, sizeof start, &start,
                                    NULL) != CL_SUCCESS ||
            clGetEventProfilingInfo(e->list[i], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) !=
                CL_SUCCESS)
            return;
        if (e->owner[i] >= 0 && e->owner[i] < CLV_CHAIN_MAX && end > start)
            ns[e->owner[i]] += end - start;
    }
    for (int i = 0; i < CLV_CHAIN_MAX; i++)
        chain->filter_ns[i] += ns[i];
    chain->timed_runs++;
}

int clv_chain_times(const clv_chain *chain, uint64_t *ns, int count, uint64_t *runs)
{
    /* Over every device: the mean is per frame wherever it ran. */
    quiet(chain);
    for (int k = 0; k < chain->more_count; k++)
        quiet(chain->more[k]);
    *runs = chain->timed_runs;
    for (int i = 0; i < count; i++)
        ns[i] = i < CLV_CHAIN_MAX ? chain->filter_ns[i] : 0;
    for (int k = 0; k < chain->more_count; k++) {
        *runs += chain->more[k]->timed_runs;
        for (int i = 0; i < count && i < CLV_CHAIN_MAX; i++)
            ns[i] += chain->more[k]->filter_ns[i];
    }
    return chain->ctx->profiling && chain->filter_timing ? 0 : CLV_EINVAL;
}

clv_chain *clv__chain_at(clv_chain *chain, int device)
{
    if (!chain || device < 0 || device > chain->more_count)
        return NULL;
    return device == 0 ? chain : chain->more[device - 1];
}

int clv__chain_temporal(const clv_chain *chain)
{
    for (int i = 0; chain && i < chain->desc.count; i++) {
        const clv_filter *f = chain->desc.item[i].filter;
        if (f->temporal || (f->temporal_state && f->temporal_state(chain->state[i])))
            return 1;
    }
    return 0;
}

/* The length of f's kernel list (clv_filter's kernels). */
static size_t filter_kernel_count(const clv_filter *f)
{
    size_t n = 0;
    while (f->kernels && f->kernels[n])
        n++;
    return n;
}

int clv_chain_create(clv_context *ctx, const clv_chain_desc *desc, clv_chain **out, clv_msg *msg)
{
    return clv_chain_create_depth(ctx, desc, 8, out, msg);
}

int clv_chain_desc_deep(const clv_chain_desc *desc, clv_msg *msg)
{
    for (int i = 0; i < desc->count; i++)
        if (!desc->item[i].filter->deep)
            return clv__fail(msg, CLV_EDEPTH,
                             "filter '%s' (#%d in the chain) runs at 8 bits only: the chain "
                             "cannot run on frames of 16 bits a channel",
                             desc->item[i].filter->name, i + 1);
    return 0;
}

int clv_chain_depth(const clv_chain *chain)
{
    return chain->depth;
}

static int chain_build(clv_context *ctx, const clv_chain_desc *desc, int depth, clv_chain **out,
                       clv_msg *msg);

int clv_chain_create_depth(clv_context *ctx, const clv_chain_desc *desc, int depth, clv_chain **out,
                           clv_msg *msg)
{
    *out = NULL;
    if (depth != 8 && depth != 16)
        return clv__fail(msg, CLV_EINVAL, "chain depth %d: expected 8 or 16 bits a channel", depth);
    int err = depth == 16 ? clv_chain_desc_deep(desc, msg) : 0;
    if (err)
        return err;
    /* Every program the filters build now is of this depth. */
    int was = ctx->build_depth;
    ctx->build_depth = depth;
    for (int k = 0; k < ctx->more_count; k++)
        ctx->more[k]->build_depth = depth;
    err = chain_build(ctx, desc, depth, out, msg);
    ctx->build_depth = was;
    for (int k = 0; k < ctx->more_count; k++)
        ctx->more[k]->build_depth = was;
    return err;
}

static int chain_build(clv_context *ctx, const clv_chain_desc *desc, int depth, clv_chain **out,
                       clv_msg *msg)
{
    *out = NULL;
    clv_chain *chain = calloc(1, sizeof *chain);
    if (!chain)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    if (pthread_mutex_init(&chain->hold_lock, NULL)) {
        free(chain);
        return clv__fail(msg, CLV_ENOMEM, "out of memory (a mutex)");
    }
    if (pthread_cond_init(&chain->hold_done, NULL)) {
        pthread_mutex_destroy(&chain->hold_lock);
        free(chain);
        return clv__fail(msg, CLV_ENOMEM, "out of memory (a condition variable)");
    }
    chain->ctx = ctx;
    chain->desc = *desc;
    chain->depth = depth;
    chain->rate_num = 25;
    chain->rate_den = 1;
    chain->filter_timing = 1;
    chain->held_at = -1;
    chain->fields = 1;
    int err = 0, delay;
    if ((err = clv_chain_desc_cadence(desc, &delay, &chain->fields, msg))) {
        clv_chain_destroy(chain);
        return err;
    }
    for (int i = 0; i < desc->count && !desc->rate_taken; i++)
        if (desc->item[i].filter->sets_rate) {
            clv_chain_destroy(chain);
            return clv__fail(msg, CLV_EPARSE,
                             "filter '%s' (#%d in the chain) changes the frame rate, which "
                             "clvid transcode takes (it picks the frames at the output); a "
                             "chain run frame by frame (the window, Python's Chain, the "
                             "GStreamer element) cannot: leave it out there",
                             desc->item[i].filter->name, i + 1);
        }
    for (int i = 0; i < desc->count; i++)
        if (desc->item[i].filter->cadence)
            chain->held_at = i;
    for (int i = 0; i < desc->count; i++)
        if (desc->item[i].enable[0] &&
            (err = clv__enable_parse(desc->item[i].filter, desc->item[i].enable, &chain->enable[i],
                                     msg)))
            goto fail;
    for (int i = 0; i < desc->count; i++) {
        const clv_filter *f = desc->item[i].filter;
        chain->needs_scratch |= f->needs_scratch;
        size_t size = filter_kernel_count(f) * sizeof(cl_kernel); /* at least its kernels */
        if (size < f->state_size)
            size = f->state_size;
        chain->state[i] = calloc(1, size ? size : 1);
        if (!chain->state[i]) {
            err = clv__fail(msg, CLV_ENOMEM, "out of memory");
            goto fail;
        }
        if (f->open) {
            /* The file as it is now: when its parameters changed since the
             * chain was parsed, the values carry over by name. */
            const clv_filter *now = f;
            chain->initialized[i] = 1;
            if ((err = f->open(chain->state[i], ctx, f, &now, msg)))
                goto fail;
            if (now != f) {
                clv_value values[CLV_PARAMS_MAX];
                clv__param_carry(f, desc->item[i].values, now, values);
                memcpy(chain->desc.item[i].values, values, sizeof values);
                chain->desc.item[i].filter = now;
            }
            continue;
        }
        cl_program prog = NULL;
        if (f->program && (err = clv__program_get(ctx, f->program, &prog, msg)))
            goto fail;
        chain->initialized[i] = 1; /* uninit accepts a half-built state */
        cl_kernel *kernels = chain->state[i];
        for (size_t k = 0; k < filter_kernel_count(f); k++)
            if ((err = clv__kernel_create(prog, f->kernels[k], &kernels[k], msg)))
                goto fail;
        if (f->init && (err = f->init(chain->state[i], ctx, prog, msg)))
            goto fail;
        if (f->configure && (err = f->configure(chain->state[i], ctx, desc->item[i].values, msg)))
            goto fail;
    }
    for (int k = 0; k < ctx->more_count; k++) {
        if ((err = chain_build(ctx->more[k], desc, depth, &chain->more[k], msg)))
            goto fail;
        chain->more_count = k + 1;
    }
    *out = chain;
    return 0;
fail:
    clv_chain_destroy(chain);
    return err;
}

int clv_chain_desc_cadence(const clv_chain_desc *desc, int *delay, int *rate, clv_msg *msg)
{
    *delay = 0;
    *rate = 1;
    int found = -1;
    for (int i = 0; i < desc->count; i++) {
        const clv_filter *f = desc->item[i].filter;
        if (!f->cadence)
            continue;
        if (found >= 0)
            return clv__fail(msg, CLV_EPARSE,
                             "filters '%s' (#%d) and '%s' (#%d) both hold frames back; a chain "
                             "takes one such filter",
                             desc->item[found].filter->name, found + 1, f->name, i + 1);
        found = i;
        f->cadence(desc->item[i].values, delay, rate);
    }
    return 0;
}

void clv_chain_cadence(const clv_chain *chain, int *delay, int *rate)
{
    if (clv_chain_desc_cadence(&chain->desc, delay, rate, NULL))
        *delay = 0, *rate = 1;
}

void clv_chain_end(clv_chain *chain)
{
    quiet(chain);
    for (int i = 0; i < chain->desc.count; i++)
        if (chain->desc.item[i].filter->end)
            chain->desc.item[i].filter->end(chain->state[i]);
    for (int k = 0; k < chain->more_count; k++)
        clv_chain_end(chain->more[k]);
}

void clv_chain_restart(clv_chain *chain)
{
    if (!chain)
        return;
    quiet(chain);
    for (int i = 0; i < chain->desc.count; i++)
        if (chain->desc.item[i].filter->restart)
            chain->desc.item[i].filter->restart(chain->state[i]);
    for (int k = 0; k < chain->more_count; k++)
        clv_chain_restart(chain->more[k]);
}

int clv__chain_fields(const clv_chain *chain)
{
    return chain && chain->held_at == 0;
}

int clv__chain_watched(const clv_chain *chain)
{
    for (int i = 0; chain && i < chain->desc.count; i++)
        if (chain->desc.item[i].filter->watchdog)
            return 1;
    return 0;
}

static void free_chain(clv_chain *chain)
{
    for (int i = 0; i < CLV_CHAIN_MAX; i++)
        clv__expr_free(chain->enable[i]);
    pthread_cond_destroy(&chain->hold_done);
    pthread_mutex_destroy(&chain->hold_lock);
    free(chain);
}

void clv_chain_destroy(clv_chain *chain)
{
    if (!chain)
        return;
    quiet(chain);
    for (int k = 0; k < chain->more_count; k++)
        clv_chain_destroy(chain->more[k]);
    chain->more_count = 0;
    if (chain->ctx && chain->ctx->hung) {
        for (int i = 0; i < chain->desc.count; i++)
            free(chain->state[i]);
        free_chain(chain);
        return;
    }
    if (chain->ctx && chain->ctx->queue)
        clFinish(chain->ctx->queue);
    for (int i = 0; i < 4; i++) {
        release_events(&chain->ring[i]);
        free(chain->ring[i].list);
        free(chain->ring[i].owner);
    }
    for (int i = 0; i < chain->desc.count; i++) {
        const clv_filter *f = chain->desc.item[i].filter;
        if (chain->initialized[i] && f->uninit)
            f->uninit(chain->state[i]);
        cl_kernel *kernels = chain->state[i];
        for (size_t k = 0; chain->initialized[i] && k < filter_kernel_count(f); k++)
            clv__kernel_release(&kernels[k]);
        free(chain->state[i]);
    }
    clv__mem_release(&chain->mid[0]);
    clv__mem_release(&chain->mid[1]);
    clv__mem_release(&chain->scratch);
    free_chain(chain);
}

const clv_chain_desc *clv_chain_get_desc(const clv_chain *chain)
{
    return &chain->desc;
}

/* Makes *m a buffer of at least `bytes` (*have: its size), reallocating
 * when it is smaller; `what` names it in an error. */
static int ensure_bytes(clv_context *ctx, cl_mem *m, size_t *have, size_t bytes, const char *what,
                        clv_msg *msg)
{
    if (*m && *have >= bytes)
        return 0;
    clv__mem_release(m);
    *have = 0;
    if (bytes > ctx->dev.max_alloc)
        return clv__fail(msg, CLV_ELIMIT,
                         "the chain's %s needs %zu MiB in one buffer; %s allows at most %llu MiB "
                         "(CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                         what, bytes >> 20, ctx->dev.name,
                         (unsigned long long)(ctx->dev.max_alloc >> 20));
    cl_int st = CL_SUCCESS;
    *m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &st);
    if (st != CL_SUCCESS || !*m) {
        *m = NULL;
        return clv__fail(msg, CLV_ENOMEM, "cannot allocate the chain's %s (%zu MiB) on %s: %s",
                         what, bytes >> 20, ctx->dev.name, clv__cl_strerror(st));
    }
    *have = bytes;
    return 0;
}

/* The bytes of a device frame of w x h at the chain's depth (rows of
 * 16-pixel multiples, as clv_frame_create makes them). */
static size_t chain_frame_bytes(const clv_chain *chain, int w, int h)
{
    return (size_t)((w + 15) & ~15) * (size_t)h * (chain->depth == 16 ? 8 : 4);
}
#define frame_bytes(w, h) chain_frame_bytes(chain, w, h)

/* The sizes of every link for frames of w x h (with the aspect the caller
 * said comes), and the filters' resize hooks for them: once per new size
 * or after a parameter changed. */
static int size_links(clv_chain *chain, int w, int h, clv_msg *msg)
{
    if (chain->sized && chain->link[0].width == w && chain->link[0].height == h)
        return 0;
    clv_size in = chain->in_aspect;
    in.width = w;
    in.height = h;
    chain->sized = 0;
    chain->link[0] = in;
    int n = chain->desc.count, err;
    for (int i = 0; i < n; i++) {
        const clv_filter *f = chain->desc.item[i].filter;
        if ((err = clv__filter_output_size(f, chain->desc.item[i].values, i, &chain->link[i],
                                           &chain->link[i + 1], msg)))
            return err;
        if (chain->enable[i] && (chain->link[i + 1].width != chain->link[i].width ||
                                 chain->link[i + 1].height != chain->link[i].height))
            return clv__fail(msg, CLV_EINVAL,
                             "filter '%s' (#%d in the chain) makes %dx%d frames of %dx%d ones: "
                             "with enable= it must keep its input's size (off, the frame "
                             "passes on as it is)",
                             f->name, i + 1, chain->link[i + 1].width, chain->link[i + 1].height,
                             chain->link[i].width, chain->link[i].height);
        size_t bytes = frame_bytes(chain->link[i + 1].width, chain->link[i + 1].height);
        if (bytes > chain->ctx->dev.max_alloc)
            return clv__fail(msg, CLV_ELIMIT,
                             "filter '%s' (#%d in the chain) makes %dx%d frames of %dx%d ones: "
                             "%zu MiB in one buffer, and %s allows at most %llu MiB",
                             f->name, i + 1, chain->link[i + 1].width, chain->link[i + 1].height,
                             chain->link[i].width, chain->link[i].height, bytes >> 20,
                             chain->ctx->dev.name,
                             (unsigned long long)(chain->ctx->dev.max_alloc >> 20));
    }
    /* What resize builds (a program for the new size) is of the chain's
     * depth, as at creation. */
    int was = chain->ctx->build_depth;
    chain->ctx->build_depth = chain->depth;
    for (int i = 0; i < n; i++) {
        const clv_filter *f = chain->desc.item[i].filter;
        if (f->resize && (err = f->resize(chain->state[i], chain->ctx, chain->desc.item[i].values,
                                          &chain->link[i], &chain->link[i + 1], msg))) {
            chain->ctx->build_depth = was;
            return err;
        }
    }
    chain->ctx->build_depth = was;
    chain->sized = 1;
    return 0;
}

int clv__chain_size(clv_chain *chain, int w, int h, clv_size *out, clv_msg *msg)
{
    int err = size_links(chain, w, h, msg);
    if (!err)
        *out = chain->link[chain->desc.count];
    return err;
}

int clv_chain_output_size(clv_chain *chain, const clv_size *in, clv_size *out, clv_msg *msg)
{
    if (in->width < 1 || in->height < 1)
        return clv__fail(msg, CLV_EINVAL, "frames of %dx%d: each side must be at least 1",
                         in->width, in->height);
    quiet(chain);
    const clv_size *was = &chain->in_aspect;
    if (in->sar_num != was->sar_num || in->sar_den != was->sar_den ||
        in->transfer != was->transfer || in->primaries != was->primaries || in->peak != was->peak) {
        chain->in_aspect = *in;
        chain->sized = 0;
        for (int k = 0; k < chain->more_count; k++)
            clv_chain_output_size(chain->more[k], in, out, NULL);
    }
    int err = size_links(chain, in->width, in->height, msg);
    if (!err)
        *out = chain->link[chain->desc.count];
    return err;
}

/* What filter i of the chain gets to run from `from` into `to` on frames
 * of src's size: no scratch, events, wait list or done event (the callers
 * add theirs). */
static clv_launch filter_launch(const clv_chain *chain, int i, cl_mem from, cl_mem to,
                                const clv_frame *src, uint64_t frame_index)
{
    return (clv_launch){
        .ctx = chain->ctx,
        .queue = chain->ctx->queue,
        .src = from,
        .dst = to,
        .width = src->width,
        .height = src->height,
        .stride = src->stride,
        .out_width = src->width,
        .out_height = src->height,
        .out_stride = src->stride,
        .frame_index = frame_index,
        .time = (double)frame_index * chain->rate_den / chain->rate_num,
        .depth = chain->depth,
        .values = chain->desc.item[i].values,
    };
}

/* A filter switched off by enable=: its input to its output (the same
 * size; the strides may differ). */
static int pass_on(clv_chain *chain, const clv_launch *l)
{
    const clv_frame in = {l->src, l->width, l->height, l->stride, chain->depth};
    clv_frame out = {l->dst, l->width, l->height, l->out_stride, chain->depth};
    return clv__frame_copy(chain->ctx, &in, &out);
}

int clv_chain_run(clv_chain *chain, const clv_frame *src, clv_frame *dst, uint64_t frame_index,
                  cl_event wait, cl_event *done, clv_msg *msg)
{
    return clv__chain_run_at(chain, src, dst, frame_index,
                             (double)frame_index * chain->rate_den / chain->rate_num, wait, done,
                             msg);
}

int clv__chain_run_at(clv_chain *chain, const clv_frame *src, clv_frame *dst, uint64_t frame_index,
                      double time, cl_event wait, cl_event *done, clv_msg *msg)
{
    int err = 0;
    clv_context *ctx = chain->ctx;
    if (done)
        *done = NULL;
    if (!src->buffer || !dst->buffer || src->buffer == dst->buffer)
        return clv__fail(msg, CLV_EINVAL,
                         "chain run: the source and destination must be two "
                         "distinct frames");
    int sd = src->depth == 16 ? 16 : 8, dd = dst->depth == 16 ? 16 : 8;
    if (sd != chain->depth || dd != chain->depth)
        return clv__fail(msg, CLV_EINVAL,
                         "chain run: the chain runs at %d bits a channel; the source has %d "
                         "and the destination %d",
                         chain->depth, sd, dd);
    int w = src->width, h = src->height, n = chain->desc.count;
    if ((err = size_links(chain, w, h, msg)))
        return err;
    const clv_size *out = &chain->link[n];
    if (dst->width != out->width || dst->height != out->height ||
        (n == 0 && dst->stride != src->stride))
        return clv__fail(msg, CLV_EINVAL,
                         "chain run: the chain makes %dx%d frames of %dx%d ones; the destination "
                         "is %dx%d",
                         out->width, out->height, w, h, dst->width, dst->height);
    /* The filters that run (live[0 .. m-1]): one that changes no pixel
     * (null, setsar, format) hands its input on as its output. The input
     * of the k-th that runs (k >= 1) lives in mid[(k - 1) % 2]; scratch is
     * as large as the largest input. */
    int live[CLV_CHAIN_MAX], m = 0;
    for (int i = 0; i < n; i++)
        if (!chain->desc.item[i].filter->passes)
            live[m++] = i;
    size_t need[2] = {0, 0}, scratch = 0;
    for (int k = 0; k < m; k++) {
        size_t in_bytes = frame_bytes(chain->link[live[k]].width, chain->link[live[k]].height);
        scratch = in_bytes > scratch ? in_bytes : scratch;
        if (k >= 1 && in_bytes > need[(k - 1) % 2])
            need[(k - 1) % 2] = in_bytes;
    }
    for (int k = 0; k < 2; k++)
        if (need[k] && (err = ensure_bytes(ctx, &chain->mid[k], &chain->mid_bytes[k], need[k],
                                           "frame between filters", msg)))
            return err;
    if (chain->needs_scratch && (err = ensure_bytes(ctx, &chain->scratch, &chain->scratch_bytes,
                                                    scratch, "scratch frame", msg)))
        return err;
    chain->ring_at = (chain->ring_at + 1) % 4;
    clv__events *events = &chain->ring[chain->ring_at];
    sum_events(chain, events);
    release_events(events);

    if (wait)
        CLV__CL_CHECK(ctx, clEnqueueBarrierWithWaitList(ctx->queue, 1, &wait, NULL),
                      "clEnqueueBarrierWithWaitList");
    if (n == 0)
        CLV__CL_CHECK(ctx,
                      clEnqueueCopyBuffer(ctx->queue, src->buffer, dst->buffer, 0, 0,
                                          frame_bytes(src->width, h), 0, NULL, NULL),
                      "clEnqueueCopyBuffer");
    else if (m == 0) { /* only filters that change no pixel: one copy */
        const clv_frame in = {src->buffer, w, h, src->stride, chain->depth};
        clv_frame to = {dst->buffer, w, h, dst->stride, chain->depth};
        if ((err = clv__frame_copy(ctx, &in, &to)))
            goto fail;
    }
    /* The second field's run of a frame: the filters before the one that
     * makes it ran on the frame at the first (it reads what it kept). */
    int from = 0;
    if (chain->held_at >= 0) {
        int delay;
        clv_chain_cadence(chain, &delay, &chain->fields);
        if (chain->runs++ % (uint64_t)chain->fields != 0)
            while (live[from] != chain->held_at)
                from++;
    }
    for (int k = from; k < m; k++) {
        const int i = live[k];
        const clv_filter *f = chain->desc.item[i].filter;
        const clv_size *a = &chain->link[i], *b = &chain->link[i + 1];
        clv_launch l =
            filter_launch(chain, i, k == 0 ? src->buffer : chain->mid[(k - 1) % 2],
                          k == m - 1 ? dst->buffer : chain->mid[k % 2], src, frame_index);
        l.time = time;
        l.width = a->width;
        l.height = a->height;
        l.stride = k == 0 ? src->stride : (a->width + 15) & ~15;
        l.out_width = b->width;
        l.out_height = b->height;
        l.out_stride = k == m - 1 ? dst->stride : (b->width + 15) & ~15;
        l.scratch = chain->needs_scratch ? chain->scratch : NULL;
        l.events = ctx->profiling && chain->filter_timing ? events : NULL;
        events->current = i;
        /* enable= off: the frame passes unchanged; a filter whose output
         * depends on the frames before runs still (its state goes on), its
         * output replaced. */
        int on = clv__enabled(chain->enable[i], time, frame_index, a->width, a->height);
        if (!on && !clv_filter_temporal(f)) {
            if ((err = pass_on(chain, &l)))
                goto fail;
            continue;
        }
        if ((err = f->run(chain->state[i], &l)))
            return clv__fail(msg, err,
                             "filter '%s' (#%d in the chain) failed on a %dx%d frame "
                             "on %s: %s",
                             f->name, i + 1, a->width, a->height, ctx->dev.name, clv_strerror(err));
        if (!on && (err = pass_on(chain, &l)))
            goto fail;
    }
    if (done)
        CLV__CL_CHECK(ctx, clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done),
                      "clEnqueueMarkerWithWaitList");
    return 0;
fail:
    return clv__fail(msg, err, "running the chain on %s: %s (see the log above)", ctx->dev.name,
                     clv_strerror(err));
}

int clv__chain_run_yuv(clv_chain *chain, const clv_frame *src, clv_frame *dst, uint64_t frame_index,
                       const clv__yuv_io *io, cl_event wait, cl_event *last, clv_msg *msg)
{
    clv_context *ctx = chain->ctx;
    const clv_filter *f = chain->desc.count == 1 ? chain->desc.item[0].filter : NULL;
    if (!f || !f->run_yuv || f->output_size || !ctx->row_shape || chain->depth != 8 ||
        chain->enable[0] || (ctx->profiling && chain->filter_timing) || src->width != dst->width ||
        src->height != dst->height || src->stride != dst->stride)
        return 1;
    clv_launch l = filter_launch(chain, 0, src->buffer, dst->buffer, src, frame_index);
    l.wait_count = wait ? 1 : 0;
    l.wait = wait ? &wait : NULL;
    l.done = last;
    int err = f->run_yuv(chain->state[0], &l, io);
    if (err == 1)
        return 1;
    if (err)
        return clv__fail(msg, err,
                         "filter '%s' (with the conversions) failed on a %dx%d frame on %s: %s",
                         f->name, l.width, l.height, ctx->dev.name, clv_strerror(err));
    return 0;
}

void clv_chain_set_filter_timing(clv_chain *chain, int on)
{
    quiet(chain);
    chain->filter_timing = on != 0;
    for (int k = 0; k < chain->more_count; k++)
        clv_chain_set_filter_timing(chain->more[k], on);
}

void clv_chain_set_frame_rate(clv_chain *chain, int num, int den)
{
    quiet(chain);
    if (num > 0 && den > 0) {
        chain->rate_num = num;
        chain->rate_den = den;
    }
    for (int k = 0; k < chain->more_count; k++)
        clv_chain_set_frame_rate(chain->more[k], num, den);
}

const char *clv_chain_kernel_file(const clv_chain *chain, int filter_index, const char **kernel)
{
    if (kernel)
        *kernel = NULL;
    if (filter_index < 0 || filter_index >= chain->desc.count ||
        !chain->desc.item[filter_index].filter->file)
        return NULL;
    const clv_filter *f = chain->desc.item[filter_index].filter;
    return f->file(f, kernel);
}

int clv_chain_swap_kernel(clv_chain *chain, int filter_index, clv_kernel_build *build, clv_msg *msg)
{
    if (!build || filter_index < 0 || filter_index >= chain->desc.count ||
        !chain->desc.item[filter_index].filter->swap)
        return clv__fail(msg, CLV_EINVAL, "filter #%d of the chain is not a user kernel",
                         filter_index + 1);
    /* A build for several devices is one per device, linked in order: the
     * chain's instances on its devices, in the same order. */
    clv_chain *on[CLV_DEVICES_MAX];
    void *states[CLV_DEVICES_MAX];
    const clv_filter *now[CLV_DEVICES_MAX];
    int count = chain->more_count + 1;
    for (int k = 0; k < count; k++) {
        on[k] = clv__chain_at(chain, k);
        quiet(on[k]);
        states[k] = on[k]->state[filter_index];
    }
    int swapped = chain->desc.item[filter_index].filter->swap(states, count, build, now, msg);
    if (swapped < 0)
        return swapped;
    for (int k = 0; k < swapped; k++) {
        clv_chain_desc *d = &on[k]->desc;
        clv_value values[CLV_PARAMS_MAX];
        clv__param_carry(d->item[filter_index].filter, d->item[filter_index].values, now[k],
                         values);
        memcpy(d->item[filter_index].values, values, sizeof values);
        d->item[filter_index].filter = now[k];
    }
    return 0;
}

/* Filter filter_index's configure with the chain's values, at the chain's
 * depth: what it builds then (the median's kernel of a new radius) is built
 * as the chain's other programs were. */
static int configure_at_depth(clv_chain *chain, int filter_index, clv_msg *msg)
{
    const clv_filter *f = chain->desc.item[filter_index].filter;
    if (!f->configure)
        return 0;
    int was = chain->ctx->build_depth;
    chain->ctx->build_depth = chain->depth;
    int err = f->configure(chain->state[filter_index], chain->ctx,
                           chain->desc.item[filter_index].values, msg);
    chain->ctx->build_depth = was;
    return err;
}

int clv_chain_set_param(clv_chain *chain, int filter_index, const char *param, const char *value,
                        clv_msg *msg)
{
    if (filter_index < 0 || filter_index >= chain->desc.count)
        return clv__fail(msg, CLV_EINVAL, "no filter #%d in a chain of %d", filter_index + 1,
                         chain->desc.count);
    quiet(chain);
    const clv_filter *f = chain->desc.item[filter_index].filter;
    if (f->sets_rate)
        return clv__fail(msg, CLV_EINVAL,
                         "filter '%s' (#%d): its frame rate is the run's (the output is opened "
                         "at it); give it when the run starts",
                         f->name, filter_index + 1);
    const char *after_fps = NULL; /* fps or framestep before it */
    for (int i = 0; i < filter_index; i++)
        if (chain->desc.item[i].filter->sets_rate)
            after_fps = chain->desc.item[i].filter->name;
    for (int i = 0; i < f->param_count; i++) {
        if (strcmp(f->params[i].name, param))
            continue;
        clv_value v;
        int err = clv_param_parse(f, i, value, &v, msg);
        if (err)
            return err;
        const clv_value before = chain->desc.item[filter_index].values[i];
        chain->desc.item[filter_index].values[i] = v;
        if (after_fps && clv__timed(f, chain->desc.item[filter_index].values,
                                    chain->desc.item[filter_index].enable)) {
            chain->desc.item[filter_index].values[i] = before;
            return clv__fail(msg, CLV_EPARSE,
                             "filter '%s' (#%d) comes after %s: %s=%s would make it depend on "
                             "the frame's number or time",
                             f->name, filter_index + 1, after_fps, param, value);
        }
        if ((err = configure_at_depth(chain, filter_index, msg))) {
            chain->desc.item[filter_index].values[i] = before; /* the chain runs on as it was */
            return err;
        }
        if (chain->sized && (f->output_size || f->resize)) {
            /* The sizes (and what depends on them) follow the value; a
             * size the value makes impossible keeps the value as it was. */
            int w = chain->link[0].width, h = chain->link[0].height;
            chain->sized = 0;
            if ((err = size_links(chain, w, h, msg))) {
                chain->desc.item[filter_index].values[i] = before;
                configure_at_depth(chain, filter_index, NULL);
                chain->sized = 0;
                size_links(chain, w, h, NULL);
                return err;
            }
        }
        for (int k = 0; k < chain->more_count; k++)
            if ((err = clv_chain_set_param(chain->more[k], filter_index, param, value, msg)))
                return err;
        return 0;
    }
    return clv__fail(msg, CLV_EPARSE, "filter '%s' has no parameter '%s'", f->name, param);
}

int clv_chain_profile(clv_chain *chain, uint64_t *ns, int count)
{
    for (int i = 0; i < count; i++)
        ns[i] = 0;
    quiet(chain);
    clv__events *e = &chain->ring[chain->ring_at];
    if (!chain->ctx->profiling || !chain->filter_timing)
        return CLV_EINVAL;
    int err = 0;
    if (e->count)
        CLV__CL_CHECK(chain->ctx, clWaitForEvents((cl_uint)e->count, e->list), "clWaitForEvents");
    for (int i = 0; i < e->count; i++) {
        cl_ulong start = 0, end = 0;
        CLV__CL_CHECK(chain->ctx,
                      clGetEventProfilingInfo(e->list[i], CL_PROFILING_COMMAND_START, sizeof start,
                                              &start, NULL),
                      "clGetEventProfilingInfo");
        CLV__CL_CHECK(
            chain->ctx,
            clGetEventProfilingInfo(e->list[i], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL),
            "clGetEventProfilingInfo");
        if (e->owner[i] < count && end > start)
            ns[e->owner[i]] += end - start;
    }
fail:
    release_events(e);
    return err;
}

int clv_chain_step_param(clv_chain *chain, int fi, int pi, int direction, char *text, size_t size,
                         clv_msg *msg)
{
    const clv_chain_desc *d = clv_chain_get_desc(chain);
    if (fi < 0 || fi >= d->count || pi < 0 || pi >= d->item[fi].filter->param_count)
        return clv__fail(msg, CLV_EINVAL, "no parameter %d of filter %d in this chain", pi, fi);
    const clv_param *par = &d->item[fi].filter->params[pi];
    const clv_value *v = &d->item[fi].values[pi];
    if (par->step <= 0)
        return clv__fail(msg, CLV_EINVAL, "%s: parameter %s has no step", d->item[fi].filter->name,
                         par->name);
    char value[64];
    if (par->type == CLV_PARAM_ENUM) {
        int n = 1;
        for (const char *c = par->choices; *c; c++)
            n += *c == '|';
        int k = (int)(((v->i + (direction > 0 ? 1 : -1)) % n + n) % n);
        const char *c = par->choices;
        for (int i = 0; i < k; i++)
            c = strchr(c, '|') + 1;
        snprintf(value, sizeof value, "%.*s", (int)strcspn(c, "|"), c);
    } else {
        double now = par->type == CLV_PARAM_REAL ? (double)v->i / 1000 : (double)v->i;
        double next = now + (direction > 0 ? par->step : -par->step);
        next = next < par->min ? par->min : next > par->max ? par->max : next;
        if (par->type == CLV_PARAM_REAL)
            snprintf(value, sizeof value, "%.3f", next);
        else
            snprintf(value, sizeof value, "%lld", (long long)llround(next));
    }
    int err = clv_chain_set_param(chain, fi, par->name, value, msg);
    if (!err)
        snprintf(text, size, "%s=%s", par->name, value);
    return err;
}
