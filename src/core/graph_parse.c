/* graph_parse.c - a graph's text (ffmpeg's -filter_complex, as
 * libavfilter/graphparser.c reads it and fftools/ffmpeg_filter.c binds its
 * open pads to the inputs) into a clv_graph_desc; the description's
 * queries: sizes, depth, files, the graph as a chain, its timing. */
#include "clvid_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MAX 64
/* Pads waiting for their other end while the text is read. */
#define OPEN_MAX (CLV_GRAPH_NODES * CLV_GRAPH_PADS)

/* graphparser.c's AVFilterInOut: a node's pad (an input pad in the open
 * inputs, an output pad elsewhere), or a label read before a filter that
 * names no output yet (node -1). */
typedef struct inout {
    int node, pad;
    char name[LABEL_MAX]; /* "" unlabelled */
    int at;               /* the label's (or the filter's) character offset */
} inout;

typedef struct inout_list {
    inout item[OPEN_MAX];
    int count;
} inout_list;

typedef struct parser {
    const char *text;
    clv_graph_desc *desc; /* nodes in the order of the text while parsing */
    inout_list open_in, open_out, curr;
    /* The output labels given so far (a second is an error). */
    char given[OPEN_MAX][LABEL_MAX];
    int given_count;
    clv_msg *msg;
} parser;

static void push(inout_list *l, const inout *io)
{
    l->item[l->count++] = *io;
}

static void push_front(inout_list *l, const inout *io)
{
    memmove(&l->item[1], &l->item[0], (size_t)l->count * sizeof l->item[0]);
    l->item[0] = *io;
    l->count++;
}

static inout take(inout_list *l, int i)
{
    inout io = l->item[i];
    memmove(&l->item[i], &l->item[i + 1], (size_t)(l->count - i - 1) * sizeof l->item[0]);
    l->count--;
    return io;
}

static int find(const inout_list *l, const char *name)
{
    for (int i = 0; i < l->count; i++)
        if (l->item[i].name[0] && !strcmp(l->item[i].name, name))
            return i;
    return -1;
}

/* CLV_EPARSE (or code) with the message, then the text around offset at. */
static int fail_at(parser *p, int at, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail_at(parser *p, int at, int code, const char *fmt, ...)
{
    if (!p->msg)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg->text, sizeof p->msg->text, fmt, ap);
    va_end(ap);
    clv__add_excerpt(p->msg, p->text, (size_t)at);
    return code;
}

/* "filter 'NAME' (#N in the graph, at character M)" of node i. */
static const char *where(const parser *p, int i, char *out, size_t size)
{
    const struct clv__graph_node *n = &p->desc->node[i];
    snprintf(out, size, "filter '%s' (#%d in the graph, at character %d)", n->filter->name,
             n->place + 1, n->at);
    return out;
}

static void link_pads(parser *p, const inout *from, int to_node, int to_pad)
{
    p->desc->node[to_node].in[to_pad] = (clv__graph_link){from->node, from->pad};
}

static const char *skip(const char *s)
{
    return s + strspn(s, " \n\t\r");
}

/* parse_link_name: "[name]" at *s into out. */
static int parse_label(parser *p, const char **s, char *out)
{
    const char *start = *s;
    const char *end = strchr(start + 1, ']');
    size_t n = end ? (size_t)(end - start - 1) : 0;
    if (!end)
        return fail_at(p, (int)(start - p->text), CLV_EPARSE,
                       "graph: a label's '[' at character %d has no ']'", (int)(start - p->text));
    if (n == 0 || strcspn(start + 1, "[;, \t\n\r") < n)
        return fail_at(p, (int)(start - p->text), CLV_EPARSE,
                       "graph: a bad label at character %d (empty, or holding '[', ';', ',' or a "
                       "blank)",
                       (int)(start - p->text));
    if (n >= LABEL_MAX)
        return fail_at(p, (int)(start - p->text), CLV_EPARSE,
                       "graph: the label at character %d is too long (%zu characters; at most %d)",
                       (int)(start - p->text), n, LABEL_MAX - 1);
    memcpy(out, start + 1, n);
    out[n] = 0;
    *s = skip(end + 1);
    return 0;
}

