/* clvid.h - the public interface of the clvid engine (libclvid): devices,
 * chains of filters, device frames, the pipelined GPU stage and the C
 * reference. Links OpenCL only; no FFmpeg, no SDL. Every function is
 * thread-compatible: objects are used by one thread at a time unless said
 * otherwise; the library keeps no global state. */
#ifndef CLVID_H
#define CLVID_H

#include <stddef.h>
#include <stdint.h>

#include "version.h"

/* OpenCL's handle types, as <CL/cl.h> declares them (cl_platform_id is a
 * struct _cl_platform_id pointer): this header needs no OpenCL header; the
 * calls that take OpenCL objects are in clvid/opencl.h. */
struct _cl_platform_id;
struct _cl_device_id;

/* Symbols of the public API; everything else in the library is hidden. */
#if defined(__GNUC__)
#define CLV_API __attribute__((visibility("default")))
#else
#define CLV_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes: negative, from one table (src/core/error.c) that also gives
 * clv_strerror. Zero is success. */
#define CLV_ERRORS(X)                                                                              \
    X(EINVAL, -1, "invalid argument")                                                              \
    X(ENOMEM, -2, "out of memory")                                                                 \
    X(ENOPLATFORM, -3, "no OpenCL platform")                                                       \
    X(ENODEVICE, -4, "no such OpenCL device")                                                      \
    X(EBUILD, -5, "kernel build failed")                                                           \
    X(ECL, -6, "OpenCL call failed")                                                               \
    X(EPARSE, -7, "invalid filter chain")                                                          \
    X(ERANGE, -8, "value out of range")                                                            \
    X(ELIMIT, -9, "exceeds a device limit")                                                        \
    X(EIO, -10, "input/output error")                                                              \
    X(ENOTFOUND, -11, "not found")                                                                 \
    X(EEXIST, -12, "output exists")                                                                \
    X(EOPTION, -13, "invalid option")                                                              \
    X(EKERNEL, -14, "user kernel does not build")                                                  \
    X(ETIMEOUT, -15, "device did not finish in time")                                              \
    X(EDEPTH, -16, "not at this bit depth")

enum clv_error {
#define CLV__ENUM(name, code, text) CLV_##name = code,
    CLV_ERRORS(CLV__ENUM)
#undef CLV__ENUM
};

/* The library's version as "MAJOR.MINOR.PATCH" and as
 * CLVID_VERSION_NUMBER's integer; compare them with the header's macros to
 * see which library a program runs against. */
CLV_API const char *clv_version(void);
CLV_API int clv_version_number(void);

/* A static English string for an error code; never NULL. */
CLV_API const char *clv_strerror(int code);

/* Messages for the user: the engine writes a sentence that names the thing at
 * fault (file, filter, parameter, value, range, device) into one of these. */
typedef struct clv_msg {
    char text[1024];
} clv_msg;

/* ---- Devices ----------------------------------------------------------- */

typedef struct clv_device_info {
    int index;          /* position in the flat list, from 0 */
    char platform[128]; /* platform name */
    char name[128];     /* device name */
    char driver[64];    /* driver version */
    char version[64];   /* CL_DEVICE_OPENCL_C_VERSION */
    int is_gpu, is_cpu; /* CL_DEVICE_TYPE_GPU / _CPU bits */
    unsigned compute_units;
    uint64_t global_mem;                 /* bytes */
    uint64_t local_mem;                  /* bytes */
    uint64_t max_alloc;                  /* bytes, largest single buffer */
    struct _cl_platform_id *platform_id; /* cl_platform_id */
    struct _cl_device_id *device_id;     /* cl_device_id */
} clv_device_info;

/* Lists every device of every platform into *list (caller frees with free()).
 * Returns the count (>= 1), or CLV_ENOPLATFORM with msg saying how to install
 * one. */
CLV_API int clv_device_list(clv_device_info **list, clv_msg *msg);

/* Picks a device from the list: spec is NULL (the first GPU, else the first
 * device), an index, or a case-insensitive name substring. Returns the index
 * into list, or CLV_ENODEVICE with msg. */
CLV_API int clv_device_select(const clv_device_info *list, int count, const char *spec,
                              clv_msg *msg);

/* The most devices one context takes. */
#define CLV_DEVICES_MAX 8

/* Picks several devices: spec is what clv_device_select takes, "gpu" (every
 * GPU), "cpu" (every CPU device), "all", or such items separated by commas
 * ("1,2", "gpu,0"). Writes up to max indices into `indices` in the order
 * given (a device named twice is an error) and returns how many, or
 * CLV_ENODEVICE with msg naming the item at fault. */
CLV_API int clv_device_select_list(const clv_device_info *list, int count, const char *spec,
                                   int *indices, int max, clv_msg *msg);

/* ---- Context ----------------------------------------------------------- */

/* One device with its OpenCL context, an in-order compute queue and the
 * programs built for it. Not thread-safe: one thread uses a context at once.
 *
 * Several devices: when options.device names more than one ("1,2", "gpu",
 * "all"), the context holds one such context per device. Chains created on
 * it are built on every device (parameters set on the chain reach all), and
 * a GPU stage created on it deals frames to the devices and gives them back
 * in order (see the stage). Everything else (frames, clv_chain_run) uses the
 * first device, whose info clv_context_device returns. */
typedef struct clv_context clv_context;

/* Log levels of the engine's messages (clv_context_options.log_level). */
enum clv_log_level { CLV_LOG_ERROR, CLV_LOG_WARN, CLV_LOG_INFO, CLV_LOG_DEBUG };

