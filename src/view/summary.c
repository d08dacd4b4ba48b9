/*
 * summary.c - the scheduling summary (--summary): per process, per thread
 * and per CPU, who ran, who waited and why, and where the CPU time went, as
 * xperf's "-a cswitch -process -thread" and WPA's CPU Usage (Precise) do;
 * then the DPC and ISR routines by time.
 *
 * One pass over the scheduling events in time order (swreader.h), each
 * thread resolved to its process at the event's time (procmap.h), what each
 * switch says about its new thread from sched.h:
 *
 *   run        from a switch-in on a CPU to the next switch on that CPU,
 *              when both are seen, no known gap lies between them, and the
 *              second switches out the thread the first switched in; the
 *              DPC and ISR time inside it is not the thread's;
 *   cpu_time   the sum of a thread's runs; switch_ins the switches to it;
 *   wait       counted at the switch-in that ends it: with ReadyThread
 *              events in the file, the span from a switch-out in Waiting to
 *              the last ReadyThread for the thread (new_waited); without,
 *              from the switch-out to the switch-in;
 *   ready      with ReadyThread events, new_ready of each switch-in; without,
 *              from a switch-out while still runnable (Ready, Running,
 *              Standby, DeferredReady) to the switch-in;
 *   migration  a switch-in on another CPU than the one the thread was last
 *              seen on (switched in or out);
 *   busy/idle  a CPU's runs of other threads / of the idle thread (TID 0),
 *              the idle time also by the C-state the CPU left;
 *   DPC, ISR   exclusive time (a nested routine's time is the inner one's),
 *              per CPU, per routine, and per process of the interrupted
 *              thread when it is known.
 *
 * --range clips every span to the window and counts a switch when its time
 * is in it; --cpu counts runs, switches and DPC/ISR time on those CPUs (a
 * wait or a ready span by the CPU of the switch-in that ends it). --tid,
 * --pid and --process choose which process and thread rows are shown (CPU
 * rows are then left out). Thread rows are threads (TID within its process
 * lifetime); process rows add up their threads. Rows are sorted by CPU
 * time, longest first; CPU rows follow in CPU order. Memory grows with
 * threads, processes, CPUs and routines, and with the ready spans kept for
 * the percentiles (at most READY_KEPT, then every other one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "sort.h"
#include "grow.h"
#include "decode/swreader.h"
#include "decode/names.h"
#include "decode/procmap.h"
#include "decode/sched.h"
#include "view/view.h"

enum {
    M_SCOPE, M_CPU, M_PID, M_TID, M_PROCESS, M_THREAD_NAME, M_THREADS, M_CPU_TIME,
    M_SWITCH_INS, M_MEAN_RUN, M_MAX_RUN, M_WAIT_TIME, M_WAITS, M_READY_TIME,
    M_MIGRATIONS, M_BUSY_TIME, M_IDLE_TIME, M_WAIT_REASONS, M_READY_P50, M_READY_P90,
    M_READY_P99, M_READY_MAX, M_TOP_READIERS, M_DPC_TIME, M_ISR_TIME, M_IDLE_BY_CSTATE,
    M_COUNT
};

static const struct etl_column summary_cols[M_COUNT] = {
    [M_SCOPE] = { "scope", ETL_COL_NAME, -7, false },
    [M_CPU] = { "cpu", ETL_COL_UINT, 3, false },
    [M_PID] = { "pid", ETL_COL_UINT, 7, false },
    [M_TID] = { "tid", ETL_COL_UINT, 7, false },
    [M_PROCESS] = { "process", ETL_COL_STR, -16, false },
    [M_THREAD_NAME] = { "thread_name", ETL_COL_STR, 0, true },
    [M_THREADS] = { "threads", ETL_COL_UINT, 7, false },
    [M_CPU_TIME] = { "cpu_time", ETL_COL_DURATION, 13, false },
    [M_SWITCH_INS] = { "switch_ins", ETL_COL_UINT, 10, false },
    [M_MEAN_RUN] = { "mean_run", ETL_COL_DURATION, 10, false },
    [M_MAX_RUN] = { "max_run", ETL_COL_DURATION, 10, false },
    [M_WAIT_TIME] = { "wait_time", ETL_COL_DURATION, 13, false },
    [M_WAITS] = { "waits", ETL_COL_UINT, 7, false },
    [M_READY_TIME] = { "ready_time", ETL_COL_DURATION, 13, false },
    [M_MIGRATIONS] = { "migrations", ETL_COL_UINT, 10, false },
    [M_BUSY_TIME] = { "busy_time", ETL_COL_DURATION, 13, false },
    [M_IDLE_TIME] = { "idle_time", ETL_COL_DURATION, 13, false },
    [M_WAIT_REASONS] = { "wait_reasons", ETL_COL_NAME, -12, false },
    [M_READY_P50] = { "ready_p50", ETL_COL_DURATION, 0, true },
    [M_READY_P90] = { "ready_p90", ETL_COL_DURATION, 10, false },
    [M_READY_P99] = { "ready_p99", ETL_COL_DURATION, 0, true },
    [M_READY_MAX] = { "ready_max", ETL_COL_DURATION, 10, false },
    [M_TOP_READIERS] = { "top_readiers", ETL_COL_STR, 0, true },
    [M_DPC_TIME] = { "dpc_time", ETL_COL_DURATION, 10, false },
    [M_ISR_TIME] = { "isr_time", ETL_COL_DURATION, 10, false },
    [M_IDLE_BY_CSTATE] = { "idle_by_cstate", ETL_COL_NAME, 0, true },
};

const struct etl_table etl_table_summary = { "summary", summary_cols, M_COUNT, false };

enum { R_TYPE, R_ROUTINE, R_COUNT_, R_TOTAL_TIME, R_MEAN_TIME, R_MAX_TIME, R_COUNT };

static const struct etl_column routine_cols[R_COUNT] = {
    [R_TYPE] = { "type", ETL_COL_NAME, -11, false },
    [R_ROUTINE] = { "routine", ETL_COL_HEX64, -18, false },
    [R_COUNT_] = { "count", ETL_COL_UINT, 10, false },
    [R_TOTAL_TIME] = { "total_time", ETL_COL_DURATION, 13, false },
    [R_MEAN_TIME] = { "mean_time", ETL_COL_DURATION, 10, false },
    [R_MAX_TIME] = { "max_time", ETL_COL_DURATION, 10, false },
};

const struct etl_table etl_table_routines = { "routine", routine_cols, R_COUNT, false };

/* Ready spans kept for the percentiles before every other one is dropped. */
#define READY_KEPT (1u << 21)
/* Most routines told apart; the rest share one row with an empty routine. */
#define ROUTINES_MAX (1u << 16)
/* Most finished DPCs and ISRs of a CPU that a later one may still enclose. */
#define NEST_MAX 32

