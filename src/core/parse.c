/* parse.c - the chain parser (ffmpeg's filter-graph words) and the chain
 * written back as text. */
#include "clvid_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    int d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            int best = sub < del ? sub : del;
            best = best < ins ? best : ins;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1; /* transposition */
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

/* Writes " (did you mean 'x'?)" for the closest of names within reach. */
static void suggest(const char *word, const char *const *names, int count, char *out, size_t size)
{
    int best = 99, at = -1;
    for (int i = 0; i < count; i++) {
        int d = edit_distance(word, names[i]);
        if (d < best) {
            best = d;
            at = i;
        }
    }
    int reach = strlen(word) <= 4 ? 1 : 2;
    if (at >= 0 && best <= reach)
        snprintf(out, size, "; did you mean '%s'?", names[at]);
    else
        out[0] = 0;
}

/* The names of the chains' filters, and the graphs' after them in a graph. */
static void filter_names(int graph, char *out, size_t size)
{
    out[0] = 0;
    for (int i = 0; i < clv__filter_count; i++) {
        const clv_filter *f = clv__filters[i];
        strncat(out, i ? ", " : "", size - strlen(out) - 1);
        strncat(out, f->usage ? f->usage : f->name, size - strlen(out) - 1);
    }
    for (int i = 0; graph && i < clv__graph_filter_count; i++) {
        strncat(out, ", ", size - strlen(out) - 1);
        strncat(out, clv__graph_filters[i]->name, size - strlen(out) - 1);
    }
}

/* 1 when f is one of the graphs' filters. */
static int graph_filter(const clv_filter *f)
{
    for (int i = 0; i < clv__graph_filter_count; i++)
        if (clv__graph_filters[i] == f)
            return 1;
    return 0;
}

/* The variables of ffmpeg's timeline expressions (libavfilter's
 * var_names_timeline): the frame's time in seconds, its number from 0, its
 * byte position (NAN: not known here), the input's width and height. */
const char *const clv__enable_names[] = {"t", "n", "pos", "w", "h", NULL};

/* enable=TEXT on f (ffmpeg's timeline option) into enable[CLV__ENABLE_MAX]:
 * taken where the filter keeps its input's size and one frame out a frame
 * in (ffmpeg's filters of those kinds take it: gblur, eq, hqdn3d), and
 * where the filter says it does (clv_filter's timeline: overlay, blend,
 * alphamerge, rotate), the expression checked here. */
static int take_enable(const clv_filter *f, const char *text, char *enable, clv_msg *msg)
{
    const char *why = NULL;
    if (graph_filter(f) && !f->timeline)
        why = "it makes its frames of several inputs, or several outputs of one";
    else if (f->passes)
        why = "it changes no pixel";
    else if (!graph_filter(f) && f->output_size && !f->timeline)
        why = "it may change the frame's size";
    else if (f->cadence)
        why = "it changes the frame rate";
    if (why)
        return clv__fail(msg, CLV_EPARSE, "filter '%s' takes no enable= (ffmpeg's timeline): %s",
                         f->name, why);
    size_t len = strlen(text);
    if (!len || len >= CLV__ENABLE_MAX || strchr(text, '\''))
        return clv__fail(msg, CLV_EPARSE,
                         "filter '%s' parameter 'enable': %s (an expression of t, n, pos, w and "
                         "h, 1 to %d characters, no quotes inside)",
                         f->name, len ? "too long or quoted" : "empty", CLV__ENABLE_MAX - 1);
    clv__expr *e = NULL;
    int err = clv__enable_parse(f, text, &e, msg);
    clv__expr_free(e);
    if (!err)
        memcpy(enable, text, len + 1);
    return err;
}

int clv__enable_parse(const clv_filter *f, const char *text, clv__expr **out, clv_msg *msg)
{
    *out = NULL;
    if (!text || !text[0])
        return 0;
    clv_msg bad = {{0}};
    if (clv__expr_parse(text, clv__enable_names, out, &bad))
        return clv__fail(msg, CLV_EPARSE,
                         "filter '%s' parameter 'enable': %s (its variables: t, n, pos, w, h)",
                         f->name, bad.text);
    return 0;
}

