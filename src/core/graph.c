/* graph.c - a graph on a device: every maximal run of one-input filters is
 * a chain (chain.c, its ping-pong frames and all), every filter of several
 * inputs gets a launch with its inputs; the frames between them are
 * allocated once per size and kept. split gives its input's frame to each
 * output, no copy: no filter writes the frames it reads (a chain never
 * writes its src, a launch's inputs are read only), so a branch can't
 * clobber what another still reads. The context's in-order queue orders
 * everything. */
#include "clvid_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What node i is on the device. */
enum { NODE_CHAIN, NODE_SPLIT, NODE_MULTI };

struct clv_graph {
    clv_context *ctx;
    clv_graph_desc desc;
    int depth;
    int rate_num, rate_den;
    double origin; /* clv_graph_set_time_origin */
    int kind[CLV_GRAPH_NODES];
    /* A chain node: its run (seg[i]); the run's last node owns the chain. */
    int seg[CLV_GRAPH_NODES];
    struct segment {
        clv_chain *chain;
        int first, last; /* its first and last nodes */
    } segs[CLV_GRAPH_NODES];
    int seg_count;
    /* A filter of several inputs: its state as a chain keeps it. */
    void *state[CLV_GRAPH_NODES];
    int initialized[CLV_GRAPH_NODES];
    cl_mem scratch;
    size_t scratch_bytes;
    /* The output frame of each chain's last node and each MULTI node. */
    clv_frame frame[CLV_GRAPH_NODES];
    /* The sizes of every link for in[] (sized: computed for those). */
    clv_size in[CLV_GRAPH_INPUTS];
    clv_size size[CLV_GRAPH_NODES][CLV_GRAPH_PADS];
    int sized;
    /* A filter of several inputs' enable= (NULL: none; a chain's own keep
     * theirs): off, its first input passes on. */
    clv__expr *enable[CLV_GRAPH_NODES];
};

static size_t kernel_count(const clv_filter *f)
{
    size_t n = 0;
    while (f->kernels && f->kernels[n])
        n++;
    return n;
}

static int is_split(const clv_filter *f)
{
    return f->outputs_param && !f->run;
}

void clv_graph_destroy(clv_graph *graph)
{
    if (!graph)
        return;
    if (graph->ctx->queue && !graph->ctx->hung)
        clFinish(graph->ctx->queue);
    for (int s = 0; s < graph->seg_count; s++)
        clv_chain_destroy(graph->segs[s].chain);
    for (int i = 0; i < graph->desc.node_count; i++) {
        const clv_filter *f = graph->desc.node[i].filter;
        if (graph->state[i] && graph->initialized[i] && !graph->ctx->hung) {
            if (f->uninit)
                f->uninit(graph->state[i]);
            cl_kernel *kernels = graph->state[i];
            for (size_t k = 0; k < kernel_count(f); k++)
                clv__kernel_release(&kernels[k]);
        }
        free(graph->state[i]);
        if (!graph->ctx->hung)
            clv_frame_destroy(&graph->frame[i]);
    }
    if (!graph->ctx->hung)
        clv__mem_release(&graph->scratch);
    for (int i = 0; i < CLV_GRAPH_NODES; i++)
        clv__expr_free(graph->enable[i]);
    free(graph);
}

/* A filter of several inputs: its state, kernels, init and configure at
 * the graph's depth (the context builds at it meanwhile). */
static int build_multi(clv_graph *graph, int i, clv_msg *msg)
{
    const struct clv__graph_node *node = &graph->desc.node[i];
    const clv_filter *f = node->filter;
    clv_context *ctx = graph->ctx;
    size_t size = kernel_count(f) * sizeof(cl_kernel);
    if (size < f->state_size)
        size = f->state_size;
    graph->state[i] = calloc(1, size ? size : 1);
    if (!graph->state[i])
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    cl_program prog = NULL;
    int err;
    if (f->program && (err = clv__program_get(ctx, f->program, &prog, msg)))
        return err;
    graph->initialized[i] = 1;
    cl_kernel *kernels = graph->state[i];
    for (size_t k = 0; k < kernel_count(f); k++)
        if ((err = clv__kernel_create(prog, f->kernels[k], &kernels[k], msg)))
            return err;
    if (f->init && (err = f->init(graph->state[i], ctx, prog, msg)))
        return err;
    if (f->configure && (err = f->configure(graph->state[i], ctx, node->values, msg)))
        return err;
    return 0;
}

