/*
 * xmlrow.h - how the XML printer writes a row element's attributes, shared
 * by its own row loop (xml.c) and the row writers that tables whose column
 * types are fixed when they are compiled make of it (ETL_XML_ROW_WRITER),
 * as csvrow.h does for CSV.
 *
 * The loop copies each attribute's key from a slot made for the table and
 * jumps on each carried cell's type. A table's own writer has the code of
 * each column apart: the key is its name, known to the compiler, stored as
 * constants, the type needs no jump, and a view that calls the writer
 * itself (etl_print_xml_own) has it folded into its code. Either composes
 * the row straight into the printer's output when libxml2's writer holds
 * nothing back (the rows after a file's first): no copy from a row buffer.
 */
#ifndef ETLDUMP_XMLROW_H
#define ETLDUMP_XMLROW_H

#include "fields.h"
#include "print/printer.h"
#include "xmlsetup.h"

/* The longest string value written without a look for bytes to clean or
 * escape past etl_xml_plain, the longest key (` name="`) written in place,
 * and the room an attribute takes at most on that path, its closing quote
 * included. */
#define ETL_XML_PLAIN_MAX 64
#define ETL_XML_KEY_SLOT 32
#define ETL_XML_CELL_MAX (ETL_XML_KEY_SLOT + ETL_XML_PLAIN_MAX + 8)

/* The indentation of a row element inside <file>. */
#define ETL_XML_ROW_INDENT "    "
#define ETL_XML_ROW_INDENT_LEN 4

/* The part of the XML printer's state (its priv, which starts with it) that
 * a table's own writer reads: whether the next row may be composed straight
 * into the printer's output, which is when a row was the last thing
 * written, inside <file> (xml.c keeps it). */
struct etl_xml_rows {
    bool direct;
};

/* Whether each byte stands for itself in an attribute value (xml.c). */
extern const unsigned char etl_xml_plain[256];

/* Appends the attribute of cell v of column c to the row in o the careful
 * way: ` name="value"`, a string cleaned of what XML cannot hold and
 * escaped. 0, or -1 when out of memory. */
int etl_xml_cell_slow(struct etl_printer *p, struct etl_out *o, const struct etl_column *c,
                      const struct etl_value *v);

/* Ends the row element elem (elen bytes) in o with a child per field of fl
 * (which has some) and the end tag. 0, or -1 when out of memory. */
int etl_xml_row_fields(struct etl_printer *p, struct etl_out *o, const struct etl_fields *fl,
                       const char *elem, size_t elen);

#if defined(__SSE2__)
/* The bytes of x that do not stand for themselves in an attribute value,
 * as 0xFF: below 0x20 as signed bytes (control characters, and every byte
 * of a multi-byte sequence), '"' and '&' (0x22 and 0x26: 0x26 with bit 2
 * set), '<' and '>' (0x3C and 0x3E: 0x3E with bit 1 set). */
ETL_INLINE __m128i etl_xml_special16(__m128i x)
{
    __m128i q = _mm_cmpeq_epi8(_mm_or_si128(x, _mm_set1_epi8(4)), _mm_set1_epi8(0x26));
    __m128i a = _mm_cmpeq_epi8(_mm_or_si128(x, _mm_set1_epi8(2)), _mm_set1_epi8(0x3E));
    return _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)), _mm_or_si128(q, a));
}
#endif

/* Returns true when every byte of s[0..n) stands for itself in an
 * attribute value (etl_xml_plain). With SSE2 (every x86-64) sixteen bytes
 * at a time, as etl_json_plain (compact XML 1596 instructions a switch a
 * byte at a time, 1506 so). test_printers compares it with the table. */
