/* morph.cl - one pass of erosion (per-channel minimum) or dilation (maximum)
 * over the (2r+1)^2 window, clamp-to-edge; alpha passes through. */

#if CLV_DEPTH == 8
inline uchar4 morph_pixel(__global const uchar4 *src, int w, int h, int stride, int r, int dilate,
                          int x, int y)
{
    uchar4 lo = (uchar4)255, hi = (uchar4)0;
    for (int dy = -r; dy <= r; ++dy) {
        const int yy = clamp(y + dy, 0, h - 1) * stride;
        for (int dx = -r; dx <= r; ++dx) {
            const uchar4 v = src[yy + clamp(x + dx, 0, w - 1)];
            lo = min(lo, v);
            hi = max(hi, v);
        }
    }
    uchar4 o = dilate ? hi : lo;
    o.w = src[y * stride + x].w;
    return o;
}

#if CLV_ROW
/* Row y (the row kernel's body, and the fused kernel's on its strips). */
CLV_ROW_FN void morph_row(CLV_FRAME_ARGS, int y, int r, int dilate)
{
    /* The row's r pixels at each end with clamping; the interior as plain
     * byte loops, one pass per window offset, folded into the output row. */
    CLV_ROW_EDGES(x, r)
    dst[y * stride + x] = morph_pixel(src, w, h, stride, r, dilate, x, y);
    const int begin = 4 * r, end = 4 * (w - r);
    __global uchar *restrict out = CLV_ROW_BYTES(dst, y);
    if (r == 1) {
        /* The common window in 16-byte vectors, all nine in one pass. */
        __global const uchar *r0 = CLV_ROW_BYTES_CONST(src, max(y - 1, 0));
        __global const uchar *r1 = CLV_ROW_BYTES_CONST(src, y);
        __global const uchar *r2 = CLV_ROW_BYTES_CONST(src, min(y + 1, h - 1));
        const uchar16 alpha = (uchar16)(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255);
        int i = begin;
        for (; i + 16 <= end; i += 16) {
#define MORPH_AT(p, o) (*(__global const clv_uchar16_u *)((p) + i + (o)))
#define MORPH_COLUMN(op, o) op(op(MORPH_AT(r0, o), MORPH_AT(r1, o)), MORPH_AT(r2, o))
            const uchar16 v =
                dilate
                    ? max(max(MORPH_COLUMN(max, -4), MORPH_COLUMN(max, 0)), MORPH_COLUMN(max, 4))
                    : min(min(MORPH_COLUMN(min, -4), MORPH_COLUMN(min, 0)), MORPH_COLUMN(min, 4));
            *(__global clv_uchar16_u *)(out + i) = bitselect(v, MORPH_AT(r1, 0), alpha);
#undef MORPH_COLUMN
#undef MORPH_AT
        }
        for (; i < end; i += 4)
            dst[y * stride + i / 4] = morph_pixel(src, w, h, stride, 1, dilate, i / 4, y);
        return;
    }
    __global const uchar *first = CLV_ROW_BYTES_CONST(src, max(y - r, 0)) - 4 * r;
    for (int i = begin; i < end; ++i)
        out[i] = first[i];
    for (int dy = -r; dy <= r; ++dy) {
        __global const uchar *row = CLV_ROW_BYTES_CONST(src, clamp(y + dy, 0, h - 1));
        for (int dx = -r; dx <= r; ++dx) {
            __global const uchar *p = row + 4 * dx;
            if (dilate)
                for (int i = begin; i < end; ++i)
                    out[i] = max(out[i], p[i]);
            else
                for (int i = begin; i < end; ++i)
                    out[i] = min(out[i], p[i]);
        }
    }
    __global const uchar *centre = CLV_ROW_BYTES_CONST(src, y);
    for (int i = begin + 3; i < end; i += 4)
        out[i] = centre[i];
}
#endif

__kernel void morph(CLV_FRAME_ARGS, int r, int dilate)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    morph_row(src, dst, w, h, stride, y, r, dilate);
#else
    if (r == 1) {
        CLV_WIN3(src, w, h, stride,
                 dst[y * stride + x] = morph_pixel(src, w, h, stride, 1, dilate, x, y));
        /* r g and b in 16-bit lanes (packed min/max on NVIDIA, where
         * uchar4 min/max became a byte extraction and an operation per
         * channel). */
#define MORPH3(op, a, b, c) op(op(a, b), c)
#define MORPH_R1(op)                                                                               \
    {                                                                                              \
        ushort2 rg[6], bl[6];                                                                      \
        for (int i = 0; i < 6; ++i) {                                                              \
            rg[i] = MORPH3(op, clv_rg(a[i]), clv_rg(b[i]), clv_rg(c[i]));                          \
            bl[i] = MORPH3(op, clv_b(a[i]), clv_b(b[i]), clv_b(c[i]));                             \
        }                                                                                          \
        for (int i = 0; i < 4; ++i)                                                                \
            o[i] = clv_pixel(MORPH3(op, rg[i], rg[i + 1], rg[i + 2]),                              \
                             MORPH3(op, bl[i], bl[i + 1], bl[i + 2]), 0, b[i + 1]);                \
    }
        uchar4 o[4];
        if (dilate)
            MORPH_R1(clv_max16x2)
        else
            MORPH_R1(clv_min16x2)
#undef MORPH_R1
#undef MORPH3
        CLV_STORE4(dst, stride, y, x0, o);
        return;
    }
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * stride + x] = morph_pixel(src, w, h, stride, r, dilate, x, y);
#endif
}

