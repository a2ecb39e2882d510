/* lumakey.cl - ffmpeg's lumakey (src/filters/lumakey.c) on each pixel's Y'
 * code (BT.601 limited range, ycbcr.cl, rounded; the 8-bit code * 256 at
 * 16 bits): between black and white the alpha is 0, within so of them it
 * ramps to max, elsewhere it stays. */
#include "ycbcr.cl"

__kernel void lumakey(CLV_FRAME_ARGS, __global const long *m, int black, int white, int so)
{
    ycc_t k[24];
    ycc_load(m, k);
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        const long l = ((long)ycc_component(k, 0, r, g, b) + 128) >> 8;
        if (l >= black && l <= white)
            a = 0;
        else if (l > black - so && l < white + so)
            a = (clv_ch)(l < black ? CLV_MAXV - (l - black + so) * CLV_MAXV / so
                                   : (l - white) * CLV_MAXV / so);
    });
}
