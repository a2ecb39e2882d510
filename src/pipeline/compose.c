/* compose.c - the player's graphs of several inputs: input 0's frame and
 * the other inputs' frames for its time (framesync.c) through the running
 * graph's stage, out as an RGBA frame the player shows as if decoded. One
 * frame at a time: the player's own stage keeps its frames in flight. */
#include "compose.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/imgutils.h>

#include "framesync.h"
#include "sink.h"

struct clv_compose {
    clv_compose_options o;
    const clv_media_desc *in; /* input 0's, from its decoder */
    int rotation, hflip;
    clv_feed *feed; /* input 0's frames into the stage */
    clv_graph_desc *descs[CLV_COMPOSE_GRAPHS];
    char texts[CLV_COMPOSE_GRAPHS][1024];
    clv_graph *graphs[CLV_COMPOSE_GRAPHS];
    clv_graph_sync sync0[CLV_COMPOSE_GRAPHS]; /* input 0's timing in each */
    int index;
    clv_sync_input more[CLV_GRAPH_INPUTS];
    clv_context *ctx;
    clv_stage *stage;
    clv_media_desc media; /* the composed video's */
    uint64_t frames;
    /* Input 0's first frame's time t0: the graphs' time origin (xfade's
     * offset counts from it, clv_graph_set_time_origin). A live input 0 (a
     * camera's clock) has its times from there, as ffmpeg starts every
     * input at 0: the origin is 0 then. */
    int rebase, have_t0;
    double t0;
    /* The device times of the stages closed so far (clv_compose_times). */
    clv_stage_times past;
};

/* Adds the times of stage into *sum (the frames too). */
static void add_times(const clv_stage *stage, clv_stage_times *sum)
{
    clv_stage_times t;
    clv_stage_get_times(stage, &t);
    sum->frames += t.frames;
    sum->upload_ns += t.upload_ns;
    sum->kernels_ns += t.kernels_ns;
    sum->download_ns += t.download_ns;
    sum->to_rgba_ns += t.to_rgba_ns;
    sum->from_rgba_ns += t.from_rgba_ns;
}

void clv_compose_times(const clv_compose *c, clv_stage_times *t)
{
    *t = c->past;
    if (c->stage)
        add_times(c->stage, t);
}

/* Graph d's input 0 drives from its start (clv_sync_first_driver: a graph
 * whose output starts with another input's frames is refused). */
static int check_driver(const clv_graph_desc *d, int index, int count, clv_graph_sync *sync0,
                        clv_msg *msg)
{
    clv_msg why = {{0}};
    int err = clv_sync_first_driver(d, sync0, &why);
    const char *what = why.text, *prefix = "-filter_complex: ";
    if (!strncmp(what, prefix, strlen(prefix)))
        what += strlen(prefix);
    if (err && count > 1)
        return clv_io_fail(msg, err, "-filter_complex #%d: %.1000s", index + 1, what);
    if (err)
        *msg = why;
    return err;
}

int clv_compose_check_map(const char *map, int graph_count, clv_msg *msg)
{
    if (!map || !*map || graph_count > 0)
        return 0;
    return clv_io_fail(msg, CLV_EOPTION,
                       "-map '[%.200s]': no -filter_complex has a label %.200s (a label names a "
                       "graph's output: -filter_complex '...[%.200s]')",
                       map, map, map);
}

int clv_compose_check(const clv_compose_options *o, clv_msg *msg)
{
    if (o->graph_count < 1 || o->graph_count > CLV_COMPOSE_GRAPHS)
        return clv_io_fail(msg, CLV_EOPTION, "%d -filter_complex: expected 1 to %d", o->graph_count,
                           CLV_COMPOSE_GRAPHS);
    if (o->more_count < 0 || o->more_count >= CLV_GRAPH_INPUTS)
        return clv_io_fail(msg, CLV_EOPTION, "%d inputs: expected 1 to %d", 1 + o->more_count,
                           CLV_GRAPH_INPUTS);
    for (int i = 0; i < o->graph_count; i++) {
        clv_graph_desc *d = NULL;
        clv_msg parsed = {{0}};
        int err = clv_graph_parse(o->graphs[i], 1 + o->more_count, o->map, &d, &parsed);
        clv_graph_sync sync0;
        if (!err)
            err = check_driver(d, i, o->graph_count, &sync0, msg);
        else if (o->graph_count > 1)
            clv_io_fail(msg, err, "-filter_complex #%d: %.1000s", i + 1, parsed.text);
        else
            clv_io_fail(msg, err, "-filter_complex: %.1000s", parsed.text);
        clv_graph_desc_destroy(d);
        if (err)
            return err;
    }
    return 0;
}

