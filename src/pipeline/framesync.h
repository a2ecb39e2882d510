/* framesync.h - ffmpeg's framesync for a graph's inputs after the first
 * (clvid/graph.h's clv_graph_desc_sync): each has its own decoder thread
 * and queue, and gives its latest frame at or before the output's time;
 * -itsoffset, xfade's handover (the input that drives the output), the
 * time origin (input 0's first frame) and -map N:a's sound packets.
 * Transcode's and the player's; private to the pipeline and the player. */
#ifndef CLVID_FRAMESYNC_H
#define CLVID_FRAMESYNC_H

#include "../io/io.h"

#include "clvid/graph.h"
#include "clvid/pipeline.h"

/* An input after the first (a graph's): its decoder, its frames' layout,
 * and the frames framesync holds: cur, the latest at or before the output
 * time (less its offset); next, the one after, read ahead. Zeroed, it is
 * closed; the caller's thread alone touches it (the decoder's thread
 * writes q only). */
typedef struct clv_sync_input {
    clv_decoder *dec;
    const clv_media_desc *media;
    clv_feed *feed;
    clv_queue *q;
    clv_graph_sync sync; /* zeroed when the graph does not read it */
    AVFrame *cur, *next;
    int eof;    /* its decoder ended */
    int frames; /* frames taken from its queue since it was opened or sought */
    /* Its first frame's time (have_first: seen): an input that has a
     * timeline of its own (an offset, or it drives: xfade's second) counts
     * its times from there, as ffmpeg's xfade takes its frames in order. */
    double first;
    int have_first;
    int64_t offset_us; /* -itsoffset: added to its frames' timestamps */
} clv_sync_input;

/* What the inputs are synced to, the caller's: input 0's first frame's
 * time t0 (the graph's time origin: the offsets and drive times of
 * clv_graph_sync count from it) and time base (half a tick of slack);
 * stop(user) non-zero ends a wait for a frame; packet(user, input, item)
 * takes input `input`'s sound packet read on the way (NULL: dropped). */
typedef struct clv_sync_clock {
    double t0;
    AVRational time_base;
    int (*stop)(void *user);
    void (*packet)(void *user, int input, void *item);
    void *user;
} clv_sync_clock;

/* Opens t (path, format, -ss, -t, -itsoffset) as an input's decoder;
 * realtime paces it (-re). Its feed and queue come with
 * clv_sync_input_feed, its timing with clv_sync_input_graph. On an error
 * the input is left for clv_sync_input_close. */
int clv_sync_input_open(clv_sync_input *m, const clv_transcode_input *t, int realtime,
                        clv_msg *msg);
/* Its timing as input `index` of graph desc (zeroed when desc does not
 * read it). */
void clv_sync_input_graph(clv_sync_input *m, const clv_graph_desc *desc, int index);
/* Its feed at depth 8 or 16 (clv_feed_create_deep) and its queue. */
int clv_sync_input_feed(clv_sync_input *m, int depth, clv_msg *msg);
/* Starts its decoder's thread: 0, or CLV_ENOMEM with msg. */
int clv_sync_input_start(clv_sync_input *m, clv_msg *msg);
/* Its decoder's thread ends (what it decoded and not yet taken is dropped). */
void clv_sync_input_stop(clv_sync_input *m);
/* Frees what it holds; a zeroed input too. */
void clv_sync_input_close(clv_sync_input *m);
/* 1 when it is one picture, read to its end: a seek has nothing to move. */
int clv_sync_input_still(const clv_sync_input *m);
/* Reads it again from `seconds` of its own time (the decoder stopped,
 * sought and started again; what was held dropped; its first frame's time
 * kept). 0 or CLV_E* with msg. */
int clv_sync_input_seek(clv_sync_input *m, double seconds, clv_msg *msg);

/* A frame's time in seconds on its input's timeline (0 without a pts). */
double clv_sync_frame_seconds(const AVFrame *f, const clv_media_desc *m);
/* The time on input m's own timestamps that output time t reads: t less
 * its offset; counted from input 0's first frame to m's first where m has
 * a timeline of its own (an offset, or it drives). */
double clv_sync_input_time(const clv_sync_input *m, const clv_sync_clock *c, double t);

enum { CLV_PICK_FRAME, CLV_PICK_ABSENT, CLV_PICK_SKIP, CLV_PICK_END };

/* Input m's frame for the output frame at time t: reads its frames up to
 * the last at or before its time for t (half a tick early counts as on
 * time). CLV_PICK_FRAME (m->cur), CLV_PICK_ABSENT, CLV_PICK_SKIP (the
 * output waits for its first frame) or CLV_PICK_END (it ended with
 * eof_action=endall); -1 when c->stop became non-zero while it waited. */
int clv_sync_pick(clv_sync_input *m, int index, const clv_sync_clock *c, double t);
/* The driving input m's next frame (read ahead by clv_sync_pick, or from
 * its queue; its sound to c->packet); NULL at its end or on a stop. */
AVFrame *clv_sync_next_frame(clv_sync_input *m, int index, const clv_sync_clock *c);

/* Input 0's timing in graph g: it must drive the output from its start (a
 * graph whose output starts with another input's frames, [1][0]xfade, is
 * CLV_EOPTION with msg: give that input first). */
int clv_sync_first_driver(const clv_graph_desc *g, clv_graph_sync *sync0, clv_msg *msg);
/* The input (1 .. count, more[i - 1]) that drives output time t (from
 * input 0's first frame) after input `from` stopped: the one whose
 * [drive_from, drive_until) holds t, or -1. */
int clv_sync_next_driver(const clv_sync_input *more, int count, const clv_graph_desc *g, int from,
                         double t);

#endif
