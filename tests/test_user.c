/* test_user.c - the `opencl` filter: user kernels from files against C
 * computations of the same formulas, their parameters, errors that name
 * file and line, and the live reload (build off the chain's thread, swap). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static char dir[256];

/* Writes text to dir/name; returns the path (static buffer per slot). */
static const char *put(const char *name, const char *text)
{
    static char paths[8][512];
    static int slot;
    char *path = paths[slot++ % 8];
    snprintf(path, 512, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return path;
    }
    fputs(text, f);
    fclose(f);
    return path;
}

static int make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/clvid-user-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static void remove_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static const char invert_cl[] = "// @help |amount - channel|, alpha kept\n"
                                "// @param int amount = 255 [0, 255] step 5 where colours fold\n"
                                "kernel void invert(CLV_ARGS, int amount)\n"
                                "{\n"
                                "    uchar4 p = READ(CLV_X, CLV_Y);\n"
                                "    WRITE((uchar4)(abs(amount - p.x), abs(amount - p.y),\n"
                                "                   abs(amount - p.z), p.w));\n"
                                "}\n";

/* The plain form, no helpers: neighbours with the borders done by hand. */
static const char blur_cl[] =
    "kernel void blur(global const uchar4 *src, global uchar4 *dst, int width, int height,\n"
    "                 int stride)\n"
    "{\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    int l = max(x - 1, 0), r = min(x + 1, width - 1), u = max(y - 1, 0);\n"
    "    int4 s = convert_int4(src[y * stride + l]) + convert_int4(src[y * stride + r])\n"
    "           + 2 * convert_int4(src[y * stride + x]) + convert_int4(src[u * stride + x]);\n"
    "    dst[y * stride + x] = convert_uchar4((s + 2) / 5);\n"
    "}\n";

/* Temporal: difference to the previous input, the frame index and time. */
static const char motion_cl[] =
    "// @param float gain = 1.5 [0, 8] step 0.25\n"
    "kernel void motion(CLV_ARGS, global const uchar4 *prev, float time, int frame, float gain)\n"
    "{\n"
    "    uchar4 p = READ(CLV_X, CLV_Y), q = PREV(CLV_X, CLV_Y);\n"
    "    int d = abs(clv_gray(p) - clv_gray(q));\n"
    "    WRITE((uchar4)(convert_uchar_sat((float)d * gain), frame & 255,\n"
    "                   (int)(time * 100.0f) & 255, 255));\n"
    "}\n";

/* Two kernels in one file, one with an attribute. */
static const char two_cl[] = "kernel __attribute__((vec_type_hint(uchar4))) void\n"
                             "first(CLV_ARGS) { WRITE(READ(CLV_X, CLV_Y).zyxw); }\n"
                             "/* kernel void commented(CLV_ARGS) {} */\n"
                             "kernel void second(CLV_ARGS) { WRITE((uchar4)(7, 7, 7, 7)); }\n";

/* Depth-generic kernels: clv_pixel, CLV_MAX and cl/user.cl's helpers, no
 * uchar, so they run at 8 and 16 bits. */
static const char copy_cl[] = "// uchar4 in a comment does not count\n"
                              "kernel void copy(CLV_ARGS) { WRITE(READ(CLV_X, CLV_Y)); }\n";
static const char invert_deep_cl[] =
    "// @help CLV_MAX - channel, alpha kept\n"
    "kernel void invert_deep(CLV_ARGS)\n"
    "{\n"
    "    clv_pixel p = READ(CLV_X, CLV_Y);\n"
    "    WRITE((clv_pixel)(CLV_MAX - p.x, CLV_MAX - p.y, CLV_MAX - p.z, p.w));\n"
    "}\n";
/* x: unpack then pack (exact), y: gray, z: 2z saturated, w: w - MAX/2
 * saturated at 0. */
static const char helpers_cl[] =
    "kernel void helpers(CLV_ARGS)\n"
    "{\n"
    "    clv_pixel p = READ(CLV_X, CLV_Y);\n"
    "    WRITE((clv_pixel)(clv_pack(clv_unpack(p)).x, clv_gray(p),\n"
    "                      clv_sat((int4)(2 * p.z)).z, clv_sat((int4)(p.w - CLV_MAX / 2)).w));\n"
    "}\n";
/* prev of the chain's depth, declared with the typedef. */
static const char diff_cl[] = "kernel void diff(CLV_ARGS, global const clv_pixel *prev)\n"
                              "{ WRITE(abs_diff(READ(CLV_X, CLV_Y), PREV(CLV_X, CLV_Y))); }\n";

static void run_once(clv_context *ctx, clv_chain *chain, const clv_image *in, clv_image *out);

typedef void (*ref_fn)(const clv_image *src, const clv_image *prev, clv_image *dst, int frame,
                       int param);

static void ref_invert(const clv_image *src, const clv_image *prev, clv_image *dst, int frame,
                       int amount)
{
    (void)prev;
    (void)frame;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            const uint8_t *p = src->pixels + y * src->stride + x * 4;
            uint8_t *o = dst->pixels + y * dst->stride + x * 4;
            for (int c = 0; c < 3; c++)
                o[c] = (uint8_t)abs(amount - p[c]);
            o[3] = p[3];
        }
}

static const uint8_t *at(const clv_image *img, int x, int y)
{
    x = x < 0 ? 0 : x >= img->width ? img->width - 1 : x;
    y = y < 0 ? 0 : y >= img->height ? img->height - 1 : y;
    return img->pixels + y * img->stride + x * 4;
}

static void ref_blur(const clv_image *src, const clv_image *prev, clv_image *dst, int frame,
                     int unused)
{
    (void)prev;
    (void)frame;
    (void)unused;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            uint8_t *o = dst->pixels + y * dst->stride + x * 4;
            for (int c = 0; c < 4; c++)
                o[c] = (uint8_t)((at(src, x - 1, y)[c] + at(src, x + 1, y)[c] +
                                  2 * at(src, x, y)[c] + at(src, x, y - 1)[c] + 2) /
                                 5);
        }
}

static int gray(const uint8_t *p)
{
    return (9798 * p[0] + 19235 * p[1] + 3735 * p[2] + 16384) >> 15;
}

