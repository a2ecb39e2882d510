/* color.cl - conversions between the frames that cross the bus and the
 * chain's RGBA8: 8-bit 4:2:0 (yuv420p, nv12) and packed RGB (rgb24, bgr24,
 * rgba, bgra, rgb0, bgr0), both ways. Their arithmetic is in cl/yuv.cl.
 * Built with CLV_DEPTH=16: the 16-bit chain's conversions (the formats of
 * more than 8 bits in, any format out, 8-bit ones dithered), whose C
 * references are in src/core/color.c. */

/* An interlaced 4:2:0 frame's chroma rows alternate fields as its rows do
 * (a top field's chroma sits a quarter of the way down each pair of its
 * rows, a bottom field's three quarters): row y's chroma, from its own
 * field, is (near * (8 - wf) + far * wf + 4) >> 3 of the field's two
 * nearest chroma rows, weights 7:1, 5:3, 5:3, 7:1 as y % 4 is 0 to 3 (the
 * classic interlaced 4:2:0 upsampling), a row past the field's first or
 * last taken as that one. src/core/color.c's field_rows. */
inline void clv_field_rows(int y, int h, int *near, int *far, int *wf)
{
    const int ch = (h + 1) / 2, phase = y & 3;
    int n = (y >> 2) << 1 | (y & 1);
    if (n >= ch)
        n -= 2;
    n = max(n, 0);
    const int f = n + (phase <= 1 ? -2 : 2);
    *near = n;
    *far = f < 0 || f >= ch ? n : f;
    *wf = phase == 0 || phase == 3 ? 1 : 3;
}

inline int clv_field_blend(int near, int far, int wf)
{
    return (near * (8 - wf) + far * wf + 4) >> 3;
}

#if CLV_DEPTH == 16
/* (v + 2^15) >> 16 without shifting a negative number. */
inline long clv_fix16l(long v)
{
    return ((v + 32768 + (65536L << 16)) >> 16) - 65536;
}

inline int clv_clampl(long v, int lo, int hi)
{
    return (int)clamp(v, (long)lo, (long)hi);
}

/* The 8x8 ordered-dither thresholds (src/core/color.c's bayer8). */
__constant uchar clv_bayer8[64] = {0,  32, 8,  40, 2,  34, 10, 42, 48, 16, 56, 24, 50, 18, 58, 26,
                                   12, 44, 4,  36, 14, 46, 6,  38, 60, 28, 52, 20, 62, 30, 54, 22,
                                   3,  35, 11, 43, 1,  33, 9,  41, 51, 19, 59, 27, 49, 17, 57, 25,
                                   15, 47, 7,  39, 13, 45, 5,  37, 63, 31, 55, 23, 61, 29, 53, 21};

/* A 16-bit value to 8 bits dithered at (x, y): limited (Y'CbCr codes times
 * 256) or full (0-65535 for 0-255). */
inline uchar clv_dither8(int v, int limited, int x, int y)
{
    const int q = limited ? v : (int)(((long)v * 65280 + 32767) / 65535);
    return (uchar)min((q + clv_bayer8[(y & 7) * 8 + (x & 7)] * 4 + 2) >> 8, 255);
}

inline ushort clv_rd16(__global const uchar *p)
{
    return (ushort)(p[0] | (p[1] << 8));
}

inline void clv_wr16(__global uchar *p, int v)
{
    p[0] = (uchar)v;
    p[1] = (uchar)(v >> 8);
}

inline int clv_round10(int v)
{
    return min((v + 32) >> 6, 1023);
}

/* One pixel of a deep format in: fmt 0 yuv420p10, 1 p010, 2 yuv444p16, 3
 * rgba64, the planes at byte offsets yoff, uoff, voff, rows ys, us, vs
 * bytes apart; fields (of h rows): a 4:2:0 format's chroma from y's own
 * field (clv_field_rows, on the samples taken to 16 bits). */