/* parse_inputs: the labels before a filter, then the chain's outputs. */
static int parse_inputs(parser *p, const char **s)
{
    inout_list *parsed = malloc(sizeof *parsed);
    if (!parsed)
        return clv__fail(p->msg, CLV_ENOMEM, "out of memory");
    parsed->count = 0;
    int err = 0;
    while (**s == '[' && !err) {
        inout io = {.node = -1, .pad = 0, .at = (int)(*s - p->text)};
        if ((err = parse_label(p, s, io.name)))
            break;
        int m = find(&p->open_out, io.name);
        if (m >= 0) {
            inout out = take(&p->open_out, m);
            out.at = io.at;
            io = out;
        }
        if (parsed->count == OPEN_MAX)
            err = fail_at(p, io.at, CLV_EPARSE, "graph: too many labels");
        else
            push(parsed, &io);
    }
    for (int i = 0; !err && i < p->curr.count; i++) {
        if (parsed->count == OPEN_MAX)
            err = fail_at(p, 0, CLV_EPARSE, "graph: too many labels");
        else
            push(parsed, &p->curr.item[i]);
    }
    if (!err)
        p->curr = *parsed;
    free(parsed);
    return err;
}

/* link_filter_inouts: node i's input pads from the chain (or open), its
 * output pads become the chain. */
static int link_node(parser *p, int i)
{
    struct clv__graph_node *n = &p->desc->node[i];
    for (int pad = 0; pad < n->input_count; pad++) {
        inout io = {.node = -1, .at = n->at};
        if (p->curr.count)
            io = take(&p->curr, 0);
        if (io.node >= 0) {
            link_pads(p, &io, i, pad);
            continue;
        }
        /* A label of no output yet, or nothing: an open input. */
        io.node = i;
        io.pad = pad;
        push(&p->open_in, &io);
    }
    if (p->curr.count) {
        char w[160];
        return fail_at(p, p->curr.item[0].at, CLV_EPARSE,
                       "graph: %s takes %d input%s; more are given (at character %d)",
                       where(p, i, w, sizeof w), n->input_count, n->input_count == 1 ? "" : "s",
                       p->curr.item[0].at);
    }
    for (int pad = 0; pad < n->output_count; pad++) {
        inout io = {.node = i, .pad = pad, .at = n->at};
        push(&p->curr, &io);
    }
    return 0;
}

/* parse_outputs: the labels after a filter, each naming the next of its
 * output pads. */
static int parse_outputs(parser *p, const char **s, int i)
{
    int err = 0;
    while (**s == '[') {
        char name[LABEL_MAX];
        int at = (int)(*s - p->text);
        if ((err = parse_label(p, s, name)))
            return err;
        char w[160];
        if (!p->curr.count)
            return fail_at(p, at, CLV_EPARSE,
                           "graph: %s has %d output%s; the label '[%s]' at character %d is one too "
                           "many",
                           where(p, i, w, sizeof w), p->desc->node[i].output_count,
                           p->desc->node[i].output_count == 1 ? "" : "s", name, at);
        for (int k = 0; k < p->given_count; k++)
            if (!strcmp(p->given[k], name))
                return fail_at(p, at, CLV_EPARSE,
                               "graph: the label '[%s]' (at character %d) names two outputs; a "
                               "label names one",
                               name, at);
        snprintf(p->given[p->given_count++], LABEL_MAX, "%s", name);
        inout out = take(&p->curr, 0);
        out.at = at;
        int m = find(&p->open_in, name);
        if (m >= 0) {
            inout in = take(&p->open_in, m);
            link_pads(p, &out, in.node, in.pad);
        } else {
            snprintf(out.name, sizeof out.name, "%s", name);
            push_front(&p->open_out, &out);
        }
    }
    return 0;
}

/* "N", "N:v" or "N:v:0": input N's video. Returns N, -1 when name is no
 * stream specifier, -2 when it names what a graph can't take (sound, a
 * second video stream). */
