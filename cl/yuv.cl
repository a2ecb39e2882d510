/* yuv.cl - the arithmetic of the conversions between 8-bit YUV and RGBA8,
 * shared by the stage's conversion kernels (cl/color.cl) and by filters
 * that run inside them (cl/equalize.cl on CPUs). The fixed-point
 * coefficients come from the host (src/core/color.c) and the same integers
 * drive the C reference, so device and reference agree exactly. */

/* Coefficients, 16 fractional bits: to RGB, from Y (less yoff), U and V
 * (less 128); to YUV, from R, G, B. */
typedef struct clv_yuv_coeffs {
    int ky, yoff, rv, gu, gv, bu;
    int yr, yg, yb, ur, ug, ub, vr, vg, vb;
    int ymin, ymax, cmin, cmax; /* the range's legal codes */
} clv_yuv_coeffs;

/* (v + 2^15) >> 16, rounding to nearest, for v > -2^24. */
inline int fix16(int v)
{
    return ((v + 32768 + (256 << 16)) >> 16) - 256;
}

inline uchar4 yuv_to_rgba(int yv, int u, int v, __constant clv_yuv_coeffs *k)
{
    const int y = k->ky * (yv - k->yoff);
    u -= 128;
    v -= 128;
    return (uchar4)(convert_uchar_sat(fix16(y + k->rv * v)),
                    convert_uchar_sat(fix16(y - k->gu * u - k->gv * v)),
                    convert_uchar_sat(fix16(y + k->bu * u)), 255);
}

#if CLV_ROW
/* One row of yuv to RGBA, two pixels per step sharing a chroma sample.
 * On little-endian devices each pixel is stored as one 32-bit word: three
 * times faster on PoCL than eight byte stores (measured with clvid-bench
 * --pipeline). */
inline void yuv_row(__global const uchar *restrict ry, __global const uchar *restrict ru,
                    __global const uchar *restrict rv_, const int cstep,
                    __global uchar *restrict out, int w, __constant clv_yuv_coeffs *k)
{
    const int ky = k->ky, yoff = k->yoff, rv = k->rv, gu = k->gu, gv = k->gv, bu = k->bu;
    for (int cx = 0; cx < w / 2; ++cx) {
        const int u = ru[cstep * cx] - 128, v = rv_[cstep * cx] - 128;
        const int cr = rv * v, cg = -gu * u - gv * v, cb = bu * u;
        const int y0 = ky * (ry[2 * cx] - yoff), y1 = ky * (ry[2 * cx + 1] - yoff);
        const uint r0 = clamp(fix16(y0 + cr), 0, 255), g0 = clamp(fix16(y0 + cg), 0, 255),
                   b0 = clamp(fix16(y0 + cb), 0, 255);
        const uint r1 = clamp(fix16(y1 + cr), 0, 255), g1 = clamp(fix16(y1 + cg), 0, 255),
                   b1 = clamp(fix16(y1 + cb), 0, 255);
#ifdef __ENDIAN_LITTLE__
        __global uint *o = (__global uint *)out;
        o[2 * cx] = r0 | (g0 << 8) | (b0 << 16) | 0xFF000000u;
        o[2 * cx + 1] = r1 | (g1 << 8) | (b1 << 16) | 0xFF000000u;
#else
        out[8 * cx] = (uchar)r0;
        out[8 * cx + 1] = (uchar)g0;
        out[8 * cx + 2] = (uchar)b0;
        out[8 * cx + 3] = 255;
        out[8 * cx + 4] = (uchar)r1;
        out[8 * cx + 5] = (uchar)g1;
        out[8 * cx + 6] = (uchar)b1;
        out[8 * cx + 7] = 255;
#endif
    }
}

