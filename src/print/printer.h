/*
 * printer.h - pluggable table printers. Views hand typed rows to a printer;
 * the printer owns all formatting, quoting and escaping. Printers know
 * nothing of ETL: a table, its columns, typed cells, a clock to show times
 * by. Every call returns 0 on success or -1 after a write error (the
 * output's errno is kept).
 *
 * A new table format is one file defining a `struct etl_printer_ops` (only
 * `name`, and `row` or `row_set`, are required: every other operation has a
 * default) and one line in the registry in printer.c.
 */
#ifndef ETLDUMP_PRINTER_H
#define ETLDUMP_PRINTER_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clock.h"
#include "etldump.h"
#include "fmt.h"
#include "inline.h"
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
    ETL_COL_PERCENT,  /* i: hundredths, shown with two decimals ("12.50") */
    ETL_COL_FIELDS, /* p: a const struct etl_fields (fields.h), decoded payload
                     * fields: a JSON object (JSON; CSV as its text), a data
                     * element per field (XML), name=value pairs (text, last) */
};

struct etl_column {
    const char *name;      /* CSV header, JSON key, XML attribute */
    enum etl_col_type type;
    int width;             /* text view: column width (negative: left-aligned) */
    bool text_hidden;      /* left out of the text view */
};

/* Most columns a table has (etl_print_begin_table refuses more). */
#define ETL_MAX_COLS 256

struct etl_printer;
struct etl_value;

/* A table: its rows share one column set. */
struct etl_table {
    const char *name;      /* XML element name of a row, e.g. "switch" */
    const struct etl_column *cols;
    size_t ncols;
    bool vertical;         /* text view: one "name: value" line per cell */
    /* The CSV printer's writer of this table's rows, made for its columns
     * by ETL_CSV_ROW_WRITER (print/csvrow.h), or NULL for the printer's own
     * loop: the row whose carried cells are the bits of set, after the
     * file column when file is 1 (written already). */
    int (*csv_row)(struct etl_printer *p, const struct etl_value *vals, uint64_t set,
                   size_t file);
};

/* One cell of a row; `set` false means the record does not carry it. */
struct etl_value {
    union {
        uint64_t u;
        int64_t i;
        const char *str;       /* NUL-terminated; see len */
        const uint8_t *g;
        const void *p;
    } v;
    uint32_t len;              /* str: its length, or 0 to have it measured; with
                                * ETL_CELL_PLAIN added when it needs no quoting */
    bool set;
};

/* Fills cell i of a row: the member of the value union it holds and whether
 * the record carries it (a string so given is measured by the printer). */
#define ETL_CELL(row, i, member, val, has) \
    ((row)[i].v.member = (val), (row)[i].len = 0, (row)[i].set = (has))

/* Fills string cell i of a row: the string, and its length n when known
 * (0: the printer measures it). */
#define ETL_CELL_STRN(row, i, val, n, has) \
    ((row)[i].v.str = (val), (row)[i].len = (uint32_t)(n), (row)[i].set = (has))
#define ETL_CELL_STR(row, i, val, has) ETL_CELL_STRN(row, i, val, 0, has)

/* Added to a string cell's len (its length or 0) by a view that knows the
 * string to be one of etldump's own names, ASCII letters, digits and '/',
 * '_', '-', '.': a printer may copy it without looking for bytes to quote or
 * escape. Lengths of strings are below it. */
#define ETL_CELL_PLAIN 0x80000000u

/* Returns the length of string cell v. */
static inline size_t etl_cell_len(const struct etl_value *v)
{
    uint32_t n = v->len & ~ETL_CELL_PLAIN;
    return n ? n : strlen(v->v.str);
}

/* Initializers of a bool table indexed by byte, for the bytes a printer's
 * fast path leaves to its careful one: the sixteen from b on, and every
 * byte of a multi-byte UTF-8 sequence (0x80-0xFF). */
#define ETL_BYTES16(b) [b] = true, [b + 1] = true, [b + 2] = true, [b + 3] = true, \
    [b + 4] = true, [b + 5] = true, [b + 6] = true, [b + 7] = true, [b + 8] = true, \
    [b + 9] = true, [b + 10] = true, [b + 11] = true, [b + 12] = true, [b + 13] = true, \
    [b + 14] = true, [b + 15] = true
