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
 * work-item: one column on GPUs). The state (line, prev) is what ffmpeg
 * keeps in uint16_t, Y', Cb, Cr in a pixel's first three of four. */
#include "ycbcr.cl"

#if CLV_DEPTH == 16
#define HQ_LUT_BITS 8
#define HQ_SAMPLE(v) ((int)(((v) + 128) >> 8))
#define HQ_COMPONENT(t) ((ycc_t)(t) << 8)
#else
#define HQ_LUT_BITS 4
#define HQ_SAMPLE(v) ((int)(v) + 127)
#define HQ_COMPONENT(t) ((ycc_t)(t) - 127)
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
 * meanwhile, the conversions filling the gaps. first: the frame starts the
 * state (prev holds its samples). */
#define HQ_ROWS 4
__kernel void hqdn3d_rows(__global const clv_px *src, int w, int h, int stride,
                          __global ushort4 *hbuf, __global const long *m,
                          __global const int *spatial, __global ushort4 *prev, int first)
{
    const int y0 = (int)get_global_id(1) * HQ_ROWS;
    if (y0 >= h)
        return;
    ycc_t k[24];
    ycc_load(m, k);
    __global const int *chroma = spatial + HQ_TABLE;
    __global const clv_px *in[HQ_ROWS];
    __global ushort4 *out[HQ_ROWS];
    int a0[HQ_ROWS], a1[HQ_ROWS], a2[HQ_ROWS];
    for (int r = 0; r < HQ_ROWS; r++) {
        const int y = min(y0 + r, h - 1); /* past the end: the last row again */
        in[r] = src + y * stride;
        out[r] = hbuf + y * w;
        const clv_px p = in[r][0];
        a0[r] = HQ_SAMPLE(ycc_component(k, 0, p.x, p.y, p.z));
        a1[r] = HQ_SAMPLE(ycc_component(k, 1, p.x, p.y, p.z));
        a2[r] = HQ_SAMPLE(ycc_component(k, 2, p.x, p.y, p.z));
        if (first)
            prev[y * w] = (ushort4)((ushort)a0[r], (ushort)a1[r], (ushort)a2[r], 0);
        if (y == 0) {
            a0[r] = (int)hq_lowpass(a0[r], a0[r], spatial);
            a1[r] = (int)hq_lowpass(a1[r], a1[r], chroma);
            a2[r] = (int)hq_lowpass(a2[r], a2[r], chroma);
        }
        out[r][0] = (ushort4)((ushort)a0[r], (ushort)a1[r], (ushort)a2[r], 0);
    }
    for (int x = 1; x < w; x++)
        for (int r = 0; r < HQ_ROWS; r++) {
            const clv_px p = in[r][x];
            const int s0 = HQ_SAMPLE(ycc_component(k, 0, p.x, p.y, p.z)),
                      s1 = HQ_SAMPLE(ycc_component(k, 1, p.x, p.y, p.z)),
                      s2 = HQ_SAMPLE(ycc_component(k, 2, p.x, p.y, p.z));
            if (first)
                prev[min(y0 + r, h - 1) * w + x] = (ushort4)((ushort)s0, (ushort)s1, (ushort)s2, 0);
            a0[r] = (int)hq_lowpass(a0[r], s0, spatial);
            a1[r] = (int)hq_lowpass(a1[r], s1, chroma);
            a2[r] = (int)hq_lowpass(a2[r], s2, chroma);
            out[r][x] = (ushort4)((ushort)a0[r], (ushort)a1[r], (ushort)a2[r], 0);
        }
}

/* Columns x0 .. x0 + strip - 1, top to bottom: line = lowpass(line, hbuf)
 * (the first row's line is its hbuf), then prev = lowpass(prev, line);
 * then, in a loop of its own (one without table reads, which vectorizes),
 * the row's new prev back to R, G, B. */
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
    __global const int *restrict schroma = spatial + HQ_TABLE;
    __global const int *restrict tchroma = temporal + HQ_TABLE;
    const int x1 = min(x0 + strip, w);
    for (int y = 0; y < h; y++) {
        __global const ushort *restrict hr = hbuf + 4 * y * w;
        __global ushort *restrict pr = prev + 4 * y * w;
        if (y == 0) {
            for (int i = 4 * x0; i < 4 * x1; i += 4)
                for (int c = 0; c < 3; c++) {
                    const int l = hr[i + c];
                    line[i + c] = (ushort)l;
                    pr[i + c] = (ushort)hq_lowpass(pr[i + c], l, c ? tchroma : temporal);
                }
        } else {
            for (int i = 4 * x0; i < 4 * x1; i += 4) {
                const uint l0 = hq_lowpass(line[i], hr[i], spatial),
                           l1 = hq_lowpass(line[i + 1], hr[i + 1], schroma),
                           l2 = hq_lowpass(line[i + 2], hr[i + 2], schroma);
                line[i] = (ushort)l0;
                line[i + 1] = (ushort)l1;
                line[i + 2] = (ushort)l2;
                pr[i] = (ushort)hq_lowpass(pr[i], (ushort)l0, temporal);
                pr[i + 1] = (ushort)hq_lowpass(pr[i + 1], (ushort)l1, tchroma);
                pr[i + 2] = (ushort)hq_lowpass(pr[i + 2], (ushort)l2, tchroma);
            }
        }
        __global const clv_ch *restrict in = (__global const clv_ch *)(src + y * stride);
        __global clv_ch *restrict out = (__global clv_ch *)(dst + y * stride);
        for (int i = 4 * x0; i < 4 * x1; i += 4) {
            const ycc_t cy = HQ_COMPONENT(pr[i]), cb = HQ_COMPONENT(pr[i + 1]),
                        cr = HQ_COMPONENT(pr[i + 2]);
            out[i] = ycc_channel(k, 0, cy, cb, cr);
            out[i + 1] = ycc_channel(k, 1, cy, cb, cr);
            out[i + 2] = ycc_channel(k, 2, cy, cb, cr);
            out[i + 3] = in[i + 3];
        }
    }
}
