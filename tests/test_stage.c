/* test_stage.c - the GPU stage: every input and output layout, conversions
 * equal to their C references, several frames in flight in order, and YUV
 * round trips of flat colours within one code. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph.h"
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

/* The stage converts 4:2:0 field by field before a chain that starts with
 * a deinterlacer (run_case sets it from its chain). */
static int convert_fields;

/* The reference of the stage: convert in, run the chain, convert out. */
static int reference_sized(clv_pixfmt in_f, clv_color in_c, clv_pixfmt out_f, clv_color out_c,
                           clv_ref_chain *ref, const uint8_t *in, int w, int h, int ow, int oh,
                           uint64_t frame, uint8_t *out)
{
    clv_image a = {0}, b = {0};
    int depth = clv_pixfmt_depth(in_f);
    int err = clv_image_alloc_depth(&a, w, h, depth);
    if (!err)
        err = clv_image_alloc_depth(&b, ow, oh, depth);
    if (!err)
        err = clv_ref_to_rgba_fields(in_f, in_c, convert_fields, in, &a);
    if (!err)
        err = clv_ref_chain_run(ref, &a, &b, frame);
    if (!err)
        err = clv_ref_from_rgba(out_f, out_c, &b, out);
    clv_image_free(&a);
    clv_image_free(&b);
    return err;
}

/* The same for a chain that keeps the size. */
static int reference(clv_pixfmt in_f, clv_color in_c, clv_pixfmt out_f, clv_color out_c,
                     clv_ref_chain *ref, const uint8_t *in, int w, int h, uint64_t frame,
                     uint8_t *out)
{
    return reference_sized(in_f, in_c, out_f, out_c, ref, in, w, h, w, h, frame, out);
}

/* What run_case's 4:2:0 frames show: noise (0), a low-contrast gradient
 * with faint colour (1), one flat colour (2); and how many of its frames
 * the stage ran fused (clv_stage_fused_frames). */
static int picture;
static uint64_t last_fused;
/* Per-filter timing for run_case's chain (the transcode turns it off). */
static int filter_timing = 1;

static void fill_picture(uint8_t *p, clv_pixfmt f, int w, int h, uint32_t seed)
{
    size_t n = clv_pixfmt_size(f, w, h), luma = (size_t)w * (size_t)h;
    if (picture == 0 || !clv_pixfmt_is_yuv(f)) {
        fill_bytes(p, n, seed);
        return;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            p[(size_t)y * w + x] =
                (uint8_t)(picture == 2 ? 70 + (int)(seed % 50)
                                       : 96 + (x + 2 * y + (int)(seed % 24)) % 24);
    for (size_t i = luma; i < n; i++)
        p[i] = (uint8_t)(picture == 2 ? 120 + seed % 7 : 124 + (i * 7 + seed) % 9);
}

/* Several devices: a fault to inject into the next run_case, and what its
 * stage said about its devices, or the error it stopped with, at the end. */
static int fault_device[2] = {-1, -1};
static uint64_t fault_frames[2];
static clv_stage_device last_stats[CLV_DEVICES_MAX];
static clv_msg last_error;
/* Which devices of a several-device context share staging (bit d: device
 * d; test_stage_devices sets it), or -1: one device, the context says.
 * clv_stage_keep gives a frame either way (shared or pinned memory). */
static int sharing_devices = -1;

static void run_case(clv_context *ctx, clv_pixfmt in_f, clv_pixfmt out_f, clv_color in_c,
                     clv_color out_c, const char *chain_text, int w, int h, int frames)
{
    clv_msg msg = {{0}};
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    clv_ref_chain *ref = NULL;
    clv_stage *stage = NULL;
    char what[300];
    snprintf(what, sizeof what, "%s -> '%s' -> %s, %dx%d, %s shape, %s staging",
             clv_pixfmt_name(in_f), chain_text, clv_pixfmt_name(out_f), w, h,
             clv_context_row_shape(ctx) ? "row" : "gpu",
             clv_context_shared_staging(ctx) ? "shared" : "copied");
    /* The output is of the chain's size (transpose turns it). */
    clv_size in_sz = {w, h, 0, 1, 0, 0, 0}, out_sz = in_sz;
    clv_chain_desc *probe = NULL;
    if (!clv_chain_parse(chain_text, &probe, NULL))
        clv_chain_desc_output_size(probe, &in_sz, &out_sz, NULL);
    clv_chain_desc_destroy(probe);
    const int ow = out_sz.width, oh = out_sz.height;
    size_t in_size = clv_pixfmt_size(in_f, w, h), out_size = clv_pixfmt_size(out_f, ow, oh);
    uint8_t *inputs = malloc(in_size * (size_t)frames), *want = malloc(out_size);
    /* Every other frame is kept (clv_stage_keep) past its release and
     * checked again after the later frames went through the slots; half of
     * them are freed after the stage. */
    int shared = clv_context_shared_staging(ctx), kept_count = 0, freed = 0;
    /* Several devices: "shared" when every device shares (the message's). */
    const int every = (1 << clv_context_device_count(ctx)) - 1;
    if (sharing_devices >= 0)
        shared = sharing_devices == every;
    clv_block **kept = calloc((size_t)frames, sizeof *kept);
    const uint8_t **kept_at = calloc((size_t)frames, sizeof *kept_at);
    uint8_t *kept_want = malloc(out_size * (size_t)frames);
    clv_stage_options opt = {.struct_size = sizeof(clv_stage_options),
                             .width = w,
                             .height = h,
                             .in_format = in_f,
                             .out_format = out_f,
                             .in_color = in_c,
                             .out_color = out_c,
                             .slots = 3,
                             .profiling = 1};
    if (!inputs || !want || !kept || !kept_at || !kept_want ||
        clv_chain_parse(chain_text, &desc, &msg) ||
        /* the stage passes every frame on: fps's are picked by a caller */
        (clv_chain_desc_take_fps(desc),
         clv_chain_create_depth(ctx, desc, clv_pixfmt_depth(in_f), &chain, &msg)) ||
        clv_ref_chain_create(desc, &ref) || clv_stage_create(ctx, &opt, chain, &stage, &msg)) {
        CHECK(0, "%s: setup: %s", what, msg.text);
        goto done;
    }
    clv_chain_desc *first = clv_chain_desc_slice(desc, 0, 1);
    int delay = 0, rate = 1;
    if (first)
        clv_chain_desc_cadence(first, &delay, &rate, NULL);
    clv_chain_desc_destroy(first);
    convert_fields = delay > 0;
    clv_chain_set_filter_timing(chain, filter_timing);
    for (int i = 0; i < 2; i++)
        if (fault_device[i] >= 0)
            clv_stage_inject_fault(stage, fault_device[i], fault_frames[i]);
    last_error.text[0] = 0;
    char key[400];
    snprintf(key, sizeof key, "%d %d %d %d %d %d|%s|%dx%d %d %d", (int)in_f, (int)in_c.matrix,
             in_c.full_range, (int)out_f, (int)out_c.matrix, out_c.full_range, chain_text, w, h,
             frames, picture);
    /* stage_formats and stage_fused run the same sequences in several
     * contexts: their references are kept (test_keep_references). */
    int *complete = NULL;
    uint8_t *kept_out = test_kept(key, out_size * (size_t)frames, &complete);
    const int known = kept_out && *complete;
    /* Keep the slots full: submit while there is room, take the oldest. */
    int submitted = 0, taken = 0;
    while (taken < frames) {
        uint8_t *slot;
        while (submitted < frames && (slot = clv_stage_input(stage))) {
            uint8_t *in = inputs + in_size * (size_t)submitted;
            fill_picture(in, in_f, w, h,
                         (uint32_t)(submitted * 977 + w * 13 + h + in_f * 7 + out_f));
            memcpy(slot, in, in_size);
            if (clv_stage_submit(stage, (uint64_t)submitted, &msg)) {
                CHECK(0, "%s: submit: %s", what, msg.text);
                goto done;
            }
            submitted++;
        }
        CHECK(clv_stage_pending(stage) >= 1 &&
                  clv_stage_pending(stage) <= 3 * clv_stage_device_count(stage),
              "pending %d", clv_stage_pending(stage));
        const uint8_t *got;
        uint64_t index = 99;
        if (clv_stage_output(stage, &got, &index, &msg)) {
            last_error = msg;
            CHECK(fault_device[1] >= 0, "%s: output: %s", what, msg.text);
            goto done;
        }
        CHECK(index == (uint64_t)taken, "%s: frame %llu came out as #%d", what,
              (unsigned long long)index, taken);
        if (known) {
            memcpy(want, kept_out + out_size * (size_t)taken, out_size);
        } else {
            reference_sized(in_f, in_c, out_f, out_c, ref, inputs + in_size * (size_t)taken, w, h,
                            ow, oh, index, want);
            if (kept_out)
                memcpy(kept_out + out_size * (size_t)taken, want, out_size);
        }
        size_t diff = 0;
        while (diff < out_size && got[diff] == want[diff])
            diff++;
        CHECK(diff == out_size, "%s frame %d: byte %zu is %d, reference %d", what, taken, diff,
              diff < out_size ? got[diff] : 0, diff < out_size ? want[diff] : 0);
        if (taken % 2) {
            clv_block *k = clv_stage_keep(stage);
            /* Shared staging hands over the memory the kernels wrote,
             * copied staging the pinned memory the download landed in. */
            CHECK(k != NULL, "%s frame %d: clv_stage_keep gave NULL with %s staging", what, taken,
                  shared ? "shared" : "copied");
            if (k) {
                kept[kept_count] = k;
                kept_at[kept_count] = got;
                memcpy(kept_want + out_size * (size_t)kept_count++, want, out_size);
            }
        }
        clv_stage_release(stage);
        taken++;
    }
    if (kept_out)
        *complete = 1; /* every frame's reference is there */
    for (int i = 0; i < kept_count; i++)
        CHECK(!memcmp(kept_at[i], kept_want + out_size * (size_t)i, out_size),
              "%s: kept frame %d changed after later frames", what, 2 * i + 1);
    for (; freed < kept_count / 2; freed++)
        clv_block_free(kept[freed]);
    clv_stage_times t;
    clv_stage_get_times(stage, &t);
    CHECK(t.frames == (uint64_t)frames, "%s: %llu frames counted", what,
          (unsigned long long)t.frames);
    last_fused = clv_stage_fused_frames(stage);
done:
    convert_fields = 0;
    clv_chain_desc_destroy(desc);
    for (int d = 0; stage && d < CLV_DEVICES_MAX; d++)
        clv_stage_device_stats(stage, d, &last_stats[d]);
    clv_stage_destroy(stage);
    for (int i = freed; i < kept_count; i++) { /* the memory outlives the stage */
        CHECK(!memcmp(kept_at[i], kept_want + out_size * (size_t)i, out_size),
              "%s: kept frame %d changed when the stage was destroyed", what, 2 * i + 1);
        clv_block_free(kept[i]);
    }
    clv_chain_destroy(chain);
    clv_ref_chain_destroy(ref);
    free(inputs);
    free(want);
    free(kept);
    free(kept_at);
    free(kept_want);
}

static int stage_formats(void)
{
    static const clv_pixfmt formats[] = {CLV_PIX_RGBA,    CLV_PIX_BGRA,  CLV_PIX_RGB0,
                                         CLV_PIX_BGR0,    CLV_PIX_RGB24, CLV_PIX_BGR24,
                                         CLV_PIX_YUV420P, CLV_PIX_NV12};
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}};
    clv_color bt601 = {CLV_MATRIX_BT601, 0}, bt709f = {CLV_MATRIX_BT709, 1},
              bt2020 = {CLV_MATRIX_BT2020, 0};
    /* Both shapes, each with the staging the device takes (shared memory on
     * PoCL) and with copies (the discrete GPUs' path, tested on a CPU). */
    for (int run = 0; run < 4; run++) {
        int shape = 1 + run % 2, copies = run >= 2;
        clv_context_options o = {.struct_size = sizeof(clv_context_options),
                                 .shape = shape,
                                 .profiling = 1,
                                 .staging = copies};
        clv_context *ctx = NULL;
        clv_msg msg = {{0}};
        if (clv_context_create(&o, &ctx, &msg)) {
            CHECK(0, "%s", msg.text);
            return 1;
        }
        CHECK(!copies || !clv_context_shared_staging(ctx), "staging = 1 still shares memory");
        printf("  %s shape, %s staging\n", shape == 1 ? "row" : "gpu",
               clv_context_shared_staging(ctx) ? "shared" : "copied");
        /* Every pair of formats at the small sizes; at 641x359 (row slices,
         * odd plane sizes) each format in and out twice: the conversions in
         * and out are separate kernels around the median. The sanitizer
         * builds take 641x359 in the row shape alone, with both stagings,
         * each format in and out once (the host's side; the shapes differ
         * on the device). */
        const int sanitized = getenv("CLVID_SANITIZED") != NULL;
        int sizes_here = sanitized && shape == 2 ? 3 : 4;
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++)
                for (int s = 0; s < sizes_here; s++)
                    if (s < 3 || j == i || (j == (i + 3) % 8 && !sanitized))
                        run_case(ctx, formats[i], formats[j], bt601, bt709f, s == 3 ? "median" : "",
                                 sizes[s][0], sizes[s][1], s == 3 ? 2 : 4);
        run_case(ctx, CLV_PIX_YUV420P, CLV_PIX_YUV420P, bt2020, bt2020, "sharpen,noise", 33, 17, 7);
        run_case(ctx, CLV_PIX_NV12, CLV_PIX_RGB24, bt709f, bt601, "quantize=colors=4", 64, 36, 5);
        /* The formats of more than 8 bits run the chain at 16: each in,
         * to every format out (the 8-bit ones dithered), turned and not. */
        static const clv_pixfmt deep[] = {CLV_PIX_YUV420P10, CLV_PIX_P010, CLV_PIX_YUV444P16,
                                          CLV_PIX_RGBA64};
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 12; j++)
                for (int s = 0; s < sizes_here; s++) {
                    clv_pixfmt out = j < 4 ? deep[j] : formats[j - 4];
                    if (s == 3 && j != i && (j != 4 + (i + 3) % 8 || sanitized))
                        continue;
                    run_case(ctx, deep[i], out, s % 2 ? bt2020 : bt709f, s % 2 ? bt601 : bt2020,
                             s == 3   ? "hflip,vflip"
                             : s == 1 ? "hflip"
                                      : "",
                             sizes[s][0], sizes[s][1], s == 3 ? 2 : 3);
                }
        clv_context_destroy(ctx);
    }
    return 0;
}

/* Its contexts run the same sequences: their references are kept. */
int test_stage_formats(void)
{
    test_keep_references(1);
    int status = stage_formats();
    test_keep_references(0);
    return status;
}

static int deep_roundtrip(void);

/* A chain that starts with a deinterlacer: the stage converts 4:2:0 (8
 * and 10 bits, planar and nv12/p010) field by field, each row's chroma
 * from its own field, equal to clv_ref_to_rgba_fields on both shapes and
 * stagings at sizes where the last chroma row of a parity moves (heights
 * 1, 2, 6, 9, 10, 359); with the deinterlacer later in the chain, or
 * none, as the frame. And the reference keeps the fields apart: a frame
 * whose top field's chroma is one colour and bottom field's another
 * converts to rows of those two colours, alternating. */