int clv_graph_create(clv_context *ctx, const clv_graph_desc *desc, int depth, clv_graph **out,
                     clv_msg *msg)
{
    *out = NULL;
    if (depth != 8 && depth != 16)
        return clv__fail(msg, CLV_EINVAL, "graph depth %d: expected 8 or 16 bits a channel", depth);
    int err = depth == 16 ? clv_graph_desc_deep(desc, msg) : 0;
    if (err)
        return err;
    clv_graph *graph = calloc(1, sizeof *graph);
    if (!graph)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    graph->ctx = ctx;
    graph->desc = *desc;
    graph->depth = depth;
    graph->rate_num = 25;
    graph->rate_den = 1;
    const clv_graph_desc *d = &graph->desc;
    /* The runs of one-input filters: a node joins its producer's run when
     * that is a one-input filter too (whose one output it is). */
    clv_chain_desc *chain_of[CLV_GRAPH_NODES] = {0};
    for (int i = 0; i < d->node_count && !err; i++) {
        const struct clv__graph_node *node = &d->node[i];
        const clv_filter *f = node->filter;
        if (is_split(f)) {
            graph->kind[i] = NODE_SPLIT;
            continue;
        }
        if (node->input_count > 1 || node->output_count > 1 || f->output_size_n || f->reference_n) {
            graph->kind[i] = NODE_MULTI;
            err = clv__enable_parse(f, node->enable, &graph->enable[i], msg);
            continue;
        }
        graph->kind[i] = NODE_CHAIN;
        int from = node->in[0].node, s;
        if (from >= 0 && graph->kind[from] == NODE_CHAIN &&
            chain_of[graph->seg[from]]->count < CLV_CHAIN_MAX) {
            s = graph->seg[from];
        } else {
            s = graph->seg_count++;
            graph->segs[s].first = i;
            chain_of[s] = calloc(1, sizeof(clv_chain_desc));
            if (!chain_of[s]) {
                err = clv__fail(msg, CLV_ENOMEM, "out of memory");
                break;
            }
        }
        graph->seg[i] = s;
        graph->segs[s].last = i;
        clv_chain_desc *c = chain_of[s];
        c->item[c->count].filter = f;
        memcpy(c->item[c->count].values, node->values, sizeof c->item[0].values);
        memcpy(c->item[c->count].enable, node->enable, sizeof c->item[0].enable);
        c->count++;
    }
    for (int s = 0; s < graph->seg_count && !err; s++)
        err = clv_chain_create_depth(ctx, chain_of[s], depth, &graph->segs[s].chain, msg);
    for (int s = 0; s < graph->seg_count; s++)
        free(chain_of[s]);
    if (!err) {
        int was = ctx->build_depth;
        ctx->build_depth = depth;
        for (int i = 0; i < d->node_count && !err; i++) {
            clv_msg why = {{0}};
            if (graph->kind[i] == NODE_MULTI && (err = build_multi(graph, i, &why)))
                clv__fail(msg, err, "filter '%s' (#%d in the graph): %.900s",
                          d->node[i].filter->name, d->node[i].place + 1, why.text);
        }
        ctx->build_depth = was;
    }
    if (err) {
        clv_graph_destroy(graph);
        return err;
    }
    *out = graph;
    return 0;
}

const clv_graph_desc *clv_graph_get_desc(const clv_graph *graph)
{
    return &graph->desc;
}

void clv_graph_set_frame_rate(clv_graph *graph, int num, int den)
{
    if (num <= 0 || den <= 0)
        return;
    graph->rate_num = num;
    graph->rate_den = den;
    for (int s = 0; s < graph->seg_count; s++)
        clv_chain_set_frame_rate(graph->segs[s].chain, num, den);
}

void clv_graph_set_time_origin(clv_graph *graph, double seconds)
{
    graph->origin = isfinite(seconds) ? seconds : 0;
}

double clv__graph_seconds(const clv_graph *graph, uint64_t frame_index)
{
    return (double)frame_index * graph->rate_den / graph->rate_num;
}

/* The bytes of a device frame of w x h at the graph's depth. */
static size_t frame_bytes(const clv_graph *graph, int w, int h)
{
    return (size_t)((w + 15) & ~15) * (size_t)h * (graph->depth == 16 ? 8 : 4);
}

/* The sizes of every link for inputs of in[] (an input not read: any),
 * checked against the device, and what depends on them built (the
 * chains' and the filters' resize hooks). */
