/* stage_internal.h - for the stage's files: the output blocks (block.c), the
 * stage on one device (pipe.c), the scheduler over several (sched.c) and
 * the calls that pick one of them (stage.c). */
#ifndef CLVID_STAGE_INTERNAL_H
#define CLVID_STAGE_INTERNAL_H

#include "clvid_internal.h"

#include <pthread.h>

/* ---- Output blocks (block.c) ------------------------------------------- */

/* The blocks of a stage's memory: its output staging, one block per slot,
 * and the input blocks clv_stage_block_new gives. Shared staging: fine-
 * grained SVM. Copied staging: pinned host memory, a CL_MEM_ALLOC_HOST_PTR
 * buffer mapped (on map_q) from its allocation to its release, which the
 * uploads and downloads copy from and into by DMA. A block the caller
 * keeps (clv_stage_keep) leaves its slot, which takes a spare (or a new
 * block) instead; a kept block comes back as a spare. The blocks outlive
 * the stage while one is kept: the last reference frees them, the OpenCL
 * context (and map_q) retained until then. */
typedef struct clv__outputs {
    pthread_mutex_t lock;   /* guards refs and the spares */
    int refs;               /* the stage's, and one per kept block */
    cl_context cl;          /* retained */
    cl_command_queue map_q; /* copied staging: the blocks' maps and unmaps; NULL: SVM */
    size_t size;            /* bytes a block holds (the frame and its padding) */
    clv_block **spare;
    int spares, spare_cap;
} clv__outputs;

struct clv_block {
    clv__outputs *owner;
    uint8_t *pixels; /* fine-grained SVM, or pin's mapped memory */
    cl_mem pin;      /* copied staging: the pinned buffer; NULL: SVM */
    size_t size;     /* the frame's bytes: the spares are o->size, input blocks any */
};

/* The pool of ctx's blocks for frames of frame_size bytes, with one
 * reference (the stage's); NULL when out of memory. */
clv__outputs *clv__outputs_create(clv_context *ctx, size_t frame_size);
void clv__outputs_ref(clv__outputs *o);
/* Drops a reference (o may be NULL); the last frees the spares and o. */
void clv__outputs_unref(clv__outputs *o);
/* A new block of size bytes (not counted as a reference); NULL when out of
 * memory. */
clv_block *clv__block_new(clv__outputs *o, size_t size);
/* A spare block, or a new one; NULL when out of memory. */
clv_block *clv__block_get(clv__outputs *o);
/* Gives b (may be NULL) back as a spare; an input block is freed. */
void clv__block_put(clv__outputs *o, clv_block *b);

/* ---- The stage on one device (pipe.c) ---------------------------------- */

/* Where the planes of the frame a submit sends lie: the slot's input
 * staging, tightly packed, or a block a decoder wrote (clv_stage_submit_block).
 * Shared staging reads svm in place; copied staging uploads from host
 * (a block's memory, pinned or not) into dev_in, packed as the offsets
 * and strides then say. */
typedef struct clv__stage_source {
    const uint8_t *svm;                  /* NULL: the slot's own staging */
    cl_int yoff, uoff, voff, ys, us, vs; /* bytes from svm, bytes a row */
    /* The planes' first bytes and bytes a row in host memory when they
     * are not in the slot's host_in (NULL: they are). Copied staging
     * uploads from there (planes of rows packed as the staging's in one
     * clEnqueueWriteBuffer, others one clEnqueueWriteBufferRect each); a
     * failed device's frames are sent again from there. */
    const uint8_t *host;
    size_t host_off[3];
    int host_stride[3];
} clv__stage_source;

/* A slot's memory for input i >= 1 of a graph (input 0 is the slot's own
 * host_in, dev_in and rgba_in): as host_in and dev_in, and its RGBA frame. */
typedef struct clv__slot_input {
    cl_mem pin, dev;
    uint8_t *host;
    clv_frame rgba;
} clv__slot_input;

