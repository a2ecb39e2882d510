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
 * nothing else.
 *
 * At 16 bits (CLV_DEPTH=16, the kernels after #else) the histogram has
 * all 65536 levels of gray16(p) and the map is rounded exactly in 64-bit
 * integers (equalize.c's make_lut): lut[v] = floor((2 * 65535 * (cdf(v) -
 * cdf_min) + D) / (2 D)), D = N - cdf_min. CPUs count into one histogram
 * per work-item (sub) and eq_lut adds them up; GPUs count with global
 * atomics (65536 counters do not fit in local memory), one per run of
 * equal levels in a work-item's four pixels; eq_lut makes the table on
 * every device, and eq_apply maps through it. mode=gray keeps the levels
 * (a ushort a pixel) for the apply pass, mode=luma works them out again;
 * hist[65536] is nonzero when some pixel's alpha is not 65535. */

#if CLV_DEPTH == 8
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
#else /* CLV_DEPTH == 16 */

#define EQ_LEVELS 65536
#define EQ_ALPHA 65536   /* hist[EQ_ALPHA]: nonzero when some alpha is not 65535 */
#define EQ_LUT_ITEMS 256 /* GPUs: eq_lut's one group, EQ_LEVELS / 256 levels each */
#define EQ_CHUNK 1024    /* CPUs: levels worked out a chunk at a time */
#define EQ_SPAN 16       /* GPUs: eq_hist's pixels a work-item */

#if CLV_ROW
/* CPUs walk pixels as 64-bit words (the loop vectorizer skips loops over
 * vector types, see cl/common.cl): channel c of word p. */
#ifdef __ENDIAN_LITTLE__
#define EQ_SHIFT(c) (16 * (c))
#else
#define EQ_SHIFT(c) (48 - 16 * (c))
#endif
#define EQ_CH(p, c) ((int)((p) >> EQ_SHIFT(c)) & 0xFFFF)
#define EQ_ALPHA_BITS (0xFFFFul << EQ_SHIFT(3))
/* The word of channels r, g, b (0-65535) and alpha 0. */
#define EQ_WORD(r, g, b)                                                                           \
    (((ulong)(r) << EQ_SHIFT(0)) | ((ulong)(g) << EQ_SHIFT(1)) | ((ulong)(b) << EQ_SHIFT(2)))

/* gray[x] = gray16 of word x of px (a loop the compiler vectorizes);
 * returns the AND of the words (alpha in EQ_ALPHA_BITS). */
inline ulong eq_gray_words(__global const ulong *restrict px, ushort *restrict gray, int len)
{
    ulong all = ~0ul;
    for (int x = 0; x < len; ++x) {
        const ulong p = px[x];
        gray[x] = (ushort)clv_gray3(EQ_CH(p, 0), EQ_CH(p, 1), EQ_CH(p, 2));
        all &= p;
    }
    return all;
}
#endif

/* hist: this frame's counters (zero at the start on GPUs, which count into
 * it; CPUs count into sub and eq_lut fills hist); spare: the other set,
 * which the next frame counts into: GPUs clear it here, each work-item a
 * few words. levels: gray16 of each pixel (rows of `stride` ushorts),
 * written when keep is set. sub (CPUs): EQ_LEVELS + 1 words per
 * work-item, its counts and its alpha flag. */
