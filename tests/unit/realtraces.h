/*
 * realtraces.h - the real traces the unit tests read in place: in
 * ../shared/samples/real, or $ETLDUMP_SHARED/samples/real.
 */
#ifndef REALTRACES_H
#define REALTRACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The name of real trace k, or NULL past the last. */
static inline const char *real_trace(size_t k)
{
    static const char *const names[] = {
        "airbus-amsi.etl", "airbus-lxcore.etl", "dnperf-dynamicevents.etl",
        "hw3d-trace.etl", "jl-perfview.etl", "msbuild-perfview-ptr4.etl",
        "pv-diaghub-kernel.etl", "pv-diaghub-user-injected.etl",
        "pv-gcevents-circular.etl", "pv-gcrundown.etl", "pv-primitive-types.etl",
        "pv-selfdescribing.etl", "pyetw-out.etl",
    };
    return k < sizeof names / sizeof names[0] ? names[k] : NULL;
}

/* Writes the path of the real trace called name into path (cap bytes);
 * false, after saying that the test called test skips it, when it is not
 * there. */
static inline bool real_trace_path(const char *test, const char *name, char *path, size_t cap)
{
    const char *shared = getenv("ETLDUMP_SHARED");
    snprintf(path, cap, "%s/samples/real/%s", shared ? shared : "../shared", name);
    if (access(path, R_OK) == 0)
        return true;
    printf("%s: skipped %s: not found (the real traces live beside the project in "
           "shared/samples/real)\n", test, path);
    return false;
}

#endif