static int input_spec(const char *name)
{
    char *end;
    if (name[0] < '0' || name[0] > '9')
        return -1;
    long n = strtol(name, &end, 10);
    if (n > 1000000)
        return -2;
    if (!*end || !strcmp(end, ":v") || !strcmp(end, ":v:0") || !strcmp(end, ":V") ||
        !strcmp(end, ":V:0"))
        return (int)n;
    if (end[0] == ':' && strchr("vVasdt", end[1]))
        return -2;
    return -1;
}

/* Puts the nodes in an order where each node's inputs come first (a cycle
 * is an error) and renumbers the links. */
static int sort_nodes(parser *p)
{
    clv_graph_desc *d = p->desc;
    int order[CLV_GRAPH_NODES], done[CLV_GRAPH_NODES] = {0}, count = 0;
    while (count < d->node_count) {
        int added = 0;
        for (int i = 0; i < d->node_count; i++) {
            if (done[i])
                continue;
            int ready = 1;
            for (int k = 0; k < d->node[i].input_count; k++)
                if (d->node[i].in[k].node >= 0 && !done[d->node[i].in[k].node])
                    ready = 0;
            if (ready) {
                done[i] = 1;
                order[count++] = i;
                added = 1;
            }
        }
        if (!added) {
            for (int i = 0; i < d->node_count; i++)
                if (!done[i]) {
                    char w[160];
                    return fail_at(p, d->node[i].at, CLV_EPARSE,
                                   "graph: a cycle: %s is fed, through its inputs, by its own "
                                   "output",
                                   where(p, i, w, sizeof w));
                }
        }
    }
    int rank[CLV_GRAPH_NODES];
    for (int i = 0; i < count; i++)
        rank[order[i]] = i;
    struct clv__graph_node *sorted = malloc(sizeof d->node);
    if (!sorted)
        return clv__fail(p->msg, CLV_ENOMEM, "out of memory");
    for (int i = 0; i < count; i++) {
        sorted[i] = d->node[order[i]];
        for (int k = 0; k < sorted[i].input_count; k++)
            if (sorted[i].in[k].node >= 0)
                sorted[i].in[k].node = rank[sorted[i].in[k].node];
    }
    memcpy(d->node, sorted, (size_t)count * sizeof *sorted);
    free(sorted);
    d->output.node = rank[d->output.node];
    return 0;
}

/* The open pads bound as ffmpeg's command line binds them: a labelled
 * input to that input index, an unlabelled one to the first input no
 * label names; the one open output is the graph's. */
