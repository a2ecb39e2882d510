/* drawbox.cl - ffmpeg's drawbox and drawgrid on RGBA frames
 * (src/filters/drawbox.c says which pixels and why): a pixel of the
 * outline becomes, by mode,
 *   0: each of R, G, B (ch)(ka * v + al * c), ka = 1 - al and al = A / 255
 *      as floats (the host's), in float without contraction, truncated:
 *      ffmpeg's packed-RGB draw_region_rgb_packed to the bit;
 *   1 (replace): the colour, alpha included;
 *   2 (invert): max - v in R, G and B.
 * At 16 bits the same on 0-65535, the colour's channels times 257. */
#pragma OPENCL FP_CONTRACT OFF

inline void drawbox_paint(clv_ch *r, clv_ch *g, clv_ch *b, clv_ch *a, int mode, float ka,
                          float al, clv_px c)
{
    if (mode == 2) {
        *r = CLV_MAXV - *r;
        *g = CLV_MAXV - *g;
        *b = CLV_MAXV - *b;
    } else if (mode == 1) {
        *r = c.x;
        *g = c.y;
        *b = c.z;
        *a = c.w;
    } else {
        float p = ka * (float)*r, q = al * (float)c.x;
        *r = (clv_ch)(p + q);
        p = ka * (float)*g;
        q = al * (float)c.y;
        *g = (clv_ch)(p + q);
        p = ka * (float)*b;
        q = al * (float)c.z;
        *b = (clv_ch)(p + q);
    }
}

/* box: the pixels drawn lie in [box.x, box.z) x [box.y, box.w) and
 * outside [inner.x, inner.z) x [inner.y, inner.w) (the outline's inside). */
__kernel void drawbox(CLV_FRAME_ARGS, int4 box, int4 inner, int mode, float ka, float al,
                      clv_px color)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        const bool in_box = x >= box.x && x < box.z && y >= box.y && y < box.w;
        const bool inside = x >= inner.x && x < inner.z && y >= inner.y && y < inner.w;
        if (in_box && !inside)
            drawbox_paint(&r, &g, &b, &a, mode, ka, al, color);
    });
}

/* grid: a pixel is on a line where (x + off.x) mod cell.x < t or
 * (y + off.y) mod cell.y < t (off the offsets' complements, each below its
 * cell, so the sums stay within 32 bits unsigned). */
__kernel void drawgrid(CLV_FRAME_ARGS, uint2 off, uint2 cell, int t, int mode, float ka, float al,
                       clv_px color)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        const uint mx = ((uint)x + off.x) % cell.x;
        const uint my = ((uint)y + off.y) % cell.y;
        if ((long)mx < t || (long)my < t)
            drawbox_paint(&r, &g, &b, &a, mode, ka, al, color);
    });
}
