/* drawbox.c - ffmpeg's drawbox and drawgrid (vf_drawbox.c, 5.1) on RGBA
 * frames (cl/drawbox.cl), their options, expressions and pixels:
 *
 *   x, y, w, h and t are expressions of dar, hsub, vsub, in_h, ih, in_w,
 *   iw, sar, x, y, h, w, t and fill, evaluated once per input size in
 *   vf_drawbox's order (x, y, w, h, t, six rounds, each name NaN until
 *   its first value); `fill` is iw for x, ih for y, iw - x for w, ih - y
 *   for h and INT_MAX for t (t=fill: a filled box). Each value is kept
 *   as an int, truncated; a w or h of 0 or less is the input's. hsub and
 *   vsub are 0: RGBA has no chroma subsampling.
 *   drawbox draws the pixels of [x, x + w) x [y, y + h) within t of its
 *   edges; drawgrid the pixels whose offsets from (x, y) modulo the cell
 *   w x h are below t across or down.
 *   color is ffmpeg's colour with its alpha A, or `invert`. A drawn pixel
 *   becomes (ch)((1 - A/255) v + A/255 c) in R, G and B in float, alpha
 *   kept (ffmpeg's packed-RGB code, these bytes on rgba); with replace=1
 *   the colour itself, alpha included; `invert` makes R, G, B max - v.
 *
 * At 16 bits the same on 0-65535 (c times 257). On Y'CbCr video ffmpeg
 * draws in Y'CbCr planes (chroma of subsampled pixels included), so its
 * edges differ there from clvid's RGBA box converted after. A NaN,
 * infinite or out-of-int value is refused, where ffmpeg's conversion to
 * int would give INT_MIN. */
#include "filters.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { DB_X, DB_Y, DB_W, DB_H, DB_COLOR, DB_T, DB_REPLACE, DB_PARAM_COUNT };

/* vf_drawbox's variables, in the order of its var_names; fill is VAR_MAX. */
enum {
    V_DAR,
    V_HSUB,
    V_VSUB,
    V_IN_H,
    V_IH,
    V_IN_W,
    V_IW,
    V_SAR,
    V_X,
    V_Y,
    V_H,
    V_W,
    V_T,
    V_FILL,
    V_COUNT
};
#define DB_VARS "dar|hsub|vsub|in_h|ih|in_w|iw|sar|x|y|h|w|t|fill"

/* The evaluated geometry. */
typedef struct db_geom {
    int x, y, w, h, t;
} db_geom;

/* How a drawn pixel changes: the kernel's mode and colour. */
typedef struct db_paint {
    int mode; /* 0 blend, 1 replace, 2 invert */
    float ka, al;
    uint8_t c[4];
} db_paint;

typedef struct db_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    db_geom g;
    int sized;
    db_paint paint; /* the device's: read from the values in configure */
} db_state;

static int paint_of(const clv_value *v, db_paint *p, const char *filter, clv_msg *msg)
{
    const char *text = clv_value_text(&v[DB_COLOR]);
    memset(p, 0, sizeof *p);
    if (!strcmp(text, "invert")) {
        p->mode = 2;
        return 0;
    }
    uint32_t rgba = 0;
    clv_msg why = {{0}};
    if (clv__color_parse(text, &rgba, &why))
        return clv__fail(msg, CLV_EPARSE, "filter '%s' parameter 'color': %s (or 'invert')", filter,
                         why.text);
    for (int c = 0; c < 4; c++)
        p->c[c] = (uint8_t)(rgba >> (24 - 8 * c));
    p->mode = v[DB_REPLACE].i ? 1 : 0;
    /* vf_drawbox's float alpha = A / 255.f and its 1.f - alpha */
    p->al = (float)p->c[3] / 255.f;
    p->ka = 1.f - p->al;
    return 0;
}

static int check_box(const clv_value *v, clv_msg *msg)
{
    db_paint p;
    return paint_of(v, &p, "drawbox", msg);
}

static int check_grid(const clv_value *v, clv_msg *msg)
{
    db_paint p;
    return paint_of(v, &p, "drawgrid", msg);
}

/* vf_drawbox's config_input: the expressions in their order, six rounds;
 * grid: drawgrid's defaults are the same here. */
