/* gray.c - R=G=B=gray(p), BT.601 luma in fixed point; and the run and the
 * reference of the filters on luma (cl/point.cl), which threshold shares. */
#include "filters.h"

static const char *const kernels[] = {"gray", NULL};

int clv__luma_run(void *state, const clv_launch *l, const cl_int *args, int count)
{
    cl_kernel kernel = *(cl_kernel *)state;
    int err = clv__kernel_frame_args(kernel, l);
    for (int i = 0; i < count && !err; i++)
        err = clv__kernel_args(kernel, 5 + i, 1, CLV__ARG(args[i]));
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

void clv__luma_reference(const uint8_t level[256], const clv_image *src, clv_image *dst)
{
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            const uint8_t *p = clv__px(src, x, y);
            uint8_t *o = clv__px_mut(dst, x, y);
            o[0] = o[1] = o[2] = level[clv__gray(p)];
            o[3] = p[3];
        }
}

static int run(void *state, const clv_launch *l)
{
    return clv__luma_run(state, l, NULL, 0);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)v;
    (void)frame_index;
    uint8_t level[256];
    for (int g = 0; g < 256; g++)
        level[g] = (uint8_t)g;
    clv__luma_reference(level, src, dst);
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
