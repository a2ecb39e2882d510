/* test_expr.c - clvid's expressions (src/core/expr.c) against FFmpeg's own
 * evaluator (libavutil/eval.c): the same text with the same variables gives
 * the same value, and what one refuses the other refuses. Links the static
 * engine, whose internals it reaches. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <libavutil/eval.h>
#include <libavutil/log.h>
#include <libavutil/rational.h>

#include "clvid_internal.h"

static const char *const names[] = {"iw", "ih", "a", "t", "n", "x", NULL};

static int failures;

/* A caller's function (rotate's rotw is one): x scaled by the variable iw. */
static double scaled_ours(const double *values, double x)
{
    return x * values[0];
}

static double scaled_ffmpeg(void *opaque, double x)
{
    return x * ((const double *)opaque)[0];
}

/* Expressions with the function `scaled`: clvid's and FFmpeg's values agree,
 * and a wrong count of arguments is refused by both. */
static void same_with_function(const char *text, const double *values)
{
    static const char *const with_fn[] = {"iw", "ih", "a", "t", "n", "x", "scaled()", NULL};
    static const clv__expr_fn fns[] = {NULL, NULL, NULL, NULL, NULL, NULL, scaled_ours};
    static const char *const ff_names[] = {"scaled", NULL};
    double (*const ff_fns[])(void *, double) = {scaled_ffmpeg, NULL};
    double vars[7];
    memcpy(vars, values, 6 * sizeof *vars);
    vars[6] = 0;
    clv__expr *e = NULL;
    clv_msg msg = {{0}};
    int ours = clv__expr_parse_with(text, with_fn, fns, &e, &msg);
    AVExpr *ff = NULL;
    int theirs =
        av_expr_parse(&ff, text, (const char *const *)names, ff_names, ff_fns, NULL, NULL, 0, NULL);
    if ((ours == 0) != (theirs >= 0)) {
        printf("FAIL '%s': clvid %s (%s), FFmpeg %s\n", text, ours ? "refuses" : "accepts",
               msg.text, theirs < 0 ? "refuses" : "accepts");
        failures++;
    } else if (ours == 0) {
        double a = clv__expr_eval(e, vars), b = av_expr_eval(ff, values, (void *)values);
        if (!(a == b || (isnan(a) && isnan(b)))) {
            printf("FAIL '%s': clvid %.17g, FFmpeg %.17g\n", text, a, b);
            failures++;
        }
    }
    clv__expr_free(e);
    av_expr_free(ff);
}

static void same(const char *text, const double *values)
{
    clv__expr *e = NULL;
    clv_msg msg = {{0}};
    int ours = clv__expr_parse(text, names, &e, &msg);
    AVExpr *ff = NULL;
    int theirs =
        av_expr_parse(&ff, text, (const char *const *)names, NULL, NULL, NULL, NULL, 0, NULL);
    if ((ours == 0) != (theirs >= 0)) {
        printf("FAIL '%s': clvid %s (%s), FFmpeg %s\n", text, ours ? "refuses" : "accepts",
               msg.text, theirs < 0 ? "refuses" : "accepts");
        failures++;
    } else if (ours == 0) {
        double a = clv__expr_eval(e, values), b = av_expr_eval(ff, values, NULL);
        int ok = (isnan(a) && isnan(b)) || a == b ||
                 (isfinite(a) && fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b)));
        if (!ok) {
            printf("FAIL '%s': clvid %.17g, FFmpeg %.17g\n", text, a, b);
            failures++;
        }
    }
    clv__expr_free(e);
    av_expr_free(ff);
}

/* setsar's and setdar's fractions: clv__d2q and clv__reduce against
 * av_d2q and av_reduce, on ratios of frame sizes, awkward doubles and
 * edges (0, NaN, beyond INT_MAX, negatives), at several max. */