int clv__enabled(const clv__expr *e, double t, uint64_t n, int w, int h)
{
    if (!e)
        return 1;
    const double values[5] = {t, (double)n, NAN, (double)w, (double)h};
    return fabs(clv__expr_eval(e, values)) >= 0.5; /* libavfilter's test */
}

/* The registry's entry of that name, families and graphs' filters included. */
static const clv_filter *lookup(const char *name)
{
    for (int i = 0; i < clv__filter_count; i++)
        if (!strcmp(clv__filters[i]->name, name))
            return clv__filters[i];
    for (int i = 0; i < clv__graph_filter_count; i++)
        if (!strcmp(clv__graph_filters[i]->name, name))
            return clv__graph_filters[i];
    return NULL;
}

/* 1 when word is one of the '|'-separated words of list. */
static int listed(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *c = list; n && *c; c += strcspn(c, "|"), c += *c == '|')
        if (strcspn(c, "|") == n && !strncmp(c, word, n))
            return 1;
    return 0;
}

/* ffmpeg's image size (clv_filter's image_size, vf_scale's init): once
 * every value is read, a size given by name, or a width given without a
 * height that is a size (width_text, not parsed yet; NULL: none such),
 * becomes the width and the height. value_at: where each given value
 * starts, for *at on error. */
static int read_image_size(const clv_filter *f, clv_value *values, int *given,
                           const char *width_text, const char *const *value_at, const char **at,
                           clv_msg *msg)
{
    const int size = f->image_size[0], w = f->image_size[1], h = f->image_size[2];
    char shown[48];
    if (given[size] && !*clv_value_text(&values[size]))
        given[size] = 0; /* size='', as the chain is written back: none */
    if (given[size] && (given[w] || given[h])) {
        *at = value_at[size];
        return clv__fail(msg, CLV_EPARSE,
                         "filter '%s': '%s' and '%s'/'%s' cannot be set at the same time (a "
                         "size sets both)",
                         f->name, f->params[size].name, f->params[w].name, f->params[h].name);
    }
    const char *text = given[size] ? clv_value_text(&values[size]) : NULL;
    const char *text_at = value_at[size];
    if (width_text && !given[h]) {
        text = width_text;
        text_at = value_at[w];
    } else if (width_text) {
        /* With a height the width is an expression (ffmpeg's "2k" is 2000
         * there, not 2048x1080). */
        *at = value_at[w];
        return clv_param_parse(f, w, width_text, &values[w], msg);
    }
    if (!text)
        return 0;
    int width, height;
    if (clv__video_size(text, &width, &height)) {
        char names[640];
        clv__video_size_names(names, sizeof names);
        *at = text_at;
        return clv__fail(
            msg, CLV_EPARSE, "filter '%s' parameter '%s': '%s' is not a size (WxH, or one of %s)",
            f->name, f->params[size].name, clv__clip(text, shown, sizeof shown), names);
    }
    char number[16];
    snprintf(number, sizeof number, "%d", width);
    int err = clv_param_parse(f, w, number, &values[w], msg);
    snprintf(number, sizeof number, "%d", height);
    if (!err)
        err = clv_param_parse(f, h, number, &values[h], msg);
    given[w] = given[h] = 1;
    given[size] = 0; /* read into w and h: the size keeps its default */
    return err;
}

