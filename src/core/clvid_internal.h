/* clvid_internal.h - for implementers of core and of filters: the filter
 * descriptor, the launch a filter's run receives, and core helpers (clv__). */
#ifndef CLVID_INTERNAL_H
#define CLVID_INTERNAL_H

#include "clvid.h"
#include "graph.h"
#include "opencl.h"
#include "testing.h"

#include <stdarg.h>

/* A parsed chain (clv_chain_desc in clvid.h, opaque there): which filters,
 * with which values. Plain data, copied freely inside the library. */
/* ffmpeg's timeline option, enable=EXPR on a filter: the filter runs on a
 * frame where EXPR (of t, n, pos, w, h) is not 0 and passes the frame on
 * unchanged elsewhere (a filter with state still runs, as ffmpeg's hqdn3d
 * does, and its output is dropped). "" when not given. */
#define CLV__ENABLE_MAX 256

struct clv_chain_desc {
    int count;
    struct {
        const clv_filter *filter;
        clv_value values[CLV_PARAMS_MAX];
        char enable[CLV__ENABLE_MAX];
    } item[CLV_CHAIN_MAX];
    int rate_taken; /* clv_chain_desc_take_fps: the caller picks fps's frames */
};

/* The largest side of a frame clvid takes. */
#define CLV__SIDE_MAX 16384

/* Pixels handled by one work-item in the GPU shape (a define in every
 * kernel program as CLV_PX). */
#define CLV__GPU_PX 4

struct clv_context {
    clv_device_info dev;
    /* The settings, with their strings copied. */
    char cache_dir[1024];  /* "" for no cache */
    int cache_late;        /* entries written at destroy, not at build (PoCL) */
    char kernel_dir[1024]; /* "" for the embedded sources */
    int log_level;
    int cache_warned; /* the cache was found unwritable (said once) */
    clv_log_callback log;
    void *log_user;
    cl_context cl;
    cl_command_queue queue; /* in-order; profiling when asked */
    int profiling;
    int row_shape;      /* CPU device: one row per work-item */
    int correct_div;    /* device divides floats correctly rounded */
    int nv_sm;          /* NVIDIA compute capability as 10 * major + minor; 0: not NVIDIA */
    int shared_staging; /* the stage's frames live in fine-grained SVM (no copies) */
    double watchdog_s;  /* see clv_context_options; < 0: none */
    int hung;           /* a watchdog fired: no more OpenCL calls on teardown */
    /* The depth of the chain being built (8 or 16): while a chain builds a
     * 16-bit instance, clv__program_get and clv__program_variant build
     * their programs with -DCLV_DEPTH=16 (one context, one thread). */
    int build_depth;
    struct {
        const char *family;
        char defines[160]; /* clv__program_variant's */
        cl_program program;
        char *late_path, *late_key; /* cache entry written at destroy (PoCL) */
    } programs[256];                /* every family at both depths, and their variants */
    int program_count;
    /* Several devices (--device 1,2): this context is the first one's and
     * these are the others' (each a whole context of its own, more_count 0). */
    clv_context *more[CLV_DEVICES_MAX - 1];
    int more_count;
};

/* Events a chain run collects for profiling, per filter. */
typedef struct clv__events {
    cl_event *list;
    int *owner; /* filter index of each event */
    int count, capacity;
    int current; /* filter index of the enqueues now */
} clv__events;

/* What a filter's run gets: the queue, the frames and its parameter values.
 * src and dst are distinct; scratch is a third frame-sized buffer the filter
 * may overwrite (NULL unless the descriptor asks for it). */
typedef struct clv_launch {
    clv_context *ctx;
    cl_command_queue queue;
    cl_mem src, dst, scratch;
    int width, height, stride; /* src's size; stride in pixels */
    /* dst's: the same as src's unless the filter changes the size
     * (clv_filter's output_size) */
    int out_width, out_height, out_stride;
    uint64_t frame_index;
    double time; /* seconds: frame_index / the chain's frame rate */
    int depth;   /* 8: uchar4 frames; 16: ushort4 frames (0-65535) */
    const clv_value *values;
    clv__events *events; /* NULL unless profiling */
    /* For a single-kernel launch (the stage's conversions): events the
     * kernel waits on, and where to return its own event (NULL: none). */
    cl_uint wait_count;
    const cl_event *wait;
    cl_event *done;
    /* A filter of several inputs (clv_filter's inputs): its frames, in
     * pad order (src, width, height and stride are inputs[0]'s; out_* the
     * output's); an absent one (clv_eof_action's pass) has buffer NULL. */
    const clv_frame *inputs;
    int input_count;
} clv_launch;

/* The stage's 4:2:0 frames around a one-filter chain, for a filter whose
 * CPU kernels do the conversions in and out themselves (clv_filter's
 * run_yuv). A buffer is a cl_mem, or SVM memory when the cl_mem is NULL
 * (the stage's shared staging). */
typedef struct clv__yuv_io {
    cl_mem in;
    const void *in_svm;
    cl_int in_nv12;                      /* else yuv420p */
    cl_int yoff, uoff, voff, ys, us, vs; /* the input planes: bytes from in, bytes a row */
    cl_mem in_coeffs;                    /* clv_yuv_coeffs of the input's colours */
    cl_mem out;                          /* packed planes, as clv_pixfmt_size counts them */
    void *out_svm;
    cl_int out_nv12;
    cl_mem out_coeffs;
    cl_event *first; /* the first kernel's event (profiling), or NULL */
} clv__yuv_io;

/* A filter: one const descriptor. The registry (src/filters/registry.c) is a
 * const array of pointers to these. */
