/* sched.c - the stage over several devices: frames dealt to the device
 * expected to finish them first, taken back in order, and a failed device's
 * frames run again on the others. */
#include "stage_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lane_pending(const clv__lane *l)
{
    return l->pipe->pending;
}

static int lane_full(const clv__lane *l)
{
    return l->pipe->pending == l->pipe->count;
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

static int push_order(clv__sched *m, int lane)
{
    if (m->order_count == m->order_cap)
        return -1;
    m->order[(m->order_head + m->order_count++) % m->order_cap] = lane;
    return 0;
}

/* Device d failed: every lane of it with frames in flight (and the frame
 * written into lane `unsent`'s input memory but not sent, when unsent >= 0)
 * is sent again, in order, through a rescue lane on the usable device
 * expected to be fastest. A frame the caller holds (taken, not released)
 * has been given out already: it stays where it is and is not sent again. */
static int fail_device(clv__sched *m, int d, int unsent, uint64_t unsent_index, const char *why,
                       clv_msg *msg)
{
    m->dev[d].failed = 1;
    m->chosen = -1;
    clv__log(m->dctx[d], CLV__LOG_WARN,
             "device %d (%s) failed: %s; its frames in flight go to the other devices", d,
             m->dev[d].name, why);
    for (int i = 0; i < m->lane_count; i++) {
        clv__lane *l = &m->lanes[i];
        int extra = i == unsent, held = i == m->holding_lane;
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
            err = clv__pipe_submit(rescue, k < sent ? s->frame_index : unsent_index, msg);
        }
        if (err) {
            clv__pipe_destroy(rescue);
            return err;
        }
        int r = m->lane_count++;
        m->lanes[r] =
            (clv__lane){.pipe = rescue, .device = t, .draining = 1, .ms = m->lanes[target].ms};
        for (int k = held; k < m->order_count; k++) /* the held one is first */
            if (m->order[(m->order_head + k) % m->order_cap] == i)
                m->order[(m->order_head + k) % m->order_cap] = r;
        if (extra && push_order(m, r))
            return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
        /* The failed lane's frames are now the rescue's (but the held one,
         * released from this lane). */
        failed->pending = held;
        failed->holding = held;
    }
    return 0;
}

void clv__sched_destroy(clv__sched *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->lane_count; i++)
        clv__pipe_destroy(m->lanes[i].pipe);
    free(m->lanes);
    free(m->order);
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
    }
    if (!m || !m->lanes || !m->order) {
        if (m) {
            free(m->lanes);
            free(m->order);
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
    m->chosen = m->holding_lane = -1;
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
    if (m->chosen >= 0 && lane_usable(m, m->chosen) && !lane_full(&m->lanes[m->chosen]))
        return clv__pipe_input(m->lanes[m->chosen].pipe);
    m->chosen = choose_lane(m);
    return m->chosen >= 0 ? clv__pipe_input(m->lanes[m->chosen].pipe) : NULL;
}

clv__pipe *clv__sched_next(clv__sched *m)
{
    return clv__sched_input(m) ? m->lanes[m->chosen].pipe : NULL;
}

int clv__sched_send(clv__sched *m, uint64_t frame_index, const clv__stage_source *src, clv_msg *msg)
{
    if (!clv__sched_input(m))
        return clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight");
    int i = m->chosen;
    m->chosen = -1;
    m->lanes[i].last_given = m->submits++;
    clv_msg why = {{0}};
    int d = m->lanes[i].device, err;
    clv__pipe *p = m->lanes[i].pipe;
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
    if (!err)
        return push_order(m, i) ? clv__fail(msg, CLV_EINVAL, "GPU stage: every slot is in flight")
                                : 0;
    return fail_device(m, d, i, frame_index, why.text, msg);
}

int clv__sched_submit(clv__sched *m, uint64_t frame_index, clv_msg *msg)
{
    return clv__sched_send(m, frame_index, NULL, msg);
}

int clv__sched_output(clv__sched *m, const uint8_t **out, uint64_t *frame_index, clv_msg *msg)
{
    if (!m->order_count || m->holding_lane >= 0)
        return clv__fail(msg, CLV_EINVAL, "GPU stage: no frame to take");
    for (;;) {
        int i = m->order[m->order_head];
        clv__lane *l = &m->lanes[i];
        int d = l->device;
        clv_msg why = {{0}};
        int err;
        if (m->fault_set[d] && m->dev[d].frames >= m->fault_after[d]) {
            err = CLV_ECL;
            snprintf(why.text, sizeof why.text, "injected fault after %llu frames",
                     (unsigned long long)m->fault_after[d]);
        } else {
            err = clv__pipe_output(l->pipe, out, frame_index, &why);
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
    clv__pipe_release(m->lanes[m->holding_lane].pipe);
    m->holding_lane = -1;
    m->order_head = (m->order_head + 1) % m->order_cap;
    m->order_count--;
}

void clv__sched_set_chain(clv__sched *m, clv_chain *chain)
{
    m->chain = chain;
    for (int i = 0; i < m->lane_count; i++) {
        clv__pipe_set_chain(m->lanes[i].pipe, clv__chain_at(chain, m->lanes[i].device));
        m->lanes[i].ms = 0; /* another chain: measured again */
    }
}