static int size_graph(clv_graph *graph, const clv_size *in, clv_msg *msg)
{
    const clv_graph_desc *d = &graph->desc;
    clv_size given[CLV_GRAPH_INPUTS];
    for (int k = 0; k < d->input_count; k++) {
        given[k] = in[k];
        if (!clv_graph_desc_uses(d, k))
            given[k] = (clv_size){.width = 1, .height = 1, .sar_den = 1};
    }
    if (graph->sized && !memcmp(given, graph->in, (size_t)d->input_count * sizeof *given))
        return 0;
    graph->sized = 0;
    int err = clv__graph_sizes(d, given, graph->size, msg);
    if (err)
        return err;
    clv_context *ctx = graph->ctx;
    for (int i = 0; i < d->node_count; i++) {
        const clv_size *o = &graph->size[i][0];
        size_t bytes = frame_bytes(graph, o->width, o->height);
        if (bytes > ctx->dev.max_alloc)
            return clv__fail(msg, CLV_ELIMIT,
                             "filter '%s' (#%d in the graph) makes %dx%d frames: %zu MiB in one "
                             "buffer, and %s allows at most %llu MiB",
                             d->node[i].filter->name, d->node[i].place + 1, o->width, o->height,
                             bytes >> 20, ctx->dev.name,
                             (unsigned long long)(ctx->dev.max_alloc >> 20));
    }
    for (int s = 0; s < graph->seg_count; s++) {
        clv__graph_link l = d->node[graph->segs[s].first].in[0];
        const clv_size *a = l.node < 0 ? &given[l.pad] : &graph->size[l.node][l.pad];
        clv_size out;
        if ((err = clv_chain_output_size(graph->segs[s].chain, a, &out, msg)))
            return err;
    }
    int was = ctx->build_depth;
    ctx->build_depth = graph->depth;
    for (int i = 0; i < d->node_count && !err; i++) {
        const clv_filter *f = d->node[i].filter;
        if (graph->kind[i] != NODE_MULTI || !f->resize)
            continue;
        clv__graph_link l = d->node[i].in[0];
        const clv_size *a = l.node < 0 ? &given[l.pad] : &graph->size[l.node][l.pad];
        err = f->resize(graph->state[i], ctx, d->node[i].values, a, &graph->size[i][0], msg);
    }
    ctx->build_depth = was;
    if (err)
        return err;
    memcpy(graph->in, given, (size_t)d->input_count * sizeof *given);
    graph->sized = 1;
    return 0;
}

int clv_graph_output_size(clv_graph *graph, const clv_size *in, clv_size *out, clv_msg *msg)
{
    int err = size_graph(graph, in, msg);
    if (!err)
        *out = graph->size[graph->desc.output.node][graph->desc.output.pad];
    return err;
}

/* Node i's frame, (re)made at its size. */
static int node_frame(clv_graph *graph, int i, clv_msg *msg)
{
    clv_frame *f = &graph->frame[i];
    const clv_size *o = &graph->size[i][0];
    if (f->buffer && f->width == o->width && f->height == o->height)
        return 0;
    clv_frame_destroy(f);
    return clv_frame_create_depth(graph->ctx, o->width, o->height, graph->depth, f, msg);
}

int clv__graph_planes(const clv_graph *graph)
{
    const clv_graph_desc *d = &graph->desc;
    if (graph->depth != 8 || d->output.pad != 0)
        return 0;
    const struct clv__graph_node *out = &d->node[d->output.node];
    const clv_filter *f = out->filter;
    if (graph->kind[d->output.node] != NODE_MULTI || graph->enable[d->output.node] || !f->planes ||
        !f->run_planes || !f->planes(out->values) || out->input_count != 2 ||
        out->in[0].node != -1 || out->in[0].pad != 0)
        return 0;
    /* input 0 read by nothing else (its RGBA frame is never made) */
    for (int i = 0; i < d->node_count; i++)
        for (int k = 0; k < d->node[i].input_count; k++)
            if ((i != d->output.node || k != 0) && d->node[i].in[k].node == -1 &&
                d->node[i].in[k].pad == 0)
                return 0;
    return 1;
}

/* clv_graph_run, or (io) clv__graph_run_planes with input 0 of pw x ph in
 * io's planes. */
