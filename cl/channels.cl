/* channels.cl - maps of each pixel's channels: negate and ffmpeg's
 * colorchannelmixer (src/filters/negate.c and colorchannelmixer.c define
 * them), at 8 and 16 bits alike (CLV_MAXV). */

__kernel void negate(CLV_FRAME_ARGS, int4 mask)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        r = mask.x ? CLV_MAXV - r : r;
        g = mask.y ? CLV_MAXV - g : g;
        b = mask.z ? CLV_MAXV - b : b;
        a = mask.w ? CLV_MAXV - a : a;
    });
}

/* n / d rounded half to even (lrint), d > 0. */
inline long ccm_div(long n, long d)
{
    long q = n / d, r = n - q * d;
    const long neg = r < 0;
    q -= neg;
    r += neg ? d : 0;
    return q + (2 * r > d || (2 * r == d && (q & 1)));
}

/* v times a gain of m thousandths, rounded half to even: ffmpeg's
 * lrint(v * gain) for the gain m / 1000. */
inline int ccm_term(int v, int m)
{
    return (int)ccm_div((long)(v * m), 1000);
}

/* floor(sqrt(s)) and floor(cbrt(s)). */
inline long ccm_isqrt(ulong s)
{
    ulong r = 0;
    for (int k = 31; k >= 0; k--) {
        const ulong t = r | (1ul << k);
        r = t * t <= s ? t : r;
    }
    return (long)r;
}

inline long ccm_icbrt(ulong s)
{
    ulong r = 0;
    for (int k = 21; k >= 0; k--) {
        const ulong t = r | (1ul << k);
        r = t * t * t <= s ? t : r;
    }
    return (long)r;
}

/* pc's ratio lin / lout as p / q (colorchannelmixer.c says how); 1 where
 * lout <= 0. */
inline int ccm_ratio(int pc, int ir, int ig, int ib, int r, int g, int b, long *p, long *q)
{
    long lin, lout, d = 1;
    const int cube = CLV_MAXV == 255 ? 12 : 0;
    if (pc == 1) {
        lin = (long)max(max(ir, ig), ib) + min(min(ir, ig), ib);
        lout = (long)max(max(r, g), b) + min(min(r, g), b);
    } else if (pc == 2) {
        lin = max(max(ir, ig), ib);
        lout = max(max(r, g), b);
    } else if (pc == 3) {
        lin = (long)ir + ig + ib + 1;
        lout = (long)r + g + b + 1;
        d = 3;
    } else if (pc == 4) {
        lin = (long)ir + ig + ib;
        lout = (long)r + g + b;
    } else if (pc == 5) {
        const long si2 = (long)ir * ir + (long)ig * ig + (long)ib * ib;
        const long so2 = (long)r * r + (long)g * g + (long)b * b;
        lin = ccm_isqrt((ulong)si2 << 16);
        lout = ccm_isqrt((ulong)so2 << 16);
        d = 256;
    } else {
        const long si3 = (long)ir * ir * ir + (long)ig * ig * ig + (long)ib * ib * ib;
        const long so3 = (long)r * r * r + (long)g * g * g + (long)b * b * b;
        lin = ccm_icbrt((ulong)si3 << cube);
        lout = so3 > 0 ? ccm_icbrt((ulong)so3 << cube) : 0;
        d = cube ? 16 : 1;
    }
    /* ffmpeg's lout <= 0: lout = 1 / (2 max), the ratio lin * 2 max */
    const int none = lout <= 0;
    *p = none ? lin * (pc >= 5 ? 2 : 2 * CLV_MAXV) : lin;
    *q = none ? d : lout;
    return none;
}

/* A channel o (unclipped) kept at the ratio p / q, by pa thousandths. */
inline int ccm_kept(int o, long p, long q, int pa)
{
    const long c = clamp(o, 0, CLV_MAXV);
    return (int)ccm_div((long)o * q * 1000 + (c * p - (long)o * q) * pa, q * 1000);
}

/* The mixer's output for a pixel of channels in (colorchannelmixer.c). */
inline int4 ccm_mix(int4 in, int4 mr, int4 mg, int4 mb, int4 ma, int pc, int pa)
{
    int ro = ccm_term(in.x, mr.x) + ccm_term(in.y, mr.y) + ccm_term(in.z, mr.z) +
             ccm_term(in.w, mr.w);
    int go = ccm_term(in.x, mg.x) + ccm_term(in.y, mg.y) + ccm_term(in.z, mg.z) +
             ccm_term(in.w, mg.w);
    int bo = ccm_term(in.x, mb.x) + ccm_term(in.y, mb.y) + ccm_term(in.z, mb.z) +
             ccm_term(in.w, mb.w);
    const int ao = ccm_term(in.x, ma.x) + ccm_term(in.y, ma.y) + ccm_term(in.z, ma.z) +
                   ccm_term(in.w, ma.w);
    if (pc) {
        long p, q;
        ccm_ratio(pc, in.x, in.y, in.z, ro, go, bo, &p, &q);
        ro = ccm_kept(ro, p, q, pa);
        go = ccm_kept(go, p, q, pa);
        bo = ccm_kept(bo, p, q, pa);
    }
    return clamp((int4)(ro, go, bo, ao), 0, CLV_MAXV);
}