inline ushort4 deep_pixel(__global const uchar *in, int fmt, __constant clv_yuv_coeffs *k, int yoff,
                          int uoff, int voff, int ys, int us, int vs, int x, int y, int h,
                          int fields)
{
    if (fmt == 3) {
        __global const uchar *p = in + yoff + y * ys + 8 * x;
        return (ushort4)(clv_rd16(p), clv_rd16(p + 2), clv_rd16(p + 4), clv_rd16(p + 6));
    }
    int yy, u, v;
    if (fmt == 2) {
        yy = clv_rd16(in + yoff + y * ys + 2 * x);
        u = clv_rd16(in + uoff + y * us + 2 * x);
        v = clv_rd16(in + voff + y * vs + 2 * x);
    } else if (fields) {
        int cn, cf, wf;
        clv_field_rows(y, h, &cn, &cf, &wf);
        if (fmt == 1) {
            yy = clv_rd16(in + yoff + y * ys + 2 * x);
            u = clv_field_blend(clv_rd16(in + uoff + cn * us + 4 * (x / 2)),
                                clv_rd16(in + uoff + cf * us + 4 * (x / 2)), wf);
            v = clv_field_blend(clv_rd16(in + uoff + cn * us + 4 * (x / 2) + 2),
                                clv_rd16(in + uoff + cf * us + 4 * (x / 2) + 2), wf);
        } else {
            yy = (clv_rd16(in + yoff + y * ys + 2 * x) & 1023) << 6;
            u = clv_field_blend((clv_rd16(in + uoff + cn * us + 2 * (x / 2)) & 1023) << 6,
                                (clv_rd16(in + uoff + cf * us + 2 * (x / 2)) & 1023) << 6, wf);
            v = clv_field_blend((clv_rd16(in + voff + cn * vs + 2 * (x / 2)) & 1023) << 6,
                                (clv_rd16(in + voff + cf * vs + 2 * (x / 2)) & 1023) << 6, wf);
        }
    } else if (fmt == 1) {
        yy = clv_rd16(in + yoff + y * ys + 2 * x);
        u = clv_rd16(in + uoff + (y / 2) * us + 4 * (x / 2));
        v = clv_rd16(in + uoff + (y / 2) * us + 4 * (x / 2) + 2);
    } else {
        yy = (clv_rd16(in + yoff + y * ys + 2 * x) & 1023) << 6;
        u = (clv_rd16(in + uoff + (y / 2) * us + 2 * (x / 2)) & 1023) << 6;
        v = (clv_rd16(in + voff + (y / 2) * vs + 2 * (x / 2)) & 1023) << 6;
    }
    const long l = (long)k->ky * (yy - k->yoff);
    u -= 32768;
    v -= 32768;
    return (ushort4)(clv_clampl(clv_fix16l(l + (long)k->rv * v), 0, 65535),
                     clv_clampl(clv_fix16l(l - (long)k->gu * u - (long)k->gv * v), 0, 65535),
                     clv_clampl(clv_fix16l(l + (long)k->bu * u), 0, 65535), 65535);
}

#if CLV_ROW
/* clv_fix16l on eight values. */
inline long8 clv_fix16l8(long8 v)
{
    return ((v + 32768 + (65536L << 16)) >> 16) - 65536;
}

/* The row shape's 4:2:0 rows (fmt 0, 1; every plane at an even offset and
 * stride), 8 pixels at a time in vectors: PoCL vectorizes across
 * work-items, not along the pixel loop of one row, and the bytes of the
 * general loop stayed byte moves. deep_pixel's arithmetic. Returns how many
 * pixels it did (a multiple of 8). */
