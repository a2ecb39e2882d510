/* framesync.c - a graph's inputs after the first, each on a decoder
 * thread of its own, sampled at the output's times as ffmpeg's framesync
 * samples them (clv_graph_desc_sync gives each input's rules). */
#include "framesync.h"

#include <math.h>
#include <string.h>

int clv_sync_input_open(clv_sync_input *m, const clv_transcode_input *t, int realtime, clv_msg *msg)
{
    memset(m, 0, sizeof *m);
    clv_input_options io = {.path = t->path,
                            .format = t->format,
                            .start_us = t->start_us,
                            .duration_us = t->duration_us,
                            .live = clv_io_network_url(t->path),
                            .realtime = realtime};
    int err = clv_decoder_open(&io, &m->dec, msg);
    if (err)
        return err;
    m->media = clv_decoder_media(m->dec);
    m->offset_us = t->offset_us;
    return 0;
}

void clv_sync_input_graph(clv_sync_input *m, const clv_graph_desc *desc, int index)
{
    memset(&m->sync, 0, sizeof m->sync);
    if (clv_graph_desc_uses(desc, index))
        clv_graph_desc_sync(desc, index, &m->sync);
}

int clv_sync_input_feed(clv_sync_input *m, int depth, clv_msg *msg)
{
    int err = depth == 16 ? clv_feed_create_deep(m->media, &m->feed, msg)
                          : clv_feed_create(m->media, 8, &m->feed, msg);
    if (!err && !(m->q = clv_queue_create(8)))
        err = clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    return err;
}

int clv_sync_input_start(clv_sync_input *m, clv_msg *msg)
{
    if (clv_decoder_start(m->dec, m->q, NULL))
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory (threads)");
    return 0;
}

void clv_sync_input_stop(clv_sync_input *m)
{
    if (m->dec)
        clv_decoder_stop(m->dec);
}

void clv_sync_input_close(clv_sync_input *m)
{
    if (m->q)
        clv_queue_abort(m->q);
    av_frame_free(&m->cur);
    av_frame_free(&m->next);
    clv_decoder_close(m->dec);
    clv_queue_destroy(m->q);
    clv_feed_destroy(m->feed);
    memset(m, 0, sizeof *m);
}

int clv_sync_input_still(const clv_sync_input *m)
{
    return m->eof && m->frames == 1 && m->cur && !m->next;
}

int clv_sync_input_seek(clv_sync_input *m, double seconds, clv_msg *msg)
{
    clv_decoder_stop(m->dec);
    clv_queue_destroy(m->q);
    av_frame_free(&m->cur);
    av_frame_free(&m->next);
    m->eof = m->frames = 0;
    if (!(m->q = clv_queue_create(8)))
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    /* its own time less -itsoffset: the decoder's */
    double at = seconds - (double)m->offset_us / 1e6;
    int err = clv_decoder_seek(m->dec, (int64_t)((at > 0 ? at : 0) * 1e6), msg);
    return err ? err : clv_sync_input_start(m, msg);
}

double clv_sync_frame_seconds(const AVFrame *f, const clv_media_desc *m)
{
    return f->pts == AV_NOPTS_VALUE ? 0 : (double)f->pts * av_q2d(m->time_base);
}

/* Where frame f of input m ends: its duration, else one frame at the
 * input's rate. */
static double frame_end(const AVFrame *f, const clv_media_desc *m)
{
    double d = f->pkt_duration > 0 ? (double)f->pkt_duration * av_q2d(m->time_base) : 0;
    if (d <= 0 && m->frame_rate.num > 0 && m->frame_rate.den > 0)
        d = av_q2d(av_inv_q(m->frame_rate));
    return clv_sync_frame_seconds(f, m) + d;
}

/* Input m's frame f has arrived: moved by its -itsoffset, and its first's
 * time kept. */
static void note_frame(clv_sync_input *m, AVFrame *f)
{
    if (m->offset_us && f->pts != AV_NOPTS_VALUE)
        f->pts += av_rescale_q(m->offset_us, AV_TIME_BASE_Q, m->media->time_base);
    if (!m->have_first) {
        m->first = clv_sync_frame_seconds(f, m->media);
        m->have_first = 1;
    }
    m->frames++;
}

/* 1 when input m's times count from its first frame (see clv_sync_input). */
static int own_timeline(const clv_sync_input *m)
{
    return m->sync.offset != 0 || m->sync.drive_from < m->sync.drive_until;
}

