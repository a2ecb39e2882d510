/* equalize.cl - histogram equalization of gray(p) over the frame, as
 * OpenCV's equalizeHist: a histogram (private per work-item on CPUs, local
 * per work-group on GPUs, merged with atomics), then the LUT and the apply
 * pass. CPUs: eq_lut makes the LUT and clears the histogram; GPUs: every
 * eq_apply group makes the LUT in local memory, and eq_hist clears the
 * other of two histograms, the one the next frame counts into. */

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

/* hist: this frame's counters (zero at the start). GPUs: `spare` is the
 * other frame's set, which the previous frame's eq_apply read and which
 * the next frame counts into: group 0 clears it here. CPUs: eq_lut clears
 * hist, spare is unused. */
__kernel void eq_hist(__global const uchar4 *src, int w, int h, int stride, __global uint *hist,
                      __global uint *spare)
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
    if (get_group_id(0) == 0)
        for (int i = lid; i < 256; i += lsize)
            spare[i] = 0;
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

/* Work-item i (of 256) of a group: the LUT entry for level i, by a
 * Hillis-Steele inclusive scan of the histogram in local memory. */
inline uchar eq_lut_scan(__global const uint *hist, uint total, __local uint *a, __local uint *b,
                         __local uint *lowest)
{
    const int i = (int)get_local_id(0);
    a[i] = hist[i];
    if (i == 0)
        *lowest = 256;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (a[i])
        atomic_min(lowest, (uint)i);
    __local uint *in = a, *out = b;
    for (int off = 1; off < 256; off <<= 1) {
        out[i] = in[i] + (i >= off ? in[i - off] : 0u);
        barrier(CLK_LOCAL_MEM_FENCE);
        __local uint *t = in;
        in = out;
        out = t;
    }
    const uint cdf_min = in[*lowest];
    const float scale = cdf_min == total ? 0.0f : eq_scale(total - cdf_min);
    return eq_entry(i, in[i], cdf_min, total, scale);
}

/* CPUs only (GPUs make the LUT in each eq_apply group): one work-item
 * scans the histogram, clears it for the next frame and writes the LUT. */
__kernel void eq_lut(__global uint *hist, __global uchar *lut, uint total)
{
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

/* CPUs map through lut (eq_lut's); GPUs make it from hist and total. */
__kernel void eq_apply(CLV_FRAME_ARGS, __constant uchar *lut, int gray_mode,
                       __global const uint *hist, uint total)
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
    /* GPUs: each group of 256 makes the LUT from the histogram itself, in
     * local memory (no LUT launch, and lookups with differing levels would
     * take turns in constant memory), then walks whole rows, four pixels a
     * work-item in 16-byte loads and stores. A few groups per compute unit
     * keep the scans' cost small. */
    __local uint a[256], b[256], lowest;
    __local uchar l8[256];
    const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
    l8[lid] = eq_lut_scan(hist, total, a, b, &lowest);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int quads = (w + 3) / 4;
    for (int y = (int)get_group_id(0); y < h; y += (int)get_num_groups(0)) {
        __global const uchar4 *in = src + y * stride;
        __global uchar4 *out = dst + y * stride;
        for (int q = lid; q < quads; q += lsize) {
            const int x0 = 4 * q;
            if (x0 + 4 <= w) {
                const uint4 p = *(__global const uint4 *)(in + x0);
                *(__global uint4 *)(out + x0) =
                    (uint4)(as_uint(eq_pixel(as_uchar4(p.x), l8, gray_mode)),
                            as_uint(eq_pixel(as_uchar4(p.y), l8, gray_mode)),
                            as_uint(eq_pixel(as_uchar4(p.z), l8, gray_mode)),
                            as_uint(eq_pixel(as_uchar4(p.w), l8, gray_mode)));
            } else {
                for (int x = x0; x < w; ++x)
                    out[x] = eq_pixel(in[x], l8, gray_mode);
            }
        }
    }
#endif
}
