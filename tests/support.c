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

/* The same contents at 16 bits: every value of the range, the extremes,
 * gradients steeper than a code a pixel. */
static void fill16(clv_image *img, enum content content, uint32_t s)
{
    uint16_t flat[4] = {(uint16_t)next(&s), (uint16_t)next(&s), (uint16_t)next(&s),
                        (uint16_t)next(&s)};
    for (int y = 0; y < img->height; y++) {
        uint16_t *row = (uint16_t *)(void *)(img->pixels + (size_t)y * img->stride);
        for (int x = 0; x < img->width; x++) {
            for (int c = 0; c < 4; c++) {
                uint32_t r = next(&s);
                uint16_t v;
                switch (content) {
                case CONTENT_FLAT:
                    v = flat[c];
                    break;
                case CONTENT_SATURATED:
                    v = (r >> 7) & 1 ? 65535 : 0;
                    break;
                case CONTENT_GRADIENT:
                    v = (uint16_t)((x * (c + 1) + y * (3 - c)) * 97 + (r & 255));
                    break;
                default:
                    v = (uint16_t)(r >> 11);
                    break;
                }
                row[x * 4 + c] = v;
            }
            if (content == CONTENT_OPAQUE || content == CONTENT_OPAQUE_BUT_ONE)
                row[x * 4 + 3] = 65535;
        }
    }
    if (content == CONTENT_OPAQUE_BUT_ONE) {
        uint16_t *last_row =
            (uint16_t *)(void *)(img->pixels + (size_t)(img->height - 1) * img->stride);
        last_row[(img->width - 1) / 2 * 4 + 3] = 65534;
    }
}

void test_fill(clv_image *img, enum content content, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 0x9E3779B9u;
    if (!s)
        s = 1;
    if (img->depth == 16) {
        fill16(img, content, s);
        return;
    }
    uint8_t flat[4] = {(uint8_t)next(&s), (uint8_t)next(&s), (uint8_t)next(&s), (uint8_t)next(&s)};
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
            if (content == CONTENT_OPAQUE || content == CONTENT_OPAQUE_BUT_ONE)
                row[x * 4 + 3] = 255;
        }
    }
    if (content == CONTENT_OPAQUE_BUT_ONE) {
        uint8_t *last_row = img->pixels + (size_t)(img->height - 1) * img->stride;
        last_row[(img->width - 1) / 2 * 4 + 3] = 254;
    }
}

const char *test_content_name(enum content content)
{
    static const char *const names[] = {"noise",    "flat",   "saturated",
                                        "gradient", "opaque", "opaque but one"};
    return names[content];
}

clv_context *test_context_on(const char *device, int shape)
{
    clv_context_options opt = {
        .struct_size = sizeof(clv_context_options), .device = device, .shape = shape};
    /* CLVID_STAGING=copy: a GPU's copied staging on any device, as the
     * command line's (the tests read the environment, the library none). */
    const char *staging = getenv("CLVID_STAGING");
    opt.staging = staging && !strcmp(staging, "copy");
    clv_context *ctx = NULL;
    clv_msg msg = {{0}};
    if (clv_context_create(&opt, &ctx, &msg)) {
        fprintf(stderr, "cannot open a device: %s\n", msg.text);
        return NULL;
    }
    return ctx;
}

const char *test_device(void)
{
    /* The tests are a program like the command line: they read
     * CLVID_DEVICE themselves (the library reads no environment). */
    const char *spec = getenv("CLVID_DEVICE");
    return spec && *spec ? spec : NULL;
}

clv_context *test_context(int shape)
{
    return test_context_on(test_device(), shape);
}

