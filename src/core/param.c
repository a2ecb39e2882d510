/* param.c - a parameter's value from text and back (clv_param_parse) and the
 * words of the chain syntax: tokens, quotes and escapes. Calls nothing above it. */
#include "clvid_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void format_number(double v, char *out, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(out, size, "%.0f", v);
    else
        snprintf(out, size, "%g", v);
}

static void range_text(const clv_param *p, char *out, size_t size)
{
    char lo[32], hi[32];
    format_number(p->min, lo, sizeof lo);
    format_number(p->max, hi, sizeof hi);
    snprintf(out, size, "%s to %s", lo, hi);
}

/* Parses a whole integer; 0 on success, 1 for one beyond 64 bits, -1 for
 * no integer. */
/* A decimal integer, or a hexadecimal one after "0x" (ffmpeg's planes=0xF). */
static int parse_int(const char *s, long long *v)
{
    char *end;
    errno = 0;
    int hex = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2]));
    long long n = strtoll(hex ? s + 2 : s, &end, hex ? 16 : 10);
    if (end == s || *end)
        return -1;
    if (errno)
        return 1;
    *v = n;
    return 0;
}

/* ffmpeg's words for a boolean (libavutil/opt.c, set_string_bool): 1 or 0
 * for one of them, whatever its case, else -1. "auto" is not one: it is
 * -1 itself, and only where the range starts there. */
static int boolean_word(const char *s)
{
    static const char *const words[][6] = {
        {"false", "n", "no", "disable", "disabled", "off"},
        {"true", "y", "yes", "enable", "enabled", "on"},
    };
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 6; i++)
            if (!strcasecmp(s, words[v][i]))
                return v;
    return -1;
}

/* libavutil/parseutils.c's video_size_abbrs, as ffmpeg 5.1 has them. */
static const struct {
    const char *name;
    int width, height;
} video_sizes[] = {
    {"ntsc", 720, 480},      {"pal", 720, 576},       {"qntsc", 352, 240},
    {"qpal", 352, 288},      {"sntsc", 640, 480},     {"spal", 768, 576},
    {"film", 352, 240},      {"ntsc-film", 352, 240}, {"sqcif", 128, 96},
    {"qcif", 176, 144},      {"cif", 352, 288},       {"4cif", 704, 576},
    {"16cif", 1408, 1152},   {"qqvga", 160, 120},     {"qvga", 320, 240},
    {"vga", 640, 480},       {"svga", 800, 600},      {"xga", 1024, 768},
    {"uxga", 1600, 1200},    {"qxga", 2048, 1536},    {"sxga", 1280, 1024},
    {"qsxga", 2560, 2048},   {"hsxga", 5120, 4096},   {"wvga", 852, 480},
    {"wxga", 1366, 768},     {"wsxga", 1600, 1024},   {"wuxga", 1920, 1200},
    {"woxga", 2560, 1600},   {"wqhd", 2560, 1440},    {"wqsxga", 3200, 2048},
    {"wquxga", 3840, 2400},  {"whsxga", 6400, 4096},  {"whuxga", 7680, 4800},
    {"cga", 320, 200},       {"ega", 640, 350},       {"hd480", 852, 480},
    {"hd720", 1280, 720},    {"hd1080", 1920, 1080},  {"quadhd", 2560, 1440},
    {"2k", 2048, 1080},      {"2kdci", 2048, 1080},   {"2kflat", 1998, 1080},
    {"2kscope", 2048, 858},  {"4k", 4096, 2160},      {"4kdci", 4096, 2160},
    {"4kflat", 3996, 2160},  {"4kscope", 4096, 1716}, {"nhd", 640, 360},
    {"hqvga", 240, 160},     {"wqvga", 400, 240},     {"fwqvga", 432, 240},
    {"hvga", 480, 320},      {"qhd", 960, 540},       {"uhd2160", 3840, 2160},
    {"uhd4320", 7680, 4320},
};

