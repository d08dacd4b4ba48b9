/*
 * csvrow.h - how the CSV printer writes a row's cells, shared by its own
 * row loop (csv.c) and the row writers that tables whose column types are
 * fixed when they are compiled make of it (ETL_CSV_ROW_WRITER).
 *
 * The row loop goes from one carried cell to the next and writes each by
 * its column's type: one jump on the type for every cell, which the
 * processor cannot foresee as the carried cells change from row to row. A
 * table's own writer has the code of each column apart, its type known to
 * the compiler: no jump on the type is left, and the branch on whether a
 * cell is carried is a branch of its own for each column (compact
 * switches to CSV: 1896 instructions a switch through the loop, 1621
 * through the switch table's writer; both write the same bytes, which
 * test_printers checks). A view that calls its table's writer itself
 * (etl_print_csv_own) has it folded into its own code, the cells going
 * from the record to the output: 1532 to 1408 instructions a switch.
 */
#ifndef ETLDUMP_CSVROW_H
#define ETLDUMP_CSVROW_H

#include "fields.h"
#include "print/printer.h"

/* Bytes a cell other than a long string takes at most, separator included. */
#define ETL_CSV_CELL_MAX 50

/* Writes one field through the careful path: quoted when it holds a comma,
 * quote, CR or LF, or starts or ends with a space; quotes doubled, bytes
 * that are not valid UTF-8 replaced by U+FFFD. With guard (a string from
 * the file or the command line, without --csv-formulas), a field that
 * begins as a spreadsheet formula (etl_csv_formula) gets an apostrophe
 * first, which spreadsheets take to mean text and do not show. */
void etl_csv_field(struct etl_out *o, const char *str, size_t n, bool guard);

/* Whether string s[0..n) begins as spreadsheets begin a formula: with =,
 * +, -, @, a tab or CR, or the full-width =, +, - or @ (U+FF1D, U+FF0B,
 * U+FF0D, U+FF20) some of them also take (CWE-1236). */
bool etl_csv_formula(const char *s, size_t n);

/* First bytes that send a string from the file to etl_csv_field: a space
 * (quoted) and those etl_csv_formula looks at (the full-width signs begin
 * with 0xEF, a byte of etl_csv_special). */
extern const bool etl_csv_lead[256];

/* Ends a record: LF, or CRLF with --crlf. */
void etl_csv_eol(struct etl_printer *p);

/* Bytes that send a string from the file to etl_csv_field: those that need
 * quoting and every byte of a multi-byte sequence (checked there). */
extern const bool etl_csv_special[256];

#if defined(__SSE2__)
/* The bytes of x that etl_csv_field must see, as 0xFF: commas, quotes, CR,
 * LF, and every byte of a multi-byte sequence (negative as signed bytes). */
ETL_INLINE __m128i etl_csv_special16(__m128i x)
{
    __m128i quote = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')),
                                 _mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
    __m128i line = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')),
                                _mm_cmpeq_epi8(x, _mm_set1_epi8('\n')));
    return _mm_or_si128(_mm_cmplt_epi8(x, _mm_setzero_si128()), _mm_or_si128(quote, line));
}
#endif

/* Returns true when string s[0..n) needs no quoting, no replacement and no
 * apostrophe: no byte of etl_csv_special, no space last, no byte of
 * etl_csv_lead first. With SSE2 (every
 * x86-64) sixteen bytes at a time, as etl_json_plain: a byte at a time,
 * the checks took 6.6% of the instructions of switches to CSV with their
 * threads' processes and readying threads (tests/perf.sh, ready-csv).
 * test_printers compares it with the table. */
ETL_INLINE bool etl_csv_plain_str(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    if (n == 0)
        return true;
    if (etl_csv_lead[s[0]] || s[n - 1] == ' ')
        return false;
#if defined(__SSE2__)
    if (n >= 4)
        return _mm_movemask_epi8(etl_marks16(str, n, etl_csv_special16)) == 0;
    /* Up to three bytes: the first, middle and last are all of them. */
    return !(etl_csv_special[s[0]] || etl_csv_special[s[n / 2]] || etl_csv_special[s[n - 1]]);
#else
    for (size_t i = 0; i < n; i++)
        if (etl_csv_special[s[i]])
            return false;
    return true;
#endif
}

/* Copies string s[0..n) to q when it needs no quoting and no replacement
 * (n < ETL_CSV_CELL_MAX); returns the bytes written, or 0 when
 * etl_csv_field must write it (an empty string writes nothing either way). */