/* The output size of graph `index` for the inputs as opened. */
static int output_size(clv_compose *c, int index, clv_size *out, clv_msg *msg)
{
    clv_size sizes[CLV_GRAPH_INPUTS];
    sizes[0] = clv_pipeline_upright(c->in, c->rotation);
    for (int i = 1; i <= c->o.more_count; i++)
        sizes[i] = clv_pipeline_upright(c->more[i - 1].media, 0);
    clv_msg why = {{0}};
    int err = c->graphs[index] ? clv_graph_output_size(c->graphs[index], sizes, out, &why)
                               : clv_graph_desc_output_size(c->descs[index], sizes, out, &why);
    if (err && c->o.graph_count > 1)
        return clv_io_fail(msg, err, "-filter_complex #%d: %.1000s", index + 1, why.text);
    if (err)
        return clv_io_fail(msg, err, "-filter_complex: %.1000s", why.text);
    return 0;
}

/* The composed video's description for an output of `size`. */
static void describe(clv_compose *c, const clv_size *size)
{
    clv_media_desc *m = &c->media;
    *m = *c->in;
    m->codec_id = AV_CODEC_ID_RAWVIDEO;
    m->width = size->width;
    m->height = size->height;
    m->pix_fmt = m->coded_pix_fmt = AV_PIX_FMT_RGBA;
    m->hwaccel = m->hwaccel_fallback = NULL;
    m->rgb = 1;
    m->alpha = 0;
    m->color = clv_feed_color(c->feed);
    m->rotation = m->hflip = 0;
    m->sample_aspect = (AVRational){size->sar_num, size->sar_den};
    m->side_data = NULL; /* input 0's display matrix is applied */
    m->side_data_count = 0;
}

int clv_compose_open(const clv_compose_options *o, const clv_media_desc *in, int rotation,
                     int hflip, clv_compose **out, clv_msg *msg)
{
    *out = NULL;
    clv_compose *c = calloc(1, sizeof *c);
    if (!c)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    c->o = *o;
    c->in = in;
    c->rotation = rotation;
    c->hflip = hflip;
    c->rebase = in->live;
    int err = clv_feed_create(in, 8, &c->feed, msg);
    for (int i = 0; !err && i < o->graph_count; i++) {
        clv_msg parsed = {{0}};
        if ((err = clv_graph_parse(o->graphs[i], 1 + o->more_count, o->map, &c->descs[i], &parsed)))
            clv_io_fail(msg, err, "-filter_complex: %.1000s", parsed.text);
        else if (!(err = check_driver(c->descs[i], i, o->graph_count, &c->sync0[i], msg)))
            clv_graph_format(c->descs[i], c->texts[i], sizeof c->texts[i]);
    }
    for (int i = 1; !err && i <= o->more_count; i++) {
        clv_sync_input *m = &c->more[i - 1];
        if (!(err = clv_sync_input_open(m, &o->more[i - 1], o->realtime, msg)))
            err = clv_sync_input_feed(m, 8, msg);
        if (!err)
            clv_sync_input_graph(m, c->descs[0], i);
    }
    clv_size size;
    if (!err && !(err = output_size(c, 0, &size, msg)))
        describe(c, &size);
    if (err) {
        clv_compose_close(c);
        return err;
    }
    *out = c;
    return 0;
}

const clv_media_desc *clv_compose_media(const clv_compose *c)
{
    return &c->media;
}

