/* median3.cl - the 3x3 median: Paeth's network a pixel on CPUs; on GPUs
 * each column of three sorted once for the two rows that share it (at 16
 * bits: for the four pixels of one row). */
#include "median_common.cl"

/* Paeth's 19-exchange median-of-9 network, branchless; leaves it in p4.
 * Three exchanges a line, as the network is usually drawn. */
// clang-format off
#define MEDIAN9(T)                                                                                 \
    SORT2(T, p1, p2); SORT2(T, p4, p5); SORT2(T, p7, p8);                                          \
    SORT2(T, p0, p1); SORT2(T, p3, p4); SORT2(T, p6, p7);                                          \
    SORT2(T, p1, p2); SORT2(T, p4, p5); SORT2(T, p7, p8);                                          \
    SORT2(T, p0, p3); SORT2(T, p5, p8); SORT2(T, p4, p7);                                          \
    SORT2(T, p3, p6); SORT2(T, p1, p4); SORT2(T, p2, p5);                                          \
    SORT2(T, p4, p7); SORT2(T, p4, p2); SORT2(T, p6, p4);                                          \
    SORT2(T, p4, p2)
// clang-format on

#if CLV_DEPTH == 8
inline uchar4 median3_pixel(__global const uchar4 *src, int w, int h, int stride, int x, int y)
{
    const int ym = clamp(y - 1, 0, h - 1) * stride, y0 = y * stride,
              yp = clamp(y + 1, 0, h - 1) * stride;
    const int xm = clamp(x - 1, 0, w - 1), xp = clamp(x + 1, 0, w - 1);
    uchar4 p0 = src[ym + xm], p1 = src[ym + x], p2 = src[ym + xp];
    uchar4 p3 = src[y0 + xm], p4 = src[y0 + x], p5 = src[y0 + xp];
    uchar4 p6 = src[yp + xm], p7 = src[yp + x], p8 = src[yp + xp];
    const uchar alpha = p4.w;
    MEDIAN9(uchar4);
    p4.w = alpha;
    return p4;
}

/* The median of three values. */
#define MEDIAN3(T, a, b, c) MED_MAX(T, MED_MIN(T, a, b), MED_MIN(T, MED_MAX(T, a, b), c))

#if !CLV_ROW
/* The GPU shape's outputs a row of a work-item: eight, read with two
 * 16-byte loads a row (src/filters/median.c launches a work-item for each
 * eight pixels of two rows). Four a row left median 3x3 at 62% of the copy
 * bandwidth on an H200, eight gives 67-69%: ten columns sorted for eight
 * outputs instead of six for four, and fewer edge loads. */
#define MED3_PX 8
#define MED3_COLS (MED3_PX + 2)

/* Row yy's MED3_COLS pixels from x0 - 1 (x0 + MED3_PX inside the row; the
 * left one clamped). */
#define MED3_LOAD_ROW(yy, v)                                                                       \
    {                                                                                              \
        __global const uchar4 *row_ = src + (yy)*stride;                                           \
        v[0] = row_[max(x0 - 1, 0)];                                                               \
        for (int k_ = 0; k_ < MED3_PX; k_ += 4) {                                                  \
            const uint4 q_ = *(__global const uint4 *)(row_ + x0 + k_);                            \
            v[k_ + 1] = as_uchar4(q_.x);                                                           \
            v[k_ + 2] = as_uchar4(q_.y);                                                           \
            v[k_ + 3] = as_uchar4(q_.z);                                                           \
            v[k_ + 4] = as_uchar4(q_.w);                                                           \
        }                                                                                          \
        v[MED3_PX + 1] = row_[x0 + MED3_PX];                                                       \
    }

/* The 3x3 medians o[0..MED3_PX) from the columns' sorted values (window i:
 * columns i, i + 1, i + 2): the largest minimum, the median of medians and
 * the smallest maximum, whose median is the window's. Windows i and i + 1
 * share columns i + 1 and i + 2: their larger minimum, smaller maximum and
 * sorted medians (then each window's median of medians is two operations). */
#define MED3_WINDOWS(T)                                                                            \
    inline void med3_windows_##T(const T *lo, const T *mid, const T *hi, T *o)                     \
    {                                                                                              \
        for (int i = 0; i < MED3_PX; i += 2) {                                                     \
            const T l = MED_MAX(T, lo[i + 1], lo[i + 2]), u = MED_MIN(T, hi[i + 1], hi[i + 2]);    \
            const T ml = MED_MIN(T, mid[i + 1], mid[i + 2]),                                       \
                    mu = MED_MAX(T, mid[i + 1], mid[i + 2]);                                       \
            o[i] = MEDIAN3(T, MED_MAX(T, lo[i], l), MED_MAX(T, ml, MED_MIN(T, mu, mid[i])),        \
                           MED_MIN(T, hi[i], u));                                                  \
            o[i + 1] = MEDIAN3(T, MED_MAX(T, l, lo[i + 3]),                                        \
                               MED_MAX(T, ml, MED_MIN(T, mu, mid[i + 3])),                         \
                               MED_MIN(T, u, hi[i + 3]));                                          \
        }                                                                                          \
    }
