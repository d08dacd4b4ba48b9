/*
 * events.c - the every-event view: one row per event record in time order,
 * with what its trace header carries, its name and its decoded payload
 * (decode/payload.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/dispatch.h"
#include "decode/metadata.h"
#include "decode/payload.h"
#include "decode/process.h"
#include "pipeline.h"
#include "print/csvrow.h"
#include "print/jsonrow.h"
#include "print/xmlrow.h"
#include "view/view.h"

enum {
    E_CPU, E_TIMESTAMP, E_HEADER_TYPE, E_HOOK_ID, E_PROVIDER, E_EVENT_ID,
    E_OPCODE, E_VERSION, E_TID, E_PID, E_SIZE, E_TIME, E_BUFFER_OFFSET,
    E_EVENT_OFFSET, E_PROCESS_ID, E_PARENT_ID, E_THREAD_ID, E_IMAGE, E_THREAD_NAME,
    E_COMMAND_LINE, E_EXIT_STATUS, E_USER_SID, E_EVENT_NAME, E_FIELDS, E_COUNT
};

static const struct etl_column event_cols[E_COUNT] = {
    [E_CPU] = { "cpu", ETL_COL_UINT, 3, false },
    [E_TIMESTAMP] = { "timestamp", ETL_COL_INT, 0, true },
    [E_HEADER_TYPE] = { "header_type", ETL_COL_NAME, -14, false },
    [E_HOOK_ID] = { "hook_id", ETL_COL_HEX16, -7, false },
    [E_PROVIDER] = { "provider", ETL_COL_GUID, -36, false },
    [E_EVENT_ID] = { "event_id", ETL_COL_UINT, 8, false },
    [E_OPCODE] = { "opcode", ETL_COL_UINT, 6, false },
    [E_VERSION] = { "version", ETL_COL_UINT, 7, false },
    [E_TID] = { "tid", ETL_COL_UINT, 7, false },
    [E_PID] = { "pid", ETL_COL_UINT, 7, false },
    [E_SIZE] = { "size", ETL_COL_UINT, 5, false },
    [E_TIME] = { "time", ETL_COL_TIME, 15, false },
    [E_BUFFER_OFFSET] = { "buffer_offset", ETL_COL_UINT, 0, true },
    [E_EVENT_OFFSET] = { "event_offset", ETL_COL_UINT, 0, true },
    [E_PROCESS_ID] = { "process_id", ETL_COL_UINT, 10, false },
    [E_PARENT_ID] = { "parent_id", ETL_COL_UINT, 9, false },
    [E_THREAD_ID] = { "thread_id", ETL_COL_UINT, 9, false },
    [E_IMAGE] = { "image", ETL_COL_STR, -16, false },
    [E_THREAD_NAME] = { "thread_name", ETL_COL_STR, 0, true },
    [E_COMMAND_LINE] = { "command_line", ETL_COL_STR, 0, true },
    [E_EXIT_STATUS] = { "exit_status", ETL_COL_HEX32, 0, true },
    [E_USER_SID] = { "user_sid", ETL_COL_STR, 0, true },
    [E_EVENT_NAME] = { "event_name", ETL_COL_STR, -30, false },
    [E_FIELDS] = { "fields", ETL_COL_FIELDS, 0, false },
};

ETL_CSV_ROW_WRITER(event_csv_row, event_cols, E_COUNT)
ETL_CSV_ROW_WRITER(event_csv_row_no_fields, event_cols, E_FIELDS)
ETL_JSON_ROW_WRITER(event_json_row, event_cols, E_COUNT)
ETL_JSON_ROW_WRITER(event_json_row_no_fields, event_cols, E_FIELDS)
/* The table's name: the XML element of a row. */
#define EVENT_ROW "event"
ETL_XML_ROW_WRITER(event_xml_row, EVENT_ROW, event_cols, E_COUNT)
ETL_XML_ROW_WRITER(event_xml_row_no_fields, EVENT_ROW, event_cols, E_FIELDS)

const struct etl_table etl_table_events = { EVENT_ROW, event_cols, E_COUNT, false,
                                            event_csv_row };
/* --no-fields: the same rows without their last column. */
static const struct etl_table events_no_fields = { EVENT_ROW, event_cols, E_FIELDS, false,
                                                   event_csv_row_no_fields };

