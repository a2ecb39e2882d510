/* curves.c - ffmpeg's curves (libavfilter/vf_curves.c): R, G and B each
 * through a curve given by points "x0/y0 x1/y1 ..." (0 to 1), a master
 * curve after them, ffmpeg's presets, a Photoshop curves file (.acv) and
 * ffmpeg 6's interp=pchip beside its natural cubic spline.
 *
 * The curves are tables of the depth's codes (256 entries at 8 bits, 65536
 * at 16, as vf_curves' graphs for rgb24 and rgb48), built on the host in
 * double exactly as vf_curves builds them (its spline, its truncation to
 * int, its clamping); the kernel (cl/curves.cl) and the reference look the
 * channels up. A parameter left empty is not given (ffmpeg's NULL); as in
 * vf_curves, `all` fills red, green and blue where they are not given, the
 * file then fills what is still empty (its master first), the preset last.
 * Points too close for the depth's codes are refused at that depth, as
 * ffmpeg refuses them. */
#include "filters.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    CRV_PRESET,
    CRV_MASTER,
    CRV_RED,
    CRV_GREEN,
    CRV_BLUE,
    CRV_ALL,
    CRV_PSFILE,
    CRV_INTERP,
    CRV_PARAM_COUNT
};

/* The curves, in vf_curves' order: red, green, blue, master. */
enum { CRV_R, CRV_G, CRV_B, CRV_M, CRV_COUNT };

#define CRV_PRESETS                                                                                \
    "none|color_negative|cross_process|darker|increase_contrast|lighter|linear_contrast|"          \
    "medium_contrast|negative|strong_contrast|vintage"

/* vf_curves' presets: red, green, blue, master; NULL: not set. */
static const char *const presets[][CRV_COUNT] = {
    {NULL, NULL, NULL, NULL},
    {"0.129/1 0.466/0.498 0.725/0", "0.109/1 0.301/0.498 0.517/0", "0.098/1 0.235/0.498 0.423/0",
     NULL},
    {"0/0 0.25/0.156 0.501/0.501 0.686/0.745 1/1", "0/0 0.25/0.188 0.38/0.501 0.745/0.815 1/0.815",
     "0/0 0.231/0.094 0.709/0.874 1/1", NULL},
    {NULL, NULL, NULL, "0/0 0.5/0.4 1/1"},
    {NULL, NULL, NULL, "0/0 0.149/0.066 0.831/0.905 0.905/0.98 1/1"},
    {NULL, NULL, NULL, "0/0 0.4/0.5 1/1"},
    {NULL, NULL, NULL, "0/0 0.305/0.286 0.694/0.713 1/1"},
    {NULL, NULL, NULL, "0/0 0.286/0.219 0.639/0.643 1/1"},
    {NULL, NULL, NULL, "0/1 1/0"},
    {NULL, NULL, NULL, "0/0 0.301/0.196 0.592/0.6 0.686/0.737 1/1"},
    {"0/0.11 0.42/0.51 1/0.95", "0/0 0.50/0.48 1/1", "0/0.22 0.49/0.44 1/0.8", NULL},
};

static const char *const curve_names[CRV_COUNT] = {"red", "green", "blue", "master"};

typedef struct crv_point {
    double x, y;
} crv_point;

/* C's conversion of a double to int as x86 makes it (NAN and values past
 * int give INT_MIN), then clamped to 0..maxv: vf_curves' CLIP. */
static int crv_clip(double v, int maxv)
{
    int i = v > -2147483649.0 && v < 2147483648.0 ? (int)v : INT32_MIN;
    return i < 0 ? 0 : i > maxv ? maxv : i;
}

/* Parses vf_curves' points ("x/y x/y ...": numbers, each followed by one
 * separator character) into *out (malloc'd, *n of them), checking them as
 * it does for a table of maxv + 1 entries. what names them in msg. */
