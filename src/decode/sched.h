/*
 * sched.h - why a thread was not running: what the switches and ReadyThread
 * events before a switch say about its new thread, as WPA's CPU Usage
 * (Precise) table shows it (etldump(1), COLUMNS, new_since_last ...).
 *
 * Fed the scheduling events in time order (swreader.h), it keeps per thread
 * (a thread lifetime, procmap.h, or a TID when the trace does not describe
 * the thread) its last switch-out and the last ReadyThread for it since
 * then, and gives for each switch:
 *
 *   since    the new thread's previous switch-out;
 *   ready    when its ready time began: the last ReadyThread since a
 *            switch-out in Waiting; the switch-out itself when the thread
 *            left in another state (preempted); the last ReadyThread before
 *            its first switch-in seen; nothing for a wait no ReadyThread
 *            ended;
 *   waited   for a wait that a ReadyThread ended: from the switch-out to it;
 *            preempted: an empty span at the switch-out;
 *   readied  that ReadyThread: time, processor, flag, and the thread then
 *            running on that processor when known.
 *
 * Nothing is known of the idle thread (TID 0). A known gap in any CPU's
 * stream (swreader.h) ends what is known of every thread: lost events may
 * hide any thread's switches and ReadyThreads, so a switch after the gap
 * looks back no further than it. Nor does one across a clock that went
 * back: a switch-out or ReadyThread later than the switch-in is ignored, so
 * no span is negative.
 *
 * Only threads off a CPU with something to tell are kept: an entry is used
 * up by the thread's switch-in, and a switch-out in state Terminated drops
 * it. Memory is bounded: past 2^18 such threads at once (a trace of endless
 * new threads that never say they ended), the older half by when they were
 * last heard of is forgotten, and their next switch-ins are told nothing
 * (etl_sched_forgotten counts them).
 */
#ifndef ETLDUMP_SCHED_H
#define ETLDUMP_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "decode/procmap.h"
#include "decode/swreader.h"

/* Which fields of an etl_sched_facts are known. */
enum {
    ETL_SF_SINCE = 1u << 0,    /* since */
    ETL_SF_READY = 1u << 1,    /* ready_from */
    ETL_SF_WAITED = 1u << 2,   /* wait_from, wait_to */
    ETL_SF_READIED = 1u << 3,  /* readied_at, readying_cpu, ready_flag */
    ETL_SF_READIER = 1u << 4,  /* readying_tid */
    ETL_SF_WAIT = 1u << 5,     /* the previous switch-out was in state Waiting */
    ETL_SF_REASON = 1u << 6,   /* ... with wait reason out_wait_reason */
    ETL_SF_RUNNABLE = 1u << 7, /* ... in Ready, Running, Standby or DeferredReady */
};

/* What is known about the new thread of one switch (raw clock values). */
struct etl_sched_facts {
    uint32_t has;              /* ETL_SF_* */
    int64_t since, ready_from, wait_from, wait_to, readied_at;
    uint32_t readying_tid;
    uint16_t readying_cpu;
    uint8_t ready_flag;        /* the ReadyThread's Flag (ETL_READY_*) */
    uint8_t out_wait_reason;
};

struct etl_sched;

/* Creates the state; map may be NULL. NULL when out of memory. */
struct etl_sched *etl_sched_new(const struct etl_procmap *map);

/* Frees it (NULL is allowed). */
void etl_sched_free(struct etl_sched *s);

/* Takes one event. For a switch, fills *f (may be NULL otherwise) for its
 * new thread; wo and wn are its old and new thread at its time
 * (etl_procmap_who), or NULL to look them up. False when out of memory. */
bool etl_sched_take(struct etl_sched *s, const struct etl_sched_item *it,
                    const struct etl_who *wo, const struct etl_who *wn,
                    struct etl_sched_facts *f);

/* Threads whose history a sweep dropped so far (see the top). */
uint64_t etl_sched_forgotten(const struct etl_sched *s);

struct etl_file;

/* Warns about f when threads were forgotten. */
void etl_sched_warn(const struct etl_sched *s, const struct etl_file *f);

#endif
