/* edge.cl - ffmpeg's sobel, roberts, scharr and kirsch
 * (libavfilter/vf_convolution.c) on the channels the plane mask selects, in
 * integers at 8 and 16 bits (scharr and kirsch: see scharr_out and kirsch_out). With m =
 * gx^2 + gy^2 (edge_grad), scale = p / 1000 and delta = d / 1000 (d on this
 * depth's scale), a channel becomes
 *     clamp(floor((isqrt(m * p^2) + d) / 1000), 0, CLV_MAXV),
 * which is floor(sqrt(m) * scale + delta) clamped, ffmpeg's formula in
 * exact arithmetic. Past m * p^2 > (EDGE_CAP * 1000)^2 the magnitude alone
 * saturates any delta (|delta| <= CLV_MAXV), so the product is formed only
 * below that (m <= mlim = that / p^2, from the host) and stays under 2^54.
 * unit (scale 1 and a whole delta): isqrt(m) + d / 1000, the same number.
 * The channels the mask leaves out, and alpha, keep the input's value.
 * The square roots are isqrt.cl's, shared with prewitt. */
#include "isqrt.cl"

#define EDGE_Q 1000
#define EDGE_CAP (2 * CLV_MAXV + 1)
#define EDGE_X_CAP ((ulong)(EDGE_CAP * EDGE_Q) * (ulong)(EDGE_CAP * EDGE_Q))

#if CLV_DEPTH == 8
typedef int edge_m; /* m: at most 2 * (4 * 255)^2 */
#else
typedef long edge_m; /* at most 2 * (4 * 65535)^2, past 2^31 */
#endif

/* A channel's output from m: see the top. */
inline int edge_out(edge_m m, ulong p2, ulong mlim, int d, const int unit)
{
    if (unit)
        return clamp(clv_isqrt(m) + d / EDGE_Q, 0, CLV_MAXV);
    if ((ulong)m > mlim)
        return CLV_MAXV;
    const int r = (int)clv_isqrt64((ulong)m * p2) + d; /* |r| < 2^28 */
    const int q = r / EDGE_Q - (r % EDGE_Q < 0);
    return clamp(q, 0, CLV_MAXV);
}

/* gx^2 + gy^2 of channel c around (x, y), edges clamped: sobel's 3x3
 * (roberts = 0), or roberts's pair of differences, as vf_convolution's
 * filter_roberts: gx = p(x-1, y-1) - p(x, y-1), gy = p(x, y) - p(x-1, y). */
inline edge_m edge_grad(__global const clv_px *src, int w, int h, int stride, int x, int y,
                        const int roberts, int c)
{
    const int ym = max(y - 1, 0) * stride, y0 = y * stride, xm = max(x - 1, 0);
    edge_m gx, gy;
    if (roberts) {
        gx = (edge_m)clv_channel(src[ym + xm], c) - clv_channel(src[ym + x], c);
        gy = (edge_m)clv_channel(src[y0 + x], c) - clv_channel(src[y0 + xm], c);
    } else {
        const int yp = min(y + 1, h - 1) * stride, xp = min(x + 1, w - 1);
        const edge_m a = clv_channel(src[ym + xm], c), b = clv_channel(src[ym + x], c),
                     cc = clv_channel(src[ym + xp], c);
        const edge_m l = clv_channel(src[y0 + xm], c), r = clv_channel(src[y0 + xp], c);
        const edge_m g = clv_channel(src[yp + xm], c), k = clv_channel(src[yp + x], c),
                     n = clv_channel(src[yp + xp], c);
        gx = (cc + 2 * r + n) - (a + 2 * l + g);
        gy = (g + 2 * k + n) - (a + 2 * b + cc);
    }
    return gx * gx + gy * gy;
}