/* How often a thread waited for one reason. */
struct reason_count {
    uint32_t count;
    uint8_t reason;
};

/* Waits and ready time under one of the two meanings (see the top). */
struct waits {
    int64_t wait_time, ready_time;
    uint64_t waits;
    struct reason_count *wr;
    uint32_t nwr;             /* room: see room_of */
};

/* Figures of a thread or a process. */
struct figures {
    int64_t cpu_time, max_run, dpc, isr;
    uint64_t runs, switch_ins, migrations;
    struct waits w[2];        /* [0] without ReadyThread events, [1] with */
    bool oom;                 /* something could not be counted */
};

/* How often a process readied a thread, by image name. */
struct readier {
    const char *image;
    uint32_t count;
};

/* One thread row: a TID within a process lifetime (or its PID, or neither).
 * Rows are many (a thread each): the fields are packed. */
struct thr {
    uint64_t pk;              /* process key (see proc_key) */
    uint32_t tid, pid;
    uint32_t name;            /* from the map, or ETL_PM_NONE */
    uint32_t proc;            /* process lifetime, or ETL_PM_NONE */
    int32_t last_cpu;         /* where last seen, -1 before */
    uint32_t nrd;             /* readiers (room: see room_of) */
    uint32_t nrv, caprv, nready;
    bool pid_known;
    struct figures fig;
    int64_t *rv;              /* kept ready spans (ns) */
    int64_t rmax;             /* the longest ready span */
    struct readier *rd;
};

/* A finished DPC or ISR: [s, e] in ns. */
struct span {
    int64_t s, e;
};

/* One CPU's state. */
struct cpu {
    uint32_t slot;            /* thread running (index into threads) */
    int64_t since;            /* its switch-in (ns) */
    int64_t last_sw;          /* the latest switch (ns) */
    int64_t intr;             /* DPC/ISR time in the current run (clipped) */
    bool known;               /* slot is valid */
    bool seen, any_sw;
    int64_t busy, idle, dpc, isr;
    uint64_t switches;
    struct span nest[NEST_MAX];
    uint8_t nnest;
    int64_t cst[256];         /* idle time by the C-state left */
    uint8_t cst_seen[32];     /* bits */
};

/* A DPC or ISR routine. */
struct routine {
    uint64_t addr;
    int64_t time, max;
    uint64_t count;
    uint8_t type;
    bool used, other;
};

/* The routines: an open-addressing table, and the row of those past
 * ROUTINES_MAX. */
struct routines {
    struct routine *t;
    size_t n, cap;
    struct routine other;
};

struct summary {
    struct etl_file *f;
    const struct etl_filter *flt;
    const struct etl_clock *clk;
    const struct etl_procmap *map;
    struct thr *t;
    size_t n, cap;
    uint64_t *tab;            /* TID << 32 | (slot + 1), 0 empty (see tab_entry) */
    size_t tcap;
    struct cpu *cpu;          /* ETL_MAX_CPUS */
    struct routines rt;
    size_t kept;              /* ready spans kept in all rows (at most READY_KEPT + 1) */
    unsigned thin;            /* a row keeps its spans number 0, 2^thin, 2 * 2^thin, ... */
    bool oom;
};

/* ---- keys and slots ------------------------------------------------------ */

/* The process part of a thread's key: its process lifetime, else its PID,
 * else nothing. */
static uint64_t proc_key(const struct etl_who *w)
{
    if (w->proc != ETL_PM_NONE)
        return (1ull << 40) | w->proc;
    if (w->known)
        return (2ull << 40) | w->pid;
    return 0;
}

/* Returns the hash of a thread key. */
static size_t key_hash(uint32_t tid, uint64_t pk)
{
    uint64_t h = ((uint64_t)tid * 0x9E3779B97F4A7C15ull) ^ (pk * 0xC2B2AE3D27D4EB4Full);
    return (size_t)(h ^ (h >> 29));
}

/* A slot table entry: the row's TID beside its slot, so that a lookup
 * reads only the rows of its own TID (rows are many and far apart). */
static uint64_t tab_entry(uint32_t tid, size_t slot)
{
    return (uint64_t)tid << 32 | (uint32_t)(slot + 1);
}

/* Grows the slot table; false when out of memory. */
static bool rehash(struct summary *m)
{
    size_t ncap = m->tcap ? m->tcap * 2 : 1024;
    uint64_t *t = calloc(ncap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < m->n; i++) {
        size_t j = key_hash(m->t[i].tid, m->t[i].pk) & (ncap - 1);
        while (t[j])
            j = (j + 1) & (ncap - 1);
        t[j] = tab_entry(m->t[i].tid, i);
    }
    free(m->tab);
    m->tab = t;
    m->tcap = ncap;
    return true;
}

/* Returns the row of thread tid, whose process is w's, adding it;
 * UINT32_MAX when out of memory. */