inline int deep_row_420(__global const uchar *in, __global ushort4 *o, int w, int fmt,
                        __constant clv_yuv_coeffs *k, int yoff, int uoff, int voff)
{
    __global const ushort *py = (__global const ushort *)(in + yoff);
    __global const ushort *pu = (__global const ushort *)(in + uoff);
    __global const ushort *pv = (__global const ushort *)(in + voff);
    const long ky = k->ky, rv = k->rv, gu = k->gu, gv = k->gv, bu = k->bu, kyoff = k->yoff;
    int x = 0;
    for (; x + 8 <= w; x += 8) {
        long8 yy;
        long4 u4, v4;
        if (fmt == 0) {
            yy = convert_long8(vload8(0, py + x) & (ushort)1023) << 6;
            u4 = convert_long4(vload4(0, pu + x / 2) & (ushort)1023) << 6;
            v4 = convert_long4(vload4(0, pv + x / 2) & (ushort)1023) << 6;
        } else {
            const ushort8 uv = vload8(0, pu + x);
            yy = convert_long8(vload8(0, py + x));
            u4 = convert_long4(uv.even);
            v4 = convert_long4(uv.odd);
        }
        const long8 u = u4.s00112233 - 32768, v = v4.s00112233 - 32768;
        const long8 l = ky * (yy - kyoff);
        const long8 r = clamp(clv_fix16l8(l + rv * v), 0L, 65535L);
        const long8 g = clamp(clv_fix16l8(l - gu * u - gv * v), 0L, 65535L);
        const long8 b = clamp(clv_fix16l8(l + bu * u), 0L, 65535L);
        /* Eight ushort4 pixels as eight 64-bit words (little-endian: x low). */
        vstore8(r | g << 16 | b << 32 | (long8)(65535L << 48), 0, (__global long *)(o + x));
    }
    return x;
}
#endif

/* fields: each row's chroma from its own field (clv_field_rows). */
__kernel void deep_to_rgba(__global const uchar *in, __global ushort4 *dst, int w, int h,
                           int stride, int fmt, __constant clv_yuv_coeffs *k, int yoff, int uoff,
                           int voff, int ys, int us, int vs, int fields)
{
#if CLV_ROW
    if (fmt <= 1 && !fields && !((yoff | uoff | voff | ys | us | vs) & 1)) {
        const int y = (int)get_global_id(1);
        if (y >= h)
            return;
        int x = deep_row_420(in, dst + y * stride, w, fmt, k, yoff + y * ys, uoff + (y / 2) * us,
                             voff + (y / 2) * vs);
        for (; x < w; ++x)
            dst[y * stride + x] = deep_pixel(in, fmt, k, yoff, uoff, voff, ys, us, vs, x, y, h, 0);
        return;
    }
#endif
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        dst[y * stride + x] =
            deep_pixel(in, fmt, k, yoff, uoff, voff, ys, us, vs, x, y, h, fields && fmt <= 1);
    }
}

/* Out to Y'CbCr, one 2x2 block at (cx, cy) of the chroma grid (cw x ch):
 * fmt 0 yuv420p10, 1 p010, 2 yuv444p16, 4 yuv420p, 5 nv12 (8 bits,
 * dithered; limited: limited range). Planes tightly packed
 * (clv_pixfmt_size), the second `plane` bytes in. */