int clv__filter_parse(const char **pos, int graph, const clv_filter **out, clv_value *values,
                      char *enable, const char **at, clv_msg *msg)
{
    char name[64], rest[8192], shown[48];
    /* What ends a filter: ',' in a chain; ',', ';' and a label's '[' in a
     * graph (graphparser.c's "=,;[" after the name, "[],;" after values). */
    const char *ends = graph ? ",;[]" : ",";
    char name_stops[8], arg_stops[8];
    snprintf(name_stops, sizeof name_stops, "=%s", ends);
    snprintf(arg_stops, sizeof arg_stops, ":%s", ends);
    char key_stops[12];
    snprintf(key_stops, sizeof key_stops, "=:'\\%s", ends);
    size_t length;
    *at = clv__skip_blanks(*pos);
    const char *s = clv__token(*pos, name_stops, name, sizeof name, &length);
    if (!s)
        return clv__fail(msg, CLV_EPARSE, "unterminated quote in a filter name");
    if (length >= sizeof name)
        return clv__fail(msg, CLV_EPARSE,
                         "filter name '%s' is too long (%zu characters; names are at most %zu)",
                         clv__clip(name, shown, sizeof shown), length, sizeof name - 1);
    if (!name[0])
        return clv__fail(msg, CLV_EPARSE, "empty filter (two commas, or a comma at an end?)");
    const clv_filter *f = lookup(name);
    /* A family's member: the arguments that pick it are read first, the
     * others are its parameters. */
    const char *resolve_keys = f && f->resolve ? f->resolve_keys : NULL;
    int in_order = 0;
    if (f && f->resolve) {
        int err = f->resolve(s, &f, &in_order, msg);
        if (err)
            return err;
    }
    if (!f) {
        const char *names[96] = {0};
        int count = 0;
        for (int i = 0; i < clv__filter_count && count < 96; i++)
            names[count++] = clv__filters[i]->name;
        for (int i = 0; graph && i < clv__graph_filter_count && count < 96; i++)
            names[count++] = clv__graph_filters[i]->name;
        char hint[96], list[640];
        suggest(name, names, count, hint, sizeof hint);
        filter_names(graph, list, sizeof list);
        return clv__fail(msg, CLV_EPARSE, "unknown filter '%s'%s (filters: %s)", name, hint, list);
    }
    const char *name_at = *at;
    int given[CLV_PARAMS_MAX] = {0};
    const char *value_at[CLV_PARAMS_MAX] = {0};
    char width_text[64]; /* image_size's width, when it may be the size */
    int width_deferred = 0;
    memset(values, 0, CLV_PARAMS_MAX * sizeof *values);
    enable[0] = 0;
    int given_enable = 0;
    int positional = 0;
    int has_args = *s == '=';
    if (has_args)
        s++; /* "name=" with nothing after it sets nothing */
    if (has_args && *s && !strchr(ends, *s)) {
        for (;;) {
            char arg[8192];
            const char *arg_start = s;
            *at = clv__skip_blanks(s);
            const char *e = clv__token(s, arg_stops, arg, sizeof arg, &length);
            /* key=value, where the key is unquoted and before the first '='. */
            char key[64] = "";
            const char *val = arg;
            size_t klen = strcspn(arg_start, key_stops);
            if (!e && arg_start[klen] == '=') {
                clv__token(arg_start, "=", key, sizeof key, &length);
                *at = clv__skip_blanks(arg_start + klen + 1);
                return clv__fail(msg, CLV_EPARSE, "filter '%s' parameter '%s': unterminated quote",
                                 f->name, clv__clip(key, shown, sizeof shown));
            }
            if (!e)
                return clv__fail(msg, CLV_EPARSE, "filter '%s': unterminated quote", f->name);
            if (arg_start[klen] == '=') {
                /* A name too long for key is no parameter's: it is cut
                 * here and named as unknown below. */
                const char *k = clv__token(arg_start, "=", key, sizeof key, &length);
                *at = clv__skip_blanks(k + 1);
                e = clv__token(k + 1, arg_stops, rest, sizeof rest, &length);
                if (!e)
                    return clv__fail(msg, CLV_EPARSE,
                                     "filter '%s' parameter '%s': unterminated quote", f->name,
                                     key);
                val = rest;
            }
            if (length >= sizeof arg)
                return clv__fail(msg, CLV_EPARSE,
                                 "filter '%s'%s%s%s: a value of %zu characters is too long (at "
                                 "most %zu)",
                                 f->name, key[0] ? " parameter '" : "", key, key[0] ? "'" : "",
                                 length, sizeof arg - 1);
            int index = -1;
            if (resolve_keys &&
                (listed(resolve_keys, key) || (!key[0] && positional < in_order && ++positional))) {
                s = e; /* read by resolve */
                if (*s != ':')
                    break;
                s++;
                continue;
            }
            if (!strcmp(key, "enable")) {
                if (given_enable)
                    return clv__fail(msg, CLV_EPARSE,
                                     "filter '%s': parameter 'enable' is given twice", f->name);
                int err = take_enable(f, val, enable, msg);
                if (err)
                    return err;
                given_enable = 1;
                s = e;
                if (*s != ':')
                    break;
                s++;
                continue;
            }
            if (key[0]) {
                const char *pname = key; /* an alias (ffmpeg's "width" for "w") */
                for (int i = 0; f->aliases && f->aliases[i] && f->aliases[i + 1]; i += 2)
                    if (!strcmp(f->aliases[i], key))
                        pname = f->aliases[i + 1];
                for (int i = 0; i < f->param_count; i++)
                    if (!strcmp(f->params[i].name, pname))
                        index = i;
                if (index < 0) {
                    *at = clv__skip_blanks(arg_start);
                    const char *names[CLV_PARAMS_MAX] = {0};
                    char hint[96], list[256] = "";
                    for (int i = 0; i < f->param_count; i++) {
                        names[i] = f->params[i].name;
                        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
                        strncat(list, names[i], sizeof list - strlen(list) - 1);
                    }
                    suggest(key, names, f->param_count, hint, sizeof hint);
                    if (f->param_count == 0)
                        return clv__fail(msg, CLV_EPARSE,
                                         "filter '%s' takes no parameters; "
                                         "got '%s'",
                                         f->name, clv__clip(key, shown, sizeof shown));
                    return clv__fail(msg, CLV_EPARSE,
                                     "filter '%s' has no parameter '%s'%s (parameters: %s)",
                                     f->name, clv__clip(key, shown, sizeof shown), hint, list);
                }
            } else {
                index = positional++ - in_order;
                if (index >= f->param_count)
                    return clv__fail(msg, CLV_EPARSE,
                                     "filter '%s' takes %d value%s in order; '%s' is one too "
                                     "many",
                                     f->name, f->param_count, f->param_count == 1 ? "" : "s",
                                     clv__clip(arg, shown, sizeof shown));
            }
            if (given[index])
                return clv__fail(msg, CLV_EPARSE, "filter '%s': parameter '%s' is given twice",
                                 f->name, f->params[index].name);
            int width, height;
            value_at[index] = *at;
            if (f->image_size && index == f->image_size[1] && strlen(val) < sizeof width_text &&
                !clv__video_size(val, &width, &height)) {
                /* A size or an expression: the height, if given, says. */
                snprintf(width_text, sizeof width_text, "%s", val);
                width_deferred = 1;
            } else {
                int err = clv_param_parse(f, index, val, &values[index], msg);
                if (err)
                    return err;
            }
            given[index] = 1;
            s = e;
            if (*s != ':')
                break;
            s++;
        }
    }
    if (*s && !strchr(ends, *s)) {
        *at = s;
        return clv__fail(msg, CLV_EPARSE, "filter '%s': unexpected '%c' after its parameters",
                         f->name, *s);
    }
    if (f->image_size) {
        int err = read_image_size(f, values, given, width_deferred ? width_text : NULL, value_at,
                                  at, msg);
        if (err)
            return err;
    }
    for (int i = 0; i < f->param_count; i++) {
        if (!given[i]) {
            int err = clv_param_parse(f, i, f->params[i].def, &values[i], msg);
            if (err)
                return err; /* a bad default is a bug in the table */
        }
    }
    if (f->check) {
        *at = name_at;
        int err = f->check(values, msg);
        if (err)
            return err;
    }
    if (graph && f->sets_rate) {
        *at = name_at;
        return clv__fail(msg, CLV_EPARSE,
                         "filter '%s' changes the frame rate: clvid takes it in a chain (-vf), "
                         "not yet in a graph",
                         f->name);
    }
    if (!graph && graph_filter(f)) {
        *at = name_at;
        int n = clv__filter_inputs(f, values);
        if (n == 1)
            return clv__fail(msg, CLV_EPARSE,
                             "%s gives %d outputs: give it in a graph (-filter_complex)", f->name,
                             clv__filter_outputs(f, values));
        return clv__fail(msg, CLV_EPARSE,
                         "%s takes %d inputs: give it in a graph (-filter_complex)", f->name, n);
    }
    *out = f;
    *pos = s;
    return 0;
}