static uint32_t thread_slot(struct summary *m, uint32_t tid, const struct etl_who *w)
{
    uint64_t pk = proc_key(w);
    if ((m->n + 1) * 2 > m->tcap && !rehash(m))
        return UINT32_MAX;
    size_t j = key_hash(tid, pk) & (m->tcap - 1);
    for (uint64_t e; (e = m->tab[j]) != 0; j = (j + 1) & (m->tcap - 1)) {
        uint32_t slot = (uint32_t)e - 1;
        if ((uint32_t)(e >> 32) == tid && m->t[slot].pk == pk)
            return slot;
    }
    if (!etl_grow(&m->t, &m->cap, m->n + 1, sizeof *m->t, 256))
        return UINT32_MAX;
    struct thr *t = &m->t[m->n];
    memset(t, 0, sizeof *t);
    t->pk = pk;
    t->tid = tid;
    t->pid = w->pid;
    t->pid_known = w->known;
    t->proc = w->proc;
    t->name = w->thread != ETL_PM_NONE ? etl_procmap_thread(m->map, w->thread)->name
                                       : ETL_PM_NONE;
    t->last_cpu = -1;
    m->tab[j] = tab_entry(tid, m->n);
    return (uint32_t)m->n++;
}

/* The same, looking the thread up at ts. */
static uint32_t thread_at(struct summary *m, uint32_t tid, int64_t ts)
{
    struct etl_who w;
    etl_procmap_who(m->map, tid, ts, &w);
    return thread_slot(m, tid, &w);
}

/* The same for the thread that a switch at ts on CPU c switches out: most
 * often the row c switched in, found without the table when its key is the
 * one the thread has at ts. */
static uint32_t thread_out(struct summary *m, const struct cpu *c, uint32_t tid, int64_t ts)
{
    struct etl_who w;
    etl_procmap_who(m->map, tid, ts, &w);
    if (c->known && m->t[c->slot].tid == tid && m->t[c->slot].pk == proc_key(&w))
        return c->slot;
    return thread_slot(m, tid, &w);
}

/* ---- figures ---------------------------------------------------------------- */

/* Returns a + b for durations (never negative), saturated: hostile
 * timestamps must not overflow a sum. */
