/* expr.c - ffmpeg's arithmetic expressions (libavutil/eval's language:
 * "iw/2", "trunc(ih*dar/2)*2", "if(gt(t,2),PI/4,0)"), for the sizes,
 * positions and angles filters take. Parsed once into a tree, evaluated
 * as often as the variables change; the same operators, precedence,
 * functions, number suffixes and special values as FFmpeg, so an ffmpeg
 * -vf means the same here (tests compare the two). */
#include "clvid_internal.h"

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPR_DEPTH 100           /* nested subexpressions, as FFmpeg's stack limit */
#define EXPR_VARS CLV__EXPR_REGS /* st() and ld() registers */
#define EXPR_LOOPS 1e7           /* while() iterations before it gives up (NAN) */
#define EXPR_PI 3.14159265358979323846
#define EXPR_E 2.7182818284590452354

enum op {
    OP_VALUE,
    OP_VAR,
    OP_FUNC1,
    OP_SEQ,
    OP_ADD,
    OP_MUL,
    OP_DIV,
    OP_POW,
    OP_MOD,
    OP_MAX,
    OP_MIN,
    OP_EQ,
    OP_GT,
    OP_GTE,
    OP_ST,
    OP_LD,
    OP_WHILE,
    OP_IF,
    OP_IFNOT,
    OP_BETWEEN,
    OP_CLIP,
    OP_ATAN2,
    OP_HYPOT,
    OP_BITAND,
    OP_BITOR,
    OP_GCD,
    OP_LERP,
    OP_SQUISH,
    OP_TAYLOR,
    OP_ROOT,
    OP_PRINT,
    OP_RANDOM,
    OP_GAUSS,
    OP_ISNAN,
    OP_ISINF,
    OP_NOT,
    OP_SGN,
    OP_USER, /* a function of the caller's (clv__expr_parse_with) */
};

typedef struct node {
    enum op op;
    double value;         /* OP_VALUE; otherwise the sign the result is multiplied by */
    int var;              /* OP_VAR: index into the values */
    double (*fn)(double); /* OP_FUNC1 */
    clv__expr_fn user;    /* OP_USER; NULL: the function gives NAN */
    struct node *arg[3];
} node;

struct clv__expr {
    node *root;
};

typedef struct parser {
    const char *s;            /* the text without blanks, at the next character */
    const char *start;        /* its beginning */
    const int *where;         /* for each character of it, its index in the text */
    const char *const *names; /* the caller's variables, NULL-terminated */
    const clv__expr_fn *fns;  /* names[i]'s function when it ends in "()"; may be NULL */
    int depth;
    const char *text;
    clv_msg *msg;
    int failed;
} parser;

static void free_node(node *n)
{
    if (!n)
        return;
    for (int i = 0; i < 3; i++)
        free_node(n->arg[i]);
    free(n);
}

static node *new_node(parser *p, enum op op)
{
    node *n = calloc(1, sizeof *n);
    if (!n && !p->failed) {
        p->failed = CLV_ENOMEM;
        if (p->msg)
            snprintf(p->msg->text, sizeof p->msg->text, "out of memory");
    }
    if (n) {
        n->op = op;
        n->value = 1;
    }
    return n;
}

