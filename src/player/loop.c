/* loop.c - the play loop: the decoder thread feeds the GPU stage; filtered
 * frames are shown at their time against the sound (or the wall clock),
 * late ones dropped and counted; a seek restarts the decoder; the frames
 * shown go to the recording. */
#include "player_internal.h"

#include <math.h>
#include <stdio.h>

/* ---- Clock ---------------------------------------------------------------- */

/* Media time now, in seconds: the sound's when it plays, else the wall
 * clock from the first frame shown; < 0 before that. */
double clv_player_clock(clv_player *p)
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

void clv_player_set_paused(clv_player *p, int paused)
{
    if (paused == p->paused)
        return;
    if (paused) {
        p->paused_at = p->clock_running ? clv_player_clock(p) : p->last_pts;
        p->paused = 1;
    } else {
        p->paused = 0;
        p->base_pts = p->paused_at;
        p->base_wall = clv_io_seconds();
    }
    if (p->snd)
        clv_sound_pause(p->snd, paused);
}

/* ---- Decoding and seeking ------------------------------------------------- */

int clv_player_start_decoder(clv_player *p, clv_msg *msg)
{
    /* Live: never more frames waiting than the stage has slots. */
    p->video_q = clv_queue_create(p->a.io.live ? CLV_PLAYER_SLOTS : 8);
    p->packet_q = clv_queue_create(1024);
    if (!p->video_q || !p->packet_q)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    return clv_decoder_start(p->dec, p->video_q, p->packet_q);
}

/* Throws away the frames in flight (their results are no longer wanted). */
void clv_player_drain(clv_player *p)
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

static int seek(clv_player *p, double seconds, clv_msg *msg)
{
    char why[300];
    if (p->compose && clv_compose_can_seek(p->compose, why, sizeof why)) {
        clv_player_notice(p, "seek: %s", why);
        return 0;
    }
    if (p->duration > 0 && seconds > p->duration - 1)
        seconds = p->duration - 1;
    seconds = seconds < 0 ? 0 : seconds;
    clv_player_drain(p);
    clv_decoder_stop(p->dec);
    clv_queue_destroy(p->video_q);
    clv_queue_destroy(p->packet_q);
    p->video_q = p->packet_q = NULL;
    int err = clv_decoder_seek(p->dec, (int64_t)(seconds * 1e6), msg);
    if (!err)
        err = clv_player_start_decoder(p, msg);
    /* The graph's other inputs go to the same time (a picture stays). */
    if (!err && p->compose)
        err = clv_compose_seek(p->compose, seconds, msg);
    if (p->audio)
        clv_audio_flush(p->audio);
    if (p->snd)
        clv_sound_clear(p->snd);
    p->eof = p->end_popped = p->flushed = 0;
    /* The frames start again as at the start of the input: a deinterlacer
     * holds none of before the seek (its first outputs are none again) and
     * no longer ends (clv_chain_end); a temporal filter starts afresh. */
    clv_chain_restart(p->active);
    p->stream_runs = 0;
    p->clock_running = 0;
    p->paused_at = seconds;
    /* Show the frame sought to even when paused. */
    p->step = p->paused;
    return err;
}

/* Moves audio packets from the decoder into the sound output, keeping about
 * a second buffered; without sound (or while stepping) they are dropped. */
static void pump_audio(clv_player *p)
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

/* The active chain's cadence: the frames its output lags behind (a
 * deinterlacer: 1) and its runs on each frame (2: send_field). */
static void cadence(const clv_player *p, int *delay, int *rate)
{
    *delay = 0;
    *rate = 1;
    if (p->active)
        clv_chain_cadence(p->active, delay, rate);
}

/* Plans what the output of run k (about to be submitted) is: its frame is
 * the one of run k - delay * rate, its field that run's; the first
 * delay * rate outputs since the frames started again are none. A second
 * field's time and pts are halfway to the next frame's (the run after its
 * own, submitted before run k). */
