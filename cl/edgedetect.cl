/* edgedetect.cl - ffmpeg's edgedetect (src/filters/edgedetect.c defines
 * it): Canny's edges of each selected channel in ffmpeg's four steps
 * (libavfilter/edge_common.c), a kernel each, after edgedetect_luma for
 * mode wires (R = G = B = the luma, whose three channels then take the
 * same steps):
 *   edgedetect_blur  the 5x5 Gaussian of sigma 1.4 (weights summing to 159,
 *                    the sum's floor over 159); within 2 of an edge the
 *                    value itself;
 *   edgedetect_grad  Sobel's |gx| + |gy| and its direction rounded to one
 *                    of four, as (|gx| + |gy|) << 2 | direction, inside the
 *                    one-pixel border (0 on it);
 *   edgedetect_nms   the magnitude where it is above both neighbours along
 *                    its direction (clipped to the maximum), else 0; 0 on
 *                    the border;
 *   edgedetect_out   the double threshold (a value above high, or above
 *                    low with a neighbour above high off the border, else
 *                    0) into each selected channel (canny), or its mean
 *                    with the channel (colormix); the others and alpha as
 *                    they came.
 * GPUs take each pixel's four channels together; CPUs (the row shape) walk
 * a row's channels one by one, alpha's too (never stored), in loops that
 * vectorize. */

#if CLV_DEPTH == 16
#define ED_PX(v) convert_ushort4(v)
typedef uint ed_g;   /* (|gx| + |gy|) << 2 | direction: 21 bits at 16 bits */
typedef uint4 ed_g4; /* a pixel's */
#define ED_G4(v) convert_uint4(v)
typedef long ed_dir_t; /* the direction's products pass 32 bits at 16 bits */
#else
#define ED_PX(v) convert_uchar4(v)
typedef ushort ed_g; /* 13 bits at 8 bits */
typedef ushort4 ed_g4;
#define ED_G4(v) convert_ushort4(v)
typedef int ed_dir_t; /* ffmpeg's int */
#endif

/* ffmpeg's get_rounded_direction: 0 45 degrees up, 1 45 down, 2
 * horizontal, 3 vertical; tan(pi/8) and tan(3pi/8) in 16 fractional bits
 * (27146 and 158218), the tangent gy / gx compared without a division. */
inline int ed_direction(int gx, int gy)
{
    const ed_dir_t ax = abs(gx), y = (ed_dir_t)(gx < 0 ? -gy : gy) * 65536,
                   t1 = (ed_dir_t)27146 * ax, t3 = (ed_dir_t)158218 * ax;
    return !gx ? 3 : y > -t3 && y < -t1 ? 0 : y > -t1 && y < t1 ? 2 : y > t1 && y < t3 ? 1 : 3;
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

__kernel void edgedetect_luma(CLV_FRAME_ARGS)
{
#if CLV_ROW
    /* the channels as elements, a pixel's four together (the loop
     * vectorizes) */
    CLV_ROW_Y(y);
    __global const clv_ch *in = (__global const clv_ch *)(src + y * stride);
    __global clv_ch *restrict o = (__global clv_ch *)(dst + y * stride);
    for (int x = 0; x < w; x++) {
        const int r = in[4 * x], g = in[4 * x + 1], b = in[4 * x + 2];
#if CLV_DEPTH == 16
        const clv_ch l = (clv_ch)clv_gray3(r, g, b);
#else
        const clv_ch l = (clv_ch)clv_gray_sws(r, g, b);
#endif
        o[4 * x] = o[4 * x + 1] = o[4 * x + 2] = l;
        o[4 * x + 3] = in[4 * x + 3];
    }
#else
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const clv_px p = src[y * stride + x];
        const int l = ed_luma(p);
        dst[y * stride + x] = ED_PX((int4)(l, l, l, p.w));
    }
#endif
}

/* The 5x5 Gaussian's sum of the values v(dy, dx) around a place. */
#define ED_GAUSS(v)                                                                                \
    (2 * (v(-2, -2) + v(2, -2) + v(-2, 2) + v(2, 2)) +                                             \
     4 * (v(-2, -1) + v(2, -1) + v(-2, 1) + v(2, 1) + v(-1, -2) + v(1, -2) + v(-1, 2) + v(1, 2)) + \
     5 * (v(-2, 0) + v(2, 0) + v(0, -2) + v(0, 2)) +                                               \
     9 * (v(-1, -1) + v(1, -1) + v(-1, 1) + v(1, 1)) +                                             \
     12 * (v(-1, 0) + v(1, 0) + v(0, -1) + v(0, 1)) + 15 * v(0, 0))

#if !CLV_ROW
/* GPUs: row yy's pixels x0 - 2 .. x0 + 5 around a work-item's four (x0 =
 * 4 id, inside the row), the middle four in one 16-byte load (32 at 16
 * bits) as CLV_WIN3_ROW's. */
