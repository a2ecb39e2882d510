/* overlay.c - ffmpeg's overlay (vf_overlay): the second input drawn over
 * the first at (x, y). Two blends:
 *
 * - format=yuv420 (the default) and auto, where the graph lets the stage
 *   keep input 0 in its 4:2:0 planes (clv__graph_planes: the overlay is the
 *   graph's output over input 0 as it comes; the stage's 8-bit 4:2:0 in
 *   and out): vf_overlay's blend_slice_yuv into the planes, the rest of
 *   the frame copied (run_planes, cl/overlay.cl's overlay_yuv420); the
 *   overlay's RGBA converted to 4:2:0 by the stage's own conversion.
 * - elsewhere, on RGBA frames (cl/overlay.cl's overlay): vf_overlay's
 *   packed-RGB blend (format=rgb, RGBA main) whatever `format` says: its
 *   integer arithmetic (FAST_DIV255) and what it does with the main
 *   frame's alpha (the overlay's alpha made straight against it; the
 *   output's alpha composited), identical to ffmpeg's for opaque video.
 *   `format` keeps ffmpeg's placement: x and y are rounded down to even
 *   where its chroma is subsampled (yuv420 aligns both, yuv422 x), as
 *   normalize_xy does.
 *
 * x and y are evaluated in vf_overlay's order (x, y, x again) over its
 * variables, each frame (eval=frame: n, t; n counts from 1 as vf_overlay's
 * frame_count_out does when it evaluates) or once per input size
 * (eval=init: n 0, t NAN); x and y keep their values from the frame before
 * (a first x of y sees y's last). A NaN x or y leaves the frame alone. No
 * evaluation happens on frames without an overlay (absent: pass). At 16 bits
 * the same formulas on 0-65535 with exact rounded division (ffmpeg has no
 * 16-bit RGB overlay). */
#include "filters.h"

#include <limits.h>
#include <math.h>
#include <string.h>

enum {
    OV_X,
    OV_Y,
    OV_EOF_ACTION,
    OV_EVAL,
    OV_SHORTEST,
    OV_FORMAT,
    OV_REPEATLAST,
    OV_ALPHA,
    OV_PARAM_COUNT
};

/* vf_overlay's variables, in the order of its var_names. */
enum {
    V_MAIN_W,
    V_MW,
    V_MAIN_H,
    V_MH,
    V_OVERLAY_W,
    V_OW,
    V_OVERLAY_H,
    V_OH,
    V_HSUB,
    V_VSUB,
    V_X,
    V_Y,
    V_N,
    V_POS,
    V_T,
    V_COUNT
};
#define OV_VARS "main_w|W|main_h|H|overlay_w|w|overlay_h|h|hsub|vsub|x|y|n|pos|t"
#define OV_FORMATS "yuv420|yuv420p10|yuv422|yuv422p10|yuv444|rgb|gbrp|auto"
enum { EVAL_INIT, EVAL_FRAME };

static const char *const kernels[] = {"overlay", NULL};

/* The position's state, the device run's and the reference's alike: the
 * variables (x and y carry over from frame to frame) and the sizes they were
 * set up for (0: none yet). */
typedef struct ov_eval {
    double vars[V_COUNT];
    int x, y;
    int mw, mh, ow, oh;
} ov_eval;

typedef struct ov_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    ov_eval eval;
    clv__expr *x_expr, *y_expr;
    /* format=yuv420 in the stage's planes (run_planes): overlay_yuv420, the
     * stage's rgba_to_yuv420 and the overlay's planes (made at the first
     * such run) */
    cl_kernel yuv, to_yuv;
    cl_mem oyuv;
    size_t oyuv_size;
} ov_state;

static int parse(const clv_value *v, int param, clv__expr **out, clv_msg *msg)
{
    char buf[256];
    const char *names[V_COUNT + 1];
    clv__expr_names(OV_VARS, buf, sizeof buf, names, V_COUNT + 1);
    return clv__expr_parse(clv_value_text(&v[param]), names, out, msg);
}

/* log2 of the chroma subsampling of `format`'s word: yuv420 both ways,
 * yuv422 across; none for yuv444, rgb, gbrp and auto (RGBA in). */
static void subsampling(const clv_value *v, int *hsub, int *vsub)
{
    int f = (int)v[OV_FORMAT].i;
    *hsub = f <= 3;
    *vsub = f <= 1;
}

