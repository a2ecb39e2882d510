/* xstack.cl - ffmpeg's xstack: the output filled with a colour where no
 * input lands (the host skips it when the inputs tile the frame), then each
 * input copied to its place (src/filters/xstack.c). A copy: the same code at
 * 8 and 16 bits. */

__kernel void xstack_fill(__global clv_px *dst, int w, int h, int dstride, int r, int g, int b,
                          int a)
{
    const clv_px c = (clv_px)((clv_ch)r, (clv_ch)g, (clv_ch)b, (clv_ch)a);
#if CLV_ROW
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * dstride + x] = c;
#else
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
    if (y >= h || x0 >= w)
        return;
    const clv_px p[4] = {c, c, c, c};
    clv_put4(dst, y * dstride + x0, min(4, w - x0), p);
#endif
}

/* The w x h input src at (x0, y0) of dst, which holds it whole. */
__kernel void xstack_place(CLV_FRAME_ARGS, int dstride, int x0, int y0)
{
#if CLV_ROW
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[(y + y0) * dstride + x + x0] = src[y * stride + x];
#else
    clv_place4(src, w, h, stride, dst, dstride, x0, y0);
#endif
}
