/* io.h - the FFmpeg side of clvid: a bounded queue between threads, the
 * decoder thread (demux + decode) and the encoder thread (encode + mux,
 * streams copied). Only the command line uses these; core never does. */
#ifndef CLVID_IO_H
#define CLVID_IO_H

#include <signal.h>
#include <stdint.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/mastering_display_metadata.h>

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
/* Pops within timeout_s seconds (0: only if one is there, < 0: waits as
 * long as it takes). Returns 0 with an item, 1 on time out, -1 when
 * aborted. */
int clv_queue_pop_wait(clv_queue *q, int *kind, void **item, double timeout_s);
/* As clv_queue_push without waiting: 1 when the queue is full (the item
 * stays the caller's). */
int clv_queue_try_push(clv_queue *q, int kind, void *item);
/* For live sources: pushes without waiting; when the queue is full its
 * oldest frame is freed to make room. Returns the number of frames dropped
 * (0 or 1), or -1 when aborted. *depth gets the count after the push. */
int clv_queue_push_latest(clv_queue *q, int kind, void *item, int *depth);
void clv_queue_abort(clv_queue *q);
/* Frees an item's payload by kind. */
void clv_item_free(int kind, void *item);

/* ---- What the input is ---------------------------------------------------- */

/* A stream copied or encoded again beside the video: one of the input's
 * sound or subtitle streams, or a microphone's sound. The pointers are its
 * owner's (the decoder's, the microphone's) and live while that is open;
 * the encoder copies what it keeps. */
typedef struct clv_stream_desc {
    int index;                    /* the input's stream index, which its packets carry */
    enum AVMediaType type;        /* AVMEDIA_TYPE_AUDIO or AVMEDIA_TYPE_SUBTITLE */
    const AVCodecParameters *par; /* codec, sample rate, channels, extradata */
    AVRational time_base;         /* of its packets' timestamps */
    int disposition;              /* AV_DISPOSITION_* */
    const AVDictionary *metadata; /* language, title */
} clv_stream_desc;

/* The input as its decoder found it on opening: what the feed, the stage,
 * the encoder, the sink and the player set up from, read once in one place.
 * Owned by the decoder (clv_decoder_media), unchanged while it is open. */
typedef struct clv_media_desc {
    const char *path; /* as given ("-": standard input) */
    int live;         /* opened as a live source (clv_input_options.live) */
    /* The video stream, as the decoder gives its frames: */
    int video_index;
    enum AVCodecID codec_id;
    int width, height;          /* as coded: before any turn */
    enum AVPixelFormat pix_fmt; /* the decoder's frames' (hardware: as transferred, nv12, p010) */
    /* Hardware decoding (clv_input_options.hwaccel): the method in use
     * ("cuda"), NULL for software; coded_pix_fmt is then the format
     * software decoding gives (yuv420p where pix_fmt is nv12). */
    const char *hwaccel;
    enum AVPixelFormat coded_pix_fmt;
    const char *hwaccel_fallback; /* -hwaccel auto decoding in software: why, else NULL */
    int rgb, alpha;               /* pix_fmt is RGB-like or paletted; it carries alpha */
    clv_color color;              /* matrix and range (clv_stream_color) */
    enum AVColorPrimaries primaries;
    enum AVColorTransferCharacteristic transfer;
    /* HDR: the display the video was mastered on and its content light
     * level (MaxCLL, MaxFALL), from the stream's side data, else from the
     * first frame's (HEVC and AV1 streams carry them in the bitstream
     * only); NULL when the input says nothing. The frames keep the input's
     * transfer curve, so these stay true for the output. */
    const AVMasteringDisplayMetadata *mastering;
    const AVContentLightMetadata *light_level;
    /* How it is meant to be shown: mirrored (hflip) then turned clockwise
     * by rotation degrees (0, 90, 180, 270), from the display matrix or a
     * JPEG's EXIF Orientation; 0 and 0 when upright. */
    int rotation, hflip;
    AVRational time_base;      /* of the frames' pts */
    AVRational frame_rate;     /* ffmpeg's guess (av_guess_frame_rate); 25/1 when unknown */
    AVRational avg_frame_rate; /* the stream's own tags, 0/1 when absent */
    AVRational r_frame_rate;
    AVRational sample_aspect;          /* the container's, else the codec's; 0/1 when unknown */
    int disposition;                   /* AV_DISPOSITION_* (default, forced, attached_pic) */
    int cover;                         /* an attached picture: a song's cover, not a video */
    const AVDictionary *metadata;      /* the video stream's */
    const AVPacketSideData *side_data; /* the video stream's (display matrix, ...) */
    int side_data_count;
    /* The whole input: */
    int64_t duration_us;                 /* the container's, 0 when unknown */
    const AVDictionary *format_metadata; /* title, artist, ... */
    int stream_count;                    /* all its streams: packets' indexes are below */
    const clv_stream_desc *streams;      /* its sound and subtitle streams, by index */
    int stream_desc_count;
    int audio; /* the main sound stream's index (av_find_best_stream), or -1 */
} clv_media_desc;

