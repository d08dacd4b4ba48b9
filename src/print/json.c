/*
 * json.c - JSON Lines: one object per row, keys equal to the CSV column
 * names, numbers as numbers, strings escaped (json_string alone does this).
 * Cells a record does not carry are left out of its object. A value has the
 * same JSON type whatever the options: times shown per --time (`time`,
 * `first`, `last`, ...) are always strings (a relative time, a tick count or
 * an ISO 8601 date), raw `timestamp`s and durations always numbers, hex
 * values and GUIDs always strings.
 */
#include "print/printer.h"

#include <stdio.h>
#include <stdlib.h>

#include "fields.h"
#include "fmt.h"

/* Writes s as a JSON string: quotes, backslashes and control characters
 * escaped; bytes that are not UTF-8 replaced by U+FFFD itself (as in every
 * format, not by an escape). */
static void json_string(struct etl_out *o, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    etl_out_putc(o, '"');
    size_t start = 0, i = 0;
    for (;;) {
        unsigned char ch = s[i];
        if (ch == 0)
            break;
        if (ch >= 0x20 && ch != '"' && ch != '\\' && ch < 0x80) {
            i++;
            continue;
        }
        etl_out_write(o, s + start, i - start);
        if (ch >= 0x80) {
            /* Copy a valid UTF-8 sequence, replace anything else. */
            unsigned cp;
            size_t len = etl_utf8_decode(s + i, &cp);
            bool ok = len > 0;
            if (ok) {
                etl_out_write(o, s + i, len);
                i += len;
            } else {
                etl_out_write(o, "\xEF\xBF\xBD", 3);
                i++;
            }
        } else {
            char esc[8];
            switch (ch) {
            case '"': etl_out_puts(o, "\\\""); break;
            case '\\': etl_out_puts(o, "\\\\"); break;
            case '\n': etl_out_puts(o, "\\n"); break;
            case '\r': etl_out_puts(o, "\\r"); break;
            case '\t': etl_out_puts(o, "\\t"); break;
            default:
                snprintf(esc, sizeof esc, "\\u%04x", ch);
                etl_out_puts(o, esc);
                break;
            }
            i++;
        }
        start = i;
    }
    etl_out_write(o, s + start, i - start);
    etl_out_putc(o, '"');
}

/* Bytes of a string that json_string must see: quotes, backslashes,
 * control characters and every byte of a multi-byte sequence (checked
 * there); 0 ends the string. */
static const bool json_special[256] = {
    ETL_BYTES16(0x00), ETL_BYTES16(0x10), ['"'] = true, ['\\'] = true, ETL_BYTES_UTF8,
};

/* The longest string value written without json_string, and the room a
 * key and its value take at most on that path. */
#define PLAIN_MAX 64
#define KEY_MAX 32

/* The keys of the columns of the table being written, each as `,"name":`
 * in a slot, of which KEY_MAX bytes are copied whole from the comma or past
 * it (a fixed size is a few moves); made on the first row of each table (a
 * fork makes its own; without memory for them the row fails as out of
 * memory). A key of len 0 has a name too long for a slot: json_cell writes
 * it the slow way. */
#define KEY_SLOT (KEY_MAX + 1)
struct json_key {
    char s[KEY_SLOT];
    size_t len;
};

struct json_keys {
    const struct etl_table *t; /* whose keys k holds, or NULL */
    struct json_key *k;
    size_t cap;
};

/* Returns the keys of table t (which has columns), or NULL when out of
 * memory. */
static const struct json_key *json_keys(struct etl_printer *p, const struct etl_table *t)
{
    struct json_keys *jk = p->priv;
    if (jk && jk->t == t)
        return jk->k;
    if (!jk && !(p->priv = jk = calloc(1, sizeof *jk)))
        return NULL;
    jk->t = NULL;
    if (jk->cap < t->ncols) {
        struct json_key *k = realloc(jk->k, t->ncols * sizeof *k);
        if (!k)
            return NULL;
        jk->k = k;
        jk->cap = t->ncols;
    }
    for (size_t i = 0; i < t->ncols; i++) {
        struct json_key *k = &jk->k[i];
        size_t nl = strlen(t->cols[i].name);
        memset(k->s, 0, sizeof k->s);
        k->len = 0;
        if (nl + 4 > KEY_MAX)
            continue;
        k->s[0] = ',';
        k->s[1] = '"';
        memcpy(k->s + 2, t->cols[i].name, nl);
        k->s[nl + 2] = '"';
        k->s[nl + 3] = ':';
        k->len = nl + 4;
    }
    jk->t = t;
    return jk->k;
}

static void json_destroy(struct etl_printer *p)
{
    struct json_keys *jk = p->priv;
    if (jk)
        free(jk->k);
    free(jk);
    p->priv = NULL;
}

/* Formats a cell of another type (hex values, GUIDs, times) into buf and
 * returns its length; *quoted says whether it is written as a JSON string:
 * whatever etl_format_scalar does not call a number, and times whatever
 * --time says. */
