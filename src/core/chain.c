/* chain.c - the chain parser (ffmpeg's filter-graph words), the chain runner
 * on a device (ping-pong frames, no host round trip) and the same chain run
 * by the C references. */
#include "clvid_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Registry lookups -------------------------------------------------- */

/* The API lists the registry's filters but the families (resolve set: the
 * `opencl` filter), which are no filter until their file is read. */

int clv_filter_count(void)
{
    int n = 0;
    for (int i = 0; i < clv__filter_count; i++)
        n += !clv__filters[i]->resolve;
    return n;
}

const clv_filter *clv_filter_at(int index)
{
    for (int i = 0; i < clv__filter_count; i++)
        if (!clv__filters[i]->resolve && index-- == 0)
            return clv__filters[i];
    return NULL;
}

const clv_filter *clv_filter_find(const char *name)
{
    for (int i = 0; i < clv__filter_count; i++)
        if (!clv__filters[i]->resolve && !strcmp(clv__filters[i]->name, name))
            return clv__filters[i];
    return NULL;
}

const char *clv_filter_name(const clv_filter *f)
{
    return f->name;
}

const char *clv_filter_help(const clv_filter *f)
{
    return f->help;
}

int clv_filter_param_count(const clv_filter *f)
{
    return f->param_count;
}

int clv_filter_temporal(const clv_filter *f)
{
    return f->temporal;
}

const char *clv_filter_file(const clv_filter *f)
{
    return f->file ? f->file(f, NULL) : NULL;
}

const clv_param *clv_filter_param(const clv_filter *f, int index)
{
    return index >= 0 && index < f->param_count ? &f->params[index] : NULL;
}

/* ---- Parser -------------------------------------------------------------- */

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

static void filter_names(char *out, size_t size)
{
    out[0] = 0;
    for (int i = 0; i < clv__filter_count; i++) {
        const clv_filter *f = clv__filters[i];
        strncat(out, i ? ", " : "", size - strlen(out) - 1);
        strncat(out, f->usage ? f->usage : f->name, size - strlen(out) - 1);
    }
}

/* The registry's entry of that name, families included. */
static const clv_filter *lookup(const char *name)
{
    for (int i = 0; i < clv__filter_count; i++)
        if (!strcmp(clv__filters[i]->name, name))
            return clv__filters[i];
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

/* Parses the filter at *pos. On error *at is where in the text the fault
 * is (for the excerpt clv_chain_parse adds). */
static int parse_filter(const char **pos, clv_chain_desc *desc, const char **at, clv_msg *msg)
{
    char name[64], rest[8192], shown[48];
    size_t length;
    *at = clv__skip_blanks(*pos);
    const char *s = clv__token(*pos, ",=", name, sizeof name, &length);
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
        const char *names[64] = {0};
        for (int i = 0; i < clv__filter_count && i < 64; i++)
            names[i] = clv__filters[i]->name;
        char hint[96], list[512];
        suggest(name, names, clv__filter_count < 64 ? clv__filter_count : 64, hint, sizeof hint);
        filter_names(list, sizeof list);
        return clv__fail(msg, CLV_EPARSE, "unknown filter '%s'%s (filters: %s)", name, hint, list);
    }
    if (desc->count == CLV_CHAIN_MAX)
        return clv__fail(msg, CLV_EPARSE, "filter '%s': more than %d filters in one chain", f->name,
                         CLV_CHAIN_MAX);
    int given[CLV_PARAMS_MAX] = {0};
    int item = desc->count;
    clv_value *values = desc->item[item].values;
    int positional = 0;
    int has_args = *s == '=';
    if (has_args)
        s++; /* "name=" with nothing after it sets nothing */
    if (has_args && *s && *s != ',') {
        for (;;) {
            char arg[8192];
            const char *arg_start = s;
            *at = clv__skip_blanks(s);
            const char *e = clv__token(s, ":,", arg, sizeof arg, &length);
            /* key=value, where the key is unquoted and before the first '='. */
            char key[64] = "";
            const char *val = arg;
            size_t klen = strcspn(arg_start, "=:,'\\");
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
                e = clv__token(k + 1, ":,", rest, sizeof rest, &length);
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
                (listed(resolve_keys, key) || (!key[0] && in_order && positional++ < in_order))) {
                s = e; /* read by resolve */
                if (*s != ':')
                    break;
                s++;
                continue;
            }
            if (key[0]) {
                for (int i = 0; i < f->param_count; i++)
                    if (!strcmp(f->params[i].name, key))
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
            int err = clv_param_parse(f, index, val, &values[index], msg);
            if (err)
                return err;
            given[index] = 1;
            s = e;
            if (*s != ':')
                break;
            s++;
        }
    }
    if (*s && *s != ',') {
        *at = s;
        return clv__fail(msg, CLV_EPARSE, "filter '%s': unexpected '%c' after its parameters",
                         f->name, *s);
    }
    for (int i = 0; i < f->param_count; i++) {
        if (!given[i]) {
            int err = clv_param_parse(f, i, f->params[i].def, &values[i], msg);
            if (err)
                return err; /* a bad default is a bug in the table */
        }
    }
    desc->item[item].filter = f;
    desc->count++;
    *pos = s;
    return 0;
}