/* The pixel at (x, y); sel: which of R, G, B the mask selects (bits 0-2). */
inline clv_px edge_pixel(__global const clv_px *src, int w, int h, int stride, int x, int y,
                         ulong p2, ulong mlim, int d, int sel, const int roberts, const int unit)
{
    clv_px o = src[y * stride + x];
    if (sel & 1)
        o.x = (clv_ch)edge_out(edge_grad(src, w, h, stride, x, y, roberts, 0), p2, mlim, d, unit);
    if (sel & 2)
        o.y = (clv_ch)edge_out(edge_grad(src, w, h, stride, x, y, roberts, 1), p2, mlim, d, unit);
    if (sel & 4)
        o.z = (clv_ch)edge_out(edge_grad(src, w, h, stride, x, y, roberts, 2), p2, mlim, d, unit);
    return o;
}

/* scharr and kirsch. scharr: gx, gy with ffmpeg's weights 47, 162, 47,
 * m = gx^2 + gy^2 (past 2^32 at 8 bits), and ffmpeg's sqrt(m) / 256 * scale
 * + delta floored: s = floor(sqrt(m) * p / 256) = isqrt(floor(m p^2 / 2^16)),
 * then floor((s + d) / 1000). m p^2 takes up to 102 bits, formed from 32-bit
 * halves (which vectorize, where a 64-bit mul_hi does not); where the
 * quotient reaches 2^54 (isqrt64's domain) its root is past 2^27 and the
 * channel saturates at either depth. unit (p 1000, d whole): isqrt(m >>
 * 16) + d / 1000, at 8 bits m >> 16 from the two squares' 32-bit halves.
 * kirsch: v = |the largest of ffmpeg's eight compass sums| (weights 5 on
 * three neighbours, -3 on the other five), floor((v p + d) / 1000), which
 * saturates past v > vlim (the host's: v p then passes 2 max + 1, and
 * below it v p fits an int); unit: v + d / 1000. Everything else in ints. */
#define EDGE_SCHARR 2
#define EDGE_KIRSCH 3

/* kirsch's v of the window p0 .. p8 (rows top to bottom). */
inline int kirsch_measure(int p0, int p1, int p2, int p3, int p5, int p6, int p7, int p8)
{
    /* each compass sum is 8 * (its three) - 3 * (all eight); ffmpeg's
     * threes run through the neighbours in raster order (p0 p1 p2 p3 p5
     * p6 p7 p8, then round to p0), not around the ring */
    const int all = 3 * (p0 + p1 + p2 + p3 + p5 + p6 + p7 + p8);
    int t = max(max(p0 + p1 + p2, p1 + p2 + p3), max(p2 + p3 + p5, p3 + p5 + p6));
    t = max(t, max(max(p5 + p6 + p7, p6 + p7 + p8), max(p7 + p8 + p0, p8 + p0 + p1)));
    return abs(8 * t - all);
}

inline int kirsch_out(int v, ulong p, ulong vlim, int d, const int unit)
{
    if (unit)
        return clamp(v + d / EDGE_Q, 0, CLV_MAXV);
    if ((ulong)v > vlim)
        return CLV_MAXV;
    const int r = (int)((uint)v * (uint)p) + d;
    return clamp(r / EDGE_Q - (r % EDGE_Q < 0), 0, CLV_MAXV);
}

/* scharr's channel from its gradients. */
inline int scharr_out(int gx, int gy, ulong p2, int d, const int unit)
{
    if (unit) {
#if CLV_DEPTH == 8
        const uint a = (uint)gx * (uint)gx, b = (uint)gy * (uint)gy; /* < 2^32 */
        const int m16 = (int)((a >> 16) + (b >> 16) + (((a & 0xffffu) + (b & 0xffffu)) >> 16));
#else
        const long m16 = ((long)gx * gx + (long)gy * gy) >> 16;
#endif
        return clamp(clv_isqrt(m16) + d / EDGE_Q, 0, CLV_MAXV);
    }
    const ulong m = (ulong)((long)gx * gx + (long)gy * gy);
    const ulong ml = m & 0xffffffffu, mh = m >> 32, pl = p2 & 0xffffffffu, ph = p2 >> 32;
    const ulong ll = ml * pl, lh = ml * ph, hl = mh * pl;
    const ulong mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    const ulong hi = mh * ph + (lh >> 32) + (hl >> 32) + (mid >> 32);
    if (hi >> 6)
        return CLV_MAXV;
    const ulong q = hi << 48 | (mid & 0xffffffffu) << 16 | (ll & 0xffffffffu) >> 16;
    const int r = (int)clv_isqrt64(q) + d; /* the root < 2^27 */
    return clamp(r / EDGE_Q - (r % EDGE_Q < 0), 0, CLV_MAXV);
}