static int geometry(const clv_value *v, const clv_size *in, db_geom *g, clv_msg *msg)
{
    static const int order[5] = {DB_X, DB_Y, DB_W, DB_H, DB_T};
    static const int var_of[5] = {V_X, V_Y, V_W, V_H, V_T};
    static const char *const names_of[5] = {"x", "y", "w", "h", "t"};
    char buf[256];
    const char *names[V_COUNT + 1];
    clv__expr_names(DB_VARS, buf, sizeof buf, names, V_COUNT + 1);
    clv__expr *e[5] = {NULL};
    int err = 0;
    for (int i = 0; i < 5 && !err; i++)
        err = clv__expr_parse(clv_value_text(&v[order[i]]), names, &e[i], msg);
    double vars[V_COUNT], res[5] = {0};
    const int known = in->sar_num > 0 && in->sar_den > 0;
    vars[V_IN_H] = vars[V_IH] = in->height;
    vars[V_IN_W] = vars[V_IW] = in->width;
    vars[V_SAR] = known ? (double)in->sar_num / in->sar_den : 1;
    vars[V_DAR] = (double)in->width / in->height * vars[V_SAR];
    vars[V_HSUB] = vars[V_VSUB] = 0;
    vars[V_X] = vars[V_Y] = vars[V_H] = vars[V_W] = vars[V_T] = NAN;
    int ints[5] = {0};
    for (int round = 0; round <= 5 && !err; round++)
        for (int i = 0; i < 5; i++) {
            const double fill[5] = {in->width, in->height, (double)in->width - ints[0],
                                    (double)in->height - ints[1], INT_MAX};
            vars[V_FILL] = fill[i];
            res[i] = vars[var_of[i]] = clv__expr_eval(e[i], vars);
            ints[i] = res[i] > -2147483649.0 && res[i] < 2147483648.0 ? (int)res[i] : INT_MIN;
        }
    for (int i = 0; i < 5 && !err; i++)
        if (!(res[i] > -2147483649.0 && res[i] < 2147483648.0))
            err = clv__fail(msg, CLV_ERANGE, "%s '%s' gives %g, not an int (%d to %d)", names_of[i],
                            clv_value_text(&v[order[i]]), isnan(res[i]) ? fabs(res[i]) : res[i],
                            INT_MIN, INT_MAX);
    for (int i = 0; i < 5; i++)
        clv__expr_free(e[i]);
    if (err)
        return err;
    g->x = ints[0];
    g->y = ints[1];
    g->w = ints[2] > 0 ? ints[2] : in->width;
    g->h = ints[3] > 0 ? ints[3] : in->height;
    g->t = ints[4];
    return 0;
}

static int output_size(const clv_value *v, const clv_size *in, clv_size *out, clv_msg *msg)
{
    db_geom g;
    *out = *in;
    return geometry(v, in, &g, msg);
}

static int resize(void *state, clv_context *ctx, const clv_value *v, const clv_size *in,
                  const clv_size *out, clv_msg *msg)
{
    (void)ctx;
    (void)out;
    db_state *s = state;
    int err = geometry(v, in, &s->g, msg);
    s->sized = !err;
    return err;
}

static int reference_resize(void *ref_state, const clv_value *v, const clv_size *in,
                            const clv_size *out)
{
    (void)out;
    db_state *s = ref_state;
    s->sized = geometry(v, in, &s->g, NULL) == 0;
    return 0;
}

/* The box's pixels as half-open ranges: [x0, x1) x [y0, y1) less the
 * inside of its outline [ix0, ix1) x [iy0, iy1), all within the frame
 * (vf_drawbox's region and pixel_belongs_to_box, in 64 bits). */
typedef struct db_ranges {
    int x0, y0, x1, y1, ix0, iy0, ix1, iy1;
} db_ranges;

static int clip64(int64_t v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : (int)v;
}

static db_ranges box_ranges(const db_geom *g, int width, int height)
{
    db_ranges r;
    const int64_t x = g->x, y = g->y, w = g->w, h = g->h, t = g->t;
    r.x0 = clip64(x, 0, width);
    r.y0 = clip64(y, 0, height);
    r.x1 = clip64(x + w, 0, width);
    r.y1 = clip64(y + h, 0, height);
    /* not drawn: x - px... all of px - x >= t, x + w - 1 - px >= t and the same down */
    r.ix0 = clip64(x + t, -1, width + 1);
    r.ix1 = clip64(x + w - t, -1, width + 1);
    r.iy0 = clip64(y + t, -1, height + 1);
    r.iy1 = clip64(y + h - t, -1, height + 1);
    return r;
}

