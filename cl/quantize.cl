/* quantize.cl - k-means colour quantization on R,G,B, all on the device:
 * seed (first frame), then per iteration assign + per-group partial sums and
 * one reduction to new centres, then map each pixel to its centre. Centres
 * are int4 (r, g, b, 0) in constant memory. */

__kernel void km_seed(__global const uchar4 *src, int w, int h, int stride, __global int4 *centres,
                      int k)
{
    const int i = (int)get_global_id(0);
    if (i >= k)
        return;
    const ulong idx = (ulong)i * ((ulong)w * (ulong)h) / (ulong)k;
    const int x = (int)(idx % (ulong)w), y = (int)(idx / (ulong)w);
    const uchar4 p = src[y * stride + x];
    centres[i] = (int4)(p.x, p.y, p.z, 0);
}

/* Nearest centre by squared distance; ties go to the lower index. */
inline int km_nearest(int r, int g, int b, __constant int4 *centres, int k)
{
    int best = 0x7fffffff, at = 0;
    for (int j = 0; j < k; ++j) {
        const int4 c = centres[j];
        const int dr = r - c.x, dg = g - c.y, db = b - c.z;
        const int dist = dr * dr + dg * dg + db * db;
        if (dist < best) {
            best = dist;
            at = j;
        }
    }
    return at;
}

#define KM_TILE 256

/* Row shape: the nearest centre of each pixel of a run of n <= KM_TILE
 * pixels, centres in the outer loop so the inner loop over pixels
 * vectorizes; ties still go to the lower index. */
inline void km_nearest_run(__global const uchar *restrict px, __constant int4 *centres, int k,
                           int n, uchar *restrict at)
{
    int best[KM_TILE];
    for (int i = 0; i < n; ++i) {
        best[i] = 0x7fffffff;
        at[i] = 0;
    }
    for (int j = 0; j < k; ++j) {
        const int4 c = centres[j];
        for (int i = 0; i < n; ++i) {
            const int dr = px[4 * i] - c.x, dg = px[4 * i + 1] - c.y, db = px[4 * i + 2] - c.z;
            const int d = dr * dr + dg * dg + db * db;
            at[i] = d < best[i] ? (uchar)j : at[i];
            best[i] = min(d, best[i]);
        }
    }
}

/* partial[group][j] = (sum r, sum g, sum b, count) of the pixels of that
 * group's rows nearest to centre j. */
__kernel void km_assign(__global const uchar4 *src, int w, int h, int stride,
                        __constant int4 *centres, int k, __global uint *partial)
{
#if CLV_ROW
    uint sums[256 * 4];
    for (int i = 0; i < 4 * k; ++i)
        sums[i] = 0;
    uchar at[KM_TILE];
    for (int y = (int)get_global_id(0); y < h; y += (int)get_global_size(0)) {
        for (int x0 = 0; x0 < w; x0 += KM_TILE) {
            const int n = min(KM_TILE, w - x0);
            __global const uchar *px = CLV_ROW_BYTES_CONST(src, y) + 4 * x0;
            km_nearest_run(px, centres, k, n, at);
            for (int i = 0; i < n; ++i) {
                const int j = at[i];
                sums[4 * j] += px[4 * i];
                sums[4 * j + 1] += px[4 * i + 1];
                sums[4 * j + 2] += px[4 * i + 2];
                sums[4 * j + 3] += 1;
            }
        }
    }
    __global uint *out = partial + (size_t)get_global_id(0) * 4 * k;
    for (int i = 0; i < 4 * k; ++i)
        out[i] = sums[i];
#else
    __local uint sums[256 * 4];
    const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
    for (int i = lid; i < 4 * k; i += lsize)
        sums[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int y = (int)get_group_id(0); y < h; y += (int)get_num_groups(0)) {
        for (int x = lid; x < w; x += lsize) {
            const uchar4 p = src[y * stride + x];
            const int j = km_nearest(p.x, p.y, p.z, centres, k);
            atomic_add(&sums[4 * j], (uint)p.x);
            atomic_add(&sums[4 * j + 1], (uint)p.y);
            atomic_add(&sums[4 * j + 2], (uint)p.z);
            atomic_inc(&sums[4 * j + 3]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __global uint *out = partial + (size_t)get_group_id(0) * 4 * k;
    for (int i = lid; i < 4 * k; i += lsize)
        out[i] = sums[i];
#endif
}

/* New centre j = rounded mean of its pixels; an empty cluster keeps its
 * centre. */
__kernel void km_reduce(__global const uint *partial, int groups, int k, __global int4 *centres)
{
    const int j = (int)get_global_id(0);
    if (j >= k)
        return;
    ulong r = 0, g = 0, b = 0, n = 0;
    for (int i = 0; i < groups; ++i) {
        __global const uint *s = partial + ((size_t)i * k + j) * 4;
        r += s[0];
        g += s[1];
        b += s[2];
        n += s[3];
    }
    if (n)
        centres[j] =
            (int4)((int)((r + n / 2) / n), (int)((g + n / 2) / n), (int)((b + n / 2) / n), 0);
}

__kernel void km_map(CLV_FRAME_ARGS, __constant int4 *centres, int k)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    uchar at[KM_TILE];
    for (int x0 = 0; x0 < w; x0 += KM_TILE) {
        const int n = min(KM_TILE, w - x0);
        __global const uchar *px = CLV_ROW_BYTES_CONST(src, y) + 4 * x0;
        __global uchar *out = CLV_ROW_BYTES(dst, y) + 4 * x0;
        km_nearest_run(px, centres, k, n, at);
        for (int i = 0; i < n; ++i) {
            const int4 c = centres[at[i]];
            out[4 * i] = (uchar)c.x;
            out[4 * i + 1] = (uchar)c.y;
            out[4 * i + 2] = (uchar)c.z;
            out[4 * i + 3] = px[4 * i + 3];
        }
    }
#else
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const uchar4 p = src[y * stride + x];
        const int4 c = centres[km_nearest(p.x, p.y, p.z, centres, k)];
        dst[y * stride + x] = (uchar4)((uchar)c.x, (uchar)c.y, (uchar)c.z, p.w);
    }
#endif
}
