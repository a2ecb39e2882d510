/* keys.h - what colorkey and chromakey share (keys.c; cl/keys.cl is the
 * kernels' side): the alpha of a pixel as a level looked up from its
 * distance to the key.
 *
 * ffmpeg computes the alpha in double from a distance d (colorkey: the sum
 * of the squared differences of R, G and B; chromakey: the sum of nine
 * square roots) by steps that never decrease as d grows (a square root, a
 * subtraction, a product, a clip, a truncation). So the alpha is a
 * staircase in d: a table t of maxv + 1 integers, t[k] the least d whose
 * alpha is k or more, gives it exactly by a binary search, alpha =
 * max { k : t[k] <= d }, in integers on every device. The host builds the
 * table once (configure) with ffmpeg's own double formula. */
#ifndef CLVID_FILTERS_KEYS_H
#define CLVID_FILTERS_KEYS_H

#include "filters.h"

/* A key's alpha (0 to maxv) at distance d, and where the level k starts
 * roughly (a guess the search starts from). */
typedef struct clv__key_curve {
    int (*alpha)(const void *arg, int64_t d);
    double (*guess)(const void *arg, int k);
    const void *arg;
} clv__key_curve;

/* t[0..maxv]: t[k] the least d in [0, dmax] whose alpha is k or more, or
 * dmax + 1 where there is none. */
void clv__key_levels(const clv__key_curve *c, int maxv, int64_t dmax, cl_long *t);

/* The alpha of distance d: the largest k with t[k] <= d (maxv + 1 a power
 * of two). */
static inline int clv__key_level(const cl_long *t, int maxv, int64_t d)
{
    int a = 0;
    for (int step = (maxv + 1) / 2; step; step >>= 1)
        if (t[a + step] <= d)
            a += step;
    return a;
}

/* A new read-only buffer of t's maxv + 1 entries (*out released first);
 * msg names `who`. */
int clv__key_upload(clv_context *ctx, const cl_long *t, int maxv, cl_mem *out, const char *who,
                    clv_msg *msg);

#endif
