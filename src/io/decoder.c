/* decoder.c - the decoder thread: demuxes the input, decodes its best video
 * stream (frame threads) and hands frames and the other streams' packets
 * on through a bounded queue, in demux order. */
#include "io.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libavdevice/avdevice.h>
#include <libavutil/avutil.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>

/* Decoded frames in the caller's memory (clv_decoder_set_memory): a pool of
 * its blocks, each known by its first byte so that a frame's block can be
 * found. It lives while the decoder or any block does. */
typedef struct frame_pool {
    pthread_mutex_t lock; /* guards refs and the blocks */
    int refs;             /* the decoder's, and one per block */
    clv_frame_memory mem;
    struct pool_block {
        const uint8_t *pixels;
        void *block;
    } * blocks;
    int count, cap;
    AVBufferPool *pool; /* made by the first get_buffer2 (under the lock) */
    size_t size;        /* its blocks' size; frames of another size get FFmpeg's memory */
    int failed;         /* no block could be had: FFmpeg's memory from then on */
} frame_pool;

struct clv_decoder {
    clv_input_options opt;
    char path[1024];
    AVFormatContext *fmt;
    AVCodecContext *codec;
    int video;
    int64_t shift_us; /* subtracted from every timestamp: file start + -ss */
    /* shift_us at opening, which the decoder's frames are shifted by: a
     * rejoin (below) moves shift_us, and the video packets carry the
     * difference into the decoder, so that frames still in it keep their
     * times. */
    int64_t base_shift_us;
    int64_t fault;   /* CLVID_FAULT=decoder:N: fail after N frames */
    int64_t skip_us; /* after a seek: frames and packets before this (absolute) are dropped */
    pthread_t thread;
    int started;
    clv_queue *out;
    clv_queue *packets; /* the other streams' packets: out, or a queue of their own */
    /* Written by the thread, read after the join: */
    int error;
    char message[1400];
    _Atomic int64_t busy_ns;         /* written by the thread as it goes, read by anyone */
    _Atomic int64_t stale;           /* live: frames dropped for newer ones */
    _Atomic int64_t corrupt_packets; /* video packets the decoder refused */
    _Atomic int64_t corrupt_frames;  /* frames it flagged as damaged (concealed) */
    _Atomic int max_queued;          /* live: the most frames the queue held */
    _Atomic int64_t clock_base_us;   /* read time of pts 0, least over the frames read
                                      * (INT64_MIN: none yet) */
    int64_t busy_base_ns;            /* busy_ns when the thread (re)started; the thread's */
    int64_t frames;
    /* -re: clv_io_seconds() at which the timeline's 0 (shift_us) is due, or
     * 0 before the first packet (the thread's); stopping is set by
     * clv_decoder_stop so that a paced wait ends at once. */
    double pace_origin;
    _Atomic int stopping;
    frame_pool *frame_pool; /* clv_decoder_set_memory, or NULL */
    clv_media_desc media;   /* what the input is: filled by describe() on opening */
    /* media.mastering and media.light_level point here when the input has them. */
    AVMasteringDisplayMetadata mastering;
    AVContentLightMetadata light_level;
    /* Packets read on opening to find the first frame's HDR metadata
     * (probe_first_frame); the thread takes them, in order, before reading
     * more. A seek drops them. */
    AVPacket **pending;
    int pending_count, pending_next;
    clv_stream_desc *copies; /* media.streams */
    /* Network inputs: a blocking read or opening ends at deadline_us
     * (av_gettime_relative; INT64_MAX: none), armed for stall_us (0: never)
     * around each read. The interrupt callback (interrupted) is called by
     * whichever thread does the I/O, FFmpeg's own (UDP's receiver) too;
     * stalled says it fired for the deadline. */
    int64_t stall_us;
    _Atomic int64_t deadline_us;
    _Atomic int stalled;
    /* How the thread ended (written by it, read after the join). */
    int source_ended;
    char end_why[200];
    /* The timeline across reconnections (clv_decoder_reconnect), on the
     * output's timeline in microseconds: the end of the last frame and of
     * the last sound packet given out, the last frame's time; the thread's
     * between starts. rejoin: the next packet with a timestamp sets
     * shift_us so that it lands at resume_us; rejoined: a reconnection
     * happened, so anything that would go back in time is dropped;
     * wait_key: video packets are dropped up to a keyframe. */
    int64_t video_end_us, audio_end_us, last_video_us, resume_us;
    int rejoin, rejoined, wait_key;
    /* Network inputs: each stream's last decode time read (microseconds,
     * the input's own; INT64_MIN: none yet), to see a sender that started
     * again within the stall time (its timestamps jump); and each sound or
     * subtitle stream's last packet time given out (the output's). */
    int network;
    int64_t *last_in_us, *last_out_us;
    /* What media points to, copied (keep_description) before the first
     * connection is closed, and freed with the decoder. */
    int kept;
    AVCodecParameters **kept_par;
    AVDictionary **kept_meta;
    AVDictionary *kept_video_meta, *kept_format_meta;
    AVPacketSideData *kept_side;
    /* Hardware decoding (clv_input_options.hwaccel; setup_hwaccel): the
     * device, the decoder's frames' format on it, and the format they are
     * transferred to (media.pix_fmt); hw_device is NULL for software. */
    AVBufferRef *hw_device;
    enum AVPixelFormat hw_pix_fmt, hw_sw_fmt;
    const char *hw_name;
    AVFrame *hw_frame; /* the transfer's frame (the thread's) */
    int probed;        /* the first frame was decoded on opening (its HDR metadata taken) */
    char hw_why[600];  /* -hwaccel auto decoding in software: why (media.hwaccel_fallback) */
};

/* FFmpeg's interrupt callback: a stop, the caller's cancel flag or the
 * deadline ends a blocking read or opening. */
static int interrupted(void *opaque)
{
    clv_decoder *d = opaque;
    if (atomic_load(&d->stopping) || (d->opt.cancel && *d->opt.cancel))
        return 1;
    int64_t deadline = atomic_load(&d->deadline_us);
    if (deadline != INT64_MAX && av_gettime_relative() > deadline) {
        atomic_store(&d->stalled, 1);
        return 1;
    }
    return 0;
}

/* The deadline: after us microseconds (0: none). */
static void arm(clv_decoder *d, int64_t us)
{
    atomic_store(&d->deadline_us, us > 0 ? av_gettime_relative() + us : INT64_MAX);
}

int clv_io_network_url(const char *path)
{
    static const char *const schemes[] = {"rtsp",  "rtsps",  "srt",    "rtmp", "rtmps", "rtmpt",
                                          "rtmpe", "rtmpte", "rtmpts", "udp",  "rtp",   "tcp",
                                          "http",  "https",  "hls",    "mmsh", "mmst",  NULL};
    const char *sep = path ? strstr(path, "://") : NULL;
    if (!sep)
        return 0;
    if (!strncmp(path, "hls+", 4)) /* hls+http://: HLS forced */
        path += 4;
    size_t n = (size_t)(sep - path);
    for (int i = 0; schemes[i]; i++)
        if (strlen(schemes[i]) == n && !strncmp(path, schemes[i], n))
            return 1;
    return 0;
}

int clv_hwaccel_check(const char *name, clv_msg *msg)
{
    if (!name || !strcmp(name, "none") || !strcmp(name, "auto") ||
        av_hwdevice_find_type_by_name(name) != AV_HWDEVICE_TYPE_NONE)
        return 0;
    char list[400] = "none, auto";
    for (enum AVHWDeviceType t = av_hwdevice_iterate_types(AV_HWDEVICE_TYPE_NONE);
         t != AV_HWDEVICE_TYPE_NONE; t = av_hwdevice_iterate_types(t)) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, ", %s", av_hwdevice_get_type_name(t));
    }
    return clv_io_fail(msg, CLV_EOPTION, "-hwaccel %.100s: expected %s", name, list);
}

void clv_decode_text(const clv_media_desc *m, char *out, size_t size)
{
    if (m->hwaccel)
        snprintf(out, size, "%s (%s)", m->hwaccel, avcodec_get_name(m->codec_id));
    else if (m->hwaccel_fallback)
        snprintf(out, size, "software (-hwaccel auto: %s)", m->hwaccel_fallback);
    else
        snprintf(out, size, "software");
}

