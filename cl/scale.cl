/* scale.cl - ffmpeg's scale (src/filters/scale.c): swscale's per-plane
 * resampling, each RGBA channel a plane. The host builds the taps
 * (position and int16 coefficients per output column and per output row);
 * at 8 bits the pass across makes swscale's 15-bit intermediate,
 * min(sum >> 7, 32767) (and >= -32768, as its SIMD saturates); the pass
 * down rounds with its dither, (64 << 12 + sum) >> 19, clamped to 0..255.
 * At 16 bits (below, after the 8-bit kernels) the same taps make swscale's
 * 19-bit intermediate, min(sum >> 11, 2^19 - 1), and the pass down
 * (2^14 + sum) >> 15, clamped to 0..65535, both sums in 64 bits.
 * Both passes are the same integer arithmetic in every kernel of a depth, so
 * the kernels differ only in where the intermediate lives: a ring of rows per
 * band (CPUs, scale_rows), local memory per output tile (GPUs, scale_tile),
 * or a whole out_w x in_h frame of it when a tile's rows do not fit in
 * local memory (scale_across, then scale_down). */

#if CLV_DEPTH == 8

/* ---- Both passes in one kernel ------------------------------------------
 *
 * The across table for these kernels is laid out for pairwise multiply-adds:
 * for output column x and taps 4g..4g+3 (the across taps are a multiple of
 * four, swscale's x86 alignment), 16 shorts c0 c1 c0 c1 c0 c1 c0 c1 c2 c3 c2
 * c3 c2 c3 c2 c3, beside the 16 bytes of four pixels reordered r0 r1 g0 g1 b0
 * b1 a0 a1 r2 r3 ...: the products of neighbours summed make one int8 of the
 * four channels' partial sums (a pmaddwd where the compiler sees it). */
#define SCALE_PAIRS (uchar16)(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15)

/* 16 shorts at any even address: one vector move (PoCL makes byte and
 * short moves of vload16 and vstore16); clv_uchar16_u is the bytes' own. */
typedef short16 __attribute__((aligned(2))) scale_short16_u;

/* Output column x of input row `in`: the sum >> 7, saturated to a short. */
static short4 scale_across_px(__global const uchar *in, int w, int x, __global const int *pos,
                              __global const short *coef, int taps)
{
    const int p = pos[x];
    __global const short *c = coef + 4 * x * taps;
    int8 acc = (int8)(0);
    if (p + taps <= w) {
        for (int j = 0; j < taps; j += 4) {
            const int16 v = convert_int16(
                shuffle(*(__global const clv_uchar16_u *)(in + 4 * (p + j)), SCALE_PAIRS));
            const int16 prod = v * convert_int16(*(__global const scale_short16_u *)(c + 4 * j));
            acc += prod.even + prod.odd;
        }
    } else {
        /* Taps past the row's end (a row narrower than the filter) have
         * zero coefficients: read the last pixel instead of past the frame. */
        for (int j = 0; j < taps; j += 4) {
            const uchar16 px =
                (uchar16)(vload4(min(p + j, w - 1), in), vload4(min(p + j + 1, w - 1), in),
                          vload4(min(p + j + 2, w - 1), in), vload4(min(p + j + 3, w - 1), in));
            const int16 prod = convert_int16(shuffle(px, SCALE_PAIRS)) *
                               convert_int16(*(__global const scale_short16_u *)(c + 4 * j));
            acc += prod.even + prod.odd;
        }
    }
    return convert_short4_sat((acc.lo + acc.hi) >> 7);
}

#if defined(__AVX512BW__)
/* x86 with AVX-512BW (PoCL on such CPUs): the multiply-adds written as
 * vpmaddwd, as the generic code below does not become them (clang makes
 * 16 products of 32 bits and sums neighbours itself). 32 shorts, 32 bytes,
 * 64 bytes of memory at any address. */
typedef short scale_s16x32 __attribute__((ext_vector_type(32)));
typedef uchar scale_u8x32 __attribute__((ext_vector_type(32)));
typedef scale_s16x32 __attribute__((aligned(2))) scale_s16x32_u;
typedef scale_u8x32 __attribute__((aligned(1))) scale_u8x32_u;

