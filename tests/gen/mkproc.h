/*
 * mkproc: the processes and threads of mktrace's schedule (mktrace
 * --processes), written as Process and Thread events through etlw_pt, and
 * the truth a reader must find: the process of every switch's old and new
 * thread, and the scheduling summary.
 *
 * The model. Processes: Idle (PID 0, one TID-0 thread per CPU), System
 * (PID 4, with threads that never run), a session controller (wpr.exe),
 * and user processes; mktrace's pool of thread slots is spread over System
 * and the user processes. When mktrace terminates a thread (a switch-out in
 * state Terminated), its slot gets a new thread: Thread End of the old one
 * (and Process End when it was its process's last thread), then sometimes a
 * Process Start, then the new thread's Thread Start, sometimes a SetName -
 * all on that CPU at the switch's time, before the switch. A new thread
 * takes a fresh TID, or (often) reuses the TID of a thread that ended
 * earlier in another process (each TID is reused at most once, never back
 * into a process that had it, so (PID, TID) names one thread). Rundowns:
 * DCStart of every process and thread at the start, spread over the first
 * ticks on the last CPU while the other CPUs already switch; DCEnd of every
 * live thread and process after the last switch, then Defunct records for
 * some ended processes (--rundown picks both, start or end).
 *
 * The truth. Expected switch rows get old_pid, old_process, new_pid and
 * new_process (new ones only when new_tid is known). The summary follows
 * etldump(1)'s definitions, computed here from the expected rows (which say
 * exactly what a reader can know): a run is from a switch-in to the next
 * switch on that CPU when it switches out the same thread and both records
 * are in the same buffer segment (no known gap between); waits from a
 * switch-out in Waiting to the next switch-in; ready time from a switch-out
 * in Ready, Running, Standby or DeferredReady; migrations between
 * switch-ins on different CPUs; busy and idle time per CPU; --summary-range
 * clips spans and selects switches by time; --summary-cpus keeps runs and
 * switches of those CPUs (waits by the CPU of their switch-out). The
 * settled summary (below) changes the waits and migrations and adds columns.
 * Memory grows with threads and processes (only with --processes), and in
 * the settled summary with the switch-ins (the ready-time percentiles).
 */
#ifndef MKPROC_H
#define MKPROC_H

#include "etlw.h"

#include <stdio.h>

/* Columns appended to ETLW_CSV_HEADER with --processes. */
#define MKPROC_CSV_COLUMNS ",old_pid,old_process,new_pid,new_process"

enum mkproc_rundown { MKPROC_RUNDOWN_BOTH, MKPROC_RUNDOWN_START, MKPROC_RUNDOWN_END };

struct mkproc_opts {
    bool enabled;               /* --processes */
    enum mkproc_rundown rundown;
    const char *summary_path;   /* --summary=FILE */
    bool has_lo, has_hi;        /* --summary-range=START:END (seconds) */
    int64_t lo_ns, hi_ns;
    bool cpu_set;               /* --summary-cpus=LIST */
    bool cpus[1024];
};

/* Parses one mkproc option (name without "--"); 0, or -1 when bad. */
int mkproc_option(struct mkproc_opts *o, const char *name, const char *arg);

struct mkproc;

/* Creates the model for nslots pool slots; seed makes it reproducible. */
struct mkproc *mkproc_new(struct etlw *w, const struct mkproc_opts *o, uint64_t seed,
                          unsigned nslots, unsigned ncpus, int64_t t0, int64_t freq);

/* The pool slot i starts with thread tid (call for every slot, then start). */
void mkproc_slot(struct mkproc *m, unsigned i, uint32_t tid);

/* Writes the start rundown; *end receives the time of its last record
 * (the last CPU's first switch must come later). 0, or -1. */
int mkproc_start(struct mkproc *m, int64_t *end);

/* The tag of the thread in slot i (-1: the idle thread). */
uint32_t mkproc_user(const struct mkproc *m, int slot);

/* The thread of slot i terminates at ts on cpu and a new one takes its
 * slot; *tid holds the fresh TID mktrace chose and receives the one used.
 * 0, or -1. */
