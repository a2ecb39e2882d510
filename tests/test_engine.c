/* test_engine.c - errors, device selection, frame limits and the program
 * binary cache (including a corrupt entry and a kernel that does not build). */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

int test_errors_table(void)
{
    CHECK_EQ_STR(clv_strerror(0), "success");
    CHECK_EQ_STR(clv_strerror(CLV_EPARSE), "invalid filter chain");
    CHECK_EQ_STR(clv_strerror(CLV_ENOPLATFORM), "no OpenCL platform");
    CHECK_EQ_STR(clv_strerror(-999), "unknown error");
    return 0;
}

int test_device_select(void)
{
    clv_device_info list[3];
    memset(list, 0, sizeof list);
    strcpy(list[0].name, "pthread-skylake");
    strcpy(list[0].platform, "Portable Computing Language");
    list[0].is_cpu = 1;
    strcpy(list[1].name, "NVIDIA H100 80GB HBM3");
    strcpy(list[1].platform, "NVIDIA CUDA");
    list[1].is_gpu = 1;
    strcpy(list[2].name, "Other GPU");
    strcpy(list[2].platform, "X");
    list[2].is_gpu = 1;
    clv_msg msg = {{0}};
    unsetenv("CLVID_DEVICE");
    CHECK(clv_device_select(list, 3, NULL, &msg) == 1, "default is the first GPU");
    CHECK(clv_device_select(list, 1, NULL, &msg) == 0, "else the first device");
    CHECK(clv_device_select(list, 3, "0", &msg) == 0, "by index");
    CHECK(clv_device_select(list, 3, "h100", &msg) == 1, "by name, any case");
    CHECK(clv_device_select(list, 3, "portable", &msg) == 0, "by platform name");
    CHECK(clv_device_select(list, 3, "3", &msg) == CLV_ENODEVICE, "index past the end");
    CHECK_EQ_STR(msg.text, "--device 3: no device with that index; there are 3 (0 to 2); "
                           "`clvid devices` lists them");
    CHECK(clv_device_select(list, 3, "radeon", &msg) == CLV_ENODEVICE, "unknown name");
    CHECK_EQ_STR(msg.text, "--device 'radeon': no device name contains it; devices are 0: "
                           "pthread-skylake; 1: NVIDIA H100 80GB HBM3; 2: Other GPU");
    /* Lists. */
    int ix[8] = {0};
    CHECK(clv_device_select_list(list, 3, "2,0", ix, 8, &msg) == 2 && ix[0] == 2 && ix[1] == 0,
          "2,0: in the order given");
    CHECK(clv_device_select_list(list, 3, "gpu", ix, 8, &msg) == 2 && ix[0] == 1 && ix[1] == 2,
          "gpu: every GPU");
    CHECK(clv_device_select_list(list, 3, "all", ix, 8, &msg) == 3 && ix[2] == 2, "all");
    CHECK(clv_device_select_list(list, 3, "cpu,gpu", ix, 8, &msg) == 3 && ix[0] == 0, "cpu,gpu");
    CHECK(clv_device_select_list(list, 3, "h100", ix, 8, &msg) == 1 && ix[0] == 1, "one name");
    CHECK(clv_device_select_list(list, 3, NULL, ix, 8, &msg) == 1 && ix[0] == 1, "default");
    CHECK(clv_device_select_list(list, 3, "gpu", ix, 1, &msg) == CLV_ENODEVICE, "max");
    CHECK(clv_device_select_list(list, 3, "1,h100", ix, 8, &msg) == CLV_ENODEVICE, "twice");
    CHECK_EQ_STR(msg.text, "--device: device 1 (NVIDIA H100 80GB HBM3) is named twice");
    CHECK(clv_device_select_list(list, 1, "gpu", ix, 8, &msg) == CLV_ENODEVICE, "no GPU");
    CHECK_EQ_STR(msg.text, "--device gpu: no GPU device here; `clvid devices` lists them");
    CHECK(clv_device_select_list(list, 3, "0,", ix, 8, &msg) == CLV_ENODEVICE, "empty item");
    CHECK(clv_device_select_list(list, 3, "0,9", ix, 8, &msg) == CLV_ENODEVICE, "bad index");
    /* The library reads no environment: the command line passes it down. */
    setenv("CLVID_DEVICE", "other", 1);
    CHECK(clv_device_select(list, 3, NULL, &msg) == 1, "the library read CLVID_DEVICE");
    unsetenv("CLVID_DEVICE");

    clv_device_info *real = NULL;
    int count = clv_device_list(&real, &msg);
    CHECK(count >= 1, "no device: %s", msg.text);
    for (int i = 0; i < count; i++)
        CHECK(real[i].index == i && real[i].name[0] && real[i].compute_units > 0,
              "device %d is described badly", i);
    free(real);
    return 0;
}