/* Receives one log line (no newline) at `level`; called on the thread that
 * uses the context. */
typedef void (*clv_log_callback)(void *user, int level, const char *line);

/* The engine's settings. The library reads no environment variable: a
 * program passes what it wants here (the clvid command reads CLVID_DEVICE,
 * CLVID_SHAPE, CLVID_CACHE_DIR, CLVID_NO_CACHE, CLVID_KERNEL_DIR,
 * CLVID_LOG and POCL_KERNEL_CACHE once and passes them down). Fill one with
 * clv_context_options_init first, then set what you want: struct_size says
 * which version of the struct the caller was built with, so fields added
 * later keep their defaults for older callers. */
typedef struct clv_context_options {
    size_t struct_size;     /* sizeof(clv_context_options) as the caller knows it */
    const char *device;     /* as clv_device_select's spec; NULL: the first GPU, else device 0 */
    int profiling;          /* enable CL profiling on the queue (the bench does) */
    int shape;              /* kernel work shape: 0 by device type, 1 rows per work-item (the
                               CPU shape), 2 several pixels per work-item (the GPU shape) */
    const char *cache_dir;  /* kernel binaries are kept here (made if missing); NULL: none */
    int no_cache;           /* 1: ignore cache_dir */
    const char *kernel_dir; /* development: load the .cl files from here, not the embedded */
    int log_level;          /* messages up to this level are logged (default CLV_LOG_WARN) */
    clv_log_callback log;   /* NULL: "clvid: LEVEL: line" on stderr */
    void *log_user;
    /* A frame through a chain with a user kernel (the opencl filter) that
     * takes longer than this many seconds is CLV_ETIMEOUT from
     * clv_stage_output; 0: 10 s; < 0: wait for ever. After one, the
     * context is left hung: destroying it and its objects makes no more
     * OpenCL calls (which could block for ever) and leaks them. */
    double watchdog_s;
    /* How the GPU stage's frames reach the device: 0, shared memory where
     * the device works in the host's memory and can share it (a CPU through
     * PoCL: fine-grained SVM, no copies at all), else copies through pinned
     * memory; 1, always the copies (what a discrete GPU does; to test that
     * path on a CPU). */
    int staging;
    /* When kernel binaries are written to cache_dir: 0, at the build on
     * every driver but PoCL, which compiles every kernel of a program to
     * hand out its binary (most of a cold start on a CPU), and there when
     * the context is destroyed; 1, at the build on PoCL too (the clvid command
     * sets it when POCL_KERNEL_CACHE=0 turns PoCL's own cache off). */
    int cache_every_driver;
} clv_context_options;

/* The defaults (every field zero, which means its default) and struct_size. */
CLV_API void clv_context_options_init(clv_context_options *options);

/* Opens the selected device. options may be NULL (the defaults). On failure
 * *out is NULL and msg says why; CLV_EINVAL for options not made by
 * clv_context_options_init (struct_size 0) or from a newer clvid. */
CLV_API int clv_context_create(const clv_context_options *options, clv_context **out, clv_msg *msg);
CLV_API void clv_context_destroy(clv_context *ctx);
CLV_API const clv_device_info *clv_context_device(const clv_context *ctx);
/* 1 when the GPU stage shares its frames' memory with the device (no
 * upload or download copies; clv_context_options.staging). */
CLV_API int clv_context_shared_staging(const clv_context *ctx);
/* 1 when kernels use the CPU work shape (one row per work-item). */
CLV_API int clv_context_row_shape(const clv_context *ctx);
/* How many devices the context holds (1 unless options.device named more). */
CLV_API int clv_context_device_count(const clv_context *ctx);
/* The device `index` of the context (0 is clv_context_device's), NULL when
 * out of range. To use one of them alone, open a context on its index. */
CLV_API const clv_device_info *clv_context_device_at(const clv_context *ctx, int index);

/* ---- Frames ------------------------------------------------------------ */

/* A host image: RGBA, rows `stride` bytes apart. Owned by whoever made it.
 * depth 8 (or 0): a byte a channel; 16: a uint16_t a channel in the host's
 * byte order, 0-65535 (RGBA16, what the chain runs on for inputs of more
 * than 8 bits). */
typedef struct clv_image {
    uint8_t *pixels;
    int width, height;
    size_t stride;
    int depth; /* added in 0.5 */
} clv_image;

/* Allocates a zeroed host image of depth 8 (stride = width * 4); release
 * with clv_image_free, which accepts a zeroed struct. */
CLV_API int clv_image_alloc(clv_image *img, int width, int height);
/* The same at depth 8 or 16 (stride = width * 4 or width * 8). */
CLV_API int clv_image_alloc_depth(clv_image *img, int width, int height, int depth);
/* Bytes of one pixel of img: 4, or 8 at depth 16. */
CLV_API int clv_image_pixel_bytes(const clv_image *img);
CLV_API void clv_image_free(clv_image *img);

/* ---- Filters and parameters -------------------------------------------- */

