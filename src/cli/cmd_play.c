/* cmd_play.c - `clvid play [INPUT]`: the live window. The decoder thread
 * feeds the GPU stage; filtered frames are shown at their time against the
 * sound (or the wall clock), late ones dropped and counted; keys switch
 * presets, chains and parameters between frames without rebuilding. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <SDL.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <signal.h>
#include <sys/stat.h>

#include "../io/io.h"
#include "../present/present.h"
#include "clvid.h"

#define VF_MAX 16
#define RING 64  /* timestamps of frames in flight, by submit index */
#define SLOTS 3  /* the stage's frames in flight */
#define INPUTS 4 /* SLOTS + the one shown */

typedef struct play_args {
    clv_input_options in;
    const char *chains[VF_MAX]; /* -vf, in order; `w` cycles through them */
    int chain_count;
    const char *device;
    int width, height; /* --size: the window's, in points */
    int fullscreen, untimed, loop, autoexit, no_audio, no_hud;
    int64_t exit_after; /* --exit-after-frames */
    const char *screenshot, *keys, *stats;
    double volume;
    int live;                  /* a camera or stream: newest frame first, no clock */
    int prefer_mjpeg;          /* webcam: ask the camera for MJPEG first */
    int no_window;             /* webcam: record without a window */
    clv_output_options record; /* -o: record the frames shown; path NULL: none */
    int overwrite;             /* -y */
    const char *mic;           /* --audio DEVICE: a microphone into the recording */
    const char *mic_format;    /* --audio-format, NULL: alsa */
} play_args;

typedef struct player {
    play_args a;
    const char *path;
    clv_decoder *dec;
    clv_queue *video_q, *packet_q;
    clv_feed *feed;
    clv_context *ctx;
    clv_chain *presets[9], *vf[VF_MAX], *active;
    int preset;                    /* 1-9 when a preset is active, else 0 */
    int vf_index;                  /* the active -vf chain when preset == 0 */
    clv_stage *stage, *orig_stage; /* filtered; unfiltered for the compare view */
    clv_window *win;
    clv_sound *snd;
    clv_audio *audio;
    int audio_stream;
    int w, h;
    double fps, duration;
    AVRational tb;
    AVFrame *sent[INPUTS]; /* references to the frames sent, by submit index, to
                              refilter the one shown while paused (no copy) */
    double ring[RING];
    int64_t ring_pts[RING]; /* the same, in the stream's time base (recording) */
    double ring_read[RING]; /* when each frame's packet was read (latency) */
    uint64_t submitted, taken;
    /* Playback state. */
    int paused, step, eof, quit;
    int refilter;   /* send the frame shown again (chain or parameter changed) */
    int force_show; /* show the next result even while paused */
    int seek_pending;
    double seek_to; /* seconds */
    int compare, dragging, hud, help, muted;
    double volume, divider;
    int clock_running;
    double base_pts, base_wall, paused_at;
    int64_t presented, dropped, screenshots;
    double last_pts;
    const char *keys_next; /* --keys still to replay */
    char message[256];
    double message_until;
    /* HUD figures, refreshed twice a second. */
    double hud_at, shown_fps, pipeline_fps, ms_decode, ms_up, ms_kernels, ms_down, ms_present;
    int64_t hud_presented;
    double hud_decode_s;
    uint64_t hud_decoded;
    clv_stage_times hud_times;
    double present_s; /* summed since hud_at */
    uint64_t decoded; /* frames popped from the decoder */
    char hud_text[2048];
    double started_at;
    double hud_text_at;
    double latency_ms, latency_sum; /* capture (packet read) to screen */
    int latency_count;
    int64_t stale_seen; /* live: frames skipped for newer ones in the player */
    /* Recording (-o): the frames shown, converted on the host for the encoder. */
    clv_encoder *enc;
    clv_mic *mic; /* --audio: its thread pushes packets to enc_q */
    clv_queue *enc_q;
    struct SwsContext *enc_sws;
    AVBufferPool *enc_pool;
    int64_t recorded;
    int64_t mic_packets; /* the microphone's, recorded */
    int hud_dirty;
    int redraw; /* the window needs drawing again though no frame came */
} player;

static void usage(FILE *f)
{
    fprintf(f, "usage: clvid play [INPUT] [options]        (no INPUT: the bundled sample)\n"
               "  -f FORMAT          force the input format (lavfi, v4l2, ...)\n"
               "  -vf CHAIN          a filter chain (repeat -vf for several; w cycles them)\n"
               "  -ss TIME           start at TIME (seconds or [hh:]mm:ss)\n"
               "  --device N|NAME    OpenCL device (clvid devices)\n"
               "  --size WxH         window size in points (default: the video's, fitted)\n"
               "  --fullscreen       start fullscreen\n"
               "  --untimed          show every frame as fast as the pipeline allows\n"
               "  --loop             start again at the end\n"
               "  --autoexit         quit at the end of the input\n"
               "  -an                no sound\n"
               "  --volume PERCENT   0..200 (default 100)\n"
               "  --no-hud           start with the HUD hidden (i toggles it)\n"
               "  --exit-after-frames N   quit after showing N frames\n"
               "  --screenshot PATH  at exit, save the window as a PNG\n"
               "  --keys \"2 w c\"     replay key presses, one per frame shown\n"
               "  --stats FILE       at exit, write the player's state as key=value lines\n"
               "  --live             a camera or stream: newest frame first (webcam sets it)\n"
               "  --input-size WxH --input-fps N --input-format mjpeg|yuyv422|...  capture\n"
               "  -o OUTPUT [-y] [-c:v CODEC] [-crf N] [-preset P] [-b:v RATE] [-pix_fmt F]\n"
               "                     record the frames shown\n"
               "  --audio DEVICE     record a microphone too (ALSA: default, hw:1, ...)\n"
               "  --audio-format F   its capture format: alsa (default), pulse, oss, lavfi\n"
               "Press h in the window for the keys.\n");
}