/* normalize_xy: NaN is INT_MAX (no overlay), else (int)d rounded down to a
 * multiple of 2^sub (d beyond int saturates: off the frame either way). */
static int normalize_xy(double d, int sub)
{
    if (isnan(d) || d >= INT_MAX)
        return INT_MAX;
    if (d <= INT_MIN)
        return INT_MIN;
    return (int)d & ~((1 << sub) - 1);
}

static void eval_xy(ov_eval *e, const clv__expr *xe, const clv__expr *ye, int hsub, int vsub)
{
    e->vars[V_X] = clv__expr_eval(xe, e->vars);
    e->vars[V_Y] = clv__expr_eval(ye, e->vars);
    e->vars[V_X] = clv__expr_eval(xe, e->vars); /* x may use y */
    e->x = normalize_xy(e->vars[V_X], hsub);
    e->y = normalize_xy(e->vars[V_Y], vsub);
}

/* The position for a frame of main mw x mh and overlay ow x oh: config
 * (again) for new sizes, then eval=frame's evaluation. */
static void position(ov_eval *e, const clv_value *v, const clv__expr *xe, const clv__expr *ye,
                     int mw, int mh, int ow, int oh, uint64_t frame_index, double time, int planes)
{
    int hsub, vsub;
    subsampling(v, &hsub, &vsub);
    if (planes) /* 4:2:0 planes: format=auto is yuv420 there, as ffmpeg's on yuv420p */
        hsub = vsub = 1;
    int frame_mode = v[OV_EVAL].i == EVAL_FRAME;
    if (e->mw != mw || e->mh != mh || e->ow != ow || e->oh != oh) {
        /* config_input_overlay */
        e->vars[V_MAIN_W] = e->vars[V_MW] = mw;
        e->vars[V_MAIN_H] = e->vars[V_MH] = mh;
        e->vars[V_OVERLAY_W] = e->vars[V_OW] = ow;
        e->vars[V_OVERLAY_H] = e->vars[V_OH] = oh;
        e->vars[V_HSUB] = 1 << hsub;
        e->vars[V_VSUB] = 1 << vsub;
        e->vars[V_X] = e->vars[V_Y] = NAN;
        e->vars[V_N] = 0;
        e->vars[V_T] = e->vars[V_POS] = NAN;
        e->x = e->y = 0; /* vf_overlay's zeroed context until evaluated */
        if (!frame_mode)
            eval_xy(e, xe, ye, hsub, vsub);
        e->mw = mw;
        e->mh = mh;
        e->ow = ow;
        e->oh = oh;
    }
    if (frame_mode) {
        e->vars[V_N] = (double)(frame_index + 1);
        e->vars[V_T] = time;
        e->vars[V_POS] = NAN;
        eval_xy(e, xe, ye, hsub, vsub);
    }
}

/* 1 when some of the overlay lands on the main frame (x, y then inside
 * (-ow, mw) and (-oh, mh)). */
static int visible(const ov_eval *e)
{
    return e->x < e->mw && (long long)e->x + e->ow > 0 && e->y < e->mh &&
           (long long)e->y + e->oh > 0;
}

static int configure(void *state, clv_context *ctx, const clv_value *v, clv_msg *msg)
{
    (void)ctx;
    ov_state *s = state;
    clv__expr_free(s->x_expr);
    clv__expr_free(s->y_expr);
    s->x_expr = s->y_expr = NULL;
    s->eval.mw = 0; /* set up again for the new values */
    int err = parse(v, OV_X, &s->x_expr, msg);
    if (!err)
        err = parse(v, OV_Y, &s->y_expr, msg);
    return err;
}

static void uninit(void *state)
{
    ov_state *s = state;
    clv__expr_free(s->x_expr);
    clv__expr_free(s->y_expr);
    s->x_expr = s->y_expr = NULL;
    clv__kernel_release(&s->yuv);
    clv__kernel_release(&s->to_yuv);
    clv__mem_release(&s->oyuv);
    s->oyuv_size = 0;
}

