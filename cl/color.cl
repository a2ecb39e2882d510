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

/* in: Y plane (w x h), then U and V planes (cw x ch each) or one
 * interleaved UV plane (nv12), all tightly packed. */
__kernel void yuv420_to_rgba(__global const uchar *in, __global uchar4 *dst, int w, int h,
                             int stride, int nv12, __constant clv_yuv_coeffs *k)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    __global const uchar *py = in, *pu = in + w * h, *pv = pu + cw * ch;
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const int c = (y / 2) * cw + x / 2;
        const int u = nv12 ? pu[2 * c] : pu[c], v = nv12 ? pu[2 * c + 1] : pv[c];
        dst[y * stride + x] = yuv_to_rgba(py[y * w + x], u, v, k);
    }
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
    CLV_PIXEL_LOOP(cw, ch, cx, cy)
    {
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
                py[y * w + x] = (uchar)clamp(
                    fix16(k->yr * p.x + k->yg * p.y + k->yb * p.z + (k->yoff << 16)), k->ymin,
                    k->ymax);
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
