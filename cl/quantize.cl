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

/* GPUs: the nearest centre as the least ||c||^2 - 2 p.c, which orders
 * the centres as the distance does (it is the distance less ||p||^2).
 * Every term is an integer below 2^24, so the three FMAs are exact in
 * float and ties still go to the lower index. cf[j] = (-2c, ||c||^2). */
inline int km_nearest_f(float r, float g, float b, __local const float4 *cf, int k)
{
    float best = INFINITY;
    int at = 0;
    for (int j = 0; j < k; ++j) {
        const float4 c = cf[j];
        const float d = fma(b, c.z, fma(g, c.y, fma(r, c.x, c.w)));
        at = d < best ? j : at;
        best = fmin(d, best);
    }
    return at;
}

/* Fills cf (see km_nearest_f) from the centres; a work-group's first step. */
inline void km_centres_f(__constant int4 *centres, int k, __local float4 *cf)
{
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    for (int j = lid; j < k; j += (int)(get_local_size(0) * get_local_size(1))) {
        const int4 c = centres[j];
        cf[j] = (float4)(-2.0f * (float)c.x, -2.0f * (float)c.y, -2.0f * (float)c.z,
                         (float)(c.x * c.x + c.y * c.y + c.z * c.z));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

#define KM_TILE 256
#define KM_RUN 8 /* GPU shape: pixels side by side per work-item in km_assign */

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
    __local float4 cf[256];
    const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
    for (int i = lid; i < 4 * k; i += lsize)
        sums[i] = 0;
    km_centres_f(centres, k, cf);
    /* Each work-item takes KM_RUN pixels side by side and adds a run of
     * pixels with the same centre in registers, going to the shared sums
     * only when the centre changes: in a natural picture neighbours mostly
     * share one, and the whole group adding to the same four words one
     * pixel at a time queued its atomics (1.4 ms against 0.95 on noise at
     * 4K on an H100). The sums are integers: the order does not matter. */
    int cur = -1;
    uint sr = 0, sg = 0, sb = 0, n = 0;
    for (int y = (int)get_group_id(0); y < h; y += (int)get_num_groups(0)) {
        for (int x0 = lid * KM_RUN; x0 < w; x0 += lsize * KM_RUN) {
            const int end = min(x0 + KM_RUN, w);
            for (int x = x0; x < end; ++x) {
                const uchar4 p = src[y * stride + x];
                const int j = km_nearest_f(p.x, p.y, p.z, cf, k);
                if (j != cur) {
                    if (n) {
                        atomic_add(&sums[4 * cur], sr);
                        atomic_add(&sums[4 * cur + 1], sg);
                        atomic_add(&sums[4 * cur + 2], sb);
                        atomic_add(&sums[4 * cur + 3], n);
                    }
                    cur = j;
                    sr = sg = sb = n = 0;
                }
                sr += p.x;
                sg += p.y;
                sb += p.z;
                n++;
            }
        }
    }
    if (n) {
        atomic_add(&sums[4 * cur], sr);
        atomic_add(&sums[4 * cur + 1], sg);
        atomic_add(&sums[4 * cur + 2], sb);
        atomic_add(&sums[4 * cur + 3], n);
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
#if CLV_ROW
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
#else
    /* One work-group of 256 per centre: the groups' sums read side by side
     * and added in a tree (one work-item walking them all waited on memory
     * for most of each iteration). */
    __local ulong4 acc[256];
    const int j = (int)get_group_id(0), lid = (int)get_local_id(0);
    ulong4 mine = (ulong4)0;
    for (int i = lid; i < groups; i += 256)
        mine += convert_ulong4(vload4(0, partial + ((size_t)i * k + j) * 4));
    acc[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int span = 128; span > 0; span >>= 1) {
        if (lid < span)
            acc[lid] += acc[lid + span];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid != 0)
        return;
    const ulong r = acc[0].x, g = acc[0].y, b = acc[0].z, n = acc[0].w;
#endif
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
    __local float4 cf[256];
    km_centres_f(centres, k, cf);
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const uchar4 p = src[y * stride + x];
        const int4 c = centres[km_nearest_f(p.x, p.y, p.z, cf, k)];
        dst[y * stride + x] = (uchar4)((uchar)c.x, (uchar)c.y, (uchar)c.z, p.w);
    }
#endif
}
