/* lut3d.cl - ffmpeg's lut3d (src/filters/lut3d.c says what each number is)
 * in integers, at 8 and 16 bits alike:
 *   pos: per channel, the input code's place in the cube, 16.16 fixed point
 *        (the host's table: the domain and a 1D shaper folded in);
 *   lut: the cube's entries, red fastest, as int4 (r, g, b, 0), each value
 *        * maxv * 2^LUT_EB plus maxv * 2^LUT_EB (so never negative);
 *   out: the interpolated entry / 2^LUT_EB - maxv, rounded, clamped.
 * mode: 0 nearest, 1 trilinear, 2 tetrahedral, 3 pyramid, 4 prism. */

#if CLV_DEPTH == 8
#define LUT_EB 4
typedef int lut_acc; /* entries < 2^14, times a 16-bit weight */
typedef int4 lut_acc4;
#define convert_lut_acc4 convert_int4
#else
#define LUT_EB 8
typedef long lut_acc; /* entries < 2^26 */
typedef long4 lut_acc4;
#define convert_lut_acc4 convert_long4
#endif

#define LUT_ONE 65536

/* The output code of R = entry * 2^shift (s = shift + LUT_EB). */
inline int lut_code(long r, int s)
{
    const long q = r + (1L << (s - 1));
    return q < 0 ? 0 : clamp((int)(q >> s) - CLV_MAXV, 0, CLV_MAXV);
}

/* The trilinear's lerps: the first (red) of entries, at 2^16; the next
 * two (green, blue) of those, rounded back to 2^16. */
inline long4 lut_lerp_first(lut_acc4 a, lut_acc4 b, int f)
{
    return convert_long4(a) * (long)(LUT_ONE - f) + convert_long4(b) * (long)f;
}

inline long4 lut_lerp(long4 a, long4 b, int f)
{
    return (a * (long)(LUT_ONE - f) + b * (long)f + (long)(LUT_ONE / 2)) >> 16;
}

#define LUT_AT(i, j, k) convert_lut_acc4(lut[((k)*n + (j)) * n + (i)])

