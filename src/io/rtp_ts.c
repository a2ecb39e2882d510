/* rtp_ts.c - MPEG-TS in RTP (RFC 2250, payload type 33) for rtp://
 * outputs: the mpegts muxer writes into an AVIOContext of whole TS packets
 * whose every buffer (up to 7 packets, fewer at a flush) goes out as one
 * RTP packet. FFmpeg 5.1's rtp_mpegts muxer keeps up to 6 TS packets back
 * and never sends them at its end: a receiver lost the stream's last
 * frame. */
#include "io.h"

#include <stdlib.h>
#include <string.h>

#include <libavutil/intreadwrite.h>
#include <libavutil/random_seed.h>
#include <libavutil/time.h>

enum { TS_PACKET = 188, RTP_HEADER = 12, RTP_PT_MP2T = 33 };

struct clv_rtp_ts {
    AVIOContext *net; /* the rtp:// URL: each flush of it is one datagram */
    AVIOContext *pb;  /* what the muxer writes into */
    uint16_t seq;
    uint32_t ssrc;
    int64_t start_us;
    uint8_t packet[RTP_HEADER + 7 * TS_PACKET];
};

/* One RTP packet of TS packets. Its timestamp is the 90 kHz time it is
 * sent at, which RFC 2250 asks of MPEG-TS (the timing is the TS's own). */
static int send_packet(void *opaque, uint8_t *buf, int size)
{
    clv_rtp_ts *r = opaque;
    if (size <= 0 || size > 7 * TS_PACKET)
        return AVERROR(EINVAL);
    uint32_t ts = (uint32_t)((av_gettime_relative() - r->start_us) * 9 / 100);
    uint8_t *h = r->packet;
    h[0] = 0x80; /* version 2, no padding, no extension, no CSRC */
    h[1] = RTP_PT_MP2T;
    h[2] = (uint8_t)(r->seq >> 8);
    h[3] = (uint8_t)r->seq;
    AV_WB32(h + 4, ts);
    AV_WB32(h + 8, r->ssrc);
    memcpy(h + RTP_HEADER, buf, (size_t)size);
    r->seq++;
    avio_write(r->net, h, RTP_HEADER + size);
    avio_flush(r->net);
    return r->net->error < 0 ? r->net->error : size;
}

int clv_rtp_ts_open(const char *url, AVDictionary **options, clv_rtp_ts **out, AVIOContext **pb)
{
    *out = NULL;
    *pb = NULL;
    clv_rtp_ts *r = calloc(1, sizeof *r);
    if (!r)
        return AVERROR(ENOMEM);
    int err = avio_open2(&r->net, url, AVIO_FLAG_WRITE, NULL, options);
    if (err < 0) {
        free(r);
        return err;
    }
    /* As many TS packets as a datagram holds (?pkt_size= in the URL), 7
     * (1316 bytes) at most, as everyone sends. */
    int per_packet =
        r->net->max_packet_size ? (r->net->max_packet_size - RTP_HEADER) / TS_PACKET : 7;
    per_packet = per_packet > 7 ? 7 : per_packet;
    uint8_t *buffer = per_packet > 0 ? av_malloc((size_t)per_packet * TS_PACKET) : NULL;
    if (buffer)
        r->pb = avio_alloc_context(buffer, per_packet * TS_PACKET, 1, r, NULL, send_packet, NULL);
    if (!r->pb) {
        av_free(buffer);
        avio_closep(&r->net);
        free(r);
        return per_packet > 0 ? AVERROR(ENOMEM) : AVERROR(EINVAL);
    }
    r->seq = (uint16_t)av_get_random_seed();
    r->ssrc = av_get_random_seed();
    r->start_us = av_gettime_relative();
    *out = r;
    *pb = r->pb;
    return 0;
}

int clv_rtp_ts_close(clv_rtp_ts **rtp)
{
    clv_rtp_ts *r = *rtp;
    if (!r)
        return 0;
    *rtp = NULL;
    avio_flush(r->pb); /* the last TS packets: what rtp_mpegts left unsent */
    int err = r->pb->error < 0 ? r->pb->error : 0;
    av_freep(&r->pb->buffer);
    avio_context_free(&r->pb);
    int closed = avio_closep(&r->net);
    free(r);
    return err < 0 ? err : closed;
}
