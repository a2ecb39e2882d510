/* edgedetect.cl - ffmpeg's edgedetect (src/filters/edgedetect.c defines
 * it): Canny's edges of each selected channel, or of the luma in mode
 * wires, in ffmpeg's four steps (libavfilter/edge_common.c), a kernel
 * each:
 *   edgedetect_blur  the 5x5 Gaussian of sigma 1.4 (weights summing to 159,
 *                    the sum's floor over 159); within 2 of an edge the
 *                    value itself;
 *   edgedetect_grad  Sobel's |gx| + |gy| and its direction rounded to one
 *                    of four, inside the one-pixel border (0 on it);
 *   edgedetect_nms   the magnitude where it is above both neighbours along
 *                    its direction (clipped to the maximum), else 0; 0 on
 *                    the border;
 *   edgedetect_out   the double threshold (a value above high, or above
 *                    low with a neighbour above high off the border, else
 *                    0), then the mode: wires the edges in R, G and B,
 *                    canny the edges in each selected channel, colormix
 *                    their mean with the channel (rounded down).
 * Channels are R, G, B (x, y, z); alpha is the input's. */

#if CLV_DEPTH == 16
#define ED_PX(v) convert_ushort4(v)
typedef uint4 ed_grad; /* (|gx| + |gy|) << 2 | direction: 21 bits at 16 bits */
#define ED_GRAD(v) convert_uint4(v)
#else
#define ED_PX(v) convert_uchar4(v)
typedef ushort4 ed_grad; /* 13 bits at 8 bits */
#define ED_GRAD(v) convert_ushort4(v)
#endif

/* ffmpeg's get_rounded_direction: 0 45 degrees up, 1 45 down, 2
 * horizontal, 3 vertical; tan(pi/8) and tan(3pi/8) in 16 fractional bits.
 * In 64 bits (ffmpeg's int is enough at 8 bits only). */
inline int ed_direction(int gx, int gy)
{
    if (!gx)
        return 3;
    if (gx < 0) {
        gx = -gx;
        gy = -gy;
    }
    const long y = (long)gy * 65536, t1 = 27146L * gx, t3 = 158218L * gx;
    if (y > -t3 && y < -t1)
        return 0;
    if (y > -t1 && y < t1)
        return 2;
    if (y > t1 && y < t3)
        return 1;
    return 3;
}

/* The luma of wires: at 8 bits ffmpeg's gray8 of RGB (swscale's), at 16
 * the gray filter's. */
inline int ed_luma(clv_px p)
{
#if CLV_DEPTH == 16
    return clv_gray(p);
#else
    return clv_gray_sws(p.x, p.y, p.z);
#endif
}

/* The values the edges are taken of: the channels, or the luma (wires). */
inline int4 ed_value(clv_px p, int wires)
{
    return wires ? (int4)(ed_luma(p)) : clv_int4(p);
}

__kernel void edgedetect_blur(CLV_FRAME_ARGS, int wires)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        int4 v;
        if (x < 2 || y < 2 || x >= w - 2 || y >= h - 2) {
            v = ed_value(src[y * stride + x], wires);
        } else {
            __global const clv_px *r = src + y * stride + x;
#define ED_AT(dy, dx) ed_value(r[(dy)*stride + (dx)], wires)
            const int4 s = 2 * (ED_AT(-2, -2) + ED_AT(2, -2) + ED_AT(-2, 2) + ED_AT(2, 2)) +
                           4 * (ED_AT(-2, -1) + ED_AT(2, -1) + ED_AT(-2, 1) + ED_AT(2, 1) +
                                ED_AT(-1, -2) + ED_AT(1, -2) + ED_AT(-1, 2) + ED_AT(1, 2)) +
                           5 * (ED_AT(-2, 0) + ED_AT(2, 0) + ED_AT(0, -2) + ED_AT(0, 2)) +
                           9 * (ED_AT(-1, -1) + ED_AT(1, -1) + ED_AT(-1, 1) + ED_AT(1, 1)) +
                           12 * (ED_AT(-1, 0) + ED_AT(1, 0) + ED_AT(0, -1) + ED_AT(0, 1)) +
                           15 * ED_AT(0, 0);
#undef ED_AT
            v = s / 159;
        }
        v.w = 0;
        dst[y * stride + x] = ED_PX(v);
    }
}