/* Adds to msg two lines: the text around offset `at` (at most 60
 * characters, "..." where cut, blanks for control characters) and a caret
 * under the fault. */
static void add_excerpt(clv_msg *msg, const char *text, size_t at)
{
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

int clv_chain_parse(const char *text, clv_chain_desc *desc, clv_msg *msg)
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
        const char *at = s;
        int err = parse_filter(&s, desc, &at, msg);
        if (err) {
            memset(desc, 0, sizeof *desc);
            add_excerpt(msg, text, (size_t)(at - text));
            return err;
        }
        if (*s == 0)
            return 0;
        s++; /* the comma */
    }
}

void clv_chain_format(const clv_chain_desc *desc, char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < desc->count && n < size; i++) {
        const clv_filter *f = desc->item[i].filter;
        if (f->format) {
            char head[8400];
            f->format(f, head, sizeof head);
            n += (size_t)snprintf(out + n, size - n, "%s%s", i ? "," : "", head);
        } else
            n += (size_t)snprintf(out + n, size - n, "%s%s", i ? "," : "", f->name);
        for (int j = 0; j < f->param_count && n < size; j++) {
            char v[512];
            clv__param_format(&f->params[j], &desc->item[i].values[j], v, sizeof v);
            n += (size_t)snprintf(out + n, size - n, "%c%s=%s", j || f->format ? ':' : '=',
                                  f->params[j].name, v);
        }
    }
}

/* ---- Chain on a device ----------------------------------------------- */

struct clv_chain {
    clv_context *ctx;
    clv_chain_desc desc;
    void *state[CLV_CHAIN_MAX];
    int initialized[CLV_CHAIN_MAX];
    clv_frame mid[2]; /* ping-pong frames between filters */
    clv_frame scratch;
    int needs_scratch;
    /* Kernel events of the last runs, per filter: the newest for
     * clv_chain_profile; the oldest, finished by the time its slot comes
     * round again, are summed into filter_ns (clv_chain_times). */
    clv__events ring[4];
    int ring_at;
    uint64_t filter_ns[CLV_CHAIN_MAX], timed_runs;
    int filter_timing;      /* record those events (with profiling; 1 unless turned off) */
    int rate_num, rate_den; /* for user kernels' `time` */
    /* On a context of several devices: the same chain on the others. */
    clv_chain *more[CLV_DEVICES_MAX - 1];
    int more_count;
};

static void release_events(clv__events *e)
{
    for (int i = 0; i < e->count; i++)
        clReleaseEvent(e->list[i]);
    e->count = 0;
}

