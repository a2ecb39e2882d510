/* median5.cl - the 5x5 median: on CPUs five columns sorted once and the
 * generated network over them; on GPUs the shared columns of neighbouring
 * windows reduced to their six middle values (median_networks.cl). At 16
 * bits both shapes sort each column once and run the network over it. */
#include "median_common.cl"
#include "median_networks.cl"

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

/* The 5x5 median from the window's columns, each sorted first. */
#define MEDIAN25_LOAD_COLUMN(T, col, get)                                                          \
    T c##col##0 = get(col, 0), c##col##1 = get(col, 1), c##col##2 = get(col, 2),                   \
      c##col##3 = get(col, 3), c##col##4 = get(col, 4)

#if CLV_DEPTH == 8
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
     * min/max, faster than all four channels in byte lanes, and more so
     * with the packed instruction forced, MED_MIN). */
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
     * fewer min/max than b and a as a second pair. Alpha is copied, never
     * sorted. */
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

#else /* CLV_DEPTH == 16: the network on ushort channels */

#if CLV_MEDIAN_KIND < 0 || CLV_MEDIAN_KIND == 1
inline ushort4 median5_pixel(__global const ushort4 *src, int w, int h, int stride, int x, int y)
{
#define AT(col, rank) src[clamp(y + (rank)-2, 0, h - 1) * stride + clamp(x + (col)-2, 0, w - 1)]
    MEDIAN25_LOAD_COLUMN(ushort4, 0, AT);
    MEDIAN25_LOAD_COLUMN(ushort4, 1, AT);
    MEDIAN25_LOAD_COLUMN(ushort4, 2, AT);
    MEDIAN25_LOAD_COLUMN(ushort4, 3, AT);
    MEDIAN25_LOAD_COLUMN(ushort4, 4, AT);
#undef AT
    const ushort alpha = c22.w;
    SORT5(ushort4, c00, c01, c02, c03, c04);
    SORT5(ushort4, c10, c11, c12, c13, c14);
    SORT5(ushort4, c20, c21, c22, c23, c24);
    SORT5(ushort4, c30, c31, c32, c33, c34);
    SORT5(ushort4, c40, c41, c42, c43, c44);
    MEDIAN25_COLS(ushort4);
    MEDIAN25_OUT.w = alpha;
    return MEDIAN25_OUT;
}

#if CLV_ROW
#define MEDIAN5_TILE 256

/* s<rank>[i] = the rank-th smallest of the five rows' element i: the
 * columns sorted once for the five windows that share each. */
inline void median5_columns(__global const ushort *restrict r0, __global const ushort *restrict r1,
                            __global const ushort *restrict r2, __global const ushort *restrict r3,
                            __global const ushort *restrict r4, ushort *restrict s0,
                            ushort *restrict s1, ushort *restrict s2, ushort *restrict s3,
                            ushort *restrict s4, int len)
{
    for (int i = 0; i < len; ++i) {
        ushort a = r0[i], b = r1[i], c = r2[i], d = r3[i], e = r4[i];
        SORT5(ushort, a, b, c, d, e);
        s0[i] = a;
        s1[i] = b;
        s2[i] = c;
        s3[i] = d;
        s4[i] = e;
    }
}

/* out[i] = the median of the window whose sorted columns start at s*[i]
 * (columns 4 elements apart), alpha too (the caller puts it back). */
inline void median5_select(const ushort *restrict s0, const ushort *restrict s1,
                           const ushort *restrict s2, const ushort *restrict s3,
                           const ushort *restrict s4, __global ushort *restrict out, int len)
{
#define AT(col, rank) s##rank[i + 4 * (col)]
    for (int i = 0; i < len; ++i) {
        MEDIAN25_LOAD_COLUMN(ushort, 0, AT);
        MEDIAN25_LOAD_COLUMN(ushort, 1, AT);
        MEDIAN25_LOAD_COLUMN(ushort, 2, AT);
        MEDIAN25_LOAD_COLUMN(ushort, 3, AT);
        MEDIAN25_LOAD_COLUMN(ushort, 4, AT);
        MEDIAN25_COLS(ushort);
        out[i] = MEDIAN25_OUT;
    }
#undef AT
}

