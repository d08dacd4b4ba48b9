/*
 * switches.c - the context-switch view (the default): one row per switch in
 * global time order, from CSwitch events and expanded compact batches alike.
 */
#include <stdint.h>
#include <stdio.h>

#include "decode/swreader.h"
#include "decode/names.h"
#include "decode/sched.h"
#include "view/groupmask.h"
#include "pipeline.h"
#include "print/csvrow.h"
#include "print/jsonrow.h"
#include "print/xmlrow.h"
#include "view/view.h"

enum {
    W_CPU, W_TIMESTAMP, W_TIME, W_OLD_TID, W_NEW_TID, W_OLD_PRIORITY,
    W_NEW_PRIORITY, W_OLD_STATE, W_OLD_WAIT_REASON, W_OLD_WAIT_MODE,
    W_NEW_WAIT_TIME, W_IDEAL_CPU, W_PREV_CSTATE, W_NEW_PRI_DECREMENT,
    W_OLD_QUANTUM, W_SOURCE, W_COMPACT_FORM, W_OLD_RANK, W_FLAGS,
    W_OLD_PID, W_OLD_PROCESS, W_NEW_PID, W_NEW_PROCESS,
    W_NEW_SINCE_LAST, W_NEW_READY, W_NEW_WAITED, W_READIED_AT, W_READYING_CPU,
    W_READYING_TID, W_READYING_PID, W_READYING_PROCESS, W_READIED_BY_DPC, W_NEW_RUN,
    W_COUNT
};

static const struct etl_column switch_cols[W_COUNT] = {
    [W_CPU] = { "cpu", ETL_COL_UINT, 3, false },
    [W_TIMESTAMP] = { "timestamp", ETL_COL_INT, 0, true },
    [W_TIME] = { "time", ETL_COL_TIME, 15, false },
    [W_OLD_TID] = { "old_tid", ETL_COL_UINT, 7, false },
    [W_NEW_TID] = { "new_tid", ETL_COL_UINT, 7, false },
    [W_OLD_PRIORITY] = { "old_priority", ETL_COL_INT, 12, false },
    [W_NEW_PRIORITY] = { "new_priority", ETL_COL_INT, 12, false },
    [W_OLD_STATE] = { "old_state", ETL_COL_NAME, -23, false },
    [W_OLD_WAIT_REASON] = { "old_wait_reason", ETL_COL_NAME, -17, false },
    [W_OLD_WAIT_MODE] = { "old_wait_mode", ETL_COL_NAME, -13, false },
    [W_NEW_WAIT_TIME] = { "new_wait_time", ETL_COL_UINT, 13, false },
    [W_IDEAL_CPU] = { "ideal_cpu", ETL_COL_UINT, 9, false },
    [W_PREV_CSTATE] = { "prev_cstate", ETL_COL_UINT, 11, false },
    [W_NEW_PRI_DECREMENT] = { "new_priority_decrement", ETL_COL_INT, 0, true },
    [W_OLD_QUANTUM] = { "old_remaining_quantum", ETL_COL_INT, 0, true },
    [W_SOURCE] = { "source", ETL_COL_NAME, -7, false },
    [W_COMPACT_FORM] = { "compact_form", ETL_COL_NAME, 0, true },
    [W_OLD_RANK] = { "old_rank", ETL_COL_UINT, 0, true },
    [W_FLAGS] = { "flags", ETL_COL_HEX16, 0, true },
    [W_OLD_PID] = { "old_pid", ETL_COL_UINT, 7, false },
    [W_OLD_PROCESS] = { "old_process", ETL_COL_STR, -16, false },
    [W_NEW_PID] = { "new_pid", ETL_COL_UINT, 7, false },
    [W_NEW_PROCESS] = { "new_process", ETL_COL_STR, -16, false },
    [W_NEW_SINCE_LAST] = { "new_since_last", ETL_COL_DURATION, 0, true },
    [W_NEW_READY] = { "new_ready", ETL_COL_DURATION, 10, false },
    [W_NEW_WAITED] = { "new_waited", ETL_COL_DURATION, 10, false },
    [W_READIED_AT] = { "readied_at", ETL_COL_TIME, 0, true },
    [W_READYING_CPU] = { "readying_cpu", ETL_COL_UINT, 0, true },
    [W_READYING_TID] = { "readying_tid", ETL_COL_UINT, 12, false },
    [W_READYING_PID] = { "readying_pid", ETL_COL_UINT, 0, true },
    [W_READYING_PROCESS] = { "readying_process", ETL_COL_STR, -16, false },
    [W_READIED_BY_DPC] = { "readied_by_dpc", ETL_COL_UINT, 0, true },
    [W_NEW_RUN] = { "new_run", ETL_COL_DURATION, 10, false },
};

