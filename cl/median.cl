/* median.cl - per-channel median of the (2r+1)^2 window, clamp-to-edge.
 * Channels are sorted in pairs of 16-bit lanes on GPUs and byte by byte
 * along a row on CPUs.
 *
 * The host builds one kernel a program (-DCLV_MEDIAN_KIND: 0 median3, 1
 * median5, 2 median7, 3 median_radix, 4 median_hist with -DCLV_MEDIAN_R;
 * src/filters/median.c): NVIDIA's compiler took 1.35-1.55 s for the first
 * four together, 0.19-0.23 s for median3 alone. */
#ifndef CLV_MEDIAN_KIND
#define CLV_MEDIAN_KIND -1 /* every kernel */
#endif

/* min and max by the type's name: T is uchar, uchar4 or ushort2 (two
 * 16-bit lanes, the GPU shape's channels in pairs: clv_min16x2). */
#define MED_MIN(T, a, b) med_min_##T(a, b)
#define MED_MAX(T, a, b) med_max_##T(a, b)
#define MED_MINMAX(T, lo, hi)                                                                      \
    inline T med_min_##T(T a, T b)                                                                 \
    {                                                                                              \
        return lo(a, b);                                                                           \
    }                                                                                              \
    inline T med_max_##T(T a, T b)                                                                 \
    {                                                                                              \
        return hi(a, b);                                                                           \
    }
MED_MINMAX(uchar, min, max)
MED_MINMAX(uchar4, min, max)
MED_MINMAX(ushort2, clv_min16x2, clv_max16x2)
#undef MED_MINMAX

#define SORT2(T, a, b)                                                                             \
    {                                                                                              \
        const T t_ = MED_MIN(T, a, b);                                                             \
        b = MED_MAX(T, a, b);                                                                      \
        a = t_;                                                                                    \
    }

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

#if !CLV_ROW
/* Row y's four outputs from x0: r and g from rg, b from lane `lane` of bb,
 * alpha from centre (the source's pixels x0.., or NULL: read them); the last
 * work-item of a row stores only what is inside. */
inline void median_store4(__global const uchar4 *src, __global uchar4 *dst, int w, int stride,
                          int y, int x0, const ushort2 *rg, const ushort2 *bb, int lane,
                          const uchar4 *centre)
{
    uchar4 o[4];
    for (int i = 0; i < 4; ++i)
        o[i] = clv_pixel(rg[i], bb[i], lane,
                         centre ? centre[i] : src[y * stride + min(x0 + i, w - 1)]);
    if (x0 + 4 <= w) {
        CLV_STORE4(dst, stride, y, x0, o);
    } else {
        for (int i = 0; x0 + i < w; ++i)
            dst[y * stride + x0 + i] = o[i];
    }
}
#endif

/* The median of three values. */
#define MEDIAN3(T, a, b, c) MED_MAX(T, MED_MIN(T, a, b), MED_MIN(T, MED_MAX(T, a, b), c))
/* The 3x3 median of output i from its columns' sorted values (columns i,
 * i + 1, i + 2). */