static int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Returns b - a, saturated. */
static int64_t span_ns(int64_t a, int64_t b)
{
    uint64_t d = (uint64_t)b - (uint64_t)a;
    if (b < a)
        return -1;
    return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/* Returns the part of [a, b] inside --range, or -1 when they do not meet. */
static int64_t clip(const struct etl_filter *f, int64_t a, int64_t b)
{
    if (f && f->has_start && a < f->start_ns)
        a = f->start_ns;
    if (f && f->has_end && b > f->end_ns)
        b = f->end_ns;
    return span_ns(a, b);
}

/* The same, 0 when they do not meet. */
static int64_t clip0(const struct etl_filter *f, int64_t a, int64_t b)
{
    int64_t d = clip(f, a, b);
    return d > 0 ? d : 0;
}

/* Returns true if a switch at ns counts for --range. */
static bool in_range(const struct etl_filter *f, int64_t ns)
{
    return !f || ((!f->has_start || ns >= f->start_ns) && (!f->has_end || ns <= f->end_ns));
}

/* Returns the room of an array of n reasons or readiers: it grows by
 * doubling from 4, and rows do not keep it. */
static size_t room_of(size_t n)
{
    size_t c = n ? 4 : 0;
    while (c < n)
        c *= 2;
    return c;
}

/* Counts k waits for reason r; false when out of memory. */
static bool add_reason(struct waits *w, uint8_t r, uint32_t k)
{
    for (size_t i = 0; i < w->nwr; i++)
        if (w->wr[i].reason == r) {
            w->wr[i].count += k;
            return true;
        }
    size_t room = room_of(w->nwr);
    if (!etl_grow(&w->wr, &room, w->nwr + 1u, sizeof *w->wr, 4))
        return false;
    w->wr[w->nwr].reason = r;
    w->wr[w->nwr].count = k;
    w->nwr++;
    return true;
}

/* Counts one readying by a process of image img; false when out of memory. */
static bool add_readier(struct thr *t, const char *img)
{
    for (size_t i = 0; i < t->nrd; i++)
        if (strcmp(t->rd[i].image, img) == 0) {
            t->rd[i].count++;
            return true;
        }
    size_t room = room_of(t->nrd);
    if (!etl_grow(&t->rd, &room, t->nrd + 1u, sizeof *t->rd, 4))
        return false;
    t->rd[t->nrd].image = img;
    t->rd[t->nrd].count = 1;
    t->nrd++;
    return true;
}

/* Halves the ready spans kept in every row (keeping the even-numbered). */
static void thin_all(struct summary *m)
{
    m->thin++;
    m->kept = 0;
    for (size_t i = 0; i < m->n; i++) {
        struct thr *t = &m->t[i];
        uint32_t k = 0;
        for (uint32_t j = 0; j < t->nrv; j += 2)
            t->rv[k++] = t->rv[j];
        t->nrv = k;
        m->kept += k;
    }
}

/* Keeps one ready span of thread t for the percentiles; false when out of
 * memory. */
static bool add_ready(struct summary *m, struct thr *t, int64_t d)
{
    if (t->nready == 0 || d > t->rmax)
        t->rmax = d;
    uint32_t seq = t->nready++;
    if (seq & ((1u << m->thin) - 1))
        return true;
    if (t->nrv == t->caprv) {
        uint32_t ncap = t->caprv ? t->caprv * 2 : 8;
        int64_t *n = realloc(t->rv, ncap * sizeof *n);
        if (!n)
            return false;
        t->rv = n;
        t->caprv = ncap;
    }
    t->rv[t->nrv++] = d;
    if (++m->kept > READY_KEPT)
        thin_all(m);
    return true;
}

/* The waits and ready time that a switch-in of thread t ends, under both
 * meanings; ns: the switch's time; false when out of memory. */
static bool settle(struct summary *m, struct thr *t, const struct etl_sched_facts *sf, int64_t ns)
{
    const struct etl_filter *f = m->flt;
    uint32_t k = sf->has;
    int64_t since = etl_clock_ns(m->clk, sf->since);
    bool ok = true;
    /* Without ReadyThread events: from the switch-out. */
    struct waits *w = &t->fig.w[0];
    if ((k & ETL_SF_SINCE) && (k & ETL_SF_WAIT)) {
        w->waits++;
        w->wait_time = sat_add(w->wait_time, clip0(f, since, ns));
        if (k & ETL_SF_REASON)
            ok = add_reason(w, sf->out_wait_reason, 1);
    } else if ((k & ETL_SF_SINCE) && (k & ETL_SF_RUNNABLE)) {
        w->ready_time = sat_add(w->ready_time, clip0(f, since, ns));
    }
    /* With them: new_waited and new_ready. */
    w = &t->fig.w[1];
    if ((k & ETL_SF_WAIT) && (k & ETL_SF_WAITED)) {
        w->waits++;
        w->wait_time = sat_add(w->wait_time, clip0(f, etl_clock_ns(m->clk, sf->wait_from),
                                                   etl_clock_ns(m->clk, sf->wait_to)));
        if ((k & ETL_SF_REASON) && !add_reason(w, sf->out_wait_reason, 1))
            ok = false;
    }
    if (k & ETL_SF_READY) {
        int64_t from = etl_clock_ns(m->clk, sf->ready_from);
        w->ready_time = sat_add(w->ready_time, clip0(f, from, ns));
        if (!add_ready(m, t, span_ns(from, ns) < 0 ? 0 : span_ns(from, ns)))
            ok = false;
    }
    if (k & ETL_SF_READIER) {
        struct etl_who wr;
        etl_procmap_who(m->map, sf->readying_tid, sf->readied_at, &wr);
        if (wr.image && !add_readier(t, wr.image))
            ok = false;
    }
    return ok;
}

/* Adds one switch to the figures. */
static void account_switch(struct summary *m, const struct etl_sched_item *it,
                           const struct etl_sched_facts *sf)
{
    const struct etl_filter *f = m->flt;
    const struct etl_switch *sw = &it->u.sw;
    int64_t ns = etl_clock_ns(m->clk, sw->ts);
    struct cpu *c = &m->cpu[sw->cpu];
    bool cpu_ok = !f || etl_id_list_has(&f->cpu, sw->cpu);
    bool counts = cpu_ok && in_range(f, ns);
    bool has_old = (sw->has & SW_OLD_TID) != 0, has_new = (sw->has & SW_NEW_TID) != 0;
    c->seen = true;
    if (counts)
        c->switches++;

    /* The run that ends here. */
    if (c->known && it->linked && (!has_old || m->t[c->slot].tid == sw->old_tid)) {
        struct thr *t = &m->t[c->slot];
        int64_t d = cpu_ok ? clip(f, c->since, ns) : -1;
        if (d >= 0) {
            d = d > c->intr ? d - c->intr : 0; /* DPC/ISR time is not the thread's */
            t->fig.cpu_time = sat_add(t->fig.cpu_time, d);
            t->fig.runs++;
            if (d > t->fig.max_run)
                t->fig.max_run = d;
            if (t->tid == 0) {
                c->idle = sat_add(c->idle, d);
                if (sw->has & SW_PREV_CSTATE) {
                    c->cst[sw->prev_cstate] = sat_add(c->cst[sw->prev_cstate], d);
                    c->cst_seen[sw->prev_cstate >> 3] |= (uint8_t)(1u << (sw->prev_cstate & 7));
                }
            } else {
                c->busy = sat_add(c->busy, d);
            }
        }
    }
    c->intr = 0;
    c->nnest = 0;
    c->last_sw = ns;
    c->any_sw = true;
    /* The old thread leaves. */
    if (has_old && sw->old_tid != 0) {
        uint32_t o = thread_out(m, c, sw->old_tid, sw->ts);
        if (o == UINT32_MAX) {
            m->oom = true;
            return;
        }
        m->t[o].last_cpu = sw->cpu;
    }
    /* The new thread comes in. */
    c->known = false;
    if (!has_new)
        return;
    uint32_t k = thread_at(m, sw->new_tid, sw->ts);
    if (k == UINT32_MAX) {
        m->oom = true;
        return;
    }
    struct thr *t = &m->t[k];
    if (counts)
        t->fig.switch_ins++;
    if (sw->new_tid != 0) {
        if (counts) {
            if (t->last_cpu >= 0 && t->last_cpu != sw->cpu)
                t->fig.migrations++;
            if (!settle(m, t, sf, ns))
                t->fig.oom = true;
        }
        t->last_cpu = sw->cpu;
    }
    c->known = true;
    c->slot = k;
    c->since = ns;
}

/* Returns the table slot of routine (type, addr) in t[cap]. */
static size_t routine_slot(const struct routine *t, size_t cap, unsigned type, uint64_t addr)
{
    uint64_t h = (addr ^ ((uint64_t)type << 59)) * 0x9E3779B97F4A7C15ull;
    size_t j = (size_t)(h >> 32) & (cap - 1);
    while (t[j].used && !(t[j].addr == addr && t[j].type == type))
        j = (j + 1) & (cap - 1);
    return j;
}

/* Returns the routine row of a DPC/ISR, adding it; NULL when out of memory. */
static struct routine *routine_of(struct routines *rs, unsigned type, uint64_t addr)
{
    if ((rs->n + 1) * 2 > rs->cap) {
        if (rs->n >= ROUTINES_MAX) {
            rs->other.used = rs->other.other = true;
            rs->other.type = (uint8_t)type;
            if (rs->t[routine_slot(rs->t, rs->cap, type, addr)].used)
                return &rs->t[routine_slot(rs->t, rs->cap, type, addr)];
            return &rs->other;
        }
        size_t ncap = rs->cap ? rs->cap * 2 : 256;
        struct routine *t = calloc(ncap, sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < rs->cap; i++)
            if (rs->t[i].used)
                t[routine_slot(t, ncap, rs->t[i].type, rs->t[i].addr)] = rs->t[i];
        free(rs->t);
        rs->t = t;
        rs->cap = ncap;
    }
    struct routine *r = &rs->t[routine_slot(rs->t, rs->cap, type, addr)];
    if (!r->used) {
        r->used = true;
        r->addr = addr;
        r->type = (uint8_t)type;
        rs->n++;
    }
    return r;
}

/* Adds one DPC or ISR: its exclusive time goes to its CPU, its routine and
 * the process of the thread it interrupted. */
static void account_intr(struct summary *m, const struct etl_sched_item *it)
{
    const struct etl_filter *f = m->flt;
    const struct etl_intr *in = &it->u.intr;
    struct cpu *c = &m->cpu[it->cpu];
    int64_t e = etl_clock_ns(m->clk, it->ts), s = etl_clock_ns(m->clk, in->initial_time);
    if (c->any_sw && s < c->last_sw)
        s = c->last_sw; /* a DPC or ISR runs between two switches */
    if (s > e)
        s = e;
    /* The routines that finished inside it are nested in it (§17.3). */
    int64_t excl = clip0(f, s, e);
    while (c->nnest > 0 && c->nest[c->nnest - 1].s >= s && c->nest[c->nnest - 1].e <= e) {
        c->nnest--;
        int64_t inner = clip0(f, c->nest[c->nnest].s, c->nest[c->nnest].e);
        excl = excl > inner ? excl - inner : 0;
    }
    if (c->nnest == NEST_MAX) {
        memmove(c->nest, c->nest + 1, (NEST_MAX - 1) * sizeof *c->nest);
        c->nnest--;
    }
    c->nest[c->nnest].s = s;
    c->nest[c->nnest].e = e;
    c->nnest++;
    if (f && !etl_id_list_has(&f->cpu, it->cpu))
        return;
    c->seen = true;
    bool isr = etl_intr_is_isr(in->type);
    int64_t *cp = isr ? &c->isr : &c->dpc;
    *cp = sat_add(*cp, excl);
    c->intr = sat_add(c->intr, excl);
    if (it->on_known) {
        uint32_t k = thread_at(m, it->on_tid, it->ts);
        if (k == UINT32_MAX) {
            m->oom = true;
            return;
        }
        int64_t *tp = isr ? &m->t[k].fig.isr : &m->t[k].fig.dpc;
        *tp = sat_add(*tp, excl);
    }
    if (clip(f, s, e) < 0)
        return; /* outside --range */
    struct routine *r = routine_of(&m->rt, in->type, in->routine);
    if (!r) {
        m->oom = true;
        return;
    }
    r->count++;
    r->time = sat_add(r->time, excl);
    if (excl > r->max)
        r->max = excl;
}

/* ---- rows ------------------------------------------------------------------------ */

/* Orders reason counts: most first, then by reason. */
static int cmp_reason(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct reason_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (int)x->reason - (int)y->reason;
}

/* Appends text to buf[*o..cap), truncating; keeps a terminator. */
static void put(char *buf, size_t cap, size_t *o, const char *s, size_t n)
{
    if (*o + 1 >= cap)
        return;
    if (n > cap - 1 - *o)
        n = cap - 1 - *o;
    memcpy(buf + *o, s, n);
    *o += n;
    buf[*o] = '\0';
}

/* Appends "name:count" (a space before all but the first). */
static void put_count(char *buf, size_t cap, size_t *o, const char *name, uint64_t count)
{
    char num[ETL_FMT_NUM_MAX];
    if (*o)
        put(buf, cap, o, " ", 1);
    put(buf, cap, o, name, strlen(name));
    put(buf, cap, o, ":", 1);
    put(buf, cap, o, num, etl_fmt_u64(count, num));
}

/* Sorts reason counts as cmp_reason orders them: they are few (a reason
 * appears once), so by insertion. */
static void sort_reasons(struct reason_count *r, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct reason_count x = r[i];
        size_t j = i;
        for (; j > 0 && cmp_reason(&x, &r[j - 1], NULL) < 0; j--)
            r[j] = r[j - 1];
        r[j] = x;
    }
}