MED3_WINDOWS(ushort2)
MED3_WINDOWS(medf2)
#undef MED3_WINDOWS
#endif

#if CLV_MEDIAN_KIND < 0 || CLV_MEDIAN_KIND == 0
#if CLV_ROW
/* Row y (the row kernel's body, and the fused kernel's on its strips). */
CLV_ROW_FN void median3_row(CLV_FRAME_ARGS, int y)
{
    dst[y * stride] = median3_pixel(src, w, h, stride, 0, y);
    if (w > 1)
        dst[y * stride + w - 1] = median3_pixel(src, w, h, stride, w - 1, y);
    __global const uchar *r0 = CLV_ROW_BYTES_CONST(src, max(y - 1, 0));
    __global const uchar *r1 = CLV_ROW_BYTES_CONST(src, y);
    __global const uchar *r2 = CLV_ROW_BYTES_CONST(src, min(y + 1, h - 1));
    __global uchar *restrict out = CLV_ROW_BYTES(dst, y);
    /* every byte through the network, alpha put back after (clv_row_alpha) */
    for (int i = 4; i < 4 * (w - 1); ++i) {
        uchar p0 = r0[i - 4], p1 = r0[i], p2 = r0[i + 4];
        uchar p3 = r1[i - 4], p4 = r1[i], p5 = r1[i + 4];
        uchar p6 = r2[i - 4], p7 = r2[i], p8 = r2[i + 4];
        MEDIAN9(uchar);
        out[i] = p4;
    }
    clv_row_alpha(out, r1, 1, w - 1);
}
#endif

__kernel void median3(CLV_FRAME_ARGS)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    median3_row(src, dst, w, h, stride, y);
#else
    /* MED3_PX outputs in each of two rows a work-item. Each column of three
     * is sorted (the two rows share its middle two values), and a window's
     * median is the median of its columns' largest minimum, median of
     * medians and smallest maximum. In 16-bit lanes: r and g of both rows
     * together, then blue of row y and of row y + 1 in the two lanes of
     * one pass; alpha is copied. */
    const int y = (int)get_global_id(1) * 2, x0 = (int)get_global_id(0) * MED3_PX;
    if (y >= h || x0 >= w)
        return;
    uchar4 u0[MED3_COLS], u1[MED3_COLS], u2[MED3_COLS], u3[MED3_COLS];
    const int ya = max(y - 1, 0), yb = min(y + 1, h - 1), yc = min(y + 2, h - 1);
    if (x0 + MED3_PX < w) {
        MED3_LOAD_ROW(ya, u0);
        MED3_LOAD_ROW(y, u1);
        MED3_LOAD_ROW(yb, u2);
        MED3_LOAD_ROW(yc, u3);
    } else {
        for (int j = 0; j < MED3_COLS; ++j) {
            const int cx = clamp(x0 - 1 + j, 0, w - 1);
            u0[j] = src[ya * stride + cx];
            u1[j] = src[y * stride + cx];
            u2[j] = src[yb * stride + cx];
            u3[j] = src[yc * stride + cx];
        }
    }
    ushort2 lo[MED3_COLS], mid[MED3_COLS], hi[MED3_COLS], lo2[MED3_COLS], mid2[MED3_COLS],
        hi2[MED3_COLS];
    for (int j = 0; j < MED3_COLS; ++j) {
        ushort2 m0 = clv_rg(u1[j]), m1 = clv_rg(u2[j]);
        SORT2(ushort2, m0, m1);
        ushort2 v = clv_rg(u0[j]);
        lo[j] = MED_MIN(ushort2, v, m0);
        v = MED_MAX(ushort2, v, m0);
        mid[j] = MED_MIN(ushort2, v, m1);
        hi[j] = MED_MAX(ushort2, v, m1);
        v = clv_rg(u3[j]);
        lo2[j] = MED_MIN(ushort2, v, m0);
        v = MED_MAX(ushort2, v, m0);
        mid2[j] = MED_MIN(ushort2, v, m1);
        hi2[j] = MED_MAX(ushort2, v, m1);
    }
    ushort2 rg[MED3_PX], rg2[MED3_PX], bb[MED3_PX];
    /* Row y's windows on the integer pipe, row y + 1's and blue's on the
     * floating-point one (medf2): the exchanges split between the two
     * (median 3x3 on an H200 from 67-68% of the copy bandwidth to 71-73%). */
    med3_windows_ushort2(lo, mid, hi, rg);
    med3_windows_medf2(lo2, mid2, hi2, rg2);
    medf2 flo[MED3_COLS], fmid[MED3_COLS], fhi[MED3_COLS];
    for (int j = 0; j < MED3_COLS; ++j) {
        medf2 a = clv_blue2(u0[j], u1[j]), b = clv_blue2(u1[j], u2[j]), c = clv_blue2(u2[j], u3[j]);
        SORT2(medf2, a, b);
        SORT2(medf2, b, c);
        SORT2(medf2, a, b);
        flo[j] = a;
        fmid[j] = b;
        fhi[j] = c;
    }
    med3_windows_medf2(flo, fmid, fhi, bb);
    for (int k = 0; k < MED3_PX; k += 4) {
        median_store4(src, dst, w, stride, y, x0 + k, rg + k, bb + k, 0, u1 + 1 + k);
        if (y + 1 < h)
            median_store4(src, dst, w, stride, y + 1, x0 + k, rg2 + k, bb + k, 1, u2 + 1 + k);
    }
