/* lut.cl - ffmpeg's lut and lutrgb (src/filters/lut.c builds the tables):
 * each channel through its table of CLV_MAXV + 1 values, R's first, then
 * G's, B's and A's. */

__kernel void lut(CLV_FRAME_ARGS, __global const clv_ch *tab)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        r = tab[r];
        g = tab[CLV_MAXV + 1 + g];
        b = tab[2 * (CLV_MAXV + 1) + b];
        a = tab[3 * (CLV_MAXV + 1) + a];
    });
}