/* Adds a finished run's kernel times to the chain's sums; a run not yet
 * finished (or without profiling) is left out. */
static void sum_events(clv_chain *chain, const clv__events *e)
{
    uint64_t ns[CLV_CHAIN_MAX] = {0};
    if (!e->count)
        return;
    for (int i = 0; i < e->count; i++) {
        cl_int status = 0;
        cl_ulong start = 0, end = 0;
        if (clGetEventInfo(e->list[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                           NULL) != CL_SUCCESS ||
            status != CL_COMPLETE ||
            clGetEventProfilingInfo(e->list[i], CL_PROFILING_COMMAND_START, sizeof start, &start,
                                    NULL) != CL_SUCCESS ||
            clGetEventProfilingInfo(e->list[i], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) !=
                CL_SUCCESS)
            return;
        if (e->owner[i] >= 0 && e->owner[i] < CLV_CHAIN_MAX && end > start)
            ns[e->owner[i]] += end - start;
    }
    for (int i = 0; i < CLV_CHAIN_MAX; i++)
        chain->filter_ns[i] += ns[i];
    chain->timed_runs++;
}

int clv_chain_times(const clv_chain *chain, uint64_t *ns, int count, uint64_t *runs)
{
    /* Over every device: the mean is per frame wherever it ran. */
    *runs = chain->timed_runs;
    for (int i = 0; i < count; i++)
        ns[i] = i < CLV_CHAIN_MAX ? chain->filter_ns[i] : 0;
    for (int k = 0; k < chain->more_count; k++) {
        *runs += chain->more[k]->timed_runs;
        for (int i = 0; i < count && i < CLV_CHAIN_MAX; i++)
            ns[i] += chain->more[k]->filter_ns[i];
    }
    return chain->ctx->profiling && chain->filter_timing ? 0 : CLV_EINVAL;
}

clv_chain *clv__chain_at(clv_chain *chain, int device)
{
    if (!chain || device < 0 || device > chain->more_count)
        return NULL;
    return device == 0 ? chain : chain->more[device - 1];
}

int clv__chain_temporal(const clv_chain *chain)
{
    for (int i = 0; chain && i < chain->desc.count; i++) {
        const clv_filter *f = chain->desc.item[i].filter;
        if (f->temporal || (f->temporal_state && f->temporal_state(chain->state[i])))
            return 1;
    }
    return 0;
}

int clv_chain_create(clv_context *ctx, const clv_chain_desc *desc, clv_chain **out, clv_msg *msg)
{
    *out = NULL;
    clv_chain *chain = calloc(1, sizeof *chain);
    if (!chain)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    chain->ctx = ctx;
    chain->desc = *desc;
    chain->rate_num = 25;
    chain->rate_den = 1;
    chain->filter_timing = 1;
    int err = 0;
    for (int i = 0; i < desc->count; i++) {
        const clv_filter *f = desc->item[i].filter;
        chain->needs_scratch |= f->needs_scratch;
        chain->state[i] = calloc(1, f->state_size ? f->state_size : 1);
        if (!chain->state[i]) {
            err = clv__fail(msg, CLV_ENOMEM, "out of memory");
            goto fail;
        }
        if (f->open) {
            /* The file as it is now: when its parameters changed since the
             * chain was parsed, the values carry over by name. */
            const clv_filter *now = f;
            chain->initialized[i] = 1;
            if ((err = f->open(chain->state[i], ctx, f, &now, msg)))
                goto fail;
            if (now != f) {
                clv_value values[CLV_PARAMS_MAX];
                clv__param_carry(f, desc->item[i].values, now, values);
                memcpy(chain->desc.item[i].values, values, sizeof values);
                chain->desc.item[i].filter = now;
            }
            continue;
        }
        cl_program prog = NULL;
        if (f->program && (err = clv__program_get(ctx, f->program, &prog, msg)))
            goto fail;
        chain->initialized[i] = 1; /* uninit accepts a half-built state */
        if ((err = f->init(chain->state[i], ctx, prog, msg)))
            goto fail;
        if (f->configure && (err = f->configure(chain->state[i], ctx, desc->item[i].values, msg)))
            goto fail;
    }
    for (int k = 0; k < ctx->more_count; k++) {
        if ((err = clv_chain_create(ctx->more[k], desc, &chain->more[k], msg)))
            goto fail;
        chain->more_count = k + 1;
    }
    *out = chain;
    return 0;
fail:
    clv_chain_destroy(chain);
    return err;
}

int clv__chain_watched(const clv_chain *chain)
{
    for (int i = 0; chain && i < chain->desc.count; i++)
        if (chain->desc.item[i].filter->watchdog)
            return 1;
    return 0;
}

void clv_chain_destroy(clv_chain *chain)
{
    if (!chain)
        return;
    for (int k = 0; k < chain->more_count; k++)
        clv_chain_destroy(chain->more[k]);
    chain->more_count = 0;
    if (chain->ctx && chain->ctx->hung) {
        for (int i = 0; i < chain->desc.count; i++)
            free(chain->state[i]);
        free(chain);
        return;
    }
    if (chain->ctx && chain->ctx->queue)
        clFinish(chain->ctx->queue);
    for (int i = 0; i < 4; i++) {
        release_events(&chain->ring[i]);
        free(chain->ring[i].list);
        free(chain->ring[i].owner);
    }
    for (int i = 0; i < chain->desc.count; i++) {
        if (chain->initialized[i] && chain->desc.item[i].filter->uninit)
            chain->desc.item[i].filter->uninit(chain->state[i]);
        free(chain->state[i]);
    }
    clv_frame_destroy(&chain->mid[0]);
    clv_frame_destroy(&chain->mid[1]);
    clv_frame_destroy(&chain->scratch);
    free(chain);
}

const clv_chain_desc *clv_chain_get_desc(const clv_chain *chain)
{
    return &chain->desc;
}

/* Makes f hold a frame of w x h, reallocating when the size changed. */
static int ensure_frame(clv_context *ctx, clv_frame *f, int w, int h, clv_msg *msg)
{
    if (f->buffer && f->width == w && f->height == h)
        return 0;
    clv_frame_destroy(f);
    return clv_frame_create(ctx, w, h, f, msg);
}

/* What filter i of the chain gets to run from `from` into `to` on frames
 * of src's size: no scratch, events, wait list or done event (the callers
 * add theirs). */
static clv_launch filter_launch(const clv_chain *chain, int i, cl_mem from, cl_mem to,
                                const clv_frame *src, uint64_t frame_index)
{
    return (clv_launch){
        .ctx = chain->ctx,
        .queue = chain->ctx->queue,
        .src = from,
        .dst = to,
        .width = src->width,
        .height = src->height,
        .stride = src->stride,
        .frame_index = frame_index,
        .time = (float)((double)frame_index * chain->rate_den / chain->rate_num),
        .values = chain->desc.item[i].values,
    };
}

int clv_chain_run(clv_chain *chain, const clv_frame *src, clv_frame *dst, uint64_t frame_index,
                  cl_event wait, cl_event *done, clv_msg *msg)
{
    int err = 0;
    clv_context *ctx = chain->ctx;
    if (done)
        *done = NULL;
    if (!src->buffer || !dst->buffer || src->buffer == dst->buffer || src->width != dst->width ||
        src->height != dst->height || src->stride != dst->stride)
        return clv__fail(msg, CLV_EINVAL,
                         "chain run: source %dx%d and destination %dx%d must be distinct "
                         "frames of one size",
                         src->width, src->height, dst->width, dst->height);
    int w = src->width, h = src->height, n = chain->desc.count;
    if (n >= 2 && (err = ensure_frame(ctx, &chain->mid[0], w, h, msg)))
        return err;
    if (n >= 3 && (err = ensure_frame(ctx, &chain->mid[1], w, h, msg)))
        return err;
    if (chain->needs_scratch && (err = ensure_frame(ctx, &chain->scratch, w, h, msg)))
        return err;
    chain->ring_at = (chain->ring_at + 1) % 4;
    clv__events *events = &chain->ring[chain->ring_at];
    sum_events(chain, events);
    release_events(events);

    if (wait)
        CLV__CL_CHECK(ctx, clEnqueueBarrierWithWaitList(ctx->queue, 1, &wait, NULL),
                      "clEnqueueBarrierWithWaitList");
    if (n == 0)
        CLV__CL_CHECK(ctx,
                      clEnqueueCopyBuffer(ctx->queue, src->buffer, dst->buffer, 0, 0,
                                          (size_t)src->stride * (size_t)h * 4, 0, NULL, NULL),
                      "clEnqueueCopyBuffer");
    for (int i = 0; i < n; i++) {
        const clv_filter *f = chain->desc.item[i].filter;
        clv_launch l =
            filter_launch(chain, i, i == 0 ? src->buffer : chain->mid[(i - 1) % 2].buffer,
                          i == n - 1 ? dst->buffer : chain->mid[i % 2].buffer, src, frame_index);
        l.scratch = chain->needs_scratch ? chain->scratch.buffer : NULL;
        l.events = ctx->profiling && chain->filter_timing ? events : NULL;
        events->current = i;
        if ((err = f->run(chain->state[i], &l)))
            return clv__fail(msg, err,
                             "filter '%s' (#%d in the chain) failed on a %dx%d frame "
                             "on %s: %s",
                             f->name, i + 1, w, h, ctx->dev.name, clv_strerror(err));
    }
    if (done)
        CLV__CL_CHECK(ctx, clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done),
                      "clEnqueueMarkerWithWaitList");
    return 0;
fail:
    return clv__fail(msg, err, "running the chain on %s: %s (see the log above)", ctx->dev.name,
                     clv_strerror(err));
}

