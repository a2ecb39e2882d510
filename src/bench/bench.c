/* bench.c - clvid-bench: runs a chain on synthetic frames on one device and
 * reports each filter's kernel time from OpenCL profiling events. Links
 * clvid-core, so it runs wherever OpenCL runs; built with FFmpeg (CLVID_CLI)
 * it also times a real decode into the GPU stage (decode.c). */
#include <pthread.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clvid.h"
#include "graph.h"
#include "opencl.h"

#include "../env/engine_env.h"
#include "decode.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The default chain: every registered filter with its defaults, in the
 * registry's order (a new filter is timed without a change here), but
 * those that need a file of their own (lut3d's .cube) or a value without
 * a default (format's pixel formats), at most a chain's worth. */
static void every_filter(char *out, size_t size)
{
    size_t n = 0;
    int count = 0;
    out[0] = 0;
    for (int i = 0; i < clv_filter_count() && n < size && count < CLV_CHAIN_MAX; i++) {
        const clv_filter *f = clv_filter_at(i);
        int needs_file = 0;
        for (int k = 0; k < clv_filter_param_count(f); k++)
            needs_file |= clv_filter_param(f, k)->type == CLV_PARAM_FILE;
        clv_chain_desc *alone = NULL;
        clv_fps_spec fps;
        if (!needs_file && clv_chain_parse(clv_filter_name(f), &alone, NULL))
            needs_file = 1; /* no defaults of its own */
        else if (!needs_file && !clv_chain_desc_fps(alone, 25, &fps, NULL) && fps.rate > 0)
            needs_file = 1; /* fps: frames picked by a transcode, not timed here */
        clv_chain_desc_destroy(alone);
        if (needs_file)
            continue;
        n += (size_t)snprintf(out + n, size - n, "%s%s", count++ ? "," : "", clv_filter_name(f));
    }
}

static void usage(FILE *out)
{
    fprintf(out, "usage: clvid-bench [options]\n"
                 "  --size WxH|720p|1080p|4k   frame size (default 1080p)\n"
                 "  --device LIST              OpenCL device(s): N, NAME, 1,2, gpu, all (default:\n"
                 "                             CLVID_DEVICE, first GPU, first device); several\n"
                 "                             with --pipeline: each alone and all together\n"
                 "  --chain CHAIN              filters to time, ffmpeg syntax (default: every "
                 "filter\n"
                 "                             that needs no file, up to a chain's 32)\n"
                 "  --graph GRAPH              time a graph of several inputs instead (ffmpeg's\n"
                 "                             -filter_complex: '[0][1]hstack'); every input it\n"
                 "                             reads is the same noise frame of --size\n"
                 "  --frames N                 timed frames, the median is reported (default 20;\n"
                 "                             with a deinterlacer, frames out: send_field runs\n"
                 "                             twice on each frame in)\n"
                 "  --warmup N                 untimed frames first (default 2; at least a\n"
                 "                             deinterlacer's frameless first outputs)\n"
                 "  --shape row|gpu            force a kernel work shape (default: by device "
                 "type)\n"
                 "  --depth 8|16               bits a channel of the chain's frames (default 8;\n"
                 "                             16: RGBA16, every filter at 16 bits)\n"
                 "  --pattern noise|smooth     the picture timed without --input: noise (default)\n"
                 "                             or smooth gradients with a little noise, as video\n"
                 "                             is (what a filter reading tables sees)\n"
                 "  --json                     one JSON object on stdout instead of a table\n"
                 "  --input FILE.rgba          time on this picture (raw RGBA of --size) instead\n"
                 "                             of noise (--pipeline: as yuv420p, BT.709); a file\n"
                 "                             of several frames is a clip, its frames in turn\n"
                 "  --input VIDEO              --pipeline: a real decode (anything FFmpeg opens;\n"
                 "                             its own size and format: yuv420p, nv12 from cuda,\n"
                 "                             p010...) timed three ways in turns: the decode\n"
                 "                             alone; decoded into the stage's blocks, chain,\n"
                 "                             outputs kept; copied into the staging, chain.\n"
                 "                             --frames per run, the clip looped (a seek back)\n"
                 "                             when shorter. Raw RGBA: a .rgba or .raw name, or\n"
                 "                             a file FFmpeg finds no video in and whose size is\n"
                 "                             whole frames of --size\n"
                 "  --hwaccel METHOD           --input VIDEO: decode with cuda, vaapi, auto or\n"
                 "                             none (the default), as clvid transcode -hwaccel\n"
                 "  --writers N                --pipeline: threads writing the frames, per device\n"
                 "                             (a decoder's threads; default 1)\n"
                 "  --slots N                  --pipeline: the stage's slots a device, frames in\n"
                 "                             flight on each (2 to 16; default 3)\n"
                 "  --out yuv420p|rgba         --pipeline output: for an encoder (default) or for\n"
                 "                             the window (clvid play)\n"
                 "  --pipeline                 time the whole GPU stage instead: yuv420p frames\n"
                 "                             from the staging memory (pinned, or shared with a\n"
                 "                             CPU device), upload, chain, download, with\n"
                 "                             the real slots and queues; against the same with\n"
                 "                             no filter (the transfer-only bound); both in\n"
                 "                             turns, three times, the best of each; with\n"
                 "                             several devices as many threads write frames\n");
    fprintf(out, "  --blocks                   --pipeline: also time frames written once into\n"
                 "                             the stage's blocks (pinned memory on a GPU,\n"
                 "                             shared on a CPU) and submitted from there, each\n"
                 "                             output kept and freed: no host copy a frame, what\n"
                 "                             a decoder writing into the stage gets; beside the\n"
                 "                             copies, in the same turns, each with its bound;\n"
                 "                             over several devices also a stage and a thread\n"
                 "                             a device, all at once, and their bound\n"
                 "Kernel time comes from profiling events; GB/s counts one frame read and one "
                 "written per filter (8 bytes per pixel).\n");
}

static int parse_size(const char *s, int *w, int *h)
{
    if (!strcmp(s, "720p"))
        return *w = 1280, *h = 720, 0;
    if (!strcmp(s, "1080p"))
        return *w = 1920, *h = 1080, 0;
    if (!strcmp(s, "4k") || !strcmp(s, "4K"))
        return *w = 3840, *h = 2160, 0;
    char tail;
    if (sscanf(s, "%dx%d%c", w, h, &tail) == 2 && *w >= 1 && *h >= 1 && *w <= 16384 && *h <= 16384)
        return 0;
    return -1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void clv_bench_json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

#define PIPELINE_ROUNDS 3

/* Writing a frame into the staging memory from several threads, as a
 * decoder's threads would: one thread's memcpy (12.4 MB a 4K frame) would
 * bound several devices together. Workers take equal parts of each copy. */
struct copier;
typedef struct copier_arg {
    struct copier *c;
    int part;
} copier_arg;

typedef struct copier {
    pthread_t thread[4 * CLV_DEVICES_MAX];
    copier_arg arg[4 * CLV_DEVICES_MAX];
    int threads; /* helpers; the caller copies the first part itself */
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    uint8_t *dst;
    const uint8_t *src;
    size_t size;
    unsigned long round;
    int finished, quit;
} copier;

static void copy_part(copier *c, int part)
{
    size_t parts = (size_t)c->threads + 1, from = c->size * (size_t)part / parts,
           to = c->size * (size_t)(part + 1) / parts;
    memcpy(c->dst + from, c->src + from, to - from);
}

static void *copier_main(void *arg)
{
    copier_arg *a = arg;
    copier *c = a->c;
    unsigned long seen = 0;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->quit && c->round == seen)
            pthread_cond_wait(&c->go, &c->lock);
        if (c->quit)
            break;
        seen = c->round;
        pthread_mutex_unlock(&c->lock);
        copy_part(c, a->part);
        pthread_mutex_lock(&c->lock);
        if (++c->finished == c->threads)
            pthread_cond_signal(&c->done);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

static void copier_start(copier *c, int threads)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->go, NULL);
    pthread_cond_init(&c->done, NULL);
    for (int i = 0; i < threads && i < 4 * CLV_DEVICES_MAX; i++) {
        c->arg[i] = (copier_arg){c, i + 1};
        if (pthread_create(&c->thread[i], NULL, copier_main, &c->arg[i]))
            break;
        c->threads = i + 1;
    }
}

static void copier_copy(copier *c, uint8_t *dst, const uint8_t *src, size_t size)
{
    if (!c->threads) {
        memcpy(dst, src, size);
        return;
    }
    pthread_mutex_lock(&c->lock);
    c->dst = dst, c->src = src, c->size = size, c->finished = 0;
    c->round++;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->lock);
    copy_part(c, 0);
    pthread_mutex_lock(&c->lock);
    while (c->finished < c->threads)
        pthread_cond_wait(&c->done, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

static void copier_stop(copier *c)
{
    pthread_mutex_lock(&c->lock);
    c->quit = 1;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->lock);
    for (int i = 0; i < c->threads; i++)
        pthread_join(c->thread[i], NULL);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->go);
    pthread_cond_destroy(&c->done);
}

