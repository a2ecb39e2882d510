/* transcode.c - clv_transcode_run: the decoder thread feeds the GPU stage,
 * whose frames go to the encode sink; audio and subtitles are copied. No
 * printing and no signals: the caller hears through its callback and stops
 * the run through the cancel flag. */
#include "clvid/graph.h"
#include "clvid/pipeline.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <math.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "../io/io.h"
#include "blocks.h"
#include "compose.h"
#include "framesync.h"
#include "ipc.h"
#include "sink.h"

#define PTS_RING 64 /* timestamps of the frames in the stage, by submit index */

void clv_pipeline_versions(char *out, size_t size)
{
    unsigned f = avformat_version(), c = avcodec_version(), u = avutil_version(),
             s = swscale_version();
    snprintf(out, size,
             "FFmpeg: libavformat %u.%u.%u, libavcodec %u.%u.%u, libavutil %u.%u.%u, libswscale "
             "%u.%u.%u",
             f >> 16, f >> 8 & 255, f & 255, c >> 16, c >> 8 & 255, c & 255, u >> 16, u >> 8 & 255,
             u & 255, s >> 16, s >> 8 & 255, s & 255);
}

void clv_transcode_options_init(clv_transcode_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->crf = -1;
    o->hls_list_size = -1;
}

void clv_transcode_engine_options(const clv_transcode_options *o, clv_context_options *engine)
{
    clv_context_options_init(engine);
    /* The caller's struct as far as it reaches (an older caller's is
     * shorter); clv_context_create refuses a struct_size it cannot take. */
    if (o->engine) {
        size_t size = o->engine->struct_size;
        memcpy(engine, o->engine, size && size < sizeof *engine ? size : sizeof *engine);
        if (!size)
            engine->struct_size = 0;
    }
    if (o->device)
        engine->device = o->device;
}

int clv_capture_format_check(const char *capture_format, const char *mic_format, clv_msg *msg)
{
    if (capture_format && av_get_pix_fmt(capture_format) == AV_PIX_FMT_NONE &&
        !avcodec_find_decoder_by_name(capture_format))
        return clv_io_fail(msg, CLV_EOPTION,
                           "--input-format %.200s: not a pixel format or codec FFmpeg knows "
                           "(cameras offer e.g. mjpeg, yuyv422, nv12, h264; clvid sources lists "
                           "each camera's)",
                           capture_format);
    if (mic_format && clv_mic_format_check(mic_format, msg))
        return CLV_EOPTION;
    return 0;
}

int clv_transcode_check_output(const char *const *inputs, int input_count, const char *output,
                               const char *format, int overwrite, clv_msg *msg)
{
    msg->text[0] = 0;
    if (!output || !*output || input_count < 0 || (input_count && !inputs))
        return clv_io_fail(msg, CLV_EOPTION, "no output given");
    return clv_output_check(inputs, input_count, output, format, overwrite, msg);
}

/* The files a run reads: its inputs and those its chain or graph reads. */
#define RUN_FILES_MAX                                                                              \
    (1 + CLV_GRAPH_INPUTS + CLV_GRAPH_NODES * CLV_PARAMS_MAX + CLV_CHAIN_MAX * (1 + CLV_PARAMS_MAX))
static int run_files(const clv_transcode_options *o, const clv_chain_desc *desc,
                     const clv_graph_desc *graph, const char **files)
{
    int count = 0;
    files[count++] = o->input;
    if (o->filter_complex_file)
        files[count++] = o->filter_complex_file;
    if (graph) {
        for (int i = 0; i < o->more_input_count; i++)
            files[count++] = o->more_inputs[i].path;
        return count + clv_graph_desc_files(graph, files + count, CLV_GRAPH_NODES * CLV_PARAMS_MAX);
    }
    return count + clv_chain_desc_files(desc, files + count, CLV_CHAIN_MAX * (1 + CLV_PARAMS_MAX));
}

static int caller_options(const clv_transcode_options *given, clv_transcode_options *o,
                          clv_msg *msg);

/* Checks what can be checked before anything is opened. */
static int check_graph(const clv_transcode_options *o, clv_chain_desc **desc,
                       clv_graph_desc **graph, clv_msg *msg);

static int check_options(const clv_transcode_options *o, clv_chain_desc **desc,
                         clv_graph_desc **graph, clv_msg *msg)
{
    if (!o->input || !*o->input)
        return clv_io_fail(msg, CLV_EOPTION, "no input given");
    if (!o->output || !*o->output)
        return clv_io_fail(msg, CLV_EOPTION, "no output given");
    if (o->crf < -1 || o->crf > 51)
        return clv_io_fail(msg, CLV_EOPTION, "crf %d: expected 0 to 51", o->crf);
    if (o->lead_frames < 0 || o->keep_frames < 0)
        return clv_io_fail(msg, CLV_EOPTION,
                           "lead_frames %lld, keep_frames %lld: expected 0 or more",
                           (long long)o->lead_frames, (long long)o->keep_frames);
    if (o->gop < 0 || o->hls_time < 0 || o->hls_list_size < -1)
        return clv_io_fail(msg, CLV_EOPTION,
                           "gop %d, hls_time %g, hls_list_size %d: expected 0 or more (-1: the "
                           "muxer's list size)",
                           o->gop, o->hls_time, o->hls_list_size);
    if (o->frame_rate) { /* a caller's own text: the command line's checks */
        clv_transcode_options probe;
        clv_transcode_options_init(&probe);
        int err = clv_transcode_options_set(&probe, "r", o->frame_rate, msg);
        if (err)
            return err;
    }
    int network = clv_io_network_url(o->input);
    if (o->reconnect && !network)
        return clv_io_fail(msg, CLV_EOPTION,
                           "--reconnect is for network inputs (rtsp://, srt://, rtmp://, udp://, "
                           "rtp://, tcp://, http(s)://); '%.800s' is not one",
                           o->input);
    if (o->reconnect_max < 0 || o->rw_timeout_us < 0)
        return clv_io_fail(msg, CLV_EOPTION,
                           "reconnect_max %g, rw_timeout_us %lld: expected 0 or more",
                           o->reconnect_max, (long long)o->rw_timeout_us);
    if (o->rtsp_transport && strncmp(o->input, "rtsp", 4))
        return clv_io_fail(msg, CLV_EOPTION,
                           "-rtsp_transport %.100s is for rtsp:// inputs; '%.800s' is not one",
                           o->rtsp_transport, o->input);
    if (o->mic && !o->live && !network)
        return clv_io_fail(msg, CLV_EOPTION,
                           "--audio %.500s records a microphone with a live source; add --live (a "
                           "file's own sound is kept without it)",
                           o->mic);
    int err = clv_capture_format_check(o->capture_format, o->mic_format, msg);
    if (!err)
        err = clv_hwaccel_check(o->hwaccel, msg);
    if (!err)
        err = clv_compose_check_map(o->map, o->filter_complex ? 1 : 0, msg);
    if (err)
        return err;
    if (o->filter_complex || o->more_input_count)
        err = check_graph(o, desc, graph, msg);
    else {
        err = clv_chain_parse(o->chain, desc, msg);
        if (!err) /* its frames picked at the output (the encoder) */
            clv_chain_desc_take_fps(*desc);
    }
    if (err) {
        clv_msg parsed = *msg;
        return o->filter_complex || o->more_input_count
                   ? err
                   : clv_io_fail(msg, err, "-vf: %.1000s", parsed.text);
    }
    /* Never overwrite without permission, and never write over an input
     * (any file of an input or output sequence, a file the chain reads:
     * a user kernel, a LUT, a curves file). */
    const char *inputs[RUN_FILES_MAX];
    int count = run_files(o, *desc, *graph, inputs);
    /* The control socket is made first: at the output's path it would
     * become what the output then cannot open. */
    if (o->ipc && o->output && clv_output_same_file(o->ipc, o->output))
        return clv_io_fail(msg, CLV_EOPTION,
                           "--ipc '%s' is the output's path: give the control socket another",
                           o->ipc);
    return clv_output_check(inputs, count, o->output, o->output_format, o->overwrite, msg);
}

int clv_transcode_check_side_file(const clv_transcode_options *given, const char *path,
                                  const char *what, clv_msg *msg)
{
    clv_transcode_options o;
    clv_chain_desc *desc = NULL;
    clv_graph_desc *graph = NULL;
    msg->text[0] = 0;
    int err = caller_options(given, &o, msg);
    if (!err)
        err = check_options(&o, &desc, &graph, msg);
    if (!err) {
        const char *inputs[RUN_FILES_MAX];
        int count = run_files(&o, desc, graph, inputs);
        err = clv_side_file_check(inputs, count, o.output, o.output_format, path, what, o.overwrite,
                                  msg);
    }
    clv_chain_desc_destroy(desc);
    clv_graph_desc_destroy(graph);
    return err;
}

/* -filter_complex: the graph over the inputs, or the chain it is (one
 * chain over input 0 runs as -vf does). */