static void plan_output(clv_player *p, uint64_t k)
{
    int delay, rate;
    cadence(p, &delay, &rate);
    const uint64_t lag = (uint64_t)(delay * rate), at = k % CLV_PLAYER_RING;
    const uint64_t run = p->stream_runs++;
    p->out_none[at] = run < lag;
    if (run < lag)
        return;
    const uint64_t src = k - lag, field = (run - lag) % (uint64_t)rate;
    const uint64_t from = src % CLV_PLAYER_RING, next = (src + 1) % CLV_PLAYER_RING;
    p->out_src[at] = src;
    p->out_field[at] = (signed char)field;
    p->out_time[at] = field ? (p->ring[from] + p->ring[next]) / 2 : p->ring[from];
    p->out_pts2[at] = field ? p->ring_pts[from] + p->ring_pts[next] : 2 * p->ring_pts[from];
}

/* Sends frame f into the stage(s) as run p->submitted, at time t (pts,
 * read: its pts and read time); the sent ring takes a reference. The
 * caller has made sure a slot is free in each. */
static int submit_run(clv_player *p, AVFrame *f, double t, int64_t pts, double read, clv_msg *msg)
{
    const uint64_t k = p->submitted;
    if (p->sent[k % CLV_PLAYER_INPUTS] != f) {
        av_frame_free(&p->sent[k % CLV_PLAYER_INPUTS]);
        if (!(p->sent[k % CLV_PLAYER_INPUTS] = av_frame_clone(f)))
            return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    }
    p->ring[k % CLV_PLAYER_RING] = t;
    p->ring_pts[k % CLV_PLAYER_RING] = pts;
    p->ring_read[k % CLV_PLAYER_RING] = read;
    if (!clv_stage_input(p->stage) || (p->orig_stage && !clv_stage_input(p->orig_stage)))
        return clv_io_fail(msg, CLV_EINVAL, "GPU stage: no slot for a frame's run");
    plan_output(p, k);
    int err = clv_feed_write(p->feed, f, clv_stage_input(p->stage), msg);
    if (!err)
        err = clv_stage_submit(p->stage, k, msg);
    if (!err && p->orig_stage &&
        !(err = clv_feed_write(p->feed, f, clv_stage_input(p->orig_stage), msg)))
        err = clv_stage_submit(p->orig_stage, k, msg);
    if (!err)
        p->submitted++;
    return err;
}

/* Sends frame f as rate runs (a deinterlacer's send_field runs the chain
 * on each frame twice: its first and second field). */
static int submit_frame(clv_player *p, AVFrame *f, double t, int64_t pts, double read, clv_msg *msg)
{
    int delay, rate, err = 0;
    cadence(p, &delay, &rate);
    for (int i = 0; !err && i < rate; i++)
        err = submit_run(p, f, t, pts, read, msg);
    return err;
}

/* 1 when the stage(s) have room for a frame's runs. */
static int room_for_frame(const clv_player *p)
{
    int delay, rate;
    cadence(p, &delay, &rate);
    /* No slot while the stage waits for its frames in flight to come out
     * (a chain of another size). */
    return clv_stage_input(p->stage) && clv_stage_pending(p->stage) + rate <= CLV_PLAYER_SLOTS &&
           (!p->orig_stage || (clv_stage_input(p->orig_stage) &&
                               clv_stage_pending(p->orig_stage) + rate <= CLV_PLAYER_SLOTS));
}

/* Takes the oldest result out unseen (no frame, or one no longer wanted). */
static void take_unseen(clv_player *p)
{
    const uint8_t *px;
    uint64_t i;
    clv_msg m;
    if (clv_stage_output(p->stage, &px, &i, &m) == 0)
        clv_stage_release(p->stage);
    if (p->orig_stage && clv_stage_pending(p->orig_stage) > 0 &&
        clv_stage_output(p->orig_stage, &px, &i, &m) == 0)
        clv_stage_release(p->orig_stage);
    p->taken++;
}

