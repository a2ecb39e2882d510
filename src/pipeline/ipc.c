/* ipc.c - the control socket's server (ipc.h): a poll() thread over a Unix
 * socket, a strict JSON reader for the requests' one shape, the command
 * table, and the queue of checked commands the run takes between frames. */
#define _GNU_SOURCE /* accept4, pipe2, SO_PEERCRED */
#include "ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* A client that reads nothing while its replies and events pile up beyond
 * this is dropped rather than let the run's memory grow. */
#define OUT_MAX (8u << 20)
/* A client's commands waiting for the run at most: one more is answered
 * with an error, not queued, so that a client sending faster than the run
 * takes them neither stalls the run nor grows its memory. */
#define PENDING_MAX 64

typedef struct client {
    int fd; /* -1: the slot is free */
    uint64_t id;
    char *in; /* the line being read: CLV_IPC_LINE_MAX + 1 bytes */
    size_t in_len;
    int discarding; /* a line too long: thrown away up to its newline */
    int eof;        /* the client shut its side: answered, then closed */
    int pending;    /* its commands queued or with the run */
    char *out;      /* replies and events not yet written */
    size_t out_len, out_cap;
    int dropped; /* fell OUT_MAX behind: closed on the thread's next pass */
} client;

struct clv_ipc {
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    dev_t dev; /* the socket made, removed at the end only while it is still there */
    ino_t ino;
    int listen_fd;
    int wake[2]; /* the run wakes the thread when it has written for a client */
    const char *run_name;
    unsigned verbs;
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock;
    /* Guarded by lock: */
    client clients[CLV_IPC_CLIENTS];
    uint64_t next_client;
    clv_ipc_request *queue, *queue_tail;
    int stop; /* clv_ipc_close: write what is left, then end */
    double stop_deadline;
};

static const struct command {
    const char *name;
    int min, max; /* arguments */
    const char *usage;
} commands[CLV_IPC_VERBS] = {
    [CLV_IPC_SET_CHAIN] = {"set_chain", 1, 1, "set_chain CHAIN"},
    [CLV_IPC_SET_PARAM] = {"set_param", 3, 3, "set_param INDEX NAME VALUE"},
    [CLV_IPC_GET] = {"get", 1, 1, "get stats|chain|filters|devices"},
    [CLV_IPC_SCREENSHOT] = {"screenshot", 1, 1, "screenshot PATH"},
    [CLV_IPC_PAUSE] = {"pause", 0, 0, "pause"},
    [CLV_IPC_RESUME] = {"resume", 0, 0, "resume"},
    [CLV_IPC_SEEK] = {"seek", 1, 2, "seek SECONDS [relative|absolute]"},
    [CLV_IPC_QUIT] = {"quit", 0, 0, "quit"},
};

static const char *const whats[] = {"stats", "chain", "filters", "devices"};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- Writing JSON -------------------------------------------------------- */

static int json_room(clv_json *j, size_t more)
{
    if (j->len + more + 1 <= j->cap)
        return 1;
    size_t cap = j->cap ? j->cap : 256;
    while (cap < j->len + more + 1)
        cap *= 2;
    char *t = realloc(j->text, cap);
    if (!t)
        return 0;
    j->text = t;
    j->cap = cap;
    return 1;
}