int test_frame_limits(void)
{
    clv_context *ctx = test_context(0);
    if (!ctx)
        return 1;
    clv_frame f;
    clv_msg msg = {{0}};
    CHECK(clv_frame_create(ctx, 0, 5, &f, &msg) == CLV_EINVAL, "0 wide");
    CHECK_EQ_STR(msg.text, "frame size 0x5: both sides must be at least 1");
    CHECK(clv_frame_create(ctx, 16385, 2, &f, &msg) == CLV_ELIMIT, "too wide");
    CHECK_EQ_STR(msg.text, "frame size 16385x2: the largest side clvid takes is 16384");
    uint64_t max_alloc = clv_context_device(ctx)->max_alloc;
    if (max_alloc < (uint64_t)16384 * 16384 * 4) {
        CHECK(clv_frame_create(ctx, 16384, 16384, &f, &msg) == CLV_ELIMIT, "over max alloc");
        CHECK(strstr(msg.text, "CL_DEVICE_MAX_MEM_ALLOC_SIZE") != NULL, "%s", msg.text);
    }
    CHECK(clv_frame_create(ctx, 1, 1, &f, &msg) == 0, "1x1: %s", msg.text);
    CHECK(f.stride == 16, "stride %d", f.stride);
    clv_frame_destroy(&f);
    clv_frame_destroy(&f); /* twice is harmless */
    clv_context_destroy(ctx);
    clv_context_destroy(NULL);
    clv_chain_destroy(NULL);
    clv_ref_chain_destroy(NULL);
    return 0;
}

/* Files in dir whose names start with prefix. */
static int count_files(const char *dir, const char *prefix, char *first, size_t size)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            if (!n && first)
                snprintf(first, size, "%s/%s", dir, e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? -1 : (long)st.st_size;
}

/* The log lines a context sends to its callback, for the checks. */
typedef struct log_lines {
    char text[16384];
    size_t length;
} log_lines;

static void collect(void *user, int level, const char *line)
{
    log_lines *log = user;
    (void)level;
    int n = snprintf(log->text + log->length, sizeof log->text - log->length, "%s\n", line);
    if (n > 0 && log->length + (size_t)n < sizeof log->text)
        log->length += (size_t)n;
}

/* clv_context_options.cache_every_driver for build_gray_with. */
static int cache_every_driver = 1;

/* Builds the gray chain with the settings of a program: a cache directory
 * and a kernel directory (NULL: none), the log into *log. */
static int build_gray_with(int expect, const char *cache, const char *kernels, log_lines *log)
{
    clv_context_options opt = {.struct_size = sizeof(clv_context_options),
                               .device = test_device(),
                               .cache_every_driver = cache_every_driver,
                               .cache_dir = cache,
                               .kernel_dir = kernels,
                               .log = log ? collect : NULL,
                               .log_user = log};
    clv_context *ctx = NULL;
    clv_msg msg = {{0}};
    CHECK(clv_context_create(&opt, &ctx, &msg) == 0, "%s", msg.text);
    if (!ctx)
        return -1;
    clv_chain_desc *desc = NULL;
    clv_chain_parse("gray", &desc, &msg);
    clv_chain *chain = NULL;
    int err = clv_chain_create(ctx, desc, &chain, &msg);
    clv_chain_desc_destroy(desc);
    CHECK(err == expect, "building gray: %d (%s), expected %d", err, msg.text, expect);
    if (err)
        CHECK(strstr(msg.text, "cl/point.cl does not build on") != NULL, "%s", msg.text);
    clv_chain_destroy(chain);
    clv_context_destroy(ctx);
    return err;
}

