/* mic.c - a microphone recorded with a live video source: a thread reads
 * the capture device's packets and hands them to the encoder, their
 * timestamps moved onto the video's timeline by the time each was read. */
#include "io.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libavdevice/avdevice.h>
#include <libavutil/time.h>

struct clv_mic {
    char device[512];
    AVFormatContext *fmt;
    int stream;
    /* Set by clv_mic_stop; read by the thread and the interrupt callback. */
    atomic_int stopping;
    pthread_t thread;
    int started;
    /* Given to clv_mic_start, read-only afterwards: */
    const clv_decoder *video;
    clv_queue *out;
    int out_index;
    /* The thread's, read after the join: */
    int64_t delivered;
    char message[900]; /* why the capture stopped by itself, or "" */
};

static int interrupted(void *opaque)
{
    const clv_mic *m = opaque;
    return atomic_load(&m->stopping);
}

int clv_mic_format_check(const char *format, clv_msg *msg)
{
    avdevice_register_all();
    if (av_find_input_format(format))
        return 0;
    snprintf(msg->text, sizeof msg->text,
             "--audio-format %s: no such capture format in this FFmpeg (alsa, pulse, oss, lavfi; "
             "`ffmpeg -devices` lists them)",
             format);
    return CLV_EINVAL;
}

int clv_mic_open(const char *device, const char *format, clv_mic **out, clv_msg *msg)
{
    *out = NULL;
    char err[128];
    const char *fmt_name = format ? format : "alsa";
    if (clv_mic_format_check(fmt_name, msg))
        return CLV_EINVAL;
    const AVInputFormat *ifmt = av_find_input_format(fmt_name);
    clv_mic *m = calloc(1, sizeof *m);
    if (!m)
        return snprintf(msg->text, sizeof msg->text, "out of memory"), CLV_ENOMEM;
    snprintf(m->device, sizeof m->device, "%s", device);
    atomic_init(&m->stopping, 0);
    m->fmt = avformat_alloc_context();
    if (!m->fmt) {
        free(m);
        return snprintf(msg->text, sizeof msg->text, "out of memory"), CLV_ENOMEM;
    }
    m->fmt->interrupt_callback = (AVIOInterruptCB){interrupted, m};
    AVDictionary *opts = NULL;
    av_dict_set(&opts, "fflags", "nobuffer", 0);
    int r = avformat_open_input(&m->fmt, device, ifmt, &opts);
    av_dict_free(&opts);
    if (r < 0) {
        snprintf(msg->text, sizeof msg->text,
                 "--audio '%s': cannot open the %s capture device: %s (`arecord -l` lists "
                 "ALSA devices; try --audio default, or --audio-format pulse)",
                 device, fmt_name, clv_av_err(r, err, sizeof err));
        free(m); /* avformat_open_input freed the context */
        return CLV_EIO;
    }
    if ((r = avformat_find_stream_info(m->fmt, NULL)) < 0 ||
        (m->stream = av_find_best_stream(m->fmt, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0)) < 0) {
        snprintf(msg->text, sizeof msg->text, "--audio '%s': the %s input has no audio stream",
                 device, fmt_name);
        clv_mic_close(m);
        return CLV_EIO;
    }
    AVCodecParameters *par = m->fmt->streams[m->stream]->codecpar;
    av_log(NULL, AV_LOG_INFO, "microphone '%s' (%s): %s, %d Hz, %d channel(s)\n", device, fmt_name,
           avcodec_get_name(par->codec_id), par->sample_rate, par->ch_layout.nb_channels);
    *out = m;
    return 0;
}

const AVStream *clv_mic_stream(const clv_mic *m)
{
    return m->fmt->streams[m->stream];
}

/* Where the sound goes on the video's timeline. Both inputs may hand over
 * a backlog in a burst when capture starts, so the first reads say little:
 * the mapping is the least delayed read of each (for the video,
 * clv_decoder_clock_base) over the first HOLD_S seconds, during which the
 * packets wait here. After that the device's own timestamps carry on, so
 * the sound stays continuous. */
#define HOLD_S 0.5
#define HOLD_MAX 512

typedef struct timeline {
    double first_read;        /* when the first packet came; < 0: none yet */
    double base;              /* least read time less timestamp end, seconds */
    int anchored;             /* base is final and the packets flow */
    AVPacket *held[HOLD_MAX]; /* waiting for the anchor */
    int held_count;
} timeline;

