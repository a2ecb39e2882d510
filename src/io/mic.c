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
    /* Set by clv_mic_stop before `ending`: where the video ends on its
     * timeline, in microseconds; the thread reads on until the sound gets
     * there, then sets `done`. */
    _Atomic int64_t until_us;
    atomic_int ending, done;
    pthread_t thread;
    int started;
    clv_stream_desc sound; /* the captured stream, set on opening */
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
    return clv_io_fail(msg, CLV_EINVAL,
                       "--audio-format %s: no such capture format in this FFmpeg (alsa, pulse, "
                       "oss, lavfi; `ffmpeg -devices` lists them)",
                       format);
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
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    snprintf(m->device, sizeof m->device, "%s", device);
    atomic_init(&m->stopping, 0);
    atomic_init(&m->until_us, 0);
    atomic_init(&m->ending, 0);
    atomic_init(&m->done, 0);
    m->fmt = avformat_alloc_context();
    if (!m->fmt) {
        free(m);
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    }
    m->fmt->interrupt_callback = (AVIOInterruptCB){interrupted, m};
    AVDictionary *opts = NULL;
    av_dict_set(&opts, "fflags", "nobuffer", 0);
    int r = avformat_open_input(&m->fmt, device, ifmt, &opts);
    av_dict_free(&opts);
    if (r < 0) {
        free(m); /* avformat_open_input freed the context */
        return clv_io_fail(msg, CLV_EIO,
                           "--audio '%s': cannot open the %s capture device: %s (`arecord -l` "
                           "lists ALSA devices; try --audio default, or --audio-format pulse)",
                           device, fmt_name, clv_av_err(r, err, sizeof err));
    }
    if ((r = avformat_find_stream_info(m->fmt, NULL)) < 0 ||
        (m->stream = av_find_best_stream(m->fmt, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0)) < 0) {
        clv_mic_close(m);
        return clv_io_fail(msg, CLV_EIO, "--audio '%s': the %s input has no audio stream", device,
                           fmt_name);
    }
    const AVStream *st = m->fmt->streams[m->stream];
    const AVCodecParameters *par = st->codecpar;
    m->sound = (clv_stream_desc){.index = m->stream,
                                 .type = AVMEDIA_TYPE_AUDIO,
                                 .par = par,
                                 .time_base = st->time_base,
                                 .disposition = st->disposition,
                                 .metadata = st->metadata};
    av_log(NULL, AV_LOG_INFO, "microphone '%s' (%s): %s, %d Hz, %d channel(s)\n", device, fmt_name,
           avcodec_get_name(par->codec_id), par->sample_rate, par->ch_layout.nb_channels);
    *out = m;
    return 0;
}

const clv_stream_desc *clv_mic_stream(const clv_mic *m)
{
    return &m->sound;
}

/* Where the sound goes on the video's timeline. Both inputs may hand over
 * a backlog in a burst when capture starts, so the first reads say little:
 * the mapping is the least delayed read of each (for the video,
 * clv_decoder_clock_base) over the first HOLD_S seconds, during which the
 * packets wait here, and longer (up to HOLD_MAX_S) while the video's own
 * least delay is still falling (a video thread that was starved, as on a
 * loaded machine, and is catching up). After that the device's own
 * timestamps carry on, so the sound stays continuous. */
#define HOLD_S 0.5
#define HOLD_MAX_S 3.0
#define SETTLED_S 0.005 /* a fall in the video's base smaller than this is jitter */
/* Packets waiting for room in the encoder's queue before the thread waits
 * with them (an encoder that never catches up; ALSA's are about 20 ms). */
#define OUT_MAX 2048
/* The longest the sound is waited for at the end, past the stop. */
#define END_WAIT_S 1.0

/* A list of packets in order. */
typedef struct packets {
    AVPacket **at;
    int count, size;
} packets;

static int packets_add(packets *l, AVPacket *pkt)
{
    if (l->count == l->size) {
        int size = l->size ? 2 * l->size : 64;
        AVPacket **at = realloc(l->at, (size_t)size * sizeof *at);
        if (!at)
            return -1;
        l->at = at;
        l->size = size;
    }
    l->at[l->count++] = pkt;
    return 0;
}

/* Forgets the first n packets (already passed on). */
static void packets_shift(packets *l, int n)
{
    if (n > 0)
        memmove(l->at, l->at + n, (size_t)(l->count - n) * sizeof *l->at);
    l->count -= n;
}

static void packets_free(packets *l)
{
    for (int i = 0; i < l->count; i++)
        av_packet_free(&l->at[i]);
    free(l->at);
    *l = (packets){0};
}

typedef struct timeline {
    double first_read;  /* when the first packet came; < 0: none yet */
    double base;        /* least read time less timestamp end, seconds */
    double video_base;  /* the video's base when last seen; < 0: none yet */
    double video_moved; /* when it last fell by more than SETTLED_S */
    int anchored;       /* offset is final and the packets flow */
    double offset;      /* seconds added to the device's timestamps */
    double end;         /* where the sound delivered so far ends, seconds on the video's */
    packets held;       /* read, waiting for the anchor */
    packets out;        /* on the video's timeline, waiting for room in the encoder's queue */
} timeline;

/* 1 when the recording is ending and the sound delivered reaches its end. */
static int reached_end(const clv_mic *m, const timeline *t)
{
    return atomic_load(&m->ending) && t->end >= (double)atomic_load(&m->until_us) / 1e6;
}

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

