/* format.c - format, as ffmpeg's: the pixel formats the frames leave in
 * ("yuv420p", "yuv420p|yuv444p"). clvid's filters all work on RGBA, so
 * format changes no pixel in the chain (clv_filter's passes); it ends the
 * chain (only null, copy, setsar, setdar or another format may follow),
 * and an encoded output takes its first format the encoder takes, as
 * -pix_fmt (clv_chain_desc_pix_fmts). The names are checked as words
 * here and against FFmpeg's formats where the output is opened. */
#include "filters.h"

#include <ctype.h>
#include <string.h>

static int check(const clv_value *values, clv_msg *msg)
{
    const char *text = clv_value_text(&values[0]);
    const char *bad = NULL;
    if (!text[0])
        bad = "no pixel format";
    for (const char *p = text; *p && !bad; p++)
        if (*p == '|' ? p == text || !p[1] || p[1] == '|'
                      : !(isalnum((unsigned char)*p) || *p == '_'))
            bad = "not a list of pixel format names joined by '|'";
    if (bad)
        return clv__fail(msg, CLV_EPARSE, "pix_fmts '%s': %s (\"yuv420p\", \"yuv420p|nv12\")", text,
                         bad);
    return 0;
}

static const clv_param params[] = {
    {"pix_fmts", CLV_PARAM_TEXT, "", 0, 0, NULL,
     "pixel formats joined by '|': an encoded output takes the first its encoder takes (as "
     "-pix_fmt); the chain's filters work on RGBA",
     0},
};

const clv_filter clv__filter_pix_format = {
    .name = "format",
    .help = "the pixel format the frames leave in (ffmpeg's format): last in the chain; "
            "no pixel changes",
    .params = params,
    .param_count = 1,
    .check = check,
    .deep = 1,
    .passes = 1,
    .sets_format = 1,
    .reference = clv__pass_reference,
};
