/* gray.c - R=G=B=gray(p), BT.601 luma in fixed point. */
#include "filters.h"

static const char *const kernels[] = {"gray", NULL};

static int run(void *state, const clv_launch *l)
{
    cl_kernel kernel = *(cl_kernel *)state;
    int err = clv__kernel_frame_args(kernel, l);
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)v;
    (void)frame_index;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            const uint8_t *p = clv__px(src, x, y);
            uint8_t *o = clv__px_mut(dst, x, y);
            o[0] = o[1] = o[2] = (uint8_t)clv__gray(p);
            o[3] = p[3];
        }
    return 0;
}

const clv_filter clv__filter_gray = {
    .name = "gray",
    .help = "grayscale: R=G=B=(9798 R + 19235 G + 3735 B + 16384) >> 15",
    .program = "point",
    .kernels = kernels,
    .run = run,
    .reference = reference,
};