#if CLV_ROW
/* One pass inside the stage's conversions (cl/yuv.cl), reach r. */
__kernel void morph_yuv(CLV_FUSED_ARGS, int r, int dilate)
{
    CLV_FUSED_BODY(morph_row(fsrc, fdst, w, fh, stride, fy, r, dilate));
}
#endif

#else /* CLV_DEPTH == 16: the same on ushort channels */

inline ushort4 morph_pixel(__global const ushort4 *src, int w, int h, int stride, int r, int dilate,
                           int x, int y)
{
    ushort4 lo = (ushort4)65535, hi = (ushort4)0;
    for (int dy = -r; dy <= r; ++dy) {
        const int yy = clamp(y + dy, 0, h - 1) * stride;
        for (int dx = -r; dx <= r; ++dx) {
            const ushort4 v = src[yy + clamp(x + dx, 0, w - 1)];
            lo = min(lo, v);
            hi = max(hi, v);
        }
    }
    ushort4 o = dilate ? hi : lo;
    o.w = src[y * stride + x].w;
    return o;
}

__kernel void morph(CLV_FRAME_ARGS, int r, int dilate)
{
#if CLV_ROW
    /* The window's extreme is the extreme over its columns' extremes: per
     * tile of the row's interior, the 2r + 1 rows folded into one column
     * row, then 2r + 1 of its pixels (4 elements apart) into the output.
     * 2(2r + 1) ushort loops that vectorize, not (2r + 1)^2. */
    CLV_ROW_Y(y);
    CLV_ROW_EDGES(x, r)
    dst[y * stride + x] = morph_pixel(src, w, h, stride, r, dilate, x, y);
#define MORPH_TILE 512
#define MORPH_REACH 7 /* r's largest value (the parameter's range, src/filters/morph.c) */
    ushort col[MORPH_TILE + 8 * MORPH_REACH], acc[MORPH_TILE];
    __global ushort *restrict out = (__global ushort *)(dst + y * stride);
#define MORPH_FOLD(op)                                                                             \
    for (int t = 4 * r; t < 4 * (w - r); t += MORPH_TILE) {                                        \
        const int len = min(MORPH_TILE, 4 * (w - r) - t), span = len + 8 * r;                      \
        for (int dy = -r; dy <= r; ++dy) {                                                         \
            __global const ushort *row =                                                           \
                (__global const ushort *)(src + clamp(y + dy, 0, h - 1) * stride) + t - 4 * r;     \
            if (dy == -r)                                                                          \
                for (int i = 0; i < span; ++i)                                                     \
                    col[i] = row[i];                                                               \
            else                                                                                   \
                for (int i = 0; i < span; ++i)                                                     \
                    col[i] = op(col[i], row[i]);                                                   \
        }                                                                                          \
        for (int i = 0; i < len; ++i)                                                              \
            acc[i] = col[i];                                                                       \
        for (int d = 4; d <= 8 * r; d += 4)                                                        \
            for (int i = 0; i < len; ++i)                                                          \
                acc[i] = op(acc[i], col[i + d]);                                                   \
        for (int i = 0; i < len; ++i)                                                              \
            out[t + i] = acc[i];                                                                   \
    }
    if (dilate)
        MORPH_FOLD(max)
    else
        MORPH_FOLD(min)
#undef MORPH_FOLD
    __global const ushort *centre = (__global const ushort *)(src + y * stride);
    for (int x = r; x < w - r; ++x)
        out[4 * x + 3] = centre[4 * x + 3];
#else
    /* Four outputs of one row a work-item: each row of the window's 2r + 4
     * pixels read once for the four. */
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
    if (y >= h || x0 >= w)
        return;
    ushort4 o[4];
    for (int i = 0; i < 4; ++i)
        o[i] = dilate ? (ushort4)0 : (ushort4)65535;
    for (int dy = -r; dy <= r; ++dy) {
        __global const ushort4 *row = src + clamp(y + dy, 0, h - 1) * stride;
        for (int j = 0; j < 2 * r + 4; ++j) {
            const ushort4 v = row[clamp(x0 - r + j, 0, w - 1)];
            for (int i = 0; i < 4; ++i) /* pixel x0 + i's window: j = i .. i + 2r */
                if (j >= i && j <= i + 2 * r)
                    o[i] = dilate ? max(o[i], v) : min(o[i], v);
        }
    }
    __global const ushort4 *centre = src + y * stride;
    for (int i = 0; i < 4; ++i)
        o[i].w = centre[min(x0 + i, w - 1)].w;
    if (x0 + 4 <= w) {
        CLV_STORE4(dst, stride, y, x0, o);
    } else {
        for (int i = 0; x0 + i < w; ++i)
            dst[y * stride + x0 + i] = o[i];
    }
#endif
}
#endif /* CLV_DEPTH */