/* mode is a constant in each kernel below, so each compiles its own way. */
__attribute__((always_inline)) inline clv_px
lut_pixel(clv_px p, __global const uint *pos, __global const int4 *lut, int n, const int mode)
{
    const uint pr = pos[p.x], pg = pos[CLV_MAXV + 1 + p.y], pb = pos[2 * (CLV_MAXV + 1) + p.z];
    int4 o;
    if (mode == 0) {
        /* ffmpeg's NEAR: (int)(x + 0.5) */
        const lut_acc4 c =
            LUT_AT((pr + LUT_ONE / 2) >> 16, (pg + LUT_ONE / 2) >> 16, (pb + LUT_ONE / 2) >> 16);
        o = (int4)(lut_code(c.x, LUT_EB), lut_code(c.y, LUT_EB), lut_code(c.z, LUT_EB), 0);
    } else {
        const int r0 = pr >> 16, g0 = pg >> 16, b0 = pb >> 16;
        const int r1 = min(r0 + 1, n - 1), g1 = min(g0 + 1, n - 1), b1 = min(b0 + 1, n - 1);
        const int dr = pr & 0xFFFF, dg = pg & 0xFFFF, db = pb & 0xFFFF;
        const lut_acc4 c000 = LUT_AT(r0, g0, b0), c111 = LUT_AT(r1, g1, b1);
        long4 v; /* the entry times 2^shift */
        int shift;
        if (mode == 1) {
            const long4 c00 = lut_lerp_first(c000, LUT_AT(r1, g0, b0), dr);
            const long4 c10 = lut_lerp_first(LUT_AT(r0, g1, b0), LUT_AT(r1, g1, b0), dr);
            const long4 c01 = lut_lerp_first(LUT_AT(r0, g0, b1), LUT_AT(r1, g0, b1), dr);
            const long4 c11 = lut_lerp_first(LUT_AT(r0, g1, b1), c111, dr);
            v = lut_lerp(lut_lerp(c00, c10, dg), lut_lerp(c01, c11, dg), db);
            shift = 16;
        } else if (mode == 2) {
            /* the tetrahedron of the cube that holds the point: the corners
             * along the path that steps the largest fraction first */
            lut_acc4 ca, cb;
            int wa, wb, wc, w0;
            if (dr > dg) {
                if (dg > db) {
                    ca = LUT_AT(r1, g0, b0), cb = LUT_AT(r1, g1, b0);
                    w0 = LUT_ONE - dr, wa = dr - dg, wb = dg - db, wc = db;
                } else if (dr > db) {
                    ca = LUT_AT(r1, g0, b0), cb = LUT_AT(r1, g0, b1);
                    w0 = LUT_ONE - dr, wa = dr - db, wb = db - dg, wc = dg;
                } else {
                    ca = LUT_AT(r0, g0, b1), cb = LUT_AT(r1, g0, b1);
                    w0 = LUT_ONE - db, wa = db - dr, wb = dr - dg, wc = dg;
                }
            } else {
                if (db > dg) {
                    ca = LUT_AT(r0, g0, b1), cb = LUT_AT(r0, g1, b1);
                    w0 = LUT_ONE - db, wa = db - dg, wb = dg - dr, wc = dr;
                } else if (db > dr) {
                    ca = LUT_AT(r0, g1, b0), cb = LUT_AT(r0, g1, b1);
                    w0 = LUT_ONE - dg, wa = dg - db, wb = db - dr, wc = dr;
                } else {
                    ca = LUT_AT(r0, g1, b0), cb = LUT_AT(r1, g1, b0);
                    w0 = LUT_ONE - dg, wa = dg - dr, wb = dr - db, wc = db;
                }
            }
            v = convert_long4(c000 * (lut_acc)w0 + ca * (lut_acc)wa + cb * (lut_acc)wb +
                              c111 * (lut_acc)wc);
            shift = 16;
        } else {
            /* pyramid and prism: ffmpeg's formulas, in 64 bits at 2^32 */
            const long4 a = convert_long4(c000), z = convert_long4(c111);
            const long lr = dr, lg = dg, lb = db;
            if (mode == 3) {
                if (dg > dr && db > dr) {
                    const long4 c001 = convert_long4(LUT_AT(r0, g0, b1)),
                                c010 = convert_long4(LUT_AT(r0, g1, b0)),
                                c011 = convert_long4(LUT_AT(r0, g1, b1));
                    v = (a << 32) + (((z - c011) * lr + (c010 - a) * lg + (c001 - a) * lb) << 16) +
                        (c011 - c001 - c010 + a) * (lg * lb);
                } else if (dr > dg && db > dg) {
                    const long4 c001 = convert_long4(LUT_AT(r0, g0, b1)),
                                c100 = convert_long4(LUT_AT(r1, g0, b0)),
                                c101 = convert_long4(LUT_AT(r1, g0, b1));
                    v = (a << 32) + (((c100 - a) * lr + (z - c101) * lg + (c001 - a) * lb) << 16) +
                        (c101 - c001 - c100 + a) * (lr * lb);
                } else {
                    const long4 c010 = convert_long4(LUT_AT(r0, g1, b0)),
                                c110 = convert_long4(LUT_AT(r1, g1, b0)),
                                c100 = convert_long4(LUT_AT(r1, g0, b0));
                    v = (a << 32) + (((c100 - a) * lr + (c010 - a) * lg + (z - c110) * lb) << 16) +
                        (c110 - c100 - c010 + a) * (lr * lg);
                }
            } else {
                const long4 c010 = convert_long4(LUT_AT(r0, g1, b0)),
                            c101 = convert_long4(LUT_AT(r1, g0, b1));
                if (db > dr) {
                    const long4 c001 = convert_long4(LUT_AT(r0, g0, b1)),
                                c011 = convert_long4(LUT_AT(r0, g1, b1));
                    v = (a << 32) +
                        (((c001 - a) * lb + (c101 - c001) * lr + (c010 - a) * lg) << 16) +
                        (a - c010 - c001 + c011) * (lb * lg) + (c001 - c011 - c101 + z) * (lr * lg);
                } else {
                    const long4 c110 = convert_long4(LUT_AT(r1, g1, b0)),
                                c100 = convert_long4(LUT_AT(r1, g0, b0));
                    v = (a << 32) +
                        (((c101 - c100) * lb + (c100 - a) * lr + (c010 - a) * lg) << 16) +
                        (c100 - c110 - c101 + z) * (lb * lg) + (a - c010 - c100 + c110) * (lr * lg);
                }
            }
            shift = 32;
        }
        o = (int4)(lut_code(v.x, shift + LUT_EB), lut_code(v.y, shift + LUT_EB),
                   lut_code(v.z, shift + LUT_EB), 0);
    }
    return (clv_px)((clv_ch)o.x, (clv_ch)o.y, (clv_ch)o.z, p.w);
}

