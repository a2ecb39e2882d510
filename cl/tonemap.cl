/* tonemap.cl - ffmpeg's tonemap from the chain's PQ or HLG R'G'B' to SDR
 * BT.709 R'G'B' (src/filters/tonemap.c builds the tables and holds the
 * reference). Every step is integer arithmetic on the host's tables, the
 * reference's step for step: linear light (1.0 = 1 << 23), the gamut
 * matrix, desaturation, the curve's ratio of the brightest component, the
 * output transfer (BT.1886 inverted). With a measured peak,
 * tonemap_measure reduces a quarter of the frame's pixels (their largest
 * max(R, G, B) and their PQ levels' sum), tonemap_peak smooths them and
 * picks the curve, and tonemap_map reads the pick: all on the device, in
 * order on the queue.
 * The same kernels at 8 and 16 bits: 8-bit codes index the tables as
 * code * 257. */

/* The fixed point and the tables' and constants' layout: tonemap.c's. */
#define LIN_BITS 23
#define LIN_ONE (1u << LIN_BITS)
#define SEG_BITS 5
#define SEGS (1 << SEG_BITS)
#define LOG_KNOTS ((32 - SEG_BITS) * SEGS + 1)
#define RATIO_BITS 24
#define K_MODE 0
#define K_M 1
#define K_LUMA 10
#define K_DESAT 13
#define K_MEASURE 14
#define K_EMA 15
#define K_SCENE_LO 16
#define K_SCENE_HI 17
#define K_ROW_LO 18
#define K_ROW_STEP 19
#define K_ROWS 20
#define MODE_PASS 0
#define MODE_HLG 2
#define ST_MAX 0
#define ST_SUM_LO 1
#define ST_SUM_HI 2
#define ST_STARTED 3
#define ST_AVG 4
#define ST_PEAK 5
#define ST_ROW 6

#define TM_GROUP 256 /* tonemap_measure's work-group on GPUs (the host's) */

/* Every step is 32-bit arithmetic, or products of two 32-bit operands
 * summed in 64 bits and shifted back into 32 (tonemap.c's tables_check
 * proves the ranges this takes). GPUs have no 64-bit multiply: a 32 x 32
 * -> 64-bit multiply-add is one instruction on NVIDIA, but a compiler may
 * not see that the operands are 32-bit once their widening is hoisted out
 * of the loop (clang's NVPTX made such products mul.lo.s64), hence PTX's
 * mad.wide there. */

/* a * b + c, a and b signed. */
inline long tm_mad_wide(int a, int b, long c)
{
#if CLV_NV_SM
    long d;
    asm("mad.wide.s32 %0, %1, %2, %3;" : "=l"(d) : "r"(a), "r"(b), "l"(c));
    return d;
#else
    return (long)a * b + c;
#endif
}

/* a * b + c, a and b unsigned. */
inline ulong tm_mad_wide_u(uint a, uint b, ulong c)
{
#if CLV_NV_SM
    ulong d;
    asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(d) : "r"(a), "r"(b), "l"(c));
    return d;
#else
    return (ulong)a * b + c;
#endif
}

/* Table t (log-spaced knots: v itself below 2 * SEGS, then SEGS an
 * octave) at v, interpolated, rounded: with s = v's top bit - SEG_BITS,
 * knot k = s * SEGS + (v >> s) and the fraction f = v mod 2^s,
 * floor((t[k] * (2^s - f) + t[k + 1] * f + 2^(s - 1)) / 2^s). That is
 * taken here with f scaled to FRAC_BITS bits, a constant shift for every
 * v: v shifted up to bit 31 holds k's place in the octave in the SEG_BITS
 * bits below its top bit and the scaled f below those. Below 2 * SEGS the
 * shift stops at FRAC_BITS, leaving k = v and f = 0 without a branch. The
 * sum is two widening products (t below 2^32, weights up to 2^26). */
