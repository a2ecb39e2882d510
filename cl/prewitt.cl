/* prewitt.cl - Prewitt gradient magnitude per R,G,B:
 * clamp(floor(sqrt(gx^2 + gy^2) * p / q) + delta), computed exactly as
 * isqrt(m * p^2) / q with integers (scale = p / q, q = 1000). At 16 bits
 * the same on 0-65535 with delta times 257 (the host passes it on the
 * 8-bit scale). The 16-bit square roots are isqrt.cl's (shared with sobel
 * and roberts); the 8-bit kernels keep their own, fitted to their smaller
 * range. */
#include "isqrt.cl"

#if CLV_DEPTH == 8

#define PREWITT_Q 1000u
#define PREWITT_CAP ((ulong)(511u * PREWITT_Q) * (ulong)(511u * PREWITT_Q))

#if CLV_ROW && defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* floor(sqrt(m) * p / q) capped at 511, which saturates any delta. Below the
 * cap x < 2^38 is exact in a double, so the rounded square root is off by at
 * most one: one correction each way, no loop, and it vectorizes. */
inline int prewitt_mag(uint m, ulong p2)
{
    const ulong x = (ulong)m * p2;
    ulong r = (ulong)sqrt((double)min(x, PREWITT_CAP));
    r -= r * r > x;
    r += (r + 1) * (r + 1) <= x;
    return x >= PREWITT_CAP ? 511 : (int)(r / PREWITT_Q);
}
#else
inline int prewitt_mag(uint m, ulong p2)
{
    const ulong x = (ulong)m * p2;
    if (x >= PREWITT_CAP)
        return 511;
    ulong r = (ulong)sqrt((float)x);
    while (r * r > x)
        --r;
    while ((r + 1) * (r + 1) <= x)
        ++r;
    return (int)(r / PREWITT_Q);
}
#endif

/* floor(sqrt(m)) for the scale = 1 case, m <= 2 * 765^2 (exact in a
 * float). OpenCL's sqrt may be 3 ulp off; below 1100 that is less than the
 * 1/2k by which sqrt(k^2 - 1) falls short of k, so the float root never
 * reaches the next integer, and one correction (an exact square that came
 * out just below) is enough. */
inline int prewitt_isqrt(int m)
{
    const int r = (int)sqrt((float)m);
    return r + ((r + 1) * (r + 1) <= m);
}

/* gx^2 + gy^2 per channel at (x, y), edges clamped. */
inline int4 prewitt_m(__global const uchar4 *src, int w, int h, int stride, int x, int y)
{
    const int ym = clamp(y - 1, 0, h - 1) * stride, y0 = y * stride,
              yp = clamp(y + 1, 0, h - 1) * stride;
    const int xm = clamp(x - 1, 0, w - 1), xp = clamp(x + 1, 0, w - 1);
    const int4 a = clv_int4(src[ym + xm]), b = clv_int4(src[ym + x]), c = clv_int4(src[ym + xp]);
    const int4 d = clv_int4(src[y0 + xm]), f = clv_int4(src[y0 + xp]);
    const int4 g = clv_int4(src[yp + xm]), hh = clv_int4(src[yp + x]), k = clv_int4(src[yp + xp]);
    const int4 gx = (c + f + k) - (a + d + g);
    const int4 gy = (g + hh + k) - (a + b + c);
    return gx * gx + gy * gy;
}

/* The magnitudes of m with scale p2 (in millionths), or of scale = 1 when
 * unit is set (a constant after inlining: no 64-bit code). */
inline int4 prewitt_mags(int4 m, ulong p2, const int unit)
{
    if (unit)
        return (int4)(prewitt_isqrt(m.x), prewitt_isqrt(m.y), prewitt_isqrt(m.z), 0);
    return (int4)(prewitt_mag((uint)m.x, p2), prewitt_mag((uint)m.y, p2),
                  prewitt_mag((uint)m.z, p2), 0);
}

