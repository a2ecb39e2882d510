/* command.c - the player's actions applied to its state (mpv's
 * command.c): presets, chains and parameters switched between frames
 * without rebuilding, pause, seek, compare view, screenshots, sound. */
#include "player_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

/* ---- Chains ---------------------------------------------------------------- */

const char *clv_player_chain_text(const clv_player *p, char *buf, size_t size)
{
    clv_chain_format(clv_chain_get_desc(p->active), buf, size);
    if (!buf[0])
        snprintf(buf, size, "(no filter)");
    return buf;
}

double clv_player_output_aspect(clv_player *p, int w, int h)
{
    /* The chain's output aspect: the input's sample aspect through its
     * filters (scale keeps the display aspect, transpose turns it). */
    clv_size in = clv_pipeline_upright(p->in, p->rotation), out = {w, h, 0, 1, 0, 0, 0};
    if (p->active)
        clv_chain_output_size(p->active, &in, &out, NULL);
    double pixel = out.sar_num > 0 && out.sar_den > 0 ? (double)out.sar_num / out.sar_den : 1;
    return (double)w / h * pixel;
}

void clv_player_activate(clv_player *p, clv_chain *chain, int preset, int vf_index)
{
    /* A chain that can't take this picture (a size it can't make) is
     * refused with its reason; the one playing goes on. */
    clv_size in = clv_pipeline_upright(p->in, p->rotation), out;
    clv_msg m = {{0}};
    if (chain && clv_chain_output_size(chain, &in, &out, &m)) {
        clv_player_notice(p, "%s", m.text);
        return;
    }
    p->active = chain;
    /* What a deinterlacer in it held is of other frames: it starts afresh,
     * as at the start of the input. */
    clv_chain_restart(chain);
    p->stream_runs = 0;
    p->preset = preset;
    p->vf_index = vf_index;
    p->param_pick = 0;
    p->chain_changed = 1;
    clv_stage_set_chain(p->stage, chain);
    if (p->paused)
        p->refilter = 1;
}

/* The parameter the up/down keys move: the preset's, or for a -vf chain
 * the first parameter of the first filter that has a step. */