#define FRAC_BITS (31 - SEG_BITS)
inline uint tm_interp(__global const uint *t, uint v)
{
    const uint n = min(clz(v), (uint)FRAC_BITS), top = v << n;
    const uint w = top & ((1u << FRAC_BITS) - 1u);
    __global const uint *e = t + ((FRAC_BITS - n) << SEG_BITS) + (top >> FRAC_BITS);
    const ulong sum = tm_mad_wide_u(e[1], w, 1u << (FRAC_BITS - 1));
    return (uint)(tm_mad_wide_u(e[0], (1u << FRAC_BITS) - w, sum) >> FRAC_BITS);
}

/* A pixel's R, G, B as 16-bit codes. */
inline uint3 tm_codes(clv_px p)
{
#if CLV_DEPTH == 16
    return (uint3)((uint)p.x, (uint)p.y, (uint)p.z);
#else
    return (uint3)((uint)p.x, (uint)p.y, (uint)p.z) * 257u;
#endif
}

/* Q16 products' sum rounded, halves up: floor(sum / 2^16) of a sum that
 * started at 2^15, by an arithmetic shift; the result fits 32 bits. */
#define Q16_HALF 32768L
inline int tm_q16(long sum)
{
    return (int)(sum >> 16);
}

/* The constants a pixel takes, k[0] to k[K_DESAT], copied once a
 * work-item into kp (registers): the compiler may not keep them there by
 * itself, since the frame's stores could alias k. */
#define TM_PIXEL_K (K_DESAT + 1)
inline void tm_pixel_k(__global const int *k, int *kp)
{
    for (int i = 0; i < TM_PIXEL_K; i++)
        kp[i] = k[i];
}

/* The Q16 row m times (r, g, b). */
inline int tm_dot(const int *m, int r, int g, int b)
{
    return tm_q16(tm_mad_wide(m[2], b, tm_mad_wide(m[1], g, tm_mad_wide(m[0], r, Q16_HALF))));
}

/* Linear light in BT.709 primaries of R'G'B' codes, negative outside
 * BT.709's gamut. */
inline int3 tm_linear(uint3 code, const int *k, __global const uint *lin, __global const uint *gain)
{
    int r = (int)lin[code.x], g = (int)lin[code.y], b = (int)lin[code.z];
    if (k[K_MODE] == MODE_HLG) {
        const int gn = (int)tm_interp(gain, (uint)tm_dot(k + K_LUMA, r, g, b));
        r = tm_q16(tm_mad_wide(r, gn, Q16_HALF));
        g = tm_q16(tm_mad_wide(g, gn, Q16_HALF));
        b = tm_q16(tm_mad_wide(b, gn, Q16_HALF));
    }
    return (int3)(tm_dot(k + K_M, r, g, b), tm_dot(k + K_M + 3, r, g, b),
                  tm_dot(k + K_M + 6, r, g, b));
}

/* The brightest component, 0 at least. */
inline uint tm_brightest(int3 c)
{
    return (uint)max(max(max(c.x, c.y), c.z), 0);
}

/* One channel through the curve's ratio (c * ratio, clipped at 1.0) and
 * the output transfer, at the depth. */
inline clv_ch tm_out(uint c, uint ratio, __global const uint *out)
{
    const ulong v = tm_mad_wide_u(c, ratio, 1u << (RATIO_BITS - 1));
    /* v >= LIN_ONE << RATIO_BITS, by its high word */
    const uint l =
        (uint)(v >> 32) >= (LIN_ONE >> (32 - RATIO_BITS)) ? LIN_ONE : (uint)(v >> RATIO_BITS);
    const uint e = tm_interp(out, l);
#if CLV_DEPTH == 16
    return (clv_ch)((e + 128) >> 8);
#else
    return (clv_ch)((e + 32896) / 65792);
#endif
}