/* Fails once, naming the expression and the character at fault. */
static node *fault(parser *p, const char *what)
{
    if (!p->failed) {
        size_t at = (size_t)(p->s - p->start);
        p->failed = CLV_EPARSE;
        if (p->msg)
            snprintf(p->msg->text, sizeof p->msg->text, "expression '%.200s': %s at character %d",
                     p->text, what, p->where[at] + 1);
    }
    return NULL;
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* 1 when s starts with name as a whole identifier. */
static int match(const char *s, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(s, name, n) && !ident_char(s[n]);
}

/* A number with FFmpeg's suffixes: "dB" (decibels: 10^(x/20)), or an SI
 * prefix (k, M, G, ...; with "i" after it the power of 1024 instead),
 * then "B" for bytes (times 8); 0x for hex. */
static int number(const char **s, double *v)
{
    static const struct {
        char c;
        double dec, bin;
    } si[] = {{'y', 1e-24, 8.271806125530276749e-25},
              {'z', 1e-21, 8.4703294725430034e-22},
              {'a', 1e-18, 8.6736173798840355e-19},
              {'f', 1e-15, 8.8817841970012523e-16},
              {'p', 1e-12, 9.0949470177292824e-13},
              {'n', 1e-9, 9.3132257461547852e-10},
              {'u', 1e-6, 9.5367431640625e-7},
              {'m', 1e-3, 9.765625e-4},
              {'c', 1e-2, 9.8431332023036951e-3},
              {'d', 1e-1, 9.921256574801246e-2},
              {'h', 1e2, 1.0159366732596479e2},
              {'k', 1e3, 1.024e3},
              {'K', 1e3, 1.024e3},
              {'M', 1e6, 1.048576e6},
              {'G', 1e9, 1.073741824e9},
              {'T', 1e12, 1.099511627776e12},
              {'P', 1e15, 1.125899906842624e15},
              {'E', 1e18, 1.152921504606847e18},
              {'Z', 1e21, 1.1805916207174113e21},
              {'Y', 1e24, 1.2089258196146292e24}};
    char *end;
    if ((*s)[0] == '0' && ((*s)[1] | 0x20) == 'x')
        *v = (double)strtoul(*s, &end, 16);
    else
        *v = strtod(*s, &end);
    if (end == *s)
        return 0;
    if (end[0] == 'd' && end[1] == 'B') {
        *v = pow(10, *v / 20);
        end += 2;
    } else {
        for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
            if (*end == si[i].c) {
                *v *= end[1] == 'i' ? si[i].bin : si[i].dec;
                end += end[1] == 'i' ? 2 : 1;
                break;
            }
    }
    if (*end == 'B') {
        *v *= 8;
        end++;
    }
    *s = end;
    return 1;
}

static node *parse_expr(parser *p);

static const struct {
    const char *name;
    double value;
} constants[] = {
    {"E", EXPR_E}, {"PI", EXPR_PI}, {"PHI", 1.61803398874989484820}, {"QP2LAMBDA", 118}};

static double sign_of(double x)
{
    return (x > 0) - (x < 0);
}

static const struct {
    const char *name;
    enum op op;
    int args; /* at least this many */
    double (*fn)(double);
} functions[] = {
    {"sinh", OP_FUNC1, 1, sinh},    {"cosh", OP_FUNC1, 1, cosh},      {"tanh", OP_FUNC1, 1, tanh},
    {"sin", OP_FUNC1, 1, sin},      {"cos", OP_FUNC1, 1, cos},        {"tan", OP_FUNC1, 1, tan},
    {"atan", OP_FUNC1, 1, atan},    {"asin", OP_FUNC1, 1, asin},      {"acos", OP_FUNC1, 1, acos},
    {"exp", OP_FUNC1, 1, exp},      {"log", OP_FUNC1, 1, log},        {"abs", OP_FUNC1, 1, fabs},
    {"floor", OP_FUNC1, 1, floor},  {"ceil", OP_FUNC1, 1, ceil},      {"trunc", OP_FUNC1, 1, trunc},
    {"round", OP_FUNC1, 1, round},  {"sqrt", OP_FUNC1, 1, sqrt},      {"sgn", OP_FUNC1, 1, sign_of},
    {"squish", OP_SQUISH, 1, NULL}, {"gauss", OP_GAUSS, 1, NULL},     {"isnan", OP_ISNAN, 1, NULL},
    {"isinf", OP_ISINF, 1, NULL},   {"not", OP_NOT, 1, NULL},         {"ld", OP_LD, 1, NULL},
    {"mod", OP_MOD, 2, NULL},       {"max", OP_MAX, 2, NULL},         {"min", OP_MIN, 2, NULL},
    {"eq", OP_EQ, 2, NULL},         {"gte", OP_GTE, 2, NULL},         {"gt", OP_GT, 2, NULL},
    {"lte", OP_GTE, -2, NULL},      {"lt", OP_GT, -2, NULL}, /* arguments swapped */
    {"pow", OP_POW, 2, NULL},       {"st", OP_ST, 2, NULL},           {"while", OP_WHILE, 2, NULL},
    {"if", OP_IF, 2, NULL},         {"ifnot", OP_IFNOT, 2, NULL},     {"atan2", OP_ATAN2, 2, NULL},
    {"hypot", OP_HYPOT, 2, NULL},   {"bitand", OP_BITAND, 2, NULL},   {"bitor", OP_BITOR, 2, NULL},
    {"gcd", OP_GCD, 2, NULL},       {"between", OP_BETWEEN, 3, NULL}, {"clip", OP_CLIP, 3, NULL},
    {"lerp", OP_LERP, 3, NULL},     {"taylor", OP_TAYLOR, 2, NULL},   {"root", OP_ROOT, 2, NULL},
    {"print", OP_PRINT, 1, NULL},   {"random", OP_RANDOM, 1, NULL},
};

/* 1 when a caller's name is a function ("rotw()"). */
static int is_function(const char *name)
{
    size_t n = strlen(name);
    return n > 2 && name[n - 2] == '(' && name[n - 1] == ')';
}

/* The caller's function names[index] of one argument, its '(' at open. */
static node *parse_user(parser *p, int index, const char *open)
{
    const char *at = p->s;
    p->s = open + 1;
    node *n = new_node(p, OP_USER);
    if (!n)
        return NULL;
    n->var = index;
    n->user = p->fns ? p->fns[index] : NULL;
    if (!(n->arg[0] = parse_expr(p))) {
        free_node(n);
        return NULL;
    }
    if (*p->s != ')') {
        char what[160];
        snprintf(what, sizeof what, "%.*s() takes 1 argument", (int)(open - at), at);
        free_node(n);
        return fault(p, what);
    }
    p->s++;
    return n;
}

static node *parse_primary(parser *p)
{
    double v;
    const char *at = p->s;
    if (number(&p->s, &v)) {
        node *n = new_node(p, OP_VALUE);
        if (n)
            n->value = v;
        return n;
    }
    for (int i = 0; p->names && p->names[i]; i++)
        if (!is_function(p->names[i]) && match(p->s, p->names[i])) {
            p->s += strlen(p->names[i]);
            node *n = new_node(p, OP_VAR);
            if (n)
                n->var = i;
            return n;
        }
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++)
        if (match(p->s, constants[i].name)) {
            p->s += strlen(constants[i].name);
            node *n = new_node(p, OP_VALUE);
            if (n)
                n->value = constants[i].value;
            return n;
        }
    if (*p->s == '(') {
        p->s++;
        node *inner = parse_expr(p);
        if (!inner)
            return NULL;
        if (*p->s != ')') {
            free_node(inner);
            return fault(p, "missing ')'");
        }
        p->s++;
        return inner;
    }
    const char *name_end = p->s;
    while (ident_char(*name_end))
        name_end++;
    if (name_end == p->s)
        return fault(p, *p->s ? "a number, a name or '(' expected" : "the expression ends early");
    if (*name_end == '(')
        for (int i = 0; p->names && p->names[i]; i++)
            if (is_function(p->names[i]) && strlen(p->names[i]) - 2 == (size_t)(name_end - p->s) &&
                !strncmp(p->s, p->names[i], (size_t)(name_end - p->s)))
                return parse_user(p, i, name_end);
    int found = -1;
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (match(p->s, functions[i].name))
            found = (int)i;
    if (*name_end != '(' || found < 0) {
        char what[160];
        snprintf(what, sizeof what, "unknown %s '%.*s'", *name_end == '(' ? "function" : "name",
                 (int)(name_end - p->s > 40 ? 40 : name_end - p->s), p->s);
        return fault(p, what);
    }
    p->s = name_end + 1;
    node *n = new_node(p, functions[found].op);
    if (!n)
        return NULL;
    n->fn = functions[found].fn;
    int count = 0;
    while (count < 3) {
        if (!(n->arg[count++] = parse_expr(p))) {
            free_node(n);
            return NULL;
        }
        if (*p->s != ',')
            break;
        p->s++;
    }
    int want = abs(functions[found].args);
    /* if, ifnot and taylor take an optional third; print ignores a second
     * and third (FFmpeg's log level and nothing). */
    int most =
        n->op == OP_IF || n->op == OP_IFNOT || n->op == OP_TAYLOR || n->op == OP_PRINT ? 3 : want;
    if (*p->s != ')' || count < want || count > most) {
        char what[160];
        snprintf(what, sizeof what, "%s() takes %d%s argument%s", functions[found].name, want,
                 most > want ? (most == want + 1 ? " or 3" : " to 3") : "",
                 want == 1 && most == 1 ? "" : "s");
        free_node(n);
        p->s = *p->s == ')' ? at : p->s;
        return fault(p, what);
    }
    p->s++;
    if (functions[found].args < 0) { /* lt, lte: gt and gte the other way round */
        node *t = n->arg[0];
        n->arg[0] = n->arg[1];
        n->arg[1] = t;
    }
    return n;
}