int test_stage_fields(void)
{
    static const clv_pixfmt in[] = {CLV_PIX_YUV420P, CLV_PIX_NV12, CLV_PIX_YUV420P10, CLV_PIX_P010};
    static const int sizes[][2] = {{1, 1}, {3, 2}, {5, 6}, {17, 9}, {33, 10}, {641, 359}};
    clv_color bt709 = {CLV_MATRIX_BT709, 0};
    for (int run = 0; run < 4; run++) {
        int shape = 1 + run % 2, copies = run >= 2;
        clv_context_options o = {.struct_size = sizeof(clv_context_options),
                                 .shape = shape,
                                 .profiling = 1,
                                 .staging = copies};
        clv_context *ctx = NULL;
        clv_msg msg = {{0}};
        if (clv_context_create(&o, &ctx, &msg)) {
            CHECK(0, "%s", msg.text);
            return 1;
        }
        for (int i = 0; i < 4; i++)
            for (int s = 0; s < 6; s++) {
                if (sizes[s][0] > 100 && (i % 2) != run % 2)
                    continue; /* the large size: each format on two of the four runs */
                clv_pixfmt out =
                    clv_pixfmt_depth(in[i]) == 16 ? CLV_PIX_YUV420P10 : CLV_PIX_YUV420P;
                run_case(ctx, in[i], out, bt709, bt709, s % 2 ? "bwdif" : "yadif=send_frame,hflip",
                         sizes[s][0], sizes[s][1], 4);
                if (s == 3) /* not first: the frame's chroma */
                    run_case(ctx, in[i], out, bt709, bt709, "hflip,bwdif", sizes[s][0], sizes[s][1],
                             3);
            }
        clv_context_destroy(ctx);
    }
    /* Top field's chroma rows (even) one colour, the bottom's another. */
    const int w = 6, h = 10, cw = 3, ch = 5;
    uint8_t frame[6 * 10 + 2 * 3 * 5];
    memset(frame, 120, (size_t)w * h);
    for (int c = 0; c < ch; c++)
        for (int x = 0; x < cw; x++) {
            frame[w * h + c * cw + x] = c % 2 ? 200 : 60;           /* U */
            frame[w * h + cw * ch + c * cw + x] = c % 2 ? 70 : 190; /* V */
        }
    clv_image rgba = {0};
    clv_image_alloc(&rgba, w, h);
    for (int fields = 0; fields <= 1; fields++) {
        clv_ref_to_rgba_fields(CLV_PIX_YUV420P, bt709, fields, frame, &rgba);
#define PX(x, y) (rgba.pixels + (size_t)(y)*rgba.stride + 4 * (size_t)(x))
        int mixed = 0;
        for (int y = 2; y < h; y++)
            for (int x = 0; x < w; x++)
                mixed |= memcmp(PX(x, y), PX(x, y & 1), 4) != 0;
        CHECK(mixed == !fields, "fields %d: the rows of each field are %s", fields,
              mixed ? "not all one colour" : "all one colour (the frame's chroma mixes them)");
        CHECK((memcmp(PX(0, 0), PX(0, 1), 4) != 0) == fields, "fields %d: rows 0 and 1 %s", fields,
              fields ? "alike" : "differ");
#undef PX
    }
    clv_image_free(&rgba);
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
    return deep_roundtrip();
}

/* At 10 bits: flat colours through yuv420p10 -> RGBA16 -> yuv420p10 land
 * within one code; a flat 10-bit grey between two 8-bit codes comes out of
 * an 8-bit format dithered (its mean within 0.05 of the value, where
 * rounding would be half a code off); and a 10-bit ramp through the stage
 * and a 16-bit chain keeps its codes. */
static int deep_roundtrip(void)
{
    int w = 16, h = 16, worst = 0;
    size_t n = clv_pixfmt_size(CLV_PIX_YUV420P10, w, h);
    uint8_t *in = malloc(n), *out = malloc(n),
            *out8 = malloc(clv_pixfmt_size(CLV_PIX_YUV420P, w, h));
    clv_image rgba = {0};
    clv_image_alloc_depth(&rgba, w, h, 16);
    double worst_mean = 0;
    for (int m = 0; m < 3; m++) {
        for (int full = 0; full <= 1; full++) {
            clv_color c = {(clv_matrix)m, full};
            for (int yv = 64; yv <= 940; yv += 73)
                for (int u = 256; u <= 768; u += 64)
                    for (int v = 256; v <= 768; v += 64) {
                        for (size_t k = 0; k < n / 2; k++) {
                            int val = k < (size_t)(w * h)           ? yv
                                      : k < (size_t)(w * h * 5 / 4) ? u
                                                                    : v;
                            in[2 * k] = (uint8_t)val;
                            in[2 * k + 1] = (uint8_t)(val >> 8);
                        }
                        clv_ref_to_rgba(CLV_PIX_YUV420P10, c, in, &rgba);
                        const uint16_t *p = (const uint16_t *)(const void *)rgba.pixels;
                        if (p[0] == 0 || p[0] == 65535 || p[1] == 0 || p[1] == 65535 || p[2] == 0 ||
                            p[2] == 65535)
                            continue;
                        clv_ref_from_rgba(CLV_PIX_YUV420P10, c, &rgba, out);
                        for (size_t k = 0; k < n / 2; k++) {
                            int d = abs((out[2 * k] | out[2 * k + 1] << 8) -
                                        (in[2 * k] | in[2 * k + 1] << 8));
                            worst = d > worst ? d : worst;
                        }
                        if (u != 512 || v != 512 || full)
                            continue;
                        /* Grey: the 8-bit output's mean against the value. */
                        clv_ref_from_rgba(CLV_PIX_YUV420P, c, &rgba, out8);
                        double sum = 0;
                        for (int k = 0; k < w * h; k++)
                            sum += out8[k];
                        double d = fabs(sum / (w * h) - yv / 4.0);
                        worst_mean = d > worst_mean ? d : worst_mean;
                    }
        }
    }
    CHECK(worst <= 1, "a flat colour moved by %d codes in a 10-bit round trip", worst);
    CHECK(worst_mean <= 0.05, "a flat 10-bit grey's 8-bit mean is %.3f codes off: not dithered",
          worst_mean);
    printf("  10 bits: largest round-trip error %d code(s); dithered 8-bit means within %.3f\n",
           worst, worst_mean);
    clv_image_free(&rgba);
    free(in);
    free(out);
    free(out8);
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
    clv_stage_options opt = {.struct_size = sizeof(clv_stage_options),
                             .width = W,
                             .height = H,
                             .in_format = CLV_PIX_RGBA,
                             .out_format = CLV_PIX_RGBA,
                             .in_color = c,
                             .out_color = c,
                             .slots = 3};
    for (int i = 0; i < N; i++) {
        clv_chain_desc *desc = NULL;
        if (clv_chain_parse(texts[i], &desc, &msg) ||
            clv_chain_create(ctx, desc, &chains[i], &msg) || clv_ref_chain_create(desc, &refs[i])) {
            CHECK(0, "setup '%s': %s", texts[i], msg.text);
            clv_chain_desc_destroy(desc);
            goto done;
        }
        clv_chain_desc_destroy(desc);
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

/* The upright pixel (x, y) of a w x h picture mirrored (hflip) then turned
 * clockwise by rot degrees, in the source's coordinates: the definition,
 * written plainly. */
static void upright_source(int w, int h, int rot, int hflip, int x, int y, int *sx, int *sy)
{
    int ux = x, uy = y;
    if (rot == 90)
        ux = y, uy = h - 1 - x;
    else if (rot == 180)
        ux = w - 1 - x, uy = h - 1 - y;
    else if (rot == 270)
        ux = w - 1 - y, uy = x;
    *sx = hflip ? w - 1 - ux : ux;
    *sy = uy;
}

/* Orientation (rotation x mirror) before a chain: the output equals the
 * chain's reference on the picture turned upright by the definition above,
 * in both shapes, RGBA and yuv420p in, at awkward sizes. */
int test_stage_orientation(void)
{
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {64, 36}};
    static const char *const chains[] = {"", "emboss,noise=amount=0.3"};
    clv_msg msg = {{0}};
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (int rot = 0; rot < 360; rot += 90)
                for (int hflip = 0; hflip <= 1; hflip++)
                    for (int c = 0; c < 2; c++) {
                        int w = sizes[z][0], h = sizes[z][1];
                        int ow = rot % 180 ? h : w, oh = rot % 180 ? w : h;
                        clv_chain_desc *desc = NULL;
                        clv_chain_parse(chains[c], &desc, &msg);
                        clv_chain *chain = NULL;
                        clv_ref_chain *ref = NULL;
                        clv_stage *stage = NULL;
                        clv_image in = {0}, up = {0}, want = {0};
                        clv_image_alloc(&in, w, h);
                        clv_image_alloc(&up, ow, oh);
                        clv_image_alloc(&want, ow, oh);
                        test_fill(&in, CONTENT_NOISE, (unsigned)(z * 7 + rot + hflip));
                        for (int y = 0; y < oh; y++)
                            for (int x = 0; x < ow; x++) {
                                int sx, sy;
                                upright_source(w, h, rot, hflip, x, y, &sx, &sy);
                                memcpy(up.pixels + (size_t)y * up.stride + (size_t)x * 4,
                                       in.pixels + (size_t)sy * in.stride + (size_t)sx * 4, 4);
                            }
                        clv_stage_options o = {.struct_size = sizeof(clv_stage_options),
                                               .width = w,
                                               .height = h,
                                               .in_format = CLV_PIX_RGBA,
                                               .out_format = CLV_PIX_RGBA,
                                               .slots = 2,
                                               .rotation = rot,
                                               .hflip = hflip};
                        CHECK(clv_chain_create(ctx, desc, &chain, &msg) == 0, "%s", msg.text);
                        CHECK(clv_ref_chain_create(desc, &ref) == 0, "ref");
                        clv_chain_desc_destroy(desc);
                        CHECK(clv_stage_create(ctx, &o, chain, &stage, &msg) == 0, "%s", msg.text);
                        if (stage && chain && ref) {
                            int gw, gh;
                            clv_stage_output_size(stage, &gw, &gh);
                            CHECK(gw == ow && gh == oh, "size %dx%d, expected %dx%d", gw, gh, ow,
                                  oh);
                            for (int y = 0; y < h; y++)
                                memcpy(clv_stage_input(stage) + (size_t)y * w * 4,
                                       in.pixels + (size_t)y * in.stride, (size_t)w * 4);
                            const uint8_t *px;
                            uint64_t index;
                            CHECK(clv_stage_submit(stage, 5, &msg) == 0, "%s", msg.text);
                            CHECK(clv_stage_output(stage, &px, &index, &msg) == 0, "%s", msg.text);
                            clv_ref_chain_run(ref, &up, &want, 5);
                            int same = 1;
                            for (int y = 0; y < oh && same; y++)
                                same =
                                    !memcmp(px + (size_t)y * ow * 4,
                                            want.pixels + (size_t)y * want.stride, (size_t)ow * 4);
                            CHECK(same, "%dx%d rotation %d hflip %d chain '%s' shape %d differs", w,
                                  h, rot, hflip, chains[c], shape);
                            clv_stage_release(stage);
                        }
                        clv_stage_destroy(stage);
                        clv_chain_destroy(chain);
                        clv_ref_chain_destroy(ref);
                        clv_image_free(&in);
                        clv_image_free(&up);
                        clv_image_free(&want);
                    }
        /* yuv420p in and out, 90 degrees: the conversions take the two sizes. */
        {
            int w = 18, h = 10;
            clv_stage_options o = {.struct_size = sizeof(clv_stage_options),
                                   .width = w,
                                   .height = h,
                                   .in_format = CLV_PIX_YUV420P,
                                   .out_format = CLV_PIX_YUV420P,
                                   .slots = 2,
                                   .rotation = 90};
            clv_stage *stage = NULL;
            CHECK(clv_stage_create(ctx, &o, NULL, &stage, &msg) == 0, "%s", msg.text);
            if (stage) {
                uint8_t *inp = clv_stage_input(stage);
                for (size_t k = 0; k < clv_pixfmt_size(CLV_PIX_YUV420P, w, h); k++)
                    inp[k] = (uint8_t)(k < (size_t)w * h ? 16 + (k % (size_t)w) * 10 : 128);
                const uint8_t *px;
                uint64_t index;
                CHECK(clv_stage_submit(stage, 0, &msg) == 0, "%s", msg.text);
                CHECK(clv_stage_output(stage, &px, &index, &msg) == 0, "%s", msg.text);
                /* Luma grew along x in the source: upright (turned clockwise)
                 * it grows along y, the same along each row. */
                int ok = 1;
                for (int y = 0; y < w && ok; y++)
                    for (int x = 1; x < h; x++)
                        ok &= abs((int)px[y * h + x] - (int)px[y * h]) <= 1;
                for (int y = 1; y < w && ok; y++)
                    ok &= px[y * h] > px[(y - 1) * h];
                CHECK(ok, "yuv420p turned 90 degrees is not the source's columns as rows");
                clv_stage_release(stage);
            }
            clv_stage_destroy(stage);
        }
        CHECK(clv_stage_create(ctx,
                               &(clv_stage_options){.struct_size = sizeof(clv_stage_options),
                                                    .width = 4,
                                                    .height = 4,
                                                    .in_format = CLV_PIX_RGBA,
                                                    .out_format = CLV_PIX_RGBA,
                                                    .rotation = 45},
                               NULL, &(clv_stage *){NULL}, &msg) == CLV_EINVAL,
              "rotation 45 accepted");
        clv_context_destroy(ctx);
    }
    return 0;
}

/* Runs `frames` frames of w x h through chain_text on the stage of ctx (several
 * devices) and on the stage of its first device alone, and compares them
 * byte for byte: for user kernels, which have no C reference. */
