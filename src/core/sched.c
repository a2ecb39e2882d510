/* sched.c - the stage over several devices: frames dealt to the device
 * expected to finish them first, taken back in order, and a failed device's
 * frames run again on the others. */
#include "stage_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The caller's count: a lane's pipe may be busy on its sender. */
static int lane_pending(const clv__lane *l)
{
    return l->queued;
}

static int lane_full(const clv__lane *l)
{
    return l->queued == l->pipe->count;
}

/* ---- The senders: a thread a device sending its lane's frames ---------- */

/* The caller's releases since the pipe's owner last looked, taken off its
 * count (under s->lock, by the thread that owns the pipe now). */
static void take_releases(clv__sender *s)
{
    s->pipe->pending -= s->released;
    s->released = 0;
}

static void *sender_main(void *arg)
{
    clv__sender *s = arg;
    clv__pipe *p = s->pipe;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while ((!s->job_count || s->err || s->held) && !s->quit)
            pthread_cond_wait(&s->wake, &s->lock);
        if (!s->job_count || s->err)
            break; /* quit, every job sent (or stopped by a failed one) */
        clv__send_job job = s->jobs[s->job_head];
        take_releases(s); /* the pipe is the sender's while it has jobs */
        pthread_mutex_unlock(&s->lock);
        clv_msg why = {{0}};
        int err = CLV_ECL;
        if (job.inject)
            snprintf(why.text, sizeof why.text, "injected fault at a submit");
        else
            err = job.has_src ? clv__pipe_send(p, job.frame_index, &job.src, &why)
                              : clv__pipe_submit(p, job.frame_index, &why);
        if (job.chain)
            clv__chain_unhold(job.chain);
        pthread_mutex_lock(&s->lock);
        if (err) {
            /* Stopped: the job stays first, for fail_device, and those after
             * it are never sent here: their chains are let go now (a chain
             * change would otherwise wait for them until the caller's next
             * stage call, which may never come). */
            for (int k = 0; k < s->job_count; k++) {
                clv__send_job *j = &s->jobs[(s->job_head + k) % p->count];
                if (k && j->chain)
                    clv__chain_unhold(j->chain);
                j->chain = NULL;
            }
            s->err = err;
            s->why = why;
        } else { /* to the finisher */
            s->job_head = (s->job_head + 1) % p->count;
            s->job_count--;
            s->fin_queue[(s->fin_head + s->fin_count++) % p->count] = job.slot;
            pthread_cond_signal(&s->fin_wake);
        }
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Waits for the lane's frames in the order they were sent: the download's
 * end, the times; the slot is then finished, for the caller to take. */
static void *finisher_main(void *arg)
{
    clv__sender *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->fin_count && !s->quit)
            pthread_cond_wait(&s->fin_wake, &s->lock);
        if (!s->fin_count)
            break; /* quit, every frame sent finished */
        int at = s->fin_queue[s->fin_head];
        pthread_mutex_unlock(&s->lock);
        clv__pipe_finish(s->pipe, at);
        pthread_mutex_lock(&s->lock);
        s->pipe->slots[at].fin.finished = 1;
        s->fin_head = (s->fin_head + 1) % s->pipe->count;
        s->fin_count--;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Starts device d's sender and finisher; without them (no thread to be
 * had) its lane sends and waits on the caller's thread, as rescue lanes
 * do. */
