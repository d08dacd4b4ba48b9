/*
 * printer.c - what every printer shares: the registry of printers, the
 * default operations and the formatting of non-string cells.
 */
#include "print/printer.h"

#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "print/csvrow.h"
#include "print/jsonrow.h"

/* The printers, by name: a new table format adds one line here. */
static const struct etl_printer_ops *const printers[] = {
    &etl_print_text, &etl_print_csv, &etl_print_xml, &etl_print_json,
    &etl_export_perfetto, &etl_export_svg,
};

/* Returns the printer called name, or NULL. */
static const struct etl_printer_ops *find(const char *name)
{
    for (size_t i = 0; i < sizeof printers / sizeof printers[0]; i++)
        if (strcmp(printers[i]->name, name) == 0)
            return printers[i];
    return NULL;
}

bool etl_printer_exists(const char *name)
{
    return find(name) != NULL;
}

struct etl_printer *etl_printer_new(const char *name, struct etl_out *out,
                                    enum etl_time_mode time_mode)
{
    const struct etl_printer_ops *ops = find(name);
    if (!ops)
        return NULL;
    struct etl_printer *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ops = ops;
    p->out = out;
    p->time_mode = time_mode;
    etl_clock_init(&p->clock, 0, 0, 0);
    return p;
}

struct etl_printer *etl_printer_fork(const struct etl_printer *p, struct etl_out *out)
{
    struct etl_printer *f = malloc(sizeof *f);
    if (!f)
        return NULL;
    *f = *p;
    f->out = out;
    f->fork = true;
    f->priv = NULL; /* printers with state make their own on first use */
    return f;
}

int etl_print_row_set_slow(struct etl_printer *p, const struct etl_value *vals, uint64_t set)
{
    /* A printer without row_set reads the cells' flags: a copy has them. */
    struct etl_value v[ETL_SET_COLS];
    size_t n = p->table ? p->table->ncols : 0;
    if (n > ETL_SET_COLS)
        n = ETL_SET_COLS;
    for (size_t i = 0; i < n; i++) {
        v[i] = vals[i];
        v[i].set = (set >> i & 1) != 0;
    }
    return p->ops->row(p, v);
}

int etl_print_row_by_set(struct etl_printer *p, const struct etl_value *vals)
{
    uint64_t set[(ETL_MAX_COLS + 63) / 64];
    size_t n = p->table ? p->table->ncols : 0;
    for (size_t w = 0; w < (n + 63) / 64; w++) {
        uint64_t m = 0;
        size_t k = n - 64 * w < 64 ? n - 64 * w : 64;
        for (size_t i = 0; i < k; i++)
            m |= (uint64_t)vals[64 * w + i].set << i;
        set[w] = m;
    }
    return p->ops->row_set(p, vals, set);
}

int etl_print_raw(struct etl_printer *p, const char *bytes, size_t n)
{
    if (p->ops->raw)
        return p->ops->raw(p, bytes, n);
    etl_out_write(p->out, bytes, n);
    return etl_print_status(p);
}

void etl_printer_free(struct etl_printer *p)
{
    if (!p)
        return;
    if (p->ops->destroy)
        p->ops->destroy(p);
    free(p);
}

/* ---- default operations -------------------------------------------------- */

void etl_printer_set_options(struct etl_printer *p, const struct etl_print_opts *o)
{
    p->opt = *o;
}

int etl_print_begin_file(struct etl_printer *p, const char *path)
{
    p->file = path;
    /* Said on every row of several inputs: measured once (a path of 47
     * bytes through etl_csv_field took 14% of --events=all -f csv). */
    p->file_len = path ? strlen(path) : 0;
    p->file_csv_plain = path && etl_csv_plain_str(path, p->file_len);
    p->file_json_plain = path && etl_json_plain(path, p->file_len);
    p->file_text_plain = path != NULL;
    for (size_t i = 0; i < p->file_len && p->file_text_plain; i++)
        p->file_text_plain = path[i] >= 0x20 && path[i] < 0x7F;
    return p->ops->begin_file ? p->ops->begin_file(p, path) : etl_print_status(p);
}