/* Sends the next decoded frame into the stage(s). Returns 1 when one was
 * sent, 0 when none is ready, < 0 on an error. */
static int feed_one(clv_player *p, clv_msg *msg)
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
        /* --reconnect: a network input that dropped is opened again. */
        int again = clv_player_reconnect_begin(p, msg);
        if (again < 0)
            return again;
        p->eof = !again;
        return 0;
    }
    AVFrame *f = item;
    p->decoded++;
    double t = (double)f->pts * av_q2d(p->tb);
    double now = p->a.untimed || p->a.io.live || p->step ? -1 : clv_player_clock(p);
    if (now >= 0 && t + 1.0 / p->fps < now) {
        /* Late already: showing it would put the picture behind the sound. */
        p->dropped++;
        av_frame_free(&f);
        return 1;
    }
    if (p->compose) {
        /* The graph's frame for it, made of every input's at its time. */
        AVFrame *composed;
        int ended, err = clv_compose_frame(p->compose, f, &composed, &ended, msg);
        av_frame_free(&f);
        if (err)
            return err;
        if (ended) /* an input with eof_action=endall ended: the output with it */
            p->eof = 1;
        if (!composed)
            return ended ? 0 : 1;
        f = composed;
    }
    int err = submit_frame(p, f, t, f->pts, clv_frame_read_time(f), msg);
    av_frame_free(&f); /* the sent ring holds it */
    return err ? err : 1;
}

/* Sends the frame shown again (a chain or parameter changed while
 * paused). A chain that holds frames (a deinterlacer) gets it delay + 1
 * times, so that its output is made of it (the frame its own previous and
 * next), and the field shown is shown again; the outputs before are none,
 * and so are the held ones after (the frames start again). */
static int refilter(clv_player *p, clv_msg *msg)
{
    /* What is in flight is dropped; the decoder goes on after it. */
    const uint64_t src = p->shown_src, at = src % CLV_PLAYER_RING;
    AVFrame *shown = p->sent[src % CLV_PLAYER_INPUTS];
    if (!shown || p->submitted - src >= CLV_PLAYER_INPUTS)
        return 0;
    shown = av_frame_clone(shown); /* its slot in the ring may be reused below */
    if (!shown)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    clv_player_drain(p);
    int delay, rate, err = 0;
    const int field = p->last_field;
    cadence(p, &delay, &rate);
    p->stream_runs = 0;
    for (int n = 0; !err && n <= delay; n++) {
        for (int i = 0; !err && i < rate; i++) {
            while ((!clv_stage_input(p->stage) ||
                    (p->orig_stage && !clv_stage_input(p->orig_stage))) &&
                   clv_stage_pending(p->stage) > 0)
                take_unseen(p); /* runs of no frame: they come first */
            const uint64_t k = p->submitted;
            err = submit_run(p, shown, p->ring[at], p->ring_pts[at], p->ring_read[at], msg);
            /* Only the field shown, at its time: the picture stays as it was. */
            if (!err && n == delay && i != field % rate)
                p->out_none[k % CLV_PLAYER_RING] = 1;
            else if (!err && n == delay)
                p->out_time[k % CLV_PLAYER_RING] = p->last_pts;
        }
    }
    av_frame_free(&shown);
    p->stream_runs = 0;
    p->refilter = 0;
    p->force_show = 1;
    return err;
}

/* The input ended with a deinterlacer shown: its frame n comes with
 * frame n + 1, so the chain is ended (clv_chain_end: bwdif's last field is
 * spatial only, as ffmpeg's and transcode's) and the last frame sent again
 * (delay times, as ffmpeg's yadif takes the last frame for its own next) a
 * frame's time after it, which gives the last frame (both its fields at
 * send_field). Returns 1 when it was sent. */
