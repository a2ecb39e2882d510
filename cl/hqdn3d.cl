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

/* Rows y0 .. y0 + HQ_ROWS - 1's recursions, left to right:
 * hbuf[x] = lowpass(hbuf[x - 1], sample(x)), from sample(0) (the first row
 * from lowpass(sample(0), sample(0)), as ffmpeg's first line). A step waits
 * for the table read of the one before: a work-item walks HQ_ROWS rows
 * together (3 HQ_ROWS independent recursions) to keep the core busy
 * meanwhile. The samples come first, HQ_CHUNK pixels of each row at a
 * time, in a loop of their own (one without table reads, which
 * vectorizes). first: the frame starts the state (prev holds its samples). */
#define HQ_ROWS 4
#define HQ_CHUNK 128
__kernel void hqdn3d_rows(__global const clv_px *src, int w, int h, int stride,
                          __global ushort *hbuf, __global const long *m,
                          __global const int *spatial, __global ushort *prev, int first)
{
    const int y0 = (int)get_global_id(1) * HQ_ROWS;
    if (y0 >= h)
        return;
    ycc_t k[24];
    ycc_load(m, k);
    __global const int *chroma = spatial + HQ_TABLE;
    const int plane = w * h;
    int a0[HQ_ROWS], a1[HQ_ROWS], a2[HQ_ROWS];
    int s0[HQ_ROWS][HQ_CHUNK], s1[HQ_ROWS][HQ_CHUNK], s2[HQ_ROWS][HQ_CHUNK];
    for (int x0 = 0; x0 < w; x0 += HQ_CHUNK) {
        const int n = min(HQ_CHUNK, w - x0);
        for (int r = 0; r < HQ_ROWS; r++) {
            const int y = min(y0 + r, h - 1); /* past the end: the last row again */
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
                if (min(y0 + r, h - 1) == 0) {
                    a0[r] = (int)hq_lowpass(a0[r], a0[r], spatial);
                    a1[r] = (int)hq_lowpass(a1[r], a1[r], chroma);
                    a2[r] = (int)hq_lowpass(a2[r], a2[r], chroma);
                }
                __global ushort *o = hbuf + min(y0 + r, h - 1) * w;
                o[0] = (ushort)a0[r];
                o[plane] = (ushort)a1[r];
                o[2 * plane] = (ushort)a2[r];
            }
            j = 1;
        }
        for (; j < n; j++)
            for (int r = 0; r < HQ_ROWS; r++) {
                a0[r] = (int)hq_lowpass(a0[r], s0[r][j], spatial);
                a1[r] = (int)hq_lowpass(a1[r], s1[r][j], chroma);
                a2[r] = (int)hq_lowpass(a2[r], s2[r][j], chroma);
                __global ushort *o = hbuf + min(y0 + r, h - 1) * w + x0 + j;
                o[0] = (ushort)a0[r];
                o[plane] = (ushort)a1[r];
                o[2 * plane] = (ushort)a2[r];
            }
    }
}

/* Columns x0 .. x0 + strip - 1, top to bottom, each plane in a loop of
 * its own (one table, contiguous samples): line = lowpass(line, hbuf) (the
 * first row's line is its hbuf), then prev = lowpass(prev, line); then, in
 * a loop without table reads (which vectorizes), the row's new prev back
 * to R, G, B. */
/* CPUs: the strip's rows HQ_AHEAD below are prefetched (hbuf, prev, src,
 * dst): a strip's part of a row is a few cache lines, each row's in
 * another page, where the hardware's prefetchers do not follow; without
 * it the loads wait on memory (a quarter of the frame's CPU time). */
#define HQ_AHEAD 2
__kernel void hqdn3d_columns(CLV_FRAME_ARGS, __global const ushort *restrict hbuf,
                             __global ushort *restrict line, __global ushort *restrict prev,
                             __global const long *m, __global const int *restrict spatial,
                             __global const int *restrict temporal, int strip)
{
    const int x0 = (int)get_global_id(0) * strip;
    if (x0 >= w)
        return;
    ycc_t k[24];
    ycc_load(m, k);
    const int x1 = min(x0 + strip, w), plane = w * h;
    for (int y = 0; y < h; y++) {
#if CLV_ROW
        if (y + HQ_AHEAD < h)
            for (int c = 0; c < 3; c++) {
                const int o = c * plane + (y + HQ_AHEAD) * w;
                for (int x = x0; x < x1; x += 32) {
                    __builtin_prefetch((const void *)(ulong)(hbuf + o + x));
                    __builtin_prefetch((const void *)(ulong)(prev + o + x), 1);
                }
            }
        if (y + HQ_AHEAD < h)
            for (int x = x0; x < x1; x += 16) {
                __builtin_prefetch((const void *)(ulong)(src + (y + HQ_AHEAD) * stride + x));
                __builtin_prefetch((const void *)(ulong)(dst + (y + HQ_AHEAD) * stride + x), 1);
            }
#endif
        for (int c = 0; c < 3; c++) {
            __global const ushort *restrict hr = hbuf + c * plane + y * w;
            __global ushort *restrict pr = prev + c * plane + y * w;
            __global ushort *restrict ln = line + c * w;
            __global const int *restrict sp = spatial + (c ? HQ_TABLE : 0);
            __global const int *restrict tp = temporal + (c ? HQ_TABLE : 0);
            if (y == 0) {
                for (int x = x0; x < x1; x++) {
                    const int l = hr[x];
                    ln[x] = (ushort)l;
                    pr[x] = (ushort)hq_lowpass(pr[x], l, tp);
                }
            } else {
                for (int x = x0; x < x1; x++) {
                    const uint l = hq_lowpass(ln[x], hr[x], sp);
                    ln[x] = (ushort)l;
                    pr[x] = (ushort)hq_lowpass(pr[x], (int)l, tp);
                }
            }
        }
        __global const ushort *restrict py = prev + y * w;
        __global const clv_ch *restrict in = (__global const clv_ch *)(src + y * stride);
        __global clv_ch *restrict out = (__global clv_ch *)(dst + y * stride);
        for (int x = x0; x < x1; x++) {
            const ycc_t cy = HQ_COMPONENT(py[x]), cb = HQ_COMPONENT(py[plane + x]),
                        cr = HQ_COMPONENT(py[2 * plane + x]);
            out[4 * x] = ycc_channel(k, 0, cy, cb, cr);
            out[4 * x + 1] = ycc_channel(k, 1, cy, cb, cr);
            out[4 * x + 2] = ycc_channel(k, 2, cy, cb, cr);
            out[4 * x + 3] = in[4 * x + 3];
        }
    }
}
