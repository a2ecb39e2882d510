/* filters.h - the filter descriptors of the registry and the pieces that
 * filters of one family share. */
#ifndef CLVID_FILTERS_H
#define CLVID_FILTERS_H

#include "../core/clvid_internal.h"

extern const clv_filter clv__filter_convolution;
extern const clv_filter clv__filter_sharpen;
extern const clv_filter clv__filter_emboss;
extern const clv_filter clv__filter_prewitt;
extern const clv_filter clv__filter_median;
extern const clv_filter clv__filter_erode;
extern const clv_filter clv__filter_dilate;
extern const clv_filter clv__filter_threshold;
extern const clv_filter clv__filter_gray;
extern const clv_filter clv__filter_equalize;
extern const clv_filter clv__filter_noise;
extern const clv_filter clv__filter_quantize;
extern const clv_filter clv__filter_hflip;
extern const clv_filter clv__filter_vflip;
extern const clv_filter clv__filter_scale;
extern const clv_filter clv__filter_rotate;
extern const clv_filter clv__filter_crop;
extern const clv_filter clv__filter_pad;
extern const clv_filter clv__filter_transpose;
extern const clv_filter clv__filter_tonemap;
extern const clv_filter clv__filter_eq;
extern const clv_filter clv__filter_colorkey;
extern const clv_filter clv__filter_chromakey;
extern const clv_filter clv__filter_despill;
extern const clv_filter clv__filter_lumakey;
extern const clv_filter clv__filter_hue;
extern const clv_filter clv__filter_colorbalance;
extern const clv_filter clv__filter_vignette;
extern const clv_filter clv__filter_sobel;
extern const clv_filter clv__filter_roberts;
extern const clv_filter clv__filter_scharr;
extern const clv_filter clv__filter_kirsch;
extern const clv_filter clv__filter_edgedetect;
extern const clv_filter clv__filter_curves;
extern const clv_filter clv__filter_lut3d;
extern const clv_filter clv__filter_deband;

extern const clv_filter clv__filter_gblur;
extern const clv_filter clv__filter_boxblur;
extern const clv_filter clv__filter_avgblur;
extern const clv_filter clv__filter_unsharp;
extern const clv_filter clv__filter_hqdn3d;
extern const clv_filter clv__filter_yadif;
extern const clv_filter clv__filter_bwdif;
extern const clv_filter clv__filter_bilateral;
extern const clv_filter clv__filter_nlmeans;
extern const clv_filter clv__filter_negate;
extern const clv_filter clv__filter_fade;
extern const clv_filter clv__filter_lut;
extern const clv_filter clv__filter_lutrgb;
extern const clv_filter clv__filter_drawbox;
extern const clv_filter clv__filter_drawgrid;
extern const clv_filter clv__filter_colorchannelmixer;
extern const clv_filter clv__filter_colorlevels;
extern const clv_filter clv__filter_null;
extern const clv_filter clv__filter_copy;
extern const clv_filter clv__filter_pix_format; /* "format" */
extern const clv_filter clv__filter_fps;
extern const clv_filter clv__filter_framestep;
extern const clv_filter clv__filter_setsar;
extern const clv_filter clv__filter_setdar;
extern const clv_filter clv__filter_opencl; /* a family: one member per kernel file */

/* Graphs' filters (clv__graph_filters). */
extern const clv_filter clv__filter_split;
extern const clv_filter clv__filter_hstack;
extern const clv_filter clv__filter_vstack;
extern const clv_filter clv__filter_overlay;
extern const clv_filter clv__filter_blend;
extern const clv_filter clv__filter_alphamerge;
extern const clv_filter clv__filter_xstack;
extern const clv_filter clv__filter_xfade;

/* framesync's eof rules of ffmpeg's filters of two inputs: repeatlast=0 or
 * eof_action=pass (2) is pass; then shortest=1 or eof_action=endall (1)
 * is endall; else repeat (0). */