inline void yuv_block(__global const ushort4 *src, __global uchar *out, int w, int h, int stride,
                      int fmt, __constant clv_yuv_coeffs *k, int limited, int cx, int cy, int cw,
                      int ch, long plane)
{
    long sr = 0, sg = 0, sb = 0;
    int n = 0;
    for (int y = 2 * cy; y < min(2 * cy + 2, h); ++y)
        for (int x = 2 * cx; x < min(2 * cx + 2, w); ++x) {
            const ushort4 p = src[y * stride + x];
            const int yv = clv_clampl(clv_fix16l((long)k->yr * p.x + (long)k->yg * p.y +
                                                 (long)k->yb * p.z + ((long)k->yoff << 16)),
                                      k->ymin, k->ymax);
            const long i = (long)y * w + x;
            if (fmt == 2) {
                clv_wr16(out + 2 * i, yv);
                clv_wr16(out + plane + 2 * i,
                         clv_clampl(clv_fix16l((long)k->ur * p.x + (long)k->ug * p.y +
                                               (long)k->ub * p.z + (32768L << 16)),
                                    k->cmin, k->cmax));
                clv_wr16(out + 2 * plane + 2 * i,
                         clv_clampl(clv_fix16l((long)k->vr * p.x + (long)k->vg * p.y +
                                               (long)k->vb * p.z + (32768L << 16)),
                                    k->cmin, k->cmax));
            } else if (fmt == 0) {
                clv_wr16(out + 2 * i, clv_round10(yv));
            } else if (fmt == 1) {
                clv_wr16(out + 2 * i, clv_round10(yv) << 6);
            } else {
                out[i] = clv_dither8(yv, limited, x, y);
            }
            sr += p.x;
            sg += p.y;
            sb += p.z;
            n++;
        }
    if (fmt == 2)
        return;
    const int shift = 16 + (n == 4 ? 2 : n == 2 ? 1 : 0);
    const long rounding = 1L << (shift - 1);
    const int u =
        clv_clampl((k->ur * sr + k->ug * sg + k->ub * sb + ((long)n << 31) + rounding) >> shift,
                   k->cmin, k->cmax);
    const int v =
        clv_clampl((k->vr * sr + k->vg * sg + k->vb * sb + ((long)n << 31) + rounding) >> shift,
                   k->cmin, k->cmax);
    const long c = (long)cy * cw + cx;
    if (fmt == 1) {
        clv_wr16(out + plane + 4 * c, clv_round10(u) << 6);
        clv_wr16(out + plane + 4 * c + 2, clv_round10(v) << 6);
    } else if (fmt == 0) {
        clv_wr16(out + plane + 2 * c, clv_round10(u));
        clv_wr16(out + plane + 2L * cw * ch + 2 * c, clv_round10(v));
    } else if (fmt == 5) {
        out[plane + 2 * c] = clv_dither8(u, limited, 2 * cx, 2 * cy);
        out[plane + 2 * c + 1] = clv_dither8(v, limited, 2 * cx + 1, 2 * cy);
    } else {
        out[plane + c] = clv_dither8(u, limited, 2 * cx, 2 * cy);
        out[plane + (long)cw * ch + c] = clv_dither8(v, limited, 2 * cx + 1, 2 * cy);
    }
}

#if CLV_ROW
/* Eight pixels' luma (yuv_block's arithmetic), rounded to 10 bits. */
inline ushort8 luma10(const long8 r, const long8 g, const long8 b, __constant clv_yuv_coeffs *k)
{
    const long8 yv = clamp(
        clv_fix16l8((long)k->yr * r + (long)k->yg * g + (long)k->yb * b + ((long)k->yoff << 16)),
        (long)k->ymin, (long)k->ymax);
    return convert_ushort8(min((yv + 32) >> 6, 1023L));
}

/* The row shape's 4:2:0 chroma rows into yuv420p10 or p010 (fmt 0, 1)
 * where both luma rows exist, 8 blocks (16 pixels) at a time in vectors;
 * returns how many blocks it did (a multiple of 8). */
inline int yuv_row_420(__global const ushort4 *src, __global uchar *out, int w, int h, int stride,
                       int fmt, __constant clv_yuv_coeffs *k, int cy, int cw, int ch)
{
    __global ushort *o = (__global ushort *)out;
    __global ushort *chroma = o + (long)w * h; /* the U plane, or the UV plane */
    const int y0 = 2 * cy;
    __global const ushort4 *s0 = src + y0 * stride, *s1 = src + (y0 + 1) * stride;
    const long ur = k->ur, ug = k->ug, ub = k->ub, vr = k->vr, vg = k->vg, vb = k->vb;
    int cx = 0;
    for (; 2 * cx + 16 <= w && cx + 8 <= cw; cx += 8) {
        long8 sr = 0, sg = 0, sb = 0;
        for (int row = 0; row < 2; ++row) {
            /* 16 pixels as 64-bit words (little-endian: x low). */
            __global const long *s = (__global const long *)((row ? s1 : s0) + 2 * cx);
            const long8 pa = vload8(0, s), pb = vload8(1, s);
            const long8 ra = pa & 65535, ga = pa >> 16 & 65535, ba = pa >> 32 & 65535;
            const long8 rb = pb & 65535, gb = pb >> 16 & 65535, bb = pb >> 32 & 65535;
            ushort8 ya = luma10(ra, ga, ba, k), yb = luma10(rb, gb, bb, k);
            if (fmt == 1) {
                ya <<= (ushort)6;
                yb <<= (ushort)6;
            }
            __global ushort *oy = o + (long)(y0 + row) * w + 2 * cx;
            vstore8(ya, 0, oy);
            vstore8(yb, 1, oy);
            /* The blocks' sums: pixels 2i and 2i + 1 of the 16. */
            sr += (long8)(ra.even + ra.odd, rb.even + rb.odd);
            sg += (long8)(ga.even + ga.odd, gb.even + gb.odd);
            sb += (long8)(ba.even + ba.odd, bb.even + bb.odd);
        }
        /* n = 4: shift 18, rounding 2^17, offset 4 << 31. */
        const long8 u = clamp((ur * sr + ug * sg + ub * sb + (4L << 31) + (1L << 17)) >> 18,
                              (long)k->cmin, (long)k->cmax);
        const long8 v = clamp((vr * sr + vg * sg + vb * sb + (4L << 31) + (1L << 17)) >> 18,
                              (long)k->cmin, (long)k->cmax);
        const uint8 u10 = convert_uint8(min((u + 32) >> 6, 1023L));
        const uint8 v10 = convert_uint8(min((v + 32) >> 6, 1023L));
        const long c = (long)cy * cw + cx;
        if (fmt == 1) { /* U then V in each 32 bits, as ushorts: no 4-byte alignment needed */
            vstore16(as_ushort16(u10 << 6 | v10 << 22), 0, chroma + 2 * c);
        } else {
            vstore8(convert_ushort8(u10), 0, chroma + c);
            vstore8(convert_ushort8(v10), 0, chroma + (long)cw * ch + c);
        }
    }
    return cx;
}
#endif

