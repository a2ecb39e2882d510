/* alphamerge.c - ffmpeg's alphamerge (vf_alphamerge): the second input's
 * luma becomes the first's alpha (cl/alphamerge.cl). ffmpeg converts the
 * alpha input to gray8 with swscale: here its integers (clv__gray_sws),
 * ffmpeg's bytes. Both inputs of one size (as ffmpeg requires). At 16 bits
 * the gray filter's formula on 0-65535. */
#include "filters.h"

#include <string.h>

enum { AM_EOF_ACTION, AM_SHORTEST, AM_REPEATLAST, AM_PARAM_COUNT };

static const char *const kernels[] = {"alphamerge", NULL};

static int run(void *state, const clv_launch *l)
{
    cl_kernel kernel = *(cl_kernel *)state;
    if (l->input_count < 2 || !l->inputs)
        return CLV_EINVAL;
    const clv_frame *al = &l->inputs[1];
    cl_int present = al->buffer != NULL, ds = l->out_stride, as = present ? al->stride : l->stride;
    int err = clv__kernel_frame_args(kernel, l);
    if (!err)
        err = clv__kernel_args(kernel, 5, 1, CLV__ARG(ds));
    if (!err && clv__kernel_mem_arg(kernel, 6, present ? al->buffer : l->src, NULL))
        err = CLV_ECL;
    if (!err)
        err = clv__kernel_args(kernel, 7, 2, CLV__ARG(as), CLV__ARG(present));
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

static int reference_n(void *ref_state, const clv_value *v, const clv_image *src, int n,
                       clv_image *dst, uint64_t frame_index, double time)
{
    (void)ref_state;
    (void)v;
    (void)frame_index;
    (void)time;
    const clv_image *al = n > 1 && src[1].pixels ? &src[1] : NULL;
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++) {
            for (int c = 0; c < 3; c++)
                clv__put(dst, x, y, c, clv__get(&src[0], x, y, c));
            clv__put(dst, x, y, 3,
                     !al ? clv__get(&src[0], x, y, 3)
                     : clv__depth(al) == 16
                         ? clv__luma_at(al, x, y)
                         : clv__gray_sws(clv__get(al, x, y, 0), clv__get(al, x, y, 1),
                                         clv__get(al, x, y, 2)));
        }
    return 0;
}

static int output_size_n(const clv_value *v, const clv_size *in, int n, clv_size *out, clv_msg *msg)
{
    (void)v;
    return clv__same_size2("alphamerge", "alpha", "main", in, n, out, msg);
}

static clv_eof_action eof_action(const clv_value *v)
{
    return clv__framesync_eof((int)v[AM_EOF_ACTION].i, (int)v[AM_SHORTEST].i,
                              (int)v[AM_REPEATLAST].i);
}

static const clv_param params[] = {
    {"eof_action", CLV_PARAM_ENUM, "repeat", 0, 2, "repeat|endall|pass",
     "when the alpha input ends: keep its last frame, end the output, or pass the main", 1},
    {"shortest", CLV_PARAM_INT, "0", 0, 1, NULL, "1: end when the alpha input ends (endall)", 1},
    {"repeatlast", CLV_PARAM_INT, "1", 0, 1, NULL, "0: pass the main after the alpha input ends",
     1},
};
_Static_assert(sizeof params / sizeof params[0] == AM_PARAM_COUNT,
               "alphamerge: the enum and the params table differ");

const clv_filter clv__filter_alphamerge = {
    .timeline = 1, /* ffmpeg's enable= */
    .name = "alphamerge",
    .help = "the second input's luma as the first's alpha (ffmpeg's alphamerge)",
    .params = params,
    .param_count = AM_PARAM_COUNT,
    .program = "alphamerge",
    .kernels = kernels,
    .deep = 1,
    .run = run,
    .inputs = 2,
    .output_size_n = output_size_n,
    .reference_n = reference_n,
    .eof_action = eof_action,
    .wait_first = 0,
};
