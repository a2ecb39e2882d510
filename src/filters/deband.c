/* deband.c - ffmpeg's deband (libavfilter/vf_deband.c) on R, G and B as
 * ffmpeg runs it on the gbrp it filters RGB in (1thr: green, 2thr: blue,
 * 3thr: red; 4thr is the alpha plane's, and alpha passes through here), at
 * 8 and 16 bits (cl/deband.cl).
 *
 * Each pixel's offsets are vf_deband's, computed on the host once a frame
 * size in float as vf_deband computes them: r = fract(sinf(x * 12.9898f + y
 * * 78.233f) * 43758.545f), direction d = r * direction (-direction when
 * it is negative), distance (int)(r * range) (-range when negative),
 * dx = (int)(cosf(d) * distance), dy = (int)(sinf(d) * distance); the
 * kernel reads them from that table, so device, reference and ffmpeg use
 * the same offsets. The thresholds are vf_deband's: (int)(maxv * thr) in
 * float. The rest is integer comparisons and a sum / 4. */
#include "filters.h"

#include <math.h>
#include <stdlib.h>

#define DB_PI 3.14159265358979323846

enum {
    DB_THR1,
    DB_THR2,
    DB_THR3,
    DB_THR4,
    DB_RANGE,
    DB_DIRECTION,
    DB_BLUR,
    DB_COUPLING,
    DB_PARAM_COUNT
};

/* The direction's value (ffmpeg's float option, an expression there too). */
static int direction_of(const clv_value *values, float *out, clv_msg *msg)
{
    const char *text = clv_value_text(&values[DB_DIRECTION]);
    clv__expr *e = NULL;
    int err = clv__expr_parse(text, NULL, &e, msg);
    if (err)
        return err;
    const double d = clv__expr_eval(e, NULL);
    clv__expr_free(e);
    if (!(d >= -2 * DB_PI && d <= 2 * DB_PI))
        return clv__fail(msg, CLV_ERANGE,
                         "filter 'deband' parameter 'direction': %s gives %g; it must be from "
                         "-2*PI to 2*PI",
                         text, d);
    *out = (float)d;
    return 0;
}

/* vf_deband's offsets for a w x h frame: dx in the low 16 bits, dy in the
 * high (|range| <= 16384, so each fits). */
static void make_offsets(int w, int h, int range, float direction, int32_t *out)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const float r0 = sinf((float)x * 12.9898f + (float)y * 78.233f) * 43758.545f;
            const float r = r0 - floorf(r0);
            const float dir = direction < 0 ? -direction : r * direction;
            const int dist = range < 0 ? -range : (int)(r * (float)range);
            const int dx = (int)(cosf(dir) * (float)dist), dy = (int)(sinf(dir) * (float)dist);
            out[(size_t)y * (size_t)w + (size_t)x] =
                (int32_t)(((uint32_t)dy << 16) | ((uint32_t)dx & 0xFFFFu));
        }
}

/* R, G, B thresholds at depth maxv: ffmpeg's planes 3, 1, 2 (gbrp). */
static void thresholds(const clv_value *values, int maxv, int thr[3])
{
    static const int plane_of[3] = {DB_THR3, DB_THR1, DB_THR2};
    for (int c = 0; c < 3; c++)
        thr[c] = (int)((float)maxv * (float)((double)values[plane_of[c]].i / 1000.0));
}

typedef struct db_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem offsets;
    size_t bytes;
    int w, h;
    int range;
    float direction;
} db_state;

static const char *const kernels[] = {"deband", NULL};

static void uninit(void *state)
{
    db_state *s = state;
    clv__mem_release(&s->offsets);
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    (void)ctx;
    db_state *s = state;
    float direction = 0;
    int err = direction_of(values, &direction, msg);
    if (err)
        return err;
    if ((int)values[DB_RANGE].i != s->range || direction != s->direction)
        s->w = s->h = 0; /* the table is made again */
    s->range = (int)values[DB_RANGE].i;
    s->direction = direction;
    return 0;
}

static int resize(void *state, clv_context *ctx, const clv_value *values, const clv_size *in,
                  const clv_size *out, clv_msg *msg)
{
    (void)values;
    (void)out;
    db_state *s = state;
    if (s->w == in->width && s->h == in->height)
        return 0;
    const size_t bytes = (size_t)in->width * (size_t)in->height * sizeof(int32_t);
    int32_t *host = malloc(bytes);
    if (!host)
        return clv__fail(msg, CLV_ENOMEM, "filter 'deband': out of memory for its offsets");
    make_offsets(in->width, in->height, s->range, s->direction, host);
    int err = 0;
    if (bytes > s->bytes) {
        clv__mem_release(&s->offsets);
        s->bytes = 0;
        cl_int st = CL_SUCCESS;
        s->offsets = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, bytes, NULL, &st);
        if (st != CL_SUCCESS) {
            s->offsets = NULL;
            err = clv__fail(msg, CLV_ENOMEM, "filter 'deband': cannot allocate its offsets: %s",
                            clv__cl_strerror(st));
        } else {
            s->bytes = bytes;
        }
    }
    if (!err) {
        cl_int st =
            clEnqueueWriteBuffer(ctx->queue, s->offsets, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
        if (st != CL_SUCCESS)
            err = clv__fail(msg, CLV_ECL, "filter 'deband': cannot upload its offsets: %s",
                            clv__cl_strerror(st));
    }
    free(host);
    if (!err) {
        s->w = in->width;
        s->h = in->height;
    }
    return err;
}

