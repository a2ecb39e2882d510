/* equalize.cl - histogram equalization of gray(p) over the frame, as
 * OpenCV's equalizeHist: a histogram (private per work-item on CPUs, local
 * per work-group on GPUs, merged with atomics), then the LUT and the apply
 * pass. CPUs: eq_lut makes a table of LUT pairs; GPUs: every eq_apply
 * group makes the LUT in local memory. Two histogram sets alternate: the
 * histogram pass clears the other one, which the next frame counts into.
 *
 * mode=gray (and either mode on CPUs) keeps the gray levels from the
 * histogram pass in a plane (a byte a pixel) with the OR of every pixel's
 * inverted alpha in hist[256]: the apply pass maps the plane, and in
 * mode=gray, when no pixel had any alpha but 255 (decoded video), it reads
 * nothing else. */

#define EQ_CHUNK 1024
#define EQ_PAIR_ROWS 32 /* eq_lut: 8 work-items */
#define EQ_ALPHA 256    /* hist[EQ_ALPHA]: OR of ~alpha << 24 over the frame */

/* gray[x] = the BT.601 luma of the RGBA pixel in word x (little-endian:
 * R is the low byte); returns the OR of the inverted alpha bytes. */
inline uint eq_gray_words(__global const uint *restrict px, uchar *restrict gray, int len)
{
    uint transparent = 0;
    for (int x = 0; x < len; ++x) {
        const uint p = px[x];
        gray[x] = (uchar)clv_gray3(p & 255, (p >> 8) & 255, (p >> 16) & 255);
        transparent |= ~p;
    }
    return transparent & 0xFF000000u;
}

#if CLV_ROW && defined(__ENDIAN_LITTLE__)
/* CPUs: the four sub-histograms of a work-item cleared, and work-item 0
 * clears the spare set (see eq_hist). */
inline void eq_clear(uint (*four)[256], __global uint *spare)
{
    for (int i = 0; i < 256; ++i)
        four[0][i] = four[1][i] = four[2][i] = four[3][i] = 0;
    if (get_global_id(0) == 0)
        for (int i = 0; i <= EQ_ALPHA; ++i)
            spare[i] = 0;
}

/* One RGBA row counted: a chunk's gray levels first (a loop the compiler
 * vectorizes), kept in lv (unless NULL), then the counting into four
 * interleaved sub-histograms: runs of equal levels (flat areas) would
 * otherwise wait on the previous increment of the same counter. Returns
 * the inverted alpha bits. */