/* gain in milli-units */
static void ref_motion(const clv_image *src, const clv_image *prev, clv_image *dst, int frame,
                       int gain)
{
    float g = (float)((double)gain / 1000.0);
    float time = (float)((double)frame * 1 / 25);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            uint8_t *o = dst->pixels + y * dst->stride + x * 4;
            int d = abs(gray(at(src, x, y)) - gray(at(prev, x, y)));
            float v = (float)d * g;
            o[0] = (uint8_t)(v >= 255.0f ? 255 : (int)v); /* convert_uchar_sat: toward 0 */
            o[1] = (uint8_t)(frame & 255);
            o[2] = (uint8_t)((int)(time * 100.0f) & 255);
            o[3] = 255;
        }
}

/* A depth-generic kernel's channel c at (x, y), from its input and the
 * previous input, at their depth. */
typedef long (*channel_ref)(const clv_image *src, const clv_image *prev, int x, int y, int c);

static long max_of(const clv_image *img)
{
    return img->depth == 16 ? 65535 : 255;
}

static long ref_copy(const clv_image *src, const clv_image *prev, int x, int y, int c)
{
    (void)prev;
    return clv_test_get(src, x, y, c);
}

static long ref_invert_deep(const clv_image *src, const clv_image *prev, int x, int y, int c)
{
    (void)prev;
    long v = clv_test_get(src, x, y, c);
    return c < 3 ? max_of(src) - v : v;
}

static long ref_helpers(const clv_image *src, const clv_image *prev, int x, int y, int c)
{
    (void)prev;
    long v = clv_test_get(src, x, y, c), max = max_of(src);
    switch (c) {
    case 0:
        return v;
    case 1:
        return (9798L * clv_test_get(src, x, y, 0) + 19235L * clv_test_get(src, x, y, 1) +
                3735L * clv_test_get(src, x, y, 2) + 16384) >>
               15;
    case 2:
        return 2 * v > max ? max : 2 * v;
    default:
        return v - max / 2 < 0 ? 0 : v - max / 2;
    }
}

static long ref_diff(const clv_image *src, const clv_image *prev, int x, int y, int c)
{
    return labs((long)clv_test_get(src, x, y, c) - clv_test_get(prev, x, y, c));
}

/* Runs text on a chain of `depth` bits over each size of sizes (count of
 * them) for `frames` frames each (noise that changes every frame) and
 * compares every channel with fn. Returns mismatching frames. */
static int compare_depth(clv_context *ctx, const char *text, channel_ref fn, int depth,
                         const int (*sizes)[2], int count, int frames)
{
    clv_msg msg = {{0}};
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    int bad = 0;
    if (clv_chain_parse(text, &desc, &msg) ||
        clv_chain_create_depth(ctx, desc, depth, &chain, &msg)) {
        CHECK(0, "%s at %d bits: %s", text, depth, msg.text);
        clv_chain_desc_destroy(desc);
        return frames * count;
    }
    for (int s = 0; s < count; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        clv_frame src = {0}, dst = {0};
        clv_image in = {0}, prev = {0}, got = {0};
        if (clv_frame_create_depth(ctx, w, h, depth, &src, &msg) ||
            clv_frame_create_depth(ctx, w, h, depth, &dst, &msg) ||
            clv_image_alloc_depth(&in, w, h, depth) || clv_image_alloc_depth(&prev, w, h, depth) ||
            clv_image_alloc_depth(&got, w, h, depth)) {
            CHECK(0, "%s at %dx%d, %d bits: %s", text, w, h, depth, msg.text);
            bad += frames;
            frames = 0;
        }
        for (int f = 0; f < frames; f++) {
            test_fill(&in, CONTENT_NOISE, (uint32_t)(f * 7919 + w * 31 + h));
            if (f == 0) /* a new size: the first frame is its own previous */
                memcpy(prev.pixels, in.pixels, (size_t)h * in.stride);
            int err = clv_frame_upload(ctx, &src, &in) ||
                      clv_chain_run(chain, &src, &dst, (uint64_t)f, NULL, NULL, &msg) ||
                      clv_frame_download(ctx, &dst, &got);
            int diff = 0, fx = 0, fy = 0, fc = 0;
            long fgot = 0, fwant = 0;
            for (int y = 0; !err && y < h; y++)
                for (int x = 0; x < w; x++)
                    for (int c = 0; c < 4; c++) {
                        long want = fn(&in, &prev, x, y, c), v = clv_test_get(&got, x, y, c);
                        if (v != want && diff++ == 0) {
                            fx = x, fy = y, fc = c;
                            fgot = v, fwant = want;
                        }
                    }
            if (err || diff) {
                bad++;
                CHECK(0,
                      "%s at %dx%d, %d bits, frame %d: %s%d channels differ (first: channel %d "
                      "of (%d, %d) is %ld, not %ld)",
                      text, w, h, depth, f, err ? msg.text : "", diff, fc, fx, fy, fgot, fwant);
            }
            memcpy(prev.pixels, in.pixels, (size_t)h * in.stride);
        }
        clv_frame_destroy(&src);
        clv_frame_destroy(&dst);
        clv_image_free(&in);
        clv_image_free(&prev);
        clv_image_free(&got);
    }
    clv_chain_destroy(chain);
    clv_chain_desc_destroy(desc);
    return bad;
}

/* The deep flag clvid read from a kernel file (-1: it did not parse). */
static int deep_of(const char *path)
{
    const clv_filter *f = NULL;
    clv_msg msg = {{0}};
    return clv_kernel_file_load(path, NULL, &f, &msg) ? -1 : clv_filter_deep(f);
}

/* Runs text on frames of w x h for `frames` frames (the content changes
 * every frame) and compares with fn. Returns mismatching frames. */
