/* colorbalance.cl - ffmpeg's colorbalance on RGB (src/filters/colorbalance.c
 * defines it): with L = max(r, g, b) + min(r, g, b) (0 to 2 * CLV_MAXV) and
 * the host's tables of each channel's shift at L (8 fractional bits),
 *   c' = clamp((c << 8) + delta_c[L], 0, CLV_MAXV << 8)
 * out = round(c'); with pl (preserve lightness) the three shifted by the
 * lightness they lost, out = round(c' + ((L << 8) - max' - min') / 2);
 * black stays black, and where max' or min' is clipped (ffmpeg's
 * saturation 0) the pixel is gray at L / 2, white going black unless max'
 * is (ffmpeg's NAN there). That gray is ffmpeg's float arithmetic's, which
 * rounds the halves either way: at 8 bits the host's table of it by the
 * pixel's max and min (gray), at 16 bits L / 2 rounded half to even.
 *
 * The helpers return values and choose by selects: PoCL's loops vectorized
 * none of this while it went through pointers and branches. */

#define CB_TOP (CLV_MAXV << 8)

/* A channel c shifted by d (c'). */
inline int cb_shifted(int c, int d)
{
    return clamp((c << 8) + d, 0, CB_TOP);
}

/* pl's channel from c' given the pixel's L, max' and min', and its gray. */
inline int cb_kept(int c, int l, int mx, int mn, int gray)
{
    const int special = mx == CB_TOP || mn == 0;
    const int fixed = special || l == 0 || l == 2 * CLV_MAXV;
    const int kept = clamp((2 * c + (l << 8) - mx - mn + 256) >> 9, 0, CLV_MAXV);
    return fixed ? (special ? gray : 0) : kept;
}

/* The gray of a pixel of max hi and min lo. */
inline int cb_gray(__global const uchar *gray, int hi, int lo)
{
#if CLV_DEPTH == 8
    return gray[hi * 256 + lo];
#else
    const int l = hi + lo;
    return (l >> 1) + (l & (l >> 1) & 1); /* L / 2, half to even */
#endif
}

#if CLV_ROW
/* The row shape in chunks of CB_CHUNK pixels: PoCL's loops do not vectorize
 * table reads (gathers), so they have a scalar loop of their own between
 * loops that vectorize. */
#define CB_CHUNK 256

__kernel void colorbalance(CLV_FRAME_ARGS, __global const int *delta, __global const uchar *gray,
                           int pl)
{
    CLV_ROW_Y(y);
    const int span = 2 * CLV_MAXV + 1;
    __global const clv_ch *in = (__global const clv_ch *)(src + y * stride);
    __global clv_ch *out = (__global clv_ch *)(dst + y * stride);
    int hi[CB_CHUNK], lo[CB_CHUNK], dr[CB_CHUNK], dg[CB_CHUNK], db[CB_CHUNK], gr[CB_CHUNK];
    for (int x0 = 0; x0 < w; x0 += CB_CHUNK) {
        __global const clv_ch *p = in + 4 * x0;
        __global clv_ch *o = out + 4 * x0;
        const int len = min(CB_CHUNK, w - x0);
        for (int i = 0; i < len; i++) {
            const int r = p[4 * i], g = p[4 * i + 1], b = p[4 * i + 2];
            hi[i] = max(max(r, g), b);
            lo[i] = min(min(r, g), b);
        }
        for (int i = 0; i < len; i++) {
            const int l = hi[i] + lo[i];
            dr[i] = delta[l];
            dg[i] = delta[span + l];
            db[i] = delta[2 * span + l];
            gr[i] = pl ? cb_gray(gray, hi[i], lo[i]) : 0;
        }
        if (!pl) {
            for (int i = 0; i < len; i++) {
                o[4 * i] = (clv_ch)((cb_shifted(p[4 * i], dr[i]) + 128) >> 8);
                o[4 * i + 1] = (clv_ch)((cb_shifted(p[4 * i + 1], dg[i]) + 128) >> 8);
                o[4 * i + 2] = (clv_ch)((cb_shifted(p[4 * i + 2], db[i]) + 128) >> 8);
                o[4 * i + 3] = p[4 * i + 3];
            }
            continue;
        }
        for (int i = 0; i < len; i++) {
            const int l = hi[i] + lo[i];
            const int cr = cb_shifted(p[4 * i], dr[i]), cg = cb_shifted(p[4 * i + 1], dg[i]);
            const int cb = cb_shifted(p[4 * i + 2], db[i]);
            const int mx = max(max(cr, cg), cb), mn = min(min(cr, cg), cb);
            o[4 * i] = (clv_ch)cb_kept(cr, l, mx, mn, gr[i]);
            o[4 * i + 1] = (clv_ch)cb_kept(cg, l, mx, mn, gr[i]);
            o[4 * i + 2] = (clv_ch)cb_kept(cb, l, mx, mn, gr[i]);
            o[4 * i + 3] = p[4 * i + 3];
        }
    }
}
#else
inline void cb_pixel(__global const int *delta, __global const uchar *gray, int pl, clv_ch *r,
                     clv_ch *g, clv_ch *b)
{
    const int span = 2 * CLV_MAXV + 1;
    const int hi = max(max((int)*r, (int)*g), (int)*b), lo = min(min((int)*r, (int)*g), (int)*b);
    const int l = hi + lo;
    const int cr = cb_shifted(*r, delta[l]), cg = cb_shifted(*g, delta[span + l]);
    const int cb = cb_shifted(*b, delta[2 * span + l]);
    if (pl) {
        const int mx = max(max(cr, cg), cb), mn = min(min(cr, cg), cb);
        const int gy = cb_gray(gray, hi, lo);
        *r = (clv_ch)cb_kept(cr, l, mx, mn, gy);
        *g = (clv_ch)cb_kept(cg, l, mx, mn, gy);
        *b = (clv_ch)cb_kept(cb, l, mx, mn, gy);
    } else {
        *r = (clv_ch)((cr + 128) >> 8);
        *g = (clv_ch)((cg + 128) >> 8);
        *b = (clv_ch)((cb + 128) >> 8);
    }
}

__kernel void colorbalance(CLV_FRAME_ARGS, __global const int *delta, __global const uchar *gray,
                           int pl)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, cb_pixel(delta, gray, pl, &r, &g, &b));
}
#endif