static int parse_points(const char *text, int maxv, const char *what, crv_point **out, int *n,
                        clv_msg *msg)
{
    *out = NULL;
    *n = 0;
    size_t room = 1;
    for (const char *c = text; *c; c++)
        room += *c == '/';
    crv_point *pts = malloc(room * sizeof *pts);
    if (!pts)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    const char *p = text;
    int count = 0;
    while (*p) {
        double v[2];
        for (int k = 0; k < 2; k++) {
            char *end;
            errno = 0;
            v[k] = strtod(p, &end);
            if (end == p || !isfinite(v[k])) {
                free(pts);
                return clv__fail(msg, CLV_EPARSE,
                                 "filter 'curves' %s '%.60s': '%.20s' is not a number (points are "
                                 "x/y pairs from 0 to 1: '0/0 0.5/0.58 1/1')",
                                 what, text, p);
            }
            p = end + (*end != 0);
        }
        if (v[0] < 0 || v[0] > 1 || v[1] < 0 || v[1] > 1) {
            free(pts);
            return clv__fail(msg, CLV_ERANGE,
                             "filter 'curves' %s '%.60s': the point %g/%g is outside 0 to 1", what,
                             text, v[0], v[1]);
        }
        if (count && (int)(pts[count - 1].x * maxv) >= (int)(v[0] * maxv)) {
            const crv_point last = pts[count - 1];
            free(pts);
            return clv__fail(msg, CLV_ERANGE,
                             "filter 'curves' %s '%.60s': the points %g/%g and %g/%g are too "
                             "close or not increasing in x (at %d bits each x needs a code of "
                             "its own)",
                             what, text, last.x, last.y, v[0], v[1], maxv == 255 ? 8 : 16);
        }
        if ((size_t)count == room) { /* more numbers than '/' separators */
            free(pts);
            return clv__fail(msg, CLV_EPARSE,
                             "filter 'curves' %s '%.60s': points are x/y pairs ('0/0 0.5/0.58 "
                             "1/1')",
                             what, text);
        }
        pts[count].x = v[0];
        pts[count].y = v[1];
        count++;
    }
    *out = pts;
    *n = count;
    return 0;
}

/* vf_curves' natural cubic spline through the n points into y[0 .. maxv]
 * (its interpolate(): the same operations in the same order). */
static int natural(const crv_point *pt, int n, int maxv, uint16_t *y)
{
    const int scale = maxv;
    if (n == 0) {
        for (int i = 0; i <= maxv; i++)
            y[i] = (uint16_t)i;
        return 0;
    }
    if (n == 1) {
        for (int i = 0; i <= maxv; i++)
            y[i] = (uint16_t)crv_clip(pt[0].y * scale, maxv);
        return 0;
    }
    double(*matrix)[3] = calloc((size_t)n, sizeof *matrix);
    double *h = malloc((size_t)(n - 1) * sizeof *h), *r = calloc((size_t)n, sizeof *r);
    if (!matrix || !h || !r) {
        free(matrix);
        free(h);
        free(r);
        return CLV_ENOMEM;
    }
    enum { BD, MD, AD }; /* below, on and above the diagonal */
    for (int i = 0; i < n - 1; i++)
        h[i] = pt[i + 1].x - pt[i].x;
    for (int i = 1; i < n - 1; i++)
        r[i] = 6 * ((pt[i + 1].y - pt[i].y) / h[i] - (pt[i].y - pt[i - 1].y) / h[i - 1]);
    matrix[0][MD] = matrix[n - 1][MD] = 1;
    for (int i = 1; i < n - 1; i++) {
        matrix[i][BD] = h[i - 1];
        matrix[i][MD] = 2 * (h[i - 1] + h[i]);
        matrix[i][AD] = h[i];
    }
    for (int i = 1; i < n; i++) {
        const double den = matrix[i][MD] - matrix[i][BD] * matrix[i - 1][AD];
        const double k = den ? 1. / den : 1.;
        matrix[i][AD] *= k;
        r[i] = (r[i] - matrix[i][BD] * r[i - 1]) * k;
    }
    for (int i = n - 2; i >= 0; i--)
        r[i] = r[i] - matrix[i][AD] * r[i + 1];
    for (int i = 0; i < (int)(pt[0].x * scale); i++)
        y[i] = (uint16_t)crv_clip(pt[0].y * scale, maxv);
    for (int i = 0; i < n - 1; i++) {
        const double yc = pt[i].y, yn = pt[i + 1].y;
        const double a = yc;
        const double b = (yn - yc) / h[i] - h[i] * r[i] / 2. - h[i] * (r[i + 1] - r[i]) / 6.;
        const double c = r[i] / 2.;
        const double d = (r[i + 1] - r[i]) / (6. * h[i]);
        const int x_start = (int)(pt[i].x * scale), x_end = (int)(pt[i + 1].x * scale);
        for (int x = x_start; x <= x_end; x++) {
            const double xx = (x - x_start) * 1. / scale;
            const double yy = a + b * xx + c * xx * xx + d * xx * xx * xx;
            y[x] = (uint16_t)crv_clip(yy * scale, maxv);
        }
    }
    for (int i = (int)(pt[n - 1].x * scale); i <= maxv; i++)
        y[i] = (uint16_t)crv_clip(pt[n - 1].y * scale, maxv);
    free(matrix);
    free(h);
    free(r);
    return 0;
}

