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
 * processes, CPUs and routines, and with the ready spans kept for the
 * percentiles (at most READY_KEPT, then every other one). Thread rows past
 * LIVE_MAX go to a temporary file, the half not seen for longest at a time,
 * as sorted runs: a thread seen again starts a new row, and at the end the
 * runs are merged by thread, each thread's rows added up in the order they
 * were made (the figures are the same but for the spans the percentiles
 * keep: each row keeps every 2^thin-th of its own), then sorted for the
 * output in runs of SORT_MEM bytes. Nothing kept grows with the threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "print/out.h"
#include "sort.h"
#include "grow.h"
#include "keyidx.h"
#include "spill.h"
#include "decode/swreader.h"
#include "decode/names.h"
#include "decode/procmap.h"
#include "decode/sched.h"
#include "view/groupmask.h"
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
    [M_WAIT_REASONS] = { "wait_reasons", ETL_COL_NAME, -24, false },
    [M_READY_P50] = { "ready_p50", ETL_COL_DURATION, 0, true },
    [M_READY_P90] = { "ready_p90", ETL_COL_DURATION, 10, false },
    [M_READY_P99] = { "ready_p99", ETL_COL_DURATION, 0, true },
    [M_READY_MAX] = { "ready_max", ETL_COL_DURATION, 10, false },
    [M_TOP_READIERS] = { "top_readiers", ETL_COL_STR, 0, true },
    [M_DPC_TIME] = { "dpc_time", ETL_COL_DURATION, 10, false },
    [M_ISR_TIME] = { "isr_time", ETL_COL_DURATION, 10, false },
    [M_IDLE_BY_CSTATE] = { "idle_by_cstate", ETL_COL_NAME, 0, true },
};

const struct etl_table etl_table_summary = { "summary", summary_cols, M_COUNT, false, NULL };

enum { R_TYPE, R_ROUTINE, R_COUNT_, R_TOTAL_TIME, R_MEAN_TIME, R_MAX_TIME, R_COUNT };

static const struct etl_column routine_cols[R_COUNT] = {
    [R_TYPE] = { "type", ETL_COL_NAME, -11, false },
    [R_ROUTINE] = { "routine", ETL_COL_HEX64, -18, false },
    [R_COUNT_] = { "count", ETL_COL_UINT, 10, false },
    [R_TOTAL_TIME] = { "total_time", ETL_COL_DURATION, 13, false },
    [R_MEAN_TIME] = { "mean_time", ETL_COL_DURATION, 10, false },
    [R_MAX_TIME] = { "max_time", ETL_COL_DURATION, 10, false },
};

const struct etl_table etl_table_routines = { "routine", routine_cols, R_COUNT, false, NULL };

/* Ready spans kept for the percentiles before every other one is dropped. */
#define READY_KEPT (1u << 21)
/* Thread rows kept in memory; past that, the half not seen for longest go
 * to a temporary file (spill.h) as a run sorted by thread. The tests build
 * a copy with small ones (Makefile: build/tests/etldump-spill). */
#ifndef SUMMARY_LIVE_MAX
#define SUMMARY_LIVE_MAX (1u << 14)
#endif
#define LIVE_MAX SUMMARY_LIVE_MAX
/* Runs before they are merged into one. */
#ifndef SUMMARY_RUNS_MAX
#define SUMMARY_RUNS_MAX 128
#endif
#define RUNS_MAX SUMMARY_RUNS_MAX
/* The spill file, and the file that sorts the rows for the output, take
 * no more rows past twice the input's size and SPILL_SLACK each: a hostile
 * trace of endless new threads must not fill the disk (the rows then stay
 * in memory). The tests' copy has a small one. */
#ifndef SUMMARY_SPILL_SLACK
#define SUMMARY_SPILL_SLACK (1ull << 30)
#endif
#define SPILL_SLACK SUMMARY_SPILL_SLACK
/* Bytes of thread rows sorted at a time for the output. */
#ifndef SUMMARY_SORT_MEM
#define SUMMARY_SORT_MEM (8u << 20)
#endif
#define SORT_MEM SUMMARY_SORT_MEM
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
    uint32_t used;            /* when last seen (summary.tick) */
    int32_t first_cpu;        /* where first seen (see note_cpu) */
    bool pid_known;
    bool first_check;         /* first seen at a switch-in that counts migrations */
    uint8_t thin;             /* rv's summary.thin, in the spill file */
    uint64_t gen;             /* rows made before it */
    struct figures fig;
    int64_t *rv;              /* kept ready spans (ns) */
    int64_t rmax;             /* the longest ready span */
    struct readier *rd;
};

/* The pk of a free slot (no key has it). */
#define FREE_PK UINT64_MAX

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
    bool any_sw;
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
    size_t n, cap;            /* slots used (some may be free), slots */
    uint64_t *tab;            /* TID << 32 | (slot + 1), 0 empty (see tab_entry) */
    size_t tcap;
    uint32_t tabs;            /* times the table was made again */
    uint32_t tick;            /* counts lookups, for thr.used */
    uint64_t gen;             /* rows made */
    uint32_t *freed;          /* free slots */
    size_t nfree, capfree;
    struct etl_spill *sp;     /* NULL before the first row goes out */
    struct etl_run *runs;     /* of thread rows, sorted by thread */
    size_t nruns, capruns;
    size_t kept_out, out_rows; /* of kept: in the file, an upper bound; rows there with some */
    char *buf;                /* a record */
    size_t capbuf;
    uint32_t *ages;           /* spill_half's */
    size_t capages;
    bool no_spill;            /* the spill file cannot be made or written */
    bool spill_oom;           /* a row in the file could not count something */
    struct cpu *cpu;          /* ETL_MAX_CPUS, touched only where seen */
    uint64_t cpus_seen[ETL_MAX_CPUS / 64]; /* bits: the CPUs seen (see_cpu) */
    struct routines rt;
    size_t kept;              /* ready spans kept in all rows (at most kept_max + 1) */
    size_t kept_max;          /* READY_KEPT, or more (see thin_all) */
    unsigned thin;            /* a row keeps its spans number 0, 2^thin, 2 * 2^thin, ... */
    bool oom;
};

