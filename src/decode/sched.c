/*
 * sched.c - per-thread scheduling state (see sched.h).
 */
#include "decode/sched.h"

#include "etl/etl.h"

#include <stdlib.h>
#include <string.h>

/* KTHREAD_STATE values (format.md §9.2). */
#define ST_READY 1
#define ST_RUNNING 2
#define ST_STANDBY 3
#define ST_TERMINATED 4
#define ST_WAITING 5
#define ST_DEFERRED_READY 7

/* Most threads kept at once: those switched out and not yet back, and
 * those readied. Past it the older half is forgotten (sweep). The fuzz
 * builds make it smaller (FUZZ_DEFS in the Makefile) to reach the sweep. */
#ifndef SCHED_KEPT
#define SCHED_KEPT (1u << 18)
#endif

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
    bool spent;                /* used up by a switch-in: its slot is kept for
                                * the thread's next switch-out, but it holds
                                * nothing (has_out, has_rt false) and counts
                                * as no entry */
};

/* Where a CPU's running thread was last seen in the table: its key and
 * slot, from its switch-in. Its switch-out, the CPU's next switch, mostly
 * looks for that key: the slot is tried first (the table may have been
 * rebuilt since: the key in the slot says). */
struct oncpu {
    uint64_t key;              /* 0: none */
    size_t slot;
};

struct etl_sched {
    const struct etl_procmap *map;
    struct tstate *t;
    size_t n, cap;             /* entries (spent ones aside), slots (a power of two) */
    size_t nspent;             /* spent entries */
    uint32_t epoch;            /* known gaps so far */
    uint64_t forgotten;        /* threads dropped by sweeps */
    struct oncpu *on;          /* by CPU */
    size_t non;
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
    free(s->on);
    free(s);
}

/* Returns a thread's key: its lifetime when the trace describes it, else
 * its TID. Never 0. */
static uint64_t thread_key(const struct etl_who *w, uint32_t tid)
{
    return w->thread != ETL_PM_NONE ? (1ull << 32) | w->thread : (2ull << 32) | tid;
}

static inline size_t key_slot(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

/* Puts entry e into table t of ncap slots (it is not there). */
static void put(struct tstate *t, size_t ncap, const struct tstate *e)
{
    size_t j = key_slot(e->key, ncap);
    while (t[j].key)
        j = (j + 1) & (ncap - 1);
    t[j] = *e;
}

/* When an entry last learnt something, or INT64_MIN when what it holds is
 * from before the latest gap (so worth nothing). */
static int64_t last_news(const struct etl_sched *s, const struct tstate *e)
{
    int64_t t = INT64_MIN;
    if (e->has_out && e->out_epoch == s->epoch)
        t = e->out_ts;
    if (e->has_rt && e->rt_epoch == s->epoch && e->rt_ts > t)
        t = e->rt_ts;
    return t;
}

/* What a sweep keeps: the entries learnt of at lo + cut or later. */
struct keep {
    bool sweep;                /* false: keep everything */
    int64_t lo;
    uint64_t cut;
};

static bool kept(const struct etl_sched *s, const struct tstate *e, const struct keep *k)
{
    if (!k->sweep)
        return true;
    int64_t t = last_news(s, e);
    return t != INT64_MIN && (uint64_t)t - (uint64_t)k->lo >= k->cut;
}

/* Moves the entries to keep into a new table of ncap slots; false when out
 * of memory. */
static bool rebuild(struct etl_sched *s, size_t ncap, const struct keep *k)
{
    struct tstate *t = calloc(ncap, sizeof *t);
    if (!t)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->t[i].key || s->t[i].spent)
            continue;
        if (kept(s, &s->t[i], k)) {
            put(t, ncap, &s->t[i]);
            n++;
        } else if (last_news(s, &s->t[i]) != INT64_MIN) {
            s->forgotten++;
        }
    }
    free(s->t);
    s->t = t;
    s->cap = ncap;
    s->n = n;
    s->nspent = 0;
    return true;
}