inline uchar4 prewitt_pixel(__global const uchar4 *src, int w, int h, int stride, ulong p2,
                            int delta, int x, int y, const int unit)
{
    const int4 o = prewitt_mags(prewitt_m(src, w, h, stride, x, y), p2, unit);
    return clv_clamp_u8(o + delta, src[y * stride + x].w);
}

#if CLV_ROW
/* Row y (the row kernels' body, and the fused kernel's on its strips). */
CLV_ROW_FN void prewitt_row(CLV_FRAME_ARGS, int y, ulong p2, int delta)
{
    dst[y * stride] = prewitt_pixel(src, w, h, stride, p2, delta, 0, y, 0);
    if (w > 1)
        dst[y * stride + w - 1] = prewitt_pixel(src, w, h, stride, p2, delta, w - 1, y, 0);
    __global const uchar *r0 = CLV_ROW_BYTES_CONST(src, max(y - 1, 0));
    __global const uchar *r1 = CLV_ROW_BYTES_CONST(src, y);
    __global const uchar *r2 = CLV_ROW_BYTES_CONST(src, min(y + 1, h - 1));
    __global uchar *restrict out = CLV_ROW_BYTES(dst, y);
    if (p2 == (ulong)PREWITT_Q * PREWITT_Q) {
        /* 16 bytes at a time: the gradients in short16, the magnitude in
         * int16/float16 lanes (vector relations are -1 when true). */
        const uchar16 alpha = (uchar16)(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255);
        const int end = 4 * (w - 1);
        int i = 4;
        for (; i + 16 <= end; i += 16) {
#define PREWITT_AT(p, o) convert_short16(*(__global const clv_uchar16_u *)((p) + i + (o)))
            const int16 gx =
                convert_int16((PREWITT_AT(r0, 4) + PREWITT_AT(r1, 4) + PREWITT_AT(r2, 4)) -
                              (PREWITT_AT(r0, -4) + PREWITT_AT(r1, -4) + PREWITT_AT(r2, -4)));
            const int16 gy =
                convert_int16((PREWITT_AT(r2, -4) + PREWITT_AT(r2, 0) + PREWITT_AT(r2, 4)) -
                              (PREWITT_AT(r0, -4) + PREWITT_AT(r0, 0) + PREWITT_AT(r0, 4)));
#undef PREWITT_AT
            const int16 m = gx * gx + gy * gy;
            int16 r = convert_int16(sqrt(convert_float16(m)));
            r -= (r + 1) * (r + 1) <= m; /* as prewitt_isqrt */
            *(__global clv_uchar16_u *)(out + i) = bitselect(
                convert_uchar16_sat(r + delta), *(__global const clv_uchar16_u *)(r1 + i), alpha);
        }
        for (; i < end; ++i) {
            const int gx =
                (r0[i + 4] + r1[i + 4] + r2[i + 4]) - (r0[i - 4] + r1[i - 4] + r2[i - 4]);
            const int gy = (r2[i - 4] + r2[i] + r2[i + 4]) - (r0[i - 4] + r0[i] + r0[i + 4]);
            const int v = prewitt_isqrt(gx * gx + gy * gy) + delta;
            out[i] = (i & 3) == 3 ? r1[i] : convert_uchar_sat(v);
        }
        return;
    }
    for (int i = 4; i < 4 * (w - 1); ++i) { /* alpha put back after (clv_row_alpha) */
        const int gx = (r0[i + 4] + r1[i + 4] + r2[i + 4]) - (r0[i - 4] + r1[i - 4] + r2[i - 4]);
        const int gy = (r2[i - 4] + r2[i] + r2[i + 4]) - (r0[i - 4] + r0[i] + r0[i + 4]);
        const int v = prewitt_mag((uint)(gx * gx + gy * gy), p2) + delta;
        out[i] = convert_uchar_sat(v);
    }
    clv_row_alpha(out, r1, 1, w - 1);
}
#endif

