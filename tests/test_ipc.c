/* test_ipc.c - the control socket's server (src/pipeline/ipc.c) on its own,
 * with a stand-in for the run: several clients at once on threads of their
 * own (every reply to its client, in order, every event to all), the
 * arguments as the run reads them (escapes, numbers), malformed lines, a
 * half-closed client still answered, the client limit, what close does to
 * a request still queued, the socket's mode and the paths it refuses or
 * reuses. Built with the sanitizers like the rest (TSan: label unit). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ipc.h"

#include "check.h"

int test_failures;

static void nap_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int connect_to(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct timeval tv = {30, 0}; /* every read is bounded */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static void send_text(int fd, const char *text)
{
    size_t n = strlen(text);
    while (n) {
        ssize_t w = send(fd, text, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        text += w;
        n -= (size_t)w;
    }
}

/* One line from fd (without its newline) into out; 0, or -1 at the end or
 * after the timeout. */
typedef struct line_reader {
    int fd;
    char buf[1 << 16];
    size_t len;
} line_reader;

static int read_line(line_reader *r, char *out, size_t size)
{
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->len);
        if (nl) {
            size_t n = (size_t)(nl - r->buf);
            snprintf(out, size, "%.*s", (int)n, r->buf);
            memmove(r->buf, nl + 1, r->len - n - 1);
            r->len -= n + 1;
            return 0;
        }
        if (r->len == sizeof r->buf)
            return -1;
        ssize_t got = recv(r->fd, r->buf + r->len, sizeof r->buf - r->len, 0);
        if (got <= 0)
            return -1;
        r->len += (size_t)got;
    }
}

/* The next reply (events skipped, counted in *events). */
static int read_reply(line_reader *r, char *out, size_t size, int *events)
{
    for (;;) {
        if (read_line(r, out, size))
            return -1;
        if (strncmp(out, "{\"event\":", 9))
            return 0;
        if (events)
            ++*events;
    }
}

/* ---- A stand-in for the run: answers each command with its words. ------ */

typedef struct fake_run {
    clv_ipc *ipc;
    pthread_mutex_t lock;
    int stop;     /* guarded by lock */
    int answered; /* the run's thread only */
} fake_run;

static void *run_loop(void *arg)
{
    fake_run *f = arg;
    for (;;) {
        pthread_mutex_lock(&f->lock);
        int stop = f->stop;
        pthread_mutex_unlock(&f->lock);
        if (stop)
            return NULL;
        clv_ipc_request *req = clv_ipc_next(f->ipc);
        if (!req) {
            nap_ms(1);
            continue;
        }
        clv_json j = {0};
        clv_json_add(&j, "{\"verb\":%d,\"args\":[", (int)req->verb);
        for (int i = 0; i < 3 && req->arg[i]; i++) {
            clv_json_add(&j, "%s", i ? "," : "");
            clv_json_string(&j, req->arg[i]);
        }
        clv_json_add(&j, "],\"index\":%d,\"seconds\":%g,\"absolute\":%d,\"what\":%d}", req->index,
                     req->seconds, req->absolute, (int)req->what);
        if (req->verb == CLV_IPC_SET_CHAIN && !strcmp(req->arg[0], "bad"))
            clv_ipc_reply(f->ipc, req, "set_chain: no such chain", NULL);
        else
            clv_ipc_reply(f->ipc, req, NULL, j.text);
        clv_json_free(&j);
        if (++f->answered % 50 == 0)
            clv_ipc_event(f->ipc, "chain-changed", "\"chain\":\"x\"");
    }
}

/* ---- Clients ------------------------------------------------------------- */

typedef struct client_job {
    const char *path;
    int id;
    int ok, events;
} client_job;

/* 200 requests, one malformed in ten: every reply to this client, in
 * order, with its request_id. */
static void *client_thread(void *arg)
{
    client_job *job = arg;
    line_reader *r = calloc(1, sizeof *r);
    char line[4096], want[64];
    r->fd = connect_to(job->path);
    if (r->fd < 0) {
        free(r);
        return NULL;
    }
    int good = 1;
    for (int i = 0; i < 200 && good; i++) {
        int id = job->id * 1000 + i;
        char request[256];
        if (i % 10 == 3)
            snprintf(request, sizeof request,
                     "{\"command\": [\"get\", \"stats\"], \"request_id\": "
                     "%d, \"x\": [1,}\n",
                     id);
        else
            snprintf(request, sizeof request,
                     "{\"command\": [\"set_param\", %d, \"radius\", \"%d\"], \"request_id\": %d}\n",
                     i % 5, i, id);
        send_text(r->fd, request);
        if (read_reply(r, line, sizeof line, &job->events)) {
            good = 0;
            break;
        }
        snprintf(want, sizeof want, "\"request_id\":%d}", id);
        int is_error = strncmp(line, "{\"error\":\"success\"", 18) != 0;
        good = strstr(line, want) && is_error == (i % 10 == 3);
        if (!good)
            fprintf(stderr, "client %d request %d: %s\n", job->id, i, line);
        if (i % 10 != 3) {
            char args[64];
            snprintf(args, sizeof args, "\"args\":[\"%d\",\"radius\",\"%d\"],\"index\":%d", i % 5,
                     i, i % 5);
            good = good && strstr(line, args);
        }
    }
    job->ok = good;
    close(r->fd);
    free(r);
    return NULL;
}

