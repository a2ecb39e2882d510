/* opencl.h - clvid's engine with OpenCL objects of your own (libclvid):
 * the context's OpenCL context and queue, device frames (a cl_mem each),
 * and a chain run between two of them with events. Programs that only
 * filter host pictures, run the stage or a transcode need clvid.h alone. */
#ifndef CLVID_OPENCL_H
#define CLVID_OPENCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "clvid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The context's OpenCL context and in-order compute queue (the first
 * device's); they live as long as the context. */
CLV_API cl_context clv_context_cl(const clv_context *ctx);
CLV_API cl_command_queue clv_context_queue(const clv_context *ctx);

/* A device frame: RGBA8 (depth 8 or 0) or RGBA16 (depth 16: four
 * host-order uint16_t a pixel) in a buffer, rows `stride` pixels apart (a
 * multiple of 16 pixels). The frame owns its buffer. */
typedef struct clv_frame {
    cl_mem buffer;
    int width, height;
    int stride; /* in pixels */
    int depth;  /* added in 0.5 */
} clv_frame;

/* Checks width/height against the device limits before allocating; an
 * oversized frame is CLV_ELIMIT with msg naming the limit. */
CLV_API int clv_frame_create(clv_context *ctx, int width, int height, clv_frame *frame,
                             clv_msg *msg);
/* The same at depth 8 or 16 (0.5). */
CLV_API int clv_frame_create_depth(clv_context *ctx, int width, int height, int depth,
                                   clv_frame *frame, clv_msg *msg);
CLV_API void clv_frame_destroy(clv_frame *frame);
/* Blocking copies between host images and frames of the same size. */
CLV_API int clv_frame_upload(clv_context *ctx, clv_frame *frame, const clv_image *img);
CLV_API int clv_frame_download(clv_context *ctx, const clv_frame *frame, clv_image *img);

/* Enqueues the chain on the context's queue: reads src, writes dst (same
 * size, distinct buffers). Waits on `wait` (may be NULL) and, when `done` is
 * not NULL, returns an event the caller releases. Never blocks on the device.
 * frame_index feeds filters that vary per frame (noise). */
CLV_API int clv_chain_run(clv_chain *chain, const clv_frame *src, clv_frame *dst,
                          uint64_t frame_index, cl_event wait, cl_event *done, clv_msg *msg);

/* Enqueues the graph (clvid/graph.h) on the context's queue: reads
 * in[0 .. inputs - 1] (NULL or buffer NULL: absent, as clv_ref_graph_run),
 * writes dst, of clv_graph_output_size's size for theirs (distinct from
 * every input). time and frame_index as clv_ref_graph_run. The same bytes
 * as the reference. Never blocks on the device. */
struct clv_graph;
CLV_API int clv_graph_run(struct clv_graph *graph, const clv_frame *const *in, clv_frame *dst,
                          uint64_t frame_index, double time, cl_event wait, cl_event *done,
                          clv_msg *msg);

#ifdef __cplusplus
}
#endif

#endif
