/* fuzz_decode.c - libFuzzer target for decode + filter: the bytes are a
 * media file; its first frames go through the feed and the GPU stage
 * (median,sharpen) and must equal the C reference of the same, bit for
 * bit. Damaged input may fail with a message but never crash or hang. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../src/io/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static clv_context *ctx;
static clv_chain *chain;
static clv_chain_desc *desc = NULL;

static int setup(void)
{
    clv_msg msg = {{0}};
    av_log_set_level(AV_LOG_QUIET);
    clv_context_options o = {.struct_size = sizeof(clv_context_options)};
    if (clv_context_create(&o, &ctx, &msg) || clv_chain_parse("median,sharpen", &desc, &msg) ||
        clv_chain_create(ctx, desc, &chain, &msg)) {
        fprintf(stderr, "fuzz_decode: %s\n", msg.text);
        abort();
    }
    return 0;
}

/* Runs the decoded frames through the stage and the reference. */
static void filter(clv_decoder *dec, clv_queue *q)
{
    clv_msg msg = {{0}};
    clv_feed *feed = NULL;
    clv_stage *stage = NULL;
    clv_ref_chain *ref = NULL;
    clv_image a = {0}, b = {0};
    const clv_media_desc *in = clv_decoder_media(dec);
    int w = in->width, h = in->height;
    if ((int64_t)w * h > 256 * 256 || clv_feed_create(in, 8, &feed, &msg))
        goto done;
    clv_stage_options so = {.struct_size = sizeof(clv_stage_options),
                            .width = w,
                            .height = h,
                            .in_format = clv_feed_format(feed),
                            .out_format = CLV_PIX_RGBA,
                            .in_color = clv_feed_color(feed),
                            .out_color = clv_feed_color(feed),
                            .slots = 2};
    if (clv_stage_create(ctx, &so, chain, &stage, &msg) || clv_ref_chain_create(desc, &ref) ||
        clv_image_alloc(&a, w, h) || clv_image_alloc(&b, w, h))
        goto done;
    size_t in_size = clv_pixfmt_size(so.in_format, w, h);
    uint8_t *copy = malloc(in_size);
    for (int n = 0; copy && n < 3; n++) {
        int kind;
        void *item;
        if (clv_queue_pop(q, &kind, &item) < 0 || kind == CLV_ITEM_END)
            break;
        if (kind != CLV_ITEM_FRAME) {
            clv_item_free(kind, item);
            continue;
        }
        AVFrame *f = item;
        int err = clv_feed_write(feed, f, clv_stage_input(stage), &msg);
        av_frame_free(&f);
        if (err)
            break; /* the size changed mid-stream: refused with a message */
        memcpy(copy, clv_stage_input(stage), in_size);
        const uint8_t *out;
        if (clv_stage_submit(stage, (uint64_t)n, &msg) ||
            clv_stage_output(stage, &out, NULL, &msg)) {
            fprintf(stderr, "fuzz_decode: stage: %s\n", msg.text);
            abort();
        }
        clv_ref_to_rgba(so.in_format, so.in_color, copy, &a);
        clv_ref_chain_run(ref, &a, &b, (uint64_t)n);
        if (memcmp(out, b.pixels, (size_t)w * (size_t)h * 4) != 0) {
            fprintf(stderr, "fuzz_decode: %dx%d %s frame %d differs from the reference\n", w, h,
                    clv_pixfmt_name(so.in_format), n);
            abort();
        }
        clv_stage_release(stage);
    }
    free(copy);
done:
    clv_image_free(&a);
    clv_image_free(&b);
    clv_ref_chain_destroy(ref);
    clv_stage_destroy(stage);
    clv_feed_destroy(feed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready)
        ready = !setup();
    int fd = memfd_create("fuzz", 0);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    clv_input_options in = {.path = path, .max_frames = 3};
    clv_decoder *dec = NULL;
    clv_msg msg = {{0}};
    if (clv_decoder_open(&in, &dec, &msg) == 0) {
        clv_queue *q = clv_queue_create(4);
        if (q && clv_decoder_start(dec, q, NULL) == 0)
            filter(dec, q);
        if (q)
            clv_queue_abort(q);
        clv_decoder_close(dec);
        clv_queue_destroy(q);
    } else if (!msg.text[0]) {
        fprintf(stderr, "fuzz_decode: refused without a message\n");
        abort();
    }
    close(fd);
    return 0;
}