/* drawgrid's offsets as the complements modulo the cell. */
static void grid_offsets(const db_geom *g, cl_uint off[2], cl_uint cell[2])
{
    cell[0] = (cl_uint)g->w;
    cell[1] = (cl_uint)g->h;
    off[0] = (cl_uint)(((-(int64_t)g->x) % g->w + g->w) % g->w);
    off[1] = (cl_uint)(((-(int64_t)g->y) % g->h + g->h) % g->h);
}

/* The colour read once a value set, not each frame. */
static int configure(void *state, clv_context *ctx, const clv_value *v, clv_msg *msg)
{
    (void)ctx;
    db_state *s = state;
    return paint_of(v, &s->paint, "", msg);
}

static int launch(void *state, const clv_launch *l, int grid)
{
    db_state *s = state;
    const db_paint p = s->paint;
    if (!s->sized)
        return CLV_EINVAL;
    cl_int mode = p.mode;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err && grid) {
        cl_uint off[2], cell[2];
        grid_offsets(&s->g, off, cell);
        cl_uint2 o = {{off[0], off[1]}}, c = {{cell[0], cell[1]}};
        cl_int t = s->g.t;
        err = clv__kernel_args(s->kernel, 5, 6, CLV__ARG(o), CLV__ARG(c), CLV__ARG(t),
                               CLV__ARG(mode), CLV__ARG(p.ka), CLV__ARG(p.al));
    } else if (!err) {
        db_ranges r = box_ranges(&s->g, l->width, l->height);
        cl_int4 box = {{r.x0, r.y0, r.x1, r.y1}}, inner = {{r.ix0, r.iy0, r.ix1, r.iy1}};
        err = clv__kernel_args(s->kernel, 5, 5, CLV__ARG(box), CLV__ARG(inner), CLV__ARG(mode),
                               CLV__ARG(p.ka), CLV__ARG(p.al));
    }
    const int colour_arg = grid ? 11 : 10;
    if (!err && l->depth == 16) {
        cl_ushort4 c16;
        for (int c = 0; c < 4; c++)
            c16.s[c] = (cl_ushort)(p.c[c] * 257);
        err = clv__kernel_args(s->kernel, colour_arg, 1, CLV__ARG(c16));
    } else if (!err) {
        cl_uchar4 c8 = {{p.c[0], p.c[1], p.c[2], p.c[3]}};
        err = clv__kernel_args(s->kernel, colour_arg, 1, CLV__ARG(c8));
    }
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

static int run_box(void *state, const clv_launch *l)
{
    return launch(state, l, 0);
}

static int run_grid(void *state, const clv_launch *l)
{
    return launch(state, l, 1);
}

/* One channel of a drawn pixel, as the kernel's drawbox_paint (no
 * contraction: each product and the sum rounded to float). */
static int blend(float ka, float al, int v, int c)
{
    const float p = ka * (float)v, q = al * (float)c;
    return (int)(p + q);
}

static int reference_any(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                         int grid)
{
    db_state *s = ref_state;
    db_paint p;
    if (paint_of(v, &p, "", NULL))
        return CLV_EINVAL;
    if (!s->sized) { /* no resize yet: the aspect unknown */
        clv_size in = {src->width, src->height, 0, 1, 0, 0, 0};
        if (geometry(v, &in, &s->g, NULL))
            return CLV_EINVAL;
    }
    const db_geom *g = &s->g;
    const db_ranges r = box_ranges(g, src->width, src->height);
    const int maxv = clv__maxv(src);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            int on;
            if (grid) {
                int64_t mx = ((int64_t)x - g->x) % g->w, my = ((int64_t)y - g->y) % g->h;
                mx += mx < 0 ? g->w : 0;
                my += my < 0 ? g->h : 0;
                on = mx < g->t || my < g->t;
            } else {
                const int64_t gx = g->x, gy = g->y;
                on = x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1 &&
                     (y - gy < g->t || gy + g->h - 1 - y < g->t || x - gx < g->t ||
                      gx + g->w - 1 - x < g->t);
            }
            for (int c = 0; c < 4; c++) {
                int q = clv__get(src, x, y, c);
                const int col = clv__scale8(src, p.c[c]);
                if (on && p.mode == 2 && c < 3)
                    q = maxv - q;
                else if (on && p.mode == 1)
                    q = col;
                else if (on && p.mode == 0 && c < 3)
                    q = blend(p.ka, p.al, q, col);
                clv__put(dst, x, y, c, q);
            }
        }
    return 0;
}

