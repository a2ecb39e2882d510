/* tonemap.c - ffmpeg's tonemap (libavfilter/vf_tonemap.c) in one step from
 * the chain's R'G'B' to SDR BT.709 R'G'B': PQ or HLG frames to linear light
 * (1.0 = 100 cd/m2, ffmpeg's REFERENCE_WHITE), BT.2020 to BT.709 primaries
 * (negatives clipped), ffmpeg's desaturation and curves (and BT.2390's
 * EETF) on max(R, G, B), then BT.709's transfer as zscale writes it (the
 * inverse of BT.1886's EOTF, V = L^(1/2.4)). The host builds the tables
 * in double; every pixel is integer arithmetic on them, in cl/tonemap.cl
 * and in the reference below alike, so the device equals the reference bit
 * for bit. An SDR or untagged input passes through unchanged.
 *
 * The peak (ffmpeg's units: 1 = 100 cd/m2) is the `peak` option, else the
 * source's (MaxCLL, else the mastering display's), else measured on every
 * frame, on its pixels of even x and y: their largest max(R, G, B) in
 * linear light and their mean PQ level, smoothed over the frames as
 * libplacebo's peak detection does (an exponential moving average in PQ
 * over 20 frames that lets go across a scene change), in integers. The
 * curve of the smoothed peak is one of ROWS_MAX precomputed curves, a
 * 1/256 PQ step apart. */
#include "filters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The parameters, in the order of the table below (ffmpeg's, then the
 * input's colour as zscale names it), and their choices in order. */
enum { TM_CURVE, TM_PARAM, TM_DESAT, TM_PEAK, TM_TIN, TM_PIN, TM_PARAM_COUNT };
enum {
    CURVE_NONE,
    CURVE_LINEAR,
    CURVE_GAMMA,
    CURVE_CLIP,
    CURVE_REINHARD,
    CURVE_HABLE,
    CURVE_MOBIUS,
    CURVE_BT2390
};
enum { TIN_AUTO, TIN_PQ, TIN_HLG };
enum { PIN_AUTO, PIN_BT2020, PIN_BT709 };

/* ---- The fixed point cl/tonemap.cl shares (the same numbers there) -------
 * Linear light: 1.0 (100 cd/m2) is 1 << LIN_BITS, so PQ's 10000 cd/m2
 * (100 << 23) stays under 2^30 and BT.709's gamut on top of it under 2^31
 * (tables_check). */
#define LIN_BITS 23
#define LIN_ONE (1u << LIN_BITS)
/* Tables over linear values are log-spaced: knot k is the value k below
 * 2 * SEGS, then SEGS knots an octave (knot()); values between knots are
 * interpolated linearly (tm_interp). */
#define SEG_BITS 5
#define SEGS (1 << SEG_BITS)
#define LOG_KNOTS ((32 - SEG_BITS) * SEGS + 1)           /* over [0, 2^31] */
#define OUT_KNOTS ((LIN_BITS + 1 - SEG_BITS) * SEGS + 2) /* over [0, 1.0], one beyond */
#define ROWS_MAX 128  /* measured peaks: a curve each 1/256 PQ from 100 cd/m2 up */
#define RATIO_BITS 24 /* curve(s) / s */

/* The integer constants of a frame's arithmetic (the kernels' `k`). */
enum {
    K_MODE,               /* MODE_* */
    K_M,                  /* 9: the gamut matrix, Q16, row-major, each row summing to 65536 */
    K_LUMA = K_M + 9,     /* 3: the source primaries' luma coefficients, Q16, summing to 65536 */
    K_DESAT = K_LUMA + 3, /* desaturation above this linear luma; 0: none */
    K_MEASURE,            /* 1: the peak is measured, the curve picked from K_ROWS */
    K_EMA,                /* the moving average's coefficient, Q16 */
    K_SCENE_LO,           /* the scene-change window on the mean PQ level's */
    K_SCENE_HI,           /*   distance from its average (Q20 PQ) */
    K_ROW_LO,             /* curve r is for the peak at PQ K_ROW_LO + r * K_ROW_STEP (Q20) */
    K_ROW_STEP,
    K_ROWS,
    K_COUNT
};
_Static_assert(K_M == 1 && K_LUMA == 10 && K_DESAT == 13 && K_ROWS == 20 && K_COUNT == 21,
               "tonemap: cl/tonemap.cl numbers the constants so");
enum { MODE_PASS, MODE_PQ, MODE_HLG };
/* The measuring state's words (the kernels' `st`): the frame's largest
 * max(R, G, B), its sum of PQ levels (Q16, 64 bits in two words), then the
 * smoothed mean and peak PQ levels (Q20) and the curve they pick. */
