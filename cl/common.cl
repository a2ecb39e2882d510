/* common.cl - helpers that every kernel program starts with.
 *
 * The host defines the work shape:
 *   CLV_ROW=1  CPU devices (PoCL): one work-item walks a whole row; global
 *              size (1, height).
 *   CLV_ROW=0  GPUs: one work-item handles CLV_PX neighbouring pixels of a
 *              row; global size (ceil(width / CLV_PX), height), rounded up.
 * Frames are RGBA8 (uchar4) with rows `stride` pixels apart. */

#ifndef CLV_ROW
#define CLV_ROW 0
#endif
#ifndef CLV_PX
#define CLV_PX 4
#endif

/* Declares y and loops x over this work-item's pixels. */
#define CLV_PIXEL_LOOP(w, h, x, y)                                                                 \
    const int y = (int)get_global_id(1);                                                           \
    if (y >= (h))                                                                                  \
        return;                                                                                    \
    const int x##_begin = CLV_ROW ? 0 : (int)get_global_id(0) * CLV_PX;                            \
    const int x##_end = CLV_ROW ? (w) : min(x##_begin + CLV_PX, (w));                              \
    for (int x = x##_begin; x < x##_end; ++x)

#define CLV_FRAME_ARGS __global const uchar4 *src, __global uchar4 *dst, int w, int h, int stride

/* BT.601 luma in fixed point (OpenCV's BGR2GRAY). */
inline int clv_gray(uchar4 p)
{
    return (9798 * p.x + 19235 * p.y + 3735 * p.z + 16384) >> 15;
}

/* floor(a / b) per lane, b > 0. */
inline int4 clv_floor_div4(int4 a, int b)
{
    int4 q = a / b;
    int4 r = a - q * b;
    return q + (r < (int4)0); /* a true lane is -1 */
}

inline uchar4 clv_clamp_u8(int4 v, uchar alpha)
{
    uchar4 o = convert_uchar4_sat(v);
    o.w = alpha;
    return o;
}

/* The pixel at (x, y) with clamp-to-edge. */
#define CLV_AT(src, x, y) (src)[clamp((y), 0, h - 1) * stride + clamp((x), 0, w - 1)]

/* The hash behind noise: murmur3's 32-bit finalizer. */
inline uint clv_fmix32(uint v)
{
    v ^= v >> 16;
    v *= 0x85EBCA6Bu;
    v ^= v >> 13;
    v *= 0xC2B2AE35u;
    v ^= v >> 16;
    return v;
}
