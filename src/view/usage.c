/*
 * usage.c - runs of threads on CPUs, CPU usage per interval and process
 * (usage.h says how both are counted), and the usage view (--usage): one
 * row per interval and process that ran in it, busiest first; an interval
 * in which no shown process ran has one row without pid and process.
 */
#include "view/usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "keyidx.h"
#include "sort.h"
#include "view/groupmask.h"
#include "view/view.h"

/* ---- a pass over the switches ----------------------------------------------------- */

bool etl_switch_pass_open(struct etl_file *f, unsigned max_wait_reason,
                          struct etl_switch_pass *s)
{
    memset(s, 0, sizeof *s);
    s->map = etl_procmap_build(f, true);
    s->streams = s->map ? etl_streams_new(f) : NULL;
    s->reader = s->streams ? etl_sched_reader_new(f, s->streams, max_wait_reason) : NULL;
    if (s->reader)
        return true;
    etl_file_nomem(f);
    etl_switch_pass_close(s);
    return false;
}

void etl_switch_pass_close(struct etl_switch_pass *s)
{
    etl_switch_reader_free(s->reader);
    etl_streams_free(s->streams);
    etl_procmap_free(s->map);
    memset(s, 0, sizeof *s);
}

/* ---- runs --------------------------------------------------------------------- */

/* A DPC or ISR span taken out of a run. */
struct span {
    int64_t s, e;
};

/* What runs on a CPU. */
struct run_cpu {
    struct span *intr;        /* DPC/ISR spans of the current run, outermost kept */
    size_t nintr, capintr;
    int64_t since;            /* the switch-in, ns */
    int64_t last_end;         /* the end of the last run counted, ns */
    uint32_t tid, proc;
    bool known;               /* a thread was switched in and is still on */
    bool counts;              /* its run counts (--cpu, --tid) */
    bool ended;               /* a run was counted: last_end is set */
    bool seen;
};

struct etl_runs {
    const struct etl_procmap *map;
    const struct etl_clock *clk;
    const struct etl_filter *flt;
    etl_run_fn fn;
    etl_intr_fn intr;         /* may be NULL */
    void *ctx;
    struct run_cpu *cpu;      /* ETL_MAX_CPUS */
    uint16_t *seen;           /* the CPUs met, in order */
    size_t nseen;
    struct etl_run_proc *p;
    size_t n, cap;
    struct etl_keyidx idx;    /* p by key */
};

struct etl_runs *etl_runs_new(const struct etl_procmap *map, const struct etl_clock *clk,
                              const struct etl_filter *flt, etl_run_fn fn, void *ctx)
{
    struct etl_runs *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->map = map;
    r->clk = clk;
    r->flt = flt && etl_filter_any(flt) ? flt : NULL;
    r->fn = fn;
    r->ctx = ctx;
    r->cpu = calloc(ETL_MAX_CPUS, sizeof *r->cpu);
    r->seen = calloc(ETL_MAX_CPUS, sizeof *r->seen);
    if (!r->cpu || !r->seen) {
        etl_runs_free(r);
        return NULL;
    }
    return r;
}

void etl_runs_free(struct etl_runs *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->cpu && i < ETL_MAX_CPUS; i++)
        free(r->cpu[i].intr);
    free(r->cpu);
    free(r->seen);
    free(r->p);
    etl_keyidx_free(&r->idx);
    free(r);
}

/* The process key of a thread, as the summary forms it: its process
 * lifetime, else its PID, else 0. */
static uint64_t run_key(const struct etl_who *w)
{
    if (w->proc != ETL_PM_NONE)
        return (1ull << 40) | w->proc;
    if (w->known)
        return (2ull << 40) | w->pid;
    return 0;
}

/* Returns the process index of thread tid at raw time ts, adding the
 * process when new; UINT32_MAX when out of memory. */