void clv_json_add(clv_json *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !json_room(j, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(j->text + j->len, j->cap - j->len, fmt, ap);
    va_end(ap);
    j->len += (size_t)n;
}

void clv_json_string(clv_json *j, const char *text)
{
    clv_json_add(j, "\"");
    for (const unsigned char *c = (const unsigned char *)text; c && *c; c++) {
        if (*c == '"' || *c == '\\')
            clv_json_add(j, "\\%c", *c);
        else if (*c == '\n')
            clv_json_add(j, "\\n");
        else if (*c == '\t')
            clv_json_add(j, "\\t");
        else if (*c < 0x20 || *c == 0x7f)
            clv_json_add(j, "\\u%04x", *c);
        else
            clv_json_add(j, "%c", *c);
    }
    clv_json_add(j, "\"");
}

void clv_json_free(clv_json *j)
{
    free(j->text);
    j->text = NULL;
    j->len = j->cap = 0;
}

static const char *param_type_name(enum clv_param_type t)
{
    static const char *const names[] = {"int",   "real",  "enum", "matrix", "expr",
                                        "color", "flags", "text", "file"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "other";
}

void clv_ipc_filters_json(clv_json *j)
{
    clv_json_add(j, "[");
    for (int i = 0; i < clv_filter_count(); i++) {
        const clv_filter *f = clv_filter_at(i);
        clv_json_add(j, "%s{\"name\":", i ? "," : "");
        clv_json_string(j, clv_filter_name(f));
        clv_json_add(j, ",\"help\":");
        clv_json_string(j, clv_filter_help(f));
        clv_json_add(j, ",\"deep\":%s,\"temporal\":%s,\"params\":[",
                     clv_filter_deep(f) ? "true" : "false",
                     clv_filter_temporal(f) ? "true" : "false");
        for (int k = 0; k < clv_filter_param_count(f); k++) {
            const clv_param *p = clv_filter_param(f, k);
            clv_json_add(j, "%s{\"name\":", k ? "," : "");
            clv_json_string(j, p->name);
            clv_json_add(j, ",\"type\":\"%s\",\"default\":", param_type_name(p->type));
            clv_json_string(j, p->def);
            if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_REAL ||
                p->type == CLV_PARAM_MATRIX)
                clv_json_add(j, ",\"min\":%.17g,\"max\":%.17g", p->min, p->max);
            if (p->type == CLV_PARAM_ENUM || p->type == CLV_PARAM_FLAGS) {
                clv_json_add(j, ",\"choices\":");
                clv_json_string(j, p->choices);
            }
            clv_json_add(j, ",\"help\":");
            clv_json_string(j, p->help);
            clv_json_add(j, "}");
        }
        clv_json_add(j, "]}");
    }
    clv_json_add(j, "]");
}

void clv_ipc_devices_json(clv_json *j, const clv_context *ctx)
{
    clv_device_info *list = NULL;
    clv_msg msg = {{0}};
    int count = clv_device_list(&list, &msg);
    clv_json_add(j, "[");
    for (int i = 0; i < count; i++) {
        int used = 0;
        for (int d = 0; ctx && d < clv_context_device_count(ctx); d++)
            used |= clv_context_device_at(ctx, d)->index == list[i].index;
        clv_json_add(j, "%s{\"index\":%d,\"name\":", i ? "," : "", list[i].index);
        clv_json_string(j, list[i].name);
        clv_json_add(j, ",\"platform\":");
        clv_json_string(j, list[i].platform);
        clv_json_add(j, ",\"type\":\"%s\",\"in_use\":%s}",
                     list[i].is_gpu   ? "gpu"
                     : list[i].is_cpu ? "cpu"
                                      : "other",
                     used ? "true" : "false");
    }
    clv_json_add(j, "]");
    free(list);
}

/* ---- Reading a request --------------------------------------------------- */

/* A request's line: one JSON object whose "command" is an array of strings
 * and numbers and whose "request_id", if any, an integer; other members
 * are read (they must be JSON) and ignored, as mpv does. */
typedef struct reader {
    const char *s;
    size_t n, pos;
    char error[300];
    /* What the line says: */
    char *words; /* the command's words, NUL after each */
    size_t words_len;
    const char *word[8];
    int word_count, has_command;
    int64_t request_id;
    int has_request_id;
} reader;

#define JSON_DEPTH 64

static int fail_at(reader *r, const char *what)
{
    if (!r->error[0])
        snprintf(r->error, sizeof r->error, "malformed JSON at byte %zu: %s", r->pos + 1, what);
    return -1;
}

static void skip_space(reader *r)
{
    while (r->pos < r->n && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' || r->s[r->pos] == '\n' ||
                             r->s[r->pos] == '\r'))
        r->pos++;
}

static int hex4(reader *r, unsigned *out)
{
    if (r->n - r->pos < 4)
        return fail_at(r, "\\u needs four hex digits");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = r->s[r->pos + i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return fail_at(r, "\\u needs four hex digits");
        v = v * 16 + (unsigned)d;
    }
    r->pos += 4;
    *out = v;
    return 0;
}

/* The length of the UTF-8 sequence at s (n bytes left), 0 when invalid
 * (overlong, a surrogate, beyond U+10FFFF, cut short). */
static int utf8_length(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    int len = c < 0x80             ? 1
              : (c & 0xe0) == 0xc0 ? 2
              : (c & 0xf0) == 0xe0 ? 3
              : (c & 0xf8) == 0xf0 ? 4
                                   : 0;
    if (!len || (size_t)len > n)
        return 0;
    unsigned cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

static void put_utf8(char *out, size_t *len, unsigned cp)
{
    if (cp < 0x80) {
        out[(*len)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*len)++] = (char)(0xc0 | cp >> 6);
        out[(*len)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out[(*len)++] = (char)(0xe0 | cp >> 12);
        out[(*len)++] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[(*len)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*len)++] = (char)(0xf0 | cp >> 18);
        out[(*len)++] = (char)(0x80 | (cp >> 12 & 0x3f));
        out[(*len)++] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[(*len)++] = (char)(0x80 | (cp & 0x3f));
    }
}

/* A string at pos (its opening quote), decoded into out at *len (NULL:
 * only checked). Decoding never makes it longer than it is written. */
