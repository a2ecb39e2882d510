/* hqdn3d.c - ffmpeg's hqdn3d (libavfilter/vf_hqdn3d.c, from MPlayer): a
 * spatial and temporal denoiser, its integer tables and recursions exactly,
 * on each pixel's Y'CbCr; cl/hqdn3d.cl.
 *
 * ffmpeg's hqdn3d takes YUV planes, Y' with the luma settings and Cb, Cr
 * with the chroma ones; clvid's frames are RGB, so each pixel goes to
 * Y'CbCr by eq's and hue's conversion (ycbcr.h: BT.601 limited range, the
 * matrix ffmpeg itself uses for RGB with no colour information and the one
 * SD video is in; exact integers), each component becomes a sample of
 * vf_hqdn3d (to_sample), and the three planes go through ffmpeg's
 * recursions: a low-pass along each row (left to right), one down each
 * column over the rows' results, and one against the previous output of
 * the same pixel (its state), each step
 * lowpass(prev, cur) = cur + coef[(prev - cur) >> (8 - LUT_BITS)] with
 * vf_hqdn3d's tables (precalc_coefs: LUT_BITS 4 at 8 bits, 8 at 16 bits;
 * luma_spatial and luma_tmp on Y', chroma_spatial and chroma_tmp on Cb and
 * Cr). The temporal values go back to Y'CbCr (from_sample) and to R, G, B;
 * alpha is left as it came. The first frame of a size starts the state
 * from itself, as ffmpeg's does; a new size starts again.
 *
 * The chroma planes are at full size: ffmpeg's on yuv420p has them at half
 * size, where the same spatial strength reaches twice as far in the
 * picture; on the yuv420p clips people feed it the two agree within a few
 * hundredths of a dB in closeness to the clean picture
 * (scripts/compare-denoise, docs/filters.md).
 *
 * The rows' recursions run a row per work-item; the columns' and the
 * temporal one a strip of columns per work-item (a column on GPUs). */
#include "filters.h"
#include "ycbcr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows a work-item of hqdn3d_rows walks (cl/hqdn3d.cl's HQ_ROWS): 16 in
 * the row shape, 4 on GPUs. */
static size_t rows_per_item(const clv_context *ctx)
{
    return ctx->row_shape ? 16 : 4;
}
/* CPUs: the two passes run on bands of HQ_BAND rows in turn, hbuf one
 * band, which stays in the caches between them (a whole frame's is 12 MB
 * at 1080p, which went to memory and back). */
#define HQ_BAND 64

enum { HQ_LUMA_SPATIAL, HQ_CHROMA_SPATIAL, HQ_LUMA_TMP, HQ_CHROMA_TMP, HQ_PARAM_COUNT };

/* ffmpeg's LUT_BITS: the table has 512 << lut_bits entries. */
static int lut_bits(int depth)
{
    return depth == 16 ? 8 : 4;
}

static size_t table_entries(int depth)
{
    return (size_t)512 << lut_bits(depth);
}

/* vf_hqdn3d's precalc_coefs, for dist25 (a strength) at a depth. */
static void precalc_coefs(double dist25, int depth, int16_t *ct)
{
    const int lb = lut_bits(depth);
    const double gamma = log(0.25) / log(1.0 - fmin(dist25, 252.0) / 255.0 - 0.00001);
    for (int i = -(256 << lb); i < 256 << lb; i++) {
        /* the midpoint of the bin */
        const double f = ((i * (1 << (9 - lb))) + (1 << (8 - lb)) - 1) / 512.0;
        const double simil = fmax(0, 1.0 - fabs(f) / 255.0);
        const double c = pow(simil, gamma) * 256.0 * f;
        ct[(256 << lb) + i] = (int16_t)lrint(c);
    }
    ct[0] = dist25 != 0;
}

/* The four strengths as ffmpeg's init derives them: a zero takes its
 * default (luma_spatial 4, the others in proportion). */