/* Two rows of RGBA into two rows of Y and one of U and V (whole 2x2 blocks). */
inline void yuv_from_rows(__global const uchar *restrict a, __global const uchar *restrict b,
                          __global uchar *restrict ya, __global uchar *restrict yb_,
                          __global uchar *restrict ru, __global uchar *restrict rv_,
                          const int cstep, int w, __constant clv_yuv_coeffs *k)
{
    const int yr = k->yr, yg = k->yg, yb = k->yb, yo = k->yoff << 16;
    const int ur = k->ur, ug = k->ug, ub = k->ub, vr = k->vr, vg = k->vg, vb = k->vb;
    const int ymin = k->ymin, ymax = k->ymax, cmin = k->cmin, cmax = k->cmax;
#ifdef __ENDIAN_LITTLE__
    __global const uint *restrict a4 = (__global const uint *)a;
    __global const uint *restrict b4 = (__global const uint *)b;
#endif
    for (int cx = 0; cx < w / 2; ++cx) {
#ifdef __ENDIAN_LITTLE__
        const uint p0 = a4[2 * cx], p1 = a4[2 * cx + 1], p2 = b4[2 * cx], p3 = b4[2 * cx + 1];
        const int r0 = p0 & 255, g0 = (p0 >> 8) & 255, b0 = (p0 >> 16) & 255;
        const int r1 = p1 & 255, g1 = (p1 >> 8) & 255, b1 = (p1 >> 16) & 255;
        const int r2 = p2 & 255, g2 = (p2 >> 8) & 255, b2 = (p2 >> 16) & 255;
        const int r3 = p3 & 255, g3 = (p3 >> 8) & 255, b3 = (p3 >> 16) & 255;
#else
        const int r0 = a[8 * cx], g0 = a[8 * cx + 1], b0 = a[8 * cx + 2];
        const int r1 = a[8 * cx + 4], g1 = a[8 * cx + 5], b1 = a[8 * cx + 6];
        const int r2 = b[8 * cx], g2 = b[8 * cx + 1], b2 = b[8 * cx + 2];
        const int r3 = b[8 * cx + 4], g3 = b[8 * cx + 5], b3 = b[8 * cx + 6];
#endif
        ya[2 * cx] = (uchar)clamp(fix16(yr * r0 + yg * g0 + yb * b0 + yo), ymin, ymax);
        ya[2 * cx + 1] = (uchar)clamp(fix16(yr * r1 + yg * g1 + yb * b1 + yo), ymin, ymax);
        yb_[2 * cx] = (uchar)clamp(fix16(yr * r2 + yg * g2 + yb * b2 + yo), ymin, ymax);
        yb_[2 * cx + 1] = (uchar)clamp(fix16(yr * r3 + yg * g3 + yb * b3 + yo), ymin, ymax);
        const int sr = r0 + r1 + r2 + r3, sg = g0 + g1 + g2 + g3, sb = b0 + b1 + b2 + b3;
        ru[cstep * cx] =
            (uchar)clamp((ur * sr + ug * sg + ub * sb + (4 << 23) + (1 << 17)) >> 18, cmin, cmax);
        rv_[cstep * cx] =
            (uchar)clamp((vr * sr + vg * sg + vb * sb + (4 << 23) + (1 << 17)) >> 18, cmin, cmax);
    }
}
#endif

/* Chroma sample (cx, cy) of a 4:2:0 frame from the (up to) 2x2 RGBA
 * pixels it covers, and their luma: the general code, for any position.
 * a and b: RGBA rows 2cy and 2cy + 1 (b is not read when 2cy + 1 = h). */
