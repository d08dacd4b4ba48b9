/*
 * text.c - the view for people: one comment line naming the trace, then
 * aligned columns with names, relative times with microsecond digits.
 * Strings from the file longer than their column are cut with an ellipsis,
 * so columns stay aligned (other formats never cut anything). Bytes from the
 * file never reach the terminal raw: control characters are shown as \xNN
 * escapes, bytes that are not UTF-8 as U+FFFD (text_string alone does this).
 */
#include "print/printer.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>

#include "fields.h"
#include "fmt.h"

/* How one character of a string from the file is shown: the bytes to
 * write (out, *n of them, or the character itself when *n is 0), the bytes
 * of the input it stands for (returned) and the columns it takes (*cols).
 * Printable UTF-8 stands for itself; bytes that are not valid UTF-8 become
 * U+FFFD, as in every format; control characters (C0, DEL, C1) are shown as
 * \xNN escapes so that the terminal never receives them. */
static size_t show_char(const unsigned char *s, char out[8], size_t *n, size_t *cols)
{
    unsigned cp;
    size_t len = s[0] < 0x80 ? 1 : etl_utf8_decode(s, &cp);
    *cols = 1;
    *n = 0;
    if (len == 0) {
        memcpy(out, "\xEF\xBF\xBD", 3);
        *n = 3;
        return 1;
    }
    if (s[0] < 0x20 || s[0] == 0x7F || (len == 2 && cp >= 0x80 && cp < 0xA0)) {
        snprintf(out, 8, "\\x%02x", len == 1 ? s[0] : cp);
        *n = 4;
        *cols = 4;
    }
    return len;
}

size_t etl_text_width(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t cols = 0;
    char esc[8];
    for (size_t i = 0, n, c; s[i];) {
        i += show_char(s + i, esc, &n, &c);
        cols += c;
    }
    return cols;
}

/* Writes a string from the file as etl_text_width counts it, in at most max
 * columns: a longer one is cut and ends in an ellipsis. Returns the columns
 * used. */
