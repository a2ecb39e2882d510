/* encoder.c - the encoder thread: encodes the filtered video frames, copies
 * the input's audio and subtitle streams the container can hold, and muxes
 * them into the output file, or into each of several outputs (ffmpeg's tee
 * syntax: the same packets into every muxer). */
#include "audio_recode.h"
#include "io.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <math.h>

#include <libavdevice/avdevice.h>
#include <libavutil/avstring.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>

/* One muxer the packets go to: the output, or one of several (-f tee or
 * several -o: ffmpeg's tee muxer's "slaves"), each with its own muxer
 * and file, written from the same encoding. Set up and started by
 * clv_encoder_open; while the thread runs only it touches the muxer,
 * written and failed; clv_encoder_finish reads them after the join. */
typedef struct output {
    char path[1024];
    const AVOutputFormat *format;
    AVFormatContext *oc; /* its muxer; a single output's is the encoder's oc */
    clv_outfile *file;   /* or NULL (standard output, formats that write none, network
                          * URLs, HLS: its muxer writes the playlist and segments) */
    int network;         /* a URL of a network protocol (udp://, rtmp://...) */
    int hls;             /* the hls muxer */
    /* HLS: the files its muxer made that were not there before (the
     * playlist, the segments), removed if the run fails; done once the
     * run has finished it. */
    char **made;
    int made_count, made_cap, done;
    /* HLS: the first failed write or close of one of its files (the muxer
     * itself goes on past them: a full disk gave empty segments and a 0 s
     * playlist with exit 0). */
    int file_error;
    int v4l2;        /* a virtual camera (-f v4l2): raw frames into a device, video only */
    clv_rtp_ts *rtp; /* rtp://: MPEG-TS in RTP, sent by rtp_ts.c (it owns oc->pb) */
    /* Image outputs (a single output only): each picture is a file of its
     * own (pictures.c). */
    int images;
    clv_pictures pictures;
    int overwrite; /* -y: its files replace those at their paths */
    /* Of several outputs (the tee syntax): */
    AVDictionary *options;  /* the muxer's own */
    int ignore_failure;     /* onfail=ignore */
    char select[256];       /* select=, or "" */
    int *map;               /* the encoder oc's stream i is this muxer's map[i]; -1: not here */
    int64_t fault, written; /* CLVID_FAULT=outputN:K: fails after K video packets */
    int started;            /* its header is written */
    int failed;             /* dropped after a failure (onfail=ignore) */
} output;

struct clv_encoder {
    char path[1024];
    /* The output streams. With one output (no tee), its own muxer; with
     * several, as the tee muxer's, a context that is never written: its
     * streams are the ones every output copies (output.map), and a packet
     * for one goes to each output that has it (mux_write). */
    AVFormatContext *oc;
    output *outputs;
    int output_count;
    int tee;              /* the outputs are several (-f tee) */
    int network;          /* an output is a URL of a network protocol: live encoder settings */
    int hls;              /* an output is HLS: keyframes every segment */
    int v4l2;             /* the output is a virtual camera (one output: tee refuses it) */
    AVPacket *tee_packet; /* mux_write's copy of each packet for an output */
    AVCodecContext *enc;
    int video_out; /* output stream index of the video */
    int cover;     /* the video is a song's cover (an attached picture) and stays one */
    int keep_tb;   /* the video keeps the input's time base (variable frame timing) */
    /* Where the packets of each input stream go, by the stream_index they
     * carry; one more for extra_audio. Set up by clv_encoder_open, read by
     * the thread. */
    struct stream_route {
        int out;                  /* the output stream a copy goes to, or -1 */
        AVRational in_tb;         /* the time base of the packets that come in */
        clv_audio_recode *recode; /* or how they are encoded again, or NULL */
    } * routes;
    int route_count;
    AVRational in_tb; /* the input video stream's: frames come with these timestamps */
    int64_t last_pts; /* the last frame's, in the encoder's time base */
    /* A container of a constant frame rate (ffmpeg's -vsync cfr: Y4M, MXF,
     * MPEG-PS, Ogg, raw): frames go out one a tick, the last one repeated
     * over a gap and a frame dropped where two fall on one tick. next_pts:
     * the next tick (INT64_MIN before the first); prev: a copy of the last
     * frame (the staging memory of a frame is not held). */
    int cfr;
    /* -r into a container of variable timing: each frame at its own tick,
     * one that falls on a tick already taken dropped (ffmpeg's -vsync
     * vfr); and a frame's length in ticks (1 but with -r: the output's
     * rate over the frames') */
    int vfr;
    double frame_ticks;
    /* The chain's fps (ffmpeg's vf_fps), before the above: each frame's
     * time rounded to a tick of fps_tb; the frame held (fps_held, a copy:
     * the staging memory is not kept) goes out on the ticks from fps_next
     * up to the next frame's, and at the end up to the stream's end. From
     * there on the frames' time base (in_tb) is fps_tb. */
    int fps_on, fps_round, fps_eof_pass, fps_has;
    /* framestep instead: every step-th frame (step_count counts them) */
    int64_t step, step_count;
    /* clv_output_options.max_frames (0: none), and the video frames sent
     * to the encoder, read by the run's thread too (the cap reached) */
    int64_t max_out;
    atomic_llong frames_out;
    AVRational fps_tb, fps_in_tb, fps_in_rate;
    int64_t fps_in_off, fps_out_off, fps_next, fps_last;
    AVFrame *fps_held;
    int64_t next_pts;
    AVFrame *prev;
    int64_t last_before[3]; /* the last three frames' repeats of the one before */
    /* The input's HDR metadata (clv_media_desc.mastering, light_level),
     * copied: every frame sent to the encoder carries it. */
    AVMasteringDisplayMetadata mastering;
    AVContentLightMetadata light_level;
    int has_mastering, has_light_level;
    pthread_t thread;
    int started;
    clv_queue *in;
    /* The packet hook (clv_encoder_set_packet_hook), and the times of the
     * frames sent to the encoder by their pts in its time base, for their
     * packets to find; the ring outlasts any encoder's delay. Thread only. */
    clv_encoder_packet_hook hook;
    void *hook_user;
    struct sent_frame {
        int64_t pts;
        double read, sent;
    } sent[256];
    unsigned sent_count;
    /* Written by the thread, read after the join: */
    int error;
    int failed_output; /* the output whose write failed, or -1 */
    char message[1400];
    double busy;
};

static int is_rgb_fmt(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && (d->flags & AV_PIX_FMT_FLAG_RGB);
}

/* The first of `wanted` the encoder takes. */
static enum AVPixelFormat pick(const AVCodec *c, const enum AVPixelFormat *wanted)
{
    if (!c->pix_fmts)
        return wanted[0];
    for (; *wanted != AV_PIX_FMT_NONE; wanted++)
        for (const enum AVPixelFormat *p = c->pix_fmts; *p != AV_PIX_FMT_NONE; p++)
            if (*p == *wanted)
                return *wanted;
    return AV_PIX_FMT_NONE;
}

static int takes(const AVCodec *c, enum AVPixelFormat f)
{
    for (const enum AVPixelFormat *p = c->pix_fmts; p && *p != AV_PIX_FMT_NONE; p++)
        if (*p == f)
            return 1;
    return !c->pix_fmts;
}

/* The first of `wanted` the encoder takes that holds `bits`, else the
 * deepest it takes (the first of those), else NONE. */
static enum AVPixelFormat pick_bits(const AVCodec *c, const enum AVPixelFormat *wanted, int bits)
{
    enum AVPixelFormat deepest = AV_PIX_FMT_NONE;
    for (; *wanted != AV_PIX_FMT_NONE; wanted++) {
        if (!takes(c, *wanted))
            continue;
        if (clv_av_pixfmt_bits(*wanted) >= bits)
            return *wanted;
        if (deepest == AV_PIX_FMT_NONE || clv_av_pixfmt_bits(*wanted) > clv_av_pixfmt_bits(deepest))
            deepest = *wanted;
    }
    return deepest;
}

/* For an input of more than 8 bits, the encoder's format of more than 8
 * bits nearest it, or NONE when it takes 8 bits only: the input's own
 * (ffv1, ProRes from ProRes, 16-bit PNG and TIFF); else, as choose_pix_fmt
 * does at 8 bits, RGB with alpha for alpha, packed RGB for RGB (PNG
 * rgb48be, TIFF rgb48le, ffv1 gbrp16le), Y'CbCr of the input's chroma
 * (4:2:0 for RGB and gray: libx265 main10), then RGB for Y'CbCr. Gray
 * formats are left out: a filter may add colour. */
static enum AVPixelFormat choose_deep_pix_fmt(const AVCodec *c, const clv_media_desc *in)
{
    static const enum AVPixelFormat alpha_deep[] = {
        AV_PIX_FMT_RGBA64LE,     AV_PIX_FMT_RGBA64BE,     AV_PIX_FMT_BGRA64LE,
        AV_PIX_FMT_BGRA64BE,     AV_PIX_FMT_GBRAP16LE,    AV_PIX_FMT_YUVA444P16LE,
        AV_PIX_FMT_YUVA444P10LE, AV_PIX_FMT_YUVA420P16LE, AV_PIX_FMT_YUVA420P10LE,
        AV_PIX_FMT_NONE};
    static const enum AVPixelFormat rgb_deep[] = {AV_PIX_FMT_RGB48LE,  AV_PIX_FMT_RGB48BE,
                                                  AV_PIX_FMT_BGR48LE,  AV_PIX_FMT_BGR48BE,
                                                  AV_PIX_FMT_GBRP16LE, AV_PIX_FMT_NONE};
    static const enum AVPixelFormat yuv420_deep[] = {AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_P010LE,
                                                     AV_PIX_FMT_YUV420P12LE, AV_PIX_FMT_YUV420P16LE,
                                                     AV_PIX_FMT_YUV422P10LE, AV_PIX_FMT_YUV422P12LE,
                                                     AV_PIX_FMT_YUV444P10LE, AV_PIX_FMT_YUV444P12LE,
                                                     AV_PIX_FMT_YUV444P16LE, AV_PIX_FMT_NONE};
    static const enum AVPixelFormat yuv422_deep[] = {
        AV_PIX_FMT_YUV422P10LE, AV_PIX_FMT_YUV422P12LE, AV_PIX_FMT_YUV422P16LE,
        AV_PIX_FMT_YUV444P10LE, AV_PIX_FMT_YUV444P12LE, AV_PIX_FMT_YUV444P16LE,
        AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_YUV420P12LE, AV_PIX_FMT_NONE};
    static const enum AVPixelFormat yuv444_deep[] = {AV_PIX_FMT_YUV444P10LE, AV_PIX_FMT_YUV444P12LE,
                                                     AV_PIX_FMT_YUV444P16LE, AV_PIX_FMT_YUV422P10LE,
                                                     AV_PIX_FMT_YUV422P12LE, AV_PIX_FMT_YUV420P10LE,
                                                     AV_PIX_FMT_YUV420P12LE, AV_PIX_FMT_NONE};
    /* Hardware decoding gives nv12 or p010 for the codec's yuv420p or
     * yuv420p10le: the output is what software decoding would give. */
    enum AVPixelFormat own = in->hwaccel ? in->coded_pix_fmt : in->pix_fmt;
    int bits = clv_av_pixfmt_bits(own);
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(own);
    int gray = d && d->nb_components <= 2 && !(d->flags & AV_PIX_FMT_FLAG_RGB);
    if (!d || bits <= 8)
        return AV_PIX_FMT_NONE;
    if (!gray && takes(c, own))
        return own;
    enum AVPixelFormat f = AV_PIX_FMT_NONE;
    const enum AVPixelFormat *yuv = in->rgb || in->alpha || gray ? yuv420_deep
                                    : d->log2_chroma_w == 0      ? yuv444_deep
                                    : d->log2_chroma_h == 0      ? yuv422_deep
                                                                 : yuv420_deep;
    if (in->alpha)
        f = pick_bits(c, alpha_deep, bits);
    if (f == AV_PIX_FMT_NONE && (in->rgb || in->alpha))
        f = pick_bits(c, rgb_deep, bits);
    if (f == AV_PIX_FMT_NONE)
        f = pick_bits(c, yuv, bits);
    if (f == AV_PIX_FMT_NONE)
        f = pick_bits(c, rgb_deep, bits);
    return f;
}