static void frame_pool_unref(frame_pool *fp)
{
    pthread_mutex_lock(&fp->lock);
    int last = --fp->refs == 0;
    pthread_mutex_unlock(&fp->lock);
    if (!last)
        return;
    free(fp->blocks);
    pthread_mutex_destroy(&fp->lock);
    free(fp);
}

/* Finds (and with remove, forgets) the block starting at pixels. */
static void *frame_pool_find(frame_pool *fp, const uint8_t *pixels, int remove)
{
    void *block = NULL;
    pthread_mutex_lock(&fp->lock);
    for (int i = 0; i < fp->count; i++)
        if (fp->blocks[i].pixels == pixels) {
            block = fp->blocks[i].block;
            if (remove)
                fp->blocks[i] = fp->blocks[--fp->count];
            break;
        }
    pthread_mutex_unlock(&fp->lock);
    return block;
}

/* The pool's free: the block goes back to its owner. */
static void pool_block_free(void *opaque, uint8_t *data)
{
    frame_pool *fp = opaque;
    void *block = frame_pool_find(fp, data, 1);
    if (block)
        fp->mem.free(block);
    frame_pool_unref(fp);
}

static AVBufferRef *pool_block_alloc(void *opaque, size_t size)
{
    frame_pool *fp = opaque;
    uint8_t *pixels = NULL;
    void *block = fp->mem.alloc(fp->mem.user, size, &pixels);
    if (!block)
        return NULL;
    int kept = 0;
    pthread_mutex_lock(&fp->lock);
    if (fp->count == fp->cap) {
        int cap = fp->cap ? 2 * fp->cap : 16;
        struct pool_block *grown = realloc(fp->blocks, (size_t)cap * sizeof *grown);
        if (grown) {
            fp->blocks = grown;
            fp->cap = cap;
        }
    }
    if ((uintptr_t)pixels % 64 == 0 && fp->count < fp->cap) {
        fp->blocks[fp->count++] = (struct pool_block){pixels, block};
        fp->refs++;
        kept = 1;
    }
    pthread_mutex_unlock(&fp->lock);
    AVBufferRef *ref = kept ? av_buffer_create(pixels, size, pool_block_free, fp, 0) : NULL;
    if (!ref) {
        if (kept) {
            frame_pool_find(fp, pixels, 1);
            frame_pool_unref(fp);
        }
        fp->mem.free(block);
    }
    return ref;
}

/* The Y'CbCr layouts the stage reads in place (clv_stage_submit_block). */
static int block_format(enum AVPixelFormat fmt)
{
    return fmt == AV_PIX_FMT_YUV420P || fmt == AV_PIX_FMT_YUVJ420P || fmt == AV_PIX_FMT_NV12 ||
           fmt == AV_PIX_FMT_YUV420P10LE || fmt == AV_PIX_FMT_P010LE || fmt == AV_PIX_FMT_P016LE ||
           fmt == AV_PIX_FMT_YUV444P16LE;
}

/* f (its format, width and height set) in one block of the caller's, each plane and row 64-byte
 * aligned, for a picture of w x h (the decoder's padding included): 0, or -1 when no block is to
 * be had (FFmpeg's memory then). */
static int pool_buffer(frame_pool *fp, AVFrame *f, int w, int h)
{
    enum AVPixelFormat fmt = f->format;
    int linesize[4];
    if (av_image_fill_linesizes(linesize, fmt, w) < 0)
        return -1;
    ptrdiff_t lines[4] = {0};
    for (int i = 0; i < 4; i++)
        lines[i] = linesize[i] = (linesize[i] + 63) & ~63;
    size_t plane[4];
    if (av_image_fill_plane_sizes(plane, fmt, h, lines) < 0)
        return -1;
    size_t offset[4], total = 0;
    for (int i = 0; i < 4; i++) {
        offset[i] = total;
        total += (plane[i] + 63) & ~(size_t)63;
    }
    total += 64; /* SIMD reads past the last row, as FFmpeg's own pools allow */
    /* Frame threads may ask at once: the pool is set up under the lock,
     * and taken from outside it (its allocations take the lock). */
    pthread_mutex_lock(&fp->lock);
    if (!fp->pool && !fp->failed) {
        fp->size = total;
        fp->pool = av_buffer_pool_init2(total, fp, pool_block_alloc, NULL);
        fp->failed = !fp->pool;
    }
    AVBufferPool *pool = !fp->failed && total == fp->size ? fp->pool : NULL;
    pthread_mutex_unlock(&fp->lock);
    AVBufferRef *buf = pool ? av_buffer_pool_get(pool) : NULL;
    if (!buf) {
        if (pool) { /* no block to be had: FFmpeg's memory from now on */
            pthread_mutex_lock(&fp->lock);
            fp->failed = 1;
            pthread_mutex_unlock(&fp->lock);
        }
        return -1;
    }
    f->buf[0] = buf;
    for (int i = 0; i < 4; i++) {
        f->data[i] = plane[i] ? buf->data + offset[i] : NULL;
        f->linesize[i] = plane[i] ? linesize[i] : 0;
    }
    f->extended_data = f->data;
    return 0;
}

/* get_buffer2: frames of a block_format in one block of the caller's (pool_buffer), the picture
 * padded as the decoder asks (avcodec_align_dimensions2); anything else as FFmpeg would. */
static int get_frame_buffer(AVCodecContext *c, AVFrame *f, int flags)
{
    const clv_decoder *d = c->opaque;
    frame_pool *fp = d ? d->frame_pool : NULL;
    if (!fp || !(c->codec->capabilities & AV_CODEC_CAP_DR1) || c->hw_frames_ctx ||
        !block_format(f->format))
        return avcodec_default_get_buffer2(c, f, flags);
    int w = f->width, h = f->height, align[AV_NUM_DATA_POINTERS];
    avcodec_align_dimensions2(c, &w, &h, align);
    if (pool_buffer(fp, f, w, h))
        return avcodec_default_get_buffer2(c, f, flags);
    return 0;
}

int clv_decoder_set_memory(clv_decoder *d, const clv_frame_memory *memory)
{
    if (!memory)
        return 0;
    frame_pool *fp = calloc(1, sizeof *fp);
    if (!fp || pthread_mutex_init(&fp->lock, NULL)) {
        free(fp);
        return CLV_ENOMEM;
    }
    fp->refs = 1;
    fp->mem = *memory;
    d->frame_pool = fp;
    d->codec->get_buffer2 = get_frame_buffer;
    return 0;
}

void *clv_decoder_frame_block(const clv_decoder *d, const AVFrame *frame, const uint8_t **base)
{
    if (!d->frame_pool || !frame->buf[0] || frame->buf[1])
        return NULL;
    *base = frame->buf[0]->data;
    return frame_pool_find(d->frame_pool, frame->buf[0]->data, 0);
}

/* The demuxer: -f's input format (libavdevice's too), the capture and
 * live options, and the streams read. Names the input in every error. */