/* The sound or subtitle stream of `media` with input index `index`, or
 * NULL (index -1, or a stream of another kind). */
const clv_stream_desc *clv_media_stream(const clv_media_desc *media, int index);

/* Which way up the video stream st of a file at url (NULL: not a file) is
 * meant to be shown: its display matrix, else a JPEG's EXIF (orientation.c). */
void clv_orientation_probe(const AVStream *st, enum AVCodecID codec_id, const char *url,
                           int *rotation, int *hflip);

/* ---- Decoder ----------------------------------------------------------- */

typedef struct clv_input_options {
    const char *path;
    const char *format;  /* -f, or NULL to probe */
    int64_t start_us;    /* -ss, or 0 */
    int64_t duration_us; /* -t, or 0 for all */
    int64_t max_frames;  /* --frames, or 0 for all */
    /* Capture options (NULL: the device's choice): */
    const char *video_size;   /* --input-size 1280x720 */
    const char *framerate;    /* --input-fps 30 */
    const char *input_format; /* --input-format mjpeg|yuyv422|... (v4l2) */
    /* Live source: no demuxer buffering and a small probe. */
    int live;
    /* A full frame queue drops its oldest frame instead of waiting (the
     * window shows the newest frame; transcoding never drops). */
    int drop_stale;
    /* -re: packets are read no faster than their timestamps say (ffmpeg's
     * -re): each waits until the monotonic clock, counted from the first
     * packet read, reaches its decode time; sound and video alike. */
    int realtime;
    /* Network inputs (clv_io_network_url): rtsp_transport is RTSP's
     * transport (tcp, udp, ...; NULL: FFmpeg's); stall_us is how long a
     * read (or an opening) may wait for a packet before the source counts
     * as dropped (0: 5 s for a network input, forever for others). */
    const char *rtsp_transport;
    int64_t stall_us;
    /* Read by any blocking read or opening: non-zero ends it at once (a
     * signal handler's flag; may be NULL). */
    const volatile sig_atomic_t *cancel;
    /* -hwaccel: NULL or "none" decodes in software; "auto" with the first
     * hardware method (cuda, vaapi, ...) that decodes the stream's first
     * frame, else in software; another name (clv_hwaccel_check) with that
     * method or not at all. hwaccel_device (-hwaccel_device): its device
     * ("0", "/dev/dri/renderD128"); NULL: the method's default. */
    const char *hwaccel;
    const char *hwaccel_device;
} clv_input_options;

/* How media's video is decoded, into out (size bytes): "cuda (h264)", or
 * "software", with why after -hwaccel auto found no hardware decoder. */
void clv_decode_text(const clv_media_desc *media, char *out, size_t size);

/* 0 when name is a -hwaccel word this FFmpeg knows (none, auto, or a
 * hardware device type: cuda, vaapi, qsv, vdpau, drm, ...); else
 * CLV_EOPTION with msg listing them. */
int clv_hwaccel_check(const char *name, clv_msg *msg);

/* 1 when path is a network URL (rtsp://, rtsps://, srt://, rtmp(s|t|e)://,
 * udp://, rtp://, tcp://, http(s)://, or any URL of an .m3u8 playlist):
 * such an input is live and can drop and come back. */
int clv_io_network_url(const char *path);

typedef struct clv_decoder clv_decoder;

/* Opens the input and its best video stream's decoder (frame threads on; a
 * hardware decoder with options->hwaccel, tried on the first frame).
 * Every error names the file. */
int clv_decoder_open(const clv_input_options *options, clv_decoder **out, clv_msg *msg);
void clv_decoder_close(clv_decoder *dec);

/* Memory for decoded frames from the caller (the GPU stage's blocks, which
 * a CPU device reads where they are): taken for 8-bit 4:2:0 video (yuv420p,
 * nv12) from decoders that decode into outside memory, and frames read back
 * from a hardware decoder (nv12, p010); everything else gets
 * FFmpeg's own. */
typedef struct clv_frame_memory {
    /* A block of at least size bytes starting at *pixels, 64-byte aligned,
     * or NULL (FFmpeg's memory from then on). Called from the decoder's
     * threads, perhaps several at once. */
    void *(*alloc)(void *user, size_t size, uint8_t **pixels);
    void (*free)(void *block); /* from any thread, also after the decoder is closed */
    void *user;
} clv_frame_memory;
/* Before clv_decoder_start; NULL for FFmpeg's memory only. */
int clv_decoder_set_memory(clv_decoder *dec, const clv_frame_memory *memory);
/* The block (from clv_frame_memory.alloc) that holds frame's planes, and
 * where the block starts (*base), or NULL when frame is in other memory. */