static int run(void *state, const clv_launch *l)
{
    ov_state *s = state;
    if (!s->x_expr || !s->y_expr || l->input_count < 2 || !l->inputs)
        return CLV_EINVAL;
    const clv_frame *ovl = &l->inputs[1];
    cl_int present = ovl->buffer != NULL;
    cl_int x = 0, y = 0, ow = 0, oh = 0, os = 0;
    if (present) {
        position(&s->eval, l->values, s->x_expr, s->y_expr, l->width, l->height, ovl->width,
                 ovl->height, l->frame_index, l->time, 0);
        present = visible(&s->eval);
        x = s->eval.x;
        y = s->eval.y;
        ow = ovl->width;
        oh = ovl->height;
        os = ovl->stride;
    }
    cl_int ds = l->out_stride, premul = l->values[OV_ALPHA].i == 1;
    cl_mem omem = present ? ovl->buffer : l->src;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 1, CLV__ARG(ds));
    if (!err && clv__kernel_mem_arg(s->kernel, 6, omem, NULL) != CL_SUCCESS)
        err = CLV_ECL;
    if (!err)
        err = clv__kernel_args(s->kernel, 7, 7, CLV__ARG(ow), CLV__ARG(oh), CLV__ARG(os),
                               CLV__ARG(x), CLV__ARG(y), CLV__ARG(premul), CLV__ARG(present));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

/* format=yuv420 (and auto, on 4:2:0 main frames) blends in the planes. */
static int planes(const clv_value *v)
{
    return v[OV_FORMAT].i == 0 || v[OV_FORMAT].i == 7;
}

/* ffmpeg's format=yuv420 in the stage's planes (cl/overlay.cl's
 * overlay_yuv420): the overlay's RGBA to 4:2:0 Y'CbCr by the stage's own
 * conversion (rgba_to_yuv420, the output's colours), then blended into the
 * main frame's planes as they are copied to the output. */
static int run_planes(void *state, const clv_launch *l, const clv__yuv_io *io)
{
    ov_state *s = state;
    clv_context *ctx = l->ctx;
    if (!s->x_expr || !s->y_expr || l->input_count < 2 || !l->inputs)
        return CLV_EINVAL;
    int err = 0;
    if (!s->yuv) {
        cl_program p = NULL;
        clv_msg why = {{0}};
        if ((err = clv__program_get(ctx, "overlay", &p, &why)) ||
            (err = clv__kernel_create(p, "overlay_yuv420", &s->yuv, &why)) ||
            (err = clv__program_get(ctx, "color", &p, &why)) ||
            (err = clv__kernel_create(p, "rgba_to_yuv420", &s->to_yuv, &why))) {
            clv__log(ctx, CLV__LOG_ERROR, "overlay (format=yuv420): %s", why.text);
            return err;
        }
    }
    const clv_frame *ovl = &l->inputs[1];
    cl_int present = ovl->buffer != NULL;
    cl_int x = 0, y = 0, ow = 1, oh = 1, os = 1;
    if (present) {
        position(&s->eval, l->values, s->x_expr, s->y_expr, l->width, l->height, ovl->width,
                 ovl->height, l->frame_index, l->time, 1);
        present = visible(&s->eval);
        x = s->eval.x;
        y = s->eval.y;
        ow = ovl->width;
        oh = ovl->height;
        os = ovl->stride;
    }
    size_t need = clv_pixfmt_size(CLV_PIX_YUV420P, ow, oh);
    if (s->oyuv_size < need) {
        clv__mem_release(&s->oyuv);
        s->oyuv_size = 0;
        cl_int st = CL_SUCCESS;
        s->oyuv = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, need, NULL, &st);
        if (st != CL_SUCCESS) {
            s->oyuv = NULL;
            clv__log(ctx, CLV__LOG_ERROR, "overlay: cannot allocate %zu bytes: %s", need,
                     clv__cl_strerror(st));
            return CLV_ENOMEM;
        }
        s->oyuv_size = need;
    }
    clv_launch c = *l;
    c.done = NULL;
    if (present) {
        cl_int zero = 0;
        err = clv__kernel_args(s->to_yuv, 0, 7, CLV__ARG(ovl->buffer), CLV__ARG(s->oyuv),
                               CLV__ARG(ow), CLV__ARG(oh), CLV__ARG(os), CLV__ARG(zero),
                               CLV__ARG(io->out_coeffs));
        if (!err)
            err = clv__launch_pixels(&c, s->to_yuv, (ow + 1) / 2, (oh + 1) / 2);
        if (err)
            return err;
        c.wait_count = 0;
        c.wait = NULL;
    }
    cl_int w = l->width, h = l->height, premul = l->values[OV_ALPHA].i == 1;
    cl_int inplace = io->in == io->out && io->in_svm == io->out_svm && io->in_nv12 == io->out_nv12;
    cl_mem omem = present ? ovl->buffer : s->oyuv;
    if (clv__kernel_mem_arg(s->yuv, 0, io->in, io->in_svm) != CL_SUCCESS ||
        clv__kernel_mem_arg(s->yuv, 8, io->out, io->out_svm) != CL_SUCCESS)
        return CLV_ECL;
    err = clv__kernel_args(s->yuv, 1, 7, CLV__ARG(io->yoff), CLV__ARG(io->uoff), CLV__ARG(io->voff),
                           CLV__ARG(io->ys), CLV__ARG(io->us), CLV__ARG(io->vs),
                           CLV__ARG(io->in_nv12));
    if (!err)
        err = clv__kernel_args(s->yuv, 9, 13, CLV__ARG(io->out_nv12), CLV__ARG(w), CLV__ARG(h),
                               CLV__ARG(s->oyuv), CLV__ARG(omem), CLV__ARG(ow), CLV__ARG(oh),
                               CLV__ARG(os), CLV__ARG(x), CLV__ARG(y), CLV__ARG(premul),
                               CLV__ARG(present), CLV__ARG(inplace));
    c.done = l->done;
    return err ? err : clv__launch_pixels(&c, s->yuv, (w + 1) / 2, (h + 1) / 2);
}

