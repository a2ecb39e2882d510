/* test_graph_filters.c - the filters of several inputs (overlay, blend,
 * ...) on the device against their C references (reference_n), bit for
 * bit, in both work shapes and at both depths, each filter alone (built and
 * run here as a graph builds it: its program, kernels, configure, a launch
 * with inputs); and the references against ffmpeg 5.1 (skipped without the
 * ffmpeg program), the dB figures printed.
 *
 *   graph-filters-test NAME     (one test: overlay, overlay_ffmpeg, ...) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/filters/filters.h"

static int failures, compared;
/* The seconds between the frames compare runs. */
static double time_step = 0.04;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static const clv_filter *find(const char *name)
{
    for (int i = 0; i < clv__graph_filter_count; i++)
        if (!strcmp(clv__graph_filters[i]->name, name))
            return clv__graph_filters[i];
    return NULL;
}

/* "key=value:key=value" (values without ':') into values, the rest at
 * their defaults. */
static int parse_values(const clv_filter *f, const char *text, clv_value *values)
{
    for (int i = 0; i < f->param_count; i++)
        if (clv_param_parse(f, i, f->params[i].def, &values[i], NULL))
            return -1;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *kv = strtok_r(buf, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return -1;
        *eq = 0;
        int found = 0;
        for (int i = 0; i < f->param_count; i++)
            if (!strcmp(f->params[i].name, kv)) {
                clv_msg msg = {{0}};
                if (clv_param_parse(f, i, eq + 1, &values[i], &msg)) {
                    fprintf(stderr, "%s: %s\n", f->name, msg.text);
                    return -1;
                }
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "%s: no parameter %s\n", f->name, kv);
            return -1;
        }
    }
    return 0;
}

/* ---- Frames ----------------------------------------------------------- */

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

/* kind 0: noise with every alpha; 1: noise, opaque; 2: smooth gradients
 * with an alpha ramp; 3: extremes (0, MAX, and alphas 0, 1, MAX-1, MAX). */
static void fill(clv_image *img, int kind)
{
    int maxv = clv__maxv(img);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < 4; c++) {
                int v;
                if (kind == 2)
                    v = (int)((int64_t)maxv * ((x * (c + 1) + y * (3 - c)) % 97) / 96);
                else if (kind == 3) {
                    static const int pick[] = {0, 1, 254, 255};
                    int p = pick[rnd() % 4];
                    v = p <= 1 ? p * (c == 3) : maxv - (p == 254 && c == 3);
                    if (c < 3)
                        v = rnd() & 1 ? maxv : 0;
                } else
                    v = (int)(rnd() % (uint32_t)(maxv + 1));
                if (c == 3 && kind == 1)
                    v = maxv;
                clv__put(img, x, y, c, v);
            }
}

/* ---- The filter on the device, as a graph's node ---------------------- */

typedef struct devf {
    const clv_filter *f;
    clv_context *ctx;
    void *state;
    int depth;
} devf;

static int devf_create(devf *d, clv_context *ctx, const clv_filter *f, const clv_value *values,
                       int depth)
{
    memset(d, 0, sizeof *d);
    d->f = f;
    d->ctx = ctx;
    d->depth = depth;
    d->state = calloc(1, f->state_size + 16 * sizeof(cl_kernel));
    if (!d->state)
        return CLV_ENOMEM;
    clv_msg msg = {{0}};
    ctx->build_depth = depth;
    cl_program prog = NULL;
    int err = clv__program_get(ctx, f->program, &prog, &msg);
    cl_kernel *k = d->state;
    for (int i = 0; !err && f->kernels && f->kernels[i]; i++)
        err = clv__kernel_create(prog, f->kernels[i], &k[i], &msg);
    if (!err && f->init)
        err = f->init(d->state, ctx, prog, &msg);
    if (!err && f->configure)
        err = f->configure(d->state, ctx, values, &msg);
    ctx->build_depth = 8;
    if (err)
        fprintf(stderr, "%s: build: %s\n", f->name, msg.text);
    return err;
}

static void devf_destroy(devf *d)
{
    if (!d->state)
        return;
    if (d->f->uninit)
        d->f->uninit(d->state);
    cl_kernel *k = d->state;
    for (int i = 0; d->f->kernels && d->f->kernels[i]; i++)
        clv__kernel_release(&k[i]);
    free(d->state);
    d->state = NULL;
}

/* Runs the filter on in[0 .. n - 1] (pixels NULL: absent) into out. */
static int devf_run(devf *d, const clv_value *values, const clv_image *in, int n, clv_image *out,
                    uint64_t frame_index, double time)
{
    clv_frame fr[CLV_GRAPH_PADS + 1];
    memset(fr, 0, sizeof fr);
    int err = 0;
    for (int i = 0; i < n && !err; i++)
        if (in[i].pixels) {
            err = clv_frame_create_depth(d->ctx, in[i].width, in[i].height, d->depth, &fr[i], NULL);
            if (!err)
                err = clv_frame_upload(d->ctx, &fr[i], &in[i]);
        }
    if (!err)
        err = clv_frame_create_depth(d->ctx, out->width, out->height, d->depth, &fr[n], NULL);
    if (!err) {
        clv_launch l = {
            .ctx = d->ctx,
            .queue = d->ctx->queue,
            .src = fr[0].buffer,
            .dst = fr[n].buffer,
            .width = fr[0].width,
            .height = fr[0].height,
            .stride = fr[0].stride,
            .out_width = out->width,
            .out_height = out->height,
            .out_stride = fr[n].stride,
            .frame_index = frame_index,
            .time = time,
            .depth = d->depth,
            .values = values,
            .inputs = fr,
            .input_count = n,
        };
        err = d->f->run(d->state, &l);
        if (!err && clFinish(d->ctx->queue) != CL_SUCCESS)
            err = CLV_ECL;
    }
    if (!err)
        err = clv_frame_download(d->ctx, &fr[n], out);
    for (int i = 0; i <= n; i++)
        if (fr[i].buffer)
            clv_frame_destroy(&fr[i]);
    return err;
}

static int same(const clv_image *a, const clv_image *b, const char *what)
{
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < 4; c++)
                if (clv__get(a, x, y, c) != clv__get(b, x, y, c)) {
                    fprintf(stderr,
                            "  %s: first difference at x=%d y=%d channel %d: device %d, "
                            "reference %d\n",
                            what, x, y, c, clv__get(a, x, y, c), clv__get(b, x, y, c));
                    return 0;
                }
    return 1;
}

/* The contexts of the two shapes (1: rows, 2: the GPU shape), made once:
 * their programs are built once for every case. */
static clv_context *contexts[3];