enum { ST_MAX, ST_SUM_LO, ST_SUM_HI, ST_STARTED, ST_AVG, ST_PEAK, ST_ROW, ST_COUNT };

typedef struct tm_tables {
    cl_int k[K_COUNT];
    /* R'G'B' code (0-65535) -> linear: PQ display light; HLG scene light
     * (1.0 = the signal's peak) */
    cl_uint lin[65536];
    cl_uint gain[OUT_KNOTS];            /* HLG: the OOTF's 10 * Ys^0.2 of the scene luma Ys, Q16 */
    cl_uint out[OUT_KNOTS];             /* display light 0 - 1.0 -> R'G'B' (BT.1886), code * 256 */
    cl_uint pq[LOG_KNOTS];              /* linear -> PQ level, Q16 (measuring) */
    cl_uint curve[ROWS_MAX][LOG_KNOTS]; /* curve(s) / s for each peak, RATIO_BITS */
} tm_tables;

/* What the tables are built from: a new key rebuilds them (and restarts
 * the measurement); the same key keeps both. */
typedef struct tm_key {
    int64_t values[TM_PARAM_COUNT];
    int transfer, primaries, peak;
} tm_key;

static void key_make(tm_key *key, const clv_value *v, const clv_size *in)
{
    memset(key, 0, sizeof *key);
    for (int i = 0; i < TM_PARAM_COUNT; i++)
        key->values[i] = v[i].i;
    key->transfer = in->transfer;
    key->primaries = in->primaries;
    key->peak = in->peak;
}

/* The input's transfer as the filter takes it: MODE_PASS for SDR, linear
 * or untagged frames. */
static int source_mode(const clv_value *v, const clv_size *in)
{
    int tin = (int)v[TM_TIN].i;
    int transfer = tin == TIN_PQ ? CLV_TRC_PQ : tin == TIN_HLG ? CLV_TRC_HLG : in->transfer;
    return transfer == CLV_TRC_PQ ? MODE_PQ : transfer == CLV_TRC_HLG ? MODE_HLG : MODE_PASS;
}

/* ---- Colour, in double ---------------------------------------------------- */

#define PQ_M1 0.1593017578125
#define PQ_M2 78.84375
#define PQ_C1 0.8359375
#define PQ_C2 18.8515625
#define PQ_C3 18.6875

/* SMPTE ST 2084: signal 0-1 -> display light in ffmpeg's units (1 = 100
 * cd/m2, the curve's top 100), and back. */
static double pq_eotf(double e)
{
    if (e <= 0)
        return 0;
    double p = pow(e, 1 / PQ_M2);
    double num = fmax(p - PQ_C1, 0), den = PQ_C2 - PQ_C3 * p;
    return 100 * pow(num / den, 1 / PQ_M1);
}

static double pq_inverse(double l)
{
    if (l <= 0)
        return 0;
    double y = pow(fmin(l / 100, 1), PQ_M1);
    return pow((PQ_C1 + PQ_C2 * y) / (1 + PQ_C3 * y), PQ_M2);
}

/* ARIB STD-B67 (HLG): signal 0-1 -> scene light 0-1. */
static double hlg_inverse_oetf(double e)
{
    const double a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a);
    return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12;
}

/* BT.709's transfer as zscale's t=bt709 output has it (zimg's display-
 * referred BT.709: BT.1886's EOTF of an ideal display, L = V^2.4,
 * inverted): display light 0-1 -> signal. The curves make display light,
 * which a BT.1886 display shows as they made it. */
static double bt709_inverse_eotf(double l)
{
    return pow(l, 1 / 2.4);
}

/* 3x3 inverse (the adjugate over the determinant). */
static void invert3(double a[3][3], double out[3][3])
{
    double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                 a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                 a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            out[r][c] = (a[r1][c1] * a[r2][c2] - a[r1][c2] * a[r2][c1]) / det;
        }
}

/* The matrix from linear RGB of primaries xy (red, green, blue, white) to
 * CIE XYZ: the primaries' XYZ scaled so that RGB 1, 1, 1 is the white. */
static void rgb_to_xyz(const double xy[4][2], double m[3][3])
{
    double p[3][3], inv[3][3], s[3];
    for (int c = 0; c < 3; c++) {
        p[0][c] = xy[c][0] / xy[c][1];
        p[1][c] = 1;
        p[2][c] = (1 - xy[c][0] - xy[c][1]) / xy[c][1];
    }
    double white[3] = {xy[3][0] / xy[3][1], 1, (1 - xy[3][0] - xy[3][1]) / xy[3][1]};
    invert3(p, inv);
    for (int r = 0; r < 3; r++)
        s[r] = inv[r][0] * white[0] + inv[r][1] * white[1] + inv[r][2] * white[2];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            m[r][c] = p[r][c] * s[c];
}

