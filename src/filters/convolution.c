/* convolution.c - square integer correlation: `convolution` with a user
 * matrix, and the family's kernel and reference that sharpen and emboss
 * reuse; at 8 and 16 bits (the bias on the 8-bit scale: times 257). */
#include "filters.h"

#include <stdio.h>
#include <stdlib.h>

/* The parameters, in the order of the table below. */
enum { CONVOLUTION_MATRIX, CONVOLUTION_DIV, CONVOLUTION_BIAS, CONVOLUTION_PARAM_COUNT };

static int effective_div(const int *matrix, int count, int div)
{
    if (div > 0)
        return div;
    int sum = 0;
    for (int i = 0; i < count; i++)
        sum += matrix[i];
    return sum > 0 ? sum : 1;
}

int clv__conv_init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    clv__conv *conv = state;
    (void)prog;
    cl_int st = CL_SUCCESS;
    conv->coef =
        clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, CLV_MATRIX_MAX * sizeof(cl_int), NULL, &st);
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ENOMEM, "convolution: cannot allocate the matrix: %s",
                         clv__cl_strerror(st));
    return 0;
}

/* Programs for single matrices a context may build before the rest get the
 * general kernel: each new matrix is a compile (the window's keys step a
 * convolution's divisor and bias), and the context holds 64 programs. */
#define CONV_VARIANTS_MAX 16

/* The program for this matrix. In the GPU shape a 3x3 is compiled with its
 * coefficients, divisor and bias as constants (CONV_K, CONV_DIV,
 * CONV_BIAS), which the compiler folds: zero taps vanish, a power-of-two
 * divisor is a shift, another an unsigned multiply-high (H100 4K,
 * clvid-bench: every 3x3 measured went from 66-88% of copy bandwidth to
 * 77-103%; cl/convolution.cl has the times). CPUs take the row kernel,
 * whose loops test the coefficients once a row. */
static int conv_program(clv__conv *conv, clv_context *ctx, const int *matrix, int count,
                        cl_program *out, clv_msg *msg)
{
    if (ctx->row_shape || count != 9)
        return clv__program_get(ctx, "convolution", out, msg);
    char defines[160];
    snprintf(defines, sizeof defines,
             "-DCONV_K=%d,%d,%d,%d,%d,%d,%d,%d,%d -DCONV_DIV=%d -DCONV_BIAS=%d", matrix[0],
             matrix[1], matrix[2], matrix[3], matrix[4], matrix[5], matrix[6], matrix[7], matrix[8],
             conv->div, conv->bias);
    /* A matrix built before keeps its program once the limit is reached. */
    if ((*out = clv__program_find(ctx, "convolution", defines)))
        return 0;
    if (clv__program_count(ctx, "convolution") >= CONV_VARIANTS_MAX)
        return clv__program_get(ctx, "convolution", out, msg);
    return clv__program_variant(ctx, "convolution", defines, out, msg);
}

void clv__conv_uninit(void *state)
{
    clv__conv *conv = state;
    clv__kernel_release(&conv->kernel);
    clv__kernel_release(&conv->fused);
    clv__mem_release(&conv->coef);
    clv__rows_release(&conv->rows);
    conv->source = NULL;
}

int clv__conv_set(clv__conv *conv, clv_context *ctx, const int *matrix, int count, int div,
                  int bias, clv_msg *msg)
{
    cl_int coef[CLV_MATRIX_MAX];
    for (int i = 0; i < count; i++)
        coef[i] = matrix[i];
    cl_int st = clEnqueueWriteBuffer(ctx->queue, conv->coef, CL_TRUE, 0,
                                     (size_t)count * sizeof(cl_int), coef, 0, NULL, NULL);
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ECL, "convolution: cannot upload the matrix: %s",
                         clv__cl_strerror(st));
    conv->n = count == 49 ? 7 : count == 25 ? 5 : 3;
    conv->div = effective_div(matrix, count, div);
    conv->bias = bias;
    conv->inv = 1.0f / (float)(2 * conv->div);
    cl_program prog = NULL;
    int err = conv_program(conv, ctx, matrix, count, &prog, msg);
    if (err || prog == conv->source)
        return err;
    cl_kernel k = NULL, fused = NULL;
    if ((err = clv__kernel_create(prog, ctx->row_shape ? "convolve_rows" : "convolve", &k, msg)))
        return err;
    /* The fused kernel is 8-bit only (the stage never fuses a 16-bit chain). */
    if (ctx->row_shape && ctx->build_depth != 16 &&
        (err = clv__kernel_create(prog, "convolve_yuv", &fused, msg))) {
        clv__kernel_release(&k);
        return err;
    }
    clv__kernel_release(&conv->kernel);
    clv__kernel_release(&conv->fused);
    conv->kernel = k;
    conv->fused = fused;
    conv->source = prog;
    return 0;
}

