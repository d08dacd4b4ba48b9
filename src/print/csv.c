/*
 * csv.c - RFC 4180 output: one header row per output (none with
 * --no-header), the same columns on every row, UTF-8. Lines end in LF, the
 * convention of the tools that read CSV in pipelines (awk, cut, sort,
 * sqlite3, DuckDB); --crlf gives RFC 4180's CRLF. Quoting lives in csv_field
 * alone.
 */
#include "print/printer.h"

#include "fields.h"
#include "fmt.h"

/* Writes one field, quoted when it holds a comma, quote, CR or LF, or starts
 * or ends with a space; quotes are doubled and bytes that are not valid UTF-8
 * become U+FFFD. */
static void csv_field(struct etl_out *o, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    bool quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
    if (quote)
        etl_out_putc(o, '"');
    size_t start = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '"') {
            etl_out_write(o, s + start, i + 1 - start);
            start = i++; /* the quote is written again: doubled */
        } else if (s[i] >= 0x80) {
            unsigned cp;
            size_t len = etl_utf8_decode(s + i, &cp);
            if (len) {
                i += len;
            } else {
                etl_out_write(o, s + start, i - start);
                etl_out_write(o, "\xef\xbf\xbd", 3);
                start = ++i;
            }
        } else {
            i++;
        }
    }
    etl_out_write(o, s + start, n - start);
    if (quote)
        etl_out_putc(o, '"');
}

/* Ends a record. */
static void csv_eol(struct etl_printer *p)
{
    if (p->opt.crlf)
        etl_out_write(p->out, "\r\n", 2);
    else
        etl_out_putc(p->out, '\n');
}

static int csv_begin_table(struct etl_printer *p, const struct etl_table *t)
{
    /* One header row per output: later files continue the same table. */
    if (p->header_done && p->table == t)
        return etl_print_status(p);
    p->table = t;
    p->header_done = true;
    if (p->opt.no_header)
        return etl_print_status(p);
    bool file = etl_print_file_column(p, t);
    if (file)
        etl_out_puts(p->out, "file");
    for (size_t i = 0; i < t->ncols; i++) {
        if (i || file)
            etl_out_putc(p->out, ',');
        csv_field(p->out, t->cols[i].name, strlen(t->cols[i].name));
    }
    csv_eol(p);
    return etl_print_status(p);
}

/* Bytes a cell other than a long string takes at most, separator included. */
#define CELL_MAX 50

/* Bytes that send a string from the file to csv_field: those that need
 * quoting and every byte of a multi-byte sequence (checked there). */
static const bool csv_special[256] = {
    [','] = true, ['"'] = true, ['\r'] = true, ['\n'] = true, ETL_BYTES_UTF8,
};

/* Copies string s[0..n) to q when it needs no quoting and no replacement
 * (n < CELL_MAX); returns the bytes written, or 0 when csv_field must write
 * it (an empty string writes nothing either way). */
ETL_INLINE size_t csv_plain(char *q, const char *s, size_t n, bool from_file)
{
    if (n >= CELL_MAX)
        return 0;
    if (from_file) {
        if (n && (s[0] == ' ' || s[n - 1] == ' '))
            return 0;
        for (size_t i = 0; i < n; i++)
            if (csv_special[(unsigned char)s[i]])
                return 0;
    }
    etl_copy_small(q, s, n);
    return n;
}

/* Writes the value of cell v of column c at q (its separator is written
 * already); returns where it ends, or NULL when csv_field must write it. */
ETL_INLINE char *csv_value(struct etl_printer *p, const struct etl_column *c,
                              const struct etl_value *v, char *q)
{
    switch (c->type) {
    case ETL_COL_UINT:
        return q + etl_fmt_u64_memo(v->v.u, q, &p->memo_int);
    case ETL_COL_INT:
        return q + etl_fmt_i64_memo(v->v.i, q, &p->memo_int);
    case ETL_COL_DURATION:
        return q + etl_fmt_seconds9(v->v.i, q);
    case ETL_COL_HEX16:
        return q + etl_fmt_hex16(v->v.u, q);
    case ETL_COL_TIME:
        if (p->time_mode == ETL_TIME_REL)
            return q + etl_fmt_seconds9_memo(etl_clock_ns(&p->clock, v->v.i), q, &p->memo_secs);
        break;
    case ETL_COL_STR:
    case ETL_COL_NAME: {
        size_t n = etl_cell_len(v), k = csv_plain(q, v->v.str, n, c->type == ETL_COL_STR);
        return k == 0 && n > 0 ? NULL : q + k;
    }
    case ETL_COL_FIELDS:
        return NULL;
    default:
        break;
    }
    bool num;
    return q + etl_format_scalar(p, c, v, q, &num);
}

/* Writes n commas at q, which has room for 16 more bytes than that;
 * returns where they end. */
ETL_INLINE char *csv_commas(char *q, size_t n)
{
    static const char commas[17] = ",,,,,,,,,,,,,,,,";
    if (n <= 16)
        memcpy(q, commas, 16);
    else
        memset(q, ',', n);
    return q + n;
}

/* The row: from each carried cell to the next, the empty cells between as
 * a run of commas, the usual cells into one reservation of the output (at
 * most CELL_MAX bytes each), the others (strings to quote, fields) through
 * csv_field after it. */
static int csv_row_set(struct etl_printer *p, const struct etl_value *vals, const uint64_t *set)
{
    const struct etl_table *t = p->table;
    struct etl_out *o = p->out;
    const size_t file = etl_print_file_column(p, t);
    if (file && p->file)
        csv_field(o, p->file, strlen(p->file));
    /* Copies of what the loop reads: stores through q may alias them. */
    const size_t ncols = t->ncols;
    const struct etl_column *const cols = t->cols;
    const size_t room = (ncols + 1) * CELL_MAX + 32;
    char *d = etl_out_space(o, room), *q = d;
    if (!d)
        return -1;
    size_t w = 0; /* commas written: column i has i + file before it */
    for (size_t base = 0; base < ncols; base += 64) {
        uint64_t m = etl_set_word(set, base, ncols);
        while (m) {
            size_t i = base + etl_ctz64(m);
            m &= m - 1;
            q = csv_commas(q, i + file - w);
            w = i + file;
            char *e = csv_value(p, &cols[i], &vals[i], q);
            if (e) {
                q = e;
                continue;
            }
            etl_out_advance(o, (size_t)(q - d));
            if (cols[i].type == ETL_COL_FIELDS)
                etl_fields_json_csv(vals[i].v.p, o); /* the JSON object as one quoted field */
            else
                csv_field(o, vals[i].v.str, etl_cell_len(&vals[i]));
            if (!(d = q = etl_out_space(o, room)))
                return -1;
        }
    }
    if (ncols + file > w + 1) /* the empty cells at the end */
        q = csv_commas(q, ncols + file - 1 - w);
    etl_out_advance(o, (size_t)(q - d));
    csv_eol(p);
    return etl_print_status(p);
}


const struct etl_printer_ops etl_print_csv = {
    .name = "csv",
    .one_table = true,
    .begin_table = csv_begin_table,
    .row_set = csv_row_set,
};