static const double bt709_xy[4][2] = {{0.64, 0.33}, {0.30, 0.60}, {0.15, 0.06}, {0.3127, 0.3290}};
static const double bt2020_xy[4][2] = {
    {0.708, 0.292}, {0.170, 0.797}, {0.131, 0.046}, {0.3127, 0.3290}};

/* Three Q16 coefficients summing to exactly 65536 (the largest takes the
 * rounding), so that gray stays gray. */
static void q16_row(const double row[3], cl_int out[3])
{
    int big = 0;
    for (int c = 0; c < 3; c++) {
        out[c] = (cl_int)lrint(row[c] * 65536);
        if (fabs(row[c]) > fabs(row[big]))
            big = c;
    }
    out[big] += 65536 - (out[0] + out[1] + out[2]);
}

/* ---- The curves: ffmpeg's vf_tonemap.c, in double ------------------------- */

static double hable(double in)
{
    const double a = 0.15, b = 0.50, c = 0.10, d = 0.20, e = 0.02, f = 0.30;
    return (in * (in * a + b * c) + d * e) / (in * (in * a + b) + d * f) - e / f;
}

static double mobius(double in, double j, double peak)
{
    if (in <= j)
        return in;
    double a = -j * j * (peak - 1) / (j * j - 2 * j + peak);
    double b = (j * j - 2 * j * peak + peak) / fmax(peak - 1, 1e-6);
    return (b * b + 2 * b * j + j * j) / (b - a) * (in + a) / (in + b);
}

/* ITU-R BT.2390's EETF onto SDR's 1.0 (100 cd/m2): the hermite spline
 * above the knee in PQ, the knee at (1 + offset) * maxLum - offset, as
 * libplacebo writes it (offset 0.5 is BT.2390's, libplacebo's default 1). */
static double bt2390(double sig, double peak, double offset)
{
    double peak_pq = pq_inverse(peak);
    if (peak_pq <= 0)
        return sig;
    double s = fmin(pq_inverse(sig) / peak_pq, 1), max_lum = pq_inverse(1) / peak_pq;
    double ks = (1 + offset) * max_lum - offset;
    if (ks < 1 && s > ks) {
        double t = (s - ks) / (1 - ks), t2 = t * t, t3 = t2 * t;
        s = (2 * t3 - 3 * t2 + 1) * ks + (t3 - 2 * t2 + t) * (1 - ks) +
            (-2 * t3 + 3 * t2) * max_lum;
    }
    return pq_eotf(s * peak_pq);
}

/* ffmpeg's init: the parameter a curve takes when none is given, and
 * reinhard's given contrast turned into its offset. */
static double curve_param(int curve, double given)
{
    if (given > 0)
        return curve == CURVE_REINHARD ? (1 - given) / given : given;
    return curve == CURVE_GAMMA    ? 1.8
           : curve == CURVE_MOBIUS ? 0.3
           : curve == CURVE_BT2390 ? 0.5
                                   : 1;
}

/* ffmpeg's tonemap() of the brightest component, sig > 0. */
static double curve_at(int curve, double sig, double peak, double param)
{
    switch (curve) {
    case CURVE_LINEAR:
        return sig * param / peak;
    case CURVE_GAMMA:
        return sig > 0.05 ? pow(sig / peak, 1 / param) : sig * pow(0.05 / peak, 1 / param) / 0.05;
    case CURVE_CLIP:
        return fmin(fmax(sig * param, 0), 1);
    case CURVE_HABLE:
        return hable(sig) / hable(peak);
    case CURVE_REINHARD:
        return sig / (sig + param) * (peak + param) / peak;
    case CURVE_MOBIUS:
        return mobius(sig, param, peak);
    case CURVE_BT2390:
        return bt2390(sig, peak, param);
    default:
        return sig;
    }
}

/* The value of knot k of a log-spaced table (in units of the table's
 * integer domain). */
static double knot(int k)
{
    if (k < 2 * SEGS)
        return k;
    int s = k / SEGS - 1;
    return ldexp(k - s * SEGS, s);
}

/* curve(s) / s as ffmpeg scales the colour by it (sig at least 1e-6, as
 * there), clamped to what RATIO_BITS hold. */
