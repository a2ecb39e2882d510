/* ycbcr.h - the Y'CbCr that eq and hue work on (cl/ycbcr.cl is the kernels'
 * side): ffmpeg's eq and hue adjust the planes of YUV frames, and clvid's
 * frames are RGB, so they convert each pixel to Y'CbCr, adjust it and
 * convert back.
 *
 * The matrix is BT.601 with limited range (Y' 16-235, Cb and Cr 16-240
 * about 128), fixed: it is what ffmpeg's own conversion (swscale with no
 * colour information, the yuv444p it picks for eq and hue on RGB input)
 * uses, so `ffmpeg -vf eq=...` on an RGB picture and clvid's eq agree, and
 * eq's and hue's numbers (brightness 0.1 is 25.6 codes, the chroma's
 * centre 128) mean on these codes what they mean in ffmpeg.
 *
 * A component is a code on the 8-bit scale (16-235 for Y') in fixed point
 * with P fractional bits: P = 8 at 8 bits, 16 at 16 bits, so its top bits
 * (v >> 8) are the 8-bit code at 8 bits and the 16-bit code (the 8-bit
 * code * 256, as ffmpeg's 16-bit YUV) at 16 bits. Conversions:
 *   v_j = (sum_i F[j][i] * X_i + F[j][3]) >> S   (X: R, G, B; j: Y', Cb, Cr)
 *   X_i = clamp((sum_j B[i][j] * v_j + B[i][3]) >> T, 0, maxv)
 * the coefficients rounded from the exact matrix and its inverse in double
 * (F with P + S fractional bits, B with T - P), S = 12 and T = 20 at 8
 * bits (the sums fit 32 bits), 16 and 24 in 64-bit arithmetic at 16 bits.
 * The fractions make the round trip exact: an RGB pixel of either depth
 * comes back unchanged when nothing is adjusted. */
#ifndef CLVID_FILTERS_YCBCR_H
#define CLVID_FILTERS_YCBCR_H

#include "filters.h"

/* F then B, each 3 rows of 4 (the layout cl/ycbcr.cl reads), and the
 * shifts S and T of their depth. */
typedef struct clv__ycc {
    cl_long k[24];
    int fwd_shift, inv_shift;
} clv__ycc;

/* The fractional bits of a component at a depth (8 or 16). */
static inline int clv__ycc_bits(int depth)
{
    return depth == 16 ? 16 : 8;
}

/* The coefficients for frames of depth (8 or 16). */
void clv__ycc_make(int depth, clv__ycc *m);

/* Uploads m into a new read-only buffer (*out); msg names `who`. */
int clv__ycc_upload(clv_context *ctx, const clv__ycc *m, cl_mem *out, const char *who,
                    clv_msg *msg);

static inline void clv__ycc_from_rgb(const clv__ycc *m, int r, int g, int b, int64_t v[3])
{
    for (int j = 0; j < 3; j++) {
        const cl_long *f = m->k + 4 * j;
        v[j] = (f[0] * r + f[1] * g + f[2] * b + f[3]) >> m->fwd_shift;
    }
}

/* Channel i (0 R, 1 G, 2 B) of the Y'CbCr v, at maxv's depth. */
static inline int clv__ycc_channel(const clv__ycc *m, const int64_t v[3], int i, int maxv)
{
    const cl_long *b = m->k + 12 + 4 * i;
    int64_t x = (b[0] * v[0] + b[1] * v[1] + b[2] * v[2] + b[3]) >> m->inv_shift;
    return x < 0 ? 0 : x > maxv ? maxv : (int)x;
}

#endif
