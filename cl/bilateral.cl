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

#if CLV_ROW && CLV_DEPTH == 8 && CLV_X86_VNNI && defined(__AVX512BW__)
/* 64 pixels of row y from x0 on at 8 bits on x86 with AVX-512 VNNI
 * (src/core/program.c's host_isa): four vectors of 16 pixels (loaded
 * where every tap's neighbours of the 64 are in the row, else gathered at
 * clamped places, lanes past the row's end computed and dropped), the taps
 * outermost, the sums in registers. Per tap and vector: d in bytes (|q - p|
 * by two saturating subtractions, summed over the channels of sel by
 * vpdpbusd with weights 0 or 1), the range weight gathered, wt = (ws *
 * range) >> 15, and each channel's wt * q by vpdpwssd on the pixel's
 * words (q0 and q2 in the low and high word of v & 0x00ff00ff, wt in the
 * matching word of the other operand, 0 in the other): the same integers
 * as the generic loop. A tap with ws = 32768 (the centre) can give wt =
 * 32768, which is no short: it takes 32-bit multiplies. Every BIL_FLUSH
 * taps the 32-bit sums (below 2^32: read as uints) go into 64-bit ones. */
typedef uchar bil_u8x64 __attribute__((ext_vector_type(64)));
typedef uint16 __attribute__((aligned(4))) bil_uint16_u;
#define BIL_AS_U8(v) __builtin_astype((v), bil_u8x64)
#define BIL_AS_I(v) __builtin_astype((v), int16)
#define BIL_GATHER(base, idx)                                                                      \
    as_uint16(__builtin_ia32_gathersiv16si((int16)0, (const void *)(ulong)(base), (idx),           \
                                           (ushort)0xffff, 4))
/* One tap over the four vectors (unrolled: their sums in registers), wt
 * the weight from d, dp: wt fits a short (vpdpwssd) */
#define BIL_VECTORS(WT, dp)                                                                        \
    {                                                                                              \
        _Pragma("unroll") for (int g = 0; g < 4; g++)                                              \
        {                                                                                          \
            const uint16 v = inside ? *(__global const bil_uint16_u *)(row + x0 + 16 * g + t.x)    \
                                    : BIL_GATHER(row, clamp(x0 + 16 * g + t.x + lane, 0, w - 1));  \
            const bil_u8x64 a = BIL_AS_U8(v), b = BIL_AS_U8(p[g]);                                 \
            const bil_u8x64 ad =                                                                   \
                __builtin_elementwise_sub_sat(a, b) | __builtin_elementwise_sub_sat(b, a);         \
            const int16 d = __builtin_ia32_vpdpbusd512((int16)0, BIL_AS_I(ad), BIL_AS_I(chans));   \
            const uint16 wt = WT;                                                                  \
            den[g] += wt;                                                                          \
            const uint16 v02 = v & m02, v13 = (v >> 8) & m02;                                      \
            if (dp) {                                                                              \
                b0[g] = as_uint16(                                                                 \
                    __builtin_ia32_vpdpwssd512(BIL_AS_I(b0[g]), BIL_AS_I(v02), BIL_AS_I(wt)));     \
                b1[g] = as_uint16(                                                                 \
                    __builtin_ia32_vpdpwssd512(BIL_AS_I(b1[g]), BIL_AS_I(v13), BIL_AS_I(wt)));     \
                b2[g] = as_uint16(__builtin_ia32_vpdpwssd512(BIL_AS_I(b2[g]), BIL_AS_I(v02),       \
                                                             BIL_AS_I(wt << 16)));                 \
            } else {                                                                               \
                b0[g] += wt * (v & 255u);                                                          \
                b1[g] += wt * (v >> 8 & 255u);                                                     \
                b2[g] += wt * (v >> 16 & 255u);                                                    \
            }                                                                                      \
        }                                                                                          \
    }