/* ---- CPUs ---------------------------------------------------------------- */

/* Marks CPU n seen. Only the CPUs seen are looked at again (next_cpu), so
 * the pages of the others' state are never touched. */
static void see_cpu(struct summary *m, unsigned n)
{
    m->cpus_seen[n / 64] |= 1ull << (n % 64);
}

/* The first CPU seen from n on; ETL_MAX_CPUS when none. */
static unsigned next_cpu(const struct summary *m, unsigned n)
{
    while (n < ETL_MAX_CPUS) {
        uint64_t bits = m->cpus_seen[n / 64] >> (n % 64);
        if (bits)
            return n + (unsigned)__builtin_ctzll(bits);
        n = (n / 64 + 1) * 64;
    }
    return ETL_MAX_CPUS;
}

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

/* Puts entry e of key (tid, pk) into slot table t of ncap entries. */
static void tab_put(uint64_t *t, size_t ncap, uint32_t tid, uint64_t pk, uint64_t e)
{
    size_t j = key_hash(tid, pk) & (ncap - 1);
    while (t[j])
        j = (j + 1) & (ncap - 1);
    t[j] = e;
}

/* Puts every row in memory into the empty slot table t of ncap entries. */
static void tab_fill(const struct summary *m, uint64_t *t, size_t ncap)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->t[i].pk != FREE_PK)
            tab_put(t, ncap, m->t[i].tid, m->t[i].pk, tab_entry(m->t[i].tid, i));
}

/* Grows the slot table; false when out of memory. */
static bool rehash(struct summary *m)
{
    size_t ncap = m->tcap ? m->tcap * 2 : 1024;
    uint64_t *t = calloc(ncap, sizeof *t);
    if (!t)
        return false;
    tab_fill(m, t, ncap);
    free(m->tab);
    m->tab = t;
    m->tcap = ncap;
    return true;
}

static uint32_t new_slot(struct summary *m);

/* thread_slot's way for a thread without a row: adds it at table entry j
 * (the empty one its lookup ended at). */
static ETL_NOINLINE uint32_t thread_new(struct summary *m, uint32_t tid,
                                        const struct etl_who *w, uint64_t pk, size_t j)
{
    uint32_t tabs = m->tabs;
    uint32_t slot = new_slot(m);
    if (slot == UINT32_MAX)
        return UINT32_MAX;
    if (m->tabs != tabs) /* rows went out: the table was made again */
        for (j = key_hash(tid, pk) & (m->tcap - 1); m->tab[j]; j = (j + 1) & (m->tcap - 1))
            ;
    struct thr *t = &m->t[slot];
    memset(t, 0, sizeof *t);
    t->pk = pk;
    t->tid = tid;
    t->pid = w->pid;
    t->pid_known = w->known;
    t->proc = w->proc;
    t->name = w->thread != ETL_PM_NONE ? etl_procmap_thread(m->map, w->thread)->name
                                       : ETL_PM_NONE;
    t->last_cpu = -1;
    t->used = ++m->tick;
    t->first_cpu = -1;
    t->gen = m->gen++;
    m->tab[j] = tab_entry(tid, slot);
    return slot;
}

/* Returns the row of thread tid, whose process is w's, adding it;
 * UINT32_MAX when out of memory. The slot stays the row's until the next
 * call. Inline where a switch is taken: a call a switch cost more than
 * the lookup's own work. */
ETL_INLINE uint32_t thread_slot(struct summary *m, uint32_t tid, const struct etl_who *w)
{
    uint64_t pk = proc_key(w);
    if ((m->n + 1) * 2 > m->tcap && !rehash(m))
        return UINT32_MAX;
    size_t j = key_hash(tid, pk) & (m->tcap - 1);
    for (uint64_t e; (e = m->tab[j]) != 0; j = (j + 1) & (m->tcap - 1)) {
        uint32_t slot = (uint32_t)e - 1;
        if ((uint32_t)(e >> 32) == tid && m->t[slot].pk == pk) {
            m->t[slot].used = ++m->tick;
            return slot;
        }
    }
    return thread_new(m, tid, w, pk, j);
}

/* The same, looking the thread up at ts. */
static uint32_t thread_at(struct summary *m, uint32_t tid, int64_t ts)
{
    struct etl_who w;
    etl_procmap_who(m->map, tid, ts, &w);
    return thread_slot(m, tid, &w);
}

/* The same for the thread that a switch on CPU c switches out, who w is:
 * most often the row c switched in, found without the table when its key
 * is the one the thread has then. */
static uint32_t thread_out(struct summary *m, const struct cpu *c, uint32_t tid,
                           const struct etl_who *w)
{
    if (c->known && m->t[c->slot].tid == tid && m->t[c->slot].pk == proc_key(w)) {
        m->t[c->slot].used = ++m->tick;
        return c->slot;
    }
    return thread_slot(m, tid, w);
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

/* Counts k readyings by a process of image img; false when out of memory. */
static bool add_readier(struct thr *t, const char *img, uint32_t k)
{
    for (size_t i = 0; i < t->nrd; i++)
        if (strcmp(t->rd[i].image, img) == 0) {
            t->rd[i].count += k;
            return true;
        }
    size_t room = room_of(t->nrd);
    if (!etl_grow(&t->rd, &room, t->nrd + 1u, sizeof *t->rd, 4))
        return false;
    t->rd[t->nrd].image = img;
    t->rd[t->nrd].count = k;
    t->nrd++;
    return true;
}

/* Keeps spans 0, 2^d, 2 * 2^d, ... of rv[0..*n). */
static void thin_spans(int64_t *rv, uint32_t *n, unsigned d)
{
    if (d == 0)
        return;
    uint32_t k = 0;
    for (uint64_t j = 0; j < *n; j += 1ull << d)
        rv[k++] = rv[j];
    *n = k;
}

/* Halves the ready spans kept in every row (keeping the even-numbered);
 * the rows in the spill file are halved when read back (ceil(n / 2) each:
 * kept counts them as (n + 1) / 2, above the truth). Every row keeps its
 * first span: with more than READY_KEPT rows keeping spans, halving cannot
 * bring the count down, and the bound moves up instead, so that it is not
 * tried again at every span (nor 2^thin made past 2^31). */
static void thin_all(struct summary *m)
{
    if (m->thin == 31) {
        m->kept_max = m->kept + READY_KEPT / 4;
        return;
    }
    m->thin++;
    m->kept = 0;
    for (size_t i = 0; i < m->n; i++) {
        struct thr *t = &m->t[i];
        thin_spans(t->rv, &t->nrv, 1);
        m->kept += t->nrv;
    }
    m->kept_out = (m->kept_out + m->out_rows) / 2;
    m->kept += m->kept_out;
    m->kept_max = m->kept > READY_KEPT - READY_KEPT / 4 ? m->kept + READY_KEPT / 4 : READY_KEPT;
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
    if (++m->kept > m->kept_max)
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
        if (wr.image && !add_readier(t, wr.image, 1))
            ok = false;
    }
    return ok;
}