static int open_format(clv_decoder *d, const clv_input_options *o, AVFormatContext **fmt,
                       int64_t timeout_us, clv_msg *msg)
{
    char err[128];
    const AVInputFormat *ifmt = NULL;
    avdevice_register_all(); /* lavfi, v4l2, x11grab, ... for -f */
    if (o->format && !(ifmt = av_find_input_format(o->format)))
        return clv_io_fail(msg, CLV_EOPTION,
                           "-f %s: no such input format (`ffmpeg -formats` lists them)", o->format);
    AVDictionary *opts = NULL;
    if (o->video_size)
        av_dict_set(&opts, "video_size", o->video_size, 0);
    if (o->framerate)
        av_dict_set(&opts, "framerate", o->framerate, 0);
    if (o->input_format)
        av_dict_set(&opts, "input_format", o->input_format, 0);
    if (o->live && clv_io_network_url(o->path)) {
        /* A network stream joined midway tells its video's size only at its
         * next keyframe, which may be 2 s away: the probe may read that far
         * (it stops as soon as every stream is known). What it read is
         * kept and given out (no nobuffer, which drops it: at each
         * reconnection the output would lose that much). */
        av_dict_set(&opts, "probesize", "2000000", 0);
        av_dict_set(&opts, "analyzeduration", "2500000", 0);
    } else if (o->live) {
        av_dict_set(&opts, "fflags", "nobuffer", 0);
        av_dict_set(&opts, "probesize", "32768", 0);
        av_dict_set(&opts, "analyzeduration", "100000", 0);
    }
    if (o->rtsp_transport)
        av_dict_set(&opts, "rtsp_transport", o->rtsp_transport, 0);
    if (!(*fmt = avformat_alloc_context())) {
        av_dict_free(&opts);
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    }
    (*fmt)->interrupt_callback = (AVIOInterruptCB){interrupted, d};
    atomic_store(&d->stalled, 0);
    arm(d, timeout_us);
    /* "-" is standard input, as in ffmpeg. */
    const char *url = !strcmp(o->path, "-") ? "pipe:0" : o->path;
    int r = avformat_open_input(fmt, url, ifmt, &opts), streams = 0;
    av_dict_free(&opts);
    if (r >= 0 && (streams = 1, r = avformat_find_stream_info(*fmt, NULL)) >= 0 &&
        atomic_load(&d->stalled))
        r = AVERROR_EXIT; /* the probe was cut short: what it found is not to be trusted */
    if (r < 0 && *fmt)
        avformat_close_input(fmt);
    arm(d, 0);
    if (r < 0 && atomic_load(&d->stalled))
        return clv_io_fail(msg, CLV_EIO, "cannot open input '%s': nothing came in %.1f s", o->path,
                           (double)timeout_us / 1e6);
    if (r < 0)
        return clv_io_fail(msg, CLV_EIO,
                           streams ? "input '%s': cannot read its streams: %s"
                                   : "cannot open input '%s': %s",
                           o->path, clv_av_err(r, err, sizeof err));
    return 0;
}

/* The sound and subtitle streams, which the encoder copies or encodes
 * again and the player plays. */
static int describe_streams(clv_decoder *d)
{
    clv_media_desc *m = &d->media;
    m->stream_count = (int)d->fmt->nb_streams;
    d->copies = calloc(d->fmt->nb_streams ? d->fmt->nb_streams : 1, sizeof *d->copies);
    if (!d->copies)
        return CLV_ENOMEM;
    for (int i = 0; i < m->stream_count; i++) {
        const AVStream *s = d->fmt->streams[i];
        enum AVMediaType type = s->codecpar->codec_type;
        if (i == d->video || (type != AVMEDIA_TYPE_AUDIO && type != AVMEDIA_TYPE_SUBTITLE))
            continue;
        d->copies[m->stream_desc_count++] = (clv_stream_desc){.index = i,
                                                              .type = type,
                                                              .par = s->codecpar,
                                                              .time_base = s->time_base,
                                                              .disposition = s->disposition,
                                                              .metadata = s->metadata};
    }
    m->streams = d->copies;
    int audio = av_find_best_stream(d->fmt, AVMEDIA_TYPE_AUDIO, -1, d->video, NULL, 0);
    m->audio = audio >= 0 ? audio : -1;
    return 0;
}

/* Frees the packets read on opening that the thread has not taken. */
static void drop_pending(clv_decoder *d)
{
    for (int i = d->pending_next; i < d->pending_count; i++)
        av_packet_free(&d->pending[i]);
    d->pending_count = d->pending_next = 0;
}

/* Takes the HDR metadata that media lacks so far from frame's side data. */
static void take_frame_hdr(clv_decoder *d, const AVFrame *frame)
{
    clv_media_desc *m = &d->media;
    const AVFrameSideData *sd =
        av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA);
    if (!m->mastering && sd && sd->size >= sizeof d->mastering) {
        memcpy(&d->mastering, sd->data, sizeof d->mastering);
        m->mastering = &d->mastering;
    }
    sd = av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL);
    if (!m->light_level && sd && sd->size >= sizeof d->light_level) {
        memcpy(&d->light_level, sd->data, sizeof d->light_level);
        m->light_level = &d->light_level;
    }
}

/* The most packets (of all streams) read on opening to reach the first
 * frame: a few seconds of sound and a long reorder delay fit. */
enum { PROBE_PACKETS = 128 };

/* av_read_frame with the stall deadline armed (a network input that sends
 * nothing ends the read). */
static int read_armed(clv_decoder *d, AVPacket *pkt)
{
    arm(d, d->stall_us);
    int r = av_read_frame(d->fmt, pkt);
    arm(d, 0);
    return r;
}

/* get_format with hardware decoding: the device's format where the
 * stream's codec and profile have one, else software (FFmpeg asks again
 * without it when its hardware decoder does not take the stream). */
static enum AVPixelFormat hw_get_format(AVCodecContext *c, const enum AVPixelFormat *formats)
{
    const clv_decoder *d = c->opaque;
    for (const enum AVPixelFormat *p = formats; *p != AV_PIX_FMT_NONE; p++)
        if (*p == d->hw_pix_fmt)
            return *p;
    for (const enum AVPixelFormat *p = formats; *p != AV_PIX_FMT_NONE; p++) {
        const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(*p);
        if (desc && !(desc->flags & AV_PIX_FMT_FLAG_HWACCEL))
            return *p;
    }
    return AV_PIX_FMT_NONE;
}

/* Decodes the first frame into frame (*found 1), with a decoder of its own
 * on one thread (no frame threads to wait for), on device when not NULL
 * (d->hw_pix_fmt its format): for the HDR metadata that HEVC and AV1
 * streams carry only in their bitstream (SEI, metadata OBUs), and to see
 * that a hardware decoder takes the stream. The packets read stay for the
 * thread, so nothing is read twice and pipes work; a later probe decodes
 * them again before reading more. Returns 0 (also when no frame came: the
 * input then has no such metadata) or CLV_ENOMEM. */
static int probe_first_frame(clv_decoder *d, AVBufferRef *device, AVFrame *frame, int *found)
{
    const AVStream *st = d->fmt->streams[d->video];
    AVCodecContext *c = avcodec_alloc_context3(d->codec->codec);
    if (!d->pending)
        d->pending = calloc(PROBE_PACKETS, sizeof *d->pending);
    int err = !c || !d->pending ? CLV_ENOMEM : 0, ended = 0, next = 0;
    *found = 0;
    if (!err && avcodec_parameters_to_context(c, st->codecpar) < 0)
        err = CLV_ENOMEM;
    if (!err) {
        c->thread_count = 1;
        c->pkt_timebase = st->time_base;
        c->opaque = d;
        if (device) {
            c->get_format = hw_get_format;
            if (!(c->hw_device_ctx = av_buffer_ref(device)))
                err = CLV_ENOMEM;
        }
    }
    /* A decoder that does not open here says why in the thread. */
    int opened = !err && avcodec_open2(c, d->codec->codec, NULL) >= 0;
    while (opened && !*found && !ended) {
        AVPacket *pkt = NULL;
        if (next < d->pending_count) {
            pkt = d->pending[next++];
        } else if (d->pending_count == PROBE_PACKETS) {
            break;
        } else if (!(pkt = av_packet_alloc())) {
            err = CLV_ENOMEM;
            break;
        } else if (read_armed(d, pkt) < 0) {
            av_packet_free(&pkt); /* the thread meets the end or error again */
        } else {
            d->pending[d->pending_count++] = pkt;
            next++;
        }
        if (!pkt) {
            ended = 1;
            avcodec_send_packet(c, NULL); /* for the frames it holds back */
        } else if (pkt->stream_index != d->video || avcodec_send_packet(c, pkt) < 0) {
            continue;
        }
        *found = avcodec_receive_frame(c, frame) == 0;
    }
    if (*found)
        take_frame_hdr(d, frame);
    d->probed = 1;
    avcodec_free_context(&c);
    return err;
}

/* The decoder's format for frames on a device of type t, or NONE when
 * codec has no hardware decoding there. */
static enum AVPixelFormat hw_format(const AVCodec *codec, enum AVHWDeviceType t)
{
    for (int i = 0;; i++) {
        const AVCodecHWConfig *h = avcodec_get_hw_config(codec, i);
        if (!h)
            return AV_PIX_FMT_NONE;
        if ((h->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) && h->device_type == t)
            return h->pix_fmt;
    }
}