static int compare_images(const clv_image *got, const clv_image *want, const char *what)
{
    int px = clv_image_pixel_bytes(want);
    for (int y = 0; y < want->height; y++) {
        const uint8_t *g = got->pixels + (size_t)y * got->stride;
        const uint8_t *w = want->pixels + (size_t)y * want->stride;
        if (memcmp(g, w, (size_t)want->width * (size_t)px)) {
            int diffs = 0, first = -1;
            for (int x = 0; x < want->width; x++)
                for (int c = 0; c < 4; c++)
                    if (clv_test_get(got, x, y, c) != clv_test_get(want, x, y, c)) {
                        diffs++;
                        if (first < 0)
                            first = 4 * x + c;
                    }
            fprintf(stderr,
                    "  %s: first difference at x=%d y=%d channel %d: device %d, reference %d "
                    "(%d values differ in that row)\n",
                    what, first / 4, y, first % 4, clv_test_get(got, first / 4, y, first % 4),
                    clv_test_get(want, first / 4, y, first % 4), diffs);
            return 1;
        }
    }
    return 0;
}

int test_rig_open(test_rig *rig, clv_context *ctx, const char *chain_text, const char *ref_text,
                  int w, int h, clv_msg *msg)
{
    return test_rig_open_depth(rig, ctx, chain_text, ref_text, w, h, 8, msg);
}

int test_rig_open_depth(test_rig *rig, clv_context *ctx, const char *chain_text,
                        const char *ref_text, int w, int h, int depth, clv_msg *msg)
{
    memset(rig, 0, sizeof *rig);
    rig->ctx = ctx;
    clv_chain_desc *desc = NULL, *ref_desc = NULL;
    int err = clv_chain_parse(chain_text, &desc, msg);
    if (!err)
        err = clv_chain_parse(ref_text ? ref_text : chain_text, &ref_desc, msg);
    clv_chain_desc_take_fps(desc); /* the rig takes every frame out: fps's pass on */
    if (!err)
        err = clv_chain_create_depth(ctx, desc, depth, &rig->chain, msg);
    if (!err)
        err = clv_ref_chain_create(ref_desc, &rig->ref);
    clv_chain_desc_destroy(desc);
    clv_chain_desc_destroy(ref_desc);
    /* The output is of the chain's size (scale, crop... change it). */
    clv_size in = {w, h, 0, 1, 0, 0, 0}, out = in;
    if (!err)
        err = clv_chain_output_size(rig->chain, &in, &out, msg);
    if (!err)
        err = clv_frame_create_depth(ctx, w, h, depth, &rig->src, msg);
    if (!err)
        err = clv_frame_create_depth(ctx, out.width, out.height, depth, &rig->dst, msg);
    if (!err)
        err = clv_image_alloc_depth(&rig->in, w, h, depth);
    if (!err)
        err = clv_image_alloc_depth(&rig->got, out.width, out.height, depth);
    if (!err)
        err = clv_image_alloc_depth(&rig->want, out.width, out.height, depth);
    return err;
}

int test_rig_run_device(test_rig *rig, uint64_t frame, clv_msg *msg)
{
    int err = clv_frame_upload(rig->ctx, &rig->src, &rig->in);
    if (!err)
        err = clv_chain_run(rig->chain, &rig->src, &rig->dst, frame, NULL, NULL, msg);
    if (!err)
        err = clv_frame_download(rig->ctx, &rig->dst, &rig->got);
    return err;
}

int test_rig_run(test_rig *rig, uint64_t frame, clv_msg *msg)
{
    int err = test_rig_run_device(rig, frame, msg);
    if (!err)
        err = clv_ref_chain_run(rig->ref, &rig->in, &rig->want, frame);
    return err;
}

int test_rig_set_input(test_rig *rig, const clv_size *in, clv_msg *msg)
{
    clv_size at = *in, out;
    at.width = rig->in.width;
    at.height = rig->in.height;
    clv_ref_chain_set_input(rig->ref, &at);
    return clv_chain_output_size(rig->chain, &at, &out, msg);
}

int test_rig_equal(const test_rig *rig)
{
    return memcmp(rig->got.pixels, rig->want.pixels,
                  (size_t)rig->want.stride * (size_t)rig->want.height) == 0;
}

void test_rig_close(test_rig *rig)
{
    clv_chain_destroy(rig->chain);
    clv_ref_chain_destroy(rig->ref);
    clv_frame_destroy(&rig->src);
    clv_frame_destroy(&rig->dst);
    clv_image_free(&rig->in);
    clv_image_free(&rig->got);
    clv_image_free(&rig->want);
    memset(rig, 0, sizeof *rig);
}

