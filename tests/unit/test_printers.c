/*
 * test_printers.c - the four printers (text, csv, xml, json) driven through
 * an etl_out on a temporary file with a hand-made table of every column type,
 * hostile strings (separators, quotes, CR/LF, TAB, control bytes, invalid
 * UTF-8, U+FFFE, an emoji, very long strings) and unset cells. Each output is
 * read back and parsed strictly: CSV by an RFC 4180 parser, JSON by a small
 * JSON parser, XML by libxml2 (and validated against doc/etldump.xsd with the
 * views' real tables); text must hold no control byte but LF and only valid
 * UTF-8. Write errors: an etl_out on /dev/full.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>

#include "fields.h"
#include "fmt.h"
#include "print/csvrow.h"
#include "print/jsonrow.h"
#include "print/printer.h"
#include "print/xmlrow.h"
#include "view/view.h"
#include "unit.h"

/* ---- the hand-made table ----------------------------------------------- */

enum { C_U, C_I, C_H16, C_H32, C_H64, C_NAME, C_STR, C_GUID, C_TIME, C_FT, C_STR2, NCOLS };

static const struct etl_column rec_cols[NCOLS] = {
    [C_U] = { .name = "u", .type = ETL_COL_UINT, .width = 20 },
    [C_I] = { .name = "i", .type = ETL_COL_INT, .width = 20 },
    [C_H16] = { .name = "h16", .type = ETL_COL_HEX16, .width = 6 },
    [C_H32] = { .name = "h32", .type = ETL_COL_HEX32, .width = 10 },
    [C_H64] = { .name = "h64", .type = ETL_COL_HEX64, .width = 18 },
    [C_NAME] = { .name = "name", .type = ETL_COL_NAME, .width = -8 },
    [C_STR] = { .name = "str", .type = ETL_COL_STR, .width = -24 },
    [C_GUID] = { .name = "guid", .type = ETL_COL_GUID, .width = -36 },
    [C_TIME] = { .name = "time", .type = ETL_COL_TIME, .width = 12 },
    [C_FT] = { .name = "ft", .type = ETL_COL_FILETIME, .width = 28 },
    [C_STR2] = { .name = "str2", .type = ETL_COL_STR, .width = 10 },
};

static const struct etl_table rec_table = { "rec", rec_cols, NCOLS, false, NULL };
static const struct etl_table rec_vtable = { "rec", rec_cols, NCOLS, true, NULL };

/* What every set scalar cell holds, and how CSV, JSON and XML show it
 * (time: rel mode, clock below). */
static const uint8_t guid_bytes[16] = { 0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66,
                                        0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
static const char *const scalar_text[NCOLS] = {
    [C_U] = "18446744073709551615",
    [C_I] = "-9223372036854775808",
    [C_H16] = "0x00ab",
    [C_H32] = "0xdeadbeef",
    [C_H64] = "0x0000000000001234",
    [C_NAME] = "SYSTEM64",
    [C_GUID] = "00112233-4455-6677-8899-aabbccddeeff",
    [C_TIME] = "0.001500000",
    [C_FT] = "2022-04-20T21:27:15.2722435Z",
};
/* Times are strings whatever --time says; plain numbers are numbers. */
static const bool json_number[NCOLS] = { [C_U] = true, [C_I] = true };

static const char *const hostile_fixed[] = {
    "plain",
    "a,b,c",
    "say \"hi\"",
    "\"",
    "line1\r\nline2",
    "lf\nonly",
    "cr\ronly",
    "tab\there",
    "\001ctl\033esc\177del",
    "bad\xff\xfeutf8",
    "U+FFFE:\xef\xbf\xbe U+FFFF:\xef\xbf\xbf",
    "emoji \xf0\x9f\x98\x80!",
    "<tag a='x'>&amp;</tag>",
    "back\\slash\\",
    " lead and trail ",
    "",
    "truncated \xe2\x82",
    "overlong \xc0\xaf surrogate \xed\xa0\x80 big \xf4\x90\x80\x80 f5 \xf5",
    "C1 \xc2\x85 nbsp \xc2\xa0 bom \xef\xbb\xbf",
    ",\",\r\n",
    /* Around JSON's 64-byte fast path: 64 bytes, 65, and a quote as byte 64. */
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
    "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\"",
};
#define NFIXED (sizeof hostile_fixed / sizeof hostile_fixed[0])
#define NHOSTILE (NFIXED + 2)
#define LONG_DIRTY 100000
#define LONG_PLAIN 5000

static char *long_dirty, *long_plain;
static const char *hostile[NHOSTILE];

static const char *const bad_path = "in/\001dir\377/\"q\"&<x>.etl";
static const char *const bad_msg = "bad \x01 record \xff \"here\" & <there>";

/* Fills hostile[] (the fixed strings plus two long ones). */
static void setup_strings(void)
{
    static const char piece[] = "abc,\"\r\n\t\x01\xff\xef\xbf\xbe\xf0\x9f\x98\x80 \\<&>";
    if (!long_dirty) {
        long_dirty = malloc(LONG_DIRTY + 1);
        long_plain = malloc(LONG_PLAIN + 1);
        ck_assert_ptr_nonnull(long_dirty);
        ck_assert_ptr_nonnull(long_plain);
        for (size_t i = 0; i < LONG_DIRTY; i++)
            long_dirty[i] = piece[i % (sizeof piece - 1)];
        long_dirty[LONG_DIRTY] = '\0';
        memset(long_plain, 'y', LONG_PLAIN);
        long_plain[LONG_PLAIN] = '\0';
    }
    for (size_t i = 0; i < NFIXED; i++)
        hostile[i] = hostile_fixed[i];
    hostile[NFIXED] = long_dirty;
    hostile[NFIXED + 1] = long_plain;
}

/* Rows: 0..NHOSTILE-1 all cells set (str = hostile[k], str2 = the next one),
 * then one with no cell set, then one with some. */
#define NROWS (NHOSTILE + 2)
#define ROW_EMPTY NHOSTILE
#define ROW_PARTIAL (NHOSTILE + 1)

static bool cell_set(size_t row, size_t col)
{
    if (row == ROW_EMPTY)
        return false;
    if (row == ROW_PARTIAL)
        return col == C_U || col == C_STR || col == C_TIME || col == C_STR2;
    return true;
}

/* The string cell (row, col) holds. */
static const char *cell_str(size_t row, size_t col)
{
    if (col == C_NAME)
        return scalar_text[C_NAME];
    if (row == ROW_PARTIAL)
        return col == C_STR ? "a,b" : "";
    return hostile[(row + (col == C_STR2)) % NHOSTILE];
}

static void fill_row(size_t row, struct etl_value *v)
{
    memset(v, 0, NCOLS * sizeof *v);
    v[C_U].v.u = UINT64_MAX;
    v[C_I].v.i = INT64_MIN;
    v[C_H16].v.u = 0xab;
    v[C_H32].v.u = 0xdeadbeef;
    v[C_H64].v.u = 0x1234;
    v[C_NAME].v.str = scalar_text[C_NAME];
    v[C_STR].v.str = cell_str(row, C_STR);
    v[C_GUID].v.g = guid_bytes;
    v[C_TIME].v.i = 16000;
    v[C_FT].v.i = 132949636352722435LL;
    v[C_STR2].v.str = cell_str(row, C_STR2);
    for (size_t c = 0; c < NCOLS; c++)
        v[c].set = cell_set(row, c);
}

/* Rows before which the problem is reported. */
#define PROBLEM_AT 3

/* Drives p through one file of the hand-made table; returns the first
 * non-zero result (0 if none). */
static int drive(struct etl_printer *p, const struct etl_table *t)
{
    int rc = 0;
    p->clock.t0 = 1000;
    p->clock.freq = 10000000;
    p->clock.start_filetime = 132949636352722435LL;
    p->clock.valid = true;
    rc |= etl_print_begin_file(p, bad_path);
    rc |= etl_print_begin_table(p, t);
    for (size_t r = 0; r < NROWS; r++) {
        struct etl_value v[NCOLS];
        if (r == PROBLEM_AT)
            rc |= etl_print_problem(p, 123, bad_msg);
        fill_row(r, v);
        rc |= etl_print_row(p, v);
    }
    rc |= etl_print_end_table(p);
    rc |= etl_print_end_file(p);
    return rc;
}

/* ---- capturing output ---------------------------------------------------- */

struct capture {
    FILE *tmp;
    struct etl_out out;
    struct etl_printer *p;
};

/* Layout options of the printers cap_open makes. */
static struct etl_print_opts cap_opts;

static struct etl_printer *cap_open(struct capture *c, const char *format,
                                    enum etl_time_mode mode)
{
    c->tmp = tmpfile();
    ck_assert_ptr_nonnull(c->tmp);
    /* A small buffer so that the slow path of etl_out_write is taken. */
    ck_assert(etl_out_init(&c->out, fileno(c->tmp), 512));
    c->p = etl_printer_new(format, &c->out, mode);
    ck_assert_ptr_nonnull(c->p);
    etl_printer_set_options(c->p, &cap_opts);
    return c->p;
}

/* Finishes the printer and returns everything written (NUL-terminated, the
 * caller frees); *len is its length. */
static char *cap_close(struct capture *c, size_t *len)
{
    ck_assert_int_eq(etl_printer_finish(c->p), 0);
    ck_assert_int_eq(c->out.err, 0);
    etl_printer_free(c->p);
    etl_out_fini(&c->out);
    int fd = fileno(c->tmp);
    off_t end = lseek(fd, 0, SEEK_END);
    ck_assert(end >= 0);
    char *buf = malloc((size_t)end + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert(lseek(fd, 0, SEEK_SET) == 0);
    size_t got = 0;
    while (got < (size_t)end) {
        ssize_t n = read(fd, buf + got, (size_t)end - got);
        ck_assert(n > 0);
        got += (size_t)n;
    }
    buf[got] = '\0';
    fclose(c->tmp);
    *len = got;
    return buf;
}

/* Runs the hand-made table through a printer; returns its output. */
static char *run(const char *format, const struct etl_table *t, size_t *len)
{
    struct capture c;
    struct etl_printer *p = cap_open(&c, format, ETL_TIME_REL);
    ck_assert_int_eq(drive(p, t), 0);
    return cap_close(&c, len);
}

/* ---- UTF-8 and the expected strings ------------------------------------- */

/* Strict UTF-8: length of the valid sequence at s[0..n) and its code point,
 * or 0. */
static size_t utf8_at(const unsigned char *s, size_t n, unsigned *cp)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    unsigned v = c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
        return 0;
    *cp = v;
    return len;
}

static bool valid_utf8(const char *s, size_t n)
{
    unsigned cp;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_at((const unsigned char *)s + i, n - i, &cp);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

/* The string s as a printer that replaces what it cannot hold shows it:
 * every byte outside valid UTF-8 becomes U+FFFD; with xml, also C0 controls
 * other than TAB, LF, CR, and U+FFFE and U+FFFF (one U+FFFD each). */
static char *expect_clean(const char *s, bool xml)
{
    size_t n = strlen(s);
    char *out = malloc(3 * n + 1);
    ck_assert_ptr_nonnull(out);
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = utf8_at((const unsigned char *)s + i, n - i, &cp);
        bool bad = k == 0;
        if (xml && k && ((cp < 0x20 && cp != 9 && cp != 10 && cp != 13) ||
                         cp == 0xFFFE || cp == 0xFFFF))
            bad = true;
        if (bad) {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i += k ? k : 1;
        } else {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        }
    }
    out[o] = '\0';
    return out;
}

/* ---- a strict RFC 4180 parser -------------------------------------------- */

struct csv_doc {
    char ***rec;      /* rec[r][f] */
    size_t *nf;
    size_t nrec;
};

/* Parses all of s[0..n): fields quoted (only at field start, "" inside) or
 * not (no quote, CR or LF), records ending in LF (CRLF with crlf). Returns
 * false with *why on anything else. */
static bool csv_parse(const char *s, size_t n, struct csv_doc *d, const char **why,
                      bool crlf)
{
    memset(d, 0, sizeof *d);
    /* Each field is read into scratch, then copied out at its own size (a
     * block the size of the rest of the input for every field made the
     * sanitizer builds map and fill gigabytes). */
    char *scratch = malloc(n + 1);
    if (!scratch) /* by hand, here and below: a ck_assert passed costs Check a message */
        ck_abort_msg("out of memory");
    size_t cap = 0, i = 0;
    char **fields = NULL; /* the record being read */
    size_t nf = 0;
    while (i < n) {
        if (d->nrec == cap) {
            cap = cap ? 2 * cap : 16;
            d->rec = realloc(d->rec, cap * sizeof *d->rec);
            d->nf = realloc(d->nf, cap * sizeof *d->nf);
            if (!d->rec || !d->nf)
                ck_abort_msg("out of memory");
        }
        for (;;) {
            char *f = scratch;
            size_t fl = 0;
            if (i < n && s[i] == '"') {
                i++;
                for (;;) {
                    if (i >= n) {
                        *why = "end of input inside a quoted field";
                        goto fail;
                    }
                    if (s[i] == '"') {
                        if (i + 1 < n && s[i + 1] == '"') {
                            f[fl++] = '"';
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    f[fl++] = s[i++];
                }
            } else {
                while (i < n && s[i] != ',' && s[i] != '\r' && s[i] != '\n') {
                    if (s[i] == '"') {
                        *why = "quote inside an unquoted field";
                        goto fail;
                    }
                    f[fl++] = s[i++];
                }
            }
            f = malloc(fl + 1);
            if (!f)
                ck_abort_msg("out of memory");
            memcpy(f, scratch, fl);
            f[fl] = '\0';
            fields = realloc(fields, (nf + 1) * sizeof *fields);
            if (!fields)
                ck_abort_msg("out of memory");
            fields[nf++] = f;
            if (i < n && s[i] == ',') {
                i++;
                continue;
            }
            if (crlf && i + 1 < n && s[i] == '\r' && s[i + 1] == '\n') {
                i += 2;
                break;
            }
            if (!crlf && i < n && s[i] == '\n') {
                i++;
                break;
            }
            *why = i >= n ? "last record without its line end"
                          : "bare CR or LF, or text after a closing quote";
            goto fail;
        }
        d->rec[d->nrec] = fields;
        d->nf[d->nrec] = nf;
        d->nrec++;
        fields = NULL;
        nf = 0;
    }
    free(scratch);
    return true;
fail:
    for (size_t k = 0; k < nf; k++)
        free(fields[k]);
    free(fields);
    free(scratch);
    return false;
}

static void csv_free(struct csv_doc *d)
{
    for (size_t r = 0; r < d->nrec; r++) {
        for (size_t f = 0; f < d->nf[r]; f++)
            free(d->rec[r][f]);
        free(d->rec[r]);
    }
    free(d->rec);
    free(d->nf);
}

/* ---- a small strict JSON parser (objects of strings and numbers) -------- */

struct jpair {
    char key[32];
    char *val;        /* decoded string, or the number's text */
    bool is_string;
};

struct jobj {
    struct jpair p[32]; /* more than any test table's columns */
    size_t n;
};

/* Appends code point cp as UTF-8. */
static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static bool hex4(const char *s, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return false;
        *v = *v * 16 + d;
    }
    return true;
}

/* Parses the JSON string at *sp (at its quote) into a new buffer. */
static char *json_str(const char **sp, const char *end)
{
    const char *s = *sp;
    if (s >= end || *s != '"')
        return NULL;
    s++;
    char *out = malloc((size_t)(end - s) + 1);
    ck_assert_ptr_nonnull(out);
    size_t o = 0;
    while (s < end && *s != '"') {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20)
            goto bad; /* raw control characters are not JSON */
        if (c != '\\') {
            out[o++] = *s++;
            continue;
        }
        if (s + 1 >= end)
            goto bad;
        char e = s[1];
        s += 2;
        switch (e) {
        case '"': out[o++] = '"'; break;
        case '\\': out[o++] = '\\'; break;
        case '/': out[o++] = '/'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (end - s < 4 || !hex4(s, &cp))
                goto bad;
            s += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (end - s < 6 || s[0] != '\\' || s[1] != 'u' || !hex4(s + 2, &lo) ||
                    lo < 0xDC00 || lo >= 0xE000)
                    goto bad;
                s += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                goto bad;
            }
            o += put_utf8(out + o, cp);
            break;
        }
        default:
            goto bad;
        }
    }
    if (s >= end)
        goto bad;
    out[o] = '\0';
    *sp = s + 1;
    return out;