/* Builds chain on the test device with this cache and kernel directory;
 * the build's error code. */
static int build_chain_in(const char *text, const char *cache, const char *kernels)
{
    clv_context_options opt = {.struct_size = sizeof(clv_context_options),
                               .device = test_device(),
                               .cache_every_driver = 1,
                               .cache_dir = cache,
                               .kernel_dir = kernels};
    clv_context *ctx = NULL;
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    clv_msg msg = {{0}};
    int err = clv_context_create(&opt, &ctx, &msg);
    if (!err)
        err = clv_chain_parse(text, &desc, &msg);
    if (!err)
        err = clv_chain_create(ctx, desc, &chain, &msg);
    CHECK(err == 0, "building %s: %s", text, msg.text);
    clv_chain_desc_destroy(desc);
    clv_chain_destroy(chain);
    clv_context_destroy(ctx);
    return err;
}

static void copy_file(const char *from, const char *to, const char *append)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    CHECK(in && out, "copy %s to %s", from, to);
    if (in && out) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, n, out);
        if (append)
            fputs(append, out);
    }
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

int test_program_cache(void)
{
    char dir[] = "/tmp/clvid-cache-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
#define build_gray(expect) build_gray_with(expect, dir, NULL, NULL)

    /* By default PoCL, which compiles every kernel of a program to hand out
     * its binary, gets its entry when the context ends, not at the build
     * (a cold start's first frame does not wait for it); every other driver
     * at the build. */
    {
        clv_context_options opt = {
            .struct_size = sizeof(clv_context_options), .device = test_device(), .cache_dir = dir};
        clv_context *ctx = NULL;
        clv_chain *chain = NULL;
        clv_chain_desc *desc = NULL;
        clv_msg msg = {{0}};
        CHECK(clv_context_create(&opt, &ctx, &msg) == 0, "%s", msg.text);
        CHECK(ctx && clv_chain_parse("gray", &desc, &msg) == 0 &&
                  clv_chain_create(ctx, desc, &chain, &msg) == 0,
              "building gray: %s", msg.text);
        clv_chain_desc_destroy(desc);
        const char *platform = ctx ? clv_context_device(ctx)->platform : "";
        const int pocl = strstr(platform, "Portable Computing Language") != NULL;
        CHECK(count_files(dir, "point-", NULL, 0) == !pocl, "%d entries on %s before the end",
              count_files(dir, "point-", NULL, 0), platform);
        clv_chain_destroy(chain);
        CHECK(count_files(dir, "point-", NULL, 0) == !pocl, "an entry before the context's end");
        clv_context_destroy(ctx);
        CHECK(count_files(dir, "point-", NULL, 0) == 1, "%d entries after the end on %s",
              count_files(dir, "point-", NULL, 0), platform);
        /* The next context loads it and writes nothing at its end. */
        char entry[4200] = "";
        count_files(dir, "point-", entry, sizeof entry);
        struct stat before, after;
        CHECK(stat(entry, &before) == 0, "stat %s", entry);
        cache_every_driver = 0;
        build_gray(0);
        cache_every_driver = 1;
        CHECK(stat(entry, &after) == 0 && after.st_ino == before.st_ino &&
                  count_files(dir, "point-", NULL, 0) == 1,
              "the entry was written again");
        remove(entry);
    }

    /* With cache_every_driver, the first build writes one entry for
     * cl/point.cl at once on every driver. */
    build_gray(0);
    char entry[4200] = "";
    CHECK(count_files(dir, "point-", entry, sizeof entry) == 1, "no cache entry in %s", dir);
    long size = file_size(entry);
    CHECK(size > 16, "entry %s has %ld bytes", entry, size);

    /* Second build loads it (same entry, nothing new). */
    build_gray(0);
    CHECK(count_files(dir, "point-", NULL, 0) == 1, "a second entry appeared");

    /* A corrupt entry is rebuilt silently and rewritten whole. */
    FILE *f = fopen(entry, "r+b");
    if (f) {
        fseek(f, size / 2, SEEK_SET);
        fputs("garbage garbage garbage", f);
        fclose(f);
    }
    build_gray(0);
    CHECK(file_size(entry) == size, "corrupt entry not rewritten");
    f = fopen(entry, "wb"); /* truncated to nothing */
    if (f)
        fclose(f);
    build_gray(0);
    CHECK(file_size(entry) == size, "empty entry not rewritten");
#undef build_gray

    /* No cache directory: nothing is written anywhere, the build works. */
    CHECK(build_gray_with(0, NULL, NULL, NULL) == 0, "build without a cache");

    /* kernel_dir loads sources from disk; changed source, new key. */
    char kdir[] = "/tmp/clvid-kernels-XXXXXX";
    CHECK(mkdtemp(kdir) != NULL, "mkdtemp");
    char from[4200], to[4200];
    /* CPU programs are built with cl/yuv.cl as well (cl/yuv.cl's fused
     * kernels): the directory holds what the sources include */
    static const char *const parts[] = {"common.cl", "yuv.cl"};
    for (int i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%s/cl/%s", CLVID_SOURCE_DIR, parts[i]);
        snprintf(to, sizeof to, "%s/%s", kdir, parts[i]);
        copy_file(from, to, NULL);
    }
    snprintf(from, sizeof from, "%s/cl/point.cl", CLVID_SOURCE_DIR);
    snprintf(to, sizeof to, "%s/point.cl", kdir);
    copy_file(from, to, "\n/* changed */\n");
    build_gray_with(0, dir, kdir, NULL);
    CHECK(count_files(dir, "point-", NULL, 0) == 2, "changed source reused the old entry");

    /* A kernel that does not build: CLV_EBUILD, and the build log, through
     * the context's log callback, names the file and line. */
    copy_file(from, to, "\n__kernel void broken(void) { this is not C; }\n");
    static log_lines log;
    log.length = 0;
    log.text[0] = 0;
    build_gray_with(CLV_EBUILD, dir, kdir, &log);
    CHECK(strstr(log.text, "build log of cl/point.cl") != NULL, "no build log in:\n%s", log.text);
    /* The broken line is the second after point.cl's own lines. */
    int lines = 0;
    FILE *src = fopen(from, "rb");
    for (int ch; src && (ch = fgetc(src)) != EOF;)
        lines += ch == '\n';
    if (src)
        fclose(src);
    char where[64];
    snprintf(where, sizeof where, "point.cl:%d:", lines + 2);
    CHECK(strstr(log.text, where) != NULL, "the log does not name %s:\n%s", where, log.text);
    remove(to);

    /* A file that a program includes is part of its key: sobel's program
     * (cl/edge.cl) gets a new entry when cl/isqrt.cl, which it includes,
     * changes, though edge.cl itself did not. */
    static const char *const edge_parts[] = {"edge.cl", "isqrt.cl"};
    for (int i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%s/cl/%s", CLVID_SOURCE_DIR, edge_parts[i]);
        snprintf(to, sizeof to, "%s/%s", kdir, edge_parts[i]);
        copy_file(from, to, NULL);
    }
    build_chain_in("sobel", dir, kdir);
    CHECK(count_files(dir, "edge-", NULL, 0) == 1, "%d entries for edge.cl",
          count_files(dir, "edge-", NULL, 0));
    copy_file(from, to, "\n/* changed */\n");
    build_chain_in("sobel", dir, kdir);
    CHECK(count_files(dir, "edge-", NULL, 0) == 2,
          "a change in the included isqrt.cl reused the old entry");
    for (int i = 0; i < 2; i++) {
        snprintf(to, sizeof to, "%s/%s", kdir, edge_parts[i]);
        remove(to);
    }
    for (int i = 0; i < 2; i++) {
        snprintf(to, sizeof to, "%s/%s", kdir, parts[i]);
        remove(to);
    }
    rmdir(kdir);

    /* Clean up the cache dir. */
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4300];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        remove(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return 0;
}

