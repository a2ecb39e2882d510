/* ref_chain.c - a chain run by the filters' C references on the host, the
 * definition the device chain is compared with. */
#include "clvid_internal.h"

#include <stdlib.h>
#include <string.h>

struct clv_ref_chain {
    clv_chain_desc desc;
    void *state[CLV_CHAIN_MAX];
    clv_image mid[CLV_CHAIN_MAX]; /* the frame after each filter but the last */
    int rate_num, rate_den;
    clv_size in; /* the input's aspect and colour (clv_ref_chain_set_input) */
    /* The sizes the filters' reference_resize hooks last saw (sized: they
     * saw them). */
    clv_size link[CLV_CHAIN_MAX + 1];
    int sized;
    /* As the chain's (clv_chain_run): the filter holding frames, its
     * frames out per frame in, the runs so far. */
    int held_at, fields;
    uint64_t runs;
    clv__expr *enable[CLV_CHAIN_MAX]; /* the items' enable= (as the chain's) */
};

int clv_ref_chain_create(const clv_chain_desc *desc, clv_ref_chain **out)
{
    *out = NULL;
    clv_ref_chain *ref = calloc(1, sizeof *ref);
    if (!ref)
        return CLV_ENOMEM;
    ref->desc = *desc;
    ref->rate_num = 25;
    ref->rate_den = 1;
    ref->in.sar_den = 1;
    ref->held_at = -1;
    int delay;
    if (clv_chain_desc_cadence(desc, &delay, &ref->fields, NULL)) {
        free(ref);
        return CLV_EINVAL;
    }
    for (int i = 0; i < desc->count; i++)
        if (desc->item[i].filter->cadence)
            ref->held_at = i;
    for (int i = 0; i < desc->count; i++)
        if (clv__enable_parse(desc->item[i].filter, desc->item[i].enable, &ref->enable[i], NULL)) {
            clv_ref_chain_destroy(ref);
            return CLV_EPARSE;
        }
    for (int i = 0; i < desc->count; i++) {
        if (!desc->item[i].filter->reference && !desc->item[i].filter->reference_at) {
            clv_ref_chain_destroy(ref); /* a user kernel has no C reference */
            return CLV_EINVAL;
        }
        size_t size = desc->item[i].filter->ref_state_size;
        ref->state[i] = calloc(1, size ? size : 1);
        if (!ref->state[i]) {
            clv_ref_chain_destroy(ref);
            return CLV_ENOMEM;
        }
    }
    *out = ref;
    return 0;
}

void clv_ref_chain_destroy(clv_ref_chain *ref)
{
    if (!ref)
        return;
    for (int i = 0; i < ref->desc.count; i++) {
        const clv_filter *f = ref->desc.item[i].filter;
        if (ref->state[i] && f->reference_uninit)
            f->reference_uninit(ref->state[i]);
        free(ref->state[i]);
    }
    for (int i = 0; i < CLV_CHAIN_MAX; i++) {
        clv_image_free(&ref->mid[i]);
        clv__expr_free(ref->enable[i]);
    }
    free(ref);
}

static int ensure_image(clv_image *img, int w, int h, int depth)
{
    if (img->pixels && img->width == w && img->height == h && clv__depth(img) == depth)
        return 0;
    clv_image_free(img);
    return clv_image_alloc_depth(img, w, h, depth);
}

void clv_ref_chain_set_frame_rate(clv_ref_chain *ref, int num, int den)
{
    if (num > 0 && den > 0) {
        ref->rate_num = num;
        ref->rate_den = den;
    }
}

void clv_ref_chain_set_input(clv_ref_chain *ref, const clv_size *in)
{
    ref->in = *in;
    ref->sized = 0;
}

/* The filters' reference_resize hooks for these sizes, when they are new. */
static int resize_links(clv_ref_chain *ref, const clv_size *link)
{
    int n = ref->desc.count, err;
    if (ref->sized && !memcmp(ref->link, link, (size_t)(n + 1) * sizeof *link))
        return 0;
    ref->sized = 0;
    for (int i = 0; i < n; i++) {
        const clv_filter *f = ref->desc.item[i].filter;
        if (f->reference_resize &&
            (err = f->reference_resize(ref->state[i], ref->desc.item[i].values, &link[i],
                                       &link[i + 1])))
            return err;
    }
    memcpy(ref->link, link, (size_t)(n + 1) * sizeof *link);
    ref->sized = 1;
    return 0;
}

void clv_ref_chain_end(clv_ref_chain *ref)
{
    for (int i = 0; i < ref->desc.count; i++)
        if (ref->desc.item[i].filter->reference_end)
            ref->desc.item[i].filter->reference_end(ref->state[i]);
}

int clv_ref_chain_run(clv_ref_chain *ref, const clv_image *src, clv_image *dst,
                      uint64_t frame_index)
{
    int n = ref->desc.count, err;
    clv_size size = ref->in;
    size.width = src->width;
    size.height = src->height;
    clv_size link[CLV_CHAIN_MAX + 1];
    link[0] = size;
    for (int i = 0; i < n; i++)
        if (clv__filter_output_size(ref->desc.item[i].filter, ref->desc.item[i].values, i, &link[i],
                                    &link[i + 1], NULL))
            return CLV_EINVAL;
    int depth = clv__depth(src);
    if (dst->width != link[n].width || dst->height != link[n].height || !src->pixels ||
        !dst->pixels || clv__depth(dst) != depth)
        return CLV_EINVAL;
    if (depth == 16 && clv_chain_desc_deep(&ref->desc, NULL))
        return CLV_EDEPTH;
    for (int i = 0; i + 1 < n; i++)
        if ((err = ensure_image(&ref->mid[i], link[i + 1].width, link[i + 1].height, depth)))
            return err;
    if ((err = resize_links(ref, link)))
        return err;
    if (n == 0) {
        for (int y = 0; y < src->height; y++)
            memcpy(dst->pixels + (size_t)y * dst->stride, src->pixels + (size_t)y * src->stride,
                   (size_t)src->width * (size_t)clv_image_pixel_bytes(src));
        return 0;
    }
    double time = (double)frame_index * ref->rate_den / ref->rate_num;
    int from = 0;
    if (ref->held_at >= 0) {
        int delay;
        if (clv_chain_desc_cadence(&ref->desc, &delay, &ref->fields, NULL))
            return CLV_EINVAL;
        if (ref->runs++ % (uint64_t)ref->fields != 0)
            from = ref->held_at;
    }
    for (int i = from; i < n; i++) {
        const clv_filter *f = ref->desc.item[i].filter;
        const clv_image *in = i == 0 ? src : &ref->mid[i - 1];
        clv_image *out = i == n - 1 ? dst : &ref->mid[i];
        int on = clv__enabled(ref->enable[i], time, frame_index, in->width, in->height);
        if (on || clv_filter_temporal(f)) {
            err = f->reference_at
                      ? f->reference_at(ref->state[i], ref->desc.item[i].values, in, out,
                                        frame_index, time)
                      : f->reference(ref->state[i], ref->desc.item[i].values, in, out, frame_index);
            if (err)
                return err;
        }
        if (!on) /* as the chain: the frame passes unchanged */
            for (int y = 0; y < in->height; y++)
                memcpy(out->pixels + (size_t)y * out->stride, in->pixels + (size_t)y * in->stride,
                       (size_t)in->width * (size_t)clv_image_pixel_bytes(in));
    }
    return 0;
}