bad:
    free(out);
    return NULL;
}

/* Parses one JSON object line s[0..n). */
static bool json_parse(const char *s, size_t n, struct jobj *j)
{
    const char *p = s, *end = s + n;
    j->n = 0;
    if (p >= end || *p++ != '{')
        return false;
    if (p < end && *p == '}')
        return p + 1 == end;
    for (;;) {
        if (j->n == sizeof j->p / sizeof j->p[0])
            return false;
        struct jpair *pr = &j->p[j->n];
        char *k = json_str(&p, end);
        if (!k)
            return false;
        snprintf(pr->key, sizeof pr->key, "%s", k);
        free(k);
        if (p >= end || *p++ != ':')
            return false;
        if (p < end && *p == '"') {
            pr->val = json_str(&p, end);
            if (!pr->val)
                return false;
            pr->is_string = true;
        } else {
            /* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
            const char *b = p;
            if (p < end && *p == '-')
                p++;
            if (p < end && *p == '0') {
                p++;
            } else {
                if (p >= end || *p < '1' || *p > '9')
                    return false;
                while (p < end && *p >= '0' && *p <= '9')
                    p++;
            }
            if (p < end && *p == '.') {
                p++;
                if (p >= end || *p < '0' || *p > '9')
                    return false;
                while (p < end && *p >= '0' && *p <= '9')
                    p++;
            }
            if (p < end && (*p == 'e' || *p == 'E'))
                return false; /* etldump never writes exponents */
            pr->val = strndup(b, (size_t)(p - b));
            pr->is_string = false;
        }
        j->n++;
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        return p < end && *p == '}' && p + 1 == end;
    }
}

static void json_free(struct jobj *j)
{
    for (size_t i = 0; i < j->n; i++)
        free(j->p[i].val);
    j->n = 0;
}

/* ---- CSV ----------------------------------------------------------------- */

