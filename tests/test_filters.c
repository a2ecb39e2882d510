/* test_filters.c - every filter on the device equals its C reference bit for
 * bit: several parameter sets, awkward sizes, flat/noisy/saturated/gradient
 * content, in both work shapes (rows for CPUs, pixel groups for GPUs). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "filter_cases.h"
#include "harness.h"

static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}, {1921, 1081}};
#define SIZE_COUNT ((int)(sizeof sizes / sizeof sizes[0]))

/* A whole chain: ping-pong frames, scratch and state together. */
static const filter_case chain_cases[] = {
    {"median=radius=2,sharpen,equalize=mode=gray", 1, 1},
    {"threshold=100,erode=radius=1:iterations=2,dilate,noise=amount=0.2,quantize=colors=4", 1, 2},
};

/* Runs cases[0..count) of a filter's list, the first being its case
 * number `first` (the rules below keep some sizes to a filter's first
 * cases). */
static int run_cases(clv_context *ctx, const filter_case *cases, int first, int count, int depth)
{
    /* The sanitizer builds check the host's memory, whose code paths 641x359
     * already takes, with one content (the paths do not depend on it); the
     * big size and every content are there for the device, which the plain
     * build checks. The C references run several times slower under ASan. */
    int sanitized = getenv("CLVID_SANITIZED") != NULL;
    /* CLVID_TEST_TIMES=1: each case's seconds (where the suite's time goes). */
    int times = getenv("CLVID_TEST_TIMES") != NULL;
    int bad = 0;
    for (int i = 0; i < count; i++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (depth == 16) {
            /* At 16 bits: the cases whose every filter runs there. */
            clv_chain_desc *desc = NULL;
            int deep =
                !clv_chain_parse(cases[i].chain, &desc, NULL) && !clv_chain_desc_deep(desc, NULL);
            clv_chain_desc_destroy(desc);
            if (!deep)
                continue;
        }
        const int number = first + i; /* in the filter's list */
        for (int s = 0; s < SIZE_COUNT; s++) {
            int w = sizes[s][0], h = sizes[s][1], big = w > 1000;
            if (big && (cases[i].small_only || sanitized))
                continue;
            /* At 16 bits the big size for a filter's first two cases: the
             * 16-bit kernels are the 8-bit ones' source with wider pixels,
             * so the work shape's addressing at that size is the same code
             * (every case runs it at 8 bits, and at 641x359 and the small
             * sizes at 16). */
            if (big && depth == 16 && number >= 2)
                continue;
            /* Sanitized: 641x359 with noise (the row slices' and the work
             * shape's host paths) for a filter's first two cases at 8 bits
             * but those of a slow reference (small_only 2); the rest at
             * the small sizes. The references are several times slower
             * under ASan, and every filter runs at two depths. */
            if (sanitized && w > 100 && (number >= 2 || depth == 16 || cases[i].small_only == 2))
                continue;
            for (int c = CONTENT_NOISE; c <= CONTENT_OPAQUE_BUT_ONE; c++) {
                /* The big size checks the work shape (past 1024 and 2048
                 * across, many work-groups) with noise; 641x359 checks the
                 * contents' paths at several work-groups (the opaque
                 * shortcuts, saturation, gradients) but the flat picture,
                 * which the small sizes check. */
                if (big && c != CONTENT_NOISE)
                    continue;
                if (sanitized && w > 100 && c != CONTENT_NOISE)
                    continue;
                if (w > 100 && c == CONTENT_FLAT)
                    continue;
                if (cases[i].small_only == 2 && w > 100 && c != CONTENT_NOISE)
                    continue; /* a slow reference: the work shape's paths with noise */
                bad += test_compare_depth(ctx, cases[i].chain, w, h, (enum content)c,
                                          cases[i].frames, depth) != 0;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (times)
            printf("    %6.2f s  %s at %d bits\n",
                   (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
                   cases[i].chain, depth);
    }
    return bad;
}

/* A context of each work shape on the default device (row, GPU) into
 * ctx[0] and ctx[1]; 1 when either cannot be made. */
static int both_contexts(clv_context *ctx[2])
{
    ctx[0] = test_context(1);
    ctx[1] = ctx[0] ? test_context(2) : NULL;
    if (!ctx[1]) {
        clv_context_destroy(ctx[0]);
        return 1;
    }
    return 0;
}

/* Both shapes on the default device: PoCL runs the GPU shape too, so CI
 * covers both code paths of every kernel. A filter that runs at 16 bits
 * (clv_filter_deep) runs its cases at both depths. A case runs in both
 * shapes before the next, its reference frames kept between them (the
 * reference is the same; it is most of the time). */
static int run_both_shapes(const filter_case *cases, int count, int deep)
{
    clv_context *ctx[2];
    if (both_contexts(ctx))
        return 1;
    int bad[2][2] = {{0}};
    for (int i = 0; i < count; i++) {
        test_keep_references(1);
        for (int depth = 8; depth <= (deep ? 16 : 8); depth += 8)
            for (int shape = 1; shape <= 2; shape++) {
                /* The sanitizer builds check the host's side of the 16-bit
                 * paths in the row shape alone (the shapes differ on the
                 * device). */
                if (depth == 16 && shape == 2 && getenv("CLVID_SANITIZED"))
                    continue;
                bad[shape - 1][depth / 16] += run_cases(ctx[shape - 1], &cases[i], i, 1, depth);
            }
        test_keep_references(0);
    }
    for (int shape = 1; shape <= 2; shape++) {
        for (int depth = 8; depth <= (deep ? 16 : 8); depth += 8)
            if (!(depth == 16 && shape == 2 && getenv("CLVID_SANITIZED")))
                printf("  %s shape on %s at %d bits: %d parameter sets, %d mismatching runs\n",
                       shape == 1 ? "row" : "gpu", clv_context_device(ctx[shape - 1])->name, depth,
                       count, bad[shape - 1][depth / 16]);
        clv_context_destroy(ctx[shape - 1]);
    }
    return 0;
}

/* The cases of the named filters (NULL-terminated), in both shapes. */
static int run_filters(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (const char *name = first; name; name = va_arg(ap, const char *)) {
        const filter_cases *fc = NULL;
        for (int i = 0; i < FILTER_TABLE_SIZE; i++)
            if (!strcmp(filter_table[i].filter, name))
                fc = &filter_table[i];
        CHECK(fc != NULL, "no cases for filter %s in tests/filter_cases.h", name);
        const clv_filter *f = clv_filter_find(name);
        if (fc && run_both_shapes(fc->cases, fc->count, f && clv_filter_deep(f))) {
            va_end(ap);
            return 1;
        }
    }
    va_end(ap);
    return 0;
}

/* A GPU builds a 3x3 for its matrix (CONV_K) while the context holds fewer
 * than 16 convolution programs, which filter_cases' list passes at 8 bits:
 * a fresh context for a 3x3 of each of CONV_K's ways at both depths (the
 * sum in int or, at 16 bits, long; D = 1, a power of two, another), the
 * last two at the edge of 16-bit int sums (sum |k| = 8191, 8192). */
static const filter_case conv_k_cases[] = {
    {"convolution=matrix='0 -2 0 -1 6 3 0 1 0':div=1:bias=-5", 1, 1},
    {"convolution=matrix='1 2 1 2 4 2 1 2 1':bias=2", 1, 1},
    {"convolution=matrix='-2 -2 -2 5 5 5 1 1 1':div=7:bias=3", 1, 1},
    {"convolution=matrix='10000 -10000 10000 -10000 1 10000 -10000 10000 -10000':bias=-1", 1, 1},
    {"convolution=matrix='10000 -10000 10000 -10000 10000 -10000 10000 -10000 -10000':div=524288",
     1, 1},
    {"convolution=matrix='10000 10000 10000 10000 10000 10000 10000 10000 10000':bias=1", 1, 1},
    {"convolution=matrix='0 0 0 0 8190 0 0 0 1':div=5:bias=-9", 1, 1},
    {"convolution=matrix='0 0 0 0 8191 0 0 0 1':div=5:bias=9", 1, 1},
};

/* A new matrix set on a running 16-bit chain gets a 16-bit program (the GPU
 * shape builds one for it then), equal to a chain built with it. */
static void conv_set_param_deep(void)
{
    clv_context *ctx = test_context(2);
    if (!ctx)
        return;
    clv_msg msg = {{0}};
    test_rig rig;
    if (test_rig_open_depth(&rig, ctx, "convolution=matrix='1 2 1 2 4 2 1 2 1'",
                            "convolution=matrix='1 2 1 2 4 2 1 2 1':bias=7", 64, 48, 16, &msg)) {
        CHECK(0, "setup: %s", msg.text);
    } else {
        test_fill(&rig.in, CONTENT_NOISE, 5);
        CHECK(clv_chain_set_param(rig.chain, 0, "bias", "7", &msg) == 0, "%s", msg.text);
        CHECK(test_rig_run(&rig, 0, &msg) == 0, "%s", msg.text);
        CHECK(test_rig_equal(&rig), "16 bits: after set_param bias=7 the chain differs from "
                                    "its reference");
    }
    test_rig_close(&rig);
    clv_context_destroy(ctx);
}

int test_filter_convolution(void)
{
    if (run_filters("convolution", NULL) ||
        run_both_shapes(conv_k_cases, (int)(sizeof conv_k_cases / sizeof conv_k_cases[0]), 1))
        return 1;
    conv_set_param_deep();
    return 0;
}

int test_filter_sharpen_emboss(void)
{
    return run_filters("sharpen", "emboss", NULL);
}

/* A frame of 3 x 3 cells whose centres take every pair of prewitt's
 * gradients (gx, gy) in 0..765 that a window can give (gx + gy <= 1020),
 * a pair a channel: the GPU shape's scale = 1 kernel takes the root in
 * FP32 (cl/prewitt.cl), exact by an argument on its error, checked here
 * on every magnitude the filter can meet. With a = b = d = 0 the window
 * gives gx = c + f + k - g and gy = g + h + k - c. */
static int prewitt_cells(clv_image *img)
{
    const int cells = 391; /* 391^2 cells, 3 pairs each, for 456,451 pairs */
    if (clv_image_alloc(img, 3 * cells, 3 * cells))
        return 1;
    memset(img->pixels, 0, (size_t)img->stride * (size_t)img->height);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            img->pixels[(size_t)y * img->stride + 4 * (size_t)x + 3] = 255;
    int n = 0;
    for (int gx = 0; gx <= 765; gx++)
        for (int gy = 0; gy <= 765 && gx + gy <= 1020; gy++, n++) {
            const int s = gx + gy, cell = n / 3, ch = n % 3;
            int c = -1, f = 0, g = 0, h = 0, k = s / 2 < 255 ? s / 2 : 255;
            for (; k >= 0 && c < 0; k--)
                for (f = s - 2 * k - 255 > 0 ? s - 2 * k - 255 : 0; f <= 255 && f <= s - 2 * k;
                     f++) {
                    const int cg = gx - f - k; /* c - g */
                    if (cg >= -255 && cg <= 255) {
                        h = s - 2 * k - f;
                        c = cg > 0 ? cg : 0;
                        g = cg < 0 ? -cg : 0;
                        break;
                    }
                }
            if (c < 0 || cell >= cells * cells)
                return 1;
            k++;
            uint8_t *p = img->pixels + (size_t)(3 * (cell / cells)) * img->stride +
                         4 * (size_t)(3 * (cell % cells)) + ch;
            p[8] = (uint8_t)c;
            p[img->stride + 8] = (uint8_t)f;
            p[2 * img->stride] = (uint8_t)g;
            p[2 * img->stride + 4] = (uint8_t)h;
            p[2 * img->stride + 8] = (uint8_t)k;
        }
    return 0;
}

/* prewitt (scale 1, deltas at both ends) on the cells, device against
 * reference; also run by gpu_filters on each GPU. */
static void prewitt_gradients(clv_context *ctx, const char *where)
{
    static const char *const chains[] = {"prewitt=delta=-255", "prewitt", "prewitt=delta=255",
                                         "prewitt=delta=-1", "prewitt=delta=77"};
    /* The sanitizer builds check the host's side, the same for every
     * delta: one. */
    const int count = getenv("CLVID_SANITIZED") ? 1 : (int)(sizeof chains / sizeof chains[0]);
    clv_image cells = {0};
    CHECK(prewitt_cells(&cells) == 0, "the gradients' cells");
    for (int i = 0; cells.pixels && i < count; i++) {
        clv_msg msg = {{0}};
        test_rig rig;
        if (test_rig_open(&rig, ctx, chains[i], NULL, cells.width, cells.height, &msg)) {
            CHECK(0, "%s: %s", chains[i], msg.text);
        } else {
            memcpy(rig.in.pixels, cells.pixels, (size_t)cells.stride * (size_t)cells.height);
            CHECK(test_rig_run(&rig, 0, &msg) == 0, "%s", msg.text);
            int bad = 0;
            for (size_t j = 0; j < (size_t)cells.stride * (size_t)cells.height; j++)
                bad += rig.got.pixels[j] != rig.want.pixels[j];
            CHECK(bad == 0, "%s (%s): %d of the gradients' bytes differ from the reference",
                  chains[i], where, bad);
        }
        test_rig_close(&rig);
    }
    clv_image_free(&cells);
}

int test_filter_prewitt(void)
{
    if (run_filters("prewitt", NULL))
        return 1;
    for (int shape = getenv("CLVID_SANITIZED") ? 2 : 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        prewitt_gradients(ctx, shape == 1 ? "row shape" : "GPU shape");
        clv_context_destroy(ctx);
    }
    return 0;
}

int test_filter_median(void)
{
    return run_filters("median", NULL);
}

int test_filter_morph(void)
{
    return run_filters("erode", "dilate", NULL);
}

/* The 16-bit output of chain on a frame of 8-bit values (v * 257) is
 * 257 times its 8-bit output, on the device and in the references alike
 * (threshold and noise document it): every content at two sizes, both
 * shapes, `frames` frames. */
static int scaled_exactly(const char *chain, int frames)
{
    static const int dims[][2] = {{17, 9}, {641, 359}};
    clv_msg msg = {{0}};
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        for (int s = 0; s < 2; s++)
            for (int c = CONTENT_NOISE; c <= CONTENT_OPAQUE_BUT_ONE; c++) {
                /* The sanitizer builds: 641x359 with noise in the row
                 * shape (the host's side). */
                if (getenv("CLVID_SANITIZED") && s && (shape == 2 || c != CONTENT_NOISE))
                    continue;
                int w = dims[s][0], h = dims[s][1], bad = 0;
                test_rig r8, r16;
                memset(&r16, 0, sizeof r16);
                int err = test_rig_open_depth(&r8, ctx, chain, NULL, w, h, 8, &msg);
                if (!err)
                    err = test_rig_open_depth(&r16, ctx, chain, NULL, w, h, 16, &msg);
                CHECK(!err, "%s: setup: %s", chain, msg.text);
                for (int f = 0; !err && f < frames && !bad; f++) {
                    test_fill(&r8.in, (enum content)c, (uint32_t)(w + 7 * f + c));
                    for (int y = 0; y < h; y++) {
                        uint16_t *row =
                            (uint16_t *)(void *)(r16.in.pixels + (size_t)y * r16.in.stride);
                        for (int i = 0; i < 4 * w; i++)
                            row[i] = (uint16_t)(257 * r8.in.pixels[(size_t)y * r8.in.stride + i]);
                    }
                    err = test_rig_run(&r8, (uint64_t)f, &msg);
                    if (!err)
                        err = test_rig_run(&r16, (uint64_t)f, &msg);
                    CHECK(!err, "%s: run: %s", chain, msg.text);
                    for (int y = 0; !err && y < h && !bad; y++)
                        for (int x = 0; x < w && !bad; x++)
                            for (int k = 0; k < 4 && !bad; k++) {
                                int got = clv_test_get(&r16.got, x, y, k),
                                    want = clv_test_get(&r16.want, x, y, k),
                                    v8 = clv_test_get(&r8.got, x, y, k);
                                bad = got != 257 * v8 || want != 257 * v8;
                                CHECK(!bad,
                                      "'%s' on %dx%d %s (%s shape) frame %d at x=%d y=%d channel "
                                      "%d: 8 bits %d, 16 bits %d (reference %d), not 257 times",
                                      chain, w, h, test_content_name((enum content)c),
                                      shape == 1 ? "row" : "gpu", f, x, y, k, v8, got, want);
                            }
                }
                test_rig_close(&r8);
                test_rig_close(&r16);
                if (err || bad) {
                    clv_context_destroy(ctx);
                    return 1;
                }
            }
        clv_context_destroy(ctx);
    }
    return 0;
}

int test_filter_point(void)
{
    static const char *const scaled[] = {"threshold", "threshold=0", "threshold=77",
                                         "threshold=254", "threshold=255"};
    for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++)
        if (scaled_exactly(scaled[i], 1))
            return 1;
    return run_filters("threshold", "gray", NULL);
}

/* Equalization at 16 bits keeps a 10-bit source's codes apart: a frame
 * whose gray levels are the 1024 codes of a 10-bit ramp (v * 64, each
 * about as often) comes out with 1024 distinct levels in the same order,
 * in both modes, device and reference alike. */
static int equalize_keeps_10bit(void)
{
    static const char *const chains[] = {"equalize=gray", "equalize"};
    clv_msg msg = {{0}};
    int w = 1027, h = 9, bad = 0;
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        for (int i = 0; i < 2 && !bad; i++) {
            test_rig rig;
            if (test_rig_open_depth(&rig, ctx, chains[i], NULL, w, h, 16, &msg)) {
                CHECK(0, "%s: setup: %s", chains[i], msg.text);
                test_rig_close(&rig);
                bad = 1;
                break;
            }
            /* R = G = B, so gray(p) is the code itself */
            for (int y = 0; y < h; y++) {
                uint16_t *row = (uint16_t *)(void *)(rig.in.pixels + (size_t)y * rig.in.stride);
                for (int x = 0; x < w; x++) {
                    uint16_t v = (uint16_t)((x * 7 + y * 131) % 1024 * 64);
                    row[4 * x] = row[4 * x + 1] = row[4 * x + 2] = v;
                    row[4 * x + 3] = 65535;
                }
            }
            int out[1024];
            memset(out, 0xff, sizeof out);
            CHECK(test_rig_run(&rig, 0, &msg) == 0, "%s", msg.text);
            bad = !test_rig_equal(&rig);
            CHECK(!bad, "'%s' on a 10-bit ramp: device differs from the reference", chains[i]);
            for (int y = 0; y < h && !bad; y++)
                for (int x = 0; x < w && !bad; x++) {
                    int code = clv_test_get(&rig.in, x, y, 0) / 64;
                    int got = clv_test_get(&rig.got, x, y, 0);
                    bad = out[code] >= 0 && out[code] != got;
                    out[code] = got;
                }
            for (int c = 1; c < 1024 && !bad; c++) {
                bad = out[c] <= out[c - 1];
                CHECK(!bad, "'%s' on a 10-bit ramp: codes %d and %d became %d and %d", chains[i],
                      c - 1, c, out[c - 1], out[c]);
            }
            test_rig_close(&rig);
        }
        clv_context_destroy(ctx);
    }
    return bad;
}

