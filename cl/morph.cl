/* morph.cl - one pass of erosion (per-channel minimum) or dilation (maximum)
 * over the (2r+1)^2 window, clamp-to-edge; alpha passes through. */

__kernel void morph(CLV_FRAME_ARGS, int r, int dilate)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        uchar4 lo = (uchar4)255, hi = (uchar4)0;
        for (int dy = -r; dy <= r; ++dy) {
            const int yy = clamp(y + dy, 0, h - 1) * stride;
            for (int dx = -r; dx <= r; ++dx) {
                const uchar4 v = src[yy + clamp(x + dx, 0, w - 1)];
                lo = min(lo, v);
                hi = max(hi, v);
            }
        }
        uchar4 o = dilate ? hi : lo;
        o.w = src[y * stride + x].w;
        dst[y * stride + x] = o;
    }
}
