/*
 * filter.h - which rows a view prints: --cpu, --tid, --pid, --process,
 * --range and --hook. Filters choose rows at output, after every switch has
 * been expanded and linked and every figure computed, so they never change
 * what the remaining rows say.
 */
#ifndef ETLDUMP_FILTER_H
#define ETLDUMP_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/procmap.h"
#include "etl/etl.h"
#include "print/printer.h"

/* The options that take a filter. */
enum etl_filter_opt {
    ETL_FILTER_CPU,       /* LIST of processors */
    ETL_FILTER_TID,       /* LIST of thread IDs */
    ETL_FILTER_PID,       /* LIST of process IDs */
    ETL_FILTER_PROCESS,   /* image names, comma-separated */
    ETL_FILTER_RANGE,     /* START:END in seconds since the trace started */
    ETL_FILTER_HOOK,      /* LIST of HookIds */
};

/* A closed interval of IDs. */
struct etl_id_range {
    uint32_t lo, hi;
};

/* A LIST: numbers and ranges "a-b", comma-separated; unset matches all. */
struct etl_id_list {
    struct etl_id_range *r;
    size_t n;
    bool set;
};

struct etl_filter {
    struct etl_id_list cpu, tid, pid, hook;
    char **process;           /* image names as given */
    size_t nprocess;
    bool has_start, has_end;
    int64_t start_ns, end_ns; /* since the trace started */
};

/* Adds one option's argument to f; false with a message in err (no option
 * name in it) when the argument is malformed or memory ran out. Repeating
 * an option adds to its list. */
bool etl_filter_add(struct etl_filter *f, enum etl_filter_opt which, const char *arg,
                    char *err, size_t errcap);

/* Frees what f holds and clears it. */
void etl_filter_free(struct etl_filter *f);

/* Returns true if any filter is set (f may be NULL). */
bool etl_filter_any(const struct etl_filter *f);

/* Returns true if v is in the list (always, when the list is unset). */
bool etl_id_list_has(const struct etl_id_list *l, uint32_t v);

/* Returns true if image matches a --process name (always, when none is
 * set; never for an unknown image when one is). Case-insensitive, on the
 * base name: "C:\Windows\svchost.exe", "SVCHOST.EXE" and "svchost" all
 * match "svchost.exe". */
bool etl_filter_process(const struct etl_filter *f, const char *image);

/* Returns true if the raw time ts lies in --range (inclusive). */
bool etl_filter_time(const struct etl_filter *f, const struct etl_clock *clk, int64_t ts);

/* Returns true if an event of --events=all or --stats passes every filter:
 * its processor, time and HookId; its thread and process from its header
 * and, for Process and Thread events, from their payload; its process's
 * image from a Process event's payload or from the map (m may be NULL). */
bool etl_filter_event(const struct etl_filter *f, const struct etl_clock *clk,
                      const struct etl_procmap *m, const struct etl_event *ev);

#endif
