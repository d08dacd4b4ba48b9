/*
 * view.h - what etldump shows of a file: the trace info, the census, every
 * event, or the context switches. A view reads through the ETL reader and
 * decoders and hands typed rows to a printer; it never formats anything.
 */
#ifndef ETLDUMP_VIEW_H
#define ETLDUMP_VIEW_H

#include <stdbool.h>

#include "etl/etl.h"
#include "etldump.h"
#include "print/printer.h"
#include "view/filter.h"

/* Runs view o->view over an open file: the trace info first when the
 * printer or the view wants it. 0, or -1 after a write error. */
int etl_run_view(struct etl_printer *p, struct etl_file *f, const struct etl_view_opts *o);

/* Each returns 0, or -1 after a write error (the printer's output keeps errno). */
int etl_view_info(struct etl_printer *p, struct etl_file *f);
/* The same; with all, every event is read for the group-mask changes, which
 * follow as a second table (before other views only the header buffers and
 * each processor's first buffer are read); with strict, a problem met
 * reading them ends the view after the trace row, with that problem alone. */
int etl_view_info_scan(struct etl_printer *p, struct etl_file *f, bool all, bool strict);
int etl_view_stats(struct etl_printer *p, struct etl_file *f,
                   const struct etl_view_opts *o);
int etl_view_events(struct etl_printer *p, struct etl_file *f,
                    const struct etl_view_opts *o);
int etl_view_switches(struct etl_printer *p, struct etl_file *f,
                      const struct etl_view_opts *o);
int etl_view_summary(struct etl_printer *p, struct etl_file *f,
                     const struct etl_view_opts *o);
int etl_view_usage(struct etl_printer *p, struct etl_file *f,
                   const struct etl_view_opts *o);

/* The tables each view prints (their column names are a public contract). */
extern const struct etl_table etl_table_info, etl_table_stats,
    etl_table_events, etl_table_switches, etl_table_summary, etl_table_usage;

#endif