/* Writes "Reason:count ..." into buf. */
static void reasons_text(struct waits *w, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    sort_reasons(w->wr, w->nwr);
    for (size_t i = 0; i < w->nwr; i++) {
        char num[ETL_FMT_NUM_MAX + 1];
        const char *name = etl_wait_reason_name(w->wr[i].reason);
        if (!name) {
            num[etl_fmt_u64(w->wr[i].reason, num)] = '\0';
            name = num;
        }
        put_count(buf, cap, &o, name, w->wr[i].count);
    }
}

/* Orders readiers: most first, then by image. */
static int cmp_readier(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct readier *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->image, y->image);
}

/* Writes the three images that readied t most into buf. */
static void readiers_text(struct thr *t, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    if (t->nrd > 1)
        etl_sort(t->rd, t->nrd, sizeof *t->rd, cmp_readier, NULL);
    for (size_t i = 0; i < t->nrd && i < 3; i++)
        put_count(buf, cap, &o, t->rd[i].image, t->rd[i].count);
}

/* Fills the ready percentiles (nearest rank) from v[0..n), sorted here. */
static void pct_cells(struct etl_value *v, int64_t *vals, size_t n, int64_t max)
{
    if (n == 0)
        return;
    etl_sort_i64(vals, n);
    static const unsigned pct[] = { 50, 90, 99 };
    for (int i = 0; i < 3; i++) {
        size_t rank = (size_t)((pct[i] * (uint64_t)n + 99) / 100); /* ceil(p/100 * n), >= 1 */
        ETL_CELL(v, M_READY_P50 + i, i, vals[rank - 1], true);
    }
    ETL_CELL(v, M_READY_MAX, i, max, true);
}