int clv__format_last(const clv_filter *f, int place, const char *pix_fmts, const char *where,
                     clv_msg *msg)
{
    if (f->passes || !pix_fmts)
        return 0;
    return clv__fail(msg, CLV_EPARSE,
                     "filter '%s' (#%d in the %s) comes after format=%s: clvid's filters work "
                     "on RGBA, and format names the pixel format the frames leave in, so only "
                     "null, copy, setsar, setdar or format may follow it (put it last, or give "
                     "-pix_fmt)",
                     f->name, place + 1, where, pix_fmts);
}

/* 1 when a filter's output may depend on the frame's number or time, or
 * on the frames before it: a temporal filter, a deinterlacer, enable=,
 * fade, noise, a user kernel, or an expression of a frame's n, t, pos or
 * pts (a list of names with n in it: crop, eq, hue, rotate, vignette). */
int clv__timed(const clv_filter *f, const clv_value *values, const char *enable)
{
    if (f->temporal || f->cadence || f->timed || f->temporal_state || enable[0])
        return 1;
    static const char *const time_names[] = {"n", "t", "pos", "pts"};
    for (int j = 0; j < f->param_count; j++) {
        const clv_param *p = &f->params[j];
        if (p->type != CLV_PARAM_EXPR || !p->choices)
            continue;
        char buf[512];
        const char *names[64];
        int n = clv__expr_names(p->choices, buf, sizeof buf, names, 64), frames = 0;
        for (int k = 0; k < n; k++)
            frames |= !strcmp(names[k], "n");
        for (int k = 0; frames && k < n; k++)
            for (int m = 0; m < 4; m++)
                if (!strcmp(names[k], time_names[m]))
                    names[k] = "\x01"; /* a name no expression can hold */
        clv__expr *e = NULL;
        int err = frames ? clv__expr_parse(clv_value_text(&values[j]), names, &e, NULL) : 0;
        clv__expr_free(e);
        if (err)
            return 1;
    }
    return 0;
}

