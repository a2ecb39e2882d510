/* hqdn3d.c - ffmpeg's hqdn3d (libavfilter/vf_hqdn3d.c, from MPlayer): a
 * spatial and temporal denoiser, its integer tables and recursions exactly;
 * cl/hqdn3d.cl.
 *
 * Each channel is a plane of vf_hqdn3d: its samples taken to 16 bits
 * (8-bit: v << 8 | 127, ffmpeg's LOAD), a low-pass recursion along each row
 * (left to right), one down each column over the rows' results, and one
 * against the previous output of the same pixel (its state), each step
 * lowpass(prev, cur) = cur + coef[(prev - cur) >> (8 - LUT_BITS)] with
 * vf_hqdn3d's tables (precalc_coefs: LUT_BITS 4 at 8 bits, 8 at 16 bits),
 * the output the temporal value's top bits. The first frame of a size
 * starts the state from itself, as ffmpeg's does; a new size starts again.
 *
 * RGB frames have no luma: R, G and B all take the luma settings
 * (luma_spatial, luma_tmp); chroma_spatial and chroma_tmp are read (and
 * derived) as ffmpeg does but act on nothing. ffmpeg's hqdn3d takes YUV
 * only, so an RGB picture through ffmpeg is filtered on its Y'CbCr; what
 * clvid does on R, G, B is what ffmpeg does on three planes that all get
 * the luma settings (scripts/compare-denoise: gbrp samples passed to
 * ffmpeg as yuv444p with hqdn3d=ls:ls:lt:lt give clvid's bytes). At 16 bits
 * the definition is ffmpeg's for 16-bit planes (LOAD is the sample).
 *
 * The rows' recursions run a row per work-item; the columns' and the
 * temporal one a strip of columns per work-item (a column on GPUs). */
#include "filters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows a work-item of hqdn3d_rows walks (cl/hqdn3d.cl). */
#define HQ_ROWS 4

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

/* The strengths as ffmpeg's init derives them: a zero takes its default
 * (luma_spatial 4, the others in proportion). *spatial and *temporal get
 * the two that R, G and B use. */
static void strengths(const clv_value *v, double *spatial, double *temporal)
{
    double s[HQ_PARAM_COUNT];
    for (int i = 0; i < HQ_PARAM_COUNT; i++)
        s[i] = (double)v[i].i / 1000.0;
    if (!s[HQ_LUMA_SPATIAL])
        s[HQ_LUMA_SPATIAL] = 4.0;
    if (!s[HQ_CHROMA_SPATIAL])
        s[HQ_CHROMA_SPATIAL] = 3.0 * s[HQ_LUMA_SPATIAL] / 4.0;
    if (!s[HQ_LUMA_TMP])
        s[HQ_LUMA_TMP] = 6.0 * s[HQ_LUMA_SPATIAL] / 4.0;
    *spatial = s[HQ_LUMA_SPATIAL];
    *temporal = s[HQ_LUMA_TMP];
}

/* Both tables of the values at a depth, spatial then temporal (malloc'd). */
static int16_t *make_tables(const clv_value *v, int depth)
{
    const size_t n = table_entries(depth);
    int16_t *t = malloc(2 * n * sizeof *t);
    if (!t)
        return NULL;
    double spatial, temporal;
    strengths(v, &spatial, &temporal);
    precalc_coefs(spatial, depth, t);
    precalc_coefs(temporal, depth, t + n);
    return t;
}

typedef struct hq_state {
    cl_kernel rows, columns;  /* first: the chain creates them (kernels) */
    cl_mem spatial, temporal; /* make_tables' two, as ints */
    cl_mem hbuf;              /* the rows' recursions, w x h ushort4 */
    cl_mem line;              /* the columns' recursions, w ushort4 */
    cl_mem prev;              /* the previous output at 16 bits, w x h ushort4 */
    int depth;
    int w, h;
    int primed; /* prev holds the last frame of this size */
} hq_state;

static const char *const kernels[] = {"hqdn3d_rows", "hqdn3d_columns", NULL};

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    hq_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    const size_t bytes = table_entries(s->depth) * sizeof(cl_int);
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

