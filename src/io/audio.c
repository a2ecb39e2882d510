/* audio.c - decodes one audio stream's packets and resamples them to
 * interleaved float samples at the sound output's rate, for the player. */
#include "io.h"

#include <stdio.h>
#include <stdlib.h>

#include <libavutil/opt.h>
#include <libswresample/swresample.h>

struct clv_audio {
    AVCodecContext *codec;
    SwrContext *swr;
    AVFrame *frame;
    AVRational time_base; /* of the stream (the packets' timestamps) */
    int rate, channels;
    float *samples; /* converted output, grown as needed */
    int capacity;   /* in sample frames */
};

void clv_audio_close(clv_audio *a)
{
    if (!a)
        return;
    avcodec_free_context(&a->codec);
    swr_free(&a->swr);
    av_frame_free(&a->frame);
    free(a->samples);
    free(a);
}

int clv_audio_open(const clv_stream_desc *st, int rate, int channels, clv_audio **out, clv_msg *msg)
{
    *out = NULL;
    const AVCodec *codec = avcodec_find_decoder(st->par->codec_id);
    if (!codec)
        return clv_io_fail(msg, CLV_ENOTFOUND, "no decoder for the %s audio",
                           avcodec_get_name(st->par->codec_id));
    clv_audio *a = calloc(1, sizeof *a);
    if (!a)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    a->time_base = st->time_base;
    a->rate = rate;
    a->channels = channels;
    a->codec = avcodec_alloc_context3(codec);
    a->frame = av_frame_alloc();
    if (!a->codec || !a->frame || avcodec_parameters_to_context(a->codec, st->par) < 0 ||
        avcodec_open2(a->codec, codec, NULL) < 0) {
        clv_audio_close(a);
        return clv_io_fail(msg, CLV_EIO, "cannot open the %s audio decoder", codec->name);
    }
    a->codec->pkt_timebase = st->time_base;
    *out = a;
    return 0;
}

/* (Re)makes the resampler for the frame's layout and rate. */
static int resampler(clv_audio *a, AVFrame *f)
{
    if (a->swr)
        return 0;
    AVChannelLayout out_layout;
    av_channel_layout_default(&out_layout, a->channels);
    int r = swr_alloc_set_opts2(&a->swr, &out_layout, AV_SAMPLE_FMT_FLT, a->rate, &f->ch_layout,
                                f->format, f->sample_rate, 0, NULL);
    if (r < 0 || swr_init(a->swr) < 0)
        return CLV_EIO;
    return 0;
}

int clv_audio_decode(clv_audio *a, const AVPacket *pkt, const float **samples, int *frames,
                     double *pts)
{
    *frames = 0;
    *pts = -1;
    if (avcodec_send_packet(a->codec, pkt) < 0)
        return 0; /* a corrupt packet: skip it, as players do */
    int used = 0;
    while (avcodec_receive_frame(a->codec, a->frame) == 0) {
        if (resampler(a, a->frame) < 0) {
            av_frame_unref(a->frame);
            return CLV_EIO;
        }
        if (*pts < 0) {
            int64_t ts = a->frame->best_effort_timestamp;
            if (ts != AV_NOPTS_VALUE)
                *pts = (double)ts * av_q2d(a->time_base);
        }
        int room = swr_get_out_samples(a->swr, a->frame->nb_samples);
        if (used + room > a->capacity) {
            int cap = (used + room) * 2;
            float *p = realloc(a->samples, (size_t)cap * (size_t)a->channels * sizeof(float));
            if (!p) {
                av_frame_unref(a->frame);
                return CLV_ENOMEM;
            }
            a->samples = p;
            a->capacity = cap;
        }
        uint8_t *dst = (uint8_t *)(a->samples + (size_t)used * (size_t)a->channels);
        int n = swr_convert(a->swr, &dst, room, (const uint8_t **)a->frame->extended_data,
                            a->frame->nb_samples);
        av_frame_unref(a->frame);
        if (n > 0)
            used += n;
    }
    *samples = a->samples;
    *frames = used;
    return 0;
}

void clv_audio_flush(clv_audio *a)
{
    avcodec_flush_buffers(a->codec);
    swr_free(&a->swr);
}