inline uint eq_count_row(__global const uint *row, int w, __global uchar *lv, uint (*four)[256])
{
    uchar gray[EQ_CHUNK];
    uint transparent = 0;
    for (int x0 = 0; x0 < w; x0 += EQ_CHUNK) {
        const int len = min(EQ_CHUNK, w - x0);
        transparent |= eq_gray_words(row + x0, gray, len);
        if (lv)
            for (int x = 0; x < len; ++x)
                lv[x0 + x] = gray[x];
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
    return transparent;
}

/* This work-item's block of n rows, [*begin, *end): consecutive rows, one
 * stream for the prefetcher. */
inline void eq_block(int n, int *begin, int *end)
{
    const int per = (n + (int)get_global_size(0) - 1) / (int)get_global_size(0);
    *begin = (int)get_global_id(0) * per;
    *end = min(n, *begin + per);
}

/* A work-item's counts into the frame's histogram. */
inline void eq_merge(__global uint *hist, uint (*four)[256], uint transparent)
{
    for (int i = 0; i < 256; ++i) {
        const uint n = four[0][i] + four[1][i] + four[2][i] + four[3][i];
        if (n)
            atomic_add(&hist[i], n);
    }
    if (transparent)
        atomic_or(&hist[EQ_ALPHA], transparent);
}
#endif

/* GPU shape: four pixels into the group's histogram (and their levels into
 * the plane); returns their inverted alpha bits (and others). */
inline uint eq_count4(uint4 p, __local uint *mine, __global uchar *lv, int keep)
{
    const uchar4 g = (uchar4)(clv_gray(as_uchar4(p.x)), clv_gray(as_uchar4(p.y)),
                              clv_gray(as_uchar4(p.z)), clv_gray(as_uchar4(p.w)));
    if (keep)
        *(__global uchar4 *)lv = g;
    atomic_inc(&mine[g.x]);
    atomic_inc(&mine[g.y]);
    atomic_inc(&mine[g.z]);
    atomic_inc(&mine[g.w]);
    return ~(p.x & p.y & p.z & p.w);
}

/* hist: this frame's counters (zero at the start); spare: the other set,
 * which the previous frame's passes read and which the next frame counts
 * into: work-item or group 0 clears it here. levels: the gray plane
 * (rows of `stride` bytes), written when keep is set (mode=gray). */
__kernel void eq_hist(__global const uchar4 *src, int w, int h, int stride, __global uint *hist,
                      __global uint *spare, __global uchar *levels, int keep)
{
#if CLV_ROW && defined(__ENDIAN_LITTLE__)
    uint four[4][256];
    eq_clear(four, spare);
    uint transparent = 0;
    int y0, y_end;
    eq_block(h, &y0, &y_end);
    for (int y = y0; y < y_end; ++y)
        transparent |= eq_count_row((__global const uint *)(src + y * stride), w,
                                    keep ? levels + y * stride : (__global uchar *)0, four);
    eq_merge(hist, four, transparent);
#else
    __local uint mine[256], transparent;
    const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
    for (int i = lid; i < 256; i += lsize)
        mine[i] = 0;
    if (lid == 0)
        transparent = 0;
    if (get_group_id(0) == 0)
        for (int i = lid; i <= EQ_ALPHA; i += lsize)
            spare[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Four pixels a work-item in one 16-byte load (strides are multiples
     * of 16 pixels), two loads in flight before their counting; the row's
     * last few pixels one by one. */
    const int w4 = w & ~3, quads = w4 / 4;
    uint t = 0;
    for (int y = (int)get_group_id(0); y < h; y += (int)get_num_groups(0)) {
        __global const uint4 *row4 = (__global const uint4 *)(src + y * stride);
        __global uchar *lv = levels + y * stride;
        int q = lid;
        for (; q + lsize < quads; q += 2 * lsize) {
            const uint4 p0 = row4[q], p1 = row4[q + lsize];
            t |= eq_count4(p0, mine, lv + 4 * q, keep);
            t |= eq_count4(p1, mine, lv + 4 * (q + lsize), keep);
        }
        if (q < quads)
            t |= eq_count4(row4[q], mine, lv + 4 * q, keep);
        if (lid < w - w4) {
            const uchar4 p = src[y * stride + w4 + lid];
            const int g = clv_gray(p);
            if (keep)
                lv[w4 + lid] = (uchar)g;
            t |= ~as_uint(p);
            atomic_inc(&mine[g]);
        }
    }
    t &= 0xFF000000u;
    if (t)
        atomic_or(&transparent, t);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < 256; i += lsize)
        if (mine[i])
            atomic_add(&hist[i], mine[i]);
    if (lid == 0 && transparent)
        atomic_or(&hist[EQ_ALPHA], transparent);
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

#if CLV_ROW
/* CPUs only (GPUs make the LUT in each eq_apply group, and compiling this
 * took NVIDIA's compiler 1.1 s of a cold start): a table of the
 * LUT entries of two levels at once, pair[a + 256 b] = lut[a] + 256 lut[b],
 * so that eq_apply maps two pixels with one load (a byte lookup a pixel
 * was a third of the apply pass). Each of 8 work-items scans the
 * histogram itself and writes 32 rows of the table. */
__kernel void eq_lut(__global const uint *hist, __global ushort *pair, uint total)
{
    const int b0 = (int)get_global_id(0) * EQ_PAIR_ROWS;
    uint cdf[256], run = 0, cdf_min = 0;
    for (int i = 0; i < 256; ++i) {
        run += hist[i];
        cdf[i] = run;
        if (!cdf_min)
            cdf_min = run;
    }
    const float scale = cdf_min == total ? 0.0f : eq_scale(total - cdf_min);
    uchar lut[256];
    for (int i = 0; i < 256; ++i)
        lut[i] = eq_entry(i, cdf[i], cdf_min, total, scale);
    for (int b = b0; b < b0 + EQ_PAIR_ROWS; ++b) {
        const ushort high = (ushort)(lut[b] << 8);
        for (int a = 0; a < 256; ++a)
            pair[a + 256 * b] = high | lut[a];
    }
}
#endif

/* One pixel through the LUT (GPU shape, mode=luma): R, G and B each move
 * by lut[Y] - Y, which changes the luma to lut[Y] and keeps Cb and Cr. */
inline uchar4 eq_luma_pixel(uchar4 p, __local const uchar *l8)
{
    const int luma = clv_gray(p);
    const int d = l8[luma] - luma;
    return (uchar4)(convert_uchar_sat(p.x + d), convert_uchar_sat(p.y + d),
                    convert_uchar_sat(p.z + d), p.w);
}

#if CLV_ROW && defined(__ENDIAN_LITTLE__)
/* CPUs: one row through the pair table (eq_lut's). Whole pixels as 32-bit
 * words in chunks: the levels, their LUT entries two at a time, the output
 * words (vectorized loops). lv: the row's levels, which eq_hist kept (the
 * host has it keep them on CPUs in both modes: reading them back cost
 * less than working them out again); opaque: no alpha but 255 in the
 * frame. */
inline void eq_apply_row(__global const uint *restrict in, __global uint *restrict out,
                         __global const uchar *restrict lv, __global const ushort *restrict pair,
                         int gray_mode, int opaque, int w)
{
    /* plane rows start at even offsets (strides are multiples of 16) */
    __global const ushort *restrict plane = (__global const ushort *)lv;
    ushort mapped2[EQ_CHUNK / 2];
    uchar *mapped = (uchar *)mapped2;
    for (int x0 = 0; x0 < w; x0 += EQ_CHUNK) {
        const int len = min(EQ_CHUNK, w - x0), pairs = (len + 1) / 2;
        /* two levels at a time through the pair table; an odd width's
         * last pair takes one byte of the row's padding */
        for (int x = 0; x < pairs; ++x)
            mapped2[x] = pair[plane[x0 / 2 + x]];
        if (gray_mode) {
            if (opaque)
                for (int x = 0; x < len; ++x)
                    out[x0 + x] = 0xFF000000u | (uint)mapped[x] * 0x010101u;
            else
                for (int x = 0; x < len; ++x)
                    out[x0 + x] = (in[x0 + x] & 0xFF000000u) | (uint)mapped[x] * 0x010101u;
            continue;
        }
        for (int x = 0; x < len; ++x) {
            const uint p = in[x0 + x];
            const int d = (int)mapped[x] - (int)lv[x0 + x];
            out[x0 + x] = (p & 0xFF000000u) | (uint)clamp((int)(p & 255) + d, 0, 255) |
                          ((uint)clamp((int)((p >> 8) & 255) + d, 0, 255) << 8) |
                          ((uint)clamp((int)((p >> 16) & 255) + d, 0, 255) << 16);
        }
    }
}
#endif

/* mode=gray: R=G=B=lut[gray] from the level plane, alpha kept (read from
 * src only when some pixel is not opaque). mode=luma: see eq_luma_pixel.
 * CPUs map through pair (eq_lut's); GPUs make the LUT from hist. */
__kernel void eq_apply(CLV_FRAME_ARGS, __global const ushort *pair, int gray_mode,
                       __global const uint *hist, uint total, __global const uchar *levels)
{
    const int opaque = hist[EQ_ALPHA] == 0;
#if CLV_ROW && defined(__ENDIAN_LITTLE__)
    CLV_ROW_Y(y);
    eq_apply_row((__global const uint *)(src + y * stride), (__global uint *)(dst + y * stride),
                 levels + y * stride, pair, gray_mode, opaque, w);
#else
    /* GPUs: each group of 256 makes the LUT from the histogram itself, in
     * local memory (no LUT launch, and lookups with differing levels would
     * take turns in constant memory), then walks whole rows, four pixels a
     * work-item in 16-byte loads and stores. A few groups per compute unit
     * keep the scans' cost small. */
    __local uint a[256], b[256], lowest;
    __local uchar l8[256];
    const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
    /* The group's first quad is loaded before the scan: its latency
     * overlaps the scan's barriers. */
    const int quads = (w + 3) / 4, y0 = (int)get_group_id(0);
    int early = y0 < h && 4 * lid + 4 <= w;
    uint4 first = (uint4)0;
    if (early && gray_mode)
        first.x = *(__global const uint *)(levels + y0 * stride + 4 * lid);
    else if (early)
        first = *(__global const uint4 *)(src + y0 * stride + 4 * lid);
    l8[lid] = eq_lut_scan(hist, total, a, b, &lowest);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int y = y0; y < h; y += (int)get_num_groups(0)) {
        __global const uchar4 *in = src + y * stride;
        __global uchar4 *out = dst + y * stride;
        __global const uchar *lv = levels + y * stride;
        for (int q = lid; q < quads; q += lsize, early = 0) {
            const int x0 = 4 * q;
            if (x0 + 4 > w) {
                for (int x = x0; x < w; ++x) {
                    if (gray_mode) {
                        const uchar l = l8[lv[x]];
                        out[x] = (uchar4)(l, l, l, in[x].w);
                    } else {
                        out[x] = eq_luma_pixel(in[x], l8);
                    }
                }
            } else if (gray_mode) {
                const uchar4 g = as_uchar4(early ? first.x : *(__global const uint *)(lv + x0));
                const uint4 alpha =
                    opaque ? (uint4)0xFF000000u : *(__global const uint4 *)(in + x0) & 0xFF000000u;
                *(__global uint4 *)(out + x0) =
                    alpha | (uint4)(l8[g.x], l8[g.y], l8[g.z], l8[g.w]) * 0x010101u;
            } else {
                const uint4 p = early ? first : *(__global const uint4 *)(in + x0);
                *(__global uint4 *)(out + x0) = (uint4)(as_uint(eq_luma_pixel(as_uchar4(p.x), l8)),
                                                        as_uint(eq_luma_pixel(as_uchar4(p.y), l8)),
                                                        as_uint(eq_luma_pixel(as_uchar4(p.z), l8)),
                                                        as_uint(eq_luma_pixel(as_uchar4(p.w), l8)));
            }
        }
    }
#endif
}

#if CLV_ROW && defined(__ENDIAN_LITTLE__)
/* CPUs, inside the stage's conversions (src/filters/equalize.c run_yuv): a
 * one-filter chain between 4:2:0 frames, whose RGBA rows never leave the
 * cache. Each work-item has EQ_ROWS rows of the `rows` buffer (rows of
 * `stride` pixels): eq_hist_yuv converts each row of its block into its
 * first row and counts it; eq_lut as before; eq_apply_yuv converts the two
 * rows of each chroma row again, maps them (levels in its fifth row) and
 * converts them out. The same arithmetic as the separate kernels, so the
 * same bytes, without the 8 MB RGBA frames (at 1080p) written and read
 * three times: the output frame's stores were the apply pass's largest
 * cost (`perf annotate`). */
#define EQ_ROWS 5

/* BT.601 levels of an RGBA row. */
inline void eq_gray_row(__global const uint *restrict px, __global uchar *restrict lv, int w)
{
    for (int x = 0; x < w; ++x) {
        const uint p = px[x];
        lv[x] = (uchar)clv_gray3(p & 255, (p >> 8) & 255, (p >> 16) & 255);
    }
}

__kernel void eq_hist_yuv(__global const uchar *in, __global uchar4 *rows, int w, int h, int stride,
                          int nv12, __constant clv_yuv_coeffs *k, int yoff, int uoff, int voff,
                          int ys, int us, int vs, __global uint *hist, __global uint *spare)
{
    uint four[4][256];
    eq_clear(four, spare);
    uint transparent = 0;
    __global uchar4 *row = rows + (int)get_global_id(0) * EQ_ROWS * stride;
    int y0, y_end;
    eq_block(h, &y0, &y_end);
    for (int y = y0; y < y_end; ++y) {
        yuv420_rgba_row(in + yoff, in + uoff, in + voff, ys, us, vs, nv12, row, w, k, y);
        transparent |= eq_count_row((__global const uint *)row, w, (__global uchar *)0, four);
    }
    eq_merge(hist, four, transparent);
}

__kernel void eq_apply_yuv(__global const uchar *in, __global uchar4 *rows, int w, int h,
                           int stride, int nv12, __constant clv_yuv_coeffs *k, int yoff, int uoff,
                           int voff, int ys, int us, int vs, __global const ushort *pair,
                           int gray_mode, __global uchar *out, int out_nv12,
                           __constant clv_yuv_coeffs *out_k)
{
    __global uchar4 *mine = rows + (int)get_global_id(0) * EQ_ROWS * stride;
    __global uchar *lv = (__global uchar *)(mine + 4 * stride);
    int cy0, cy_end;
    eq_block((h + 1) / 2, &cy0, &cy_end);
    for (int cy = cy0; cy < cy_end; ++cy) {
        for (int i = 0; i < 2 && 2 * cy + i < h; ++i) {
            __global uchar4 *conv = mine + i * stride, *mapped = mine + (2 + i) * stride;
            yuv420_rgba_row(in + yoff, in + uoff, in + voff, ys, us, vs, nv12, conv, w, k,
                            2 * cy + i);
            eq_gray_row((__global const uint *)conv, lv, w);
            /* 4:2:0 has no alpha: every pixel is opaque */
            eq_apply_row((__global const uint *)conv, (__global uint *)mapped, lv, pair, gray_mode,
                         1, w);
        }
        yuv420_row(mine + 2 * stride, mine + 3 * stride, out, w, h, out_nv12, out_k, cy);
    }
}
#endif
