/* median_radix.cl - the median of any radius by counting (CPUs from 7x7
 * on): byte loops that vectorize. At 16 bits every shape's kernel from
 * 7x7 on: sixteen counting passes on ushort channels. */
#include "median_common.cl"

#if CLV_DEPTH == 8
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

#else /* CLV_DEPTH == 16 */

#if CLV_MEDIAN_KIND < 0 || CLV_MEDIAN_KIND == 3
/* The radius is the program's (-DCLV_MEDIAN_R, the host builds a program
 * a radius): the window's loops unroll, so that a count stays in a
 * register through the window and the GPU shape's choice of which of its
 * four windows a pixel is in is made by the compiler. */
#ifndef CLV_MEDIAN_R
#define CLV_MEDIAN_R 3
#endif
#define MEDIAN_RADIX_D (2 * CLV_MEDIAN_R + 1)
#define MEDIAN_RADIX_K (MEDIAN_RADIX_D * MEDIAN_RADIX_D / 2)

/* The k-th smallest (k = n/2) found bit by bit from the top, as at 8 bits:
 * the largest v with #(window < v) <= k. Sixteen passes over the window.
 * (A histogram of 65536 bins does not fit a work-item; one of the high
 * byte and then of the low would save half the passes for much more
 * code.) */
inline ushort4 median_radix_pixel(__global const ushort4 *src, int w, int h, int stride, int x,
                                  int y)
{
    const int r = CLV_MEDIAN_R;
    ushort4 res = (ushort4)0;
    for (uint bit = 0x8000; bit; bit >>= 1) {
        const ushort4 cand = res | (ushort)bit;
        short4 below = (short4)0;
        for (int dy = -r; dy <= r; ++dy) {
            const int yy = clamp(y + dy, 0, h - 1) * stride;
            for (int dx = -r; dx <= r; ++dx)
                below += src[yy + clamp(x + dx, 0, w - 1)] < cand; /* true is -1 */
        }
        res = select(res, cand, -below <= (short4)MEDIAN_RADIX_K);
    }
    res.w = src[y * stride + x].w;
    return res;
}

#if CLV_ROW
#define MEDIAN_TILE 512

/* Row y: the selection on the row's interior in tiles of elements. A pass
 * is one loop over the tile that vectorizes, each element's count held in
 * a register through the unrolled window (counting into a tile in memory,
 * a loop per window offset as at 8 bits, took a quarter longer at 15x15). */
CLV_ROW_FN void median_radix_row(CLV_FRAME_ARGS, int y)
{
    const int r = CLV_MEDIAN_R;
    CLV_ROW_EDGES(x, r)
    dst[y * stride + x] = median_radix_pixel(src, w, h, stride, x, y);
    __global const ushort *rows[MEDIAN_RADIX_D];
    for (int dy = 0; dy < MEDIAN_RADIX_D; ++dy)
        rows[dy] = MED_ROW16_CONST(src, clamp(y + dy - r, 0, h - 1));
    __global ushort *restrict out = MED_ROW16(dst, y);
    ushort res[MEDIAN_TILE];
    for (int t = 4 * r; t < 4 * (w - r); t += MEDIAN_TILE) {
        const int len = min(MEDIAN_TILE, 4 * (w - r) - t);
        for (int i = 0; i < len; ++i)
            res[i] = 0;
        for (uint bit = 0x8000; bit; bit >>= 1) {
            for (int i = 0; i < len; ++i) {
                const ushort cand = res[i] | (ushort)bit;
                ushort below = 0; /* at most 225 */
#pragma unroll
                for (int dy = 0; dy < MEDIAN_RADIX_D; ++dy)
#pragma unroll
                    for (int dx = -r; dx <= r; ++dx)
                        below += rows[dy][t + i + 4 * dx] < cand;
                res[i] = below <= MEDIAN_RADIX_K ? cand : res[i];
            }
        }
        for (int i = 0; i < len; ++i) /* alpha too: put back below */
            out[t + i] = res[i];
    }
    median_row_alpha16(out, MED_ROW16_CONST(src, y), r, w - r);
}
#endif

__kernel void median_radix(CLV_FRAME_ARGS, int r_arg)
{
    (void)r_arg; /* the same as CLV_MEDIAN_R */
#if CLV_ROW
    CLV_ROW_Y(y);
    median_radix_row(src, dst, w, h, stride, y);
#else
    /* Four outputs of one row a work-item: each pass reads a row of the
     * window's 2r + 4 pixels once for the four counts. */
    const int r = CLV_MEDIAN_R;
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
    if (y >= h || x0 >= w)
        return;
    ushort4 res[4] = {(ushort4)0, (ushort4)0, (ushort4)0, (ushort4)0};
    for (uint bit = 0x8000; bit; bit >>= 1) {
        ushort4 cand[4];
        short4 below[4];
        for (int i = 0; i < 4; ++i) {
            cand[i] = res[i] | (ushort)bit;
            below[i] = (short4)0;
        }
        for (int dy = -r; dy <= r; ++dy) {
            __global const ushort4 *row = src + clamp(y + dy, 0, h - 1) * stride;
#pragma unroll
            for (int j = 0; j < 2 * r + 4; ++j) {
                const ushort4 v = row[clamp(x0 - r + j, 0, w - 1)];
#pragma unroll
                for (int i = 0; i < 4; ++i) /* pixel x0 + i's window: j = i .. i + 2r */
                    if (j >= i && j <= i + 2 * r)
                        below[i] += v < cand[i]; /* true is -1 */
            }
        }
        for (int i = 0; i < 4; ++i)
            res[i] = select(res[i], cand[i], -below[i] <= (short4)MEDIAN_RADIX_K);
    }
    __global const ushort4 *centre = src + y * stride;
    for (int i = 0; i < 4; ++i)
        res[i].w = centre[min(x0 + i, w - 1)].w;
    median_store4_16(dst, w, stride, y, x0, res);
#endif
}
#endif
#endif /* CLV_DEPTH */