static int compare(clv_context *ctx, const char *text, ref_fn fn, int param, int w, int h,
                   int frames)
{
    clv_msg msg = {{0}};
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    clv_frame src = {0}, dst = {0};
    clv_image in = {0}, prev = {0}, got = {0}, want = {0};
    int bad = 0;
    if (clv_chain_parse(text, &desc, &msg) || clv_chain_create(ctx, desc, &chain, &msg) ||
        clv_frame_create(ctx, w, h, &src, &msg) || clv_frame_create(ctx, w, h, &dst, &msg) ||
        clv_image_alloc(&in, w, h) || clv_image_alloc(&prev, w, h) || clv_image_alloc(&got, w, h) ||
        clv_image_alloc(&want, w, h)) {
        CHECK(0, "%s at %dx%d: %s", text, w, h, msg.text);
        bad = frames;
        goto done;
    }
    for (int f = 0; f < frames; f++) {
        test_fill(&in, CONTENT_NOISE, (uint32_t)(f * 7919 + w * 31 + h));
        if (f == 0)
            memcpy(prev.pixels, in.pixels, (size_t)h * in.stride);
        int err = clv_frame_upload(ctx, &src, &in) ||
                  clv_chain_run(chain, &src, &dst, (uint64_t)f, NULL, NULL, &msg) ||
                  clv_frame_download(ctx, &dst, &got);
        fn(&in, &prev, &want, f, param);
        int diff = 0, first = -1;
        for (size_t i = 0; i < (size_t)h * got.stride; i++)
            if (got.pixels[i] != want.pixels[i] && diff++ == 0)
                first = (int)i;
        if (err || diff) {
            bad++;
            CHECK(0, "%s at %dx%d frame %d: %s%d bytes differ (first at pixel (%d, %d))", text, w,
                  h, f, err ? msg.text : "", diff, first / 4 % w, first / 4 / w);
        }
        memcpy(prev.pixels, in.pixels, (size_t)h * in.stride);
    }
done:
    clv_chain_destroy(chain);
    clv_chain_desc_destroy(desc);
    clv_frame_destroy(&src);
    clv_frame_destroy(&dst);
    clv_image_free(&in);
    clv_image_free(&prev);
    clv_image_free(&got);
    clv_image_free(&want);
    return bad;
}

int test_user_kernels(void)
{
    if (make_dir())
        return 1;
    const char *invert = put("invert.cl", invert_cl);
    const char *blur = put("blur.cl", blur_cl);
    const char *motion = put("motion.cl", motion_cl);
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}, {1921, 1081}};
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int w = sizes[s][0], h = sizes[s][1];
            char text[600];
            snprintf(text, sizeof text, "opencl=file=%s", invert);
            compare(ctx, text, ref_invert, 255, w, h, 1);
            snprintf(text, sizeof text, "opencl=file=%s:amount=100", invert);
            compare(ctx, text, ref_invert, 100, w, h, 1);
            snprintf(text, sizeof text, "opencl=%s", blur);
            compare(ctx, text, ref_blur, 0, w, h, 1);
            snprintf(text, sizeof text, "opencl=file=%s:gain=2.75", motion);
            compare(ctx, text, ref_motion, 2750, w, h, s < 3 ? 30 : 3);
        }
        clv_context_destroy(ctx);
    }

    /* Depth-generic files run at both depths: the same file gives the 8-bit
     * results on an 8-bit chain and the same formula on 0-65535 on a
     * 16-bit one (copy exact, invert 65535 - v, the helpers, prev of the
     * chain's depth). A file that names uchar4 runs at 8 bits only. */
    static const struct {
        const char *name, *text;
        channel_ref fn;
        int frames;
    } deep[] = {{"copy.cl", copy_cl, ref_copy, 1},
                {"invert_deep.cl", invert_deep_cl, ref_invert_deep, 1},
                {"helpers.cl", helpers_cl, ref_helpers, 1},
                {"diff.cl", diff_cl, ref_diff, 3}};
    int count = getenv("CLVID_SANITIZED") ? 4 : 5; /* 1921x1081 in the plain build */
    CHECK(deep_of(invert) == 0 && deep_of(blur) == 0 && deep_of(motion) == 0,
          "files that name uchar4 run at 8 bits only");
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        for (size_t k = 0; k < sizeof deep / sizeof deep[0]; k++) {
            const char *path = put(deep[k].name, deep[k].text);
            CHECK(deep_of(path) == 1, "%s is depth-generic", deep[k].name);
            char text[600];
            snprintf(text, sizeof text, "opencl=file=%s", path);
            for (int depth = 8; depth <= 16; depth += 8)
                compare_depth(ctx, text, deep[k].fn, depth, sizes, count, deep[k].frames);
        }
        clv_context_destroy(ctx);
    }
    remove_dir();
    return 0;
}

/* A user kernel between built-in filters equals the references around the
 * C computation. */