int clv__conv_run(void *state, const clv_launch *l)
{
    clv__conv *conv = state;
    cl_kernel k = conv->kernel;
    int err = clv__kernel_frame_args(k, l);
    if (!err)
        err = clv__kernel_args(k, 5, 5, CLV__ARG(conv->coef), CLV__ARG(conv->n),
                               CLV__ARG(conv->div), CLV__ARG(conv->bias), CLV__ARG(conv->inv));
    if (err)
        return err;
    /* The GPU shape's 3x3 makes two rows a work-item. */
    return conv->n == 3 ? clv__launch_pixel_pairs(l, k)
                        : clv__launch_pixels(l, k, l->width, l->height);
}

int clv__conv_run_yuv(void *state, const clv_launch *l, const clv__yuv_io *io)
{
    clv__conv *conv = state;
    if (!conv->fused)
        return 1;
    int err =
        clv__kernel_args(conv->fused, CLV__FUSED_ARGS, 5, CLV__ARG(conv->coef), CLV__ARG(conv->n),
                         CLV__ARG(conv->div), CLV__ARG(conv->bias), CLV__ARG(conv->inv));
    return err ? err : clv__run_fused(l, io, conv->fused, conv->n / 2, &conv->rows, "convolution");
}

/* floor(a / b) for b > 0, in 64 bits. */
static int64_t floor_div64(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* The sums of pixel (x, y)'s n x n neighbourhood, edges clamped, per R,G,B;
 * 64-bit: at 16 bits |S| reaches 65535 * 49 * 10000. */
static void tap_sums(const clv_image *src, const int *matrix, int n, int x, int y, int64_t sum[3])
{
    int r = n / 2, deep = clv__depth(src) == 16;
    sum[0] = sum[1] = sum[2] = 0;
    for (int j = 0; j < n; j++) {
        const uint8_t *row =
            src->pixels + (size_t)clv__clamp(y + j - r, 0, src->height - 1) * src->stride;
        for (int i = 0; i < n; i++) {
            int64_t k = matrix[j * n + i];
            int xx = clv__clamp(x + i - r, 0, src->width - 1);
            if (deep) {
                const uint16_t *p = (const uint16_t *)(const void *)row + 4 * xx;
                sum[0] += k * p[0], sum[1] += k * p[1], sum[2] += k * p[2];
            } else {
                const uint8_t *p = row + 4 * xx;
                sum[0] += k * p[0], sum[1] += k * p[1], sum[2] += k * p[2];
            }
        }
    }
}

void clv__conv_reference(const int *matrix, int count, int div, int bias, const clv_image *src,
                         clv_image *dst)
{
    int n = count == 49 ? 7 : count == 25 ? 5 : 3;
    int64_t d = effective_div(matrix, count, div);
    int64_t b = clv__scale8(src, bias), maxv = clv__maxv(src);
    for (int y = 0; y < src->height; y++) {
        for (int x = 0; x < src->width; x++) {
            int64_t sum[3];
            tap_sums(src, matrix, n, x, y, sum);
            for (int c = 0; c < 3; c++) {
                /* (D = 1: floor((2S + 1) / 2) is S, without a 64-bit division.) */
                int64_t v = (d == 1 ? sum[c] : floor_div64(2 * sum[c] + d, 2 * d)) + b;
                clv__put(dst, x, y, c, (int)(v < 0 ? 0 : v > maxv ? maxv : v));
            }
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    }
}

static int configure(void *state, clv_context *ctx, const clv_value *v, clv_msg *msg)
{
    return clv__conv_set(state, ctx, v[CONVOLUTION_MATRIX].m, v[CONVOLUTION_MATRIX].n,
                         (int)v[CONVOLUTION_DIV].i, (int)v[CONVOLUTION_BIAS].i, msg);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    clv__conv_reference(v[CONVOLUTION_MATRIX].m, v[CONVOLUTION_MATRIX].n, (int)v[CONVOLUTION_DIV].i,
                        (int)v[CONVOLUTION_BIAS].i, src, dst);
    return 0;
}

static const clv_param params[] = {
    {"matrix", CLV_PARAM_MATRIX, "0 0 0 0 1 0 0 0 0", -10000, 10000, NULL,
     "coefficients row by row, 9, 25 or 49 integers (3x3, 5x5, 7x7); the first multiplies the "
     "top-left neighbour",
     0},
    {"div", CLV_PARAM_INT, "0", 0, 1000000, NULL,
     "divisor D; 0: the sum of the coefficients (1 if that is not positive)", 1},
    {"bias", CLV_PARAM_INT, "0", -1024, 1024, NULL, "added after dividing", 1},
};
_Static_assert(sizeof params / sizeof params[0] == CONVOLUTION_PARAM_COUNT,
               "convolution: the enum and the params table differ");

const clv_filter clv__filter_convolution = {
    .name = "convolution",
    .help = "N x N integer convolution: clamp(floor((2*S + D) / (2*D)) + bias) per R,G,B",
    .params = params,
    .param_count = CONVOLUTION_PARAM_COUNT,
    .program = NULL, /* clv__conv_set picks it */
    .state_size = sizeof(clv__conv),
    .deep = 1,
    .init = clv__conv_init,
    .configure = configure,
    .uninit = clv__conv_uninit,
    .run = clv__conv_run,
    .run_yuv = clv__conv_run_yuv,
    .reference = reference,
};