static int bind_pads(parser *p, int input_count, const char *output)
{
    clv_graph_desc *d = p->desc;
    int used[CLV_GRAPH_INPUTS] = {0};
    for (int k = 0; k < p->open_in.count; k++) {
        const inout *io = &p->open_in.item[k];
        int n = io->name[0] ? input_spec(io->name) : -1;
        if (n >= 0 && n < input_count && n < CLV_GRAPH_INPUTS)
            used[n] = 1;
    }
    char w[160];
    for (int k = 0; k < p->open_in.count; k++) {
        const inout *io = &p->open_in.item[k];
        where(p, io->node, w, sizeof w);
        int n;
        if (!io->name[0]) {
            for (n = 0; n < input_count && used[n]; n++)
                ;
            if (n >= input_count)
                return fail_at(p, io->at, CLV_EPARSE,
                               "graph: input %d of %s is not connected: no label names it and "
                               "every one of the %d input%s is taken (give a label: \"[0]\")",
                               io->pad, w, input_count, input_count == 1 ? "" : "s");
            used[n] = 1;
        } else {
            n = input_spec(io->name);
            int given = 0;
            for (int g = 0; g < p->given_count; g++)
                given |= !strcmp(p->given[g], io->name);
            if (n == -1 && given)
                return fail_at(p, io->at, CLV_EPARSE,
                               "graph: the label '[%s]' (at character %d) is read twice; an "
                               "output goes to one input (split it: \"split[a][b]\")",
                               io->name, io->at);
            if (n == -1)
                return fail_at(p, io->at, CLV_EPARSE,
                               "graph: unknown label '[%s]' at character %d (input %d of %s): no "
                               "output has it, and it is no input (\"[0]\", \"[1:v]\")",
                               io->name, io->at, io->pad, w);
            if (n == -2)
                return fail_at(p, io->at, CLV_EPARSE,
                               "graph: '[%s]' at character %d: a graph takes the video of its "
                               "inputs (\"[N]\", \"[N:v]\" or \"[N:v:0]\")",
                               io->name, io->at);
            if (n >= input_count)
                return fail_at(p, io->at, CLV_EPARSE,
                               "graph: '[%s]' at character %d: there is no input %d (%d input%s, "
                               "from 0)",
                               io->name, io->at, n, input_count, input_count == 1 ? "" : "s");
        }
        d->node[io->node].in[io->pad] = (clv__graph_link){-1, n};
    }
    /* The output labelled `output`; without one, the unlabelled output
     * (else the one there is). */
    int chosen = -1;
    for (int k = 0; k < p->open_out.count && chosen < 0; k++)
        if (output ? !strcmp(p->open_out.item[k].name, output) : !p->open_out.item[k].name[0])
            chosen = k;
    if (!output && chosen < 0 && p->open_out.count)
        chosen = 0;
    if (output && chosen < 0)
        return fail_at(p, (int)strlen(p->text), CLV_EPARSE,
                       "graph: no output is labelled '[%s]' (the output to take)", output);
    for (int k = 0; k < p->open_out.count; k++) {
        const inout *io = &p->open_out.item[k];
        if (k == chosen)
            continue;
        where(p, io->node, w, sizeof w);
        const inout *c = &p->open_out.item[chosen];
        if (io->name[0] && !output)
            return fail_at(p, io->at, CLV_EPARSE,
                           "graph: more than one output: '[%s]' at character %d (output %d of "
                           "%s) is not used, besides output %d of filter #%d",
                           io->name, io->at, io->pad, w, c->pad, d->node[c->node].place + 1);
        if (io->name[0])
            return fail_at(p, io->at, CLV_EPARSE,
                           "graph: the label '[%s]' at character %d (output %d of %s) is not "
                           "used: a graph has one output ('[%s]')",
                           io->name, io->at, io->pad, w, output);
        return fail_at(p, io->at, CLV_EPARSE,
                       "graph: more than one output: output %d of %s is not connected", io->pad, w);
    }
    if (chosen < 0) {
        /* Every output feeds a filter: a cycle ("[0][a]hstack[b];[b]hflip[a]")
         * is the news, where there is one. */
        int err = sort_nodes(p);
        return err ? err : fail_at(p, (int)strlen(p->text), CLV_EPARSE, "graph: it has no output");
    }
    d->output = (clv__graph_link){p->open_out.item[chosen].node, p->open_out.item[chosen].pad};
    return 0;
}

static int parse_graph(parser *p, int input_count, const char *output)
{
    clv_graph_desc *d = p->desc;
    const char *s = skip(p->text);
    if (!*s)
        return fail_at(p, 0, CLV_EPARSE, "graph: the text is empty");
    int index = 0, err;
    char chr;
    do {
        s = skip(s);
        if ((err = parse_inputs(p, &s)))
            return err;
        if (d->node_count == CLV_GRAPH_NODES)
            return fail_at(p, (int)(s - p->text), CLV_EPARSE,
                           "graph: more than %d filters (at character %d)", CLV_GRAPH_NODES,
                           (int)(s - p->text));
        struct clv__graph_node *n = &d->node[d->node_count];
        const char *at = s;
        const char *name_at = skip(s);
        if ((err = clv__filter_parse(&s, 1, &n->filter, n->values, n->enable, &at, p->msg))) {
            /* The filter's own message, then its place. */
            if (p->msg) {
                char inner[sizeof p->msg->text];
                snprintf(inner, sizeof inner, "%s", p->msg->text);
                snprintf(p->msg->text, sizeof p->msg->text,
                         "graph: filter #%d at character %d: %.900s", index + 1,
                         (int)(name_at - p->text), inner);
                clv__add_excerpt(p->msg, p->text, (size_t)(at - p->text));
            }
            return err == CLV_ENOMEM ? err : CLV_EPARSE; /* a value out of range too */
        }
        n->place = index;
        n->at = (int)(name_at - p->text);
        n->input_count = clv__filter_inputs(n->filter, n->values);
        n->output_count = clv__filter_outputs(n->filter, n->values);
        for (int k = 0; k < n->input_count; k++)
            n->in[k] = (clv__graph_link){-1, -1};
        d->node_count++;
        if ((err = link_node(p, d->node_count - 1)))
            return err;
        s = skip(s);
        if ((err = parse_outputs(p, &s, d->node_count - 1)))
            return err;
        s = skip(s);
        chr = *s;
        if (chr)
            s++;
        if (chr == ';') {
            for (int i = 0; i < p->curr.count; i++)
                push(&p->open_out, &p->curr.item[i]);
            p->curr.count = 0;
        }
        index++;
    } while (chr == ',' || chr == ';');
    if (chr)
        return fail_at(p, (int)(s - 1 - p->text), CLV_EPARSE,
                       "graph: unexpected '%c' at character %d (filters are separated by ',' "
                       "and chains by ';')",
                       chr, (int)(s - 1 - p->text));
    for (int i = 0; i < p->curr.count; i++)
        push(&p->open_out, &p->curr.item[i]);
    p->curr.count = 0;
    if ((err = bind_pads(p, input_count, output)))
        return err;
    return sort_nodes(p);
}