static int check_graph(const clv_transcode_options *o, clv_chain_desc **desc,
                       clv_graph_desc **graph, clv_msg *msg)
{
    if (o->chain && *o->chain)
        return clv_io_fail(msg, CLV_EOPTION,
                           "-vf and -filter_complex together: give the chain inside the graph");
    if (!o->filter_complex)
        return clv_io_fail(msg, CLV_EOPTION,
                           "%d inputs and no -filter_complex: a graph says how they join",
                           1 + o->more_input_count);
    if (!*o->filter_complex) /* '' or an empty -filter_complex_script */
        return clv_io_fail(msg, CLV_EOPTION, "-filter_complex: the graph is empty");
    if (o->more_input_count < 0 || o->more_input_count >= CLV_GRAPH_INPUTS ||
        (o->more_input_count && !o->more_inputs))
        return clv_io_fail(msg, CLV_EOPTION, "%d inputs: expected 1 to %d", 1 + o->more_input_count,
                           CLV_GRAPH_INPUTS);
    if (o->audio_input < 0 || o->audio_input > o->more_input_count)
        return clv_io_fail(msg, CLV_EOPTION, "the sound of input %d: there are %d inputs, from 0",
                           o->audio_input, 1 + o->more_input_count);
    for (int i = 0; i < o->more_input_count; i++)
        if (!o->more_inputs[i].path || !*o->more_inputs[i].path)
            return clv_io_fail(msg, CLV_EOPTION, "input %d: no path given", i + 1);
    if (o->ipc)
        return clv_io_fail(msg, CLV_EOPTION, "--ipc with -filter_complex: not yet (a chain only)");
    clv_msg parsed = {{0}};
    int err = clv_graph_parse(o->filter_complex, 1 + o->more_input_count, o->map, graph, &parsed);
    if (err)
        return clv_io_fail(msg, err, "-filter_complex: %.1000s", parsed.text);
    clv_chain_desc *chain = o->more_input_count == 0 ? clv_graph_desc_chain(*graph) : NULL;
    if (chain) {
        clv_graph_desc_destroy(*graph);
        *graph = NULL;
        *desc = chain;
        return 0;
    }
    return clv_chain_parse("", desc, msg);
}

/* The run's state, so that its steps can be small functions. */
typedef struct run {
    const clv_transcode_options *o;
    clv_transcode_callback callback;
    void *user;
    const volatile sig_atomic_t *cancel;
    int stopped;       /* the cancel flag or the callback asked for a stop */
    int capped;        /* the encoder counts -frames (clv_sink_full) */
    int picks;         /* fps, framestep or -r: the frames out are not the frames in */
    int64_t frames_in; /* frames gone to the encoder (counted) */
    clv_transcode_status status;
    const char *partials[CLV_TEE_MAX + 1]; /* status.partial_paths, NULL-terminated */
    char devices[600], shares[1200], chain_text[1024], decode_text[700];
    double entered, start, last_report; /* clv_io_seconds */
    clv_chain_desc *desc;
    /* Opened by open_all and the steps after it, freed by close_all: */
    clv_decoder *dec;
    const clv_media_desc *in; /* what the input is: the decoder's */
    clv_feed *feed;
    clv_sink *sink;
    clv_context *ctx;
    clv_chain *chain;
    clv_stage *stage;
    clv_queue *dec_q;
    int rotation, hflip; /* the stage turns the frames upright */
    /* Nothing to filter and the encoder takes the decoder's frames: they
     * are handed over as they are. */
    int direct;
    /* The decoder writes into the stage's memory (plan_frames). */
    int in_place;
    int64_t stage_fault; /* CLVID_FAULT=stage:N */
    uint64_t submitted;  /* submits to the stage (rate a frame) or frames handed over */
    int64_t pts[PTS_RING];
    /* Frames decoded into the stage's memory, by submit index: kept until
     * their output is taken (the stage reads them in place). */
    AVFrame *held[PTS_RING];
    /* A chain that holds frames back (a deinterlacer, clv_chain_cadence):
     * its output lags by delay frames in and it makes rate frames out of
     * each (2: send_field, a frame per field; each frame is submitted
     * twice). The first delay * rate outputs are dropped and, at the end,
     * the last frame (kept in last) is sent again delay times to flush the
     * ones held. last_pts: the pts of the frame before last, whose step
     * the flush extrapolates as ffmpeg's yadif and bwdif do. */
    int delay, rate;
    AVFrame *last;
    /* The control socket (--ipc), NULL: none. Its commands are applied
     * between frames on the run's thread (control). */
    clv_ipc *ipc;
    int paused;
    /* When each frame's packet was read, by submit index: the encoder's
     * packets are timed from there (clv_sink_latency). */
    double read_at[PTS_RING];
    int64_t last_pts;
    /* The output's timing: at rate 2 the frames' pts are in half the
     * input's time base (2 pts(n) and pts(n) + pts(n + 1), as ffmpeg's);
     * out_media is the input's description at twice its rate, the sink's. */
    AVRational out_tb;
    clv_media_desc out_media;
    /* The stage's index of the run's first submit: first_frame_index at
     * rate submits a frame, so that a segment's runs have the indices of
     * the whole video's. */
    uint64_t base;
    /* The outputs of the leading and trailing context frames (lead_frames,
     * keep_frames) dropped so far. */
    uint64_t context_dropped;
    /* A network input that dropped and was not (or could not be) opened
     * again: why, for the note at the end. */
    char dropped[1000];
    double dropped_at; /* clv_io_seconds of the last drop, while reconnecting */
    /* -filter_complex of several inputs: the graph (chain NULL) and inputs
     * 1 .. (more[i - 1]); graph_end: an input with eof_action=endall ended. */
    clv_graph_desc *gdesc;
    clv_graph *graph;
    clv_sync_input more[CLV_GRAPH_INPUTS];
    int more_count;
    int graph_end;
    int depth; /* the chain's or graph's: 8 or 16 */
    /* The input whose frames are the output's: 0, then the one a filter
     * hands over to (xfade's second input after its transition; -1: none,
     * the output ends), by clv_graph_sync's drive_from and drive_until;
     * sync0 is input 0's. in0_done: input 0's decoder ended or was
     * stopped after a handover. */
    clv_graph_sync sync0;
    int driver, in0_done;
    /* As ffmpeg's xfade: the driving input makes one frame past its
     * drive_until (over: it has; its next frame hands over), and the next
     * input's frames start after that frame's time, last_t. */
    int over;
    double last_t;
    /* Input 0's first frame's time (have_t0: seen): the graph's time
     * origin (clv_graph_set_time_origin), from which the offsets and
     * drive times of clv_graph_sync count, as ffmpeg's xfade's first_pts. */
    double t0;
    int have_t0;
    /* -map N:a (o->audio_input N > 0): the sink's description (input 0's
     * video, input N's streams); input N's packets go to the sink, input
     * 0's are dropped. sound_err: the sink refused one (sound_msg). */
    clv_media_desc sound_media;
    int sound_err;
    clv_msg sound_msg;
} run;

static int stop_wanted(run *r)
{
    if (r->cancel && *r->cancel)
        r->stopped = 1;
    return r->stopped;
}

static void report(run *r, enum clv_transcode_event event)
{
    double now = clv_io_seconds();
    if (event == CLV_TRANSCODE_PROGRESS && now - r->last_report < 0.1)
        return;
    r->last_report = now;
    clv_latency_summary latency = {0}, encoding = {0};
    if (r->sink)
        clv_sink_latency(r->sink, &latency, &encoding);
    r->status.latency_p50_ms = latency.p50;
    r->status.latency_p99_ms = latency.p99;
    r->status.latency_max_ms = latency.max;
    r->status.latency_mean_ms = latency.mean;
    r->status.encoder_p50_ms = encoding.p50;
    r->status.encoder_p99_ms = encoding.p99;
    r->status.event = event;
    r->status.elapsed = now - r->start;
    r->status.stopped = r->stopped;
    if (r->callback && r->callback(&r->status, r->user))
        r->stopped = 1;
}

/* ---- Setting up ---------------------------------------------------------- */

/* The input and the output, opened on a thread of their own while the
 * device opens and builds its chain (FFmpeg's start-up and OpenCL's
 * overlap). OpenCL stays on the caller's thread: a thread that opened PoCL
 * and ended made AddressSanitizer fail to unmap its thread data. */
typedef struct io_setup {
    const clv_transcode_options *o;
    clv_input_options in;
    clv_output_options out; /* the sink keeps pointing at it */
    clv_decoder *dec;
    const clv_media_desc *media; /* the decoder's description of the input */
    clv_feed *feed;
    clv_sink *sink;
    int rotation, hflip;
    const clv_chain_desc *desc;  /* the filters: the output's size */
    const clv_graph_desc *gdesc; /* or the graph's, over more[] too */
    clv_sync_input *more;
    /* -map N:a: the description the sink gets, input 0's video with input
     * N's streams. */
    clv_media_desc *sound_media;
    /* Where the sink's description of the input goes when the chain makes
     * a frame per field (twice the input's rate; the run's out_media). */
    clv_media_desc *fields_media;
    clv_msg msg;
    int err;
    /* The chain's depth, known once the decoder has opened (the caller's
     * thread waits for it to build the chain): */
    pthread_mutex_t lock;
    pthread_cond_t depth_known;
    int depth; /* guarded by lock: 0 until known, then 8 or 16; -1: the decoder failed */
} io_setup;

/* The depth the chain runs at for input `in`: 16 for an input of more than
 * 8 bits when every filter runs there; else 8, and a filter that keeps such
 * an input at 8 bits is said once. */
static int chain_depth(const clv_media_desc *in, const clv_chain_desc *desc)
{
    int bits = clv_av_pixfmt_bits(in->pix_fmt);
    if (bits <= 8)
        return 8;
    for (int i = 0; i < clv_chain_desc_count(desc); i++) {
        const clv_filter *f = clv_chain_desc_filter(desc, i);
        if (!clv_filter_deep(f)) {
            av_log(NULL, AV_LOG_WARNING,
                   "%s runs at 8 bits only: the %d-bit input is filtered at 8 bits (clvid "
                   "filters says which filters run at 16)\n",
                   clv_filter_name(f), bits);
            return 8;
        }
    }
    return 16;
}

static void tell_depth(io_setup *s, int depth)
{
    pthread_mutex_lock(&s->lock);
    s->depth = depth;
    pthread_cond_broadcast(&s->depth_known);
    pthread_mutex_unlock(&s->lock);
}

static int wait_depth(io_setup *s)
{
    pthread_mutex_lock(&s->lock);
    while (!s->depth)
        pthread_cond_wait(&s->depth_known, &s->lock);
    int depth = s->depth;
    pthread_mutex_unlock(&s->lock);
    return depth;
}