ETL_INLINE size_t etl_csv_plain(char *q, const char *s, size_t n, bool from_file)
{
    if (n >= ETL_CSV_CELL_MAX || (from_file && !etl_csv_plain_str(s, n)))
        return 0;
    etl_copy_small(q, s, n);
    return n;
}

/* Writes the value of cell v, of type ty, at q (its separator is written
 * already); returns where it ends, or NULL when etl_csv_field (or the
 * fields' writer) must write it. */
ETL_INLINE char *etl_csv_value(struct etl_printer *p, enum etl_col_type ty,
                               const struct etl_value *v, char *q)
{
    switch (ty) {
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
        size_t n = etl_cell_len(v),
               k = etl_csv_plain(q, v->v.str, n, ty == ETL_COL_STR && !(v->len & ETL_CELL_PLAIN));
        return k == 0 && n > 0 ? NULL : q + k;
    }
    case ETL_COL_FIELDS:
        return NULL;
    default:
        break;
    }
    bool num;
    struct etl_column c = { NULL, ty, 0, false };
    return q + etl_format_scalar(p, &c, v, q, &num);
}

/* Writes n commas at q, which has room for 16 more bytes than that;
 * returns where they end. */
ETL_INLINE char *etl_csv_commas(char *q, size_t n)
{
    static const char commas[17] = ",,,,,,,,,,,,,,,,";
    if (n <= 16)
        memcpy(q, commas, 16);
    else
        memset(q, ',', n);
    return q + n;
}

/* A row being written: the usual cells go into one reservation of the
 * output (room: at most ETL_CSV_CELL_MAX bytes each) from d on, q where the
 * next goes; w commas are written (column i has i + file before it). */
struct etl_csv_row {
    struct etl_out *o;
    char *d, *q;
    size_t w, file, room;
};

/* Starts a row of a table of ncols columns, file 1 when a file column
 * comes first (written already); false after a write error. */
ETL_INLINE bool etl_csv_row_begin(struct etl_printer *p, struct etl_csv_row *r, size_t ncols,
                                  size_t file)
{
    r->o = p->out;
    r->file = file;
    r->w = 0;
    r->room = (ncols + 1) * ETL_CSV_CELL_MAX + 32;
    return (r->d = r->q = etl_out_space(r->o, r->room)) != NULL;
}

/* etl_csv_row_begin for a view that writes its table's rows itself
 * (etl_print_csv_own), of ncols columns: after the file column when the
 * printer gives one (its input's name, which needs no quoting then). */
ETL_INLINE bool etl_csv_own_row_begin(struct etl_printer *p, struct etl_csv_row *r,
                                      size_t ncols)
{
    size_t file = p->opt.with_filename;
    if (file)
        etl_out_write(p->out, p->file, p->file_len);
    return etl_csv_row_begin(p, r, ncols, file);
}

/* Writes carried cell i, of type ty, and the commas before it; false after
 * a write error. */
ETL_INLINE bool etl_csv_row_cell(struct etl_printer *p, struct etl_csv_row *r, size_t i,
                                 enum etl_col_type ty, const struct etl_value *v)
{
    r->q = etl_csv_commas(r->q, i + r->file - r->w);
    r->w = i + r->file;
    char *e = etl_csv_value(p, ty, v, r->q);
    if (e) {
        r->q = e;
        return true;
    }
    etl_out_advance(r->o, (size_t)(r->q - r->d));
    if (ty == ETL_COL_FIELDS)
        etl_fields_json_csv(v->v.p, r->o); /* the JSON object as one quoted field */
    else
        etl_csv_field(r->o, v->v.str, etl_cell_len(v),
                      ty == ETL_COL_STR && !(v->len & ETL_CELL_PLAIN) && !p->opt.csv_formulas);
    return (r->d = r->q = etl_out_space(r->o, r->room)) != NULL;
}

/* Ends a row of ncols columns: the empty cells after the last carried one,
 * the line's end. */
ETL_INLINE int etl_csv_row_end(struct etl_printer *p, struct etl_csv_row *r, size_t ncols)
{
    if (ncols + r->file > r->w + 1)
        r->q = etl_csv_commas(r->q, ncols + r->file - 1 - r->w);
    etl_out_advance(r->o, (size_t)(r->q - r->d));
    etl_csv_eol(p);
    return etl_print_status(p);
}