static int read_string(reader *r, char *out, size_t *len)
{
    r->pos++;
    for (;;) {
        if (r->pos >= r->n)
            return fail_at(r, "a string without its closing quote");
        unsigned char c = (unsigned char)r->s[r->pos];
        if (c == '"') {
            r->pos++;
            return 0;
        }
        if (c < 0x20)
            return fail_at(r, "a control character in a string (escape it)");
        if (c != '\\') {
            int l = utf8_length((const unsigned char *)r->s + r->pos, r->n - r->pos);
            if (!l)
                return fail_at(r, "a string that is not UTF-8");
            if (out)
                memcpy(out + *len, r->s + r->pos, (size_t)l), *len += (size_t)l;
            r->pos += (size_t)l;
            continue;
        }
        if (++r->pos >= r->n)
            return fail_at(r, "a string without its closing quote");
        char e = r->s[r->pos++];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            if (out)
                out[(*len)++] = decoded[simple - "\"\\/bfnrt"];
            continue;
        }
        if (e != 'u') {
            r->pos--;
            return fail_at(r, "an unknown escape in a string");
        }
        unsigned cp;
        if (hex4(r, &cp))
            return -1;
        if (cp >= 0xdc00 && cp <= 0xdfff)
            return fail_at(r, "a lone low surrogate (\\uDC00-\\uDFFF)");
        if (cp >= 0xd800 && cp <= 0xdbff) {
            unsigned low;
            if (r->n - r->pos < 2 || r->s[r->pos] != '\\' || r->s[r->pos + 1] != 'u')
                return fail_at(r, "a high surrogate without its low one");
            r->pos += 2;
            if (hex4(r, &low))
                return -1;
            if (low < 0xdc00 || low > 0xdfff)
                return fail_at(r, "a high surrogate without its low one");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        if (cp == 0)
            return fail_at(r, "\\u0000 in a string");
        if (out)
            put_utf8(out, len, cp);
    }
}

/* A number at pos, as JSON writes them; *start and *len give its text. */
static int read_number(reader *r, const char **start, size_t *len)
{
    size_t p = r->pos;
    const char *s = r->s;
#define DIGIT(i) ((i) < r->n && s[i] >= '0' && s[i] <= '9')
    if (p < r->n && s[p] == '-')
        p++;
    if (!DIGIT(p))
        return fail_at(r, "expected a value");
    if (s[p] == '0')
        p++;
    else
        while (DIGIT(p))
            p++;
    if (p < r->n && s[p] == '.') {
        if (!DIGIT(p + 1)) {
            r->pos = p + 1;
            return fail_at(r, "a digit after the decimal point");
        }
        for (p++; DIGIT(p); p++)
            ;
    }
    if (p < r->n && (s[p] == 'e' || s[p] == 'E')) {
        p++;
        if (p < r->n && (s[p] == '+' || s[p] == '-'))
            p++;
        if (!DIGIT(p)) {
            r->pos = p;
            return fail_at(r, "a digit in the exponent");
        }
        while (DIGIT(p))
            p++;
    }
#undef DIGIT
    *start = s + r->pos;
    *len = p - r->pos;
    r->pos = p;
    return 0;
}

static int read_literal(reader *r, const char *word)
{
    size_t l = strlen(word);
    if (r->n - r->pos < l || memcmp(r->s + r->pos, word, l))
        return fail_at(r, "expected a value");
    r->pos += l;
    return 0;
}

static int read_value(reader *r, int depth);

static int read_array(reader *r, int depth)
{
    r->pos++;
    skip_space(r);
    if (r->pos < r->n && r->s[r->pos] == ']') {
        r->pos++;
        return 0;
    }
    for (;;) {
        if (read_value(r, depth + 1))
            return -1;
        skip_space(r);
        if (r->pos < r->n && r->s[r->pos] == ',') {
            r->pos++;
            continue;
        }
        if (r->pos < r->n && r->s[r->pos] == ']') {
            r->pos++;
            return 0;
        }
        return fail_at(r, "expected ',' or ']' in an array");
    }
}

/* An object's members; at depth 0 (the request) "command" and
 * "request_id" are taken. */
static int read_member_value(reader *r, const char *key, int depth);

static int read_object(reader *r, int depth)
{
    r->pos++;
    skip_space(r);
    if (r->pos < r->n && r->s[r->pos] == '}') {
        r->pos++;
        return 0;
    }
    for (;;) {
        skip_space(r);
        if (r->pos >= r->n || r->s[r->pos] != '"')
            return fail_at(r, "expected a member's name (a string) in an object");
        char key[16];
        size_t key_len = 0, at = r->pos;
        if (read_string(r, NULL, NULL))
            return -1;
        /* The keys that matter are short; a longer one is just skipped. */
        if (r->pos - at - 2 < sizeof key) {
            r->pos = at;
            read_string(r, key, &key_len);
            key[key_len] = 0;
        } else {
            key[0] = 0;
        }
        skip_space(r);
        if (r->pos >= r->n || r->s[r->pos] != ':')
            return fail_at(r, "expected ':' after a member's name");
        r->pos++;
        skip_space(r);
        if (read_member_value(r, depth == 0 ? key : NULL, depth))
            return -1;
        skip_space(r);
        if (r->pos < r->n && r->s[r->pos] == ',') {
            r->pos++;
            continue;
        }
        if (r->pos < r->n && r->s[r->pos] == '}') {
            r->pos++;
            return 0;
        }
        return fail_at(r, "expected ',' or '}' in an object");
    }
}