enum clv_param_type {
    CLV_PARAM_INT,    /* integer in [min, max]; a range of 0 to 1 (-1 to 1) is ffmpeg's boolean
                         (CLV_PARAM_IS_BOOLEAN) */
    CLV_PARAM_REAL,   /* decimal in [min, max], kept to 1/1000 */
    CLV_PARAM_ENUM,   /* one word of `choices` ("luma|gray"); where max > min, also ffmpeg's
                         number for word i, min + i (words past max: aliases) */
    CLV_PARAM_MATRIX, /* 9, 25 or 49 integers in [min, max] */
    /* Added in 0.4: */
    CLV_PARAM_EXPR,  /* ffmpeg's arithmetic expression ("iw/2", "-2", "PI*t/10") over the
                        variables named in `choices` ("iw|ih|a|sar|dar"), kept as text
                        (clv_value_text) and evaluated by the filter; checked when parsed */
    CLV_PARAM_COLOR, /* ffmpeg's colour: a name ("black", "AliceBlue"), "0xRRGGBB[AA]" or
                        "#RRGGBB[AA]", with "@ALPHA" (0-1 or 0x..): i = 0xRRGGBBAA */
    CLV_PARAM_FLAGS, /* ffmpeg's flags: words of `choices` joined by '+' ("lanczos+accurate_rnd");
                        i has bit k set for the k-th word */
    /* Added in 0.5: */
    CLV_PARAM_TEXT, /* a string the filter reads itself (curves' points "0/0 0.5/0.6 1/1"),
                       kept as text (clv_value_text), at most CLV_EXPR_MAX characters */
    CLV_PARAM_FILE, /* the name of a file the filter reads (lut3d's .cube), kept as text: an
                       input of the run like its video ("": none; clv_chain_desc_files) */
};

typedef struct clv_param {
    const char *name;
    enum clv_param_type type;
    const char *def; /* default, as text the parser accepts */
    double min, max; /* range of each value (INT, REAL, MATRIX); ENUM: ffmpeg's numbers;
                        FLAGS where max > 0: ffmpeg's number for the flags is taken as
                        their bits, so the choices' order must give ffmpeg's bits */
    const char *choices;
    const char *help;
    double step; /* one press of a parameter key (the window's up/down); ENUM: 1, the
                    choices cycle; 0: not stepped (MATRIX) */
} clv_param;

/* An INT of range 0 to 1 is ffmpeg's boolean (AV_OPT_TYPE_BOOL): it takes
 * ffmpeg's words too, true|y|yes|enable|enabled|on for 1 and
 * false|n|no|disable|disabled|off for 0 (in any case), and auto for -1 where
 * the range starts at -1. */
#define CLV_PARAM_IS_BOOLEAN(p)                                                                    \
    ((p)->type == CLV_PARAM_INT && (p)->max == 1 && ((p)->min == 0 || (p)->min == -1))

#define CLV_MATRIX_MAX 49

/* A parsed parameter value. REAL is stored as milli-units (value * 1000,
 * rounded), so device and reference agree exactly. */
typedef struct clv_value {
    int64_t i;             /* INT; REAL in milli-units; ENUM index; COLOR 0xRRGGBBAA; FLAGS bits */
    int n;                 /* MATRIX: number of coefficients; EXPR: length of the text */
    int m[CLV_MATRIX_MAX]; /* MATRIX coefficients, row-major; EXPR: the text's bytes */
} clv_value;

/* The longest expression an EXPR value holds (its bytes live in m); the
 * longest TEXT and FILE value too. */
#define CLV_EXPR_MAX ((int)sizeof(int) * CLV_MATRIX_MAX - 1)
/* An EXPR, TEXT or FILE value's text (NUL-terminated); "" for other types. */
CLV_API const char *clv_value_text(const clv_value *value);

typedef struct clv_filter clv_filter; /* descriptor, see clvid_internal.h */

CLV_API int clv_filter_count(void);
CLV_API const clv_filter *clv_filter_at(int index);
CLV_API const clv_filter *clv_filter_find(const char *name);
CLV_API const char *clv_filter_name(const clv_filter *f);
CLV_API const char *clv_filter_help(const clv_filter *f);
CLV_API int clv_filter_param_count(const clv_filter *f);
CLV_API const clv_param *clv_filter_param(const clv_filter *f, int index);
/* 1 when the filter's output depends on the frames before (quantize starts
 * from the last palette; a user kernel whose parameters name `prev`), so a
 * run split into segments cannot match one run; noise and kernels reading
 * `frame` or `time` depend only on the frame's index, which a segment is
 * told. */
CLV_API int clv_filter_temporal(const clv_filter *f);
/* The file a filter reads (a user kernel's .cl), or NULL: an input of the
 * run like its video, which no output may overwrite. */
CLV_API const char *clv_filter_file(const clv_filter *f);
/* 1 when the filter runs on frames of 16 bits a channel as well as 8
 * (0.5): its kernels and its reference at both depths. */
CLV_API int clv_filter_deep(const clv_filter *f);

/* ---- Chains -------------------------------------------------------------- */

#define CLV_CHAIN_MAX 32
/* The most parameters a filter has (24 since 0.8, for ffmpeg's
 * colorchannelmixer's 18; 16 before): read a filter's own count with
 * clv_filter_param_count. */
#define CLV_PARAMS_MAX 24

/* A parsed chain: which filters, with which values (opaque: read it
 * through the accessors below). */
typedef struct clv_chain_desc clv_chain_desc;

/* Parses ffmpeg's filter-graph syntax ("median=radius=2,sharpen") into a
 * new description, *out, the caller's (clv_chain_desc_destroy). An empty
 * text is an empty chain (the identity). On error *out is NULL and the
 * result is CLV_EPARSE or CLV_ERANGE with msg naming the filter, parameter,
 * value and allowed range, then the chain around the fault. */
CLV_API int clv_chain_parse(const char *text, clv_chain_desc **out, clv_msg *msg);
/* Frees desc (NULL is fine). */
CLV_API void clv_chain_desc_destroy(clv_chain_desc *desc);
/* The pixel formats the chain's last `format` filter names
 * ("yuv420p|yuv444p"; 0.8), a pointer into desc, or NULL where it has
 * none. The chain's filters work on RGBA and format changes no pixel: an
 * encoded output takes the first of them its encoder takes, as -pix_fmt.
 * A format ends its chain: the parser refuses a filter after it but those
 * that change no pixel (null, copy, setsar, setdar, format). */