static int parse_args(int argc, char **argv, play_args *a)
{
    memset(a, 0, sizeof *a);
    a->volume = 1.0;
    a->record.crf = -1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        static const struct {
            const char *name;
            size_t offset;
        } flags[] = {
            {"--fullscreen", offsetof(play_args, fullscreen)},
            {"--untimed", offsetof(play_args, untimed)},
            {"--loop", offsetof(play_args, loop)},
            {"--autoexit", offsetof(play_args, autoexit)},
            {"-an", offsetof(play_args, no_audio)},
            {"--no-hud", offsetof(play_args, no_hud)},
            {"--live", offsetof(play_args, live)},
            {"-y", offsetof(play_args, overwrite)},
            {"--no-window", offsetof(play_args, no_window)},
        };
        int matched = 0;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (!strcmp(o, flags[k].name)) {
                *(int *)((char *)a + flags[k].offset) = 1;
                matched = 1;
            }
        if (matched)
            continue;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            exit(CLV_EXIT_OK);
        }
        if (o[0] != '-' || !o[1]) {
            if (a->in.path) {
                fprintf(stderr, "clvid play: one INPUT only ('%s' and '%s')\n", a->in.path, o);
                return -1;
            }
            a->in.path = o;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "clvid play: %s needs a value\n", o);
            return -1;
        }
        const char *v = argv[++i];
        char *end;
        int r;
        if (!strcmp(o, "-i"))
            a->in.path = v;
        else if (!strcmp(o, "-f"))
            a->in.format = v;
        else if (!strcmp(o, "-vf")) {
            if (a->chain_count == VF_MAX) {
                fprintf(stderr, "clvid play: at most %d -vf chains\n", VF_MAX);
                return -1;
            }
            a->chains[a->chain_count++] = v;
        } else if (!strcmp(o, "--device"))
            a->device = v;
        else if (!strcmp(o, "--screenshot"))
            a->screenshot = v;
        else if (!strcmp(o, "--keys"))
            a->keys = v;
        else if (!strcmp(o, "--stats"))
            a->stats = v;
        else if (!strcmp(o, "-o"))
            a->record.path = v;
        else if ((r = clv_cli_output_option(o, v, &a->record)) != 0 ||
                 (r = clv_cli_capture_option(o, v, &a->in, &a->mic, &a->mic_format)) != 0) {
            if (r < 0)
                return -1;
        } else if (!strcmp(o, "-ss")) {
            if ((a->in.start_us = clv_cli_parse_time(v)) < 0) {
                fprintf(stderr, "clvid play: -ss %s: expected seconds or [hh:]mm:ss\n", v);
                return -1;
            }
        } else if (!strcmp(o, "--size")) {
            if (sscanf(v, "%dx%d", &a->width, &a->height) != 2 || a->width < 16 || a->height < 16 ||
                a->width > 16384 || a->height > 16384) {
                fprintf(stderr,
                        "clvid play: --size %s: expected WIDTHxHEIGHT, each 16..16384 "
                        "(1280x720)\n",
                        v);
                return -1;
            }
        } else if (!strcmp(o, "--exit-after-frames")) {
            long long n = strtoll(v, &end, 10);
            if (*end || end == v || n < 1) {
                fprintf(stderr, "clvid play: %s %s: expected a positive integer\n", o, v);
                return -1;
            }
            a->exit_after = n;
        } else if (!strcmp(o, "--volume")) {
            double pct = strtod(v, &end);
            if (*end || end == v || pct < 0 || pct > 200) {
                fprintf(stderr, "clvid play: --volume %s: expected a percentage from 0 to 200\n",
                        v);
                return -1;
            }
            a->volume = pct / 100;
        } else {
            fprintf(stderr, "clvid play: unknown option %s\n", o);
            return -1;
        }
    }
    if (a->keys) {
        /* Check every key name now, not halfway through the run. */
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", a->keys);
        for (char *save = NULL, *t = strtok_r(copy, " ,", &save); t;
             t = strtok_r(NULL, " ,", &save))
            if (!clv_binding_named(t)) {
                fprintf(stderr,
                        "clvid play: --keys: unknown key '%s' (press h in the window, or "
                        "see clvid play --help)\n",
                        t);
                return -1;
            }
    }
    return 0;
}

/* The bundled sample: beside the sources this binary was built from, or
 * installed under share/. */
static const char *bundled_sample(void)
{
    static const char *const candidates[] = {
        CLVID_MEDIA_DIR "/sample.mp4",
        "media/sample.mp4",
        "/usr/local/share/clvid/sample.mp4",
        "/usr/share/clvid/sample.mp4",
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], R_OK) == 0)
            return candidates[i];
    return NULL;
}

/* A line at the bottom of the window for a few seconds; fmt has one %s. */
static void notice(player *p, const char *fmt, const char *text)
{
    char line[1400];
    snprintf(line, sizeof line, fmt, text);
    snprintf(p->message, sizeof p->message, "%.255s", line);
    p->message_until = clv_io_seconds() + 2.5;
    p->redraw = 1;
}

/* ---- Clock ---------------------------------------------------------------- */

/* Media time now, in seconds: the sound's when it plays, else the wall
 * clock from the first frame shown; < 0 before that. */
static double clock_now(player *p)
{
    if (p->paused)
        return p->paused_at;
    double now = clv_io_seconds();
    double t = p->snd ? clv_sound_clock(p->snd) : -1;
    if (t >= 0) {
        p->base_pts = t;
        p->base_wall = now;
        p->clock_running = 1;
        return t;
    }
    return p->clock_running ? p->base_pts + (now - p->base_wall) : -1;
}

static void set_paused(player *p, int paused)
{
    if (paused == p->paused)
        return;
    if (paused) {
        p->paused_at = p->clock_running ? clock_now(p) : p->last_pts;
        p->paused = 1;
    } else {
        p->paused = 0;
        p->base_pts = p->paused_at;
        p->base_wall = clv_io_seconds();
    }
    if (p->snd)
        clv_sound_pause(p->snd, paused);
}

/* ---- Chains ---------------------------------------------------------------- */

static const char *chain_text(const player *p, char *buf, size_t size)
{
    clv_chain_format(clv_chain_get_desc(p->active), buf, size);
    if (!buf[0])
        snprintf(buf, size, "(no filter)");
    return buf;
}

static void activate(player *p, clv_chain *chain, int preset, int vf_index)
{
    p->active = chain;
    p->preset = preset;
    p->vf_index = vf_index;
    clv_stage_set_chain(p->stage, chain);
    if (p->paused)
        p->refilter = 1;
}

/* The parameter the up/down keys move: the preset's, or for a -vf chain
 * the first parameter of the first filter that has one. */
static int main_param(const player *p, int *filter, int *param, double *step)
{
    const clv_chain_desc *d = clv_chain_get_desc(p->active);
    if (p->preset) {
        const clv_preset *pr = &clv_presets[p->preset - 1];
        if (pr->filter < 0)
            return 0;
        const clv_filter *f = d->item[pr->filter].filter;
        for (int k = 0; k < clv_filter_param_count(f); k++)
            if (!strcmp(clv_filter_param(f, k)->name, pr->param)) {
                *filter = pr->filter;
                *param = k;
                *step = pr->step;
                return 1;
            }
        return 0;
    }
    for (int i = 0; i < d->count; i++) {
        const clv_filter *f = d->item[i].filter;
        if (clv_filter_param_count(f) == 0 || clv_filter_param(f, 0)->type == CLV_PARAM_MATRIX)
            continue;
        const clv_param *par = clv_filter_param(f, 0);
        *filter = i;
        *param = 0;
        *step = par->type == CLV_PARAM_REAL ? pow(10, floor(log10(par->max - par->min))) / 10 : 1;
        return 1;
    }
    return 0;
}

