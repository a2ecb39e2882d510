/* ref_graph.c - a graph run by the filters' C references on the host: the
 * definition the device graph (graph.c) is compared with. Every node makes
 * an image of its own; split gives its input's on each output. */
#include "clvid_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct clv_ref_graph {
    clv_graph_desc desc;
    void *state[CLV_GRAPH_NODES];
    clv_image out[CLV_GRAPH_NODES]; /* each node's output (pad 0's) */
    /* The sizes each one-input node's reference_resize last saw (sized[i]:
     * it saw them). */
    clv_size seen_in[CLV_GRAPH_NODES], seen_out[CLV_GRAPH_NODES];
    int sized[CLV_GRAPH_NODES];
    clv_size last_in[CLV_GRAPH_INPUTS]; /* an absent input's size: its last */
    int rate_num, rate_den;
    double origin;                      /* clv_ref_graph_set_time_origin */
    clv__expr *enable[CLV_GRAPH_NODES]; /* the nodes' enable= (as the graph's) */
};

int clv_ref_graph_create(const clv_graph_desc *desc, clv_ref_graph **out)
{
    *out = NULL;
    clv_ref_graph *ref = calloc(1, sizeof *ref);
    if (!ref)
        return CLV_ENOMEM;
    ref->desc = *desc;
    ref->rate_num = 25;
    ref->rate_den = 1;
    for (int i = 0; i < desc->node_count; i++) {
        const clv_filter *f = desc->node[i].filter;
        int split = f->outputs_param && !f->reference_n && !f->run;
        if (!split && !f->reference && !f->reference_at && !f->reference_n) {
            clv_ref_graph_destroy(ref); /* a user kernel has no C reference */
            return CLV_EINVAL;
        }
        if (clv__enable_parse(f, desc->node[i].enable, &ref->enable[i], NULL)) {
            clv_ref_graph_destroy(ref);
            return CLV_EPARSE;
        }
        ref->state[i] = calloc(1, f->ref_state_size ? f->ref_state_size : 1);
        if (!ref->state[i]) {
            clv_ref_graph_destroy(ref);
            return CLV_ENOMEM;
        }
    }
    *out = ref;
    return 0;
}

void clv_ref_graph_destroy(clv_ref_graph *ref)
{
    if (!ref)
        return;
    for (int i = 0; i < ref->desc.node_count; i++) {
        const clv_filter *f = ref->desc.node[i].filter;
        if (ref->state[i] && f->reference_uninit)
            f->reference_uninit(ref->state[i]);
        free(ref->state[i]);
        clv_image_free(&ref->out[i]);
    }
    for (int i = 0; i < CLV_GRAPH_NODES; i++)
        clv__expr_free(ref->enable[i]);
    free(ref);
}

void clv_ref_graph_set_frame_rate(clv_ref_graph *ref, int num, int den)
{
    if (num > 0 && den > 0) {
        ref->rate_num = num;
        ref->rate_den = den;
    }
}

void clv_ref_graph_set_time_origin(clv_ref_graph *ref, double seconds)
{
    ref->origin = isfinite(seconds) ? seconds : 0;
}

static int ensure_image(clv_image *img, int w, int h, int depth)
{
    if (img->pixels && img->width == w && img->height == h && clv__depth(img) == depth)
        return 0;
    clv_image_free(img);
    return clv_image_alloc_depth(img, w, h, depth);
}

static void copy_image(const clv_image *src, clv_image *dst)
{
    for (int y = 0; y < src->height; y++)
        memcpy(dst->pixels + (size_t)y * dst->stride, src->pixels + (size_t)y * src->stride,
               (size_t)src->width * (size_t)clv_image_pixel_bytes(src));
}