static int run(void *state, const clv_launch *l)
{
    db_state *s = state;
    if (l->width != s->w || l->height != s->h)
        return CLV_EINVAL; /* resize did not run for this size */
    int thr[3];
    thresholds(l->values, l->depth == 16 ? 65535 : 255, thr);
    cl_int4 t = {{thr[0], thr[1], thr[2], 0}};
    cl_int blur = (cl_int)l->values[DB_BLUR].i, coupling = (cl_int)l->values[DB_COUPLING].i;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 4, CLV__ARG(s->offsets), CLV__ARG(t), CLV__ARG(blur),
                               CLV__ARG(coupling));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

static int reference(void *ref_state, const clv_value *values, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int w = src->width, h = src->height, maxv = clv__maxv(src);
    float direction = 0;
    if (direction_of(values, &direction, NULL))
        return CLV_EINVAL;
    int32_t *offsets = malloc((size_t)w * (size_t)h * sizeof *offsets);
    if (!offsets)
        return CLV_ENOMEM;
    make_offsets(w, h, (int)values[DB_RANGE].i, direction, offsets);
    int thr[3];
    thresholds(values, maxv, thr);
    const int blur = values[DB_BLUR].i != 0, coupling = values[DB_COUPLING].i != 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int32_t o = offsets[(size_t)y * (size_t)w + (size_t)x];
            const int dx = (int16_t)(o & 0xFFFF), dy = o >> 16;
            int avg[3], p[3], pass[3];
            for (int c = 0; c < 3; c++) {
                const int ref[4] = {clv__get_clamped(src, x + dx, y + dy, c),
                                    clv__get_clamped(src, x + dx, y - dy, c),
                                    clv__get_clamped(src, x - dx, y - dy, c),
                                    clv__get_clamped(src, x - dx, y + dy, c)};
                p[c] = clv__get(src, x, y, c);
                avg[c] = (ref[0] + ref[1] + ref[2] + ref[3]) / 4;
                if (blur) {
                    pass[c] = abs(p[c] - avg[c]) < thr[c];
                } else {
                    pass[c] = 1;
                    for (int k = 0; k < 4; k++)
                        pass[c] &= abs(p[c] - ref[k]) < thr[c];
                }
            }
            const int all = pass[0] && pass[1] && pass[2];
            for (int c = 0; c < 3; c++)
                clv__put(dst, x, y, c, (coupling ? all : pass[c]) ? avg[c] : p[c]);
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    free(offsets);
    return 0;
}

static const char *const aliases[] = {"r",    "range", "d",        "direction", "b",
                                      "blur", "c",     "coupling", NULL};

/* ffmpeg's options in its order. */
static const clv_param params[] = {
    {"1thr", CLV_PARAM_REAL, "0.02", 0.00003, 0.5, NULL,
     "threshold of ffmpeg's plane 1, green (to 1/1000 of the range)", 0.005},
    {"2thr", CLV_PARAM_REAL, "0.02", 0.00003, 0.5, NULL, "threshold of plane 2, blue", 0.005},
    {"3thr", CLV_PARAM_REAL, "0.02", 0.00003, 0.5, NULL, "threshold of plane 3, red", 0.005},
    {"4thr", CLV_PARAM_REAL, "0.02", 0.00003, 0.5, NULL,
     "threshold of plane 4, alpha: changes nothing (alpha passes through)", 0.005},
    {"range", CLV_PARAM_INT, "16", -16384, 16384, NULL,
     "how far the compared pixels are; negative: exactly that far", 1},
    {"direction", CLV_PARAM_EXPR, "2*PI", 0, 0, "",
     "angles of the compared pixels, -2*PI to 2*PI: up to it; negative: exactly -it", 0},
    {"blur", CLV_PARAM_INT, "1", 0, 1, NULL,
     "1: compare with the four's average; 0: with each of them", 1},
    {"coupling", CLV_PARAM_INT, "0", 0, 1, NULL, "1: change a pixel only where all channels pass",
     1},
};
_Static_assert(sizeof params / sizeof params[0] == DB_PARAM_COUNT,
               "deband: the enum and the params table differ");

const clv_filter clv__filter_deband = {
    .name = "deband",
    .help = "remove banding: pixels near their random neighbours' average take it (ffmpeg's "
            "deband)",
    .params = params,
    .param_count = DB_PARAM_COUNT,
    .program = "deband",
    .kernels = kernels,
    .deep = 1,
    .aliases = aliases,
    .state_size = sizeof(db_state),
    .configure = configure,
    .uninit = uninit,
    .resize = resize,
    .run = run,
    .reference = reference,
};