__kernel void colorchannelmixer(CLV_FRAME_ARGS, int4 mr, int4 mg, int4 mb, int4 ma, int pc, int pa)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        const int4 o = ccm_mix((int4)(r, g, b, a), mr, mg, mb, ma, pc, pa);
        r = (clv_ch)o.x;
        g = (clv_ch)o.y;
        b = (clv_ch)o.z;
        a = (clv_ch)o.w;
    });
}

/* fade (src/filters/fade.c) at the host's factor f (0 .. 65534, 16
 * fractional bits): mode 0 black, every channel p f rounded; 1 towards
 * the colour c, R, G, B only; 2 alpha only, as black. */
inline int fade_scaled(int p, int f)
{
    return (int)(((long)p * f + 32768) >> 16);
}

inline int fade_towards(int p, int c, int f)
{
    return clamp((int)((((long)c << 16) + (long)(p - c) * f + 32768) >> 16), 0, CLV_MAXV);
}

__kernel void fade(CLV_FRAME_ARGS, int f, int mode, int4 c)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        const int4 in = (int4)(r, g, b, a);
        int4 o = in;
        if (mode == 0)
            o = (int4)(fade_scaled(in.x, f), fade_scaled(in.y, f), fade_scaled(in.z, f),
                       fade_scaled(in.w, f));
        else if (mode == 1)
            o = (int4)(fade_towards(in.x, c.x, f), fade_towards(in.y, c.y, f),
                       fade_towards(in.z, c.z, f), in.w);
        else
            o.w = fade_scaled(in.w, f);
        r = (clv_ch)o.x;
        g = (clv_ch)o.y;
        b = (clv_ch)o.z;
        a = (clv_ch)o.w;
    });
}

/* colorlevels (src/filters/colorlevels.c). lim: a set of 16 words, the
 * frame's least values of R, G, B, A, their greatest, then the in-points and
 * the coefficients (float bits) colorlevels_coeff makes of them. */

/* Each channel's least and greatest value of the frame into cur (atomics,
 * after a reduction in the work-group), and spare made ready for the next
 * frame's: the frames alternate between the two sets. On CPUs a work-item
 * takes a row; on GPUs CLV__GPU_PX pixels of `rows` rows (the launch's
 * height is the frame's over rows: colorlevels.c's LEVELS_ROWS), the work-group's results reduced
 * in local memory by halves (an atomic a work-item on 8 local words was
 * the kernel's whole time: 113 us of 139.5 at 4K on an H200), one global
 * atomic a value a work-group. */
#if CLV_ROW
#define LEVELS_GROUP
#else
#define LEVELS_GROUP __attribute__((reqd_work_group_size(16, 8, 1)))
#endif
__kernel LEVELS_GROUP void colorlevels_minmax(CLV_FRAME_ARGS, __global int *cur, __global int *spare,
                                             int rows)
{
    if (get_global_id(0) == 0 && get_global_id(1) == 0)
        for (int c = 0; c < 8; ++c)
            spare[c] = c < 4 ? CLV_MAXV : 0;
    int4 lo = (int4)(CLV_MAXV), hi = (int4)(0);
    const int y0 = (int)get_global_id(1) * rows, y1 = min(y0 + rows, h);
#if CLV_ROW
    const int x0 = 0, x1 = w;
#else
    const int x0 = (int)get_global_id(0) * 4, x1 = min(x0 + 4, w);
#endif
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            clv_ch r, g, b, a;
            CLV_LOAD(src, y * stride + x, r, g, b, a);
            const int4 p = (int4)(r, g, b, a);
            lo = min(lo, p);
            hi = max(hi, p);
        }
    /* the work-group's values (at most 128: 16 x 8 on GPUs, 1 x 4 rows on
     * CPUs) halved in local memory, the first's to the frame's set */
    __local int4 los[128], his[128];
    const int i = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0)),
              n = (int)(get_local_size(0) * get_local_size(1));
    los[i] = lo;
    his[i] = hi;
    for (int m = 64; m > 0; m >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < m && i + m < n) {
            los[i] = lo = min(lo, los[i + m]);
            his[i] = hi = max(hi, his[i + m]);
        }
    }
    if (i == 0) {
        atomic_min(&cur[0], lo.x);
        atomic_min(&cur[1], lo.y);
        atomic_min(&cur[2], lo.z);
        atomic_min(&cur[3], lo.w);
        atomic_max(&cur[4], hi.x);
        atomic_max(&cur[5], hi.y);
        atomic_max(&cur[6], hi.z);
        atomic_max(&cur[7], hi.w);
    }
}

/* The float nearest n / d (d != 0, |n|, |d| < 2^17), ties to even: what
 * ffmpeg's (float)(n / (double)d) gives, for a double quotient of so small
 * terms never lies on a float's halfway point unless the exact one does
 * (colorlevels.c's levels_div is the same in C, checked against the double
 * for every pair at 8 bits). */
