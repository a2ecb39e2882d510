/* common.cl - helpers that every kernel program starts with.
 *
 * The host defines the work shape:
 *   CLV_ROW=1  CPU devices (PoCL): one work-item walks a whole row; global
 *              size (1, height).
 *   CLV_ROW=0  GPUs: one work-item handles CLV_PX neighbouring pixels of a
 *              row; global size (ceil(width / CLV_PX), height), rounded up.
 * Frames are RGBA8 (uchar4) with rows `stride` pixels apart; a 16-bit
 * chain's programs are built with CLV_DEPTH=16 and their frames are RGBA16
 * (ushort4, 0-65535): clv_px, clv_ch, CLV_MAXV and the macros below follow
 * CLV_DEPTH, and a filter's file keeps the same kernel names at both
 * depths (its 8-bit kernels under #if CLV_DEPTH == 8). */

#ifndef CLV_DEPTH
#define CLV_DEPTH 8
#endif
#if CLV_DEPTH == 16
typedef ushort4 clv_px;
typedef ushort clv_ch;
#define CLV_MAXV 65535
#define clv_px_sat(v) convert_ushort4_sat(v)
#define clv_ch_sat(v) convert_ushort_sat(v)
#elif CLV_DEPTH == 8
typedef uchar4 clv_px;
typedef uchar clv_ch;
#define CLV_MAXV 255
#define clv_px_sat(v) convert_uchar4_sat(v)
#define clv_ch_sat(v) convert_uchar_sat(v)
#else
#error "CLV_DEPTH is 8 or 16"
#endif
/* An 8-bit-scale parameter at this depth (255 -> 65535). */
#define CLV_SCALE8(v) (CLV_DEPTH == 16 ? (v)*257 : (v))

#ifndef CLV_ROW
#define CLV_ROW 0
#endif
#ifndef CLV_PX
#define CLV_PX 4
#endif
#if CLV_PX != 4
#error "the GPU shape's kernels load and store four pixels at once: CLV_PX must be 4"
#endif

#ifndef CLV_NV_SM
#define CLV_NV_SM 0 /* NVIDIA compute capability, 10 * major + minor; 0: not NVIDIA */
#endif

#if CLV_NV_SM
/* PTX prmt: the bytes of d picked from a (0..3) and b (4..7), one selector
 * nibble each. */
inline uint clv_prmt(uint a, uint b, uint sel)
{
    uint d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
    return d;
}
#endif

/* min and max of two 16-bit lanes (the GPU shape's channels in pairs).
 * NVIDIA's compiler splits ushort2 min/max into one-lane operations (the
 * SASS shows VIMNMX.U16x2 with one lane used); on sm_90 and later they are
 * the packed PTX instruction itself. */
#if CLV_NV_SM >= 90
inline ushort2 clv_min16x2(ushort2 a, ushort2 b)
{
    uint d;
    asm("min.u16x2 %0, %1, %2;" : "=r"(d) : "r"(as_uint(a)), "r"(as_uint(b)));
    return as_ushort2(d);
}
inline ushort2 clv_max16x2(ushort2 a, ushort2 b)
{
    uint d;
    asm("max.u16x2 %0, %1, %2;" : "=r"(d) : "r"(as_uint(a)), "r"(as_uint(b)));
    return as_ushort2(d);
}
#else
inline ushort2 clv_min16x2(ushort2 a, ushort2 b)
{
    return min(a, b);
}
inline ushort2 clv_max16x2(ushort2 a, ushort2 b)
{
    return max(a, b);
}
#endif

/* The GPU shape's byte <-> 16-bit lane moves. On NVIDIA devices one PTX
 * prmt each (the compiler made convert_ushort2 of a uchar4's .xy five
 * instructions), elsewhere 32-bit masks and shifts. clv_rg(p): (r, g) of p; clv_b(p):
 * (b of p, 0); clv_blue2(p, q): (b of p, b of q); clv_pixel: the pixel of r
 * and g from rg, b from lane `lane` of bb, alpha from a. */
