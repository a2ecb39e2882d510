/* control.c - the player's side of the control socket (--ipc, mpv's JSON
 * IPC; src/pipeline/ipc.h): the commands the socket queued, applied
 * between frames on the player's thread as the keys' actions are, and the
 * events it pushes (the chain changed, reconnecting, the end). */
#include "player_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void reply_chain(clv_player *p, clv_ipc_request *req)
{
    char text[16384];
    clv_json j = {0};
    clv_json_string(&j, clv_player_chain_text(p, text, sizeof text));
    clv_ipc_reply(p->ipc, req, NULL, j.text);
    clv_json_free(&j);
}

static void refused(clv_player *p, clv_ipc_request *req, const char *verb, const char *why)
{
    char text[1200];
    snprintf(text, sizeof text, "%s: %s", verb, why);
    clv_ipc_reply(p->ipc, req, text, NULL);
}

/* set_chain TEXT: built at the player's depth (tone-mapped as the -vf
 * chains are) beside the chain shown, which stays when the new one can't
 * be parsed, built or take this picture. */
static void set_chain(clv_player *p, clv_ipc_request *req)
{
    clv_msg m = {{0}};
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    int added = 0;
    int err = clv_chain_parse(req->arg[0], &desc, &m);
    if (!err)
        err = clv_player_chain_create(p, desc, &chain, &added, &m);
    clv_chain_desc_destroy(desc);
    if (!err) {
        clv_size in = clv_pipeline_upright(p->in, p->rotation), out;
        clv_chain_set_frame_rate(chain, p->in->frame_rate.num, p->in->frame_rate.den);
        err = clv_chain_output_size(chain, &in, &out, &m);
    }
    if (err) {
        clv_chain_destroy(chain);
        refused(p, req, "set_chain", m.text);
        return;
    }
    /* The frames in flight may run the chain set before: out first. */
    clv_player_drain(p);
    clv_player_activate(p, chain, 0, p->vf_index);
    clv_chain_destroy(p->ipc_chain);
    p->ipc_chain = chain;
    p->timed_chain = NULL; /* the HUD's per-filter times start again */
    p->refilter = p->paused;
    reply_chain(p, req);
}

static void set_param(clv_player *p, clv_ipc_request *req)
{
    clv_msg m = {{0}};
    if (!p->active) {
        refused(p, req, "set_param", "no chain is running");
        return;
    }
    if (clv_chain_set_param(p->active, req->index, req->arg[1], req->arg[2], &m)) {
        refused(p, req, "set_param", m.text);
        return;
    }
    p->chain_changed = 1;
    p->hud_dirty = 1;
    if (p->paused)
        p->refilter = 1;
    reply_chain(p, req);
}

/* screenshot PATH: the filtered frame shown, as a PNG; a file already at
 * PATH is left as it is. */
static void screenshot(clv_player *p, clv_ipc_request *req)
{
    const char *path = req->arg[0];
    struct stat st;
    if (!p->presented) {
        refused(p, req, "screenshot", "no frame shown yet");
        return;
    }
    if (!*path || lstat(path, &st) == 0 || errno != ENOENT) {
        char why[1100];
        snprintf(why, sizeof why, "'%.900s' exists; not overwritten", path);
        refused(p, req, "screenshot", *path ? why : "no path given");
        return;
    }
    int w, h;
    clv_window_frame_size(p->win, &w, &h);
    uint8_t *px = w > 0 && h > 0 ? malloc((size_t)w * (size_t)h * 4) : NULL;
    clv_msg m = {{0}};
    if (!px) {
        refused(p, req, "screenshot", "out of memory");
        return;
    }
    clv_window_frame_pixels(p->win, px);
    int err = clv_png_write(path, px, w, h, 0, &m);
    free(px);
    if (err) {
        refused(p, req, "screenshot", m.text);
        return;
    }
    p->screenshots++;
    clv_json j = {0};
    clv_json_add(&j, "{\"path\":");
    clv_json_string(&j, path);
    clv_json_add(&j, ",\"width\":%d,\"height\":%d}", w, h);
    clv_ipc_reply(p->ipc, req, NULL, j.text);
    clv_json_free(&j);
}

static void seek(clv_player *p, clv_ipc_request *req)
{
    if (p->a.io.live) {
        refused(p, req, "seek", "not available on a live source");
        return;
    }
    p->seek_to = req->absolute ? req->seconds : p->last_pts + req->seconds;
    p->seek_pending = 1;
    p->hud_dirty = 1;
    clv_ipc_reply(p->ipc, req, NULL, NULL);
}

/* A recording's latency, as transcode's get stats gives it (from each
 * frame's packet read to its encoded packet written; the encoder's own
 * time), under record_*: null until the first packet is written and
 * without a recording. */
static void record_latency(clv_player *p, clv_json *j)
{
    clv_latency_summary lat = {0}, enc = {0};
    if (p->sink)
        clv_sink_latency(p->sink, &lat, &enc);
    if (lat.count)
        clv_json_add(j,
                     ",\"record_latency_p50_ms\":%.3f,\"record_latency_p99_ms\":%.3f,"
                     "\"record_latency_max_ms\":%.3f",
                     lat.p50, lat.p99, lat.max);
    else
        clv_json_add(j, ",\"record_latency_p50_ms\":null,\"record_latency_p99_ms\":null,"
                        "\"record_latency_max_ms\":null");
    if (enc.count)
        clv_json_add(j, ",\"record_encoder_p50_ms\":%.3f,\"record_encoder_p99_ms\":%.3f", enc.p50,
                     enc.p99);
    else
        clv_json_add(j, ",\"record_encoder_p50_ms\":null,\"record_encoder_p99_ms\":null");
    clv_json_add(j, ",\"record_latency_frames\":%lld", (long long)lat.count);
}

