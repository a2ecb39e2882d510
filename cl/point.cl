/* point.cl - per-pixel filters on luma: threshold and gray. */

__kernel void threshold(CLV_FRAME_ARGS, int t)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const uchar4 p = src[y * stride + x];
        const uchar v = clv_gray(p) > t ? 255 : 0;
        dst[y * stride + x] = (uchar4)(v, v, v, p.w);
    }
}

__kernel void gray(CLV_FRAME_ARGS)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const uchar4 p = src[y * stride + x];
        const uchar v = (uchar)clv_gray(p);
        dst[y * stride + x] = (uchar4)(v, v, v, p.w);
    }
}