int clv__chain_run_yuv(clv_chain *chain, const clv_frame *src, clv_frame *dst, uint64_t frame_index,
                       const clv__yuv_io *io, cl_event wait, cl_event *last, clv_msg *msg)
{
    clv_context *ctx = chain->ctx;
    const clv_filter *f = chain->desc.count == 1 ? chain->desc.item[0].filter : NULL;
    if (!f || !f->run_yuv || !ctx->row_shape || (ctx->profiling && chain->filter_timing) ||
        src->width != dst->width || src->height != dst->height || src->stride != dst->stride)
        return 1;
    clv_launch l = filter_launch(chain, 0, src->buffer, dst->buffer, src, frame_index);
    l.wait_count = wait ? 1 : 0;
    l.wait = wait ? &wait : NULL;
    l.done = last;
    int err = f->run_yuv(chain->state[0], &l, io);
    if (err == 1)
        return 1;
    if (err)
        return clv__fail(msg, err,
                         "filter '%s' (with the conversions) failed on a %dx%d frame on %s: %s",
                         f->name, l.width, l.height, ctx->dev.name, clv_strerror(err));
    return 0;
}

int clv__rows_reserve(clv_context *ctx, clv__rows *rows, size_t need, const char *who)
{
    if (rows->size >= need)
        return 0;
    clv__mem_release(&rows->mem);
    rows->size = 0;
    cl_int st = CL_SUCCESS;
    rows->mem = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, need, NULL, &st);
    if (st != CL_SUCCESS) {
        rows->mem = NULL;
        clv__log(ctx, CLV__LOG_ERROR, "%s: cannot allocate %zu bytes of rows: %s", who, need,
                 clv__cl_strerror(st));
        return CLV_ENOMEM;
    }
    rows->size = need;
    return 0;
}

