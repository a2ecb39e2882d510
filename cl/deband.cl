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

__kernel void deband(CLV_FRAME_ARGS, __global const int *offsets, int4 thr, int blur, int coupling)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * stride + x] = deband_pixel(src, dst, w, h, stride, offsets, thr, blur, coupling, x, y);
}
