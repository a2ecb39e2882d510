/* framestep.c - framestep, as ffmpeg's (libavfilter/vf_framestep.c): every
 * step-th frame, from the first, at its own time; the rate in over step.
 * As fps (fps.c), it changes no pixel in the chain: clvid transcode keeps
 * the frames at the output, so the filters after it must not depend on
 * the frame's number or time, and a chain run frame by frame refuses it. */
#include "filters.h"

static const clv_param params[] = {
    {"step", CLV_PARAM_INT, "1", 1, 2147483647, NULL,
     "keep one frame in step: the first, then every step-th", 1},
};

const clv_filter clv__filter_framestep = {
    .name = "framestep",
    .help = "every step-th frame (ffmpeg's framestep), kept at the output; no filter after it "
            "may depend on the frame's number or time",
    .params = params,
    .param_count = 1,
    .deep = 1,
    .passes = 1,
    .sets_rate = 2,
    .reference = clv__pass_reference,
};
