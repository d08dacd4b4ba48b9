/*
 * mkready: ReadyThread, DPC and ISR events for mktrace's schedule (--ready,
 * --dpc, --settled), and the truth of the analysis columns of every switch,
 * taken from the schedule itself (each thread's own timeline: its switch-outs
 * and the ReadyThread events made for it), not from the file.
 *
 * Events (all with a PERFINFO header of the session's pointer size, version
 * 2, on the CPU where they happened):
 *   ReadyThread 0x0532: TThreadId u32, AdjustReason s8, AdjustIncrement s8,
 *     Flag s8 (0x1 readied from a DPC, 0x2 kernel stack not resident, 0x4
 *     process swapped out), Reserved s8 (0). Timestamp = when the thread was
 *     made ready; the readying thread is the one running on that CPU then.
 *   ThreadedDPC 0x0F42, DPC 0x0F44, TimerDPC 0x0F45 (Microsoft's MOF class
 *     DPC): InitialTime u64 (entry, same clock), Routine (pointer).
 *   ISR 0x0F43 (MOF class ISR): InitialTime u64, Routine (pointer),
 *     ReturnValue u8, Vector u8, Reserved u16 (0).
 *   ISR-MSI 0x0F32: as ISR, then MessageNumber u32.
 *   DPC and ISR events are written when the routine returns: the timestamp
 *   is the exit, InitialTime the entry. An ISR may nest in a DPC.
 *
 * Placement. Each CPU's events between two of its switches are held until
 * the second switch and written then, in time order, before it (so on a CPU
 * with compact batches they precede the batch that holds the switches around
 * them). Every ReadyThread and DPC/ISR lies strictly between the CPU's two
 * switches (never at a switch's timestamp), DPCs and ISRs never overlap
 * except an ISR strictly inside a DPC, a ReadyThread with Flag 0x1 lies
 * inside a DPC (with --dpc) and outside its ISRs, one without it outside
 * every DPC and ISR. ReadyThreads before a CPU's first switch never have
 * Flag 0x1, and no DPC or ISR comes before a CPU's first switch; after a
 * CPU's last switch only the DPCs around flagged ReadyThreads.
 *
 * Columns appended to the expected switch rows (MKR_CSV_COLUMNS, with the
 * readying_pid and readying_process pair only with --processes):
 *   new_since_last, new_ready, new_waited, readied_at (raw timestamp, like
 *   the timestamp column), readying_cpu, readying_tid, readying_pid,
 *   readying_process, readied_by_dpc, new_run; durations in seconds with nine
 *   decimals. The new-thread columns are empty when the row's new_tid is
 *   empty or 0; readying_tid/pid/process are empty when a reader cannot know
 *   the thread running on the readying CPU then (the new thread of that
 *   CPU's latest switch is unknown: a compact batch's last switch, a lost
 *   buffer); new_run is empty for a CPU's last switch.
 *
 * Memory: the pending events of each CPU's current interval, the rows not
 * yet written (until the CPU's next switch is known), one bit per switch.
 */
#ifndef MKREADY_H
#define MKREADY_H

#include "etlw.h"
#include "mkproc.h"

#include <stdio.h>

#define MKR_CSV_COLUMNS                                                                            \
    ",new_since_last,new_ready,new_waited,readied_at,readying_cpu,readying_tid,readied_by_dpc,"    \
    "new_run"
#define MKR_CSV_COLUMNS_PROC                                                                       \
    ",new_since_last,new_ready,new_waited,readied_at,readying_cpu,readying_tid,readying_pid,"      \
    "readying_process,readied_by_dpc,new_run"

/* ReadyThread Flag bits. */
enum { MKR_FLAG_DPC = 0x1, MKR_FLAG_STACK = 0x2, MKR_FLAG_SWAPPED = 0x4 };

struct mkr_opts {
    bool ready;   /* --ready */
    bool dpc;     /* --dpc */
};

struct mkr;

/* rows: etlw delivers expected rows (to mkr_row); csv: where they go (NULL:
 * nowhere); pm: the process model or NULL. */
struct mkr *mkr_new(struct etlw *w, struct mkproc *pm, bool rows, FILE *csv, const struct mkr_opts *o,
                    uint64_t seed, unsigned ncpus, unsigned nslots);

/* An event was written on cpu at ts outside mkr (a rundown): nothing of mkr
 * goes on that CPU before it. */
void mkr_floor(struct mkr *m, unsigned cpu, int64_t ts);

/* The thread running on cpu when the trace starts (slot -1: idle), and the
 * time of the CPU's first switch. */
void mkr_start_cpu(struct mkr *m, unsigned cpu, int slot, uint32_t tid, uint32_t user,
                   int64_t first_ts);

/* The time of cpu's next switch (after each switch, and when it moves). */
void mkr_next(struct mkr *m, unsigned cpu, int64_t next_ts);

/* Whether a ReadyThread at ts may go on cpu (inside a DPC when dpc). */
bool mkr_can_ready(const struct mkr *m, unsigned cpu, int64_t ts, bool dpc);

/* The thread of slot (TID tid) is made ready on cpu at ts. 0, or -1. */
int mkr_ready(struct mkr *m, unsigned cpu, int64_t ts, int slot, uint32_t tid, uint8_t flag);

/* A switch is about to be written (before any other event at its time on
 * its CPU): writes the CPU's pending events, records the truth of the
 * switch. old_slot/new_slot: -1 for the idle thread. 0, or -1. */
int mkr_switch(struct mkr *m, const struct etlw_switch *sw, int old_slot, int new_slot);

/* The slot holds a new thread (the old one ended). */
void mkr_new_thread(struct mkr *m, int slot);

/* An expected row from etlw (in CSV order). */
void mkr_row(struct mkr *m, const struct etlw_expect *row);

/* Writes every CPU's pending events (call after the last switch, before the
 * end rundown). 0, or -1. */
int mkr_finish(struct mkr *m);

/* After etlw_close: writes the remaining rows, gives the summary the last
 * figures. 0, or -1 (a row did not match the schedule). */
int mkr_close(struct mkr *m);

/* Events written: ReadyThread, DPC and ISR. */
void mkr_counts(const struct mkr *m, uint64_t *ready, uint64_t *dpc, uint64_t *isr);

const char *mkr_error(const struct mkr *m);

void mkr_free(struct mkr *m);

#endif /* MKREADY_H */