/* The sign before a primary: -1, 0 or 1, consumed. A negative number of
 * decibels ("-3dB") keeps its sign inside (10^(-3/20)), as in FFmpeg. */
static int leading_sign(parser *p)
{
    if (*p->s == '-') {
        char *end;
        (void)strtod(p->s, &end);
        if (end != p->s && end[0] == 'd' && end[1] == 'B')
            return 0;
    }
    int sign = (*p->s == '+') - (*p->s == '-');
    p->s += sign != 0;
    return sign;
}

/* A primary with its sign, then '^' powers, left to right; the leading
 * sign applies to the whole power ("-2^2" is -4), as in FFmpeg. */
static node *parse_factor(parser *p)
{
    int sign = leading_sign(p);
    node *n = parse_primary(p);
    while (n && *p->s == '^') {
        p->s++;
        int sign2 = leading_sign(p);
        node *e = parse_primary(p), *pw = e ? new_node(p, OP_POW) : NULL;
        if (!pw) {
            free_node(n);
            free_node(e);
            return NULL;
        }
        if (sign2 < 0)
            e->value = -e->value;
        pw->arg[0] = n;
        pw->arg[1] = e;
        n = pw;
    }
    if (n && sign < 0)
        n->value = -n->value;
    return n;
}

static node *parse_binary(parser *p, int level)
{
    /* level 0: ';', 1: '+' '-' (the sign belongs to the next term), 2: '*' '/' */
    node *n = level == 2 ? parse_factor(p) : parse_binary(p, level + 1);
    for (;;) {
        char c = *p->s;
        enum op op;
        if (level == 0 && c == ';')
            op = OP_SEQ;
        else if (level == 1 && (c == '+' || c == '-'))
            op = OP_ADD;
        else if (level == 2 && (c == '*' || c == '/'))
            op = c == '*' ? OP_MUL : OP_DIV;
        else
            return n;
        if (!n)
            return NULL;
        if (op != OP_ADD)
            p->s++;
        node *r = level == 2 ? parse_factor(p) : parse_binary(p, level + 1);
        node *b = r ? new_node(p, op) : NULL;
        if (!b) {
            free_node(n);
            free_node(r);
            return NULL;
        }
        b->arg[0] = n;
        b->arg[1] = r;
        n = b;
    }
}