clv_size clv_pipeline_upright(const clv_media_desc *in, int rotation)
{
    int turned = rotation == 90 || rotation == 270;
    AVRational sar = in->sample_aspect;
    if (turned && sar.num > 0 && sar.den > 0)
        sar = av_inv_q(sar);
    /* What the pixels mean, for the filters that change it (tonemap): the
     * content's peak is its MaxCLL, else its mastering display's. */
    int peak = 0;
    if (in->light_level && in->light_level->MaxCLL)
        peak = (int)in->light_level->MaxCLL;
    else if (in->mastering && in->mastering->has_luminance)
        peak = (int)lrint(av_q2d(in->mastering->max_luminance));
    return (clv_size){
        turned ? in->height : in->width, turned ? in->width : in->height, sar.num, sar.den,
        clv_transfer_of(in->transfer),   clv_primaries_of(in->primaries), peak};
}

int clv_pipeline_output_size(const clv_media_desc *in, int rotation, const clv_chain_desc *desc,
                             clv_size *out, clv_msg *msg)
{
    clv_size up = clv_pipeline_upright(in, rotation);
    return clv_chain_desc_output_size(desc, &up, out, msg);
}

/* The graph's other inputs, opened after input 0: their decoders. */
static int open_more(io_setup *s)
{
    const clv_transcode_options *o = s->o;
    for (int i = 1; i <= o->more_input_count; i++) {
        clv_sync_input *m = &s->more[i - 1];
        int err = clv_sync_input_open(m, &o->more_inputs[i - 1], o->realtime, &s->msg);
        if (err)
            return err;
        clv_sync_input_graph(m, s->gdesc, i);
    }
    return 0;
}

/* The depth a graph runs at: 16 when an input it reads has more than 8
 * bits and every filter runs there; else 8, and a filter that keeps such
 * an input at 8 bits is said once (as chain_depth). */
static int graph_depth(const io_setup *s, const clv_media_desc *in)
{
    int bits = clv_av_pixfmt_bits(in->pix_fmt), which = 0;
    for (int i = 1; i <= s->o->more_input_count; i++) {
        int b = clv_av_pixfmt_bits(s->more[i - 1].media->pix_fmt);
        if (clv_graph_desc_uses(s->gdesc, i) && b > bits)
            bits = b, which = i;
    }
    if (bits <= 8)
        return 8;
    clv_msg why = {{0}};
    if (clv_graph_desc_deep(s->gdesc, &why)) {
        av_log(NULL, AV_LOG_WARNING,
               "%s: input %d's %d bits are filtered at 8 (clvid filters says which filters run at "
               "16)\n",
               why.text, which, bits);
        return 8;
    }
    return 16;
}

/* The other inputs' feeds and queues at the graph's depth, and the
 * graph's output size for every input. */
static int feed_more(io_setup *s, const clv_media_desc *in, int depth, clv_size *size)
{
    const clv_transcode_options *o = s->o;
    clv_size sizes[CLV_GRAPH_INPUTS];
    sizes[0] = clv_pipeline_upright(in, s->rotation);
    for (int i = 1; i <= o->more_input_count; i++) {
        clv_sync_input *m = &s->more[i - 1];
        int err = clv_sync_input_feed(m, depth, &s->msg);
        if (err)
            return err;
        sizes[i] = clv_pipeline_upright(m->media, 0);
    }
    return clv_graph_desc_output_size(s->gdesc, sizes, size, &s->msg);
}

/* The decoder describes the input once; the feed and the sink (with its
 * encoder) are set up from that description. */
static void *setup_io(void *arg)
{
    io_setup *s = arg;
    const clv_transcode_options *o = s->o;
    if ((s->err = clv_decoder_open(&s->in, &s->dec, &s->msg))) {
        tell_depth(s, -1);
        return NULL;
    }
    const clv_media_desc *in = s->media = clv_decoder_media(s->dec);
    if (s->gdesc && (s->err = open_more(s))) {
        tell_depth(s, -1);
        return NULL;
    }
    int depth = s->gdesc ? graph_depth(s, in) : chain_depth(in, s->desc);
    tell_depth(s, depth);
    /* Layouts: the decoder's own when the stage takes it, else swscale. */
    if ((s->err = s->gdesc && depth == 16 ? clv_feed_create_deep(in, &s->feed, &s->msg)
                                          : clv_feed_create(in, depth, &s->feed, &s->msg)))
        return NULL;
    /* Turned upright before the chain, as ffmpeg's autorotate does: the
     * filters see the picture as it is meant to be shown, and every
     * container gets the same frames. */
    if (!o->no_autorotate) {
        s->rotation = in->rotation;
        s->hflip = in->hflip;
    }
    clv_size size;
    if (s->gdesc) {
        if ((s->err = feed_more(s, in, depth, &size)))
            return NULL;
    } else if ((s->err = clv_pipeline_output_size(in, s->rotation, s->desc, &size, &s->msg)))
        return NULL;
    /* A deinterlacer's send_field: the video at twice the rate, its
     * timestamps in half the time base; the other streams as they are. */
    int delay, rate;
    const clv_media_desc *timing = in;
    if (!clv_chain_desc_cadence(s->desc, &delay, &rate, NULL) && rate == 2) {
        *s->fields_media = *in;
        const AVRational two = {2, 1}, half = {1, 2};
        s->fields_media->time_base = av_mul_q(in->time_base, half);
        s->fields_media->frame_rate = av_mul_q(in->frame_rate, two);
        if (in->avg_frame_rate.num > 0)
            s->fields_media->avg_frame_rate = av_mul_q(in->avg_frame_rate, two);
        if (in->r_frame_rate.num > 0)
            s->fields_media->r_frame_rate = av_mul_q(in->r_frame_rate, two);
        timing = s->fields_media;
    }
    /* fps: the frames picked from the chain's output at the encoder, its
     * rate of the rate into it (source_fps) */
    if (!s->gdesc &&
        (s->err = clv_chain_desc_fps(s->desc, av_q2d(timing->frame_rate), &s->out.fps, &s->msg))) {
        clv_msg why = s->msg;
        s->err = clv_io_fail(&s->msg, s->err, "-vf: %.1000s", why.text);
        return NULL;
    }
    if (s->gdesc && o->audio_input > 0 && !o->no_audio) {
        const clv_media_desc *n = s->more[o->audio_input - 1].media;
        if (n->audio < 0 && !o->audio_optional) {
            s->err = clv_io_fail(&s->msg, CLV_EOPTION,
                                 "-map %d:a: '%.900s' (input %d) has no sound (-map %d:a? "
                                 "writes none then)",
                                 o->audio_input, n->path, o->audio_input, o->audio_input);
            return NULL;
        }
        *s->sound_media = *timing;
        s->sound_media->stream_count = n->stream_count;
        s->sound_media->streams = n->streams;
        s->sound_media->stream_desc_count = n->stream_desc_count;
        s->sound_media->audio = n->audio;
        s->out.no_subtitles = 1; /* -map picks the streams: its sound only */
        timing = s->sound_media;
    }
    clv_sink_options sink_opt = {.output = &s->out,
                                 .input = timing,
                                 .feed = s->feed,
                                 .rotation = s->rotation,
                                 .hflip = s->hflip,
                                 .width = size.width,
                                 .height = size.height,
                                 .sample_aspect = {size.sar_num, size.sar_den},
                                 .transfer = size.transfer,
                                 .primaries = size.primaries,
                                 .mic = o->mic,
                                 .mic_format = o->mic_format,
                                 .clock = s->dec};
    s->err = clv_sink_open(&sink_opt, &s->sink, &s->msg);
    return NULL;
}

/* Opens the input and the output (setup_io) beside the device and its
 * chain. The input's and the output's mistakes are told first, as a user
 * reads them. */
static int open_all(run *r, clv_msg *msg)
{
    const clv_transcode_options *o = r->o;
    io_setup io = {.o = o,
                   .in = clv_pipeline_input(o),
                   .out = clv_pipeline_output(o),
                   .desc = r->desc,
                   .gdesc = r->gdesc,
                   .more = r->more,
                   .sound_media = &r->sound_media,
                   .fields_media = &r->out_media};
    io.out.chain_pix_fmts =
        r->gdesc ? clv_graph_desc_pix_fmts(r->gdesc) : clv_chain_desc_pix_fmts(r->desc);
    io.out.unfiltered = !r->gdesc && (!o->chain || !*o->chain);
    /* -frames with fps, framestep or -r counts the frames out, as ffmpeg's */
    clv_fps_spec rate = {0};
    if (r->desc)
        clv_chain_desc_fps(r->desc, 25, &rate, NULL);
    r->picks = o->frame_rate || rate.rate > 0;
    if (o->max_frames > 0 && r->picks) {
        io.in.max_frames = 0;
        io.out.max_frames = o->max_frames;
        r->capped = 1;
    }
    if (clv_io_network_url(o->input))
        io.in.cancel = r->cancel; /* a Ctrl-C ends a network input's blocking read */
    if (pthread_mutex_init(&io.lock, NULL))
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory (threads)");
    if (pthread_cond_init(&io.depth_known, NULL)) {
        pthread_mutex_destroy(&io.lock);
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory (threads)");
    }
    pthread_t io_thread;
    int io_running = pthread_create(&io_thread, NULL, setup_io, &io) == 0;
    if (!io_running)
        setup_io(&io);
    clv_context_options copt;
    clv_transcode_engine_options(o, &copt);
    copt.profiling = 1;
    clv_msg dev_msg = {{0}};
    int dev_err = clv_context_create(&copt, &r->ctx, &dev_msg);
    /* The chain is built at the input's depth, which the decoder finds. */
    int depth = r->depth = wait_depth(&io);
    if (!dev_err && depth > 0 && r->gdesc)
        dev_err = clv_graph_create(r->ctx, r->gdesc, depth, &r->graph, &dev_msg);
    else if (!dev_err && depth > 0)
        dev_err = clv_chain_create_depth(r->ctx, r->desc, depth, &r->chain, &dev_msg);
    if (!dev_err && r->chain) /* the summary needs the stage's times, not each filter's */
        clv_chain_set_filter_timing(r->chain, 0);
    if (io_running)
        pthread_join(io_thread, NULL);
    pthread_cond_destroy(&io.depth_known);
    pthread_mutex_destroy(&io.lock);
    r->dec = io.dec;
    r->in = io.media;
    r->feed = io.feed;
    r->sink = io.sink;
    r->rotation = io.rotation;
    r->hflip = io.hflip;
    if (io.err || dev_err) {
        *msg = io.err ? io.msg : dev_msg;
        return io.err ? io.err : dev_err;
    }
    return 0;
}

