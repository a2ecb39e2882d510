/* audio_recode.c - an input sound stream the output cannot hold as it is
 * (or that -c:a names an encoder for): decoded, resampled and encoded
 * again, its packets written into the output's muxer (or muxers). */
#include "audio_recode.h"

#include <stdio.h>
#include <stdlib.h>

#include <libavutil/audio_fifo.h>
#include <libswresample/swresample.h>

/* One input sound stream: its decoder, the resampler to the encoder's
 * format, a FIFO that cuts the samples into the encoder's frames. */
struct clv_audio_recode {
    const AVStream *out;    /* the output stream written, set after open */
    clv_packet_write write; /* and how */
    void *user;
    AVCodecContext *dec, *enc;
    SwrContext *swr;
    AVAudioFifo *fifo;
    AVFrame *frame;
    int chunk;        /* samples per frame sent to the encoder */
    int64_t next_pts; /* in samples at the encoder's rate */
    int anchored;     /* next_pts is set, from the first sample's timestamp (a
                       * stream that starts after the video keeps its offset) */
};

void clv_audio_recode_close(clv_audio_recode *a)
{
    if (!a)
        return;
    avcodec_free_context(&a->dec);
    avcodec_free_context(&a->enc);
    swr_free(&a->swr);
    if (a->fifo)
        av_audio_fifo_free(a->fifo);
    av_frame_free(&a->frame);
    free(a);
}

/* The sample format, rate and layout of ec nearest the input's. */
static void audio_format(const AVCodec *ec, const AVCodecContext *in, AVCodecContext *enc)
{
    enc->sample_fmt = ec->sample_fmts ? ec->sample_fmts[0] : AV_SAMPLE_FMT_FLTP;
    for (const enum AVSampleFormat *f = ec->sample_fmts; f && *f != AV_SAMPLE_FMT_NONE; f++)
        if (*f == AV_SAMPLE_FMT_FLTP || *f == in->sample_fmt) {
            enc->sample_fmt = *f;
            break;
        }
    enc->sample_rate = in->sample_rate > 0 ? in->sample_rate : 48000;
    if (ec->supported_samplerates) {
        int best = 0;
        for (const int *r = ec->supported_samplerates; *r; r++)
            if ((*r >= enc->sample_rate && (!best || *r < best)) || *r == enc->sample_rate)
                best = *r;
        enc->sample_rate = best ? best : ec->supported_samplerates[0];
    }
    av_channel_layout_copy(&enc->ch_layout, &in->ch_layout);
    if (enc->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC)
        av_channel_layout_default(&enc->ch_layout, in->ch_layout.nb_channels);
    if (ec->ch_layouts) {
        const AVChannelLayout *pickd = NULL, *stereo = NULL;
        for (const AVChannelLayout *l = ec->ch_layouts; l->nb_channels; l++) {
            if (!av_channel_layout_compare(l, &enc->ch_layout))
                pickd = l;
            if (l->nb_channels == 2)
                stereo = l;
        }
        if (!pickd)
            pickd = stereo ? stereo : &ec->ch_layouts[0];
        av_channel_layout_uninit(&enc->ch_layout);
        av_channel_layout_copy(&enc->ch_layout, pickd);
    }
}