static node *parse_expr(parser *p)
{
    if (++p->depth > EXPR_DEPTH) {
        p->depth--;
        return fault(p, "nested too deeply");
    }
    node *n = parse_binary(p, 0);
    p->depth--;
    return n;
}

int clv__expr_parse(const char *text, const char *const *names, clv__expr **out, clv_msg *msg)
{
    return clv__expr_parse_with(text, names, NULL, out, msg);
}

int clv__expr_parse_with(const char *text, const char *const *names, const clv__expr_fn *fns,
                         clv__expr **out, clv_msg *msg)
{
    *out = NULL;
    size_t len = strlen(text);
    char *packed = malloc(len + 1);
    int *where = malloc((len + 1) * sizeof *where);
    clv__expr *e = calloc(1, sizeof *e);
    if (!packed || !where || !e) {
        free(packed);
        free(where);
        free(e);
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)text[i])) {
            where[n] = (int)i;
            packed[n++] = text[i];
        }
    packed[n] = 0;
    where[n] = (int)len;
    parser p = {.s = packed,
                .start = packed,
                .where = where,
                .names = names,
                .fns = fns,
                .text = text,
                .msg = msg};
    e->root = n ? parse_expr(&p) : fault(&p, "empty expression");
    if (e->root && *p.s) {
        char what[80];
        snprintf(what, sizeof what, "unexpected '%c'", *p.s);
        fault(&p, what);
    }
    free(packed);
    free(where);
    if (p.failed) {
        clv__expr_free(e);
        return p.failed;
    }
    *out = e;
    return 0;
}

void clv__expr_free(clv__expr *e)
{
    if (!e)
        return;
    free_node(e->root);
    free(e);
}

static int reg(double d)
{
    return d >= EXPR_VARS - 1 ? EXPR_VARS - 1 : d > 0 ? (int)d : 0;
}