__kernel void rgba16_to_yuv(__global const ushort4 *src, __global uchar *out, int w, int h,
                            int stride, int fmt, __constant clv_yuv_coeffs *k, int limited)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2, deep = fmt <= 2;
    const long plane = (deep ? 2L : 1L) * w * h;
#if CLV_ROW
    if (fmt <= 1) {
        const int cy = (int)get_global_id(1);
        if (cy >= ch)
            return;
        int cx = 2 * cy + 1 < h ? yuv_row_420(src, out, w, h, stride, fmt, k, cy, cw, ch) : 0;
        for (; cx < cw; ++cx)
            yuv_block(src, out, w, h, stride, fmt, k, limited, cx, cy, cw, ch, plane);
        return;
    }
#endif
    CLV_PIXEL_LOOP(cw, ch, cx, cy)
    {
        yuv_block(src, out, w, h, stride, fmt, k, limited, cx, cy, cw, ch, plane);
    }
}

/* Out to packed pixels: bpp 8 is rgba64le; 3 or 4 bytes are the 8-bit
 * formats, dithered (bgr: blue first; alpha: byte 3 is alpha). */
__kernel void rgba16_to_packed(__global const ushort4 *src, __global uchar *out, int w, int h,
                               int stride, int bpp, int bgr, int alpha)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const ushort4 s = src[y * stride + x];
        __global uchar *p = out + ((long)y * w + x) * bpp;
        if (bpp == 8) {
            clv_wr16(p, s.x);
            clv_wr16(p + 2, s.y);
            clv_wr16(p + 4, s.z);
            clv_wr16(p + 6, s.w);
            continue;
        }
        p[0] = clv_dither8(bgr ? s.z : s.x, 0, x, y);
        p[1] = clv_dither8(s.y, 0, x, y);
        p[2] = clv_dither8(bgr ? s.x : s.z, 0, x, y);
        if (bpp == 4)
            p[3] = alpha ? clv_dither8(s.w, 0, x, y) : 255;
    }
}
#else

/* in: a Y plane (w x h) at byte yoff, rows ys bytes apart, and U and V
 * planes (cw x ch each) at uoff and voff, rows us and vs bytes apart, or
 * one interleaved UV plane (nv12) at uoff: tightly packed one after the
 * other as the stage's staging holds them, or where a decoder put them.
 * fields: each row's chroma from its own field (clv_field_rows), a pixel
 * at a time in both shapes (the chains that start with a deinterlacer). */