/* The cells of the Process and Thread columns (E_PROCESS_ID ... E_USER_SID). */
#define PT_FIRST E_PROCESS_ID
#define PT_COUNT (E_USER_SID - E_PROCESS_ID + 1)

/* One event as the view's thread leaves it; its data, extended items and
 * strings are kept by the pipeline. With --no-fields and other threads,
 * an ev_row instead. */
struct ev_item {
    _Alignas(16) struct etl_event ev; /* two whole lines in all (etl_pipe_put) */
    const char *name;              /* --no-fields: its name (or NULL) */
    bool name_later;               /* --no-fields: name is found by render_event */
    bool pt_problem;               /* its Process/Thread record reported one */
    /* The Process and Thread cells, kept by the pipeline, or NULL when the
     * event has none (all but a few): the item stays two cache lines. */
    const struct etl_value *pt;
};

/* --no-fields with other threads: an event as the view's thread hands it
 * over, in one cache line: what its row shows of its header (etl_pipe_put
 * streams items past the cache, and the two lines of an ev_item were a
 * quarter of that thread's time; with one thread, where nothing is copied,
 * packing and unpacking a row cost more than they saved). Its name and
 * Process/Thread cells, which few events have, are kept with its provider
 * in an ev_extra. */
struct ev_row {
    _Alignas(16) int64_t ts;
    uint64_t buffer_offset;
    uint32_t event_offset, tid, pid;
    uint16_t cpu, size, hook_id, event_id, version;
    uint8_t opcode, kind, flags, ptr_size;
    uint8_t bits;                     /* EVR_* */
    union {
        uint8_t guid[16];             /* without EVR_EXTRA */
        const struct ev_extra *extra; /* with it */
    } u;
};
_Static_assert(sizeof(struct ev_row) == 64, "an event's row is one cache line");

/* What ev_row.bits say. */
enum {
    EVR_NAME_LATER = 1u << 0,         /* as ev_item.name_later */
    EVR_PT_PROBLEM = 1u << 1,         /* as ev_item.pt_problem */
    EVR_EXTRA = 1u << 2,              /* u.extra, not u.guid */
};

/* An ev_row's provider, name and Process/Thread cells (as ev_item's). */
struct ev_extra {
    uint8_t guid[16];
    const char *name;
    const struct etl_value *pt;
};

struct events_ctx {
    struct etl_printer *p;
    struct etl_file *f;
    const struct etl_view_opts *o;
    const struct etl_filter *flt;  /* NULL: every event */
    struct etl_procmap *map;       /* for --process only */
    struct etl_payload *pl;        /* names and payloads */
    struct etl_payload **dec;      /* per thread: pl, then forks of it */
    unsigned threads;
    const struct etl_clock *clk;
    struct etl_pipe *pp;
    bool rows;                     /* items are ev_rows (--no-fields, threads) */
    struct etl_value pt[PT_COUNT]; /* the cells of one Process/Thread event */
    char *text;                    /* its strings */
    size_t text_cap;
    int rc;
    /* etl_kind_name and etl_kind_name_len of each header kind, and of
     * any other last: looked up here by every row, not called. */
    const char *kind_name[ETL_KIND_COUNT + 1];
    uint8_t kind_len[ETL_KIND_COUNT + 1];
};

/* Makes room for n bytes of converted strings; false when out of memory. */
static bool text_room(struct events_ctx *x, size_t n)
{
    if (n <= x->text_cap)
        return true;
    char *t = realloc(x->text, n);
    if (!t)
        return false;
    x->text = t;
    x->text_cap = n;
    return true;
}

/* Sets the string cell v to the converted string at t; returns its length
 * plus its terminator. */
static size_t set_text(struct etl_value *v, const char *t)
{
    size_t n = strlen(t);
    ETL_CELL_STRN(v, 0, t, n, true);
    return n + 1;
}

/* Fills the Process/Thread cells pt (PT_FIRST on) from the event's decoded
 * record, its strings in x->text. */