static void sender_start(clv__sched *m, int d)
{
    clv__sender *s = &m->send[d];
    s->pipe = m->lanes[d].pipe;
    s->fin_queue = calloc((size_t)s->pipe->count, sizeof *s->fin_queue);
    s->jobs = calloc((size_t)s->pipe->count, sizeof *s->jobs);
    if (!s->fin_queue || !s->jobs)
        goto no_lock;
    if (pthread_mutex_init(&s->lock, NULL))
        goto no_lock;
    if (pthread_cond_init(&s->wake, NULL))
        goto no_wake;
    if (pthread_cond_init(&s->fin_wake, NULL))
        goto no_fin_wake;
    if (pthread_cond_init(&s->changed, NULL))
        goto no_changed;
    if (pthread_create(&s->thread, NULL, sender_main, s))
        goto no_thread;
    if (pthread_create(&s->finisher, NULL, finisher_main, s)) {
        pthread_mutex_lock(&s->lock);
        s->quit = 1;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
        s->quit = 0;
        goto no_thread;
    }
    s->started = 1;
    return;
no_thread:
    pthread_cond_destroy(&s->changed);
no_changed:
    pthread_cond_destroy(&s->fin_wake);
no_fin_wake:
    pthread_cond_destroy(&s->wake);
no_wake:
    pthread_mutex_destroy(&s->lock);
no_lock:
    free(s->fin_queue);
    free(s->jobs);
    s->fin_queue = NULL;
    s->jobs = NULL;
}

static void sender_stop(clv__sender *s)
{
    if (s->started) {
        pthread_mutex_lock(&s->lock);
        s->quit = 1;
        pthread_cond_signal(&s->wake);
        pthread_cond_signal(&s->fin_wake);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
        pthread_join(s->finisher, NULL);
        pthread_cond_destroy(&s->changed);
        pthread_cond_destroy(&s->fin_wake);
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->lock);
        s->started = 0;
        /* Jobs left after a failed one (never sent) still hold their chain. */
        for (int k = 0; k < s->job_count; k++) {
            clv__send_job *j = &s->jobs[(s->job_head + k) % s->pipe->count];
            if (j->chain)
                clv__chain_unhold(j->chain);
        }
        s->job_count = 0;
    }
    free(s->fin_queue);
    free(s->jobs);
    s->fin_queue = NULL;
    s->jobs = NULL;
}

/* The sender of lane i, or NULL (a rescue lane, or no thread). */
static clv__sender *lane_sender(clv__sched *m, int i)
{
    return i < m->device_count && m->send[i].started ? &m->send[i] : NULL;
}

/* Waits until lane i's sender has sent every job it was given, or stopped
 * at a failed one (and, with `drain`, every frame it sent finished): its
 * pipe is the caller's again. The failure stays for lane_wait. */
static void lane_settle(clv__sched *m, int i, int drain)
{
    clv__sender *s = lane_sender(m, i);
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    while ((s->job_count && !s->err) || (drain && s->fin_count))
        pthread_cond_wait(&s->changed, &s->lock);
    take_releases(s);
    pthread_mutex_unlock(&s->lock);
}

/* Lane i without waiting: 1 when idle (its pipe the caller's, as after
 * lane_settle), 0 while its sender has jobs, -1 when the sender stopped at
 * a failed send. */
static int lane_poll(clv__sched *m, int i)
{
    clv__sender *s = lane_sender(m, i);
    if (!s)
        return 1;
    pthread_mutex_lock(&s->lock);
    int state = s->err ? -1 : s->job_count ? 0 : 1;
    if (state)
        take_releases(s);
    pthread_mutex_unlock(&s->lock);
    return state;
}

/* Every sender idle and every frame sent finished. */
static void quiet_all(clv__sched *m)
{
    for (int i = 0; i < m->device_count; i++)
        lane_settle(m, i, 1);
}

static int lane_usable(const clv__sched *m, int i)
{
    const clv__lane *l = &m->lanes[i];
    return !l->draining && !m->dev[l->device].failed;
}

/* The lane expected to finish a new frame first: its queued frames and the
 * new one at its measured time per frame (unmeasured lanes first, the one
 * with fewer frames queued on a tie). -1 when that lane is full (the caller
 * takes a frame out first) or none is usable. A temporal chain stays on the
 * first usable device. */