static int sign_of(double v)
{
    return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/* The derivative at an end (scipy's _edge_case, which ffmpeg 6 follows):
 * the three-point estimate, kept the sign of the nearest slope m0 and at
 * most 3 |m0| where the slopes change sign. */
static double pchip_end(double h0, double h1, double m0, double m1)
{
    double d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
    if (sign_of(d) != sign_of(m0))
        d = 0.0;
    else if (sign_of(m0) != sign_of(m1) && fabs(d) > 3. * fabs(m0))
        d = 3.0 * m0;
    return d;
}

/* One end's half of the cubic Hermite polynomial at x (0 to 1 across the
 * interval): its value f and its derivative d, scaled to the interval. */
static double hermite_half(double x, double f, double d)
{
    const double x2 = x * x, x3 = x2 * x;
    return f * (3.0 * x2 - 2.0 * x3) + d * (x3 - x2);
}

/* ffmpeg 6's interp=pchip (Fritsch and Butland's monotone piecewise cubic,
 * scipy's PchipInterpolator): flat outside the points, a line through two. */
static int pchip(const crv_point *pt, int n, int maxv, uint16_t *y)
{
    if (n < 2)
        return natural(pt, n, maxv, y); /* the same: identity, or a constant */
    double *xi = malloc((size_t)(5 * n) * sizeof *xi);
    if (!xi)
        return CLV_ENOMEM;
    double *fi = xi + n, *di = fi + n, *hi = di + n, *mi = hi + n; /* hi, mi: n - 1 each */
    for (int i = 0; i < n; i++) {
        xi[i] = pt[i].x * maxv;
        fi[i] = pt[i].y * maxv;
    }
    for (int i = 0; i < n - 1; i++) {
        hi[i] = xi[i + 1] - xi[i];
        mi[i] = (fi[i + 1] - fi[i]) / hi[i];
    }
    if (n == 2) {
        const double m = mi[0], b = fi[0] - xi[0] * m;
        for (int i = 0; i <= maxv; i++)
            y[i] = (uint16_t)crv_clip(i * m + b, maxv);
        free(xi);
        return 0;
    }
    /* the inner derivatives: the weighted harmonic mean of the slopes
     * around a point, 0 where they differ in sign or one is 0 */
    for (int i = 0; i < n - 2; i++) {
        if (sign_of(mi[i + 1]) != sign_of(mi[i]) || mi[i + 1] == 0 || mi[i] == 0) {
            di[i + 1] = 0.0;
        } else {
            const double w1 = 2 * hi[i + 1] + hi[i], w2 = hi[i + 1] + 2 * hi[i];
            di[i + 1] = (w1 + w2) / (w1 / mi[i] + w2 / mi[i + 1]);
        }
    }
    di[0] = pchip_end(hi[0], hi[1], mi[0], mi[1]);
    di[n - 1] = pchip_end(hi[n - 2], hi[n - 3], mi[n - 2], mi[n - 3]);
    int x = 0;
    for (; x < xi[0]; x++)
        y[x] = (uint16_t)crv_clip(fi[0], maxv);
    for (int i = 0; i < n - 1; i++) {
        const double h = hi[i];
        for (; x < xi[i + 1]; x++) {
            const double xx = (x - xi[i]) / h;
            const double yy = hermite_half(1 - xx, fi[i], -h * di[i]) +
                              hermite_half(xx, fi[i + 1], h * di[i + 1]);
            y[x] = (uint16_t)crv_clip(yy, maxv);
        }
    }
    for (; x <= maxv; x++)
        y[x] = (uint16_t)crv_clip(fi[n - 1], maxv);
    free(xi);
    return 0;
}

/* A Photoshop curves file (.acv), as vf_curves reads it: big-endian
 * 16-bit words: a version, the number of curves, then for each the number
 * of points and each point's y and x (0-255); the first four curves are
 * the master, red, green and blue. Each becomes vf_curves' text of its
 * points ("%f/%f " of x / 255 and y / 255) in texts (malloc'd; NULL for a
 * curve the file leaves out or gives no point). */
static int read_acv(const char *path, char *texts[CRV_COUNT], clv_msg *msg)
{
    static const int comp_ids[] = {CRV_M, CRV_R, CRV_G, CRV_B};
    char *text = NULL;
    size_t size = 0;
    int err = clv__filter_file_read("filter 'curves' parameter 'psfile'", path, 1 << 20, &text,
                                    &size, msg);
    if (err)
        return err;
    const unsigned char *buf = (const unsigned char *)text;
    char *points = NULL; /* a curve's text while it is read */
    size_t at = 0;
#define ACV_READ16(v)                                                                              \
    do {                                                                                           \
        if (at + 2 > size) {                                                                       \
            err = clv__fail(msg, CLV_EPARSE,                                                       \
                            "filter 'curves' parameter 'psfile': '%s' ends at byte %zu, inside "   \
                            "a curve (not a Photoshop .acv curves file?)",                         \
                            path, size);                                                           \
            goto done;                                                                             \
        }                                                                                          \
        v = buf[at] << 8 | buf[at + 1];                                                            \
        at += 2;                                                                                   \
    } while (0)
    int version, nb_curves;
    ACV_READ16(version);
    (void)version;
    ACV_READ16(nb_curves);
    for (int i = 0; i < nb_curves && i < 4; i++) {
        int nb_points;
        ACV_READ16(nb_points);
        points = malloc((size_t)nb_points * 24 + 1);
        if (!points) {
            err = clv__fail(msg, CLV_ENOMEM, "out of memory");
            goto done;
        }
        size_t len = 0;
        points[0] = 0;
        for (int k = 0; k < nb_points; k++) {
            int x, y;
            ACV_READ16(y);
            ACV_READ16(x);
            len += (size_t)sprintf(points + len, "%f/%f ", x / 255., y / 255.);
        }
        if (len && !texts[comp_ids[i]])
            texts[comp_ids[i]] = points;
        else
            free(points);
        points = NULL;
    }
#undef ACV_READ16
done:
    free(points);
    free(text);
    return err;
}

/* The tables of values at depth maxv (255 or 65535): red, green and blue,
 * each maxv + 1 entries, into out (3 (maxv + 1) of them). */
static int make_tables(const clv_value *v, int maxv, uint16_t *out, clv_msg *msg)
{
    const size_t n = (size_t)maxv + 1;
    char *texts[CRV_COUNT] = {NULL, NULL, NULL, NULL}; /* the file's */
    const char *pts[CRV_COUNT];
    static const int param_of[CRV_COUNT] = {CRV_RED, CRV_GREEN, CRV_BLUE, CRV_MASTER};
    for (int i = 0; i < CRV_COUNT; i++) {
        pts[i] = clv_value_text(&v[param_of[i]]);
        pts[i] = *pts[i] ? pts[i] : NULL;
    }
    const char *all = clv_value_text(&v[CRV_ALL]);
    for (int i = 0; i < CRV_M && *all; i++)
        if (!pts[i])
            pts[i] = all;
    const char *psfile = clv_value_text(&v[CRV_PSFILE]);
    int err = *psfile ? read_acv(psfile, texts, msg) : 0;
    for (int i = 0; i < CRV_COUNT; i++) {
        if (!pts[i])
            pts[i] = texts[i];
        if (!pts[i])
            pts[i] = presets[v[CRV_PRESET].i][i];
    }
    uint16_t *graph = malloc(CRV_COUNT * n * sizeof *graph);
    if (!err && !graph)
        err = clv__fail(msg, CLV_ENOMEM, "out of memory");
    for (int i = 0; !err && i < CRV_COUNT; i++) {
        crv_point *p = NULL;
        int count = 0;
        char what[96];
        if (pts[i] && pts[i] == texts[i])
            snprintf(what, sizeof what, "psfile's %s curve", curve_names[i]);
        else if (pts[i] && pts[i] == all && i < CRV_M && !*clv_value_text(&v[param_of[i]]))
            snprintf(what, sizeof what, "parameter 'all'");
        else if (pts[i] && pts[i] == presets[v[CRV_PRESET].i][i])
            snprintf(what, sizeof what, "preset's %s curve", curve_names[i]);
        else
            snprintf(what, sizeof what, "parameter '%s'", curve_names[i]);
        err = parse_points(pts[i] ? pts[i] : "", maxv, what, &p, &count, msg);
        if (!err) {
            err = (v[CRV_INTERP].i == 1 ? pchip : natural)(p, count, maxv, graph + i * n);
            if (err)
                clv__fail(msg, err, "out of memory");
        }
        free(p);
    }
    if (!err) {
        for (int i = 0; i < CRV_M; i++)
            for (size_t j = 0; j < n; j++)
                out[i * n + j] =
                    pts[CRV_M] ? graph[CRV_M * n + graph[i * n + j]] : graph[i * n + j];
    }
    free(graph);
    for (int i = 0; i < CRV_COUNT; i++)
        free(texts[i]);
    return err;
}

typedef struct crv_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem lut;
    int depth;
} crv_state;

