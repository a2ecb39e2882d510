/* opencl_file.c - a user's kernel file read into its descriptor (the
 * `opencl` family's member): the "// @param" and "// @help" lines, the
 * kernels it defines, and the descriptors interned for the process. */
#include "filters.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SOURCE (1 << 20) /* bytes of a kernel file */
#define MAX_KERNELS 16

/* Descriptors are interned for the life of the process: chains and chain
 * descriptions point at them and are copied freely. */
static pthread_mutex_t interned_lock = PTHREAD_MUTEX_INITIALIZER;
static clv__user_kernel *interned;

/* ---- The file ------------------------------------------------------------ */

static int read_file(const char *path, char **text, size_t *len, clv_msg *msg)
{
    struct stat st;
    *text = NULL;
    if (stat(path, &st) != 0)
        return clv__fail(msg, CLV_EPARSE, "filter 'opencl': cannot read '%s': %s", path,
                         strerror(errno));
    if (!S_ISREG(st.st_mode))
        return clv__fail(msg, CLV_EPARSE, "filter 'opencl': '%s' is not a regular file", path);
    if (st.st_size > MAX_SOURCE)
        return clv__fail(msg, CLV_EPARSE,
                         "filter 'opencl': '%s' is %lld bytes; a kernel file is at most %d", path,
                         (long long)st.st_size, MAX_SOURCE);
    FILE *f = fopen(path, "rb");
    if (!f)
        return clv__fail(msg, CLV_EPARSE, "filter 'opencl': cannot read '%s': %s", path,
                         strerror(errno));
    char *buf = malloc(MAX_SOURCE + 1);
    size_t n = buf ? fread(buf, 1, MAX_SOURCE, f) : 0;
    int bad = buf && ferror(f);
    fclose(f);
    if (!buf)
        return clv__fail(msg, CLV_ENOMEM, "out of memory reading %s", path);
    if (bad) {
        free(buf);
        return clv__fail(msg, CLV_EPARSE, "filter 'opencl': cannot read '%s'", path);
    }
    buf[n] = 0;
    if (memchr(buf, 0, n)) {
        free(buf);
        return clv__fail(msg, CLV_EPARSE, "filter 'opencl': '%s' is not a text file", path);
    }
    *text = buf;
    *len = n;
    return 0;
}

static int ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* 1 when the parameter list at s (just after a kernel's name) names
 * `prev`: the kernel reads the previous frame. */
static int names_prev(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    if (*s != '(')
        return 0;
    for (int depth = 0; *s; s++) {
        depth += (*s == '(') - (*s == ')');
        if (depth == 0)
            return 0;
        if (ident_start(*s) && !ident_char(s[-1])) {
            const char *b = s;
            while (ident_char(s[1]))
                s++;
            if (s - b + 1 == 4 && !strncmp(b, "prev", 4))
                return 1;
        }
    }
    return 0;
}

/* s past the comment or string literal that starts at s; s itself when
 * none does. */
static const char *skip_comment(const char *s)
{
    if (s[0] == '/' && s[1] == '/')
        return s + strcspn(s, "\n");
    if (s[0] == '/' && s[1] == '*') {
        const char *e = strstr(s + 2, "*/");
        return e ? e + 2 : s + strlen(s);
    }
    if (*s == '"' || *s == '\'') {
        char q = *s++;
        while (*s && *s != q && *s != '\n')
            s += (*s == '\\' && s[1]) ? 2 : 1;
        return *s == q ? s + 1 : s;
    }
    return s;
}

/* 1 when text, outside comments and strings, can run on frames of either
 * depth: it names no 8-bit channel type (no identifier containing "uchar",
 * such as uchar4 or convert_uchar4_sat, and no `unsigned char`), so it reads
 * and writes pixels through cl/user.cl's clv_pixel and helpers; or it tests
 * CLV_DEPTH itself, choosing its types by depth. */
static int depth_generic(const char *text)
{
    int uchar = 0, tests_depth = 0, after_unsigned = 0;
    const char *s = text;
    while (*s) {
        const char *past = skip_comment(s);
        if (past != s) {
            s = past;
            continue;
        }
        if (!ident_start(*s) || (s > text && ident_char(s[-1]))) {
            if (!isspace((unsigned char)*s))
                after_unsigned = 0;
            s++;
            continue;
        }
        const char *b = s;
        while (ident_char(*s))
            s++;
        size_t n = (size_t)(s - b);
        char word[128];
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), b);
        uchar |= strstr(word, "uchar") != NULL || (after_unsigned && !strcmp(word, "char"));
        tests_depth |= !strcmp(word, "CLV_DEPTH");
        after_unsigned = !strcmp(word, "unsigned");
    }
    return !uchar || tests_depth;
}

