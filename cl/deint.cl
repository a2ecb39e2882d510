/* deint.cl - ffmpeg's yadif and bwdif deinterlacers on each of R, G, B and A
 * (src/filters/deint.c defines them): one output frame from the previous,
 * current and next input frames (prev, cur, next, rows sstride pixels
 * apart). Rows of the kept field are cur's; a row y with ((y ^ parity) & 1)
 * is interpolated, from prev2/next2 (prev and cur, or cur and next, as p2
 * says: ffmpeg's parity ^ tff). Every row index is clamped into the frame,
 * which changes nothing ffmpeg reads on frames of 3 rows or more. copy: the
 * frame is cur's (no output yet: the caller drops it). Integer arithmetic
 * only, as vf_yadif.c and vf_bwdif.c at 8 and 16 bits. */

#define DI_ROW(r) clamp((r), 0, h - 1)
#define DI_AT(p, r) ((int)(p)[(long)(r)*sstride4 + c])

/* vf_yadif's FILTER for channel c of pixel x: m, p the rows above and
 * below (mrefs, prefs), check: the spatial check runs (3 <= x < w - 3). */
inline int yadif_px(__global const clv_ch *prev, __global const clv_ch *cur,
                    __global const clv_ch *next, __global const clv_ch *prev2,
                    __global const clv_ch *next2, int sstride4, int c, int y, int m, int p, int h,
                    int mode, int check)
{
    const int cc = DI_AT(cur, m), e = DI_AT(cur, p);
    const int d = (DI_AT(prev2, y) + DI_AT(next2, y)) >> 1;
    const int temporal_diff0 = abs(DI_AT(prev2, y) - DI_AT(next2, y));
    const int temporal_diff1 = (abs(DI_AT(prev, m) - cc) + abs(DI_AT(prev, p) - e)) >> 1;
    const int temporal_diff2 = (abs(DI_AT(next, m) - cc) + abs(DI_AT(next, p) - e)) >> 1;
    int diff = max(max(temporal_diff0 >> 1, temporal_diff1), temporal_diff2);
    int spatial_pred = (cc + e) >> 1;
    if (check) {
        /* cur's pixels 1, 2, 3 to the left (-) and right of x on rows m, p */
#define CUR(r, dx) DI_AT(cur + 4 * (dx), r)
        int spatial_score =
            abs(CUR(m, -1) - CUR(p, -1)) + abs(cc - e) + abs(CUR(m, 1) - CUR(p, 1)) - 1;
        int score =
            abs(CUR(m, -2) - CUR(p, 0)) + abs(CUR(m, -1) - CUR(p, 1)) + abs(CUR(m, 0) - CUR(p, 2));
        if (score < spatial_score) {
            spatial_score = score;
            spatial_pred = (CUR(m, -1) + CUR(p, 1)) >> 1;
            score = abs(CUR(m, -3) - CUR(p, 1)) + abs(CUR(m, -2) - CUR(p, 2)) +
                    abs(CUR(m, -1) - CUR(p, 3));
            if (score < spatial_score) {
                spatial_score = score;
                spatial_pred = (CUR(m, -2) + CUR(p, 2)) >> 1;
            }
        }
        score =
            abs(CUR(m, 0) - CUR(p, -2)) + abs(CUR(m, 1) - CUR(p, -1)) + abs(CUR(m, 2) - CUR(p, 0));
        if (score < spatial_score) {
            spatial_score = score;
            spatial_pred = (CUR(m, 1) + CUR(p, -1)) >> 1;
            score = abs(CUR(m, 1) - CUR(p, -3)) + abs(CUR(m, 2) - CUR(p, -2)) +
                    abs(CUR(m, 3) - CUR(p, -1));
            if (score < spatial_score)
                spatial_pred = (CUR(m, 2) + CUR(p, -2)) >> 1;
        }
#undef CUR
    }
    if (!(mode & 2)) {
        const int rb = DI_ROW(y + 2 * (m - y)), rf = DI_ROW(y + 2 * (p - y));
        const int b = (DI_AT(prev2, rb) + DI_AT(next2, rb)) >> 1;
        const int f = (DI_AT(prev2, rf) + DI_AT(next2, rf)) >> 1;
        const int mx = max(max(d - e, d - cc), min(b - cc, f - e));
        const int mn = min(min(d - e, d - cc), max(b - cc, f - e));
        diff = max(max(diff, mn), -mx);
    }
    if (spatial_pred > d + diff)
        spatial_pred = d + diff;
    else if (spatial_pred < d - diff)
        spatial_pred = d - diff;
    return spatial_pred;
}

__kernel void yadif(__global clv_ch *dst, __global const clv_ch *prev, __global const clv_ch *cur,
                    __global const clv_ch *next, int w, int h, int sstride, int dstride, int parity,
                    int p2, int mode, int copy)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const int sstride4 = 4 * sstride;
        __global clv_ch *o = dst + 4 * ((long)y * dstride + x);
        __global const clv_ch *pc = cur + 4 * x;
        if (copy || !((y ^ parity) & 1)) {
            for (int c = 0; c < 4; c++)
                o[c] = pc[(long)y * sstride4 + c];
            continue;
        }
        __global const clv_ch *pp = prev + 4 * x, *pn = next + 4 * x;
        const int m = DI_ROW(y ? y - 1 : y + 1), p = DI_ROW(y + 1 < h ? y + 1 : y - 1);
        const int mo = y == 1 || y + 2 == h ? 2 : mode;
        const int check = x >= 3 && x < w - 3;
        for (int c = 0; c < 4; c++)
            o[c] = (clv_ch)yadif_px(pp, pc, pn, p2 ? pp : pc, p2 ? pc : pn, sstride4, c, y, m, p, h,
                                    mo, check);
    }
}

