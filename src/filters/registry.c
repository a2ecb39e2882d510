/* registry.c - the filters clvid knows, in the order `clvid filters` lists
 * them; last the `opencl` family (a user's kernel file), which the API's
 * list leaves out. A new filter is one line here. */
#include "filters.h"

const clv_filter *const clv__filters[] = {
    &clv__filter_convolution,
    &clv__filter_sharpen,
    &clv__filter_emboss,
    &clv__filter_prewitt,
    &clv__filter_median,
    &clv__filter_erode,
    &clv__filter_dilate,
    &clv__filter_threshold,
    &clv__filter_gray,
    &clv__filter_equalize,
    &clv__filter_noise,
    &clv__filter_quantize,
    &clv__filter_hflip,
    &clv__filter_vflip,
    &clv__filter_scale,
    &clv__filter_crop,
    &clv__filter_pad,
    &clv__filter_transpose,
    &clv__filter_rotate,
    &clv__filter_tonemap,
    &clv__filter_eq,
    &clv__filter_hue,
    &clv__filter_colorbalance,
    &clv__filter_vignette,
    &clv__filter_sobel,
    &clv__filter_roberts,
    &clv__filter_scharr,
    &clv__filter_kirsch,
    &clv__filter_edgedetect,
    &clv__filter_curves,
    &clv__filter_lut3d,
    &clv__filter_deband,
    &clv__filter_gblur,
    &clv__filter_boxblur,
    &clv__filter_avgblur,
    &clv__filter_unsharp,
    &clv__filter_hqdn3d,
    &clv__filter_bilateral,
    &clv__filter_nlmeans,
    &clv__filter_yadif,
    &clv__filter_bwdif,
    &clv__filter_colorkey,
    &clv__filter_chromakey,
    &clv__filter_despill,
    &clv__filter_lumakey,
    &clv__filter_negate,
    &clv__filter_colorchannelmixer,
    &clv__filter_colorlevels,
    &clv__filter_fade,
    &clv__filter_lut,
    &clv__filter_lutrgb,
    &clv__filter_drawbox,
    &clv__filter_drawgrid,
    &clv__filter_null,
    &clv__filter_copy,
    &clv__filter_pix_format,
    &clv__filter_fps,
    &clv__filter_framestep,
    &clv__filter_setsar,
    &clv__filter_setdar,
    &clv__filter_opencl,
};

const int clv__filter_count = (int)(sizeof clv__filters / sizeof clv__filters[0]);

/* The filters of several inputs or outputs, which only graphs take
 * (-filter_complex), in the order `clvid filters` lists them. */
const clv_filter *const clv__graph_filters[] = {
    &clv__filter_split, &clv__filter_hstack,     &clv__filter_vstack, &clv__filter_overlay,
    &clv__filter_blend, &clv__filter_alphamerge, &clv__filter_xstack, &clv__filter_xfade,
};

const int clv__graph_filter_count = (int)(sizeof clv__graph_filters / sizeof clv__graph_filters[0]);