int clv__video_size(const char *text, int *width, int *height)
{
    for (size_t i = 0; i < sizeof video_sizes / sizeof video_sizes[0]; i++) {
        if (!strcmp(text, video_sizes[i].name)) {
            *width = video_sizes[i].width;
            *height = video_sizes[i].height;
            return 0;
        }
    }
    /* As av_parse_video_size: strtol, one separator of any kind, strtol,
     * nothing after ("640x360", "640*360"). */
    char *end;
    errno = 0;
    long w = strtol(text, &end, 10);
    if (*end)
        end++;
    const char *rest = end;
    long h = strtol(rest, &end, 10);
    if (*end || errno || w <= 0 || h <= 0 || w > INT_MAX || h > INT_MAX)
        return -1;
    *width = (int)w;
    *height = (int)h;
    return 0;
}

void clv__video_size_names(char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; i < sizeof video_sizes / sizeof video_sizes[0] && n < size; i++)
        n += (size_t)snprintf(out + n, size - n, "%s%s", i ? ", " : "", video_sizes[i].name);
}

const char *clv_value_text(const clv_value *value)
{
    return value->n > 0 && value->n <= CLV_EXPR_MAX ? (const char *)value->m : "";
}

int clv__expr_names(const char *choices, char *buf, size_t size, const char **names, int max)
{
    snprintf(buf, size, "%s", choices ? choices : "");
    int n = 0;
    for (char *s = buf; *s && n < max - 1;) {
        names[n++] = s;
        s += strcspn(s, "|");
        if (*s)
            *s++ = 0;
    }
    names[n] = NULL;
    return n;
}

/* ffmpeg's flags: words of choices joined by '+' (a leading '+' is
 * allowed, as ffmpeg's "+accurate_rnd"); bit k for the k-th choice. */
static int parse_flags(const clv_filter *f, const clv_param *p, const char *text, int64_t *bits,
                       clv_msg *msg)
{
    *bits = 0;
    const char *s = text;
    if (!*s)
        return clv__fail(msg, CLV_EPARSE, "filter '%s' parameter '%s': no flag given (flags: %s)",
                         f->name, p->name, p->choices);
    /* ffmpeg's number for the flags, where the parameter takes one (max
     * above 0: edgedetect's planes=7), within min to max */
    long long number;
    const int read = p->max > 0 && isdigit((unsigned char)*s) ? parse_int(s, &number) : -1;
    if (read >= 0) {
        if (read || number < (long long)p->min || number > (long long)p->max)
            return clv__fail(msg, CLV_ERANGE,
                             "filter '%s' parameter '%s': %.40s is out of range (a number from "
                             "%g to %g, or flags: %s, joined by '+')",
                             f->name, p->name, s, p->min, p->max, p->choices);
        *bits = number;
        return 0;
    }
    while (*s) {
        if (*s == '+')
            s++;
        size_t n = strcspn(s, "+");
        const char *c = p->choices;
        int found = -1;
        for (int i = 0; *c; i++) {
            size_t m = strcspn(c, "|");
            if (m == n && !strncmp(s, c, n))
                found = i;
            c += m + (c[m] == '|');
        }
        if (found < 0 || found > 62)
            return clv__fail(msg, CLV_EPARSE,
                             "filter '%s' parameter '%s': '%.*s' is not a flag (flags: %s, "
                             "joined by '+')",
                             f->name, p->name, (int)(n > 40 ? 40 : n), s, p->choices);
        *bits |= (int64_t)1 << found;
        s += n;
    }
    return 0;
}

const char *clv__clip(const char *s, char *out, size_t size)
{
    snprintf(out, size, "%.40s%s", s, strlen(s) > 40 ? "..." : "");
    return out;
}

/* An INT's or REAL's value where it is not a plain number: as ffmpeg's
 * options (libavutil/opt.c, set_string_number), an expression of numbers
 * ("3/2", "PI/4", "2k", "50/255") with the option's own names default,
 * min, max, none (0) and all (~0, so -1); NAN is no number, and the value
 * must lie in the range before an INT rounds it. */