static void strengths(const clv_value *v, double s[HQ_PARAM_COUNT])
{
    for (int i = 0; i < HQ_PARAM_COUNT; i++)
        s[i] = (double)v[i].i / 1000.0;
    if (!s[HQ_LUMA_SPATIAL])
        s[HQ_LUMA_SPATIAL] = 4.0;
    if (!s[HQ_CHROMA_SPATIAL])
        s[HQ_CHROMA_SPATIAL] = 3.0 * s[HQ_LUMA_SPATIAL] / 4.0;
    if (!s[HQ_LUMA_TMP])
        s[HQ_LUMA_TMP] = 6.0 * s[HQ_LUMA_SPATIAL] / 4.0;
    if (!s[HQ_CHROMA_TMP])
        s[HQ_CHROMA_TMP] = s[HQ_LUMA_TMP] * s[HQ_CHROMA_SPATIAL] / s[HQ_LUMA_SPATIAL];
}

/* The four tables of the values at a depth (malloc'd), in the order the
 * kernels read them: spatial luma, spatial chroma, temporal luma,
 * temporal chroma; table_entries(depth) each. */
static int16_t *make_tables(const clv_value *v, int depth)
{
    const size_t n = table_entries(depth);
    int16_t *t = malloc(4 * n * sizeof *t);
    if (!t)
        return NULL;
    double s[HQ_PARAM_COUNT];
    strengths(v, s);
    precalc_coefs(s[HQ_LUMA_SPATIAL], depth, t);
    precalc_coefs(s[HQ_CHROMA_SPATIAL], depth, t + n);
    precalc_coefs(s[HQ_LUMA_TMP], depth, t + 2 * n);
    precalc_coefs(s[HQ_CHROMA_TMP], depth, t + 3 * n);
    return t;
}

/* A component of ycbcr.h (a code on the 8-bit scale with
 * clv__ycc_bits(depth) fractional bits) as a sample of vf_hqdn3d, and
 * back. 8 bits: the component is the code << 8 with its fraction in the
 * low bits, and the sample is ffmpeg's LOAD, (code << 8) + 127, with that
 * fraction kept: v + 127; back, v = t - 127 (an integer code comes out as
 * ffmpeg's STORE would leave it, its fraction as ffmpeg's internal value
 * has it). 16 bits: the sample is the 16-bit code (ffmpeg's 16-bit YUV,
 * the 8-bit code * 256), the component rounded to it: (v + 128) >> 8;
 * back, v = t << 8. Components lie in 16-240 (codes), so samples fit 16
 * bits with room to spare. */
static int to_sample(int64_t v, int depth)
{
    return depth == 16 ? (int)((v + 128) >> 8) : (int)v + 127;
}

static int64_t from_sample(uint16_t t, int depth)
{
    return depth == 16 ? (int64_t)t << 8 : (int64_t)t - 127;
}

typedef struct hq_state {
    cl_kernel rows, columns;  /* first: the chain creates them (kernels) */
    cl_mem spatial, temporal; /* make_tables' luma and chroma of each, as ints */
    cl_mem ycc;               /* ycbcr.h's matrix */
    cl_mem hbuf;              /* the rows' recursions: Y', Cb, Cr planes of w x band ushort */
    cl_mem line;              /* the columns' recursions: 3 rows of w ushort */
    cl_mem prev;              /* the previous output's samples, 3 planes as hbuf */
    int depth;
    int w, h;
    int band;   /* rows a pass: HQ_BAND on CPUs, h on GPUs */
    int primed; /* prev holds the last frame of this size */
} hq_state;

static const char *const kernels[] = {"hqdn3d_rows", "hqdn3d_columns", NULL};

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    hq_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    const size_t bytes = 2 * table_entries(s->depth) * sizeof(cl_int);
    clv__ycc m;
    clv__ycc_make(s->depth, &m);
    int err = clv__ycc_upload(ctx, &m, &s->ycc, "hqdn3d", msg);
    if (err)
        return err;
    cl_int st = CL_SUCCESS;
    s->spatial = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, bytes, NULL, &st);
    if (st == CL_SUCCESS)
        s->temporal = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, bytes, NULL, &st);
    return st == CL_SUCCESS ? 0
                            : clv__fail(msg, CLV_ENOMEM, "hqdn3d: cannot allocate its tables: %s",
                                        clv__cl_strerror(st));
}