static uint32_t runs_proc(struct etl_runs *r, uint32_t tid, int64_t ts)
{
    struct etl_who w;
    etl_procmap_who(r->map, tid, ts, &w);
    uint64_t key = run_key(&w);
    bool added;
    if (!etl_grow(&r->p, &r->cap, r->n + 1, sizeof *r->p, 64))
        return UINT32_MAX;
    uint32_t i = etl_keyidx_get(&r->idx, key, (uint32_t)r->n, &added);
    if (!added)
        return i;
    struct etl_run_proc *p = &r->p[r->n];
    memset(p, 0, sizeof *p);
    p->key = key;
    p->pid = w.pid;
    p->pid_known = w.known;
    if (w.proc != ETL_PM_NONE)
        p->image = etl_procmap_str(r->map, etl_procmap_process(r->map, w.proc)->image);
    if (!p->image && p->pid_known && p->pid == 0)
        p->image = "Idle";
    const struct etl_filter *f = r->flt;
    p->shown = !f || ((!f->pid.set || (p->pid_known && etl_id_list_has(&f->pid, p->pid))) &&
                      etl_filter_process(f, p->image));
    return (uint32_t)r->n++;
}

bool etl_runs_switch(struct etl_runs *r, const struct etl_switch *sw, bool linked)
{
    const struct etl_filter *f = r->flt;
    int64_t ns = etl_clock_ns(r->clk, sw->ts);
    struct run_cpu *c = &r->cpu[sw->cpu];
    bool has_old = (sw->has & SW_OLD_TID) != 0, has_new = (sw->has & SW_NEW_TID) != 0;
    if (!c->seen) {
        c->seen = true;
        r->seen[r->nseen++] = sw->cpu;
    }
    /* The run that ends here (not across a gap in the CPU's stream). */
    if (c->known && c->counts && linked && (!has_old || c->tid == sw->old_tid)) {
        int64_t a = c->since, b = ns;
        if (f && f->has_start && a < f->start_ns)
            a = f->start_ns;
        if (f && f->has_end && b > f->end_ns)
            b = f->end_ns;
        /* Runs on one CPU never overlap, even where time went backwards in
         * damaged data: the work of those that follow stays bounded. */
        if (c->ended && a < c->last_end)
            a = c->last_end;
        if (b >= a) {
            c->last_end = b;
            c->ended = true;
            struct etl_run_proc *p = &r->p[c->proc];
            uint64_t d = (uint64_t)b - (uint64_t)a, room = (uint64_t)(INT64_MAX - p->cpu_time);
            p->cpu_time = d > room ? INT64_MAX : p->cpu_time + (int64_t)d;
            if (!r->fn(r->ctx, sw->cpu, c->proc, c->tid, a, b))
                return false;
            /* The run's DPCs and ISRs are not its thread's time: each part
             * of the run is taken out once at most, even where damaged data
             * makes spans cross each other or reach outside the run. */
            int64_t done = a;
            for (size_t i = 0; i < c->nintr; i++) {
                int64_t s = c->intr[i].s > done ? c->intr[i].s : done;
                int64_t e = c->intr[i].e < b ? c->intr[i].e : b;
                if (e <= s)
                    continue;
                done = e;
                uint64_t x = (uint64_t)e - (uint64_t)s;
                p->cpu_time = (uint64_t)p->cpu_time > x ? p->cpu_time - (int64_t)x : 0;
                if (r->intr && !r->intr(r->ctx, sw->cpu, c->proc, c->tid, s, e, -1))
                    return false;
            }
        }
    }
    c->nintr = 0;
    /* The thread that comes in. */
    c->known = false;
    if (!has_new)
        return true;
    uint32_t k = runs_proc(r, sw->new_tid, sw->ts);
    if (k == UINT32_MAX)
        return false;
    c->known = true;
    c->tid = sw->new_tid;
    c->proc = k;
    c->since = ns;
    c->counts = !f || (etl_id_list_has(&f->cpu, sw->cpu) && etl_id_list_has(&f->tid, c->tid));
    return true;
}

void etl_runs_on_intr(struct etl_runs *r, etl_intr_fn fn)
{
    r->intr = fn;
}

