/* convolution.cl - N x N integer correlation (convolution, sharpen, emboss).
 * Per R,G,B: clamp(floor((2*S + D) / (2*D)) + bias); alpha passes through.
 * inv = 1.0f / (2*D) feeds clv_floor_div_inv. A GPU's 3x3 is built with
 * its matrix as constants: CONV_K (nine coefficients), CONV_DIV (D, the
 * effective divisor) and CONV_BIAS (src/filters/convolution.c). At 16 bits
 * the same on 0-65535 with the bias times 257 (bias and CONV_BIAS come on
 * the 8-bit scale). */

#if CLV_DEPTH == 8

inline uchar conv_finish(int s, int div, float inv, int bias)
{
    if (div != 1)
        s = clv_floor_div_inv(2 * s + div, 2 * div, inv);
    return convert_uchar_sat(s + bias);
}

#ifdef CONV_K
#define CONV_D2 (2 * CONV_DIV)
/* conv_finish with the divisor and bias known to the compiler: a power of
 * two is an arithmetic shift (a floor); another divisor divides 2S + D made
 * non-negative by off, a multiple of 2D above any |2S + D| the matrix can
 * reach (conv_offset), so that it is an unsigned multiply-high. */
inline uchar conv_finish_k(int s, int off)
{
#if CONV_DIV == 1
    return convert_uchar_sat(s + CONV_BIAS);
#elif (CONV_D2 & (CONV_D2 - 1)) == 0
    return convert_uchar_sat(((2 * s + CONV_DIV) >> (31 - clz(CONV_D2))) + CONV_BIAS);
#else
    const uint v = (uint)(2 * s + CONV_DIV + off);
    return convert_uchar_sat((int)(v / CONV_D2) - off / CONV_D2 + CONV_BIAS);
#endif
}

/* |S| <= 255 * sum |k|, so |2S + D| <= 510 * sum |k| + D: under 2^27 for
 * coefficients within +-10000 and D <= 10^6; 2S + D + off under 2^27. */
inline int conv_offset(const int *k)
{
    int a = 0;
    for (int i = 0; i < 9; ++i)
        a += abs(k[i]);
    return ((510 * a + CONV_DIV) / CONV_D2 + 1) * CONV_D2;
}
#endif

/* One pixel with clamp-to-edge: the GPU shape, and the row shape's edges. */
inline uchar4 conv_pixel(__global const uchar4 *src, int w, int h, int stride, __constant int *coef,
                         int n, int div, float inv, int bias, int x, int y)
{
    const int r = n / 2;
    int4 s = (int4)0;
    for (int dy = 0; dy < n; ++dy) {
        const int yy = clamp(y + dy - r, 0, h - 1) * stride;
        for (int dx = 0; dx < n; ++dx)
            s += coef[dy * n + dx] * clv_int4(src[yy + clamp(x + dx - r, 0, w - 1)]);
    }
    return (uchar4)(conv_finish(s.x, div, inv, bias), conv_finish(s.y, div, inv, bias),
                    conv_finish(s.z, div, inv, bias), src[y * stride + x].w);
}