__kernel void eq_hist(__global const ushort4 *src, int w, int h, int stride, __global uint *hist,
                      __global uint *spare, __global ushort *levels, int keep, __global uint *sub)
{
#if CLV_ROW
    /* A private histogram of 256 KB each would not fit a work-item's
     * stack. A chunk's levels first, then their counting; a chunk of one
     * level (black bars, flat frames) is one addition, where counting
     * would wait on the previous increment of the same counter. */
    __global uint *restrict mine = sub + get_global_id(0) * (EQ_LEVELS + 1);
    for (int i = 0; i < EQ_LEVELS; ++i)
        mine[i] = 0;
    const int per = (h + (int)get_global_size(0) - 1) / (int)get_global_size(0);
    const int y0 = (int)get_global_id(0) * per, y_end = min(h, y0 + per);
    ushort gray[EQ_CHUNK];
    ulong all = ~0ul;
    for (int y = y0; y < y_end; ++y) {
        __global const ulong *restrict row = (__global const ulong *)(src + y * stride);
        for (int x0 = 0; x0 < w; x0 += EQ_CHUNK) {
            const int len = min(EQ_CHUNK, w - x0);
            all &= eq_gray_words(row + x0, gray, len);
            if (keep)
                for (int x = 0; x < len; ++x)
                    levels[y * stride + x0 + x] = gray[x];
            int lo = gray[0], hi = gray[0];
            for (int x = 1; x < len; ++x) {
                lo = min(lo, (int)gray[x]);
                hi = max(hi, (int)gray[x]);
            }
            if (lo == hi)
                mine[lo] += (uint)len;
            else
                for (int x = 0; x < len; ++x)
                    mine[gray[x]]++;
        }
    }
    mine[EQ_ALPHA] = (all & EQ_ALPHA_BITS) != EQ_ALPHA_BITS;
#else
    /* EQ_SPAN pixels of a row a work-item (the host launches the pixel
     * shape over a quarter of the width), a quad at a time in 32-byte
     * loads (strides are multiples of 16 pixels), the last few of a row
     * one by one. One atomic per run of a level: a flat area would
     * otherwise queue on one counter EQ_SPAN times as long. */
    __local uint transparent;
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * EQ_SPAN;
    const size_t items = get_global_size(0) * get_global_size(1);
    for (size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0); i <= EQ_ALPHA;
         i += items)
        spare[i] = 0;
    if (get_local_id(0) == 0 && get_local_id(1) == 0)
        transparent = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint opaque = 0xFFFF, level = 0, run = 0;
    for (int x = x0; y < h && x < min(x0 + EQ_SPAN, w); x += 4) {
        uint g[4];
        int n = 4;
        if (x + 4 <= w) {
            const ulong4 q = *(__global const ulong4 *)(src + y * stride + x);
            const ushort4 p0 = as_ushort4(q.x), p1 = as_ushort4(q.y), p2 = as_ushort4(q.z),
                          p3 = as_ushort4(q.w);
            g[0] = clv_gray(p0), g[1] = clv_gray(p1), g[2] = clv_gray(p2), g[3] = clv_gray(p3);
            if (keep)
                *(__global ushort4 *)(levels + y * stride + x) = (ushort4)(g[0], g[1], g[2], g[3]);
            opaque &= p0.w & p1.w & p2.w & p3.w;
        } else {
            n = w - x;
            for (int i = 0; i < n; ++i) {
                const ushort4 p = src[y * stride + x + i];
                g[i] = clv_gray(p);
                if (keep)
                    levels[y * stride + x + i] = (ushort)g[i];
                opaque &= p.w;
            }
        }
        for (int i = 0; i < n; ++i) {
            if (run && g[i] != level) {
                atomic_add(&hist[level], run);
                run = 0;
            }
            level = g[i];
            run++;
        }
    }
    if (run)
        atomic_add(&hist[level], run);
    if (opaque != 0xFFFF)
        atomic_or(&transparent, 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && get_local_id(1) == 0 && transparent)
        atomic_or(&hist[EQ_ALPHA], 1u);
#endif
}

/* lut[v] = floor((2 * 65535 * (cdf - cdf_min) + D) / (2 D)), D = total -
 * cdf_min: the exact quotient rounded half up, in 64 bits (2 * 65535 * N
 * passes 2^32). The float quotient (inv = 1 / (2 D)) is within one of it
 * (the numerator is below 2^49, the quotient at most 65535, their float
 * errors a few 2^-24 each), and exact 64-bit products correct it. A
 * constant frame is unchanged; levels of no pixel (n = 0) are never looked
 * up (0). */
inline ushort eq_entry(int v, uint n, uint cdf, uint cdf_min, uint total, float inv)
{
    if (cdf_min == total)
        return (ushort)v;
    if (n == 0)
        return 0;
    const ulong d = total - cdf_min, d2 = 2 * d, num = 131070ul * (cdf - cdf_min) + d;
    ulong q = convert_ulong((float)num * inv);
    while (q * d2 > num)
        --q;
    while ((q + 1) * d2 <= num)
        ++q;
    return (ushort)q;
}