bool etl_runs_intr(struct etl_runs *r, const struct etl_sched_item *it)
{
    struct run_cpu *c = &r->cpu[it->cpu];
    if (!c->known || !c->counts)
        return true; /* no run of this CPU will be counted */
    int64_t e = etl_clock_ns(r->clk, it->ts), s = etl_clock_ns(r->clk, it->u.intr.initial_time);
    if (s < c->since)
        s = c->since; /* a DPC or ISR runs between two switches */
    if (s > e)
        s = e;
    /* Those that finished inside it are nested in it: only the outermost
     * span is kept (§17.3). Taken out of the run when the run is counted. */
    while (c->nintr > 0 && c->intr[c->nintr - 1].s >= s && c->intr[c->nintr - 1].e <= e)
        c->nintr--;
    if (!etl_grow(&c->intr, &c->capintr, c->nintr + 1, sizeof *c->intr, 8))
        return false;
    c->intr[c->nintr].s = s;
    c->intr[c->nintr].e = e;
    c->nintr++;
    return true;
}

int64_t etl_runs_horizon(const struct etl_runs *r, int64_t now, int32_t *cpu)
{
    *cpu = -1;
    for (size_t i = 0; i < r->nseen; i++) {
        const struct run_cpu *c = &r->cpu[r->seen[i]];
        if (c->known && c->counts && c->since < now) {
            now = c->since;
            *cpu = r->seen[i];
        }
    }
    return now;
}

size_t etl_runs_nprocs(const struct etl_runs *r)
{
    return r->n;
}

const struct etl_run_proc *etl_runs_proc(const struct etl_runs *r, uint32_t i)
{
    return &r->p[i];
}

/* ---- the span of a trace -------------------------------------------------------- */

struct span_ctx {
    int64_t lo, hi;
    bool any;
};

/* Widens the span to time ts. */
static inline void span_add(struct span_ctx *s, int64_t ts)
{
    if (!s->any || ts < s->lo)
        s->lo = ts;
    if (!s->any || ts > s->hi)
        s->hi = ts;
    s->any = true;
}

static bool span_event(void *vctx, const struct etl_event *ev)
{
    if (ev->flags & ETL_EV_TS)
        span_add(vctx, ev->ts);
    return true;
}

/* The span of runs of PERFINFO64 events, which all carry a time. */
static bool span_runs(void *vctx, unsigned cpu, const struct etl_hook_run *r, size_t n)
{
    (void)cpu;
    for (size_t i = 0; i < n; i++) {
        span_add(vctx, r[i].first);
        span_add(vctx, r[i].last);
    }
    return true;
}

bool etl_trace_span(struct etl_file *f, int64_t *first, int64_t *last)
{
    struct span_ctx s = { 0, 0, false };
    struct etl_scope scope;
    etl_scope_begin(f, &scope, false);
    etl_walk_file_runs(f, span_event, span_runs, NULL, &s);
    etl_scope_end(f, &scope);
    etl_scope_replay(f, &scope);
    const struct etl_clock *clk = etl_file_clock(f);
    *first = s.any ? etl_clock_ns(clk, s.lo) : 0;
    *last = s.any ? etl_clock_ns(clk, s.hi) : 0;
    return s.any;
}

int64_t etl_usage_nice_interval(int64_t span, int64_t count)
{
    int64_t want = count > 0 ? span / count : span;
    static const int64_t steps[] = { 1, 2, 5 };
    int64_t prev = 1000; /* 1 us */
    for (int64_t scale = 1000;; scale *= 10) {
        for (int i = 0; i < 3; i++) {
            int64_t c = steps[i] * scale;
            /* The nearer of prev and c on a logarithmic scale. */
            if (c >= want)
                return (double)want * (double)want < (double)prev * (double)c ? prev : c;
            prev = c;
        }
        if (scale > INT64_MAX / 100)
            return prev;
    }
}

/* ---- usage ---------------------------------------------------------------------- */

/* One interval still open. */
struct ival {
    struct etl_usage_ent *e;
    size_t n, cap;
};

