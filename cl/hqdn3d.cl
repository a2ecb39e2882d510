/* hqdn3d.cl - ffmpeg's hqdn3d on the Y'CbCr of each pixel
 * (src/filters/hqdn3d.c defines it): each pixel to Y', Cb, Cr (ycbcr.cl,
 * eq's and hue's conversion), each component a sample of vf_hqdn3d
 * (HQ_SAMPLE), vf_hqdn3d's recursions on the three planes with its tables
 * (Y' the luma ones, Cb and Cr the chroma ones; each table 512 <<
 * HQ_LUT_BITS of its int16_t values as ints, which CPUs gather, the middle
 * one for a difference of 0, luma then chroma in one buffer), and back to
 * R, G, B; alpha as it came. Two passes: the rows' recursions (hqdn3d_rows,
 * HQ_ROWS rows a work-item) into hbuf, then down the columns and against
 * the previous frame's values (hqdn3d_columns, a strip of columns a
 * work-item: one column on GPUs). hbuf and the state (line, prev) are what
 * ffmpeg keeps in uint16_t, as three planes (Y', Cb, Cr): a loop over one
 * plane's columns reads one table and contiguous samples. */
#include "ycbcr.cl"

#if CLV_DEPTH == 16
#define HQ_LUT_BITS 8
#define HQ_SAMPLE(v) ((int)(((v) + 128) >> 8))
#define HQ_COMPONENT(t) ((ycc_t)(t) << 8)
#else
#define HQ_LUT_BITS 4
#define HQ_SAMPLE(v) ((int)(v) + 127)
#define HQ_COMPONENT(t) ((ycc_t)(t)-127)
#endif
#define HQ_MID (256 << HQ_LUT_BITS)
#define HQ_TABLE (512 << HQ_LUT_BITS) /* entries a table */

/* vf_hqdn3d's lowpass: cur moved towards prev by the table's amount. */
inline uint hq_lowpass(int prev, int cur, __global const int *coef)
{
    return (uint)(cur + coef[HQ_MID + ((prev - cur) >> (8 - HQ_LUT_BITS))]);
}

/* CPUs: hqdn3d_columns prefetches the strip's rows HQ_AHEAD below (hbuf, prev, src,
 * dst): a strip's part of a row is a few cache lines, each row's in
 * another page, where the hardware's prefetchers do not follow; without
 * it the loads wait on memory (a quarter of the frame's CPU time). */
#define HQ_AHEAD 2

#if CLV_ROW && CLV_X86_VNNI && defined(__AVX512F__)
/* x86 CPUs with AVX-512 (src/core/program.c's host_isa): the lowpass of 16
 * lanes, the table read by one vpgatherdd (the compiler's loops gathered 8
 * lanes at a time, with 64-bit indices). */
#define HQ_X86 1
typedef ushort16 __attribute__((aligned(2))) hq_ushort16_u; /* (vload16 and vstore16 went a lane
                                                               at a time) */
typedef uint16 __attribute__((aligned(4))) hq_uint16_u;
#define HQ_LOAD16(p) convert_int16(*(__global const hq_ushort16_u *)(p))
#define HQ_STORE16(v, p) (*(__global hq_ushort16_u *)(p) = convert_ushort16(v))
inline int16 hq_lowpass16(int16 prev, int16 cur, __global const int *coef)
{
    const int16 i = HQ_MID + ((prev - cur) >> (8 - HQ_LUT_BITS));
    return cur +
           __builtin_ia32_gathersiv16si((int16)0, (const void *)(ulong)coef, i, (ushort)0xffff, 4);
}
#else
#define HQ_X86 0
#endif