int test_user_in_chain(void)
{
    if (make_dir())
        return 1;
    char text[600];
    snprintf(text, sizeof text, "median,opencl=file=%s:amount=200,sharpen",
             put("invert.cl", invert_cl));
    clv_context *ctx = test_context(0);
    if (!ctx)
        return 1;
    int w = 641, h = 359;
    clv_msg msg = {{0}};
    clv_chain_desc *desc = NULL, *d1 = NULL, *d2 = NULL;
    clv_chain *chain = NULL;
    clv_ref_chain *r1 = NULL, *r2 = NULL;
    clv_frame src = {0}, dst = {0};
    clv_image in = {0}, mid = {0}, mid2 = {0}, got = {0}, want = {0};
    CHECK(clv_chain_parse(text, &desc, &msg) == 0, "%s", msg.text);
    CHECK(clv_chain_create(ctx, desc, &chain, &msg) == 0, "%s", msg.text);
    CHECK(clv_ref_chain_create(desc, &r1) == CLV_EINVAL, "a user kernel has no C reference");
    clv_chain_parse("median", &d1, &msg);
    clv_chain_parse("sharpen", &d2, &msg);
    clv_ref_chain_create(d1, &r1);
    clv_ref_chain_create(d2, &r2);
    clv_frame_create(ctx, w, h, &src, &msg);
    clv_frame_create(ctx, w, h, &dst, &msg);
    clv_image_alloc(&in, w, h);
    clv_image_alloc(&mid, w, h);
    clv_image_alloc(&mid2, w, h);
    clv_image_alloc(&got, w, h);
    clv_image_alloc(&want, w, h);
    test_fill(&in, CONTENT_NOISE, 5);
    if (chain && r1 && r2) {
        clv_frame_upload(ctx, &src, &in);
        CHECK(clv_chain_run(chain, &src, &dst, 0, NULL, NULL, &msg) == 0, "%s", msg.text);
        clv_frame_download(ctx, &dst, &got);
        clv_ref_chain_run(r1, &in, &mid, 0);
        ref_invert(&mid, NULL, &mid2, 0, 200);
        clv_ref_chain_run(r2, &mid2, &want, 0);
        CHECK(memcmp(got.pixels, want.pixels, (size_t)h * got.stride) == 0,
              "median,opencl,sharpen differs from median -> C -> sharpen");
    }
    /* The chain's text names the file and the values; it parses back. */
    char out[2048];
    clv_chain_format(desc, out, sizeof out);
    char expect[700];
    snprintf(expect, sizeof expect, "median=radius=1,opencl=file=%s/invert.cl:amount=200,sharpen",
             dir);
    CHECK_EQ_STR(out, expect);
    clv_chain_desc *again = NULL;
    CHECK(clv_chain_parse(out, &again, &msg) == 0 &&
              clv_chain_desc_filter(again, 1) == clv_chain_desc_filter(desc, 1),
          "the formatted chain parses back to the same descriptor: %s", msg.text);
    clv_chain_desc_destroy(again);
    clv_chain_desc_destroy(desc);
    clv_chain_desc_destroy(d1);
    clv_chain_desc_destroy(d2);
    clv_chain_destroy(chain);
    clv_ref_chain_destroy(r1);
    clv_ref_chain_destroy(r2);
    clv_frame_destroy(&src);
    clv_frame_destroy(&dst);
    clv_image_free(&in);
    clv_image_free(&mid);
    clv_image_free(&mid2);
    clv_image_free(&got);
    clv_image_free(&want);

    /* At 16 bits: a depth-generic kernel between deep built-in filters
     * equals their references around its formula on 0-65535. */
    snprintf(text, sizeof text, "median,opencl=file=%s,sharpen",
             put("invert_deep.cl", invert_deep_cl));
    desc = d1 = d2 = NULL;
    chain = NULL;
    r1 = r2 = NULL;
    memset(&src, 0, sizeof src);
    memset(&dst, 0, sizeof dst);
    int err =
        clv_chain_parse(text, &desc, &msg) || clv_chain_create_depth(ctx, desc, 16, &chain, &msg) ||
        clv_chain_parse("median", &d1, &msg) || clv_chain_parse("sharpen", &d2, &msg) ||
        clv_ref_chain_create(d1, &r1) || clv_ref_chain_create(d2, &r2) ||
        clv_frame_create_depth(ctx, w, h, 16, &src, &msg) ||
        clv_frame_create_depth(ctx, w, h, 16, &dst, &msg) || clv_image_alloc_depth(&in, w, h, 16) ||
        clv_image_alloc_depth(&mid, w, h, 16) || clv_image_alloc_depth(&mid2, w, h, 16) ||
        clv_image_alloc_depth(&got, w, h, 16) || clv_image_alloc_depth(&want, w, h, 16);
    CHECK(!err, "%s at 16 bits: %s", text, msg.text);
    if (!err) {
        test_fill(&in, CONTENT_NOISE, 6);
        clv_frame_upload(ctx, &src, &in);
        CHECK(clv_chain_run(chain, &src, &dst, 0, NULL, NULL, &msg) == 0, "%s", msg.text);
        clv_frame_download(ctx, &dst, &got);
        clv_ref_chain_run(r1, &in, &mid, 0);
        for (int y = 0; y < h; y++) {
            const uint16_t *a = (const uint16_t *)(const void *)(mid.pixels + y * mid.stride);
            uint16_t *o = (uint16_t *)(void *)(mid2.pixels + y * mid2.stride);
            for (int x = 0; x < 4 * w; x++)
                o[x] = (uint16_t)(x % 4 == 3 ? a[x] : 65535 - a[x]);
        }
        clv_ref_chain_run(r2, &mid2, &want, 0);
        CHECK(memcmp(got.pixels, want.pixels, (size_t)h * got.stride) == 0,
              "median,opencl,sharpen at 16 bits differs from median -> C -> sharpen");
    }
    clv_chain_desc_destroy(desc);
    clv_chain_desc_destroy(d1);
    clv_chain_desc_destroy(d2);
    clv_chain_destroy(chain);
    clv_ref_chain_destroy(r1);
    clv_ref_chain_destroy(r2);
    clv_frame_destroy(&src);
    clv_frame_destroy(&dst);
    clv_image_free(&in);
    clv_image_free(&mid);
    clv_image_free(&mid2);
    clv_image_free(&got);
    clv_image_free(&want);
    clv_context_destroy(ctx);
    remove_dir();
    return 0;
}

/* Parse-time errors: each names the file (and line) and what is wrong. */
static void expect_parse(const char *text, int code, const char *words)
{
    clv_chain_desc *desc = NULL;
    clv_msg msg = {{0}};
    int err = clv_chain_parse(text, &desc, &msg);
    CHECK(err == code && strstr(msg.text, words), "%s\n   got %d: %s\n  want %d with '%s'", text,
          err, msg.text, code, words);
    clv_chain_desc_destroy(desc);
}

/* Build-time errors: chain creation (at depth bits) fails with code and
 * words. */
static void expect_build_depth(clv_context *ctx, const char *text, int depth, int code,
                               const char *words)
{
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    clv_msg msg = {{0}};
    int err = clv_chain_parse(text, &desc, &msg);
    if (!err)
        err = clv_chain_create_depth(ctx, desc, depth, &chain, &msg);
    CHECK(err == code && strstr(msg.text, words), "%s\n   got %d: %s\n  want %d with '%s'", text,
          err, msg.text, code, words);
    clv_chain_destroy(chain);
    clv_chain_desc_destroy(desc);
}

static void expect_build(clv_context *ctx, const char *text, int code, const char *words)
{
    expect_build_depth(ctx, text, 8, code, words);
}