static void move_param(player *p, int direction)
{
    int fi, pi;
    double step;
    if (!main_param(p, &fi, &pi, &step)) {
        char text[256];
        notice(p, "%s has no parameter for up/down", chain_text(p, text, sizeof text));
        return;
    }
    const clv_chain_desc *d = clv_chain_get_desc(p->active);
    const clv_filter *f = d->item[fi].filter;
    const clv_param *par = clv_filter_param(f, pi);
    const clv_value *v = &d->item[fi].values[pi];
    char value[64];
    if (par->type == CLV_PARAM_ENUM) {
        int n = 1;
        for (const char *c = par->choices; *c; c++)
            n += *c == '|';
        int k = (int)((v->i + direction + n) % n);
        const char *c = par->choices;
        for (int i = 0; i < k; i++)
            c = strchr(c, '|') + 1;
        size_t len = strcspn(c, "|");
        snprintf(value, sizeof value, "%.*s", (int)len, c);
    } else {
        double now = par->type == CLV_PARAM_REAL ? (double)v->i / 1000 : (double)v->i;
        double next = now + direction * step;
        next = next < par->min ? par->min : next > par->max ? par->max : next;
        if (par->type == CLV_PARAM_REAL)
            snprintf(value, sizeof value, "%.3f", next);
        else
            snprintf(value, sizeof value, "%lld", (long long)llround(next));
    }
    clv_msg msg = {{0}};
    if (clv_chain_set_param(p->active, fi, par->name, value, &msg)) {
        notice(p, "%s", msg.text);
        return;
    }
    char line[300];
    snprintf(line, sizeof line, "%s=%s", par->name, value);
    notice(p, "%s", line);
    if (p->paused)
        p->refilter = 1;
}

/* ---- Input and seeking ------------------------------------------------------- */

static int start_decoder(player *p, clv_msg *msg)
{
    /* Live: never more frames waiting than the stage has slots. */
    p->video_q = clv_queue_create(p->a.live ? SLOTS : 8);
    p->packet_q = clv_queue_create(1024);
    if (!p->video_q || !p->packet_q)
        return snprintf(msg->text, sizeof msg->text, "out of memory"), CLV_ENOMEM;
    return clv_decoder_start(p->dec, p->video_q, p->packet_q);
}

/* Throws away the frames in flight (their results are no longer wanted). */
static void drain_stages(player *p)
{
    clv_msg msg;
    while (clv_stage_pending(p->stage) > 0) {
        const uint8_t *px;
        uint64_t i;
        if (clv_stage_output(p->stage, &px, &i, &msg) == 0)
            clv_stage_release(p->stage);
        if (p->orig_stage && clv_stage_pending(p->orig_stage) > 0 &&
            clv_stage_output(p->orig_stage, &px, &i, &msg) == 0)
            clv_stage_release(p->orig_stage);
        p->taken++;
    }
    while (p->orig_stage && clv_stage_pending(p->orig_stage) > 0) {
        const uint8_t *px;
        uint64_t i;
        if (clv_stage_output(p->orig_stage, &px, &i, &msg) == 0)
            clv_stage_release(p->orig_stage);
    }
}

static int seek(player *p, double seconds, clv_msg *msg)
{
    if (p->duration > 0 && seconds > p->duration - 1)
        seconds = p->duration - 1;
    seconds = seconds < 0 ? 0 : seconds;
    drain_stages(p);
    clv_decoder_stop(p->dec);
    clv_queue_destroy(p->video_q);
    clv_queue_destroy(p->packet_q);
    p->video_q = p->packet_q = NULL;
    int err = clv_decoder_seek(p->dec, (int64_t)(seconds * 1e6), msg);
    if (!err)
        err = start_decoder(p, msg);
    if (p->audio)
        clv_audio_flush(p->audio);
    if (p->snd)
        clv_sound_clear(p->snd);
    p->eof = 0;
    p->clock_running = 0;
    p->paused_at = seconds;
    /* Show the frame sought to even when paused. */
    p->step = p->paused;
    return err;
}

/* Moves audio packets from the decoder into the sound output, keeping about
 * a second buffered; without sound (or while stepping) they are dropped. */
static void pump_audio(player *p)
{
    for (;;) {
        if (p->snd && !p->paused && clv_sound_buffered(p->snd) > 1.0)
            return;
        if (p->paused && !p->step)
            return; /* held in the queue until play resumes */
        int kind;
        void *item;
        if (clv_queue_pop_wait(p->packet_q, &kind, &item, 0) != 0)
            return;
        AVPacket *pkt = item;
        if (p->snd && p->audio && !p->paused && kind == CLV_ITEM_PACKET &&
            pkt->stream_index == p->audio_stream) {
            const float *samples;
            int frames;
            double pts;
            if (clv_audio_decode(p->audio, pkt, &samples, &frames, &pts) == 0 && frames > 0 &&
                pts >= 0)
                clv_sound_write(p->snd, samples, frames, pts);
        }
        clv_item_free(kind, item);
    }
}

/* Sends the next decoded frame into the stage(s). Returns 1 when one was
 * sent, 0 when none is ready, < 0 on an error. */
static int feed_one(player *p, clv_msg *msg)
{
    int kind;
    void *item;
    /* With the stage empty there is nothing else to do than wait a little. */
    double wait = clv_stage_pending(p->stage) == 0 ? 0.004 : 0;
    int r = clv_queue_pop_wait(p->video_q, &kind, &item, wait);
    if (r != 0)
        return 0;
    while (p->a.live && kind == CLV_ITEM_FRAME) {
        /* Live: only the newest frame is worth showing. */
        int next_kind;
        void *next;
        if (clv_queue_pop_wait(p->video_q, &next_kind, &next, 0) != 0)
            break;
        clv_item_free(kind, item);
        p->stale_seen++;
        kind = next_kind;
        item = next;
    }
    if (kind == CLV_ITEM_END) {
        p->eof = 1;
        clv_msg dmsg = {{0}};
        int err = clv_decoder_finish(p->dec, &dmsg);
        if (err) {
            *msg = dmsg;
            return err;
        }
        return 0;
    }
    AVFrame *f = item;
    p->decoded++;
    double t = (double)f->pts * av_q2d(p->tb);
    double now = p->a.untimed || p->a.live || p->step ? -1 : clock_now(p);
    if (now >= 0 && t + 1.0 / p->fps < now) {
        /* Late already: showing it would put the picture behind the sound. */
        p->dropped++;
        av_frame_free(&f);
        return 1;
    }
    int err = clv_feed_write(p->feed, f, clv_stage_input(p->stage), msg);
    if (!err && p->orig_stage)
        err = clv_feed_write(p->feed, f, clv_stage_input(p->orig_stage), msg);
    if (err) {
        av_frame_free(&f);
        return err;
    }
    av_frame_free(&p->sent[p->submitted % INPUTS]);
    p->sent[p->submitted % INPUTS] = f;
    p->ring[p->submitted % RING] = t;
    p->ring_pts[p->submitted % RING] = f->pts;
    p->ring_read[p->submitted % RING] = clv_frame_read_time(f);
    if ((err = clv_stage_submit(p->stage, p->submitted, msg)) ||
        (p->orig_stage && (err = clv_stage_submit(p->orig_stage, p->submitted, msg))))
        return err;
    p->submitted++;
    return 1;
}