int clv_player_main_param(const clv_player *p, int *filter, int *param)
{
    const clv_chain_desc *d = clv_chain_get_desc(p->active);
    if (p->preset) {
        const clv_preset *pr = &clv_presets[p->preset - 1];
        if (pr->filter < 0)
            return 0;
        const clv_filter *f = clv_chain_desc_filter(d, pr->filter);
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
        for (int i = 0; i < clv_chain_desc_count(d); i++) {
            const clv_filter *f = clv_chain_desc_filter(d, i);
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

static void move_param(clv_player *p, int direction)
{
    int fi, pi;
    if (!clv_player_main_param(p, &fi, &pi)) {
        char text[256];
        clv_player_notice(p, "%s has no parameter for up/down",
                          clv_player_chain_text(p, text, sizeof text));
        return;
    }
    char line[128];
    clv_msg msg = {{0}};
    if (clv_chain_step_param(p->active, fi, pi, direction, line, sizeof line, &msg)) {
        clv_player_notice(p, "%s", msg.text);
        return;
    }
    clv_player_notice(p, "%s", line);
    p->chain_changed = 1;
    if (p->paused)
        p->refilter = 1;
}

/* ---- Actions -------------------------------------------------------------- */

static int compare_on(clv_player *p, clv_msg *msg)
{
    if (!p->orig_stage) {
        /* The original goes through the same conversion, unfiltered. */
        clv_stage_options o = clv_player_window_stage(p, 0);
        clv_player_drain(p);
        /* An HDR original is tone-mapped as the filtered side is. */
        int err = 0;
        if (p->hdr && !p->tonemap_only) {
            clv_chain_desc *d = NULL;
            if (!(err = clv_chain_parse("tonemap=bt2390", &d, msg)))
                err = clv_chain_create_depth(p->ctx, d, p->depth, &p->tonemap_only, msg);
            clv_chain_desc_destroy(d);
            if (!err) {
                clv_size in = clv_pipeline_upright(p->in, p->rotation), out;
                err = clv_chain_output_size(p->tonemap_only, &in, &out, msg);
            }
        }
        if (!err)
            err = clv_stage_create(p->ctx, &o, p->hdr && p->tonemap ? p->tonemap_only : NULL,
                                   &p->orig_stage, msg);
        if (err)
            return err;
        p->refilter = 1; /* so the left half has a picture at once */
    }
    p->compare = 1;
    return 0;
}

int clv_player_check_cadence(const clv_chain_desc *desc, clv_msg *msg)
{
    int delay, rate;
    return clv_chain_desc_cadence(desc, &delay, &rate, msg);
}

static int has_tonemap(const clv_chain_desc *d)
{
    for (int i = 0; i < clv_chain_desc_count(d); i++)
        if (!strcmp(clv_filter_name(clv_chain_desc_filter(d, i)), "tonemap"))
            return 1;
    return 0;
}

int clv_player_chain_create(clv_player *p, const clv_chain_desc *desc, clv_chain **out, int *added,
                            clv_msg *msg)
{
    *added = 0;
    int err = clv_player_check_cadence(desc, msg);
    if (err)
        return err;
    if (!p->tonemap || has_tonemap(desc))
        return clv_chain_create_depth(p->ctx, desc, p->depth, out, msg);
    char text[16384];
    clv_chain_format(desc, text, sizeof text);
    size_t n = strlen(text);
    snprintf(text + n, sizeof text - n, "%stonemap=bt2390",
             n ? "," : ""); /* mpv's and libplacebo's default curve */
    clv_chain_desc *d = NULL;
    err = clv_chain_parse(text, &d, msg);
    if (!err)
        err = clv_chain_create_depth(p->ctx, d, p->depth, out, msg);
    clv_chain_desc_destroy(d);
    *added = !err;
    return err;
}

/* t: an HDR source tone-mapped for the display, or shown as it is. The
 * -vf chains are built again with their values now, tonemap added on their
 * end or taken off; the presets are built again when next asked for. */
static int toggle_tonemap(clv_player *p, clv_msg *msg)
{
    if (!p->hdr) {
        clv_player_notice(p, "%s", "the input is not HDR (PQ or HLG): nothing to tone-map");
        return 0;
    }
    clv_player_drain(p);
    p->tonemap = !p->tonemap;
    clv_chain *made[CLV_PLAYER_CHAINS] = {0};
    int added[CLV_PLAYER_CHAINS] = {0}, err = 0;
    for (int i = 0; i < p->a.chain_count && !err; i++) {
        const clv_chain_desc *d = clv_chain_get_desc(p->vf[i]);
        int n = clv_chain_desc_count(d);
        clv_chain_desc *user = clv_chain_desc_slice(d, 0, p->vf_tonemapped[i] ? n - 1 : n);
        err = user ? clv_player_chain_create(p, user, &made[i], &added[i], msg) : CLV_ENOMEM;
        clv_chain_desc_destroy(user);
    }
    if (err) { /* the chains shown stay */
        for (int i = 0; i < p->a.chain_count; i++)
            clv_chain_destroy(made[i]);
        p->tonemap = !p->tonemap;
        return err;
    }
    clv_reload_destroy(p->reload);
    p->reload = NULL;
    for (int i = 0; i < p->a.chain_count; i++) {
        clv_chain_set_frame_rate(made[i], p->in->frame_rate.num, p->in->frame_rate.den);
        clv_chain_destroy(p->vf[i]);
        p->vf[i] = made[i];
        p->vf_tonemapped[i] = added[i];
    }
    for (int i = 0; i < CLV_PRESET_COUNT; i++) {
        clv_chain_destroy(p->presets[i]);
        p->presets[i] = NULL;
    }
    if ((err = clv_reload_create(p->ctx, p->vf, p->a.chain_count, &p->reload, msg)))
        return err;
    clv_chain *shown = p->preset ? NULL : p->vf[p->vf_index];
    if (p->preset && (err = clv_player_preset_chain(p, p->preset, &shown, msg)))
        return err;
    p->active = NULL;
    clv_player_activate(p, shown, p->preset, p->vf_index);
    if (p->orig_stage)
        clv_stage_set_chain(p->orig_stage, p->tonemap ? p->tonemap_only : NULL);
    clv_player_notice(p, "%s",
                      p->tonemap ? "HDR: tone-mapped to SDR for the display (tonemap)"
                                 : "HDR: shown as it is, not tone-mapped");
    p->refilter = 1;
    return 0;
}

/* Preset `n` (1..CLV_PRESET_COUNT), built the first time it is asked for: the start
 * builds only the chain shown first. From the binary cache a build takes
 * milliseconds; the first run on a machine compiles. */
int clv_player_preset_chain(clv_player *p, int n, clv_chain **out, clv_msg *msg)
{
    int err = 0;
    if (!p->presets[n - 1]) {
        clv_chain_desc *d = NULL;
        int added = 0;
        if (!(err = clv_chain_parse(clv_presets[n - 1].chain, &d, msg)))
            err = clv_player_chain_create(p, d, &p->presets[n - 1], &added, msg);
        clv_chain_desc_destroy(d);
        if (err)
            return err;
    }
    *out = p->presets[n - 1];
    return 0;
}

int clv_player_act(clv_player *p, const clv_binding *b, clv_msg *msg)
{
    p->hud_dirty = 1;
    p->redraw = 1;
    switch (b->action) {
    case CLV_ACT_PRESET: {
        clv_chain *chain = NULL;
        int err = clv_player_preset_chain(p, b->arg, &chain, msg);
        if (err)
            return err;
        clv_player_activate(p, chain, b->arg, p->vf_index);
        break;
    }
    case CLV_ACT_CYCLE:
        if (p->compose)
            return clv_player_next_graph(p, msg);
        if (p->a.chain_count == 0) {
            clv_player_notice(p, "%s", "no -vf chains given on the command line to cycle through");
            break;
        }
        {
            int next = p->preset ? 0 : (p->vf_index + 1) % p->a.chain_count;
            clv_player_activate(p, p->vf[next], 0, next);
        }
        break;
    case CLV_ACT_PARAM:
        move_param(p, b->arg);
        break;
    case CLV_ACT_PAUSE:
        clv_player_set_paused(p, !p->paused);
        break;
    case CLV_ACT_STEP:
        clv_player_set_paused(p, 1);
        p->step = 1;
        if (p->snd)
            clv_sound_clear(p->snd);
        break;
    case CLV_ACT_SEEK:
        if (p->a.io
                .live) { /* as the control socket's seek: a camera or stream has no time to go to */
            clv_player_notice(p, "seek: %s", "not available on a live source");
            break;
        }
        p->seek_to = p->last_pts + b->arg;
        p->seek_pending = 1;
        break;
    case CLV_ACT_TONEMAP:
        return toggle_tonemap(p, msg);
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
        int sw, sh;
        clv_window_frame_size(p->win, &sw, &sh);
        uint8_t *px = malloc((size_t)sw * (size_t)sh * 4);
        /* The next free number: a screenshot never replaces a file (one of
         * an earlier session, or the user's). */
        do
            snprintf(path, sizeof path, "clvid-shot-%lld.png", (long long)++p->screenshots);
        while (access(path, F_OK) == 0 && p->screenshots < 1000000);
        clv_msg m = {{0}};
        if (!px) {
            clv_player_notice(p, "%s", "screenshot: out of memory");
            break;
        }
        clv_window_frame_pixels(p->win, px);
        if (clv_png_write(path, px, sw, sh, 0, &m))
            clv_player_notice(p, "%s", m.text);
        else
            clv_player_notice(p, "saved %s", path);
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
        clv_player_notice(p, "%s", p->muted ? "muted" : "sound on");
        break;
    case CLV_ACT_VOLUME: {
        p->volume = fmin(2.0, fmax(0.0, p->volume + 0.1 * b->arg));
        if (p->snd)
            clv_sound_set_volume(p->snd, p->volume, p->muted);
        char text[32];
        snprintf(text, sizeof text, "%.0f%%", p->volume * 100);
        clv_player_notice(p, "volume %s", text);
        break;
    }
    case CLV_ACT_QUIT:
        p->quit = 1;
        break;
    case CLV_ACT_NEXT_PARAM: {
        int fi, pi;
        if (p->preset) {
            clv_player_notice(p, "%s",
                              "tab picks among a -vf chain's parameters; a preset has one");
            break;
        }
        p->param_pick++;
        if (clv_player_main_param(p, &fi, &pi)) {
            const clv_param *par =
                clv_filter_param(clv_chain_desc_filter(clv_chain_get_desc(p->active), fi), pi);
            clv_player_notice(p, "up/down: %s", par->name);
        }
        break;
    }
    case CLV_ACT_RELOAD:
        if (!p->reload)
            clv_player_notice(p, "%s", "no kernel file to reload (-vf opencl=file=KERNEL.cl)");
        else
            clv_reload_request(p->reload);
        break;
    }
    return 0;
}