inline float eq_inv(uint cdf_min, uint total)
{
    return cdf_min == total ? 0.0f : 1.0f / (float)(2ul * (total - cdf_min));
}

/* The table of the 65536 levels into lut (ushorts), from the frame's
 * histogram hist, which CPUs first make: the sum of the `subs`
 * work-items' histograms in sub (eq_hist's), with the OR of their alpha
 * flags. */
__kernel void eq_lut(__global uint *hist, __global ushort *lut, uint total,
                     __global const uint *sub, int subs)
{
#if CLV_ROW
    /* One work-item: the whole table is a few passes over 256 KB. */
    uint transparent = 0;
    for (int v = 0; v < EQ_LEVELS; ++v)
        hist[v] = sub[v];
    for (int k = 1; k < subs; ++k) {
        __global const uint *restrict other = sub + k * (EQ_LEVELS + 1);
        for (int v = 0; v < EQ_LEVELS; ++v)
            hist[v] += other[v];
    }
    for (int k = 0; k < subs; ++k)
        transparent |= sub[k * (EQ_LEVELS + 1) + EQ_ALPHA];
    hist[EQ_ALPHA] = transparent;
    int lowest = 0;
    while (!hist[lowest])
        lowest++;
    const uint cdf_min = hist[lowest];
    const float inv = eq_inv(cdf_min, total);
    uint cdf = 0;
    for (int v = 0; v < EQ_LEVELS; ++v) {
        const uint n = hist[v];
        cdf += n;
        lut[v] = eq_entry(v, n, cdf, cdf_min, total, inv);
    }
#else
    /* One group: work-item i sums its EQ_LEVELS / EQ_LUT_ITEMS levels, a
     * Hillis-Steele scan of the sums gives each its cdf before them, then
     * it walks its levels again. */
    __local uint a[EQ_LUT_ITEMS], b[EQ_LUT_ITEMS], lowest;
    const int i = (int)get_local_id(0), span = EQ_LEVELS / EQ_LUT_ITEMS, base = i * span;
    if (i == 0)
        lowest = EQ_LEVELS;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint sum = 0;
    int first = EQ_LEVELS;
    for (int k = 0; k < span; ++k) {
        const uint n = hist[base + k];
        if (n && first == EQ_LEVELS)
            first = base + k;
        sum += n;
    }
    if (first < EQ_LEVELS)
        atomic_min(&lowest, (uint)first);
    a[i] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint *in = a, *out = b;
    for (int off = 1; off < EQ_LUT_ITEMS; off <<= 1) {
        out[i] = in[i] + (i >= off ? in[i - off] : 0u);
        barrier(CLK_LOCAL_MEM_FENCE);
        __local uint *t = in;
        in = out;
        out = t;
    }
    const uint cdf_min = hist[lowest];
    const float inv = eq_inv(cdf_min, total);
    uint cdf = in[i] - sum;
    for (int k = 0; k < span; ++k) {
        const uint n = hist[base + k];
        cdf += n;
        lut[base + k] = eq_entry(base + k, n, cdf, cdf_min, total, inv);
    }
#endif
}

/* A pixel through the table: mode=gray R=G=B=lut[level] (alpha 65535 in
 * an opaque frame, else the pixel's); mode=luma R, G and B each move by
 * lut[Y] - Y (the luma becomes lut[Y], Cb and Cr are kept). */
inline ushort4 eq_gray_pixel(__global const ushort *lut, int level, ushort alpha)
{
    const ushort l = lut[level];
    return (ushort4)(l, l, l, alpha);
}

inline ushort4 eq_luma_pixel(ushort4 p, __global const ushort *lut)
{
    const int luma = clv_gray(p), d = lut[luma] - luma;
    return (ushort4)(convert_ushort_sat(p.x + d), convert_ushort_sat(p.y + d),
                     convert_ushort_sat(p.z + d), p.w);
}