double clv_sync_input_time(const clv_sync_input *m, const clv_sync_clock *c, double t)
{
    if (!own_timeline(m))
        return t - m->sync.offset;
    return t - c->t0 - m->sync.offset + m->first;
}

/* Takes the next item of m's queue (waiting 0.1 s at most) into m->next
 * or m->eof, its sound to c->packet: 0, 1 when none came, -1 on a stop. */
static int take(clv_sync_input *m, int index, const clv_sync_clock *c)
{
    int kind;
    void *item;
    int got = clv_queue_pop_wait(m->q, &kind, &item, 0.1);
    if (c->stop && c->stop(c->user)) {
        if (got == 0)
            clv_item_free(kind, item);
        return -1;
    }
    if (got == 1)
        return 1;
    if (got < 0 || kind == CLV_ITEM_END)
        m->eof = 1;
    else if (kind == CLV_ITEM_FRAME)
        note_frame(m, m->next = item);
    else if (kind == CLV_ITEM_PACKET && c->packet)
        c->packet(c->user, index, item);
    else
        clv_item_free(kind, item);
    return 0;
}

int clv_sync_pick(clv_sync_input *m, int index, const clv_sync_clock *c, double t)
{
    const clv_graph_sync *sync = &m->sync;
    /* Half a tick of each time base: after -ss each input's timestamps
     * are moved back by it rounded to its own ticks (clvid-cluster's cuts
     * of input 0 and of this one), which may put a frame at the same time
     * as input 0's a tick apart. */
    double slack = 1e-9 + (av_q2d(m->media->time_base) + av_q2d(c->time_base)) / 2;
    for (;;) {
        if (!m->next && !m->eof) {
            if (take(m, index, c) < 0)
                return -1;
            continue;
        }
        if (m->next &&
            clv_sync_frame_seconds(m->next, m->media) <= clv_sync_input_time(m, c, t) + slack) {
            av_frame_free(&m->cur);
            m->cur = m->next;
            m->next = NULL;
            continue;
        }
        break;
    }
    if (t - c->t0 < sync->from || t - c->t0 >= sync->until)
        return CLV_PICK_ABSENT;
    if (!m->cur)
        return sync->wait_first ? (m->eof ? CLV_PICK_END : CLV_PICK_SKIP) : CLV_PICK_ABSENT;
    if (m->eof && !m->next && clv_sync_input_time(m, c, t) >= frame_end(m->cur, m->media) - 1e-9) {
        if (sync->eof_action == CLV_EOF_ENDALL)
            return CLV_PICK_END;
        if (sync->eof_action == CLV_EOF_PASS)
            return CLV_PICK_ABSENT;
    }
    return CLV_PICK_FRAME;
}

AVFrame *clv_sync_next_frame(clv_sync_input *m, int index, const clv_sync_clock *c)
{
    while (!m->next && !m->eof)
        if (take(m, index, c) < 0)
            return NULL;
    AVFrame *f = m->next;
    m->next = NULL;
    return f;
}

int clv_sync_first_driver(const clv_graph_desc *g, clv_graph_sync *sync0, clv_msg *msg)
{
    *sync0 = (clv_graph_sync){0, 0, INFINITY, 0, INFINITY, CLV_EOF_REPEAT, 1};
    if (!clv_graph_desc_uses(g, 0))
        return 0;
    clv_graph_desc_sync(g, 0, sync0);
    if (sync0->drive_from <= 0 && sync0->drive_until > 0)
        return 0;
    for (int i = 1; i < clv_graph_desc_inputs(g); i++) {
        clv_graph_sync s;
        if (clv_graph_desc_uses(g, i) && !clv_graph_desc_sync(g, i, &s) && s.drive_from <= 0 &&
            s.drive_until > 0)
            return clv_io_fail(msg, CLV_EOPTION,
                               "-filter_complex: the output starts with input %d's frames (its "
                               "timestamps), not input 0's: give input %d as the first -i",
                               i, i);
    }
    return clv_io_fail(msg, CLV_EOPTION,
                       "-filter_complex: the output starts with no input's frames (input 0 "
                       "drives from %g s)",
                       sync0->drive_from);
}

int clv_sync_next_driver(const clv_sync_input *more, int count, const clv_graph_desc *g, int from,
                         double t)
{
    for (int i = 1; i <= count; i++) {
        const clv_graph_sync *s = &more[i - 1].sync;
        if (i != from && clv_graph_desc_uses(g, i) && s->drive_from <= t + 1e-9 &&
            t < s->drive_until - 1e-9)
            return i;
    }
    return -1;
}
