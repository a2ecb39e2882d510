/* lut3d.c - ffmpeg's lut3d (libavfilter/vf_lut3d.c) with Adobe's and
 * DaVinci Resolve's .cube files: a 3D table, a 1D one, or a 1D shaper
 * before a 3D table; interp=nearest|trilinear|tetrahedral|pyramid|prism as
 * ffmpeg's. The file is read when the chain is built (an error names the
 * file and the line); it is an input of the run (a FILE parameter).
 *
 * The host turns the file into integers, in double (cl/lut3d.cl):
 *   - per channel and input code v (0..maxv), the place in the cube,
 *     P = rint(u * (N - 1) * 2^16) with u = (t - min) / (max - min)
 *     clamped to 0..1, where t = v / maxv, or, with a 1D table, t is that
 *     table read linearly at v's place in its own domain;
 *   - each entry as rint(value * maxv * 2^EB) + maxv * 2^EB, values first
 *     clamped to -1..2 (EB = 4 at 8 bits, 8 at 16).
 * The kernel and the reference then interpolate in integers: nearest takes
 * the entry at (P + 2^15) >> 16 (ffmpeg's (int)(x + 0.5)); trilinear lerps
 * red, green, blue in turn at 2^16 (the last two rounded back to 2^16,
 * so that a linear table is read exactly); tetrahedral weighs four
 * corners by differences of the fractions; pyramid and prism are ffmpeg's
 * formulas at 2^32. The output is the result / 2^EB - maxv, rounded,
 * clamped (ffmpeg truncates its float; rounding keeps an identity table
 * the identity). A 1D file is a 2-point identity cube behind its shaper,
 * read trilinearly whatever interp says (interp is the 3D table's).
 *
 * Domains: DOMAIN_MIN/DOMAIN_MAX are the file's input domain (the 1D
 * table's when there is one, else the 3D table's); LUT_1D_INPUT_RANGE and
 * LUT_3D_INPUT_RANGE (Resolve) set each table's. ffmpeg 5.1 divides by
 * max - min without subtracting min, and reads a DOMAIN line only after
 * LUT_3D_SIZE; with the usual 0..1 domain that is the same. */
#include "filters.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LUT_FILE, LUT_CLUT, LUT_INTERP, LUT_PARAM_COUNT };
enum { LUT_NEAREST, LUT_TRILINEAR, LUT_TETRAHEDRAL, LUT_PYRAMID, LUT_PRISM };

#define LUT_1D_MAX 65536
#define LUT_3D_MAX 256          /* ffmpeg's MAX_LEVEL */
#define LUT_FILE_MAX (1u << 30) /* a 256^3 cube in text is about 450 MB */

/* A .cube file as read: values in double. */
typedef struct cube {
    int size1, size3; /* 0: no such table */
    double *lut1;     /* size1 * 3 */
    double *lut3;     /* size3^3 * 3, red fastest */
    double min1[3], max1[3], min3[3], max3[3];
} cube;

static void cube_free(cube *c)
{
    free(c->lut1);
    free(c->lut3);
    c->lut1 = c->lut3 = NULL;
}

/* The next n numbers of s (separated by blanks) into v, s then at what
 * follows; 0, or -1 when there are fewer or they are not numbers. */
static int numbers(const char **s, int n, double *v)
{
    for (int i = 0; i < n; i++) {
        char *end;
        v[i] = strtod(*s, &end);
        if (end == *s || !isfinite(v[i]) || (*end && !strchr(" \t\r\n", *end)))
            return -1;
        *s = end;
    }
    return 0;
}

/* Whether the line s, its first word wl chars long, starts with a keyword:
 * capitals, digits and '_' that are not a number (NAN, INF); any other
 * line is a row of data, so that 'nan 1 1' or 'abc 1 1' is an error and
 * not a line skipped. */