__kernel void convolve(CLV_FRAME_ARGS, __constant int *coef, int n, int div, int bias, float inv)
{
#if !CLV_ROW
    if (n == 3) {
        /* Four pixels in each of two rows a work-item from one 4 x 6
         * neighbourhood, coefficients held: the rows share the middle two
         * rows' loads and byte moves. */
        CLV_WIN3x2(src, w, h, stride,
                   dst[yy * stride + x] =
                       conv_pixel(src, w, h, stride, coef, 3, div, inv, bias, x, yy));
#ifdef CONV_K
        /* The matrix as constants: zero taps vanish, the divisor becomes a
         * shift or a multiply-high, and no coefficient occupies a register. */
        const int kk[9] = {CONV_K};
        const int off = conv_offset(kk);
#define CONV_FINISH(s) conv_finish_k(s, off)
#else
        __constant const int *kk = coef;
#define CONV_FINISH(s) conv_finish(s, div, inv, bias)
#endif
        const int k0 = kk[0], k1 = kk[1], k2 = kk[2], k3 = kk[3], k4 = kk[4], k5 = kk[5],
                  k6 = kk[6], k7 = kk[7], k8 = kk[8];
        /* One channel at a time, each output word assembled as it goes
         * (fewer live registers for the dividing matrices). */
        uint ow[4], ow1[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            ow[i] = as_uint(b[i + 1]) & 0xFF000000u;
            ow1[i] = as_uint(c[i + 1]) & 0xFF000000u;
        }
#define CONV3(t, m, u, i)                                                                          \
    (k0 * t[i] + k1 * t[i + 1] + k2 * t[i + 2] + k3 * m[i] + k4 * m[i + 1] + k5 * m[i + 2] +       \
     k6 * u[i] + k7 * u[i + 1] + k8 * u[i + 2])
#pragma unroll
        for (int ch = 0; ch < 3; ++ch) {
            int ta[6], tb[6], tc[6], td[6];
#pragma unroll
            for (int i = 0; i < 6; ++i) {
                ta[i] = clv_channel(a[i], ch);
                tb[i] = clv_channel(b[i], ch);
                tc[i] = clv_channel(c[i], ch);
                td[i] = clv_channel(d[i], ch);
            }
#ifdef CONV_K
            if (k0 == k1 && k1 == k2 && k3 == k4 && k4 == k5 && k6 == k7 && k7 == k8) {
                /* Every column alike (a box): each column's sum serves three
                 * outputs. */
                int va[6], vb[6];
#pragma unroll
                for (int i = 0; i < 6; ++i) {
                    va[i] = k0 * ta[i] + k3 * tb[i] + k6 * tc[i];
                    vb[i] = k0 * tb[i] + k3 * tc[i] + k6 * td[i];
                }
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    ow[i] |= (uint)CONV_FINISH(va[i] + va[i + 1] + va[i + 2]) << (8 * ch);
                    ow1[i] |= (uint)CONV_FINISH(vb[i] + vb[i + 1] + vb[i + 2]) << (8 * ch);
                }
                continue;
            }
#endif
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                ow[i] |= (uint)CONV_FINISH(CONV3(ta, tb, tc, i)) << (8 * ch);
                ow1[i] |= (uint)CONV_FINISH(CONV3(tb, tc, td, i)) << (8 * ch);
            }
        }
#undef CONV3
#undef CONV_FINISH
        *(__global uint4 *)(dst + y * stride + x0) = (uint4)(ow[0], ow[1], ow[2], ow[3]);
        if (y + 1 < h)
            *(__global uint4 *)(dst + (y + 1) * stride + x0) =
                (uint4)(ow1[0], ow1[1], ow1[2], ow1[3]);
        return;
    }
#endif
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * stride + x] = conv_pixel(src, w, h, stride, coef, n, div, inv, bias, x, y);
}

#if CLV_ROW
/* Row shape only (a GPU never launches it, and compiling its 16-lane loops
 * took NVIDIA's compiler 1.1 s of a cold start): the interior of the row
 * in tiles of bytes, one pass over the tile per coefficient, so every inner
 * loop is a plain byte loop the compiler vectorizes whatever N is; the N/2
 * pixels at each end go through conv_pixel. */
#define CONV_TILE 512

/* Row y of the frame (the row kernel's body, and the fused kernel's on its
 * strips). */