static int choose_lane(clv__sched *m)
{
    int temporal = clv__chain_temporal(m->chain), best = -1;
    double best_t = 0, fastest = 0;
    for (int i = 0; i < m->lane_count; i++)
        if (lane_usable(m, i) && m->lanes[i].ms > 0 && (fastest == 0 || m->lanes[i].ms < fastest))
            fastest = m->lanes[i].ms;
    /* A lane left out for being slow is given a frame again now and then,
     * to measure it anew (the load may have changed): when the frames since
     * its last took the fastest 20 times as long as one of its own, so
     * that the wait on it costs at most about 5%. */
    for (int i = 0; !temporal && fastest > 0 && i < m->lane_count; i++) {
        const clv__lane *l = &m->lanes[i];
        if (lane_usable(m, i) && !lane_pending(l) &&
            (double)(m->submits - l->last_given) * fastest >= 20 * l->ms)
            return i;
    }
    for (int i = 0; i < m->lane_count; i++) {
        if (!lane_usable(m, i))
            continue;
        const clv__lane *l = &m->lanes[i];
        /* Unmeasured: one frame until its time is known, and none to the
         * others meanwhile (a slow one would be chosen for being known). */
        if (l->ms == 0 && lane_pending(l) > 0 && !temporal)
            return -1;
        double t = (lane_pending(l) + 1) * l->ms;
        int gpu = m->dctx[l->device]->dev.is_gpu,
            best_gpu = best >= 0 && m->dctx[m->lanes[best].device]->dev.is_gpu;
        if (best < 0 || t < best_t ||
            (t == best_t &&
             (gpu > best_gpu ||
              (gpu == best_gpu && lane_pending(l) < lane_pending(&m->lanes[best]))))) {
            best = i;
            best_t = t;
        }
        if (temporal)
            break;
    }
    return best >= 0 && !lane_full(&m->lanes[best]) ? best : -1;
}

static int push_order(clv__sched *m, int lane, int slot)
{
    if (m->order_count == m->order_cap)
        return -1;
    int at = (m->order_head + m->order_count++) % m->order_cap;
    m->order[at] = lane;
    m->order_slot[at] = slot;
    return 0;
}

/* Device d failed: every lane of it with frames in flight (and the frame
 * written into lane `unsent`'s input memory but not sent, when unsent >= 0;
 * or the jobs device d's sender had not sent when it stopped at a failed
 * one) is sent again, in order, through a rescue lane on the usable device
 * expected to be fastest. A frame the caller holds (taken, not released)
 * has been given out already: it stays where it is and is not sent again. */