static int reference_box(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                         uint64_t frame_index)
{
    (void)frame_index;
    return reference_any(ref_state, v, src, dst, 0);
}

static int reference_grid(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                          uint64_t frame_index)
{
    (void)frame_index;
    return reference_any(ref_state, v, src, dst, 1);
}

static const clv_param box_params[] = {
    {"x", CLV_PARAM_EXPR, "0", 0, 0, DB_VARS, "left edge of the box", 0},
    {"y", CLV_PARAM_EXPR, "0", 0, 0, DB_VARS, "top edge of the box", 0},
    {"w", CLV_PARAM_EXPR, "0", 0, 0, DB_VARS, "width of the box; 0 or less: the input's", 0},
    {"h", CLV_PARAM_EXPR, "0", 0, 0, DB_VARS, "height of the box; 0 or less: the input's", 0},
    {"color", CLV_PARAM_TEXT, "black", 0, 0, NULL,
     "colour with its alpha (\"red@0.5\", \"0x00ff0080\"), or invert", 0},
    {"t", CLV_PARAM_EXPR, "3", 0, 0, DB_VARS, "thickness of the outline; fill: the whole box", 0},
    {"replace", CLV_PARAM_INT, "0", 0, 1, NULL, "write the colour and its alpha, not a blend", 1},
};
_Static_assert(sizeof box_params / sizeof box_params[0] == DB_PARAM_COUNT,
               "drawbox: the enum and the params table differ");

static const clv_param grid_params[] = {
    {"x", CLV_PARAM_EXPR, "0", 0, 0, DB_VARS, "horizontal offset of the grid", 0},
    {"y", CLV_PARAM_EXPR, "0", 0, 0, DB_VARS, "vertical offset of the grid", 0},
    {"w", CLV_PARAM_EXPR, "0", 0, 0, DB_VARS, "width of a cell; 0 or less: the input's", 0},
    {"h", CLV_PARAM_EXPR, "0", 0, 0, DB_VARS, "height of a cell; 0 or less: the input's", 0},
    {"color", CLV_PARAM_TEXT, "black", 0, 0, NULL,
     "colour with its alpha (\"red@0.5\", \"0x00ff0080\"), or invert", 0},
    {"t", CLV_PARAM_EXPR, "1", 0, 0, DB_VARS, "thickness of the lines", 0},
    {"replace", CLV_PARAM_INT, "0", 0, 1, NULL, "write the colour and its alpha, not a blend", 1},
};
_Static_assert(sizeof grid_params / sizeof grid_params[0] == DB_PARAM_COUNT,
               "drawgrid: the enum and the params table differ");

static const char *const aliases[] = {"width", "w",         "height", "h", "c",
                                      "color", "thickness", "t",      NULL};
static const char *const box_kernels[] = {"drawbox", NULL};
static const char *const grid_kernels[] = {"drawgrid", NULL};

const clv_filter clv__filter_drawbox = {
    .name = "drawbox",
    .help = "draw a box's outline, or fill it, in a colour (ffmpeg's drawbox)",
    .params = box_params,
    .param_count = DB_PARAM_COUNT,
    .check = check_box,
    .program = "drawbox",
    .output_size = output_size,
    .aliases = aliases,
    .state_size = sizeof(db_state),
    .kernels = box_kernels,
    .deep = 1,
    .configure = configure,
    .resize = resize,
    .run = run_box,
    .ref_state_size = sizeof(db_state),
    .reference = reference_box,
    .reference_resize = reference_resize,
};

const clv_filter clv__filter_drawgrid = {
    .name = "drawgrid",
    .help = "draw a grid of lines in a colour (ffmpeg's drawgrid)",
    .params = grid_params,
    .param_count = DB_PARAM_COUNT,
    .check = check_grid,
    .program = "drawbox",
    .output_size = output_size,
    .aliases = aliases,
    .state_size = sizeof(db_state),
    .kernels = grid_kernels,
    .deep = 1,
    .configure = configure,
    .resize = resize,
    .run = run_grid,
    .ref_state_size = sizeof(db_state),
    .reference = reference_grid,
    .reference_resize = reference_resize,
};