inline void yuv420_block(__global const uchar4 *a, __global const uchar4 *b, __global uchar *out,
                         int w, int h, int nv12, __constant clv_yuv_coeffs *k, int cx, int cy)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    __global uchar *py = out, *pu = out + w * h, *pv = pu + cw * ch;
    int sr = 0, sg = 0, sb = 0, n = 0;
    for (int dy = 0; dy < 2; ++dy) {
        const int y = 2 * cy + dy;
        if (y >= h)
            break;
        __global const uchar4 *row = dy ? b : a;
        for (int dx = 0; dx < 2; ++dx) {
            const int x = 2 * cx + dx;
            if (x >= w)
                break;
            const int4 p = convert_int4(row[x]);
            py[y * w + x] = (uchar)clamp(
                fix16(k->yr * p.x + k->yg * p.y + k->yb * p.z + (k->yoff << 16)), k->ymin, k->ymax);
            sr += p.x;
            sg += p.y;
            sb += p.z;
            ++n;
        }
    }
    /* n is 1, 2 or 4: the mean by a shift of 16 + log2(n). */
    const int shift = 16 + (n == 4 ? 2 : n == 2 ? 1 : 0);
    const int rounding = 1 << (shift - 1);
    const int u = (k->ur * sr + k->ug * sg + k->ub * sb + (n << 23) + rounding) >> shift;
    const int v = (k->vr * sr + k->vg * sg + k->vb * sb + (n << 23) + rounding) >> shift;
    const int c = cy * cw + cx;
    const uchar uu = (uchar)clamp(u, k->cmin, k->cmax), vv = (uchar)clamp(v, k->cmin, k->cmax);
    if (nv12) {
        pu[2 * c] = uu;
        pu[2 * c + 1] = vv;
    } else {
        pu[c] = uu;
        pv[c] = vv;
    }
}

#if CLV_ROW
/* Chroma row cy of a 4:2:0 frame from RGBA rows 2cy (a) and 2cy + 1 (b,
 * not read when 2cy + 1 = h): whole 2x2 blocks of two full rows in plain
 * loops, an odd last column or row through yuv420_block. */
inline void yuv420_row(__global const uchar4 *a, __global const uchar4 *b, __global uchar *out,
                       int w, int h, int nv12, __constant clv_yuv_coeffs *k, int cy)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    if (2 * cy + 1 >= h) { /* an odd height's last row */
        for (int cx = 0; cx < cw; ++cx)
            yuv420_block(a, b, out, w, h, nv12, k, cx, cy);
        return;
    }
    __global uchar *py = out, *pu = out + w * h, *pv = pu + cw * ch;
    __global uchar *ya = py + 2 * cy * w, *yb_ = ya + w;
    __global uchar *ru = nv12 ? pu + cy * 2 * cw : pu + cy * cw;
    __global uchar *rv_ = nv12 ? ru + 1 : pv + cy * cw;
    __global const uchar *ra = (__global const uchar *)a, *rb = (__global const uchar *)b;
    if (nv12)
        yuv_from_rows(ra, rb, ya, yb_, ru, rv_, 2, w, k);
    else
        yuv_from_rows(ra, rb, ya, yb_, ru, rv_, 1, w, k);
    if (w & 1)
        yuv420_block(a, b, out, w, h, nv12, k, w / 2, cy);
}

/* Row y of a 4:2:0 frame (planes at py, pu and pv, rows ys, us and vs bytes
 * apart; nv12: U and V interleaved at pu) into the RGBA row at dst: two
 * pixels per step sharing one chroma sample, an odd width's last pixel
 * alone. */
inline void yuv420_rgba_row(__global const uchar *py, __global const uchar *pu,
                            __global const uchar *pv, int ys, int us, int vs, int nv12,
                            __global uchar4 *dst, int w, __constant clv_yuv_coeffs *k, int y)
{
    __global const uchar *ry = py + y * ys;
    __global const uchar *ru = pu + (y / 2) * us;
    __global const uchar *rv_ = nv12 ? ru + 1 : pv + (y / 2) * vs;
    const int cstep = nv12 ? 2 : 1;
    if (nv12) /* a constant chroma step in each call */
        yuv_row(ry, ru, rv_, 2, (__global uchar *)dst, w, k);
    else
        yuv_row(ry, ru, rv_, 1, (__global uchar *)dst, w, k);
    if (w & 1) {
        const int x = w - 1, c = x / 2;
        dst[x] = yuv_to_rgba(ry[x], ru[cstep * c], rv_[cstep * c], k);
    }
}
#endif