int mkproc_replace(struct mkproc *m, int slot, unsigned cpu, int64_t ts, uint32_t *tid);

/* Writes the end rundown at ts (after every other event) on cpu 0. */
int mkproc_finish(struct mkproc *m, int64_t ts);

/* Appends the process columns of an expected row to buf; returns the bytes
 * written. Also adds the row to the summary. */
size_t mkproc_row(struct mkproc *m, const struct etlw_expect *row, char *buf, size_t cap);

/* ---- the settled summary (mktrace --ready, --dpc, --settled) ----
 * A wait counts (waits, wait_time, wait_reasons) at the switch-in that ends
 * it, chosen by that switch-in's time and processor; a migration compares a
 * switch-in's processor with the one the thread was last seen on, switch-outs
 * included. With ReadyThread events in the trace, ready_time sums new_ready
 * and wait_time new_waited over the switch-ins where they are known (a wait
 * without ReadyThread counts nowhere), spans clipped to --summary-range.
 * DPC/ISR time (exclusive: a nested ISR is taken out of its DPC) counts for
 * its processor, and for the process of the interrupted thread when a reader
 * knows it (the new thread of the processor's latest switch, when that
 * switch's new_tid is known and no known gap lies between them: the event
 * is in the switch's buffer segment); it is taken out of the run it falls in
 * (cpu_time, mean_run, max_run, busy_time, idle_time). Columns appended:
 * MKPROC_SUMMARY_EXTRA: ready_p50/p90/p99/max (nearest rank over the
 * unclipped new_ready values of the counted switch-ins; threads and
 * processes), top_readiers (threads: the images of the readying threads
 * of its counted switch-ins, "name:count" x3, most first, ties by name),
 * dpc_time and isr_time (processes and processors; empty when the trace has
 * no DPC/ISR event), idle_by_cstate (processors: "C<n>:secs" ascending, the
 * idle runs ended by a switch that carries prev_cstate). Without ReadyThread
 * events, a wait spans switch-out..switch-in, and ready time the spans after
 * a switch-out in Ready, Running, Standby or DeferredReady. */
#define MKPROC_SUMMARY_EXTRA                                                                       \
    ",ready_p50,ready_p90,ready_p99,ready_max,top_readiers,dpc_time,isr_time,idle_by_cstate"

/* Exclusive DPC or ISR time on a processor, raw timestamps, and the buffer
 * segment (etlw_cpu_seg) of its event. */
struct mkproc_piece {
    int64_t s, e;
    bool isr;
    uint32_t seg;
};

/* What the schedule knows about a switch's new thread and the interval the
 * switch closes (raw timestamps). */
struct mkproc_ext {
    bool has_ready;                /* new_ready known: it began at ready_from */
    int64_t ready_from;
    bool has_waited;               /* switched out Waiting, readied: wait_from..wait_to */
    int64_t wait_from, wait_to;
    bool readier;                  /* the readying thread, as a reader knows it */
    uint32_t readier_user;
    bool out_lost;                 /* a known gap hides the new thread's switch-out */
    const struct mkproc_piece *pc; /* DPC/ISR time since the processor's previous switch */
    uint32_t npc;
};

/* Turns the settled summary on (before the first row). */
void mkproc_settle(struct mkproc *m);

/* mkproc_row with the schedule's knowledge (x may be NULL). */
size_t mkproc_row_ext(struct mkproc *m, const struct etlw_expect *row, const struct mkproc_ext *x,
                      char *buf, size_t cap);

/* DPC/ISR time after the processor's last switch (after the last row). */
void mkproc_tail(struct mkproc *m, unsigned cpu, const struct mkproc_piece *pc, uint32_t n);

/* Whether the trace holds ReadyThread events, DPC/ISR events. */
void mkproc_presence(struct mkproc *m, bool ready, bool intr);

/* PID and image of the thread with tag user. */
void mkproc_who(const struct mkproc *m, uint32_t user, uint32_t *pid, const char **image);

/* Writes the expected summary CSV (when asked for); 0, or -1. */
int mkproc_write_summary(struct mkproc *m);

void mkproc_free(struct mkproc *m);

#endif /* MKPROC_H */