/* ---- The reference: vf_overlay's blend_slice_packed_rgb, plainly ------- */

static int div_max(int64_t v, int depth)
{
    return depth == 16 ? (int)((v + 32767) / 65535) : (int)((((v) + 128) * 257) >> 16);
}

static void blend(clv_image *dst, int px, int py, const clv_image *ovl, int ox, int oy, int premul)
{
    const int depth = clv__depth(dst);
    const int64_t M = clv__maxv(dst);
    const int64_t sa = clv__get(ovl, ox, oy, 3), da = clv__get(dst, px, py, 3);
    int64_t alpha = sa;
    if (alpha != 0 && alpha != M) /* UNPREMULTIPLY_ALPHA */
        alpha = alpha * M * M / ((alpha + da) * M - da * alpha);
    for (int c = 0; c < 3; c++) {
        int64_t d = clv__get(dst, px, py, c), s = clv__get(ovl, ox, oy, c);
        if (alpha == M)
            d = s;
        else if (alpha != 0 && premul) {
            d = div_max(d * (M - alpha), depth) + s;
            d = d > M ? M : d;
        } else if (alpha != 0)
            d = div_max(d * (M - alpha) + s * alpha, depth);
        clv__put(dst, px, py, c, (int)d);
    }
    if (alpha == M)
        clv__put(dst, px, py, 3, (int)sa);
    else if (alpha != 0)
        clv__put(dst, px, py, 3, (int)(da + div_max((M - da) * sa, depth)));
}

static int reference_n(void *ref_state, const clv_value *v, const clv_image *src, int n,
                       clv_image *dst, uint64_t frame_index, double time)
{
    ov_eval *e = ref_state;
    const clv_image *main_img = &src[0], *ovl = n > 1 ? &src[1] : NULL;
    const size_t px_bytes = (size_t)clv__depth(dst) / 2;
    for (int y = 0; y < dst->height; y++)
        memcpy(dst->pixels + (size_t)y * dst->stride, clv__px_at(main_img, 0, y),
               (size_t)dst->width * px_bytes);
    if (!ovl || !ovl->pixels)
        return 0; /* absent: the main frame passes */
    clv__expr *xe = NULL, *ye = NULL;
    if (parse(v, OV_X, &xe, NULL) || parse(v, OV_Y, &ye, NULL)) {
        clv__expr_free(xe);
        return CLV_EINVAL;
    }
    position(e, v, xe, ye, main_img->width, main_img->height, ovl->width, ovl->height, frame_index,
             time, 0);
    clv__expr_free(xe);
    clv__expr_free(ye);
    if (!visible(e))
        return 0;
    /* the overlay's rows and columns that land on the frame */
    int i0 = e->y < 0 ? -e->y : 0,
        i1 = ovl->height < dst->height - e->y ? ovl->height : dst->height - e->y;
    int j0 = e->x < 0 ? -e->x : 0,
        j1 = ovl->width < dst->width - e->x ? ovl->width : dst->width - e->x;
    int premul = v[OV_ALPHA].i == 1;
    for (int i = i0; i < i1; i++)
        for (int j = j0; j < j1; j++)
            blend(dst, e->x + j, e->y + i, ovl, j, i, premul);
    return 0;
}

