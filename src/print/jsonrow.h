/*
 * jsonrow.h - how the JSON printer writes a row's cells, shared by its own
 * row loop (json.c) and the row writers that tables whose column types are
 * fixed when they are compiled make of it (ETL_JSON_ROW_WRITER), as
 * csvrow.h does for CSV.
 *
 * The loop copies each key from a slot made for the table on its first row
 * and jumps on each carried cell's type. A table's own writer has the code
 * of each column apart: the key is its name, known to the compiler, stored
 * as constants, the type needs no jump, the row takes one reservation of
 * the output, and a view that calls the writer itself (etl_print_json_own)
 * has it folded into its code.
 */
#ifndef ETLDUMP_JSONROW_H
#define ETLDUMP_JSONROW_H

#include "fields.h"
#include "print/printer.h"

/* The longest string value written without etl_json_string, the longest
 * key (with the comma before it, its quotes and colon) written in place,
 * and the room a cell takes at most on that path: a key and a quoted
 * string, or a quoted scalar of at most 48 bytes. */
#define ETL_JSON_PLAIN_MAX 64
#define ETL_JSON_KEY_MAX 32
#define ETL_JSON_CELL_MAX (ETL_JSON_KEY_MAX + ETL_JSON_PLAIN_MAX + 8)

/* Writes s as a JSON string: quotes, backslashes and control characters
 * escaped; bytes that are not UTF-8 replaced by U+FFFD itself (as in every
 * format, not by an escape). */
void etl_json_string(struct etl_out *o, const char *s);

/* Writes the value of cell v, of type ty, the careful way (json_string,
 * the fields' writer, a scalar through a buffer). */
void etl_json_value_slow(struct etl_printer *p, enum etl_col_type ty,
                         const struct etl_value *v);

/* Writes the cell the careful way, key and value: sep first unless it is
 * 0, then `"name":` and the value. */
void etl_json_cell_slow(struct etl_printer *p, const char *name, enum etl_col_type ty,
                        const struct etl_value *v, char sep);

/* Bytes of a string that etl_json_string must see: quotes, backslashes,
 * control characters and every byte of a multi-byte sequence (checked
 * there); 0 ends the string. */
extern const bool etl_json_special[256];

#if defined(__SSE2__)
/* The bytes of x that etl_json_string must see, as 0xFF: below 0x20 as
 * signed bytes (control characters, and every byte of a multi-byte
 * sequence), quotes and backslashes. */
ETL_INLINE __m128i etl_json_special16(__m128i x)
{
    return _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
                        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                     _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
}
#endif

/* Returns true when no byte of s[0..n) is one etl_json_string must see
 * (etl_json_special). With SSE2 (every x86-64) sixteen bytes at a time,
 * a string of up to sixteen in one piece: a byte at a time, the four or
 * five names of a compact switch (its threads' processes and etldump's own
 * names) took 147 instructions (compact JSON 1557 instructions a switch,
 * 1479 so). test_printers compares it with the table. */
ETL_INLINE bool etl_json_plain(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
#if defined(__SSE2__)
    if (n >= 4)
        return _mm_movemask_epi8(etl_marks16(str, n, etl_json_special16)) == 0;
    /* Up to three bytes: the first, middle and last are all of them. */
    return n == 0 || !(etl_json_special[s[0]] || etl_json_special[s[n / 2]] ||
                       etl_json_special[s[n - 1]]);
#else
    for (size_t j = 0; j < n; j++)
        if (etl_json_special[s[j]])
            return false;
    return true;
#endif
}

/* Writes the value of cell v, of type ty, at q, which has room for
 * ETL_JSON_CELL_MAX - ETL_JSON_KEY_MAX bytes: numbers as numbers, every
 * other scalar and every time as a string (json.c says why), a string of
 * at most ETL_JSON_PLAIN_MAX bytes that needs no escape copied between
 * quotes (without a look at it when the view says it is plain). Returns
 * where it ends, or NULL when etl_json_value_slow must write it. */
ETL_INLINE char *etl_json_value(struct etl_printer *p, enum etl_col_type ty,
                                const struct etl_value *v, char *q)
{
    switch (ty) {
    case ETL_COL_UINT:
        return q + etl_fmt_u64_memo(v->v.u, q, &p->memo_int);
    case ETL_COL_INT:
        return q + etl_fmt_i64_memo(v->v.i, q, &p->memo_int);
    case ETL_COL_DURATION:
        /* Nine decimals: this printer keeps the default time_decimals. */
        return q + etl_fmt_seconds9(v->v.i, q);
    case ETL_COL_STR:
    case ETL_COL_NAME: {
        size_t n = etl_cell_len(v);
        if (n > ETL_JSON_PLAIN_MAX || (!(v->len & ETL_CELL_PLAIN) && !etl_json_plain(v->v.str, n)))
            return NULL;
        q[0] = '"';
        etl_copy_small(q + 1, v->v.str, n);
        q[n + 1] = '"';
        return q + n + 2;
    }
    case ETL_COL_HEX16:
        q[0] = '"';
        q += 1 + etl_fmt_hex16(v->v.u, q + 1);
        *q = '"';
        return q + 1;
    case ETL_COL_TIME:
        if (p->time_mode != ETL_TIME_REL)
            break;
        q[0] = '"';
        q += 1 + etl_fmt_seconds9_memo(etl_clock_ns(&p->clock, v->v.i), q + 1, &p->memo_secs);
        *q = '"';
        return q + 1;
    case ETL_COL_FIELDS:
        return NULL;
    default:
        break;
    }
    bool num;
    struct etl_column c = { NULL, ty, 0, false };
    if (ty == ETL_COL_PERCENT) /* the other number */
        return q + etl_format_scalar(p, &c, v, q, &num);
    q[0] = '"';
    q += 1 + etl_format_scalar(p, &c, v, q + 1, &num);
    *q = '"';
    return q + 1;
}

