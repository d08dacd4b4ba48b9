/*
 * text.c - the view for people: a header block describing the trace, then
 * aligned columns with names, relative times with microsecond digits. Bytes
 * from the file never reach the terminal raw: control characters and invalid
 * UTF-8 are shown as escapes (text_string alone does this).
 */
#include "print/printer.h"

#include <stdio.h>

/* Returns the length of the valid UTF-8 sequence at s[0..n), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    unsigned cp = c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
        return 0;
    if (cp >= 0x80 && cp < 0xA0)
        return 0; /* C1 controls are escaped like C0 ones */
    return len;
}

/* Writes s with control bytes and invalid UTF-8 as \xNN escapes; returns the
 * number of terminal columns used, roughly. */
static size_t text_string(struct etl_out *o, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = strlen(str), cols = 0;
    for (size_t i = 0; i < n;) {
        size_t k = s[i] >= 0x20 && s[i] != 0x7F ? utf8_seq(s + i, n - i) : 0;
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

static int text_status(struct etl_printer *p)
{
    return p->out->err ? -1 : 0;
}

static int text_begin_file(struct etl_printer *p, const char *path,
                           const struct etl_file *f)
{
    (void)path;
    (void)f;
    if (p->header_done)
        etl_out_putc(p->out, '\n'); /* a blank line between files */
    p->header_done = true;
    return text_status(p);
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
        return text_status(p);
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
    return text_status(p);
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
    return text_status(p);
}

static int text_end_table(struct etl_printer *p)
{
    if (p->table && p->table->vertical)
        etl_out_putc(p->out, '\n');
    return text_status(p);
}

static int text_problem(struct etl_printer *p, uint64_t offset, const char *msg)
{
    (void)offset;
    (void)msg;
    return text_status(p);
}

static int text_end_file(struct etl_printer *p)
{
    return text_status(p);
}

static int text_finish(struct etl_printer *p)
{
    return etl_out_flush(p->out);
}

const struct etl_printer_ops etl_print_text = {
    .name = "text",
    .wants_info = true,
    .begin_file = text_begin_file,
    .begin_table = text_begin_table,
    .row = text_row,
    .end_table = text_end_table,
    .problem = text_problem,
    .end_file = text_end_file,
    .finish = text_finish,
};