CLV_ROW_FN void conv_row(CLV_FRAME_ARGS, int y, __constant int *coef, int n, int div, int bias,
                         float inv)
{
    const int r = n / 2;
    CLV_ROW_EDGES(x, r)
    dst[y * stride + x] = conv_pixel(src, w, h, stride, coef, n, div, inv, bias, x, y);
    __global const uchar *centre = CLV_ROW_BYTES_CONST(src, y);
    __global uchar *restrict out = CLV_ROW_BYTES(dst, y);
    if (n == 3) { /* the common case, unrolled: about twice the tiles' speed */
        const int k0 = coef[0], k1 = coef[1], k2 = coef[2], k3 = coef[3], k4 = coef[4],
                  k5 = coef[5], k6 = coef[6], k7 = coef[7], k8 = coef[8];
        __global const uchar *r0 = CLV_ROW_BYTES_CONST(src, max(y - 1, 0));
        __global const uchar *r2 = CLV_ROW_BYTES_CONST(src, min(y + 1, h - 1));
        const int end = 4 * (w - 1);
        const int reach = 255 * (abs(k0) + abs(k1) + abs(k2) + abs(k3) + abs(k4) + abs(k5) +
                                 abs(k6) + abs(k7) + abs(k8)) +
                          abs(bias);
        if (div == 1 && reach <= SHRT_MAX) {
            /* Every partial sum fits 16 bits (sharpen, emboss): twice the
             * lanes of the int loop below. */
            /* OpenCL vector arithmetic does not promote: short16 math. */
            const short16 c0 = (short)k0, c1 = (short)k1, c2 = (short)k2, c3 = (short)k3,
                          c4 = (short)k4, c5 = (short)k5, c6 = (short)k6, c7 = (short)k7,
                          c8 = (short)k8, b = (short)bias;
            const uchar16 alpha = (uchar16)(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255);
            int i = 4;
#define CONV_LOAD(p, o) convert_short16(*(__global const clv_uchar16_u *)((p) + i + (o)))
            if (k0 == 0 && k2 == 0 && k6 == 0 && k8 == 0) {
                /* A plus shape (sharpen, Laplacians): five taps, and the
                 * four arms summed first when they share a coefficient. */
                if (k1 == k3 && k1 == k5 && k1 == k7) {
                    for (; i + 16 <= end; i += 16) {
                        const short16 s = c4 * CONV_LOAD(centre, 0) +
                                          c1 * (CONV_LOAD(r0, 0) + CONV_LOAD(centre, -4) +
                                                CONV_LOAD(centre, 4) + CONV_LOAD(r2, 0)) +
                                          b;
                        *(__global clv_uchar16_u *)(out + i) =
                            bitselect(convert_uchar16_sat(s),
                                      *(__global const clv_uchar16_u *)(centre + i), alpha);
                    }
                } else {
                    for (; i + 16 <= end; i += 16) {
                        const short16 s = c1 * CONV_LOAD(r0, 0) + c3 * CONV_LOAD(centre, -4) +
                                          c4 * CONV_LOAD(centre, 0) + c5 * CONV_LOAD(centre, 4) +
                                          c7 * CONV_LOAD(r2, 0) + b;
                        *(__global clv_uchar16_u *)(out + i) =
                            bitselect(convert_uchar16_sat(s),
                                      *(__global const clv_uchar16_u *)(centre + i), alpha);
                    }
                }
            }
            for (; i + 16 <= end; i += 16) {
                const short16 s = c0 * CONV_LOAD(r0, -4) + c1 * CONV_LOAD(r0, 0) +
                                  c2 * CONV_LOAD(r0, 4) + c3 * CONV_LOAD(centre, -4) +
                                  c4 * CONV_LOAD(centre, 0) + c5 * CONV_LOAD(centre, 4) +
                                  c6 * CONV_LOAD(r2, -4) + c7 * CONV_LOAD(r2, 0) +
                                  c8 * CONV_LOAD(r2, 4) + b;
                *(__global clv_uchar16_u *)(out + i) = bitselect(
                    convert_uchar16_sat(s), *(__global const clv_uchar16_u *)(centre + i), alpha);
            }
#undef CONV_LOAD
            for (; i < end; ++i) {
                const int s = k0 * r0[i - 4] + k1 * r0[i] + k2 * r0[i + 4] + k3 * centre[i - 4] +
                              k4 * centre[i] + k5 * centre[i + 4] + k6 * r2[i - 4] + k7 * r2[i] +
                              k8 * r2[i + 4];
                out[i] = (i & 3) == 3 ? centre[i] : convert_uchar_sat(s + bias);
            }
        } else if (div == 1) { /* alpha put back after (clv_row_alpha) */
            for (int i = 4; i < end; ++i) {
                const int s = k0 * r0[i - 4] + k1 * r0[i] + k2 * r0[i + 4] + k3 * centre[i - 4] +
                              k4 * centre[i] + k5 * centre[i + 4] + k6 * r2[i - 4] + k7 * r2[i] +
                              k8 * r2[i + 4];
                out[i] = convert_uchar_sat(s + bias);
            }
            clv_row_alpha(out, centre, 1, w - 1);
        } else {
            for (int i = 4; i < end; ++i) {
                const int s = k0 * r0[i - 4] + k1 * r0[i] + k2 * r0[i + 4] + k3 * centre[i - 4] +
                              k4 * centre[i] + k5 * centre[i + 4] + k6 * r2[i - 4] + k7 * r2[i] +
                              k8 * r2[i + 4];
                out[i] = convert_uchar_sat(clv_floor_div_inv(2 * s + div, 2 * div, inv) + bias);
            }
            clv_row_alpha(out, centre, 1, w - 1);
        }
        return;
    }
    int acc[CONV_TILE];
    for (int t = 4 * r; t < 4 * (w - r); t += CONV_TILE) {
        const int len = min(CONV_TILE, 4 * (w - r) - t);
        for (int i = 0; i < len; ++i)
            acc[i] = 0;
        for (int j = 0; j < n; ++j) {
            __global const uchar *row = CLV_ROW_BYTES_CONST(src, clamp(y + j - r, 0, h - 1)) + t;
            for (int dx = 0; dx < n; ++dx) {
                const int k = coef[j * n + dx];
                if (k == 0)
                    continue;
                __global const uchar *p = row + 4 * (dx - r);
                for (int i = 0; i < len; ++i)
                    acc[i] += k * p[i];
            }
        }
        if (div == 1) { /* alpha too: put back below */
            for (int i = 0; i < len; ++i)
                out[t + i] = convert_uchar_sat(acc[i] + bias);
        } else {
            for (int i = 0; i < len; ++i)
                out[t + i] =
                    convert_uchar_sat(clv_floor_div_inv(2 * acc[i] + div, 2 * div, inv) + bias);
        }
    }
    clv_row_alpha(out, centre, r, w - r);
}