static clv_context *context(int shape)
{
    if (!contexts[shape]) {
        clv_context_options opt = {.struct_size = sizeof opt, .shape = shape};
        const char *dev = getenv("CLVID_DEVICE");
        opt.device = dev && *dev ? dev : NULL;
        clv_msg msg = {{0}};
        if (clv_context_create(&opt, &contexts[shape], &msg))
            fprintf(stderr, "no device: %s\n", msg.text);
    }
    return contexts[shape];
}

/* One case: the filter with `args` on inputs of sizes w[i] x h[i] (w 0:
 * absent) of content `kind`, `frames` frames (state carried), in both
 * shapes and at both depths (8 only for a filter that is not deep). */
static void compare(const char *name, const char *args, int n, const int *w, const int *h, int kind,
                    int frames)
{
    const clv_filter *f = find(name);
    EXPECT(f != NULL, "no filter %s", name);
    if (!f)
        return;
    clv_value values[CLV_PARAMS_MAX];
    memset(values, 0, sizeof values);
    EXPECT(parse_values(f, args, values) == 0, "%s=%s", name, args);
    clv_size sizes[CLV_GRAPH_PADS], osz = {0};
    for (int i = 0; i < n; i++)
        sizes[i] = (clv_size){w[i] ? w[i] : w[0], w[i] ? h[i] : h[0], 1, 1, 0, 0, 0};
    clv_msg msg = {{0}};
    if (f->output_size_n(values, sizes, n, &osz, &msg)) {
        fprintf(stderr, "%s=%s: %s\n", name, args, msg.text);
        failures++;
        return;
    }
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = context(shape);
        if (!ctx) {
            failures++;
            return;
        }
        for (int depth = 8; depth <= (f->deep ? 16 : 8); depth += 8) {
            clv_image in[CLV_GRAPH_PADS], got = {0}, want = {0};
            memset(in, 0, sizeof in);
            for (int i = 0; i < n; i++)
                if (w[i]) {
                    clv_image_alloc_depth(&in[i], w[i], h[i], depth);
                    fill(&in[i], kind);
                }
            clv_image_alloc_depth(&got, osz.width, osz.height, depth);
            clv_image_alloc_depth(&want, osz.width, osz.height, depth);
            devf d;
            int frames_here = frames;
            void *ref = calloc(1, f->ref_state_size + 1);
            int err = devf_create(&d, ctx, f, values, depth);
            if (err == CLV_ENODEVICE) { /* radial without fp64: refused, as it says */
                printf("%s=%s: not on this device\n", name, args);
                err = 0;
                frames_here = 0;
            }
            for (int fr = 0; fr < frames_here && !err; fr++) {
                double t = fr * time_step;
                err = devf_run(&d, values, in, n, &got, (uint64_t)fr, t);
                EXPECT(!err, "%s=%s: device run %d", name, args, err);
                int rerr = f->reference_n(ref, values, in, n, &want, (uint64_t)fr, t);
                EXPECT(!rerr, "%s=%s: reference %d", name, args, rerr);
                char what[256];
                snprintf(what, sizeof what, "%s=%s %dx%d shape %d depth %d frame %d", name, args,
                         w[0], h[0], shape, depth, fr);
                if (!err && !rerr) {
                    EXPECT(same(&got, &want, what), "%s", what);
                    compared++;
                }
            }
            if (f->reference_uninit)
                f->reference_uninit(ref);
            free(ref);
            devf_destroy(&d);
            for (int i = 0; i < n; i++)
                clv_image_free(&in[i]);
            clv_image_free(&got);
            clv_image_free(&want);
        }
    }
}

/* ---- Agreement with ffmpeg -------------------------------------------- */

static int have_ffmpeg(void)
{
    return system("ffmpeg -hide_banner -version >/dev/null 2>&1") == 0;
}

/* Raw frames for ffmpeg: packed RGBA, or planar gbrap (G, B, R, A planes:
 * ffmpeg's own conversion between rgba and gbrap is not lossless). */
static int write_raw(const char *path, const clv_image *img, int planar)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    static const int plane_channel[4] = {1, 2, 0, 3};
    for (int p = 0; p < (planar ? 4 : 1); p++)
        for (int y = 0; y < img->height; y++) {
            if (!planar) {
                fwrite(img->pixels + (size_t)y * img->stride, 4, (size_t)img->width, fp);
                continue;
            }
            for (int x = 0; x < img->width; x++)
                fputc(clv__get(img, x, y, plane_channel[p]), fp);
        }
    return fclose(fp);
}

static int read_raw(const char *path, clv_image *img, int planar)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    int ok = 1;
    static const int plane_channel[4] = {1, 2, 0, 3};
    for (int p = 0; p < (planar ? 4 : 1); p++)
        for (int y = 0; y < img->height; y++) {
            if (!planar) {
                ok &= fread(img->pixels + (size_t)y * img->stride, 4, (size_t)img->width, fp) ==
                      (size_t)img->width;
                continue;
            }
            for (int x = 0; x < img->width; x++) {
                int c = fgetc(fp);
                ok &= c != EOF;
                clv__put(img, x, y, plane_channel[p], c == EOF ? 0 : c);
            }
        }
    fclose(fp);
    return ok ? 0 : -1;
}

/* Runs ffmpeg's `graph` on the raw RGBA inputs in[0 .. n - 1] (one frame
 * each) into out (RGBA, out's size). */
static int ffmpeg_graph(const char *dir, const clv_image *in, int n, const char *graph,
                        clv_image *out, int planar)
{
    char cmd[4096], path[600];
    int len = snprintf(cmd, sizeof cmd, "ffmpeg -nostdin -v error -y");
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/in%d.rgba", dir, i);
        if (write_raw(path, &in[i], planar))
            return -1;
        len +=
            snprintf(cmd + len, sizeof cmd - (size_t)len, " -f rawvideo -pix_fmt %s -s %dx%d -i %s",
                     planar ? "gbrap" : "rgba", in[i].width, in[i].height, path);
    }
    snprintf(cmd + len, sizeof cmd - (size_t)len,
             " -filter_complex '%s' -frames:v 1 -f rawvideo -pix_fmt %s %s/out.rgba", graph,
             planar ? "gbrap" : "rgba", dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "ffmpeg failed: %s\n", cmd);
        return -1;
    }
    snprintf(path, sizeof path, "%s/out.rgba", dir);
    return read_raw(path, out, planar);
}

