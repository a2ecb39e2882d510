/* median.cl - per-channel median of the (2r+1)^2 window, clamp-to-edge.
 * Channels are sorted together: min/max on uchar4 works lane by lane. */

#define SORT2(a, b)                                                                                \
    {                                                                                              \
        const uchar4 t_ = min(a, b);                                                               \
        b = max(a, b);                                                                             \
        a = t_;                                                                                    \
    }

/* 3x3: Paeth's 19-exchange median-of-9 network, branchless. */
__kernel void median3(CLV_FRAME_ARGS)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const int ym = clamp(y - 1, 0, h - 1) * stride, y0 = y * stride,
                  yp = clamp(y + 1, 0, h - 1) * stride;
        const int xm = clamp(x - 1, 0, w - 1), xp = clamp(x + 1, 0, w - 1);
        uchar4 p0 = src[ym + xm], p1 = src[ym + x], p2 = src[ym + xp];
        uchar4 p3 = src[y0 + xm], p4 = src[y0 + x], p5 = src[y0 + xp];
        uchar4 p6 = src[yp + xm], p7 = src[yp + x], p8 = src[yp + xp];
        const uchar alpha = p4.w;
        SORT2(p1, p2); SORT2(p4, p5); SORT2(p7, p8);
        SORT2(p0, p1); SORT2(p3, p4); SORT2(p6, p7);
        SORT2(p1, p2); SORT2(p4, p5); SORT2(p7, p8);
        SORT2(p0, p3); SORT2(p5, p8); SORT2(p4, p7);
        SORT2(p3, p6); SORT2(p1, p4); SORT2(p2, p5);
        SORT2(p4, p7); SORT2(p4, p2); SORT2(p6, p4);
        SORT2(p4, p2);
        p4.w = alpha;
        dst[y0 + x] = p4;
    }
}

/* Any radius: the k-th smallest (k = n/2) found bit by bit from the top:
 * the largest v with #(window < v) <= k. Eight passes over the window. */
__kernel void median_radix(CLV_FRAME_ARGS, int r)
{
    const int k = ((2 * r + 1) * (2 * r + 1)) / 2;
    CLV_PIXEL_LOOP(w, h, x, y)
    {
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
        dst[y * stride + x] = o;
    }
}