static void get(clv_player *p, clv_ipc_request *req)
{
    clv_json j = {0};
    char text[16384];
    switch (req->what) {
    case CLV_IPC_STATS:
        clv_decode_text(clv_decoder_media(p->dec), text, sizeof text);
        clv_json_add(&j, "{\"decode\":");
        clv_json_string(&j, text);
        clv_json_add(&j,
                     ",\"frames\":%lld,\"fps\":%.3f,\"dropped\":%lld,\"stale_dropped\":%lld,"
                     "\"latency_ms\":",
                     (long long)p->presented, p->shown_fps, (long long)p->dropped,
                     (long long)p->stale_seen);
        if (p->latency_ms > 0)
            clv_json_add(&j, "%.3f", p->latency_ms);
        else
            clv_json_add(&j, "null");
        clv_json_add(&j, ",\"device\":");
        clv_json_string(&j, p->devices);
        clv_json_add(&j, ",\"paused\":%s,\"time\":%.6f,\"duration\":%.6f,\"chain\":",
                     p->paused ? "true" : "false", p->last_pts, p->duration);
        clv_json_string(&j, clv_player_chain_text(p, text, sizeof text));
        clv_json_add(&j,
                     ",\"width\":%d,\"height\":%d,\"recorded\":%lld,\"reconnecting\":%s,"
                     "\"reconnects\":%lld",
                     p->out_w, p->out_h, (long long)p->recorded, p->reconnecting ? "true" : "false",
                     (long long)p->reconnects);
        record_latency(p, &j);
        clv_json_add(&j, "}");
        break;
    case CLV_IPC_CHAIN:
        clv_json_string(&j, clv_player_chain_text(p, text, sizeof text));
        break;
    case CLV_IPC_FILTERS:
        clv_ipc_filters_json(&j);
        break;
    case CLV_IPC_DEVICES:
        clv_ipc_devices_json(&j, p->ctx);
        break;
    }
    clv_ipc_reply(p->ipc, req, j.text ? NULL : "out of memory", j.text);
    clv_json_free(&j);
}

int clv_player_control(clv_player *p, clv_msg *msg)
{
    (void)msg;
    clv_ipc_request *req;
    int taken = 0;
    /* at most 32 a pass of the event loop, as transcode's a frame */
    while (taken++ < 32 && (req = clv_ipc_next(p->ipc))) {
        p->redraw = 1;
        switch (req->verb) {
        case CLV_IPC_SET_CHAIN:
            set_chain(p, req);
            break;
        case CLV_IPC_SET_PARAM:
            set_param(p, req);
            break;
        case CLV_IPC_GET:
            get(p, req);
            break;
        case CLV_IPC_SCREENSHOT:
            screenshot(p, req);
            break;
        case CLV_IPC_PAUSE:
        case CLV_IPC_RESUME:
            clv_player_set_paused(p, req->verb == CLV_IPC_PAUSE);
            p->hud_dirty = 1;
            clv_ipc_reply(p->ipc, req, NULL, NULL);
            break;
        case CLV_IPC_SEEK:
            seek(p, req);
            break;
        case CLV_IPC_QUIT:
            p->quit = 1;
            clv_ipc_reply(p->ipc, req, NULL, NULL);
            break;
        default:
            clv_ipc_reply(p->ipc, req, "not available in play", NULL);
            break;
        }
    }
    /* A chain changed by a command or a key (a preset, w, up/down). */
    if (p->chain_changed) {
        char text[16384];
        clv_json j = {0};
        p->chain_changed = 0;
        clv_json_add(&j, "\"chain\":");
        clv_json_string(&j, clv_player_chain_text(p, text, sizeof text));
        clv_ipc_event(p->ipc, "chain-changed", j.text);
        clv_json_free(&j);
    }
    return 0;
}

void clv_player_tell_end(clv_player *p, int err, const clv_msg *msg)
{
    clv_json j = {0};
    int stopped = p->quit || (p->quit_signal && *p->quit_signal) || !p->eof;
    clv_json_add(&j, "\"reason\":\"%s\"", err ? "error" : stopped ? "quit" : "eof");
    if (err) {
        clv_json_add(&j, ",\"error\":");
        clv_json_string(&j, msg->text);
    }
    clv_ipc_event(p->ipc, "end", j.text);
    clv_json_free(&j);
}

void clv_player_tell_reconnect(clv_player *p, const char *event, int attempt)
{
    if (!p->ipc)
        return;
    clv_json j = {0};
    clv_json_add(&j, "\"input\":");
    clv_json_string(&j, p->path);
    if (!strcmp(event, "reconnecting")) {
        clv_json_add(&j, ",\"reason\":");
        clv_json_string(&j, p->retry.why);
    }
    clv_json_add(&j, ",\"attempt\":%d,\"outage\":%.3f,\"time\":%.6f", attempt,
                 clv_io_seconds() - p->retry.began, p->last_pts);
    clv_ipc_event(p->ipc, event, j.text);
    clv_json_free(&j);
}