static cl_uint ratio_at(int curve, double s, double peak, double param)
{
    double sig = fmax(s, 1e-6), r = curve_at(curve, sig, peak, param) / sig;
    if (!(r > 0))
        return 0;
    r = ldexp(r, RATIO_BITS);
    return r >= 4294967295.0 ? 0xFFFFFFFFu : (cl_uint)lrint(r);
}

/* The tables and constants for values v on frames of `in`. */
static void tables_build(tm_tables *t, const clv_value *v, const clv_size *in)
{
    memset(t->k, 0, sizeof t->k);
    int mode = source_mode(v, in);
    t->k[K_MODE] = mode;
    if (mode == MODE_PASS)
        return;
    int pin = (int)v[TM_PIN].i;
    int bt2020 = pin == PIN_BT2020 || (pin == PIN_AUTO && in->primaries != CLV_PRIM_BT709);
    const double(*src_xy)[2] = bt2020 ? bt2020_xy : bt709_xy;
    double to_xyz[3][3], from_xyz709[3][3], xyz709[3][3], m[3][3];
    rgb_to_xyz(src_xy, to_xyz);
    rgb_to_xyz(bt709_xy, xyz709);
    invert3(xyz709, from_xyz709);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            m[r][c] = from_xyz709[r][0] * to_xyz[0][c] + from_xyz709[r][1] * to_xyz[1][c] +
                      from_xyz709[r][2] * to_xyz[2][c];
    for (int r = 0; r < 3; r++)
        q16_row(m[r], &t->k[K_M + 3 * r]);
    q16_row(to_xyz[1], &t->k[K_LUMA]);

    double desat = (double)v[TM_DESAT].i / 1000;
    t->k[K_DESAT] = desat > 0 ? (cl_int)fmin(ldexp(desat, LIN_BITS), 2147483647.0) : 0;

    for (int code = 0; code < 65536; code++) {
        double e = code / 65535.0;
        double l = mode == MODE_PQ ? pq_eotf(e) : hlg_inverse_oetf(e);
        t->lin[code] = (cl_uint)lrint(ldexp(l, LIN_BITS));
    }
    /* BT.2100's HLG OOTF for a 1000 cd/m2 display (gamma 1.2), in units of
     * 100 cd/m2: Fd = 10 * Ys^0.2 * E. */
    for (int k = 0; k < OUT_KNOTS; k++) {
        double x = fmin(knot(k) / LIN_ONE, 1);
        t->gain[k] = (cl_uint)lrint(10 * pow(x, 0.2) * 65536);
        t->out[k] = (cl_uint)lrint(bt709_inverse_eotf(x) * 65535 * 256);
    }
    for (int k = 0; k < LOG_KNOTS; k++)
        t->pq[k] = (cl_uint)lrint(pq_inverse(knot(k) / LIN_ONE) * 65536);

    /* The peak: given, the source's, else measured (a curve per level). */
    double peak = (double)v[TM_PEAK].i / 1000;
    if (!(peak > 0) && in->peak > 0)
        peak = in->peak / 100.0;
    int measure = !(peak > 0);
    int row_lo = (int)lrint(pq_inverse(1) * (1 << 20)), row_step = 1 << 12;
    int rows = measure ? ((1 << 20) - row_lo + row_step - 1) / row_step + 1 : 1;
    t->k[K_MEASURE] = measure;
    t->k[K_EMA] = (cl_int)lrint((1 - exp(-1.0 / 20)) * 65536); /* libplacebo's smoothing_period */
    t->k[K_SCENE_LO] = (cl_int)lrint(0.01 * (1 << 20)); /* its scene_threshold_low and _high: */
    t->k[K_SCENE_HI] = (cl_int)lrint(0.03 * (1 << 20)); /* 1% and 3% PQ */
    t->k[K_ROW_LO] = row_lo;
    t->k[K_ROW_STEP] = row_step;
    t->k[K_ROWS] = rows;
    int curve = (int)v[TM_CURVE].i;
    double param = curve_param(curve, (double)v[TM_PARAM].i / 1000);
    for (int r = 0; r < rows; r++) {
        double p = measure ? pq_eotf(fmin((double)(row_lo + r * row_step) / (1 << 20), 1)) : peak;
        for (int k = 0; k < LOG_KNOTS; k++)
            t->curve[r][k] = ratio_at(curve, knot(k) / LIN_ONE, p, param);
    }
}

/* ---- The integer arithmetic of a pixel (cl/tonemap.cl's, written plainly) */

static int top_bit(uint32_t v)
{
#if defined(__GNUC__)
    return 31 - __builtin_clz(v);
#else
    int b = 0;
    while (v >>= 1)
        b++;
    return b;
#endif
}