struct etl_usage {
    int64_t start, end, interval;
    uint64_t nint;            /* intervals in all */
    uint64_t first;           /* the first interval not handed on */
    struct ival *ring;        /* intervals first .. first + count - 1 */
    size_t rcap, head, count;
    uint64_t *last_k;         /* per process: the interval it was last added to */
    uint32_t *last_pos;       /* ... and its entry there */
    size_t ncache;
    int32_t blocker;          /* the CPU whose open run holds intervals back */
    etl_usage_fn fn;
    void *ctx;
};

struct etl_usage *etl_usage_new(int64_t start, int64_t end, int64_t interval,
                                etl_usage_fn fn, void *ctx)
{
    struct etl_usage *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    if (interval <= 0)
        interval = 1;
    if (end < start)
        end = start;
    uint64_t span = (uint64_t)end - (uint64_t)start;
    u->start = start;
    u->end = end;
    u->interval = interval;
    u->nint = span / (uint64_t)interval + (span % (uint64_t)interval != 0);
    u->blocker = -1;
    u->fn = fn;
    u->ctx = ctx;
    return u;
}

void etl_usage_free(struct etl_usage *u)
{
    if (!u)
        return;
    for (size_t i = 0; i < u->rcap; i++)
        free(u->ring[i].e);
    free(u->ring);
    free(u->last_k);
    free(u->last_pos);
    free(u);
}

/* Returns the start of interval k (k <= nint): the end of the last one is
 * the accumulator's end. */
static int64_t bound(const struct etl_usage *u, uint64_t k)
{
    uint64_t span = (uint64_t)u->end - (uint64_t)u->start;
    if (k >= u->nint || k * (uint64_t)u->interval >= span)
        return u->end;
    return (int64_t)((uint64_t)u->start + k * (uint64_t)u->interval);
}

/* Returns interval k's entries (k >= first), making room; NULL when out of
 * memory. */
static struct ival *slot(struct etl_usage *u, uint64_t k)
{
    uint64_t off = k - u->first;
    if (off >= u->rcap) {
        size_t ncap = u->rcap ? u->rcap : 16;
        while (ncap <= off)
            ncap *= 2;
        struct ival *n = calloc(ncap, sizeof *n);
        if (!n)
            return NULL;
        for (size_t i = 0; i < u->rcap; i++)
            n[i] = u->ring[(u->head + i) & (u->rcap - 1)];
        free(u->ring);
        u->ring = n;
        u->rcap = ncap;
        u->head = 0;
    }
    if (off >= u->count)
        u->count = (size_t)off + 1;
    return &u->ring[(u->head + (size_t)off) & (u->rcap - 1)];
}

/* Adds ns of process proc to interval k (ns may be negative); false when
 * out of memory. */
static bool credit(struct etl_usage *u, uint64_t k, uint32_t proc, int64_t ns)
{
    struct ival *v = slot(u, k);
    if (!v)
        return false;
    if (proc < u->ncache && u->last_k[proc] == k + 1) {
        v->e[u->last_pos[proc]].ns += ns;
        return true;
    }
    size_t i = 0;
    while (i < v->n && v->e[i].proc != proc)
        i++;
    if (i == v->n) {
        if (!etl_grow(&v->e, &v->cap, v->n + 1, sizeof *v->e, 8))
            return false;
        v->e[v->n].proc = proc;
        v->e[v->n].ns = 0;
        v->n++;
    }
    v->e[i].ns += ns;
    if (proc >= u->ncache) {
        /* Both arrays grow alike, from the same capacity. */
        size_t c1 = u->ncache, c2 = u->ncache;
        if (!etl_grow(&u->last_k, &c1, (size_t)proc + 1, sizeof *u->last_k, 64) ||
            !etl_grow(&u->last_pos, &c2, (size_t)proc + 1, sizeof *u->last_pos, 64))
            return false;
        memset(u->last_k + u->ncache, 0, (c1 - u->ncache) * sizeof *u->last_k);
        u->ncache = c1;
    }
    u->last_k[proc] = k + 1;
    u->last_pos[proc] = (uint32_t)i;
    return true;
}