int test_user_errors(void)
{
    if (make_dir())
        return 1;
    char t[800], w[800];
#define PARSE(file_text, words)                                                                    \
    do {                                                                                           \
        snprintf(t, sizeof t, "opencl=file=%s", put("p.cl", file_text));                           \
        expect_parse(t, CLV_EPARSE, words);                                                        \
    } while (0)
    snprintf(t, sizeof t, "opencl=file=%s/none.cl", dir);
    snprintf(w, sizeof w, "cannot read '%s/none.cl': No such file", dir);
    expect_parse(t, CLV_EPARSE, w);
    expect_parse("opencl", CLV_EPARSE, "needs a kernel file");
    /* Values in order after a kernel file given in order are the kernel's
     * parameters from the first on. */
    {
        const char *invert = put("invert.cl", invert_cl);
        clv_chain_desc *desc = NULL;
        clv_msg msg = {{0}};
        snprintf(t, sizeof t, "opencl=%s:200", invert);
        int err = clv_chain_parse(t, &desc, &msg);
        CHECK(err == 0 && clv_chain_desc_values(desc, 0)[0].i == 200, "%s: %s (amount %lld)", t,
              msg.text, err ? -1LL : (long long)clv_chain_desc_values(desc, 0)[0].i);
        clv_chain_desc_destroy(desc);
        snprintf(t, sizeof t, "opencl=%s:200:3", invert);
        expect_parse(t, CLV_EPARSE, "takes 1 value in order; '3' is one too many");
    }
    /* The descriptor says which filters carry state across frames: a
     * kernel whose parameters name prev does, one named like a built-in
     * filter that reads only its frame does not (the cluster and several
     * devices read this, never the chain's text). */
    {
        const char *text[][2] = {
            {"motion.cl", motion_cl}, {"quantize_look.cl", invert_cl}, {"two.cl", two_cl}};
        const int want[] = {1, 0, 0};
        for (int i = 0; i < 3; i++) {
            clv_chain_desc *desc = NULL;
            clv_msg msg = {{0}};
            snprintf(t, sizeof t, "opencl=file=%s%s,quantize,noise", put(text[i][0], text[i][1]),
                     i == 2 ? ":kernel=first" : "");
            int err = clv_chain_parse(t, &desc, &msg);
            CHECK(err == 0, "%s: %s", t, msg.text);
            if (err)
                continue;
            CHECK(clv_filter_temporal(clv_chain_desc_filter(desc, 0)) == want[i], "%s: temporal %d",
                  t, clv_filter_temporal(clv_chain_desc_filter(desc, 0)));
            CHECK(clv_filter_temporal(clv_chain_desc_filter(desc, 1)) == 1 &&
                      clv_filter_temporal(clv_chain_desc_filter(desc, 2)) == 0,
                  "quantize is temporal, noise (indexed by frame) is not");
            clv_chain_desc_destroy(desc);
        }
    }
    expect_parse("opencl=file=/dev/zero", CLV_EPARSE, "is not a regular file");
    snprintf(w, sizeof w, "%s/p.cl:2: @param type 'double' is not int or float", dir);
    PARSE("\n// @param double x = 1 [0, 2]\nkernel void k(CLV_ARGS) {}\n", w);
    snprintf(w, sizeof w, "%s/p.cl:1: @param 'x' needs a range [MIN, MAX]", dir);
    PARSE("// @param float x = 1\nkernel void k(CLV_ARGS) {}\n", w);
    PARSE("// @param float x = 3 [0, 2]\nkernel void k(CLV_ARGS) {}\n",
          "default 3 is outside [0, 2]");
    PARSE("// @param int x = 1.5 [0, 2]\nkernel void k(CLV_ARGS) {}\n", "must be whole numbers");
    PARSE("// @param int width = 1 [0, 2]\nkernel void k(CLV_ARGS) {}\n", "the name is taken");
    PARSE("// @param int a = 1 [0, 2]\n// @param int a = 1 [0, 2]\nkernel void k(CLV_ARGS) {}\n",
          "'a' is declared twice");
    PARSE("// @parm int a = 1 [0, 2]\nkernel void k(CLV_ARGS) {}\n",
          "p.cl:1: unknown '@parm' (clvid reads @param and @help lines)");
    PARSE("// nothing here\n/* kernel void hidden(CLV_ARGS) {} */\n", "defines no kernel");
    snprintf(t, sizeof t, "opencl=file=%s", put("two.cl", two_cl));
    expect_parse(t, CLV_EPARSE, "has 2 kernels (first, second); say which with kernel=NAME");
    snprintf(t, sizeof t, "opencl=file=%s:kernel=third", put("two.cl", two_cl));
    expect_parse(t, CLV_EPARSE, "has no kernel 'third' (kernels: first, second)");
    snprintf(t, sizeof t, "opencl=file=%s:amont=3", put("invert.cl", invert_cl));
    expect_parse(t, CLV_EPARSE, "filter 'opencl' has no parameter 'amont'; did you mean 'amount'?");
    snprintf(t, sizeof t, "opencl=file=%s:amount=256", put("invert.cl", invert_cl));
    expect_parse(t, CLV_ERANGE, "parameter 'amount': 256 is out of range (allowed: 0 to 255)");
    expect_parse("opencll=file=x.cl", CLV_EPARSE, "did you mean 'opencl'?");
    {
        char many[1600] = "", want[64];
        for (int i = 0; i < CLV_PARAMS_MAX + 1; i++)
            snprintf(many + strlen(many), sizeof many - strlen(many),
                     "// @param int p%d = 0 [0, 1]\n", i);
        strcat(many, "kernel void k(CLV_ARGS) {}\n");
        snprintf(want, sizeof want, "more than %d @param lines", CLV_PARAMS_MAX);
        PARSE(many, want);
    }

    clv_context *ctx = test_context(0);
    if (!ctx)
        return 1;
    /* kernel= picks one of a file's kernels (one behind an attribute). */
    static const char *const picks[] = {"first", "second"};
    for (int k = 0; k < 2; k++) {
        clv_chain_desc *desc = NULL;
        clv_chain *chain = NULL;
        clv_msg msg = {{0}};
        clv_image in = {0}, out = {0};
        clv_image_alloc(&in, 5, 3);
        clv_image_alloc(&out, 5, 3);
        test_fill(&in, CONTENT_NOISE, 9);
        snprintf(t, sizeof t, "opencl=file=%s:kernel=%s", put("two.cl", two_cl), picks[k]);
        CHECK(clv_chain_parse(t, &desc, &msg) == 0 &&
                  clv_chain_create(ctx, desc, &chain, &msg) == 0,
              "%s: %s", t, msg.text);
        clv_chain_desc_destroy(desc);
        if (chain) {
            run_once(ctx, chain, &in, &out);
            const uint8_t *p = in.pixels + 4 * 7, *o = out.pixels + 4 * 7;
            CHECK(k == 0 ? (o[0] == p[2] && o[1] == p[1] && o[2] == p[0] && o[3] == p[3])
                         : (o[0] == 7 && o[3] == 7),
                  "kernel %s gave %d %d %d %d", picks[k], o[0], o[1], o[2], o[3]);
        }
        clv_chain_destroy(chain);
        clv_image_free(&in);
        clv_image_free(&out);
    }
    /* A compile error: the file's own line numbers, past the helpers. */
    snprintf(t, sizeof t, "opencl=file=%s",
             put("syntax.cl",
                 "// a comment\n\nkernel void k(CLV_ARGS)\n{\n    WRITE(undeclared);\n}\n"));
    snprintf(w, sizeof w, "%s/syntax.cl:5:", dir);
    expect_build(ctx, t, CLV_EKERNEL, w);
    expect_build(ctx, t, CLV_EKERNEL, "undeclared");
    /* The contract's first five arguments, and arguments nobody feeds. */
    snprintf(t, sizeof t, "opencl=file=%s",
             put("args.cl", "kernel void k(global const uchar4 *src, global uchar4 *dst, float w,"
                            " int h, int s) {}\n"));
    expect_build(ctx, t, CLV_EKERNEL, "argument 3 ('float w') must be an int width");
    snprintf(t, sizeof t, "opencl=file=%s",
             put("args.cl", "kernel void k(CLV_ARGS, float strength) {}\n"));
    expect_build(ctx, t, CLV_EKERNEL,
                 "argument 'float strength' is not a declared parameter (declare it: // @param "
                 "float strength");
    snprintf(t, sizeof t, "opencl=file=%s",
             put("args.cl", "// @param int s = 1 [0, 4]\nkernel void k(CLV_ARGS, float s) {}\n"));
    expect_build(ctx, t, CLV_EKERNEL, "argument 's' is float but its @param says int");
    snprintf(t, sizeof t, "opencl=file=%s", put("few.cl", "kernel void k(int a) {}\n"));
    expect_build(ctx, t, CLV_EKERNEL, "has 1 arguments; it must start kernel void NAME(");

    /* Which files run at 16 bits: those that name no uchar type (outside
     * comments), and those that test CLV_DEPTH themselves. */
    {
        static const struct {
            const char *text;
            int deep;
        } files[] = {
            {copy_cl, 1},
            {invert_cl, 0},
            {"kernel void k(CLV_ARGS) { char c = 1; WRITE(READ(c, 0)); /* uchar */ }\n", 1},
            {"kernel void k(CLV_ARGS) { unsigned char c = 1; WRITE(READ(c, 0)); }\n", 0},
            {"kernel void k(CLV_ARGS) { WRITE(convert_uchar4_sat(READ(0, 0))); }\n", 0},
            {"kernel void k(CLV_ARGS) { const char *s = \"uchar4\"; WRITE(READ(0, 0)); }\n", 1},
            {"#if CLV_DEPTH == 16\ntypedef ushort4 px;\n#else\ntypedef uchar4 px;\n#endif\n"
             "kernel void k(CLV_ARGS) { px p = READ(CLV_X, CLV_Y); WRITE(p.zyxw); }\n",
             1},
        };
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            char name[32];
            snprintf(name, sizeof name, "deep%zu.cl", i);
            CHECK(deep_of(put(name, files[i].text)) == files[i].deep, "%s: deep %d, not %d",
                  files[i].text, deep_of(put(name, files[i].text)), files[i].deep);
        }
        /* One that chooses its types by CLV_DEPTH runs at both depths. */
        static const int one[][2] = {{5, 3}};
        snprintf(t, sizeof t, "opencl=file=%s",
                 put("bydepth.cl", "#if CLV_DEPTH == 16\ntypedef ushort4 px;\n#else\ntypedef "
                                   "uchar4 px;\n#endif\nkernel void k(CLV_ARGS) { px p = "
                                   "READ(CLV_X, CLV_Y); WRITE(p); }\n"));
        compare_depth(ctx, t, ref_copy, 16, one, 1, 1);
        compare_depth(ctx, t, ref_copy, 8, one, 1, 1);
    }
    /* A 16-bit chain refuses a file of 8 bits only, naming the filter; a
     * file that became so after the chain was parsed, naming the file. */
    snprintf(t, sizeof t, "median,opencl=file=%s", put("invert.cl", invert_cl));
    expect_build_depth(ctx, t, 16, CLV_EDEPTH,
                       "filter 'opencl' (#2 in the chain) runs at 8 bits only: the chain cannot "
                       "run on frames of 16 bits a channel");
    {
        const char *path = put("changes.cl", copy_cl);
        clv_chain_desc *desc = NULL;
        clv_chain *chain = NULL;
        clv_msg msg = {{0}};
        snprintf(t, sizeof t, "opencl=file=%s", path);
        CHECK(clv_chain_parse(t, &desc, &msg) == 0, "%s", msg.text);
        put("changes.cl", invert_cl);
        int err = desc ? clv_chain_create_depth(ctx, desc, 16, &chain, &msg) : -1;
        snprintf(w, sizeof w, "filter 'opencl' (%s) runs at 8 bits only", path);
        CHECK(err == CLV_EDEPTH && strstr(msg.text, w), "got %d: %s", err, msg.text);
        clv_chain_destroy(chain);
        clv_chain_desc_destroy(desc);
    }
    /* The contract at 16 bits names ushort4: a file that tests CLV_DEPTH
     * but declares uchar4 frames. */
    snprintf(t, sizeof t, "opencl=file=%s",
             put("args16.cl", "#ifdef CLV_DEPTH\n#endif\nkernel void k(global const uchar4 *src, "
                              "global uchar4 *dst, int w, int h, int s) {}\n"));
    expect_build_depth(ctx, t, 16, CLV_EKERNEL,
                       "argument 1 ('uchar4* src') must be a global ushort4 pointer src: a "
                       "kernel of a 16-bit chain starts kernel void NAME(global const ushort4 "
                       "*src, global ushort4 *dst");
    /* Compiler messages at 16 bits say so, with the file's lines. */
    snprintf(t, sizeof t, "opencl=file=%s",
             put("only16.cl", "kernel void k(CLV_ARGS)\n{\n#if CLV_DEPTH == 16\n    oops;\n"
                              "#endif\n    WRITE(READ(CLV_X, CLV_Y));\n}\n"));
    expect_build_depth(ctx, t, 16, CLV_EKERNEL, "does not build at 16 bits (CLV_DEPTH=16)");
    snprintf(w, sizeof w, "%s/only16.cl:4:", dir);
    expect_build_depth(ctx, t, 16, CLV_EKERNEL, w);
    expect_build_depth(ctx, t, 8, 0, "");
    clv_context_destroy(ctx);
    remove_dir();
    return 0;