/* What a sweep keeps: about the newer half of the entries by when they last
 * learnt something, from a histogram (no sort, no allocation); at least
 * half of them go, and all from before the latest gap. */
static struct keep sweep_keep(const struct etl_sched *s)
{
    enum { BINS = 256 };
    struct keep k = { true, INT64_MAX, 0 };
    int64_t hi = INT64_MIN;
    for (size_t i = 0; i < s->cap; i++) {
        int64_t t = s->t[i].key ? last_news(s, &s->t[i]) : INT64_MIN;
        if (t == INT64_MIN)
            continue;
        k.lo = t < k.lo ? t : k.lo;
        hi = t > hi ? t : hi;
    }
    if (hi == INT64_MIN)
        return k;              /* nothing worth keeping */
    uint32_t bin[BINS] = { 0 };
    uint64_t width = ((uint64_t)hi - (uint64_t)k.lo) / BINS + 1, n = 0;
    for (size_t i = 0; i < s->cap; i++) {
        int64_t t = s->t[i].key ? last_news(s, &s->t[i]) : INT64_MIN;
        if (t != INT64_MIN) {
            bin[((uint64_t)t - (uint64_t)k.lo) / width]++;
            n++;
        }
    }
    uint64_t below = 0;
    for (unsigned b = 0; b < BINS; b++) {
        below += bin[b];
        if (below * 2 >= n) {
            k.cut = (b + 1) * width;
            break;
        }
    }
    return k;
}

/* Removes slot j, moving later entries of its probe run back (linear
 * probing's deletion, so no tombstones). */
static void remove_slot(struct etl_sched *s, size_t j)
{
    size_t mask = s->cap - 1;
    if (s->t[j].spent)
        s->nspent--;
    else
        s->n--;
    for (size_t k = (j + 1) & mask; s->t[k].key; k = (k + 1) & mask) {
        size_t home = key_slot(s->t[k].key, s->cap);
        /* k's entry may move to j when j lies on its way from home to k */
        if (((k - home) & mask) >= ((k - j) & mask)) {
            s->t[j] = s->t[k];
            j = k;
        }
    }
    memset(&s->t[j], 0, sizeof s->t[j]);
}

/* Returns the key of thread tid at ts (w: who it is, or NULL to look it up). */
static uint64_t key_of(const struct etl_sched *s, uint32_t tid, int64_t ts,
                       const struct etl_who *w)
{
    struct etl_who own;
    if (!w) {
        etl_procmap_who(s->map, tid, ts, &own);
        w = &own;
    }
    return thread_key(w, tid);
}

/* Returns the slot of key, or of the empty slot where it would go. */
static inline size_t slot_of(const struct etl_sched *s, uint64_t key)
{
    size_t j = key_slot(key, s->cap);
    while (s->t[j].key && s->t[j].key != key)
        j = (j + 1) & (s->cap - 1);
    return j;
}

/* Returns the state of the thread of key, found at slot j (slot_of's
 * answer), adding it; NULL when out of memory. */
static struct tstate *state_at(struct etl_sched *s, uint64_t key, size_t j)
{
    if (s->t[j].key && !s->t[j].spent)
        return &s->t[j];
    /* A new entry; a spent one of the key takes no new slot. Spent entries
     * go when the table is rebuilt: when it grows, when a sweep comes, or
     * when with them it would be three quarters full. */
    bool revive = s->t[j].key != 0;
    bool full = s->n + 1 > SCHED_KEPT, grow = (s->n + 1) * 2 > s->cap;
    if (full || grow || (!revive && (s->n + s->nspent + 1) * 4 > s->cap * 3)) {
        struct keep k = { false, 0, 0 };
        if (full)
            k = sweep_keep(s);
        if (!rebuild(s, grow && !full ? s->cap * 2 : s->cap, &k))
            return NULL;
        j = slot_of(s, key);
        revive = false;
    }
    if (revive)
        s->nspent--;
    memset(&s->t[j], 0, sizeof s->t[j]);
    s->t[j].key = key;
    s->n++;
    return &s->t[j];
}

