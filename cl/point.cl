/* point.cl - per-pixel filters on luma: threshold and gray. */

__kernel void threshold(CLV_FRAME_ARGS, int t)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        uchar r, g, b, a;
        CLV_LOAD(src, y * stride + x, r, g, b, a);
        const uchar v = clv_gray3(r, g, b) > t ? 255 : 0;
        CLV_STORE(dst, y * stride + x, v, v, v, a);
    }
}

__kernel void gray(CLV_FRAME_ARGS)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        uchar r, g, b, a;
        CLV_LOAD(src, y * stride + x, r, g, b, a);
        const uchar v = (uchar)clv_gray3(r, g, b);
        CLV_STORE(dst, y * stride + x, v, v, v, a);
    }
}
