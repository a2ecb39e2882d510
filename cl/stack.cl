/* stack.cl - hstack and vstack (ffmpeg's): each input is copied unchanged
 * into its place in the output, the w x h input at (x0, y0). A copy: the
 * same code at 8 and 16 bits. */

__kernel void stack_place(CLV_FRAME_ARGS, int ostride, int x0, int y0)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    __global const clv_px *in = src + y * stride;
    __global clv_px *out = dst + (y + y0) * ostride + x0;
    for (int x = 0; x < w; x++)
        out[x] = in[x];
#else
    clv_place4(src, w, h, stride, dst, ostride, x0, y0);
#endif
}