__kernel void convolve_rows(CLV_FRAME_ARGS, __constant int *coef, int n, int div, int bias,
                            float inv)
{
    CLV_ROW_Y(y);
    conv_row(src, dst, w, h, stride, y, coef, n, div, bias, inv);
}

/* The same inside the stage's conversions (cl/yuv.cl); reach = n / 2. */
__kernel void convolve_yuv(CLV_FUSED_ARGS, __constant int *coef, int n, int div, int bias,
                           float inv)
{
    CLV_FUSED_BODY(conv_row(fsrc, fdst, w, fh, stride, fy, coef, n, div, bias, inv));
}
#endif

#else /* CLV_DEPTH == 16 */

/* |S| <= 65535 * a, a = sum |k|, reaches 65535 * 49 * 10000: a matrix whose
 * sums conv_narrow keeps in int (a up to 8191 for small D: sharpen, emboss, the
 * blurs) takes int arithmetic, any other long. */
#define CONV_BIAS16(bias) ((bias)*257)

/* a = sum |k| of the n x n matrix. */
inline int conv_abs_sum(__constant int *coef, int n)
{
    int a = 0;
    for (int i = 0; i < n * n; ++i)
        a += abs(coef[i]);
    return a;
}

/* |2S + D| <= conv_reach; conv_narrow: 2 * reach + 2D (conv_finish_k's
 * offset sum) fits an int, and with it S, 2S + D and S + 257 bias. */