static size_t text_string(struct etl_out *o, const char *str, size_t max)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t plain = 0; /* printable ASCII, one column a byte: the usual case */
    while (s[plain] >= 0x20 && s[plain] < 0x7F)
        plain++;
    if (s[plain] == 0) {
        if (plain <= max || max == 0) { /* 0: as below, no cut */
            etl_out_write(o, s, plain);
            return plain;
        }
        /* Cut as the loop below cuts it, a byte a column (a process's
         * image longer than its column, say: text of 200 k switches among
         * processes whose images run to 47 bytes took 1104 M
         * instructions through the loop, 839 M so). */
        etl_out_write(o, s, max - 1);
        etl_out_write(o, "\xE2\x80\xA6", 3); /* U+2026 */
        return max;
    }
    size_t cut = etl_text_width(str) > max ? max - 1 : SIZE_MAX, cols = 0;
    char esc[8];
    for (size_t i = 0, n, c; s[i];) {
        size_t k = show_char(s + i, esc, &n, &c);
        if (cols + c > cut) {
            etl_out_write(o, "\xE2\x80\xA6", 3); /* U+2026 */
            return cols + 1;
        }
        if (n)
            etl_out_write(o, esc, n);
        else
            etl_out_write(o, s + i, k);
        cols += c;
        i += k;
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

/* A blank line between the outputs of two files goes before the first
 * line of the second, so that a file with no output (one that cannot be
 * read) leaves none. */
static int text_begin_file(struct etl_printer *p, const char *path)
{
    (void)path;
    p->blank_due = p->header_done;
    return etl_print_status(p);
}

/* Called before a file's lines: its blank line, if due. */
static void text_lines_begin(struct etl_printer *p)
{
    if (p->blank_due)
        etl_out_putc(p->out, '\n');
    p->blank_due = false;
    p->header_done = true;
}

/* text_cell's general case: strings from the file, long values. */
static void text_cell_slow(struct etl_out *o, const char *s, size_t n, int w, bool first,
                           bool last, bool from_file)
{
    size_t aw = (size_t)(w < 0 ? -w : w);
    size_t max = w < 0 && !last ? aw : SIZE_MAX;
    if (!first)
        etl_out_putc(o, ' ');
    if (w > 0 && n < aw)
        pad(o, aw - n);
    size_t used;
    if (from_file) {
        used = text_string(o, s, max);
    } else if (n > max) { /* etldump's own names: ASCII */
        etl_out_write(o, s, max - 1);
        etl_out_write(o, "\xE2\x80\xA6", 3);
        used = max;
    } else {
        etl_out_write(o, s, n);
        used = n;
    }
    if (w < 0 && used < aw && !last)
        pad(o, aw - used);
}

/* Writes a cell of width w (negative: left-aligned); the first cell of a row
 * has no leading space and the last no trailing one. A left-aligned string
 * that is not the last cell is cut to its width. */
static inline void text_cell(struct etl_out *o, const char *s, size_t n, int w, bool first,
                             bool last, bool from_file)
{
    size_t aw = (size_t)(w < 0 ? -w : w);
    char *d;
    if (!from_file && aw < 256 && n < 256 && (w >= 0 || last || n <= aw) &&
        (d = etl_out_space(o, 1 + aw + n + 16)) != NULL) {
        /* The usual cell, written in place: a space, padding, the value.
         * Padding goes in 16 spaces at a time, into the 16 bytes reserved
         * past the cell: what lands past it is written over or unused. */
        static const char sp16[16] = "                ";
        size_t k = 0, gap = n < aw ? aw - n : 0;
        if (!first)
            d[k++] = ' ';
        if (w > 0) {
            for (size_t g = 0; g < gap; g += 16)
                memcpy(d + k + g, sp16, 16);
            k += gap;
        }
        memcpy(d + k, s, n);
        k += n;
        if (w < 0 && !last) {
            for (size_t g = 0; g < gap; g += 16)
                memcpy(d + k + g, sp16, 16);
            k += gap;
        }
        etl_out_advance(o, k);
        return;
    }
    text_cell_slow(o, s, n, w, first, last, from_file);
}

/* Returns true if column i is shown in the text view: not hidden, and not
 * a table's own `file` column when the printer shows the file first (in a
 * table of rows; a table of one field a line has no such first column). */
static bool shown(const struct etl_printer *p, const struct etl_table *t, size_t i)
{
    if (p->opt.with_filename && i == 0 && !t->vertical && strcmp(t->cols[0].name, "file") == 0)
        return false;
    return !t->cols[i].text_hidden;
}

/* The width of the file column. */
static int file_width(const struct etl_printer *p)
{
    return -(int)(p->opt.file_width ? p->opt.file_width : 16);
}

/* Returns the index of the last column shown in the text view. */
static size_t last_shown(const struct etl_printer *p, const struct etl_table *t)
{
    for (size_t i = t->ncols; i-- > 0;)
        if (shown(p, t, i))
            return i;
    return 0;
}

static int text_begin_table(struct etl_printer *p, const struct etl_table *t)
{
    text_lines_begin(p);
    p->table = t;
    if (t->vertical || p->opt.no_header)
        return etl_print_status(p);
    bool first = true;
    size_t last = last_shown(p, t);
    if (p->opt.with_filename) {
        text_cell(p->out, "file", 4, file_width(p), true, false, false);
        first = false;
    }
    for (size_t i = 0; i < t->ncols; i++) {
        if (!shown(p, t, i))
            continue;
        text_cell(p->out, t->cols[i].name, strlen(t->cols[i].name),
                  t->cols[i].width, first, i == last, false);
        first = false;
    }
    etl_out_putc(p->out, '\n');
    return etl_print_status(p);
}

static int text_describe(struct etl_printer *p, const char *line)
{
    if (p->opt.no_header)
        return etl_print_status(p);
    text_lines_begin(p);
    etl_out_puts(p->out, "# ");
    text_string(p->out, line, SIZE_MAX);
    etl_out_putc(p->out, '\n');
    return etl_print_status(p);
}

/* The text of a cell of column c: its value v (NULL: not carried, a dash),
 * a number formatted into buf (through etl_format_fast's inline code when
 * fast, a constant: text_row_set's last cell); its length into *n, and
 * whether it is a string from the file (shown through text_string) into
 * *from_file. */
ETL_INLINE const char *cell_text(struct etl_printer *p, const struct etl_column *c,
                                 const struct etl_value *v, char buf[64], size_t *n,
                                 bool *from_file, bool fast)
{
    *from_file = false;
    if (!v) {
        *n = 1;
        return "-";
    }
    if (c->type == ETL_COL_STR || c->type == ETL_COL_NAME) {
        *n = etl_cell_len(v);
        if (*n == 0) { /* an empty cell shows as - */
            *n = 1;
            return "-";
        }
        *from_file = c->type == ETL_COL_STR;
        return v->v.str;
    }
    bool num;
    *n = fast ? etl_format_fast(p, c, v, buf, &num) : etl_format_scalar(p, c, v, buf, &num);
    return buf;
}

/* Writes the cells of row vals from column `from` on, one at a time, and
 * for a horizontal table the newline; first: no cell written before. */
static void text_cells(struct etl_printer *p, const struct etl_value *vals, const uint64_t *set,
                       size_t from, bool first)
{
    const struct etl_table *t = p->table;
    char buf[64];
    size_t last = last_shown(p, t);
    for (size_t i = from; i < t->ncols; i++) {
        const struct etl_column *c = &t->cols[i];
        if (!shown(p, t, i))
            continue;
        if (c->type == ETL_COL_FIELDS && !t->vertical) {
            /* name=value pairs, not padded (the last column). */
            bool carried = (set[i / 64] >> (i % 64) & 1) != 0;
            const struct etl_fields *fl = carried ? vals[i].v.p : NULL;
            if (!first)
                etl_out_putc(p->out, ' ');
            first = false;
            if (fl && fl->n)
                etl_fields_text(fl, p->out);
            else
                etl_out_putc(p->out, '-');
            continue;
        }
        size_t n;
        bool from_file;
        bool carried = (set[i / 64] >> (i % 64) & 1) != 0;
        const char *s = cell_text(p, c, carried ? &vals[i] : NULL, buf, &n, &from_file, false);
        if (t->vertical) {
            if (!carried)
                continue;
            etl_out_puts(p->out, c->name);
            etl_out_puts(p->out, ": ");
            if (from_file)
                text_string(p->out, s, SIZE_MAX);
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
}

/* The row of the current table with no cell set, as text_cells writes it
 * up to its last column, and where each column's cell lies in it: a row
 * whose cells fit their columns is this row with its values written over
 * the dashes (text_row). Built for each table the printer meets, by each
 * printer (a fork builds its own). */
struct blank_row {
    const struct etl_table *t; /* the table it is of; NULL: not built */
    bool usable;               /* false: every row through text_cells */
    char *row;
    size_t len;
    size_t *start, *end;       /* per column: its cell, separator included (0, 0: hidden) */
    size_t last;               /* the last column shown: written after the row */
};

static void blank_free(struct blank_row *b)
{
    free(b->row);
    free(b->start);
    free(b->end);
    memset(b, 0, sizeof *b);
}

/* Builds the blank row of p's current table into b, b->usable false when
 * the table's rows cannot be written that way; false when out of memory. */
static bool blank_build(struct etl_printer *p, struct blank_row *b)
{
    const struct etl_table *t = p->table;
    blank_free(b);
    b->t = t;
    if (t->vertical || p->opt.with_filename || t->ncols == 0)
        return true;
    b->last = last_shown(p, t);
    b->start = calloc(t->ncols, sizeof *b->start);
    b->end = calloc(t->ncols, sizeof *b->end);
    struct etl_out o;
    if (!b->start || !b->end || !etl_out_init_mem(&o, 256))
        return false;
    bool first = true, ok = true;
    for (size_t i = 0; i < b->last && ok; i++) {
        const struct etl_column *c = &t->cols[i];
        if (!shown(p, t, i))
            continue;
        /* Cells of a fixed width only (the last one is written after). */
        ok = c->width != 0 && c->width > -256 && c->width < 256 && c->type != ETL_COL_FIELDS;
        b->start[i] = o.len;
        text_cell(&o, "-", 1, c->width, first, false, false);
        b->end[i] = o.len;
        first = false;
    }
    if (!ok || o.err) {
        etl_out_fini(&o);
        return !o.err;
    }
    b->row = o.buf; /* its own now */
    b->len = o.len;
    b->usable = true;
    return true;
}

static void text_destroy(struct etl_printer *p)
{
    struct blank_row *b = p->priv;
    if (b) {
        blank_free(b);
        free(b);
    }
    p->priv = NULL;
}

#if defined(__SSE2__)
/* The bytes of x that are not printable ASCII, as 0xFF: below 0x20 as
 * signed bytes (control characters, and every byte from 0x80 on) and DEL. */
ETL_INLINE __m128i text_unprintable16(__m128i x)
{
    return _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
                        _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7F)));
}
#endif