/* Table t (log-spaced knots) at v, interpolated, rounded. */
static uint32_t tm_interp(const cl_uint *t, uint32_t v)
{
    if (v < 2u * SEGS)
        return t[v];
    int s = top_bit(v) - SEG_BITS;
    uint32_t k = ((uint32_t)s << SEG_BITS) + (v >> s), f = v & ((1u << s) - 1);
    return (
        uint32_t)(((uint64_t)t[k] * ((1u << s) - f) + (uint64_t)t[k + 1] * f + (1u << (s - 1))) >>
                  s);
}

/* A Q16 product's sum rounded, halves up: floor((sum + 2^15) / 2^16), as
 * the kernels' arithmetic shift, for |sum| < 2^62 (without a right shift
 * of a negative number). */
static int32_t q16_round(int64_t sum)
{
    uint64_t biased = (uint64_t)sum + 32768 + ((uint64_t)1 << 62);
    return (int32_t)((int64_t)(biased >> 16) - ((int64_t)1 << 46));
}

/* The Q16 row m times c. */
static int32_t q16_dot(const cl_int m[3], const int32_t c[3])
{
    return q16_round((int64_t)m[0] * c[0] + (int64_t)m[1] * c[1] + (int64_t)m[2] * c[2]);
}

/* The linear light of R'G'B' codes (0-65535) in BT.709 primaries, negative
 * where BT.2020's colour lies outside BT.709 (as in ffmpeg's float frames
 * until its output clips them). */
static void to_linear(const tm_tables *t, const int code[3], int32_t lin[3])
{
    const cl_int *k = t->k;
    int32_t c[3];
    for (int i = 0; i < 3; i++)
        c[i] = (int32_t)t->lin[code[i]];
    if (k[K_MODE] == MODE_HLG) {
        /* BT.2100's OOTF on the scene luma */
        int32_t gain = (int32_t)tm_interp(t->gain, (uint32_t)q16_dot(&k[K_LUMA], c));
        for (int i = 0; i < 3; i++)
            c[i] = q16_round((int64_t)c[i] * gain);
    }
    for (int i = 0; i < 3; i++)
        lin[i] = q16_dot(&k[K_M + 3 * i], c);
}

/* The brightest component, 0 at least. */
static uint32_t brightest(const int32_t c[3])
{
    int32_t m = c[0] > c[1] ? c[0] : c[1];
    m = m > c[2] ? m : c[2];
    return m > 0 ? (uint32_t)m : 0;
}

/* Desaturation (on the signed values, as ffmpeg's), the negatives clipped,
 * the curve of the brightest component and the output transfer (BT.1886
 * inverted): the output codes at depth 8 or 16. */
static void tone(const tm_tables *t, const cl_uint *curve, const int32_t lin[3], int depth,
                 int out[3])
{
    const cl_int *k = t->k;
    uint32_t c[3];
    int32_t luma = q16_dot(&k[K_LUMA], lin);
    if (k[K_DESAT] > 0 && luma > k[K_DESAT]) {
        /* ffmpeg's mix towards the luma by (luma - desat) / luma */
        int32_t over = (int32_t)(((int64_t)(luma - k[K_DESAT]) << 16) / luma);
        for (int i = 0; i < 3; i++) {
            int32_t v = q16_round((int64_t)lin[i] * (65536 - over) + (int64_t)luma * over);
            c[i] = v > 0 ? (uint32_t)v : 0;
        }
    } else {
        for (int i = 0; i < 3; i++)
            c[i] = lin[i] > 0 ? (uint32_t)lin[i] : 0;
    }
    uint32_t sig = c[0] > c[1] ? c[0] : c[1];
    uint64_t ratio = tm_interp(curve, sig > c[2] ? sig : c[2]);
    for (int i = 0; i < 3; i++) {
        uint64_t v = ((uint64_t)c[i] * ratio + (1u << (RATIO_BITS - 1))) >> RATIO_BITS;
        uint32_t e = tm_interp(t->out, v > LIN_ONE ? LIN_ONE : (uint32_t)v);
        out[i] = depth == 16 ? (int)((e + 128) >> 8) : (int)((e + 32896) / 65792);
    }
}

/* The ranges cl/tonemap.cl's 32-bit values take, which the tables decide:
 * every linear value, before the gamut matrix (0 to top) and after it,
 * fits 32 bits signed, and the luma that desaturation divides by stays
 * under 2^30. Both hold with room for BT.2020 and BT.709 sources alike;
 * CLV_ERANGE if one did not. */
