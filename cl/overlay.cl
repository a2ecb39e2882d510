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