/* Returns true when s[0..n) is printable ASCII, a byte a column, as
 * text_string shows it: sixteen bytes at a time with SSE2 (a process's
 * image in every switch's row). */
ETL_INLINE bool text_printable(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
#if defined(__SSE2__)
    if (n >= 4)
        return _mm_movemask_epi8(etl_marks16(str, n, text_unprintable16)) == 0;
#endif
    for (size_t k = 0; k < n; k++)
        if (s[k] < 0x20 || s[k] >= 0x7F)
            return false;
    return true;
}

/* Bytes a row written in place may grow by past its blank row: cells wider
 * than their columns (a string cut with an ellipsis takes two more bytes
 * than its columns; a number right-aligned past its column, what it
 * needs). */
#define TEXT_ROW_GROW 256u

/* put_in_place's cell wider than its column of aw (not the last: b->last
 * is written after): s[0..n) at cell, cut to aw - 1 bytes and U+2026 when the
 * column is left-aligned, the rest of the row moved on; returns the row's
 * shift after it, or SIZE_MAX when there is no room. Out of line: the
 * usual cell's code stays short. */
static ETL_NOINLINE size_t put_wide(const struct blank_row *b, size_t i, const char *s,
                                    size_t n, size_t aw, bool cut, char *cell, size_t shift)
{
    size_t len = cut ? aw + 2 : n;
    if (shift + (len - aw) > TEXT_ROW_GROW)
        return SIZE_MAX;
    memmove(cell + len, cell + aw, b->len - b->end[i]);
    if (cut) {
        memcpy(cell, s, aw - 1);
        memcpy(cell + aw - 1, "\xE2\x80\xA6", 3);
    } else {
        memcpy(cell, s, n);
    }
    return shift + (len - aw);
}

