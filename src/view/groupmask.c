/*
 * groupmask.c - the group masks a trace carries (header-extension events,
 * HookId 0x0005 and 0x0020: ETW_KERNEL_HEADER_EXTENSION, spec section 6),
 * named per seed 003; the table of their changes; the --groupmask view; and
 * the warning when a trace that says it records context switches has none.
 */
#include "grow.h"
#include "view/groupmask.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/modes.h"
#include "decode/names.h"

/* ---- warnings ------------------------------------------------------------ */

static void (*warn_fn)(const char *path, const char *msg);

void etl_view_set_warn(void (*fn)(const char *path, const char *msg))
{
    warn_fn = fn;
}

void etl_view_warn(const struct etl_file *f, const char *fmt, ...)
{
    if (!warn_fn)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    warn_fn(f->path, msg);
}

/* ---- finding the header-extension events ----------------------------------- */

struct scan_ctx {
    struct etl_ext_scan *s;
    uint64_t order;
    bool nomem;
};

/* Keeps one event if it is a header extension. */
static bool scan_event(void *vctx, const struct etl_event *ev)
{
    struct scan_ctx *x = vctx;
    struct etl_ext_scan *s = x->s;
    if (!(ev->flags & ETL_EV_HOOK) || !(ev->flags & ETL_EV_TS))
        return true;
    if (ev->hook_id != ETL_HOOK_HEADER_EXTENSION && ev->hook_id != ETL_HOOK_GROUP_MASKS_END)
        return true;
    /* Kernel headers only: the HookId of other kinds means something else. */
    if (ev->kind > ETL_KIND_PERFINFO64)
        return true;
    struct etl_header_ext h;
    if (!etl_decode_header_ext(ev->data, ev->data_len, &h))
        return true;
    for (unsigned i = 0; i < ETL_GROUPMASK_MASKS; i++)
        s->any.masks[i] |= h.gm.masks[i];
    if (h.has_version && !s->has_version) {
        s->has_version = true;
        s->version = h.version;
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
    e->gm = h.gm;
    return true;
}

/* At most this many problems of a full scan are held back; the rest are
 * only counted (f->problems), like messages past main's limit. */
#define MAX_HELD 1000u

/* Holds a problem found during a full scan. */
static void hold_problem(void *vctx, uint64_t offset, const char *msg)
{
    struct etl_ext_scan *s = vctx;
    if (s->nheld >= MAX_HELD)
        return;
    if (!etl_grow(&s->held, &s->held_cap, s->nheld + 1, sizeof *s->held, 8))
        return;
    char *m = strdup(msg);
    if (!m)
        return;
    s->held[s->nheld].offset = offset;
    s->held[s->nheld].msg = m;
    s->nheld++;
}

void etl_ext_scan_replay(struct etl_ext_scan *s)
{
    for (size_t i = 0; i < s->nheld; i++) {
        if (s->diag)
            s->diag(s->diag_ctx, s->held[i].offset, s->held[i].msg);
        free(s->held[i].msg);
    }
    s->nheld = 0;
}

/* Orders events by time, then by the order they were read. */
static int cmp_event(const void *a, const void *b)
{
    const struct etl_ext_event *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Returns true for buffers the streams read first (the header buffers). */
static bool is_header(const struct etl_file *f, size_t i)
{
    return f->bufs[i].type == ETL_BUF_TYPE_HEADER || i == 0;
}

bool etl_ext_scan(struct etl_file *f, bool all, struct etl_ext_scan *out)
{
    memset(out, 0, sizeof *out);
    struct scan_ctx x = { out, 0, false };
    struct etl_loaded l;
    memset(&l, 0, sizeof l);
    if (all) {
        /* Problems are held back: the trace row that this scan is for comes
         * first. */
        out->diag = f->diag;
        out->diag_ctx = f->diag_ctx;
        f->diag = hold_problem;
        f->diag_ctx = out;
        for (size_t i = 0; i < f->nbufs && !x.nomem; i++)
            etl_walk_buffer(f, &f->bufs[i], &l, scan_event, &x);
        f->diag = out->diag;
        f->diag_ctx = out->diag_ctx;
    } else {
        /* Header buffers, then each processor's first buffer (lowest
         * SequenceNumber): where sessions write their masks. Quietly: the
         * view that follows reads these buffers again and reports. */
        etl_diag_fn diag = f->diag;
        uint64_t problems = f->problems, inflated = f->inflated;
        f->diag = NULL;
        size_t *first = calloc(ETL_MAX_CPUS, sizeof *first); /* index + 1 */
        if (!first) {
            x.nomem = true;
        } else {
            for (size_t i = 0; i < f->nbufs; i++) {
                const struct etl_buffer *b = &f->bufs[i];
                if (is_header(f, i)) {
                    etl_walk_buffer(f, b, &l, scan_event, &x);
                    continue;
                }
                if (b->cpu >= ETL_MAX_CPUS)
                    continue;
                size_t k = first[b->cpu];
                if (k == 0 || b->seq < f->bufs[k - 1].seq)
                    first[b->cpu] = i + 1;
            }
            for (size_t c = 0; c < ETL_MAX_CPUS && !x.nomem; c++)
                if (first[c])
                    etl_walk_buffer(f, &f->bufs[first[c] - 1], &l, scan_event, &x);
            free(first);
        }
        f->diag = diag;
        f->problems = problems;
        f->inflated = inflated;
    }
    etl_loaded_free(&l);
    if (out->n > 1)
        qsort(out->ev, out->n, sizeof *out->ev, cmp_event);
    if (x.nomem) {
        /* Keep the held problems: they are still to be reported. */
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
    for (size_t i = 0; i < s->nheld; i++)
        free(s->held[i].msg);
    free(s->held);
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
    "groupmask", change_cols, G_COUNT, false
};

int etl_view_groupmask_changes(struct etl_printer *p, struct etl_file *f,
                               const struct etl_ext_scan *s)
{
    if (p->ops->one_table || s->n == 0)
        return 0;
    char names[8192];
    char hex[72];
    int rc = p->ops->begin_table(p, &etl_table_groupmask_changes);
    const struct etl_ext_event *prev = NULL;
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        const struct etl_ext_event *e = &s->ev[i];
        if (prev && memcmp(&prev->gm, &e->gm, sizeof e->gm) == 0)
            continue;
        prev = e;
        struct etl_value v[G_COUNT];
        etl_groupmask_hex(&e->gm, hex);
        etl_groupmask_names(&e->gm, names, sizeof names);
        v[G_FILE].v.s = f->path;
        v[G_TIMESTAMP].v.i = e->ts;
        v[G_TIME].v.i = e->ts;
        v[G_HOOK_ID].v.u = e->hook_id;
        v[G_GROUP_MASKS].v.s = hex;
        v[G_GROUP_MASK_NAMES].v.s = names;
        for (size_t k = 0; k < G_COUNT; k++)
            v[k].set = true;
        rc = p->ops->row(p, v);
    }
    if (rc == 0)
        rc = p->ops->end_table(p);
    if (s->dropped)
        etl_view_warn(f, "%llu more header-extension events not examined for "
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

const struct etl_table etl_table_groupmask = { "mask", mask_cols, M_COUNT, false };

int etl_view_groupmask(struct etl_printer *p, const struct etl_groupmask *g)
{
    char names[4096];
    int rc = p->ops->begin_table(p, &etl_table_groupmask);
    for (unsigned i = 0; i < ETL_GROUPMASK_MASKS && rc == 0; i++) {
        struct etl_value v[M_COUNT];
        etl_groupmask_mask_names(i, g->masks[i], names, sizeof names);
        v[M_INDEX].v.u = i;
        v[M_MASK].v.u = g->masks[i];
        v[M_NAMES].v.s = names;
        v[M_INDEX].set = v[M_MASK].set = v[M_NAMES].set = true;
        rc = p->ops->row(p, v);
    }
    return rc ? rc : p->ops->end_table(p);
}

/* ---- switches expected but not found --------------------------------------------- */

void etl_view_switch_expectation(struct etl_file *f, uint64_t decoded)
{
    if (decoded)
        return;
    struct etl_ext_scan s;
    if (!etl_ext_scan(f, false, &s))
        return;
    enum etl_cswitch_expect e = s.found ? etl_groupmask_cswitch(&s.any) : ETL_CS_NONE;
    if (e != ETL_CS_NONE)
        etl_view_warn(f, "the group masks say context switches were recorded (%s), "
                      "but none were found", e == ETL_CS_COMPACT ?
                      "PERF_CONTEXT_SWITCH and PERF_COMPACT_CSWITCH" :
                      "PERF_CONTEXT_SWITCH");
    etl_ext_scan_free(&s);
}
