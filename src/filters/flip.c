/* flip.c - hflip and vflip, as ffmpeg's: the picture mirrored left-right or
 * top-bottom (cl/flip.cl), one kernel for both, at 8 and 16 bits alike. */
#include "filters.h"

static const char *const kernels[] = {"flip", NULL};

static int run_flip(void *state, const clv_launch *l, cl_int horizontal, cl_int vertical)
{
    cl_kernel kernel = *(cl_kernel *)state;
    int err = clv__kernel_frame_args(kernel, l);
    if (!err)
        err = clv__kernel_args(kernel, 5, 2, CLV__ARG(horizontal), CLV__ARG(vertical));
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

static void reference_flip(const clv_image *src, clv_image *dst, int horizontal, int vertical)
{
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c,
                         clv__get(src, horizontal ? src->width - 1 - x : x,
                                  vertical ? src->height - 1 - y : y, c));
        }
}

/* Defines the descriptor clv__filter_<fname> of one direction. */
#define FLIP_FILTER(fname, horizontal, vertical, help_text)                                        \
    static int fname##_run(void *state, const clv_launch *l)                                       \
    {                                                                                              \
        return run_flip(state, l, horizontal, vertical);                                           \
    }                                                                                              \
    static int fname##_reference(void *ref_state, const clv_value *v, const clv_image *src,        \
                                 clv_image *dst, uint64_t frame_index)                             \
    {                                                                                              \
        (void)ref_state;                                                                           \
        (void)v;                                                                                   \
        (void)frame_index;                                                                         \
        reference_flip(src, dst, horizontal, vertical);                                            \
        return 0;                                                                                  \
    }                                                                                              \
    const clv_filter clv__filter_##fname = {                                                       \
        .name = #fname,                                                                            \
        .help = help_text,                                                                         \
        .program = "flip",                                                                         \
        .kernels = kernels,                                                                        \
        .deep = 1,                                                                                 \
        .run = fname##_run,                                                                        \
        .reference = fname##_reference,                                                            \
    }

FLIP_FILTER(hflip, 1, 0, "mirror left-right (ffmpeg's hflip)");
FLIP_FILTER(vflip, 0, 1, "mirror top-bottom (ffmpeg's vflip)");