static const char *const kernels[] = {"curves", NULL};

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    (void)msg;
    crv_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    return 0;
}

static void uninit(void *state)
{
    crv_state *s = state;
    clv__mem_release(&s->lut);
}

/* Builds the tables at the chain's depth and uploads them as its channels
 * (uchar or ushort). */
static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    crv_state *s = state;
    const int maxv = s->depth == 16 ? 65535 : 255;
    const size_t n = (size_t)maxv + 1, bytes = 3 * n * (s->depth == 16 ? 2 : 1);
    uint16_t *t = malloc(3 * n * sizeof *t);
    if (!t)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    int err = make_tables(values, maxv, t, msg);
    if (!err && s->depth == 8) {
        uint8_t *b = (uint8_t *)t; /* in place: byte i is read after entry i */
        for (size_t i = 0; i < 3 * n; i++)
            b[i] = (uint8_t)t[i];
    }
    if (!err && !s->lut) {
        cl_int st = CL_SUCCESS;
        s->lut = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, bytes, NULL, &st);
        if (st != CL_SUCCESS) {
            s->lut = NULL;
            err = clv__fail(msg, CLV_ENOMEM, "curves: cannot allocate its tables: %s",
                            clv__cl_strerror(st));
        }
    }
    if (!err) {
        cl_int st = clEnqueueWriteBuffer(ctx->queue, s->lut, CL_TRUE, 0, bytes, t, 0, NULL, NULL);
        if (st != CL_SUCCESS)
            err = clv__fail(msg, CLV_ECL, "curves: cannot upload its tables: %s",
                            clv__cl_strerror(st));
    }
    free(t);
    return err;
}

