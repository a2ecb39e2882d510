/* overlay.cl - ffmpeg's overlay with format=rgb on RGBA frames (vf_overlay's
 * blend_slice_packed_rgb, src/filters/overlay.c defines it): the output is
 * the main frame (src) with the ow x oh overlay (ovl) at (x0, y0), clipped to
 * the frame. For an overlay pixel of alpha a over a main pixel d of alpha da:
 * a is first made straight against da (UNPREMULTIPLY_ALPHA: a itself when da
 * is opaque), then a == 0 keeps d, a == MAX takes the overlay's colour, else
 *   straight:      c = DIV(d * (MAX - a) + s * a)
 *   premultiplied: c = min(DIV(d * (MAX - a)) + s, MAX)
 * and the alpha becomes da + DIV((MAX - da) * sa) (sa where a == MAX).
 * DIV is vf_overlay's FAST_DIV255 at 8 bits, ((v + 128) * 257) >> 16, and
 * v / 65535 rounded (half down) at 16 bits, where ffmpeg's RGB overlay has
 * no formula; the 16-bit products are in 64 bits. */

#if CLV_DEPTH == 8
typedef int ov_t;
#define OV_DIV(v) ((((v) + 128) * 257) >> 16)
#else
typedef long ov_t;
#define OV_DIV(v) (((v) + 32767) / 65535)
#endif

inline void ov_pixel(int *r, int *g, int *b, int *a, int sr, int sg, int sb, int sa, int premul)
{
    const ov_t M = CLV_MAXV;
    ov_t alpha = sa;
    const ov_t da = *a;
    if (alpha != 0 && alpha != M)
        alpha = (alpha * M * M) / ((alpha + da) * M - da * alpha);
    if (alpha == M) {
        *r = sr;
        *g = sg;
        *b = sb;
    } else if (alpha != 0) {
        if (premul) {
            *r = (int)min(OV_DIV((ov_t)*r * (M - alpha)) + sr, M);
            *g = (int)min(OV_DIV((ov_t)*g * (M - alpha)) + sg, M);
            *b = (int)min(OV_DIV((ov_t)*b * (M - alpha)) + sb, M);
        } else {
            *r = (int)OV_DIV((ov_t)*r * (M - alpha) + (ov_t)sr * alpha);
            *g = (int)OV_DIV((ov_t)*g * (M - alpha) + (ov_t)sg * alpha);
            *b = (int)OV_DIV((ov_t)*b * (M - alpha) + (ov_t)sb * alpha);
        }
    }
    if (alpha == M)
        *a = sa;
    else if (alpha != 0)
        *a = (int)(da + OV_DIV((M - da) * sa));
}

/* Main pixel d under overlay pixel s. */
inline clv_px ov_blend(clv_px d, clv_px s, int premul)
{
    int r = d.x, g = d.y, b = d.z, a = d.w;
    ov_pixel(&r, &g, &b, &a, s.x, s.y, s.z, s.w, premul);
    return (clv_px)((clv_ch)r, (clv_ch)g, (clv_ch)b, (clv_ch)a);
}

/* present 0: the overlay is absent or wholly outside (ovl unread): a copy of
 * the main frame. The host keeps x0 in (-ow, w) and y0 in (-oh, h). */
__kernel void overlay(CLV_FRAME_ARGS, int dstride, __global const clv_px *ovl, int ow, int oh,
                      int ostride, int x0, int y0, int premul, int present)
{
#if CLV_ROW
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        clv_px p = src[y * stride + x];
        const int ox = x - x0, oy = y - y0;
        if (present && ox >= 0 && ox < ow && oy >= 0 && oy < oh)
            p = ov_blend(p, ovl[oy * ostride + ox], premul);
        dst[y * dstride + x] = p;
    }
#else
    /* Four pixels of the main frame and, where they lie inside it, of the
     * overlay: its four with one access (two where x0 is not a multiple of
     * 4) when all of them are inside, else a pixel at a time. */
    const int y = (int)get_global_id(1), xb = (int)get_global_id(0) * 4;
    if (y >= h || xb >= w)
        return;
    const int n = min(4, w - xb), ox = xb - x0, oy = y - y0;
    clv_px p[4];
    clv_get4(p, src, y * stride + xb, n);
    if (present && oy >= 0 && oy < oh && ox + 4 > 0 && ox < ow) {
        __global const clv_px *orow = ovl + oy * ostride;
        if (n == 4 && ox >= 0 && ox + 4 <= ow) {
            clv_px s[4];
            clv_get4_at(s, orow, ox);
#pragma unroll
            for (int k = 0; k < 4; ++k)
                p[k] = ov_blend(p[k], s[k], premul);
        } else {
            for (int k = max(0, -ox); k < n && ox + k < ow; ++k)
                p[k] = ov_blend(p[k], orow[ox + k], premul);
        }
    }
    clv_put4(dst, y * dstride + xb, n, p);