struct clv_filter {
    const char *name;
    const char *help;
    const clv_param *params;
    int param_count;
    /* cl/<program>.cl, built with cl/common.cl and passed to init; NULL: the
     * filter builds what it needs in configure (clv__program_variant: the
     * median builds only the kernel its window size takes) */
    const char *program;
    int needs_scratch;
    /* The output depends on the frames before (quantize starts from the
     * last palette): a stage over several devices keeps it on one. */
    int temporal;
    /* 1: the filter runs at 16 bits as well: its program built with
     * -DCLV_DEPTH=16 (cl/common.cl's clv_px is ushort4 then) has the same
     * kernels on RGBA16 frames, and its reference takes images of depth 16
     * (clv__get/clv__put). 0: 8 bits only; a 16-bit chain refuses it. */
    int deep;
    /* 1: the filter changes no pixel (null, copy, setsar, setdar, format):
     * it has no program and no run; a chain hands the frame on to the next
     * filter without a copy, and the reference copies it. It may still
     * change the aspect (output_size), not the size. */
    int passes;
    /* 1 (format): its first parameter, a TEXT, names the pixel formats
     * the frames leave the chain in ("yuv420p|yuv444p"), which an encoded
     * output takes as -pix_fmt; only filters that pass may follow it
     * (clv_chain_desc_pix_fmts). */
    int sets_format;
    /* 1 (fps) or 2 (framestep): the frame rate the chain's frames leave
     * at, ffmpeg's fps and framestep (clv_chain_desc_fps): it changes no
     * pixel in the chain; clvid
     * transcode picks the frames at the output, so no filter after it may
     * depend on the frame's number or time (clv__untimed) and a chain
     * nobody takes it from (the window, Python's Chain, the element)
     * refuses it. */
    int sets_rate;
    /* 1: the output depends on the frame's number or time whatever the
     * values (fade, noise, a user kernel's frame and t) */
    int timed;
    /* Optional, a filter that holds frames back (a deinterlacer needs the
     * next frame): *delay gets how many frames in its output lags behind
     * its input, *rate how many frames it gives per frame in (2: one per
     * field). The caller runs the chain rate times on each frame, drops
     * the first delay * rate outputs and, after clv_chain_end, sends the
     * last frame delay times more (clv_chain_delay). At most one filter of
     * a chain has one. */
    void (*cadence)(const clv_value *values, int *delay, int *rate);
    /* Optional: the stream ends; the runs from now on flush what the
     * filter holds (clv_chain_end), and the reference's (clv_ref_chain_end). */
    void (*end)(void *state);
    void (*reference_end)(void *ref_state);
    /* Optional, a temporal filter: the stream starts again (a seek); the
     * next run is as a stream's first, nothing of the frames before kept
     * (clv_chain_restart). */
    void (*restart)(void *state);

    /* Optional: the size of the frames out of the filter from the size and
     * aspect of those in and its values (at configuration, and again for
     * each new input size or value). Returns 0, or CLV_ERANGE/CLV_EPARSE
     * with msg saying what is wrong (the chain adds the filter's name and
     * place). Absent: the filter keeps the size and aspect. Fill in the
     * sizes only; the chain checks them against the limits. */
    int (*output_size)(const clv_value *values, const clv_size *in, clv_size *out, clv_msg *msg);
    /* Other names of parameters, as ffmpeg's aliases: pairs {"width", "w",
     * ..., NULL} of an alias and the parameter's name. Optional. */
    const char *const *aliases;
    /* Optional: values each valid alone but not together (hue's h and H),
     * or one the filter cannot go without (lut3d's file). Called when the
     * chain is parsed, once the filter's values are read; returns 0, or
     * CLV_EPARSE with msg (the parser shows the filter in the chain). */
    int (*check)(const clv_value *values, clv_msg *msg);
    /* Optional, ffmpeg's image size option (vf_scale's size and s):
     * {size, width, height}, indices of a TEXT parameter that takes
     * clv__video_size's text and of the two EXPR parameters it sets. As
     * vf_scale's init: a width given without a height that is a size is
     * read as the size; a size together with a width or height is an
     * error. The parser moves the size into the width and height, so the
     * size parameter keeps its default (""). */
    const int *image_size;

    /* Device side. state is state_size zeroed bytes owned by the chain.
     * init builds kernels from prog; configure is called after init and after
     * each parameter change; uninit releases what init and configure made
     * and accepts a half-initialized state. init and uninit are optional. */
    size_t state_size;
    /* Optional: kernels of the program, by name, NULL-terminated ({"gray",
     * NULL}). The chain creates them in order into a cl_kernel array at the
     * start of state (which it makes at least that large) before init and
     * configure, and releases them after uninit, a half-built state too. A
     * filter that only creates kernels by name and releases them needs no
     * init or uninit. Needs program. */
    const char *const *kernels;
    int (*init)(void *state, clv_context *ctx, cl_program prog, clv_msg *msg);
    int (*configure)(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg);
    void (*uninit)(void *state);
    int (*run)(void *state, const clv_launch *launch);
    /* Optional: called before the first run on frames of a size (and after
     * a value changes), with the sizes in and out: builds what depends on
     * them (scale's coefficient tables). */
    int (*resize)(void *state, clv_context *ctx, const clv_value *values, const clv_size *in,
                  const clv_size *out, clv_msg *msg);
    /* CPUs, optional: run with the stage's conversions in and out fused
     * into the filter's own passes (a one-filter chain between 4:2:0
     * frames, every row once per pass while it is in the cache): the same
     * bytes as the conversions around run. launch's src and dst are RGBA
     * frames the passes may use (there is no scratch); its wait list goes
     * to the first kernel, done to the last. Returns 1, having enqueued
     * nothing, for parameters it does not fuse (run takes the frame). */
    int (*run_yuv)(void *state, const clv_launch *launch, const clv__yuv_io *io);

