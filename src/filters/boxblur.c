/* boxblur.c - ffmpeg's boxblur and avgblur: the mean of a (2rx+1) x (2ry+1)
 * window, clamp-to-edge, as box passes of the blur family (blur.c,
 * cl/blur.cl): running sums, so every radius costs the same per pixel. The
 * window's sum S is exact and the mean rounds once, floor((S + n/2) / n)
 * for a window of n pixels, computed exactly in integers (32-bit, or 64-bit
 * where 65535 * n passes 32 bits); at 16 bits the same on 0-65535.
 *
 * avgblur (sizeX, planes, sizeY): ffmpeg's radii, clamped to half the
 * frame's width and height as ffmpeg clamps them; ffmpeg truncates the
 * mean, this rounds it. boxblur (luma_radius:luma_power:chroma_radius:
 * chroma_power:alpha_radius:alpha_power, radii as ffmpeg's expressions of
 * w, h, cw, ch, hsub, vsub): the square window of the radius, `power`
 * times; ffmpeg mirrors the picture at its edges, blurs across power times
 * and then down power times, rounding by a reciprocal, and refuses radii
 * over half the frame's smaller side, which this clamps to that instead.
 * On RGB frames the luma's radius and power act on R, G and B and alpha's
 * on alpha (unset: the luma's, as in ffmpeg); the chroma's are checked and
 * have nothing to act on. As in ffmpeg's planes, bit 0 of avgblur's planes
 * is R, G and B and bit 3 alpha. */
#include "filters.h"

#include <limits.h>
#include <math.h>
#include <string.h>

typedef struct box_state {
    clv__blur blur;
    int radius[2]; /* boxblur: the luma's and alpha's radius for the frame size of resize */
} box_state;

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    return clv__blur_init(&((box_state *)state)->blur, ctx, prog, 1, msg);
}

static void uninit(void *state)
{
    clv__blur_uninit(&((box_state *)state)->blur);
}

/* The channels a planes value blurs. */
static int planes_mask(int64_t planes)
{
    return (planes & 1 ? 7 : 0) | (int)(planes & 8);
}

/* ---- avgblur ------------------------------------------------------------- */

enum { AVG_SIZEX, AVG_PLANES, AVG_SIZEY, AVG_PARAM_COUNT };

static void avg_radii(const clv_value *v, int w, int h, int *rx, int *ry)
{
    int sx = (int)v[AVG_SIZEX].i, sy = v[AVG_SIZEY].i > 0 ? (int)v[AVG_SIZEY].i : sx;
    *rx = sx < w / 2 ? sx : w / 2;
    *ry = sy < h / 2 ? sy : h / 2;
}

static int avg_run(void *state, const clv_launch *l)
{
    box_state *st = state;
    int rx, ry;
    avg_radii(l->values, l->width, l->height, &rx, &ry);
    return clv__box_run(&st->blur, l, rx, ry, planes_mask(l->values[AVG_PLANES].i), l->src, l->dst);
}

static int avg_reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                         uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    int rx, ry;
    avg_radii(v, src->width, src->height, &rx, &ry);
    return clv__box_reference(rx, ry, planes_mask(v[AVG_PLANES].i), src, dst);
}

static const clv_param avg_params[] = {
    {"sizeX", CLV_PARAM_INT, "1", 1, 1024, NULL,
     "radius across: the window is 2 sizeX + 1 wide (at most half the frame's width)", 1},
    {"planes", CLV_PARAM_INT, "15", 0, 15, NULL,
     "ffmpeg's planes: bit 0 blurs R, G and B, bit 3 alpha (bits 1, 2: no effect on RGB)", 1},
    {"sizeY", CLV_PARAM_INT, "0", 0, 1024, NULL, "radius down; 0: sizeX", 1},
};
_Static_assert(sizeof avg_params / sizeof avg_params[0] == AVG_PARAM_COUNT,
               "avgblur: the enum and the params table differ");

