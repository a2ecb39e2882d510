/* join.c - segments joined into one file without re-encoding: their video
 * packets one after another on one timeline, and the original input's sound
 * and subtitles copied beside them (how a job split over a cluster becomes
 * one output). */
#include "clvid/pipeline.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavformat/avformat.h>

#include "../io/io.h"

/* One input being read: its context and next packet of the streams wanted. */
typedef struct source {
    AVFormatContext *ic;
    AVPacket *pkt;
    int has; /* pkt holds a packet */
} source;

static int open_source(source *s, const char *path, clv_msg *msg)
{
    char err[128];
    int r = avformat_open_input(&s->ic, path, NULL, NULL);
    if (r >= 0)
        r = avformat_find_stream_info(s->ic, NULL);
    s->pkt = av_packet_alloc();
    if (r < 0 || !s->pkt)
        return clv_io_fail(msg, CLV_EIO, "cannot read '%.900s': %s", path,
                           r < 0 ? clv_av_err(r, err, sizeof err) : "out of memory");
    return 0;
}

static void close_source(source *s)
{
    av_packet_free(&s->pkt);
    avformat_close_input(&s->ic);
    s->has = 0;
}

/* The time of a packet in seconds, for interleaving. */
static double seconds(const AVPacket *p, AVRational tb)
{
    int64_t t = p->dts != AV_NOPTS_VALUE ? p->dts : p->pts;
    return t == AV_NOPTS_VALUE ? 0 : (double)t * av_q2d(tb);
}