/* Writes the value of cell i over its dash in row d, the blank row copied
 * there, moved on by `shift` bytes from earlier cells wider than their
 * columns (with room for TEXT_ROW_GROW bytes in all), as text_cells would
 * write it; with wide, one wider than its column too (put_wide). Returns
 * the row's shift after it, or SIZE_MAX when it cannot be written so: a
 * string from the file that is not printable ASCII (text_string's escapes
 * and widths), one too wide. */
ETL_INLINE size_t put_in_place(struct etl_printer *p, const struct blank_row *b, size_t i,
                               const struct etl_value *v, char *d, size_t shift, bool wide)
{
    const struct etl_column *c = &p->table->cols[i];
    char buf[64];
    const char *s;
    size_t n;
    if (c->type == ETL_COL_STR || c->type == ETL_COL_NAME) {
        s = v->v.str;
        n = etl_cell_len(v);
        if (c->type == ETL_COL_STR && !text_printable(s, n))
            return SIZE_MAX;
    } else {
        bool num;
        n = etl_format_fast(p, c, v, buf, &num);
        s = buf;
    }
    size_t aw = (size_t)(c->width < 0 ? -c->width : c->width);
    if (n == 0)
        return shift; /* an empty cell shows as -: the dash stays */
    if (n > aw && !wide)
        return SIZE_MAX;
    char *cell = d + shift + b->end[i] - aw; /* after the separator */
    if (n > aw)
        return put_wide(b, i, s, n, aw, c->width < 0, cell, shift);
    etl_copy_small(c->width > 0 ? cell + aw - n : cell, s, n); /* over the dash */
    return shift;
}

