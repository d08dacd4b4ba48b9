/*
 * text.c - the view for people: a header block describing the trace, then
 * aligned columns with names, relative times with microsecond digits. Bytes
 * from the file never reach the terminal raw: control characters and invalid
 * UTF-8 are shown as escapes (text_string alone does this).
 */
#include "print/printer.h"

#include <stdio.h>

#include "fields.h"
#include "fmt.h"

/* Returns the length of the printable UTF-8 character at s, or 0 for
 * control characters (C0, DEL, C1) and bytes that are not valid UTF-8. */
static size_t printable(const unsigned char *s)
{
    if (s[0] < 0x20 || s[0] == 0x7F)
        return 0;
    unsigned cp;
    size_t len = etl_utf8_decode(s, &cp);
    return cp >= 0x80 && cp < 0xA0 ? 0 : len;
}

/* Writes s with control bytes and invalid UTF-8 as \xNN escapes; returns the
 * number of terminal columns used, roughly. */
static size_t text_string(struct etl_out *o, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = strlen(str), cols = 0;
    for (size_t i = 0; i < n;) {
        size_t k = printable(s + i);
        if (k) {
            etl_out_write(o, s + i, k);
            cols++;
            i += k;
        } else {
            char esc[5];
            snprintf(esc, sizeof esc, "\\x%02x", s[i]);
            etl_out_write(o, esc, 4);
            cols += 4;
            i++;
        }
    }
    return cols;
}

/* Writes n spaces. */
static void pad(struct etl_out *o, size_t n)
{
    static const char sp[] = "                                ";
    while (n > 0) {
        size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;
        etl_out_write(o, sp, k);
        n -= k;
    }
}

static int text_begin_file(struct etl_printer *p, const char *path)
{
    (void)path;
    if (p->header_done)
        etl_out_putc(p->out, '\n'); /* a blank line between files */
    p->header_done = true;
    return etl_print_status(p);
}

/* Writes a cell of width w (negative: left-aligned); the first cell of a row
 * has no leading space and the last no trailing one. */
static void text_cell(struct etl_out *o, const char *s, size_t n, int w, bool first,
                      bool last, bool from_file)
{
    if (!first)
        etl_out_putc(o, ' ');
    size_t aw = (size_t)(w < 0 ? -w : w);
    if (w > 0 && n < aw)
        pad(o, aw - n);
    size_t used = from_file ? text_string(o, s) : (etl_out_write(o, s, n), n);
    if (w < 0 && used < aw && !last)
        pad(o, aw - used);
}

/* Returns the index of the last column shown in the text view. */
static size_t last_shown(const struct etl_table *t)
{
    size_t last = 0;
    for (size_t i = 0; i < t->ncols; i++)
        if (!t->cols[i].text_hidden)
            last = i;
    return last;
}

static int text_begin_table(struct etl_printer *p, const struct etl_table *t)
{
    p->table = t;
    if (t->vertical)
        return etl_print_status(p);
    bool first = true;
    size_t last = last_shown(t);
    for (size_t i = 0; i < t->ncols; i++) {
        if (t->cols[i].text_hidden)
            continue;
        text_cell(p->out, t->cols[i].name, strlen(t->cols[i].name),
                  t->cols[i].width, first, i == last, false);
        first = false;
    }
    etl_out_putc(p->out, '\n');
    return etl_print_status(p);
}

static int text_row(struct etl_printer *p, const struct etl_value *vals)
{
    const struct etl_table *t = p->table;
    char buf[64];
    bool first = true;
    size_t last = last_shown(t);
    for (size_t i = 0; i < t->ncols; i++) {
        const struct etl_column *c = &t->cols[i];
        if (c->text_hidden)
            continue;
        if (c->type == ETL_COL_FIELDS && !t->vertical) {
            /* name=value pairs, not padded (the last column). */
            const struct etl_fields *fl = vals[i].set ? vals[i].v.p : NULL;
            if (!first)
                etl_out_putc(p->out, ' ');
            first = false;
            if (fl && fl->n)
                etl_fields_text(fl, p->out);
            else
                etl_out_putc(p->out, '-');
            continue;
        }
        const char *s = "-";
        size_t n = 1;
        bool from_file = false;
        if (vals[i].set) {
            if (c->type == ETL_COL_STR || c->type == ETL_COL_NAME) {
                s = vals[i].v.s;
                n = strlen(s);
                from_file = c->type == ETL_COL_STR;
            } else {
                bool num;
                n = etl_format_scalar(p, c, &vals[i], buf, &num);
                s = buf;
            }
        }
        if (t->vertical) {
            if (!vals[i].set)
                continue;
            etl_out_puts(p->out, c->name);
            etl_out_puts(p->out, ": ");
            if (from_file)
                text_string(p->out, s);
            else
                etl_out_write(p->out, s, n);
            etl_out_putc(p->out, '\n');
        } else {
            text_cell(p->out, s, n, c->width, first, i == last, from_file);
            first = false;
        }
    }
    if (!t->vertical)
        etl_out_putc(p->out, '\n');
    return etl_print_status(p);
}

static int text_end_table(struct etl_printer *p)
{
    if (p->table && p->table->vertical)
        etl_out_putc(p->out, '\n');
    return etl_print_status(p);
}

const struct etl_printer_ops etl_print_text = {
    .name = "text",
    .wants_info = true,
    .time_decimals = 6, /* read by people: microseconds */
    .begin_file = text_begin_file,
    .begin_table = text_begin_table,
    .row = text_row,
    .end_table = text_end_table,
};