static size_t json_scalar(struct etl_printer *p, const struct etl_column *c,
                          const struct etl_value *v, char *buf, bool *quoted)
{
    bool num;
    size_t n = etl_format_scalar(p, c, v, buf, &num);
    *quoted = !num || c->type == ETL_COL_TIME;
    return n;
}

/* Writes one cell as `"name":value` (after a comma unless first), its key
 * from key; the usual cells (numbers, short strings that need no escape)
 * go straight into one reservation, the others through json_string and
 * the fields' writer. */
static void json_cell(struct etl_printer *p, const struct etl_column *c,
                      const struct json_key *key, const struct etl_value *v, bool first)
{
    struct etl_out *o = p->out;
    char *d = key->len ? etl_out_space(o, KEY_MAX + PLAIN_MAX + 8) : NULL;
    if (d) {
        /* KEY_MAX bytes of the slot, from its comma or past it: the value
         * overwrites what follows the key. */
        memcpy(d, key->s + first, KEY_MAX);
        size_t k = key->len - first;
        switch (c->type) {
        case ETL_COL_UINT:
            etl_out_advance(o, k + etl_fmt_u64_memo(v->v.u, d + k, &p->memo_int));
            return;
        case ETL_COL_INT:
            etl_out_advance(o, k + etl_fmt_i64_memo(v->v.i, d + k, &p->memo_int));
            return;
        case ETL_COL_DURATION:
            /* Nine decimals: this printer keeps the default time_decimals. */
            etl_out_advance(o, k + etl_fmt_seconds9(v->v.i, d + k));
            return;
        case ETL_COL_STR:
        case ETL_COL_NAME: {
            const unsigned char *s = (const unsigned char *)v->v.str;
            size_t n = etl_cell_len(v), j = 0;
            if (n > PLAIN_MAX)
                break; /* json_string writes it */
            while (j < n && !json_special[s[j]])
                j++;
            if (j < n)
                break;
            d[k++] = '"';
            etl_copy_small(d + k, v->v.str, n);
            k += n;
            d[k++] = '"';
            etl_out_advance(o, k);
            return;
        }
        case ETL_COL_FIELDS:
            break;
        case ETL_COL_TIME:
            if (p->time_mode == ETL_TIME_REL) { /* a string, nine decimals */
                d[k] = '"';
                k += 1 + etl_fmt_seconds9_memo(etl_clock_ns(&p->clock, v->v.i), d + k + 1,
                                               &p->memo_secs);
                d[k++] = '"';
                etl_out_advance(o, k);
                return;
            }
            /* fall through */
        default: {
            bool quoted;
            size_t n = json_scalar(p, c, v, d + k + 1, &quoted);
            if (!quoted) {
                memmove(d + k, d + k + 1, n);
                k += n;
            } else {
                d[k] = '"';
                k += n + 1;
                d[k++] = '"';
            }
            etl_out_advance(o, k);
            return;
        }
        }
        etl_out_advance(o, k); /* the key: the value follows */
    } else {
        if (!first)
            etl_out_putc(o, ',');
        etl_out_putc(o, '"');
        etl_out_puts(o, c->name);
        etl_out_write(o, "\":", 2);
    }
    if (c->type == ETL_COL_STR || c->type == ETL_COL_NAME) {
        json_string(o, v->v.str);
    } else if (c->type == ETL_COL_FIELDS) {
        etl_fields_json(v->v.p, o);
    } else {
        char buf[64];
        bool quoted;
        size_t n = json_scalar(p, c, v, buf, &quoted);
        if (quoted)
            etl_out_putc(o, '"');
        etl_out_write(o, buf, n);
        if (quoted)
            etl_out_putc(o, '"');
    }
}

static int json_row_set(struct etl_printer *p, const struct etl_value *vals, const uint64_t *set)
{
    const struct etl_table *t = p->table;
    const struct json_key *keys = t->ncols ? json_keys(p, t) : NULL;
    if (t->ncols && !keys)
        return etl_print_nomem(p);
    bool first = true;
    etl_out_putc(p->out, '{');
    if (etl_print_file_column(p, t) && p->file) {
        etl_out_puts(p->out, "\"file\":");
        json_string(p->out, p->file);
        first = false;
    }
    /* From each carried cell to the next. */
    const size_t ncols = t->ncols;
    for (size_t base = 0; base < ncols; base += 64) {
        uint64_t m = etl_set_word(set, base, ncols);
        for (; m; m &= m - 1) {
            size_t i = base + etl_ctz64(m);
            json_cell(p, &t->cols[i], &keys[i], &vals[i], first);
            first = false;
        }
    }
    etl_out_write(p->out, "}\n", 2);
    return etl_print_status(p);
}


const struct etl_printer_ops etl_print_json = {
    .name = "json",
    .row_set = json_row_set,
    .destroy = json_destroy,
};
