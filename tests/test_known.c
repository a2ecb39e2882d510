/* test_known.c - known answers that pin the definitions, checked on the
 * device and on the reference alike. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Runs chain on img with the device and the reference; out gets the device
 * result; returns nonzero if they differ or a run failed. */
static int run_both(clv_context *ctx, const char *chain_text, const clv_image *img, clv_image *out,
                    uint64_t frame)
{
    clv_msg msg = {{0}};
    test_rig rig;
    int bad = 1;
    if (test_rig_open(&rig, ctx, chain_text, NULL, img->width, img->height, &msg)) {
        CHECK(0, "%s: %s", chain_text, msg.text);
    } else {
        memcpy(rig.in.pixels, img->pixels, (size_t)img->stride * img->height);
        if (test_rig_run(&rig, frame, &msg)) {
            CHECK(0, "%s: run failed: %s", chain_text, msg.text);
        } else {
            memcpy(out->pixels, rig.got.pixels, (size_t)img->stride * img->height);
            bad = !test_rig_equal(&rig);
            CHECK(!bad, "%s: device and reference differ", chain_text);
        }
    }
    test_rig_close(&rig);
    return bad;
}

static void fill_flat(clv_image *img, uint8_t r, uint8_t g, uint8_t b, uint8_t a)
{
    for (int i = 0; i < img->width * img->height; i++) {
        img->pixels[4 * i] = r;
        img->pixels[4 * i + 1] = g;
        img->pixels[4 * i + 2] = b;
        img->pixels[4 * i + 3] = a;
    }
}

/* Every pixel equals (r, g, b, a). */
static int all_equal(const clv_image *img, uint8_t r, uint8_t g, uint8_t b, uint8_t a)
{
    for (int i = 0; i < img->width * img->height; i++) {
        const uint8_t *p = img->pixels + 4 * i;
        if (p[0] != r || p[1] != g || p[2] != b || p[3] != a) {
            fprintf(stderr, "  pixel %d is (%d %d %d %d), expected (%d %d %d %d)\n", i, p[0], p[1],
                    p[2], p[3], r, g, b, a);
            return 0;
        }
    }
    return 1;
}

static uint8_t *at(clv_image *img, int x, int y)
{
    return img->pixels + (size_t)y * img->stride + (size_t)x * 4;
}