/* Where a view puts a row's cells as it finds them, left to right (each
 * column at most once, in order): straight into a CSV row of the table
 * whose columns are cols (direct: the CSV printer, when the view may write
 * the table's rows itself, etl_print_csv_own), with no array of cells
 * between; or into v and the bits of set, for the printer's row_set or a
 * table's own JSON or XML writer. A view compiles the function that puts
 * its cells once for each value of direct (a constant where it is
 * inlined): compact switches to CSV 1,373 instructions a switch through
 * the array and the table's writer, 1,249 straight (callgrind). */
struct etl_cells {
    struct etl_printer *p;
    const struct etl_column *cols;
    struct etl_csv_row row;    /* direct: begun (etl_csv_row_begin) */
    struct etl_value *v;       /* else: the row's cells */
    uint64_t set;
};

/* Puts cell i; false after a write error (direct only). */
ETL_INLINE bool etl_cells_put(struct etl_cells *c, bool direct, size_t i, struct etl_value val)
{
    if (direct)
        return etl_csv_row_cell(c->p, &c->row, i, c->cols[i].type, &val);
    c->v[i] = val;
    c->set |= ETL_SET_BIT(i);
    return true;
}

ETL_INLINE bool etl_cells_u(struct etl_cells *c, bool direct, size_t i, uint64_t u)
{
    struct etl_value val = { .v.u = u };
    return etl_cells_put(c, direct, i, val);
}

ETL_INLINE bool etl_cells_i(struct etl_cells *c, bool direct, size_t i, int64_t x)
{
    struct etl_value val = { .v.i = x };
    return etl_cells_put(c, direct, i, val);
}

/* A string cell of n bytes (0: measured by the printer; with
 * ETL_CELL_PLAIN added when it needs no quoting). */
ETL_INLINE bool etl_cells_str(struct etl_cells *c, bool direct, size_t i, const char *str,
                              size_t n)
{
    struct etl_value val = { .v.str = str, .len = (uint32_t)n };
    return etl_cells_put(c, direct, i, val);
}

/* Cell i of a table's own writer (inside ETL_CSV_ROW_WRITER, whose p, vals,
 * set and r it uses): written when the row carries it, by the type of
 * cols[i] (a constant array: the compiler reads the type where it
 * compiles). Cells past the table's last column are no code at all. */
#define ETL_CSV_FIXED_CELL(i, cols, ncols)                                             \
    if ((i) < (ncols) && (set >> ((i) % 64) & 1u) &&                                   \
        !etl_csv_row_cell(p, &r, (i), (cols)[(i) < (ncols) ? (i) : 0].type,           \
                          &vals[(i) < (ncols) ? (i) : 0]))                             \
        return -1;
#define ETL_CSV_CELLS8(b, cols, ncols)                                                 \
    ETL_CSV_FIXED_CELL((b) + 0, cols, ncols) ETL_CSV_FIXED_CELL((b) + 1, cols, ncols)  \
    ETL_CSV_FIXED_CELL((b) + 2, cols, ncols) ETL_CSV_FIXED_CELL((b) + 3, cols, ncols)  \
    ETL_CSV_FIXED_CELL((b) + 4, cols, ncols) ETL_CSV_FIXED_CELL((b) + 5, cols, ncols)  \
    ETL_CSV_FIXED_CELL((b) + 6, cols, ncols) ETL_CSV_FIXED_CELL((b) + 7, cols, ncols)

/* Defines fn, the CSV row writer of a table whose columns are cols, a
 * static const array of ncols (at most 64) columns, for its etl_table's
 * csv_row: the row whose carried cells are the bits of set, after the file
 * column when file is 1. It is inline: a view that calls it itself
 * (etl_print_csv_own) has it folded into its code. */
#define ETL_CSV_ROW_WRITER(fn, cols, ncols)                                            \
    ETL_INLINE int fn(struct etl_printer *p, const struct etl_value *vals, uint64_t set, \
                      size_t file)                                                     \
    {                                                                                  \
        _Static_assert((ncols) <= 64, "a table's own CSV writer takes 64 columns");    \
        struct etl_csv_row r;                                                          \
        if (!etl_csv_row_begin(p, &r, (ncols), file))                                  \
            return -1;                                                                 \
        ETL_CSV_CELLS8(0, cols, ncols) ETL_CSV_CELLS8(8, cols, ncols)                  \
        ETL_CSV_CELLS8(16, cols, ncols) ETL_CSV_CELLS8(24, cols, ncols)                \
        ETL_CSV_CELLS8(32, cols, ncols) ETL_CSV_CELLS8(40, cols, ncols)                \
        ETL_CSV_CELLS8(48, cols, ncols) ETL_CSV_CELLS8(56, cols, ncols)                \
        return etl_csv_row_end(p, &r, (ncols));                                        \
    }

#endif
