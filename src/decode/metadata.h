/*
 * metadata.h - a per-file registry of event descriptions carried in the
 * trace itself: the TRACE_EVENT_INFO blobs that xperf, WPR and PerfView
 * merge into a trace as KernelTraceControl EventMetadata events (class GUID
 * bbccf6c1-6cd1-48c4-80ff-839482e37671, opcode 32). Filled by a pre-pass
 * over the file's events, then used to name and decode the events they
 * describe (doc/format.md section 20).
 *
 * EventSource providers carry their manifest as events of their own (id
 * 65534, opcode 254), in chunks; a whole manifest is read with libxml2
 * (decode/manifest.c) and each event it describes is kept the same way.
 *
 * Memory is bounded: at most ETL_META_MAX_EVENTS descriptions and
 * ETL_META_MAX_BYTES bytes of names, properties and manifest chunks; past a
 * cap further descriptions are counted in `dropped` and `capped` is set.
 * Running out of memory sets `nomem` (the caller ends the run).
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
/* Manifests assembled at a time, their size, and manifests remembered as
 * read already. */
#define ETL_META_MAX_PENDING 8u
#define ETL_META_MAX_MANIFEST (4u * 1024u * 1024u)
#define ETL_META_MAX_MANIFESTS 256u

/* EventSource's manifest events: id, opcode, the envelope's size and magic
 * (u8 Format, u8 MajorVersion, u8 MinorVersion, u8 Magic, u16 TotalChunks,
 * u16 ChunkNumber). */
#define ETL_MANIFEST_EVENT_ID 65534u
#define ETL_MANIFEST_OPCODE 254u
#define ETL_MANIFEST_HEADER 8u
#define ETL_MANIFEST_MAGIC 0x5Bu

struct etl_meta_prop;
struct etl_meta_event;

/* A manifest whose chunks are being gathered. */
struct etl_meta_pending {
    uint8_t guid[16];
    uint16_t total, next;     /* chunks in all, the next one expected */
    uint8_t *buf;
    size_t len, cap;
    bool used;
};

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
    struct etl_meta_pending pend[ETL_META_MAX_PENDING];
    uint64_t seen[ETL_META_MAX_MANIFESTS]; /* hashes of the manifests read */
    size_t nseen;
    uint64_t dropped;         /* descriptions not kept (cap or damage) */
    bool capped;              /* a cap was hit */
    bool nomem;               /* an allocation failed */
};

/* Sets up an empty registry. */
void etl_meta_init(struct etl_meta *m);

/* Frees the registry. */
void etl_meta_free(struct etl_meta *m);

/* True when ev is a KernelTraceControl EventMetadata event (TRACE_EVENT_INFO
 * or EVENT_MAP_INFO) or an EventSource manifest event. */
bool etl_meta_is_metadata(const struct etl_event *ev);

/* True when ev is an EventSource manifest event. */
bool etl_meta_is_manifest(const struct etl_event *ev);

/* True when ev's header is that of an EventSource manifest event: what
 * etl_meta_is_manifest checks before it looks at the payload. Inline: the
 * every-event view asks it of each event. */
static inline bool etl_meta_maybe_manifest(const struct etl_event *ev)
{
    return (ev->kind == ETL_KIND_EVENT_HEADER32 || ev->kind == ETL_KIND_EVENT_HEADER64) &&
           ev->event_id == ETL_MANIFEST_EVENT_ID && ev->opcode == ETL_MANIFEST_OPCODE &&
           ev->data_len >= ETL_MANIFEST_HEADER;
}

/* Pre-pass: when ev is an EventMetadata TRACE_EVENT_INFO event, or the last
 * chunk of an EventSource manifest, keeps the descriptions it holds (a later
 * one for the same event replaces nothing: the first wins). Returns true
 * when ev was a metadata event. */
bool etl_meta_add(struct etl_meta *m, const struct etl_event *ev);

/* Returns the name of the provider of GUID guid (or of the classic event
 * class guid) as its descriptions give it, or NULL. */
const char *etl_meta_provider_name(const struct etl_meta *m, const uint8_t guid[16]);

/* Gives the key of description number i (guid, event id or opcode,
 * version, whether it is a classic event keyed by event GUID and opcode);
 * false when there are not that many. For tests. */
bool etl_meta_key(const struct etl_meta *m, size_t i, uint8_t guid[16], unsigned *code,
                  unsigned *version, bool *classic);

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
 * EVENT_MAP_INFO) into fields named after the tdh.h structure members, and
 * a manifest event into its envelope's fields and the chunk's text. */
enum etl_fdec etl_meta_self_fields(const struct etl_event *ev, struct etl_cursor *c,
                                   struct etl_fields *out, size_t *bad_at);

#endif
