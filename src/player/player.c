/* player.c - the player: the decoder thread feeds the GPU stage; filtered
 * frames are shown at their time against the sound (or the wall clock),
 * late ones dropped and counted; actions (from keys) switch presets, chains
 * and parameters between frames without rebuilding; the frames shown can be
 * recorded through the pipeline's encode sink. */
#include "player.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavutil/pixdesc.h>

#include "../io/io.h"
#include "../pipeline/sink.h"
#include "../present/present.h"
#include "reload.h"

#define VF_MAX CLV_PLAYER_CHAINS
#define RING 64  /* timestamps of frames in flight, by submit index */
#define SLOTS 3  /* the stage's frames in flight */
#define INPUTS 4 /* SLOTS + the one shown */

typedef struct player {
    clv_player_options a;
    const volatile sig_atomic_t *quit_signal; /* the caller's stop flag, may be NULL */
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
    int w, h;            /* the picture shown: upright */
    int src_w, src_h;    /* as decoded */
    int rotation, hflip; /* how the stage turns it upright */
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
    int end_popped;    /* live: the end was taken from the queue behind a frame */
    char devices[600]; /* "NAME", or "#1 NAME + #2 NAME" with several */
    int refilter;      /* send the frame shown again (chain or parameter changed) */
    int force_show;    /* show the next result even while paused */
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
    double entered_at, first_shown_at; /* clv_player_run's start; the first frame on screen */
    double hud_text_at;
    double latency_ms, latency_sum; /* capture (packet read) to screen */
    int latency_count;
    int64_t stale_seen; /* live: frames skipped for newer ones in the player */
    /* Recording (-o): the frames shown, through the encode sink. */
    clv_sink *sink;
    int64_t recorded;
    int64_t mic_packets; /* the microphone's, recorded */
    int hud_dirty;
    int redraw;         /* the window needs drawing again though no frame came */
    clv_reload *reload; /* the -vf chains' kernel files, watched; NULL: none */
    /* Each filter's kernel time in the active chain, over the HUD's span. */
    const clv_chain *timed_chain;
    uint64_t timed_ns[CLV_CHAIN_MAX], timed_runs;
    double filter_us[CLV_CHAIN_MAX];
    int param_pick; /* which stepped parameter of a -vf chain up/down move */
} player;

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
    p->param_pick = 0;
    clv_stage_set_chain(p->stage, chain);
    if (p->paused)
        p->refilter = 1;
}

/* The parameter the up/down keys move: the preset's, or for a -vf chain
 * the first parameter of the first filter that has a step. */
static int main_param(const player *p, int *filter, int *param)
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
                return 1;
            }
        return 0;
    }
    /* The param_pick-th stepped parameter (tab moves on), wrapping. */
    int stepped = 0;
    for (int pass = 0; pass < 2; pass++) {
        int k = 0;
        for (int i = 0; i < d->count; i++) {
            const clv_filter *f = d->item[i].filter;
            for (int j = 0; j < clv_filter_param_count(f); j++) {
                if (clv_filter_param(f, j)->step <= 0)
                    continue;
                if (pass == 1 && k == p->param_pick % stepped) {
                    *filter = i;
                    *param = j;
                    return 1;
                }
                k++;
            }
        }
        stepped = k;
        if (!stepped)
            return 0;
    }
    return 0;
}

static void move_param(player *p, int direction)
{
    int fi, pi;
    if (!main_param(p, &fi, &pi)) {
        char text[256];
        notice(p, "%s has no parameter for up/down", chain_text(p, text, sizeof text));
        return;
    }
    char line[128];
    clv_msg msg = {{0}};
    if (clv_chain_step_param(p->active, fi, pi, direction, line, sizeof line, &msg)) {
        notice(p, "%s", msg.text);
        return;
    }
    notice(p, "%s", line);
    if (p->paused)
        p->refilter = 1;
}

/* ---- Input and seeking ------------------------------------------------------- */

