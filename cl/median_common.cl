/* median_common.cl - what the median's algorithms share: min and max by
 * type, the exchange their networks are made of, and the GPU shape's
 * store of four outputs (at 16 bits: the row shape's alpha put back). */
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
#if CLV_DEPTH == 16
MED_MINMAX(ushort, min, max)
MED_MINMAX(ushort4, min, max)
#endif

/* medf2: ushort2 lanes whose min and max run on the GPU's floating-point
 * pipe instead of its integer one, so that a kernel can share its
 * exchanges between the two. On NVIDIA sm_80 and later the lanes (0..255,
 * or any value below 1024) are read as half-precision subnormals, v * 2^-24,
 * on which addition and subtraction are exact (PTX keeps subnormal halves
 * unless told .ftz): with g = relu(a - b) (one fma.relu), min = a - g and
 * max = b + g. Elsewhere the integer min and max. */
typedef ushort2 medf2;
#if CLV_NV_SM >= 80
inline uint med_gap_f2(medf2 a, medf2 b)
{
    uint g;
    asm("fma.rn.relu.f16x2 %0, %1, %2, %3;"
        : "=r"(g)
        : "r"(as_uint(b)), "r"(0xbc00bc00u), "r"(as_uint(a)));
    return g;
}
inline medf2 med_min_medf2(medf2 a, medf2 b)
{
    uint d;
    asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(as_uint(a)), "r"(med_gap_f2(a, b)));
    return as_ushort2(d);
}
inline medf2 med_max_medf2(medf2 a, medf2 b)
{
    uint d;
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(as_uint(b)), "r"(med_gap_f2(a, b)));
    return as_ushort2(d);
}
#else
MED_MINMAX(medf2, clv_min16x2, clv_max16x2)
#endif
#undef MED_MINMAX

#define SORT2(T, a, b)                                                                             \
    {                                                                                              \
        const T t_ = MED_MIN(T, a, b);                                                             \
        b = MED_MAX(T, a, b);                                                                      \
        a = t_;                                                                                    \
    }

#if !CLV_ROW && CLV_DEPTH == 8
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

#if CLV_DEPTH == 16
/* A row of ushort channels (channel c of pixel x is element 4x + c). */
#define MED_ROW16(buf, y) ((__global ushort *)((buf) + (y)*stride))
#define MED_ROW16_CONST(buf, y) ((__global const ushort *)((buf) + (y)*stride))

#if !CLV_ROW
/* The GPU shape's four outputs from x0 (alpha already in o); the last
 * work-item of a row stores only what is inside. */
inline void median_store4_16(__global ushort4 *dst, int w, int stride, int y, int x0,
                             const ushort4 *o)
{
    if (x0 + 4 <= w) {
        CLV_STORE4(dst, stride, y, x0, o);
    } else {
        for (int i = 0; x0 + i < w; ++i)
            dst[y * stride + x0 + i] = o[i];
    }
}
#else
/* Pixels x0 .. x1 - 1 of out take centre's alpha: the row loops compute
 * alpha like any channel, as the 8-bit ones do (clv_row_alpha). */
inline void median_row_alpha16(__global ushort *out, __global const ushort *centre, int x0, int x1)
{
    for (int x = x0; x < x1; ++x)
        out[4 * x + 3] = centre[4 * x + 3];
}
#endif
#endif
