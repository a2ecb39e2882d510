/* opencl.c - the `opencl` filter: a kernel of the user's from a .cl file,
 * with parameters declared in the file ("// @param float s = 1 [0, 4] step
 * 0.1"), built after cl/user.cl's helpers and run once per pixel. Also the
 * live reload: a file built again off the chain's thread and swapped in. */
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
#define MAX_ARGS 32

/* The descriptor of one (file, kernel, parameter list): a member of the
 * registry's `opencl` family (clv_filter's resolve). */
typedef struct user_kernel {
    clv_filter filter; /* first: a member's descriptor is its user_kernel */
    char path[4096];
    char kernel[128];
    int kernel_given; /* the chain named the kernel (else: the file's only one) */
    char help[256];
    clv_param params[CLV_PARAMS_MAX];
    char names[CLV_PARAMS_MAX][64], defs[CLV_PARAMS_MAX][32], helps[CLV_PARAMS_MAX][160];
    struct user_kernel *next;
} user_kernel;

/* Descriptors are interned for the life of the process: chains and chain
 * descriptions point at them and are copied freely. */
static pthread_mutex_t interned_lock = PTHREAD_MUTEX_INITIALIZER;
static user_kernel *interned;

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

/* The names of the kernels defined in text ("kernel void NAME(" or
 * "__kernel void NAME("), outside comments and strings; reads_prev[i] says
 * whether kernel i's parameters name `prev`. */