bool etl_usage_add(struct etl_usage *u, uint32_t proc, int64_t a, int64_t b)
{
    return etl_usage_credit(u, proc, a, b, +1);
}

bool etl_usage_credit(struct etl_usage *u, uint32_t proc, int64_t a, int64_t b, int sign)
{
    int64_t lo = bound(u, u->first);
    if (a < lo)
        a = lo;
    if (b > u->end)
        b = u->end;
    if (b <= a)
        return true;
    uint64_t k = ((uint64_t)a - (uint64_t)u->start) / (uint64_t)u->interval;
    for (;; k++) {
        int64_t ke = bound(u, k + 1), part = etl_overlap(a, b, bound(u, k), ke);
        if (part > 0 && !credit(u, k, proc, sign < 0 ? -part : part))
            return false;
        if (ke >= b)
            return true;
    }
}

/* Hands on interval `first`. */
static bool hand_on(struct etl_usage *u)
{
    struct etl_usage_ent none;
    struct ival *v = u->count ? &u->ring[u->head] : NULL;
    bool ok = u->fn(u->ctx, bound(u, u->first), bound(u, u->first + 1), v ? v->e : &none,
                    v ? v->n : 0);
    if (v) {
        v->n = 0;
        u->head = (u->head + 1) & (u->rcap - 1);
        u->count--;
    }
    u->first++;
    return ok;
}

bool etl_usage_advance(struct etl_usage *u, const struct etl_runs *r, int64_t now,
                       uint16_t cpu)
{
    if (u->first >= u->nint || now < bound(u, u->first + 1))
        return true;
    if (u->blocker >= 0 && cpu != u->blocker)
        return true;
    int32_t b;
    int64_t h = etl_runs_horizon(r, now, &b);
    while (u->first < u->nint && bound(u, u->first + 1) <= h)
        if (!hand_on(u))
            return false;
    u->blocker = u->first < u->nint && now >= bound(u, u->first + 1) ? b : -1;
    return true;
}

bool etl_usage_finish(struct etl_usage *u)
{
    while (u->first < u->nint)
        if (!hand_on(u))
            return false;
    return true;
}

bool etl_usage_pass(struct etl_file *f, struct etl_switch_reader *r, bool strict,
                    struct etl_runs *runs, struct etl_usage *u)
{
    const struct etl_clock *clk = etl_file_clock(f);
    struct etl_sched_item it;
    struct etl_who_cache who = { NULL };
    bool ok = true;
    /* --strict stops at the first problem, one found before any switch
     * (the index's) included. */
    while (ok && !(strict && etl_file_problems(f)) && etl_sched_next(r, &it)) {
        if (it.kind == ETL_SCHED_INTR) {
            ok = etl_runs_intr(runs, &it);
            continue;
        }
        if (it.kind != ETL_SCHED_SWITCH)
            continue;
        /* The --tid and --pid entries the trace has: who its threads are. */
        if (etl_filter_who(runs->flt)) {
            struct etl_who wo, wn;
            if (!(ok = etl_procmap_switch_who(runs->map, &who, &it.u.sw, &wo, &wn)))
                break;
            etl_filter_switch_seen(runs->flt, &it.u.sw, &wo, &wn);
        }
        ok = etl_runs_switch(runs, &it.u.sw, it.linked) &&
             etl_usage_advance(u, runs, etl_clock_ns(clk, it.ts), it.cpu);
    }
    etl_who_cache_fini(&who);
    /* Stopped by --strict: the intervals past where it stopped are not
     * given (they would read as idle). */
    return ok && ((strict && etl_file_problems(f)) || etl_usage_finish(u));
}

/* ---- the view ------------------------------------------------------------------- */

enum { U_START, U_END, U_PID, U_PROCESS, U_CPU_TIME, U_PERCENT, U_COUNT };