static void pt_cells(struct events_ctx *x, const struct etl_event *ev,
                     const struct etl_record *rec, struct etl_value *pt)
{
    struct etl_value *v = pt - PT_FIRST; /* indexed by column */
    unsigned kind = rec->dec->kind;
    if (!rec->valid)
        return;
    /* The strings, converted, fit in twice the payload plus terminators
     * (UTF-16 to UTF-8 grows by at most 3/2; the SID needs 200). */
    if (!text_room(x, 2 * (size_t)ev->data_len + 256)) {
        etl_file_nomem(x->f);
        return;
    }
    char *t = x->text;
    size_t left = x->text_cap;
    if (kind == ETL_REC_PROCESS) {
        const struct etl_process_rec *r = &rec->u.proc;
        ETL_CELL(v, E_PROCESS_ID, u, r->pid, true);
        ETL_CELL(v, E_PARENT_ID, u, r->parent_id, (r->has & PR_PARENT) != 0);
        ETL_CELL(v, E_EXIT_STATUS, u, r->exit_status, (r->has & PR_EXIT_STATUS) != 0);
        if (r->has & PR_IMAGE) {
            memcpy(t, r->image, r->image_len);
            t[r->image_len] = '\0';
            size_t n = set_text(&v[E_IMAGE], t);
            t += n;
            left -= n;
        }
        if (r->has & PR_CMDLINE) {
            etl_u16str_utf8(&r->cmdline, t, left);
            size_t n = set_text(&v[E_COMMAND_LINE], t);
            t += n;
            left -= n;
        }
        if (etl_process_sid(r, t, left))
            set_text(&v[E_USER_SID], t);
    } else {
        const struct etl_thread_rec *r = &rec->u.thr;
        ETL_CELL(v, E_PROCESS_ID, u, r->pid, true);
        ETL_CELL(v, E_THREAD_ID, u, r->tid, true);
        if (r->has & TR_NAME) {
            etl_u16str_utf8(&r->name, t, left);
            set_text(&v[E_THREAD_NAME], t);
        }
    }
}

/* Hands the cells pt and the strings of their set string cells to the
 * pipeline, which keeps them for the item; returns the kept cells, NULL
 * when out of memory. */
static const struct etl_value *keep_cells(struct etl_pipe *pp, struct etl_value *pt)
{
    for (size_t i = 0; i < PT_COUNT; i++) {
        if (!pt[i].set || event_cols[PT_FIRST + i].type != ETL_COL_STR)
            continue;
        pt[i].v.str = etl_pipe_keep(pp, pt[i].v.str, etl_cell_len(&pt[i]) + 1);
        if (!pt[i].v.str)
            return NULL;
    }
    return etl_pipe_keep(pp, pt, PT_COUNT * sizeof *pt);
}

/* The columns of the header fields an event carries by its ETL_EV_* flags:
 * the flags from ETL_EV_HOOK to ETL_EV_VERSION are, in order, the columns
 * from hook_id to version (the asserts keep them so); a time gives
 * timestamp and time, a thread tid and pid. */
static uint64_t header_columns(uint32_t flags)
{
    _Static_assert(ETL_EV_HOOK == 1u << 1 && ETL_EV_GUID == 1u << 2 &&
                       ETL_EV_EVENT_ID == 1u << 3 && ETL_EV_OPCODE == 1u << 4 &&
                       ETL_EV_VERSION == 1u << 5,
                   "the ETL_EV_* flags in the order of their columns");
    _Static_assert(E_PROVIDER == E_HOOK_ID + 1 && E_EVENT_ID == E_HOOK_ID + 2 &&
                       E_OPCODE == E_HOOK_ID + 3 && E_VERSION == E_HOOK_ID + 4 &&
                       E_COUNT <= ETL_SET_COLS,
                   "the columns in the order of their ETL_EV_* flags");
    uint64_t set = (uint64_t)(flags >> 1 & 0x1Fu) << E_HOOK_ID;
    if (flags & ETL_EV_TS)
        set |= ETL_SET_BIT(E_TIMESTAMP) | ETL_SET_BIT(E_TIME);
    if (flags & ETL_EV_TID)
        set |= ETL_SET_BIT(E_TID) | ETL_SET_BIT(E_PID);
    return set;
}

/* Fills v with every cell of an event's row as event_cells writes them,
 * for the table's own JSON and XML writers and the printers' row loop;
 * returns the cells it carries as bits (etl_print_row_set). Every cell is
 * stored and the bits made from the flags, without a branch a cell. */