int clv__rate_last(const clv_chain_desc *desc, const char *where, clv_msg *msg)
{
    const int last = desc->count - 1;
    int fps = -1;
    for (int i = 0; i < last; i++)
        if (desc->item[i].filter->sets_rate)
            fps = i;
    if (fps < 0)
        return 0;
    const clv_filter *f = desc->item[last].filter;
    const char *rate = desc->item[fps].filter->name;
    if (f->sets_rate)
        return clv__fail(msg, CLV_EPARSE,
                         "filter '%s' (#%d in the %s) comes after %s (#%d): a chain has one "
                         "frame rate",
                         f->name, last + 1, where, rate, fps + 1);
    if (clv__timed(f, desc->item[last].values, desc->item[last].enable))
        return clv__fail(msg, CLV_EPARSE,
                         "filter '%s' (#%d in the %s) comes after %s (#%d) and depends on the "
                         "frame's number or time (or on the frames before it): clvid picks %s's "
                         "frames at the chain's end, so such a filter would see the frames %s "
                         "leaves out; put %s after it",
                         f->name, last + 1, where, rate, fps + 1, rate, rate, rate);
    return 0;
}

void clv_chain_desc_take_fps(clv_chain_desc *desc)
{
    if (desc)
        desc->rate_taken = 1;
}