int test_filter_equalize(void)
{
    if (equalize_keeps_10bit())
        return 1;
    return run_filters("equalize", NULL);
}

int test_filter_noise(void)
{
    static const char *const scaled[] = {"noise=type=gaussian:sigma=25:seed=3",
                                         "noise=gaussian:0:100:4294967295",
                                         "noise=type=saltpepper:amount=0.3:seed=7"};
    for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++)
        if (scaled_exactly(scaled[i], 2))
            return 1;
    return run_filters("noise", NULL);
}

/* Quantize stops a frame's passes once its centres settle: a still
 * picture settles within the first frames and then takes one pass, and the
 * next, different picture must start moving them again. Frames A A A B B A
 * against the reference, which always runs every iteration, at both depths. */
static int quantize_settling(int depth)
{
    static const char *const chains[] = {"quantize=colors=8", "quantize=colors=3:iterations=40",
                                         "quantize=colors=100:iterations=6"};
    static const int seq[] = {0, 0, 0, 1, 1, 0};
    static const int sizes2[][2] = {{17, 9}, {641, 359}};
    /* The sanitizer builds: 641x359 (the host's side of the row slices and
     * the work shape) for the first chain at 8 bits; the rest at 17x9. The
     * reference (40 iterations, 100 centres) is slow under ASan. */
    int sanitized = getenv("CLVID_SANITIZED") != NULL;
    /* Both shapes, the row shape's reference frames kept for the GPU
     * shape's (the reference is most of the time). */
    clv_context *ctx[2];
    if (both_contexts(ctx))
        return 1;
    int bad = 0;
    for (int c = 0; c < 3; c++)
        for (int s = 0; s < (sanitized && (depth == 16 || c > 0) ? 1 : 2); s++) {
            clv_image want[6] = {{0}};
            int w = sizes2[s][0], h = sizes2[s][1], failed = 0;
            for (int shape = 1; shape <= 2 && !failed; shape++) {
                clv_msg msg = {{0}};
                test_rig rig;
                if (test_rig_open_depth(&rig, ctx[shape - 1], chains[c], NULL, w, h, depth, &msg)) {
                    CHECK(0, "%s: setup failed: %s", chains[c], msg.text);
                    failed = 1;
                }
                for (int f = 0; !failed && f < 6; f++) {
                    test_fill(&rig.in, seq[f] ? CONTENT_NOISE : CONTENT_GRADIENT,
                              77u + (uint32_t)seq[f]);
                    int err = shape == 1 ? test_rig_run(&rig, (uint64_t)f, &msg)
                                         : test_rig_run_device(&rig, (uint64_t)f, &msg);
                    if (!err && shape == 1)
                        err = test_image_copy(&want[f], &rig.want);
                    else if (!err)
                        memcpy(rig.want.pixels, want[f].pixels,
                               want[f].stride * (size_t)want[f].height);
                    if (err) {
                        CHECK(0, "%s frame %d: run failed: %s", chains[c], f, msg.text);
                        failed = 1;
                    } else if (!test_rig_equal(&rig)) {
                        CHECK(0,
                              "'%s' at %d bits on %dx%d (%s shape), picture %c as frame %d: the "
                              "device differs from the reference's full iterations",
                              chains[c], depth, w, h, shape == 1 ? "row" : "gpu", "AB"[seq[f]], f);
                        failed = 1;
                    }
                }
                test_rig_close(&rig);
            }
            for (int f = 0; f < 6; f++)
                clv_image_free(&want[f]);
            bad += failed;
        }
    clv_context_destroy(ctx[0]);
    clv_context_destroy(ctx[1]);
    return bad;
}

/* scale: the device's passes equal the reference (swscale's arithmetic)
 * from and to awkward sizes; the sizes themselves are test_scale_sizes'. */
int test_filter_scale(void)
{
    return run_filters("scale", NULL);
}

int test_filter_quantize(void)
{
    int bad = quantize_settling(8) + quantize_settling(16);
    return run_filters("quantize", NULL) || bad;
}

/* The output size of chain on w x h frames into *out; the error's code
 * with msg otherwise. */
static int chain_size(const char *chain, int w, int h, clv_size *out, clv_msg *msg)
{
    clv_chain_desc *d = NULL;
    int err = clv_chain_parse(chain, &d, msg);
    if (!err) {
        clv_size in = {w, h, 1, 1, 0, 0, 0};
        err = clv_chain_desc_output_size(d, &in, out, msg);
    }
    clv_chain_desc_destroy(d);
    return err;
}

/* rotate: its sizes (ffmpeg's rotw and roth included, sizes rounded as
 * ffmpeg's config_props rounds them, the aspect kept), its errors, then its
 * cases against the reference. */