static int read_value(reader *r, int depth)
{
    if (depth > JSON_DEPTH)
        return fail_at(r, "nested deeper than 64");
    skip_space(r);
    if (r->pos >= r->n)
        return fail_at(r, "expected a value");
    const char *start;
    size_t len;
    switch (r->s[r->pos]) {
    case '{':
        return read_object(r, depth);
    case '[':
        return read_array(r, depth);
    case '"':
        return read_string(r, NULL, NULL);
    case 't':
        return read_literal(r, "true");
    case 'f':
        return read_literal(r, "false");
    case 'n':
        return read_literal(r, "null");
    default:
        return read_number(r, &start, &len);
    }
}

/* "command": ["name", "arg" or 1.5, ...] into r->words. */
static int read_command(reader *r, int depth)
{
    if (r->has_command)
        return fail_at(r, "\"command\" given twice");
    r->has_command = 1;
    if (r->s[r->pos] != '[') {
        snprintf(r->error, sizeof r->error,
                 "\"command\" must be an array of strings: [\"set_chain\", \"median\"]");
        return -1;
    }
    r->pos++;
    skip_space(r);
    if (r->pos < r->n && r->s[r->pos] == ']') {
        r->pos++;
        return 0;
    }
    for (;;) {
        skip_space(r);
        if (r->pos >= r->n)
            return fail_at(r, "expected a value");
        char c = r->s[r->pos];
        if (r->word_count == 8)
            return fail_at(r, "a command of more than 8 words");
        char *w = r->words + r->words_len;
        if (c == '"') {
            if (read_string(r, r->words, &r->words_len))
                return -1;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            const char *start;
            size_t len;
            if (read_number(r, &start, &len))
                return -1;
            memcpy(w, start, len);
            r->words_len += len;
        } else {
            size_t at = r->pos;
            if (read_value(r, depth + 1))
                return -1;
            snprintf(r->error, sizeof r->error,
                     "\"command\": word %d (byte %zu) is not a string or a number",
                     r->word_count + 1, at + 1);
            return -1;
        }
        r->words[r->words_len++] = 0;
        r->word[r->word_count++] = w;
        skip_space(r);
        if (r->pos < r->n && r->s[r->pos] == ',') {
            r->pos++;
            continue;
        }
        if (r->pos < r->n && r->s[r->pos] == ']') {
            r->pos++;
            return 0;
        }
        return fail_at(r, "expected ',' or ']' in an array");
    }
}

static int read_member_value(reader *r, const char *key, int depth)
{
    if (r->pos >= r->n)
        return fail_at(r, "expected a value");
    if (key && !strcmp(key, "command"))
        return read_command(r, depth);
    if (key && !strcmp(key, "request_id")) {
        const char *start;
        size_t len;
        char c = r->s[r->pos];
        if (c != '-' && (c < '0' || c > '9')) {
            if (read_value(r, depth + 1))
                return -1;
            snprintf(r->error, sizeof r->error, "\"request_id\" must be an integer");
            return -1;
        }
        if (read_number(r, &start, &len))
            return -1;
        char text[32];
        char *end;
        if (len >= sizeof text || memchr(start, '.', len) || memchr(start, 'e', len) ||
            memchr(start, 'E', len)) {
            snprintf(r->error, sizeof r->error,
                     "\"request_id\" must be an integer of at most 64 bits");
            return -1;
        }
        memcpy(text, start, len);
        text[len] = 0;
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (errno) {
            snprintf(r->error, sizeof r->error,
                     "\"request_id\" must be an integer of at most 64 bits");
            return -1;
        }
        r->request_id = v;
        r->has_request_id = 1;
        return 0;
    }
    return read_value(r, depth + 1);
}

/* Reads one line into r: 0, or -1 with r->error. */
static int read_request(reader *r)
{
    skip_space(r);
    if (r->pos >= r->n || r->s[r->pos] != '{') {
        if (r->pos < r->n)
            fail_at(r, "a request is one JSON object: {\"command\": [\"get\", \"stats\"]}");
        return -1;
    }
    if (read_object(r, 0))
        return -1;
    skip_space(r);
    if (r->pos < r->n)
        return fail_at(r, "text after the object (one request a line)");
    if (!r->has_command) {
        snprintf(r->error, sizeof r->error,
                 "no \"command\": a request is {\"command\": [\"NAME\", ARGS...]}");
        return -1;
    }
    if (!r->word_count) {
        snprintf(r->error, sizeof r->error, "\"command\" is empty");
        return -1;
    }
    return 0;
}

