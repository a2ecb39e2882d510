/* lut.cl - ffmpeg's lut and lutrgb (src/filters/lut.c builds the tables):
 * each channel through its table of CLV_MAXV + 1 values, R's first, then
 * G's, B's and A's; a channel whose table is the identity (use's lane 0)
 * is not read from it (at 16 bits a table is 128 KiB, a gather from the
 * cache each). */

__kernel void lut(CLV_FRAME_ARGS, __global const clv_ch *tab, int4 use)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        r = use.x ? tab[r] : r;
        g = use.y ? tab[CLV_MAXV + 1 + g] : g;
        b = use.z ? tab[2 * (CLV_MAXV + 1) + b] : b;
        a = use.w ? tab[3 * (CLV_MAXV + 1) + a] : a;
    });
}