#endif
}

#if CLV_DEPTH == 8
/* ---- format=yuv420 (ffmpeg's default): into the main frame's planes ----
 * vf_overlay's blend_slice_yuv (blend_plane, 8 bits, main without alpha):
 * the main frame's 4:2:0 planes (in: yuv420p or nv12 at yoff, uoff, voff
 * with rows of ys, us, vs bytes) copied to the output's (out: packed, w x
 * h), and over them, where it lands, the overlay of ow x oh at (x0, y0)
 * (both even): its Y'CbCr in oyuv (yuv420p, packed, the stage's own
 * conversion of its RGBA) and its alpha in ovl (RGBA, rows of ostride
 * pixels). A luma sample takes the alpha of its pixel, a chroma sample the
 * mean of the 2x2 alphas it covers (ffmpeg's: the last chroma row and
 * column of the overlay average 2 alphas on one side and 1 on the other,
 * (v + h) / 2). straight: DIV(d * (255 - a) + s * a); premultiplied: luma
 * clip(DIV(d * (255 - a)) + s - 16), chroma clip(DIV((d - 128) * (255 -
 * a)) + s - 128, -128, 128) + 128, stored in 8 bits (256 wraps to 0, as
 * ffmpeg's). DIV is FAST_DIV255. */
#define OVY_DIV(v) ((((v) + 128) * 257) >> 16)

inline uchar ovy_luma(int d, int s, int a, int premul)
{
    if (premul)
        return (uchar)clamp(OVY_DIV(d * (255 - a)) + s - 16, 0, 255);
    return (uchar)OVY_DIV(d * (255 - a) + s * a);
}

inline uchar ovy_chroma(int d, int s, int a, int premul)
{
    if (premul)
        return (uchar)(clamp(OVY_DIV((d - 128) * (255 - a)) + s - 128, -128, 128) + 128);
    return (uchar)OVY_DIV(d * (255 - a) + s * a);
}

/* The alpha of the overlay's chroma sample (k, j) (owc x ohc of them). */
inline int ovy_alpha(__global const uchar4 *ovl, int ostride, int owc, int ohc, int k, int j)
{
    __global const uchar4 *a = ovl + 2 * j * ostride + 2 * k;
    const int a0 = a[0].w;
    if (k + 1 < owc && j + 1 < ohc)
        return (a0 + a[1].w + a[ostride].w + a[ostride + 1].w) >> 2;
    const int h = k + 1 < owc ? (a0 + a[1].w) >> 1 : a0;
    const int v = j + 1 < ohc ? (a0 + a[ostride].w) >> 1 : a0;
    return (v + h) >> 1;
}

/* Chroma sample (cx, cy) of the output: the 2x2 luma samples it covers and
 * its two chroma samples, copied, the overlay blended in where it lies. */
inline void ovy_sample(__global const uchar *in, int yoff, int uoff, int voff, int ys, int us,
                       int vs, int in_nv12, __global uchar *out, int out_nv12, int w, int h,
                       __global const uchar *oyuv, __global const uchar4 *ovl, int ow, int oh,
                       int ostride, int x0, int y0, int premul, int present, int cx, int cy)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2, owc = (ow + 1) / 2, ohc = (oh + 1) / 2;
    for (int dy = 0; dy < 2 && 2 * cy + dy < h; ++dy) {
        const int y = 2 * cy + dy, oy = y - y0;
        for (int dx = 0; dx < 2 && 2 * cx + dx < w; ++dx) {
            const int x = 2 * cx + dx, ox = x - x0;
            int v = in[yoff + y * ys + x];
            if (present && ox >= 0 && ox < ow && oy >= 0 && oy < oh)
                v = ovy_luma(v, oyuv[oy * ow + ox], ovl[oy * ostride + ox].w, premul);
            out[y * w + x] = (uchar)v;
        }
    }
    int u = in_nv12 ? in[uoff + cy * us + 2 * cx] : in[uoff + cy * us + cx];
    int v = in_nv12 ? in[uoff + cy * us + 2 * cx + 1] : in[voff + cy * vs + cx];
    const int k = cx - x0 / 2, j = cy - y0 / 2;
    if (present && k >= 0 && k < owc && j >= 0 && j < ohc) {
        const int a = ovy_alpha(ovl, ostride, owc, ohc, k, j);
        __global const uchar *ou = oyuv + ow * oh;
        u = ovy_chroma(u, ou[j * owc + k], a, premul);
        v = ovy_chroma(v, ou[owc * ohc + j * owc + k], a, premul);
    }
    __global uchar *pu = out + w * h;
    if (out_nv12) {
        pu[2 * (cy * cw + cx)] = (uchar)u;
        pu[2 * (cy * cw + cx) + 1] = (uchar)v;
    } else {
        pu[cy * cw + cx] = (uchar)u;
        pu[cw * ch + cy * cw + cx] = (uchar)v;
    }
}