static int kernel_names(const char *text, char names[][128], int reads_prev[], int max)
{
    int count = 0, want = 0; /* want: 1 after "kernel", 2 after "void" */
    const char *s = text;
    while (*s) {
        if (s[0] == '/' && s[1] == '/') {
            s += strcspn(s, "\n");
            continue;
        }
        if (s[0] == '/' && s[1] == '*') {
            const char *e = strstr(s + 2, "*/");
            s = e ? e + 2 : s + strlen(s);
            continue;
        }
        if (*s == '"' || *s == '\'') {
            char q = *s++;
            while (*s && *s != q && *s != '\n')
                s += (*s == '\\' && s[1]) ? 2 : 1;
            if (*s == q)
                s++;
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
static int parse_param(user_kernel *u, int i, const char *s, const char *where, clv_msg *msg)
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
static int parse_source(user_kernel *u, const char *text, const char *kernel, clv_msg *msg)
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
    return 0;
}

static int same_param(const clv_param *a, const clv_param *b)
{
    return a->type == b->type && !strcmp(a->name, b->name) && !strcmp(a->def, b->def) &&
           a->min == b->min && a->max == b->max && a->step == b->step && !strcmp(a->help, b->help);
}

static int same_user(const user_kernel *a, const user_kernel *b)
{
    if (strcmp(a->path, b->path) || strcmp(a->kernel, b->kernel) ||
        a->kernel_given != b->kernel_given || strcmp(a->help, b->help) ||
        a->filter.temporal != b->filter.temporal || a->filter.param_count != b->filter.param_count)
        return 0;
    for (int i = 0; i < a->filter.param_count; i++)
        if (!same_param(&a->params[i], &b->params[i]))
            return 0;
    return 1;
}

static int run(void *state, const clv_launch *l);
static void uninit(void *state);
static const char *file_of(const clv_filter *f, const char **kernel);
static void format(const clv_filter *f, char *out, size_t size);
static int open_file(void *state, clv_context *ctx, const clv_filter *f, const clv_filter **now,
                     clv_msg *msg);
static int swap(void *const *states, int count, clv_kernel_build *build, const clv_filter **now);
static int temporal_state(const void *state);

typedef struct user_state {
    clv_kernel_build *build;
    clv_frame prev; /* the previous input, for kernels that ask for prev */
    int prev_valid;
} user_state;

/* The interned copy of u (u is consumed). */
static const user_kernel *intern(user_kernel *u)
{
    pthread_mutex_lock(&interned_lock);
    for (user_kernel *i = interned; i; i = i->next) {
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

/* Reads path and returns its descriptor and, when text is not NULL, the
 * source (malloc'd). */
static int load(const char *path, const char *kernel, const user_kernel **out, char **text,
                clv_msg *msg)
{
    *out = NULL;
    if (!path || !*path)
        return clv__fail(msg, CLV_EPARSE,
                         "filter 'opencl' needs a kernel file: opencl=file=PATH[:kernel=NAME]");
    if (strlen(path) >= sizeof((user_kernel *)0)->path)
        return clv__fail(msg, CLV_EPARSE, "filter 'opencl': the file name is too long");
    if (kernel && strlen(kernel) >= sizeof((user_kernel *)0)->kernel)
        return clv__fail(msg, CLV_EPARSE, "filter 'opencl': the kernel name is too long");
    char *src = NULL;
    size_t len = 0;
    int err = read_file(path, &src, &len, msg);
    if (err)
        return err;
    user_kernel *u = calloc(1, sizeof *u);
    if (!u) {
        free(src);
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    }
    snprintf(u->path, sizeof u->path, "%s", path);
    u->filter.state_size = sizeof(user_state);
    u->filter.run = run;
    u->filter.uninit = uninit;
    u->filter.file = file_of;
    u->filter.format = format;
    u->filter.open = open_file;
    u->filter.swap = swap;
    u->filter.temporal_state = temporal_state;
    u->filter.watchdog = 1;
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

int clv_kernel_file_load(const char *path, const char *kernel, const clv_filter **out, clv_msg *msg)
{
    const user_kernel *u = NULL;
    int err = load(path, kernel, &u, NULL, msg);
    *out = u ? &u->filter : NULL;
    return err;
}

/* A member's descriptor is the first field of its user_kernel. */
static const user_kernel *user_of(const clv_filter *f)
{
    return (const user_kernel *)f;
}

static const char *file_of(const clv_filter *f, const char **kernel)
{
    const user_kernel *u = user_of(f);
    if (kernel)
        *kernel = u->kernel_given ? u->kernel : NULL;
    return u->path;
}

/* Writes s into out with the chain syntax's special characters escaped. */
static size_t escape(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; *s && n + 2 < size; s++) {
        if (strchr(":,='\\[]; \t", *s))
            out[n++] = '\\';
        out[n++] = *s;
    }
    out[n] = 0;
    return n;
}

static void format(const clv_filter *f, char *out, size_t size)
{
    const user_kernel *u = user_of(f);
    char path[8200];
    escape(u->path, path, sizeof path);
    if (u->kernel_given)
        snprintf(out, size, "opencl=file=%s:kernel=%s", path, u->kernel);
    else
        snprintf(out, size, "opencl=file=%s", path);
}

/* The registry's `opencl` entry (clv_filter's resolve): the file
 * (file=PATH, or the first value when it has no name) and kernel
 * (kernel=NAME), read before its other parameters, which the file
 * declares. s is at the '=' after the name, or at its end. */
static int resolve(const char *s, const clv_filter **f, int *in_order, clv_msg *msg)
{
    char path[4096] = "", kernel[256] = "", arg[8192];
    int first = 1;
    size_t length;
    if (*s == '=') {
        s++;
        while (*s && *s != ',') {
            const char *start = s;
            size_t klen = strcspn(start, "=:,'\\");
            char key[64] = "";
            if (start[klen] == '=') {
                const char *k = clv__token(start, "=", key, sizeof key, &length);
                if (!k || length >= sizeof key)
                    break; /* the main loop says what is wrong */
                s = k + 1;
            }
            const char *e = clv__token(s, ":,", arg, sizeof arg, &length);
            if (!e || length >= sizeof arg)
                break;
            int is_file = !strcmp(key, "file") || (!key[0] && first);
            char *to = is_file ? path : !strcmp(key, "kernel") ? kernel : NULL;
            size_t room = is_file ? sizeof path : sizeof kernel;
            if (to && length >= room)
                return clv__fail(msg, CLV_EPARSE,
                                 "filter 'opencl' parameter '%s': a %s of %zu characters is "
                                 "too long (at most %zu)",
                                 is_file ? "file" : "kernel", is_file ? "file name" : "kernel name",
                                 length, room - 1);
            if (to)
                memcpy(to, arg, length + 1);
            if (is_file)
                *in_order = !key[0];
            first = 0;
            s = *e == ':' ? e + 1 : e;
        }
    }
    return clv_kernel_file_load(path, kernel[0] ? kernel : NULL, f, msg);
}

const clv_filter clv__filter_opencl = {
    .name = "opencl",
    .help = "a kernel of yours from a .cl file, with the parameters the file declares",
    .usage = "opencl=file=KERNEL.cl",
    .resolve = resolve,
    .resolve_keys = "file|kernel",
};

/* ---- Building and binding -------------------------------------------------- */

enum arg_kind { ARG_PARAM, ARG_FRAME, ARG_TIME, ARG_PREV };

/* A kernel built from a file and how its arguments are fed. */
struct clv_kernel_build {
    const user_kernel *user;
    cl_program program;
    cl_kernel kernel;
    int nargs;
    unsigned char kind[MAX_ARGS];
    unsigned char param[MAX_ARGS];
    int uses_prev;
    clv_kernel_build *next; /* the build for the context's next device */
};

void clv_kernel_build_free(clv_kernel_build *b)
{
    if (!b)
        return;
    clv_kernel_build_free(b->next);
    if (b->kernel)
        clReleaseKernel(b->kernel);
    if (b->program)
        clReleaseProgram(b->program);
    free(b);
}

typedef struct arg_info {
    char name[64], type[64];
    cl_kernel_arg_address_qualifier address;
} arg_info;

static int get_arg_info(cl_kernel k, cl_uint i, arg_info *a)
{
    if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof a->name, a->name, NULL) ||
        clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof a->type, a->type, NULL) ||
        clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof a->address, &a->address,
                           NULL))
        return -1;
    /* "uchar4*" or "uchar4 *" */
    char *sp;
    while ((sp = strchr(a->type, ' ')))
        memmove(sp, sp + 1, strlen(sp));
    return 0;
}

