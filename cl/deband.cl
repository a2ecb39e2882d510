/* deband.cl - ffmpeg's deband (src/filters/deband.c): each pixel compared
 * with the four pixels at (x +- dx, y +- dy), its offsets from the host's
 * table (ffmpeg's, one int a pixel: dx in the low 16 bits, dy in the high,
 * both signed), clamped to the frame; avg = their sum / 4. Per channel:
 * blur: avg where |p - avg| < thr, else p; without blur: avg where each
 * |p - ref| < thr. coupling: avg in every channel where all three pass,
 * else p. thr: R, G, B thresholds (0: that channel never changes). */

inline clv_px deband_pixel(CLV_FRAME_ARGS, __global const int *offsets, int4 thr, int blur,
                           int coupling, int x, int y)
{
    const int o = offsets[y * w + x];
    const int dx = (short)(o & 0xFFFF), dy = o >> 16;
    const int xp = clamp(x + dx, 0, w - 1), xm = clamp(x - dx, 0, w - 1);
    const int yp = clamp(y + dy, 0, h - 1) * stride, ym = clamp(y - dy, 0, h - 1) * stride;
    const clv_px p = src[y * stride + x];
    const int4 c = convert_int4(p);
    const int4 r0 = convert_int4(src[yp + xp]), r1 = convert_int4(src[ym + xp]),
               r2 = convert_int4(src[ym + xm]), r3 = convert_int4(src[yp + xm]);
    const int4 avg = (r0 + r1 + r2 + r3) >> 2;
    int4 pass; /* -1 where the channel takes avg */
    if (blur)
        pass = abs_diff(c, avg) < convert_uint4(thr);
    else
        pass = abs_diff(c, r0) < convert_uint4(thr) & abs_diff(c, r1) < convert_uint4(thr) &
               abs_diff(c, r2) < convert_uint4(thr) & abs_diff(c, r3) < convert_uint4(thr);
    if (coupling)
        pass = (int4)(pass.x & pass.y & pass.z);
    const int4 out = select(c, avg, pass);
    return (clv_px)((clv_ch)out.x, (clv_ch)out.y, (clv_ch)out.z, p.w);
}

#if CLV_ROW && CLV_DEPTH == 8 && defined(__AVX512F__)
/* 16 pixels of row y from x on, at 8 bits on AVX-512 CPUs: the four
 * neighbours read as whole pixels with vpgatherdd (four gathers for 16
 * pixels where the scalar loop below makes twelve of bytes), then the same
 * comparisons channel by channel in 16 lanes. */
typedef uint16 __attribute__((aligned(4))) deband_uint16_u;
typedef int16 __attribute__((aligned(4))) deband_int16_u;
#define DEBAND_GATHER(base, idx)                                                                   \
    as_uint16(__builtin_ia32_gathersiv16si((int16)0, (const void *)(ulong)(base), idx,             \
                                           (ushort)0xffff, 4))
__attribute__((always_inline)) inline void deband_step16(CLV_FRAME_ARGS,
                                                         __global const int *offsets, int4 thr,
                                                         int x, int y, const int blur,
                                                         const int coupling)
{
    const int16 o = *(__global const deband_int16_u *)(offsets + y * w + x);
    const int16 dx = (o << 16) >> 16, dy = o >> 16;
    const int16 xs = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) + x;
    const int16 xp = clamp(xs + dx, 0, w - 1), xm = clamp(xs - dx, 0, w - 1);
    const int16 yp = clamp(y + dy, 0, h - 1) * stride, ym = clamp(y - dy, 0, h - 1) * stride;
    const uint16 r0 = DEBAND_GATHER(src, yp + xp), r1 = DEBAND_GATHER(src, ym + xp),
                 r2 = DEBAND_GATHER(src, ym + xm), r3 = DEBAND_GATHER(src, yp + xm);
    const uint16 p = *(__global const deband_uint16_u *)(src + y * stride + x);
    int16 avg[3], pc[3], pass[3];
    for (int c = 0; c < 3; ++c) {
#define DEBAND_CH(v) as_int16((v) >> (uint)(8 * c) & 255u)
        const int16 t = (int16)(c == 0 ? thr.x : c == 1 ? thr.y : thr.z);
        const int16 q0 = DEBAND_CH(r0), q1 = DEBAND_CH(r1), q2 = DEBAND_CH(r2), q3 = DEBAND_CH(r3);
        pc[c] = DEBAND_CH(p);
        avg[c] = (q0 + q1 + q2 + q3) >> 2;
        if (blur)
            pass[c] = abs(pc[c] - avg[c]) < as_uint16(t);
        else
            pass[c] = abs(pc[c] - q0) < as_uint16(t) & abs(pc[c] - q1) < as_uint16(t) &
                      abs(pc[c] - q2) < as_uint16(t) & abs(pc[c] - q3) < as_uint16(t);
#undef DEBAND_CH
    }
    const int16 all = pass[0] & pass[1] & pass[2];
    uint16 out = p & 0xff000000u;
    for (int c = 0; c < 3; ++c)
        out |= as_uint16(select(pc[c], avg[c], coupling ? all : pass[c])) << (uint)(8 * c);
    *(__global deband_uint16_u *)(dst + y * stride + x) = out;
}
#undef DEBAND_GATHER
#endif

