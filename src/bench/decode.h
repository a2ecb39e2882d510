/* decode.h - clvid-bench --pipeline --input VIDEO: a real decode into the
 * GPU stage, timed against the decode alone (decode.c; built with FFmpeg,
 * CLVID_CLI). */
#ifndef CLVID_BENCH_DECODE_H
#define CLVID_BENCH_DECODE_H

#include "clvid.h"

typedef struct clv_bench_video {
    const char *path;
    const char *hwaccel;    /* the decoder's -hwaccel word; NULL: software */
    const char *chain_text; /* as the user wrote it, for the report */
    int frames;             /* timed frames of each run, the clip looped to reach them */
    clv_pixfmt out_format;  /* the stage's output: yuv420p or rgba */
    int json;
} clv_bench_video;

/* 1 when FFmpeg opens path and finds a video stream in it; 0 otherwise
 * (raw RGBA, a file that is not there or not media). */
int clv_bench_is_video(const char *path);

/* 0 when `name` is a -hwaccel word this FFmpeg knows, else 2 with the
 * error printed. */
int clv_bench_hwaccel_check(const char *name);

/* Times, in turns, three times and the best of each: the decode alone,
 * decode -> stage blocks -> chain -> kept outputs, and decode -> copies
 * into the staging -> chain; prints them (a table, or one JSON object with
 * v->json). desc is the chain's (not owned); ctx the devices'. Returns the
 * exit status: 0, 1 for a clip or device that fails (the error printed,
 * nothing on stdout), 2 for a chain the stage cannot time this way. */
int clv_bench_video_run(clv_context *ctx, const clv_chain_desc *desc, const clv_bench_video *v);

/* s as a JSON string on standard output (bench.c). */
void clv_bench_json_string(const char *s);

#endif