/* A row being written: its cells go into one reservation of the output
 * (room: ETL_JSON_CELL_MAX bytes a cell) from d on, q where the next goes;
 * sep is the byte before the next key: the row's '{' until a cell is
 * written, then a comma. */
struct etl_json_row {
    struct etl_out *o;
    char *d, *q;
    size_t room;
    char sep;
};

/* Starts a row of a table of ncols columns; false after a write error. */
ETL_INLINE bool etl_json_row_begin(struct etl_printer *p, struct etl_json_row *r, size_t ncols)
{
    r->o = p->out;
    r->sep = '{';
    if (p->opt.with_filename) { /* a name that needs no escapes (etl_print_json_own) */
        etl_out_puts(r->o, "{\"file\":\"");
        etl_out_write(r->o, p->file, p->file_len);
        etl_out_putc(r->o, '"');
        r->sep = ',';
    }
    r->room = ncols * ETL_JSON_CELL_MAX + 8;
    return (r->d = r->q = etl_out_space(r->o, r->room)) != NULL;
}

/* Writes carried cell v of column `name`, of type ty, with the separator
 * and the key before it; false after a write error. */
ETL_INLINE bool etl_json_row_cell(struct etl_printer *p, struct etl_json_row *r,
                                  const char *name, enum etl_col_type ty,
                                  const struct etl_value *v)
{
    size_t nl = strlen(name); /* a constant in a table's own writer */
    char *q = r->q;
    if (nl + 4 <= ETL_JSON_KEY_MAX) {
        q[0] = r->sep;
        q[1] = '"';
        memcpy(q + 2, name, nl);
        q[nl + 2] = '"';
        q[nl + 3] = ':';
        r->sep = ',';
        char *e = etl_json_value(p, ty, v, q + nl + 4);
        if (e) {
            r->q = e;
            return true;
        }
        etl_out_advance(r->o, (size_t)(q + nl + 4 - r->d));
        etl_json_value_slow(p, ty, v);
    } else {
        etl_out_advance(r->o, (size_t)(q - r->d));
        etl_json_cell_slow(p, name, ty, v, r->sep);
        r->sep = ',';
    }
    return (r->d = r->q = etl_out_space(r->o, r->room)) != NULL;
}

/* Ends a row: its '{' when it has no cell, the closing brace, the line's
 * end. */
ETL_INLINE int etl_json_row_end(struct etl_printer *p, struct etl_json_row *r)
{
    char *q = r->q;
    if (r->sep == '{')
        *q++ = '{';
    q[0] = '}';
    q[1] = '\n';
    etl_out_advance(r->o, (size_t)(q + 2 - r->d));
    return etl_print_status(p);
}

/* Cell i of a table's own writer (inside ETL_JSON_ROW_WRITER, whose p,
 * vals, set and r it uses): written when the row carries it, by the name
 * and type of cols[i] (a constant array: the compiler reads them where it
 * compiles). Cells past the table's last column are no code at all. */
#define ETL_JSON_FIXED_CELL(i, cols, ncols)                                            \
    if ((i) < (ncols) && (set >> ((i) % 64) & 1u) &&                                   \
        !etl_json_row_cell(p, &r, (cols)[(i) < (ncols) ? (i) : 0].name,               \
                           (cols)[(i) < (ncols) ? (i) : 0].type,                       \
                           &vals[(i) < (ncols) ? (i) : 0]))                            \
        return -1;
#define ETL_JSON_CELLS8(b, cols, ncols)                                                \
    ETL_JSON_FIXED_CELL((b) + 0, cols, ncols) ETL_JSON_FIXED_CELL((b) + 1, cols, ncols) \
    ETL_JSON_FIXED_CELL((b) + 2, cols, ncols) ETL_JSON_FIXED_CELL((b) + 3, cols, ncols) \
    ETL_JSON_FIXED_CELL((b) + 4, cols, ncols) ETL_JSON_FIXED_CELL((b) + 5, cols, ncols) \
    ETL_JSON_FIXED_CELL((b) + 6, cols, ncols) ETL_JSON_FIXED_CELL((b) + 7, cols, ncols)

/* Defines fn, the JSON row writer of a table whose columns are cols, a
 * static const array of ncols (at most 64) columns: the row whose carried
 * cells are the bits of set, after the file column when the printer gives
 * one (etl_print_json_own says when a view may call it). It is inline: the
 * view that calls it has it folded into its code. */
#define ETL_JSON_ROW_WRITER(fn, cols, ncols)                                           \
    ETL_INLINE int fn(struct etl_printer *p, const struct etl_value *vals, uint64_t set) \
    {                                                                                  \
        _Static_assert((ncols) <= 64, "a table's own JSON writer takes 64 columns");   \
        struct etl_json_row r;                                                         \
        if (!etl_json_row_begin(p, &r, (ncols)))                                       \
            return -1;                                                                 \
        ETL_JSON_CELLS8(0, cols, ncols) ETL_JSON_CELLS8(8, cols, ncols)                \
        ETL_JSON_CELLS8(16, cols, ncols) ETL_JSON_CELLS8(24, cols, ncols)              \
        ETL_JSON_CELLS8(32, cols, ncols) ETL_JSON_CELLS8(40, cols, ncols)              \
        ETL_JSON_CELLS8(48, cols, ncols) ETL_JSON_CELLS8(56, cols, ncols)              \
        return etl_json_row_end(p, &r);                                                \
    }

#endif