START_TEST(csv_hostile)
{
    setup_strings();
    size_t len;
    char *out = run("csv", &rec_table, &len);
    struct csv_doc d;
    const char *why = "";
    char *fixed = NULL; /* the expected text with invalid UTF-8 replaced */
    /* --crlf: the same records with CRLF line ends. */
    cap_opts.crlf = true;
    size_t clen;
    char *crlf_out = run("csv", &rec_table, &clen);
    cap_opts.crlf = false;
    ck_assert_msg(csv_parse(crlf_out, clen, &d, &why, true), "CRLF CSV does not parse: %s", why);
    ck_assert_uint_eq(d.nrec, 1 + NROWS);
    ck_assert_uint_eq(clen, len + 1 + NROWS);
    csv_free(&d);
    free(crlf_out);
    bool ok = csv_parse(out, len, &d, &why, false);
    ck_assert_msg(ok, "CSV does not parse: %s", why);
    ck_assert_uint_eq(d.nrec, 1 + NROWS);
    for (size_t r = 0; r < d.nrec; r++)
        ck_assert_uint_eq(d.nf[r], NCOLS); /* constant field count */
    for (size_t c = 0; c < NCOLS; c++)
        ck_assert_str_eq(d.rec[0][c], rec_cols[c].name);
    for (size_t r = 0; r < NROWS; r++) {
        for (size_t c = 0; c < NCOLS; c++) {
            const char *got = d.rec[r + 1][c];
            const char *want = !cell_set(r, c) ? ""
                               : (c == C_STR || c == C_STR2) ? cell_str(r, c)
                                                              : scalar_text[c];
            /* Each byte that is not valid UTF-8 becomes U+FFFD. */
            free(fixed);
            fixed = malloc(3 * strlen(want) + 1);
            ck_assert_ptr_nonnull(fixed);
            {
                size_t o = 0;
                for (const unsigned char *q = (const unsigned char *)want; *q;) {
                    unsigned cp;
                    size_t l = *q < 0x80 ? 1 : etl_utf8_decode(q, &cp);
                    if (l) {
                        memcpy(fixed + o, q, l);
                        o += l;
                        q += l;
                    } else {
                        memcpy(fixed + o, "\xef\xbf\xbd", 3);
                        o += 3;
                        q++;
                    }
                }
                fixed[o] = '\0';
                want = fixed;
            }
            ck_assert_msg(strcmp(got, want) == 0, "row %zu col %s: got \"%.60s\" want \"%.60s\"",
                          r, rec_cols[c].name, got, want);
        }
    }
    free(fixed);
    /* Quoting as RFC 4180 spells it, checked on the raw text too. */
    ck_assert_ptr_nonnull(strstr(out, ",\"a,b,c\","));
    ck_assert_ptr_nonnull(strstr(out, ",\"say \"\"hi\"\"\","));
    ck_assert_ptr_nonnull(strstr(out, ",\"\"\"\","));
    ck_assert_ptr_nonnull(strstr(out, ",\"line1\r\nline2\","));
    ck_assert_ptr_nonnull(strstr(out, ",\"lf\nonly\","));
    ck_assert_ptr_nonnull(strstr(out, ",\"cr\ronly\","));
    ck_assert_ptr_nonnull(strstr(out, ",plain,"));
    csv_free(&d);
    free(out);
}
END_TEST

/* One header for the output, even over several files of the same table. */
START_TEST(csv_one_header)
{
    setup_strings();
    struct capture c;
    struct etl_printer *p = cap_open(&c, "csv", ETL_TIME_REL);
    ck_assert_int_eq(drive(p, &rec_table), 0);
    ck_assert_int_eq(drive(p, &rec_table), 0);
    size_t len;
    char *out = cap_close(&c, &len);
    struct csv_doc d;
    const char *why = "";
    ck_assert_msg(csv_parse(out, len, &d, &why, false), "CSV does not parse: %s", why);
    ck_assert_uint_eq(d.nrec, 1 + 2 * NROWS);
    csv_free(&d);
    free(out);
}
END_TEST

/* ---- JSON ---------------------------------------------------------------- */

START_TEST(json_hostile)
{
    setup_strings();
    size_t len;
    char *out = run("json", &rec_table, &len);
    ck_assert_msg(valid_utf8(out, len), "JSON output is not UTF-8");
    size_t row = 0;
    for (char *line = out; *line;) {
        char *nl = strchr(line, '\n');
        ck_assert_ptr_nonnull(nl); /* every line ends in LF */
        ck_assert_uint_lt(row, NROWS);
        struct jobj j;
        ck_assert_msg(json_parse(line, (size_t)(nl - line), &j),
                      "row %zu does not parse: %.80s", row, line);
        size_t k = 0;
        for (size_t c = 0; c < NCOLS; c++) {
            if (!cell_set(row, c))
                continue; /* unset cells are left out */
            ck_assert_uint_lt(k, j.n);
            ck_assert_str_eq(j.p[k].key, rec_cols[c].name); /* column order */
            ck_assert(j.p[k].is_string == !json_number[c]);
            if (c == C_STR || c == C_STR2) {
                char *want = expect_clean(cell_str(row, c), false);
                ck_assert_msg(strcmp(j.p[k].val, want) == 0, "row %zu %s: \"%.60s\" != \"%.60s\"",
                              row, rec_cols[c].name, j.p[k].val, want);
                free(want);
            } else {
                ck_assert_str_eq(j.p[k].val, scalar_text[c]);
            }
            k++;
        }
        ck_assert_uint_eq(k, j.n);
        json_free(&j);
        row++;
        line = nl + 1;
    }
    ck_assert_uint_eq(row, NROWS);
    /* The escapes themselves. */
    ck_assert_ptr_nonnull(strstr(out, "\"\\u0001ctl\\u001besc"));
    ck_assert_ptr_nonnull(strstr(out, "\"say \\\"hi\\\"\""));
    ck_assert_ptr_nonnull(strstr(out, "\"back\\\\slash\\\\\""));
    ck_assert_ptr_nonnull(strstr(out, "\"bad\xef\xbf\xbd\xef\xbf\xbdutf8\""));
    ck_assert_ptr_nonnull(strstr(out, "\"line1\\r\\nline2\""));
    ck_assert_ptr_nonnull(strstr(out, "\"tab\\there\""));
    ck_assert_ptr_nonnull(strstr(out, "\"emoji \xf0\x9f\x98\x80!\""));
    free(out);
}
END_TEST

/* ---- XML ----------------------------------------------------------------- */