/* The channel of the window p0 .. p8: p2 and lim are scharr's p^2 and
 * nothing, kirsch's p and vlim. */
inline int edge_more_channel(int p0, int p1, int p2, int p3, int p5, int p6, int p7, int p8,
                             ulong pp, ulong lim, int d, const int kind, const int unit)
{
    if (kind == EDGE_KIRSCH)
        return kirsch_out(kirsch_measure(p0, p1, p2, p3, p5, p6, p7, p8), pp, lim, d, unit);
    const int gy = 47 * (p6 + p8 - p0 - p2) + 162 * (p7 - p1);
    const int gx = 47 * (p2 + p8 - p0 - p6) + 162 * (p5 - p3);
    return scharr_out(gx, gy, pp, d, unit);
}

inline clv_px edge_more_pixel(__global const clv_px *src, int w, int h, int stride, int x, int y,
                              ulong pp, ulong lim, int d, int sel, const int kind, const int unit)
{
    const int ym = max(y - 1, 0) * stride, y0 = y * stride, yp = min(y + 1, h - 1) * stride;
    const int xm = max(x - 1, 0), xp = min(x + 1, w - 1);
    clv_px o = src[y0 + x];
    for (int c = 0; c < 3; ++c)
        if (sel >> c & 1) {
            const clv_ch out = (clv_ch)edge_more_channel(
                clv_channel(src[ym + xm], c), clv_channel(src[ym + x], c),
                clv_channel(src[ym + xp], c), clv_channel(src[y0 + xm], c),
                clv_channel(src[y0 + xp], c), clv_channel(src[yp + xm], c),
                clv_channel(src[yp + x], c), clv_channel(src[yp + xp], c), pp, lim, d, kind, unit);
            if (c == 0)
                o.x = out;
            else if (c == 1)
                o.y = out;
            else
                o.z = out;
        }
    return o;
}

#if !CLV_ROW
/* The GPU shape's channel ch of pixel i (0 .. 3) of a work-item's window
 * rows a, b, c (CLV_WIN3: columns x0 - 1 .. x0 + 4), kind 0 sobel, 1
 * roberts, 2 scharr, 3 kirsch; pp, lim: sobel's p2, mlim, or scharr's and
 * kirsch's. Each pixel is loaded once for its twelve windows' channels
 * (the per-pixel path loaded a channel's nine for each: 117 us at 4K on
 * an H200, a fifth of the copy bandwidth). */
inline int edge_win_channel(const clv_px *a, const clv_px *b, const clv_px *c, int i, int ch,
                            ulong pp, ulong lim, int d, const int kind, const int unit)
{
    const int p0 = clv_channel(a[i], ch), p1 = clv_channel(a[i + 1], ch),
              p2 = clv_channel(a[i + 2], ch);
    const int p3 = clv_channel(b[i], ch), p4 = clv_channel(b[i + 1], ch),
              p5 = clv_channel(b[i + 2], ch);
    const int p6 = clv_channel(c[i], ch), p7 = clv_channel(c[i + 1], ch),
              p8 = clv_channel(c[i + 2], ch);
    if (kind == 1) {
        const edge_m gx = (edge_m)p0 - p1, gy = (edge_m)p4 - p3;
        return edge_out(gx * gx + gy * gy, pp, lim, d, unit);
    }
    if (kind == 0) {
        const edge_m gx = (edge_m)(p2 + 2 * p5 + p8) - (p0 + 2 * p3 + p6);
        const edge_m gy = (edge_m)(p6 + 2 * p7 + p8) - (p0 + 2 * p1 + p2);
        return edge_out(gx * gx + gy * gy, pp, lim, d, unit);
    }
    return edge_more_channel(p0, p1, p2, p3, p5, p6, p7, p8, pp, lim, d, kind, unit);
}
#endif