/* The new thread of a switch at ts: what its past says. A past that lies
 * after ts (a clock that went back) says nothing, as after a gap. */
static void switch_in(const struct etl_sched *s, const struct tstate *t, int64_t ts,
                      struct etl_sched_facts *f)
{
    bool out = t->has_out && t->out_epoch == s->epoch && t->out_ts <= ts;
    bool rt = t->has_rt && t->rt_epoch == s->epoch && t->rt_ts <= ts &&
              (!out || t->rt_ts >= t->out_ts);
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
}

/* Makes room in s->on for CPU cpu; false when out of memory. */
static bool grow_on(struct etl_sched *s, uint16_t cpu)
{
    size_t n = (size_t)cpu + 1;
    struct oncpu *a = realloc(s->on, n * sizeof *a);
    if (!a)
        return false;
    memset(a + s->non, 0, (n - s->non) * sizeof *a);
    s->on = a;
    s->non = n;
    return true;
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
        uint64_t key = key_of(s, rd->tid, it->ts, NULL);
        struct tstate *t = state_at(s, key, slot_of(s, key));
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
    if (sw->cpu >= s->non && !grow_on(s, sw->cpu))
        return false;
    struct oncpu *on = &s->on[sw->cpu];
    if ((sw->has & SW_OLD_TID) && sw->old_tid != 0) {
        uint64_t key = key_of(s, sw->old_tid, sw->ts, wo);
        size_t j = on->key == key && s->t[on->slot].key == key ? on->slot : slot_of(s, key);
        struct tstate *t = &s->t[j];
        if ((sw->has & SW_OLD_STATE) && sw->old_state == ST_TERMINATED) {
            /* it never runs again: forget it (its TID may come back) */
            if (t->key)
                remove_slot(s, j);
        } else {
            if (t->key && t->spent && (s->n + 1) * 2 <= s->cap && s->n + 1 <= SCHED_KEPT) {
                /* The usual switch-out: its spent entry taken back as it
                 * stands (state_at's way when the table needs no rebuild). */
                s->nspent--;
                s->n++;
                memset(t, 0, sizeof *t);
                t->key = key;
            } else if ((t = state_at(s, key, j)) == NULL) {
                return false;
            }
            t->has_out = true;
            t->out_ts = sw->ts;
            t->out_epoch = s->epoch;
            t->out_has_state = (sw->has & SW_OLD_STATE) != 0;
            t->out_state = sw->old_state;
            t->out_has_wr = (sw->has & SW_OLD_WAIT_REASON) != 0;
            t->out_wr = sw->old_wait_reason;
            t->has_rt = false; /* ReadyThreads count from the switch-out on */
        }
    }
    if ((sw->has & SW_NEW_TID) && sw->new_tid != 0) {
        /* What is known of it is used once: a thread on a CPU has no entry. */
        uint64_t key = key_of(s, sw->new_tid, sw->ts, wn);
        size_t j = slot_of(s, key);
        struct tstate *t = &s->t[j];
        on->key = key;
        on->slot = j;
        if (t->key && !t->spent) {
            switch_in(s, t, sw->ts, f);
            /* Spent: it stays for the thread's switch-out to come. */
            t->spent = true;
            t->has_out = t->has_rt = false;
            s->n--;
            s->nspent++;
        }
    }
    return true;
}

uint64_t etl_sched_forgotten(const struct etl_sched *s)
{
    return s->forgotten;
}

void etl_sched_warn(const struct etl_sched *s, const struct etl_file *f)
{
    if (s->forgotten)
        etl_warn(f, "more than %u threads were off a CPU at once: what was known of %llu "
                 "of them was forgotten, and their next switch-ins have no wait figures",
                 SCHED_KEPT, (unsigned long long)s->forgotten);
}
