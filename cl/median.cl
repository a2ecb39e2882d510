/* median.cl - per-channel median of the (2r+1)^2 window, clamp-to-edge.
 * Channels are sorted together on GPUs (min/max on uchar4 works lane by
 * lane) and byte by byte along a row on CPUs. */

#define SORT2(T, a, b)                                                                             \
    {                                                                                              \
        const T t_ = min(a, b);                                                                    \
        b = max(a, b);                                                                             \
        a = t_;                                                                                    \
    }

/* Paeth's 19-exchange median-of-9 network, branchless; leaves it in p4.
 * Three exchanges a line, as the network is usually drawn. */
// clang-format off
#define MEDIAN9(T)                                                                                 \
    SORT2(T, p1, p2); SORT2(T, p4, p5); SORT2(T, p7, p8);                                          \
    SORT2(T, p0, p1); SORT2(T, p3, p4); SORT2(T, p6, p7);                                          \
    SORT2(T, p1, p2); SORT2(T, p4, p5); SORT2(T, p7, p8);                                          \
    SORT2(T, p0, p3); SORT2(T, p5, p8); SORT2(T, p4, p7);                                          \
    SORT2(T, p3, p6); SORT2(T, p1, p4); SORT2(T, p2, p5);                                          \
    SORT2(T, p4, p7); SORT2(T, p4, p2); SORT2(T, p6, p4);                                          \
    SORT2(T, p4, p2)
// clang-format on

inline uchar4 median3_pixel(__global const uchar4 *src, int w, int h, int stride, int x, int y)
{
    const int ym = clamp(y - 1, 0, h - 1) * stride, y0 = y * stride,
              yp = clamp(y + 1, 0, h - 1) * stride;
    const int xm = clamp(x - 1, 0, w - 1), xp = clamp(x + 1, 0, w - 1);
    uchar4 p0 = src[ym + xm], p1 = src[ym + x], p2 = src[ym + xp];
    uchar4 p3 = src[y0 + xm], p4 = src[y0 + x], p5 = src[y0 + xp];
    uchar4 p6 = src[yp + xm], p7 = src[yp + x], p8 = src[yp + xp];
    const uchar alpha = p4.w;
    MEDIAN9(uchar4);
    p4.w = alpha;
    return p4;
}

__kernel void median3(CLV_FRAME_ARGS)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    dst[y * stride] = median3_pixel(src, w, h, stride, 0, y);
    if (w > 1)
        dst[y * stride + w - 1] = median3_pixel(src, w, h, stride, w - 1, y);
    __global const uchar *r0 = CLV_ROW_BYTES_CONST(src, max(y - 1, 0));
    __global const uchar *r1 = CLV_ROW_BYTES_CONST(src, y);
    __global const uchar *r2 = CLV_ROW_BYTES_CONST(src, min(y + 1, h - 1));
    __global uchar *restrict out = CLV_ROW_BYTES(dst, y);
    for (int i = 4; i < 4 * (w - 1); ++i) {
        uchar p0 = r0[i - 4], p1 = r0[i], p2 = r0[i + 4];
        uchar p3 = r1[i - 4], p4 = r1[i], p5 = r1[i + 4];
        uchar p6 = r2[i - 4], p7 = r2[i], p8 = r2[i + 4];
        MEDIAN9(uchar);
        out[i] = (i & 3) == 3 ? r1[i] : p4;
    }
#else
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * stride + x] = median3_pixel(src, w, h, stride, x, y);
#endif
}

/* Any radius: the k-th smallest (k = n/2) found bit by bit from the top:
 * the largest v with #(window < v) <= k. Eight passes over the window. */
inline uchar4 median_radix_pixel(__global const uchar4 *src, int w, int h, int stride, int r, int x,
                                 int y)
{
    const int k = ((2 * r + 1) * (2 * r + 1)) / 2;
    uint4 res = (uint4)0;
    for (uint bit = 128; bit; bit >>= 1) {
        const uint4 cand = res | bit;
        int4 below = (int4)0;
        for (int dy = -r; dy <= r; ++dy) {
            const int yy = clamp(y + dy, 0, h - 1) * stride;
            for (int dx = -r; dx <= r; ++dx)
                below -= convert_uint4(src[yy + clamp(x + dx, 0, w - 1)]) < cand;
        }
        res = select(res, cand, below <= (int4)k);
    }
    uchar4 o = convert_uchar4(res);
    o.w = src[y * stride + x].w;
    return o;
}

#define MEDIAN_TILE 512

/* below[i] += p[i] < cand[i]. A function so that restrict tells the
 * vectorizer the row and the private tiles do not overlap. */
inline void median_count(__global const uchar *restrict p, const uchar *restrict cand,
                         uchar *restrict below, int len)
{
    for (int i = 0; i < len; ++i)
        below[i] += p[i] < cand[i];
}

__kernel void median_radix(CLV_FRAME_ARGS, int r)
{
#if CLV_ROW
    /* The same selection on the row's interior in tiles of bytes: every
     * innermost loop is a plain byte loop the compiler vectorizes. */
    CLV_ROW_Y(y);
    CLV_ROW_EDGES(x, r)
    dst[y * stride + x] = median_radix_pixel(src, w, h, stride, r, x, y);
    const int k = ((2 * r + 1) * (2 * r + 1)) / 2;
    __global const uchar *centre = CLV_ROW_BYTES_CONST(src, y);
    __global uchar *restrict out = CLV_ROW_BYTES(dst, y);
    uchar res[MEDIAN_TILE], cand[MEDIAN_TILE], below[MEDIAN_TILE];
    for (int t = 4 * r; t < 4 * (w - r); t += MEDIAN_TILE) {
        const int len = min(MEDIAN_TILE, 4 * (w - r) - t);
        for (int i = 0; i < len; ++i)
            res[i] = 0;
        for (uint bit = 128; bit; bit >>= 1) {
            for (int i = 0; i < len; ++i) {
                cand[i] = res[i] | (uchar)bit;
                below[i] = 0; /* at most 225: fits */
            }
            for (int dy = -r; dy <= r; ++dy) {
                __global const uchar *row = CLV_ROW_BYTES_CONST(src, clamp(y + dy, 0, h - 1)) + t;
                for (int dx = -r; dx <= r; ++dx)
                    median_count(row + 4 * dx, cand, below, len);
            }
            for (int i = 0; i < len; ++i)
                res[i] = below[i] <= k ? cand[i] : res[i];
        }
        for (int i = 0; i < len; ++i)
            out[t + i] = ((t + i) & 3) == 3 ? centre[t + i] : res[i];
    }
#else
    CLV_PIXEL_LOOP(w, h, x, y)
    dst[y * stride + x] = median_radix_pixel(src, w, h, stride, r, x, y);
#endif
}
