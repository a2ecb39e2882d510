/* blur.cl - the separable blurs (src/filters/blur.c): gblur and unsharp as
 * one weighted pass down the columns and one along the rows (the "sep"
 * kernels), boxblur and avgblur as box sums kept by running sums (the
 * "box" kernels), clamp-to-edge throughout, in integers only.
 *
 * sep: per channel, T = (sum_j wv[|j|] * p[x][clamp(y + j)] + vround) >> vshift,
 * blur = (sum_i wh[|i|] * T[clamp(x + i)] + fround) >> fshift, and the
 * output v + floor((v - blur) * amount / 65536) clamped to the depth's range
 * (ffmpeg's unsharp; amount -65536 gives the blur itself: gblur).
 * box: per channel, S = the sum of the (2rx+1) x (2ry+1) window, output
 * floor((S + n/2) / n) with n the window's size.
 * Either: channel c takes its result where bit c of mask is set, else its
 * input. Sums are 32-bit at 8 bits; at 16 bits the sep sums are 64-bit
 * (gblur's on CPUs: 32-bit halves, sep_row_narrow16), and the box sums
 * where 65535 * n would pass 32 bits (`wide`).
 *
 * CPUs: one kernel per pass, a band of rows a work-item, each row summed
 * down its columns into the band's own stretch of `work` (which stays in
 * the cache) and then along it, 16 (gblur on AVX-512BW: 64) channel values
 * a step. GPUs: one kernel a pass where its tile fits local memory (sep_tile
 * at 8 bits and for narrow passes at 16; box_small and box_strip at 8 bits
 * for reaches up to 59 across, box_tile at 16 bits for reaches up to 32):
 * the frame read once and written once. Longer reaches where the box sums
 * fit 32 bits: box_cols down the columns into a frame of sums (`work`),
 * then box_across along the rows (prefix sums of row tiles in local
 * memory). Otherwise the column pass and the row pass are two kernels
 * through a frame of sums, four pixels a work-item, neighbouring
 * work-items on neighbouring pixels. */

#if CLV_DEPTH == 16
#define BLUR_ACC ulong
#define BLUR_SACC long
#else
#define BLUR_ACC uint
#define BLUR_SACC int
#endif
#define BLUR_V(t, n) BLUR_V_(t, n)
#define BLUR_V_(t, n) t##n
#define BLUR_CONVERT(t, n) BLUR_CONVERT_(t, n)
#define BLUR_CONVERT_(t, n) convert_##t##n
#define BLUR_ACC4 BLUR_V(BLUR_ACC, 4)
#define BLUR_ACC16 BLUR_V(BLUR_ACC, 16)
#define BLUR_SACC4 BLUR_V(BLUR_SACC, 4)
#define BLUR_SACC16 BLUR_V(BLUR_SACC, 16)

/* v + floor((v - blur) * amount / 2^16) in the depth's range, or blur
 * itself for amount -2^16 (where the formula gives it too): at 8 bits the
 * product fits an int (255 * 5 * 2^16), at 16 bits a long. */
#define BLUR_FINISH(v, blur, amount)                                                               \
    ((amount) == -65536                                                                            \
         ? (blur)                                                                                  \
         : clamp((v) + ((((v) - (blur)) * (amount)) >> 16), (BLUR_SACC)0, (BLUR_SACC)CLV_MAXV))

/* Channel c's lane of a mask (0 or -1) from bit c of mask. */
#define BLUR_LANE(mask, c) (((mask) >> (c)&1) ? -1 : 0)

/* Division of the box sums by n (>= 2) in 32 bits, exact for every a:
 * t = mul_hi(a, m), q = (t + ((a - t) >> 1)) >> (l - 1), with l =
 * ceil(log2 n) and m = floor(2^32 * (2^l - n) / n) + 1 (Granlund and
 * Montgomery's round-up method; the host computes m and l). */
inline uint blur_div(uint a, uint n, uint m, int l)
{
    const uint t = mul_hi(a, m);
    return n == 1 ? a : (t + ((a - t) >> 1)) >> (l - 1);
}
inline uint4 blur_div4(uint4 a, uint n, uint m, int l)
{
    const uint4 t = mul_hi(a, (uint4)m);
    return n == 1 ? a : (t + ((a - t) >> 1)) >> (uint)(l - 1);
}
#if CLV_ROW
inline uint16 blur_div16(uint16 a, uint n, uint m, int l)
{
    /* mul_hi as two 32 x 32 -> 64-bit multiplies of the even and the odd
     * lanes (x86's vpmuludq; LLVM made mul_hi of uint16 eight vpmulld). */
    const ulong8 q = as_ulong8(a);
    const ulong8 even = (q & 0xffffffffUL) * (ulong)m, odd = (q >> 32) * (ulong)m;
    const uint16 t = as_uint16((even >> 32) | (odd & 0xffffffff00000000UL));
    return n == 1 ? a : (t + ((a - t) >> 1)) >> (uint)(l - 1);
}
#endif

#if CLV_ROW
/* Unaligned 16-lane loads and stores of channel values and of sums. */
#if CLV_DEPTH == 16
typedef ushort16 __attribute__((aligned(2))) blur_ch16_u;
typedef ulong16 __attribute__((aligned(8))) blur_acc16_u;
#else
typedef uchar16 __attribute__((aligned(1))) blur_ch16_u;
typedef uint16 __attribute__((aligned(4))) blur_acc16_u;
#endif
typedef uint16 __attribute__((aligned(4))) blur_uint16_u;
#define BLUR_CH16(p) (*(__global const blur_ch16_u *)(p))
#define BLUR_SUM16(p) (*(__global const blur_acc16_u *)(p))

/* The 16 lanes of 4 pixels' channels: mask lanes, as the store wants them. */
#define BLUR_MASK16(mask)                                                                          \
    (BLUR_SACC16)(BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3),  \
                  BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3),  \
                  BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3),  \
                  BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3))

#define BLUR_ROW(buf, y) ((__global const clv_ch *)((buf) + (y)*stride))

#if CLV_DEPTH == 8 && defined(__AVX512BW__)
/* gblur's pass at 8 bits on x86 with AVX-512BW (PoCL on such CPUs), when
 * the host says the weights and the column sums fit 16 bits (`narrow`: the
 * weights at most 2^14, T = (V + 128) >> 8 below 2^14, so that two of them
 * add up within a short): two taps a vpmaddwd, 32 channel values a step,
 * the same sums as the generic code (which does not become vpmaddwd). The
 * column sums are kept as shorts.
 * BLUR_LO and BLUR_HI interleave two vectors within each 128-bit lane as
 * vpunpcklwd and vpunpckhwd do, so the products come out in an order that
 * vpackssdw puts back. */
typedef short blur_s16x32 __attribute__((ext_vector_type(32)));
typedef uchar blur_u8x32 __attribute__((ext_vector_type(32)));
typedef blur_s16x32 __attribute__((aligned(2))) blur_s16x32_u;
typedef blur_u8x32 __attribute__((aligned(1))) blur_u8x32_u;
#define BLUR_S16(p) __builtin_convertvector(*(__global const blur_u8x32_u *)(p), blur_s16x32)
#define BLUR_LO(x, z)                                                                              \
    __builtin_shufflevector(x, z, 0, 32, 1, 33, 2, 34, 3, 35, 8, 40, 9, 41, 10, 42, 11, 43, 16,    \
                            48, 17, 49, 18, 50, 19, 51, 24, 56, 25, 57, 26, 58, 27, 59)
#define BLUR_HI(x, z)                                                                              \
    __builtin_shufflevector(x, z, 4, 36, 5, 37, 6, 38, 7, 39, 12, 44, 13, 45, 14, 46, 15, 47, 20,  \
                            52, 21, 53, 22, 54, 23, 55, 28, 60, 29, 61, 30, 62, 31, 63)
/* The weights of taps j and j + 1 (0 past the reach) as the 16-bit pairs
 * vpmaddwd multiplies: one 32-bit load from the shorts that follow the r + 1
 * ints of w (src/filters/blur.c's weights_buffer), broadcast. */
typedef int __attribute__((aligned(2))) blur_int_u;
#define BLUR_PAIR(sw, j)                                                                           \
    __builtin_astype((int16)(*(__global const blur_int_u *)((sw) + (j))), blur_s16x32)
#if CLV_X86_VNNI
/* vpdpwssd: vpmaddwd and the add in one instruction (no saturation, so the
 * same sums). sep_row_narrow is then compiled for AVX-512 VNNI apart from
 * the kernel that calls it (src/core/program.c's host_isa). */
#define BLUR_MADD(acc, x, z, p, HALF)                                                              \
    acc = __builtin_ia32_vpdpwssd512(acc, __builtin_astype(HALF(x, z), int16),                     \
                                     __builtin_astype(p, int16))
#define BLUR_NARROW_FN __attribute__((noinline, target("avx512vnni")))
#define BLUR_NARROW_PART CLV_ROW_FN __attribute__((target("avx512vnni")))
#else
#define BLUR_MADD(acc, x, z, p, HALF) acc += __builtin_ia32_pmaddwd512(HALF(x, z), p)
#define BLUR_NARROW_FN CLV_ROW_FN
#define BLUR_NARROW_PART CLV_ROW_FN
#endif

/* 32 (two: 64) column sums of row y from value i on into t: tap 0 (the
 * centre) with the sum of the two rows at distance 1, then the sums at 2
 * and 3, ...; two and inner (the rows y - rv .. y + rv all in the frame,
 * so that their addresses step without a clamp and a multiply each)
 * constants where it is called. */