/* Sends the last frame again (a chain or parameter changed while paused). */
static int refilter(player *p, clv_msg *msg)
{
    /* What is in flight is dropped; the decoder goes on after it. */
    uint64_t shown_at = p->taken - 1;
    AVFrame *shown = p->sent[shown_at % INPUTS];
    if (!shown)
        return 0;
    drain_stages(p);
    p->ring[p->submitted % RING] = p->ring[shown_at % RING];
    p->ring_pts[p->submitted % RING] = p->ring_pts[shown_at % RING];
    p->ring_read[p->submitted % RING] = p->ring_read[shown_at % RING];
    int err = clv_feed_write(p->feed, shown, clv_stage_input(p->stage), msg);
    if (!err)
        err = clv_stage_submit(p->stage, p->submitted, msg);
    if (!err && p->orig_stage &&
        !(err = clv_feed_write(p->feed, shown, clv_stage_input(p->orig_stage), msg)))
        err = clv_stage_submit(p->orig_stage, p->submitted, msg);
    if (p->submitted % INPUTS != shown_at % INPUTS) {
        av_frame_free(&p->sent[p->submitted % INPUTS]);
        p->sent[p->submitted % INPUTS] = av_frame_clone(shown);
    }
    p->submitted++;
    p->refilter = 0;
    p->force_show = 1;
    return err;
}

/* ---- HUD ------------------------------------------------------------------- */

static void clock_text(double s, char *out, size_t size)
{
    s = s < 0 ? 0 : s;
    snprintf(out, size, "%02d:%04.1f", (int)(s / 60), fmod(s, 60));
}

/* The figures the HUD and --stats show, over the last half second. */
static void update_figures(player *p, int now_anyway)
{
    double now = clv_io_seconds();
    double span = now - p->hud_at;
    if (span >= 0.5 || (now_anyway && p->presented > p->hud_presented)) {
        clv_stage_times t;
        clv_stage_get_times(p->stage, &t);
        uint64_t frames = t.frames - p->hud_times.frames;
        if (frames > 0) {
            p->ms_up = (double)(t.upload_ns - p->hud_times.upload_ns) / 1e6 / (double)frames;
            p->ms_kernels = (double)(t.kernels_ns - p->hud_times.kernels_ns) / 1e6 / (double)frames;
            p->ms_down = (double)(t.download_ns - p->hud_times.download_ns) / 1e6 / (double)frames;
            /* Transfers overlap the kernels on a GPU; on a CPU they all share the cores. */
            double bound = clv_context_device(p->ctx)->is_cpu
                               ? p->ms_up + p->ms_kernels + p->ms_down
                               : fmax(p->ms_up, fmax(p->ms_kernels, p->ms_down));
            p->pipeline_fps = bound > 0 ? 1000 / bound : 0;
        }
        double decode_s = clv_decoder_busy_seconds(p->dec);
        if (p->decoded > p->hud_decoded)
            p->ms_decode =
                (decode_s - p->hud_decode_s) * 1e3 / (double)(p->decoded - p->hud_decoded);
        int64_t shown = p->presented - p->hud_presented;
        p->shown_fps = (double)shown / span;
        p->ms_present = shown > 0 ? p->present_s * 1e3 / (double)shown : p->ms_present;
        p->hud_times = t;
        p->hud_decode_s = decode_s;
        p->hud_decoded = p->decoded;
        p->hud_presented = p->presented;
        p->present_s = 0;
        if (p->latency_count)
            p->latency_ms = p->latency_sum / p->latency_count;
        p->latency_sum = 0;
        p->latency_count = 0;
        p->hud_at = now;
    }
}

static void hud_refresh(player *p)
{
    char chain[512], pos[32], total[32], param[128] = "";
    int fi, pi;
    double step;
    if (main_param(p, &fi, &pi, &step))
        snprintf(param, sizeof param, "   (up/down: %s)",
                 clv_filter_param(clv_chain_get_desc(p->active)->item[fi].filter, pi)->name);
    clock_text(p->last_pts, pos, sizeof pos);
    clock_text(p->duration, total, sizeof total);
    char which[32];
    if (p->preset)
        snprintf(which, sizeof which, "preset %d", p->preset);
    else
        snprintf(which, sizeof which, "-vf %d/%d", p->vf_index + 1, p->a.chain_count);
    const AVCodecContext *dc = clv_decoder_codec(p->dec);
    clv_color col = clv_feed_color(p->feed);
    snprintf(p->hud_text, sizeof p->hud_text,
             "%s  %s\n"
             "%s  %dx%d  %.2f fps  %s %s %s\n"
             "%s on %s\n"
             "shown %.1f fps   pipeline %.0f fps   dropped %lld   latency %.0f ms%s\n"
             "ms/frame  decode %.2f  upload %.2f  kernels %.2f  download %.2f  present %.2f\n"
             "%s / %s  frame %lld%s%s%s%s   i: HUD  h: keys",
             which, chain_text(p, chain, sizeof chain), p->path, p->w, p->h, p->fps,
             av_get_pix_fmt_name(dc->pix_fmt), clv_matrix_name(col.matrix),
             col.full_range ? "full" : "limited", clv_context_device(p->ctx)->name,
             clv_window_renderer(p->win), p->shown_fps, p->pipeline_fps,
             (long long)(p->dropped + p->stale_seen + clv_decoder_stale_dropped(p->dec)),
             p->latency_ms, p->enc ? (p->mic ? "   [recording + mic]" : "   [recording]") : "",
             p->ms_decode, p->ms_up, p->ms_kernels, p->ms_down, p->ms_present, pos, total,
             (long long)llround(p->last_pts * p->fps), p->paused ? "  [paused]" : "",
             p->compare ? "  [compare]" : "", p->muted ? "  [muted]" : "", param);
}

static int draw(player *p, uint8_t **capture, int *cw, int *ch)
{
    char help[3000];
    clv_view view = {.compare = p->compare, .divider = p->divider};
    if (p->hud && !p->help) {
        /* Text is rendered again only when it changes: four times a second,
         * or at once after a key or while stepping. */
        double now = clv_io_seconds();
        if (p->hud_dirty || p->paused || now - p->hud_text_at >= 0.25) {
            hud_refresh(p);
            p->hud_text_at = now;
            p->hud_dirty = 0;
        }
        view.hud = p->hud_text;
    }
    if (p->help) {
        clv_keys_help(help, sizeof help);
        view.help = help;
    }
    if (p->message[0] && clv_io_seconds() < p->message_until)
        view.message = p->message;
    return clv_window_draw(p->win, &view, capture, cw, ch);
}

/* ---- Keys --------------------------------------------------------------------- */

static int compare_on(player *p, clv_msg *msg)
{
    if (!p->orig_stage) {
        /* The original goes through the same conversion, unfiltered. */
        clv_stage_options o = {.width = p->w,
                               .height = p->h,
                               .in_format = clv_feed_format(p->feed),
                               .out_format = CLV_PIX_RGBA,
                               .in_color = clv_feed_color(p->feed),
                               .out_color = clv_feed_color(p->feed),
                               .slots = SLOTS};
        drain_stages(p);
        int err = clv_stage_create(p->ctx, &o, NULL, &p->orig_stage, msg);
        if (err)
            return err;
        p->refilter = 1; /* so the left half has a picture at once */
    }
    p->compare = 1;
    return 0;
}

