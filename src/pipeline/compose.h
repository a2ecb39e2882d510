/* compose.h - graphs of several inputs shown as one video (the player's
 * -filter_complex): input 0's frames, from the caller's decoder, with the
 * other inputs' (framesync.h, each on a decoder thread of its own) through
 * a graph's stage on the device into upright RGBA frames, one at a time.
 * Several graphs over the same inputs may be given; one runs at a time.
 * Private to the pipeline and the player. */
#ifndef CLVID_COMPOSE_H
#define CLVID_COMPOSE_H

#include <signal.h>

#include "../io/io.h"

#include "clvid/graph.h"
#include "clvid/pipeline.h"

#define CLV_COMPOSE_GRAPHS 16

typedef struct clv_compose clv_compose;

typedef struct clv_compose_options {
    const char *const *graphs; /* -filter_complex texts, graph_count of them */
    int graph_count;
    const char *map;                 /* the graphs' output label, NULL: the unlabelled */
    const clv_transcode_input *more; /* inputs 1 .. more_count */
    int more_count;
    int realtime;                        /* pace the other inputs (-re) */
    const volatile sig_atomic_t *cancel; /* a wait for another input's frame ends when set */
    int profiling;                       /* the stages' device times (clv_compose_times) */
} clv_compose_options;

/* Parses every graph over 1 + more_count inputs, as clv_compose_open will:
 * 0, or CLV_EPARSE / CLV_EOPTION with msg naming the graph (by its number
 * when there are several) and the place. For the checks before anything
 * opens. */
int clv_compose_check(const clv_compose_options *o, clv_msg *msg);
/* -map's label (map, NULL or "" for none) without a graph: CLV_EOPTION
 * with msg, as ffmpeg refuses it, for a label names a graph's output
 * (without one the video is input 0's and the label would be ignored);
 * else 0. */
int clv_compose_check_map(const char *map, int graph_count, clv_msg *msg);

/* Opens the other inputs beside input 0 (in: its decoder's description,
 * shown turned by rotation and hflip) and works out the first graph's
 * output: nothing on the device yet. On an error *out is NULL. */
int clv_compose_open(const clv_compose_options *o, const clv_media_desc *in, int rotation,
                     int hflip, clv_compose **out, clv_msg *msg);
/* The video the graph makes, as a decoder would describe it: RGBA at the
 * graph's output size, upright, input 0's timing, streams and colours.
 * Owned by c; its size changes with clv_compose_select. */
const clv_media_desc *clv_compose_media(const clv_compose *c);
/* Builds the graphs and the first one's stage on ctx's first device and
 * starts the other inputs' decoder threads. */
int clv_compose_start(clv_compose *c, clv_context *ctx, clv_msg *msg);
/* Makes input 0's frame f (the caller's still) into the composed frame
 * *out (the caller's to free): 0 with *out set; 0 with *out NULL when the
 * graph waits for another input's first frame (no frame at this time) or
 * the output ended (*ended set: an input with eof_action=endall ended, or
 * the wait was cancelled); < 0 with msg on an error. */
int clv_compose_frame(clv_compose *c, const AVFrame *f, AVFrame **out, int *ended, clv_msg *msg);
/* The graphs given, the one running (from 0) and a graph's text as it
 * reads back. */
int clv_compose_count(const clv_compose *c);
int clv_compose_index(const clv_compose *c);
const char *clv_compose_text(const clv_compose *c, int index);
/* Runs graph `index` from the next frame; its output size may differ
 * (clv_compose_media changes). CLV_ERANGE with msg when the inputs' sizes
 * don't fit it; the graph running goes on. */
int clv_compose_select(clv_compose *c, int index, clv_msg *msg);
/* 0 when every other input can go to input 0's time `seconds` (a picture
 * needs no seek), else 1 with why (a live input has no time to go to). */
int clv_compose_can_seek(const clv_compose *c, char *why, size_t size);
/* The other inputs read again from input 0's time `seconds` (each less
 * its offset). */
int clv_compose_seek(clv_compose *c, double seconds, clv_msg *msg);
/* The device times of the graphs' stages so far (every graph run; its
 * frames counted as the stage counts them): the window's HUD adds them to
 * its own stage's. */
void clv_compose_times(const clv_compose *c, clv_stage_times *t);
/* Stops the other inputs' threads and frees everything; NULL is fine. */
void clv_compose_close(clv_compose *c);

#endif