/* floor(a * 2^16 / b) for 0 < a < b < 2^30: a float estimate (off by less
 * than one: 2^16 is far inside a float's 24 bits, and a division within 3
 * ulp) corrected once each way by the remainder a * 2^16 - q * b, which
 * then lies in [-b, 2b) and so in 32 bits. */
inline int tm_over(int a, int b)
{
    const int q = (int)((float)a * 65536.0f / (float)b);
    const int rem = (int)(((uint)a << 16) - (uint)q * (uint)b);
    return q - (rem < 0 ? 1 : 0) + (rem >= b ? 1 : 0);
}

/* A channel mixed towards the luma by over (Q16), the negatives clipped. */
inline uint tm_mix(int c, int luma, int over)
{
    return (uint)max(tm_q16(tm_mad_wide(luma, over, tm_mad_wide(c, 65536 - over, Q16_HALF))), 0);
}

/* Desaturation (on the signed values, as ffmpeg's), the negatives
 * clipped, the curve of the brightest component, the output transfer. */
inline clv_px tm_tone(int3 lin, clv_ch alpha, const int *k, __global const uint *curve,
                      __global const uint *out)
{
    const int luma = tm_dot(k + K_LUMA, lin.x, lin.y, lin.z), desat = k[K_DESAT];
    uint3 c;
    if (desat > 0 && luma > desat) {
        const int over = tm_over(luma - desat, luma);
        c = (uint3)(tm_mix(lin.x, luma, over), tm_mix(lin.y, luma, over),
                    tm_mix(lin.z, luma, over));
    } else {
        c = convert_uint3(max(lin, (int3)0));
    }
    const uint ratio = tm_interp(curve, max(max(c.x, c.y), c.z));
    return (clv_px)(tm_out(c.x, ratio, out), tm_out(c.y, ratio, out), tm_out(c.z, ratio, out),
                    alpha);
}

/* The 64-bit sum in st[ST_SUM_LO], st[ST_SUM_HI] plus v, with 32-bit
 * atomics: the low word's wrap carries into the high word, so the total is
 * exact in any order. */
inline void tm_add64(__global uint *st, ulong v)
{
    const uint lo = (uint)v, old = atomic_add(&st[ST_SUM_LO], lo);
    const uint carry = old + lo < old ? 1u : 0u;
    const uint hi = (uint)(v >> 32) + carry;
    if (hi)
        atomic_add(&st[ST_SUM_HI], hi);
}

/* The measured pixels' largest max(R, G, B) in linear light into
 * st[ST_MAX] and the sum of their PQ levels into st[ST_SUM_*] (tonemap_peak
 * cleared them): the pixels of even x and y, a quarter of the frame (see
 * tonemap.c). CPUs: a work-item a block of those rows; GPUs: groups of
 * TM_GROUP, a group a row at a time (consecutive measured pixels to
 * consecutive work-items), reduced in local memory, one set of atomics a
 * group. */
__kernel void tonemap_measure(__global const clv_px *src, int w, int h, int stride,
                              __global const int *k, __global const uint *lin,
                              __global const uint *gain, __global const uint *pq, __global uint *st)
{
    const int mw = (w + 1) / 2, mh = (h + 1) / 2; /* the measured pixels' columns and rows */
    int kp[TM_PIXEL_K];
    tm_pixel_k(k, kp);
    uint peak = 0;
    ulong sum = 0;
#if CLV_ROW
    const int per = (mh + (int)get_global_size(0) - 1) / (int)get_global_size(0);
    const int begin = (int)get_global_id(0) * per, end = min(mh, begin + per);
    for (int j = begin; j < end; j++)
        for (int i = 0; i < mw; i++) {
            const clv_px p = src[2 * j * stride + 2 * i];
            const uint sig = tm_brightest(tm_linear(tm_codes(p), kp, lin, gain));
            peak = max(peak, sig);
            sum += tm_interp(pq, sig);
        }
    if (begin < end) {
        atomic_max(&st[ST_MAX], peak);
        tm_add64(st, sum);
    }
#else
    __local uint peaks[TM_GROUP];
    __local ulong sums[TM_GROUP];
    const int lid = (int)get_local_id(0);
    for (int j = (int)get_group_id(0); j < mh; j += (int)get_num_groups(0))
        for (int i = lid; i < mw; i += TM_GROUP) {
            const clv_px p = src[2 * j * stride + 2 * i];
            const uint sig = tm_brightest(tm_linear(tm_codes(p), kp, lin, gain));
            peak = max(peak, sig);
            sum += tm_interp(pq, sig);
        }
    peaks[lid] = peak;
    sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int span = TM_GROUP / 2; span > 0; span >>= 1) {
        if (lid < span) {
            peaks[lid] = max(peaks[lid], peaks[lid + span]);
            sums[lid] += sums[lid + span];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        atomic_max(&st[ST_MAX], peaks[0]);
        tm_add64(st, sums[0]);
    }
#endif
}