/* Notes that thread t is seen on cpu (check: at a switch-in that counts a
 * migration): the first time, for the rows of the thread made before it
 * (see fold). */
static void note_cpu(struct thr *t, int32_t cpu, bool check)
{
    if (t->last_cpu < 0) {
        t->first_cpu = cpu;
        t->first_check = check;
    }
    t->last_cpu = cpu;
}

/* Adds one switch to the figures. */
static void account_switch(struct summary *m, const struct etl_sched_item *it,
                           const struct etl_sched_facts *sf, const struct etl_who *wo,
                           const struct etl_who *wn)
{
    const struct etl_filter *f = m->flt;
    const struct etl_switch *sw = &it->u.sw;
    int64_t ns = etl_clock_ns(m->clk, sw->ts);
    struct cpu *c = &m->cpu[sw->cpu];
    bool cpu_ok = !f || etl_id_list_has(&f->cpu, sw->cpu);
    bool counts = cpu_ok && in_range(f, ns);
    bool has_old = (sw->has & SW_OLD_TID) != 0, has_new = (sw->has & SW_NEW_TID) != 0;
    see_cpu(m, sw->cpu);
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
        uint32_t o = thread_out(m, c, sw->old_tid, wo);
        if (o == UINT32_MAX) {
            m->oom = true;
            return;
        }
        note_cpu(&m->t[o], sw->cpu, false);
    }
    /* The new thread comes in. */
    c->known = false;
    if (!has_new)
        return;
    uint32_t k = thread_slot(m, sw->new_tid, wn);
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
        note_cpu(t, sw->cpu, counts);
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
    see_cpu(m, it->cpu);
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

/* The lists of a row's cells, "name:value" entries separated by spaces.
 * An entry is written whole or not at all: a list that does not fit its
 * buffer ends with the last entry that does, never with a cut name or
 * number. The buffers of the wait reasons and of the C-states hold every
 * entry there can be (a reason or C-state is a byte: 256 at most, each
 * once); only the top readiers, whose names come from the file, can be
 * left out, when their images are hundreds of bytes long. REASON_NAME_MAX:
 * at least the longest wait reason name of names.c (tests/edge.sh, lists,
 * shows every reason). */
#define REASON_NAME_MAX 32
/* Every reason once: " name:count", the count a uint32. */
#define REASONS_CAP (256 * (1 + REASON_NAME_MAX + 1 + 10) + 1)
/* Every C-state once: " C255:seconds", the seconds of an int64 of ns. */
#define CSTATES_CAP (256 * (1 + 4 + 1 + ETL_FMT_NUM_MAX + 1) + 1)
#define READIERS_CAP 1024

/* Appends "name:value" (a space before all but the first), name of n and
 * value of k bytes, when it fits with the terminator; false when it does
 * not (nothing is written). */
ETL_INLINE bool put_entry(char *buf, size_t cap, size_t *o, const char *name, size_t n,
                           const char *val, size_t k)
{
    size_t sp = *o != 0;
    if (cap - *o <= sp + n + 1 + k) /* with the terminator */
        return false;
    char *q = buf + *o;
    if (sp)
        q[0] = ' ';
    etl_copy_small(q + sp, name, n);
    q[sp + n] = ':';
    etl_copy_small(q + sp + n + 1, val, k);
    q[sp + n + 1 + k] = '\0';
    *o += sp + n + 1 + k;
    return true;
}