static void run_pair(clv_context *ctx, const char *chain_text, int w, int h, int frames)
{
    clv_msg msg = {{0}};
    clv_chain_desc *desc = NULL;
    clv_chain *chain[2] = {0};
    clv_stage *stage[2] = {0};
    char index[16];
    snprintf(index, sizeof index, "%d", clv_context_device(ctx)->index);
    clv_context *one = test_context_on(index, 0);
    size_t size = clv_pixfmt_size(CLV_PIX_YUV420P, w, h);
    uint8_t *in = malloc(size);
    clv_color c = {CLV_MATRIX_BT709, 0};
    clv_stage_options o = {.struct_size = sizeof(clv_stage_options),
                           .width = w,
                           .height = h,
                           .in_format = CLV_PIX_YUV420P,
                           .out_format = CLV_PIX_YUV420P,
                           .in_color = c,
                           .out_color = c};
    CHECK(one && clv_context_device_count(one) == 1, "the first device alone");
    for (int i = 0; i < 2; i++)
        if (!in || !one || (!desc && clv_chain_parse(chain_text, &desc, &msg)) ||
            clv_chain_create(i ? one : ctx, desc, &chain[i], &msg) ||
            clv_stage_create(i ? one : ctx, &o, chain[i], &stage[i], &msg)) {
            CHECK(0, "'%s': setup: %s", chain_text, msg.text);
            goto done;
        }
    for (int f = 0; f < frames; f++) {
        fill_bytes(in, size, (uint32_t)f * 31 + 7);
        /* The several-device stage keeps frames in flight; the one-device
         * stage is taken frame by frame: the same frames must come out. */
        memcpy(clv_stage_input(stage[0]), in, size);
        memcpy(clv_stage_input(stage[1]), in, size);
        if (clv_stage_submit(stage[0], (uint64_t)f, &msg) ||
            clv_stage_submit(stage[1], (uint64_t)f, &msg)) {
            CHECK(0, "'%s': submit: %s", chain_text, msg.text);
            goto done;
        }
        const uint8_t *a, *b;
        uint64_t ia, ib;
        if (clv_stage_output(stage[0], &a, &ia, &msg) ||
            clv_stage_output(stage[1], &b, &ib, &msg)) {
            CHECK(0, "'%s': output: %s", chain_text, msg.text);
            goto done;
        }
        CHECK(ia == ib && !memcmp(a, b, size),
              "'%s' %dx%d frame %d: several devices differ from one", chain_text, w, h, f);
        clv_stage_release(stage[0]);
        clv_stage_release(stage[1]);
    }
done:
    clv_chain_desc_destroy(desc);
    for (int d = 0; stage[0] && d < CLV_DEVICES_MAX; d++)
        clv_stage_device_stats(stage[0], d, &last_stats[d]);
    for (int i = 0; i < 2; i++) {
        clv_stage_destroy(stage[i]);
        clv_chain_destroy(chain[i]);
    }
    clv_context_destroy(one);
    free(in);
}

/* The fault cases' stage: sharpen, w x h yuv420p both ways, 3 slots. */
typedef struct fault_stage {
    clv_chain_desc *desc;
    clv_chain *chain;
    clv_stage *stage;
} fault_stage;

/* The stage, or NULL (a failed check naming `what`); close f either way. */
static clv_stage *fault_stage_open(clv_context *ctx, int w, int h, fault_stage *f, const char *what)
{
    clv_msg msg = {{0}};
    clv_stage_options o = {.struct_size = sizeof(clv_stage_options),
                           .width = w,
                           .height = h,
                           .in_format = CLV_PIX_YUV420P,
                           .out_format = CLV_PIX_YUV420P,
                           .in_color = {CLV_MATRIX_BT709, 0},
                           .out_color = {CLV_MATRIX_BT709, 0},
                           .slots = 3};
    *f = (fault_stage){0};
    if (clv_chain_parse("sharpen", &f->desc, &msg) ||
        clv_chain_create(ctx, f->desc, &f->chain, &msg) ||
        clv_stage_create(ctx, &o, f->chain, &f->stage, &msg)) {
        CHECK(0, "%s: setup: %s", what, msg.text);
        return NULL;
    }
    return f->stage;
}

static void fault_stage_close(fault_stage *f)
{
    clv_chain_desc_destroy(f->desc);
    clv_stage_destroy(f->stage);
    clv_chain_destroy(f->chain);
}

/* n frames of `size` bytes, zeroed; freed by frames_free. */
static void frames_new(uint8_t **frames, int n, size_t size)
{
    for (int i = 0; i < n; i++)
        frames[i] = calloc(1, size);
}

static void frames_free(uint8_t **frames, int n)
{
    for (int i = 0; i < n; i++)
        free(frames[i]);
}

/* How many of the n frames differ (a frame not allocated counts). */
static int frames_differ(uint8_t *const *want, uint8_t *const *got, int n, size_t size)
{
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += !want[i] || !got[i] || memcmp(want[i], got[i], size) != 0;
    return wrong;
}

/* One run of `frames` frames of w x h through sharpen on a several-device
 * stage; with `inject`, after the first 8 the stage is emptied, two frames
 * are sent, the first is taken and held, and the next frame sent to the
 * held frame's device fails at its submit. Outputs go to out[frame]; each
 * frame must come out once, in order. Returns 1 when the fault hit the held
 * frame's device while it was held. */
static int held_fault_run(clv_context *ctx, int inject, int w, int h, int frames, uint8_t **out)
{
    fault_stage f;
    clv_stage *stage = fault_stage_open(ctx, w, h, &f, "held fault");
    clv_msg msg = {{0}};
    size_t size = clv_pixfmt_size(CLV_PIX_YUV420P, w, h);
    int hit = 0, state = 0, submitted = 0, taken = 0, d = -1;
    if (!stage)
        goto done;
    while (taken < frames) {
        /* state 0: as usual; 2: emptying; 1: two sent; 3: one held, sending */
        if (inject && state == 0 && submitted >= 8 && submitted + 2 < frames)
            state = 2;
        if (state == 2 && clv_stage_pending(stage) == 0)
            state = 1;
        uint8_t *slot = NULL;
        if (submitted < frames && state != 2 && (state != 1 || clv_stage_pending(stage) < 2))
            slot = clv_stage_input(stage);
        if (slot) {
            for (size_t i = 0; i < size; i++)
                slot[i] = (uint8_t)(submitted * 31 + i * 7 + (i >> 5));
            int before = 0;
            if (state == 3) {
                clv_stage_device stats;
                clv_stage_device_stats(stage, d, &stats);
                before = stats.failed;
            }
            if (clv_stage_submit(stage, (uint64_t)submitted++, &msg)) {
                CHECK(0, "held fault: submit: %s", msg.text);
                goto done;
            }
            if (state == 3) {
                clv_stage_device stats;
                clv_stage_settle(stage); /* the send failed on d's own thread */
                clv_stage_device_stats(stage, d, &stats);
                if (stats.failed && !before) { /* the fault hit, the frame still held */
                    hit = 1;
                    clv_stage_release(stage);
                    taken++;
                    state = 4;
                }
            }
            continue;
        }
        if (state == 3) { /* no room while holding: try again later */
            clv_stage_release(stage);
            taken++;
            state = 0;
            continue;
        }
        clv_stage_device before[2], after[2];
        for (int k = 0; k < 2; k++)
            clv_stage_device_stats(stage, k, &before[k]);
        const uint8_t *px;
        uint64_t index = 0;
        if (clv_stage_output(stage, &px, &index, &msg)) {
            CHECK(0, "held fault: output: %s", msg.text);
            goto done;
        }
        CHECK(index == (uint64_t)taken, "held fault: frame %llu came out as number %d",
              (unsigned long long)index, taken);
        if (index < (uint64_t)frames)
            memcpy(out[index], px, size);
        if (state == 1) { /* hold it; the next frame for its device fails */
            for (int k = 0; k < 2; k++)
                clv_stage_device_stats(stage, k, &after[k]);
            int from = after[0].frames > before[0].frames ? 0 : 1;
            /* One fault per run: a hold given up leaves it armed on d, so
             * only another frame of d is held for it (arming the other
             * device too would fail both). */
            if (d < 0) {
                d = from;
                clv_stage_inject_submit_fault(stage, d);
            }
            if (from == d) {
                state = 3;
                continue;
            }
            state = 0;
        }
        clv_stage_release(stage);
        taken++;
    }
    CHECK(clv_stage_pending(stage) == 0, "held fault: %d frames left over (sent twice?)",
          clv_stage_pending(stage));
done:
    fault_stage_close(&f);
    return hit;
}

/* A device failing at a submit while the caller holds one of its frames:
 * the held frame is not sent again, and every frame comes out once, in
 * order, with the bytes of a run without the fault. */
static void held_fault_case(clv_context *ctx)
{
    enum { FRAMES = 40 };
    const int w = 64, h = 48;
    size_t size = clv_pixfmt_size(CLV_PIX_YUV420P, w, h);
    uint8_t *want[FRAMES], *got[FRAMES];
    frames_new(want, FRAMES, size);
    frames_new(got, FRAMES, size);
    held_fault_run(ctx, 0, w, h, FRAMES, want);
    int hits = 0;
    for (int attempt = 0; attempt < 10 && !hits; attempt++)
        hits += held_fault_run(ctx, 1, w, h, FRAMES, got);
    CHECK(hits > 0, "the submit fault never hit the held frame's device");
    int wrong = frames_differ(want, got, FRAMES, size);
    CHECK(wrong == 0, "held fault: %d of %d frames differ from the run without it", wrong, FRAMES);
    frames_free(want, FRAMES);
    frames_free(got, FRAMES);
}

/* Lets device d's held sends go, gives its sender time to stop at the
 * failed send, then asks the chain (a chain call before the next stage
 * call must not wait for the frames queued behind that send: it did). */
static void let_go_then_ask_chain(clv_stage *stage, int d, const clv_chain *chain)
{
    clv_stage_hold_sends(stage, d, 0);
    nanosleep(&(struct timespec){0, 50000000}, NULL);
    uint64_t ns[1], runs;
    clv_chain_times(chain, ns, 1, &runs);
}

/* One run of queued_fault_case: frames submitted and taken one at a time
 * until both devices are measured, then (d >= 0) device d's sends held and
 * its next one armed to fail while frames are given until every slot is in
 * flight, several of them queued on d behind the failing one; then let go.
 * The outputs into out[index]; returns device d's failed flag (0 when d < 0). */
static int queued_fault_run(clv_context *ctx, int d, int late, int w, int h, int frames,
                            uint8_t **out)
{
    fault_stage f;
    clv_stage *stage = fault_stage_open(ctx, w, h, &f, "queued fault");
    clv_msg msg = {{0}};
    size_t size = clv_pixfmt_size(CLV_PIX_YUV420P, w, h);
    int submitted = 0, taken = 0, held = 0, failed = 0;
    const int warm = 6;
    if (!stage)
        goto done;
    /* held 0: warming, a frame at a time; 1: d held, as many as fit; 2: on. */
    while (taken < frames) {
        if (!held && taken == warm) {
            if (d >= 0) {
                clv_stage_hold_sends(stage, d, 1);
                clv_stage_inject_submit_fault(stage, d);
            }
            held = 1;
        }
        uint8_t *slot =
            submitted < frames && (held || submitted == taken) ? clv_stage_input(stage) : NULL;
        if (slot) {
            for (size_t i = 0; i < size; i++)
                slot[i] = (uint8_t)(submitted * 29 + i * 5 + (i >> 4));
            if (held == 1 && late > 0 && --late == 0 && d >= 0) {
                /* `late`: d let go between this frame's memory and its
                 * submit, so that d's sender may stop at the failed send
                 * meanwhile: the frame written must still go out, and a
                 * chain call must not wait for the jobs it left. */
                let_go_then_ask_chain(stage, d, f.chain);
            }
            if (clv_stage_submit(stage, (uint64_t)submitted++, &msg)) {
                CHECK(0, "queued fault: submit: %s", msg.text);
                goto done;
            }
            continue;
        }
        if (held == 1) { /* every slot in flight: let d's sender go */
            if (d >= 0)
                let_go_then_ask_chain(stage, d, f.chain);
            held = 2;
        }
        const uint8_t *px;
        uint64_t index = 0;
        if (clv_stage_output(stage, &px, &index, &msg)) {
            CHECK(0, "queued fault: output: %s", msg.text);
            goto done;
        }
        CHECK(index == (uint64_t)taken, "queued fault: frame %llu came out as number %d",
              (unsigned long long)index, taken);
        if (index < (uint64_t)frames)
            memcpy(out[index], px, size);
        clv_stage_release(stage);
        taken++;
    }
    CHECK(clv_stage_pending(stage) == 0, "queued fault: %d frames left over (sent twice?)",
          clv_stage_pending(stage));
    if (d >= 0) {
        clv_stage_device stats;
        clv_stage_device_stats(stage, d, &stats);
        failed = stats.failed;
    }
done:
    fault_stage_close(&f);
    return failed;
}

/* A send failing with frames queued behind it on its device's thread: the
 * device fails, and its frames (the failed one and those never sent) run
 * on the other, every frame once, in order, as a run without the fault. */
static void queued_fault_case(clv_context *ctx)
{
    enum { FRAMES = 24 };
    const int w = 64, h = 48;
    size_t size = clv_pixfmt_size(CLV_PIX_YUV420P, w, h);
    uint8_t *want[FRAMES], *got[FRAMES];
    frames_new(want, FRAMES, size);
    frames_new(got, FRAMES, size);
    queued_fault_run(ctx, -1, 0, w, h, FRAMES, want);
    for (int d = 0; d < 2; d++) {
        /* A device much slower than the other may be given no frame while
         * held (the scheduler waits for the fast one): tried again. */
        int hit = 0;
        for (int attempt = 0; attempt < 5 && !hit; attempt++) {
            for (int i = 0; i < FRAMES; i++)
                memset(got[i], 0, size);
            hit = queued_fault_run(ctx, d, 0, w, h, FRAMES, got);
            int wrong = frames_differ(want, got, FRAMES, size);
            CHECK(wrong == 0,
                  "queued fault on device %d: %d of %d frames differ from the run without it", d,
                  wrong, FRAMES);
        }
        CHECK(hit, "queued fault: device %d never failed", d);
        /* Let go while the caller holds the memory of the 1st to 4th frame
         * given while held (one of them, d's with jobs before it). */
        for (int late = 1; late <= 4; late++) {
            for (int i = 0; i < FRAMES; i++)
                memset(got[i], 0, size);
            queued_fault_run(ctx, d, late, w, h, FRAMES, got);
            int wrong = frames_differ(want, got, FRAMES, size);
            CHECK(wrong == 0,
                  "queued fault on device %d let go before frame %d of the held ones was "
                  "submitted: %d of %d frames differ from the run without it",
                  d, late, wrong, FRAMES);
        }
    }
    frames_free(want, FRAMES);
    frames_free(got, FRAMES);
}

/* Device 0 failed already, then device 1's send fails with jobs queued
 * behind it: the run ends in an error naming no device left; asked again,
 * the stage says an error again (it once waited for ever, its sender half
 * reset), and destroying it sends nothing more. */