/* Hardware decoding with devices of type t: opens one (hwaccel_device),
 * decodes the stream's first frame on it and reads it back. 0 with
 * d->hw_device set when all went well; 1 with why (size bytes) when it
 * cannot be had; CLV_ENOMEM. */
static int hw_try(clv_decoder *d, enum AVHWDeviceType t, char *why, size_t size)
{
    char err[128];
    const char *name = av_hwdevice_get_type_name(t), *where = d->opt.hwaccel_device;
    const AVCodec *codec = d->codec->codec;
    const AVCodecParameters *par = d->fmt->streams[d->video]->codecpar;
    const char *profile = avcodec_profile_name(par->codec_id, par->profile);
    enum AVPixelFormat hw = hw_format(codec, t);
    if (hw == AV_PIX_FMT_NONE) {
        snprintf(why, size, "this FFmpeg has no %s decoding of %s video", name, codec->name);
        return 1;
    }
    AVBufferRef *device = NULL;
    int r = av_hwdevice_ctx_create(&device, t, where, NULL, 0);
    if (r < 0) {
        const char *needs = t == AV_HWDEVICE_TYPE_CUDA    ? "; it needs an NVIDIA GPU and its "
                                                            "driver's libcuda.so.1"
                            : t == AV_HWDEVICE_TYPE_VAAPI ? "; it needs a render node "
                                                            "(/dev/dri/renderD128) and its VA "
                                                            "driver"
                                                          : "";
        snprintf(why, size, "no %s device%s%s could be opened (%s%s)", name, where ? " " : "",
                 where ? where : "", clv_av_err(r, err, sizeof err), needs);
        return 1;
    }
    d->hw_pix_fmt = hw;
    AVFrame *frame = av_frame_alloc(), *sw = av_frame_alloc();
    int found = 0, status = !frame || !sw ? CLV_ENOMEM : 0;
    if (!status)
        status = probe_first_frame(d, device, frame, &found);
    if (!status && !found) {
        snprintf(why, size, "the %s decoder gave no frame of the %s stream", name, codec->name);
        status = 1;
    } else if (!status && frame->format != hw) {
        snprintf(why, size, "the %s decoder does not take this %s stream (%s%s%dx%d %s)", name,
                 codec->name, profile ? profile : "", profile ? ", " : "", par->width, par->height,
                 av_get_pix_fmt_name(par->format) ? av_get_pix_fmt_name(par->format) : "?");
        status = 1;
    } else if (!status && (r = av_hwframe_transfer_data(sw, frame, 0)) < 0) {
        snprintf(why, size, "the %s frames cannot be read back (%s)", name,
                 clv_av_err(r, err, sizeof err));
        status = 1;
    }
    if (!status) {
        d->hw_device = device;
        d->hw_sw_fmt = sw->format;
        d->hw_name = name;
    } else {
        av_buffer_unref(&device);
    }
    av_frame_free(&frame);
    av_frame_free(&sw);
    return status;
}

/* -hwaccel: a named method, which must work (else CLV_EIO naming it and
 * why), or auto: cuda, vaapi, then the other methods this FFmpeg has, the
 * first that decodes the stream, else software. 0 or a CLV_E* code. */
static int setup_hwaccel(clv_decoder *d, clv_msg *msg)
{
    const char *want = d->opt.hwaccel;
    if (!want || !strcmp(want, "none"))
        return 0;
    if (strcmp(want, "auto")) {
        enum AVHWDeviceType t = av_hwdevice_find_type_by_name(want);
        char why[400];
        int err = t == AV_HWDEVICE_TYPE_NONE ? clv_hwaccel_check(want, msg)
                                             : hw_try(d, t, why, sizeof why);
        if (err == 1)
            return clv_io_fail(msg, CLV_EIO, "-hwaccel %s: '%.800s': %s", want, d->path, why);
        return err ? err : 0;
    }
    enum AVHWDeviceType order[32] = {AV_HWDEVICE_TYPE_CUDA, AV_HWDEVICE_TYPE_VAAPI};
    int n = 2;
    for (enum AVHWDeviceType t = av_hwdevice_iterate_types(AV_HWDEVICE_TYPE_NONE);
         t != AV_HWDEVICE_TYPE_NONE && n < 32; t = av_hwdevice_iterate_types(t))
        if (t != AV_HWDEVICE_TYPE_CUDA && t != AV_HWDEVICE_TYPE_VAAPI)
            order[n++] = t;
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        char why[400];
        if (hw_format(d->codec->codec, order[i]) == AV_PIX_FMT_NONE)
            continue; /* nothing to open */
        int err = hw_try(d, order[i], why, sizeof why);
        if (err != 1)
            return err;
        av_log(NULL, AV_LOG_VERBOSE, "-hwaccel auto: %s\n", why);
        if (used < sizeof d->hw_why - 1)
            used += (size_t)snprintf(d->hw_why + used, sizeof d->hw_why - used, "%s%s",
                                     used ? ", " : "none of ", av_hwdevice_get_type_name(order[i]));
    }
    if (used && used < sizeof d->hw_why - 1)
        snprintf(d->hw_why + used, sizeof d->hw_why - used, " decodes it here");
    else if (!used)
        snprintf(d->hw_why, sizeof d->hw_why, "this FFmpeg has no hardware decoding of %s video",
                 d->codec->codec->name);
    d->media.hwaccel_fallback = d->hw_why;
    return 0; /* software */
}

/* The best video stream's decoder, with frame and slice threads (slices only live), or on one
 * thread on a device (-hwaccel, setup_hwaccel). */
static int open_video_decoder(clv_decoder *d, clv_msg *msg)
{
    char err[128];
    const AVCodec *dec = NULL;
    d->video = av_find_best_stream(d->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &dec, 0);
    if (d->video < 0)
        return clv_io_fail(msg, CLV_EIO, "input '%s' has no video stream%s", d->path,
                           d->video == AVERROR_DECODER_NOT_FOUND ? " this FFmpeg can decode" : "");
    AVStream *st = d->fmt->streams[d->video];
    d->codec = avcodec_alloc_context3(dec);
    if (!d->codec || avcodec_parameters_to_context(d->codec, st->codecpar) < 0)
        return clv_io_fail(msg, CLV_EIO, "input '%s': cannot set up the %s decoder", d->path,
                           dec->name);
    d->codec->thread_count = 0;
    /* Frame threads hold a frame back per thread (two frames' latency on
     * two cores): a live source's frames are decoded in slices only. */
    d->codec->thread_type = d->opt.live ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE;
    d->codec->pkt_timebase = st->time_base;
    d->codec->opaque = d;
    int r = setup_hwaccel(d, msg);
    if (r)
        return r;
    if (d->hw_device) { /* one thread, as ffmpeg decodes with a hwaccel */
        d->codec->thread_count = 1;
        d->codec->get_format = hw_get_format;
        if (!(d->codec->hw_device_ctx = av_buffer_ref(d->hw_device)) ||
            !(d->hw_frame = av_frame_alloc()))
            return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    }
    r = avcodec_open2(d->codec, dec, NULL);
    if (r < 0)
        return clv_io_fail(msg, CLV_EIO, "input '%s': cannot open the %s decoder: %s", d->path,
                           dec->name, clv_av_err(r, err, sizeof err));
    if (d->codec->width < 1 || d->codec->height < 1)
        return clv_io_fail(msg, CLV_EIO, "input '%s': the video stream has no size", d->path);
    return 0;
}

/* The mastering display and content light level: the stream's side data
 * (Matroska's and MP4's boxes), else the first frame's. Only PQ and HLG
 * video is probed: the metadata means nothing for other curves, and SDR
 * and live inputs pay nothing. */
static int describe_hdr(clv_decoder *d)
{
    const AVStream *st = d->fmt->streams[d->video];
    clv_media_desc *m = &d->media;
    size_t size = 0;
    const uint8_t *sd = av_stream_get_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size);
    if (sd && size >= sizeof d->mastering) {
        memcpy(&d->mastering, sd, sizeof d->mastering);
        m->mastering = &d->mastering;
    }
    sd = av_stream_get_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size);
    if (sd && size >= sizeof d->light_level) {
        memcpy(&d->light_level, sd, sizeof d->light_level);
        m->light_level = &d->light_level;
    }
    int hdr = m->transfer == AVCOL_TRC_SMPTE2084 || m->transfer == AVCOL_TRC_ARIB_STD_B67;
    if (!hdr || d->opt.live || (m->mastering && m->light_level) || d->probed)
        return 0;
    AVFrame *frame = av_frame_alloc();
    int found;
    int err = frame ? probe_first_frame(d, NULL, frame, &found) : CLV_ENOMEM;
    av_frame_free(&frame);
    return err;
}