/* PSNR over R, G, B (and A when with_alpha), 8 bits; INFINITY when equal. */
static double psnr(const clv_image *a, const clv_image *b, int with_alpha)
{
    double se = 0;
    long count = 0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < 3 + with_alpha; c++) {
                double d = clv__get(a, x, y, c) - clv__get(b, x, y, c);
                se += d * d;
                count++;
            }
    return se == 0 ? INFINITY : 10 * log10(255.0 * 255.0 * (double)count / se);
}

/* The reference of filter `name` with args on in[] (one frame, n 0, t 0)
 * against ffmpeg's graph; returns the PSNR (NAN on failure). */
static double agree(const char *dir, const char *name, const char *args, const clv_image *in, int n,
                    const char *graph, int planar)
{
    const clv_filter *f = find(name);
    clv_value values[CLV_PARAMS_MAX];
    memset(values, 0, sizeof values);
    if (!f || parse_values(f, args, values))
        return NAN;
    clv_size sizes[CLV_GRAPH_PADS], osz = {0};
    for (int i = 0; i < n; i++)
        sizes[i] = (clv_size){in[i].width, in[i].height, 1, 1, 0, 0, 0};
    if (f->output_size_n(values, sizes, n, &osz, NULL))
        return NAN;
    clv_image want = {0}, ff = {0};
    clv_image_alloc(&want, osz.width, osz.height);
    clv_image_alloc(&ff, osz.width, osz.height);
    void *ref = calloc(1, f->ref_state_size + 1);
    double db = NAN;
    if (!f->reference_n(ref, values, in, n, &want, 0, 0.0) &&
        !ffmpeg_graph(dir, in, n, graph, &ff, planar))
        db = psnr(&want, &ff, 1);
    if (f->reference_uninit)
        f->reference_uninit(ref);
    free(ref);
    clv_image_free(&want);
    clv_image_free(&ff);
    return db;
}

/* A photo-like frame: smooth shading with texture, opaque. */
static void photo(clv_image *img)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            double u = (double)x / img->width, v = (double)y / img->height;
            int r = (int)(128 + 100 * sin(6 * u + 2 * v) + (rnd() % 17) - 8);
            int g = (int)(120 + 90 * cos(4 * v - 3 * u) + (rnd() % 17) - 8);
            int b = (int)(100 + 80 * sin(9 * u * v) + (rnd() % 17) - 8);
            clv__put(img, x, y, 0, clv__clamp(r, 0, 255));
            clv__put(img, x, y, 1, clv__clamp(g, 0, 255));
            clv__put(img, x, y, 2, clv__clamp(b, 0, 255));
            clv__put(img, x, y, 3, 255);
        }
}

/* A logo: coloured shapes with an alpha ramp (0 at its left to 255 at its
 * right) and a fully transparent border. */
static void logo(clv_image *img)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            int border = x < 2 || y < 2 || x >= img->width - 2 || y >= img->height - 2;
            clv__put(img, x, y, 0, (x * 37 + y * 11) & 255);
            clv__put(img, x, y, 1, ((x / 8 + y / 8) & 1) ? 230 : 20);
            clv__put(img, x, y, 2, (y * 255) / (img->height > 1 ? img->height - 1 : 1));
            clv__put(img, x, y, 3, border ? 0 : (x * 255) / (img->width > 1 ? img->width - 1 : 1));
        }
}

static char tmpdir[64];

static const char *make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/clvid-gf-XXXXXX");
    return mkdtemp(tmpdir);
}

static void remove_tmpdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* ---- The tests -------------------------------------------------------- */

