/* morph.cl - one pass of erosion (per-channel minimum) or dilation (maximum)
 * over the (2r+1)^2 window, clamp-to-edge; alpha passes through. */

inline uchar4 morph_pixel(__global const uchar4 *src, int w, int h, int stride, int r, int dilate,
                          int x, int y)
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
    return o;
}

__kernel void morph(CLV_FRAME_ARGS, int r, int dilate)
{
#if CLV_ROW
    /* The row's r pixels at each end with clamping; the interior as plain
     * byte loops, one pass per window offset, folded into the output row. */
    CLV_ROW_Y(y);
    CLV_ROW_EDGES(x, r)
    dst[y * stride + x] = morph_pixel(src, w, h, stride, r, dilate, x, y);
    const int begin = 4 * r, end = 4 * (w - r);
    __global uchar *restrict out = CLV_ROW_BYTES(dst, y);
    __global const uchar *first = CLV_ROW_BYTES_CONST(src, max(y - r, 0)) - 4 * r;
    for (int i = begin; i < end; ++i)
        out[i] = first[i];
    for (int dy = -r; dy <= r; ++dy) {
        __global const uchar *row = CLV_ROW_BYTES_CONST(src, clamp(y + dy, 0, h - 1));
        for (int dx = -r; dx <= r; ++dx) {
            __global const uchar *p = row + 4 * dx;
            if (dilate)
                for (int i = begin; i < end; ++i)
                    out[i] = max(out[i], p[i]);
            else
                for (int i = begin; i < end; ++i)
                    out[i] = min(out[i], p[i]);
        }
    }
    __global const uchar *centre = CLV_ROW_BYTES_CONST(src, y);
    for (int i = begin + 3; i < end; i += 4)
        out[i] = centre[i];
#else
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * stride + x] = morph_pixel(src, w, h, stride, r, dilate, x, y);
#endif
}