static enum AVPixelFormat choose_pix_fmt(const AVCodec *c, int rgb_source, int has_alpha)
{
    static const enum AVPixelFormat rgba_first[] = {AV_PIX_FMT_RGBA, AV_PIX_FMT_BGRA,
                                                    AV_PIX_FMT_NONE};
    static const enum AVPixelFormat rgb_first[] = {
        AV_PIX_FMT_RGB24, AV_PIX_FMT_BGR0, AV_PIX_FMT_BGR24, AV_PIX_FMT_RGB0,
        AV_PIX_FMT_RGBA,  AV_PIX_FMT_BGRA, AV_PIX_FMT_NONE};
    static const enum AVPixelFormat yuv_first[] = {AV_PIX_FMT_YUV420P, AV_PIX_FMT_NV12,
                                                   AV_PIX_FMT_NONE};
    static const enum AVPixelFormat jpeg_first[] = {AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_NONE};
    static const enum AVPixelFormat yuva_first[] = {AV_PIX_FMT_YUVA420P, AV_PIX_FMT_NONE};
    enum AVPixelFormat f = AV_PIX_FMT_NONE;
    if (c->id == AV_CODEC_ID_MJPEG) /* full-range JPEG, as ffmpeg writes .jpg */
        f = pick(c, jpeg_first);
    if (f == AV_PIX_FMT_NONE && has_alpha) /* alpha kept wherever the encoder can */
        f = pick(c, rgba_first);
    if (f == AV_PIX_FMT_NONE && has_alpha)
        f = pick(c, yuva_first);
    if (f == AV_PIX_FMT_NONE && rgb_source)
        f = pick(c, rgb_first);
    if (f == AV_PIX_FMT_NONE)
        f = pick(c, yuv_first);
    if (f == AV_PIX_FMT_NONE)
        f = pick(c, rgb_first);
    if (f == AV_PIX_FMT_NONE && c->pix_fmts)
        f = c->pix_fmts[0];
    return f;
}

/* The video encoder into *out: -c:v's, else the one ffmpeg would pick for
 * the container (the first output's, at path), or H.264 for a network
 * stream (stream). Returns 0, or with msg CLV_EOPTION (-c:v names no video
 * encoder) or CLV_EIO (the container has no encoder here). */
static int choose_codec(const clv_output_options *o, const char *path, int stream,
                        const AVOutputFormat *ofmt, const AVCodec **out, clv_msg *msg)
{
    if (o->codec) {
        *out = avcodec_find_encoder_by_name(o->codec);
        if (!*out || (*out)->type != AVMEDIA_TYPE_VIDEO)
            return clv_io_fail(msg, CLV_EOPTION,
                               "-c:v %s: no such video encoder in this FFmpeg (try libx264, "
                               "libx265, ffv1, png, mjpeg, libvpx-vp9; `ffmpeg -encoders` lists "
                               "them)",
                               o->codec);
        return 0;
    }
    const char *name = ofmt->name;
    /* A stream (FLV's default is Sorenson H.263, MPEG-TS's MPEG-2) is sent
     * as H.264, which players and servers expect: stream says so when every
     * output's container takes it. */
    if (stream || strstr(name, "mp4") || strstr(name, "matroska") || strstr(name, "mov")) {
        if ((*out = avcodec_find_encoder_by_name("libx264")))
            return 0;
    }
    if (!strcmp(name, "image2") || !strcmp(name, "image2pipe") || !strcmp(name, "apng")) {
        /* The image encoder the extension names (.jpg mjpeg, .bmp, .tiff,
         * .webp, .apng), as ffmpeg picks it; PNG for the rest. */
        enum AVCodecID id = av_guess_codec(ofmt, NULL, path, NULL, AVMEDIA_TYPE_VIDEO);
        *out = id != AV_CODEC_ID_NONE ? avcodec_find_encoder(id) : NULL;
        if (!*out)
            *out = avcodec_find_encoder(AV_CODEC_ID_PNG);
        return 0;
    }
    if (!(*out = avcodec_find_encoder(ofmt->video_codec)))
        return clv_io_fail(
            msg, CLV_EIO,
            "'%s': the %s container has no default video encoder here; name one with -c:v", path,
            ofmt->name);
    return 0;
}

static enum AVColorSpace av_matrix(clv_matrix m)
{
    return m == CLV_MATRIX_BT709    ? AVCOL_SPC_BT709
           : m == CLV_MATRIX_BT2020 ? AVCOL_SPC_BT2020_NCL
                                    : AVCOL_SPC_SMPTE170M;
}

/* 1 when the muxer takes a stream of `par` beside the video stream `video`:
 * its header is written into memory as a trial. This catches what
 * avformat_query_codec does not say (FLAC in MP4 is "experimental", Opus in
 * MOV is refused, MXF takes 48 kHz sound only). */
static int muxer_takes(const AVOutputFormat *ofmt, const AVStream *video,
                       const AVCodecParameters *par, AVRational tb)
{
    /* HLS writes MPEG-TS segments: the trial asks their muxer (the hls
     * muxer's own header, never finished here, leaks its segment's buffer
     * in FFmpeg 5.1). */
    if (!strcmp(ofmt->name, "hls")) {
        const AVOutputFormat *ts = av_guess_format("mpegts", NULL, NULL);
        ofmt = ts ? ts : ofmt;
    }
    /* RTSP sends each stream as RTP of its own: the trial asks the rtp
     * muxer about the sound alone (the rtsp muxer's header would connect,
     * and fail: the sound was left out of every RTSP stream). */
    int alone = !strcmp(ofmt->name, "rtsp");
    if (alone) {
        const AVOutputFormat *rtp = av_guess_format("rtp", NULL, NULL);
        if (!rtp)
            return 0;
        ofmt = rtp;
    }
    if (avformat_query_codec(ofmt, par->codec_id, FF_COMPLIANCE_NORMAL) == 0)
        return 0;
    AVFormatContext *oc = NULL;
    if (avformat_alloc_output_context2(&oc, ofmt, NULL, NULL) < 0 || !oc)
        return 0;
    AVStream *vs = alone ? NULL : avformat_new_stream(oc, NULL);
    AVStream *as = avformat_new_stream(oc, NULL);
    int ok = 0;
    /* RTP's packets are a UDP datagram's size (its muxer asks the output
     * for the size, which memory does not have). */
    if (alone)
        oc->packet_size = 1472;
    if ((vs || alone) && as &&
        (!vs || avcodec_parameters_copy(vs->codecpar, video->codecpar) >= 0) &&
        avcodec_parameters_copy(as->codecpar, par) >= 0 &&
        ((ofmt->flags & AVFMT_NOFILE) || avio_open_dyn_buf(&oc->pb) >= 0)) {
        if (vs) {
            vs->time_base = video->time_base;
            vs->disposition = video->disposition; /* a cover is no video track */
        }
        as->time_base = tb;
        as->codecpar->codec_tag = 0;
        int level = av_log_get_level();
        av_log_set_level(AV_LOG_QUIET); /* a refusal here is an answer, not an error */
        ok = avformat_write_header(oc, NULL) >= 0;
        if (ok && alone)
            av_write_trailer(oc); /* the rtp muxer frees its packet buffer there */
        av_log_set_level(level);
        if (oc->pb) {
            uint8_t *buf = NULL;
            avio_close_dyn_buf(oc->pb, &buf);
            av_free(buf);
            oc->pb = NULL;
        }
    }
    avformat_free_context(oc);
    return ok;
}

/* Vorbis in MP4/MOV is written by the muxer, but most players play no
 * sound from it (ffmpeg warns the same): such a copy is re-encoded. */
static int poor_fit(const AVOutputFormat *ofmt, enum AVCodecID id)
{
    return id == AV_CODEC_ID_VORBIS && (strstr(ofmt->name, "mp4") || strstr(ofmt->name, "mov"));
}

/* ---- Several outputs ------------------------------------------------------ */

/* The first output whose muxer does not take a stream of `par` beside the
 * video (muxer_takes), or NULL when every one does: a sound stream is
 * copied, or encoded once, for all the outputs alike. */
static const output *refuser(const clv_encoder *e, const AVCodecParameters *par, AVRational tb)
{
    const AVStream *video = e->oc->streams[e->video_out];
    for (int k = 0; k < e->output_count; k++)
        if (!muxer_takes(e->outputs[k].format, video, par, tb))
            return &e->outputs[k];
    return NULL;
}

/* 1 when any output's muxer has flag (AVFMT_*), or when every one has it. */
static int any_flag(const clv_encoder *e, int flag)
{
    for (int k = 0; k < e->output_count; k++)
        if (e->outputs[k].format->flags & flag)
            return 1;
    return 0;
}

static int every_flag(const clv_encoder *e, int flag)
{
    for (int k = 0; k < e->output_count; k++)
        if (!(e->outputs[k].format->flags & flag))
            return 0;
    return 1;
}

/* The outputs not dropped (those still to start count). */
static int outputs_alive(const clv_encoder *e)
{
    int n = 0;
    for (int k = 0; k < e->output_count; k++)
        n += !e->outputs[k].failed;
    return n;
}

/* Closes what output m writes into (its muxer's pb): an rtp:// stream
 * sends what rtp_ts.c holds first. 0 or the AVERROR of a failed close. */
static int output_close_io(output *m)
{
    if (m->rtp) {
        int r = clv_rtp_ts_close(&m->rtp);
        m->oc->pb = NULL; /* rtp_ts.c's, freed with it */
        return r;
    }
    if (m->oc && m->oc->pb && !(m->format->flags & AVFMT_NOFILE))
        return avio_closep(&m->oc->pb);
    return 0;
}

/* Closes what output m writes into, without finishing it: a stream's
 * connection goes; a file's partial is removed when the encoder closes. */
static void output_drop(output *m)
{
    output_close_io(m);
}

/* Output m failed with AVERROR err (on opening, a write or the trailer).
 * With onfail=ignore and another output still going, it is dropped with a
 * warning and 0 returned; else err, and the run ends (e->failed_output
 * says which). */
static int output_failed(clv_encoder *e, output *m, int err, const char *why)
{
    char text[128];
    m->failed = 1;
    if (!m->ignore_failure || !outputs_alive(e)) {
        e->failed_output = (int)(m - e->outputs);
        return err;
    }
    output_drop(m);
    /* Said even with -q (FFmpeg's errors only): a stream is lost. */
    av_log(NULL, AV_LOG_ERROR,
           "clvid: %s; it is left out and the other outputs go on (onfail=ignore)\n",
           why ? why : clv_av_err(err, text, sizeof text));
    return 0;
}

/* Writes pkt (a packet of e->oc's stream pkt->stream_index, in its time
 * base) into the output's muxer, or into each of several outputs that has
 * the stream. The packet's contents are taken (unreferenced), as
 * av_interleaved_write_frame does. Returns 0 or an AVERROR; an output
 * that fails with onfail=ignore is dropped and the others go on. On the
 * encoder's thread (the audio recodes' packets too). */