    /* The C reference: the definition, plainly. ref_state is ref_state_size
     * zeroed bytes kept between frames; dst has the output size (output_size
     * with the aspect unknown) and time is frame_index over the frame rate
     * (clv__ref_time). Returns 0 or CLV_ENOMEM. */
    size_t ref_state_size;
    int (*reference)(void *ref_state, const clv_value *values, const clv_image *src, clv_image *dst,
                     uint64_t frame_index);
    /* Instead of reference, for a filter whose output depends on the time
     * (rotate's angle of t): the same with time in seconds. */
    int (*reference_at)(void *ref_state, const clv_value *values, const clv_image *src,
                        clv_image *dst, uint64_t frame_index, double time);
    /* Optional, the reference's resize: called with the sizes in and out
     * (what the pixels mean included: clv_size's transfer, primaries and
     * peak) before the first frame and whenever they change, for a
     * reference that depends on them (tonemap builds its tables here as
     * its resize does on the device). Returns 0 or CLV_ENOMEM. */
    int (*reference_resize)(void *ref_state, const clv_value *values, const clv_size *in,
                            const clv_size *out);
    /* Optional: frees what the reference keeps in ref_state beyond its
     * bytes (hqdn3d's previous frame); called once when the reference
     * chain is destroyed, with a state the reference may never have run
     * on (all zero). */
    void (*reference_uninit)(void *ref_state);

    /* A family of filters read from files (the `opencl` filter, a user's
     * kernel, src/filters/opencl.c; ffmpeg's program_opencl): the
     * registry's entry has resolve, which reads the arguments that pick a
     * member (the file) and gives the member's own descriptor, interned for
     * the life of the process; the chain holds that one. A member has no
     * program, init or reference: it builds its file in open. */

    /* The registry's entry: args is the chain's text after the name (at its
     * '=', or at its end); *out gets the member's descriptor. The arguments
     * resolve reads are not parameters: those whose key is one of
     * resolve_keys ("file|kernel") and the first *in_order values without a
     * key. The API's list of filters leaves such an entry out; the chain
     * parser's list of names shows its usage ("opencl=file=KERNEL.cl"). */
    int (*resolve)(const char *args, const clv_filter **out, int *in_order, clv_msg *msg);
    const char *resolve_keys;
    const char *usage;
    /* A member: the file it reads (clv_filter_file); *kernel (may be NULL)
     * gets the kernel name the chain gave, or NULL. */
    const char *(*file)(const clv_filter *f, const char **kernel);
    /* A member: writes "NAME=ARGS", the arguments resolve reads
     * ("opencl=file=PATH[:kernel=NAME]"); the parameters follow after ':'. */
    void (*format)(const clv_filter *f, char *out, size_t size);
    /* A member, instead of init and configure: builds f's file on ctx into
     * state; *now is the descriptor of the file as built, which differs
     * from f when the file's parameters changed since the chain was parsed
     * (the chain carries the values over, clv__param_carry). */
    int (*open)(void *state, clv_context *ctx, const clv_filter *f, const clv_filter **now,
                clv_msg *msg);
    /* A member, live reload (clv_chain_swap_kernel): takes build, one build
     * per device, linked, and swaps them into states[0 .. count-1] (the
     * filter's state on each device of the chain, in order); returns how
     * many states got one, now[i] the descriptor of state i's build. Builds
     * left over are freed. A negative code, msg saying why, when build
     * cannot run on the chain (a 16-bit chain, a file of 8 bits only): then
     * nothing is swapped and build is not taken. */
    int (*swap)(void *const *states, int count, clv_kernel_build *build, const clv_filter **now,
                clv_msg *msg);
    /* Optional: 1 when the filter as built in state carries state from
     * frame to frame (a user kernel that reads prev), beside temporal. */
    int (*temporal_state)(const void *state);
    /* Frames through it run the user's code, which may never finish: the
     * stage waits for them with the context's watchdog. */
    int watchdog;