/* clv_chain_set_filter_timing: off, the chain records no per-kernel events
 * (clv_chain_profile and clv_chain_times say CLV_EINVAL) and filters the
 * same; on again, each filter is timed again. */
int test_chain_filter_timing(void)
{
    clv_context_options opt = {
        .struct_size = sizeof(clv_context_options), .device = test_device(), .profiling = 1};
    clv_context *ctx = NULL;
    clv_msg msg = {{0}};
    CHECK(clv_context_create(&opt, &ctx, &msg) == 0, "%s", msg.text);
    if (!ctx)
        return 1;
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    clv_frame src = {0}, dst = {0};
    clv_image in = {0}, out[2] = {{0}};
    int w = 67, h = 31;
    CHECK(clv_chain_parse("sharpen,quantize=colors=5:iterations=2", &desc, &msg) == 0, "%s",
          msg.text);
    CHECK(clv_chain_create(ctx, desc, &chain, &msg) == 0, "%s", msg.text);
    CHECK(clv_image_alloc(&in, w, h) == 0 && clv_image_alloc(&out[0], w, h) == 0 &&
              clv_image_alloc(&out[1], w, h) == 0,
          "images");
    CHECK(clv_frame_create(ctx, w, h, &src, &msg) == 0 &&
              clv_frame_create(ctx, w, h, &dst, &msg) == 0,
          "%s", msg.text);
    if (!chain || !in.pixels || !out[1].pixels || !src.buffer || !dst.buffer)
        goto done;
    for (size_t i = 0; i < (size_t)w * h * 4; i++)
        in.pixels[i] = (uint8_t)(i * 2654435761u >> 24);
    CHECK(clv_frame_upload(ctx, &src, &in) == 0, "upload");
    uint64_t ns[2] = {0}, runs = 0;
    for (int pass = 0; pass < 3; pass++) {
        int on = pass != 1;
        clv_chain_set_filter_timing(chain, on);
        CHECK(clv_chain_run(chain, &src, &dst, 0, NULL, NULL, &msg) == 0, "%s", msg.text);
        int err = clv_chain_profile(chain, ns, 2);
        if (on)
            CHECK(err == 0 && ns[0] > 0 && ns[1] > 0, "pass %d: profile %d, %llu and %llu ns", pass,
                  err, (unsigned long long)ns[0], (unsigned long long)ns[1]);
        else
            CHECK(err == CLV_EINVAL && ns[0] == 0 && ns[1] == 0, "timing off: profile %d", err);
        CHECK((clv_chain_times(chain, ns, 2, &runs) == 0) == on, "pass %d: times", pass);
        CHECK(clv_frame_download(ctx, &dst, &out[pass == 1]) == 0, "download");
    }
    /* quantize carries its palette: compare the second run (timing off)
     * with the second run of a new chain timed all along. */
    clv_chain_destroy(chain);
    chain = NULL;
    CHECK(clv_chain_create(ctx, desc, &chain, &msg) == 0, "%s", msg.text);
    if (chain) {
        CHECK(clv_chain_run(chain, &src, &dst, 0, NULL, NULL, &msg) == 0, "%s", msg.text);
        CHECK(clv_chain_run(chain, &src, &dst, 0, NULL, NULL, &msg) == 0, "%s", msg.text);
        CHECK(clv_frame_download(ctx, &dst, &out[0]) == 0, "download");
        CHECK(!memcmp(out[0].pixels, out[1].pixels, (size_t)w * h * 4),
              "the second run differs with filter timing off from one with it on");
    }
done:
    clv_frame_destroy(&src);
    clv_frame_destroy(&dst);
    clv_image_free(&in);
    clv_image_free(&out[0]);
    clv_image_free(&out[1]);
    clv_chain_destroy(chain);
    clv_chain_desc_destroy(desc);
    clv_context_destroy(ctx);
    return 0;
}