CLV_API const char *clv_chain_desc_pix_fmts(const clv_chain_desc *desc);
/* 1 when no filter of desc changes a pixel or the size (an empty chain;
 * null, copy, format, setsar, setdar; 0.8): the frames may pass as they
 * are, in their own pixel format. setsar and setdar change the aspect,
 * which clv_chain_desc_output_size tells. */
CLV_API int clv_chain_desc_passes(const clv_chain_desc *desc);
/* A copy of desc, or NULL when out of memory; the caller's. */
CLV_API clv_chain_desc *clv_chain_desc_copy(const clv_chain_desc *desc);
/* A new description of `count` filters of desc from `first` (clamped to
 * what desc has; 0 filters is the identity), or NULL when out of memory. */
CLV_API clv_chain_desc *clv_chain_desc_slice(const clv_chain_desc *desc, int first, int count);
/* How many filters; filter `index`'s descriptor and values (its
 * clv_filter_param_count of them), NULL when out of range. */
CLV_API int clv_chain_desc_count(const clv_chain_desc *desc);
CLV_API const clv_filter *clv_chain_desc_filter(const clv_chain_desc *desc, int index);
CLV_API const clv_value *clv_chain_desc_values(const clv_chain_desc *desc, int index);
/* Parses one value for parameter `index` of f into *value. */
CLV_API int clv_param_parse(const clv_filter *f, int index, const char *text, clv_value *value,
                            clv_msg *msg);
/* Writes the chain back as text ("median=radius=2,sharpen"). */
CLV_API void clv_chain_format(const clv_chain_desc *desc, char *out, size_t size);

/* A frame's size and its sample (pixel) aspect ratio, as ffmpeg carries
 * them: sar 0/1 (or 0/0) is unknown, which expressions read as 1. */
typedef struct clv_size {
    int width, height;
    int sar_num, sar_den;
    /* Added in 0.5: what the pixels mean, as far as filters change it
     * (tonemap turns PQ/HLG BT.2020 into BT.709 SDR): the transfer and
     * primaries of the RGB values (0: unknown, taken as SDR BT.709 by the
     * filters that need it) and the content's peak in cd/m2 (MaxCLL, else
     * the mastering display's peak; 0: unknown). */
    int transfer;  /* clv_transfer */
    int primaries; /* clv_primaries */
    int peak;
} clv_size;

typedef enum clv_transfer {
    CLV_TRC_UNKNOWN,
    CLV_TRC_BT709, /* SDR: BT.709/BT.601/sRGB-like gamma */
    CLV_TRC_PQ,    /* SMPTE ST 2084 */
    CLV_TRC_HLG,   /* ARIB STD-B67 */
    CLV_TRC_LINEAR,
} clv_transfer;
typedef enum clv_primaries { CLV_PRIM_UNKNOWN, CLV_PRIM_BT709, CLV_PRIM_BT2020 } clv_primaries;

/* The size of the frames a chain makes of frames of *in (scale, crop, pad,
 * transpose and rotate change it; the other filters keep it) and their
 * aspect (scale keeps the display aspect through the SAR, as ffmpeg's
 * does; transpose turns it). A size a filter computes as zero, negative or
 * beyond clvid's largest side is CLV_ERANGE, msg naming the filter, its
 * place in the chain, the size it computed and the size it got. */
CLV_API int clv_chain_desc_output_size(const clv_chain_desc *desc, const clv_size *in,
                                       clv_size *out, clv_msg *msg);

/* A chain instantiated on a device: kernels built, state allocated. Built
 * once and run frame after frame. */
typedef struct clv_chain clv_chain;

CLV_API int clv_chain_create(clv_context *ctx, const clv_chain_desc *desc, clv_chain **out,
                             clv_msg *msg);
/* The same for frames of `depth` bits a channel, 8 or 16 (0.5): a 16-bit
 * chain runs on RGBA16 frames (clv_frame.depth 16), every filter at 16
 * bits; CLV_EDEPTH, msg naming the filter, when one runs at 8 bits only
 * (clv_chain_desc_deep says so beforehand). clv_chain_create is depth 8. */
CLV_API int clv_chain_create_depth(clv_context *ctx, const clv_chain_desc *desc, int depth,
                                   clv_chain **out, clv_msg *msg);
CLV_API int clv_chain_depth(const clv_chain *chain);
/* 0 when every filter of desc runs at 16 bits; else CLV_EDEPTH with msg
 * naming the first that does not. */
CLV_API int clv_chain_desc_deep(const clv_chain_desc *desc, clv_msg *msg);
/* The files the chain's filters read (0.5): each user kernel's .cl
 * (clv_filter_file) and each FILE parameter that names one (lut3d's .cube,
 * curves' psfile), in the chain's order, into files[0 .. max-1] (pointers
 * into desc and the registry, valid while desc is); returns how many there
 * are (more than max when files was too short). They are inputs of the run
 * like its video, which no output may overwrite. */
CLV_API int clv_chain_desc_files(const clv_chain_desc *desc, const char **files, int max);
CLV_API void clv_chain_destroy(clv_chain *chain);

