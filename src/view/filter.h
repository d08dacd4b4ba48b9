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

#include "clock.h"
#include "decode/dispatch.h"
#include "etldump.h"
#include "decode/procmap.h"
#include "etl/etl.h"

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

/* Frees what f holds and clears it (for a filter not made by etl_filter_new). */
void etl_filter_clear(struct etl_filter *f);

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
 * and, for Process and Thread events, from their decoded record rec (NULL
 * when not decoded); its process's image from a Process event's payload or
 * from the map (m may be NULL). */
bool etl_filter_event(const struct etl_filter *f, const struct etl_clock *clk,
                      const struct etl_procmap *m, const struct etl_event *ev,
                      const struct etl_record *rec);

#endif
