/* crop.cl - ffmpeg's crop: the ow x oh output is the input's window whose
 * top-left pixel is (x0, y0) (the host evaluates and clips x and y each
 * frame, cf. src/filters/crop.c). A copy: the same code at 8 and 16 bits. */

__kernel void crop(CLV_FRAME_ARGS, int ow, int oh, int ostride, int x0, int y0)
{
    (void)w;
    (void)h;
#if CLV_ROW
    const int y = (int)get_global_id(1);
    if (y >= oh)
        return;
    __global const clv_px *in = src + (y + y0) * stride + x0;
    __global clv_px *out = dst + y * ostride;
    for (int x = 0; x < ow; x++)
        out[x] = in[x];
#else
    const int y = (int)get_global_id(1), xs = (int)get_global_id(0) * CLV_PX;
    if (y >= oh || xs >= ow)
        return;
    __global const clv_px *in = src + (y + y0) * stride + x0;
    for (int i = 0; i < CLV_PX && xs + i < ow; i++)
        dst[y * ostride + xs + i] = in[xs + i];
#endif
}