/* Eight taps of one output pixel from eight pixels at in: the bytes in
 * SCALE_PAIRS order in each half, widened, times the pair table's 32
 * shorts: int16 of four (r, g, b, a) partial sums. */
static inline int16 scale_avx_across8(__global const uchar *in, __global const short *c)
{
    const scale_u8x32 b = *(__global const scale_u8x32_u *)in;
    const scale_u8x32 p =
        __builtin_shufflevector(b, b, 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 16, 20,
                                17, 21, 18, 22, 19, 23, 24, 28, 25, 29, 26, 30, 27, 31);
    return __builtin_ia32_pmaddwd512(__builtin_convertvector(p, scale_s16x32),
                                     *(__global const scale_s16x32_u *)c);
}

/* The same for four taps: int8 in the low half. */
static inline int16 scale_avx_across4(__global const uchar *in, __global const short *c)
{
    const short16 p = convert_short16(shuffle(*(__global const clv_uchar16_u *)in, SCALE_PAIRS));
    const int8 s = __builtin_ia32_pmaddwd256(p, *(__global const scale_short16_u *)c);
    return (int16)(s, (int8)(0));
}

/* One output pixel's sums (int16: four partial int4 sums), taps a multiple
 * of four, all read inside the row. */
static inline __attribute__((always_inline)) int16 scale_avx_px(__global const uchar *in, int p,
                                                                __global const short *c, int taps)
{
    int16 acc = (int16)(0);
    int j = 0;
    for (; j + 8 <= taps; j += 8)
        acc += scale_avx_across8(in + 4 * (p + j), c + 4 * j);
    if (j < taps)
        acc += scale_avx_across4(in + 4 * (p + j), c + 4 * j);
    return acc;
}
#endif

/* The pass across of one input row into out and out2 (4 * out_w shorts);
 * T > 0 is taps as a constant (the taps' loop unrolled), 0 any. */
static inline __attribute__((always_inline)) void
scale_rows_across_t(__global const uchar *in, int w, int out_w, __global const int *pos,
                    __global const short *coef, int taps, __global short *out, __global short *out2,
                    const int T)
{
    if (T > 0)
        taps = T;
    int x = 0;
#if defined(__AVX512BW__)
    /* Four pixels at a time while all their taps lie inside the row; the
     * four int16 of partial sums are added lane-wise in a transpose. */
    for (; x + 4 <= out_w && pos[x + 3] + taps <= w; x += 4) {
        __global const short *c = coef + 4 * x * taps;
        const int16 a = scale_avx_px(in, pos[x], c, taps);
        const int16 b = scale_avx_px(in, pos[x + 1], c + 4 * taps, taps);
        const int16 d = scale_avx_px(in, pos[x + 2], c + 8 * taps, taps);
        const int16 e = scale_avx_px(in, pos[x + 3], c + 12 * taps, taps);
        /* ab = (a0 + a1, a2 + a3, b0 + b1, b2 + b3) in int4 lanes */
        const int16 ab = __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24,
                                                 25, 26, 27) +
                         __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23,
                                                 28, 29, 30, 31);
        const int16 de = __builtin_shufflevector(d, e, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24,
                                                 25, 26, 27) +
                         __builtin_shufflevector(d, e, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23,
                                                 28, 29, 30, 31);
        const int16 sum = __builtin_shufflevector(ab, de, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19,
                                                  24, 25, 26, 27) +
                          __builtin_shufflevector(ab, de, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22,
                                                  23, 28, 29, 30, 31);
        const short16 v = convert_short16_sat(sum >> 7);
        *(__global scale_short16_u *)(out + 4 * x) = v;
        *(__global scale_short16_u *)(out2 + 4 * x) = v;
    }
#endif
    for (; x < out_w; x++) {
        const short4 v = scale_across_px(in, w, x, pos, coef, taps);
        *(__global short4 *)(out + 4 * x) = v;
        *(__global short4 *)(out2 + 4 * x) = v;
    }
}

