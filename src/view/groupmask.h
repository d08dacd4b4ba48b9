/*
 * groupmask.h - what a trace says it records: the group masks of its
 * header-extension events (HookId 0x0005 and 0x0020, format.md §6), found
 * for the trace-info view, the table of their changes, the --groupmask view
 * of a mask list given on the command line, and the warning when a trace
 * that records context switches has none.
 */
#ifndef ETLDUMP_VIEW_GROUPMASK_H
#define ETLDUMP_VIEW_GROUPMASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/groupmask.h"
#include "decode/swreader.h"
#include "etl/etl.h"
#include "print/printer.h"
#include "view/filter.h"

/* At most this many header-extension events are kept for the change table. */
#define ETL_EXT_MAX_EVENTS 100000u

/* One header-extension event. */
struct etl_ext_event {
    int64_t ts;
    uint64_t order;         /* position in the walk: ties keep file order */
    uint16_t hook_id;
    struct etl_groupmask gm;
};

/* What the header-extension events of a trace say. */
struct etl_ext_scan {
    bool found;             /* at least one event was read */
    bool has_version;
    uint32_t version;       /* kernel event version of the first event carrying one */
    struct etl_groupmask any;   /* OR of the masks of every event read */
    struct etl_ext_event *ev;   /* every event read (all: in time order) */
    size_t n, cap;
    uint64_t dropped;       /* events past ETL_EXT_MAX_EVENTS */
    /* A full scan's problems, held so that they follow the rows printed
     * from it (see etl_ext_scan_replay). */
    struct etl_file *f;
    struct etl_scope scope;
};

/*
 * Reads the header-extension events of f. With all false only the header
 * buffers and the first buffer of each processor are read, quietly (their
 * problems are reported by the view that reads them next); with all true
 * every buffer is read and its problems are held for etl_ext_scan_replay.
 * false when out of memory (f is marked).
 */
bool etl_ext_scan(struct etl_file *f, bool all, struct etl_ext_scan *out);

/* Reports the problems a full scan held back (as they would have been);
 * call once its rows are printed. */
void etl_ext_scan_replay(struct etl_ext_scan *s);

/* Frees what etl_ext_scan allocated. */
void etl_ext_scan_free(struct etl_ext_scan *s);

/* Strings for the trace-info row, kept until it is printed. */
struct etl_trace_names {
    char log_file_mode[2048];
    char group_masks[72];
    char group_mask_names[8192];
    char enable_flag_names[1024];
    const char *clock_type;       /* EVENT_TRACE_CLOCK_*, or NULL */
    const char *context_switches; /* none, cswitch, compact; NULL if no masks */
    char clock_num[16];
};

/* Fills n from the logfile header and a scan. */
void etl_trace_names_fill(struct etl_trace_names *n, const struct etl_logfile *h,
                          const struct etl_ext_scan *s);

/* Prints the table of group-mask changes (rows: the first event read, then
 * every event whose masks differ from the row before). Nothing for a printer
 * with a single table per output (CSV). 0, or -1 after a write error. */
int etl_view_groupmask_changes(struct etl_printer *p, struct etl_file *f,
                               const struct etl_ext_scan *s);

/* --groupmask: one row per mask (index, mask, names). */
int etl_view_groupmask(struct etl_printer *p, const struct etl_groupmask *g);

/* Called at the end of a view of the switches (the switch view, the
 * summary, usage, the Perfetto and SVG exports) whose reader r read them
 * all, from streams s: when it decoded none, and the group masks of the
 * trace say context switches were recorded, a warning says so (it does not
 * count as a problem); when they do not, a note says what the trace
 * records. Then the notes of filter flt's entries that matched nothing
 * (etl_filter_notes_end): seen says whether the view gave the filter its
 * switches (etl_filter_switch_seen) or leaves --tid and --pid out, span is
 * the switch list's span of its switches for --range (NULL elsewhere). */
void etl_view_switches_end(struct etl_file *f, const struct etl_switch_reader *r,
                           const struct etl_streams *s, const struct etl_filter *flt,
                           enum etl_filter_seen seen, const struct etl_switch_span *span);

extern const struct etl_table etl_table_groupmask_changes, etl_table_groupmask;

#endif