/* Frames held back (0.6): a deinterlacer (yadif, bwdif) makes frame n from
 * frames n - 1, n and n + 1, so its output lags its input by a frame, and
 * in mode send_field it makes a frame per field, two per frame in.
 * *delay gets the frames in that the chain's output lags behind (0 or 1),
 * *rate the frames out per frame in (1 or 2). Running such a chain: run it
 * rate times on each frame in (the same frame, frame indices counting the
 * frames out); the first delay * rate outputs are no frames (drop them);
 * at the end call clv_chain_end and run it delay * rate more times on the
 * last frame in, which gives the frames held. Returns 0, or CLV_EPARSE
 * (CLV_EINVAL in 0.8) with msg when two filters of desc hold frames
 * (one at most). */
CLV_API int clv_chain_desc_cadence(const clv_chain_desc *desc, int *delay, int *rate, clv_msg *msg);

/* ffmpeg's fps and framestep filters (after 0.8). It changes no pixel: the frames of the
 * rate it names are picked from the chain's output by the caller, as
 * clvid transcode does (ffmpeg's vf_fps: each tick of 1/rate gets the last
 * frame at or before it, timestamps rounded as `rounding` says). So no
 * filter after it may depend on the frame's number or time (the parser
 * refuses those), and clv_chain_create refuses a chain with fps unless
 * its caller took the rate first (clv_chain_desc_take_fps). */
typedef struct clv_fps_spec {
    double rate;       /* frames per second; 0: the chain has no fps */
    int rounding;      /* FFmpeg's AVRounding: 0 zero, 1 inf, 2 down, 3 up, 5 near */
    int eof_pass;      /* eof_action=pass: the last frame's end rounded up */
    int has_start;     /* start_time given: */
    double start_time; /* the first tick's time, seconds */
    /* ffmpeg's framestep instead (step > 0): every step-th frame from the
     * first at its own time, rate source_fps / step */
    int step;
} clv_fps_spec;
/* The chain's fps, its rate evaluated with source_fps (the frame rate of
 * the frames into it; ntsc, pal, film and ntsc_film are ffmpeg's
 * constants): 0 with spec->rate 0 when there is none, 0 with the spec, or
 * CLV_ERANGE with msg when the rate is not more than 0 (or not a number). */
CLV_API int clv_chain_desc_fps(const clv_chain_desc *desc, double source_fps, clv_fps_spec *spec,
                               clv_msg *msg);
/* The caller picks fps's frames: clv_chain_create takes desc from now on. */
CLV_API void clv_chain_desc_take_fps(clv_chain_desc *desc);
CLV_API void clv_chain_cadence(const clv_chain *chain, int *delay, int *rate);
/* The stream ends: the chain's runs from now on give out the frames its
 * filters hold (a deinterlacer takes the last frame as its own next, as
 * ffmpeg's does), on every device of the chain. */
CLV_API void clv_chain_end(clv_chain *chain);
/* The stream starts again (0.6.1: a seek, another input): the next run is
 * as a stream's first. A deinterlacer forgets the frames it holds (the
 * first frame is its own previous again, its first delay * rate outputs
 * are none again, clv_chain_end is undone) and hqdn3d its previous frame,
 * on every device of the chain. Call it with no run of the chain in
 * flight that is still to be read. */
CLV_API void clv_chain_restart(clv_chain *chain);

/* Running a chain on device frames of your own: clvid/opencl.h. */

/* Changes one parameter of a running chain; takes effect on the next run.
 * Cheap: no rebuild. */
CLV_API int clv_chain_set_param(clv_chain *chain, int filter_index, const char *param,
                                const char *value, clv_msg *msg);
CLV_API const clv_chain_desc *clv_chain_get_desc(const clv_chain *chain);
/* Moves parameter param_index of filter filter_index one step of its
 * descriptor (clv_param.step) up (direction > 0) or down, clamped to its
 * range; ENUM parameters cycle through their choices. Writes "name=value"
 * into text (size bytes). CLV_EINVAL with msg for a parameter without a
 * step (a matrix). */
CLV_API int clv_chain_step_param(clv_chain *chain, int filter_index, int param_index, int direction,
                                 char *text, size_t size, clv_msg *msg);

/* The frame rate behind the `time` argument of user kernels (time = frame
 * index * den / num seconds); 25/1 until set. */
CLV_API void clv_chain_set_frame_rate(clv_chain *chain, int num, int den);

/* The size of the chain's output for frames of *in, as
 * clv_chain_desc_output_size says, checked against the device's limits
 * (CLV_ELIMIT when a link's frame would not fit in one buffer). */
CLV_API int clv_chain_output_size(clv_chain *chain, const clv_size *in, clv_size *out,
                                  clv_msg *msg);

/* ---- User kernels: the `opencl` filter ------------------------------------
 * "opencl=file=PATH[:kernel=NAME][:PARAM=VALUE...]" runs a kernel of the
 * user's from a .cl file (the contract is in cl/user.cl and the README);
 * its parameters come from "// @param TYPE NAME = DEFAULT [MIN, MAX] step S"
 * lines of the file. Parsing a chain reads the file; creating the chain
 * builds it (a compile error is CLV_EKERNEL with the compiler's messages,
 * lines numbered as in the file, in msg). Descriptors of user kernels live
 * as long as the process (one per distinct file, kernel and parameter list):
 * the only state the library keeps beside the objects it hands out. */

/* Reads and parses a kernel file without building it, for listing its
 * parameters (clvid filters --file): *out is a descriptor like the
 * registry's. kernel may be NULL when the file has one kernel. */
CLV_API int clv_kernel_file_load(const char *path, const char *kernel, const clv_filter **out,
                                 clv_msg *msg);