int test_filter_rotate(void)
{
    static const struct {
        const char *chain;
        int w, h, want_w, want_h;
    } sized[] = {
        {"rotate", 17, 9, 17, 9},
        {"rotate=ow=ih:oh=iw", 17, 9, 9, 17},
        {"rotate=ow='hypot(iw,ih)':oh=ow", 17, 9, 19, 19},
        {"rotate=a=PI/6:ow='rotw(PI/6)':oh='roth(PI/6)'", 17, 9, 19, 16},
        {"rotate=out_w='rotw(PI/2)':out_h='roth(PI/2)'", 641, 359, 359, 641},
        {"rotate=oh=ow/2", 100, 40, 100, 50},      /* ow is evaluated before oh */
        {"rotate=ow=oh*2:oh=30", 100, 40, 60, 30}, /* and again after it */
        {"rotate=ow=0.5", 3, 2, 1, 2},
    };
    clv_msg msg = {{0}};
    for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++) {
        clv_size out = {0, 0, 0, 0, 0, 0, 0};
        int err = chain_size(sized[i].chain, sized[i].w, sized[i].h, &out, &msg);
        CHECK(err == 0, "%s: %s", sized[i].chain, msg.text);
        CHECK(err || (out.width == sized[i].want_w && out.height == sized[i].want_h &&
                      out.sar_num == 1 && out.sar_den == 1),
              "%s on %dx%d: %dx%d (sar %d:%d), want %dx%d", sized[i].chain, sized[i].w, sized[i].h,
              out.width, out.height, out.sar_num, out.sar_den, sized[i].want_w, sized[i].want_h);
    }
    static const struct {
        const char *chain, *says;
    } bad[] = {
        {"rotate=a='2*PI*'", "expression '2*PI*': the expression ends early at character 6"},
        {"rotate=ow='iw+foo'", "unknown name 'foo' at character 4"},
        {"rotate=ow='rotw(1,2)'", "rotw() takes 1 argument"},
        {"rotate=oh=-ih", "out_h='-ih' gives -9 (17x9 in)"},
        {"rotate=ow=iw-17", "out_w='iw-17' gives 0 (17x9 in)"},
        {"rotate=ow=0.4", "out_w='0.4' gives 0.4 (17x9 in)"},
        {"rotate=ow=t*iw", "out_w='t*iw' gives nan"}, /* no time at configuration */
        {"rotate=c=none", "'none' is not a colour"},
        {"rotate=bilinear=2", "bilinear"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clv_size out;
        msg.text[0] = 0;
        int err = chain_size(bad[i].chain, 17, 9, &out, &msg);
        CHECK(err != 0 && strstr(msg.text, bad[i].says), "%s: error %d '%s', want one saying '%s'",
              bad[i].chain, err, msg.text, bad[i].says);
    }
    return run_filters("rotate", NULL);
}

/* tonemap: the colour it says its frames have (what clv_size carries)
 * for tagged and untagged inputs. */
static int tonemap_sizes(void)
{
    static const struct {
        const char *chain;
        clv_size in;
        int transfer, primaries, peak; /* out's */
    } tagged[] = {
        {"tonemap=hable",
         {17, 9, 1, 1, CLV_TRC_PQ, CLV_PRIM_BT2020, 1000},
         CLV_TRC_BT709,
         CLV_PRIM_BT709,
         100},
        {"tonemap",
         {17, 9, 1, 1, CLV_TRC_HLG, CLV_PRIM_BT2020, 0},
         CLV_TRC_BT709,
         CLV_PRIM_BT709,
         100},
        {"tonemap",
         {17, 9, 1, 1, CLV_TRC_BT709, CLV_PRIM_BT2020, 0},
         CLV_TRC_BT709,
         CLV_PRIM_BT2020,
         0},
        {"tonemap", {17, 9, 1, 1, 0, 0, 0}, 0, 0, 0},
        {"tonemap=tin=smpte2084", {17, 9, 1, 1, 0, 0, 0}, CLV_TRC_BT709, CLV_PRIM_BT709, 100},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof tagged / sizeof tagged[0]; i++) {
        clv_chain_desc *d = NULL;
        clv_msg msg = {{0}};
        clv_size out = {0, 0, 0, 0, 0, 0, 0};
        int err = clv_chain_parse(tagged[i].chain, &d, &msg);
        if (!err)
            err = clv_chain_desc_output_size(d, &tagged[i].in, &out, &msg);
        clv_chain_desc_destroy(d);
        CHECK(err == 0, "%s: %s", tagged[i].chain, msg.text);
        int ok = !err && out.width == 17 && out.height == 9 && out.sar_num == 1 &&
                 out.sar_den == 1 && out.transfer == tagged[i].transfer &&
                 out.primaries == tagged[i].primaries && out.peak == tagged[i].peak;
        CHECK(ok, "%s on transfer %d primaries %d peak %d: transfer %d primaries %d peak %d",
              tagged[i].chain, tagged[i].in.transfer, tagged[i].in.primaries, tagged[i].in.peak,
              out.transfer, out.primaries, out.peak);
        bad += !ok;
    }
    return bad;
}

/* tonemap on frames tagged as the stage tags them (the transfer, primaries
 * and peak of clv_size): device against reference, the measured peak over
 * frames included; an SDR input comes out as it went in. */
static int tonemap_tagged(int shape)
{
    static const char *const chains[] = {"tonemap=hable", "tonemap=bt2390:desat=0",
                                         "tonemap=mobius:param=0.5,vflip"};
    static const clv_size colours[] = {
        {0, 0, 0, 1, CLV_TRC_PQ, CLV_PRIM_BT2020, 1000},
        {0, 0, 0, 1, CLV_TRC_PQ, CLV_PRIM_BT2020, 0},
        {0, 0, 0, 1, CLV_TRC_HLG, CLV_PRIM_BT2020, 0},
        {0, 0, 0, 1, CLV_TRC_PQ, CLV_PRIM_BT709, 4000},
        {0, 0, 0, 1, CLV_TRC_BT709, CLV_PRIM_BT709, 0},
    };
    static const int sizes2[][2] = {{17, 9}, {641, 359}};
    /* The sanitizer builds: 641x359 for the first chain in the row shape
     * (the host's side), the rest at 17x9. */
    int sanitized = getenv("CLVID_SANITIZED") != NULL;
    clv_context *ctx = test_context(shape);
    if (!ctx)
        return 1;
    int bad = 0;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 5; k++)
            for (int depth = 8; depth <= 16; depth += 8)
                for (int s = 0; s < (sanitized && (c > 0 || shape == 2) ? 1 : 2); s++) {
                    clv_msg msg = {{0}};
                    test_rig rig;
                    int w = sizes2[s][0], h = sizes2[s][1], failed = 0;
                    if (test_rig_open_depth(&rig, ctx, chains[c], NULL, w, h, depth, &msg) ||
                        test_rig_set_input(&rig, &colours[k], &msg)) {
                        CHECK(0, "%s: setup failed: %s", chains[c], msg.text);
                        failed = 1;
                    }
                    for (int f = 0; !failed && f < 3; f++) {
                        test_fill(&rig.in, s ? CONTENT_NOISE : CONTENT_GRADIENT,
                                  (uint32_t)(91 + 7 * f + k));
                        if (test_rig_run(&rig, (uint64_t)f, &msg)) {
                            CHECK(0, "%s frame %d: run failed: %s", chains[c], f, msg.text);
                            failed = 1;
                        } else if (!test_rig_equal(&rig)) {
                            CHECK(0,
                                  "'%s' at %d bits on %dx%d (%s shape), transfer %d primaries %d "
                                  "peak %d, frame %d: the device differs from the reference",
                                  chains[c], depth, w, h, shape == 1 ? "row" : "gpu",
                                  colours[k].transfer, colours[k].primaries, colours[k].peak, f);
                            failed = 1;
                        } else if (colours[k].transfer == CLV_TRC_BT709 && c < 2 &&
                                   memcmp(rig.in.pixels, rig.got.pixels,
                                          (size_t)rig.in.stride * (size_t)h)) {
                            CHECK(0, "'%s' at %d bits changed an SDR frame", chains[c], depth);
                            failed = 1;
                        }
                    }
                    bad += failed;
                    test_rig_close(&rig);
                }
    printf("  tagged frames, %s shape: %d mismatching runs\n", shape == 1 ? "row" : "gpu", bad);
    clv_context_destroy(ctx);
    return bad;
}

/* PQ's signal for linear light l (1 = 100 cd/m2) as a 16-bit code. */
static int pq_code(double l)
{
    double y = pow(l / 100, 0.1593017578125);
    return (int)lrint(pow((0.8359375 + 18.8515625 * y) / (1 + 18.6875 * y), 78.84375) * 65535);
}

/* tonemap's levels by the reference: where a curve puts a few known
 * colours (16-bit codes, within `tol` for the input's rounding). */
static int tonemap_levels(void)
{
    static const struct {
        const char *chain;
        int transfer, peak; /* the input's tags */
        double r, g, b;     /* linear BT.2020 in (1 = 100 cd/m2); < 0: HLG signal -x */
        int want[3], tol;
    } levels[] = {
        {"tonemap=clip:desat=0:tin=smpte2084", 0, 0, 1, 1, 1, {65535, 65535, 65535}, 8},
        {"tonemap=hable:desat=0:tin=smpte2084:peak=10", 0, 0, 10, 10, 10, {65535, 65535, 65535}, 8},
        {"tonemap=hable:desat=0", CLV_TRC_PQ, 1000, 10, 10, 10, {65535, 65535, 65535}, 8},
        /* display light 0.1 is BT.709 (BT.1886) 0.1^(1/2.4) */
        {"tonemap=linear:desat=0:tin=smpte2084:peak=10", 0, 0, 1, 1, 1, {25108, 25108, 25108}, 8},
        {"tonemap=bt2390:tin=smpte2084:peak=10", 0, 0, 0, 0, 0, {0, 0, 0}, 0},
        /* BT.709's red in BT.2020 comes out as BT.709's red */
        {"tonemap=none:desat=0:tin=smpte2084",
         0,
         0,
         0.627404,
         0.069097,
         0.016391,
         {65535, 0, 0},
         8},
        /* HLG: signal 1.0 is 1000 cd/m2, 0.5 is 50.7 cd/m2 (the OOTF) */
        {"tonemap=linear:desat=0:peak=10", CLV_TRC_HLG, 0, -1, -1, -1, {65535, 65535, 65535}, 2},
        {"tonemap=linear:desat=0:peak=10",
         CLV_TRC_HLG,
         0,
         -0.5,
         -0.5,
         -0.5,
         {18918, 18918, 18918},
         8},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        clv_chain_desc *d = NULL;
        clv_ref_chain *ref = NULL;
        clv_image in = {0}, out = {0};
        int ok = !clv_chain_parse(levels[i].chain, &d, NULL) && !clv_ref_chain_create(d, &ref) &&
                 !clv_image_alloc_depth(&in, 1, 1, 16) && !clv_image_alloc_depth(&out, 1, 1, 16);
        clv_chain_desc_destroy(d);
        CHECK(ok, "%s: setup failed", levels[i].chain);
        if (ok) {
            clv_size tags = {1, 1, 0, 1, levels[i].transfer, CLV_PRIM_BT2020, levels[i].peak};
            clv_ref_chain_set_input(ref, &tags);
            uint16_t *p = (uint16_t *)(void *)in.pixels, *q = (uint16_t *)(void *)out.pixels;
            double rgb[3] = {levels[i].r, levels[i].g, levels[i].b};
            for (int c = 0; c < 3; c++)
                p[c] = (uint16_t)(rgb[c] < 0 ? lrint(-rgb[c] * 65535) : pq_code(rgb[c]));
            p[3] = 1234;
            ok = !clv_ref_chain_run(ref, &in, &out, 0) && q[3] == 1234;
            for (int c = 0; c < 3; c++)
                ok = ok && abs(q[c] - levels[i].want[c]) <= levels[i].tol;
            CHECK(ok, "%s of (%g, %g, %g): %d %d %d, want %d %d %d", levels[i].chain, rgb[0],
                  rgb[1], rgb[2], q[0], q[1], q[2], levels[i].want[0], levels[i].want[1],
                  levels[i].want[2]);
        }
        bad += !ok;
        clv_ref_chain_destroy(ref);
        clv_image_free(&in);
        clv_image_free(&out);
    }
    return bad;
}