/* A connection the server has taken in: a `resume` answered. Clients that
 * just closed may still hold their places for a moment (the server sees
 * their end on its next pass): a refusal for too many clients is tried
 * again, for up to 30 s. 0, or -1. */
static int connect_accepted(const char *path, line_reader *r)
{
    char reply[512];
    for (int tries = 0; tries < 300; tries++) {
        r->len = 0;
        r->fd = connect_to(path);
        if (r->fd < 0)
            return -1;
        send_text(r->fd, "{\"command\": [\"resume\"]}\n");
        if (read_reply(r, reply, sizeof reply, NULL) == 0 && !strstr(reply, "too many clients"))
            return 0;
        close(r->fd);
        nap_ms(100);
    }
    return -1;
}

/* One request and its reply on a connection of its own. */
static void ask(const char *path, const char *request, char *reply, size_t size)
{
    line_reader *r = calloc(1, sizeof *r);
    reply[0] = 0;
    r->fd = connect_to(path);
    if (r->fd >= 0) {
        send_text(r->fd, request);
        read_reply(r, reply, size, NULL);
        close(r->fd);
    }
    free(r);
}

static void test_clients(const char *dir)
{
    char path[200], reply[8192];
    snprintf(path, sizeof path, "%s/run.sock", dir);
    clv_msg msg = {{0}};
    fake_run f = {0};
    pthread_mutex_init(&f.lock, NULL);
    int err = clv_ipc_open(path, "play", CLV_IPC_PLAYER_VERBS, &f.ipc, &msg);
    CHECK(!err, "open: %s", msg.text);
    if (err)
        return;
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600,
          "the socket's mode is %o", (unsigned)st.st_mode);
    pthread_t run;
    pthread_create(&run, NULL, run_loop, &f);

    /* Four clients at once. */
    enum { N = 4 };
    client_job jobs[N];
    pthread_t threads[N];
    for (int i = 0; i < N; i++) {
        jobs[i] = (client_job){.path = path, .id = i + 1};
        pthread_create(&threads[i], NULL, client_thread, &jobs[i]);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(threads[i], NULL);
        CHECK(jobs[i].ok, "client %d: a reply was wrong or missing", i + 1);
    }

    /* The arguments as the run reads them. */
    ask(path,
        "{\"command\": [\"set_chain\", \"a\\u00e9\\ud83d\\ude00\\n\\\"\\/\"], \"request_id\": "
        "9223372036854775807}\n",
        reply, sizeof reply);
    CHECK(strstr(reply, "\"args\":[\"a\xc3\xa9\xf0\x9f\x98\x80\\n\\\"/\"]") &&
              strstr(reply, "\"request_id\":9223372036854775807}"),
          "decoded: %s", reply);
    ask(path, "{\"command\": [\"seek\", \"-1.5e1\", \"absolute\"]}\n", reply, sizeof reply);
    CHECK(strstr(reply, "\"seconds\":-15,\"absolute\":1"), "seek: %s", reply);
    ask(path, "{\"command\": [\"seek\", 2]}\n", reply, sizeof reply);
    CHECK(strstr(reply, "\"seconds\":2,\"absolute\":0"), "seek relative: %s", reply);
    ask(path, "{\"command\": [\"get\", \"devices\"]}\n", reply, sizeof reply);
    CHECK(strstr(reply, "\"what\":3"), "get devices: %s", reply);
    ask(path, "{\"command\": [\"set_chain\", \"bad\"], \"request_id\": 4}\n", reply, sizeof reply);
    CHECK(!strcmp(reply, "{\"error\":\"set_chain: no such chain\",\"request_id\":4}"),
          "an error the run gives: %s", reply);
    /* Answered by the server: the run never sees them. */
    static const struct {
        const char *request, *error;
    } refused[] = {
        {"{\"command\": [\"seek\", \"soon\"]}\n", "seek: 'soon' is not a number of seconds"},
        {"{\"command\": [\"seek\", 1, \"later\"]}\n", "expected relative or absolute"},
        {"{\"command\": [\"seek\"]}\n", "seek takes 1 or 2 arguments"},
        {"{\"command\": [\"set_param\", -1, \"a\", 1]}\n", "INDEX '-1'"},
        {"{\"command\": [\"quit\"], \"command\": [\"quit\"]}\n", "\\\"command\\\" given twice"},
        {"{\"command\": [\"quit\"], \"request_id\": 99999999999999999999}\n", "64 bits"},
        {"{\"command\": [\"quit\"], \"request_id\": \"7\"}\n", "must be an integer"},
        {"{\"command\": [\"quit\", true]}\n", "word 2 (byte 22) is not a string or a number"},
        {"{\"command\": [\"get\", \"chain\"]\x01}\n", "expected ',' or '}'"},
        {"{\"command\": [\"get\", \"ch\tain\"]}\n", "control character"},
        {"{\"command\": [\"get\", \"\\u0000\"]}\n", "\\\\u0000"},
        {"{\"command\": [\"get\", \"\xc0\xaf\"]}\n", "not UTF-8"},
        {"{\"command\": [1e]}\n", "a digit in the exponent"},
        {"{\"command\": [\"get\", tru]}\n", "expected a value"},
        {"{\"command\": [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]}\n",
         "more than 8 words"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        ask(path, refused[i].request, reply, sizeof reply);
        CHECK(strstr(reply, refused[i].error) && strncmp(reply, "{\"error\":\"success\"", 18),
              "%s -> %s (expected '%s')", refused[i].request, reply, refused[i].error);
    }

    /* A client that sends and shuts its side is still answered. */
    line_reader *r = calloc(1, sizeof *r);
    r->fd = connect_to(path);
    send_text(r->fd, "{\"command\": [\"pause\"], \"request_id\": 5}\n");
    shutdown(r->fd, SHUT_WR);
    CHECK(read_reply(r, reply, sizeof reply, NULL) == 0 && strstr(reply, "\"request_id\":5}"),
          "half-closed: %s", reply);
    close(r->fd);

    /* The seventeenth client is told there are too many. */
    line_reader *held = calloc(CLV_IPC_CLIENTS, sizeof *held);
    for (int i = 0; i < CLV_IPC_CLIENTS; i++)
        CHECK(connect_accepted(path, &held[i]) == 0, "client %d of %d not taken", i + 1,
              CLV_IPC_CLIENTS);
    r->fd = connect_to(path);
    r->len = 0;
    CHECK(read_line(r, reply, sizeof reply) == 0 && strstr(reply, "too many clients"),
          "the client beyond the limit: %s", reply);
    close(r->fd);
    for (int i = 0; i < CLV_IPC_CLIENTS; i++)
        close(held[i].fd);
    free(held);

    /* Events reach every client. */
    line_reader *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    CHECK(connect_accepted(path, a) == 0 && connect_accepted(path, b) == 0, "a or b not taken");
    clv_ipc_event(f.ipc, "end", "\"reason\":\"eof\"");
    CHECK(read_line(a, reply, sizeof reply) == 0 &&
              !strcmp(reply, "{\"event\":\"end\",\"reason\":\"eof\"}"),
          "event to a: %s", reply);
    CHECK(read_line(b, reply, sizeof reply) == 0 &&
              !strcmp(reply, "{\"event\":\"end\",\"reason\":\"eof\"}"),
          "event to b: %s", reply);

    /* Stop the run; a request still queued at close is answered. */
    pthread_mutex_lock(&f.lock);
    f.stop = 1;
    pthread_mutex_unlock(&f.lock);
    pthread_join(run, NULL);
    send_text(a->fd, "{\"command\": [\"quit\"], \"request_id\": 12}\n");
    nap_ms(200);
    clv_ipc_close(f.ipc);
    CHECK(read_reply(a, reply, sizeof reply, NULL) == 0 &&
              !strcmp(reply, "{\"error\":\"the run has ended\",\"request_id\":12}"),
          "queued at close: %s", reply);
    CHECK(read_line(b, reply, sizeof reply) == -1, "b still open after close: %s", reply);
    CHECK(lstat(path, &st) != 0 && errno == ENOENT, "the socket is still there");
    close(a->fd);
    close(b->fd);
    free(a);
    free(b);
    free(r);
    pthread_mutex_destroy(&f.lock);
}