clv_eof_action clv__framesync_eof(int eof_action, int shortest, int repeatlast);
/* A filter of two inputs of one size (blend, alphamerge, xfade): *out is
 * in[0]'s; CLV_ERANGE when in[1] differs, msg naming the filter and both
 * inputs by their roles ("the bottom input is 3x2, the top 4x2"). */
int clv__same_size2(const char *filter, const char *role1, const char *role0, const clv_size *in,
                    int n, clv_size *out, clv_msg *msg);

/* Convolution family (convolution.c): a square integer matrix, its divisor
 * (0: the coefficient sum, or 1 when that is not positive) and a bias. */
typedef struct clv__conv {
    cl_kernel kernel;  /* convolve_rows (row shape) or convolve */
    cl_kernel fused;   /* row shape: convolve_yuv (clv__conv_run_yuv) */
    cl_program source; /* the program kernel came from (the context owns it) */
    clv__rows rows;    /* the fused kernel's strips */
    cl_mem coef;
    int n, div, bias;
    float inv; /* 1.0f / (2 * div) */
} clv__conv;

/* The program is chosen by clv__conv_set (the filters' program is NULL). */
int clv__conv_init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg);
void clv__conv_uninit(void *state);
/* Uploads the matrix (count 9, 25 or 49) and picks the kernel: on GPUs a 3x3
 * gets a program built for its coefficients, divisor and bias; blocks until
 * the queue is idle. */
int clv__conv_set(clv__conv *conv, clv_context *ctx, const int *matrix, int count, int div,
                  int bias, clv_msg *msg);
int clv__conv_run(void *state, const clv_launch *l);
/* CPUs: the matrix inside the stage's conversions (clv_filter's run_yuv). */
int clv__conv_run_yuv(void *state, const clv_launch *l, const clv__yuv_io *io);
void clv__conv_reference(const int *matrix, int count, int div, int bias, const clv_image *src,
                         clv_image *dst);

/* Defines the descriptor clv__filter_<name> of a filter that is one fixed
 * 3x3 matrix through the convolution family (sharpen, emboss). */
#define CLV__FIXED_CONVOLUTION(fname, help_text, ...)                                              \
    static const int fixed_matrix[9] = {__VA_ARGS__};                                              \
    static int fixed_configure(void *state, clv_context *ctx, const clv_value *v, clv_msg *msg)    \
    {                                                                                              \
        (void)v;                                                                                   \
        return clv__conv_set(state, ctx, fixed_matrix, 9, 0, 0, msg);                              \
    }                                                                                              \
    static int fixed_reference(void *ref_state, const clv_value *v, const clv_image *src,          \
                               clv_image *dst, uint64_t frame_index)                               \
    {                                                                                              \
        (void)ref_state;                                                                           \
        (void)v;                                                                                   \
        (void)frame_index;                                                                         \
        clv__conv_reference(fixed_matrix, 9, 0, 0, src, dst);                                      \
        return 0;                                                                                  \
    }                                                                                              \
    const clv_filter clv__filter_##fname = {                                                       \
        .name = #fname,                                                                            \
        .help = help_text,                                                                         \
        .program = NULL,                                                                           \
        .state_size = sizeof(clv__conv),                                                           \
        .deep = 1,                                                                                 \
        .init = clv__conv_init,                                                                    \
        .configure = fixed_configure,                                                              \
        .uninit = clv__conv_uninit,                                                                \
        .run = clv__conv_run,                                                                      \
        .run_yuv = clv__conv_run_yuv,                                                              \
        .reference = fixed_reference,                                                              \
    }
/* Filters on BT.601 luma (gray.c, threshold.c; cl/point.cl): R=G=B=a level
 * of gray(p), alpha kept. */
/* Runs the one kernel of the filter's descriptor (its state) on the
 * launch's frames with args[0 .. count-1] after the frame's arguments. */