static int number_value(const clv_filter *f, const clv_param *p, const char *text,
                        const char *range, double *out, clv_msg *msg)
{
    static const char *const names[] = {"default", "min", "max", "none", "all", NULL};
    char shown[48];
    char *end;
    double def = p->def ? strtod(p->def, &end) : 0;
    if (!p->def || end == p->def || *end)
        def = 0;
    const double values[] = {def, p->min, p->max, 0, -1};
    const double d = clv__expr_value(text, names, values);
    if (isnan(d))
        return clv__fail(msg, CLV_EPARSE,
                         "filter '%s' parameter '%s': '%s' is not %s, nor an expression of numbers "
                         "(allowed: %s)",
                         f->name, p->name, clv__clip(text, shown, sizeof shown),
                         p->type == CLV_PARAM_INT ? "an integer" : "a number", range);
    if (d < p->min || d > p->max) {
        char value[40] = "";
        strtod(text, &end);
        if (end == text || *end)
            snprintf(value, sizeof value, " = %g", d);
        return clv__fail(msg, CLV_ERANGE,
                         "filter '%s' parameter '%s': %s%s is out of range (allowed: %s)", f->name,
                         p->name, clv__clip(text, shown, sizeof shown), value, range);
    }
    *out = d;
    return 0;
}