static int start_decoder(player *p, clv_msg *msg)
{
    /* Live: never more frames waiting than the stage has slots. */
    p->video_q = clv_queue_create(p->a.io.live ? SLOTS : 8);
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
    p->eof = p->end_popped = 0;
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
    if (p->end_popped) {
        /* The end came right after the last frame, which went first. */
        kind = CLV_ITEM_END;
        item = NULL;
        p->end_popped = 0;
    } else if (clv_queue_pop_wait(p->video_q, &kind, &item, wait) != 0) {
        return 0;
    }
    while (p->a.io.live && kind == CLV_ITEM_FRAME) {
        /* Live: only the newest frame is worth showing. */
        int next_kind;
        void *next;
        if (clv_queue_pop_wait(p->video_q, &next_kind, &next, 0) != 0)
            break;
        if (next_kind == CLV_ITEM_END) {
            /* The source's last frame is shown (and recorded) all the same. */
            clv_item_free(next_kind, next);
            p->end_popped = 1;
            break;
        }
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
    double now = p->a.untimed || p->a.io.live || p->step ? -1 : clock_now(p);
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
        uint64_t ns[CLV_CHAIN_MAX], runs = 0;
        if (clv_chain_times(p->active, ns, CLV_CHAIN_MAX, &runs) == 0) {
            if (p->timed_chain == p->active && runs > p->timed_runs)
                for (int i = 0; i < CLV_CHAIN_MAX; i++)
                    p->filter_us[i] =
                        (double)(ns[i] - p->timed_ns[i]) / 1e3 / (double)(runs - p->timed_runs);
            else if (p->timed_chain != p->active)
                memset(p->filter_us, 0, sizeof p->filter_us);
            p->timed_chain = p->active;
            memcpy(p->timed_ns, ns, sizeof ns);
            p->timed_runs = runs;
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
    if (main_param(p, &fi, &pi))
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
    /* Each filter's µs per frame; a user kernel by its file's name. */
    char filters[600] = "";
    const clv_chain_desc *d = clv_chain_get_desc(p->active);
    size_t n = d->count ? (size_t)snprintf(filters, sizeof filters, "\xc2\xb5s/frame  ") : 0;
    for (int i = 0; i < d->count && n < sizeof filters; i++) {
        const char *file = clv_chain_kernel_file(p->active, i, NULL);
        const char *slash = file ? strrchr(file, '/') : NULL;
        char name[80];
        snprintf(name, sizeof name, "%.60s",
                 file ? (slash ? slash + 1 : file) : clv_filter_name(d->item[i].filter));
        n += (size_t)snprintf(filters + n, sizeof filters - n, "%s%s %.0f%s", i ? "  " : "", name,
                              p->filter_us[i], i == d->count - 1 ? "\n" : "");
    }
    /* Several devices: each one's share of the frames and ms per frame. */
    char shares[1200] = "";
    clv_device_shares_text(p->ctx, p->stage, shares, sizeof shares - 1);
    if (shares[0])
        strcat(shares, "\n");
    snprintf(p->hud_text, sizeof p->hud_text,
             "%s  %s\n"
             "%s  %dx%d  %.2f fps  %s %s %s\n"
             "%s on %s\n"
             "%s"
             "shown %.1f fps   pipeline %.0f fps   dropped %lld   latency %.0f ms%s\n"
             "ms/frame  decode %.2f  upload %.2f  kernels %.2f  download %.2f  present %.2f\n"
             "%s"
             "%s / %s  frame %lld%s%s%s%s   i: HUD  h: keys",
             which, chain_text(p, chain, sizeof chain), p->path, p->w, p->h, p->fps,
             av_get_pix_fmt_name(dc->pix_fmt), clv_matrix_name(col.matrix),
             col.full_range ? "full" : "limited", p->devices, clv_window_renderer(p->win), shares,
             p->shown_fps, p->pipeline_fps,
             (long long)(p->dropped + p->stale_seen + clv_decoder_stale_dropped(p->dec)),
             p->latency_ms,
             p->sink ? (clv_sink_has_mic(p->sink) ? "   [recording + mic]" : "   [recording]") : "",
             p->ms_decode, p->ms_up, p->ms_kernels, p->ms_down, p->ms_present, filters, pos, total,
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
    view.error = clv_reload_error(p->reload, p->active);
    return clv_window_draw(p->win, &view, capture, cw, ch);
}

/* ---- Keys --------------------------------------------------------------------- */

/* The window's stages: the input's frames in, upright RGBA out. */
static clv_stage_options window_stage(const player *p, int profiling)
{
    return (clv_stage_options){.width = p->src_w,
                               .height = p->src_h,
                               .in_format = clv_feed_format(p->feed),
                               .out_format = CLV_PIX_RGBA,
                               .in_color = clv_feed_color(p->feed),
                               .out_color = clv_feed_color(p->feed),
                               .slots = SLOTS,
                               .profiling = profiling,
                               .rotation = p->rotation,
                               .hflip = p->hflip};
}

static int compare_on(player *p, clv_msg *msg)
{
    if (!p->orig_stage) {
        /* The original goes through the same conversion, unfiltered. */
        clv_stage_options o = window_stage(p, 0);
        drain_stages(p);
        int err = clv_stage_create(p->ctx, &o, NULL, &p->orig_stage, msg);
        if (err)
            return err;
        p->refilter = 1; /* so the left half has a picture at once */
    }
    p->compare = 1;
    return 0;
}

/* Preset `n` (1-9), built the first time it is asked for: the start
 * builds only the chain shown first. From the binary cache a build takes
 * milliseconds; the first run on a machine compiles. */
static int preset_chain(player *p, int n, clv_chain **out, clv_msg *msg)
{
    int err = 0;
    if (!p->presets[n - 1]) {
        clv_chain_desc d;
        if ((err = clv_chain_parse(clv_presets[n - 1].chain, &d, msg)) ||
            (err = clv_chain_create(p->ctx, &d, &p->presets[n - 1], msg)))
            return err;
    }
    *out = p->presets[n - 1];
    return 0;
}

static int act(player *p, const clv_binding *b, clv_msg *msg)
{
    p->hud_dirty = 1;
    p->redraw = 1;
    switch (b->action) {
    case CLV_ACT_PRESET: {
        clv_chain *chain = NULL;
        int err = preset_chain(p, b->arg, &chain, msg);
        if (err)
            return err;
        activate(p, chain, b->arg, p->vf_index);
        break;
    }
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
    case CLV_ACT_NEXT_PARAM: {
        int fi, pi;
        if (p->preset) {
            notice(p, "%s", "tab picks among a -vf chain's parameters; a preset has one");
            break;
        }
        p->param_pick++;
        if (main_param(p, &fi, &pi)) {
            const clv_param *par =
                clv_filter_param(clv_chain_get_desc(p->active)->item[fi].filter, pi);
            notice(p, "up/down: %s", par->name);
        }
        break;
    }
    case CLV_ACT_RELOAD:
        if (!p->reload)
            notice(p, "%s", "no kernel file to reload (-vf opencl=file=KERNEL.cl)");
        else
            clv_reload_request(p->reload);
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
    clv_window_event e;
    int err = 0;
    while (!err && clv_window_poll(p->win, &e)) {
        switch (e.type) {
        case CLV_EVENT_QUIT:
            p->quit = 1;
            break;
        case CLV_EVENT_REDRAW:
            p->redraw = 1;
            break;
        case CLV_EVENT_KEY: {
            const clv_binding *b = clv_binding_named(e.key);
            if (b)
                err = act(p, b, msg);
            break;
        }
        case CLV_EVENT_MOUSE_DOWN:
        case CLV_EVENT_MOUSE_MOVE:
        case CLV_EVENT_MOUSE_UP:
            if (e.type == CLV_EVENT_MOUSE_DOWN && p->compare)
                p->dragging = 1;
            if (e.type == CLV_EVENT_MOUSE_UP)
                p->dragging = 0;
            if (p->dragging) {
                double x, y, w, h;
                clv_window_picture_rect(p->win, &x, &y, &w, &h);
                p->divider = fmin(1, fmax(0, (e.x - x) / (w > 0 ? w : 1)));
                p->redraw = 1;
            }
            break;
        }
    }
    return err;
}

/* ---- Main loop ------------------------------------------------------------------ */

/* Sends the frame shown (RGBA) to the recording. */
static int record(player *p, const uint8_t *rgba, int64_t pts, clv_msg *msg)
{
    p->recorded++;
    return clv_sink_frame(p->sink, rgba, NULL, pts, msg);
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
    if (p->sink && (err = record(p, filtered, p->ring_pts[p->taken % RING], msg))) {
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
    if (p->presented++ == 0)
        p->first_shown_at = clv_io_seconds();
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
    while (!p->quit && !err && !(p->quit_signal && *p->quit_signal)) {
        if ((err = events(p, msg)))
            break;
        if (p->reload) {
            /* A kernel file changed and built: from the next frame on
             * (again at once while paused). A failed build shows its
             * messages; the last good kernel goes on. */
            char line[256];
            int done = clv_reload_poll(p->reload, line, sizeof line);
            if (done) {
                p->hud_dirty = 1;
                p->redraw = 1; /* the error panel comes or goes */
            }
            if (done == CLV_RELOAD_SWAPPED && p->paused)
                p->refilter = 1;
            if (line[0])
                notice(p, "%s", line);
        }
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
               (!p->a.io.live || clv_stage_pending(p->stage) < 2) &&
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
            double now = p->a.untimed || p->a.io.live || p->paused ? -1 : clock_now(p);
            if (now < 0 || due <= now) {
                if ((err = show(p, msg)))
                    break;
                p->step = 0;
                p->force_show = 0;
                shown = 1;
            } else {
                double wait = fmin(due - now, 0.005);
                clv_window_sleep(wait * 1000 + 1);
                continue;
            }
        }
        if (p->eof && clv_stage_pending(p->stage) == 0) {
            if (p->a.loop) {
                p->seek_to = 0;
                p->seek_pending = 1;
                continue;
            }
            if (p->a.autoexit || p->a.io.live)
                break; /* a live source that ends (a camera unplugged) ends the run */
        }
        /* --keys: one key per frame shown, or per pass while nothing moves. */
        if (p->eof && clv_stage_pending(p->stage) == 0)
            p->step = 0; /* a step past the end shows nothing more */
        /* Not while a frame is awaited (a step, a seek while paused). */
        int idle = !shown && !p->step && !p->seek_pending &&
                   (p->paused || (p->eof && clv_stage_pending(p->stage) == 0));
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
            clv_window_sleep(p->paused || p->eof ? 10 : 1);
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
    char chain[512], shares[1200] = "", frames[200] = "";
    clv_device_shares_text(p->ctx, p->stage, shares, sizeof shares);
    for (int d = 0, n = 0; d < clv_stage_device_count(p->stage) && n < (int)sizeof frames; d++) {
        clv_stage_device s;
        clv_stage_device_stats(p->stage, d, &s);
        n += snprintf(frames + n, sizeof frames - (size_t)n, "%s%llu", d ? "," : "",
                      (unsigned long long)s.frames);
    }
    fprintf(f,
            "frames_shown=%lld\nframes_dropped=%lld\nlast_frame=%lld\nlast_time=%.6f\n"
            "chain=%s\npreset=%d\nvf_index=%d\npaused=%d\ncompare=%d\ndivider=%.3f\nhud=%d\n"
            "help=%d\nfullscreen=%d\nmuted=%d\nvolume=%.2f\nscreenshots=%lld\nwidth=%d\n"
            "height=%d\nfps=%.3f\ndevice=%s\nrenderer=%s\nshown_fps=%.2f\npipeline_fps=%.1f\n"
            "ms_decode=%.3f\nms_upload=%.3f\nms_kernels=%.3f\nms_download=%.3f\n"
            "ms_present=%.3f\nelapsed=%.3f\nlatency_ms=%.1f\nstale_dropped=%lld\n"
            "max_queued=%d\nrecorded=%lld\nmic_packets=%lld\nkernel_reloads=%llu\n"
            "kernel_error=%d\ndevice_shares=%s\ndevice_frames=%s\nfirst_frame_s=%.3f\n",
            (long long)p->presented, (long long)p->dropped,
            (long long)llround(p->last_pts * p->fps), p->last_pts,
            (clv_chain_format(clv_chain_get_desc(p->active), chain, sizeof chain), chain),
            p->preset, p->vf_index, p->paused, p->compare, p->divider, p->hud, p->help,
            clv_window_fullscreen(p->win), p->muted, p->volume, (long long)p->screenshots, p->w,
            p->h, p->fps, p->devices, clv_window_renderer(p->win), p->shown_fps, p->pipeline_fps,
            p->ms_decode, p->ms_up, p->ms_kernels, p->ms_down, p->ms_present,
            clv_io_seconds() - p->started_at, p->latency_ms,
            (long long)(p->stale_seen + clv_decoder_stale_dropped(p->dec)),
            clv_decoder_max_queued(p->dec), (long long)p->recorded, (long long)p->mic_packets,
            (unsigned long long)clv_reload_count(p->reload),
            clv_reload_error(p->reload, p->active) != NULL, shares, frames,
            p->first_shown_at > 0 ? p->first_shown_at - p->entered_at : -1.0);
    fclose(f);
}

/* Opens the recording (-o): the frames shown are RGBA, converted on the
 * host by the encode sink. */
static int record_open(player *p, clv_msg *msg)
{
    clv_output_options out = clv_pipeline_output(&p->a.io);
    clv_sink_options so = {.output = &out,
                           .dec = p->dec,
                           .feed = p->feed,
                           .rgba = 1,
                           .rotation = p->rotation,
                           .hflip = p->hflip,
                           .mic = p->a.io.mic,
                           .mic_format = p->a.io.mic_format};
    return clv_sink_open(&so, &p->sink, msg);
}

/* What can be wrong before anything opens: chains, -o on a file, --audio
 * without -o, an output already there. */
static int check(player *p, clv_chain_desc *descs, clv_msg *msg)
{
    for (int i = 0; i < p->a.chain_count; i++) {
        int err = clv_chain_parse(p->a.chains[i], &descs[i], msg);
        if (err) {
            char text[sizeof msg->text];
            snprintf(text, sizeof text, "-vf: %.1000s", msg->text);
            snprintf(msg->text, sizeof msg->text, "%s", text);
            return err;
        }
    }
    int err = clv_player_check_keys(p->a.keys, msg);
    if (err)
        return err;
    if (!p->path)
        return snprintf(msg->text, sizeof msg->text,
                        "no INPUT given and the bundled sample (media/sample.mp4) is not here; "
                        "name a file: clvid play FILE"),
               CLV_EOPTION;
    if (p->a.io.output && !p->a.io.live)
        /* A file can be paused, sought and looped: what it should record
         * is not what the user means. transcode writes a file's frames. */
        return snprintf(msg->text, sizeof msg->text,
                        "-o records live sources (clvid webcam, play --live); to filter "
                        "'%.800s' into a file use clvid transcode -i INPUT -vf CHAIN -o OUTPUT",
                        p->path),
               CLV_EOPTION;
    if (p->a.io.mic && !p->a.io.output)
        return snprintf(msg->text, sizeof msg->text,
                        "--audio %.500s records the microphone into a recording; give -o OUTPUT",
                        p->a.io.mic),
               CLV_EOPTION;
    if (p->a.io.output)
        return clv_output_check(&p->path, 1, p->a.io.output, p->a.io.output_format,
                                p->a.io.overwrite, msg);
    return 0;
}

/* Opens the input; a camera is asked for MJPEG first when wanted (cameras
 * give 30 fps in MJPEG where raw YUYV manages 5 at 1080p). */
static int open_input(player *p, clv_msg *msg)
{
    clv_input_options in = clv_pipeline_input(&p->a.io);
    in.path = p->path;
    if (p->a.io.live)
        in.live = in.drop_stale = 1;
    if (p->a.prefer_mjpeg && !in.input_format) {
        in.input_format = "mjpeg";
        av_log_set_level(AV_LOG_QUIET); /* a camera without MJPEG is no error */
        if (clv_decoder_open(&in, &p->dec, msg))
            in.input_format = NULL;
        av_log_set_level(AV_LOG_ERROR);
        if (p->dec)
            p->a.io.capture_format = "mjpeg";
    }
    int err = 0;
    if (!p->dec && (err = clv_decoder_open(&in, &p->dec, msg)) && p->a.io.live)
        snprintf(msg->text + strlen(msg->text), sizeof msg->text - strlen(msg->text),
                 " (clvid sources lists the capture devices and what each offers)");
    return err;
}

/* The whole run of the player, for play and webcam. */
static int play_main(player *p, clv_msg *msg)
{
    clv_chain_desc descs[VF_MAX];
    int err = check(p, descs, msg);
    if (err)
        return err;
    p->divider = 0.5;
    p->hud = !p->a.no_hud;
    p->volume = p->a.volume;
    p->keys_next = p->a.keys;
    av_log_set_level(AV_LOG_ERROR);
    if ((err = open_input(p, msg)))
        return err;
    AVCodecContext *dc = clv_decoder_codec(p->dec);
    AVStream *vs = clv_decoder_format(p->dec)->streams[clv_decoder_video_index(p->dec)];
    /* Shown upright: a phone video's display matrix, a photo's EXIF. */
    p->src_w = dc->width;
    p->src_h = dc->height;
    if (!p->a.io.no_autorotate)
        clv_input_orientation(p->dec, &p->rotation, &p->hflip);
    int turned = p->rotation == 90 || p->rotation == 270;
    p->w = turned ? p->src_h : p->src_w;
    p->h = turned ? p->src_w : p->src_h;
    p->tb = vs->time_base;
    AVRational vs_rate = vs->avg_frame_rate.num > 0 ? vs->avg_frame_rate : vs->r_frame_rate;
    p->fps = vs_rate.num > 0 && vs_rate.den > 0 ? av_q2d(vs_rate) : 25;
    AVFormatContext *ic = clv_decoder_format(p->dec);
    p->duration =
        ic->duration > 0 ? (double)ic->duration / 1e6 - (double)p->a.io.start_us / 1e6 : 0;
    if ((err = clv_feed_create(dc, p->path, &p->feed, msg)))
        return err;
    if (p->a.io.live)
        fprintf(stderr, "clvid: %s: %dx%d %s at %.2f fps%s\n", p->path, p->w, p->h,
                dc->codec_id == AV_CODEC_ID_RAWVIDEO ? av_get_pix_fmt_name(dc->pix_fmt)
                                                     : avcodec_get_name(dc->codec_id),
                p->fps, p->a.io.capture_format ? "" : " (the device's choice)");

    /* The window first: without a display nothing else is worth doing. */
    AVRational sar =
        vs->sample_aspect_ratio.num > 0 ? vs->sample_aspect_ratio : dc->sample_aspect_ratio;
    double pixel = sar.num > 0 && sar.den > 0 ? av_q2d(sar) : 1;
    double aspect = (double)p->w / p->h * (turned ? 1 / pixel : pixel);
    char title[600];
    snprintf(title, sizeof title, "clvid - %.500s", p->path);
    clv_window_options wo = {.title = title,
                             .width = p->a.width,
                             .height = p->a.height,
                             .fullscreen = p->a.fullscreen,
                             .vsync = !p->a.untimed};
    if ((err = clv_window_open(&wo, p->w, p->h, aspect, &p->win, msg)))
        return err;

    /* The -vf chains are built now (their errors are the user's to see
     * before anything plays); the presets on the keys when first asked for. */
    clv_context_options copt = p->a.io.engine;
    copt.profiling = 1;
    if ((err = clv_context_create(&copt, &p->ctx, msg)))
        return err;
    for (int i = 0; i < p->a.chain_count; i++)
        if ((err = clv_chain_create(p->ctx, &descs[i], &p->vf[i], msg)))
            return err;
    AVRational rate = clv_decoder_frame_rate(p->dec);
    for (int i = 0; i < p->a.chain_count; i++)
        clv_chain_set_frame_rate(p->vf[i], rate.num, rate.den);
    if ((err = clv_reload_create(p->ctx, p->vf, p->a.chain_count, &p->reload, msg)))
        return err;
    clv_stage_options so = window_stage(p, 1);
    if ((err = clv_stage_create(p->ctx, &so, NULL, &p->stage, msg)))
        return err;
    clv_devices_text(p->ctx, p->devices, sizeof p->devices);
    clv_device_faults_from_env(p->stage);
    clv_chain *first = p->a.chain_count ? p->vf[0] : NULL;
    if (!first && (err = preset_chain(p, 1, &first, msg)))
        return err;
    activate(p, first, p->a.chain_count ? 0 : 1, 0);

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
    if (p->a.io.output && (err = record_open(p, msg)))
        return err;
    if ((err = start_decoder(p, msg)))
        return err;
    if (p->sink && (err = clv_sink_start(p->sink, msg)))
        return err;
    p->hud_at = p->started_at = clv_io_seconds();
    err = run(p, msg);
    if (!err && p->sink && p->recorded == 0) {
        /* Stopped before the first frame: no file rather than an empty one. */
        clv_sink_finish(p->sink, 0, NULL, NULL, NULL);
        err = CLV_EINVAL;
        snprintf(msg->text, sizeof msg->text,
                 "stopped before the first frame was shown; '%.900s' not written", p->a.io.output);
    } else if (!err && p->sink) {
        /* The recording is finished on q, Ctrl-C or the source's end alike. */
        clv_msg note = {{0}};
        err = clv_sink_finish(p->sink, 1, &p->mic_packets, &note, msg);
        if (note.text[0])
            fprintf(stderr, "clvid: %s\n", note.text);
        if (!err)
            fprintf(stderr, "clvid: recorded %lld frames to %s\n", (long long)p->recorded,
                    p->a.io.output);
    }
    if (!err && p->a.screenshot) {
        uint8_t *px = NULL;
        p->hud_dirty = 1;
        int cw = 0, ch = 0;
        if (!(err = draw(p, &px, &cw, &ch)))
            err = clv_png_write(p->a.screenshot, px, cw, ch, msg);
        free(px);
    }
    if (p->a.stats)
        write_stats(p);
    return err;
}

/* The bundled sample: beside the sources this program was built from, or
 * installed under share/clvid. */
static const char *bundled_sample(void)
{
    static const char *const candidates[] = {
        CLVID_MEDIA_DIR "/sample.mp4",
        CLVID_INSTALLED_MEDIA_DIR "/sample.mp4",
        "media/sample.mp4",
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], R_OK) == 0)
            return candidates[i];
    return NULL;
}

int clv_player_run(const clv_player_options *options, const volatile sig_atomic_t *quit,
                   clv_msg *msg)
{
    msg->text[0] = 0;
    player *p = calloc(1, sizeof *p);
    if (!p)
        return snprintf(msg->text, sizeof msg->text, "out of memory"), CLV_ENOMEM;
    p->a = *options;
    p->entered_at = clv_io_seconds();
    p->quit_signal = quit;
    p->path = p->a.io.input;
    if (!p->path && !p->a.io.input_format)
        p->path = bundled_sample();
    int err = play_main(p, msg);
    if (p->dec)
        clv_decoder_stop(p->dec);
    clv_sink_close(p->sink);
    clv_queue_destroy(p->video_q);
    clv_queue_destroy(p->packet_q);
    clv_decoder_close(p->dec);
    clv_audio_close(p->audio);
    clv_sound_close(p->snd);
    clv_reload_destroy(p->reload); /* its build thread uses the context */
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
    return err;
}
