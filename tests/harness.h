/* harness.h - the test runner's helpers: checks that report where they
 * failed, the list of tests, and frames with known content. */
#ifndef CLVID_TEST_HARNESS_H
#define CLVID_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "clvid.h"
#include "opencl.h"
#include "testing.h"

/* Exit status ctest reads as "skipped" (SKIP_RETURN_CODE). */
#define TEST_SKIP 77

#define CHECK_EQ_STR(got, want)                                                                    \
    CHECK(strcmp((got), (want)) == 0, "\n   got: %s\n  want: %s", (got), (want))

/* Every test, as X(NAME, "LABELS"): the runner runs one by name or
 * lists them, and tests/CMakeLists.txt makes one ctest entry of each from
 * this list (core: the engine; unit: quick; filter: a filter's exactness;
 * devices: run with two PoCL devices; gpu: on GPUs only, skipped without). */
#define TEST_LIST(X)                                                                               \
    X(parser_chains, "core unit")                                                                  \
    X(parser_errors, "core unit")                                                                  \
    X(parser_excerpts, "core unit")                                                                \
    X(parser_format, "core unit")                                                                  \
    X(errors_table, "core unit")                                                                   \
    X(device_select, "core unit")                                                                  \
    X(frame_limits, "core")                                                                        \
    X(chain_filter_timing, "core")                                                                 \
    X(program_cache, "core")                                                                       \
    X(chain_runner, "core")                                                                        \
    X(known_answers, "core")                                                                       \
    X(stage_formats, "core")                                                                       \
    X(stage_roundtrip, "core")                                                                     \
    X(stage_graph, "core")                                                                         \
    X(stage_overlay_yuv, "core io")                                                                \
    X(stage_fields, "core")                                                                        \
    X(stage_switch_chain, "core")                                                                  \
    X(stage_resize, "core")                                                                        \
    X(stage_bad_size, "core")                                                                      \
    X(stage_orientation, "core")                                                                   \
    X(stage_devices, "core devices")                                                               \
    X(stage_params_devices, "core devices")                                                        \
    X(stage_blocks, "core")                                                                        \
    X(stage_blocks_deep, "core")                                                                   \
    X(stage_blocks_packed, "core")                                                                 \
    X(stage_blocks_copied, "core devices")                                                         \
    X(stage_fused, "core")                                                                         \
    X(filter_convolution, "core filter")                                                           \
    X(filter_sharpen_emboss, "core filter")                                                        \
    X(filter_prewitt, "core filter")                                                               \
    X(filter_median, "core filter")                                                                \
    X(filter_morph, "core filter")                                                                 \
    X(filter_point, "core filter")                                                                 \
    X(filter_equalize, "core filter")                                                              \
    X(filter_noise, "core filter")                                                                 \
    X(filter_quantize, "core filter")                                                              \
    X(filter_scale, "core filter")                                                                 \
    X(scale_sizes, "core unit")                                                                    \
    X(filter_rotate, "core filter")                                                                \
    X(filter_tonemap, "core filter")                                                               \
    X(filter_gblur, "core filter")                                                                 \
    X(filter_boxblur, "core filter")                                                               \
    X(filter_unsharp, "core filter")                                                               \
    X(filter_geometry, "core filter")                                                              \
    X(filter_pass, "core filter")                                                                  \
    X(filter_channels, "core filter")                                                              \
    X(filter_draw, "core filter")                                                                  \
    X(filter_lut, "core filter")                                                                   \
    X(filter_eq, "core filter")                                                                    \
    X(filter_hue, "core filter")                                                                   \
    X(filter_colorkey, "core filter")                                                              \
    X(filter_chromakey, "core filter")                                                             \
    X(filter_despill, "core filter")                                                               \
    X(filter_lumakey, "core filter")                                                               \
    X(filter_colorbalance, "core filter")                                                          \
    X(filter_vignette, "core filter")                                                              \
    X(filter_edges, "core filter")                                                                 \
    X(filter_curves, "core filter")                                                                \
    X(filter_lut3d, "core filter")                                                                 \
    X(filter_deband, "core filter")                                                                \
    X(filter_hqdn3d, "core filter")                                                                \
    X(filter_enable, "core filter")                                                                \
    X(filter_yadif, "core filter")                                                                 \
    X(filter_bwdif, "core filter")                                                                 \
    X(filter_bilateral, "core filter")                                                             \
    X(filter_nlmeans, "core filter")                                                               \
    X(geometry_sizes, "core unit")                                                                 \
    X(filter_cases, "core unit")                                                                   \
    X(user_kernels, "core")                                                                        \
    X(user_in_chain, "core")                                                                       \
    X(user_errors, "core unit")                                                                    \
    X(user_reload, "core unit")                                                                    \
    X(graph_parse, "core unit")                                                                    \
    X(graph_errors, "core unit")                                                                   \
    X(graph_sizes, "core unit")                                                                    \
    X(graph_sync, "core unit")                                                                     \
    X(graph_filters, "core filter")                                                                \
    X(graph_run, "core unit")                                                                      \
    X(gpu_filters, "gpu")