static const char contract[] = "kernel void NAME(global const uchar4 *src, global uchar4 *dst, "
                               "int width, int height, int stride, ...)";

/* Decides what feeds each argument of b->kernel. */
static int bind(clv_kernel_build *b, clv_msg *msg)
{
    const user_kernel *u = b->user;
    const char *file = u->path, *kn = u->kernel;
    cl_uint nargs = 0;
    if (clGetKernelInfo(b->kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL))
        return clv__fail(msg, CLV_ECL, "%s: cannot read kernel '%s''s arguments", file, kn);
    if (nargs < 5)
        return clv__fail(msg, CLV_EKERNEL, "%s: kernel '%s' has %u arguments; it must start %s",
                         file, kn, nargs, contract);
    if (nargs > MAX_ARGS)
        return clv__fail(msg, CLV_EKERNEL, "%s: kernel '%s' has %u arguments; at most %d", file, kn,
                         nargs, MAX_ARGS);
    b->nargs = (int)nargs;
    arg_info a;
    if (get_arg_info(b->kernel, 0, &a)) {
        /* No argument names from this driver: the declared parameters in
         * order. */
        if ((int)nargs != 5 + u->filter.param_count)
            return clv__fail(msg, CLV_EKERNEL,
                             "%s: kernel '%s' has %u arguments but the file declares %d "
                             "parameters (this driver gives no argument names, so they must "
                             "follow the first five in order)",
                             file, kn, nargs, u->filter.param_count);
        for (int i = 5; i < (int)nargs; i++) {
            b->kind[i] = ARG_PARAM;
            b->param[i] = (unsigned char)(i - 5);
        }
        return 0;
    }
    static const char *const first[] = {"src", "dst", "width", "height", "stride"};
    for (cl_uint i = 0; i < nargs; i++) {
        if (get_arg_info(b->kernel, i, &a))
            return clv__fail(msg, CLV_ECL, "%s: cannot read kernel '%s''s argument %u", file, kn,
                             i + 1);
        int pointer = strchr(a.type, '*') != NULL;
        int global_uchar4 =
            pointer && a.address == CL_KERNEL_ARG_ADDRESS_GLOBAL && !strncmp(a.type, "uchar4*", 7);
        if (i < 5) {
            int ok = i < 2 ? global_uchar4 : !strcmp(a.type, "int");
            if (!ok)
                return clv__fail(msg, CLV_EKERNEL,
                                 "%s: kernel '%s' argument %u ('%s %s') must be %s %s: a kernel "
                                 "starts %s",
                                 file, kn, i + 1, a.type, a.name,
                                 i < 2 ? "a global uchar4 pointer" : "an int", first[i], contract);
            continue;
        }
        /* PoCL renames identifiers that are built-in functions (a
         * parameter called `mix` reads "_cl_mix"). */
        if (!strncmp(a.name, "_cl_", 4))
            memmove(a.name, a.name + 4, strlen(a.name + 4) + 1);
        int p = -1;
        for (int j = 0; j < u->filter.param_count; j++)
            if (!strcmp(u->params[j].name, a.name))
                p = j;
        if (p >= 0) {
            const char *want = u->params[p].type == CLV_PARAM_INT ? "int" : "float";
            if (strcmp(a.type, want))
                return clv__fail(msg, CLV_EKERNEL,
                                 "%s: kernel '%s' argument '%s' is %s but its @param says %s", file,
                                 kn, a.name, a.type, want);
            b->kind[i] = ARG_PARAM;
            b->param[i] = (unsigned char)p;
        } else if (!strcmp(a.name, "frame") &&
                   (!strcmp(a.type, "int") || !strcmp(a.type, "uint"))) {
            b->kind[i] = ARG_FRAME;
        } else if (!strcmp(a.name, "time") && !strcmp(a.type, "float")) {
            b->kind[i] = ARG_TIME;
        } else if (!strcmp(a.name, "prev") && global_uchar4) {
            b->kind[i] = ARG_PREV;
            b->uses_prev = 1;
        } else {
            return clv__fail(msg, CLV_EKERNEL,
                             "%s: kernel '%s' argument '%s %s' is not a declared parameter "
                             "(declare it: // @param %s %s = 0 [0, 1]) nor one of clvid's: int "
                             "frame, float time, global const uchar4 *prev",
                             file, kn, a.type, a.name, strstr(a.type, "float") ? "float" : "int",
                             a.name);
        }
    }
    return 0;
}

