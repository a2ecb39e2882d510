/* threshold.c - binary threshold on luma: gray(p) > t ? 255 : 0 on R,G,B. */
#include "filters.h"

/* The parameters, in the order of the table below. */
enum { THRESHOLD_T, THRESHOLD_PARAM_COUNT };

static const char *const kernels[] = {"threshold", NULL};

static int run(void *state, const clv_launch *l)
{
    cl_kernel kernel = *(cl_kernel *)state;
    cl_int t = (cl_int)l->values[THRESHOLD_T].i;
    int err = clv__kernel_frame_args(kernel, l);
    if (!err)
        err = clv__kernel_args(kernel, 5, 1, CLV__ARG(t));
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            const uint8_t *p = clv__px(src, x, y);
            uint8_t *o = clv__px_mut(dst, x, y);
            uint8_t b = clv__gray(p) > v[THRESHOLD_T].i ? 255 : 0;
            o[0] = o[1] = o[2] = b;
            o[3] = p[3];
        }
    return 0;
}

static const clv_param params[] = {
    {"t", CLV_PARAM_INT, "128", 0, 255, NULL, "luma above t becomes white, the rest black", 8},
};
_Static_assert(sizeof params / sizeof params[0] == THRESHOLD_PARAM_COUNT,
               "threshold: the enum and the params table differ");

const clv_filter clv__filter_threshold = {
    .name = "threshold",
    .help = "binary threshold on BT.601 luma: gray(p) > t ? 255 : 0",
    .params = params,
    .param_count = THRESHOLD_PARAM_COUNT,
    .program = "point",
    .kernels = kernels,
    .run = run,
    .reference = reference,
};