/* The table's name: the XML element of a row. */
#define SWITCH_ROW "switch"

ETL_CSV_ROW_WRITER(switch_csv_row, switch_cols, W_COUNT)
ETL_JSON_ROW_WRITER(switch_json_row, switch_cols, W_COUNT)
ETL_XML_ROW_WRITER(switch_xml_row, SWITCH_ROW, switch_cols, W_COUNT)

const struct etl_table etl_table_switches = { SWITCH_ROW, switch_cols, W_COUNT, false,
                                              switch_csv_row };

static const struct etl_sized_name form_names[] = {
    { "idle_short", 10 }, { "idle", 4 }, { "lite", 4 }, { "full", 4 },
};

/* Returns a - b, saturated: hostile timestamps convert to the ends of the
 * int64 range (tests/edge.sh, farclock). With gcc and clang, the
 * subtraction and the processor's overflow flag. */
static int64_t sub_sat(int64_t a, int64_t b)
{
#if defined(__GNUC__)
    int64_t r;
    if (!__builtin_sub_overflow(a, b, &r))
        return r;
#else
    if (!(b < 0 ? a > INT64_MAX + b : a < INT64_MIN + b))
        return a - b;
#endif
    return b < 0 ? INT64_MAX : INT64_MIN;
}

/* Returns true if a switch passes the filters: its processor and time, and
 * for --tid, --pid and --process its old or its new side. */
static bool switch_matches(const struct etl_filter *flt, const struct etl_clock *clk,
                           const struct etl_switch *sw, const struct etl_who *wo,
                           const struct etl_who *wn)
{
    if (!etl_id_list_has(&flt->cpu, sw->cpu) || !etl_filter_time(flt, clk, sw->ts))
        return false;
    bool has_old = (sw->has & SW_OLD_TID) != 0, has_new = (sw->has & SW_NEW_TID) != 0;
    if (flt->tid.set && !((has_old && etl_id_list_has(&flt->tid, sw->old_tid)) ||
                          (has_new && etl_id_list_has(&flt->tid, sw->new_tid))))
        return false;
    if (flt->pid.set && !((wo->known && etl_id_list_has(&flt->pid, wo->pid)) ||
                          (wn->known && etl_id_list_has(&flt->pid, wn->pid))))
        return false;
    if (flt->nprocess && !((wo->image && etl_filter_process(flt, wo->image)) ||
                           (wn->image && etl_filter_process(flt, wn->image))))
        return false;
    return true;
}

/* One switch as the sequential pass leaves it: the switch as the reader
 * handed it out (it.u.sw, with its next switch's time), its threads'
 * processes and what the scheduling state says about its new thread. A
 * multiple of sixteen bytes (etl_pipe_put). */
struct sw_item {
    _Alignas(16) struct etl_sched_item it;
    struct etl_sched_facts sf;
    struct etl_who wo, wn;
};

/* What rendering a switch reads, unchanged while the rows are formatted. */
struct sw_ctx {
    const struct etl_procmap *map;
    struct etl_clock clk;          /* a copy: the file's own lies among what the
                                    * view's thread writes */
    const struct etl_filter *flt;  /* NULL: every switch */
};

/* Bytes for a state, reason or mode without a name: "%u" of a 32-bit
 * value (10 digits at most) and its NUL. */
#define SW_NUM_CAP 12

/* A name from lookup, or the number when it has none (written at buf,
 * which the row reads until it is printed). */
ETL_INLINE bool put_name(struct etl_cells *c, bool direct, size_t i,
                         const struct etl_sized_name *name, unsigned num, char *buf, size_t cap)
{
    if (name)
        return etl_cells_str(c, direct, i, name->s, name->n);
    int n = snprintf(buf, cap, "%u", num);
    return etl_cells_str(c, direct, i, buf, n > 0 ? (size_t)n : 0);
}

/* Puts every cell a switch carries, left to right; false after a write
 * error (direct only). Compiled for each value of direct (render_switch_as). */