static int flush_held(clv_player *p, clv_msg *msg)
{
    int delay, rate;
    cadence(p, &delay, &rate);
    if (!delay || p->flushed || p->submitted == 0 || p->a.io.live)
        return 0;
    p->flushed = 1;
    const uint64_t last = p->submitted - 1, at = last % CLV_PLAYER_RING;
    AVFrame *f = p->sent[last % CLV_PLAYER_INPUTS];
    if (!f)
        return 0;
    const AVRational step = av_inv_q(av_d2q(p->fps, 100000));
    int64_t pts = p->ring_pts[at] + av_rescale_q(1, step, p->tb);
    double t = p->ring[at] + 1.0 / p->fps;
    int err = 0;
    clv_chain_end(p->active);
    for (int n = 0; !err && n < delay; n++) {
        err = submit_frame(p, f, t, pts, 0, msg);
        t += 1.0 / p->fps;
    }
    return err ? err : 1;
}

/* ---- Main loop ------------------------------------------------------------------ */

/* Sends the frame shown (RGBA) to the recording, with the time its
 * input frame's packet was read (0: not known), so that the recording's
 * latency is the input's to the output's, as transcode's. */
static int record(clv_player *p, const uint8_t *rgba, int64_t pts, double read, clv_msg *msg)
{
    p->recorded++;
    return clv_sink_frame(p->sink, rgba, NULL, pts, read, msg);
}

/* Shows the oldest result: 0, 1 when it was no frame (a deinterlacer's
 * first, which took the first frame in), or < 0 on an error. */
static int show(clv_player *p, clv_msg *msg)
{
    const uint8_t *filtered, *original = NULL;
    uint64_t index;
    const uint64_t at = p->taken % CLV_PLAYER_RING;
    if (p->out_none[at]) {
        take_unseen(p);
        return 1;
    }
    int err = clv_stage_output(p->stage, &filtered, &index, msg);
    if (err)
        return err;
    if (p->orig_stage && clv_stage_pending(p->orig_stage) > 0 &&
        (err = clv_stage_output(p->orig_stage, &original, &index, msg))) {
        clv_stage_release(p->stage);
        return err;
    }
    double begin = clv_io_seconds();
    int w, h;
    clv_stage_output_size(p->stage, &w, &h);
    if (w != p->out_w || h != p->out_h)
        p->hud_dirty = 1;
    p->out_w = w;
    p->out_h = h;
    clv_window_set_frame(p->win, filtered, w, h, clv_player_output_aspect(p, w, h), original);
    /* A recording keeps the size it started with: a chain of another size
     * is shown, not recorded (the HUD says how many frames were left out). */
    int recordable = w == p->rec_w && h == p->rec_h;
    if (p->sink && !recordable && p->rec_skipped++ == 0) {
        char line[128];
        snprintf(line, sizeof line, "not recording %dx%d frames: the recording is %dx%d", w, h,
                 p->rec_w, p->rec_h);
        clv_player_notice(p, "%s", line);
    }
    /* A recording at the input's rate keeps each frame's first field. */
    const int field = p->out_field[at];
    const double read = p->ring_read[p->out_src[at] % CLV_PLAYER_RING];
    if (p->sink && recordable && (p->rec_rate == 2 || field == 0) &&
        (err = record(p, filtered, p->rec_rate == 2 ? p->out_pts2[at] : p->out_pts2[at] / 2, read,
                      msg))) {
        clv_stage_release(p->stage);
        if (original)
            clv_stage_release(p->orig_stage);
        return err;
    }
    clv_stage_release(p->stage);
    if (original)
        clv_stage_release(p->orig_stage);
    p->last_pts = p->out_time[at];
    p->last_field = field;
    p->shown_src = p->out_src[at];
    p->taken++;
    if (!p->clock_running) {
        p->clock_running = 1;
        p->base_pts = p->last_pts;
        p->base_wall = clv_io_seconds();
    }
    if (p->presented++ == 0)
        p->first_shown_at = clv_io_seconds();
    if (read > 0) {
        p->latency_sum += (clv_io_seconds() - read) * 1e3;
        p->latency_count++;
    }
    clv_player_update_figures(p, 0);
    int exiting = (p->a.exit_after > 0 && p->presented >= p->a.exit_after);
    if (!exiting)
        err = clv_player_draw(p, NULL, NULL, NULL);
    p->present_s += clv_io_seconds() - begin;
    if (exiting)
        p->quit = 1;
    return err;
}