/* put_entry of "name:count". */
static bool put_count(char *buf, size_t cap, size_t *o, const char *name, size_t n,
                      uint64_t count)
{
    char num[ETL_FMT_NUM_MAX];
    return put_entry(buf, cap, o, name, n, num, etl_fmt_u64(count, num));
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
    bool fits = true;
    for (size_t i = 0; i < w->nwr && fits; i++) {
        char num[ETL_FMT_NUM_MAX];
        const struct etl_sized_name *name = etl_wait_reason_sized(w->wr[i].reason);
        fits = name ? put_count(buf, cap, &o, name->s, name->n, w->wr[i].count)
                    : put_count(buf, cap, &o, num, etl_fmt_u64(w->wr[i].reason, num),
                                w->wr[i].count);
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
        if (!put_count(buf, cap, &o, t->rd[i].image, strlen(t->rd[i].image), t->rd[i].count))
            break;
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
    ETL_CELL_STR(v, M_WAIT_REASONS, rbuf, rbuf[0] != '\0');
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

/* ---- the spill file ---------------------------------------------------------- */

/* Frees the arrays of row t and makes its slot free. */
static void row_clear(struct thr *t)
{
    figures_free(&t->fig);
    free(t->rv);
    free(t->rd);
    memset(t, 0, sizeof *t);
    t->pk = FREE_PK;
}

/* Appends n bytes from src at *q (n may be 0 with src NULL). */
static void put_bytes(char **q, const void *src, size_t n)
{
    if (n)
        memcpy(*q, src, n);
    *q += n;
}

/* Bytes of a wait reason count and of a readier in a record (their
 * fields, without the padding of the structs). */
#define REASON_BYTES (sizeof(uint32_t) + 1)
#define READIER_BYTES (sizeof(const char *) + sizeof(uint32_t))

/* The length of the record of a row with these counts. */
static size_t record_len(size_t nwr, size_t nrv, size_t nrd)
{
    return sizeof(struct thr) + nwr * REASON_BYTES + nrv * sizeof(int64_t) + nrd * READIER_BYTES;
}

/* Makes row t a record in m->buf: the row (its padding zero since it was
 * made), then its arrays field by field (what thin its spans have is noted
 * in it); returns its length, or 0 when out of memory. */
static size_t row_record(struct summary *m, struct thr *t)
{
    const struct waits *w = t->fig.w;
    size_t n = record_len(w[0].nwr + w[1].nwr, t->nrv, t->nrd);
    if (!etl_grow(&m->buf, &m->capbuf, n, 1, 4096))
        return 0;
    t->thin = (uint8_t)m->thin;
    char *q = m->buf;
    put_bytes(&q, t, sizeof *t);
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < w[k].nwr; i++) {
            put_bytes(&q, &w[k].wr[i].count, sizeof w[k].wr[i].count);
            put_bytes(&q, &w[k].wr[i].reason, 1);
        }
    put_bytes(&q, t->rv, t->nrv * sizeof *t->rv);
    for (size_t i = 0; i < t->nrd; i++) {
        put_bytes(&q, &t->rd[i].image, sizeof t->rd[i].image);
        put_bytes(&q, &t->rd[i].count, sizeof t->rd[i].count);
    }
    return n;
}

/* Makes *dst a new array of room elements of size sz (NULL when room is
 * 0); false when out of memory. */
static bool new_array(void *dst, size_t room, size_t sz)
{
    void *a = room ? malloc(room * sz) : NULL;
    memcpy(dst, &a, sizeof a);
    return a || !room;
}

/* Makes record rec[0..n) a row at *t, its spans thinned as the rows in
 * memory were since; false when out of memory or the record is not one
 * (*t is then one row_clear takes). */
static bool row_from(struct summary *m, const void *rec, size_t n, struct thr *t)
{
    if (n < sizeof *t) {
        memset(t, 0, sizeof *t);
        return false;
    }
    const char *q = rec;
    memcpy(t, q, sizeof *t);
    q += sizeof *t;
    struct waits *w = t->fig.w;
    w[0].wr = w[1].wr = NULL;
    t->rv = NULL;
    t->rd = NULL;
    if (n != record_len((size_t)w[0].nwr + w[1].nwr, t->nrv, t->nrd) || t->thin > m->thin) {
        memset(t, 0, sizeof *t);
        return false;
    }
    if (!new_array(&w[0].wr, room_of(w[0].nwr), sizeof *w[0].wr) ||
        !new_array(&w[1].wr, room_of(w[1].nwr), sizeof *w[1].wr) ||
        !new_array(&t->rv, t->nrv, sizeof *t->rv) ||
        !new_array(&t->rd, room_of(t->nrd), sizeof *t->rd)) {
        row_clear(t);
        return false;
    }
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < w[k].nwr; i++) {
            memcpy(&w[k].wr[i].count, q, sizeof w[k].wr[i].count);
            w[k].wr[i].reason = (uint8_t)q[sizeof w[k].wr[i].count];
            q += REASON_BYTES;
        }
    if (t->nrv)
        memcpy(t->rv, q, t->nrv * sizeof *t->rv);
    q += t->nrv * sizeof *t->rv;
    for (size_t i = 0; i < t->nrd; i++) {
        memcpy(&t->rd[i].image, q, sizeof t->rd[i].image);
        memcpy(&t->rd[i].count, q + sizeof t->rd[i].image, sizeof t->rd[i].count);
        q += READIER_BYTES;
    }
    t->caprv = t->nrv;
    thin_spans(t->rv, &t->nrv, m->thin - t->thin);
    t->thin = (uint8_t)m->thin;
    return true;
}

/* A field of a record (a row's bytes). */
static uint32_t rec_u32(const void *rec, size_t off)
{
    uint32_t v;
    memcpy(&v, (const char *)rec + off, sizeof v);
    return v;
}

static uint64_t rec_u64(const void *rec, size_t off)
{
    uint64_t v;
    memcpy(&v, (const char *)rec + off, sizeof v);
    return v;
}