void *clv_decoder_frame_block(const clv_decoder *dec, const AVFrame *frame, const uint8_t **base);
/* What the input is, found when it opened; the decoder's, valid while it
 * is open. */
const clv_media_desc *clv_decoder_media(const clv_decoder *dec);
/* Starts the thread: decoded video frames (pts in the stream's time base,
 * shifted so that -ss is 0) go to out, and packets of the audio and
 * subtitle streams (same shift) to `packets` (NULL: to out as well, in
 * demux order); then CLV_ITEM_END to out. On an error the thread stores a
 * message (clv_decoder_finish) and ends with CLV_ITEM_END too. */
int clv_decoder_start(clv_decoder *dec, clv_queue *out, clv_queue *packets);
/* Joins the thread. Returns 0 or the error it met, with msg. */
int clv_decoder_finish(clv_decoder *dec, clv_msg *msg);
/* Stops the thread: aborts its queue (the caller then destroys that queue)
 * and joins. A stopped decoder can seek and start again with a new queue. */
void clv_decoder_stop(clv_decoder *dec);
/* With the thread stopped: goes to `us` microseconds on the frames' own
 * timeline (0 = the first frame). The seek lands on the keyframe before and
 * the frames and packets before `us` are dropped, so the next frame out is
 * the one shown at `us`. */
int clv_decoder_seek(clv_decoder *dec, int64_t us, clv_msg *msg);
/* After clv_decoder_finish: 1 when the thread ended because the source
 * ended or dropped (end of stream, a read error, or no packet for the
 * stall time) rather than at -t, --frames, a stop or an error; why gets
 * what happened ("no packet for 5.0 s"). */
int clv_decoder_source_ended(const clv_decoder *dec, char *why, size_t size);
/* With the thread finished after the source ended: opens the same input
 * again (waiting at most timeout_s for it, and for its first packets) and
 * puts the new connection's frames and packets on the same timeline, just
 * after the last frame and sound packet given out, so that
 * clv_decoder_start goes on as if nothing had happened. The new
 * connection must carry the same streams (the video's codec, size, pixel
 * format and time base, the sound's codec and layout): CLV_EINVAL with msg
 * saying what differs when not; CLV_EIO when it cannot be opened (try
 * again later). */
int clv_decoder_reconnect(clv_decoder *dec, double timeout_s, clv_msg *msg);
/* The --reconnect policy's bounds and the caller's hooks for
 * clv_decoder_retry, each called on the thread that retries. */
typedef struct clv_retry {
    double began; /* when the source dropped (clv_io_seconds) */
    double most;  /* give up this many seconds after began; 0: never */
    /* Before each try, attempt 1, 2, ...; NULL: nothing. */
    void (*trying)(void *user, int attempt);
    /* 1 when the tries should end (a quit); NULL: never. */
    int (*stop)(void *user);
    /* Waits `seconds` between tries, ending early on a stop: 0, or a
     * CLV_E* code with msg, which ends the tries. NULL: a sleep that
     * checks stop every 20 ms. */
    int (*wait)(void *user, double seconds, clv_msg *msg);
    void *user;
} clv_retry;
/* With the thread finished after the source ended: clv_decoder_reconnect
 * tried at once, then after waits from 0.5 s doubling to 8 s, until the
 * source opens (0: clv_decoder_start goes on on the same timeline;
 * *attempts says after how many tries), retry->most seconds have passed,
 * stop says so or the source comes back changed (1: given up; last gets
 * the last try's error, "" when none). Any other error, the decoder's or
 * wait's: its CLV_E* code with msg. */
int clv_decoder_retry(clv_decoder *dec, const clv_retry *retry, int *attempts, char *last,
                      size_t size, clv_msg *msg);
/* From any thread: ends a blocking opening (clv_decoder_reconnect) at once
 * and makes the next fail, until clv_decoder_start. */
void clv_decoder_interrupt(clv_decoder *dec);
/* Live sources: frames the decoder dropped because the queue was full, and
 * the largest number of frames the queue has held. */
int64_t clv_decoder_stale_dropped(const clv_decoder *dec);
int clv_decoder_max_queued(const clv_decoder *dec);
/* The time a frame's packet was read (clv_io_seconds), for latency. */
double clv_frame_read_time(const AVFrame *frame);
/* Stamps a frame made from another (the stage's output) with the read time
 * of its packet, which the encoder's packet hook reports. */
void clv_frame_set_read_time(AVFrame *frame, double seconds);
/* The read time (clv_io_seconds) that the frames' timeline puts at 0: the
 * least over the frames so far of read time less timestamp (a backlog read
 * in a burst at the start makes the early frames look late); -1 before any
 * frame. Another live input (a microphone) is put on the video's timeline
 * with it. */