static int ratios(void)
{
    static const double ds[] = {
        0,       1,         -1,   16.0 / 9, 4.0 / 3,      1.0001, 3.14159265358979,
        1e-9,    -2.5,      1e12, -1e12,    2147483650.0, NAN,    0.333333,
        1.0 / 7, 12345.678, 0.5,  99.5,     1.77777,      2.39,   (double)1920 / 1080 * 8 / 9};
    static const int maxes[] = {1, 9, 100, 255, 1000, 65535, 2147483647};
    int n = 0;
    unsigned seed = 1;
    for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
        for (int i = 0; i < 2021; i++) {
            double d;
            if (i < (int)(sizeof ds / sizeof ds[0])) {
                d = ds[i];
            } else {
                seed = seed * 1103515245u + 12345u;
                d = (double)(seed >> 8) / (double)(1u << 14) * (i % 2 ? 1 : -1) / (1 + i % 97);
            }
            AVRational want = av_d2q(d, maxes[m]);
            int num, den;
            clv__d2q(d, maxes[m], &num, &den);
            if (num != want.num || den != want.den) {
                printf("FAIL d2q(%.17g, %d): %d/%d, ffmpeg %d/%d\n", d, maxes[m], num, den,
                       want.num, want.den);
                failures++;
            }
            seed = seed * 1103515245u + 12345u;
            int64_t a = (int64_t)(seed >> 4) - (1 << 27), b = (int64_t)(seed % 4000037) + 1;
            if (i % 3 == 0)
                b = -b;
            int rn, rd, wn, wd;
            int exact = clv__reduce(&rn, &rd, a * (i % 5 + 1), b, maxes[m]);
            int want_exact = av_reduce(&wn, &wd, a * (i % 5 + 1), b, maxes[m]);
            if (rn != wn || rd != wd || exact != want_exact) {
                printf("FAIL reduce(%lld, %lld, %d): %d/%d (%d), ffmpeg %d/%d (%d)\n",
                       (long long)(a * (i % 5 + 1)), (long long)b, maxes[m], rn, rd, exact, wn, wd,
                       want_exact);
                failures++;
            }
            n += 2;
        }
    }
    return n;
}

/* colorlevels' coefficient on the device (cl/channels.cl's levels_div,
 * in C as clv__levels_div): the float nearest n / d by integers, which must
 * be ffmpeg's (float)(n / (double)d) bit for bit, for every pair at 8 bits
 * and for all d with a sweep of n at 16 (d = 0 is the kernel's own case). */
float clv__levels_div(int n, int d);

static int levels_coefficients(void)
{
    int count = 0;
    for (int pass = 0; pass < 2; pass++) {
        int maxv = pass ? 65535 : 255, step = pass ? 997 : 1;
        for (int n = -maxv; n <= maxv; n += n + step > maxv && n < maxv ? maxv - n : step)
            for (int d = -maxv; d <= maxv; d++) {
                if (!d)
                    continue;
                float a = clv__levels_div(n, d), b = (float)(n / (double)d);
                if (memcmp(&a, &b, sizeof a)) {
                    if (failures++ < 10)
                        printf("FAIL levels_div(%d, %d): %a, ffmpeg's %a\n", n, d, a, b);
                }
                count++;
            }
    }
    printf("levels_div: %d quotients\n", count);
    return 1;
}

