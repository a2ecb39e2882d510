/* negate.c - ffmpeg's negate: the channels of `components` become
 * max - v (255 - v, 65535 - v at 16 bits), alpha too with negate_alpha
 * (cl/channels.cl). ffmpeg's y, u and v name planes of Y'CbCr frames,
 * which clvid's filters never see: on RGBA, as ffmpeg on RGB, only r, g,
 * b and a count, and a set of none of them is refused as ffmpeg refuses
 * it ("Requested components not available"). On ffmpeg's RGB frames the
 * output is the same bytes; on its Y'CbCr frames ffmpeg negates Y, Cb and
 * Cr instead, 255 - Y (docs/filters.md says what that differs by). */
#include "filters.h"

enum { NEGATE_COMPONENTS, NEGATE_ALPHA, NEGATE_PARAM_COUNT };
/* The bits of `components`, in its choices' order. */
enum { C_Y = 1, C_U = 2, C_V = 4, C_R = 8, C_G = 16, C_B = 32, C_A = 64 };

static const char *const kernels[] = {"negate", NULL};

static void mask_of(const clv_value *v, int mask[4])
{
    int64_t c = v[NEGATE_COMPONENTS].i;
    mask[0] = (c & C_R) != 0;
    mask[1] = (c & C_G) != 0;
    mask[2] = (c & C_B) != 0;
    mask[3] = (c & C_A) != 0 || v[NEGATE_ALPHA].i != 0;
}

static int check(const clv_value *v, clv_msg *msg)
{
    int mask[4];
    mask_of(v, mask);
    if (!(v[NEGATE_COMPONENTS].i & (C_R | C_G | C_B | C_A)) && !mask[3])
        return clv__fail(msg, CLV_EPARSE,
                         "components: none of r, g, b, a (y, u and v name planes of Y'CbCr "
                         "frames; clvid's filters work on RGBA; ffmpeg on RGB: \"Requested "
                         "components not available\")");
    return 0;
}

static int run(void *state, const clv_launch *l)
{
    cl_kernel kernel = *(cl_kernel *)state;
    int m[4];
    mask_of(l->values, m);
    cl_int4 mask = {{m[0], m[1], m[2], m[3]}};
    int err = clv__kernel_frame_args(kernel, l);
    if (!err)
        err = clv__kernel_args(kernel, 5, 1, CLV__ARG(mask));
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    int mask[4], maxv = clv__maxv(src);
    mask_of(v, mask);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < 4; c++) {
                int p = clv__get(src, x, y, c);
                clv__put(dst, x, y, c, mask[c] ? maxv - p : p);
            }
    return 0;
}

static const clv_param params[] = {
    {"components", CLV_PARAM_FLAGS, "y+u+v+r+g+b", 0, 0, "y|u|v|r|g|b|a",
     "the channels to negate, joined by +: r, g, b, a (y, u, v: planes of Y'CbCr frames, none "
     "here)",
     0},
    {"negate_alpha", CLV_PARAM_INT, "0", 0, 1, NULL, "negate alpha too", 1},
};
_Static_assert(sizeof params / sizeof params[0] == NEGATE_PARAM_COUNT,
               "negate: the enum and the params table differ");

const clv_filter clv__filter_negate = {
    .name = "negate",
    .help = "negate the colour channels, max - v (ffmpeg's negate; alpha with negate_alpha)",
    .params = params,
    .param_count = NEGATE_PARAM_COUNT,
    .check = check,
    .program = "channels",
    .kernels = kernels,
    .deep = 1,
    .run = run,
    .reference = reference,
};