inline long conv_reach(int a, int div)
{
    return 2 * 65535 * (long)a + div;
}

inline int conv_narrow(int a, int div)
{
    return 2 * conv_reach(a, div) + 2 * (long)div <= INT_MAX;
}

/* clamp(floor((2s + D) / 2D) + 257 bias) for a narrow sum. Where
 * |(2s + D) / 2D| >= 2^20 clv_floor_div_inv is a few units off, with the
 * quotient's sign: saturated either way after a bias of at most 263168. */
inline ushort conv_finish(int s, int div, float inv, int bias)
{
    if (div != 1)
        s = clv_floor_div_inv(2 * s + div, 2 * div, inv);
    return convert_ushort_sat(s + CONV_BIAS16(bias));
}

/* The same for a long sum: the float quotient is within one of the floor
 * below 2^20 (one correction each way), and beyond it saturates as above. */
inline ushort conv_finish_long(long s, int div, float inv, int bias)
{
    if (div != 1) {
        const long a = 2 * s + div, b = 2 * (long)div;
        long q = convert_long_rtn((float)a * inv);
        q -= q * b > a;
        q += (q + 1) * b <= a;
        s = q;
    }
    return convert_ushort_sat(s + CONV_BIAS16(bias));
}

#ifdef CONV_K
#define CONV_D2 (2 * CONV_DIV)
/* conv_finish with the divisor and bias known to the compiler, as at 8
 * bits: off is a multiple of 2D above |2S + D| (conv_offset), so that a
 * divisor other than a power of two is an unsigned division by a
 * constant. */
inline long conv_offset(int a)
{
    return (conv_reach(a, CONV_DIV) / CONV_D2 + 1) * CONV_D2;
}

inline ushort conv_finish_k(int s, int off)
{
#if CONV_DIV == 1
    return convert_ushort_sat(s + CONV_BIAS16(CONV_BIAS));
#elif (CONV_D2 & (CONV_D2 - 1)) == 0
    return convert_ushort_sat(((2 * s + CONV_DIV) >> (31 - clz(CONV_D2))) + CONV_BIAS16(CONV_BIAS));
#else
    const uint v = (uint)(2 * s + CONV_DIV + off);
    return convert_ushort_sat((int)(v / CONV_D2) - off / CONV_D2 + CONV_BIAS16(CONV_BIAS));
#endif
}

inline ushort conv_finish_k_long(long s, long off)
{
#if CONV_DIV == 1
    return convert_ushort_sat(s + CONV_BIAS16(CONV_BIAS));
#elif (CONV_D2 & (CONV_D2 - 1)) == 0
    return convert_ushort_sat(((2 * s + CONV_DIV) >> (31 - clz(CONV_D2))) + CONV_BIAS16(CONV_BIAS));
#else
    const ulong v = (ulong)(2 * s + CONV_DIV + off);
    return convert_ushort_sat((long)(v / CONV_D2) - off / CONV_D2 + CONV_BIAS16(CONV_BIAS));
#endif
}
#endif

/* One pixel with clamp-to-edge: the GPU shape's N x N and row ends, and the
 * row shape's edges. */
inline ushort4 conv_pixel(__global const ushort4 *src, int w, int h, int stride,
                          __constant int *coef, int n, int div, float inv, int bias, int narrow,
                          int x, int y)
{
    const int r = n / 2;
    const ushort alpha = src[y * stride + x].w;
    if (narrow) {
        int4 s = (int4)0;
        for (int dy = 0; dy < n; ++dy) {
            const int yy = clamp(y + dy - r, 0, h - 1) * stride;
            for (int dx = 0; dx < n; ++dx)
                s += coef[dy * n + dx] * convert_int4(src[yy + clamp(x + dx - r, 0, w - 1)]);
        }
        return (ushort4)(conv_finish(s.x, div, inv, bias), conv_finish(s.y, div, inv, bias),
                         conv_finish(s.z, div, inv, bias), alpha);
    }
    long4 s = (long4)0;
    for (int dy = 0; dy < n; ++dy) {
        const int yy = clamp(y + dy - r, 0, h - 1) * stride;
        for (int dx = 0; dx < n; ++dx)
            s += (long)coef[dy * n + dx] * convert_long4(src[yy + clamp(x + dx - r, 0, w - 1)]);
    }
    return (ushort4)(conv_finish_long(s.x, div, inv, bias), conv_finish_long(s.y, div, inv, bias),
                     conv_finish_long(s.z, div, inv, bias), alpha);
}