/* ---- The server's side of a client (the lock held) ----------------------- */

static void out_append(clv_ipc *ipc, client *c, const char *text, size_t len)
{
    (void)ipc;
    if (c->fd < 0 || c->dropped)
        return;
    if (c->out_len + len > OUT_MAX) {
        c->dropped = 1; /* not reading: let go rather than grow */
        return;
    }
    if (c->out_len + len > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 4096;
        while (cap < c->out_len + len)
            cap *= 2;
        char *o = realloc(c->out, cap);
        if (!o) {
            c->dropped = 1;
            return;
        }
        c->out = o;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, text, len);
    c->out_len += len;
}

static void wake(clv_ipc *ipc)
{
    char b = 1;
    if (write(ipc->wake[1], &b, 1) < 0) {
        /* full: the thread is already due to wake */
    }
}

/* {"error": ..., "data": ..., "request_id": N} to c. */
static void reply_to(clv_ipc *ipc, client *c, const char *error, const char *data,
                     int64_t request_id)
{
    clv_json j = {0};
    clv_json_add(&j, "{\"error\":");
    clv_json_string(&j, error ? error : "success");
    if (data)
        clv_json_add(&j, ",\"data\":%s", data);
    clv_json_add(&j, ",\"request_id\":%lld}\n", (long long)request_id);
    if (j.text)
        out_append(ipc, c, j.text, j.len);
    clv_json_free(&j);
}

static client *client_of(clv_ipc *ipc, uint64_t id)
{
    for (int i = 0; i < CLV_IPC_CLIENTS; i++)
        if (ipc->clients[i].fd >= 0 && ipc->clients[i].id == id)
            return &ipc->clients[i];
    return NULL;
}

static void close_client(client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c->out);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

static int parse_whole(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || v != v)
        return -1;
    *out = v;
    return 0;
}

/* Checks a command's words against the table; 0 with *req filled, or -1
 * with error. */
static int check_command(clv_ipc *ipc, reader *r, clv_ipc_request *req, char *error, size_t size)
{
    const char *name = r->word[0];
    int v = 0;
    while (v < CLV_IPC_VERBS && strcmp(commands[v].name, name))
        v++;
    if (v == CLV_IPC_VERBS) {
        snprintf(error, size,
                 "unknown command '%.100s' (commands: set_chain, set_param, get, screenshot, "
                 "pause, resume, seek, quit)",
                 name);
        return -1;
    }
    const struct command *c = &commands[v];
    int args = r->word_count - 1;
    if (!(ipc->verbs & CLV_IPC_VERB(v))) {
        snprintf(error, size, "%s: not available in %s", c->name, ipc->run_name);
        return -1;
    }
    if (args < c->min || args > c->max) {
        if (c->min == c->max)
            snprintf(error, size, "%s takes %d argument%s (%s); got %d", c->name, c->max,
                     c->max == 1 ? "" : "s", c->usage, args);
        else
            snprintf(error, size, "%s takes %d or %d arguments (%s); got %d", c->name, c->min,
                     c->max, c->usage, args);
        return -1;
    }
    req->verb = (clv_ipc_verb)v;
    for (int i = 0; i < args; i++)
        req->arg[i] = r->word[i + 1];
    if (v == CLV_IPC_GET) {
        int w = 0;
        while (w < 4 && strcmp(whats[w], req->arg[0]))
            w++;
        if (w == 4) {
            snprintf(error, size, "get %.100s: unknown (get stats, chain, filters or devices)",
                     req->arg[0]);
            return -1;
        }
        req->what = (clv_ipc_what)w;
    } else if (v == CLV_IPC_SET_PARAM) {
        char *end;
        errno = 0;
        long index = strtol(req->arg[0], &end, 10);
        if (end == req->arg[0] || *end || errno || index < 0 || index >= CLV_CHAIN_MAX) {
            snprintf(error, size,
                     "set_param: INDEX '%.50s' is not a filter's place in the chain (0, 1, ...)",
                     req->arg[0]);
            return -1;
        }
        req->index = (int)index;
    } else if (v == CLV_IPC_SEEK) {
        if (parse_whole(req->arg[0], &req->seconds)) {
            snprintf(error, size, "seek: '%.50s' is not a number of seconds", req->arg[0]);
            return -1;
        }
        if (args == 2 && strcmp(req->arg[1], "relative") && strcmp(req->arg[1], "absolute")) {
            snprintf(error, size, "seek: '%.50s': expected relative or absolute", req->arg[1]);
            return -1;
        }
        req->absolute = args == 2 && !strcmp(req->arg[1], "absolute");
    }
    return 0;
}

