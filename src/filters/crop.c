/* crop.c - ffmpeg's crop (vf_crop): the out_w x out_h window at (x, y) of
 * the picture (cl/crop.cl). w and h are evaluated once per input size in
 * vf_crop's order; x and y each frame (of n and t), clipped as vf_crop
 * clips them. At 16 bits the same window of the RGBA16 picture, as
 * vf_crop cuts rgba64. */
#include "filters.h"

#include <limits.h>
#include <math.h>
#include <string.h>

enum { CROP_W, CROP_H, CROP_X, CROP_Y, CROP_KEEP_ASPECT, CROP_EXACT, CROP_PARAM_COUNT };

/* vf_crop's variables, in the order of its var_names (and of `choices`). */
enum {
    V_IN_W,
    V_IW,
    V_IN_H,
    V_IH,
    V_OUT_W,
    V_OW,
    V_OUT_H,
    V_OH,
    V_A,
    V_SAR,
    V_DAR,
    V_HSUB,
    V_VSUB,
    V_X,
    V_Y,
    V_N,
    V_POS,
    V_T,
    V_COUNT
};
#define CROP_VARS "in_w|iw|in_h|ih|out_w|ow|out_h|oh|a|sar|dar|hsub|vsub|x|y|n|pos|t"

static const char *const kernels[] = {"crop", NULL};

/* What the device run and the reference both keep between frames: vf_crop's
 * variables and its last position, which a NaN x or y keeps, set again for
 * each input size. Plain data (the reference's state is freed with free). */
typedef struct crop_eval {
    double vars[V_COUNT];
    int w, h, x, y;
    int in_w, in_h; /* the size vars was made for; 0: none yet */
} crop_eval;

typedef struct crop_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    crop_eval eval;
    clv__expr *x_expr, *y_expr; /* parsed for the size in eval */
} crop_state;

/* vf_crop's normalize_double: lrint of d into *n; NaN leaves *n and is an
 * error, beyond int *n saturates and it is an error. */
static int normalize(int *n, double d)
{
    if (isnan(d))
        return -1;
    if (d > INT_MAX || d < INT_MIN) {
        *n = d > INT_MAX ? INT_MAX : INT_MIN;
        return -1;
    }
    *n = (int)lrint(d);
    return 0;
}

static int parse(const clv_value *v, int param, clv__expr **out, clv_msg *msg)
{
    char buf[256];
    const char *names[V_COUNT + 1];
    clv__expr_names(CROP_VARS, buf, sizeof buf, names, V_COUNT + 1);
    return clv__expr_parse(clv_value_text(&v[param]), names, out, msg);
}

/* The variables of vf_crop's config_input and out_w/out_h evaluated in its
 * order (w, h, w again: w may use oh). */
