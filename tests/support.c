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

/* The reference frames kept by test_keep_references: one entry a
 * comparison, its frames in order. */
typedef struct kept_reference {
    char *key;
    int frames;
    clv_image *want;
} kept_reference;
static struct {
    int on, count, cap;
    kept_reference *items;
} kept;

void test_keep_references(int on)
{
    for (int i = 0; i < kept.count; i++) {
        for (int f = 0; f < kept.items[i].frames; f++)
            clv_image_free(&kept.items[i].want[f]);
        free(kept.items[i].want);
        free(kept.items[i].key);
    }
    free(kept.items);
    memset(&kept, 0, sizeof kept);
    kept.on = on;
}

static kept_reference *kept_find(const char *key)
{
    for (int i = 0; i < kept.count; i++)
        if (!strcmp(kept.items[i].key, key))
            return &kept.items[i];
    return NULL;
}

/* A new entry for key with room for `frames` frames (none kept yet), or
 * NULL when memory is short (the comparison then keeps nothing). */
static kept_reference *kept_add(const char *key, int frames)
{
    if (kept.count == kept.cap) {
        int cap = kept.cap ? 2 * kept.cap : 16;
        kept_reference *items = realloc(kept.items, (size_t)cap * sizeof *items);
        if (!items)
            return NULL;
        kept.items = items;
        kept.cap = cap;
    }
    kept_reference *k = &kept.items[kept.count];
    k->key = strdup(key);
    k->want = calloc((size_t)frames, sizeof *k->want);
    k->frames = 0;
    if (!k->key || !k->want) {
        free(k->key);
        free(k->want);
        return NULL;
    }
    kept.count++;
    return k;
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
    kept_reference *known = kept.on ? kept_find(key) : NULL;
    kept_reference *keep = kept.on && !known ? kept_add(key, frames) : NULL;
    if (known && known->frames != frames)
        known = NULL; /* its first run failed part way: run the reference again */
    for (int f = 0; f < frames; f++) {
        test_fill(&rig.in, content, (uint32_t)(w * 31 + h * 17 + f * 7919 + (int)content));
        int err;
        if (known)
            err = test_rig_run_device(&rig, (uint64_t)f, &msg);
        else
            err = test_rig_run(&rig, (uint64_t)f, &msg);
        if (err) {
            CHECK(0, "%s frame %d: run failed: %s", what, f, msg.text);
            bad++;
            break;
        }
        if (keep && keep->frames == f && !test_image_copy(&keep->want[f], &rig.want))
            keep->frames++;
        const clv_image *want = known ? &known->want[f] : &rig.want;
        char frame_what[600];
        snprintf(frame_what, sizeof frame_what, "%s frame %d", what, f);
        if (compare_images(&rig.got, want, frame_what)) {
            CHECK(0, "%s: device differs from the C reference", frame_what);
            bad++;
        }
    }
    test_rig_close(&rig);
    return bad;
}