static void test_overlay(void)
{
    static const struct {
        const char *args;
        int mw, mh, ow, oh;
    } cases[] = {
        {"x=0:y=0", 1, 1, 1, 1},
        {"x=1:y=0:format=rgb", 3, 2, 2, 2},
        {"x=-3:y=-2:format=rgb", 17, 9, 5, 4},
        {"x=W-w+2:y=H-h+1:format=rgb", 17, 9, 5, 4},
        {"x=40:y=3", 17, 9, 5, 4},  /* wholly outside */
        {"x=-5:y=-4", 17, 9, 5, 4}, /* wholly outside by one */
        {"x=(W-w)/2:y=(H-h)/2", 17, 9, 20, 12},
        {"x=5:y=7:alpha=premultiplied:format=rgb", 17, 9, 5, 4},
        {"x=n*3-5:y=t*50-3:format=rgb", 17, 9, 6, 5},
        {"x=y+1:y=x+2:eval=init:format=rgb", 17, 9, 6, 5},
        {"x=33:y=17:format=yuv422", 641, 359, 100, 60},
        {"x=-31:y=300", 641, 359, 100, 60},
        {"x=NAN", 17, 9, 5, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int kind = 0; kind <= 3; kind++) {
            int w[2] = {cases[i].mw, cases[i].ow}, h[2] = {cases[i].mh, cases[i].oh};
            if (kind != 1 && cases[i].mw > 100 && kind != 0)
                continue;
            compare("overlay", cases[i].args, 2, w, h, kind, 3);
        }
    /* framesync's eof rules */
    static const struct {
        const char *args;
        clv_eof_action want;
    } eof[] = {
        {"", CLV_EOF_REPEAT},
        {"eof_action=endall", CLV_EOF_ENDALL},
        {"eof_action=pass", CLV_EOF_PASS},
        {"shortest=1", CLV_EOF_ENDALL},
        {"repeatlast=0", CLV_EOF_PASS},
        {"eof_action=pass:shortest=1", CLV_EOF_ENDALL},
    };
    static const char *const two[] = {"overlay", "blend", "alphamerge"};
    for (size_t k = 0; k < sizeof two / sizeof two[0]; k++)
        for (size_t i = 0; i < sizeof eof / sizeof eof[0]; i++) {
            const clv_filter *f = find(two[k]);
            clv_value v[CLV_PARAMS_MAX];
            EXPECT(parse_values(f, eof[i].args, v) == 0, "%s", eof[i].args);
            EXPECT(f->eof_action(v) == eof[i].want, "%s=%s: %d", two[k], eof[i].args,
                   (int)f->eof_action(v));
        }
    /* the overlay absent (eof_action=pass): the main frame */
    int w[2] = {17, 0}, h[2] = {9, 0};
    compare("overlay", "x=2:y=2:eof_action=pass", 2, w, h, 0, 2);
}

static void test_overlay_ffmpeg(void)
{
    if (!have_ffmpeg() || !make_tmpdir()) {
        printf("ffmpeg missing: skipped\n");
        exit(77);
    }
    clv_image bg = {0}, lg = {0};
    clv_image_alloc(&bg, 320, 180);
    clv_image_alloc(&lg, 97, 41);
    photo(&bg);
    logo(&lg);
    clv_image in[2] = {bg, lg};
    static const struct {
        const char *ours, *ffmpeg;
    } cases[] = {
        {"x=W-w-10:y=10:format=rgb", "[0][1]overlay=x=W-w-10:y=10:format=rgb"},
        {"x=-20:y=-7:format=rgb", "[0][1]overlay=x=-20:y=-7:format=rgb"},
        {"x=260:y=150:format=rgb", "[0][1]overlay=x=260:y=150:format=rgb"},
        {"x=13:y=9:format=rgb:alpha=premultiplied",
         "[0][1]overlay=x=13:y=9:format=rgb:alpha=premultiplied"},
        {"x=13:y=9:eval=init:format=rgb", "[0][1]overlay=x=13:y=9:eval=init:format=rgb"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double db = agree(tmpdir, "overlay", cases[i].ours, in, 2, cases[i].ffmpeg, 0);
        printf("overlay %-45s %6.2f dB\n", cases[i].ours, db);
        EXPECT(db >= 48, "overlay %s: %.2f dB against ffmpeg (want >= 48)", cases[i].ours, db);
    }
    clv_image_free(&bg);
    clv_image_free(&lg);
    remove_tmpdir();
}

static const char *const blend_modes[] = {
    "normal",    "addition",    "and",          "average",        "burn",
    "darken",    "difference",  "grainextract", "divide",         "dodge",
    "exclusion", "hardlight",   "lighten",      "multiply",       "negation",
    "or",        "overlay",     "phoenix",      "pinlight",       "reflect",
    "screen",    "softlight",   "subtract",     "vividlight",     "xor",
    "hardmix",   "linearlight", "glow",         "grainmerge",     "multiply128",
    "heat",      "freeze",      "extremity",    "softdifference", "geometric",
    "harmonic",  "bleach",      "stain",        "addition128",    "difference128",
};
#define BLEND_MODE_COUNT ((int)(sizeof blend_modes / sizeof blend_modes[0]))

static void test_blend(void)
{
    char args[128];
    for (int m = 0; m < BLEND_MODE_COUNT; m++) {
        int w[2] = {17, 17}, h[2] = {9, 9};
        snprintf(args, sizeof args, "all_mode=%s", blend_modes[m]);
        compare("blend", args, 2, w, h, 0, 1);
        snprintf(args, sizeof args, "all_mode=%s:all_opacity=0.37", blend_modes[m]);
        compare("blend", args, 2, w, h, 3, 1);
    }
    static const char *const more[] = {
        "c0_mode=multiply:c1_mode=screen:c2_mode=overlay:c3_mode=difference",
        "c0_mode=divide:c2_opacity=0.5:c3_opacity=0",
        "all_mode=normal:all_opacity=0.5",
        "all_mode=dodge:c0_opacity=0.25",
    };
    static const int sz[][2] = {{1, 1}, {3, 2}, {641, 359}};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        for (int s = 0; s < 3; s++) {
            int w[2] = {sz[s][0], sz[s][0]}, h[2] = {sz[s][1], sz[s][1]};
            compare("blend", more[i], 2, w, h, s == 2 ? 1 : 0, 1);
        }
    int w[2] = {17, 0}, h[2] = {9, 0}; /* the bottom absent: the top passes */
    compare("blend", "all_mode=multiply:eof_action=pass", 2, w, h, 0, 1);
    /* different sizes: CLV_ERANGE naming the filter and the sizes */
    const clv_filter *f = find("blend");
    clv_value v[CLV_PARAMS_MAX];
    parse_values(f, "", v);
    clv_size in[2] = {{16, 8, 1, 1, 0, 0, 0}, {16, 9, 1, 1, 0, 0, 0}}, out;
    clv_msg msg = {{0}};
    EXPECT(f->output_size_n(v, in, 2, &out, &msg) == CLV_ERANGE && strstr(msg.text, "16x9") &&
               strstr(msg.text, "blend"),
           "%s", msg.text);
}

static void test_blend_ffmpeg(void)
{
    if (!have_ffmpeg() || !make_tmpdir()) {
        printf("ffmpeg missing: skipped\n");
        exit(77);
    }
    clv_image a = {0}, b = {0};
    clv_image_alloc(&a, 64, 48);
    clv_image_alloc(&b, 64, 48);
    fill(&a, 0);
    fill(&b, 0);
    clv_image in[2] = {a, b};
    char ours[128], graph[256];
    for (int m = 0; m < BLEND_MODE_COUNT; m++)
        for (int o = 0; o < 2; o++) {
            const char *op = o ? ":all_opacity=0.6" : "";
            snprintf(ours, sizeof ours, "all_mode=%s%s", blend_modes[m], op);
            snprintf(graph, sizeof graph, "[0][1]blend=all_mode=%s%s", blend_modes[m], op);
            double db = agree(tmpdir, "blend", ours, in, 2, graph, 1);
            printf("blend %-40s %6.2f dB\n", ours, db);
            EXPECT(db == INFINITY, "blend %s: %.2f dB against ffmpeg (want identical)", ours, db);
        }
    clv_image_free(&a);
    clv_image_free(&b);
    remove_tmpdir();
}

static void test_alphamerge(void)
{
    static const int sz[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}};
    for (int k = 0; k < 4; k++)
        for (int kind = 0; kind <= 3; kind++) {
            int w[2] = {sz[k][0], sz[k][0]}, h[2] = {sz[k][1], sz[k][1]};
            if (k == 3 && kind > 0)
                continue;
            compare("alphamerge", "", 2, w, h, kind, 1);
        }
    int w[2] = {17, 0}, h[2] = {9, 0};
    compare("alphamerge", "eof_action=pass", 2, w, h, 0, 1);
    const clv_filter *f = find("alphamerge");
    clv_value v[CLV_PARAMS_MAX];
    parse_values(f, "", v);
    clv_size in[2] = {{16, 8, 1, 1, 0, 0, 0}, {15, 8, 1, 1, 0, 0, 0}}, out;
    clv_msg msg = {{0}};
    EXPECT(f->output_size_n(v, in, 2, &out, &msg) == CLV_ERANGE && strstr(msg.text, "15x8"), "%s",
           msg.text);
}

static void test_xstack(void)
{
    static const struct {
        const char *args;
        int n, w[4], h[4];
    } cases[] = {
        {"", 2, {1, 2}, {1, 1}},
        {"inputs=4:layout=0_0|w0_0|0_h0|w0_h0", 4, {3, 5, 3, 5}, {2, 2, 4, 4}},
        {"inputs=3:layout=0_0|w0_0|0_h0:fill=red@0.5", 3, {17, 4, 6}, {9, 5, 3}},
        {"inputs=3:layout=0_0|w0+w2_0|w0_0", 3, {7, 5, 3}, {2, 3, 4}},
        {"inputs=2:layout=0_0|2_1", 2, {17, 17}, {9, 9}}, /* overlap: the later wins */
        {"grid=2x2", 4, {320, 321, 320, 321}, {180, 180, 179, 179}},
        {"grid=3x1:fill=white", 3, {5, 6, 7}, {3, 3, 3}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        compare("xstack", cases[i].args, cases[i].n, cases[i].w, cases[i].h, 0, 1);
    /* errors, with what is wrong */
    static const struct {
        const char *args;
        int n, w[3], h[3];
        const char *want;
    } bad[] = {
        {"inputs=3", 3, {4, 4, 4}, {4, 4, 4}, "no layout or grid"},
        {"inputs=2:layout=0_0|w1_0", 2, {4, 4}, {4, 4}, "itself"},
        {"inputs=2:layout=0_0|w5_0", 2, {4, 4}, {4, 4}, "no input"},
        {"inputs=2:layout=0_0", 2, {4, 4}, {4, 4}, "no place for input 1"},
        {"inputs=2:layout=0_0|x_0", 2, {4, 4}, {4, 4}, "'x'"},
        {"grid=2x1", 2, {4, 4}, {4, 5}, "height"},
        {"grid=2x2", 2, {4, 4}, {4, 4}, "takes 4 inputs"},
        {"grid=2:fill=none", 2, {4, 4}, {4, 4}, "COLUMNSxROWS"},
        {"grid=5x4", 2, {4, 4}, {4, 4}, "at most 16"},
        {"fill=nocolour", 2, {4, 4}, {4, 4}, "nocolour"},
        {"layout=0_0|w0_0:grid=2x1", 2, {4, 4}, {4, 4}, "only one"},
    };
    const clv_filter *f = find("xstack");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clv_value v[CLV_PARAMS_MAX];
        EXPECT(parse_values(f, bad[i].args, v) == 0, "%s", bad[i].args);
        clv_size in[3], out;
        for (int k = 0; k < bad[i].n; k++)
            in[k] = (clv_size){bad[i].w[k], bad[i].h[k], 1, 1, 0, 0, 0};
        clv_msg msg = {{0}};
        int err = f->output_size_n(v, in, bad[i].n, &out, &msg);
        EXPECT(err != 0 && strstr(msg.text, bad[i].want), "xstack=%s: %d '%s' (want '%s')",
               bad[i].args, err, msg.text, bad[i].want);
    }
    clv_value v[CLV_PARAMS_MAX];
    parse_values(f, "grid=3x2", v);
    EXPECT(clv__filter_inputs(f, v) == 6, "grid=3x2: %d inputs", clv__filter_inputs(f, v));
    parse_values(f, "grid=5x4", v); /* too many: inputs, and the size names the grid */
    EXPECT(clv__filter_inputs(f, v) == 2, "grid=5x4: %d inputs", clv__filter_inputs(f, v));
}

static void test_stack_alpha_ffmpeg(void)
{
    if (!have_ffmpeg() || !make_tmpdir()) {
        printf("ffmpeg missing: skipped\n");
        exit(77);
    }
    clv_image img[4];
    static const int wh[4][2] = {{64, 36}, {40, 36}, {64, 20}, {40, 20}};
    for (int i = 0; i < 4; i++) {
        memset(&img[i], 0, sizeof img[i]);
        clv_image_alloc(&img[i], wh[i][0], wh[i][1]);
        photo(&img[i]);
    }
    static const struct {
        const char *ours, *ffmpeg;
        int n;
    } cases[] = {
        {"inputs=4:layout=0_0|w0_0|0_h0|w0_h0", "xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0", 4},
        {"grid=2x2", "xstack=grid=2x2", 4},
        {"inputs=3:layout=0_0|w0_0|0_h0:fill=red", "xstack=inputs=3:layout=0_0|w0_0|0_h0:fill=red",
         3},
        {"inputs=2:layout=0_0|5_3:fill=0x336699", "xstack=inputs=2:layout=0_0|5_3:fill=0x336699",
         2},
    };
    char graph[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int len = 0;
        for (int k = 0; k < cases[i].n; k++)
            len += snprintf(graph + len, sizeof graph - (size_t)len, "[%d]", k);
        snprintf(graph + len, sizeof graph - (size_t)len, "%s", cases[i].ffmpeg);
        clv_image in[4] = {img[0], img[1], img[2], img[3]};
        if (i == 1) { /* a grid: rows of one height */
            in[1] = img[0];
            in[2] = img[1];
            in[3] = img[1];
            in[2] = img[0];
            in[3] = img[0];
        }
        double db = agree(tmpdir, "xstack", cases[i].ours, in, cases[i].n, graph, 0);
        printf("xstack %-45s %6.2f dB\n", cases[i].ours, db);
        EXPECT(db == INFINITY, "xstack %s: %.2f dB against ffmpeg (want identical)", cases[i].ours,
               db);
    }
    /* alphamerge: a photo and a mask (an RGB picture: ffmpeg takes its gray) */
    clv_image mask = {0};
    clv_image_alloc(&mask, 64, 36);
    logo(&mask);
    for (int y = 0; y < 36; y++)
        for (int x = 0; x < 64; x++)
            clv__put(&mask, x, y, 3, 255);
    clv_image in[2] = {img[0], mask};
    double db = agree(tmpdir, "alphamerge", "", in, 2, "[0][1]alphamerge", 0);
    printf("alphamerge %45s %6.2f dB\n", "", db);
    EXPECT(db == INFINITY, "alphamerge: %.2f dB against ffmpeg (want identical)", db);
    clv_image_free(&mask);
    for (int i = 0; i < 4; i++)
        clv_image_free(&img[i]);
    remove_tmpdir();
}

static const char *const xfade_transitions[] = {
    "fade",       "wipeleft",    "wiperight",  "wipeup",      "wipedown",  "slideleft",
    "slideright", "slideup",     "slidedown",  "circlecrop",  "rectcrop",  "distance",
    "fadeblack",  "fadewhite",   "smoothleft", "smoothright", "smoothup",  "smoothdown",
    "circleopen", "circleclose", "vertopen",   "vertclose",   "horzopen",  "horzclose",
    "dissolve",   "pixelize",    "diagtl",     "diagtr",      "diagbl",    "diagbr",
    "hlslice",    "hrslice",     "vuslice",    "vdslice",     "fadegrays", "wipetl",
    "wipetr",     "wipebl",      "wipebr",     "squeezeh",    "squeezev",  "zoomin",
    "fadefast",   "fadeslow",    "radial",
};
#define XFADE_COUNT ((int)(sizeof xfade_transitions / sizeof xfade_transitions[0]))

static void test_xfade(void)
{
    char args[128];
    /* frames at 0, 0.27, ..., 1.35 s: before, through and after a
     * transition from 0.2 s to 1.2 s */
    time_step = 0.27;
    for (int i = 0; i < XFADE_COUNT; i++) {
        static const int sz[][2] = {{1, 1}, {3, 2}, {17, 9}};
        for (int k = 0; k < 3; k++) {
            int w[2] = {sz[k][0], sz[k][0]}, h[2] = {sz[k][1], sz[k][1]};
            snprintf(args, sizeof args, "transition=%s:duration=1:offset=0.2",
                     xfade_transitions[i]);
            compare("xfade", args, 2, w, h, k == 2 ? 0 : 3, 6);
        }
    }
    static const char *const big[] = {"fade",     "circleopen", "dissolve", "distance",
                                      "pixelize", "slideleft",  "diagbr",   "hrslice"};
    /* The sanitizer builds: the first two at 641x359 (the host's side is
     * the same for each). */
    size_t big_count = getenv("CLVID_SANITIZED") ? 2 : sizeof big / sizeof big[0];
    for (size_t i = 0; i < big_count; i++) {
        int w[2] = {641, 641}, h[2] = {359, 359};
        snprintf(args, sizeof args, "transition=%s:duration=1:offset=0.2", big[i]);
        compare("xfade", args, 2, w, h, 0, 6);
    }
    /* a width of a multiple of 4: the GPU shape reads the pixel table's
     * rows four values at a time */
    static const char *const tabled[] = {"circlecrop", "circleopen", "circleclose",
                                         "dissolve",   "diagtl",     "diagbr"};
    for (size_t i = 0; i < sizeof tabled / sizeof tabled[0]; i++) {
        int w[2] = {20, 20}, h[2] = {9, 9};
        snprintf(args, sizeof args, "transition=%s:duration=1:offset=0.2", tabled[i]);
        compare("xfade", args, 2, w, h, 0, 6);
    }
    /* progress 1 and 0 exactly (the transition's first and last frames):
     * the slides' edge columns and rows */
    for (int i = 0; i < XFADE_COUNT; i++) {
        int w[2] = {17, 17}, h[2] = {9, 9};
        snprintf(args, sizeof args, "transition=%s:duration=0.27:offset=0", xfade_transitions[i]);
        compare("xfade", args, 2, w, h, 0, 2);
    }
    /* the first input absent after the transition, the second before it */
    int w[2] = {17, 0}, h[2] = {9, 0};
    compare("xfade", "transition=wipeleft:offset=5", 2, w, h, 0, 2);
    time_step = 0.04;
    const clv_filter *f = find("xfade");
    clv_value v[CLV_PARAMS_MAX];
    clv_size in[2] = {{16, 8, 1, 1, 0, 0, 0}, {16, 9, 1, 1, 0, 0, 0}}, out;
    clv_msg msg = {{0}};
    parse_values(f, "", v);
    EXPECT(f->output_size_n(v, in, 2, &out, &msg) == CLV_ERANGE && strstr(msg.text, "16x9"), "%s",
           msg.text);
    parse_values(f, "transition=hblur", v);
    in[1] = in[0];
    EXPECT(f->output_size_n(v, in, 2, &out, &msg) == CLV_EPARSE && strstr(msg.text, "hblur"), "%s",
           msg.text);
    /* timing: input 1 from the offset, driving after the transition */
    parse_values(f, "offset=4:duration=1.5", v);
    double off, df, du, fr, un;
    f->timing(v, 1, &off, &df, &du, &fr, &un);
    EXPECT(off == 4 && df == 5.5 && isinf(du) && fr == 4 && isinf(un), "%g %g %g %g %g", off, df,
           du, fr, un);
    f->timing(v, 0, &off, &df, &du, &fr, &un);
    EXPECT(off == 0 && df == 0 && du == 5.5 && fr == 0 && un == 5.5, "%g %g %g %g %g", off, df, du,
           fr, un);
}

/* xfade against ffmpeg's: 26 frames of each input (gbrap, 25 fps), the
 * transition over the first second; frames 3, 10, 17 and 22 (progress
 * 0.88, 0.6, 0.32, 0.12). */
static void test_xfade_ffmpeg(void)
{
    if (!have_ffmpeg() || !make_tmpdir()) {
        printf("ffmpeg missing: skipped\n");
        exit(77);
    }
    const int W = 96, H = 54, N = 26;
    clv_image a = {0}, b = {0}, want = {0}, got = {0};
    clv_image_alloc(&a, W, H);
    clv_image_alloc(&b, W, H);
    clv_image_alloc(&want, W, H);
    clv_image_alloc(&got, W, H);
    photo(&a);
    fill(&b, 2);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            clv__put(&b, x, y, 3, 255);
    char path[600], cmd[2048];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/in%d.raw", tmpdir, i);
        FILE *fp = fopen(path, "wb");
        for (int k = 0; k < N && fp; k++) {
            char one[600];
            snprintf(one, sizeof one, "%s/one.raw", tmpdir);
            write_raw(one, i ? &b : &a, 1);
            FILE *src = fopen(one, "rb");
            int ch;
            while (src && (ch = fgetc(src)) != EOF)
                fputc(ch, fp);
            if (src)
                fclose(src);
        }
        if (fp)
            fclose(fp);
    }
    const clv_filter *f = find("xfade");
    static const int frames[] = {3, 10, 17, 22};
    for (int t = 0; t < XFADE_COUNT; t++) {
        snprintf(
            cmd, sizeof cmd,
            "ffmpeg -nostdin -v error -y -f rawvideo -pix_fmt gbrap -s %dx%d -r 25 -i %s/in0.raw "
            "-f rawvideo -pix_fmt gbrap -s %dx%d -r 25 -i %s/in1.raw -filter_complex "
            "'[0][1]xfade=transition=%s:duration=1:offset=0' -f rawvideo -pix_fmt gbrap "
            "%s/out.raw",
            W, H, tmpdir, W, H, tmpdir, xfade_transitions[t], tmpdir);
        if (system(cmd) != 0) {
            EXPECT(0, "ffmpeg failed: %s", cmd);
            continue;
        }
        clv_value v[CLV_PARAMS_MAX];
        char args[96];
        snprintf(args, sizeof args, "transition=%s:duration=1:offset=0", xfade_transitions[t]);
        parse_values(f, args, v);
        double worst = INFINITY;
        char line[256];
        int len = snprintf(line, sizeof line, "xfade %-12s", xfade_transitions[t]);
        for (size_t k = 0; k < sizeof frames / sizeof frames[0]; k++) {
            /* frame k of the output */
            snprintf(path, sizeof path, "%s/out.raw", tmpdir);
            FILE *fp = fopen(path, "rb");
            int ok = fp && fseek(fp, (long)frames[k] * W * H * 4, SEEK_SET) == 0;
            static const int plane_channel[4] = {1, 2, 0, 3};
            for (int p = 0; p < 4 && ok; p++)
                for (int y = 0; y < H; y++)
                    for (int x = 0; x < W; x++) {
                        int c = fgetc(fp);
                        ok &= c != EOF;
                        clv__put(&got, x, y, plane_channel[p], c < 0 ? 0 : c);
                    }
            if (fp)
                fclose(fp);
            clv_image in[2] = {a, b};
            int err = f->reference_n(NULL, v, in, 2, &want, (uint64_t)frames[k], frames[k] / 25.0);
            double db = ok && !err ? psnr(&want, &got, 1) : NAN;
            len += snprintf(line + len, sizeof line - (size_t)len, " %6.2f", db);
            if (!(db >= worst))
                worst = db;
        }
        printf("%s dB (frames 3, 10, 17, 22)\n", line);
        /* fadegrays: ffmpeg 5.1 sums into an uninitialized int */
        if (strcmp(xfade_transitions[t], "fadegrays"))
            EXPECT(worst >= 48, "xfade %s: %.2f dB against ffmpeg (want >= 48)",
                   xfade_transitions[t], worst);
    }
    clv_image_free(&a);
    clv_image_free(&b);
    clv_image_free(&want);
    clv_image_free(&got);
    remove_tmpdir();
}

/* ---- In graphs: the device graph against the reference graph ----------- */

/* The graphs' time origin (clv_graph_set_time_origin) in compare_in_graph:
 * its frames at time_origin + n / 25. */
static double time_origin;

/* Runs `text` over inputs of sizes w[k] x h[k] for `frames` frames at 25
 * fps (from time_origin), in both shapes at 8 bits: device == reference. by_sync: each input
 * present only at the output times its sync reads it (xfade's first input
 * ends with the transition, its second starts at the offset); else every
 * input at every frame. */
static void compare_in_graph(const char *text, int inputs, const int *w, const int *h, int frames,
                             int by_sync)
{
    clv_msg msg = {{0}};
    clv_graph_desc *desc = NULL;
    if (clv_graph_parse(text, inputs, NULL, &desc, &msg)) {
        EXPECT(0, "'%s': %s", text, msg.text);
        return;
    }
    clv_graph_sync sync[CLV_GRAPH_INPUTS];
    clv_size in[CLV_GRAPH_INPUTS], out = {0};
    for (int k = 0; k < inputs; k++) {
        in[k] = (clv_size){.width = w[k], .height = h[k], .sar_num = 1, .sar_den = 1};
        EXPECT(clv_graph_desc_sync(desc, k, &sync[k]) == 0, "'%s' sync %d", text, k);
    }
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = context(shape);
        clv_graph *graph = NULL;
        clv_ref_graph *ref = NULL;
        clv_image img[CLV_GRAPH_INPUTS], got = {0}, want = {0};
        clv_frame fr[CLV_GRAPH_INPUTS], dst = {0};
        memset(img, 0, sizeof img);
        memset(fr, 0, sizeof fr);
        int err = !ctx || clv_graph_create(ctx, desc, 8, &graph, &msg) ||
                  clv_ref_graph_create(desc, &ref) || clv_graph_output_size(graph, in, &out, &msg);
        EXPECT(!err, "'%s': %s", text, msg.text);
        for (int k = 0; k < inputs && !err; k++) {
            err = clv_image_alloc(&img[k], w[k], h[k]) ||
                  clv_frame_create(ctx, w[k], h[k], &fr[k], &msg);
            if (!err) {
                fill(&img[k], k == 1 ? 0 : 1);
                err = clv_frame_upload(ctx, &fr[k], &img[k]);
            }
        }
        if (!err)
            err = clv_image_alloc(&got, out.width, out.height) ||
                  clv_image_alloc(&want, out.width, out.height) ||
                  clv_frame_create(ctx, out.width, out.height, &dst, &msg);
        EXPECT(!err, "'%s': %s", text, msg.text);
        if (!err) {
            clv_graph_set_frame_rate(graph, 25, 1);
            clv_ref_graph_set_frame_rate(ref, 25, 1);
            clv_graph_set_time_origin(graph, time_origin);
            clv_ref_graph_set_time_origin(ref, time_origin);
        }
        for (int n = 0; n < frames && !err; n++) {
            double t = time_origin + n / 25.0;
            const clv_frame *fin[CLV_GRAPH_INPUTS];
            const clv_image *iin[CLV_GRAPH_INPUTS];
            for (int k = 0; k < inputs; k++) {
                double u = t - time_origin;
                int read = !by_sync || (u >= sync[k].from - 1e-9 && u <= sync[k].until + 1e-9);
                fin[k] = read ? &fr[k] : NULL;
                iin[k] = read ? &img[k] : NULL;
            }
            err = clv_graph_run(graph, fin, &dst, (uint64_t)n, t, NULL, NULL, &msg);
            EXPECT(!err, "'%s' frame %d: %s", text, n, msg.text);
            if (!err)
                err = clv_frame_download(ctx, &dst, &got);
            if (!err) {
                err = clv_ref_graph_run(ref, iin, &want, (uint64_t)n, t);
                EXPECT(!err, "'%s' frame %d: reference %d", text, n, err);
            }
            char what[300];
            snprintf(what, sizeof what, "'%s' shape %d frame %d", text, shape, n);
            if (!err) {
                EXPECT(same(&got, &want, what), "%s", what);
                compared++;
            }
        }
        for (int k = 0; k < inputs; k++) {
            clv_frame_destroy(&fr[k]);
            clv_image_free(&img[k]);
        }
        clv_frame_destroy(&dst);
        clv_image_free(&got);
        clv_image_free(&want);
        clv_ref_graph_destroy(ref);
        clv_graph_destroy(graph);
    }
    clv_graph_desc_destroy(desc);
}

