/* hue.cl - ffmpeg's hue on the Y'CbCr of each pixel (src/filters/hue.c):
 * with u = Cb - 128, v = Cr - 128 (in the components' fixed point) and the
 * host's c = cos(hue) * s * 2^16, s = sin(hue) * s * 2^16,
 *   Cb' = ((c u - s v + 2^15) >> 16) + 128,  Cr' = ((s u + c v + 2^15) >> 16) + 128
 *   Y'  = Y' + boff
 * each clamped to the codes 0-255. Both depths, one kernel. */
#include "ycbcr.cl"

/* (x + 2^15) >> 16, floored: shifted on a non-negative value (|x| < 2^44),
 * as a right shift of a negative one is the implementation's choice. */
inline long hue_round(long x)
{
    return ((x + 32768 + (1L << 48)) >> 16) - (1L << 32);
}

inline void hue_pixel(const ycc_t *k, int c, int s, int boff, clv_ch *r, clv_ch *g, clv_ch *b)
{
    const ycc_t centre = (ycc_t)128 << YCC_P;
    const long u = ycc_component(k, 1, *r, *g, *b) - centre;
    const long v = ycc_component(k, 2, *r, *g, *b) - centre;
    const ycc_t y = clamp(ycc_component(k, 0, *r, *g, *b) + boff, (ycc_t)0, YCC_TOP);
    const ycc_t cb = clamp((ycc_t)hue_round(c * u - s * v) + centre, (ycc_t)0, YCC_TOP);
    const ycc_t cr = clamp((ycc_t)hue_round(s * u + c * v) + centre, (ycc_t)0, YCC_TOP);
    *r = ycc_channel(k, 0, y, cb, cr);
    *g = ycc_channel(k, 1, y, cb, cr);
    *b = ycc_channel(k, 2, y, cb, cr);
}

__kernel void hue(CLV_FRAME_ARGS, __global const long *m, int c, int s, int boff)
{
    ycc_t k[24];
    ycc_load(m, k);
    CLV_POINT_PIXELS(x, y, r, g, b, a, hue_pixel(k, c, s, boff, &r, &g, &b));
}