static int mux_write(void *user, AVPacket *pkt)
{
    clv_encoder *e = user;
    if (!e->tee) {
        int w = av_interleaved_write_frame(e->oc, pkt);
        return w >= 0 && e->outputs[0].file_error ? e->outputs[0].file_error : w;
    }
    int s = pkt->stream_index, r = 0;
    char why[1300], text[128];
    for (int k = 0; r >= 0 && k < e->output_count; k++) {
        output *m = &e->outputs[k];
        int to = m->started && !m->failed ? m->map[s] : -1;
        if (to < 0)
            continue;
        AVPacket *copy = e->tee_packet;
        if ((r = av_packet_ref(copy, pkt)) < 0)
            break;
        copy->stream_index = to;
        av_packet_rescale_ts(copy, e->oc->streams[s]->time_base, m->oc->streams[to]->time_base);
        int w;
        if (s == e->video_out && m->written++ == m->fault) {
            av_packet_unref(copy);
            w = AVERROR(EIO); /* CLVID_FAULT=outputN:K */
        } else {
            w = av_interleaved_write_frame(m->oc, copy);
            if (w >= 0 && m->file_error)
                w = m->file_error;
        }
        if (w < 0) {
            snprintf(why, sizeof why, "writing '%.1000s' failed: %s", m->path,
                     clv_av_err(w, text, sizeof text));
            r = output_failed(e, m, w, why);
        }
    }
    av_packet_unref(pkt);
    return r;
}

/* An encoder for `id` that is not experimental (FFmpeg's own Opus and
 * Vorbis encoders are; libopus and libvorbis are not), or NULL. */
static const AVCodec *audio_encoder(enum AVCodecID id)
{
    void *it = NULL;
    const AVCodec *c;
    while ((c = av_codec_iterate(&it)))
        if (av_codec_is_encoder(c) && c->id == id && !(c->capabilities & AV_CODEC_CAP_EXPERIMENTAL))
            return c;
    return NULL;
}

/* Encodes stream s (packets marked i) with ec when the muxer takes the
 * result, trying 48 kHz too (MXF), and adds its output stream; 1 when set
 * up, 0 when the container refuses it, -1 on an error (msg). */
static int recode_try(clv_encoder *e, const clv_stream_desc *s, int i, const AVCodec *ec,
                      const char *what, clv_msg *msg)
{
    AVCodecParameters *par = avcodec_parameters_alloc();
    int result = 0;
    for (int attempt = 0; par && attempt < 2 && !result; attempt++) {
        clv_audio_recode *a = NULL;
        if (clv_audio_recode_open(any_flag(e, AVFMT_GLOBALHEADER), e->path, s, ec, what,
                                  attempt ? 48000 : 0, &a, msg)) {
            result = -1;
            break;
        }
        const AVCodecContext *enc = clv_audio_recode_encoder(a);
        if (avcodec_parameters_from_context(par, enc) >= 0 && !refuser(e, par, enc->time_base)) {
            AVStream *os = avformat_new_stream(e->oc, NULL);
            if (!os || avcodec_parameters_copy(os->codecpar, par) < 0) {
                clv_audio_recode_close(a);
                result = clv_io_fail(msg, -1, "out of memory");
                break;
            }
            os->time_base = enc->time_base;
            os->disposition = s->disposition;
            av_dict_copy(&os->metadata, s->metadata, 0);
            clv_audio_recode_set_output(a, os, mux_write, e);
            e->routes[i].recode = a;
            result = 1;
        } else {
            int rate = enc->sample_rate;
            clv_audio_recode_close(a);
            if (rate == 48000)
                break;
        }
    }
    avcodec_parameters_free(&par);
    return result;
}

/* Adds an output stream that copies input stream s. */
static int copy_stream(clv_encoder *e, const clv_stream_desc *s)
{
    AVStream *os = avformat_new_stream(e->oc, NULL);
    if (!os || avcodec_parameters_copy(os->codecpar, s->par) < 0)
        return -1;
    os->codecpar->codec_tag = 0;
    os->time_base = s->time_base;
    os->disposition = s->disposition;
    av_dict_copy(&os->metadata, s->metadata, 0);
    e->routes[s->index].out = os->index;
    e->routes[s->index].in_tb = s->time_base;
    return 0;
}

/* The sound of input stream s, as ffmpeg would: copied when the container
 * takes it (and players play it), else encoded to the container's own
 * sound codec (AAC for MP4/MOV, Opus for WebM, ...), AAC failing that;
 * -c:a copy or -c:a NAME decide instead. A stream that can be neither is
 * left out with a warning (automatic mode) or is an error (asked for).
 * Several outputs get the same sound: copied when every container takes
 * it, else encoded once, to the first output's own codec or AAC, which
 * every one must take. Returns 0, or with msg CLV_EOPTION (-c:a names no
 * audio encoder) or CLV_EIO. */
static int map_audio(clv_encoder *e, const clv_output_options *o, const clv_stream_desc *s,
                     clv_msg *msg)
{
    const AVOutputFormat *ofmt = e->oc->oformat;
    const char *name = avcodec_get_name(s->par->codec_id);
    int i = s->index;
    char what[48];
    snprintf(what, sizeof what, "audio stream #%d", i);
    const output *no = refuser(e, s->par, s->time_base);
    int takes = !no;
    /* The output that decides, for messages: the one that refuses. */
    const char *path = no && e->tee ? no->path : e->path;
    const char *container = no ? no->format->name : ofmt->name;
    int poor = 0;
    for (int k = 0; k < e->output_count; k++)
        poor |= poor_fit(e->outputs[k].format, s->par->codec_id);
    if (o->audio_codec && !strcmp(o->audio_codec, "copy")) {
        if (!takes)
            return clv_io_fail(msg, CLV_EIO,
                               "'%.800s': -c:a copy: the %s container cannot hold %s sound (audio "
                               "stream #%d); leave -c:a out to have it encoded",
                               path, container, name, i);
        return copy_stream(e, s) < 0 ? clv_io_fail(msg, CLV_EIO, "out of memory") : 0;
    }
    const AVCodec *ec = NULL;
    if (o->audio_codec) {
        ec = avcodec_find_encoder_by_name(o->audio_codec);
        if (!ec || ec->type != AVMEDIA_TYPE_AUDIO)
            return clv_io_fail(
                msg, CLV_EOPTION,
                "-c:a %.100s: no such audio encoder in this FFmpeg (try aac, libopus, "
                "libmp3lame, flac, pcm_s16le, or copy)",
                o->audio_codec);
    } else if (takes && !poor) {
        return copy_stream(e, s) < 0 ? clv_io_fail(msg, CLV_EIO, "out of memory") : 0;
    } else {
        ec = audio_encoder(ofmt->audio_codec);
        if (!ec)
            ec = audio_encoder(AV_CODEC_ID_AAC);
    }
    int r = ec ? recode_try(e, s, i, ec, what, msg) : 0;
    if (r == 0 && e->tee && !o->audio_codec && ec && ec->id != AV_CODEC_ID_AAC &&
        (ec = audio_encoder(AV_CODEC_ID_AAC))) /* the first output's own codec, not another's */
        r = recode_try(e, s, i, ec, what, msg);
    if (r < 0)
        return CLV_EIO;
    if (r == 0) {
        if (o->audio_codec)
            return clv_io_fail(msg, CLV_EIO,
                               "'%.800s': -c:a %s: the %s container cannot hold its sound", path,
                               o->audio_codec, container);
        av_log(NULL, AV_LOG_WARNING,
               "'%s': %s (%s) can be neither copied into %s nor encoded for it; it is left out\n",
               path, what, name, container);
        return 0;
    }
    if (!o->audio_codec)
        av_log(NULL, AV_LOG_WARNING, "'%s': %s (%s) %s %s; encoded to %s\n", path, what, name,
               takes ? "plays poorly from" : "cannot be copied into", container, ec->name);
    return 0;
}

/* ---- Opening, step by step ------------------------------------------------ */

static int out_of_memory(const clv_output_options *o, clv_msg *msg)
{
    return clv_io_fail(msg, CLV_EIO, "out of memory setting up '%s'", o->path);
}

/* The muxer of the output at path: format's (-f, f=), else the protocol's
 * or the one the extension names. */
static int choose_muxer(const char *path, const char *format, const AVOutputFormat **out,
                        clv_msg *msg)
{
    int to_stdout = !strcmp(path, "-");
    int network = clv_output_is_network(path);
    const char *by_scheme = network ? clv_output_network_format(path) : NULL;
    if (network && !format && !by_scheme)
        return clv_io_fail(msg, CLV_EIO,
                           "'%s': cannot tell the stream's format from its protocol (udp://, "
                           "srt://, rtp:// and tcp:// send MPEG-TS, rtmp:// FLV, rtsp:// RTSP); "
                           "name it with -f",
                           path);
    const char *name = format ? format : by_scheme;
    if (format)
        avdevice_register_all(); /* -f v4l2: libavdevice's output */
    if (!format && by_scheme && !strcmp(by_scheme, "rtp_mpegts"))
        name = "mpegts"; /* put in RTP by rtp_ts.c (start_output) */
    *out = name ? av_guess_format(name, NULL, NULL) : av_guess_format(NULL, path, NULL);
    if (!*out && format)
        return clv_io_fail(msg, CLV_EOPTION,
                           "-f %.100s: no such output format in this FFmpeg (matroska, nut, mp4, "
                           "webm, mpegts, image2pipe, ...; `ffmpeg -muxers` lists them)",
                           format);
    if (!*out)
        return clv_io_fail(msg, CLV_EIO,
                           to_stdout ? "'-' (standard output) needs the format: -f matroska, -f "
                                       "nut, -f mpegts, ..."
                                     : "'%s': cannot tell the output format from its extension "
                                       "(use .mp4, .mkv, .mov, .webm, .avi, .png, .nut, ...; or "
                                       "name it with -f)",
                           path);
    return 0;
}

/* Lists path in m's made files if nothing is there yet. */
static int note_made(output *m, const char *path, size_t len)
{
    char name[1024];
    struct stat st;
    snprintf(name, sizeof name, "%.*s", (int)len, path);
    if (!stat(name, &st) || errno != ENOENT)
        return 0;
    if (m->made_count == m->made_cap) {
        int cap = m->made_cap ? 2 * m->made_cap : 16;
        char **more = realloc(m->made, (size_t)cap * sizeof *more);
        if (!more)
            return AVERROR(ENOMEM);
        m->made = more;
        m->made_cap = cap;
    }
    if (!(m->made[m->made_count] = strdup(name)))
        return AVERROR(ENOMEM);
    m->made_count++;
    return 0;
}

/* The hls muxer's files (its io_open): each file it makes for writing that
 * was not there before is listed, so that a failed run removes what it
 * made (a playlist without its end, segments) and nothing else. A live
 * playlist is written to NAME.tmp and renamed: NAME is listed with it. */
static int open_hls_file(AVFormatContext *s, AVIOContext **pb, const char *url, int flags,
                         AVDictionary **options)
{
    output *m = s->opaque;
    const char *path = strncmp(url, "file:", 5) ? url : url + 5;
    size_t len = strlen(path);
    int r = 0;
    if ((flags & AVIO_FLAG_WRITE) && !strstr(url, "://")) {
        r = note_made(m, path, len);
        if (!r && len > 4 && !strcmp(path + len - 4, ".tmp"))
            r = note_made(m, path, len - 4);
    }
    return r < 0 ? r : avio_open2(pb, url, flags, &s->interrupt_callback, options);
}

/* The hls muxer's files closed (its io_close2): a write that failed in
 * one of them, or its close, is kept for the run to fail on. */
static int close_hls_file(AVFormatContext *s, AVIOContext *pb)
{
    output *m = s->opaque;
    if (!pb)
        return 0;
    avio_flush(pb);
    int r = pb->error;
    int c = avio_close(pb);
    if (r >= 0)
        r = c;
    if (r < 0 && !m->file_error)
        m->file_error = r;
    return r;
}

/* Output m's muxer context and where it writes: a partial of the output
 * (clv_outfile), standard output, or nothing (formats that write none);
 * an image output opens a file of its own for each picture (pictures.c). */