/* The file of filter_index in the chain when it is a user kernel, else
 * NULL; *kernel (may be NULL) gets the kernel name the chain gave, or NULL
 * for "the file's only kernel". */
CLV_API const char *clv_chain_kernel_file(const clv_chain *chain, int filter_index,
                                          const char **kernel);

/* Live reload: read and build the file again (any thread: it uses only the
 * file and ctx's OpenCL context, so the thread that runs the chain goes on),
 * then swap the result in on the chain's thread, from the next run on. A
 * build error leaves the chain as it was. Parameters keep their values
 * across a swap when the new file declares them with the same type and the
 * value was moved off its old default and lies in the new range; the rest
 * take the new defaults. One build serves chains of either depth: a file
 * that runs at 16 bits (clv_filter_deep of clv_kernel_file_load) is built
 * at both; swapping into a 16-bit chain a file that no longer does fails
 * with CLV_EDEPTH (with CLV_EKERNEL when only its 16-bit build fails), and
 * the chain is left as it was. */
typedef struct clv_kernel_build clv_kernel_build;
CLV_API int clv_kernel_build_file(clv_context *ctx, const char *path, const char *kernel,
                                  clv_kernel_build **out, clv_msg *msg);
CLV_API int clv_chain_swap_kernel(clv_chain *chain, int filter_index, clv_kernel_build *build,
                                  clv_msg *msg); /* takes build on success */
CLV_API void clv_kernel_build_free(clv_kernel_build *build);

/* With profiling on: waits for the last run and stores each filter's kernel
 * time in nanoseconds into ns[0 .. count-1]. */
CLV_API int clv_chain_profile(clv_chain *chain, uint64_t *ns, int count);

/* With profiling on: each filter's kernel time in nanoseconds summed over
 * the runs finished so far (ns[0 .. count-1]) and how many runs that is,
 * without waiting (a run still in flight is counted later, or left out
 * when clv_chain_profile took its events). CLV_EINVAL without profiling. */
CLV_API int clv_chain_times(const clv_chain *chain, uint64_t *ns, int count, uint64_t *runs);

/* Whether the chain times each filter (on by default; only with profiling).
 * The times cost one profiling event per kernel launch, and each costs the
 * submitting thread (a chain of many kernels, such as quantize's, more than
 * doubles clv_stage_submit's time on a GPU). Off: clv_chain_profile
 * and clv_chain_times answer CLV_EINVAL; a stage's own times
 * (clv_stage_get_times) stay. */
CLV_API void clv_chain_set_filter_timing(clv_chain *chain, int on);

/* ---- C reference ------------------------------------------------------- */

/* The chain on the host, by the definitions, for tests and exactness checks.
 * Keeps per-filter state between frames (quantize's palette) like a chain. */
typedef struct clv_ref_chain clv_ref_chain;

CLV_API int clv_ref_chain_create(const clv_chain_desc *desc, clv_ref_chain **out);
CLV_API void clv_ref_chain_destroy(clv_ref_chain *ref);
/* dst is of the chain's output size for src's (clv_chain_desc_output_size,
 * sar unknown) and src's depth, and may not overlap src; CLV_EINVAL when it
 * is not. At depth 16 every filter runs its 16-bit definition (CLV_EDEPTH
 * when one has none). */
CLV_API int clv_ref_chain_run(clv_ref_chain *ref, const clv_image *src, clv_image *dst,
                              uint64_t frame_index);
/* The frame rate behind `t` (rotate's angle); 25/1 until set. */
CLV_API void clv_ref_chain_set_frame_rate(clv_ref_chain *ref, int num, int den);
/* What the input's pixels mean (0.5): in's transfer, primaries, peak and
 * aspect, as clv_chain_output_size takes them (its width and height are
 * not read: the images' are). Untagged (all 0) until set. */
CLV_API void clv_ref_chain_set_input(clv_ref_chain *ref, const clv_size *in);
/* clv_chain_end for the reference (0.6). */
CLV_API void clv_ref_chain_end(clv_ref_chain *ref);

/* ---- Pixel formats and colour ----------------------------------------- */

/* Host layouts that cross the bus. Planes are tightly packed one after the
 * other: yuv420p is Y (w x h), U, V ((w+1)/2 x (h+1)/2 each); nv12 is Y then
 * interleaved UV; the packed RGB formats are rows of w * bytes_per_pixel. */
typedef enum clv_pixfmt {
    CLV_PIX_RGBA,
    CLV_PIX_BGRA,
    CLV_PIX_RGB0, /* 4 bytes, the last ignored (opaque) */
    CLV_PIX_BGR0,
    CLV_PIX_RGB24,
    CLV_PIX_BGR24,
    CLV_PIX_YUV420P,
    CLV_PIX_NV12,
    /* Added in 0.5, more than 8 bits (each sample a little-endian 16-bit
     * word); the stage runs the chain at 16 bits for them: */
    CLV_PIX_YUV420P10, /* ffmpeg's yuv420p10le: 10 bits in the low bits */
    CLV_PIX_P010,      /* Y then interleaved UV, the bits in the high bits (p010le; p016le) */
    CLV_PIX_YUV444P16, /* three full planes of 16 bits (yuv444p16le) */
    CLV_PIX_RGBA64,    /* rgba64le */
} clv_pixfmt;

typedef enum clv_matrix { CLV_MATRIX_BT601, CLV_MATRIX_BT709, CLV_MATRIX_BT2020 } clv_matrix;

typedef struct clv_color {
    clv_matrix matrix;
    int full_range; /* 0: limited (16-235, 16-240), 1: full (0-255) */
} clv_color;