/* vf_bwdif's coefficients (BBC PH-2071, the Weston 3-field deinterlacer). */
#define BW_LF0 4309
#define BW_LF1 213
#define BW_HF0 5570
#define BW_HF1 3801
#define BW_HF2 1016
#define BW_SP0 5077
#define BW_SP1 981
/* vf_bwdif's filter_slice compares rows with its bytes a sample (df): at
 * 16 bits its edge rows reach one row further in, as ffmpeg does. */
#if CLV_DEPTH == 16
#define BW_DF 2
#else
#define BW_DF 1
#endif

__kernel void bwdif(__global clv_ch *dst, __global const clv_ch *prev, __global const clv_ch *cur,
                    __global const clv_ch *next, int w, int h, int sstride, int dstride, int parity,
                    int p2, int intra, int copy)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const int sstride4 = 4 * sstride;
        __global clv_ch *o = dst + 4 * ((long)y * dstride + x);
        __global const clv_ch *pc = cur + 4 * x;
        if (copy || !((y ^ parity) & 1)) {
            for (int c = 0; c < 4; c++)
                o[c] = pc[(long)y * sstride4 + c];
            continue;
        }
        __global const clv_ch *pp = prev + 4 * x, *pn = next + 4 * x;
        __global const clv_ch *prev2 = p2 ? pp : pc, *next2 = p2 ? pc : pn;
        const int edge = y < 4 || y + 5 > h;
        const int p = DI_ROW(edge || intra ? (y + BW_DF < h ? y + 1 : y - 1) : y + 1);
        const int m = DI_ROW(edge || intra ? (y > BW_DF - 1 ? y - 1 : y + 1) : y - 1);
        const int p3 = DI_ROW(intra ? (y + 3 * BW_DF < h ? y + 3 : y - 1) : y + 3);
        const int m3 = DI_ROW(intra ? (y > 3 * BW_DF - 1 ? y - 3 : y + 1) : y - 3);
        const int p2r = DI_ROW(y + 2), m2r = DI_ROW(y - 2);
        const int p4 = DI_ROW(y + 4), m4 = DI_ROW(y - 4);
        const int spat = !(y < 2 || y + 3 > h);
        for (int c = 0; c < 4; c++) {
            int interpol;
            if (intra) {
                interpol = (BW_SP0 * (DI_AT(pc, m) + DI_AT(pc, p)) -
                            BW_SP1 * (DI_AT(pc, m3) + DI_AT(pc, p3))) >>
                           13;
                o[c] = (clv_ch)clamp(interpol, 0, CLV_MAXV);
                continue;
            }
            const int cc = DI_AT(pc, m), e = DI_AT(pc, p);
            const int d = (DI_AT(prev2, y) + DI_AT(next2, y)) >> 1;
            const int temporal_diff0 = abs(DI_AT(prev2, y) - DI_AT(next2, y));
            const int temporal_diff1 = (abs(DI_AT(pp, m) - cc) + abs(DI_AT(pp, p) - e)) >> 1;
            const int temporal_diff2 = (abs(DI_AT(pn, m) - cc) + abs(DI_AT(pn, p) - e)) >> 1;
            int diff = max(max(temporal_diff0 >> 1, temporal_diff1), temporal_diff2);
            if (!diff) {
                o[c] = (clv_ch)d;
                continue;
            }
            if (!edge || spat) {
                const int b = ((DI_AT(prev2, m2r) + DI_AT(next2, m2r)) >> 1) - cc;
                const int f = ((DI_AT(prev2, p2r) + DI_AT(next2, p2r)) >> 1) - e;
                const int dc = d - cc, de = d - e;
                const int mx = max(max(de, dc), min(b, f));
                const int mn = min(min(de, dc), max(b, f));
                diff = max(max(diff, mn), -mx);
            }
            if (edge) {
                interpol = (cc + e) >> 1;
            } else if (abs(cc - e) > temporal_diff0) {
                interpol = (((BW_HF0 * (DI_AT(prev2, y) + DI_AT(next2, y)) -
                              BW_HF1 * (DI_AT(prev2, m2r) + DI_AT(next2, m2r) + DI_AT(prev2, p2r) +
                                        DI_AT(next2, p2r)) +
                              BW_HF2 * (DI_AT(prev2, m4) + DI_AT(next2, m4) + DI_AT(prev2, p4) +
                                        DI_AT(next2, p4))) >>
                             2) +
                            BW_LF0 * (cc + e) - BW_LF1 * (DI_AT(pc, m3) + DI_AT(pc, p3))) >>
                           13;
            } else {
                interpol = (BW_SP0 * (cc + e) - BW_SP1 * (DI_AT(pc, m3) + DI_AT(pc, p3))) >> 13;
            }
            if (interpol > d + diff)
                interpol = d + diff;
            else if (interpol < d - diff)
                interpol = d - diff;
            o[c] = (clv_ch)clamp(interpol, 0, CLV_MAXV);
        }
    }
}