/* Passes what waits in t->out to the encoder's queue: all of it (waiting
 * for room) with wait, else what fits now, so that the thread goes back to
 * reading the device (a capture device left unread drops sound). -1 when
 * the encoder stopped. */
static int flush(clv_mic *m, timeline *t, int wait)
{
    int sent = 0, r = 0;
    while (sent < t->out.count) {
        r = wait ? clv_queue_push(m->out, CLV_ITEM_PACKET, t->out.at[sent])
                 : clv_queue_try_push(m->out, CLV_ITEM_PACKET, t->out.at[sent]);
        if (r > 0)
            break;                /* full */
        t->out.at[sent++] = NULL; /* the queue took it, or freed it on -1 */
        if (r < 0)
            break;
        m->delivered++;
    }
    packets_shift(&t->out, sent);
    return r < 0 ? -1 : 0;
}

/* Puts pkt on the video's timeline and in line for the encoder; it is
 * dropped when it falls before the video or, at the end, after it.
 * Returns 1 when the sound has reached the end, -1 on no memory. */
static int deliver(clv_mic *m, timeline *t, AVPacket *pkt)
{
    AVRational tb = m->fmt->streams[m->stream]->time_base;
    double until = (double)atomic_load(&m->until_us) / 1e6;
    int ending = atomic_load(&m->ending);
    if (retime(m, t->offset, pkt) < 0) {
        av_packet_free(&pkt);
        return 0;
    }
    if (ending && (double)pkt->pts * av_q2d(tb) >= until) {
        av_packet_free(&pkt);
        return 1; /* the sound has passed the video's end */
    }
    double end = (double)(pkt->pts + pkt->duration) * av_q2d(tb);
    if (packets_add(&t->out, pkt) < 0) {
        av_packet_free(&pkt);
        return -1;
    }
    if (end > t->end)
        t->end = end;
    return reached_end(m, t);
}

/* Fixes the offset and passes the held packets on; returns as deliver. */
static int anchor(clv_mic *m, timeline *t)
{
    t->anchored = 1;
    t->offset = t->base - t->video_base;
    int r = 0, i = 0;
    for (; i < t->held.count && r >= 0; i++) {
        AVPacket *pkt = t->held.at[i];
        t->held.at[i] = NULL;
        r = deliver(m, t, pkt) < 0 ? -1 : r; /* the rest after the end are dropped */
    }
    packets_free(&t->held);
    return r < 0 ? -1 : reached_end(m, t);
}

/* Notes the video's base; 1 when the packets held can be placed. */
static int ready(clv_mic *m, timeline *t, double now)
{
    double video_base = clv_decoder_clock_base(m->video);
    if (video_base < 0)
        return 0;
    if (t->video_base < 0 || video_base < t->video_base - SETTLED_S) {
        t->video_base = video_base;
        t->video_moved = now;
    }
    if (atomic_load(&m->ending))
        return t->first_read >= 0;
    double held = now - t->first_read;
    return held >= HOLD_S && (now - t->video_moved >= HOLD_S || held >= HOLD_MAX_S);
}

static void *mic_thread(void *arg)
{
    clv_mic *m = arg;
    AVRational tb = m->fmt->streams[m->stream]->time_base;
    timeline t = {.first_read = -1, .video_base = -1};
    char err[128];
    int finished = 0; /* the sound reached the video's end, or the encoder stopped */
    while (!finished && !atomic_load(&m->stopping)) {
        if (t.out.count && flush(m, &t, t.out.count > OUT_MAX) < 0)
            break;
        if (atomic_load(&m->ending)) {
            double now = clv_io_seconds();
            if (!t.anchored && !ready(m, &t, now))
                break; /* no sound to place */
            if (!t.anchored) {
                finished = anchor(m, &t) != 0;
                continue;
            }
            if (reached_end(m, &t))
                break;
        }
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
            finished = deliver(m, &t, pkt) != 0;
            continue;
        }
        /* The packet was read when its last sample had been captured. */
        double base = now - (double)(ts + pkt->duration) * av_q2d(tb);
        if (t.first_read < 0 || base < t.base)
            t.base = base;
        if (t.first_read < 0)
            t.first_read = now;
        if (packets_add(&t.held, pkt) < 0) {
            av_packet_free(&pkt);
            break;
        }
        if (ready(m, &t, now))
            finished = anchor(m, &t) != 0;
    }
    /* At the end, what is in line goes to the encoder (also when the wait
     * for the video's end ran out); on an abort it is dropped. */
    if (atomic_load(&m->ending))
        flush(m, &t, 1);
    packets_free(&t.out);
    packets_free(&t.held);
    atomic_store(&m->done, 1);
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

int64_t clv_mic_stop(clv_mic *m, double until_s, clv_msg *msg)
{
    if (!m)
        return 0;
    if (m->started && until_s >= 0) {
        /* The sound the device has not handed over yet belongs to the
         * recording too: read on until it reaches the video's end. */
        atomic_store(&m->until_us, (int64_t)llround(until_s * 1e6));
        atomic_store(&m->ending, 1);
        double deadline = clv_io_seconds() + END_WAIT_S;
        while (!atomic_load(&m->done) && clv_io_seconds() < deadline)
            av_usleep(2000);
    }
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
    clv_mic_stop(m, -1, NULL);
    avformat_close_input(&m->fmt);
    free(m);
}