/* The tap counts swscale's x86 alignment makes most often (bicubic and
 * lanczos shrinks and enlargements) each have their own unrolled copy. */
static void scale_rows_across(__global const uchar *in, int w, int out_w, __global const int *pos,
                              __global const short *coef, int taps, __global short *out,
                              __global short *out2)
{
    if (taps == 8)
        scale_rows_across_t(in, w, out_w, pos, coef, taps, out, out2, 8);
    else if (taps == 4)
        scale_rows_across_t(in, w, out_w, pos, coef, taps, out, out2, 4);
    else if (taps == 12)
        scale_rows_across_t(in, w, out_w, pos, coef, taps, out, out2, 12);
    else if (taps == 16)
        scale_rows_across_t(in, w, out_w, pos, coef, taps, out, out2, 16);
    else
        scale_rows_across_t(in, w, out_w, pos, coef, taps, out, out2, 0);
}

/* The pass down of one output row: n values from taps consecutive ring
 * rows n apart from first, coefficients c; T as in scale_rows_across_t. */
static inline __attribute__((always_inline)) void scale_rows_down_t(__global const short *first,
                                                                    int n, __global const short *c,
                                                                    int taps, __global uchar *out,
                                                                    const int T)
{
    if (T > 0)
        taps = T;
    int k = 0;
#if defined(__AVX512BW__)
    /* 32 values at a time, two taps per vpmaddwd: the rows' values
     * interleaved in pairs (within 128-bit lanes, as vpunpck does), the
     * pair of coefficients in every 32-bit lane; the packs undo the
     * interleave. */
    for (; k + 32 <= n; k += 32) {
        int16 lo = (int16)(64 << 12), hi = (int16)(64 << 12);
        int j = 0;
        for (; j < taps; j += 2) {
            const scale_s16x32 a = *(__global const scale_s16x32_u *)(first + j * n + k);
            const scale_s16x32 b = j + 1 < taps
                                       ? *(__global const scale_s16x32_u *)(first + (j + 1) * n + k)
                                       : (scale_s16x32)(0);
            const int cc = (int)(ushort)c[j] | (j + 1 < taps ? (int)c[j + 1] << 16 : 0);
            const scale_s16x32 k2 = __builtin_astype((int16)(cc), scale_s16x32);
            lo += __builtin_ia32_pmaddwd512(
                __builtin_shufflevector(a, b, 0, 32, 1, 33, 2, 34, 3, 35, 8, 40, 9, 41, 10, 42, 11,
                                        43, 16, 48, 17, 49, 18, 50, 19, 51, 24, 56, 25, 57, 26, 58,
                                        27, 59),
                k2);
            hi += __builtin_ia32_pmaddwd512(
                __builtin_shufflevector(a, b, 4, 36, 5, 37, 6, 38, 7, 39, 12, 44, 13, 45, 14, 46,
                                        15, 47, 20, 52, 21, 53, 22, 54, 23, 55, 28, 60, 29, 61, 30,
                                        62, 31, 63),
                k2);
        }
        const scale_s16x32 wds = __builtin_ia32_packssdw512(lo >> 19, hi >> 19);
        const short16 w0 = wds.lo, w1 = wds.hi;
        *(__global clv_uchar16_u *)(out + k) = convert_uchar16_sat(w0);
        *(__global clv_uchar16_u *)(out + k + 16) = convert_uchar16_sat(w1);
    }
#endif
    for (; k + 16 <= n; k += 16) {
        int16 acc = (int16)(64 << 12);
        for (int j = 0; j < taps; j++)
            acc +=
                convert_int16(*(__global const scale_short16_u *)(first + j * n + k)) * (int)c[j];
        *(__global clv_uchar16_u *)(out + k) = convert_uchar16_sat(acc >> 19);
    }
    for (; k < n; k++) {
        int acc = 64 << 12;
        for (int j = 0; j < taps; j++)
            acc += first[j * n + k] * c[j];
        out[k] = (uchar)clamp(acc >> 19, 0, 255);
    }
}