static int open_output(output *m, clv_msg *msg)
{
    int to_stdout = !strcmp(m->path, "-");
    /* A virtual camera: the device is asked what it is before its muxer
     * opens it (the muxer writes in place; nothing is created or removed). */
    m->v4l2 = av_match_name("v4l2", m->format->name); /* "video4linux2,v4l2" */
    int err = m->v4l2 ? clv_output_v4l2_check(m->path, msg) : 0;
    if (err)
        return err;
    if (avformat_alloc_output_context2(&m->oc, m->format, NULL, m->path) < 0 || !m->oc)
        return clv_io_fail(msg, CLV_EIO, "'%s': cannot set up the %s muxer", m->path,
                           m->format->name);
    m->oc->max_delay = 700000; /* ffmpeg's -muxdelay 0.7: MPEG-PS needs the room */
    /* A network URL is opened as it is (avio, or the rtsp muxer itself). */
    m->network = clv_output_is_network(m->path);
    m->hls = !strcmp(m->format->name, "hls");
    if (m->hls) {
        m->oc->opaque = m;
        m->oc->io_open = open_hls_file;
        m->oc->io_close2 = close_hls_file;
    }
    if (!(m->format->flags & AVFMT_NOFILE) && !to_stdout && !m->network &&
        clv_outfile_open(m->path, NULL, m->overwrite, &m->file, msg))
        return CLV_EIO;
    const char *write_path = to_stdout ? "pipe:1"
                             : m->file ? clv_outfile_write_path(m->file)
                                       : m->path;
    av_freep(&m->oc->url);
    if (!(m->oc->url = av_strdup(write_path)))
        return clv_io_fail(msg, CLV_EIO, "out of memory setting up '%s'", m->path);
    m->images = !strcmp(m->format->name, "image2");
    if (m->images)
        clv_pictures_attach(&m->pictures, m->oc, m->path, m->overwrite);
    return 0;
}

/* The outputs: -o's, or the several of the tee syntax (clv_tee_parse),
 * each with its muxer and its file opened (a partial). One output's muxer
 * is the encoder's oc; several share a context that holds the streams
 * (as the tee muxer does), of the first one's format, never written. */
static int open_outputs(clv_encoder *e, const clv_output_options *o, clv_msg *msg)
{
    clv_tee_output *list = NULL;
    int count = 1, err = 0;
    e->tee = clv_output_is_tee(o->format);
    e->failed_output = -1;
    if (e->tee && (err = clv_tee_parse(o->path, &list, &count, msg)))
        return err;
    if (!(e->outputs = calloc((size_t)count, sizeof *e->outputs))) {
        clv_tee_free(list, count);
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    }
    e->output_count = count;
    for (int k = 0; k < count && !err; k++) {
        output *m = &e->outputs[k];
        const char *format = o->format;
        m->fault = -1;
        if (e->tee) {
            char where[32];
            snprintf(where, sizeof where, "output%d", k + 1);
            m->fault = clv_fault_after(where);
            m->ignore_failure = list[k].ignore_failure;
            snprintf(m->select, sizeof m->select, "%s", list[k].select);
            m->options = list[k].options;
            list[k].options = NULL;
            format = list[k].format[0] ? list[k].format : NULL;
        }
        snprintf(m->path, sizeof m->path, "%s", e->tee ? list[k].path : o->path);
        m->overwrite = o->overwrite;
        if (!(err = choose_muxer(m->path, format, &m->format, msg)))
            err = open_output(m, msg);
        e->network |= m->network;
        e->hls |= m->hls;
        e->v4l2 |= m->v4l2;
    }
    clv_tee_free(list, count);
    if (err)
        return err;
    if (!e->tee) {
        e->oc = e->outputs[0].oc;
        return 0;
    }
    if (avformat_alloc_output_context2(&e->oc, e->outputs[0].format, NULL, NULL) < 0 || !e->oc ||
        !(e->tee_packet = av_packet_alloc()))
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    return 0;
}

/* The video encoder. A song's cover (an attached picture) stays a cover:
 * the filtered picture in the picture's own codec, marked as the attached
 * picture (MP4/M4A covr, MP3 APIC, MKV attachment), not a one-frame video.
 * An image output gets the picture itself. Otherwise -c:v's or the
 * container's default, which the container must take. */
static int choose_video_codec(clv_encoder *e, const clv_output_options *o, const clv_media_desc *in,
                              const AVCodec **codec, clv_msg *msg)
{
    const AVOutputFormat *ofmt = e->oc->oformat;
    int image_out = !strcmp(ofmt->name, "image2") || !strcmp(ofmt->name, "image2pipe");
    e->cover = in->cover && !image_out;
    int code = 0, stream = e->network;
    for (int k = 0; k < e->output_count; k++)
        stream &=
            avformat_query_codec(e->outputs[k].format, AV_CODEC_ID_H264, FF_COMPLIANCE_NORMAL) != 0;
    *codec = NULL;
    if (e->cover && !o->codec)
        *codec = avcodec_find_encoder(in->codec_id == AV_CODEC_ID_PNG ? AV_CODEC_ID_PNG
                                                                      : AV_CODEC_ID_MJPEG);
    else if ((code = choose_codec(o, e->outputs[0].path, stream, ofmt, codec, msg)))
        return code;
    if (!*codec)
        return clv_io_fail(msg, CLV_EIO,
                           "'%s': no video encoder for the %s container in this FFmpeg; name one "
                           "with -c:v",
                           e->outputs[0].path, ofmt->name);
    /* Several outputs are one encoding: each must hold it. Where one
     * cannot, the run is refused rather than encoding twice (-c:v picks a
     * codec they all take; else that output needs a run of its own). */
    for (int k = 0; !e->cover && k < e->output_count; k++) {
        const output *m = &e->outputs[k];
        /* A muxer's table may leave out what it still writes (Matroska takes
         * any video through VFW, as png; ffmpeg writes ffv1 into mov):
         * without a tee, the header's write says whether it can. */
        if (!e->tee || avformat_query_codec(m->format, (*codec)->id, FF_COMPLIANCE_NORMAL) != 0)
            continue;
        if (!e->tee)
            return clv_io_fail(msg, CLV_EIO, "'%s': the %s container cannot hold %s video", m->path,
                               m->format->name, (*codec)->name);
        return clv_io_fail(msg, CLV_EIO,
                           "'%.600s': the %s container cannot hold %s video, which the outputs "
                           "share (one encoding, %s'%.200s'): give -c:v a codec every output "
                           "takes, or write '%.200s' in a run of its own",
                           m->path, m->format->name, (*codec)->name,
                           o->codec ? "-c:v " : "chosen for the first output ",
                           o->codec ? o->codec : e->outputs[0].path, m->path);
    }
    return 0;
}

/* 1 when the encoder takes frames of f. */
static int codec_takes(const AVCodec *codec, enum AVPixelFormat f)
{
    int ok = f != AV_PIX_FMT_NONE && !codec->pix_fmts;
    for (const enum AVPixelFormat *p = codec->pix_fmts; p && *p != AV_PIX_FMT_NONE; p++)
        ok |= *p == f;
    return ok;
}

/* The chain's format=A|B|...: the first the encoder takes (*name), or
 * where it takes none, as ffmpeg converts then, the one it takes that
 * loses least of the first (*name NULL, *pf that one); with -pix_fmt,
 * which must be one of them, that one. */
static int chain_pix_fmt(const clv_output_options *o, const AVCodec *codec, const char **name,
                         enum AVPixelFormat *pf, clv_msg *msg)
{
    const char *list = o->chain_pix_fmts;
    enum AVPixelFormat first = AV_PIX_FMT_NONE, taken = AV_PIX_FMT_NONE;
    int given = 0;
    for (const char *s = list; *s;) {
        size_t n = strcspn(s, "|");
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)n, s);
        enum AVPixelFormat f = av_get_pix_fmt(word);
        if (f == AV_PIX_FMT_NONE || n >= sizeof word)
            return clv_io_fail(msg, CLV_EOPTION,
                               "filter 'format': '%s' is no pixel format FFmpeg knows (pix_fmts "
                               "'%s')",
                               word, list);
        given |= o->pix_fmt && f == av_get_pix_fmt(o->pix_fmt);
        if (first == AV_PIX_FMT_NONE)
            first = f;
        if (taken == AV_PIX_FMT_NONE && codec_takes(codec, f))
            taken = f;
        s += n + (s[n] == '|');
    }
    *name = o->pix_fmt;
    *pf = AV_PIX_FMT_NONE;
    if (o->pix_fmt && !given)
        return clv_io_fail(msg, CLV_EOPTION,
                           "-pix_fmt %s: the chain ends in format=%s, which does not name it "
                           "(give one of them, or leave one out)",
                           o->pix_fmt, list);
    if (o->pix_fmt)
        return 0;
    if (taken != AV_PIX_FMT_NONE) {
        *name = av_get_pix_fmt_name(taken);
        return 0;
    }
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(first);
    int loss = 0;
    *pf = codec->pix_fmts
              ? avcodec_find_best_pix_fmt_of_list(codec->pix_fmts, first,
                                                  d && (d->flags & AV_PIX_FMT_FLAG_ALPHA), &loss)
              : first;
    if (*pf == AV_PIX_FMT_NONE)
        return clv_io_fail(msg, CLV_EIO, "the chain ends in format=%s: %s takes no format", list,
                           codec->name);
    return 0;
}

/* The frames' pixel format: -pix_fmt's, which the encoder must take, else
 * the chain's format (chain_pix_fmt), else the best the encoder takes for
 * this input (choose_deep_pix_fmt for an input of more than 8 bits, else
 * or failing that choose_pix_fmt). */
static int choose_video_pix_fmt(const clv_output_options *o, const AVCodec *codec,
                                const clv_media_desc *in, enum AVPixelFormat *pf, clv_msg *msg)
{
    const char *want = o->pix_fmt;
    if (o->chain_pix_fmts && o->chain_pix_fmts[0]) {
        int err = chain_pix_fmt(o, codec, &want, pf, msg);
        if (err || !want)
            return err;
    }
    if (!want) {
        /* The input's depth where the encoder holds it. */
        *pf = choose_deep_pix_fmt(codec, in);
        if (*pf == AV_PIX_FMT_NONE)
            *pf = choose_pix_fmt(codec, in->rgb, in->alpha);
        return 0;
    }
    *pf = av_get_pix_fmt(want);
    if (codec_takes(codec, *pf))
        return 0;
    char list[512] = "";
    for (const enum AVPixelFormat *p = codec->pix_fmts; p && *p != AV_PIX_FMT_NONE; p++)
        if (strlen(list) < 450) {
            strcat(list, list[0] ? " " : "");
            strcat(list, av_get_pix_fmt_name(*p));
        }
    /* A name FFmpeg does not know is a usage mistake; a format this
     * encoder lacks is this FFmpeg's limit, as a codec a container cannot
     * hold. */
    return clv_io_fail(msg, *pf == AV_PIX_FMT_NONE ? CLV_EOPTION : CLV_EIO,
                       "-pix_fmt %s: %s takes %s", want, codec->name,
                       list[0] ? list : "other formats");
}

/* The time base: the input's own where the container keeps variable frame
 * timing and the codec takes any rate (timestamps pass through exactly,
 * VFR stays VFR); else 1/frame rate, the nearest one the codec supports
 * (mpeg2video), with timestamps rescaled (and, where the container has a
 * constant rate, frames repeated or dropped: send_cfr), as ffmpeg does. AVI, Y4M,
 * MPEG-PS/TS, MXF and Ogg read the rate from the time base. */