#if CLV_NV_SM
inline ushort2 clv_rg(uchar4 p)
{
    return as_ushort2(clv_prmt(as_uint(p), 0u, 0x4140u));
}
inline ushort2 clv_b(uchar4 p)
{
    return as_ushort2(clv_prmt(as_uint(p), 0u, 0x4442u));
}
inline ushort2 clv_blue2(uchar4 p, uchar4 q)
{
    return as_ushort2(clv_prmt(as_uint(p), as_uint(q), 0x7672u) & 0x00ff00ffu);
}
inline uchar4 clv_pixel(ushort2 rg, ushort2 bb, int lane, uchar4 a)
{
    const uint t = clv_prmt(as_uint(rg), as_uint(bb), lane ? 0x7620u : 0x7420u);
    return as_uchar4(clv_prmt(t, as_uint(a), 0x7210u));
}
#else
inline ushort2 clv_rg(uchar4 p)
{
    const uint v = as_uint(p);
    return as_ushort2((v & 0xffu) | ((v & 0xff00u) << 8));
}
inline ushort2 clv_b(uchar4 p)
{
    return as_ushort2((as_uint(p) >> 16) & 0xffu);
}
inline ushort2 clv_blue2(uchar4 p, uchar4 q)
{
    return as_ushort2(((as_uint(p) >> 16) & 0xffu) | (as_uint(q) & 0xff0000u));
}
inline uchar4 clv_pixel(ushort2 rg, ushort2 bb, int lane, uchar4 a)
{
    const uint g = as_uint(rg), b = lane ? as_uint(bb) & 0xff0000u : as_uint(bb) << 16;
    return as_uchar4((g & 0xffu) | ((g >> 8) & 0xff00u) | (b & 0xff0000u) |
                     (as_uint(a) & 0xff000000u));
}
#endif

#if CLV_DEPTH == 16
inline int4 clv_int4(ushort4 p)
{
    return convert_int4(p);
}
inline int clv_channel(ushort4 p, int c)
{
    return c == 0 ? p.x : c == 1 ? p.y : c == 2 ? p.z : p.w;
}
#else
/* A pixel's channels as int4: one prmt each on NVIDIA, where the compiler
 * made convert_int4 up to three instructions a channel. */
inline int4 clv_int4(uchar4 p)
{
#if CLV_NV_SM
    const uint v = as_uint(p);
    return (int4)((int)clv_prmt(v, 0u, 0x4440u), (int)clv_prmt(v, 0u, 0x4441u),
                  (int)clv_prmt(v, 0u, 0x4442u), (int)clv_prmt(v, 0u, 0x4443u));
#else
    return convert_int4(p);
#endif
}

/* Channel c (0 red .. 3 alpha) of a pixel as int, the same way. */
inline int clv_channel(uchar4 p, int c)
{
#if CLV_NV_SM
    return (int)clv_prmt(as_uint(p), 0u, 0x4440u + (uint)c);
#else
    return (int)((as_uint(p) >> (8 * c)) & 255u);
#endif
}
#endif /* CLV_DEPTH */

