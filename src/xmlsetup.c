/*
 * xmlsetup.c - libxml2 loaded and set up (see xmlsetup.h, xmlapi.h).
 */
#define ETL_XML_API_NO_NAMES
#include "xmlapi.h"
#include "xmlsetup.h"

#include "etldump.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file dlopen is given: libxml2's shared object by its SONAME (the
 * Makefile's XML_SONAME). */
#ifndef ETL_XML_SONAME
#define ETL_XML_SONAME "libxml2.so.2"
#endif

struct etl_xml_api etl_xml_api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[320];
static atomic_ulong refused;
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

/* Opens libxml2 and fills the table; on failure says why and leaves the
 * library open or not as dlopen did (a handle is never closed: libxml2 and
 * what it loads stay for the process). */
static void load(void)
{
    void *h = dlopen(ETL_XML_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : ETL_XML_SONAME ": cannot be loaded");
        return;
    }
    /* A function pointer from dlsym's object pointer (POSIX allows it). */
#define ETL_XML_LOOKUP(name)                                                                  \
    {                                                                                         \
        void *sym = dlsym(h, #name);                                                          \
        if (!sym) {                                                                           \
            snprintf(why, sizeof why, "%s: no function %s", ETL_XML_SONAME, #name);          \
            return;                                                                           \
        }                                                                                     \
        memcpy(&etl_xml_api.name, &sym, sizeof sym);                                          \
    }
    ETL_XML_FUNCTIONS(ETL_XML_LOOKUP)
#undef ETL_XML_LOOKUP
    etl_xml_api.xmlMemSetup(free, xml_malloc, xml_realloc, xml_strdup);
    etl_xml_api.xmlInitParser();
    loaded = true;
}

bool etl_xml_setup(void)
{
    pthread_once(&once, load);
    if (!loaded) {
        atomic_fetch_add(&refused, 1);
        return false;
    }
    etl_xml_api.xmlSetGenericErrorFunc(NULL, silent);
    etl_xml_api.xmlSetStructuredErrorFunc(NULL, silent_structured);
    return true;
}

unsigned long etl_xml_refused(void)
{
    return atomic_load(&refused);
}

unsigned long etl_xml_failures(void)
{
    return failures;
}

int etl_library_begin(void)
{
    return 0;
}

int etl_library_xml(char *err, size_t cap)
{
    unsigned long failed = failures;
    if (!etl_xml_setup()) {
        snprintf(err, cap, "%s", why);
        return -1;
    }
    if (failures != failed) {
        snprintf(err, cap, "out of memory");
        return -2;
    }
    return 0;
}

const char *etl_library_xml_error(void)
{
    return why[0] ? why : NULL;
}

void etl_library_end(void)
{
    if (loaded)
        etl_xml_api.xmlCleanupParser();
}
