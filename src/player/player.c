/* player.c - one run of the player: checks what can be wrong before
 * anything opens, opens the input, window, engine, sound and recording,
 * runs the loop (loop.c) and closes everything in every case. */
#include "player_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavutil/pixdesc.h>

/* The window's stages: the input's frames in, upright RGBA out. */
clv_stage_options clv_player_window_stage(const clv_player *p, int profiling)
{
    return (clv_stage_options){.struct_size = sizeof(clv_stage_options),
                               .width = p->src_w,
                               .height = p->src_h,
                               .in_format = clv_feed_format(p->feed),
                               .out_format = CLV_PIX_RGBA,
                               .in_color = clv_feed_color(p->feed),
                               .out_color = clv_feed_color(p->feed),
                               .slots = CLV_PLAYER_SLOTS,
                               .profiling = profiling,
                               .rotation = p->rotation,
                               .hflip = p->hflip};
}

/* Opens the recording (-o): the frames shown are RGBA, converted on the
 * host by the encode sink. */
static int record_open(clv_player *p, clv_msg *msg)
{
    clv_output_options out = clv_pipeline_output(&p->a.io);
    /* At the first chain's size: it stays that size (frames of another
     * chain's size are shown, not recorded). */
    clv_size up = clv_pipeline_upright(p->in, p->rotation), size = up;
    int err = p->active ? clv_chain_output_size(p->active, &up, &size, msg) : 0;
    if (err)
        return err;
    p->rec_w = size.width;
    p->rec_h = size.height;
    /* A deinterlacer's send_field: the recording at twice the rate, its
     * timestamps in half the time base (as clvid transcode writes it). */
    int delay = 0;
    p->rec_rate = 1;
    if (p->active)
        clv_chain_cadence(p->active, &delay, &p->rec_rate);
    p->rec_media = *p->in;
    if (p->rec_rate == 2) {
        const AVRational two = {2, 1}, half = {1, 2};
        p->rec_media.time_base = av_mul_q(p->in->time_base, half);
        p->rec_media.frame_rate = av_mul_q(p->in->frame_rate, two);
        if (p->in->avg_frame_rate.num > 0)
            p->rec_media.avg_frame_rate = av_mul_q(p->in->avg_frame_rate, two);
        if (p->in->r_frame_rate.num > 0)
            p->rec_media.r_frame_rate = av_mul_q(p->in->r_frame_rate, two);
    }
    clv_sink_options so = {.output = &out,
                           .input = &p->rec_media,
                           .feed = p->feed,
                           .rgba = 1,
                           .rotation = p->rotation,
                           .hflip = p->hflip,
                           .width = size.width,
                           .height = size.height,
                           .sample_aspect = {size.sar_num, size.sar_den},
                           .mic = p->a.io.mic,
                           .mic_format = p->a.io.mic_format,
                           .clock = p->dec};
    return clv_sink_open(&so, &p->sink, msg);
}

/* The graphs' options from the player's. */
static clv_compose_options compose_options(const clv_player *p)
{
    return (clv_compose_options){.graphs = p->a.graphs,
                                 .graph_count = p->a.graph_count,
                                 .map = p->a.io.map,
                                 .more = p->a.io.more_inputs,
                                 .more_count = p->a.io.more_input_count,
                                 .realtime = p->a.io.realtime,
                                 .cancel = p->quit_signal,
                                 .profiling = 1};
}

/* The files the session reads: its inputs, -filter_complex_script's
 * files and those the chains and graphs read (a kernel, a LUT); into a new
 * array (*files, the caller frees it), the graphs parsed into graphs[]. */
