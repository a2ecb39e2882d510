/* reconnect.c - --reconnect in the window: a network input that drops is
 * opened again on a thread of its own (clv_decoder_retry, transcode's
 * policy), so that the window goes on answering its events and control
 * socket while a try blocks; the player's thread restarts the decoder when
 * the input is back. */
#include "player_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- The retrying thread ----------------------------------------------- */

static void trying(void *user, int attempt)
{
    atomic_store(&((clv_player_retry *)user)->attempt, attempt);
}

static int stopped(void *user)
{
    return atomic_load(&((clv_player_retry *)user)->stop);
}

static void *retry_thread(void *arg)
{
    clv_player_retry *t = arg;
    clv_retry policy = {
        .began = t->began, .most = t->most, .trying = trying, .stop = stopped, .user = t};
    t->result = clv_decoder_retry(t->dec, &policy, &t->attempts, t->last, sizeof t->last, &t->msg);
    atomic_store(&t->done, 1);
    return NULL;
}

/* ---- The player's side ------------------------------------------------- */

int clv_player_reconnect_begin(clv_player *p, clv_msg *msg)
{
    clv_player_retry *t = &p->retry;
    if (!p->a.io.reconnect || !clv_io_network_url(p->path) || p->quit ||
        (p->quit_signal && *p->quit_signal) ||
        !clv_decoder_source_ended(p->dec, t->why, sizeof t->why))
        return 0;
    t->dec = p->dec;
    t->began = clv_io_seconds();
    t->most = p->a.io.reconnect_max;
    t->told = t->result = t->attempts = 0;
    t->last[0] = 0;
    t->msg.text[0] = 0;
    atomic_store(&t->attempt, 0);
    atomic_store(&t->done, 0);
    atomic_store(&t->stop, 0);
    if (pthread_create(&t->thread, NULL, retry_thread, t))
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory (threads)");
    t->running = 1;
    p->reconnecting = 1;
    p->hud_dirty = p->redraw = 1;
    fprintf(stderr, "clvid: '%s' dropped (%s): reconnecting...\n", p->path, t->why);
    return 1;
}

int clv_player_reconnect_poll(clv_player *p, clv_msg *msg)
{
    clv_player_retry *t = &p->retry;
    int attempt = atomic_load(&t->attempt);
    if (attempt > t->told) {
        t->told = attempt;
        clv_player_tell_reconnect(p, "reconnecting", attempt);
        p->hud_dirty = p->redraw = 1;
    }
    if (!atomic_load(&t->done)) {
        /* The seconds counted on the HUD, four times a second. */
        if (clv_io_seconds() - p->hud_text_at >= 0.25)
            p->redraw = 1;
        return 0;
    }
    pthread_join(t->thread, NULL);
    t->running = 0;
    p->reconnecting = 0;
    p->hud_dirty = p->redraw = 1;
    const double outage = clv_io_seconds() - t->began;
    if (t->result < 0) {
        *msg = t->msg;
        p->eof = 1;
        return t->result;
    }
    if (t->result == 0) {
        if (clv_decoder_start(p->dec, p->video_q, p->packet_q))
            return clv_io_fail(msg, CLV_ENOMEM, "out of memory (threads)");
        p->reconnects++;
        p->clock_running = 0; /* a file's frames: timed from the next one shown */
        clv_player_tell_reconnect(p, "reconnected", t->attempts);
        fprintf(stderr, "clvid: '%s' is back: reconnected (attempt %d, %.1f s)\n", p->path,
                t->attempts, outage);
        return 0;
    }
    /* Given up: the input has ended, as without --reconnect. */
    p->eof = 1;
    fprintf(stderr,
            "clvid: '%s': the source dropped (%s) and did not come back within %.1f s%s%s; the "
            "input ends there\n",
            p->path, t->why, outage, t->last[0] ? ": " : "", t->last);
    return 0;
}

void clv_player_reconnect_text(const clv_player *p, char *buf, size_t size)
{
    int attempt = atomic_load(&p->retry.attempt);
    snprintf(buf, size, "reconnecting (attempt %d, %.1f s)", attempt > 0 ? attempt : 1,
             clv_io_seconds() - p->retry.began);
}

void clv_player_reconnect_stop(clv_player *p)
{
    clv_player_retry *t = &p->retry;
    if (!t->running)
        return;
    atomic_store(&t->stop, 1);
    clv_decoder_interrupt(p->dec); /* a try under way ends at once */
    pthread_join(t->thread, NULL);
    t->running = 0;
}
