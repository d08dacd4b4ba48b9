/*
 * usage.h - who ran where and when, as runs and as CPU usage over time.
 *
 * Runs. A run is a thread's time on a CPU from a switch-in to the next
 * switch on that CPU, counted as the scheduling summary counts it
 * (summary.c): when both switches are seen and the second switches out the
 * thread the first switched in; after a switch whose new thread is unknown
 * the CPU's next run is not counted. Each run belongs to the thread's
 * process at its switch-in (procmap.h): a process lifetime, else a PID, else
 * "unknown". Filters: --cpu and --tid choose which runs count, --range clips
 * them, --pid and --process mark which processes are shown.
 *
 * Usage. The runs are added up per interval of a fixed length and per
 * process, like xperf's "-a cswitch -util": intervals start at the trace's
 * start (or --range's) and cover the trace without gaps; a run spanning
 * intervals is split at their bounds. An interval is handed on as soon as
 * no run still open on any CPU can reach into it, so memory holds the
 * intervals that open runs span, not the whole trace.
 */
#ifndef ETLDUMP_USAGE_H
#define ETLDUMP_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/cswitch.h"
#include "decode/procmap.h"
#include "decode/swreader.h"
#include "view/filter.h"

/* What a pass over the switches reads: the process map (a pre-pass), the
 * per-CPU streams and the switch reader. */
struct etl_switch_pass {
    struct etl_procmap *map;
    struct etl_streams *streams;
    struct etl_switch_reader *reader;
};

/* Opens a pass over f's switches; false when out of memory (f is marked,
 * and nothing is left open). */
bool etl_switch_pass_open(struct etl_file *f, unsigned max_wait_reason,
                          struct etl_switch_pass *s);
/* Closes a pass (opened or not, after memset to 0). */
void etl_switch_pass_close(struct etl_switch_pass *s);

/* The part of [a, b] inside [s, e] (ns), or 0 or less when they do not
 * overlap. */
static inline int64_t etl_overlap(int64_t a, int64_t b, int64_t s, int64_t e)
{
    return (b < e ? b : e) - (a > s ? a : s);
}

/* A process as runs count it. */
struct etl_run_proc {
    uint64_t key;             /* 0: threads whose process is unknown */
    const char *image;        /* NULL when unknown ("Idle" for PID 0) */
    int64_t cpu_time;         /* its runs counted, ns */
    uint32_t pid;
    bool pid_known;
    bool shown;               /* passes --pid and --process */
};

/* Receives one counted run: thread tid of process proc (an index, see
 * etl_runs_proc) on cpu over [start, end], ns since the trace started,
 * clipped to --range. Returns false to stop (memory ran out). */
typedef bool (*etl_run_fn)(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid,
                           int64_t start, int64_t end);

/* Receives time taken out of a counted run (sign -1): a DPC or ISR that
 * interrupted thread tid of process proc on cpu over [start, end] (nested
 * ones inside the outermost), so that a run counts its thread's time without
 * DPCs and ISRs, as the summary does (doc/format.md §17.3). */
typedef bool (*etl_intr_fn)(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid,
                            int64_t start, int64_t end, int sign);

struct etl_runs;

/* Creates a run tracker; NULL when out of memory. flt may be NULL. */
struct etl_runs *etl_runs_new(const struct etl_procmap *map, const struct etl_clock *clk,
                              const struct etl_filter *flt, etl_run_fn fn, void *ctx);
/* Feeds the next switch in time order; false when memory ran out or fn
 * said stop. */
/* Adds one switch; linked: the CPU's previous switch is in the same
 * stretch of its stream (no gap between: a run is counted only then).
 * Returns false when the receiver stopped or memory ran out. */
bool etl_runs_switch(struct etl_runs *r, const struct etl_switch *sw, bool linked);

/* Sets who receives the DPC and ISR time taken out of runs (NULL: nobody;
 * process CPU times exclude it all the same). */
void etl_runs_on_intr(struct etl_runs *r, etl_intr_fn fn);

/* Adds one DPC or ISR event (it carries the thread running then); false
 * when out of memory. */
bool etl_runs_intr(struct etl_runs *r, const struct etl_sched_item *it);
/* Returns the earliest start (ns) of a run still open on a CPU whose runs
 * count, or `now` when none is earlier, and in *cpu that CPU (-1 if none). */
int64_t etl_runs_horizon(const struct etl_runs *r, int64_t now, int32_t *cpu);
/* The processes met so far. */
size_t etl_runs_nprocs(const struct etl_runs *r);
const struct etl_run_proc *etl_runs_proc(const struct etl_runs *r, uint32_t i);
void etl_runs_free(struct etl_runs *r);

/* Finds the first and last event times of f (ns since the trace started)
 * with a pass over its buffers (problems are left to the view's pass).
 * Returns false when the file has no timed event. */
bool etl_trace_span(struct etl_file *f, int64_t *first, int64_t *last);

/* The interval length that gives about `count` intervals over span ns: 1, 2
 * or 5 times a power of ten, at least 1 us. */
int64_t etl_usage_nice_interval(int64_t span, int64_t count);

/* Chooses the intervals of a pass over f: from --range's start (else the
 * trace's start) to --range's end or the trace's last event, whichever is
 * first; of `want` ns, else about `count` of them (etl_usage_nice_interval),
 * widened to at most ETL_USAGE_MAX_INTERVALS / 2 with a warning. */
void etl_usage_bounds(struct etl_file *f, const struct etl_filter *flt, int64_t want,
                      int64_t count, int64_t *start, int64_t *end, int64_t *interval);

/* A process's CPU time in an interval. */
struct etl_usage_ent {
    uint32_t proc;            /* index into the run tracker's processes */
    int64_t ns;
};

/* Receives one finished interval [start, end) and the n processes that ran
 * in it (n may be 0; the receiver may reorder them). Returns false to
 * stop. */
typedef bool (*etl_usage_fn)(void *ctx, int64_t start, int64_t end,
                             struct etl_usage_ent *e, size_t n);

struct etl_usage;

/* The most intervals an accumulator makes. */
#define ETL_USAGE_MAX_INTERVALS 1000000

/* Creates an accumulator of the intervals of `interval` ns that cover
 * [start, end] (the last one cut at end); NULL when out of memory. */
struct etl_usage *etl_usage_new(int64_t start, int64_t end, int64_t interval,
                                etl_usage_fn fn, void *ctx);
/* Adds a run of process proc over [a, b] (clipped to [start, end]); false
 * when out of memory. */
bool etl_usage_add(struct etl_usage *u, uint32_t proc, int64_t a, int64_t b);

/* Adds (sign +1) or takes away (sign -1) the time of [a, b] from process
 * proc, as etl_usage_add; false when out of memory. */
bool etl_usage_credit(struct etl_usage *u, uint32_t proc, int64_t a, int64_t b, int sign);
/* After the run tracker r has taken a switch on cpu at now (ns), hands on
 * every interval that no run still open can reach; false when fn said
 * stop. */
bool etl_usage_advance(struct etl_usage *u, const struct etl_runs *r, int64_t now,
                       uint16_t cpu);
/* Hands on every remaining interval; false when fn said stop. */
bool etl_usage_finish(struct etl_usage *u);
/* Feeds every switch of r to the run tracker, whose runs go to u, and
 * finishes u; with strict, stops at f's first problem. False when memory
 * ran out or a receiver said stop. */
bool etl_usage_pass(struct etl_file *f, struct etl_switch_reader *r, bool strict,
                    struct etl_runs *runs, struct etl_usage *u);
void etl_usage_free(struct etl_usage *u);

#endif
