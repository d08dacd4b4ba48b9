/*
 * printer.h - pluggable printers. Views hand typed rows to a printer; the
 * printer owns all formatting, quoting and escaping. Every call returns 0 on
 * success or -1 after a write error (the output's errno is kept).
 */
#ifndef ETLDUMP_PRINTER_H
#define ETLDUMP_PRINTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"
#include "print/out.h"

/* How a column's value is typed and shown. */
enum etl_col_type {
    ETL_COL_UINT,   /* u: decimal */
    ETL_COL_INT,    /* i: signed decimal */
    ETL_COL_HEX16,  /* u: 0x%04x */
    ETL_COL_HEX32,  /* u: 0x%08x */
    ETL_COL_HEX64,  /* u: 0x%016llx */
    ETL_COL_NAME,   /* s: a name from etldump's own tables (ASCII) */
    ETL_COL_STR,    /* s: UTF-8 text taken from the file */
    ETL_COL_GUID,   /* g: 16 bytes in file order */
    ETL_COL_TIME,   /* i: raw clock value, shown per --time */
    ETL_COL_FILETIME, /* i: a FILETIME, shown as ISO 8601 UTC */
    ETL_COL_DURATION, /* i: nanoseconds, shown as seconds whatever --time says */
};

struct etl_column {
    const char *name;      /* CSV header, JSON key, XML attribute */
    enum etl_col_type type;
    int width;             /* text view: column width (negative: left-aligned) */
    bool text_hidden;      /* left out of the text view */
};

/* A table: its rows share one column set. */
struct etl_table {
    const char *name;      /* XML element name of a row, e.g. "switch" */
    const struct etl_column *cols;
    size_t ncols;
    bool vertical;         /* text view: one "name: value" line per cell */
};

/* One cell of a row; `set` false means the record does not carry it. */
struct etl_value {
    union {
        uint64_t u;
        int64_t i;
        const char *s;
        const uint8_t *g;
    } v;
    bool set;
};

/* How --time shows ETL_COL_TIME values. */
enum etl_time_mode { ETL_TIME_REL, ETL_TIME_RAW, ETL_TIME_ABS };

/* What converting clock values needs (spec section 5). */
struct etl_clock {
    int64_t t0;            /* clock value at the start of the trace */
    int64_t freq;          /* clock ticks per second */
    int64_t start_filetime;/* FILETIME at t0 */
    int64_t ns_per_tick;   /* when a tick is a whole number of ns, else 0 */
    bool valid;
};

/* Derives the clock conversion from a logfile header. */
void etl_clock_from_header(struct etl_clock *c, const struct etl_logfile *h);

/* Converts a clock value to nanoseconds since t0. */
int64_t etl_clock_ns(const struct etl_clock *c, int64_t ts);

/* Writes a FILETIME as ISO 8601 UTC with 7 fractional digits into out
 * (at least 32 bytes); returns its length. */
size_t etl_filetime_iso(int64_t ft, char *out);

struct etl_printer;

struct etl_printer_ops {
    const char *name;
    bool wants_info;       /* show the trace-info table before every view */
    bool one_table;        /* one table per output (CSV): secondary tables are left out */
    /* A file starts, before it is opened (f is NULL then; problems found
     * while opening it follow). */
    int (*begin_file)(struct etl_printer *p, const char *path,
                      const struct etl_file *f);
    int (*begin_table)(struct etl_printer *p, const struct etl_table *t);
    int (*row)(struct etl_printer *p, const struct etl_value *vals);
    int (*end_table)(struct etl_printer *p);
    /* A problem in the input, at a file offset. */
    int (*problem)(struct etl_printer *p, uint64_t offset, const char *msg);
    int (*end_file)(struct etl_printer *p);
    /* All files are done: close the document and flush. */
    int (*finish)(struct etl_printer *p);
    void (*destroy)(struct etl_printer *p);
};

struct etl_printer {
    const struct etl_printer_ops *ops;
    struct etl_out *out;
    enum etl_time_mode time_mode;
    struct etl_clock clock;    /* of the current file */
    const struct etl_table *table;
    bool header_done;          /* CSV: the header row has been written */
    void *priv;
};

/* Creates the printer called name ("text", "csv", "xml", "json"); NULL if the
 * name is unknown or memory ran out. */
struct etl_printer *etl_printer_new(const char *name, struct etl_out *out,
                                    enum etl_time_mode time_mode);

/* Frees a printer. */
void etl_printer_free(struct etl_printer *p);

/* Formats a time cell per the printer's time mode into buf (at least 40
 * bytes); returns its length. Sets *is_number to false for ISO strings. */
size_t etl_format_time(const struct etl_printer *p, int64_t ts, char *buf,
                       bool *is_number);

/* Formats a non-string cell (numbers, hex, GUID, times) into buf (at least
 * 48 bytes); returns its length. */
size_t etl_format_scalar(const struct etl_printer *p, const struct etl_column *c,
                         const struct etl_value *v, char *buf, bool *is_number);

/* Returns the length of the valid UTF-8 sequence at s (NUL-terminated) and
 * its code point in *cp, or 0 if s does not start one (overlong forms,
 * surrogates and values past U+10FFFF are not valid). */
size_t etl_utf8_decode(const unsigned char *s, unsigned *cp);

extern const struct etl_printer_ops etl_print_text, etl_print_csv,
    etl_print_xml, etl_print_json;

#endif