ETL_INLINE bool switch_cells(struct etl_cells *c, bool direct, const struct sw_item *x,
                             const struct sw_ctx *cx, char (*num)[SW_NUM_CAP])
{
    const struct etl_switch *sw = &x->it.u.sw;
    const struct etl_clock *clk = &cx->clk;
    uint32_t h = sw->has;
    _Static_assert(W_COUNT <= ETL_SET_COLS, "a switch's cells fit the bits of a row");
    /* In the order of the columns (the enum above), each at most once. */
    if (!etl_cells_u(c, direct, W_CPU, sw->cpu) || !etl_cells_i(c, direct, W_TIMESTAMP, sw->ts) ||
        !etl_cells_i(c, direct, W_TIME, sw->ts) ||
        ((h & SW_OLD_TID) && !etl_cells_u(c, direct, W_OLD_TID, sw->old_tid)) ||
        ((h & SW_NEW_TID) && !etl_cells_u(c, direct, W_NEW_TID, sw->new_tid)) ||
        ((h & SW_OLD_PRIORITY) &&
         !etl_cells_i(c, direct, W_OLD_PRIORITY, sw->old_priority)) ||
        ((h & SW_NEW_PRIORITY) &&
         !etl_cells_i(c, direct, W_NEW_PRIORITY, sw->new_priority)))
        return false;
    if (((h & SW_OLD_STATE) &&
         !put_name(c, direct, W_OLD_STATE, etl_thread_state_sized(sw->old_state),
                   sw->old_state, num[0], sizeof num[0])) ||
        ((h & SW_OLD_WAIT_REASON) &&
         !put_name(c, direct, W_OLD_WAIT_REASON, etl_wait_reason_sized(sw->old_wait_reason),
                   sw->old_wait_reason, num[1], sizeof num[1])) ||
        ((h & SW_OLD_WAIT_MODE) &&
         !put_name(c, direct, W_OLD_WAIT_MODE, etl_wait_mode_sized(sw->old_wait_mode),
                   sw->old_wait_mode, num[2], sizeof num[2])))
        return false;
    if (((h & SW_NEW_WAIT_TIME) &&
         !etl_cells_u(c, direct, W_NEW_WAIT_TIME, sw->new_wait_time)) ||
        ((h & SW_IDEAL_CPU) && !etl_cells_u(c, direct, W_IDEAL_CPU, sw->ideal_cpu)) ||
        ((h & SW_PREV_CSTATE) && !etl_cells_u(c, direct, W_PREV_CSTATE, sw->prev_cstate)) ||
        ((h & SW_NEW_PRI_DECREMENT) &&
         !etl_cells_i(c, direct, W_NEW_PRI_DECREMENT, sw->new_priority_decrement)) ||
        ((h & SW_OLD_QUANTUM) &&
         !etl_cells_i(c, direct, W_OLD_QUANTUM, sw->old_remaining_quantum)))
        return false;
    const char *source = sw->source == ETL_SW_COMPACT ? "compact" : "cswitch";
    const struct etl_sized_name *form = sw->form < 4 ? &form_names[sw->form] : NULL;
    if (!etl_cells_str(c, direct, W_SOURCE, source, 7) ||
        (form && !etl_cells_str(c, direct, W_COMPACT_FORM, form->s, form->n)) ||
        ((h & SW_OLD_RANK) && !etl_cells_u(c, direct, W_OLD_RANK, sw->old_rank)) ||
        ((h & SW_FLAGS) && !etl_cells_u(c, direct, W_FLAGS, sw->flags)))
        return false;
    const struct etl_who *wo = &x->wo, *wn = &x->wn;
    if ((wo->known && !etl_cells_u(c, direct, W_OLD_PID, wo->pid)) ||
        (wo->image && !etl_cells_str(c, direct, W_OLD_PROCESS, wo->image, wo->image_len)) ||
        (wn->known && !etl_cells_u(c, direct, W_NEW_PID, wn->pid)) ||
        (wn->image && !etl_cells_str(c, direct, W_NEW_PROCESS, wn->image, wn->image_len)))
        return false;
    const struct etl_sched_facts *sf = &x->sf;
    int64_t ns = etl_clock_ns(clk, sw->ts);
    uint32_t k = sf->has;
    /* Durations in ns, as the summary sums them; each time converted once. */
    int64_t since = (k & ETL_SF_SINCE) ? etl_clock_ns(clk, sf->since) : 0;
    int64_t from = !(k & ETL_SF_READY) ? 0
                   : (k & ETL_SF_SINCE) && sf->ready_from == sf->since ? since
                                                                      : etl_clock_ns(clk, sf->ready_from);
    if ((k & ETL_SF_SINCE) && !etl_cells_i(c, direct, W_NEW_SINCE_LAST, sub_sat(ns, since)))
        return false;
    if ((k & ETL_SF_READY) && !etl_cells_i(c, direct, W_NEW_READY, sub_sat(ns, from)))
        return false;
    if (k & ETL_SF_WAITED) {
        int64_t waited = 0;
        if (sf->wait_to != sf->wait_from)
            waited = sub_sat(sf->wait_to == sf->ready_from ? from : etl_clock_ns(clk, sf->wait_to),
                             sf->wait_from == sf->since ? since : etl_clock_ns(clk, sf->wait_from));
        if (!etl_cells_i(c, direct, W_NEW_WAITED, waited))
            return false;
    }
    if ((k & ETL_SF_READIED) && (!etl_cells_i(c, direct, W_READIED_AT, sf->readied_at) ||
                                 !etl_cells_u(c, direct, W_READYING_CPU, sf->readying_cpu)))
        return false;
    if (k & ETL_SF_READIER) {
        struct etl_who wr;
        etl_procmap_who(cx->map, sf->readying_tid, sf->readied_at, &wr);
        if (!etl_cells_u(c, direct, W_READYING_TID, sf->readying_tid) ||
            (wr.known && !etl_cells_u(c, direct, W_READYING_PID, wr.pid)) ||
            (wr.image && !etl_cells_str(c, direct, W_READYING_PROCESS, wr.image, wr.image_len)))
            return false;
    }
    if ((k & ETL_SF_READIED) &&
        !etl_cells_u(c, direct, W_READIED_BY_DPC, (sf->ready_flag & ETL_READY_FROM_DPC) ? 1 : 0))
        return false;
    return !x->it.has_next ||
           etl_cells_i(c, direct, W_NEW_RUN, sub_sat(etl_clock_ns(clk, x->it.next_ts), ns));
}

