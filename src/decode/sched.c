/*
 * sched.c - per-thread scheduling state (see sched.h).
 */
#include "decode/sched.h"

#include <stdlib.h>
#include <string.h>

/* KTHREAD_STATE values (format.md §9.2). */
#define ST_READY 1
#define ST_RUNNING 2
#define ST_STANDBY 3
#define ST_WAITING 5
#define ST_DEFERRED_READY 7

/* What is known of one thread. */
struct tstate {
    uint64_t key;              /* 0: an empty slot */
    int64_t out_ts;            /* its last switch-out */
    int64_t rt_ts;             /* the last ReadyThread for it since then */
    uint32_t out_epoch, rt_epoch;
    uint32_t rt_on_tid;        /* the thread running where it was readied */
    uint16_t rt_cpu;
    uint8_t out_state, out_wr;
    uint8_t rt_flag;
    bool has_out, out_has_state, out_has_wr;
    bool has_rt, rt_on_known;
};

struct etl_sched {
    const struct etl_procmap *map;
    struct tstate *t;
    size_t n, cap;             /* slots used, slots (a power of two) */
    uint32_t epoch;            /* known gaps so far */
};

struct etl_sched *etl_sched_new(const struct etl_procmap *map)
{
    struct etl_sched *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->map = map;
    s->cap = 256;
    s->t = calloc(s->cap, sizeof *s->t);
    if (!s->t) {
        free(s);
        return NULL;
    }
    return s;
}

void etl_sched_free(struct etl_sched *s)
{
    if (!s)
        return;
    free(s->t);
    free(s);
}

/* Returns a thread's key: its lifetime when the trace describes it, else
 * its TID. Never 0. */
static uint64_t thread_key(const struct etl_who *w, uint32_t tid)
{
    return w->thread != ETL_PM_NONE ? (1ull << 32) | w->thread : (2ull << 32) | tid;
}

static size_t key_slot(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

/* Doubles the table; false when out of memory. */
static bool grow_table(struct etl_sched *s)
{
    size_t ncap = s->cap * 2;
    struct tstate *t = calloc(ncap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->t[i].key)
            continue;
        size_t j = key_slot(s->t[i].key, ncap);
        while (t[j].key)
            j = (j + 1) & (ncap - 1);
        t[j] = s->t[i];
    }
    free(s->t);
    s->t = t;
    s->cap = ncap;
    return true;
}

/* Returns the state of thread tid at ts, adding it; NULL when out of
 * memory. */
static struct tstate *state_of(struct etl_sched *s, uint32_t tid, int64_t ts,
                               const struct etl_who *w)
{
    struct etl_who own;
    if (!w) {
        etl_procmap_who(s->map, tid, ts, &own);
        w = &own;
    }
    uint64_t key = thread_key(w, tid);
    size_t j = key_slot(key, s->cap);
    while (s->t[j].key) {
        if (s->t[j].key == key)
            return &s->t[j];
        j = (j + 1) & (s->cap - 1);
    }
    if ((s->n + 1) * 2 > s->cap) {
        if (!grow_table(s))
            return NULL;
        j = key_slot(key, s->cap);
        while (s->t[j].key)
            j = (j + 1) & (s->cap - 1);
    }
    memset(&s->t[j], 0, sizeof s->t[j]);
    s->t[j].key = key;
    s->n++;
    return &s->t[j];
}

/* The new thread of a switch: what its past says. */
static void switch_in(struct etl_sched *s, struct tstate *t, struct etl_sched_facts *f)
{
    bool out = t->has_out && t->out_epoch == s->epoch;
    bool rt = t->has_rt && t->rt_epoch == s->epoch;
    if (out) {
        f->has |= ETL_SF_SINCE;
        f->since = t->out_ts;
        if (t->out_has_state && t->out_state == ST_WAITING) {
            f->has |= ETL_SF_WAIT;
            if (t->out_has_wr) {
                f->has |= ETL_SF_REASON;
                f->out_wait_reason = t->out_wr;
            }
            if (rt) {
                f->has |= ETL_SF_READY | ETL_SF_WAITED;
                f->ready_from = f->wait_to = t->rt_ts;
                f->wait_from = t->out_ts;
            }
        } else if (t->out_has_state) { /* preempted */
            unsigned st = t->out_state;
            if (st == ST_READY || st == ST_RUNNING || st == ST_STANDBY || st == ST_DEFERRED_READY)
                f->has |= ETL_SF_RUNNABLE;
            f->has |= ETL_SF_READY | ETL_SF_WAITED;
            f->ready_from = f->wait_from = f->wait_to = t->out_ts;
        }
    } else if (rt) {
        f->has |= ETL_SF_READY;
        f->ready_from = t->rt_ts;
    }
    if (rt) {
        f->has |= ETL_SF_READIED;
        f->readied_at = t->rt_ts;
        f->readying_cpu = t->rt_cpu;
        f->ready_flag = t->rt_flag;
        if (t->rt_on_known) {
            f->has |= ETL_SF_READIER;
            f->readying_tid = t->rt_on_tid;
        }
    }
    t->has_out = false;
    t->has_rt = false;
}

bool etl_sched_take(struct etl_sched *s, const struct etl_sched_item *it,
                    const struct etl_who *wo, const struct etl_who *wn,
                    struct etl_sched_facts *f)
{
    if (it->gap)
        s->epoch++;
    if (it->kind == ETL_SCHED_READY) {
        const struct etl_ready *rd = &it->u.ready;
        if (rd->tid == 0)
            return true;
        struct tstate *t = state_of(s, rd->tid, it->ts, NULL);
        if (!t)
            return false;
        t->has_rt = true;
        t->rt_ts = it->ts;
        t->rt_epoch = s->epoch;
        t->rt_cpu = it->cpu;
        t->rt_flag = rd->flag;
        t->rt_on_known = it->on_known;
        t->rt_on_tid = it->on_tid;
        return true;
    }
    if (it->kind != ETL_SCHED_SWITCH)
        return true;
    const struct etl_switch *sw = &it->u.sw;
    memset(f, 0, sizeof *f);
    if ((sw->has & SW_OLD_TID) && sw->old_tid != 0) {
        struct tstate *t = state_of(s, sw->old_tid, sw->ts, wo);
        if (!t)
            return false;
        t->has_out = true;
        t->out_ts = sw->ts;
        t->out_epoch = s->epoch;
        t->out_has_state = (sw->has & SW_OLD_STATE) != 0;
        t->out_state = sw->old_state;
        t->out_has_wr = (sw->has & SW_OLD_WAIT_REASON) != 0;
        t->out_wr = sw->old_wait_reason;
        t->has_rt = false; /* ReadyThreads count from the switch-out on */
    }
    if ((sw->has & SW_NEW_TID) && sw->new_tid != 0) {
        struct tstate *t = state_of(s, sw->new_tid, sw->ts, wn);
        if (!t)
            return false;
        switch_in(s, t, f);
    }
    return true;
}