#if CLV_ROW
/* The row shape: channel by channel in scalars, which PoCL's loop
 * vectorizer turns into gathers across the row (the int4 form stayed
 * scalar); blur and coupling are constants in each copy of the loop. */
__attribute__((always_inline)) inline void deband_row(CLV_FRAME_ARGS, __global const int *offsets,
                                                      int4 thr, int y, const int blur,
                                                      const int coupling)
{
    __global const clv_ch *in = (__global const clv_ch *)src;
    __global clv_ch *restrict out = (__global clv_ch *)(dst + y * stride);
    __global const int *off = offsets + y * w;
    const int s4 = 4 * stride;
    int x = 0;
#if CLV_DEPTH == 8 && defined(__AVX512F__)
    for (; x + 16 <= w; x += 16)
        deband_step16(src, dst, w, h, stride, offsets, thr, x, y, blur, coupling);
#endif
    for (; x < w; ++x) {
        const int o = off[x];
        const int dx = (short)(o & 0xFFFF), dy = o >> 16;
        const int xp = 4 * clamp(x + dx, 0, w - 1), xm = 4 * clamp(x - dx, 0, w - 1);
        const int yp = clamp(y + dy, 0, h - 1) * s4, ym = clamp(y - dy, 0, h - 1) * s4;
        const int i = y * s4 + 4 * x;
        int avg[3], p[3], pass[3];
        for (int c = 0; c < 3; ++c) {
            const int r0 = in[yp + xp + c], r1 = in[ym + xp + c], r2 = in[ym + xm + c],
                      r3 = in[yp + xm + c];
            const int t = c == 0 ? thr.x : c == 1 ? thr.y : thr.z;
            p[c] = in[i + c];
            avg[c] = (r0 + r1 + r2 + r3) >> 2;
            if (blur)
                pass[c] = abs(p[c] - avg[c]) < t;
            else
                pass[c] = abs(p[c] - r0) < t && abs(p[c] - r1) < t && abs(p[c] - r2) < t &&
                          abs(p[c] - r3) < t;
        }
        const int all = pass[0] & pass[1] & pass[2];
        for (int c = 0; c < 3; ++c)
            out[4 * x + c] = (clv_ch)((coupling ? all : pass[c]) ? avg[c] : p[c]);
        out[4 * x + 3] = in[i + 3];
    }
}

__kernel void deband(CLV_FRAME_ARGS, __global const int *offsets, int4 thr, int blur, int coupling)
{
    CLV_ROW_Y(y);
    if (blur)
        coupling ? deband_row(src, dst, w, h, stride, offsets, thr, y, 1, 1)
                 : deband_row(src, dst, w, h, stride, offsets, thr, y, 1, 0);
    else
        coupling ? deband_row(src, dst, w, h, stride, offsets, thr, y, 0, 1)
                 : deband_row(src, dst, w, h, stride, offsets, thr, y, 0, 0);
}
#else
__kernel void deband(CLV_FRAME_ARGS, __global const int *offsets, int4 thr, int blur, int coupling)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * stride + x] = deband_pixel(src, dst, w, h, stride, offsets, thr, blur, coupling, x, y);
}
#endif