/* Escapes a file name for a #line directive. */
static void line_name(const char *path, char *out, size_t size)
{
    size_t n = 0;
    for (; *path && n + 3 < size; path++) {
        if (*path == '"' || *path == '\\')
            out[n++] = '\\';
        if (*path != '\n')
            out[n++] = *path;
    }
    out[n] = 0;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static int build_one(clv_context *ctx, const char *path, const char *kernel, clv_kernel_build **out,
                     clv_msg *msg)
{
    *out = NULL;
    const user_kernel *u = NULL;
    char *src = NULL, *header = NULL, *text = NULL, *log = NULL;
    size_t header_len = 0;
    int err = load(path, kernel, &u, &src, msg);
    if (err)
        return err;
    clv_kernel_build *b = calloc(1, sizeof *b);
    if (!b) {
        err = clv__fail(msg, CLV_ENOMEM, "out of memory");
        goto done;
    }
    b->user = u;
    if ((err = clv__source_text(ctx, "user.cl", &header, &header_len, msg)))
        goto done;
    char name[8300];
    line_name(path, name, sizeof name);
    size_t size = header_len + strlen(name) + strlen(src) + 32;
    text = malloc(size);
    if (!text) {
        err = clv__fail(msg, CLV_ENOMEM, "out of memory");
        goto done;
    }
    int n = snprintf(text, size, "%s\n#line 1 \"%s\"\n", header, name);
    int first_line = count_lines(text) + 1;
    snprintf(text + n, size - (size_t)n, "%s", src);
    err = clv__program_build_text(ctx, text, strlen(text), "-cl-std=CL1.2 -cl-kernel-arg-info",
                                  path, first_line, &b->program, &log, msg);
    if (err == CLV_EBUILD) {
        err = clv__fail(msg, CLV_EKERNEL, "%s: kernel '%s' does not build on %s:\n%s", path,
                        u->kernel, ctx->dev.name, log && *log ? log : "(the driver gave no log)");
        goto done;
    }
    if (err)
        goto done;
    cl_int st = CL_SUCCESS;
    b->kernel = clCreateKernel(b->program, u->kernel, &st);
    if (!b->kernel || st != CL_SUCCESS) {
        b->kernel = NULL;
        err = clv__fail(msg, CLV_EKERNEL, "%s: kernel '%s': clCreateKernel: %s (is it a kernel?)",
                        path, u->kernel, clv__cl_strerror(st));
        goto done;
    }
    err = bind(b, msg);
done:
    free(src);
    free(header);
    free(text);
    free(log);
    if (err) {
        clv_kernel_build_free(b);
        return err;
    }
    *out = b;
    return 0;
}

int clv_kernel_build_file(clv_context *ctx, const char *path, const char *kernel,
                          clv_kernel_build **out, clv_msg *msg)
{
    int err = build_one(ctx, path, kernel, out, msg);
    clv_kernel_build **link = err ? NULL : &(*out)->next;
    for (int k = 0; !err && k < ctx->more_count; k++) {
        if ((err = build_one(ctx->more[k], path, kernel, link, msg))) {
            clv_kernel_build_free(*out);
            *out = NULL;
        } else {
            link = &(*link)->next;
        }
    }
    return err;
}

static int temporal_state(const void *state)
{
    const user_state *s = state;
    return s->build && s->build->uses_prev;
}

/* ---- The filter on a chain ---------------------------------------------------- */

static int open_file(void *state, clv_context *ctx, const clv_filter *f, const clv_filter **now,
                     clv_msg *msg)
{
    user_state *s = state;
    const user_kernel *u = user_of(f);
    int err = build_one(ctx, u->path, u->kernel_given ? u->kernel : NULL, &s->build, msg);
    *now = err ? f : &s->build->user->filter;
    return err;
}

static int swap(void *const *states, int count, clv_kernel_build *build, const clv_filter **now)
{
    int n = 0;
    while (build && n < count) {
        clv_kernel_build *next = build->next; /* the build for the next device */
        build->next = NULL;
        user_state *s = states[n];
        clv_kernel_build_free(s->build); /* runs already enqueued keep their kernel */
        s->build = build;
        if (!build->uses_prev) {
            clv_frame_destroy(&s->prev);
            s->prev_valid = 0;
        }
        now[n++] = &build->user->filter;
        build = next;
    }
    clv_kernel_build_free(build); /* for devices the chain does not run on */
    return n;
}

static void uninit(void *state)
{
    user_state *s = state;
    clv_kernel_build_free(s->build);
    s->build = NULL;
    clv_frame_destroy(&s->prev);
}

static int run(void *state, const clv_launch *l)
{
    user_state *s = state;
    clv_kernel_build *b = s->build;
    const user_kernel *u = b->user;
    int err = 0;
    clv_context *ctx = l->ctx;
    size_t bytes = (size_t)l->stride * (size_t)l->height * 4;
    if (b->uses_prev) {
        if (!s->prev.buffer || s->prev.width != l->width || s->prev.height != l->height) {
            clv_frame_destroy(&s->prev);
            if ((err = clv_frame_create(ctx, l->width, l->height, &s->prev, NULL)))
                return err;
            s->prev_valid = 0;
        }
        if (!s->prev_valid)
            CLV__CL_CHECK(
                ctx,
                clEnqueueCopyBuffer(l->queue, l->src, s->prev.buffer, 0, 0, bytes, 0, NULL, NULL),
                "opencl filter: clEnqueueCopyBuffer");
    }
    if ((err = clv__kernel_frame_args(b->kernel, l)))
        return err;
    for (int i = 5; i < b->nargs; i++) {
        cl_int st = CL_SUCCESS;
        switch (b->kind[i]) {
        case ARG_PARAM: {
            const clv_param *p = &u->params[b->param[i]];
            const clv_value *v = &l->values[b->param[i]];
            if (p->type == CLV_PARAM_REAL) {
                cl_float f = (cl_float)((double)v->i / 1000.0);
                st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof f, &f);
            } else {
                cl_int n = (cl_int)v->i;
                st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof n, &n);
            }
            break;
        }
        case ARG_FRAME: {
            cl_uint n =
                (cl_uint)l->frame_index; /* `int frame` or `uint frame`: 32 bits either way */
            st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof n, &n);
            break;
        }
        case ARG_TIME: {
            cl_float t = l->time;
            st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof t, &t);
            break;
        }
        case ARG_PREV:
            st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof(cl_mem), &s->prev.buffer);
            break;
        }
        CLV__CL_CHECK(ctx, st, "opencl filter: clSetKernelArg");
    }
    /* Exactly width x height work-items, in whole groups: the largest
     * rectangle that groups tile, then the right and bottom strips, each
     * launched at its offset so that get_global_id is the pixel. */
    size_t gx = ctx->row_shape ? 64 : 16, gy = ctx->row_shape ? 2 : 8;
    size_t w = (size_t)l->width, h = (size_t)l->height;
    size_t w0 = w - w % gx, h0 = h - h % gy;
    struct {
        size_t off[2], global[2], local[2];
    } part[3] = {
        {{0, 0}, {w0, h0}, {gx, gy}},
        {{w0, 0}, {w - w0, h0}, {1, gy}},
        {{0, h0}, {w, h - h0}, {1, 1}},
    };
    for (int i = 0; i < 3; i++) {
        if (!part[i].global[0] || !part[i].global[1])
            continue;
        if ((err = clv__launch_at(l, b->kernel, 2, part[i].off, part[i].global, part[i].local)))
            return err;
    }
    if (b->uses_prev) {
        CLV__CL_CHECK(
            ctx, clEnqueueCopyBuffer(l->queue, l->src, s->prev.buffer, 0, 0, bytes, 0, NULL, NULL),
            "opencl filter: clEnqueueCopyBuffer");
        s->prev_valid = 1;
    }
    return 0;
fail:
    return err;
}