/* Prints the row of one switch, if it passes the filters (pipeline.h: on
 * any of the pipeline's threads): its cells straight into a CSV row when
 * the view may write it (etl_print_csv_own); else every cell, and the
 * cells the switch carries as bits (etl_print_row_set), to the table's own
 * writer of format `as` (a constant: render_switch_csv and the others) when
 * the view may call it. */
ETL_INLINE int render_switch_as(struct etl_printer *p, const void *item, void *vctx,
                                enum etl_own_format as)
{
    const struct sw_item *x = item;
    const struct sw_ctx *cx = vctx;
    /* Filters choose rows only after linking: a compact switch's new
     * thread came from the next switch on its CPU, shown or not. */
    if (cx->flt && !switch_matches(cx->flt, &cx->clk, &x->it.u.sw, &x->wo, &x->wn))
        return 0;
    char num[3][SW_NUM_CAP]; /* states, reasons and modes without a name */
    struct etl_cells c;
    c.p = p;
    c.cols = switch_cols;
    if (as == ETL_OWN_CSV && etl_print_csv_own(p, &etl_table_switches)) {
        if (!etl_csv_own_row_begin(p, &c.row, W_COUNT) || !switch_cells(&c, true, x, cx, num))
            return -1;
        return etl_csv_row_end(p, &c.row, W_COUNT);
    }
    struct etl_value v[W_COUNT];
    c.v = v;
    c.set = 0;
    switch_cells(&c, false, x, cx, num); /* cannot fail: nothing is written */
    if (as == ETL_OWN_JSON && etl_print_json_own(p, &etl_table_switches))
        return switch_json_row(p, v, c.set);
    if (as == ETL_OWN_XML && etl_print_xml_own(p, &etl_table_switches))
        return switch_xml_row(p, v, c.set);
    return etl_print_row_set(p, v, c.set);
}

/* render_switch_as for each format (printer.h: etl_own_format). */
static int render_switch(struct etl_printer *p, const void *item, void *vctx,
                         struct etl_pipe_job *job)
{
    (void)job;
    return render_switch_as(p, item, vctx, ETL_OWN_NONE);
}

static int render_switch_csv(struct etl_printer *p, const void *item, void *vctx,
                             struct etl_pipe_job *job)
{
    (void)job;
    return render_switch_as(p, item, vctx, ETL_OWN_CSV);
}

static int render_switch_json(struct etl_printer *p, const void *item, void *vctx,
                              struct etl_pipe_job *job)
{
    (void)job;
    return render_switch_as(p, item, vctx, ETL_OWN_JSON);
}

static int render_switch_xml(struct etl_printer *p, const void *item, void *vctx,
                             struct etl_pipe_job *job)
{
    (void)job;
    return render_switch_as(p, item, vctx, ETL_OWN_XML);
}

static const etl_pipe_fn render_switch_for[] = {
    [ETL_OWN_NONE] = render_switch, [ETL_OWN_CSV] = render_switch_csv,
    [ETL_OWN_JSON] = render_switch_json, [ETL_OWN_XML] = render_switch_xml,
};