/* The same for the pass down (taps rounded to two). */
static void scale_rows_down(__global const short *first, int n, __global const short *c, int taps,
                            __global uchar *out)
{
    if (taps == 8)
        scale_rows_down_t(first, n, c, taps, out, 8);
    else if (taps == 4)
        scale_rows_down_t(first, n, c, taps, out, 4);
    else if (taps == 6)
        scale_rows_down_t(first, n, c, taps, out, 6);
    else
        scale_rows_down_t(first, n, c, taps, out, 0);
}

/* The row shape: a work-item makes a band of `band` output rows, keeping the
 * pass across's rows it needs in a ring of `ring` (>= down_taps) rows of its
 * own in `scratch` (out_w short4 each, every row twice: 2 * ring slots): each input row is made
 * once per band while it is in the cache, and the intermediate never goes to memory. */
__kernel void scale_rows(__global const uchar4 *src, __global uchar4 *dst, int w, int h, int stride,
                         int out_w, int out_h, int out_stride, __global const int *across_pos,
                         __global const short *across_coef, int across_taps,
                         __global const int *down_pos, __global const short *down_coef,
                         int down_taps, __global short *scratch, int band, int ring)
{
    const int y0 = (int)get_global_id(0) * band;
    const int y1 = min(y0 + band, out_h);
    __global short *mid = scratch + (size_t)get_global_id(0) * 2 * ring * out_w * 4;
    int lo = 0, hi = 0; /* the ring holds input rows lo .. hi - 1 */
    const int n = 4 * out_w;
    for (int y = y0; y < y1; y++) {
        const int p = down_pos[y];
        if (p < lo || p > hi)
            lo = hi = p;
        for (int r = hi; r < p + down_taps; r++) {
            /* Row r goes to slots r % ring and r % ring + ring: any taps
             * consecutive rows are then consecutive slots. */
            __global const uchar *in = (__global const uchar *)(src + min(r, h - 1) * stride);
            __global short *out = mid + (r % ring) * n;
            scale_rows_across(in, w, out_w, across_pos, across_coef, across_taps, out,
                              out + ring * n);
        }
        hi = p + down_taps;
        lo = max(lo, hi - ring);

        scale_rows_down(mid + (p % ring) * n, n, down_coef + y * down_taps, down_taps,
                        (__global uchar *)(dst + y * out_stride));
    }
}

/* The GPU shape: one work-group makes an output tile of SCALE_TILE_W
 * columns (its local width) and `tile_h` rows. It runs the pass across for
 * the input rows the tile needs (at most `rows`) into local memory, then
 * the pass down from there: the intermediate never leaves the chip, each
 * input pixel is read from memory about once, neighbouring work-items read
 * and write neighbouring pixels. Local size SCALE_TILE_W x SCALE_TILE_Y. */
#define SCALE_TILE_W 64
#define SCALE_TILE_Y 4
#if CLV_NV_SM >= 61
/* PTX dp2a: c + the two 16-bit lanes of k times bytes 0 and 1 (lo) or 2
 * and 3 (hi) of b, signed coefficients, unsigned bytes: two taps of one
 * channel in one instruction, the same integers as the multiply-adds. */
inline int scale_dp2a_lo(uint k, uint b, int c)
{
    int d;
    asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(k), "r"(b), "r"(c));
    return d;
}
inline int scale_dp2a_hi(uint k, uint b, int c)
{
    int d;
    asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(k), "r"(b), "r"(c));
    return d;
}
#endif

/* The tile's body for T taps across (T > 0: a constant, the column's
 * coefficients held in registers and the taps unrolled; 0: any number,
 * read from the table). */