int main(void)
{
    av_log_set_level(AV_LOG_QUIET);
    static const char *const exprs[] = {
        /* ffmpeg's own test list */
        "1;2",
        "-20",
        "-PI",
        "+PI",
        "1+(5-2)^(3-1)+1/2+sin(PI)-max(-2.2,-3.1)",
        "80G/80Gi",
        "1k",
        "1Gi",
        "1gi",
        "1GiFoo",
        "1k+1k",
        "1Gi*3foo",
        "foo",
        "foo(",
        "foo()",
        "foo)",
        "sin",
        "sin(",
        "sin()",
        "sin)",
        "sin 10",
        "sin(1 )",
        "1",
        "1foo",
        "13k + 12f - foo(1, 2)",
        "st(0, 123)",
        "st(1, 123); ld(1)",
        "lte(0, 1)",
        "lte(1, 1)",
        "lte(1, 0)",
        "lt(0, 1)",
        "lt(1, 1)",
        "gt(1, 0)",
        "gt(2, 7)",
        "gte(122, 122)",
        "st(0, 1); while(lte(ld(0), 100), st(1, ld(1)+ld(0));st(0, ld(0)+1)); ld(1)",
        "st(1, 1); st(2, 2); st(0, 1); while(lte(ld(0),10), st(3, ld(1)+ld(2)); st(1, ld(2)); "
        "st(2, ld(3)); st(0, ld(0)+1)); ld(3)",
        "while(0, 10)",
        "isnan(1)",
        "isnan(NAN)",
        "isnan(INF)",
        "isinf(1)",
        "isinf(NAN)",
        "isinf(INF)",
        "floor(NAN)",
        "floor(123.123)",
        "floor(-123.123)",
        "trunc(123.123)",
        "trunc(-123.123)",
        "ceil(123.123)",
        "ceil(-123.123)",
        "sqrt(1764)",
        "isnan(sqrt(-1))",
        "not(1)",
        "not(NAN)",
        "not(0)",
        "6.0206dB",
        "-3.0103dB",
        "pow(0,1.23)",
        "pow(PI,1.23)",
        "PI^1.23",
        "pow(-1,1.23)",
        "if(1, 2)",
        "if(1, 1, 2)",
        "if(0, 1, 2)",
        "ifnot(0, 23)",
        "ifnot(1, NaN) + if(0, 1)",
        "ifnot(1, 1, 2)",
        "ifnot(0, 1, 2)",
        "taylor(1, 1)",
        "taylor(eq(mod(ld(1),4),1)-eq(mod(ld(1),4),3), PI/2, 1)",
        "root(sin(ld(0))-1, 2)",
        "root(sin(ld(0))+6+sin(ld(0)/12)-log(ld(0)), 100)",
        "7000000B*random(0)",
        "squish(2)",
        "gauss(0.1)",
        "hypot(4,3)",
        "gcd(30,55)*print(min(9,1))",
        "bitor(42, 12)",
        "bitand(42, 12)",
        "bitand(NAN, 1)",
        "between(10, -3, 10)",
        "between(-4, -2, -1)",
        "between(1,2)",
        "clip(0, 2, 1)",
        "clip(0/0, 1, 2)",
        "clip(0, 0/0, 1)",
        /* what filters are given */
        "iw/2",
        "ih*2",
        "-1",
        "-2",
        "trunc(iw/2)*2",
        "iw*a",
        "iw/a",
        "min(iw,1280)",
        "max(ih,720)",
        "PI/6",
        "t*PI/10",
        "2*PI*t",
        "if(gt(t,2),PI/4,0)",
        "iw-10",
        "(iw-x)/2",
        "n*0.1",
        "ih*4/3",
        "iw*sar",
        "sin(t)*10+iw/2",
        "mod(n,30)",
        "1/0",
        "-1/0",
        "0/0",
        "mod(5,0)",
        "abs(-3)",
        "round(2.5)",
        "round(-2.5)",
        "sgn(-3)",
        "atan2(1,2)",
        "lerp(0,10,0.25)",
        "exp(1)",
        "log(10)",
        "E",
        "PHI",
        "0x10",
        "1e3",
        "1.5e-2",
        "2^-1",
        "-2^2",
        "2^3^2",
        "(-2)^2",
        "1--1",
        "1-+1",
        "2*-3",
        "3 - - 2",
        "-(1+2)*3",
        "+-1",
        "1.5K",
        "1KiB",
        "10m",
        "1;",
        ";1",
        "1,2",
        "iw iw",
        "((1)",
        "(1))",
        "",
        " ",
        "ih/",
        "max(1)",
        "min(1,2,3)",
        "unknown(1)",
        "iww",
        "i",
        "a*",
        "*a",
        "2(3)",
        "PI2",
        "st(12,5);ld(12)",
        "st(-3,5);ld(0)",
        "ld(9.9)",
        "while(lt(ld(0),5), st(0,ld(0)+1))",
        "random(0)",
        "st(0,5);random(0)+random(0)",
        "-squish(2)",
        "-lerp(1,2,0.5)",
        "-gauss(1)",
        "print(3,32)",
        "print(1,2,3)",
        "taylor(1,1,2)",
        "taylor(1,2,3,4)",
        "gcd(0,-4)",
        "gcd(-4,0)",
        "gcd(-12,18)",
        /* outside int64_t: x86-64's INT64_MIN, as FFmpeg's cast gives */
        "bitand(1e30,-1)",
        "bitor(-1e30,0)",
        "bitand(1e30,255)",
        "bitand(1/0,-1)",
        "bitor(9223372036854775807,0)",
        "gcd(1e30,3)",
        "gcd(1e30,4)",
        "gcd(-1e30,0)",
        "gcd(1e30,-1e30)",
        "gcd(-1/0,6)",
        "2^-3dB",
        "-6dB^2",
        "ifnot(1)",
        "if()",
    };
    static const double values[][6] = {
        {1920, 1080, 16.0 / 9, 0, 0, 0},
        {641, 359, 641.0 / 359, 2.5, 75, 17},
        {1, 1, 1, 1e6, 1e9, -3},
        {0, 0, NAN, -1, 1, 1e-300},
    };
    int count = 0;
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
        for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
            same(exprs[i], values[v]);
            count++;
        }
    /* A refusal names the expression and the character at fault. */
    clv__expr *e = NULL;
    clv_msg msg = {{0}};
    int err = clv__expr_parse("iw*2+", names, &e, &msg);
    if (err != CLV_EPARSE || !strstr(msg.text, "expression 'iw*2+'") ||
        !strstr(msg.text, "at character 6")) {
        printf("FAIL the message for 'iw*2+': %s\n", msg.text);
        failures++;
    }
    err = clv__expr_parse("iw * foo(2)", names, &e, &msg);
    if (err != CLV_EPARSE || !strstr(msg.text, "unknown function 'foo'") ||
        !strstr(msg.text, "at character 6")) {
        printf("FAIL the message for 'iw * foo(2)': %s\n", msg.text);
        failures++;
    }
    /* A function of the caller's, as rotate's rotw(a) and roth(a). */
    static const char *const with_fn[] = {"scaled(2)",   "-scaled(a+1)*2", "scaled(scaled(3))",
                                          "scaled(1,2)", "scaled()",       "scaled",
                                          "1+scaled(t"};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
        for (size_t i = 0; i < sizeof with_fn / sizeof with_fn[0]; i++) {
            same_with_function(with_fn[i], values[v]);
            count++;
        }
    static const char *const fn_names[] = {"iw", "scaled()", NULL};
    err = clv__expr_parse("scaled(1,2)", fn_names, &e, &msg);
    if (err != CLV_EPARSE || !strstr(msg.text, "scaled() takes 1 argument")) {
        printf("FAIL the message for 'scaled(1,2)': %s\n", msg.text);
        failures++;
    }
    err = clv__expr_parse("scaled(iw)", fn_names, &e, &msg); /* no function given: NAN */
    double nothing = err ? 0 : clv__expr_eval(e, (const double[]){2, 0});
    clv__expr_free(e);
    if (err || !isnan(nothing)) {
        printf("FAIL 'scaled(iw)' without its function: %d %g\n", err, nothing);
        failures++;
    }
    count += ratios();
    count += levels_coefficients();
    printf("%d passed, %d failed\n", count - failures, failures);
    return failures ? 1 : 0;
}
