/* rotate.cl - ffmpeg's rotate: each output pixel (i, j) of an ow x oh
 * frame reads the input where the host's per-frame turn (src/filters/
 * rotate.c: mode, bx, by, s, c in 16.16) puts it, bilinear or nearest,
 * or takes the fill colour (0xRRGGBBAA) beyond the input's border. All
 * integer, as ffmpeg's vf_rotate, so it equals the C reference exactly.
 * The same at 16 bits but for the interpolation's widths and the fill
 * (each channel c * 257). */

#if CLV_DEPTH == 8
/* ffmpeg's interpolate_bilinear8, the four channels at once: weights in
 * 16.16, the top 32 bits of the 64-bit sum. */
inline uchar4 rotate_bilinear(__global const uchar4 *src, int w, int h, int stride, int x, int y)
{
    const int ix = clamp(x >> 16, 0, w - 1), iy = clamp(y >> 16, 0, h - 1);
    const int fx = x & 0xFFFF, fy = y & 0xFFFF;
    const int ix1 = min(ix + 1, w - 1), iy1 = min(iy + 1, h - 1);
    const int4 s00 = clv_int4(src[iy * stride + ix]), s01 = clv_int4(src[iy * stride + ix1]);
    const int4 s10 = clv_int4(src[iy1 * stride + ix]), s11 = clv_int4(src[iy1 * stride + ix1]);
    const int4 s0 = (0x10000 - fx) * s00 + fx * s01; /* at most 255 << 16: fits an int */
    const int4 s1 = (0x10000 - fx) * s10 + fx * s11;
    const long4 sum = (long)(0x10000 - fy) * convert_long4(s0) + (long)fy * convert_long4(s1);
    return convert_uchar4(convert_int4(sum >> 32));
}

inline uchar4 rotate_fill(uint fill)
{
    return (uchar4)((uchar)(fill >> 24), (uchar)(fill >> 16), (uchar)(fill >> 8), (uchar)fill);
}
#else
/* The same weights on 16-bit samples (ffmpeg's interpolate_bilinear16):
 * a row's sum reaches 65535 << 16, past an int, and the whole 65535 << 32,
 * so both are 64-bit. */
inline ushort4 rotate_bilinear(__global const ushort4 *src, int w, int h, int stride, int x, int y)
{
    const int ix = clamp(x >> 16, 0, w - 1), iy = clamp(y >> 16, 0, h - 1);
    const long fx = x & 0xFFFF, fy = y & 0xFFFF;
    const int ix1 = min(ix + 1, w - 1), iy1 = min(iy + 1, h - 1);
    const long4 s00 = convert_long4(src[iy * stride + ix]);
    const long4 s01 = convert_long4(src[iy * stride + ix1]);
    const long4 s10 = convert_long4(src[iy1 * stride + ix]);
    const long4 s11 = convert_long4(src[iy1 * stride + ix1]);
    const long4 s0 = (0x10000 - fx) * s00 + fx * s01;
    const long4 s1 = (0x10000 - fx) * s10 + fx * s11;
    return convert_ushort4(((0x10000 - fy) * s0 + fy * s1) >> 32);
}

/* 0xRRGGBBAA on the 16-bit scale: each channel c * 257. */
inline ushort4 rotate_fill(uint fill)
{
    return convert_ushort4((uint4)(fill >> 24, (fill >> 16) & 255, (fill >> 8) & 255, fill & 255) *
                           257);
}
#endif

__kernel void rotate_frame(CLV_FRAME_ARGS, int ow, int oh, int ostride, int mode, int bx, int by,
                           int s, int c, uint fill, int bilinear)
{
    const clv_px fill_px = rotate_fill(fill);
    CLV_PIXEL_LOOP(ow, oh, i, j)
    {
        clv_px p = fill_px;
        if (mode == 1)
            p = src[j * stride + i];
        else if (mode == 2)
            p = src[(h - 1 - i) * stride + j];
        else if (mode == 3)
            p = src[(h - 1 - j) * stride + w - 1 - i];
        else if (mode == 4)
            p = src[i * stride + w - 1 - j];
        else {
            /* ffmpeg's running sums, which wrap at 32 bits */
            const int x = as_int((uint)bx + (uint)j * (uint)s + (uint)i * (uint)c);
            const int y = as_int((uint)by + (uint)j * (uint)c - (uint)i * (uint)s);
            const int x1 = x >> 16, y1 = y >> 16;
            if (x1 >= -1 && x1 <= w && y1 >= -1 && y1 <= h)
                p = bilinear ? rotate_bilinear(src, w, h, stride, x, y)
                             : src[clamp(y1, 0, h - 1) * stride + clamp(x1, 0, w - 1)];
        }
        dst[j * ostride + i] = p;
    }
}