ETL_INLINE bool etl_xml_plain_str(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
#if defined(__SSE2__)
    if (n >= 4)
        return _mm_movemask_epi8(etl_marks16(str, n, etl_xml_special16)) == 0;
    /* Up to three bytes: the first, middle and last are all of them. */
    return n == 0 || (etl_xml_plain[s[0]] && etl_xml_plain[s[n / 2]] && etl_xml_plain[s[n - 1]]);
#else
    for (size_t j = 0; j < n; j++)
        if (!etl_xml_plain[s[j]])
            return false;
    return true;
#endif
}

/* Writes the value of cell v of column c (not the fields) at q, which has
 * room for ETL_XML_CELL_MAX - ETL_XML_KEY_SLOT bytes: a number, hex value,
 * GUID or time as formatted (none needs an escape), a string of at most
 * ETL_XML_PLAIN_MAX bytes whose every byte stands for itself (without a
 * look at it when the view says it is plain). Returns where it ends, or
 * NULL when etl_xml_cell_slow must write the attribute. */
ETL_INLINE char *etl_xml_value(struct etl_printer *p, const struct etl_column *c,
                               const struct etl_value *v, char *q)
{
    if (c->type == ETL_COL_STR || c->type == ETL_COL_NAME) {
        size_t n = etl_cell_len(v);
        if (n > ETL_XML_PLAIN_MAX || (!(v->len & ETL_CELL_PLAIN) && !etl_xml_plain_str(v->v.str, n)))
            return NULL;
        etl_copy_small(q, v->v.str, n);
        return q + n;
    }
    bool num;
    return q + etl_format_fast(p, c, v, q, &num);
}

/* Returns true when a table's own writer may write p's next row itself:
 * into a fork's memory output, or straight into the output after a row;
 * otherwise the printer's loop writes it (and writes what libxml2 holds
 * first). Not after an allocation of libxml2's failed on this thread: the
 * loop reports it (xml.c's checked). */
ETL_INLINE bool etl_xml_row_direct(const struct etl_printer *p)
{
    const struct etl_xml_rows *xr = p->priv;
    return (p->fork || (xr && xr->direct)) && etl_xml_failures() == 0;
}

/* A row being written: its attributes go into one reservation of the
 * output (room: ETL_XML_CELL_MAX bytes a cell) from d on, q where the next
 * goes; fl is the fields cell's value, for the children. */
struct etl_xml_row {
    struct etl_out *o;
    char *d, *q;
    size_t room;
    const struct etl_fields *fl;
};

/* Starts row element elem (elen bytes) of a table of ncols columns; false
 * after a write error. */
ETL_INLINE bool etl_xml_row_begin(struct etl_printer *p, struct etl_xml_row *r,
                                  const char *elem, size_t elen, size_t ncols)
{
    r->o = p->out;
    r->fl = NULL;
    r->room = ncols * ETL_XML_CELL_MAX + elen + 16;
    char *d = r->d = etl_out_space(r->o, r->room);
    if (!d)
        return false;
    memcpy(d, ETL_XML_ROW_INDENT "<", ETL_XML_ROW_INDENT_LEN + 1);
    memcpy(d + ETL_XML_ROW_INDENT_LEN + 1, elem, elen);
    r->q = d + ETL_XML_ROW_INDENT_LEN + 1 + elen;
    return true;
}

/* Writes the attribute of carried cell v of column c, or keeps the fields
 * for the children; false when out of memory or after a write error. */
ETL_INLINE bool etl_xml_row_cell(struct etl_printer *p, struct etl_xml_row *r,
                                 const struct etl_column *c, const struct etl_value *v)
{
    if (c->type == ETL_COL_FIELDS) {
        r->fl = v->v.p;
        return true;
    }
    size_t nl = strlen(c->name); /* a constant in a table's own writer */
    if (nl + 3 <= ETL_XML_KEY_SLOT) {
        char *q = r->q;
        q[0] = ' ';
        memcpy(q + 1, c->name, nl);
        q[nl + 1] = '=';
        q[nl + 2] = '"';
        char *e = etl_xml_value(p, c, v, q + nl + 3);
        if (e) {
            *e = '"';
            r->q = e + 1;
            return true;
        }
    }
    etl_out_advance(r->o, (size_t)(r->q - r->d));
    if (etl_xml_cell_slow(p, r->o, c, v) < 0)
        return false;
    return (r->d = r->q = etl_out_space(r->o, r->room)) != NULL;
}