static int act(player *p, const clv_binding *b, clv_msg *msg)
{
    p->hud_dirty = 1;
    p->redraw = 1;
    switch (b->action) {
    case CLV_ACT_PRESET:
        activate(p, p->presets[b->arg - 1], b->arg, p->vf_index);
        break;
    case CLV_ACT_CYCLE:
        if (p->a.chain_count == 0) {
            notice(p, "%s", "no -vf chains given on the command line to cycle through");
            break;
        }
        {
            int next = p->preset ? 0 : (p->vf_index + 1) % p->a.chain_count;
            activate(p, p->vf[next], 0, next);
        }
        break;
    case CLV_ACT_PARAM:
        move_param(p, b->arg);
        break;
    case CLV_ACT_PAUSE:
        set_paused(p, !p->paused);
        break;
    case CLV_ACT_STEP:
        set_paused(p, 1);
        p->step = 1;
        if (p->snd)
            clv_sound_clear(p->snd);
        break;
    case CLV_ACT_SEEK:
        p->seek_to = p->last_pts + b->arg;
        p->seek_pending = 1;
        break;
    case CLV_ACT_COMPARE:
        if (p->compare)
            p->compare = 0;
        else
            return compare_on(p, msg);
        break;
    case CLV_ACT_FULLSCREEN:
        clv_window_toggle_fullscreen(p->win);
        break;
    case CLV_ACT_SCREENSHOT: {
        char path[64];
        uint8_t *px = malloc((size_t)p->w * (size_t)p->h * 4);
        snprintf(path, sizeof path, "clvid-shot-%lld.png", (long long)++p->screenshots);
        clv_msg m = {{0}};
        if (!px) {
            notice(p, "%s", "screenshot: out of memory");
            break;
        }
        clv_window_frame_pixels(p->win, px);
        if (clv_png_write(path, px, p->w, p->h, &m))
            notice(p, "%s", m.text);
        else
            notice(p, "saved %s", path);
        free(px);
        break;
    }
    case CLV_ACT_HUD:
        p->hud = !p->hud;
        break;
    case CLV_ACT_HELP:
        p->help = !p->help;
        break;
    case CLV_ACT_MUTE:
        p->muted = !p->muted;
        if (p->snd)
            clv_sound_set_volume(p->snd, p->volume, p->muted);
        notice(p, "%s", p->muted ? "muted" : "sound on");
        break;
    case CLV_ACT_VOLUME: {
        p->volume = fmin(2.0, fmax(0.0, p->volume + 0.1 * b->arg));
        if (p->snd)
            clv_sound_set_volume(p->snd, p->volume, p->muted);
        char text[32];
        snprintf(text, sizeof text, "%.0f%%", p->volume * 100);
        notice(p, "volume %s", text);
        break;
    }
    case CLV_ACT_QUIT:
        p->quit = 1;
        break;
    }
    return 0;
}

/* The next key of --keys, or NULL when none is left. */
static const clv_binding *replay_next(player *p)
{
    const char *s = p->keys_next;
    if (!s)
        return NULL;
    s += strspn(s, " ,");
    size_t n = strcspn(s, " ,");
    if (n == 0) {
        p->keys_next = NULL;
        return NULL;
    }
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(n < 31 ? n : 31), s);
    p->keys_next = s + n;
    return clv_binding_named(name);
}

static int events(player *p, clv_msg *msg)
{
    SDL_Event e;
    int err = 0;
    while (!err && SDL_PollEvent(&e)) {
        switch (e.type) {
        case SDL_QUIT:
            p->quit = 1;
            break;
        case SDL_WINDOWEVENT:
            p->redraw = 1; /* resized, exposed, moved between displays */
            break;
        case SDL_KEYDOWN: {
            const clv_binding *b =
                clv_binding_for_key(e.key.keysym.sym, (e.key.keysym.mod & KMOD_SHIFT) != 0);
            if (b)
                err = act(p, b, msg);
            break;
        }
        case SDL_MOUSEBUTTONDOWN:
        case SDL_MOUSEMOTION:
        case SDL_MOUSEBUTTONUP:
            if (e.type == SDL_MOUSEBUTTONDOWN && p->compare && e.button.button == SDL_BUTTON_LEFT)
                p->dragging = 1;
            if (e.type == SDL_MOUSEBUTTONUP)
                p->dragging = 0;
            if (p->dragging) {
                double x, y, w, h;
                clv_window_picture_rect(p->win, &x, &y, &w, &h);
                int mx = e.type == SDL_MOUSEMOTION ? e.motion.x : e.button.x;
                p->divider = fmin(1, fmax(0, (mx - x) / (w > 0 ? w : 1)));
                p->redraw = 1;
            }
            break;
        }
    }
    return err;
}

/* ---- Main loop ------------------------------------------------------------------ */

/* Ctrl-C or SIGTERM ends the run as q does (a recording is finished). What
 * a signal handler touches has to be static. */
static volatile sig_atomic_t quit_signal;

static void on_signal(int sig)
{
    quit_signal = sig;
}

/* Sends the frame shown (RGBA) to the recording, converted for its encoder. */
static int record(player *p, const uint8_t *rgba, int64_t pts, clv_msg *msg)
{
    enum AVPixelFormat format = clv_encoder_pix_fmt(p->enc);
    AVFrame *f = av_frame_alloc();
    if (!f)
        return snprintf(msg->text, sizeof msg->text, "out of memory"), CLV_ENOMEM;
    f->format = format;
    f->width = p->w;
    f->height = p->h;
    f->buf[0] = av_buffer_pool_get(p->enc_pool);
    if (!f->buf[0] ||
        av_image_fill_arrays(f->data, f->linesize, f->buf[0]->data, format, p->w, p->h, 32) < 0) {
        av_frame_free(&f);
        return snprintf(msg->text, sizeof msg->text, "out of memory"), CLV_ENOMEM;
    }
    const uint8_t *src[4] = {rgba, NULL, NULL, NULL};
    int stride[4] = {p->w * 4, 0, 0, 0};
    sws_scale(p->enc_sws, src, stride, 0, p->h, f->data, f->linesize);
    f->pts = pts;
    p->recorded++;
    if (clv_queue_push(p->enc_q, CLV_ITEM_FRAME, f) < 0) {
        /* The encoder stopped; its reason comes with clv_encoder_finish. */
        clv_msg emsg = {{0}};
        int err = clv_encoder_finish(p->enc, &emsg);
        *msg = emsg;
        return err ? err : CLV_EIO;
    }
    return 0;
}

