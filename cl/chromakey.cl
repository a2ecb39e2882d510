/* chromakey.cl - ffmpeg's chromakey (src/filters/chromakey.c): each
 * pixel's Cb, Cr (BT.601 limited range, ycbcr.cl, rounded to codes), and
 * over its 3x3 neighbourhood (outside the frame: the key, distance 0) the
 * sum S of floor(sqrt(du^2 + dv^2) * 2^CK_F) to the key's U, V; the alpha
 * a level of the host's table (keys.cl). R, G and B pass unchanged. */
#include "ycbcr.cl"
#include "isqrt.cl"
#include "keys.cl"

#if CLV_DEPTH == 16
#define CK_F 10
#else
#define CK_F 16
#endif

/* The code of Cb (j = 1) or Cr (j = 2) of a pixel. */
inline long chroma_code(const ycc_t *k, int j, __global const clv_px *p)
{
    const clv_px v = *p;
    return ((long)ycc_component(k, j, v.x, v.y, v.z) + 128) >> 8;
}

/* floor(sqrt(du^2 + dv^2) * 2^CK_F) of the pixel at p: its part of S. */
inline long chromakey_root(const ycc_t *k, __global const clv_px *p, int ku, int kv)
{
    const long du = chroma_code(k, 1, p) - ku, dv = chroma_code(k, 2, p) - kv;
    return (long)clv_isqrt64((ulong)(du * du + dv * dv) << (2 * CK_F));
}

#if CLV_ROW
/* The row shape in chunks of CK_CHUNK pixels: each pixel's root once per
 * row of the three (the column sums), then S as three columns' sum. */
#define CK_CHUNK 256

__kernel void chromakey(CLV_FRAME_ARGS, __global const long *m, __global const long *t, int ku,
                        int kv)
{
    ycc_t k[24];
    ycc_load(m, k);
    CLV_ROW_Y(y);
    long col[CK_CHUNK + 2];
    for (int x0 = 0; x0 < w; x0 += CK_CHUNK) {
        const int len = min(CK_CHUNK, w - x0);
        /* col[i]: the column x0 + i - 1, 0 outside the frame */
        for (int i = 0; i < len + 2; i++) {
            const int x = x0 + i - 1;
            long c = 0;
            if (x >= 0 && x < w)
                for (int yy = max(y - 1, 0); yy <= min(y + 1, h - 1); yy++)
                    c += chromakey_root(k, src + yy * stride + x, ku, kv);
            col[i] = c;
        }
        for (int i = 0; i < len; i++) {
            clv_px p = src[y * stride + x0 + i];
            p.w = key_level(t, col[i] + col[i + 1] + col[i + 2]);
            dst[y * stride + x0 + i] = p;
        }
    }
}
#else
inline long chromakey_sum(const ycc_t *k, __global const clv_px *src, int w, int h, int stride,
                          int x, int y, int ku, int kv)
{
    long s = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            const int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < w && yy >= 0 && yy < h)
                s += chromakey_root(k, src + yy * stride + xx, ku, kv);
        }
    return s;
}

__kernel void chromakey(CLV_FRAME_ARGS, __global const long *m, __global const long *t, int ku,
                        int kv)
{
    ycc_t k[24];
    ycc_load(m, k);
    CLV_POINT_PIXELS(x, y, r, g, b, a,
                     a = key_level(t, chromakey_sum(k, src, w, h, stride, x, y, ku, kv)));
}
#endif