static int crop_size(const clv_value *v, const clv_size *in, double *vars, int *w, int *h,
                     clv_msg *msg)
{
    vars[V_IN_W] = vars[V_IW] = in->width;
    vars[V_IN_H] = vars[V_IH] = in->height;
    vars[V_A] = (float)in->width / in->height; /* vf_crop's own float division */
    vars[V_SAR] = in->sar_num > 0 && in->sar_den > 0 ? (double)in->sar_num / in->sar_den : 1;
    vars[V_DAR] = vars[V_A] * vars[V_SAR];
    vars[V_HSUB] = vars[V_VSUB] = 1; /* RGBA: no chroma subsampling */
    vars[V_X] = vars[V_Y] = NAN;
    vars[V_OUT_W] = vars[V_OW] = vars[V_OUT_H] = vars[V_OH] = NAN;
    vars[V_N] = 0;
    vars[V_T] = vars[V_POS] = NAN;
    clv__expr *we = NULL, *he = NULL;
    int err = parse(v, CROP_W, &we, msg);
    if (!err)
        err = parse(v, CROP_H, &he, msg);
    if (!err) {
        /* the first w may be NaN (of oh); the others are errors as
         * av_expr_parse_and_eval makes them */
        vars[V_OUT_W] = vars[V_OW] = clv__expr_eval(we, vars);
        vars[V_OUT_H] = vars[V_OH] = clv__expr_eval(he, vars);
        if (!isnan(vars[V_OUT_H]))
            vars[V_OUT_W] = vars[V_OW] = clv__expr_eval(we, vars);
        if (isnan(vars[V_OUT_H]) || isnan(vars[V_OUT_W]))
            err = clv__fail(msg, CLV_ERANGE, "%s '%s' is not a number (is it self-referencing?)",
                            isnan(vars[V_OUT_H]) ? "out_h" : "out_w",
                            clv_value_text(&v[isnan(vars[V_OUT_H]) ? CROP_H : CROP_W]));
        else if (normalize(w, vars[V_OUT_W]) || normalize(h, vars[V_OUT_H]))
            err = clv__fail(msg, CLV_ERANGE, "the size out_w '%s' x out_h '%s' is %g x %g: too big",
                            clv_value_text(&v[CROP_W]), clv_value_text(&v[CROP_H]), vars[V_OUT_W],
                            vars[V_OUT_H]);
    }
    clv__expr_free(we);
    clv__expr_free(he);
    if (err)
        return err;
    if (*w <= 0 || *h <= 0 || *w > in->width || *h > in->height)
        return clv__fail(msg, CLV_ERANGE,
                         "a crop of %dx%d (out_w '%s', out_h '%s') out of %dx%d frames: each side "
                         "must be from 1 to the input's",
                         *w, *h, clv_value_text(&v[CROP_W]), clv_value_text(&v[CROP_H]), in->width,
                         in->height);
    return 0;
}

static int output_size(const clv_value *v, const clv_size *in, clv_size *out, clv_msg *msg)
{
    double vars[V_COUNT];
    int w = 0, h = 0, err = crop_size(v, in, vars, &w, &h, msg);
    if (err)
        return err;
    out->width = w;
    out->height = h;
    if (v[CROP_KEEP_ASPECT].i) /* the display aspect kept: sar * (iw / ih) / (w / h) */
        clv__sar_mul(in, (int64_t)in->width * h, (int64_t)in->height * w, out);
    return 0;
}

/* vf_crop's config_input for frames of *in: the size and the default
 * position (the centre). */
static int eval_setup(crop_eval *e, const clv_value *v, const clv_size *in, clv_msg *msg)
{
    e->in_w = 0;
    int err = crop_size(v, in, e->vars, &e->w, &e->h, msg);
    if (err)
        return err;
    e->x = (in->width - e->w) / 2;
    e->y = (in->height - e->h) / 2;
    e->in_w = in->width;
    e->in_h = in->height;
    return 0;
}

/* vf_crop's filter_frame: x and y of frame n at time t (x twice: it may
 * use y), clipped into the picture. */
static void eval_position(crop_eval *e, const clv__expr *xe, const clv__expr *ye, uint64_t n,
                          double t)
{
    e->vars[V_N] = (double)n;
    e->vars[V_T] = t;
    e->vars[V_POS] = NAN; /* no file position here */
    e->vars[V_X] = clv__expr_eval(xe, e->vars);
    e->vars[V_Y] = clv__expr_eval(ye, e->vars);
    e->vars[V_X] = clv__expr_eval(xe, e->vars);
    normalize(&e->x, e->vars[V_X]);
    normalize(&e->y, e->vars[V_Y]);
    if (e->x < 0)
        e->x = 0;
    if (e->y < 0)
        e->y = 0;
    if ((unsigned)e->x + (unsigned)e->w > (unsigned)e->in_w)
        e->x = e->in_w - e->w;
    if ((unsigned)e->y + (unsigned)e->h > (unsigned)e->in_h)
        e->y = e->in_h - e->h;
}

