/*
 * json.c - JSON Lines: one object per row, keys equal to the CSV column
 * names, numbers as numbers, strings escaped (etl_json_string alone does
 * this; jsonrow.h writes the cells).
 * Cells a record does not carry are left out of its object. A value has the
 * same JSON type whatever the options: times shown per --time (`time`,
 * `first`, `last`, ...) are always strings (a relative time, a tick count or
 * an ISO 8601 date), raw `timestamp`s and durations always numbers, hex
 * values and GUIDs always strings.
 */
#include "print/jsonrow.h"

#include <stdio.h>
#include <stdlib.h>

#include "fields.h"
#include "fmt.h"

/* A string the careful way (jsonrow.h). */
void etl_json_string(struct etl_out *o, const char *str)
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

/* Bytes that send a string to etl_json_string (jsonrow.h). */
const bool etl_json_special[256] = {
    ETL_BYTES16(0x00), ETL_BYTES16(0x10), ['"'] = true, ['\\'] = true, ETL_BYTES_UTF8,
};

#define KEY_MAX ETL_JSON_KEY_MAX

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

/* A value the careful way (jsonrow.h): whatever etl_format_scalar does not
 * call a number is a JSON string, and so are times whatever --time says. */
void etl_json_value_slow(struct etl_printer *p, enum etl_col_type ty,
                         const struct etl_value *v)
{
    struct etl_out *o = p->out;
    if (ty == ETL_COL_STR || ty == ETL_COL_NAME) {
        etl_json_string(o, v->v.str);
    } else if (ty == ETL_COL_FIELDS) {
        etl_fields_json(v->v.p, o);
    } else {
        char buf[64];
        bool num;
        struct etl_column c = { NULL, ty, 0, false };
        size_t n = etl_format_scalar(p, &c, v, buf, &num);
        bool quoted = !num || ty == ETL_COL_TIME;
        if (quoted)
            etl_out_putc(o, '"');
        etl_out_write(o, buf, n);
        if (quoted)
            etl_out_putc(o, '"');
    }
}

/* A cell the careful way, its key too (jsonrow.h). */
void etl_json_cell_slow(struct etl_printer *p, const char *name, enum etl_col_type ty,
                        const struct etl_value *v, char sep)
{
    struct etl_out *o = p->out;
    if (sep)
        etl_out_putc(o, sep);
    etl_out_putc(o, '"');
    etl_out_puts(o, name);
    etl_out_write(o, "\":", 2);
    etl_json_value_slow(p, ty, v);
}

/* Writes one cell as `"name":value` (after a comma unless first), its key
 * from key; the usual cells (numbers, short strings that need no escape)
 * go straight into one reservation (etl_json_value), the others through
 * etl_json_string and the fields' writer. */
static void json_cell(struct etl_printer *p, const struct etl_column *c,
                      const struct json_key *key, const struct etl_value *v, bool first)
{
    struct etl_out *o = p->out;
    char *d = key->len ? etl_out_space(o, ETL_JSON_CELL_MAX) : NULL;
    if (!d) {
        etl_json_cell_slow(p, c->name, c->type, v, first ? 0 : ',');
        return;
    }
    /* KEY_MAX bytes of the slot, from its comma or past it: the value
     * overwrites what follows the key. */
    memcpy(d, key->s + first, KEY_MAX);
    size_t k = key->len - first;
    char *e = etl_json_value(p, c->type, v, d + k);
    if (e) {
        etl_out_advance(o, (size_t)(e - d));
        return;
    }
    etl_out_advance(o, k); /* the key: the value follows */
    etl_json_value_slow(p, c->type, v);
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
        if (p->file_json_plain) {
            etl_out_puts(p->out, "\"file\":\"");
            etl_out_write(p->out, p->file, p->file_len);
            etl_out_putc(p->out, '"');
        } else {
            etl_out_puts(p->out, "\"file\":");
            etl_json_string(p->out, p->file);
        }
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