/* Fills d->media from the opened demuxer and decoder: everything the rest
 * of a run sets up from. */
static int describe(clv_decoder *d)
{
    AVStream *st = d->fmt->streams[d->video];
    const AVCodecContext *c = d->codec;
    clv_media_desc *m = &d->media;
    m->path = d->path;
    m->live = d->opt.live;
    m->video_index = d->video;
    m->codec_id = c->codec_id;
    m->width = c->width;
    m->height = c->height;
    m->pix_fmt = d->hw_device ? d->hw_sw_fmt : c->pix_fmt;
    m->hwaccel = d->hw_name;
    m->coded_pix_fmt = c->pix_fmt;
    m->rgb = clv_av_pixfmt_is_rgb(c->pix_fmt);
    m->alpha = clv_av_pixfmt_has_alpha(c->pix_fmt);
    m->color = clv_stream_color(c);
    m->primaries = c->color_primaries;
    m->transfer = c->color_trc;
    clv_orientation_probe(st, c->codec_id, d->fmt->url, &m->rotation, &m->hflip);
    m->time_base = st->time_base;
    AVRational rate = av_guess_frame_rate(d->fmt, st, NULL);
    m->frame_rate = rate.num > 0 && rate.den > 0 ? rate : (AVRational){25, 1};
    m->avg_frame_rate = st->avg_frame_rate;
    m->r_frame_rate = st->r_frame_rate;
    m->sample_aspect = av_guess_sample_aspect_ratio(d->fmt, st, NULL);
    m->disposition = st->disposition;
    m->cover = (st->disposition & AV_DISPOSITION_ATTACHED_PIC) != 0;
    m->metadata = st->metadata;
    m->side_data = st->side_data;
    m->side_data_count = st->nb_side_data;
    m->duration_us = d->fmt->duration > 0 ? d->fmt->duration : 0;
    m->format_metadata = d->fmt->metadata;
    int err = describe_hdr(d);
    return err ? err : describe_streams(d);
}

/* How long opening a network input may wait for its first packets: the
 * stall time, at least 5 s (a sender that has only just started); 0 for
 * other inputs. */
static int64_t open_wait(const clv_decoder *d)
{
    return d->stall_us > 0 && d->stall_us < 5000000 ? 5000000 : d->stall_us;
}

int clv_decoder_open(const clv_input_options *options, clv_decoder **out, clv_msg *msg)
{
    *out = NULL;
    clv_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    d->opt = *options;
    snprintf(d->path, sizeof d->path, "%s", options->path);
    d->opt.path = d->path;
    d->video = -1;
    d->skip_us = INT64_MIN;
    atomic_init(&d->clock_base_us, INT64_MIN);
    d->fault = clv_fault_after("decoder");
    atomic_init(&d->deadline_us, INT64_MAX);
    d->stall_us = options->stall_us > 0               ? options->stall_us
                  : clv_io_network_url(options->path) ? 5000000
                                                      : 0;
    d->video_end_us = d->audio_end_us = d->last_video_us = INT64_MIN;
    d->network = clv_io_network_url(options->path);
    d->wait_key = d->network; /* joined mid-stream: the picture starts at a keyframe */
    int err = open_format(d, options, &d->fmt, open_wait(d), msg);
    if (!err)
        err = open_video_decoder(d, msg);
    if (!err && !(d->last_in_us = malloc(2 * d->fmt->nb_streams * sizeof *d->last_in_us + 1)))
        err = clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    if (!err)
        d->last_out_us = d->last_in_us + d->fmt->nb_streams;
    for (unsigned i = 0; !err && i < 2 * d->fmt->nb_streams; i++)
        d->last_in_us[i] = INT64_MIN;
    if (!err && describe(d))
        err = clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    if (err) {
        clv_decoder_close(d);
        return err;
    }
    int64_t start = d->fmt->start_time != AV_NOPTS_VALUE ? d->fmt->start_time : 0;
    d->shift_us = d->base_shift_us = start + options->start_us;
    if (options->start_us > 0) {
        if (avformat_seek_file(d->fmt, -1, INT64_MIN, d->shift_us, d->shift_us, 0) < 0)
            av_log(NULL, AV_LOG_WARNING, "cannot seek in '%s'; decoding from the start\n",
                   options->path);
        else
            drop_pending(d); /* read from the start, before the seek */
    }
    *out = d;
    return 0;
}

const clv_media_desc *clv_decoder_media(const clv_decoder *d)
{
    return &d->media;
}

const clv_stream_desc *clv_media_stream(const clv_media_desc *m, int index)
{
    for (int i = 0; i < m->stream_desc_count; i++)
        if (m->streams[i].index == index)
            return &m->streams[i];
    return NULL;
}

/* Time in microseconds from the stream's own timestamp. */
static int64_t to_us(int64_t ts, AVRational tb)
{
    return av_rescale_q(ts, tb, AV_TIME_BASE_Q);
}

/* -1 before the range, 1 after it, 0 inside. */
static int place(const clv_decoder *d, int64_t us, int64_t shift)
{
    if ((d->opt.start_us > 0 && us < shift) || us < d->skip_us)
        return -1;
    if (d->opt.duration_us > 0 && us >= shift + d->opt.duration_us)
        return 1;
    return 0;
}

/* -re: waits until the packet's decode time (dts, else pts, from the
 * timeline's 0) is due on the monotonic clock, so that the input is never
 * read ahead of real time, as ffmpeg's -re. The clock starts at the first
 * packet; packets before -ss (negative times) pass at once; the wait is
 * counted as waiting, not decoding, and ends when the decoder is stopped. */
static void pace(clv_decoder *d, const AVPacket *pkt, double *waited)
{
    int64_t ts = pkt->dts != AV_NOPTS_VALUE ? pkt->dts : pkt->pts;
    if (!d->opt.realtime || ts == AV_NOPTS_VALUE)
        return;
    int64_t us = to_us(ts, d->fmt->streams[pkt->stream_index]->time_base) - d->shift_us;
    if (us < 0)
        return;
    double now = clv_io_seconds();
    if (d->pace_origin == 0)
        d->pace_origin = now - (double)us / 1e6;
    double due = d->pace_origin + (double)us / 1e6, begin = now;
    while (now < due && !atomic_load(&d->stopping)) {
        double step = due - now < 0.05 ? due - now : 0.05; /* a stop is seen within 50 ms */
        struct timespec ts_sleep = {0, (long)(step * 1e9)};
        nanosleep(&ts_sleep, NULL);
        now = clv_io_seconds();
    }
    *waited += now - begin;
}

/* Publishes the time spent decoding so far (not waiting on the queue). */
static void account(clv_decoder *d, double begin, double waited)
{
    atomic_store(&d->busy_ns,
                 d->busy_base_ns + (int64_t)((clv_io_seconds() - begin - waited) * 1e9));
}

/* Hardware decoding: frame, on the device, read back into memory in
 * media.pix_fmt (nv12, p010, ...), in place of the device's: straight into
 * one of the caller's blocks (clv_decoder_set_memory) where it gives them,
 * else FFmpeg's memory. 0, or -1 with d->message. */