/* One line of client c: answered when malformed, else queued for the run. */
static void take_line(clv_ipc *ipc, client *c, const char *line, size_t len)
{
    if (len && line[len - 1] == '\r')
        len--;
    reader r = {.s = line, .n = len};
    skip_space(&r);
    if (r.pos == r.n)
        return; /* an empty line: nothing asked */
    r.pos = 0;
    char error[400];
    if (c->pending >= PENDING_MAX) {
        snprintf(error, sizeof error,
                 "%d commands of this client are waiting for the run: wait for their replies "
                 "(this one is not taken)",
                 PENDING_MAX);
        reply_to(ipc, c, error, NULL, 0);
        return;
    }
    clv_ipc_request *req = calloc(1, sizeof *req);
    char *words = malloc(len + 16);
    if (!req || !words) {
        reply_to(ipc, c, "out of memory", NULL, 0);
        free(req);
        free(words);
        return;
    }
    r.words = words;
    int bad = read_request(&r);
    if (bad)
        snprintf(error, sizeof error, "%s", r.error);
    else
        bad = check_command(ipc, &r, req, error, sizeof error);
    if (bad) {
        reply_to(ipc, c, error, NULL, r.has_request_id ? r.request_id : 0);
        free(req);
        free(words);
        return;
    }
    req->words = words;
    req->client = c->id;
    req->request_id = r.has_request_id ? r.request_id : 0;
    if (ipc->queue_tail)
        ipc->queue_tail->next = req;
    else
        ipc->queue = req;
    ipc->queue_tail = req;
    c->pending++;
}

/* Reads what c sent, at most one buffer a pass (a client that floods the
 * socket holds the lock no longer than that), and takes its complete
 * lines. 0, or -1 when it has gone. */
static int read_client(clv_ipc *ipc, client *c)
{
    char buf[16384];
    ssize_t n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    if (n == 0) {
        c->eof = 1; /* answered, then closed */
        return 0;
    }
    for (ssize_t i = 0; i < n; i++) {
        char ch = buf[i];
        if (ch == '\n') {
            if (!c->discarding)
                take_line(ipc, c, c->in, c->in_len);
            c->discarding = 0;
            c->in_len = 0;
            continue;
        }
        if (c->discarding)
            continue;
        if (c->in_len == CLV_IPC_LINE_MAX) {
            char error[100];
            snprintf(error, sizeof error, "a line longer than %d bytes: discarded",
                     CLV_IPC_LINE_MAX);
            reply_to(ipc, c, error, NULL, 0);
            c->discarding = 1;
            c->in_len = 0;
            continue;
        }
        c->in[c->in_len++] = ch;
    }
    return 0; /* the rest on the next pass: poll says it is there */
}

