/*
 * etldump.h - libetldump, the library under the etldump tool: read Windows
 * Event Trace Log (ETL) files and print what they hold through a table
 * printer. This is the one header a program using the library includes.
 *
 * A run: create an output (etl_out_new) and a printer over it
 * (etl_printer_new), call etl_dump once per input with the view to show,
 * then etl_printer_finish and free both. The library never exits and never
 * writes to standard error itself: problems, warnings and open failures go
 * to the callbacks of struct etl_messages.
 */
#ifndef ETLDUMP_H
#define ETLDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- outputs and printers -------------------------------------------------- */

/* A buffered output over a file descriptor that remembers its first error. */
struct etl_out;

/* Creates an output writing to fd (not closed by the library); NULL when
 * out of memory. */
struct etl_out *etl_out_new(int fd);
/* Returns the errno of the first failed write (ENOMEM when a printer ran
 * out of memory), 0 if none. */
int etl_out_error(const struct etl_out *o);
/* Frees the output (without flushing it; NULL is allowed). */
void etl_out_free(struct etl_out *o);

/* How times are shown. */
enum etl_time_mode {
    ETL_TIME_REL,   /* seconds since the trace started */
    ETL_TIME_RAW,   /* clock ticks as recorded */
    ETL_TIME_ABS,   /* UTC, ISO 8601 */
    ETL_TIME_LOCAL, /* the recording machine's local time, ISO 8601 with its offset */
};

struct etl_printer;

/* Returns true if a printer called name exists ("text", "csv", "xml",
 * "json", and the outputs that are not tables: "perfetto", "svg"). */
bool etl_printer_exists(const char *name);
/* Creates the printer called name over out; NULL if unknown or out of
 * memory. */
struct etl_printer *etl_printer_new(const char *name, struct etl_out *out,
                                    enum etl_time_mode time_mode);
/* How table printers lay rows out, beyond the time mode. */
struct etl_print_opts {
    bool crlf;             /* CSV: CRLF line ends (RFC 4180) instead of LF */
    bool no_header;        /* CSV: no header row; text: no header line */
    bool with_filename;    /* every row starts with a `file` column */
    unsigned file_width;   /* text: the width of that column */
    bool csv_formulas;     /* CSV: strings that begin as formulas left as they are */
};

/* Returns the columns the text printer gives string str from a file or the
 * command line, as it shows it: control characters as \xNN, bytes that
 * are not UTF-8 as U+FFFD (a file column as wide as the longest name). */
size_t etl_text_width(const char *str);

/* Sets the layout options of a printer (before its first row). */
void etl_printer_set_options(struct etl_printer *p, const struct etl_print_opts *o);

/* Ends the document (XML) and flushes; 0, or -1 after a write error. */
int etl_printer_finish(struct etl_printer *p);
/* Frees a printer (NULL is allowed). */
void etl_printer_free(struct etl_printer *p);

/* ---- what to show ------------------------------------------------------------ */

enum etl_view_kind {
    ETL_VIEW_SWITCHES,  /* context switches (the default) */
    ETL_VIEW_EVENTS,    /* every event record in time order */
    ETL_VIEW_INFO,      /* the trace header, names, group-mask changes */
    ETL_VIEW_STATS,     /* the census */
    ETL_VIEW_SUMMARY,   /* the scheduling summary */
    ETL_VIEW_USAGE,     /* CPU usage per process over time */
};

/* Filters choose rows; see etldump(1). */
struct etl_filter;

enum etl_filter_opt {
    ETL_FILTER_CPU,       /* LIST of processors */
    ETL_FILTER_TID,       /* LIST of thread IDs */
    ETL_FILTER_PID,       /* LIST of process IDs */
    ETL_FILTER_PROCESS,   /* image names, comma-separated */
    ETL_FILTER_RANGE,     /* START:END in seconds since the trace started */
    ETL_FILTER_HOOK,      /* LIST of HookIds and event names */
    ETL_FILTER_EVENTS,    /* event names and name prefixes, comma-separated
                           * (--events=NAMES; "all" adds none) */
};

/* Creates an empty filter (matches everything); NULL when out of memory. */
struct etl_filter *etl_filter_new(void);
/* Adds one option's argument; 0, or -1 with a message in err (no option
 * name in it) when the argument is malformed, or -2 when memory ran out.
 * Repeating an option adds to its list. */
int etl_filter_add(struct etl_filter *f, enum etl_filter_opt which, const char *arg,
                   char *err, size_t errcap);
/* Returns true if any filter is set (f may be NULL). */
bool etl_filter_any(const struct etl_filter *f);
/* Returns true if a HookId filter (--hook) is set. */
bool etl_filter_has_hook(const struct etl_filter *f);
/* Frees a filter (NULL is allowed). */
void etl_filter_free(struct etl_filter *f);

/* What --summary prints. */
enum etl_summary_part {
    ETL_SUMMARY_ALL,      /* processes, threads, CPUs; then the DPC/ISR routines
                             where the printer allows a second table */
    ETL_SUMMARY_ROUTINES, /* the DPC/ISR routines only */
};

struct etl_view_opts {
    enum etl_view_kind view;
    unsigned max_wait_reason;   /* compact switches' state bias; 0: from the build */
    bool strict;                /* stop at the first problem */
    const struct etl_filter *filter; /* rows to print (NULL: all) */
    enum etl_summary_part summary_part;
    int64_t usage_interval_ns;  /* usage view: interval length (0: about 100
                                   intervals over the trace) */
    unsigned threads;           /* threads to format rows and read ahead on: 1
                                   runs on the caller's thread alone; 0 as many
                                   as useful, up to the processors online and
                                   8. The output is the same whatever it is. */
    bool no_fields;             /* events view: rows without their decoded
                                   payload (no fields column) */
};