typedef struct clv__slot {
    /* Copied staging: pinned (CL_MEM_ALLOC_HOST_PTR, mapped for the stage's
     * life; host_out is out_block's, a block of the stage's outputs) and
     * the same layouts on the device. Shared staging: host_in and host_out
     * are fine-grained SVM the kernels read and write themselves; the
     * cl_mem are NULL. */
    cl_mem pin_in;
    uint8_t *host_in, *host_out;
    cl_mem dev_in, dev_out;
    clv_block *out_block; /* host_out's block */
    /* Where the frame in flight was uploaded from when not host_in (a
     * block of the caller's, that stays until the frame is out): a failed
     * device's frames are sent again from there. */
    clv__stage_source from;
    clv_frame rgba_src; /* before orientation (only with one) */
    clv_frame rgba_in, rgba_out;
    cl_event up, first_kernel, last_kernel, down; /* last_kernel: the frame is computed */
    uint64_t frame_index;
    int watched; /* sent through a user kernel: waited for with the watchdog */
    int fused;   /* its filter did the conversions (clv__chain_run_yuv) */
    /* What waiting for the frame found (clv__pipe_finish): its outcome and
     * its device times, taken into the stage's by clv__pipe_take. */
    struct {
        int err, finished; /* finished: set by a lane's finisher, cleared when taken */
        char why[512];
        clv_stage_times times;
        double start, end;
    } fin;
    /* A graph's stage: inputs 1 .. of the graph ([0] unused), and the
     * inputs absent from the next frame (bit i: input i). */
    clv__slot_input *extra;
    unsigned absent;
} clv__slot;

/* Input i >= 1 of a graph's stage: its frames, whether the graph reads it,
 * its staging's bytes, its conversion into RGBA and its colours. */
typedef struct clv__graph_input {
    clv_stage_input_format f;
    int used;
    size_t size;
    cl_kernel to_rgba;
    cl_mem coeff;
} clv__graph_input;

typedef struct clv__pipe {
    clv_context *ctx;
    clv_chain *chain; /* not owned */
    clv_stage_options opt;
    int depth;                            /* the chain's frames: 8 or 16 bits a channel */
    cl_command_queue up_q, down_q;        /* the compute queue is ctx->queue */
    cl_kernel to_rgba, from_rgba, orient; /* orient: NULL when upright */
    int up_w, up_h;                       /* after orientation: the chain's input */
    int out_w, out_h;                     /* after the chain: the frames out */
    /* The chain's output size for up_w x up_h differs from out_w x out_h
     * (another chain, a parameter): the output side is made again once
     * nothing is in flight. chain_err: the chain can't take the frames
     * (its message in chain_msg, given at the next submit). */
    int chain_err;
    clv_msg chain_msg;
    cl_int orient_coef[6]; /* ax bx cx ay by cy, see cl/color.cl */
    cl_mem coeff_in, coeff_out;
    size_t in_size, out_size;
    clv__outputs *outputs; /* the output blocks (and the input blocks' pool) */
    clv__slot *slots;
    int count;
    int next;        /* slot the next submit uses */
    int pending;     /* submitted, not yet released; the oldest is (next - pending) */
    int holding;     /* the oldest is being read by the caller */
    int held_slot;   /* its slot (the stage's sender may move next and pending meanwhile) */
    int passthrough; /* no filter and the same layout both sides: copy, no conversion */
    clv_stage_times times;
    uint64_t fused_frames; /* clv_stage_fused_frames */
    /* The frame clv_stage_output gave last: when its upload started and its
     * download ended, in seconds of the device's clock (with profiling; 0
     * when the device did not say). */
    double out_start, out_end;
    /* A stage with a graph (clv_stage_create_graph) instead of the chain
     * (chain NULL): not owned; its inputs' frames ([0] unused: the
     * options'); out_w x out_h never changes. */
    clv_graph *graph;
    int graph_inputs;
    clv__graph_input *gin;
    /* The graph runs with input 0 in its Y'CbCr planes, never converted
     * (clv__graph_planes: overlay's format=yuv420 at its output). */
    int planes;
    /* ... in place: input 0 is written into the slot's output memory
     * (shared staging, the same layout in and out), where the graph blends
     * (clv__pipe_input gives host_out) */
    int inplace;
} clv__pipe;

/* The calls of clvid.h's clv_stage_* on one device; destroy accepts NULL
 * and a half-built stage. */
int clv__pipe_create(clv_context *ctx, const clv_stage_options *options, clv_chain *chain,
                     clv__pipe **out, clv_msg *msg);
/* The same with a graph (clv_stage_create_graph's arguments) on ctx's
 * first device. */
int clv__pipe_create_graph(clv_context *ctx, const clv_stage_options *options, clv_graph *graph,
                           const clv_stage_input_format *inputs, clv__pipe **out, clv_msg *msg);