BLUR_NARROW_PART void sep_narrow_down(__global const clv_px *src, int h, int stride, int y, int i,
                                      __global const int *wv, int rv, int vround, int vshift,
                                      __global short *t, const int two, const int inner)
{
#define BLUR_AT(yy) ((__global const uchar *)(src + (yy)*stride) + i)
#define BLUR_ROWS(dist, v, v1)                                                                     \
    {                                                                                              \
        __global const uchar *a_ = inner ? at - (dist)*row : BLUR_AT(max(y - (dist), 0));          \
        __global const uchar *b_ = inner ? at + (dist)*row : BLUR_AT(min(y + (dist), h - 1));      \
        v = BLUR_S16(a_) + BLUR_S16(b_);                                                           \
        if (two)                                                                                   \
            v1 = BLUR_S16(a_ + 32) + BLUR_S16(b_ + 32);                                            \
    }
    __global const uchar *at = BLUR_AT(y);
    const long row = 4 * (long)stride;
    blur_s16x32 x = BLUR_S16(at), x1 = two ? BLUR_S16(at + 32) : x;
    blur_s16x32 z = x, z1 = x1;
    if (rv >= 1)
        BLUR_ROWS(1, z, z1);
    int16 lo = (int16)vround, hi = lo, lo1 = lo, hi1 = lo;
#define BLUR_MADD4(p)                                                                              \
    {                                                                                              \
        BLUR_MADD(lo, x, z, p, BLUR_LO);                                                           \
        BLUR_MADD(hi, x, z, p, BLUR_HI);                                                           \
        if (two) {                                                                                 \
            BLUR_MADD(lo1, x1, z1, p, BLUR_LO);                                                    \
            BLUR_MADD(hi1, x1, z1, p, BLUR_HI);                                                    \
        }                                                                                          \
    }
    __global const short *sw = (__global const short *)(wv + rv + 1);
    BLUR_MADD4(BLUR_PAIR(sw, 0));
    int j = 2;
    for (; j + 1 <= rv; j += 2) {
        BLUR_ROWS(j, x, x1);
        BLUR_ROWS(j + 1, z, z1);
        BLUR_MADD4(BLUR_PAIR(sw, j));
    }
    if (j == rv) {
        BLUR_ROWS(j, x, x1);
        z = x;
        z1 = x1;
        BLUR_MADD4(BLUR_PAIR(sw, j));
    }
    *(__global blur_s16x32_u *)(t + i) = __builtin_ia32_packssdw512(lo >> vshift, hi >> vshift);
    if (two)
        *(__global blur_s16x32_u *)(t + i + 32) =
            __builtin_ia32_packssdw512(lo1 >> vshift, hi1 >> vshift);
#undef BLUR_ROWS
#undef BLUR_AT
}

/* 32 column sums of rows y and y + 1 (y + 1 < h) from value i on into t
 * and t1: each row of the window zero-extended once for both (rows y - d
 * and y + d + 1 serve both outputs), which halves vpmovzxbw a sum. The
 * pair steps (d, d + 1) from d = 2 on read four new rows, A = y - d,
 * B = y - d - 1, C = y + d + 1, E = y + d + 2, and keep two from the step
 * before, U = y - d + 1 and D = y + d: row y's sums are A + D and B + C,
 * row y + 1's U + C and A + E. inner: rows y - rv .. y + 1 + rv all in the
 * frame. */
BLUR_NARROW_PART void sep_narrow_down2(__global const clv_px *src, int h, int stride, int y, int i,
                                       __global const int *wv, int rv, int vround, int vshift,
                                       __global short *t, __global short *t1, const int inner)
{
#define BLUR_AT(yy) ((__global const uchar *)(src + (yy)*stride) + i)
    __global const uchar *at = BLUR_AT(y);
    const long row = 4 * (long)stride;
#define BLUR_R(k) BLUR_S16(inner ? at + (long)(k)*row : BLUR_AT(clamp(y + (k), 0, h - 1)))
    __global const short *sw = (__global const short *)(wv + rv + 1);
    const blur_s16x32 r0 = BLUR_R(0), r1 = BLUR_R(1);
    blur_s16x32 U = r0, D = r1; /* rows y - d + 1 and y + d, d = 1 */
    blur_s16x32 x = r0, z = r0, x1 = r1, z1 = r1;
    if (rv >= 1) {
        const blur_s16x32 m = BLUR_R(-1), e = BLUR_R(2);
        z = m + r1;
        z1 = r0 + e;
        U = m; /* y - d + 1 and y + d for the step at d = 2 */
        D = e;
    }
    int16 lo = (int16)vround, hi = lo, lo1 = lo, hi1 = lo;
#define BLUR_MADD2(p)                                                                              \
    {                                                                                              \
        BLUR_MADD(lo, x, z, p, BLUR_LO);                                                           \
        BLUR_MADD(hi, x, z, p, BLUR_HI);                                                           \
        BLUR_MADD(lo1, x1, z1, p, BLUR_LO);                                                        \
        BLUR_MADD(hi1, x1, z1, p, BLUR_HI);                                                        \
    }
    BLUR_MADD2(BLUR_PAIR(sw, 0));
    int d = 2;
    for (; d + 1 <= rv; d += 2) {
        const blur_s16x32 A = BLUR_R(-d), B = BLUR_R(-d - 1), C = BLUR_R(d + 1), E = BLUR_R(d + 2);
        x = A + D;
        z = B + C;
        x1 = U + C;
        z1 = A + E;
        BLUR_MADD2(BLUR_PAIR(sw, d));
        U = B;
        D = E;
    }
    if (d == rv) {
        const blur_s16x32 A = BLUR_R(-d), C = BLUR_R(d + 1);
        x = z = A + D;
        x1 = z1 = U + C;
        BLUR_MADD2(BLUR_PAIR(sw, d));
    }
#undef BLUR_MADD2
#undef BLUR_R
#undef BLUR_AT
    *(__global blur_s16x32_u *)(t + i) = __builtin_ia32_packssdw512(lo >> vshift, hi >> vshift);
    *(__global blur_s16x32_u *)(t1 + i) = __builtin_ia32_packssdw512(lo1 >> vshift, hi1 >> vshift);
}

/* The same along the row from t (its ends copied outwards) into the
 * output's values i on, the channels outside m32 from c. */
BLUR_NARROW_PART void sep_narrow_across(__global const short *t, __global const uchar *c,
                                        __global uchar *o, int i, __global const int *wh, int rh,
                                        int fround, int fshift, blur_u8x32 m32, const int two)
{
#define BLUR_T(k) (*(__global const blur_s16x32_u *)(t + i + (k)))
#define BLUR_COLS(dist, v, v1)                                                                     \
    {                                                                                              \
        v = BLUR_T(-4 * (dist)) + BLUR_T(4 * (dist));                                              \
        if (two)                                                                                   \
            v1 = BLUR_T(32 - 4 * (dist)) + BLUR_T(32 + 4 * (dist));                                \
    }
    blur_s16x32 x = BLUR_T(0), x1 = two ? BLUR_T(32) : x;
    blur_s16x32 z = x, z1 = x1;
    if (rh >= 1)
        BLUR_COLS(1, z, z1);
    int16 lo = (int16)fround, hi = lo, lo1 = lo, hi1 = lo;
    __global const short *sw = (__global const short *)(wh + rh + 1);
    BLUR_MADD4(BLUR_PAIR(sw, 0));
    int d = 2;
    for (; d + 1 <= rh; d += 2) {
        BLUR_COLS(d, x, x1);
        BLUR_COLS(d + 1, z, z1);
        BLUR_MADD4(BLUR_PAIR(sw, d));
    }
    if (d == rh) {
        BLUR_COLS(d, x, x1);
        z = x;
        z1 = x1;
        BLUR_MADD4(BLUR_PAIR(sw, d));
    }
    blur_u8x32 blur =
        __builtin_convertvector(__builtin_ia32_packssdw512(lo >> fshift, hi >> fshift), blur_u8x32);
    blur_u8x32 v = *(__global const blur_u8x32_u *)(c + i);
    *(__global blur_u8x32_u *)(o + i) = (blur & m32) | (v & ~m32);
    if (two) {
        blur = __builtin_convertvector(__builtin_ia32_packssdw512(lo1 >> fshift, hi1 >> fshift),
                                       blur_u8x32);
        v = *(__global const blur_u8x32_u *)(c + i + 32);
        *(__global blur_u8x32_u *)(o + i + 32) = (blur & m32) | (v & ~m32);
    }
#undef BLUR_COLS
#undef BLUR_T
}
#undef BLUR_MADD4

/* Row y's sums along from the column sums in t (its ends copied outwards
 * here) into the output. */