/* Parses the INTERVAL of --usage: seconds, or with an "ms", "us" or "s"
 * suffix ("0.5", "20ms", "250us"). 0 with the length in *ns, or -1 with a
 * message (no option name in it) in err. */
int etl_usage_interval_parse(const char *s, int64_t *ns, char *err, size_t cap);

/* Checks that the format can write the view: the outputs that are not
 * tables ("perfetto", "svg") draw the context switches of one input FILE
 * (svg also takes the usage view, for the interval of its chart), and the
 * binary one is not written to a terminal. 0, or -1 with a message in err. */
int etl_format_check(const char *format, enum etl_view_kind view, int ninputs,
                     bool to_terminal, char *err, size_t cap);

/* ---- running ------------------------------------------------------------------- */

/* Where messages about an input go (any callback may be NULL). name is the
 * input's name as given in struct etl_input. */
struct etl_messages {
    void *ctx;
    /* Damaged data at a file offset (also handed to the printer). */
    void (*problem)(void *ctx, const char *name, uint64_t offset, const char *msg);
    /* Something a user should know that is not damage. */
    void (*warning)(void *ctx, const char *name, const char *msg);
    /* Information: what a trace holds when the view finds nothing. */
    void (*note)(void *ctx, const char *name, const char *msg);
    /* The input cannot be opened or read (msg: the system's reason). */
    void (*unreadable)(void *ctx, const char *name, const char *msg);
    /* Bytes of the input read so far by the view, of total (every few MB). */
    void (*progress)(void *ctx, const char *name, uint64_t done, uint64_t total);
};

/* One input: a path, an open descriptor (fd >= 0; not closed) or a memory
 * block (data, len; not copied), and the name messages call it by. A
 * descriptor of a regular file is read whole, but with `here` from where
 * it stands, and then left at its end, as a program reads its standard
 * input (etl_open_fd_here). */
struct etl_input {
    const char *name;
    const char *path;
    int fd;
    const void *data;
    size_t len;
    bool here;
};

/* How a run over one input ended, worst last. */
enum etl_result {
    ETL_RESULT_CLEAN = 0,    /* everything was read */
    ETL_RESULT_DAMAGED,      /* output complete, damaged data skipped */
    ETL_RESULT_UNREADABLE,   /* the input cannot be read or is not ETL */
    ETL_RESULT_WRITE,        /* the output could not be written */
    ETL_RESULT_NOMEM,        /* memory ran out */
    ETL_RESULT_TEMP_LOST,    /* a temporary file could not be read back */
    ETL_RESULT_NO_LIBXML2,   /* libxml2 was needed and could not be loaded */
};

/* Dumps one input with the view o->view through p: the printer's file
 * element, the trace info when the printer or the view wants it, then the
 * view. Returns how it ended. */
enum etl_result etl_dump(const struct etl_input *in, const struct etl_view_opts *o,
                         struct etl_printer *p, const struct etl_messages *m);

/* Sets up what the library keeps for the whole process; call once, before
 * the first run and before any other thread uses the library. Returns 0, or
 * -1 when memory ran out. A program that does not call it gets the same
 * set-up on first use. libxml2 (the XML printer, the EventSource manifests
 * traces carry) is loaded only when first needed (etl_library_xml). */
int etl_library_begin(void);

/* Loads and sets up libxml2 now, as the XML printer and EventSource
 * manifests do when first needed: a program that will print XML learns
 * before any input whether it can. Returns 0; -1 when libxml2 could not be
 * loaded, why in err (cap bytes); -2 when memory ran out. A run that needs
 * libxml2 and cannot load it ends with ETL_RESULT_NO_LIBXML2. */
int etl_library_xml(char *err, size_t cap);

/* Why libxml2 could not be loaded, or NULL when it was loaded or not yet
 * needed. */
const char *etl_library_xml_error(void);

/* Releases what the library keeps for the whole process (libxml2's tables);
 * call once, after the last run. */
void etl_library_end(void);

/* ---- views that read no trace --------------------------------------------------- */

/* Checks a --groupmask list; 0, or -1 with the reason in err. */
int etl_groupmask_check(const char *list, char *err, size_t cap);
/* Prints the group mask of a list (one row per mask); 0, or -1 after a
 * write error (the list must have passed etl_groupmask_check). */
int etl_run_groupmask(struct etl_printer *p, const char *list);

/* Checks the layout options of --logger-context; 0, or -1 with the reason
 * in err. */
int etl_logger_context_check(const char *windows, const char *arch, char *err, size_t cap);
/* Decodes and prints the WMI_LOGGER_CONTEXT at spec "FILE[@OFFSET]" in the
 * layout of Windows version `windows` (6.1, 6.2, 6.3, 10.0) and `arch` (x86,
 * x64). Returns 0; -1 after a write error; -2 when the input cannot be read
 * or is too short, with the message ("FILE: offset 0x...: what") in err;
 * -3 when out of memory. */
int etl_run_logger_context(struct etl_printer *p, const char *spec, const char *windows,
                           const char *arch, char *err, size_t cap);
/* The FILE of a --logger-context spec "FILE[@OFFSET]", as
 * etl_run_logger_context reads it (malloc'd, the caller frees); NULL when
 * out of memory. */
char *etl_logger_context_file(const char *spec);

#endif