uint8_t *clv__pipe_input_at(clv__pipe *stage, int index);
void clv__pipe_input_absent(clv__pipe *stage, int index);
/* Sends the frame of a graph's stage: input 0's planes where src says. */
int clv__pipe_send_at(clv__pipe *stage, uint64_t frame_index, double time,
                      const clv__stage_source *src, clv_msg *msg);
void clv__pipe_destroy(clv__pipe *stage);
void clv__pipe_set_chain(clv__pipe *stage, clv_chain *chain);
/* The size of the next frame out for the pipe's chain (0 with msg when
 * the chain can't take its frames). */
int clv__pipe_wanted(clv__pipe *stage, int *w, int *h, clv_msg *msg);
uint8_t *clv__pipe_input(clv__pipe *stage);
/* The input memory of slot `slot` as clv__pipe_input gives it, without
 * looking at the pipe's counts or shape (a lane whose sender has jobs). */
uint8_t *clv__pipe_slot_memory(clv__pipe *stage, int slot);
int clv__pipe_submit(clv__pipe *stage, uint64_t frame_index, clv_msg *msg);
/* Sends the frame whose planes src says where they lie. */
int clv__pipe_send(clv__pipe *stage, uint64_t frame_index, const clv__stage_source *src,
                   clv_msg *msg);
int clv__pipe_output(clv__pipe *stage, const uint8_t **out, uint64_t *frame_index, clv_msg *msg);
/* clv__pipe_output in two halves, for a lane whose frames are waited for on
 * a thread of their own: finish waits for the frame in slot `at` and reads
 * its times (touching only that slot), take gives it to the caller, without
 * reading the pipe's next or pending (a sender may be moving them). */
void clv__pipe_finish(clv__pipe *stage, int at);
int clv__pipe_take(clv__pipe *stage, int at, const uint8_t **out, uint64_t *frame_index,
                   clv_msg *msg);
clv_block *clv__pipe_keep(clv__pipe *stage);
void clv__pipe_release(clv__pipe *stage);
/* The planes of a frame of the stage's input as its staging packs them:
 * Y'CbCr's two or three, a packed RGB format's one (rows bpp * width);
 * returns how many. */
int clv__packed_planes(const clv_stage_options *o, size_t offset[3], int stride[3], int rows[3]);
/* Copies a frame of o's input whose planes lie at src + offset[i], rows
 * stride[i] apart, into dst, packed as the staging holds them. */
void clv__pack_input(const clv_stage_options *o, uint8_t *dst, const uint8_t *src,
                     const size_t offset[3], const int stride[3]);
/* Copies the input frame in flight in slot s into dst, packed as the
 * staging holds it (a failed device's frames sent again). */
void clv__pipe_slot_input(const clv__pipe *stage, const clv__slot *s, uint8_t *dst);
/* The planes of a yuv420p or nv12 frame of w x h: each one's first byte,
 * rows and bytes a row, as the stage's staging packs them; returns how many
 * planes. */
int clv__yuv_planes(clv_pixfmt f, int w, int h, size_t offset[3], int stride[3], int rows[3]);

/* ---- The stage over several devices (sched.c) -------------------------- */

/* A stage over several devices deals frames to lanes: one one-device stage
 * each, plus, after a fault, a rescue lane on a healthy device that runs the
 * failed one's frames again and takes no others. */
typedef struct clv__lane {
    clv__pipe *pipe;
    int device;          /* index into the stage's devices */
    int draining;        /* a rescue lane */
    double ms;           /* measured ms per frame (moving average), 0 until measured */
    double last_done;    /* the device clock's seconds at the end of its last frame */
    uint64_t last_given; /* the stage's submit count when it was last given a frame */
    int queued;          /* frames given and not yet released, as the caller counts */
    int send_next;       /* with a sender: the slot its next job fills */
} clv__lane;

/* A frame given to a lane's sender: what clv__pipe_send (or submit) is
 * called with, and the chain held until it is sent. */
typedef struct clv__send_job {
    clv_chain *chain; /* held while the send is queued or in flight (clv__chain_hold) */
    uint64_t frame_index;
    int slot;            /* the pipe's slot the frame goes into */
    int has_src, inject; /* inject: fail without sending (clv_stage_inject_submit_fault) */
    clv__stage_source src;
} clv__send_job;

/* Device d's lane sends its frames (the enqueueing: transfers, kernels,
 * flushes, most of a frame's host time) on a thread of its own, so that
 * the devices' sends overlap; the caller's thread keeps the rest (choosing
 * lanes, the order, taking frames out, failures). The caller queues a
 * lane's frames (jobs, a ring as long as the pipe's slots) without waiting
 * for its sends; the sender takes them in turn, straight after one another.
 * While it has jobs the sender owns the lane's pipe but for the slots the
 * caller holds or fills; the caller touches the pipe's counts only when the
 * lane is idle (sched.c lane_settle). A send that fails stops the sender
 * with its job first in the queue, the ones after it unsent. */