double clv_decoder_clock_base(const clv_decoder *dec);
/* Seconds the thread spent decoding (not waiting on the queue, nor, for a
 * live or network input, on the source's packets). */
double clv_decoder_busy_seconds(const clv_decoder *dec);
/* The damage met so far: video packets the decoder refused (dropped) and
 * frames it flagged as damaged (concealed as well as it could). */
void clv_decoder_damage(const clv_decoder *dec, int64_t *packets, int64_t *frames);

/* ---- Audio for the player -------------------------------------------- */

typedef struct clv_audio clv_audio;

/* A decoder for the sound stream `stream` (an input's, clv_media_desc)
 * whose output is resampled to `channels` interleaved floats at `rate`. */
int clv_audio_open(const clv_stream_desc *stream, int rate, int channels, clv_audio **out,
                   clv_msg *msg);
void clv_audio_close(clv_audio *audio);
/* Decodes one packet: *samples (valid until the next call) gets *frames
 * sample frames, the first at *pts seconds (-1 when unknown). A corrupt
 * packet gives no samples and no error. */
int clv_audio_decode(clv_audio *audio, const AVPacket *pkt, const float **samples, int *frames,
                     double *pts);
/* Forgets buffered state (after a seek). */
void clv_audio_flush(clv_audio *audio);

/* ---- Encoder ----------------------------------------------------------- */

typedef struct clv_output_options {
    const char *path;    /* "-": standard output (needs format) */
    const char *format;  /* -f after -i: the muxer; NULL: from the path's extension;
                            "tee": path is several outputs in ffmpeg's tee syntax
                            (clv_tee_parse), all written from one encoding */
    const char *codec;   /* -c:v, or NULL for the container's default */
    int crf;             /* -1: default */
    const char *preset;  /* NULL: default */
    int64_t bitrate;     /* -b:v in bit/s, 0: none */
    const char *pix_fmt; /* -pix_fmt, NULL: chosen */
    /* The formats a `format` filter at the chain's end names
     * ("yuv420p|nv12"), NULL: none. The first the encoder takes is the
     * frames' format; -pix_fmt, when given too, must be one of them. */
    const char *chain_pix_fmts;
    AVRational aspect; /* -aspect: display aspect ratio; 0/0: the input's */
    /* The frames are turned upright (clv_media_desc.rotation) before
     * encoding: the output is that size, its aspect turned too, and the
     * input's display matrix is not copied. */
    int rotation, hflip;
    /* The frames' size and sample aspect after the filters (scale, crop...),
     * the rotation already in them; width 0: the input's, turned. */
    int width, height;
    AVRational sample_aspect;
    /* What the frames' pixels mean after the filters (clv_transfer,
     * clv_primaries); 0: the input's. Where they differ from the input's
     * (tonemap), the output is tagged with them and the input's HDR
     * metadata (mastering display, light level) is left out. */
    int transfer, primaries;
    int no_audio;     /* -an: the input's audio streams are left out */
    int no_subtitles; /* -sn: its subtitle streams are left out */
    /* -c:a: NULL copies what the container takes and encodes the rest to its
     * own sound codec; "copy" copies or fails; a name encodes with it. */
    const char *audio_codec;
    /* An audio stream of another input (a microphone, clv_mic_stream), or
     * NULL: it gets an output stream (AAC) whose packets come through the
     * queue with stream_index clv_encoder_extra_index, timestamps in its
     * own time base on the video's timeline. */
    const clv_stream_desc *extra_audio;
    /* -g: frames from one keyframe to the next; 0: the encoder's, or 2 s
     * for a network output (every hls_time for HLS). */
    int gop;
    /* HLS (.m3u8): -hls_time in seconds (0: the muxer's 2) and
     * -hls_list_size (0: every segment; -1: the muxer's 5). A zeroed struct
     * means hls_list_size 0: callers set -1 for the muxer's. */
    double hls_time;
    int hls_list_size;
    int overwrite; /* -y: a finished file replaces one at its path (clv_outfile_open) */
    /* -r: the output's frame rate (0/0: the input's): the encoder's time
     * base is its frame, and frames go out as ffmpeg's automatic -vsync
     * puts them (send_rate in encoder.c) */
    AVRational frame_rate;
    int unfiltered; /* no -vf nor graph: ffmpeg's -r takes a frame's own length */
    /* The chain's fps (rate 0: none): the frames out of the chain are
     * picked on its ticks (fps_push in encoder.c) before -r's. */
    clv_fps_spec fps;
    /* The frames written at most, 0: no cap. -frames with fps, framestep or
     * -r, where ffmpeg counts the frames out (the decoder's max_frames
     * counts those in); clv_encoder_full says when they are written. */
    int64_t max_frames;
} clv_output_options;

