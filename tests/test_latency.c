/* test_latency.c - the latency histogram (src/pipeline/latency.c) against
 * exact percentiles of sorted times: within one bin above them (0.1 ms
 * below 1 s, 1 ms to 10 s), never above the max; the empty, negative and
 * beyond-10 s cases. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "latency.h"

#include "check.h"

int test_failures;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The exact percentile p of n sorted times: the least that at least p of
 * them do not exceed. */
static double exact(const double *sorted, int n, double p)
{
    int rank = (int)ceil(p * n);
    return sorted[(rank < 1 ? 1 : rank) - 1];
}

/* n times spread over [0, span) ms, some beyond 1 s when span is larger. */
static void against_exact(int n, double span, unsigned seed)
{
    static clv_latency l;
    double *t = malloc(sizeof *t * (size_t)n), sum = 0;
    clv_latency_reset(&l);
    srand(seed);
    for (int i = 0; i < n; i++) {
        /* mostly small, a tail of large ones, as frame latencies are */
        double u = (double)rand() / RAND_MAX;
        t[i] = i % 50 == 0 ? u * span : u * span / 20;
        clv_latency_add(&l, t[i]);
        sum += t[i];
    }
    qsort(t, (size_t)n, sizeof *t, by_value);
    const double ps[] = {0.01, 0.5, 0.9, 0.99, 0.999, 1.0};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        double want = exact(t, n, ps[k]), got = clv_latency_percentile(&l, ps[k]);
        double width = want < 1000 ? 0.1 : 1.0;
        CHECK(got >= want - 1e-9 && got <= want + width + 1e-9,
              "n %d span %g p %g: %.4f, exact %.4f (bin %.1f)", n, span, ps[k], got, want, width);
    }
    clv_latency_summary s;
    clv_latency_summarize(&l, &s);
    CHECK(s.count == n && s.max == t[n - 1], "count %lld max %g", (long long)s.count, s.max);
    CHECK(s.p50 <= s.p99 && s.p99 <= s.max, "p50 %g p99 %g max %g", s.p50, s.p99, s.max);
    CHECK(fabs(s.mean - sum / n) < 1e-6, "mean %g, exact %g", s.mean, sum / n);
    free(t);
}

int main(void)
{
    static clv_latency l;
    clv_latency_summary s;
    clv_latency_reset(&l);
    clv_latency_summarize(&l, &s);
    CHECK(s.count == 0 && s.p50 == 0 && s.p99 == 0 && s.max == 0, "empty: not all 0");
    CHECK(clv_latency_percentile(&l, 0.5) == 0, "empty percentile");

    clv_latency_add(&l, 12.34);
    clv_latency_summarize(&l, &s);
    CHECK(s.p50 == 12.34 && s.p99 == 12.34 && s.max == 12.34 && s.last == 12.34,
          "one time: p50 %g p99 %g (the bin's edge kept within the max)", s.p50, s.p99);

    clv_latency_reset(&l);
    clv_latency_add(&l, -3); /* clocks of two threads */
    CHECK(clv_latency_percentile(&l, 0.5) == 0 && l.max == 0, "a negative time counts as 0");

    clv_latency_reset(&l);
    for (int i = 0; i < 98; i++)
        clv_latency_add(&l, 10);
    clv_latency_add(&l, 25000);
    clv_latency_add(&l, 40000);
    clv_latency_summarize(&l, &s);
    CHECK(s.p50 >= 10 && s.p50 <= 10.1 + 1e-9 && s.max == 40000, "beyond 10 s: p50 %g max %g",
          s.p50, s.max);
    CHECK(s.p99 == 40000, "p99 in the last bin is the max: %g", s.p99);

    against_exact(1000, 100, 1);
    against_exact(100000, 50, 2);
    against_exact(20000, 8000, 3); /* the 1 ms bins */
    against_exact(7, 30, 4);
    printf("%s\n", test_failures ? "FAILED" : "latency: all passed");
    return test_failures != 0;
}
