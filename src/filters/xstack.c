/* xstack.c - ffmpeg's xstack (vf_stack): inputs placed by a layout
 * ("0_0|w0_0|0_h0|w0_h0": each input's x_y, each a '+'-sum of numbers and
 * other inputs' widths wN and heights hN) or a grid of C columns and R rows
 * (grid=CxR: rows of equal width, each of its first input's height); two
 * inputs with neither are a 2x1 grid, as in ffmpeg. The output is as large
 * as the placed inputs reach; where none lands it takes `fill` (ffmpeg's
 * colour syntax), or with fill=none opaque black (ffmpeg leaves those
 * pixels as its buffer had them). Inputs that overlap: the later wins. At
 * 8 and 16 bits (the fill colour scaled: 255 -> 65535). */
#include "filters.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { XS_INPUTS, XS_LAYOUT, XS_GRID, XS_SHORTEST, XS_FILL, XS_PARAM_COUNT };

static const char *const kernels[] = {"xstack_fill", "xstack_place", NULL};

typedef struct xs_state {
    cl_kernel fill, place; /* first: the chain creates them (kernels) */
} xs_state;

/* Each input's place and the output's size; *tiled 1 when the inputs cover
 * the output once (no fill needed). */
typedef struct xs_layout {
    int x[CLV_GRAPH_PADS], y[CLV_GRAPH_PADS];
    int width, height;
    int tiled;
} xs_layout;

/* grid's "CxR": 0 and *cols = *rows = 0 for "" (none). */
static int parse_grid(const char *text, int *cols, int *rows, clv_msg *msg)
{
    *cols = *rows = 0;
    if (!*text)
        return 0;
    char tail;
    if (sscanf(text, "%dx%d%c", cols, rows, &tail) != 2 || *cols < 1 || *rows < 1 ||
        *cols > CLV_GRAPH_PADS || *rows > CLV_GRAPH_PADS || *cols * *rows > CLV_GRAPH_PADS) {
        *cols = *rows = 0;
        return clv__fail(msg, CLV_EPARSE,
                         "xstack: grid '%s' is not COLUMNSxROWS of at most %d inputs (two numbers "
                         "from 1, as 2x2)",
                         text, CLV_GRAPH_PADS);
    }
    return 0;
}

/* The number of inputs (clv_filter's input_count): the grid's cells when a
 * grid is given, else `inputs`. */
static int input_count(const clv_value *v)
{
    int cols = 0, rows = 0;
    if (!parse_grid(clv_value_text(&v[XS_GRID]), &cols, &rows, NULL) && cols)
        return cols * rows;
    return (int)v[XS_INPUTS].i;
}

/* One coordinate of input i's place: a '+'-sum of numbers, wN and hN. */
static int parse_sum(const char *text, int i, const clv_size *in, int n, int *out, clv_msg *msg)
{
    long long sum = 0;
    const char *s = text;
    for (;;) {
        size_t len = strcspn(s, "+");
        char term[32];
        if (len == 0 || len >= sizeof term)
            return clv__fail(msg, CLV_EPARSE, "xstack: layout of input %d: bad term in '%s'", i,
                             text);
        memcpy(term, s, len);
        term[len] = 0;
        char *end = NULL;
        const char *digits = term[0] == 'w' || term[0] == 'h' ? term + 1 : term;
        long k = strtol(digits, &end, 10);
        if (end == digits || *end || k < 0)
            return clv__fail(msg, CLV_EPARSE,
                             "xstack: layout of input %d: '%s' is not a number, wN or hN", i, term);
        if (digits != term) {
            if (k == i || k >= n)
                return clv__fail(msg, CLV_EPARSE,
                                 "xstack: layout of input %d: '%s' names %s (inputs 0 to %d, "
                                 "not itself)",
                                 i, term, k == i ? "itself" : "no input", n - 1);
            sum += term[0] == 'w' ? in[k].width : in[k].height;
        } else
            sum += k;
        if (sum > CLV__SIDE_MAX)
            return clv__fail(msg, CLV_ERANGE, "xstack: layout of input %d: '%s' is beyond %d", i,
                             text, CLV__SIDE_MAX);
        s += len;
        if (!*s)
            break;
        s++;
    }
    *out = (int)sum;
    return 0;
}