/* Reads raw RGBA pictures of w x h, one or more back to back (a clip:
 * what quantize does depends on how much each frame differs from the last);
 * NULL with the error printed. */
static uint8_t *read_pictures(const char *path, int w, int h, int *count)
{
    size_t one = (size_t)w * h * 4;
    FILE *f = fopen(path, "rb");
    long bytes = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        bytes = ftell(f);
    uint8_t *rgba = NULL;
    if (f && bytes >= (long)one && (size_t)bytes % one == 0 && fseek(f, 0, SEEK_SET) == 0) {
        rgba = malloc((size_t)bytes);
        if (rgba && fread(rgba, 1, (size_t)bytes, f) != (size_t)bytes) {
            free(rgba);
            rgba = NULL;
        }
    }
    if (f)
        fclose(f);
    if (rgba) {
        *count = (int)((size_t)bytes / one);
        return rgba;
    }
    fprintf(stderr,
            "clvid-bench: --input %s: %s; expected whole %zu-byte RGBA frames of --size %dx%d "
            "(ffmpeg -i VIDEO -frames:v N -s %dx%d -pix_fmt rgba -f rawvideo %s)\n",
            path,
            !f           ? "cannot open it"
            : bytes >= 0 ? "its size is not a whole number of frames"
                         : "cannot read it",
            one, w, h, w, h, path);
    return NULL;
}

/* 1 when --input is a video to decode rather than raw RGBA of w x h: raw
 * when named .rgba or .raw, else a video when FFmpeg finds one in it, else
 * raw when its size is whole frames; anything else is a video with
 * --pipeline, whose decoder then says what is wrong with it (not there, not
 * media), and raw without (read_pictures says). */
static int input_is_video(const char *path, int w, int h, int pipeline)
{
    const char *dot = strrchr(path, '.');
    if (dot && (!strcmp(dot, ".rgba") || !strcmp(dot, ".raw")))
        return 0;
#if CLVID_BENCH_VIDEO
    if (clv_bench_is_video(path))
        return 1;
    FILE *f = fopen(path, "rb");
    long bytes = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (f)
        fclose(f);
    size_t one = (size_t)w * h * 4;
    return pipeline && !(bytes > 0 && (size_t)bytes % one == 0);
#else
    (void)w, (void)h, (void)pipeline;
    return 0; /* no FFmpeg: raw RGBA, as before */
#endif
}

/* Frame i of a clip read by read_pictures, as an image (no copy). */
static clv_image clip_frame(uint8_t *pictures, int i, int w, int h)
{
    clv_image one = {pictures + (size_t)i * w * h * 4, w, h, (size_t)w * 4, 8};
    return one;
}

/* What a --pipeline run feeds the stage. */
typedef struct pipeline_spec {
    int w, h, frames;
    int writers; /* threads writing the frames, per device (a decoder's) */
    clv_pixfmt out_format;
    const uint8_t *picture; /* yuv420p of w x h, or NULL: a hashed pattern */
    int pictures;           /* frames of yuv420p at picture, used in turn */
    int rate;               /* runs of the chain per frame in (2: a deinterlacer's send_field) */
    /* --blocks: the frames written once into a ring of the stage's blocks
     * and submitted from there (clv_stage_submit_block), outputs kept
     * (clv_stage_keep) and freed: no host copy a frame. */
    int blocks;
    int slots; /* the stage's slots (clv_stage_options.slots) */
} pipeline_spec;

/* Where the submitting thread's time went, ms per timed frame. */
typedef struct pipeline_host {
    double copy_ms;   /* writing the frame into the staging memory */
    double submit_ms; /* clv_stage_submit: enqueueing the transfers and kernels */
    double wait_ms;   /* clv_stage_output: waiting for the oldest frame */
    int fused;        /* the filter ran inside the conversions (clv_stage_fused_frames) */
    /* --blocks: the path the frames took: in from blocks (1) or copied
     * into the staging (0: the stage gave no blocks); out kept (1) or not
     * (0: the caller would copy). */
    int blocks_in, kept_out;
} pipeline_host;

/* Frames per second through the GPU stage: yuv420p in and out, `frames`
 * frames, copying a prepared frame into the staging memory each time as a
 * decoder would; or (ps->blocks) submitting frames written once into the
 * stage's blocks, as a decoder writing into them does, and keeping each
 * output (what an encoder reads) without a copy. */