#define ETL_BYTES_UTF8 ETL_BYTES16(0x80), ETL_BYTES16(0x90), ETL_BYTES16(0xA0), \
    ETL_BYTES16(0xB0), ETL_BYTES16(0xC0), ETL_BYTES16(0xD0), ETL_BYTES16(0xE0), \
    ETL_BYTES16(0xF0)

#if defined(__SSE2__)
/* The bytes of s[0..n), 4 <= n <= 16, in one vector, for a test of every
 * byte at once: each byte at least once (the two halves overlap when n is
 * not 8 or 16) and none read from outside the string. */
ETL_INLINE __m128i etl_bytes_upto16(const char *s, size_t n)
{
    if (n >= 8)
        return _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)s),
                                  _mm_loadl_epi64((const __m128i *)(const void *)(s + n - 8)));
    uint32_t a, b;
    memcpy(&a, s, 4);
    memcpy(&b, s + n - 4, 4);
    __m128i x = _mm_unpacklo_epi32(_mm_cvtsi32_si128((int)a), _mm_cvtsi32_si128((int)b));
    return _mm_unpacklo_epi64(x, x);
}

/* The bytes of s[0..n), 4 <= n, that marks sets to 0xFF in a vector of
 * sixteen (a printer's bytes to escape or quote), OR-ed into one vector: up
 * to sixteen bytes in one piece (etl_bytes_upto16), more sixteen at a time,
 * the last sixteen overlapping. marks is a constant where this is inlined:
 * its code is inlined too. */
ETL_INLINE __m128i etl_marks16(const char *s, size_t n, __m128i (*marks)(__m128i))
{
    if (n <= 16)
        return marks(etl_bytes_upto16(s, n));
    __m128i m = marks(_mm_loadu_si128((const __m128i *)(const void *)(s + n - 16)));
    for (size_t i = 0; i + 16 < n; i += 16)
        m = _mm_or_si128(m, marks(_mm_loadu_si128((const __m128i *)(const void *)(s + i))));
    return m;
}
#endif

struct etl_printer;
struct etl_file;

struct etl_printer_ops {
    const char *name;
    bool wants_info;       /* show the trace-info table before every view */
    bool one_table;        /* one table per output (CSV): secondary tables are left out */
    int time_decimals;     /* digits of relative times and durations (0: 9) */
    /* A file starts, before it is opened (problems found while opening it
     * follow). */
    int (*begin_file)(struct etl_printer *p, const char *path);
    /* One line saying what the file is, before its rows (text only). */
    int (*describe)(struct etl_printer *p, const char *line);
    int (*begin_table)(struct etl_printer *p, const struct etl_table *t);
    int (*row)(struct etl_printer *p, const struct etl_value *vals);
    /* The same row with the cells it carries given by the bits of set
     * (etl_print_row_set), their `set` flags unread. A printer may have
     * this one alone: a row by flags is then turned into bits for it. */
    int (*row_set)(struct etl_printer *p, const struct etl_value *vals, const uint64_t *set);
    int (*end_table)(struct etl_printer *p);
    /* A problem in the input, at a file offset. */
    int (*problem)(struct etl_printer *p, uint64_t offset, const char *msg);
    int (*end_file)(struct etl_printer *p);
    /* All files are done: close the document and flush. */
    int (*finish)(struct etl_printer *p);
    void (*destroy)(struct etl_printer *p);
    /* Writes rows formatted by a fork of this printer (etl_printer_fork),
     * as the rows themselves would have been written; by default they are
     * appended to the output. */
    int (*raw)(struct etl_printer *p, const char *bytes, size_t n);
    /* An output that is not a table (src/export/): it reads the file itself
     * and writes its own bytes, in place of the view. 0, or -1 after a
     * write error. */
    int (*export)(struct etl_printer *p, struct etl_file *f,
                  const struct etl_view_opts *o);
};

struct etl_printer {
    const struct etl_printer_ops *ops;
    struct etl_out *out;
    enum etl_time_mode time_mode;
    struct etl_print_opts opt;
    struct etl_clock clock;    /* of the current file */
    struct etl_time_zone tz;   /* of the machine that recorded it (--time=local) */
    struct etl_tz_year tz_year; /* its changes in the year the trace started */
    const char *file;          /* the current input's name (for the file column) */
    size_t file_len;           /* its length */
    bool file_csv_plain;       /* it needs no CSV quoting nor replacement */
    bool file_json_plain;      /* nor JSON escapes */
    bool file_text_plain;      /* it is printable ASCII: text shows it as it is */
    const struct etl_table *table;
    bool header_done;          /* CSV: the header row has been written; text:
                                * a file's output has begun */
    bool blank_due;            /* text: a blank line before the next line */
    bool fork;                 /* a fork: rows only, into a memory output */
    void *priv;
    /* Leading digits of the last large integer and of the last relative
     * time written (fmt.h): rows of one table repeat them. */
    struct etl_fmt_memo memo_int, memo_secs;
};

