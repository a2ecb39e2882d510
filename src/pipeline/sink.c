/* sink.c - the encode sink: stage frames -> encoder frames (a plane copy when
 * the stage gives the encoder's layout, swscale from RGBA or its 16-bit
 * layouts otherwise) -> the encoder + muxer thread, with copied streams and
 * a microphone. */
#include "sink.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/imgutils.h>
#include <libavutil/parseutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

clv_input_options clv_pipeline_input(const clv_transcode_options *o)
{
    return (clv_input_options){.path = o->input,
                               .format = o->input_format,
                               .start_us = o->start_us,
                               .duration_us = o->duration_us,
                               .max_frames = o->max_frames,
                               .video_size = o->capture_size,
                               .framerate = o->capture_rate,
                               .input_format = o->capture_format,
                               .live = o->live || clv_io_network_url(o->input),
                               .realtime = o->realtime,
                               .rtsp_transport = o->rtsp_transport,
                               .stall_us = o->rw_timeout_us,
                               .hwaccel = o->hwaccel,
                               .hwaccel_device = o->hwaccel_device};
}

int clv_input_is_network(const char *input)
{
    return clv_io_network_url(input);
}

clv_output_options clv_pipeline_output(const clv_transcode_options *o)
{
    AVRational rate = {0, 0};
    if (o->frame_rate &&
        (av_parse_video_rate(&rate, o->frame_rate) < 0 || rate.num <= 0 || rate.den <= 0))
        rate = (AVRational){0, 0}; /* refused before (clv_transcode_options_check) */
    return (clv_output_options){.frame_rate = rate,
                                .path = o->output,
                                .format = o->output_format,
                                .codec = o->codec,
                                .crf = o->crf,
                                .preset = o->preset,
                                .bitrate = o->bitrate,
                                .pix_fmt = o->pix_fmt,
                                .no_audio = o->no_audio,
                                .no_subtitles = o->no_subtitles,
                                .audio_codec = o->audio_codec,
                                .aspect = {o->aspect_num, o->aspect_den},
                                .gop = o->gop,
                                .hls_time = o->hls_time,
                                .hls_list_size = o->hls_list_size,
                                .overwrite = o->overwrite};
}

struct clv_sink {
    const clv_decoder *clock; /* the microphone's timeline (clv_sink_options.clock) */
    clv_encoder *enc;
    clv_mic *mic;
    clv_queue *queue;       /* to the encoder thread; the mic's thread pushes too */
    struct SwsContext *sws; /* RGBA -> encoder format, or NULL for a plane copy */
    AVBufferPool *pool;     /* encoder frames: no mmap + page faults per frame */
    enum AVPixelFormat enc_format;
    clv_pixfmt stage_format;
    clv_color color;
    int width, height;
    AVRational time_base; /* of the frames' pts (the decoder's video stream) */
    double frame_s;       /* a frame's duration, seconds */
    double video_end;     /* where the frames so far end, seconds (-1: none with a
                           * timestamp); the sound ends there too */
    /* Each frame's latency and encoding time (the encoder's packet hook,
     * on its thread), read by the run's thread. */
    struct sink_times {
        pthread_mutex_t lock;
        clv_latency latency, encoding; /* guarded by lock */
    } * times;
    int finished; /* clv_sink_finish ran: its result is final */
    int result;
    clv_msg result_msg;
};

/* The stage's frames into the encoder's format: a plane copy when the
 * stage gives that layout (at 16 bits: the deep layouts, and the 8-bit ones
 * dithered), swscale otherwise: from RGBA, or, for an encoder format of
 * more than 8 bits from 16-bit frames, from rgba64le (RGB, alpha) or
 * yuv444p16le (Y'CbCr: the chroma is subsampled on the host). */
/* 1 for the formats whose range is full by definition, as swscale takes
 * them (its handle_jpeg): the yuvj formats and gray (with or without
 * alpha) at every depth. */
