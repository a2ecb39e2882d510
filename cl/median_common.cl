/* median_common.cl - what the median's algorithms share: min and max by
 * type, the exchange their networks are made of, and the GPU shape's
 * store of four outputs. */
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