static int tables_check(const tm_tables *t)
{
    const cl_int *k = t->k;
    if (k[K_MODE] == MODE_PASS)
        return 0;
    int64_t top = t->lin[65535];
    if (k[K_MODE] == MODE_HLG)
        top = q16_round(top * (int64_t)t->gain[OUT_KNOTS - 1]);
    if (top >= ((int64_t)1 << 31))
        return CLV_ERANGE;
    double luma = 1; /* its bound: the rounding adds at most 1 */
    for (int i = 0; i < 3; i++) {
        /* row i's extremes over [0, top]^3; the luma's weight of input i */
        int64_t hi = 0, lo = 0, weight = 0;
        for (int j = 0; j < 3; j++) {
            int64_t m = k[K_M + 3 * i + j];
            hi += m > 0 ? m * top : 0;
            lo += m < 0 ? m * top : 0;
            weight += (int64_t)k[K_LUMA + j] * k[K_M + 3 * j + i];
        }
        if (hi + 32768 >= ((int64_t)1 << 47) || lo <= -((int64_t)1 << 47))
            return CLV_ERANGE;
        luma += weight > 0 ? ldexp((double)weight * (double)top, -32) : 0;
    }
    return luma < (double)(1 << 30) ? 0 : CLV_ERANGE;
}

/* The pixels measured for the peak: those of even x and y, so n columns
 * or rows give (n + 1) / 2. That quarter of the frame sees every highlight
 * of 2x2 pixels or more (a lone brighter pixel may go unseen, and clips),
 * and its mean level, which only tells a scene change, is as good as the
 * whole frame's; the measuring pass does a quarter of the arithmetic and
 * reads half the rows. Measuring in the mapping pass instead and using the
 * result a frame later, as libplacebo does, would map each new scene's
 * first frame with the last scene's peak. */
static int measured(int n)
{
    return (n + 1) / 2;
}

/* The measured frame into the smoothed levels and the curve they pick
 * (cl/tonemap.cl's tonemap_peak). */
static void peak_update(const tm_tables *t, cl_uint *st, uint32_t frame_max, uint64_t sum,
                        uint32_t pixels)
{
    const cl_int *k = t->k;
    int32_t f_peak = (int32_t)tm_interp(t->pq, frame_max) << 4;
    int32_t f_avg = (int32_t)(sum / pixels) << 4;
    int32_t avg = f_avg, peak = f_peak;
    if (st[ST_STARTED]) {
        avg = (int32_t)st[ST_AVG];
        peak = (int32_t)st[ST_PEAK];
        avg += (int32_t)((int64_t)(f_avg - avg) * k[K_EMA] / 65536);
        peak += (int32_t)((int64_t)(f_peak - peak) * k[K_EMA] / 65536);
        /* a scene change lets go: smoothstep over the window */
        int32_t delta = f_avg > avg ? f_avg - avg : avg - f_avg;
        int64_t x = delta <= k[K_SCENE_LO]   ? 0
                    : delta >= k[K_SCENE_HI] ? 65536
                                             : ((int64_t)(delta - k[K_SCENE_LO]) << 16) /
                                                   (k[K_SCENE_HI] - k[K_SCENE_LO]);
        int64_t mix = (x * x * (3 * 65536 - 2 * x)) >> 32;
        avg += (int32_t)((int64_t)(f_avg - avg) * mix / 65536);
        peak += (int32_t)((int64_t)(f_peak - peak) * mix / 65536);
    }
    int32_t row =
        peak <= k[K_ROW_LO] ? 0 : (peak - k[K_ROW_LO] + k[K_ROW_STEP] / 2) / k[K_ROW_STEP];
    st[ST_STARTED] = 1;
    st[ST_AVG] = (cl_uint)avg;
    st[ST_PEAK] = (cl_uint)peak;
    st[ST_ROW] = (cl_uint)(row < k[K_ROWS] - 1 ? row : k[K_ROWS] - 1);
}

/* ---- Device side ------------------------------------------------------- */

static const char *const kernels[] = {"tonemap_measure", "tonemap_peak", "tonemap_map", NULL};

typedef struct tm_state {
    cl_kernel measure, peak, map; /* kernels[], in order */
    cl_mem k, lin, gain, out, pq, curve, st;
    tm_key key;
    int built, measuring;
} tm_state;

static void release_tables(tm_state *s)
{
    cl_mem *all[] = {&s->k, &s->lin, &s->gain, &s->out, &s->pq, &s->curve, &s->st};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        clv__mem_release(all[i]);
    s->built = 0;
}