static int hw_download(clv_decoder *d, AVFrame *frame)
{
    char err[128];
    enum AVPixelFormat want = d->media.pix_fmt;
    if (frame->format != d->hw_pix_fmt) {
        if (frame->format == want)
            return 0;
        /* FFmpeg gave the stream to its software decoder (a change the
         * device does not take): the frames no longer fit the run. */
        d->error = CLV_EIO;
        snprintf(d->message, sizeof d->message,
                 "'%.800s': the %s decoder stopped taking the stream after %lld frames (it came "
                 "as %s); run again with -hwaccel none",
                 d->path, d->hw_name, (long long)d->frames,
                 av_get_pix_fmt_name(frame->format) ? av_get_pix_fmt_name(frame->format) : "?");
        return -1;
    }
    AVFrame *sw = d->hw_frame;
    sw->format = want;
    sw->width = frame->width;
    sw->height = frame->height;
    if (d->frame_pool && block_format(want))
        pool_buffer(d->frame_pool, sw, frame->width, (frame->height + 1) & ~1);
    int r = av_hwframe_transfer_data(sw, frame, 0);
    if (r >= 0)
        r = av_frame_copy_props(sw, frame);
    if (r < 0) {
        av_frame_unref(sw);
        d->error = CLV_EIO;
        snprintf(d->message, sizeof d->message,
                 "'%.800s': %s decoding failed after %lld frames: a frame could not be read "
                 "back (%s); run again with -hwaccel none",
                 d->path, d->hw_name, (long long)d->frames, clv_av_err(r, err, sizeof err));
        return -1;
    }
    av_frame_unref(frame);
    av_frame_move_ref(frame, sw);
    return 0;
}

/* Pushes the frames the decoder has ready; returns 1 when the range or the
 * frame limit is reached, -1 when the queue was aborted. */
static int drain(clv_decoder *d, AVFrame *frame, double begin, double *waited)
{
    AVStream *st = d->fmt->streams[d->video];
    /* A frame that fails to decode (a damaged or cut stream) is one error;
     * the frames after it still come, as ffmpeg's: with frame threads at
     * the end of a cut file the last good frames follow such errors. A
     * run of errors with no frame between ends the loop. */
    int failed = 0;
    for (;;) {
        int r = avcodec_receive_frame(d->codec, frame);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF)
            break;
        if (r < 0) {
            atomic_fetch_add(&d->corrupt_frames, 1);
            if (++failed > 64)
                break;
            continue;
        }
        failed = 0;
        if (frame->decode_error_flags || (frame->flags & AV_FRAME_FLAG_CORRUPT))
            atomic_fetch_add(&d->corrupt_frames, 1);
        int64_t pts = frame->best_effort_timestamp;
        if (pts == AV_NOPTS_VALUE)
            pts = frame->pts;
        if (pts == AV_NOPTS_VALUE)
            pts = 0;
        int where = place(d, to_us(pts, st->time_base), d->base_shift_us);
        if (where < 0) {
            av_frame_unref(frame);
            continue;
        }
        if (where > 0) {
            av_frame_unref(frame);
            return 1;
        }
        if (d->hw_device && hw_download(d, frame)) {
            av_frame_unref(frame);
            return -1;
        }
        frame->pts = pts - av_rescale_q(d->base_shift_us, AV_TIME_BASE_Q, st->time_base);
        int64_t out_us = to_us(frame->pts, st->time_base);
        if (d->rejoined && out_us <= d->last_video_us) { /* after a reconnection: never back */
            av_frame_unref(frame);
            continue;
        }
        d->last_video_us = out_us;
        d->video_end_us = out_us + av_rescale_q(1, av_inv_q(d->media.frame_rate), AV_TIME_BASE_Q);
        int64_t base = frame->reordered_opaque - to_us(frame->pts, st->time_base);
        int64_t seen = atomic_load(&d->clock_base_us);
        if (seen == INT64_MIN || base < seen)
            atomic_store(&d->clock_base_us, base); /* the least delayed read */
        AVFrame *copy = av_frame_alloc();
        if (!copy)
            return -1;
        av_frame_move_ref(copy, frame);
        account(d, begin, *waited);
        double t = clv_io_seconds();
        if (d->opt.drop_stale) {
            int depth = 0, dropped = clv_queue_push_latest(d->out, CLV_ITEM_FRAME, copy, &depth);
            if (dropped < 0)
                return -1;
            atomic_fetch_add(&d->stale, dropped);
            if (depth > atomic_load(&d->max_queued))
                atomic_store(&d->max_queued, depth);
        } else if (clv_queue_push(d->out, CLV_ITEM_FRAME, copy) < 0) {
            return -1;
        }
        *waited += clv_io_seconds() - t;
        d->frames++;
        if (d->opt.max_frames > 0 && d->frames >= d->opt.max_frames)
            return 1;
        if (d->frames == d->fault) {
            d->error = CLV_EIO;
            snprintf(d->message, sizeof d->message, "'%.900s': decoder failed (injected fault)",
                     d->path);
            return -1;
        }
    }
    return 0;
}

/* Why the reading ended (read error r), for clv_decoder_source_ended. */
static void source_end(clv_decoder *d, int r)
{
    char err[128];
    d->source_ended = 1;
    if (atomic_load(&d->stalled))
        snprintf(d->end_why, sizeof d->end_why, "no packet for %.1f s", (double)d->stall_us / 1e6);
    else if (r == AVERROR_EOF)
        snprintf(d->end_why, sizeof d->end_why, "the stream ended");
    else
        snprintf(d->end_why, sizeof d->end_why, "reading failed: %s",
                 clv_av_err(r, err, sizeof err));
    if (r != AVERROR_EOF && !atomic_load(&d->stalled) && !d->media.live &&
        !(d->opt.cancel && *d->opt.cancel))
        av_log(NULL, AV_LOG_WARNING, "'%s': reading stopped: %s\n", d->path,
               clv_av_err(r, err, sizeof err));
}

/* 1 when pkt's timestamp jumps back (more than 0.1 s) or ahead (more than
 * 10 s) from its stream's last: a network sender that started again. */
static int jumped(clv_decoder *d, const AVPacket *pkt)
{
    int64_t ts = pkt->dts != AV_NOPTS_VALUE ? pkt->dts : pkt->pts;
    if (ts == AV_NOPTS_VALUE || pkt->stream_index >= d->media.stream_count)
        return 0;
    int64_t us = to_us(ts, d->fmt->streams[pkt->stream_index]->time_base);
    int64_t last = d->last_in_us[pkt->stream_index];
    d->last_in_us[pkt->stream_index] = us;
    return last != INT64_MIN && (us < last - 100000 || us > last + 10000000);
}

/* From the next packet on, the input is put on the timeline anew, after
 * what was given out (rejoin). */
static void resume(clv_decoder *d)
{
    int64_t end = d->video_end_us > d->audio_end_us ? d->video_end_us : d->audio_end_us;
    d->resume_us = end == INT64_MIN ? 0 : end;
    d->rejoin = d->rejoined = 1;
    for (int i = 0; i < d->media.stream_count; i++)
        d->last_in_us[i] = INT64_MIN;
}

/* The first packet with a timestamp after a reconnection, from a stream
 * the decoder gives out, puts the new connection on the timeline: it lands
 * at resume_us, the others keep their distance from it. 0: pkt is not one. */
static int rejoin(clv_decoder *d, const AVPacket *pkt)
{
    const AVStream *st = d->fmt->streams[pkt->stream_index];
    int64_t ts = pkt->dts != AV_NOPTS_VALUE ? pkt->dts : pkt->pts;
    if (ts == AV_NOPTS_VALUE ||
        (pkt->stream_index != d->video && !clv_media_stream(&d->media, pkt->stream_index)))
        return 0;
    d->shift_us = to_us(ts, st->time_base) - d->resume_us;
    d->rejoin = 0;
    return 1;
}

