/* despill.c - ffmpeg's despill (libavfilter/vf_despill.c), cl/despill.cl:
 * takes the green (or blue) a green (blue) screen spills onto the
 * foreground out of R, G and B, and with alpha=1 sets the alpha from it.
 *
 * ffmpeg, in float on 0-1 values: spill = max(g - (r mix + b (1 - mix)
 * (1 - expand)), 0) (blue: b and g swapped); each channel c + spill
 * (scale_c + brightness), at least 0, * 255 truncated and clipped; alpha
 * (1 - spill) * 255 truncated. Here the same in fixed point: mix, the
 * factor and the weights (ffmpeg's floats) in 2^-16 units, the spill in
 * 2^-16 codes, so every device gives the reference's bytes; against
 * ffmpeg a channel can differ by one code where its floats round across an
 * integer. ffmpeg's despill is 8-bit only; at 16 bits the same formula on
 * 0-65535. */
#include "filters.h"

#include <math.h>

enum {
    DS_TYPE,
    DS_MIX,
    DS_EXPAND,
    DS_RED,
    DS_GREEN,
    DS_BLUE,
    DS_BRIGHTNESS,
    DS_ALPHA,
    DS_PARAM_COUNT
};

/* The kernel's integers: blue, mix, factor, the three weights, alpha. */
static void coefficients(const clv_value *v, cl_int k[7])
{
    float mix = (float)(v[DS_MIX].i / 1000.0), expand = (float)(v[DS_EXPAND].i / 1000.0);
    float factor = (1.f - mix) * (1.f - expand);
    float brightness = (float)(v[DS_BRIGHTNESS].i / 1000.0);
    k[0] = (cl_int)v[DS_TYPE].i;
    k[1] = (cl_int)lrint(ldexp(mix, 16));
    k[2] = (cl_int)lrint(ldexp(factor, 16));
    for (int c = 0; c < 3; c++)
        k[3 + c] = (cl_int)lrint(ldexp((double)(float)(v[DS_RED + c].i / 1000.0) + brightness, 16));
    k[6] = (cl_int)v[DS_ALPHA].i;
}

static const char *const kernels[] = {"despill", NULL};

static int run(void *state, const clv_launch *l)
{
    cl_kernel kernel = *(cl_kernel *)state;
    cl_int k[7];
    coefficients(l->values, k);
    int err = clv__kernel_frame_args(kernel, l);
    for (int i = 0; i < 7 && !err; i++)
        err = clv__kernel_args(kernel, 5 + i, 1, CLV__ARG(k[i]));
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

static int reference(void *ref_state, const clv_value *values, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int maxv = clv__maxv(src);
    cl_int k[7];
    coefficients(values, k);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            int64_t c[3], a = clv__get(src, x, y, 3);
            for (int i = 0; i < 3; i++)
                c[i] = clv__get(src, x, y, i);
            int64_t key = k[0] ? c[2] : c[1], other = k[0] ? c[1] : c[2];
            int64_t s = (key << 16) - c[0] * k[1] - other * k[2];
            s = s < 0 ? 0 : s;
            for (int i = 0; i < 3; i++) {
                int64_t n = ((c[i] << 32) + s * k[3 + i]) >> 32;
                clv__put(dst, x, y, i, n < 0 ? 0 : n > maxv ? maxv : (int)n);
            }
            clv__put(dst, x, y, 3, k[6] ? (int)(maxv - ((s + 65535) >> 16)) : (int)a);
        }
    return 0;
}

static const clv_param params[] = {
    {"type", CLV_PARAM_ENUM, "green", 0, 1, "green|blue", "the screen's colour", 1},
    {"mix", CLV_PARAM_REAL, "0.5", 0, 1, NULL,
     "how much red (against the other) the spill map "
     "takes off",
     0.05},
    {"expand", CLV_PARAM_REAL, "0", 0, 1, NULL, "how much wider the spill map reaches", 0.05},
    {"red", CLV_PARAM_REAL, "0", -100, 100, NULL, "the spill's weight added to red", 0.1},
    {"green", CLV_PARAM_REAL, "-1", -100, 100, NULL, "the spill's weight added to green", 0.1},
    {"blue", CLV_PARAM_REAL, "0", -100, 100, NULL, "the spill's weight added to blue", 0.1},
    {"brightness", CLV_PARAM_REAL, "0", -10, 10, NULL, "the spill's weight added to every channel",
     0.1},
    {"alpha", CLV_PARAM_INT, "0", 0, 1, NULL, "1: the alpha becomes 1 - the spill", 1},
};
_Static_assert(sizeof params / sizeof params[0] == DS_PARAM_COUNT,
               "despill: the enum and the params table differ");

const clv_filter clv__filter_despill = {
    .name = "despill",
    .help = "take a green or blue screen's spill out of the colours (ffmpeg's despill)",
    .params = params,
    .param_count = DS_PARAM_COUNT,
    .program = "despill",
    .kernels = kernels,
    .deep = 1,
    .run = run,
    .reference = reference,
};