ETL_INLINE uint64_t event_values(struct etl_value *v, const struct events_ctx *x,
                               const struct etl_event *ev, const struct etl_value *pt,
                               const char *name, size_t name_len, const void *fields)
{
    unsigned kind = ev->kind < ETL_KIND_COUNT ? ev->kind : ETL_KIND_COUNT;
    uint64_t set = ETL_SET_BIT(E_CPU) | ETL_SET_BIT(E_HEADER_TYPE) | ETL_SET_BIT(E_SIZE) |
                   ETL_SET_BIT(E_BUFFER_OFFSET) | ETL_SET_BIT(E_EVENT_OFFSET) |
                   header_columns(ev->flags);
    if (pt) {
        memcpy(v + PT_FIRST, pt, PT_COUNT * sizeof *pt);
        for (size_t i = 0; i < PT_COUNT; i++)
            set |= (uint64_t)pt[i].set << (PT_FIRST + i);
    }
    if (fields) {
        v[E_FIELDS].v.p = fields;
        set |= ETL_SET_BIT(E_FIELDS);
    }
    if (name) {
        set |= ETL_SET_BIT(E_EVENT_NAME);
        v[E_EVENT_NAME].v.str = name;
        v[E_EVENT_NAME].len = (uint32_t)name_len;
    }
    v[E_CPU].v.u = ev->cpu;
    v[E_TIMESTAMP].v.i = ev->ts;
    v[E_HEADER_TYPE].v.str = x->kind_name[kind];
    v[E_HEADER_TYPE].len = x->kind_len[kind];
    v[E_HOOK_ID].v.u = ev->hook_id;
    v[E_PROVIDER].v.g = ev->guid;
    v[E_EVENT_ID].v.u = ev->event_id;
    v[E_OPCODE].v.u = ev->opcode;
    v[E_VERSION].v.u = ev->version;
    v[E_TID].v.u = ev->tid;
    v[E_PID].v.u = ev->pid;
    v[E_SIZE].v.u = ev->size;
    v[E_TIME].v.i = ev->ts;
    v[E_BUFFER_OFFSET].v.u = ev->buffer_offset;
    v[E_EVENT_OFFSET].v.u = ev->event_offset;
    return set;
}

/* Writes every cell of an event's row straight into the CSV row c (begun:
 * print/csvrow.h, etl_cells), left to right: what its header carries by
 * its ETL_EV_* flags (as header_columns says), its Process and Thread
 * cells pt (NULL: none), its name (name_len as a cell's len) and its
 * decoded fields (NULL: none); false after a write error. */
ETL_INLINE bool event_cells(struct etl_cells *c, const struct events_ctx *x,
                            const struct etl_event *ev, const struct etl_value *pt,
                            const char *name, size_t name_len, const void *fields)
{
    const bool direct = true;
    unsigned kind = ev->kind < ETL_KIND_COUNT ? ev->kind : ETL_KIND_COUNT;
    uint32_t fl = ev->flags;
    bool ts = (fl & ETL_EV_TS) != 0, thread = (fl & ETL_EV_TID) != 0;
    struct etl_value guid = { .v.g = ev->guid };
    if (!etl_cells_u(c, direct, E_CPU, ev->cpu) ||
        (ts && !etl_cells_i(c, direct, E_TIMESTAMP, ev->ts)) ||
        !etl_cells_str(c, direct, E_HEADER_TYPE, x->kind_name[kind], x->kind_len[kind]) ||
        ((fl & ETL_EV_HOOK) && !etl_cells_u(c, direct, E_HOOK_ID, ev->hook_id)) ||
        ((fl & ETL_EV_GUID) && !etl_cells_put(c, direct, E_PROVIDER, guid)) ||
        ((fl & ETL_EV_EVENT_ID) && !etl_cells_u(c, direct, E_EVENT_ID, ev->event_id)) ||
        ((fl & ETL_EV_OPCODE) && !etl_cells_u(c, direct, E_OPCODE, ev->opcode)) ||
        ((fl & ETL_EV_VERSION) && !etl_cells_u(c, direct, E_VERSION, ev->version)) ||
        (thread && (!etl_cells_u(c, direct, E_TID, ev->tid) ||
                    !etl_cells_u(c, direct, E_PID, ev->pid))) ||
        !etl_cells_u(c, direct, E_SIZE, ev->size) ||
        (ts && !etl_cells_i(c, direct, E_TIME, ev->ts)) ||
        !etl_cells_u(c, direct, E_BUFFER_OFFSET, ev->buffer_offset) ||
        !etl_cells_u(c, direct, E_EVENT_OFFSET, ev->event_offset))
        return false;
    for (size_t i = 0; pt && i < PT_COUNT; i++)
        if (pt[i].set && !etl_cells_put(c, direct, PT_FIRST + i, pt[i]))
            return false;
    struct etl_value fv = { .v.p = fields };
    return (!name || etl_cells_str(c, direct, E_EVENT_NAME, name, name_len)) &&
           (!fields || etl_cells_put(c, direct, E_FIELDS, fv));
}

