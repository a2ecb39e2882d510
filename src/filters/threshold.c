/* threshold.c - binary threshold on luma: gray(p) > t ? 255 : 0 on R,G,B
 * (gray.c's run and reference of the filters on luma). */
#include "filters.h"

/* The parameters, in the order of the table below. */
enum { THRESHOLD_T, THRESHOLD_PARAM_COUNT };

static const char *const kernels[] = {"threshold", NULL};

static int run(void *state, const clv_launch *l)
{
    cl_int t = (cl_int)l->values[THRESHOLD_T].i;
    return clv__luma_run(state, l, &t, 1);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    uint8_t level[256];
    for (int g = 0; g < 256; g++)
        level[g] = g > v[THRESHOLD_T].i ? 255 : 0;
    clv__luma_reference(level, src, dst);
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
