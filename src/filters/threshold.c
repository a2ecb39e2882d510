/* threshold.c - binary threshold on luma: gray(p) > t ? 255 : 0 on R,G,B
 * (gray.c's run and reference of the filters on luma).
 *
 * At 16 bits t stays on the 8-bit scale and the test reads
 * gray16(p) > 257 t + 128 ? 65535 : 0, i.e. gray16 rounded to the 8-bit
 * scale, floor((gray16 + 128) / 257), is above t. 257 t + 128.5 is the
 * 16-bit image of t + 0.5, where the 8-bit luma rounds up past t: on a
 * 16-bit frame of 8-bit values (v * 257) the output is exactly 257 times
 * the 8-bit output (gray16 >= 257 t + 129 and gray8 >= t + 1 both read
 * 9798 R + 19235 G + 3735 B >= 32768 t + 16384). */
#include "filters.h"

/* The parameters, in the order of the table below. */
enum { THRESHOLD_T, THRESHOLD_PARAM_COUNT };

static const char *const kernels[] = {"threshold", NULL};

static int run(void *state, const clv_launch *l)
{
    cl_int t = (cl_int)l->values[THRESHOLD_T].i;
    if (l->depth == 16)
        t = t * 257 + 128;
    return clv__luma_run(state, l, &t, 1);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    int t = (int)v[THRESHOLD_T].i;
    clv__luma_reference(clv__depth(src) == 16 ? t * 257 + 128 : t, src, dst);
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
    .deep = 1,
    .run = run,
    .reference = reference,
};