BLUR_NARROW_PART void sep_row_narrow_across(CLV_FRAME_ARGS, int y, __global const int *wh, int rh,
                                            int fround, int fshift, int mask, __global short *t)
{
    __global const uchar *c = (__global const uchar *)(src + y * stride);
    const int n = 4 * w;
    for (int k = 1; k <= rh; ++k)
        for (int ch = 0; ch < 4; ++ch) {
            t[ch - 4 * k] = t[ch];
            t[n - 4 + 4 * k + ch] = t[n - 4 + ch];
        }
    __global uchar *o = (__global uchar *)(dst + y * stride);
    const uchar4 m4 = (uchar4)(mask & 1 ? 0xff : 0, mask & 2 ? 0xff : 0, mask & 4 ? 0xff : 0,
                               mask & 8 ? 0xff : 0);
    const blur_u8x32 m32 =
        __builtin_shufflevector(m4, m4, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
                                0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    int i = 0;
    for (; i + 64 <= n; i += 64)
        sep_narrow_across(t, c, o, i, wh, rh, fround, fshift, m32, 1);
    for (; i + 32 <= n; i += 32)
        sep_narrow_across(t, c, o, i, wh, rh, fround, fshift, m32, 0);
    for (; i < n; ++i) {
        int acc = fround + wh[0] * t[i];
        for (int d = 1; d <= rh; ++d)
            acc += wh[d] * (t[i - 4 * d] + t[i + 4 * d]);
        o[i] = (mask >> (i & 3) & 1) ? (uchar)(acc >> fshift) : c[i];
    }
}

/* Row y: its column sums from value i0 on (those before are done), then
 * along the row. */
BLUR_NARROW_PART void sep_row_narrow_rest(CLV_FRAME_ARGS, int y, __global const int *wv, int rv,
                                          __global const int *wh, int rh, int vround, int vshift,
                                          int fround, int fshift, int mask, __global short *t,
                                          int i0)
{
    __global const uchar *c = (__global const uchar *)(src + y * stride);
    const int n = 4 * w;
    /* Down the columns, 64 values a step where the row has them (the
     * rows' addresses and the weights once for two vectors), then 32. */
    int i = i0;
    if (y >= rv && y + rv < h) {
        for (; i + 64 <= n; i += 64)
            sep_narrow_down(src, h, stride, y, i, wv, rv, vround, vshift, t, 1, 1);
    } else {
        for (; i + 64 <= n; i += 64)
            sep_narrow_down(src, h, stride, y, i, wv, rv, vround, vshift, t, 1, 0);
    }
    for (; i + 32 <= n; i += 32)
        sep_narrow_down(src, h, stride, y, i, wv, rv, vround, vshift, t, 0, 0);
    for (; i < n; ++i) {
        int acc = wv[0] * c[i];
        for (int j = 1; j <= rv; ++j)
            acc += wv[j] * (((__global const uchar *)(src + max(y - j, 0) * stride))[i] +
                            ((__global const uchar *)(src + min(y + j, h - 1) * stride))[i]);
        t[i] = (short)((acc + vround) >> vshift);
    }
    sep_row_narrow_across(src, dst, w, h, stride, y, wh, rh, fround, fshift, mask, t);
}

/* Rows y and y + 1 (pair, y + 1 < h; t1 the second row's sums) or row y. */
BLUR_NARROW_FN void sep_row_narrow(CLV_FRAME_ARGS, int y, __global const int *wv, int rv,
                                   __global const int *wh, int rh, int vround, int vshift,
                                   int fround, int fshift, int mask, __global short *t,
                                   __global short *t1, int pair)
{
    const int n = 4 * w;
    int i = 0;
    if (pair) {
        /* Down the columns of both rows, 32 values a step. */
        if (y >= rv && y + 1 + rv < h) {
            for (; i + 32 <= n; i += 32)
                sep_narrow_down2(src, h, stride, y, i, wv, rv, vround, vshift, t, t1, 1);
        } else {
            for (; i + 32 <= n; i += 32)
                sep_narrow_down2(src, h, stride, y, i, wv, rv, vround, vshift, t, t1, 0);
        }
        for (int k = i; k < n; ++k) {
            int acc = wv[0] * ((__global const uchar *)(src + (y + 1) * stride))[k];
            for (int j = 1; j <= rv; ++j)
                acc +=
                    wv[j] * (((__global const uchar *)(src + max(y + 1 - j, 0) * stride))[k] +
                             ((__global const uchar *)(src + min(y + 1 + j, h - 1) * stride))[k]);
            t1[k] = (short)((acc + vround) >> vshift);
        }
        sep_row_narrow_across(src, dst, w, h, stride, y + 1, wh, rh, fround, fshift, mask, t1);
    }
    sep_row_narrow_rest(src, dst, w, h, stride, y, wv, rv, wh, rh, vround, vshift, fround, fshift,
                        mask, t, i);
}
#endif

#if CLV_DEPTH == 16
/* gblur's pass at 16 bits (`narrow`: the weights at most 2^14, vshift 8,
 * fshift 20) in 32-bit lanes rather than 64: down the columns every sum
 * fits 30 bits and T 22; along the row each sum of two T is split at bit
 * 11, s = 2^11 sh + sl, the two halves summed apart (A = sum w sh, B = sum
 * w sl, each under 2^27), and out = (2^11 A + B + fround) >> fshift =
 * (A + ((B + fround) >> 11)) >> (fshift - 11), the same value. */
CLV_ROW_FN void sep_row_narrow16(CLV_FRAME_ARGS, int y, __global const int *wv, int rv,
                                 __global const int *wh, int rh, int vround, int vshift, int fround,
                                 int fshift, int mask, __global uint *t)
{
    __global const ushort *c = BLUR_ROW(src, y);
    const int n = 4 * w;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        uint16 acc = (uint)wv[0] * convert_uint16(BLUR_CH16(c + i)) + (uint)vround;
        for (int j = 1; j <= rv; ++j)
            acc += (uint)wv[j] * (convert_uint16(BLUR_CH16(BLUR_ROW(src, max(y - j, 0)) + i)) +
                                  convert_uint16(BLUR_CH16(BLUR_ROW(src, min(y + j, h - 1)) + i)));
        *(__global blur_uint16_u *)(t + i) = acc >> (uint)vshift;
    }
    for (; i < n; ++i) {
        uint acc = (uint)wv[0] * c[i] + (uint)vround;
        for (int j = 1; j <= rv; ++j)
            acc += (uint)wv[j] *
                   ((uint)BLUR_ROW(src, max(y - j, 0))[i] + BLUR_ROW(src, min(y + j, h - 1))[i]);
        t[i] = acc >> vshift;
    }
    for (int k = 1; k <= rh; ++k)
        for (int ch = 0; ch < 4; ++ch) {
            t[ch - 4 * k] = t[ch];
            t[n - 4 + 4 * k + ch] = t[n - 4 + ch];
        }
    __global ushort *o = (__global ushort *)(dst + y * stride);
    const int16 m16 =
        (int16)(BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3),
                BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3),
                BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3),
                BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3));
#define BLUR_TU(k) (*(__global const blur_uint16_u *)(t + i + (k)))
    for (i = 0; i + 16 <= n; i += 16) {
        const uint16 s0 = BLUR_TU(0);
        uint16 a = (uint)wh[0] * (s0 >> 11), b = (uint)wh[0] * (s0 & 2047u);
        for (int d = 1; d <= rh; ++d) {
            const uint16 s = BLUR_TU(-4 * d) + BLUR_TU(4 * d);
            a += (uint)wh[d] * (s >> 11);
            b += (uint)wh[d] * (s & 2047u);
        }
        const uint16 blur = (a + ((b + (uint)fround) >> 11)) >> (uint)(fshift - 11);
        const int16 v = convert_int16(BLUR_CH16(c + i));
        *(__global blur_ch16_u *)(o + i) = convert_ushort16(select(v, convert_int16(blur), m16));
    }
#undef BLUR_TU
    for (; i < n; ++i) {
        ulong acc = (ulong)fround + (ulong)wh[0] * t[i];
        for (int d = 1; d <= rh; ++d)
            acc += (ulong)wh[d] * ((ulong)t[i - 4 * d] + t[i + 4 * d]);
        o[i] = (mask >> (i & 3) & 1) ? (ushort)(acc >> fshift) : c[i];
    }
}
#endif

/* One sep pass, rows y0 .. y1 - 1 of a band: work holds 4 * (w + 2 * rh)
 * sums, the row's and rh pixels' worth of copies at each end. */
__kernel void sep_rows(CLV_FRAME_ARGS, __global const int *wv, int rv, __global const int *wh,
                       int rh, int vround, int vshift, int fround, int fshift, int amount, int mask,
                       __global BLUR_ACC *work, int band, int narrow)
{
    const int b = (int)get_global_id(0);
    const int y0 = b * band, y1 = min(h, y0 + band), n = 4 * w;
    __global BLUR_ACC *restrict t = work + (size_t)b * 4 * (w + 2 * rh) + 4 * rh;
#if CLV_DEPTH == 8 && defined(__AVX512BW__)
    if (narrow) {
        /* two rows at a time: the band's work holds two rows of shorts */
        __global short *t0 = (__global short *)(work + (size_t)b * 4 * (w + 2 * rh)) + 4 * rh;
        for (int y = y0; y < y1; y += 2)
            sep_row_narrow(src, dst, w, h, stride, y, wv, rv, wh, rh, vround, vshift, fround,
                           fshift, mask, t0, t0 + 4 * (w + 2 * rh), y + 1 < y1);
        return;
    }
#elif CLV_DEPTH == 16
    if (narrow) {
        for (int y = y0; y < y1; ++y)
            sep_row_narrow16(src, dst, w, h, stride, y, wv, rv, wh, rh, vround, vshift, fround,
                             fshift, mask,
                             (__global uint *)(work + (size_t)b * 4 * (w + 2 * rh)) + 4 * rh);
        return;
    }
#endif
    const BLUR_SACC16 m16 = BLUR_MASK16(mask);
    for (int y = y0; y < y1; ++y) {
        __global const clv_ch *c = BLUR_ROW(src, y);
        /* Down the columns: the taps of a column pair summed first. */
        int i = 0;
        for (; i + 16 <= n; i += 16) {
            BLUR_ACC16 acc = (BLUR_ACC)wv[0] * BLUR_CONVERT(BLUR_ACC, 16)(BLUR_CH16(c + i));
            for (int j = 1; j <= rv; ++j) {
                __global const clv_ch *a = BLUR_ROW(src, max(y - j, 0));
                __global const clv_ch *d = BLUR_ROW(src, min(y + j, h - 1));
                acc += (BLUR_ACC)wv[j] * (BLUR_CONVERT(BLUR_ACC, 16)(BLUR_CH16(a + i)) +
                                          BLUR_CONVERT(BLUR_ACC, 16)(BLUR_CH16(d + i)));
            }
            *(__global blur_acc16_u *)(t + i) = (acc + (BLUR_ACC)vround) >> (BLUR_ACC)vshift;
        }
        for (; i < n; ++i) {
            BLUR_ACC acc = (BLUR_ACC)wv[0] * c[i];
            for (int j = 1; j <= rv; ++j)
                acc += (BLUR_ACC)wv[j] * ((BLUR_ACC)BLUR_ROW(src, max(y - j, 0))[i] +
                                          BLUR_ROW(src, min(y + j, h - 1))[i]);
            t[i] = (acc + (BLUR_ACC)vround) >> (BLUR_ACC)vshift;
        }
        /* The ends copied outwards, so that the row pass needs no clamp. */
        for (int k = 1; k <= rh; ++k)
            for (int ch = 0; ch < 4; ++ch) {
                t[ch - 4 * k] = t[ch];
                t[n - 4 + 4 * k + ch] = t[n - 4 + ch];
            }
        /* Along the row. */
        __global clv_ch *o = (__global clv_ch *)(dst + y * stride);
        for (i = 0; i + 16 <= n; i += 16) {
            BLUR_ACC16 acc = (BLUR_ACC)wh[0] * BLUR_SUM16(t + i);
            for (int j = 1; j <= rh; ++j)
                acc += (BLUR_ACC)wh[j] * (BLUR_SUM16(t + i - 4 * j) + BLUR_SUM16(t + i + 4 * j));
            const BLUR_SACC16 blur =
                BLUR_CONVERT(BLUR_SACC, 16)((acc + (BLUR_ACC)fround) >> (BLUR_ACC)fshift);
            const BLUR_SACC16 v = BLUR_CONVERT(BLUR_SACC, 16)(BLUR_CH16(c + i));
            const BLUR_SACC16 r = select(v, BLUR_FINISH(v, blur, (BLUR_SACC)amount), m16);
#if CLV_DEPTH == 16
            *(__global blur_ch16_u *)(o + i) = convert_ushort16(r);
#else
            *(__global blur_ch16_u *)(o + i) = convert_uchar16(r);
#endif
        }
        for (; i < n; ++i) {
            BLUR_ACC acc = (BLUR_ACC)wh[0] * t[i];
            for (int j = 1; j <= rh; ++j)
                acc += (BLUR_ACC)wh[j] * (t[i - 4 * j] + t[i + 4 * j]);
            const BLUR_SACC blur = (BLUR_SACC)((acc + (BLUR_ACC)fround) >> (BLUR_ACC)fshift);
            const BLUR_SACC v = c[i];
            o[i] = (clv_ch)((mask >> (i & 3) & 1) ? BLUR_FINISH(v, blur, (BLUR_SACC)amount) : v);
        }
    }
}