static void last_device_queued_fault_case(clv_context *ctx)
{
    const int w = 64, h = 48;
    fault_stage f;
    clv_stage *stage = fault_stage_open(ctx, w, h, &f, "last device's queued fault");
    clv_msg msg = {{0}};
    size_t size = clv_pixfmt_size(CLV_PIX_YUV420P, w, h);
    int submitted = 0, taken = 0, ended = 0;
    if (!stage)
        goto done;
    clv_stage_inject_fault(stage, 0, 0);
    while (!ended && taken < 40) {
        clv_stage_device zero;
        clv_stage_device_stats(stage, 0, &zero);
        int hold = zero.failed && taken >= 8; /* device 1 alone now, measured */
        if (hold) {
            clv_stage_hold_sends(stage, 1, 1);
            clv_stage_inject_submit_fault(stage, 1);
        }
        for (uint8_t *slot; (hold || submitted == taken) && (slot = clv_stage_input(stage));) {
            memset(slot, submitted & 0xff, size);
            if (clv_stage_submit(stage, (uint64_t)submitted++, &msg)) {
                CHECK(0, "last device's queued fault: submit: %s", msg.text);
                goto done;
            }
        }
        if (hold)
            clv_stage_hold_sends(stage, 1, 0);
        const uint8_t *px;
        uint64_t index;
        int err = clv_stage_output(stage, &px, &index, &msg);
        if (err) {
            CHECK(hold && strstr(msg.text, "no other device is left"),
                  "last device's queued fault: %s error '%s'", hold ? "the" : "an early", msg.text);
            ended = 1;
            break;
        }
        clv_stage_release(stage);
        taken++;
    }
    CHECK(ended, "last device's queued fault: %d frames out and no error", taken);
    if (ended)
        CHECK(clv_stage_output(stage, &(const uint8_t *){NULL}, &(uint64_t){0}, &msg) != 0,
              "last device's queued fault: a frame out after the error");
done:
    fault_stage_close(&f);
}

/* A stage over a pair of devices (ctest runs it with POCL_DEVICES="pthread
 * pthread", or "basic pthread" for two of unequal speed; CLVID_DEVICE=gpu
 * on a machine of two GPUs): every filter's output equal to the reference
 * at awkward sizes, in order, with frames on both devices; temporal chains
 * on the first only; faults injected into either device survived with
 * every frame right; both failing is an error. */
int test_stage_devices(void)
{
    /* CLVID_TEST_DEVICES, else CLVID_DEVICE, else every device. */
    const char *spec = getenv("CLVID_TEST_DEVICES");
    if (!spec || !*spec)
        spec = test_device();
    clv_context *ctx = test_context_on(spec ? spec : "all", 0);
    if (!ctx)
        return 1;
    int n = clv_context_device_count(ctx);
    if (n < 2) {
        fprintf(stderr, "  one device only: run with POCL_DEVICES=\"pthread pthread\" or "
                        "CLVID_DEVICE naming two devices (gpu, 0,1, all)\n");
        clv_context_destroy(ctx);
        return 1;
    }
    if (n > 2) {
        /* The checks are of a pair (every frame on one of the two, a fault
         * on both leaving none): more devices would take the frames and
         * survive the faults. The first two. */
        char pair[32];
        snprintf(pair, sizeof pair, "%d,%d", clv_context_device_at(ctx, 0)->index,
                 clv_context_device_at(ctx, 1)->index);
        printf("  %d devices: the first two (%s)\n", n, pair);
        clv_context_destroy(ctx);
        ctx = test_context_on(pair, 0);
        if (!ctx)
            return 1;
        n = clv_context_device_count(ctx);
    }
    /* Any pair: a PoCL CPU (shared staging) with a GPU (copied), either
     * first, or two of a kind. Each device's staging from a context of its
     * own. */
    sharing_devices = 0;
    for (int d = 0; d < n; d++) {
        char index[16];
        snprintf(index, sizeof index, "%d", clv_context_device_at(ctx, d)->index);
        clv_context *one = test_context_on(index, 0);
        if (!one) {
            clv_context_destroy(ctx);
            sharing_devices = -1;
            return 1;
        }
        printf("  device %d: %s, %s staging\n", d, clv_context_device_at(ctx, d)->name,
               clv_context_shared_staging(one) ? "shared" : "copied");
        sharing_devices |= clv_context_shared_staging(one) << d;
        clv_context_destroy(one);
    }
    clv_color bt709 = {CLV_MATRIX_BT709, 0};
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}};
    /* The sanitizer builds deal 17x9 frames of every filter and 641x359
     * frames of every eighth (the dealing is the same code for each size
     * and filter; the plain build runs every size of every filter). */
    const int sanitized = getenv("CLVID_SANITIZED") != NULL, big_every = sanitized ? 8 : 1;
    for (int i = 0; i < clv_filter_count(); i++) {
        const clv_filter *f = clv_filter_at(i);
        const char *name = clv_filter_name(f);
        int needs_file = 0; /* lut3d's .cube: not a chain of its name alone */
        for (int k = 0; k < clv_filter_param_count(f); k++)
            needs_file |= clv_filter_param(f, k)->type == CLV_PARAM_FILE;
        if (!strcmp(name, "opencl") || needs_file)
            continue; /* needs a file: run_pair below */
        /* nlmeans's default windows (31x31 of 15x15 patches) make its
         * reference a quarter of this test's time; the dealing is the same
         * with smaller ones. format has no default. */
        const char *chain = !strcmp(name, "nlmeans")  ? "nlmeans=r=5:p=3"
                            : !strcmp(name, "format") ? "format=yuv420p"
                                                      : name;
        /* The sanitizer builds: the filters whose frames the stage deals in
         * their own way (temporal ones on the first device, deinterlacers
         * with their cadence) and every eighth of the rest; the dealing is
         * the same host code for each of those. The filters that change no
         * pixel run no kernel: 17x9 frames show their dealing (the chain
         * hands the frame on). */
        clv_chain_desc *d = NULL;
        int delay = 0, rate = 1, passes = 0;
        if (!clv_chain_parse(chain, &d, NULL)) {
            clv_chain_desc_cadence(d, &delay, &rate, NULL);
            passes = clv_chain_desc_passes(d);
        }
        clv_chain_desc_destroy(d);
        if (sanitized && !clv_filter_temporal(f) && delay == 0 && rate == 1 && i % 8)
            continue;
        const int first_size = sanitized || passes ? 2 : 0;
        const int end_size = passes || i % big_every ? 3 : 4;
        for (int s = first_size; s < end_size; s++) {
            int frames = s == 3 ? 6 : 8;
            run_case(ctx, CLV_PIX_YUV420P, CLV_PIX_YUV420P, bt709, bt709, chain, sizes[s][0],
                     sizes[s][1], frames);
            int temporal = clv_filter_temporal(f); /* quantize, tonemap, hqdn3d */
            uint64_t both = last_stats[0].frames + last_stats[1].frames;
            CHECK(both == (uint64_t)frames, "%s: %llu frames counted on the devices", name,
                  (unsigned long long)both);
            if (temporal)
                CHECK(last_stats[1].frames == 0, "%s (temporal) ran %llu frames on device 2", name,
                      (unsigned long long)last_stats[1].frames);
            else
                CHECK(last_stats[0].frames > 0 && last_stats[1].frames > 0,
                      "%s %dx%d: frames dealt %llu + %llu", name, sizes[s][0], sizes[s][1],
                      (unsigned long long)last_stats[0].frames,
                      (unsigned long long)last_stats[1].frames);
        }
    }
    run_case(ctx, CLV_PIX_RGBA, CLV_PIX_RGBA, bt709, bt709, "median=radius=2,sharpen,noise",
             sanitized ? 641 : 1921, sanitized ? 359 : 1081, 4);
    run_case(ctx, CLV_PIX_NV12, CLV_PIX_BGRA, bt709, bt709, "equalize,emboss", 641, 359, 5);

    /* User kernels: one per frame (spread), one reading prev (first device). */
    run_pair(ctx, "opencl=file=" CLVID_SOURCE_DIR "/examples/kernels/vignette.cl", 641, 359, 6);
    CHECK(last_stats[0].frames > 0 && last_stats[1].frames > 0,
          "vignette: frames dealt %llu + %llu", (unsigned long long)last_stats[0].frames,
          (unsigned long long)last_stats[1].frames);
    run_pair(ctx, "median,opencl=file=" CLVID_SOURCE_DIR "/examples/kernels/motion.cl", 17, 9, 6);
    CHECK(last_stats[1].frames == 0, "motion (reads prev) ran %llu frames on device 2",
          (unsigned long long)last_stats[1].frames);

    /* Faults: either device failing mid-run; every frame still right. */
    for (int d = 0; d < 2; d++) {
        /* Each device takes a frame first (to be measured): asked for it,
         * it fails. */
        fault_device[0] = d;
        fault_frames[0] = 0;
        /* The sanitizer builds: 161x91 (the references of sixteen 641x359
         * frames took a minute under ASan; the dealing is the same). */
        run_case(ctx, CLV_PIX_YUV420P, CLV_PIX_YUV420P, bt709, bt709, "median,sharpen",
                 sanitized ? 161 : 641, sanitized ? 91 : 359, 16);
        CHECK(last_stats[d].failed && !last_stats[1 - d].failed, "device %d failed: %d, other %d",
              d, last_stats[d].failed, last_stats[1 - d].failed);
        CHECK(last_stats[d].frames == 0 && last_stats[1 - d].frames == 16,
              "after device %d failed: %llu + %llu frames", d,
              (unsigned long long)last_stats[d].frames,
              (unsigned long long)last_stats[1 - d].frames);
    }
    held_fault_case(ctx);
    queued_fault_case(ctx);
    last_device_queued_fault_case(ctx);
    /* Both: the run stops with an error naming the device. */
    fault_device[0] = 0, fault_frames[0] = 0;
    fault_device[1] = 1, fault_frames[1] = 0;
    run_case(ctx, CLV_PIX_RGBA, CLV_PIX_RGBA, bt709, bt709, "sharpen", 17, 9, 16);
    CHECK(strstr(last_error.text, "no other device is left") != NULL, "both devices failing: '%s'",
          last_error.text);
    fault_device[0] = fault_device[1] = -1;
    sharing_devices = -1;
    clv_context_destroy(ctx);
    return 0;
}

/* One frame in a block: the packed planes of `packed` written at offsets
 * with gaps, rows stride apart, the bytes between them 0xAB (never read). */
static void fill_block(uint8_t *block, size_t block_size, clv_pixfmt f, int w, int h,
                       const uint8_t *packed, const size_t offset[3], const int stride[3])
{
    int cw = (w + 1) / 2, ch = (h + 1) / 2, nv12 = f == CLV_PIX_NV12;
    int bytes[3] = {w, nv12 ? 2 * cw : cw, cw}, rows[3] = {h, ch, nv12 ? 0 : ch};
    memset(block, 0xAB, block_size);
    for (int i = 0; i < 3; i++)
        for (int y = 0; y < rows[i]; y++) {
            memcpy(block + offset[i] + (size_t)y * (size_t)stride[i], packed, (size_t)bytes[i]);
            packed += bytes[i];
        }
}

/* A block frame's output: the reference of the stage, or (copy: no
 * filter, the same layout out) the input untouched. */
static void expected(int copy, clv_pixfmt f, clv_color c, clv_ref_chain *ref, const uint8_t *in,
                     int w, int h, uint64_t frame, uint8_t *out)
{
    if (copy)
        memcpy(out, in, clv_pixfmt_size(f, w, h));
    else
        reference(f, c, f, c, ref, in, w, h, frame, out);
}

/* Frames entering the stage in blocks (a decoder writing into the stage's
 * memory): planes anywhere in the block, rows padded; read in place from
 * this stage's blocks, copied from another stage's, refused when a plane
 * does not fit; equal to the reference of the same picture packed. */
int test_stage_blocks(void)
{
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}, {1921, 1081}};
    clv_color bt709 = {CLV_MATRIX_BT709, 0};
    for (int run = 0; run < 4; run++) { /* both shapes, shared and copied staging */
        clv_context_options co = {
            .struct_size = sizeof(clv_context_options), .shape = 1 + run % 2, .staging = run >= 2};
        clv_context *ctx = NULL;
        clv_msg msg = {{0}};
        if (clv_context_create(&co, &ctx, &msg)) {
            CHECK(0, "%s", msg.text);
            return 1;
        }
        int shared = clv_context_shared_staging(ctx);
        /* 1921x1081 in the plain build, shared staging (copied: the same code
         * at the sizes before) */
        int sizes_run = getenv("CLVID_SANITIZED") || !shared ? 4 : 5;
        for (int fi = 0; fi < 2; fi++)
            for (int si = 0; si < sizes_run; si++)
                for (int ci = 0; ci < 4; ci++) {
                    clv_pixfmt f = fi ? CLV_PIX_NV12 : CLV_PIX_YUV420P;
                    /* "": a plain copy; sharpen and equalize: fused on
                     * CPUs; two passes of erode: not fused */
                    static const char *const chains[] = {"sharpen", "", "equalize",
                                                         "erode=iterations=2"};
                    const char *chain_text = chains[ci];
                    int w = sizes[si][0], h = sizes[si][1], cw = (w + 1) / 2, ch = (h + 1) / 2;
                    char what[200];
                    snprintf(what, sizeof what, "%s %dx%d '%s', %s shape, %s staging",
                             clv_pixfmt_name(f), w, h, chain_text, run % 2 ? "gpu" : "row",
                             shared ? "shared" : "copied");
                    int stride[3] = {w + 70, (fi ? 2 * cw : cw) + 3, cw + 130};
                    size_t offset[3];
                    offset[0] = 64;
                    offset[1] = offset[0] + (size_t)stride[0] * (size_t)h + 5;
                    offset[2] = fi ? 0 : offset[1] + (size_t)stride[1] * (size_t)ch + 200;
                    size_t block_size = (fi ? offset[1] + (size_t)stride[1] * (size_t)ch
                                            : offset[2] + (size_t)stride[2] * (size_t)ch) +
                                        64;
                    size_t in_size = clv_pixfmt_size(f, w, h);
                    clv_chain_desc *desc = NULL;
                    clv_chain *chain = NULL;
                    clv_ref_chain *ref = NULL;
                    clv_stage *stage = NULL, *other = NULL;
                    clv_stage_options opt = {.struct_size = sizeof(clv_stage_options),
                                             .width = w,
                                             .height = h,
                                             .in_format = f,
                                             .out_format = f,
                                             .in_color = bt709,
                                             .out_color = bt709,
                                             .slots = 3};
                    enum { FRAMES = 4 };
                    clv_block *blocks[FRAMES + 1] = {NULL};
                    uint8_t *packed = malloc(in_size * FRAMES), *want = malloc(in_size);
                    if (!packed || !want || clv_chain_parse(chain_text, &desc, &msg) ||
                        clv_chain_create(ctx, desc, &chain, &msg) ||
                        clv_ref_chain_create(desc, &ref) ||
                        clv_stage_create(ctx, &opt, chain, &stage, &msg) ||
                        clv_stage_create(ctx, &opt, chain, &other, &msg)) {
                        CHECK(0, "%s: setup: %s", what, msg.text);
                        goto next;
                    }
                    /* Frames 0-2 in this stage's blocks, frame 3 in the other
                     * stage's (copied), all in flight together. */
                    for (int i = 0; i < FRAMES; i++) {
                        blocks[i] = clv_stage_block_new(i == 3 ? other : stage, block_size);
                        CHECK(blocks[i] != NULL, "%s: clv_stage_block_new gave %s", what,
                              blocks[i] ? "a block" : "NULL");
                        if (!blocks[i])
                            goto next;
                        uint8_t *in = packed + in_size * (size_t)i;
                        fill_bytes(in, in_size, (uint32_t)(i * 31 + w * 7 + h + fi));
                        fill_block(clv_block_pixels(blocks[i]), block_size, f, w, h, in, offset,
                                   stride);
                    }
                    int taken = 0;
                    for (int i = 0; i < FRAMES; i++) {
                        if (i == 3) { /* all three slots are busy: take one */
                            const uint8_t *got;
                            CHECK(!clv_stage_output(stage, &got, NULL, &msg), "%s: %s", what,
                                  msg.text);
                            expected(ci == 1, f, bt709, ref, packed, w, h, 0, want);
                            CHECK(!memcmp(got, want, in_size), "%s: frame 0 differs", what);
                            clv_stage_release(stage);
                            taken = 1;
                        }
                        CHECK(!clv_stage_submit_block(stage, (uint64_t)i, blocks[i], offset, stride,
                                                      &msg),
                              "%s: submit %d: %s", what, i, msg.text);
                    }
                    for (; taken < FRAMES; taken++) {
                        const uint8_t *got;
                        uint64_t index = 99;
                        if (clv_stage_output(stage, &got, &index, &msg)) {
                            CHECK(0, "%s: output: %s", what, msg.text);
                            break;
                        }
                        expected(ci == 1, f, bt709, ref, packed + in_size * (size_t)taken, w, h,
                                 index, want);
                        size_t d = 0;
                        while (d < in_size && got[d] == want[d])
                            d++;
                        CHECK(d == in_size, "%s frame %d: byte %zu is %d, reference %d", what,
                              taken, d, d < in_size ? got[d] : 0, d < in_size ? want[d] : 0);
                        clv_stage_release(stage);
                    }
                    uint64_t fused = run % 2 == 0 && (ci == 0 || ci == 2) ? FRAMES : 0;
                    CHECK(clv_stage_fused_frames(stage) == fused, "%s: %llu frames fused, not %llu",
                          what, (unsigned long long)clv_stage_fused_frames(stage),
                          (unsigned long long)fused);
                    /* A plane past the block's end is refused, named. */
                    size_t past[3] = {offset[0], block_size, offset[2]};
                    msg.text[0] = 0;
                    CHECK(clv_stage_submit_block(stage, 9, blocks[0], past, stride, &msg) ==
                                  CLV_EINVAL &&
                              strstr(msg.text, "plane 1") != NULL,
                          "%s: a plane past the end: '%s'", what, msg.text);
                next:
                    clv_chain_desc_destroy(desc);
                    desc = NULL;
                    clv_stage_destroy(stage);
                    for (int i = 0; i < FRAMES; i++) /* the blocks outlive their stage */
                        clv_block_free(blocks[i]);
                    clv_stage_destroy(other);
                    clv_chain_destroy(chain);
                    clv_ref_chain_destroy(ref);
                    free(packed);
                    free(want);
                }
        clv_context_destroy(ctx);
    }
    return 0;
}