static const struct etl_column usage_cols[U_COUNT] = {
    [U_START] = { "interval_start", ETL_COL_DURATION, 14, false },
    [U_END] = { "interval_end", ETL_COL_DURATION, 14, false },
    [U_PID] = { "pid", ETL_COL_UINT, 7, false },
    [U_PROCESS] = { "process", ETL_COL_STR, -24, false },
    [U_CPU_TIME] = { "cpu_time", ETL_COL_DURATION, 13, false },
    [U_PERCENT] = { "percent", ETL_COL_PERCENT, 8, false },
};

const struct etl_table etl_table_usage = { "usage", usage_cols, U_COUNT, false, NULL };

struct usage_view {
    struct etl_printer *p;
    struct etl_runs *runs;
    struct etl_usage *u;
    int rc;
};

static bool view_run(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid, int64_t a,
                     int64_t b)
{
    (void)cpu;
    (void)tid;
    struct usage_view *v = ctx;
    return etl_usage_add(v->u, proc, a, b);
}

/* DPC and ISR time taken out of a run. */
static bool view_intr(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid, int64_t a,
                      int64_t b, int sign)
{
    (void)cpu;
    (void)tid;
    struct usage_view *v = ctx;
    return etl_usage_credit(v->u, proc, a, b, sign);
}

