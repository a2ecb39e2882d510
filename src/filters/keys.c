/* keys.c - the tables of levels of colorkey and chromakey (keys.h). */
#include "keys.h"

#include <math.h>

/* The least d in [lo, dmax] whose alpha is k or more (dmax + 1: none),
 * every d below lo known to be below k: from the guess e, outwards by
 * doubling steps to bracket the edge, then halving. */
static int64_t level_start(const clv__key_curve *c, int k, int64_t lo, int64_t dmax)
{
    double g = c->guess(c->arg, k);
    int64_t hi = !(g > (double)lo) ? lo : g > (double)dmax ? dmax + 1 : (int64_t)g;
    for (int64_t step = 1; hi <= dmax && c->alpha(c->arg, hi) < k; step *= 2) {
        lo = hi + 1;
        hi = hi + step > dmax ? dmax + 1 : hi + step;
    }
    for (int64_t step = 1, d = hi - 1; d >= lo; step *= 2, d -= step) {
        if (c->alpha(c->arg, d) < k) {
            lo = d + 1;
            break;
        }
        hi = d;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (c->alpha(c->arg, mid) >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return hi;
}

void clv__key_levels(const clv__key_curve *c, int maxv, int64_t dmax, cl_long *t)
{
    t[0] = 0;
    for (int k = 1; k <= maxv; k++)
        t[k] = t[k - 1] > dmax ? dmax + 1 : level_start(c, k, t[k - 1], dmax);
}

int clv__key_upload(clv_context *ctx, const cl_long *t, int maxv, cl_mem *out, const char *who,
                    clv_msg *msg)
{
    clv__mem_release(out);
    cl_int st = CL_SUCCESS;
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          (size_t)(maxv + 1) * sizeof *t, (void *)t, &st);
    if (st != CL_SUCCESS) {
        *out = NULL;
        return clv__fail(msg, CLV_ENOMEM, "%s: cannot allocate its table of levels: %s", who,
                         clv__cl_strerror(st));
    }
    return 0;
}
