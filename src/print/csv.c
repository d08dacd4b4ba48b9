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

static int csv_row(struct etl_printer *p, const struct etl_value *vals)
{
    const struct etl_table *t = p->table;
    struct etl_out *o = p->out;
    bool file = etl_print_file_column(p, t);
    if (file && p->file)
        csv_field(o, p->file, strlen(p->file));
    for (size_t i = 0; i < t->ncols; i++) {
        /* Room for a separator and any non-string cell. */
        char *dst = etl_out_space(o, 64);
        if (!dst)
            return -1;
        size_t n = 0;
        if (i || file)
            dst[n++] = ',';
        if (vals[i].set) {
            const struct etl_column *c = &t->cols[i];
            if (c->type == ETL_COL_STR) {
                etl_out_advance(o, n);
                csv_field(o, vals[i].v.s, strlen(vals[i].v.s));
                continue;
            }
            if (c->type == ETL_COL_FIELDS) {
                /* The JSON object as one quoted field. */
                etl_out_advance(o, n);
                etl_fields_json_csv(vals[i].v.p, o);
                continue;
            }
            if (c->type == ETL_COL_NAME) {
                /* etldump's own names: never a comma, quote or line end. */
                etl_out_advance(o, n);
                etl_out_puts(o, vals[i].v.s);
                continue;
            }
            bool num;
            n += etl_format_scalar(p, c, &vals[i], dst + n, &num);
        }
        etl_out_advance(o, n);
    }
    csv_eol(p);
    return etl_print_status(p);
}

const struct etl_printer_ops etl_print_csv = {
    .name = "csv",
    .one_table = true,
    .begin_table = csv_begin_table,
    .row = csv_row,
};
