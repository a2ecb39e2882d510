/* morph.c - erode and dilate: per-channel minimum / maximum of the
 * (2r+1)^2 window, applied `iterations` times, at 8 and 16 bits alike. */
#include "filters.h"

/* The parameters (erode's and dilate's), in the order of the table below. */
enum { MORPH_RADIUS, MORPH_ITERATIONS, MORPH_PARAM_COUNT };

typedef struct morph_state {
    cl_kernel kernel;
    cl_kernel fused; /* CPUs: one pass inside the conversions (morph_yuv) */
    clv__rows rows;  /* its strips */
} morph_state;

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    morph_state *s = state;
    int err = clv__kernel_create(prog, "morph", &s->kernel, msg);
    if (!err && ctx->row_shape && ctx->build_depth != 16) /* the conversions are 8-bit only */
        err = clv__kernel_create(prog, "morph_yuv", &s->fused, msg);
    return err;
}

static void uninit(void *state)
{
    morph_state *s = state;
    clv__kernel_release(&s->kernel);
    clv__kernel_release(&s->fused);
    clv__rows_release(&s->rows);
}

/* n passes alternate between dst and scratch so that the last lands in dst. */
static int run_passes(morph_state *s, const clv_launch *l, cl_int dilate)
{
    cl_int r = (cl_int)l->values[MORPH_RADIUS].i;
    int n = (int)l->values[MORPH_ITERATIONS].i;
    cl_mem in = l->src;
    for (int i = 0; i < n; i++) {
        int left = n - 1 - i; /* passes after this one */
        cl_mem out = left % 2 == 0 ? l->dst : l->scratch;
        clv_launch pass = *l;
        pass.src = in;
        pass.dst = out;
        int err = clv__kernel_frame_args(s->kernel, &pass);
        if (!err)
            err = clv__kernel_args(s->kernel, 5, 2, CLV__ARG(r), CLV__ARG(dilate));
        if (!err)
            err = clv__launch_pixels(&pass, s->kernel, l->width, l->height);
        if (err)
            return err;
        in = out;
    }
    return 0;
}

/* CPUs: a single pass inside the stage's conversions (cl/yuv.cl); more
 * passes run as before. */
static int run_yuv(morph_state *s, const clv_launch *l, const clv__yuv_io *io, cl_int dilate)
{
    cl_int r = (cl_int)l->values[MORPH_RADIUS].i;
    if (!s->fused || l->values[MORPH_ITERATIONS].i != 1)
        return 1;
    int err = clv__kernel_args(s->fused, CLV__FUSED_ARGS, 2, CLV__ARG(r), CLV__ARG(dilate));
    return err ? err : clv__run_fused(l, io, s->fused, r, &s->rows, dilate ? "dilate" : "erode");
}

/* At either depth. */
static void reference_pass(int radius, int dilate, const clv_image *src, clv_image *dst)
{
    for (int y = 0; y < src->height; y++) {
        for (int x = 0; x < src->width; x++) {
            int best[3];
            for (int c = 0; c < 3; c++)
                best[c] = dilate ? 0 : clv__maxv(src);
            for (int j = -radius; j <= radius; j++) {
                const int yy = clv__clamp(y + j, 0, src->height - 1);
                for (int i = -radius; i <= radius; i++) {
                    const int xx = clv__clamp(x + i, 0, src->width - 1);
                    for (int c = 0; c < 3; c++) {
                        int v = clv__get(src, xx, yy, c);
                        best[c] =
                            dilate ? (v > best[c] ? v : best[c]) : (v < best[c] ? v : best[c]);
                    }
                }
            }
            for (int c = 0; c < 3; c++)
                clv__put(dst, x, y, c, best[c]);
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    }
}

static int reference_passes(const clv_value *v, int dilate, const clv_image *src, clv_image *dst)
{
    int n = (int)v[MORPH_ITERATIONS].i;
    clv_image a = {0}, b = {0};
    if (n > 1 && (clv_image_alloc_depth(&a, src->width, src->height, clv__depth(src)) ||
                  clv_image_alloc_depth(&b, src->width, src->height, clv__depth(src)))) {
        clv_image_free(&a);
        return CLV_ENOMEM;
    }
    const clv_image *in = src;
    for (int i = 0; i < n; i++) {
        clv_image *out = i == n - 1 ? dst : (i % 2 ? &b : &a);
        reference_pass((int)v[MORPH_RADIUS].i, dilate, in, out);
        in = out;
    }
    clv_image_free(&a);
    clv_image_free(&b);
    return 0;
}

static const clv_param params[] = {
    {"radius", CLV_PARAM_INT, "1", 1, 7, NULL, "window of (2r+1) x (2r+1) pixels", 1},
    {"iterations", CLV_PARAM_INT, "1", 1, 16, NULL, "passes", 1},
};
_Static_assert(sizeof params / sizeof params[0] == MORPH_PARAM_COUNT,
               "morph: the enum and the params table differ");

/* Defines clv__filter_<fname>: erode and dilate differ only in
 * `dilate`, 0 or 1, an argument of the kernel and of the reference. */
#define MORPH_FILTER(fname, dilate, help_text)                                                     \
    static int run_##fname(void *state, const clv_launch *l)                                       \
    {                                                                                              \
        return run_passes(state, l, dilate);                                                       \
    }                                                                                              \
    static int run_yuv_##fname(void *state, const clv_launch *l, const clv__yuv_io *io)            \
    {                                                                                              \
        return run_yuv(state, l, io, dilate);                                                      \
    }                                                                                              \
    static int reference_##fname(void *ref_state, const clv_value *v, const clv_image *src,        \
                                 clv_image *dst, uint64_t frame_index)                             \
    {                                                                                              \
        (void)ref_state;                                                                           \
        (void)frame_index;                                                                         \
        return reference_passes(v, dilate, src, dst);                                              \
    }                                                                                              \
    const clv_filter clv__filter_##fname = {                                                       \
        .name = #fname,                                                                            \
        .help = help_text,                                                                         \
        .params = params,                                                                          \
        .param_count = MORPH_PARAM_COUNT,                                                          \
        .program = "morph",                                                                        \
        .needs_scratch = 1,                                                                        \
        .deep = 1,                                                                                 \
        .state_size = sizeof(morph_state),                                                         \
        .init = init,                                                                              \
        .uninit = uninit,                                                                          \
        .run = run_##fname,                                                                        \
        .run_yuv = run_yuv_##fname,                                                                \
        .reference = reference_##fname,                                                            \
    }

MORPH_FILTER(erode, 0, "per-channel minimum of the (2r+1) x (2r+1) window, n times");
MORPH_FILTER(dilate, 1, "per-channel maximum of the (2r+1) x (2r+1) window, n times");