#define ED_ROW8(src, yy, x0, v)                                                                    \
    {                                                                                              \
        __global const clv_px *row_ = (src) + (yy)*stride + (x0);                                  \
        clv_get4((v) + 2, row_, 0, 4);                                                             \
        v[0] = row_[-2];                                                                           \
        v[1] = row_[-1];                                                                           \
        v[6] = row_[4];                                                                            \
        v[7] = row_[5];                                                                            \
    }
#endif

#if CLV_ROW
/* Row y of a frame's channels (channel c of pixel x is element 4x + c). */
#define ED_ROW(buf, yy) ((__global clv_ch *)((buf) + (yy)*stride))
#define ED_ROW_CONST(buf, yy) ((__global const clv_ch *)((buf) + (yy)*stride))
#endif

__kernel void edgedetect_blur(CLV_FRAME_ARGS)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    __global const clv_ch *r2 = ED_ROW_CONST(src, y);
    __global clv_ch *restrict o = ED_ROW(dst, y);
    const int n = 4 * w;
    if (y < 2 || y >= h - 2 || w < 5) {
        for (int i = 0; i < n; i++)
            o[i] = r2[i];
        return;
    }
    __global const clv_ch *r0 = ED_ROW_CONST(src, y - 2), *r1 = ED_ROW_CONST(src, y - 1),
                          *r3 = ED_ROW_CONST(src, y + 1), *r4 = ED_ROW_CONST(src, y + 2);
    for (int i = 0; i < 8; i++) {
        o[i] = r2[i];
        o[n - 8 + i] = r2[n - 8 + i];
    }
    for (int i = 8; i < n - 8; i++) {
#define ED_AT(dy, dx)                                                                              \
    (int)((dy) == -2 ? r0 : (dy) == -1 ? r1 : (dy) == 0 ? r2 : (dy) == 1 ? r3 : r4)[i + 4 * (dx)]
        o[i] = (clv_ch)(ED_GAUSS(ED_AT) / 159);
#undef ED_AT
    }
#else
    /* GPUs: four pixels a work-item; where all four are inside, their 5 x 8
     * window read once (otherwise a pixel at a time) */
    {
        const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
        if (!(y < 2 || y >= h - 2 || x0 < 2 || x0 + 6 > w)) {
            clv_px v[5][8];
            for (int r = 0; r < 5; r++)
                ED_ROW8(src, y - 2 + r, x0, v[r]);
            clv_px o[4];
            for (int k = 0; k < 4; k++) {
#define ED_AT(dy, dx) clv_int4(v[2 + (dy)][2 + k + (dx)])
                o[k] = ED_PX(ED_GAUSS(ED_AT) / 159);
#undef ED_AT
            }
            CLV_STORE4(dst, stride, y, x0, o);
            return;
        }
    }
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        int4 v;
        if (x < 2 || y < 2 || x >= w - 2 || y >= h - 2) {
            v = clv_int4(src[y * stride + x]);
        } else {
            __global const clv_px *r = src + y * stride + x;
#define ED_AT(dy, dx) clv_int4(r[(dy)*stride + (dx)])
            v = ED_GAUSS(ED_AT) / 159;
#undef ED_AT
        }
        dst[y * stride + x] = ED_PX(v);
    }
#endif
}

/* The blurred frame src to each channel's magnitude and direction (grad:
 * a frame of ed_g4). */
__kernel void edgedetect_grad(__global const clv_px *src, __global ed_g4 *grad, int w, int h,
                              int stride)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    __global ed_g *restrict g = (__global ed_g *)(grad + y * stride);
    const int n = 4 * w;
    if (y == 0 || y == h - 1 || w < 3) {
        for (int i = 0; i < n; i++)
            g[i] = 0;
        return;
    }
    __global const clv_ch *a = ED_ROW_CONST(src, y - 1), *b = ED_ROW_CONST(src, y),
                          *c = ED_ROW_CONST(src, y + 1);
    for (int i = 0; i < 4; i++)
        g[i] = g[n - 4 + i] = 0;
    for (int i = 4; i < n - 4; i++) {
        const int gx = ((int)a[i + 4] - a[i - 4]) + 2 * ((int)b[i + 4] - b[i - 4]) +
                       ((int)c[i + 4] - c[i - 4]);
        const int gy =
            ((int)c[i - 4] - a[i - 4]) + 2 * ((int)c[i] - a[i]) + ((int)c[i + 4] - a[i + 4]);
        g[i] = (ed_g)((abs(gx) + abs(gy)) << 2 | (uint)ed_direction(gx, gy));
    }