typedef struct clv__sender {
    pthread_t thread, finisher;
    pthread_mutex_t lock;
    /* wake: a job for the sender; fin_wake: a frame sent, for the
     * finisher; changed: either done (the caller waits on it). */
    pthread_cond_t wake, fin_wake, changed;
    int started, quit;
    int held; /* clv_stage_hold_sends: no job taken meanwhile */
    clv__send_job *jobs;
    int job_head, job_count;
    /* Releases the caller made while the sender had jobs, taken off the
     * pipe's count by whichever owns the pipe next. */
    int released;
    /* The finisher waits for the lane's frames in the order sent (the
     * slots in fin_queue, a ring as long as the pipe's slots) and reads
     * their times (clv__pipe_finish); the caller takes them when
     * finished. */
    int *fin_queue, fin_head, fin_count;
    clv__pipe *pipe;
    int err; /* the first job's send failed (the jobs hold no chain then); why says what */
    clv_msg why;
} clv__sender;

typedef struct clv__sched {
    clv_context *ctx;
    clv_chain *chain; /* not owned */
    clv_stage_options opt;
    int out_w, out_h; /* the frames in flight: after orientation and the chain */
    clv__lane *lanes;
    int lane_count, lane_cap;
    int device_count;
    clv_context *dctx[CLV_DEVICES_MAX];
    clv_stage_device dev[CLV_DEVICES_MAX];
    int fault_set[CLV_DEVICES_MAX]; /* clv_stage_inject_fault */
    uint64_t fault_after[CLV_DEVICES_MAX];
    int fault_submit[CLV_DEVICES_MAX]; /* clv_stage_inject_submit_fault */
    int *order;                        /* the lane of each frame in flight, oldest first (a ring) */
    int *order_slot;                   /* and its slot in that lane's pipe */
    int order_cap, order_head, order_count;
    int chosen; /* the lane chosen for the next frame, -1: none */
    /* The lane whose slot send_next clv__sched_input gave out (the caller
     * may have written a frame there), -1: none; kept through a failure
     * until the frame is sent, so that it is not lost. */
    int given;
    uint64_t submits;
    int holding_lane; /* the lane of the frame the caller holds, -1: none */
    /* The devices' senders (lane d is device d's own; rescue lanes send on
     * the caller's thread) and a failure found where it could not be said
     * (clv__sched_input), said by the next submit or output. */
    clv__sender send[CLV_DEVICES_MAX];
    int err;
    clv_msg err_msg;
} clv__sched;

/* The calls of clvid.h's clv_stage_* over several devices; destroy accepts
 * NULL. */
int clv__sched_create(clv_context *ctx, const clv_stage_options *options, clv_chain *chain,
                      clv__sched **out, clv_msg *msg);
void clv__sched_destroy(clv__sched *m);
void clv__sched_set_chain(clv__sched *m, clv_chain *chain);
uint8_t *clv__sched_input(clv__sched *m);
int clv__sched_submit(clv__sched *m, uint64_t frame_index, clv_msg *msg);
/* The pipe of the lane the next frame goes to (the one clv__sched_input
 * chose); NULL when every slot is in flight. */
clv__pipe *clv__sched_next(clv__sched *m);
/* clv__sched_submit of a frame whose planes src says where they lie (for
 * the lane clv__sched_next gave). */
int clv__sched_send(clv__sched *m, uint64_t frame_index, const clv__stage_source *src,
                    clv_msg *msg);
int clv__sched_output(clv__sched *m, const uint8_t **out, uint64_t *frame_index, clv_msg *msg);
void clv__sched_release(clv__sched *m);
/* clv_stage_settle over several devices. */
void clv__sched_settle(clv__sched *m);
/* clv_stage_hold_sends over several devices. */
void clv__sched_hold_sends(clv__sched *m, int device, int hold);
/* clv_stage_keep over several devices. */
clv_block *clv__sched_keep(clv__sched *m);

/* ---- The stage the API hands out (stage.c) ----------------------------- */

/* One device's stage or the scheduler over several: exactly one is set. */
struct clv_stage {
    clv__pipe *one;
    clv__sched *several;
};

#endif