static int keyword_line(const char *s, size_t wl)
{
    if (!(isupper((unsigned char)*s) || *s == '_'))
        return 0;
    for (size_t i = 0; i < wl; i++)
        if (!isupper((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
            return 0;
    /* The words strtod reads as numbers are a row's (an error there);
     * INFO or NANOS are keywords. */
    return !((wl == 3 && (!strncmp(s, "INF", 3) || !strncmp(s, "NAN", 3))) ||
             (wl == 8 && !strncmp(s, "INFINITY", 8)));
}

static int blank_rest(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return !*s || *s == '#';
}

#define WHO "filter 'lut3d'"

/* Reads text, the file at path, into c; on an error c may hold tables
 * (cube_parse frees them). */
static int cube_lines(const char *path, char *text, cube *c, clv_msg *msg)
{
    memset(c, 0, sizeof *c);
    for (int k = 0; k < 3; k++) {
        c->min1[k] = c->min3[k] = 0;
        c->max1[k] = c->max3[k] = 1;
    }
    int have_domain = 0, have_range1 = 0, have_range3 = 0, line_no = 0, err = 0;
    int domain_line = 0; /* the last DOMAIN_ line's, for its error */
    double dmin[3] = {0, 0, 0}, dmax[3] = {1, 1, 1};
    size_t rows = 0, want = 0; /* data lines read, and expected */
    char *line = text;
    while (line && *line) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        line_no++;
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#' || *s == '\r') {
            line = next;
            continue;
        }
        char word[32];
        size_t wl = strcspn(s, " \t\r");
        if (keyword_line(s, wl)) {
            snprintf(word, sizeof word, "%.*s", (int)(wl < 31 ? wl : 31), s);
            const char *a = s + wl;
            double v[3];
            if (!strcmp(word, "TITLE")) {
                /* a quoted title: nothing to keep */
            } else if (!strcmp(word, "LUT_1D_SIZE") || !strcmp(word, "LUT_3D_SIZE")) {
                const int three = word[4] == '3', lim = three ? LUT_3D_MAX : LUT_1D_MAX;
                if (rows)
                    return clv__fail(msg, CLV_EPARSE, WHO ": %s:%d: %s after the table's data",
                                     path, line_no, word);
                if (numbers(&a, 1, v) || !blank_rest(a) || v[0] != floor(v[0]) || v[0] < 2 ||
                    v[0] > lim)
                    return clv__fail(msg, CLV_EPARSE,
                                     WHO ": %s:%d: %s needs a whole number from 2 to %d", path,
                                     line_no, word, lim);
                if (three)
                    c->size3 = (int)v[0];
                else
                    c->size1 = (int)v[0];
            } else if (!strcmp(word, "DOMAIN_MIN") || !strcmp(word, "DOMAIN_MAX")) {
                if (numbers(&a, 3, v) || !blank_rest(a))
                    return clv__fail(msg, CLV_EPARSE, WHO ": %s:%d: %s needs three numbers", path,
                                     line_no, word);
                memcpy(word[8] == 'I' ? dmin : dmax, v, sizeof v);
                have_domain = 1;
                domain_line = line_no;
            } else if (!strcmp(word, "LUT_1D_INPUT_RANGE") || !strcmp(word, "LUT_3D_INPUT_RANGE")) {
                if (numbers(&a, 2, v) || !blank_rest(a))
                    return clv__fail(msg, CLV_EPARSE, WHO ": %s:%d: %s needs two numbers", path,
                                     line_no, word);
                if (!(v[0] < v[1]))
                    return clv__fail(msg, CLV_EPARSE,
                                     WHO ": %s:%d: %s's minimum is not below its maximum "
                                         "(%g, %g)",
                                     path, line_no, word, v[0], v[1]);
                for (int k = 0; k < 3; k++) {
                    (word[4] == '3' ? c->min3 : c->min1)[k] = v[0];
                    (word[4] == '3' ? c->max3 : c->max1)[k] = v[1];
                }
                *(word[4] == '3' ? &have_range3 : &have_range1) = 1;
            }
            /* other keywords (Resolve's LUT_IN_VIDEO_RANGE...) change
             * nothing here */
            line = next;
            continue;
        }
        /* a row of data: red, green, blue */
        if (!rows) {
            if (!c->size1 && !c->size3)
                return clv__fail(msg, CLV_EPARSE,
                                 WHO ": %s:%d: data before LUT_3D_SIZE or LUT_1D_SIZE", path,
                                 line_no);
            want = (size_t)c->size1 + (size_t)c->size3 * (size_t)c->size3 * (size_t)c->size3;
            c->lut1 = c->size1 ? malloc((size_t)c->size1 * 3 * sizeof(double)) : NULL;
            c->lut3 = c->size3 ? malloc(3 * (want - (size_t)c->size1) * sizeof(double)) : NULL;
            if ((c->size1 && !c->lut1) || (c->size3 && !c->lut3)) {
                err = clv__fail(msg, CLV_ENOMEM, WHO ": out of memory for %s's table", path);
                break;
            }
        }
        double v[3];
        if (numbers(&s, 3, v) || !blank_rest(s)) {
            err = clv__fail(msg, CLV_EPARSE,
                            WHO ": %s:%d: '%.40s' is not a row of three numbers (red green blue)",
                            path, line_no, line);
            break;
        }
        if (rows == want) {
            err = clv__fail(msg, CLV_EPARSE,
                            WHO ": %s:%d: more rows than the sizes give (%zu: LUT_1D_SIZE %d, "
                                "LUT_3D_SIZE %d)",
                            path, line_no, want, c->size1, c->size3);
            break;
        }
        double *to =
            rows < (size_t)c->size1 ? c->lut1 + 3 * rows : c->lut3 + 3 * (rows - (size_t)c->size1);
        memcpy(to, v, sizeof v);
        rows++;
        line = next;
    }
    if (!err && !c->size1 && !c->size3)
        err = clv__fail(msg, CLV_EPARSE,
                        WHO ": %s: no LUT_3D_SIZE or LUT_1D_SIZE line (not a .cube "
                            "file?)",
                        path);
    if (!err && !rows) /* sizes and no rows: want was never set */
        want = (size_t)c->size1 + (size_t)c->size3 * (size_t)c->size3 * (size_t)c->size3;
    if (!err && rows < want)
        err = clv__fail(msg, CLV_EPARSE,
                        WHO ": %s:%d: the file ends after %zu rows of the %zu its sizes give", path,
                        line_no, rows, want);
    if (!err && have_domain)
        for (int k = 0; k < 3; k++) {
            if (c->size1 && !have_range1) {
                c->min1[k] = dmin[k];
                c->max1[k] = dmax[k];
            } else if (!c->size1 && !have_range3) {
                c->min3[k] = dmin[k];
                c->max3[k] = dmax[k];
            }
        }
    /* The INPUT_RANGE lines were checked where they are: a domain out of
     * order here is the DOMAIN_ lines'. */
    for (int k = 0; !err && k < 3; k++)
        if (!(c->min1[k] < c->max1[k]) || !(c->min3[k] < c->max3[k]))
            err = clv__fail(msg, CLV_EPARSE,
                            WHO ": %s:%d: a domain's minimum is not below its maximum (%g, %g)",
                            path, domain_line, c->min1[k] < c->max1[k] ? c->min3[k] : c->min1[k],
                            c->min1[k] < c->max1[k] ? c->max3[k] : c->max1[k]);
    return err;
}

static int cube_parse(const char *path, char *text, cube *c, clv_msg *msg)
{
    int err = cube_lines(path, text, c, msg);
    if (err)
        cube_free(c);
    return err;
}

/* A file is needed (the chain parser's check). */
static int check(const clv_value *values, clv_msg *msg)
{
    if (!*clv_value_text(&values[LUT_FILE]))
        return clv__fail(msg, CLV_EPARSE, WHO ": no file given (lut3d=file=GRADE.cube)");
    return 0;
}

static int cube_read(const char *path, cube *c, clv_msg *msg)
{
    memset(c, 0, sizeof *c);
    if (!*path)
        return clv__fail(msg, CLV_EPARSE, WHO ": no file given (lut3d=file=GRADE.cube)");
    char *text = NULL;
    size_t len = 0;
    int err = clv__filter_file_read(WHO, path, LUT_FILE_MAX, &text, &len, msg);
    if (!err && memchr(text, 0, len))
        err = clv__fail(msg, CLV_EPARSE, WHO ": '%s' is not a text file (a .cube is)", path);
    if (!err)
        err = cube_parse(path, text, c, msg);
    free(text);
    return err;
}

/* The integer tables of c at depth maxv: pos (3 (maxv + 1) places) and
 * lut (4 n^3 ints), malloc'd; *n the cube's size. */
typedef struct lut_tables {
    uint32_t *pos;
    int32_t *lut;
    int n;
} lut_tables;

static void tables_free(lut_tables *t)
{
    free(t->pos);
    free(t->lut);
    t->pos = NULL;
    t->lut = NULL;
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int tables_make(const cube *c, int maxv, lut_tables *t)
{
    const int n = c->size3 ? c->size3 : 2, eb = maxv == 65535 ? 8 : 4;
    const double unit = (double)maxv * (1 << eb);
    t->n = n;
    t->pos = malloc(3 * ((size_t)maxv + 1) * sizeof *t->pos);
    t->lut = malloc(4 * (size_t)n * (size_t)n * (size_t)n * sizeof *t->lut);
    if (!t->pos || !t->lut) {
        tables_free(t);
        return CLV_ENOMEM;
    }
    for (int k = 0; k < 3; k++)
        for (int v = 0; v <= maxv; v++) {
            double x = (double)v / maxv;
            if (c->size1) {
                const double u = clampd((x - c->min1[k]) / (c->max1[k] - c->min1[k]), 0, 1);
                const double p = u * (c->size1 - 1);
                const int i = (int)p, j = i + 1 < c->size1 ? i + 1 : i;
                const double a = c->lut1[3 * i + k], b = c->lut1[3 * j + k];
                x = a + (b - a) * (p - i);
            }
            const double u = c->size3 ? (x - c->min3[k]) / (c->max3[k] - c->min3[k]) : x;
            t->pos[(size_t)k * ((size_t)maxv + 1) + (size_t)v] =
                (uint32_t)llrint(clampd(u, 0, 1) * (n - 1) * 65536.0);
        }
    for (size_t i = 0; i < (size_t)n * n * n; i++)
        for (int k = 0; k < 4; k++) {
            double value;
            if (k == 3)
                value = -1; /* the unused lane: 0 with the offset */
            else if (c->size3)
                value = c->lut3[3 * i + k];
            else /* the identity 2-point cube: red fastest */
                value = (double)(i >> k & 1);
            t->lut[4 * i + k] = (int32_t)llrint(clampd(value, -1, 2) * unit) + (int32_t)unit;
        }
    return 0;
}

/* ---- The reference: cl/lut3d.cl in C ------------------------------------ */

/* The output code of r = entry * 2^(s - eb). */
static int code_of(int64_t r, int s, int maxv)
{
    const int64_t q = r + ((int64_t)1 << (s - 1));
    return q < 0 ? 0 : clv__clamp((int)(q >> s) - maxv, 0, maxv);
}

/* a + (b - a) f / 2^16 at the scale of a and b (the trilinear's first
 * lerp: entries at 2^16), and rounded back to it (the next two). */
static int64_t lerp16(int64_t a, int64_t b, int f, int round)
{
    const int64_t v = a * (65536 - f) + b * f;
    return round ? (v + 32768) >> 16 : v;
}

static void ref_pixel(const lut_tables *t, int maxv, int mode, const int in[3], int out[3])
{
    const int n = t->n, eb = maxv == 65535 ? 8 : 4;
    uint32_t p[3];
    for (int k = 0; k < 3; k++)
        p[k] = t->pos[(size_t)k * ((size_t)maxv + 1) + (size_t)in[k]];
#define AT(i, j, l, k)                                                                             \
    ((int64_t)t->lut[4 * (((size_t)(l)*n + (size_t)(j)) * n + (size_t)(i)) + (k)])
    if (mode == LUT_NEAREST) {
        for (int k = 0; k < 3; k++)
            out[k] = code_of(
                AT((p[0] + 32768) >> 16, (p[1] + 32768) >> 16, (p[2] + 32768) >> 16, k), eb, maxv);
        return;
    }
    const int r0 = (int)(p[0] >> 16), g0 = (int)(p[1] >> 16), b0 = (int)(p[2] >> 16);
    const int r1 = r0 + 1 < n ? r0 + 1 : r0, g1 = g0 + 1 < n ? g0 + 1 : g0,
              b1 = b0 + 1 < n ? b0 + 1 : b0;
    const int dr = (int)(p[0] & 0xFFFF), dg = (int)(p[1] & 0xFFFF), db = (int)(p[2] & 0xFFFF);
    const int64_t lr = dr, lg = dg, lb = db;
    for (int k = 0; k < 3; k++) {
        const int64_t a = AT(r0, g0, b0, k), z = AT(r1, g1, b1, k);
        int64_t v;
        int shift;
        switch (mode) {
        case LUT_TRILINEAR: {
            const int64_t c00 = lerp16(a, AT(r1, g0, b0, k), dr, 0);
            const int64_t c10 = lerp16(AT(r0, g1, b0, k), AT(r1, g1, b0, k), dr, 0);
            const int64_t c01 = lerp16(AT(r0, g0, b1, k), AT(r1, g0, b1, k), dr, 0);
            const int64_t c11 = lerp16(AT(r0, g1, b1, k), z, dr, 0);
            v = lerp16(lerp16(c00, c10, dg, 1), lerp16(c01, c11, dg, 1), db, 1);
            shift = 16;
            break;
        }
        case LUT_TETRAHEDRAL: {
            int64_t ca, cb;
            int w0, wa, wb, wc;
            if (dr > dg) {
                if (dg > db) {
                    ca = AT(r1, g0, b0, k), cb = AT(r1, g1, b0, k);
                    w0 = 65536 - dr, wa = dr - dg, wb = dg - db, wc = db;
                } else if (dr > db) {
                    ca = AT(r1, g0, b0, k), cb = AT(r1, g0, b1, k);
                    w0 = 65536 - dr, wa = dr - db, wb = db - dg, wc = dg;
                } else {
                    ca = AT(r0, g0, b1, k), cb = AT(r1, g0, b1, k);
                    w0 = 65536 - db, wa = db - dr, wb = dr - dg, wc = dg;
                }
            } else {
                if (db > dg) {
                    ca = AT(r0, g0, b1, k), cb = AT(r0, g1, b1, k);
                    w0 = 65536 - db, wa = db - dg, wb = dg - dr, wc = dr;
                } else if (db > dr) {
                    ca = AT(r0, g1, b0, k), cb = AT(r0, g1, b1, k);
                    w0 = 65536 - dg, wa = dg - db, wb = db - dr, wc = dr;
                } else {
                    ca = AT(r0, g1, b0, k), cb = AT(r1, g1, b0, k);
                    w0 = 65536 - dg, wa = dg - dr, wb = dr - db, wc = db;
                }
            }
            v = a * w0 + ca * wa + cb * wb + z * wc;
            shift = 16;
            break;
        }
        case LUT_PYRAMID:
            if (dg > dr && db > dr) {
                const int64_t c001 = AT(r0, g0, b1, k), c010 = AT(r0, g1, b0, k),
                              c011 = AT(r0, g1, b1, k);
                v = a * ((int64_t)1 << 32) +
                    ((z - c011) * lr + (c010 - a) * lg + (c001 - a) * lb) * 65536 +
                    (c011 - c001 - c010 + a) * (lg * lb);
            } else if (dr > dg && db > dg) {
                const int64_t c001 = AT(r0, g0, b1, k), c100 = AT(r1, g0, b0, k),
                              c101 = AT(r1, g0, b1, k);
                v = a * ((int64_t)1 << 32) +
                    ((c100 - a) * lr + (z - c101) * lg + (c001 - a) * lb) * 65536 +
                    (c101 - c001 - c100 + a) * (lr * lb);
            } else {
                const int64_t c010 = AT(r0, g1, b0, k), c110 = AT(r1, g1, b0, k),
                              c100 = AT(r1, g0, b0, k);
                v = a * ((int64_t)1 << 32) +
                    ((c100 - a) * lr + (c010 - a) * lg + (z - c110) * lb) * 65536 +
                    (c110 - c100 - c010 + a) * (lr * lg);
            }
            shift = 32;
            break;
        default: { /* prism */
            const int64_t c010 = AT(r0, g1, b0, k), c101 = AT(r1, g0, b1, k);
            if (db > dr) {
                const int64_t c001 = AT(r0, g0, b1, k), c011 = AT(r0, g1, b1, k);
                v = a * ((int64_t)1 << 32) +
                    ((c001 - a) * lb + (c101 - c001) * lr + (c010 - a) * lg) * 65536 +
                    (a - c010 - c001 + c011) * (lb * lg) + (c001 - c011 - c101 + z) * (lr * lg);
            } else {
                const int64_t c110 = AT(r1, g1, b0, k), c100 = AT(r1, g0, b0, k);
                v = a * ((int64_t)1 << 32) +
                    ((c101 - c100) * lb + (c100 - a) * lr + (c010 - a) * lg) * 65536 +
                    (c100 - c110 - c101 + z) * (lb * lg) + (a - c010 - c100 + c110) * (lr * lg);
            }
            shift = 32;
            break;
        }
        }
        out[k] = code_of(v, shift + eb, maxv);
    }
#undef AT
}

/* The interpolation the chain runs: a 1D file's is trilinear (its 2-point
 * identity cube). */
static int mode_of(const cube *c, const clv_value *values)
{
    return c->size3 ? (int)values[LUT_INTERP].i : LUT_TRILINEAR;
}

static int reference(void *ref_state, const clv_value *values, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int maxv = clv__maxv(src);
    cube c;
    lut_tables t = {NULL, NULL, 0};
    if (cube_read(clv_value_text(&values[LUT_FILE]), &c, NULL))
        return CLV_EINVAL;
    int err = tables_make(&c, maxv, &t), mode = mode_of(&c, values);
    cube_free(&c);
    if (err)
        return err;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            int in[3], out[3];
            for (int k = 0; k < 3; k++)
                in[k] = clv__get(src, x, y, k);
            ref_pixel(&t, maxv, mode, in, out);
            for (int k = 0; k < 3; k++)
                clv__put(dst, x, y, k, out[k]);
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    tables_free(&t);
    return 0;
}

/* ---- The device -------------------------------------------------------- */

typedef struct lut_state {
    cl_kernel kernels[5]; /* first: the chain creates them (kernels), by mode */
    cl_mem pos, lut;
    int depth, n, mode;
} lut_state;

static const char *const kernels[] = {"lut3d_nearest", "lut3d_trilinear", "lut3d_tetrahedral",
                                      "lut3d_pyramid", "lut3d_prism",     NULL};

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    (void)msg;
    lut_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    return 0;
}

static void uninit(void *state)
{
    lut_state *s = state;
    clv__mem_release(&s->pos);
    clv__mem_release(&s->lut);
}

/* A buffer holding bytes from host, in *mem (released first). */
static int upload(clv_context *ctx, cl_mem *mem, const void *host, size_t bytes, clv_msg *msg)
{
    clv__mem_release(mem);
    cl_int st = CL_SUCCESS;
    *mem =
        clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)host, &st);
    if (st != CL_SUCCESS) {
        *mem = NULL;
        return clv__fail(msg, CLV_ENOMEM, WHO ": cannot allocate its %zu-byte table: %s", bytes,
                         clv__cl_strerror(st));
    }
    return 0;
}