static int run(clv_graph *graph, const clv_frame *const *in, clv_frame *dst, const clv__yuv_io *io,
               int pw, int ph, uint64_t frame_index, double time, cl_event wait, cl_event *done,
               clv_msg *msg)
{
    clv_context *ctx = graph->ctx;
    const clv_graph_desc *d = &graph->desc;
    int err = 0;
    if (done)
        *done = NULL;
    /* input 0 in planes: present, with no frame (only the output node reads it) */
    const clv_frame planes = {NULL, pw, ph, (pw + 15) & ~15, 8};
    if (io && !clv__graph_planes(graph))
        return clv__fail(msg, CLV_EINVAL, "graph run: this graph can't run on Y'CbCr planes");
    if (!io && (!dst || !dst->buffer))
        return clv__fail(msg, CLV_EINVAL, "graph run: no destination frame");
    if (!io && (dst->depth == 16 ? 16 : 8) != graph->depth)
        return clv__fail(msg, CLV_EINVAL,
                         "graph run: the graph runs at %d bits a channel; the "
                         "destination has %d",
                         graph->depth, dst->depth == 16 ? 16 : 8);
    /* The inputs' sizes: an absent one keeps its last (the sizes of the
     * links stay as they were). */
    clv_size sizes[CLV_GRAPH_INPUTS];
    const clv_frame *input[CLV_GRAPH_INPUTS] = {0};
    for (int k = 0; k < d->input_count; k++) {
        sizes[k] = graph->sized ? graph->in[k] : (clv_size){.width = 1, .height = 1, .sar_den = 1};
        if (!clv_graph_desc_uses(d, k))
            continue;
        if (io && k == 0) {
            input[0] = &planes;
            sizes[0].width = pw;
            sizes[0].height = ph;
            continue;
        }
        if (in[k] && in[k]->buffer) {
            if ((in[k]->depth == 16 ? 16 : 8) != graph->depth)
                return clv__fail(msg, CLV_EINVAL,
                                 "graph run: input %d has %d bits a channel; the graph runs at %d",
                                 k, in[k]->depth == 16 ? 16 : 8, graph->depth);
            if (dst && in[k]->buffer == dst->buffer)
                return clv__fail(msg, CLV_EINVAL,
                                 "graph run: input %d and the destination are one frame", k);
            input[k] = in[k];
            sizes[k].width = in[k]->width;
            sizes[k].height = in[k]->height;
        } else if (!graph->sized) {
            return clv__fail(msg, CLV_EINVAL,
                             "graph run: input %d is absent from the first frame (its size is "
                             "not known)",
                             k);
        }
    }
    if ((err = size_graph(graph, sizes, msg)))
        return err;
    const clv_size *want = &graph->size[d->output.node][d->output.pad];
    if (!io && (dst->width != want->width || dst->height != want->height))
        return clv__fail(msg, CLV_EINVAL,
                         "graph run: the graph makes %dx%d frames of these inputs; the "
                         "destination is %dx%d",
                         want->width, want->height, dst->width, dst->height);
    if (wait)
        CLV__CL_CHECK(ctx, clEnqueueBarrierWithWaitList(ctx->queue, 1, &wait, NULL),
                      "clEnqueueBarrierWithWaitList");
    /* val[i]: node i's output frame (all its pads'), NULL when absent. */
    const clv_frame *val[CLV_GRAPH_NODES] = {0};
    for (int i = 0; i < d->node_count; i++) {
        const struct clv__graph_node *node = &d->node[i];
        const clv_filter *f = node->filter;
        const clv_frame *got[CLV_GRAPH_PADS] = {0};
        for (int k = 0; k < node->input_count; k++) {
            clv__graph_link l = node->in[k];
            got[k] = l.node < 0 ? input[l.pad] : val[l.node];
        }
        if (!got[0] && !clv__graph_hands_over(node, (const void *const *)got))
            continue; /* absent, and what it makes too */
        int last = i == d->output.node;
        if (graph->kind[i] == NODE_SPLIT) {
            val[i] = got[0];
            continue;
        }
        if (graph->kind[i] == NODE_CHAIN) {
            const struct segment *s = &graph->segs[graph->seg[i]];
            if (i != s->last) {
                val[i] = got[0]; /* the run's input, passed on to its last node */
                continue;
            }
            /* got[0] is the run's input (passed along from its first). */
            if (!last && (err = node_frame(graph, i, msg)))
                return err;
            clv_frame *to = last ? dst : &graph->frame[i];
            if ((err = clv__chain_run_at(s->chain, got[0], to, frame_index, time, NULL, NULL, msg)))
                return err;
            val[i] = to;
            continue;
        }
        int pass = 0;
        for (int k = 1; k < node->input_count; k++)
            pass |= !got[k] && f->eof_action && f->eof_action(node->values) == CLV_EOF_PASS;
        /* enable= off: the filter runs (what it keeps of its other inputs,
         * a still overlay's picture, goes on) and its first input passes on */
        const int off = got[0] && !clv__enabled(graph->enable[i], time, frame_index, got[0]->width,
                                                got[0]->height);
        if (pass && !(io && last)) { /* in planes: run_planes copies them */
            val[i] = got[0];
            continue;
        }
        if (!last && (err = node_frame(graph, i, msg)))
            return err;
        clv_frame *to = last && io ? NULL : last ? dst : &graph->frame[i];
        clv_frame frames[CLV_GRAPH_PADS];
        for (int k = 0; k < node->input_count; k++) {
            if (got[k]) {
                frames[k] = *got[k];
            } else {
                clv__graph_link l = node->in[k];
                const clv_size *s = l.node < 0 ? &graph->in[l.pad] : &graph->size[l.node][l.pad];
                frames[k] =
                    (clv_frame){NULL, s->width, s->height, (s->width + 15) & ~15, graph->depth};
            }
        }
        clv_launch l = {
            .ctx = ctx,
            .queue = ctx->queue,
            .src = frames[0].buffer,
            .dst = to ? to->buffer : NULL,
            .width = frames[0].width,
            .height = frames[0].height,
            .stride = frames[0].stride,
            .out_width = to ? to->width : pw,
            .out_height = to ? to->height : ph,
            .out_stride = to ? to->stride : planes.stride,
            .frame_index = frame_index,
            .time = f->timing ? time - graph->origin : time,
            .depth = graph->depth,
            .values = node->values,
            .inputs = frames,
            .input_count = node->input_count,
        };
        if (!to) { /* the output in planes: the graph's last command */
            l.done = done;
            if ((err = f->run_planes(graph->state[i], &l, io)))
                return clv__fail(
                    msg, err, "filter '%s' (#%d in the graph) failed on %dx%d planes on %s: %s",
                    f->name, node->place + 1, l.width, l.height, ctx->dev.name, clv_strerror(err));
            return 0;
        }
        if (f->needs_scratch) {
            size_t need = frame_bytes(graph, to->width, to->height);
            for (int k = 0; k < node->input_count; k++) {
                size_t b = frame_bytes(graph, frames[k].width, frames[k].height);
                need = b > need ? b : need;
            }
            if (!graph->scratch || graph->scratch_bytes < need) {
                clv__mem_release(&graph->scratch);
                graph->scratch_bytes = 0;
                cl_int st = CL_SUCCESS;
                graph->scratch = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, need, NULL, &st);
                if (st != CL_SUCCESS || !graph->scratch) {
                    graph->scratch = NULL;
                    return clv__fail(msg, CLV_ENOMEM,
                                     "cannot allocate the graph's scratch frame (%zu MiB) on %s",
                                     need >> 20, ctx->dev.name);
                }
                graph->scratch_bytes = need;
            }
            l.scratch = graph->scratch;
        }
        if ((err = f->run(graph->state[i], &l)))
            return clv__fail(
                msg, err, "filter '%s' (#%d in the graph) failed on %dx%d frames on %s: %s",
                f->name, node->place + 1, l.width, l.height, ctx->dev.name, clv_strerror(err));
        if (off && (err = clv__frame_copy(ctx, got[0], to)))
            goto fail;
        val[i] = to;
    }
    const clv_frame *result = val[d->output.node];
    if (io) /* the output node returned above, unless it never ran */
        return clv__fail(msg, CLV_EINVAL, "graph run: the output's filter did not run");
    if (!result)
        return clv__fail(msg, CLV_EINVAL,
                         "graph run: the input that makes the output is absent from this frame");
    if (result != dst && (err = clv__frame_copy(ctx, result, dst)))
        goto fail;
    if (done)
        CLV__CL_CHECK(ctx, clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done),
                      "clEnqueueMarkerWithWaitList");
    return 0;
fail:
    return clv__fail(msg, err, "running the graph on %s: %s (see the log above)", ctx->dev.name,
                     clv_strerror(err));
}

int clv_graph_run(clv_graph *graph, const clv_frame *const *in, clv_frame *dst,
                  uint64_t frame_index, double time, cl_event wait, cl_event *done, clv_msg *msg)
{
    return run(graph, in, dst, NULL, 0, 0, frame_index, time, wait, done, msg);
}

int clv__graph_run_planes(clv_graph *graph, const clv_frame *const *in, int w, int h,
                          const clv__yuv_io *io, uint64_t frame_index, double time, cl_event wait,
                          cl_event *done, clv_msg *msg)
{
    return run(graph, in, NULL, io, w, h, frame_index, time, wait, done, msg);
}
