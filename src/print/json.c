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

static int json_row(struct etl_printer *p, const struct etl_value *vals)
{
    const struct etl_table *t = p->table;
    char buf[64];
    bool first = true;
    etl_out_putc(p->out, '{');
    if (etl_print_file_column(p, t) && p->file) {
        etl_out_puts(p->out, "\"file\":");
        json_string(p->out, p->file);
        first = false;
    }
    for (size_t i = 0; i < t->ncols; i++) {
        if (!vals[i].set)
            continue;
        const struct etl_column *c = &t->cols[i];
        size_t nl = strlen(c->name);
        if (c->type != ETL_COL_STR && c->type != ETL_COL_NAME &&
            c->type != ETL_COL_FIELDS && nl <= 64) {
            /* A number, hex value, GUID or time: the key and value in place. */
            bool num;
            size_t n = etl_format_scalar(p, c, &vals[i], buf, &num);
            if (c->type == ETL_COL_TIME)
                num = false;
            char *d = etl_out_space(p->out, nl + n + 6);
            if (!d)
                return etl_print_status(p);
            size_t k = 0;
            if (!first)
                d[k++] = ',';
            first = false;
            d[k++] = '"';
            memcpy(d + k, c->name, nl);
            k += nl;
            d[k++] = '"';
            d[k++] = ':';
            if (!num)
                d[k++] = '"';
            memcpy(d + k, buf, n);
            k += n;
            if (!num)
                d[k++] = '"';
            etl_out_advance(p->out, k);
            continue;
        }
        if (!first)
            etl_out_putc(p->out, ',');
        first = false;
        etl_out_putc(p->out, '"');
        etl_out_write(p->out, c->name, nl);
        etl_out_write(p->out, "\":", 2);
        if (c->type == ETL_COL_STR || c->type == ETL_COL_NAME) {
            json_string(p->out, vals[i].v.s);
        } else if (c->type == ETL_COL_FIELDS) {
            etl_fields_json(vals[i].v.p, p->out);
        } else {
            bool num;
            size_t n = etl_format_scalar(p, c, &vals[i], buf, &num);
            if (c->type == ETL_COL_TIME)
                num = false;
            if (!num)
                etl_out_putc(p->out, '"');
            etl_out_write(p->out, buf, n);
            if (!num)
                etl_out_putc(p->out, '"');
        }
    }
    etl_out_write(p->out, "}\n", 2);
    return etl_print_status(p);
}

const struct etl_printer_ops etl_print_json = {
    .name = "json",
    .row = json_row,
};