static xmlDocPtr xml_parse(const char *buf, size_t len)
{
    ck_assert(len < INT32_MAX);
    return xmlReadMemory(buf, (int)len, "out.xml", NULL,
                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

/* The next element sibling starting at n (n included). */
static xmlNodePtr elem(xmlNodePtr n)
{
    while (n && n->type != XML_ELEMENT_NODE)
        n = n->next;
    return n;
}

static bool name_is(xmlNodePtr n, const char *name)
{
    return n && xmlStrcmp(n->name, BAD_CAST name) == 0;
}

/* Asserts attribute name of n equals want. */
static void assert_prop(xmlNodePtr n, const char *name, const char *want)
{
    xmlChar *v = xmlGetProp(n, BAD_CAST name);
    ck_assert_msg(v != NULL, "<%s> lacks %s", (const char *)n->name, name);
    ck_assert_msg(strcmp((const char *)v, want) == 0, "<%s %s>: \"%.60s\" != \"%.60s\"",
                  (const char *)n->name, name, (const char *)v, want);
    xmlFree(v);
}

/* Checks the rows of one <file> of the hand-made table; returns the node
 * after them. */
static xmlNodePtr check_xml_rows(xmlNodePtr n)
{
    for (size_t r = 0; r < NROWS; r++) {
        if (r == PROBLEM_AT) {
            n = elem(n);
            ck_assert_msg(name_is(n, "problem"), "no <problem> before row %zu", r);
            assert_prop(n, "offset", "123");
            char *m = expect_clean(bad_msg, true);
            assert_prop(n, "message", m);
            free(m);
            ck_assert_ptr_null(n->properties->next->next);
            n = n->next;
        }
        n = elem(n);
        ck_assert_msg(name_is(n, "rec"), "row %zu is <%s>", r, n ? (const char *)n->name : "none");
        xmlAttrPtr a = n->properties;
        for (size_t c = 0; c < NCOLS; c++) {
            if (!cell_set(r, c))
                continue;
            /* Attributes in column order, named by the columns. */
            ck_assert_ptr_nonnull(a);
            ck_assert_str_eq((const char *)a->name, rec_cols[c].name);
            a = a->next;
            if (c == C_STR || c == C_STR2) {
                char *want = expect_clean(cell_str(r, c), true);
                assert_prop(n, rec_cols[c].name, want);
                free(want);
            } else {
                assert_prop(n, rec_cols[c].name, scalar_text[c]);
            }
        }
        ck_assert_ptr_null(a); /* unset cells are left out */
        ck_assert_ptr_null(elem(n->children));
        n = n->next;
    }
    return n;
}

START_TEST(xml_hostile)
{
    setup_strings();
    size_t len;
    char *out = run("xml", &rec_table, &len);
    ck_assert_msg(valid_utf8(out, len), "XML output is not UTF-8");
    ck_assert(strncmp(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 39) == 0);
    for (size_t i = 0; i < len; i++) /* by hand: see assert_terminal_safe */
        if ((unsigned char)out[i] < 0x20 && out[i] != '\n')
            ck_abort_msg("byte 0x%02x at %zu", (unsigned char)out[i], i);
    xmlDocPtr doc = xml_parse(out, len);
    ck_assert_msg(doc != NULL, "XML output is not well-formed");
    xmlNodePtr root = xmlDocGetRootElement(doc);
    ck_assert(name_is(root, "etldump"));
    assert_prop(root, "version", "1");
    xmlNodePtr f = elem(root->children);
    ck_assert(name_is(f, "file"));
    char *path = expect_clean(bad_path, true);
    assert_prop(f, "path", path);
    free(path);
    xmlNodePtr n = check_xml_rows(f->children);
    ck_assert_ptr_null(elem(n));
    ck_assert_ptr_null(elem(f->next));
    xmlFreeDoc(doc);
    free(out);
}
END_TEST

/* Structure whatever the order of calls: no file at all, a file left open
 * after an error, a problem outside any file, two files. */
START_TEST(xml_structure)
{
    setup_strings();
    struct capture c;
    size_t len;
    char *out;
    xmlDocPtr doc;

    /* No input could be opened: an empty root. */
    cap_open(&c, "xml", ETL_TIME_REL);
    out = cap_close(&c, &len);
    doc = xml_parse(out, len);
    ck_assert_ptr_nonnull(doc);
    ck_assert(name_is(xmlDocGetRootElement(doc), "etldump"));
    ck_assert_ptr_null(elem(xmlDocGetRootElement(doc)->children));
    xmlFreeDoc(doc);
    free(out);

    /* A problem before any file, a file whose end_file never comes (main
     * skips it after an error), a second file, finish. */
    struct etl_printer *p = cap_open(&c, "xml", ETL_TIME_REL);
    ck_assert_int_eq(etl_print_problem(p, 0, "early \x02"), 0);
    ck_assert_int_eq(etl_print_begin_file(p, "one"), 0);
    ck_assert_int_eq(etl_print_begin_table(p, &rec_table), 0);
    struct etl_value v[NCOLS];
    fill_row(0, v);
    ck_assert_int_eq(etl_print_row(p, v), 0);
    ck_assert_int_eq(drive(p, &rec_table), 0);
    ck_assert_int_eq(etl_print_begin_file(p, "three"), 0);
    ck_assert_int_eq(etl_print_problem(p, UINT64_MAX, "last"), 0);
    out = cap_close(&c, &len);
    doc = xml_parse(out, len);
    ck_assert_msg(doc != NULL, "not well-formed:\n%.2000s", out);
    xmlNodePtr n = elem(xmlDocGetRootElement(doc)->children);
    ck_assert(name_is(n, "problem"));
    assert_prop(n, "message", "early \xef\xbf\xbd");
    n = elem(n->next);
    ck_assert(name_is(n, "file"));
    assert_prop(n, "path", "one");
    ck_assert(name_is(elem(n->children), "rec"));
    n = elem(n->next);
    ck_assert(name_is(n, "file"));
    ck_assert_ptr_null(elem(check_xml_rows(n->children)));
    n = elem(n->next);
    ck_assert(name_is(n, "file"));
    assert_prop(n, "path", "three");
    ck_assert(name_is(elem(n->children), "problem"));
    assert_prop(elem(n->children), "offset", "18446744073709551615");
    ck_assert_ptr_null(elem(n->next));
    xmlFreeDoc(doc);
    free(out);

    /* Destroyed without finish: nothing leaks (run under valgrind). */
    p = cap_open(&c, "xml", ETL_TIME_REL);
    ck_assert_int_eq(etl_print_begin_file(p, "x"), 0);
    etl_printer_free(p);
    etl_out_fini(&c.out);
    fclose(c.tmp);
}
END_TEST

/* ---- the real tables against doc/etldump.xsd ---------------------------- */

/* Returns the schema's path: doc/etldump.xsd beside this file's tests/. */
static char *schema_path(void)
{
    const char *env = getenv("ETLDUMP_SRCDIR");
    char *path = malloc(4096);
    ck_assert_ptr_nonnull(path);
    if (env) {
        snprintf(path, 4096, "%s/doc/etldump.xsd", env);
        return path;
    }
    const char *file = __FILE__;
    const char *slash = strrchr(file, '/');
    if (slash)
        snprintf(path, 4096, "%.*s/../../doc/etldump.xsd", (int)(slash - file), file);
    else
        snprintf(path, 4096, "../../doc/etldump.xsd");
    if (access(path, R_OK) != 0)
        snprintf(path, 4096, "doc/etldump.xsd");
    return path;
}

static xmlSchemaPtr load_schema(void)
{
    char *path = schema_path();
    xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt(path);
    ck_assert_ptr_nonnull(pc);
    xmlSchemaPtr schema = xmlSchemaParse(pc);
    ck_assert_msg(schema != NULL, "cannot load the schema %s", path);
    xmlSchemaFreeParserCtxt(pc);
    free(path);
    return schema;
}

/* Drops a validation message (for documents meant to be rejected). */
static void quiet(void *ctx, xmlErrorPtr e)
{
    (void)ctx;
    (void)e;
}

static int validate(xmlSchemaPtr schema, xmlDocPtr doc)
{
    xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt(schema);
    ck_assert_ptr_nonnull(vc);
    int rc = xmlSchemaValidateDoc(vc, doc);
    xmlSchemaFreeValidCtxt(vc);
    return rc;
}

/* A decoded payload for the fields column: numbers, a structure holding an
 * array, every hostile string (one with a NUL inside) under plain and
 * hostile names, and binary. */
static struct etl_fields hfl;
static bool hfl_made;

static const struct etl_fields *hostile_fields(void)
{
    if (hfl_made)
        return &hfl;
    hfl_made = true;
    ck_assert(etl_fields_init(&hfl, 256, 65536));
    etl_fields_uint(&hfl, "Count", 5, UINT64_MAX);
    etl_fields_int(&hfl, "Delta", 5, INT64_MIN);
    etl_fields_struct_begin(&hfl, "Info", 4);
    etl_fields_array_begin(&hfl, "Ids", 3);
    etl_fields_uint(&hfl, NULL, 0, 1);
    etl_fields_uint(&hfl, NULL, 0, 2);
    etl_fields_array_end(&hfl);
    etl_fields_struct_end(&hfl);
    for (size_t i = 0; i < NFIXED; i++) {
        const char *s = hostile_fixed[i];
        etl_fields_str_utf8(&hfl, "Text", 4, (const uint8_t *)s, strlen(s));
        etl_fields_uint(&hfl, s, strlen(s), i);
    }
    static const uint8_t nul[] = { 'a', 0, 'b' };
    etl_fields_str_utf8(&hfl, "WithNul", 7, nul, sizeof nul);
    etl_fields_binary(&hfl, "payload_hex", 11, nul, sizeof nul);
    ck_assert(!hfl.truncated);
    return &hfl;
}

/* Fills a row of a view's table: every cell set, with values at the edges
 * of their types (names the schema enumerates get a listed one). */
static void fill_view_row(const struct etl_table *t, struct etl_value *v, int variant)
{
    static const char *const names[][2] = {
        { "section", "kind" }, { "source", "compact" }, { "compact_form", "idle_short" },
        { "os_version", "10.0" }, { "layout_version", "2.0" }, { "scope", "thread" },
        { "group_masks", "00000000 20000104 00000000 00000000 00000000 00000000 00000000 00000000" },
        { "context_switches", "compact" }, { "utc_offset", "-07:00" },
    };
    for (size_t c = 0; c < t->ncols; c++) {
        const struct etl_column *col = &t->cols[c];
        v[c].set = true;
        v[c].len = 0;
        switch (col->type) {
        case ETL_COL_UINT:
        case ETL_COL_HEX16:
        case ETL_COL_HEX32:
        case ETL_COL_HEX64:
            v[c].v.u = variant ? UINT64_MAX : 0;
            break;
        case ETL_COL_INT:
            v[c].v.i = variant ? INT64_MIN : INT64_MAX;
            break;
        case ETL_COL_TIME:
            v[c].v.i = variant ? -5000000 : 132949636352722435LL;
            break;
        case ETL_COL_FILETIME:
            v[c].v.i = variant ? 0 : 132949636352722435LL;
            break;
        case ETL_COL_DURATION:
        case ETL_COL_PERCENT:
            v[c].v.i = variant ? 0 : INT64_MAX;
            break;
        case ETL_COL_GUID:
            v[c].v.g = guid_bytes;
            break;
        case ETL_COL_FIELDS:
            v[c].v.p = hostile_fields();
            break;
        case ETL_COL_NAME:
        case ETL_COL_STR:
            v[c].v.str = variant ? hostile_fixed[8] : long_dirty;
            for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
                if (strcmp(col->name, names[k][0]) == 0)
                    v[c].v.str = names[k][1];
            break;
        }
    }
}

START_TEST(xml_schema_views)
{
    setup_strings();
    xmlSchemaPtr schema = load_schema();
    static const struct etl_table *const views[] = {
        &etl_table_switches, &etl_table_events, &etl_table_stats, &etl_table_summary,
        &etl_table_info, &etl_table_usage,
    };
    static const enum etl_time_mode modes[] = { ETL_TIME_REL, ETL_TIME_RAW, ETL_TIME_ABS };
    for (size_t m = 0; m < 3; m++) {
        for (size_t vi = 0; vi < sizeof views / sizeof views[0]; vi++) {
            struct capture c;
            struct etl_printer *p = cap_open(&c, "xml", modes[m]);
            p->clock.t0 = 1000;
            p->clock.freq = 10000000;
            p->clock.start_filetime = 132949636352722435LL;
            struct etl_value v[64];
            ck_assert_int_eq(etl_print_begin_file(p, bad_path), 0);
            ck_assert_uint_le(etl_table_info.ncols, 64);
            ck_assert_uint_le(views[vi]->ncols, 64);
            ck_assert_int_eq(etl_print_begin_table(p, &etl_table_info), 0);
            fill_view_row(&etl_table_info, v, 0);
            ck_assert_int_eq(etl_print_row(p, v), 0);
            ck_assert_int_eq(etl_print_end_table(p), 0);
            if (views[vi] != &etl_table_info) {
                ck_assert_int_eq(etl_print_begin_table(p, views[vi]), 0);
                for (int variant = 0; variant < 2; variant++) {
                    fill_view_row(views[vi], v, variant);
                    ck_assert_int_eq(etl_print_row(p, v), 0);
                    ck_assert_int_eq(etl_print_problem(p, 77, bad_msg), 0);
                }
                ck_assert_int_eq(etl_print_end_table(p), 0);
            }
            ck_assert_int_eq(etl_print_end_file(p), 0);
            size_t len;
            char *out = cap_close(&c, &len);
            xmlDocPtr doc = xml_parse(out, len);
            ck_assert_ptr_nonnull(doc);
            ck_assert_msg(validate(schema, doc) == 0, "<%s> rows (time mode %zu) do not validate",
                          views[vi]->name, m);
            if (views[vi] == &etl_table_events) /* a field's U+0000 is shown as U+FFFD */
                ck_assert_ptr_nonnull(strstr(out, "name=\"WithNul\" value=\"a\xEF\xBF\xBD"
                                                  "b\""));
            xmlFreeDoc(doc);
            free(out);
        }
    }
    /* The schema does reject what it should. */
    static const char *const bad[] = {
        "<etldump version=\"1\"><file path=\"a\"><event bogus=\"1\"/></file></etldump>",
        "<etldump version=\"1\"><file path=\"a\"><stat file=\"f\" section=\"kind\" name=\"n\" "
        "count=\"-1\" bytes=\"0\"/></file></etldump>",
        "<etldump version=\"1\"><file><trace/></file></etldump>",
        "<etldump version=\"1\"><file path=\"a\"><event cpu=\"0\" header_type=\"X\" size=\"1\" "
        "buffer_offset=\"0\" event_offset=\"0\" hook_id=\"0xABCD\"/></file></etldump>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xmlDocPtr doc = xml_parse(bad[i], strlen(bad[i]));
        ck_assert_ptr_nonnull(doc);
        xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt(schema);
        xmlSchemaSetValidStructuredErrors(vc, quiet, NULL);
        ck_assert_msg(xmlSchemaValidateDoc(vc, doc) != 0, "schema accepts bad document %zu", i);
        xmlSchemaFreeValidCtxt(vc);
        xmlFreeDoc(doc);
    }
    xmlSchemaFree(schema);
}
END_TEST

/* ---- text ---------------------------------------------------------------- */

/* No byte below 0x20 but LF, and only valid UTF-8. */
static void assert_terminal_safe(const char *out, size_t len)
{
    /* Byte by byte, failing by hand: a ck_assert passed costs Check a
     * message to its parent process. */
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)out[i];
        if (ch < 0x20 && ch != '\n')
            ck_abort_msg("byte 0x%02x at %zu", ch, i);
        if (ch == 0x7f)
            ck_abort_msg("DEL at %zu", i);
    }
    ck_assert_msg(valid_utf8(out, len), "text output is not UTF-8");
}

