/* sink.h - the one encode sink of the pipeline: the GPU stage's output
 * frames converted for the encoder, the encoder + muxer thread with the
 * input's copied streams, and an optional microphone. Transcode, the
 * player's recorder and headless webcam runs all write through it. Private
 * to the pipeline and the player. */
#ifndef CLVID_SINK_H
#define CLVID_SINK_H

#include "../io/io.h"
#include "latency.h"

#include "clvid/pipeline.h"

/* The decoder's and the encoder's halves of a run's options (strings
 * borrowed). */
clv_input_options clv_pipeline_input(const clv_transcode_options *o);
clv_output_options clv_pipeline_output(const clv_transcode_options *o);
/* The input's size and sample aspect turned by `rotation` (the chain's
 * input). */
clv_size clv_pipeline_upright(const clv_media_desc *in, int rotation);
/* The size and sample aspect of the frames out of a stage: the input's
 * turned by `rotation`, then through the filters of desc (scale keeps the
 * display aspect through the sample aspect, as ffmpeg's does). On an error
 * msg names the filter and the sizes. */
int clv_pipeline_output_size(const clv_media_desc *in, int rotation, const clv_chain_desc *desc,
                             clv_size *out, clv_msg *msg);

typedef struct clv_sink clv_sink;

typedef struct clv_sink_options {
    const clv_output_options *output;
    const clv_media_desc *input; /* the input (its decoder's): size, timing, streams copied */
    const clv_feed *feed;        /* how its frames enter the stage (format, colour) */
    int rgba;                    /* 1: the stage gives RGBA (the window's); 0: the encoder's
                                    own layout whenever the stage has it */
    int rotation, hflip;         /* the stage turns frames upright (clv_stage_options) */
    /* The size of the stage's frames after the filters and their sample
     * aspect (clv_chain_desc_output_size); width 0: the input's, turned. */
    int width, height;
    AVRational sample_aspect;
    /* What the frames' pixels mean after the filters (clv_size.transfer,
     * .primaries: tonemap makes BT.709 SDR of PQ or HLG); 0: the input's. */
    int transfer, primaries;
    const char *mic;        /* a microphone recorded too, or NULL */
    const char *mic_format; /* its capture format, NULL: alsa */
    /* The video's clock (clv_decoder_clock_base) that the microphone's
     * sound is put on while running; read by the microphone's thread only,
     * so it must outlive the sink. NULL without a microphone. */
    const clv_decoder *clock;
} clv_sink_options;

/* Opens the microphone (if any), the encoder and the conversion. When the
 * feed gives frames of 16 bits and the encoder takes 8 only, says once (on
 * FFmpeg's log) that they are dithered to 8. On failure *out is NULL and
 * msg names the file, encoder or device. */
int clv_sink_open(const clv_sink_options *options, clv_sink **out, clv_msg *msg);
/* The layout and colour the stage must give the sink's frames in: the
 * encoder's own when the stage has it (a 16-bit layout only from a feed of
 * 16 bits; an 8-bit one from such a feed is dithered by the stage), else
 * RGBA, rgba64le or yuv444p16le converted by swscale on the host. */
clv_pixfmt clv_sink_stage_format(const clv_sink *sink);
clv_color clv_sink_color(const clv_sink *sink);
/* The encoder's pixel format and name, for messages. */
enum AVPixelFormat clv_sink_pix_fmt(const clv_sink *sink);
const char *clv_sink_codec_name(const clv_sink *sink);
/* The n-th temporary file being written (several outputs: one each), or
 * NULL past the last (image sequences: in place). */
const char *clv_sink_partial_path(const clv_sink *sink, int n);
/* 1 with the microphone open. */
int clv_sink_has_mic(const clv_sink *sink);
/* 1 once the encoder has written the frames it may (max_frames). */
int clv_sink_full(const clv_sink *sink);
/* The video frames sent to the encoder (clv_encoder_frames_out). */
int64_t clv_sink_frames_out(const clv_sink *sink);

/* Starts the encoder thread (and the microphone's, on the video's clock). */
int clv_sink_start(clv_sink *sink, clv_msg *msg);
/* Converts one frame in clv_sink_stage_format's layout (tightly packed, as
 * the stage gives it) and queues it with timestamp pts (the input video
 * stream's time base) and the time its packet was read (clv_frame_read_time
 * of the frame it was made from; 0: not known, no latency counted). Blocks while the encoder is
 * behind. With kept (the frame's memory, from clv_stage_keep; NULL for none), the sink owns it,
 * even on failure, and the encoder reads the pixels where they are when their layout lets it (no
 * conversion, aligned planes), else they are copied. */
int clv_sink_frame(clv_sink *sink, const uint8_t *pixels, clv_block *kept, int64_t pts,
                   double read_at, clv_msg *msg);
/* Queues a decoded frame as it is (nothing to filter and the encoder takes
 * the decoder's format); the sink owns the frame, even on failure. */
int clv_sink_pass(clv_sink *sink, AVFrame *frame, clv_msg *msg);
/* Queues a packet of a copied stream; the sink owns it, even on failure. */
int clv_sink_packet(clv_sink *sink, AVPacket *packet, clv_msg *msg);

/* Ends the output: with ok, stops the microphone (its last packets go in),
 * queues the end, joins the thread and writes the trailer, making the file
 * complete; without ok, aborts the encoder. Returns 0 or the encoder's
 * error with msg. *mic_packets (may be NULL) gets the microphone's packets
 * recorded; a microphone that stopped by itself is reported in *mic_note
 * (may be NULL; "" when it did not). */
int clv_sink_finish(clv_sink *sink, int ok, int64_t *mic_packets, clv_msg *mic_note, clv_msg *msg);
double clv_sink_busy_seconds(const clv_sink *sink);
/* The frames written so far (any thread): *latency from each one's packet
 * read to its encoded packet handed to the muxer, *encoding from its frame
 * sent to the encoder to its packet out (the encoder's own time, with any
 * frames it holds back), in milliseconds. Frames passed on as they are
 * (clv_sink_pass) carry their decoder's read time. */
void clv_sink_latency(clv_sink *sink, clv_latency_summary *latency, clv_latency_summary *encoding);
/* Frees everything; the partial of an unfinished output is removed.
 * Accepts NULL and a sink that failed half-way. */
void clv_sink_close(clv_sink *sink);

/* ---- Several devices (src/pipeline/devices.c) ---------------------------- */

/* "#1 NAME + #2 NAME": the devices of ctx as `clvid devices` numbers them. */
void clv_devices_text(clv_context *ctx, char *out, size_t size);
/* With several devices, each one's share of the frames and its time per
 * frame: "#1 NAME 45 frames (50%) 21.3 ms/frame; ..."; "" with one. */
void clv_device_shares_text(clv_context *ctx, const clv_stage *stage, char *out, size_t size);
/* Testing: CLVID_FAULT=deviceN:K makes device N of the stage (counted from 0
 * in the order --device gave) fail after K frames. */
void clv_device_faults_from_env(clv_stage *stage);

#endif
