/* ref_chain.c - a chain run by the filters' C references on the host, the
 * definition the device chain is compared with. */
#include "clvid_internal.h"

#include <stdlib.h>
#include <string.h>

struct clv_ref_chain {
    clv_chain_desc desc;
    void *state[CLV_CHAIN_MAX];
    clv_image mid[2];
};

int clv_ref_chain_create(const clv_chain_desc *desc, clv_ref_chain **out)
{
    *out = NULL;
    clv_ref_chain *ref = calloc(1, sizeof *ref);
    if (!ref)
        return CLV_ENOMEM;
    ref->desc = *desc;
    for (int i = 0; i < desc->count; i++) {
        if (!desc->item[i].filter->reference) {
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
    for (int i = 0; i < ref->desc.count; i++)
        free(ref->state[i]);
    clv_image_free(&ref->mid[0]);
    clv_image_free(&ref->mid[1]);
    free(ref);
}

static int ensure_image(clv_image *img, int w, int h)
{
    if (img->pixels && img->width == w && img->height == h)
        return 0;
    clv_image_free(img);
    return clv_image_alloc(img, w, h);
}

int clv_ref_chain_run(clv_ref_chain *ref, const clv_image *src, clv_image *dst,
                      uint64_t frame_index)
{
    if (src->width != dst->width || src->height != dst->height)
        return CLV_EINVAL;
    int w = src->width, h = src->height, n = ref->desc.count, err;
    if (n >= 2 && (err = ensure_image(&ref->mid[0], w, h)))
        return err;
    if (n >= 3 && (err = ensure_image(&ref->mid[1], w, h)))
        return err;
    if (n == 0) {
        for (int y = 0; y < h; y++)
            memcpy(dst->pixels + (size_t)y * dst->stride, src->pixels + (size_t)y * src->stride,
                   (size_t)w * 4);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        const clv_image *in = i == 0 ? src : &ref->mid[(i - 1) % 2];
        clv_image *out = i == n - 1 ? dst : &ref->mid[i % 2];
        err = ref->desc.item[i].filter->reference(ref->state[i], ref->desc.item[i].values, in, out,
                                                  frame_index);
        if (err)
            return err;
    }
    return 0;
}
