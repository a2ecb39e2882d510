/* reload.c - live user kernels in the window: the files of the chains'
 * `opencl` filters are watched (inotify on their folders, which sees an
 * editor's save-by-rename; else their mtimes polled), built again on a thread
 * of their own when they change, and swapped in on the player's thread at
 * the next frame. A file that does not build leaves the last good kernel
 * running and its compiler messages on screen until it builds again. */
#include "reload.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../io/io.h"

#define TARGETS 16
#define SETTLE_S 0.05 /* an editor's save is several events: wait for the last */
#define POLL_S 0.25   /* without inotify: how often the files are looked at */

typedef struct target {
    clv_chain *chain;
    int item;
    char path[4096];
    const char *kernel; /* the chain's kernel=, or NULL */
    char kernel_name[128];
    int wd;                /* inotify watch of its folder, -1 without */
    struct timespec mtime; /* the file as last seen */
    off_t size;
    ino_t inode;
    int dirty; /* changed, not yet built */
    double dirty_at;
    char error[1024]; /* the last build's message, "" when it built */
} target;

struct clv_reload {
    clv_context *ctx;
    target t[TARGETS];
    int count;
    int inotify; /* -1: polling */
    double polled_at;
    /* The build thread: one job at a time. */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int job;      /* target index being built, -1 none */
    int job_done; /* the result below is ready */
    int stopping;
    clv_kernel_build *result;
    int result_err;
    clv_msg result_msg;
    double result_ms;
    uint64_t reloads; /* swaps made */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *builder(void *arg)
{
    clv_reload *r = arg;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (!r->stopping && (r->job < 0 || r->job_done))
            pthread_cond_wait(&r->wake, &r->lock);
        if (r->stopping)
            break;
        target *t = &r->t[r->job];
        char path[4096], kernel[128];
        snprintf(path, sizeof path, "%s", t->path);
        snprintf(kernel, sizeof kernel, "%s", t->kernel ? t->kernel : "");
        pthread_mutex_unlock(&r->lock);
        clv_kernel_build *b = NULL;
        clv_msg msg = {{0}};
        double begin = now_s();
        int err = clv_kernel_build_file(r->ctx, path, kernel[0] ? kernel : NULL, &b, &msg);
        pthread_mutex_lock(&r->lock);
        r->result = b;
        r->result_err = err;
        r->result_msg = msg;
        r->result_ms = (now_s() - begin) * 1e3;
        r->job_done = 1;
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static void stamp(target *t, struct timespec *mtime, off_t *size, ino_t *inode)
{
    struct stat st;
    if (stat(t->path, &st) != 0) {
        memset(mtime, 0, sizeof *mtime);
        *size = -1;
        *inode = 0;
        return;
    }
    *mtime = st.st_mtim;
    *size = st.st_size;
    *inode = st.st_ino;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int clv_reload_create(clv_context *ctx, clv_chain *const *chains, int count, clv_reload **out,
                      clv_msg *msg)
{
    *out = NULL;
    clv_reload *r = calloc(1, sizeof *r);
    if (!r)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    r->ctx = ctx;
    r->job = -1;
    r->inotify = -1;
    for (int c = 0; c < count; c++) {
        const clv_chain_desc *d = clv_chain_get_desc(chains[c]);
        for (int i = 0; i < clv_chain_desc_count(d) && r->count < TARGETS; i++) {
            const char *kernel = NULL;
            const char *path = clv_chain_kernel_file(chains[c], i, &kernel);
            if (!path)
                continue;
            target *t = &r->t[r->count++];
            t->chain = chains[c];
            t->item = i;
            t->wd = -1;
            snprintf(t->path, sizeof t->path, "%s", path);
            if (kernel) {
                snprintf(t->kernel_name, sizeof t->kernel_name, "%s", kernel);
                t->kernel = t->kernel_name;
            }
            stamp(t, &t->mtime, &t->size, &t->inode);
        }
    }
    if (r->count == 0) {
        free(r);
        return 0; /* nothing to watch */
    }
    r->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    for (int i = 0; i < r->count && r->inotify >= 0; i++) {
        char folder[4096];
        snprintf(folder, sizeof folder, "%s", r->t[i].path);
        char *slash = strrchr(folder, '/');
        if (slash)
            *(slash == folder ? slash + 1 : slash) = 0;
        else
            snprintf(folder, sizeof folder, ".");
        r->t[i].wd = inotify_add_watch(
            r->inotify, folder, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_ATTRIB);
        if (r->t[i].wd < 0) {
            close(r->inotify); /* polling for all: simpler than a mix */
            r->inotify = -1;
        }
    }
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->wake, NULL);
    if (pthread_create(&r->thread, NULL, builder, r) != 0) {
        clv_reload_destroy(r);
        return clv_io_fail(msg, CLV_ENOMEM, "cannot start the kernel build thread");
    }
    r->thread_started = 1;
    *out = r;
    return 0;
}

void clv_reload_destroy(clv_reload *r)
{
    if (!r)
        return;
    if (r->thread_started) {
        pthread_mutex_lock(&r->lock);
        r->stopping = 1;
        pthread_cond_signal(&r->wake);
        pthread_mutex_unlock(&r->lock);
        pthread_join(r->thread, NULL);
    }
    clv_kernel_build_free(r->result);
    if (r->inotify >= 0)
        close(r->inotify);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->wake);
    free(r);
}

void clv_reload_request(clv_reload *r)
{
    double now = now_s();
    for (int i = 0; r && i < r->count; i++) {
        r->t[i].dirty = 1;
        r->t[i].dirty_at = now - SETTLE_S;
    }
}

/* Marks the targets whose files changed. */
static void look(clv_reload *r, double now)
{
    if (r->inotify >= 0) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        ssize_t n;
        while ((n = read(r->inotify, buf, sizeof buf)) > 0) {
            for (char *p = buf; p < buf + n;) {
                const struct inotify_event *e = (const struct inotify_event *)p;
                for (int i = 0; i < r->count; i++)
                    if (e->wd == r->t[i].wd && e->len &&
                        !strcmp(e->name, base_name(r->t[i].path))) {
                        r->t[i].dirty = 1;
                        r->t[i].dirty_at = now; /* settle from the last event */
                    }
                p += sizeof *e + e->len;
            }
        }
        return;
    }
    if (now - r->polled_at < POLL_S)
        return;
    r->polled_at = now;
    for (int i = 0; i < r->count; i++) {
        target *t = &r->t[i];
        struct timespec m;
        off_t size;
        ino_t inode;
        stamp(t, &m, &size, &inode);
        if (m.tv_sec != t->mtime.tv_sec || m.tv_nsec != t->mtime.tv_nsec || size != t->size ||
            inode != t->inode) {
            t->mtime = m;
            t->size = size;
            t->inode = inode;
            t->dirty = 1;
            t->dirty_at = now - SETTLE_S;
        }
    }
}