#if !CLV_ROW
/* The GPU shape's scale = 1 kernel works in FP32: NVIDIA's sm_90 issues
 * 32-bit integer instructions at half the FP32 rate, and the integer kernel
 * kept that pipe 70% busy (Nsight Compute on an H200: docs/performance.md).
 * Every step is exact or bounded:
 * - a byte v is the float 64 + v/512 (v put under the exponent of 64: one
 *   prmt on NVIDIA), so the window's sums and differences are exact (all
 *   multiples of 2^-9 below 256), the bias cancels, and gx, gy are the
 *   integer gradients / 512;
 * - m = gx^2 + gy^2 + 2^-40 is M/2^18 (M the integer gx^2 + gy^2) times
 *   1 + e, |e| <= 2^-22, for M > 0; for M = 0 (which the 2^-40 keeps off
 *   rsqrt's infinity) s below is (delta - 1/2 + 2^-10)/255, which rounds to
 *   delta;
 * - s = m * rsqrt(m * (255/512)^2) + (delta - 1/2 + 2^-11)/255, rsqrt within
 *   2 ulp (OpenCL's bound; NVIDIA's rsqrt.approx), is t/255 with t =
 *   sqrt(M) + delta - 1/2 + 2^-11, within 2^-12.3/255 for sqrt(M) <= 512
 *   (those bounds summed; 255 s's own rounding adds 2^-17): an exact square
 *   k^2 lands at least 2^-11 - 2^-12.3 above the point where 255 s rounds
 *   to k + delta, and every M below (k + 1)^2 (k < 511) at least
 *   1/(2 (k + 1)) - 2^-11 - 2^-12.3 > 0 below the next, so 255 s rounds to
 *   floor(sqrt(M)) + delta; magnitudes from 511 up saturate at any delta
 *   (-255..255). (A C model of the kernel with rsqrt 2 ulp off either way,
 *   fused and unfused, gives every byte for every gradient pair and delta:
 *   its closest approach to a rounding point is 2^-11.45.)
 * - s saturated to [0, 1] (one fma.sat on NVIDIA), 255 s + 1.5 * 2^23 holds
 *   the clamped byte in its low bits (round to nearest; never halfway).
 * filter_prewitt runs every gradient pair a window can give at five deltas:
 * a root off by one anywhere shows (2^-9 for the 2^-11 fails it). */
inline float prewitt_f(uchar4 p, int k, uint mg)
{
#if CLV_NV_SM
    /* The selector an immediate and mg (0x42800000) a register that ptxas
     * cannot see as a constant: given the constant, it moved it into the
     * instruction and the selector into a register, copied for each prmt. */
    uint f;
    if (k == 0)
        asm("prmt.b32 %0, %1, %2, 0x7604;" : "=r"(f) : "r"(as_uint(p)), "r"(mg));
    else if (k == 1)
        asm("prmt.b32 %0, %1, %2, 0x7614;" : "=r"(f) : "r"(as_uint(p)), "r"(mg));
    else
        asm("prmt.b32 %0, %1, %2, 0x7624;" : "=r"(f) : "r"(as_uint(p)), "r"(mg));
    return as_float(f);
#else
    return as_float(mg | (((as_uint(p) >> (8 * k)) & 0xffu) << 8));
#endif
}

/* The magnitude + delta of one channel, clamped, in the low byte (cd:
 * (delta - 1/2 + 2^-11) / 255; 0x1.fc02p-3 is (255/512)^2). */
inline uint prewitt_fmag(float gx, float gy, float cd)
{
    const float m = gy * gy + (gx * gx + 0x1p-40f);
#if CLV_NV_SM
    float r, t;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(m * 0x1.fc02p-3f));
    asm("fma.rn.sat.f32 %0, %1, %2, %3;" : "=f"(t) : "f"(m), "f"(r), "f"(cd));
#else
    const float t = clamp(m * rsqrt(m * 0x1.fc02p-3f) + cd, 0.0f, 1.0f);
#endif
    return as_uint(t * 255.0f + 0x1.8p23f);
}