static inline void scale_tile_body(__global const uchar4 *src, __global uchar4 *dst, int w, int h,
                                   int stride, int out_w, int out_h, int out_stride,
                                   __global const int *across_pos,
                                   __global const short *across_coef, int across_taps,
                                   __global const int *down_pos, __global const short *down_coef,
                                   int down_taps, __local short4 *mid, int tile_h, const int T)
{
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int tx0 = (int)get_group_id(0) * SCALE_TILE_W;
    const int ty0 = (int)get_group_id(1) * tile_h;
    const int ty1 = min(ty0 + tile_h, out_h);
    const int r0 = down_pos[ty0];
    const int rows = down_pos[ty1 - 1] + down_taps - r0;

    /* Across: work-item (lx, ly) makes column tx0 + lx of every
     * SCALE_TILE_Y-th row. Columns past out_w are left unmade (unused). */
    const int x = tx0 + lx;
    if (x < out_w) {
        const int p = across_pos[x];
        __global const short *c = across_coef + x * across_taps;
        if (T > 0) {
            int k[16];
            for (int j = 0; j < T; j++)
                k[j] = c[j];
            const int inside = p + T <= w;
#if CLV_NV_SM >= 61
            /* Taps in pairs: each pair's coefficients packed in a word,
             * the two pixels' bytes regrouped r r g g and b b a a. */
            uint kk[8];
            for (int j = 0; j < T; j += 2)
                kk[j / 2] = (uint)(ushort)k[j] | (uint)(ushort)k[j + 1] << 16;
            for (int r = ly; r < rows; r += SCALE_TILE_Y) {
                __global const uchar4 *in = src + min(r0 + r, h - 1) * stride;
                int sr = 0, sg = 0, sb = 0, sa = 0;
                for (int j = 0; j < T; j += 2) {
                    const uint p0 = as_uint(in[inside ? p + j : min(p + j, w - 1)]);
                    const uint p1 = as_uint(in[inside ? p + j + 1 : min(p + j + 1, w - 1)]);
                    const uint rg = clv_prmt(p0, p1, 0x5140), ba = clv_prmt(p0, p1, 0x7362);
                    sr = scale_dp2a_lo(kk[j / 2], rg, sr);
                    sg = scale_dp2a_hi(kk[j / 2], rg, sg);
                    sb = scale_dp2a_lo(kk[j / 2], ba, sb);
                    sa = scale_dp2a_hi(kk[j / 2], ba, sa);
                }
                mid[r * SCALE_TILE_W + lx] = convert_short4_sat((int4)(sr, sg, sb, sa) >> 7);
            }
#else
            for (int r = ly; r < rows; r += SCALE_TILE_Y) {
                __global const uchar4 *in = src + min(r0 + r, h - 1) * stride;
                int4 sum = (int4)(0);
                if (inside)
                    for (int j = 0; j < T; j++)
                        sum += convert_int4(in[p + j]) * k[j];
                else
                    for (int j = 0; j < T; j++)
                        sum += convert_int4(in[min(p + j, w - 1)]) * k[j];
                mid[r * SCALE_TILE_W + lx] = convert_short4_sat(sum >> 7);
            }
#endif
        } else {
            for (int r = ly; r < rows; r += SCALE_TILE_Y) {
                __global const uchar4 *in = src + min(r0 + r, h - 1) * stride;
                int4 sum = (int4)(0);
                for (int j = 0; j < across_taps; j++)
                    sum += convert_int4(in[min(p + j, w - 1)]) * (int)c[j];
                mid[r * SCALE_TILE_W + lx] = convert_short4_sat(sum >> 7);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Down: the same column, every SCALE_TILE_Y-th output row of the tile. */
    if (x >= out_w)
        return;
    for (int y = ty0 + ly; y < ty1; y += SCALE_TILE_Y) {
        __local const short4 *m = mid + (down_pos[y] - r0) * SCALE_TILE_W + lx;
        __global const short *c = down_coef + y * down_taps;
        int4 sum = (int4)(64 << 12);
        for (int j = 0; j < down_taps; j++)
            sum += convert_int4(m[j * SCALE_TILE_W]) * (int)c[j];
        dst[y * out_stride + x] = convert_uchar4_sat(sum >> 19);
    }
}

#define SCALE_TILE_ARGS                                                                            \
    __global const uchar4 *src, __global uchar4 *dst, int w, int h, int stride, int out_w,        \
        int out_h, int out_stride, __global const int *across_pos,                                \
        __global const short *across_coef, int across_taps, __global const int *down_pos,         \
        __global const short *down_coef, int down_taps, __local short4 *mid, int tile_h
#define SCALE_TILE_CALL(T)                                                                         \
    scale_tile_body(src, dst, w, h, stride, out_w, out_h, out_stride, across_pos, across_coef,    \
                    across_taps, down_pos, down_coef, down_taps, mid, tile_h, T)

/* Any number of taps across, and 4, 8, 12 or 16 (swscale's x86 alignment
 * makes the taps across a multiple of four). */
__kernel void scale_tile(SCALE_TILE_ARGS)
{
    SCALE_TILE_CALL(0);
}
__kernel void scale_tile4(SCALE_TILE_ARGS)
{
    SCALE_TILE_CALL(4);
}
__kernel void scale_tile8(SCALE_TILE_ARGS)
{
    SCALE_TILE_CALL(8);
}
__kernel void scale_tile12(SCALE_TILE_ARGS)
{
    SCALE_TILE_CALL(12);
}
__kernel void scale_tile16(SCALE_TILE_ARGS)
{
    SCALE_TILE_CALL(16);
}

/* The GPU shape when a tile's input rows do not fit in local memory (very
 * large shrinks): the pass across over the whole frame into mid, out_w x
 * in_h short4, plain table (coef[x * taps + j]). */
__kernel void scale_across(__global const uchar4 *src, __global short4 *mid, int w, int h,
                           int stride, int out_w, __global const int *pos,
                           __global const short *coef, int taps)
{
    const int y = (int)get_global_id(1);
    const int x0 = (int)get_global_id(0) * CLV_PX;
    if (y >= h)
        return;
    __global const uchar4 *in = src + y * stride;
    for (int i = 0; i < CLV_PX; i++) {
        const int x = x0 + i;
        if (x >= out_w)
            return;
        const int p = pos[x];
        __global const short *c = coef + x * taps;
        int4 sum = (int4)(0);
        for (int j = 0; j < taps; j++)
            sum += convert_int4(in[min(p + j, w - 1)]) * (int)c[j];
        mid[y * out_w + x] = convert_short4_sat(sum >> 7);
    }
}

/* Then the pass down: output row y reads `taps` rows of mid from pos[y] on
 * (rows past the frame have zero coefficients and are not read). */
__kernel void scale_down(__global const short4 *mid, __global uchar4 *dst, int h, int out_w,
                         int out_h, int out_stride, __global const int *pos,
                         __global const short *coef, int taps)
{
    const int y = (int)get_global_id(1);
    const int x0 = (int)get_global_id(0) * CLV_PX;
    if (y >= out_h)
        return;
    __global const short *c = coef + y * taps;
    for (int x = x0; x < min(x0 + CLV_PX, out_w); x++) {
        int4 sum = (int4)(64 << 12);
        for (int j = 0; j < taps; j++)
            sum += convert_int4(mid[min(pos[y] + j, h - 1) * out_w + x]) * (int)c[j];
        dst[y * out_stride + x] = convert_uchar4_sat(sum >> 19);
    }
}

#else /* CLV_DEPTH == 16 */

/* ---- 16 bits --------------------------------------------------------------
 *
 * The same kernels, plainly: the 8-bit ones' byte tricks (pair tables,
 * dp2a, vpmaddwd) have no 16-bit counterpart, and both sums need 64 bits
 * (a 16-bit sample times a 14-bit coefficient is 30 bits before the taps
 * add up; a 19-bit value times a 12-bit one is 31). The tables are plain:
 * coef[x * taps + j] across, coef[y * taps + j] down. */

#define SCALE_MID_MAX ((1 << 19) - 1)

/* Output column of the taps at p (coefficients c) of input row `in`:
 * hScale16To19's value, min(sum >> 11, 2^19 - 1) (and >= -2^31, which no
 * filter reaches: it keeps the value an int). T > 0: taps as a constant. */
static inline __attribute__((always_inline)) int4
scale_across16(__global const ushort4 *in, int w, int p, __global const short *c, int taps,
               const int T)
{
    if (T > 0)
        taps = T;
    long4 sum = (long4)(0);
    if (p + taps <= w)
        for (int j = 0; j < taps; j++)
            sum += convert_long4(convert_int4(in[p + j]) * (int)c[j]);
    else
        /* Taps past the row's end (a row narrower than the filter) have
         * zero coefficients: read the last pixel instead of past the frame. */
        for (int j = 0; j < taps; j++)
            sum += convert_long4(convert_int4(in[min(p + j, w - 1)]) * (int)c[j]);
    return convert_int4(clamp(sum >> 11, (long4)(INT_MIN), (long4)(SCALE_MID_MAX)));
}

/* yuv2planeX_16's rounding of the pass down's sum. */
static inline ushort4 scale_down16(long4 sum)
{
    return convert_ushort4_sat((sum + (1 << 14)) >> 15);
}

/* The row shape: as at 8 bits, a work-item makes a band of `band` output
 * rows, the pass across's rows in a ring of `ring` rows of its own in
 * `scratch` (out_w int4 each, every row twice: slots r % ring and
 * r % ring + ring, so any taps consecutive rows are consecutive slots). */
__kernel void scale_rows(__global const ushort4 *src, __global ushort4 *dst, int w, int h,
                         int stride, int out_w, int out_h, int out_stride,
                         __global const int *across_pos, __global const short *across_coef,
                         int across_taps, __global const int *down_pos,
                         __global const short *down_coef, int down_taps, __global int4 *scratch,
                         int band, int ring)
{
    const int y0 = (int)get_global_id(0) * band;
    const int y1 = min(y0 + band, out_h);
    __global int4 *mid = scratch + (size_t)get_global_id(0) * 2 * ring * out_w;
    int lo = 0, hi = 0; /* the ring holds input rows lo .. hi - 1 */
    for (int y = y0; y < y1; y++) {
        const int p = down_pos[y];
        if (p < lo || p > hi)
            lo = hi = p;
        for (int r = hi; r < p + down_taps; r++) {
            __global const ushort4 *in = src + min(r, h - 1) * stride;
            __global int4 *out = mid + (r % ring) * out_w;
            for (int x = 0; x < out_w; x++) {
                const int4 v = scale_across16(in, w, across_pos[x],
                                              across_coef + x * across_taps, across_taps, 0);
                out[x] = v;
                out[x + ring * out_w] = v;
            }
        }
        hi = p + down_taps;
        lo = max(lo, hi - ring);

        __global const int4 *first = mid + (p % ring) * out_w;
        __global const short *c = down_coef + y * down_taps;
        __global ushort4 *out = dst + y * out_stride;
        for (int x = 0; x < out_w; x++) {
            long4 sum = (long4)(0);
            for (int j = 0; j < down_taps; j++)
                sum += convert_long4(first[j * out_w + x]) * (long)c[j];
            out[x] = scale_down16(sum);
        }
    }
}

/* The GPU shape: a work-group makes an output tile of SCALE_TILE_W columns
 * and `tile_h` rows, the pass across for the tile's input rows into local
 * memory (int4), then the pass down from there; neighbouring work-items
 * read and write neighbouring pixels. Local size SCALE_TILE_W x
 * SCALE_TILE_Y. T as in scale_across16. */
#define SCALE_TILE_W 64
#define SCALE_TILE_Y 4

static inline void scale_tile_body(__global const ushort4 *src, __global ushort4 *dst, int w, int h,
                                   int stride, int out_w, int out_h, int out_stride,
                                   __global const int *across_pos,
                                   __global const short *across_coef, int across_taps,
                                   __global const int *down_pos, __global const short *down_coef,
                                   int down_taps, __local int4 *mid, int tile_h, const int T)
{
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int tx0 = (int)get_group_id(0) * SCALE_TILE_W;
    const int ty0 = (int)get_group_id(1) * tile_h;
    const int ty1 = min(ty0 + tile_h, out_h);
    const int r0 = down_pos[ty0];
    const int rows = down_pos[ty1 - 1] + down_taps - r0;

    /* Across: work-item (lx, ly) makes column tx0 + lx of every
     * SCALE_TILE_Y-th row. Columns past out_w are left unmade (unused). */
    const int x = tx0 + lx;
    if (x < out_w) {
        const int p = across_pos[x];
        __global const short *c = across_coef + x * across_taps;
        for (int r = ly; r < rows; r += SCALE_TILE_Y)
            mid[r * SCALE_TILE_W + lx] =
                scale_across16(src + min(r0 + r, h - 1) * stride, w, p, c, across_taps, T);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Down: the same column, every SCALE_TILE_Y-th output row of the tile. */
    if (x >= out_w)
        return;
    for (int y = ty0 + ly; y < ty1; y += SCALE_TILE_Y) {
        __local const int4 *m = mid + (down_pos[y] - r0) * SCALE_TILE_W + lx;
        __global const short *c = down_coef + y * down_taps;
        long4 sum = (long4)(0);
        for (int j = 0; j < down_taps; j++)
            sum += convert_long4(m[j * SCALE_TILE_W]) * (long)c[j];
        dst[y * out_stride + x] = scale_down16(sum);
    }
}

#define SCALE_TILE_ARGS                                                                            \
    __global const ushort4 *src, __global ushort4 *dst, int w, int h, int stride, int out_w,      \
        int out_h, int out_stride, __global const int *across_pos,                                \
        __global const short *across_coef, int across_taps, __global const int *down_pos,         \
        __global const short *down_coef, int down_taps, __local int4 *mid, int tile_h
#define SCALE_TILE_CALL(T)                                                                         \
    scale_tile_body(src, dst, w, h, stride, out_w, out_h, out_stride, across_pos, across_coef,    \
                    across_taps, down_pos, down_coef, down_taps, mid, tile_h, T)

__kernel void scale_tile(SCALE_TILE_ARGS)
{
    SCALE_TILE_CALL(0);
}
__kernel void scale_tile4(SCALE_TILE_ARGS)
{
    SCALE_TILE_CALL(4);
}
__kernel void scale_tile8(SCALE_TILE_ARGS)
{
    SCALE_TILE_CALL(8);
}
__kernel void scale_tile12(SCALE_TILE_ARGS)
{
    SCALE_TILE_CALL(12);
}
__kernel void scale_tile16(SCALE_TILE_ARGS)
{
    SCALE_TILE_CALL(16);
}

/* The GPU shape when a tile's rows do not fit in local memory: the pass
 * across over the whole frame into mid (out_w x in_h int4), then the pass
 * down. */
__kernel void scale_across(__global const ushort4 *src, __global int4 *mid, int w, int h,
                           int stride, int out_w, __global const int *pos,
                           __global const short *coef, int taps)
{
    CLV_PIXEL_LOOP(out_w, h, x, y)
    mid[y * out_w + x] = scale_across16(src + y * stride, w, pos[x], coef + x * taps, taps, 0);
}

__kernel void scale_down(__global const int4 *mid, __global ushort4 *dst, int h, int out_w,
                         int out_h, int out_stride, __global const int *pos,
                         __global const short *coef, int taps)
{
    CLV_PIXEL_LOOP(out_w, out_h, x, y)
    {
        __global const short *c = coef + y * taps;
        long4 sum = (long4)(0);
        for (int j = 0; j < taps; j++)
            sum += convert_long4(mid[min(pos[y] + j, h - 1) * out_w + x]) * (long)c[j];
        dst[y * out_stride + x] = scale_down16(sum);
    }
}

#endif /* CLV_DEPTH */

/* The same size in and out: vf_scale makes no scaler, the frame passes. */
__kernel void scale_copy(__global const clv_px *src, __global clv_px *dst, int w, int h, int stride,
                         int out_stride)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * out_stride + x] = src[y * stride + x];
}
