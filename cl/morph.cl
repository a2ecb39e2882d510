/* morph.cl - one pass of erosion (per-channel minimum) or dilation (maximum)
 * over the (2r+1)^2 window, clamp-to-edge; alpha passes through. */

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
