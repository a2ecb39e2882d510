/* color.cl - conversions between the frames that cross the bus and the
 * chain's RGBA8: 8-bit 4:2:0 (yuv420p, nv12) and packed RGB (rgb24, bgr24,
 * rgba, bgra, rgb0, bgr0), both ways. The fixed-point coefficients come
 * from the host (src/core/color.c) and the same integers drive the C
 * reference, so device and reference agree exactly. */

/* Coefficients, 16 fractional bits: to RGB, from Y (less yoff), U and V
 * (less 128); to YUV, from R, G, B. */
typedef struct clv_yuv_coeffs {
    int ky, yoff, rv, gu, gv, bu;
    int yr, yg, yb, ur, ug, ub, vr, vg, vb;
    int ymin, ymax, cmin, cmax; /* the range's legal codes */
} clv_yuv_coeffs;

/* (v + 2^15) >> 16, rounding to nearest, for v > -2^24. */
inline int fix16(int v)
{
    return ((v + 32768 + (256 << 16)) >> 16) - 256;
}

inline uchar4 yuv_to_rgba(int yv, int u, int v, __constant clv_yuv_coeffs *k)
{
    const int y = k->ky * (yv - k->yoff);
    u -= 128;
    v -= 128;
    return (uchar4)(convert_uchar_sat(fix16(y + k->rv * v)),
                    convert_uchar_sat(fix16(y - k->gu * u - k->gv * v)),
                    convert_uchar_sat(fix16(y + k->bu * u)), 255);
}

#if CLV_ROW
/* One row of yuv to RGBA, two pixels per step sharing a chroma sample.
 * On little-endian devices each pixel is stored as one 32-bit word: three
 * times faster on PoCL than eight byte stores (measured with clvid-bench
 * --pipeline). */
inline void yuv_row(__global const uchar *restrict ry, __global const uchar *restrict ru,
                    __global const uchar *restrict rv_, const int cstep,
                    __global uchar *restrict out, int w, __constant clv_yuv_coeffs *k)
{
    const int ky = k->ky, yoff = k->yoff, rv = k->rv, gu = k->gu, gv = k->gv, bu = k->bu;
    for (int cx = 0; cx < w / 2; ++cx) {
        const int u = ru[cstep * cx] - 128, v = rv_[cstep * cx] - 128;
        const int cr = rv * v, cg = -gu * u - gv * v, cb = bu * u;
        const int y0 = ky * (ry[2 * cx] - yoff), y1 = ky * (ry[2 * cx + 1] - yoff);
        const uint r0 = clamp(fix16(y0 + cr), 0, 255), g0 = clamp(fix16(y0 + cg), 0, 255),
                   b0 = clamp(fix16(y0 + cb), 0, 255);
        const uint r1 = clamp(fix16(y1 + cr), 0, 255), g1 = clamp(fix16(y1 + cg), 0, 255),
                   b1 = clamp(fix16(y1 + cb), 0, 255);
#ifdef __ENDIAN_LITTLE__
        __global uint *o = (__global uint *)out;
        o[2 * cx] = r0 | (g0 << 8) | (b0 << 16) | 0xFF000000u;
        o[2 * cx + 1] = r1 | (g1 << 8) | (b1 << 16) | 0xFF000000u;
#else
        out[8 * cx] = (uchar)r0;
        out[8 * cx + 1] = (uchar)g0;
        out[8 * cx + 2] = (uchar)b0;
        out[8 * cx + 3] = 255;
        out[8 * cx + 4] = (uchar)r1;
        out[8 * cx + 5] = (uchar)g1;
        out[8 * cx + 6] = (uchar)b1;
        out[8 * cx + 7] = 255;
#endif
    }
}