/* The reference graph of `text` over two 9x5 inputs at time t with the
 * time origin `origin`, into out. */
static void ref_at(const char *text, double origin, double t, clv_image *out)
{
    clv_graph_desc *desc = NULL;
    clv_ref_graph *ref = NULL;
    clv_msg msg = {{0}};
    clv_image img[2] = {{0}};
    const clv_image *in[2] = {&img[0], &img[1]};
    int err = clv_graph_parse(text, 2, NULL, &desc, &msg) || clv_ref_graph_create(desc, &ref) ||
              clv_image_alloc(&img[0], 9, 5) || clv_image_alloc(&img[1], 9, 5) ||
              clv_image_alloc(out, 9, 5);
    if (!err) {
        fill(&img[0], 2); /* gradients: the same on every call */
        memset(img[1].pixels, 200, (size_t)img[1].stride * 5);
        clv_ref_graph_set_time_origin(ref, origin);
        err = clv_ref_graph_run(ref, in, out, 0, t);
    }
    EXPECT(!err, "'%s': %d %s", text, err, msg.text);
    clv_image_free(&img[0]);
    clv_image_free(&img[1]);
    clv_ref_graph_destroy(ref);
    clv_graph_desc_destroy(desc);
}

/* xfade counts its offset from the time origin; overlay's t does not. */
static void origin_shifts_xfade_only(void)
{
    static const char *const fade = "[0][1]xfade=duration=1:offset=0.5",
                             *const over = "[0][1]overlay=x=t*4-9:y=0";
    clv_image a = {0}, b = {0};
    ref_at(fade, 2, 2.8, &a);
    ref_at(fade, 0, 0.8, &b);
    EXPECT(a.pixels && b.pixels && same(&a, &b, "xfade from origin 2 at 2.8 s"),
           "xfade at 2.8 s from origin 2 differs from xfade at 0.8 s from 0");
    clv_image_free(&a);
    ref_at(fade, 0, 2.8, &a);
    EXPECT(a.pixels && memcmp(a.pixels, b.pixels, (size_t)a.stride * 5) != 0,
           "xfade at 2.8 s from origin 0 (input 1 whole) equals its 0.8 s");
    clv_image_free(&a);
    clv_image_free(&b);
    ref_at(over, 2, 2.5, &a);
    ref_at(over, 0, 2.5, &b);
    EXPECT(a.pixels && b.pixels && same(&a, &b, "overlay at 2.5 s from origin 2"),
           "overlay's t moved with the time origin");
    clv_image_free(&a);
    clv_image_free(&b);
}