int clv_param_parse(const clv_filter *f, int index, const char *text, clv_value *value,
                    clv_msg *msg)
{
    const clv_param *p = &f->params[index];
    char range[80], shown[48];
    range_text(p, range, sizeof range);
    memset(value, 0, sizeof *value);
    switch (p->type) {
    case CLV_PARAM_INT: {
        long long v;
        int word = CLV_PARAM_IS_BOOLEAN(p) ? boolean_word(text) : -1;
        int bad = 0;
        if (word >= 0)
            v = word;
        else if (CLV_PARAM_IS_BOOLEAN(p) && p->min < 0 && !strcmp(text, "auto"))
            v = -1;
        else
            bad = parse_int(text, &v);
        if (bad && CLV_PARAM_IS_BOOLEAN(p))
            return clv__fail(msg, CLV_EPARSE,
                             "filter '%s' parameter '%s': '%s' is not a boolean (allowed: %s1, "
                             "0, true, false, yes, no, on, off, enable, disable, y, n, enabled, "
                             "disabled)",
                             f->name, p->name, clv__clip(text, shown, sizeof shown),
                             p->min < 0 ? "auto, -1, " : "");
        if (bad > 0)
            return clv__fail(msg, CLV_ERANGE,
                             "filter '%s' parameter '%s': %s is out of range (allowed: %s)",
                             f->name, p->name, clv__clip(text, shown, sizeof shown), range);
        if (bad) {
            /* ffmpeg's number: an expression, checked against the range
             * before it is rounded to the nearest (half to even: llrint) */
            double d;
            int err = number_value(f, p, text, range, &d, msg);
            if (err)
                return err;
            v = llrint(d);
        } else if (v < p->min || v > p->max)
            return clv__fail(msg, CLV_ERANGE,
                             "filter '%s' parameter '%s': %lld is out of range (allowed: %s)",
                             f->name, p->name, v, range);
        value->i = v;
        return 0;
    }
    case CLV_PARAM_REAL: {
        char *end;
        errno = 0;
        double v = strtod(text, &end);
        if (end == text || *end || errno || !isfinite(v)) {
            int err = number_value(f, p, text, range, &v, msg);
            if (err)
                return err;
        } else if (v < p->min || v > p->max)
            return clv__fail(msg, CLV_ERANGE,
                             "filter '%s' parameter '%s': %s is out of range (allowed: %s)",
                             f->name, p->name, clv__clip(text, shown, sizeof shown), range);
        value->i = llround(v * 1000.0);
        return 0;
    }
    case CLV_PARAM_ENUM: {
        const char *c = p->choices;
        for (int i = 0; *c; i++) {
            size_t n = strcspn(c, "|");
            if (strlen(text) == n && !strncmp(text, c, n)) {
                value->i = i;
                return 0;
            }
            c += n + (c[n] == '|');
        }
        /* A range (max > min) takes numbers too, word i being min + i:
         * ffmpeg's named constants (yadif's parity -1, 0, 1: auto|tff|bff). */
        if (p->max > p->min) {
            char *end;
            errno = 0;
            long v = strtol(text, &end, 10);
            if (end != text && !*end && !errno && v >= p->min && v <= p->max) {
                value->i = v - (long)p->min;
                return 0;
            }
        }
        if (p->max > p->min)
            return clv__fail(msg, CLV_EPARSE,
                             "filter '%s' parameter '%s': '%s' is not one of %s (or ffmpeg's "
                             "number for one, %s)",
                             f->name, p->name, clv__clip(text, shown, sizeof shown), p->choices,
                             range);
        return clv__fail(msg, CLV_EPARSE, "filter '%s' parameter '%s': '%s' is not one of %s",
                         f->name, p->name, clv__clip(text, shown, sizeof shown), p->choices);
    }
    case CLV_PARAM_MATRIX: {
        const char *s = text;
        int n = 0;
        while (*s) {
            while (isspace((unsigned char)*s))
                s++;
            if (!*s)
                break;
            char *end;
            errno = 0;
            long v = strtol(s, &end, 10);
            if (end == s || (*end && !isspace((unsigned char)*end)) || errno) {
                size_t len = strcspn(s, " \t");
                len = len > 40 ? 40 : len;
                return clv__fail(msg, CLV_EPARSE,
                                 "filter '%s' parameter '%s': '%.*s' is not an integer "
                                 "(coefficients are integers from %s, separated by spaces)",
                                 f->name, p->name, (int)len, s, range);
            }
            if (v < p->min || v > p->max)
                return clv__fail(msg, CLV_ERANGE,
                                 "filter '%s' parameter '%s': coefficient %ld is out of range "
                                 "(allowed: %s)",
                                 f->name, p->name, v, range);
            if (n == CLV_MATRIX_MAX)
                return clv__fail(msg, CLV_EPARSE,
                                 "filter '%s' parameter '%s': more than %d coefficients; a "
                                 "matrix has 9 (3x3), 25 (5x5) or 49 (7x7)",
                                 f->name, p->name, CLV_MATRIX_MAX);
            value->m[n++] = (int)v;
            s = end;
        }
        if (n != 9 && n != 25 && n != 49)
            return clv__fail(msg, CLV_EPARSE,
                             "filter '%s' parameter '%s': %d coefficients; a matrix has 9 "
                             "(3x3), 25 (5x5) or 49 (7x7)",
                             f->name, p->name, n);
        value->n = n;
        return 0;
    }
    case CLV_PARAM_EXPR: {
        size_t len = strlen(text);
        if (len > (size_t)CLV_EXPR_MAX)
            return clv__fail(msg, CLV_EPARSE,
                             "filter '%s' parameter '%s': an expression of %zu characters is too "
                             "long (at most %d)",
                             f->name, p->name, len, CLV_EXPR_MAX);
        char buf[512];
        const char *names[64];
        clv__expr_names(p->choices, buf, sizeof buf, names, 64);
        clv__expr *e = NULL;
        clv_msg why = {{0}};
        int err = clv__expr_parse(text, names, &e, &why);
        clv__expr_free(e);
        if (err)
            return clv__fail(msg, err, "filter '%s' parameter '%s': %s", f->name, p->name,
                             why.text);
        memcpy(value->m, text, len + 1);
        value->n = (int)len;
        return 0;
    }
    case CLV_PARAM_COLOR: {
        uint32_t rgba = 0;
        clv_msg why = {{0}};
        if (clv__color_parse(text, &rgba, &why))
            return clv__fail(msg, CLV_EPARSE, "filter '%s' parameter '%s': %s", f->name, p->name,
                             why.text);
        value->i = rgba;
        return 0;
    }
    case CLV_PARAM_FLAGS:
        return parse_flags(f, p, text, &value->i, msg);
    case CLV_PARAM_TEXT:
    case CLV_PARAM_FILE: {
        /* The filter reads the text (a file's name is opened when the
         * chain is built, which says what is wrong with the file). */
        size_t len = strlen(text);
        if (len > (size_t)CLV_EXPR_MAX)
            return clv__fail(msg, CLV_EPARSE,
                             "filter '%s' parameter '%s': a %s of %zu characters is too long (at "
                             "most %d)",
                             f->name, p->name, p->type == CLV_PARAM_FILE ? "file name" : "text",
                             len, CLV_EXPR_MAX);
        memcpy(value->m, text, len + 1);
        value->n = (int)len;
        return 0;
    }
    }
    return clv__fail(msg, CLV_EINVAL, "filter '%s': bad parameter table", f->name);
}

