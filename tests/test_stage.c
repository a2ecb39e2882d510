/* test_stage.c - the GPU stage: every input and output layout, conversions
 * equal to their C references, several frames in flight in order, and YUV
 * round trips of flat colours within one code. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void fill_bytes(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        p[i] = (uint8_t)(s >> 24);
    }
}

/* The reference of the stage: convert in, run the chain, convert out. */
static int reference(clv_pixfmt in_f, clv_color in_c, clv_pixfmt out_f, clv_color out_c,
                     clv_ref_chain *ref, const uint8_t *in, int w, int h, uint64_t frame,
                     uint8_t *out)
{
    clv_image a = {0}, b = {0};
    int err = clv_image_alloc(&a, w, h);
    if (!err)
        err = clv_image_alloc(&b, w, h);
    if (!err)
        err = clv_ref_to_rgba(in_f, in_c, in, &a);
    if (!err)
        err = clv_ref_chain_run(ref, &a, &b, frame);
    if (!err)
        err = clv_ref_from_rgba(out_f, out_c, &b, out);
    clv_image_free(&a);
    clv_image_free(&b);
    return err;
}

static void run_case(clv_context *ctx, clv_pixfmt in_f, clv_pixfmt out_f, clv_color in_c,
                     clv_color out_c, const char *chain_text, int w, int h, int frames)
{
    clv_msg msg = {{0}};
    clv_chain_desc desc;
    clv_chain *chain = NULL;
    clv_ref_chain *ref = NULL;
    clv_stage *stage = NULL;
    char what[300];
    snprintf(what, sizeof what, "%s -> '%s' -> %s, %dx%d, %s shape", clv_pixfmt_name(in_f),
             chain_text, clv_pixfmt_name(out_f), w, h, clv_context_row_shape(ctx) ? "row" : "gpu");
    size_t in_size = clv_pixfmt_size(in_f, w, h), out_size = clv_pixfmt_size(out_f, w, h);
    uint8_t *inputs = malloc(in_size * (size_t)frames), *want = malloc(out_size);
    clv_stage_options opt = {.width = w,
                             .height = h,
                             .in_format = in_f,
                             .out_format = out_f,
                             .in_color = in_c,
                             .out_color = out_c,
                             .slots = 3,
                             .profiling = 1};
    if (!inputs || !want || clv_chain_parse(chain_text, &desc, &msg) ||
        clv_chain_create(ctx, &desc, &chain, &msg) || clv_ref_chain_create(&desc, &ref) ||
        clv_stage_create(ctx, &opt, chain, &stage, &msg)) {
        CHECK(0, "%s: setup: %s", what, msg.text);
        goto done;
    }
    /* Keep the slots full: submit while there is room, take the oldest. */
    int submitted = 0, taken = 0;
    while (taken < frames) {
        uint8_t *slot;
        while (submitted < frames && (slot = clv_stage_input(stage))) {
            uint8_t *in = inputs + in_size * (size_t)submitted;
            fill_bytes(in, in_size, (uint32_t)(submitted * 977 + w * 13 + h + in_f * 7 + out_f));
            memcpy(slot, in, in_size);
            if (clv_stage_submit(stage, (uint64_t)submitted, &msg)) {
                CHECK(0, "%s: submit: %s", what, msg.text);
                goto done;
            }
            submitted++;
        }
        CHECK(clv_stage_pending(stage) >= 1 && clv_stage_pending(stage) <= 3, "pending %d",
              clv_stage_pending(stage));
        const uint8_t *got;
        uint64_t index = 99;
        if (clv_stage_output(stage, &got, &index, &msg)) {
            CHECK(0, "%s: output: %s", what, msg.text);
            goto done;
        }
        CHECK(index == (uint64_t)taken, "%s: frame %llu came out as #%d", what,
              (unsigned long long)index, taken);
        reference(in_f, in_c, out_f, out_c, ref, inputs + in_size * (size_t)taken, w, h, index,
                  want);
        size_t diff = 0;
        while (diff < out_size && got[diff] == want[diff])
            diff++;
        CHECK(diff == out_size, "%s frame %d: byte %zu is %d, reference %d", what, taken, diff,
              diff < out_size ? got[diff] : 0, diff < out_size ? want[diff] : 0);
        clv_stage_release(stage);
        taken++;
    }
    clv_stage_times t;
    clv_stage_get_times(stage, &t);
    CHECK(t.frames == (uint64_t)frames, "%s: %llu frames counted", what,
          (unsigned long long)t.frames);
done:
    clv_stage_destroy(stage);
    clv_chain_destroy(chain);
    clv_ref_chain_destroy(ref);
    free(inputs);
    free(want);
}

int test_stage_formats(void)
{
    static const clv_pixfmt formats[] = {CLV_PIX_RGBA,    CLV_PIX_BGRA,  CLV_PIX_RGB0,
                                         CLV_PIX_BGR0,    CLV_PIX_RGB24, CLV_PIX_BGR24,
                                         CLV_PIX_YUV420P, CLV_PIX_NV12};
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}};
    clv_color bt601 = {CLV_MATRIX_BT601, 0}, bt709f = {CLV_MATRIX_BT709, 1},
              bt2020 = {CLV_MATRIX_BT2020, 0};
    for (int shape = 1; shape <= 2; shape++) {
        clv_context_options o = {.shape = shape, .profiling = 1};
        clv_context *ctx = NULL;
        clv_msg msg = {{0}};
        if (clv_context_create(&o, &ctx, &msg)) {
            CHECK(0, "%s", msg.text);
            return 1;
        }
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++)
                for (int s = 0; s < 4; s++)
                    run_case(ctx, formats[i], formats[j], bt601, bt709f, s == 3 ? "median" : "",
                             sizes[s][0], sizes[s][1], s == 3 ? 2 : 4);
        run_case(ctx, CLV_PIX_YUV420P, CLV_PIX_YUV420P, bt2020, bt2020, "sharpen,noise", 33, 17, 7);
        run_case(ctx, CLV_PIX_NV12, CLV_PIX_RGB24, bt709f, bt601, "quantize=colors=4", 64, 36, 5);
        clv_context_destroy(ctx);
    }
    return 0;
}

