/* point.cl - per-pixel filters on luma: threshold and gray.
 *
 * At 16 bits (CLV_DEPTH=16) gray(p) is the same fixed-point formula on
 * 0-65535 (it fits an int: the weights sum to 2^15), and threshold's t is
 * the host's 257 t8 + 128 (threshold.c): white is 65535. */

#if CLV_DEPTH == 8
__kernel void threshold(CLV_FRAME_ARGS, int t)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        r = clv_gray3(r, g, b) > t ? 255 : 0;
        g = b = r;
    });
}

__kernel void gray(CLV_FRAME_ARGS)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        r = (uchar)clv_gray3(r, g, b);
        g = b = r;
    });
}
#else
__kernel void threshold(CLV_FRAME_ARGS, int t)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        r = clv_gray3(r, g, b) > t ? CLV_MAXV : 0;
        g = b = r;
    });
}

__kernel void gray(CLV_FRAME_ARGS)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        r = (clv_ch)clv_gray3(r, g, b);
        g = b = r;
    });
}
#endif