/* The names of the kernels defined in text ("kernel void NAME(" or
 * "__kernel void NAME("), outside comments and strings; reads_prev[i] says
 * whether kernel i's parameters name `prev`. */
static int kernel_names(const char *text, char names[][128], int reads_prev[], int max)
{
    int count = 0, want = 0; /* want: 1 after "kernel", 2 after "void" */
    const char *s = text;
    while (*s) {
        const char *past = skip_comment(s);
        if (past != s) {
            s = past;
            continue;
        }
        if (!ident_start(*s)) {
            if (!isspace((unsigned char)*s))
                want = 0;
            s++;
            continue;
        }
        const char *b = s;
        while (ident_char(*s))
            s++;
        size_t n = (size_t)(s - b);
        if ((n == 6 && !strncmp(b, "kernel", 6)) || (n == 8 && !strncmp(b, "__kernel", 8)))
            want = 1;
        else if (want && n == 13 && !strncmp(b, "__attribute__", 13)) {
            /* kernel __attribute__((...)) void NAME: skip the parentheses */
            while (isspace((unsigned char)*s))
                s++;
            for (int depth = 0; *s; s++) {
                depth += (*s == '(') - (*s == ')');
                if (depth == 0 && *s == ')') {
                    s++;
                    break;
                }
            }
        } else if (want == 1 && n == 4 && !strncmp(b, "void", 4))
            want = 2;
        else if (want == 2) {
            if (count < max && n < 128) {
                memcpy(names[count], b, n);
                names[count][n] = 0;
                reads_prev[count] = names_prev(s);
                count++;
            }
            want = 0;
        } else
            want = 0;
    }
    return count;
}

static const char *const reserved[] = {"src",   "dst",  "width", "height", "stride",
                                       "frame", "time", "prev",  "file",   "kernel"};

static int parse_number(const char **s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(*s, &end);
    if (end == *s || errno || !isfinite(*v))
        return -1;
    *s = end;
    return 0;
}

static void skip_blanks(const char **s)
{
    while (**s == ' ' || **s == '\t')
        (*s)++;
}

/* One "@param TYPE NAME = DEFAULT [MIN, MAX] [step STEP] [help...]" line
 * (s points after "@param") into parameter u->params[i]. */