void clv__rows_release(clv__rows *rows)
{
    clv__mem_release(&rows->mem);
    rows->size = 0;
}

int clv__yuv_in_args(cl_kernel kernel, const clv_launch *l, const clv__yuv_io *io, cl_mem rows,
                     const char *who)
{
    if (clv__kernel_mem_arg(kernel, 0, io->in, io->in_svm) != CL_SUCCESS) {
        clv__log(l->ctx, CLV__LOG_ERROR, "%s: clSetKernelArg (the stage's input)", who);
        return CLV_ECL;
    }
    return clv__kernel_args(kernel, 1, 12, CLV__ARG(rows), CLV__ARG(l->width), CLV__ARG(l->height),
                            CLV__ARG(l->stride), CLV__ARG(io->in_nv12), CLV__ARG(io->in_coeffs),
                            CLV__ARG(io->yoff), CLV__ARG(io->uoff), CLV__ARG(io->voff),
                            CLV__ARG(io->ys), CLV__ARG(io->us), CLV__ARG(io->vs));
}

int clv__run_fused(const clv_launch *l, const clv__yuv_io *io, cl_kernel kernel, int reach,
                   clv__rows *rows, const char *who)
{
    /* Four blocks of whole chroma rows a compute unit, as equalize's. */
    size_t one = 1, groups = l->ctx->dev.compute_units * 4, chroma = (size_t)(l->height + 1) / 2;
    if (groups > chroma)
        groups = chroma;
    if (groups < 1)
        groups = 1;
    size_t strip = 2 * (size_t)(CLV__FUSE_ROWS + 2 * reach) * (size_t)l->stride * 4;
    int err = clv__rows_reserve(l->ctx, rows, groups * strip, who);
    if (err)
        return err;
    cl_int r = reach;
    if ((err = clv__yuv_in_args(kernel, l, io, rows->mem, who)))
        return err;
    /* then CLV_FUSED_ARGS' output frame, its layout and colours, reach */
    if (clv__kernel_mem_arg(kernel, 13, io->out, io->out_svm) != CL_SUCCESS) {
        clv__log(l->ctx, CLV__LOG_ERROR, "%s: clSetKernelArg (the stage's output)", who);
        return CLV_ECL;
    }
    err = clv__kernel_args(kernel, 14, 3, CLV__ARG(io->out_nv12), CLV__ARG(io->out_coeffs),
                           CLV__ARG(r));
    if (!err)
        err = clv__launch(l, kernel, 1, &groups, &one);
    /* one kernel: the first is the last */
    if (!err && io->first && l->done && *l->done) {
        *io->first = *l->done;
        clRetainEvent(*io->first);
    }
    return err;
}

