/* latency.c - the percentile histogram of latency.h. */
#include "latency.h"

#include <math.h>
#include <string.h>

void clv_latency_reset(clv_latency *l)
{
    memset(l, 0, sizeof *l);
}

static int bin_of(double ms)
{
    if (ms < 1000)
        return (int)(ms * 10);
    if (ms < 10000)
        return CLV_LATENCY_FINE + (int)(ms - 1000);
    return CLV_LATENCY_BINS - 1;
}

/* The upper edge of bin b, ms; the last bin has none (the max stands in). */
static double bin_top(int b, double max)
{
    if (b < CLV_LATENCY_FINE)
        return (double)(b + 1) / 10;
    if (b < CLV_LATENCY_BINS - 1)
        return 1000 + (double)(b - CLV_LATENCY_FINE + 1);
    return max;
}

void clv_latency_add(clv_latency *l, double ms)
{
    if (!(ms > 0)) /* negative (clocks read on two threads) or NaN */
        ms = 0;
    l->bins[bin_of(ms)]++;
    if (l->count == 0 || ms < l->min)
        l->min = ms;
    if (ms > l->max)
        l->max = ms;
    l->sum += ms;
    l->last = ms;
    l->count++;
}

double clv_latency_percentile(const clv_latency *l, double p)
{
    if (l->count == 0)
        return 0;
    int64_t rank = (int64_t)ceil(p * (double)l->count), seen = 0;
    if (rank < 1)
        rank = 1;
    if (rank > l->count)
        rank = l->count;
    for (int b = 0; b < CLV_LATENCY_BINS; b++) {
        seen += l->bins[b];
        if (seen >= rank) {
            double v = bin_top(b, l->max);
            return v > l->max ? l->max : v < l->min ? l->min : v;
        }
    }
    return l->max;
}

void clv_latency_summarize(const clv_latency *l, clv_latency_summary *out)
{
    memset(out, 0, sizeof *out);
    if (l->count == 0)
        return;
    out->count = l->count;
    out->p50 = clv_latency_percentile(l, 0.50);
    out->p99 = clv_latency_percentile(l, 0.99);
    out->max = l->max;
    out->mean = l->sum / (double)l->count;
    out->last = l->last;
}