/* Returns a copy of p that formats rows of p's current table, as p would,
 * into out (a memory output) and does nothing else: a thread formats rows
 * ahead with it, and p writes them with etl_print_raw. NULL when out of
 * memory. Free it with etl_printer_free. */
struct etl_printer *etl_printer_fork(const struct etl_printer *p, struct etl_out *out);

/* Writes bytes a fork of p formatted, in the place of its rows. */
int etl_print_raw(struct etl_printer *p, const char *bytes, size_t n);

/* Returns true if rows of table t get a leading `file` column from the
 * printer (with_filename, and the table has no `file` column first). */
static inline bool etl_print_file_column(const struct etl_printer *p,
                                         const struct etl_table *t)
{
    return p->opt.with_filename && !(t->ncols > 0 && strcmp(t->cols[0].name, "file") == 0);
}

/* Formats a time cell per the printer's time mode into buf (at least 40
 * bytes); returns its length. Sets *is_number to false for ISO strings. */
size_t etl_format_time(const struct etl_printer *p, int64_t ts, char *buf,
                       bool *is_number);

/* Formats a non-string cell (numbers, hex, GUID, times) into buf (at least
 * 48 bytes); returns its length. */
size_t etl_format_scalar(const struct etl_printer *p, const struct etl_column *c,
                         const struct etl_value *v, char *buf, bool *is_number);

/* Formats ns as seconds with the printer's decimals (etl_fmt_seconds),
 * inline for nine and six. */
ETL_INLINE size_t etl_format_seconds_fast(struct etl_printer *p, int64_t ns, char *buf)
{
    int d = p->ops->time_decimals;
    if (d == 0 || d == 9)
        return etl_fmt_seconds9(ns, buf);
    if (d == 6)
        return etl_fmt_seconds6(ns, buf);
    return etl_fmt_seconds(ns, d, buf);
}

/* etl_format_scalar, inline for the cells most rows are made of: integers,
 * durations, relative times and HookIds. */
ETL_INLINE size_t etl_format_fast(struct etl_printer *p, const struct etl_column *c,
                                  const struct etl_value *v, char *buf, bool *is_number)
{
    switch (c->type) {
    case ETL_COL_UINT:
        *is_number = true;
        return etl_fmt_u64_memo(v->v.u, buf, &p->memo_int);
    case ETL_COL_INT:
        *is_number = true;
        return etl_fmt_i64_memo(v->v.i, buf, &p->memo_int);
    case ETL_COL_DURATION:
        *is_number = true;
        return etl_format_seconds_fast(p, v->v.i, buf);
    case ETL_COL_HEX16:
        *is_number = false;
        return etl_fmt_hex16(v->v.u, buf);
    case ETL_COL_TIME: {
        if (p->time_mode != ETL_TIME_REL)
            break;
        *is_number = true;
        int64_t ns = etl_clock_ns(&p->clock, v->v.i);
        int d = p->ops->time_decimals;
        return d == 0 || d == 9 ? etl_fmt_seconds9_memo(ns, buf, &p->memo_secs)
                                : etl_format_seconds_fast(p, ns, buf);
    }
    default:
        break;
    }
    return etl_format_scalar(p, c, v, buf, is_number);
}

/* The operations every view calls; each uses the printer's own operation,
 * or the default when it has none. */
int etl_print_begin_file(struct etl_printer *p, const char *path);
int etl_print_begin_table(struct etl_printer *p, const struct etl_table *t);
int etl_print_end_table(struct etl_printer *p);
int etl_print_problem(struct etl_printer *p, uint64_t offset, const char *msg);
int etl_print_end_file(struct etl_printer *p);
int etl_print_describe(struct etl_printer *p, const char *line);

/* Prints one row of the current table: through the printer's row, or its
 * row_set with the cells' flags turned into bits. */
int etl_print_row_by_set(struct etl_printer *p, const struct etl_value *vals);
static inline int etl_print_row(struct etl_printer *p, const struct etl_value *vals)
{
    return p->ops->row ? p->ops->row(p, vals) : etl_print_row_by_set(p, vals);
}