typedef struct clv_encoder clv_encoder;

/* Opens the output for the input described by `input` (its decoder's, read
 * here and kept by nothing after): one video stream encoded from frames in
 * clv_encoder_pix_fmt of the colour `color`, and a copy of each audio and
 * subtitle stream the container takes. The file is a clv_outfile: a partial renamed
 * into place when clv_encoder_finish succeeds, so a failed or interrupted
 * run never leaves a half-written file at the output path and never
 * touches a file already there; each picture of an image output (one
 * file, or a numbered sequence, "%04d") is such a file of its own; a FIFO
 * or device is written in place; formats that write no file (null) write
 * none. With format "tee" the video is encoded once into the muxer of
 * each output the spec names (clv_tee_parse), each such a file (or
 * stream); the first output's container chooses the codec (H.264 when one
 * is a network stream and all take it) and every other must take it. A
 * write failure of one with onfail=ignore drops it with a message on
 * FFmpeg's log (error level) while another goes on. */
int clv_encoder_open(const clv_output_options *options, const clv_media_desc *input,
                     clv_color color, clv_encoder **out, clv_msg *msg);
/* The pixel format frames must have, and the encoder's name. */
enum AVPixelFormat clv_encoder_pix_fmt(const clv_encoder *enc);
const char *clv_encoder_codec_name(const clv_encoder *enc);
int clv_encoder_start(clv_encoder *enc, clv_queue *in);
/* Joins the thread, writes the trailer when all went well. */
int clv_encoder_finish(clv_encoder *enc, clv_msg *msg);
/* Stops the thread; the partial of an unfinished run is removed. */
void clv_encoder_close(clv_encoder *enc);
double clv_encoder_busy_seconds(const clv_encoder *enc);
/* 1 once max_frames frames are written (any thread): the run may stop. */
int clv_encoder_full(const clv_encoder *enc);
/* The video frames sent to the encoder so far (any thread): after fps,
 * framestep and -r's picks, -frames' cap. */
int64_t clv_encoder_frames_out(const clv_encoder *enc);
/* One encoded video frame's times (clv_io_seconds): its packet read from
 * the input (clv_frame_read_time of the frame the encoder got; 0: not
 * known), the frame sent to the encoder, its packet out of the encoder, and
 * that packet handed to the muxer (av_interleaved_write_frame returned). */
typedef struct clv_packet_times {
    double read, sent, encoded, written;
} clv_packet_times;
typedef void (*clv_encoder_packet_hook)(void *user, const clv_packet_times *times);
/* Before clv_encoder_start: hook(user, times) is called on the encoder's
 * thread for each video packet written, with its frame's times (a packet
 * finds its frame by pts: an encoder with B-frames gives them out of
 * order). */
void clv_encoder_set_packet_hook(clv_encoder *enc, clv_encoder_packet_hook hook, void *user);
/* The stream_index that marks packets of options->extra_audio. */
int clv_encoder_extra_index(const clv_encoder *enc);
/* The n-th partial being written (of several outputs, each may have one),
 * or NULL past the last (written in place, or pictures: each has its own,
 * short-lived). */
const char *clv_encoder_partial_path(const clv_encoder *enc, int n);

/* ---- Output files (outfile.c) ------------------------------------------ */

/* One file being written for the user. A regular file (or nothing yet) at
 * path is written as a locked hidden partial beside it (".NAME.partial-PID")
 * and renamed over it by clv_outfile_commit; a FIFO, device or socket is
 * written in place; symbolic links are followed. Opening removes partials
 * left by processes that died: of the same name (pattern NULL), of any file
 * of a sequence (pattern, a file name with %d), or none (pattern "": the
 * caller swept already; each reads the whole folder). Without overwrite
 * (-y) the commit never replaces a file, even one that appeared at path
 * after the checks before the run. */
typedef struct clv_outfile clv_outfile;
int clv_outfile_open(const char *path, const char *pattern, int overwrite, clv_outfile **out,
                     clv_msg *msg);
/* Where to write: the partial, or the path itself when in place. */
const char *clv_outfile_write_path(const clv_outfile *f);
/* The file the output becomes (symbolic links followed). */
const char *clv_outfile_target(const clv_outfile *f);
/* The partial, or NULL when written in place (or f is NULL). */
const char *clv_outfile_partial(const clv_outfile *f);
/* Puts the finished partial in place; 0, CLV_EEXIST (a file appeared at
 * the target and overwrite was not given) or CLV_EIO, with msg. The
 * partial stays f's: clv_outfile_close removes it. */
int clv_outfile_commit(clv_outfile *f, clv_msg *msg);
/* Removes the partial unless committed; frees f (NULL is fine). */
void clv_outfile_close(clv_outfile *f);