/* Packed RGB frames in blocks (the GStreamer element's pool of RGBA
 * buffers): tight rows read in place from the block at any offset, rows
 * padded copied in; both equal to the reference; a frame past the block's
 * end refused. */
int test_stage_blocks_packed(void)
{
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}};
    static const clv_pixfmt formats[] = {CLV_PIX_RGBA, CLV_PIX_BGR0, CLV_PIX_RGBA64};
    clv_color c = {CLV_MATRIX_BT601, 0};
    for (int run = 0; run < 4; run++) { /* both shapes, shared and copied staging */
        clv_context_options co = {
            .struct_size = sizeof(clv_context_options), .shape = 1 + run % 2, .staging = run >= 2};
        clv_context *ctx = NULL;
        clv_msg msg = {{0}};
        if (clv_context_create(&co, &ctx, &msg)) {
            CHECK(0, "%s", msg.text);
            return 1;
        }
        int shared = clv_context_shared_staging(ctx);
        for (int fi = 0; fi < 3; fi++)
            for (int si = 0; si < 4; si++) {
                clv_pixfmt f = formats[fi];
                int w = sizes[si][0], h = sizes[si][1];
                int row = (int)clv_pixfmt_size(f, w, 1);
                size_t in_size = clv_pixfmt_size(f, w, h);
                char what[200];
                snprintf(what, sizeof what, "%s %dx%d sharpen, %s shape, %s staging",
                         clv_pixfmt_name(f), w, h, run % 2 ? "gpu" : "row",
                         shared ? "shared" : "copied");
                clv_chain_desc *desc = NULL;
                clv_chain *chain = NULL;
                clv_ref_chain *ref = NULL;
                clv_stage *stage = NULL;
                clv_stage_options opt = {.struct_size = sizeof(clv_stage_options),
                                         .width = w,
                                         .height = h,
                                         .in_format = f,
                                         .out_format = f,
                                         .slots = 3};
                /* Frame 0: tight rows from byte 64; frame 1: rows 24 bytes
                 * apart more than their own. */
                enum { FRAMES = 2 };
                int stride[FRAMES][3] = {{row, 0, 0}, {row + 24, 0, 0}};
                size_t offset[3] = {64, 0, 0};
                clv_block *blocks[FRAMES] = {NULL};
                uint8_t *packed = malloc(in_size * FRAMES), *want = malloc(in_size);
                if (!packed || !want || clv_chain_parse("sharpen", &desc, &msg) ||
                    clv_chain_create_depth(ctx, desc, clv_pixfmt_depth(f), &chain, &msg) ||
                    clv_ref_chain_create(desc, &ref) ||
                    clv_stage_create(ctx, &opt, chain, &stage, &msg)) {
                    CHECK(0, "%s: setup: %s", what, msg.text);
                    goto next;
                }
                for (int i = 0; i < FRAMES; i++) {
                    size_t size = offset[0] + (size_t)stride[i][0] * (size_t)h;
                    blocks[i] = clv_stage_block_new(stage, size);
                    CHECK(blocks[i] != NULL, "%s: clv_stage_block_new gave %s", what,
                          blocks[i] ? "a block" : "NULL");
                    if (!blocks[i])
                        goto next;
                    uint8_t *in = packed + in_size * (size_t)i;
                    fill_bytes(in, in_size, (uint32_t)(i * 17 + w * 5 + h + fi));
                    uint8_t *b = clv_block_pixels(blocks[i]);
                    memset(b, 0xAB, size);
                    for (int y = 0; y < h; y++)
                        memcpy(b + offset[0] + (size_t)y * (size_t)stride[i][0],
                               in + (size_t)y * (size_t)row, (size_t)row);
                    CHECK(!clv_stage_submit_block(stage, (uint64_t)i, blocks[i], offset, stride[i],
                                                  &msg),
                          "%s: submit %d: %s", what, i, msg.text);
                }
                for (int i = 0; i < FRAMES; i++) {
                    const uint8_t *got;
                    uint64_t index = 99;
                    if (clv_stage_output(stage, &got, &index, &msg)) {
                        CHECK(0, "%s: output: %s", what, msg.text);
                        break;
                    }
                    reference(f, c, f, c, ref, packed + in_size * (size_t)i, w, h, index, want);
                    CHECK(!memcmp(got, want, in_size), "%s: frame %d (rows %d apart) differs", what,
                          i, stride[i][0]);
                    clv_stage_release(stage);
                }
                /* Rows past the block's end: refused, named. */
                int long_rows[3] = {row + 1000, 0, 0};
                msg.text[0] = 0;
                CHECK(clv_stage_submit_block(stage, 9, blocks[0], offset, long_rows, &msg) ==
                              CLV_EINVAL ||
                          h == 1,
                      "%s: rows past the end: '%s'", what, msg.text);
            next:
                clv_chain_desc_destroy(desc);
                clv_stage_destroy(stage);
                for (int i = 0; i < FRAMES; i++)
                    clv_block_free(blocks[i]);
                clv_chain_destroy(chain);
                clv_ref_chain_destroy(ref);
                free(packed);
                free(want);
            }
        clv_context_destroy(ctx);
    }
    return 0;
}

/* The planes of a 16-bit Y'CbCr frame packed at `packed`: where each
 * starts, the bytes of its rows and how many; returns how many planes. */
static int deep_planes(clv_pixfmt f, int w, int h, const uint8_t *packed, const uint8_t *plane[3],
                       int bytes[3], int rows[3])
{
    int cw = f == CLV_PIX_YUV444P16 ? w : (w + 1) / 2,
        ch = f == CLV_PIX_YUV444P16 ? h : (h + 1) / 2;
    int semi = f == CLV_PIX_P010;
    bytes[0] = 2 * w, rows[0] = h;
    bytes[1] = 2 * (semi ? 2 * cw : cw), rows[1] = ch;
    bytes[2] = semi ? 0 : 2 * cw, rows[2] = semi ? 0 : ch;
    plane[0] = packed;
    plane[1] = plane[0] + (size_t)bytes[0] * (size_t)rows[0];
    plane[2] = plane[1] + (size_t)bytes[1] * (size_t)rows[1];
    return semi ? 2 : 3;
}

/* The 16-bit Y'CbCr layouts in blocks (a decoder of 10-bit video writing
 * into the stage's memory): planes anywhere in the block, rows padded, two
 * bytes a sample; read in place from this stage's blocks, copied from
 * another stage's, equal to the 16-bit reference of the same picture packed
 * (or, with nothing to do, the input untouched). */
int test_stage_blocks_deep(void)
{
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}, {1921, 1081}};
    static const clv_pixfmt formats[] = {CLV_PIX_YUV420P10, CLV_PIX_P010, CLV_PIX_YUV444P16};
    /* A 16-bit filter and none; each filter named in one place. */
    static const char *const chains[] = {"hflip", ""};
    int sizes_run = getenv("CLVID_SANITIZED") ? 4 : 5; /* 1921x1081 in the plain build */
    clv_color bt2020 = {CLV_MATRIX_BT2020, 0};
    for (int run = 0; run < 4; run++) { /* both shapes, shared and copied staging */
        clv_context_options co = {
            .struct_size = sizeof(clv_context_options), .shape = 1 + run % 2, .staging = run >= 2};
        clv_context *ctx = NULL;
        clv_msg msg = {{0}};
        if (clv_context_create(&co, &ctx, &msg)) {
            CHECK(0, "%s", msg.text);
            return 1;
        }
        int shared = clv_context_shared_staging(ctx);
        for (int fi = 0; fi < 3; fi++)
            for (int si = 0; si < sizes_run; si++)
                for (int ci = 0; ci < 2; ci++) {
                    clv_pixfmt f = formats[fi];
                    int w = sizes[si][0], h = sizes[si][1];
                    char what[200];
                    snprintf(what, sizeof what, "%s %dx%d '%s', %s shape, %s staging",
                             clv_pixfmt_name(f), w, h, chains[ci], run % 2 ? "gpu" : "row",
                             shared ? "shared" : "copied");
                    /* The packed planes, then the same with gaps between them
                     * and rows padded (an odd number of bytes between planes:
                     * samples need not be aligned). */
                    const uint8_t *plane[3];
                    int bytes[3], rows[3];
                    size_t in_size = clv_pixfmt_size(f, w, h);
                    uint8_t *packed = malloc(in_size * 2), *want = malloc(in_size);
                    int planes = deep_planes(f, w, h, packed, plane, bytes, rows);
                    int stride[3] = {bytes[0] + 70, bytes[1] + 6, bytes[2] + 130};
                    size_t offset[3] = {64, 0, 0};
                    offset[1] = offset[0] + (size_t)stride[0] * (size_t)rows[0] + 6;
                    offset[2] =
                        planes == 2 ? 0 : offset[1] + (size_t)stride[1] * (size_t)rows[1] + 200;
                    size_t block_size =
                        (planes == 2 ? offset[1] + (size_t)stride[1] * (size_t)rows[1]
                                     : offset[2] + (size_t)stride[2] * (size_t)rows[2]) +
                        64;
                    clv_chain_desc *desc = NULL;
                    clv_chain *chain = NULL;
                    clv_ref_chain *ref = NULL;
                    clv_stage *stage = NULL, *other = NULL;
                    clv_image a = {0}, b = {0};
                    clv_stage_options opt = {.struct_size = sizeof(clv_stage_options),
                                             .width = w,
                                             .height = h,
                                             .in_format = f,
                                             .out_format = f,
                                             .in_color = bt2020,
                                             .out_color = bt2020,
                                             .slots = 3};
                    clv_block *blocks[2] = {NULL, NULL};
                    if (!packed || !want || clv_chain_parse(chains[ci], &desc, &msg) ||
                        clv_chain_create_depth(ctx, desc, 16, &chain, &msg) ||
                        clv_ref_chain_create(desc, &ref) || clv_image_alloc_depth(&a, w, h, 16) ||
                        clv_image_alloc_depth(&b, w, h, 16) ||
                        clv_stage_create(ctx, &opt, chain, &stage, &msg) ||
                        clv_stage_create(ctx, &opt, chain, &other, &msg)) {
                        CHECK(0, "%s: setup: %s", what, msg.text);
                        goto next;
                    }
                    /* Frame 0 in this stage's block (read in place when
                     * shared), frame 1 in the other stage's (copied). */
                    for (int i = 0; i < 2; i++) {
                        blocks[i] = clv_stage_block_new(i ? other : stage, block_size);
                        CHECK(blocks[i] != NULL, "%s: clv_stage_block_new gave %s", what,
                              blocks[i] ? "a block" : "NULL");
                        if (!blocks[i])
                            goto next;
                        uint8_t *in = packed + in_size * (size_t)i;
                        fill_bytes(in, in_size, (uint32_t)(i * 31 + w * 7 + h + fi));
                        uint8_t *block = clv_block_pixels(blocks[i]);
                        memset(block, 0xAB, block_size);
                        deep_planes(f, w, h, in, plane, bytes, rows);
                        for (int k = 0; k < planes; k++)
                            for (int y = 0; y < rows[k]; y++)
                                memcpy(block + offset[k] + (size_t)y * (size_t)stride[k],
                                       plane[k] + (size_t)y * (size_t)bytes[k], (size_t)bytes[k]);
                        CHECK(!clv_stage_submit_block(stage, (uint64_t)i, blocks[i], offset, stride,
                                                      &msg),
                              "%s: submit %d: %s", what, i, msg.text);
                    }
                    for (int i = 0; i < 2; i++) {
                        const uint8_t *got;
                        uint64_t index = 99;
                        if (clv_stage_output(stage, &got, &index, &msg)) {
                            CHECK(0, "%s: output: %s", what, msg.text);
                            break;
                        }
                        const uint8_t *in = packed + in_size * (size_t)i;
                        if (ci == 1) {
                            memcpy(want, in, in_size);
                        } else if (clv_ref_to_rgba(f, bt2020, in, &a) ||
                                   clv_ref_chain_run(ref, &a, &b, index) ||
                                   clv_ref_from_rgba(f, bt2020, &b, want)) {
                            CHECK(0, "%s: the reference failed", what);
                            break;
                        }
                        size_t d = 0;
                        while (d < in_size && got[d] == want[d])
                            d++;
                        CHECK(d == in_size && index == (uint64_t)i,
                              "%s frame %d (index %llu): byte %zu is %d, reference %d", what, i,
                              (unsigned long long)index, d, d < in_size ? got[d] : 0,
                              d < in_size ? want[d] : 0);
                        clv_stage_release(stage);
                    }
                next:
                    clv_chain_desc_destroy(desc);
                    clv_stage_destroy(stage);
                    for (int i = 0; i < 2; i++)
                        clv_block_free(blocks[i]);
                    clv_stage_destroy(other);
                    clv_chain_destroy(chain);
                    clv_ref_chain_destroy(ref);
                    clv_image_free(&a);
                    clv_image_free(&b);
                    free(packed);
                    free(want);
                }
        clv_context_destroy(ctx);
    }
    return 0;
}

