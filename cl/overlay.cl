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

/* present 0: the overlay is absent or wholly outside (ovl unread): a copy of
 * the main frame. The host keeps x0 in (-ow, w) and y0 in (-oh, h). */
__kernel void overlay(CLV_FRAME_ARGS, int dstride, __global const clv_px *ovl, int ow, int oh,
                      int ostride, int x0, int y0, int premul, int present)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        clv_px p = src[y * stride + x];
        const int ox = x - x0, oy = y - y0;
        if (present && ox >= 0 && ox < ow && oy >= 0 && oy < oh) {
            const clv_px s = ovl[oy * ostride + ox];
            int r = p.x, g = p.y, b = p.z, a = p.w;
            ov_pixel(&r, &g, &b, &a, s.x, s.y, s.z, s.w, premul);
            p = (clv_px)((clv_ch)r, (clv_ch)g, (clv_ch)b, (clv_ch)a);
        }
        dst[y * dstride + x] = p;
    }
}