/* One work-item: the frame's levels (PQ, Q20) into the smoothed ones (a
 * moving average that lets go across a scene change, smoothstep over the
 * window on the mean level), the curve of the smoothed peak into
 * st[ST_ROW], the frame's counters cleared for the next. */
__kernel void tonemap_peak(__global const int *k, __global const uint *pq, __global uint *st,
                           uint pixels)
{
    const ulong sum = (ulong)st[ST_SUM_LO] | ((ulong)st[ST_SUM_HI] << 32);
    const int f_peak = (int)tm_interp(pq, st[ST_MAX]) << 4;
    const int f_avg = (int)(sum / pixels) << 4;
    int avg = f_avg, peak = f_peak;
    if (st[ST_STARTED]) {
        avg = (int)st[ST_AVG];
        peak = (int)st[ST_PEAK];
        avg += (int)((long)(f_avg - avg) * k[K_EMA] / 65536);
        peak += (int)((long)(f_peak - peak) * k[K_EMA] / 65536);
        const int delta = f_avg > avg ? f_avg - avg : avg - f_avg;
        const long x = delta <= k[K_SCENE_LO]   ? 0
                       : delta >= k[K_SCENE_HI] ? 65536
                                                : ((long)(delta - k[K_SCENE_LO]) << 16) /
                                                      (k[K_SCENE_HI] - k[K_SCENE_LO]);
        const long mix = (x * x * (3 * 65536 - 2 * x)) >> 32;
        avg += (int)((long)(f_avg - avg) * mix / 65536);
        peak += (int)((long)(f_peak - peak) * mix / 65536);
    }
    const int row =
        peak <= k[K_ROW_LO] ? 0 : (peak - k[K_ROW_LO] + k[K_ROW_STEP] / 2) / k[K_ROW_STEP];
    st[ST_STARTED] = 1;
    st[ST_AVG] = (uint)avg;
    st[ST_PEAK] = (uint)peak;
    st[ST_ROW] = (uint)min(row, k[K_ROWS] - 1);
    st[ST_MAX] = 0;
    st[ST_SUM_LO] = 0;
    st[ST_SUM_HI] = 0;
}

/* Every pixel: the tone-mapped colour, alpha kept; an SDR input copied.
 * GPUs take a work-item's four pixels in one access each way. */
__kernel void tonemap_map(CLV_FRAME_ARGS, __global const int *k, __global const uint *lin,
                          __global const uint *gain, __global const uint *curve,
                          __global const uint *out, __global const uint *st)
{
    int kp[TM_PIXEL_K];
    tm_pixel_k(k, kp);
    __global const uint *row = curve + (k[K_MEASURE] ? st[ST_ROW] : 0u) * LOG_KNOTS;
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        if (kp[K_MODE] != MODE_PASS) {
            const clv_px p = (clv_px)(r, g, b, a);
            const clv_px q = tm_tone(tm_linear(tm_codes(p), kp, lin, gain), a, kp, row, out);
            r = q.x;
            g = q.y;
            b = q.z;
        }
    });
}