/* One box pass, rows y0 .. y1 - 1 of a band: work holds the band's row
 * sums (4 * w ulongs' room: uints, or ulongs when wide) and then its column
 * sums (4 * w uints). */
__kernel void box_rows(CLV_FRAME_ARGS, int rx, int ry, uint n, uint m, int l, int wide, int mask,
                       __global uint *work, int band)
{
    const int b = (int)get_global_id(0);
    const int y0 = b * band, y1 = min(h, y0 + band), cn = 4 * w;
    /* The row sums first, the band's stretch a multiple of 32 bytes: the
     * row pass reads and writes them as aligned uint4 or ulong4. */
    __global uint *restrict row = work + (size_t)b * ((12 * w + 7) & ~7);
    __global ulong *restrict row64 = (__global ulong *)row;
    __global uint *restrict col = row + 8 * w;
    const BLUR_SACC16 m16 = BLUR_MASK16(mask);
    const uint mid = n / 2;
    if (y0 >= y1)
        return;
    /* The first row's column sums. */
    {
        int i = 0;
        __global const clv_ch *c = BLUR_ROW(src, y0);
        for (; i + 16 <= cn; i += 16) {
            uint16 s = convert_uint16(BLUR_CH16(c + i));
            for (int j = 1; j <= ry; ++j)
                s += convert_uint16(BLUR_CH16(BLUR_ROW(src, max(y0 - j, 0)) + i)) +
                     convert_uint16(BLUR_CH16(BLUR_ROW(src, min(y0 + j, h - 1)) + i));
            *(__global blur_uint16_u *)(col + i) = s;
        }
        for (; i < cn; ++i) {
            uint s = c[i];
            for (int j = 1; j <= ry; ++j)
                s += (uint)BLUR_ROW(src, max(y0 - j, 0))[i] + BLUR_ROW(src, min(y0 + j, h - 1))[i];
            col[i] = s;
        }
    }
    for (int y = y0; y < y1; ++y) {
        __global const clv_ch *c = BLUR_ROW(src, y);
        if (y > y0) {
            /* Slide the columns down a row (uint arithmetic wraps back to
             * the true sums). */
            __global const clv_ch *add = BLUR_ROW(src, min(y + ry, h - 1));
            __global const clv_ch *sub = BLUR_ROW(src, max(y - ry - 1, 0));
            int i = 0;
            for (; i + 16 <= cn; i += 16)
                *(__global blur_uint16_u *)(col + i) = *(__global blur_uint16_u *)(col + i) +
                                                       convert_uint16(BLUR_CH16(add + i)) -
                                                       convert_uint16(BLUR_CH16(sub + i));
            for (; i < cn; ++i)
                col[i] += (uint)add[i] - sub[i];
        }
        /* Along the row: a running sum of the column sums, a pixel a step. */
        __global const uint4 *c4 = (__global const uint4 *)col;
        __global clv_ch *o = (__global clv_ch *)(dst + y * stride);
        if (!wide) {
            __global uint4 *r4 = (__global uint4 *)row;
            uint4 s = (uint)(rx + 1) * c4[0];
            for (int k = 1; k <= rx; ++k)
                s += c4[min(k, w - 1)];
            r4[0] = s;
            /* The pixels whose window reaches past an end clamp; those
             * between (most of the row) slide without. */
            const int a = min(rx + 1, w), b = max(a, w - rx);
            int x = 1;
            for (; x < a; ++x) {
                s += c4[min(x + rx, w - 1)] - c4[0];
                r4[x] = s;
            }
            for (; x < b; ++x) {
                s += c4[x + rx] - c4[x - rx - 1];
                r4[x] = s;
            }
            for (; x < w; ++x) {
                s += c4[w - 1] - c4[max(x - rx - 1, 0)];
                r4[x] = s;
            }
            int i = 0;
            for (; i + 16 <= cn; i += 16) {
                const uint16 a = *(__global blur_uint16_u *)(row + i) + mid;
                const BLUR_SACC16 v = BLUR_CONVERT(BLUR_SACC, 16)(BLUR_CH16(c + i));
                const BLUR_SACC16 q = BLUR_CONVERT(BLUR_SACC, 16)(blur_div16(a, n, m, l));
#if CLV_DEPTH == 16
                *(__global blur_ch16_u *)(o + i) = convert_ushort16(select(v, q, m16));
#else
                *(__global blur_ch16_u *)(o + i) = convert_uchar16(select(v, q, m16));
#endif
            }
            for (; i < cn; ++i) {
                const uint a = row[i] + mid;
                o[i] = (mask >> (i & 3) & 1) ? (clv_ch)blur_div(a, n, m, l) : c[i];
            }
        } else {
            __global ulong4 *r4 = (__global ulong4 *)row64;
            ulong4 s = (ulong)(rx + 1) * convert_ulong4(c4[0]);
            for (int k = 1; k <= rx; ++k)
                s += convert_ulong4(c4[min(k, w - 1)]);
            r4[0] = s;
            for (int x = 1; x < w; ++x) {
                s +=
                    convert_ulong4(c4[min(x + rx, w - 1)]) - convert_ulong4(c4[max(x - rx - 1, 0)]);
                r4[x] = s;
            }
            for (int i = 0; i < cn; ++i)
                o[i] = (mask >> (i & 3) & 1) ? (clv_ch)((row64[i] + mid) / n) : c[i];
        }
    }
}
#else /* GPUs */

/* sep in one kernel (the host's choice at 8 bits, and at 16 bits for
 * `narrow` passes, where the tile fits local memory): a work-group of 256
 * makes a tile of tw (64 or 128) x BLUR_TH pixels, reading the frame once
 * (its rows above and below the tile and its columns at the sides from the
 * cache) and writing it once: no frame of sums goes through memory.
 *
 * Down the columns, for the tile's rows and its columns with rh more at
 * each side (clamped into the frame, so that the pass across needs no
 * clamp), into local memory: a work-item takes a column (neighbouring
 * work-items on neighbouring pixels: one 128-byte read a warp) and
 * BLUR_K1 consecutive rows of it. The taps at distance d of its rows
 * are p[y + i - d] and p[y + i + d]: a step of d reuses all but two of the
 * values the step before read (lft and rgt shift by one), so a column sum
 * costs (2 rv + BLUR_K1) / BLUR_K1 reads rather than 2 rv + 1; the two taps
 * of a pair are added before the one multiply.
 *
 * Along the rows the same way from local memory, BLUR_K2 consecutive
 * pixels a work-item, neighbouring work-items on neighbouring rows: the
 * rows' pitch is odd (in sums), so that the eight work-items a 16-byte
 * access serves at once fall in distinct banks.
 *
 * Sums in uint: at 8 bits as sep_v and sep_h's; at 16 bits (narrow only:
 * the weights at most 2^14, vshift 8) the column sums fit 30 bits, T 22,
 * and along the row each pair s = T_l + T_r is split at bit 11 as
 * sep_row_narrow16 does: A = sum w (s >> 11), B = sum w (s & 2047), each
 * under 2^27, and (A + ((B + fround) >> 11)) >> (fshift - 11) is the
 * 64-bit sum's (2^11 A + B + fround) >> fshift. */
#define BLUR_TH 16
#define BLUR_K1 4
#define BLUR_K2 4
#define BLUR_LANES (256 * BLUR_K1 / BLUR_TH)
/* lft and rgt are rings of k (BLUR_K1 or BLUR_K2, powers of two): the pixel
 * at offset q from a work-item's first, p[ya + q] or T[xs + q], sits in slot
 * q mod k while the left taps (lft) or the right taps (rgt) need it, so that
 * in a round of k distances every slot is known when the kernel is compiled. */