static void set_video_timing(clv_encoder *e, const clv_media_desc *in, const AVCodec *codec,
                             AVRational forced, int unfiltered)
{
    const int given = forced.num > 0 && forced.den > 0; /* -r */
    AVRational rate = given ? forced : in->frame_rate;
    if (codec->supported_framerates)
        rate =
            codec->supported_framerates[av_find_nearest_q_idx(rate, codec->supported_framerates)];
    /* MPEG-4 part 2 and H.263 code the time base in 16 bits: an input's
     * 1/90000 (MPEG-TS) cannot be theirs (the default codec of .nut). */
    int short_tb = (codec->id == AV_CODEC_ID_MPEG4 || codec->id == AV_CODEC_ID_H263 ||
                    codec->id == AV_CODEC_ID_H263P || codec->id == AV_CODEC_ID_FLV1 ||
                    codec->id == AV_CODEC_ID_MSMPEG4V3) &&
                   (in->time_base.den > 65535 || in->time_base.num > 65535);
    e->keep_tb =
        every_flag(e, AVFMT_VARIABLE_FPS) && !codec->supported_framerates && !short_tb && !given;
    e->in_tb = in->time_base;
    e->last_pts = INT64_MIN;
    /* ffmpeg's automatic -vsync: cfr where a container has no variable
     * timing (AVI excepted: its muxer leaves gaps as empty chunks). */
    e->cfr = 0;
    for (int k = 0; k < e->output_count; k++)
        e->cfr |= !(e->outputs[k].format->flags & AVFMT_VARIABLE_FPS) &&
                  strcmp(e->outputs[k].format->name, "avi") != 0;
    e->vfr = given && !e->cfr;
    e->next_pts = INT64_MIN;
    e->enc->time_base = e->keep_tb ? in->time_base : av_inv_q(rate);
    e->enc->framerate = rate;
    /* fftools' duration (5.1's do_video_out): a frame of the filters' rate
     * in output ticks, at most one; without filters a frame's own length,
     * rounded */
    e->frame_ticks = 1;
    if (given && in->frame_rate.num > 0 && in->frame_rate.den > 0) {
        const double ticks = av_q2d(rate) / av_q2d(in->frame_rate);
        e->frame_ticks = ticks < 1 ? ticks : 1;
        if (unfiltered && lrintf((float)ticks) > 0)
            e->frame_ticks = lrintf((float)ticks);
    }
}

/* The picture's shape and colour: the size and aspect turned as the frames
 * are, -aspect's display aspect, and the colour tags of what the frames
 * hold. */
static void set_video_look(clv_encoder *e, const clv_output_options *o, const clv_media_desc *in,
                           clv_color color)
{
    /* Turned a quarter, the picture is height x width. */
    int turned = o->rotation == 90 || o->rotation == 270;
    int width = turned ? in->height : in->width, height = turned ? in->width : in->height;
    e->enc->width = width;
    e->enc->height = height;
    /* The container's aspect first (mkv display size), then the codec's. */
    e->enc->sample_aspect_ratio = in->sample_aspect;
    if (turned && e->enc->sample_aspect_ratio.num > 0)
        e->enc->sample_aspect_ratio = av_inv_q(e->enc->sample_aspect_ratio);
    if (o->width > 0 && o->height > 0) { /* the filters' size and aspect */
        e->enc->width = width = o->width;
        e->enc->height = height = o->height;
        e->enc->sample_aspect_ratio = o->sample_aspect;
    }
    if (o->aspect.num > 0 && o->aspect.den > 0) /* -aspect: the display aspect wanted */
        e->enc->sample_aspect_ratio = av_mul_q(o->aspect, (AVRational){height, width});
    if (is_rgb_fmt(e->enc->pix_fmt)) {
        e->enc->colorspace = AVCOL_SPC_RGB;
        e->enc->color_range = AVCOL_RANGE_JPEG;
    } else {
        e->enc->colorspace = av_matrix(color.matrix);
        e->enc->color_range = color.full_range ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
    }
    /* The input's tags, unless the filters changed what the pixels mean
     * (tonemap: BT.709 SDR). */
    e->enc->color_primaries = in->primaries;
    e->enc->color_trc = in->transfer;
    if (o->transfer && o->transfer != clv_transfer_of(in->transfer))
        e->enc->color_trc = clv_av_transfer(o->transfer);
    if (o->primaries && o->primaries != clv_primaries_of(in->primaries))
        e->enc->color_primaries = clv_av_primaries(o->primaries);
}

/* Threads, headers, bit rate and x264/x265's crf and preset. */
static void set_video_quality(clv_encoder *e, const clv_output_options *o, const AVCodec *codec)
{
    e->enc->thread_count = 0;
    /* Out of band when any output's container wants it: the others (MPEG-TS)
     * put the header in band again before each keyframe. */
    if (any_flag(e, AVFMT_GLOBALHEADER))
        e->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (o->bitrate > 0)
        e->enc->bit_rate = o->bitrate;
    if (!strcmp(codec->name, "libx264") || !strcmp(codec->name, "libx265")) {
        char crf[16];
        snprintf(crf, sizeof crf, "%d", o->crf >= 0 ? o->crf : 18);
        if (!o->bitrate)
            av_opt_set(e->enc->priv_data, "crf", crf, 0);
        av_opt_set(e->enc->priv_data, "preset", o->preset ? o->preset : "veryfast", 0);
    } else if (o->preset) {
        av_log(NULL, AV_LOG_WARNING, "-preset is for libx264/libx265; %s ignores it\n",
               codec->name);
    }
    /* Live outputs: a viewer who joins (or a packet lost) waits at most
     * until the next keyframe, so one comes every 2 s (every segment for
     * HLS, whose segments start at keyframes), and x264 holds no frames
     * back for lookahead or B-frames (zerolatency) on a network stream. */
    double fps = av_q2d(e->enc->framerate);
    double every_s = e->hls ? (o->hls_time > 0 ? o->hls_time : 2) : 2;
    if (o->gop > 0)
        e->enc->gop_size = o->gop;
    else if ((e->network || e->hls) && fps > 0)
        e->enc->gop_size = (int)lrint(every_s * fps) > 0 ? (int)lrint(every_s * fps) : 1;
    if (e->network && (!strcmp(codec->name, "libx264") || !strcmp(codec->name, "libx265")))
        av_opt_set(e->enc->priv_data, "tune", "zerolatency", 0);
}

/* libx265 (up to FFmpeg 6) writes no HDR SEI from frame side data: the
 * input's mastering display and light level go to x265 as its own
 * master-display and max-cll options, in its units (chromaticity in
 * 1/50000, luminance in 1/10000 cd/m2), which make it write the SEI. */
static void set_x265_hdr(clv_encoder *e, const AVCodec *codec)
{
    if (strcmp(codec->name, "libx265"))
        return;
    char params[256] = "";
    const AVMasteringDisplayMetadata *md = &e->mastering;
    if (e->has_mastering && md->has_primaries && md->has_luminance) {
        long v[10];
        /* x265 lists green, blue, red (FFmpeg's order is red, green, blue). */
        static const int order[3] = {1, 2, 0};
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 2; k++)
                v[2 * i + k] = lrint(av_q2d(md->display_primaries[order[i]][k]) * 50000);
        v[6] = lrint(av_q2d(md->white_point[0]) * 50000);
        v[7] = lrint(av_q2d(md->white_point[1]) * 50000);
        v[8] = lrint(av_q2d(md->max_luminance) * 10000);
        v[9] = lrint(av_q2d(md->min_luminance) * 10000);
        snprintf(params, sizeof params,
                 "master-display=G(%ld,%ld)B(%ld,%ld)R(%ld,%ld)WP(%ld,%ld)L(%ld,%ld)", v[0], v[1],
                 v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
    }
    if (e->has_light_level) {
        size_t used = strlen(params);
        snprintf(params + used, sizeof params - used, "%smax-cll=%u,%u", used ? ":" : "",
                 e->light_level.MaxCLL, e->light_level.MaxFALL);
    }
    if (params[0])
        av_opt_set(e->enc->priv_data, "x265-params", params, 0);
}

/* The video encoder, set up and opened. */
static int open_video_encoder(clv_encoder *e, const clv_output_options *o, const clv_media_desc *in,
                              const AVCodec *codec, enum AVPixelFormat pf, clv_color color,
                              clv_msg *msg)
{
    char err[128];
    if (!(e->enc = avcodec_alloc_context3(codec)))
        return out_of_memory(o, msg);
    e->enc->pix_fmt = pf;
    set_video_look(e, o, in, color);
    set_video_timing(e, in, codec, o->frame_rate, o->unfiltered);
    set_video_quality(e, o, codec);
    set_x265_hdr(e, codec);
    int width = e->enc->width, height = e->enc->height;
    if (!strcmp(codec->name, "libx264") && pf == AV_PIX_FMT_YUV420P && (width % 2 || height % 2))
        return clv_io_fail(msg, CLV_EIO,
                           "libx264 with yuv420p needs an even width and height; the frames are "
                           "%dx%d%s (write .png, use -c:v ffv1, or end the chain with "
                           "scale=trunc(iw/2)*2:trunc(ih/2)*2)",
                           width, height, o->width > 0 ? " after the filters" : "");
    int r = avcodec_open2(e->enc, codec, NULL);
    if (r < 0)
        return clv_io_fail(msg, CLV_EIO, "cannot open the %s encoder for %dx%d %s: %s", codec->name,
                           width, height, av_get_pix_fmt_name(pf), clv_av_err(r, err, sizeof err));
    return 0;
}

/* The output's video stream: the encoder's parameters, with the input
 * video's disposition, metadata and side data. */
static int add_video_stream(clv_encoder *e, const clv_output_options *o, const clv_media_desc *in,
                            clv_msg *msg)
{
    AVStream *vst = avformat_new_stream(e->oc, NULL);
    if (!vst)
        return out_of_memory(o, msg);
    e->video_out = vst->index;
    avcodec_parameters_from_context(vst->codecpar, e->enc);
    vst->time_base = e->enc->time_base;
    vst->avg_frame_rate =
        e->keep_tb && in->avg_frame_rate.num > 0 ? in->avg_frame_rate : e->enc->framerate;
    vst->r_frame_rate = e->enc->framerate;
    vst->sample_aspect_ratio = e->enc->sample_aspect_ratio;
    /* The video's disposition (default, forced, the cover's attached_pic). */
    vst->disposition = in->disposition & (AV_DISPOSITION_DEFAULT | AV_DISPOSITION_FORCED |
                                          AV_DISPOSITION_ATTACHED_PIC);
    if (!e->cover)
        vst->disposition &= ~AV_DISPOSITION_ATTACHED_PIC;
    av_dict_copy(&vst->metadata, in->metadata, 0);
    for (int i = 0; i < in->side_data_count; i++) { /* rotation (display matrix) and the like */
        const AVPacketSideData *side = &in->side_data[i];
        if (side->type == AV_PKT_DATA_DISPLAYMATRIX && (o->rotation || o->hflip))
            continue; /* the frames are upright already */
        if (side->type == AV_PKT_DATA_MASTERING_DISPLAY_METADATA ||
            side->type == AV_PKT_DATA_CONTENT_LIGHT_LEVEL)
            continue; /* below, from the stream or the first frame */
        uint8_t *sd = av_stream_new_side_data(vst, side->type, side->size);
        if (sd)
            memcpy(sd, side->data, side->size);
    }
    /* HDR metadata as stream side data: Matroska and MP4/MOV write it in
     * their headers (MasteringMetadata, mdcv and clli boxes). */
    uint8_t *sd;
    if (e->has_mastering) {
        if (!(sd = av_stream_new_side_data(vst, AV_PKT_DATA_MASTERING_DISPLAY_METADATA,
                                           sizeof e->mastering)))
            return out_of_memory(o, msg);
        memcpy(sd, &e->mastering, sizeof e->mastering);
    }
    if (e->has_light_level) {
        if (!(sd = av_stream_new_side_data(vst, AV_PKT_DATA_CONTENT_LIGHT_LEVEL,
                                           sizeof e->light_level)))
            return out_of_memory(o, msg);
        memcpy(sd, &e->light_level, sizeof e->light_level);
    }
    return 0;
}

/* Puts the input's HDR metadata on frame f, as frame side data, where f
 * has none of its own (a decoded frame passed on as it is keeps its own):
 * encoders write it into the bitstream from there (SEI). */