#if CLV_ROW
/* Neighbourhood filters inside the conversions (CPUs; clv_filter's
 * run_yuv through clv__run_fused): a one-filter chain between 4:2:0
 * frames in one kernel, each work-item a block of whole chroma rows.
 * Chunk by chunk of CLV_FUSE_ROWS output rows, the input rows the chunk
 * reads (`reach` more above and below, clamped to the frame) are converted
 * into the work-item's strip, the filter's own row function runs on the
 * strip as on a frame of that many rows, and its rows are converted out.
 * The strips stay in the cache; the RGBA frames are never written. A
 * chunk's last 2 * reach input rows are the next one's first: copied, not
 * converted again. */
#define CLV_FUSE_ROWS 8 /* even: a chunk is whole chroma rows */

#define CLV_FUSED_ARGS                                                                             \
    __global const uchar *in, __global uchar4 *strips, int w, int h, int stride, int nv12,         \
        __constant clv_yuv_coeffs *k, int yoff, int uoff, int voff, int ys, int us, int vs,        \
        __global uchar *out, int out_nv12, __constant clv_yuv_coeffs *out_k, int reach

/* This work-item's rows: whole chroma rows, split evenly. */
inline void clv_fused_block(int h, int *begin, int *end)
{
    const int ch = (h + 1) / 2, n = (int)get_global_size(0);
    const int per = (ch + n - 1) / n, c0 = (int)get_global_id(0) * per;
    *begin = 2 * c0;
    *end = min(h, 2 * min(ch, c0 + per));
}

/* Strip rows 0 .. rows - 1 become frame rows y - reach .. (clamped); with
 * carry the first 2 * reach are the previous chunk's last. */
inline void clv_fused_in(__global const uchar *in, __global uchar4 *s, int w, int h, int stride,
                         int nv12, __constant clv_yuv_coeffs *k, int yoff, int uoff, int voff,
                         int ys, int us, int vs, int reach, int y, int carry, int rows)
{
    int j = 0;
    if (carry) {
        for (; j < 2 * reach; ++j) {
            __global uint *restrict to = (__global uint *)(s + j * stride);
            __global const uint *restrict from =
                (__global const uint *)(s + (CLV_FUSE_ROWS + j) * stride);
            for (int x = 0; x < w; ++x)
                to[x] = from[x];
        }
    }
    for (; j < rows; ++j)
        yuv420_rgba_row(in + yoff, in + uoff, in + voff, ys, us, vs, nv12, s + j * stride, w, k,
                        clamp(y - reach + j, 0, h - 1));
}

/* The kernel's body: `row` filters row fy of the strip fsrc (a frame of fh
 * rows, `stride` pixels apart) into row fy of fdst. */
#define CLV_FUSED_BODY(row)                                                                        \
    const int fuse_in_ = CLV_FUSE_ROWS + 2 * reach;                                                \
    __global uchar4 *fsrc = strips + (int)get_global_id(0) * 2 * fuse_in_ * stride;                \
    __global uchar4 *fdst = fsrc + fuse_in_ * stride;                                              \
    int fuse_y0_, fuse_end_;                                                                       \
    clv_fused_block(h, &fuse_y0_, &fuse_end_);                                                     \
    for (int y_ = fuse_y0_; y_ < fuse_end_; y_ += CLV_FUSE_ROWS) {                                 \
        const int n_ = min(CLV_FUSE_ROWS, fuse_end_ - y_), fh = n_ + 2 * reach;                    \
        clv_fused_in(in, fsrc, w, h, stride, nv12, k, yoff, uoff, voff, ys, us, vs, reach, y_,     \
                     y_ > fuse_y0_, fh);                                                           \
        for (int fy = reach; fy < reach + n_; ++fy) {                                              \
            row;                                                                                   \
        }                                                                                          \
        for (int i_ = 0; i_ < n_; i_ += 2)                                                         \
            yuv420_row(fdst + (reach + i_) * stride, fdst + (reach + i_ + 1) * stride, out, w, h,  \
                       out_nv12, out_k, (y_ + i_) / 2);                                            \
    }
#endif