/* The stage of graph c->index: input 0 upright, the others as stored. */
static int open_stage(clv_compose *c, clv_msg *msg)
{
    clv_stage_input_format inputs[CLV_GRAPH_INPUTS];
    memset(inputs, 0, sizeof inputs);
    for (int i = 1; i <= c->o.more_count; i++) {
        const clv_sync_input *m = &c->more[i - 1];
        inputs[i] = (clv_stage_input_format){m->media->width, m->media->height,
                                             clv_feed_format(m->feed), clv_feed_color(m->feed)};
    }
    clv_stage_options so = {.struct_size = sizeof(clv_stage_options),
                            .width = c->in->width,
                            .height = c->in->height,
                            .in_format = clv_feed_format(c->feed),
                            .out_format = CLV_PIX_RGBA,
                            .in_color = clv_feed_color(c->feed),
                            .out_color = clv_feed_color(c->feed),
                            .slots = 1,
                            .rotation = c->rotation,
                            .hflip = c->hflip,
                            .profiling = c->o.profiling};
    return clv_stage_create_graph(c->ctx, &so, c->graphs[c->index], inputs, &c->stage, msg);
}

int clv_compose_start(clv_compose *c, clv_context *ctx, clv_msg *msg)
{
    c->ctx = ctx;
    int err = 0;
    for (int i = 0; !err && i < c->o.graph_count; i++) {
        clv_msg why = {{0}};
        if ((err = clv_graph_create(ctx, c->descs[i], 8, &c->graphs[i], &why)) &&
            c->o.graph_count > 1)
            clv_io_fail(msg, err, "-filter_complex #%d: %.1000s", i + 1, why.text);
        else if (err)
            clv_io_fail(msg, err, "-filter_complex: %.1000s", why.text);
        else
            clv_graph_set_frame_rate(c->graphs[i], c->in->frame_rate.num, c->in->frame_rate.den);
    }
    if (!err)
        err = open_stage(c, msg);
    for (int i = 0; !err && i < c->o.more_count; i++)
        err = clv_sync_input_start(&c->more[i], msg);
    return err;
}

static int cancelled(void *user)
{
    const clv_compose *c = user;
    return c->o.cancel && *c->o.cancel;
}

/* What the other inputs are synced to: input 0's first frame (0 for a
 * live one, whose times start there) and time base; their sound dropped
 * (the sound played is input 0's). */
static clv_sync_clock sync_clock(clv_compose *c)
{
    return (clv_sync_clock){c->rebase ? 0 : c->t0, c->in->time_base, cancelled, NULL, c};
}