int clv_player_loop(clv_player *p, clv_msg *msg)
{
    int err = 0;
    int idle_keys = 0;
    while (!p->quit && !err && !(p->quit_signal && *p->quit_signal)) {
        if ((err = clv_player_events(p, msg)))
            break;
        if (p->ipc && (err = clv_player_control(p, msg)))
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
                clv_player_notice(p, "%s", line);
        }
        if (p->seek_pending) {
            double to = p->seek_to;
            p->seek_pending = 0;
            if ((err = seek(p, to, msg)))
                break;
        }
        if (p->refilter && p->taken > 0 && (err = refilter(p, msg)))
            break;
        if (p->reconnecting && (err = clv_player_reconnect_poll(p, msg)))
            break;
        pump_audio(p);
        /* Keep the stage's slots busy. */
        /* Live: at most two frames in the stage, so the one shown is never
         * more than a frame behind the one being filtered. */
        while (!p->eof && !p->reconnecting && (!p->paused || p->step) && room_for_frame(p) &&
               (!p->a.io.live || clv_stage_pending(p->stage) < 2) &&
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
        /* Results that are no frame go at once, paused or not. */
        if (clv_stage_pending(p->stage) > 0 && p->out_none[p->taken % CLV_PLAYER_RING]) {
            take_unseen(p);
            continue;
        }
        if (clv_stage_pending(p->stage) > 0 && (!p->paused || p->step || p->force_show)) {
            double due = p->out_time[p->taken % CLV_PLAYER_RING];
            double now = p->a.untimed || p->a.io.live || p->paused ? -1 : clv_player_clock(p);
            if (now < 0 || due <= now) {
                int r = show(p, msg);
                if (r < 0) {
                    err = r;
                    break;
                }
                if (r == 1)
                    continue;
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
            int r = flush_held(p, msg);
            if (r < 0) {
                err = r;
                break;
            }
            if (r)
                continue;
            if (p->a.loop && !p->a.io.live) { /* a live source has no start to go back to */
                p->seek_to = 0;
                p->seek_pending = 1;
                continue;
            }
            /* A file that ended before its first frame (-ss past its end)
             * is an error, as transcode's, not a window closed in silence. */
            if (p->a.autoexit && !p->a.io.live && !p->presented && !p->seek_pending) {
                err = clv_io_fail(msg, CLV_EINVAL, "'%.900s': no video frame to show%s", p->path,
                                  p->a.io.start_us ? " (is -ss past the end?)" : "");
                break;
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
            const clv_binding *b = clv_player_replay_next(p);
            if (b && (err = clv_player_act(p, b, msg)))
                break;
        }
        if (!shown) {
            /* The figures go on without frames (reconnecting, the end, a
             * pause): the HUD says none were shown rather than the last. */
            clv_player_update_figures(p, 0);
            /* Between frames the window is drawn again only when something
             * on it changed: a key, the divider, a resize, a notice ending. */
            int notice_over = p->message[0] && clv_io_seconds() >= p->message_until;
            if (notice_over)
                p->message[0] = 0;
            if (p->redraw || notice_over)
                err = clv_player_draw(p, NULL, NULL, NULL);
            p->redraw = 0;
            clv_window_sleep(p->paused || p->eof || p->reconnecting ? 10 : 1);
        }
    }
    return err;
}