static int session_files(const clv_player *p, clv_chain_desc **descs, clv_graph_desc **graphs,
                         const char ***files, int *count, clv_msg *msg)
{
    enum {
        CHAIN_FILES = CLV_CHAIN_MAX * (1 + CLV_PARAMS_MAX),
        GRAPH_FILES = CLV_GRAPH_NODES * CLV_PARAMS_MAX
    };
    const size_t most = 1 + CLV_GRAPH_INPUTS + (size_t)p->a.graph_count * (1 + GRAPH_FILES) +
                        (size_t)p->a.chain_count * CHAIN_FILES;
    const char **list = malloc(most * sizeof *list);
    if (!list)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    int n = 0;
    list[n++] = p->path;
    for (int i = 0; i < p->a.io.more_input_count && i < CLV_GRAPH_INPUTS; i++)
        list[n++] = p->a.io.more_inputs[i].path;
    for (int i = 0; i < p->a.chain_count; i++)
        n += clv_chain_desc_files(descs[i], list + n, CHAIN_FILES);
    for (int i = 0; i < p->a.graph_count; i++) {
        if (p->a.graph_files[i])
            list[n++] = p->a.graph_files[i];
        /* checked by clv_compose_check before: a fault here is not news */
        if (!clv_graph_parse(p->a.graphs[i], 1 + p->a.io.more_input_count, p->a.io.map, &graphs[i],
                             NULL))
            n += clv_graph_desc_files(graphs[i], list + n, GRAPH_FILES);
    }
    *files = list;
    *count = n;
    return 0;
}

/* The recording, the screenshot and the stats at exit overwrite none of
 * the files the session reads (nor each other), and a file already there
 * only with -y (told now, not after the session). */
static int check_files(const clv_player *p, clv_chain_desc **descs, clv_msg *msg)
{
    clv_graph_desc *graphs[CLV_PLAYER_CHAINS] = {0};
    const char **inputs = NULL;
    int count = 0, err = session_files(p, descs, graphs, &inputs, &count, msg);
    const char *output = p->a.io.output, *format = p->a.io.output_format;
    const int y = p->a.io.overwrite;
    if (!err && p->a.screenshot)
        err = clv_side_file_check(inputs, count, output, format, p->a.screenshot, "--screenshot", y,
                                  msg);
    if (!err && p->a.stats && p->a.screenshot && clv_output_same_file(p->a.stats, p->a.screenshot))
        err = clv_io_fail(msg, CLV_EOPTION,
                          "--stats: '%.900s' is the --screenshot file; write it to another file",
                          p->a.stats);
    if (!err && p->a.stats)
        err = clv_side_file_check(inputs, count, output, format, p->a.stats, "--stats", y, msg);
    /* Written at the exit: a folder that cannot take them is told now. */
    const char *at_exit[2] = {p->a.screenshot, p->a.stats};
    for (int i = 0; i < 2 && !err; i++)
        if (at_exit[i] &&
            (err = clv_side_file_folder_check(at_exit[i], i ? "--stats" : "--screenshot", msg)))
            break;
    if (!err && output)
        err = clv_output_check(inputs, count, output, format, y, msg);
    free(inputs);
    for (int i = 0; i < CLV_PLAYER_CHAINS; i++)
        clv_graph_desc_destroy(graphs[i]);
    return err;
}

/* What can be wrong before anything opens: chains, -o on a file, --audio
 * without -o, an output already there. */
static int check(clv_player *p, clv_chain_desc **descs, clv_msg *msg)
{
    for (int i = 0; i < p->a.chain_count; i++) {
        int err = clv_chain_parse(p->a.chains[i], &descs[i], msg);
        if (!err)
            err = clv_player_check_cadence(descs[i], msg);
        if (err) {
            clv_msg parsed = *msg;
            return clv_io_fail(msg, err, "-vf: %.1000s", parsed.text);
        }
    }
    int err = clv_player_check_keys(p->a.keys, msg);
    if (!err)
        err = clv_compose_check_map(p->a.io.map, p->a.graph_count, msg);
    if (err)
        return err;
    if (p->a.graph_count || p->a.io.more_input_count) {
        /* The graph's output is the video; the one -vf chain comes after it
         * (what the keys switch), and w cycles the graphs. */
        if (!p->a.graph_count)
            return clv_io_fail(msg, CLV_EOPTION,
                               "%d inputs and no -filter_complex: a graph says how they join",
                               1 + p->a.io.more_input_count);
        if (p->a.chain_count > 1)
            return clv_io_fail(msg, CLV_EOPTION,
                               "%d -vf chains with -filter_complex: w cycles the graphs; give one "
                               "-vf (the chain after the graph, the one the keys switch)",
                               p->a.chain_count);
        clv_compose_options co = compose_options(p);
        if ((err = clv_compose_check(&co, msg)))
            return err;
    }
    if (!p->path)
        return clv_io_fail(msg, CLV_EOPTION,
                           "no INPUT given and the bundled sample (media/sample.mp4) is not here; "
                           "name a file: clvid play FILE");
    if (p->a.io.reconnect && !clv_io_network_url(p->path))
        return clv_io_fail(msg, CLV_EOPTION,
                           "--reconnect is for network inputs (rtsp://, srt://, rtmp://, udp://, "
                           "rtp://, tcp://, http(s)://); '%.800s' is not one",
                           p->path);
    if (p->a.io.reconnect_max < 0)
        return clv_io_fail(msg, CLV_EOPTION, "--reconnect-max %g: expected 0 or more",
                           p->a.io.reconnect_max);
    if (p->a.io.output && !p->a.io.live)
        /* A file can be paused, sought and looped: what it should record
         * is not what the user means. transcode writes a file's frames. */
        return clv_io_fail(msg, CLV_EOPTION,
                           "-o records live sources (clvid webcam, play --live); to filter "
                           "'%.800s' into a file use clvid transcode -i INPUT -vf CHAIN -o OUTPUT",
                           p->path);
    if (p->a.io.mic && !p->a.io.output)
        return clv_io_fail(msg, CLV_EOPTION,
                           "--audio %.500s records the microphone into a recording; give -o OUTPUT",
                           p->a.io.mic);
    return check_files(p, descs, msg);
}