void clv_chain_set_filter_timing(clv_chain *chain, int on)
{
    chain->filter_timing = on != 0;
    for (int k = 0; k < chain->more_count; k++)
        clv_chain_set_filter_timing(chain->more[k], on);
}

void clv_chain_set_frame_rate(clv_chain *chain, int num, int den)
{
    if (num > 0 && den > 0) {
        chain->rate_num = num;
        chain->rate_den = den;
    }
    for (int k = 0; k < chain->more_count; k++)
        clv_chain_set_frame_rate(chain->more[k], num, den);
}

const char *clv_chain_kernel_file(const clv_chain *chain, int filter_index, const char **kernel)
{
    if (kernel)
        *kernel = NULL;
    if (filter_index < 0 || filter_index >= chain->desc.count ||
        !chain->desc.item[filter_index].filter->file)
        return NULL;
    const clv_filter *f = chain->desc.item[filter_index].filter;
    return f->file(f, kernel);
}

int clv_chain_swap_kernel(clv_chain *chain, int filter_index, clv_kernel_build *build, clv_msg *msg)
{
    if (!build || filter_index < 0 || filter_index >= chain->desc.count ||
        !chain->desc.item[filter_index].filter->swap)
        return clv__fail(msg, CLV_EINVAL, "filter #%d of the chain is not a user kernel",
                         filter_index + 1);
    /* A build for several devices is one per device, linked in order: the
     * chain's instances on its devices, in the same order. */
    clv_chain *on[CLV_DEVICES_MAX];
    void *states[CLV_DEVICES_MAX];
    const clv_filter *now[CLV_DEVICES_MAX];
    int count = chain->more_count + 1;
    for (int k = 0; k < count; k++) {
        on[k] = clv__chain_at(chain, k);
        states[k] = on[k]->state[filter_index];
    }
    int swapped = chain->desc.item[filter_index].filter->swap(states, count, build, now);
    for (int k = 0; k < swapped; k++) {
        clv_chain_desc *d = &on[k]->desc;
        clv_value values[CLV_PARAMS_MAX];
        clv__param_carry(d->item[filter_index].filter, d->item[filter_index].values, now[k],
                         values);
        memcpy(d->item[filter_index].values, values, sizeof values);
        d->item[filter_index].filter = now[k];
    }
    return 0;
}