/* Writes the CSV row of an event straight into the output (etl_cells),
 * the table of ncols columns (E_FIELDS or E_COUNT, a constant where it is
 * inlined); the status of etl_print_status, or -1 after a write error. */
ETL_INLINE int event_csv_direct(struct etl_printer *p, size_t ncols,
                                const struct events_ctx *x, const struct etl_event *ev,
                                const struct etl_value *pt, const char *name, size_t name_len,
                                const void *fields)
{
    struct etl_cells c;
    c.p = p;
    c.cols = event_cols;
    if (!etl_csv_own_row_begin(p, &c.row, ncols) ||
        !event_cells(&c, x, ev, pt, name, name_len, fields))
        return -1;
    return etl_csv_row_end(p, &c.row, ncols);
}

/* The event of a row (ev_row), as event_row had it but for what render
 * never reads with --no-fields (the payload, extended items, PMC counters,
 * whether its buffer was compressed); its kept name and Process/Thread
 * cells (NULL: none). */
ETL_INLINE void row_event(const struct ev_row *r, struct etl_event *ev, const char **name,
                          const struct etl_value **pt)
{
    /* Field by field, not a memset first: that took a tenth of the
     * samples of render with two threads (a rep stos on x86-64). */
    ev->ts = r->ts;
    ev->data = ev->ext = ev->ext_items = NULL;
    ev->data_len = ev->ext_items_len = 0;
    ev->pmc_count = ev->pebs = ev->compressed = 0;
    ev->buffer_offset = r->buffer_offset;
    ev->event_offset = r->event_offset;
    ev->tid = r->tid;
    ev->pid = r->pid;
    ev->flags = r->flags;
    ev->cpu = r->cpu;
    ev->size = r->size;
    ev->hook_id = r->hook_id;
    ev->event_id = r->event_id;
    ev->version = r->version;
    ev->opcode = r->opcode;
    ev->kind = r->kind;
    ev->ptr_size = r->ptr_size;
    if (r->bits & EVR_EXTRA) {
        memcpy(ev->guid, r->u.extra->guid, sizeof ev->guid);
        *name = r->u.extra->name;
        *pt = r->u.extra->pt;
    } else {
        memcpy(ev->guid, r->u.guid, sizeof ev->guid);
        *name = NULL;
        *pt = NULL;
    }
}

/* Prints the row of one event: its payload decoded here, any damage in it
 * reported through the pipeline (on any of its threads); its cells straight
 * into a CSV row when the view may write the table's rows
 * (etl_print_csv_own), else through the table's own writer of format `as`
 * (a constant: render_event_csv and the others) when the view may call it. */