/* Rows y0 .. y0 + HQ_ROWS - 1's recursions, left to right:
 * hbuf[x] = lowpass(hbuf[x - 1], sample(x)), from sample(0) (the first row
 * from lowpass(sample(0), sample(0)), as ffmpeg's first line). A step waits
 * for the table read of the one before: a work-item walks HQ_ROWS rows
 * together (3 HQ_ROWS independent recursions) to keep the core busy
 * meanwhile. The samples come first, HQ_CHUNK pixels of each row at a
 * time, in a loop of their own (one without table reads, which
 * vectorizes). first: the frame starts the state (prev holds its samples). */
#if CLV_ROW
#define HQ_ROWS 16 /* src/filters/hqdn3d.c's rows_per_item */
#define HQ_CHUNK 64
#else
#define HQ_ROWS 4
#define HQ_CHUNK 128
#endif

#if HQ_X86 && CLV_DEPTH == 8
/* The 16 x 16 transpose of t (lane l of t[i] becomes lane i of t[l]): the
 * off-diagonal blocks of 8, 4, 2 and 1 swapped in turn, each a two-source
 * permute a vector (lo: the pair's first, hi: its second). */
#define HQ_LO8 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define HQ_HI8 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define HQ_LO4 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27
#define HQ_HI4 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31
#define HQ_LO2 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29
#define HQ_HI2 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31
#define HQ_LO1 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30
#define HQ_HI1 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31
#define HQ_SWAP(t, b, lo, hi)                                                                      \
    _Pragma("unroll") for (int i = 0; i < 16; i++) if (!(i & (b)))                                 \
    {                                                                                              \
        const int16 u_ = t[i], v_ = t[i + (b)];                                                    \
        t[i] = __builtin_shufflevector(u_, v_, lo);                                                \
        t[i + (b)] = __builtin_shufflevector(u_, v_, hi);                                          \
    }
inline void hq_transpose16(int16 *t)
{
    HQ_SWAP(t, 8, HQ_LO8, HQ_HI8)
    HQ_SWAP(t, 4, HQ_LO4, HQ_HI4)
    HQ_SWAP(t, 2, HQ_LO2, HQ_HI2)
    HQ_SWAP(t, 1, HQ_LO1, HQ_HI1)
}

/* Rows y0 .. y0 + 15 (past yend: its last row again) at 8 bits on x86
 * with AVX-512: a lane a row, so that the three recursions of 16 rows step
 * together, each step's table reads one vpgatherdd (where the loop below
 * makes a scalar read for each): a step reads its 16 pixels by one more,
 * and every 16 steps the tile of 16 x 16 results is transposed to 16 runs
 * of a row for hbuf. */
#define HQ_SRC_GATHER(base, idx)                                                                   \
    __builtin_ia32_gathersiv16si((int16)0, (const void *)(ulong)(base), (idx), (ushort)0xffff, 4)
