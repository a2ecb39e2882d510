/* transpose.cl - ffmpeg's transpose: output pixel (x, y) is input pixel
 * (y, x), the input's rows taken bottom up when rows_up (clockwise) and the
 * output's rows written bottom up when out_up; turn 0 copies (passthrough).
 * A copy: the same code at 8 and 16 bits. */

inline int transpose_index(int x, int y, int h, int oh, int stride, int turn, int rows_up,
                           int out_up)
{
    if (!turn)
        return y * stride + x;
    const int sx = out_up ? oh - 1 - y : y, sy = rows_up ? h - 1 - x : x;
    return sy * stride + sx;
}

__kernel void transpose(CLV_FRAME_ARGS, int ow, int oh, int ostride, int turn, int rows_up,
                        int out_up)
{
    (void)w;
#if CLV_ROW
    const int y = (int)get_global_id(1);
    if (y >= oh)
        return;
    __global clv_px *out = dst + y * ostride;
    for (int x = 0; x < ow; x++)
        out[x] = src[transpose_index(x, y, h, oh, stride, turn, rows_up, out_up)];
#else
    const int y = (int)get_global_id(1), xs = (int)get_global_id(0) * CLV_PX;
    if (y >= oh || xs >= ow)
        return;
    for (int i = 0; i < CLV_PX && xs + i < ow; i++)
        dst[y * ostride + xs + i] =
            src[transpose_index(xs + i, y, h, oh, stride, turn, rows_up, out_up)];
#endif
}
