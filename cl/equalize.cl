/* equalize.cl - histogram equalization of gray(p) over the frame, as
 * OpenCV's equalizeHist: a histogram (private per work-item on CPUs, local
 * per work-group on GPUs, merged with atomics), one scan that makes the LUT
 * and clears the histogram for the next frame, then the apply pass. */

#define EQ_CHUNK 1024

/* gray[x] = the BT.601 luma of the RGBA pixel in word x (little-endian:
 * R is the low byte). */
inline void eq_gray_words(__global const uint *restrict px, uchar *restrict gray, int len)
{
    for (int x = 0; x < len; ++x) {
        const uint p = px[x];
        gray[x] = (uchar)clv_gray3(p & 255, (p >> 8) & 255, (p >> 16) & 255);
    }
}

__kernel void eq_hist(__global const uchar4 *src, int w, int h, int stride, __global uint *hist)
{
#if CLV_ROW && defined(__ENDIAN_LITTLE__)
    /* A chunk's gray levels first (a loop the compiler vectorizes), then
     * the counting, into four interleaved sub-histograms: runs of equal
     * levels (flat areas) would otherwise wait on the previous increment
     * of the same counter. */
    uint four[4][256];
    for (int i = 0; i < 256; ++i)
        four[0][i] = four[1][i] = four[2][i] = four[3][i] = 0;
    uchar gray[EQ_CHUNK];
    for (int y = (int)get_global_id(0); y < h; y += (int)get_global_size(0)) {
        __global const uint *row = (__global const uint *)(src + y * stride);
        for (int x0 = 0; x0 < w; x0 += EQ_CHUNK) {
            const int len = min(EQ_CHUNK, w - x0);
            eq_gray_words(row + x0, gray, len);
            int x = 0;
            for (; x + 4 <= len; x += 4) {
                four[0][gray[x]]++;
                four[1][gray[x + 1]]++;
                four[2][gray[x + 2]]++;
                four[3][gray[x + 3]]++;
            }
            for (; x < len; ++x)
                four[0][gray[x]]++;
        }
    }
    for (int i = 0; i < 256; ++i) {
        const uint n = four[0][i] + four[1][i] + four[2][i] + four[3][i];
        if (n)
            atomic_add(&hist[i], n);
    }
#else
    __local uint mine[256];
    const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
    for (int i = lid; i < 256; i += lsize)
        mine[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Four pixels a work-item in one 16-byte load (strides are multiples
     * of 16 pixels); the row's last few pixels one by one. */
    const int w4 = w & ~3;
    for (int y = (int)get_group_id(0); y < h; y += (int)get_num_groups(0)) {
        __global const uint4 *row4 = (__global const uint4 *)(src + y * stride);
        for (int q = lid; 4 * q < w4; q += lsize) {
            const uint4 p = row4[q];
            atomic_inc(&mine[clv_gray(as_uchar4(p.x))]);
            atomic_inc(&mine[clv_gray(as_uchar4(p.y))]);
            atomic_inc(&mine[clv_gray(as_uchar4(p.z))]);
            atomic_inc(&mine[clv_gray(as_uchar4(p.w))]);
        }
        if (lid < w - w4)
            atomic_inc(&mine[clv_gray(src[y * stride + w4 + lid])]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < 256; i += lsize)
        if (mine[i])
            atomic_add(&hist[i], mine[i]);
#endif
}

/* 255 / d rounded correctly whatever the device's division accuracy: the
 * neighbour with the smallest exact residual (fma is correctly rounded). */
inline float eq_scale(uint d)
{
    const float df = (float)d;
    const float q = 255.0f / df;
    float best = q, best_r = fabs(fma(-q, df, 255.0f));
    float up = q, down = q;
    for (int i = 0; i < 3; ++i) {
        up = nextafter(up, INFINITY);
        down = nextafter(down, 0.0f);
        const float ru = fabs(fma(-up, df, 255.0f)), rd = fabs(fma(-down, df, 255.0f));
        if (ru < best_r) {
            best = up;
            best_r = ru;
        }
        if (rd < best_r) {
            best = down;
            best_r = rd;
        }
    }
    return best;
}

inline uchar eq_entry(int v, uint cdf, uint cdf_min, uint total, float scale)
{
    if (cdf_min == total)
        return (uchar)v; /* a constant frame is unchanged */
    if (cdf == 0)
        return 0; /* below the lowest level: never looked up */
    return (uchar)min(rint((float)(cdf - cdf_min) * scale), 255.0f);
}

__kernel void eq_lut(__global uint *hist, __global uchar *lut, uint total)
{
#if CLV_ROW
    if (get_global_id(0) != 0)
        return;
    uint cdf[256], run = 0, cdf_min = 0;
    for (int i = 0; i < 256; ++i) {
        run += hist[i];
        hist[i] = 0;
        cdf[i] = run;
        if (!cdf_min)
            cdf_min = run;
    }
    const float scale = cdf_min == total ? 0.0f : eq_scale(total - cdf_min);
    for (int i = 0; i < 256; ++i)
        lut[i] = eq_entry(i, cdf[i], cdf_min, total, scale);
#else
    /* One work-group of 256: Hillis-Steele inclusive scan in local memory. */
    __local uint a[256], b[256];
    __local uint lowest;
    const int i = (int)get_local_id(0);
    a[i] = hist[i];
    hist[i] = 0;
    if (i == 0)
        lowest = 256;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (a[i])
        atomic_min(&lowest, (uint)i);
    __local uint *in = a, *out = b;
    for (int off = 1; off < 256; off <<= 1) {
        out[i] = in[i] + (i >= off ? in[i - off] : 0u);
        barrier(CLK_LOCAL_MEM_FENCE);
        __local uint *t = in;
        in = out;
        out = t;
    }
    const uint cdf_min = in[lowest];
    const float scale = cdf_min == total ? 0.0f : eq_scale(total - cdf_min);
    lut[i] = eq_entry(i, in[i], cdf_min, total, scale);
#endif
}

/* The output words of a chunk from its levels and their LUT entries. */
inline void eq_write(__global const uint *restrict in, const uchar *restrict gray,
                     const uchar *restrict mapped, __global uint *restrict out, int len,
                     int gray_mode)
{
    if (gray_mode) {
        for (int x = 0; x < len; ++x)
            out[x] = (in[x] & 0xFF000000u) | (uint)mapped[x] * 0x010101u;
        return;
    }
    for (int x = 0; x < len; ++x) {
        const uint p = in[x];
        const int d = (int)mapped[x] - (int)gray[x];
        out[x] = (p & 0xFF000000u) | (uint)clamp((int)(p & 255) + d, 0, 255) |
                 ((uint)clamp((int)((p >> 8) & 255) + d, 0, 255) << 8) |
                 ((uint)clamp((int)((p >> 16) & 255) + d, 0, 255) << 16);
    }
}

/* gray_mode: R=G=B=lut[gray]. Otherwise (luma) each of R,G,B moves by
 * lut[Y] - Y, which changes the luma to lut[Y] and keeps Cb and Cr. */
/* One pixel through the LUT (GPU shape). */
inline uchar4 eq_pixel(uchar4 p, __local const uchar *l8, int gray_mode)
{
    const int luma = clv_gray(p);
    const int l = l8[luma], d = l - luma;
    if (gray_mode)
        return (uchar4)((uchar)l, (uchar)l, (uchar)l, p.w);
    return (uchar4)(convert_uchar_sat(p.x + d), convert_uchar_sat(p.y + d),
                    convert_uchar_sat(p.z + d), p.w);
}

__kernel void eq_apply(CLV_FRAME_ARGS, __constant uchar *lut, int gray_mode)
{
#if CLV_ROW && defined(__ENDIAN_LITTLE__)
    /* Whole pixels as 32-bit words in chunks: the levels (vectorized), the
     * LUT lookups (byte loads from a copy next to the work-item), then the
     * output words (vectorized). */
    CLV_ROW_Y(y);
    uchar l8[256];
    for (int i = 0; i < 256; ++i)
        l8[i] = lut[i];
    __global const uint *restrict in = (__global const uint *)(src + y * stride);
    __global uint *restrict out = (__global uint *)(dst + y * stride);
    uchar gray[EQ_CHUNK], mapped[EQ_CHUNK];
    for (int x0 = 0; x0 < w; x0 += EQ_CHUNK) {
        const int len = min(EQ_CHUNK, w - x0);
        eq_gray_words(in + x0, gray, len);
        for (int x = 0; x < len; ++x)
            mapped[x] = l8[gray[x]];
        eq_write(in + x0, gray, mapped, out + x0, len, gray_mode);
    }
#else
    /* The LUT in local memory: lookups with different levels in one warp
     * would take turns in constant memory. */
    __local uchar l8[256];
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    for (int i = lid; i < 256; i += (int)(get_local_size(0) * get_local_size(1)))
        l8[i] = lut[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * CLV_PX;
    if (y >= h || x0 >= w)
        return;
    __global const uchar4 *in = src + y * stride;
    __global uchar4 *out = dst + y * stride;
#if CLV_PX == 4
    if (x0 + 4 <= w) { /* the work-item's four pixels in one 16-byte load and store */
        const uint4 p = *(__global const uint4 *)(in + x0);
        *(__global uint4 *)(out + x0) = (uint4)(as_uint(eq_pixel(as_uchar4(p.x), l8, gray_mode)),
                                                as_uint(eq_pixel(as_uchar4(p.y), l8, gray_mode)),
                                                as_uint(eq_pixel(as_uchar4(p.z), l8, gray_mode)),
                                                as_uint(eq_pixel(as_uchar4(p.w), l8, gray_mode)));
        return;
    }
#endif
    for (int x = x0; x < min(x0 + CLV_PX, w); ++x)
        out[x] = eq_pixel(in[x], l8, gray_mode);
#endif
}
