/* median_hist.cl - radius 4 to 7 on GPUs: sliding histograms of bytes (8
 * bits only). */
#include "median_common.cl"

#if !CLV_ROW && CLV_DEPTH == 8 && (CLV_MEDIAN_KIND < 0 || CLV_MEDIAN_KIND == 4)
/* Radius 4 to 7 on GPUs: each work-item slides its column's window down a
 * strip of rows, keeping a 256-bin histogram per channel in local memory
 * (Huang's sliding histogram): a row down costs 2r + 1 additions and as
 * many removals instead of recounting (2r + 1)^2 values eight times. The
 * median is found 16 bins at a time from the previous one's chunk, which
 * neighbouring rows rarely leave. Counts fit a byte (at most 225). A
 * work-item slides down `strip` rows (the host's choice: long strips spend
 * less on filling histograms, short ones fill the device on small frames).
 * The radius is the program's (-DCLV_MEDIAN_R): the loops over a row
 * unroll, and a row's pixels are all loaded before they are counted. */
#ifndef CLV_MEDIAN_R
#define CLV_MEDIAN_R 4 /* the host builds a program a radius */
#endif
#define MEDIAN_HIST_D (2 * CLV_MEDIAN_R + 1)
#define MEDIAN_HIST_GROUP 32 /* work-items a group: one column each */
#define MEDIAN_HIST_BINS 272 /* 256 and a chunk of padding: no bank conflicts */

/* Chunk c's 16 bins, and how many values they hold. */
inline uint4 median_chunk(__local const uchar *h, int c)
{
    return *(__local const uint4 *)(h + 16 * c);
}

inline int median_chunk_sum(uint4 q)
{
    const uint4 a = (q & 0x00ff00ffu) + ((q >> 8) & 0x00ff00ffu);
    const uint s = a.x + a.y + a.z + a.w;
    return (int)((s & 0xffffu) + (s >> 16));
}

/* One channel's running state beside its histogram: the chunk holding the
 * last median and how many values lie in the chunks below it. */
typedef struct median_hist_state {
    int chunk, below;
} median_hist_state;

inline void median_hist_put(__local uchar *restrict h, median_hist_state *s, uint v, int d)
{
    h[v] += (uchar)d;
    s->below += (int)(v >> 4) < s->chunk ? d : 0;
}

/* The smallest value with more than k values at or below it: the chunk
 * from the last one's, then the bin within it from the chunk's bytes in
 * registers (their running counts fit a byte: at most 225 values). */
inline uchar median_hist_find(__local const uchar *h, median_hist_state *s, int k)
{
    uint4 q = median_chunk(h, s->chunk);
    int n = median_chunk_sum(q);
    while (s->below > k) {
        q = median_chunk(h, --s->chunk);
        n = median_chunk_sum(q);
        s->below -= n;
    }
    while (s->below + n <= k) {
        s->below += n;
        q = median_chunk(h, ++s->chunk);
        n = median_chunk_sum(q);
    }
    /* The first bin whose running count passes t is the number of bins
     * whose running count does not. */
    const int t = k - s->below;
    const uint words[4] = {q.x, q.y, q.z, q.w};
    int v = 16 * s->chunk;
    uint base = 0;
    for (int j = 0; j < 4; ++j) {
        const uint run = (words[j] + base) * 0x01010101u; /* bytes: running counts */
        for (int b = 0; b < 4; ++b)
            v += (int)((run >> (8 * b)) & 0xffu) <= t;
        base = run >> 24;
    }
    return (uchar)v;
}

/* Row y's 2r + 1 pixels around x, loaded together so that their latencies
 * overlap (the radius is the program's: the loops unroll, p stays in
 * registers). */
inline void median_hist_load(uchar4 *p, __global const uchar4 *src, int w, int h, int stride, int x,
                             int y)
{
    __global const uchar4 *row = src + clamp(y, 0, h - 1) * stride;
    for (int i = 0; i < MEDIAN_HIST_D; ++i)
        p[i] = row[clamp(x + i - CLV_MEDIAN_R, 0, w - 1)];
}

/* Adds (d = 1) or removes (d = -1) a row's pixels; the three channels'
 * histograms are apart, so their updates can overlap. */
inline void median_hist_add(__local uchar *restrict h0, __local uchar *restrict h1,
                            __local uchar *restrict h2, median_hist_state *s, const uchar4 *p,
                            int d)
{
    for (int i = 0; i < MEDIAN_HIST_D; ++i) {
        median_hist_put(h0, &s[0], p[i].x, d);
        median_hist_put(h1, &s[1], p[i].y, d);
        median_hist_put(h2, &s[2], p[i].z, d);
    }
}

__kernel __attribute__((reqd_work_group_size(MEDIAN_HIST_GROUP, 1, 1))) void
median_hist(CLV_FRAME_ARGS, int strip)
{
    __local uint4 hist[3 * MEDIAN_HIST_GROUP * MEDIAN_HIST_BINS / 16];
    const int x = (int)get_global_id(0), y0 = (int)get_global_id(1) * strip;
    if (x >= w || y0 >= h)
        return; /* the histograms are each work-item's own: no barrier */
    const int lid = (int)get_local_id(0), k = MEDIAN_HIST_D * MEDIAN_HIST_D / 2;
    __local uchar *hc[3];
    for (int c = 0; c < 3; ++c) {
        __local uint4 *mine = hist + (c * MEDIAN_HIST_GROUP + lid) * (MEDIAN_HIST_BINS / 16);
        for (int i = 0; i < MEDIAN_HIST_BINS / 16; ++i)
            mine[i] = (uint4)0;
        hc[c] = (__local uchar *)mine;
    }
    median_hist_state s[3] = {{8, 0}, {8, 0}, {8, 0}};
    uchar4 gone[MEDIAN_HIST_D], come[MEDIAN_HIST_D];
    for (int dy = -CLV_MEDIAN_R; dy <= CLV_MEDIAN_R; ++dy) {
        median_hist_load(come, src, w, h, stride, x, y0 + dy);
        median_hist_add(hc[0], hc[1], hc[2], s, come, 1);
    }
    const int y1 = min(y0 + strip, h);
    for (int y = y0;; ++y) {
        /* The next row's pixels are on their way while this row's median
         * is found. */
        const int more = y + 1 < y1;
        if (more) {
            median_hist_load(gone, src, w, h, stride, x, y - CLV_MEDIAN_R);
            median_hist_load(come, src, w, h, stride, x, y + CLV_MEDIAN_R + 1);
        }
        uchar4 o;
        o.x = median_hist_find(hc[0], &s[0], k);
        o.y = median_hist_find(hc[1], &s[1], k);
        o.z = median_hist_find(hc[2], &s[2], k);
        o.w = src[y * stride + x].w;
        dst[y * stride + x] = o;
        if (!more)
            break;
        median_hist_add(hc[0], hc[1], hc[2], s, gone, -1);
        median_hist_add(hc[0], hc[1], hc[2], s, come, 1);
    }
}
#endif
