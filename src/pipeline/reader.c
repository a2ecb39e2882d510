/* reader.c - the filtered frames of an input, one at a time, as RGBA in
 * memory: the decoder thread feeds the GPU stage (several frames in
 * flight), and each call hands out the oldest result in place. For programs that want
 * the pictures rather than a file (the Python package's frames()). With a
 * graph of several inputs, input 0's frames are composed first (compose.c,
 * as the player's) and the stage runs the chain after the graph. */
#include "clvid/pipeline.h"

#include <stdlib.h>
#include <string.h>

#include "../io/io.h"
#include "compose.h"
#include "sink.h"

#define RING 64 /* timestamps of the frames in the stage, by submit index */

struct clv_reader {
    clv_decoder *dec;
    /* -filter_complex over input 0 and options->more_inputs: the graph's
     * RGBA frames are what the stage takes; NULL for one input's chain.
     * graph: the one text compose borrows. */
    clv_compose *compose;
    const char *graph[1];
    clv_queue *queue;
    clv_feed *feed;
    clv_context *ctx;
    clv_chain *chain;
    clv_stage *stage;
    AVRational tb;
    int width, height; /* upright */
    int holding;       /* the frame last returned is still the stage's oldest output */
    double seconds[RING];
    uint64_t submitted;
    uint64_t first_index; /* the first run's index (options->first_frame_index, rate a frame) */
    int eof;
    /* A chain that holds frames back (a deinterlacer, clv_chain_cadence):
     * its output lags by delay frames and it makes rate of each (2: a
     * frame per field). Each frame is submitted rate times (owed: the
     * runs still due for the last one; a field's second run reads what
     * the deinterlacer kept, not the slot), the first delay * rate
     * outputs are dropped, and at the end the chain is told and run
     * delay * rate more times (flush) on whatever the slot holds, which
     * the deinterlacer does not read then either. frames: the frames in;
     * last_seconds: the last two frames' times, for the flush's. */
    int delay, rate, owed, flush;
    uint64_t frames;
    double last_seconds[2];
};

void clv_reader_close(clv_reader *r)
{
    if (!r)
        return;
    if (r->dec)
        clv_decoder_stop(r->dec);
    clv_queue_destroy(r->queue);
    clv_decoder_close(r->dec);
    clv_stage_destroy(r->stage);
    clv_chain_destroy(r->chain);
    clv_compose_close(r->compose); /* its graphs and stage are on ctx */
    clv_context_destroy(r->ctx);
    clv_feed_destroy(r->feed);
    free(r);
}

/* The stage: the input's frames in, upright RGBA out, several in flight. */
static int open_stage(clv_reader *r, const clv_transcode_options *o, const clv_chain_desc *desc,
                      const clv_media_desc *in, clv_msg *msg)
{
    clv_context_options copt;
    clv_transcode_engine_options(o, &copt);
    int err = clv_context_create(&copt, &r->ctx, msg);
    if (!err && r->compose)
        err = clv_compose_start(r->compose, r->ctx, msg);
    if (!err)
        err = clv_chain_create(r->ctx, desc, &r->chain, msg);
    if (err)
        return err;
    clv_chain_set_frame_rate(r->chain, in->frame_rate.num, in->frame_rate.den);
    clv_stage_options so = {.struct_size = sizeof(clv_stage_options),
                            .width = in->width,
                            .height = in->height,
                            .in_format = clv_feed_format(r->feed),
                            .out_format = CLV_PIX_RGBA,
                            .in_color = clv_feed_color(r->feed),
                            .out_color = clv_feed_color(r->feed),
                            .slots = 3,
                            .rotation = o->no_autorotate ? 0 : in->rotation,
                            .hflip = o->no_autorotate ? 0 : in->hflip};
    /* The chain is told the input's aspect (expressions reading sar, dar). */
    clv_size up = clv_pipeline_upright(in, so.rotation), out;
    if ((err = clv_chain_output_size(r->chain, &up, &out, msg)) ||
        (err = clv_stage_create(r->ctx, &so, r->chain, &r->stage, msg)))
        return err;
    clv_stage_output_size(r->stage, &r->width, &r->height);
    clv_chain_cadence(r->chain, &r->delay, &r->rate);
    /* A frame's runs are rate apart, as in the whole video's (transcode's) */
    r->first_index = o->first_frame_index * (uint64_t)r->rate;
    return 0;
}

/* The graph's options for compose: the one -filter_complex over input 0
 * and the inputs after it. */