/* Equalize does the stage's conversions in its own passes on CPUs
 * (clv_filter's run_yuv): every 4:2:0 pair in and out, both modes, the
 * awkward sizes, noise, a low-contrast gradient (its histogram stretched
 * over the whole range, colours clipping) and a flat colour (unchanged),
 * equal to the conversions and the reference around it; the row shape
 * fuses every frame, the GPU shape and chains of two filters none. */
static int stage_fused(void)
{
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}, {1921, 1081}};
    static const char *chains[] = {"equalize", "equalize=mode=gray", "equalize,gray"};
    /* Neighbourhood filters, one kernel with both conversions (cl/yuv.cl's
     * CLV_FUSED_BODY): reach 1 to 4, each kind of row function; `large`
     * ones skip 1921x1081 (their reference is slow), the last two are not
     * fused (two passes; a chain of two). */
    static const struct {
        const char *chain;
        int large, fused;
    } windows[] = {
        {"sharpen", 1, 1},
        {"emboss", 1, 1},
        {"convolution=matrix=1 2 1 2 4 2 1 2 1", 1, 1},
        {"convolution=matrix=1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1:bias=-3", 0, 1},
        {"median", 1, 1},
        {"median=radius=2", 0, 1},
        {"median=radius=4", 0, 1},
        {"erode", 1, 1},
        {"dilate=radius=3", 0, 1},
        {"prewitt", 1, 1},
        {"prewitt=scale=1.75:delta=-9", 0, 1},
        {"erode=iterations=2", 0, 0},
        {"median,sharpen", 0, 0},
    };
    static const clv_pixfmt formats[] = {CLV_PIX_YUV420P, CLV_PIX_NV12};
    clv_color bt601 = {CLV_MATRIX_BT601, 0}, bt709f = {CLV_MATRIX_BT709, 1};
    const int sanitized = getenv("CLVID_SANITIZED") != NULL;
    int sizes_run = sanitized ? 4 : 5;  /* 1921x1081 in the plain build */
    for (int run = 0; run < 3; run++) { /* row shape shared and copied, GPU shape */
        clv_context_options o = {.struct_size = sizeof(clv_context_options),
                                 .shape = run == 2 ? 2 : 1,
                                 .profiling = 1,
                                 .staging = run == 1};
        clv_context *ctx = NULL;
        clv_msg msg = {{0}};
        if (clv_context_create(&o, &ctx, &msg)) {
            CHECK(0, "%s", msg.text);
            return 1;
        }
        /* Timing each filter of the chain needs them apart: not fused. */
        last_fused = 99;
        run_case(ctx, CLV_PIX_NV12, CLV_PIX_YUV420P, bt601, bt601, "equalize", 17, 9, 2);
        CHECK(last_fused == 0, "fused with the filter timed (run %d)", run);
        last_fused = 99;
        run_case(ctx, CLV_PIX_NV12, CLV_PIX_YUV420P, bt601, bt601, "median", 17, 9, 2);
        CHECK(last_fused == 0, "median fused with the filter timed (run %d)", run);
        filter_timing = 0;
        for (int c = 0; c < 3; c++)
            for (int s = 0; s < sizes_run; s++)
                for (picture = 0; picture < 3; picture++) {
                    /* The sanitizer builds: 641x359 (the host's side) with
                     * the first picture. */
                    if (sanitized && s == 3 && picture > 0)
                        continue;
                    clv_pixfmt in = formats[(s + picture) % 2], out = formats[(s + c) % 2];
                    int frames = s >= 3 ? 3 : 4;
                    last_fused = 99;
                    run_case(ctx, in, out, bt601, bt709f, chains[c], sizes[s][0], sizes[s][1],
                             frames);
                    uint64_t want = run < 2 && c < 2 ? (uint64_t)frames : 0;
                    CHECK(last_fused == want, "'%s' %dx%d, run %d: %llu frames fused, not %llu",
                          chains[c], sizes[s][0], sizes[s][1], run, (unsigned long long)last_fused,
                          (unsigned long long)want);
                }
        picture = 0;
        for (size_t c = 0; c < sizeof windows / sizeof windows[0]; c++)
            for (int s = 0; s < (windows[c].large ? sizes_run : 4); s++) {
                /* The sanitizer builds: 641x359 for every fourth chain
                 * (the same host code for each). */
                if (sanitized && s == 3 && c % 4)
                    continue;
                clv_pixfmt in = formats[(s + (int)c) % 2], out = formats[(s + (int)c / 2) % 2];
                int frames = s >= 3 ? 2 : 3;
                last_fused = 99;
                run_case(ctx, in, out, bt709f, bt601, windows[c].chain, sizes[s][0], sizes[s][1],
                         frames);
                uint64_t want = run < 2 && windows[c].fused ? (uint64_t)frames : 0;
                CHECK(last_fused == want, "'%s' %dx%d, run %d: %llu frames fused, not %llu",
                      windows[c].chain, sizes[s][0], sizes[s][1], run,
                      (unsigned long long)last_fused, (unsigned long long)want);
            }
        filter_timing = 1;
        clv_context_destroy(ctx);
    }
    return 0;
}

/* Its contexts run the same sequences: their references are kept. */
int test_stage_fused(void)
{
    test_keep_references(1);
    int status = stage_fused();
    test_keep_references(0);
    return status;
}

/* Chains that change the size, switched while frames are in flight, and a
 * parameter that changes it: every frame comes out at its own chain's size
 * (clv_stage_output_size says which while it is held), equal to its
 * reference, in each layout and both work shapes. */
int test_stage_resize(void)
{
    static const char *texts[] = {"crop=iw-5:ih-3:2:1", "", "pad=iw+7:ih+3:5:1:0x336699",
                                  "transpose=clock,median", "crop=5:3:0:0,pad=17:9:6:3:red"};
    static const clv_pixfmt formats[] = {CLV_PIX_YUV420P, CLV_PIX_RGBA, CLV_PIX_NV12};
    enum { N = 5, W = 37, H = 21, FRAMES = 16 };
    for (int shape = 1; shape <= 2; shape++)
        for (int fi = 0; fi < 3; fi++) {
            clv_pixfmt f = formats[fi];
            clv_context *ctx = test_context(shape);
            if (!ctx)
                return 1;
            clv_msg msg = {{0}};
            clv_chain *chains[N] = {0};
            clv_ref_chain *refs[N] = {0};
            clv_size sizes[N];
            clv_stage *stage = NULL;
            size_t in_size = clv_pixfmt_size(f, W, H), max_out = clv_pixfmt_size(f, 64, 64);
            uint8_t *inputs = malloc(in_size * FRAMES), *want = malloc(max_out);
            clv_color c = {CLV_MATRIX_BT601, 0};
            clv_stage_options opt = {.struct_size = sizeof(clv_stage_options),
                                     .width = W,
                                     .height = H,
                                     .in_format = f,
                                     .out_format = f,
                                     .in_color = c,
                                     .out_color = c,
                                     .slots = 3};
            for (int i = 0; i < N; i++) {
                clv_chain_desc *desc = NULL;
                clv_size in = {W, H, 0, 1, 0, 0, 0};
                if (clv_chain_parse(texts[i], &desc, &msg) ||
                    clv_chain_create(ctx, desc, &chains[i], &msg) ||
                    clv_ref_chain_create(desc, &refs[i]) ||
                    clv_chain_output_size(chains[i], &in, &sizes[i], &msg)) {
                    CHECK(0, "setup '%s': %s", texts[i], msg.text);
                    clv_chain_desc_destroy(desc);
                    goto done;
                }
                clv_chain_desc_destroy(desc);
            }
            if (!inputs || !want || clv_stage_create(ctx, &opt, chains[0], &stage, &msg)) {
                CHECK(0, "stage: %s", msg.text);
                goto done;
            }
            int used[FRAMES], submitted = 0, taken = 0;
            while (taken < FRAMES) {
                uint8_t *slot;
                /* A new chain every third frame; the stage takes it once
                 * the frames of the old size are out (input NULL till then). */
                if (submitted < FRAMES && submitted % 3 == 0 &&
                    (submitted == 0 || used[submitted - 1] != (submitted / 3) % N))
                    clv_stage_set_chain(stage, chains[(submitted / 3) % N]);
                while (submitted < FRAMES && (slot = clv_stage_input(stage))) {
                    used[submitted] = (submitted / 3) % N;
                    fill_bytes(inputs + in_size * (size_t)submitted, in_size,
                               (uint32_t)submitted + 5);
                    memcpy(slot, inputs + in_size * (size_t)submitted, in_size);
                    if (clv_stage_submit(stage, (uint64_t)submitted, &msg)) {
                        CHECK(0, "submit: %s", msg.text);
                        goto done;
                    }
                    submitted++;
                    if (submitted % 3 == 0)
                        break; /* the next one may take another chain */
                }
                if (!clv_stage_pending(stage))
                    continue;
                const uint8_t *got;
                uint64_t index;
                if (clv_stage_output(stage, &got, &index, &msg)) {
                    CHECK(0, "output: %s", msg.text);
                    goto done;
                }
                const clv_size *sz = &sizes[used[taken]];
                int gw, gh;
                clv_stage_output_size(stage, &gw, &gh);
                CHECK(gw == sz->width && gh == sz->height,
                      "%s frame %d ('%s'): the stage says %dx%d, the chain makes %dx%d",
                      clv_pixfmt_name(f), taken, texts[used[taken]], gw, gh, sz->width, sz->height);
                /* No filter: the stage passes the frame through untouched. */
                if (!texts[used[taken]][0])
                    memcpy(want, inputs + in_size * (size_t)taken, in_size);
                else
                    reference_sized(f, c, f, c, refs[used[taken]], inputs + in_size * (size_t)taken,
                                    W, H, sz->width, sz->height, index, want);
                CHECK(!memcmp(got, want, clv_pixfmt_size(f, sz->width, sz->height)),
                      "%s frame %d ('%s', %dx%d, %s shape) differs from its chain's reference",
                      clv_pixfmt_name(f), taken, texts[used[taken]], sz->width, sz->height,
                      shape == 1 ? "row" : "gpu");
                clv_stage_release(stage);
                taken++;
            }
            /* A parameter that changes the size: the next frame has it. */
            clv_stage_set_chain(stage, chains[0]);
            if (clv_chain_set_param(chains[0], 0, "w", "iw-11", &msg)) {
                CHECK(0, "set_param: %s", msg.text);
                goto done;
            }
            uint8_t *slot = clv_stage_input(stage);
            const uint8_t *got;
            uint64_t index;
            int gw = 0, gh = 0;
            CHECK(slot != NULL, "no input after a parameter changed the size");
            if (slot) {
                memcpy(slot, inputs, in_size);
                if (clv_stage_submit(stage, 99, &msg) ||
                    clv_stage_output(stage, &got, &index, &msg))
                    CHECK(0, "after set_param: %s", msg.text);
                else {
                    clv_stage_output_size(stage, &gw, &gh);
                    CHECK(gw == W - 11 && gh == H - 3, "after set_param the frame is %dx%d", gw,
                          gh);
                    clv_stage_release(stage);
                }
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
        }
    return 0;
}

/* A parameter changed before each submit while frames are in flight (on
 * several devices, each sent on its device's own thread): every frame comes
 * out with the value in force when it was submitted, equal to its
 * reference, in order, in both work shapes. */
int test_stage_params_devices(void)
{
    enum { W = 37, H = 21, FRAMES = 28, VALUES = 7 };
    const clv_pixfmt f = CLV_PIX_YUV420P;
    const clv_color c = {CLV_MATRIX_BT601, 0};
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        clv_msg msg = {{0}};
        clv_chain_desc *desc = NULL;
        clv_chain *chain = NULL;
        clv_ref_chain *refs[VALUES] = {0};
        clv_stage *stage = NULL;
        size_t size = clv_pixfmt_size(f, W, H);
        uint8_t *inputs = malloc(size * FRAMES), *want = malloc(size);
        int value[FRAMES], submitted = 0, taken = 0;
        clv_stage_options opt = {.struct_size = sizeof(clv_stage_options),
                                 .width = W,
                                 .height = H,
                                 .in_format = f,
                                 .out_format = f,
                                 .in_color = c,
                                 .out_color = c,
                                 .slots = 3};
        for (int v = 0; v < VALUES; v++) {
            char text[64];
            clv_chain_desc *d = NULL;
            snprintf(text, sizeof text, "threshold=t=%d", 40 + 25 * v);
            CHECK(clv_chain_parse(text, &d, &msg) == 0 && clv_ref_chain_create(d, &refs[v]) == 0,
                  "reference '%s': %s", text, msg.text);
            clv_chain_desc_destroy(d);
        }
        if (!inputs || !want || clv_chain_parse("threshold=t=40", &desc, &msg) ||
            clv_chain_create(ctx, desc, &chain, &msg) ||
            clv_stage_create(ctx, &opt, chain, &stage, &msg)) {
            CHECK(0, "setup: %s", msg.text);
            goto done;
        }
        while (taken < FRAMES) {
            uint8_t *slot;
            while (submitted < FRAMES && (slot = clv_stage_input(stage))) {
                char text[16];
                value[submitted] = (submitted * 3) % VALUES;
                snprintf(text, sizeof text, "%d", 40 + 25 * value[submitted]);
                if (clv_chain_set_param(chain, 0, "t", text, &msg)) {
                    CHECK(0, "set_param: %s", msg.text);
                    goto done;
                }
                fill_bytes(inputs + size * (size_t)submitted, size, (uint32_t)submitted + 9);
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
            CHECK(index == (uint64_t)taken, "frame %llu came out as number %d",
                  (unsigned long long)index, taken);
            reference_sized(f, c, f, c, refs[value[taken]], inputs + size * (size_t)taken, W, H, W,
                            H, index, want);
            CHECK(!memcmp(got, want, size),
                  "frame %d (t=%d, %s shape, %d devices) differs from its reference", taken,
                  40 + 25 * value[taken], shape == 1 ? "row" : "gpu",
                  clv_context_device_count(ctx));
            clv_stage_release(stage);
            taken++;
        }
    done:
        clv_stage_destroy(stage);
        clv_chain_destroy(chain);
        clv_chain_desc_destroy(desc);
        for (int v = 0; v < VALUES; v++)
            clv_ref_chain_destroy(refs[v]);
        free(inputs);
        free(want);
        clv_context_destroy(ctx);
    }
    return 0;
}

/* A chain that can't make the stage's size is refused by
 * clv_stage_use_chain (the stage keeps its chain) and by the first submit
 * after clv_stage_set_chain, with the filter and the sizes named. */
int test_stage_bad_size(void)
{
    clv_context *ctx = test_context(0);
    if (!ctx)
        return 1;
    clv_msg msg = {{0}};
    clv_chain_desc *desc = NULL;
    clv_chain *bad = NULL;
    clv_stage *stage = NULL;
    clv_color c = {CLV_MATRIX_BT601, 0};
    clv_stage_options opt = {.struct_size = sizeof(clv_stage_options),
                             .width = 16,
                             .height = 8,
                             .in_format = CLV_PIX_RGBA,
                             .out_format = CLV_PIX_RGBA,
                             .in_color = c,
                             .out_color = c,
                             .slots = 2};
    if (clv_chain_parse("median,crop=w=iw+1", &desc, &msg) ||
        clv_chain_create(ctx, desc, &bad, &msg) ||
        clv_stage_create(ctx, &opt, NULL, &stage, &msg)) {
        CHECK(0, "setup: %s", msg.text);
        goto done;
    }
    CHECK(clv_stage_use_chain(stage, bad, &msg) != 0, "a crop larger than the frame was taken");
    CHECK(strstr(msg.text, "crop") && strstr(msg.text, "#2") && strstr(msg.text, "16x8"),
          "the message names the filter, its place and the size: %s", msg.text);
    clv_stage_set_chain(stage, bad);
    uint8_t *slot = clv_stage_input(stage);
    CHECK(slot != NULL, "no input");
    memset(&msg, 0, sizeof msg);
    if (slot)
        CHECK(clv_stage_submit(stage, 0, &msg) != 0 && strstr(msg.text, "crop"),
              "the submit after a bad chain: '%s'", msg.text);
    clv_stage_set_chain(stage, NULL); /* and the stage goes on */
    slot = clv_stage_input(stage);
    const uint8_t *got;
    uint64_t index;
    CHECK(slot && !clv_stage_submit(stage, 1, &msg) && !clv_stage_output(stage, &got, &index, &msg),
          "the stage after the bad chain: %s", msg.text);
done:
    clv_stage_destroy(stage);
    clv_chain_destroy(bad);
    clv_chain_desc_destroy(desc);
    clv_context_destroy(ctx);
    return 0;
}

/* ---- A stage with a graph --------------------------------------------- */

/* One graph through clv_stage_create_graph against the references (each
 * input converted, the reference graph, the conversion out), byte for
 * byte, frames frames with 3 slots in flight; inputs of their own sizes
 * and formats, one input the graph does not read. */
static int graph_case(clv_context *ctx, const char *text, int inputs, const int *w, const int *h,
                      const clv_pixfmt *f, clv_pixfmt out_f, int frames)
{
    clv_color c = {CLV_MATRIX_BT709, 0};
    clv_msg msg = {{0}};
    clv_graph_desc *desc = NULL;
    clv_graph *graph = NULL;
    clv_ref_graph *ref = NULL;
    clv_stage *stage = NULL;
    int bad = 0;
    if (clv_graph_parse(text, inputs, NULL, &desc, &msg) || clv_ref_graph_create(desc, &ref) ||
        clv_graph_create(ctx, desc, 8, &graph, &msg)) {
        fprintf(stderr, "  %s: %s\n", text, msg.text);
        bad = 1;
        goto done;
    }
    clv_stage_options opt;
    clv_stage_options_init(&opt);
    opt.width = w[0];
    opt.height = h[0];
    opt.in_format = f[0];
    opt.in_color = c;
    opt.out_format = out_f;
    opt.out_color = c;
    opt.slots = 3;
    clv_stage_input_format in_f[CLV_GRAPH_INPUTS] = {{0}};
    clv_size sizes[CLV_GRAPH_INPUTS] = {{0}}, out;
    for (int i = 0; i < inputs; i++) {
        in_f[i] = (clv_stage_input_format){w[i], h[i], f[i], c};
        sizes[i].width = w[i];
        sizes[i].height = h[i];
    }
    if (clv_graph_desc_output_size(desc, sizes, &out, &msg) ||
        clv_stage_create_graph(ctx, &opt, graph, in_f, &stage, &msg)) {
        fprintf(stderr, "  %s: %s\n", text, msg.text);
        bad = 1;
        goto done;
    }
    size_t out_n = clv_pixfmt_size(out_f, out.width, out.height);
    uint8_t *want = malloc(out_n * (size_t)frames);
    for (int k = 0; k < frames && !bad; k++) {
        clv_image img[CLV_GRAPH_INPUTS] = {{0}}, dst = {0};
        const clv_image *ins[CLV_GRAPH_INPUTS] = {NULL};
        for (int i = 0; i < inputs; i++) {
            uint8_t *p = clv_stage_input_at(stage, i);
            if (!clv_graph_desc_uses(desc, i)) {
                bad |= p != NULL;
                continue;
            }
            size_t n = clv_pixfmt_size(f[i], w[i], h[i]);
            fill_bytes(p, n, (uint32_t)(k * 31 + i + 1));
            clv_image_alloc(&img[i], w[i], h[i]);
            clv_ref_to_rgba(f[i], c, p, &img[i]);
            ins[i] = &img[i];
        }
        clv_image_alloc(&dst, out.width, out.height);
        clv_ref_graph_run(ref, ins, &dst, (uint64_t)k, k / 25.0);
        clv_ref_from_rgba(out_f, c, &dst, want + out_n * (size_t)k);
        for (int i = 0; i < inputs; i++)
            clv_image_free(&img[i]);
        clv_image_free(&dst);
        if (clv_stage_submit_at(stage, (uint64_t)k, k / 25.0, &msg)) {
            fprintf(stderr, "  %s: %s\n", text, msg.text);
            bad = 1;
        }
        while (!bad &&
               (clv_stage_pending(stage) == 3 || (k == frames - 1 && clv_stage_pending(stage)))) {
            const uint8_t *got;
            uint64_t index;
            if (clv_stage_output(stage, &got, &index, &msg)) {
                fprintf(stderr, "  %s: %s\n", text, msg.text);
                bad = 1;
                break;
            }
            if (memcmp(got, want + out_n * index, out_n)) {
                fprintf(stderr, "  %s: frame %llu differs from the reference\n", text,
                        (unsigned long long)index);
                bad = 1;
            }
            clv_stage_release(stage);
        }
    }
    free(want);
done:
    clv_stage_destroy(stage);
    clv_graph_destroy(graph);
    clv_ref_graph_destroy(ref);
    clv_graph_desc_destroy(desc);
    return bad;
}

int test_stage_graph(void)
{
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        int w1[] = {17, 3}, h1[] = {9, 9};
        clv_pixfmt f1[] = {CLV_PIX_YUV420P, CLV_PIX_RGBA};
        CHECK(!graph_case(ctx, "[0][1]hstack", 2, w1, h1, f1, CLV_PIX_YUV420P, 5),
              "hstack of yuv420p 17x9 and rgba 3x9 (shape %d)", shape);
        int w2[] = {3, 1, 3}, h2[] = {2, 1, 5};
        clv_pixfmt f2[] = {CLV_PIX_NV12, CLV_PIX_YUV420P, CLV_PIX_BGRA};
        CHECK(!graph_case(ctx, "[0][2]vstack", 3, w2, h2, f2, CLV_PIX_RGBA, 4),
              "vstack of nv12 3x2 and bgra 3x5, input 1 not read (shape %d)", shape);
        int w3[] = {641, 64}, h3[] = {359, 359};
        clv_pixfmt f3[] = {CLV_PIX_YUV420P, CLV_PIX_YUV420P};
        CHECK(!graph_case(ctx, "[0]split[a][b];[a][1][b]hstack=inputs=3", 2, w3, h3, f3,
                          CLV_PIX_NV12, 3),
              "split and hstack of 641x359 and 64x359 (shape %d)", shape);
        clv_context_destroy(ctx);
    }
    return 0;
}

