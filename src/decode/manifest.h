/*
 * manifest.h - instrumentation manifests (the XML that EventSource
 * providers log about themselves, doc/format.md section 20) turned into one
 * TRACE_EVENT_INFO per event, so that the trace's metadata registry keeps
 * them like the descriptions KernelTraceControl merges into traces.
 */
#ifndef ETLDUMP_MANIFEST_H
#define ETLDUMP_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Receives one event's TRACE_EVENT_INFO (tei[0..n), valid during the call);
 * returns false to stop. */
typedef bool (*etl_manifest_fn)(void *ctx, const uint8_t *tei, size_t n);

/* Reads the manifest xml[0..len) (UTF-8) and calls fn for each event of
 * each provider it describes whose fields have known types. Returns 1 when
 * read, 0 when it is not a well-formed manifest, -1 when memory ran out, fn
 * asked to stop or libxml2 could not be loaded (etl_xml_setup). */
int etl_manifest_read(const char *xml, size_t len, etl_manifest_fn fn, void *ctx);

#endif