/* lut: eq_lut's table; levels: eq_hist's (mode=gray); total unused. */
__kernel void eq_apply(CLV_FRAME_ARGS, __global const ushort *lut, int gray_mode,
                       __global const uint *hist, uint total, __global const ushort *levels)
{
    const int opaque = hist[EQ_ALPHA] == 0;
#if CLV_ROW
    /* Whole pixels as 64-bit words in chunks: the levels, their entries
     * (the lookups), the output words (vectorized loops). */
    CLV_ROW_Y(y);
    __global const ulong *restrict in = (__global const ulong *)(src + y * stride);
    __global ulong *restrict out = (__global ulong *)(dst + y * stride);
    __global const ushort *restrict lv = levels + y * stride;
    ushort gray[EQ_CHUNK], mapped[EQ_CHUNK];
    for (int x0 = 0; x0 < w; x0 += EQ_CHUNK) {
        const int len = min(EQ_CHUNK, w - x0);
        if (gray_mode) {
            for (int x = 0; x < len; ++x)
                mapped[x] = lut[lv[x0 + x]];
            if (opaque)
                for (int x = 0; x < len; ++x)
                    out[x0 + x] = EQ_ALPHA_BITS | EQ_WORD(mapped[x], mapped[x], mapped[x]);
            else
                for (int x = 0; x < len; ++x)
                    out[x0 + x] =
                        (in[x0 + x] & EQ_ALPHA_BITS) | EQ_WORD(mapped[x], mapped[x], mapped[x]);
            continue;
        }
        eq_gray_words(in + x0, gray, len);
        for (int x = 0; x < len; ++x)
            mapped[x] = lut[gray[x]];
        for (int x = 0; x < len; ++x) {
            const ulong p = in[x0 + x];
            const int d = (int)mapped[x] - (int)gray[x];
            out[x0 + x] = (p & EQ_ALPHA_BITS) | EQ_WORD(clamp(EQ_CH(p, 0) + d, 0, 0xFFFF),
                                                        clamp(EQ_CH(p, 1) + d, 0, 0xFFFF),
                                                        clamp(EQ_CH(p, 2) + d, 0, 0xFFFF));
        }
    }
#else
    /* Four pixels a work-item in 32-byte loads and stores; in mode=gray
     * the pixels are read only for a frame's alpha that is not all 65535. */
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
    if (y >= h || x0 >= w)
        return;
    __global const clv_px *in = src + y * stride;
    __global clv_px *out = dst + y * stride;
    __global const ushort *lv = levels + y * stride;
    if (x0 + 4 > w) {
        for (int x = x0; x < w; ++x)
            out[x] = gray_mode ? eq_gray_pixel(lut, lv[x], opaque ? 0xFFFF : in[x].w)
                               : eq_luma_pixel(in[x], lut);
        return;
    }
    ulong4 o;
    if (gray_mode) {
        const ushort4 g = *(__global const ushort4 *)(lv + x0);
        ushort4 alpha = (ushort4)0xFFFF;
        if (!opaque) {
            const ulong4 q = *(__global const ulong4 *)(in + x0);
            alpha = (ushort4)(as_ushort4(q.x).w, as_ushort4(q.y).w, as_ushort4(q.z).w,
                              as_ushort4(q.w).w);
        }
        o = (ulong4)(as_ulong(eq_gray_pixel(lut, g.x, alpha.x)),
                     as_ulong(eq_gray_pixel(lut, g.y, alpha.y)),
                     as_ulong(eq_gray_pixel(lut, g.z, alpha.z)),
                     as_ulong(eq_gray_pixel(lut, g.w, alpha.w)));
    } else {
        const ulong4 q = *(__global const ulong4 *)(in + x0);
        o = (ulong4)(as_ulong(eq_luma_pixel(as_ushort4(q.x), lut)),
                     as_ulong(eq_luma_pixel(as_ushort4(q.y), lut)),
                     as_ulong(eq_luma_pixel(as_ushort4(q.z), lut)),
                     as_ulong(eq_luma_pixel(as_ushort4(q.w), lut)));
    }
    *(__global ulong4 *)(out + x0) = o;
#endif
}
#endif /* CLV_DEPTH */