/* A long line: one error, thrown away to its newline; the next one read. */
static void test_long_line(const char *dir)
{
    char path[200], reply[512];
    snprintf(path, sizeof path, "%s/long.sock", dir);
    clv_msg msg = {{0}};
    clv_ipc *ipc = NULL;
    CHECK(!clv_ipc_open(path, "transcode", CLV_IPC_RUN_VERBS, &ipc, &msg), "open: %s", msg.text);
    if (!ipc)
        return;
    line_reader *r = calloc(1, sizeof *r);
    r->fd = connect_to(path);
    size_t n = CLV_IPC_LINE_MAX + 100;
    char *big = malloc(n + 2);
    memset(big, ' ', n);
    big[n] = '\n';
    big[n + 1] = 0;
    send_text(r->fd, big);
    send_text(r->fd, "{\"command\": [\"seek\", 1], \"request_id\": 3}\n");
    CHECK(read_reply(r, reply, sizeof reply, NULL) == 0 && strstr(reply, "longer than 65536"),
          "long line: %s", reply);
    CHECK(read_reply(r, reply, sizeof reply, NULL) == 0 &&
              !strcmp(reply, "{\"error\":\"seek: not available in transcode\",\"request_id\":3}"),
          "after the long line: %s", reply);
    /* Exactly the limit is a line like any other (here: all spaces, nothing
     * asked, so no reply); the next one is answered. */
    big[CLV_IPC_LINE_MAX] = '\n';
    big[CLV_IPC_LINE_MAX + 1] = 0;
    send_text(r->fd, big);
    send_text(r->fd, "{\"command\": [\"nope\"], \"request_id\": 4}\n");
    CHECK(read_reply(r, reply, sizeof reply, NULL) == 0 &&
              strstr(reply, "unknown command 'nope'") && strstr(reply, "\"request_id\":4}"),
          "after a line at the limit: %s", reply);
    free(big);
    close(r->fd);
    free(r);
    clv_ipc_close(ipc);
}