/* pos: 3 (maxv + 1) places; lut: n^3 entries. One kernel an
 * interpolation. */
#define LUT_KERNEL(name, mode)                                                                     \
    __kernel void name(CLV_FRAME_ARGS, __global const uint *pos, __global const int4 *lut, int n)  \
    {                                                                                              \
        CLV_PIXEL_LOOP(w, h, x, y)                                                                 \
        dst[y * stride + x] = lut_pixel(src[y * stride + x], pos, lut, n, mode);                   \
    }
LUT_KERNEL(lut3d_nearest, 0)
#if CLV_ROW && CLV_DEPTH == 8 && defined(__AVX512F__)
/* The trilinear and the tetrahedral at 8 bits on AVX-512 CPUs: 16 pixels a
 * step, the tables read with vpgatherdd (LLVM vectorizes neither loop by
 * itself), the rest of a row by lut_pixel. The same integers:
 * - trilinear: lut_lerp(a, b, f) = a + floor(((b - a) f + 2^15) / 2^16)
 *   (a 2^16 is a multiple of 2^16), with d = b - a (|d| < 2^30) split as
 *   2^15 dh + dl, A = dh f: the floor is floor(A / 2) + (2^15 (A & 1) +
 *   dl f + 2^15) >> 16, every term within an int;
 * - tetrahedral: without branches, the path leaves c000 along the axis of
 *   the largest fraction (R before G before B where they tie) and reaches
 *   c111 along the axis of the smallest (B before G before R), weights
 *   1 - max, max - mid, mid - min, min. Where fractions tie, the corners
 *   that this choice and lut_pixel's differ in get the weight 0.
 * Entries are below 2^14 and never negative, the weights sum to 2^16, so
 * every sum fits an int. */
typedef uint16 __attribute__((aligned(4))) lut_uint16_u;
#define LUT_GATHER(base, idx)                                                                      \
    __builtin_ia32_gathersiv16si((int16)0, (const void *)(ulong)(base), idx, (ushort)0xffff, 4)

inline int16 lut_lerp16(int16 a, int16 b, int16 f)
{
    const int16 d = b - a, dh = d >> 15, dl = d & 32767, A = dh * f;
    return a + (A >> 1) + ((((A & 1) << 15) + dl * f + 32768) >> 16);
}

