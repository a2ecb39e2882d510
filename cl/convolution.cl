/* convolution.cl - N x N integer correlation (convolution, sharpen, emboss).
 * Per R,G,B: clamp(floor((2*S + D) / (2*D)) + bias); alpha passes through. */

__kernel void convolve(CLV_FRAME_ARGS, __constant int *coef, int n, int div, int bias)
{
    const int r = n / 2;
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        int4 s = (int4)0;
        for (int dy = 0; dy < n; ++dy) {
            const int yy = clamp(y + dy - r, 0, h - 1) * stride;
            for (int dx = 0; dx < n; ++dx) {
                const int xx = clamp(x + dx - r, 0, w - 1);
                s += coef[dy * n + dx] * convert_int4(src[yy + xx]);
            }
        }
        if (div != 1)
            s = clv_floor_div4(2 * s + div, 2 * div);
        dst[y * stride + x] = clv_clamp_u8(s + bias, src[y * stride + x].w);
    }
}
