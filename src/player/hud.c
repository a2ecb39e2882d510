/* hud.c - what the player shows and tells: the HUD's text and figures,
 * notices at the bottom of the window, the window drawn, --stats at exit. */
#include "player_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavutil/pixdesc.h>

/* A line at the bottom of the window for a few seconds; fmt has one %s. */
void clv_player_notice(clv_player *p, const char *fmt, const char *text)
{
    char line[1400];
    snprintf(line, sizeof line, fmt, text);
    snprintf(p->message, sizeof p->message, "%.255s", line);
    p->message_until = clv_io_seconds() + 2.5;
    p->redraw = 1;
}

static void clock_text(double s, char *out, size_t size)
{
    s = s < 0 ? 0 : s;
    snprintf(out, size, "%02d:%04.1f", (int)(s / 60), fmod(s, 60));
}

/* The figures the HUD and --stats show, over the last half second. An
 * interval with no frame shown says so (shown 0 fps, the HUD's "-") and
 * holds the per-frame figures it has no frames for; at the end (now_anyway)
 * the last frames are folded in only over an interval long enough to
 * time (a quarter second), or when there are no figures yet (a short run):
 * else the last figures hold. */
void clv_player_update_figures(clv_player *p, int now_anyway)
{
    double now = clv_io_seconds();
    double span = now - p->hud_at;
    const int64_t shown = p->presented - p->hud_presented;
    const int first = p->figures_at == 0;
    if (span < 0.5 && !(now_anyway && shown > 0 && (span >= 0.25 || first)))
        return;
    clv_stage_times t;
    clv_stage_get_times(p->stage, &t);
    if (p->compose) { /* a graph's frames go through its stage first */
        clv_stage_times g;
        clv_compose_times(p->compose, &g);
        t.upload_ns += g.upload_ns;
        t.kernels_ns += g.kernels_ns;
        t.download_ns += g.download_ns;
    }
    uint64_t frames = t.frames - p->hud_times.frames;
    if (frames > 0) {
        p->ms_up = (double)(t.upload_ns - p->hud_times.upload_ns) / 1e6 / (double)frames;
        p->ms_kernels = (double)(t.kernels_ns - p->hud_times.kernels_ns) / 1e6 / (double)frames;
        p->ms_down = (double)(t.download_ns - p->hud_times.download_ns) / 1e6 / (double)frames;
        /* Transfers overlap the kernels on a GPU; on a CPU they all share the cores. */
        double bound = clv_context_device(p->ctx)->is_cpu
                           ? p->ms_up + p->ms_kernels + p->ms_down
                           : fmax(p->ms_up, fmax(p->ms_kernels, p->ms_down));
        if (bound > 0)
            p->pipeline_fps = 1000 / bound;
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
        p->ms_decode = (decode_s - p->hud_decode_s) * 1e3 / (double)(p->decoded - p->hud_decoded);
    p->shown_fps = span > 0 ? (double)shown / span : 0;
    p->figures_idle = shown == 0;
    if (shown > 0)
        p->ms_present = p->present_s * 1e3 / (double)shown;
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
    if (shown > 0)
        p->figures_at = now;
}

static void hud_refresh(clv_player *p)
{
    char chain[512], pos[32], total[32], param[128] = "";
    int fi, pi;
    if (clv_player_main_param(p, &fi, &pi))
        snprintf(
            param, sizeof param, "   (up/down: %s)",
            clv_filter_param(clv_chain_desc_filter(clv_chain_get_desc(p->active), fi), pi)->name);
    clock_text(p->last_pts, pos, sizeof pos);
    clock_text(p->duration, total, sizeof total);
    char which[32];
    if (p->preset)
        snprintf(which, sizeof which, "preset %s", clv_preset_key(p->preset));
    else
        snprintf(which, sizeof which, "-vf %d/%d", p->vf_index + 1, p->a.chain_count);
    clv_color col = clv_feed_color(p->feed);
    /* Each filter's µs per frame; a user kernel by its file's name. */
    char filters[600] = "";
    const clv_chain_desc *d = clv_chain_get_desc(p->active);
    size_t n = clv_chain_desc_count(d)
                   ? (size_t)snprintf(filters, sizeof filters, "\xc2\xb5s/frame  ")
                   : 0;
    for (int i = 0; i < clv_chain_desc_count(d) && n < sizeof filters; i++) {
        const char *file = clv_chain_kernel_file(p->active, i, NULL);
        const char *slash = file ? strrchr(file, '/') : NULL;
        char name[80];
        snprintf(name, sizeof name, "%.60s",
                 file ? (slash ? slash + 1 : file) : clv_filter_name(clv_chain_desc_filter(d, i)));
        n += (size_t)snprintf(filters + n, sizeof filters - n, "%s%s %.0f%s", i ? "  " : "", name,
                              p->filter_us[i], i == clv_chain_desc_count(d) - 1 ? "\n" : "");
    }
    /* Several devices: each one's share of the frames and ms per frame. */
    char shares[1200] = "";
    clv_device_shares_text(p->ctx, p->stage, shares, sizeof shares - 1);
    if (shares[0])
        strcat(shares, "\n");
    /* in -> out when the chain changes the size */
    char size[64];
    if (p->out_w > 0 && (p->out_w != p->w || p->out_h != p->h))
        snprintf(size, sizeof size, "%dx%d -> %dx%d", p->w, p->h, p->out_w, p->out_h);
    else
        snprintf(size, sizeof size, "%dx%d", p->w, p->h);
    /* More than 8 bits: filtered at 16, shown dithered to the display's 8. */
    char bits[200] = "";
    if (p->depth == 16)
        snprintf(bits, sizeof bits, "  16-bit chain, dithered to 8 for the display");
    if (p->hdr) {
        int trc = clv_transfer_of(p->in->transfer);
        size_t at = strlen(bits);
        snprintf(bits + at, sizeof bits - at, "\nHDR %s: %s", trc == CLV_TRC_PQ ? "PQ" : "HLG",
                 p->tonemap ? "tone-mapped to SDR for this display   t: as it is"
                            : "shown as it is (not tone-mapped)   t: tone-map");
    }
    /* A network input being opened again: first, over the last frame. */
    char retry[96] = "";
    if (p->reconnecting) {
        clv_player_reconnect_text(p, retry, sizeof retry - 1);
        strcat(retry, "\n");
    }
    /* No frame shown over the last interval (reconnecting, the end, a
     * pause): no rate to give; the per-frame figures are the last ones. */
    /* A graph of several inputs: which one, as it reads back. */
    char graph[420] = "";
    if (p->compose)
        snprintf(graph, sizeof graph, "graph %d/%d: %.380s\n", clv_compose_index(p->compose) + 1,
                 clv_compose_count(p->compose),
                 clv_compose_text(p->compose, clv_compose_index(p->compose)));
    char shown_fps[32] = "-";
    if (!p->figures_idle)
        snprintf(shown_fps, sizeof shown_fps, "%.1f", p->shown_fps);
    snprintf(p->hud_text, sizeof p->hud_text,
             "%s%s"
             "%s  %s\n"
             "%s  %s  %.2f fps  %s %s %s%s\n"
             "%s on %s\n"
             "%s"
             "shown %s fps   pipeline %.0f fps   dropped %lld   latency %.0f ms%s\n"
             "ms/frame  decode %.2f  upload %.2f  kernels %.2f  download %.2f  present %.2f\n"
             "%s"
             "%s / %s  frame %lld%s%s%s%s   i: HUD  h: keys",
             retry, graph, which, clv_player_chain_text(p, chain, sizeof chain), p->path, size,
             p->fps, av_get_pix_fmt_name(p->in->pix_fmt), clv_matrix_name(col.matrix),
             col.full_range ? "full" : "limited", bits, p->devices, clv_window_renderer(p->win),
             shares, shown_fps, p->pipeline_fps,
             (long long)(p->dropped + p->stale_seen + clv_decoder_stale_dropped(p->dec)),
             p->latency_ms,
             p->sink ? (clv_sink_has_mic(p->sink) ? "   [recording + mic]" : "   [recording]") : "",
             p->ms_decode, p->ms_up, p->ms_kernels, p->ms_down, p->ms_present, filters, pos, total,
             (long long)llround(p->last_pts * p->fps), p->paused ? "  [paused]" : "",
             p->compare ? "  [compare]" : "", p->muted ? "  [muted]" : "", param);
}

int clv_player_draw(clv_player *p, uint8_t **capture, int *cw, int *ch)
{
    char help[4096];
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
    char retry[96];
    if (p->reconnecting && !view.hud && !view.message) {
        /* The HUD hidden: the bottom line says why the picture stands still. */
        clv_player_reconnect_text(p, retry, sizeof retry);
        view.message = retry;
    }
    view.error = clv_reload_error(p->reload, p->active);
    return clv_window_draw(p->win, &view, capture, cw, ch);
}

int clv_player_write_stats(clv_player *p, clv_msg *msg)
{
    clv_player_update_figures(p, 1); /* the last frames, even in a short run */
    /* Checked at the start (clv_side_file_check); a file that appeared at
     * the path since is kept without -y (O_EXCL). A FIFO or a device is
     * written in place, this process's own output (/dev/stdout) through
     * its stream. */
    struct stat st;
    int exists = stat(p->a.stats, &st) == 0, own = exists ? clv_own_stream(&st) : 0;
    int flags = O_WRONLY | O_CLOEXEC;
    if (!exists || S_ISREG(st.st_mode))
        flags |= O_CREAT | (p->a.io.overwrite ? O_TRUNC : O_EXCL);
    int fd = own ? -1 : open(p->a.stats, flags, 0666);
    FILE *f = own == 1 ? stdout : own == 2 ? stderr : fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return clv_io_fail(
            msg, CLV_EIO, "--stats: cannot write '%.900s': %s%s", p->a.stats, strerror(e),
            e == EEXIST ? " (it appeared during the session; use -y to overwrite it)" : "");
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
            "kernel_error=%d\ndevice_shares=%s\ndevice_frames=%s\nfirst_frame_s=%.3f\n"
            "out_width=%d\nout_height=%d\nrecord_skipped=%d\ndepth=%d\nhdr=%d\ntonemap=%d\n"
            "last_field=%d\nreconnecting=%d\nreconnects=%lld\n",
            (long long)p->presented, (long long)p->dropped,
            /* a second field's time is halfway to the next frame's */
            (long long)llround(p->last_pts * p->fps - 0.5 * p->last_field), p->last_pts,
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
            p->first_shown_at > 0 ? p->first_shown_at - p->entered_at : -1.0, p->out_w, p->out_h,
            p->rec_skipped, p->depth, p->hdr, p->tonemap, p->last_field, p->reconnecting,
            (long long)p->reconnects);
    fprintf(f, "preset_key=%s\n", p->preset ? clv_preset_key(p->preset) : "");
    /* -filter_complex: the graph running (from 1; 0: none) as it reads back. */
    fprintf(f, "graph_index=%d\ngraph=%s\n", p->compose ? clv_compose_index(p->compose) + 1 : 0,
            p->compose ? clv_compose_text(p->compose, clv_compose_index(p->compose)) : "");
    /* A recording's latency (0 without one): each frame's packet read to its
     * encoded packet written, and the encoder's own time, as transcode's. */
    clv_latency_summary lat = {0}, enc = {0};
    if (p->sink)
        clv_sink_latency(p->sink, &lat, &enc);
    fprintf(f,
            "record_latency_frames=%lld\nrecord_latency_p50_ms=%.3f\nrecord_latency_p99_ms=%.3f\n"
            "record_latency_max_ms=%.3f\nrecord_encoder_p50_ms=%.3f\nrecord_encoder_p99_ms=%.3f\n",
            (long long)lat.count, lat.p50, lat.p99, lat.max, enc.p50, enc.p99);
    char decode[700];
    clv_decode_text(clv_decoder_media(p->dec), decode, sizeof decode);
    fprintf(f, "decode=%s\n", decode);
    if (f == stdout || f == stderr)
        return fflush(f) ? clv_io_fail(msg, CLV_EIO, "--stats: cannot write '%.900s': %s",
                                       p->a.stats, strerror(errno))
                         : 0;
    int failed = ferror(f);
    if (fclose(f) || failed)
        return clv_io_fail(msg, CLV_EIO, "--stats: cannot write '%.900s': %s", p->a.stats,
                           strerror(errno));
    return 0;
}
