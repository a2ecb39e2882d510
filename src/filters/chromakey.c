/* chromakey.c - ffmpeg's chromakey (libavfilter/vf_chromakey.c),
 * cl/chromakey.cl: the alpha of each pixel from the distance of the Cb, Cr
 * around it to the key's; R, G and B unchanged, the alpha replaced.
 *
 * ffmpeg works on YUVA frames: on RGBA input it converts to YUVA (BT.601
 * limited range) and back, so its R, G and B come back through that round
 * trip; here they pass unchanged, and each pixel's Cb and Cr are those of
 * ycbcr.h (the conversion ffmpeg makes, in clvid's fixed point) rounded to
 * codes (16-bit codes at 16 bits: the 8-bit code * 256, as ffmpeg's 16-bit
 * YUV). The key's U, V are ffmpeg's: its own full-range integer formula
 * (RGB_TO_U, RGB_TO_V) on the colour, or with yuv=1 the colour's green and
 * blue bytes as U and V; * 256 at 16 bits.
 *
 * ffmpeg: diff = the mean over the 3x3 neighbourhood of
 * sqrt((du^2 + dv^2) / (max^2 * 2)) (max = 255 at 8 bits, 65535 at 16);
 * blend > 0.0001: alpha = (int)(clip((diff - similarity) / blend, 0, 1) *
 * max), else max where diff > similarity, else 0. Here each root is
 * floor(sqrt(du^2 + dv^2) * 2^F) (F = 16 at 8 bits, 10 at 16), exact
 * integers, their sum S the distance, and the alpha a level of the host's
 * table built with ffmpeg's formula on S / 2^F (keys.h): within one level
 * of ffmpeg's where its doubles round otherwise. Outside the frame the
 * neighbours are the key (distance 0): ffmpeg starts from the key there and
 * then keeps the last neighbour it read (its output at the left, right and
 * bottom edges depends on its slices); the top row is the same. */
#include "keys.h"
#include "ycbcr.h"

#include <math.h>
#include <stdlib.h>

enum { CHK_COLOR, CHK_SIMILARITY, CHK_BLEND, CHK_YUV, CHK_PARAM_COUNT };

typedef struct chromakey_curve {
    double similarity, blend, unit; /* unit: S / unit is the sum of ffmpeg's roots */
    int maxv;
} chromakey_curve;

static int curve_alpha(const void *arg, int64_t d)
{
    const chromakey_curve *c = arg;
    double diff = (double)d / c->unit / 9.0;
    if (c->blend > 0.0001) {
        double v = (diff - c->similarity) / c->blend;
        return (int)((v > 1.0 ? 1.0 : v < 0.0 ? 0.0 : v) * c->maxv);
    }
    return diff > c->similarity ? c->maxv : 0;
}

static double curve_guess(const void *arg, int k)
{
    const chromakey_curve *c = arg;
    double diff = c->similarity + (c->blend > 0.0001 ? k * c->blend / c->maxv : 0);
    return diff * 9.0 * c->unit;
}

static int frac_bits(int depth)
{
    return depth == 16 ? 10 : 16;
}

/* The table of levels of values v at a depth, maxv + 1 entries. */
static void levels(const clv_value *v, int depth, cl_long *t)
{
    chromakey_curve c;
    c.similarity = (float)(v[CHK_SIMILARITY].i / 1000.0);
    c.blend = (float)(v[CHK_BLEND].i / 1000.0);
    c.maxv = depth == 16 ? 65535 : 255;
    c.unit = ldexp(c.maxv * sqrt(2.0), frac_bits(depth));
    clv__key_curve kc = {curve_alpha, curve_guess, &c};
    clv__key_levels(&kc, c.maxv, (int64_t)(9 * ceil(c.unit)), t);
}

/* The key's U and V codes at a depth (vf_chromakey's config_output). */
static void key_of(const clv_value *v, int depth, cl_int uv[2])
{
    uint32_t c = (uint32_t)v[CHK_COLOR].i;
    int r = (int)(c >> 24), g = (int)(c >> 16) & 255, b = (int)(c >> 8) & 255;
    int factor = depth == 16 ? 256 : 1;
    if (v[CHK_YUV].i) {
        uv[0] = g * factor;
        uv[1] = b * factor;
        return;
    }
#define FIXNUM(x) lrint((x) * (1 << 10))
    uv[0] =
        (int)(((-FIXNUM(0.16874) * r - FIXNUM(0.33126) * g + FIXNUM(0.50000) * b + (1 << 9) - 1) >>
               10) +
              128) *
        factor;
    uv[1] =
        (int)(((FIXNUM(0.50000) * r - FIXNUM(0.41869) * g - FIXNUM(0.08131) * b + (1 << 9) - 1) >>
               10) +
              128) *
        factor;
#undef FIXNUM
}