/* Orders a interval's processes: most CPU time first, then PID. */
static int cmp_ent(const void *a, const void *b, void *ctx)
{
    const struct etl_runs *r = ctx;
    const struct etl_usage_ent *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns > y->ns ? -1 : 1;
    const struct etl_run_proc *px = etl_runs_proc(r, x->proc), *py = etl_runs_proc(r, y->proc);
    if (px->pid != py->pid)
        return px->pid < py->pid ? -1 : 1;
    return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* Returns ns as hundredths of a percent of len, rounded. */
static int64_t percent(int64_t ns, int64_t len)
{
    if (len <= 0 || ns <= 0)
        return 0;
    uint64_t twice = etl_muldiv_u64((uint64_t)ns, 20000, (uint64_t)len);
    return twice == UINT64_MAX ? INT64_MAX : (int64_t)((twice + 1) / 2);
}

static bool view_interval(void *ctx, int64_t start, int64_t end, struct etl_usage_ent *e,
                          size_t n)
{
    struct usage_view *v = ctx;
    if (n > 1)
        etl_sort(e, n, sizeof *e, cmp_ent, v->runs);
    struct etl_value row[U_COUNT];
    memset(row, 0, sizeof row);
    row[U_START].v.i = start;
    row[U_START].set = true;
    row[U_END].v.i = end;
    row[U_END].set = true;
    row[U_CPU_TIME].set = row[U_PERCENT].set = true;
    bool any = false;
    for (size_t i = 0; i < n && v->rc == 0; i++) {
        const struct etl_run_proc *p = etl_runs_proc(v->runs, e[i].proc);
        if (!p->shown)
            continue;
        any = true;
        row[U_PID].v.u = p->pid;
        row[U_PID].set = p->pid_known;
        row[U_PROCESS].v.str = p->image;
        row[U_PROCESS].set = p->image != NULL;
        row[U_CPU_TIME].v.i = e[i].ns;
        row[U_PERCENT].v.i = percent(e[i].ns, end - start);
        v->rc = etl_print_row(v->p, row);
    }
    if (!any && v->rc == 0) {
        row[U_CPU_TIME].v.i = 0;
        row[U_PERCENT].v.i = 0;
        v->rc = etl_print_row(v->p, row);
    }
    return v->rc == 0;
}

void etl_usage_bounds(struct etl_file *f, const struct etl_filter *flt, int64_t want,
                      int64_t count, int64_t *start, int64_t *end, int64_t *interval)
{
    int64_t first, last;
    etl_trace_span(f, &first, &last);
    flt = flt && etl_filter_any(flt) ? flt : NULL;
    *start = flt && flt->has_start ? flt->start_ns : 0;
    *end = flt && flt->has_end && flt->end_ns < last ? flt->end_ns : last;
    if (*end < *start)
        *end = *start;
    uint64_t span = (uint64_t)*end - (uint64_t)*start;
    int64_t i = want > 0 ? want : etl_usage_nice_interval((int64_t)span, count);
    if (span / (uint64_t)i >= ETL_USAGE_MAX_INTERVALS) {
        int64_t wider = etl_usage_nice_interval((int64_t)span, ETL_USAGE_MAX_INTERVALS / 2);
        if (want > 0)
            etl_warn(f, "--usage: an interval of %lld ns makes more than %u intervals; "
                     "using %lld ns", (long long)want, (unsigned)ETL_USAGE_MAX_INTERVALS,
                     (long long)wider);
        i = wider;
    }
    *interval = i;
}

int etl_view_usage(struct etl_printer *p, struct etl_file *f, const struct etl_view_opts *o)
{
    struct usage_view v = { p, NULL, NULL, 0 };
    int64_t start, end, interval;
    etl_usage_bounds(f, o->filter, o->usage_interval_ns, 100, &start, &end, &interval);
    struct etl_switch_pass sp;
    bool ok = etl_switch_pass_open(f, o->max_wait_reason, &sp);
    etl_filter_notes(o->filter, sp.map, f);
    v.runs = ok ? etl_runs_new(sp.map, etl_file_clock(f), o->filter, view_run, &v) : NULL;
    if (v.runs)
        etl_runs_on_intr(v.runs, view_intr);
    v.u = v.runs ? etl_usage_new(start, end, interval, view_interval, &v) : NULL;
    ok = v.u != NULL;
    if (ok)
        v.rc = etl_print_begin_table(p, &etl_table_usage);
    if (ok && v.rc == 0)
        ok = etl_usage_pass(f, sp.reader, o->strict, v.runs, v.u);
    if (!ok && v.rc == 0)
        etl_file_nomem(f);
    else if (v.rc == 0)
        v.rc = etl_print_end_table(p);
    if (ok)
        etl_switch_reader_check_bias(sp.reader, o->max_wait_reason != 0);
    if (ok && v.rc == 0 && !(o->strict && etl_file_problems(f)))
        etl_view_switches_end(f, sp.reader, sp.streams, o->filter, ETL_SEEN_SWITCHES, NULL);
    etl_usage_free(v.u);
    etl_runs_free(v.runs);
    etl_switch_pass_close(&sp);
    return v.rc;
}

int etl_usage_interval_parse(const char *s, int64_t *ns, char *err, size_t cap)
{
    /* DIGITS[.DIGITS][s|ms|us], exactly in ns (digits past 1 ns dropped). */
    const char *c = s;
    uint64_t whole = 0, frac = 0, fscale = 1;
    bool digits = false;
    for (; *c >= '0' && *c <= '9'; c++, digits = true)
        if ((whole = whole * 10 + (uint64_t)(*c - '0')) > 1000000000u)
            goto bad;
    if (*c == '.')
        for (c++; *c >= '0' && *c <= '9'; c++, digits = true)
            if (fscale < 1000000000u) {
                frac = frac * 10 + (uint64_t)(*c - '0');
                fscale *= 10;
            }
    uint64_t unit;
    if (strcmp(c, "") == 0 || strcmp(c, "s") == 0)
        unit = 1000000000u;
    else if (strcmp(c, "ms") == 0)
        unit = 1000000u;
    else if (strcmp(c, "us") == 0)
        unit = 1000u;
    else
        goto bad;
    if (!digits || whole > 1000000u * (1000000000u / unit))
        goto bad;
    uint64_t v = whole * unit + frac * unit / fscale;
    if (v == 0) {
        snprintf(err, cap, "'%s' is shorter than 1 ns", s);
        return -1;
    }
    *ns = (int64_t)v;
    return 0;
bad:
    snprintf(err, cap, "takes an INTERVAL in seconds, e.g. 0.5, 20ms or 250us (at most "
             "1000000 s), not '%s'", s);
    return -1;
}
