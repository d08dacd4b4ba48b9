/*
 * filter.h - which rows a view prints: --cpu, --tid, --pid, --process,
 * --range, --hook and the event names of --events. Filters choose rows at output, after every switch has
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

/* A LIST: numbers and ranges "a-b", comma-separated; unset matches all.
 * hit (--hook's, --tid's and --pid's): per entry, whether an event or a
 * switch of the trace matched it, set as etl_filter_event and
 * etl_filter_switch_seen see them. */
struct etl_id_list {
    struct etl_id_range *r;
    size_t n;
    bool set;
    uint8_t *hit;
};

/* Event names and name prefixes, as given; hit as in etl_id_list. */
struct etl_name_list {
    char **name;
    size_t n;
    uint8_t *hit;
};

struct etl_filter {
    struct etl_id_list cpu, tid, pid, hook;
    struct etl_name_list hook_names; /* --hook entries that are names */
    struct etl_name_list events;     /* --events=NAMES (none: every event) */
    bool events_all;                 /* 'all' among them: every event */
    char **process;           /* image names as given */
    size_t nprocess;
    bool has_start, has_end;
    int64_t start_ns, end_ns; /* since the trace started */
};

/* What a view gives the filter to record the --tid and --pid entries a
 * trace has: its events (etl_filter_event), its context switches
 * (etl_filter_switch_seen), or neither (the view leaves --tid and --pid
 * out). */
enum etl_filter_seen { ETL_SEEN_EVENTS, ETL_SEEN_SWITCHES, ETL_SEEN_NONE };

/* The context switches a view of them read, as far as --range goes: how
 * many, how many in it, and the raw times of the first and the last. */
struct etl_switch_span {
    uint64_t n, in_range;
    int64_t first, last;
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

/* Notes, on file, the filter entries that can match nothing in it, which
 * would otherwise show no rows as silently as a filter that matched
 * nothing by chance: each --cpu entry naming no processor that has buffers
 * in the file (a bad processor number); each --process name that no
 * process of map m has, nor the Idle process (a misspelt name; none when m
 * is NULL or left records out at its limits). f may be NULL. Called as a
 * view starts on a file: from there, etl_filter_event records the --hook,
 * --events, --tid and --pid entries that the file's events match, and
 * etl_filter_switch_seen the --tid and --pid entries its switches match. */
void etl_filter_notes(const struct etl_filter *f, const struct etl_procmap *m,
                      struct etl_file *file);

/* Notes, on file, once a view has read the trace to the end, the filter
 * entries that matched nothing in it: a --range that starts after the
 * trace's last event, at raw time last (any: the trace has a timed event);
 * each --hook and --events entry that no event matched, of all those
 * etl_filter_event was given (every event, by the views that take these
 * options); each --tid and --pid entry that no event or no switch matched,
 * as the view says it gave them (seen); with a --range that starts before
 * the last event but holds none of the switches of span (the switch list's;
 * NULL: none kept), the times of the first and last. For the views that
 * read the trace from streams s, the time of the last event comes from
 * them. f may be NULL. */
void etl_filter_notes_end_at(const struct etl_filter *f, bool any, int64_t last,
                             enum etl_filter_seen seen, const struct etl_switch_span *span,
                             struct etl_file *file);
void etl_filter_notes_end(const struct etl_filter *f, const struct etl_streams *s,
                          enum etl_filter_seen seen, const struct etl_switch_span *span,
                          struct etl_file *file);

/* Returns true if f has --tid or --pid entries: a view of the switches then
 * gives etl_filter_switch_seen every switch it reads. */
static inline bool etl_filter_who(const struct etl_filter *f)
{
    return f && (f->tid.set || f->pid.set);
}

/* Records the --tid and --pid entries that the old and new threads of
 * switch sw match (wo, wn: their processes at its time, as etl_procmap_who
 * gives them), whatever the other filters say; a thread whose process is
 * not known matches no --pid entry. */
void etl_filter_switch_seen(const struct etl_filter *f, const struct etl_switch *sw,
                            const struct etl_who *wo, const struct etl_who *wn);

/* Returns true if the raw time ts lies in --range (inclusive). */
bool etl_filter_time(const struct etl_filter *f, const struct etl_clock *clk, int64_t ts);

/* Returns true if f has a --range: the switch list then keeps the span of
 * its switches (etl_switch_span_add). */
static inline bool etl_filter_ranged(const struct etl_filter *f)
{
    return f && (f->has_start || f->has_end);
}

/* Adds a switch at raw time ts to span sp of --range f. */
static inline void etl_switch_span_add(struct etl_switch_span *sp, const struct etl_filter *f,
                                       const struct etl_clock *clk, int64_t ts)
{
    if (sp->n++ == 0)
        sp->first = ts;
    sp->last = ts;
    sp->in_range += etl_filter_time(f, clk, ts);
}

/* Returns true if the filter looks at event names (--events=NAMES, or
 * names in --hook): the caller then passes each event's name. */
bool etl_filter_names(const struct etl_filter *f);

/* Returns true if name matches an entry of l: the entry itself or, the
 * entry being a prefix of whole components, a name under it ("Process"
 * matches "Process/DCStart", "Microsoft-Windows-DotNETRuntime/GC" matches
 * "Microsoft-Windows-DotNETRuntime/GC/Start"); ASCII case is ignored. */
bool etl_name_list_has(const struct etl_name_list *l, const char *name);

/* Returns true if an event of --events or --stats passes every filter:
 * its processor, time, HookId or name (--hook), name (--events=NAMES); its
 * thread and process from its header and, for Process and Thread events,
 * from their decoded record rec (NULL when not decoded); its process's
 * image from a Process event's payload or from the map (m may be NULL).
 * name is the event's name (NULL when it has none or the filter looks at
 * no names). */
bool etl_filter_event(const struct etl_filter *f, const struct etl_clock *clk,
                      const struct etl_procmap *m, const struct etl_event *ev,
                      const struct etl_record *rec, const char *name);

#endif