/* The GPU stage: the input's frames in the feed's layout, upright and
 * filtered, out in the layout and colour the sink wants. */
static int open_graph_stage(run *r, const clv_stage_options *sopt, clv_msg *msg)
{
    clv_stage_input_format inputs[CLV_GRAPH_INPUTS];
    memset(inputs, 0, sizeof inputs);
    for (int i = 1; i <= r->more_count; i++) {
        const clv_sync_input *m = &r->more[i - 1];
        inputs[i] = (clv_stage_input_format){m->media->width, m->media->height,
                                             clv_feed_format(m->feed), clv_feed_color(m->feed)};
    }
    clv_graph_set_frame_rate(r->graph, r->in->frame_rate.num, r->in->frame_rate.den);
    int err = clv_stage_create_graph(r->ctx, sopt, r->graph, inputs, &r->stage, msg);
    r->delay = 0;
    r->rate = 1;
    r->out_tb = r->in->time_base;
    r->base = r->o->first_frame_index;
    r->last_pts = AV_NOPTS_VALUE;
    return err;
}

static int open_stage(run *r, clv_msg *msg)
{
    if (r->graph) {
        clv_stage_options g = {.struct_size = sizeof(clv_stage_options),
                               .width = r->in->width,
                               .height = r->in->height,
                               .in_format = clv_feed_format(r->feed),
                               .out_format = clv_sink_stage_format(r->sink),
                               .in_color = clv_feed_color(r->feed),
                               .out_color = clv_sink_color(r->sink),
                               .slots = 3,
                               .profiling = 1,
                               .rotation = r->rotation,
                               .hflip = r->hflip,
                               .depth = r->depth};
        return open_graph_stage(r, &g, msg);
    }
    clv_chain_set_frame_rate(r->chain, r->in->frame_rate.num, r->in->frame_rate.den);
    clv_stage_options sopt = {.struct_size = sizeof(clv_stage_options),
                              .width = r->in->width,
                              .height = r->in->height,
                              .in_format = clv_feed_format(r->feed),
                              .out_format = clv_sink_stage_format(r->sink),
                              .in_color = clv_feed_color(r->feed),
                              .out_color = clv_sink_color(r->sink),
                              .slots = 3,
                              .profiling = 1,
                              .rotation = r->rotation,
                              .hflip = r->hflip};
    /* The chain is told the input's aspect (expressions reading sar and
     * dar), as the sink was sized by it. */
    clv_size up = clv_pipeline_upright(r->in, r->rotation), out;
    int err = clv_chain_output_size(r->chain, &up, &out, msg);
    if (!err)
        err = clv_stage_create(r->ctx, &sopt, r->chain, &r->stage, msg);
    if (!err)
        clv_device_faults_from_env(r->stage);
    if (!err)
        clv_chain_cadence(r->chain, &r->delay, &r->rate);
    r->out_tb = r->rate == 2 ? r->out_media.time_base : r->in->time_base;
    r->base = r->o->first_frame_index * (uint64_t)r->rate;
    r->last_pts = AV_NOPTS_VALUE;
    return err;
}

/* What the callback is told at the start: the input, the chain, the
 * devices, the output and how long the run will be. */
static void describe_run(run *r)
{
    const clv_transcode_options *o = r->o;
    clv_transcode_status *st = &r->status;
    clv_color in_color = clv_feed_color(r->feed);
    st->input = o->input;
    st->output = o->output;
    clv_stage_output_size(r->stage, &st->width, &st->height);
    st->rotation = r->rotation;
    st->input_pix_fmt = av_get_pix_fmt_name(r->in->pix_fmt);
    clv_decode_text(r->in, r->decode_text, sizeof r->decode_text);
    st->decode = r->decode_text;
    st->matrix = clv_matrix_name(in_color.matrix);
    st->full_range = in_color.full_range;
    st->chain = r->chain_text;
    clv_devices_text(r->ctx, r->devices, sizeof r->devices);
    st->device = r->devices;
    st->device_shares = "";
    st->codec = clv_sink_codec_name(r->sink);
    st->output_pix_fmt = av_get_pix_fmt_name(clv_sink_pix_fmt(r->sink));
    st->partial_path = clv_sink_partial_path(r->sink, 0);
    for (int n = 0; n < CLV_TEE_MAX; n++)
        r->partials[n] = clv_sink_partial_path(r->sink, n);
    st->partial_paths = r->partials;
    if (r->in->duration_us > 0) {
        double total = (double)r->in->duration_us / 1e6 - (double)o->start_us / 1e6;
        if (o->duration_us > 0 && (double)o->duration_us / 1e6 < total)
            total = (double)o->duration_us / 1e6;
        st->total_seconds = total;
    }
}

/* How the decoded frames travel: handed to the encoder as they are
 * (direct, as ffmpeg would with nothing to filter), decoded into the
 * stage's memory (in place), or copied into the staging. */
static int plan_frames(run *r, clv_msg *msg)
{
    if (!(r->dec_q = clv_queue_create(8)))
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    clv_pixfmt in_f = clv_feed_format(r->feed), out_f = clv_sink_stage_format(r->sink);
    clv_color in_color = clv_feed_color(r->feed), out_color = clv_sink_color(r->sink);
    /* With a control socket a chain may come later: the frames go through
     * the stage. */
    r->direct = !r->graph && !r->ipc && !r->o->lead_frames && !r->o->keep_frames &&
                clv_chain_desc_passes(r->desc) && clv_feed_native(r->feed) && out_f == in_f &&
                !r->rotation && !r->hflip &&
                (!clv_pixfmt_is_yuv(in_f) || (in_color.matrix == out_color.matrix &&
                                              in_color.full_range == out_color.full_range));
    /* The decoder writes its frames into the stage's memory: on a CPU device
     * the first kernel reads them there, on a GPU they are uploaded from
     * there (pinned memory, a DMA), over several devices by whichever takes
     * the frame: no copy into the staging. */
    r->in_place =
        !r->graph && !r->direct && !r->delay && clv_feed_native(r->feed) && clv_pixfmt_is_yuv(in_f);
    clv_frame_memory memory = {clv__stage_block_alloc, clv__stage_block_free, r->stage};
    if (r->in_place && clv_decoder_set_memory(r->dec, &memory))
        r->in_place = 0;
    r->stage_fault = clv_fault_after("stage");
    return 0;
}

/* The encoder's thread, then the decoder's. */
static int start_threads(run *r, clv_msg *msg)
{
    int err = clv_sink_start(r->sink, msg);
    if (!err && clv_decoder_start(r->dec, r->dec_q, NULL))
        err = clv_io_fail(msg, CLV_ENOMEM, "out of memory (threads)");
    for (int i = 0; !err && i < r->more_count; i++)
        err = clv_sync_input_start(&r->more[i], msg);
    return err;
}

/* ---- Running ------------------------------------------------------------- */

/* Sends f, decoded into one of the stage's blocks, where it is, and holds
 * it: 0, or a CLV_E* code with msg; 1 when it is not in one (or its planes
 * run backwards): copy it then. */
static int submit_in_place(run *r, AVFrame *f, uint64_t index, clv_msg *msg)
{
    int err = clv__stage_submit_decoded(r->stage, r->dec, f, index, msg);
    if (!err)
        r->held[index % PTS_RING] = f;
    return err;
}

/* Counts a frame gone to the encoder and tells the callback. */
static void counted(run *r, int64_t pts)
{
    if (r->frames_in++ == 0)
        r->status.first_frame_s = clv_io_seconds() - r->entered;
    /* ffmpeg's frame count is of the frames out */
    r->status.frames = r->picks && r->sink ? clv_sink_frames_out(r->sink) : r->frames_in;
    r->status.out_seconds = (double)pts * av_q2d(r->out_tb);
    report(r, CLV_TRANSCODE_PROGRESS);
}

/* The pts of output frame j (counted from the first kept) in the
 * output's time base: frame n's at rate 1; at rate 2 (a frame per field)
 * frame n's first field at 2 pts(n), its second at pts(n) + pts(n + 1),
 * as ffmpeg's yadif and bwdif. The ring holds each submit's pts (a
 * frame's two submits the same; the flush's the extrapolated next). */
static int64_t out_pts(const run *r, uint64_t j)
{
    const uint64_t n = j / (uint64_t)r->rate, at = r->base + n * (uint64_t)r->rate;
    const int64_t pts = r->pts[at % PTS_RING];
    if (r->rate == 1 || pts == AV_NOPTS_VALUE)
        return pts;
    if (j % 2 == 0)
        return 2 * pts;
    const int64_t next = r->pts[(at + 2) % PTS_RING];
    return next == AV_NOPTS_VALUE ? AV_NOPTS_VALUE : pts + next;
}

/* Takes the oldest frame out of the stage into the sink. */
static int emit(run *r, clv_msg *msg)
{
    const uint8_t *pixels;
    uint64_t index;
    int err = clv_stage_output(r->stage, &pixels, &index, msg);
    if (err)
        return err;
    av_frame_free(&r->held[index % PTS_RING]); /* read: back to the decoder's pool */
    /* The first delay * rate outputs are no frame yet (the filter took the
     * first); the leading context's come next, the trailing context's
     * after the kept ones. Their pts are still counted from the first. */
    const uint64_t rate = (uint64_t)r->rate, dropped = r->base + (uint64_t)r->delay * rate,
                   lead = (uint64_t)r->o->lead_frames * rate;
    const uint64_t keep = (uint64_t)r->o->keep_frames * rate;
    if (index < dropped || index - dropped < lead || (keep && index - dropped >= lead + keep)) {
        if (index >= dropped)
            r->context_dropped++;
        clv_stage_release(r->stage);
        return 0;
    }
    int64_t pts = out_pts(r, index - dropped);
    /* The encoder thread reads the frame where the stage wrote it (shared
     * staging) or its download landed (copied staging's pinned memory): no
     * copy on the submitting thread. */
    err = clv_sink_frame(r->sink, pixels, clv_stage_keep(r->stage), pts,
                         r->read_at[index % PTS_RING], msg);
    clv_stage_release(r->stage);
    if (!err)
        counted(r, pts);
    return err;
}

