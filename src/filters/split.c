/* split.c - ffmpeg's split: the input given on each of `outputs` outputs,
 * for a stream used twice in a graph. The graph gives the same frame to
 * every output (no copy): a filter never writes its input. */
#include "filters.h"

static const clv_param params[] = {
    {"outputs", CLV_PARAM_INT, "2", 1, CLV_GRAPH_PADS, NULL, "number of outputs", 0},
};

const clv_filter clv__filter_split = {
    .name = "split",
    .help = "the input on each of several outputs (ffmpeg's split)",
    .params = params,
    .param_count = 1,
    .deep = 1,
    .outputs_param = "outputs",
};