static void uninit(void *state)
{
    hq_state *s = state;
    release_frames(s);
    clv__mem_release(&s->spatial);
    clv__mem_release(&s->temporal);
}

/* New values: new tables; the state carries on (as ffmpeg's commands). */
static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    hq_state *s = state;
    int16_t *t16 = make_tables(values, s->depth);
    const size_t n = table_entries(s->depth);
    cl_int *t = t16 ? malloc(2 * n * sizeof *t) : NULL;
    for (size_t i = 0; t && i < 2 * n; i++)
        t[i] = t16[i];
    free(t16);
    if (!t)
        return clv__fail(msg, CLV_ENOMEM, "hqdn3d: out of memory for its tables");
    cl_int st =
        clEnqueueWriteBuffer(ctx->queue, s->spatial, CL_TRUE, 0, n * sizeof *t, t, 0, NULL, NULL);
    if (st == CL_SUCCESS)
        st = clEnqueueWriteBuffer(ctx->queue, s->temporal, CL_TRUE, 0, n * sizeof *t, t + n, 0,
                                  NULL, NULL);
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
    const size_t px = (size_t)in->width * (size_t)in->height * 4 * sizeof(cl_ushort);
    cl_int st = CL_SUCCESS;
    s->hbuf = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, px, NULL, &st);
    if (st == CL_SUCCESS)
        s->prev = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, px, NULL, &st);
    if (st == CL_SUCCESS)
        s->line = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE,
                                 (size_t)in->width * 4 * sizeof(cl_ushort), NULL, &st);
    if (st != CL_SUCCESS) {
        release_frames(s);
        return clv__fail(msg, CLV_ENOMEM, "hqdn3d: cannot allocate its state for %dx%d: %s",
                         in->width, in->height, clv__cl_strerror(st));
    }
    s->w = in->width;
    s->h = in->height;
    return 0;
}

static int run(void *state, const clv_launch *l)
{
    hq_state *s = state;
    if (l->width != s->w || l->height != s->h)
        return CLV_EINVAL; /* resize did not run for this size */
    const cl_int first = !s->primed;
    /* CPUs: strips of columns, enough for every core four times over. */
    cl_int strip = 1;
    if (l->ctx->row_shape) {
        size_t strips = l->ctx->dev.compute_units * 4;
        strip = (cl_int)(((size_t)l->width + strips - 1) / strips);
        strip = (strip + 15) & ~15;
    }
    int err =
        clv__kernel_args(s->rows, 0, 6, CLV__ARG(l->src), CLV__ARG(l->width), CLV__ARG(l->height),
                         CLV__ARG(l->stride), CLV__ARG(s->hbuf), CLV__ARG(s->spatial));
    if (!err) {
        /* CPUs: a group a work-item (with no local size PoCL makes one
         * group of them all: one core) */
        const size_t items = ((size_t)l->height + HQ_ROWS - 1) / HQ_ROWS,
                     group = l->ctx->row_shape ? 1 : 64;
        size_t global[2] = {1, (items + group - 1) / group * group}, local[2] = {1, group};
        err = clv__launch(l, s->rows, 2, global, local);
    }
    if (!err)
        err = clv__kernel_frame_args(s->columns, l);
    if (!err)
        err = clv__kernel_args(s->columns, 5, 7, CLV__ARG(s->hbuf), CLV__ARG(s->line),
                               CLV__ARG(s->prev), CLV__ARG(s->spatial), CLV__ARG(s->temporal),
                               CLV__ARG(strip), CLV__ARG(first));
    if (!err) {
        size_t global = ((size_t)l->width + (size_t)strip - 1) / (size_t)strip, one = 1;
        err = clv__launch(l, s->columns, 1, &global, l->ctx->row_shape ? &one : NULL);
    }
    if (!err)
        s->primed = 1;
    return err;
}

/* ---- The reference: vf_hqdn3d's denoise_spatial on each channel. -------- */