static clv_compose_options compose_options(const clv_transcode_options *o, const char *const *graph)
{
    return (clv_compose_options){.graphs = graph,
                                 .graph_count = 1,
                                 .map = o->map,
                                 .more = o->more_inputs,
                                 .more_count = o->more_input_count,
                                 .realtime = o->realtime};
}

/* -filter_complex (and more inputs): checked as a transcode's, except that
 * a -vf chain is the one after the graph (the player's main chain). A graph
 * that is one chain over input 0, with no -vf, is that chain (*composed 0);
 * else *composed is 1 and *desc the chain after the graph. */
static int check_graph(const clv_transcode_options *o, const char *const *graph,
                       clv_chain_desc **desc, int *composed, clv_msg *msg)
{
    *composed = 0;
    if (!o->filter_complex)
        return clv_io_fail(msg, CLV_EOPTION,
                           "%d inputs and no -filter_complex: a graph says how they join",
                           1 + o->more_input_count);
    if (!*o->filter_complex) /* '' or an empty -filter_complex_script */
        return clv_io_fail(msg, CLV_EOPTION, "-filter_complex: the graph is empty");
    if (o->more_input_count < 0 || o->more_input_count >= CLV_GRAPH_INPUTS ||
        (o->more_input_count && !o->more_inputs))
        return clv_io_fail(msg, CLV_EOPTION, "%d inputs: expected 1 to %d", 1 + o->more_input_count,
                           CLV_GRAPH_INPUTS);
    for (int i = 0; i < o->more_input_count; i++)
        if (!o->more_inputs[i].path || !*o->more_inputs[i].path)
            return clv_io_fail(msg, CLV_EOPTION, "input %d: no path given", i + 1);
    clv_graph_desc *g = NULL;
    clv_msg parsed = {{0}};
    int err = clv_graph_parse(o->filter_complex, 1 + o->more_input_count, o->map, &g, &parsed);
    if (err)
        return clv_io_fail(msg, err, "-filter_complex: %.1000s", parsed.text);
    const int vf = o->chain && *o->chain;
    *desc = o->more_input_count == 0 && !vf ? clv_graph_desc_chain(g) : NULL;
    clv_graph_desc_destroy(g);
    if (*desc)
        return 0;
    clv_compose_options co = compose_options(o, graph);
    if ((err = clv_compose_check(&co, msg)))
        return err;
    *composed = 1;
    if ((err = clv_chain_parse(o->chain, desc, &parsed)))
        return clv_io_fail(msg, err, "-vf: %.1000s", parsed.text);
    return 0;
}

int clv_reader_open(const clv_transcode_options *o, clv_reader **out, clv_msg *msg)
{
    *out = NULL;
    msg->text[0] = 0;
    if (!o->input || !*o->input)
        return clv_io_fail(msg, CLV_EOPTION, "no input given");
    clv_reader *r = calloc(1, sizeof *r);
    if (!r)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    r->graph[0] = o->filter_complex;
    clv_chain_desc *desc = NULL;
    int err = clv_compose_check_map(o->map, o->filter_complex ? 1 : 0, msg), composed = 0;
    if (err)
        goto fail;
    if (o->filter_complex || o->more_input_count)
        err = check_graph(o, r->graph, &desc, &composed, msg);
    else
        err = clv_chain_parse(o->chain, &desc, msg);
    if (err)
        goto fail;
    clv_input_options in = clv_pipeline_input(o);
    if ((err = clv_decoder_open(&in, &r->dec, msg)))
        goto fail;
    /* What the input is, found once by the decoder: the rest follows. A
     * graph's output is what the stage takes then: RGBA, upright, input
     * 0's timing. */
    const clv_media_desc *media = clv_decoder_media(r->dec);
    if (composed) {
        clv_compose_options co = compose_options(o, r->graph);
        if ((err = clv_compose_open(&co, media, o->no_autorotate ? 0 : media->rotation,
                                    o->no_autorotate ? 0 : media->hflip, &r->compose, msg)))
            goto fail;
        media = clv_compose_media(r->compose);
    }
    r->tb = media->time_base;
    if ((err = clv_feed_create(media, 8, &r->feed, msg)) ||
        (err = open_stage(r, o, desc, media, msg)))
        goto fail;
    r->queue = clv_queue_create(8);
    if (!r->queue || clv_decoder_start(r->dec, r->queue, NULL)) {
        err = clv_io_fail(msg, CLV_ENOMEM, "out of memory");
        goto fail;
    }
    *out = r;
    clv_chain_desc_destroy(desc);
    return 0;
fail:
    clv_chain_desc_destroy(desc);
    clv_reader_close(r);
    return err;
}

void clv_reader_size(const clv_reader *r, int *width, int *height)
{
    *width = r->width;
    *height = r->height;
}

