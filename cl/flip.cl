/* flip.cl - hflip and vflip (ffmpeg's): each output pixel is its mirror in
 * the input, left-right and/or top-bottom, alpha and all. */

__kernel void flip(CLV_FRAME_ARGS, int horizontal, int vertical)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    __global const clv_px *in = src + (vertical ? h - 1 - y : y) * stride;
    __global clv_px *out = dst + y * stride;
    if (horizontal)
        for (int x = 0; x < w; x++)
            out[x] = in[w - 1 - x];
    else
        for (int x = 0; x < w; x++)
            out[x] = in[x];
#else
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * CLV_PX;
    if (y >= h || x0 >= w)
        return;
    __global const clv_px *in = src + (vertical ? h - 1 - y : y) * stride;
    for (int i = 0; i < CLV_PX && x0 + i < w; i++)
        dst[y * stride + x0 + i] = in[horizontal ? w - 1 - x0 - i : x0 + i];
#endif
}
