/* gray.c - R=G=B=gray(p), BT.601 luma in fixed point; and the run and the
 * reference of the filters on luma (cl/point.cl), which threshold shares.
 * At 16 bits the same formula on 0-65535 (the weights sum to 2^15, so the
 * sum fits an int). On a 16-bit frame of 8-bit values (v * 257) gray16 is
 * the 8-bit luma before its rounding: floor((gray16 + 128) / 257) is
 * gray8, and gray16 is within 128 of 257 gray8 (every R, G, B checked). */
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

void clv__luma_reference(int level, const clv_image *src, clv_image *dst)
{
    int maxv = clv__maxv(src);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            int g = clv__luma_at(src, x, y);
            int o = level < 0 ? g : g > level ? maxv : 0;
            for (int c = 0; c < 3; c++)
                clv__put(dst, x, y, c, o);
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
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
    clv__luma_reference(-1, src, dst);
    return 0;
}

const clv_filter clv__filter_gray = {
    .name = "gray",
    .help = "grayscale: R=G=B=(9798 R + 19235 G + 3735 B + 16384) >> 15",
    .program = "point",
    .kernels = kernels,
    .deep = 1,
    .run = run,
    .reference = reference,
};