#undef PARSE
}

typedef struct build_job {
    clv_context *ctx;
    const char *path;
    clv_kernel_build *build;
    int err;
    clv_msg msg;
} build_job;

static void *build_thread(void *arg)
{
    build_job *j = arg;
    j->err = clv_kernel_build_file(j->ctx, j->path, NULL, &j->build, &j->msg);
    return NULL;
}

/* The chain's output for in (frame 0), at in's depth. */
static void run_once(clv_context *ctx, clv_chain *chain, const clv_image *in, clv_image *out)
{
    clv_frame src = {0}, dst = {0};
    clv_msg msg = {{0}};
    int depth = in->depth == 16 ? 16 : 8;
    clv_frame_create_depth(ctx, in->width, in->height, depth, &src, &msg);
    clv_frame_create_depth(ctx, in->width, in->height, depth, &dst, &msg);
    clv_frame_upload(ctx, &src, in);
    CHECK(clv_chain_run(chain, &src, &dst, 0, NULL, NULL, &msg) == 0, "%s", msg.text);
    clv_frame_download(ctx, &dst, out);
    clv_frame_destroy(&src);
    clv_frame_destroy(&dst);
}

/* A chain of depth bits running one user kernel, opencl=file=path. */
static clv_chain *user_chain(clv_context *ctx, const char *path, int depth)
{
    char text[600];
    snprintf(text, sizeof text, "opencl=file=%s", path);
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    clv_msg msg = {{0}};
    int err = clv_chain_parse(text, &desc, &msg);
    if (!err)
        err = clv_chain_create_depth(ctx, desc, depth, &chain, &msg);
    CHECK(!err, "%s at %d bits: %s", text, depth, msg.text);
    clv_chain_desc_destroy(desc);
    return chain;
}