#define BLUR_RING(q, k) ((q) & ((k)-1))
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void
sep_tile(__global const clv_px *src, __global clv_px *dst, int w, int h, int stride,
         __constant int *wv, int rv, __constant int *wh, int rh, int vround, int vshift, int fround,
         int fshift, int amount, int mask, int tw, __local uint4 *t)
{
    const int lid = (int)get_local_id(0);
    const int x0 = (int)get_group_id(0) * tw, y0 = (int)get_group_id(1) * BLUR_TH;
    const int cols = tw + 2 * rh, pitch = cols | 1;
    {
        /* Down: BLUR_LANES columns at a time, on the tile's BLUR_TH /
         * BLUR_K1 bands of BLUR_K1 rows. */
        const int band = lid / BLUR_LANES, ya = y0 + band * BLUR_K1;
        __local uint4 *out = t + band * BLUR_K1 * pitch;
        for (int c = lid % BLUR_LANES; c < cols; c += BLUR_LANES) {
            /* The column's first and last pixel, and where its next taps
             * above and below are (clamped as they step: exact for the
             * bands inside the frame, in it for those past its end). */
            const int top = clamp(x0 - rh + c, 0, w - 1), bottom = top + (h - 1) * stride;
            int up = top + min(ya, h - 1) * stride;
            int down = top + min(ya + BLUR_K1 - 1, h - 1) * stride;
#define BLUR_AT(yy) convert_uint4(src[top + clamp(yy, 0, h - 1) * stride])
            uint4 lft[BLUR_K1], rgt[BLUR_K1], acc[BLUR_K1];
            const uint w0 = (uint)wv[0];
#pragma unroll
            for (int i = 0; i < BLUR_K1; ++i) {
                lft[i] = rgt[i] = BLUR_AT(ya + i);
                acc[i] = w0 * lft[i] + (uint)vround;
            }
            /* Rounds of BLUR_K1 distances (BLUR_RING): no moves between. */
            for (int d0 = 1; d0 <= rv; d0 += BLUR_K1) {
#pragma unroll
                for (int k = 0; k < BLUR_K1; ++k) {
                    const int d = d0 + k;
                    if (d <= rv) {
                        up = max(up - stride, top);
                        down = min(down + stride, bottom);
                        lft[BLUR_RING(-1 - k, BLUR_K1)] = convert_uint4(src[up]);
                        rgt[BLUR_RING(k, BLUR_K1)] = convert_uint4(src[down]);
                        const uint wd = (uint)wv[d];
#pragma unroll
                        for (int i = 0; i < BLUR_K1; ++i)
                            acc[i] += wd * (lft[BLUR_RING(i - 1 - k, BLUR_K1)] +
                                            rgt[BLUR_RING(i + 1 + k, BLUR_K1)]);
                    }
                }
            }
#undef BLUR_AT
#pragma unroll
            for (int i = 0; i < BLUR_K1; ++i)
                out[i * pitch + c] = acc[i] >> (uint)vshift;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int r = lid % BLUR_TH, y = y0 + r;
    if (y >= h)
        return;
    const BLUR_SACC4 m4 = (BLUR_SACC4)(BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2),
                                       BLUR_LANE(mask, 3));
    const uint w0 = (uint)wh[0];
    for (int xs = BLUR_K2 * (lid / BLUR_TH); xs < tw && x0 + xs < w;
         xs += BLUR_K2 * (256 / BLUR_TH)) {
        __local const uint4 *row = t + r * pitch + rh + xs;
        uint4 lft[BLUR_K2], rgt[BLUR_K2];
#if CLV_DEPTH == 16
        uint4 a[BLUR_K2], b[BLUR_K2];
#pragma unroll
        for (int i = 0; i < BLUR_K2; ++i) {
            lft[i] = rgt[i] = row[i];
            a[i] = w0 * (lft[i] >> 11u);
            b[i] = w0 * (lft[i] & 2047u) + (uint)fround;
        }
#else
        uint4 acc[BLUR_K2];
#pragma unroll
        for (int i = 0; i < BLUR_K2; ++i) {
            lft[i] = rgt[i] = row[i];
            acc[i] = w0 * lft[i] + (uint)fround;
        }
#endif
        for (int d0 = 1; d0 <= rh; d0 += BLUR_K2) {
#pragma unroll
            for (int k = 0; k < BLUR_K2; ++k) {
                const int d = d0 + k;
                if (d <= rh) {
                    lft[BLUR_RING(-1 - k, BLUR_K2)] = row[-d];
                    rgt[BLUR_RING(k, BLUR_K2)] = row[BLUR_K2 - 1 + d];
                    const uint wd = (uint)wh[d];
#pragma unroll
                    for (int i = 0; i < BLUR_K2; ++i) {
                        const uint4 s =
                            lft[BLUR_RING(i - 1 - k, BLUR_K2)] + rgt[BLUR_RING(i + 1 + k, BLUR_K2)];
#if CLV_DEPTH == 16
                        a[i] += wd * (s >> 11u);
                        b[i] += wd * (s & 2047u);
#else
                        acc[i] += wd * s;
#endif
                    }
                }
            }
        }
        __global clv_px *o = dst + y * stride + x0 + xs;
        __global const clv_px *v0 = src + y * stride + x0 + xs;
#if CLV_DEPTH == 8 && BLUR_K2 == 4
        if (amount == -65536 && mask == 15 && (stride & 3) == 0 && x0 + xs + 4 <= w &&
            xs + 4 <= tw) {
            /* The blur alone, four whole pixels: one 16-byte store (the row
             * 16-byte aligned), not four of 4 bytes. */
            uint4 q;
            q.x = as_uint(convert_uchar4(acc[0] >> (uint)fshift));
            q.y = as_uint(convert_uchar4(acc[1] >> (uint)fshift));
            q.z = as_uint(convert_uchar4(acc[2] >> (uint)fshift));
            q.w = as_uint(convert_uchar4(acc[3] >> (uint)fshift));
            *(__global uint4 *)o = q;
            continue;
        }
#endif
#pragma unroll
        for (int i = 0; i < BLUR_K2; ++i) {
            if (xs + i >= tw || x0 + xs + i >= w)
                break;
#if CLV_DEPTH == 16
            const uint4 sum = (a[i] + (b[i] >> 11u)) >> (uint)(fshift - 11);
#else
            const uint4 sum = acc[i] >> (uint)fshift;
#endif
            BLUR_SACC4 res = BLUR_CONVERT(BLUR_SACC, 4)(sum);
            if (amount != -65536 || mask != 15) {
                /* unsharp, or channels left as they are: the input too. */
                const BLUR_SACC4 v = BLUR_CONVERT(BLUR_SACC, 4)(v0[i]);
                res = select(v, BLUR_FINISH(v, res, (BLUR_SACC)amount), m4);
            }
#if CLV_DEPTH == 16
            o[i] = convert_ushort4(res);
#else
            o[i] = convert_uchar4(res);
#endif
        }
    }
}

/* sep, down the columns: src -> the frame of sums t. */
__kernel void sep_v(__global const clv_px *src, __global BLUR_ACC4 *t, int w, int h, int stride,
                    __global const int *wv, int rv, int vround, int vshift)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        BLUR_ACC4 acc = (BLUR_ACC)wv[0] * BLUR_CONVERT(BLUR_ACC, 4)(src[y * stride + x]);
        for (int j = 1; j <= rv; ++j)
            acc +=
                (BLUR_ACC)wv[j] * (BLUR_CONVERT(BLUR_ACC, 4)(src[max(y - j, 0) * stride + x]) +
                                   BLUR_CONVERT(BLUR_ACC, 4)(src[min(y + j, h - 1) * stride + x]));
        t[y * stride + x] = (acc + (BLUR_ACC)vround) >> (BLUR_ACC)vshift;
    }
}

/* sep, along the rows: t -> dst, channels outside mask from src. */
__kernel void sep_h(__global const clv_px *src, __global clv_px *dst, int w, int h, int stride,
                    __global const BLUR_ACC4 *t, __global const int *wh, int rh, int fround,
                    int fshift, int amount, int mask)
{
    const BLUR_SACC4 m4 = (BLUR_SACC4)(BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2),
                                       BLUR_LANE(mask, 3));
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        __global const BLUR_ACC4 *r = t + y * stride;
        BLUR_ACC4 acc = (BLUR_ACC)wh[0] * r[x];
        for (int j = 1; j <= rh; ++j)
            acc += (BLUR_ACC)wh[j] * (r[max(x - j, 0)] + r[min(x + j, w - 1)]);
        const BLUR_SACC4 blur =
            BLUR_CONVERT(BLUR_SACC, 4)((acc + (BLUR_ACC)fround) >> (BLUR_ACC)fshift);
        const BLUR_SACC4 v = BLUR_CONVERT(BLUR_SACC, 4)(src[y * stride + x]);
        const BLUR_SACC4 o = select(v, BLUR_FINISH(v, blur, (BLUR_SACC)amount), m4);
#if CLV_DEPTH == 16
        dst[y * stride + x] = convert_ushort4(o);
#else
        dst[y * stride + x] = convert_uchar4(o);
#endif
    }
}

/* box in one kernel (the host's choice at 16 bits for reaches up to 32,
 * and at either depth on devices with under 32 KiB of local memory, where
 * the sums fit 32 bits, !wide, and the tile fits): a work-group of 256
 * makes the tw columns from x0 and the `band` rows from y0, BLUR_BR rows
 * at a time.
 *
 * Down: a work-item keeps the running sum of 2ry+1 rows of a column (at
 * most two columns: the tile's with rx more at each side, clamped into the
 * frame), a row's step one read added and one taken away, neighbouring
 * work-items on neighbouring pixels, and writes the BLUR_BR rows' column
 * sums V to local memory. Across: each row's V is turned into its prefix
 * sums P in place (a row a warp: each of 32 work-items sums its stretch of
 * `seg` sums, then adds the stretches' totals before it, kept after the
 * rows; on NVIDIA by warp shuffles, no barrier), and the box sum
 * of output x is P[x + 2rx + 1] - P[x]. All in uint: the prefix sums may
 * wrap, their differences do not (the box sum is below 2^32). */
#define BLUR_BR 8
#if CLV_NV_SM
/* PTX: v from the lane k below (its own below lane k), and a barrier of
 * the warp that orders its local memory accesses. */
inline uint blur_shfl_up(uint v, int k)
{
    uint d;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, -1;" : "=r"(d) : "r"(v), "r"(k));
    return d;
}
/* The warp's inclusive sums of v, lane the work-item's (Hillis and
 * Steele's scan by shuffles, five steps). */
