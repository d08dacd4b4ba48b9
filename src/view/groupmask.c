/*
 * groupmask.c - the group masks a trace carries (header-extension events,
 * HookId 0x0005 and 0x0020: ETW_KERNEL_HEADER_EXTENSION, doc/format.md §6),
 * named per §6.3-§6.5; the table of their changes; the --groupmask view; and
 * the warning when a trace that says it records context switches has none.
 */
#include "sort.h"
#include "grow.h"
#include "view/groupmask.h"
#include "view/filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/dispatch.h"
#include "decode/kfields.h"
#include "decode/modes.h"
#include "decode/names.h"

/* ---- finding the header-extension events ----------------------------------- */

struct scan_ctx {
    struct etl_ext_scan *s;
    uint64_t order;
    bool nomem;
    struct etl_runs_pick pick; /* PERFINFO64 events wanted whole */
};

/* Keeps one event if it is a header extension. */
static bool scan_event(void *vctx, const struct etl_event *ev)
{
    struct scan_ctx *x = vctx;
    struct etl_ext_scan *s = x->s;
    if (x->pick.cls)
        etl_runs_pick_learn(&x->pick, ev);
    if (!(ev->flags & ETL_EV_TS))
        return true;
    const struct etl_decoder *d = etl_dispatch(ev);
    struct etl_record r;
    if (d->kind != ETL_REC_HEADER_EXT || !etl_decode(ev, d, &r))
        return true;
    const struct etl_header_ext *h = &r.u.ext;
    for (unsigned i = 0; i < ETL_GROUPMASK_MASKS; i++)
        s->any.masks[i] |= h->gm.masks[i];
    if (h->has_version && !s->has_version) {
        s->has_version = true;
        s->version = h->version;
    }
    s->found = true;
    if (s->n >= ETL_EXT_MAX_EVENTS) {
        s->dropped++;
        return true;
    }
    if (!etl_grow(&s->ev, &s->cap, s->n + 1, sizeof *s->ev, 16)) {
        x->nomem = true;
        return false;
    }
    struct etl_ext_event *e = &s->ev[s->n++];
    e->ts = ev->ts;
    e->order = x->order++;
    e->hook_id = ev->hook_id;
    e->gm = h->gm;
    return true;
}

void etl_ext_scan_replay(struct etl_ext_scan *s)
{
    if (s->f)
        etl_scope_replay(s->f, &s->scope);
}