static int output_size_n(const clv_value *v, const clv_size *in, int n, clv_size *out, clv_msg *msg)
{
    (void)v;
    (void)n;
    (void)msg;
    *out = in[0]; /* the main input's */
    return 0;
}

int clv__same_size2(const char *filter, const char *role1, const char *role0, const clv_size *in,
                    int n, clv_size *out, clv_msg *msg)
{
    if (n > 1 && (in[1].width != in[0].width || in[1].height != in[0].height))
        return clv__fail(
            msg, CLV_ERANGE, "%s: the %s input is %dx%d, the %s %dx%d: they must be the same size",
            filter, role1, in[1].width, in[1].height, role0, in[0].width, in[0].height);
    *out = in[0];
    return 0;
}

/* framesync's rules: repeatlast=0 or eof_action=pass is pass; then
 * shortest=1 or eof_action=endall is endall. */
clv_eof_action clv__framesync_eof(int eof_action, int shortest, int repeatlast)
{
    clv_eof_action a = eof_action == 1   ? CLV_EOF_ENDALL
                       : eof_action == 2 ? CLV_EOF_PASS
                                         : CLV_EOF_REPEAT;
    if (!repeatlast || a == CLV_EOF_PASS)
        a = CLV_EOF_PASS;
    if (shortest || eof_action == 1)
        a = CLV_EOF_ENDALL;
    return a;
}

static clv_eof_action eof_action(const clv_value *v)
{
    return clv__framesync_eof((int)v[OV_EOF_ACTION].i, (int)v[OV_SHORTEST].i,
                              (int)v[OV_REPEATLAST].i);
}

static const clv_param params[] = {
    {"x", CLV_PARAM_EXPR, "0", 0, 0, OV_VARS, "the overlay's left edge on the main frame", 0},
    {"y", CLV_PARAM_EXPR, "0", 0, 0, OV_VARS, "the overlay's top edge on the main frame", 0},
    {"eof_action", CLV_PARAM_ENUM, "repeat", 0, 2, "repeat|endall|pass",
     "when the overlay ends: keep its last frame, end the output, or pass the main frame", 1},
    {"eval", CLV_PARAM_ENUM, "frame", 0, 1, "init|frame",
     "evaluate x and y once (init) or for every frame", 1},
    {"shortest", CLV_PARAM_INT, "0", 0, 1, NULL, "1: end when the overlay ends (endall)", 1},
    {"format", CLV_PARAM_ENUM, "yuv420", 0, 7, OV_FORMATS,
     "ffmpeg's blending format: yuv420 (and auto) blend in the 4:2:0 planes where the overlay is "
     "the graph's output over input 0 as it comes (x, y rounded to even); else the RGB blend "
     "(yuv420/yuv422 keep their rounding of x and y)",
     1},
    {"repeatlast", CLV_PARAM_INT, "1", 0, 1, NULL, "0: pass the main frame after the overlay ends",
     1},
    {"alpha", CLV_PARAM_ENUM, "straight", 0, 1, "straight|premultiplied",
     "the overlay's colours: straight, or premultiplied by its alpha", 1},
};
_Static_assert(sizeof params / sizeof params[0] == OV_PARAM_COUNT,
               "overlay: the enum and the params table differ");

const clv_filter clv__filter_overlay = {
    .timeline = 1, /* ffmpeg's enable= */
    .name = "overlay",
    .help = "the second input over the first at (x, y) (ffmpeg's overlay: in the Y'CbCr planes "
            "at a graph's output over input 0, else the RGB blend)",
    .params = params,
    .param_count = OV_PARAM_COUNT,
    .program = "overlay",
    .state_size = sizeof(ov_state),
    .kernels = kernels,
    .deep = 1,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .ref_state_size = sizeof(ov_eval),
    .inputs = 2,
    .output_size_n = output_size_n,
    .reference_n = reference_n,
    .eof_action = eof_action,
    .wait_first = 0,
    .planes = planes,
    .run_planes = run_planes,
};