/* The pixel at (x, y) of any kind, loaded by channel: the ends of a row. */
inline clv_px edge_any_pixel(__global const clv_px *src, int w, int h, int stride, int x, int y,
                             ulong pp, ulong lim, int d, int sel, const int kind, const int unit)
{
    return kind < 2 ? edge_pixel(src, w, h, stride, x, y, pp, lim, d, sel, kind, unit)
                    : edge_more_pixel(src, w, h, stride, x, y, pp, lim, d, sel, kind, unit);
}

#if CLV_ROW
#if CLV_DEPTH == 8
typedef uchar edge_ch;
typedef uint edge_word; /* one pixel */
#define as_edge_word as_uint
#else
typedef ushort edge_ch;
typedef ulong edge_word;
#define as_edge_word as_ulong
#endif

/* Row y of kind (0 sobel, 1 roberts, 2 scharr, 3 kirsch): the clamped
 * ends by pixel, the interior channel by channel over the row's samples
 * (every channel computed, which vectorizes), then the kept channels put
 * back a pixel at a time. Inlined whole (CLV_ROW_FN): PoCL left it a call
 * of the eight kernels, the kind unknown in its loop, and scharr took 7
 * times as long. */
CLV_ROW_FN void edge_row(CLV_FRAME_ARGS, int y, ulong pp, ulong lim, int d, int sel,
                         const int kind, const int unit)
{
    /* the bits of a pixel that keep the input: alpha and the channels
     * left out */
    const edge_word keep = as_edge_word((clv_px)((sel & 1) ? 0 : CLV_MAXV, (sel & 2) ? 0 : CLV_MAXV,
                                                 (sel & 4) ? 0 : CLV_MAXV, CLV_MAXV));
    const int first = 1, last = kind == 1 ? w : w - 1; /* interior pixels first .. last - 1 */
    dst[y * stride] = edge_any_pixel(src, w, h, stride, 0, y, pp, lim, d, sel, kind, unit);
    if (last > 0 && last < w)
        dst[y * stride + last] =
            edge_any_pixel(src, w, h, stride, last, y, pp, lim, d, sel, kind, unit);
    __global const edge_ch *r0 = (__global const edge_ch *)(src + max(y - 1, 0) * stride);
    __global const edge_ch *r1 = (__global const edge_ch *)(src + y * stride);
    __global const edge_ch *r2 = (__global const edge_ch *)(src + min(y + 1, h - 1) * stride);
    __global edge_ch *restrict out = (__global edge_ch *)(dst + y * stride);
    for (int i = 4 * first; i < 4 * last; ++i) {
        if (kind >= 2) {
            out[i] = (edge_ch)edge_more_channel(r0[i - 4], r0[i], r0[i + 4], r1[i - 4], r1[i + 4],
                                                r2[i - 4], r2[i], r2[i + 4], pp, lim, d, kind, unit);
            continue;
        }
        edge_m gx, gy;
        if (kind == 1) {
            gx = (edge_m)r0[i - 4] - r0[i];
            gy = (edge_m)r1[i] - r1[i - 4];
        } else {
            gx = ((edge_m)r0[i + 4] + 2 * r1[i + 4] + r2[i + 4]) -
                 ((edge_m)r0[i - 4] + 2 * r1[i - 4] + r2[i - 4]);
            gy = ((edge_m)r2[i - 4] + 2 * r2[i] + r2[i + 4]) -
                 ((edge_m)r0[i - 4] + 2 * r0[i] + r0[i + 4]);
        }
        out[i] = (edge_ch)edge_out(gx * gx + gy * gy, pp, lim, d, unit);
    }
    __global edge_word *restrict o = (__global edge_word *)out;
    __global const edge_word *restrict c = (__global const edge_word *)r1;
    for (int x = first; x < last; ++x)
        o[x] = (o[x] & ~keep) | (c[x] & keep);
}
#endif

