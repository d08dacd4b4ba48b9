/*
 * summary.c - the scheduling summary (--summary): per process, per thread
 * and per CPU, what the context switches say about who ran and who waited,
 * as xperf's "-a cswitch -process -thread" and WPA's CPU Usage (Precise) do.
 *
 * One pass over the switches in time order (the switch reader), with each
 * thread resolved to its process at the switch's time (procmap.h):
 *
 *   run        from a switch-in on a CPU to the next switch on that CPU,
 *              when both are seen and the second switches out the thread
 *              the first switched in (after a switch whose new thread is
 *              unknown - a gap, or the end of a compact batch stream - the
 *              CPU's next run is not counted);
 *   cpu_time   the sum of a thread's runs; switch_ins the switches to it;
 *   wait       from a switch-out in state Waiting to the thread's next
 *              switch-in (on any CPU): wait_time, waits (switch-outs in
 *              Waiting, counted when they happen) and the wait reasons;
 *   ready      from a switch-out while still runnable (Ready, Running,
 *              Standby, DeferredReady) to the next switch-in: ready_time;
 *   migration  a switch-in on another CPU than the thread's previous one;
 *   busy/idle  a CPU's runs of other threads / of the idle thread (TID 0).
 *
 * --range clips every span to the window and counts a switch when its time
 * is in it; --cpu counts runs and switches on those CPUs only (a wait or
 * ready span by the CPU it began on). --tid, --pid and --process choose
 * which process and thread rows are shown (CPU rows are then left out).
 * Thread rows are threads (TID within its process lifetime); process rows
 * add up their threads. Rows are sorted by CPU time, longest first; CPU
 * rows follow in CPU order. Memory grows with threads, processes and CPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"
#include "grow.h"
#include "decode/swreader.h"
#include "decode/names.h"
#include "decode/procmap.h"
#include "view/view.h"

enum {
    M_SCOPE, M_CPU, M_PID, M_TID, M_PROCESS, M_THREAD_NAME, M_THREADS, M_CPU_TIME,
    M_SWITCH_INS, M_MEAN_RUN, M_MAX_RUN, M_WAIT_TIME, M_WAITS, M_READY_TIME,
    M_MIGRATIONS, M_BUSY_TIME, M_IDLE_TIME, M_WAIT_REASONS, M_COUNT
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
};

const struct etl_table etl_table_summary = { "summary", summary_cols, M_COUNT, false };

/* KTHREAD_STATE values (names.c has their names). */
#define ST_READY 1
#define ST_RUNNING 2
#define ST_STANDBY 3
#define ST_WAITING 5
#define ST_DEFERRED_READY 7

/* What a thread is doing between a switch-out and its next switch-in. */
enum { OUT_NONE, OUT_WAIT, OUT_READY };

/* How often a thread waited for one reason. */
struct reason_count {
    uint32_t count;
    uint8_t reason;
};

/* Figures of a thread or a process. */
struct figures {
    int64_t cpu_time, max_run, wait_time, ready_time;
    uint64_t runs, switch_ins, waits, migrations;
    struct reason_count *wr;
    uint16_t nwr, capwr;
    bool oom;                 /* a wait reason could not be counted */
};

/* One thread row: a TID within a process lifetime (or its PID, or neither). */
struct thr {
    uint64_t pk;              /* process key (see proc_key) */
    uint32_t tid, pid;
    uint32_t name;            /* from the map, or ETL_PM_NONE */
    uint32_t proc;            /* process lifetime, or ETL_PM_NONE */
    bool pid_known;
    int64_t out_at;           /* last switch-out */
    uint8_t out_kind;         /* OUT_* */
    bool out_counts;          /* that switch-out's CPU is selected */
    int32_t last_cpu;         /* of the last switch-in, -1 before */
    struct figures fig;
};

/* One CPU's state. */
struct cpu {
    uint32_t slot;            /* thread running (index into threads) */
    int64_t since;            /* its switch-in */
    bool known;               /* slot is valid */
    bool seen;
    int64_t busy, idle;
    uint64_t switches;
};