int clv__luma_run(void *state, const clv_launch *l, const cl_int *args, int count);
/* The reference, at either depth: R=G=B=gray(p) when level < 0 (gray),
 * else gray(p) > level ? the depth's maximum : 0 (threshold; level on the
 * image's scale); alpha kept. */
void clv__luma_reference(int level, const clv_image *src, clv_image *dst);

/* gray(p) of pixel (x, y) at either depth: the fixed-point BT.601 luma,
 * which fits an int at 16 bits too (the weights sum to 2^15). */
static inline int clv__luma_at(const clv_image *img, int x, int y)
{
    return (9798 * clv__get(img, x, y, 0) + 19235 * clv__get(img, x, y, 1) +
            3735 * clv__get(img, x, y, 2) + 16384) >>
           15;
}

/* ffmpeg's gray8 of RGB, swscale's (cl/common.cl's clv_gray_sws). */
static inline int clv__gray_sws(int r, int g, int b)
{
    const int t = (8414 * r + 16519 * g + 3208 * b + 524544) >> 9;
    return (t * 38154 - 38008785) >> 21;
}

/* Reads the file a filter's parameter names (filter_file.c), of at most max
 * bytes, into *text (malloc'd, NUL-terminated after its *len bytes). A
 * missing file is CLV_ENOTFOUND, one unreadable CLV_EIO, a larger one
 * CLV_EPARSE; msg starts with who ("filter 'lut3d'") and names the file. */
int clv__filter_file_read(const char *who, const char *path, size_t max, char **text, size_t *len,
                          clv_msg *msg);
/* The blur family (blur.c; cl/blur.cl): gblur and unsharp are "sep"
 * passes, one weighted sum down the columns and one along the rows;
 * boxblur and avgblur are "box" passes, window sums kept by running sums.
 * A pass reads one frame and writes another; channel c is blurred where
 * bit c of its mask is set and copied from the pass's input elsewhere. */

/* One sep pass (cl/blur.cl's definition): per channel T = (sum over |j| <=
 * rv of wv[|j|] * p[clamp(y + j)] + vround) >> vshift, blur = (sum over
 * |i| <= rh of wh[|i|] * T[clamp(x + i)] + fround) >> fshift, output v +
 * floor((v - blur) * amount / 65536) clamped (amount -65536: blur). Sums in
 * 64 bits at 16 bits, in 32 at 8 (the caller keeps them there). */
typedef struct clv__sep {
    int rv, rh;   /* reach down and across */
    int *wv, *wh; /* the weights at distance 0 .. rv and 0 .. rh (malloc'd) */
    int vround, vshift, fround, fshift, amount, mask;
    /* gblur's: the weights at most 2^14, vround 128, vshift 8, fround 2^19,
     * fshift 20, amount -65536: CPUs take faster roads to the same sums
     * (cl/blur.cl: at 8 bits two column sums fit 15 bits, at 16 bits the
     * sums fit 32 bits once the row's are split in two). */
    int narrow;
    cl_mem mv, mh; /* their device copies (clv__sep_upload) */
} clv__sep;

/* A filter of the family's device state: its kernels and its buffers. */
typedef struct clv__blur {
    cl_kernel rows;          /* CPUs: sep_rows or box_rows */
    cl_kernel first, second; /* GPUs: sep_v and sep_h, or box_h and box_v */
    cl_kernel tile;          /* GPUs: sep_tile or box_tile (one kernel, where it fits) */
    cl_kernel small;         /* GPUs, 8 bits: box_small (tiles that fit local memory) */
    cl_kernel strip;         /* GPUs, 8 bits: box_strip (column sums within 16 bits) */
    cl_kernel cols[2];       /* GPUs: box_cols (8 bits), box_cols32 (long reaches) */
    cl_kernel across[3];     /* box_across (8 bits), box_across32, box_across_row */
    cl_mem work;             /* CPUs: the bands' rows; GPUs: the frame of sums */
    size_t work_bytes;
    int box;
} clv__blur;