static void test_in_graphs(void)
{
    int w2[2] = {64, 20}, h2[2] = {36, 10};
    compare_in_graph("[1]scale=30:-1[logo];[0][logo]overlay=W-w-3:y=t*100-5", 2, w2, h2, 6, 0);
    compare_in_graph("[0][1]overlay=x=n:y=2:alpha=premultiplied,gray", 2, w2, h2, 3, 0);
    int w4[4] = {33, 33, 33, 33}, h4[4] = {17, 17, 17, 17};
    compare_in_graph("[0][1][2][3]xstack=grid=2x2,hflip", 4, w4, h4, 2, 0);
    compare_in_graph("[0]split[a][b];[a][1]blend=all_mode=multiply[c];[c][b]xstack", 2, w4, h4, 2,
                     0);
    compare_in_graph("[1]gray[m];[0][m]alphamerge", 2, w4, h4, 2, 0);
    /* enable= (ffmpeg's timeline): off, the first input passes on */
    compare_in_graph("[0][1]overlay=x=3:y=2:enable='eq(mod(n,2),0)'", 2, w2, h2, 4, 0);
    compare_in_graph("[1]gray[m];[0][m]alphamerge=enable='gte(t,0.04)'", 2, w4, h4, 3, 0);
    compare_in_graph("[0]gblur=sigma=1:enable='eq(n,1)'[a];[a][1]blend=all_mode=multiply:"
                     "enable='lt(n,2)'",
                     2, w4, h4, 3, 0);
    /* a transition from 0.2 s to 0.6 s: before, through and after */
    compare_in_graph("[0][1]xfade=transition=circleopen:duration=0.4:offset=0.2", 2, w4, h4, 20, 0);
    compare_in_graph("[0]hflip[a];[a][1]xfade=transition=slideup:duration=0.4:offset=0.2", 2, w4,
                     h4, 20, 0);
    /* from a time origin (a first frame at 1.3 s): device == reference */
    time_origin = 1.3;
    compare_in_graph("[0][1]xfade=transition=wipeleft:duration=0.4:offset=0.2", 2, w4, h4, 20, 0);
    compare_in_graph("[0][1]overlay=x=t*10-12:y=2", 2, w4, h4, 3, 0);
    time_origin = 0;
    origin_shifts_xfade_only();
    /* sizes that do not fit: CLV_ERANGE naming the filter */
    clv_graph_desc *desc = NULL;
    clv_msg msg = {{0}};
    clv_size in[2] = {{16, 8, 1, 1, 0, 0, 0}, {16, 9, 1, 1, 0, 0, 0}}, out;
    EXPECT(clv_graph_parse("[0][1]xfade", 2, NULL, &desc, &msg) == 0, "%s", msg.text);
    EXPECT(desc && clv_graph_desc_output_size(desc, in, &out, &msg) == CLV_ERANGE &&
               strstr(msg.text, "xfade") && strstr(msg.text, "16x9"),
           "%s", msg.text);
    clv_graph_desc_destroy(desc);
    desc = NULL;
    EXPECT(clv_graph_parse("[0][1][2][3][4][5]xstack=grid=3x2", 6, NULL, &desc, &msg) == 0, "%s",
           msg.text);
    clv_graph_desc_destroy(desc);
}

