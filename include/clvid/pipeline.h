/* pipeline.h - the public interface of libclvid-pipeline: whole runs built
 * from FFmpeg (decode, encode, mux) around the engine's GPU stage. A
 * transcode reads any input libavformat opens (files, image sequences,
 * streams, cameras), filters every frame through a chain and writes the
 * output with the input's audio and subtitles copied. It prints nothing and
 * installs no signal handler: it reports through a callback and stops when
 * asked. */
#ifndef CLVID_PIPELINE_H
#define CLVID_PIPELINE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clvid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one transcode does. Strings are borrowed for the run's length; NULL
 * means the default. Fill one with clv_transcode_options_init first (it
 * sets struct_size), so that fields added later keep their defaults. */
typedef struct clv_transcode_options {
    size_t struct_size; /* sizeof(clv_transcode_options) as the caller knows it */
    /* Input */
    const char *input;          /* path, URL, image pattern ("img_%04d.png"), device, or "-"
                                   for standard input */
    const char *input_format;   /* ffmpeg's -f (lavfi, v4l2, image2, ...); NULL: probe */
    int64_t start_us;           /* -ss: skip to this time, microseconds */
    int64_t duration_us;        /* -t: this much of the input; 0: all */
    int64_t max_frames;         /* stop after this many video frames; 0: all */
    int live;                   /* a camera or stream: no demuxer buffering, small probe */
    int no_autorotate;          /* keep the frames as stored (a phone video's display matrix,
                                   a photo's EXIF orientation) instead of turning them upright
                                   before the chain, as ffmpeg's -noautorotate */
    const char *capture_size;   /* cameras: "1280x720" */
    const char *capture_rate;   /* cameras: "30" */
    const char *capture_format; /* cameras: "mjpeg", "yuyv422", ... */
    const char *mic;            /* live only: a microphone recorded too (ALSA "default") */
    const char *mic_format;     /* its capture format: "alsa" (NULL), "pulse", "lavfi" */

    /* Filtering: the chain, and the engine's settings (the device, the
     * kernel cache, the work shape; profiling is always on). */
    const char *chain; /* ffmpeg syntax, "median=radius=2,sharpen"; NULL or "": none */
    /* The index of the run's first frame for the filters that vary per frame
     * (noise): a run that starts mid-video (a segment of a longer job) gives
     * the index that frame has in the whole video, so its output equals the
     * whole run's. 0: the run's first frame is frame 0. (A chain that makes
     * a frame per field runs twice on each frame: frame n's runs are 2n and
     * 2n + 1.) */
    uint64_t first_frame_index;
    /* The engine's settings (made with clv_context_options_init; borrowed
     * for the run); NULL: the defaults. device, when set, is the device
     * instead of engine->device (--device). */
    const clv_context_options *engine;
    const char *device;

    /* Output */
    const char *output;         /* the format follows the extension; "-": standard output */
    const char *output_format;  /* the muxer by name (matroska, nut, mpegts); NULL: from
                                   the extension. Needed for "-". "tee": output is several
                                   outputs of one encoding in ffmpeg's tee syntax,
                                   "rec.mkv|[f=flv:onfail=ignore]rtmp://..." (docs/live.md) */
    int overwrite;              /* replace an existing output (never the input itself) */
    const char *codec;          /* video encoder; NULL: the container's (libx264, png, ...) */
    int crf;                    /* x264/x265 quality 0..51; -1: the encoder's default (18) */
    const char *preset;         /* x264/x265 preset; NULL: veryfast */
    int64_t bitrate;            /* bit/s; 0: none */
    const char *pix_fmt;        /* encoder pixel format; NULL: chosen from input and encoder */
    int no_audio;               /* leave the input's audio out (-an) */
    const char *audio_codec;    /* -c:a: NULL copies what the container takes and encodes the
                                   rest to its own sound codec (AAC for mp4, Opus for webm);
                                   "copy" copies or fails; a name encodes with that encoder */
    int aspect_num, aspect_den; /* -aspect: the display aspect ratio; 0: the input's */
    int no_subtitles;           /* leave its subtitles out (-sn) */
    int quiet; /* FFmpeg's own messages: errors only (default: warnings too); FFmpeg's
                  log level is one per process */

    /* Added in 0.5: a control socket at this path (--ipc; NULL: none), mpv's
     * JSON IPC shape (docs/ipc.md): set_chain, set_param, get, pause,
     * resume, quit, and the events chain-changed and end. Made owner-only
     * (0600); a path that exists is refused unless it is a stale socket;
     * removed at the end. A chain set through it must keep the output's
     * size. */
    const char *ipc;

    /* Added in 0.6: frames decoded as context only, for a run that is a
     * segment of a longer job with a chain that reads the frames around
     * each one (a deinterlacer: clv_chain_desc_cadence's delay frames each
     * side). The first lead_frames frames decoded go through the chain and
     * their outputs are dropped; with keep_frames > 0 the outputs of the
     * keep_frames frames after them are written and those of every frame
     * after (the trailing context, decoded up to max_frames) are dropped.
     * first_frame_index is then the index of the first frame decoded (the
     * first of the lead). 0 and 0: every frame's output is written. */
    int64_t lead_frames;
    int64_t keep_frames;

    /* Added in 0.6: live work (docs/live.md). realtime (-re): the input is
     * read no faster than its timestamps say, as ffmpeg's -re, so that a
     * file can feed a live output. gop (-g): frames from one keyframe to the
     * next; 0: the encoder's own, except that a network output (a URL:
     * udp://, srt://, rtmp://, rtp://, rtsp://) or an HLS playlist (.m3u8)
     * gets a keyframe every 2 s (every hls_time for HLS). hls_time
     * (-hls_time): an HLS segment's target length in seconds; 0: the
     * muxer's (2). hls_list_size (-hls_list_size): the segments the
     * playlist names; 0: all of them; -1 (the default): the muxer's (5). */
    int realtime;
    int gop;
    double hls_time;
    int hls_list_size;

    /* Added in 0.7: network inputs (docs/live.md, "Inputs"). An input that
     * is a network URL (clv_input_is_network) is live whatever `live`
     * says. rtsp_transport (-rtsp_transport): RTSP's transport, "tcp",
     * "udp", "udp_multicast", "http" or "https"; NULL: FFmpeg's (UDP, then
     * TCP). rw_timeout_us (-rw_timeout): how long the input may send
     * nothing before it counts as dropped, in microseconds; 0: 5 s.
     * reconnect (--reconnect): when a network input drops or ends, it is
     * opened again, with waits of 0.5 s doubling to 8 s between tries, and
     * the output goes on on one timeline; reconnect_max (--reconnect-max):
     * the seconds to keep trying after each drop; 0: for ever. Without
     * reconnect a drop ends the run with a finished output and a note in
     * msg. reconnect with an input that is no network URL is CLV_EOPTION. */
    const char *rtsp_transport;
    int64_t rw_timeout_us;
    int reconnect;
    double reconnect_max;

    /* Added in 0.7: hardware decoding (docs/transcode.md, "Hardware
     * decoding"), ffmpeg's -hwaccel and -hwaccel_device. hwaccel: NULL or
     * "none" decodes in software; "auto" decodes on the first hardware
     * decoder (cuda, then vaapi, then the others) that decodes the stream's
     * first frame, else in software; a method FFmpeg names (cuda, vaapi,
     * qsv, vdpau, drm, ...) decodes with it or the run fails with CLV_EIO
     * naming it, before anything is written. Any other word is
     * CLV_EOPTION. The frames come back into memory in the device's layout
     * (nv12, p010), which the stage takes as it is. hwaccel_device: the
     * method's device ("0", "/dev/dri/renderD128"); NULL: its default. */
    const char *hwaccel;
    const char *hwaccel_device;
    /* Added in 0.8: graphs of several inputs (docs/graphs.md).
     * filter_complex: ffmpeg's -filter_complex (clvid/graph.h) over `input`
     * (input 0, with the options above) and more_inputs[0 ..
     * more_input_count - 1] (inputs 1 ..); with a chain it is CLV_EOPTION,
     * as are more inputs without it. map: the graph's output label ("out"
     * for -map '[out]'); NULL: its one unlabelled output. The sound is
     * input 0's (no_audio: none), or input audio_input's (-map N:a: its
     * sound streams, at their own timestamps, whole; input 0's subtitles
     * left out; CLV_EOPTION when it has none, unless audio_optional, -map
     * N:a?, which writes none then). A graph that is one chain over input
     * 0 runs as that chain. */
    const char *filter_complex;
    const char *map;
    const struct clv_transcode_input *more_inputs;
    int more_input_count;
    int audio_input, audio_optional;
    /* Added after 0.8. The file filter_complex was read from
     * (-filter_complex_script), NULL: none. A file the run reads, as its
     * inputs are: never its output or a side file (--progress). */
    const char *filter_complex_file;
    /* Added after 0.8: ffmpeg's output -r, the output's frames per second
     * ("30", "30000/1001", "ntsc", "29.97"; NULL: the input's). The
     * encoder's time base is one frame at that rate and frames go out as
     * ffmpeg's automatic -vsync puts them: into a container of a constant
     * rate (mp4, y4m, mpg, ...) one a tick, repeated over gaps and dropped
     * where two fall on one tick; into one of variable timing (mkv, webm,
     * nut, avi) at their own times, those that fall on a tick already
     * taken dropped. Anything else is CLV_EOPTION. */
    const char *frame_rate;
} clv_transcode_options;