/* d as an int64_t, as FFmpeg's bitand, bitor and gcd take it: what x86-64
 * gives FFmpeg's plain cast (INT64_MIN, the "integer indefinite") for a
 * value outside the range, here without the cast's undefined behaviour.
 * d is not NaN. */
static long long to_int64(double d)
{
    return d >= -0x1p63 && d < 0x1p63 ? (long long)d : LLONG_MIN;
}

static double eval(const node *n, const double *values, double *vars);

/* taylor(expr, x[, register]): the sum of expr(i) x^i / i! over i = 0, 1,
 * ... (i in the register) until a term changes nothing. */
static double taylor(const node *n, const double *values, double *vars)
{
    double t = 1, d = 0, x = eval(n->arg[1], values, vars);
    int id = n->arg[2] ? reg(eval(n->arg[2], values, vars)) : 0;
    double saved = vars[id];
    for (int i = 0; i < 1000; i++) {
        double before = d;
        vars[id] = i;
        double v = eval(n->arg[0], values, vars);
        d += t * v;
        if (before == d && v)
            break;
        t *= x / (i + 1);
    }
    vars[id] = saved;
    return d;
}

static int reverse_bits(int b)
{
    int r = 0;
    for (int i = 0; i < 8; i++)
        r |= ((b >> i) & 1) << (7 - i);
    return r;
}

/* root(expr, max): an x in [0, max] (in register 0) where expr crosses
 * zero, found as FFmpeg finds it: samples in bit-reversed order, then
 * shrinking steps around the best, then bisection. */
static double root(const node *n, const double *values, double *vars)
{
    double low = -1, high = -1, low_v = -DBL_MAX, high_v = DBL_MAX;
    double saved = vars[0], x_max = eval(n->arg[1], values, vars);
    for (int i = -1; i < 1024; i++) {
        if (i < 255) {
            vars[0] = reverse_bits(i & 255) * x_max / 255;
        } else {
            vars[0] = x_max * pow(0.9, i - 255);
            if (i & 1)
                vars[0] *= -1;
            vars[0] += i & 2 ? low : high;
        }
        double v = eval(n->arg[0], values, vars);
        if (v <= 0 && v > low_v) {
            low = vars[0];
            low_v = v;
        }
        if (v >= 0 && v < high_v) {
            high = vars[0];
            high_v = v;
        }
        if (low >= 0 && high >= 0) {
            for (int j = 0; j < 1000; j++) {
                vars[0] = (low + high) * 0.5;
                if (low == vars[0] || high == vars[0])
                    break;
                v = eval(n->arg[0], values, vars);
                if (v <= 0)
                    low = vars[0];
                if (v >= 0)
                    high = vars[0];
                if (isnan(v)) {
                    low = high = v;
                    break;
                }
            }
            break;
        }
    }
    vars[0] = saved;
    return -low_v < high_v ? low : high;
}