#if CLV_ROW
/* n bytes from s to d, 16 at a time. */
inline void ovy_copy(__global const uchar *s, __global uchar *d, int n)
{
    int i = 0;
    for (; i + 16 <= n; i += 16)
        *(__global clv_uchar16_u *)(d + i) = *(__global const clv_uchar16_u *)(s + i);
    for (; i < n; ++i)
        d[i] = s[i];
}
#endif

/* present 0: no overlay (absent, or wholly outside): the planes copied. The
 * host keeps x0 in (-ow, w) and y0 in (-oh, h) when present. inplace: in
 * is out (the same layout): only the overlay's samples are written. One chroma
 * sample a work-item position (the GPU shape), or one chroma row (CPUs:
 * its rows copied whole, then the overlay's part blended). */
__kernel void overlay_yuv420(__global const uchar *in, int yoff, int uoff, int voff, int ys, int us,
                             int vs, int in_nv12, __global uchar *out, int out_nv12, int w, int h,
                             __global const uchar *oyuv, __global const uchar4 *ovl, int ow, int oh,
                             int ostride, int x0, int y0, int premul, int present, int inplace)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
#if CLV_ROW
    const int cy = (int)get_global_id(1);
    if (cy >= ch)
        return;
    for (int y = 2 * cy; y < min(2 * cy + 2, h) && !inplace; ++y)
        ovy_copy(in + yoff + y * ys, out + y * w, w);
    __global uchar *pu = out + w * h;
    if (inplace) {
        /* nothing to copy */
    } else if (in_nv12 && out_nv12) {
        ovy_copy(in + uoff + cy * us, pu + 2 * cy * cw, 2 * cw);
    } else if (!in_nv12 && !out_nv12) {
        ovy_copy(in + uoff + cy * us, pu + cy * cw, cw);
        ovy_copy(in + voff + cy * vs, pu + cw * ch + cy * cw, cw);
    } else {
        for (int cx = 0; cx < cw; ++cx)
            ovy_sample(in, yoff, uoff, voff, ys, us, vs, in_nv12, out, out_nv12, w, h, oyuv, ovl,
                       ow, oh, ostride, x0, y0, premul, 0, cx, cy);
    }
    /* the chroma samples the overlay covers in this row */
    const int j = cy - y0 / 2;
    if (!present || j < 0 || j >= (oh + 1) / 2)
        return;
    const int c0 = max(x0 / 2, 0), c1 = min(x0 / 2 + (ow + 1) / 2, cw);
    for (int cx = c0; cx < c1; ++cx)
        ovy_sample(in, yoff, uoff, voff, ys, us, vs, in_nv12, out, out_nv12, w, h, oyuv, ovl, ow,
                   oh, ostride, x0, y0, premul, 1, cx, cy);
#else
    CLV_PIXEL_LOOP(cw, ch, cx, cy)
    {
        if (inplace && !(present && cx - x0 / 2 >= 0 && cx - x0 / 2 < (ow + 1) / 2 &&
                         cy - y0 / 2 >= 0 && cy - y0 / 2 < (oh + 1) / 2))
            continue;
        ovy_sample(in, yoff, uoff, voff, ys, us, vs, in_nv12, out, out_nv12, w, h, oyuv, ovl, ow,
                   oh, ostride, x0, y0, premul, present, cx, cy);
    }
#endif
}
#endif
