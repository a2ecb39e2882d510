/* fps.c - fps, as ffmpeg's (libavfilter/vf_fps.c): the frame rate the
 * frames leave at. It changes no pixel in the chain (clv_filter's passes);
 * clvid transcode picks the frames at the output (each tick of 1/rate gets
 * the last frame at or before it, clv_chain_desc_fps), so the filters after
 * it must not depend on the frame's number or time (the parser refuses
 * them), and a chain run frame by frame refuses it. */
#include "filters.h"

#include <math.h>

static int check(const clv_value *values, clv_msg *msg)
{
    const char *start = clv_value_text(&values[1]);
    if (*start && !isfinite(clv__expr_value(start, NULL, NULL)))
        return clv__fail(msg, CLV_EPARSE,
                         "filter 'fps' parameter 'start_time': '%s' is not a number of seconds "
                         "(the time of the first frame out: 0, 1.5, -2, 1/3)",
                         start);
    return 0;
}

static const clv_param params[] = {
    {"fps", CLV_PARAM_EXPR, "25", 0, 0, "source_fps|ntsc|pal|film|ntsc_film",
     "frames a second out: a number, a ratio (30000/1001) or an expression of source_fps "
     "(the rate in) and ntsc, pal, film, ntsc_film",
     0},
    {"start_time", CLV_PARAM_TEXT, "", 0, 0, NULL,
     "the time of the first frame out, seconds, a number or an expression of numbers (frames "
     "before it dropped, the first repeated back to it); empty: the first frame's",
     0},
    {"round", CLV_PARAM_ENUM, "near", 0, 0, "zero|inf|down|up|near",
     "how a frame's time is rounded to a tick", 1},
    {"eof_action", CLV_PARAM_ENUM, "round", 0, 1, "round|pass",
     "the end: rounded as the frames (round) or the last frame kept whole (pass)", 1},
};

const clv_filter clv__filter_fps = {
    .name = "fps",
    .help = "the frame rate out (ffmpeg's fps): frames repeated or dropped to it at the "
            "output; no filter after it may depend on the frame's number or time",
    .params = params,
    .param_count = 4,
    .check = check,
    .deep = 1,
    .passes = 1,
    .sets_rate = 1,
    .reference = clv__pass_reference,
};