/* Orders events by time, then by the order they were read. */
static int cmp_event(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct etl_ext_event *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

bool etl_ext_scan(struct etl_file *f, bool all, struct etl_ext_scan *out)
{
    memset(out, 0, sizeof *out);
    struct scan_ctx x = { out, 0, false, { 0, NULL } };
    if (all && !etl_runs_pick_init(&x.pick, 1u << ETL_REC_HEADER_EXT)) {
        etl_file_nomem(f);
        return false;
    }
    /* A full scan holds its problems: the trace row that it is for comes
     * first. A quick one (header buffers, then each processor's first
     * buffer: where sessions write their masks) is quiet: the view that
     * follows reads these buffers again and reports. */
    out->f = f;
    etl_scope_begin(f, &out->scope, all);
    if (all)
        etl_walk_file_runs(f, scan_event, etl_runs_skip, x.pick.cls, &x);
    else
        etl_walk_first_buffers(f, scan_event, &x);
    etl_scope_end(f, &out->scope);
    etl_runs_pick_fini(&x.pick);
    if (out->n > 1)
        etl_sort(out->ev, out->n, sizeof *out->ev, cmp_event, NULL);
    if (x.nomem || etl_file_is_nomem(f)) {
        etl_file_nomem(f);
        free(out->ev);
        out->ev = NULL;
        out->n = out->cap = 0;
        out->found = out->has_version = false;
        out->dropped = 0;
        memset(&out->any, 0, sizeof out->any);
        return false;
    }
    return true;
}

void etl_ext_scan_free(struct etl_ext_scan *s)
{
    free(s->ev);
    if (s->f)
        etl_scope_replay(s->f, &s->scope); /* reports anything not yet reported */
    memset(s, 0, sizeof *s);
}

/* ---- the trace-info cells --------------------------------------------------- */

void etl_trace_names_fill(struct etl_trace_names *n, const struct etl_logfile *h,
                          const struct etl_ext_scan *s)
{
    etl_logger_mode_str(h->log_file_mode, n->log_file_mode, sizeof n->log_file_mode);
    n->clock_type = etl_clock_type_full_name(h->clock_type);
    if (!n->clock_type) {
        snprintf(n->clock_num, sizeof n->clock_num, "%u", (unsigned)h->clock_type);
        n->clock_type = n->clock_num;
    }
    n->group_masks[0] = n->group_mask_names[0] = n->enable_flag_names[0] = '\0';
    n->context_switches = NULL;
    if (s && s->found) {
        etl_groupmask_hex(&s->any, n->group_masks);
        etl_groupmask_names(&s->any, n->group_mask_names, sizeof n->group_mask_names);
        etl_enable_flags_str(s->any.masks[0], n->enable_flag_names,
                             sizeof n->enable_flag_names);
        n->context_switches = etl_cswitch_expect_name(etl_groupmask_cswitch(&s->any));
    }
}

/* ---- the table of changes ---------------------------------------------------- */

enum { G_FILE, G_TIMESTAMP, G_TIME, G_HOOK_ID, G_GROUP_MASKS, G_GROUP_MASK_NAMES, G_COUNT };

static const struct etl_column change_cols[G_COUNT] = {
    [G_FILE] = { "file", ETL_COL_STR, 0, true },
    [G_TIMESTAMP] = { "timestamp", ETL_COL_INT, 0, true },
    [G_TIME] = { "time", ETL_COL_TIME, 15, false },
    [G_HOOK_ID] = { "hook_id", ETL_COL_HEX16, -7, false },
    [G_GROUP_MASKS] = { "group_masks", ETL_COL_NAME, -71, false },
    [G_GROUP_MASK_NAMES] = { "group_mask_names", ETL_COL_NAME, 0, false },
};

const struct etl_table etl_table_groupmask_changes = {
    "groupmask", change_cols, G_COUNT, false, NULL
};

int etl_view_groupmask_changes(struct etl_printer *p, struct etl_file *f,
                               const struct etl_ext_scan *s)
{
    if (p->ops->one_table || s->n == 0)
        return 0;
    char names[8192];
    char hex[72];
    int rc = etl_print_begin_table(p, &etl_table_groupmask_changes);
    const struct etl_ext_event *prev = NULL;
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        const struct etl_ext_event *e = &s->ev[i];
        if (prev && memcmp(&prev->gm, &e->gm, sizeof e->gm) == 0)
            continue;
        prev = e;
        struct etl_value v[G_COUNT];
        etl_groupmask_hex(&e->gm, hex);
        etl_groupmask_names(&e->gm, names, sizeof names);
        ETL_CELL_STR(v, G_FILE, etl_file_name(f), true);
        ETL_CELL(v, G_TIMESTAMP, i, e->ts, true);
        ETL_CELL(v, G_TIME, i, e->ts, true);
        ETL_CELL(v, G_HOOK_ID, u, e->hook_id, true);
        ETL_CELL_STR(v, G_GROUP_MASKS, hex, true);
        ETL_CELL_STR(v, G_GROUP_MASK_NAMES, names, true);
        rc = etl_print_row(p, v);
    }
    if (rc == 0)
        rc = etl_print_end_table(p);
    if (s->dropped)
        etl_warn(f, "%llu more header-extension events not examined for "
                      "group-mask changes", (unsigned long long)s->dropped);
    return rc;
}

/* ---- --groupmask ---------------------------------------------------------------- */

enum { M_INDEX, M_MASK, M_NAMES, M_COUNT };

static const struct etl_column mask_cols[M_COUNT] = {
    [M_INDEX] = { "index", ETL_COL_UINT, 5, false },
    [M_MASK] = { "mask", ETL_COL_HEX32, -10, false },
    [M_NAMES] = { "names", ETL_COL_NAME, 0, false },
};

const struct etl_table etl_table_groupmask = { "mask", mask_cols, M_COUNT, false, NULL };

int etl_view_groupmask(struct etl_printer *p, const struct etl_groupmask *g)
{
    char names[4096];
    int rc = etl_print_begin_table(p, &etl_table_groupmask);
    for (unsigned i = 0; i < ETL_GROUPMASK_MASKS && rc == 0; i++) {
        struct etl_value v[M_COUNT];
        etl_groupmask_mask_names(i, g->masks[i], names, sizeof names);
        ETL_CELL(v, M_INDEX, u, i, true);
        ETL_CELL(v, M_MASK, u, g->masks[i], true);
        ETL_CELL_STR(v, M_NAMES, names, true);
        rc = etl_print_row(p, v);
    }
    return rc ? rc : etl_print_end_table(p);
}