/* Fills the figure cells of v. */
static void figure_cells(struct etl_value *v, struct figures *g, bool rt, char *rbuf,
                         size_t rcap)
{
    struct waits *w = &g->w[rt];
    ETL_CELL(v, M_CPU_TIME, i, g->cpu_time, true);
    ETL_CELL(v, M_SWITCH_INS, u, g->switch_ins, true);
    ETL_CELL(v, M_MEAN_RUN, i, g->runs ? g->cpu_time / (int64_t)g->runs : 0, g->runs > 0);
    ETL_CELL(v, M_MAX_RUN, i, g->max_run, g->runs > 0);
    ETL_CELL(v, M_WAIT_TIME, i, w->wait_time, true);
    ETL_CELL(v, M_WAITS, u, w->waits, true);
    ETL_CELL(v, M_READY_TIME, i, w->ready_time, true);
    ETL_CELL(v, M_MIGRATIONS, u, g->migrations, true);
    reasons_text(w, rbuf, rcap);
    ETL_CELL(v, M_WAIT_REASONS, s, rbuf, rbuf[0] != '\0');
}

/* Fills the DPC and ISR cells (when the file has such events). */
static void intr_cells(struct etl_value *v, bool any, int64_t dpc, int64_t isr)
{
    ETL_CELL(v, M_DPC_TIME, i, dpc, any);
    ETL_CELL(v, M_ISR_TIME, i, isr, any);
}

/* Adds the figures of b to a; false when out of memory. */
static bool figures_add(struct figures *a, const struct figures *b)
{
    bool ok = true;
    a->cpu_time = sat_add(a->cpu_time, b->cpu_time);
    a->dpc = sat_add(a->dpc, b->dpc);
    a->isr = sat_add(a->isr, b->isr);
    if (b->max_run > a->max_run)
        a->max_run = b->max_run;
    a->runs += b->runs;
    a->switch_ins += b->switch_ins;
    a->migrations += b->migrations;
    for (int k = 0; k < 2; k++) {
        a->w[k].wait_time = sat_add(a->w[k].wait_time, b->w[k].wait_time);
        a->w[k].ready_time = sat_add(a->w[k].ready_time, b->w[k].ready_time);
        a->w[k].waits += b->w[k].waits;
        for (size_t i = 0; i < b->w[k].nwr; i++)
            ok = add_reason(&a->w[k], b->w[k].wr[i].reason, b->w[k].wr[i].count) && ok;
    }
    return ok;
}

static void figures_free(struct figures *g)
{
    free(g->w[0].wr);
    free(g->w[1].wr);
}

/* A thread row's place in an order: what the orders compare, and the row
 * (the rows stay where they are; sorting these moves far fewer bytes). */
struct order {
    uint64_t key;             /* the process key, or the CPU time */
    uint32_t tid, row;
};

/* A process row: the threads that share a process key (ord[first, end)). */
struct prow {
    uint64_t pk;
    uint32_t pid, proc, threads;
    size_t first, end;
    uint32_t nready;
    int64_t rmax;
    struct figures fig;
};

