/* nlmeans.cl - non-local means on R, G, B (src/filters/nlmeans.c defines
 * it): for every offset o of the research window (|ox|, |oy| <= r, o != 0)
 * and sample x with x + o inside the picture, the patch distance D (the sum
 * of (v(x + o + e) - v(x + e))^2 over |ex|, |ey| <= p, coordinates clamped)
 * gives the weight table[min(D >> shift, count - 1)] (Q16) of v(x + o);
 * the sample itself weighs 65536. The sums are integers: distances in
 * 32 bits at 8 bits (at most 255^2 * 99^2), 64 at 16; the weights' sum in
 * 32 bits (at most 65536 * 99^2); weight * value in 64 bits, at 8 bits
 * through 32-bit partial sums of NLM_FLUSH offsets (65536 * 255 each). */

#if CLV_DEPTH == 8
typedef uint nlm_d;
typedef uint8 nlm_d8;
typedef uint nlm_part;
#define NLM_FLUSH 255
#else
typedef ulong nlm_d;
typedef ulong8 nlm_d8;
typedef ulong nlm_part;
#define NLM_FLUSH 0x7fffffff
#endif

/* d^2 at the distances' width (65535^2 needs 32 unsigned bits; at 8 bits
 * 255^2 fits 16, where CPUs multiply twice as many lanes at once). */
inline nlm_d nlm_sq(int d)
{
#if CLV_DEPTH == 8
    const ushort a = (ushort)abs(d);
    return (nlm_d)(ushort)(a * a);
#else
    const nlm_d a = (nlm_d)abs(d);
    return a * a;
#endif
}

/* The weight of a distance. */
inline uint nlm_weight(nlm_d d, __global const uint *restrict table, int count, int shift)
{
    /* an int index: CPUs gather with 32-bit indices then */
    return table[(int)min(d >> shift, (nlm_d)(count - 1))];
}

/* n / d for d > 0 and a quotient below 2^16, exactly, without a 64-bit
 * division (which does not vectorize, and took as long as the taps of a
 * small disc): the float quotient is within a few units in its last place,
 * less than 1 here, and one step each way in integers corrects it. */
inline uint nlm_div(ulong n, ulong d)
{
    uint q = (uint)((float)n / (float)d);
    q -= (ulong)q * d > n;
    q += (ulong)(q + 1) * d <= n;
    return q;
}

/* The output sample from its sums and the sample itself. */
inline clv_ch nlm_out(ulong num, uint den, uint v)
{
    const ulong n = num + 65536ul * v, d = (ulong)den + 65536ul;
    return (clv_ch)nlm_div(n + d / 2, d);
}

#if CLV_ROW
/* The row shape: a work-item makes a tile of NLM_TW x NLM_TH pixels, each
 * channel in arrays of its own (the loops over a row's pixels load R, G
 * and B apart and vectorize). For each offset it keeps col: each column's
 * sum of squared differences over the patch's 2p + 1 rows around the
 * tile's row, slid down a row at a time; a pixel's D sums 2p + 1 columns
 * of col. */
#define NLM_TW 64
#define NLM_TH 16
#define NLM_PMAX 49
#define NLM_COLS (NLM_TW + 2 * NLM_PMAX + 8)

/* The squared difference of channel c at ra[xa] and rb[xb]. */
#define NLM_SQ(ra, xa, rb, xb, c) nlm_sq((int)(ra)[4 * (xa) + (c)] - (int)(rb)[4 * (xb) + (c)])

/* col (three arrays) += the squared differences of rows a (offset) and b
 * for the columns from xs, sign 1; with a2, b2 (sign -1) too when out. */
#define NLM_COL_ROW(op, xa, xb)                                                                    \
    for (int k = 0; k < ncol; k++) {                                                               \
        col0[k] op NLM_SQ(ra, xa, rb, xb, 0);                                                      \
        col1[k] op NLM_SQ(ra, xa, rb, xb, 1);                                                      \
        col2[k] op NLM_SQ(ra, xa, rb, xb, 2);                                                      \
    }

