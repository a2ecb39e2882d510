/* chain.c - the chain runner on a device: each filter's state, ping-pong
 * frames between filters (no host round trip), parameter changes, live
 * reload and per-filter kernel times. */
#include "clvid_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct clv_chain {
    clv_context *ctx;
    clv_chain_desc desc;
    void *state[CLV_CHAIN_MAX];
    int initialized[CLV_CHAIN_MAX];
    clv_frame mid[2]; /* ping-pong frames between filters */
    clv_frame scratch;
    int needs_scratch;
    /* Kernel events of the last runs, per filter: the newest for
     * clv_chain_profile; the oldest, finished by the time its slot comes
     * round again, are summed into filter_ns (clv_chain_times). */
    clv__events ring[4];
    int ring_at;
    uint64_t filter_ns[CLV_CHAIN_MAX], timed_runs;
    int filter_timing;      /* record those events (with profiling; 1 unless turned off) */
    int rate_num, rate_den; /* for user kernels' `time` */
    /* On a context of several devices: the same chain on the others. */
    clv_chain *more[CLV_DEVICES_MAX - 1];
    int more_count;
};

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
    *out = NULL;
    clv_chain *chain = calloc(1, sizeof *chain);
    if (!chain)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    chain->ctx = ctx;
    chain->desc = *desc;
    chain->rate_num = 25;
    chain->rate_den = 1;
    chain->filter_timing = 1;
    int err = 0;
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
        if ((err = clv_chain_create(ctx->more[k], desc, &chain->more[k], msg)))
            goto fail;
        chain->more_count = k + 1;
    }
    *out = chain;
    return 0;
fail:
    clv_chain_destroy(chain);
    return err;
}

int clv__chain_watched(const clv_chain *chain)
{
    for (int i = 0; chain && i < chain->desc.count; i++)
        if (chain->desc.item[i].filter->watchdog)
            return 1;
    return 0;
}

void clv_chain_destroy(clv_chain *chain)
{
    if (!chain)
        return;
    for (int k = 0; k < chain->more_count; k++)
        clv_chain_destroy(chain->more[k]);
    chain->more_count = 0;
    if (chain->ctx && chain->ctx->hung) {
        for (int i = 0; i < chain->desc.count; i++)
            free(chain->state[i]);
        free(chain);
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
    clv_frame_destroy(&chain->mid[0]);
    clv_frame_destroy(&chain->mid[1]);
    clv_frame_destroy(&chain->scratch);
    free(chain);
}

const clv_chain_desc *clv_chain_get_desc(const clv_chain *chain)
{
    return &chain->desc;
}

/* Makes f hold a frame of w x h, reallocating when the size changed. */
static int ensure_frame(clv_context *ctx, clv_frame *f, int w, int h, clv_msg *msg)
{
    if (f->buffer && f->width == w && f->height == h)
        return 0;
    clv_frame_destroy(f);
    return clv_frame_create(ctx, w, h, f, msg);
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
        .frame_index = frame_index,
        .time = (float)((double)frame_index * chain->rate_den / chain->rate_num),
        .values = chain->desc.item[i].values,
    };
}

int clv_chain_run(clv_chain *chain, const clv_frame *src, clv_frame *dst, uint64_t frame_index,
                  cl_event wait, cl_event *done, clv_msg *msg)
{
    int err = 0;
    clv_context *ctx = chain->ctx;
    if (done)
        *done = NULL;
    if (!src->buffer || !dst->buffer || src->buffer == dst->buffer || src->width != dst->width ||
        src->height != dst->height || src->stride != dst->stride)
        return clv__fail(msg, CLV_EINVAL,
                         "chain run: source %dx%d and destination %dx%d must be distinct "
                         "frames of one size",
                         src->width, src->height, dst->width, dst->height);
    int w = src->width, h = src->height, n = chain->desc.count;
    if (n >= 2 && (err = ensure_frame(ctx, &chain->mid[0], w, h, msg)))
        return err;
    if (n >= 3 && (err = ensure_frame(ctx, &chain->mid[1], w, h, msg)))
        return err;
    if (chain->needs_scratch && (err = ensure_frame(ctx, &chain->scratch, w, h, msg)))
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
                                          (size_t)src->stride * (size_t)h * 4, 0, NULL, NULL),
                      "clEnqueueCopyBuffer");
    for (int i = 0; i < n; i++) {
        const clv_filter *f = chain->desc.item[i].filter;
        clv_launch l =
            filter_launch(chain, i, i == 0 ? src->buffer : chain->mid[(i - 1) % 2].buffer,
                          i == n - 1 ? dst->buffer : chain->mid[i % 2].buffer, src, frame_index);
        l.scratch = chain->needs_scratch ? chain->scratch.buffer : NULL;
        l.events = ctx->profiling && chain->filter_timing ? events : NULL;
        events->current = i;
        if ((err = f->run(chain->state[i], &l)))
            return clv__fail(msg, err,
                             "filter '%s' (#%d in the chain) failed on a %dx%d frame "
                             "on %s: %s",
                             f->name, i + 1, w, h, ctx->dev.name, clv_strerror(err));
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
    if (!f || !f->run_yuv || !ctx->row_shape || (ctx->profiling && chain->filter_timing) ||
        src->width != dst->width || src->height != dst->height || src->stride != dst->stride)
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
    chain->filter_timing = on != 0;
    for (int k = 0; k < chain->more_count; k++)
        clv_chain_set_filter_timing(chain->more[k], on);
}

void clv_chain_set_frame_rate(clv_chain *chain, int num, int den)
{
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
        states[k] = on[k]->state[filter_index];
    }
    int swapped = chain->desc.item[filter_index].filter->swap(states, count, build, now);
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

int clv_chain_set_param(clv_chain *chain, int filter_index, const char *param, const char *value,
                        clv_msg *msg)
{
    if (filter_index < 0 || filter_index >= chain->desc.count)
        return clv__fail(msg, CLV_EINVAL, "no filter #%d in a chain of %d", filter_index + 1,
                         chain->desc.count);
    const clv_filter *f = chain->desc.item[filter_index].filter;
    for (int i = 0; i < f->param_count; i++) {
        if (strcmp(f->params[i].name, param))
            continue;
        clv_value v;
        int err = clv_param_parse(f, i, value, &v, msg);
        if (err)
            return err;
        const clv_value before = chain->desc.item[filter_index].values[i];
        chain->desc.item[filter_index].values[i] = v;
        if (f->configure && (err = f->configure(chain->state[filter_index], chain->ctx,
                                                chain->desc.item[filter_index].values, msg))) {
            chain->desc.item[filter_index].values[i] = before; /* the chain runs on as it was */
            return err;
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