/* Opens the input; a camera is asked for MJPEG first when wanted (cameras
 * give 30 fps in MJPEG where raw YUYV manages 5 at 1080p). */
static int open_input(clv_player *p, clv_msg *msg)
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

/* The chains' depth for this input: 16 when it has more than 8 bits and
 * every -vf chain runs there; a filter that keeps it at 8 is said once. */
static int chain_depth(const clv_player *p, clv_chain_desc *const *descs)
{
    int bits = clv_av_pixfmt_bits(p->in->pix_fmt);
    if (bits <= 8)
        return 8;
    for (int i = 0; i < p->a.chain_count; i++) {
        clv_msg why = {{0}};
        if (clv_chain_desc_deep(descs[i], &why)) {
            fprintf(stderr, "clvid: the %d-bit input is filtered at 8 bits: %s\n", bits, why.text);
            return 8;
        }
    }
    return 16;
}

/* What is shown, from the input's description: the upright size, timing
 * and duration, and the feed into the stage. A live source says what the
 * device gave. */
static int describe_input(clv_player *p, clv_chain_desc *const *descs, clv_msg *msg)
{
    const clv_media_desc *in = p->in = clv_decoder_media(p->dec);
    if (p->a.graph_count) {
        /* The graph's output is what is shown: input 0 goes into it upright. */
        clv_compose_options co = compose_options(p);
        int err = clv_compose_open(&co, in, p->a.io.no_autorotate ? 0 : in->rotation,
                                   p->a.io.no_autorotate ? 0 : in->hflip, &p->compose, msg);
        if (err)
            return err;
        in = p->in = clv_compose_media(p->compose);
    }
    /* Shown upright: a phone video's display matrix, a photo's EXIF. */
    p->src_w = in->width;
    p->src_h = in->height;
    if (!p->a.io.no_autorotate) {
        p->rotation = in->rotation;
        p->hflip = in->hflip;
    }
    int turned = p->rotation == 90 || p->rotation == 270;
    p->w = turned ? p->src_h : p->src_w;
    p->h = turned ? p->src_w : p->src_h;
    p->tb = in->time_base;
    AVRational vs_rate = in->avg_frame_rate.num > 0 ? in->avg_frame_rate : in->r_frame_rate;
    p->fps = vs_rate.num > 0 && vs_rate.den > 0 ? av_q2d(vs_rate) : 25;
    p->duration =
        in->duration_us > 0 ? (double)in->duration_us / 1e6 - (double)p->a.io.start_us / 1e6 : 0;
    p->depth = chain_depth(p, descs);
    int err = clv_feed_create(in, p->depth, &p->feed, msg);
    const clv_media_desc *dec = clv_decoder_media(p->dec); /* the camera's, with a graph too */
    if (!err && p->a.io.live)
        fprintf(stderr, "clvid: %s: %dx%d %s at %.2f fps%s\n", p->path, dec->width, dec->height,
                dec->codec_id == AV_CODEC_ID_RAWVIDEO ? av_get_pix_fmt_name(dec->pix_fmt)
                                                      : avcodec_get_name(dec->codec_id),
                p->fps, p->a.io.capture_format ? "" : " (the device's choice)");
    return err;
}