__kernel void nlmeans(CLV_FRAME_ARGS, int p, int r, __global const uint *restrict table, int count,
                      int shift)
{
    const int tx0 = (int)get_global_id(0) * NLM_TW, ty0 = (int)get_global_id(1) * NLM_TH;
    if (tx0 >= w || ty0 >= h)
        return;
    const int tw = min(NLM_TW, w - tx0), th = min(NLM_TH, h - ty0);
    const int ncol = tw + 2 * p, xs = tx0 - p, span = 2 * p;
    /* no clamping for any offset: the tile and its reach inside */
    const int inside =
        tx0 - r - p >= 0 && tx0 + tw + r + p <= w && ty0 - r - p >= 0 && ty0 + th + r + p <= h;
    uint den[3][NLM_TH][NLM_TW];
    nlm_part part[3][NLM_TH][NLM_TW];
    ulong num[3][NLM_TH][NLM_TW];
    nlm_d col0[NLM_COLS], col1[NLM_COLS], col2[NLM_COLS];
    nlm_d dist0[NLM_TW], dist1[NLM_TW], dist2[NLM_TW];
    for (int c = 0; c < 3; c++)
        for (int yy = 0; yy < th; yy++)
            for (int x = 0; x < tw; x++) {
                den[c][yy][x] = 0;
                part[c][yy][x] = 0;
                num[c][yy][x] = 0;
            }
    int pending = 0;
    for (int oy = -r; oy <= r; oy++)
        for (int ox = -r; ox <= r; ox++) {
            if (!ox && !oy)
                continue;
            /* col for the tile's first row: rows ty0 - p .. ty0 + p */
            for (int k = 0; k < ncol; k++)
                col0[k] = col1[k] = col2[k] = 0;
            for (int j = -p; j <= p; j++) {
                const int zy = ty0 + j;
                __global const clv_ch *restrict ra =
                    (__global const clv_ch *)(src + clamp(zy + oy, 0, h - 1) * stride);
                __global const clv_ch *restrict rb =
                    (__global const clv_ch *)(src + clamp(zy, 0, h - 1) * stride);
                if (inside) {
                    ra += 4 * (xs + ox);
                    rb += 4 * xs;
                    NLM_COL_ROW(+=, k, k);
                } else {
                    NLM_COL_ROW(+=, clamp(xs + k + ox, 0, w - 1), clamp(xs + k, 0, w - 1));
                }
            }
            const int xlo = max(0, -ox), xhi = min(w, w - ox); /* x + ox inside */
            for (int yy = 0; yy < th; yy++) {
                const int y = ty0 + yy;
                if (yy > 0) {
                    /* slide down: row y + p in, row y - p - 1 out */
                    const int zi = y + p, zo = y - p - 1;
                    __global const clv_ch *restrict ra =
                        (__global const clv_ch *)(src + clamp(zi + oy, 0, h - 1) * stride);
                    __global const clv_ch *restrict rb =
                        (__global const clv_ch *)(src + clamp(zi, 0, h - 1) * stride);
                    __global const clv_ch *restrict ao =
                        (__global const clv_ch *)(src + clamp(zo + oy, 0, h - 1) * stride);
                    __global const clv_ch *restrict bo =
                        (__global const clv_ch *)(src + clamp(zo, 0, h - 1) * stride);
                    if (inside) {
                        ra += 4 * (xs + ox);
                        rb += 4 * xs;
                        ao += 4 * (xs + ox);
                        bo += 4 * xs;
                        for (int k = 0; k < ncol; k++) {
                            col0[k] += NLM_SQ(ra, k, rb, k, 0) - NLM_SQ(ao, k, bo, k, 0);
                            col1[k] += NLM_SQ(ra, k, rb, k, 1) - NLM_SQ(ao, k, bo, k, 1);
                            col2[k] += NLM_SQ(ra, k, rb, k, 2) - NLM_SQ(ao, k, bo, k, 2);
                        }
                    } else {
                        for (int k = 0; k < ncol; k++) {
                            const int xa = clamp(xs + k + ox, 0, w - 1),
                                      xb = clamp(xs + k, 0, w - 1);
                            col0[k] += NLM_SQ(ra, xa, rb, xb, 0) - NLM_SQ(ao, xa, bo, xb, 0);
                            col1[k] += NLM_SQ(ra, xa, rb, xb, 1) - NLM_SQ(ao, xa, bo, xb, 1);
                            col2[k] += NLM_SQ(ra, xa, rb, xb, 2) - NLM_SQ(ao, xa, bo, xb, 2);
                        }
                    }
                }
                if (y + oy < 0 || y + oy >= h)
                    continue;
                /* the patches' distances: 2p + 1 columns of col, eight
                 * pixels at a time in a vector (past tw: unused) */
                for (int x = 0; x < tw; x += 8) {
                    nlm_d8 d0 = vload8(0, col0 + x), d1 = vload8(0, col1 + x),
                           d2 = vload8(0, col2 + x);
                    for (int i = 1; i <= span; i++) {
                        d0 += vload8(0, col0 + x + i);
                        d1 += vload8(0, col1 + x + i);
                        d2 += vload8(0, col2 + x + i);
                    }
                    vstore8(d0, 0, dist0 + x);
                    vstore8(d1, 0, dist1 + x);
                    vstore8(d2, 0, dist2 + x);
                }
                __global const clv_ch *restrict nb =
                    (__global const clv_ch *)(src + (y + oy) * stride);
                if (inside) {
                    nb += 4 * (tx0 + ox);
                    for (int x = 0; x < tw; x++) {
                        const uint w0 = nlm_weight(dist0[x], table, count, shift),
                                   w1 = nlm_weight(dist1[x], table, count, shift),
                                   w2 = nlm_weight(dist2[x], table, count, shift);
                        den[0][yy][x] += w0;
                        den[1][yy][x] += w1;
                        den[2][yy][x] += w2;
                        part[0][yy][x] += (nlm_part)w0 * (nlm_part)nb[4 * x];
                        part[1][yy][x] += (nlm_part)w1 * (nlm_part)nb[4 * x + 1];
                        part[2][yy][x] += (nlm_part)w2 * (nlm_part)nb[4 * x + 2];
                    }
                } else {
                    for (int x = 0; x < tw; x++) {
                        const int ok = tx0 + x >= xlo && tx0 + x < xhi,
                                  xn = 4 * clamp(tx0 + x + ox, 0, w - 1);
                        const uint w0 = ok ? nlm_weight(dist0[x], table, count, shift) : 0u,
                                   w1 = ok ? nlm_weight(dist1[x], table, count, shift) : 0u,
                                   w2 = ok ? nlm_weight(dist2[x], table, count, shift) : 0u;
                        den[0][yy][x] += w0;
                        den[1][yy][x] += w1;
                        den[2][yy][x] += w2;
                        part[0][yy][x] += (nlm_part)w0 * (nlm_part)nb[xn];
                        part[1][yy][x] += (nlm_part)w1 * (nlm_part)nb[xn + 1];
                        part[2][yy][x] += (nlm_part)w2 * (nlm_part)nb[xn + 2];
                    }
                }
            }
            if (++pending == NLM_FLUSH) {
                pending = 0;
                for (int c = 0; c < 3; c++)
                    for (int yy = 0; yy < th; yy++)
                        for (int x = 0; x < tw; x++) {
                            num[c][yy][x] += part[c][yy][x];
                            part[c][yy][x] = 0;
                        }
            }
        }
    for (int yy = 0; yy < th; yy++) {
        __global const clv_ch *restrict in = (__global const clv_ch *)(src + (ty0 + yy) * stride);
        __global clv_ch *restrict out = (__global clv_ch *)(dst + (ty0 + yy) * stride);
        for (int x = 0; x < tw; x++) {
            const int at = 4 * (tx0 + x);
            for (int c = 0; c < 3; c++)
                out[at + c] = nlm_out(num[c][yy][x] + part[c][yy][x], den[c][yy][x], in[at + c]);
            out[at + 3] = in[at + 3];
        }
    }
}
#else
/* The GPU shape, where the tile's reach fits local memory (the host's
 * choice): a work-group of 32 x 8 makes a tile of NLM_GTW x NLM_GTH
 * pixels, two rows a work-item. The picture around the tile (its reach p
 * + r, each coordinate clamped as the definition's) is read once into
 * img; then for each offset the squared differences of the tile and its
 * patch reach (sq), their sums down 2p + 1 rows (col), and each pixel's D
 * as the sum of 2p + 1 of those, all in local memory: a few operations a
 * pixel and offset whatever p. */