static double pipeline_fps(clv_context *ctx, const clv_chain_desc *desc, const pipeline_spec *ps,
                           clv_stage_times *steps, clv_stage_device *shares, pipeline_host *host,
                           clv_msg *msg)
{
    clv_chain *chain = NULL;
    clv_stage *stage = NULL;
    double fps = -1;
    const int w = ps->w, h = ps->h, frames = ps->frames;
    size_t size = clv_pixfmt_size(CLV_PIX_YUV420P, w, h);
    uint8_t *frame = NULL;
    clv_stage_options o = {.struct_size = sizeof(clv_stage_options),
                           .width = w,
                           .height = h,
                           .in_format = CLV_PIX_YUV420P,
                           .out_format = ps->out_format,
                           .in_color = {CLV_MATRIX_BT709, 0},
                           .out_color = {CLV_MATRIX_BT709, 0},
                           .slots = ps->slots,
                           .profiling = 1};
    frame = malloc(size);
    /* --blocks: every slot of every device in flight, and two more being
     * written, as a decoder's pool holds. */
    enum { RING_MAX = 16 * CLV_DEVICES_MAX + 2 };
    clv_block *ring[RING_MAX] = {NULL};
    const int ring_size = ps->slots * clv_context_device_count(ctx) + 2;
    int blocks_in = 0, kept_out = 1;
    size_t plane_off[3] = {0, (size_t)w * h, (size_t)w * h + (size_t)((w + 1) / 2) * ((h + 1) / 2)};
    int plane_stride[3] = {w, (w + 1) / 2, (w + 1) / 2};
    copier copy;
    /* `writers` threads per device write the frames (a decoder's threads),
     * the same number for each device alone and together. */
    copier_start(&copy, ps->writers * clv_context_device_count(ctx) - 1);
    if (!frame || clv_chain_create(ctx, desc, &chain, msg))
        goto done;
    clv_chain_set_filter_timing(chain, 0); /* as the transcode: the stage's times only */
    if (clv_stage_create(ctx, &o, chain, &stage, msg))
        goto done;
    for (size_t i = 0; !ps->picture && i < size; i++)
        frame[i] = (uint8_t)(16 + (i * 2654435761u >> 24) % 220);
    /* The ring written once, before anything is timed (a clip's pictures
     * in turn, as many as the ring holds). */
    blocks_in = ps->blocks;
    for (int i = 0; ps->blocks && i < ring_size; i++) {
        if (!(ring[i] = clv_stage_block_new(stage, size))) {
            blocks_in = 0; /* this stage gives none: copies, reported as such */
            break;
        }
        memcpy(clv_block_pixels(ring[i]),
               ps->picture ? ps->picture + (size_t)(i % ps->pictures) * size : frame, size);
    }
    double start = 0, t0, t1, t2;
    pipeline_host spent = {0};
    int submitted = 0, taken = 0, warm = 3;
    while (taken < frames + warm) {
        uint8_t *slot = submitted < frames + warm ? clv_stage_input(stage) : NULL;
        int timed = taken >= warm;
        if (slot && blocks_in) {
            t1 = now_ms();
            if (clv_stage_submit_block(stage, (uint64_t)submitted, ring[submitted % ring_size],
                                       plane_off, plane_stride, msg))
                goto done;
            submitted++;
            spent.submit_ms += timed ? now_ms() - t1 : 0;
            continue;
        }
        if (slot) {
            t0 = now_ms();
            copier_copy(&copy, slot,
                        ps->picture
                            ? ps->picture + (size_t)(submitted / ps->rate % ps->pictures) * size
                            : frame,
                        size);
            t1 = now_ms();
            if (clv_stage_submit(stage, (uint64_t)submitted++, msg))
                goto done;
            t2 = now_ms();
            spent.copy_ms += timed ? t1 - t0 : 0;
            spent.submit_ms += timed ? t2 - t1 : 0;
            continue;
        }
        const uint8_t *out;
        t0 = now_ms();
        if (clv_stage_output(stage, &out, NULL, msg))
            goto done;
        spent.wait_ms += timed ? now_ms() - t0 : 0;
        if (ps->blocks) {
            clv_block *kept = clv_stage_keep(stage);
            kept_out = kept_out && kept;
            clv_block_free(kept); /* the encoder done with it: back to the stage's spares */
        }
        clv_stage_release(stage);
        if (++taken == warm)
            start = now_ms();
    }
    fps = frames / ((now_ms() - start) / 1e3);
    if (host) {
        host->copy_ms = spent.copy_ms / frames;
        host->submit_ms = spent.submit_ms / frames;
        host->wait_ms = spent.wait_ms / frames;
    }
    if (steps)
        clv_stage_get_times(stage, steps);
    if (host) {
        host->fused = clv_stage_fused_frames(stage) > 0;
        host->blocks_in = blocks_in;
        host->kept_out = ps->blocks && kept_out;
    }
    for (int d = 0; shares && d < clv_stage_device_count(stage); d++)
        clv_stage_device_stats(stage, d, &shares[d]);
done:
    copier_stop(&copy);
    clv_stage_destroy(stage);
    for (int i = 0; i < ring_size && i < RING_MAX; i++)
        clv_block_free(ring[i]);
    clv_chain_destroy(chain);
    free(frame);
    return fps;
}

/* --blocks over several devices: a stage per device, each on its own
 * thread, all at once (what one process gets when each device's frames are
 * submitted by a thread of their own rather than by one thread for all). */
typedef struct together_arg {
    clv_context *ctx;
    const clv_chain_desc *desc;
    const pipeline_spec *ps;
    double fps;
    clv_msg msg;
} together_arg;

static void *together_main(void *p)
{
    together_arg *a = p;
    a->fps = pipeline_fps(a->ctx, a->desc, a->ps, NULL, NULL, NULL, &a->msg);
    return NULL;
}

/* The frames of all the devices' threads over the wall time from their
 * start to the last one's end (set-up and warm-up counted: a lower bound),
 * and the sum of each thread's own rate into *sum; -1 when one failed. */
static double together_fps(clv_context **ctx, int devices, const clv_chain_desc *desc,
                           const pipeline_spec *ps, double *sum, clv_msg *msg)
{
    together_arg arg[CLV_DEVICES_MAX];
    pthread_t thread[CLV_DEVICES_MAX];
    int started = 0;
    double t0 = now_ms();
    for (; started < devices; started++) {
        arg[started] = (together_arg){ctx[started], desc, ps, -1, {{0}}};
        if (pthread_create(&thread[started], NULL, together_main, &arg[started]))
            break;
    }
    for (int d = 0; d < started; d++)
        pthread_join(thread[d], NULL);
    double wall = now_ms() - t0;
    *sum = 0;
    for (int d = 0; d < started; d++) {
        if (arg[d].fps < 0) {
            *msg = arg[d].msg;
            return -1;
        }
        *sum += arg[d].fps;
    }
    if (started < devices) {
        snprintf(msg->text, sizeof msg->text, "could not start a thread a device");
        return -1;
    }
    return (double)ps->frames * devices / (wall / 1e3);
}

/* Start-up: from `since` (before the device was opened) to one frame out
 * of a new chain and stage: the device, its kernels (built or loaded from
 * the cache) and one frame through. */
static double first_frame_ms(clv_context *ctx, const clv_chain_desc *desc, int w, int h,
                             clv_pixfmt out_format, double since, clv_msg *msg)
{
    clv_chain *chain = NULL;
    clv_stage *stage = NULL;
    double ms = -1;
    clv_stage_options o = {.struct_size = sizeof(clv_stage_options),
                           .width = w,
                           .height = h,
                           .in_format = CLV_PIX_YUV420P,
                           .out_format = out_format,
                           .in_color = {CLV_MATRIX_BT709, 0},
                           .out_color = {CLV_MATRIX_BT709, 0}};
    const uint8_t *out;
    if (clv_chain_create(ctx, desc, &chain, msg) || clv_stage_create(ctx, &o, chain, &stage, msg))
        goto done;
    memset(clv_stage_input(stage), 128, clv_pixfmt_size(CLV_PIX_YUV420P, w, h));
    if (clv_stage_submit(stage, 0, msg) || clv_stage_output(stage, &out, NULL, msg))
        goto done;
    ms = now_ms() - since;
done:
    clv_stage_destroy(stage);
    clv_chain_destroy(chain);
    return ms;
}

/* Frees what main parsed and returns status (a program's leaks are
 * reported by LeakSanitizer at exit). */
static int bench_end(clv_chain_desc *desc, clv_chain_desc *none, int status)
{
    clv_chain_desc_destroy(desc);
    clv_chain_desc_destroy(none);
    return status;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A noise frame (alpha opaque) from seed. */
static void noise_image(clv_image *img, uint32_t seed)
{
    uint32_t state = seed | 1u;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width * 4; x++) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            int v = x % 4 == 3 ? 65535 : (int)(state >> 16);
            if (img->depth == 16)
                ((uint16_t *)(void *)(img->pixels + (size_t)y * img->stride))[x] = (uint16_t)v;
            else
                img->pixels[(size_t)y * img->stride + (size_t)x] = (uint8_t)(v >> 8);
        }
}

/* --graph: the graph over noise frames (each input its own, so no input is
 * read from another's cache), each frame run to its end: the median wall
 * time a frame. Then the throughput: `frames` runs enqueued back to back,
 * against as many device copies of one input frame (the copy bandwidth: a
 * frame read and one written); the graph's share of it counts the frames
 * its inputs read and its output written. */