/* tonemap's measured peak: the frame's own at the first frame and at a
 * scene change (a frame at 1000 cd/m2, then at 4000, come out at SDR
 * white: the curve picked is within a PQ step of the peak), held while
 * the frames stay. */
static int tonemap_measured(void)
{
    clv_chain_desc *d = NULL;
    clv_ref_chain *ref = NULL;
    clv_image in = {0}, out = {0};
    int ok = !clv_chain_parse("tonemap=hable:desat=0:tin=smpte2084", &d, NULL) &&
             !clv_ref_chain_create(d, &ref) && !clv_image_alloc_depth(&in, 16, 8, 16) &&
             !clv_image_alloc_depth(&out, 16, 8, 16);
    clv_chain_desc_destroy(d);
    CHECK(ok, "tonemap measured: setup failed");
    int half_before = -1;
    for (int f = 0; ok && f < 6; f++) {
        int code = pq_code(f < 3 ? 10 : 40);
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 16; x++)
                for (int c = 0; c < 4; c++)
                    ((uint16_t *)(void *)(in.pixels + (size_t)y * in.stride))[4 * x + c] =
                        (uint16_t)(c == 3  ? 65535
                                   : x < 8 ? code
                                           : code / 2);
        ok = !clv_ref_chain_run(ref, &in, &out, (uint64_t)f);
        const uint16_t *q = (const uint16_t *)(const void *)out.pixels;
        int white = q[0], half = q[4 * 8];
        ok = ok && white >= 64500 && (f % 3 == 0 || half == half_before);
        CHECK(ok, "tonemap measured, frame %d at %d cd/m2: %d and %d (%d before), want about 65535",
              f, f < 3 ? 1000 : 4000, white, half, half_before);
        half_before = half;
    }
    clv_ref_chain_destroy(ref);
    clv_image_free(&in);
    clv_image_free(&out);
    return !ok;
}

int test_filter_tonemap(void)
{
    int bad = tonemap_sizes() + tonemap_levels() + tonemap_measured();
    bad += tonemap_tagged(1) + tonemap_tagged(2);
    return run_filters("tonemap", NULL) || bad;
}

int test_filter_gblur(void)
{
    return run_filters("gblur", NULL);
}

/* The box kernels past box_across's tiles at 16 bits, where the suite's
 * big size runs a filter's first two cases alone: box_across_row (a reach
 * past 384 needs a frame past 769 wide) and box_cols32's bands of 256 (a
 * reach down past 256), in both shapes at both depths, noise. */
static const struct {
    const char *chain;
    int w, h;
} box_wide[] = {
    {"avgblur=sizeX=390:sizeY=20:planes=7", 801, 41},
    {"boxblur=400:1:ar=0", 801, 803},
};

int test_filter_boxblur(void)
{
    if (run_filters("boxblur", "avgblur", NULL))
        return 1;
    clv_context *ctx[2];
    if (both_contexts(ctx))
        return 1;
    int sanitized = getenv("CLVID_SANITIZED") != NULL;
    for (int i = 0; i < (int)(sizeof box_wide / sizeof box_wide[0]) && !sanitized; i++) {
        test_keep_references(1);
        for (int depth = 8; depth <= 16; depth += 8)
            for (int shape = 0; shape < 2; shape++)
                test_compare_depth(ctx[shape], box_wide[i].chain, box_wide[i].w, box_wide[i].h,
                                   CONTENT_NOISE, 1, depth);
        test_keep_references(0);
    }
    clv_context_destroy(ctx[0]);
    clv_context_destroy(ctx[1]);
    return 0;
}

int test_filter_unsharp(void)
{
    return run_filters("unsharp", NULL);
}

/* Chains of the geometry filters that do not fit every size: run where
 * they do (the brief's chain from issue 34 among them). */
static const filter_case geometry_fitting[] = {
    {"crop=iw-3:ih-1:1:0,transpose=clock,median,pad=iw+5:ih+2:3:1:red", 0, 1},
    {"crop=iw/2:ih/2,hflip,pad=iw*2:ih*2:-1:-1:0x00ff0080", 0, 1},
    {"transpose=clock,crop=5:3:odd(n)*3:1:exact=1,pad=9:7:x=3:y=odd", 0, 1},
};

static int geometry_fitting_cases(int shape)
{
    clv_context *ctx = test_context(shape);
    if (!ctx)
        return 1;
    int bad = 0, runs = 0;
    for (int i = 0; i < (int)(sizeof geometry_fitting / sizeof geometry_fitting[0]); i++)
        for (int s = 0; s < SIZE_COUNT; s++) {
            clv_chain_desc *d = NULL;
            clv_msg msg = {{0}};
            clv_size in = {sizes[s][0], sizes[s][1], 1, 1, 0, 0, 0}, out;
            int fits = clv_chain_parse(geometry_fitting[i].chain, &d, &msg) == 0 &&
                       clv_chain_desc_output_size(d, &in, &out, &msg) == 0;
            clv_chain_desc_destroy(d);
            if (!fits)
                continue;
            runs++; /* the chains' sizes are checked at every size */
            /* The sanitizer builds: up to 641x359, as run_cases. */
            if (getenv("CLVID_SANITIZED") && in.width > 1000)
                continue;
            bad += test_compare(ctx, geometry_fitting[i].chain, in.width, in.height, CONTENT_NOISE,
                                2) != 0;
            d = NULL; /* and at 16 bits where every filter of the chain runs there */
            int deep = !clv_chain_parse(geometry_fitting[i].chain, &d, NULL) &&
                       !clv_chain_desc_deep(d, NULL);
            clv_chain_desc_destroy(d);
            if (deep)
                bad += test_compare_depth(ctx, geometry_fitting[i].chain, in.width, in.height,
                                          CONTENT_NOISE, 2, 16) != 0;
        }
    CHECK(runs >= 6, "only %d runs of the chains that fit some sizes", runs);
    clv_context_destroy(ctx);
    return bad;
}

int test_filter_geometry(void)
{
    int bad = geometry_fitting_cases(1) + geometry_fitting_cases(2);
    return run_filters("crop", "pad", "transpose", "hflip", "vflip", NULL) || bad;
}

/* Sizes, aspects and errors of the geometry filters, on the host. */
static void expect_size(const char *chain, int w, int h, int sn, int sd, int ow, int oh, int osn,
                        int osd)
{
    clv_chain_desc *d = NULL;
    clv_msg msg = {{0}};
    clv_size in = {w, h, sn, sd, 0, 0, 0}, out = {0, 0, 0, 0, 0, 0, 0};
    int err = clv_chain_parse(chain, &d, &msg);
    if (!err)
        err = clv_chain_desc_output_size(d, &in, &out, &msg);
    clv_chain_desc_destroy(d);
    CHECK(!err && out.width == ow && out.height == oh && out.sar_num == osn && out.sar_den == osd,
          "'%s' on %dx%d sar %d/%d: got %dx%d sar %d/%d (%s), want %dx%d sar %d/%d", chain, w, h,
          sn, sd, out.width, out.height, out.sar_num, out.sar_den, err ? msg.text : "ok", ow, oh,
          osn, osd);
}

/* chain fails on w x h (parse or size) with a message containing each of
 * the NULL-terminated words. */
static void expect_error(const char *chain, int w, int h, ...)
{
    clv_chain_desc *d = NULL;
    clv_msg msg = {{0}};
    clv_size in = {w, h, 1, 1, 0, 0, 0}, out;
    int err = clv_chain_parse(chain, &d, &msg);
    if (!err)
        err = clv_chain_desc_output_size(d, &in, &out, &msg);
    clv_chain_desc_destroy(d);
    CHECK(err, "'%s' on %dx%d: accepted (%dx%d)", chain, w, h, out.width, out.height);
    va_list ap;
    va_start(ap, h);
    for (const char *word = va_arg(ap, const char *); err && word; word = va_arg(ap, const char *))
        CHECK(strstr(msg.text, word), "'%s' on %dx%d: '%s' is not in: %s", chain, w, h, word,
              msg.text);
    va_end(ap);
}

/* null, copy, format, setsar and setdar: the frames pass unchanged on the
 * device as in the reference; setsar's and setdar's aspects as ffmpeg's
 * (each below checked against ffmpeg 5.1's output, 320x180 at SAR 4:3);
 * format ends its chain. */
/* fps: its spec (the rate of source_fps, the rounding, eof_action and
 * start_time); a chain refuses it until a caller takes it; a running
 * chain refuses a new rate, and a value after it that would depend on the
 * frame's number or time. */
static void fps_taken(void)
{
    static const struct {
        const char *chain;
        double rate;
        int rounding, eof_pass, has_start;
        double start;
    } specs[] = {
        {"hflip", 0, 0, 0, 0, 0},
        {"fps", 25, 5, 0, 0, 0},
        {"hflip,fps=source_fps/2:round=down", 15, 2, 0, 0, 0},
        {"fps=ntsc:start_time=-1.5:eof_action=pass:round=zero", 30000.0 / 1001, 0, 1, 1, -1.5},
        {"fps=film:round=inf,crop=iw/2", 24, 1, 0, 0, 0},
        {"fps=pal:round=up", 25, 3, 0, 0, 0},
        {"hflip,framestep=3", 10, 0, 0, 0, 0}};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        clv_chain_desc *d = NULL;
        clv_fps_spec s;
        clv_msg msg = {{0}};
        int err = clv_chain_parse(specs[i].chain, &d, &msg);
        if (!err)
            err = clv_chain_desc_fps(d, 30, &s, &msg);
        CHECK(!err && fabs(s.rate - specs[i].rate) < 1e-9 && s.rounding == specs[i].rounding &&
                  s.eof_pass == specs[i].eof_pass && s.has_start == specs[i].has_start &&
                  (!s.has_start || s.start_time == specs[i].start),
              "'%s': %s rate %g rounding %d eof_pass %d start %d %g", specs[i].chain, msg.text,
              s.rate, s.rounding, s.eof_pass, s.has_start, s.start_time);
        clv_chain_desc_destroy(d);
    }
    clv_chain_desc *d = NULL;
    clv_fps_spec s;
    clv_msg msg = {{0}};
    CHECK(!clv_chain_parse("fps=source_fps-30", &d, NULL) &&
              clv_chain_desc_fps(d, 30, &s, &msg) == CLV_ERANGE &&
              strstr(msg.text, "fps 'source_fps-30' is 0 frames a second (source_fps 30)"),
          "fps of 0 frames a second: %s", msg.text);
    clv_chain_desc_destroy(d);
    clv_context *ctx = test_context(2);
    if (!ctx)
        return;
    clv_chain *chain = NULL;
    d = NULL;
    CHECK(!clv_chain_parse("crop=iw/2:ih/2:0:0,fps=24,crop=iw/2:ih/2", &d, NULL) &&
              clv_chain_create(ctx, d, &chain, &msg) == CLV_EPARSE && !chain &&
              strstr(msg.text, "filter 'fps' (#2 in the chain) changes the frame rate"),
          "a chain took fps untaken: %s", msg.text);
    clv_chain_desc_take_fps(d);
    CHECK(d && clv_chain_create(ctx, d, &chain, &msg) == 0, "fps taken: %s", msg.text);
    if (chain) {
        CHECK(clv_chain_set_param(chain, 1, "fps", "30", &msg) == CLV_EINVAL &&
                  strstr(msg.text, "its frame rate is the run's"),
              "set_param on fps: %s", msg.text);
        CHECK(clv_chain_set_param(chain, 2, "x", "n", &msg) == CLV_EPARSE &&
                  strstr(msg.text, "x=n would make it depend on the frame's number or time"),
              "set_param crop x=n after fps: %s", msg.text);
        CHECK(clv_chain_set_param(chain, 2, "x", "iw/8", &msg) == 0, "crop x=iw/8: %s", msg.text);
        /* before fps a frame's number is the input's, as in ffmpeg */
        CHECK(clv_chain_set_param(chain, 0, "x", "mod(n,2)", &msg) == 0, "crop x=n before fps: %s",
              msg.text);
    }
    clv_chain_destroy(chain);
    clv_chain_desc_destroy(d);
    clv_context_destroy(ctx);
}