/* -1, 0 or 1 as a is below, equal to or above b. */
static int order(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* Orders the records of runs: by thread (TID, process key), then as the
 * rows were made. */
static int cmp_rec_thread(const void *a, const void *b)
{
    int c = order(rec_u32(a, offsetof(struct thr, tid)), rec_u32(b, offsetof(struct thr, tid)));
    if (c == 0)
        c = order(rec_u64(a, offsetof(struct thr, pk)), rec_u64(b, offsetof(struct thr, pk)));
    return c ? c : order(rec_u64(a, offsetof(struct thr, gen)), rec_u64(b, offsetof(struct thr, gen)));
}

/* The same for rows in memory (ctx: the rows, a and b slots). */
static int cmp_slot_thread(const void *a, const void *b, void *ctx)
{
    const struct thr *t = ctx;
    const struct thr *x = &t[*(const uint32_t *)a], *y = &t[*(const uint32_t *)b];
    int c = order(x->tid, y->tid);
    if (c == 0)
        c = order(x->pk, y->pk);
    return c ? c : order(x->gen, y->gen);
}

/* Orders records for the output: most CPU time first, then PID, TID and
 * process key (as cmp_thr). */
static int cmp_rec_out(const void *a, const void *b)
{
    size_t ct = offsetof(struct thr, fig) + offsetof(struct figures, cpu_time);
    int64_t xa = (int64_t)rec_u64(a, ct), xb = (int64_t)rec_u64(b, ct);
    if (xa != xb)
        return xa > xb ? -1 : 1;
    int c = order(rec_u32(a, offsetof(struct thr, pid)), rec_u32(b, offsetof(struct thr, pid)));
    if (c == 0)
        c = order(rec_u32(a, offsetof(struct thr, tid)), rec_u32(b, offsetof(struct thr, tid)));
    return c ? c : order(rec_u64(a, offsetof(struct thr, pk)), rec_u64(b, offsetof(struct thr, pk)));
}

/* Adds row b of a thread to its row a, made before it; false when out of
 * memory. b's first switch-in would have counted a migration from where a
 * left the thread. */
static bool fold(struct thr *a, const struct thr *b)
{
    bool ok = figures_add(&a->fig, &b->fig);
    a->fig.oom = a->fig.oom || b->fig.oom;
    if (b->first_check && a->last_cpu >= 0 && a->last_cpu != b->first_cpu)
        a->fig.migrations++;
    if (b->last_cpu >= 0)
        a->last_cpu = b->last_cpu;
    for (size_t i = 0; i < b->nrd; i++)
        ok = add_readier(a, b->rd[i].image, b->rd[i].count) && ok;
    if (b->nready && (a->nready == 0 || b->rmax > a->rmax))
        a->rmax = b->rmax;
    a->nready += b->nready;
    if (b->nrv) {
        if (a->nrv + b->nrv > a->caprv) {
            int64_t *n = realloc(a->rv, (a->nrv + b->nrv) * sizeof *n);
            if (!n)
                return false;
            a->rv = n;
            a->caprv = a->nrv + b->nrv;
        }
        memcpy(a->rv + a->nrv, b->rv, b->nrv * sizeof *b->rv);
        a->nrv += b->nrv;
    }
    return ok;
}

/* The rows in memory as a source of records (etl_rec_source): the slots
 * slots[next..n), sorted as the runs are. */
struct live_rows {
    struct summary *m;
    const uint32_t *slots;
    size_t n, next;
    char *mem;                /* the record given */
    size_t cap;
};

static int live_next(void *ctx, const void **rec, size_t *n)
{
    struct live_rows *lr = ctx;
    if (lr->next == lr->n)
        return 0;
    size_t len = row_record(lr->m, &lr->m->t[lr->slots[lr->next++]]);
    if (len == 0 || !etl_grow(&lr->mem, &lr->cap, len, 1, 4096))
        return -1;
    memcpy(lr->mem, lr->m->buf, len);
    *rec = lr->mem;
    *n = len;
    return 1;
}

/* The next thread of a merge by thread: its rows added up into *t (the
 * caller frees it with row_clear). 1, 0 at the end, -1 when out of memory
 * or a run cannot be read. *rec and *len carry the record read past the
 * thread (NULL at first). */
static int next_thread(struct summary *m, struct etl_merge *g, const void **rec, size_t *len,
                       struct thr *t, bool *nomem)
{
    if (!*rec) {
        int k = etl_merge_next(g, rec, len, nomem);
        if (k <= 0)
            return k;
    }
    if (!row_from(m, *rec, *len, t)) {
        *nomem = true; /* the record was checked when written: memory */
        return -1;
    }
    for (;;) {
        int k = etl_merge_next(g, rec, len, nomem);
        if (k < 0) {
            row_clear(t);
            return -1;
        }
        if (k == 0) {
            *rec = NULL;
            return 1;
        }
        if (rec_u32(*rec, offsetof(struct thr, tid)) != t->tid ||
            rec_u64(*rec, offsetof(struct thr, pk)) != t->pk)
            return 1;
        struct thr b;
        bool ok = row_from(m, *rec, *len, &b) && fold(t, &b);
        row_clear(&b);
        if (!ok) {
            *nomem = true;
            row_clear(t);
            return -1;
        }
    }
}

/* Writes rows slots[0..n) (sorted by thread) to s as a run; 1, 0 when the
 * file fails (what it held before stays), -1 when out of memory. */
static int write_run(struct summary *m, struct etl_spill *s, const uint32_t *slots, size_t n)
{
    struct etl_run r;
    if (!etl_spill_mark(s, &r.start))
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = row_record(m, &m->t[slots[i]]);
        if (len == 0)
            return -1;
        if (!etl_spill_append(s, m->buf, len))
            return 0;
    }
    if (!etl_spill_mark(s, &r.end))
        return 0;
    if (!etl_grow(&m->runs, &m->capruns, m->nruns + 1, sizeof *m->runs, 16))
        return -1;
    m->runs[m->nruns++] = r;
    return 1;
}

/* The spill file could not be made (made: false) or written, errno saying
 * why: its rows stay in memory from now on, and a warning says so, for
 * memory no longer stays flat. */
static void spill_failed(struct summary *m, bool made)
{
    const char *why = strerror(errno);
    m->no_spill = true;
    etl_warn(m->f, "--summary: past %u threads the rows go to a temporary file in %s, which "
                   "could not be %s (%s): they stay in memory",
             (unsigned)LIVE_MAX, etl_temp_dir(), made ? "written" : "made", why);
}

/* Merges every run into one, in a new file, each thread's rows added up;
 * false when out of memory. When the file fails, the runs stay as they
 * were and no more rows go out. */
static bool compact(struct summary *m)
{
    bool nomem = false;
    struct etl_spill *ns = etl_spill_new(&nomem);
    struct etl_merge *g = NULL;
    struct etl_run r = { 0, 0 };
    bool ok = ns && (g = etl_merge_new(m->sp, m->runs, m->nruns, cmp_rec_thread, NULL, NULL,
                                       &nomem)) != NULL;
    const void *rec = NULL;
    size_t len = 0, kept = 0, rows = 0;
    struct thr t;
    int k = 0;
    bool written = ns || nomem; /* no write to the new file failed */
    while (ok && (k = next_thread(m, g, &rec, &len, &t, &nomem)) > 0) {
        size_t n = row_record(m, &t);
        kept += t.nrv;
        rows += t.nrv > 0;
        ok = n > 0 && etl_spill_append(ns, m->buf, n);
        written = ok || n == 0;
        nomem = nomem || n == 0;
        row_clear(&t);
    }
    if (ok && k == 0)
        ok = written = etl_spill_mark(ns, &r.end);
    else
        ok = false;
    int e = errno;
    etl_merge_free(g);
    if (!ok) {
        etl_spill_free(ns);
        errno = e;
        if (written)
            m->no_spill = true;
        else
            spill_failed(m, ns != NULL);
        return !nomem;
    }
    etl_spill_free(m->sp);
    m->sp = ns;
    m->runs[0] = r;
    m->nruns = 1;
    m->kept = m->kept - m->kept_out + kept;
    m->kept_out = kept;
    m->out_rows = rows;
    return true;
}

/* The bytes past which a temporary file takes no more rows. */
static uint64_t spill_max(const struct summary *m)
{
    return 2 * etl_file_size(m->f) + SPILL_SLACK;
}