int clv_audio_recode_open(int global_header, const char *path, const clv_stream_desc *s,
                          const AVCodec *ec, const char *what, int rate, clv_audio_recode **out,
                          clv_msg *msg)
{
    *out = NULL;
    char err[128];
    const AVCodec *dc = avcodec_find_decoder(s->par->codec_id);
    clv_audio_recode *a = calloc(1, sizeof *a);
    int r = -1;
    if (!a || !dc || !ec)
        goto fail;
    a->dec = avcodec_alloc_context3(dc);
    a->enc = avcodec_alloc_context3(ec);
    a->frame = av_frame_alloc();
    if (!a->dec || !a->enc || !a->frame || avcodec_parameters_to_context(a->dec, s->par) < 0)
        goto fail;
    a->dec->pkt_timebase = s->time_base;
    if ((r = avcodec_open2(a->dec, dc, NULL)) < 0)
        goto fail;
    audio_format(ec, a->dec, a->enc);
    if (rate)
        a->enc->sample_rate = rate;
    const AVCodecDescriptor *desc = avcodec_descriptor_get(ec->id);
    if (!desc || !(desc->props & AV_CODEC_PROP_LOSSLESS))
        a->enc->bit_rate = 64000 * (int64_t)a->enc->ch_layout.nb_channels;
    a->enc->time_base = (AVRational){1, a->enc->sample_rate};
    if (global_header)
        a->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if ((r = avcodec_open2(a->enc, ec, NULL)) < 0)
        goto fail;
    a->chunk = a->enc->frame_size > 0 ? a->enc->frame_size : 1024; /* PCM: any size */
    r = swr_alloc_set_opts2(&a->swr, &a->enc->ch_layout, a->enc->sample_fmt, a->enc->sample_rate,
                            &a->dec->ch_layout, a->dec->sample_fmt, a->dec->sample_rate, 0, NULL);
    if (r < 0 || (r = swr_init(a->swr)) < 0)
        goto fail;
    a->fifo = av_audio_fifo_alloc(a->enc->sample_fmt, a->enc->ch_layout.nb_channels, 4096);
    if (!a->fifo)
        goto fail;
    *out = a;
    return 0;
fail:
    clv_audio_recode_close(a);
    return clv_io_fail(msg, -1, "'%.900s': cannot encode %s (%s) to %s%s%s", path, what,
                       avcodec_get_name(s->par->codec_id), ec ? ec->name : "sound",
                       r < 0 ? ": " : "", r < 0 ? clv_av_err(r, err, sizeof err) : "");
}

const AVCodecContext *clv_audio_recode_encoder(const clv_audio_recode *a)
{
    return a->enc;
}

void clv_audio_recode_set_output(clv_audio_recode *a, const AVStream *out, clv_packet_write write,
                                 void *user)
{
    a->out = out;
    a->write = write;
    a->user = user;
}

/* Encodes what the FIFO holds in the encoder's frames (all of it when
 * flushing) and writes the packets. */
static int drain(clv_audio_recode *a, int flush)
{
    AVPacket *pkt = av_packet_alloc();
    int r = 0, n = a->chunk;
    if (!pkt)
        return AVERROR(ENOMEM);
    while (r >= 0 && (av_audio_fifo_size(a->fifo) >= n || (flush && av_audio_fifo_size(a->fifo)))) {
        AVFrame *f = av_frame_alloc();
        int take = FFMIN(n, av_audio_fifo_size(a->fifo));
        if (!f)
            return AVERROR(ENOMEM);
        f->nb_samples = take;
        f->format = a->enc->sample_fmt;
        f->sample_rate = a->enc->sample_rate;
        av_channel_layout_copy(&f->ch_layout, &a->enc->ch_layout);
        if ((r = av_frame_get_buffer(f, 0)) >= 0 &&
            av_audio_fifo_read(a->fifo, (void **)f->data, take) == take) {
            f->pts = a->next_pts;
            a->next_pts += take;
            r = avcodec_send_frame(a->enc, f);
        }
        av_frame_free(&f);
        while (r >= 0 && (r = avcodec_receive_packet(a->enc, pkt)) == 0) {
            pkt->stream_index = a->out->index;
            av_packet_rescale_ts(pkt, a->enc->time_base, a->out->time_base);
            r = a->write(a->user, pkt);
        }
        if (r == AVERROR(EAGAIN))
            r = 0;
    }
    if (flush && r >= 0) {
        avcodec_send_frame(a->enc, NULL);
        while ((r = avcodec_receive_packet(a->enc, pkt)) == 0) {
            pkt->stream_index = a->out->index;
            av_packet_rescale_ts(pkt, a->enc->time_base, a->out->time_base);
            if ((r = a->write(a->user, pkt)) < 0)
                break;
        }
        if (r == AVERROR_EOF)
            r = 0;
    }
    av_packet_free(&pkt);
    return r;
}