static void *decode_thread(void *arg)
{
    clv_decoder *d = arg;
    double begin = clv_io_seconds(), waited = 0;
    d->busy_base_ns = atomic_load(&d->busy_ns);
    AVPacket *pkt = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    char err[128];
    int done = 0;
    if (!pkt || !frame) {
        d->error = CLV_ENOMEM;
        snprintf(d->message, sizeof d->message, "out of memory");
        done = -1;
    }
    while (!done) {
        int r = 0;
        if (d->pending_next < d->pending_count) { /* read on opening (probe_first_frame) */
            av_packet_move_ref(pkt, d->pending[d->pending_next]);
            av_packet_free(&d->pending[d->pending_next++]);
        } else {
            arm(d, d->stall_us); /* only while reading: a wait on the queue is no stall */
            double t = clv_io_seconds();
            r = av_read_frame(d->fmt, pkt);
            /* A live or network source's read waits for its packets (its
             * pace, a stall until it drops): waiting, not decoding. */
            if (d->opt.live || d->network)
                waited += clv_io_seconds() - t;
            arm(d, 0);
        }
        if (r == AVERROR(EAGAIN))
            continue; /* a live source with nothing yet */
        if (r < 0) {
            if (!atomic_load(&d->stopping))
                source_end(d, r);
            break;
        }
        if (pkt->stream_index >= d->media.stream_count) {
            av_packet_unref(pkt); /* a stream that came after the opening (MPEG-TS): not ours */
            continue;
        }
        AVStream *st = d->fmt->streams[pkt->stream_index];
        /* A sender that started again within the stall time: its clock
         * jumps. Told by the video alone (a sparse stream's packets may be
         * far apart), whose picture then starts at a keyframe. */
        if (d->network && pkt->stream_index == d->video && jumped(d, pkt)) {
            resume(d);
            d->wait_key = 1;
            d->last_in_us[pkt->stream_index] =
                to_us(pkt->dts != AV_NOPTS_VALUE ? pkt->dts : pkt->pts, st->time_base);
        }
        if (d->rejoin && !rejoin(d, pkt)) {
            av_packet_unref(pkt);
            continue;
        }
        pace(d, pkt, &waited);
        if (pkt->stream_index == d->video && d->wait_key && !(pkt->flags & AV_PKT_FLAG_KEY)) {
            av_packet_unref(pkt); /* a new connection's picture starts at a keyframe */
            continue;
        }
        if (pkt->stream_index == d->video) {
            d->wait_key = 0;
            if (d->shift_us != d->base_shift_us) { /* rejoined: see base_shift_us */
                int64_t extra =
                    av_rescale_q(d->shift_us - d->base_shift_us, AV_TIME_BASE_Q, st->time_base);
                if (pkt->pts != AV_NOPTS_VALUE)
                    pkt->pts -= extra;
                if (pkt->dts != AV_NOPTS_VALUE)
                    pkt->dts -= extra;
            }
            /* The read time rides with the packet to its frame (latency). */
            d->codec->reordered_opaque = (int64_t)(clv_io_seconds() * 1e6);
            r = avcodec_send_packet(d->codec, pkt);
            av_packet_unref(pkt);
            if (r < 0 && r != AVERROR(EAGAIN)) {
                atomic_fetch_add(&d->corrupt_packets, 1);
                av_log(NULL, AV_LOG_WARNING, "'%s': a corrupt video packet (%s)\n", d->path,
                       clv_av_err(r, err, sizeof err));
            }
            done = drain(d, frame, begin, &waited);
        } else if (st->codecpar->codec_type == AVMEDIA_TYPE_AUDIO ||
                   st->codecpar->codec_type == AVMEDIA_TYPE_SUBTITLE) {
            int64_t ts = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
            int where = ts == AV_NOPTS_VALUE ? 0 : place(d, to_us(ts, st->time_base), d->shift_us);
            if (where != 0) {
                av_packet_unref(pkt);
                continue; /* audio past -t is dropped; the video decides the end */
            }
            int64_t shift = av_rescale_q(d->shift_us, AV_TIME_BASE_Q, st->time_base);
            if (pkt->pts != AV_NOPTS_VALUE)
                pkt->pts -= shift;
            if (pkt->dts != AV_NOPTS_VALUE)
                pkt->dts -= shift;
            if (pkt->pts != AV_NOPTS_VALUE) {
                int64_t us = to_us(pkt->pts, st->time_base);
                if (d->rejoined && us <= d->last_out_us[pkt->stream_index]) {
                    av_packet_unref(pkt); /* after a reconnection: never back */
                    continue;
                }
                d->last_out_us[pkt->stream_index] = us;
                int64_t end = us + (pkt->duration > 0 ? to_us(pkt->duration, st->time_base) : 0);
                if (end > d->audio_end_us)
                    d->audio_end_us = end;
            }
            AVPacket *copy = av_packet_alloc();
            if (!copy) {
                done = -1;
                break;
            }
            av_packet_move_ref(copy, pkt);
            double t = clv_io_seconds();
            if (clv_queue_push(d->packets, CLV_ITEM_PACKET, copy) < 0)
                done = -1;
            waited += clv_io_seconds() - t;
        } else {
            av_packet_unref(pkt);
        }
    }
    if (done == 0) {
        /* The input ended: flush the decoder for its delayed frames. */
        avcodec_send_packet(d->codec, NULL);
        drain(d, frame, begin, &waited);
    }
    av_packet_free(&pkt);
    av_frame_free(&frame);
    account(d, begin, waited);
    clv_queue_push(d->out, CLV_ITEM_END, NULL);
    return NULL;
}

int clv_decoder_start(clv_decoder *d, clv_queue *out, clv_queue *packets)
{
    if (!d->fmt) /* a reconnection that failed */
        return CLV_EINVAL;
    d->out = out;
    d->packets = packets ? packets : out;
    atomic_store(&d->stopping, 0);
    d->pace_origin = 0; /* -re: a restart (after a seek) paces from its first packet */
    if (pthread_create(&d->thread, NULL, decode_thread, d))
        return CLV_ENOMEM;
    d->started = 1;
    return 0;
}

int clv_decoder_finish(clv_decoder *d, clv_msg *msg)
{
    if (d->started) {
        pthread_join(d->thread, NULL);
        d->started = 0;
    }
    return d->error ? clv_io_fail(msg, d->error, "%.1000s", d->message) : 0;
}

void clv_decoder_stop(clv_decoder *d)
{
    if (d->started && d->out) {
        atomic_store(&d->stopping, 1);
        clv_queue_abort(d->out);
        clv_queue_abort(d->packets);
    }
    clv_decoder_finish(d, NULL);
    d->out = d->packets = NULL;
}

int clv_decoder_seek(clv_decoder *d, int64_t us, clv_msg *msg)
{
    char err[128];
    if (!d->fmt) /* a reconnection that gave up closed it */
        return clv_io_fail(msg, CLV_EIO,
                           "cannot seek in '%.800s': the input is closed (it dropped)", d->path);
    int64_t target = d->shift_us + (us > 0 ? us : 0);
    int r = avformat_seek_file(d->fmt, -1, INT64_MIN, target, target, 0);
    if (r < 0) {
        return clv_io_fail(msg, CLV_EIO, "cannot seek in '%.800s': %s", d->path,
                           clv_av_err(r, err, sizeof err));
    }
    drop_pending(d);
    avcodec_flush_buffers(d->codec);
    d->skip_us = target;
    d->frames = 0;
    d->error = 0;
    return 0;
}

int clv_decoder_source_ended(const clv_decoder *d, char *why, size_t size)
{
    if (why && size)
        snprintf(why, size, "%s", d->source_ended ? d->end_why : "");
    return d->source_ended;
}

/* Copies what media points to into the decoder's own memory, so that the
 * connection it was read from can be closed. */
static int keep_description(clv_decoder *d)
{
    if (d->kept)
        return 0;
    clv_media_desc *m = &d->media;
    int n = m->stream_desc_count;
    d->kept_par = calloc(n ? (size_t)n : 1, sizeof *d->kept_par);
    d->kept_meta = calloc(n ? (size_t)n : 1, sizeof *d->kept_meta);
    d->kept_side =
        calloc(m->side_data_count ? (size_t)m->side_data_count : 1, sizeof *d->kept_side);
    if (!d->kept_par || !d->kept_meta || !d->kept_side)
        return CLV_ENOMEM;
    d->kept = 1; /* from here on, clv_decoder_close frees what is copied */
    for (int i = 0; i < n; i++) {
        if (!(d->kept_par[i] = avcodec_parameters_alloc()) ||
            avcodec_parameters_copy(d->kept_par[i], d->copies[i].par) < 0 ||
            av_dict_copy(&d->kept_meta[i], d->copies[i].metadata, 0) < 0)
            return CLV_ENOMEM;
        d->copies[i].par = d->kept_par[i];
        d->copies[i].metadata = d->kept_meta[i];
    }
    for (int i = 0; i < m->side_data_count; i++) {
        const AVPacketSideData *sd = &m->side_data[i];
        if (!(d->kept_side[i].data = av_memdup(sd->data, sd->size)))
            return CLV_ENOMEM;
        d->kept_side[i].size = sd->size;
        d->kept_side[i].type = sd->type;
    }
    if (av_dict_copy(&d->kept_video_meta, m->metadata, 0) < 0 ||
        av_dict_copy(&d->kept_format_meta, m->format_metadata, 0) < 0)
        return CLV_ENOMEM;
    m->side_data = d->kept_side;
    m->metadata = d->kept_video_meta;
    m->format_metadata = d->kept_format_meta;
    return 0;
}