static int show(player *p, clv_msg *msg)
{
    const uint8_t *filtered, *original = NULL;
    uint64_t index;
    int err = clv_stage_output(p->stage, &filtered, &index, msg);
    if (err)
        return err;
    if (p->orig_stage && clv_stage_pending(p->orig_stage) > 0 &&
        (err = clv_stage_output(p->orig_stage, &original, &index, msg))) {
        clv_stage_release(p->stage);
        return err;
    }
    double begin = clv_io_seconds();
    clv_window_set_frame(p->win, filtered, original);
    if (p->enc && (err = record(p, filtered, p->ring_pts[p->taken % RING], msg))) {
        clv_stage_release(p->stage);
        if (original)
            clv_stage_release(p->orig_stage);
        return err;
    }
    clv_stage_release(p->stage);
    if (original)
        clv_stage_release(p->orig_stage);
    p->last_pts = p->ring[p->taken % RING];
    p->taken++;
    if (!p->clock_running) {
        p->clock_running = 1;
        p->base_pts = p->last_pts;
        p->base_wall = clv_io_seconds();
    }
    p->presented++;
    double read = p->ring_read[(p->taken - 1) % RING];
    if (read > 0) {
        p->latency_sum += (clv_io_seconds() - read) * 1e3;
        p->latency_count++;
    }
    update_figures(p, 0);
    int exiting = (p->a.exit_after > 0 && p->presented >= p->a.exit_after);
    if (!exiting)
        err = draw(p, NULL, NULL, NULL);
    p->present_s += clv_io_seconds() - begin;
    if (exiting)
        p->quit = 1;
    return err;
}

static int run(player *p, clv_msg *msg)
{
    int err = 0;
    int idle_keys = 0;
    while (!p->quit && !err && !quit_signal) {
        if ((err = events(p, msg)))
            break;
        if (p->seek_pending) {
            double to = p->seek_to;
            p->seek_pending = 0;
            if ((err = seek(p, to, msg)))
                break;
        }
        if (p->refilter && p->taken > 0 && (err = refilter(p, msg)))
            break;
        pump_audio(p);
        /* Keep the stage's slots busy. */
        /* Live: at most two frames in the stage, so the one shown is never
         * more than a frame behind the one being filtered. */
        while (!p->eof && (!p->paused || p->step) && clv_stage_input(p->stage) &&
               (!p->a.live || clv_stage_pending(p->stage) < 2) &&
               (!p->orig_stage || clv_stage_input(p->orig_stage)) &&
               (!p->step || clv_stage_pending(p->stage) == 0)) {
            int r = feed_one(p, msg);
            if (r < 0) {
                err = r;
                break;
            }
            if (r == 0)
                break;
        }
        if (err)
            break;
        int shown = 0;
        if (clv_stage_pending(p->stage) > 0 && (!p->paused || p->step || p->force_show)) {
            double due = p->ring[p->taken % RING];
            double now = p->a.untimed || p->a.live || p->paused ? -1 : clock_now(p);
            if (now < 0 || due <= now) {
                if ((err = show(p, msg)))
                    break;
                p->step = 0;
                p->force_show = 0;
                shown = 1;
            } else {
                double wait = fmin(due - now, 0.005);
                SDL_Delay((Uint32)(wait * 1000) + 1);
                continue;
            }
        }
        if (p->eof && clv_stage_pending(p->stage) == 0) {
            if (p->a.loop) {
                p->seek_to = 0;
                p->seek_pending = 1;
                continue;
            }
            if (p->a.autoexit || p->a.live)
                break; /* a live source that ends (a camera unplugged) ends the run */
        }
        /* --keys: one key per frame shown, or per pass while nothing moves. */
        int idle = !shown && (p->paused || (p->eof && clv_stage_pending(p->stage) == 0));
        if (shown || (idle && ++idle_keys >= 3)) {
            idle_keys = 0;
            const clv_binding *b = replay_next(p);
            if (b && (err = act(p, b, msg)))
                break;
        }
        if (!shown) {
            /* Between frames the window is drawn again only when something
             * on it changed: a key, the divider, a resize, a notice ending. */
            int notice_over = p->message[0] && clv_io_seconds() >= p->message_until;
            if (notice_over)
                p->message[0] = 0;
            if (p->redraw || notice_over)
                err = draw(p, NULL, NULL, NULL);
            p->redraw = 0;
            SDL_Delay(p->paused || p->eof ? 10 : 1);
        }
    }
    return err;
}

static void write_stats(player *p)
{
    update_figures(p, 1); /* the last frames, even in a short run */
    FILE *f = fopen(p->a.stats, "w");
    if (!f) {
        fprintf(stderr, "clvid: --stats: cannot write '%s': %s\n", p->a.stats, strerror(errno));
        return;
    }
    char chain[512];
    fprintf(f,
            "frames_shown=%lld\nframes_dropped=%lld\nlast_frame=%lld\nlast_time=%.6f\n"
            "chain=%s\npreset=%d\nvf_index=%d\npaused=%d\ncompare=%d\ndivider=%.3f\nhud=%d\n"
            "help=%d\nfullscreen=%d\nmuted=%d\nvolume=%.2f\nscreenshots=%lld\nwidth=%d\n"
            "height=%d\nfps=%.3f\ndevice=%s\nrenderer=%s\nshown_fps=%.2f\npipeline_fps=%.1f\n"
            "ms_decode=%.3f\nms_upload=%.3f\nms_kernels=%.3f\nms_download=%.3f\n"
            "ms_present=%.3f\nelapsed=%.3f\nlatency_ms=%.1f\nstale_dropped=%lld\n"
            "max_queued=%d\nrecorded=%lld\nmic_packets=%lld\n",
            (long long)p->presented, (long long)p->dropped,
            (long long)llround(p->last_pts * p->fps), p->last_pts,
            (clv_chain_format(clv_chain_get_desc(p->active), chain, sizeof chain), chain),
            p->preset, p->vf_index, p->paused, p->compare, p->divider, p->hud, p->help,
            clv_window_fullscreen(p->win), p->muted, p->volume, (long long)p->screenshots, p->w,
            p->h, p->fps, clv_context_device(p->ctx)->name, clv_window_renderer(p->win),
            p->shown_fps, p->pipeline_fps, p->ms_decode, p->ms_up, p->ms_kernels, p->ms_down,
            p->ms_present, clv_io_seconds() - p->started_at, p->latency_ms,
            (long long)(p->stale_seen + clv_decoder_stale_dropped(p->dec)),
            clv_decoder_max_queued(p->dec), (long long)p->recorded, (long long)p->mic_packets);
    fclose(f);
}

/* Opens the encoder for -o and what feeds it: the frames shown are RGBA
 * and are converted on the host to the encoder's format. */