static void release_frames(hq_state *s)
{
    clv__mem_release(&s->hbuf);
    clv__mem_release(&s->line);
    clv__mem_release(&s->prev);
    s->w = s->h = 0;
    s->primed = 0;
}

/* The stream starts again: the next frame is a first (the buffers stay). */
static void restart(void *state)
{
    ((hq_state *)state)->primed = 0;
}

static void uninit(void *state)
{
    hq_state *s = state;
    release_frames(s);
    clv__mem_release(&s->spatial);
    clv__mem_release(&s->temporal);
    clv__mem_release(&s->ycc);
}

/* New values: new tables; the state carries on (as ffmpeg's commands). */
static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    hq_state *s = state;
    int16_t *t16 = make_tables(values, s->depth);
    const size_t n = table_entries(s->depth);
    cl_int *t = t16 ? malloc(4 * n * sizeof *t) : NULL;
    for (size_t i = 0; t && i < 4 * n; i++)
        t[i] = t16[i];
    free(t16);
    if (!t)
        return clv__fail(msg, CLV_ENOMEM, "hqdn3d: out of memory for its tables");
    cl_int st = clEnqueueWriteBuffer(ctx->queue, s->spatial, CL_TRUE, 0, 2 * n * sizeof *t, t, 0,
                                     NULL, NULL);
    if (st == CL_SUCCESS)
        st = clEnqueueWriteBuffer(ctx->queue, s->temporal, CL_TRUE, 0, 2 * n * sizeof *t, t + 2 * n,
                                  0, NULL, NULL);
    free(t);
    return st == CL_SUCCESS ? 0
                            : clv__fail(msg, CLV_ECL, "hqdn3d: cannot upload its tables: %s",
                                        clv__cl_strerror(st));
}

/* A new size starts the state again (ffmpeg's config_input). */
static int resize(void *state, clv_context *ctx, const clv_value *values, const clv_size *in,
                  const clv_size *out, clv_msg *msg)
{
    (void)values;
    (void)out;
    hq_state *s = state;
    if (s->w == in->width && s->h == in->height)
        return 0;
    release_frames(s);
    const size_t px = (size_t)in->width * (size_t)in->height * 3 * sizeof(cl_ushort);
    const int band = ctx->row_shape && in->height > HQ_BAND ? HQ_BAND : in->height;
    cl_int st = CL_SUCCESS;
    s->hbuf = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE,
                             (size_t)in->width * (size_t)band * 3 * sizeof(cl_ushort), NULL, &st);
    if (st == CL_SUCCESS)
        s->prev = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, px, NULL, &st);
    if (st == CL_SUCCESS)
        s->line = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE,
                                 (size_t)in->width * 3 * sizeof(cl_ushort), NULL, &st);
    if (st != CL_SUCCESS) {
        release_frames(s);
        return clv__fail(msg, CLV_ENOMEM, "hqdn3d: cannot allocate its state for %dx%d: %s",
                         in->width, in->height, clv__cl_strerror(st));
    }
    s->w = in->width;
    s->h = in->height;
    s->band = band;
    return 0;
}

