/*
 * procmap.h - a time-aware map from thread to process, and from process ID
 * to image name, built from a file's Process and Thread events.
 *
 * Design (why a pre-pass). Switches and Process/Thread events come from the
 * same per-CPU streams, but the switch reader (cswitch.c, fill()) reads each
 * CPU ahead of the merged output, and rundown records do not follow time in
 * a way a single pass could use: DCStart records describe threads that were
 * alive *before* the trace started, yet they are logged over the first
 * milliseconds on one CPU while other CPUs already switch those threads; a
 * file may even carry only the DCEnd rundown at its very end
 * (etwa-tracelogging), so a map fed in time order would be empty for the
 * whole trace. So the map is built first, by one extra pass over the
 * buffers in file order that decodes only the Process and Thread records
 * (group 0x03 and 0x05 HookIds) and keeps a small record of each; the
 * records are sorted by ID and time and folded into lifetimes:
 *
 *   thread lifetime  = (TID, start, PID, name): Start opens one at its time;
 *                      DCStart, End, DCEnd or SetName of a TID with no open
 *                      lifetime of that PID open one too, from "before the
 *                      trace" when they are the TID's first record;
 *   process lifetime = (PID, UniqueProcessKey, start, image, command line,
 *                      parent), the same way; Defunct only adds to a known
 *                      key.
 *
 * A TID (or PID) seen at time t belongs to its lifetime with the latest
 * start at or before t: TIDs are reused, and a thread's last switch-out
 * comes just after its End event, so an ended lifetime stays in force until
 * the TID starts again. After the pre-pass the map is fixed: any view can
 * ask about any time in any order.
 *
 * Memory. A record takes 24 bytes (thread) or 48 (process); the lifetimes
 * are folded into the same arrays in place (sorted by ID, then start), and
 * an index by ID (8 bytes a slot, at most four slots a lifetime) finds an ID's
 * first lifetime, the one in force when the ID has one (most have); the
 * lifetimes of a reused ID are searched in the array. A row asks two or
 * three such questions, and a search of the whole array each time took
 * most of a row's time on a trace of thousands of threads. Names are
 * stored once each. The map keeps at most ETL_PM_MAX_THREAD_RECORDS
 * thread records and ETL_PM_MAX_PROCESS_RECORDS process records (the first
 * ones in file order) and ETL_PM_MAX_NAME_BYTES of names, command lines
 * only while they take less than ETL_PM_MAX_CMDLINE_BYTES: with the table
 * that finds names while the map is built (8 MiB at most) or the indexes
 * made after it is freed (12 MiB at most), 44 MiB at most, whatever the
 * file holds. A record past a limit (or whose name would pass it) is left
 * out and counted: a thread known only from records left out is unknown, a
 * process likewise has no image. The pre-pass warns once.
 */
#ifndef ETLDUMP_PROCMAP_H
#define ETLDUMP_PROCMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/cswitch.h"
#include "decode/process.h"
#include "etl/etl.h"

#define ETL_PM_NONE UINT32_MAX
/* What the map keeps at most (see above). */
#define ETL_PM_MAX_THREAD_RECORDS (1u << 19)
#define ETL_PM_MAX_PROCESS_RECORDS (1u << 18)
#define ETL_PM_MAX_NAME_BYTES (8u << 20)
#define ETL_PM_MAX_CMDLINE_BYTES (4u << 20)
/* The start of a lifetime that began before the trace. */
#define ETL_PM_BEFORE INT64_MIN

/* One thread lifetime. */
struct etl_pm_thread {
    int64_t start;            /* ETL_PM_BEFORE: alive when the trace started */
    uint32_t tid, pid;
    uint32_t proc;            /* its process lifetime, or ETL_PM_NONE */
    uint32_t name;            /* string, or ETL_PM_NONE */
};

/* One process lifetime. */
struct etl_pm_process {
    int64_t start;            /* ETL_PM_BEFORE: alive when the trace started */
    int64_t end;              /* when ended */
    uint64_t key;             /* UniqueProcessKey */
    uint32_t pid, parent_id;
    uint32_t image;           /* string, or ETL_PM_NONE */
    uint32_t cmdline;         /* string, or ETL_PM_NONE */
    uint32_t image_len;       /* the image's length (once the map is finished) */
    bool ended;
};

struct etl_procmap;

/* What is known about a thread at a time. */
struct etl_who {
    uint32_t pid;
    uint32_t image_len;       /* its length */
    const char *image;        /* NULL when unknown */
    uint32_t thread;          /* thread lifetime, or ETL_PM_NONE */
    uint32_t proc;            /* process lifetime, or ETL_PM_NONE */
    bool known;               /* pid is known */
};

/* Creates an empty map; NULL when out of memory. */
struct etl_procmap *etl_procmap_new(void);

/* Adds one decoded record at time ts; false when out of memory. Records may
 * come in any order. A record past the map's limits is left out (see
 * etl_procmap_left_out); that is not a failure. */
bool etl_procmap_add_process(struct etl_procmap *m, int64_t ts,
                             const struct etl_process_rec *r);
bool etl_procmap_add_thread(struct etl_procmap *m, int64_t ts,
                            const struct etl_thread_rec *r);

/* Folds the records into lifetimes; false when out of memory. No record may
 * be added afterwards. */
bool etl_procmap_finish(struct etl_procmap *m);