/* The paths: a file, a folder, a link and a live socket refused and left
 * as they were; a stale socket reused. */
static void test_paths(const char *dir)
{
    char path[200];
    clv_msg msg = {{0}};
    clv_ipc *ipc = NULL, *other = NULL;
    snprintf(path, sizeof path, "%s/file", dir);
    FILE *f = fopen(path, "w");
    fputs("keep", f);
    fclose(f);
    CHECK(clv_ipc_open(path, "play", CLV_IPC_PLAYER_VERBS, &ipc, &msg) == CLV_EOPTION && !ipc &&
              strstr(msg.text, "exists and is not a socket (a file); not touched"),
          "a file: %s", msg.text);
    char text[16] = "";
    f = fopen(path, "r");
    CHECK(f && fgets(text, sizeof text, f) && !strcmp(text, "keep"), "the file changed");
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/folder", dir);
    mkdir(path, 0700);
    CHECK(clv_ipc_open(path, "play", CLV_IPC_PLAYER_VERBS, &ipc, &msg) == CLV_EOPTION &&
              strstr(msg.text, "(a folder)"),
          "a folder: %s", msg.text);
    char link[200];
    snprintf(link, sizeof link, "%s/link", dir);
    CHECK(symlink(path, link) == 0, "symlink");
    CHECK(clv_ipc_open(link, "play", CLV_IPC_PLAYER_VERBS, &ipc, &msg) == CLV_EOPTION &&
              strstr(msg.text, "(a symbolic link)"),
          "a link: %s", msg.text);
    /* Live: another server listens there. */
    snprintf(path, sizeof path, "%s/live.sock", dir);
    CHECK(clv_ipc_open(path, "play", CLV_IPC_PLAYER_VERBS, &other, &msg) == 0, "%s", msg.text);
    CHECK(clv_ipc_open(path, "play", CLV_IPC_PLAYER_VERBS, &ipc, &msg) == CLV_EOPTION &&
              strstr(msg.text, "another program listens"),
          "a live socket: %s", msg.text);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode), "the live socket was removed");
    clv_ipc_close(other);
    /* Stale: bound, then its program gone without removing it. */
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) + 1); /* shorter than sun_path: made above */
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0, "bind: %s", strerror(errno));
    close(fd);
    CHECK(clv_ipc_open(path, "play", CLV_IPC_PLAYER_VERBS, &ipc, &msg) == 0, "stale: %s", msg.text);
    CHECK(lstat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "stale reused: mode %o",
          (unsigned)st.st_mode);
    clv_ipc_close(ipc);
    char longer[300];
    snprintf(longer, sizeof longer, "%s/%0150d", dir, 0);
    CHECK(clv_ipc_open(longer, "play", CLV_IPC_PLAYER_VERBS, &ipc, &msg) == CLV_EOPTION &&
              strstr(msg.text, "a Unix socket's limit"),
          "too long: %s", msg.text);
}

int main(void)
{
    char dir[] = "/tmp/clvid-ipc-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_clients(dir);
    test_long_line(dir);
    test_paths(dir);
    char cleanup[300];
    snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", dir);
    if (system(cleanup) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    printf("%s\n", test_failures ? "FAILED" : "ipc: all passed");
    return test_failures != 0;
}