/* Row y, in tiles of elements, as at 8 bits. */
CLV_ROW_FN void median5_row(CLV_FRAME_ARGS, int y)
{
    CLV_ROW_EDGES(x, 2)
    dst[y * stride + x] = median5_pixel(src, w, h, stride, x, y);
    __global const ushort *r0 = MED_ROW16_CONST(src, max(y - 2, 0));
    __global const ushort *r1 = MED_ROW16_CONST(src, max(y - 1, 0));
    __global const ushort *r2 = MED_ROW16_CONST(src, y);
    __global const ushort *r3 = MED_ROW16_CONST(src, min(y + 1, h - 1));
    __global const ushort *r4 = MED_ROW16_CONST(src, min(y + 2, h - 1));
    __global ushort *restrict out = MED_ROW16(dst, y);
    ushort s0[MEDIAN5_TILE + 16], s1[MEDIAN5_TILE + 16], s2[MEDIAN5_TILE + 16],
        s3[MEDIAN5_TILE + 16], s4[MEDIAN5_TILE + 16];
    for (int t = 8; t < 4 * (w - 2); t += MEDIAN5_TILE) {
        const int len = min(MEDIAN5_TILE, 4 * (w - 2) - t);
        median5_columns(r0 + t - 8, r1 + t - 8, r2 + t - 8, r3 + t - 8, r4 + t - 8, s0, s1, s2, s3,
                        s4, len + 16);
        median5_select(s0, s1, s2, s3, s4, out + t, len);
    }
    median_row_alpha16(out, r2, 2, w - 2);
}
#endif

__kernel void median5(CLV_FRAME_ARGS)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    median5_row(src, dst, w, h, stride, y);
#else
    /* Four outputs of one row a work-item: eight columns of five sorted
     * once, then the network over the five of each window. */
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
    if (y >= h || x0 >= w)
        return;
    const int r0 = max(y - 2, 0) * stride, r1 = max(y - 1, 0) * stride, r2 = y * stride,
              r3 = min(y + 1, h - 1) * stride, r4 = min(y + 2, h - 1) * stride;
#define COLUMN(j)                                                                                  \
    const int cx##j = clamp(x0 - 2 + (j), 0, w - 1);                                               \
    ushort4 u##j##0 = src[r0 + cx##j], u##j##1 = src[r1 + cx##j], u##j##2 = src[r2 + cx##j],       \
            u##j##3 = src[r3 + cx##j], u##j##4 = src[r4 + cx##j];                                  \
    SORT5(ushort4, u##j##0, u##j##1, u##j##2, u##j##3, u##j##4)
    COLUMN(0);
    COLUMN(1);
    COLUMN(2);
    COLUMN(3);
    COLUMN(4);
    COLUMN(5);
    COLUMN(6);
    COLUMN(7);
#undef COLUMN
#define AT(col, rank) u##col##rank
#define OUTPUT(i, a, b, c, d, e)                                                                   \
    {                                                                                              \
        MEDIAN25_LOAD_COLUMN(ushort4, 0, a##_AT);                                                  \
        MEDIAN25_LOAD_COLUMN(ushort4, 1, b##_AT);                                                  \
        MEDIAN25_LOAD_COLUMN(ushort4, 2, c##_AT);                                                  \
        MEDIAN25_LOAD_COLUMN(ushort4, 3, d##_AT);                                                  \
        MEDIAN25_LOAD_COLUMN(ushort4, 4, e##_AT);                                                  \
        MEDIAN25_COLS(ushort4);                                                                    \
        o[i] = MEDIAN25_OUT;                                                                       \
        o[i].w = src[r2 + min(x0 + (i), w - 1)].w;                                                 \
    }
#define C0_AT(col, rank) AT(0, rank)
#define C1_AT(col, rank) AT(1, rank)
#define C2_AT(col, rank) AT(2, rank)
#define C3_AT(col, rank) AT(3, rank)
#define C4_AT(col, rank) AT(4, rank)
#define C5_AT(col, rank) AT(5, rank)
#define C6_AT(col, rank) AT(6, rank)
#define C7_AT(col, rank) AT(7, rank)
    ushort4 o[4];
    OUTPUT(0, C0, C1, C2, C3, C4);
    OUTPUT(1, C1, C2, C3, C4, C5);
    OUTPUT(2, C2, C3, C4, C5, C6);
    OUTPUT(3, C3, C4, C5, C6, C7);
#undef OUTPUT
#undef AT
#undef C0_AT
#undef C1_AT
#undef C2_AT
#undef C3_AT
#undef C4_AT
#undef C5_AT
#undef C6_AT
#undef C7_AT
    median_store4_16(dst, w, stride, y, x0, o);
#endif
}
#endif
#endif /* CLV_DEPTH */