/* Records left out at the map's limits, and command lines not kept. */
uint64_t etl_procmap_left_out(const struct etl_procmap *m, uint64_t *cmdlines);

/* The pre-pass: reads every buffer of f and builds its map. Problems with
 * buffers are left to the view's own pass (they are not reported twice);
 * damaged Process/Thread records are reported when `report` is set. Records
 * left out at the map's limits get one warning, naming where the first one
 * is. NULL when out of memory (reported). */
struct etl_procmap *etl_procmap_build(struct etl_file *f, bool report);

/* Frees the map (NULL is allowed). */
void etl_procmap_free(struct etl_procmap *m);

/* Returns the thread lifetime of tid at ts, or ETL_PM_NONE. */
uint32_t etl_procmap_thread_at(const struct etl_procmap *m, uint32_t tid, int64_t ts);

/* Returns the process lifetime of pid at ts, or ETL_PM_NONE. */
uint32_t etl_procmap_process_at(const struct etl_procmap *m, uint32_t pid, int64_t ts);

/* Fills *w for tid at ts; the idle thread (TID 0) is always PID 0, "Idle".
 * Returns w->known. m may be NULL (nothing but the idle thread is known). */
bool etl_procmap_who(const struct etl_procmap *m, uint32_t tid, int64_t ts,
                     struct etl_who *w);

/* etl_procmap_who, and the times [*from, *until) around ts through which
 * *w is the same for tid: a caller may keep it for them. */
bool etl_procmap_who_span(const struct etl_procmap *m, uint32_t tid, int64_t ts,
                          struct etl_who *w, int64_t *from, int64_t *until);

/* For a pass over the switches in time order: recent answers of the map
 * for a TID, who it is and the times through which the map says the same
 * of it, in a table of ETL_WHO_TIDS by a hash of the TID. A switch's old
 * thread is mostly its CPU's previous new thread, and its new thread one
 * that ran not long before: their who is mostly taken from here. Zeroed to
 * start. */
#define ETL_WHO_TIDS 256u
struct etl_who_tid {
    struct etl_who who;
    int64_t from, until;
    uint32_t tid;
    bool valid;
};
struct etl_who_cache {
    struct etl_who_tid *tids; /* ETL_WHO_TIDS of them, or NULL until the first */
};

/* Frees what the cache holds (it may be used again, empty). */
void etl_who_cache_fini(struct etl_who_cache *c);

/* Sets up the cache's table; false when out of memory. */
bool etl_who_cache_init(struct etl_who_cache *c);

/* Fills *w with who tid is at ts, from the cache c (set up) or the map. */
static inline void etl_procmap_who_cached(const struct etl_procmap *m, struct etl_who_cache *c,
                                          uint32_t tid, int64_t ts, struct etl_who *w)
{
    struct etl_who_tid *e = &c->tids[(tid * 0x9E3779B1u) >> 24];
    _Static_assert(ETL_WHO_TIDS == 1u << 8, "the slot: the top 8 bits of the hash");
    if (!(e->valid && e->tid == tid && ts >= e->from && ts < e->until)) {
        etl_procmap_who_span(m, tid, ts, &e->who, &e->from, &e->until);
        e->tid = tid;
        e->valid = true;
    }
    /* Member by member: a copy of the whole, in wider moves, would read
     * back what the call has just stored in narrower ones, and wait for
     * the stores to land. */
    w->pid = e->who.pid;
    w->image_len = e->who.image_len;
    w->image = e->who.image;
    w->thread = e->who.thread;
    w->proc = e->who.proc;
    w->known = e->who.known;
}

/* Fills *wo and *wn with who the old and new threads of sw are at its time
 * (etl_procmap_who), through the cache c; a side sw does not carry is not
 * known and has no image. False when out of memory. Inline: it is the
 * inner loop of the switch views. */
static inline bool etl_procmap_switch_who(const struct etl_procmap *m, struct etl_who_cache *c,
                                          const struct etl_switch *sw, struct etl_who *wo,
                                          struct etl_who *wn)
{
    if (!c->tids && !etl_who_cache_init(c))
        return false;
    uint32_t h = sw->has;
    if (h & SW_OLD_TID) {
        etl_procmap_who_cached(m, c, sw->old_tid, sw->ts, wo);
    } else {
        etl_procmap_who(m, sw->old_tid, sw->ts, wo);
        wo->known = false, wo->image = NULL;
    }
    if (h & SW_NEW_TID) {
        etl_procmap_who_cached(m, c, sw->new_tid, sw->ts, wn);
    } else {
        wn->thread = wn->proc = ETL_PM_NONE;
        wn->known = false, wn->image = NULL, wn->image_len = 0, wn->pid = 0;
    }
    return true;
}

/* Image of pid at ts, or NULL (PID 0 is "Idle"). */
const char *etl_procmap_image(const struct etl_procmap *m, uint32_t pid, int64_t ts);

/* Accessors (index < count). */
size_t etl_procmap_nthreads(const struct etl_procmap *m);
size_t etl_procmap_nprocesses(const struct etl_procmap *m);
const struct etl_pm_thread *etl_procmap_thread(const struct etl_procmap *m, uint32_t i);
const struct etl_pm_process *etl_procmap_process(const struct etl_procmap *m, uint32_t i);
const char *etl_procmap_str(const struct etl_procmap *m, uint32_t s); /* NULL for NONE */

#endif