static const struct {
    const char *name;
    void (*fn)(void);
} tests[] = {
    {"overlay", test_overlay},
    {"overlay_ffmpeg", test_overlay_ffmpeg},
    {"blend", test_blend},
    {"blend_ffmpeg", test_blend_ffmpeg},
    {"alphamerge", test_alphamerge},
    {"xstack", test_xstack},
    {"stack_alpha_ffmpeg", test_stack_alpha_ffmpeg},
    {"xfade", test_xfade},
    {"xfade_ffmpeg", test_xfade_ffmpeg},
    {"in_graphs", test_in_graphs},
};

int main(int argc, char **argv)
{
    int count = (int)(sizeof tests / sizeof tests[0]);
    if (argc < 2) {
        for (int i = 0; i < count; i++)
            printf("%s\n", tests[i].name);
        return 0;
    }
    for (int i = 0; i < count; i++)
        if (!strcmp(argv[1], tests[i].name)) {
            tests[i].fn();
            for (int k = 0; k < 3; k++)
                if (contexts[k])
                    clv_context_destroy(contexts[k]);
            if (compared)
                printf("%s: %d frames compared\n", argv[1], compared);
            if (failures)
                fprintf(stderr, "%s: %d failures\n", argv[1], failures);
            return failures ? 1 : 0;
        }
    fprintf(stderr, "no test %s\n", argv[1]);
    return 2;
}