static int run(void *state, const clv_launch *l)
{
    crv_state *s = state;
    cl_int n = l->depth == 16 ? 65536 : 256;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err = clv__kernel_args(s->kernel, 5, 2, CLV__ARG(s->lut), CLV__ARG(n));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

static int reference(void *ref_state, const clv_value *values, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int maxv = clv__maxv(src);
    const size_t n = (size_t)maxv + 1;
    uint16_t *t = malloc(3 * n * sizeof *t);
    if (!t)
        return CLV_ENOMEM;
    if (make_tables(values, maxv, t, NULL)) {
        free(t);
        return CLV_EINVAL;
    }
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            for (int c = 0; c < 3; c++)
                clv__put(dst, x, y, c, t[(size_t)c * n + (size_t)clv__get(src, x, y, c)]);
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    free(t);
    return 0;
}

static const char *const aliases[] = {"m", "master", "r", "red", "g", "green", "b", "blue", NULL};

/* ffmpeg's options in its order (its `plot`, a file written, left out). */
static const clv_param params[] = {
    {"preset", CLV_PARAM_ENUM, "none", 0, 10, CRV_PRESETS, "ffmpeg's preset curves", 1},
    {"master", CLV_PARAM_TEXT, "", 0, 0, NULL,
     "the master curve's points \"x/y x/y ...\" (0 to 1), after red, green, blue", 0},
    {"red", CLV_PARAM_TEXT, "", 0, 0, NULL, "the red curve's points", 0},
    {"green", CLV_PARAM_TEXT, "", 0, 0, NULL, "the green curve's points", 0},
    {"blue", CLV_PARAM_TEXT, "", 0, 0, NULL, "the blue curve's points", 0},
    {"all", CLV_PARAM_TEXT, "", 0, 0, NULL, "the points of red, green and blue where not given", 0},
    {"psfile", CLV_PARAM_FILE, "", 0, 0, NULL,
     "a Photoshop curves file (.acv): its master, red, green and blue where not given", 0},
    {"interp", CLV_PARAM_ENUM, "natural", 0, 0, "natural|pchip",
     "natural cubic spline, or monotone cubic (ffmpeg 6's pchip)", 1},
};
_Static_assert(sizeof params / sizeof params[0] == CRV_PARAM_COUNT,
               "curves: the enum and the params table differ");

const clv_filter clv__filter_curves = {
    .name = "curves",
    .help = "colour curves through points, ffmpeg's presets or a Photoshop .acv (ffmpeg's curves)",
    .params = params,
    .param_count = CRV_PARAM_COUNT,
    .program = "curves",
    .kernels = kernels,
    .deep = 1,
    .aliases = aliases,
    .state_size = sizeof(crv_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
