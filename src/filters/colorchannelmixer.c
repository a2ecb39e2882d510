/* colorchannelmixer.c - ffmpeg's colorchannelmixer (vf_colorchannelmixer.c)
 * on RGBA at 8 and 16 bits (cl/channels.cl):
 *   r' = lrint(r rr) + lrint(g rg) + lrint(b rb) + lrint(a ra)
 * and so for g', b' and a', each clipped to 0 .. max: ffmpeg's tables of
 * lrint(v * gain) for its rgba and rgba64 frames, the gains kept to
 * 1/1000 and rounded half to even as lrint does, exactly.
 *
 * pc (preserve colour) keeps a lightness of the input: r'' = r' + (c r'
 * lin / lout - r') pa with c r' clipped, lin and lout ffmpeg's measures of
 * the input and of r', g', b' (preserve_color.h: lum max + min, max, avg
 * (sum + 1) / 3, sum, nrm sqrt(sum of squares), pwr cbrt(sum of cubes)),
 * and where lout <= 0 the ratio lin * 2 max. ffmpeg computes it in floats;
 * here in integers, lin / lout exact for lum, max, avg and sum, and
 * square roots to 8 fractional bits, cube roots to 4 (at 8 bits) or 0;
 * the result rounded half to even. It agrees with ffmpeg's by PSNR
 * (scripts/compare-grade), not to the bit. */
#include "filters.h"

enum { MIX_RR, MIX_AA = MIX_RR + 15, MIX_PC, MIX_PA, MIX_PARAM_COUNT };

static const char *const kernels[] = {"colorchannelmixer", NULL};

/* n / d rounded half to even (lrint's rounding), d > 0; colorlevels' points
 * too (filters.h). */
int64_t clv__div_even(int64_t n, int64_t d)
{
    int64_t q = n / d, r = n - q * d;
    if (r < 0) {
        q -= 1;
        r += d;
    }
    return q + (2 * r > d || (2 * r == d && (q & 1)));
}

static int term(int v, int m)
{
    return (int)clv__div_even((int64_t)v * m, 1000);
}

static int64_t icbrt64(uint64_t s)
{
    uint64_t r = 0;
    for (int k = 21; k >= 0; k--) {
        uint64_t t = r | (UINT64_C(1) << k);
        r = t * t * t <= s ? t : r;
    }
    return (int64_t)r;
}

/* pc's lin / lout as *p / *q (the kernel's ccm_ratio); 1 where lout <= 0
 * (ffmpeg's ocolor <= 0), *p / *q then colorchannelmixer's lin * 2 max.
 * colorlevels' preserve takes the same measures (filters.h): lum, max, avg
 * and sum of any int o[]; nrm's squares and pwr's cubes of |o| <= 8 * 65535
 * (colorchannelmixer's outputs are within 8 * max). */
int clv__preserve_ratio(int pc, int maxv, const int in[3], const int o[3], int64_t *p, int64_t *q)
{
    int64_t lin, lout, d = 1;
    int64_t si = (int64_t)in[0] + in[1] + in[2], so = (int64_t)o[0] + o[1] + o[2];
    int cube = maxv == 255 ? 12 : 0;
    switch (pc) {
    case 1:
        lin = (int64_t)clv__max3(in[0], in[1], in[2]) + clv__min3(in[0], in[1], in[2]);
        lout = (int64_t)clv__max3(o[0], o[1], o[2]) + clv__min3(o[0], o[1], o[2]);
        break;
    case 2:
        lin = clv__max3(in[0], in[1], in[2]);
        lout = clv__max3(o[0], o[1], o[2]);
        break;
    case 3:
        lin = si + 1;
        lout = so + 1;
        d = 3;
        break;
    case 4:
        lin = si;
        lout = so;
        break;
    case 5: {
        int64_t si2 = 0, so2 = 0;
        for (int c = 0; c < 3; c++) {
            si2 += (int64_t)in[c] * in[c];
            so2 += (int64_t)o[c] * o[c];
        }
        lin = (int64_t)clv__isqrt64((uint64_t)si2 << 16);
        lout = (int64_t)clv__isqrt64((uint64_t)so2 << 16);
        d = 256;
        break;
    }
    default: {
        int64_t si3 = 0, so3 = 0;
        for (int c = 0; c < 3; c++) {
            si3 += (int64_t)in[c] * in[c] * in[c];
            so3 += (int64_t)o[c] * o[c] * o[c];
        }
        lin = icbrt64((uint64_t)si3 << cube);
        lout = so3 > 0 ? icbrt64((uint64_t)so3 << cube) : 0;
        d = cube ? 16 : 1;
        break;
    }
    }
    int none = lout <= 0;
    *p = none ? lin * (pc >= 5 ? 2 : 2 * maxv) : lin;
    *q = none ? d : lout;
    return none;
}