/* Hands a decoded frame to the encoder as it is (direct); the sink owns it. */
static int pass_frame(run *r, AVFrame *f, clv_msg *msg)
{
    int64_t pts = f->pts;
    r->status.out_seconds = (double)pts * av_q2d(r->in->time_base);
    r->submitted++;
    int err = clv_sink_pass(r->sink, f, msg);
    if (!err)
        counted(r, pts);
    return err;
}

/* Sends a decoded frame into the stage (taking results out first while no
 * slot is free): where the decoder wrote it, or copied into the staging;
 * rate times (send_field: the second run makes the second field's frame
 * from what the deinterlacer kept, so its input is not written). Frees f,
 * holds it until its output is taken, or keeps it for the flush (delay). */
static int submit_frame(run *r, AVFrame *f, clv_msg *msg)
{
    int err = 0;
    for (int field = 0; !err && field < r->rate; field++) {
        while (!err && !clv_stage_input(r->stage))
            err = emit(r, msg);
        uint64_t index = r->base + r->submitted;
        if (!err && field == 0)
            err = clv_feed_check(r->feed, f, msg);
        if (!err) {
            r->pts[index % PTS_RING] = f->pts;
            r->read_at[index % PTS_RING] = clv_frame_read_time(f);
            if ((int64_t)r->submitted == r->stage_fault)
                err = clv_io_fail(msg, CLV_ECL, "GPU stage failed (injected fault)");
        }
        int copy = 1;
        if (!err && r->in_place) { /* never with a held frame: rate is 1 */
            copy = submit_in_place(r, f, index, msg);
            if (copy <= 0)
                err = copy;
            if (copy == 0)
                f = NULL; /* held until its output is taken */
        }
        if (!err && copy && field == 0)
            err = clv_feed_write(r->feed, f, clv_stage_input(r->stage), msg);
        if (!err && copy)
            err = clv_stage_submit(r->stage, index, msg);
        if (!err)
            r->submitted++;
    }
    if (!err && r->delay && f) { /* kept for the flush at the end */
        r->last_pts = r->last ? r->last->pts : AV_NOPTS_VALUE;
        av_frame_free(&r->last);
        r->last = f;
        f = NULL;
    }
    av_frame_free(&f);
    return err;
}

/* ---- Several inputs: ffmpeg's framesync (framesync.c) ------------------- */

/* A packet of input `input` (its sound): to the sink when its sound is
 * the one kept (-map N:a, else input 0's), else dropped. */
static int sound_packet(run *r, int input, void *item, clv_msg *msg)
{
    if (input != r->o->audio_input) {
        clv_item_free(CLV_ITEM_PACKET, item);
        return 0;
    }
    return clv_sink_packet(r->sink, item, msg);
}

/* Input `input`'s sound packet read while looking for its frames: see
 * sound_packet; a refusal is kept for the next submit. */
static void more_packet(void *user, int input, void *item)
{
    run *r = user;
    int err = sound_packet(r, input, item, &r->sound_msg);
    if (err && !r->sound_err)
        r->sound_err = err;
}

static int sync_stop(void *user)
{
    return stop_wanted(user);
}

/* What the other inputs are synced to: input 0's first frame and time
 * base; stops and sound packets through the run. */
static clv_sync_clock sync_clock(run *r)
{
    return (clv_sync_clock){r->t0, r->in->time_base, sync_stop, more_packet, r};
}

/* Sends the output frame at time t (pts in input 0's time base) into the
 * graph's stage: input 0's frame f (NULL: absent, after a handover), the
 * driving input's m->cur, every other input's frame for t. Frees f. */
static int submit_graph_at(run *r, AVFrame *f, double t, int64_t pts, double read_at, clv_msg *msg)
{
    int picked[CLV_GRAPH_INPUTS] = {0};
    int err = 0;
    clv_sync_clock clock = sync_clock(r);
    if (r->sound_err) {
        *msg = r->sound_msg;
        av_frame_free(&f);
        return r->sound_err;
    }
    for (int i = 0; i < r->more_count; i++) {
        if (!clv_graph_desc_uses(r->gdesc, i + 1)) {
            picked[i] = CLV_PICK_ABSENT;
            continue;
        }
        if (i + 1 == r->driver) {
            picked[i] = CLV_PICK_FRAME;
            continue;
        }
        picked[i] = clv_sync_pick(&r->more[i], i + 1, &clock, t);
        if (picked[i] < 0 || picked[i] == CLV_PICK_END) {
            r->graph_end = picked[i] == CLV_PICK_END;
            av_frame_free(&f);
            return 0;
        }
        if (picked[i] == CLV_PICK_SKIP) {
            av_frame_free(&f);
            return 0;
        }
    }
    while (!err && !clv_stage_input(r->stage))
        err = emit(r, msg);
    uint64_t index = r->base + r->submitted;
    if (!err && f)
        err = clv_feed_check(r->feed, f, msg);
    if (!err) {
        r->pts[index % PTS_RING] = pts;
        r->read_at[index % PTS_RING] = read_at;
        if ((int64_t)r->submitted == r->stage_fault)
            err = clv_io_fail(msg, CLV_ECL, "GPU stage failed (injected fault)");
    }
    if (!err && f)
        err = clv_feed_write(r->feed, f, clv_stage_input(r->stage), msg);
    else if (!err)
        clv_stage_input_absent(r->stage, 0);
    for (int i = 0; !err && i < r->more_count; i++) {
        clv_sync_input *m = &r->more[i];
        if (picked[i] != CLV_PICK_FRAME) {
            clv_stage_input_absent(r->stage, i + 1);
            continue;
        }
        err = clv_feed_check(m->feed, m->cur, msg);
        if (!err)
            err = clv_feed_write(m->feed, m->cur, clv_stage_input_at(r->stage, i + 1), msg);
    }
    if (!err)
        err = clv_stage_submit_at(r->stage, index, t, msg);
    if (!err)
        r->submitted++;
    av_frame_free(&f);
    return err;
}

/* Input 0's frame f while it drives: the output frame at its time. From
 * its drive_until on (xfade's offset + duration) another input drives
 * (r->driver, drive_rest). Frees f. */
static int submit_graph_frame(run *r, AVFrame *f, clv_msg *msg)
{
    double t = clv_sync_frame_seconds(f, r->in);
    if (!r->have_t0) {
        r->t0 = t;
        r->have_t0 = 1;
        clv_graph_set_time_origin(r->graph, t);
    }
    if (r->over) {
        r->over = 0;
        r->driver = clv_sync_next_driver(r->more, r->more_count, r->gdesc, 0, t - r->t0);
        av_frame_free(&f);
        return 0;
    }
    r->over = t - r->t0 > r->sync0.drive_until + 1e-9;
    r->last_t = t;
    return submit_graph_at(r, f, t, f->pts, clv_frame_read_time(f), msg);
}

/* Input 0's items after a handover, without waiting (wait: to its end):
 * its sound to the sink, its frames dropped. */
static int input0_after(run *r, int wait, clv_msg *msg)
{
    while (!r->in0_done) {
        int kind;
        void *item;
        int got = clv_queue_pop_wait(r->dec_q, &kind, &item, wait ? 0.1 : 0);
        if (stop_wanted(r)) {
            if (got == 0)
                clv_item_free(kind, item);
            return 0;
        }
        if (got == 1 && wait)
            continue;
        if (got == 1)
            return 0;
        if (got < 0 || kind == CLV_ITEM_END) {
            r->in0_done = 1;
        } else if (kind == CLV_ITEM_PACKET) {
            int err = sound_packet(r, 0, item, msg);
            if (err)
                return err;
        } else {
            clv_item_free(kind, item);
        }
    }
    return 0;
}

/* -map N:a: input N's sound to its end, after the video's (a live input
 * ends with the video: its sound would not). */
static int sound_rest(run *r, clv_sync_input *m, clv_msg *msg)
{
    clv_sync_clock clock = sync_clock(r);
    if (clv_io_network_url(m->media->path))
        return 0;
    while (!m->eof && !r->sound_err && !stop_wanted(r)) {
        av_frame_free(&m->next);
        AVFrame *f = clv_sync_next_frame(m, (int)(m - r->more) + 1, &clock);
        if (!f)
            break;
        av_frame_free(&f);
    }
    if (r->sound_err)
        *msg = r->sound_msg;
    return r->sound_err;
}

/* After input 0 handed over (xfade): the driving input's frames are the
 * output's, at its times plus its offset, until it ends (or hands over
 * again); input 0's sound is kept to its end (its frames dropped). */