static int add_frame_hdr(const clv_encoder *e, AVFrame *f)
{
    AVFrameSideData *sd;
    if (e->has_mastering && !av_frame_get_side_data(f, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA)) {
        if (!(sd = av_frame_new_side_data(f, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA,
                                          sizeof e->mastering)))
            return AVERROR(ENOMEM);
        memcpy(sd->data, &e->mastering, sizeof e->mastering);
    }
    if (e->has_light_level && !av_frame_get_side_data(f, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL)) {
        if (!(sd = av_frame_new_side_data(f, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL,
                                          sizeof e->light_level)))
            return AVERROR(ENOMEM);
        memcpy(sd->data, &e->light_level, sizeof e->light_level);
    }
    return 0;
}

/* 1 when an output's muxer takes stream s (a subtitle stream goes to each
 * output that takes it: copy_streams). */
static int takes_any(const clv_encoder *e, const AVStream *video, const clv_stream_desc *s)
{
    for (int k = 0; k < e->output_count; k++)
        if (muxer_takes(e->outputs[k].format, video, s->par, s->time_base))
            return 1;
    return 0;
}

/* Where each of the input's sound and subtitle streams goes: copied or
 * encoded again (map_audio), or left out (-an, -sn, or a stream the
 * container cannot hold, with a warning). */
static int map_streams(clv_encoder *e, const clv_output_options *o, const clv_media_desc *in,
                       clv_msg *msg)
{
    e->route_count = in->stream_count + 1;
    if (!(e->routes = calloc((size_t)e->route_count, sizeof *e->routes)))
        return out_of_memory(o, msg);
    for (int i = 0; i < e->route_count; i++)
        e->routes[i].out = -1;
    const AVOutputFormat *ofmt = e->oc->oformat;
    const AVStream *vst = e->oc->streams[e->video_out];
    int left_out = 0;
    for (int k = 0; k < in->stream_desc_count; k++) {
        const clv_stream_desc *s = &in->streams[k];
        int code = 0;
        if (s->type == AVMEDIA_TYPE_AUDIO ? o->no_audio : o->no_subtitles)
            continue;
        if (e->v4l2) { /* a camera has no sound */
            if (!left_out++)
                av_log(NULL, AV_LOG_WARNING,
                       "'%s': a virtual camera (v4l2) takes video only; the input's sound and "
                       "subtitles are left out\n",
                       o->path);
            continue;
        }
        if (s->type == AVMEDIA_TYPE_AUDIO && !o->audio_codec && !e->tee &&
            ofmt->audio_codec == AV_CODEC_ID_NONE)
            continue; /* a container of no sound (rawvideo, yuv4mpegpipe, h264): as ffmpeg */
        if (s->type == AVMEDIA_TYPE_AUDIO) {
            if ((code = map_audio(e, o, s, msg)))
                return code;
        } else if (!takes_any(e, vst, s)) {
            av_log(NULL, AV_LOG_WARNING,
                   "'%s': the %s container%s cannot hold the %s stream #%d (%s); it is left out\n",
                   o->path, e->tee ? "outputs'" : ofmt->name, e->tee ? "s" : "",
                   av_get_media_type_string(s->type), s->index, avcodec_get_name(s->par->codec_id));
        } else if (copy_stream(e, s) < 0) {
            return out_of_memory(o, msg);
        }
    }
    return 0;
}

/* The microphone's sound (extra_audio), encoded to AAC. */
static int map_extra_audio(clv_encoder *e, const clv_output_options *o, clv_msg *msg)
{
    if (!o->extra_audio)
        return 0;
    if (e->v4l2)
        return clv_io_fail(msg, CLV_EOPTION,
                           "'%s': a virtual camera (-f v4l2) takes video only; leave --audio out "
                           "(conferencing apps take the microphone themselves)",
                           o->path);
    const AVCodec *aac = audio_encoder(AV_CODEC_ID_AAC);
    int r = aac ? recode_try(e, o->extra_audio, e->route_count - 1, aac, "the microphone", msg) : 0;
    if (r < 0)
        return CLV_EIO;
    if (r == 0)
        return clv_io_fail(msg, CLV_EIO,
                           "'%s': the %s container cannot hold AAC sound for the microphone "
                           "(record to .mkv, .mp4 or .mov)",
                           o->path, e->oc->oformat->name);
    return 0;
}

/* For one of several outputs: its streams, copies of the shared ones
 * that select= names (all without it) and its container takes (a subtitle
 * stream another output has is left out of one that cannot hold it), and
 * m->map from the shared streams to them. */
static int copy_streams(clv_encoder *e, output *m, clv_msg *msg)
{
    int count = (int)e->oc->nb_streams;
    if (!(m->map = calloc((size_t)count, sizeof *m->map)))
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    const AVStream *video = e->oc->streams[e->video_out];
    for (int i = 0; i < count; i++) {
        const AVStream *st = e->oc->streams[i];
        m->map[i] = -1;
        int chosen = !m->select[0];
        char specs[sizeof m->select], *next = NULL;
        snprintf(specs, sizeof specs, "%s", m->select);
        for (char *spec = av_strtok(specs, ",", &next); spec && !chosen;
             spec = av_strtok(NULL, ",", &next)) {
            int r = avformat_match_stream_specifier(e->oc, (AVStream *)st, spec);
            if (r < 0)
                return clv_io_fail(msg, CLV_EOPTION,
                                   "-f tee: '%.800s': select=%.200s: '%.100s' is not a stream "
                                   "specifier (v, a, s, a:0, 1, ...)",
                                   m->path, m->select, spec);
            chosen = r > 0;
        }
        if (!chosen)
            continue;
        if (i != e->video_out && !muxer_takes(m->format, video, st->codecpar, st->time_base)) {
            av_log(NULL, AV_LOG_WARNING,
                   "'%s': the %s container cannot hold the %s stream (%s); it is left out of "
                   "this output\n",
                   m->path, m->format->name, av_get_media_type_string(st->codecpar->codec_type),
                   avcodec_get_name(st->codecpar->codec_id));
            continue;
        }
        AVStream *copy = avformat_new_stream(m->oc, NULL);
        if (!copy || avcodec_parameters_copy(copy->codecpar, st->codecpar) < 0 ||
            av_dict_copy(&copy->metadata, st->metadata, 0) < 0)
            return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
        copy->codecpar->codec_tag = 0; /* the tag is the container's own */
        copy->time_base = st->time_base;
        copy->avg_frame_rate = st->avg_frame_rate;
        copy->r_frame_rate = st->r_frame_rate;
        copy->sample_aspect_ratio = st->sample_aspect_ratio;
        copy->disposition = st->disposition;
        for (int k = 0; k < st->nb_side_data; k++) {
            uint8_t *sd =
                av_stream_new_side_data(copy, st->side_data[k].type, st->side_data[k].size);
            if (!sd)
                return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
            memcpy(sd, st->side_data[k].data, st->side_data[k].size);
        }
        m->map[i] = copy->index;
    }
    if (!m->oc->nb_streams)
        return clv_io_fail(msg, CLV_EOPTION, "-f tee: '%.800s': select=%.200s chooses no stream",
                           m->path, m->select);
    return 0;
}

/* Opens output m's file or stream and writes its header, with the input's
 * metadata; on failure, the AVERROR in *averr (0 for other mistakes). */
static int start_output(clv_encoder *e, output *m, const clv_output_options *o,
                        const clv_media_desc *in, int *averr, clv_msg *msg)
{
    char err[128];
    const AVOutputFormat *ofmt = m->format;
    *averr = 0;
    int r = e->tee ? copy_streams(e, m, msg) : 0;
    if (r)
        return r;
    av_dict_copy(&m->oc->metadata, in->format_metadata, 0);
    /* SRT's live mode drops what is still unsent when the socket closes (the
     * stream's last frames): the close waits up to 2 s for it (a linger in
     * the URL wins). */
    AVDictionary *io_opts = NULL;
    if (m->network && !strncmp(m->path, "srt://", 6))
        av_dict_set(&io_opts, "linger", "2", 0);
    if (m->network && !strcmp(ofmt->name, "mpegts") && !av_strncasecmp(m->path, "rtp://", 6)) {
        r = clv_rtp_ts_open(m->oc->url, &io_opts, &m->rtp, &m->oc->pb);
        m->oc->flush_packets = 1; /* a frame's end goes out with it, not with the next */
    } else if (!(ofmt->flags & AVFMT_NOFILE)) {
        r = avio_open2(&m->oc->pb, m->oc->url, AVIO_FLAG_WRITE, NULL, &io_opts);
    }
    av_dict_free(&io_opts);
    if (r < 0) {
        *averr = r;
        return clv_io_fail(msg, CLV_EIO,
                           m->network ? "cannot open the stream '%s': %s" : "cannot write '%s': %s",
                           m->path, clv_av_err(r, err, sizeof err));
    }
    AVDictionary *mux_opts = NULL;
    if (m->hls) {
        /* The segments beside the playlist, named as the output check
         * expects (clv_output_hls_segments). */
        char value[1100];
        clv_output_hls_segments(m->path, value, sizeof value);
        av_dict_set(&mux_opts, "hls_segment_filename", value, 0);
        if (o->hls_time > 0) {
            snprintf(value, sizeof value, "%g", o->hls_time);
            av_dict_set(&mux_opts, "hls_time", value, 0);
        }
        if (o->hls_list_size >= 0)
            av_dict_set_int(&mux_opts, "hls_list_size", o->hls_list_size, 0);
    }
    if (m->images && !m->pictures.pattern[0])
        av_dict_set(&mux_opts, "update", "1", 0); /* one file, not a numbered sequence */
    if (m->images) /* pictures.c makes each picture's file whole or not at all */
        av_dict_set(&mux_opts, "atomic_writing", "0", 0);
    av_dict_copy(&mux_opts, m->options, 0); /* the tee syntax's [KEY=VALUE] */
    r = avformat_write_header(m->oc, &mux_opts);
    const AVDictionaryEntry *unused = av_dict_get(mux_opts, "", NULL, AV_DICT_IGNORE_SUFFIX);
    char key[128];
    snprintf(key, sizeof key, "%s", unused ? unused->key : "");
    av_dict_free(&mux_opts);
    if (r < 0) {
        *averr = r;
        /* The video codec the container's table leaves out (only tee
         * outputs are refused for it before: encoder choice above). */
        for (unsigned i = 0; i < m->oc->nb_streams; i++) {
            const AVCodecParameters *par = m->oc->streams[i]->codecpar;
            if (par->codec_type == AVMEDIA_TYPE_VIDEO &&
                avformat_query_codec(ofmt, par->codec_id, FF_COMPLIANCE_NORMAL) == 0)
                return clv_io_fail(msg, CLV_EIO,
                                   "'%s': the %s container cannot hold %s video (%s); name "
                                   "another codec with -c:v",
                                   m->path, ofmt->name, avcodec_get_name(par->codec_id),
                                   clv_av_err(r, err, sizeof err));
        }
        return clv_io_fail(msg, CLV_EIO,
                           m->network ? "'%s': cannot start the %s stream: %s"
                                      : "'%s': cannot start the %s file: %s",
                           m->path, ofmt->name, clv_av_err(r, err, sizeof err));
    }
    m->started = 1;
    if (e->tee && key[0])
        return clv_io_fail(msg, CLV_EOPTION,
                           "-f tee: '%.800s': the %s muxer did not take %s=", m->path, ofmt->name,
                           key);
    return 0;
}

/* Starts every output. One of several that fails with onfail=ignore is
 * dropped with a warning while another starts; else the run ends. */
static int start_outputs(clv_encoder *e, const clv_output_options *o, const clv_media_desc *in,
                         clv_msg *msg)
{
    for (int k = 0; k < e->output_count; k++) {
        output *m = &e->outputs[k];
        int averr;
        int err = start_output(e, m, o, in, &averr, msg);
        if (!err)
            continue;
        if (!averr) /* a mistake, not a failure of the file or stream */
            return err;
        if (output_failed(e, m, err, msg->text))
            return err;
    }
    return 0;
}

