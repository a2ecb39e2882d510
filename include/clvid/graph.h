/* clvid/graph.h - graphs of several inputs (0.8): ffmpeg's -filter_complex.
 *
 * A graph joins frames of several inputs (a logo over a clip, two clips side
 * by side, a cross-fade) through filters of several inputs (overlay, hstack,
 * vstack, xstack, blend, xfade, alphamerge) and the one-input filters of
 * chains, split for a stream used twice. Its text is ffmpeg's: chains of
 * filters separated by ';', links between them named in brackets ("[bg]"),
 * the graph's inputs named by their index ("[0]", "[0:v]", "[1:v:0]"), one
 * output, unlabelled or labelled ("[out]", picked by clv_graph_parse's
 * output). A graph of one input and one chain is a chain (clv_graph_desc_chain).
 *
 *   [1]scale=200:-1[logo];[0][logo]overlay=W-w-10:10
 *   [0][1]hstack=inputs=2,scale=1280:-2
 *   [0][1]xfade=transition=wipeleft:duration=1:offset=4
 *
 * Every frame a graph makes is made from one frame of each input it uses
 * (clv_graph_desc_sync says which: the timing of several inputs). */
#ifndef CLVID_GRAPH_H
#define CLVID_GRAPH_H

#include "clvid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most inputs a graph takes, nodes (filter instances) it holds, and
 * inputs one filter takes (xstack's inputs=N). */
#define CLV_GRAPH_INPUTS 16
#define CLV_GRAPH_NODES 64
#define CLV_GRAPH_PADS 16

typedef struct clv_graph_desc clv_graph_desc;

/* The filters only graphs take (those of several inputs or outputs:
 * overlay, hstack, split, ...), apart from clv_filter_count/at's, which
 * are the chains' (clv_filter_find finds both). */
CLV_API int clv_graph_filter_count(void);
CLV_API const clv_filter *clv_graph_filter_at(int index);
/* The inputs and outputs filter f takes with its default values (hstack:
 * 2, its `inputs`; a chain's filter: 1 and 1). */
CLV_API int clv_filter_inputs(const clv_filter *f);
CLV_API int clv_filter_outputs(const clv_filter *f);

/* Parses a graph over input_count inputs (the -i given; an index in the text
 * beyond them is an error). output: the label of the graph's output ("out"
 * for "-map '[out]'"), or NULL for its one unlabelled output. CLV_EPARSE
 * with msg pointing at the place (the filter's name and index in the text,
 * "at character N") for: an unknown filter or parameter, a value out of
 * range, an unknown or unused label, a pad left unconnected, a label used
 * twice, an input index that does not exist, a cycle, more than one
 * output. Sizes are checked by clv_graph_desc_output_size. */
CLV_API int clv_graph_parse(const char *text, int input_count, const char *output,
                            clv_graph_desc **out, clv_msg *msg);
CLV_API void clv_graph_desc_destroy(clv_graph_desc *desc);
CLV_API clv_graph_desc *clv_graph_desc_copy(const clv_graph_desc *desc);
/* The number of inputs the graph reads (the -i it was parsed for). An input
 * the graph does not read is left out of its frames (NULL image/frame). */
CLV_API int clv_graph_desc_inputs(const clv_graph_desc *desc);
/* 1 when the graph reads input `index`. */
CLV_API int clv_graph_desc_uses(const clv_graph_desc *desc, int index);
/* The graph as one chain when it is one (one input, no filter of several
 * inputs, no split): a new description (clv_chain_desc_destroy), else NULL.
 * Such a graph runs as a chain: the same speed and bytes as -vf. */
CLV_API clv_chain_desc *clv_graph_desc_chain(const clv_graph_desc *desc);
/* The graph's text as it reads it back (every filter with all its values). */
CLV_API void clv_graph_format(const clv_graph_desc *desc, char *out, size_t size);
/* The size of the output for inputs of sizes in[0 .. inputs - 1] (an input
 * not read may be anything). CLV_ERANGE with msg naming the filter, its
 * place in the graph and the sizes when they do not fit together (stacked
 * inputs of different heights, xfade's inputs of different sizes) or a size
 * is out of range. */
CLV_API int clv_graph_desc_output_size(const clv_graph_desc *desc, const clv_size *in,
                                       clv_size *out, clv_msg *msg);
/* 0 when every filter runs at 16 bits; CLV_EDEPTH with msg naming one. */
CLV_API int clv_graph_desc_deep(const clv_graph_desc *desc, clv_msg *msg);
/* The files the graph's filters read (as clv_chain_desc_files). */
/* The pixel formats a `format` filter names for the graph's output
 * ("yuv420p"; 0.8): the last format on its way, NULL where none is. As
 * clv_chain_desc_pix_fmts: an encoded output takes the first its encoder
 * takes, and only filters that change no pixel, and split, may follow a
 * format (the parser refuses others). */
CLV_API const char *clv_graph_desc_pix_fmts(const clv_graph_desc *desc);
CLV_API int clv_graph_desc_files(const clv_graph_desc *desc, const char **files, int max);

/* ---- Timing: which frame of each input makes an output frame ----------
 * ffmpeg's framesync, per input of the graph. The output's frames are
 * those of the driving input (input 0, or the one of the filter that
 * drives the place on the timeline: xfade's second after its transition),
 * at their times; every other input gives its latest frame at or before
 * the output time minus its offset. */
typedef enum clv_eof_action {
    CLV_EOF_REPEAT, /* its last frame stays (ffmpeg's eof_action=repeat, the default) */
    CLV_EOF_ENDALL, /* the output ends when it ends (endall, shortest=1) */
    CLV_EOF_PASS,   /* from then on it is absent: the filter passes its first input */
} clv_eof_action;

typedef struct clv_graph_sync {
    /* Seconds on the output's timeline where this input's time 0 lies
     * (xfade's offset for its second input, else 0). */
    double offset;
    /* The output times this input drives (its frames are the output's):
     * [drive_from, drive_until); drive_until INFINITY for "to its end",
     * drive_from == drive_until when it never drives. */
    double drive_from, drive_until;
    /* The output times it is needed at: before `from` and after `until`
     * it is not read (xfade's first input after the transition). */
    double from, until;
    clv_eof_action eof_action;
    /* Before its first frame: 1, the output waits for it (stacks, xfade);
     * 0, it is absent until then (overlay, blend pass their first input). */
    int wait_first;
} clv_graph_sync;

/* The timing of input `index` (one the graph reads). */
CLV_API int clv_graph_desc_sync(const clv_graph_desc *desc, int index, clv_graph_sync *out);

/* ---- The graph on the host, by the definitions ------------------------ */

typedef struct clv_ref_graph clv_ref_graph;
CLV_API int clv_ref_graph_create(const clv_graph_desc *desc, clv_ref_graph **out);
CLV_API void clv_ref_graph_destroy(clv_ref_graph *ref);
/* Runs the graph on in[0 .. inputs - 1] (NULL or pixels NULL: absent, see
 * clv_eof_action; an input not read is ignored) into dst, of the size
 * clv_graph_desc_output_size gives (sar unknown) and the inputs' depth.
 * time: the output frame's time in seconds (overlay's t, xfade's
 * progress); frame_index its number (overlay's n). */
CLV_API int clv_ref_graph_run(clv_ref_graph *ref, const clv_image *const *in, clv_image *dst,
                              uint64_t frame_index, double time);
CLV_API void clv_ref_graph_set_frame_rate(clv_ref_graph *ref, int num, int den);
/* The output's first frame's time in seconds (0 until set): the filters
 * with a timeline of their own (xfade's offset and progress, the offsets
 * of clv_graph_sync) count from it, as ffmpeg's xfade counts from its
 * first input's first frame; overlay's t stays the frame's time. */
CLV_API void clv_ref_graph_set_time_origin(clv_ref_graph *ref, double seconds);

/* ---- The graph on a device --------------------------------------------
 * Built once (every filter's kernels), run frame after frame on device
 * frames (clv_graph_run in clvid/opencl.h); the frames between filters
 * stay on the device. */
typedef struct clv_graph clv_graph;
CLV_API int clv_graph_create(clv_context *ctx, const clv_graph_desc *desc, int depth,
                             clv_graph **out, clv_msg *msg);
CLV_API void clv_graph_destroy(clv_graph *graph);
CLV_API const clv_graph_desc *clv_graph_get_desc(const clv_graph *graph);
CLV_API void clv_graph_set_frame_rate(clv_graph *graph, int num, int den);
/* As clv_ref_graph_set_time_origin; set it before the first frame runs. */
CLV_API void clv_graph_set_time_origin(clv_graph *graph, double seconds);
/* The output size for inputs of in[], checked against the device's limits;
 * builds what depends on the sizes (scale's tables). */
CLV_API int clv_graph_output_size(clv_graph *graph, const clv_size *in, clv_size *out,
                                  clv_msg *msg);

/* ---- A stage that runs a graph ----------------------------------------
 * The pipelined stage (clv_stage_create) with a graph instead of a chain:
 * each input has its own staging, uploaded and converted to RGBA on the
 * device; the graph runs; the output is converted and downloaded; several
 * frames in flight. One device (a context of several uses its first). */
typedef struct clv_stage_input_format {
    int width, height;
    clv_pixfmt format;
    clv_color color;
} clv_stage_input_format;

/* options describes input 0 (its size, in_format, in_color, rotation) and
 * the output (out_format, out_color, slots, depth); inputs[i] input i's
 * frames for i >= 1 (inputs[0] is not read). The graph is the caller's,
 * built on ctx, and outlives the stage. CLV_ERANGE with msg when the
 * inputs' sizes don't fit the graph (clv_graph_output_size). */
CLV_API int clv_stage_create_graph(clv_context *ctx, const clv_stage_options *options,
                                   clv_graph *graph, const clv_stage_input_format *inputs,
                                   clv_stage **out, clv_msg *msg);
/* The staging memory of input `index` for the next frame (index 0 is
 * clv_stage_input's), clv_pixfmt_size bytes of its format; NULL when it
 * must wait (every slot in flight: take an output first). Write every
 * input the graph reads, or mark it absent, then clv_stage_submit_at. */
CLV_API uint8_t *clv_stage_input_at(clv_stage *stage, int index);
/* Input `index` is absent from the next frame (clv_eof_action's pass; an
 * input not read at that time, see clv_graph_sync's from and until). */
CLV_API void clv_stage_input_absent(clv_stage *stage, int index);
/* clv_stage_submit with the output frame's time in seconds (overlay's t,
 * xfade's progress; clv_stage_submit's is frame_index over the graph's
 * frame rate). */
CLV_API int clv_stage_submit_at(clv_stage *stage, uint64_t frame_index, double time, clv_msg *msg);

#ifdef __cplusplus
}
#endif
#endif
