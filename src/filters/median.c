/* median.c - per-channel median of the (2r+1)^2 window. */
#include "filters.h"

#include <string.h>

typedef struct median_state {
    cl_kernel k3, k5, k7, radix;
} median_state;

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)ctx;
    median_state *s = state;
    int err = clv__kernel_create(prog, "median3", &s->k3, msg);
    if (!err)
        err = clv__kernel_create(prog, "median5", &s->k5, msg);
    if (!err)
        err = clv__kernel_create(prog, "median7", &s->k7, msg);
    return err ? err : clv__kernel_create(prog, "median_radix", &s->radix, msg);
}

static void uninit(void *state)
{
    median_state *s = state;
    clv__kernel_release(&s->k3);
    clv__kernel_release(&s->k5);
    clv__kernel_release(&s->k7);
    clv__kernel_release(&s->radix);
}

static int run(void *state, const clv_launch *l)
{
    median_state *s = state;
    cl_int r = (cl_int)l->values[0].i;
    /* 7x7 on GPUs by shared sorted columns; on CPUs (and larger windows)
     * by counting, whose byte loops vectorize. */
    cl_kernel k = r == 1 ? s->k3 : r == 2 ? s->k5 : r == 3 && !l->ctx->row_shape ? s->k7 : s->radix;
    int err = clv__kernel_frame_args(k, l);
    if (!err && k == s->radix)
        err = clv__kernel_args(k, 5, 1, CLV__ARG(r));
    if (err)
        return err;
    /* The GPU shape's 3x3 and 5x5 make two rows a work-item. */
    return k == s->k3 || k == s->k5 ? clv__launch_pixel_pairs(l, k)
                                    : clv__launch_pixels(l, k, l->width, l->height);
}

/* The median by counting: the smallest v with more than n/2 values <= v. */
static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    int r = (int)v[0].i, half = (2 * r + 1) * (2 * r + 1) / 2;
    for (int y = 0; y < src->height; y++) {
        for (int x = 0; x < src->width; x++) {
            uint8_t *o = clv__px_mut(dst, x, y);
            for (int c = 0; c < 3; c++) {
                int count[256];
                memset(count, 0, sizeof count);
                for (int j = -r; j <= r; j++)
                    for (int i = -r; i <= r; i++)
                        count[clv__px_clamped(src, x + i, y + j)[c]]++;
                int m = 0, seen = count[0];
                while (seen <= half)
                    seen += count[++m];
                o[c] = (uint8_t)m;
            }
            o[3] = clv__px(src, x, y)[3];
        }
    }
    return 0;
}

static const clv_param params[] = {
    {"radius", CLV_PARAM_INT, "1", 1, 7, NULL, "window of (2r+1) x (2r+1) pixels", 1},
};

const clv_filter clv__filter_median = {
    .name = "median",
    .help = "per-channel median of the (2r+1) x (2r+1) window",
    .params = params,
    .param_count = 1,
    .program = "median",
    .state_size = sizeof(median_state),
    .init = init,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
