/* bilateral.cl - the bilateral filter (src/filters/bilateral.c defines it):
 * each pixel the weighted mean of its disc, a tap (taps[k]: dx, dy, ws in
 * Q15) weighing (ws * range[d >> shift]) >> 15 with d the sum of |q - p|
 * over the channels of sel (bits 0-2: R, G, B; the others are copied),
 * neighbours clamped to the picture. The weights' sum is a uint (at most
 * 7400 taps of 32768); weight * value sums in 64 bits, except at 8 bits,
 * where BIL_FLUSH taps of at most 32768 * 255 fit a uint and are added
 * into the 64-bit sums a block at a time. */

#if CLV_DEPTH == 8
typedef uint bil_part;
#define BIL_FLUSH 512
#else
typedef ulong bil_part;
#define BIL_FLUSH 0x40000000
#endif

/* The row shape: BIL_CHUNK pixels of a row at a time, the taps outermost,
 * so that the pixels' loop vectorizes (its range weights gathered). */
#define BIL_CHUNK 64

/* One tap of the row shape's pass: the neighbour's channels at q (a
 * pointer to clv_ch), its spatial weight ws, into the sums dn, b0, b1, b2
 * of pixel i. */
#define BIL_TAP(q, ws)                                                                             \
    {                                                                                              \
        __global const clv_ch *q_ = (q);                                                           \
        const int q0 = q_[0], q1 = q_[1], q2 = q_[2];                                              \
        const int d = (m0 & abs(q0 - p0[i])) + (m1 & abs(q1 - p1[i])) + (m2 & abs(q2 - p2[i]));    \
        const uint wt = ((uint)(ws)*range[d >> shift]) >> 15;                                      \
        dn += wt;                                                                                  \
        b0 += (bil_part)wt * (bil_part)q0;                                                         \
        b1 += (bil_part)wt * (bil_part)q1;                                                         \
        b2 += (bil_part)wt * (bil_part)q2;                                                         \
    }

/* n / d for d > 0 and a quotient below 2^16, exactly, without a 64-bit
 * division (which does not vectorize, and took as long as the taps of a
 * small disc): the float quotient is within a few units in its last place,
 * less than 1 here, and one step each way in integers corrects it. */
inline uint bil_div(ulong n, ulong d)
{
    uint q = (uint)((float)n / (float)d);
    q -= (ulong)q * d > n;
    q += (ulong)(q + 1) * d <= n;
    return q;
}

/* The output of a pixel p from its sums. */
inline clv_ch bil_out(ulong num, uint den, int sel, int c, int p)
{
    return (clv_ch)((sel >> c & 1) ? bil_div(num + den / 2, den) : (uint)p);
}