ETL_INLINE int render_event_as(struct etl_printer *p, const void *item, void *vctx,
                               struct etl_pipe_job *job, enum etl_own_format as, bool rows)
{
    const struct events_ctx *x = vctx;
    struct etl_event row_ev;
    const struct etl_event *ev = &row_ev;
    const char *name;
    const struct etl_value *pt;
    bool pt_problem, name_later, own = false;
    if (rows) {
        const struct ev_row *r = item;
        row_event(r, &row_ev, &name, &pt);
        pt_problem = (r->bits & EVR_PT_PROBLEM) != 0;
        name_later = (r->bits & EVR_NAME_LATER) != 0;
    } else {
        const struct ev_item *it = item;
        ev = &it->ev;
        name = it->name;
        pt = it->pt;
        pt_problem = it->pt_problem;
        name_later = it->name_later;
    }
    /* The row or copy has no payload but the header fields event_row
     * judged by: etl_payload_name takes the same way as it would have
     * there, and never reaches for the payload (etl_meta_maybe_manifest
     * was false). */
    if (name_later)
        name = etl_payload_name_own(x->dec[job->thread], ev, &own);
    const void *fields = NULL;
    if (!x->o->no_fields) {
        struct etl_payload *dec = x->dec[job->thread];
        size_t at;
        if (etl_payload_decode(dec, ev, &name, &at) == ETL_FDEC_DAMAGED && !pt_problem) {
            /* Once per event: a Process or Thread record reported its own. */
            char what[ETL_PAYLOAD_NAME_MAX + 128], msg[320];
            snprintf(what, sizeof what, "%s: %s", name ? name : "event",
                     dec->why ? dec->why : "payload field runs past the end of the event");
            etl_pipe_report(job, etl_event_problem(ev, at, what, msg, sizeof msg), msg);
        }
        fields = &dec->fields;
    }
    size_t name_len = own ? ETL_CELL_PLAIN : 0; /* measured by the printer */
    if (as == ETL_OWN_CSV && etl_print_csv_own(p, &events_no_fields))
        return event_csv_direct(p, E_FIELDS, x, ev, pt, name, name_len, NULL);
    if (as == ETL_OWN_CSV && etl_print_csv_own(p, &etl_table_events))
        return event_csv_direct(p, E_COUNT, x, ev, pt, name, name_len, fields);
    struct etl_value v[E_COUNT];
    uint64_t set = event_values(v, x, ev, pt, name, name_len, fields);
    if (as == ETL_OWN_JSON && etl_print_json_own(p, &events_no_fields))
        return event_json_row_no_fields(p, v, set);
    if (as == ETL_OWN_JSON && etl_print_json_own(p, &etl_table_events))
        return event_json_row(p, v, set);
    if (as == ETL_OWN_XML && etl_print_xml_own(p, &events_no_fields))
        return event_xml_row_no_fields(p, v, set);
    if (as == ETL_OWN_XML && etl_print_xml_own(p, &etl_table_events))
        return event_xml_row(p, v, set);
    return etl_print_row_set(p, v, set);
}

/* render_event_as for each format (printer.h: etl_own_format), of items
 * (ev_item) and of rows (ev_row). */
#define RENDER_EVENT(fn, as, rows)                                                       \
    static int fn(struct etl_printer *p, const void *item, void *vctx,                 \
                  struct etl_pipe_job *job)                                              \
    {                                                                                    \
        return render_event_as(p, item, vctx, job, as, rows);                          \
    }
RENDER_EVENT(render_event, ETL_OWN_NONE, false)
RENDER_EVENT(render_event_csv, ETL_OWN_CSV, false)
RENDER_EVENT(render_event_json, ETL_OWN_JSON, false)
RENDER_EVENT(render_event_xml, ETL_OWN_XML, false)
RENDER_EVENT(render_row, ETL_OWN_NONE, true)
RENDER_EVENT(render_row_csv, ETL_OWN_CSV, true)
RENDER_EVENT(render_row_json, ETL_OWN_JSON, true)
RENDER_EVENT(render_row_xml, ETL_OWN_XML, true)

static const etl_pipe_fn render_event_for[2][4] = {
    { [ETL_OWN_NONE] = render_event, [ETL_OWN_CSV] = render_event_csv,
      [ETL_OWN_JSON] = render_event_json, [ETL_OWN_XML] = render_event_xml },
    { [ETL_OWN_NONE] = render_row, [ETL_OWN_CSV] = render_row_csv,
      [ETL_OWN_JSON] = render_row_json, [ETL_OWN_XML] = render_row_xml },
};

/* Hands the pipeline the item it of an event (its slot with one thread),
 * with its name (or NULL), whether render finds it (--no-fields), whether
 * its Process/Thread record reported a problem and its kept cells (or
 * NULL); false when out of memory, with x->rc set by the pipeline
 * otherwise. */
ETL_INLINE bool put_item(struct events_ctx *x, struct ev_item *it, const struct etl_event *ev,
                         const char *name, bool name_later, bool pt_problem,
                         const struct etl_value *cells)
{
    it->ev = *ev;
    it->ev.ext = NULL; /* not read past the view's thread */
    it->name = name;
    it->name_later = name_later;
    it->pt_problem = pt_problem;
    it->pt = cells;
    if (x->o->no_fields) { /* not read by render */
        it->ev.data = NULL;
        it->ev.ext_items = NULL;
    } else {
        if (!(it->ev.data = etl_pipe_keep(x->pp, ev->data, ev->data_len)))
            return false;
        if (ev->ext_items &&
            !(it->ev.ext_items = etl_pipe_keep(x->pp, ev->ext_items, ev->ext_items_len)))
            return false;
    }
    x->rc = x->threads > 1 ? etl_pipe_put(x->pp, it) : etl_pipe_commit(x->pp);
    return true;
}