inline float levels_div(int n, int d)
{
    if (n == 0)
        return (n < 0) != (d < 0) ? -0.0f : 0.0f;
    const ulong a = (ulong)abs(n), b = (ulong)abs(d);
    int s = 0;
    while ((a << s) < (b << 25))
        ++s;
    const ulong q = (a << s) / b, r = (a << s) % b;
    const uint low = (uint)(q & 3u);
    ulong m = q >> 2;
    m += low > 2u || (low == 2u && (r > 0 || (m & 1u)));
    const float f = ldexp((float)m, 2 - s);
    return (n < 0) != (d < 0) ? -f : f;
}

/* The in-points and coefficients of the channels whose points are the
 * frame's (auto: bit c for imin, 4 + c for imax) into lim[8..15]; one
 * work-item. */
__kernel void colorlevels_coeff(__global int *lim, int4 imin, int4 imax, int4 span, int mask)
{
    const int in_lo[4] = {imin.x, imin.y, imin.z, imin.w}, in_hi[4] = {imax.x, imax.y, imax.z, imax.w};
    const int out[4] = {span.x, span.y, span.z, span.w};
    for (int c = 0; c < 4; ++c) {
        const int lo = mask >> c & 1 ? lim[c] : in_lo[c], hi = mask >> (4 + c) & 1 ? lim[4 + c] : in_hi[c];
        lim[8 + c] = lo;
        const float k = hi == lo ? (out[c] == 0 ? NAN : out[c] > 0 ? INFINITY : -INFINITY)
                                 : levels_div(out[c], hi - lo);
        lim[12 + c] = as_int(k);
    }
}

#pragma OPENCL FP_CONTRACT OFF
/* ffmpeg's int of a float: truncated; NaN and values out of int's range
 * INT_MIN, as x86's conversion gives them. */
inline int levels_int(float f)
{
    return f >= -2147483648.0f && f < 2147483648.0f ? (int)f : INT_MIN;
}

/* One channel's level: (v - imin) * k + omin in floats, each step rounded. */
inline int levels_map(int v, int imin, float k, int omin)
{
    const float t = (float)(v - imin) * k;
    return levels_int(t + (float)omin);
}

/* o times lin / lout, truncated: out of int's range INT_MIN, as ffmpeg's
 * float gives it on x86. */
inline int levels_scaled(int o, long p, long q)
{
    const long v = (long)o * p / q;
    return v >= INT_MIN && v <= INT_MAX ? (int)v : INT_MIN;
}

/* A pixel's levels (colorlevels.c), clamped. */
inline int4 levels_pixel(int4 in, int4 lo, float4 k, int4 omin, int pc)
{
    int4 o = (int4)(levels_map(in.x, lo.x, k.x, omin.x), levels_map(in.y, lo.y, k.y, omin.y),
                    levels_map(in.z, lo.z, k.z, omin.z), levels_map(in.w, lo.w, k.w, omin.w));
    /* nrm and pwr measure outputs within 8 max (colorlevels.c) */
    const int3 m = pc >= 5 ? clamp(o.xyz, -8 * CLV_MAXV, 8 * CLV_MAXV) : o.xyz;
    long p, q;
    if (pc && !ccm_ratio(pc, in.x, in.y, in.z, m.x, m.y, m.z, &p, &q))
        o.xyz = (int3)(levels_scaled(o.x, p, q), levels_scaled(o.y, p, q),
                       levels_scaled(o.z, p, q));
    return clamp(o, 0, CLV_MAXV);
}

__kernel void colorlevels(CLV_FRAME_ARGS, int4 imin, float4 k, int4 omin, int mask, int pc,
                          __global const int *lim)
{
    int4 lo = imin;
    float4 kk = k;
    if (mask) {
        lo = (int4)(lim[8], lim[9], lim[10], lim[11]);
        kk = as_float4((int4)(lim[12], lim[13], lim[14], lim[15]));
    }
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        const int4 o = levels_pixel((int4)(r, g, b, a), lo, kk, omin, pc);
        r = (clv_ch)o.x;
        g = (clv_ch)o.y;
        b = (clv_ch)o.z;
        a = (clv_ch)o.w;
    });
}
/* Without preserve a channel's level is a function of its value alone: the
 * table of the four channels' levels of 0 .. CLV_MAXV, R's first (from the
 * arguments, or from lim's points where mask has any), one value a
 * work-item; cl/lut.cl's lut maps the frame through it. */
__kernel void colorlevels_fill(__global clv_ch *tab, int4 imin, float4 k, int4 omin, int mask,
                               __global const int *lim)
{
    const int i = (int)get_global_id(0), c = i / (CLV_MAXV + 1), v = i % (CLV_MAXV + 1);
    if (c > 3)
        return;
    const int lo[4] = {imin.x, imin.y, imin.z, imin.w}, o[4] = {omin.x, omin.y, omin.z, omin.w};
    const float kk[4] = {k.x, k.y, k.z, k.w};
    const int l = mask ? lim[8 + c] : lo[c];
    const float f = mask ? as_float(lim[12 + c]) : kk[c];
    tab[i] = (clv_ch)clamp(levels_map(v, l, f, o[c]), 0, CLV_MAXV);
}

#pragma OPENCL FP_CONTRACT ON
