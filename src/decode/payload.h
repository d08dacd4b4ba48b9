/*
 * payload.h - every event's name and decoded payload, the decoders tried in
 * one order (doc/format.md section 18.5):
 *
 *   1. a TraceLogging schema carried by the event (decode/tracelogging.h);
 *   2. the trace's metadata events themselves (TRACE_EVENT_INFO,
 *      EVENT_MAP_INFO, EventSource manifest chunks);
 *   3. EventWriteString events: one string;
 *   4. the descriptions the trace carries (decode/metadata.h), gathered by
 *      a pre-pass;
 *   5. the built-in layouts of documented manifest-based providers (the
 *      .NET runtime's) and of the kernel's classes (decode/kfields.h);
 *   6. else only the kernel table's name, if any.
 *
 * What no decoder describes is kept as a field named payload_hex: the whole
 * payload when nothing is known of it, the bytes after the known prefix of
 * a newer version, or those from a damaged field on.
 *
 * One etl_payload belongs to one file (or one run) and one thread: it holds
 * the trace's descriptions, the kernel table's index and the field list of
 * the event decoded last. Other threads decode through forks of it, which
 * share what it learnt.
 */
#ifndef ETLDUMP_PAYLOAD_H
#define ETLDUMP_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/kfields.h"
#include "decode/metadata.h"
#include "etl/etl.h"
#include "fields.h"

/* Longest name made for an event (longer ones are cut). */
#define ETL_PAYLOAD_NAME_MAX 512u
/* TraceLogging providers whose names are remembered for the census. */
#define ETL_PAYLOAD_MAX_TL 1024u

struct etl_tl_provider {
    uint8_t guid[16];
    char name[64];
};

struct etl_payload {
    struct etl_ktable kt;
    struct etl_meta meta;
    struct etl_fields fields;        /* the event decoded last */
    size_t hex;                      /* its payload_hex bytes (0: none) */
    char name[ETL_PAYLOAD_NAME_MAX]; /* names made for the event named last */
    struct etl_tl_provider *tl;      /* TraceLogging provider names seen */
    size_t ntl;
    bool nomem;
    bool fork;                       /* made by etl_payload_fork */
    const char *why;                 /* what damage decoding found, or NULL */
    char why_text[128];              /* where a decoder writes it */
    uint8_t *scratch;                /* ETL_WINSAT_MAX bytes, its own */
    uint32_t kname_key1;             /* the kernel name kept by etl_payload_name_own: */
    const char *kname;               /* its group and opcode key plus one (0: none) */
};

/* Allocates the decoding state; NULL when out of memory. */
struct etl_payload *etl_payload_new(void);
/* Returns a decoder that names and decodes events as pl does, with its own
 * field list and names, for another thread: it shares what pl learnt, which
 * must not change while the fork is in use. NULL when out of memory. */
struct etl_payload *etl_payload_fork(const struct etl_payload *pl);

/* Frees it, or a fork (NULL is allowed). */
void etl_payload_free(struct etl_payload *pl);

/* Learns what ev says about other events (metadata, manifests, provider
 * names). Returns false when memory ran out. */
bool etl_payload_learn(struct etl_payload *pl, const struct etl_event *ev);

/* The pre-pass: reads every event of f in a scope (its problems are left to
 * the view's own pass) and learns from each. Returns false when memory ran
 * out (f is marked). */
bool etl_payload_prepass(struct etl_payload *pl, struct etl_file *f);

/* Returns ev's name ("Process/DCStart", "Provider/Event", ...) or NULL when
 * nothing names it. The string lives until the next call with pl. */
const char *etl_payload_name(struct etl_payload *pl, const struct etl_event *ev);
/* etl_payload_name, and whether the name is one of etldump's own tables'
 * (the kernel's and the built-in providers' events: ASCII letters,
 * digits, '/', '_', '-' and '.', which test_fields checks) rather than made
 * from what the file says. */
const char *etl_payload_name_own(struct etl_payload *pl, const struct etl_event *ev, bool *own);

/* Names and decodes ev into pl->fields (payload_hex included). *name gets
 * its name (or NULL) and *at, for ETL_FDEC_DAMAGED, the payload offset of
 * the damaged field. */
enum etl_fdec etl_payload_decode(struct etl_payload *pl, const struct etl_event *ev,
                                 const char **name, size_t *at);

/* Returns the name of the provider of GUID guid (EVENT_HEADER, FULL and
 * INSTANCE events), from the kernel's classes, the built-in providers, the
 * trace's descriptions or the TraceLogging events seen, or NULL. */
const char *etl_payload_provider_name(const struct etl_payload *pl, const uint8_t guid[16]);

#endif