/* The same as the row r (--no-fields with other threads). */
ETL_INLINE bool put_row(struct events_ctx *x, struct ev_row *r, const struct etl_event *ev,
                        const char *name, bool name_later, bool pt_problem,
                        const struct etl_value *cells)
{
    _Static_assert(ETL_EV_STRING_ONLY <= UINT8_MAX, "an event's flags in a byte");
    r->ts = ev->ts;
    r->buffer_offset = ev->buffer_offset;
    r->event_offset = ev->event_offset;
    r->tid = ev->tid;
    r->pid = ev->pid;
    r->cpu = ev->cpu;
    r->size = ev->size;
    r->hook_id = ev->hook_id;
    r->event_id = ev->event_id;
    r->version = ev->version;
    r->opcode = ev->opcode;
    r->kind = ev->kind;
    r->flags = (uint8_t)ev->flags;
    r->ptr_size = ev->ptr_size;
    r->bits = (uint8_t)((name_later ? EVR_NAME_LATER : 0u) | (pt_problem ? EVR_PT_PROBLEM : 0u));
    if (name || cells) {
        struct ev_extra e;
        memcpy(e.guid, ev->guid, sizeof e.guid);
        e.name = name;
        e.pt = cells;
        if (!(r->u.extra = etl_pipe_keep(x->pp, &e, sizeof e)))
            return false;
        r->bits |= EVR_EXTRA;
    } else {
        memcpy(r->u.guid, ev->guid, sizeof r->u.guid);
    }
    x->rc = etl_pipe_put(x->pp, r);
    return true;
}

/* Takes one event: decodes its Process/Thread record (reporting damage
 * whether the row is shown or not), applies the filters and hands the row
 * to the pipeline. False to stop (write error, --strict, no memory). */
ETL_INLINE bool event_row_as(void *vctx, const struct etl_event *ev, bool rows)
{
    struct events_ctx *x = vctx;
    /* With other threads the item is built here and handed over with
     * etl_pipe_put (pipeline.h says why); with one, in its slot. */
    struct ev_item own;
    struct ev_row row;
    struct ev_item *it = rows || x->threads > 1 ? &own : etl_pipe_slot(x->pp);
    if (!it) {
        x->rc = -1;
        return false;
    }
    struct etl_record rec;
    const struct etl_decoder *d = etl_dispatch(ev);
    bool pt = d->kind == ETL_REC_PROCESS || d->kind == ETL_REC_THREAD;
    if (pt) {
        for (size_t i = 0; i < PT_COUNT; i++)
            x->pt[i].set = false;
        etl_decode(ev, d, &rec);
        pt_cells(x, ev, &rec, x->pt);
        if (rec.problem)
            etl_report_event(x->f, ev, rec.at, rec.problem);
    } else {
        rec.dec = d;
        rec.valid = false;
        rec.problem = NULL;
    }
    /* --no-fields: the event's name. Found from its header alone (not a
     * TraceLogging event, whose schema is in the extended items, nor one
     * that may be a manifest chunk), it is left to the thread that renders
     * the row, with a decoder of its own that knows what this one does;
     * else, as when a filter needs it, it is found here and kept. */
    const char *name = NULL;
    bool by_name = x->flt && etl_filter_names(x->flt);
    bool name_later = x->o->no_fields && !by_name && !ev->ext_items &&
                      !etl_meta_maybe_manifest(ev);
    if (by_name || (x->o->no_fields && !name_later))
        name = etl_payload_name(x->pl, ev);
    if (x->flt && !etl_filter_event(x->flt, x->clk, x->map, ev, &rec, name))
        return !(x->o->strict && etl_file_problems(x->f)) && !etl_file_is_nomem(x->f);
    if (name && !(name = etl_pipe_keep(x->pp, name, strlen(name) + 1)))
        return false;
    const struct etl_value *cells = NULL;
    if (pt && !(cells = keep_cells(x->pp, x->pt)))
        return false;
    if (!(rows ? put_row(x, &row, ev, name, name_later, rec.problem != NULL, cells)
               : put_item(x, it, ev, name, name_later, rec.problem != NULL, cells)))
        return false;
    return x->rc == 0 && !(x->o->strict && etl_file_problems(x->f)) &&
           !etl_file_is_nomem(x->f);
}