    /* ---- Filters of several inputs or outputs (a graph's, 0.8) ---------
     * They live in clv__graph_filters, not clv__filters: a chain refuses
     * them ("overlay takes 2 inputs: give it in a graph"). inputs: how many
     * frames the filter takes (0 reads as 1), or, when inputs_param names
     * an INT parameter (hstack's "inputs"), that parameter's value. The
     * same for outputs (split's "outputs"): a filter of several outputs
     * gives its input on each (no copy; split is the graph's own). run
     * reads launch->inputs; output_size and reference are replaced by: */
    int inputs, outputs;
    const char *inputs_param, *outputs_param;
    int (*output_size_n)(const clv_value *values, const clv_size *in, int n, clv_size *out,
                         clv_msg *msg);
    /* src[i].pixels NULL: input i is absent (see pass). time as rotate's
     * reference_at: the output frame's seconds. */
    int (*reference_n)(void *ref_state, const clv_value *values, const clv_image *src, int n,
                       clv_image *dst, uint64_t frame_index, double time);
    /* Timing (clv_graph_sync): the input after which the filter's output
     * follows another input's frames (xfade: 1 from offset + duration),
     * and when. NULL: input 0 drives throughout. offset gets the seconds
     * input i's time 0 lies at on the output's timeline; from/until when it
     * is read. */
    void (*timing)(const clv_value *values, int input, double *offset, double *drive_from,
                   double *drive_until, double *from, double *until);
    /* What the filter does when input i > 0 ends (its eof_action, shortest
     * and repeatlast options; NULL: repeat), and whether it waits for every
     * input's first frame (1) or passes its first input until then (0). */
    clv_eof_action (*eof_action)(const clv_value *values);
    int wait_first;
    /* 1: takes ffmpeg's enable= although a filter of several inputs (its
     * first input passes on where it is off: overlay, blend, alphamerge)
     * or one with an output_size hook (rotate: then only where its output
     * keeps its input's size). Other filters of one input that keep the
     * size and the rate take it anyway. */
    int timeline;
    /* Optional, instead of inputs and inputs_param: the number of inputs
     * for values v, where no one parameter says it (xstack's grid=CxR
     * takes C * R inputs). */
    int (*input_count)(const clv_value *values);
    /* Optional, a filter of two inputs that blends into its first input's
     * Y'CbCr planes (overlay's format=yuv420, ffmpeg's default): planes
     * says whether it does for values v (1: into 8-bit 4:2:0 planes, the
     * output its first input's size); run_planes then runs it with that
     * input left in the stage's planes, never converted: launch's
     * inputs[0] has no buffer (its size only), inputs[1] the other input
     * (buffer NULL when absent: the planes are copied), dst none; io's in
     * the first input's planes, out the output's (packed), out_coeffs the
     * colours of both; in may be out (the same memory and
     * layout: the frame is changed in place). Its last kernel's event goes to launch's done. The
     * graph takes this path (clv__graph_run_planes) only where the filter
     * is the graph's output and its first input the graph's input 0 as it
     * comes (clv__graph_planes). */
    int (*planes)(const clv_value *values);
    int (*run_planes)(void *state, const clv_launch *launch, const clv__yuv_io *io);
};

/* The filters of graphs (overlay, hstack, ..., split), by name. */
extern const clv_filter *const clv__graph_filters[];
extern const int clv__graph_filter_count;
/* The number of inputs and outputs of filter f with values v (1 and 1 for
 * a chain's filter). */
int clv__filter_inputs(const clv_filter *f, const clv_value *v);
int clv__filter_outputs(const clv_filter *f, const clv_value *v);

/* The seconds of frame frame_index at the graph's frame rate
 * (clv_graph_set_frame_rate; 25 until set): a stage's time when it is
 * given none (clv_stage_submit). */
double clv__graph_seconds(const clv_graph *graph, uint64_t frame_index);

/* 1 when the graph can run with its input 0 left in 8-bit 4:2:0 planes
 * (clv__graph_run_planes): it runs at 8 bits, its output is the output of
 * a filter with run_planes whose planes says yes, whose first input is the
 * graph's input 0, which nothing else reads. */
int clv__graph_planes(const clv_graph *graph);
/* clv_graph_run with input 0 (w x h) in io's planes and the output into
 * io's out (clv_filter's run_planes); in[0] is not read. wait: an event
 * the first command waits for (may be NULL); *done: the last command's. */
int clv__graph_run_planes(clv_graph *graph, const clv_frame *const *in, int w, int h,
                          const clv__yuv_io *io, uint64_t frame_index, double time, cl_event wait,
                          cl_event *done, clv_msg *msg);

/* A parsed graph (clv_graph_desc in graph.h): plain data, copied freely.
 * Nodes are in an order where every node's inputs come before it. */
typedef struct clv__graph_link {
    int node; /* the node whose output this is; -1: the graph's input `pad` */
    int pad;  /* the node's output pad, or the graph's input index */
} clv__graph_link;

struct clv_graph_desc {
    int input_count; /* the inputs the graph was parsed for */
    int node_count;
    struct clv__graph_node {
        const clv_filter *filter;
        clv_value values[CLV_PARAMS_MAX];
        char enable[CLV__ENABLE_MAX]; /* as a chain item's */
        int input_count, output_count;
        clv__graph_link in[CLV_GRAPH_PADS];
        int place; /* the filter's index in the text, from 0, for messages */
        int at;    /* its name's character offset in the text */
    } node[CLV_GRAPH_NODES];
    clv__graph_link output;
};

/* The size out of every output pad of every node (size[node][pad]) for
 * inputs of in[] (checked: msg names the filter, its place, the sizes). */
int clv__graph_sizes(const clv_graph_desc *desc, const clv_size *in,
                     clv_size (*size)[CLV_GRAPH_PADS], clv_msg *msg);

/* 1 when node makes a frame though its first input is absent (got[0]
 * NULL): a filter that hands over to another input (its timing, xfade
 * after its transition) with another input present. Else a node whose
 * first input is absent is absent. */
static inline int clv__graph_hands_over(const struct clv__graph_node *node, const void *const *got)
{
    if (!node->filter->timing)
        return 0;
    for (int k = 1; k < node->input_count; k++)
        if (got[k])
            return 1;
    return 0;
}

extern const clv_filter *const clv__filters[];
extern const int clv__filter_count;

/* ---- Parameters and the chain's words (src/core/param.c) -------------- */

/* Copies the next token up to one of `stops` (outside quotes) into out,
 * unquoting '...' and backslash escapes and trimming blanks outside quotes.
 * Returns the position of the stop character, or NULL on an unterminated
 * quote. *length gets the token's whole length: when it is size or more,
 * out holds only its first size - 1 characters (the caller says the token
 * is too long, by how much). */