/* A pixel's bytes from its channels' low bytes: c0 (red), then green
 * added, then blue and p's alpha. */
inline uint prewitt_fadd_g(uint o, uint g)
{
#if CLV_NV_SM
    return clv_prmt(o, g, 0x0040u);
#else
    return (o & 0xffu) | (g & 0xffu) << 8;
#endif
}
inline uchar4 prewitt_fadd_b(uint o, uint b, uchar4 p)
{
#if CLV_NV_SM
    return as_uchar4(clv_prmt(o, clv_prmt(b, as_uint(p), 0x0070u), 0x5410u));
#else
    return as_uchar4((o & 0xffffu) | (b & 0xffu) << 16 | (as_uint(p) & 0xff000000u));
#endif
}

/* Output rows y and y + 1 (when inside the frame) at x0..x0 + 3 from the
 * window's rows a (y - 1), b, c, d (y + 2), six pixels each from x0 - 1. */
inline void prewitt_fpair(__global clv_px *dst, int h, int stride, int x0, int y, const uchar4 *a,
                          const uchar4 *b, const uchar4 *c, const uchar4 *d, float cd, uint mg)
{
    uint o0[4], o1[4];
#pragma unroll
    for (int k = 0; k < 3; ++k) {
        float s0[6], d0[6], s1[6], d1[6];
#pragma unroll
        for (int i = 0; i < 6; ++i) {
            const float pa = prewitt_f(a[i], k, mg), pb = prewitt_f(b[i], k, mg),
                        pc = prewitt_f(c[i], k, mg), pd = prewitt_f(d[i], k, mg);
            const float bc = pb + pc;
            s0[i] = pa + bc;
            d0[i] = pc - pa;
            s1[i] = bc + pd;
            d1[i] = pd - pb;
        }
        /* gy = three neighbouring differences, two pairs shared */
        const float p0 = d0[1] + d0[2], q0 = d0[3] + d0[4], p1 = d1[1] + d1[2], q1 = d1[3] + d1[4];
        const float gy0[4] = {d0[0] + p0, p0 + d0[3], d0[2] + q0, q0 + d0[5]};
        const float gy1[4] = {d1[0] + p1, p1 + d1[3], d1[2] + q1, q1 + d1[5]};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const uint n0 = prewitt_fmag(s0[i + 2] - s0[i], gy0[i], cd);
            const uint n1 = prewitt_fmag(s1[i + 2] - s1[i], gy1[i], cd);
            if (k == 0) {
                o0[i] = n0;
                o1[i] = n1;
            } else if (k == 1) {
                o0[i] = prewitt_fadd_g(o0[i], n0);
                o1[i] = prewitt_fadd_g(o1[i], n1);
            } else {
                o0[i] = as_uint(prewitt_fadd_b(o0[i], n0, b[i + 1]));
                o1[i] = as_uint(prewitt_fadd_b(o1[i], n1, c[i + 1]));
            }
        }
    }
    *(__global uint4 *)(dst + y * stride + x0) = (uint4)(o0[0], o0[1], o0[2], o0[3]);
    if (y + 1 < h)
        *(__global uint4 *)(dst + (y + 1) * stride + x0) = (uint4)(o1[0], o1[1], o1[2], o1[3]);
}

#if CLV_NV_SM >= 80
/* NVIDIA sm_80 and later: the window's sums and differences on pairs of
 * channels, (R, G) and (B, A), as half-precision lanes read as subnormals
 * (v * 2^-24, as median_common.cl's medf2): every value they reach
 * (|v| <= 765) is a half exactly, and PTX keeps subnormal halves, so one
 * add.f16x2 does two channels' exact integer addition on the FP pipe; each
 * gradient is then the float g * 2^-24 (cvt.f32.f16, exact), and the
 * magnitude is prewitt_fmag's at that scale. */