/* Channel c of the first pixel the chain makes of in. */
static int first_channel(clv_context *ctx, clv_chain *chain, const clv_image *in, int c)
{
    clv_image out = {0};
    clv_image_alloc_depth(&out, in->width, in->height, in->depth);
    run_once(ctx, chain, in, &out);
    int v = clv_test_get(&out, 0, 0, c);
    clv_image_free(&out);
    return v;
}

/* Reloads into chains of 16 bits: one build serves both depths; a file
 * that no longer runs at 16 bits, or whose 16-bit build fails, is refused
 * by the 16-bit chain (which runs on) and still taken by an 8-bit one. */
static void reload_deep(clv_context *ctx)
{
    const char *path =
        put("deep.cl", "// @param int level = 10 [0, 100]\n"
                       "kernel void live(CLV_ARGS, int level)\n"
                       "{ WRITE((clv_pixel)(level * (CLV_MAX / 255), 1, 2, 3)); }\n");
    clv_chain *c8 = user_chain(ctx, path, 8), *c16 = user_chain(ctx, path, 16);
    clv_image in8 = {0}, in16 = {0};
    clv_image_alloc_depth(&in8, 16, 8, 8);
    clv_image_alloc_depth(&in16, 16, 8, 16);
    if (!c8 || !c16)
        goto done;
    CHECK(first_channel(ctx, c16, &in16, 0) == 10 * 257, "16 bits before: %d",
          first_channel(ctx, c16, &in16, 0));
    clv_msg msg = {{0}};
    clv_kernel_build *b = NULL;
    /* A new formula, built on another thread while the chain runs. */
    put("deep.cl", "// @param int level = 20 [0, 100]\n"
                   "kernel void live(CLV_ARGS, int level)\n"
                   "{ WRITE((clv_pixel)(level * (CLV_MAX / 255), 7, CLV_MAX, 3)); }\n");
    build_job job = {.ctx = ctx, .path = path};
    pthread_t th;
    pthread_create(&th, NULL, build_thread, &job);
    for (int i = 0; i < 3; i++)
        first_channel(ctx, c16, &in16, 0);
    pthread_join(th, NULL);
    CHECK(job.err == 0, "rebuild: %s", job.msg.text);
    if (!job.err) {
        CHECK(clv_chain_swap_kernel(c16, 0, job.build, &msg) == 0, "%s", msg.text);
        CHECK(first_channel(ctx, c16, &in16, 0) == 20 * 257 &&
                  first_channel(ctx, c16, &in16, 2) == 65535,
              "16 bits after: %d %d", first_channel(ctx, c16, &in16, 0),
              first_channel(ctx, c16, &in16, 2));
    }
    CHECK(clv_kernel_build_file(ctx, path, NULL, &b, &msg) == 0, "%s", msg.text);
    if (b) {
        CHECK(clv_chain_swap_kernel(c8, 0, b, &msg) == 0, "%s", msg.text);
        CHECK(first_channel(ctx, c8, &in8, 0) == 20 && first_channel(ctx, c8, &in8, 2) == 255,
              "8 bits after: %d %d", first_channel(ctx, c8, &in8, 0),
              first_channel(ctx, c8, &in8, 2));
    }

    /* Now of 8 bits only: the 16-bit chain refuses it and runs on. */
    put("deep.cl", "kernel void live(CLV_ARGS) { WRITE((uchar4)(99, 99, 99, 99)); }\n");
    b = NULL;
    CHECK(clv_kernel_build_file(ctx, path, NULL, &b, &msg) == 0, "%s", msg.text);
    if (b) {
        int err = clv_chain_swap_kernel(c16, 0, b, &msg);
        char want[700];
        snprintf(want, sizeof want, "filter 'opencl' (%s) runs at 8 bits only", path);
        CHECK(err == CLV_EDEPTH && strstr(msg.text, want), "got %d: %s", err, msg.text);
        CHECK(first_channel(ctx, c16, &in16, 0) == 20 * 257, "the last good kernel runs on: %d",
              first_channel(ctx, c16, &in16, 0));
        if (err) /* not taken: the 8-bit chain takes it */
            CHECK(clv_chain_swap_kernel(c8, 0, b, &msg) == 0 &&
                      first_channel(ctx, c8, &in8, 0) == 99,
                  "%s", msg.text);
    }

    /* Depth-generic again, but broken at 16 bits only. */
    put("deep.cl", "kernel void live(CLV_ARGS)\n{\n#if CLV_DEPTH == 16\n    oops;\n#endif\n"
                   "    WRITE((clv_pixel)(5, 5, 5, 5));\n}\n");
    b = NULL;
    CHECK(clv_kernel_build_file(ctx, path, NULL, &b, &msg) == 0, "%s", msg.text);
    if (b) {
        int err = clv_chain_swap_kernel(c16, 0, b, &msg);
        CHECK(err == CLV_EKERNEL && strstr(msg.text, "deep.cl:4:") &&
                  strstr(msg.text, "at 16 bits"),
              "got %d: %s", err, msg.text);
        if (err)
            CHECK(clv_chain_swap_kernel(c8, 0, b, &msg) == 0 &&
                      first_channel(ctx, c8, &in8, 0) == 5,
                  "%s", msg.text);
    }

    /* And fixed: the 16-bit chain takes it. */
    put("deep.cl", "kernel void live(CLV_ARGS) { WRITE((clv_pixel)(CLV_MAX, 0, 0, 0)); }\n");
    b = NULL;
    CHECK(clv_kernel_build_file(ctx, path, NULL, &b, &msg) == 0, "%s", msg.text);
    if (b) {
        int err = clv_chain_swap_kernel(c16, 0, b, &msg);
        CHECK(err == 0, "%s", msg.text);
        if (err)
            clv_kernel_build_free(b);
        CHECK(first_channel(ctx, c16, &in16, 0) == 65535, "fixed: %d",
              first_channel(ctx, c16, &in16, 0));
    }
done:
    clv_chain_destroy(c8);
    clv_chain_destroy(c16);
    clv_image_free(&in8);
    clv_image_free(&in16);
}