START_TEST(text_hostile)
{
    setup_strings();
    size_t len;
    char *out = run("text", &rec_table, &len);
    assert_terminal_safe(out, len);
    /* One line per row plus the header line. */
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += out[i] == '\n';
    ck_assert_uint_eq(lines, 1 + NROWS);
    ck_assert_ptr_nonnull(strstr(out, "\\x01ctl\\x1besc\\x7fdel"));
    ck_assert_ptr_nonnull(strstr(out, "bad\xef\xbf\xbd\xef\xbf\xbdutf8")); /* U+FFFD, as elsewhere */
    ck_assert_ptr_nonnull(strstr(out, "line1\\x0d\\x0aline2"));
    ck_assert_ptr_nonnull(strstr(out, "emoji \xf0\x9f\x98\x80!"));
    ck_assert_ptr_nonnull(strstr(out, "0.001500")); /* microseconds */
    free(out);

    out = run("text", &rec_vtable, &len);
    assert_terminal_safe(out, len);
    ck_assert_ptr_nonnull(strstr(out, "\nstr: tab\\x09here\n"));
    ck_assert_ptr_nonnull(strstr(out, "\nguid: 00112233-4455-6677-8899-aabbccddeeff\n"));
    free(out);
}
END_TEST

/* Exact text lines: cells that fit their columns (written over the blank
 * row), and rows where a value does not fit (wider than its column, empty,
 * a string from the file with an escape), several in one row, a hidden
 * column and unset cells. */
enum { T_A, T_B, T_C, T_H, T_D, T_E, T_N };
static const struct etl_column tcols[T_N] = {
    [T_A] = { .name = "a", .type = ETL_COL_UINT, .width = 5 },
    [T_B] = { .name = "b", .type = ETL_COL_NAME, .width = -6 },
    [T_C] = { .name = "c", .type = ETL_COL_STR, .width = -6 },
    [T_H] = { .name = "h", .type = ETL_COL_UINT, .width = 3, .text_hidden = true },
    [T_D] = { .name = "d", .type = ETL_COL_INT, .width = 4 },
    [T_E] = { .name = "e", .type = ETL_COL_NAME, .width = -3 },
};
static const struct etl_table ttable = { "t", tcols, T_N, false, NULL };

START_TEST(text_exact_lines)
{
    struct trow {
        uint64_t a;
        const char *b, *c;
        int64_t d;
        const char *e;
        unsigned unset; /* bits: T_* not set */
        const char *want;
    } rows[] = {
        { 7, "ab", "xy", -5, "z", 0, "    7 ab     xy       -5 z" },
        { 123456, "ab", "xy", -5, "z", 0, "123456 ab     xy       -5 z" },
        { 7, "", "xy", -5, "z", 0, "    7 -      xy       -5 z" }, /* empty: a dash */
        { 7, "ab", "t\tb", -5, "z", 0, "    7 ab     t\\x09b   -5 z" },
        { 7, "ab", "xy", -123456, "z", 0, "    7 ab     xy     -123456 z" },
        { 7, "abcdefgh", "xy", -5, "z", 0, "    7 abcde\xe2\x80\xa6 xy       -5 z" },
        { 7, "ab", "xy", -5, "zzzzz", 0, "    7 ab     xy       -5 zzzzz" },
        { 0, NULL, "xy", 0, NULL, 1u << T_A | 1u << T_B | 1u << T_D | 1u << T_E,
          "    - -      xy        - -" },
        { 99999, "abcdef", "uvwxyz", 9999, "", 0, "99999 abcdef uvwxyz 9999 -" },
        /* Several cells wider than their columns in one row: each moves
         * the rest of the row on (a cut one by the ellipsis' two more
         * bytes), in place and after. */
        { 123456, "abcdefgh", "uvwxyza", -123456, "z", 0,
          "123456 abcde\xe2\x80\xa6 uvwxy\xe2\x80\xa6 -123456 z" },
        { 7, "abcdefgh", "t\tb", -5, "z", 0, "    7 abcde\xe2\x80\xa6 t\\x09b   -5 z" },
        { 7, "ab", "uvwxyza", -5, "zzzz", 1u << T_D,
          "    7 ab     uvwxy\xe2\x80\xa6    - zzzz" },
    };
    struct capture cap;
    struct etl_printer *p = cap_open(&cap, "text", ETL_TIME_REL);
    ck_assert_int_eq(etl_print_begin_table(p, &ttable), 0);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        struct etl_value v[T_N];
        const struct trow *w = &rows[r];
        ETL_CELL(v, T_A, u, w->a, !(w->unset >> T_A & 1));
        ETL_CELL_STR(v, T_B, w->b, !(w->unset >> T_B & 1));
        ETL_CELL_STR(v, T_C, w->c, !(w->unset >> T_C & 1));
        ETL_CELL(v, T_H, u, 1, true);
        ETL_CELL(v, T_D, i, w->d, !(w->unset >> T_D & 1));
        ETL_CELL_STR(v, T_E, w->e, !(w->unset >> T_E & 1));
        ck_assert_int_eq(etl_print_row(p, v), 0);
    }
    size_t len;
    char *out = cap_close(&cap, &len);
    char *line = strchr(out, '\n'); /* after the header */
    ck_assert_ptr_nonnull(line);
    ck_assert(strncmp(out, "    a b      c         d e", (size_t)(line - out)) == 0);
    line++;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        char *nl = strchr(line, '\n');
        ck_assert_ptr_nonnull(nl);
        *nl = '\0';
        ck_assert_msg(strcmp(line, rows[r].want) == 0, "row %zu: \"%s\" != \"%s\"", r, line,
                      rows[r].want);
        line = nl + 1;
    }
    ck_assert_str_eq(line, "");
    free(out);
}
END_TEST

/* ---- rows given by bits ------------------------------------------------- */

/* Rows of the hand-made table with every subset of cells a generator
 * gives, each printed once by its cells' flags (etl_print_row) and once by
 * bits (etl_print_row_set, the flags turned the other way to show they are
 * not read): every printer writes the same bytes both ways, horizontal and
 * vertical, as does a printer without row_set (through the copy). */
#define SUBSET_ROWS 600

/* The cells of subset row r: all (every 100th from 50), none (every 100th)
 * or those a generator gives. */
static uint64_t subset_bits(size_t r, uint64_t *seed)
{
    uint64_t bits = unit_rand(seed) & (((uint64_t)1 << NCOLS) - 1);
    if (r % 50 == 0)
        bits = r % 100 ? (((uint64_t)1 << NCOLS) - 1) : 0;
    return bits;
}

/* The printer's own operations, for row_by_flags. */
static const struct etl_printer_ops *own_ops;

/* A row by flags, as a printer with row and without row_set takes it: here
 * written through the printer's own operations. */
static int row_by_flags(struct etl_printer *p, const struct etl_value *vals)
{
    const struct etl_printer_ops *ops = p->ops;
    p->ops = own_ops;
    int rc = etl_print_row(p, vals);
    p->ops = ops;
    return rc;
}

/* Gives p the hand-made clock and starts a file and table t. */
static void start_table(struct etl_printer *p, const struct etl_table *t)
{
    p->clock.t0 = 1000;
    p->clock.freq = 10000000;
    p->clock.start_filetime = 132949636352722435LL;
    p->clock.valid = true;
    ck_assert_int_eq(etl_print_begin_file(p, bad_path), 0);
    ck_assert_int_eq(etl_print_begin_table(p, t), 0);
}

static char *run_subsets(const char *format, const struct etl_table *t, bool by_bits,
                         bool no_row_set, size_t *len)
{
    struct capture c;
    struct etl_printer *p = cap_open(&c, format, ETL_TIME_REL);
    struct etl_printer_ops ops = *p->ops;
    if (no_row_set) {
        own_ops = p->ops;
        ops.row = row_by_flags;
        ops.row_set = NULL;
        p->ops = &ops;
    }
    start_table(p, t);
    uint64_t seed = 12345;
    for (size_t r = 0; r < SUBSET_ROWS; r++) {
        struct etl_value v[NCOLS];
        fill_row(r % NHOSTILE, v);
        uint64_t bits = subset_bits(r, &seed);
        for (size_t i = 0; i < NCOLS; i++)
            v[i].set = (bits >> i & 1) != by_bits;
        ck_assert_int_eq(by_bits ? etl_print_row_set(p, v, bits) : etl_print_row(p, v), 0);
    }
    ck_assert_int_eq(etl_print_end_table(p), 0);
    ck_assert_int_eq(etl_print_end_file(p), 0);
    char *out = cap_close(&c, len);
    return out;
}

