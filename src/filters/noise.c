/* noise.c - deterministic salt-and-pepper or gaussian noise from an integer
 * hash of (seed, frame index, x, y); the hash is documented in cl/noise.cl,
 * with what it does at 16 bits (the same draws, 257 times as large). */
#include "filters.h"

#include <math.h>

/* The parameters, in the order of the table below, and type's choices in
 * the order of its list. */
enum { NOISE_TYPE, NOISE_AMOUNT, NOISE_SIGMA, NOISE_SEED, NOISE_PARAM_COUNT };
enum { TYPE_SALTPEPPER, TYPE_GAUSSIAN };

/* The per-frame key, the salt-and-pepper threshold and the gaussian
 * multiplier, computed once on the host for kernel and reference alike. */
typedef struct noise_setup {
    uint32_t key;
    int gaussian;
    uint64_t thr;
    int32_t mul;
} noise_setup;

static noise_setup setup(const clv_value *v, uint64_t frame_index)
{
    noise_setup s;
    uint32_t seed = (uint32_t)v[NOISE_SEED].i;
    s.key = clv__fmix32(seed ^ clv__fmix32((uint32_t)frame_index ^ 0x243F6A88u));
    s.gaussian = v[NOISE_TYPE].i == TYPE_GAUSSIAN;
    s.thr = (uint64_t)v[NOISE_AMOUNT].i * (1ull << 31) / 1000u;
    s.mul = (int32_t)llround((double)v[NOISE_SIGMA].i * 65536.0 / (1000.0 * sqrt(87380.0)));
    return s;
}

static const char *const kernels[] = {"noise", NULL};

static int run(void *state, const clv_launch *l)
{
    cl_kernel kernel = *(cl_kernel *)state;
    noise_setup n = setup(l->values, l->frame_index);
    cl_uint key = n.key;
    cl_int gaussian = n.gaussian, mul = n.mul;
    cl_ulong thr = n.thr;
    int err = clv__kernel_frame_args(kernel, l);
    if (!err)
        err = clv__kernel_args(kernel, 5, 4, CLV__ARG(key), CLV__ARG(gaussian), CLV__ARG(thr),
                               CLV__ARG(mul));
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

static uint32_t pixel_hash(uint32_t key, int x, int y)
{
    uint32_t row = clv__fmix32(key + (uint32_t)y * 0x9E3779B9u);
    return clv__fmix32(row ^ ((uint32_t)x * 0xC2B2AE35u + 0x27D4EB2Fu));
}

static int gauss(uint32_t h, uint32_t c, int32_t mul)
{
    uint32_t v = clv__fmix32(h + c * 0x9E3779B9u);
    int s = (int)(v & 255u) + (int)((v >> 8) & 255u) + (int)((v >> 16) & 255u) + (int)(v >> 24);
    int z = 2 * s - 1020;
    return clv__floor_div(z * mul + 32768, 65536);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    noise_setup n = setup(v, frame_index);
    /* At 16 bits white is 65535 and the gaussian noise 257 times as large
     * (cl/noise.cl). */
    int maxv = clv__maxv(src), scale = clv__scale8(src, 1);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            uint32_t h = pixel_hash(n.key, x, y);
            for (int c = 0; c < 3; c++) {
                int p = clv__get(src, x, y, c), o = p;
                if (n.gaussian)
                    o = clv__clamp(p + scale * gauss(h, (uint32_t)c + 1, n.mul), 0, maxv);
                else if (h < n.thr)
                    o = 0;
                else if (h < 2 * n.thr)
                    o = maxv;
                clv__put(dst, x, y, c, o);
            }
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    return 0;
}

static const clv_param params[] = {
    {"type", CLV_PARAM_ENUM, "saltpepper", 0, 0, "saltpepper|gaussian", "kind of noise", 1},
    {"amount", CLV_PARAM_REAL, "0.05", 0, 1, NULL,
     "saltpepper: fraction of pixels hit (half black, half white)", 0.05},
    {"sigma", CLV_PARAM_REAL, "10", 0, 100, NULL, "gaussian: standard deviation in levels", 1},
    {"seed", CLV_PARAM_INT, "0", 0, 4294967295.0, NULL, "seed of the hash", 1},
};
_Static_assert(sizeof params / sizeof params[0] == NOISE_PARAM_COUNT,
               "noise: the enum and the params table differ");

const clv_filter clv__filter_noise = {
    .name = "noise",
    .timed = 1,
    .help = "deterministic salt-and-pepper or gaussian noise, different every frame",
    .params = params,
    .param_count = NOISE_PARAM_COUNT,
    .program = "noise",
    .kernels = kernels,
    .deep = 1,
    .run = run,
    .reference = reference,
};