/* Moves pkt onto the video's timeline; -1: it falls before the video. */
static int retime(const clv_mic *m, double offset_s, AVPacket *pkt)
{
    AVRational tb = m->fmt->streams[m->stream]->time_base;
    int64_t ts = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
    int64_t at = ts + (int64_t)llround(offset_s / av_q2d(tb));
    if (at < 0)
        return -1;
    pkt->pts = pkt->dts = at;
    pkt->stream_index = m->out_index;
    return 0;
}

/* Sends pkt on (it is freed either way); -1 when the encoder stopped. */
static int deliver(clv_mic *m, double offset_s, AVPacket *pkt)
{
    if (retime(m, offset_s, pkt) < 0) {
        av_packet_free(&pkt);
        return 0;
    }
    if (clv_queue_push(m->out, CLV_ITEM_PACKET, pkt) < 0)
        return -1; /* the queue freed it */
    m->delivered++;
    return 0;
}

static void *mic_thread(void *arg)
{
    clv_mic *m = arg;
    AVRational tb = m->fmt->streams[m->stream]->time_base;
    timeline t = {.first_read = -1};
    double offset = 0; /* seconds added to the device's timestamps */
    char err[128];
    for (;;) {
        if (atomic_load(&m->stopping))
            break;
        AVPacket *pkt = av_packet_alloc();
        if (!pkt)
            break;
        int r = av_read_frame(m->fmt, pkt);
        double now = clv_io_seconds();
        if (r == AVERROR(EAGAIN)) {
            av_packet_free(&pkt);
            av_usleep(2000);
            continue;
        }
        if (r < 0) {
            av_packet_free(&pkt);
            if (!atomic_load(&m->stopping))
                snprintf(m->message, sizeof m->message,
                         "the microphone '%.400s' stopped (%s); the rest of the recording has "
                         "no sound",
                         m->device,
                         r == AVERROR_EOF ? "end of input" : clv_av_err(r, err, sizeof err));
            break;
        }
        int64_t ts = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
        if (pkt->stream_index != m->stream || ts == AV_NOPTS_VALUE) {
            av_packet_free(&pkt);
            continue;
        }
        if (t.anchored) {
            if (deliver(m, offset, pkt) < 0)
                break;
            continue;
        }
        /* The packet was read when its last sample had been captured. */
        double base = now - (double)(ts + pkt->duration) * av_q2d(tb);
        if (t.first_read < 0 || base < t.base)
            t.base = base;
        if (t.first_read < 0)
            t.first_read = now;
        if (t.held_count == HOLD_MAX)
            av_packet_free(&t.held[--t.held_count]); /* a burst longer than any backlog */
        t.held[t.held_count++] = pkt;
        double video_base = clv_decoder_clock_base(m->video);
        if (now - t.first_read < HOLD_S || video_base < 0)
            continue;
        t.anchored = 1;
        offset = t.base - video_base;
        int sent = 0, stopped = 0;
        while (sent < t.held_count && !stopped) {
            stopped = deliver(m, offset, t.held[sent]) < 0; /* it takes the packet */
            t.held[sent++] = NULL;
        }
        if (stopped)
            break;
        t.held_count = 0;
    }
    for (int i = 0; i < t.held_count; i++)
        av_packet_free(&t.held[i]); /* NULL for those already sent */
    return NULL;
}

int clv_mic_start(clv_mic *m, const clv_decoder *video, clv_queue *out, int out_index)
{
    m->video = video;
    m->out = out;
    m->out_index = out_index;
    if (pthread_create(&m->thread, NULL, mic_thread, m))
        return CLV_ENOMEM;
    m->started = 1;
    return 0;
}

int64_t clv_mic_stop(clv_mic *m, clv_msg *msg)
{
    if (!m)
        return 0;
    atomic_store(&m->stopping, 1);
    if (m->started) {
        pthread_join(m->thread, NULL);
        m->started = 0;
    }
    if (msg)
        snprintf(msg->text, sizeof msg->text, "%s", m->message);
    return m->delivered;
}

void clv_mic_close(clv_mic *m)
{
    if (!m)
        return;
    clv_mic_stop(m, NULL);
    avformat_close_input(&m->fmt);
    free(m);
}