inline uint prewitt_hadd(uint a, uint b)
{
    uint d;
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
inline uint prewitt_hsub(uint a, uint b)
{
    uint d;
    asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
inline float2 prewitt_hfloat2(uint a)
{
    float lo, hi;
    asm("{ .reg .f16 l, h; mov.b32 {l, h}, %2; cvt.f32.f16 %0, l; cvt.f32.f16 %1, h; }"
        : "=f"(lo), "=f"(hi)
        : "r"(a));
    return (float2)(lo, hi);
}
inline float prewitt_hfloat(uint a)
{
    float lo;
    asm("{ .reg .f16 l, h; mov.b32 {l, h}, %1; cvt.f32.f16 %0, l; }" : "=f"(lo) : "r"(a));
    return lo;
}

/* prewitt_fmag for gradients g * 2^-24 (0x1.fc02p-33: (255/2^24)^2). */
inline uint prewitt_hmag(float gx, float gy, float cd)
{
    const float m = gy * gy + (gx * gx + 0x1p-70f);
    float r, t;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(m * 0x1.fc02p-33f));
    asm("fma.rn.sat.f32 %0, %1, %2, %3;" : "=f"(t) : "f"(m), "f"(r), "f"(cd));
    return as_uint(t * 255.0f + 0x1.8p23f);
}

/* prewitt_fpair on half lanes. */
inline void prewitt_hpair(__global clv_px *dst, int h, int stride, int x0, int y, const uchar4 *a,
                          const uchar4 *b, const uchar4 *c, const uchar4 *d, float cd)
{
    uint gx0[2][4], gy0[2][4], gx1[2][4], gy1[2][4];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        const uint sel = k ? 0x4342u : 0x4140u; /* (R, G) or (B, A) as 16-bit lanes */
        uint s0[6], d0[6], s1[6], d1[6];
#pragma unroll
        for (int i = 0; i < 6; ++i) {
            const uint pa = clv_prmt(as_uint(a[i]), 0u, sel), pb = clv_prmt(as_uint(b[i]), 0u, sel),
                       pc = clv_prmt(as_uint(c[i]), 0u, sel), pd = clv_prmt(as_uint(d[i]), 0u, sel);
            const uint bc = prewitt_hadd(pb, pc);
            s0[i] = prewitt_hadd(pa, bc);
            d0[i] = prewitt_hsub(pc, pa);
            s1[i] = prewitt_hadd(bc, pd);
            d1[i] = prewitt_hsub(pd, pb);
        }
        const uint p0 = prewitt_hadd(d0[1], d0[2]), q0 = prewitt_hadd(d0[3], d0[4]),
                   p1 = prewitt_hadd(d1[1], d1[2]), q1 = prewitt_hadd(d1[3], d1[4]);
        gy0[k][0] = prewitt_hadd(d0[0], p0);
        gy0[k][1] = prewitt_hadd(p0, d0[3]);
        gy0[k][2] = prewitt_hadd(d0[2], q0);
        gy0[k][3] = prewitt_hadd(q0, d0[5]);
        gy1[k][0] = prewitt_hadd(d1[0], p1);
        gy1[k][1] = prewitt_hadd(p1, d1[3]);
        gy1[k][2] = prewitt_hadd(d1[2], q1);
        gy1[k][3] = prewitt_hadd(q1, d1[5]);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            gx0[k][i] = prewitt_hsub(s0[i + 2], s0[i]);
            gx1[k][i] = prewitt_hsub(s1[i + 2], s1[i]);
        }
    }
    uint o0[4], o1[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        float2 gx = prewitt_hfloat2(gx0[0][i]), gy = prewitt_hfloat2(gy0[0][i]);
        uint rg = prewitt_fadd_g(prewitt_hmag(gx.x, gy.x, cd), prewitt_hmag(gx.y, gy.y, cd));
        o0[i] = as_uint(prewitt_fadd_b(
            rg, prewitt_hmag(prewitt_hfloat(gx0[1][i]), prewitt_hfloat(gy0[1][i]), cd), b[i + 1]));
        gx = prewitt_hfloat2(gx1[0][i]);
        gy = prewitt_hfloat2(gy1[0][i]);
        rg = prewitt_fadd_g(prewitt_hmag(gx.x, gy.x, cd), prewitt_hmag(gx.y, gy.y, cd));
        o1[i] = as_uint(prewitt_fadd_b(
            rg, prewitt_hmag(prewitt_hfloat(gx1[1][i]), prewitt_hfloat(gy1[1][i]), cd), c[i + 1]));
    }
    *(__global uint4 *)(dst + y * stride + x0) = (uint4)(o0[0], o0[1], o0[2], o0[3]);
    if (y + 1 < h)
        *(__global uint4 *)(dst + (y + 1) * stride + x0) = (uint4)(o1[0], o1[1], o1[2], o1[3]);
}
#endif