int clv_chain_set_param(clv_chain *chain, int filter_index, const char *param, const char *value,
                        clv_msg *msg)
{
    if (filter_index < 0 || filter_index >= chain->desc.count)
        return clv__fail(msg, CLV_EINVAL, "no filter #%d in a chain of %d", filter_index + 1,
                         chain->desc.count);
    const clv_filter *f = chain->desc.item[filter_index].filter;
    for (int i = 0; i < f->param_count; i++) {
        if (strcmp(f->params[i].name, param))
            continue;
        clv_value v;
        int err = clv_param_parse(f, i, value, &v, msg);
        if (err)
            return err;
        const clv_value before = chain->desc.item[filter_index].values[i];
        chain->desc.item[filter_index].values[i] = v;
        if (f->configure && (err = f->configure(chain->state[filter_index], chain->ctx,
                                                chain->desc.item[filter_index].values, msg))) {
            chain->desc.item[filter_index].values[i] = before; /* the chain runs on as it was */
            return err;
        }
        for (int k = 0; k < chain->more_count; k++)
            if ((err = clv_chain_set_param(chain->more[k], filter_index, param, value, msg)))
                return err;
        return 0;
    }
    return clv__fail(msg, CLV_EPARSE, "filter '%s' has no parameter '%s'", f->name, param);
}

int clv_chain_profile(clv_chain *chain, uint64_t *ns, int count)
{
    for (int i = 0; i < count; i++)
        ns[i] = 0;
    clv__events *e = &chain->ring[chain->ring_at];
    if (!chain->ctx->profiling || !chain->filter_timing)
        return CLV_EINVAL;
    int err = 0;
    if (e->count)
        CLV__CL_CHECK(chain->ctx, clWaitForEvents((cl_uint)e->count, e->list), "clWaitForEvents");
    for (int i = 0; i < e->count; i++) {
        cl_ulong start = 0, end = 0;
        CLV__CL_CHECK(chain->ctx,
                      clGetEventProfilingInfo(e->list[i], CL_PROFILING_COMMAND_START, sizeof start,
                                              &start, NULL),
                      "clGetEventProfilingInfo");
        CLV__CL_CHECK(
            chain->ctx,
            clGetEventProfilingInfo(e->list[i], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL),
            "clGetEventProfilingInfo");
        if (e->owner[i] < count && end > start)
            ns[e->owner[i]] += end - start;
    }
fail:
    release_events(e);
    return err;
}

/* ---- Chain on the host (C references) -------------------------------- */

struct clv_ref_chain {
    clv_chain_desc desc;
    void *state[CLV_CHAIN_MAX];
    clv_image mid[2];
};