#define NLM_GTW 32
#define NLM_GTH 16
__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void
nlmeans_tile(CLV_FRAME_ARGS, int p, int r, __global const uint *restrict table, int count,
             int shift, __local clv_px *img, __local nlm_d *sq, __local nlm_d *col)
{
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), lid = ly * 32 + lx;
    const int tx0 = (int)get_group_id(0) * NLM_GTW, ty0 = (int)get_group_id(1) * NLM_GTH;
    const int reach = p + r, iw = NLM_GTW + 2 * reach, ih = NLM_GTH + 2 * reach;
    const int sw = NLM_GTW + 2 * p, sh = NLM_GTH + 2 * p, ss = sw * sh, cs = sw * NLM_GTH;
    for (int k = lid; k < iw * ih; k += 256) {
        const int iy = k / iw, ix = k - iy * iw;
        img[k] = CLV_AT(src, tx0 - reach + ix, ty0 - reach + iy);
    }
    uint den[2][3];
    ulong num[2][3];
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 3; c++) {
            den[i][c] = 0;
            num[i][c] = 0;
        }
    const int x = tx0 + lx;
    /* the offsets in turn, o = 0 too (it adds nothing: its pixels are
     * skipped), each iteration's barriers reached by every work-item */
    for (int o = 0; o < (2 * r + 1) * (2 * r + 1); o++) {
        const int oy = o / (2 * r + 1) - r, ox = o % (2 * r + 1) - r;
        barrier(CLK_LOCAL_MEM_FENCE); /* img loaded; col read by the last offset */
        /* sq: z over the tile and its patch reach, (v(z + o) - v(z))^2 */
        for (int k = lid; k < ss; k += 256) {
            const int sy = k / sw, sx = k - sy * sw;
            const int at = (sy + r) * iw + sx + r;
            const int4 a = clv_int4(img[at + oy * iw + ox]), b = clv_int4(img[at]);
            const int4 e = a - b;
            sq[k] = nlm_sq(e.x);
            sq[ss + k] = nlm_sq(e.y);
            sq[2 * ss + k] = nlm_sq(e.z);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* col: the sums of 2p + 1 rows of sq for the tile's rows */
        for (int k = lid; k < cs; k += 256) {
            const int cy = k / sw, cx = k - cy * sw;
            nlm_d c0 = 0, c1 = 0, c2 = 0;
            for (int j = 0; j <= 2 * p; j++) {
                const int at = (cy + j) * sw + cx;
                c0 += sq[at];
                c1 += sq[ss + at];
                c2 += sq[2 * ss + at];
            }
            col[k] = c0;
            col[cs + k] = c1;
            col[2 * cs + k] = c2;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = 0; i < 2; i++) {
            const int ty = ly + 8 * i, y = ty0 + ty;
            if ((ox || oy) && x + ox >= 0 && x + ox < w && y < h && y + oy >= 0 && y + oy < h) {
                nlm_d d0 = 0, d1 = 0, d2 = 0;
                for (int e = 0; e <= 2 * p; e++) {
                    const int at = ty * sw + lx + e;
                    d0 += col[at];
                    d1 += col[cs + at];
                    d2 += col[2 * cs + at];
                }
                const int4 q = clv_int4(img[(ty + reach + oy) * iw + lx + reach + ox]);
                const uint w0 = nlm_weight(d0, table, count, shift),
                           w1 = nlm_weight(d1, table, count, shift),
                           w2 = nlm_weight(d2, table, count, shift);
                den[i][0] += w0;
                den[i][1] += w1;
                den[i][2] += w2;
                /* a weight (at most 65536) times a value fits 32 bits */
                num[i][0] += w0 * (uint)q.x;
                num[i][1] += w1 * (uint)q.y;
                num[i][2] += w2 * (uint)q.z;
            }
        }
    }
    if (x >= w)
        return;
    for (int i = 0; i < 2; i++) {
        const int y = ty0 + ly + 8 * i;
        if (y >= h)
            continue;
        const clv_px v = src[y * stride + x];
        dst[y * stride + x] =
            (clv_px)(nlm_out(num[i][0], den[i][0], v.x), nlm_out(num[i][1], den[i][1], v.y),
                     nlm_out(num[i][2], den[i][2], v.z), v.w);
    }
}