#define TEST_DECLARE(name, labels) int test_##name(void);
TEST_LIST(TEST_DECLARE)
#undef TEST_DECLARE

/* OPAQUE: noise with alpha 255 everywhere, as decoded video; OPAQUE_BUT_ONE:
 * the same with alpha 254 in the middle of the last row (filters that skip
 * reading alpha when a frame is opaque must notice the one pixel). */
enum content {
    CONTENT_NOISE,
    CONTENT_FLAT,
    CONTENT_SATURATED,
    CONTENT_GRADIENT,
    CONTENT_OPAQUE,
    CONTENT_OPAQUE_BUT_ONE
};

/* Fills img with content from a seeded generator. */
void test_fill(clv_image *img, enum content content, uint32_t seed);
const char *test_content_name(enum content content);

/* Opens the default device (CLVID_DEVICE honoured) in the given shape
 * (0 natural, 1 row, 2 gpu); NULL with a message on failure. */
/* CLVID_DEVICE, or NULL for the library's default. */
const char *test_device(void);
clv_context *test_context(int shape);
clv_context *test_context_on(const char *device, int shape);

/* A chain on the device and its reference, with frames and images of one
 * size: in is the input, got the device's output, want the reference's. */
typedef struct test_rig {
    clv_context *ctx;
    clv_chain *chain;
    clv_ref_chain *ref;
    clv_frame src, dst;
    clv_image in, got, want;
} test_rig;

/* Builds chain_text on ctx and ref_text (NULL: the same) as reference.
 * On failure msg says why; test_rig_close cleans up either way. */
int test_rig_open(test_rig *rig, clv_context *ctx, const char *chain_text, const char *ref_text,
                  int w, int h, clv_msg *msg);
/* Uploads in, runs both for frame index `frame`, downloads into got and
 * want. Returns an error code (not a comparison). */
int test_rig_run(test_rig *rig, uint64_t frame, clv_msg *msg);
/* The same at depth 8 or 16 (frames, images and the chain). */
int test_rig_open_depth(test_rig *rig, clv_context *ctx, const char *chain_text,
                        const char *ref_text, int w, int h, int depth, clv_msg *msg);
/* Says what the input's pixels mean (in's transfer, primaries, peak and
 * aspect; its size is the rig's) to the chain and to the reference. */
/* The device's side of test_rig_run alone: in to got. */
int test_rig_run_device(test_rig *rig, uint64_t frame, clv_msg *msg);
int test_rig_set_input(test_rig *rig, const clv_size *in, clv_msg *msg);
/* 1 when got equals want byte for byte. */
int test_rig_equal(const test_rig *rig);
void test_rig_close(test_rig *rig);

/* Runs `chain` for `frames` frames on the device and with the references
 * on the same w x h content and checks every frame is equal bit for bit.
 * Returns the number of mismatching frames (also counted as failures). */
int test_compare(clv_context *ctx, const char *chain, int w, int h, enum content content,
                 int frames);
/* The same at depth 8 or 16 (content filled at that depth). */
int test_compare_depth(clv_context *ctx, const char *chain, int w, int h, enum content content,
                       int frames, int depth);
/* While on, test_compare_depth keeps the C reference's frames of each
 * comparison and a repeat of it (the same chain, size, content, frames and
 * depth in another shape or context) compares with those instead of running
 * the reference again: the references are most of the filter tests' time.
 * Turning it on or off forgets what was kept. */
void test_keep_references(int on);
/* While on: the `size` bytes kept under key, *complete pointing at whether
 * a run wrote all of them (the caller sets it); a new entry when the key is
 * new. NULL while off or short of memory. */
uint8_t *test_kept(const char *key, size_t size, int **complete);
/* A new image of src's size and depth with its pixels; 0 or an error. */
int test_image_copy(clv_image *dst, const clv_image *src);

/* Channel c of pixel (x, y) of img at its depth. */
static inline int clv_test_get(const clv_image *img, int x, int y, int c)
{
    const uint8_t *row = img->pixels + (size_t)y * img->stride;
    return img->depth == 16 ? ((const uint16_t *)(const void *)row)[4 * x + c] : row[4 * x + c];
}

#endif