/* ---- overlay's format=yuv420 in the planes ----------------------------- */

/* FAST_DIV255 */
static int div255(int v)
{
    return ((v + 128) * 257) >> 16;
}

/* The reference of the stage's overlay in Y'CbCr: ffmpeg 5.1's
 * blend_slice_yuv (blend_plane, 8 bits, main without alpha) as it reads,
 * over the main frame's planes (in_f) and the logo converted by the
 * stage's reference conversion (clv_ref_from_rgba, colours c), its alpha
 * from its RGBA; x and y already rounded to even. out: out_f's packed
 * planes. */
static void overlay_yuv_ref(const uint8_t *in, clv_pixfmt in_f, int w, int h, const clv_image *logo,
                            clv_color c, int x, int y, int premul, clv_pixfmt out_f, uint8_t *out)
{
    int cw = (w + 1) / 2, ch = (h + 1) / 2;
    uint8_t *planes[3];
    planes[0] = malloc((size_t)w * h);
    planes[1] = malloc((size_t)cw * ch);
    planes[2] = malloc((size_t)cw * ch);
    memcpy(planes[0], in, (size_t)w * h);
    for (int i = 0; i < cw * ch; i++) {
        planes[1][i] = in_f == CLV_PIX_NV12 ? in[w * h + 2 * i] : in[w * h + i];
        planes[2][i] = in_f == CLV_PIX_NV12 ? in[w * h + 2 * i + 1] : in[w * h + cw * ch + i];
    }
    int ow = logo ? logo->width : 1, oh = logo ? logo->height : 1;
    int owc = (ow + 1) / 2, ohc = (oh + 1) / 2;
    uint8_t *lyuv = malloc((size_t)ow * oh + 2 * (size_t)owc * ohc);
    if (logo)
        clv_ref_from_rgba(CLV_PIX_YUV420P, c, logo, lyuv);
    const uint8_t *src[3] = {lyuv, lyuv + ow * oh, lyuv + ow * oh + owc * ohc};
    int draw = logo && x < w && x + ow >= 0 && y < h && y + oh >= 0;
    for (int i = 0; draw && i < 3; i++) {
        int sub = i > 0, src_wp = (ow + sub) >> sub, src_hp = (oh + sub) >> sub;
        int dst_wp = (w + sub) >> sub, dst_hp = (h + sub) >> sub, yp = y >> sub, xp = x >> sub;
        int j = -yp > 0 ? -yp : 0, jmax = -yp + dst_hp;
        jmax = jmax < src_hp ? jmax : src_hp;
        jmax = jmax < dst_hp ? jmax : dst_hp;
        jmax = jmax < yp + src_hp ? jmax : yp + src_hp;
        for (int j_end = j + jmax; j < j_end; j++) {
            int kmax = -xp + dst_wp < src_wp ? -xp + dst_wp : src_wp;
            for (int k = -xp > 0 ? -xp : 0; k < kmax; k++) {
                /* a[] is the alpha plane at (k << sub, j << sub) */
#define A(dx, dy)                                                                                  \
    logo->pixels[(size_t)((j << sub) + (dy)) * logo->stride + 4 * (size_t)((k << sub) + (dx)) + 3]
                int alpha;
                if (sub && j + 1 < src_hp && k + 1 < src_wp) {
                    alpha = (A(0, 0) + A(0, 1) + A(1, 0) + A(1, 1)) >> 2;
                } else if (sub) {
                    int ah = k + 1 < src_wp ? (A(0, 0) + A(1, 0)) >> 1 : A(0, 0);
                    int av = j + 1 < src_hp ? (A(0, 0) + A(0, 1)) >> 1 : A(0, 0);
                    alpha = (av + ah) >> 1;
                } else {
                    alpha = A(0, 0);
                }
#undef A
                uint8_t *d = &planes[i][(yp + j) * dst_wp + xp + k];
                int s = src[i][j * src_wp + k];
                if (!premul)
                    *d = (uint8_t)div255(*d * (255 - alpha) + s * alpha);
                else if (i) {
                    int v = div255((*d - 128) * (255 - alpha)) + s - 128;
                    *d = (uint8_t)((v < -128 ? -128 : v > 128 ? 128 : v) + 128);
                } else {
                    int v = div255(*d * (255 - alpha)) + s - 16;
                    *d = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
                }
            }
        }
    }
    memcpy(out, planes[0], (size_t)w * h);
    for (int i = 0; i < cw * ch; i++) {
        if (out_f == CLV_PIX_NV12) {
            out[w * h + 2 * i] = planes[1][i];
            out[w * h + 2 * i + 1] = planes[2][i];
        } else {
            out[w * h + i] = planes[1][i];
            out[w * h + cw * ch + i] = planes[2][i];
        }
    }
    free(lyuv);
    for (int i = 0; i < 3; i++)
        free(planes[i]);
}

/* A logo of w x h: random colours, alpha a ramp with runs of 0 and 255. */
static void fill_logo(clv_image *img, uint32_t seed)
{
    fill_bytes(img->pixels, (size_t)img->stride * img->height, seed);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            int a = (x * 3 + y * 40) % 300;
            img->pixels[(size_t)y * img->stride + 4 * (size_t)x + 3] =
                (uint8_t)(a > 255 ? (a > 280 ? 0 : 255) : a);
        }
}

/* [0][1]overlay=x=X:y=Y(extra) through the stage, main w x h (in_f) and a
 * logo lw x lh (rgba), frames frames (the logo absent from frame 1 when
 * absent): every frame equal to overlay_yuv_ref. */
static int overlay_yuv_case(clv_context *ctx, int w, int h, clv_pixfmt in_f, int lw, int lh, int x,
                            int y, const char *extra, clv_pixfmt out_f, int absent)
{
    clv_color c = {CLV_MATRIX_BT709, 0};
    clv_msg msg = {{0}};
    char text[200];
    snprintf(text, sizeof text, "[0][1]overlay=x=%d:y=%d%s", x, y, extra);
    int premul = strstr(extra, "premultiplied") != NULL;
    clv_graph_desc *desc = NULL;
    clv_graph *graph = NULL;
    clv_stage *stage = NULL;
    int bad = 0;
    if (clv_graph_parse(text, 2, NULL, &desc, &msg) ||
        clv_graph_create(ctx, desc, 8, &graph, &msg)) {
        fprintf(stderr, "  %s: %s\n", text, msg.text);
        bad = 1;
        goto done;
    }
    clv_stage_options opt;
    clv_stage_options_init(&opt);
    opt.width = w;
    opt.height = h;
    opt.in_format = in_f;
    opt.in_color = c;
    opt.out_format = out_f;
    opt.out_color = c;
    opt.slots = 2;
    clv_stage_input_format in_fmt[2] = {{0}, {lw, lh, CLV_PIX_RGBA, c}};
    if (clv_stage_create_graph(ctx, &opt, graph, in_fmt, &stage, &msg)) {
        fprintf(stderr, "  %s: %s\n", text, msg.text);
        bad = 1;
        goto done;
    }
    size_t n = clv_pixfmt_size(out_f, w, h), in_n = clv_pixfmt_size(in_f, w, h);
    uint8_t *want = malloc(n);
    for (int k = 0; k < 3 && !bad; k++) {
        uint8_t *p = clv_stage_input_at(stage, 0), *q = clv_stage_input_at(stage, 1);
        fill_bytes(p, in_n, (uint32_t)k * 7 + 3);
        clv_image logo = {0};
        clv_image_alloc(&logo, lw, lh);
        fill_logo(&logo, (uint32_t)k + 11);
        for (int r = 0; r < lh; r++)
            memcpy(q + (size_t)r * lw * 4, logo.pixels + (size_t)r * logo.stride, (size_t)lw * 4);
        int gone = absent && k == 1;
        if (gone)
            clv_stage_input_absent(stage, 1);
        overlay_yuv_ref(p, in_f, w, h, gone ? NULL : &logo, c, x & ~1, y & ~1, premul, out_f, want);
        clv_image_free(&logo);
        const uint8_t *got;
        uint64_t index;
        if (clv_stage_submit_at(stage, (uint64_t)k, k / 25.0, &msg) ||
            clv_stage_output(stage, &got, &index, &msg)) {
            fprintf(stderr, "  %s: %s\n", text, msg.text);
            bad = 1;
            break;
        }
        if (memcmp(got, want, n)) {
            size_t i = 0;
            while (got[i] == want[i])
                i++;
            fprintf(stderr, "  %s %dx%d: frame %d differs at byte %zu: %d, reference %d\n", text, w,
                    h, k, i, got[i], want[i]);
            bad = 1;
        }
        clv_stage_release(stage);
    }
    free(want);
done:
    clv_stage_destroy(stage);
    clv_graph_destroy(graph);
    clv_graph_desc_destroy(desc);
    return bad;
}