int clv_ref_graph_run(clv_ref_graph *ref, const clv_image *const *in, clv_image *dst,
                      uint64_t frame_index, double time)
{
    const clv_graph_desc *d = &ref->desc;
    int depth = clv__depth(dst), err;
    if (!dst->pixels)
        return CLV_EINVAL;
    if (depth == 16 && clv_graph_desc_deep(d, NULL))
        return CLV_EDEPTH;
    clv_size sizes[CLV_GRAPH_INPUTS] = {{0}};
    for (int k = 0; k < d->input_count; k++) {
        if (!clv_graph_desc_uses(d, k))
            continue;
        if (in[k] && in[k]->pixels) {
            if (clv__depth(in[k]) != depth)
                return CLV_EINVAL;
            ref->last_in[k] = (clv_size){.width = in[k]->width, .height = in[k]->height};
            ref->last_in[k].sar_den = 1;
        } else if (!ref->last_in[k].width) {
            return CLV_EINVAL; /* absent from the start: no size to take */
        }
        sizes[k] = ref->last_in[k];
    }
    clv_size(*size)[CLV_GRAPH_PADS] = malloc(CLV_GRAPH_NODES * sizeof *size);
    if (!size)
        return CLV_ENOMEM;
    if (clv__graph_sizes(d, sizes, size, NULL)) {
        free(size);
        return CLV_EINVAL;
    }
    clv_size want = size[d->output.node][d->output.pad];
    if (dst->width != want.width || dst->height != want.height) {
        free(size);
        return CLV_EINVAL;
    }
    /* val[i]: node i's output (every pad's), NULL when absent. */
    const clv_image *val[CLV_GRAPH_NODES] = {0};
    err = 0;
    for (int i = 0; i < d->node_count && !err; i++) {
        const struct clv__graph_node *node = &d->node[i];
        const clv_filter *f = node->filter;
        clv_image src[CLV_GRAPH_PADS];
        const clv_image *got[CLV_GRAPH_PADS] = {0};
        for (int k = 0; k < node->input_count; k++) {
            clv__graph_link l = node->in[k];
            got[k] = l.node < 0 ? (in[l.pad] && in[l.pad]->pixels ? in[l.pad] : NULL) : val[l.node];
        }
        if (!got[0] && !clv__graph_hands_over(node, (const void *const *)got))
            continue; /* absent, and what it makes too */
        if (!f->reference && !f->reference_at && !f->reference_n) {
            val[i] = got[0]; /* split */
            continue;
        }
        int pass = 0;
        for (int k = 1; k < node->input_count; k++)
            pass |= !got[k] && f->eof_action && f->eof_action(node->values) == CLV_EOF_PASS;
        if (pass) {
            val[i] = got[0];
            continue;
        }
        const clv_size *o = &size[i][0];
        if ((err = ensure_image(&ref->out[i], o->width, o->height, depth)))
            break;
        if (f->reference_n) {
            for (int k = 0; k < node->input_count; k++) {
                if (got[k]) {
                    src[k] = *got[k];
                } else {
                    memset(&src[k], 0, sizeof src[k]);
                    clv__graph_link l = node->in[k];
                    const clv_size *s = l.node < 0 ? &sizes[l.pad] : &size[l.node][l.pad];
                    src[k].width = s->width;
                    src[k].height = s->height;
                    src[k].depth = depth;
                }
            }
            err = f->reference_n(ref->state[i], node->values, src, node->input_count, &ref->out[i],
                                 frame_index, f->timing ? time - ref->origin : time);
        } else {
            clv__graph_link l = node->in[0];
            clv_size a = l.node < 0 ? sizes[l.pad] : size[l.node][l.pad];
            if (f->reference_resize && (!ref->sized[i] || memcmp(&a, &ref->seen_in[i], sizeof a) ||
                                        memcmp(o, &ref->seen_out[i], sizeof *o))) {
                if ((err = f->reference_resize(ref->state[i], node->values, &a, o)))
                    break;
                ref->seen_in[i] = a;
                ref->seen_out[i] = *o;
                ref->sized[i] = 1;
            }
            err = f->reference_at ? f->reference_at(ref->state[i], node->values, got[0],
                                                    &ref->out[i], frame_index, time)
                                  : f->reference(ref->state[i], node->values, got[0], &ref->out[i],
                                                 frame_index);
        }
        /* enable= off: run (what it keeps goes on), its first input passed on */
        if (!err && got[0] &&
            !clv__enabled(ref->enable[i], time, frame_index, got[0]->width, got[0]->height))
            copy_image(got[0], &ref->out[i]);
        val[i] = &ref->out[i];
    }
    free(size);
    if (err)
        return err;
    const clv_image *last = val[d->output.node];
    if (!last)
        return CLV_EINVAL; /* the input that drives it is absent */
    copy_image(last, dst);
    return 0;
}