/* Most columns of a table that etl_print_row_set takes (one word of bits). */
#define ETL_SET_COLS 64

/* Prints one row of the current table (of at most ETL_SET_COLS columns)
 * whose carried cells are the bits of set (bit i: column i; no bit past the
 * last column), not their `set` flags: a view that knows which cells a row
 * carries from a few flags of its record gives them at once, and the
 * printer goes from one carried cell to the next. */
int etl_print_row_set_slow(struct etl_printer *p, const struct etl_value *vals, uint64_t set);
static inline int etl_print_row_set(struct etl_printer *p, const struct etl_value *vals,
                                    uint64_t set)
{
    if (p->ops->row_set)
        return p->ops->row_set(p, vals, &set);
    return etl_print_row_set_slow(p, vals, set);
}

/* The bit of column c in a row's set. */
#define ETL_SET_BIT(c) ((uint64_t)1 << (c))

/* The word of set that holds columns base .. base + 63 (base a multiple of
 * 64), without the bits of columns from n on. */
static inline uint64_t etl_set_word(const uint64_t *set, size_t base, size_t n)
{
    uint64_t m = set[base / 64];
    return n - base < 64 ? m & (((uint64_t)1 << (n - base)) - 1) : m;
}


/* Returns 0, or -1 once the output has failed. */
static inline int etl_print_status(const struct etl_printer *p)
{
    return p->out->err ? -1 : 0;
}

/* Marks that memory ran out while writing (out->err is ENOMEM unless the
 * output had already failed) and returns -1. */
static inline int etl_print_nomem(struct etl_printer *p)
{
    if (!p->out->err)
        p->out->err = ENOMEM;
    return -1;
}

extern const struct etl_printer_ops etl_print_text, etl_print_csv,
    etl_print_xml, etl_print_json;
/* The outputs that are not tables (src/export/). */
extern const struct etl_printer_ops etl_export_perfetto, etl_export_svg;

/* Returns true when the rows of table t go to p through t's own CSV writer
 * (etl_table.csv_row) with no file column before them, or one whose name
 * needs no quoting (etl_csv_own_row_begin writes it): a view may then
 * call that writer itself (ETL_CSV_ROW_WRITER makes it inline), and the
 * compiler folds the cells into the view's own code: the values go
 * straight from the record to the output, and a cell every row carries is
 * written without a test. */
static inline bool etl_print_csv_own(const struct etl_printer *p, const struct etl_table *t)
{
    return p->ops == &etl_print_csv && p->table == t &&
           (!p->opt.with_filename || (p->file_csv_plain && etl_print_file_column(p, t)));
}

/* The formats whose tables' own writers views call themselves. A view's
 * render function is compiled once for each (etl_print_own_format says
 * which copy a printer takes), with that format's writer alone: in one
 * function with the three, the code around each writer was compiled with
 * the others in view, and changed as they changed (CSwitch --events=all
 * --no-fields as CSV 1067 instructions an event so, 1062 alone; compact
 * CSV 1383 and 1381 a switch). */
enum etl_own_format { ETL_OWN_NONE, ETL_OWN_CSV, ETL_OWN_JSON, ETL_OWN_XML };

/* The same for the JSON printer and a table's own JSON writer
 * (ETL_JSON_ROW_WRITER, print/jsonrow.h), which writes the file column of
 * a name that needs no escapes. */
static inline bool etl_print_json_own(const struct etl_printer *p, const struct etl_table *t)
{
    return p->ops == &etl_print_json && p->table == t &&
           (!p->opt.with_filename || (p->file_json_plain && etl_print_file_column(p, t)));
}

/* The same for the XML printer and a table's own XML writer
 * (ETL_XML_ROW_WRITER, print/xmlrow.h): XML has no file column (the rows
 * are inside their file's element). */
static inline bool etl_print_xml_own(const struct etl_printer *p, const struct etl_table *t)
{
    return p->ops == &etl_print_xml && p->table == t;
}

/* Returns the format of p whose tables' own writers a view may call, or
 * ETL_OWN_NONE. */
static inline enum etl_own_format etl_print_own_format(const struct etl_printer *p)
{
    return p->ops == &etl_print_csv    ? ETL_OWN_CSV
           : p->ops == &etl_print_json ? ETL_OWN_JSON
           : p->ops == &etl_print_xml  ? ETL_OWN_XML
                                       : ETL_OWN_NONE;
}

#endif