static int make_layout(const clv_value *v, const clv_size *in, int n, xs_layout *lay, clv_msg *msg)
{
    memset(lay, 0, sizeof *lay);
    const char *layout = clv_value_text(&v[XS_LAYOUT]);
    int cols = 0, rows = 0;
    int err = parse_grid(clv_value_text(&v[XS_GRID]), &cols, &rows, msg);
    if (err)
        return err;
    if (*layout && cols)
        return clv__fail(msg, CLV_EPARSE,
                         "xstack: both layout and grid are given: only one is allowed");
    if (!*layout && !cols) {
        if (n != 2)
            return clv__fail(msg, CLV_EPARSE,
                             "xstack: no layout or grid for %d inputs (only 2 inputs default to "
                             "side by side)",
                             n);
        cols = 2;
        rows = 1;
    }
    if (cols && cols * rows != n)
        return clv__fail(msg, CLV_EPARSE, "xstack: grid %dx%d takes %d inputs, not %d", cols, rows,
                         cols * rows, n);
    long long area = 0;
    if (cols) {
        int top = 0;
        for (int r = 0, k = 0; r < rows; r++) {
            int row_h = in[r * cols].height, x = 0;
            for (int c = 0; c < cols; c++, k++) {
                if (in[k].height != row_h)
                    return clv__fail(msg, CLV_ERANGE,
                                     "xstack: input %d is %dx%d: its height does not match its "
                                     "row's (%d)",
                                     k, in[k].width, in[k].height, row_h);
                lay->x[k] = x;
                lay->y[k] = top;
                x += in[k].width;
            }
            if (r == 0)
                lay->width = x;
            else if (x != lay->width)
                return clv__fail(msg, CLV_ERANGE,
                                 "xstack: row %d is %d wide, the rows before %d: they must match",
                                 r, x, lay->width);
            top += row_h;
        }
        lay->height = top;
        lay->tiled = 1;
    } else {
        const char *s = layout;
        for (int i = 0; i < n; i++) {
            size_t len = strcspn(s, "|");
            char item[128], *sep;
            if (len == 0 || len >= sizeof item)
                return clv__fail(msg, CLV_EPARSE,
                                 "xstack: layout '%s' has no place for input %d (x_y each, "
                                 "apart by '|')",
                                 layout, i);
            memcpy(item, s, len);
            item[len] = 0;
            if (!(sep = strchr(item, '_')) || strchr(sep + 1, '_'))
                return clv__fail(msg, CLV_EPARSE, "xstack: layout of input %d: '%s' is not X_Y", i,
                                 item);
            *sep = 0;
            if ((err = parse_sum(item, i, in, n, &lay->x[i], msg)) ||
                (err = parse_sum(sep + 1, i, in, n, &lay->y[i], msg)))
                return err;
            if (lay->x[i] + in[i].width > lay->width)
                lay->width = lay->x[i] + in[i].width;
            if (lay->y[i] + in[i].height > lay->height)
                lay->height = lay->y[i] + in[i].height;
            area += (long long)in[i].width * in[i].height;
            s += len;
            if (*s)
                s++;
        }
        /* tiled: the areas add up to the frame's and no two overlap */
        int overlap = 0;
        for (int i = 0; i < n && !overlap; i++)
            for (int j = i + 1; j < n && !overlap; j++)
                overlap =
                    lay->x[i] < lay->x[j] + in[j].width && lay->x[j] < lay->x[i] + in[i].width &&
                    lay->y[i] < lay->y[j] + in[j].height && lay->y[j] < lay->y[i] + in[i].height;
        lay->tiled = !overlap && area == (long long)lay->width * lay->height;
    }
    if (lay->width > CLV__SIDE_MAX || lay->height > CLV__SIDE_MAX)
        return clv__fail(msg, CLV_ERANGE, "xstack: the output would be %dx%d (at most %d a side)",
                         lay->width, lay->height, CLV__SIDE_MAX);
    return 0;
}

/* The fill colour as 0xRRGGBBAA: opaque black for "none". */
static int fill_color(const clv_value *v, uint32_t *rgba, clv_msg *msg)
{
    const char *text = clv_value_text(&v[XS_FILL]);
    *rgba = 0x000000ffu;
    if (!strcmp(text, "none"))
        return 0;
    clv_msg why = {{0}};
    if (clv__color_parse(text, rgba, &why))
        return clv__fail(msg, CLV_EPARSE, "xstack: fill '%s': %s", text, why.text);
    return 0;
}

static int output_size_n(const clv_value *v, const clv_size *in, int n, clv_size *out, clv_msg *msg)
{
    xs_layout lay;
    uint32_t rgba;
    int err = make_layout(v, in, n, &lay, msg);
    if (!err)
        err = fill_color(v, &rgba, msg);
    if (err)
        return err;
    *out = in[0];
    out->width = lay.width;
    out->height = lay.height;
    return 0;
}

static int configure(void *state, clv_context *ctx, const clv_value *v, clv_msg *msg)
{
    (void)state;
    (void)ctx;
    uint32_t rgba;
    int cols, rows;
    int err = fill_color(v, &rgba, msg);
    return err ? err : parse_grid(clv_value_text(&v[XS_GRID]), &cols, &rows, msg);
}