int test_user_reload(void)
{
    if (make_dir())
        return 1;
    clv_context *ctx = test_context(0);
    if (!ctx)
        return 1;
    const char *path = put("live.cl", "// @param int level = 10 [0, 100] step 10\n"
                                      "kernel void live(CLV_ARGS, int level)\n"
                                      "{ WRITE((uchar4)(level, 1, 2, 3)); }\n");
    char text[600];
    snprintf(text, sizeof text, "opencl=file=%s:level=30", path);
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    clv_msg msg = {{0}};
    clv_image in = {0}, out = {0};
    clv_image_alloc(&in, 16, 8);
    clv_image_alloc(&out, 16, 8);
    int err = clv_chain_parse(text, &desc, &msg);
    if (!err)
        err = clv_chain_create(ctx, desc, &chain, &msg);
    clv_chain_desc_destroy(desc);
    if (err) {
        CHECK(0, "%s", msg.text);
        return 1;
    }
    const char *k = "x";
    CHECK(clv_chain_kernel_file(chain, 0, &k) != NULL &&
              !strcmp(clv_chain_kernel_file(chain, 0, NULL), path) && k == NULL,
          "the chain names its kernel file");
    run_once(ctx, chain, &in, &out);
    CHECK(out.pixels[0] == 30 && out.pixels[1] == 1, "before: %d %d", out.pixels[0], out.pixels[1]);

    /* The file changes: a new formula, `level` with a new default and a
     * new parameter. The moved value (30) stays; the new one takes its
     * default. Built on another thread while this one runs the chain. */
    put("live.cl", "// @param int level = 20 [0, 100] step 10\n"
                   "// @param int extra = 5 [0, 9]\n"
                   "kernel void live(CLV_ARGS, int extra, int level)\n"
                   "{ WRITE((uchar4)(level, extra, 200, 3)); }\n");
    build_job job = {.ctx = ctx, .path = path};
    pthread_t th;
    pthread_create(&th, NULL, build_thread, &job);
    for (int i = 0; i < 5; i++)
        run_once(ctx, chain, &in, &out);
    pthread_join(th, NULL);
    CHECK(job.err == 0, "rebuild: %s", job.msg.text);
    if (!job.err) {
        CHECK(clv_chain_swap_kernel(chain, 0, job.build, &msg) == 0, "%s", msg.text);
        run_once(ctx, chain, &in, &out);
        CHECK(out.pixels[0] == 30 && out.pixels[1] == 5 && out.pixels[2] == 200, "after: %d %d %d",
              out.pixels[0], out.pixels[1], out.pixels[2]);
        char t[1024];
        clv_chain_format(clv_chain_get_desc(chain), t, sizeof t);
        CHECK(strstr(t, ":level=30:extra=5") != NULL, "%s", t);
    }
    /* A parameter left at its default follows the file's new default. */
    put("live.cl", "// @param int level = 20 [0, 100] step 10\n"
                   "// @param int extra = 7 [0, 9]\n"
                   "kernel void live(CLV_ARGS, int extra, int level)\n"
                   "{ WRITE((uchar4)(level, extra, 201, 3)); }\n");
    clv_kernel_build *b = NULL;
    CHECK(clv_kernel_build_file(ctx, path, NULL, &b, &msg) == 0, "%s", msg.text);
    if (b)
        clv_chain_swap_kernel(chain, 0, b, &msg);
    run_once(ctx, chain, &in, &out);
    CHECK(out.pixels[1] == 7 && out.pixels[2] == 201, "default followed: %d %d", out.pixels[1],
          out.pixels[2]);

    /* A broken file: the build fails with the line, the chain goes on
     * with the last good kernel. */
    put("live.cl", "kernel void live(CLV_ARGS)\n{ WRITE(oops); }\n");
    b = NULL;
    CHECK(clv_kernel_build_file(ctx, path, NULL, &b, &msg) == CLV_EKERNEL && !b &&
              strstr(msg.text, "live.cl:2:"),
          "%s", msg.text);
    run_once(ctx, chain, &in, &out);
    CHECK(out.pixels[2] == 201, "the last good kernel runs on: %d", out.pixels[2]);

    /* Many reloads: no growth of descriptors for an unchanged file. */
    put("live.cl", "kernel void live(CLV_ARGS) { WRITE((uchar4)(9, 9, 9, 9)); }\n");
    const clv_filter *f1 = NULL, *f2 = NULL;
    for (int i = 0; i < 50; i++) {
        b = NULL;
        if (clv_kernel_build_file(ctx, path, NULL, &b, &msg) == 0)
            clv_chain_swap_kernel(chain, 0, b, &msg);
        else
            CHECK(0, "%s", msg.text);
        run_once(ctx, chain, &in, &out);
        if (i == 0)
            f1 = clv_chain_desc_filter(clv_chain_get_desc(chain), 0);
        f2 = clv_chain_desc_filter(clv_chain_get_desc(chain), 0);
    }
    CHECK(f1 == f2, "the same file gives the same descriptor");
    CHECK(out.pixels[0] == 9, "%d", out.pixels[0]);
    clv_chain_destroy(chain);
    clv_image_free(&in);
    clv_image_free(&out);
    reload_deep(ctx);
    clv_context_destroy(ctx);
    remove_dir();
    return 0;
}