__kernel void bilateral(CLV_FRAME_ARGS, __global const int4 *taps, int ntaps, int radius,
                        __global const uint *restrict range, int shift, int sel)
{
    const int m0 = -(sel & 1), m1 = -(sel >> 1 & 1), m2 = -(sel >> 2 & 1); /* masks */
#if CLV_ROW
    CLV_ROW_Y(y);
    __global const clv_ch *restrict row = (__global const clv_ch *)(src + y * stride);
    __global clv_ch *restrict out = (__global clv_ch *)(dst + y * stride);
    for (int x0 = 0; x0 < w; x0 += BIL_CHUNK) {
        const int n = min(BIL_CHUNK, w - x0);
        const int inside = x0 >= radius && x0 + n - 1 + radius < w;
        int p0[BIL_CHUNK], p1[BIL_CHUNK], p2[BIL_CHUNK];
        uint den[BIL_CHUNK];
        ulong s0[BIL_CHUNK], s1[BIL_CHUNK], s2[BIL_CHUNK];
        for (int i = 0; i < n; i++) {
            p0[i] = row[4 * (x0 + i)];
            p1[i] = row[4 * (x0 + i) + 1];
            p2[i] = row[4 * (x0 + i) + 2];
            den[i] = 0;
            s0[i] = s1[i] = s2[i] = 0;
        }
        for (int k0 = 0; k0 < ntaps; k0 += BIL_FLUSH) {
            bil_part a0[BIL_CHUNK], a1[BIL_CHUNK], a2[BIL_CHUNK];
            for (int i = 0; i < n; i++)
                a0[i] = a1[i] = a2[i] = 0;
            /* four taps a pass over the chunk's sums (the host pads the
             * taps with weightless ones to a multiple of four) */
            for (int k = k0; k < min(k0 + BIL_FLUSH, ntaps); k += 4) {
                const int4 t0 = taps[k], t1 = taps[k + 1], t2 = taps[k + 2], t3 = taps[k + 3];
                __global const clv_ch *restrict r0 =
                    (__global const clv_ch *)(src + clamp(y + t0.y, 0, h - 1) * stride);
                __global const clv_ch *restrict r1 =
                    (__global const clv_ch *)(src + clamp(y + t1.y, 0, h - 1) * stride);
                __global const clv_ch *restrict r2 =
                    (__global const clv_ch *)(src + clamp(y + t2.y, 0, h - 1) * stride);
                __global const clv_ch *restrict r3 =
                    (__global const clv_ch *)(src + clamp(y + t3.y, 0, h - 1) * stride);
                if (inside) {
                    r0 += 4 * (x0 + t0.x);
                    r1 += 4 * (x0 + t1.x);
                    r2 += 4 * (x0 + t2.x);
                    r3 += 4 * (x0 + t3.x);
                    for (int i = 0; i < n; i++) {
                        uint dn = den[i];
                        bil_part b0 = a0[i], b1 = a1[i], b2 = a2[i];
                        BIL_TAP(r0 + 4 * i, t0.z);
                        BIL_TAP(r1 + 4 * i, t1.z);
                        BIL_TAP(r2 + 4 * i, t2.z);
                        BIL_TAP(r3 + 4 * i, t3.z);
                        den[i] = dn;
                        a0[i] = b0;
                        a1[i] = b1;
                        a2[i] = b2;
                    }
                } else {
                    for (int i = 0; i < n; i++) {
                        uint dn = den[i];
                        bil_part b0 = a0[i], b1 = a1[i], b2 = a2[i];
                        BIL_TAP(r0 + 4 * clamp(x0 + i + t0.x, 0, w - 1), t0.z);
                        BIL_TAP(r1 + 4 * clamp(x0 + i + t1.x, 0, w - 1), t1.z);
                        BIL_TAP(r2 + 4 * clamp(x0 + i + t2.x, 0, w - 1), t2.z);
                        BIL_TAP(r3 + 4 * clamp(x0 + i + t3.x, 0, w - 1), t3.z);
                        den[i] = dn;
                        a0[i] = b0;
                        a1[i] = b1;
                        a2[i] = b2;
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                s0[i] += a0[i];
                s1[i] += a1[i];
                s2[i] += a2[i];
            }
        }
        for (int i = 0; i < n; i++) {
            const int x = x0 + i;
            out[4 * x] = bil_out(s0[i], den[i], sel, 0, p0[i]);
            out[4 * x + 1] = bil_out(s1[i], den[i], sel, 1, p1[i]);
            out[4 * x + 2] = bil_out(s2[i], den[i], sel, 2, p2[i]);
            out[4 * x + 3] = row[4 * x + 3];
        }
    }
#else
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * CLV_PX;
    if (y >= h || x0 >= w)
        return;
    int4 p[CLV_PX];
    uint den[CLV_PX];
    ulong s0[CLV_PX], s1[CLV_PX], s2[CLV_PX];
    for (int i = 0; i < CLV_PX; i++) {
        p[i] = clv_int4(src[y * stride + min(x0 + i, w - 1)]);
        den[i] = 0;
        s0[i] = s1[i] = s2[i] = 0;
    }
    for (int k0 = 0; k0 < ntaps; k0 += BIL_FLUSH) {
        bil_part a0[CLV_PX], a1[CLV_PX], a2[CLV_PX];
        for (int i = 0; i < CLV_PX; i++)
            a0[i] = a1[i] = a2[i] = 0;
        for (int k = k0; k < min(k0 + BIL_FLUSH, ntaps); k++) {
            const int4 t = taps[k];
            __global const clv_px *nb = src + clamp(y + t.y, 0, h - 1) * stride;
            const uint ws = (uint)t.z;
            for (int i = 0; i < CLV_PX; i++) {
                const int4 q = clv_int4(nb[clamp(x0 + i + t.x, 0, w - 1)]);
                const int d =
                    (m0 & abs(q.x - p[i].x)) + (m1 & abs(q.y - p[i].y)) + (m2 & abs(q.z - p[i].z));
                const uint wt = (ws * range[d >> shift]) >> 15;
                den[i] += wt;
                a0[i] += (bil_part)wt * (bil_part)q.x;
                a1[i] += (bil_part)wt * (bil_part)q.y;
                a2[i] += (bil_part)wt * (bil_part)q.z;
            }
        }
        for (int i = 0; i < CLV_PX; i++) {
            s0[i] += a0[i];
            s1[i] += a1[i];
            s2[i] += a2[i];
        }
    }
    for (int i = 0; i < CLV_PX && x0 + i < w; i++) {
        const clv_px a = src[y * stride + x0 + i];
        dst[y * stride + x0 + i] =
            (clv_px)(bil_out(s0[i], den[i], sel, 0, p[i].x), bil_out(s1[i], den[i], sel, 1, p[i].y),
                     bil_out(s2[i], den[i], sel, 2, p[i].z), a.w);
    }
#endif
}