int clv_ref_chain_create(const clv_chain_desc *desc, clv_ref_chain **out)
{
    *out = NULL;
    clv_ref_chain *ref = calloc(1, sizeof *ref);
    if (!ref)
        return CLV_ENOMEM;
    ref->desc = *desc;
    for (int i = 0; i < desc->count; i++) {
        if (!desc->item[i].filter->reference) {
            clv_ref_chain_destroy(ref); /* a user kernel has no C reference */
            return CLV_EINVAL;
        }
        size_t size = desc->item[i].filter->ref_state_size;
        ref->state[i] = calloc(1, size ? size : 1);
        if (!ref->state[i]) {
            clv_ref_chain_destroy(ref);
            return CLV_ENOMEM;
        }
    }
    *out = ref;
    return 0;
}

void clv_ref_chain_destroy(clv_ref_chain *ref)
{
    if (!ref)
        return;
    for (int i = 0; i < ref->desc.count; i++)
        free(ref->state[i]);
    clv_image_free(&ref->mid[0]);
    clv_image_free(&ref->mid[1]);
    free(ref);
}

static int ensure_image(clv_image *img, int w, int h)
{
    if (img->pixels && img->width == w && img->height == h)
        return 0;
    clv_image_free(img);
    return clv_image_alloc(img, w, h);
}

int clv_ref_chain_run(clv_ref_chain *ref, const clv_image *src, clv_image *dst,
                      uint64_t frame_index)
{
    if (src->width != dst->width || src->height != dst->height)
        return CLV_EINVAL;
    int w = src->width, h = src->height, n = ref->desc.count, err;
    if (n >= 2 && (err = ensure_image(&ref->mid[0], w, h)))
        return err;
    if (n >= 3 && (err = ensure_image(&ref->mid[1], w, h)))
        return err;
    if (n == 0) {
        for (int y = 0; y < h; y++)
            memcpy(dst->pixels + (size_t)y * dst->stride, src->pixels + (size_t)y * src->stride,
                   (size_t)w * 4);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        const clv_image *in = i == 0 ? src : &ref->mid[(i - 1) % 2];
        clv_image *out = i == n - 1 ? dst : &ref->mid[i % 2];
        err = ref->desc.item[i].filter->reference(ref->state[i], ref->desc.item[i].values, in, out,
                                                  frame_index);
        if (err)
            return err;
    }
    return 0;
}

int clv_chain_step_param(clv_chain *chain, int fi, int pi, int direction, char *text, size_t size,
                         clv_msg *msg)
{
    const clv_chain_desc *d = clv_chain_get_desc(chain);
    if (fi < 0 || fi >= d->count || pi < 0 || pi >= d->item[fi].filter->param_count)
        return clv__fail(msg, CLV_EINVAL, "no parameter %d of filter %d in this chain", pi, fi);
    const clv_param *par = &d->item[fi].filter->params[pi];
    const clv_value *v = &d->item[fi].values[pi];
    if (par->step <= 0)
        return clv__fail(msg, CLV_EINVAL, "%s: parameter %s has no step", d->item[fi].filter->name,
                         par->name);
    char value[64];
    if (par->type == CLV_PARAM_ENUM) {
        int n = 1;
        for (const char *c = par->choices; *c; c++)
            n += *c == '|';
        int k = (int)(((v->i + (direction > 0 ? 1 : -1)) % n + n) % n);
        const char *c = par->choices;
        for (int i = 0; i < k; i++)
            c = strchr(c, '|') + 1;
        snprintf(value, sizeof value, "%.*s", (int)strcspn(c, "|"), c);
    } else {
        double now = par->type == CLV_PARAM_REAL ? (double)v->i / 1000 : (double)v->i;
        double next = now + (direction > 0 ? par->step : -par->step);
        next = next < par->min ? par->min : next > par->max ? par->max : next;
        if (par->type == CLV_PARAM_REAL)
            snprintf(value, sizeof value, "%.3f", next);
        else
            snprintf(value, sizeof value, "%lld", (long long)llround(next));
    }
    int err = clv_chain_set_param(chain, fi, par->name, value, msg);
    if (!err)
        snprintf(text, size, "%s=%s", par->name, value);
    return err;
}