/* Declares y and loops x over this work-item's pixels. */
#define CLV_PIXEL_LOOP(w, h, x, y)                                                                 \
    const int y = (int)get_global_id(1);                                                           \
    if (y >= (h))                                                                                  \
        return;                                                                                    \
    const int x##_begin = CLV_ROW ? 0 : (int)get_global_id(0) * CLV_PX;                            \
    const int x##_end = CLV_ROW ? (w) : min(x##_begin + CLV_PX, (w));                              \
    for (int x = x##_begin; x < x##_end; ++x)

/* 16 bytes at any address: the row shape's loads and stores (vload16 and
 * vstore16 became byte moves in PoCL; this is one unaligned vector move). */
typedef uchar16 __attribute__((aligned(1))) clv_uchar16_u;

#if !CLV_ROW
/* The GPU shape's 3x3 windows: row yy's pixels x0 - 1 .. x0 + 4 around a
 * work-item's four (x0 = 4 * id), the middle four in one 16-byte load
 * (frame strides are multiples of 16 pixels, so that load is aligned and
 * inside the row), the left one clamped. For x0 + 4 < w only: the last
 * work-item of a row takes the per-pixel path. */
#if CLV_DEPTH == 16
#define CLV_WIN3_ROW(src, stride, yy, x0, v)                                                       \
    {                                                                                              \
        __global const ushort4 *row_ = (src) + (yy) * (stride);                                    \
        const ulong4 mid_ = *(__global const ulong4 *)(row_ + (x0));                               \
        v[0] = row_[max((x0)-1, 0)];                                                               \
        v[1] = as_ushort4(mid_.x);                                                                 \
        v[2] = as_ushort4(mid_.y);                                                                 \
        v[3] = as_ushort4(mid_.z);                                                                 \
        v[4] = as_ushort4(mid_.w);                                                                 \
        v[5] = row_[(x0) + 4];                                                                     \
    }
#else
#define CLV_WIN3_ROW(src, stride, yy, x0, v)                                                       \
    {                                                                                              \
        __global const uchar4 *row_ = (src) + (yy) * (stride);                                     \
        const uint4 mid_ = *(__global const uint4 *)(row_ + (x0));                                 \
        v[0] = row_[max((x0)-1, 0)];                                                               \
        v[1] = as_uchar4(mid_.x);                                                                  \
        v[2] = as_uchar4(mid_.y);                                                                  \
        v[3] = as_uchar4(mid_.z);                                                                  \
        v[4] = as_uchar4(mid_.w);                                                                  \
        v[5] = row_[(x0) + 4];                                                                     \
    }
#endif
/* Declares y, x0 and the three rows a, b, c of the window; returns for
 * work-items past the frame and sends the last one of a row to `slow`. */
#define CLV_WIN3(src, w, h, stride, slow)                                                          \
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;                           \
    if (y >= (h) || x0 >= (w))                                                                     \
        return;                                                                                    \
    if (x0 + 4 >= (w)) {                                                                           \
        for (int x = x0; x < (w); ++x)                                                             \
            slow;                                                                                  \
        return;                                                                                    \
    }                                                                                              \
    clv_px a[6], b[6], c[6];                                                                       \
    CLV_WIN3_ROW(src, stride, max(y - 1, 0), x0, a);                                               \
    CLV_WIN3_ROW(src, stride, y, x0, b);                                                           \
    CLV_WIN3_ROW(src, stride, min(y + 1, (h)-1), x0, c)
/* The same for four pixels in each of two rows y, y + 1 (the host launches
 * half the rows: clv__launch_pixel_pairs): rows a, b, c, d of the window;
 * the last work-item of a row sends each of its pixels to `slow` (with x
 * and yy). */
#define CLV_WIN3x2(src, w, h, stride, slow)                                                        \
    const int y = (int)get_global_id(1) * 2, x0 = (int)get_global_id(0) * 4;                       \
    if (y >= (h) || x0 >= (w))                                                                     \
        return;                                                                                    \
    if (x0 + 4 >= (w)) {                                                                           \
        for (int yy = y; yy < min(y + 2, (h)); ++yy)                                               \
            for (int x = x0; x < (w); ++x)                                                         \
                slow;                                                                              \
        return;                                                                                    \
    }                                                                                              \
    clv_px a[6], b[6], c[6], d[6];                                                                 \
    CLV_WIN3_ROW(src, stride, max(y - 1, 0), x0, a);                                               \
    CLV_WIN3_ROW(src, stride, y, x0, b);                                                           \
    CLV_WIN3_ROW(src, stride, min(y + 1, (h)-1), x0, c);                                           \
    CLV_WIN3_ROW(src, stride, min(y + 2, (h)-1), x0, d)
#if CLV_DEPTH == 16
#define CLV_STORE4(dst, stride, y, x0, o)                                                          \
    *(__global ulong4 *)((dst) + (y) * (stride) + (x0)) =                                          \
        (ulong4)(as_ulong(o[0]), as_ulong(o[1]), as_ulong(o[2]), as_ulong(o[3]))
#else
#define CLV_STORE4(dst, stride, y, x0, o)                                                          \
    *(__global uint4 *)((dst) + (y) * (stride) + (x0)) =                                           \
        (uint4)(as_uint(o[0]), as_uint(o[1]), as_uint(o[2]), as_uint(o[3]))
#endif
#endif

#if !CLV_ROW
/* The GPU shape's work-item of four pixels, for kernels of several inputs:
 * clv_get4 and clv_put4 move n (1..4) pixels from index i of a frame with
 * one 16-byte access (32 bytes at 16 bits) when n is 4, i being a multiple
 * of 4 (4 * id in a row: strides are multiples of 16 pixels, so it is
 * aligned), else a pixel at a time. A pixel at a time across a warp (each
 * work-item 16 bytes further) left overlay, blend and xfade at 60% of the
 * copy bandwidth. */
#if CLV_DEPTH == 16
typedef ulong4 clv_px4;
#define clv_as_px(v) as_ushort4(v)
#define clv_px_bits(p) as_ulong(p)
#else
typedef uint4 clv_px4;
#define clv_as_px(v) as_uchar4(v)
#define clv_px_bits(p) as_uint(p)
#endif

inline void clv_get4(clv_px *p, __global const clv_px *buf, int i, int n)
{
    if (n == 4) {
        const clv_px4 v = *(__global const clv_px4 *)(buf + i);
        p[0] = clv_as_px(v.s0);
        p[1] = clv_as_px(v.s1);
        p[2] = clv_as_px(v.s2);
        p[3] = clv_as_px(v.s3);
    } else {
        for (int k = 0; k < n; ++k)
            p[k] = buf[i + k];
    }
}

inline void clv_put4(__global clv_px *buf, int i, int n, const clv_px *p)
{
    if (n == 4)
        *(__global clv_px4 *)(buf + i) =
            (clv_px4)(clv_px_bits(p[0]), clv_px_bits(p[1]), clv_px_bits(p[2]), clv_px_bits(p[3]));
    else
        for (int k = 0; k < n; ++k)
            buf[i + k] = p[k];
}

/* Pixels i .. i + 3 of buf at any i, all four inside one row: the aligned
 * block holding i and, when i is not a multiple of 4, the next one (inside
 * the row too, which ends on a multiple of 4), picked by i & 3 (uniform
 * across the launch where the kernels use it: a placement's offset). */
inline void clv_get4_at(clv_px *p, __global const clv_px *buf, int i)
{
    const int r = i & 3;
    const clv_px4 v = *(__global const clv_px4 *)(buf + (i - r));
    if (r == 0) {
        p[0] = clv_as_px(v.s0);
        p[1] = clv_as_px(v.s1);
        p[2] = clv_as_px(v.s2);
        p[3] = clv_as_px(v.s3);
        return;
    }
    const clv_px4 u = *(__global const clv_px4 *)(buf + (i - r + 4));
    if (r == 1) {
        p[0] = clv_as_px(v.s1);
        p[1] = clv_as_px(v.s2);
        p[2] = clv_as_px(v.s3);
        p[3] = clv_as_px(u.s0);
    } else if (r == 2) {
        p[0] = clv_as_px(v.s2);
        p[1] = clv_as_px(v.s3);
        p[2] = clv_as_px(u.s0);
        p[3] = clv_as_px(u.s1);
    } else {
        p[0] = clv_as_px(v.s3);
        p[1] = clv_as_px(u.s0);
        p[2] = clv_as_px(u.s1);
        p[3] = clv_as_px(u.s2);
    }
}

/* The w x h frame src (rows stride apart) copied into dst at (x0, y0), rows
 * dstride apart: a work-item's four pixels are four of dst aligned to 4
 * (the host launches w + (x0 & 3) pixels a row), stored with one access
 * and read with one or two (clv_get4_at); the pixels at the ends of the
 * placed row a pixel at a time. */
inline void clv_place4(__global const clv_px *src, int w, int h, int stride, __global clv_px *dst,
                       int dstride, int x0, int y0)
{
    const int y = (int)get_global_id(1), xd = (x0 & ~3) + (int)get_global_id(0) * 4;
    if (y >= h || xd >= x0 + w)
        return;
    const int xs = xd - x0;
    __global const clv_px *in = src + y * stride;
    __global clv_px *out = dst + (y + y0) * dstride;
    if (xs >= 0 && xs + 4 <= w) {
        clv_px p[4];
        clv_get4_at(p, in, xs);
        clv_put4(out, xd, 4, p);
    } else {
        for (int k = max(0, -xs); k < 4 && xs + k < w; ++k)
            out[xd + k] = in[xs + k];
    }
}

/* A pixel filter of two inputs of one size, src and b: declares x, y and,
 * for each of this work-item's pixels, p (src's) and q (b's); body sets the
 * clv_px o, which goes to dst. Its commas inside parentheses only (OpenCL C
 * has no variadic macros: NVIDIA's compiler refuses them). */
#define CLV_PIXELS2(x, y, p, q, o, b, bstride, dst, dstride, body)                                 \
    const int y = (int)get_global_id(1), x##_0 = (int)get_global_id(0) * 4;                        \
    if (y >= h || x##_0 >= w)                                                                      \
        return;                                                                                    \
    const int x##_n = min(4, w - x##_0);                                                           \
    clv_px p##_4[4], q##_4[4], o##_4[4];                                                           \
    clv_get4(p##_4, src, y *stride + x##_0, x##_n);                                                \
    clv_get4(q##_4, b, y *(bstride) + x##_0, x##_n);                                               \
    _Pragma("unroll") for (int i_ = 0; i_ < 4; ++i_) if (i_ < x##_n)                               \
    {                                                                                              \
        const int x = x##_0 + i_;                                                                  \
        const clv_px p = p##_4[i_], q = q##_4[i_];                                                 \
        clv_px o;                                                                                  \
        body;                                                                                      \
        o##_4[i_] = o;                                                                             \
    }                                                                                              \
    clv_put4(dst, y *(dstride) + x##_0, x##_n, o##_4)
#else
#define CLV_PIXELS2(x, y, p, q, o, b, bstride, dst, dstride, body)                                 \
    CLV_PIXEL_LOOP(w, h, x, y)                                                                     \
    {                                                                                              \
        const clv_px p = src[y * stride + x], q = (b)[y * (bstride) + x];                          \
        clv_px o;                                                                                  \
        body;                                                                                      \
        (dst)[y * (dstride) + x] = o;                                                              \
    }
#endif

#define CLV_FRAME_ARGS __global const clv_px *src, __global clv_px *dst, int w, int h, int stride

/* Pixel loads and stores as four scalars. On CPUs they are byte accesses:
 * LLVM's loop vectorizer (which PoCL relies on in the row shape) skips loops
 * that use vector types but vectorizes interleaved byte accesses. GPUs get
 * one 32-bit access. */
#if CLV_DEPTH == 16
#define CLV_LOAD(buf, index, r, g, b, a)                                                           \
    do {                                                                                           \
        __global const ushort *p_ = (__global const ushort *)(buf) + 4 * (index);                  \
        r = p_[0];                                                                                 \
        g = p_[1];                                                                                 \
        b = p_[2];                                                                                 \
        a = p_[3];                                                                                 \
    } while (0)
#define CLV_STORE(buf, index, r, g, b, a)                                                          \
    do {                                                                                           \
        __global ushort *p_ = (__global ushort *)(buf) + 4 * (index);                              \
        p_[0] = (r);                                                                               \
        p_[1] = (g);                                                                               \
        p_[2] = (b);                                                                               \
        p_[3] = (a);                                                                               \
    } while (0)
#elif CLV_ROW
#define CLV_LOAD(buf, index, r, g, b, a)                                                           \
    do {                                                                                           \
        __global const uchar *p_ = (__global const uchar *)(buf) + 4 * (index);                    \
        r = p_[0];                                                                                 \
        g = p_[1];                                                                                 \
        b = p_[2];                                                                                 \
        a = p_[3];                                                                                 \
    } while (0)
#define CLV_STORE(buf, index, r, g, b, a)                                                          \
    do {                                                                                           \
        __global uchar *p_ = (__global uchar *)(buf) + 4 * (index);                                \
        p_[0] = (r);                                                                               \
        p_[1] = (g);                                                                               \
        p_[2] = (b);                                                                               \
        p_[3] = (a);                                                                               \
    } while (0)
#else
#define CLV_LOAD(buf, index, r, g, b, a)                                                           \
    do {                                                                                           \
        const uchar4 p_ = (buf)[index];                                                            \
        r = p_.x;                                                                                  \
        g = p_.y;                                                                                  \
        b = p_.z;                                                                                  \
        a = p_.w;                                                                                  \
    } while (0)
#define CLV_STORE(buf, index, r, g, b, a) (buf)[index] = (uchar4)((r), (g), (b), (a))
#endif

/* A per-pixel filter: declares x, y and the uchar channels r, g, b, a of
 * each of this work-item's pixels, runs body (which may change r, g, b, a)
 * and stores them. GPUs read and write a work-item's four pixels with one
 * 16-byte access each (rows start 16-pixel aligned): four 4-byte accesses
 * 16 bytes apart across a warp left gray, threshold and noise at 54% of the
 * copy bandwidth on an H100. */
#if !CLV_ROW && CLV_DEPTH == 16
/* At 16 bits a work-item's four pixels are one 32-byte access each way (a
 * pixel at a time left gray at 46% of the copy bandwidth on an H200). */
#define CLV_POINT_PIXELS(x, y, r, g, b, a, body)                                                   \
    const int y = (int)get_global_id(1), x##_0 = (int)get_global_id(0) * 4;                        \
    if (y >= h || x##_0 >= w)                                                                      \
        return;                                                                                    \
    const int x##_n = min(4, w - x##_0);                                                           \
    ulong q_[4] = {0, 0, 0, 0};                                                                    \
    if (x##_n == 4) {                                                                              \
        const ulong4 v_ = *(__global const ulong4 *)(src + y * stride + x##_0);                    \
        q_[0] = v_.s0;                                                                             \
        q_[1] = v_.s1;                                                                             \
        q_[2] = v_.s2;                                                                             \
        q_[3] = v_.s3;                                                                             \
    } else                                                                                         \
        for (int i_ = 0; i_ < x##_n; ++i_)                                                         \
            q_[i_] = as_ulong(src[y * stride + x##_0 + i_]);                                       \
    _Pragma("unroll") for (int i_ = 0; i_ < 4; ++i_)                                               \
    {                                                                                              \
        const int x = x##_0 + i_;                                                                  \
        const ushort4 p_ = as_ushort4(q_[i_]);                                                     \
        ushort r = p_.x, g = p_.y, b = p_.z, a = p_.w;                                             \
        body;                                                                                      \
        q_[i_] = as_ulong((ushort4)(r, g, b, a));                                                  \
    }                                                                                              \
    if (x##_n == 4)                                                                                \
        *(__global ulong4 *)(dst + y * stride + x##_0) = (ulong4)(q_[0], q_[1], q_[2], q_[3]);     \
    else                                                                                           \
        for (int i_ = 0; i_ < x##_n; ++i_)                                                         \
        dst[y * stride + x##_0 + i_] = as_ushort4(q_[i_])
#elif CLV_ROW
#define CLV_POINT_PIXELS(x, y, r, g, b, a, body)                                                   \
    CLV_PIXEL_LOOP(w, h, x, y)                                                                     \
    {                                                                                              \
        clv_ch r, g, b, a;                                                                         \
        CLV_LOAD(src, y *stride + x, r, g, b, a);                                                  \
        body;                                                                                      \
        CLV_STORE(dst, y *stride + x, r, g, b, a);                                                 \
    }
#else
#define CLV_POINT_PIXELS(x, y, r, g, b, a, body)                                                   \
    const int y = (int)get_global_id(1), x##_0 = (int)get_global_id(0) * 4;                        \
    if (y >= h || x##_0 >= w)                                                                      \
        return;                                                                                    \
    const int x##_n = min(4, w - x##_0);                                                           \
    uint q_[4] = {0, 0, 0, 0};                                                                     \
    if (x##_n == 4)                                                                                \
        vstore4(*(__global const uint4 *)(src + y * stride + x##_0), 0, q_);                       \
    else                                                                                           \
        for (int i_ = 0; i_ < x##_n; ++i_)                                                         \
            q_[i_] = as_uint(src[y * stride + x##_0 + i_]);                                        \
    _Pragma("unroll") for (int i_ = 0; i_ < 4; ++i_)                                               \
    {                                                                                              \
        const int x = x##_0 + i_;                                                                  \
        const uchar4 p_ = as_uchar4(q_[i_]);                                                       \
        uchar r = p_.x, g = p_.y, b = p_.z, a = p_.w;                                              \
        body;                                                                                      \
        q_[i_] = as_uint((uchar4)(r, g, b, a));                                                    \
    }                                                                                              \
    if (x##_n == 4)                                                                                \
        *(__global uint4 *)(dst + y * stride + x##_0) = vload4(0, q_);                             \
    else                                                                                           \
        for (int i_ = 0; i_ < x##_n; ++i_)                                                         \
        dst[y * stride + x##_0 + i_] = as_uchar4(q_[i_])
#endif

/* The row shape: declares y for this work-item's row, and CLV_ROW_EDGES
 * loops x over the r pixels at each end of that row (every pixel when the
 * row is shorter than 2r + 1), which neighbourhood kernels clamp, before
 * they walk the interior without clamping. */
#define CLV_ROW_Y(y)                                                                               \
    const int y = (int)get_global_id(1);                                                           \
    if (y >= h)                                                                                    \
    return
#define CLV_ROW_EDGES(x, r)                                                                        \
    for (int x = 0; x < w; x = (x + 1 == (r) && w - (r) > (r)) ? w - (r) : x + 1)

#if CLV_ROW
/* The row shape's byte loops may compute alpha like any channel and put it
 * back a pixel at a time afterwards: choosing it by (i & 3) inside a byte
 * loop made the vectorized loop build its masks from 64-bit lane indices,
 * most of its instructions (`perf annotate` of median3). Pixels x0 .. x1 - 1
 * of out take centre's alpha. */
inline void clv_row_alpha(__global uchar *out, __global const uchar *centre, int x0, int x1)
{
#ifdef __ENDIAN_LITTLE__
    const uint a = 0xFF000000u;
#else
    const uint a = 0x000000FFu;
#endif
    __global uint *restrict o = (__global uint *)out;
    __global const uint *restrict c = (__global const uint *)centre;
    for (int x = x0; x < x1; ++x)
        o[x] = (o[x] & ~a) | (c[x] & a);
}
#endif

/* A row kernel's body as a function of its row (NAME_row: the row kernel
 * and the kernel inside the conversions, cl/yuv.cl, both call it), inlined
 * whole: PoCL's compiler left median3_row a call, which cost the median a
 * third of its speed. */
#define CLV_ROW_FN __attribute__((always_inline)) inline

/* The row shape's bytes of row y: neighbourhood kernels walk the interior
 * of a row byte by byte (channel c of pixel x is byte 4x + c). */
#define CLV_ROW_BYTES(buf, y) ((__global uchar *)((buf) + (y)*stride))
#define CLV_ROW_BYTES_CONST(buf, y) ((__global const uchar *)((buf) + (y)*stride))

/* BT.601 luma in fixed point (OpenCV's BGR2GRAY). */
inline int clv_gray3(int r, int g, int b)
{
    return (9798 * r + 19235 * g + 3735 * b + 16384) >> 15;
}

/* ffmpeg's gray8 of RGB (swscale's, format=gray of untagged or BT.601
 * frames): limited-range BT.601 Y in its integers, then stretched to full
 * range (lumRangeToJpeg) and rounded; every one of the 2^24 colours
 * checked against ffmpeg 5.1. Within 1 of clv_gray3. */
inline int clv_gray_sws(int r, int g, int b)
{
    const int t = (8414 * r + 16519 * g + 3208 * b + 524544) >> 9;
    return (t * 38154 - 38008785) >> 21;
}

/* At 16 bits too: the weights sum to 2^15, so 65535 * 2^15 + 2^14 fits. */
inline int clv_gray(clv_px p)
{
    return clv_gray3(p.x, p.y, p.z);
}

/* floor(a / b) for b > 0, exact where |a / b| < 2^20, from the float
 * reciprocal inv = 1.0f / b and one correction each way. Beyond 2^20 the
 * result is within a few units of the quotient with its sign, which the
 * callers' clamp to 0..255 after a bias of at most 1024 cannot tell apart.
 * It vectorizes where integer division does not. */
inline int clv_floor_div_inv(int a, int b, float inv)
{
    int q = convert_int_rtn((float)a * inv);
    q -= q * b > a;
    q += (q + 1) * b <= a;
    return q;
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

/* v clamped to the depth's range, alpha replaced. */
inline clv_px clv_clamp_px(int4 v, clv_ch alpha)
{
    clv_px o = clv_px_sat(v);
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