inline void hq_rows16(__global const clv_px *src, int w, int stride, __global ushort *hbuf,
                      const ycc_t *k, __global const int *spatial, __global ushort *prev, int first,
                      int top, int y0, int yend, int plane, int hp)
{
    const int16 lane = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const int16 ys = min(y0 + lane, (int16)(yend - 1)), off = ys * stride;
    const int rows = min(16, yend - y0);
    __global const int *chroma = spatial + HQ_TABLE;
    int16 a0 = 0, a1 = 0, a2 = 0;
    for (int xt = 0; xt < w; xt += 16) {
        const int n = min(16, w - xt);
        /* the tile's samples (past the row's end its last pixel again) */
        int16 t[3][16];
        for (int j = 0; j < 16; j++) {
            const int x = xt + min(j, n - 1);
            const int16 px = HQ_SRC_GATHER(src, off + x);
            const int16 cr = px & 255, cg = px >> 8 & 255, cb = px >> 16 & 255;
            for (int c = 0; c < 3; c++)
                t[c][j] = ((k[4 * c] * cr + k[4 * c + 1] * cg + k[4 * c + 2] * cb + k[4 * c + 3]) >>
                           YCC_FWD_SHIFT) +
                          127; /* HQ_SAMPLE of ycc_component */
            if (first && j < n)
                for (int r = 0; r < rows; r++)
                    for (int c = 0; c < 3; c++)
                        prev[c * plane + (y0 + r) * w + x] = (ushort)t[c][j][r];
        }
        /* the recursions over them, in place */
        int j = 0;
        if (xt == 0) {
            a0 = t[0][0];
            a1 = t[1][0];
            a2 = t[2][0];
            if (y0 == 0) { /* the frame's first row (lane 0) */
                a0.s0 = (int)hq_lowpass(a0.s0, a0.s0, spatial);
                a1.s0 = (int)hq_lowpass(a1.s0, a1.s0, chroma);
                a2.s0 = (int)hq_lowpass(a2.s0, a2.s0, chroma);
            }
            t[0][0] = a0;
            t[1][0] = a1;
            t[2][0] = a2;
            j = 1;
        }
        for (; j < 16; j++) {
            t[0][j] = a0 = hq_lowpass16(a0, t[0][j], spatial);
            t[1][j] = a1 = hq_lowpass16(a1, t[1][j], chroma);
            t[2][j] = a2 = hq_lowpass16(a2, t[2][j], chroma);
        }
        for (int c = 0; c < 3; c++) {
            hq_transpose16(t[c]);
            for (int r = 0; r < rows; r++) {
                __global ushort *o = hbuf + c * hp + (y0 + r - top) * w + xt;
                if (n == 16)
                    HQ_STORE16(t[c][r], o);
                else
                    for (int j = 0; j < n; j++)
                        o[j] = (ushort)t[c][r][j];
            }
        }
    }
}
#endif
__kernel void hqdn3d_rows(__global const clv_px *src, int w, int h, int stride,
                          __global ushort *hbuf, __global const long *m,
                          __global const int *spatial, __global ushort *prev, int first, int top,
                          int band)
{
    const int y0 = top + (int)get_global_id(1) * HQ_ROWS, yend = min(top + band, h);
    if (y0 >= yend)
        return;
    ycc_t k[24];
    ycc_load(m, k);
    const int plane = w * h, hp = w * band;
#if HQ_X86 && CLV_DEPTH == 8
    hq_rows16(src, w, stride, hbuf, k, spatial, prev, first, top, y0, yend, plane, hp);
    return;
#endif
    __global const int *chroma = spatial + HQ_TABLE;
    int a0[HQ_ROWS], a1[HQ_ROWS], a2[HQ_ROWS];
    int s0[HQ_ROWS][HQ_CHUNK], s1[HQ_ROWS][HQ_CHUNK], s2[HQ_ROWS][HQ_CHUNK];
    for (int x0 = 0; x0 < w; x0 += HQ_CHUNK) {
        const int n = min(HQ_CHUNK, w - x0);
        for (int r = 0; r < HQ_ROWS; r++) {
            const int y = min(y0 + r, yend - 1); /* past the end: the last row again */
            __global const clv_ch *p = (__global const clv_ch *)(src + y * stride + x0);
            for (int j = 0; j < n; j++) {
                const ycc_t cr = p[4 * j], cg = p[4 * j + 1], cb = p[4 * j + 2];
                s0[r][j] = HQ_SAMPLE(ycc_component(k, 0, cr, cg, cb));
                s1[r][j] = HQ_SAMPLE(ycc_component(k, 1, cr, cg, cb));
                s2[r][j] = HQ_SAMPLE(ycc_component(k, 2, cr, cg, cb));
            }
            if (first) {
                __global ushort *q = prev + y * w + x0;
                for (int j = 0; j < n; j++) {
                    q[j] = (ushort)s0[r][j];
                    q[plane + j] = (ushort)s1[r][j];
                    q[2 * plane + j] = (ushort)s2[r][j];
                }
            }
        }
        int j = 0;
        if (x0 == 0) {
            for (int r = 0; r < HQ_ROWS; r++) {
                a0[r] = s0[r][0];
                a1[r] = s1[r][0];
                a2[r] = s2[r][0];
                if (min(y0 + r, yend - 1) == 0) {
                    a0[r] = (int)hq_lowpass(a0[r], a0[r], spatial);
                    a1[r] = (int)hq_lowpass(a1[r], a1[r], chroma);
                    a2[r] = (int)hq_lowpass(a2[r], a2[r], chroma);
                }
                __global ushort *o = hbuf + (min(y0 + r, yend - 1) - top) * w;
                o[0] = (ushort)a0[r];
                o[hp] = (ushort)a1[r];
                o[2 * hp] = (ushort)a2[r];
            }
            j = 1;
        }
        for (; j < n; j++)
            for (int r = 0; r < HQ_ROWS; r++) {
                a0[r] = (int)hq_lowpass(a0[r], s0[r][j], spatial);
                a1[r] = (int)hq_lowpass(a1[r], s1[r][j], chroma);
                a2[r] = (int)hq_lowpass(a2[r], s2[r][j], chroma);
                __global ushort *o = hbuf + (min(y0 + r, yend - 1) - top) * w + x0 + j;
                o[0] = (ushort)a0[r];
                o[hp] = (ushort)a1[r];
                o[2 * hp] = (ushort)a2[r];
            }
    }
}