static int resize(void *state, clv_context *ctx, const clv_value *v, const clv_size *in,
                  const clv_size *out, clv_msg *msg)
{
    (void)ctx;
    (void)out;
    crop_state *s = state;
    clv__expr_free(s->x_expr);
    clv__expr_free(s->y_expr);
    s->x_expr = s->y_expr = NULL;
    int err = eval_setup(&s->eval, v, in, msg);
    if (!err)
        err = parse(v, CROP_X, &s->x_expr, msg);
    if (!err)
        err = parse(v, CROP_Y, &s->y_expr, msg);
    if (err)
        s->eval.in_w = 0;
    return err;
}

static void uninit(void *state)
{
    crop_state *s = state;
    clv__expr_free(s->x_expr);
    clv__expr_free(s->y_expr);
    s->x_expr = s->y_expr = NULL;
}

static int run(void *state, const clv_launch *l)
{
    crop_state *s = state;
    if (!s->eval.in_w || !s->x_expr || !s->y_expr)
        return CLV_EINVAL; /* resize failed */
    eval_position(&s->eval, s->x_expr, s->y_expr, l->frame_index, l->time);
    cl_int ow = l->out_width, oh = l->out_height, os = l->out_stride;
    cl_int x = s->eval.x, y = s->eval.y;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 5, CLV__ARG(ow), CLV__ARG(oh), CLV__ARG(os),
                               CLV__ARG(x), CLV__ARG(y));
    return err ? err : clv__launch_pixels(l, s->kernel, ow, oh);
}

static int reference_at(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                        uint64_t frame_index, double time)
{
    crop_eval *e = ref_state; /* its own, set up again for a new input size */
    if (e->in_w != src->width || e->in_h != src->height) {
        clv_size in = {src->width, src->height, 0, 1, 0, 0, 0};
        if (eval_setup(e, v, &in, NULL))
            return CLV_EINVAL;
    }
    clv__expr *xe = NULL, *ye = NULL;
    if (parse(v, CROP_X, &xe, NULL) || parse(v, CROP_Y, &ye, NULL)) {
        clv__expr_free(xe);
        return CLV_EINVAL;
    }
    eval_position(e, xe, ye, frame_index, time);
    clv__expr_free(xe);
    clv__expr_free(ye);
    const size_t px_bytes = (size_t)clv__depth(dst) / 2; /* 4 or 8 */
    for (int y = 0; y < dst->height; y++)
        memcpy(dst->pixels + (size_t)y * dst->stride, clv__px_at(src, e->x, e->y + y),
               (size_t)dst->width * px_bytes);
    return 0;
}

static const clv_param params[] = {
    {"w", CLV_PARAM_EXPR, "iw", 0, 0, CROP_VARS, "width of the window (once per input size)", 0},
    {"h", CLV_PARAM_EXPR, "ih", 0, 0, CROP_VARS, "height of the window (once per input size)", 0},
    {"x", CLV_PARAM_EXPR, "(in_w-out_w)/2", 0, 0, CROP_VARS,
     "left edge of the window, each frame (n, t); clipped into the picture", 0},
    {"y", CLV_PARAM_EXPR, "(in_h-out_h)/2", 0, 0, CROP_VARS,
     "top edge of the window, each frame (n, t); clipped into the picture", 0},
    {"keep_aspect", CLV_PARAM_INT, "0", 0, 1, NULL, "1: keep the display aspect (the SAR changes)",
     1},
    {"exact", CLV_PARAM_INT, "0", 0, 1, NULL,
     "exact cropping of subsampled formats (RGBA frames always are)", 1},
};
_Static_assert(sizeof params / sizeof params[0] == CROP_PARAM_COUNT,
               "crop: the enum and the params table differ");

static const char *const aliases[] = {"out_w", "w", "out_h", "h", NULL};

const clv_filter clv__filter_crop = {
    .name = "crop",
    .help = "the w x h window at (x, y) of the picture (ffmpeg's crop)",
    .params = params,
    .param_count = CROP_PARAM_COUNT,
    .program = "crop",
    .output_size = output_size,
    .aliases = aliases,
    .state_size = sizeof(crop_state),
    .kernels = kernels,
    .deep = 1,
    .uninit = uninit,
    .resize = resize,
    .run = run,
    .ref_state_size = sizeof(crop_eval),
    .reference_at = reference_at,
};