static void free_description(clv_decoder *d)
{
    for (int i = 0; d->kept_par && i < d->media.stream_desc_count; i++) {
        avcodec_parameters_free(&d->kept_par[i]);
        av_dict_free(&d->kept_meta[i]);
    }
    for (int i = 0; d->kept_side && i < d->media.side_data_count; i++)
        av_free(d->kept_side[i].data);
    free(d->kept_par);
    free(d->kept_meta);
    free(d->kept_side);
    av_dict_free(&d->kept_video_meta);
    av_dict_free(&d->kept_format_meta);
}

/* 0 when fmt (a new connection) carries the streams the run was set up
 * for, at the same indexes; else -1 with what differs in why. */
static int same_streams(const clv_decoder *d, const AVFormatContext *fmt, char *why, size_t size)
{
    const clv_media_desc *m = &d->media;
    if ((int)fmt->nb_streams != m->stream_count) {
        snprintf(why, size, "it has %u streams, not %d", fmt->nb_streams, m->stream_count);
        return -1;
    }
    const AVStream *st = fmt->streams[d->video];
    const AVCodecParameters *p = st->codecpar;
    if (p->codec_type != AVMEDIA_TYPE_VIDEO || p->codec_id != m->codec_id) {
        snprintf(why, size, "its stream %d is not %s video", d->video,
                 avcodec_get_name(m->codec_id));
        return -1;
    }
    /* A hardware decoder's frames are read back in their own layout: the
     * stream's is the codec's. */
    enum AVPixelFormat own = m->hwaccel ? m->coded_pix_fmt : m->pix_fmt;
    if (p->width != m->width || p->height != m->height || (p->format >= 0 && p->format != own)) {
        snprintf(why, size, "its video is %dx%d %s, not %dx%d %s (a run keeps its size)", p->width,
                 p->height, av_get_pix_fmt_name(p->format) ? av_get_pix_fmt_name(p->format) : "?",
                 m->width, m->height, av_get_pix_fmt_name(own) ? av_get_pix_fmt_name(own) : "?");
        return -1;
    }
    if (av_cmp_q(st->time_base, m->time_base)) {
        snprintf(why, size, "its video's time base is %d/%d, not %d/%d", st->time_base.num,
                 st->time_base.den, m->time_base.num, m->time_base.den);
        return -1;
    }
    for (int i = 0; i < m->stream_desc_count; i++) {
        const clv_stream_desc *s = &m->streams[i];
        const AVStream *now = fmt->streams[s->index];
        const AVCodecParameters *q = now->codecpar;
        if (q->codec_type != s->type || q->codec_id != s->par->codec_id ||
            av_cmp_q(now->time_base, s->time_base) ||
            (s->type == AVMEDIA_TYPE_AUDIO &&
             (q->sample_rate != s->par->sample_rate ||
              q->ch_layout.nb_channels != s->par->ch_layout.nb_channels))) {
            snprintf(why, size, "its stream %d is not the %s it was", s->index,
                     avcodec_get_name(s->par->codec_id));
            return -1;
        }
    }
    return 0;
}

int clv_decoder_reconnect(clv_decoder *d, double timeout_s, clv_msg *msg)
{
    if (d->started)
        return clv_io_fail(msg, CLV_EINVAL, "'%.900s': reconnecting while reading", d->path);
    if (keep_description(d))
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    drop_pending(d);
    /* The old connection goes first: a listener's port is free again. */
    avformat_close_input(&d->fmt);
    AVFormatContext *fmt = NULL;
    /* A try waits as an opening does, but 5 s at most whatever the stall
     * time: between tries the run answers its control socket (a quit). */
    int64_t wait = (int64_t)(timeout_s * 1e6), most = open_wait(d);
    most = most < 5000000 ? most : 5000000;
    int err = open_format(d, &d->opt, &fmt, wait < most ? wait : most, msg);
    if (err)
        return err;
    char why[300];
    if (same_streams(d, fmt, why, sizeof why)) {
        avformat_close_input(&fmt);
        return clv_io_fail(msg, CLV_EINVAL, "'%.800s' came back changed: %s", d->path, why);
    }
    d->fmt = fmt;
    avcodec_flush_buffers(d->codec);
    resume(d);
    d->wait_key = 1; /* joined midway, perhaps (a UDP sender that went on) */
    d->skip_us = INT64_MIN;
    d->error = 0;
    d->source_ended = 0;
    d->end_why[0] = 0;
    return 0;
}

static int retry_stopped(const clv_retry *r)
{
    return r->stop && r->stop(r->user);
}

int clv_decoder_retry(clv_decoder *d, const clv_retry *r, int *attempts, char *last, size_t size,
                      clv_msg *msg)
{
    double wait = 0.5;
    *attempts = 0;
    if (size)
        last[0] = 0;
    for (int attempt = 1;; attempt++) {
        /* A try waits for the source as an opening does (5 s, or the stall
         * time if longer), never beyond r->most. */
        double left = r->most > 0 ? r->began + r->most - clv_io_seconds() : 3600;
        if (left <= 0 || retry_stopped(r))
            return 1;
        if (r->trying)
            r->trying(r->user, attempt);
        clv_msg m = {{0}};
        int err = clv_decoder_reconnect(d, left, &m);
        *attempts = attempt;
        if (!err)
            return 0;
        snprintf(last, size, "%s", m.text);
        if (err == CLV_EINVAL) /* it came back, but not as the run was set up for */
            return 1;
        if (err != CLV_EIO)
            return clv_io_fail(msg, err, "%.1000s", m.text);
        if (r->most > 0 && r->began + r->most - clv_io_seconds() < wait)
            wait = r->began + r->most - clv_io_seconds();
        if (wait > 0 && r->wait && (err = r->wait(r->user, wait, msg)))
            return err;
        for (double until = clv_io_seconds() + wait;
             !r->wait && !retry_stopped(r) && clv_io_seconds() < until;) {
            struct timespec step = {0, 20 * 1000 * 1000};
            nanosleep(&step, NULL);
        }
        wait = wait * 2 > 8 ? 8 : wait * 2;
    }
}

void clv_decoder_interrupt(clv_decoder *d)
{
    atomic_store(&d->stopping, 1);
}

int64_t clv_decoder_stale_dropped(const clv_decoder *d)
{
    return atomic_load(&d->stale);
}

int clv_decoder_max_queued(const clv_decoder *d)
{
    return atomic_load(&d->max_queued);
}

double clv_frame_read_time(const AVFrame *frame)
{
    return (double)frame->reordered_opaque / 1e6;
}

void clv_frame_set_read_time(AVFrame *frame, double seconds)
{
    frame->reordered_opaque = (int64_t)(seconds * 1e6);
}

double clv_decoder_clock_base(const clv_decoder *d)
{
    int64_t us = atomic_load(&d->clock_base_us);
    return us == INT64_MIN ? -1 : (double)us / 1e6;
}

void clv_decoder_damage(const clv_decoder *d, int64_t *packets, int64_t *frames)
{
    *packets = atomic_load(&d->corrupt_packets);
    *frames = atomic_load(&d->corrupt_frames);
}

double clv_decoder_busy_seconds(const clv_decoder *d)
{
    return (double)atomic_load(&d->busy_ns) / 1e9;
}

void clv_decoder_close(clv_decoder *d)
{
    if (!d)
        return;
    clv_decoder_stop(d);
    avcodec_free_context(&d->codec);
    av_buffer_unref(&d->hw_device);
    av_frame_free(&d->hw_frame);
    if (d->frame_pool) {
        /* Blocks still in frames go back to their owner when freed. */
        av_buffer_pool_uninit(&d->frame_pool->pool);
        frame_pool_unref(d->frame_pool);
    }
    drop_pending(d);
    free(d->pending);
    avformat_close_input(&d->fmt);
    free_description(d);
    free(d->last_in_us);
    free(d->copies);
    free(d);
}