int clv_chain_desc_fps(const clv_chain_desc *desc, double source_fps, clv_fps_spec *spec,
                       clv_msg *msg)
{
    memset(spec, 0, sizeof *spec);
    for (int i = 0; desc && i < desc->count; i++) {
        const clv_filter *f = desc->item[i].filter;
        if (!f->sets_rate)
            continue;
        const clv_value *v = desc->item[i].values;
        if (f->sets_rate == 2) { /* framestep: libavfilter/vf_framestep.c */
            spec->step = (int)v[0].i;
            spec->rate = source_fps / (double)v[0].i;
            if (!(spec->rate > 0))
                return clv__fail(msg, CLV_ERANGE,
                                 "filter '%s' (#%d in the chain): the frames in have no rate "
                                 "(source_fps %g)",
                                 f->name, i + 1, source_fps);
            return 0;
        }
        /* libavfilter/vf_fps.c: its names, and av_d2q of the result */
        static const char *const names[] = {"source_fps", "ntsc", "pal", "film", "ntsc_film", NULL};
        const double values[] = {source_fps, 30000.0 / 1001.0, 25, 24, 24000.0 / 1001.0};
        clv__expr *e = NULL;
        int err = clv__expr_parse(clv_value_text(&v[0]), names, &e, msg);
        double rate = err ? NAN : clv__expr_eval(e, values);
        clv__expr_free(e);
        if (err)
            return err;
        if (!(rate > 0) || rate > 1e9)
            return clv__fail(msg, CLV_ERANGE,
                             "filter '%s' (#%d in the chain): fps '%s' is %g frames a second "
                             "(source_fps %g): expected more than 0",
                             f->name, i + 1, clv_value_text(&v[0]), rate, source_fps);
        static const int rounding[] = {0, 1, 2, 3, 5}; /* AVRounding of zero|inf|down|up|near */
        spec->rate = rate;
        spec->rounding = rounding[v[2].i];
        spec->eof_pass = v[3].i == 1;
        const char *start = clv_value_text(&v[1]);
        if (*start) {
            spec->has_start = 1;
            spec->start_time = clv__expr_value(start, NULL, NULL);
        }
        return 0;
    }
    return 0;
}

const char *clv_chain_desc_pix_fmts(const clv_chain_desc *desc)
{
    const char *found = NULL;
    for (int i = 0; desc && i < desc->count; i++)
        if (desc->item[i].filter->sets_format)
            found = clv_value_text(&desc->item[i].values[0]);
    return found;
}

int clv_chain_desc_passes(const clv_chain_desc *desc)
{
    for (int i = 0; desc && i < desc->count; i++)
        if (!desc->item[i].filter->passes)
            return 0;
    return 1;
}

/* Parses the filter at *pos into the chain. On error *at is where in the
 * text the fault is (for the excerpt clv_chain_parse adds). */
static int parse_filter(const char **pos, clv_chain_desc *desc, const char **at, clv_msg *msg)
{
    if (desc->count == CLV_CHAIN_MAX) {
        char name[64];
        size_t length;
        *at = clv__skip_blanks(*pos);
        clv__token(*pos, ",=", name, sizeof name, &length);
        return clv__fail(msg, CLV_EPARSE, "filter '%s': more than %d filters in one chain", name,
                         CLV_CHAIN_MAX);
    }
    const clv_filter *f = NULL;
    int err = clv__filter_parse(pos, 0, &f, desc->item[desc->count].values,
                                desc->item[desc->count].enable, at, msg);
    if (err)
        return err;
    desc->item[desc->count++].filter = f;
    return 0;
}

/* Adds to msg two lines: the text around offset `at` (at most 60
 * characters, "..." where cut, blanks for control characters) and a caret
 * under the fault. */
void clv__add_excerpt(clv_msg *msg, const char *text, size_t at)
{
    if (!msg)
        return; /* the caller asked for no message */
    size_t len = strlen(text);
    if (at > len)
        at = len;
    size_t from = at > 30 ? at - 30 : 0, to = from + 60 < len ? from + 60 : len;
    char line[80];
    size_t n = 0;
    for (size_t i = from; i < to; i++)
        line[n++] = (unsigned char)text[i] < ' ' ? ' ' : text[i];
    line[n] = 0;
    size_t used = strlen(msg->text);
    int lead = from > 0 ? 3 : 0;
    snprintf(msg->text + used, sizeof msg->text - used, "\n  %s%s%s\n  %*s^", lead ? "..." : "",
             line, to < len ? "..." : "", (int)(lead + at - from), "");
}

int clv_chain_parse(const char *text, clv_chain_desc **out, clv_msg *msg)
{
    *out = NULL;
    clv_chain_desc *desc = calloc(1, sizeof *desc);
    if (!desc)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    int err = clv__chain_parse_into(text, desc, msg);
    if (err)
        free(desc);
    else
        *out = desc;
    return err;
}

void clv_chain_desc_destroy(clv_chain_desc *desc)
{
    free(desc);
}