/* The GPU shape: a work-item makes CLV_PX pixels of a row; for each offset
 * it sums the patch's columns one by one (each column's 2p + 1 squared
 * differences), adding each into the distances of the pixels whose patch
 * holds it. */
__kernel void nlmeans(CLV_FRAME_ARGS, int p, int r, __global const uint *restrict table, int count,
                      int shift)
{
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * CLV_PX;
    if (y >= h || x0 >= w)
        return;
    uint den[CLV_PX][3];
    ulong num[CLV_PX][3];
    for (int i = 0; i < CLV_PX; i++)
        for (int c = 0; c < 3; c++) {
            den[i][c] = 0;
            num[i][c] = 0;
        }
    for (int oy = -r; oy <= r; oy++) {
        if (y + oy < 0 || y + oy >= h)
            continue;
        for (int ox = -r; ox <= r; ox++) {
            if (!ox && !oy)
                continue;
            nlm_d d[CLV_PX][3];
            for (int i = 0; i < CLV_PX; i++)
                d[i][0] = d[i][1] = d[i][2] = 0;
            /* column k of the patches: x0 - p + k, for k in 0 .. 2p + CLV_PX - 1 */
            for (int k = 0; k < 2 * p + CLV_PX; k++) {
                const int zx = x0 - p + k;
                nlm_d c0 = 0, c1 = 0, c2 = 0;
                for (int j = -p; j <= p; j++) {
                    const int4 a = clv_int4(CLV_AT(src, zx + ox, y + j + oy)),
                               b = clv_int4(CLV_AT(src, zx, y + j));
                    const int4 e = a - b;
                    c0 += nlm_sq(e.x);
                    c1 += nlm_sq(e.y);
                    c2 += nlm_sq(e.z);
                }
                for (int i = 0; i < CLV_PX; i++)
                    if (k >= i && k <= i + 2 * p) {
                        d[i][0] += c0;
                        d[i][1] += c1;
                        d[i][2] += c2;
                    }
            }
            for (int i = 0; i < CLV_PX; i++) {
                const int x = x0 + i;
                if (x + ox < 0 || x + ox >= w)
                    continue;
                const int4 q = clv_int4(src[(y + oy) * stride + x + ox]);
                const uint w0 = nlm_weight(d[i][0], table, count, shift),
                           w1 = nlm_weight(d[i][1], table, count, shift),
                           w2 = nlm_weight(d[i][2], table, count, shift);
                den[i][0] += w0;
                den[i][1] += w1;
                den[i][2] += w2;
                num[i][0] += (ulong)w0 * (ulong)q.x;
                num[i][1] += (ulong)w1 * (ulong)q.y;
                num[i][2] += (ulong)w2 * (ulong)q.z;
            }
        }
    }
    for (int i = 0; i < CLV_PX && x0 + i < w; i++) {
        const clv_px v = src[y * stride + x0 + i];
        dst[y * stride + x0 + i] =
            (clv_px)(nlm_out(num[i][0], den[i][0], v.x), nlm_out(num[i][1], den[i][1], v.y),
                     nlm_out(num[i][2], den[i][2], v.z), v.w);
    }
}
#endif