typedef struct chromakey_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem ycc, levels;
    int depth;
    cl_int key[2];
} chromakey_state;

static const char *const kernels[] = {"chromakey", NULL};

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    chromakey_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    clv__ycc m;
    clv__ycc_make(s->depth, &m);
    return clv__ycc_upload(ctx, &m, &s->ycc, "chromakey", msg);
}

static void uninit(void *state)
{
    chromakey_state *s = state;
    clv__mem_release(&s->ycc);
    clv__mem_release(&s->levels);
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    chromakey_state *s = state;
    int maxv = s->depth == 16 ? 65535 : 255;
    cl_long *t = malloc((size_t)(maxv + 1) * sizeof *t);
    if (!t)
        return clv__fail(msg, CLV_ENOMEM, "chromakey: out of memory for its table of levels");
    levels(values, s->depth, t);
    int err = clv__key_upload(ctx, t, maxv, &s->levels, "chromakey", msg);
    free(t);
    key_of(values, s->depth, s->key);
    return err;
}

static int run(void *state, const clv_launch *l)
{
    chromakey_state *s = state;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 4, CLV__ARG(s->ycc), CLV__ARG(s->levels),
                               CLV__ARG(s->key[0]), CLV__ARG(s->key[1]));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

/* floor(sqrt(x)) */
static int64_t isqrt64(uint64_t x)
{
    uint64_t r = (uint64_t)sqrt((double)x);
    while (r * r > x)
        r--;
    while ((r + 1) * (r + 1) <= x)
        r++;
    return (int64_t)r;
}

static int reference(void *ref_state, const clv_value *values, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int depth = clv__depth(src), maxv = clv__maxv(src), w = src->width, h = src->height;
    cl_long *t = malloc((size_t)(maxv + 1) * sizeof *t);
    int64_t *uv = malloc((size_t)w * (size_t)h * 2 * sizeof *uv);
    if (!t || !uv) {
        free(t);
        free(uv);
        return CLV_ENOMEM;
    }
    levels(values, depth, t);
    cl_int key[2];
    key_of(values, depth, key);
    clv__ycc m;
    clv__ycc_make(depth, &m);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int64_t c[3];
            clv__ycc_from_rgb(&m, clv__get(src, x, y, 0), clv__get(src, x, y, 1),
                              clv__get(src, x, y, 2), c);
            uv[2 * ((size_t)y * w + x)] = (c[1] + 128) >> 8;
            uv[2 * ((size_t)y * w + x) + 1] = (c[2] + 128) >> 8;
        }
    const int f = frac_bits(depth);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int64_t s = 0;
            for (int yy = y - 1; yy <= y + 1; yy++)
                for (int xx = x - 1; xx <= x + 1; xx++) {
                    if (xx < 0 || xx >= w || yy < 0 || yy >= h)
                        continue;
                    const int64_t *p = uv + 2 * ((size_t)yy * w + xx);
                    int64_t du = p[0] - key[0], dv = p[1] - key[1];
                    s += isqrt64((uint64_t)(du * du + dv * dv) << (2 * f));
                }
            for (int i = 0; i < 3; i++)
                clv__put(dst, x, y, i, clv__get(src, x, y, i));
            clv__put(dst, x, y, 3, clv__key_level(t, maxv, s));
        }
    free(t);
    free(uv);
    return 0;
}

static const clv_param params[] = {
    {"color", CLV_PARAM_COLOR, "black", 0, 0, NULL, "the key colour, which becomes transparent", 0},
    {"similarity", CLV_PARAM_REAL, "0.01", 0.01, 1, NULL,
     "how far from the key a colour is still keyed (distance 0-1 in Cb, Cr)", 0.01},
    {"blend", CLV_PARAM_REAL, "0", 0, 1, NULL,
     "0: a colour is keyed or not; more: the alpha rises over this much distance", 0.01},
    {"yuv", CLV_PARAM_INT, "0", 0, 1, NULL, "1: the colour's bytes are Y, U, V, not R, G, B", 1},
};
_Static_assert(sizeof params / sizeof params[0] == CHK_PARAM_COUNT,
               "chromakey: the enum and the params table differ");

const clv_filter clv__filter_chromakey = {
    .name = "chromakey",
    .help = "make a colour transparent (ffmpeg's chromakey: alpha from the Cb, Cr distance "
            "to the key, over 3x3)",
    .params = params,
    .param_count = CHK_PARAM_COUNT,
    .program = "chromakey",
    .kernels = kernels,
    .deep = 1,
    .state_size = sizeof(chromakey_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