/* The pixel formats each node's frames carry (fmts[i], NULL: none): a
 * format's own, handed on by the filters that change no pixel and by
 * split. Another filter after one is CLV_EPARSE, shown at it (p may be
 * NULL: no check). */
static int node_formats(const clv_graph_desc *d, const char **fmts, parser *p)
{
    for (int i = 0; i < d->node_count; i++) {
        const struct clv__graph_node *node = &d->node[i];
        const clv_filter *f = node->filter;
        const char *got = NULL;
        for (int k = 0; k < node->input_count; k++)
            if (node->in[k].node >= 0 && fmts[node->in[k].node])
                got = fmts[node->in[k].node];
        int split = f->outputs_param && !f->run;
        clv_msg why = {{0}};
        if (p && !split && clv__format_last(f, node->place, got, "graph", &why))
            return fail_at(p, node->at, CLV_EPARSE, "graph: %.900s", why.text);
        fmts[i] = f->sets_format       ? clv_value_text(&node->values[0])
                  : split || f->passes ? got
                                       : NULL;
    }
    return 0;
}

const char *clv_graph_desc_pix_fmts(const clv_graph_desc *desc)
{
    const char *fmts[CLV_GRAPH_NODES];
    node_formats(desc, fmts, NULL);
    return desc->node_count ? fmts[desc->output.node] : NULL;
}

int clv_graph_parse(const char *text, int input_count, const char *output, clv_graph_desc **out,
                    clv_msg *msg)
{
    *out = NULL;
    if (!text)
        return clv__fail(msg, CLV_EINVAL, "graph: no text");
    if (input_count < 1 || input_count > CLV_GRAPH_INPUTS)
        return clv__fail(msg, CLV_EINVAL, "graph: %d inputs; a graph takes 1 to %d", input_count,
                         CLV_GRAPH_INPUTS);
    parser *p = calloc(1, sizeof *p);
    clv_graph_desc *d = calloc(1, sizeof *d);
    if (!p || !d) {
        free(p);
        free(d);
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    }
    p->text = text;
    p->desc = d;
    p->msg = msg;
    d->input_count = input_count;
    int err = parse_graph(p, input_count, output);
    if (!err) {
        /* A filter that holds frames back runs in a chain alone. */
        clv_chain_desc *chain = clv_graph_desc_chain(d);
        for (int i = 0; !chain && i < d->node_count; i++)
            if (d->node[i].filter->cadence) {
                char w[160];
                where(p, i, w, sizeof w);
                err = fail_at(p, d->node[i].at, CLV_EPARSE,
                              "graph: %s holds frames back: it runs in a graph that is one chain "
                              "only (-vf)",
                              w);
            }
        clv_chain_desc_destroy(chain);
    }
    if (!err) {
        const char *fmts[CLV_GRAPH_NODES];
        err = node_formats(d, fmts, p);
    }
    free(p);
    if (err) {
        free(d);
        return err;
    }
    *out = d;
    return 0;
}

