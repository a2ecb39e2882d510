/* median_radix.cl - the median of any radius by counting (CPUs from 7x7
 * on): byte loops that vectorize. */
#include "median_common.cl"

/* Any radius: the k-th smallest (k = n/2) found bit by bit from the top:
 * the largest v with #(window < v) <= k. Eight passes over the window. */
inline uchar4 median_radix_pixel(__global const uchar4 *src, int w, int h, int stride, int r, int x,
                                 int y)
{
    const int k = ((2 * r + 1) * (2 * r + 1)) / 2;
    uint4 res = (uint4)0;
    for (uint bit = 128; bit; bit >>= 1) {
        const uint4 cand = res | bit;
        int4 below = (int4)0;
        for (int dy = -r; dy <= r; ++dy) {
            const int yy = clamp(y + dy, 0, h - 1) * stride;
            for (int dx = -r; dx <= r; ++dx)
                below -= convert_uint4(src[yy + clamp(x + dx, 0, w - 1)]) < cand;
        }
        res = select(res, cand, below <= (int4)k);
    }
    uchar4 o = convert_uchar4(res);
    o.w = src[y * stride + x].w;
    return o;
}

#define MEDIAN_TILE 512

/* below[i] += p[i] < cand[i]. A function so that restrict tells the
 * vectorizer the row and the private tiles do not overlap. */
inline void median_count(__global const uchar *restrict p, const uchar *restrict cand,
                         uchar *restrict below, int len)
{
    for (int i = 0; i < len; ++i)
        below[i] += p[i] < cand[i];
}

/* res[i] = cand[i] where at most k are below it. Byte arithmetic only, so
 * that the loop vectorizes (an int compare made it scalar). */
inline void median_keep(uchar *restrict res, const uchar *restrict cand,
                        const uchar *restrict below, uchar k, int len)
{
    for (int i = 0; i < len; ++i) {
        const uchar keep = (uchar)0 - (uchar)(below[i] <= k);
        res[i] = (cand[i] & keep) | (res[i] & (uchar)~keep);
    }
}

#if CLV_MEDIAN_KIND < 0 || CLV_MEDIAN_KIND == 3
#if CLV_ROW
/* Row y (the row kernel's body, and the fused kernel's on its strips). */
CLV_ROW_FN void median_radix_row(CLV_FRAME_ARGS, int y, int r)
{
    /* The same selection on the row's interior in tiles of bytes: every
     * innermost loop is a plain byte loop the compiler vectorizes. */
    CLV_ROW_EDGES(x, r)
    dst[y * stride + x] = median_radix_pixel(src, w, h, stride, r, x, y);
    const int k = ((2 * r + 1) * (2 * r + 1)) / 2;
    __global const uchar *centre = CLV_ROW_BYTES_CONST(src, y);
    __global uchar *restrict out = CLV_ROW_BYTES(dst, y);
    uchar res[MEDIAN_TILE], cand[MEDIAN_TILE], below[MEDIAN_TILE];
    for (int t = 4 * r; t < 4 * (w - r); t += MEDIAN_TILE) {
        const int len = min(MEDIAN_TILE, 4 * (w - r) - t);
        for (int i = 0; i < len; ++i)
            res[i] = 0;
        for (uint bit = 128; bit; bit >>= 1) {
            for (int i = 0; i < len; ++i) {
                cand[i] = res[i] | (uchar)bit;
                below[i] = 0; /* at most 225: fits */
            }
            for (int dy = -r; dy <= r; ++dy) {
                __global const uchar *row = CLV_ROW_BYTES_CONST(src, clamp(y + dy, 0, h - 1)) + t;
                for (int dx = -r; dx <= r; ++dx)
                    median_count(row + 4 * dx, cand, below, len);
            }
            median_keep(res, cand, below, (uchar)k, len);
        }
        for (int i = 0; i < len; ++i) /* alpha too: put back below */
            out[t + i] = res[i];
    }
    clv_row_alpha(out, centre, r, w - r);
}
#endif

__kernel void median_radix(CLV_FRAME_ARGS, int r)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    median_radix_row(src, dst, w, h, stride, y, r);
#else
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * stride + x] = median_radix_pixel(src, w, h, stride, r, x, y);
#endif
}
#if CLV_ROW
/* Inside the stage's conversions (cl/yuv.cl), reach r. */
__kernel void median_radix_yuv(CLV_FUSED_ARGS, int r)
{
    CLV_FUSED_BODY(median_radix_row(fsrc, fdst, w, fh, stride, fy, r));
}
#endif
#endif
