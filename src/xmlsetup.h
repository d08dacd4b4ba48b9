/*
 * xmlsetup.h - libxml2 as the library uses it (the XML printer, EventSource
 * manifests): loaded when first needed (xmlapi.h), set up once, with
 * allocation functions that count failures, since libxml2 does not report
 * every one of them, and without messages of its own on standard error.
 */
#ifndef ETLDUMP_XMLSETUP_H
#define ETLDUMP_XMLSETUP_H

#include <stdbool.h>

/* Loads and sets up libxml2 on first use (from any thread: the first call
 * loads it once), then silences libxml2's messages on the calling thread.
 * Returns false when libxml2 could not be loaded (etl_library_xml_error
 * says why): no libxml2 function may then be called. */
bool etl_xml_setup(void);

/* How many calls of etl_xml_setup have returned false, on any thread: a run
 * that raised it needed libxml2 and went without. */
unsigned long etl_xml_refused(void);

/* Returns how many of libxml2's allocations have failed on this thread. */
unsigned long etl_xml_failures(void);

#endif
