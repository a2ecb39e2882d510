/* colorkey.c - ffmpeg's colorkey (libavfilter/vf_colorkey.c), cl/colorkey.cl:
 * the alpha of each pixel from the distance of its R, G, B to the key
 * colour; R, G and B unchanged, the alpha replaced (not multiplied).
 *
 * ffmpeg: diff = sqrt((dr^2 + dg^2 + db^2) / (255^2 * 3)), each d the
 * channel on the 8-bit scale less the key's; with blend 0 the alpha is
 * max where diff > similarity, else 0; with blend b it is
 * (int)(clip((diff - similarity) / b, 0, 1) * max), similarity and 1 / b
 * floats. Here d = sum of the squared integer differences, and the alpha
 * a level of the host's table built with that formula (keys.h): at 8 bits
 * ffmpeg's alpha exactly. At 16 bits ffmpeg's dr is c * 255 / 65535 -
 * key, rounded in double; here the exact (255 c - 65535 key) / 65535,
 * which can differ from it by one level where the double rounds across a
 * level's edge. Similarity and blend are kept to 1/1000 (clvid's decimals); their
 * ranges are ffmpeg 5.1's (similarity 0.01 to 1; later ffmpeg allows
 * similarity down to 0.00001). */
#include "keys.h"

#include <math.h>
#include <stdlib.h>

enum { CK_COLOR, CK_SIMILARITY, CK_BLEND, CK_PARAM_COUNT };

typedef struct colorkey_curve {
    double similarity, iblend, scale; /* scale: d / scale is diff^2 */
    int maxv;
} colorkey_curve;

static int curve_alpha(const void *arg, int64_t d)
{
    const colorkey_curve *c = arg;
    double diff = sqrt((double)d / c->scale);
    if (c->iblend < 10000.0) {
        double v = (diff - c->similarity) * c->iblend;
        return (int)((v > 1.0 ? 1.0 : v < 0.0 ? 0.0 : v) * c->maxv);
    }
    return diff > c->similarity ? c->maxv : 0;
}

static double curve_guess(const void *arg, int k)
{
    const colorkey_curve *c = arg;
    double diff = c->similarity + (c->iblend < 10000.0 ? k / (c->maxv * c->iblend) : 0);
    return diff * diff * c->scale;
}

/* The table of levels of values v at a depth, maxv + 1 entries. */
static void levels(const clv_value *v, int depth, cl_long *t)
{
    colorkey_curve c;
    float similarity = (float)(v[CK_SIMILARITY].i / 1000.0),
          blend = (float)(v[CK_BLEND].i / 1000.0);
    c.similarity = similarity;
    c.iblend = 1.f / blend;
    c.maxv = depth == 16 ? 65535 : 255;
    c.scale = depth == 16 ? 255.0 * 255.0 * 3.0 * 65535.0 * 65535.0 : 255.0 * 255.0 * 3.0;
    int64_t m = depth == 16 ? (int64_t)255 * 65535 : 255;
    clv__key_curve kc = {curve_alpha, curve_guess, &c};
    clv__key_levels(&kc, c.maxv, 3 * m * m, t);
}

typedef struct colorkey_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem levels;
    int depth;
    cl_int key[3];
} colorkey_state;

static const char *const kernels[] = {"colorkey", NULL};

static void key_of(const clv_value *v, cl_int key[3])
{
    uint32_t c = (uint32_t)v[CK_COLOR].i;
    for (int i = 0; i < 3; i++)
        key[i] = (cl_int)((c >> (24 - 8 * i)) & 255);
}

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    (void)msg;
    colorkey_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    return 0;
}

static void uninit(void *state)
{
    colorkey_state *s = state;
    clv__mem_release(&s->levels);
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    colorkey_state *s = state;
    int maxv = s->depth == 16 ? 65535 : 255;
    cl_long *t = malloc((size_t)(maxv + 1) * sizeof *t);
    if (!t)
        return clv__fail(msg, CLV_ENOMEM, "colorkey: out of memory for its table of levels");
    levels(values, s->depth, t);
    int err = clv__key_upload(ctx, t, maxv, &s->levels, "colorkey", msg);
    free(t);
    key_of(values, s->key);
    return err;
}

static int run(void *state, const clv_launch *l)
{
    colorkey_state *s = state;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 4, CLV__ARG(s->levels), CLV__ARG(s->key[0]),
                               CLV__ARG(s->key[1]), CLV__ARG(s->key[2]));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

static int reference(void *ref_state, const clv_value *values, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int depth = clv__depth(src), maxv = clv__maxv(src);
    const int64_t m = depth == 16 ? 255 : 1, n = depth == 16 ? 65535 : 1;
    cl_long *t = malloc((size_t)(maxv + 1) * sizeof *t);
    if (!t)
        return CLV_ENOMEM;
    levels(values, depth, t);
    cl_int key[3];
    key_of(values, key);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            int64_t d = 0;
            for (int c = 0; c < 3; c++) {
                int64_t e = m * clv__get(src, x, y, c) - n * key[c];
                d += e * e;
                clv__put(dst, x, y, c, clv__get(src, x, y, c));
            }
            clv__put(dst, x, y, 3, clv__key_level(t, maxv, d));
        }
    free(t);
    return 0;
}

static const clv_param params[] = {
    {"color", CLV_PARAM_COLOR, "black", 0, 0, NULL, "the key colour, which becomes transparent", 0},
    {"similarity", CLV_PARAM_REAL, "0.01", 0.01, 1, NULL,
     "how far from the key a colour is still keyed (distance 0-1 in RGB)", 0.01},
    {"blend", CLV_PARAM_REAL, "0", 0, 1, NULL,
     "0: a colour is keyed or not; more: the alpha rises over this much distance", 0.01},
};
_Static_assert(sizeof params / sizeof params[0] == CK_PARAM_COUNT,
               "colorkey: the enum and the params table differ");

const clv_filter clv__filter_colorkey = {
    .name = "colorkey",
    .help = "make a colour transparent (ffmpeg's colorkey: alpha from the RGB distance to the key)",
    .params = params,
    .param_count = CK_PARAM_COUNT,
    .program = "colorkey",
    .kernels = kernels,
    .deep = 1,
    .state_size = sizeof(colorkey_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