static int parse_param(clv__user_kernel *u, int i, const char *s, const char *where, clv_msg *msg)
{
    static const char grammar[] =
        "write '// @param int|float NAME = DEFAULT [MIN, MAX] step STEP help text'";
    clv_param *p = &u->params[i];
    char type[16] = "";
    skip_blanks(&s);
    size_t n = 0;
    while (isalpha((unsigned char)*s) && n + 1 < sizeof type)
        type[n++] = *s++;
    type[n] = 0;
    if (!strcmp(type, "int"))
        p->type = CLV_PARAM_INT;
    else if (!strcmp(type, "float"))
        p->type = CLV_PARAM_REAL;
    else
        return clv__fail(msg, CLV_EPARSE, "%s: @param type '%s' is not int or float (%s)", where,
                         type, grammar);
    skip_blanks(&s);
    n = 0;
    if (!ident_start(*s))
        return clv__fail(msg, CLV_EPARSE, "%s: @param needs a name after '%s' (%s)", where, type,
                         grammar);
    while (ident_char(*s) && n + 1 < sizeof u->names[i])
        u->names[i][n++] = *s++;
    u->names[i][n] = 0;
    for (size_t r = 0; r < sizeof reserved / sizeof reserved[0]; r++)
        if (!strcmp(u->names[i], reserved[r]))
            return clv__fail(msg, CLV_EPARSE,
                             "%s: @param '%s': the name is taken (src, dst, width, height, "
                             "stride, frame, time, prev, file and kernel are clvid's)",
                             where, u->names[i]);
    for (int j = 0; j < i; j++)
        if (!strcmp(u->names[j], u->names[i]))
            return clv__fail(msg, CLV_EPARSE, "%s: @param '%s' is declared twice", where,
                             u->names[i]);
    double def, lo, hi, step = 0;
    skip_blanks(&s);
    if (*s++ != '=' || (skip_blanks(&s), parse_number(&s, &def)))
        return clv__fail(msg, CLV_EPARSE, "%s: @param '%s' needs '= DEFAULT' (%s)", where,
                         u->names[i], grammar);
    skip_blanks(&s);
    if (*s != '[')
        return clv__fail(msg, CLV_EPARSE, "%s: @param '%s' needs a range [MIN, MAX] (%s)", where,
                         u->names[i], grammar);
    s++;
    skip_blanks(&s);
    int bad = parse_number(&s, &lo);
    skip_blanks(&s);
    bad = bad || *s++ != ',';
    skip_blanks(&s);
    bad = bad || parse_number(&s, &hi);
    skip_blanks(&s);
    bad = bad || *s++ != ']';
    if (bad || lo > hi)
        return clv__fail(msg, CLV_EPARSE,
                         "%s: @param '%s': the range is [MIN, MAX] with MIN <= MAX (%s)", where,
                         u->names[i], grammar);
    skip_blanks(&s);
    if (!strncmp(s, "step", 4) && !ident_char(s[4])) {
        s += 4;
        skip_blanks(&s);
        if (parse_number(&s, &step) || step <= 0)
            return clv__fail(msg, CLV_EPARSE, "%s: @param '%s': step must be a positive number",
                             where, u->names[i]);
    }
    int integral = p->type == CLV_PARAM_INT;
    if (integral && (def != floor(def) || lo != floor(lo) || hi != floor(hi) ||
                     (step && step != floor(step)) || fabs(lo) > 2e9 || fabs(hi) > 2e9))
        return clv__fail(msg, CLV_EPARSE,
                         "%s: @param int '%s': default, range and step must be whole numbers "
                         "within +-2e9",
                         where, u->names[i]);
    if (!integral && (fabs(lo) > 1e9 || fabs(hi) > 1e9))
        return clv__fail(msg, CLV_EPARSE, "%s: @param float '%s': the range must be within +-1e9",
                         where, u->names[i]);
    if (def < lo || def > hi)
        return clv__fail(msg, CLV_EPARSE, "%s: @param '%s': default %g is outside [%g, %g]", where,
                         u->names[i], def, lo, hi);
    if (!step)
        step = integral ? 1 : (hi - lo) / 20;
    skip_blanks(&s);
    snprintf(u->helps[i], sizeof u->helps[i], "%.*s", (int)strcspn(s, "\r\n"), s);
    for (size_t k = strlen(u->helps[i]); k > 0 && isspace((unsigned char)u->helps[i][k - 1]); k--)
        u->helps[i][k - 1] = 0;
    if (!u->helps[i][0])
        snprintf(u->helps[i], sizeof u->helps[i], "declared in %.140s", u->path);
    snprintf(u->defs[i], sizeof u->defs[i], "%.10g", def);
    p->name = u->names[i];
    p->def = u->defs[i];
    p->min = lo;
    p->max = hi;
    p->step = step;
    p->help = u->helps[i];
    p->choices = "";
    return 0;
}

