/*
 * csv.c - RFC 4180 output: one header row per output (none with
 * --no-header), the same columns on every row, UTF-8. Lines end in LF, the
 * convention of the tools that read CSV in pipelines (awk, cut, sort,
 * sqlite3, DuckDB); --crlf gives RFC 4180's CRLF. Quoting lives in
 * etl_csv_field alone; csvrow.h writes the cells.
 */
#include "print/csvrow.h"

bool etl_csv_formula(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    if (n == 0)
        return false;
    if (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' ||
        s[0] == '\r')
        return true;
    /* U+FF0B, U+FF0D, U+FF1D: EF BC 8B, 8D, 9D; U+FF20: EF BC A0. */
    return n >= 3 && s[0] == 0xEF && s[1] == 0xBC &&
           (s[2] == 0x8B || s[2] == 0x8D || s[2] == 0x9D || s[2] == 0xA0);
}

/* One field the careful way (csvrow.h). */
void etl_csv_field(struct etl_out *o, const char *str, size_t n, bool guard)
{
    const unsigned char *s = (const unsigned char *)str;
    bool quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
    if (quote)
        etl_out_putc(o, '"');
    if (guard && etl_csv_formula(str, n))
        etl_out_putc(o, '\'');
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

/* Ends a record (csvrow.h). */
void etl_csv_eol(struct etl_printer *p)
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
        etl_csv_field(p->out, t->cols[i].name, strlen(t->cols[i].name), false);
    }
    etl_csv_eol(p);
    return etl_print_status(p);
}

/* Bytes that send a string from the file to etl_csv_field (csvrow.h). */
const bool etl_csv_special[256] = {
    [','] = true, ['"'] = true, ['\r'] = true, ['\n'] = true, ETL_BYTES_UTF8,
};

const bool etl_csv_lead[256] = {
    [' '] = true, ['='] = true, ['+'] = true, ['-'] = true, ['@'] = true, ['\t'] = true,
    ['\r'] = true, [0xEF] = true,
};

/* The row: by the table's own writer when it has one, else from each
 * carried cell to the next by its column's type (csvrow.h), the empty cells
 * between as a run of commas. */
static int csv_row_set(struct etl_printer *p, const struct etl_value *vals, const uint64_t *set)
{
    const struct etl_table *t = p->table;
    struct etl_out *o = p->out;
    const size_t file = etl_print_file_column(p, t);
    if (file && p->file) {
        if (p->file_csv_plain)
            etl_out_write(o, p->file, p->file_len);
        else
            etl_csv_field(o, p->file, p->file_len, !p->opt.csv_formulas);
    }
    if (t->csv_row)
        return t->csv_row(p, vals, set[0], file);
    /* Copies of what the loop reads: stores through q may alias them. */
    const size_t ncols = t->ncols;
    const struct etl_column *const cols = t->cols;
    struct etl_csv_row r;
    if (!etl_csv_row_begin(p, &r, ncols, file))
        return -1;
    for (size_t base = 0; base < ncols; base += 64) {
        uint64_t m = etl_set_word(set, base, ncols);
        while (m) {
            size_t i = base + etl_ctz64(m);
            m &= m - 1;
            if (!etl_csv_row_cell(p, &r, i, cols[i].type, &vals[i]))
                return -1;
        }
    }
    return etl_csv_row_end(p, &r, ncols);
}


const struct etl_printer_ops etl_print_csv = {
    .name = "csv",
    .one_table = true,
    .begin_table = csv_begin_table,
    .row_set = csv_row_set,
};