/* Writes the half of the rows in memory not seen for longest to the spill
 * file as a run, but for the threads running on a CPU; false when out of
 * memory. Without a file, or when it fails, the rows stay (no_spill). */
static bool spill_half(struct summary *m)
{
    if (!m->sp) {
        bool nomem = false;
        m->sp = etl_spill_new(&nomem);
        if (!m->sp) {
            if (nomem)
                m->no_spill = true;
            else
                spill_failed(m, false);
            return !nomem;
        }
    }
    for (unsigned c = next_cpu(m, 0); c < ETL_MAX_CPUS; c = next_cpu(m, c + 1))
        if (m->cpu[c].known)
            m->t[m->cpu[c].slot].used = m->tick;
    if (!etl_grow(&m->ages, &m->capages, m->n, sizeof *m->ages, 1024) ||
        !etl_grow(&m->freed, &m->capfree, m->n, sizeof *m->freed, 1024))
        return false;
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->t[i].pk != FREE_PK)
            m->ages[k++] = m->tick - m->t[i].used;
    if (k == 0)
        return true;
    if (etl_spill_size(m->sp) > spill_max(m)) {
        m->no_spill = true;
        return true;
    }
    uint32_t cut = etl_select_u32(m->ages, k, k / 2); /* the older half: ages at or above */
    if (cut == 0)
        cut = 1; /* never what was just seen */
    size_t out = 0;
    for (size_t i = 0; i < m->n && out < k - k / 2; i++)
        if (m->t[i].pk != FREE_PK && m->tick - m->t[i].used >= cut)
            m->ages[out++] = (uint32_t)i; /* now the rows that go */
    etl_sort(m->ages, out, sizeof *m->ages, cmp_slot_thread, m->t);
    int r = write_run(m, m->sp, m->ages, out);
    if (r <= 0) {
        if (r == 0)
            spill_failed(m, true);
        else
            m->no_spill = true;
        return r == 0;
    }
    for (size_t i = 0; i < out; i++) {
        struct thr *t = &m->t[m->ages[i]];
        m->spill_oom = m->spill_oom || t->fig.oom;
        m->kept_out += t->nrv;
        m->out_rows += t->nrv > 0;
        row_clear(t);
        m->freed[m->nfree++] = m->ages[i];
    }
    memset(m->tab, 0, m->tcap * sizeof *m->tab);
    tab_fill(m, m->tab, m->tcap);
    m->tabs++;
    return m->nruns < RUNS_MAX || compact(m);
}

/* Returns a free slot (spilling rows to make one when there are many);
 * UINT32_MAX when out of memory. */
static uint32_t new_slot(struct summary *m)
{
    if (m->nfree == 0 && m->n >= LIVE_MAX && !m->no_spill && !spill_half(m))
        return UINT32_MAX;
    if (m->nfree > 0)
        return m->freed[--m->nfree];
    if (!etl_grow(&m->t, &m->cap, m->n + 1, sizeof *m->t, 256))
        return UINT32_MAX;
    m->t[m->n].pk = FREE_PK;
    return (uint32_t)m->n++;
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
    size_t nrv;               /* the ready spans its threads keep */
    int64_t rmax;
    struct figures fig;
    int64_t *rv;              /* those spans (rows from the spill file only) */
    size_t caprv;
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
        size_t n = 1 + etl_fmt_u64(s, num + 1);
        if (!put_entry(buf, cap, &o, num, n, secs, etl_fmt_seconds(c->cst[s], decimals, secs)))
            break;
    }
}

/* Prints process row q, its ready spans v[0..n) (sorted here); 0 or -1
 * after a write error. */
static int print_process(struct etl_printer *p, struct summary *m, struct prow *q, int64_t *spans,
                         size_t n, const struct presence *pr, char *rbuf, size_t rcap)
{
    const char *img = pk_image(m, q->pk, q->pid, q->proc);
    if (!process_shown(m->flt, q->pid, img))
        return 0;
    struct etl_value v[M_COUNT];
    memset(v, 0, sizeof v);
    ETL_CELL_STR(v, M_SCOPE, "process", true);
    ETL_CELL(v, M_PID, u, q->pid, true);
    ETL_CELL_STR(v, M_PROCESS, img, img != NULL);
    ETL_CELL(v, M_THREADS, u, q->threads, true);
    figure_cells(v, &q->fig, pr->ready, rbuf, rcap);
    if (q->nready)
        pct_cells(v, spans, n, q->rmax);
    intr_cells(v, pr->intr, q->fig.dpc, q->fig.isr);
    return etl_print_row(p, v);
}

/* Prints thread row t (rbuf REASONS_CAP bytes, tbuf READIERS_CAP); 0 or -1
 * after a write error. */
static int print_thread(struct etl_printer *p, struct summary *m, struct thr *t,
                        const struct presence *pr, char *rbuf, char *tbuf)
{
    const char *img = pk_image(m, t->pk, t->pid, t->proc);
    if (!thread_shown(m->flt, t, img))
        return 0;
    struct etl_value v[M_COUNT];
    memset(v, 0, sizeof v);
    ETL_CELL_STR(v, M_SCOPE, "thread", true);
    ETL_CELL(v, M_PID, u, t->pid, t->pid_known);
    ETL_CELL(v, M_TID, u, t->tid, true);
    ETL_CELL_STR(v, M_PROCESS, img, img != NULL);
    const char *tname = etl_procmap_str(m->map, t->name);
    ETL_CELL_STR(v, M_THREAD_NAME, tname, tname != NULL);
    figure_cells(v, &t->fig, pr->ready, rbuf, REASONS_CAP);
    if (t->nready)
        pct_cells(v, t->rv, t->nrv, t->rmax);
    readiers_text(t, tbuf, READIERS_CAP);
    ETL_CELL_STR(v, M_TOP_READIERS, tbuf, tbuf[0] != '\0');
    return etl_print_row(p, v);
}

/* Prints the process rows of the rows in memory; 0, -1 after a write error,
 * 1 when out of memory. ord[0..m->n) is left sorted by process key. */