int clv_compose_frame(clv_compose *c, const AVFrame *f, AVFrame **out, int *ended, clv_msg *msg)
{
    *out = NULL;
    *ended = 0;
    double t = clv_sync_frame_seconds(f, c->in);
    if (!c->have_t0) {
        c->t0 = t;
        c->have_t0 = 1;
        for (int i = 0; i < c->o.graph_count; i++)
            clv_graph_set_time_origin(c->graphs[i], c->rebase ? 0 : t);
    }
    if (c->rebase)
        t -= c->t0;
    clv_sync_clock clock = sync_clock(c);
    const clv_graph_desc *d = c->descs[c->index];
    int picked[CLV_GRAPH_INPUTS] = {0};
    for (int i = 0; i < c->o.more_count; i++) {
        picked[i] = clv_graph_desc_uses(d, i + 1) ? clv_sync_pick(&c->more[i], i + 1, &clock, t)
                                                  : CLV_PICK_ABSENT;
        if (picked[i] < 0 || picked[i] == CLV_PICK_END) {
            *ended = 1;
            return 0;
        }
        if (picked[i] == CLV_PICK_SKIP)
            return 0;
    }
    uint8_t *slot = clv_stage_input(c->stage);
    if (!slot)
        return clv_io_fail(msg, CLV_EINVAL, "graph stage: no slot for a frame");
    /* Input 0 is not read after xfade's transition: the filter hands over
     * to its second input, whose frames are shown at input 0's times. */
    const clv_graph_sync *s0 = &c->sync0[c->index];
    double since = t - clock.t0;
    int err = 0;
    if (since < s0->from || since >= s0->until)
        clv_stage_input_absent(c->stage, 0);
    else if (!(err = clv_feed_check(c->feed, f, msg)))
        err = clv_feed_write(c->feed, f, slot, msg);
    for (int i = 0; !err && i < c->o.more_count; i++) {
        clv_sync_input *m = &c->more[i];
        if (picked[i] != CLV_PICK_FRAME) {
            clv_stage_input_absent(c->stage, i + 1);
            continue;
        }
        if (!(err = clv_feed_check(m->feed, m->cur, msg)))
            err = clv_feed_write(m->feed, m->cur, clv_stage_input_at(c->stage, i + 1), msg);
    }
    if (!err)
        err = clv_stage_submit_at(c->stage, c->frames, t, msg);
    const uint8_t *px;
    uint64_t index;
    if (err || (err = clv_stage_output(c->stage, &px, &index, msg)))
        return err;
    int w, h;
    clv_stage_output_size(c->stage, &w, &h);
    AVFrame *g = av_frame_alloc();
    if (g) {
        g->format = AV_PIX_FMT_RGBA;
        g->width = w;
        g->height = h;
    }
    if (!g || av_frame_get_buffer(g, 0) < 0 || av_frame_copy_props(g, f) < 0) {
        av_frame_free(&g);
        clv_stage_release(c->stage);
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    }
    av_image_copy_plane(g->data[0], g->linesize[0], px, w * 4, w * 4, h);
    clv_stage_release(c->stage);
    g->sample_aspect_ratio = c->media.sample_aspect;
    c->frames++;
    *out = g;
    return 0;
}

int clv_compose_count(const clv_compose *c)
{
    return c->o.graph_count;
}

int clv_compose_index(const clv_compose *c)
{
    return c->index;
}

const char *clv_compose_text(const clv_compose *c, int index)
{
    return c->texts[index];
}

int clv_compose_select(clv_compose *c, int index, clv_msg *msg)
{
    clv_size size;
    int err = output_size(c, index, &size, msg);
    if (err)
        return err;
    clv_stage *was = c->stage;
    int was_index = c->index;
    c->index = index;
    c->stage = NULL;
    if ((err = open_stage(c, msg))) {
        c->index = was_index;
        c->stage = was;
        return err;
    }
    add_times(was, &c->past);
    clv_stage_destroy(was);
    describe(c, &size);
    /* each input's timing is the running graph's */
    for (int i = 1; i <= c->o.more_count; i++)
        clv_sync_input_graph(&c->more[i - 1], c->descs[index], i);
    return 0;
}

int clv_compose_can_seek(const clv_compose *c, char *why, size_t size)
{
    for (int i = 0; i < c->o.more_count; i++) {
        const clv_sync_input *m = &c->more[i];
        if (m->media->live) {
            snprintf(why, size, "input %d (%.200s) is live: no time to go to", i + 1,
                     m->media->path);
            return 1;
        }
    }
    return 0;
}

int clv_compose_seek(clv_compose *c, double seconds, clv_msg *msg)
{
    int err = 0;
    clv_sync_clock clock = sync_clock(c);
    for (int i = 0; !err && i < c->o.more_count; i++) {
        clv_sync_input *m = &c->more[i];
        if (!clv_sync_input_still(m))
            err = clv_sync_input_seek(m, clv_sync_input_time(m, &clock, seconds), msg);
    }
    return err;
}

void clv_compose_close(clv_compose *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->o.more_count; i++)
        clv_sync_input_stop(&c->more[i]);
    clv_stage_destroy(c->stage);
    for (int i = 0; i < CLV_COMPOSE_GRAPHS; i++) {
        clv_graph_destroy(c->graphs[i]);
        clv_graph_desc_destroy(c->descs[i]);
    }
    for (int i = 0; i < CLV_GRAPH_INPUTS; i++)
        clv_sync_input_close(&c->more[i]);
    clv_feed_destroy(c->feed);
    free(c);
}