int etl_print_describe(struct etl_printer *p, const char *line)
{
    return p->ops->describe ? p->ops->describe(p, line) : etl_print_status(p);
}

int etl_print_begin_table(struct etl_printer *p, const struct etl_table *t)
{
    if (t->ncols > ETL_MAX_COLS) /* no view has such a table */
        return -1;
    if (p->ops->begin_table)
        return p->ops->begin_table(p, t);
    p->table = t;
    return etl_print_status(p);
}

int etl_print_end_table(struct etl_printer *p)
{
    return p->ops->end_table ? p->ops->end_table(p) : etl_print_status(p);
}

int etl_print_problem(struct etl_printer *p, uint64_t offset, const char *msg)
{
    /* By default problems go to standard error only: most formats have no
     * place for them. */
    return p->ops->problem ? p->ops->problem(p, offset, msg) : etl_print_status(p);
}

int etl_print_end_file(struct etl_printer *p)
{
    return p->ops->end_file ? p->ops->end_file(p) : etl_print_status(p);
}

int etl_printer_finish(struct etl_printer *p)
{
    return p->ops->finish ? p->ops->finish(p) : etl_out_flush(p->out);
}

/* ---- cells --------------------------------------------------------------- */

/* Digits of relative times and durations for this printer. */
static int decimals(const struct etl_printer *p)
{
    return p->ops->time_decimals ? p->ops->time_decimals : 9;
}

size_t etl_format_time(const struct etl_printer *p, int64_t ts, char *buf,
                       bool *is_number)
{
    *is_number = true;
    switch (p->time_mode) {
    case ETL_TIME_RAW:
        return etl_fmt_i64(ts, buf);
    case ETL_TIME_ABS:
        *is_number = false;
        return etl_filetime_iso(etl_clock_filetime(&p->clock, ts), buf);
    case ETL_TIME_LOCAL: {
        *is_number = false;
        int64_t ft = etl_clock_filetime(&p->clock, ts);
        return etl_filetime_iso_local(ft, etl_tz_offset_in(&p->tz, &p->tz_year, ft), buf);
    }
    default:
        return etl_fmt_seconds(etl_clock_ns(&p->clock, ts), decimals(p), buf);
    }
}

size_t etl_format_scalar(const struct etl_printer *p, const struct etl_column *c,
                         const struct etl_value *v, char *buf, bool *is_number)
{
    *is_number = true;
    switch (c->type) {
    case ETL_COL_UINT:
        return etl_fmt_u64(v->v.u, buf);
    case ETL_COL_INT:
        return etl_fmt_i64(v->v.i, buf);
    case ETL_COL_HEX16:
        *is_number = false;
        return etl_fmt_hex16(v->v.u, buf);
    case ETL_COL_HEX32:
        *is_number = false;
        return etl_fmt_hex(v->v.u, 8, buf);
    case ETL_COL_HEX64:
        *is_number = false;
        return etl_fmt_hex(v->v.u, 16, buf);
    case ETL_COL_GUID:
        *is_number = false;
        etl_guid_str(v->v.g, buf);
        return 36;
    case ETL_COL_TIME:
        return etl_format_time(p, v->v.i, buf, is_number);
    case ETL_COL_FILETIME:
        *is_number = false;
        return etl_filetime_iso(v->v.i, buf);
    case ETL_COL_DURATION:
        /* As relative times: microseconds in text, nanoseconds elsewhere. */
        return etl_fmt_seconds(v->v.i, decimals(p), buf);
    case ETL_COL_PERCENT: {
        /* Hundredths with two decimals: 1250 is 12.50. */
        uint64_t a = v->v.i < 0 ? 0 - (uint64_t)v->v.i : (uint64_t)v->v.i;
        size_t n = 0;
        if (v->v.i < 0)
            buf[n++] = '-';
        n += etl_fmt_u64(a / 100, buf + n);
        buf[n++] = '.';
        buf[n++] = (char)('0' + a / 10 % 10);
        buf[n++] = (char)('0' + a % 10);
        return n;
    }
    default:
        *is_number = false;
        buf[0] = '\0';
        return 0;
    }
}