START_TEST(rows_by_bits)
{
    setup_strings();
    static const char *const formats[] = { "text", "csv", "xml", "json" };
    const struct etl_table *tables[] = { &rec_table, &rec_vtable };
    for (size_t k = 0; k < 4; k++)
        for (size_t t = 0; t < 2; t++) {
            size_t n1, n2, n3;
            char *a = run_subsets(formats[k], tables[t], false, false, &n1);
            char *b = run_subsets(formats[k], tables[t], true, false, &n2);
            char *c = run_subsets(formats[k], tables[t], true, true, &n3);
            ck_assert_msg(n1 == n2 && memcmp(a, b, n1) == 0, "%s: rows by bits differ", formats[k]);
            ck_assert_msg(n1 == n3 && memcmp(a, c, n1) == 0, "%s: rows through the copy differ",
                          formats[k]);
            ck_assert_uint_gt(n1, 10000);
            if (k == 1) {
                /* Each CSV field is its row's field with every cell set, or
                 * empty when its cell is not carried. */
                struct csv_doc d;
                const char *why = "";
                ck_assert_msg(csv_parse(a, n1, &d, &why, false), "CSV does not parse: %s", why);
                size_t full;
                char *f = run("csv", &rec_table, &full);
                struct csv_doc fd;
                ck_assert(csv_parse(f, full, &fd, &why, false));
                ck_assert_uint_eq(d.nrec, 1 + SUBSET_ROWS);
                uint64_t seed = 12345;
                for (size_t r = 0; r < SUBSET_ROWS; r++) {
                    uint64_t bits = subset_bits(r, &seed);
                    ck_assert_uint_eq(d.nf[r + 1], NCOLS);
                    for (size_t col = 0; col < NCOLS; col++)
                        ck_assert_str_eq(d.rec[r + 1][col],
                                         bits >> col & 1 ? fd.rec[1 + r % NHOSTILE][col] : "");
                }
                csv_free(&d);
                csv_free(&fd);
                free(f);
            }
            free(a);
            free(b);
            free(c);
        }
}
END_TEST

/* ---- a table's own row writers -------------------------------------------- */

/* Every column type, the hand-made table's and those it lacks, some twice,
 * and two names too long for the keys the JSON and XML printers write in
 * place. */
enum {
    A_U, A_I, A_H16, A_H32, A_H64, A_NAME, A_STR, A_GUID, A_TIME, A_FT, A_DUR, A_PCT,
    A_U2, A_STR2, A_I2, A_DUR2, A_TIME2, A_LONG, A_LONG_STR, A_FIELDS, NALL
};
static const struct etl_column all_cols[NALL] = {
    [A_U] = { "u", ETL_COL_UINT, 0, false },      [A_I] = { "i", ETL_COL_INT, 0, false },
    [A_H16] = { "h16", ETL_COL_HEX16, 0, false }, [A_H32] = { "h32", ETL_COL_HEX32, 0, false },
    [A_H64] = { "h64", ETL_COL_HEX64, 0, false }, [A_NAME] = { "name", ETL_COL_NAME, 0, false },
    [A_STR] = { "str", ETL_COL_STR, 0, false },   [A_GUID] = { "guid", ETL_COL_GUID, 0, false },
    [A_TIME] = { "time", ETL_COL_TIME, 0, false }, [A_FT] = { "ft", ETL_COL_FILETIME, 0, false },
    [A_DUR] = { "dur", ETL_COL_DURATION, 0, false }, [A_PCT] = { "pct", ETL_COL_PERCENT, 0, false },
    [A_U2] = { "u2", ETL_COL_UINT, 0, false },    [A_STR2] = { "str2", ETL_COL_STR, 0, false },
    [A_I2] = { "i2", ETL_COL_INT, 0, false },     [A_DUR2] = { "dur2", ETL_COL_DURATION, 0, false },
    [A_TIME2] = { "time2", ETL_COL_TIME, 0, false },
    [A_LONG] = { "a_number_whose_name_is_longer_than_a_key", ETL_COL_UINT, 0, false },
    [A_LONG_STR] = { "a_string_whose_name_is_longer_than_a_key", ETL_COL_STR, 0, false },
    [A_FIELDS] = { "fields", ETL_COL_FIELDS, 0, false },
};

ETL_CSV_ROW_WRITER(all_csv_row, all_cols, NALL)
ETL_JSON_ROW_WRITER(all_json_row, all_cols, NALL)
ETL_XML_ROW_WRITER(all_xml_row, "all", all_cols, NALL)

/* Rows the table's own writer wrote. */
static size_t own_rows;

static int all_csv_row_counted(struct etl_printer *p, const struct etl_value *vals, uint64_t set,
                               size_t file)
{
    own_rows++;
    return all_csv_row(p, vals, set, file);
}

static const struct etl_table all_loop = { "all", all_cols, NALL, false, NULL };
static const struct etl_table all_own = { "all", all_cols, NALL, false, all_csv_row_counted };

/* How run_all hands a row to printer p: to the printer (its loop, or for
 * CSV the table's own writer it calls itself), or as a view does, to the
 * table's own JSON or XML writer when etl_print_json_own or
 * etl_print_xml_own says so. */
typedef int put_row(struct etl_printer *p, const struct etl_value *vals, uint64_t set);

static int put_by_printer(struct etl_printer *p, const struct etl_value *vals, uint64_t set)
{
    return etl_print_row_set(p, vals, set);
}

static int put_by_json_own(struct etl_printer *p, const struct etl_value *vals, uint64_t set)
{
    if (!etl_print_json_own(p, &all_loop))
        return etl_print_row_set(p, vals, set);
    own_rows++;
    return all_json_row(p, vals, set);
}

static int put_by_xml_own(struct etl_printer *p, const struct etl_value *vals, uint64_t set)
{
    if (!etl_print_xml_own(p, &all_loop))
        return etl_print_row_set(p, vals, set);
    own_rows += etl_xml_row_direct(p); /* else it hands the row to the printer */
    return all_xml_row(p, vals, set);
}

/* A number of up to 20 digits, its size drawn first: every length occurs,
 * and runs of rows share leading digits (the printer's memo of them). */
static uint64_t some_number(uint64_t *seed)
{
    uint64_t r = unit_rand(seed), digits = r % 21;
    uint64_t v = unit_rand(seed);
    if (digits < 20) {
        uint64_t lim = 1;
        for (uint64_t k = 0; k < digits; k++)
            lim *= 10;
        v %= lim;
    }
    return r >> 40 & 1 ? 135905556979ull + (v & 0xFFFF) : v;
}

/* Rows of run_all; those from FORK_FROM to FORK_TO are written by forks
 * of the printer, as the pipeline's threads write them, and a second file
 * starts at SECOND_FILE. */
#define ALL_ROWS 250
#define FORK_FROM 60
#define FORK_TO 110
#define SECOND_FILE 170

/* Rows in a fork's output before the printer writes them. */
#define FORK_BATCH 7

/* ALL_ROWS rows of every column type through table t, printed in format
 * by put: cells and values from the seed, hostile strings among them, with
 * the given options and time mode (the fields, long, in every fifth row),
 * a problem now and then, some rows formatted by forks, two files. */
static char *run_all(const char *format, const struct etl_table *t, enum etl_time_mode mode,
                     const struct etl_print_opts *o, put_row *put, size_t *len)
{
    struct capture c;
    struct etl_printer *p = cap_open(&c, format, mode);
    etl_printer_set_options(p, o);
    start_table(p, t);
    struct etl_out mem;
    struct etl_printer *fork = NULL;
    uint64_t seed = 777;
    for (size_t r = 0; r < ALL_ROWS; r++) {
        struct etl_value v[NALL];
        memset(v, 0, sizeof v);
        v[A_U].v.u = some_number(&seed);
        v[A_I].v.i = (int64_t)some_number(&seed) * (r & 1 ? -1 : 1);
        v[A_H16].v.u = unit_rand(&seed) & (r % 13 ? 0xFFFF : 0xFFFFF);
        v[A_H32].v.u = unit_rand(&seed) & 0xFFFFFFFF;
        v[A_H64].v.u = unit_rand(&seed);
        v[A_NAME].v.str = r % 3 ? "Running" : "WaitingForProcessInSwap";
        /* The long strings (past the cells written in place) now and then:
         * they make the rows long. */
        const char *h = hostile[r % 50 == 7 ? NFIXED + r / 50 % 2 : r % NFIXED];
        v[A_STR].v.str = h;
        v[A_STR].len = r % 2 ? (uint32_t)strlen(h) : 0;
        v[A_GUID].v.g = guid_bytes;
        v[A_TIME].v.i = (int64_t)some_number(&seed) - (r % 7 == 0 ? INT64_MAX / 2 : 0);
        v[A_FT].v.i = 132949636352722435LL + (int64_t)(unit_rand(&seed) >> 8);
        v[A_DUR].v.i = (int64_t)some_number(&seed) * (r % 5 == 0 ? -1 : 1);
        v[A_PCT].v.i = (int64_t)(unit_rand(&seed) % 20001) * (r % 6 == 0 ? -1 : 1);
        v[A_U2].v.u = some_number(&seed);
        /* A plain string said to be plain, its length given or not. */
        v[A_STR2].v.str = r % 4 ? "plain" : hostile[(r + 1) % NFIXED];
        v[A_STR2].len = r % 4 ? (r % 3 ? ETL_CELL_PLAIN : ETL_CELL_PLAIN | 5) : 0;
        v[A_I2].v.i = r % 9 ? -1 : INT64_MIN;
        v[A_DUR2].v.i = r % 11 ? (int64_t)(unit_rand(&seed) % 100000000000ull) : INT64_MAX;
        v[A_TIME2].v.i = 16000 + (int64_t)r * 997;
        v[A_LONG].v.u = some_number(&seed);
        v[A_LONG_STR].v.str = hostile[(r + 3) % NFIXED];
        v[A_FIELDS].v.p = hostile_fields();
        uint64_t bits = unit_rand(&seed) & (((uint64_t)1 << NALL) - 1);
        if (r % 5)
            bits &= ~((uint64_t)1 << A_FIELDS);
        if (r % 50 == 0)
            bits = r % 100 ? (((uint64_t)1 << NALL) - 1) : 0;
        if (r == SECOND_FILE) {
            ck_assert_int_eq(etl_print_end_table(p), 0);
            ck_assert_int_eq(etl_print_end_file(p), 0);
            ck_assert_int_eq(etl_print_begin_file(p, "second.etl"), 0);
            ck_assert_int_eq(etl_print_begin_table(p, t), 0);
        }
        if (r % 37 == 5 && !fork)
            ck_assert_int_eq(etl_print_problem(p, r, bad_msg), 0);
        if (r == FORK_FROM) {
            ck_assert(etl_out_init_mem(&mem, 64));
            fork = etl_printer_fork(p, &mem);
            ck_assert_ptr_nonnull(fork);
        }
        ck_assert_int_eq(put(fork ? fork : p, v, bits), 0);
        if (fork && (r % FORK_BATCH == 0 || r == FORK_TO)) {
            ck_assert_int_eq(mem.err, 0);
            ck_assert_int_eq(etl_print_raw(p, mem.buf, mem.len), 0);
            etl_out_reset(&mem);
        }
        if (r == FORK_TO) {
            etl_printer_free(fork);
            etl_out_fini(&mem);
            fork = NULL;
        }
    }
    ck_assert_int_eq(etl_print_end_table(p), 0);
    ck_assert_int_eq(etl_print_end_file(p), 0);
    return cap_close(&c, len);
}

