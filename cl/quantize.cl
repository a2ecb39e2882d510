/* quantize.cl - k-means colour quantization on R,G,B, all on the device:
 * seed (first frame), then per iteration assign + per-group partial sums and
 * one reduction to new centres, then map each pixel to its centre. Centres
 * are int4 (r, g, b, 0) in constant memory.
 *
 * Settled centres: when a pass's reduction leaves every centre where it was,
 * every later pass would assign the same pixels and find the same centres
 * again, so they are skipped: the result is the one all iterations give.
 * moved[pass] is 0 (written by that pass's km_assign) until its km_reduce
 * moves a centre; a pass whose previous pass moved none returns at once
 * (and leaves its own word 0, so the rest of the frame's passes do too).
 *
 * At 16 bits (CLV_DEPTH 16) km_seed, km_assign and km_map have 16-bit
 * versions of their own (after the 8-bit ones), km_reduce is shared: the
 * same definition, squared distances in 64 bits. */

#if CLV_DEPTH == 8

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
 * float and ties still go to the lower index. cf[j] = (-2c, ||c||^2).
 *
 * With k <= KM_PACK_K the centre's index rides in the low bits: cf[j] =
 * (-2Sc, S||c||^2 + j) with S = KM_PACK_K, so the least key S.d + j is the
 * least distance, the lower index on a tie, and one fmin a centre replaces
 * compare, select and fmin. Exact: the sums fall from S||c||^2 + j to
 * S.d + j (p, c >= 0) and |S.d| <= S * 3 * 255^2, so every one is an
 * integer below 2^24 in magnitude; key & (S - 1) is j (two's complement). */
#define KM_PACK_K 64

/* The nearest centres of one (T float, IT int), four or eight pixels,
 * given as their channels. */
#define KM_NEAREST(name, T, IT)                                                                    \
    inline IT name(T r, T g, T b, __local const float4 *cf, int k)                                 \
    {                                                                                              \
        T best = (T)(INFINITY);                                                                    \
        if (k <= KM_PACK_K) {                                                                      \
            for (int j = 0; j < k; ++j) {                                                          \
                const float4 c = cf[j];                                                            \
                best = fmin(fma(b, (T)(c.z), fma(g, (T)(c.y), fma(r, (T)(c.x), (T)(c.w)))), best); \
            }                                                                                      \
            return convert_##IT(best) & (IT)(KM_PACK_K - 1);                                       \
        }                                                                                          \
        IT at = (IT)(0);                                                                           \
        for (int j = 0; j < k; ++j) {                                                              \
            const float4 c = cf[j];                                                                \
            const T d = fma(b, (T)(c.z), fma(g, (T)(c.y), fma(r, (T)(c.x), (T)(c.w))));            \
            at = select(at, (IT)(j), isless(d, best));                                             \
            best = fmin(d, best);                                                                  \
        }                                                                                          \
        return at;                                                                                 \
    }
KM_NEAREST(km_nearest1, float, int)
KM_NEAREST(km_nearest4, float4, int4)
KM_NEAREST(km_nearest8, float8, int8)

/* Fills cf (see above) and the palette from the centres; a work-group's
 * first step. */
inline void km_centres_f(__constant int4 *centres, int k, __local float4 *cf, __local uchar4 *pal)
{
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const int s = k <= KM_PACK_K ? KM_PACK_K : 1;
    for (int j = lid; j < k; j += (int)(get_local_size(0) * get_local_size(1))) {
        const int4 c = centres[j];
        cf[j] = (float4)((float)(-2 * s * c.x), (float)(-2 * s * c.y), (float)(-2 * s * c.z),
                         (float)(s * (c.x * c.x + c.y * c.y + c.z * c.z) + (s > 1 ? j : 0)));
        if (pal)
            pal[j] = (uchar4)((uchar)c.x, (uchar)c.y, (uchar)c.z, 0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

#define KM_TILE 256
#define KM_RUN 8 /* GPU shape: pixels side by side per work-item in km_assign (km_nearest8) */

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

/* partial[j][group] = (sum r, sum g, sum b, count) of the pixels of that
 * group's share nearest to centre j (centre-major, so that km_reduce reads
 * each centre's sums side by side). */
__kernel void km_assign(__global const uchar4 *src, int w, int h, int stride,
                        __constant int4 *centres, int k, __global uint *partial,
                        __global int *moved, int pass)
{
    if (get_global_id(0) == 0)
        moved[pass] = 0;
    if (pass > 0 && moved[pass - 1] == 0)
        return; /* the same for every work-item: the centres have settled */
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
    const size_t g = get_global_id(0), groups = get_global_size(0);
    for (int i = 0; i < 4 * k; ++i)
        partial[((size_t)(i >> 2) * groups + g) * 4 + (i & 3)] = sums[i];
#else
    __local uint sums[256 * 4];
    __local float4 cf[256];
    const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
    for (int i = lid; i < 4 * k; i += lsize)
        sums[i] = 0;
    km_centres_f(centres, k, cf, 0);
    /* The frame is read as one run of w * h pixels (< 2^31), in units of
     * lsize * KM_RUN: a work-item takes KM_RUN neighbours, finds their
     * nearest centres with the centres in the outer loop (one load of a
     * centre for KM_RUN pixels), and adds a run of pixels with the same
     * centre in registers, going to the shared sums only when the centre
     * changes: in a natural picture neighbours mostly share one, and the
     * whole group adding to the same four words one pixel at a time queued
     * its atomics. The host gives each group the same number of units, so
     * no group is left to finish alone. The sums are integers: the order
     * does not matter. */
    const uint total = (uint)w * (uint)h, seg = (uint)(lsize * KM_RUN);
    const uint units = (total + seg - 1) / seg, ng = (uint)get_num_groups(0);
    const uint step = ng * seg, step_y = step / (uint)w, step_x = step % (uint)w;
    uint at0 = (uint)get_group_id(0) * seg + (uint)lid * KM_RUN;
    int y = (int)(at0 / (uint)w), x = (int)(at0 % (uint)w);
    int cur = -1;
    uint sr = 0, sg = 0, sb = 0, n = 0;
    for (uint u = (uint)get_group_id(0); u < units; u += ng) {
        if (at0 < total) {
            /* Named values, not arrays: a private array indexed in a loop
             * the compiler does not unroll lives in memory. Eight pixels of
             * one row from a 16-pixel-aligned start (frame strides are
             * multiples of 16 pixels): two 16-byte loads. */
            const int m = (int)min((uint)KM_RUN, total - at0);
            uchar4 p0, p1, p2, p3, p4, p5, p6, p7;
            if (m == KM_RUN && (x & 3) == 0 && x + KM_RUN <= w) {
                const __global uchar16 *v = (const __global uchar16 *)(src + y * stride + x);
                const uchar16 a = v[0], b = v[1];
                p0 = a.s0123, p1 = a.s4567, p2 = a.s89ab, p3 = a.scdef;
                p4 = b.s0123, p5 = b.s4567, p6 = b.s89ab, p7 = b.scdef;
            } else {
                int xx = x, yy = y;
#define KM_LOAD(i)                                                                                 \
    p##i = i < m ? src[yy * stride + xx] : (uchar4)(0);                                            \
    if (++xx == w) {                                                                               \
        xx = 0;                                                                                    \
        ++yy;                                                                                      \
    }                                                                                              \
    (void)0
                KM_LOAD(0);
                KM_LOAD(1);
                KM_LOAD(2);
                KM_LOAD(3);
                KM_LOAD(4);
                KM_LOAD(5);
                KM_LOAD(6);
                KM_LOAD(7);
#undef KM_LOAD
            }
            const int8 at = km_nearest8(
                convert_float8((uchar8)(p0.x, p1.x, p2.x, p3.x, p4.x, p5.x, p6.x, p7.x)),
                convert_float8((uchar8)(p0.y, p1.y, p2.y, p3.y, p4.y, p5.y, p6.y, p7.y)),
                convert_float8((uchar8)(p0.z, p1.z, p2.z, p3.z, p4.z, p5.z, p6.z, p7.z)), cf, k);
#define KM_ADD(i, j)                                                                               \
    do {                                                                                           \
        if (i >= m)                                                                                \
            break;                                                                                 \
        if (j != cur) {                                                                            \
            if (n) {                                                                               \
                atomic_add(&sums[4 * cur], sr);                                                    \
                atomic_add(&sums[4 * cur + 1], sg);                                                \
                atomic_add(&sums[4 * cur + 2], sb);                                                \
                atomic_add(&sums[4 * cur + 3], n);                                                 \
            }                                                                                      \
            cur = j;                                                                               \
            sr = sg = sb = n = 0;                                                                  \
        }                                                                                          \
        sr += p##i.x;                                                                              \
        sg += p##i.y;                                                                              \
        sb += p##i.z;                                                                              \
        n++;                                                                                       \
    } while (0)
            KM_ADD(0, at.s0);
            KM_ADD(1, at.s1);
            KM_ADD(2, at.s2);
            KM_ADD(3, at.s3);
            KM_ADD(4, at.s4);
            KM_ADD(5, at.s5);
            KM_ADD(6, at.s6);
            KM_ADD(7, at.s7);
#undef KM_ADD
        }
        at0 += step;
        x += (int)step_x;
        y += (int)step_y;
        if (x >= w) {
            x -= w;
            ++y;
        }
    }
    if (n) {
        atomic_add(&sums[4 * cur], sr);
        atomic_add(&sums[4 * cur + 1], sg);
        atomic_add(&sums[4 * cur + 2], sb);
        atomic_add(&sums[4 * cur + 3], n);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const size_t g = get_group_id(0), groups = get_num_groups(0);
    for (int i = lid; i < 4 * k; i += lsize)
        partial[((size_t)(i >> 2) * groups + g) * 4 + (i & 3)] = sums[i];
#endif
}

#else /* CLV_DEPTH == 16 */

__kernel void km_seed(__global const ushort4 *src, int w, int h, int stride,
                      __global int4 *centres, int k)
{
    const int i = (int)get_global_id(0);
    if (i >= k)
        return;
    const ulong idx = (ulong)i * ((ulong)w * (ulong)h) / (ulong)k;
    const int x = (int)(idx % (ulong)w), y = (int)(idx / (ulong)w);
    const ushort4 p = src[y * stride + x];
    centres[i] = (int4)(p.x, p.y, p.z, 0);
}

/* The nearest centre to (r, g, b) as the least key d << 8 | j: d, the
 * squared distance, is below 3 * 2^32 (each square below 2^32 as a uint),
 * so the key fits 64 bits, orders by distance, and a tie goes to the
 * lower index j (k <= 256). */
inline ulong km_key16(int r, int g, int b, int4 c, int j)
{
    const uint dr = abs(r - c.x), dg = abs(g - c.y), db = abs(b - c.z);
    return ((ulong)(dr * dr) + (ulong)(dg * dg) + (ulong)(db * db)) << 8 | (ulong)j;
}

#define KM_TILE 256

/* Row shape: the nearest centre of each pixel of a run of n <= KM_TILE
 * pixels, centres in the outer loop. */
inline void km_nearest_run16(__global const ushort4 *restrict px, __constant int4 *centres, int k,
                             int n, uchar *restrict at)
{
    ulong best[KM_TILE];
    for (int i = 0; i < n; ++i)
        best[i] = ULONG_MAX;
    for (int j = 0; j < k; ++j) {
        const int4 c = centres[j];
        for (int i = 0; i < n; ++i) {
            const ushort4 p = px[i];
            best[i] = min(best[i], km_key16(p.x, p.y, p.z, c, j));
        }
    }
    for (int i = 0; i < n; ++i)
        at[i] = (uchar)(best[i] & 255);
}

/* GPU shape: the nearest of the centres in local memory. */
inline int km_nearest16(ushort4 p, __local const int4 *cc, int k)
{
    ulong best = ULONG_MAX;
    for (int j = 0; j < k; ++j)
        best = min(best, km_key16(p.x, p.y, p.z, cc[j], j));
    return (int)(best & 255);
}

#define KM_RUN 8 /* GPU shape: consecutive pixels per work-item in km_assign */

/* As at 8 bits: partial[j][group] = (sum r, sum g, sum b, count), the host
 * keeping each group's pixels few enough that 32-bit sums of 16-bit values
 * do not wrap (GROUP_PX16, src/filters/quantize.c). */
__kernel void km_assign(__global const ushort4 *src, int w, int h, int stride,
                        __constant int4 *centres, int k, __global uint *partial,
                        __global int *moved, int pass)
{
    if (get_global_id(0) == 0)
        moved[pass] = 0;
    if (pass > 0 && moved[pass - 1] == 0)
        return; /* the same for every work-item: the centres have settled */
#if CLV_ROW
    uint sums[256 * 4];
    for (int i = 0; i < 4 * k; ++i)
        sums[i] = 0;
    uchar at[KM_TILE];
    for (int y = (int)get_global_id(0); y < h; y += (int)get_global_size(0)) {
        for (int x0 = 0; x0 < w; x0 += KM_TILE) {
            const int n = min(KM_TILE, w - x0);
            __global const ushort4 *px = src + y * stride + x0;
            km_nearest_run16(px, centres, k, n, at);
            for (int i = 0; i < n; ++i) {
                const int j = at[i];
                const ushort4 p = px[i];
                sums[4 * j] += p.x;
                sums[4 * j + 1] += p.y;
                sums[4 * j + 2] += p.z;
                sums[4 * j + 3] += 1;
            }
        }
    }
    const size_t g = get_global_id(0), groups = get_global_size(0);
    for (int i = 0; i < 4 * k; ++i)
        partial[((size_t)(i >> 2) * groups + g) * 4 + (i & 3)] = sums[i];
#else
    __local uint sums[256 * 4];
    __local int4 cc[256];
    const int lid = (int)get_local_id(0), lsize = (int)get_local_size(0);
    for (int i = lid; i < 4 * k; i += lsize)
        sums[i] = 0;
    for (int j = lid; j < k; j += lsize)
        cc[j] = centres[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The frame as one run of w * h pixels in units of lsize * KM_RUN, the
     * units dealt to the groups in turn (as at 8 bits: the host's group
     * count gives each the same number); a work-item takes KM_RUN
     * neighbours and adds a run of pixels with the same centre in
     * registers, going to the shared sums only when the centre changes. */
    const uint total = (uint)w * (uint)h, seg = (uint)(lsize * KM_RUN);
    const uint units = (total + seg - 1) / seg, ng = (uint)get_num_groups(0);
    int cur = -1;
    uint sr = 0, sg = 0, sb = 0, n = 0;
    for (uint u = (uint)get_group_id(0); u < units; u += ng) {
        const uint at0 = u * seg + (uint)lid * KM_RUN;
        int y = (int)(at0 / (uint)w), x = (int)(at0 % (uint)w);
        for (uint i = at0; i < min(at0 + KM_RUN, total); ++i) {
            const ushort4 p = src[y * stride + x];
            if (++x == w) {
                x = 0;
                ++y;
            }
            const int j = km_nearest16(p, cc, k);
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
    if (n) {
        atomic_add(&sums[4 * cur], sr);
        atomic_add(&sums[4 * cur + 1], sg);
        atomic_add(&sums[4 * cur + 2], sb);
        atomic_add(&sums[4 * cur + 3], n);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const size_t g = get_group_id(0), groups = get_num_groups(0);
    for (int i = lid; i < 4 * k; i += lsize)
        partial[((size_t)(i >> 2) * groups + g) * 4 + (i & 3)] = sums[i];
#endif
}

#endif /* CLV_DEPTH */

/* New centre j = rounded mean of its pixels; an empty cluster keeps its
 * centre. */
__kernel void km_reduce(__global const uint *partial, int groups, int k, __global int4 *centres,
                        __global int *moved, int pass)
{
    if (pass > 0 && moved[pass - 1] == 0)
        return;
#if CLV_ROW
    const int j = (int)get_global_id(0);
    if (j >= k)
        return;
    ulong r = 0, g = 0, b = 0, n = 0;
    for (int i = 0; i < groups; ++i) {
        __global const uint *s = partial + ((size_t)j * groups + i) * 4;
        r += s[0];
        g += s[1];
        b += s[2];
        n += s[3];
    }
#else
    /* One work-group of 256 per centre: its groups' sums read side by side
     * and added in a tree (one work-item walking them all waited on memory
     * for most of each iteration). */
    __local ulong4 acc[256];
    const int j = (int)get_group_id(0), lid = (int)get_local_id(0);
    ulong4 mine = (ulong4)0;
#pragma unroll 4
    for (int i = lid; i < groups; i += 256)
        mine += convert_ulong4(vload4(0, partial + ((size_t)j * groups + i) * 4));
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
    if (!n)
        return;
    const int4 c =
        (int4)((int)((r + n / 2) / n), (int)((g + n / 2) / n), (int)((b + n / 2) / n), 0);
    if (any(c != centres[j])) {
        centres[j] = c;
        atomic_or(moved + pass, 1);
    }
}

#if CLV_DEPTH == 8

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
    __local uchar4 pal[256];
    km_centres_f(centres, k, cf, pal);
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * CLV_PX;
    if (y >= h || x0 >= w)
        return;
    if (x0 + 4 <= w) {
        /* Four pixels in one aligned 16-byte load (strides are multiples of
         * 16 pixels) and one store. */
        const uchar16 q = *(__global const uchar16 *)(src + y * stride + x0);
        const int4 at = km_nearest4(convert_float4(q.s048c), convert_float4(q.s159d),
                                    convert_float4(q.s26ae), cf, k);
        const uchar4 c0 = pal[at.s0], c1 = pal[at.s1], c2 = pal[at.s2], c3 = pal[at.s3];
        *(__global uchar16 *)(dst + y * stride + x0) =
            (uchar16)(c0.x, c0.y, c0.z, q.s3, c1.x, c1.y, c1.z, q.s7, c2.x, c2.y, c2.z, q.sb, c3.x,
                      c3.y, c3.z, q.sf);
        return;
    }
    for (int x = x0; x < w; ++x) {
        const uchar4 p = src[y * stride + x];
        const uchar4 c = pal[km_nearest1(p.x, p.y, p.z, cf, k)];
        dst[y * stride + x] = (uchar4)(c.x, c.y, c.z, p.w);
    }
#endif
}

#else /* CLV_DEPTH == 16 */

__kernel void km_map(CLV_FRAME_ARGS, __constant int4 *centres, int k)
{
#if CLV_ROW
    CLV_ROW_Y(y);
    uchar at[KM_TILE];
    for (int x0 = 0; x0 < w; x0 += KM_TILE) {
        const int n = min(KM_TILE, w - x0);
        __global const ushort4 *px = src + y * stride + x0;
        __global ushort4 *out = dst + y * stride + x0;
        km_nearest_run16(px, centres, k, n, at);
        for (int i = 0; i < n; ++i) {
            const int4 c = centres[at[i]];
            out[i] = (ushort4)((ushort)c.x, (ushort)c.y, (ushort)c.z, px[i].w);
        }
    }
#else
    __local int4 cc[256];
    const int lid = (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    for (int j = lid; j < k; j += (int)(get_local_size(0) * get_local_size(1)))
        cc[j] = centres[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const ushort4 p = src[y * stride + x];
        const int4 c = cc[km_nearest16(p, cc, k)];
        dst[y * stride + x] = (ushort4)((ushort)c.x, (ushort)c.y, (ushort)c.z, p.w);
    }
#endif
}

#endif /* CLV_DEPTH */