#else
    /* GPUs: four pixels a work-item; where all four are inside, their 3 x 6
     * window read once */
    {
        const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
        if (!(y < 1 || y >= h - 1 || x0 < 1 || x0 + 5 > w)) {
            clv_px a[6], b[6], c[6];
            CLV_WIN3_ROW(src, stride, y - 1, x0, a);
            CLV_WIN3_ROW(src, stride, y, x0, b);
            CLV_WIN3_ROW(src, stride, y + 1, x0, c);
            for (int k = 0; k < 4; k++) {
                const int4 gx = (clv_int4(a[k + 2]) - clv_int4(a[k])) +
                                2 * (clv_int4(b[k + 2]) - clv_int4(b[k])) +
                                (clv_int4(c[k + 2]) - clv_int4(c[k]));
                const int4 gy = (clv_int4(c[k]) - clv_int4(a[k])) +
                                2 * (clv_int4(c[k + 1]) - clv_int4(a[k + 1])) +
                                (clv_int4(c[k + 2]) - clv_int4(a[k + 2]));
                int4 o = convert_int4(abs(gx) + abs(gy)) << 2;
                o.x |= ed_direction(gx.x, gy.x);
                o.y |= ed_direction(gx.y, gy.y);
                o.z |= ed_direction(gx.z, gy.z);
                o.w = 0;
                grad[y * stride + x0 + k] = ED_G4(o);
            }
            return;
        }
    }
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
        grad[y * stride + x] = ED_G4(o);
    }
#endif
}

/* Non-maximum suppression of one channel's magnitude and direction p
 * (ed_g) against its neighbours' (up-left, up, up-right, left, right,
 * down-left, down, down-right): ffmpeg's COPY_MAXIMA along each
 * direction, clipped to maxv. */
inline int ed_nms1(int p, int ul, int u, int ur, int l, int r, int dl, int dn, int dr, int maxv)
{
    const int v = p >> 2, d = p & 3;
    const int a = (d == 0 ? dl : d == 1 ? ul : d == 2 ? l : u) >> 2;
    const int b = (d == 0 ? ur : d == 1 ? dr : d == 2 ? r : dn) >> 2;
    return (v > a && v > b) ? min(v, maxv) : 0;
}
/* The same with the neighbours at(dy, dx). */
#define ED_NMS(p, at, maxv)                                                                        \
    ed_nms1((int)(p), (int)at(-1, -1), (int)at(-1, 0), (int)at(-1, 1), (int)at(0, -1),             \
            (int)at(0, 1), (int)at(1, -1), (int)at(1, 0), (int)at(1, 1), maxv)

/* Each channel's magnitude where it is above both neighbours along its
 * direction, clipped to maxv (dst: a frame). */
__kernel void edgedetect_nms(__global const ed_g4 *grad, __global clv_px *dst, int w, int h,
                             int stride, int maxv)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    __global clv_ch *restrict o = ED_ROW(dst, y);
    const int n = 4 * w;
    if (y == 0 || y == h - 1 || w < 3) {
        for (int i = 0; i < n; i++)
            o[i] = 0;
        return;
    }
    __global const ed_g *g = (__global const ed_g *)(grad + y * stride);
    const int s = 4 * stride;
    for (int i = 0; i < 4; i++)
        o[i] = o[n - 4 + i] = 0;
    /* every neighbour read, then chosen (no load under a condition: the
     * loop vectorizes) */
    for (int i = 4; i < n - 4; i++)
        o[i] = (clv_ch)ed_nms1(g[i], g[i - s - 4], g[i - s], g[i - s + 4], g[i - 4], g[i + 4],
                               g[i + s - 4], g[i + s], g[i + s + 4], maxv);
#else
    /* GPUs: four pixels a work-item; where all four are inside, their 3 x 6
     * window read once */
    {
        const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
        if (!(y < 1 || y >= h - 1 || x0 < 1 || x0 + 5 > w)) {
            ed_g4 a[6], b[6], c[6];
            for (int j = 0; j < 6; j++) {
                a[j] = grad[(y - 1) * stride + x0 - 1 + j];
                b[j] = grad[y * stride + x0 - 1 + j];
                c[j] = grad[(y + 1) * stride + x0 - 1 + j];
            }
            clv_px o[4];
            for (int k = 0; k < 4; k++) {
                int4 m = 0;
#define ED_AT(dy, dx) ((dy) < 0 ? a : (dy) > 0 ? c : b)[k + 1 + (dx)].ED_C
#define ED_C x
                m.x = ED_NMS(b[k + 1].x, ED_AT, maxv);
#undef ED_C
#define ED_C y
                m.y = ED_NMS(b[k + 1].y, ED_AT, maxv);
#undef ED_C
#define ED_C z
                m.z = ED_NMS(b[k + 1].z, ED_AT, maxv);
#undef ED_C
#undef ED_AT
                o[k] = ED_PX(m);
            }
            CLV_STORE4(dst, stride, y, x0, o);
            return;
        }
    }
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        int4 o = 0;
        if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
            __global const ed_g4 *r = grad + y * stride + x;
