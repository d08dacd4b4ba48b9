/*
 * metadata.h - a per-file registry of event descriptions carried in the
 * trace itself: the TRACE_EVENT_INFO blobs that xperf, WPR and PerfView
 * merge into a trace as KernelTraceControl EventMetadata events (class GUID
 * bbccf6c1-6cd1-48c4-80ff-839482e37671, opcode 32). Filled by a pre-pass
 * over the file's events, then used to name and decode the events they
 * describe (doc/format.md section 22).
 *
 * Memory is bounded: at most ETL_META_MAX_EVENTS descriptions and
 * ETL_META_MAX_BYTES bytes of names and properties; past a cap further
 * descriptions are counted in `dropped` and `capped` is set.
 */
#ifndef ETLDUMP_METADATA_H
#define ETLDUMP_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "etl/etl.h"
#include "fields.h"

#define ETL_META_MAX_EVENTS 65536u
#define ETL_META_MAX_BYTES (32u * 1024u * 1024u)

struct etl_meta_prop;
struct etl_meta_event;

struct etl_meta {
    struct etl_meta_event *ev;
    size_t nev, cap_ev;
    struct etl_meta_prop *props;
    size_t nprops, cap_props;
    char *str;                /* UTF-8 names, each NUL-terminated */
    size_t slen, scap;
    uint32_t *hash;           /* open addressing: index + 1, 0 = empty */
    size_t hcap;
    size_t bytes;             /* memory held, checked against the cap */
    uint64_t dropped;         /* descriptions not kept (cap or damage) */
    bool capped;              /* a cap was hit */
};

/* Sets up an empty registry. */
void etl_meta_init(struct etl_meta *m);

/* Frees the registry. */
void etl_meta_free(struct etl_meta *m);

/* True when ev is a KernelTraceControl EventMetadata event (TRACE_EVENT_INFO
 * or EVENT_MAP_INFO). */
bool etl_meta_is_metadata(const struct etl_event *ev);

/* Pre-pass: when ev is an EventMetadata TRACE_EVENT_INFO event, keeps its
 * description (a later one for the same event replaces nothing: the first
 * wins). Returns true when ev was a metadata event. */
bool etl_meta_add(struct etl_meta *m, const struct etl_event *ev);

/* Returns the name of ev from its description ("Provider/Task/Opcode" or
 * "Provider/EventName"), or NULL when the registry does not describe ev. */
const char *etl_meta_event_name(const struct etl_meta *m, const struct etl_event *ev);

/* Decodes ev's payload by its description (c over ev->data, ev->data_len)
 * into out; *name receives the event's name (or NULL). Returns ETL_FDEC_OK,
 * ETL_FDEC_NO_LAYOUT (no description: nothing appended), ETL_FDEC_PARTIAL
 * (bytes after the last property at *bad_at) or ETL_FDEC_DAMAGED (a property
 * runs past the payload at *bad_at). */
enum etl_fdec etl_meta_fields(const struct etl_meta *m, const struct etl_event *ev,
                              struct etl_cursor *c, struct etl_fields *out,
                              const char **name, size_t *bad_at);

/* Decodes an EventMetadata event itself (its TRACE_EVENT_INFO or
 * EVENT_MAP_INFO) into fields named after the tdh.h structure members. */
enum etl_fdec etl_meta_self_fields(const struct etl_event *ev, struct etl_cursor *c,
                                   struct etl_fields *out, size_t *bad_at);

#endif