static int drive_rest(run *r, clv_msg *msg)
{
    clv_sync_clock clock = sync_clock(r);
    int err = 0;
    /* Input 0's sound goes out unless -an: its frames are read for it. */
    if (r->o->no_audio && !r->in0_done) {
        clv_decoder_stop(r->dec);
        r->in0_done = 1;
    }
    while (!err && r->driver > 0 && !r->graph_end && !stop_wanted(r)) {
        if ((err = input0_after(r, 0, msg)))
            break;
        clv_sync_input *d = &r->more[r->driver - 1];
        AVFrame *f = clv_sync_next_frame(d, r->driver, &clock);
        if (!f)
            break;
        /* its times from its first frame, at its offset from input 0's */
        double shift = r->t0 + d->sync.offset - d->first;
        double t = clv_sync_frame_seconds(f, d->media) + shift;
        if (t <= r->last_t + 1e-9) { /* its time was made before the handover */
            av_frame_free(&f);
            continue;
        }
        if (r->over) {
            r->over = 0;
            r->driver =
                clv_sync_next_driver(r->more, r->more_count, r->gdesc, r->driver, t - r->t0);
            av_frame_free(&f);
            continue;
        }
        r->over = t - r->t0 > d->sync.drive_until + 1e-9;
        r->last_t = t;
        int64_t pts = f->pts == AV_NOPTS_VALUE
                          ? llrint(t / av_q2d(r->in->time_base))
                          : av_rescale_q(f->pts, d->media->time_base, r->in->time_base) +
                                llrint(shift / av_q2d(r->in->time_base));
        double read_at = clv_frame_read_time(f);
        av_frame_free(&d->cur);
        d->cur = f;
        err = submit_graph_at(r, NULL, t, pts, read_at, msg);
    }
    if (!err && !r->stopped)
        err = input0_after(r, 1, msg);
    if (r->stopped && !r->in0_done)
        clv_decoder_stop(r->dec);
    return err;
}

/* The flush's frame: the last again, its pts one step on (the step from
 * the frame before, as ffmpeg's yadif and bwdif; a frame's duration after
 * a single frame), which the last frame's second field takes from. */
static AVFrame *flush_frame(const run *r)
{
    AVFrame *again = av_frame_clone(r->last);
    if (again && again->pts != AV_NOPTS_VALUE) {
        if (r->last_pts != AV_NOPTS_VALUE && r->last_pts < again->pts)
            again->pts += again->pts - r->last_pts;
        else
            again->pts += av_rescale_q(1, av_inv_q(r->in->frame_rate), r->in->time_base);
    }
    return again;
}

/* ---- The control socket ---------------------------------------------------- */

/* Takes every frame in flight out into the sink, so that a chain can be
 * changed with nothing running on it. */
static int drain_stage(run *r, clv_msg *msg)
{
    int err = 0;
    while (!err && clv_stage_pending(r->stage) > 0)
        err = emit(r, msg);
    return err;
}

/* chain-changed to every client, with r->chain_text. */
/* After set_chain or set_param: the chain's text as the reply to req
 * first, then chain-changed to every client (a client that asked hears
 * its answer before the news everyone gets). */
static void chain_changed(run *r, clv_ipc_request *req)
{
    clv_chain_format(clv_chain_get_desc(r->chain), r->chain_text, sizeof r->chain_text);
    clv_json j = {0};
    clv_json_string(&j, r->chain_text);
    clv_ipc_reply(r->ipc, req, NULL, j.text);
    clv_json_free(&j);
    clv_json_add(&j, "\"chain\":");
    clv_json_string(&j, r->chain_text);
    clv_ipc_event(r->ipc, "chain-changed", j.text);
    clv_json_free(&j);
}

/* 0 when chain makes frames of the output's size; else the reason. */
static int keeps_size(run *r, clv_chain *chain, char *why, size_t size)
{
    clv_size up = clv_pipeline_upright(r->in, r->rotation), out;
    clv_msg m = {{0}};
    if (clv_chain_output_size(chain, &up, &out, &m)) {
        snprintf(why, size, "%s", m.text);
        return -1;
    }
    if (out.width != r->status.width || out.height != r->status.height) {
        snprintf(why, size,
                 "it makes %dx%d frames; the output is %dx%d (a transcode keeps its size)",
                 out.width, out.height, r->status.width, r->status.height);
        return -1;
    }
    return 0;
}

/* set_chain TEXT: built at the run's depth beside the running chain, which
 * goes on unchanged when the new one can't be parsed, built or sized. */
static int set_chain(run *r, clv_ipc_request *req, clv_msg *msg)
{
    char why[1200];
    clv_msg m = {{0}};
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    int err = clv_chain_parse(req->arg[0], &desc, &m);
    if (!err) {
        /* fps and framestep pick frames at the encoder, opened at their
         * rate: a new chain keeps the run's as they are */
        const double in_rate = av_q2d(r->in->frame_rate);
        clv_fps_spec now, next;
        if (clv_chain_desc_fps(r->desc, in_rate, &now, NULL))
            memset(&now, 0, sizeof now);
        if ((err = clv_chain_desc_fps(desc, in_rate, &next, &m)) == 0 &&
            (now.rate != next.rate || now.rounding != next.rounding ||
             now.eof_pass != next.eof_pass || now.has_start != next.has_start ||
             now.start_time != next.start_time || now.step != next.step)) {
            err = CLV_EPARSE;
            snprintf(m.text, sizeof m.text,
                     "the frame rate is the run's (the output was opened at it): a new chain "
                     "keeps its fps or framestep as it is (%s)",
                     now.rate > 0 ? "the same filter and values" : "none");
        }
        if (!err)
            clv_chain_desc_take_fps(desc);
    }
    if (!err) {
        /* As at the start: the output never replaces a file the chain reads. */
        const char *inputs[1 + CLV_CHAIN_MAX * (1 + CLV_PARAMS_MAX)];
        int count =
            1 + clv_chain_desc_files(desc, inputs + 1, CLV_CHAIN_MAX * (1 + CLV_PARAMS_MAX));
        inputs[0] = r->o->input;
        err = clv_output_check(inputs, count, r->o->output, r->o->output_format, 1, &m);
    }
    if (!err)
        err = clv_chain_create_depth(r->ctx, desc, clv_chain_depth(r->chain), &chain, &m);
    if (err) {
        snprintf(why, sizeof why, "set_chain: %s", m.text);
    } else {
        clv_chain_set_filter_timing(chain, 0);
        clv_chain_set_frame_rate(chain, r->in->frame_rate.num, r->in->frame_rate.den);
        char size_why[1100];
        int delay = 0, rate = 1;
        clv_chain_cadence(chain, &delay, &rate);
        if ((err = keeps_size(r, chain, size_why, sizeof size_why))) {
            snprintf(why, sizeof why, "set_chain: %s", size_why);
        } else if (delay || r->delay) {
            /* its first outputs, or the old one's held frames, would be lost */
            snprintf(why, sizeof why,
                     "set_chain: a chain that holds frames back (yadif, bwdif) is set at the "
                     "start of a transcode, not swapped in or out of a running one");
            err = CLV_EINVAL;
        }
    }
    clv_chain_desc_destroy(desc);
    if (err) {
        clv_chain_destroy(chain);
        clv_ipc_reply(r->ipc, req, why, NULL);
        return 0;
    }
    /* The frames sent with the old chain come out before it goes. */
    if ((err = drain_stage(r, msg))) {
        clv_chain_destroy(chain);
        clv_ipc_reply(r->ipc, req, msg->text, NULL);
        return err;
    }
    clv_stage_set_chain(r->stage, chain);
    clv_chain_destroy(r->chain);
    r->chain = chain;
    chain_changed(r, req);
    return 0;
}

/* The text of parameter `param` of filter `index` as the chain writes it
 * ("name=value" up to the next parameter's name), into out. */
static int param_text(const clv_chain *chain, int index, const char *param, char *out, size_t size)
{
    const clv_chain_desc *d = clv_chain_get_desc(chain);
    const clv_filter *f = clv_chain_desc_filter(d, index);
    clv_chain_desc *one = clv_chain_desc_slice(d, index, 1);
    char text[16384], key[80];
    int found = -1;
    if (!one || !f)
        goto done;
    clv_chain_format(one, text, sizeof text);
    int n = clv_filter_param_count(f);
    for (int k = 0; k < n; k++) {
        if (strcmp(clv_filter_param(f, k)->name, param))
            continue;
        snprintf(key, sizeof key, "%s=", param);
        const char *at = strstr(text, key);
        while (at && at > text && at[-1] != ':' && at[-1] != '=')
            at = strstr(at + 1, key);
        if (!at)
            break;
        at += strlen(key);
        const char *end = at + strlen(at);
        if (k + 1 < n) {
            snprintf(key, sizeof key, ":%s=", clv_filter_param(f, k + 1)->name);
            const char *next = strstr(at, key);
            if (next)
                end = next;
        }
        snprintf(out, size, "%.*s", (int)(end - at), at);
        found = 0;
    }
done:
    clv_chain_desc_destroy(one);
    return found;
}

/* set_param INDEX NAME VALUE on the running chain, between frames; a value
 * that would change the output's size is put back. */
static int set_param(run *r, clv_ipc_request *req, clv_msg *msg)
{
    char before[8400], why[1200];
    clv_msg m = {{0}};
    int have_before = param_text(r->chain, req->index, req->arg[1], before, sizeof before) == 0;
    int err = drain_stage(r, msg);
    if (err) {
        clv_ipc_reply(r->ipc, req, msg->text, NULL);
        return err;
    }
    if (clv_chain_set_param(r->chain, req->index, req->arg[1], req->arg[2], &m)) {
        snprintf(why, sizeof why, "set_param: %s", m.text);
        clv_ipc_reply(r->ipc, req, why, NULL);
        return 0;
    }
    char size_why[1100];
    if (keeps_size(r, r->chain, size_why, sizeof size_why)) {
        if (!have_before || clv_chain_set_param(r->chain, req->index, req->arg[1], before, &m))
            return clv_io_fail(msg, CLV_EINVAL, "set_param %s: the chain can't be put back: %s",
                               req->arg[1], m.text);
        snprintf(why, sizeof why, "set_param: %s", size_why);
        clv_ipc_reply(r->ipc, req, why, NULL);
        return 0;
    }
    chain_changed(r, req);
    return 0;
}