/* MPEG-TS in RTP (rtp_ts.c) for rtp:// outputs, in place of FFmpeg's
 * rtp_mpegts muxer, which never sends the stream's last TS packets. Opens
 * url (options as avio_open2's) and gives in *pb what the mpegts muxer
 * writes into (owned by *out: not to be closed with avio_close). Returns
 * 0 or an AVERROR. */
typedef struct clv_rtp_ts clv_rtp_ts;
int clv_rtp_ts_open(const char *url, AVDictionary **options, clv_rtp_ts **out, AVIOContext **pb);
/* Sends what the muxer left in the pb, frees it and closes the URL; *rtp
 * becomes NULL (NULL is fine). 0 or the AVERROR of a failed send. */
int clv_rtp_ts_close(clv_rtp_ts **rtp);

/* The files of an image output (pictures.c): attached to the image2
 * muxer's context, each picture is a clv_outfile of its own. error is the
 * AVERROR of a picture that failed (set on the encoder's thread, where the
 * muxer runs), path that picture's file. */
typedef struct clv_pictures {
    char pattern[1024]; /* a sequence's file name ("out_%04d.png"), or "" */
    struct {
        AVIOContext *pb;
        clv_outfile *file;
    } open[4];
    int swept;     /* the folder was swept of dead runs' partials (the first picture) */
    int overwrite; /* -y: a picture replaces a file at its path */
    int error;
    char path[1024];
} clv_pictures;
/* Makes the muxer of oc (writing path) open and close its pictures here. */
void clv_pictures_attach(clv_pictures *pictures, AVFormatContext *oc, const char *path,
                         int overwrite);
/* Removes the partials of pictures left open (a run that failed). */
void clv_pictures_close(clv_pictures *pictures);

/* 1 when path's last name is a numbered sequence FFmpeg's image2 takes
 * ("out_%04d.png": one %d, %% for a percent sign). */
int clv_sequence_pattern(const char *path);
/* 1 when file name `name` is one of pattern's (a last name, no folder);
 * *number (may be NULL) gets its number. */
int clv_sequence_match(const char *pattern, const char *name, long *number);
/* Before a run writes anything: CLV_EOPTION when the output (any file of
 * an output sequence) is one of the inputs' files (any file of an input
 * sequence), compared by device and inode, with or without overwrite;
 * CLV_EEXIST when, without overwrite, it (any file of the sequence)
 * exists; CLV_EOPTION for a folder, and for a device node (a camera,
 * /dev/null, a terminal, a disk) unless the format is v4l2 or writes no
 * file.
 * format is -f (NULL: from the name); formats that write no file (null)
 * pass; "tee": each of the outputs is checked (and the spec's mistakes
 * found, clv_tee_parse). Names the file in msg. */
int clv_output_check(const char *const *inputs, int input_count, const char *output,
                     const char *format, int overwrite, clv_msg *msg);
/* The checks of a file written beside output (format as clv_output_check's):
 * clv_transcode_check_side_file's, with the run's inputs and the files
 * its chain reads in inputs; what (the option, "--progress") starts msg. */
/* 1 or 2 when st is this process's standard output or error (a file the
 * shell opened for it: /dev/stdout, /dev/stderr), else 0. */
struct stat;
int clv_own_stream(const struct stat *st);
/* 1 when paths a and b name one file: the same file where both exist (a
 * link, another spelling), else the same name in the same folder. */
int clv_output_same_file(const char *a, const char *b);

int clv_side_file_check(const char *const *inputs, int input_count, const char *output,
                        const char *format, const char *path, const char *what, int overwrite,
                        clv_msg *msg);
/* CLV_EIO, msg starting with what, when a file written later at path
 * could not be: its folder is missing or not writable, or the file is
 * there and not writable. */
int clv_side_file_folder_check(const char *path, const char *what, clv_msg *msg);
/* -f v4l2 (a virtual camera): CLV_EOPTION unless output is a V4L2 video
 * output device (VIDIOC_QUERYCAP says V4L2_CAP_VIDEO_OUTPUT: a v4l2loopback
 * device no other program feeds), CLV_EIO when nothing is there. The
 * device is asked, never written. clv_output_check makes only the checks
 * of the path (a character device is there): a running virtual camera,
 * checked again, says "capture". */
int clv_output_v4l2_check(const char *output, clv_msg *msg);

/* 1 when path is a URL of a network protocol ("udp://", "srt://",
 * "rtmp://", ...; anything "SCHEME://" but file:), which avio opens as it
 * is: no partial, no existence checks. */
int clv_output_is_network(const char *path);
/* The muxer a network URL takes when -f names none: udp, srt, tcp ->
 * mpegts, rtp -> rtp_mpegts, rtmp(s) -> flv, rtsp -> rtsp; NULL for
 * anything else. */