const char *clv__token(const char *s, const char *stops, char *out, size_t size, size_t *length);
/* s after its blanks (spaces, tabs, newlines). */
const char *clv__skip_blanks(const char *s);
/* At most 40 characters of s for a message, with "..." when cut; returns out. */
const char *clv__clip(const char *s, char *out, size_t size);
/* Writes v as parameter p's text, as the chain syntax reads it back. */
void clv__param_format(const clv_param *p, const clv_value *v, char *out, size_t size);
/* Carries values of `from`'s parameters (old) over to `to`'s (values): a
 * value keeps when `to` has a parameter of its name and type, it was moved
 * off its old default and lies in the new range; the rest take `to`'s
 * defaults (see clv_chain_swap_kernel). from may be NULL. */
void clv__param_carry(const clv_filter *from, const clv_value *old, const clv_filter *to,
                      clv_value *values);

/* Splits an EXPR parameter's choices ("iw|ih|a") into names (NULL-
 * terminated, at most max - 1) pointing into buf; returns how many. */
int clv__expr_names(const char *choices, char *buf, size_t size, const char **names, int max);
/* The chain's last filter after an fps: CLV_EPARSE with msg where it is a
 * second fps or depends on the frame's number or time ("chain", "graph"). */
int clv__rate_last(const clv_chain_desc *desc, const char *where, clv_msg *msg);
/* 1 when a filter with these values (and enable=) may give another output
 * for another frame number or time, or after other frames. */
int clv__timed(const clv_filter *f, const clv_value *values, const char *enable);
/* ffmpeg's colour syntax (av_parse_color): a name of its table
 * (case-insensitive), "0xRRGGBB[AA]", "#RRGGBB[AA]" or "RRGGBB[AA]",
 * "random", each with an optional "@ALPHA" (a number 0-1 or 0xAA):
 * *rgba = 0xRRGGBBAA. CLV_EPARSE with msg naming the text otherwise. */
int clv__color_parse(const char *text, uint32_t *rgba, clv_msg *msg);

/* ffmpeg's image size (av_parse_video_size): one of its names ("hd720",
 * "vga"), else a width, any one character and a height ("640x360"), both
 * above 0. Returns 0 with *width and *height, or -1. */
int clv__video_size(const char *text, int *width, int *height);
/* The names clv__video_size knows, joined by ", ", for a message. */
void clv__video_size_names(char *out, size_t size);

/* ---- Sizes (src/core/geometry.c) ---------------------------------------- */

/* What filter f (place: its index in the chain) makes of frames of *in,
 * checked (1 to CLV__SIDE_MAX a side), msg naming the filter, its place
 * and both sizes on an error. */
int clv__filter_output_size(const clv_filter *f, const clv_value *values, int place,
                            const clv_size *in, clv_size *out, clv_msg *msg);
/* The same, the message saying "(#N in the <where>)" ("graph"). */
int clv__filter_output_size_in(const clv_filter *f, const clv_value *values, int place,
                               const char *where, const clv_size *in, clv_size *out, clv_msg *msg);
/* out's aspect: in's times num/den, reduced as ffmpeg's av_mul_q (an
 * unknown aspect stays unknown). */
void clv__sar_mul(const clv_size *in, int64_t num, int64_t den, clv_size *out);
/* ffmpeg's av_reduce: num/den in lowest terms with neither above max, the
 * nearest such fraction (continued fractions) where they do not fit; the
 * sign on the numerator. Returns 1 when the result is exact. */
int clv__reduce(int *out_num, int *out_den, int64_t num, int64_t den, int64_t max);
/* ffmpeg's av_d2q: the fraction of terms up to max nearest d (0/0 for
 * NaN, +-1/0 beyond INT_MAX). */
void clv__d2q(double d, int max, int *out_num, int *out_den);

/* ---- Chains over several devices (src/core/chain.c) -------------------- */

/* The context of device `index` of ctx (0: ctx, which is device 0's and
 * the others' container). */
clv_context *clv__context_at(clv_context *ctx, int index);
/* The chain's instance on device `device` of its context (0: chain). */
clv_chain *clv__chain_at(clv_chain *chain, int device);
/* A run of this device's instance is in flight on another thread (a
 * stage's sender) until clv__chain_unhold: the chain's calls that change it
 * or read what runs write (parameters, kernels, times, destroy) wait for
 * every hold to end, so a change lands between frames, as with one thread. */
void clv__chain_hold(clv_chain *chain);
void clv__chain_unhold(clv_chain *chain);
/* The chain's output for frames of w x h (with the aspect the caller last
 * gave clv_chain_output_size), its filters' resize hooks run for it. */
int clv__chain_size(clv_chain *chain, int w, int h, clv_size *out, clv_msg *msg);
/* clv_chain_run with the frame's time in seconds given (a graph's). */
int clv__chain_run_at(clv_chain *chain, const clv_frame *src, clv_frame *dst, uint64_t frame_index,
                      double time, cl_event wait, cl_event *done, clv_msg *msg);
/* 1 when a filter of the chain carries state from frame to frame. */
int clv__chain_temporal(const clv_chain *chain);
/* 1 when the chain starts with a filter that holds frames (a
 * deinterlacer): the stage converts its 4:2:0 input field by field
 * (clv_ref_to_rgba_fields), so that the fields stay apart until it. */
int clv__chain_fields(const clv_chain *chain);
/* 1 when a filter of the chain asks for the watchdog (clv_filter's
 * watchdog: a user kernel). */