static int full_range_format(enum AVPixelFormat f)
{
    switch (f) {
    case AV_PIX_FMT_YUVJ420P:
    case AV_PIX_FMT_YUVJ422P:
    case AV_PIX_FMT_YUVJ444P:
    case AV_PIX_FMT_YUVJ440P:
    case AV_PIX_FMT_YUVJ411P:
        return 1;
    default:
        break;
    }
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && !(d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL)) &&
           (d->nb_components == 1 || (d->nb_components == 2 && (d->flags & AV_PIX_FMT_FLAG_ALPHA)));
}

static int open_conversion(clv_sink *s, int rgba, int depth, clv_msg *msg)
{
    if (full_range_format(s->enc_format))
        s->color.full_range = 1;
    int native = rgba ? -1 : clv_native_pixfmt(s->enc_format);
    if (native < 0 && !rgba && depth == 16)
        native = clv_native_pixfmt_deep(s->enc_format, 1);
    if (native >= 0) {
        s->stage_format = (clv_pixfmt)native;
        return 0;
    }
    int deep = depth == 16 && !rgba && clv_av_pixfmt_bits(s->enc_format) > 8;
    s->stage_format =
        !deep ? CLV_PIX_RGBA
        : clv_av_pixfmt_is_rgb(s->enc_format) || clv_av_pixfmt_has_alpha(s->enc_format)
            ? CLV_PIX_RGBA64
            : CLV_PIX_YUV444P16;
    s->sws = sws_getContext(s->width, s->height, clv_av_pixfmt(s->stage_format), s->width,
                            s->height, s->enc_format,
                            SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
    if (!s->sws)
        return clv_io_fail(msg, CLV_EINVAL, "cannot convert %s frames to %s",
                           clv_pixfmt_name(s->stage_format), av_get_pix_fmt_name(s->enc_format));
    clv_sws_colors(s->sws, s->color, !clv_pixfmt_is_yuv(s->stage_format), s->color,
                   clv_av_pixfmt_is_rgb(s->enc_format));
    return 0;
}

/* The encoder's packet hook: a frame's packet is written. */
static void packet_written(void *user, const clv_packet_times *t)
{
    struct sink_times *times = user;
    pthread_mutex_lock(&times->lock);
    if (t->read > 0) /* 0: a frame of unknown read time */
        clv_latency_add(&times->latency, (t->written - t->read) * 1e3);
    clv_latency_add(&times->encoding, (t->encoded - t->sent) * 1e3);
    pthread_mutex_unlock(&times->lock);
}

int clv_sink_open(const clv_sink_options *o, clv_sink **out, clv_msg *msg)
{
    *out = NULL;
    clv_sink *s = calloc(1, sizeof *s);
    if (!s)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    const clv_media_desc *in = o->input;
    clv_output_options output = *o->output;
    s->clock = o->clock;
    s->time_base = in->time_base;
    s->frame_s = av_q2d(av_inv_q(in->frame_rate));
    s->video_end = -1;
    int turned = o->rotation == 90 || o->rotation == 270;
    s->width = turned ? in->height : in->width;
    s->height = turned ? in->width : in->height;
    output.rotation = o->rotation;
    output.hflip = o->hflip;
    if (o->width > 0 && o->height > 0) {
        s->width = output.width = o->width;
        s->height = output.height = o->height;
        output.sample_aspect = o->sample_aspect;
    }
    s->color = clv_feed_output_color(o->feed);
    /* A chain that changes the primaries (tonemap: BT.2020 to BT.709) gives
     * Y'CbCr of their matrix. */
    output.transfer = o->transfer;
    output.primaries = o->primaries;
    if (o->primaries && o->primaries != clv_primaries_of(in->primaries))
        s->color.matrix = o->primaries == CLV_PRIM_BT2020 ? CLV_MATRIX_BT2020 : CLV_MATRIX_BT709;
    int depth = clv_pixfmt_depth(clv_feed_format(o->feed));
    int err = 0;
    if (o->mic) {
        if ((err = clv_mic_open(o->mic, o->mic_format, &s->mic, msg)))
            goto fail;
        output.extra_audio = clv_mic_stream(s->mic);
    }
    if ((err = clv_encoder_open(&output, in, s->color, &s->enc, msg)))
        goto fail;
    s->enc_format = clv_encoder_pix_fmt(s->enc);
    if ((err = open_conversion(s, o->rgba, depth, msg)))
        goto fail;
    if (depth == 16 && clv_av_pixfmt_bits(s->enc_format) <= 8)
        av_log(NULL, AV_LOG_WARNING, "%s (%s) takes 8 bits: the %d-bit frames are dithered to 8\n",
               clv_encoder_codec_name(s->enc), av_get_pix_fmt_name(s->enc_format),
               clv_av_pixfmt_bits(in->pix_fmt));
    int size = av_image_get_buffer_size(s->enc_format, s->width, s->height, 32);
    s->pool = size > 0 ? av_buffer_pool_init((size_t)size, NULL) : NULL;
    s->queue = clv_queue_create(16);
    s->times = calloc(1, sizeof *s->times);
    if (s->times && pthread_mutex_init(&s->times->lock, NULL)) {
        free(s->times);
        s->times = NULL;
    }
    if (!s->pool || !s->queue || !s->times) {
        err = clv_io_fail(msg, CLV_ENOMEM, "out of memory");
        goto fail;
    }
    clv_encoder_set_packet_hook(s->enc, packet_written, s->times);
    *out = s;
    return 0;
fail:
    clv_sink_close(s);
    return err;
}

clv_pixfmt clv_sink_stage_format(const clv_sink *s)
{
    return s->stage_format;
}

clv_color clv_sink_color(const clv_sink *s)
{
    return s->color;
}

enum AVPixelFormat clv_sink_pix_fmt(const clv_sink *s)
{
    return s->enc_format;
}

const char *clv_sink_codec_name(const clv_sink *s)
{
    return clv_encoder_codec_name(s->enc);
}

const char *clv_sink_partial_path(const clv_sink *s, int n)
{
    return clv_encoder_partial_path(s->enc, n);
}

int clv_sink_full(const clv_sink *s)
{
    return s->enc && clv_encoder_full(s->enc);
}

int64_t clv_sink_frames_out(const clv_sink *s)
{
    return s->enc ? clv_encoder_frames_out(s->enc) : 0;
}

int clv_sink_has_mic(const clv_sink *s)
{
    return s->mic != NULL;
}

double clv_sink_busy_seconds(const clv_sink *s)
{
    return clv_encoder_busy_seconds(s->enc);
}

void clv_sink_latency(clv_sink *s, clv_latency_summary *latency, clv_latency_summary *encoding)
{
    pthread_mutex_lock(&s->times->lock);
    clv_latency_summarize(&s->times->latency, latency);
    clv_latency_summarize(&s->times->encoding, encoding);
    pthread_mutex_unlock(&s->times->lock);
}

int clv_sink_start(clv_sink *s, clv_msg *msg)
{
    if (clv_encoder_start(s->enc, s->queue) ||
        (s->mic && clv_mic_start(s->mic, s->clock, s->queue, clv_encoder_extra_index(s->enc))))
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory (threads)");
    return 0;
}

/* A push the encoder refused: it stopped, and says why when joined. */
static int refused(clv_sink *s, clv_msg *msg)
{
    int err = clv_sink_finish(s, 0, NULL, NULL, msg);
    return err ? err : CLV_EIO;
}

static void kept_free(void *kept, uint8_t *data)
{
    (void)data;
    clv_block_free(kept);
}

/* The stage's frame (its planes tightly packed, as FFmpeg lays them out
 * with an alignment of 1) as the encoder frame f's planes, when each plane
 * starts and its rows are 64 bytes apart as in FFmpeg's own frames
 * (encoders may count on that alignment): 1, with f's planes set. */
static int planes_in_place(const clv_sink *s, uint8_t *pixels, AVFrame *f)
{
    if (av_image_fill_arrays(f->data, f->linesize, pixels, s->enc_format, s->width, s->height, 1) <
        0)
        return 0;
    for (int i = 0; i < 4 && f->data[i]; i++)
        if (f->linesize[i] % 64 || (uintptr_t)f->data[i] % 64)
            return 0;
    return 1;
}

/* Notes where a frame going to the encoder ends. */
static void counted(clv_sink *s, int64_t pts)
{
    if (pts == AV_NOPTS_VALUE)
        return;
    double end = (double)pts * av_q2d(s->time_base) + s->frame_s;
    if (end > s->video_end)
        s->video_end = end;
}

int clv_sink_frame(clv_sink *s, const uint8_t *pixels, clv_block *kept, int64_t pts, double read_at,
                   clv_msg *msg)
{
    AVFrame *f = av_frame_alloc();
    if (!f) {
        clv_block_free(kept);
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    }
    f->format = s->enc_format;
    f->width = s->width;
    f->height = s->height;
    if (kept && !s->sws && planes_in_place(s, (uint8_t *)pixels, f)) {
        /* The encoder reads the stage's memory; it goes back to the stage
         * when the encoder thread frees the frame. */
        f->buf[0] = av_buffer_create((uint8_t *)pixels,
                                     clv_pixfmt_size(s->stage_format, s->width, s->height),
                                     kept_free, kept, 0);
        if (!f->buf[0]) {
            clv_block_free(kept);
            av_frame_free(&f);
            return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
        }
    } else {
        /* A copy: the buffer returns to the pool when the encoder thread
         * frees the frame. */
        memset(f->data, 0, sizeof f->data);
        f->buf[0] = av_buffer_pool_get(s->pool);
        if (!f->buf[0] || av_image_fill_arrays(f->data, f->linesize, f->buf[0]->data, s->enc_format,
                                               s->width, s->height, 32) < 0) {
            clv_block_free(kept);
            av_frame_free(&f);
            return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
        }
        if (s->sws) {
            const uint8_t *src[4];
            int stride[4], rows[4];
            clv_packed_planes(s->stage_format, s->width, s->height, pixels, src, stride, rows);
            sws_scale(s->sws, src, stride, 0, s->height, f->data, f->linesize);
        } else {
            clv_copy_planes(s->stage_format, s->width, s->height, (uint8_t *)pixels, f, 1);
        }
        clv_block_free(kept);
    }
    f->pts = pts;
    clv_frame_set_read_time(f, read_at);
    counted(s, pts);
    return clv_queue_push(s->queue, CLV_ITEM_FRAME, f) < 0 ? refused(s, msg) : 0;
}

int clv_sink_pass(clv_sink *s, AVFrame *frame, clv_msg *msg)
{
    counted(s, frame->pts);
    return clv_queue_push(s->queue, CLV_ITEM_FRAME, frame) < 0 ? refused(s, msg) : 0;
}

int clv_sink_packet(clv_sink *s, AVPacket *packet, clv_msg *msg)
{
    return clv_queue_push(s->queue, CLV_ITEM_PACKET, packet) < 0 ? refused(s, msg) : 0;
}

int clv_sink_finish(clv_sink *s, int ok, int64_t *mic_packets, clv_msg *mic_note, clv_msg *msg)
{
    if (mic_note)
        mic_note->text[0] = 0;
    if (!s->finished) {
        s->finished = 1;
        if (ok) {
            /* Before the end item; the sound ends where the frames do. */
            int64_t n = clv_mic_stop(s->mic, s->video_end, mic_note);
            if (mic_packets)
                *mic_packets = n;
            clv_queue_push(s->queue, CLV_ITEM_END, NULL);
        } else {
            clv_queue_abort(s->queue);
        }
        s->result = clv_encoder_finish(s->enc, &s->result_msg);
    }
    if (s->result && msg)
        *msg = s->result_msg;
    return s->result;
}

void clv_sink_close(clv_sink *s)
{
    if (!s)
        return;
    if (s->queue)
        clv_queue_abort(s->queue); /* a push the microphone waits on returns */
    clv_mic_close(s->mic);
    clv_encoder_close(s->enc);
    clv_queue_destroy(s->queue);
    sws_freeContext(s->sws);
    av_buffer_pool_uninit(&s->pool); /* freed once the last frame returns its buffer */
    if (s->times)
        pthread_mutex_destroy(&s->times->lock);
    free(s->times);
    free(s);
}
