/* prewitt.cl - Prewitt gradient magnitude per R,G,B:
 * clamp(floor(sqrt(gx^2 + gy^2) * p / q) + delta), computed exactly as
 * isqrt(m * p^2) / q with integers (scale = p / q, q = 1000). */

/* floor(sqrt(m) * p / q) capped at 511, which saturates any delta. */
inline int prewitt_mag(uint m, ulong p2, uint q)
{
    const ulong x = (ulong)m * p2;
    const ulong cap = (ulong)(511u * q) * (ulong)(511u * q);
    if (x >= cap)
        return 511;
    ulong r = (ulong)sqrt((float)x);
    while (r * r > x)
        --r;
    while ((r + 1) * (r + 1) <= x)
        ++r;
    return (int)(r / q);
}

__kernel void prewitt(CLV_FRAME_ARGS, ulong p2, uint q, int delta)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const int ym = clamp(y - 1, 0, h - 1) * stride, y0 = y * stride,
                  yp = clamp(y + 1, 0, h - 1) * stride;
        const int xm = clamp(x - 1, 0, w - 1), xp = clamp(x + 1, 0, w - 1);
        const int4 a = convert_int4(src[ym + xm]), b = convert_int4(src[ym + x]),
                   c = convert_int4(src[ym + xp]);
        const int4 d = convert_int4(src[y0 + xm]), f = convert_int4(src[y0 + xp]);
        const int4 g = convert_int4(src[yp + xm]), hh = convert_int4(src[yp + x]),
                   k = convert_int4(src[yp + xp]);
        const int4 gx = (c + f + k) - (a + d + g);
        const int4 gy = (g + hh + k) - (a + b + c);
        const uint4 m = convert_uint4(gx * gx + gy * gy);
        int4 o;
        o.x = prewitt_mag(m.x, p2, q);
        o.y = prewitt_mag(m.y, p2, q);
        o.z = prewitt_mag(m.z, p2, q);
        o.w = 0;
        dst[y0 + x] = clv_clamp_u8(o + delta, src[y0 + x].w);
    }
}