CLV_API const char *clv_pixfmt_name(clv_pixfmt f);
CLV_API int clv_pixfmt_is_yuv(clv_pixfmt f);
/* The chain's depth for format f: 8, or 16 for the formats of more than 8
 * bits (0.5). */
CLV_API int clv_pixfmt_depth(clv_pixfmt f);
/* Bytes of one frame of w x h in format f. */
CLV_API size_t clv_pixfmt_size(clv_pixfmt f, int width, int height);

/* The C references of the conversions (the kernels in cl/color.cl equal
 * them bit for bit). in/out are tightly packed as described above; rgba is
 * a host image of the same size, of depth 16 for the formats of more than 8
 * bits (samples taken to 16 bits: yuv420p10 shifted up by 6; limited range
 * is 16-235 (240) times 256) and for an output from a 16-bit chain, which
 * an 8-bit format gets dithered: each value in 1/256 codes plus an 8x8
 * ordered (Bayer) threshold, the low byte dropped. CLV_EINVAL when the
 * depths don't fit. */
CLV_API int clv_ref_to_rgba(clv_pixfmt f, clv_color color, const uint8_t *in, clv_image *rgba);
/* clv_ref_to_rgba for an interlaced frame (0.6): with fields 1, a 4:2:0
 * format's row y takes its chroma from its own field's chroma rows (the
 * rows of y's parity), the two nearest blended 7:1, 5:3, 5:3, 7:1 as
 * y % 4 is 0 to 3 (near * (8 - w) + far * w + 4) >> 3, rather than the
 * frame's row y / 2, so that the fields stay apart until a deinterlacer;
 * the stage converts so when its chain starts with one (yadif, bwdif).
 * fields 0: clv_ref_to_rgba. */
CLV_API int clv_ref_to_rgba_fields(clv_pixfmt f, clv_color color, int fields, const uint8_t *in,
                                   clv_image *rgba);
CLV_API int clv_ref_from_rgba(clv_pixfmt f, clv_color color, const clv_image *rgba, uint8_t *out);

/* ---- The pipelined GPU stage ------------------------------------------ */

/* Frames in host memory go in, filtered frames come out, several in flight:
 * upload (its own queue), conversion + chain + conversion (compute queue),
 * download (its own queue), chained by events. Staging buffers are pinned
 * and stay mapped; on a device that shares the host's memory (a CPU, see
 * clv_context_options.staging) they are fine-grained SVM that the kernels
 * read and write in place, with no upload or download. One thread drives a
 * stage. */
typedef struct clv_stage clv_stage;

/* Fill one with clv_stage_options_init first (struct_size, as for the
 * context's options), then set the size and formats. */
typedef struct clv_stage_options {
    size_t struct_size; /* sizeof(clv_stage_options) as the caller knows it */
    int width, height;
    clv_pixfmt in_format, out_format;
    clv_color in_color, out_color; /* for YUV formats */
    int slots;                     /* frames in flight, at least 2 (default 3) */
    int profiling;                 /* per-step times (clv_stage_times) */
    /* Turning the picture upright before the chain (a phone video's
     * display matrix, a photo's EXIF orientation): mirrored left-right
     * first when hflip, then rotated clockwise by `rotation` degrees (0, 90,
     * 180 or 270). At 90 and 270 the output is height x width. */
    int rotation, hflip;
    /* Added in 0.5. The chain's depth: 0, 16 when either format has more
     * than 8 bits (clv_pixfmt_depth), else 8; or 8 or 16. A 16-bit chain
     * into an 8-bit output is dithered: an 8x8 ordered (Bayer) pattern
     * added below the kept bits, the same on every frame; dither 1 turns
     * it off (rounded to the nearest code). */
    int depth;
    int no_dither;
} clv_stage_options;

typedef struct clv_stage_times {
    uint64_t frames;
    uint64_t upload_ns, kernels_ns, download_ns; /* device time, summed */
    uint64_t to_rgba_ns, from_rgba_ns; /* the conversion kernels alone (within kernels_ns) */
} clv_stage_times;

/* The defaults (every field zero: 3 slots, RGBA in and out, no rotation)
 * and struct_size. */
CLV_API void clv_stage_options_init(clv_stage_options *options);

/* The stage runs chain (owned by the caller, built on the same context;
 * NULL for none). CLV_EINVAL for options not made by clv_stage_options_init
 * or from a newer clvid. */
CLV_API int clv_stage_create(clv_context *ctx, const clv_stage_options *options, clv_chain *chain,
                             clv_stage **out, clv_msg *msg);
CLV_API void clv_stage_destroy(clv_stage *stage);
/* Runs chain (same context, not owned; NULL for none) from the next submit
 * on; frames already in flight finish with the chain they were sent with,
 * which must outlive them. No rebuild, no wait. A chain that makes
 * another output size (scale, crop...) takes over once the frames in
 * flight are released: until then clv_stage_input gives NULL, as when the
 * slots are full (take the outputs first). */
CLV_API void clv_stage_set_chain(clv_stage *stage, clv_chain *chain);
/* The same, checking first that the chain can take this stage's frames
 * (clv_chain_output_size): on an error the stage keeps its chain. */
CLV_API int clv_stage_use_chain(clv_stage *stage, clv_chain *chain, clv_msg *msg);

/* The staging memory for the next frame (clv_pixfmt_size bytes), or NULL
 * when it must wait: every slot is in flight, or (several devices) the
 * device due to take it is busy. Take an output first; while frames are in
 * flight that always makes room. The same memory is returned until the
 * next submit. */