static int record_open(player *p, clv_msg *msg)
{
    struct stat st;
    if (stat(p->a.record.path, &st) == 0 && !p->a.overwrite)
        return snprintf(msg->text, sizeof msg->text, "'%s' already exists; use -y to overwrite it",
                        p->a.record.path),
               CLV_EINVAL;
    clv_color color = clv_feed_color(p->feed);
    if (!clv_pixfmt_is_yuv(clv_feed_format(p->feed)))
        color = (clv_color){p->h >= 720 ? CLV_MATRIX_BT709 : CLV_MATRIX_BT601, 0};
    int err = 0;
    if (p->a.mic) {
        if ((err = clv_mic_open(p->a.mic, p->a.mic_format, &p->mic, msg)))
            return err;
        p->a.record.extra_audio = clv_mic_stream(p->mic);
    }
    if ((err = clv_encoder_open(&p->a.record, p->dec, 0, 0, color, &p->enc, msg)))
        return err;
    enum AVPixelFormat format = clv_encoder_pix_fmt(p->enc);
    p->enc_sws =
        sws_getContext(p->w, p->h, AV_PIX_FMT_RGBA, p->w, p->h, format,
                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
    int size = av_image_get_buffer_size(format, p->w, p->h, 32);
    p->enc_pool = size > 0 ? av_buffer_pool_init((size_t)size, NULL) : NULL;
    p->enc_q = clv_queue_create(16);
    if (!p->enc_sws || !p->enc_pool || !p->enc_q)
        return snprintf(msg->text, sizeof msg->text, "cannot convert RGBA frames to %s",
                        av_get_pix_fmt_name(format)),
               CLV_ENOMEM;
    clv_sws_colors(p->enc_sws, color, 1, color, clv_av_pixfmt_is_rgb(format));
    return clv_encoder_start(p->enc, p->enc_q);
}

/* The whole run of the player, for play and webcam. */
static int play_main(player *p)
{
    int status = CLV_EXIT_RUNTIME, err = 0;
    clv_msg msg = {{0}};
    clv_chain_desc descs[VF_MAX];
    for (int i = 0; i < p->a.chain_count; i++)
        if (clv_chain_parse(p->a.chains[i], &descs[i], &msg)) {
            fprintf(stderr, "clvid: -vf: %s\n", msg.text);
            free(p);
            return CLV_EXIT_USAGE;
        }
    p->path = p->a.in.path;
    if (!p->path && !p->a.in.format) {
        p->path = bundled_sample();
        if (!p->path) {
            fprintf(stderr, "clvid play: no INPUT given and the bundled sample "
                            "(media/sample.mp4) is not here; name a file: clvid play FILE\n");
            free(p);
            return CLV_EXIT_USAGE;
        }
    }
    p->a.in.path = p->path;
    if (p->a.record.path && !p->a.live) {
        /* A file can be paused, sought and looped: what it should record
         * is not what the user means. transcode writes a file's frames. */
        snprintf(msg.text, sizeof msg.text,
                 "-o records live sources (clvid webcam, play --live); to filter '%.800s' into a "
                 "file use clvid transcode -i INPUT -vf CHAIN -o OUTPUT",
                 p->path);
        fprintf(stderr, "clvid: %s\n", msg.text);
        free(p);
        return CLV_EXIT_USAGE;
    }
    if (p->a.mic && !p->a.record.path) {
        fprintf(stderr,
                "clvid: --audio %s records the microphone into a recording; give -o "
                "OUTPUT\n",
                p->a.mic);
        free(p);
        return CLV_EXIT_USAGE;
    }
    p->divider = 0.5;
    p->hud = !p->a.no_hud;
    p->volume = p->a.volume;
    p->keys_next = p->a.keys;
    av_log_set_level(AV_LOG_ERROR);
    if (p->a.live)
        p->a.in.live = p->a.in.drop_stale = 1;

    if (p->a.prefer_mjpeg && !p->a.in.input_format) {
        /* Cameras give 30 fps in MJPEG where raw YUYV manages 5 at 1080p. */
        p->a.in.input_format = "mjpeg";
        av_log_set_level(AV_LOG_QUIET); /* a camera without MJPEG is no error */
        if (clv_decoder_open(&p->a.in, &p->dec, &msg))
            p->a.in.input_format = NULL;
        av_log_set_level(AV_LOG_ERROR);
    }
    if (!p->dec && (err = clv_decoder_open(&p->a.in, &p->dec, &msg))) {
        if (p->a.live)
            snprintf(msg.text + strlen(msg.text), sizeof msg.text - strlen(msg.text),
                     " (clvid sources lists the capture devices and what each offers)");
        goto fail;
    }
    AVCodecContext *dc = clv_decoder_codec(p->dec);
    AVStream *vs = clv_decoder_format(p->dec)->streams[clv_decoder_video_index(p->dec)];
    p->w = dc->width;
    p->h = dc->height;
    p->tb = vs->time_base;
    AVRational rate = vs->avg_frame_rate.num > 0 ? vs->avg_frame_rate : vs->r_frame_rate;
    p->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 25;
    AVFormatContext *ic = clv_decoder_format(p->dec);
    p->duration =
        ic->duration > 0 ? (double)ic->duration / 1e6 - (double)p->a.in.start_us / 1e6 : 0;
    if ((err = clv_feed_create(dc, p->path, &p->feed, &msg)))
        goto fail;
    if (p->a.live)
        fprintf(stderr, "clvid: %s: %dx%d %s at %.2f fps%s\n", p->path, p->w, p->h,
                dc->codec_id == AV_CODEC_ID_RAWVIDEO ? av_get_pix_fmt_name(dc->pix_fmt)
                                                     : avcodec_get_name(dc->codec_id),
                p->fps, p->a.in.input_format ? "" : " (the device's choice)");

    /* The window first: without a display nothing else is worth doing. */
    AVRational sar =
        vs->sample_aspect_ratio.num > 0 ? vs->sample_aspect_ratio : dc->sample_aspect_ratio;
    double aspect = (double)p->w / p->h * (sar.num > 0 && sar.den > 0 ? av_q2d(sar) : 1);
    char title[600];
    snprintf(title, sizeof title, "clvid - %.500s", p->path);
    clv_window_options wo = {.title = title,
                             .width = p->a.width,
                             .height = p->a.height,
                             .fullscreen = p->a.fullscreen,
                             .vsync = !p->a.untimed};
    if ((err = clv_window_open(&wo, p->w, p->h, aspect, &p->win, &msg)))
        goto fail;

    /* Every chain the keys can reach is built now, so that switching never
     * stalls (the binary cache makes this quick after the first run). */
    clv_context_options copt = {.device = p->a.device, .profiling = 1};
    if ((err = clv_context_create(&copt, &p->ctx, &msg)))
        goto fail;
    for (int i = 0; i < 9; i++) {
        clv_chain_desc d;
        if ((err = clv_chain_parse(clv_presets[i].chain, &d, &msg)) ||
            (err = clv_chain_create(p->ctx, &d, &p->presets[i], &msg)))
            goto fail;
    }
    for (int i = 0; i < p->a.chain_count; i++)
        if ((err = clv_chain_create(p->ctx, &descs[i], &p->vf[i], &msg)))
            goto fail;
    clv_stage_options so = {.width = p->w,
                            .height = p->h,
                            .in_format = clv_feed_format(p->feed),
                            .out_format = CLV_PIX_RGBA,
                            .in_color = clv_feed_color(p->feed),
                            .out_color = clv_feed_color(p->feed),
                            .slots = SLOTS,
                            .profiling = 1};
    if ((err = clv_stage_create(p->ctx, &so, NULL, &p->stage, &msg)))
        goto fail;
    if (p->a.chain_count)
        activate(p, p->vf[0], 0, 0);
    else
        activate(p, p->presets[0], 1, 0);

    p->audio_stream = p->a.no_audio || p->a.untimed ? -1 : clv_decoder_audio_index(p->dec);
    if (p->audio_stream >= 0) {
        clv_msg amsg = {{0}};
        if (clv_sound_open(48000, 2, &p->snd, &amsg) ||
            clv_audio_open(p->dec, p->audio_stream, clv_sound_rate(p->snd),
                           clv_sound_channels(p->snd), &p->audio, &amsg)) {
            fprintf(stderr, "clvid: playing without sound: %s\n", amsg.text);
            clv_sound_close(p->snd);
            p->snd = NULL;
        } else {
            clv_sound_set_volume(p->snd, p->volume, 0);
        }
    }
    if (p->a.record.path && (err = record_open(p, &msg)))
        goto fail;
    if ((err = start_decoder(p, &msg)))
        goto fail;
    if (p->mic && (err = clv_mic_start(p->mic, p->dec, p->enc_q, clv_encoder_extra_index(p->enc))))
        goto fail;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    p->hud_at = p->started_at = clv_io_seconds();
    err = run(p, &msg);
    if (!err && p->enc) {
        /* The recording is finished on q, Ctrl-C or the source's end alike. */
        if (p->mic) {
            clv_msg mmsg = {{0}};
            p->mic_packets = clv_mic_stop(p->mic, &mmsg);
            if (mmsg.text[0])
                fprintf(stderr, "clvid: %s\n", mmsg.text);
        }
        clv_queue_push(p->enc_q, CLV_ITEM_END, NULL);
        err = clv_encoder_finish(p->enc, &msg);
        if (!err)
            fprintf(stderr, "clvid: recorded %lld frames to %s\n", (long long)p->recorded,
                    p->a.record.path);
    }
    if (!err && p->a.screenshot) {
        uint8_t *px = NULL;
        p->hud_dirty = 1;
        int cw = 0, ch = 0;
        if (!(err = draw(p, &px, &cw, &ch)))
            err = clv_png_write(p->a.screenshot, px, cw, ch, &msg);
        free(px);
    }
    if (p->a.stats)
        write_stats(p);
    if (err)
        goto fail;
    status = CLV_EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "clvid: %s\n", msg.text[0] ? msg.text : clv_strerror(err));
    status = err == CLV_ENODEVICE ? CLV_EXIT_USAGE : CLV_EXIT_RUNTIME;
done:
    if (p->enc_q)
        clv_queue_abort(p->enc_q);
    clv_mic_close(p->mic);
    clv_encoder_close(p->enc, status != CLV_EXIT_OK);
    clv_queue_destroy(p->enc_q);
    sws_freeContext(p->enc_sws);
    av_buffer_pool_uninit(&p->enc_pool);
    if (p->dec)
        clv_decoder_stop(p->dec);
    clv_queue_destroy(p->video_q);
    clv_queue_destroy(p->packet_q);
    clv_decoder_close(p->dec);
    clv_audio_close(p->audio);
    clv_sound_close(p->snd);
    clv_stage_destroy(p->stage);
    clv_stage_destroy(p->orig_stage);
    for (int i = 0; i < 9; i++)
        clv_chain_destroy(p->presets[i]);
    for (int i = 0; i < VF_MAX; i++)
        clv_chain_destroy(p->vf[i]);
    clv_context_destroy(p->ctx);
    clv_window_close(p->win);
    clv_feed_destroy(p->feed);
    for (int i = 0; i < INPUTS; i++)
        av_frame_free(&p->sent[i]);
    free(p);
    SDL_Quit();
    return status;
}