/* The window, at the picture's display aspect. */
static int open_window(clv_player *p, clv_msg *msg)
{
    AVRational sar = p->in->sample_aspect;
    int turned = p->rotation == 90 || p->rotation == 270;
    double pixel = sar.num > 0 && sar.den > 0 ? av_q2d(sar) : 1;
    double aspect = (double)p->w / p->h * (turned ? 1 / pixel : pixel);
    char title[600];
    snprintf(title, sizeof title, "clvid - %.500s", p->path);
    clv_window_options wo = {.title = title,
                             .width = p->a.width,
                             .height = p->a.height,
                             .fullscreen = p->a.fullscreen,
                             .vsync = !p->a.untimed};
    return clv_window_open(&wo, p->w, p->h, aspect, &p->win, msg);
}

/* The engine: the -vf chains are built now (their errors are the user's
 * to see before anything plays), the presets on the keys when first asked
 * for; the window's stage, and the first chain made active. */
static int open_engine(clv_player *p, clv_chain_desc *const *descs, clv_msg *msg)
{
    clv_context_options copt;
    clv_transcode_engine_options(&p->a.io, &copt);
    copt.profiling = 1;
    int err = clv_context_create(&copt, &p->ctx, msg);
    if (!err && p->compose)
        err = clv_compose_start(p->compose, p->ctx, msg);
    if (err)
        return err;
    /* An HDR source is shown tone-mapped for the SDR display (t turns it off). */
    int trc = clv_transfer_of(p->in->transfer);
    p->hdr = p->tonemap = trc == CLV_TRC_PQ || trc == CLV_TRC_HLG;
    for (int i = 0; i < p->a.chain_count; i++)
        if ((err = clv_player_chain_create(p, descs[i], &p->vf[i], &p->vf_tonemapped[i], msg)))
            return err;
    for (int i = 0; i < p->a.chain_count; i++)
        clv_chain_set_frame_rate(p->vf[i], p->in->frame_rate.num, p->in->frame_rate.den);
    if ((err = clv_reload_create(p->ctx, p->vf, p->a.chain_count, &p->reload, msg)))
        return err;
    clv_stage_options so = clv_player_window_stage(p, 1);
    if ((err = clv_stage_create(p->ctx, &so, NULL, &p->stage, msg)))
        return err;
    clv_devices_text(p->ctx, p->devices, sizeof p->devices);
    clv_device_faults_from_env(p->stage);
    clv_chain *first = p->a.chain_count ? p->vf[0] : NULL;
    if (!first && (err = clv_player_preset_chain(p, 1, &first, msg)))
        return err;
    clv_player_activate(p, first, p->a.chain_count ? 0 : 1, 0);
    return 0;
}

/* The input's main sound, played when there is a sound device; without
 * one the player goes on silently. */
static void open_sound(clv_player *p)
{
    const clv_stream_desc *sound =
        p->a.no_audio || p->a.untimed ? NULL : clv_media_stream(p->in, p->in->audio);
    p->audio_stream = sound ? sound->index : -1;
    if (!sound)
        return;
    clv_msg amsg = {{0}};
    if (clv_sound_open(48000, 2, &p->snd, &amsg) ||
        clv_audio_open(sound, clv_sound_rate(p->snd), clv_sound_channels(p->snd), &p->audio,
                       &amsg)) {
        fprintf(stderr, "clvid: playing without sound: %s\n", amsg.text);
        clv_sound_close(p->snd);
        p->snd = NULL;
    } else {
        clv_sound_set_volume(p->snd, p->volume, 0);
    }
}

/* The whole run of the player, for play and webcam. */
static int open_run(clv_player *p, clv_chain_desc *const *descs, clv_msg *msg);