/* An input after the first (0.8): its path and what was given before its
 * -i (-f, -ss, -t, -itsoffset). Turned upright as input 0 is not: taken as
 * stored. offset_us: added to its timestamps after -ss (ffmpeg's
 * -itsoffset; negative: earlier), as clvid-cluster cuts an input a little
 * before a segment's start so that its frame at that start is there. */
typedef struct clv_transcode_input {
    const char *path;
    const char *format;
    int64_t start_us, duration_us;
    int64_t offset_us;
} clv_transcode_input;

/* 1 when input is a network URL: rtsp://, rtsps://, srt://, rtmp(s)://,
 * udp://, rtp://, tcp://, http(s)://, hls+http://, so an HLS playlist
 * on a server too. Such an input is live and can reconnect. */
CLV_API int clv_input_is_network(const char *input);

/* Writes the capture devices (cameras with their formats, sizes and rates;
 * sound inputs; the screen) as text to out, with the options that pick
 * each. Returns 0. */
CLV_API int clv_capture_sources_print(FILE *out);

/* "FFmpeg: libavformat 59.27.100, libavcodec ..." for the libraries the
 * pipeline runs with, into out (size bytes). */
CLV_API void clv_pipeline_versions(char *out, size_t size);

/* Fills *options with the defaults (nothing set, crf -1) and struct_size. */
CLV_API void clv_transcode_options_init(clv_transcode_options *options);
/* The engine's settings a run with options uses: options->engine over the
 * defaults, options->device over its device. */