/* A frame that starts at `at` (samples at the encoder's rate) later than
 * the samples so far reach, by more than 50 ms (a source that dropped and
 * came back: its sound follows the outage on the timeline), gets silence
 * before it, so that the sound stays with the picture; the samples are
 * counted from the first, so without it every later sample would come out
 * early by the gap. A few samples' jitter is left alone. */
static int fill_gap(clv_audio_recode *a, int64_t at)
{
    int64_t gap = at - (a->next_pts + av_audio_fifo_size(a->fifo));
    if (gap <= a->enc->sample_rate / 20)
        return 0;
    uint8_t **buf = NULL;
    const int chunk = 4096, channels = a->enc->ch_layout.nb_channels;
    if (av_samples_alloc_array_and_samples(&buf, NULL, channels, chunk, a->enc->sample_fmt, 0) < 0)
        return AVERROR(ENOMEM);
    av_samples_set_silence(buf, 0, chunk, channels, a->enc->sample_fmt);
    int r = 0;
    while (gap > 0 && r >= 0) {
        int n = gap < chunk ? (int)gap : chunk;
        if (av_audio_fifo_write(a->fifo, (void **)buf, n) < n)
            r = AVERROR(ENOMEM);
        else
            r = drain(a, 0); /* the FIFO stays small however long the outage */
        gap -= n;
    }
    av_freep(&buf[0]);
    av_freep(&buf);
    return r;
}

/* Decodes one packet (NULL: flush), resamples into the FIFO, encodes. */
int clv_audio_recode_packet(clv_audio_recode *a, const AVPacket *p)
{
    int r = avcodec_send_packet(a->dec, p);
    if (r < 0 && r != AVERROR_EOF)
        return r == AVERROR_INVALIDDATA ? 0 : r; /* a corrupt packet: skip it */
    while ((r = avcodec_receive_frame(a->dec, a->frame)) == 0) {
        if (a->frame->best_effort_timestamp != AV_NOPTS_VALUE) {
            int64_t at = av_rescale_q(a->frame->best_effort_timestamp, a->dec->pkt_timebase,
                                      a->enc->time_base);
            if (!a->anchored) {
                a->next_pts = at;
                a->anchored = 1;
            } else if ((r = fill_gap(a, at)) < 0) {
                return r;
            }
        }
        int max = swr_get_out_samples(a->swr, a->frame->nb_samples);
        uint8_t **buf = NULL;
        if (av_samples_alloc_array_and_samples(&buf, NULL, a->enc->ch_layout.nb_channels, max,
                                               a->enc->sample_fmt, 0) < 0)
            return AVERROR(ENOMEM);
        int got = swr_convert(a->swr, buf, max, (const uint8_t **)a->frame->extended_data,
                              a->frame->nb_samples);
        if (got > 0)
            av_audio_fifo_write(a->fifo, (void **)buf, got);
        av_freep(&buf[0]);
        av_freep(&buf);
        av_frame_unref(a->frame);
        if ((r = drain(a, 0)) < 0)
            return r;
    }
    if (!p) {
        int max = swr_get_out_samples(a->swr, 0);
        if (max > 0) {
            uint8_t **buf = NULL;
            if (av_samples_alloc_array_and_samples(&buf, NULL, a->enc->ch_layout.nb_channels, max,
                                                   a->enc->sample_fmt, 0) >= 0) {
                int got = swr_convert(a->swr, buf, max, NULL, 0);
                if (got > 0)
                    av_audio_fifo_write(a->fifo, (void **)buf, got);
                av_freep(&buf[0]);
                av_freep(&buf);
            }
        }
        return drain(a, 1);
    }
    return r == AVERROR(EAGAIN) || r == AVERROR_EOF ? 0 : r;
}