int test_stage_overlay_yuv(void)
{
    static const struct {
        int w, h, lw, lh, x, y;
        const char *extra;
        int absent;
    } cases[] = {
        {17, 9, 3, 2, 5, 3, "", 1},            /* odd x, y: rounded down to even */
        {17, 9, 17, 9, -3, -5, "", 0},         /* partly outside, up and left */
        {17, 9, 7, 5, 13, 7, "", 0},           /* partly outside, down and right */
        {1, 1, 1, 1, 0, 0, "", 0},             /* 1x1 */
        {3, 2, 3, 2, 1, 1, "", 0},             /* 3x2 over 3x2 at (0, 0) */
        {3, 2, 1, 1, 2, 0, ":format=auto", 0}, /* auto is yuv420 on 4:2:0 */
        {17, 9, 9, 7, 4, 2, ":alpha=premultiplied", 0},
        {641, 359, 200, 80, 431, 10, "", 0}, /* x=W-w-10:y=10 */
        {641, 359, 17, 9, -10, 350, "", 1},  /* partly outside, left and down */
    };
    /* both shapes; the staging shared (a CPU's: in place where the layouts
     * match) and copied (a GPU's: the planes copied as they are blended) */
    for (int run = 0; run < 4; run++) {
        int shape = 1 + run % 2, staging = run / 2;
        clv_context_options o = {
            .struct_size = sizeof o, .device = test_device(), .shape = shape, .staging = staging};
        clv_context *ctx = NULL;
        clv_msg cmsg = {{0}};
        if (clv_context_create(&o, &ctx, &cmsg)) {
            fprintf(stderr, "cannot open a device: %s\n", cmsg.text);
            return 1;
        }
        CHECK(!staging || !clv_context_shared_staging(ctx), "staging=1: the staging is shared");
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            clv_pixfmt in_f = i % 2 ? CLV_PIX_NV12 : CLV_PIX_YUV420P;
            clv_pixfmt out_f = i % 3 ? CLV_PIX_YUV420P : CLV_PIX_NV12;
            CHECK(!overlay_yuv_case(ctx, cases[i].w, cases[i].h, in_f, cases[i].lw, cases[i].lh,
                                    cases[i].x, cases[i].y, cases[i].extra, out_f, cases[i].absent),
                  "overlay in Y'CbCr, case %zu (%dx%d, logo %dx%d at %d,%d%s, %s in, %s out, "
                  "shape %d, staging %d)",
                  i, cases[i].w, cases[i].h, cases[i].lw, cases[i].lh, cases[i].x, cases[i].y,
                  cases[i].extra, clv_pixfmt_name(in_f), clv_pixfmt_name(out_f), shape, staging);
        }
        /* format=rgb: the RGBA blend (the stage's reference through RGBA) */
        int w1[] = {17, 7}, h1[] = {9, 5};
        clv_pixfmt f1[] = {CLV_PIX_YUV420P, CLV_PIX_RGBA};
        CHECK(
            !graph_case(ctx, "[0][1]overlay=x=3:y=1:format=rgb", 2, w1, h1, f1, CLV_PIX_YUV420P, 3),
            "format=rgb through the stage: the RGBA blend (shape %d)", shape);
        /* the overlay not the graph's output, or over a filtered main: RGBA */
        CHECK(!graph_case(ctx, "[0][1]overlay=x=3:y=1,hflip", 2, w1, h1, f1, CLV_PIX_YUV420P, 3),
              "overlay inside a larger graph: the RGBA blend (shape %d)", shape);
        CHECK(!graph_case(ctx, "[0]vflip[m];[m][1]overlay=x=3:y=1", 2, w1, h1, f1, CLV_PIX_YUV420P,
                          3),
              "overlay over a filtered main: the RGBA blend (shape %d)", shape);
        clv_context_destroy(ctx);
    }
    return 0;
}

/* Frees blocks on a thread of its own (an encoder's), beside the stage. */
typedef struct block_batch {
    clv_block **blocks;
    int count;
} block_batch;

static void *free_blocks(void *arg)
{
    const block_batch *b = arg;
    for (int i = 0; i < b->count; i++)
        clv_block_free(b->blocks[i]);
    return NULL;
}

static void free_on_thread(clv_block **blocks, int count)
{
    block_batch batch = {blocks, count};
    pthread_t t;
    if (pthread_create(&t, NULL, free_blocks, &batch)) {
        free_blocks(&batch);
        return;
    }
    pthread_join(t, NULL);
}

/* One run of copied_blocks: frames of f, w x h, written into a ring of the
 * stage's blocks (packed as the staging's, or planes apart with rows
 * padded) and uploaded from there; every output kept, checked against the
 * reference after later frames went through, half freed on another thread
 * while the stage runs, the rest after it is destroyed. Several devices:
 * device 1 fails at its first frame out (the one every device is given to
 * be measured: a slower one may get no second of 9), the frame sent again
 * from its block. */
static void copied_case(clv_context *ctx, const char *where, clv_pixfmt f, int w, int h, int padded)
{
    enum { FRAMES = 9 };
    clv_color c = {CLV_MATRIX_BT709, 0};
    const int yuv = clv_pixfmt_is_yuv(f), nv12 = f == CLV_PIX_NV12, cw = (w + 1) / 2,
              ch = (h + 1) / 2, devices = clv_context_device_count(ctx);
    char what[200];
    snprintf(what, sizeof what, "%s %dx%d %s, %s", clv_pixfmt_name(f), w, h,
             padded ? "planes apart" : "packed", where);
    size_t in_size = clv_pixfmt_size(f, w, h), offset[3] = {0, 0, 0};
    int stride[3] = {0, 0, 0};
    if (!yuv) {
        stride[0] = 4 * w + (padded ? 12 : 0);
        offset[0] = padded ? 32 : 0;
    } else if (!padded) { /* as the staging packs them */
        stride[0] = w, stride[1] = nv12 ? 2 * cw : cw, stride[2] = nv12 ? 0 : cw;
        offset[1] = (size_t)w * (size_t)h;
        offset[2] = nv12 ? 0 : offset[1] + (size_t)cw * (size_t)ch;
    } else {
        stride[0] = w + 70, stride[1] = (nv12 ? 2 * cw : cw) + 3, stride[2] = nv12 ? 0 : cw + 130;
        offset[0] = 64;
        offset[1] = offset[0] + (size_t)stride[0] * (size_t)h + 5;
        offset[2] = nv12 ? 0 : offset[1] + (size_t)stride[1] * (size_t)ch + 200;
    }
    size_t block_size = !yuv   ? offset[0] + (size_t)stride[0] * (size_t)h
                        : nv12 ? offset[1] + (size_t)stride[1] * (size_t)ch
                               : offset[2] + (size_t)stride[2] * (size_t)ch;
    /* The ring: every slot of every device in flight, and two being written. */
    const int ring = 3 * devices + 2;
    clv_msg msg = {{0}};
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    clv_ref_chain *ref = NULL;
    clv_stage *stage = NULL;
    clv_block *blocks[3 * CLV_DEVICES_MAX + 2] = {NULL}, *kept[FRAMES] = {NULL};
    const uint8_t *kept_at[FRAMES] = {NULL};
    int kept_count = 0, freed = 0;
    uint8_t *packed = malloc(in_size * FRAMES), *want = malloc(in_size * FRAMES);
    clv_stage_options opt = {.struct_size = sizeof(clv_stage_options),
                             .width = w,
                             .height = h,
                             .in_format = f,
                             .out_format = f,
                             .in_color = c,
                             .out_color = c,
                             .slots = 3};
    if (!packed || !want || clv_chain_parse("sharpen", &desc, &msg) ||
        clv_chain_create(ctx, desc, &chain, &msg) || clv_ref_chain_create(desc, &ref) ||
        clv_stage_create(ctx, &opt, chain, &stage, &msg)) {
        CHECK(0, "%s: setup: %s", what, msg.text);
        goto done;
    }
    if (devices > 1)
        clv_stage_inject_fault(stage, 1, 0);
    for (int i = 0; i < ring; i++) {
        blocks[i] = clv_stage_block_new(stage, block_size);
        CHECK(blocks[i] != NULL, "%s: clv_stage_block_new gave NULL on copied staging", what);
        if (!blocks[i])
            goto done;
    }
    for (int i = 0; i < FRAMES; i++) {
        uint8_t *in = packed + in_size * (size_t)i;
        fill_bytes(in, in_size, (uint32_t)(i * 57 + w * 3 + h + f));
        reference(f, c, f, c, ref, in, w, h, (uint64_t)i, want + in_size * (size_t)i);
    }
    int submitted = 0, taken = 0;
    while (taken < FRAMES) {
        while (submitted < FRAMES && clv_stage_input(stage)) {
            clv_block *b = blocks[submitted % ring];
            const uint8_t *in = packed + in_size * (size_t)submitted;
            if (yuv) {
                fill_block(clv_block_pixels(b), block_size, f, w, h, in, offset, stride);
            } else {
                memset(clv_block_pixels(b), 0xAB, block_size);
                for (int y = 0; y < h; y++)
                    memcpy(clv_block_pixels(b) + offset[0] + (size_t)y * (size_t)stride[0],
                           in + (size_t)y * 4 * (size_t)w, 4 * (size_t)w);
            }
            if (clv_stage_submit_block(stage, (uint64_t)submitted, b, offset, stride, &msg)) {
                CHECK(0, "%s: submit %d: %s", what, submitted, msg.text);
                goto done;
            }
            submitted++;
        }
        const uint8_t *got;
        uint64_t index = 99;
        if (clv_stage_output(stage, &got, &index, &msg)) {
            CHECK(0, "%s: output: %s", what, msg.text);
            goto done;
        }
        const uint8_t *w_ = want + in_size * (size_t)taken;
        size_t d = 0;
        while (d < in_size && got[d] == w_[d])
            d++;
        CHECK(index == (uint64_t)taken && d == in_size,
              "%s frame %d (#%llu out): byte %zu is %d, reference %d", what, taken,
              (unsigned long long)index, d, d < in_size ? got[d] : 0, d < in_size ? w_[d] : 0);
        clv_block *k = clv_stage_keep(stage);
        CHECK(k != NULL && clv_block_pixels(k) == got, "%s frame %d: clv_stage_keep gave %s", what,
              taken, k ? "other memory" : "NULL");
        if (k) {
            kept_at[kept_count] = got;
            kept[kept_count++] = k;
        }
        clv_stage_release(stage);
        taken++;
        /* Half the kept frames go back from another thread mid-run. */
        if (taken == FRAMES / 2) {
            free_on_thread(kept, kept_count / 2);
            freed = kept_count / 2;
        }
    }
    for (int i = freed; i < kept_count; i++)
        CHECK(!memcmp(kept_at[i], want + in_size * (size_t)i, in_size),
              "%s: kept frame %d changed after later frames", what, i);
    if (devices > 1) {
        clv_stage_device s1;
        clv_stage_device_stats(stage, 1, &s1);
        CHECK(s1.failed, "%s: the injected fault of device 1 did not happen", what);
    }
done:
    clv_stage_destroy(stage);
    stage = NULL;
    for (int i = freed; i < kept_count; i++) /* the memory outlives the stage */
        CHECK(!memcmp(kept_at[i], want + in_size * (size_t)i, in_size),
              "%s: kept frame %d changed when the stage was destroyed", what, i);
    free_on_thread(kept + freed, kept_count - freed);
    free_on_thread(blocks, ring);
    clv_chain_desc_destroy(desc);
    clv_chain_destroy(chain);
    clv_ref_chain_destroy(ref);
    free(packed);
    free(want);
}

/* Copied staging (a GPU's, forced on PoCL): frames enter from the stage's
 * pinned blocks and leave in its pinned memory (clv_stage_keep), both
 * shapes, packed planes (one upload) and planes apart (an upload a plane),
 * Y'CbCr and RGBA, awkward sizes; kept blocks outlive the stage and are
 * freed from another thread. With several devices (ctest: two PoCL
 * devices), the blocks are the first device's, sent to either, one device
 * failing. */
int test_stage_blocks_copied(void)
{
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}};
    static const clv_pixfmt formats[] = {CLV_PIX_YUV420P, CLV_PIX_NV12, CLV_PIX_RGBA};
    for (int run = 0; run < 3; run++) {
        /* run 2: every device, the shape each takes */
        clv_context_options co = {.struct_size = sizeof(clv_context_options),
                                  .device = run < 2 ? "0" : "all",
                                  .shape = run < 2 ? 1 + run : 0,
                                  .staging = 1};
        clv_context *ctx = NULL;
        clv_msg msg = {{0}};
        if (clv_context_create(&co, &ctx, &msg)) {
            CHECK(0, "%s", msg.text);
            return 1;
        }
        int devices = clv_context_device_count(ctx);
        CHECK(!clv_context_shared_staging(ctx), "staging = 1 still shares memory");
        if (run == 2 && devices < 2) {
            printf("  one device only: several devices left out (POCL_DEVICES=\"pthread "
                   "pthread\")\n");
            clv_context_destroy(ctx);
            break;
        }
        const char *where = run == 0 ? "row shape" : run == 1 ? "gpu shape" : "two devices";
        printf("  %s, copied staging\n", where);
        /* The sanitizer builds: 641x359 in the row shape alone (the host's
         * side is the same in both shapes). */
        const int sanitized = getenv("CLVID_SANITIZED") != NULL;
        for (int fi = 0; fi < 3; fi++)
            for (int si = 0; si < 4; si++)
                for (int padded = 0; padded < 2; padded++)
                    if ((run < 2 || si == 2) && /* two devices: 17x9 */
                        !(sanitized && run == 1 && si == 3))
                        copied_case(ctx, where, formats[fi], sizes[si][0], sizes[si][1], padded);
        clv_context_destroy(ctx);
    }
    return 0;
}