CLV_API void clv_transcode_engine_options(const clv_transcode_options *options,
                                          clv_context_options *engine);

/* For bindings that cannot see the struct's layout: a heap copy with the
 * defaults (NULL when out of memory), and its release (NULL is fine). */
CLV_API clv_transcode_options *clv_transcode_options_create(void);
CLV_API void clv_transcode_options_destroy(clv_transcode_options *options);
/* Sets one option by the command line's name, with or without its dashes:
 * i/input, o/output, vf/chain, input_format, output_format, c:v, c:a,
 * preset, pix_fmt, crf, b:v, aspect, r (the output's frame rate), ss, t, frames, frame-index,
 * device, input-size, input-fps, input-format, audio, audio-format, ipc, lead-frames, keep-frames,
 * g, hls_time, hls_list_size, rtsp_transport, rw_timeout, reconnect-max, hwaccel,
 * hwaccel_device, filter_complex (lavfi), map (the graph's output's label
 * without its brackets: "out" for -map '[out]');
 * flags (value NULL, "", "1", "true" or "yes" to set): y, an, sn, live, re,
 * no-autorotate, q, reconnect. String
 * values are borrowed (they must outlive the run). Returns 0, or
 * CLV_EOPTION with msg naming the option, the value and what is allowed. */
CLV_API int clv_transcode_options_set(clv_transcode_options *options, const char *key,
                                      const char *value, clv_msg *msg);
/* The inputs after the first (more_inputs, more_input_count), borrowed:
 * they must outlive the run. CLV_EOPTION with msg beyond
 * CLV_GRAPH_INPUTS - 1 or for a count below 0. filter_complex (lavfi) and
 * map ('[label]') are set by clv_transcode_options_set. */
CLV_API int clv_transcode_options_set_inputs(clv_transcode_options *options,
                                             const clv_transcode_input *inputs, int count,
                                             clv_msg *msg);
/* The longest time clv_parse_time takes, in seconds (about 31 years): far
 * from int64_t microseconds' end, so that times can be added. */
#define CLV_TIME_MAX_SECONDS 1000000000
/* Seconds or [hh:]mm:ss[.frac] as microseconds; -1 when malformed, not a
 * finite number, or over CLV_TIME_MAX_SECONDS. */
CLV_API int64_t clv_parse_time(const char *text);

/* 0 when FFmpeg knows capture_format (a camera's: a pixel format or codec
 * such as mjpeg, yuyv422) and mic_format (an input device format: alsa,
 * pulse, lavfi); either may be NULL. Else CLV_EOPTION with msg. */
