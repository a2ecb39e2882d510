/* prewitt.c - Prewitt edge magnitude: per R,G,B
 * clamp(floor(sqrt(gx^2 + gy^2) * scale) + delta), exact in integers, at 8
 * and 16 bits (delta on the 8-bit scale: times 257). */
#include "filters.h"

typedef struct prewitt_state {
    cl_kernel general, unit; /* unit: scale = 1, compiled without the general path */
    cl_kernel fused;         /* CPUs at 8 bits: any scale inside the conversions (prewitt_yuv) */
    clv__rows rows;          /* its strips */
} prewitt_state;

/* scale is kept in thousandths: scale = p / 1000 (PREWITT_Q in cl/prewitt.cl). */
#define PREWITT_Q 1000u

/* The parameters, in the order of the table below. */
enum { PREWITT_SCALE, PREWITT_DELTA, PREWITT_PARAM_COUNT };

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    prewitt_state *s = state;
    int err = clv__kernel_create(prog, "prewitt", &s->general, msg);
    if (!err && ctx->row_shape && ctx->build_depth != 16) /* the stage fuses 8 bits only */
        err = clv__kernel_create(prog, "prewitt_yuv", &s->fused, msg);
    /* NVIDIA sm_80+, GPU shape, 8 bits: the scale = 1 kernel from a build
     * capped at 56 registers, so that nine groups of 128 fit an SM where 64
     * registers let eight (H200, 4K: 27.5 -> 26.2 us; docs/performance.md). */
    if (!err && !ctx->row_shape && ctx->nv_sm >= 80 && ctx->build_depth != 16) {
        cl_program capped = NULL;
        clv_msg ignored = {0};
        if (!clv__program_variant(ctx, "prewitt", "-cl-nv-maxrregcount=56", &capped, &ignored))
            prog = capped; /* a driver that refuses the option: the program as built */
    }
    return err ? err : clv__kernel_create(prog, "prewitt_unit", &s->unit, msg);
}

static void uninit(void *state)
{
    prewitt_state *s = state;
    clv__kernel_release(&s->general);
    clv__kernel_release(&s->unit);
    clv__kernel_release(&s->fused);
    clv__rows_release(&s->rows);
}

static int run(void *state, const clv_launch *l)
{
    prewitt_state *s = state;
    cl_ulong p = (cl_ulong)l->values[PREWITT_SCALE].i, p2 = p * p;
    cl_int delta = (cl_int)l->values[PREWITT_DELTA].i;
    cl_kernel k = p == PREWITT_Q ? s->unit : s->general;
    int err = clv__kernel_frame_args(k, l);
    if (!err)
        err = clv__kernel_args(k, 5, 2, CLV__ARG(p2), CLV__ARG(delta));
    if (err)
        return err;
    /* The GPU shape's scale = 1 kernel makes two rows a work-item. */
    return k == s->unit ? clv__launch_pixel_pairs(l, k)
                        : clv__launch_pixels(l, k, l->width, l->height);
}

/* CPUs: inside the stage's conversions (cl/yuv.cl). */
static int run_yuv(void *state, const clv_launch *l, const clv__yuv_io *io)
{
    prewitt_state *s = state;
    cl_ulong p = (cl_ulong)l->values[PREWITT_SCALE].i, p2 = p * p;
    cl_int delta = (cl_int)l->values[PREWITT_DELTA].i;
    if (!s->fused)
        return 1;
    int err = clv__kernel_args(s->fused, CLV__FUSED_ARGS, 2, CLV__ARG(p2), CLV__ARG(delta));
    return err ? err : clv__run_fused(l, io, s->fused, 1, &s->rows, "prewitt");
}

/* A magnitude of 2 * maxv + 1 or more (511, 131071) saturates any delta, so
 * m * p^2 is formed only where it is at most (that * 1000)^2, within 64 bits
 * at 16 bits too (m reaches 2 * (3 * 65535)^2, p^2 4.1e9). */
static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    uint64_t p = (uint64_t)v[PREWITT_SCALE].i, p2 = p * p;
    int delta = clv__scale8(src, (int)v[PREWITT_DELTA].i), maxv = clv__maxv(src);
    uint64_t cap = 2 * (uint64_t)maxv + 1, x_cap = (cap * PREWITT_Q) * (cap * PREWITT_Q);
    for (int y = 0; y < src->height; y++) {
        for (int x = 0; x < src->width; x++) {
            for (int c = 0; c < 3; c++) {
                int64_t gx = 0, gy = 0;
                for (int k = -1; k <= 1; k++) {
                    gx += clv__get_clamped(src, x + 1, y + k, c) -
                          clv__get_clamped(src, x - 1, y + k, c);
                    gy += clv__get_clamped(src, x + k, y + 1, c) -
                          clv__get_clamped(src, x + k, y - 1, c);
                }
                uint64_t m = (uint64_t)(gx * gx + gy * gy);
                uint64_t mag = p2 && m > x_cap / p2 ? cap : clv__isqrt64(m * p2) / PREWITT_Q;
                if (mag > cap)
                    mag = cap;
                clv__put(dst, x, y, c, clv__clamp((int)mag + delta, 0, maxv));
            }
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    }
    return 0;
}

static const clv_param params[] = {
    {"scale", CLV_PARAM_REAL, "1", 0, 64, NULL, "multiplies the magnitude (to 1/1000)", 0.25},
    {"delta", CLV_PARAM_INT, "0", -255, 255, NULL, "added to the scaled magnitude", 1},
};
_Static_assert(sizeof params / sizeof params[0] == PREWITT_PARAM_COUNT,
               "prewitt: the enum and the params table differ");

const clv_filter clv__filter_prewitt = {
    .name = "prewitt",
    .help = "Prewitt edges: clamp(floor(sqrt(gx^2 + gy^2) * scale) + delta) per R,G,B",
    .params = params,
    .param_count = PREWITT_PARAM_COUNT,
    .program = "prewitt",
    .state_size = sizeof(prewitt_state),
    .deep = 1,
    .init = init,
    .uninit = uninit,
    .run = run,
    .run_yuv = run_yuv,
    .reference = reference,
};
