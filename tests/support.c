/* support.c - test frames, contexts and the device-versus-reference
 * comparison every filter test uses. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static uint32_t next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

void test_fill(clv_image *img, enum content content, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 0x9E3779B9u;
    if (!s)
        s = 1;
    uint8_t flat[4] = {(uint8_t)next(&s), (uint8_t)next(&s), (uint8_t)next(&s),
                       (uint8_t)next(&s)};
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = img->pixels + (size_t)y * img->stride;
        for (int x = 0; x < img->width; x++) {
            for (int c = 0; c < 4; c++) {
                uint32_t r = next(&s);
                uint8_t v;
                switch (content) {
                case CONTENT_FLAT:
                    v = flat[c];
                    break;
                case CONTENT_SATURATED:
                    v = (r >> 7) & 1 ? 255 : 0;
                    break;
                case CONTENT_GRADIENT:
                    v = (uint8_t)((x * (c + 1) + y * (3 - c)) + (r & 3));
                    break;
                default:
                    v = (uint8_t)(r >> 11);
                    break;
                }
                row[x * 4 + c] = v;
            }
        }
    }
}

const char *test_content_name(enum content content)
{
    static const char *const names[] = {"noise", "flat", "saturated", "gradient"};
    return names[content];
}

clv_context *test_context_on(const char *device, int shape)
{
    clv_context_options opt = {.device = device, .shape = shape};
    clv_context *ctx = NULL;
    clv_msg msg = {{0}};
    if (clv_context_create(&opt, &ctx, &msg)) {
        fprintf(stderr, "cannot open a device: %s\n", msg.text);
        return NULL;
    }
    return ctx;
}

clv_context *test_context(int shape)
{
    return test_context_on(NULL, shape);
}

static int compare_images(const clv_image *got, const clv_image *want, const char *what)
{
    for (int y = 0; y < want->height; y++) {
        const uint8_t *g = got->pixels + (size_t)y * got->stride;
        const uint8_t *w = want->pixels + (size_t)y * want->stride;
        if (memcmp(g, w, (size_t)want->width * 4)) {
            int diffs = 0, first = -1;
            for (int i = 0; i < want->width * 4; i++)
                if (g[i] != w[i]) {
                    diffs++;
                    if (first < 0)
                        first = i;
                }
            fprintf(stderr,
                    "  %s: first difference at x=%d y=%d channel %d: device %d, reference %d "
                    "(%d bytes differ in that row)\n",
                    what, first / 4, y, first % 4, g[first], w[first], diffs);
            return 1;
        }
    }
    return 0;
}

int test_compare(clv_context *ctx, const char *chain_text, int w, int h, enum content content,
                 int frames)
{
    clv_msg msg = {{0}};
    clv_chain_desc desc;
    int bad = 0;
    char what[512];
    snprintf(what, sizeof what, "'%s' on %dx%d %s (%s, %s shape)", chain_text, w, h,
             test_content_name(content), clv_context_device(ctx)->name,
             clv_context_row_shape(ctx) ? "row" : "gpu");
    if (clv_chain_parse(chain_text, &desc, &msg)) {
        CHECK(0, "%s: %s", what, msg.text);
        return 1;
    }
    clv_chain *chain = NULL;
    clv_ref_chain *ref = NULL;
    clv_frame src = {0}, dst = {0};
    clv_image in = {0}, got = {0}, want = {0};
    if (clv_chain_create(ctx, &desc, &chain, &msg) || clv_ref_chain_create(&desc, &ref) ||
        clv_frame_create(ctx, w, h, &src, &msg) || clv_frame_create(ctx, w, h, &dst, &msg) ||
        clv_image_alloc(&in, w, h) || clv_image_alloc(&got, w, h) ||
        clv_image_alloc(&want, w, h)) {
        CHECK(0, "%s: setup failed: %s", what, msg.text);
        bad = 1;
        goto done;
    }
    for (int f = 0; f < frames; f++) {
        test_fill(&in, content, (uint32_t)(w * 31 + h * 17 + f * 7919 + (int)content));
        int err = clv_frame_upload(ctx, &src, &in);
        if (!err)
            err = clv_chain_run(chain, &src, &dst, (uint64_t)f, NULL, NULL, &msg);
        if (!err)
            err = clv_frame_download(ctx, &dst, &got);
        if (err) {
            CHECK(0, "%s frame %d: device run failed: %s", what, f, msg.text);
            bad++;
            break;
        }
        CHECK(clv_ref_chain_run(ref, &in, &want, (uint64_t)f) == 0, "%s: reference failed",
              what);
        char frame_what[600];
        snprintf(frame_what, sizeof frame_what, "%s frame %d", what, f);
        if (compare_images(&got, &want, frame_what)) {
            CHECK(0, "%s: device differs from the C reference", frame_what);
            bad++;
        }
    }
done:
    clv_chain_destroy(chain);
    clv_ref_chain_destroy(ref);
    clv_frame_destroy(&src);
    clv_frame_destroy(&dst);
    clv_image_free(&in);
    clv_image_free(&got);
    clv_image_free(&want);
    return bad;
}