void clv_graph_desc_destroy(clv_graph_desc *desc)
{
    free(desc);
}

clv_graph_desc *clv_graph_desc_copy(const clv_graph_desc *desc)
{
    clv_graph_desc *copy = malloc(sizeof *copy);
    if (copy)
        *copy = *desc;
    return copy;
}

int clv_graph_desc_inputs(const clv_graph_desc *desc)
{
    return desc->input_count;
}

int clv_graph_desc_uses(const clv_graph_desc *desc, int index)
{
    for (int i = 0; i < desc->node_count; i++)
        for (int k = 0; k < desc->node[i].input_count; k++)
            if (desc->node[i].in[k].node < 0 && desc->node[i].in[k].pad == index)
                return 1;
    return 0;
}

clv_chain_desc *clv_graph_desc_chain(const clv_graph_desc *desc)
{
    int n = desc->node_count;
    if (n > CLV_CHAIN_MAX || desc->output.node != n - 1 || desc->output.pad != 0)
        return NULL;
    for (int i = 0; i < n; i++) {
        const struct clv__graph_node *node = &desc->node[i];
        clv__graph_link want = {i - 1, 0};
        if (i == 0)
            want.node = -1;
        if (node->input_count != 1 || node->output_count != 1 || node->filter->outputs_param ||
            node->filter->inputs_param || node->filter->inputs > 1 || node->filter->outputs > 1 ||
            node->filter->output_size_n || node->in[0].node != want.node ||
            node->in[0].pad != want.pad)
            return NULL;
    }
    clv_chain_desc *chain = calloc(1, sizeof *chain);
    if (!chain)
        return NULL;
    for (int i = 0; i < n; i++) {
        chain->item[i].filter = desc->node[i].filter;
        memcpy(chain->item[i].values, desc->node[i].values, sizeof chain->item[i].values);
    }
    chain->count = n;
    return chain;
}

void clv_graph_format(const clv_graph_desc *desc, char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < desc->node_count && n < size; i++) {
        const struct clv__graph_node *node = &desc->node[i];
        if (i)
            n += (size_t)snprintf(out + n, size - n, ";");
        for (int k = 0; k < node->input_count && n < size; k++) {
            if (node->in[k].node < 0)
                n += (size_t)snprintf(out + n, size - n, "[%d]", node->in[k].pad);
            else
                n += (size_t)snprintf(out + n, size - n, "[n%dp%d]", node->in[k].node,
                                      node->in[k].pad);
        }
        if (n < size)
            n += clv__filter_format(node->filter, node->values, out + n, size - n);
        if (n < size && node->enable[0])
            n += (size_t)snprintf(out + n, size - n, "%cenable='%s'",
                                  clv__filter_format_sep(node->filter), node->enable);
        for (int k = 0; k < node->output_count && n < size; k++)
            if (desc->output.node != i || desc->output.pad != k)
                n += (size_t)snprintf(out + n, size - n, "[n%dp%d]", i, k);
    }
}

/* The sizes out of every node (size[i][pad]) for inputs of in[]; msg
 * names the node at fault. */
static int node_sizes(const clv_graph_desc *desc, const clv_size *in,
                      clv_size (*size)[CLV_GRAPH_PADS], clv_msg *msg)
{
    for (int i = 0; i < desc->node_count; i++) {
        const struct clv__graph_node *node = &desc->node[i];
        clv_size got[CLV_GRAPH_PADS];
        for (int k = 0; k < node->input_count; k++) {
            clv__graph_link l = node->in[k];
            got[k] = l.node < 0 ? in[l.pad] : size[l.node][l.pad];
        }
        const clv_filter *f = node->filter;
        int err;
        if (!f->output_size_n) {
            if ((err = clv__filter_output_size_in(f, node->values, node->place, "graph", &got[0],
                                                  &size[i][0], msg)))
                return err;
            for (int k = 1; k < node->output_count; k++)
                size[i][k] = size[i][0];
            continue;
        }
        char list[CLV_GRAPH_PADS * 24] = "";
        for (int k = 0; k < node->input_count; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%dx%d", k ? ", " : "",
                     got[k].width, got[k].height);
        clv_msg why = {{0}};
        size[i][0] = got[0];
        if ((err = f->output_size_n(node->values, got, node->input_count, &size[i][0], &why)))
            return clv__fail(msg, err, "filter '%s' (#%d in the graph) on inputs of %s: %s",
                             f->name, node->place + 1, list, why.text);
        const clv_size *o = &size[i][0];
        if (o->width < 1 || o->height < 1 || o->width > CLV__SIDE_MAX || o->height > CLV__SIDE_MAX)
            return clv__fail(msg, CLV_ERANGE,
                             "filter '%s' (#%d in the graph) makes %dx%d frames of inputs of %s: "
                             "each side must be from 1 to %d",
                             f->name, node->place + 1, o->width, o->height, list, CLV__SIDE_MAX);
    }
    return 0;
}