/* Ends row element elem (elen bytes): empty, or with the fields' children
 * and its end tag. 0, or -1 (out of memory, a write error). */
ETL_INLINE int etl_xml_row_end(struct etl_printer *p, struct etl_xml_row *r, const char *elem,
                               size_t elen)
{
    if (r->fl && r->fl->n) {
        etl_out_advance(r->o, (size_t)(r->q - r->d));
        if (etl_xml_row_fields(p, r->o, r->fl, elem, elen) < 0)
            return etl_print_nomem(p);
        return etl_print_status(p);
    }
    memcpy(r->q, "/>\n", 3);
    etl_out_advance(r->o, (size_t)(r->q + 3 - r->d));
    return etl_print_status(p);
}

/* Cell i of a table's own writer (inside ETL_XML_ROW_WRITER, whose p,
 * vals, set and r it uses): written when the row carries it, by cols[i] (a
 * constant array: the compiler reads its name and type where it compiles).
 * Cells past the table's last column are no code at all. */
#define ETL_XML_FIXED_CELL(i, cols, ncols)                                             \
    if ((i) < (ncols) && (set >> ((i) % 64) & 1u) &&                                   \
        !etl_xml_row_cell(p, &r, &(cols)[(i) < (ncols) ? (i) : 0],                    \
                          &vals[(i) < (ncols) ? (i) : 0]))                             \
        return etl_print_nomem(p);
#define ETL_XML_CELLS8(b, cols, ncols)                                                 \
    ETL_XML_FIXED_CELL((b) + 0, cols, ncols) ETL_XML_FIXED_CELL((b) + 1, cols, ncols)  \
    ETL_XML_FIXED_CELL((b) + 2, cols, ncols) ETL_XML_FIXED_CELL((b) + 3, cols, ncols)  \
    ETL_XML_FIXED_CELL((b) + 4, cols, ncols) ETL_XML_FIXED_CELL((b) + 5, cols, ncols)  \
    ETL_XML_FIXED_CELL((b) + 6, cols, ncols) ETL_XML_FIXED_CELL((b) + 7, cols, ncols)

/* Defines fn, the XML row writer of a table whose row element is elem (a
 * string literal: the table's name) and whose columns are cols, a static
 * const array of ncols (at most 64) columns: the row whose carried cells
 * are the bits of set (etl_print_xml_own says when a view may call it;
 * when the printer must write the row itself, fn hands it over). It is
 * inline: the view that calls it has it folded into its code. */
#define ETL_XML_ROW_WRITER(fn, elem, cols, ncols)                                      \
    ETL_INLINE int fn(struct etl_printer *p, const struct etl_value *vals, uint64_t set) \
    {                                                                                  \
        _Static_assert((ncols) <= 64, "a table's own XML writer takes 64 columns");    \
        if (!etl_xml_row_direct(p))                                                    \
            return etl_print_row_set(p, vals, set);                                    \
        struct etl_xml_row r;                                                          \
        if (!etl_xml_row_begin(p, &r, elem, sizeof(elem) - 1, (ncols)))               \
            return etl_print_nomem(p);                                                 \
        ETL_XML_CELLS8(0, cols, ncols) ETL_XML_CELLS8(8, cols, ncols)                  \
        ETL_XML_CELLS8(16, cols, ncols) ETL_XML_CELLS8(24, cols, ncols)                \
        ETL_XML_CELLS8(32, cols, ncols) ETL_XML_CELLS8(40, cols, ncols)                \
        ETL_XML_CELLS8(48, cols, ncols) ETL_XML_CELLS8(56, cols, ncols)                \
        return etl_xml_row_end(p, &r, elem, sizeof(elem) - 1);                         \
    }

#endif
