/* ycbcr.cl - the Y'CbCr of eq and hue (src/filters/ycbcr.h defines it):
 * BT.601 limited range, each component a code on the 8-bit scale with
 * YCC_P fractional bits, from and to RGB by the host's fixed-point matrix
 * (24 coefficients: the forward rows, then the inverse rows). At 8 bits
 * every sum fits 32 bits (ycbcr.h's shifts are chosen so). A kernel copies
 * the matrix into private values first (ycc_load): read from the global
 * buffer inside the pixel loop, which the frame's stores might alias, the
 * coefficients kept PoCL's loops from vectorizing. */

#if CLV_DEPTH == 16
typedef long ycc_t;
#define YCC_P 16
#define YCC_FWD_SHIFT 16
#define YCC_INV_SHIFT 24
#else
typedef int ycc_t;
#define YCC_P 8
#define YCC_FWD_SHIFT 12
#define YCC_INV_SHIFT 20
#endif
#define YCC_TOP ((ycc_t)255 << YCC_P) /* the code 255 */

inline void ycc_load(__global const long *m, ycc_t *k)
{
    for (int i = 0; i < 24; i++)
        k[i] = (ycc_t)m[i];
}

inline ycc_t ycc_dot(const ycc_t *k, ycc_t a, ycc_t b, ycc_t c)
{
    return k[0] * a + k[1] * b + k[2] * c + k[3];
}

/* Component j (0 Y', 1 Cb, 2 Cr) of an RGB pixel. */
inline ycc_t ycc_component(const ycc_t *k, int j, ycc_t r, ycc_t g, ycc_t b)
{
    return ycc_dot(k + 4 * j, r, g, b) >> YCC_FWD_SHIFT;
}

/* Channel i (0 R, 1 G, 2 B) of Y', Cb, Cr, clamped to the depth. */
inline clv_ch ycc_channel(const ycc_t *k, int i, ycc_t y, ycc_t cb, ycc_t cr)
{
    return (clv_ch)clamp(ycc_dot(k + 12 + 4 * i, y, cb, cr) >> YCC_INV_SHIFT, (ycc_t)0,
                         (ycc_t)CLV_MAXV);
}