static int fail_device(clv__sched *m, int d, int unsent, uint64_t unsent_index, const char *why,
                       clv_msg *msg)
{
    /* Every sender quiet: the failed device's lanes are read and its
     * frames run again on another device's chain. A send of this device
     * that failed on its sender is the frame not sent, already in the
     * order. */
    quiet_all(m);
    int ordered = 0, unsent_n = unsent >= 0;
    clv__sender *own = lane_sender(m, d);
    if (own && own->err) { /* its jobs, the failed one first, are in the order */
        /* The sender stays stopped (err) until its jobs have moved, below;
         * they hold no chain (sender_main let go of them). */
        unsent = d;
        unsent_n = own->job_count;
        ordered = 1;
    }
    m->dev[d].failed = 1;
    m->chosen = -1;
    clv__log(m->dctx[d], CLV__LOG_WARN,
             "device %d (%s) failed: %s; its frames in flight go to the other devices", d,
             m->dev[d].name, why);
    for (int i = 0; i < m->lane_count; i++) {
        clv__lane *l = &m->lanes[i];
        int extra = i == unsent ? unsent_n : 0, held = i == m->holding_lane;
        if (l->device != d || (l->pipe->pending - held == 0 && !extra))
            continue;
        int target = -1;
        for (int k = 0; k < m->lane_count; k++)
            if (lane_usable(m, k) && (target < 0 || m->lanes[k].ms < m->lanes[target].ms))
                target = k;
        if (target < 0)
            return clv__fail(msg, CLV_ECL, "device %d (%s) failed (%s) and no other device is left",
                             d, m->dev[d].name, why);
        int t = m->lanes[target].device;
        if (m->lane_count == m->lane_cap) {
            clv__lane *grown = realloc(m->lanes, (size_t)m->lane_cap * 2 * sizeof *grown);
            if (!grown)
                return clv__fail(msg, CLV_ENOMEM, "out of memory");
            m->lanes = grown;
            m->lane_cap *= 2;
            l = &m->lanes[i];
        }
        clv__pipe *failed = l->pipe, *rescue = NULL;
        int sent = failed->pending - held, n = sent + extra;
        clv_stage_options o = failed->opt;
        o.slots = n < 2 ? 2 : n;
        int err = clv__pipe_create(m->dctx[t], &o, clv__chain_at(m->chain, t), &rescue, msg);
        for (int k = 0; !err && k < n; k++) {
            int at = (failed->next - sent + k + failed->count) % failed->count;
            clv__slot *s = &failed->slots[at];
            clv__pipe_slot_input(failed, s, clv__pipe_input(rescue));
            uint64_t index = k < sent ? s->frame_index
                             : ordered
                                 ? own->jobs[(own->job_head + k - sent) % failed->count].frame_index
                                 : unsent_index;
            err = clv__pipe_submit(rescue, index, msg);
        }
        if (err) {
            clv__pipe_destroy(rescue);
            return err;
        }
        int r = m->lane_count++;
        m->lanes[r] =
            (clv__lane){.pipe = rescue, .device = t, .draining = 1, .ms = m->lanes[target].ms};
        /* The rescue's k-th frame is in its slot k. */
        for (int k = held, moved = 0; k < m->order_count; k++) { /* the held one is first */
            int at = (m->order_head + k) % m->order_cap;
            if (m->order[at] == i) {
                m->order[at] = r;
                m->order_slot[at] = moved++;
            }
        }
        if (extra && !ordered && push_order(m, r, sent))
            return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
        /* The failed lane's frames are now the rescue's (but the held one,
         * released from this lane). */
        failed->pending = held;
        failed->holding = held;
    }
    if (ordered) { /* its jobs moved: the sender is idle (and never used again) */
        pthread_mutex_lock(&own->lock);
        own->job_count = own->job_head = 0;
        own->err = 0;
        pthread_mutex_unlock(&own->lock);
    }
    for (int i = 0; i < m->lane_count; i++) /* every sender quiet: the pipes' own counts */
        m->lanes[i].queued = m->lanes[i].pipe->pending;
    return 0;
}

/* Waits for lane i's send in flight; when it failed, its device fails now
 * (its frames, that one too, sent again on another) and *failed is set. */
static int lane_wait(clv__sched *m, int i, int *failed, clv_msg *msg)
{
    clv__sender *s = lane_sender(m, i);
    *failed = 0;
    if (!s)
        return 0;
    lane_settle(m, i, 0);
    if (!s->err)
        return 0;
    *failed = 1;
    clv_msg why = s->why;
    return fail_device(m, m->lanes[i].device, -1, 0, why.text, msg);
}

void clv__sched_destroy(clv__sched *m)
{
    if (!m)
        return;
    for (int d = 0; d < m->device_count; d++)
        sender_stop(&m->send[d]);
    for (int i = 0; i < m->lane_count; i++)
        clv__pipe_destroy(m->lanes[i].pipe);
    free(m->lanes);
    free(m->order);
    free(m->order_slot);
    free(m);
}