#endif

/* The kernels' body; unit: scale = 1, known at compile time (GPU shape:
 * without the general path's 64-bit code the kernel keeps fewer
 * registers). */
inline void prewitt_body(CLV_FRAME_ARGS, ulong p2, int delta, const int unit)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    prewitt_row(src, dst, w, h, stride, y, p2, delta);
#else
    if (unit) {
        /* scale = 1: four outputs in each of two rows a work-item, in FP32
         * (prewitt_fpair). */
        const int y = (int)get_global_id(1) * 2, x0 = (int)get_global_id(0) * 4;
        if (y >= h || x0 >= w)
            return;
        if (x0 + 4 >= w) {
            for (int yy = y; yy < min(y + 2, h); ++yy)
                for (int x = x0; x < w; ++x)
                    dst[yy * stride + x] = prewitt_pixel(src, w, h, stride, p2, delta, x, yy, unit);
            return;
        }
        /* Rows y - 1 .. y + 2, six pixels each from x0 - 1 (x0 at the left
         * edge), addressed from one index a row. */
        const int left = x0 > 0;
        uchar4 r[4][6];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int at = clamp(y - 1 + i, 0, h - 1) * stride + x0;
            const uint4 mid = *(__global const uint4 *)(src + at);
            r[i][0] = src[at - left];
            r[i][1] = as_uchar4(mid.x);
            r[i][2] = as_uchar4(mid.y);
            r[i][3] = as_uchar4(mid.z);
            r[i][4] = as_uchar4(mid.w);
            r[i][5] = src[at + 4];
        }
        const float cd = ((float)delta - 0.5f + 0x1p-11f) / 255.0f;
#if CLV_NV_SM >= 80
        prewitt_hpair(dst, h, stride, x0, y, r[0], r[1], r[2], r[3], cd);
#else
        const uint mg = 0x42800000u | ((uint)h >> 31); /* h >= 0: the constant */
        prewitt_fpair(dst, h, stride, x0, y, r[0], r[1], r[2], r[3], cd, mg);
#endif
    } else {
        CLV_WIN3(src, w, h, stride,
                 dst[y * stride + x] = prewitt_pixel(src, w, h, stride, p2, delta, x, y, unit));
        int4 col_sum[6], col_diff[6];
#pragma unroll
        for (int i = 0; i < 6; ++i) {
            col_sum[i] = clv_int4(a[i]) + clv_int4(b[i]) + clv_int4(c[i]);
            col_diff[i] = clv_int4(c[i]) - clv_int4(a[i]);
        }
        uchar4 o[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int4 gx = col_sum[i + 2] - col_sum[i];
            const int4 gy = col_diff[i] + col_diff[i + 1] + col_diff[i + 2];
            o[i] = clv_clamp_u8(prewitt_mags(gx * gx + gy * gy, p2, unit) + delta, b[i + 1].w);
        }
        CLV_STORE4(dst, stride, y, x0, o);
    }
#endif
}

__kernel void prewitt(CLV_FRAME_ARGS, ulong p2, int delta)
{
    prewitt_body(src, dst, w, h, stride, p2, delta, 0);
}

/* scale = 1 (p2 = PREWITT_Q^2) */
__kernel void prewitt_unit(CLV_FRAME_ARGS, ulong p2, int delta)
{
    prewitt_body(src, dst, w, h, stride, p2, delta, 1);
}

