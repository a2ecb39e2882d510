/* player_internal.h - the player's state and the functions its files share
 * (mpv's player/core.h): player.c opens and closes a run, loop.c is the
 * play loop (decode, filter, show at the frame's time), input.c turns the
 * window's events and --keys into actions, command.c applies actions to the
 * state, hud.c writes what the player shows and tells (HUD, notices,
 * --stats), reconnect.c opens a dropped network input again. Everything
 * runs on the player's one thread but that reconnection's. */
#ifndef CLVID_PLAYER_INTERNAL_H
#define CLVID_PLAYER_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../io/io.h"
#include "../pipeline/compose.h"
#include "../pipeline/ipc.h"
#include "../pipeline/sink.h"
#include "../present/present.h"
#include "player.h"
#include "reload.h"

#define CLV_PLAYER_RING 64 /* timestamps of frames in flight, by submit index */
#define CLV_PLAYER_SLOTS 3 /* the stage's frames in flight */
/* The frames sent, by submit index: the stage's slots, the one shown and
 * the runs a deinterlacer's output lags behind (two frames of two runs). */
#define CLV_PLAYER_INPUTS 8

/* --reconnect: the network input dropped and a thread of its own opens it
 * again (clv_decoder_retry). The decoder is that thread's from
 * clv_player_reconnect_begin until it is joined; the player's thread
 * reads only the atomics meanwhile, the rest after the join. */
typedef struct clv_player_retry {
    pthread_t thread;
    int running;        /* player's: started and not joined */
    atomic_int attempt; /* thread's: the try under way, from 1 (0: none yet) */
    atomic_int done;    /* thread's: it ended; result, attempts, last, msg are set */
    atomic_int stop;    /* player's: give up (a quit) */
    int told;           /* player's: the attempts told (reconnecting events) */
    clv_decoder *dec;
    double began, most; /* the drop (clv_io_seconds); --reconnect-max (0: never) */
    char why[200];      /* the drop's reason ("no packet for 0.5 s") */
    /* Set by the thread before done: clv_decoder_retry's result and tries,
     * the last try's error, msg for a result < 0. */
    int result, attempts;
    char last[1100];
    clv_msg msg;
} clv_player_retry;

/* One run of the player. Only the player's thread touches it (the reload
 * build thread and the sound callback have state of their own). */