/* Columns x0 .. x0 + strip - 1, top to bottom, each plane in a loop of
 * its own (one table, contiguous samples): line = lowpass(line, hbuf) (the
 * first row's line is its hbuf), then prev = lowpass(prev, line); then, in
 * a loop without table reads (which vectorizes), the row's new prev back
 * to R, G, B. */
#if HQ_X86 && CLV_DEPTH == 8
/* Row y of the strip x0 .. x1 - 1 at 8 bits on x86 with AVX-512, 16
 * columns at a time: the three planes' two recursions (as the loops of
 * hqdn3d_columns) and the new values straight back to R, G, B (ycc_channel
 * in 16 lanes), the pixels written whole with the input's alpha. Returns
 * where it stopped (the strip's last width % 16 columns are the loops'). */
inline int hq_columns16(__global const clv_px *src, __global clv_px *dst, int stride,
                        __global const ushort *restrict hbuf, __global ushort *restrict line,
                        __global ushort *restrict prev, const ycc_t *k,
                        __global const int *restrict spatial, __global const int *restrict temporal,
                        int w, int y, int top, int x0, int x1, int plane, int hp)
{
    int x = x0;
    for (; x + 16 <= x1; x += 16) {
        int16 t[3];
        for (int c = 0; c < 3; c++) {
            __global const ushort *restrict hr = hbuf + c * hp + (y - top) * w + x;
            __global ushort *restrict pr = prev + c * plane + y * w + x;
            __global ushort *restrict ln = line + c * w + x;
            int16 l = HQ_LOAD16(hr);
            if (y > 0)
                l = hq_lowpass16(HQ_LOAD16(ln), l, spatial + (c ? HQ_TABLE : 0));
            HQ_STORE16(l, ln);
            t[c] = hq_lowpass16(HQ_LOAD16(pr), l, temporal + (c ? HQ_TABLE : 0));
            HQ_STORE16(t[c], pr);
        }
        const int16 cy = t[0] - 127, cb = t[1] - 127, cr = t[2] - 127; /* HQ_COMPONENT */
        uint16 o = *(__global const hq_uint16_u *)(src + y * stride + x) & 0xff000000u;
        for (int i = 0; i < 3; i++) {
            const int16 v =
                (k[12 + 4 * i] * cy + k[13 + 4 * i] * cb + k[14 + 4 * i] * cr + k[15 + 4 * i]) >>
                YCC_INV_SHIFT;
            o |= as_uint16(clamp(v, 0, 255)) << (uint)(8 * i);
        }
        *(__global hq_uint16_u *)(dst + y * stride + x) = o;
    }
    return x;
}
#endif

