/* median7.cl - the 7x7 median on GPUs: shared sorted columns reduced to
 * their eight middle values (median_networks.cl); CPUs count
 * (median_radix.cl). */
#include "median_common.cl"
#include "median_networks.cl"
#include "median_radix.cl"

#if CLV_DEPTH == 8 /* at 16 bits median_radix takes the 7x7 (src/filters/median.c) */

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
#endif /* CLV_DEPTH */