CLV_API int clv_capture_format_check(const char *capture_format, const char *mic_format,
                                     clv_msg *msg);

enum clv_transcode_event {
    CLV_TRANSCODE_START,    /* everything is open; `info` is filled in */
    CLV_TRANSCODE_PROGRESS, /* a frame was written (called at most every 0.1 s) */
    CLV_TRANSCODE_END,      /* the output is complete (also after a stop) */
    /* Added in 0.7, with options->reconnect: the input dropped and is being
     * opened again (called before each try), and it is back. */
    CLV_TRANSCODE_RECONNECTING,
    CLV_TRANSCODE_RECONNECTED,
};

/* What the run is doing, for a progress display. Strings live as long as the
 * run. */
typedef struct clv_transcode_status {
    enum clv_transcode_event event;
    /* Set from START on: */
    const char *input, *output;
    int width, height;         /* of the output (turned upright) */
    int rotation;              /* degrees clockwise the input was turned */
    const char *input_pix_fmt; /* the decoder's, "yuv420p" */
    const char *matrix;        /* "BT.709" */
    int full_range;
    const char *chain;  /* the chain as parsed, "" for none */
    const char *device; /* the OpenCL device's name ("#1 NAME + #2 NAME" for several) */
    const char *codec;  /* the video encoder's name */
    const char *output_pix_fmt;
    const char *partial_path; /* the temporary file being written, or NULL (written in place) */
    double total_seconds;     /* of output expected; 0: unknown (a live source) */
    /* Counters: */
    int64_t frames;     /* frames written */
    double out_seconds; /* output time reached */
    double elapsed;     /* wall-clock seconds since START */
    int stopped;        /* END: the run was stopped early (cancel or callback) */
    /* END only: where the time went, in seconds (busy time of each part). */
    double decode_s, upload_s, kernels_s, download_s, encode_s;
    /* END only, with several devices (--device 1,2): each one's share of
     * the frames and its time per frame, "#1 NAME 45 frames (50%) 21.30
     * ms/frame; ..."; "" with one device. */
    const char *device_shares;
    /* From the call to the first frame written (the devices opened and
     * their kernels built or loaded, the input and output opened, one frame
     * decoded, filtered and queued to the encoder); 0 before it. */
    double first_frame_s;
    /* END only: 1 when the frames' memory was shared with the device (a CPU
     * device; clv_context_options.staging): upload_s and download_s are 0
     * because there were no copies. */
    int shared_staging;
    /* END only: the input's damage: video packets the decoder refused
     * (dropped) and frames it flagged as damaged (concealed). */
    int64_t corrupt_packets, corrupt_frames;
    /* Added in 0.7. From the first packet written on (0 before): each frame's latency,
     * from its packet read off the input (after -re's wait) to its encoded
     * packet handed to the muxer, over the frames written so far, in ms:
     * median, 99th percentile (to 0.1 ms below 1 s), greatest and mean; and
     * the encoder's own time per frame (its frame sent to the encoder to
     * its packet out, frames it holds back included): median and 99th
     * percentile. With a live input or -re this is the input-to-output
     * latency; a file read as fast as the chain runs waits in the queues. */
    double latency_p50_ms, latency_p99_ms, latency_max_ms, latency_mean_ms;
    double encoder_p50_ms, encoder_p99_ms;
    /* Added in 0.7, from START on: how the video is decoded, "cuda (h264)"
     * (options->hwaccel's method and the codec) or "software". */
    const char *decode;
    /* Added after 0.8, from START on: every temporary file being written
     * (several outputs: one each), NULL-terminated; partial_path is the
     * first. */
    const char *const *partial_paths;
} clv_transcode_status;

/* Called on the run's thread. Return 0 to go on, non-zero to stop the run as
 * a set cancel flag does. */
typedef int (*clv_transcode_callback)(const clv_transcode_status *status, void *user);

/* Runs one transcode to the end and returns 0, or a negative CLV_E* code with
 * msg naming what was wrong (the file, the filter and its range, the
 * device, the encoder). callback and user may be NULL. cancel may be NULL; it
 * is read between frames (a signal handler may set it): when it becomes
 * non-zero the run stops after the frames in flight and finishes the output,
 * complete and playable up to there, and still returns 0 (status.stopped is
 * 1 at END). The output is written to a temporary file beside it and renamed
 * when complete, so a failed run never leaves a partial or corrupt output
 * and never touches a file already there; an existing output is
 * CLV_EEXIST without options->overwrite, and writing over the input is
 * CLV_EOPTION. On success msg is empty or holds a note worth showing (a
 * microphone that stopped by itself). Usage mistakes (a bad chain, option or device) are
 * CLV_EPARSE, CLV_ERANGE, CLV_EOPTION or CLV_ENODEVICE, found before anything
 * is written. */