/* The whole run of the player, for play and webcam. */
static int play_main(clv_player *p, clv_msg *msg)
{
    clv_chain_desc *descs[CLV_PLAYER_CHAINS] = {0};
    int err = check(p, descs, msg);
    /* The socket before the window: a path refused is told first. */
    if (!err && p->a.io.ipc)
        err = clv_ipc_open(p->a.io.ipc, "play", CLV_IPC_PLAYER_VERBS, &p->ipc, msg);
    if (!err)
        err = open_run(p, descs, msg);
    for (int i = 0; i < p->a.chain_count; i++)
        clv_chain_desc_destroy(descs[i]);
    return err;
}

/* The run after its checks: the input, window, engine, sound and
 * recording, then the loop. descs are the -vf chains, parsed. */
static int open_run(clv_player *p, clv_chain_desc *const *descs, clv_msg *msg)
{
    int err;
    p->divider = 0.5;
    p->hud = !p->a.no_hud;
    p->volume = p->a.volume;
    p->keys_next = p->a.keys;
    av_log_set_level(AV_LOG_ERROR);
    /* The window first after the input: without a display nothing else is
     * worth doing. */
    if ((err = open_input(p, msg)) || (err = describe_input(p, descs, msg)) ||
        (err = open_window(p, msg)) || (err = open_engine(p, descs, msg)))
        return err;
    open_sound(p);
    if (p->a.io.output && (err = record_open(p, msg)))
        return err;
    if ((err = clv_player_start_decoder(p, msg)))
        return err;
    if (p->sink && (err = clv_sink_start(p->sink, msg)))
        return err;
    p->hud_at = p->started_at = clv_io_seconds();
    p->chain_changed = 0; /* the first chain is no change */
    err = clv_player_loop(p, msg);
    if (!err && p->sink && p->recorded == 0) {
        /* Stopped before the first frame: no file rather than an empty one. */
        clv_sink_finish(p->sink, 0, NULL, NULL, NULL);
        err = clv_io_fail(msg, CLV_EINVAL,
                          "stopped before the first frame was shown; '%.900s' not written",
                          p->a.io.output);
    } else if (!err && p->sink) {
        /* The recording is finished on q, Ctrl-C or the source's end alike. */
        clv_msg note = {{0}};
        err = clv_sink_finish(p->sink, 1, &p->mic_packets, &note, msg);
        if (note.text[0])
            fprintf(stderr, "clvid: %s\n", note.text);
        clv_latency_summary lat = {0}, enc = {0};
        clv_sink_latency(p->sink, &lat, &enc);
        if (!err && lat.count)
            fprintf(stderr,
                    "clvid: recorded %lld frames to %s (latency p50 %.1f ms, p99 %.1f ms, "
                    "max %.1f ms from the packet read; encoder p50 %.1f ms)\n",
                    (long long)p->recorded, p->a.io.output, lat.p50, lat.p99, lat.max, enc.p50);
        else if (!err)
            fprintf(stderr, "clvid: recorded %lld frames to %s\n", (long long)p->recorded,
                    p->a.io.output);
    }
    if (!err && p->a.screenshot) {
        uint8_t *px = NULL;
        p->hud_dirty = 1;
        int cw = 0, ch = 0;
        if (!(err = clv_player_draw(p, &px, &cw, &ch)))
            err = clv_png_write(p->a.screenshot, px, cw, ch, p->a.io.overwrite, msg);
        free(px);
    }
    if (p->a.stats) {
        clv_msg later = {{0}}; /* a fault before this one is the one told */
        int stats_err = clv_player_write_stats(p, err ? &later : msg);
        err = err ? err : stats_err;
    }
    return err;
}

/* The bundled sample: beside the sources this program was built from,
 * installed under share/clvid of the configured prefix, or of the prefix
 * the program runs from (a package unpacked elsewhere); written into
 * out, "" when none is there. */
static void bundled_sample(char *out, size_t size)
{
    char exe[4096] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0; /* .../bin */
    const char *candidates[] = {
        CLVID_MEDIA_DIR "/sample.mp4",
        CLVID_INSTALLED_MEDIA_DIR "/sample.mp4",
        exe[0] ? exe : NULL,
        "media/sample.mp4",
    };
    out[0] = 0;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && !out[0]; i++) {
        if (!candidates[i])
            continue;
        if (candidates[i] == exe)
            snprintf(out, size, "%s/../share/clvid/sample.mp4", exe);
        else
            snprintf(out, size, "%s", candidates[i]);
        if (access(out, R_OK) != 0)
            out[0] = 0;
    }
}