int clv__graph_sizes(const clv_graph_desc *desc, const clv_size *in,
                     clv_size (*size)[CLV_GRAPH_PADS], clv_msg *msg)
{
    for (int k = 0; k < desc->input_count; k++)
        if (clv_graph_desc_uses(desc, k) &&
            (in[k].width < 1 || in[k].height < 1 || in[k].width > CLV__SIDE_MAX ||
             in[k].height > CLV__SIDE_MAX))
            return clv__fail(msg, CLV_ERANGE,
                             "graph: input %d is %dx%d: each side must be from 1 to %d", k,
                             in[k].width, in[k].height, CLV__SIDE_MAX);
    return node_sizes(desc, in, size, msg);
}

int clv_graph_desc_output_size(const clv_graph_desc *desc, const clv_size *in, clv_size *out,
                               clv_msg *msg)
{
    clv_size(*size)[CLV_GRAPH_PADS] = malloc(CLV_GRAPH_NODES * sizeof *size);
    if (!size)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    int err = clv__graph_sizes(desc, in, size, msg);
    if (!err)
        *out = size[desc->output.node][desc->output.pad];
    free(size);
    return err;
}

int clv_graph_desc_deep(const clv_graph_desc *desc, clv_msg *msg)
{
    for (int i = 0; i < desc->node_count; i++)
        if (!desc->node[i].filter->deep)
            return clv__fail(msg, CLV_EDEPTH,
                             "filter '%s' (#%d in the graph) runs at 8 bits only: the graph "
                             "cannot run on frames of 16 bits a channel",
                             desc->node[i].filter->name, desc->node[i].place + 1);
    return 0;
}

int clv_graph_desc_files(const clv_graph_desc *desc, const char **files, int max)
{
    int n = 0;
    for (int i = 0; i < desc->node_count; i++) {
        const clv_filter *f = desc->node[i].filter;
        const char *kernel = clv_filter_file(f);
        if (kernel && n++ < max)
            files[n - 1] = kernel;
        for (int j = 0; j < f->param_count; j++) {
            const char *name = clv_value_text(&desc->node[i].values[j]);
            if (f->params[j].type == CLV_PARAM_FILE && *name && n++ < max)
                files[n - 1] = name;
        }
    }
    return n;
}

/* ---- Timing ----------------------------------------------------------- */

/* The timing of a path from the input to where the walk is: the input's
 * time 0 and the times it drives and is read at, on the timeline of the
 * link reached; eof -1 while its end still ends what it drives. */
typedef struct sync_acc {
    double offset, drive_from, drive_until, from, until;
    int eof, wait_first;
    /* The end of the first filter of several inputs reached on its first
     * pad (its eof_action; -1: none yet): what this input's end does when
     * it is not the graph's input 0, whose frames are the output's ([1][0]
     * hstack: input 1's last frame repeats, as in ffmpeg's stacks). */
    int eof0;
} sync_acc;

typedef struct sync_walk {
    sync_acc found[64];
    int count;
    /* Links walked: splits into stacks can make 2^32 paths of 64 nodes;
     * past this the walk stops (the paths found so far decide). */
    int visits;
} sync_walk;

