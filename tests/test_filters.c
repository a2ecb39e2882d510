/* test_filters.c - every filter on the device equals its C reference bit for
 * bit: several parameter sets, awkward sizes, flat/noisy/saturated/gradient
 * content, in both work shapes (rows for CPUs, pixel groups for GPUs). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct filter_case {
    const char *chain;
    int small_only; /* too slow for the reference at 1921x1081 */
    int frames;     /* > 1 for filters with state or per-frame variation */
} filter_case;

static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}, {1921, 1081}};
#define SIZE_COUNT ((int)(sizeof sizes / sizeof sizes[0]))
#define CASES(a) a, (int)(sizeof a / sizeof a[0])

static const filter_case convolution_cases[] = {
    {"convolution", 0, 1},
    {"convolution=matrix='1 2 1 2 4 2 1 2 1'", 0, 1},
    {"convolution=matrix='-1 -1 -1 -1 8 -1 -1 -1 -1':bias=128", 0, 1},
    {"convolution='1 2 3 4 5 6 7 8 9 10 -11 12 -13 14 15 16 -17 18 19 20 21 22 23 24 -25':7:-3", 0,
     1},
    {"convolution=matrix='-3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
     "0 0 0 0 0 0 0 0 0 0 0 0 0 1':div=0",
     0, 1},
    {"convolution=matrix='1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "
     "1 1 1 1 1 1 1 1 1 1 1 1 1'",
     0, 1},
    {"convolution=matrix='10000 -10000 10000 -10000 10000 -10000 10000 -10000 10000':div=999999:"
     "bias=-1024",
     0, 1},
    {"convolution=matrix='0 -1 0 -1 4 -1 0 -1 0':div=3:bias=-7", 0, 1},
    /* plus shapes (the CPU rows' five-tap loops): equal arms, unequal arms */
    {"convolution=matrix='0 1 0 1 -4 1 0 1 0':bias=128", 0, 1},
    {"convolution=matrix='0 -2 0 -1 6 3 0 1 0':div=1:bias=-5", 0, 1},
};

static const filter_case sharpen_emboss_cases[] = {
    {"sharpen", 0, 1},
    {"emboss", 0, 1},
};

static const filter_case prewitt_cases[] = {
    {"prewitt", 0, 1},
    {"prewitt=scale=0.5:delta=10", 0, 1},
    {"prewitt=scale=2.333:delta=-20", 0, 1},
    {"prewitt=scale=64:delta=-255", 0, 1},
    {"prewitt=scale=0:delta=255", 1, 1},
    {"prewitt=0.001", 1, 1},
};

static const filter_case median_cases[] = {
    {"median", 0, 1},          {"median=radius=2", 0, 1}, {"median=3", 1, 1},
    {"median=radius=5", 1, 1}, {"median=radius=7", 1, 1},
};

static const filter_case morph_cases[] = {
    {"erode", 0, 1},
    {"erode=radius=2:iterations=3", 1, 1},
    {"erode=radius=1:iterations=2", 0, 1},
    {"dilate", 0, 1},
    {"dilate=3", 1, 1},
    {"dilate=radius=7:iterations=4", 1, 1},
};

static const filter_case point_cases[] = {
    {"threshold", 0, 1},    {"threshold=t=0", 0, 1}, {"threshold=255", 1, 1},
    {"threshold=77", 1, 1}, {"gray", 0, 1},
};

static const filter_case equalize_cases[] = {
    {"equalize", 0, 1},
    {"equalize=mode=gray", 0, 1},
    {"gray,equalize=gray", 1, 1},
};

static const filter_case noise_cases[] = {
    {"noise", 0, 3},
    {"noise=type=saltpepper:amount=1:seed=7", 1, 2},
    {"noise=type=gaussian:sigma=25:seed=3", 0, 3},
    {"noise=gaussian:0:100:4294967295", 1, 2},
    {"noise=type=gaussian:sigma=0.5", 1, 1},
};

static const filter_case quantize_cases[] = {
    {"quantize", 0, 3},
    {"quantize=colors=2:iterations=3", 1, 2},
    {"quantize=colors=256:iterations=2", 1, 2},
    {"quantize=colors=1", 1, 1},
    {"quantize=iterations=0", 1, 2},
    {"quantize=colors=5:iterations=30", 1, 1},
};

/* A whole chain: ping-pong frames, scratch and state together. */
static const filter_case chain_cases[] = {
    {"median=radius=2,sharpen,equalize=mode=gray", 1, 1},
    {"threshold=100,erode=radius=1:iterations=2,dilate,noise=amount=0.2,quantize=colors=4", 1, 2},
};

static int run_cases(clv_context *ctx, const filter_case *cases, int count)
{
    int bad = 0;
    for (int i = 0; i < count; i++) {
        for (int s = 0; s < SIZE_COUNT; s++) {
            int w = sizes[s][0], h = sizes[s][1], big = w > 1000;
            if (big && cases[i].small_only)
                continue;
            for (int c = CONTENT_NOISE; c <= CONTENT_OPAQUE_BUT_ONE; c++) {
                if (big && c != CONTENT_NOISE && c != CONTENT_OPAQUE)
                    continue; /* the big size checks the work shape (and the opaque paths) */
                bad +=
                    test_compare(ctx, cases[i].chain, w, h, (enum content)c, cases[i].frames) != 0;
            }
        }
    }
    return bad;
}

/* Both shapes on the default device: PoCL runs the GPU shape too, so CI
 * covers both code paths of every kernel. */
static int run_both_shapes(const filter_case *cases, int count)
{
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        int bad = run_cases(ctx, cases, count);
        printf("  %s shape on %s: %d parameter sets, %d mismatching runs\n",
               shape == 1 ? "row" : "gpu", clv_context_device(ctx)->name, count, bad);
        clv_context_destroy(ctx);
    }
    return 0;
}

int test_filter_convolution(void)
{
    return run_both_shapes(CASES(convolution_cases));
}

int test_filter_sharpen_emboss(void)
{
    return run_both_shapes(CASES(sharpen_emboss_cases));
}

int test_filter_prewitt(void)
{
    return run_both_shapes(CASES(prewitt_cases));
}

int test_filter_median(void)
{
    return run_both_shapes(CASES(median_cases));
}

int test_filter_morph(void)
{
    return run_both_shapes(CASES(morph_cases));
}

int test_filter_point(void)
{
    return run_both_shapes(CASES(point_cases));
}

int test_filter_equalize(void)
{
    return run_both_shapes(CASES(equalize_cases));
}

int test_filter_noise(void)
{
    return run_both_shapes(CASES(noise_cases));
}

int test_filter_quantize(void)
{
    return run_both_shapes(CASES(quantize_cases));
}

int test_chain_runner(void)
{
    int status = run_both_shapes(CASES(chain_cases));
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
    static const struct {
        const filter_case *cases;
        int count;
    } all[] = {
        {CASES(convolution_cases)}, {CASES(sharpen_emboss_cases)}, {CASES(prewitt_cases)},
        {CASES(median_cases)},      {CASES(morph_cases)},          {CASES(point_cases)},
        {CASES(equalize_cases)},    {CASES(noise_cases)},          {CASES(quantize_cases)},
        {CASES(chain_cases)},
    };
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
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            run_cases(ctx, all[i].cases, all[i].count);
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