#define MEDIAN3_OF_COLUMNS(lo, mid, hi, i)                                                         \
    MEDIAN3(ushort2, MED_MAX(ushort2, MED_MAX(ushort2, lo[i], lo[i + 1]), lo[i + 2]),              \
            MEDIAN3(ushort2, mid[i], mid[i + 1], mid[i + 2]),                                      \
            MED_MIN(ushort2, MED_MIN(ushort2, hi[i], hi[i + 1]), hi[i + 2]))

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
    /* Four outputs in each of two rows a work-item. Each column of three
     * is sorted (the two rows share its middle two values), and a window's
     * median is the median of its columns' largest minimum, median of
     * medians and smallest maximum. In 16-bit lanes: r and g of both rows
     * together, then blue of row y and of row y + 1 in the two lanes of
     * one pass; alpha is copied. */
    const int y = (int)get_global_id(1) * 2, x0 = (int)get_global_id(0) * 4;
    if (y >= h || x0 >= w)
        return;
    uchar4 u0[6], u1[6], u2[6], u3[6];
    const int ya = max(y - 1, 0), yb = min(y + 1, h - 1), yc = min(y + 2, h - 1);
    if (x0 + 4 < w) {
        CLV_WIN3_ROW(src, stride, ya, x0, u0);
        CLV_WIN3_ROW(src, stride, y, x0, u1);
        CLV_WIN3_ROW(src, stride, yb, x0, u2);
        CLV_WIN3_ROW(src, stride, yc, x0, u3);
    } else {
        for (int j = 0; j < 6; ++j) {
            const int cx = clamp(x0 - 1 + j, 0, w - 1);
            u0[j] = src[ya * stride + cx];
            u1[j] = src[y * stride + cx];
            u2[j] = src[yb * stride + cx];
            u3[j] = src[yc * stride + cx];
        }
    }
    ushort2 lo[6], mid[6], hi[6], lo2[6], mid2[6], hi2[6];
    for (int j = 0; j < 6; ++j) {
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
    ushort2 rg[4], rg2[4];
    for (int i = 0; i < 4; ++i) {
        rg[i] = MEDIAN3_OF_COLUMNS(lo, mid, hi, i);
        rg2[i] = MEDIAN3_OF_COLUMNS(lo2, mid2, hi2, i);
    }
    for (int j = 0; j < 6; ++j) {
        ushort2 a = clv_blue2(u0[j], u1[j]), b = clv_blue2(u1[j], u2[j]),
                c = clv_blue2(u2[j], u3[j]);
        SORT2(ushort2, a, b);
        SORT2(ushort2, b, c);
        SORT2(ushort2, a, b);
        lo[j] = a;
        mid[j] = b;
        hi[j] = c;
    }
    ushort2 bb[4];
    for (int i = 0; i < 4; ++i)
        bb[i] = MEDIAN3_OF_COLUMNS(lo, mid, hi, i);
    median_store4(src, dst, w, stride, y, x0, rg, bb, 0, u1 + 1);
    if (y + 1 < h)
        median_store4(src, dst, w, stride, y + 1, x0, rg2, bb, 1, u2 + 1);
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

/* Sorts five values ascending: nine exchanges (checked on all 32 0-1
 * inputs). */
#define SORT5(T, a, b, c, d, e)                                                                    \
    SORT2(T, a, b);                                                                                \
    SORT2(T, d, e);                                                                                \
    SORT2(T, c, e);                                                                                \
    SORT2(T, c, d);                                                                                \
    SORT2(T, a, d);                                                                                \
    SORT2(T, a, c);                                                                                \
    SORT2(T, b, e);                                                                                \
    SORT2(T, b, d);                                                                                \
    SORT2(T, b, c)

/* Generated by scripts/median-network.py --tries 150 --seed 1: 66 exchanges,
 * 108 min/max operations once unused halves are dropped; proved on all
 * 7776 column-sorted 0-1 windows. c<col><rank>: column col (x-2..x+2) sorted
 * ascending; the median ends in c14. */
// clang-format off
#define MEDIAN25_COLS(T) \
    SORT2(T, c22, c12); SORT2(T, c01, c32); SORT2(T, c31, c11); SORT2(T, c22, c01); \
    SORT2(T, c22, c31); SORT2(T, c42, c12); SORT2(T, c32, c12); SORT2(T, c02, c42); \
    SORT2(T, c01, c32); SORT2(T, c33, c13); SORT2(T, c21, c43); SORT2(T, c02, c01); \
    SORT2(T, c02, c41); SORT2(T, c32, c42); SORT2(T, c24, c42); SORT2(T, c24, c03); \
    SORT2(T, c01, c31); SORT2(T, c01, c41); SORT2(T, c11, c32); SORT2(T, c13, c32); \
    SORT2(T, c23, c32); SORT2(T, c31, c11); SORT2(T, c33, c13); SORT2(T, c41, c23); \
    SORT2(T, c31, c21); SORT2(T, c23, c11); SORT2(T, c03, c11); SORT2(T, c10, c20); \
    SORT2(T, c33, c24); SORT2(T, c33, c10); SORT2(T, c43, c13); SORT2(T, c10, c20); \
    SORT2(T, c41, c10); SORT2(T, c43, c23); SORT2(T, c03, c23); SORT2(T, c20, c23); \
    SORT2(T, c21, c43); SORT2(T, c24, c03); SORT2(T, c40, c30); SORT2(T, c21, c40); \
    SORT2(T, c03, c43); SORT2(T, c20, c43); SORT2(T, c30, c43); SORT2(T, c10, c20); \
    SORT2(T, c24, c10); SORT2(T, c24, c40); SORT2(T, c20, c03); SORT2(T, c30, c03); \
    SORT2(T, c04, c03); SORT2(T, c10, c20); SORT2(T, c40, c30); SORT2(T, c04, c34); \
    SORT2(T, c10, c40); SORT2(T, c34, c20); SORT2(T, c40, c30); SORT2(T, c04, c34); \
    SORT2(T, c40, c00); SORT2(T, c34, c30); SORT2(T, c00, c30); SORT2(T, c04, c34); \
    SORT2(T, c00, c44); SORT2(T, c04, c00); SORT2(T, c44, c34); SORT2(T, c00, c44); \
    SORT2(T, c00, c14); SORT2(T, c14, c44);
// clang-format on
#define MEDIAN25_OUT c14

/* The 5x5 median from the window's columns, each sorted first. */
#define MEDIAN25_LOAD_COLUMN(T, col, get)                                                          \
    T c##col##0 = get(col, 0), c##col##1 = get(col, 1), c##col##2 = get(col, 2),                   \
      c##col##3 = get(col, 3), c##col##4 = get(col, 4)

inline uchar4 median5_pixel(__global const uchar4 *src, int w, int h, int stride, int x, int y)
{
#define AT(col, rank) src[clamp(y + (rank)-2, 0, h - 1) * stride + clamp(x + (col)-2, 0, w - 1)]
    MEDIAN25_LOAD_COLUMN(uchar4, 0, AT);
    MEDIAN25_LOAD_COLUMN(uchar4, 1, AT);
    MEDIAN25_LOAD_COLUMN(uchar4, 2, AT);
    MEDIAN25_LOAD_COLUMN(uchar4, 3, AT);
    MEDIAN25_LOAD_COLUMN(uchar4, 4, AT);
#undef AT
    const uchar alpha = c22.w;
    SORT5(uchar4, c00, c01, c02, c03, c04);
    SORT5(uchar4, c10, c11, c12, c13, c14);
    SORT5(uchar4, c20, c21, c22, c23, c24);
    SORT5(uchar4, c30, c31, c32, c33, c34);
    SORT5(uchar4, c40, c41, c42, c43, c44);
    MEDIAN25_COLS(uchar4);
    MEDIAN25_OUT.w = alpha;
    return MEDIAN25_OUT;
}

/* Generated by scripts/median5-shared.py: 65 exchanges, 109 min/max
 * operations; proved on all 1296 column-sorted 0-1 inputs. p<col><rank>:
 * the four shared columns sorted ascending; out m0..m5: ranks 8..13. */
// clang-format off
#define MEDIAN5_MID6(T, m0, m1, m2, m3, m4, m5)                                                       \
    T q5 = (T)255, q6 = (T)255, q7 = (T)255, q13 = (T)255, q21 = (T)255, q22 = (T)255, q23 = (T)255;  \
    SORT2(T, p00, p10);                                                                               \
    SORT2(T, p04, p14);                                                                               \
    SORT2(T, p04, p10);                                                                               \
    SORT2(T, p02, p12);                                                                               \
    SORT2(T, q6, p12);                                                                                \
    SORT2(T, p02, p04);                                                                               \
    SORT2(T, q6, p10);                                                                                \
    SORT2(T, p12, p14);                                                                               \
    SORT2(T, p01, p11);                                                                               \
    SORT2(T, q5, p11);                                                                                \
    SORT2(T, p03, p13);                                                                               \
    SORT2(T, q7, p13);                                                                                \
    SORT2(T, p03, q5);                                                                                \
    SORT2(T, p01, p02);                                                                               \
    SORT2(T, p03, p04);                                                                               \
    SORT2(T, q5, q6);                                                                                 \
    SORT2(T, q7, p10);                                                                                \
    SORT2(T, p11, p12);                                                                               \
    SORT2(T, p20, p30);                                                                               \
    SORT2(T, p24, p34);                                                                               \
    SORT2(T, p24, p30);                                                                               \
    SORT2(T, p22, p32);                                                                               \
    SORT2(T, q22, p32);                                                                               \
    SORT2(T, p22, p24);                                                                               \
    SORT2(T, q22, p30);                                                                               \
    p32 = MED_MIN(T, p32, p34);                                                                              \
    SORT2(T, p21, p31);                                                                               \
    SORT2(T, q21, p31);                                                                               \
    SORT2(T, p23, p33);                                                                               \
    q23 = MED_MIN(T, q23, p33);                                                                              \
    SORT2(T, p23, q21);                                                                               \
    SORT2(T, p21, p22);                                                                               \
    SORT2(T, p23, p24);                                                                               \
    SORT2(T, q21, q22);                                                                               \
    SORT2(T, q23, p30);                                                                               \
    p31 = MED_MIN(T, p31, p32);                                                                              \
    p20 = MED_MAX(T, p00, p20);                                                                              \
    p10 = MED_MIN(T, p10, p30);                                                                              \
    SORT2(T, p10, p20);                                                                               \
    SORT2(T, p04, p24);                                                                               \
    p14 = MED_MIN(T, p14, p24);                                                                              \
    p10 = MED_MAX(T, p04, p10);                                                                              \
    p14 = MED_MIN(T, p14, p20);                                                                              \
    p22 = MED_MAX(T, p02, p22);                                                                              \
    p12 = MED_MIN(T, p12, p22);                                                                              \
    q6 = MED_MIN(T, q6, q22);                                                                                \
    SORT2(T, q6, p12);                                                                                \
    p10 = MED_MAX(T, q6, p10);                                                                               \
    SORT2(T, p12, p14);                                                                               \
    p21 = MED_MAX(T, p01, p21);                                                                              \
    p11 = MED_MIN(T, p11, p31);                                                                              \
    SORT2(T, p11, p21);                                                                               \
    SORT2(T, q5, q21);                                                                                \
    q13 = MED_MIN(T, q13, q21);                                                                              \
    p11 = MED_MAX(T, q5, p11);                                                                               \
    q13 = MED_MIN(T, q13, p21);                                                                              \
    p23 = MED_MAX(T, p03, p23);                                                                              \
    p13 = MED_MIN(T, p13, p23);                                                                              \
    q7 = MED_MIN(T, q7, q23);                                                                                \
    SORT2(T, q7, p13);                                                                                \
    SORT2(T, q7, p11);                                                                                \
    p13 = MED_MIN(T, p13, q13);                                                                              \
    SORT2(T, q7, p10);                                                                                \
    SORT2(T, p11, p12);                                                                               \
    SORT2(T, p13, p14);                                                                               \
    m0 = q7; m1 = p10; m2 = p11; m3 = p12; m4 = p13; m5 = p14;
// clang-format on

/* Sorts four values ascending (five exchanges). */
#define SORT4(T, a, b, c, d)                                                                       \
    SORT2(T, a, b);                                                                                \
    SORT2(T, c, d);                                                                                \
    SORT2(T, a, c);                                                                                \
    SORT2(T, b, d);                                                                                \
    SORT2(T, b, c)

/* c0..c4 = v put into m0..m3 (ascending): v sinks from the bottom. */
#define INSERT5(T, v, m0, m1, m2, m3, c0, c1, c2, c3, c4)                                          \
    {                                                                                              \
        T v_ = v;                                                                                  \
        c0 = MED_MIN(T, v_, m0);                                                                   \
        v_ = MED_MAX(T, v_, m0);                                                                   \
        c1 = MED_MIN(T, v_, m1);                                                                   \
        v_ = MED_MAX(T, v_, m1);                                                                   \
        c2 = MED_MIN(T, v_, m2);                                                                   \
        v_ = MED_MAX(T, v_, m2);                                                                   \
        c3 = MED_MIN(T, v_, m3);                                                                   \
        c4 = MED_MAX(T, v_, m3);                                                                   \
    }

/* The six middle values of four shared sorted columns (m ascending). */
inline void median5_mid6(ushort2 p00, ushort2 p01, ushort2 p02, ushort2 p03, ushort2 p04,
                         ushort2 p10, ushort2 p11, ushort2 p12, ushort2 p13, ushort2 p14,
                         ushort2 p20, ushort2 p21, ushort2 p22, ushort2 p23, ushort2 p24,
                         ushort2 p30, ushort2 p31, ushort2 p32, ushort2 p33, ushort2 p34,
                         ushort2 *m)
{
    MEDIAN5_MID6(ushort2, m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* The 6th smallest of m (six, ascending) and b0..b4 (ascending): the
 * least over the ways of taking i from m and 6 - i from b of the larger
 * of the two i-th and (6 - i)-th. That is the window's median. */
inline ushort2 median5_last(const ushort2 *m, ushort2 b0, ushort2 b1, ushort2 b2, ushort2 b3,
                            ushort2 b4)
{
    return med_min_ushort2(
        med_min_ushort2(med_min_ushort2(med_max_ushort2(m[0], b4), med_max_ushort2(m[1], b3)),
                        med_min_ushort2(med_max_ushort2(m[2], b2), med_max_ushort2(m[3], b1))),
        med_min_ushort2(med_max_ushort2(m[4], b0), m[5]));
}

#define MEDIAN5_TILE 256

/* s<rank>[i] = the rank-th smallest of the five rows' byte i: the columns
 * sorted once for the five windows that share each. */
inline void median5_columns(__global const uchar *restrict r0, __global const uchar *restrict r1,
                            __global const uchar *restrict r2, __global const uchar *restrict r3,
                            __global const uchar *restrict r4, uchar *restrict s0,
                            uchar *restrict s1, uchar *restrict s2, uchar *restrict s3,
                            uchar *restrict s4, int len)
{
    for (int i = 0; i < len; ++i) {
        uchar a = r0[i], b = r1[i], c = r2[i], d = r3[i], e = r4[i];
        SORT5(uchar, a, b, c, d, e);
        s0[i] = a;
        s1[i] = b;
        s2[i] = c;
        s3[i] = d;
        s4[i] = e;
    }
}

/* out[i] = the median of the window whose sorted columns start at s*[i]
 * (byte columns 4 apart), alpha bytes too (the caller puts them back). */
inline void median5_select(const uchar *restrict s0, const uchar *restrict s1,
                           const uchar *restrict s2, const uchar *restrict s3,
                           const uchar *restrict s4, __global uchar *restrict out, int len)
{
#define AT(col, rank) s##rank[i + 4 * (col)]
    for (int i = 0; i < len; ++i) {
        MEDIAN25_LOAD_COLUMN(uchar, 0, AT);
        MEDIAN25_LOAD_COLUMN(uchar, 1, AT);
        MEDIAN25_LOAD_COLUMN(uchar, 2, AT);
        MEDIAN25_LOAD_COLUMN(uchar, 3, AT);
        MEDIAN25_LOAD_COLUMN(uchar, 4, AT);
        MEDIAN25_COLS(uchar);
        out[i] = MEDIAN25_OUT; /* alpha too: median5_row puts it back */
    }
#undef AT
}

#if CLV_MEDIAN_KIND < 0 || CLV_MEDIAN_KIND == 1
#if CLV_ROW
/* Row y (the row kernel's body, and the fused kernel's on its strips). */
CLV_ROW_FN void median5_row(CLV_FRAME_ARGS, int y)
{
    CLV_ROW_EDGES(x, 2)
    dst[y * stride + x] = median5_pixel(src, w, h, stride, x, y);
    __global const uchar *r0 = CLV_ROW_BYTES_CONST(src, max(y - 2, 0));
    __global const uchar *r1 = CLV_ROW_BYTES_CONST(src, max(y - 1, 0));
    __global const uchar *r2 = CLV_ROW_BYTES_CONST(src, y);
    __global const uchar *r3 = CLV_ROW_BYTES_CONST(src, min(y + 1, h - 1));
    __global const uchar *r4 = CLV_ROW_BYTES_CONST(src, min(y + 2, h - 1));
    __global uchar *restrict out = CLV_ROW_BYTES(dst, y);
    uchar s0[MEDIAN5_TILE + 16], s1[MEDIAN5_TILE + 16], s2[MEDIAN5_TILE + 16],
        s3[MEDIAN5_TILE + 16], s4[MEDIAN5_TILE + 16];
    for (int t = 8; t < 4 * (w - 2); t += MEDIAN5_TILE) {
        const int len = min(MEDIAN5_TILE, 4 * (w - 2) - t);
        median5_columns(r0 + t - 8, r1 + t - 8, r2 + t - 8, r3 + t - 8, r4 + t - 8, s0, s1, s2, s3,
                        s4, len + 16);
        median5_select(s0, s1, s2, s3, s4, out + t, len);
    }
    clv_row_alpha(out, r2, 2, w - 2);
}
#endif

__kernel void median5(CLV_FRAME_ARGS)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    median5_row(src, dst, w, h, stride, y);
#else
    /* Four outputs in each of two rows a work-item: eight columns of six
     * rows, the middle four sorted once and the top and the bottom value
     * each put in (a sorted five for each row); the two pairs of
     * neighbouring windows share four columns, of which only ranks 8..13
     * can be a median (MEDIAN5_MID6); each output is then the 6th smallest
     * of those six and its own fifth column (median5_last). */
    const int y = (int)get_global_id(1) * 2, x0 = (int)get_global_id(0) * 4;
    if (y >= h || x0 >= w)
        return;
    const int r0 = max(y - 2, 0) * stride, r1 = max(y - 1, 0) * stride, r2 = y * stride,
              r3 = min(y + 1, h - 1) * stride, r4 = min(y + 2, h - 1) * stride,
              r5 = min(y + 3, h - 1) * stride;
#define COLUMN(j)                                                                                  \
    const int cx##j = clamp(x0 - 2 + (j), 0, w - 1);                                               \
    const uchar4 u##j##0 = src[r0 + cx##j], u##j##1 = src[r1 + cx##j], u##j##2 = src[r2 + cx##j],  \
                 u##j##3 = src[r3 + cx##j], u##j##4 = src[r4 + cx##j], u##j##5 = src[r5 + cx##j]
    COLUMN(0);
    COLUMN(1);
    COLUMN(2);
    COLUMN(3);
    COLUMN(4);
    COLUMN(5);
    COLUMN(6);
    COLUMN(7);
#undef COLUMN
    /* r and g of both rows as one pair of 16-bit lanes (packed 16-bit
     * min/max, a little faster than all four channels in byte lanes: H100
     * 4K 180 -> 177 us; 7x7 463 -> 424 us); with the packed instruction
     * forced (MED_MIN) 150 -> 118 us. */
#define HALF_COLUMN(j, SEL)                                                                        \
    ushort2 m##j##0 = SEL(u##j##1), m##j##1 = SEL(u##j##2), m##j##2 = SEL(u##j##3),                \
            m##j##3 = SEL(u##j##4);                                                                \
    SORT4(ushort2, m##j##0, m##j##1, m##j##2, m##j##3);                                            \
    ushort2 p##j##0, p##j##1, p##j##2, p##j##3, p##j##4, q##j##0, q##j##1, q##j##2, q##j##3,       \
        q##j##4;                                                                                   \
    INSERT5(ushort2, SEL(u##j##0), m##j##0, m##j##1, m##j##2, m##j##3, p##j##0, p##j##1, p##j##2,  \
            p##j##3, p##j##4);                                                                     \
    INSERT5(ushort2, SEL(u##j##5), m##j##0, m##j##1, m##j##2, m##j##3, q##j##0, q##j##1, q##j##2,  \
            q##j##3, q##j##4)
#define FOUR(P, o)                                                                                 \
    {                                                                                              \
        ushort2 m[6], n[6];                                                                        \
        median5_mid6(P##1##0, P##1##1, P##1##2, P##1##3, P##1##4, P##2##0, P##2##1, P##2##2,       \
                     P##2##3, P##2##4, P##3##0, P##3##1, P##3##2, P##3##3, P##3##4, P##4##0,       \
                     P##4##1, P##4##2, P##4##3, P##4##4, m);                                       \
        median5_mid6(P##3##0, P##3##1, P##3##2, P##3##3, P##3##4, P##4##0, P##4##1, P##4##2,       \
                     P##4##3, P##4##4, P##5##0, P##5##1, P##5##2, P##5##3, P##5##4, P##6##0,       \
                     P##6##1, P##6##2, P##6##3, P##6##4, n);                                       \
        o[0] = median5_last(m, P##0##0, P##0##1, P##0##2, P##0##3, P##0##4);                       \
        o[1] = median5_last(m, P##5##0, P##5##1, P##5##2, P##5##3, P##5##4);                       \
        o[2] = median5_last(n, P##2##0, P##2##1, P##2##2, P##2##3, P##2##4);                       \
        o[3] = median5_last(n, P##7##0, P##7##1, P##7##2, P##7##3, P##7##4);                       \
    }
    ushort2 rg[4], rg2[4], bb[4];
    {
        HALF_COLUMN(0, clv_rg);
        HALF_COLUMN(1, clv_rg);
        HALF_COLUMN(2, clv_rg);
        HALF_COLUMN(3, clv_rg);
        HALF_COLUMN(4, clv_rg);
        HALF_COLUMN(5, clv_rg);
        HALF_COLUMN(6, clv_rg);
        HALF_COLUMN(7, clv_rg);
        FOUR(p, rg);
        FOUR(q, rg2);
    }
    /* Blue of row y and of row y + 1 in the two lanes of one pass (a
     * plain sorted five for each, as they share no rows' sort): a quarter
     * fewer min/max than b and a as a second pair, 118 -> 96 us. Alpha is
     * copied, never sorted. */
#define BLUE_COLUMN(j)                                                                             \
    ushort2 p##j##0 = clv_blue2(u##j##0, u##j##1), p##j##1 = clv_blue2(u##j##1, u##j##2),          \
            p##j##2 = clv_blue2(u##j##2, u##j##3), p##j##3 = clv_blue2(u##j##3, u##j##4),          \
            p##j##4 = clv_blue2(u##j##4, u##j##5);                                                 \
    SORT5(ushort2, p##j##0, p##j##1, p##j##2, p##j##3, p##j##4)
    {
        BLUE_COLUMN(0);
        BLUE_COLUMN(1);
        BLUE_COLUMN(2);
        BLUE_COLUMN(3);
        BLUE_COLUMN(4);
        BLUE_COLUMN(5);
        BLUE_COLUMN(6);
        BLUE_COLUMN(7);
        FOUR(p, bb);
    }
#undef BLUE_COLUMN
#undef FOUR
#undef HALF_COLUMN
    median_store4(src, dst, w, stride, y, x0, rg, bb, 0, NULL);
    if (y + 1 < h)
        median_store4(src, dst, w, stride, y + 1, x0, rg2, bb, 1, NULL);
#endif
}
#if CLV_ROW
/* Inside the stage's conversions (cl/yuv.cl), reach 2. */
__kernel void median5_yuv(CLV_FUSED_ARGS)
{
    CLV_FUSED_BODY(median5_row(fsrc, fdst, w, fh, stride, fy));
}
#endif
#endif

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

#if !CLV_ROW && (CLV_MEDIAN_KIND < 0 || CLV_MEDIAN_KIND == 4)
/* Radius 4 to 7 on GPUs: each work-item slides its column's window down a
 * strip of rows, keeping a 256-bin histogram per channel in local memory
 * (Huang's sliding histogram): a row down costs 2r + 1 additions and as
 * many removals instead of recounting (2r + 1)^2 values eight times. The
 * median is found 16 bins at a time from the previous one's chunk, which
 * neighbouring rows rarely leave. Counts fit a byte (at most 225). A
 * work-item slides down `strip` rows (the host's choice: long strips spend
 * less on filling histograms, short ones fill the device on small frames).
 * The radius is the program's (-DCLV_MEDIAN_R): the loops over a row
 * unroll, and a row's pixels are all loaded before they are counted. */
#ifndef CLV_MEDIAN_R
#define CLV_MEDIAN_R 4 /* the host builds a program a radius */
#endif
#define MEDIAN_HIST_D (2 * CLV_MEDIAN_R + 1)
#define MEDIAN_HIST_GROUP 32 /* work-items a group: one column each */
#define MEDIAN_HIST_BINS 272 /* 256 and a chunk of padding: no bank conflicts */

/* Chunk c's 16 bins, and how many values they hold. */
inline uint4 median_chunk(__local const uchar *h, int c)
{
    return *(__local const uint4 *)(h + 16 * c);
}

inline int median_chunk_sum(uint4 q)
{
    const uint4 a = (q & 0x00ff00ffu) + ((q >> 8) & 0x00ff00ffu);
    const uint s = a.x + a.y + a.z + a.w;
    return (int)((s & 0xffffu) + (s >> 16));
}

/* One channel's running state beside its histogram: the chunk holding the
 * last median and how many values lie in the chunks below it. */
typedef struct median_hist_state {
    int chunk, below;
} median_hist_state;

inline void median_hist_put(__local uchar *restrict h, median_hist_state *s, uint v, int d)
{
    h[v] += (uchar)d;
    s->below += (int)(v >> 4) < s->chunk ? d : 0;
}

/* The smallest value with more than k values at or below it: the chunk
 * from the last one's, then the bin within it from the chunk's bytes in
 * registers (their running counts fit a byte: at most 225 values). */
inline uchar median_hist_find(__local const uchar *h, median_hist_state *s, int k)
{
    uint4 q = median_chunk(h, s->chunk);
    int n = median_chunk_sum(q);
    while (s->below > k) {
        q = median_chunk(h, --s->chunk);
        n = median_chunk_sum(q);
        s->below -= n;
    }
    while (s->below + n <= k) {
        s->below += n;
        q = median_chunk(h, ++s->chunk);
        n = median_chunk_sum(q);
    }
    /* The first bin whose running count passes t is the number of bins
     * whose running count does not. */
    const int t = k - s->below;
    const uint words[4] = {q.x, q.y, q.z, q.w};
    int v = 16 * s->chunk;
    uint base = 0;
    for (int j = 0; j < 4; ++j) {
        const uint run = (words[j] + base) * 0x01010101u; /* bytes: running counts */
        for (int b = 0; b < 4; ++b)
            v += (int)((run >> (8 * b)) & 0xffu) <= t;
        base = run >> 24;
    }
    return (uchar)v;
}

/* Row y's 2r + 1 pixels around x, loaded together so that their latencies
 * overlap (the radius is the program's: the loops unroll, p stays in
 * registers). */
inline void median_hist_load(uchar4 *p, __global const uchar4 *src, int w, int h, int stride, int x,
                             int y)
{
    __global const uchar4 *row = src + clamp(y, 0, h - 1) * stride;
    for (int i = 0; i < MEDIAN_HIST_D; ++i)
        p[i] = row[clamp(x + i - CLV_MEDIAN_R, 0, w - 1)];
}

/* Adds (d = 1) or removes (d = -1) a row's pixels; the three channels'
 * histograms are apart, so their updates can overlap. */
inline void median_hist_add(__local uchar *restrict h0, __local uchar *restrict h1,
                            __local uchar *restrict h2, median_hist_state *s, const uchar4 *p,
                            int d)
{
    for (int i = 0; i < MEDIAN_HIST_D; ++i) {
        median_hist_put(h0, &s[0], p[i].x, d);
        median_hist_put(h1, &s[1], p[i].y, d);
        median_hist_put(h2, &s[2], p[i].z, d);
    }
}

__kernel __attribute__((reqd_work_group_size(MEDIAN_HIST_GROUP, 1, 1))) void
median_hist(CLV_FRAME_ARGS, int strip)
{
    __local uint4 hist[3 * MEDIAN_HIST_GROUP * MEDIAN_HIST_BINS / 16];
    const int x = (int)get_global_id(0), y0 = (int)get_global_id(1) * strip;
    if (x >= w || y0 >= h)
        return; /* the histograms are each work-item's own: no barrier */
    const int lid = (int)get_local_id(0), k = MEDIAN_HIST_D * MEDIAN_HIST_D / 2;
    __local uchar *hc[3];
    for (int c = 0; c < 3; ++c) {
        __local uint4 *mine = hist + (c * MEDIAN_HIST_GROUP + lid) * (MEDIAN_HIST_BINS / 16);
        for (int i = 0; i < MEDIAN_HIST_BINS / 16; ++i)
            mine[i] = (uint4)0;
        hc[c] = (__local uchar *)mine;
    }
    median_hist_state s[3] = {{8, 0}, {8, 0}, {8, 0}};
    uchar4 gone[MEDIAN_HIST_D], come[MEDIAN_HIST_D];
    for (int dy = -CLV_MEDIAN_R; dy <= CLV_MEDIAN_R; ++dy) {
        median_hist_load(come, src, w, h, stride, x, y0 + dy);
        median_hist_add(hc[0], hc[1], hc[2], s, come, 1);
    }
    const int y1 = min(y0 + strip, h);
    for (int y = y0;; ++y) {
        /* The next row's pixels are on their way while this row's median
         * is found. */
        const int more = y + 1 < y1;
        if (more) {
            median_hist_load(gone, src, w, h, stride, x, y - CLV_MEDIAN_R);
            median_hist_load(come, src, w, h, stride, x, y + CLV_MEDIAN_R + 1);
        }
        uchar4 o;
        o.x = median_hist_find(hc[0], &s[0], k);
        o.y = median_hist_find(hc[1], &s[1], k);
        o.z = median_hist_find(hc[2], &s[2], k);
        o.w = src[y * stride + x].w;
        dst[y * stride + x] = o;
        if (!more)
            break;
        median_hist_add(hc[0], hc[1], hc[2], s, gone, -1);
        median_hist_add(hc[0], hc[1], hc[2], s, come, 1);
    }
}
#endif

/* Sorts seven values ascending: sixteen exchanges (checked on all 128 0-1
 * inputs). */
#define SORT7(T, a, b, c, d, e, f, g)                                                              \
    SORT2(T, a, g);                                                                                \
    SORT2(T, c, d);                                                                                \
    SORT2(T, e, f);                                                                                \
    SORT2(T, a, c);                                                                                \
    SORT2(T, b, e);                                                                                \
    SORT2(T, d, g);                                                                                \
    SORT2(T, a, b);                                                                                \
    SORT2(T, c, f);                                                                                \
    SORT2(T, d, e);                                                                                \
    SORT2(T, b, c);                                                                                \
    SORT2(T, e, g);                                                                                \
    SORT2(T, c, d);                                                                                \
    SORT2(T, e, f);                                                                                \
    SORT2(T, b, c);                                                                                \
    SORT2(T, d, e);                                                                                \
    SORT2(T, f, g)

/* Generated by scripts/median5-shared.py --radius 3: 179 exchanges, 320
 * min/max operations; proved on all 262144 column-sorted 0-1 inputs.
 * p<col><rank>: the 6 shared columns sorted ascending; out m0..m7:
 * ranks 18..25. */
// clang-format off
#define MEDIAN7_MID8(T, m0, m1, m2, m3, m4, m5, m6, m7)                              \
    T q7 = (T)255, q15 = (T)255, q23 = (T)255, q39 = (T)255;                         \
    SORT2(T, p00, p10);                                                              \
    SORT2(T, p04, p14);                                                              \
    SORT2(T, p04, p10);                                                              \
    SORT2(T, p02, p12);                                                              \
    SORT2(T, p06, p16);                                                              \
    SORT2(T, p06, p12);                                                              \
    SORT2(T, p02, p04);                                                              \
    SORT2(T, p06, p10);                                                              \
    SORT2(T, p12, p14);                                                              \
    SORT2(T, p01, p11);                                                              \
    SORT2(T, p05, p15);                                                              \
    SORT2(T, p05, p11);                                                              \
    SORT2(T, p03, p13);                                                              \
    SORT2(T, q7, p13);                                                               \
    SORT2(T, p03, p05);                                                              \
    SORT2(T, q7, p11);                                                               \
    SORT2(T, p13, p15);                                                              \
    SORT2(T, p01, p02);                                                              \
    SORT2(T, p03, p04);                                                              \
    SORT2(T, p05, p06);                                                              \
    SORT2(T, q7, p10);                                                               \
    SORT2(T, p11, p12);                                                              \
    SORT2(T, p13, p14);                                                              \
    SORT2(T, p15, p16);                                                              \
    SORT2(T, p20, p30);                                                              \
    SORT2(T, p24, p34);                                                              \
    SORT2(T, p24, p30);                                                              \
    SORT2(T, p22, p32);                                                              \
    SORT2(T, p26, p36);                                                              \
    SORT2(T, p26, p32);                                                              \
    SORT2(T, p22, p24);                                                              \
    SORT2(T, p26, p30);                                                              \
    SORT2(T, p32, p34);                                                              \
    SORT2(T, p21, p31);                                                              \
    SORT2(T, p25, p35);                                                              \
    SORT2(T, p25, p31);                                                              \
    SORT2(T, p23, p33);                                                              \
    SORT2(T, q23, p33);                                                              \
    SORT2(T, p23, p25);                                                              \
    SORT2(T, q23, p31);                                                              \
    SORT2(T, p33, p35);                                                              \
    SORT2(T, p21, p22);                                                              \
    SORT2(T, p23, p24);                                                              \
    SORT2(T, p25, p26);                                                              \
    SORT2(T, q23, p30);                                                              \
    SORT2(T, p31, p32);                                                              \
    SORT2(T, p33, p34);                                                              \
    p35 = MED_MIN(T, p35, p36);                                                             \
    SORT2(T, p40, p50);                                                              \
    SORT2(T, p44, p54);                                                              \
    SORT2(T, p44, p50);                                                              \
    SORT2(T, p42, p52);                                                              \
    SORT2(T, p46, p56);                                                              \
    SORT2(T, p46, p52);                                                              \
    SORT2(T, p42, p44);                                                              \
    SORT2(T, p46, p50);                                                              \
    SORT2(T, p52, p54);                                                              \
    SORT2(T, p41, p51);                                                              \
    SORT2(T, p45, p55);                                                              \
    SORT2(T, p45, p51);                                                              \
    SORT2(T, p43, p53);                                                              \
    SORT2(T, q39, p53);                                                              \
    SORT2(T, p43, p45);                                                              \
    SORT2(T, q39, p51);                                                              \
    SORT2(T, p53, p55);                                                              \
    p20 = MED_MAX(T, p00, p20);                                                             \
    SORT2(T, p10, p30);                                                              \
    SORT2(T, p10, p20);                                                              \
    SORT2(T, p04, p24);                                                              \
    p14 = MED_MIN(T, p14, p34);                                                             \
    SORT2(T, p14, p24);                                                              \
    SORT2(T, p04, p10);                                                              \
    SORT2(T, p14, p20);                                                              \
    SORT2(T, p24, p30);                                                              \
    SORT2(T, p02, p22);                                                              \
    SORT2(T, p12, p32);                                                              \
    SORT2(T, p12, p22);                                                              \
    SORT2(T, p06, p26);                                                              \
    SORT2(T, p16, p26);                                                              \
    SORT2(T, p06, p12);                                                              \
    SORT2(T, p16, p22);                                                              \
    SORT2(T, p26, p32);                                                              \
    p04 = MED_MAX(T, p02, p04);                                                             \
    SORT2(T, p06, p10);                                                              \
    SORT2(T, p12, p14);                                                              \
    SORT2(T, p16, p20);                                                              \
    SORT2(T, p22, p24);                                                              \
    SORT2(T, p26, p30);                                                              \
    p21 = MED_MAX(T, p01, p21);                                                             \
    SORT2(T, p11, p31);                                                              \
    SORT2(T, p11, p21);                                                              \
    SORT2(T, p05, p25);                                                              \
    p15 = MED_MIN(T, p15, p35);                                                             \
    SORT2(T, p15, p25);                                                              \
    SORT2(T, p05, p11);                                                              \
    SORT2(T, p15, p21);                                                              \
    SORT2(T, p25, p31);                                                              \
    SORT2(T, p03, p23);                                                              \
    SORT2(T, p13, p33);                                                              \
    SORT2(T, p13, p23);                                                              \
    SORT2(T, q7, q23);                                                               \
    SORT2(T, q15, q23);                                                              \
    SORT2(T, q7, p13);                                                               \
    SORT2(T, q15, p23);                                                              \
    SORT2(T, q23, p33);                                                              \
    SORT2(T, p03, p05);                                                              \
    SORT2(T, q7, p11);                                                               \
    SORT2(T, p13, p15);                                                              \
    SORT2(T, q15, p21);                                                              \
    SORT2(T, p23, p25);                                                              \
    SORT2(T, q23, p31);                                                              \
    SORT2(T, p03, p04);                                                              \
    SORT2(T, p05, p06);                                                              \
    SORT2(T, q7, p10);                                                               \
    SORT2(T, p11, p12);                                                              \
    SORT2(T, p13, p14);                                                              \
    SORT2(T, p15, p16);                                                              \
    SORT2(T, q15, p20);                                                              \
    SORT2(T, p21, p22);                                                              \
    SORT2(T, p23, p24);                                                              \
    SORT2(T, p25, p26);                                                              \
    SORT2(T, q23, p30);                                                              \
    SORT2(T, p41, p42);                                                              \
    SORT2(T, p43, p44);                                                              \
    SORT2(T, p45, p46);                                                              \
    SORT2(T, q39, p50);                                                              \
    SORT2(T, p51, p52);                                                              \
    SORT2(T, p53, p54);                                                              \
    p55 = MED_MIN(T, p55, p56);                                                             \
    p40 = MED_MAX(T, p20, p40);                                                             \
    p50 = MED_MAX(T, p10, p50);                                                             \
    p30 = MED_MIN(T, p30, p50);                                                             \
    p30 = MED_MIN(T, p30, p40);                                                             \
    p44 = MED_MAX(T, p04, p44);                                                             \
    p24 = MED_MIN(T, p24, p44);                                                             \
    p14 = MED_MIN(T, p14, p54);                                                             \
    p24 = MED_MAX(T, p14, p24);                                                             \
    SORT2(T, p24, p30);                                                              \
    SORT2(T, p22, p42);                                                              \
    SORT2(T, p12, p52);                                                              \
    p32 = MED_MIN(T, p32, p52);                                                             \
    p22 = MED_MAX(T, p12, p22);                                                             \
    p32 = MED_MIN(T, p32, p42);                                                             \
    p46 = MED_MAX(T, p06, p46);                                                             \
    p26 = MED_MIN(T, p26, p46);                                                             \
    SORT2(T, p16, p26);                                                              \
    p22 = MED_MAX(T, p16, p22);                                                             \
    p26 = MED_MIN(T, p26, p32);                                                             \
    SORT2(T, p22, p24);                                                              \
    SORT2(T, p26, p30);                                                              \
    SORT2(T, p21, p41);                                                              \
    SORT2(T, p11, p51);                                                              \
    p31 = MED_MIN(T, p31, p51);                                                             \
    p21 = MED_MAX(T, p11, p21);                                                             \
    p31 = MED_MIN(T, p31, p41);                                                             \
    p45 = MED_MAX(T, p05, p45);                                                             \
    p25 = MED_MIN(T, p25, p45);                                                             \
    p15 = MED_MIN(T, p15, p55);                                                             \
    SORT2(T, p15, p25);                                                              \
    p21 = MED_MAX(T, p15, p21);                                                             \
    SORT2(T, p25, p31);                                                              \
    p43 = MED_MAX(T, p03, p43);                                                             \
    SORT2(T, p23, p43);                                                              \
    SORT2(T, p13, p53);                                                              \
    p33 = MED_MIN(T, p33, p53);                                                             \
    p23 = MED_MAX(T, p13, p23);                                                             \
    p33 = MED_MIN(T, p33, p43);                                                             \
    q39 = MED_MAX(T, q7, q39);                                                              \
    q23 = MED_MIN(T, q23, q39);                                                             \
    SORT2(T, q15, q23);                                                              \
    SORT2(T, q15, p23);                                                              \
    q23 = MED_MIN(T, q23, p33);                                                             \
    p21 = MED_MAX(T, q15, p21);                                                             \
    SORT2(T, p23, p25);                                                              \
    q23 = MED_MIN(T, q23, p31);                                                             \
    SORT2(T, p21, p22);                                                              \
    SORT2(T, p23, p24);                                                              \
    SORT2(T, p25, p26);                                                              \
    SORT2(T, q23, p30);                                                              \
    m0 = p21; m1 = p22; m2 = p23; m3 = p24; m4 = p25; m5 = p26; m6 = q23; m7 = p30;
// clang-format on

/* The eight middle values of six shared sorted columns (m ascending). */
inline void median7_mid8(ushort2 p00, ushort2 p01, ushort2 p02, ushort2 p03, ushort2 p04,
                         ushort2 p05, ushort2 p06, ushort2 p10, ushort2 p11, ushort2 p12,
                         ushort2 p13, ushort2 p14, ushort2 p15, ushort2 p16, ushort2 p20,
                         ushort2 p21, ushort2 p22, ushort2 p23, ushort2 p24, ushort2 p25,
                         ushort2 p26, ushort2 p30, ushort2 p31, ushort2 p32, ushort2 p33,
                         ushort2 p34, ushort2 p35, ushort2 p36, ushort2 p40, ushort2 p41,
                         ushort2 p42, ushort2 p43, ushort2 p44, ushort2 p45, ushort2 p46,
                         ushort2 p50, ushort2 p51, ushort2 p52, ushort2 p53, ushort2 p54,
                         ushort2 p55, ushort2 p56, ushort2 *m)
{
    MEDIAN7_MID8(ushort2, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]);
}

/* The 8th smallest of m (eight, ascending) and b0..b6 (ascending), as in
 * median5_last: the 7x7 window's median. */
inline ushort2 median7_last(const ushort2 *m, ushort2 b0, ushort2 b1, ushort2 b2, ushort2 b3,
                            ushort2 b4, ushort2 b5, ushort2 b6)
{
    return med_min_ushort2(
        med_min_ushort2(med_min_ushort2(med_max_ushort2(m[0], b6), med_max_ushort2(m[1], b5)),
                        med_min_ushort2(med_max_ushort2(m[2], b4), med_max_ushort2(m[3], b3))),
        med_min_ushort2(med_min_ushort2(med_max_ushort2(m[4], b2), med_max_ushort2(m[5], b1)),
                        med_min_ushort2(med_max_ushort2(m[6], b0), m[7])));
}

/* The 7x7 median on GPUs (the row shape uses median_radix): four outputs a
 * work-item from ten columns sorted once; the two pairs of neighbouring
 * windows share six columns each, of which only ranks 18..25 can be a
 * median. */
#if CLV_MEDIAN_KIND < 0 || CLV_MEDIAN_KIND == 2
__kernel void median7(CLV_FRAME_ARGS)
{
#if CLV_ROW
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * stride + x] = median_radix_pixel(src, w, h, stride, 3, x, y);
#else
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
    if (y >= h || x0 >= w)
        return;
    const int r0 = max(y - 3, 0) * stride, r1 = max(y - 2, 0) * stride, r2 = max(y - 1, 0) * stride,
              r3 = y * stride, r4 = min(y + 1, h - 1) * stride, r5 = min(y + 2, h - 1) * stride,
              r6 = min(y + 3, h - 1) * stride;
#define COLUMN(j)                                                                                  \
    const int cx##j = clamp(x0 - 3 + (j), 0, w - 1);                                               \
    const uchar4 u##j##0 = src[r0 + cx##j], u##j##1 = src[r1 + cx##j], u##j##2 = src[r2 + cx##j],  \
                 u##j##3 = src[r3 + cx##j], u##j##4 = src[r4 + cx##j], u##j##5 = src[r5 + cx##j],  \
                 u##j##6 = src[r6 + cx##j]
    COLUMN(0);
    COLUMN(1);
    COLUMN(2);
    COLUMN(3);
    COLUMN(4);
    COLUMN(5);
    COLUMN(6);
    COLUMN(7);
    COLUMN(8);
    COLUMN(9);
#undef COLUMN
    /* In 16-bit lanes, as median5. */
#define HALF_COLUMN(j, SEL)                                                                        \
    ushort2 p##j##0 = SEL(u##j##0), p##j##1 = SEL(u##j##1), p##j##2 = SEL(u##j##2),                \
            p##j##3 = SEL(u##j##3), p##j##4 = SEL(u##j##4), p##j##5 = SEL(u##j##5),                \
            p##j##6 = SEL(u##j##6);                                                                \
    SORT7(ushort2, p##j##0, p##j##1, p##j##2, p##j##3, p##j##4, p##j##5, p##j##6)
#define COLS6(a, b, c, d, e, f)                                                                    \
    p##a##0, p##a##1, p##a##2, p##a##3, p##a##4, p##a##5, p##a##6, p##b##0, p##b##1, p##b##2,      \
        p##b##3, p##b##4, p##b##5, p##b##6, p##c##0, p##c##1, p##c##2, p##c##3, p##c##4, p##c##5,  \
        p##c##6, p##d##0, p##d##1, p##d##2, p##d##3, p##d##4, p##d##5, p##d##6, p##e##0, p##e##1,  \
        p##e##2, p##e##3, p##e##4, p##e##5, p##e##6, p##f##0, p##f##1, p##f##2, p##f##3, p##f##4,  \
        p##f##5, p##f##6
#define COL(a) p##a##0, p##a##1, p##a##2, p##a##3, p##a##4, p##a##5, p##a##6
#define HALF(SEL, o)                                                                               \
    {                                                                                              \
        HALF_COLUMN(0, SEL);                                                                       \
        HALF_COLUMN(1, SEL);                                                                       \
        HALF_COLUMN(2, SEL);                                                                       \
        HALF_COLUMN(3, SEL);                                                                       \
        HALF_COLUMN(4, SEL);                                                                       \
        HALF_COLUMN(5, SEL);                                                                       \
        HALF_COLUMN(6, SEL);                                                                       \
        HALF_COLUMN(7, SEL);                                                                       \
        HALF_COLUMN(8, SEL);                                                                       \
        HALF_COLUMN(9, SEL);                                                                       \
        ushort2 m[8], n[8];                                                                        \
        median7_mid8(COLS6(1, 2, 3, 4, 5, 6), m);                                                  \
        median7_mid8(COLS6(3, 4, 5, 6, 7, 8), n);                                                  \
        o[0] = median7_last(m, COL(0));                                                            \
        o[1] = median7_last(m, COL(7));                                                            \
        o[2] = median7_last(n, COL(2));                                                            \
        o[3] = median7_last(n, COL(9));                                                            \
    }
    ushort2 rg[4], ba[4];
    HALF(clv_rg, rg);
    HALF(clv_b, ba);
#undef HALF
#undef HALF_COLUMN
#undef COLS6
#undef COL
    median_store4(src, dst, w, stride, y, x0, rg, ba, 0, NULL);
#endif
}
#endif