static void get(run *r, clv_ipc_request *req)
{
    clv_json j = {0};
    switch (req->what) {
    case CLV_IPC_STATS: {
        double elapsed = clv_io_seconds() - r->start;
        clv_latency_summary lat, enc;
        clv_sink_latency(r->sink, &lat, &enc);
        clv_json_add(&j, "{\"frames\":%lld,\"fps\":%.3f,\"dropped\":0,",
                     (long long)r->status.frames,
                     elapsed > 0 ? (double)r->status.frames / elapsed : 0.0);
        /* null until the first packet is written */
        if (lat.count)
            clv_json_add(&j,
                         "\"latency_ms\":%.3f,\"latency_mean_ms\":%.3f,\"latency_p50_ms\":%.3f,"
                         "\"latency_p99_ms\":%.3f,\"latency_max_ms\":%.3f,",
                         lat.last, lat.mean, lat.p50, lat.p99, lat.max);
        else
            clv_json_add(&j, "\"latency_ms\":null,\"latency_mean_ms\":null,\"latency_p50_ms\":null,"
                             "\"latency_p99_ms\":null,\"latency_max_ms\":null,");
        if (enc.count)
            clv_json_add(&j, "\"encoder_p50_ms\":%.3f,\"encoder_p99_ms\":%.3f,", enc.p50, enc.p99);
        else
            clv_json_add(&j, "\"encoder_p50_ms\":null,\"encoder_p99_ms\":null,");
        clv_json_add(&j, "\"latency_frames\":%lld", (long long)lat.count);
        clv_json_add(&j, ",\"device\":");
        clv_json_string(&j, r->devices);
        clv_json_add(&j, ",\"paused\":%s,\"time\":%.6f,\"elapsed\":%.3f,\"chain\":",
                     r->paused ? "true" : "false", r->status.out_seconds, elapsed);
        clv_json_string(&j, r->chain_text);
        clv_json_add(&j, ",\"output\":");
        clv_json_string(&j, r->o->output);
        clv_json_add(&j, ",\"decode\":");
        clv_json_string(&j, r->decode_text);
        clv_json_add(&j, "}");
        break;
    }
    case CLV_IPC_CHAIN:
        clv_json_string(&j, r->chain_text);
        break;
    case CLV_IPC_FILTERS:
        clv_ipc_filters_json(&j);
        break;
    case CLV_IPC_DEVICES:
        clv_ipc_devices_json(&j, r->ctx);
        break;
    }
    clv_ipc_reply(r->ipc, req, j.text ? NULL : "out of memory", j.text);
    clv_json_free(&j);
}

/* Applies the commands the socket has queued. 0, or a CLV_E* code (with
 * msg) that ends the run. */
static int control(run *r, clv_msg *msg)
{
    clv_ipc_request *req;
    int err = 0, taken = 0;
    /* At most 32 a frame: many clients' commands wait a few frames rather
     * than hold one back (every reply still comes, in order). */
    while (!err && taken++ < 32 && (req = clv_ipc_next(r->ipc))) {
        switch (req->verb) {
        case CLV_IPC_SET_CHAIN:
            err = set_chain(r, req, msg);
            break;
        case CLV_IPC_SET_PARAM:
            err = set_param(r, req, msg);
            break;
        case CLV_IPC_GET:
            get(r, req);
            break;
        case CLV_IPC_PAUSE:
        case CLV_IPC_RESUME:
            r->paused = req->verb == CLV_IPC_PAUSE;
            clv_ipc_reply(r->ipc, req, NULL, NULL);
            break;
        case CLV_IPC_QUIT:
            r->stopped = 1; /* finished as a cancel finishes it */
            clv_ipc_reply(r->ipc, req, NULL, NULL);
            break;
        default: /* the server answers the player's verbs itself */
            clv_ipc_reply(r->ipc, req, "not available in transcode", NULL);
            break;
        }
    }
    return err;
}

/* ---- Reconnecting ------------------------------------------------------------ */

/* reconnecting or reconnected to every client of the control socket. */
static void tell_reconnect(run *r, const char *event, const char *why, int attempt, double outage)
{
    if (!r->ipc)
        return;
    clv_json j = {0};
    clv_json_add(&j, "\"input\":");
    clv_json_string(&j, r->o->input);
    if (why) {
        clv_json_add(&j, ",\"reason\":");
        clv_json_string(&j, why);
    }
    clv_json_add(&j, ",\"attempt\":%d,\"outage\":%.3f,\"time\":%.6f", attempt, outage,
                 r->status.out_seconds);
    clv_ipc_event(r->ipc, event, j.text);
    clv_json_free(&j);
}

/* Waits `seconds` (or until a stop), answering the control socket. */
static int nap(run *r, double seconds, clv_msg *msg)
{
    double until = clv_io_seconds() + seconds;
    int err = 0;
    while (!err && !stop_wanted(r) && clv_io_seconds() < until) {
        struct timespec step = {0, 20 * 1000 * 1000};
        nanosleep(&step, NULL);
        if (r->ipc)
            err = control(r, msg);
    }
    return err;
}

/* A reconnection's hooks (clv_retry): the run and the drop. */
typedef struct retrying {
    run *r;
    const char *why;
} retrying;

static void trying(void *user, int attempt)
{
    retrying *t = user;
    report(t->r, CLV_TRANSCODE_RECONNECTING);
    tell_reconnect(t->r, "reconnecting", t->why, attempt, clv_io_seconds() - t->r->dropped_at);
}

static int retry_stop(void *user)
{
    return stop_wanted(((retrying *)user)->r);
}

static int retry_wait(void *user, double seconds, clv_msg *msg)
{
    return nap(((retrying *)user)->r, seconds, msg);
}

/* The decoder's thread ended. When the source dropped or ended and
 * --reconnect is on, it is opened again (clv_decoder_retry: waits from
 * 0.5 s doubling to 8 s between tries) until it opens (1: the decoder runs
 * again, on the same timeline), reconnect_max seconds pass, the run is
 * stopped or the source comes back changed (0: the run ends there,
 * finished, with r->dropped saying why). A CLV_E* code (with msg) is the
 * decoder's own error. */
static int reconnect(run *r, clv_msg *msg)
{
    char why[200];
    int err = clv_decoder_finish(r->dec, msg);
    if (err || !clv_decoder_source_ended(r->dec, why, sizeof why) || stop_wanted(r) ||
        !clv_io_network_url(r->o->input))
        return err;
    if (!r->o->reconnect) {
        snprintf(r->dropped, sizeof r->dropped,
                 "'%.700s': the source dropped (%.150s); the output ends there (--reconnect waits "
                 "for it to come back)",
                 r->o->input, why);
        return 0;
    }
    /* The frames sent before the drop are written before the wait. */
    if ((err = drain_stage(r, msg)))
        return err;
    r->dropped_at = clv_io_seconds();
    retrying t = {r, why};
    clv_retry policy = {.began = r->dropped_at,
                        .most = r->o->reconnect_max,
                        .trying = trying,
                        .stop = retry_stop,
                        .wait = retry_wait,
                        .user = &t};
    char last[1100];
    int attempts = 0;
    err = clv_decoder_retry(r->dec, &policy, &attempts, last, sizeof last, msg);
    if (err < 0)
        return err;
    if (!err) {
        report(r, CLV_TRANSCODE_RECONNECTED);
        tell_reconnect(r, "reconnected", NULL, attempts, clv_io_seconds() - r->dropped_at);
        if (clv_decoder_start(r->dec, r->dec_q, NULL))
            return clv_io_fail(msg, CLV_ENOMEM, "out of memory (threads)");
        return 1;
    }
    if (!stop_wanted(r) && strstr(last, "came back changed"))
        snprintf(r->dropped, sizeof r->dropped,
                 "'%.300s': the source dropped (%.150s); %.400s; the output ends there",
                 r->o->input, why, last);
    else if (!stop_wanted(r))
        snprintf(
            r->dropped, sizeof r->dropped,
            "'%.300s': the source dropped (%.150s) and did not come back within %.1f s%s%.300s; "
            "the output ends there",
            r->o->input, why, clv_io_seconds() - r->dropped_at, last[0] ? ": " : "", last);
    return 0;
}

/* ---- Running, continued ------------------------------------------------------ */

/* Moves the decoder's output on until its end, an error or a stop: frames
 * through the stage (or straight to the encoder), packets of the copied
 * streams to the sink; then the stage's last results. */
static int pump(run *r, clv_msg *msg)
{
    int err = 0;
    enum AVPixelFormat enc_f = clv_sink_pix_fmt(r->sink);
    for (;;) {
        int kind;
        void *item;
        if (r->ipc && (err = control(r, msg)))
            break;
        if (r->paused && !stop_wanted(r)) {
            /* The decoder waits on its full queue meanwhile. */
            struct timespec nap = {0, 20 * 1000 * 1000};
            nanosleep(&nap, NULL);
            continue;
        }
        /* A live run (--live, -re) finishes the frames in flight while no
         * new frame is there, rather than when the stage's slots are full:
         * a frame's output does not wait for the frames after it. */
        int got = r->o->live || r->o->realtime ? clv_queue_pop_wait(r->dec_q, &kind, &item, 0) : 1;
        if (got == 1 && (r->o->live || r->o->realtime) && clv_stage_pending(r->stage) > 0) {
            if ((err = emit(r, msg)))
                break;
            continue;
        }
        if (got == 1)
            got = clv_queue_pop_wait(r->dec_q, &kind, &item, 0.1);
        if (stop_wanted(r) || (r->capped && clv_sink_full(r->sink))) {
            if (got == 0)
                clv_item_free(kind, item);
            clv_decoder_stop(r->dec); /* what is decoded and not yet sent is dropped */
            break;
        }
        if (got == 1)
            continue;
        if (got == 0 && kind == CLV_ITEM_END && (err = reconnect(r, msg)) == 1) {
            err = 0;
            continue;
        }
        if (err || got < 0 || kind == CLV_ITEM_END)
            break;
        if (kind == CLV_ITEM_PACKET) {
            if ((err = r->graph ? sound_packet(r, 0, item, msg)
                                : clv_sink_packet(r->sink, item, msg)))
                break;
            continue;
        }
        AVFrame *f = item;
        /* A live source whose picture changes: the recording made so far
         * is kept (it cannot be made again), ending there as at a drop. */
        clv_msg changed = {{0}};
        if (!r->graph && r->feed && clv_io_network_url(r->o->input) &&
            clv_feed_check(r->feed, f, &changed)) {
            snprintf(r->dropped, sizeof r->dropped,
                     "%.800s: the output ends there, with the %llu "
                     "frames before the change",
                     changed.text, (unsigned long long)r->submitted);
            av_frame_free(&f);
            clv_decoder_stop(r->dec);
            break;
        }
        if (r->direct && f->format == enc_f && f->width == r->in->width &&
            f->height == r->in->height)
            err = pass_frame(r, f, msg);
        else if (r->graph)
            err = submit_graph_frame(r, f, msg);
        else
            err = submit_frame(r, f, msg);
        /* An input with eof_action=endall ended, or a stop while waiting
         * for another input's frame. */
        if (!err && (r->graph_end || (r->graph && stop_wanted(r))))
            clv_decoder_stop(r->dec);
        if (err || r->graph_end || (r->graph && stop_wanted(r)) || r->driver)
            break;
    }
    /* Another input drives the rest (xfade's second input), or none. */
    if (!err && r->driver > 0)
        err = drive_rest(r, msg);
    else if (!err && r->driver < 0)
        clv_decoder_stop(r->dec);
    if (!err && r->graph && r->o->audio_input > 0 && !r->o->no_audio && !r->stopped)
        err = sound_rest(r, &r->more[r->o->audio_input - 1], msg);
    /* The frames the chain holds: the last one again, after the end. */
    if (!err && r->delay && r->last && !r->stopped) {
        clv_chain_end(r->chain);
        for (int i = 0; !err && i < r->delay; i++) {
            AVFrame *again = flush_frame(r);
            err =
                again ? submit_frame(r, again, msg) : clv_io_fail(msg, CLV_ENOMEM, "out of memory");
        }
        if (!err) /* not frames of the input */
            r->submitted -= (uint64_t)(r->delay * r->rate);
    }
    while (!err && clv_stage_pending(r->stage) > 0)
        err = emit(r, msg);
    return err;
}