typedef struct clv_player clv_player;
struct clv_player {
    clv_player_options a;
    const volatile sig_atomic_t *quit_signal; /* the caller's stop flag, may be NULL */
    const char *path;
    char sample[4200]; /* the bundled sample's path, when path is it */
    clv_decoder *dec;
    /* What the input is: the decoder's, or with -filter_complex the
     * graph's output (compose: input 0's frames, from dec, with the other
     * inputs' through the running graph, as RGBA frames). */
    const clv_media_desc *in;
    clv_compose *compose;
    clv_queue *video_q, *packet_q;
    clv_feed *feed;
    clv_context *ctx;
    clv_chain *presets[CLV_PRESET_COUNT], *vf[CLV_PLAYER_CHAINS], *active;
    /* The chains' depth: 16 for an input of more than 8 bits when every
     * -vf chain runs there (the window shows it dithered to 8), else 8. */
    int depth;
    /* An HDR input (PQ or HLG): every chain shown ends with `tonemap` (the
     * display is SDR) while tonemap is on, the default; t turns it off. */
    int hdr, tonemap;
    int vf_tonemapped[CLV_PLAYER_CHAINS]; /* vf[i] ends with a tonemap the player added */
    clv_chain *tonemap_only;              /* the compare view's original, tone-mapped */
    int preset;                           /* 1..CLV_PRESET_COUNT when one is active, else 0 */
    int vf_index;                         /* the active -vf chain when preset == 0 */
    clv_stage *stage, *orig_stage;        /* filtered; unfiltered for the compare view */
    clv_window *win;
    clv_sound *snd;
    clv_audio *audio;
    int audio_stream;
    int w, h;         /* the picture as decoded, upright (the chain's input) */
    int out_w, out_h; /* the last frame shown: after the chain */
    int rec_w, rec_h; /* the recording's size (its first chain's output) */
    /* The recording's frames per frame in (its first chain's: 2 for a
     * deinterlacer's send_field, at twice the rate, rec_media's); with 1,
     * a second field's frame is not recorded. */
    int rec_rate;
    clv_media_desc rec_media;
    int rec_skipped;     /* frames not recorded: of another size than the recording */
    int src_w, src_h;    /* as decoded */
    int rotation, hflip; /* how the stage turns it upright */
    double fps, duration;
    AVRational tb;
    AVFrame *sent[CLV_PLAYER_INPUTS]; /* references to the frames sent, by submit index, to
                              refilter the one shown while paused (no copy) */
    /* By submit index (a run of the stage): its input frame's time, pts
     * (the stream's time base) and read time. A deinterlacer's send_field
     * runs the chain twice on each frame (the same frame, two indices). */
    double ring[CLV_PLAYER_RING];
    int64_t ring_pts[CLV_PLAYER_RING];
    double ring_read[CLV_PLAYER_RING];
    /* What each run's output is, planned when it is submitted (plan_output,
     * from the chain's cadence): no frame (a deinterlacer's first outputs,
     * or the frames it held before a seek), or the frame of run `out_src`
     * (a deinterlacer's lags delay * rate runs behind), field 0 or 1 of it,
     * due at out_time, its pts in half the stream's time base (a second
     * field's lies between two frames). */
    signed char out_none[CLV_PLAYER_RING], out_field[CLV_PLAYER_RING];
    uint64_t out_src[CLV_PLAYER_RING];
    double out_time[CLV_PLAYER_RING];
    int64_t out_pts2[CLV_PLAYER_RING];
    uint64_t submitted, taken;
    /* Runs since the chain's frames started again (the start, a seek, a
     * chain made active, a refilter): a deinterlacer's first delay * rate
     * outputs after that are no frame of the new ones. */
    uint64_t stream_runs;
    uint64_t shown_src; /* the run whose frame the picture shown was made of */
    int last_field;     /* the picture shown is its frame's second field (send_field) */
    /* Playback state. */
    int paused, step, eof, quit;
    int end_popped;    /* live: the end was taken from the queue behind a frame */
    int flushed;       /* the input ended and a deinterlacer's last frame was sent (flush_held) */
    char devices[600]; /* "NAME", or "#1 NAME + #2 NAME" with several */
    int refilter;      /* send the frame shown again (chain or parameter changed) */
    int force_show;    /* show the next result even while paused */
    int seek_pending;
    double seek_to; /* seconds */
    int compare, dragging, hud, help, muted;
    double volume, divider;
    int clock_running;
    double base_pts, base_wall, paused_at;
    int64_t presented, dropped, screenshots;
    double last_pts;
    const char *keys_next; /* --keys still to replay */
    char message[256];
    double message_until;
    /* HUD figures, refreshed twice a second. */
    double hud_at, shown_fps, pipeline_fps, ms_decode, ms_up, ms_kernels, ms_down, ms_present;
    int64_t hud_presented;
    /* The last interval had no frame shown (the HUD's rate is "-"); when
     * figures were last made of frames shown (0: never). */
    int figures_idle;
    double figures_at;
    double hud_decode_s;
    uint64_t hud_decoded;
    clv_stage_times hud_times;
    double present_s; /* summed since hud_at */
    uint64_t decoded; /* frames popped from the decoder */
    char hud_text[2048];
    double started_at;
    double entered_at, first_shown_at; /* clv_player_run's start; the first frame on screen */
    double hud_text_at;
    double latency_ms, latency_sum; /* capture (packet read) to screen */
    int latency_count;
    int64_t stale_seen; /* live: frames skipped for newer ones in the player */
    /* Recording (-o): the frames shown, through the encode sink. */
    clv_sink *sink;
    int64_t recorded;
    int64_t mic_packets; /* the microphone's, recorded */
    int hud_dirty;
    int redraw;         /* the window needs drawing again though no frame came */
    clv_reload *reload; /* the -vf chains' kernel files, watched; NULL: none */
    /* Each filter's kernel time in the active chain, over the HUD's span. */
    const clv_chain *timed_chain;
    uint64_t timed_ns[CLV_CHAIN_MAX], timed_runs;
    double filter_us[CLV_CHAIN_MAX];
    int param_pick; /* which stepped parameter of a -vf chain up/down move */
    /* The control socket (--ipc), NULL: none; the chain its set_chain made
     * (the player's, kept while it may run); a chain changed since the
     * last chain-changed event. */
    clv_ipc *ipc;
    clv_chain *ipc_chain;
    int chain_changed;
    /* --reconnect (reconnect.c): a network input that dropped is being
     * opened again (the last frame stays on screen); the times it came
     * back. */
    clv_player_retry retry;
    int reconnecting;
    int64_t reconnects;
};

/* ---- player.c: the run ------------------------------------------------- */

/* The window's stages: the input's frames in, upright RGBA out. */
clv_stage_options clv_player_window_stage(const clv_player *p, int profiling);
/* w with graphs: runs the next -filter_complex from the frame shown (a
 * file is sought back to it), the window's feed and stages made again when
 * its output has another size. 0, or a CLV_E* code with msg. */
int clv_player_next_graph(clv_player *p, clv_msg *msg);

/* ---- loop.c: the play loop --------------------------------------------- */

/* Plays until the end, q or the quit flag; 0 or a CLV_E* code with msg. */
int clv_player_loop(clv_player *p, clv_msg *msg);
/* Starts the decoder thread with new queues. */
int clv_player_start_decoder(clv_player *p, clv_msg *msg);
/* Throws away the frames in flight (their results are no longer wanted). */
void clv_player_drain(clv_player *p);
/* Media time now, in seconds: the sound's when it plays, else the wall
 * clock from the first frame shown; < 0 before that. */
