/* color.cl - conversions between the frames that cross the bus and the
 * chain's RGBA8: 8-bit 4:2:0 (yuv420p, nv12) and packed RGB (rgb24, bgr24,
 * rgba, bgra, rgb0, bgr0), both ways. Their arithmetic is in cl/yuv.cl. */

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
