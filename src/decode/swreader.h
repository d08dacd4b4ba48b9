/*
 * swreader.h - the scheduling events of a file: every CPU's context switches
 * (CSwitch events and expanded compact batches), and on request its
 * ReadyThread, DPC and ISR events, decoded through the dispatch table, put in
 * each CPU's time order, each compact switch linked to the next switch on its
 * CPU, and merged across CPUs by time (doc/format.md §8.3, §12, §16, §17).
 *
 * Per CPU the events are read in stream order and queued in time order: a
 * compact batch is logged after the switches it holds, so ReadyThread, DPC
 * and ISR events read before it may come after some of its switches. An
 * event leaves its CPU's queue once the CPU's next switch has been read (or
 * the stream ends, or a known gap intervenes), so every switch is handed out
 * with its next switch's time and every other event with the thread that was
 * running on its CPU then. Memory: per CPU, the events between two switches
 * (at most ETL_SCHED_QUEUE_MAX; past it the oldest leave early).
 *
 * Gaps. A known gap in a CPU's stream (a buffer flagged as having lost
 * events, an unreadable buffer, a damaged switch record) cuts the stream
 * into stretches: nothing is linked across it (a compact switch's new
 * thread, the time to the next switch, the thread running on the CPU).
 */
#ifndef ETLDUMP_SWREADER_H
#define ETLDUMP_SWREADER_H

#include <stdbool.h>
#include <stdint.h>

#include "decode/cswitch.h"
#include "decode/dpcisr.h"
#include "decode/readythread.h"
#include "etl/etl.h"

/* Most events one CPU's queue holds before the oldest leave early. */
#define ETL_SCHED_QUEUE_MAX 65536u

struct etl_switch_reader;

struct etl_switch_stats {
    uint64_t cswitch, compact, implausible_states;
    uint64_t ready, dpc, isr;          /* ReadyThread, DPC and ISR events handed out */
    uint64_t state_wr[64];             /* compact OldThreadStateWr values (§8.4) */
};

enum etl_sched_kind { ETL_SCHED_SWITCH, ETL_SCHED_READY, ETL_SCHED_INTR };

/* One scheduling event as handed out. */
struct etl_sched_item {
    int64_t ts;                /* the switch's time, the ReadyThread's, a DPC/ISR's exit */
    int64_t next_ts;           /* SWITCH with has_next: the CPU's next switch */
    uint32_t stretch;          /* which stretch of its CPU's stream (see above) */
    uint32_t on_tid;           /* READY, INTR with on_known: the thread running then */
    uint16_t cpu;
    uint8_t kind;              /* enum etl_sched_kind */
    bool gap;                  /* the first of its CPU (in time order) after a gap */
    bool linked;               /* SWITCH: the CPU's previous switch is in the same stretch */
    bool has_next;             /* SWITCH: the CPU's next switch is known, same stretch,
                                  not earlier */
    bool on_known;
    union {
        struct etl_switch sw;
        struct etl_ready ready;
        struct etl_intr intr;
    } u;
};

/* Creates a reader of the switches only, over the streams of f, with the
 * given bias (0: from the build). NULL when out of memory (f is marked). */
struct etl_switch_reader *etl_switch_reader_new(struct etl_file *f,
                                                struct etl_streams *s,
                                                unsigned max_wait_reason);

/* The same for switches, ReadyThread, DPC and ISR events. */
struct etl_switch_reader *etl_sched_reader_new(struct etl_file *f, struct etl_streams *s,
                                               unsigned max_wait_reason);

/* Returns the next event in global time order, or false at the end. */
bool etl_sched_next(struct etl_switch_reader *r, struct etl_sched_item *out);

/* Returns the next switch in global time order, or false at the end. */
bool etl_switch_next(struct etl_switch_reader *r, struct etl_switch *out);

/* Returns what the reader has counted so far. */
const struct etl_switch_stats *etl_switch_reader_stats(const struct etl_switch_reader *r);

/* Returns the bias in use. */
unsigned etl_switch_reader_bias(const struct etl_switch_reader *r);

/* After the last event: reports compact states that the bias in use cannot
 * give (a problem), or that another documented bias explains much better (a
 * warning); both name --max-wait-reason. given: the bias came from the user. */
void etl_switch_reader_check_bias(const struct etl_switch_reader *r, bool given);

/* Frees the reader (NULL is allowed). */
void etl_switch_reader_free(struct etl_switch_reader *r);

#endif