/* Submits the stage's input slot as it is, at time `seconds`: a run that
 * reads what the chain holds rather than the slot. */
static int submit_again(clv_reader *r, double seconds, clv_msg *msg)
{
    uint64_t index = r->first_index + r->submitted;
    r->seconds[index % RING] = seconds;
    int err = clv_stage_submit(r->stage, index, msg);
    if (!err)
        r->submitted++;
    return err;
}

/* The end of the input: the chain flushes the frames it holds, at the
 * times after the last, a step on (the step from the frame before, as
 * ffmpeg's yadif and bwdif; a frame's duration after a single frame). */
static void input_ended(clv_reader *r)
{
    r->eof = 1;
    if (!r->delay || !r->frames)
        return;
    clv_chain_end(r->chain);
    r->flush = r->delay * r->rate;
}

static double flush_seconds(const clv_reader *r)
{
    const double step = r->frames > 1 ? r->last_seconds[1] - r->last_seconds[0] : 0;
    return r->last_seconds[1] + (step > 0 ? step : 1.0 / 25);
}

/* Sends decoded frames into the stage while it has room. */
static int fill(clv_reader *r, clv_msg *msg)
{
    while (clv_stage_input(r->stage)) {
        int err = 0;
        if (r->owed > 0) { /* the last frame's second field */
            r->owed--;
            if ((err = submit_again(r, r->last_seconds[1], msg)))
                return err;
            continue;
        }
        if (r->eof) {
            if (r->flush <= 0)
                return 0;
            r->flush--;
            if ((err = submit_again(r, flush_seconds(r), msg)))
                return err;
            continue;
        }
        int kind;
        void *item;
        /* Wait for a frame only when the stage has nothing to give back. */
        int got = clv_queue_pop_wait(r->queue, &kind, &item, clv_stage_pending(r->stage) ? 0 : -1);
        if (got == 1)
            return 0;
        if (got < 0 || kind == CLV_ITEM_END) {
            input_ended(r);
            if ((err = clv_decoder_finish(r->dec, msg)))
                return err;
            continue;
        }
        if (kind != CLV_ITEM_FRAME) { /* sound and subtitles: not wanted here */
            clv_item_free(kind, item);
            continue;
        }
        AVFrame *f = item;
        if (r->compose) { /* the graph's frame for it, of every input's at its time */
            AVFrame *composed;
            int ended;
            err = clv_compose_frame(r->compose, f, &composed, &ended, msg);
            av_frame_free(&f);
            if (err)
                return err;
            if (ended) /* an input with eof_action=endall (or shortest=1) ended */
                input_ended(r);
            if (!composed) /* none at this time, or the end */
                continue;
            f = composed;
        }
        err = clv_feed_write(r->feed, f, clv_stage_input(r->stage), msg);
        uint64_t index = r->first_index + r->submitted;
        r->last_seconds[0] = r->last_seconds[1];
        r->last_seconds[1] = r->seconds[index % RING] = (double)f->pts * av_q2d(r->tb);
        av_frame_free(&f);
        if (err || (err = clv_stage_submit(r->stage, index, msg)))
            return err;
        r->submitted++;
        r->frames++;
        r->owed = r->rate - 1;
    }
    return 0;
}

int clv_reader_next(clv_reader *r, const uint8_t **rgba, double *seconds, clv_msg *msg)
{
    msg->text[0] = 0;
    if (r->holding) { /* the caller is done with the last frame: its slot is free */
        clv_stage_release(r->stage);
        r->holding = 0;
    }
    int err = fill(r, msg);
    if (err)
        return err;
    if (clv_stage_pending(r->stage) == 0)
        return 0; /* the end */
    const uint8_t *pixels;
    uint64_t index;
    if ((err = clv_stage_output(r->stage, &pixels, &index, msg)))
        return err;
    const uint64_t dropped = r->first_index + (uint64_t)(r->delay * r->rate);
    if (index < dropped) { /* no frame yet: the deinterlacer took the first */
        clv_stage_release(r->stage);
        return clv_reader_next(r, rgba, seconds, msg);
    }
    /* The stage's own staging memory, handed out without a copy and kept
     * until the next call. */
    r->holding = 1;
    *rgba = pixels;
    /* Frame n's time; at rate 2 its second field's halfway to the next. */
    const uint64_t j = index - dropped, n = j / (uint64_t)r->rate,
                   at = r->first_index + n * (uint64_t)r->rate;
    *seconds = r->seconds[at % RING];
    if (j % (uint64_t)r->rate)
        *seconds = (*seconds + r->seconds[(at + (uint64_t)r->rate) % RING]) / 2;
    return 1;
}