/* The carried cells of a row from column `from` on, after a cell that did
 * not fit its column: each over its dash, the rest of the row moved on by
 * what each one wider than its column takes. Returns the column where it
 * stopped (b->last: none), the row's shift into *shift. */
static ETL_NOINLINE size_t put_rest(struct etl_printer *p, const struct blank_row *b,
                                    const struct etl_value *vals, const uint64_t *set, char *d,
                                    size_t from, size_t *shift)
{
    size_t sh = 0;
    for (size_t base = from - from % 64; base < b->last; base += 64) {
        uint64_t m = etl_set_word(set, base, b->last);
        if (base < from)
            m &= ~0ull << (from - base);
        for (; m; m &= m - 1) {
            size_t k = base + etl_ctz64(m);
            size_t after = b->end[k] ? put_in_place(p, b, k, &vals[k], d, sh, true) : sh;
            if (after == SIZE_MAX) {
                *shift = sh;
                return k;
            }
            sh = after;
        }
    }
    *shift = sh;
    return b->last;
}

static int text_row_set(struct etl_printer *p, const struct etl_value *vals, const uint64_t *set)
{
    const struct etl_table *t = p->table;
    bool first = true;
    if (p->opt.with_filename && !t->vertical) {
        text_cell(p->out, p->file ? p->file : "-", p->file ? p->file_len : 1,
                  file_width(p), true, false, p->file && !p->file_text_plain);
        first = false;
    }
    struct blank_row *b = p->priv;
    if (!b && !t->vertical && !p->opt.with_filename && !(p->priv = b = calloc(1, sizeof *b)))
        return etl_print_nomem(p);
    if (b && b->t != t && !blank_build(p, b))
        return etl_print_nomem(p);
    char *d;
    if (!b || !b->usable || (d = etl_out_space(p->out, b->len + TEXT_ROW_GROW)) == NULL) {
        text_cells(p, vals, set, 0, first);
        return etl_print_status(p);
    }
    /* The blank row, then each carried value over its dash; from the first
     * that does not fit its column, put_rest; from one that cannot be
     * written in place at all on, the cells one at a time. */
    memcpy(d, b->row, b->len);
    size_t i = b->last, shift = 0;
    for (size_t base = 0; base < b->last && i == b->last; base += 64) {
        uint64_t m = etl_set_word(set, base, b->last);
        for (; m; m &= m - 1) {
            size_t k = base + etl_ctz64(m);
            if (b->end[k] && put_in_place(p, b, k, &vals[k], d, 0, false) == SIZE_MAX) {
                i = k;
                break;
            }
        }
    }
    if (i < b->last)
        i = put_rest(p, b, vals, set, d, i, &shift);
    /* The cells before column i, as wide as they came out. */
    size_t done = (i < b->last ? b->start[i] : b->len) + shift;
    etl_out_advance(p->out, done);
    const struct etl_column *c = &t->cols[b->last];
    if (i < b->last || c->type == ETL_COL_FIELDS) {
        text_cells(p, vals, set, i, done == 0);
        return etl_print_status(p);
    }
    /* The last column as text_cells writes it, without its walk over the
     * columns (about 110 instructions a row of compact switches). */
    char buf[64];
    size_t n;
    bool from_file;
    bool carried = (set[b->last / 64] >> (b->last % 64) & 1) != 0;
    const char *v = cell_text(p, c, carried ? &vals[b->last] : NULL, buf, &n, &from_file, true);
    text_cell(p->out, v, n, c->width, done == 0, true, from_file);
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
    .time_decimals = 6, /* read by people: microseconds */
    .begin_file = text_begin_file,
    .describe = text_describe,
    .begin_table = text_begin_table,
    .row_set = text_row_set,
    .end_table = text_end_table,
    .destroy = text_destroy,
};