/* Every edge kernel: the row shape's rows (edge_row), the GPU shape's
 * four pixels a work-item from registers (edge_win_channel), the last of a
 * row by pixel. */
inline void edge_any_body(CLV_FRAME_ARGS, ulong pp, ulong lim, int d, int sel, const int kind,
                          const int unit)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    edge_row(src, dst, w, h, stride, y, pp, lim, d, sel, kind, unit);
#else
    CLV_WIN3(src, w, h, stride,
             dst[y * stride + x] =
                 edge_any_pixel(src, w, h, stride, x, y, pp, lim, d, sel, kind, unit));
    clv_px o[4];
    for (int i = 0; i < 4; ++i) {
        o[i] = b[i + 1];
        if (sel & 1)
            o[i].x = (clv_ch)edge_win_channel(a, b, c, i, 0, pp, lim, d, kind, unit);
        if (sel & 2)
            o[i].y = (clv_ch)edge_win_channel(a, b, c, i, 1, pp, lim, d, kind, unit);
        if (sel & 4)
            o[i].z = (clv_ch)edge_win_channel(a, b, c, i, 2, pp, lim, d, kind, unit);
    }
    CLV_STORE4(dst, stride, y, x0, o);
#endif
}

/* sobel, roberts: pp = p^2, lim = mlim (see the top); scharr: pp = p^2
 * (scale = p / 1000); kirsch: pp = p, lim = vlim. d: delta in thousandths
 * at this depth; sel: the channels to filter (R 1, G 2, B 4). unit
 * kernels: p = 1000, d a multiple of 1000. */
__kernel void sobel(CLV_FRAME_ARGS, ulong pp, ulong lim, int d, int sel)
{
    edge_any_body(src, dst, w, h, stride, pp, lim, d, sel, 0, 0);
}

__kernel void sobel_unit(CLV_FRAME_ARGS, ulong pp, ulong lim, int d, int sel)
{
    edge_any_body(src, dst, w, h, stride, pp, lim, d, sel, 0, 1);
}

__kernel void roberts(CLV_FRAME_ARGS, ulong pp, ulong lim, int d, int sel)
{
    edge_any_body(src, dst, w, h, stride, pp, lim, d, sel, 1, 0);
}

__kernel void roberts_unit(CLV_FRAME_ARGS, ulong pp, ulong lim, int d, int sel)
{
    edge_any_body(src, dst, w, h, stride, pp, lim, d, sel, 1, 1);
}

__kernel void scharr(CLV_FRAME_ARGS, ulong pp, ulong lim, int d, int sel)
{
    edge_any_body(src, dst, w, h, stride, pp, lim, d, sel, EDGE_SCHARR, 0);
}

__kernel void scharr_unit(CLV_FRAME_ARGS, ulong pp, ulong lim, int d, int sel)
{
    edge_any_body(src, dst, w, h, stride, pp, lim, d, sel, EDGE_SCHARR, 1);
}

__kernel void kirsch(CLV_FRAME_ARGS, ulong pp, ulong lim, int d, int sel)
{
    edge_any_body(src, dst, w, h, stride, pp, lim, d, sel, EDGE_KIRSCH, 0);
}

__kernel void kirsch_unit(CLV_FRAME_ARGS, ulong pp, ulong lim, int d, int sel)
{
    edge_any_body(src, dst, w, h, stride, pp, lim, d, sel, EDGE_KIRSCH, 1);
}