int clv__chain_watched(const clv_chain *chain);
/* Runs the chain's one filter with the stage's conversions fused in
 * (clv_filter's run_yuv) from the 4:2:0 frame io describes into io's
 * output, using src and dst as its RGBA frames; *last gets the last
 * kernel's event, after `wait` (may be NULL). Returns 1, having enqueued
 * nothing, when the chain can't (not one filter, a filter without
 * run_yuv or that does not fuse its parameters, a GPU, per-filter timing
 * asked), else 0 or an error (msg says which filter failed). */
int clv__chain_run_yuv(clv_chain *chain, const clv_frame *src, clv_frame *dst, uint64_t frame_index,
                       const clv__yuv_io *io, cl_event wait, cl_event *last, clv_msg *msg);

/* ---- Kernels inside the stage's conversions (src/core/fused.c) --------- */

/* The strips of rows a filter's kernels use inside the conversions, grown
 * as frames need them (the queue keeps an old buffer while it is used). */
typedef struct clv__rows {
    cl_mem mem;
    size_t size;
} clv__rows;
/* At least need bytes in rows; CLV_ENOMEM, logged for filter `who`, else 0. */
int clv__rows_reserve(clv_context *ctx, clv__rows *rows, size_t need, const char *who);
void clv__rows_release(clv__rows *rows);

/* Sets arguments 0-12 of a kernel inside the conversions: the stage's
 * input frame, the kernel's rows, the frame's size and the input's planes
 * and colours (cl/yuv.cl's CLV_FUSED_ARGS begin so, as equalize's kernels
 * do); `who` names the filter in the log. */
int clv__yuv_in_args(cl_kernel kernel, const clv_launch *l, const clv__yuv_io *io, cl_mem rows,
                     const char *who);

/* cl/yuv.cl's CLV_FUSE_ROWS: the output rows of a fused kernel's chunk. */
#define CLV__FUSE_ROWS 8
/* A fused kernel's own arguments start here (after CLV_FUSED_ARGS). */
#define CLV__FUSED_ARGS 17
/* Enqueues `kernel`, a neighbourhood filter's rows inside the stage's
 * conversions (cl/yuv.cl's CLV_FUSED_BODY) that reads `reach` rows above
 * and below each output row, on the frames io describes: a filter's
 * run_yuv, with the kernel's own arguments already set. */
int clv__run_fused(const clv_launch *l, const clv__yuv_io *io, cl_kernel kernel, int reach,
                   clv__rows *rows, const char *who);

/* ---- Embedded kernel sources (generated at build time) ---------------- */

typedef struct clv__source {
    const char *name; /* "median.cl" */
    const char *text;
    size_t length;
} clv__source;

extern const clv__source clv__sources[];
extern const int clv__source_count;

/* Returns the program for cl/<family>.cl on ctx, building it (or loading it
 * from the binary cache) on first use. The context owns the program. */
int clv__program_get(clv_context *ctx, const char *family, cl_program *out, clv_msg *msg);
/* The same with build options added (defines: "-DNAME=VALUE ...", under 160
 * characters), one program per family and defines: a filter that needs
 * one of a program's kernels builds only that one. */
int clv__program_variant(clv_context *ctx, const char *family, const char *defines, cl_program *out,
                         clv_msg *msg);
/* The program clv__program_variant(ctx, family, defines) would return if
 * ctx has built it (at the depth of the chain being built), or NULL. */
cl_program clv__program_find(const clv_context *ctx, const char *family, const char *defines);
/* How many programs of the family ctx holds, its variants included. */
int clv__program_count(const clv_context *ctx, const char *family);
/* Writes the cache entries of programs built from source that wait for the
 * context's end (cache_late), and frees their names. */
void clv__program_cache_late(clv_context *ctx, int write);
/* Builds a program from text (no cache). On a build failure returns
 * CLV_EBUILD (msg untouched) with *log the driver's log (malloc'd, may be
 * NULL), its "<kernel>:N" lines mapped to file:(N - first_line + 1). */
int clv__program_build_text(const clv_context *ctx, const char *text, size_t len,
                            const char *options, const char *file, int first_line, cl_program *out,
                            char **log, clv_msg *msg);
/* cl/<name> (embedded, or from the kernel directory) after a #line 1
 * directive, into *text (malloc'd). */
int clv__source_text(const clv_context *ctx, const char *name, char **text, size_t *len,
                     clv_msg *msg);
/* Creates a kernel from a program; msg names the kernel on failure. */
int clv__kernel_create(cl_program prog, const char *name, cl_kernel *out, clv_msg *msg);

/* ---- Launch helpers ----------------------------------------------------- */

/* Sets `count` kernel arguments from index `first` on, from (size, pointer)
 * pairs: CLV__ARG(x) expands to one pair. */
#define CLV__ARG(x) sizeof(x), (const void *)&(x)
int clv__kernel_args(cl_kernel kernel, int first, int count, ...);
/* Sets arguments 0-4 to the launch's src, dst, width, height, stride (the
 * CLV_FRAME_ARGS of cl/common.cl). */
int clv__kernel_frame_args(cl_kernel kernel, const clv_launch *l);
/* Sets argument index to the buffer m, or to the SVM memory at svm when m
 * is NULL. */
cl_int clv__kernel_mem_arg(cl_kernel kernel, cl_uint index, cl_mem m, const void *svm);
/* Releases *k if set and clears it. */
void clv__kernel_release(cl_kernel *k);
void clv__mem_release(cl_mem *m);

/* Enqueues kernel over the pixels of a w x h frame in the device's work
 * shape: one row per work-item on CPUs, CLV__GPU_PX pixels per work-item on
 * GPUs. Kernels use CLV_PIXEL_LOOP (cl/common.cl). */
