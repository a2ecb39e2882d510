/* tonemap.cl - ffmpeg's tonemap from the chain's PQ or HLG R'G'B' to SDR
 * BT.709 R'G'B' (src/filters/tonemap.c builds the tables and holds the
 * reference). Every step is integer arithmetic on the host's tables, the
 * reference's step for step: linear light (1.0 = 1 << 23), the gamut
 * matrix, desaturation, the curve's ratio of the brightest component, the
 * output transfer (BT.1886 inverted). With a measured peak,
 * tonemap_measure reduces the frame (its largest max(R, G, B) and its PQ
 * levels' sum), tonemap_peak smooths them and picks the curve, and
 * tonemap_map reads the pick: all on the device, in order on the queue.
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

/* Table t (log-spaced knots: v itself below 2 * SEGS, then SEGS an
 * octave) at v, interpolated, rounded. */
inline uint tm_interp(__global const uint *t, uint v)
{
    if (v < 2u * SEGS)
        return t[v];
    const int s = 31 - (int)clz(v) - SEG_BITS;
    const uint k = ((uint)s << SEG_BITS) + (v >> s), f = v & ((1u << s) - 1u);
    return (uint)(((ulong)t[k] * ((1u << s) - f) + (ulong)t[k + 1] * f + (1u << (s - 1))) >> s);
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

/* A Q16 product's sum, rounded half away from zero (no shift of a
 * negative number). */
inline long tm_q16(long sum)
{
    return sum >= 0 ? (sum + 32768) >> 16 : -((-sum + 32768) >> 16);
}

inline long tm_luma(__global const int *k, long r, long g, long b)
{
    return tm_q16((long)k[K_LUMA] * r + (long)k[K_LUMA + 1] * g + (long)k[K_LUMA + 2] * b);
}

/* One row of the gamut matrix, within (-2^31, 2^31). */
inline int tm_gamut_row(__global const int *m, long r, long g, long b)
{
    const long v = tm_q16((long)m[0] * r + (long)m[1] * g + (long)m[2] * b);
    return (int)clamp(v, -0x7FFFFFFFL, 0x7FFFFFFFL);
}

/* Linear light in BT.709 primaries of R'G'B' codes, negative outside
 * BT.709's gamut. */
inline int3 tm_linear(uint3 code, __global const int *k, __global const uint *lin,
                      __global const uint *gain)
{
    long r = lin[code.x], g = lin[code.y], b = lin[code.z];
    if (k[K_MODE] == MODE_HLG) {
        const long gn = tm_interp(gain, (uint)tm_luma(k, r, g, b));
        r = tm_q16(r * gn);
        g = tm_q16(g * gn);
        b = tm_q16(b * gn);
    }
    return (int3)(tm_gamut_row(k + K_M, r, g, b), tm_gamut_row(k + K_M + 3, r, g, b),
                  tm_gamut_row(k + K_M + 6, r, g, b));
}

/* The brightest component, 0 at least. */
inline uint tm_brightest(int3 c)
{
    return (uint)max(max(max(c.x, c.y), c.z), 0);
}

/* One channel through the curve's ratio and the output transfer, at the
 * depth. */
inline clv_ch tm_out(uint c, ulong ratio, __global const uint *out)
{
    const ulong v = ((ulong)c * ratio + (1u << (RATIO_BITS - 1))) >> RATIO_BITS;
    const uint e = tm_interp(out, v > LIN_ONE ? LIN_ONE : (uint)v);
#if CLV_DEPTH == 16
    return (clv_ch)((e + 128) >> 8);
#else
    return (clv_ch)((e + 32896) / 65792);
#endif
}

/* floor((a << 16) / b) for 0 <= a < b < 2^31: a float estimate (off by
 * less than one: 2^16 is far inside a float's 24 bits, and a division
 * within 3 ulp) corrected exactly in integers. A 64-bit division was a
 * fifth of tonemap's time on an H200. */
inline long tm_div16(long a, long b)
{
    const long n = a << 16;
    long q = (long)((float)a * 65536.0f / (float)b);
    q -= q * b > n;
    q -= q * b > n;
    q += (q + 1) * b <= n;
    q += (q + 1) * b <= n;
    return q;
}

/* A channel mixed towards the luma by over (Q16), the negatives clipped. */
inline uint tm_mix(int c, long luma, long over)
{
    const long v = (long)c * (65536 - over) + luma * over;
    return v <= 0 ? 0u : (uint)((v + 32768) >> 16);
}

/* Desaturation (on the signed values, as ffmpeg's), the negatives
 * clipped, the curve of the brightest component, the output transfer. */
inline clv_px tm_tone(int3 lin, clv_ch alpha, __global const int *k, __global const uint *curve,
                      __global const uint *out)
{
    const long luma = tm_luma(k, lin.x, lin.y, lin.z), desat = k[K_DESAT];
    uint3 c;
    if (desat > 0 && luma > desat) {
        const long over = tm_div16(luma - desat, luma);
        c = (uint3)(tm_mix(lin.x, luma, over), tm_mix(lin.y, luma, over),
                    tm_mix(lin.z, luma, over));
    } else {
        c = convert_uint3(max(lin, (int3)0));
    }
    const ulong ratio = tm_interp(curve, max(max(c.x, c.y), c.z));
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

/* The frame's largest max(R, G, B) in linear light into st[ST_MAX] and the
 * sum of its PQ levels into st[ST_SUM_*] (tonemap_peak cleared them). CPUs:
 * a work-item a block of rows; GPUs: groups of TM_GROUP, a group a row at
 * a time (consecutive pixels to consecutive work-items), reduced in local
 * memory, one set of atomics a group. */
__kernel void tonemap_measure(__global const clv_px *src, int w, int h, int stride,
                              __global const int *k, __global const uint *lin,
                              __global const uint *gain, __global const uint *pq, __global uint *st)
{
    uint peak = 0;
    ulong sum = 0;
#if CLV_ROW
    const int per = (h + (int)get_global_size(0) - 1) / (int)get_global_size(0);
    const int begin = (int)get_global_id(0) * per, end = min(h, begin + per);
    for (int y = begin; y < end; y++)
        for (int x = 0; x < w; x++) {
            const uint sig = tm_brightest(tm_linear(tm_codes(src[y * stride + x]), k, lin, gain));
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
    for (int y = (int)get_group_id(0); y < h; y += (int)get_num_groups(0))
        for (int x = lid; x < w; x += TM_GROUP) {
            const uint sig = tm_brightest(tm_linear(tm_codes(src[y * stride + x]), k, lin, gain));
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

/* Every pixel: the tone-mapped colour, alpha kept; an SDR input copied. */
__kernel void tonemap_map(CLV_FRAME_ARGS, __global const int *k, __global const uint *lin,
                          __global const uint *gain, __global const uint *curve,
                          __global const uint *out, __global const uint *st)
{
    const int mode = k[K_MODE];
    __global const uint *row = curve + (k[K_MEASURE] ? st[ST_ROW] : 0u) * LOG_KNOTS;
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const clv_px p = src[y * stride + x];
        dst[y * stride + x] =
            mode == MODE_PASS ? p : tm_tone(tm_linear(tm_codes(p), k, lin, gain), p.w, k, row, out);
    }
}
