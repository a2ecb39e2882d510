/* point.cl - per-pixel filters on luma: threshold and gray. */

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