int clv_cmd_play(int argc, char **argv)
{
    player *p = calloc(1, sizeof *p);
    if (!p)
        return CLV_EXIT_RUNTIME;
    if (parse_args(argc, argv, &p->a)) {
        fprintf(stderr, "(clvid play --help lists the options)\n");
        free(p);
        return CLV_EXIT_USAGE;
    }
    return play_main(p);
}

/* `clvid webcam [DEVICE]`: play -f v4l2 DEVICE (default /dev/video0) live;
 * with --no-window -o OUT it records headlessly through transcode. */
int clv_cmd_webcam(int argc, char **argv)
{
    player *p = calloc(1, sizeof *p);
    if (!p)
        return CLV_EXIT_RUNTIME;
    if (parse_args(argc, argv, &p->a)) {
        fprintf(stderr, "(clvid webcam takes the options of clvid play --help)\n");
        free(p);
        return CLV_EXIT_USAGE;
    }
    play_args *a = &p->a;
    if (!a->in.format) {
        a->in.format = "v4l2";
        a->prefer_mjpeg = 1;
    }
    if (!a->in.path)
        a->in.path = "/dev/video0";
    a->live = 1;
    if (!a->no_window)
        return play_main(p);
    if (!a->record.path) {
        fprintf(stderr, "clvid webcam: --no-window records only: give -o OUTPUT\n");
        free(p);
        return CLV_EXIT_USAGE;
    }
    /* Headless: the transcoding pipeline with the capture options. */
    const char *args[40];
    int n = 0;
    args[n++] = "transcode";
    args[n++] = "-f";
    args[n++] = a->in.format;
    args[n++] = "-i";
    args[n++] = a->in.path;
    args[n++] = "-o";
    args[n++] = a->record.path;
    args[n++] = "--live";
    const char *pairs[][2] = {{"-vf", a->chain_count ? a->chains[0] : NULL},
                              {"-c:v", a->record.codec},
                              {"-preset", a->record.preset},
                              {"-pix_fmt", a->record.pix_fmt},
                              {"--device", a->device},
                              {"--input-size", a->in.video_size},
                              {"--input-fps", a->in.framerate},
                              {"--input-format", a->in.input_format},
                              {"--audio", a->mic},
                              {"--audio-format", a->mic_format}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (pairs[i][1]) {
            args[n++] = pairs[i][0];
            args[n++] = pairs[i][1];
        }
    char frames[32];
    if (a->exit_after > 0) {
        snprintf(frames, sizeof frames, "%lld", (long long)a->exit_after);
        args[n++] = "--frames";
        args[n++] = frames;
    }
    char rate[32];
    if (a->record.bitrate > 0) {
        snprintf(rate, sizeof rate, "%lld", (long long)a->record.bitrate);
        args[n++] = "-b:v";
        args[n++] = rate;
    }
    char crf[16];
    if (a->record.crf >= 0) {
        snprintf(crf, sizeof crf, "%d", a->record.crf);
        args[n++] = "-crf";
        args[n++] = crf;
    }
    if (a->overwrite)
        args[n++] = "-y";
    args[n] = NULL;
    free(p);
    return clv_cmd_transcode(n, (char **)args);
}
