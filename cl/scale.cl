/* scale.cl - ffmpeg's scale (src/filters/scale.c): swscale's 8-bit
 * per-plane resampling, each RGBA channel a plane. The host builds the taps
 * (position and int16 coefficients per output column and per output row);
 * the pass across makes swscale's 15-bit intermediate, out_w x in_h short4,
 * min(sum >> 7, 32767) (and >= -32768, as its SIMD saturates); the pass
 * down rounds with its dither, (64 << 12 + sum) >> 19, clamped to 0..255. */

/* The pass across: input row y, output columns. Each output column reads
 * `taps` pixels from pos[x] on with coefficients coef[x * taps ...]. */
__kernel void scale_across(__global const uchar4 *src, __global short4 *mid, int w, int h,
                           int stride, int out_w, __global const int *pos,
                           __global const short *coef, int taps)
{
    const int y = (int)get_global_id(1);
    if (y >= h)
        return;
    __global const uchar4 *in = src + y * stride;
#if CLV_ROW
    __global short *out = (__global short *)(mid + y * out_w);
    for (int x = 0; x < out_w; x++) {
        __global const uchar *p = (__global const uchar *)(in + pos[x]);
        __global const short *c = coef + x * taps;
        int r = 0, g = 0, b = 0, a = 0;
        for (int j = 0; j < taps; j++) {
            const int k = c[j];
            r += p[4 * j] * k;
            g += p[4 * j + 1] * k;
            b += p[4 * j + 2] * k;
            a += p[4 * j + 3] * k;
        }
        out[4 * x] = (short)clamp(r >> 7, -32768, 32767);
        out[4 * x + 1] = (short)clamp(g >> 7, -32768, 32767);
        out[4 * x + 2] = (short)clamp(b >> 7, -32768, 32767);
        out[4 * x + 3] = (short)clamp(a >> 7, -32768, 32767);
    }
#else
    /* Neighbouring work-items read neighbouring pixels: the row's loads
     * coalesce through the cache however the taps fall. */
    const int x0 = (int)get_global_id(0) * CLV_PX;
    for (int i = 0; i < CLV_PX; i++) {
        const int x = x0 + i;
        if (x >= out_w)
            return;
        __global const uchar4 *p = in + pos[x];
        __global const short *c = coef + x * taps;
        int4 sum = (int4)(0);
        for (int j = 0; j < taps; j++)
            sum += clv_int4(p[j]) * (int)c[j];
        mid[y * out_w + x] = convert_short4_sat(sum >> 7);
    }
#endif
}

/* The pass down: output row y reads `taps` rows of mid from pos[y] on, one
 * coefficient a row for the whole row. */
__kernel void scale_down(__global const short4 *mid, __global uchar4 *dst, int out_w, int out_h,
                         int out_stride, __global const int *pos, __global const short *coef,
                         int taps)
{
    const int y = (int)get_global_id(1);
    if (y >= out_h)
        return;
    __global const short4 *first = mid + pos[y] * out_w;
    __global const short *c = coef + y * taps;
#if CLV_ROW
    /* Tap-major over chunks of the row: the inner loops are plain int
     * multiply-adds over consecutive shorts, which the loop vectorizer
     * takes. */
#define DOWN_CHUNK 64
    __global uchar *out = (__global uchar *)(dst + y * out_stride);
    for (int x0 = 0; x0 < out_w; x0 += DOWN_CHUNK) {
        const int n = 4 * min(DOWN_CHUNK, out_w - x0);
        int acc[4 * DOWN_CHUNK];
        for (int k = 0; k < n; k++)
            acc[k] = 64 << 12;
        for (int j = 0; j < taps; j++) {
            __global const short *m = (__global const short *)(first + j * out_w + x0);
            const int cj = c[j];
            for (int k = 0; k < n; k++)
                acc[k] += m[k] * cj;
        }
        for (int k = 0; k < n; k++)
            out[4 * x0 + k] = (uchar)clamp(acc[k] >> 19, 0, 255);
    }
#else
    const int x0 = (int)get_global_id(0) * CLV_PX;
    if (x0 >= out_w)
        return;
    if (x0 + CLV_PX <= out_w) {
        /* Four pixels, 32 bytes, one load a row. */
        int16 sum = (int16)(64 << 12);
        for (int j = 0; j < taps; j++)
            sum += convert_int16(vload16(0, (__global const short *)(first + j * out_w + x0))) *
                   (int)c[j];
        const uchar16 v = convert_uchar16_sat(sum >> 19);
        vstore16(v, 0, (__global uchar *)(dst + y * out_stride + x0));
        return;
    }
    for (int x = x0; x < out_w; x++) {
        int4 sum = (int4)(64 << 12);
        for (int j = 0; j < taps; j++)
            sum += convert_int4(first[j * out_w + x]) * (int)c[j];
        dst[y * out_stride + x] = convert_uchar4_sat(sum >> 19);
    }
#endif
}

/* The same size in and out: vf_scale makes no scaler, the frame passes. */
__kernel void scale_copy(__global const uchar4 *src, __global uchar4 *dst, int w, int h, int stride,
                         int out_stride)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * out_stride + x] = src[y * stride + x];
}