struct summary {
    struct etl_file *f;
    const struct etl_filter *flt;
    const struct etl_clock *clk;
    const struct etl_procmap *map;
    struct thr *t;
    size_t n, cap;
    uint32_t *tab;            /* slot + 1, 0 empty */
    size_t tcap;
    struct cpu *cpu;          /* ETL_MAX_CPUS */
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

/* Grows the slot table; false when out of memory. */
static bool rehash(struct summary *m)
{
    size_t ncap = m->tcap ? m->tcap * 2 : 1024;
    uint32_t *t = calloc(ncap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < m->n; i++) {
        size_t j = key_hash(m->t[i].tid, m->t[i].pk) & (ncap - 1);
        while (t[j])
            j = (j + 1) & (ncap - 1);
        t[j] = (uint32_t)i + 1;
    }
    free(m->tab);
    m->tab = t;
    m->tcap = ncap;
    return true;
}

/* Returns the row of thread tid at ts, adding it; UINT32_MAX when out of
 * memory. */
static uint32_t thread_slot(struct summary *m, uint32_t tid, int64_t ts)
{
    struct etl_who w;
    etl_procmap_who(m->map, tid, ts, &w);
    uint64_t pk = proc_key(&w);
    if ((m->n + 1) * 2 > m->tcap && !rehash(m))
        return UINT32_MAX;
    size_t j = key_hash(tid, pk) & (m->tcap - 1);
    while (m->tab[j]) {
        struct thr *t = &m->t[m->tab[j] - 1];
        if (t->tid == tid && t->pk == pk)
            return m->tab[j] - 1;
        j = (j + 1) & (m->tcap - 1);
    }
    if (!etl_grow(&m->t, &m->cap, m->n + 1, sizeof *m->t, 256))
        return UINT32_MAX;
    struct thr *t = &m->t[m->n];
    memset(t, 0, sizeof *t);
    t->pk = pk;
    t->tid = tid;
    t->pid = w.pid;
    t->pid_known = w.known;
    t->proc = w.proc;
    t->name = w.thread != ETL_PM_NONE ? etl_procmap_thread(m->map, w.thread)->name
                                      : ETL_PM_NONE;
    t->last_cpu = -1;
    m->tab[j] = (uint32_t)m->n + 1;
    return (uint32_t)m->n++;
}

/* ---- figures ---------------------------------------------------------------- */

/* Returns a + b for durations (never negative), saturated: hostile
 * timestamps must not overflow a sum. */
static int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Returns the part of [a, b] inside --range, or -1 when they do not meet. */
static int64_t clip(const struct etl_filter *f, int64_t a, int64_t b)
{
    if (f && f->has_start && a < f->start_ns)
        a = f->start_ns;
    if (f && f->has_end && b > f->end_ns)
        b = f->end_ns;
    if (b < a)
        return -1;
    uint64_t d = (uint64_t)b - (uint64_t)a; /* saturated, as sat_add */
    return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/* Returns true if a switch at ns counts for --range. */
static bool in_range(const struct etl_filter *f, int64_t ns)
{
    return !f || ((!f->has_start || ns >= f->start_ns) && (!f->has_end || ns <= f->end_ns));
}

/* Counts one wait for reason r. */
static void add_reason(struct figures *g, uint8_t r, uint32_t k)
{
    for (uint16_t i = 0; i < g->nwr; i++)
        if (g->wr[i].reason == r) {
            g->wr[i].count += k;
            return;
        }
    if (g->nwr == g->capwr) {
        uint16_t ncap = g->capwr ? (uint16_t)(g->capwr * 2) : 4;
        struct reason_count *n = realloc(g->wr, ncap * sizeof *n);
        if (!n) {
            g->oom = true;
            return;
        }
        g->wr = n;
        g->capwr = ncap;
    }
    g->wr[g->nwr].reason = r;
    g->wr[g->nwr].count = k;
    g->nwr++;
}

/* Adds one switch to the figures. */
static void account(struct summary *m, const struct etl_switch *sw)
{
    const struct etl_filter *f = m->flt;
    int64_t ns = etl_clock_ns(m->clk, sw->ts);
    struct cpu *c = &m->cpu[sw->cpu];
    bool cpu_ok = !f || etl_id_list_has(&f->cpu, sw->cpu);
    bool counts = cpu_ok && in_range(f, ns);
    bool has_old = (sw->has & SW_OLD_TID) != 0, has_new = (sw->has & SW_NEW_TID) != 0;
    c->seen = true;
    if (counts)
        c->switches++;

    /* The run that ends here. */
    if (c->known && (!has_old || m->t[c->slot].tid == sw->old_tid)) {
        struct thr *t = &m->t[c->slot];
        int64_t d = cpu_ok ? clip(f, c->since, ns) : -1;
        if (d >= 0) {
            t->fig.cpu_time = sat_add(t->fig.cpu_time, d);
            t->fig.runs++;
            if (d > t->fig.max_run)
                t->fig.max_run = d;
            if (t->tid == 0)
                c->idle = sat_add(c->idle, d);
            else
                c->busy = sat_add(c->busy, d);
        }
    }
    /* The old thread leaves. */
    if (has_old && sw->old_tid != 0) {
        uint32_t o = thread_slot(m, sw->old_tid, sw->ts);
        if (o == UINT32_MAX) {
            m->oom = true;
            return;
        }
        struct thr *t = &m->t[o];
        t->out_at = ns;
        t->out_counts = cpu_ok;
        t->out_kind = OUT_NONE;
        if (sw->has & SW_OLD_STATE) {
            unsigned st = sw->old_state;
            if (st == ST_WAITING) {
                t->out_kind = OUT_WAIT;
                if (counts) {
                    t->fig.waits++;
                    if (sw->has & SW_OLD_WAIT_REASON)
                        add_reason(&t->fig, sw->old_wait_reason, 1);
                }
            } else if (st == ST_READY || st == ST_RUNNING || st == ST_STANDBY ||
                       st == ST_DEFERRED_READY) {
                t->out_kind = OUT_READY;
            }
        }
    }
    /* The new thread comes in. */
    c->known = false;
    if (!has_new)
        return;
    uint32_t k = thread_slot(m, sw->new_tid, sw->ts);
    if (k == UINT32_MAX) {
        m->oom = true;
        return;
    }
    struct thr *t = &m->t[k];
    if (counts)
        t->fig.switch_ins++;
    if (t->out_kind != OUT_NONE && t->out_counts) {
        int64_t d = clip(f, t->out_at, ns);
        if (d >= 0) {
            if (t->out_kind == OUT_WAIT)
                t->fig.wait_time = sat_add(t->fig.wait_time, d);
            else
                t->fig.ready_time = sat_add(t->fig.ready_time, d);
        }
    }
    t->out_kind = OUT_NONE;
    if (sw->new_tid != 0) {
        if (t->last_cpu >= 0 && t->last_cpu != sw->cpu && counts)
            t->fig.migrations++;
        t->last_cpu = sw->cpu;
    }
    c->known = true;
    c->slot = k;
    c->since = ns;
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

/* Writes "Reason:count ..." into buf. */
static void reasons_text(struct figures *g, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    if (g->nwr > 1)
        etl_sort(g->wr, g->nwr, sizeof *g->wr, cmp_reason, NULL);
    for (uint16_t i = 0; i < g->nwr && o < cap; i++) {
        const char *name = etl_wait_reason_name(g->wr[i].reason);
        int n = name ? snprintf(buf + o, cap - o, "%s%s:%u", i ? " " : "", name,
                                (unsigned)g->wr[i].count)
                     : snprintf(buf + o, cap - o, "%s%u:%u", i ? " " : "",
                                (unsigned)g->wr[i].reason, (unsigned)g->wr[i].count);
        if (n < 0)
            break;
        o += (size_t)n;
    }
}

/* Fills the figure cells of v. */
static void figure_cells(struct etl_value *v, struct figures *g, char *rbuf, size_t rcap)
{
    v[M_CPU_TIME].v.i = g->cpu_time;
    v[M_CPU_TIME].set = true;
    v[M_SWITCH_INS].v.u = g->switch_ins;
    v[M_SWITCH_INS].set = true;
    v[M_MEAN_RUN].v.i = g->runs ? g->cpu_time / (int64_t)g->runs : 0;
    v[M_MEAN_RUN].set = g->runs > 0;
    v[M_MAX_RUN].v.i = g->max_run;
    v[M_MAX_RUN].set = g->runs > 0;
    v[M_WAIT_TIME].v.i = g->wait_time;
    v[M_WAIT_TIME].set = true;
    v[M_WAITS].v.u = g->waits;
    v[M_WAITS].set = true;
    v[M_READY_TIME].v.i = g->ready_time;
    v[M_READY_TIME].set = true;
    v[M_MIGRATIONS].v.u = g->migrations;
    v[M_MIGRATIONS].set = true;
    reasons_text(g, rbuf, rcap);
    v[M_WAIT_REASONS].v.s = rbuf;
    v[M_WAIT_REASONS].set = rbuf[0] != '\0';
}

/* Adds the figures of b to a. */
static void figures_add(struct figures *a, const struct figures *b)
{
    a->cpu_time = sat_add(a->cpu_time, b->cpu_time);
    a->wait_time = sat_add(a->wait_time, b->wait_time);
    a->ready_time = sat_add(a->ready_time, b->ready_time);
    if (b->max_run > a->max_run)
        a->max_run = b->max_run;
    a->runs += b->runs;
    a->switch_ins += b->switch_ins;
    a->waits += b->waits;
    a->migrations += b->migrations;
    for (uint16_t i = 0; i < b->nwr; i++)
        add_reason(a, b->wr[i].reason, b->wr[i].count);
}

/* A process row: the threads that share a process key. */
struct prow {
    uint64_t pk;
    uint32_t pid, proc, threads;
    struct figures fig;
};

/* Orders thread rows by process key (to gather processes). */
static int cmp_pk(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct thr *x = a, *y = b;
    if (x->pk != y->pk)
        return x->pk < y->pk ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Orders thread rows: most CPU time first, then PID and TID. */
static int cmp_thr(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct thr *x = a, *y = b;
    if (x->fig.cpu_time != y->fig.cpu_time)
        return x->fig.cpu_time > y->fig.cpu_time ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->pk < y->pk ? -1 : x->pk > y->pk;
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

/* Prints every row; returns 0 or -1 after a write error. */
static int print_rows(struct etl_printer *p, struct summary *m)
{
    const struct etl_filter *f = m->flt;
    char rbuf[2048];
    int rc = 0;

    /* Processes: gather threads by process key, then sort. */
    if (m->n > 1) 
        etl_sort(m->t, m->n, sizeof *m->t, cmp_pk, NULL);
    size_t np = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->t[i].pk && (i == 0 || m->t[i].pk != m->t[i - 1].pk))
            np++;
    struct prow *pr = calloc(np ? np : 1, sizeof *pr);
    if (!pr) {
        etl_file_nomem(m->f);
        return 0;
    }
    np = 0;
    for (size_t i = 0; i < m->n; i++) {
        const struct thr *t = &m->t[i];
        if (!t->pk)
            continue;
        if (np == 0 || pr[np - 1].pk != t->pk) {
            pr[np].pk = t->pk;
            pr[np].pid = t->pid;
            pr[np].proc = t->proc;
            np++;
        }
        pr[np - 1].threads++;
        figures_add(&pr[np - 1].fig, &t->fig);
    }
    bool oom = false;
    for (size_t i = 0; i < np; i++)
        oom = oom || pr[i].fig.oom;
    if (oom)
        etl_file_nomem(m->f);
    etl_sort(pr, np, sizeof *pr, cmp_prow, NULL);
    for (size_t i = 0; i < np && rc == 0 && !oom; i++) {
        const char *img = pk_image(m, pr[i].pk, pr[i].pid, pr[i].proc);
        if (process_shown(f, pr[i].pid, img)) {
            struct etl_value v[M_COUNT];
            memset(v, 0, sizeof v);
            v[M_SCOPE].v.s = "process";
            v[M_SCOPE].set = true;
            v[M_PID].v.u = pr[i].pid;
            v[M_PID].set = true;
            v[M_PROCESS].v.s = img;
            v[M_PROCESS].set = img != NULL;
            v[M_THREADS].v.u = pr[i].threads;
            v[M_THREADS].set = true;
            figure_cells(v, &pr[i].fig, rbuf, sizeof rbuf);
            rc = etl_print_row(p, v);
        }
    }
    for (size_t i = 0; i < np; i++)
        free(pr[i].fig.wr);
    free(pr);

    if (oom)
        return 0;

    /* Threads. */
    etl_sort(m->t, m->n, sizeof *m->t, cmp_thr, NULL);
    for (size_t i = 0; i < m->n && rc == 0; i++) {
        struct thr *t = &m->t[i];
        const char *img = pk_image(m, t->pk, t->pid, t->proc);
        if (!thread_shown(f, t, img))
            continue;
        struct etl_value v[M_COUNT];
        memset(v, 0, sizeof v);
        v[M_SCOPE].v.s = "thread";
        v[M_SCOPE].set = true;
        v[M_PID].v.u = t->pid;
        v[M_PID].set = t->pid_known;
        v[M_TID].v.u = t->tid;
        v[M_TID].set = true;
        v[M_PROCESS].v.s = img;
        v[M_PROCESS].set = img != NULL;
        v[M_THREAD_NAME].v.s = etl_procmap_str(m->map, t->name);
        v[M_THREAD_NAME].set = v[M_THREAD_NAME].v.s != NULL;
        figure_cells(v, &t->fig, rbuf, sizeof rbuf);
        rc = etl_print_row(p, v);
    }

    /* CPUs. */
    bool cpus_shown = !f || (!f->tid.set && !f->pid.set && f->nprocess == 0);
    for (unsigned i = 0; i < ETL_MAX_CPUS && rc == 0 && cpus_shown; i++) {
        const struct cpu *c = &m->cpu[i];
        if (!c->seen || (f && !etl_id_list_has(&f->cpu, i)))
            continue;
        struct etl_value v[M_COUNT];
        memset(v, 0, sizeof v);
        v[M_SCOPE].v.s = "cpu";
        v[M_SCOPE].set = true;
        v[M_CPU].v.u = i;
        v[M_CPU].set = true;
        v[M_SWITCH_INS].v.u = c->switches;
        v[M_SWITCH_INS].set = true;
        v[M_BUSY_TIME].v.i = c->busy;
        v[M_BUSY_TIME].set = true;
        v[M_IDLE_TIME].v.i = c->idle;
        v[M_IDLE_TIME].set = true;
        rc = etl_print_row(p, v);
    }
    return rc;
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
    struct etl_switch_reader *r = s ? etl_switch_reader_new(f, s, o->max_wait_reason) : NULL;
    int rc = 0;
    if (!r) {
        etl_file_nomem(f);
        goto out;
    }
    m.map = map;
    struct etl_switch sw;
    while (!m.oom && etl_switch_next(r, &sw)) {
        account(&m, &sw);
        if (o->strict && etl_file_problems(f))
            break;
    }
    for (size_t i = 0; i < m.n; i++)
        m.oom = m.oom || m.t[i].fig.oom;
    if (m.oom || etl_file_is_nomem(f)) {
        etl_file_nomem(f);
        goto out;
    }
    rc = etl_print_begin_table(p, &etl_table_summary);
    if (rc == 0)
        rc = print_rows(p, &m);
    if (rc == 0)
        rc = etl_print_end_table(p);
out:
    for (size_t i = 0; i < m.n; i++)
        free(m.t[i].fig.wr);
    free(m.t);
    free(m.tab);
    free(m.cpu);
    etl_switch_reader_free(r);
    etl_streams_free(s);
    etl_procmap_free(map);
    return rc;
}