clv_chain_desc *clv_chain_desc_copy(const clv_chain_desc *desc)
{
    clv_chain_desc *copy = malloc(sizeof *copy);
    if (copy)
        *copy = *desc;
    return copy;
}

clv_chain_desc *clv_chain_desc_slice(const clv_chain_desc *desc, int first, int count)
{
    clv_chain_desc *slice = calloc(1, sizeof *slice);
    if (!slice)
        return NULL;
    first = first < 0 ? 0 : first > desc->count ? desc->count : first;
    count = count < 0 ? 0 : count > desc->count - first ? desc->count - first : count;
    for (int i = 0; i < count; i++)
        slice->item[i] = desc->item[first + i];
    slice->count = count;
    slice->rate_taken = desc->rate_taken;
    return slice;
}

int clv_chain_desc_count(const clv_chain_desc *desc)
{
    return desc->count;
}

const clv_filter *clv_chain_desc_filter(const clv_chain_desc *desc, int index)
{
    return index >= 0 && index < desc->count ? desc->item[index].filter : NULL;
}

const clv_value *clv_chain_desc_values(const clv_chain_desc *desc, int index)
{
    return index >= 0 && index < desc->count ? desc->item[index].values : NULL;
}

int clv_chain_desc_files(const clv_chain_desc *desc, const char **files, int max)
{
    int n = 0;
    for (int i = 0; i < desc->count; i++) {
        const clv_filter *f = desc->item[i].filter;
        const char *kernel = clv_filter_file(f);
        if (kernel && n++ < max)
            files[n - 1] = kernel;
        for (int j = 0; j < f->param_count; j++) {
            const char *name = clv_value_text(&desc->item[i].values[j]);
            if (f->params[j].type == CLV_PARAM_FILE && *name && n++ < max)
                files[n - 1] = name;
        }
    }
    return n;
}

int clv__chain_parse_into(const char *text, clv_chain_desc *desc, clv_msg *msg)
{
    memset(desc, 0, sizeof *desc);
    if (!text)
        return 0;
    const char *s = text;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return 0;
    s = text;
    for (;;) {
        const char *at = s, *start = s;
        int err = parse_filter(&s, desc, &at, msg);
        if (!err) { /* two filters that hold frames back: shown at the second */
            int delay, rate;
            err = clv_chain_desc_cadence(desc, &delay, &rate, msg);
            if (!err)
                err = clv__format_last(desc->item[desc->count - 1].filter, desc->count - 1,
                                       clv_chain_desc_pix_fmts(desc), "chain", msg);
            if (!err)
                err = clv__rate_last(desc, "chain", msg);
            at = clv__skip_blanks(start);
        }
        if (err) {
            memset(desc, 0, sizeof *desc);
            clv__add_excerpt(msg, text, (size_t)(at - text));
            return err;
        }
        if (*s == 0)
            return 0;
        s++; /* the comma */
    }
}

size_t clv__filter_format(const clv_filter *f, const clv_value *values, char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    if (f->format) {
        char head[8400];
        f->format(f, head, sizeof head);
        n += (size_t)snprintf(out, size, "%s", head);
    } else
        n += (size_t)snprintf(out, size, "%s", f->name);
    for (int j = 0; j < f->param_count && n < size; j++) {
        char v[512];
        if (f->image_size && j == f->image_size[0] && j > 0)
            continue; /* the parser moved it into the width and height */
        clv__param_format(&f->params[j], &values[j], v, sizeof v);
        n += (size_t)snprintf(out + n, size - n, "%c%s=%s", j || f->format ? ':' : '=',
                              f->params[j].name, v);
    }
    return n;
}

char clv__filter_format_sep(const clv_filter *f)
{
    return f->param_count || f->format ? ':' : '=';
}

void clv_chain_format(const clv_chain_desc *desc, char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < desc->count && n < size; i++) {
        if (i)
            n += (size_t)snprintf(out + n, size - n, ",");
        if (n < size)
            n += clv__filter_format(desc->item[i].filter, desc->item[i].values, out + n, size - n);
        if (n < size && desc->item[i].enable[0])
            n += (size_t)snprintf(out + n, size - n, "%cenable='%s'",
                                  clv__filter_format_sep(desc->item[i].filter),
                                  desc->item[i].enable);
    }
}