/* Writes what c has waiting. 0, or -1 when it has gone. */
static int write_client(client *c)
{
    while (c->out_len) {
        ssize_t n = send(c->fd, c->out, c->out_len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
        memmove(c->out, c->out + n, c->out_len - (size_t)n);
        c->out_len -= (size_t)n;
    }
    return 0;
}

static void accept_client(clv_ipc *ipc)
{
    int fd = accept4(ipc->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    /* The socket's mode keeps other users out; their root aside, a peer of
     * another user is refused all the same. */
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0 && cred.uid != geteuid() &&
        cred.uid != 0) {
        close(fd);
        return;
    }
    client *c = NULL;
    for (int i = 0; i < CLV_IPC_CLIENTS && !c; i++)
        if (ipc->clients[i].fd < 0)
            c = &ipc->clients[i];
    char *in = c ? malloc(CLV_IPC_LINE_MAX + 1) : NULL;
    if (!in) {
        static const char full[] = "{\"error\":\"too many clients\",\"request_id\":0}\n";
        if (send(fd, full, sizeof full - 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
            /* it is closed all the same */
        }
        close(fd);
        return;
    }
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->id = ++ipc->next_client;
    c->in = in;
}

static void *serve(void *arg)
{
    clv_ipc *ipc = arg;
    struct pollfd fds[2 + CLV_IPC_CLIENTS];
    int slot[2 + CLV_IPC_CLIENTS];
    pthread_mutex_lock(&ipc->lock);
    for (;;) {
        int n = 0, waiting = 0, listening = !ipc->stop;
        fds[n++] = (struct pollfd){.fd = ipc->wake[0], .events = POLLIN};
        if (listening)
            fds[n++] = (struct pollfd){.fd = ipc->listen_fd, .events = POLLIN};
        for (int i = 0; i < CLV_IPC_CLIENTS; i++) {
            client *c = &ipc->clients[i];
            if (c->fd < 0)
                continue;
            if (c->dropped || (c->eof && !c->pending && !c->out_len)) {
                close_client(c);
                continue;
            }
            short events = (short)((ipc->stop || c->eof ? 0 : POLLIN) | (c->out_len ? POLLOUT : 0));
            waiting += c->out_len > 0;
            slot[n] = i;
            fds[n++] = (struct pollfd){.fd = c->fd, .events = events};
        }
        if (ipc->stop && (!waiting || now_seconds() > ipc->stop_deadline))
            break;
        int timeout = ipc->stop ? 50 : -1;
        pthread_mutex_unlock(&ipc->lock);
        int ready = poll(fds, (nfds_t)n, timeout);
        pthread_mutex_lock(&ipc->lock);
        if (ready <= 0)
            continue;
        if (fds[0].revents) {
            char drain[64];
            while (read(ipc->wake[0], drain, sizeof drain) > 0)
                ;
        }
        int first = 1;
        if (listening) {
            first = 2;
            if ((fds[1].revents & POLLIN) && !ipc->stop)
                accept_client(ipc);
        }
        for (int k = first; k < n; k++) {
            client *c = &ipc->clients[slot[k]];
            short re = fds[k].revents;
            if (c->fd < 0 || !re)
                continue;
            int gone = 0;
            if (re & (POLLIN | POLLHUP | POLLERR))
                gone = (re & POLLIN) || (re & POLLHUP) ? read_client(ipc, c) : -1;
            if (!gone && (re & POLLOUT || c->out_len))
                gone = write_client(c);
            if (gone || ((re & POLLHUP) && !(re & POLLIN)))
                close_client(c);
        }
    }
    for (int i = 0; i < CLV_IPC_CLIENTS; i++)
        close_client(&ipc->clients[i]);
    pthread_mutex_unlock(&ipc->lock);
    return NULL;
}

/* ---- The run's side ------------------------------------------------------ */

static int fail(clv_msg *msg, int err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(clv_msg *msg, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg->text, sizeof msg->text, fmt, ap);
    va_end(ap);
    return err;
}

/* Makes room at path: nothing there, or a stale socket (no one listens)
 * removed. Anything else is refused and left as it is. */
static int claim_path(const char *path, clv_msg *msg)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        return fail(msg, CLV_EOPTION, "--ipc %.900s: %s", path, strerror(errno));
    }
    if (!S_ISSOCK(st.st_mode))
        return fail(msg, CLV_EOPTION,
                    "--ipc %.900s: exists and is not a socket (%s); not touched: give another path",
                    path,
                    S_ISDIR(st.st_mode)   ? "a folder"
                    : S_ISREG(st.st_mode) ? "a file"
                    : S_ISLNK(st.st_mode) ? "a symbolic link"
                                          : "not a socket");
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(msg, CLV_EIO, "--ipc %.900s: socket: %s", path, strerror(errno));
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int r = connect(fd, (struct sockaddr *)&a, sizeof a);
    int e = errno;
    close(fd);
    if (r == 0)
        return fail(msg, CLV_EOPTION,
                    "--ipc %.900s: another program listens on it (a clvid still running?)", path);
    if (e != ECONNREFUSED)
        return fail(msg, CLV_EOPTION, "--ipc %.900s: a socket that can't be checked: %s", path,
                    strerror(e));
    /* Stale: the same socket still there is removed. */
    struct stat again;
    if (lstat(path, &again) == 0 && again.st_dev == st.st_dev && again.st_ino == st.st_ino &&
        unlink(path) != 0 && errno != ENOENT)
        return fail(msg, CLV_EOPTION, "--ipc %.900s: a stale socket that can't be removed: %s",
                    path, strerror(errno));
    return 0;
}

int clv_ipc_open(const char *path, const char *run_name, unsigned verbs, clv_ipc **out,
                 clv_msg *msg)
{
    *out = NULL;
    if (!path || !*path)
        return fail(msg, CLV_EOPTION, "--ipc: no path given");
    clv_ipc *ipc = calloc(1, sizeof *ipc);
    if (!ipc)
        return fail(msg, CLV_ENOMEM, "out of memory");
    ipc->listen_fd = ipc->wake[0] = ipc->wake[1] = -1;
    for (int i = 0; i < CLV_IPC_CLIENTS; i++)
        ipc->clients[i].fd = -1;
    ipc->run_name = run_name;
    ipc->verbs = verbs;
    if (strlen(path) >= sizeof ipc->path) {
        free(ipc);
        return fail(msg, CLV_EOPTION,
                    "--ipc %.900s: longer than %zu bytes, a Unix socket's limit (give a shorter "
                    "path)",
                    path, sizeof ipc->path - 1);
    }
    snprintf(ipc->path, sizeof ipc->path, "%s", path);
    int err = claim_path(path, msg);
    if (err) {
        free(ipc);
        return err;
    }
    if (pthread_mutex_init(&ipc->lock, NULL)) {
        free(ipc);
        return fail(msg, CLV_ENOMEM, "out of memory (threads)");
    }
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    struct stat st;
    ipc->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (ipc->listen_fd < 0) {
        err = fail(msg, CLV_EIO, "--ipc %.900s: socket: %s", path, strerror(errno));
    } else if (bind(ipc->listen_fd, (struct sockaddr *)&a, sizeof a) != 0) {
        /* Something came to the path since it was checked: left alone. */
        err = fail(msg, errno == EADDRINUSE ? CLV_EOPTION : CLV_EIO, "--ipc %.900s: %s", path,
                   errno == EADDRINUSE ? "exists (made by another program meanwhile); not touched"
                                       : strerror(errno));
        close(ipc->listen_fd);
        ipc->listen_fd = -1;
    } else if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode)) {
        err = fail(msg, CLV_EIO, "--ipc %.900s: the socket made is gone", path);
    } else {
        ipc->dev = st.st_dev;
        ipc->ino = st.st_ino;
        /* Owner only before anyone can connect: until listen() a connect
         * is refused, so the mode the umask gave at bind() never serves. */
        if (chmod(path, 0600) != 0 || listen(ipc->listen_fd, 8) != 0)
            err = fail(msg, CLV_EIO, "--ipc %.900s: %s", path, strerror(errno));
        else if (pipe2(ipc->wake, O_NONBLOCK | O_CLOEXEC) != 0)
            err = fail(msg, CLV_ENOMEM, "out of memory (pipe)");
        else if (pthread_create(&ipc->thread, NULL, serve, ipc) != 0)
            err = fail(msg, CLV_ENOMEM, "out of memory (threads)");
        else
            ipc->thread_started = 1;
    }
    if (err) {
        clv_ipc_close(ipc);
        return err;
    }
    *out = ipc;
    return 0;
}

