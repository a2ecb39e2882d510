/* hqdn3d.cl - ffmpeg's hqdn3d on R, G, B (src/filters/hqdn3d.c defines
 * it): vf_hqdn3d's recursions with its tables (coef: 512 << HQ_LUT_BITS
 * of its int16_t values as ints, which CPUs gather, the middle one for a
 * difference of 0), in two passes: the rows' recursions (hqdn3d_rows,
 * HQ_ROWS rows a work-item) into hbuf, then down the columns and against
 * the previous frame's values (hqdn3d_columns, a strip of columns a
 * work-item: one column on GPUs). Samples are on 16 bits (8-bit: v << 8 | 127,
 * ffmpeg's LOAD); the state (line, prev) is what ffmpeg keeps in uint16_t. */

#if CLV_DEPTH == 16
#define HQ_LUT_BITS 8
#define HQ_LOAD(v) ((int)(v))
#define HQ_STORE(v) ((clv_ch)(v))
#else
#define HQ_LUT_BITS 4
#define HQ_LOAD(v) (((int)(v) << 8) + 127)
#define HQ_STORE(v) ((clv_ch)((v) >> 8))
#endif
#define HQ_MID (256 << HQ_LUT_BITS)

/* A pixel as one word, and its alpha's bits. */
#if CLV_DEPTH == 16
typedef ulong hq_word;
#ifdef __ENDIAN_LITTLE__
#define HQ_ALPHA 0xFFFF000000000000ul
#else
#define HQ_ALPHA 0x000000000000FFFFul
#endif
#else
typedef uint hq_word;
#ifdef __ENDIAN_LITTLE__
#define HQ_ALPHA 0xFF000000u
#else
#define HQ_ALPHA 0x000000FFu
#endif
#endif

/* vf_hqdn3d's lowpass: cur moved towards prev by the table's amount. */
inline uint hq_lowpass(int prev, int cur, __global const int *coef)
{
    return (uint)(cur + coef[HQ_MID + ((prev - cur) >> (8 - HQ_LUT_BITS))]);
}

/* Rows y0 .. y0 + HQ_ROWS - 1's recursions, left to right:
 * hbuf[x] = lowpass(hbuf[x - 1], LOAD(x)), from LOAD(0) (the first row from
 * lowpass(LOAD(0), LOAD(0)), as ffmpeg's first line). A step waits for the
 * table read of the one before: a work-item walks HQ_ROWS rows together
 * (3 HQ_ROWS independent recursions) to keep the core busy meanwhile. */
#define HQ_ROWS 4
__kernel void hqdn3d_rows(__global const clv_px *src, int w, int h, int stride,
                          __global ushort4 *hbuf, __global const int *spatial)
{
    const int y0 = (int)get_global_id(1) * HQ_ROWS;
    if (y0 >= h)
        return;
    __global const clv_px *in[HQ_ROWS];
    __global ushort4 *out[HQ_ROWS];
    int a0[HQ_ROWS], a1[HQ_ROWS], a2[HQ_ROWS];
    for (int r = 0; r < HQ_ROWS; r++) {
        const int y = min(y0 + r, h - 1); /* past the end: the last row again */
        in[r] = src + y * stride;
        out[r] = hbuf + y * w;
        const clv_px p = in[r][0];
        a0[r] = HQ_LOAD(p.x);
        a1[r] = HQ_LOAD(p.y);
        a2[r] = HQ_LOAD(p.z);
        if (y == 0) {
            a0[r] = (int)hq_lowpass(a0[r], a0[r], spatial);
            a1[r] = (int)hq_lowpass(a1[r], a1[r], spatial);
            a2[r] = (int)hq_lowpass(a2[r], a2[r], spatial);
        }
        out[r][0] = (ushort4)((ushort)a0[r], (ushort)a1[r], (ushort)a2[r], 0);
    }
    for (int x = 1; x < w; x++)
        for (int r = 0; r < HQ_ROWS; r++) {
            const clv_px p = in[r][x];
            a0[r] = (int)hq_lowpass(a0[r], HQ_LOAD(p.x), spatial);
            a1[r] = (int)hq_lowpass(a1[r], HQ_LOAD(p.y), spatial);
            a2[r] = (int)hq_lowpass(a2[r], HQ_LOAD(p.z), spatial);
            out[r][x] = (ushort4)((ushort)a0[r], (ushort)a1[r], (ushort)a2[r], 0);
        }
}

/* Columns x0 .. x0 + strip - 1, top to bottom: line = lowpass(line, hbuf)
 * (the first row's line is its hbuf), then prev = lowpass(prev, line),
 * whose top bits are the output; first: prev starts from this frame. */
__kernel void hqdn3d_columns(CLV_FRAME_ARGS, __global const ushort *restrict hbuf,
                             __global ushort *restrict line, __global ushort *restrict prev,
                             __global const int *restrict spatial,
                             __global const int *restrict temporal, int strip, int first)
{
    const int x0 = (int)get_global_id(0) * strip;
    if (x0 >= w)
        return;
    const int x1 = min(x0 + strip, w);
    for (int y = 0; y < h; y++) {
        __global const ushort *hrow = hbuf + 4 * y * w;
        __global ushort *prow = prev + 4 * y * w;
        __global const clv_ch *in = (__global const clv_ch *)(src + y * stride);
        __global clv_ch *out = (__global clv_ch *)(dst + y * stride);
        if (y == 0 || first) {
            for (int x = x0; x < x1; x++)
                for (int c = 0; c < 3; c++) {
                    const int i = 4 * x + c;
                    const int hv = hrow[i];
                    const int l = y > 0 ? (int)(ushort)hq_lowpass(line[i], hv, spatial) : hv;
                    line[i] = (ushort)l;
                    const int f = first ? (int)(ushort)HQ_LOAD(in[i]) : prow[i];
                    const uint t = hq_lowpass(f, l, temporal);
                    prow[i] = (ushort)t;
                    out[i] = HQ_STORE(t);
                }
        } else {
            __global const ushort *restrict hr = hrow;
            __global ushort *restrict pr = prow;
            __global clv_ch *restrict o = out;
            for (int i = 4 * x0; i < 4 * x1; i++) {
                const uint l = hq_lowpass(line[i], hr[i], spatial);
                line[i] = (ushort)l;
                const uint t = hq_lowpass(pr[i], (ushort)l, temporal);
                pr[i] = (ushort)t;
                o[i] = HQ_STORE(t);
            }
        }
        /* alpha back, a pixel a word (a loop that vectorizes) */
        __global hq_word *restrict ow = (__global hq_word *)out;
        __global const hq_word *restrict iw = (__global const hq_word *)in;
        for (int x = x0; x < x1; x++)
            ow[x] = (ow[x] & ~HQ_ALPHA) | (iw[x] & HQ_ALPHA);
    }
}