int clv__sched_create(clv_context *ctx, const clv_stage_options *options, clv_chain *chain,
                      clv__sched **out, clv_msg *msg)
{
    clv__sched *m = calloc(1, sizeof *m);
    int n = clv_context_device_count(ctx);
    int slots = options->slots >= 2 ? options->slots : 3;
    if (m) {
        m->lanes = calloc((size_t)n * 2, sizeof *m->lanes);
        m->order = calloc((size_t)(n * slots + 1), sizeof *m->order);
        m->order_slot = calloc((size_t)(n * slots + 1), sizeof *m->order_slot);
    }
    if (!m || !m->lanes || !m->order || !m->order_slot) {
        if (m) {
            free(m->lanes);
            free(m->order);
            free(m->order_slot);
        }
        free(m);
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    }
    m->ctx = ctx;
    m->chain = chain;
    m->opt = *options;
    m->lane_cap = n * 2;
    m->order_cap = n * slots + 1;
    m->device_count = n;
    m->chosen = m->given = m->holding_lane = -1;
    for (int d = 0; d < n; d++) {
        m->dctx[d] = clv__context_at(ctx, d);
        m->dev[d].name = clv_context_device(m->dctx[d])->name;
        clv_stage_options timed = *options;
        timed.profiling = 1; /* the upload and download queues: each device's time per frame */
        int err =
            clv__pipe_create(m->dctx[d], &timed, clv__chain_at(chain, d), &m->lanes[d].pipe, msg);
        if (err) {
            clv__sched_destroy(m);
            return err;
        }
        m->lanes[d].device = d;
        m->lane_count = d + 1;
    }
    m->out_w = m->lanes[0].pipe->out_w;
    m->out_h = m->lanes[0].pipe->out_h;
    for (int d = 0; d < n; d++)
        sender_start(m, d);
    *out = m;
    return 0;
}

uint8_t *clv__sched_input(clv__sched *m)
{
    /* A chain of another output size: every frame in flight out first (they
     * come back in order), then each lane makes its output side again. */
    int w, h;
    if (!clv__pipe_wanted(m->lanes[0].pipe, &w, &h, NULL) && (w != m->out_w || h != m->out_h)) {
        if (m->order_count)
            return NULL;
        m->out_w = w;
        m->out_h = h;
    }
    if (m->err)
        return NULL;
    /* Memory given out already holds the caller's frame (or will): the
     * same again, even where the lane's sender stopped at a failed send
     * since (the frame then queues behind that one and moves with it).
     * Where its device failed meanwhile (in clv__sched_output), the frame
     * is copied into the lane chosen now. */
    int moved_from = -1;
    if (m->given >= 0) {
        clv__lane *g = &m->lanes[m->given];
        if (lane_usable(m, m->given)) {
            m->chosen = m->given;
            return clv__pipe_slot_memory(g->pipe, g->send_next);
        }
        moved_from = m->given;
        m->given = -1;
    }
    for (;;) {
        if (m->chosen < 0 || !lane_usable(m, m->chosen) || lane_full(&m->lanes[m->chosen]))
            m->chosen = choose_lane(m);
        if (m->chosen < 0)
            return NULL;
        clv__lane *l = &m->lanes[m->chosen];
        int state = lane_poll(m, m->chosen);
        uint8_t *mem = NULL;
        if (state == 0) /* its sender busy: the slot after its jobs (not full: free) */
            mem = clv__pipe_slot_memory(l->pipe, l->send_next);
        else if (state == 1) { /* idle: the pipe is the caller's */
            l->send_next = l->pipe->next;
            mem = clv__pipe_input(l->pipe);
        }
        if (state >= 0) {
            if (mem && moved_from >= 0) {
                const clv__lane *f = &m->lanes[moved_from];
                memcpy(mem, clv__pipe_slot_memory(f->pipe, f->send_next), l->pipe->in_size);
            }
            if (mem)
                m->given = m->chosen;
            return mem;
        }
        /* Its sender stopped at a failed send: the device fails now, its
         * frames move, and the choice is made again. */
        int failed, err = lane_wait(m, m->chosen, &failed, &m->err_msg);
        m->chosen = -1;
        if (err) {
            m->err = err; /* said by the next submit or output */
            return NULL;
        }
    }
}