/* The blurred frame src to each channel's magnitude and direction. */
__kernel void edgedetect_grad(__global const clv_px *src, __global ed_grad *grad, int w, int h,
                              int stride)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        int4 o = 0;
        if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
            __global const clv_px *r = src + y * stride + x;
#define ED_AT(dy, dx) clv_int4(r[(dy)*stride + (dx)])
            const int4 a = ED_AT(-1, -1), b = ED_AT(-1, 0), c = ED_AT(-1, 1), d = ED_AT(0, -1),
                       f = ED_AT(0, 1), g = ED_AT(1, -1), k = ED_AT(1, 0), m = ED_AT(1, 1);
#undef ED_AT
            const int4 gx = (c - a) + 2 * (f - d) + (m - g), gy = (g - a) + 2 * (k - b) + (m - c);
            o = convert_int4(abs(gx) + abs(gy)) << 2;
            o.x |= ed_direction(gx.x, gy.x);
            o.y |= ed_direction(gx.y, gy.y);
            o.z |= ed_direction(gx.z, gy.z);
            o.w = 0;
        }
        grad[y * stride + x] = ED_GRAD(o);
    }
}

/* Channel c's magnitude in grad v. */
inline int ed_mag(ed_grad v, int c)
{
    return (int)((c == 0 ? v.x : c == 1 ? v.y : v.z) >> 2);
}

/* Non-maximum suppression: each channel's magnitude where it is above
 * both neighbours along its direction, clipped to maxv. */
__kernel void edgedetect_nms(__global const ed_grad *grad, __global clv_px *dst, int w, int h,
                             int stride, int maxv)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        int4 o = 0;
        if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
            __global const ed_grad *r = grad + y * stride + x;
            const ed_grad p = r[0];
            for (int c = 0; c < 3; c++) {
                const int v = ed_mag(p, c);
                const int dir = (int)((c == 0 ? p.x : c == 1 ? p.y : p.z) & 3);
                /* ffmpeg's COPY_MAXIMA(ay, ax, by, bx) of each direction */
                const int ay = dir == 0 ? 1 : dir == 2 ? 0 : -1, ax = dir == 3 ? 0 : -1;
                const int by = -ay, bx = -ax;
                const int m = v > ed_mag(r[ay * stride + ax], c) &&
                                      v > ed_mag(r[by * stride + bx], c)
                                  ? min(v, maxv)
                                  : 0;
                if (c == 0)
                    o.x = m;
                else if (c == 1)
                    o.y = m;
                else
                    o.z = m;
            }
        }
        dst[y * stride + x] = ED_PX(o);
    }
}

/* The double threshold on nms (the previous kernel's frame) and the mode
 * (0 wires, 1 colormix, 2 canny) into dst; sel: the channels (R 1, G 2,
 * B 4) that take edges, in wires bit 0 for the luma (without it the
 * output is the luma itself, ffmpeg's gray plane passed on). */
__kernel void edgedetect_out(CLV_FRAME_ARGS, __global const clv_px *nms, int mode, int sel, int low,
                             int high)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const clv_px p = src[y * stride + x];
        __global const clv_px *r = nms + y * stride + x;
        const int4 v = clv_int4(r[0]);
        int4 t = v > high;
        if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
            int4 near = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    if (dy || dx)
                        near |= clv_int4(r[dy * stride + dx]) > high;
            t |= near & (v > low);
        }
        const int4 e = t ? v : 0, q = clv_int4(p);
        int4 o;
        if (mode == 0) {
            o = sel & 1 ? (int4)(e.x) : (int4)(ed_luma(p));
        } else {
            const int4 s = (int4)(sel & 1, sel >> 1 & 1, sel >> 2 & 1, 0) != 0;
            o = s ? (mode == 1 ? (e + q) >> 1 : e) : q;
        }
        o.w = q.w;
        dst[y * stride + x] = ED_PX(o);
    }
}