#endif
}
#if CLV_ROW
/* Inside the stage's conversions (cl/yuv.cl), reach 1. */
__kernel void median3_yuv(CLV_FUSED_ARGS)
{
    CLV_FUSED_BODY(median3_row(fsrc, fdst, w, fh, stride, fy));
}
#endif
#endif

#else /* CLV_DEPTH == 16: the same window on ushort channels */

#if CLV_MEDIAN_KIND < 0 || CLV_MEDIAN_KIND == 0
inline ushort4 median3_pixel(__global const ushort4 *src, int w, int h, int stride, int x, int y)
{
    const int ym = clamp(y - 1, 0, h - 1) * stride, y0 = y * stride,
              yp = clamp(y + 1, 0, h - 1) * stride;
    const int xm = clamp(x - 1, 0, w - 1), xp = clamp(x + 1, 0, w - 1);
    ushort4 p0 = src[ym + xm], p1 = src[ym + x], p2 = src[ym + xp];
    ushort4 p3 = src[y0 + xm], p4 = src[y0 + x], p5 = src[y0 + xp];
    ushort4 p6 = src[yp + xm], p7 = src[yp + x], p8 = src[yp + xp];
    const ushort alpha = p4.w;
    MEDIAN9(ushort4);
    p4.w = alpha;
    return p4;
}

#if CLV_ROW
/* Row y: the network on every channel of the interior, as at 8 bits. */
CLV_ROW_FN void median3_row(CLV_FRAME_ARGS, int y)
{
    dst[y * stride] = median3_pixel(src, w, h, stride, 0, y);
    if (w > 1)
        dst[y * stride + w - 1] = median3_pixel(src, w, h, stride, w - 1, y);
    __global const ushort *r0 = MED_ROW16_CONST(src, max(y - 1, 0));
    __global const ushort *r1 = MED_ROW16_CONST(src, y);
    __global const ushort *r2 = MED_ROW16_CONST(src, min(y + 1, h - 1));
    __global ushort *restrict out = MED_ROW16(dst, y);
    for (int i = 4; i < 4 * (w - 1); ++i) {
        ushort p0 = r0[i - 4], p1 = r0[i], p2 = r0[i + 4];
        ushort p3 = r1[i - 4], p4 = r1[i], p5 = r1[i + 4];
        ushort p6 = r2[i - 4], p7 = r2[i], p8 = r2[i + 4];
        MEDIAN9(ushort);
        out[i] = p4;
    }
    median_row_alpha16(out, r1, 1, w - 1);
}
#endif

/* The median of three values. */
#define MEDIAN3(T, a, b, c) MED_MAX(T, MED_MIN(T, a, b), MED_MIN(T, MED_MAX(T, a, b), c))

__kernel void median3(CLV_FRAME_ARGS)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    median3_row(src, dst, w, h, stride, y);
#else
    /* Four outputs of one row a work-item: the six columns of three
     * sorted once, and each window's median the median of its columns'
     * largest minimum, median of medians and smallest maximum. */
    CLV_WIN3(src, w, h, stride, dst[y * stride + x] = median3_pixel(src, w, h, stride, x, y));
    ushort4 lo[6], mid[6], hi[6];
    for (int j = 0; j < 6; ++j) {
        ushort4 p = a[j], q = b[j], r = c[j];
        SORT2(ushort4, p, q);
        SORT2(ushort4, q, r);
        SORT2(ushort4, p, q);
        lo[j] = p;
        mid[j] = q;
        hi[j] = r;
    }
    ushort4 o[4];
    for (int i = 0; i < 4; ++i) {
        o[i] = MEDIAN3(ushort4, MED_MAX(ushort4, MED_MAX(ushort4, lo[i], lo[i + 1]), lo[i + 2]),
                       MEDIAN3(ushort4, mid[i], mid[i + 1], mid[i + 2]),
                       MED_MIN(ushort4, MED_MIN(ushort4, hi[i], hi[i + 1]), hi[i + 2]));
        o[i].w = b[i + 1].w;
    }
    CLV_STORE4(dst, stride, y, x0, o);
#endif
}
#endif
#endif /* CLV_DEPTH */