static double eval(const node *n, const double *values, double *vars)
{
    double a, b, c;
    switch (n->op) {
    case OP_VALUE:
        return n->value;
    case OP_VAR:
        return n->value * values[n->var];
    case OP_FUNC1:
        return n->value * n->fn(eval(n->arg[0], values, vars));
    case OP_USER:
        a = eval(n->arg[0], values, vars);
        return n->user ? n->value * n->user(values, a) : NAN;
    /* squish, gauss and lerp ignore a sign before them, as FFmpeg's do. */
    case OP_SQUISH:
        return 1 / (1 + exp(4 * eval(n->arg[0], values, vars)));
    case OP_GAUSS:
        a = eval(n->arg[0], values, vars);
        return exp(-a * a / 2) / sqrt(2 * EXPR_PI);
    case OP_PRINT:
        return eval(n->arg[0], values, vars);
    case OP_RANDOM: {
        /* FFmpeg 5's generator: the register is its state. */
        int r = reg(eval(n->arg[0], values, vars));
        uint64_t x = isnan(vars[r]) ? 0 : (uint64_t)vars[r];
        x = x * 1664525 + 1013904223;
        vars[r] = (double)x;
        return n->value * ((double)x * (1.0 / (double)UINT64_MAX));
    }
    case OP_TAYLOR:
        return taylor(n, values, vars);
    case OP_ROOT:
        return root(n, values, vars);
    case OP_ISNAN:
        return n->value * !!isnan(eval(n->arg[0], values, vars));
    case OP_ISINF:
        return n->value * !!isinf(eval(n->arg[0], values, vars));
    case OP_NOT:
        return n->value * (eval(n->arg[0], values, vars) == 0);
    case OP_LD:
        return n->value * vars[reg(eval(n->arg[0], values, vars))];
    case OP_WHILE: {
        double d = NAN;
        for (double i = 0; eval(n->arg[0], values, vars); i++) {
            if (i >= EXPR_LOOPS)
                return NAN;
            d = eval(n->arg[1], values, vars);
        }
        return d;
    }
    case OP_IF:
    case OP_IFNOT:
        a = eval(n->arg[0], values, vars);
        if ((a != 0) == (n->op == OP_IF))
            return n->value * eval(n->arg[1], values, vars);
        return n->arg[2] ? n->value * eval(n->arg[2], values, vars) : 0;
    case OP_BETWEEN:
    case OP_CLIP:
    case OP_LERP:
        a = eval(n->arg[0], values, vars);
        b = eval(n->arg[1], values, vars);
        c = eval(n->arg[2], values, vars);
        if (n->op == OP_BETWEEN)
            return n->value * (a >= b && a <= c);
        if (n->op == OP_LERP)
            return a + (b - a) * c;
        if (isnan(a) || isnan(b) || isnan(c) || b > c)
            return NAN;
        return n->value * (a < b ? b : a > c ? c : a);
    default:
        break;
    }
    a = eval(n->arg[0], values, vars);
    b = eval(n->arg[1], values, vars);
    switch (n->op) {
    case OP_SEQ:
        return n->value * b;
    case OP_ADD:
        return n->value * (a + b);
    case OP_MUL:
        return n->value * (a * b);
    case OP_DIV:
        return n->value * (b != 0 ? a / b : a * INFINITY);
    case OP_POW:
        return n->value * pow(a, b);
    case OP_MOD:
        return n->value * (a - floor(b != 0 ? a / b : a * INFINITY) * b);
    case OP_MAX:
        return n->value * (a > b ? a : b);
    case OP_MIN:
        return n->value * (a < b ? a : b);
    case OP_EQ:
        return n->value * (a == b);
    case OP_GT:
        return n->value * (a > b);
    case OP_GTE:
        return n->value * (a >= b);
    case OP_ST:
        return n->value * (vars[reg(a)] = b);
    case OP_ATAN2:
        return n->value * atan2(a, b);
    case OP_HYPOT:
        return n->value * hypot(a, b);
    case OP_BITAND:
    case OP_BITOR:
        if (isnan(a) || isnan(b))
            return NAN;
        return n->value *
               (double)(n->op == OP_BITAND ? to_int64(a) & to_int64(b) : to_int64(a) | to_int64(b));
    case OP_GCD: {
        if (isnan(a) || isnan(b))
            return NAN;
        const long long sx = to_int64(a), sy = to_int64(b);
        if (sx == 0 || sy == 0) /* the other one, sign and all, as FFmpeg's av_gcd */
            return n->value * (double)(sx ? sx : sy);
        /* In unsigned: INT64_MIN's magnitude is 2^63. */
        unsigned long long x = sx < 0 ? 0 - (unsigned long long)sx : (unsigned long long)sx,
                           y = sy < 0 ? 0 - (unsigned long long)sy : (unsigned long long)sy;
        while (y) {
            unsigned long long t = x % y;
            x = y;
            y = t;
        }
        /* 2^63 (both INT64_MIN) is INT64_MIN to av_gcd */
        return n->value * (x > LLONG_MAX ? (double)LLONG_MIN : (double)x);
    }
    default:
        return NAN;
    }
}

double clv__expr_eval(const clv__expr *e, const double *values)
{
    double vars[EXPR_VARS] = {0};
    return eval(e->root, values, vars);
}

double clv__expr_eval_regs(const clv__expr *e, const double *values, double *regs)
{
    return eval(e->root, values, regs);
}

double clv__expr_value(const char *text, const char *const *names, const double *values)
{
    static const char *const none[] = {NULL};
    clv__expr *e = NULL;
    clv_msg why = {{0}};
    double d = NAN;
    if (!clv__expr_parse(text, names ? names : none, &e, &why))
        d = clv__expr_eval(e, values);
    clv__expr_free(e);
    return d;
}