int clv_player_run(const clv_player_options *options, const volatile sig_atomic_t *quit,
                   clv_msg *msg)
{
    msg->text[0] = 0;
    clv_player *p = calloc(1, sizeof *p);
    if (!p)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    p->a = *options;
    p->entered_at = clv_io_seconds();
    p->quit_signal = quit;
    p->path = p->a.io.input;
    if (!p->path && !p->a.io.input_format) {
        bundled_sample(p->sample, sizeof p->sample);
        p->path = p->sample[0] ? p->sample : NULL;
    }
    int err = play_main(p, msg);
    if (p->ipc) {
        clv_player_tell_end(p, err, msg);
        clv_ipc_close(p->ipc);
    }
    clv_player_reconnect_stop(p); /* the decoder is its thread's */
    if (p->dec)
        clv_decoder_stop(p->dec);
    clv_sink_close(p->sink);
    clv_queue_destroy(p->video_q);
    clv_queue_destroy(p->packet_q);
    clv_decoder_close(p->dec);
    clv_audio_close(p->audio);
    clv_sound_close(p->snd);
    clv_reload_destroy(p->reload); /* its build thread uses the context */
    clv_compose_close(p->compose);
    clv_stage_destroy(p->stage);
    clv_stage_destroy(p->orig_stage);
    clv_chain_destroy(p->tonemap_only);
    for (int i = 0; i < CLV_PRESET_COUNT; i++)
        clv_chain_destroy(p->presets[i]);
    for (int i = 0; i < CLV_PLAYER_CHAINS; i++)
        clv_chain_destroy(p->vf[i]);
    clv_chain_destroy(p->ipc_chain);
    clv_context_destroy(p->ctx);
    clv_window_close(p->win);
    clv_feed_destroy(p->feed);
    for (int i = 0; i < CLV_PLAYER_INPUTS; i++)
        av_frame_free(&p->sent[i]);
    free(p);
    return err;
}

/* The window's feed and stages for frames of the input's size now (the
 * graph's output changed size); the chain shown stays, the compare view
 * closes, and the frames kept for a refilter are of the old size. */
static int resize_input(clv_player *p, clv_msg *msg)
{
    clv_stage_destroy(p->stage);
    clv_stage_destroy(p->orig_stage);
    p->stage = p->orig_stage = NULL;
    p->compare = 0;
    clv_feed_destroy(p->feed);
    p->feed = NULL;
    for (int i = 0; i < CLV_PLAYER_INPUTS; i++)
        av_frame_free(&p->sent[i]);
    p->src_w = p->w = p->in->width;
    p->src_h = p->h = p->in->height;
    int err = clv_feed_create(p->in, p->depth, &p->feed, msg);
    clv_stage_options so = clv_player_window_stage(p, 1);
    if (!err)
        err = clv_stage_create(p->ctx, &so, NULL, &p->stage, msg);
    if (!err)
        clv_player_activate(p, p->active, p->preset, p->vf_index);
    return err;
}

int clv_player_next_graph(clv_player *p, clv_msg *msg)
{
    int count = clv_compose_count(p->compose);
    if (count == 1) {
        clv_player_notice(
            p, "%s", "one graph: w cycles the graphs of several -filter_complex (none to go to)");
        return 0;
    }
    int next = (clv_compose_index(p->compose) + 1) % count;
    clv_player_drain(p);
    clv_msg why = {{0}};
    int w = p->in->width, h = p->in->height;
    if (clv_compose_select(p->compose, next, &why)) {
        clv_player_notice(p, "%s", why.text); /* the graph running goes on */
        return 0;
    }
    int err = 0;
    if (p->in->width != w || p->in->height != h)
        err = resize_input(p, msg);
    char line[256];
    snprintf(line, sizeof line, "graph %d/%d: %.200s", next + 1, count,
             clv_compose_text(p->compose, next));
    clv_player_notice(p, "%s", line);
    p->hud_dirty = 1;
    /* The frame shown is made again through the new graph: a file goes
     * back to it; a live source's next frame comes soon enough. */
    if (!err && !p->a.io.live && p->taken > 0) {
        p->seek_to = p->last_pts;
        p->seek_pending = 1;
    }
    return err;
}