/* A failure clv__sched_input found, said now (once). */
static int said_error(clv__sched *m, clv_msg *msg)
{
    int err = m->err;
    *msg = m->err_msg;
    m->err = 0;
    return err;
}

clv__pipe *clv__sched_next(clv__sched *m)
{
    return clv__sched_input(m) ? m->lanes[m->chosen].pipe : NULL;
}

int clv__sched_send(clv__sched *m, uint64_t frame_index, const clv__stage_source *src, clv_msg *msg)
{
    if (m->err)
        return said_error(m, msg);
    if (!clv__sched_input(m))
        return m->err ? said_error(m, msg)
                      : clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    int i = m->chosen;
    m->chosen = m->given = -1;
    m->lanes[i].last_given = m->submits++;
    clv_msg why = {{0}};
    int d = m->lanes[i].device, err;
    clv__pipe *p = m->lanes[i].pipe;
    clv__sender *s = lane_sender(m, i);
    if (s) {
        /* A job for the lane's sender, after those it has: the slot after
         * theirs, free (clv__sched_input found the lane not full). */
        clv__lane *l = &m->lanes[i];
        clv__send_job job = {.chain = clv__chain_at(m->chain, d),
                             .frame_index = frame_index,
                             .slot = l->send_next,
                             .has_src = src != NULL,
                             .inject = m->fault_submit[d]};
        m->fault_submit[d] = 0;
        if (src)
            job.src = *src;
        /* Where the frame lies, should the device fail before it is sent
         * (the sender does not touch this slot until it takes the job). */
        clv__stage_source none = {0};
        p->slots[job.slot].from = src ? *src : none;
        l->send_next = (job.slot + 1) % p->count;
        pthread_mutex_lock(&s->lock); /* s->pipe is p, from the start */
        /* A stopped sender never sends it (fail_device moves it): no hold. */
        if (job.chain && !s->err)
            clv__chain_hold(job.chain);
        else
            job.chain = NULL;
        s->jobs[(s->job_head + s->job_count++) % p->count] = job;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        l->queued++;
        return push_order(m, i, job.slot)
                   ? clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight")
                   : 0;
    }
    /* Where the frame lies, should the device fail before it is sent. */
    clv__stage_source none = {0};
    p->slots[p->next].from = src ? *src : none;
    if (m->fault_submit[d]) {
        m->fault_submit[d] = 0;
        err = CLV_ECL;
        snprintf(why.text, sizeof why.text, "injected fault at a submit");
    } else {
        err = src ? clv__pipe_send(p, frame_index, src, &why)
                  : clv__pipe_submit(p, frame_index, &why);
    }
    if (!err) {
        m->lanes[i].queued++;
        return push_order(m, i, (p->next - 1 + p->count) % p->count)
                   ? clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight")
                   : 0;
    }
    return fail_device(m, d, i, frame_index, why.text, msg);
}

int clv__sched_submit(clv__sched *m, uint64_t frame_index, clv_msg *msg)
{
    return clv__sched_send(m, frame_index, NULL, msg);
}

