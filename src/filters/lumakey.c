/* lumakey.c - ffmpeg's lumakey (libavfilter/vf_lumakey.c), cl/lumakey.cl:
 * makes the pixels of a luma transparent; R, G and B unchanged.
 *
 * ffmpeg works on the Y plane of YUVA frames, which it makes from RGBA
 * with BT.601 limited range: so the luma here is ffmpeg's, not the
 * full-range luma of gray and threshold: each pixel's Y' of ycbcr.h (the
 * conversion ffmpeg makes, in clvid's fixed point) rounded to a code, 16-235
 * at 8 bits, the 8-bit code * 256 at 16 (as ffmpeg's 16-bit YUV); ffmpeg's
 * own conversion (swscale) rounds some codes the other way. Then ffmpeg's
 * integers exactly: white = (threshold + tolerance) * max, black =
 * (threshold - tolerance) * max (truncated, clipped to 0-max), so =
 * softness * max (max 255 or 65535); a luma in [black, white] gets alpha
 * 0, one within so of it max - (l - black + so) * max / so below and
 * (l - white) * max / so above, any other keeps its alpha (ffmpeg's
 * alpha plane, the input's). At 16 bits in 64-bit integers (ffmpeg's int
 * products overflow there for large softness). */
#include "ycbcr.h"

enum { LK_THRESHOLD, LK_TOLERANCE, LK_SOFTNESS, LK_PARAM_COUNT };

/* av_clip((double)x, 0, maxv) with C's truncation. */
static cl_int clip_level(double x, int maxv)
{
    int v = x > -2147483648.0 && x < 2147483648.0 ? (int)x : 0;
    return v < 0 ? 0 : v > maxv ? maxv : v;
}

/* black, white and so at a depth (vf_lumakey's config_input). */
static void levels(const clv_value *v, int depth, cl_int k[3])
{
    const int maxv = depth == 16 ? 65535 : 255;
    double threshold = v[LK_THRESHOLD].i / 1000.0, tolerance = v[LK_TOLERANCE].i / 1000.0;
    k[0] = clip_level((threshold - tolerance) * maxv, maxv);
    k[1] = clip_level((threshold + tolerance) * maxv, maxv);
    k[2] = (cl_int)(v[LK_SOFTNESS].i / 1000.0 * maxv);
}

typedef struct lumakey_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem ycc;
    int depth;
} lumakey_state;

static const char *const kernels[] = {"lumakey", NULL};

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    lumakey_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    clv__ycc m;
    clv__ycc_make(s->depth, &m);
    return clv__ycc_upload(ctx, &m, &s->ycc, "lumakey", msg);
}

static void uninit(void *state)
{
    lumakey_state *s = state;
    clv__mem_release(&s->ycc);
}

static int run(void *state, const clv_launch *l)
{
    lumakey_state *s = state;
    cl_int k[3];
    levels(l->values, s->depth, k);
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 4, CLV__ARG(s->ycc), CLV__ARG(k[0]), CLV__ARG(k[1]),
                               CLV__ARG(k[2]));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

static int reference(void *ref_state, const clv_value *values, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int depth = clv__depth(src), maxv = clv__maxv(src);
    cl_int k[3];
    levels(values, depth, k);
    const int64_t black = k[0], white = k[1], so = k[2];
    clv__ycc m;
    clv__ycc_make(depth, &m);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            int64_t c[3], a = clv__get(src, x, y, 3);
            for (int i = 0; i < 3; i++)
                clv__put(dst, x, y, i, clv__get(src, x, y, i));
            clv__ycc_from_rgb(&m, clv__get(src, x, y, 0), clv__get(src, x, y, 1),
                              clv__get(src, x, y, 2), c);
            int64_t l = (c[0] + 128) >> 8;
            if (l >= black && l <= white)
                a = 0;
            else if (l > black - so && l < white + so)
                a = l < black ? maxv - (l - black + so) * maxv / so : (l - white) * maxv / so;
            clv__put(dst, x, y, 3, (int)a);
        }
    return 0;
}

static const clv_param params[] = {
    {"threshold", CLV_PARAM_REAL, "0", 0, 1, NULL, "the luma keyed (0-1 of the code range)", 0.01},
    {"tolerance", CLV_PARAM_REAL, "0.01", 0, 1, NULL, "how far from threshold a luma is keyed",
     0.01},
    {"softness", CLV_PARAM_REAL, "0", 0, 1, NULL,
     "how far beyond that the alpha ramps back up (0: a hard edge)", 0.01},
};
_Static_assert(sizeof params / sizeof params[0] == LK_PARAM_COUNT,
               "lumakey: the enum and the params table differ");

const clv_filter clv__filter_lumakey = {
    .name = "lumakey",
    .help = "make a luma transparent (ffmpeg's lumakey, on BT.601 limited-range Y')",
    .params = params,
    .param_count = LK_PARAM_COUNT,
    .program = "lumakey",
    .kernels = kernels,
    .deep = 1,
    .state_size = sizeof(lumakey_state),
    .init = init,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
