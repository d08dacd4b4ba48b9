/*
 * xmlsetup.c - libxml2's set-up (see xmlsetup.h).
 */
#include "xmlsetup.h"

#include "etldump.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>

static _Thread_local unsigned long failures;

static void *xml_malloc(size_t n)
{
    void *p = malloc(n);
    failures += p == NULL;
    return p;
}

static void *xml_realloc(void *old, size_t n)
{
    void *p = realloc(old, n);
    failures += p == NULL;
    return p;
}

static char *xml_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xml_malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static void silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

static void silent_structured(void *ctx, xmlErrorPtr err)
{
    (void)ctx;
    (void)err;
}

void etl_xml_setup(void)
{
    static bool done;
    if (!done) {
        done = true;
        xmlMemSetup(free, xml_malloc, xml_realloc, xml_strdup);
    }
    xmlSetGenericErrorFunc(NULL, silent);
    xmlSetStructuredErrorFunc(NULL, silent_structured);
    xmlInitParser();
}

unsigned long etl_xml_failures(void)
{
    return failures;
}

int etl_library_begin(void)
{
    unsigned long failed = failures;
    etl_xml_setup();
    return failures == failed ? 0 : -1;
}
