/* despill.cl - ffmpeg's despill (src/filters/despill.c) in fixed point:
 * the spill S = max(g 2^16 - r mix - b factor, 0) (green screen; blue: b
 * and g swapped), in 2^-16 codes, added to each channel with its weight
 * (red, green, blue, each plus brightness) in 2^-16:
 *   c' = clamp(((c << 32) + S w_c) >> 32, 0, max)
 * and with alpha=1 the alpha max - ceil(S / 2^16). */

inline clv_ch despill_channel(clv_ch c, long s, int weight)
{
    return (clv_ch)clamp((((long)c << 32) + s * weight) >> 32, 0L, (long)CLV_MAXV);
}

inline void despill_pixel(clv_ch *r, clv_ch *g, clv_ch *b, clv_ch *a, int blue, int mix, int factor,
                          int wr, int wg, int wb, int alpha)
{
    const long key = blue ? *b : *g, other = blue ? *g : *b;
    const long s = max((key << 16) - (long)*r * mix - other * factor, 0L);
    *r = despill_channel(*r, s, wr);
    *g = despill_channel(*g, s, wg);
    *b = despill_channel(*b, s, wb);
    if (alpha)
        *a = (clv_ch)(CLV_MAXV - ((s + 65535) >> 16));
}

__kernel void despill(CLV_FRAME_ARGS, int blue, int mix, int factor, int wr, int wg, int wb,
                      int alpha)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a,
                     despill_pixel(&r, &g, &b, &a, blue, mix, factor, wr, wg, wb, alpha));
}