/* Reads the file (again: a parameter may have changed) and uploads its
 * tables at the chain's depth. */
static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    lut_state *s = state;
    const int maxv = s->depth == 16 ? 65535 : 255;
    cube c;
    int err = cube_read(clv_value_text(&values[LUT_FILE]), &c, msg);
    if (err)
        return err;
    lut_tables t = {NULL, NULL, 0};
    err = tables_make(&c, maxv, &t);
    s->mode = mode_of(&c, values);
    cube_free(&c);
    if (err)
        return clv__fail(msg, err, WHO ": out of memory for its tables");
    s->n = t.n;
    err = upload(ctx, &s->pos, t.pos, 3 * ((size_t)maxv + 1) * sizeof *t.pos, msg);
    if (!err)
        err = upload(ctx, &s->lut, t.lut, 4 * (size_t)t.n * t.n * t.n * sizeof *t.lut, msg);
    tables_free(&t);
    return err;
}

static int run(void *state, const clv_launch *l)
{
    lut_state *s = state;
    cl_kernel k = s->kernels[s->mode];
    cl_int n = s->n;
    int err = clv__kernel_frame_args(k, l);
    if (!err)
        err = clv__kernel_args(k, 5, 3, CLV__ARG(s->pos), CLV__ARG(s->lut), CLV__ARG(n));
    return err ? err : clv__launch_pixels(l, k, l->width, l->height);
}

/* ffmpeg's options in its order: file, clut (haldclut's, which shares the
 * table: no CLUT input here, so it changes nothing), interp. */
static const clv_param params[] = {
    {"file", CLV_PARAM_FILE, "", 0, 0, NULL,
     "the .cube file (Adobe or Resolve: 3D, 1D, or a 1D shaper and a 3D table)", 0},
    {"clut", CLV_PARAM_ENUM, "all", 0, 1, "first|all",
     "haldclut's (ffmpeg lists it for lut3d too): changes nothing here", 1},
    {"interp", CLV_PARAM_ENUM, "tetrahedral", 0, 4, "nearest|trilinear|tetrahedral|pyramid|prism",
     "how the cube is read between its points", 1},
};
_Static_assert(sizeof params / sizeof params[0] == LUT_PARAM_COUNT,
               "lut3d: the enum and the params table differ");

const clv_filter clv__filter_lut3d = {
    .name = "lut3d",
    .help = "a colour grade from a .cube file (ffmpeg's lut3d)",
    .params = params,
    .param_count = LUT_PARAM_COUNT,
    .check = check,
    .program = "lut3d",
    .kernels = kernels,
    .deep = 1,
    .state_size = sizeof(lut_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