const char *clv_output_network_format(const char *path);
/* The files of an HLS playlist's segments beside it, as the hls muxer
 * names them by default ("dir/live.m3u8" -> "dir/live%d.ts"), into out. */
void clv_output_hls_segments(const char *playlist, char *out, size_t size);

/* ---- Several outputs: ffmpeg's tee syntax (tee.c) ----------------------- */

/* One output of several, written from the same encoding: one part of
 * "-f tee -o 'rec.mkv|[f=flv:onfail=ignore]rtmp://...'" (ffmpeg's tee
 * muxer's "slave"), or one of several -o. */
enum { CLV_TEE_MAX = 16 };
typedef struct clv_tee_output {
    char path[1024];       /* a file, a URL or "-" */
    char format[64];       /* f=: the muxer; "": from the protocol or the extension */
    int ignore_failure;    /* onfail=ignore: a failure drops this output and the others
                              go on; abort (the default) ends the run */
    char select[256];      /* select=: stream specifiers ("v,a:0"); "": every stream */
    AVDictionary *options; /* the other KEY=VALUE: the muxer's own options */
} clv_tee_output;
/* Splits spec at '|' (quoting and backslashes as in ffmpeg: av_get_token)
 * and reads each output's "[KEY=VALUE:...]" into *out (count of them,
 * freed with clv_tee_free). CLV_EOPTION with msg for an empty output, an
 * option that is neither tee's (f, onfail, select) nor one of its muxer's,
 * a format that cannot be told or is image or tee, or a file named twice. */
int clv_tee_parse(const char *spec, clv_tee_output **out, int *count, clv_msg *msg);
void clv_tee_free(clv_tee_output *outputs, int count);
/* 1 when an output's -f is "tee": its path is such a spec. */
int clv_output_is_tee(const char *format);

/* ---- Microphone ------------------------------------------------------- */

/* A live audio input recorded with a live video source (clvid webcam -o
 * OUT --audio DEVICE). */
typedef struct clv_mic clv_mic;

/* Opens `device` through capture format `format` (NULL: alsa; pulse, oss,
 * lavfi, ...). Every error names the device. */
int clv_mic_open(const char *device, const char *format, clv_mic **out, clv_msg *msg);
/* 0 when FFmpeg has capture format `format`, else CLV_EINVAL with msg. */
int clv_mic_format_check(const char *format, clv_msg *msg);
/* The sound stream, for clv_output_options.extra_audio; the microphone's. */
const clv_stream_desc *clv_mic_stream(const clv_mic *mic);
/* Starts the thread: packets go to out with stream_index out_index, their
 * timestamps on video's timeline (clv_decoder_clock_base); sound captured
 * before the video's first frame is dropped. */
int clv_mic_start(clv_mic *mic, const clv_decoder *video, clv_queue *out, int out_index);
/* Stops and joins the thread (before the END item goes to `out`). With
 * until_s >= 0 (where the video ends on its timeline, in seconds) the
 * thread first reads on until the sound gets there (at most a second) and
 * drops what starts after it, so that the two end together; with -1 it
 * stops at once and what waits for the encoder is dropped. Returns the
 * packets delivered; msg (may be NULL) gets why the capture stopped by
 * itself, or "". */
int64_t clv_mic_stop(clv_mic *mic, double until_s, clv_msg *msg);
/* Stops (when running) and frees; NULL is fine. */
void clv_mic_close(clv_mic *mic);

/* ---- Frames into the GPU stage ---------------------------------------- */

struct SwsContext;

/* The stage's 8-bit layout for a decoder format, or -1 (convert with
 * swscale). */
int clv_native_pixfmt(enum AVPixelFormat f);
/* The stage's layout of more than 8 bits for an FFmpeg format, or -1: out
 * 0 for frames going in (p016le reads as P010), 1 for frames coming out (the
 * stage writes P010's 10 bits: p010le only). */
int clv_native_pixfmt_deep(enum AVPixelFormat f, int out);
/* FFmpeg's name for a stage layout (P010 is p010le). */
enum AVPixelFormat clv_av_pixfmt(clv_pixfmt f);
/* The bits of a format's first component when more than 8 (10 for
 * yuv420p10le, 16 for rgb48be); 8 otherwise. */
int clv_av_pixfmt_bits(enum AVPixelFormat f);
int clv_av_pixfmt_is_rgb(enum AVPixelFormat f); /* RGB or paletted */
int clv_av_pixfmt_has_alpha(enum AVPixelFormat f);
/* ffmpeg's guess for untagged video: BT.601 below 720 lines, BT.709 from
 * 720 up; limited range. */