/* ---- switches expected but not found --------------------------------------------- */

/* Event kinds counted for the note about a trace without switches: kernel
 * event groups by name, and everything else together. */
#define KINDS 24
struct kind_count {
    const char *name;         /* "Group/..." in a static string: len bytes of it */
    size_t len;
    uint64_t count;
};
struct kind_census {
    struct kind_count k[KINDS];
    size_t n;
    uint64_t other, total;
};

static bool census_event(void *vctx, const struct etl_event *ev)
{
    struct kind_census *c = vctx;
    c->total++;
    const char *name = etl_kernel_event_name(ev);
    if (!name) {
        c->other++;
        return true;
    }
    const char *slash = strchr(name, '/');
    size_t len = slash ? (size_t)(slash - name) : strlen(name);
    for (size_t i = 0; i < c->n; i++)
        if (c->k[i].len == len && strncmp(c->k[i].name, name, len) == 0) {
            c->k[i].count++;
            return true;
        }
    if (c->n < KINDS) {
        c->k[c->n].name = name;
        c->k[c->n].len = len;
        c->k[c->n].count = 1;
        c->n++;
    } else {
        c->other++;
    }
    return true;
}

/* Orders census kinds by count, most first. */
static int cmp_kind(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct kind_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->len != y->len ? (x->len < y->len ? -1 : 1) : strncmp(x->name, y->name, x->len);
}

/* A note saying what a trace without context switches records: its event
 * kinds (a quiet pass over the file) and its group masks. */
static void note_no_switches(struct etl_file *f, const struct etl_ext_scan *s)
{
    struct kind_census c;
    memset(&c, 0, sizeof c);
    struct etl_scope scope;
    etl_scope_begin(f, &scope, false);
    etl_walk_file(f, census_event, &c);
    etl_scope_end(f, &scope);
    etl_scope_replay(f, &scope);
    if (etl_file_is_nomem(f))
        return;
    etl_sort(c.k, c.n, sizeof c.k[0], cmp_kind, NULL);
    char kinds[256] = "";
    size_t o = 0;
    for (size_t i = 0; i < c.n && i < 4 && o < sizeof kinds; i++) {
        int k = snprintf(kinds + o, sizeof kinds - o, "%s%.*s %llu", i ? ", " : "",
                         (int)c.k[i].len, c.k[i].name, (unsigned long long)c.k[i].count);
        o += k > 0 ? (size_t)k : 0;
    }
    if (c.other && o < sizeof kinds)
        snprintf(kinds + o, sizeof kinds - o, "%sother %llu", o ? ", " : "",
                 (unsigned long long)c.other);
    char flags[512] = "";
    if (s->found)
        etl_enable_flags_str(s->any.masks[0], flags, sizeof flags);
    etl_note(f, "no context switches in this trace; it records %llu events (%s)%s%s; "
             "try --stats or --events=all", (unsigned long long)c.total,
             c.total ? kinds : "none", flags[0] ? "; kernel flags " : "", flags);
}

/* When r decoded no switch: the warning or the note of
 * etl_view_switches_end. */
static void switch_expectation(struct etl_file *f, const struct etl_switch_reader *r)
{
    const struct etl_switch_stats *st = etl_switch_reader_stats(r);
    if (st->cswitch + st->compact > 0)
        return;
    struct etl_ext_scan s;
    if (!etl_ext_scan(f, false, &s))
        return;
    enum etl_cswitch_expect e = s.found ? etl_groupmask_cswitch(&s.any) : ETL_CS_NONE;
    if (e != ETL_CS_NONE)
        etl_warn(f, "the group masks say context switches were recorded (%s), "
                      "but none were found", e == ETL_CS_COMPACT ?
                      "PERF_CONTEXT_SWITCH and PERF_COMPACT_CSWITCH" :
                      "PERF_CONTEXT_SWITCH");
    else
        note_no_switches(f, &s);
    etl_ext_scan_free(&s);
}

void etl_view_switches_end(struct etl_file *f, const struct etl_switch_reader *r,
                           const struct etl_streams *s, const struct etl_filter *flt,
                           enum etl_filter_seen seen, const struct etl_switch_span *span)
{
    switch_expectation(f, r);
    etl_filter_notes_end(flt, s, seen, span, f);
}