/* Two rows of RGBA into two rows of Y and one of U and V (whole 2x2 blocks). */
inline void yuv_from_rows(__global const uchar *restrict a, __global const uchar *restrict b,
                          __global uchar *restrict ya, __global uchar *restrict yb_,
                          __global uchar *restrict ru, __global uchar *restrict rv_,
                          const int cstep, int w, __constant clv_yuv_coeffs *k)
{
    const int yr = k->yr, yg = k->yg, yb = k->yb, yo = k->yoff << 16;
    const int ur = k->ur, ug = k->ug, ub = k->ub, vr = k->vr, vg = k->vg, vb = k->vb;
    const int ymin = k->ymin, ymax = k->ymax, cmin = k->cmin, cmax = k->cmax;
#ifdef __ENDIAN_LITTLE__
    __global const uint *restrict a4 = (__global const uint *)a;
    __global const uint *restrict b4 = (__global const uint *)b;
#endif
    for (int cx = 0; cx < w / 2; ++cx) {
#ifdef __ENDIAN_LITTLE__
        const uint p0 = a4[2 * cx], p1 = a4[2 * cx + 1], p2 = b4[2 * cx], p3 = b4[2 * cx + 1];
        const int r0 = p0 & 255, g0 = (p0 >> 8) & 255, b0 = (p0 >> 16) & 255;
        const int r1 = p1 & 255, g1 = (p1 >> 8) & 255, b1 = (p1 >> 16) & 255;
        const int r2 = p2 & 255, g2 = (p2 >> 8) & 255, b2 = (p2 >> 16) & 255;
        const int r3 = p3 & 255, g3 = (p3 >> 8) & 255, b3 = (p3 >> 16) & 255;
#else
        const int r0 = a[8 * cx], g0 = a[8 * cx + 1], b0 = a[8 * cx + 2];
        const int r1 = a[8 * cx + 4], g1 = a[8 * cx + 5], b1 = a[8 * cx + 6];
        const int r2 = b[8 * cx], g2 = b[8 * cx + 1], b2 = b[8 * cx + 2];
        const int r3 = b[8 * cx + 4], g3 = b[8 * cx + 5], b3 = b[8 * cx + 6];
#endif
        ya[2 * cx] = (uchar)clamp(fix16(yr * r0 + yg * g0 + yb * b0 + yo), ymin, ymax);
        ya[2 * cx + 1] = (uchar)clamp(fix16(yr * r1 + yg * g1 + yb * b1 + yo), ymin, ymax);
        yb_[2 * cx] = (uchar)clamp(fix16(yr * r2 + yg * g2 + yb * b2 + yo), ymin, ymax);
        yb_[2 * cx + 1] = (uchar)clamp(fix16(yr * r3 + yg * g3 + yb * b3 + yo), ymin, ymax);
        const int sr = r0 + r1 + r2 + r3, sg = g0 + g1 + g2 + g3, sb = b0 + b1 + b2 + b3;
        ru[cstep * cx] =
            (uchar)clamp((ur * sr + ug * sg + ub * sb + (4 << 23) + (1 << 17)) >> 18, cmin, cmax);
        rv_[cstep * cx] =
            (uchar)clamp((vr * sr + vg * sg + vb * sb + (4 << 23) + (1 << 17)) >> 18, cmin, cmax);
    }
}
#endif

/* in: a Y plane (w x h) at byte yoff, rows ys bytes apart, and U and V
 * planes (cw x ch each) at uoff and voff, rows us and vs bytes apart, or
 * one interleaved UV plane (nv12) at uoff: tightly packed one after the
 * other as the stage's staging holds them, or where a decoder put them. */