clv_color clv_default_color(int height);
/* The stream's matrix and range; untagged video follows clv_default_color. */
clv_color clv_stream_color(const AVCodecContext *c);
const char *clv_matrix_name(clv_matrix m);
/* A stream's transfer and primaries as the chain knows them (clv_transfer,
 * clv_primaries: the SDR curves are BT.709, anything else unknown), and
 * back to FFmpeg's tags (unknown: unspecified). */
int clv_transfer_of(enum AVColorTransferCharacteristic t);
int clv_primaries_of(enum AVColorPrimaries p);
enum AVColorTransferCharacteristic clv_av_transfer(int transfer);
enum AVColorPrimaries clv_av_primaries(int primaries);
/* Tells swscale the matrix and range on each side (RGB sides are full range;
 * their table is ignored). */
void clv_sws_colors(struct SwsContext *sws, clv_color src, int src_rgb, clv_color dst, int dst_rgb);
/* The planes of a frame of format f, w x h, tightly packed at `packed` (as
 * the stage lays them out; 16-bit formats two bytes a sample): where each
 * starts, the bytes of its rows and how many rows; the rest of data[] is
 * NULL. Returns the number of planes. */
int clv_packed_planes(clv_pixfmt f, int w, int h, const uint8_t *packed, const uint8_t *data[4],
                      int bytes[4], int rows[4]);
/* Copies tightly packed planes of format f into (to_frame) or out of an
 * AVFrame of w x h. */
void clv_copy_planes(clv_pixfmt f, int w, int h, uint8_t *packed, AVFrame *frame, int to_frame);

/* Puts the decoded frames of one stream into the stage's layout: the
 * layouts the stage takes as they are, the others through swscale
 * (RGB-like sources to RGBA, the rest to yuv420p; at 16 bits, see
 * clv_feed_create). */
typedef struct clv_feed clv_feed;

/* For the frames of the input described by `input` (size, format, colour;
 * its path names it in messages). depth 16: an input of more than 8 bits
 * (clv_av_pixfmt_bits) enters at 16 bits, for a chain that runs there:
 * yuv420p10le, p010le, p016le, yuv444p16le and rgba64le as they are, other
 * Y'CbCr of 4:2:0 as p016le, other Y'CbCr and gray as yuv444p16le, RGB and
 * alpha as rgba64le (swscale). depth 8, or an input of 8 bits: the 8-bit
 * layouts. */
int clv_feed_create(const clv_media_desc *input, int depth, clv_feed **out, clv_msg *msg);
/* For an input of a graph that runs at 16 bits: as clv_feed_create at 16,
 * and 8-bit RGB-like sources and those with alpha as rgba64le too; 8-bit
 * Y'CbCr enters as yuv420p or nv12, which a 16-bit stage widens itself. */
int clv_feed_create_deep(const clv_media_desc *input, clv_feed **out, clv_msg *msg);
void clv_feed_destroy(clv_feed *feed);
clv_pixfmt clv_feed_format(const clv_feed *feed);
clv_color clv_feed_color(const clv_feed *feed);
int clv_feed_native(const clv_feed *feed); /* 1: no swscale */
/* The colour of a YUV output made from this feed's frames: the input's own
 * when it enters as YUV, else clv_default_color for its height. */
clv_color clv_feed_output_color(const clv_feed *feed);
/* Writes f into stage memory of clv_pixfmt_size bytes; CLV_EINVAL with msg
 * (naming the file) when the size or format changed mid-stream. */
int clv_feed_write(clv_feed *feed, const AVFrame *f, uint8_t *slot, clv_msg *msg);
/* clv_feed_write's check alone: CLV_EINVAL with msg when f's size or format
 * is not the stream's. */
int clv_feed_check(const clv_feed *feed, const AVFrame *f, clv_msg *msg);

/* Writes w x h RGBA8 pixels (rows w * 4 bytes) to path as a PNG, through a
 * temporary file renamed when complete; without overwrite a file at path
 * is never replaced (CLV_EEXIST). */
int clv_png_write(const char *path, const uint8_t *rgba, int w, int h, int overwrite, clv_msg *msg);

/* Fault injection for the shutdown tests: with CLVID_FAULT=WHERE:N
 * (decoder, stage, encoder, or deviceD for device D of several), that part
 * fails after N frames; several such items separated by commas. Returns N,
 * or -1 when no fault is asked for there. */
int64_t clv_fault_after(const char *where);

/* A monotonic clock in seconds, for the threads' busy times and progress. */
double clv_io_seconds(void);

/* An FFmpeg error code as text. */
const char *clv_av_err(int code, char *buf, size_t size);

/* A failure in one line: writes the message (printf's fmt) into msg (NULL:
 * none) and returns code, as core's clv__fail does:
 *     return clv_io_fail(msg, CLV_EIO, "cannot write '%s': %s", path, why); */
int clv_io_fail(clv_msg *msg, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