const clv_filter clv__filter_avgblur = {
    .name = "avgblur",
    .help = "mean of the (2 sizeX + 1) x (2 sizeY + 1) window, rounded, clamp-to-edge, any size "
            "at one cost (ffmpeg's avgblur)",
    .params = avg_params,
    .param_count = AVG_PARAM_COUNT,
    .program = "blur",
    .deep = 1,
    .state_size = sizeof(box_state),
    .init = init,
    .uninit = uninit,
    .run = avg_run,
    .reference = avg_reference,
};

/* ---- boxblur ------------------------------------------------------------- */

enum { BB_LUMA_R, BB_LUMA_P, BB_CHROMA_R, BB_CHROMA_P, BB_ALPHA_R, BB_ALPHA_P, BB_PARAM_COUNT };

#define BB_NAMES "w|h|cw|ch|hsub|vsub"
#define BB_POWER_MAX 100

/* The radius expression of parameter p on a w x h frame, as ffmpeg takes
 * it (truncated), into *r; CLV_ERANGE for a negative or undefined one. A
 * radius past int is INT_MAX: any radius over half the frame's smaller
 * side is taken as that (bb_radii), 1e300 as 1e9. */
static int bb_radius(const clv_value *v, int p, int w, int h, int *r, clv_msg *msg)
{
    static const char *const what[] = {"luma_radius", "", "chroma_radius", "", "alpha_radius"};
    char buf[64];
    const char *names[8];
    clv__expr_names(BB_NAMES, buf, sizeof buf, names, 8);
    clv__expr *e = NULL;
    int err = clv__expr_parse(clv_value_text(&v[p]), names, &e, msg);
    if (err)
        return err;
    const double vars[] = {w, h, w, h, 1, 1};
    double res = clv__expr_eval(e, vars);
    clv__expr_free(e);
    if (!(res > -1)) /* NaN too */
        return clv__fail(msg, CLV_ERANGE,
                         "boxblur: %s='%s' gives %g on %dx%d frames; a radius is 0 or more",
                         what[p], clv_value_text(&v[p]), res, w, h);
    *r = res < INT_MAX ? (int)res : INT_MAX;
    return 0;
}

/* The luma's and alpha's radius on a w x h frame (alpha's "-1": the
 * luma's), each clamped to half the smaller side; the chroma's checked. */
static int bb_radii(const clv_value *v, int w, int h, int radius[2], clv_msg *msg)
{
    int chroma, err = bb_radius(v, BB_LUMA_R, w, h, &radius[0], msg);
    if (!err && strcmp(clv_value_text(&v[BB_CHROMA_R]), "-1"))
        err = bb_radius(v, BB_CHROMA_R, w, h, &chroma, msg);
    if (!err && strcmp(clv_value_text(&v[BB_ALPHA_R]), "-1"))
        err = bb_radius(v, BB_ALPHA_R, w, h, &radius[1], msg);
    else
        radius[1] = radius[0];
    int most = (w < h ? w : h) / 2;
    for (int k = 0; k < 2; k++)
        radius[k] = radius[k] < most ? radius[k] : most;
    return err;
}

/* The passes for the luma's and alpha's radius: (radius, mask) pairs into
 * pass[], their count returned; one copy (0, 0) when nothing blurs. */
static int bb_passes(const clv_value *v, const int radius[2], int pass[][2])
{
    int lp = (int)v[BB_LUMA_P].i, ap = v[BB_ALPHA_P].i < 0 ? lp : (int)v[BB_ALPHA_P].i;
    int together = radius[0] == radius[1] && lp == ap, count = 0;
    for (int k = 0; radius[0] > 0 && k < lp; k++) {
        pass[count][0] = radius[0];
        pass[count++][1] = together ? 15 : 7;
    }
    for (int k = 0; !together && radius[1] > 0 && k < ap; k++) {
        pass[count][0] = radius[1];
        pass[count++][1] = 8;
    }
    if (count == 0) {
        pass[0][0] = pass[0][1] = 0;
        count = 1;
    }
    return count;
}