static void uninit(void *state)
{
    release_tables(state);
}

static int resize(void *state, clv_context *ctx, const clv_value *v, const clv_size *in,
                  const clv_size *out, clv_msg *msg)
{
    (void)out;
    tm_state *s = state;
    tm_key key;
    key_make(&key, v, in);
    if (s->built && !memcmp(&key, &s->key, sizeof key))
        return 0;
    release_tables(s);
    tm_tables *t = calloc(1, sizeof *t);
    if (!t)
        return clv__fail(msg, CLV_ENOMEM, "tonemap: no memory for its tables");
    tables_build(t, v, in);
    if (tables_check(t)) {
        free(t);
        return clv__fail(msg, CLV_ERANGE,
                         "tonemap: these tables take the fixed point beyond its ranges");
    }
    int rows = t->k[K_MODE] == MODE_PASS ? 1 : t->k[K_ROWS];
    cl_uint st[ST_COUNT] = {0};
    struct {
        cl_mem *mem;
        const void *data;
        size_t size;
    } up[] = {
        {&s->k, t->k, sizeof t->k},
        {&s->lin, t->lin, sizeof t->lin},
        {&s->gain, t->gain, sizeof t->gain},
        {&s->out, t->out, sizeof t->out},
        {&s->pq, t->pq, sizeof t->pq},
        {&s->curve, t->curve, (size_t)rows * sizeof t->curve[0]},
        {&s->st, st, sizeof st},
    };
    cl_int cl = CL_SUCCESS;
    for (size_t i = 0; i < sizeof up / sizeof up[0] && cl == CL_SUCCESS; i++)
        *up[i].mem = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, up[i].size,
                                    (void *)up[i].data, &cl);
    s->measuring = t->k[K_MODE] != MODE_PASS && t->k[K_MEASURE];
    free(t);
    if (cl != CL_SUCCESS) {
        release_tables(s);
        return clv__fail(msg, CLV_ENOMEM, "tonemap: cannot allocate its tables on %s: %s",
                         ctx->dev.name, clv__cl_strerror(cl));
    }
    s->key = key;
    s->built = 1;
    return 0;
}

/* The measuring pass's work-groups: 4 a compute unit (as equalize's
 * histogram), at most one a measured row. */
static size_t measure_groups(const clv_launch *l)
{
    size_t groups = l->ctx->dev.compute_units * 4;
    if (groups > (size_t)measured(l->height))
        groups = (size_t)measured(l->height);
    return groups < 1 ? 1 : groups;
}

static int run(void *state, const clv_launch *l)
{
    tm_state *s = state;
    int err = 0;
    if (s->measuring) {
        size_t groups = measure_groups(l), one = 1, wg = 256;
        size_t global = l->ctx->row_shape ? groups : groups * wg;
        cl_uint pixels = (cl_uint)measured(l->width) * (cl_uint)measured(l->height);
        err =
            clv__kernel_args(s->measure, 0, 9, CLV__ARG(l->src), CLV__ARG(l->width),
                             CLV__ARG(l->height), CLV__ARG(l->stride), CLV__ARG(s->k),
                             CLV__ARG(s->lin), CLV__ARG(s->gain), CLV__ARG(s->pq), CLV__ARG(s->st));
        if (!err)
            err = clv__launch(l, s->measure, 1, &global, l->ctx->row_shape ? &one : &wg);
        if (!err)
            err = clv__kernel_args(s->peak, 0, 4, CLV__ARG(s->k), CLV__ARG(s->pq), CLV__ARG(s->st),
                                   CLV__ARG(pixels));
        if (!err)
            err = clv__launch(l, s->peak, 1, &one, &one);
    }
    if (!err)
        err = clv__kernel_frame_args(s->map, l);
    if (!err)
        err = clv__kernel_args(s->map, 5, 6, CLV__ARG(s->k), CLV__ARG(s->lin), CLV__ARG(s->gain),
                               CLV__ARG(s->curve), CLV__ARG(s->out), CLV__ARG(s->st));
    return err ? err : clv__launch_pixels(l, s->map, l->width, l->height);
}

/* ---- The reference ----------------------------------------------------- */

typedef struct tm_ref {
    tm_key key;
    int built;
    cl_uint st[ST_COUNT];
    tm_tables t;
} tm_ref;

static int reference_resize(void *ref_state, const clv_value *v, const clv_size *in,
                            const clv_size *out)
{
    (void)out;
    tm_ref *r = ref_state;
    tm_key key;
    key_make(&key, v, in);
    if (r->built && !memcmp(&key, &r->key, sizeof key))
        return 0;
    tables_build(&r->t, v, in);
    if (tables_check(&r->t))
        return CLV_ERANGE;
    memset(r->st, 0, sizeof r->st);
    r->key = key;
    r->built = 1;
    return 0;
}