typedef struct hq_ref {
    int w, h, depth;
    uint16_t *frame_ant; /* 3 planes of w x h */
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
    const int first = !r->frame_ant || r->w != w || r->h != h || r->depth != depth;
    if (first) {
        reference_uninit(r);
        r->frame_ant = malloc((size_t)w * (size_t)h * 3 * sizeof *r->frame_ant);
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
    if (!tables)
        return CLV_ENOMEM;
    const int16_t *spatial = tables + (256 << lb),
                  *temporal = tables + table_entries(depth) + (256 << lb);
    /* LOAD and STORE of vf_hqdn3d at this depth */
#define LOAD(x, y) (depth == 8 ? (clv__get(src, x, y, c) << 8) + 127 : clv__get(src, x, y, c))
#define STORE(x, y, val)                                                                           \
    clv__put(dst, x, y, c, depth == 8 ? (uint8_t)((val) >> 8) : (uint16_t)(val))
    for (int c = 0; c < 3; c++) {
        uint16_t *frame_ant = r->frame_ant + (size_t)c * (size_t)w * (size_t)h;
        uint16_t *line_ant = r->line_ant;
        if (first)
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    frame_ant[(size_t)y * (size_t)w + (size_t)x] = (uint16_t)LOAD(x, y);
        uint32_t pixel_ant = (uint32_t)LOAD(0, 0), tmp;
        for (int x = 0; x < w; x++) {
            line_ant[x] =
                (uint16_t)(tmp = pixel_ant = lowpass((int)pixel_ant, LOAD(x, 0), spatial, lb));
            frame_ant[x] = (uint16_t)(tmp = lowpass(frame_ant[x], (int)tmp, temporal, lb));
            STORE(x, 0, tmp);
        }
        for (int y = 1; y < h; y++) {
            uint16_t *fa = frame_ant + (size_t)y * (size_t)w;
            pixel_ant = (uint32_t)LOAD(0, y);
            int x;
            for (x = 0; x < w - 1; x++) {
                line_ant[x] = (uint16_t)(tmp = lowpass(line_ant[x], (int)pixel_ant, spatial, lb));
                pixel_ant = lowpass((int)pixel_ant, LOAD(x + 1, y), spatial, lb);
                fa[x] = (uint16_t)(tmp = lowpass(fa[x], (int)tmp, temporal, lb));
                STORE(x, y, tmp);
            }
            line_ant[x] = (uint16_t)(tmp = lowpass(line_ant[x], (int)pixel_ant, spatial, lb));
            fa[x] = (uint16_t)(tmp = lowpass(fa[x], (int)tmp, temporal, lb));
            STORE(x, y, tmp);
        }
    }
#undef LOAD
#undef STORE
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
    free(tables);
    return 0;
}

/* ffmpeg takes any strength; past 252 its tables stay the same. */
static const clv_param params[] = {
    {"luma_spatial", CLV_PARAM_REAL, "0", 0, 10000, NULL, "spatial strength on R, G, B (0: 4)",
     0.5},
    {"chroma_spatial", CLV_PARAM_REAL, "0", 0, 10000, NULL,
     "ffmpeg's chroma planes' spatial strength: RGB has none (0: 3/4 of luma_spatial)", 0.5},
    {"luma_tmp", CLV_PARAM_REAL, "0", 0, 10000, NULL,
     "temporal strength on R, G, B (0: 3/2 of luma_spatial)", 0.5},
    {"chroma_tmp", CLV_PARAM_REAL, "0", 0, 10000, NULL,
     "ffmpeg's chroma planes' temporal strength: RGB has none", 0.5},
};
_Static_assert(sizeof params / sizeof params[0] == HQ_PARAM_COUNT,
               "hqdn3d: the enum and the params table differ");

const clv_filter clv__filter_hqdn3d = {
    .name = "hqdn3d",
    .help = "spatial and temporal denoiser, ffmpeg's hqdn3d (R, G, B take the luma settings)",
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
    .run = run,
    .ref_state_size = sizeof(hq_ref),
    .reference = reference,
    .reference_uninit = reference_uninit,
};