#define ED_AT(dy, dx) r[(dy)*stride + (dx)].x
            o.x = ED_NMS(r[0].x, ED_AT, maxv);
#undef ED_AT
#define ED_AT(dy, dx) r[(dy)*stride + (dx)].y
            o.y = ED_NMS(r[0].y, ED_AT, maxv);
#undef ED_AT
#define ED_AT(dy, dx) r[(dy)*stride + (dx)].z
            o.z = ED_NMS(r[0].z, ED_AT, maxv);
#undef ED_AT
        }
        dst[y * stride + x] = ED_PX(o);
    }
#endif
}

/* The double threshold on nms (the suppression's frame) and the mode into
 * dst: mix 0 the edges (canny, and wires on its R = G = B), 1 their mean
 * with the channel (colormix); sel: the channels (R 1, G 2, B 4) that
 * take them. */
__kernel void edgedetect_out(CLV_FRAME_ARGS, __global const clv_px *nms, int mix, int sel, int low,
                             int high)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    __global const clv_ch *in = ED_ROW_CONST(src, y), *r = ED_ROW_CONST(nms, y);
    __global clv_ch *restrict o = ED_ROW(dst, y);
    const int n = 4 * w, s = 4 * stride, inner = y > 0 && y < h - 1;
    /* the kept values of every channel, alpha's too, byte after byte (the
     * first and last pixels and the border rows have no neighbours; the
     * rest reads all eight, unconditionally: the loops vectorize), then the
     * mode, channel by channel */
    const int edge = !inner || n <= 8 ? n : 4;
    for (int i = 0; i < edge; i++)
        o[i] = (clv_ch)(r[i] > high ? r[i] : 0);
    for (int i = n - 4; edge < n && i < n; i++)
        o[i] = (clv_ch)(r[i] > high ? r[i] : 0);
    for (int i = edge; i < n - 4; i++) {
        const int v = r[i];
        const int near = (r[i - s - 4] > high) | (r[i - s] > high) | (r[i - s + 4] > high) |
                         (r[i - 4] > high) | (r[i + 4] > high) | (r[i + s - 4] > high) |
                         (r[i + s] > high) | (r[i + s + 4] > high);
        o[i] = (clv_ch)(((v > high) | (near & (v > low))) ? v : 0);
    }
    const int take = sel & 7; /* alpha's bit 3 is 0: it passes */
    for (int i = 0; i < n; i++) {
        const int e = o[i], q = in[i];
        o[i] = (clv_ch)(!(take >> (i & 3) & 1) ? q : mix ? (e + q) >> 1 : e);
    }
#else
    const int4 s = (int4)(sel & 1, sel >> 1 & 1, sel >> 2 & 1, 0) != 0;
    /* GPUs: four pixels a work-item; where all four are inside, their 3 x 6
     * window read once */
    {
        const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
        if (!(y < 1 || y >= h - 1 || x0 < 1 || x0 + 5 > w)) {
            clv_px a[6], b[6], c[6], q4[4];
            CLV_WIN3_ROW(nms, stride, y - 1, x0, a);
            CLV_WIN3_ROW(nms, stride, y, x0, b);
            CLV_WIN3_ROW(nms, stride, y + 1, x0, c);
            clv_get4(q4, src, y * stride + x0, 4);
            clv_px o4[4];
            for (int k = 0; k < 4; k++) {
                const int4 v = clv_int4(b[k + 1]), q = clv_int4(q4[k]);
                const int4 near = (clv_int4(a[k]) > high) | (clv_int4(a[k + 1]) > high) |
                                  (clv_int4(a[k + 2]) > high) | (clv_int4(b[k]) > high) |
                                  (clv_int4(b[k + 2]) > high) | (clv_int4(c[k]) > high) |
                                  (clv_int4(c[k + 1]) > high) | (clv_int4(c[k + 2]) > high);
                const int4 e = ((v > high) | (near & (v > low))) ? v : 0;
                int4 o = s ? (mix ? (e + q) >> 1 : e) : q;
                o.w = q.w;
                o4[k] = ED_PX(o);
            }
            CLV_STORE4(dst, stride, y, x0, o4);
            return;
        }
    }
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        __global const clv_px *r = nms + y * stride + x;
        const int4 v = clv_int4(r[0]), q = clv_int4(src[y * stride + x]);
        int4 t = v > high;
        if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
            int4 near = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    if (dy || dx)
                        near |= clv_int4(r[dy * stride + dx]) > high;
            t |= near & (v > low);
        }
        const int4 e = t ? v : 0;
        int4 o = s ? (mix ? (e + q) >> 1 : e) : q;
        o.w = q.w;
        dst[y * stride + x] = ED_PX(o);
    }
#endif
}