#if CLV_ROW
/* Inside the stage's conversions (cl/yuv.cl), reach 1; any scale. */
__kernel void prewitt_yuv(CLV_FUSED_ARGS, ulong p2, int delta)
{
    CLV_FUSED_BODY(prewitt_row(fsrc, fdst, w, fh, stride, fy, p2, delta));
}
#endif

#else /* CLV_DEPTH == 16 */

/* |gx|, |gy| <= 3 * 65535, so m = gx^2 + gy^2 (up to 7.7e10) is a ulong.
 * A magnitude of PREWITT_CAP = 2 * 65535 + 1 or more saturates any delta
 * (-65535..65535, as 511 at 8 bits), so m * p2 is formed only where it is
 * at most (PREWITT_CAP * q)^2, under 2^54: for m <= mlim = that / p2. */
#define PREWITT_Q 1000u
#define PREWITT_CAP 131071
#define PREWITT_X_CAP ((ulong)(PREWITT_CAP * PREWITT_Q) * (ulong)(PREWITT_CAP * PREWITT_Q))

/* The limit on m for scale p2 (in millionths). */
inline ulong prewitt_mlim(ulong p2)
{
    return p2 ? PREWITT_X_CAP / p2 : ULONG_MAX;
}

/* One channel's output from its gradients; delta at this depth; unit:
 * scale = 1, known at compile time. */
inline ushort prewitt_out(int gx, int gy, ulong p2, ulong mlim, int delta, const int unit)
{
    const ulong m = (ulong)((long)gx * gx + (long)gy * gy);
    int mag;
    if (unit)
        mag = clv_isqrt((long)m);
    else
        mag = m > mlim ? PREWITT_CAP : (int)(clv_isqrt64(m * p2) / PREWITT_Q);
    return convert_ushort_sat(mag + delta);
}

/* The pixel at (x, y), edges clamped. */
inline ushort4 prewitt_pixel(__global const ushort4 *src, int w, int h, int stride, ulong p2,
                             ulong mlim, int delta, int x, int y, const int unit)
{
    const int ym = clamp(y - 1, 0, h - 1) * stride, y0 = y * stride,
              yp = clamp(y + 1, 0, h - 1) * stride;
    const int xm = clamp(x - 1, 0, w - 1), xp = clamp(x + 1, 0, w - 1);
    const int4 a = convert_int4(src[ym + xm]), b = convert_int4(src[ym + x]),
               c = convert_int4(src[ym + xp]);
    const int4 d = convert_int4(src[y0 + xm]), f = convert_int4(src[y0 + xp]);
    const int4 g = convert_int4(src[yp + xm]), hh = convert_int4(src[yp + x]),
               k = convert_int4(src[yp + xp]);
    const int4 gx = (c + f + k) - (a + d + g);
    const int4 gy = (g + hh + k) - (a + b + c);
    return (ushort4)(prewitt_out(gx.x, gy.x, p2, mlim, delta, unit),
                     prewitt_out(gx.y, gy.y, p2, mlim, delta, unit),
                     prewitt_out(gx.z, gy.z, p2, mlim, delta, unit), src[y0 + x].w);
}

/* Output i of a window row from its column sums and differences. */
#define PREWITT_OUT4(sum, diff, i, alpha)                                                          \
    (ushort4)(prewitt_out(sum[i + 2].x - sum[i].x, diff[i].x + diff[i + 1].x + diff[i + 2].x, p2,  \
                          mlim, delta, unit),                                                      \
              prewitt_out(sum[i + 2].y - sum[i].y, diff[i].y + diff[i + 1].y + diff[i + 2].y, p2,  \
                          mlim, delta, unit),                                                      \
              prewitt_out(sum[i + 2].z - sum[i].z, diff[i].z + diff[i + 1].z + diff[i + 2].z, p2,  \
                          mlim, delta, unit),                                                      \
              alpha)