CLV_API int clv_transcode_run(const clv_transcode_options *options, clv_transcode_callback callback,
                              void *user, const volatile sig_atomic_t *cancel, clv_msg *msg);

/* The checks a transcode makes before it writes anything, for callers that
 * plan several runs (the cluster): CLV_EOPTION when output (any file of an
 * output sequence, "out_%04d.png") is one of the inputs' files (any file of
 * an input sequence), compared by device and inode, with or without
 * overwrite, or is a folder; CLV_EEXIST when, without overwrite, it (any
 * file of the sequence) exists. format is the output's -f (NULL: from its
 * name); formats that write no file (null) pass. msg names the file. */
CLV_API int clv_transcode_check_output(const char *const *inputs, int input_count,
                                       const char *output, const char *format, int overwrite,
                                       clv_msg *msg);

/* Added after 0.8. The checks of a file written beside the run's output (a
 * progress file), after the run's own (clv_transcode_run's, before it
 * writes anything): CLV_EOPTION when path is an input, a file the chain
 * reads or the output (by device and inode; a new file by folder and
 * name), or a folder; CLV_EEXIST when, without options->overwrite, a
 * regular file is there. A FIFO or device (/dev/null, /dev/stderr) passes:
 * it is written, not replaced. msg names the file, after `what` (the
 * option that names it, "--progress") when the fault is the file's. */
CLV_API int clv_transcode_check_side_file(const clv_transcode_options *options, const char *path,
                                          const char *what, clv_msg *msg);

/* ---- Probing and joining segments ----------------------------------------- */

/* What a file holds, as its container says (no decoding). */
typedef struct clv_media_info {
    int width, height;      /* of the main video stream */
    int rate_num, rate_den; /* its frame rate (0/0 unknown) */
    double duration;        /* seconds, 0 unknown */
    int64_t frames;         /* frames the container counts, 0 unknown */
    int audio_streams;
} clv_media_info;

/* Fills *info for path; CLV_EIO or CLV_EINVAL with msg naming the file. */
CLV_API int clv_probe(const char *path, clv_media_info *info, clv_msg *msg);

/* Joins `count` segments (files of one video stream each, made with the same
 * encoder settings, each starting on a keyframe, e.g. transcodes of
 * consecutive -ss/-t ranges) into output without re-encoding: their packets
 * one after another on one timeline, each segment continuing where the last
 * ended; the audio and subtitle streams of streams_from (the original
 * input; NULL for none) are copied beside them where the container takes
 * them. Written to a temporary file renamed when complete; an existing
 * output is CLV_EEXIST unless overwrite. Returns 0 or a CLV_E* code with
 * msg naming the file. */
CLV_API int clv_join(const char *const *segments, int count, const char *streams_from,
                     const char *output, int overwrite, clv_msg *msg);

/* ---- Reading filtered frames -------------------------------------------- */

/* An input's frames through a chain, one at a time, as RGBA in memory (for
 * programs that want the pictures rather than a file). One thread uses a
 * reader at a time. */
typedef struct clv_reader clv_reader;

/* Opens options->input with its input fields, chain, engine settings and
 * no_autorotate (the output fields are not used). With filter_complex (0.8;
 * and more_inputs, map) the frames are the graph's output over input 0 and
 * the more inputs, at input 0's times, as a transcode's, and chain is the
 * one after the graph; more inputs without a graph are CLV_EOPTION. On
 * failure *out is NULL and msg says why (the file, the filter and its
 * range, the place in the graph, the device). */
CLV_API int clv_reader_open(const clv_transcode_options *options, clv_reader **out, clv_msg *msg);
/* The frames' size (turned upright when the input says so). */
CLV_API void clv_reader_size(const clv_reader *reader, int *width, int *height);
/* The next frame: *rgba points at width * height * 4 bytes (rows width * 4
 * apart) in the GPU stage's staging memory (no copy), owned by the reader
 * and valid until the next call or close;
 * *seconds is its time. Returns 1 with a frame, 0 at the end of the input,
 * or a negative CLV_E* code with msg. */
CLV_API int clv_reader_next(clv_reader *reader, const uint8_t **rgba, double *seconds,
                            clv_msg *msg);
/* Stops the decoder and frees everything; NULL is fine. */
CLV_API void clv_reader_close(clv_reader *reader);

#ifdef __cplusplus
}
#endif
#endif