const char *clv__token(const char *s, const char *stops, char *out, size_t size, size_t *length)
{
    size_t n = 0, keep = 0; /* keep: length that must survive trailing trim */
    char last = 0;
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    while (*s && !strchr(stops, *s)) {
        if (*s == '\'') {
            s++;
            while (*s && *s != '\'') {
                if (n + 1 < size)
                    out[n] = *s;
                n++;
                s++;
            }
            if (*s != '\'')
                return NULL;
            s++;
            keep = n;
            continue;
        }
        if (*s == '\\' && s[1])
            s++;
        last = *s++;
        if (n + 1 < size)
            out[n] = last;
        n++;
        if (!(last == ' ' || last == '\t' || last == '\n'))
            keep = n;
    }
    *length = keep;
    out[keep < size ? keep : size - 1] = 0;
    return s;
}

const char *clv__skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    return s;
}

void clv__param_format(const clv_param *p, const clv_value *v, char *out, size_t size)
{
    switch (p->type) {
    case CLV_PARAM_INT:
        snprintf(out, size, "%lld", (long long)v->i);
        break;
    case CLV_PARAM_REAL:
        snprintf(out, size, "%g", (double)v->i / 1000.0);
        break;
    case CLV_PARAM_ENUM: {
        const char *c = p->choices;
        for (int64_t i = 0; i < v->i && strchr(c, '|'); i++)
            c = strchr(c, '|') + 1;
        snprintf(out, size, "%.*s", (int)strcspn(c, "|"), c);
        break;
    }
    case CLV_PARAM_EXPR:
    case CLV_PARAM_TEXT:
    case CLV_PARAM_FILE: {
        /* As the parser reads it back: plain when every character is one
         * of an expression's own, else quoted ("'min(iw,1280)'"), a quote
         * in it closing, escaped and reopening ('\'') and blanks kept
         * inside the quotes. */
        const char *t = clv_value_text(v);
        size_t n = 0;
        int plain = *t != 0;
        for (const char *c = t; *c; c++)
            plain &= isalnum((unsigned char)*c) || strchr("_.()+-*/^<>!|&~%", *c) != NULL;
        if (plain) {
            snprintf(out, size, "%s", t);
            break;
        }
        if (n + 1 < size)
            out[n++] = '\'';
        for (const char *c = t; *c && n + 5 < size; c++) {
            if (*c == '\'') {
                memcpy(out + n, "'\\''", 4);
                n += 4;
            } else {
                out[n++] = *c;
            }
        }
        if (n + 1 < size)
            out[n++] = '\'';
        out[n < size ? n : size - 1] = 0;
        break;
    }
    case CLV_PARAM_COLOR:
        snprintf(out, size, "0x%08llX", (unsigned long long)(v->i & 0xFFFFFFFF));
        break;
    case CLV_PARAM_FLAGS: {
        size_t n = 0;
        out[0] = 0;
        const char *c = p->choices;
        for (int i = 0; *c && n < size; i++) {
            size_t m = strcspn(c, "|");
            if (v->i >> i & 1)
                n += (size_t)snprintf(out + n, size - n, "%s%.*s", n ? "+" : "", (int)m, c);
            c += m + (c[m] == '|');
        }
        break;
    }
    case CLV_PARAM_MATRIX: {
        size_t n = 0;
        n += (size_t)snprintf(out, size, "'");
        for (int i = 0; i < v->n && n < size; i++)
            n += (size_t)snprintf(out + n, size - n, "%s%d", i ? " " : "", v->m[i]);
        if (n < size)
            snprintf(out + n, size - n, "'");
        break;
    }
    }
}

void clv__param_carry(const clv_filter *from, const clv_value *old, const clv_filter *to,
                      clv_value *values)
{
    for (int i = 0; i < to->param_count; i++) {
        const clv_param *p = &to->params[i];
        clv_value def;
        clv_param_parse(to, i, p->def, &def, NULL);
        values[i] = def;
        for (int j = 0; from && j < from->param_count; j++) {
            const clv_param *q = &from->params[j];
            if (strcmp(p->name, q->name) || p->type != q->type)
                continue;
            clv_value old_def;
            clv_param_parse(from, j, q->def, &old_def, NULL);
            double v = p->type == CLV_PARAM_REAL ? (double)old[j].i / 1000 : (double)old[j].i;
            if (old[j].i != old_def.i && v >= p->min && v <= p->max)
                values[i] = old[j];
        }
    }
}