int clv_join(const char *const *segments, int count, const char *streams_from, const char *output,
             int overwrite, clv_msg *msg)
{
    char err[128];
    msg->text[0] = 0;
    if (count < 1 || !output)
        return clv_io_fail(msg, CLV_EOPTION, "join: no segments or no output");
    int rc = clv_output_check(segments, count, output, NULL, overwrite, msg);
    if (!rc && streams_from)
        rc = clv_output_check(&streams_from, 1, output, NULL, 1, msg);
    if (rc)
        return rc;
    source seg = {0}, side = {0};
    AVFormatContext *oc = NULL;
    clv_outfile *file = NULL;
    int r = 0;
    int *side_map = NULL, side_streams = 0;

    if ((rc = open_source(&seg, segments[0], msg)))
        goto done;
    rc = CLV_EIO;
    int vin = av_find_best_stream(seg.ic, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (vin < 0) {
        rc = clv_io_fail(msg, CLV_EIO, "'%.900s' has no video stream", segments[0]);
        goto done;
    }
    if (avformat_alloc_output_context2(&oc, NULL, NULL, output) < 0 || !oc) {
        rc = clv_io_fail(msg, CLV_EIO, "'%.900s': cannot tell the output format from its extension",
                         output);
        goto done;
    }
    AVStream *vs = avformat_new_stream(oc, NULL);
    if (!vs || avcodec_parameters_copy(vs->codecpar, seg.ic->streams[vin]->codecpar) < 0)
        goto oom;
    vs->codecpar->codec_tag = 0;
    vs->time_base = seg.ic->streams[vin]->time_base;
    vs->avg_frame_rate = seg.ic->streams[vin]->avg_frame_rate;
    vs->sample_aspect_ratio = seg.ic->streams[vin]->sample_aspect_ratio;
    AVRational seg_tb = seg.ic->streams[vin]->time_base;
    if (streams_from) {
        if ((rc = open_source(&side, streams_from, msg)))
            goto done;
        rc = CLV_EIO;
        /* A stream that appears later (MPEG-TS) is past the map: skipped. */
        side_streams = (int)side.ic->nb_streams;
        side_map = av_calloc(side.ic->nb_streams, sizeof *side_map);
        if (!side_map)
            goto oom;
        for (unsigned i = 0; i < side.ic->nb_streams; i++) {
            AVStream *is = side.ic->streams[i];
            enum AVMediaType t = is->codecpar->codec_type;
            side_map[i] = -1;
            if ((t != AVMEDIA_TYPE_AUDIO && t != AVMEDIA_TYPE_SUBTITLE) ||
                (is->disposition & AV_DISPOSITION_ATTACHED_PIC) ||
                avformat_query_codec(oc->oformat, is->codecpar->codec_id, FF_COMPLIANCE_NORMAL) ==
                    0)
                continue;
            AVStream *os = avformat_new_stream(oc, NULL);
            if (!os || avcodec_parameters_copy(os->codecpar, is->codecpar) < 0)
                goto oom;
            os->codecpar->codec_tag = 0;
            os->time_base = is->time_base;
            os->disposition = is->disposition;
            av_dict_copy(&os->metadata, is->metadata, 0);
            side_map[i] = os->index;
        }
    }
    if (!(oc->oformat->flags & AVFMT_NOFILE)) {
        if ((rc = clv_outfile_open(output, NULL, overwrite, &file, msg)))
            goto done;
        rc = CLV_EIO;
        if ((r = avio_open(&oc->pb, clv_outfile_write_path(file), AVIO_FLAG_WRITE)) < 0) {
            rc = clv_io_fail(msg, CLV_EIO, "cannot write '%.900s': %s", output,
                             clv_av_err(r, err, sizeof err));
            goto done;
        }
    }
    if ((r = avformat_write_header(oc, NULL)) < 0) {
        rc = clv_io_fail(msg, CLV_EIO, "'%.900s': cannot start the file: %s", output,
                         clv_av_err(r, err, sizeof err));
        goto done;
    }

    /* The segments in turn, each shifted to start where the last ended;
     * the side streams' packets go in by time between them. */
    int64_t offset = 0; /* in seg_tb */
    for (int k = 0; k < count; k++) {
        if (k > 0) {
            close_source(&seg);
            if ((rc = open_source(&seg, segments[k], msg)))
                goto done;
            rc = CLV_EIO;
            vin = av_find_best_stream(seg.ic, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
            if (vin < 0 || seg.ic->streams[vin]->codecpar->codec_id != vs->codecpar->codec_id ||
                seg.ic->streams[vin]->codecpar->width != vs->codecpar->width ||
                seg.ic->streams[vin]->codecpar->height != vs->codecpar->height) {
                rc = clv_io_fail(msg, CLV_EIO,
                                 "'%.900s' is not a segment like the first (codec or size differ)",
                                 segments[k]);
                goto done;
            }
            /* One stream has one decoder setup (H.264's SPS and PPS, the
             * pixel format): packets of a segment encoded otherwise would
             * be decoded with the first's and come out broken. */
            const AVCodecParameters *a = seg.ic->streams[vin]->codecpar, *b = vs->codecpar;
            if (a->format != b->format || a->extradata_size != b->extradata_size ||
                (a->extradata_size &&
                 memcmp(a->extradata, b->extradata, (size_t)a->extradata_size))) {
                rc = clv_io_fail(msg, CLV_EIO,
                                 "'%.900s' is not a segment like the first (encoded with other "
                                 "settings: its pixel format or decoder setup differs)",
                                 segments[k]);
                goto done;
            }
        }
        AVRational tb = seg.ic->streams[vin]->time_base;
        int64_t start = AV_NOPTS_VALUE, end = 0;
        for (;;) {
            if (!seg.has) {
                r = av_read_frame(seg.ic, seg.pkt);
                if (r == AVERROR_EOF)
                    break;
                if (r < 0) {
                    rc = clv_io_fail(msg, CLV_EIO, "reading '%.900s': %s", segments[k],
                                     clv_av_err(r, err, sizeof err));
                    goto done;
                }
                if (seg.pkt->stream_index != vin) {
                    av_packet_unref(seg.pkt);
                    continue;
                }
                seg.has = 1;
            }
            AVPacket *p = seg.pkt;
            int64_t first = p->dts != AV_NOPTS_VALUE ? p->dts : p->pts;
            if (start == AV_NOPTS_VALUE)
                start = first;
            /* Side packets that come before this video packet go first. */
            double vt = (double)(first - start) * av_q2d(tb) + (double)offset * av_q2d(seg_tb);
            while (side.ic) {
                if (!side.has) {
                    if (av_read_frame(side.ic, side.pkt) < 0) {
                        close_source(&side);
                        break;
                    }
                    if (side.pkt->stream_index >= side_streams ||
                        side_map[side.pkt->stream_index] < 0) {
                        av_packet_unref(side.pkt);
                        continue;
                    }
                    side.has = 1;
                }
                AVStream *is = side.ic->streams[side.pkt->stream_index];
                if (seconds(side.pkt, is->time_base) > vt)
                    break;
                int out = side_map[side.pkt->stream_index];
                av_packet_rescale_ts(side.pkt, is->time_base, oc->streams[out]->time_base);
                side.pkt->stream_index = out;
                side.pkt->pos = -1;
                side.has = 0;
                if ((r = av_interleaved_write_frame(oc, side.pkt)) < 0)
                    goto write_failed;
            }
            int64_t shift = av_rescale_q(offset, seg_tb, tb) - start;
            int64_t last = (p->pts != AV_NOPTS_VALUE ? p->pts : first) + p->duration;
            if (last > end)
                end = last;
            if (p->pts != AV_NOPTS_VALUE)
                p->pts += shift;
            if (p->dts != AV_NOPTS_VALUE)
                p->dts += shift;
            av_packet_rescale_ts(p, tb, vs->time_base);
            p->stream_index = vs->index;
            p->pos = -1;
            seg.has = 0;
            if ((r = av_interleaved_write_frame(oc, p)) < 0)
                goto write_failed;
        }
        if (start != AV_NOPTS_VALUE)
            offset += av_rescale_q(end - start, tb, seg_tb);
    }
    /* The rest of the side streams (sound a little longer than the video). */
    while (side.ic) {
        if (!side.has && av_read_frame(side.ic, side.pkt) < 0)
            break;
        side.has = 0;
        int out = side.pkt->stream_index < side_streams ? side_map[side.pkt->stream_index] : -1;
        if (out < 0) {
            av_packet_unref(side.pkt);
            continue;
        }
        av_packet_rescale_ts(side.pkt, side.ic->streams[side.pkt->stream_index]->time_base,
                             oc->streams[out]->time_base);
        side.pkt->stream_index = out;
        side.pkt->pos = -1;
        if ((r = av_interleaved_write_frame(oc, side.pkt)) < 0)
            goto write_failed;
    }
    if ((r = av_write_trailer(oc)) < 0)
        goto write_failed;
    if (oc->pb && avio_closep(&oc->pb) < 0) {
        rc = clv_io_fail(msg, CLV_EIO, "closing '%.900s' failed (disk full?)", output);
        goto done;
    }
    if (file && clv_outfile_commit(file, msg))
        goto done;
    rc = 0;
    goto done;
write_failed:
    rc = clv_io_fail(msg, CLV_EIO, "writing '%.900s' failed: %s", output,
                     clv_av_err(r, err, sizeof err));
    goto done;
oom:
    rc = clv_io_fail(msg, CLV_ENOMEM, "out of memory");
done:
    if (oc && oc->pb)
        avio_closep(&oc->pb);
    clv_outfile_close(file);
    avformat_free_context(oc);
    close_source(&seg);
    close_source(&side);
    av_free(side_map);
    return rc;
}

int clv_probe(const char *path, clv_media_info *info, clv_msg *msg)
{
    memset(info, 0, sizeof *info);
    msg->text[0] = 0;
    source s = {0};
    int rc = open_source(&s, path, msg);
    if (rc)
        return close_source(&s), rc;
    int v = av_find_best_stream(s.ic, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (v < 0) {
        close_source(&s);
        return clv_io_fail(msg, CLV_EINVAL, "'%.900s' has no video stream", path);
    }
    AVStream *st = s.ic->streams[v];
    AVRational rate = av_guess_frame_rate(s.ic, st, NULL);
    info->width = st->codecpar->width;
    info->height = st->codecpar->height;
    info->rate_num = rate.num;
    info->rate_den = rate.den;
    info->duration = s.ic->duration > 0 ? (double)s.ic->duration / AV_TIME_BASE : 0;
    info->frames = st->nb_frames;
    for (unsigned i = 0; i < s.ic->nb_streams; i++)
        info->audio_streams += s.ic->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO;
    close_source(&s);
    return 0;
}