/* Creates the kernels of sep passes (box 0) or box passes (box 1). */
int clv__blur_init(clv__blur *b, clv_context *ctx, cl_program prog, int box, clv_msg *msg);
void clv__blur_uninit(clv__blur *b);
/* Allocates wv and wh for reaches rv and rh (zeroed); CLV_ENOMEM. */
int clv__sep_alloc(clv__sep *s, int rv, int rh);
/* Copies the weights to the device (after clv__sep_alloc and filling). */
int clv__sep_upload(clv__sep *s, clv_context *ctx, clv_msg *msg);
void clv__sep_release(clv__sep *s);
/* One pass on the device from in to out (frames of l's size and depth). */
int clv__sep_run(clv__blur *b, const clv_launch *l, const clv__sep *s, cl_mem in, cl_mem out);
int clv__box_run(clv__blur *b, const clv_launch *l, int rx, int ry, int mask, cl_mem in,
                 cl_mem out);
/* The passes' references, at either depth; CLV_ENOMEM. */
int clv__sep_reference(const clv__sep *s, const clv_image *src, clv_image *dst);
int clv__box_reference(int rx, int ry, int mask, const clv_image *src, clv_image *dst);
/* The output of pass k of count (0 first) in a run through scratch: the
 * last lands in dst, the ones before alternate between scratch and dst. */
static inline cl_mem clv__pass_target(const clv_launch *l, int k, int count)
{
    return (count - 1 - k) % 2 == 0 ? l->dst : l->scratch;
}

/* The `opencl` family (opencl.c, opencl_file.c). */
/* The descriptor of one (file, kernel, parameter list): a member of the
 * registry's `opencl` family (clv_filter's resolve). */
typedef struct clv__user_kernel {
    clv_filter filter; /* first: a member's descriptor is its clv__user_kernel */
    char path[4096];
    char kernel[128];
    int kernel_given; /* the chain named the kernel (else: the file's only one) */
    char help[256];
    clv_param params[CLV_PARAMS_MAX];
    char names[CLV_PARAMS_MAX][64], defs[CLV_PARAMS_MAX][32], helps[CLV_PARAMS_MAX][160];
    struct clv__user_kernel *next;
} clv__user_kernel;
/* Reads path into its member's descriptor (kernel: the kernel the chain
 * named, or NULL for the file's only one): member's fields (the hooks every
 * member shares) and the file's parameters, help and kernel, interned for
 * the life of the process (*out). *text (when not NULL) gets the source,
 * malloc'd. */
int clv__user_kernel_load(const char *path, const char *kernel, const clv_filter *member,
                          const clv__user_kernel **out, char **text, clv_msg *msg);
/* The reference of a filter that passes frames on (null.c): dst gets
 * src's pixels. */
int clv__pass_reference(void *ref_state, const clv_value *values, const clv_image *src,
                        clv_image *dst, uint64_t frame_index);

/* The largest and the smallest of three (deint.c, colorchannelmixer.c). */
static inline int clv__max3(int a, int b, int c)
{
    int m = a > b ? a : b;
    return m > c ? m : c;
}

static inline int clv__min3(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

/* n / d rounded half to even, as lrint rounds (d > 0): colorchannelmixer's
 * gains and colorlevels' points, both in thousandths. */
int64_t clv__div_even(int64_t n, int64_t d);

/* ffmpeg's preserve_color measures lin of in[] and lout of o[] (pc 1 lum,
 * 2 max, 3 avg, 4 sum, 5 nrm, 6 pwr) as the ratio *p / *q, in integers
 * (colorchannelmixer.c); returns 1 where lout <= 0. colorchannelmixer and
 * colorlevels share it, as their kernels share cl/channels.cl's ccm_ratio. */
int clv__preserve_ratio(int pc, int maxv, const int in[3], const int o[3], int64_t *p, int64_t *q);

#endif