double clv_player_clock(clv_player *p);
void clv_player_set_paused(clv_player *p, int paused);

/* ---- input.c: events and --keys to actions ----------------------------- */

/* Handles the window's events; a key runs its action. */
int clv_player_events(clv_player *p, clv_msg *msg);
/* The next key of --keys, or NULL when none is left. */
const clv_binding *clv_player_replay_next(clv_player *p);

/* ---- command.c: actions applied to the state --------------------------- */

/* Runs the action of binding b. 0, or a CLV_E* code with msg when what it
 * needed could not be built (a preset's chain, the compare view's stage). */
int clv_player_act(clv_player *p, const clv_binding *b, clv_msg *msg);
/* The display aspect of the active chain's w x h frames. */
double clv_player_output_aspect(clv_player *p, int w, int h);
/* Makes chain the one the stage runs (a preset's number, or 0 and the
 * -vf index). */
void clv_player_activate(clv_player *p, clv_chain *chain, int preset, int vf_index);
/* Preset n (1..CLV_PRESET_COUNT), built the first time it is asked for;
 * *out is the player's. */
int clv_player_preset_chain(clv_player *p, int n, clv_chain **out, clv_msg *msg);
/* Builds desc at the player's depth; while HDR is shown tone-mapped,
 * `tonemap` goes on its end (*added = 1; not when the chain has its own). */
/* 0, or CLV_EINVAL with msg for a chain the window cannot show (two
 * filters that hold frames). A deinterlacer is shown a frame late (its
 * frame n comes with frame n + 1), the last frame given at the end of the
 * input; its send_field at twice the rate, each field's frame at its own
 * time (frame n's, and halfway to frame n + 1's). */
int clv_player_check_cadence(const clv_chain_desc *desc, clv_msg *msg);
int clv_player_chain_create(clv_player *p, const clv_chain_desc *desc, clv_chain **out, int *added,
                            clv_msg *msg);
/* The parameter the up/down keys move: 1 with its filter and parameter
 * index in the active chain, 0 when it has none. */
int clv_player_main_param(const clv_player *p, int *filter, int *param);
/* The active chain as text, "(no filter)" when empty; returns buf. */
const char *clv_player_chain_text(const clv_player *p, char *buf, size_t size);

/* ---- control.c: the control socket ----------------------------------- */

/* Applies the commands the socket queued and tells its clients a chain
 * changed. 0, or a CLV_E* code with msg that ends the run. */
int clv_player_control(clv_player *p, clv_msg *msg);
/* The end event: eof, quit (q, a quit command, the stop flag) or error. */
void clv_player_tell_end(clv_player *p, int err, const clv_msg *msg);
/* The reconnecting (before try `attempt`) or reconnected event, with
 * transcode's fields. */
void clv_player_tell_reconnect(clv_player *p, const char *event, int attempt);

/* ---- reconnect.c: a dropped network input opened again --------------- */

/* After the decoder's thread ended without an error: with --reconnect, a
 * network input that dropped or ended and no quit wanted, starts opening
 * it again on a thread of its own (1; p->reconnecting). 0: the input has
 * ended; a CLV_E* code with msg. */
int clv_player_reconnect_begin(clv_player *p, clv_msg *msg);
/* While p->reconnecting, on each pass of the loop: tells each try (HUD,
 * control socket); when the thread has ended, joins it and restarts the
 * decoder on the same queues (the input is back), or ends the input
 * (given up: p->eof, the reason on stderr). 0, or a CLV_E* code with msg. */
int clv_player_reconnect_poll(clv_player *p, clv_msg *msg);
/* "reconnecting (attempt N, X.X s)" into buf. */
void clv_player_reconnect_text(const clv_player *p, char *buf, size_t size);
/* Gives up a reconnection under way and joins its thread; before the
 * decoder is stopped or closed. Nothing when none runs. */
void clv_player_reconnect_stop(clv_player *p);

/* ---- hud.c: what the player shows and tells ---------------------------- */

/* A line at the bottom of the window for a few seconds; fmt has one %s. */
void clv_player_notice(clv_player *p, const char *fmt, const char *text);
/* The figures the HUD and --stats show, over the last half second (or
 * now, when now_anyway and frames were shown since). */
void clv_player_update_figures(clv_player *p, int now_anyway);
/* Draws the window: the frame, HUD, help, notice, kernel error; with
 * capture, the window's pixels too (*capture is the caller's to free). */
int clv_player_draw(clv_player *p, uint8_t **capture, int *cw, int *ch);
/* --stats: the state as key=value lines into the file named; CLV_EIO with
 * msg when it cannot be written. */
int clv_player_write_stats(clv_player *p, clv_msg *msg);

#endif
