/* latency.h - a run's per-frame times (a frame's latency, the encoder's
 * share of it) kept in bounded memory: a histogram whose percentiles are
 * exact to its bin width. Private to the pipeline. */
#ifndef CLVID_PIPELINE_LATENCY_H
#define CLVID_PIPELINE_LATENCY_H

#include <stdint.h>

/* Bins of 0.1 ms below 1 s, of 1 ms from 1 s to 10 s, and one for all
 * beyond: a percentile is the upper edge of the bin it falls in (so at most
 * 0.1 ms above the true value below 1 s, 1 ms above it below 10 s), kept
 * within the least and the greatest time seen (exact). */
#define CLV_LATENCY_FINE 10000  /* 0.1 ms bins: [0, 1000) ms */
#define CLV_LATENCY_COARSE 9000 /* 1 ms bins: [1000, 10000) ms */
#define CLV_LATENCY_BINS (CLV_LATENCY_FINE + CLV_LATENCY_COARSE + 1)

typedef struct clv_latency {
    uint32_t bins[CLV_LATENCY_BINS];
    int64_t count;
    double sum, min, max, last; /* milliseconds */
} clv_latency;

/* What a histogram says; all 0 when it holds no time. */
typedef struct clv_latency_summary {
    int64_t count;
    double p50, p99, max, mean, last; /* milliseconds; last: the latest time counted */
} clv_latency_summary;

/* Empties l. */
void clv_latency_reset(clv_latency *l);
/* Counts one time, in milliseconds (a negative one as 0). */
void clv_latency_add(clv_latency *l, double ms);
/* The percentile p (0 < p <= 1) of the times counted: the least time that
 * at least p of them do not exceed, to the bin width; 0 when empty. */
double clv_latency_percentile(const clv_latency *l, double p);
void clv_latency_summarize(const clv_latency *l, clv_latency_summary *out);

#endif