static void free_request(clv_ipc_request *req)
{
    free(req->words);
    free(req);
}

clv_ipc_request *clv_ipc_next(clv_ipc *ipc)
{
    /* The run asks between frames and never waits for the server's
     * thread: when that holds the lock, the command is taken next time. */
    if (!ipc || pthread_mutex_trylock(&ipc->lock))
        return NULL;
    clv_ipc_request *req;
    while ((req = ipc->queue)) {
        ipc->queue = req->next;
        if (!ipc->queue)
            ipc->queue_tail = NULL;
        req->next = NULL;
        /* a client gone or dropped: its commands are not carried out */
        client *c = client_of(ipc, req->client);
        if (c && !c->dropped)
            break;
        if (c)
            c->pending--;
        free_request(req);
    }
    pthread_mutex_unlock(&ipc->lock);
    return req;
}

void clv_ipc_reply(clv_ipc *ipc, clv_ipc_request *req, const char *error, const char *data)
{
    if (!req)
        return;
    pthread_mutex_lock(&ipc->lock);
    client *c = client_of(ipc, req->client);
    if (c) {
        reply_to(ipc, c, error, data, req->request_id);
        c->pending--;
    }
    pthread_mutex_unlock(&ipc->lock);
    if (c)
        wake(ipc);
    free_request(req);
}

void clv_ipc_event(clv_ipc *ipc, const char *name, const char *fields)
{
    if (!ipc)
        return;
    clv_json j = {0};
    clv_json_add(&j, "{\"event\":");
    clv_json_string(&j, name);
    if (fields && *fields)
        clv_json_add(&j, ",%s", fields);
    clv_json_add(&j, "}\n");
    pthread_mutex_lock(&ipc->lock);
    for (int i = 0; j.text && i < CLV_IPC_CLIENTS; i++)
        out_append(ipc, &ipc->clients[i], j.text, j.len);
    pthread_mutex_unlock(&ipc->lock);
    wake(ipc);
    clv_json_free(&j);
}

const char *clv_ipc_path(const clv_ipc *ipc)
{
    return ipc->path;
}

void clv_ipc_close(clv_ipc *ipc)
{
    if (!ipc)
        return;
    /* Everything queued is answered: the lock is waited for here. */
    pthread_mutex_lock(&ipc->lock);
    clv_ipc_request *req, *queued = ipc->queue;
    ipc->queue = ipc->queue_tail = NULL;
    pthread_mutex_unlock(&ipc->lock);
    while ((req = queued)) {
        queued = req->next;
        clv_ipc_reply(ipc, req, "the run has ended", NULL);
    }
    if (ipc->thread_started) {
        pthread_mutex_lock(&ipc->lock);
        ipc->stop = 1;
        ipc->stop_deadline = now_seconds() + 1.0;
        pthread_mutex_unlock(&ipc->lock);
        wake(ipc);
        pthread_join(ipc->thread, NULL);
    }
    for (int i = 0; i < CLV_IPC_CLIENTS; i++)
        close_client(&ipc->clients[i]);
    if (ipc->listen_fd >= 0) {
        close(ipc->listen_fd);
        struct stat st;
        if (lstat(ipc->path, &st) == 0 && st.st_dev == ipc->dev && st.st_ino == ipc->ino)
            unlink(ipc->path);
    }
    if (ipc->wake[0] >= 0)
        close(ipc->wake[0]);
    if (ipc->wake[1] >= 0)
        close(ipc->wake[1]);
    while ((req = ipc->queue)) {
        ipc->queue = req->next;
        free_request(req);
    }
    pthread_mutex_destroy(&ipc->lock);
    free(ipc);
}