/* Reads the file's parameters, help and kernel into u. */
static int parse_source(clv__user_kernel *u, const char *text, const char *kernel, clv_msg *msg)
{
    int count = 0, line = 1;
    for (const char *s = text; *s; line++) {
        const char *end = s + strcspn(s, "\n");
        const char *c = strstr(s, "//");
        if (c && c < end) {
            c += 2;
            skip_blanks(&c);
            char where[4200];
            snprintf(where, sizeof where, "%s:%d", u->path, line);
            if (!strncmp(c, "@param", 6) && !ident_char(c[6])) {
                if (count == CLV_PARAMS_MAX)
                    return clv__fail(msg, CLV_EPARSE, "%s: more than %d @param lines", where,
                                     CLV_PARAMS_MAX);
                int err = parse_param(u, count, c + 6, where, msg);
                if (err)
                    return err;
                count++;
            } else if (!strncmp(c, "@help", 5) && !ident_char(c[5])) {
                c += 5;
                skip_blanks(&c);
                snprintf(u->help, sizeof u->help, "%.*s", (int)(end - c), c);
            } else if (c[0] == '@' && ident_start(c[1])) {
                return clv__fail(msg, CLV_EPARSE,
                                 "%s: unknown '%.*s' (clvid reads @param and @help lines)", where,
                                 (int)strcspn(c, " \t\r\n"), c);
            }
        }
        s = *end ? end + 1 : end;
    }
    char names[MAX_KERNELS][128];
    int reads_prev[MAX_KERNELS] = {0}, chosen = 0;
    int n = kernel_names(text, names, reads_prev, MAX_KERNELS);
    char list[1024] = "";
    for (int i = 0; i < n; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    if (n == 0)
        return clv__fail(msg, CLV_EPARSE,
                         "filter 'opencl': '%s' defines no kernel (write 'kernel void "
                         "NAME(global const uchar4 *src, global uchar4 *dst, int width, int "
                         "height, int stride)')",
                         u->path);
    if (kernel && *kernel) {
        int found = 0;
        for (int i = 0; i < n; i++)
            if (!strcmp(names[i], kernel)) {
                found = 1;
                chosen = i;
            }
        if (!found)
            return clv__fail(msg, CLV_EPARSE,
                             "filter 'opencl': '%s' has no kernel '%s' (kernels: %s)", u->path,
                             kernel, list);
        snprintf(u->kernel, sizeof u->kernel, "%s", kernel);
        u->kernel_given = 1;
    } else if (n > 1) {
        return clv__fail(msg, CLV_EPARSE,
                         "filter 'opencl': '%s' has %d kernels (%s); say which with kernel=NAME",
                         u->path, n, list);
    } else {
        snprintf(u->kernel, sizeof u->kernel, "%s", names[0]);
    }
    if (!u->help[0])
        snprintf(u->help, sizeof u->help, "kernel %.100s of %.140s", u->kernel, u->path);
    u->filter.name = "opencl";
    u->filter.help = u->help;
    u->filter.params = u->params;
    u->filter.param_count = count;
    /* A kernel that reads the previous frame carries state across frames,
     * as the descriptor says for the cluster and several devices. */
    u->filter.temporal = reads_prev[chosen];
    u->filter.timed = 1; /* its kernel reads the frame's number and time */
    /* A file that names no 8-bit type runs at 16 bits too (built with
     * CLV_DEPTH=16, cl/user.cl's helpers on RGBA16). */
    u->filter.deep = depth_generic(text);
    return 0;
}

static int same_param(const clv_param *a, const clv_param *b)
{
    return a->type == b->type && !strcmp(a->name, b->name) && !strcmp(a->def, b->def) &&
           a->min == b->min && a->max == b->max && a->step == b->step && !strcmp(a->help, b->help);
}

static int same_user(const clv__user_kernel *a, const clv__user_kernel *b)
{
    if (strcmp(a->path, b->path) || strcmp(a->kernel, b->kernel) ||
        a->kernel_given != b->kernel_given || strcmp(a->help, b->help) ||
        a->filter.temporal != b->filter.temporal || a->filter.deep != b->filter.deep ||
        a->filter.param_count != b->filter.param_count)
        return 0;
    for (int i = 0; i < a->filter.param_count; i++)
        if (!same_param(&a->params[i], &b->params[i]))
            return 0;
    return 1;
}

/* The interned copy of u (u is consumed). */
static const clv__user_kernel *intern(clv__user_kernel *u)
{
    pthread_mutex_lock(&interned_lock);
    for (clv__user_kernel *i = interned; i; i = i->next) {
        if (same_user(i, u)) {
            pthread_mutex_unlock(&interned_lock);
            free(u);
            return i;
        }
    }
    /* The pointers into u's own arrays stay valid: u is not moved. */
    u->next = interned;
    interned = u;
    pthread_mutex_unlock(&interned_lock);
    return u;
}

int clv__user_kernel_load(const char *path, const char *kernel, const clv_filter *member,
                          const clv__user_kernel **out, char **text, clv_msg *msg)
{
    *out = NULL;
    if (!path || !*path)
        return clv__fail(msg, CLV_EPARSE,
                         "filter 'opencl' needs a kernel file: opencl=file=PATH[:kernel=NAME]");
    if (strlen(path) >= sizeof((clv__user_kernel *)0)->path)
        return clv__fail(msg, CLV_EPARSE, "filter 'opencl': the file name is too long");
    if (kernel && strlen(kernel) >= sizeof((clv__user_kernel *)0)->kernel)
        return clv__fail(msg, CLV_EPARSE, "filter 'opencl': the kernel name is too long");
    char *src = NULL;
    size_t len = 0;
    int err = read_file(path, &src, &len, msg);
    if (err)
        return err;
    clv__user_kernel *u = calloc(1, sizeof *u);
    if (!u) {
        free(src);
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    }
    u->filter = *member;
    snprintf(u->path, sizeof u->path, "%s", path);
    if ((err = parse_source(u, src, kernel, msg))) {
        free(u);
        free(src);
        return err;
    }
    *out = intern(u);
    if (text)
        *text = src;
    else
        free(src);
    return 0;
}
