/* transpose.c - ffmpeg's transpose (vf_transpose): rows become columns,
 * turned a quarter clockwise or counter-clockwise, with or without a flip
 * (cl/transpose.cl); passthrough keeps pictures already of the shape asked
 * for. The aspect turns with the picture. At 16 bits the same moves of
 * RGBA16 pixels, as vf_transpose makes them on rgba64. */
#include "filters.h"

enum { TRANSPOSE_DIR, TRANSPOSE_PASSTHROUGH, TRANSPOSE_PARAM_COUNT };

/* dir's words, then ffmpeg's numbers 0-7 (its option is an int with named
 * constants); 4-7 are its deprecated forms: dir & 3 with passthrough
 * landscape. */
#define DIR_CHOICES "cclock_flip|clock|cclock|clock_flip|0|1|2|3|4|5|6|7"
/* passthrough's words in the order of ffmpeg's numbers (TRANSPOSE_PT_TYPE_*),
 * so passthrough=1 is landscape as there. */
enum { PT_NONE, PT_LANDSCAPE, PT_PORTRAIT };

static const char *const kernels[] = {"transpose", NULL};

/* vf_transpose's direction (0-3; bit 0: the rows taken bottom up, bit 1:
 * the output's rows written bottom up) and passthrough of the values. */
static void direction(const clv_value *v, int *dir, int *passthrough)
{
    int d = (int)v[TRANSPOSE_DIR].i;
    d = d < 4 ? d : d - 4; /* a number: 0-7 */
    *passthrough = (int)v[TRANSPOSE_PASSTHROUGH].i;
    if (d & 4) {
        d &= 3;
        *passthrough = PT_LANDSCAPE;
    }
    *dir = d;
}

/* 1 when frames of w x h pass unchanged. */
static int passes(const clv_value *v, int w, int h)
{
    int dir, pt;
    direction(v, &dir, &pt);
    return (w >= h && pt == PT_LANDSCAPE) || (w <= h && pt == PT_PORTRAIT);
}

static int output_size(const clv_value *v, const clv_size *in, clv_size *out, clv_msg *msg)
{
    (void)msg;
    if (passes(v, in->width, in->height))
        return 0;
    out->width = in->height;
    out->height = in->width;
    if (in->sar_num > 0 && in->sar_den > 0) {
        out->sar_num = in->sar_den;
        out->sar_den = in->sar_num;
    }
    return 0;
}

static int run(void *state, const clv_launch *l)
{
    cl_kernel kernel = *(cl_kernel *)state;
    int dir, pt;
    direction(l->values, &dir, &pt);
    cl_int turn = !passes(l->values, l->width, l->height), rows_up = dir & 1,
           out_up = (dir >> 1) & 1;
    cl_int ow = l->out_width, oh = l->out_height, os = l->out_stride;
    int err = clv__kernel_frame_args(kernel, l);
    if (!err)
        err = clv__kernel_args(kernel, 5, 6, CLV__ARG(ow), CLV__ARG(oh), CLV__ARG(os),
                               CLV__ARG(turn), CLV__ARG(rows_up), CLV__ARG(out_up));
    return err ? err : clv__launch_pixels(l, kernel, ow, oh);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    int dir, pt;
    direction(v, &dir, &pt);
    const int turn = !passes(v, src->width, src->height);
    /* vf_transpose's filter_slice: output row y is input column y (read
     * bottom up for dir & 1); dir & 2 writes the rows bottom up. */
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++) {
            int sx = x, sy = y;
            if (turn) {
                sx = dir & 2 ? dst->height - 1 - y : y;
                sy = dir & 1 ? src->height - 1 - x : x;
            }
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c, clv__get(src, sx, sy, c));
        }
    return 0;
}

static const clv_param params[] = {
    {"dir", CLV_PARAM_ENUM, "cclock_flip", 0, 0, DIR_CHOICES,
     "cclock_flip (transpose), clock, cclock, clock_flip; or ffmpeg's 0-3 (4-7: the same "
     "with passthrough=landscape)",
     1},
    {"passthrough", CLV_PARAM_ENUM, "none", 0, 2, "none|landscape|portrait",
     "leave pictures already of this shape (w >= h, w <= h) as they are", 1},
};
_Static_assert(sizeof params / sizeof params[0] == TRANSPOSE_PARAM_COUNT,
               "transpose: the enum and the params table differ");

const clv_filter clv__filter_transpose = {
    .name = "transpose",
    .help = "rows become columns, turned a quarter and/or flipped (ffmpeg's transpose)",
    .params = params,
    .param_count = TRANSPOSE_PARAM_COUNT,
    .program = "transpose",
    .output_size = output_size,
    .kernels = kernels,
    .deep = 1,
    .run = run,
    .reference = reference,
};