static void walk(const clv_graph_desc *desc, clv__graph_link at, sync_acc acc, sync_walk *w,
                 int depth)
{
    if (depth > CLV_GRAPH_NODES || ++w->visits > 100000)
        return;
    if (at.node == desc->output.node && at.pad == desc->output.pad && at.node >= 0) {
        if (w->count < 64)
            w->found[w->count++] = acc;
        return;
    }
    for (int i = 0; i < desc->node_count; i++) {
        const struct clv__graph_node *node = &desc->node[i];
        for (int p = 0; p < node->input_count; p++) {
            if (node->in[p].node != at.node || node->in[p].pad != at.pad)
                continue;
            sync_acc next = acc;
            if (node->input_count > 1) {
                const clv_filter *f = node->filter;
                double o = 0, df = 0, du = p == 0 ? INFINITY : 0, fr = 0, un = INFINITY;
                if (f->timing)
                    f->timing(node->values, p, &o, &df, &du, &fr, &un);
                next.offset = acc.offset + o;
                next.drive_from = fmax(o + acc.drive_from, df);
                next.drive_until = fmin(o + acc.drive_until, du);
                if (next.drive_until <= next.drive_from)
                    next.drive_from = next.drive_until = 0;
                next.from = fmax(o + acc.from, fr);
                next.until = fmin(o + acc.until, un);
                if (acc.eof < 0 && p > 0)
                    next.eof = f->eof_action ? (int)f->eof_action(node->values) : CLV_EOF_REPEAT;
                else if (acc.eof < 0 && !isinf(du))
                    next.eof = CLV_EOF_REPEAT;
                if (acc.eof < 0 && p == 0 && acc.eof0 < 0)
                    next.eof0 = f->eof_action ? (int)f->eof_action(node->values) : CLV_EOF_REPEAT;
                next.wait_first = acc.wait_first && (p == 0 || f->wait_first);
            }
            for (int k = 0; k < node->output_count; k++)
                walk(desc, (clv__graph_link){i, k}, next, w, depth + 1);
        }
    }
}

int clv_graph_desc_sync(const clv_graph_desc *desc, int index, clv_graph_sync *out)
{
    if (index < 0 || index >= desc->input_count || !clv_graph_desc_uses(desc, index))
        return CLV_EINVAL;
    sync_walk *w = calloc(1, sizeof *w);
    if (!w)
        return CLV_ENOMEM;
    sync_acc start = {0, 0, INFINITY, 0, INFINITY, -1, 1, -1};
    walk(desc, (clv__graph_link){-1, index}, start, w, 0);
    if (!w->count) {
        free(w);
        return CLV_EINVAL;
    }
    /* Several paths (a split): the first's offset, the hull of the times,
     * the strongest end (endall, then repeat, then pass). */
    clv_graph_sync s = {w->found[0].offset, 0, 0, INFINITY, -INFINITY, CLV_EOF_PASS, 0};
    int drives = 0;
    for (int k = 0; k < w->count; k++) {
        const sync_acc *a = &w->found[k];
        if (a->drive_until > a->drive_from) {
            s.drive_from = drives ? fmin(s.drive_from, a->drive_from) : a->drive_from;
            s.drive_until = drives ? fmax(s.drive_until, a->drive_until) : a->drive_until;
            drives = 1;
        }
        s.from = fmin(s.from, a->from);
        s.until = fmax(s.until, a->until);
        /* A path on which it is first everywhere: input 0 ends the output;
         * another input's end does what the first filter it reaches does
         * (or ends the output when it reaches none). */
        int eof = a->eof >= 0 ? a->eof : index > 0 && a->eof0 >= 0 ? a->eof0 : CLV_EOF_ENDALL;
        if (eof == CLV_EOF_ENDALL || (eof == CLV_EOF_REPEAT && s.eof_action == CLV_EOF_PASS))
            s.eof_action = (clv_eof_action)eof;
        s.wait_first |= a->wait_first;
    }
    free(w);
    /* No filter hands the timeline over (xfade): input 0's frames are the
     * output's wherever it stands in the graph ([1][0]hstack too). */
    int handover = 0;
    for (int i = 0; i < desc->node_count; i++)
        handover |= desc->node[i].filter->timing != NULL;
    if (!handover) {
        s.drive_from = 0;
        s.drive_until = index == 0 ? INFINITY : 0;
    }
    *out = s;
    return 0;
}