int test_compare(clv_context *ctx, const char *chain_text, int w, int h, enum content content,
                 int frames)
{
    return test_compare_depth(ctx, chain_text, w, h, content, frames, 8);
}

/* What test_keep_references keeps: one entry a key, its bytes and whether
 * all of them were written. */
typedef struct kept_entry {
    char *key;
    uint8_t *bytes;
    int complete;
} kept_entry;
static struct {
    int on, count;
    kept_entry *items;
} kept;

void test_keep_references(int on)
{
    for (int i = 0; i < kept.count; i++) {
        free(kept.items[i].key);
        free(kept.items[i].bytes);
    }
    free(kept.items);
    memset(&kept, 0, sizeof kept);
    kept.on = on;
}

uint8_t *test_kept(const char *key, size_t size, int **complete)
{
    if (!kept.on)
        return NULL;
    for (int i = 0; i < kept.count; i++)
        if (!strcmp(kept.items[i].key, key)) {
            *complete = &kept.items[i].complete;
            return kept.items[i].bytes;
        }
    kept_entry *items = realloc(kept.items, (size_t)(kept.count + 1) * sizeof *items);
    if (!items)
        return NULL;
    kept.items = items;
    kept_entry *k = &items[kept.count];
    k->key = strdup(key);
    k->bytes = malloc(size ? size : 1);
    k->complete = 0;
    if (!k->key || !k->bytes) {
        free(k->key);
        free(k->bytes);
        return NULL;
    }
    kept.count++;
    *complete = &k->complete;
    return k->bytes;
}

int test_image_copy(clv_image *dst, const clv_image *src)
{
    if (clv_image_alloc_depth(dst, src->width, src->height, src->depth))
        return 1;
    memcpy(dst->pixels, src->pixels, src->stride * (size_t)src->height);
    return 0;
}

int test_compare_depth(clv_context *ctx, const char *chain_text, int w, int h, enum content content,
                       int frames, int depth)
{
    clv_msg msg = {{0}};
    int bad = 0;
    char what[512];
    snprintf(what, sizeof what, "'%s' at %d bits on %dx%d %s (%s, %s shape)", chain_text, depth, w,
             h, test_content_name(content), clv_context_device(ctx)->name,
             clv_context_row_shape(ctx) ? "row" : "gpu");
    test_rig rig;
    if (test_rig_open_depth(&rig, ctx, chain_text, NULL, w, h, depth, &msg)) {
        CHECK(0, "%s: setup failed: %s", what, msg.text);
        test_rig_close(&rig);
        return 1;
    }
    char key[600];
    snprintf(key, sizeof key, "%s|%dx%d|%d|%d|%d", chain_text, w, h, (int)content, frames, depth);
    const size_t frame_size = rig.want.stride * (size_t)rig.want.height;
    int *complete = NULL;
    uint8_t *kept_frames = test_kept(key, frame_size * (size_t)frames, &complete);
    const int known = kept_frames && *complete;
    for (int f = 0; f < frames; f++) {
        test_fill(&rig.in, content, (uint32_t)(w * 31 + h * 17 + f * 7919 + (int)content));
        uint8_t *kept_frame = kept_frames ? kept_frames + frame_size * (size_t)f : NULL;
        int err = known ? test_rig_run_device(&rig, (uint64_t)f, &msg)
                        : test_rig_run(&rig, (uint64_t)f, &msg);
        if (err) {
            CHECK(0, "%s frame %d: run failed: %s", what, f, msg.text);
            bad++;
            break;
        }
        if (known)
            memcpy(rig.want.pixels, kept_frame, frame_size);
        else if (kept_frame)
            memcpy(kept_frame, rig.want.pixels, frame_size);
        if (kept_frames && f == frames - 1)
            *complete = 1; /* every frame's reference is there */
        char frame_what[600];
        snprintf(frame_what, sizeof frame_what, "%s frame %d", what, f);
        if (compare_images(&rig.got, &rig.want, frame_what)) {
            CHECK(0, "%s: device differs from the C reference", frame_what);
            bad++;
        }
    }
    test_rig_close(&rig);
    return bad;
}