static const enum etl_time_mode all_modes[] = { ETL_TIME_REL, ETL_TIME_RAW, ETL_TIME_ABS };

/* A table's own writer (ETL_CSV_ROW_WRITER) writes the bytes the printer's
 * loop writes, for every column type, time mode and layout option, and is
 * the one that writes its table's rows. */
START_TEST(csv_own_writer)
{
    setup_strings();
    for (size_t m = 0; m < 3; m++)
        for (unsigned opt = 0; opt < 4; opt++) {
            struct etl_print_opts o = { .crlf = opt & 1, .with_filename = (opt & 2) != 0 };
            size_t n1, n2;
            own_rows = 0;
            char *a = run_all("csv", &all_loop, all_modes[m], &o, put_by_printer, &n1);
            ck_assert_uint_eq(own_rows, 0);
            char *b = run_all("csv", &all_own, all_modes[m], &o, put_by_printer, &n2);
            ck_assert_uint_eq(own_rows, ALL_ROWS);
            ck_assert_uint_gt(n1, 50000);
            ck_assert_msg(n1 == n2 && memcmp(a, b, n1) == 0,
                          "time mode %zu, options %u: the table's own writer differs", m, opt);
            struct csv_doc d;
            const char *why = "";
            ck_assert_msg(csv_parse(a, n1, &d, &why, opt & 1), "CSV does not parse: %s", why);
            ck_assert_uint_eq(d.nrec, 1 + ALL_ROWS);
            csv_free(&d);
            free(a);
            free(b);
        }
}
END_TEST

/* Returns the offset of the first byte where a[0..na) and b[0..nb)
 * differ (the shorter one's length when one begins the other). */
static size_t first_difference(const char *a, size_t na, const char *b, size_t nb)
{
    size_t i = 0;
    while (i < na && i < nb && a[i] == b[i])
        i++;
    return i;
}

/* The same for the table's own JSON writer as a view calls it
 * (etl_print_json_own: with a file column only when the input's name needs
 * no escapes, as the second file's does, not the first's); every row is an
 * object. */
START_TEST(json_own_writer)
{
    setup_strings();
    for (size_t m = 0; m < 3; m++)
        for (unsigned opt = 0; opt < 2; opt++) {
            struct etl_print_opts o = { .with_filename = opt != 0 };
            size_t n1, n2;
            own_rows = 0;
            char *a = run_all("json", &all_loop, all_modes[m], &o, put_by_printer, &n1);
            ck_assert_uint_eq(own_rows, 0);
            char *b = run_all("json", &all_loop, all_modes[m], &o, put_by_json_own, &n2);
            ck_assert_uint_eq(own_rows, opt ? ALL_ROWS - SECOND_FILE : ALL_ROWS);
            ck_assert_uint_gt(n1, 50000);
            size_t at = first_difference(a, n1, b, n2);
            ck_assert_msg(n1 == n2 && at == n1,
                          "time mode %zu, options %u: the table's own writer differs at %zu: "
                          "%.60s / %.60s", m, opt, at, a + (at > 20 ? at - 20 : 0),
                          b + (at > 20 ? at - 20 : 0));
            size_t rows = 0;
            for (char *line = a; *line; rows++) {
                char *nl = strchr(line, '\n');
                ck_assert_ptr_nonnull(nl);
                struct jobj j;
                /* The fields are an object, which json_parse does not take. */
                char *f = strstr(line, "\"fields\":");
                ck_assert_msg((f && f < nl) || json_parse(line, (size_t)(nl - line), &j),
                              "row %zu does not parse: %.80s", rows, line);
                if (!(f && f < nl))
                    json_free(&j);
                line = nl + 1;
            }
            ck_assert_uint_eq(rows, ALL_ROWS);
            free(a);
            free(b);
        }
}
END_TEST

/* The same for the table's own XML writer as a view calls it
 * (etl_print_xml_own), which writes the rows after the first of a file or
 * after a problem itself, into the output; the document parses. */
START_TEST(xml_own_writer)
{
    setup_strings();
    for (size_t m = 0; m < 3; m++)
        for (unsigned opt = 0; opt < 2; opt++) {
            struct etl_print_opts o = { .with_filename = opt != 0 };
            size_t n1, n2;
            own_rows = 0;
            char *a = run_all("xml", &all_loop, all_modes[m], &o, put_by_printer, &n1);
            ck_assert_uint_eq(own_rows, 0);
            char *b = run_all("xml", &all_loop, all_modes[m], &o, put_by_xml_own, &n2);
            /* All but the first row of each file and the rows after a
             * problem outside the forks' rows. */
            ck_assert_uint_lt(own_rows, ALL_ROWS);
            ck_assert_uint_ge(own_rows, ALL_ROWS - 10);
            ck_assert_uint_gt(n1, 50000);
            size_t at = first_difference(a, n1, b, n2);
            ck_assert_msg(n1 == n2 && at == n1,
                          "time mode %zu, options %u: the table's own writer differs at %zu: "
                          "%.60s / %.60s", m, opt, at, a + (at > 20 ? at - 20 : 0),
                          b + (at > 20 ? at - 20 : 0));
            xmlDocPtr doc = xml_parse(a, n1);
            ck_assert_msg(doc != NULL, "time mode %zu, options %u: not well-formed", m, opt);
            /* Each problem before the row it came before (its offset is
             * that row's number). */
            size_t rows = 0, files = 0, problems = 0;
            for (xmlNodePtr f = elem(xmlDocGetRootElement(doc)->children); f;
                 f = elem(f->next), files++)
                for (xmlNodePtr n = elem(f->children); n; n = elem(n->next)) {
                    if (name_is(n, "problem")) {
                        char before[24];
                        snprintf(before, sizeof before, "%zu", rows);
                        assert_prop(n, "offset", before);
                        problems++;
                    }
                    rows += name_is(n, "all");
                }
            ck_assert_uint_eq(files, 2);
            ck_assert_uint_eq(rows, ALL_ROWS);
            ck_assert_uint_eq(problems, 6);
            xmlFreeDoc(doc);
            free(a);
            free(b);
        }
}
END_TEST

/* The scans for bytes to escape or quote (etl_json_plain,
 * etl_xml_plain_str, etl_csv_plain_str) say what the printers' tables say
 * (and CSV's rule for a space first or last), of strings of every length up to past
 * the longest written in place with one byte of every value at every
 * place, each string alone in a block of its length (a read past it is
 * one the sanitizers see). */
START_TEST(plain_scans)
{
    for (size_t n = 0; n <= 80; n++) {
        char *s = malloc(n ? n : 1);
        ck_assert_ptr_nonnull(s);
        memset(s, 'a', n);
        ck_assert(etl_json_plain(s, n));
        ck_assert(etl_xml_plain_str(s, n));
        ck_assert(etl_csv_plain_str(s, n));
        for (size_t at = 0; at < n; at++) {
            for (unsigned b = 0; b < 256; b++) {
                s[at] = (char)b;
                /* Not ck_assert: each one tells the parent process where
                 * the test is, a write to a pipe. */
                if (etl_json_plain(s, n) != !etl_json_special[b])
                    ck_abort_msg("JSON: byte 0x%02x at %zu of %zu", b, at, n);
                if (etl_xml_plain_str(s, n) != (etl_xml_plain[b] != 0))
                    ck_abort_msg("XML: byte 0x%02x at %zu of %zu", b, at, n);
                /* First: a space (quoted) or what begins a formula (an
                 * apostrophe first); last: a space. */
                bool edge = (at == 0 && b != 0 && strchr(" =+-@\t\r", (int)b)) ||
                            (at == n - 1 && b == ' ');
                if (etl_csv_plain_str(s, n) != (!etl_csv_special[b] && !edge))
                    ck_abort_msg("CSV: byte 0x%02x at %zu of %zu", b, at, n);
            }
            s[at] = 'a';
        }
        free(s);
    }
}
END_TEST