CLV_API uint8_t *clv_stage_input(clv_stage *stage);
/* Sends the frame written into clv_stage_input's memory; returns at once. */
CLV_API int clv_stage_submit(clv_stage *stage, uint64_t frame_index, clv_msg *msg);
/* Frames submitted and not yet taken. */
CLV_API int clv_stage_pending(const clv_stage *stage);
/* Waits for the oldest frame in flight and points *out at its filtered
 * pixels (valid until clv_stage_release). CLV_EINVAL when none is pending. */
CLV_API int clv_stage_output(clv_stage *stage, const uint8_t **out, uint64_t *frame_index,
                             clv_msg *msg);
CLV_API void clv_stage_release(clv_stage *stage);
/* ---- Frames in the stage's memory ----------------------------------------
 * Frames can enter and leave the stage without a host copy: a decoder
 * writes straight into a block of the stage's memory (clv_stage_block_new,
 * clv_stage_submit_block), and an encoder reads an output where the stage
 * put it (clv_stage_keep). Where the device works in the host's memory
 * (clv_context_shared_staging: a CPU through PoCL) a block is memory the
 * kernels read and write in place; otherwise (copied staging: a GPU) it is
 * pinned host memory the device uploads from and downloads into by DMA
 * (copied staging gives blocks since the release after 0.8.0). Over
 * several devices the blocks are the first device's, which every device
 * uploads from. A block is freed with clv_block_free, from any thread,
 * before or after clv_stage_destroy (the memory goes with the last
 * block). */
typedef struct clv_block clv_block;
/* size bytes of the stage's memory for an input frame (shared or pinned);
 * from any thread while the stage exists. NULL when out of memory. */
CLV_API clv_block *clv_stage_block_new(clv_stage *stage, size_t size);
CLV_API uint8_t *clv_block_pixels(const clv_block *block);
/* Sends a frame of the stage's in_format whose planes lie in block (any
 * stage's) at offset[i] bytes, rows stride[i] bytes apart (Y, then U and V,
 * or nv12's UV: two planes; a packed RGB format's one plane, since 0.8).
 * Copied staging uploads it from the block (any block; pinned when it is a
 * stage's): one upload when the planes lie as clv_stage_input's, else one
 * a plane, no host copy either way. Shared staging reads it in place when
 * block is this stage's (over several devices: the device's own) and the
 * stage converts (packed RGB: when its rows are tight, stride[0] = bytes a
 * pixel times width); otherwise it is copied into the staging first. The
 * block must stay as it is until this frame comes out of clv_stage_output.
 * CLV_EINVAL, msg saying which plane, when a plane does not fit in the
 * block; as clv_stage_submit otherwise. */
CLV_API int clv_stage_submit_block(clv_stage *stage, uint64_t frame_index, const clv_block *block,
                                   const size_t offset[3], const int stride[3], clv_msg *msg);
/* Keeps the frame clv_stage_output gave last (call it before
 * clv_stage_release): its pixels stay where *out pointed, now the caller's
 * block, and the stage goes on with other memory. No copy, for a reader
 * that needs the frame after the stage has moved on (a transcode's encoder
 * thread): shared staging's memory the kernels wrote, or copied staging's
 * pinned memory the download landed in. NULL when no frame is held or out
 * of memory (copy the pixels then). The block has 64 bytes to spare after
 * the frame. */
CLV_API clv_block *clv_stage_keep(clv_stage *stage);
CLV_API void clv_block_free(clv_block *block);
CLV_API void clv_stage_get_times(const clv_stage *stage, clv_stage_times *times);
/* How many of the frames given out so far had their one filter run inside
 * the conversions (CPU devices, a filter that can: equalize, convolution,
 * sharpen, emboss, prewitt, median, erode and dilate of one pass); their
 * to_rgba_ns and from_rgba_ns hold the filter's passes too (a filter that
 * is one kernel with both conversions counts it in to_rgba_ns). */
CLV_API uint64_t clv_stage_fused_frames(const clv_stage *stage);
/* The size of the frames that come out: while a frame from clv_stage_output
 * is held, that frame's; else the next one's (the input's, turned by a
 * rotation of 90 or 270, then through the chain). */
CLV_API void clv_stage_output_size(const clv_stage *stage, int *width, int *height);

/* ---- A stage over several devices --------------------------------------
 * clv_stage_create on a context of several devices makes one stage per
 * device behind the same calls. Each frame goes to the device expected to
 * finish it first (from each device's measured time per frame and the
 * frames it has queued), so a much slower device (a CPU beside a GPU) gets
 * frames only when it would not hold the others back; outputs come back in
 * submit order, and are the same bytes as with one device. A chain that
 * carries state from frame to frame (quantize's palette, a user kernel's
 * prev) runs on the first device only, as its output depends on every
 * frame before. When a device fails (an OpenCL error, lost device, out of
 * memory) its frames in flight are sent again to another device and the
 * run goes on without it; the log says which device failed and why. Only
 * when no device is left does clv_stage_output fail. */
typedef struct clv_stage_device {
    const char *name; /* the device's name (lives as long as the context) */
    uint64_t frames;  /* frames it gave back */
    double busy_ms;   /* wall time it spent on them (from sent or the previous one done) */
    int failed;       /* 1 once it failed; its frames went to the others */
} clv_stage_device;

/* How many devices the stage deals to (1 for a stage on one device). */
CLV_API int clv_stage_device_count(const clv_stage *stage);
CLV_API void clv_stage_device_stats(const clv_stage *stage, int device, clv_stage_device *out);

#ifdef __cplusplus
}
#endif
#endif