__kernel void convolve(CLV_FRAME_ARGS, __constant int *coef, int n, int div, int bias, float inv)
{
#if !CLV_ROW
    if (n == 3) {
        /* Four pixels in each of two rows a work-item from one 4 x 6
         * neighbourhood, as at 8 bits (the rows share the middle two
         * rows' loads), in int4 or long4 lanes. */
        CLV_WIN3x2(src, w, h, stride,
                   dst[yy * stride + x] =
                       conv_pixel(src, w, h, stride, coef, 3, div, inv, bias,
                                  conv_narrow(conv_abs_sum(coef, 3), div), x, yy));
#ifdef CONV_K
        /* The matrix as constants: zero taps vanish, the divisor becomes a
         * shift or a division by a constant, the width is chosen here. */
        const int kk[9] = {CONV_K};
        int abs_sum = 0;
#pragma unroll
        for (int i = 0; i < 9; ++i)
            abs_sum += abs(kk[i]);
        const int narrow = conv_narrow(abs_sum, CONV_DIV);
        const long off = conv_offset(abs_sum);
#define CONV_FINISH(s) conv_finish_k(s, (int)off)
#define CONV_FINISH_LONG(s) conv_finish_k_long(s, off)
#else
        __constant const int *kk = coef;
        const int narrow = conv_narrow(conv_abs_sum(coef, 3), div);
#define CONV_FINISH(s) conv_finish(s, div, inv, bias)
#define CONV_FINISH_LONG(s) conv_finish_long(s, div, inv, bias)
#endif
        const int k0 = kk[0], k1 = kk[1], k2 = kk[2], k3 = kk[3], k4 = kk[4], k5 = kk[5],
                  k6 = kk[6], k7 = kk[7], k8 = kk[8];
        ushort4 o[4], o1[4];
        /* Rows t, m, u of the window around output i, in lanes of type T. */
#define CONV3(T, t, m, u, i)                                                                       \
    ((T)k0 * t[i] + (T)k1 * t[i + 1] + (T)k2 * t[i + 2] + (T)k3 * m[i] + (T)k4 * m[i + 1] +        \
     (T)k5 * m[i + 2] + (T)k6 * u[i] + (T)k7 * u[i + 1] + (T)k8 * u[i + 2])
#define CONV3x2(T, T4, FINISH)                                                                     \
    {                                                                                              \
        T4 ta[6], tb[6], tc[6], td[6];                                                             \
        _Pragma("unroll") for (int i = 0; i < 6; ++i)                                              \
        {                                                                                          \
            ta[i] = convert_##T4(a[i]);                                                            \
            tb[i] = convert_##T4(b[i]);                                                            \
            tc[i] = convert_##T4(c[i]);                                                            \
            td[i] = convert_##T4(d[i]);                                                            \
        }                                                                                          \
        _Pragma("unroll") for (int i = 0; i < 4; ++i)                                              \
        {                                                                                          \
            const T4 s0 = CONV3(T, ta, tb, tc, i), s1 = CONV3(T, tb, tc, td, i);                   \
            o[i] = (ushort4)(FINISH(s0.x), FINISH(s0.y), FINISH(s0.z), b[i + 1].w);                \
            o1[i] = (ushort4)(FINISH(s1.x), FINISH(s1.y), FINISH(s1.z), c[i + 1].w);               \
        }                                                                                          \
    }
        if (narrow)
            CONV3x2(int, int4, CONV_FINISH) else CONV3x2(long, long4, CONV_FINISH_LONG)
#undef CONV3x2
#undef CONV3
#undef CONV_FINISH
#undef CONV_FINISH_LONG
                CLV_STORE4(dst, stride, y, x0, o);
        if (y + 1 < h)
            CLV_STORE4(dst, stride, y + 1, x0, o1);
        return;
    }
#endif
    const int narrow = conv_narrow(conv_abs_sum(coef, n), div);
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * stride + x] = conv_pixel(src, w, h, stride, coef, n, div, inv, bias, narrow, x, y);
}