int clv__launch_pixels(const clv_launch *l, cl_kernel kernel, int width, int height);
/* The same for kernels whose GPU-shape work-item makes its pixels in two
 * rows (CLV_WIN3x2): half the rows on GPUs, all of them on CPUs. */
int clv__launch_pixel_pairs(const clv_launch *l, cl_kernel kernel);
/* Enqueues kernel with an explicit range (local may be NULL). */
int clv__launch(const clv_launch *l, cl_kernel kernel, cl_uint dims, const size_t *global,
                const size_t *local);
/* The same from a global offset (may be NULL). */
int clv__launch_at(const clv_launch *l, cl_kernel kernel, cl_uint dims, const size_t *offset,
                   const size_t *global, const size_t *local);

/* ---- Errors and logging ------------------------------------------------- */

/* Fills msg (may be NULL) like printf; returns code. */
int clv__fail(clv_msg *msg, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
const char *clv__cl_strerror(cl_int status);
/* Logs through ctx's sink at its level; ctx NULL: warnings and errors to
 * stderr. */
void clv__log(const clv_context *ctx, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
enum {
    CLV__LOG_ERROR = CLV_LOG_ERROR,
    CLV__LOG_WARN = CLV_LOG_WARN,
    CLV__LOG_INFO = CLV_LOG_INFO,
    CLV__LOG_DEBUG = CLV_LOG_DEBUG
};

/* Converts an OpenCL status at the boundary: logs what was being done (on
 * ctx's log) and jumps to fail with err set. Needs `int err` and a `fail:`
 * label. */
#define CLV__CL_CHECK(ctx, call, what)                                                             \
    do {                                                                                           \
        cl_int clv__st = (call);                                                                   \
        if (clv__st != CL_SUCCESS) {                                                               \
            clv__log((ctx), CLV__LOG_ERROR, "%s: %s", (what), clv__cl_strerror(clv__st));          \
            err = (clv__st == CL_OUT_OF_HOST_MEMORY ||                                             \
                   clv__st == CL_MEM_OBJECT_ALLOCATION_FAILURE || clv__st == CL_OUT_OF_RESOURCES)  \
                      ? CLV_ENOMEM                                                                 \
                      : CLV_ECL;                                                                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* ---- Colour ------------------------------------------------------------ */

/* The fixed-point YUV coefficients (16 fractional bits), laid out as
 * clv_yuv_coeffs in cl/color.cl. */
typedef struct clv__yuv_coeffs {
    cl_int ky, yoff, rv, gu, gv, bu;
    cl_int yr, yg, yb, ur, ug, ub, vr, vg, vb;
    cl_int ymin, ymax, cmin, cmax;
} clv__yuv_coeffs;

void clv__yuv_coeffs_make(clv_color color, clv__yuv_coeffs *k);
/* The same for the 16-bit conversions (codes of 16 bits: limited range
 * 4096-60160, chroma 4096-61440 about 32768; in 64-bit arithmetic). */
void clv__yuv_coeffs_make16(clv_color color, clv__yuv_coeffs *k);

/* ---- Shared C helpers for the references ----------------------------- */

static inline int clv__clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* floor(a / b) for b > 0. */
static inline int clv__floor_div(int a, int b)
{
    int q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* floor(sqrt(x)) by bisection: the plain definition, the references' for
 * cl/isqrt.cl's roots (prewitt, sobel, roberts). */
static inline uint64_t clv__isqrt64(uint64_t x)
{
    uint64_t lo = 0, hi = 1ull << 32;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (mid * mid <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* BT.601 luma in fixed point, as OpenCV's BGR2GRAY. */
static inline int clv__gray(const uint8_t *p)
{
    return (9798 * p[0] + 19235 * p[1] + 3735 * p[2] + 16384) >> 15;
}

/* A host image's depth: 8 or 16 (0 reads as 8). */
static inline int clv__depth(const clv_image *img)
{
    return img->depth == 16 ? 16 : 8;
}

/* The largest channel value at img's depth: 255 or 65535. */
static inline int clv__maxv(const clv_image *img)
{
    return img->depth == 16 ? 65535 : 255;
}

/* Channel c of pixel (x, y) at either depth, and its store (v in range). */
static inline int clv__get(const clv_image *img, int x, int y, int c)
{
    const uint8_t *row = img->pixels + (size_t)y * img->stride;
    return img->depth == 16 ? ((const uint16_t *)(const void *)row)[4 * x + c] : row[4 * x + c];
}

static inline void clv__put(clv_image *img, int x, int y, int c, int v)
{
    uint8_t *row = img->pixels + (size_t)y * img->stride;
    if (img->depth == 16)
        ((uint16_t *)(void *)row)[4 * x + c] = (uint16_t)v;
    else
        row[4 * x + c] = (uint8_t)v;
}

/* clv__get with clamp-to-edge. */
static inline int clv__get_clamped(const clv_image *img, int x, int y, int c)
{
    return clv__get(img, clv__clamp(x, 0, img->width - 1), clv__clamp(y, 0, img->height - 1), c);
}

/* An 8-bit-scale parameter value at img's depth: v * 257 at 16 bits (255
 * becomes 65535), v at 8. */
static inline int clv__scale8(const clv_image *img, int v)
{
    return img->depth == 16 ? v * 257 : v;
}

/* The address of pixel (x, y) at either depth (4 or 8 bytes). */
static inline const uint8_t *clv__px_at(const clv_image *img, int x, int y)
{
    return img->pixels + (size_t)y * img->stride + (size_t)x * (img->depth == 16 ? 8 : 4);
}

static inline const uint8_t *clv__px(const clv_image *img, int x, int y)
{
    return img->pixels + (size_t)y * img->stride + (size_t)x * 4;
}

static inline uint8_t *clv__px_mut(clv_image *img, int x, int y)
{
    return img->pixels + (size_t)y * img->stride + (size_t)x * 4;
}

/* The pixel at (x, y) with clamp-to-edge. */
static inline const uint8_t *clv__px_clamped(const clv_image *img, int x, int y)
{
    return clv__px(img, clv__clamp(x, 0, img->width - 1), clv__clamp(y, 0, img->height - 1));
}

/* The hash behind noise (documented in cl/noise.cl), shared by kernel and
 * reference. */
static inline uint32_t clv__fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

/* Copies a caller's options struct (its first field is its struct_size) into
 * out, already filled with this library's defaults (known bytes): the fields
 * the caller knows replace them. CLV_EINVAL with msg naming `what` for a
 * struct_size of 0 (not made by its _init) or beyond `known` (a newer
 * clvid's). */
int clv__options_copy(const void *given, void *out, size_t known, const char *what, clv_msg *msg);

/* clv_chain_parse into a description of the caller's (zeroed on error). */
int clv__chain_parse_into(const char *text, clv_chain_desc *desc, clv_msg *msg);
/* Parses the filter at *pos (its name, '=' and values, as a chain gives
 * them) into *out and values[CLV_PARAMS_MAX]; *pos gets the character
 * after it. graph 0: a chain's (',' ends it; a graph's filter is refused,
 * "overlay takes 2 inputs: give it in a graph"); 1: a graph's (',', ';',
 * '[' or ']' ends it; the graphs' filters are known too). enable
 * (CLV__ENABLE_MAX) gets ffmpeg's timeline expression, "" without one. On
 * an error *at is the place at fault. */
int clv__filter_parse(const char **pos, int graph, const clv_filter **out, clv_value *values,
                      char *enable, const char **at, clv_msg *msg);
/* enable='s variables, NULL-ended: t, n, pos, w, h. */
extern const char *const clv__enable_names[];
typedef struct clv__expr clv__expr;
/* An item's enable= text ("" or NULL: *out NULL) parsed for runs. */
int clv__enable_parse(const clv_filter *f, const char *text, clv__expr **out, clv_msg *msg);
/* 1 when the filter runs on a frame of time t, number n, size w x h: no
 * expression, or one whose value is at least 0.5 away from 0 (NaN: off),
 * as libavfilter decides. */
int clv__enabled(const clv__expr *e, double t, uint64_t n, int w, int h);
/* Writes "name=p1=v1:p2=v2" (every value) as the parser reads it back;
 * returns the length it wanted (as snprintf). */
size_t clv__filter_format(const clv_filter *f, const clv_value *values, char *out, size_t size);
/* Copies src's pixels into dst on the context's queue (the same size;
 * strides may differ): a graph's result, a filter switched off. */
int clv__frame_copy(clv_context *ctx, const clv_frame *src, clv_frame *dst);
/* What comes before an option added after clv__filter_format's text
 * (enable=): ':', or '=' after a bare name. */
char clv__filter_format_sep(const clv_filter *f);
/* 0, or CLV_EPARSE with msg when f (place: its index in the <where>,
 * "chain" or "graph") changes pixels and comes after a format filter
 * (pix_fmts: the formats it named, NULL where none came before). */
int clv__format_last(const clv_filter *f, int place, const char *pix_fmts, const char *where,
                     clv_msg *msg);
/* Adds to msg two lines: text around offset at, and a caret under it. */
void clv__add_excerpt(clv_msg *msg, const char *text, size_t at);

/* ---- Expressions (expr.c) ---------------------------------------------
 * ffmpeg's arithmetic expressions ("iw/2", "trunc(ih*dar/2)*2",
 * "if(gt(t,2),PI/4,0)"): libavutil/eval's operators, precedence,
 * functions, constants (PI, E, PHI) and number suffixes (1k, 1Ki). */
/* Parses text with variables `names` (NULL-terminated; NULL for none).
 * CLV_EPARSE with msg naming the expression and the character at fault. */
int clv__expr_parse(const char *text, const char *const *names, clv__expr **out, clv_msg *msg);
/* A function of one argument the caller defines (ffmpeg's func1, as rotate's
 * rotw and roth): it gets the expression's variable values too. */
typedef double (*clv__expr_fn)(const double *values, double x);
/* clv__expr_parse where a name ending in "()" ("rotw()") is a function of
 * one argument, fns[i] for names[i] (fns may be NULL, or hold NULL, where
 * only the text is checked: the function then evaluates to NAN). */
int clv__expr_parse_with(const char *text, const char *const *names, const clv__expr_fn *fns,
                         clv__expr **out, clv_msg *msg);
/* values[i] is names[i]'s value. NAN where FFmpeg gives NAN (0/0, sqrt(-1)).
 * st() and ld()'s registers start at 0 each call, as av_expr_parse_and_eval's. */
double clv__expr_eval(const clv__expr *e, const double *values);
/* The same with the registers the caller keeps (CLV__EXPR_REGS, zeroed
 * once): av_expr_eval's on one parsed expression, whose st(), ld() and
 * random() carry from one evaluation to the next (vf_lut's tables). */
#define CLV__EXPR_REGS 10
double clv__expr_eval_regs(const clv__expr *e, const double *values, double *regs);
void clv__expr_free(clv__expr *e);
/* The value of text as an expression of names (NULL: numbers alone,
 * "1/3", "2k", "PI") given their values; NAN where it is not one. */
double clv__expr_value(const char *text, const char *const *names, const double *values);

#endif