/* event_row_as for items and for rows (x->rows). */
static bool event_row(void *vctx, const struct etl_event *ev)
{
    return event_row_as(vctx, ev, false);
}

static bool event_row_rows(void *vctx, const struct etl_event *ev)
{
    return event_row_as(vctx, ev, true);
}

/* Sets up a decoder per thread beyond the first (which uses x->pl); false
 * when out of memory. */
static bool decoders_new(struct events_ctx *x)
{
    x->dec = calloc(x->threads, sizeof *x->dec);
    if (!x->dec)
        return false;
    x->dec[0] = x->pl;
    for (unsigned i = 1; i < x->threads; i++)
        if (!(x->dec[i] = etl_payload_fork(x->pl)))
            return false;
    return true;
}

static void decoders_free(struct events_ctx *x)
{
    for (unsigned i = 1; x->dec && i < x->threads; i++)
        etl_payload_free(x->dec[i]);
    free(x->dec);
}

/* Prints every event through a pipeline, once the payload pre-pass is done. */
static int print_events(struct events_ctx *x, struct etl_streams *s)
{
    const struct etl_table *t = x->o->no_fields ? &events_no_fields : &etl_table_events;
    int rc = etl_print_begin_table(x->p, t);
    if (rc != 0)
        return rc;
    /* Damage found while decoding a payload is reported from render_event:
     * --strict, which stops at the first problem, reads on one thread. */
    x->threads = x->o->strict ? 1 : etl_pipe_threads(x->o->threads,
                                                     etl_file_totals(x->f)->bytes);
    x->rows = x->o->no_fields && x->threads > 1;
    if (!decoders_new(x) ||
        !(x->pp = etl_pipe_new(x->p, x->f, x->rows ? sizeof(struct ev_row) : sizeof(struct ev_item),
                               render_event_for[x->rows][etl_print_own_format(x->p)], x,
                               sizeof *x,
                               x->threads))) {
        etl_file_nomem(x->f);
        return 0;
    }
    /* --strict: a problem found before any event (the index's) stops the
     * view before it reads one. */
    if (!(x->o->strict && etl_file_problems(x->f)))
        etl_merge_events(s, x->rows ? event_row_rows : event_row, x);
    rc = etl_pipe_end(x->pp);
    if (x->rc == 0)
        x->rc = rc;
    return x->rc == 0 ? etl_print_end_table(x->p) : x->rc;
}

int etl_view_events(struct etl_printer *p, struct etl_file *f,
                    const struct etl_view_opts *o)
{
    struct events_ctx x;
    memset(&x, 0, sizeof x);
    x.p = p;
    x.f = f;
    x.o = o;
    x.flt = etl_filter_any(o->filter) ? o->filter : NULL;
    x.clk = etl_file_clock(f);
    for (unsigned k = 0; k <= ETL_KIND_COUNT; k++) {
        x.kind_name[k] = etl_kind_name(k);
        x.kind_len[k] = (uint8_t)etl_kind_name_len(k);
    }
    /* --process needs the image of an event's process at its time: the
     * thread -> process map (this view reports the records itself). */
    if (x.flt && x.flt->nprocess) {
        x.map = etl_procmap_build(f, false);
        if (!x.map)
            return 0;
    }
    etl_filter_notes(x.flt, x.map, f);
    x.pl = etl_payload_new();
    if (!x.pl) {
        etl_file_nomem(f);
        etl_procmap_free(x.map);
        return 0;
    }
    struct etl_streams *s = NULL;
    if (etl_payload_prepass(x.pl, f))
        s = etl_streams_new(f);
    int rc = s ? print_events(&x, s) : 0;
    if (s && rc == 0 && !(o->strict && etl_file_problems(f))) /* read to the end */
        etl_filter_notes_end(x.flt, s, ETL_SEEN_EVENTS, NULL, f);
    decoders_free(&x);
    etl_streams_free(s);
    etl_procmap_free(x.map);
    etl_payload_free(x.pl);
    free(x.text);
    return rc;
}