static void codes_at(const clv_image *img, int x, int y, int code[3])
{
    int scale = clv__depth(img) == 16 ? 1 : 257;
    for (int c = 0; c < 3; c++)
        code[c] = clv__get(img, x, y, c) * scale;
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)v;
    (void)frame_index;
    tm_ref *r = ref_state;
    const tm_tables *t = &r->t;
    int w = src->width, h = src->height, depth = clv__depth(src), code[3], out[3];
    int32_t lin[3];
    if (t->k[K_MODE] == MODE_PASS) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int c = 0; c < 4; c++)
                    clv__put(dst, x, y, c, clv__get(src, x, y, c));
        return 0;
    }
    int row = 0;
    if (t->k[K_MEASURE]) {
        uint32_t frame_max = 0;
        uint64_t sum = 0;
        for (int y = 0; y < h; y += 2)
            for (int x = 0; x < w; x += 2) {
                codes_at(src, x, y, code);
                to_linear(t, code, lin);
                uint32_t sig = brightest(lin);
                frame_max = sig > frame_max ? sig : frame_max;
                sum += tm_interp(t->pq, sig);
            }
        peak_update(t, r->st, frame_max, sum, (uint32_t)measured(w) * (uint32_t)measured(h));
        row = (int)r->st[ST_ROW];
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            codes_at(src, x, y, code);
            to_linear(t, code, lin);
            tone(t, t->curve[row], lin, depth, out);
            for (int c = 0; c < 3; c++)
                clv__put(dst, x, y, c, out[c]);
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    return 0;
}

/* HDR in: SDR BT.709 out, peaking at 100 cd/m2; anything else passes. */
static int output_size(const clv_value *v, const clv_size *in, clv_size *out, clv_msg *msg)
{
    (void)msg;
    if (source_mode(v, in) != MODE_PASS) {
        out->transfer = CLV_TRC_BT709;
        out->primaries = CLV_PRIM_BT709;
        out->peak = 100;
    }
    return 0;
}

static const clv_param params[] = {
    {"tonemap", CLV_PARAM_ENUM, "none", 0, 6, "none|linear|gamma|clip|reinhard|hable|mobius|bt2390",
     "the curve (ffmpeg's; bt2390: ITU-R BT.2390's EETF)", 1},
    {"param", CLV_PARAM_REAL, "0", 0, 100, NULL,
     "the curve's parameter; 0: its default (gamma 1.8, mobius 0.3, bt2390's knee offset 0.5, "
     "else 1)",
     0.1},
    {"desat", CLV_PARAM_REAL, "2", 0, 100, NULL,
     "desaturate colours brighter than this (linear luma, 1 = 100 cd/m2); 0: off", 0.5},
    {"peak", CLV_PARAM_REAL, "0", 0, 100, NULL,
     "the signal's peak (1 = 100 cd/m2); 0: the source's MaxCLL or mastering display, else "
     "measured on every frame",
     1},
    {"transferin", CLV_PARAM_ENUM, "auto", 0, 0, "auto|smpte2084|arib-std-b67",
     "the input's transfer (PQ, HLG); auto: the frames' (SDR and untagged ones pass through)", 1},
    {"primariesin", CLV_PARAM_ENUM, "auto", 0, 0, "auto|bt2020|bt709",
     "the input's primaries; auto: the frames' (BT.2020 unless tagged BT.709)", 1},
};
_Static_assert(sizeof params / sizeof params[0] == TM_PARAM_COUNT,
               "tonemap: the enum and the params table differ");

static const char *const aliases[] = {"tin", "transferin", "pin", "primariesin", NULL};

const clv_filter clv__filter_tonemap = {
    .name = "tonemap",
    .help = "HDR (PQ, HLG) to SDR BT.709 by ffmpeg's tone curves; the peak measured when unknown",
    .params = params,
    .param_count = TM_PARAM_COUNT,
    .program = "tonemap",
    .kernels = kernels,
    /* The measured peak follows the frames before: flagged for every use
     * (the flag is the filter's), though a given or tagged peak is not. */
    .temporal = 1,
    .deep = 1,
    .output_size = output_size,
    .aliases = aliases,
    .state_size = sizeof(tm_state),
    .uninit = uninit,
    .run = run,
    .resize = resize,
    .ref_state_size = sizeof(tm_ref),
    .reference = reference,
    .reference_resize = reference_resize,
};
