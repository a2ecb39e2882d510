/* ycbcr.c - the fixed-point BT.601 limited-range matrices of eq and hue
 * (ycbcr.h says why this matrix and how the components are scaled). */
#include "ycbcr.h"

#include <math.h>

void clv__ycc_make(int depth, clv__ycc *m)
{
    const double kr = 0.299, kb = 0.114, kg = 1 - kr - kb;
    /* Codes from R', G', B' in 0-1, less the offsets 16, 128, 128. */
    const double fwd[3][3] = {
        {219 * kr, 219 * kg, 219 * kb},
        {-112 * kr / (1 - kb), -112 * kg / (1 - kb), 112},
        {112, -112 * kg / (1 - kr), -112 * kb / (1 - kr)},
    };
    const double off[3] = {16, 128, 128};
    double inv[3][3];
    double det = fwd[0][0] * (fwd[1][1] * fwd[2][2] - fwd[1][2] * fwd[2][1]) -
                 fwd[0][1] * (fwd[1][0] * fwd[2][2] - fwd[1][2] * fwd[2][0]) +
                 fwd[0][2] * (fwd[1][0] * fwd[2][1] - fwd[1][1] * fwd[2][0]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            /* the cofactor of fwd[j][i] */
            int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
            inv[i][j] = (fwd[r0][c0] * fwd[r1][c1] - fwd[r0][c1] * fwd[r1][c0]) / det;
        }
    const int p = clv__ycc_bits(depth), fs = depth == 16 ? 16 : 12, is = depth == 16 ? 24 : 20;
    const double maxv = depth == 16 ? 65535 : 255;
    m->fwd_shift = fs;
    m->inv_shift = is;
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 3; i++)
            m->k[4 * j + i] = llround(fwd[j][i] * ldexp(1, p + fs) / maxv);
        m->k[4 * j + 3] = ((cl_long)off[j] << (p + fs)) + ((cl_long)1 << (fs - 1));
    }
    for (int i = 0; i < 3; i++) {
        cl_long *b = m->k + 12 + 4 * i;
        b[3] = (cl_long)1 << (is - 1);
        for (int j = 0; j < 3; j++) {
            b[j] = llround(inv[i][j] * maxv * ldexp(1, is - p));
            b[3] -= b[j] * ((cl_long)off[j] << p);
        }
    }
}

int clv__ycc_upload(clv_context *ctx, const clv__ycc *m, cl_mem *out, const char *who, clv_msg *msg)
{
    cl_int st = CL_SUCCESS;
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof m->k,
                          (void *)m->k, &st);
    if (st != CL_SUCCESS) {
        *out = NULL;
        return clv__fail(msg, CLV_ENOMEM, "%s: cannot allocate its Y'CbCr matrix: %s", who,
                         clv__cl_strerror(st));
    }
    return 0;
}