static int print_processes(struct etl_printer *p, struct summary *m, const struct presence *pr_,
                           struct order *ord)
{
    char rbuf[REASONS_CAP];
    int rc = 0;
    if (m->n > 1)
        etl_sort(ord, m->n, sizeof *ord, cmp_pk, NULL);
    size_t np = 0;
    for (size_t i = 0; i < m->n; i++)
        if (ord[i].key && (i == 0 || ord[i].key != ord[i - 1].key))
            np++;
    struct prow *pr = calloc(np ? np : 1, sizeof *pr);
    if (!pr)
        return 1;
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
        q->nrv += t->nrv;
        oom = !figures_add(&q->fig, &t->fig) || oom;
    }
    size_t most = 1;
    for (size_t i = 0; i < np; i++) {
        oom = oom || pr[i].fig.oom;
        if (pr[i].nrv > most)
            most = pr[i].nrv;
    }
    /* The spans of one process at a time, for its percentiles. */
    int64_t *scratch = oom ? NULL : malloc(most * sizeof *scratch);
    oom = oom || !scratch;
    etl_sort(pr, np, sizeof *pr, cmp_prow, NULL);
    for (size_t i = 0; i < np && rc == 0 && !oom; i++) {
        size_t nv = 0;
        for (size_t j = pr[i].first; j < pr[i].end && pr[i].nready; j++) {
            const struct thr *t = &m->t[ord[j].row];
            if (t->nrv)
                memcpy(scratch + nv, t->rv, t->nrv * sizeof *scratch);
            nv += t->nrv;
        }
        rc = print_process(p, m, &pr[i], scratch, nv, pr_, rbuf, sizeof rbuf);
    }
    for (size_t i = 0; i < np; i++)
        figures_free(&pr[i].fig);
    free(pr);
    free(scratch);
    return oom ? 1 : rc;
}

/* Prints the process and thread rows when all are in memory; 0, -1 after a
 * write error, 1 when out of memory. */
static int print_held(struct etl_printer *p, struct summary *m, const struct presence *pr)
{
    char rbuf[REASONS_CAP], tbuf[READIERS_CAP];
    struct order *ord = malloc((m->n ? m->n : 1) * sizeof *ord);
    if (!ord)
        return 1;
    for (size_t i = 0; i < m->n; i++)
        ord[i] = (struct order){ m->t[i].pk, m->t[i].tid, (uint32_t)i };
    int rc = print_processes(p, m, pr, ord);
    for (size_t i = 0; i < m->n; i++)
        ord[i] = (struct order){ (uint64_t)m->t[i].fig.cpu_time, m->t[i].tid, (uint32_t)i };
    if (rc == 0)
        etl_sort(ord, m->n, sizeof *ord, cmp_thr, m->t);
    for (size_t i = 0; i < m->n && rc == 0; i++)
        rc = print_thread(p, m, &m->t[ord[i].row], pr, rbuf, tbuf);
    free(ord);
    return rc;
}

/* ---- the rows from the spill file -------------------------------------------- */

/* Process rows gathered by process key. */
struct pset {
    struct prow *p;
    size_t n, cap;
    struct etl_keyidx idx;    /* p by process key */
};

/* Returns the process row of pk, adding it; NULL when out of memory. */
static struct prow *pset_get(struct pset *ps, uint64_t pk)
{
    bool added;
    if (!etl_grow(&ps->p, &ps->cap, ps->n + 1, sizeof *ps->p, 64))
        return NULL;
    uint32_t i = etl_keyidx_get(&ps->idx, pk, (uint32_t)ps->n, &added);
    if (i == UINT32_MAX)
        return NULL;
    struct prow *q = &ps->p[i];
    if (added) {
        memset(q, 0, sizeof *q);
        q->pk = pk;
        ps->n++;
    }
    return q;
}

static void pset_free(struct pset *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        figures_free(&ps->p[i].fig);
        free(ps->p[i].rv);
    }
    free(ps->p);
    etl_keyidx_free(&ps->idx);
}

/* Adds thread row t to its process row; false when out of memory. */
static bool pset_add(struct pset *ps, const struct thr *t)
{
    struct prow *q = pset_get(ps, t->pk);
    if (!q)
        return false;
    if (q->threads++ == 0) {
        q->pid = t->pid;
        q->proc = t->proc;
    }
    if (t->nready && (q->nready == 0 || t->rmax > q->rmax))
        q->rmax = t->rmax;
    q->nready += t->nready;
    if (t->nrv) {
        size_t room = q->caprv;
        if (!etl_grow(&q->rv, &room, q->nrv + t->nrv, sizeof *q->rv, 16))
            return false;
        q->caprv = room;
        memcpy(q->rv + q->nrv, t->rv, t->nrv * sizeof *t->rv);
        q->nrv += t->nrv;
    }
    return figures_add(&q->fig, &t->fig) && !t->fig.oom;
}

/* How printing the rows of the spill file can fail. */
enum { PRINT_NOMEM = 1, PRINT_LOST = 2 };

/* Merges the runs and the rows in memory by thread, each thread's rows
 * added up, into process rows and the sorter; 0, PRINT_NOMEM or PRINT_LOST
 * (a run cannot be read). */
static int gather(struct summary *m, struct pset *ps, struct etl_sorter *so)
{
    bool nomem = false;
    struct live_rows lr = { m, NULL, 0, 0, NULL, 0 };
    uint32_t *live = malloc((m->n ? m->n : 1) * sizeof *live);
    struct etl_merge *g = NULL;
    if (live) {
        for (size_t i = 0; i < m->n; i++)
            if (m->t[i].pk != FREE_PK)
                live[lr.n++] = (uint32_t)i;
        etl_sort(live, lr.n, sizeof *live, cmp_slot_thread, m->t);
        lr.slots = live;
        g = etl_merge_new(m->sp, m->runs, m->nruns, cmp_rec_thread, live_next, &lr, &nomem);
    }
    bool ok = g != NULL;
    const void *rec = NULL;
    size_t len = 0;
    struct thr t;
    int k = 0;
    while (ok && (k = next_thread(m, g, &rec, &len, &t, &nomem)) > 0) {
        size_t n = row_record(m, &t);
        ok = (!t.pk || pset_add(ps, &t)) && n > 0 && etl_sorter_add(so, m->buf, n) && !t.fig.oom;
        row_clear(&t);
    }
    bool lost = !nomem && ((live && !g) || k < 0);
    etl_merge_free(g);
    free(live);
    free(lr.mem);
    if (ok && k == 0 && !m->spill_oom)
        return 0;
    return lost ? PRINT_LOST : PRINT_NOMEM;
}