/* vf_fps's configuration: its rate (av_d2q), time base and the offsets
 * of start_time; *paced gets the frames' rate and time base after it. */
static int fps_open(clv_encoder *e, const clv_fps_spec *fps, const clv_media_desc *in,
                    clv_media_desc *paced, clv_msg *msg)
{
    const AVRational rate = av_d2q(fps->rate, INT_MAX);
    if (rate.num <= 0 || rate.den <= 0)
        return clv_io_fail(msg, CLV_EOPTION, "-vf: fps %g: not a frame rate", fps->rate);
    e->fps_on = 1;
    e->fps_tb = av_inv_q(rate);
    e->fps_in_tb = in->time_base;
    e->fps_in_rate = in->frame_rate;
    e->fps_round = fps->rounding;
    e->fps_eof_pass = fps->eof_pass;
    e->fps_next = AV_NOPTS_VALUE;
    if (fps->has_start) {
        const double first = fps->start_time * AV_TIME_BASE;
        if (!(first > -9.2e18 && first < 9.2e18))
            return clv_io_fail(msg, CLV_EOPTION,
                               "-vf: fps start_time %g: beyond the time clvid "
                               "can count",
                               fps->start_time);
        const enum AVRounding how = (enum AVRounding)(e->fps_round | AV_ROUND_PASS_MINMAX);
        e->fps_in_off = av_rescale_q_rnd((int64_t)first, AV_TIME_BASE_Q, in->time_base, how);
        e->fps_out_off = av_rescale_q_rnd((int64_t)first, AV_TIME_BASE_Q, e->fps_tb, how);
        e->fps_next = e->fps_out_off;
    }
    paced->frame_rate = paced->avg_frame_rate = paced->r_frame_rate = rate;
    paced->time_base = e->fps_tb;
    return 0;
}

int clv_encoder_open(const clv_output_options *o, const clv_media_desc *in, clv_color color,
                     clv_encoder **out, clv_msg *msg)
{
    *out = NULL;
    clv_encoder *e = calloc(1, sizeof *e);
    if (!e)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    snprintf(e->path, sizeof e->path, "%s", o->path);
    e->max_out = o->max_frames;
    /* The HDR metadata describes the input's curve: it goes where the
     * filters keep that curve. */
    int same_curve = !o->transfer || o->transfer == clv_transfer_of(in->transfer);
    if ((e->has_mastering = same_curve && in->mastering != NULL))
        e->mastering = *in->mastering;
    if ((e->has_light_level = same_curve && in->light_level != NULL))
        e->light_level = *in->light_level;
    const AVCodec *codec = NULL;
    enum AVPixelFormat pf = AV_PIX_FMT_NONE;
    int err = open_outputs(e, o, msg);
    if (!err)
        err = choose_video_codec(e, o, in, &codec, msg);
    if (!err)
        err = choose_video_pix_fmt(o, codec, in, &pf, msg);
    /* A virtual camera's raw frames are 4:2:0 (I420), as from ffmpeg: what
     * v4l2loopback and conferencing apps take, whatever the input was. */
    if (!err && e->v4l2 && !o->pix_fmt && !o->chain_pix_fmts && codec->id == AV_CODEC_ID_RAWVIDEO)
        pf = AV_PIX_FMT_YUV420P;
    /* After the chain's fps the frames are of its rate, on its ticks. */
    clv_media_desc paced = *in;
    if (!err && o->fps.step > 0) { /* framestep: the rate over step, the times kept */
        e->step = o->fps.step;
        if (in->frame_rate.num > 0 && in->frame_rate.den > 0)
            paced.frame_rate = paced.avg_frame_rate = paced.r_frame_rate =
                av_div_q(in->frame_rate, (AVRational){o->fps.step, 1});
    } else if (!err && o->fps.rate > 0)
        err = fps_open(e, &o->fps, in, &paced, msg);
    if (!err)
        err = open_video_encoder(e, o, &paced, codec, pf, color, msg);
    if (!err)
        err = add_video_stream(e, o, &paced, msg);
    if (!err)
        err = map_streams(e, o, in, msg);
    if (!err)
        err = map_extra_audio(e, o, msg);
    if (!err)
        err = start_outputs(e, o, in, msg);
    if (err) {
        clv_encoder_close(e);
        return err;
    }
    *out = e;
    return 0;
}

enum AVPixelFormat clv_encoder_pix_fmt(const clv_encoder *e)
{
    return e->enc->pix_fmt;
}

const char *clv_encoder_codec_name(const clv_encoder *e)
{
    return e->enc->codec->name;
}

/* Notes the times of frame f going into the encoder, for its packet. */
static void note_sent(clv_encoder *e, const AVFrame *f)
{
    if (!e->hook || f->pts == AV_NOPTS_VALUE)
        return;
    struct sent_frame *s = &e->sent[e->sent_count++ % (sizeof e->sent / sizeof e->sent[0])];
    *s = (struct sent_frame){f->pts, clv_frame_read_time(f), clv_io_seconds()};
}

/* Tells the hook of a packet of pts (the encoder's time base) written. */
static void tell_written(clv_encoder *e, int64_t pts, double encoded)
{
    size_t n = sizeof e->sent / sizeof e->sent[0];
    for (size_t i = 0; e->hook && pts != AV_NOPTS_VALUE && i < n && i < e->sent_count; i++) {
        struct sent_frame *s = &e->sent[(e->sent_count - 1 - i) % n];
        if (s->pts == pts) {
            clv_packet_times t = {s->read, s->sent, encoded, clv_io_seconds()};
            s->pts = AV_NOPTS_VALUE; /* once */
            e->hook(e->hook_user, &t);
            return;
        }
    }
}

static int write_packets(clv_encoder *e)
{
    AVPacket *pkt = av_packet_alloc();
    int r = 0;
    if (!pkt)
        return AVERROR(ENOMEM);
    while ((r = avcodec_receive_packet(e->enc, pkt)) == 0) {
        double encoded = e->hook ? clv_io_seconds() : 0;
        int64_t pts = pkt->pts;
        /* Encoders here leave durations unset; without one the muxer may
         * cut the last frame (mp4 edit lists end where it starts). */
        if (pkt->duration <= 0 && e->enc->framerate.num > 0 && e->enc->framerate.den > 0)
            pkt->duration = av_rescale_q(1, av_inv_q(e->enc->framerate), e->enc->time_base);
        pkt->stream_index = e->video_out;
        av_packet_rescale_ts(pkt, e->enc->time_base, e->oc->streams[e->video_out]->time_base);
        if ((r = mux_write(e, pkt)) < 0)
            break;
        tell_written(e, pts, encoded);
    }
    av_packet_free(&pkt);
    return r == AVERROR(EAGAIN) || r == AVERROR_EOF ? 0 : r;
}

/* 1 when the frames written reach max_frames: this one and those after
 * it are not written. */
static int capped(clv_encoder *e)
{
    if (e->max_out > 0 && atomic_load(&e->frames_out) >= e->max_out)
        return 1;
    atomic_fetch_add(&e->frames_out, 1);
    return 0;
}

int64_t clv_encoder_frames_out(const clv_encoder *e)
{
    return (int64_t)atomic_load(&((clv_encoder *)e)->frames_out);
}

int clv_encoder_full(const clv_encoder *e)
{
    return e->max_out > 0 && clv_encoder_frames_out(e) >= e->max_out;
}

/* One frame to the encoder at pts (a copy of f's references: f stays the
 * caller's); counted for latency only when first (its read time known). */
static int send_at(clv_encoder *e, const AVFrame *f, int64_t pts, int first)
{
    if (capped(e))
        return 0;
    AVFrame *c = av_frame_clone(f);
    if (!c)
        return AVERROR(ENOMEM);
    c->pts = pts;
    c->pict_type = AV_PICTURE_TYPE_NONE;
    int r = add_frame_hdr(e, c);
    if (r >= 0) {
        if (first)
            note_sent(e, c);
        r = avcodec_send_frame(e->enc, c);
    }
    av_frame_free(&c);
    return r >= 0 ? write_packets(e) : r;
}

/* A copy of f in *kept, its buffers made anew only when the size or
 * format changes: a frame held past the next one (the staging memory of
 * a frame is not kept). */
static int keep_copy(AVFrame **kept, const AVFrame *f)
{
    int r;
    /* new buffers also where the encoder still holds the last copy (frame
     * threads): never a write under it, and no copy of what is replaced */
    if (!*kept || (*kept)->width != f->width || (*kept)->height != f->height ||
        (*kept)->format != f->format || !av_frame_is_writable(*kept)) {
        av_frame_free(kept);
        if (!(*kept = av_frame_alloc()))
            return AVERROR(ENOMEM);
        (*kept)->format = f->format;
        (*kept)->width = f->width;
        (*kept)->height = f->height;
        if ((r = av_frame_get_buffer(*kept, 0)) < 0) {
            av_frame_free(kept);
            return r;
        }
    }
    if ((r = av_frame_copy(*kept, f)) < 0 || (r = av_frame_copy_props(*kept, f)) < 0)
        return r;
    return 0;
}

/* A frame into a constant rate, as ffmpeg's -vsync cfr (fftools'
 * do_video_out): at its time p in ticks, with delta0 = p - next_pts and
 * delta = delta0 + the frame's length in ticks (1 but with -r), it is
 * dropped under -1.1, sent once up to 1.1, and above that sent
 * llrint(delta) times, the first llrint(delta0 - 0.6) of them being the
 * previous frame again when delta0 passes 1.1. With -r into variable
 * timing (-vsync vfr) it is dropped at -0.6 or under, sent once at
 * next_pts, which moves to llrint(p) first where delta passes 0.6. */
static int send_cfr(clv_encoder *e, AVFrame *f)
{
    /* p as fftools' adjust_frame_pts_to_encoder_tb: rescaled with
     * extra bits of fraction, then moved off exact midpoints by 2^-17 */
    AVRational tb = e->enc->time_base;
    const int extra = av_clip(29 - av_log2((unsigned)tb.den), 0, 16);
    tb.den <<= extra;
    double p = (double)av_rescale_q(f->pts, e->in_tb, tb) / (double)(1 << extra);
    p += (p > 0 ? 1.0 : -1.0) / (1 << 17);
    if (e->next_pts == INT64_MIN)
        e->next_pts = llrint(p);
    const double delta0 = p - (double)e->next_pts, delta = delta0 + e->frame_ticks;
    int64_t copies = 1, before = 0;
    if (e->vfr) {
        if (delta <= -0.6)
            copies = 0;
        else if (delta > 0.6 && delta0 > 0) /* a frame clipped (delta0 < 0) keeps next_pts */
            e->next_pts = llrint(p);
    } else if (delta < -1.1)
        copies = 0;
    else if (delta > 1.1) {
        copies = llrintf((float)delta); /* fftools' rounding, in float */
        before = delta0 > 1.1 && e->prev ? llrintf((float)(delta0 - 0.6)) : 0;
    }
    if (before > copies)
        before = copies;
    e->last_before[2] = e->last_before[1];
    e->last_before[1] = e->last_before[0];
    e->last_before[0] = before;
    int r = 0;
    for (int64_t i = 0; r >= 0 && i < copies; i++)
        r = send_at(e, i < before ? e->prev : f, e->next_pts++, i == before);
    if (r < 0 || e->vfr) /* variable timing repeats no frame */
        return r;
    /* the frame is the one a gap after it repeats (dropped or not) */
    return keep_copy(&e->prev, f);
}

/* At the end, as ffmpeg's flush: the last frame again as often as the
 * median of the last three frames repeated the one before them. */