/* Orders thread rows by process key (to gather processes). */
static int cmp_pk(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct order *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Orders thread rows: most CPU time first, then PID and TID (ctx: the
 * rows). */
static int cmp_thr(const void *a, const void *b, void *ctx)
{
    const struct order *x = a, *y = b;
    int64_t tx = (int64_t)x->key, ty = (int64_t)y->key;
    if (tx != ty)
        return tx > ty ? -1 : 1;
    const struct thr *rx = (const struct thr *)ctx + x->row, *ry = (const struct thr *)ctx + y->row;
    if (rx->pid != ry->pid)
        return rx->pid < ry->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return rx->pk < ry->pk ? -1 : rx->pk > ry->pk;
}

/* Orders process rows: most CPU time first, then PID. */
static int cmp_prow(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct prow *x = a, *y = b;
    if (x->fig.cpu_time != y->fig.cpu_time)
        return x->fig.cpu_time > y->fig.cpu_time ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->pk < y->pk ? -1 : x->pk > y->pk;
}

/* Returns the image of a process key at the end of the map, or NULL. */
static const char *pk_image(const struct summary *m, uint64_t pk, uint32_t pid, uint32_t proc)
{
    const char *img = NULL;
    if (proc != ETL_PM_NONE)
        img = etl_procmap_str(m->map, etl_procmap_process(m->map, proc)->image);
    if (!img && pk && pid == 0)
        img = "Idle";
    return img;
}

/* Returns true if a process row is shown. */
static bool process_shown(const struct etl_filter *f, uint32_t pid, const char *img)
{
    if (!f)
        return true;
    if (f->tid.set)
        return false;
    return etl_id_list_has(&f->pid, pid) && etl_filter_process(f, img);
}

/* Returns true if a thread row is shown. */
static bool thread_shown(const struct etl_filter *f, const struct thr *t, const char *img)
{
    if (!f)
        return true;
    if (f->pid.set && !(t->pid_known && etl_id_list_has(&f->pid, t->pid)))
        return false;
    return etl_id_list_has(&f->tid, t->tid) && etl_filter_process(f, img);
}

/* What the file holds. */
struct presence {
    bool ready, intr;
};

/* Writes "C<n>:seconds ..." for a CPU's idle time by C-state into buf. */
static void cstates_text(const struct cpu *c, int decimals, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (unsigned s = 0; s < 256; s++) {
        if (!(c->cst_seen[s >> 3] & (1u << (s & 7))))
            continue;
        char num[ETL_FMT_NUM_MAX + 2], secs[ETL_FMT_NUM_MAX + 12];
        num[0] = 'C';
        num[1 + etl_fmt_u64(s, num + 1)] = '\0';
        if (o)
            put(buf, cap, &o, " ", 1);
        put(buf, cap, &o, num, strlen(num));
        put(buf, cap, &o, ":", 1);
        put(buf, cap, &o, secs, etl_fmt_seconds(c->cst[s], decimals, secs));
    }
}

/* Prints the process rows; returns 0 or -1 after a write error. ord[0..n)
 * is left sorted by process key. */
static int print_processes(struct etl_printer *p, struct summary *m, const struct presence *pr_,
                           int64_t *scratch, struct order *ord)
{
    const struct etl_filter *f = m->flt;
    char rbuf[2048];
    int rc = 0;
    if (m->n > 1)
        etl_sort(ord, m->n, sizeof *ord, cmp_pk, NULL);
    size_t np = 0;
    for (size_t i = 0; i < m->n; i++)
        if (ord[i].key && (i == 0 || ord[i].key != ord[i - 1].key))
            np++;
    struct prow *pr = calloc(np ? np : 1, sizeof *pr);
    if (!pr) {
        etl_file_nomem(m->f);
        return 0;
    }
    np = 0;
    bool oom = false;
    for (size_t i = 0; i < m->n; i++) {
        const struct thr *t = &m->t[ord[i].row];
        if (!t->pk)
            continue;
        if (np == 0 || pr[np - 1].pk != t->pk) {
            pr[np].pk = t->pk;
            pr[np].pid = t->pid;
            pr[np].proc = t->proc;
            pr[np].first = i;
            np++;
        }
        struct prow *q = &pr[np - 1];
        q->end = i + 1;
        q->threads++;
        if (t->nready && (q->nready == 0 || t->rmax > q->rmax))
            q->rmax = t->rmax;
        q->nready += t->nready;
        oom = !figures_add(&q->fig, &t->fig) || oom;
    }
    for (size_t i = 0; i < np; i++)
        oom = oom || pr[i].fig.oom;
    if (oom)
        etl_file_nomem(m->f);
    etl_sort(pr, np, sizeof *pr, cmp_prow, NULL);
    for (size_t i = 0; i < np && rc == 0 && !oom; i++) {
        const char *img = pk_image(m, pr[i].pk, pr[i].pid, pr[i].proc);
        if (!process_shown(f, pr[i].pid, img))
            continue;
        struct etl_value v[M_COUNT];
        memset(v, 0, sizeof v);
        ETL_CELL(v, M_SCOPE, s, "process", true);
        ETL_CELL(v, M_PID, u, pr[i].pid, true);
        ETL_CELL(v, M_PROCESS, s, img, img != NULL);
        ETL_CELL(v, M_THREADS, u, pr[i].threads, true);
        figure_cells(v, &pr[i].fig, pr_->ready, rbuf, sizeof rbuf);
        size_t nv = 0;
        for (size_t j = pr[i].first; j < pr[i].end; j++) {
            const struct thr *t = &m->t[ord[j].row];
            if (t->nrv)
                memcpy(scratch + nv, t->rv, t->nrv * sizeof *scratch);
            nv += t->nrv;
        }
        if (pr[i].nready)
            pct_cells(v, scratch, nv, pr[i].rmax);
        intr_cells(v, pr_->intr, pr[i].fig.dpc, pr[i].fig.isr);
        rc = etl_print_row(p, v);
    }
    for (size_t i = 0; i < np; i++)
        figures_free(&pr[i].fig);
    free(pr);
    return oom ? 1 : rc;
}

/* Prints every row; returns 0 or -1 after a write error. */
static int print_rows(struct etl_printer *p, struct summary *m, const struct presence *pr)
{
    const struct etl_filter *f = m->flt;
    char rbuf[2048], tbuf[1024];
    int64_t *scratch = malloc((m->kept ? m->kept : 1) * sizeof *scratch);
    struct order *ord = malloc((m->n ? m->n : 1) * sizeof *ord);
    if (!scratch || !ord) {
        free(scratch);
        free(ord);
        etl_file_nomem(m->f);
        return 0;
    }
    for (size_t i = 0; i < m->n; i++)
        ord[i] = (struct order){ m->t[i].pk, m->t[i].tid, (uint32_t)i };
    int rc = print_processes(p, m, pr, scratch, ord);
    free(scratch);
    if (rc > 0) {
        free(ord);
        return 0; /* out of memory */
    }

    /* Threads. */
    for (size_t i = 0; i < m->n; i++)
        ord[i] = (struct order){ (uint64_t)m->t[i].fig.cpu_time, m->t[i].tid, (uint32_t)i };
    etl_sort(ord, m->n, sizeof *ord, cmp_thr, m->t);
    for (size_t i = 0; i < m->n && rc == 0; i++) {
        struct thr *t = &m->t[ord[i].row];
        const char *img = pk_image(m, t->pk, t->pid, t->proc);
        if (!thread_shown(f, t, img))
            continue;
        struct etl_value v[M_COUNT];
        memset(v, 0, sizeof v);
        ETL_CELL(v, M_SCOPE, s, "thread", true);
        ETL_CELL(v, M_PID, u, t->pid, t->pid_known);
        ETL_CELL(v, M_TID, u, t->tid, true);
        ETL_CELL(v, M_PROCESS, s, img, img != NULL);
        const char *tname = etl_procmap_str(m->map, t->name);
        ETL_CELL(v, M_THREAD_NAME, s, tname, tname != NULL);
        figure_cells(v, &t->fig, pr->ready, rbuf, sizeof rbuf);
        if (t->nready)
            pct_cells(v, t->rv, t->nrv, t->rmax);
        readiers_text(t, tbuf, sizeof tbuf);
        ETL_CELL(v, M_TOP_READIERS, s, tbuf, tbuf[0] != '\0');
        rc = etl_print_row(p, v);
    }
    free(ord);

    /* CPUs. */
    bool cpus_shown = !f || (!f->tid.set && !f->pid.set && f->nprocess == 0);
    int decimals = p->ops->time_decimals ? p->ops->time_decimals : 9;
    for (unsigned i = 0; i < ETL_MAX_CPUS && rc == 0 && cpus_shown; i++) {
        const struct cpu *c = &m->cpu[i];
        if (!c->seen || (f && !etl_id_list_has(&f->cpu, i)))
            continue;
        struct etl_value v[M_COUNT];
        memset(v, 0, sizeof v);
        ETL_CELL(v, M_SCOPE, s, "cpu", true);
        ETL_CELL(v, M_CPU, u, i, true);
        ETL_CELL(v, M_SWITCH_INS, u, c->switches, true);
        ETL_CELL(v, M_BUSY_TIME, i, c->busy, true);
        ETL_CELL(v, M_IDLE_TIME, i, c->idle, true);
        intr_cells(v, pr->intr, c->dpc, c->isr);
        cstates_text(c, decimals, tbuf, sizeof tbuf);
        ETL_CELL(v, M_IDLE_BY_CSTATE, s, tbuf, tbuf[0] != '\0');
        rc = etl_print_row(p, v);
    }
    return rc;
}

/* Orders routines: most time first, then type and address. */
static int cmp_routine(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct routine *x = a, *y = b;
    if (x->time != y->time)
        return x->time > y->time ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Prints the routines table; returns 0 or -1 after a write error. */
static int print_routines(struct etl_printer *p, struct summary *m)
{
    struct routines *rs = &m->rt;
    size_t n = 0;
    for (size_t i = 0; i < rs->cap; i++)
        if (rs->t[i].used)
            rs->t[n++] = rs->t[i];
    if (n > 1)
        etl_sort(rs->t, n, sizeof *rs->t, cmp_routine, NULL);
    int rc = etl_print_begin_table(p, &etl_table_routines);
    for (size_t i = 0; i <= n && rc == 0; i++) {
        const struct routine *r = i < n ? &rs->t[i] : &rs->other;
        if (!r->used)
            break;
        struct etl_value v[R_COUNT];
        memset(v, 0, sizeof v);
        ETL_CELL(v, R_TYPE, s, etl_intr_type_name(r->type), !r->other);
        ETL_CELL(v, R_ROUTINE, u, r->addr, !r->other);
        ETL_CELL(v, R_COUNT_, u, r->count, true);
        ETL_CELL(v, R_TOTAL_TIME, i, r->time, true);
        ETL_CELL(v, R_MEAN_TIME, i, r->count ? r->time / (int64_t)r->count : 0, r->count > 0);
        ETL_CELL(v, R_MAX_TIME, i, r->max, true);
        rc = etl_print_row(p, v);
    }
    return rc ? rc : etl_print_end_table(p);
}

/* Reads every scheduling event into m; false when memory ran out. */
static bool read_all(struct summary *m, struct etl_switch_reader *r, struct etl_sched *an,
                     bool strict)
{
    struct etl_sched_item it;
    struct etl_sched_facts sf;
    while (!m->oom && etl_sched_next(r, &it)) {
        if (!etl_sched_take(an, &it, NULL, NULL, &sf)) {
            m->oom = true;
            break;
        }
        if (it.kind == ETL_SCHED_SWITCH)
            account_switch(m, &it, &sf);
        else if (it.kind == ETL_SCHED_INTR)
            account_intr(m, &it);
        if (strict && etl_file_problems(m->f))
            break;
    }
    for (size_t i = 0; i < m->n; i++)
        m->oom = m->oom || m->t[i].fig.oom;
    return !m->oom && !etl_file_is_nomem(m->f);
}

int etl_view_summary(struct etl_printer *p, struct etl_file *f,
                     const struct etl_view_opts *o)
{
    struct summary m;
    memset(&m, 0, sizeof m);
    m.f = f;
    m.flt = etl_filter_any(o->filter) ? o->filter : NULL;
    m.clk = etl_file_clock(f);
    m.cpu = calloc(ETL_MAX_CPUS, sizeof *m.cpu);
    struct etl_procmap *map = m.cpu ? etl_procmap_build(f, true) : NULL;
    struct etl_streams *s = map ? etl_streams_new(f) : NULL;
    struct etl_switch_reader *r = s ? etl_sched_reader_new(f, s, o->max_wait_reason) : NULL;
    struct etl_sched *an = r ? etl_sched_new(map) : NULL;
    int rc = 0;
    m.map = map;
    if (!an || !read_all(&m, r, an, o->strict)) {
        etl_file_nomem(f);
        goto out;
    }
    etl_switch_reader_check_bias(r, o->max_wait_reason != 0);
    etl_sched_warn(an, f);
    const struct etl_switch_stats *st = etl_switch_reader_stats(r);
    struct presence pr = { st->ready > 0, st->dpc + st->isr > 0 };
    if (o->summary_part != ETL_SUMMARY_ROUTINES) {
        rc = etl_print_begin_table(p, &etl_table_summary);
        if (rc == 0)
            rc = print_rows(p, &m, &pr);
        if (rc == 0)
            rc = etl_print_end_table(p);
    }
    /* The routines follow as a second table where the printer allows one. */
    if (rc == 0 && !etl_file_is_nomem(f) &&
        (o->summary_part == ETL_SUMMARY_ROUTINES || (!p->ops->one_table && m.rt.n > 0)))
        rc = print_routines(p, &m);
out:
    for (size_t i = 0; i < m.n; i++) {
        figures_free(&m.t[i].fig);
        free(m.t[i].rv);
        free(m.t[i].rd);
    }
    free(m.t);
    free(m.tab);
    free(m.cpu);
    free(m.rt.t);
    etl_sched_free(an);
    etl_switch_reader_free(r);
    etl_streams_free(s);
    etl_procmap_free(map);
    return rc;
}