int test_filter_pass(void)
{
    expect_size("setdar=16/9", 320, 180, 4, 3, 320, 180, 1, 1);
    expect_size("setdar=dar=4/3:max=1000", 320, 180, 4, 3, 320, 180, 3, 4);
    expect_size("setsar=sar=10/11", 320, 180, 4, 3, 320, 180, 10, 11);
    expect_size("setsar=sar*2", 320, 180, 4, 3, 320, 180, 8, 3);
    expect_size("setdar=a", 320, 180, 4, 3, 320, 180, 1, 1);
    expect_size("setsar=0", 320, 180, 4, 3, 320, 180, 0, 1);
    expect_size("setsar", 320, 180, 4, 3, 320, 180, 0, 1);
    expect_size("setdar", 320, 180, 4, 3, 320, 180, 1, 1);
    expect_size("setdar=0", 320, 180, 4, 3, 320, 180, 1, 1);
    expect_size("setsar=1.0001", 320, 180, 4, 3, 320, 180, 1, 1);
    expect_size("setdar=16:9", 320, 180, 4, 3, 320, 180, 81, 16); /* dar 16, max 9 */
    expect_size("setsar=w/h:max=5", 320, 180, 4, 3, 320, 180, 5, 3);
    expect_size("setsar=PI", 320, 180, 4, 3, 320, 180, 22, 7);
    expect_size("setdar=dar*1.5", 320, 180, 4, 3, 320, 180, 2, 1);
    expect_size("scale=iw/3:-1,setsar=sar/2", 320, 180, 4, 3, 106, 60, 53, 79);
    expect_size("setsar=r='16:9'", 320, 180, 1, 1, 320, 180, 16, 9); /* quoted: a ratio */
    expect_size("null,copy,format=yuv420p", 17, 9, 3, 2, 17, 9, 3, 2);
    expect_error("setsar=foo(", 17, 9, "setsar", "foo(", "neither an expression", NULL);
    expect_error("setsar=-1", 17, 9, "setsar", "'-1' gives -1/1", NULL);
    expect_error("setdar=0/0", 17, 9, "setdar", "not an aspect ratio", NULL);
    expect_error("format=yuv420p,sharpen", 17, 9, "'sharpen' (#2 in the chain)", "format=yuv420p",
                 "put it last", NULL);
    expect_error("format=gray,null,setsar=1,hflip", 17, 9, "'hflip' (#4", NULL);
    expect_error("format", 17, 9, "pix_fmts ''", "no pixel format", NULL);
    expect_error("format=yuv420p||nv12", 17, 9, "joined by '|'", NULL);
    expect_error("format=yuv-420p", 17, 9, "yuv-420p", NULL);
    expect_error("null=3", 17, 9, "null", NULL);
    expect_error("null=enable='gte(t,1)'", 17, 9, "'null' takes no enable=", "changes no pixel",
                 NULL);
    expect_error("setsar=1:enable=1", 17, 9, "'setsar' takes no enable=", NULL);

    /* A caller may ask for no message (msg NULL): the error still comes
     * back (the excerpt once wrote into a NULL message). */
    clv_chain_desc *none = NULL;
    CHECK(clv_chain_parse("format", &none, NULL) == CLV_EPARSE && !none,
          "'format' without a message: not refused");
    CHECK(clv_chain_parse("sharpen,nosuch", &none, NULL) == CLV_EPARSE && !none,
          "'nosuch' without a message: not refused");

    /* The chain's pixel formats: the last format's, NULL without one. */
    const char *const fmts[][2] = {{"sharpen", NULL},
                                   {"format=nv12", "nv12"},
                                   {"hflip,format=gray|yuv420p,null,format=yuv444p", "yuv444p"},
                                   {"", NULL}};
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        clv_chain_desc *d = NULL;
        CHECK(!clv_chain_parse(fmts[i][0], &d, NULL), "'%s' does not parse", fmts[i][0]);
        const char *got = d ? clv_chain_desc_pix_fmts(d) : NULL;
        CHECK(fmts[i][1] ? got && !strcmp(got, fmts[i][1]) : !got, "'%s': formats '%s', want '%s'",
              fmts[i][0], got ? got : "(none)", fmts[i][1] ? fmts[i][1] : "(none)");
        clv_chain_desc_destroy(d);
    }
    const char *const passing[][2] = {{"", "1"},           {"null,copy", "1"},
                                      {"setsar=1", "1"},   {"format=gray,setdar=4/3", "1"},
                                      {"null,hflip", "0"}, {"scale=iw:ih", "0"}};
    for (size_t i = 0; i < sizeof passing / sizeof passing[0]; i++) {
        clv_chain_desc *d = NULL;
        CHECK(!clv_chain_parse(passing[i][0], &d, NULL), "'%s' does not parse", passing[i][0]);
        CHECK(d && clv_chain_desc_passes(d) == (passing[i][1][0] == '1'), "'%s': passes %d",
              passing[i][0], d ? clv_chain_desc_passes(d) : -1);
        clv_chain_desc_destroy(d);
    }
    fps_taken();
    return run_filters("null", "copy", "format", "fps", "framestep", "setsar", "setdar", NULL);
}

/* negate, colorchannelmixer, colorlevels and fade: device against
 * reference (their cases), and values out of their ranges refused. */
int test_filter_channels(void)
{
    expect_error("negate=components=y+u+v", 17, 9, "negate", "none of r, g, b, a", NULL);
    expect_error("negate=components=z", 17, 9, "negate", "'components'", NULL);
    expect_error("colorchannelmixer=rr=2.5", 17, 9, "colorchannelmixer", "'rr'", "-2 to 2", NULL);
    expect_error("colorchannelmixer=pc=hue", 17, 9, "colorchannelmixer", "'pc'", NULL);
    expect_size("negate=components=y:negate_alpha=1", 17, 9, 1, 1, 17, 9, 1, 1);
    expect_error("fade=in:0:0", 17, 9, "fade", "'nb_frames'", NULL);
    expect_error("fade=sideways", 17, 9, "fade", "'type'", NULL);
    expect_error("colorlevels=romin=-0.5", 17, 9, "colorlevels", "'romin'", "0 to 1", NULL);
    expect_error("colorlevels=rimax=1.5", 17, 9, "colorlevels", "'rimax'", "-1 to 1", NULL);
    expect_error("colorlevels=preserve=hue", 17, 9, "colorlevels", "'preserve'", NULL);
    return run_filters("negate", "colorchannelmixer", "colorlevels", "fade", NULL);
}

/* lut and lutrgb: device against reference (their cases, at 8 and 16
 * bits), and what they refuse: a NaN for some value, naming it; the
 * one-argument clip ffmpeg's parser refuses too. */
int test_filter_lut(void)
{
    expect_error("lutrgb=b=0/0", 17, 9, "lutrgb", "b '0/0' is not a number for the value 0", NULL);
    expect_error("lut=c2=sqrt(val-100)", 17, 9, "lut", "c2 'sqrt(val-100)'", "value 0", NULL);
    /* ffmpeg evaluates past maxval too: 256 at 8 bits */
    expect_error("lutrgb=r=sqrt(255-val)", 17, 9, "lutrgb", "value 256", NULL);
    expect_error("lutrgb=g=clip(val)", 17, 9, "lutrgb", "clip() takes 3 arguments", NULL);
    expect_error("lutrgb=w=val", 17, 9, "lutrgb", "no parameter 'w'", NULL);
    expect_size("lutrgb=r=negval", 17, 9, 4, 3, 17, 9, 4, 3);
    return run_filters("lut", "lutrgb", NULL);
}

/* drawbox and drawgrid: device against reference (their cases), the
 * values they refuse, and replace's pixels by their definition: the
 * outline takes the colour with its alpha, the inside and outside keep
 * theirs. */
int test_filter_draw(void)
{
    expect_error("drawbox=color=nocolour", 17, 9, "drawbox", "'nocolour'", "invert", NULL);
    expect_error("drawbox=x=1/0", 17, 9, "drawbox", "x '1/0' gives inf", NULL);
    expect_error("drawbox=y=y+1", 17, 9, "drawbox", "y 'y+1' gives nan", NULL);
    expect_error("drawgrid=w=3e9", 17, 9, "drawgrid", "w '3e9'", "not an int", NULL);
    expect_error("drawbox=replace=2", 17, 9, "drawbox", "'replace'", NULL);
    expect_error("drawbox=t=iw+", 17, 9, "drawbox", "'t'", NULL);
    expect_size("drawbox=w=iw/2:t=fill", 17, 9, 4, 3, 17, 9, 4, 3);

    clv_context *ctx = test_context(0);
    if (ctx) {
        clv_msg msg = {{0}};
        test_rig rig;
        if (test_rig_open(&rig, ctx, "drawbox=1:1:5:4:0x10203040:1:1", NULL, 17, 9, &msg)) {
            CHECK(0, "setup: %s", msg.text);
        } else {
            test_fill(&rig.in, CONTENT_NOISE, 9);
            CHECK(test_rig_run(&rig, 0, &msg) == 0, "%s", msg.text);
            static const int at[][3] = {{1, 1, 1}, {5, 4, 1}, {3, 1, 1}, {1, 3, 1},
                                        {3, 2, 0}, {0, 0, 0}, {6, 1, 0}, {2, 5, 0}};
            for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
                for (int c = 0; c < 4; c++) {
                    const int x = at[i][0], y = at[i][1];
                    const int want = at[i][2] ? 0x10 * (c + 1) : clv_test_get(&rig.in, x, y, c);
                    CHECK(clv_test_get(&rig.got, x, y, c) == want,
                          "replace at (%d, %d) channel %d: %d, want %d", x, y, c,
                          clv_test_get(&rig.got, x, y, c), want);
                }
            CHECK(test_rig_equal(&rig), "replace: the device differs from the reference");
        }
        test_rig_close(&rig);
        /* a colour set on a running chain is the one drawn (configure) */
        if (test_rig_open(&rig, ctx, "drawbox=2:1:9:6:red@0.5:2", "drawbox=2:1:9:6:invert:2", 17, 9,
                          &msg)) {
            CHECK(0, "setup: %s", msg.text);
        } else {
            test_fill(&rig.in, CONTENT_NOISE, 4);
            CHECK(test_rig_run(&rig, 0, &msg) == 0, "%s", msg.text);
            CHECK(clv_chain_set_param(rig.chain, 0, "color", "invert", &msg) == 0, "%s", msg.text);
            CHECK(test_rig_run(&rig, 0, &msg) == 0, "%s", msg.text);
            CHECK(test_rig_equal(&rig), "after set_param color=invert the chain differs from "
                                        "its reference");
        }
        test_rig_close(&rig);
        clv_context_destroy(ctx);
    }
    return run_filters("drawbox", "drawgrid", NULL);
}

