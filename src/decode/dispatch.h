/*
 * dispatch.h - the one table that says how each kind of event is decoded
 * into a typed record: {HookId range, or provider GUID and event id;
 * version range; header kinds; decoder}. Event names are not kept here:
 * every event's name comes from the kernel table (decode/kfields.h,
 * etl_kernel_event_name) or the other sources of decode/payload.h, so there
 * is one name per event. Every view decodes an event through it, once per
 * pass; an event
 * no entry matches goes to the generic entry (no typed record), so nothing
 * is dropped. Adding a decoder is a file of its own plus one table line.
 */
#ifndef ETLDUMP_DISPATCH_H
#define ETLDUMP_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "decode/cswitch.h"
#include "decode/dpcisr.h"
#include "decode/groupmask.h"
#include "decode/process.h"
#include "decode/readythread.h"
#include "etl/etl.h"

/* What a decoder makes of an event. */
enum etl_rec_kind {
    ETL_REC_NONE,           /* the generic entry: no typed record */
    ETL_REC_LOGFILE,        /* the logfile header (decoded by the reader) */
    ETL_REC_HEADER_EXT,     /* u.ext: group masks (§6) */
    ETL_REC_CSWITCH,        /* u.sw: one context switch (§7) */
    ETL_REC_CSWITCH_BATCH,  /* u.batch: a compact batch's payload (§8) */
    ETL_REC_PROCESS,        /* u.proc (§14) */
    ETL_REC_THREAD,         /* u.thr (§15) */
    ETL_REC_READY,          /* u.ready: ReadyThread (§16) */
    ETL_REC_INTR,           /* u.intr: a DPC or an ISR (§17) */
};

/* One decoded event. Strings and the batch cursor point into the event. */
struct etl_record {
    const struct etl_decoder *dec;
    union {
        struct etl_header_ext ext;
        struct etl_switch sw;
        struct etl_cursor batch;
        struct etl_process_rec proc;
        struct etl_thread_rec thr;
        struct etl_ready ready;
        struct etl_intr intr;
    } u;
    const char *problem;      /* what is wrong with the payload, or NULL */
    size_t at;                /* where: a byte offset in the event's data */
    bool valid;               /* u holds a record (possibly partial, see problem) */
};

/* Decodes an event's data, read through c (limited to the data), into r.
 * Returns false when no record could be made (r->problem says why). */
typedef bool (*etl_decode_fn)(const struct etl_event *ev, struct etl_cursor *c,
                              struct etl_record *r);

/* A table entry. */
struct etl_decoder {
    uint16_t hook, hook_last;   /* HookIds (kernel header kinds), inclusive */
    const uint8_t *guid;        /* or a provider (non-kernel kinds), NULL if none */
    uint16_t event_id;          /* with the provider */
    uint8_t vmin, vmax;         /* versions */
    uint8_t kind;               /* enum etl_rec_kind */
    etl_decode_fn decode;       /* NULL: nothing to decode */
    uint16_t kinds;             /* header kinds (1 << enum etl_kind) it takes; 0: any */
};

/* Returns the entry for ev: never NULL (the generic entry matches all). */
const struct etl_decoder *etl_dispatch(const struct etl_event *ev);

/* Returns the entry for a kernel event (kind: a kernel header kind) with
 * HookId h and version v: etl_dispatch's answer for such an event. */
const struct etl_decoder *etl_dispatch_kernel(uint16_t h, unsigned v, unsigned kind);

/* Returns true if an event of header kind `kind` (a kernel one) with HookId
 * h may, at some version, go to a decoder of a record kind in rec (bits
 * 1 << enum etl_rec_kind); false when none of its versions can. */
bool etl_dispatch_may_be(uint16_t h, unsigned kind, uint32_t rec);

/* For a pass that wants whole only the PERFINFO64 events of some record
 * kinds (etl_walk_file_runs, which it lets skip the others in runs): the
 * record kinds, and the classes by HookId, 0 (whole) for a HookId until an
 * event of it comes whole and shows that no version of it can be a record
 * of those kinds, 1 (in runs) from then on. */
struct etl_runs_pick {
    uint32_t rec;             /* bits 1 << enum etl_rec_kind */
    uint32_t *cls;            /* 65536 classes */
};

/* Sets p up for the record kinds in rec; false when out of memory. */
bool etl_runs_pick_init(struct etl_runs_pick *p, uint32_t rec);

/* Learns from ev, which came whole: a PERFINFO64 event of a HookId no
 * version of which can be a record of p's kinds puts the HookId in runs. */
void etl_runs_pick_learn(struct etl_runs_pick *p, const struct etl_event *ev);

/* Frees p's classes (none: nothing). */
void etl_runs_pick_fini(struct etl_runs_pick *p);

/* Decodes ev with its entry d into r; false when there is no typed record
 * (the generic entry, or a payload too damaged to give one: r->problem). */
bool etl_decode(const struct etl_event *ev, const struct etl_decoder *d,
                struct etl_record *r);

/* Dispatches and decodes in one step; returns the record's kind
 * (ETL_REC_NONE when there is none). */
enum etl_rec_kind etl_decode_event(const struct etl_event *ev, struct etl_record *r);

#endif