__kernel void yuv420_to_rgba(__global const uchar *in, __global uchar4 *dst, int w, int h,
                             int stride, int nv12, __constant clv_yuv_coeffs *k, int yoff, int uoff,
                             int voff, int ys, int us, int vs, int fields)
{
    __global const uchar *py = in + yoff, *pu = in + uoff, *pv = in + voff;
    if (fields) {
        CLV_PIXEL_LOOP(w, h, x, y)
        {
            int cn, cf, wf;
            clv_field_rows(y, h, &cn, &cf, &wf);
            const int step = nv12 ? 2 : 1, c = step * (x / 2);
            __global const uchar *rv = nv12 ? pu + 1 : pv;
            const int rs = nv12 ? us : vs;
            const int u = clv_field_blend(pu[cn * us + c], pu[cf * us + c], wf);
            const int v = clv_field_blend(rv[cn * rs + c], rv[cf * rs + c], wf);
            dst[y * stride + x] = yuv_to_rgba(py[y * ys + x], u, v, k);
        }
        return;
    }
#if CLV_ROW
    CLV_ROW_Y(y);
    yuv420_rgba_row(py, pu, pv, ys, us, vs, nv12, dst + y * stride, w, k, y);
#else
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const int c = nv12 ? (y / 2) * us + 2 * (x / 2) : x / 2;
        const int u = nv12 ? pu[c] : pu[(y / 2) * us + c],
                  v = nv12 ? pu[c + 1] : pv[(y / 2) * vs + c];
        dst[y * stride + x] = yuv_to_rgba(py[y * ys + x], u, v, k);
    }
#endif
}

/* in: packed pixels of bpp bytes (3 or 4), rows w * bpp apart. bgr: the
 * first byte is blue. alpha: byte 3 is alpha (rgba, bgra) rather than
 * padding (rgb0, bgr0, which become opaque). */
__kernel void packed_to_rgba(__global const uchar *in, __global uchar4 *dst, int w, int h,
                             int stride, int bpp, int bgr, int alpha)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        __global const uchar *p = in + (y * w + x) * bpp;
        const uchar a = alpha ? p[3] : 255;
        dst[y * stride + x] = bgr ? (uchar4)(p[2], p[1], p[0], a) : (uchar4)(p[0], p[1], p[2], a);
    }
}

__kernel void rgba_to_packed(__global const uchar4 *src, __global uchar *out, int w, int h,
                             int stride, int bpp, int bgr, int alpha)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const uchar4 s = src[y * stride + x];
        __global uchar *p = out + (y * w + x) * bpp;
        p[0] = bgr ? s.z : s.x;
        p[1] = s.y;
        p[2] = bgr ? s.x : s.z;
        if (bpp == 4)
            p[3] = alpha ? s.w : 255;
    }
}

/* One work-item position per chroma sample (the GPU shape), or per chroma
 * row (CPUs): the (up to) 2x2 luma samples each covers and their averaged
 * chroma. */
__kernel void rgba_to_yuv420(__global const uchar4 *src, __global uchar *out, int w, int h,
                             int stride, int nv12, __constant clv_yuv_coeffs *k)
{
#if CLV_ROW
    const int cy = (int)get_global_id(1);
    if (cy < (h + 1) / 2)
        yuv420_row(src + 2 * cy * stride, src + (2 * cy + 1) * stride, out, w, h, nv12, k, cy);
#else
    CLV_PIXEL_LOOP((w + 1) / 2, (h + 1) / 2, cx, cy)
    {
        yuv420_block(src + 2 * cy * stride, src + (2 * cy + 1) * stride, out, w, h, nv12, k, cx,
                     cy);
    }
#endif
}

#endif /* CLV_DEPTH */

/* The frame turned upright: destination pixel (x, y) of dw x dh comes from
 * source pixel (sx, sy) = (ax*x + bx*y + cx, ay*x + by*y + cy), the
 * coefficients from {-1, 0, 1} (a rotation by a multiple of 90 degrees,
 * perhaps mirrored: src/core/stage.c computes them). One pixel per
 * work-item in both shapes: a plain copy. */
__kernel void orient(__global const clv_px *src, __global clv_px *dst, int dw, int dh, int dstride,
                     int sstride, int ax, int bx, int cx, int ay, int by, int cy)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= dw || y >= dh)
        return;
    dst[y * dstride + x] = src[(ay * x + by * y + cy) * sstride + ax * x + bx * y + cx];
}