__attribute__((always_inline)) inline uint16
lut_step16(uint16 p, __global const uint *pos, __global const int *lut, int n, const int mode)
{
    const int16 vn = (int16)n;
    const int16 pr = LUT_GATHER(pos, as_int16(p & 255u)),
                pg = LUT_GATHER(pos, as_int16((p >> 8 & 255u) + 256u)),
                pb = LUT_GATHER(pos, as_int16((p >> 16 & 255u) + 512u));
    const int16 r0 = pr >> 16, g0 = pg >> 16, b0 = pb >> 16;
    const int16 dr = pr & 0xFFFF, dg = pg & 0xFFFF, db = pb & 0xFFFF;
    const int16 sr = (r0 + 1 < vn) & 1, sg = (g0 + 1 < vn) & vn, sb = (b0 + 1 < vn) & (n * n);
    const int16 i0 = (b0 * vn + g0) * vn + r0;
    uint16 o = p & 0xff000000u;
    if (mode == 1) {
        const int16 j000 = 4 * i0, j100 = 4 * (i0 + sr), j010 = 4 * (i0 + sg),
                    j110 = 4 * (i0 + sr + sg), j001 = j000 + 4 * sb, j101 = j100 + 4 * sb,
                    j011 = j010 + 4 * sb, j111 = j110 + 4 * sb, fr = LUT_ONE - dr;
        for (int c = 0; c < 3; ++c) {
#define LUT_FIRST(ja, jb) (LUT_GATHER(lut, (ja) + c) * fr + LUT_GATHER(lut, (jb) + c) * dr)
            const int16 c00 = LUT_FIRST(j000, j100), c10 = LUT_FIRST(j010, j110),
                        c01 = LUT_FIRST(j001, j101), c11 = LUT_FIRST(j011, j111);
#undef LUT_FIRST
            const int16 v = lut_lerp16(lut_lerp16(c00, c10, dg), lut_lerp16(c01, c11, dg), db);
            o |= as_uint16(clamp(((v + (1 << 19)) >> 20) - 255, 0, 255)) << (uint)(8 * c);
        }
    } else {
        const int16 i1 = i0 + sr + sg + sb;
        const int16 mx = max(dr, max(dg, db)), mn = min(dr, min(dg, db)),
                    md = dr + dg + db - mx - mn;
        const int16 up = select(select(sb, sg, dg == mx), sr, dr == mx);
        const int16 down = select(select(sr, sg, dg == mn), sb, db == mn);
        const int16 j0 = 4 * i0, ja = 4 * (i0 + up), jb = 4 * (i1 - down), j1 = 4 * i1;
        const int16 w0 = LUT_ONE - mx, wa = mx - md, wb = md - mn, wc = mn;
        for (int c = 0; c < 3; ++c) {
            const int16 v = LUT_GATHER(lut, j0 + c) * w0 + LUT_GATHER(lut, ja + c) * wa +
                            LUT_GATHER(lut, jb + c) * wb + LUT_GATHER(lut, j1 + c) * wc;
            o |= as_uint16(clamp(((v + (1 << 19)) >> 20) - 255, 0, 255)) << (uint)(8 * c);
        }
    }
    return o;
}
#undef LUT_GATHER

#define LUT_ROW_KERNEL(name, mode)                                                                 \
    __kernel void name(CLV_FRAME_ARGS, __global const uint *pos, __global const int4 *lut, int n)  \
    {                                                                                              \
        const int y = (int)get_global_id(1);                                                       \
        if (y >= h)                                                                                \
            return;                                                                                \
        __global const clv_px *in = src + y * stride;                                              \
        __global clv_px *out = dst + y * stride;                                                   \
        int x = 0;                                                                                 \
        for (; x + 16 <= w; x += 16)                                                               \
            *(__global lut_uint16_u *)(out + x) =                                                  \
                lut_step16(*(__global const lut_uint16_u *)(in + x), pos,                          \
                           (__global const int *)lut, n, mode);                                    \
        for (; x < w; ++x)                                                                         \
            out[x] = lut_pixel(in[x], pos, lut, n, mode);                                          \
    }
LUT_ROW_KERNEL(lut3d_trilinear, 1)
LUT_ROW_KERNEL(lut3d_tetrahedral, 2)
#else
LUT_KERNEL(lut3d_trilinear, 1)
LUT_KERNEL(lut3d_tetrahedral, 2)
#endif
LUT_KERNEL(lut3d_pyramid, 3)
LUT_KERNEL(lut3d_prism, 4)