int test_geometry_sizes(void)
{
    /* vf_crop: w, h, w again; the default centre; keep_aspect keeps the DAR */
    expect_size("crop", 640, 360, 1, 1, 640, 360, 1, 1);
    expect_size("crop=out_w=oh*2:out_h=ih/3", 640, 360, 1, 1, 240, 120, 1, 1);
    expect_size("crop=iw/2:ih:keep_aspect=1", 640, 360, 1, 1, 320, 360, 2, 1);
    expect_size("crop=100:100:keep_aspect=1", 640, 360, 4, 3, 100, 100, 64, 27);
    expect_size("crop=w=2.5:h=3.5", 9, 9, 0, 1, 2, 4, 0, 1); /* lrint: halves to even */
    expect_size("crop=w=a*100:h=dar*10", 640, 360, 2, 1, 178, 36, 2, 1);
    /* vf_pad: 0 is the input's side; aspect fits w or h */
    expect_size("pad=0:0", 17, 9, 1, 1, 17, 9, 1, 1);
    expect_size("pad=w=oh+10:h=ih", 17, 9, 1, 1, 19, 9, 1, 1);
    expect_size("pad=aspect=16/9", 640, 480, 1, 1, 853, 480, 1, 1);
    expect_size("pad=aspect=16/9", 640, 480, 4, 3, 640, 480, 4, 3);
    expect_size("pad=aspect=1", 640, 480, 0, 1, 640, 640, 0, 1);
    expect_size("pad=w=iw*1.5:h=ih*1.5", 17, 9, 1, 1, 25, 13, 1, 1); /* truncated */
    /* vf_transpose: sides and the aspect turn; passthrough keeps them */
    expect_size("transpose=clock", 640, 360, 4, 3, 360, 640, 3, 4);
    expect_size("transpose=2", 640, 360, 0, 1, 360, 640, 0, 1);
    expect_size("transpose=clock:passthrough=landscape", 640, 360, 4, 3, 640, 360, 4, 3);
    expect_size("transpose=clock:passthrough=portrait", 640, 360, 4, 3, 360, 640, 3, 4);
    expect_size("transpose=clock:passthrough=portrait", 9, 9, 1, 1, 9, 9, 1, 1);
    expect_size("transpose=6", 360, 640, 1, 1, 640, 360, 1, 1);
    expect_size("transpose=6", 640, 360, 1, 1, 640, 360, 1, 1);

    /* Sizes that cannot be made name the filter, its place and the sizes. */
    expect_error("crop=w=iw+1", 17, 9, "'crop' (#1", "18x9", "17x9", NULL);
    expect_error("hflip,crop=w=0", 17, 9, "'crop' (#2", "0x9", "17x9", NULL);
    expect_error("crop=w=oh:h=ow", 17, 9, "'crop'", "out_h 'ow'", "self-referencing", NULL);
    expect_error("pad=w=iw-1", 17, 9, "'pad' (#1", "16x9", "17x9", NULL);
    expect_error("pad=w=iw+5:h=oh", 17, 9, "'pad'", "h 'oh'", "not a number", NULL);
    expect_error("pad=w=iw+2:x=0/0", 17, 9, "x '0/0'", NULL);
    expect_size("pad=w=iw+2:x=5", 17, 9, 1, 1, 19, 9, 1, 1); /* too far: centred */
    expect_error("transpose,pad=h=ih-3", 17, 9, "'pad' (#2", "9x14", "9x17", NULL);
    /* Bad expressions name the expression and where it goes wrong. */
    expect_error("crop=w=iw*", 17, 9, "crop", "'w'", "iw*", NULL);
    expect_error("crop=x=foo", 17, 9, "crop", "'x'", "foo", NULL);
    expect_error("pad=color=notacolour", 17, 9, "pad", "'color'", "notacolour", NULL);
    expect_error("transpose=dir=8", 17, 9, "transpose", "'dir'", "'8'", NULL);
    expect_error("transpose=passthrough=square", 17, 9, "transpose", "square", NULL);
    return 0;
}

/* Every filter the registry has, has cases, each of which uses it; and each
 * filter's parameters have a range and (but for matrices) a step. */
int test_filter_cases(void)
{
    clv_msg msg = {{0}};
    for (int i = 0; i < clv_filter_count(); i++) {
        const clv_filter *f = clv_filter_at(i);
        const char *name = clv_filter_name(f);
        const filter_cases *fc = NULL;
        for (int k = 0; k < FILTER_TABLE_SIZE; k++)
            if (!strcmp(filter_table[k].filter, name))
                fc = &filter_table[k];
        CHECK(fc && fc->count > 0,
              "filter '%s' is registered but has no cases in "
              "tests/filter_cases.h",
              name);
        for (int c = 0; fc && c < fc->count; c++) {
            clv_chain_desc *d = NULL;
            CHECK(clv_chain_parse(fc->cases[c].chain, &d, &msg) == 0, "%s: %s", fc->cases[c].chain,
                  msg.text);
            int uses = 0;
            for (int j = 0; j < clv_chain_desc_count(d); j++)
                uses |= clv_chain_desc_filter(d, j) == f;
            clv_chain_desc_destroy(d);
            CHECK(uses, "case '%s' filed under %s does not use it", fc->cases[c].chain, name);
        }
        for (int j = 0; j < clv_filter_param_count(f); j++) {
            const clv_param *p = clv_filter_param(f, j);
            /* Matrices, expressions, flags, colours, texts and files are
             * typed, not stepped. */
            int typed = p->type == CLV_PARAM_MATRIX || p->type == CLV_PARAM_EXPR ||
                        p->type == CLV_PARAM_FLAGS || p->type == CLV_PARAM_COLOR ||
                        p->type == CLV_PARAM_TEXT || p->type == CLV_PARAM_FILE;
            /* A number whose steps mean nothing (scale's param0, whose default
             * is swscale's "the algorithm's own") says so in its help. */
            int unstepped = p->help && strstr(p->help, "not stepped by keys");
            CHECK(typed || unstepped || p->step > 0, "%s: parameter %s has no step", name, p->name);
            CHECK(p->type == CLV_PARAM_ENUM || p->min <= p->max, "%s: parameter %s has no range",
                  name, p->name);
        }
    }
    for (int k = 0; k < FILTER_TABLE_SIZE; k++)
        CHECK(clv_filter_find(filter_table[k].filter) != NULL,
              "cases for '%s', which is not a registered filter", filter_table[k].filter);
    return 0;
}

int test_chain_runner(void)
{
    int status = run_both_shapes(CASES(chain_cases), 0);
    if (status)
        return status;

    /* Changing a parameter of a running chain takes effect on the next run
     * and equals a chain built with that value. */
    clv_context *ctx = test_context(0);
    if (!ctx)
        return 1;
    clv_msg msg = {{0}};
    test_rig rig;
    int w = 64, h = 48;
    if (test_rig_open(&rig, ctx, "sharpen,median", "sharpen,median=radius=3", w, h, &msg)) {
        CHECK(0, "setup: %s", msg.text);
        goto done;
    }
    test_fill(&rig.in, CONTENT_NOISE, 5);
    CHECK(test_rig_run(&rig, 0, &msg) == 0, "%s", msg.text);
    CHECK(!test_rig_equal(&rig), "radius 1 and 3 agree on noise?");
    CHECK(clv_chain_set_param(rig.chain, 1, "radius", "3", &msg) == 0, "%s", msg.text);
    CHECK(test_rig_run(&rig, 1, &msg) == 0, "%s", msg.text);
    CHECK(test_rig_equal(&rig), "after set_param radius=3 the chain differs from "
                                "sharpen,median=radius=3");
    char text[256];
    clv_chain_format(clv_chain_get_desc(rig.chain), text, sizeof text);
    CHECK_EQ_STR(text, "sharpen,median=radius=3");

    /* The completion event signals the end of the run. */
    cl_event done_event = NULL;
    CHECK(clv_chain_run(rig.chain, &rig.src, &rig.dst, 2, NULL, &done_event, &msg) == 0, "%s",
          msg.text);
    CHECK(done_event != NULL, "no completion event");
    if (done_event) {
        CHECK(clWaitForEvents(1, &done_event) == CL_SUCCESS, "wait");
        clReleaseEvent(done_event);
    }

    /* A bad value is refused and changes nothing. */
    CHECK(clv_chain_set_param(rig.chain, 1, "radius", "99", &msg) == CLV_ERANGE, "accepted 99");
    CHECK_EQ_STR(msg.text, "filter 'median' parameter 'radius': 99 is out of range (allowed: 1 "
                           "to 7)");
    CHECK(clv_chain_set_param(rig.chain, 1, "radios", "2", &msg) == CLV_EPARSE, "accepted radios");
    CHECK(clv_chain_set_param(rig.chain, 5, "radius", "2", &msg) == CLV_EINVAL, "accepted #6");
    clv_chain_format(clv_chain_get_desc(rig.chain), text, sizeof text);
    CHECK_EQ_STR(text, "sharpen,median=radius=3");
    test_rig_close(&rig);

    /* The median builds each window size's kernel when a radius first needs
     * it: every kind reached by set_param equals a chain built with it, at
     * both depths (a 16-bit chain's new kernel is built at 16 bits). */
    static const char *const radii[] = {"2", "5", "3", "1"};
    for (int depth = 8; depth <= 16; depth += 8) {
        for (size_t i = 0; i < sizeof radii / sizeof radii[0]; i++) {
            char want[64];
            snprintf(want, sizeof want, "median=radius=%s", radii[i]);
            if (test_rig_open_depth(&rig, ctx, "median", want, w, h, depth, &msg)) {
                CHECK(0, "setup %s at %d bits: %s", want, depth, msg.text);
                continue;
            }
            test_fill(&rig.in, CONTENT_NOISE, 7);
            CHECK(test_rig_run(&rig, 0, &msg) == 0, "%s", msg.text);
            CHECK(clv_chain_set_param(rig.chain, 0, "radius", radii[i], &msg) == 0, "%s", msg.text);
            CHECK(test_rig_run(&rig, 1, &msg) == 0, "%s", msg.text);
            CHECK(test_rig_equal(&rig),
                  "after set_param radius=%s the chain differs from %s at %d bits", radii[i], want,
                  depth);
            test_rig_close(&rig);
        }
    }

    /* The empty chain copies; an in-place run is refused. */
    if (test_rig_open(&rig, ctx, "", NULL, w, h, &msg)) {
        CHECK(0, "setup: %s", msg.text);
        goto done;
    }
    test_fill(&rig.in, CONTENT_NOISE, 6);
    CHECK(test_rig_run(&rig, 0, &msg) == 0, "%s", msg.text);
    CHECK(memcmp(rig.got.pixels, rig.in.pixels, (size_t)w * h * 4) == 0,
          "the empty chain changed the frame");
    CHECK(clv_chain_run(rig.chain, &rig.src, &rig.src, 0, NULL, NULL, &msg) == CLV_EINVAL,
          "in-place run accepted");
done:
    test_rig_close(&rig);
    clv_context_destroy(ctx);
    return 0;
}

/* Every comparison on every non-CPU device present; skipped where none. */
int test_gpu_filters(void)
{
    clv_device_info *list = NULL;
    clv_msg msg = {{0}};
    int count = clv_device_list(&list, &msg);
    int tested = 0;
    for (int d = 0; d < count; d++) {
        if (list[d].is_cpu)
            continue;
        char index[16];
        snprintf(index, sizeof index, "%d", d);
        clv_context *ctx = test_context_on(index, 0);
        if (!ctx) {
            CHECK(0, "cannot open device %d (%s)", d, list[d].name);
            continue;
        }
        int before = test_failures;
        for (int i = 0; i < FILTER_TABLE_SIZE; i++) {
            const clv_filter *f = clv_filter_find(filter_table[i].filter);
            run_cases(ctx, filter_table[i].cases, 0, filter_table[i].count, 8);
            if (f && clv_filter_deep(f))
                run_cases(ctx, filter_table[i].cases, 0, filter_table[i].count, 16);
        }
        run_cases(ctx, chain_cases, 0, (int)(sizeof chain_cases / sizeof chain_cases[0]), 8);
        prewitt_gradients(ctx, list[d].name);
        printf("  %s: %s\n", list[d].name,
               test_failures == before ? "every filter equals its reference" : "MISMATCHES");
        clv_context_destroy(ctx);
        tested++;
    }
    free(list);
    if (!tested) {
        printf("  no GPU or other non-CPU OpenCL device here\n");
        return TEST_SKIP;
    }
    return 0;
}

/* scale's sizes and aspects against ffmpeg 5.1's (vf_scale and
 * ff_scale_adjust_dimensions, each line checked with `ffmpeg -v verbose
 * -vf scale=...` on a 640x424 frame of SAR 4/3; docs/notes/swscale.md §6),
 * and its errors naming the expression at fault. */