__kernel void yuv420_to_rgba(__global const uchar *in, __global uchar4 *dst, int w, int h,
                             int stride, int nv12, __constant clv_yuv_coeffs *k, int yoff, int uoff,
                             int voff, int ys, int us, int vs)
{
    __global const uchar *py = in + yoff, *pu = in + uoff, *pv = in + voff;
#if CLV_ROW
    /* Two pixels per step, sharing one chroma sample, in plain byte
     * accesses. */
    CLV_ROW_Y(y);
    __global const uchar *ry = py + y * ys;
    __global const uchar *ru = pu + (y / 2) * us;
    __global const uchar *rv_ = nv12 ? ru + 1 : pv + (y / 2) * vs;
    __global uchar *out = CLV_ROW_BYTES(dst, y);
    const int cstep = nv12 ? 2 : 1;
    if (nv12) /* a constant chroma step in each call */
        yuv_row(ry, ru, rv_, 2, out, w, k);
    else
        yuv_row(ry, ru, rv_, 1, out, w, k);
    if (w & 1) {
        const int x = w - 1, c = x / 2;
        dst[y * stride + x] = yuv_to_rgba(ry[x], ru[cstep * c], rv_[cstep * c], k);
    }
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

/* One work-item position per chroma sample: the (up to) 2x2 luma samples
 * it covers and their averaged chroma. Ranges over (cw, ch). */
__kernel void rgba_to_yuv420(__global const uchar4 *src, __global uchar *out, int w, int h,
                             int stride, int nv12, __constant clv_yuv_coeffs *k)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    __global uchar *py = out, *pu = out + w * h, *pv = pu + cw * ch;
#if CLV_ROW
    /* Whole 2x2 blocks of two full rows in plain byte loops; an odd last
     * row or column goes through the general code below. */
    const int cyr = (int)get_global_id(1);
    if (cyr < ch && 2 * cyr + 1 < h) {
        __global const uchar *a = CLV_ROW_BYTES_CONST(src, 2 * cyr);
        __global const uchar *b = CLV_ROW_BYTES_CONST(src, 2 * cyr + 1);
        __global uchar *ya = py + 2 * cyr * w, *yb_ = ya + w;
        __global uchar *ru = nv12 ? pu + cyr * 2 * cw : pu + cyr * cw;
        __global uchar *rv_ = nv12 ? ru + 1 : pv + cyr * cw;
        if (nv12)
            yuv_from_rows(a, b, ya, yb_, ru, rv_, 2, w, k);
        else
            yuv_from_rows(a, b, ya, yb_, ru, rv_, 1, w, k);
        if (!(w & 1))
            return;
    }
#endif
    CLV_PIXEL_LOOP(cw, ch, cx, cy)
    {
#if CLV_ROW
        if (2 * cy + 1 < h && cx < w / 2)
            continue; /* done above */
#endif
        int sr = 0, sg = 0, sb = 0, n = 0;
        for (int dy = 0; dy < 2; ++dy) {
            const int y = 2 * cy + dy;
            if (y >= h)
                break;
            for (int dx = 0; dx < 2; ++dx) {
                const int x = 2 * cx + dx;
                if (x >= w)
                    break;
                const int4 p = convert_int4(src[y * stride + x]);
                py[y * w + x] =
                    (uchar)clamp(fix16(k->yr * p.x + k->yg * p.y + k->yb * p.z + (k->yoff << 16)),
                                 k->ymin, k->ymax);
                sr += p.x;
                sg += p.y;
                sb += p.z;
                ++n;
            }
        }
        /* n is 1, 2 or 4: the mean by a shift of 16 + log2(n). */
        const int shift = 16 + (n == 4 ? 2 : n == 2 ? 1 : 0);
        const int rounding = 1 << (shift - 1);
        const int u = (k->ur * sr + k->ug * sg + k->ub * sb + (n << 23) + rounding) >> shift;
        const int v = (k->vr * sr + k->vg * sg + k->vb * sb + (n << 23) + rounding) >> shift;
        const int c = cy * cw + cx;
        const uchar uu = (uchar)clamp(u, k->cmin, k->cmax), vv = (uchar)clamp(v, k->cmin, k->cmax);
        if (nv12) {
            pu[2 * c] = uu;
            pu[2 * c + 1] = vv;
        } else {
            pu[c] = uu;
            pv[c] = vv;
        }
    }
}

/* The frame turned upright: destination pixel (x, y) of dw x dh comes from
 * source pixel (sx, sy) = (ax*x + bx*y + cx, ay*x + by*y + cy), the
 * coefficients from {-1, 0, 1} (a rotation by a multiple of 90 degrees,
 * perhaps mirrored: src/core/stage.c computes them). One pixel per
 * work-item in both shapes: a plain copy. */
__kernel void orient(__global const uchar4 *src, __global uchar4 *dst, int dw, int dh, int dstride,
                     int sstride, int ax, int bx, int cx, int ay, int by, int cy)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= dw || y >= dh)
        return;
    dst[y * dstride + x] = src[(ay * x + by * y + cy) * sstride + ax * x + bx * y + cx];
}