int test_known_answers(void)
{
    clv_context *ctx = test_context(0);
    if (!ctx)
        return 1;
    int w = 40, h = 30;
    clv_image in = {0}, out = {0};
    clv_image_alloc(&in, w, h);
    clv_image_alloc(&out, w, h);

    /* Flat frames: sharpen and emboss (coefficient sums 1) keep them;
     * prewitt gives the delta; the identity convolution keeps anything. */
    fill_flat(&in, 100, 150, 200, 77);
    run_both(ctx, "sharpen", &in, &out, 0);
    CHECK(all_equal(&out, 100, 150, 200, 77), "sharpen changed a flat frame");
    run_both(ctx, "emboss", &in, &out, 0);
    CHECK(all_equal(&out, 100, 150, 200, 77), "emboss changed a flat frame");
    run_both(ctx, "prewitt", &in, &out, 0);
    CHECK(all_equal(&out, 0, 0, 0, 77), "prewitt of a flat frame is not 0");
    run_both(ctx, "prewitt=delta=7", &in, &out, 0);
    CHECK(all_equal(&out, 7, 7, 7, 77), "prewitt=delta=7 of a flat frame is not 7");
    run_both(ctx, "convolution=matrix='1 1 1 1 1 1 1 1 1':bias=-100", &in, &out, 0);
    CHECK(all_equal(&out, 0, 50, 100, 77), "box blur with bias");

    /* A constant frame: equalize keeps it (luma), and gives its gray in gray
     * mode; gray and threshold by the formula (gray(100,150,200) = 141). */
    run_both(ctx, "equalize", &in, &out, 0);
    CHECK(all_equal(&out, 100, 150, 200, 77), "equalize changed a constant frame");
    run_both(ctx, "equalize=mode=gray", &in, &out, 0);
    CHECK(all_equal(&out, 141, 141, 141, 77), "equalize=gray of a constant frame");
    run_both(ctx, "gray", &in, &out, 0);
    CHECK(all_equal(&out, 141, 141, 141, 77), "gray(100,150,200) is not 141");
    run_both(ctx, "threshold=140", &in, &out, 0);
    CHECK(all_equal(&out, 255, 255, 255, 77), "141 > 140 is white");
    run_both(ctx, "threshold=141", &in, &out, 0);
    CHECK(all_equal(&out, 0, 0, 0, 77), "141 > 141 is black");
    fill_flat(&in, 255, 0, 0, 255);
    run_both(ctx, "gray", &in, &out, 0);
    CHECK(all_equal(&out, 76, 76, 76, 255), "gray of pure red is 76 as in OpenCV");

    /* Two levels: equalize maps the lower to 0 and the upper to 255. */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t v = x < w / 2 ? 60 : 70;
            uint8_t *p = at(&in, x, y);
            p[0] = p[1] = p[2] = v;
            p[3] = 255;
        }
    run_both(ctx, "equalize=mode=gray", &in, &out, 0);
    CHECK(at(&out, 0, 0)[0] == 0 && at(&out, w - 1, 0)[0] == 255, "two levels -> %d, %d",
          at(&out, 0, 0)[0], at(&out, w - 1, 0)[0]);

    /* Median removes isolated salt and pepper from a flat frame. */
    fill_flat(&in, 50, 60, 70, 255);
    for (int y = 1; y < h; y += 4)
        for (int x = 1; x < w; x += 4)
            memset(at(&in, x, y), (x + y) % 8 == 2 ? 255 : 0, 3);
    run_both(ctx, "median", &in, &out, 0);
    CHECK(all_equal(&out, 50, 60, 70, 255), "median kept isolated pixels");
    run_both(ctx, "median=radius=3", &in, &out, 0);
    CHECK(all_equal(&out, 50, 60, 70, 255), "median=3 kept isolated pixels");

    /* One bright pixel: erode removes it, dilate grows it to a square. */
    fill_flat(&in, 10, 10, 10, 200);
    memset(at(&in, 20, 15), 240, 3);
    run_both(ctx, "erode", &in, &out, 0);
    CHECK(all_equal(&out, 10, 10, 10, 200), "erode kept a lone bright pixel");
    run_both(ctx, "dilate=radius=2", &in, &out, 0);
    int lit = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            lit += at(&out, x, y)[0] == 240;
    CHECK(lit == 25 && at(&out, 18, 13)[1] == 240 && at(&out, 22, 17)[2] == 240 &&
              at(&out, 23, 15)[0] == 10,
          "dilate=2 lit %d pixels, not a 5x5 square", lit);
    run_both(ctx, "dilate,erode", &in, &out, 0);
    CHECK(at(&out, 20, 15)[0] == 240 && at(&out, 21, 15)[0] == 10, "closing a single pixel");

    /* Quantize with k = the number of colours, seeded on each colour (one
     * colour per row band, k evenly spaced samples hit each band), reproduces
     * the frame exactly. */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = at(&in, x, y);
            int band = y / 6; /* 5 bands of 6 rows */
            p[0] = (uint8_t)(band * 50);
            p[1] = (uint8_t)(255 - band * 40);
            p[2] = (uint8_t)(band * band * 9);
            p[3] = (uint8_t)(x * 3);
        }
    run_both(ctx, "quantize=colors=5:iterations=4", &in, &out, 0);
    CHECK(memcmp(in.pixels, out.pixels, (size_t)w * h * 4) == 0,
          "quantize with k = 5 colours changed a 5-colour frame");
    run_both(ctx, "quantize=colors=1:iterations=1", &in, &out, 0);
    CHECK(at(&out, 0, 0)[0] == at(&out, w - 1, h - 1)[0] &&
              at(&out, 0, 0)[0] == (0 + 50 + 100 + 150 + 200) / 5,
          "quantize=1 is the mean colour");

    /* Noise: amount 0 and sigma 0 change nothing; amount 1 makes every pixel
     * black or white, about half each; gaussian sigma 20 on mid gray has a
     * measured standard deviation near 20; frames differ, seeds repeat. */
    test_fill(&in, CONTENT_NOISE, 99);
    run_both(ctx, "noise=amount=0", &in, &out, 0);
    CHECK(memcmp(in.pixels, out.pixels, (size_t)w * h * 4) == 0, "amount=0 changed the frame");
    run_both(ctx, "noise=gaussian:sigma=0", &in, &out, 0);
    CHECK(memcmp(in.pixels, out.pixels, (size_t)w * h * 4) == 0, "sigma=0 changed the frame");
    clv_image big = {0}, big_out = {0}, second = {0};
    clv_image_alloc(&big, 256, 256);
    clv_image_alloc(&big_out, 256, 256);
    clv_image_alloc(&second, 256, 256);
    fill_flat(&big, 128, 128, 128, 255);
    run_both(ctx, "noise=amount=1", &big, &big_out, 0);
    int black = 0, white = 0;
    for (int i = 0; i < 256 * 256; i++) {
        black += big_out.pixels[4 * i] == 0 && big_out.pixels[4 * i + 2] == 0;
        white += big_out.pixels[4 * i] == 255 && big_out.pixels[4 * i + 1] == 255;
    }
    CHECK(black + white == 256 * 256 && abs(black - white) < 2000,
          "amount=1: %d black, %d white of 65536", black, white);
    run_both(ctx, "noise=amount=0.1:seed=5", &big, &big_out, 0);
    int hit = 0;
    for (int i = 0; i < 256 * 256; i++)
        hit += big_out.pixels[4 * i] != 128;
    CHECK(abs(hit - 6554) < 600, "amount=0.1 hit %d of 65536 pixels", hit);
    run_both(ctx, "noise=amount=0.1:seed=5", &big, &second, 1);
    CHECK(memcmp(big_out.pixels, second.pixels, (size_t)256 * 256 * 4) != 0,
          "frames 0 and 1 got the same noise");
    run_both(ctx, "noise=amount=0.1:seed=5", &big, &second, 0);
    CHECK(memcmp(big_out.pixels, second.pixels, (size_t)256 * 256 * 4) == 0,
          "the same seed and frame gave different noise");
    run_both(ctx, "noise=gaussian:sigma=20:seed=1", &big, &big_out, 0);
    double sum = 0, sq = 0;
    for (int i = 0; i < 256 * 256; i++)
        for (int c = 0; c < 3; c++) {
            double d = big_out.pixels[4 * i + c] - 128.0;
            sum += d;
            sq += d * d;
        }
    double n = 256.0 * 256 * 3, mean = sum / n, sd = sqrt(sq / n - mean * mean);
    CHECK(fabs(mean) < 0.5 && fabs(sd - 20) < 1.0, "gaussian sigma=20: mean %.2f sd %.2f", mean,
          sd);

    clv_image_free(&big);
    clv_image_free(&big_out);
    clv_image_free(&second);
    clv_image_free(&in);
    clv_image_free(&out);
    clv_context_destroy(ctx);
    return 0;
}