int test_scale_sizes(void)
{
    static const struct {
        const char *chain;
        int w, h, sar_num, sar_den;
    } sizes_640[] = {
        {"scale=-2:100", 150, 100, 640, 477},
        {"scale=-1:100", 151, 100, 32000, 24009},
        {"scale=100:-3", 100, 66, 352, 265},
        {"scale=300:300:force_original_aspect_ratio=decrease", 300, 199, 3184, 2385},
        {"scale=300:300:force_original_aspect_ratio=increase:force_divisible_by=4", 456, 300, 4000,
         3021},
        {"scale=iw/3:ih/3", 213, 141, 15040, 11289},
        {"scale=0:50", 640, 50, 25, 159},
        {"scale=-1:-1", 640, 424, 4, 3},
        {"scale=320:100", 320, 100, 100, 159},
        {"scale=iw/3:-2", 213, 142, 640, 477},
        {"scale=oh*2:ih/2", 424, 212, 160, 159},
        {"scale=w=ih:h=iw", 424, 640, 25600, 8427},
        {"scale='min(iw,300)':-2", 300, 198, 352, 265},
        {"scale=301:301:force_original_aspect_ratio=decrease:force_divisible_by=2", 300, 198, 352,
         265},
        {"scale=-4:-8", 640, 424, 4, 3},
        {"scale=iw*dar:ih", 1288, 424, 320, 483},
        {"scale=iw*sar:ih", 853, 424, 2560, 2559},
        {"scale=ih*a:-1", 640, 424, 4, 3},
        {"scale=w=-5:h=333", 505, 333, 7104, 5353},
        {"scale=1:1", 1, 1, 320, 159},
        {"scale=width=iw*1.99:height=0", 1273, 424, 2560, 3819},
        {"scale=iw/2:ih/2,scale=iw*2:ih*2", 640, 424, 4, 3},
    };
    clv_msg msg = {{0}};
    for (int i = 0; i < (int)(sizeof sizes_640 / sizeof sizes_640[0]); i++) {
        clv_chain_desc *d = NULL;
        clv_size in = {640, 424, 4, 3, 0, 0, 0}, out = {0, 0, 0, 0, 0, 0, 0};
        CHECK(clv_chain_parse(sizes_640[i].chain, &d, &msg) == 0, "%s: %s", sizes_640[i].chain,
              msg.text);
        if (!d)
            continue;
        CHECK(clv_chain_desc_output_size(d, &in, &out, &msg) == 0, "%s: %s", sizes_640[i].chain,
              msg.text);
        CHECK(out.width == sizes_640[i].w && out.height == sizes_640[i].h &&
                  out.sar_num == sizes_640[i].sar_num && out.sar_den == sizes_640[i].sar_den,
              "%s on 640x424 SAR 4/3: %dx%d SAR %d/%d, ffmpeg gives %dx%d SAR %d/%d",
              sizes_640[i].chain, out.width, out.height, out.sar_num, out.sar_den, sizes_640[i].w,
              sizes_640[i].h, sizes_640[i].sar_num, sizes_640[i].sar_den);
        /* An unknown aspect stays unknown (and the size does not depend on it
         * unless the expression reads sar or dar). */
        clv_size plain = {640, 424, 0, 1, 0, 0, 0};
        CHECK(clv_chain_desc_output_size(d, &plain, &out, &msg) == 0 && out.sar_num == 0,
              "%s without an aspect: SAR %d/%d", sizes_640[i].chain, out.sar_num, out.sar_den);
        clv_chain_desc_destroy(d);
    }

    /* Errors: at parsing (the expression and the character), at sizing (the
     * expression, or the size it makes). */
    static const struct {
        const char *chain;
        int at_parse;
        const char *says[2];
    } bad[] = {
        {"scale=w=iw*:h=ih", 1, {"iw*", "character 4"}},
        {"scale=w=foo", 1, {"foo", "character 1"}},
        {"scale=flags=bicubic+nearest", 1, {"nearest", "flags"}},
        {"scale=w=ow*2", 0, {"ow*2", "its own value"}},
        {"scale=h=oh/2+1", 0, {"oh/2+1", "its own value"}},
        {"scale=w=iw:h=0/0", 0, {"'0/0'", "not a size"}},
        {"scale=w=iw:h=ih*1e12", 0, {"ih*1e12", "not a size"}},
        {"scale=flags=bicubic+lanczos", 0, {"flags", "one scaling algorithm"}},
        {"scale=flags=lanczos:param0=30", 0, {"lanczos", "25"}},
        {"scale=w=-1000:h=1", 0, {"scale", "0x1"}},
        {"scale=iw*100:ih", 0, {"scale", "64000x424"}},
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        clv_chain_desc *d = NULL;
        clv_size in = {640, 424, 0, 1, 0, 0, 0}, out;
        int err = clv_chain_parse(bad[i].chain, &d, &msg);
        if (!err) {
            err = clv_chain_desc_output_size(d, &in, &out, &msg);
            clv_chain_desc_destroy(d);
            CHECK(!bad[i].at_parse, "%s: parsed, expected a parse error", bad[i].chain);
        } else {
            CHECK(bad[i].at_parse, "%s: a parse error, expected one at sizing: %s", bad[i].chain,
                  msg.text);
        }
        CHECK(err != 0, "%s: accepted", bad[i].chain);
        for (int k = 0; err && k < 2; k++)
            CHECK(strstr(msg.text, bad[i].says[k]) != NULL, "%s: the message '%s' lacks '%s'",
                  bad[i].chain, msg.text, bad[i].says[k]);
    }
    return 0;
}

/* The references of chain give random pictures of both depths back bit for
 * bit: eq and hue with nothing to adjust (their Y'CbCr round trip is
 * exact, src/filters/ycbcr.h). */
static void expect_identity(const char *chain)
{
    static const enum content contents[] = {CONTENT_NOISE, CONTENT_SATURATED, CONTENT_GRADIENT};
    clv_msg msg = {{0}};
    clv_chain_desc *d = NULL;
    CHECK(clv_chain_parse(chain, &d, &msg) == 0, "%s: %s", chain, msg.text);
    for (int depth = 8; d && depth <= 16; depth += 8)
        for (int c = 0; c < 3; c++) {
            clv_image in = {0}, out = {0};
            clv_ref_chain *ref = NULL;
            int err = clv_image_alloc_depth(&in, 97, 61, depth) ||
                      clv_image_alloc_depth(&out, 97, 61, depth) || clv_ref_chain_create(d, &ref);
            if (!err) {
                test_fill(&in, contents[c], 7u);
                err = clv_ref_chain_run(ref, &in, &out, 0);
            }
            CHECK(!err, "%s at %d bits: the reference failed", chain, depth);
            CHECK(err || !memcmp(in.pixels, out.pixels, in.stride * (size_t)in.height),
                  "%s at %d bits on %s: the picture changed", chain, depth,
                  test_content_name(contents[c]));
            clv_ref_chain_destroy(ref);
            clv_image_free(&in);
            clv_image_free(&out);
        }
    clv_chain_desc_destroy(d);
}

/* chain fails to build on the device with a message containing `says`. */
static void expect_build_error(const char *chain, const char *says)
{
    clv_context *ctx = test_context(0);
    clv_msg msg = {{0}};
    clv_chain_desc *d = NULL;
    clv_chain *c = NULL;
    int err = clv_chain_parse(chain, &d, &msg);
    if (!err && ctx)
        err = clv_chain_create(ctx, d, &c, &msg);
    CHECK(ctx && err && strstr(msg.text, says), "%s: error %d '%s', want one saying '%s'", chain,
          err, msg.text, says);
    clv_chain_destroy(c);
    clv_chain_desc_destroy(d);
    clv_context_destroy(ctx);
}

int test_filter_eq(void)
{
    expect_identity("eq");
    expect_identity("eq=contrast=1:brightness=0:saturation=1:gamma=1:gamma_weight=0.5:eval=frame");
    expect_build_error("eq=gamma='1+'", "expression");
    return run_filters("eq", NULL);
}

int test_filter_colorkey(void)
{
    return run_filters("colorkey", NULL);
}

int test_filter_chromakey(void)
{
    return run_filters("chromakey", NULL);
}

int test_filter_despill(void)
{
    return run_filters("despill", NULL);
}

int test_filter_lumakey(void)
{
    return run_filters("lumakey", NULL);
}

int test_filter_hue(void)
{
    expect_identity("hue");
    expect_identity("hue=h=0:s=1:b=0");
    expect_identity("hue=H=2*PI*n");
    expect_build_error("hue=h=10:H=1", "incompatible");
    return run_filters("hue", NULL);
}

int test_filter_colorbalance(void)
{
    expect_identity("colorbalance");
    return run_filters("colorbalance", NULL);
}

int test_filter_vignette(void)
{
    expect_build_error("vignette=aspect=-1", "aspect");
    return run_filters("vignette", NULL);
}

/* edgedetect at the widths about its GPU windows' ends (the blur's 5 x 8
 * needs x0 >= 2 and x0 + 6 <= w, the others' 3 x 6 x0 >= 1 and x0 + 5
 * <= w) and heights about its borders, both shapes and depths. */
static void edgedetect_sizes(void)
{
    static const int dims[][2] = {{2, 2}, {4, 4}, {5, 3}, {6, 5}, {7, 6}, {8, 8}, {9, 6}, {20, 7}};
    static const char *const chains[] = {"edgedetect", "edgedetect=mode=colormix:low=0.01"};
    clv_context *ctx[2];
    if (both_contexts(ctx))
        return;
    for (int shape = 0; shape < 2; shape++)
        for (int depth = 8; depth <= 16; depth += 8)
            for (int c = 0; c < 2; c++)
                for (int d = 0; d < 8; d++)
                    CHECK(test_compare_depth(ctx[shape], chains[c], dims[d][0], dims[d][1],
                                             CONTENT_NOISE, 1, depth) == 0,
                          "%s at %dx%d, %d bits, %s shape", chains[c], dims[d][0], dims[d][1],
                          depth, shape ? "gpu" : "row");
    clv_context_destroy(ctx[0]);
    clv_context_destroy(ctx[1]);
}

int test_filter_edges(void)
{
    edgedetect_sizes();
    expect_error("scharr=scale=70000", 17, 9, "scharr", "'scale'", "0 to 65535", NULL);
    expect_error("kirsch=delta=-300", 17, 9, "kirsch", "'delta'", "-255 to 255", NULL);
    expect_error("edgedetect=high=1.5", 17, 9, "edgedetect", "'high'", "0 to 1", NULL);
    expect_error("edgedetect=mode=lines", 17, 9, "edgedetect", "'mode'", "wires|colormix|canny",
                 NULL);
    expect_error("edgedetect=planes=8", 17, 9, "edgedetect", "'planes'", "1 to 7", NULL);
    expect_error("edgedetect=planes=r+a", 17, 9, "edgedetect", "'a' is not a flag", NULL);
    return run_filters("sobel", "roberts", "scharr", "kirsch", "edgedetect", NULL);
}

int test_filter_curves(void)
{
    expect_identity("curves");
    expect_build_error("curves=r='0/0 x/1'", "'x/1' is not a number");
    expect_build_error("curves=r='0/0 0.001/0.5 1/1'", "too close");
    expect_build_error("curves=all='0/0 1.5/1'", "outside 0 to 1");
    expect_build_error("curves=psfile=/nonexistent/film.acv", "/nonexistent/film.acv");
    return run_filters("curves", NULL);
}

/* A malformed .cube: the chain does not build, its message names the file
 * and the line (line 0: names the file). */