int clv__sched_output(clv__sched *m, const uint8_t **out, uint64_t *frame_index, clv_msg *msg)
{
    if (m->err)
        return said_error(m, msg);
    if (!m->order_count || m->holding_lane >= 0)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: no frame to take");
    for (;;) {
        int i = m->order[m->order_head], slot = m->order_slot[m->order_head];
        /* The frame's own send done; the lane's sender may be sending
         * later frames into other slots meanwhile. A frame not sent when
         * the sender stopped at a failed send (that one, or one after it:
         * every frame sent before has finished) fails its device first. */
        clv__sender *s = lane_sender(m, i);
        int failed = 0;
        if (s) { /* finished by the lane's finisher, or not sent */
            clv__slot *f = &m->lanes[i].pipe->slots[slot];
            pthread_mutex_lock(&s->lock);
            while (!f->fin.finished && !(failed = s->err && !s->fin_count))
                pthread_cond_wait(&s->changed, &s->lock);
            f->fin.finished = 0;
            pthread_mutex_unlock(&s->lock);
        }
        if (failed) {
            int err = lane_wait(m, i, &failed, msg);
            if (err)
                return err;
            continue; /* the frame is on a rescue lane now */
        }
        clv__lane *l = &m->lanes[i];
        int d = l->device, err;
        clv_msg why = {{0}};
        if (m->fault_set[d] && m->dev[d].frames >= m->fault_after[d]) {
            err = CLV_ECL;
            snprintf(why.text, sizeof why.text, "injected fault after %llu frames",
                     (unsigned long long)m->fault_after[d]);
        } else {
            if (!s)
                clv__pipe_finish(l->pipe, slot);
            err = clv__pipe_take(l->pipe, slot, out, frame_index, &why);
        }
        if (err == CLV_ETIMEOUT) { /* the kernel's fault, not the device's: no retry */
            *msg = why;
            return err;
        }
        if (err) {
            if ((err = fail_device(m, d, -1, 0, why.text, msg)))
                return err;
            continue; /* the frame is on a rescue lane now */
        }
        /* The device's own clock: from the upload's start (or the previous
         * frame's end, when it was still busy) to the download's end. */
        const clv__pipe *one = l->pipe;
        m->dev[d].frames++;
        if (one->out_end > 0) {
            double from = one->out_start > l->last_done ? one->out_start : l->last_done;
            double service = (one->out_end - from) * 1000;
            l->last_done = one->out_end;
            l->ms = l->ms > 0 ? 0.7 * l->ms + 0.3 * service : service;
            m->dev[d].busy_ms += service;
        }
        if (!l->draining) /* the device's other lanes learn its speed too */
            for (int k = 0; k < m->lane_count; k++)
                if (m->lanes[k].device == d && m->lanes[k].draining)
                    m->lanes[k].ms = l->ms;
        m->holding_lane = i;
        return 0;
    }
}

void clv__sched_release(clv__sched *m)
{
    if (m->holding_lane < 0)
        return;
    clv__lane *l = &m->lanes[m->holding_lane];
    clv__sender *s = lane_sender(m, m->holding_lane);
    if (s) {
        /* Its sender may be sending the lane's next frames: the slot is
         * taken off the pipe's count by whichever owns the pipe next. */
        l->pipe->holding = 0;
        pthread_mutex_lock(&s->lock);
        s->released++;
        pthread_mutex_unlock(&s->lock);
    } else {
        clv__pipe_release(l->pipe);
    }
    l->queued--;
    m->holding_lane = -1;
    m->order_head = (m->order_head + 1) % m->order_cap;
    m->order_count--;
}

void clv__sched_settle(clv__sched *m)
{
    for (int i = 0; i < m->device_count && !m->err; i++) {
        int failed;
        m->err = lane_wait(m, i, &failed, &m->err_msg);
    }
}

void clv__sched_hold_sends(clv__sched *m, int device, int hold)
{
    clv__sender *s = device >= 0 && device < m->device_count ? lane_sender(m, device) : NULL;
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->held = hold != 0;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

clv_block *clv__sched_keep(clv__sched *m)
{
    /* The held slot's output only: its sender never touches that slot. */
    return m->holding_lane >= 0 ? clv__pipe_keep(m->lanes[m->holding_lane].pipe) : NULL;
}

void clv__sched_set_chain(clv__sched *m, clv_chain *chain)
{
    quiet_all(m);
    m->chain = chain;
    for (int i = 0; i < m->lane_count; i++) {
        clv__pipe_set_chain(m->lanes[i].pipe, clv__chain_at(chain, m->lanes[i].device));
        m->lanes[i].ms = 0; /* another chain: measured again */
    }
}