inline void prewitt_body(CLV_FRAME_ARGS, ulong p2, int delta8, const int unit)
{
    const int delta = CLV_SCALE8(delta8);
    const ulong mlim = prewitt_mlim(p2);
#if CLV_ROW
    /* Row y: the ends clamped, the interior channel by channel, alpha
     * computed like a channel and put back after. */
    CLV_ROW_Y(y);
    dst[y * stride] = prewitt_pixel(src, w, h, stride, p2, mlim, delta, 0, y, unit);
    if (w > 1)
        dst[y * stride + w - 1] = prewitt_pixel(src, w, h, stride, p2, mlim, delta, w - 1, y, unit);
    __global const ushort *r0 = (__global const ushort *)(src + max(y - 1, 0) * stride);
    __global const ushort *r1 = (__global const ushort *)(src + y * stride);
    __global const ushort *r2 = (__global const ushort *)(src + min(y + 1, h - 1) * stride);
    __global ushort *restrict out = (__global ushort *)(dst + y * stride);
    for (int i = 4; i < 4 * (w - 1); ++i) {
        const int gx = (r0[i + 4] + r1[i + 4] + r2[i + 4]) - (r0[i - 4] + r1[i - 4] + r2[i - 4]);
        const int gy = (r2[i - 4] + r2[i] + r2[i + 4]) - (r0[i - 4] + r0[i] + r0[i + 4]);
        out[i] = prewitt_out(gx, gy, p2, mlim, delta, unit);
    }
    for (int x = 1; x < w - 1; ++x)
        out[4 * x + 3] = r1[4 * x + 3];
#else
    if (unit) {
        /* scale = 1: four outputs in each of two rows a work-item, sharing
         * the middle rows, as at 8 bits. */
        CLV_WIN3x2(src, w, h, stride,
                   dst[yy * stride + x] =
                       prewitt_pixel(src, w, h, stride, p2, mlim, delta, x, yy, unit));
        int4 s0[6], d0[6], s1[6], d1[6];
#pragma unroll
        for (int i = 0; i < 6; ++i) {
            const int4 pa = convert_int4(a[i]), pb = convert_int4(b[i]), pc = convert_int4(c[i]),
                       pd = convert_int4(d[i]);
            const int4 bc = pb + pc;
            s0[i] = pa + bc;
            d0[i] = pc - pa;
            s1[i] = bc + pd;
            d1[i] = pd - pb;
        }
        ushort4 o[4], o1[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            o[i] = PREWITT_OUT4(s0, d0, i, b[i + 1].w);
            o1[i] = PREWITT_OUT4(s1, d1, i, c[i + 1].w);
        }
        CLV_STORE4(dst, stride, y, x0, o);
        if (y + 1 < h)
            CLV_STORE4(dst, stride, y + 1, x0, o1);
    } else {
        CLV_WIN3(src, w, h, stride,
                 dst[y * stride + x] =
                     prewitt_pixel(src, w, h, stride, p2, mlim, delta, x, y, unit));
        int4 col_sum[6], col_diff[6];
#pragma unroll
        for (int i = 0; i < 6; ++i) {
            col_sum[i] = convert_int4(a[i]) + convert_int4(b[i]) + convert_int4(c[i]);
            col_diff[i] = convert_int4(c[i]) - convert_int4(a[i]);
        }
        ushort4 o[4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
            o[i] = PREWITT_OUT4(col_sum, col_diff, i, b[i + 1].w);
        CLV_STORE4(dst, stride, y, x0, o);
    }
#endif
}
#undef PREWITT_OUT4

__kernel void prewitt(CLV_FRAME_ARGS, ulong p2, int delta)
{
    prewitt_body(src, dst, w, h, stride, p2, delta, 0);
}

/* scale = 1 (p2 = PREWITT_Q^2) */
__kernel void prewitt_unit(CLV_FRAME_ARGS, ulong p2, int delta)
{
    prewitt_body(src, dst, w, h, stride, p2, delta, 1);
}
#endif /* CLV_DEPTH */