#if CLV_ROW
/* The row shape, as at 8 bits: the interior of the row in tiles of
 * channels, one pass over the tile per coefficient (plain loops the
 * compiler vectorizes), alpha computed like a channel and put back after;
 * the N/2 pixels at each end through conv_pixel. */
#define CONV_TILE 512

#define CONV_TILES(T, FINISH)                                                                      \
    {                                                                                              \
        for (int t = 4 * r; t < 4 * (w - r); t += CONV_TILE) {                                     \
            const int len = min(CONV_TILE, 4 * (w - r) - t);                                       \
            T acc[CONV_TILE];                                                                      \
            for (int i = 0; i < len; ++i)                                                          \
                acc[i] = 0;                                                                        \
            for (int j = 0; j < n; ++j) {                                                          \
                __global const ushort *row =                                                       \
                    (__global const ushort *)(src + clamp(y + j - r, 0, h - 1) * stride) + t;      \
                for (int dx = 0; dx < n; ++dx) {                                                   \
                    const T k = coef[j * n + dx];                                                  \
                    if (k == 0)                                                                    \
                        continue;                                                                  \
                    __global const ushort *p = row + 4 * (dx - r);                                 \
                    for (int i = 0; i < len; ++i)                                                  \
                        acc[i] += k * p[i];                                                        \
                }                                                                                  \
            }                                                                                      \
            for (int i = 0; i < len; ++i)                                                          \
                out[t + i] = FINISH(acc[i], div, inv, bias);                                       \
        }                                                                                          \
    }

__kernel void convolve_rows(CLV_FRAME_ARGS, __constant int *coef, int n, int div, int bias,
                            float inv)
{
    CLV_ROW_Y(y);
    const int r = n / 2, narrow = conv_narrow(conv_abs_sum(coef, n), div);
    CLV_ROW_EDGES(x, r)
    dst[y * stride + x] = conv_pixel(src, w, h, stride, coef, n, div, inv, bias, narrow, x, y);
    __global const ushort *centre = (__global const ushort *)(src + y * stride);
    __global ushort *restrict out = (__global ushort *)(dst + y * stride);
    if (n == 3 && narrow) {
        /* The common case in one pass over the row, as at 8 bits. */
        const int k0 = coef[0], k1 = coef[1], k2 = coef[2], k3 = coef[3], k4 = coef[4],
                  k5 = coef[5], k6 = coef[6], k7 = coef[7], k8 = coef[8];
        __global const ushort *r0 = (__global const ushort *)(src + max(y - 1, 0) * stride);
        __global const ushort *r2 = (__global const ushort *)(src + min(y + 1, h - 1) * stride);
        for (int i = 4; i < 4 * (w - 1); ++i) {
            const int s = k0 * r0[i - 4] + k1 * r0[i] + k2 * r0[i + 4] + k3 * centre[i - 4] +
                          k4 * centre[i] + k5 * centre[i + 4] + k6 * r2[i - 4] + k7 * r2[i] +
                          k8 * r2[i + 4];
            out[i] = conv_finish(s, div, inv, bias);
        }
    } else if (narrow) {
        CONV_TILES(int, conv_finish)
    } else {
        CONV_TILES(long, conv_finish_long)
    }
    for (int x = r; x < w - r; ++x)
        out[4 * x + 3] = centre[4 * x + 3];
}
#undef CONV_TILES
#endif
#endif /* CLV_DEPTH */