/* ETL_CELL_PLAIN: every printer takes a plain string's length through it
 * (measured or given) and writes what it writes without the flag; CSV's
 * loop and a table's own writer copy such a string without looking at it
 * (the view's promise), and quote the same bytes without the flag. */
static const struct etl_column plain_cols[2] = {
    { "name", ETL_COL_STR, 0, false }, { "other", ETL_COL_STR, 0, false },
};
ETL_CSV_ROW_WRITER(plain_csv_row, plain_cols, 2)
static const struct etl_table plain_loop = { "p", plain_cols, 2, false, NULL };
static const struct etl_table plain_own = { "p", plain_cols, 2, false, plain_csv_row };

static char *run_plain(const char *format, const struct etl_table *t, uint32_t flag, size_t *len)
{
    struct capture c;
    struct etl_printer *p = cap_open(&c, format, ETL_TIME_REL);
    start_table(p, t);
    struct etl_value v[2];
    memset(v, 0, sizeof v);
    v[0].v.str = "Thread/CSwitch";
    v[0].len = flag; /* measured */
    v[1].v.str = "a,b";
    v[1].len = 3 | (strcmp(format, "csv") == 0 ? flag : 0);
    ck_assert_int_eq(etl_print_row_set(p, v, 3), 0);
    v[0].len = 14 | flag; /* given */
    ck_assert_int_eq(etl_print_row_set(p, v, 1), 0);
    ck_assert_int_eq(etl_print_end_table(p), 0);
    ck_assert_int_eq(etl_print_end_file(p), 0);
    return cap_close(&c, len);
}

START_TEST(plain_cells)
{
    static const char *const formats[] = { "text", "xml", "json" };
    for (size_t k = 0; k < 3; k++) {
        size_t n1, n2;
        char *a = run_plain(formats[k], &plain_loop, 0, &n1);
        char *b = run_plain(formats[k], &plain_loop, ETL_CELL_PLAIN, &n2);
        ck_assert_msg(n1 == n2 && memcmp(a, b, n1) == 0, "%s: a plain cell differs", formats[k]);
        ck_assert_ptr_nonnull(strstr(a, "Thread/CSwitch"));
        free(a);
        free(b);
    }
    const struct etl_table *tables[] = { &plain_loop, &plain_own };
    for (size_t t = 0; t < 2; t++) {
        size_t n;
        char *a = run_plain("csv", tables[t], 0, &n);
        ck_assert_str_eq(a, "name,other\nThread/CSwitch,\"a,b\"\nThread/CSwitch,\n");
        free(a);
        a = run_plain("csv", tables[t], ETL_CELL_PLAIN, &n);
        ck_assert_str_eq(a, "name,other\nThread/CSwitch,a,b\nThread/CSwitch,\n");
        free(a);
    }
}
END_TEST

/* Strings from the file that begin as spreadsheet formulas (CWE-1236):
 * an apostrophe first in CSV, inside the quotes when the field has them,
 * through the row loop and a table's own writer, short and long (past
 * ETL_CSV_CELL_MAX, the careful path) alike; as they are with
 * csv_formulas, in a NAME column (the tool's own words) and after the
 * first byte. */
static const struct etl_column formula_cols[2] = {
    { "s", ETL_COL_STR, 0, false }, { "n", ETL_COL_NAME, 0, false },
};
ETL_CSV_ROW_WRITER(formula_csv_row, formula_cols, 2)
static const struct etl_table formula_loop = { "f", formula_cols, 2, false, NULL };
static const struct etl_table formula_own = { "f", formula_cols, 2, false, formula_csv_row };

START_TEST(csv_formulas)
{
    /* A string; the STR cell by default and with csv_formulas. The NAME
     * cell is the string as it is (copied, below ETL_CSV_CELL_MAX bytes:
     * the tool's own words need no quoting). */
    static const struct {
        const char *in, *guarded, *kept;
    } cases[] = {
        { "=1+1", "'=1+1", "=1+1" },
        { "+1", "'+1", "+1" },
        { "-1", "'-1", "-1" },
        { "@SUM(A1)", "'@SUM(A1)", "@SUM(A1)" },
        { "\tx", "'\tx", "\tx" },
        { "\rx", "\"'\rx\"", "\"\rx\"" },
        { "=A1,\"b\"", "\"'=A1,\"\"b\"\"\"", "\"=A1,\"\"b\"\"\"" },
        { "\xef\xbc\x9d" "1", "'\xef\xbc\x9d" "1", "\xef\xbc\x9d" "1" },
        { "\xef\xbc\x8b" "1", "'\xef\xbc\x8b" "1", "\xef\xbc\x8b" "1" },
        { "\xef\xbc\x8d" "1", "'\xef\xbc\x8d" "1", "\xef\xbc\x8d" "1" },
        { "\xef\xbc\xa0" "x", "'\xef\xbc\xa0" "x", "\xef\xbc\xa0" "x" },
        /* U+FF21, a letter; then the first two bytes of U+FF1D alone. */
        { "\xef\xbc\xa1" "A", "\xef\xbc\xa1" "A", "\xef\xbc\xa1" "A" },
        { "\xef\xbc", "\xef\xbf\xbd\xef\xbf\xbd", "\xef\xbf\xbd\xef\xbf\xbd" },
        { "a=b", "a=b", "a=b" },
        { " =x", "\" =x\"", "\" =x\"" },
        { "", "", "" },
        { "=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
          "'=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
          "=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
    };
    const struct etl_table *tables[] = { &formula_loop, &formula_own };
    for (size_t t = 0; t < 2; t++)
        for (int keep = 0; keep < 2; keep++)
            for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct capture c;
                struct etl_printer *p = cap_open(&c, "csv", ETL_TIME_REL);
                struct etl_print_opts o = { .csv_formulas = keep != 0 };
                etl_printer_set_options(p, &o);
                start_table(p, tables[t]);
                struct etl_value v[2];
                memset(v, 0, sizeof v);
                v[0].v.str = v[1].v.str = cases[i].in;
                ck_assert_int_eq(etl_print_row_set(p, v, 3), 0);
                ck_assert_int_eq(etl_print_end_table(p), 0);
                ck_assert_int_eq(etl_print_end_file(p), 0);
                size_t n;
                char *got = cap_close(&c, &n);
                char want[256];
                snprintf(want, sizeof want, "s,n\n%s,%s\n",
                         keep ? cases[i].kept : cases[i].guarded, cases[i].in);
                ck_assert_msg(strcmp(got, want) == 0, "table %zu, keep %d, case %zu: [%s], not [%s]",
                              t, keep, i, got, want);
                free(got);
            }
}
END_TEST

/* ---- write errors -------------------------------------------------------- */

START_TEST(write_error_dev_full)
{
    setup_strings();
    static const char *const formats[] = { "text", "csv", "xml", "json" };
    for (size_t k = 0; k < 4; k++) {
        int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        struct etl_out out;
        ck_assert(etl_out_init(&out, fd, 256));
        struct etl_printer *p = etl_printer_new(formats[k], &out, ETL_TIME_REL);
        ck_assert_ptr_nonnull(p);
        /* Enough rows to overflow every buffer on the way (libxml2 keeps
         * 4000 bytes before it calls back). */
        int rc = 0;
        for (int i = 0; i < 20 && rc == 0; i++)
            rc = drive(p, &rec_table);
        ck_assert_msg(rc != 0, "%s: no call reported the write error", formats[k]);
        ck_assert_int_eq(out.err, ENOSPC);
        /* Once failed, calls keep failing and finish says so. */
        struct etl_value v[NCOLS];
        fill_row(0, v);
        ck_assert_int_eq(etl_print_row(p, v), -1);
        ck_assert_int_eq(etl_printer_finish(p), -1);
        ck_assert_int_eq(out.err, ENOSPC);
        etl_printer_free(p);
        etl_out_fini(&out);
        close(fd);

        /* A document too small to fill a buffer: finish reports it. */
        fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert(etl_out_init(&out, fd, 1 << 16));
        p = etl_printer_new(formats[k], &out, ETL_TIME_REL);
        ck_assert_int_eq(etl_print_begin_file(p, "f"), 0);
        ck_assert_int_eq(etl_print_begin_table(p, &rec_table), 0);
        ck_assert_int_eq(etl_print_row(p, v), 0);
        ck_assert_int_eq(etl_print_end_table(p), 0);
        ck_assert_int_eq(etl_print_end_file(p), 0);
        ck_assert_int_eq(etl_printer_finish(p), -1);
        ck_assert_int_eq(out.err, ENOSPC);
        etl_printer_free(p);
        etl_out_fini(&out);
        close(fd);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("printers");
    TCase *tc = tcase_create("printers");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, csv_hostile);
    tcase_add_test(tc, csv_one_header);
    tcase_add_test(tc, json_hostile);
    tcase_add_test(tc, text_exact_lines);
    tcase_add_test(tc, xml_hostile);
    tcase_add_test(tc, xml_structure);
    tcase_add_test(tc, xml_schema_views);
    tcase_add_test(tc, text_hostile);
    tcase_add_test(tc, write_error_dev_full);
    tcase_add_test(tc, rows_by_bits);
    tcase_add_test(tc, csv_own_writer);
    tcase_add_test(tc, json_own_writer);
    tcase_add_test(tc, xml_own_writer);
    tcase_add_test(tc, plain_cells);
    tcase_add_test(tc, csv_formulas);
    tcase_add_test(tc, plain_scans);
    suite_add_tcase(s, tc);
    int rc = unit_run(s);
    etl_fields_free(&hfl);
    xmlCleanupParser();
    free(long_dirty);
    free(long_plain);
    return rc;
}