static void expect_cube_error(const char *dir, const char *text, int line, const char *says)
{
    char path[256], chain[320], where[300];
    snprintf(path, sizeof path, "%s/bad.cube", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    snprintf(chain, sizeof chain, "lut3d=file='%s'", path);
    if (line)
        snprintf(where, sizeof where, "%s:%d: %s", path, line, says);
    else
        snprintf(where, sizeof where, "%s: %s", path, says);
    expect_build_error(chain, where);
    unlink(path);
}

int test_filter_lut3d(void)
{
    for (int i = 0; i < 4; i++) {
        static const char *const modes[] = {"trilinear", "tetrahedral", "pyramid", "prism"};
        char chain[300];
        snprintf(chain, sizeof chain, "lut3d=file=%s:interp=%s", TEST_DATA("identity.cube"),
                 modes[i]);
        expect_identity(chain);
    }
    char dir[] = "/tmp/clvid-cube-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    expect_cube_error(dir, "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 zero\n", 5,
                      "'1 1 zero' is not a row of three numbers");
    expect_cube_error(dir, "# big\nLUT_3D_SIZE 300\n", 2, "LUT_3D_SIZE needs a whole number");
    expect_cube_error(dir, "TITLE \"short\"\nLUT_3D_SIZE 2\n0 0 0\n\n", 4,
                      "the file ends after 1 rows of the 8");
    expect_cube_error(dir, "LUT_1D_SIZE 2\n0 0 0\n1 1 1\n0.5 0.5 0.5\n", 4, "more rows");
    expect_cube_error(dir, "0 0 0\nLUT_3D_SIZE 2\n", 1, "data before LUT_3D_SIZE");
    expect_cube_error(dir, "DOMAIN_MIN 0 0\nLUT_3D_SIZE 2\n", 1, "DOMAIN_MIN needs three");
    expect_cube_error(dir, "LUT_1D_SIZE 2\n0 0 0\nLUT_3D_SIZE 2\n", 3,
                      "LUT_3D_SIZE after the table's data");
    expect_cube_error(dir, "TITLE \"nothing\"\n# at all\n", 0, "no LUT_3D_SIZE or LUT_1D_SIZE");
    expect_cube_error(dir, "DOMAIN_MIN 1 0 0\nDOMAIN_MAX 0 1 1\nLUT_1D_SIZE 2\n0 0 0\n1 1 1\n", 2,
                      "a domain's minimum is not below its maximum");
    /* DOMAIN_MIN is the minimum whichever line comes first; an equal
     * minimum and maximum would divide by zero. */
    expect_cube_error(dir, "DOMAIN_MAX 1 1 1\nDOMAIN_MIN 1 1 1\nLUT_1D_SIZE 2\n0 0 0\n1 1 1\n", 2,
                      "a domain's minimum is not below its maximum (1, 1)");
    expect_cube_error(dir, "LUT_3D_INPUT_RANGE 0.5 0.5\nLUT_3D_SIZE 2\n", 1,
                      "LUT_3D_INPUT_RANGE's minimum is not below its maximum");
    /* Sizes and no rows: the short file's error, not a table never made. */
    expect_cube_error(dir, "LUT_3D_SIZE 2\n", 1, "the file ends after 0 rows of the 8");
    expect_cube_error(dir, "LUT_1D_SIZE 2\n", 1, "the file ends after 0 rows of the 2");
    expect_cube_error(dir, "LUT_1D_SIZE 2\nLUT_3D_SIZE 2\n# none\n", 3,
                      "the file ends after 0 rows of the 10");
    /* A row that is not numbers is an error at its line, not a keyword
     * skipped. */
    expect_cube_error(dir, "LUT_3D_SIZE 2\n0 0 0\nnan nan nan\n", 3,
                      "'nan nan nan' is not a row of three numbers");
    expect_cube_error(dir, "LUT_3D_SIZE 2\ninf 1 1\n", 2, "'inf 1 1' is not a row");
    expect_cube_error(dir, "LUT_3D_SIZE 2\nabc 1 1\n", 2, "'abc 1 1' is not a row");
    expect_cube_error(dir, "LUT_3D_SIZE 2\nINF 1 1\n", 2, "'INF 1 1' is not a row");
    /* A keyword that begins as a number's word does is a keyword (the
     * file's error is then its end, not this line). */
    expect_cube_error(dir, "LUT_3D_SIZE 2\nINFO by hand\n0 0 0\n", 3,
                      "the file ends after 1 rows of the 8");
    char missing[300];
    snprintf(missing, sizeof missing, "lut3d=%s/none.cube", dir);
    expect_build_error(missing, "none.cube");
    expect_build_error("lut3d", "no file given");
    rmdir(dir);
    return run_filters("lut3d", NULL);
}

int test_filter_deband(void)
{
    expect_build_error("deband=direction=7", "direction");
    return run_filters("deband", NULL);
}

/* hqdn3d keeps the last frame on the device: a new size starts afresh from
 * its first frame, as ffmpeg's does and as the reference does, and going
 * back to the first size starts afresh again. */
static void hqdn3d_sizes(int shape, int depth)
{
    clv_context *ctx = test_context(shape);
    if (!ctx)
        return;
    static const int dims[][2] = {{64, 48}, {64, 48}, {33, 17}, {33, 17}, {33, 17}, {64, 48}};
    clv_msg msg = {{0}};
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    clv_ref_chain *ref = NULL;
    int err = clv_chain_parse("hqdn3d=6:4:12:9", &desc, &msg);
    if (!err)
        err = clv_chain_create_depth(ctx, desc, depth, &chain, &msg);
    if (!err)
        err = clv_ref_chain_create(desc, &ref);
    CHECK(!err, "hqdn3d sizes: setup: %s", msg.text);
    for (int i = 0; !err && i < (int)(sizeof dims / sizeof dims[0]); i++) {
        const int w = dims[i][0], h = dims[i][1];
        clv_frame src = {0}, dst = {0};
        clv_image in = {0}, got = {0}, want = {0};
        err = clv_frame_create_depth(ctx, w, h, depth, &src, &msg);
        if (!err)
            err = clv_frame_create_depth(ctx, w, h, depth, &dst, &msg);
        if (!err)
            err = clv_image_alloc_depth(&in, w, h, depth) ||
                  clv_image_alloc_depth(&got, w, h, depth) ||
                  clv_image_alloc_depth(&want, w, h, depth);
        if (!err) {
            test_fill(&in, CONTENT_NOISE, (uint32_t)(11 * i + depth));
            err = clv_frame_upload(ctx, &src, &in);
        }
        if (!err)
            err = clv_chain_run(chain, &src, &dst, (uint64_t)i, NULL, NULL, &msg);
        if (!err)
            err = clv_frame_download(ctx, &dst, &got);
        if (!err)
            err = clv_ref_chain_run(ref, &in, &want, (uint64_t)i);
        CHECK(!err, "hqdn3d sizes: frame %d (%dx%d): %s", i, w, h, msg.text);
        CHECK(err || !memcmp(got.pixels, want.pixels, (size_t)want.stride * (size_t)h),
              "hqdn3d sizes: frame %d (%dx%d, %d bits, %s shape) differs from the reference", i, w,
              h, depth, shape == 1 ? "row" : "gpu");
        clv_frame_destroy(&src);
        clv_frame_destroy(&dst);
        clv_image_free(&in);
        clv_image_free(&got);
        clv_image_free(&want);
    }
    clv_chain_destroy(chain);
    clv_ref_chain_destroy(ref);
    clv_chain_desc_destroy(desc);
    clv_context_destroy(ctx);
}

/* The device chain with enable= (device) against the reference chain of
 * ref_text on frame n of fresh noise each, in order from 0: equal (want
 * 1) or not (0). */
static void enable_frames(clv_context *ctx, const char *device, const char *ref_text,
                          const int *want, int frames)
{
    test_rig rig;
    clv_msg msg = {{0}};
    if (test_rig_open(&rig, ctx, device, ref_text, 37, 23, &msg)) {
        CHECK(0, "%s: %s", device, msg.text);
        test_rig_close(&rig);
        return;
    }
    for (int n = 0; n < frames; n++) {
        test_fill(&rig.in, CONTENT_NOISE, (uint32_t)(11 + n));
        CHECK(test_rig_run(&rig, (uint64_t)n, &msg) == 0, "%s: %s", device, msg.text);
        CHECK(test_rig_equal(&rig) == want[n], "%s, frame %d: %s %s", device, n,
              want[n] ? "differs from" : "equals", ref_text);
    }
    test_rig_close(&rig);
}

/* ffmpeg's timeline option: a filter whose enable= is 0 on a frame passes
 * it on unchanged (vflip,vflip: the frame itself) and runs where it is not
 * 0 (the filter without it); hqdn3d, off on frame 0, still takes that frame
 * as its previous one, so that it equals plain hqdn3d from frame 1 on. Both
 * shapes; the device against the references with the same text is in the
 * cases (filter_cases.h). */
int test_filter_enable(void)
{
    static const int odd[] = {0, 1, 0}, even[] = {1, 0, 1}, first[] = {1, 0, 0},
                     later[] = {0, 1, 1};
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        enable_frames(ctx, "gblur=sigma=2:enable='eq(mod(n,2),1)'", "gblur=sigma=2", odd, 3);
        enable_frames(ctx, "gblur=sigma=2:enable='eq(mod(n,2),1)'", "vflip,vflip", even, 3);
        enable_frames(ctx, "sharpen,hflip=enable='gte(t,0.04)'", "sharpen", first, 3);
        enable_frames(ctx, "hqdn3d=4:3:10:10:enable='gte(n,1)'", "vflip,vflip", first, 3);
        enable_frames(ctx, "hqdn3d=4:3:10:10:enable='gte(n,1)'", "hqdn3d=4:3:10:10", later, 3);
        /* NaN (pos is not known) is off, as libavfilter's test */
        enable_frames(ctx, "gblur=enable=pos", "vflip,vflip", even, 1);
        clv_context_destroy(ctx);
    }
    return 0;
}

int test_filter_hqdn3d(void)
{
    for (int shape = 1; shape <= 2; shape++)
        for (int depth = 8; depth <= 16; depth += 8)
            hqdn3d_sizes(shape, depth);
    return run_filters("hqdn3d", NULL);
}

int test_filter_bilateral(void)
{
    expect_identity("bilateral");
    return run_filters("bilateral", NULL);
}

int test_filter_nlmeans(void)
{
    expect_identity("nlmeans=r=1");
    return run_filters("nlmeans", NULL);
}

/* A deinterlacer's whole stream as a caller runs it (clv_chain_cadence):
 * rate runs a frame, the first delay * rate outputs dropped, then
 * clv_chain_end and the last frame again; every run, the flush's included
 * (bwdif's last field spatial only), equals the reference. Returns how many
 * frames came out (frames * rate when nothing is lost). */
static int deint_stream(int shape, int depth, const char *chain_text, int frames, int w, int h)
{
    clv_context *ctx = test_context(shape);
    if (!ctx)
        return -1;
    clv_msg msg = {{0}};
    test_rig rig;
    int err = test_rig_open_depth(&rig, ctx, chain_text, NULL, w, h, depth, &msg), out = 0;
    int delay = 0, rate = 1;
    if (!err)
        clv_chain_cadence(rig.chain, &delay, &rate);
    CHECK(!err && delay == 1, "%s: setup: %s (delay %d)", chain_text, msg.text, delay);
    uint64_t runs = 0;
    for (int f = 0; !err && f < frames + delay; f++) {
        if (f == frames) {
            clv_chain_end(rig.chain);
            clv_ref_chain_end(rig.ref);
        } else {
            test_fill(&rig.in, CONTENT_NOISE, (uint32_t)(97 * f + depth + w));
        }
        for (int k = 0; !err && k < rate; k++, runs++) {
            err = test_rig_run(&rig, runs, &msg);
            CHECK(!err, "%s run %llu: %s", chain_text, (unsigned long long)runs, msg.text);
            CHECK(err || test_rig_equal(&rig),
                  "%s at %d bits on %dx%d (%s shape): run %llu differs from the reference",
                  chain_text, depth, w, h, shape == 1 ? "row" : "gpu", (unsigned long long)runs);
            if (runs >= (uint64_t)(delay * rate))
                out++;
        }
    }
    test_rig_close(&rig);
    clv_context_destroy(ctx);
    return out;
}

static void deint_streams(const char *name)
{
    char text[64];
    for (int shape = 1; shape <= 2; shape++)
        for (int depth = 8; depth <= 16; depth += 8)
            for (int mode = 0; mode <= 1; mode++) {
                static const int dims[][2] = {{1, 1}, {3, 2}, {17, 9}, {40, 23}};
                for (int d = 0; d < 4; d++) {
                    snprintf(text, sizeof text, "%s=%d", name, mode);
                    for (int frames = 1; frames <= 3; frames += 2) {
                        int out = deint_stream(shape, depth, text, frames, dims[d][0], dims[d][1]);
                        CHECK(out == frames * (mode + 1), "%s: %d frames in, %d out (want %d)",
                              text, frames, out, frames * (mode + 1));
                    }
                }
            }
}

int test_filter_yadif(void)
{
    deint_streams("yadif");
    return run_filters("yadif", NULL);
}

int test_filter_bwdif(void)
{
    deint_streams("bwdif");
    return run_filters("bwdif", NULL);
}