/* A flat colour through yuv -> RGBA -> yuv lands within one code, for each
 * matrix and range (chroma extremes excepted where RGB clips). */
int test_stage_roundtrip(void)
{
    clv_context *ctx = test_context(0);
    if (!ctx)
        return 1;
    int w = 8, h = 6, worst = 0;
    size_t n = clv_pixfmt_size(CLV_PIX_YUV420P, w, h);
    uint8_t *in = malloc(n), *out = malloc(n);
    for (int m = 0; m < 3; m++) {
        for (int full = 0; full <= 1; full++) {
            clv_color c = {(clv_matrix)m, full};
            clv_image rgba = {0};
            clv_image_alloc(&rgba, w, h);
            for (int yv = 16; yv <= 235; yv += 17)
                for (int u = 64; u <= 192; u += 16)
                    for (int v = 64; v <= 192; v += 16) {
                        memset(in, yv, (size_t)w * h);
                        memset(in + w * h, u, (size_t)(w / 2) * (h / 2));
                        memset(in + w * h + (w / 2) * (h / 2), v, (size_t)(w / 2) * (h / 2));
                        clv_ref_to_rgba(CLV_PIX_YUV420P, c, in, &rgba);
                        /* Skip colours outside the RGB cube: they clip. */
                        int clipped = 0;
                        for (int k = 0; k < 3; k++)
                            clipped |= rgba.pixels[k] == 0 || rgba.pixels[k] == 255;
                        if (clipped)
                            continue;
                        clv_ref_from_rgba(CLV_PIX_YUV420P, c, &rgba, out);
                        for (size_t k = 0; k < n; k++) {
                            int d = abs((int)out[k] - (int)in[k]);
                            worst = d > worst ? d : worst;
                        }
                    }
            clv_image_free(&rgba);
        }
    }
    CHECK(worst <= 1, "a flat colour moved by %d codes in a YUV round trip", worst);
    printf("  largest round-trip error of flat colours: %d code(s)\n", worst);
    free(in);
    free(out);
    clv_context_destroy(ctx);
    return 0;
}

/* Switching chains between submits: frames in flight keep the chain they
 * were sent with, the next frame takes the new one, and an empty chain on
 * an RGBA stage becomes a plain copy. */
int test_stage_switch_chain(void)
{
    clv_context *ctx = test_context(0);
    if (!ctx)
        return 1;
    static const char *texts[] = {"sharpen", "median", "", "threshold=t=90,erode"};
    enum { N = 4, W = 37, H = 21, FRAMES = 12 };
    clv_msg msg = {{0}};
    clv_chain *chains[N] = {0};
    clv_ref_chain *refs[N] = {0};
    clv_stage *stage = NULL;
    size_t size = clv_pixfmt_size(CLV_PIX_RGBA, W, H);
    uint8_t *inputs = malloc(size * FRAMES), *want = malloc(size);
    clv_color c = {CLV_MATRIX_BT601, 0};
    clv_stage_options opt = {.width = W,
                             .height = H,
                             .in_format = CLV_PIX_RGBA,
                             .out_format = CLV_PIX_RGBA,
                             .in_color = c,
                             .out_color = c,
                             .slots = 3};
    for (int i = 0; i < N; i++) {
        clv_chain_desc desc;
        if (clv_chain_parse(texts[i], &desc, &msg) ||
            clv_chain_create(ctx, &desc, &chains[i], &msg) ||
            clv_ref_chain_create(&desc, &refs[i])) {
            CHECK(0, "setup '%s': %s", texts[i], msg.text);
            goto done;
        }
    }
    if (!inputs || !want || clv_stage_create(ctx, &opt, chains[0], &stage, &msg)) {
        CHECK(0, "stage: %s", msg.text);
        goto done;
    }
    int used[FRAMES], submitted = 0, taken = 0;
    while (taken < FRAMES) {
        uint8_t *slot;
        while (submitted < FRAMES && (slot = clv_stage_input(stage))) {
            /* A new chain every third frame, while others are in flight. */
            used[submitted] = (submitted / 3) % N;
            clv_stage_set_chain(stage, chains[used[submitted]]);
            fill_bytes(inputs + size * (size_t)submitted, size, (uint32_t)submitted + 5);
            memcpy(slot, inputs + size * (size_t)submitted, size);
            if (clv_stage_submit(stage, (uint64_t)submitted, &msg)) {
                CHECK(0, "submit: %s", msg.text);
                goto done;
            }
            submitted++;
        }
        const uint8_t *got;
        uint64_t index;
        if (clv_stage_output(stage, &got, &index, &msg)) {
            CHECK(0, "output: %s", msg.text);
            goto done;
        }
        reference(CLV_PIX_RGBA, c, CLV_PIX_RGBA, c, refs[used[taken]],
                  inputs + size * (size_t)taken, W, H, index, want);
        CHECK(!memcmp(got, want, size), "frame %d ('%s') differs from its chain's reference", taken,
              texts[used[taken]]);
        clv_stage_release(stage);
        taken++;
    }
done:
    clv_stage_destroy(stage);
    for (int i = 0; i < N; i++) {
        clv_chain_destroy(chains[i]);
        clv_ref_chain_destroy(refs[i]);
    }
    free(inputs);
    free(want);
    clv_context_destroy(ctx);
    return 0;
}