static int run(void *state, const clv_launch *l)
{
    xs_state *s = state;
    int n = l->input_count;
    if (!l->inputs || n < 1 || n > CLV_GRAPH_PADS)
        return CLV_EINVAL;
    clv_size in[CLV_GRAPH_PADS];
    for (int i = 0; i < n; i++) {
        if (!l->inputs[i].buffer)
            return CLV_EINVAL; /* stacks wait for every input */
        in[i] = (clv_size){l->inputs[i].width, l->inputs[i].height, 1, 1, 0, 0, 0};
    }
    xs_layout lay;
    uint32_t rgba;
    if (make_layout(l->values, in, n, &lay, NULL) || fill_color(l->values, &rgba, NULL))
        return CLV_EINVAL;
    cl_int ds = l->out_stride, ow = l->out_width, oh = l->out_height;
    int err = 0;
    if (!lay.tiled) {
        int k = l->depth == 16 ? 257 : 1;
        cl_int r = (cl_int)(rgba >> 24) * k, g = (cl_int)(rgba >> 16 & 255) * k,
               b = (cl_int)(rgba >> 8 & 255) * k, a = (cl_int)(rgba & 255) * k;
        if (clv__kernel_mem_arg(s->fill, 0, l->dst, NULL))
            return CLV_ECL;
        err = clv__kernel_args(s->fill, 1, 7, CLV__ARG(ow), CLV__ARG(oh), CLV__ARG(ds), CLV__ARG(r),
                               CLV__ARG(g), CLV__ARG(b), CLV__ARG(a));
        if (!err)
            err = clv__launch_pixels(l, s->fill, ow, oh);
    }
    for (int i = 0; i < n && !err; i++) {
        clv_launch one = *l;
        one.src = l->inputs[i].buffer;
        one.width = l->inputs[i].width;
        one.height = l->inputs[i].height;
        one.stride = l->inputs[i].stride;
        cl_int x0 = lay.x[i], y0 = lay.y[i];
        err = clv__kernel_frame_args(s->place, &one);
        if (!err)
            err = clv__kernel_args(s->place, 5, 3, CLV__ARG(ds), CLV__ARG(x0), CLV__ARG(y0));
        if (!err)
            err = clv__launch_pixels(&one, s->place, one.width + (x0 & 3), one.height);
    }
    return err;
}

static int reference_n(void *ref_state, const clv_value *v, const clv_image *src, int n,
                       clv_image *dst, uint64_t frame_index, double time)
{
    (void)ref_state;
    (void)frame_index;
    (void)time;
    clv_size in[CLV_GRAPH_PADS];
    for (int i = 0; i < n; i++)
        in[i] = (clv_size){src[i].width, src[i].height, 1, 1, 0, 0, 0};
    xs_layout lay;
    uint32_t rgba;
    if (n > CLV_GRAPH_PADS || make_layout(v, in, n, &lay, NULL) || fill_color(v, &rgba, NULL))
        return CLV_EINVAL;
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++)
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c, clv__scale8(dst, (int)(rgba >> (24 - 8 * c) & 255)));
    for (int i = 0; i < n; i++)
        for (int y = 0; y < src[i].height; y++)
            for (int x = 0; x < src[i].width; x++)
                for (int c = 0; c < 4; c++)
                    clv__put(dst, lay.x[i] + x, lay.y[i] + y, c, clv__get(&src[i], x, y, c));
    return 0;
}

static clv_eof_action eof_action(const clv_value *v)
{
    return v[XS_SHORTEST].i ? CLV_EOF_ENDALL : CLV_EOF_REPEAT;
}

static const clv_param params[] = {
    {"inputs", CLV_PARAM_INT, "2", 2, CLV_GRAPH_PADS, NULL, "number of inputs (grid: its cells)",
     0},
    {"layout", CLV_PARAM_TEXT, "", 0, 0, NULL,
     "each input's X_Y apart by '|', sums of numbers, wN and hN (\"0_0|w0_0\")", 0},
    {"grid", CLV_PARAM_TEXT, "", 0, 0, NULL, "COLUMNSxROWS of inputs, instead of a layout", 0},
    {"shortest", CLV_PARAM_INT, "0", 0, 1, NULL,
     "1: the output ends with the shortest input; 0: the others repeat their last frame", 0},
    {"fill", CLV_PARAM_TEXT, "none", 0, 0, NULL, "colour where no input lands (none: opaque black)",
     0},
};
_Static_assert(sizeof params / sizeof params[0] == XS_PARAM_COUNT,
               "xstack: the enum and the params table differ");

const clv_filter clv__filter_xstack = {
    .name = "xstack",
    .help = "inputs placed by a layout or a grid (ffmpeg's xstack)",
    .params = params,
    .param_count = XS_PARAM_COUNT,
    .program = "xstack",
    .state_size = sizeof(xs_state),
    .kernels = kernels,
    .deep = 1,
    .configure = configure,
    .run = run,
    .inputs_param = "inputs",
    .output_size_n = output_size_n,
    .reference_n = reference_n,
    .eof_action = eof_action,
    .wait_first = 1,
    .input_count = input_count,
};