/* What the view's own thread keeps. */
struct sw_pass {
    struct etl_file *f;
    struct etl_switch_reader *r;
    const struct etl_procmap *map;
    struct etl_sched *an;
    struct etl_who_cache who;
    const struct etl_filter *seen; /* with --tid, --pid or --range: */
    bool by_thread, ranged;        /* ... given every switch, and its span kept */
    struct etl_switch_span span;
};

/* What a switch tells the filter's notes (sw_pass.seen). */
static void pass_seen(struct sw_pass *ps, const struct sw_item *x)
{
    if (ps->by_thread)
        etl_filter_switch_seen(ps->seen, &x->it.u.sw, &x->wo, &x->wn);
    if (ps->ranged)
        etl_switch_span_add(&ps->span, ps->seen, etl_file_clock(ps->f), x->it.u.sw.ts);
}

/* Takes the next switch from the reader into x, feeding the scheduling
 * state every event before it (read into x too); false at the end or when
 * memory ran out (f is marked). */
static bool next_switch(struct sw_pass *ps, struct sw_item *x)
{
    struct etl_file *f = ps->f;
    while (etl_sched_next(ps->r, &x->it)) {
        if (x->it.kind != ETL_SCHED_SWITCH) {
            if (etl_sched_take(ps->an, &x->it, NULL, NULL, NULL))
                continue;
            etl_file_nomem(f);
            return false;
        }
        if (etl_procmap_switch_who(ps->map, &ps->who, &x->it.u.sw, &x->wo, &x->wn) &&
            etl_sched_take(ps->an, &x->it, &x->wo, &x->wn, &x->sf)) {
            if (__builtin_expect(ps->seen != NULL, 0))
                pass_seen(ps, x);
            return true;
        }
        etl_file_nomem(f);
        return false;
    }
    return false;
}

int etl_view_switches(struct etl_printer *p, struct etl_file *f,
                      const struct etl_view_opts *o)
{
    /* The thread -> process map comes from a pre-pass over the Process and
     * Thread events (procmap.h says why). */
    struct etl_procmap *map = etl_procmap_build(f, true);
    etl_filter_notes(o->filter, map, f);
    struct etl_streams *s = map ? etl_streams_new(f) : NULL;
    struct etl_switch_reader *r = s ? etl_sched_reader_new(f, s, o->max_wait_reason) : NULL;
    struct etl_sched *an = r ? etl_sched_new(map) : NULL;
    if (!an) {
        etl_file_nomem(f);
        etl_switch_reader_free(r);
        etl_streams_free(s);
        etl_procmap_free(map);
        return 0;
    }
    struct sw_ctx cx = { map, *etl_file_clock(f),
                         etl_filter_any(o->filter) ? o->filter : NULL };
    int rc = etl_print_begin_table(p, &etl_table_switches);
    unsigned threads = etl_pipe_threads(o->threads, etl_file_totals(f)->bytes);
    struct etl_pipe *pp = rc == 0 ? etl_pipe_new(p, f, sizeof(struct sw_item),
                                                 render_switch_for[etl_print_own_format(p)],
                                                 &cx, sizeof cx, threads)
                                  : NULL;
    struct sw_item *x;
    /* With other threads each switch is built here and handed over with
     * etl_pipe_put, which copies it around the cache (20 M compact
     * switches to CSV on two threads: 1.29 s with an ordinary copy, 1.12
     * s); with one thread it is built in its slot. */
    struct sw_item cur;
    bool by_thread = etl_filter_who(o->filter), ranged = etl_filter_ranged(o->filter);
    struct sw_pass ps = { f, r, map, an, { NULL }, by_thread || ranged ? o->filter : NULL,
                          by_thread, ranged, { 0, 0, 0, 0 } };
    /* --strict stops at the first problem, one found before any switch
     * (the index's) included. */
    while (pp && !(o->strict && etl_file_problems(f)) &&
           (x = threads > 1 ? &cur : etl_pipe_slot(pp)) != NULL && next_switch(&ps, x))
        if ((threads > 1 ? etl_pipe_put(pp, &cur) : etl_pipe_commit(pp)) != 0)
            break;
    if (pp)
        rc = etl_pipe_end(pp);
    rc = rc ? rc : etl_print_end_table(p);
    etl_switch_reader_check_bias(r, o->max_wait_reason != 0);
    if (rc == 0 && !(o->strict && etl_file_problems(f))) /* read to the end */
        etl_view_switches_end(f, r, s, o->filter, ETL_SEEN_SWITCHES, &ps.span);
    etl_who_cache_fini(&ps.who);
    etl_sched_warn(an, f);
    etl_sched_free(an);
    etl_switch_reader_free(r);
    etl_streams_free(s);
    etl_procmap_free(map);
    return rc;
}
