/* io.h - the FFmpeg side of clvid: a bounded queue between threads, the
 * decoder thread (demux + decode) and the encoder thread (encode + mux,
 * streams copied). Only the command line uses these; core never does. */
#ifndef CLVID_IO_H
#define CLVID_IO_H

#include <stdint.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "clvid.h"

/* ---- Queue ------------------------------------------------------------- */

enum clv_item_kind {
    CLV_ITEM_FRAME,  /* AVFrame *: a decoded (or filtered) video frame */
    CLV_ITEM_PACKET, /* AVPacket *: a packet of a copied stream (input index) */
    CLV_ITEM_END,    /* no payload: the producer is done */
};

typedef struct clv_queue clv_queue;

/* A FIFO of at most capacity items; push blocks while full, pop while
 * empty. After clv_queue_abort both return -1 at once (pop still drains
 * nothing). The queue owns items in it; destroy frees them. */
clv_queue *clv_queue_create(int capacity);
void clv_queue_destroy(clv_queue *q);
int clv_queue_push(clv_queue *q, int kind, void *item);
int clv_queue_pop(clv_queue *q, int *kind, void **item);
void clv_queue_abort(clv_queue *q);
/* Frees an item's payload by kind. */
void clv_item_free(int kind, void *item);

/* ---- Decoder ----------------------------------------------------------- */

typedef struct clv_input_options {
    const char *path;
    const char *format;  /* -f, or NULL to probe */
    int64_t start_us;    /* -ss, or 0 */
    int64_t duration_us; /* -t, or 0 for all */
    int64_t max_frames;  /* --frames, or 0 for all */
} clv_input_options;

typedef struct clv_decoder clv_decoder;

/* Opens the input and its best video stream's decoder (frame threads on).
 * Every error names the file. */
int clv_decoder_open(const clv_input_options *options, clv_decoder **out, clv_msg *msg);
void clv_decoder_close(clv_decoder *dec);
AVFormatContext *clv_decoder_format(const clv_decoder *dec);
AVCodecContext *clv_decoder_codec(const clv_decoder *dec);
int clv_decoder_video_index(const clv_decoder *dec);
/* Starts the thread: decoded video frames (pts in the stream's time base,
 * shifted so that -ss is 0) and packets of the other streams (same shift)
 * go to out in demux order, then CLV_ITEM_END. On an error the thread
 * stores a message (clv_decoder_error) and ends with CLV_ITEM_END too. */
int clv_decoder_start(clv_decoder *dec, clv_queue *out);
/* Joins the thread. Returns 0 or the error it met, with msg. */
int clv_decoder_finish(clv_decoder *dec, clv_msg *msg);
/* Seconds the thread spent decoding (not waiting on the queue). */
double clv_decoder_busy_seconds(const clv_decoder *dec);

/* ---- Encoder ----------------------------------------------------------- */

typedef struct clv_output_options {
    const char *path;
    const char *codec;   /* -c:v, or NULL for the container's default */
    int crf;             /* -1: default */
    const char *preset;  /* NULL: default */
    int64_t bitrate;     /* -b:v in bit/s, 0: none */
    const char *pix_fmt; /* -pix_fmt, NULL: chosen */
} clv_output_options;

typedef struct clv_encoder clv_encoder;

/* Opens the output for the decoder's streams: one video stream encoded from
 * frames in clv_encoder_pix_fmt, and a copy of each audio and subtitle
 * stream the container takes. It writes to a temporary file beside the
 * output and renames it when clv_encoder_finish succeeds, so a failed or
 * interrupted run never leaves a half-written file at the output path and
 * never touches a file already there (numbered image sequences, "%04d",
 * are written in place). */
int clv_encoder_open(const clv_output_options *options, const clv_decoder *dec, int rgb_source,
                     int has_alpha, clv_color color, clv_encoder **out, clv_msg *msg);
/* The pixel format frames must have, and the encoder's name. */
enum AVPixelFormat clv_encoder_pix_fmt(const clv_encoder *enc);
const char *clv_encoder_codec_name(const clv_encoder *enc);
int clv_encoder_start(clv_encoder *enc, clv_queue *in);
/* Joins the thread, writes the trailer when all went well. */
int clv_encoder_finish(clv_encoder *enc, clv_msg *msg);
/* remove_output: delete the temporary file of an unfinished run. */
void clv_encoder_close(clv_encoder *enc, int remove_output);
double clv_encoder_busy_seconds(const clv_encoder *enc);

/* A monotonic clock in seconds, for the threads' busy times and progress. */
double clv_io_seconds(void);

/* An FFmpeg error code as text. */
const char *clv_av_err(int code, char *buf, size_t size);

#endif