static int kept(int o, int64_t p, int64_t q, int pa, int maxv)
{
    int64_t c = o < 0 ? 0 : o > maxv ? maxv : o;
    return (int)clv__div_even((int64_t)o * q * 1000 + (c * p - (int64_t)o * q) * pa, q * 1000);
}

static void gains(const clv_value *v, cl_int4 m[4])
{
    for (int row = 0; row < 4; row++)
        for (int k = 0; k < 4; k++)
            m[row].s[k] = (cl_int)v[MIX_RR + 4 * row + k].i;
}

static int run(void *state, const clv_launch *l)
{
    cl_kernel kernel = *(cl_kernel *)state;
    cl_int4 m[4];
    gains(l->values, m);
    cl_int pc = (cl_int)l->values[MIX_PC].i, pa = (cl_int)l->values[MIX_PA].i;
    int err = clv__kernel_frame_args(kernel, l);
    if (!err)
        err = clv__kernel_args(kernel, 5, 6, CLV__ARG(m[0]), CLV__ARG(m[1]), CLV__ARG(m[2]),
                               CLV__ARG(m[3]), CLV__ARG(pc), CLV__ARG(pa));
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    cl_int4 m[4];
    gains(v, m);
    int pc = (int)v[MIX_PC].i, pa = (int)v[MIX_PA].i, maxv = clv__maxv(src);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            int in[4], o[4];
            for (int c = 0; c < 4; c++)
                in[c] = clv__get(src, x, y, c);
            for (int row = 0; row < 4; row++) {
                o[row] = 0;
                for (int k = 0; k < 4; k++)
                    o[row] += term(in[k], m[row].s[k]);
            }
            if (pc) {
                int64_t p, q;
                clv__preserve_ratio(pc, maxv, in, o, &p, &q);
                for (int c = 0; c < 3; c++)
                    o[c] = kept(o[c], p, q, pa, maxv);
            }
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c, o[c] < 0 ? 0 : o[c] > maxv ? maxv : o[c]);
        }
    return 0;
}

#define GAIN(name, def, what)                                                                      \
    {                                                                                              \
        name, CLV_PARAM_REAL, def, -2, 2, NULL, what, 0.05                                         \
    }

static const clv_param params[] = {
    GAIN("rr", "1", "red's share of the red channel"),
    GAIN("rg", "0", "green's share of the red channel"),
    GAIN("rb", "0", "blue's share of the red channel"),
    GAIN("ra", "0", "alpha's share of the red channel"),
    GAIN("gr", "0", "red's share of the green channel"),
    GAIN("gg", "1", "green's share of the green channel"),
    GAIN("gb", "0", "blue's share of the green channel"),
    GAIN("ga", "0", "alpha's share of the green channel"),
    GAIN("br", "0", "red's share of the blue channel"),
    GAIN("bg", "0", "green's share of the blue channel"),
    GAIN("bb", "1", "blue's share of the blue channel"),
    GAIN("ba", "0", "alpha's share of the blue channel"),
    GAIN("ar", "0", "red's share of the alpha channel"),
    GAIN("ag", "0", "green's share of the alpha channel"),
    GAIN("ab", "0", "blue's share of the alpha channel"),
    GAIN("aa", "1", "alpha's share of the alpha channel"),
    {"pc", CLV_PARAM_ENUM, "none", 0, 6, "none|lum|max|avg|sum|nrm|pwr",
     "preserve colour: the input's lightness by this measure", 1},
    {"pa", CLV_PARAM_REAL, "0", 0, 1, NULL, "how much of it to preserve", 0.05},
};
_Static_assert(sizeof params / sizeof params[0] == MIX_PARAM_COUNT,
               "colorchannelmixer: the enum and the params table differ");

const clv_filter clv__filter_colorchannelmixer = {
    .name = "colorchannelmixer",
    .help = "mix the channels: each out of r, g, b, a with gains (ffmpeg's colorchannelmixer)",
    .params = params,
    .param_count = MIX_PARAM_COUNT,
    .program = "channels",
    .kernels = kernels,
    .deep = 1,
    .run = run,
    .reference = reference,
};