/* Prints the thread rows of the sorter in order; 0, -1 after a write
 * error, PRINT_NOMEM or PRINT_LOST. */
static int print_sorted(struct etl_printer *p, struct summary *m, struct etl_sorter *so,
                        const struct presence *pr)
{
    char rbuf[REASONS_CAP], tbuf[READIERS_CAP];
    bool nomem = false;
    const void *rec;
    size_t len;
    int k, rc = 0;
    while (rc == 0 && (k = etl_sorter_next(so, &rec, &len, &nomem)) != 0) {
        struct thr t;
        if (k < 0)
            return nomem ? PRINT_NOMEM : PRINT_LOST;
        if (!row_from(m, rec, len, &t))
            return PRINT_NOMEM;
        rc = print_thread(p, m, &t, pr, rbuf, tbuf);
        row_clear(&t);
    }
    return rc;
}

/* Prints the process and thread rows when rows went to the spill file; 0,
 * -1 after a write error, PRINT_NOMEM or PRINT_LOST. */
static int print_spilt(struct etl_printer *p, struct summary *m, const struct presence *pr)
{
    struct pset ps;
    memset(&ps, 0, sizeof ps);
    struct etl_sorter *so = etl_sorter_new(cmp_rec_out, SORT_MEM, spill_max(m));
    int rc = so ? gather(m, &ps, so) : PRINT_NOMEM;
    char rbuf[REASONS_CAP];
    if (rc == 0)
        etl_sort(ps.p, ps.n, sizeof *ps.p, cmp_prow, NULL);
    for (size_t i = 0; i < ps.n && rc == 0; i++)
        rc = print_process(p, m, &ps.p[i], ps.p[i].rv, ps.p[i].nrv, pr, rbuf, sizeof rbuf);
    if (rc == 0)
        rc = print_sorted(p, m, so, pr);
    pset_free(&ps);
    etl_sorter_free(so);
    return rc;
}

/* Prints every row; returns 0 or -1 after a write error. */
static int print_rows(struct etl_printer *p, struct summary *m, const struct presence *pr)
{
    const struct etl_filter *f = m->flt;
    char tbuf[CSTATES_CAP];
    int rc = m->nruns > 0 ? print_spilt(p, m, pr) : print_held(p, m, pr);
    if (rc == PRINT_LOST)
        etl_file_temp_lost(m->f);
    if (rc > 0) {
        etl_file_nomem(m->f);
        return 0;
    }

    /* CPUs. */
    bool cpus_shown = !f || (!f->tid.set && !f->pid.set && f->nprocess == 0);
    int decimals = p->ops->time_decimals ? p->ops->time_decimals : 9;
    for (unsigned i = next_cpu(m, 0); i < ETL_MAX_CPUS && rc == 0 && cpus_shown;
         i = next_cpu(m, i + 1)) {
        const struct cpu *c = &m->cpu[i];
        if (f && !etl_id_list_has(&f->cpu, i))
            continue;
        struct etl_value v[M_COUNT];
        memset(v, 0, sizeof v);
        ETL_CELL_STR(v, M_SCOPE, "cpu", true);
        ETL_CELL(v, M_CPU, u, i, true);
        ETL_CELL(v, M_SWITCH_INS, u, c->switches, true);
        ETL_CELL(v, M_BUSY_TIME, i, c->busy, true);
        ETL_CELL(v, M_IDLE_TIME, i, c->idle, true);
        intr_cells(v, pr->intr, c->dpc, c->isr);
        cstates_text(c, decimals, tbuf, sizeof tbuf);
        ETL_CELL_STR(v, M_IDLE_BY_CSTATE, tbuf, tbuf[0] != '\0');
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
        ETL_CELL_STR(v, R_TYPE, etl_intr_type_name(r->type), !r->other);
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
    struct etl_who wo, wn;
    struct etl_who_cache who = { NULL };
    /* --strict stops at the first problem, one found before any switch
     * (the index's) included. */
    while (!m->oom && !(strict && etl_file_problems(m->f)) && etl_sched_next(r, &it)) {
        bool sw = it.kind == ETL_SCHED_SWITCH;
        if ((sw && !etl_procmap_switch_who(m->map, &who, &it.u.sw, &wo, &wn)) ||
            !etl_sched_take(an, &it, sw ? &wo : NULL, sw ? &wn : NULL, &sf)) {
            m->oom = true;
            break;
        }
        if (sw && etl_filter_who(m->flt))
            etl_filter_switch_seen(m->flt, &it.u.sw, &wo, &wn); /* before any filter */
        if (sw)
            account_switch(m, &it, &sf, &wo, &wn);
        else if (it.kind == ETL_SCHED_INTR)
            account_intr(m, &it);
    }
    etl_who_cache_fini(&who);
    for (size_t i = 0; i < m->n; i++)
        m->oom = m->oom || m->t[i].fig.oom;
    m->oom = m->oom || m->spill_oom;
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
    m.kept_max = READY_KEPT;
    m.cpu = calloc(ETL_MAX_CPUS, sizeof *m.cpu);
    struct etl_procmap *map = m.cpu ? etl_procmap_build(f, true) : NULL;
    etl_filter_notes(o->filter, map, f);
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
    const struct etl_switch_stats *st = etl_switch_reader_stats(r);
    if (!(o->strict && etl_file_problems(f))) /* read to the end */
        etl_view_switches_end(f, r, s, o->filter, ETL_SEEN_SWITCHES, NULL);
    etl_sched_warn(an, f);
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
    free(m.freed);
    free(m.runs);
    free(m.buf);
    free(m.ages);
    etl_spill_free(m.sp);
    free(m.tab);
    free(m.cpu);
    free(m.rt.t);
    etl_sched_free(an);
    etl_switch_reader_free(r);
    etl_streams_free(s);
    etl_procmap_free(map);
    return rc;
}
