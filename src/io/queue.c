/* queue.c - the bounded queue that carries frames and packets between the
 * decoder thread, the main (GPU) thread and the encoder thread. */
#include "io.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct item {
    int kind;
    void *payload;
} item;

struct clv_queue {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    /* Guarded by lock: */
    item *ring;
    int capacity, head, count;
    int aborted;
};

clv_queue *clv_queue_create(int capacity)
{
    clv_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->ring = calloc((size_t)capacity, sizeof *q->ring);
    if (!q->ring) {
        free(q);
        return NULL;
    }
    q->capacity = capacity;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->changed, NULL);
    return q;
}

void clv_item_free(int kind, void *payload)
{
    if (kind == CLV_ITEM_FRAME) {
        AVFrame *f = payload;
        av_frame_free(&f);
    } else if (kind == CLV_ITEM_PACKET) {
        AVPacket *p = payload;
        av_packet_free(&p);
    }
}

void clv_queue_destroy(clv_queue *q)
{
    if (!q)
        return;
    for (int i = 0; i < q->count; i++) {
        item *it = &q->ring[(q->head + i) % q->capacity];
        clv_item_free(it->kind, it->payload);
    }
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->changed);
    free(q->ring);
    free(q);
}

/* With the lock held: appends the item (or frees it when the queue was
 * aborted: the queue owns it even when refused) and unlocks. Returns the
 * count after the push, or -1. */
static int enter(clv_queue *q, int kind, void *payload)
{
    if (q->aborted) {
        pthread_mutex_unlock(&q->lock);
        clv_item_free(kind, payload);
        return -1;
    }
    q->ring[(q->head + q->count) % q->capacity] = (item){kind, payload};
    int depth = ++q->count;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
    return depth;
}

int clv_queue_push(clv_queue *q, int kind, void *payload)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == q->capacity && !q->aborted)
        pthread_cond_wait(&q->changed, &q->lock);
    return enter(q, kind, payload) < 0 ? -1 : 0;
}

int clv_queue_try_push(clv_queue *q, int kind, void *payload)
{
    pthread_mutex_lock(&q->lock);
    if (q->count == q->capacity && !q->aborted) {
        pthread_mutex_unlock(&q->lock);
        return 1;
    }
    return enter(q, kind, payload) < 0 ? -1 : 0;
}

int clv_queue_push_latest(clv_queue *q, int kind, void *payload, int *depth)
{
    int dropped = 0;
    pthread_mutex_lock(&q->lock);
    if (q->count == q->capacity && !q->aborted) {
        /* Drop the oldest frame (packets and the end marker are kept). */
        for (int i = 0; i < q->count; i++) {
            item *it = &q->ring[(q->head + i) % q->capacity];
            if (it->kind != CLV_ITEM_FRAME)
                continue;
            clv_item_free(it->kind, it->payload);
            for (int j = i; j > 0; j--)
                q->ring[(q->head + j) % q->capacity] = q->ring[(q->head + j - 1) % q->capacity];
            q->head = (q->head + 1) % q->capacity;
            q->count--;
            dropped = 1;
            break;
        }
        while (q->count == q->capacity && !q->aborted) /* nothing droppable */
            pthread_cond_wait(&q->changed, &q->lock);
    }
    int count = enter(q, kind, payload);
    if (count < 0)
        return -1;
    if (depth)
        *depth = count;
    return dropped;
}

int clv_queue_pop_wait(clv_queue *q, int *kind, void **payload, double timeout_s)
{
    struct timespec until;
    if (timeout_s > 0) {
        clock_gettime(CLOCK_REALTIME, &until); /* the condition variable's clock */
        double t = (double)until.tv_sec + (double)until.tv_nsec / 1e9 + timeout_s;
        until.tv_sec = (time_t)t;
        until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
    }
    pthread_mutex_lock(&q->lock);
    while (q->count == 0 && !q->aborted) {
        if (timeout_s == 0 ||
            (timeout_s > 0 && pthread_cond_timedwait(&q->changed, &q->lock, &until) != 0)) {
            pthread_mutex_unlock(&q->lock);
            return 1;
        }
        if (timeout_s < 0)
            pthread_cond_wait(&q->changed, &q->lock);
    }
    if (q->aborted) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    item it = q->ring[q->head];
    q->head = (q->head + 1) % q->capacity;
    q->count--;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
    *kind = it.kind;
    *payload = it.payload;
    return 0;
}

int clv_queue_pop(clv_queue *q, int *kind, void **payload)
{
    return clv_queue_pop_wait(q, kind, payload, -1);
}

void clv_queue_abort(clv_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->aborted = 1;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

int64_t clv_fault_after(const char *where)
{
    const char *spec = getenv("CLVID_FAULT");
    size_t n = strlen(where);
    /* "where:N", or several such separated by commas. */
    for (const char *s = spec; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
        if (strncmp(s, where, n) || s[n] != ':')
            continue;
        char *end;
        long long frames = strtoll(s + n + 1, &end, 10);
        return (*end && *end != ',') || frames < 0 ? -1 : frames;
    }
    return -1;
}

double clv_io_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
