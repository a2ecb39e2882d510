/* stack.c - hstack and vstack, as ffmpeg's (vf_stack): the inputs side by
 * side, left to right (hstack) or top to bottom (vstack), each copied
 * unchanged (cl/stack.cl); their heights (widths) must match. At 8 and 16
 * bits alike. */
#include "filters.h"

#include <math.h>

enum { STACK_INPUTS, STACK_SHORTEST };

static const clv_param params[] = {
    {"inputs", CLV_PARAM_INT, "2", 2, CLV_GRAPH_PADS, NULL, "number of inputs", 0},
    {"shortest", CLV_PARAM_INT, "0", 0, 1, NULL,
     "1: the output ends with the shortest input; 0: the others repeat their last frame", 0},
};

static const char *const kernels[] = {"stack_place", NULL};

/* vf_stack's config_output: the sum of the widths (heights), input 0's
 * height (width) and aspect; every other input of that height (width). */
static int stack_size(int vertical, const clv_size *in, int n, clv_size *out, clv_msg *msg)
{
    *out = in[0];
    for (int i = 1; i < n; i++) {
        int want = vertical ? in[0].width : in[0].height,
            got = vertical ? in[i].width : in[i].height;
        if (got != want)
            return clv__fail(msg, CLV_ERANGE,
                             "input %d is %dx%d and input 0 %dx%d: their %s must match", i,
                             in[i].width, in[i].height, in[0].width, in[0].height,
                             vertical ? "widths" : "heights");
        if (vertical)
            out->height += in[i].height;
        else
            out->width += in[i].width;
    }
    if ((vertical ? out->height : out->width) > CLV__SIDE_MAX)
        return clv__fail(msg, CLV_ERANGE, "the %s of %d inputs add up to %d (at most %d)",
                         vertical ? "heights" : "widths", n, vertical ? out->height : out->width,
                         CLV__SIDE_MAX);
    return 0;
}

static int stack_run(void *state, const clv_launch *l, int vertical)
{
    cl_kernel kernel = *(cl_kernel *)state;
    int at = 0, err = 0;
    for (int i = 0; i < l->input_count && !err; i++) {
        const clv_frame *in = &l->inputs[i];
        clv_launch one = *l;
        one.src = in->buffer;
        one.width = in->width;
        one.height = in->height;
        one.stride = in->stride;
        cl_int x0 = vertical ? 0 : at, y0 = vertical ? at : 0, ostride = l->out_stride;
        err = clv__kernel_frame_args(kernel, &one);
        if (!err)
            err = clv__kernel_args(kernel, 5, 3, CLV__ARG(ostride), CLV__ARG(x0), CLV__ARG(y0));
        if (!err)
            err = clv__launch_pixels(&one, kernel, in->width + (x0 & 3), in->height);
        at += vertical ? in->height : in->width;
    }
    return err;
}

static int stack_reference(const clv_image *src, int n, clv_image *dst, int vertical)
{
    int at = 0;
    for (int i = 0; i < n; i++) {
        for (int y = 0; y < src[i].height; y++)
            for (int x = 0; x < src[i].width; x++)
                for (int c = 0; c < 4; c++)
                    clv__put(dst, vertical ? x : x + at, vertical ? y + at : y, c,
                             clv__get(&src[i], x, y, c));
        at += vertical ? src[i].height : src[i].width;
    }
    return 0;
}

/* shortest=1: the output ends with any input (framesync's EXT_STOP after);
 * else an input that ended repeats its last frame (EXT_INFINITY). */
static clv_eof_action stack_eof(const clv_value *v)
{
    return v[STACK_SHORTEST].i ? CLV_EOF_ENDALL : CLV_EOF_REPEAT;
}

/* Defines the descriptor clv__filter_<fname> of one direction. */
#define STACK_FILTER(fname, vertical, help_text)                                                   \
    static int fname##_size(const clv_value *v, const clv_size *in, int n, clv_size *out,          \
                            clv_msg *msg)                                                          \
    {                                                                                              \
        (void)v;                                                                                   \
        return stack_size(vertical, in, n, out, msg);                                              \
    }                                                                                              \
    static int fname##_run(void *state, const clv_launch *l)                                       \
    {                                                                                              \
        return stack_run(state, l, vertical);                                                      \
    }                                                                                              \
    static int fname##_reference(void *ref_state, const clv_value *v, const clv_image *src, int n, \
                                 clv_image *dst, uint64_t frame_index, double time)                \
    {                                                                                              \
        (void)ref_state;                                                                           \
        (void)v;                                                                                   \
        (void)frame_index;                                                                         \
        (void)time;                                                                                \
        return stack_reference(src, n, dst, vertical);                                             \
    }                                                                                              \
    const clv_filter clv__filter_##fname = {                                                       \
        .name = #fname,                                                                            \
        .help = help_text,                                                                         \
        .params = params,                                                                          \
        .param_count = 2,                                                                          \
        .program = "stack",                                                                        \
        .kernels = kernels,                                                                        \
        .deep = 1,                                                                                 \
        .run = fname##_run,                                                                        \
        .inputs_param = "inputs",                                                                  \
        .output_size_n = fname##_size,                                                             \
        .reference_n = fname##_reference,                                                          \
        .eof_action = stack_eof,                                                                   \
        .wait_first = 1,                                                                           \
    }

STACK_FILTER(hstack, 0,
             "the inputs side by side, left to right; heights must match (ffmpeg's "
             "hstack)");
STACK_FILTER(vstack, 1,
             "the inputs one above the other, top to bottom; widths must match "
             "(ffmpeg's vstack)");
