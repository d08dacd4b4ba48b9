/*
 * tracelogging.h - TraceLogging events decoded with no manifest: the event's
 * schema comes from its EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL extended data
 * item and the provider's name from EVENT_HEADER_EXT_TYPE_PROV_TRAITS
 * (doc/format.md section 19).
 */
#ifndef ETLDUMP_TRACELOGGING_H
#define ETLDUMP_TRACELOGGING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "etl/etl.h"
#include "fields.h"

/* EVENT_HEADER_EXT_TYPE_* values used here. */
#define ETL_EXT_EVENT_SCHEMA_TL 11u
#define ETL_EXT_PROV_TRAITS 12u

/* Finds the first extended data item of the given type in an EVENT_HEADER
 * event; sets *data and *len to its data. Returns false if there is none. */
bool etl_ext_item_find(const struct etl_event *ev, unsigned type, const uint8_t **data,
                       size_t *len);

/* Returns the provider name carried in the event's provider traits (not
 * NUL-terminated: *len bytes), or NULL. */
const char *etl_tl_provider_name(const struct etl_event *ev, size_t *len);

/* True when the event carries a TraceLogging schema. */
bool etl_tl_is_tracelogging(const struct etl_event *ev);

/* Writes "ProviderName/EventName" (or "EventName" when the provider has no
 * name in its traits) into name (cap bytes, always terminated). Returns
 * false when the event carries no TraceLogging schema. */
bool etl_tl_event_name(const struct etl_event *ev, char *name, size_t cap);

/* Decodes a TraceLogging event's payload (c over ev->data, ev->data_len)
 * into out by its schema. Field names point into the event's extended data.
 * Returns ETL_FDEC_OK, ETL_FDEC_NO_LAYOUT (no schema, or a damaged schema:
 * nothing appended), ETL_FDEC_PARTIAL (bytes left after the last field at
 * *bad_at) or ETL_FDEC_DAMAGED (a field runs past the payload at *bad_at). */
enum etl_fdec etl_tl_fields(const struct etl_event *ev, struct etl_cursor *c,
                            struct etl_fields *out, size_t *bad_at);

#endif
