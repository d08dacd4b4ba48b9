/*
 * xmlsetup.h - libxml2 as the library uses it (the XML printer, EventSource
 * manifests): set up once, with allocation functions that count failures,
 * since libxml2 does not report every one of them, and without messages of
 * its own on standard error.
 */
#ifndef ETLDUMP_XMLSETUP_H
#define ETLDUMP_XMLSETUP_H

/* Sets libxml2 up on first use (call it before any other libxml2 function;
 * the first call must not race with another); later calls only silence
 * libxml2's messages on the calling thread. */
void etl_xml_setup(void);

/* Returns how many of libxml2's allocations have failed on this thread. */
unsigned long etl_xml_failures(void);

#endif