static int bench_graph(clv_context *ctx, const char *text, int w, int h, int depth, int frames,
                       int warmup, int json)
{
    clv_msg msg = {{0}};
    clv_graph_desc *desc = NULL;
    clv_graph *graph = NULL;
    clv_image img = {0};
    clv_frame src[CLV_GRAPH_INPUTS] = {{0}}, dst = {0}, copy = {0};
    double *ms = calloc((size_t)frames, sizeof *ms);
    int status = 1;
    if (clv_graph_parse(text, CLV_GRAPH_INPUTS, NULL, &desc, &msg)) {
        fprintf(stderr, "clvid-bench: %s\n", msg.text);
        status = 2;
        goto done;
    }
    if (!ms || clv_image_alloc_depth(&img, w, h, depth)) {
        fprintf(stderr, "clvid-bench: out of memory for a %dx%d frame\n", w, h);
        goto done;
    }
    clv_size in[CLV_GRAPH_INPUTS], out;
    const clv_frame *inputs[CLV_GRAPH_INPUTS] = {NULL};
    int used = 0;
    for (int k = 0; k < CLV_GRAPH_INPUTS; k++)
        in[k] = (clv_size){.width = w, .height = h, .sar_den = 1};
    if (clv_graph_create(ctx, desc, depth, &graph, &msg) ||
        clv_graph_output_size(graph, in, &out, &msg) ||
        clv_frame_create_depth(ctx, out.width, out.height, depth, &dst, &msg) ||
        clv_frame_create_depth(ctx, w, h, depth, &copy, &msg)) {
        fprintf(stderr, "clvid-bench: %s\n", msg.text);
        goto done;
    }
    for (int k = 0; k < CLV_GRAPH_INPUTS; k++) {
        if (!clv_graph_desc_uses(desc, k))
            continue;
        used++;
        noise_image(&img, 0x12345678u + 977u * (uint32_t)k);
        if (clv_frame_create_depth(ctx, w, h, depth, &src[k], &msg) ||
            clv_frame_upload(ctx, &src[k], &img)) {
            fprintf(stderr, "clvid-bench: cannot make the test frame of input %d: %s\n", k,
                    msg.text);
            goto done;
        }
        inputs[k] = &src[k];
    }
    for (int f = 0; f < warmup + frames; f++) {
        double t0 = now_ms();
        if (clv_graph_run(graph, inputs, &dst, (uint64_t)f, f / 25.0, NULL, NULL, &msg)) {
            fprintf(stderr, "clvid-bench: %s\n", msg.text);
            goto done;
        }
        clFinish(clv_context_queue(ctx));
        if (f >= warmup)
            ms[f - warmup] = now_ms() - t0;
    }
    qsort(ms, (size_t)frames, sizeof *ms, cmp_double);
    double median = ms[frames / 2];
    /* Back to back: the best of three rounds of `frames` each. */
    cl_command_queue q = clv_context_queue(ctx);
    const clv_frame *first = NULL;
    for (int k = 0; k < CLV_GRAPH_INPUTS && !first; k++)
        first = inputs[k];
    size_t frame_bytes = (size_t)first->stride * (size_t)h * (depth == 16 ? 8u : 4u);
    double run_ms = 1e30, copy_ms = 1e30;
    for (int round = 0; round < 3; round++) {
        clFinish(q);
        double t0 = now_ms();
        for (int f = 0; f < frames; f++)
            if (clv_graph_run(graph, inputs, &dst, (uint64_t)f, f / 25.0, NULL, NULL, &msg)) {
                fprintf(stderr, "clvid-bench: %s\n", msg.text);
                goto done;
            }
        clFinish(q);
        double t1 = now_ms();
        for (int f = 0; f < frames; f++)
            if (clEnqueueCopyBuffer(q, first->buffer, copy.buffer, 0, 0, frame_bytes, 0, NULL,
                                    NULL) != CL_SUCCESS) {
                fprintf(stderr, "clvid-bench: the device copy failed\n");
                goto done;
            }
        clFinish(q);
        double t2 = now_ms();
        run_ms = fmin(run_ms, (t1 - t0) / frames);
        copy_ms = fmin(copy_ms, (t2 - t1) / frames);
    }
    /* Bytes a frame of the graph moves at least: each input read once, the
     * output written once. */
    double px = (double)w * h, out_px = (double)out.width * out.height;
    double bpp = depth == 16 ? 8.0 : 4.0;
    double graph_gbs = (used * px + out_px) * bpp / (run_ms * 1e6);
    double copy_gbs = 2.0 * px * bpp / (copy_ms * 1e6);
    if (json) {
        printf("{\"device\": ");
        clv_bench_json_string(clv_context_device(ctx)->name);
        printf(", \"width\": %d, \"height\": %d, \"depth\": %d, \"frames\": %d, \"inputs\": %d, "
               "\"out_width\": %d, \"out_height\": %d, \"graph\": ",
               w, h, depth, frames, used, out.width, out.height);
        clv_bench_json_string(text);
        printf(", \"ms_per_frame\": %.3f, \"fps\": %.1f, \"back_to_back_ms\": %.4f, "
               "\"copy_ms\": %.4f, \"gb_per_s\": %.1f, \"copy_gb_per_s\": %.1f, "
               "\"copy_share\": %.3f}\n",
               median, 1000.0 / median, run_ms, copy_ms, graph_gbs, copy_gbs, graph_gbs / copy_gbs);
    } else {
        printf("clvid-bench --graph: %d input%s of %dx%d at %d bits -> %dx%d on %s, %d frames\n",
               used, used == 1 ? "" : "s", w, h, depth, out.width, out.height,
               clv_context_device(ctx)->name, frames);
        printf("  '%s': %.3f ms a frame (median, each frame to its end), %.1f frames/s\n", text,
               median, 1000.0 / median);
        printf("  back to back: %.1f us a frame, %.1f GB/s (inputs read + output written); a "
               "device copy of one frame %.1f us, %.1f GB/s: %.0f%% of copy bandwidth\n",
               run_ms * 1000, graph_gbs, copy_ms * 1000, copy_gbs, 100 * graph_gbs / copy_gbs);
    }
    status = 0;
done:
    for (int k = 0; k < CLV_GRAPH_INPUTS; k++)
        clv_frame_destroy(&src[k]);
    clv_frame_destroy(&dst);
    clv_frame_destroy(&copy);
    clv_image_free(&img);
    clv_graph_destroy(graph);
    clv_graph_desc_destroy(desc);
    free(ms);
    return status;
}