static int run(void *state, const clv_launch *l)
{
    hq_state *s = state;
    if (l->width != s->w || l->height != s->h)
        return CLV_EINVAL; /* resize did not run for this size */
    const cl_int first = !s->primed;
    /* CPUs: strips of columns, two for every core (four made each row's
     * part a few cache lines, which took a third more CPU time at 1080p;
     * one for each leaves a core idle when the other is late) */
    cl_int strip = 1;
    if (l->ctx->row_shape) {
        size_t strips = l->ctx->dev.compute_units * 2;
        strip = (cl_int)(((size_t)l->width + strips - 1) / strips);
        strip = (strip + 15) & ~15;
    }
    int err =
        clv__kernel_args(s->rows, 0, 9, CLV__ARG(l->src), CLV__ARG(l->width), CLV__ARG(l->height),
                         CLV__ARG(l->stride), CLV__ARG(s->hbuf), CLV__ARG(s->ycc),
                         CLV__ARG(s->spatial), CLV__ARG(s->prev), CLV__ARG(first));
    if (!err)
        err = clv__kernel_frame_args(s->columns, l);
    if (!err)
        err = clv__kernel_args(s->columns, 5, 7, CLV__ARG(s->hbuf), CLV__ARG(s->line),
                               CLV__ARG(s->prev), CLV__ARG(s->ycc), CLV__ARG(s->spatial),
                               CLV__ARG(s->temporal), CLV__ARG(strip));
    const cl_int band = s->band;
    for (cl_int top = 0; !err && top < l->height; top += band) {
        err = clv__kernel_args(s->rows, 9, 2, CLV__ARG(top), CLV__ARG(band));
        if (!err) {
            /* CPUs: a group a work-item (with no local size PoCL makes
             * one group of them all: one core) */
            const size_t rows = rows_per_item(l->ctx), items = ((size_t)band + rows - 1) / rows,
                         group = l->ctx->row_shape ? 1 : 64;
            size_t global[2] = {1, (items + group - 1) / group * group}, local[2] = {1, group};
            err = clv__launch(l, s->rows, 2, global, local);
        }
        if (!err)
            err = clv__kernel_args(s->columns, 12, 2, CLV__ARG(top), CLV__ARG(band));
        if (!err) {
            size_t global = ((size_t)l->width + (size_t)strip - 1) / (size_t)strip, one = 1;
            err = clv__launch(l, s->columns, 1, &global, l->ctx->row_shape ? &one : NULL);
        }
    }
    if (!err)
        s->primed = 1;
    return err;
}

/* ---- The reference: vf_hqdn3d's denoise_spatial on Y', Cb, Cr. --------- */

typedef struct hq_ref {
    int w, h, depth;
    uint16_t *frame_ant; /* 3 planes of w x h: Y', Cb, Cr */
    uint16_t *line_ant;  /* w */
} hq_ref;

static void reference_uninit(void *ref_state)
{
    hq_ref *r = ref_state;
    free(r->frame_ant);
    free(r->line_ant);
    memset(r, 0, sizeof *r);
}