int clv_reload_poll(clv_reload *r, char *notice, size_t size)
{
    if (notice && size)
        notice[0] = 0;
    if (!r)
        return 0;
    double now = now_s();
    look(r, now);
    int happened = 0;
    pthread_mutex_lock(&r->lock);
    if (r->job >= 0 && r->job_done) {
        target *t = &r->t[r->job];
        clv_kernel_build *b = r->result;
        int err = r->result_err;
        clv_msg msg = r->result_msg;
        double ms = r->result_ms;
        r->result = NULL;
        r->job = -1;
        r->job_done = 0;
        pthread_mutex_unlock(&r->lock);
        if (!err) {
            err = clv_chain_swap_kernel(t->chain, t->item, b, &msg);
            if (err)
                clv_kernel_build_free(b);
        }
        if (err) {
            /* For the window: the file's name, then the compiler's lines. */
            const char *lines = strchr(msg.text, '\n');
            if (err == CLV_EKERNEL && lines)
                snprintf(t->error, sizeof t->error,
                         "%.200s does not build; the last good kernel runs on\n%.700s",
                         base_name(t->path), lines + 1);
            else
                snprintf(t->error, sizeof t->error, "%.900s\n(the last good kernel runs on)",
                         msg.text);
            fprintf(stderr, "clvid: %s\n(the last kernel that built goes on running)\n", msg.text);
            happened = CLV_RELOAD_FAILED;
        } else {
            t->error[0] = 0;
            r->reloads++;
            happened = CLV_RELOAD_SWAPPED;
            if (notice)
                snprintf(notice, size, "reloaded %.200s (built in %.0f ms)", base_name(t->path),
                         ms);
            fprintf(stderr, "clvid: reloaded %s (built in %.0f ms)\n", t->path, ms);
        }
        pthread_mutex_lock(&r->lock);
    }
    if (r->job < 0) {
        for (int i = 0; i < r->count; i++) {
            if (r->t[i].dirty && now - r->t[i].dirty_at >= SETTLE_S) {
                r->t[i].dirty = 0;
                r->job = i;
                r->job_done = 0;
                pthread_cond_signal(&r->wake);
                break;
            }
        }
    }
    pthread_mutex_unlock(&r->lock);
    return happened;
}

const char *clv_reload_error(const clv_reload *r, const clv_chain *chain)
{
    for (int i = 0; r && i < r->count; i++)
        if (r->t[i].chain == chain && r->t[i].error[0])
            return r->t[i].error;
    return NULL;
}

uint64_t clv_reload_count(const clv_reload *r)
{
    return r ? r->reloads : 0;
}