inline uint4 blur_warp_scan(uint4 v, int lane)
{
#pragma unroll
    for (int k = 1; k < 32; k <<= 1) {
        const uint4 before = (uint4)(blur_shfl_up(v.x, k), blur_shfl_up(v.y, k),
                                     blur_shfl_up(v.z, k), blur_shfl_up(v.w, k));
        if (lane >= k)
            v += before;
    }
    return v;
}
inline void blur_warp_sync(void)
{
    asm volatile("bar.warp.sync -1;" ::: "memory");
}
#endif
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void
box_tile(__global const clv_px *src, __global clv_px *dst, int w, int h, int stride, int rx, int ry,
         uint n, uint m, int l, int mask, int tw, int band, int seg, __local uint4 *t)
{
    const int lid = (int)get_local_id(0);
    const int x0 = (int)get_group_id(0) * tw, y0 = (int)get_group_id(1) * band;
    const int y1 = min(h, y0 + band), cols = tw + 2 * rx, pitch = 32 * seg + 1;
    const uint mid = n / 2;
    const int4 m4 =
        (int4)(BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3));
    /* The running column sums of this work-item's columns c0 and c0 + 256
     * (the host keeps cols <= 512). */
    const int c0 = lid;
    __global const clv_px *col0 = src + clamp(x0 - rx + c0, 0, w - 1);
    __global const clv_px *col1 = src + clamp(x0 - rx + c0 + 256, 0, w - 1);
    uint4 v0 = 0, v1 = 0;
    for (int j = -ry; j <= ry; ++j) {
        const int yy = clamp(y0 + j, 0, h - 1) * stride;
        if (c0 < cols)
            v0 += convert_uint4(col0[yy]);
        if (c0 + 256 < cols)
            v1 += convert_uint4(col1[yy]);
    }
    const int r = lid / 32, lane = lid % 32;
    __local uint4 *row = t + r * pitch, *tot = t + BLUR_BR * pitch + r * 32;
    for (int yb = y0; yb < y1; yb += BLUR_BR) {
        /* Down: rows yb .. yb + BLUR_BR - 1; those past the band's end
         * (y1: the frame's end at most) keep the last row's sums, which no
         * one reads: stepping them on would read rows y - ry - 1 past the
         * frame's end (up to BLUR_BR - 2 - ry of them: 1921x1081 faulted
         * on NVIDIA). */
        for (int i = 0; i < BLUR_BR; ++i) {
            const int y = yb + i;
            if (y > y0 && y < y1) {
                const int add = min(y + ry, h - 1) * stride, sub = max(y - ry - 1, 0) * stride;
                if (c0 < cols)
                    v0 += convert_uint4(col0[add]) - convert_uint4(col0[sub]);
                if (c0 + 256 < cols)
                    v1 += convert_uint4(col1[add]) - convert_uint4(col1[sub]);
            }
            if (c0 < cols)
                t[i * pitch + c0] = v0;
            if (c0 + 256 < cols)
                t[i * pitch + c0 + 256] = v1;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Across: prefix sums of row r's stretches of seg sums (seg odd: the
         * eight work-items of a 16-byte access meet distinct banks), the
         * row's total at 32 seg. */
        __local uint4 *p = row + lane * seg;
        uint4 run = 0;
        for (int k = 0; k < seg; ++k) {
            const uint4 v = p[k];
            p[k] = run;
            run += v;
        }
        /* The stretches' totals summed up to each (Hillis and Steele's
         * scan, five steps), less its own: what its prefix sums lack. On
         * NVIDIA the row is a warp's: the scan by shuffles, and a warp's
         * barrier before its own row's sums are read. */
#if CLV_NV_SM
        const uint4 off = blur_warp_scan(run, lane) - run;
#else
        tot[lane] = run;
        for (int k = 1; k < 32; k <<= 1) {
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint4 before = lane >= k ? tot[lane - k] : (uint4)0;
            barrier(CLK_LOCAL_MEM_FENCE);
            tot[lane] += before;
        }
        const uint4 off = tot[lane] - run;
#endif
        for (int k = 0; k < seg; ++k)
            p[k] += off;
        if (lane == 31)
            row[32 * seg] = off + run;
#if CLV_NV_SM
        blur_warp_sync();
#else
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        const int y = yb + r;
        if (y < y1)
            for (int x = lane; x < tw && x0 + x < w; x += 32) {
                const uint4 s = row[x + 2 * rx + 1] - row[x];
                int4 q = convert_int4(blur_div4(s + mid, n, m, l));
                if (mask != 15)
                    q = select(convert_int4(src[y * stride + x0 + x]), q, m4);
#if CLV_DEPTH == 16
                dst[y * stride + x0 + x] = convert_ushort4(q);
#else
                dst[y * stride + x0 + x] = convert_uchar4(q);
#endif
            }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

#if CLV_DEPTH == 8
/* box at 8 bits where the rows' sums fit 16 bits (255 (2rx + 1) <= 65535),
 * the host's choice for windows whose tile fits local memory: a work-group of 256 makes a tile of
 * BOX_TW x BOX_TH pixels in three steps through local memory, two channels
 * a uint in 16-bit halves (channels 0 and 2 in one word, 1 and 3 in the
 * other; a half's sum never leaves 0 .. 65535, so adding and taking away
 * whole words is exact even where a half borrows on the way):
 *   1. the tile and its reach (BOX_TW + 2rx) x (BOX_TH + 2ry), pixels as
 *      uints, clamped into the frame;
 *   2. each row's sums of 2rx + 1 pixels along it, a work-item running
 *      along a stretch of 16 (neighbouring work-items on neighbouring rows:
 *      the row pitch is odd, so they meet distinct banks);
 *   3. down: a work-item a column and 8 output rows, its running sum of
 *      2ry + 1 row sums (two channels a uint where n <= 257, else one),
 *      divided as the other box kernels divide.
 * Two barriers a tile, against box_tile's 13 every 8 rows (3 on NVIDIA):
 * 46 us at radius 2 on a 4K frame on an H200, against box_tile's 94
 * (docs/performance.md). */
#define BOX_TW 64
#define BOX_TH 32
#define BOX_LO(v) ((v)&0x00ff00ffu)
#define BOX_HI(v) (((v) >> 8) & 0x00ff00ffu)
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void
box_small(__global const clv_px *src, __global clv_px *dst, int w, int h, int stride, int rx,
          int ry, uint n, uint m, int l, int mask, __local uint *raw, __local uint2 *rs)
{
    const int lid = (int)get_local_id(0);
    const int x0 = (int)get_group_id(0) * BOX_TW, y0 = (int)get_group_id(1) * BOX_TH;
    const int rw = BOX_TW + 2 * rx, rh = BOX_TH + 2 * ry, pitch = rw | 1;
    {
        /* The reads of twelve rows issued before any is stored: one wait
         * for memory, not twelve (the tile's 32 + 2ry rows in one round
         * where ry <= 8); the columns past 64 (2rx of them) after. */
        const int c = lid % 64, x1 = clamp(x0 - rx + c, 0, w - 1),
                  x2 = clamp(x0 - rx + c + 64, 0, w - 1);
        const bool two = c + 64 < rw;
        for (int rb = lid / 64; rb < rh; rb += 48) {
            uint a[12];
#pragma unroll
            for (int k = 0; k < 12; ++k)
                a[k] = as_uint(src[clamp(y0 - ry + rb + 4 * k, 0, h - 1) * stride + x1]);
#pragma unroll
            for (int k = 0; k < 12; ++k)
                if (rb + 4 * k < rh)
                    raw[(rb + 4 * k) * pitch + c] = a[k];
        }
        if (two)
            for (int r = lid / 64; r < rh; r += 4)
                raw[r * pitch + c + 64] = as_uint(src[clamp(y0 - ry + r, 0, h - 1) * stride + x2]);
        /* Columns past 128 (a reach across of more than 32). */
        for (int r = lid / 64; r < rh; r += 4) {
            __global const clv_px *row = src + clamp(y0 - ry + r, 0, h - 1) * stride;
            for (int cc = c + 128; cc < rw; cc += 64)
                raw[r * pitch + cc] = as_uint(row[clamp(x0 - rx + cc, 0, w - 1)]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = lid; t < rh * (BOX_TW / 16); t += 256) {
        const int r = t % rh, c0 = t / rh * 16;
        __local const uint *p = raw + r * pitch + c0;
        __local uint2 *q = rs + r * (BOX_TW + 1) + c0;
        uint lo = 0, hi = 0;
        for (int i = 0; i <= 2 * rx; ++i) {
            const uint v = p[i];
            lo += BOX_LO(v);
            hi += BOX_HI(v);
        }
        q[0] = (uint2)(lo, hi);
        for (int i = 1; i < 16; ++i) {
            const uint a = p[i + 2 * rx], b = p[i - 1];
            lo += BOX_LO(a) - BOX_LO(b);
            hi += BOX_HI(a) - BOX_HI(b);
            q[i] = (uint2)(lo, hi);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int c = lid % BOX_TW, y = lid / BOX_TW * 8, x = x0 + c;
    __local const uint2 *q = rs + y * (BOX_TW + 1) + c;
    /* floor(a / n) as mul_hi(a, mq), mq = ceil(2^32 / n) = 2^32/n + e/n
     * (0 <= e < n): the error a e / (n 2^32) stays below 1/n, so the floor
     * holds, while a e < 2^32: n <= 4100 (a <= 255.5 n), which the host
     * sees to (a tile that fits 48 KiB has n below 700). */
    const uint mid = n / 2, mq = n == 1 ? 0u : 0xffffffffu / n + 1u;
    const int4 m4 =
        (int4)(BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3));
    if (n <= 257) {
        /* The window's sums fit 16 bits too: two channels a uint down the
         * columns as along the rows. */
        uint2 s = 0;
        for (int j = 0; j <= 2 * ry; ++j)
            s += q[j * (BOX_TW + 1)];
        for (int i = 0; i < 8; ++i) {
            if (i)
                s += q[(i + 2 * ry) * (BOX_TW + 1)] - q[(i - 1) * (BOX_TW + 1)];
            const int yy = y0 + y + i;
            if (x < w && yy < h) {
                const uint4 sum = (uint4)(s.x & 0xffff, s.y & 0xffff, s.x >> 16, s.y >> 16);
                int4 v = convert_int4(n == 1 ? sum : mul_hi(sum + mid, (uint4)mq));
                if (mask != 15)
                    v = select(convert_int4(as_uchar4(raw[(y + i + ry) * pitch + c + rx])), v, m4);
                dst[yy * stride + x] = convert_uchar4(v);
            }
        }
        return;
    }
    /* Larger windows (the rows' sums still within 16 bits: 2rx + 1 <= 257):
     * a channel a uint down the columns. */
#define BOX_UNPACK(v) ((uint4)((v).x & 0xffff, (v).y & 0xffff, (v).x >> 16, (v).y >> 16))
    uint4 s = 0;
    for (int j = 0; j <= 2 * ry; ++j)
        s += BOX_UNPACK(q[j * (BOX_TW + 1)]);
    for (int i = 0; i < 8; ++i) {
        if (i)
            s += BOX_UNPACK(q[(i + 2 * ry) * (BOX_TW + 1)]) - BOX_UNPACK(q[(i - 1) * (BOX_TW + 1)]);
        const int yy = y0 + y + i;
        if (x < w && yy < h) {
            int4 v = convert_int4(mul_hi(s + mid, (uint4)mq));
            if (mask != 15)
                v = select(convert_int4(as_uchar4(raw[(y + i + ry) * pitch + c + rx])), v, m4);
            dst[yy * stride + x] = convert_uchar4(v);
        }
    }
#undef BOX_UNPACK
}
#endif

#if CLV_DEPTH == 8
/* box at 8 bits where the columns' sums fit 16 bits (255 (2ry + 1) <=
 * 65535), the host's choice for reaches past box_small's: a work-group of
 * 256 makes the tw columns from x0 and the `band` rows from y0, BS_R =
 * 4096 / tw rows at a time, in three steps:
 *   1. down: a work-item keeps the running sums of 2ry + 1 rows of up to
 *      three columns of the tile's with rx more at each side (one read
 *      added and one taken away a row, neighbouring work-items on
 *      neighbouring pixels), two channels a uint in 16-bit halves as
 *      box_small's, and writes BS_R rows of them to local memory;
 *   2. across: a work-item runs along a stretch of 16 of one row, its sum
 *      of 2rx + 1 column sums a channel a uint (one read added and one
 *      taken away a pixel after the first), neighbouring work-items on
 *      neighbouring rows (an odd pitch: distinct banks), and divides;
 *   3. the BS_R rows of outputs go through local memory, so that a warp
 *      stores whole rows.
 * Four barriers every BS_R rows; the local memory a pixel is a column sum
 * written and (2rx + 31) / 16 read, whatever the band's height. */
#define BS_UNPACK(v) ((uint4)((v).x & 0xffff, (v).y & 0xffff, (v).x >> 16, (v).y >> 16))
inline uint2 bs_pack(uchar4 p)
{
    const uint v = as_uint(p);
    return (uint2)(BOX_LO(v), BOX_HI(v));
}
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void
box_strip(__global const clv_px *src, __global clv_px *dst, int w, int h, int stride, int rx,
          int ry, uint n, uint m, int l, int mask, int tw, int band, __local uint2 *t)
{
    const int lid = (int)get_local_id(0);
    const int x0 = (int)get_group_id(0) * tw, y0 = (int)get_group_id(1) * band;
    const int y1 = min(h, y0 + band), cols = tw + 2 * rx, pitch = cols | 1;
    const int rows = 4096 / tw, opitch = tw + 1;
    const uint mid = n / 2;
    const int4 m4 =
        (int4)(BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3));
    __global const clv_px *col0 = src + clamp(x0 - rx + lid, 0, w - 1);
    __global const clv_px *col1 = src + clamp(x0 - rx + lid + 256, 0, w - 1);
    __global const clv_px *col2 = src + clamp(x0 - rx + lid + 512, 0, w - 1);
    const bool has1 = lid + 256 < cols, has2 = lid + 512 < cols;
    uint2 v0 = 0, v1 = 0, v2 = 0;
#pragma unroll 8
    for (int j = -ry; j <= ry; ++j) {
        const int yy = clamp(y0 + j, 0, h - 1) * stride;
        v0 += bs_pack(col0[yy]);
        if (has1)
            v1 += bs_pack(col1[yy]);
        if (has2)
            v2 += bs_pack(col2[yy]);
    }
    /* Across: row r of the batch, the stretch of 16 from k. */
    const int r = lid % rows, k = lid / rows * 16;
    __local uint *o = (__local uint *)t;
    for (int yb = y0; yb < y1; yb += rows) {
        /* Down: rows past the band's end keep the last row's sums (as
         * box_tile's: stepping them on would read past the frame). */
        for (int i0 = 0; i0 < rows; i0 += 8) {
            /* The reads of eight rows issued before any is added: one wait
             * for memory, not eight (rows a multiple of 8). */
            uchar4 a0[8], s0[8], a1[8], s1[8], a2[8], s2[8];
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int y = yb + i0 + i;
                const int add = clamp(y + ry, 0, h - 1) * stride;
                const int sub = clamp(y - ry - 1, 0, h - 1) * stride;
                a0[i] = col0[add];
                s0[i] = col0[sub];
                if (has1) {
                    a1[i] = col1[add];
                    s1[i] = col1[sub];
                }
                if (has2) {
                    a2[i] = col2[add];
                    s2[i] = col2[sub];
                }
            }
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int y = yb + i0 + i;
                const bool step = y > y0 && y < y1;
                if (step)
                    v0 += bs_pack(a0[i]) - bs_pack(s0[i]);
                t[(i0 + i) * pitch + lid] = v0;
                if (has1) {
                    if (step)
                        v1 += bs_pack(a1[i]) - bs_pack(s1[i]);
                    t[(i0 + i) * pitch + lid + 256] = v1;
                }
                if (has2) {
                    if (step)
                        v2 += bs_pack(a2[i]) - bs_pack(s2[i]);
                    t[(i0 + i) * pitch + lid + 512] = v2;
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        __local const uint2 *p = t + r * pitch + k;
        uint4 s = 0;
#pragma unroll 8
        for (int j = 0; j <= 2 * rx; ++j)
            s += BS_UNPACK(p[j]);
        uint q[16];
        q[0] = as_uint(convert_uchar4(blur_div4(s + mid, n, m, l)));
#pragma unroll
        for (int i = 1; i < 16; ++i) {
            s += BS_UNPACK(p[i + 2 * rx]) - BS_UNPACK(p[i - 1]);
            q[i] = as_uint(convert_uchar4(blur_div4(s + mid, n, m, l)));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int i = 0; i < 16; ++i)
            o[r * opitch + k + i] = q[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        /* tw is 256 or 512: a shift and a mask, not a division (PTX's
         * integer division is a long sequence) */
        const int tw_log2 = tw == 512 ? 9 : 8;
        for (int e = lid; e < rows * tw; e += 256) {
            const int rr = e >> tw_log2, xx = e & (tw - 1), y = yb + rr, x = x0 + xx;
            if (y < y1 && x < w) {
                int4 v = convert_int4(as_uchar4(o[rr * opitch + xx]));
                if (mask != 15)
                    v = select(convert_int4(src[y * stride + x]), v, m4);
                dst[y * stride + x] = convert_uchar4(v);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

#endif

/* box in two kernels through a frame of column sums t, where the box sums
 * fit 32 bits: the host's choice for long reaches (past 59 at 8 bits, 32 at
 * 16), where one kernel's tile would be mostly reach. The column sums are
 * two channels a uint in 16-bit halves (as box_strip's) at 8 bits where
 * they fit (2ry + 1 <= 257: box_cols and box_across), else a channel a
 * uint (box_cols32, box_across32, and box_across_row for reaches past a
 * tile's).
 *
 * box_cols, down: a work-item keeps the running sum of 2ry + 1 rows of one
 * column for a band of `band` rows (one read added and one taken away a
 * row, the reads of eight rows issued before any is added), neighbouring
 * work-items on neighbouring columns, and writes each row's sums to t. */
#define BC_COLS(NAME, T, PACK)                                                                     \
    __kernel __attribute__((reqd_work_group_size(256, 1, 1))) void NAME(                         \
        __global const clv_px *src, __global T *t, int w, int h, int stride, int ry, int band)     \
    {                                                                                              \
        const int x = (int)get_global_id(0), y0 = (int)get_group_id(1) * band;                     \
        if (x >= w)                                                                                \
            return;                                                                                \
        const int y1 = min(h, y0 + band);                                                          \
        __global const clv_px *col = src + x;                                                      \
        __global T *out = t + x;                                                                   \
        T v = 0;                                                                                   \
        int j = -ry;                                                                               \
        for (; j + 8 <= ry + 1; j += 8) {                                                          \
            clv_px a[8];                                                                           \
            _Pragma("unroll") for (int i = 0; i < 8; ++i) a[i] =                                   \
                col[clamp(y0 + j + i, 0, h - 1) * stride];                                         \
            _Pragma("unroll") for (int i = 0; i < 8; ++i) v += PACK(a[i]);                         \
        }                                                                                          \
        for (; j <= ry; ++j)                                                                       \
            v += PACK(col[clamp(y0 + j, 0, h - 1) * stride]);                                      \
        out[y0 * w] = v;                                                                           \
        for (int y = y0 + 1; y < y1; y += 8) {                                                     \
            /* Rows past y1 are read within the frame (clamped), not used. */                      \
            clv_px a[8], s[8];                                                                     \
            _Pragma("unroll") for (int i = 0; i < 8; ++i)                                          \
            {                                                                                      \
                a[i] = col[min(y + i + ry, h - 1) * stride];                                       \
                s[i] = col[max(y + i - ry - 1, 0) * stride];                                       \
            }                                                                                      \
            _Pragma("unroll") for (int i = 0; i < 8; ++i) if (y + i < y1)                          \
            {                                                                                      \
                v += PACK(a[i]) - PACK(s[i]);                                                      \
                out[(y + i) * w] = v;                                                              \
            }                                                                                      \
        }                                                                                          \
    }
#if CLV_DEPTH == 8
BC_COLS(box_cols, uint2, bs_pack)
#endif
BC_COLS(box_cols32, uint4, convert_uint4)
#undef BC_COLS

/* box_across*, along: a work-group of 256 makes tw outputs of row y from
 * x0 (tw a multiple of 256, tw + 2rx <= BC_CAP). It reads the tw + 2rx
 * column sums they need (clamped into the frame: clamp-to-edge across)
 * into local memory as they are (box_across's in 16-bit halves, read a
 * channel a uint), and makes their prefix sums P in `pre`, a channel a
 * uint (each work-item its stretch of BC_K, BC_K odd so that the
 * work-items of a 16-byte access meet distinct banks; then the stretches'
 * totals before it added: on NVIDIA a warp's by shuffles and the warps'
 * totals through local memory, elsewhere a scan in local memory); the box
 * sum of output x is P[x + 2rx] - P[x - 1]. */
#define BC_CAP 1280
#define BC_K (BC_CAP / 256)
/* The stretches' totals: on NVIDIA a warp's (8); elsewhere every
 * work-item's, in pre's first 256 (no local memory of their own: every
 * kernel here stays within OpenCL's minimum of 32 KiB). */
#if CLV_NV_SM
#define BC_TOT_DECL(pre) __local uint4 tot[8]
#else
#define BC_TOT_DECL(pre) __local uint4 *tot = (pre)
#endif
/* The prefix sums of the work-group's stretches: part[k] holds this
 * work-item's inclusive sums of its stretch and run their total; adds the
 * stretches' totals before it to part, stores them to pre[i0 ..] (within
 * cols), a barrier after; *total is the sum of all. */
inline void bc_scan(uint4 *part, uint4 run, int cols, __local uint4 *pre, __local uint4 *tot,
                    uint4 *total)
{
    const int lid = (int)get_local_id(0), i0 = lid * BC_K;
#if CLV_NV_SM
    const int lane = lid & 31, warp = lid >> 5;
    const uint4 inc = blur_warp_scan(run, lane);
    if (lane == 31)
        tot[warp] = inc;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint4 off = inc - run, all = 0;
    for (int k = 0; k < 8; ++k) {
        const uint4 v = tot[k];
        off += k < warp ? v : (uint4)0;
        all += v;
    }
#else
    /* tot is pre's first 256: pre's reads done before, its writes after */
    barrier(CLK_LOCAL_MEM_FENCE);
    tot[lid] = run;
    for (int k = 1; k < 256; k <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint4 before = lid >= k ? tot[lid - k] : (uint4)0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tot[lid] += before;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint4 off = tot[lid] - run, all = tot[255];
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
#pragma unroll
    for (int k = 0; k < BC_K; ++k) {
        part[k] += off;
        if (i0 + k < cols)
            pre[i0 + k] = part[k];
    }
    *total = all;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Outputs x of the tile: P[x + 2rx] - P[x - 1] divided. */
inline void bc_out(__global const clv_px *src, __global clv_px *dst, int stride, int x0, int y,
                   int end, int rx, uint n, uint m, int l, int mask, __local const uint4 *pre)
{
    const int lid = (int)get_local_id(0);
    const uint mid = n / 2;
    const int4 m4 =
        (int4)(BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3));
    __global const clv_px *srow = src + y * stride + x0;
    __global clv_px *drow = dst + y * stride + x0;
    for (int x = lid; x < end; x += 256) {
        const uint4 s = pre[x + 2 * rx] - (x > 0 ? pre[x - 1] : (uint4)0);
        int4 q = convert_int4(blur_div4(s + mid, n, m, l));
        if (mask != 15)
            q = select(convert_int4(srow[x]), q, m4);
        drow[x] = clv_px_sat(q);
    }
}
/* The box_across kernels: row y's tw outputs from x0, its cols = tw + 2rx
 * column sums read into `raw` as they are (STAGE: its declaration; pre
 * itself for box_across32), LOAD what makes a channel a uint of one. */
#define BC_ACROSS(NAME, T, STAGE, LOAD)                                                        \
    __kernel __attribute__((reqd_work_group_size(256, 1, 1))) void NAME(                         \
        __global const clv_px *src, __global clv_px *dst, int w, int h, int stride,                \
        __global const T *t, int rx, uint n, uint m, int l, int mask, int tw)                      \
    {                                                                                              \
        __local uint4 pre[BC_CAP];                                                                 \
        BC_TOT_DECL(pre);                                                                          \
        STAGE;                                                                                     \
        const int lid = (int)get_local_id(0), i0 = lid * BC_K;                                     \
        const int x0 = (int)get_group_id(0) * tw, y = (int)get_group_id(1);                        \
        const int end = min(tw, w - x0), cols = end + 2 * rx;                                      \
        __global const T *row = t + y * w;                                                         \
        {                                                                                          \
            /* Every read issued before any is stored: one wait for memory. */                     \
            T v[BC_K];                                                                             \
            _Pragma("unroll") for (int k = 0; k < BC_K; ++k) v[k] =                                \
                row[clamp(x0 - rx + lid + 256 * k, 0, w - 1)];                                     \
            _Pragma("unroll") for (int k = 0; k < BC_K; ++k) if (lid + 256 * k < cols)             \
                raw[lid + 256 * k] = v[k];                                                         \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        uint4 part[BC_K], run = 0, total;                                                          \
        _Pragma("unroll") for (int k = 0; k < BC_K; ++k)                                           \
        {                                                                                          \
            if (i0 + k < cols)                                                                     \
                run += LOAD(raw[i0 + k]);                                                          \
            part[k] = run;                                                                         \
        }                                                                                          \
        bc_scan(part, run, cols, pre, tot, &total);                                                \
        bc_out(src, dst, stride, x0, y, end, rx, n, m, l, mask, pre);                              \
    }

#define BC_SAME(v) (v)
#if CLV_DEPTH == 8
BC_ACROSS(box_across, uint2, __local uint2 raw[BC_CAP], BS_UNPACK)
#endif
BC_ACROSS(box_across32, uint4, __local uint4 *raw = pre, BC_SAME)
#undef BC_ACROSS
#undef BC_SAME

/* box_across_row, along, for reaches past box_across32's: a work-group
 * makes the whole of row y. It turns the row's column sums (a channel a
 * uint) into their prefix sums P in place in t, BC_CAP at a time, and the
 * sum of output x is P[b] - P[a - 1] over the window's part inside the
 * row (a = max(x - rx, 0), b = min(x + rx, w - 1)) and the edge columns'
 * sums once for each place it reaches past the row (clamp-to-edge). */
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void
box_across_row(__global const clv_px *src, __global clv_px *dst, int w, int h, int stride,
               __global uint4 *t, int rx, uint n, uint m, int l, int mask)
{
    __local uint4 pre[BC_CAP];
    BC_TOT_DECL(pre);
    const int lid = (int)get_local_id(0), y = (int)get_group_id(1);
    __global uint4 *row = t + y * w;
    const uint4 first = row[0], last = row[w - 1];
    uint4 carry = 0;
    for (int c0 = 0; c0 < w; c0 += BC_CAP) {
        const int len = min(BC_CAP, w - c0);
        uint4 v[BC_K];
#pragma unroll
        for (int k = 0; k < BC_K; ++k)
            v[k] = row[min(c0 + lid + 256 * k, w - 1)];
#pragma unroll
        for (int k = 0; k < BC_K; ++k)
            if (lid + 256 * k < len)
                pre[lid + 256 * k] = v[k];
        /* every read of the row's sums (first and last too) before any
         * of them is written over */
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        uint4 part[BC_K], run = 0, total;
#pragma unroll
        for (int k = 0; k < BC_K; ++k) {
            if (lid * BC_K + k < len)
                run += pre[lid * BC_K + k];
            part[k] = run;
        }
        bc_scan(part, run, len, pre, tot, &total);
#pragma unroll
        for (int k = 0; k < BC_K; ++k)
            if (lid + 256 * k < len)
                row[c0 + lid + 256 * k] = pre[lid + 256 * k] + carry;
        carry += total;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    const uint mid = n / 2;
    const int4 m4 =
        (int4)(BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3));
    __global const clv_px *srow = src + y * stride;
    __global clv_px *drow = dst + y * stride;
    for (int x = lid; x < w; x += 256) {
        const int a = max(x - rx, 0), b = min(x + rx, w - 1);
        const uint4 s = row[b] - (a > 0 ? row[a - 1] : (uint4)0) + (uint)(a - (x - rx)) * first +
                        (uint)(x + rx - b) * last;
        int4 q = convert_int4(blur_div4(s + mid, n, m, l));
        if (mask != 15)
            q = select(convert_int4(srow[x]), q, m4);
        drow[x] = clv_px_sat(q);
    }
}
#undef BS_UNPACK

/* box, along the rows: src -> t, the sums of 2rx+1 pixels, seg pixels a
 * work-item (a running sum after the first). */
__kernel void box_h(__global const clv_px *src, __global uint4 *t, int w, int h, int stride, int rx,
                    int seg)
{
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * seg;
    if (y >= h || x0 >= w)
        return;
    __global const clv_px *r = src + y * stride;
    uint4 s = convert_uint4(r[x0]);
    for (int k = 1; k <= rx; ++k)
        s += convert_uint4(r[max(x0 - k, 0)]) + convert_uint4(r[min(x0 + k, w - 1)]);
    t[y * stride + x0] = s;
    const int x1 = min(x0 + seg, w);
    for (int x = x0 + 1; x < x1; ++x) {
        s += convert_uint4(r[min(x + rx, w - 1)]) - convert_uint4(r[max(x - rx - 1, 0)]);
        t[y * stride + x] = s;
    }
}

/* box, down the columns: t -> dst, four columns and `band` rows a
 * work-item, the column sums kept as they slide. */
__kernel void box_v(__global const clv_px *src, __global clv_px *dst, int w, int h, int stride,
                    __global const uint4 *t, int ry, uint n, uint m, int l, int wide, int mask,
                    int band)
{
    const int x0 = (int)get_global_id(0) * 4, y0 = (int)get_global_id(1) * band;
    if (x0 >= w || y0 >= h)
        return;
    const int nx = min(4, w - x0), y1 = min(h, y0 + band);
    const uint mid = n / 2;
    const int4 m4 =
        (int4)(BLUR_LANE(mask, 0), BLUR_LANE(mask, 1), BLUR_LANE(mask, 2), BLUR_LANE(mask, 3));
    if (!wide) {
        uint4 s[4];
        for (int i = 0; i < nx; ++i) {
            s[i] = t[y0 * stride + x0 + i];
            for (int j = 1; j <= ry; ++j)
                s[i] +=
                    t[max(y0 - j, 0) * stride + x0 + i] + t[min(y0 + j, h - 1) * stride + x0 + i];
        }
        for (int y = y0; y < y1; ++y)
            for (int i = 0; i < nx; ++i) {
                const int x = x0 + i;
                if (y > y0)
                    s[i] += t[min(y + ry, h - 1) * stride + x] - t[max(y - ry - 1, 0) * stride + x];
                const int4 q = convert_int4(blur_div4(s[i] + mid, n, m, l));
                const int4 v = convert_int4(src[y * stride + x]);
#if CLV_DEPTH == 16
                dst[y * stride + x] = convert_ushort4(select(v, q, m4));
#else
                dst[y * stride + x] = convert_uchar4(select(v, q, m4));
#endif
            }
    } else {
        ulong4 s[4];
        for (int i = 0; i < nx; ++i) {
            s[i] = convert_ulong4(t[y0 * stride + x0 + i]);
            for (int j = 1; j <= ry; ++j)
                s[i] += convert_ulong4(t[max(y0 - j, 0) * stride + x0 + i]) +
                        convert_ulong4(t[min(y0 + j, h - 1) * stride + x0 + i]);
        }
        for (int y = y0; y < y1; ++y)
            for (int i = 0; i < nx; ++i) {
                const int x = x0 + i;
                if (y > y0)
                    s[i] += convert_ulong4(t[min(y + ry, h - 1) * stride + x]) -
                            convert_ulong4(t[max(y - ry - 1, 0) * stride + x]);
                const int4 q = convert_int4((s[i] + mid) / n);
                const int4 v = convert_int4(src[y * stride + x]);
#if CLV_DEPTH == 16
                dst[y * stride + x] = convert_ushort4(select(v, q, m4));
#else
                dst[y * stride + x] = convert_uchar4(select(v, q, m4));
#endif
            }
    }
}
#endif