static uint32_t lowpass(int prev, int cur, const int16_t *coef, int lb)
{
    int d = (prev - cur) >> (8 - lb);
    return (uint32_t)(cur + coef[d]);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)frame_index;
    hq_ref *r = ref_state;
    const int w = src->width, h = src->height, depth = clv__depth(src), lb = lut_bits(depth);
    const size_t plane = (size_t)w * (size_t)h;
    const int first = !r->frame_ant || r->w != w || r->h != h || r->depth != depth;
    if (first) {
        reference_uninit(r);
        r->frame_ant = malloc(plane * 3 * sizeof *r->frame_ant);
        r->line_ant = malloc((size_t)w * sizeof *r->line_ant);
        if (!r->frame_ant || !r->line_ant) {
            reference_uninit(r);
            return CLV_ENOMEM;
        }
        r->w = w;
        r->h = h;
        r->depth = depth;
    }
    int16_t *tables = make_tables(v, depth);
    /* the samples of Y', Cb, Cr (in), then the filtered ones (out) */
    uint16_t *in = malloc(plane * 3 * sizeof *in), *out = malloc(plane * 3 * sizeof *out);
    if (!tables || !in || !out) {
        free(tables);
        free(in);
        free(out);
        return CLV_ENOMEM;
    }
    clv__ycc m;
    clv__ycc_make(depth, &m);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int64_t c[3];
            clv__ycc_from_rgb(&m, clv__get(src, x, y, 0), clv__get(src, x, y, 1),
                              clv__get(src, x, y, 2), c);
            for (int j = 0; j < 3; j++)
                in[(size_t)j * plane + (size_t)y * (size_t)w + (size_t)x] =
                    (uint16_t)to_sample(c[j], depth);
        }
    const size_t n = table_entries(depth), mid = (size_t)256 << lb;
    for (int c = 0; c < 3; c++) {
        /* vf_hqdn3d's denoise_spatial on the plane, Y' with the luma
         * tables and Cb, Cr with the chroma ones */
        const int16_t *spatial = tables + (c ? n : 0) + mid,
                      *temporal = tables + (c ? 3 * n : 2 * n) + mid;
        const uint16_t *s = in + (size_t)c * plane;
        uint16_t *d = out + (size_t)c * plane;
        uint16_t *frame_ant = r->frame_ant + (size_t)c * plane;
        uint16_t *line_ant = r->line_ant;
        if (first)
            memcpy(frame_ant, s, plane * sizeof *s);
        uint32_t pixel_ant = s[0], tmp;
        for (int x = 0; x < w; x++) {
            line_ant[x] = (uint16_t)(tmp = pixel_ant = lowpass((int)pixel_ant, s[x], spatial, lb));
            frame_ant[x] = (uint16_t)(tmp = lowpass(frame_ant[x], (int)tmp, temporal, lb));
            d[x] = (uint16_t)tmp;
        }
        for (int y = 1; y < h; y++) {
            const uint16_t *sr = s + (size_t)y * (size_t)w;
            uint16_t *fa = frame_ant + (size_t)y * (size_t)w, *dr = d + (size_t)y * (size_t)w;
            pixel_ant = sr[0];
            int x;
            for (x = 0; x < w - 1; x++) {
                line_ant[x] = (uint16_t)(tmp = lowpass(line_ant[x], (int)pixel_ant, spatial, lb));
                pixel_ant = lowpass((int)pixel_ant, sr[x + 1], spatial, lb);
                fa[x] = (uint16_t)(tmp = lowpass(fa[x], (int)tmp, temporal, lb));
                dr[x] = (uint16_t)tmp;
            }
            line_ant[x] = (uint16_t)(tmp = lowpass(line_ant[x], (int)pixel_ant, spatial, lb));
            fa[x] = (uint16_t)(tmp = lowpass(fa[x], (int)tmp, temporal, lb));
            dr[x] = (uint16_t)tmp;
        }
    }
    const int maxv = clv__maxv(src);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * (size_t)w + (size_t)x;
            const int64_t c[3] = {from_sample(out[i], depth), from_sample(out[plane + i], depth),
                                  from_sample(out[2 * plane + i], depth)};
            for (int k = 0; k < 3; k++)
                clv__put(dst, x, y, k, clv__ycc_channel(&m, c, k, maxv));
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    free(tables);
    free(in);
    free(out);
    return 0;
}

/* ffmpeg takes any strength; past 252 its tables stay the same. */
static const clv_param params[] = {
    {"luma_spatial", CLV_PARAM_REAL, "0", 0, 10000, NULL, "spatial strength on Y' (0: 4)", 0.5},
    {"chroma_spatial", CLV_PARAM_REAL, "0", 0, 10000, NULL,
     "spatial strength on Cb, Cr (0: 3/4 of luma_spatial)", 0.5},
    {"luma_tmp", CLV_PARAM_REAL, "0", 0, 10000, NULL,
     "temporal strength on Y' (0: 3/2 of luma_spatial)", 0.5},
    {"chroma_tmp", CLV_PARAM_REAL, "0", 0, 10000, NULL,
     "temporal strength on Cb, Cr (0: luma_tmp * chroma_spatial / luma_spatial)", 0.5},
};
_Static_assert(sizeof params / sizeof params[0] == HQ_PARAM_COUNT,
               "hqdn3d: the enum and the params table differ");

const clv_filter clv__filter_hqdn3d = {
    .name = "hqdn3d",
    .help = "spatial and temporal denoiser, ffmpeg's hqdn3d, on each pixel's Y'CbCr (BT.601)",
    .params = params,
    .param_count = HQ_PARAM_COUNT,
    .program = "hqdn3d",
    .kernels = kernels,
    .state_size = sizeof(hq_state),
    .temporal = 1,
    .deep = 1,
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .resize = resize,
    .restart = restart,
    .run = run,
    .ref_state_size = sizeof(hq_ref),
    .reference = reference,
    .reference_uninit = reference_uninit,
};