__kernel void hqdn3d_columns(CLV_FRAME_ARGS, __global const ushort *restrict hbuf,
                             __global ushort *restrict line, __global ushort *restrict prev,
                             __global const long *m, __global const int *restrict spatial,
                             __global const int *restrict temporal, int strip, int top, int band)
{
    const int x0 = (int)get_global_id(0) * strip;
    if (x0 >= w)
        return;
    ycc_t k[24];
    ycc_load(m, k);
    const int x1 = min(x0 + strip, w), plane = w * h, hp = w * band, yend = min(top + band, h);
    for (int y = top; y < yend; y++) {
#if CLV_ROW && defined(__x86_64__)
        /* Prefetches on x86 CPUs (PoCL); a GPU's compiler may refuse the
         * cast to a generic pointer (NVIDIA's does, in the row shape). */
        if (y + HQ_AHEAD < h)
            for (int c = 0; c < 3; c++) {
                const int o = c * plane + (y + HQ_AHEAD) * w;
                for (int x = x0; x < x1; x += 32)
                    __builtin_prefetch((const void *)(ulong)(prev + o + x), 1);
            }
        if (y + HQ_AHEAD < h)
            for (int x = x0; x < x1; x += 16) {
                __builtin_prefetch((const void *)(ulong)(src + (y + HQ_AHEAD) * stride + x));
                __builtin_prefetch((const void *)(ulong)(dst + (y + HQ_AHEAD) * stride + x), 1);
            }
#endif
        int xs = x0; /* where the loops below start */
#if HQ_X86 && CLV_DEPTH == 8
        xs = hq_columns16(src, dst, stride, hbuf, line, prev, k, spatial, temporal, w, y, top, x0,
                          x1, plane, hp);
#endif
        for (int c = 0; c < 3; c++) {
            __global const ushort *restrict hr = hbuf + c * hp + (y - top) * w;
            __global ushort *restrict pr = prev + c * plane + y * w;
            __global ushort *restrict ln = line + c * w;
            __global const int *restrict sp = spatial + (c ? HQ_TABLE : 0);
            __global const int *restrict tp = temporal + (c ? HQ_TABLE : 0);
            int x = xs;
#if HQ_X86 && CLV_DEPTH == 16
            for (; x + 16 <= x1; x += 16) {
                int16 l = HQ_LOAD16(hr + x);
                if (y > 0)
                    l = hq_lowpass16(HQ_LOAD16(ln + x), l, sp);
                HQ_STORE16(l, ln + x);
                HQ_STORE16(hq_lowpass16(HQ_LOAD16(pr + x), l, tp), pr + x);
            }
#endif
            if (y == 0) {
                for (; x < x1; x++) {
                    const int l = hr[x];
                    ln[x] = (ushort)l;
                    pr[x] = (ushort)hq_lowpass(pr[x], l, tp);
                }
            } else {
                for (; x < x1; x++) {
                    const uint l = hq_lowpass(ln[x], hr[x], sp);
                    ln[x] = (ushort)l;
                    pr[x] = (ushort)hq_lowpass(pr[x], (int)l, tp);
                }
            }
        }
        __global const ushort *restrict py = prev + y * w;
        __global const clv_ch *restrict in = (__global const clv_ch *)(src + y * stride);
        __global clv_ch *restrict out = (__global clv_ch *)(dst + y * stride);
        for (int x = xs; x < x1; x++) {
            const ycc_t cy = HQ_COMPONENT(py[x]), cb = HQ_COMPONENT(py[plane + x]),
                        cr = HQ_COMPONENT(py[2 * plane + x]);
            out[4 * x] = ycc_channel(k, 0, cy, cb, cr);
            out[4 * x + 1] = ycc_channel(k, 1, cy, cb, cr);
            out[4 * x + 2] = ycc_channel(k, 2, cy, cb, cr);
            out[4 * x + 3] = in[4 * x + 3];
        }
    }
}