__attribute__((noinline, target("avx512vnni"))) void
bil_chunk64(__global const clv_px *src, int w, int h, int stride, int y, int x0,
            __global const int4 *taps, int ntaps, __global const uint *restrict range, int sel,
            __global clv_ch *restrict out, const int inside)
{
    const uint16 chans = (uint16)((sel & 1) | (sel >> 1 & 1) << 8 | (sel >> 2 & 1) << 16);
    const uint16 m02 = (uint16)0x00ff00ffu;
    const int16 lane = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    uint16 p[4], den[4] = {0, 0, 0, 0};
    ulong8 s0[8], s1[8], s2[8];
    for (int g = 0; g < 4; g++)
        p[g] = inside ? *(__global const bil_uint16_u *)(src + y * stride + x0 + 16 * g)
                      : BIL_GATHER(src + y * stride, min(x0 + 16 * g + lane, w - 1));
    for (int g = 0; g < 8; g++)
        s0[g] = s1[g] = s2[g] = 0;
    for (int k0 = 0; k0 < ntaps; k0 += BIL_FLUSH) {
        uint16 b0[4], b1[4], b2[4];
        for (int g = 0; g < 4; g++)
            b0[g] = b1[g] = b2[g] = 0;
        for (int k = k0; k < min(k0 + BIL_FLUSH, ntaps); k++) {
            const int4 t = taps[k];
            if (t.z == 0)
                continue;
            __global const clv_px *row = src + clamp(y + t.y, 0, h - 1) * stride;
            const uint ws = (uint)t.z;
            /* the tap's own weights (src/filters/bilateral.c's weight_tables) */
            __global const uint *restrict weights = range + t.w;
            if (t.w)
                BIL_VECTORS(BIL_GATHER(weights, d), 1)
            else if (ws < 32768)
                BIL_VECTORS((BIL_GATHER(range, d) * ws) >> 15, 1)
            else
                BIL_VECTORS((BIL_GATHER(range, d) * ws) >> 15, 0)
        }
        for (int g = 0; g < 4; g++) {
            s0[2 * g] += convert_ulong8(b0[g].lo);
            s0[2 * g + 1] += convert_ulong8(b0[g].hi);
            s1[2 * g] += convert_ulong8(b1[g].lo);
            s1[2 * g + 1] += convert_ulong8(b1[g].hi);
            s2[2 * g] += convert_ulong8(b2[g].lo);
            s2[2 * g + 1] += convert_ulong8(b2[g].hi);
        }
    }
    for (int i = 0; i < min(64, w - x0); i++) {
        const uint v = p[i / 16][i % 16], dn = den[i / 16][i % 16];
        const int x = x0 + i;
        out[4 * x] = bil_out(s0[i / 8][i % 8], dn, sel, 0, (int)(v & 255));
        out[4 * x + 1] = bil_out(s1[i / 8][i % 8], dn, sel, 1, (int)(v >> 8 & 255));
        out[4 * x + 2] = bil_out(s2[i / 8][i % 8], dn, sel, 2, (int)(v >> 16 & 255));
        out[4 * x + 3] = (clv_ch)(v >> 24);
    }
}
#undef BIL_VECTORS
#undef BIL_GATHER
#endif

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
#if CLV_DEPTH == 8 && CLV_X86_VNNI && defined(__AVX512BW__)
        if (inside && n == BIL_CHUNK)
            bil_chunk64(src, w, h, stride, y, x0, taps, ntaps, range, sel, out, 1);
        else
            bil_chunk64(src, w, h, stride, y, x0, taps, ntaps, range, sel, out, 0);
        continue;
#endif
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
            /* the tap's own weights (src/filters/bilateral.c's weight_tables) */
            __global const uint *restrict weights = range + t.w;
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

#if !CLV_ROW
/* The GPU shape where the disc fits local memory (the host's choice): a
 * work-group of 16 x 16 makes a tile of 64 x 16 pixels, four a work-item
 * (neighbouring work-items on neighbouring pixels, 16 apart). The picture
 * around the tile (its radius, each coordinate clamped as the definition's)
 * and the range weights are read into local memory once; the taps read
 * them there. */
#define BIL_TW 64
#define BIL_TH 16
__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void
bilateral_tile(CLV_FRAME_ARGS, __global const int4 *taps, int ntaps, int radius,
               __global const uint *restrict range, int shift, int sel, int nrange,
               __local clv_px *img, __local uint *lrange)
{
    const int m0 = -(sel & 1), m1 = -(sel >> 1 & 1), m2 = -(sel >> 2 & 1); /* masks */
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), lid = ly * 16 + lx;
    const int tx0 = (int)get_group_id(0) * BIL_TW, ty0 = (int)get_group_id(1) * BIL_TH;
    const int iw = BIL_TW + 2 * radius, ih = BIL_TH + 2 * radius;
    for (int k = lid; k < iw * ih; k += 256) {
        const int iy = k / iw, ix = k - iy * iw;
        img[k] = CLV_AT(src, tx0 - radius + ix, ty0 - radius + iy);
    }
    for (int k = lid; k < nrange; k += 256)
        lrange[k] = range[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int y = ty0 + ly;
    int4 p[4];
    uint den[4];
    ulong s0[4], s1[4], s2[4];
    for (int i = 0; i < 4; i++) {
        p[i] = clv_int4(img[(ly + radius) * iw + lx + 16 * i + radius]);
        den[i] = 0;
        s0[i] = s1[i] = s2[i] = 0;
    }
    for (int k0 = 0; k0 < ntaps; k0 += BIL_FLUSH) {
        bil_part a0[4], a1[4], a2[4];
        for (int i = 0; i < 4; i++)
            a0[i] = a1[i] = a2[i] = 0;
        for (int k = k0; k < min(k0 + BIL_FLUSH, ntaps); k++) {
            const int4 t = taps[k];
            __local const clv_px *nb = img + (ly + radius + t.y) * iw + lx + radius + t.x;
            const uint ws = (uint)t.z;
            /* the tap's own weights (src/filters/bilateral.c's weight_tables) */
            __global const uint *restrict weights = range + t.w;
            for (int i = 0; i < 4; i++) {
                const int4 q = clv_int4(nb[16 * i]);
                const int d =
                    (m0 & abs(q.x - p[i].x)) + (m1 & abs(q.y - p[i].y)) + (m2 & abs(q.z - p[i].z));
                const uint wt = (ws * lrange[d >> shift]) >> 15;
                den[i] += wt;
                a0[i] += (bil_part)wt * (bil_part)q.x;
                a1[i] += (bil_part)wt * (bil_part)q.y;
                a2[i] += (bil_part)wt * (bil_part)q.z;
            }
        }
        for (int i = 0; i < 4; i++) {
            s0[i] += a0[i];
            s1[i] += a1[i];
            s2[i] += a2[i];
        }
    }
    if (y >= h)
        return;
    for (int i = 0; i < 4; i++) {
        const int x = tx0 + lx + 16 * i;
        if (x >= w)
            continue;
        const clv_px a = src[y * stride + x];
        dst[y * stride + x] =
            (clv_px)(bil_out(s0[i], den[i], sel, 0, p[i].x), bil_out(s1[i], den[i], sel, 1, p[i].y),
                     bil_out(s2[i], den[i], sel, 2, p[i].z), a.w);
    }
}
#endif