/* Ends the run's threads. The decoder is done (or failed, or was stopped)
 * before the sink is told to finish: a file is completed only when every
 * part succeeded. A thread that failed says why; a push refused because of
 * it does not. */
static int finish(run *r, int err, clv_msg *mic_note, clv_msg *msg)
{
    clv_msg dmsg = {{0}}, emsg = {{0}};
    if (err)
        clv_queue_abort(r->dec_q);
    int derr = clv_decoder_finish(r->dec, &dmsg);
    if (derr && (!err || !msg->text[0])) {
        err = derr;
        *msg = dmsg;
    }
    /* The other inputs are read no further than input 0's end; one whose
     * decoder failed before that gave the graph a false end (its last
     * frame held), so the run fails as for input 0. A stop sets no error. */
    for (int i = 0; i < r->more_count; i++) {
        clv_decoder_stop(r->more[i].dec);
        derr = clv_decoder_finish(r->more[i].dec, &dmsg);
        if (derr && (!err || !msg->text[0])) {
            err = derr;
            *msg = dmsg;
        }
    }
    if (!err && (r->submitted == 0 || r->submitted == r->context_dropped)) {
        /* Nothing to write: the output (or a file already there) is left
         * as it was rather than replaced by an empty one. */
        if (r->stopped)
            err = clv_io_fail(msg, CLV_EINVAL,
                              "stopped before the first frame; '%.900s' not written", r->o->output);
        else
            err = clv_io_fail(msg, CLV_EINVAL, "'%.900s': no video frame to write%s", r->o->input,
                              r->o->start_us ? " (is -ss past the end?)" : "");
    }
    int eerr = clv_sink_finish(r->sink, !err, NULL, mic_note, &emsg);
    if (eerr && (!err || !msg->text[0])) {
        err = eerr;
        *msg = emsg;
    }
    return err;
}

/* The summary the callback gets at the end: where the time went. */
static void report_end(run *r)
{
    clv_transcode_status *st = &r->status;
    clv_stage_times t;
    clv_stage_get_times(r->stage, &t);
    st->decode_s = clv_decoder_busy_seconds(r->dec);
    clv_decoder_damage(r->dec, &st->corrupt_packets, &st->corrupt_frames);
    st->upload_s = (double)t.upload_ns / 1e9;
    st->kernels_s = (double)t.kernels_ns / 1e9;
    st->download_s = (double)t.download_ns / 1e9;
    st->shared_staging = clv_context_shared_staging(r->ctx);
    st->encode_s = clv_sink_busy_seconds(r->sink);
    st->frames = r->picks && r->sink ? clv_sink_frames_out(r->sink)
                                     : (int64_t)(r->submitted - r->context_dropped);
    clv_device_shares_text(r->ctx, r->stage, r->shares, sizeof r->shares);
    st->device_shares = r->shares;
    report(r, CLV_TRANSCODE_END);
}

/* The end, told to the control socket's clients before it closes: eof
 * (the input's end), quit (a quit command, the cancel flag or the
 * callback) or error, with the message. */
static void tell_end(clv_ipc *ipc, int err, int stopped, const clv_msg *msg)
{
    clv_json j = {0};
    clv_json_add(&j, "\"reason\":\"%s\"", err ? "error" : stopped ? "quit" : "eof");
    if (err) {
        clv_json_add(&j, ",\"error\":");
        clv_json_string(&j, msg->text);
    }
    clv_ipc_event(ipc, "end", j.text);
    clv_json_free(&j);
}

static void close_all(run *r)
{
    clv_ipc_close(r->ipc); /* what is queued is answered; clients get what is left */
    if (r->dec_q)
        clv_queue_abort(r->dec_q);
    /* The decoders' threads stop first (they take blocks from the stage),
     * then the stage, which waits for the kernels still reading frames in
     * flight (a run that failed stops without draining it), and only then
     * do those frames go back to their decoders' pools, which free them:
     * in the other order, shared memory was freed under a running kernel. */
    if (r->dec)
        clv_decoder_stop(r->dec);
    for (int i = 0; i < r->more_count; i++)
        if (r->more[i].dec)
            clv_decoder_stop(r->more[i].dec);
    clv_sink_close(r->sink);
    clv_stage_destroy(r->stage);
    for (int i = 0; i < PTS_RING; i++)
        av_frame_free(&r->held[i]);
    av_frame_free(&r->last);
    clv_decoder_close(r->dec);
    clv_graph_destroy(r->graph);
    clv_graph_desc_destroy(r->gdesc);
    for (int i = 0; i < r->more_count; i++)
        clv_sync_input_close(&r->more[i]);
    clv_chain_destroy(r->chain);
    clv_chain_desc_destroy(r->desc);
    clv_context_destroy(r->ctx);
    clv_queue_destroy(r->dec_q);
    clv_feed_destroy(r->feed);
}

/* The caller's options over the defaults, as far as its struct reaches
 * (an older caller's is shorter): 0, or CLV_EINVAL for options not made by
 * clv_transcode_options_init or from a newer clvid. */
static int caller_options(const clv_transcode_options *given, clv_transcode_options *o,
                          clv_msg *msg)
{
    clv_transcode_options_init(o);
    if (!given->struct_size)
        return clv_io_fail(msg, CLV_EINVAL,
                           "clv_transcode_options: struct_size is 0; fill the struct with "
                           "clv_transcode_options_init() first");
    if (given->struct_size > sizeof *o)
        return clv_io_fail(msg, CLV_EINVAL,
                           "clv_transcode_options: struct_size %zu; this clvid knows %zu bytes "
                           "(built against another clvid's header?)",
                           given->struct_size, sizeof *o);
    memcpy(o, given, given->struct_size);
    return 0;
}

int clv_transcode_run(const clv_transcode_options *given, clv_transcode_callback callback,
                      void *user, const volatile sig_atomic_t *cancel, clv_msg *msg)
{
    msg->text[0] = 0;
    clv_transcode_options options;
    const clv_transcode_options *o = &options;
    run r = {.o = o, .callback = callback, .user = user, .cancel = cancel};
    int err = caller_options(given, &options, msg);
    if (!err)
        err = check_options(o, &r.desc, &r.gdesc, msg);
    if (err) {
        clv_chain_desc_destroy(r.desc);
        clv_graph_desc_destroy(r.gdesc);
        return err;
    }
    r.more_count = r.gdesc ? o->more_input_count : 0;
    if (r.gdesc && (err = clv_sync_first_driver(r.gdesc, &r.sync0, msg))) {
        clv_chain_desc_destroy(r.desc);
        clv_graph_desc_destroy(r.gdesc);
        return err;
    }
    /* The socket before anything is opened: a path refused is a usage
     * mistake, told before any work. */
    if (o->ipc && (err = clv_ipc_open(o->ipc, "transcode", CLV_IPC_RUN_VERBS, &r.ipc, msg))) {
        clv_chain_desc_destroy(r.desc);
        return err;
    }
    av_log_set_level(o->quiet ? AV_LOG_ERROR : AV_LOG_WARNING);
    if (r.gdesc)
        clv_graph_format(r.gdesc, r.chain_text, sizeof r.chain_text);
    else
        clv_chain_format(r.desc, r.chain_text, sizeof r.chain_text);
    r.entered = clv_io_seconds();
    if (!(err = open_all(&r, msg)) && !(err = open_stage(&r, msg))) {
        describe_run(&r);
        r.start = clv_io_seconds();
        err = plan_frames(&r, msg);
    }
    if (!err) {
        report(&r, CLV_TRANSCODE_START);
        err = start_threads(&r, msg);
    }
    clv_msg mic_note = {{0}};
    if (!err) {
        err = finish(&r, pump(&r, msg), &mic_note, msg);
        if (!err)
            report_end(&r);
    }
    if (!err && mic_note.text[0])
        snprintf(msg->text, sizeof msg->text, "%s", mic_note.text); /* a note, not an error */
    else if (!err && r.dropped[0])
        snprintf(msg->text, sizeof msg->text, "%.1000s", r.dropped);
    if (r.ipc)
        tell_end(r.ipc, err, r.stopped, msg);
    close_all(&r);
    return err;
}
