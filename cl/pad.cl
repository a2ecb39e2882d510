/* pad.cl - ffmpeg's pad: the ow x oh output is the colour, with the w x h
 * input at (x0, y0) (the host places it, cf. src/filters/pad.c). The same
 * code at 8 and 16 bits: the host passes the colour at the frames' depth. */

inline clv_px pad_pixel(__global const clv_px *src, int w, int h, int stride, int x, int y,
                        clv_px color)
{
    return x >= 0 && x < w && y >= 0 && y < h ? src[y * stride + x] : color;
}

__kernel void pad(CLV_FRAME_ARGS, int ow, int oh, int ostride, int x0, int y0, clv_px color)
{
#if CLV_ROW
    const int y = (int)get_global_id(1);
    if (y >= oh)
        return;
    __global clv_px *out = dst + y * ostride;
    const int sy = y - y0;
    if (sy < 0 || sy >= h) {
        for (int x = 0; x < ow; x++)
            out[x] = color;
        return;
    }
    __global const clv_px *in = src + sy * stride - x0;
    for (int x = 0; x < x0; x++)
        out[x] = color;
    for (int x = x0; x < x0 + w; x++)
        out[x] = in[x];
    for (int x = x0 + w; x < ow; x++)
        out[x] = color;
#else
    const int y = (int)get_global_id(1), xs = (int)get_global_id(0) * CLV_PX;
    if (y >= oh || xs >= ow)
        return;
    for (int i = 0; i < CLV_PX && xs + i < ow; i++)
        dst[y * ostride + xs + i] = pad_pixel(src, w, h, stride, xs + i - x0, y - y0, color);
#endif
}