static int end_cfr(clv_encoder *e)
{
    const int64_t *b = e->last_before;
    int64_t n = b[0] > b[1] ? (b[1] > b[2]   ? b[1]
                               : b[0] > b[2] ? b[2]
                                             : b[0])
                            : (b[0] > b[2]   ? b[0]
                               : b[1] > b[2] ? b[2]
                                             : b[1]);
    int r = 0;
    for (int64_t i = 0; e->prev && r >= 0 && i < n; i++)
        r = send_at(e, e->prev, e->next_pts++, 0);
    return r;
}

/* A frame out of the chain (or of fps) into the encoder: at a constant
 * rate (send_cfr) or at its own time; f is freed. */
static int encode_frame(clv_encoder *e, AVFrame *f, int64_t *frames, int64_t fault)
{
    int r;
    if ((e->cfr || e->vfr) && f->pts != AV_NOPTS_VALUE && !e->cover) {
        r = (*frames)++ == fault ? AVERROR(EIO) : send_cfr(e, f);
        av_frame_free(&f);
        if (r >= 0 && e->outputs[0].pictures.error)
            r = e->outputs[0].pictures.error;
        return r;
    }
    if (f->pts != AV_NOPTS_VALUE) {
        /* Into the encoder's time base; two frames that round to one tick
         * (VFR into a fixed rate) keep their order. */
        int64_t pts = av_rescale_q(f->pts, e->in_tb, e->enc->time_base);
        f->pts = e->last_pts != INT64_MIN && pts <= e->last_pts ? e->last_pts + 1 : pts;
        e->last_pts = f->pts;
    }
    if (capped(e)) {
        av_frame_free(&f);
        return 0;
    }
    /* A decoded frame handed over as it is still says which type the
     * input coded it as; encoders would obey (as ffmpeg, the encoder
     * chooses). */
    f->pict_type = AV_PICTURE_TYPE_NONE;
    r = (*frames)++ == fault ? AVERROR(EIO) : add_frame_hdr(e, f);
    if (r >= 0) {
        note_sent(e, f);
        r = avcodec_send_frame(e->enc, f);
    }
    av_frame_free(&f);
    if (r >= 0)
        r = write_packets(e);
    if (r >= 0 && e->outputs[0].pictures.error)
        r = e->outputs[0].pictures.error;
    return r;
}

/* The frame fps holds, on the ticks from fps_next up to (not with) end. */
static int fps_emit(clv_encoder *e, int64_t end, int64_t *frames, int64_t fault)
{
    int r = 0;
    for (; e->fps_has && r >= 0 && e->fps_next < end; e->fps_next++) {
        AVFrame *c = av_frame_clone(e->fps_held);
        if (!c)
            return AVERROR(ENOMEM);
        c->pts = e->fps_next;
        r = encode_frame(e, c, frames, fault);
    }
    return r;
}

/* ffmpeg's vf_fps (libavfilter/vf_fps.c): frame f's time rounded to its
 * tick p; the frame held goes out on the ticks before p not yet taken
 * (none: it is dropped, a later frame on the same tick winning), then f
 * is held. */
static int fps_push(clv_encoder *e, const AVFrame *f, int64_t *frames, int64_t fault)
{
    const int64_t p =
        e->fps_out_off + av_rescale_q_rnd(f->pts - e->fps_in_off, e->fps_in_tb, e->fps_tb,
                                          e->fps_round | AV_ROUND_PASS_MINMAX);
    if (e->fps_next == AV_NOPTS_VALUE)
        e->fps_next = p;
    int r = fps_emit(e, p, frames, fault);
    if (r < 0)
        return r;
    if ((r = keep_copy(&e->fps_held, f)) < 0)
        return r;
    e->fps_has = 1;
    e->fps_last = f->pts;
    return 0;
}

/* The stream's end (the last frame's time and length): the frame held
 * fills the ticks up to it, rounded as the frames are (eof_action=round)
 * or up (pass). */
static int fps_end(clv_encoder *e, int64_t *frames, int64_t fault)
{
    if (!e->fps_has)
        return 0;
    int64_t length = 1;
    if (e->fps_in_rate.num > 0 && e->fps_in_rate.den > 0)
        length = av_rescale_q(1, av_inv_q(e->fps_in_rate), e->fps_in_tb);
    const int64_t end =
        av_rescale_q_rnd(e->fps_last + (length > 0 ? length : 1), e->fps_in_tb, e->fps_tb,
                         (e->fps_eof_pass ? AV_ROUND_UP : e->fps_round) | AV_ROUND_PASS_MINMAX);
    return fps_emit(e, end, frames, fault);
}

static void *encode_thread(void *arg)
{
    clv_encoder *e = arg;
    double begin = clv_io_seconds(), waited = 0;
    char err[128];
    int64_t fault = clv_fault_after("encoder"), frames = 0;
    int r = 0;
    for (;;) {
        int kind;
        void *item;
        double t = clv_io_seconds();
        if (clv_queue_pop(e->in, &kind, &item) < 0) {
            r = AVERROR_EXIT; /* aborted by the main thread */
            break;
        }
        waited += clv_io_seconds() - t;
        if (kind == CLV_ITEM_END) {
            if (e->fps_on && (r = fps_end(e, &frames, fault)) < 0)
                break;
            if (e->cfr && !e->vfr && (r = end_cfr(e)) < 0)
                break;
            avcodec_send_frame(e->enc, NULL);
            r = write_packets(e);
            for (int i = 0; r >= 0 && i < e->route_count; i++)
                if (e->routes[i].recode)
                    r = clv_audio_recode_packet(e->routes[i].recode, NULL);
            break;
        }
        if (kind == CLV_ITEM_FRAME && e->step > 0 && e->step_count++ % e->step) {
            AVFrame *f = item; /* framestep: not one of every step-th */
            av_frame_free(&f);
        } else if (kind == CLV_ITEM_FRAME && e->fps_on &&
                   ((AVFrame *)item)->pts != AV_NOPTS_VALUE && !e->cover) {
            AVFrame *f = item;
            r = fps_push(e, f, &frames, fault);
            av_frame_free(&f);
        } else if (kind == CLV_ITEM_FRAME)
            r = encode_frame(e, item, &frames, fault);
        else {
            AVPacket *p = item;
            const struct stream_route *route =
                p->stream_index >= 0 && p->stream_index < e->route_count
                    ? &e->routes[p->stream_index]
                    : NULL;
            int out_index = route ? route->out : -1;
            if (route && route->recode) {
                r = clv_audio_recode_packet(route->recode, p);
            } else if (out_index >= 0) {
                av_packet_rescale_ts(p, route->in_tb, e->oc->streams[out_index]->time_base);
                p->stream_index = out_index;
                p->pos = -1;
                r = mux_write(e, p);
            }
            av_packet_free(&p);
        }
        if (r < 0)
            break;
    }
    const output *failed = e->failed_output >= 0 ? &e->outputs[e->failed_output] : NULL;
    if (r < 0 && r != AVERROR_EXIT) {
        e->error = CLV_EIO;
        if (e->outputs[0].pictures.path[0])
            snprintf(e->message, sizeof e->message, "writing '%.600s' (of '%.600s') failed: %s",
                     e->outputs[0].pictures.path, e->path, clv_av_err(r, err, sizeof err));
        else if (e->tee && failed)
            snprintf(
                e->message, sizeof e->message,
                "writing '%.900s' failed: %s; the run ends and no output is kept (onfail=abort; "
                "[onfail=ignore] before it lets the others go on)",
                failed->path, clv_av_err(r, err, sizeof err));
        else
            snprintf(e->message, sizeof e->message, "writing '%s' failed: %s", e->path,
                     clv_av_err(r, err, sizeof err));
        clv_queue_abort(e->in); /* unblock the producer */
    } else if (r == AVERROR_EXIT) {
        e->error = CLV_EIO;
        snprintf(e->message, sizeof e->message, "writing '%s' stopped", e->path);
    }
    e->busy = clv_io_seconds() - begin - waited;
    return NULL;
}

int clv_encoder_start(clv_encoder *e, clv_queue *in)
{
    e->in = in;
    if (pthread_create(&e->thread, NULL, encode_thread, e))
        return CLV_ENOMEM;
    e->started = 1;
    return 0;
}

int clv_encoder_finish(clv_encoder *e, clv_msg *msg)
{
    char err[128];
    if (e->started) {
        pthread_join(e->thread, NULL);
        e->started = 0;
    }
    /* Every output finished first, and only then the files put in place:
     * a run that fails while finishing leaves none of them (a rename that
     * fails after others were put in place leaves those, complete). */
    for (int k = 0; !e->error && k < e->output_count; k++) {
        output *m = &e->outputs[k];
        if (!m->started || m->failed)
            continue;
        const char *what = "finishing '%.900s' failed: %s";
        int r = av_write_trailer(m->oc);
        if (r >= 0 && m->rtp) {
            what = "sending the end of '%.900s' failed: %s";
            r = output_close_io(m);
        } else if (r >= 0 && output_close_io(m) < 0) {
            what = "closing '%.900s' failed (disk full?)%.0s";
            r = AVERROR(EIO);
        }
        if (r >= 0 && m->pictures.error) {
            what = "writing '%.900s' failed: %s";
            r = m->pictures.error;
        }
        if (r >= 0 && m->file_error) { /* HLS: a segment or the playlist */
            what = "writing '%.900s' failed: %s";
            r = m->file_error;
        }
        char why[1300];
        snprintf(why, sizeof why, what, m->path, clv_av_err(r, err, sizeof err));
        if (r < 0 && output_failed(e, m, r, why) < 0) {
            e->error = CLV_EIO;
            snprintf(e->message, sizeof e->message, "%s", why);
        }
    }
    for (int k = 0; !e->error && k < e->output_count; k++) {
        output *m = &e->outputs[k];
        clv_msg moved;
        if (!m->failed && m->file && clv_outfile_commit(m->file, &moved)) {
            e->error = CLV_EIO;
            snprintf(e->message, sizeof e->message, "%s", moved.text);
        }
        m->done = !m->failed;
    }
    return e->error ? clv_io_fail(msg, e->error, "%.1000s", e->message) : 0;
}

void clv_encoder_close(clv_encoder *e)
{
    if (!e)
        return;
    if (e->started) {
        if (e->in)
            clv_queue_abort(e->in);
        pthread_join(e->thread, NULL);
        e->started = 0;
    }
    for (int k = 0; e->outputs && k < e->output_count; k++) {
        output *m = &e->outputs[k];
        output_drop(m);
        clv_outfile_close(m->file); /* an unfinished partial goes; what was at path stays */
        for (int i = 0; i < m->made_count; i++) {
            if (!m->done)
                unlink(m->made[i]); /* an unfinished HLS output goes too */
            free(m->made[i]);
        }
        free(m->made);
        clv_pictures_close(&m->pictures);
        if (m->oc != e->oc) /* a single output's is e->oc, once it opened */
            avformat_free_context(m->oc);
        av_dict_free(&m->options);
        free(m->map);
    }
    free(e->outputs);
    av_packet_free(&e->tee_packet);
    avcodec_free_context(&e->enc);
    av_frame_free(&e->prev);
    av_frame_free(&e->fps_held);
    avformat_free_context(e->oc);
    for (int i = 0; e->routes && i < e->route_count; i++)
        clv_audio_recode_close(e->routes[i].recode);
    free(e->routes);
    free(e);
}

int clv_encoder_extra_index(const clv_encoder *e)
{
    return e->route_count - 1;
}

const char *clv_encoder_partial_path(const clv_encoder *e, int n)
{
    for (int k = 0; k < e->output_count; k++)
        if (clv_outfile_partial(e->outputs[k].file) && n-- == 0)
            return clv_outfile_partial(e->outputs[k].file);
    return NULL;
}

double clv_encoder_busy_seconds(const clv_encoder *e)
{
    return e->busy;
}

void clv_encoder_set_packet_hook(clv_encoder *e, clv_encoder_packet_hook hook, void *user)
{
    e->hook = hook;
    e->hook_user = user;
}
