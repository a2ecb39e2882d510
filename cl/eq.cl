/* eq.cl - ffmpeg's eq on the Y'CbCr of each pixel (src/filters/eq.c): one
 * table per component (Y', Cb, Cr), the host's, of n + 1 codes (n = 256
 * at 8 bits, 65536 at 16), read between its entries at the component's
 * fraction:
 *   k = v >> 8, f = v & 255: v' = (lut[k] << 8) + (lut[k + 1] - lut[k]) * f
 * with v first clamped to [0, 256 n - 1]. Both depths, one kernel. */
#include "ycbcr.cl"

inline ycc_t eq_component(__global const clv_ch *lut, ycc_t v, int n)
{
    v = clamp(v, (ycc_t)0, ((ycc_t)n << 8) - 1);
    const int k = (int)(v >> 8);
    const ycc_t lo = lut[k], hi = lut[k + 1];
    return (lo << 8) + (hi - lo) * (v & 255);
}

#if CLV_ROW
/* The row shape in chunks of EQ_CHUNK pixels, three loops each: to Y'CbCr,
 * through the tables, back to RGB. PoCL's loops do not vectorize table
 * reads (gathers), so only the middle loop is scalar: one loop doing all
 * took three times as long. */
#define EQ_CHUNK 256

__kernel void eq(CLV_FRAME_ARGS, __global const long *m, __global const clv_ch *luts, int n)
{
    ycc_t k[24];
    ycc_load(m, k);
    CLV_ROW_Y(y);
    __global const clv_ch *in = (__global const clv_ch *)(src + y * stride);
    __global clv_ch *out = (__global clv_ch *)(dst + y * stride);
    ycc_t c0[EQ_CHUNK], c1[EQ_CHUNK], c2[EQ_CHUNK];
    for (int x0 = 0; x0 < w; x0 += EQ_CHUNK) {
        __global const clv_ch *p = in + 4 * x0;
        __global clv_ch *o = out + 4 * x0;
        const int len = min(EQ_CHUNK, w - x0);
        for (int i = 0; i < len; i++) {
            const ycc_t r = p[4 * i], g = p[4 * i + 1], b = p[4 * i + 2];
            c0[i] = ycc_component(k, 0, r, g, b);
            c1[i] = ycc_component(k, 1, r, g, b);
            c2[i] = ycc_component(k, 2, r, g, b);
        }
        for (int i = 0; i < len; i++) {
            c0[i] = eq_component(luts, c0[i], n);
            c1[i] = eq_component(luts + (n + 1), c1[i], n);
            c2[i] = eq_component(luts + 2 * (n + 1), c2[i], n);
        }
        for (int i = 0; i < len; i++) {
            o[4 * i] = ycc_channel(k, 0, c0[i], c1[i], c2[i]);
            o[4 * i + 1] = ycc_channel(k, 1, c0[i], c1[i], c2[i]);
            o[4 * i + 2] = ycc_channel(k, 2, c0[i], c1[i], c2[i]);
            o[4 * i + 3] = p[4 * i + 3];
        }
    }
}
#else
inline void eq_pixel(const ycc_t *k, __global const clv_ch *luts, int n, clv_ch *r, clv_ch *g,
                     clv_ch *b)
{
    const ycc_t y = eq_component(luts, ycc_component(k, 0, *r, *g, *b), n);
    const ycc_t cb = eq_component(luts + (n + 1), ycc_component(k, 1, *r, *g, *b), n);
    const ycc_t cr = eq_component(luts + 2 * (n + 1), ycc_component(k, 2, *r, *g, *b), n);
    *r = ycc_channel(k, 0, y, cb, cr);
    *g = ycc_channel(k, 1, y, cb, cr);
    *b = ycc_channel(k, 2, y, cb, cr);
}

__kernel void eq(CLV_FRAME_ARGS, __global const long *m, __global const clv_ch *luts, int n)
{
    ycc_t k[24];
    ycc_load(m, k);
    CLV_POINT_PIXELS(x, y, r, g, b, a, eq_pixel(k, luts, n, &r, &g, &b));
}
#endif
