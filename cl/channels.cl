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

/* pc's ratio lin / lout as p / q (colorchannelmixer.c says how). */
inline void ccm_ratio(int pc, int ir, int ig, int ib, int r, int g, int b, long *p, long *q)
{
    long lin, lout, d = 1;
    const long si2 = (long)ir * ir + (long)ig * ig + (long)ib * ib;
    const long so2 = (long)r * r + (long)g * g + (long)b * b;
    const long si3 = (long)ir * ir * ir + (long)ig * ig * ig + (long)ib * ib * ib;
    const long so3 = (long)r * r * r + (long)g * g * g + (long)b * b * b;
    const int cube = CLV_MAXV == 255 ? 12 : 0;
    if (pc == 1) {
        lin = max(max(ir, ig), ib) + min(min(ir, ig), ib);
        lout = max(max(r, g), b) + min(min(r, g), b);
    } else if (pc == 2) {
        lin = max(max(ir, ig), ib);
        lout = max(max(r, g), b);
    } else if (pc == 3) {
        lin = ir + ig + ib + 1;
        lout = r + g + b + 1;
        d = 3;
    } else if (pc == 4) {
        lin = ir + ig + ib;
        lout = r + g + b;
    } else if (pc == 5) {
        lin = ccm_isqrt((ulong)si2 << 16);
        lout = ccm_isqrt((ulong)so2 << 16);
        d = 256;
    } else {
        lin = ccm_icbrt((ulong)si3 << cube);
        lout = so3 > 0 ? ccm_icbrt((ulong)so3 << cube) : 0;
        d = cube ? 16 : 1;
    }
    /* ffmpeg's lout <= 0: lout = 1 / (2 max), the ratio lin * 2 max */
    const int none = lout <= 0;
    *p = none ? lin * (pc >= 5 ? 2 : 2 * CLV_MAXV) : lin;
    *q = none ? d : lout;
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