int main(int argc, char **argv)
{
    int w = 1920, h = 1080, frames = 20, warmup = 2, json = 0, shape = 0, pipeline = 0, writers = 1,
        slots = 3, depth = 8, smooth = 0, blocks = 0;
    clv_pixfmt out_format = CLV_PIX_YUV420P;
    char all_filters[1024];
    every_filter(all_filters, sizeof all_filters);
    const char *device = getenv("CLVID_DEVICE"), *chain_text = all_filters, *input = NULL,
               *graph_text = NULL, *hwaccel = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
            continue;
        } else if (!strcmp(a, "--pipeline")) {
            pipeline = 1;
            continue;
        } else if (!strcmp(a, "--blocks")) {
            blocks = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "clvid-bench: unknown option or missing value: %s\n", a);
            usage(stderr);
            return 2;
        }
        i++;
        char *end;
        if (!strcmp(a, "--size")) {
            if (parse_size(v, &w, &h)) {
                fprintf(stderr,
                        "clvid-bench: --size %s: expected WxH (1..16384 each), 720p, "
                        "1080p or 4k\n",
                        v);
                return 2;
            }
        } else if (!strcmp(a, "--device")) {
            device = v;
        } else if (!strcmp(a, "--out")) {
            if (strcmp(v, "rgba") && strcmp(v, "yuv420p")) {
                fprintf(stderr, "clvid-bench: --out %s: expected yuv420p or rgba\n", v);
                return 2;
            }
            out_format = strcmp(v, "rgba") ? CLV_PIX_YUV420P : CLV_PIX_RGBA;
        } else if (!strcmp(a, "--chain")) {
            chain_text = v;
        } else if (!strcmp(a, "--graph")) {
            graph_text = v;
        } else if (!strcmp(a, "--input")) {
            input = v;
        } else if (!strcmp(a, "--hwaccel")) {
#if CLVID_BENCH_VIDEO
            if (clv_bench_hwaccel_check(v))
                return 2;
            hwaccel = v;
#else
            fprintf(stderr,
                    "clvid-bench: --hwaccel %s: this clvid-bench was built without "
                    "FFmpeg (CLVID_CLI=OFF): it times raw RGBA only\n",
                    v);
            return 2;
#endif
        } else if (!strcmp(a, "--writers")) {
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 1 || n > 4) {
                fprintf(stderr, "clvid-bench: --writers %s: expected an integer from 1 to 4\n", v);
                return 2;
            }
            writers = (int)n;
        } else if (!strcmp(a, "--slots")) {
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 2 || n > 16) {
                fprintf(stderr, "clvid-bench: --slots %s: expected an integer from 2 to 16\n", v);
                return 2;
            }
            slots = (int)n;
        } else if (!strcmp(a, "--frames") || !strcmp(a, "--warmup")) {
            long n = strtol(v, &end, 10);
            int lo = !strcmp(a, "--frames") ? 1 : 0;
            if (*end || end == v || n < lo || n > 100000) {
                fprintf(stderr, "clvid-bench: %s %s: expected an integer from %d to 100000\n", a, v,
                        lo);
                return 2;
            }
            *(!strcmp(a, "--frames") ? &frames : &warmup) = (int)n;
        } else if (!strcmp(a, "--pattern")) {
            if (strcmp(v, "noise") && strcmp(v, "smooth")) {
                fprintf(stderr, "clvid-bench: --pattern %s: expected noise or smooth\n", v);
                return 2;
            }
            smooth = !strcmp(v, "smooth");
        } else if (!strcmp(a, "--depth")) {
            if (strcmp(v, "8") && strcmp(v, "16")) {
                fprintf(stderr, "clvid-bench: --depth %s: expected 8 or 16\n", v);
                return 2;
            }
            depth = atoi(v);
        } else if (!strcmp(a, "--shape")) {
            if (strcmp(v, "row") && strcmp(v, "gpu")) {
                fprintf(stderr, "clvid-bench: --shape %s: expected row or gpu\n", v);
                return 2;
            }
            shape = !strcmp(v, "row") ? 1 : 2;
        } else {
            fprintf(stderr, "clvid-bench: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
    }

    if (graph_text && (pipeline || input)) {
        fprintf(stderr, "clvid-bench: --graph times the graph on noise, not with --pipeline or "
                        "--input\n");
        return 2;
    }
    if (graph_text) {
        clv_context_options gopt = {
            .struct_size = sizeof(clv_context_options), .device = device, .shape = shape};
        char gcache[1024];
        clv_env_engine_settings(&gopt, gcache, sizeof gcache);
        clv_context *gctx = NULL;
        clv_msg gmsg = {{0}};
        int gerr = clv_context_create(&gopt, &gctx, &gmsg);
        if (gerr) {
            fprintf(stderr, "clvid-bench: %s\n", gmsg.text);
            return gerr == CLV_ENODEVICE ? 2 : 1;
        }
        int gstatus = bench_graph(gctx, graph_text, w, h, depth, frames, warmup, json);
        clv_context_destroy(gctx);
        return gstatus;
    }
    int video = input && input_is_video(input, w, h, pipeline);
    if (hwaccel && !video) {
        fprintf(stderr, "clvid-bench: --hwaccel %s decodes --input VIDEO (with --pipeline)%s%s\n",
                hwaccel, input ? "; this input is raw RGBA: " : "", input ? input : "");
        return 2;
    }
    if (video && !pipeline) {
        fprintf(stderr,
                "clvid-bench: --input %s is a video: it is timed through the GPU stage with "
                "--pipeline; the chain alone takes raw RGBA of --size (FILE.rgba)\n",
                input);
        return 2;
    }
    if (blocks && !pipeline) {
        fprintf(stderr, "clvid-bench: --blocks times the GPU stage: use it with --pipeline\n");
        return 2;
    }
    if (pipeline && depth == 16) {
        fprintf(stderr,
                "clvid-bench: --depth 16 times the chain alone, not with --pipeline (time a "
                "10-bit transcode with clvid transcode)\n");
        return 2;
    }
    clv_msg msg = {{0}};
    clv_chain_desc *desc = NULL;
    if (clv_chain_parse(chain_text, &desc, &msg)) {
        fprintf(stderr, "clvid-bench: %s\n", msg.text);
        return bench_end(desc, NULL, 2);
    }
    if (clv_chain_desc_count(desc) == 0) {
        fprintf(stderr, "clvid-bench: --chain is empty; name at least one filter\n");
        return bench_end(desc, NULL, 2);
    }
    /* A deinterlacer runs once per frame out: twice on each frame in with
     * send_field (the clip's frames advance every `rate` runs); its first
     * delay * rate runs (no frame yet) are among the untimed ones. The
     * figures are per frame out. */
    int delay = 0, rate = 1;
    if (clv_chain_desc_cadence(desc, &delay, &rate, &msg)) {
        fprintf(stderr, "clvid-bench: %s\n", msg.text);
        return bench_end(desc, NULL, 2);
    }
    if (warmup < delay * rate)
        warmup = delay * rate;
    double setup_start = now_ms();
    clv_context_options opt = {.struct_size = sizeof(clv_context_options),
                               .device = device,
                               .profiling = 1,
                               .shape = shape};
    /* As the clvid command: the binary cache, CLVID_NO_CACHE, CLVID_KERNEL_DIR... */
    char cache_dir[1024];
    clv_env_engine_settings(&opt, cache_dir, sizeof cache_dir);
    clv_context *ctx = NULL;
    int err = clv_context_create(&opt, &ctx, &msg);
    if (err) {
        fprintf(stderr, "clvid-bench: %s\n", msg.text);
        return bench_end(desc, NULL, err == CLV_ENODEVICE ? 2 : 1);
    }
    int status = 1;
#if CLVID_BENCH_VIDEO
    if (video) {
        clv_bench_video v = {input, hwaccel, chain_text, frames, out_format, json};
        status = clv_bench_video_run(ctx, desc, &v);
        clv_context_destroy(ctx);
        return bench_end(desc, NULL, status);
    }
#endif
    if (pipeline) {
        clv_chain_desc *none = clv_chain_desc_slice(desc, 0, 0);
        clv_stage_times t = {0};
        int devices = clv_context_device_count(ctx);
        double first_ms = first_frame_ms(ctx, desc, w, h, out_format, setup_start, &msg);
        if (first_ms < 0) {
            fprintf(stderr, "clvid-bench: %s\n", msg.text);
            clv_context_destroy(ctx);
            return bench_end(desc, none, 1);
        }
        pipeline_spec spec = {w, h, frames, writers, out_format, NULL, 0, rate, 0, slots};
        uint8_t *picture = NULL;
        if (input) {
            /* Natural pictures, as a decoder's yuv420p frames. */
            int count = 0;
            uint8_t *rgba = read_pictures(input, w, h, &count);
            size_t size = clv_pixfmt_size(CLV_PIX_YUV420P, w, h);
            picture = rgba ? malloc(size * (size_t)count) : NULL;
            if (rgba && !picture)
                fprintf(stderr, "clvid-bench: out of memory for %d %dx%d frames\n", count, w, h);
            for (int i = 0; picture && i < count; i++) {
                clv_image one = clip_frame(rgba, i, w, h);
                clv_ref_from_rgba(CLV_PIX_YUV420P, (clv_color){CLV_MATRIX_BT709, 0}, &one,
                                  picture + (size_t)i * size);
            }
            free(rgba);
            if (!picture) {
                clv_context_destroy(ctx);
                return bench_end(desc, none, 1);
            }
            spec.picture = picture;
            spec.pictures = count;
        }
        double alone[CLV_DEVICES_MAX] = {0};
        clv_stage_device shares[CLV_DEVICES_MAX] = {{0}};
        char names[1200];
        clv_context *alone_ctx[CLV_DEVICES_MAX] = {0};
        for (int d = 0; devices > 1 && d < devices; d++) {
            char index[16];
            snprintf(index, sizeof index, "%d", clv_context_device_at(ctx, d)->index);
            clv_context_options one = opt;
            one.device = index;
            if (clv_context_create(&one, &alone_ctx[d], &msg)) {
                fprintf(stderr, "clvid-bench: %s\n", msg.text);
                free(picture);
                return bench_end(desc, none, 1);
            }
        }
        size_t used = 0;
        names[0] = 0;
        for (int d = 0; d < devices && used < sizeof names; d++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", d ? " + " : "",
                                     clv_context_device_at(ctx, d)->name);
        /* Both in turns, three times, the best of each: the host's own
         * memory speed drifts between runs and moves both alike. */
        double bound = 0, fps = 0, bbound = 0, bfps = 0;
        pipeline_host host = {0}, bhost = {0};
        /* --blocks over several devices: each alone from its own blocks too. */
        double balone[CLV_DEVICES_MAX] = {0};
        /* --blocks over several devices: a stage and a thread a device. */
        double bthreads_sum = 0, bthreads_wall = 0, bthreads_bound = 0;
        clv_stage_device bshares[CLV_DEVICES_MAX] = {{0}};
        pipeline_spec bspec = spec;
        bspec.blocks = 1;
        for (int round = 0; round < PIPELINE_ROUNDS && fps >= 0; round++) {
            clv_stage_times rt = {0};
            clv_stage_device rs[CLV_DEVICES_MAX] = {{0}};
            pipeline_host rh = {0};
            double b = pipeline_fps(ctx, none, &spec, NULL, NULL, NULL, &msg);
            double f = b > 0 ? pipeline_fps(ctx, desc, &spec, &rt, rs, &rh, &msg) : -1;
            /* Several devices: each alone too, in the same turns. */
            for (int d = 0; f >= 0 && devices > 1 && d < devices; d++) {
                double one = pipeline_fps(alone_ctx[d], desc, &spec, NULL, NULL, NULL, &msg);
                if (one < 0)
                    f = -1;
                else if (one > alone[d])
                    alone[d] = one;
            }
            if (f < 0) {
                fps = -1;
                break;
            }
            /* --blocks: the same chain and its bound from the stage's blocks. */
            pipeline_host bh = {0};
            clv_stage_device brs[CLV_DEVICES_MAX] = {{0}};
            double bb = blocks ? pipeline_fps(ctx, none, &bspec, NULL, NULL, NULL, &msg) : 0;
            double bf =
                blocks && bb > 0 ? pipeline_fps(ctx, desc, &bspec, NULL, brs, &bh, &msg) : 0;
            for (int d = 0; blocks && bf >= 0 && devices > 1 && d < devices; d++) {
                double one = pipeline_fps(alone_ctx[d], desc, &bspec, NULL, NULL, NULL, &msg);
                if (one < 0)
                    bf = -1;
                else if (one > balone[d])
                    balone[d] = one;
            }
            if (blocks && bf >= 0 && devices > 1) {
                double sum = 0, all = together_fps(alone_ctx, devices, desc, &bspec, &sum, &msg);
                double bsum = 0;
                if (all < 0 || together_fps(alone_ctx, devices, none, &bspec, &bsum, &msg) < 0)
                    bf = -1;
                else {
                    if (sum > bthreads_sum) {
                        bthreads_sum = sum;
                        bthreads_wall = all;
                    }
                    bthreads_bound = bsum > bthreads_bound ? bsum : bthreads_bound;
                }
            }
            if (blocks && (bb < 0 || bf < 0)) {
                fps = -1;
                break;
            }
            bbound = bb > bbound ? bb : bbound;
            if (bf > bfps) {
                bfps = bf;
                bhost = bh;
                memcpy(bshares, brs, sizeof bshares);
            }
            bound = b > bound ? b : bound;
            if (f > fps) {
                fps = f;
                t = rt;
                host = rh;
                memcpy(shares, rs, sizeof shares);
            }
        }
        double best_alone = 0;
        for (int d = 0; d < devices; d++)
            best_alone = alone[d] > best_alone ? alone[d] : best_alone;
        double n = t.frames ? (double)t.frames : 1;
        /* Which path the --blocks figures took, in words. */
        const int shared = clv_context_shared_staging(ctx);
        const char *in_path = !bhost.blocks_in ? "copies" : shared ? "shared" : "pinned";
        const char *in_words =
            !bhost.blocks_in ? "copied into the staging (the stage gave no blocks)"
            : shared         ? "the stage's shared-memory blocks, read in place by the kernels"
                             : "the stage's pinned blocks, uploaded from them (no host copy)";
        const char *out_words =
            !bhost.kept_out ? "not kept (a reader would copy them out)"
            : shared        ? "kept where the kernels wrote them (shared memory), then freed"
                            : "kept in the pinned memory the download landed in, then freed";
        if (fps < 0) {
            fprintf(stderr, "clvid-bench: %s\n", msg.text);
        } else if (json) {
            printf("{\"device\": ");
            clv_bench_json_string(names);
            printf(
                ", \"width\": %d, \"height\": %d, \"frames\": %d, \"slots\": %d, \"out\": \"%s\", "
                "\"chain\": ",
                w, h, frames, slots, clv_pixfmt_name(out_format));
            clv_bench_json_string(chain_text);
            printf(", \"pipeline_fps\": %.1f, \"transfer_bound_fps\": %.1f, "
                   "\"fraction\": %.3f, \"upload_ms\": %.3f, \"kernels_ms\": %.3f, "
                   "\"download_ms\": %.3f, \"first_frame_ms\": %.1f, \"staging\": \"%s\", "
                   "\"host_copy_ms\": %.3f, \"host_submit_ms\": %.3f, \"host_wait_ms\": %.3f, "
                   "\"fused\": %s, \"picture\": ",
                   fps, bound, fps / bound, (double)t.upload_ns / 1e6 / n,
                   (double)t.kernels_ns / 1e6 / n, (double)t.download_ns / 1e6 / n, first_ms,
                   clv_context_shared_staging(ctx) ? "shared" : "copied", host.copy_ms,
                   host.submit_ms, host.wait_ms, host.fused ? "true" : "false");
            clv_bench_json_string(input ? input : "pattern");
            if (blocks)
                printf(", \"blocks\": {\"fps\": %.1f, \"transfer_bound_fps\": %.1f, "
                       "\"fraction\": %.3f, \"in\": \"%s\", \"out\": \"%s\", "
                       "\"host_submit_ms\": %.3f, \"host_wait_ms\": %.3f}",
                       bfps, bbound, bbound > 0 ? bfps / bbound : 0.0, in_path,
                       bhost.kept_out ? (shared ? "kept shared" : "kept pinned") : "copies",
                       bhost.submit_ms, bhost.wait_ms);
            if (blocks && devices > 1)
                printf(", \"blocks_threads\": {\"sum_fps\": %.1f, \"wall_fps\": %.1f, "
                       "\"transfer_bound_fps\": %.1f}",
                       bthreads_sum, bthreads_wall, bthreads_bound);
            if (blocks && devices > 1) {
                printf(", \"blocks_alone_fps\": [");
                for (int d = 0; d < devices; d++)
                    printf("%s%.1f", d ? ", " : "", balone[d]);
                printf("]");
            }
            if (devices > 1) {
                printf(", \"scaling\": %.3f, \"devices\": [", fps / best_alone);
                for (int d = 0; d < devices; d++) {
                    printf("%s{\"name\": ", d ? ", " : "");
                    clv_bench_json_string(shares[d].name ? shares[d].name : "");
                    printf(", \"alone_fps\": %.1f, \"frames\": %llu, \"share_fps\": %.1f, "
                           "\"ms_per_frame\": %.3f}",
                           alone[d], (unsigned long long)shares[d].frames,
                           fps * (double)shares[d].frames / n,
                           shares[d].frames ? shares[d].busy_ms / (double)shares[d].frames : 0.0);
                }
                printf("]");
            }
            printf("}\n");
            status = 0;
        } else {
            printf("clvid-bench --pipeline: %dx%d yuv420p -> %s on %s, %d frames, %d slots, %s "
                   "staging, picture %s\n",
                   w, h, clv_pixfmt_name(out_format), names, frames, slots,
                   clv_context_shared_staging(ctx) ? "shared" : "copied",
                   input ? input : "a hashed pattern");
            if (blocks)
                printf("  copies (each frame copied into clv_stage_input, read out of the "
                       "staging):\n");
            printf("  upload + '%s' + download: %8.1f frames/s\n", chain_text, fps);
            for (int d = 0; devices > 1 && d < devices; d++)
                printf("    device %d %-28.28s alone %8.1f frames/s; together %5.1f%% of the "
                       "frames (%.1f frames/s), %.2f ms/frame\n",
                       clv_context_device_at(ctx, d)->index, shares[d].name ? shares[d].name : "",
                       alone[d], 100.0 * (double)shares[d].frames / n,
                       fps * (double)shares[d].frames / n,
                       shares[d].frames ? shares[d].busy_ms / (double)shares[d].frames : 0.0);
            if (devices > 1)
                printf("  scaling over the fastest device alone: %.2fx\n", fps / best_alone);
            printf("  upload + download only:   %8.1f frames/s (the transfer bound)\n", bound);
            printf("  start-up: the first frame %.0f ms after the device was asked for (device, "
                   "kernels built or loaded, one frame through)\n",
                   first_ms);
            printf("  fraction of the bound:    %8.1f%%\n", 100 * fps / bound);
            printf("  per frame (device time): upload %.3f ms, conversions + chain %.3f ms "
                   "(to rgba %.3f, from rgba %.3f%s), download %.3f ms\n",
                   (double)t.upload_ns / 1e6 / n, (double)t.kernels_ns / 1e6 / n,
                   (double)t.to_rgba_ns / 1e6 / n, (double)t.from_rgba_ns / 1e6 / n,
                   host.fused ? ", the filter's passes in them" : "",
                   (double)t.download_ns / 1e6 / n);
            printf("  per frame (the submitting thread): copy into staging %.3f ms, "
                   "clv_stage_submit %.3f ms, waiting in clv_stage_output %.3f ms\n",
                   host.copy_ms, host.submit_ms, host.wait_ms);
            if (blocks) {
                printf("  blocks (--blocks: %d frames written once into a ring of %d blocks, "
                       "no host copy a frame):\n",
                       frames, slots * devices + 2);
                printf("    in:  %s%s\n", in_words,
                       devices > 1 && bhost.blocks_in ? "; the first device's, sent to each" : "");
                printf("    out: %s\n", out_words);
                printf("  upload + '%s' + download: %8.1f frames/s (%.2fx the copies' %.1f)\n",
                       chain_text, bfps, fps > 0 ? bfps / fps : 0.0, fps);
                /* Shared staging with nothing to do copies the block into the
                 * staging (the kernels' copy needs no conversion). */
                printf("  upload + download only:   %8.1f frames/s (the transfer bound from "
                       "blocks%s; the copies' %.1f)\n",
                       bbound, shared ? ", each copied into the staging as no kernel reads it" : "",
                       bound);
                double bbest = 0, bn = 0;
                for (int d = 0; d < devices; d++) {
                    bbest = balone[d] > bbest ? balone[d] : bbest;
                    bn += (double)bshares[d].frames;
                }
                for (int d = 0; devices > 1 && d < devices; d++)
                    printf("    device %d %-28.28s alone %8.1f frames/s; together %5.1f%% of the "
                           "frames\n",
                           d, bshares[d].name ? bshares[d].name : "?", balone[d],
                           bn > 0 ? 100.0 * (double)bshares[d].frames / bn : 0.0);
                if (devices > 1 && bbest > 0)
                    printf("  scaling over the fastest device alone: %.2fx\n", bfps / bbest);
                if (devices > 1 && bbest > 0)
                    printf("  a stage and a thread a device, all at once: %8.1f frames/s by "
                           "the sum of their rates (%.2fx), %.1f over the wall time with "
                           "set-up; their transfer bound %.1f\n",
                           bthreads_sum, bthreads_sum / bbest, bthreads_wall, bthreads_bound);
                printf("  fraction of the bound:    %8.1f%%\n",
                       bbound > 0 ? 100 * bfps / bbound : 0.0);
                printf("  per frame (the submitting thread): clv_stage_submit_block %.3f ms, "
                       "waiting in clv_stage_output %.3f ms\n",
                       bhost.submit_ms, bhost.wait_ms);
            }
            status = 0;
        }
        for (int d = 0; d < devices; d++)
            clv_context_destroy(alone_ctx[d]);
        clv_context_destroy(ctx);
        free(picture);
        return bench_end(desc, none, status);
    }
    clv_chain *chain = NULL;
    clv_frame src = {0}, dst = {0};
    clv_image img = {0};
    uint8_t *pictures = NULL;
    int picture_count = 0;
    uint64_t *ns = calloc((size_t)frames * (size_t)clv_chain_desc_count(desc), sizeof *ns);
    if (!ns || clv_image_alloc_depth(&img, w, h, depth)) {
        fprintf(stderr, "clvid-bench: out of memory for a %dx%d frame\n", w, h);
        goto done;
    }
    if (input && depth == 16) {
        fprintf(stderr, "clvid-bench: --input takes 8-bit pictures; --depth 16 times on noise\n");
        goto done;
    } else if (input) {
        /* Natural pictures: what quantize and equalize take depends on them. */
        if (!(pictures = read_pictures(input, w, h, &picture_count)))
            goto done;
        clv_image_free(&img);
        img = clip_frame(pictures, 0, w, h); /* a view: not freed */
    } else if (depth == 16 || smooth) {
        /* noise, or smooth: each channel a slow wave of x and y over most of
         * the range, plus +-1/512 of it of noise */
        uint32_t state = 0x12345678u;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int c = 0; c < 4; c++) {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    double wave =
                        0.5 + 0.45 * sin((x * (c + 1) * 0.7 + y * (3 - c) * 0.9) / w * 6.2832 + c);
                    int v =
                        smooth ? (int)(wave * 65535) + (int)(state >> 25) - 64 : (int)(state >> 16);
                    v = c == 3 ? 65535 : v < 0 ? 0 : v > 65535 ? 65535 : v;
                    size_t at = ((size_t)y * w + x) * 4 + (size_t)c;
                    if (depth == 16)
                        ((uint16_t *)(void *)img.pixels)[at] = (uint16_t)v;
                    else
                        img.pixels[at] = (uint8_t)(v >> 8);
                }
    } else {
        /* xorshift32: a noisy frame, opaque as decoded video is */
        uint32_t state = 0x12345678u;
        for (size_t i = 0; i < (size_t)w * h * 4; i++) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            img.pixels[i] = i % 4 == 3 ? 255 : (uint8_t)(state >> 24);
        }
    }
    /* The destination is of the chain's size (scale, crop... change it). */
    clv_size in_size = {w, h, 0, 1, 0, 0, 0}, out_size;
    if (clv_chain_create_depth(ctx, desc, depth, &chain, &msg) ||
        clv_chain_output_size(chain, &in_size, &out_size, &msg) ||
        clv_frame_create_depth(ctx, w, h, depth, &src, &msg) ||
        clv_frame_create_depth(ctx, out_size.width, out_size.height, depth, &dst, &msg)) {
        fprintf(stderr, "clvid-bench: %s\n", msg.text);
        goto done;
    }
    double setup_ms = now_ms() - setup_start; /* device, kernels (built or cached), frames */
    if (clv_frame_upload(ctx, &src, &img)) {
        fprintf(stderr, "clvid-bench: cannot upload the test frame\n");
        goto done;
    }
    /* The device's own copy bandwidth, measured in the same run: a frame
     * copied buffer to buffer (read once, written once). */
    double copy_gbs = 0;
    {
        uint64_t *copy_ns = calloc((size_t)frames, sizeof *copy_ns);
        size_t px = depth == 16 ? 8 : 4;
        size_t bytes = (size_t)src.stride * (size_t)h * px;
        if (bytes > (size_t)dst.stride * (size_t)dst.height * px) /* a chain that shrinks */
            bytes = (size_t)dst.stride * (size_t)dst.height * px;
        for (int f = 0; copy_ns && f < warmup + frames; f++) {
            cl_event e = NULL;
            cl_ulong a = 0, b = 0;
            if (clEnqueueCopyBuffer(clv_context_queue(ctx), src.buffer, dst.buffer, 0, 0, bytes, 0,
                                    NULL, &e) != CL_SUCCESS ||
                clWaitForEvents(1, &e) != CL_SUCCESS) {
                if (e)
                    clReleaseEvent(e);
                break;
            }
            clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
            clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
            clReleaseEvent(e);
            if (f >= warmup)
                copy_ns[f - warmup] = b > a ? b - a : 0;
        }
        if (copy_ns) {
            qsort(copy_ns, (size_t)frames, sizeof *copy_ns, cmp_u64);
            double med = (double)copy_ns[frames / 2];
            copy_gbs = med > 0 ? 2.0 * (double)bytes / med : 0;
        }
        free(copy_ns);
    }
    for (int f = 0; f < warmup + frames; f++) {
        uint64_t t[CLV_CHAIN_MAX];
        if (picture_count > 1) { /* a clip: its frames in turn (the upload is not timed) */
            clv_image one = clip_frame(pictures, f / rate % picture_count, w, h);
            if (clv_frame_upload(ctx, &src, &one)) {
                fprintf(stderr, "clvid-bench: cannot upload frame %d of the clip\n", f);
                goto done;
            }
        }
        if (clv_chain_run(chain, &src, &dst, (uint64_t)f, NULL, NULL, &msg) ||
            clv_chain_profile(chain, t, clv_chain_desc_count(desc))) {
            fprintf(stderr, "clvid-bench: %s\n", msg.text[0] ? msg.text : "profiling failed");
            goto done;
        }
        if (f >= warmup)
            for (int i = 0; i < clv_chain_desc_count(desc); i++)
                ns[(size_t)i * frames + (f - warmup)] = t[i];
    }

    const clv_device_info *dev = clv_context_device(ctx);
    double total_us = 0;
    if (json) {
        printf("{\"device\": ");
        clv_bench_json_string(dev->name);
        printf(", \"platform\": ");
        clv_bench_json_string(dev->platform);
        printf(", \"shape\": \"%s\", \"width\": %d, \"height\": %d, \"depth\": %d, "
               "\"frames\": %d, \"setup_ms\": %.1f, \"copy_gb_per_s\": %.3f, \"picture\": ",
               clv_context_row_shape(ctx) ? "row" : "gpu", w, h, depth, frames, setup_ms, copy_gbs);
        clv_bench_json_string(input ? input : smooth ? "smooth" : "noise");
        printf(", \"pictures\": %d, \"filters\": [", input ? picture_count : 0);
    } else {
        printf("clvid-bench: %dx%d %d-bit %s%s on %s (%s), %s shape, median of %d frames\n", w, h,
               depth,
               input    ? input
               : smooth ? "smooth gradients"
                        : "noise",
               picture_count > 1 ? " (a clip, its frames in turn)" : "", dev->name, dev->platform,
               clv_context_row_shape(ctx) ? "row" : "gpu", frames);
        printf("setup (device, kernels built or loaded from the cache, frames): %.0f ms\n",
               setup_ms);
        printf("device copy bandwidth (clEnqueueCopyBuffer of a frame): %.2f GB/s\n", copy_gbs);
        if (delay)
            printf("a deinterlacer: a run per frame out (%s), the times per frame out\n",
                   rate == 2 ? "send_field: two per frame in, the second from the frames kept"
                             : "send_frame: one per frame in");
        printf("\n");
        printf("%-4s %-40s %12s %10s %10s %10s %8s\n", "#", "filter", "median us", "min us",
               "Mpixel/s", "GB/s", "of copy");
    }
    for (int i = 0; i < clv_chain_desc_count(desc); i++) {
        uint64_t *t = ns + (size_t)i * frames;
        qsort(t, (size_t)frames, sizeof *t, cmp_u64);
        double med = (frames % 2 ? (double)t[frames / 2]
                                 : ((double)t[frames / 2 - 1] + (double)t[frames / 2]) / 2) /
                     1e3;
        double lo = (double)t[0] / 1e3, hi = (double)t[frames - 1] / 1e3;
        /* The filter's own frames: the size of what it reads and writes. */
        clv_chain_desc *upto = clv_chain_desc_slice(desc, 0, i),
                       *through = clv_chain_desc_slice(desc, 0, i + 1);
        clv_size a = in_size, b = in_size;
        if (upto)
            clv_chain_desc_output_size(upto, &in_size, &a, NULL);
        if (through)
            clv_chain_desc_output_size(through, &in_size, &b, NULL);
        clv_chain_desc_destroy(upto);
        clv_chain_desc_destroy(through);
        double mps = med > 0 ? (double)a.width * a.height / 1e6 / (med / 1e6) : 0;
        double gbs = med > 0 ? ((double)a.width * a.height + (double)b.width * b.height) *
                                   (depth / 2) / (med * 1e3)
                             : 0;
        total_us += med;
        clv_chain_desc *one = clv_chain_desc_slice(desc, i, 1);
        char text[1024] = "";
        if (one)
            clv_chain_format(one, text, sizeof text);
        clv_chain_desc_destroy(one);
        if (json) {
            printf("%s{\"filter\": ", i ? ", " : "");
            clv_bench_json_string(text);
            printf(", \"median_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f, "
                   "\"mpixel_per_s\": %.1f, \"gb_per_s\": %.3f, \"fraction_of_copy\": %.3f}",
                   med, lo, hi, mps, gbs, copy_gbs > 0 ? gbs / copy_gbs : 0);
        } else {
            printf("%-4d %-40.40s %12.1f %10.1f %10.1f %10.2f %7.0f%%\n", i + 1, text, med, lo, mps,
                   gbs, copy_gbs > 0 ? 100 * gbs / copy_gbs : 0);
        }
    }
    if (json)
        printf("], \"chain_median_us_sum\": %.3f}\n", total_us);
    else
        printf("\nsum of medians: %.1f us per frame (%.1f frames/s for the whole chain)\n",
               total_us, total_us > 0 ? 1e6 / total_us : 0);
    status = 0;
done:
    clv_chain_destroy(chain);
    clv_frame_destroy(&src);
    clv_frame_destroy(&dst);
    if (!pictures)
        clv_image_free(&img);
    free(pictures);
    free(ns);
    clv_context_destroy(ctx);
    return bench_end(desc, NULL, status);
}