static int bb_resize(void *state, clv_context *ctx, const clv_value *values, const clv_size *in,
                     const clv_size *out, clv_msg *msg)
{
    (void)ctx;
    (void)out;
    return bb_radii(values, in->width, in->height, ((box_state *)state)->radius, msg);
}

static int bb_run(void *state, const clv_launch *l)
{
    box_state *st = state;
    int pass[2 * BB_POWER_MAX + 1][2];
    int count = bb_passes(l->values, st->radius, pass);
    cl_mem in = l->src;
    for (int k = 0; k < count; k++) {
        cl_mem out = clv__pass_target(l, k, count);
        int err = clv__box_run(&st->blur, l, pass[k][0], pass[k][0], pass[k][1], in, out);
        if (err)
            return err;
        in = out;
    }
    return 0;
}

static int bb_reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                        uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    int radius[2], pass[2 * BB_POWER_MAX + 1][2];
    if (bb_radii(v, src->width, src->height, radius, NULL))
        return CLV_EINVAL;
    int count = bb_passes(v, radius, pass);
    clv_image tmp[2] = {{0}, {0}};
    for (int k = 0; k < 2 && k < count - 1; k++)
        if (clv_image_alloc_depth(&tmp[k], src->width, src->height, clv__depth(src))) {
            clv_image_free(&tmp[0]);
            return CLV_ENOMEM;
        }
    const clv_image *in = src;
    int err = 0;
    for (int k = 0; k < count && !err; k++) {
        clv_image *out = k == count - 1 ? dst : &tmp[k % 2];
        err = clv__box_reference(pass[k][0], pass[k][0], pass[k][1], in, out);
        in = out;
    }
    clv_image_free(&tmp[0]);
    clv_image_free(&tmp[1]);
    return err;
}

static const char *const bb_aliases[] = {
    "lr", "luma_radius",  "lp", "luma_power",  "cr", "chroma_radius", "cp", "chroma_power",
    "ar", "alpha_radius", "ap", "alpha_power", NULL};

static const clv_param bb_params[] = {
    {"luma_radius", CLV_PARAM_EXPR, "2", 0, 0, BB_NAMES,
     "radius of the box on R, G and B: an expression of w, h, cw, ch, hsub, vsub", 0},
    {"luma_power", CLV_PARAM_INT, "2", 0, BB_POWER_MAX, NULL, "times the box is applied", 1},
    {"chroma_radius", CLV_PARAM_EXPR, "-1", 0, 0, BB_NAMES,
     "ffmpeg's chroma radius: checked, nothing to act on in RGB", 0},
    {"chroma_power", CLV_PARAM_INT, "-1", -1, BB_POWER_MAX, NULL,
     "ffmpeg's chroma power: nothing to act on in RGB", 1},
    {"alpha_radius", CLV_PARAM_EXPR, "-1", 0, 0, BB_NAMES, "radius on alpha; -1: luma_radius", 0},
    {"alpha_power", CLV_PARAM_INT, "-1", -1, BB_POWER_MAX, NULL, "power on alpha; -1: luma_power",
     1},
};
_Static_assert(sizeof bb_params / sizeof bb_params[0] == BB_PARAM_COUNT,
               "boxblur: the enum and the params table differ");

const clv_filter clv__filter_boxblur = {
    .name = "boxblur",
    .help = "box blur of a radius (an expression) applied `power` times, clamp-to-edge, any "
            "radius at one cost (ffmpeg's boxblur options)",
    .params = bb_params,
    .param_count = BB_PARAM_COUNT,
    .program = "blur",
    .needs_scratch = 1,
    .deep = 1,
    .aliases = bb_aliases,
    .state_size = sizeof(box_state),
    .init = init,
    .uninit = uninit,
    .resize = bb_resize,
    .run = bb_run,
    .reference = bb_reference,
};
