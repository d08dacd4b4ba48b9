/*
 * events.c - the every-event view: one row per event record in time order,
 * with what its trace header carries.
 */
#include "view/view.h"

enum {
    E_CPU, E_TIMESTAMP, E_HEADER_TYPE, E_HOOK_ID, E_PROVIDER, E_EVENT_ID,
    E_OPCODE, E_VERSION, E_TID, E_PID, E_SIZE, E_TIME, E_BUFFER_OFFSET,
    E_EVENT_OFFSET, E_COUNT
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
};

const struct etl_table etl_table_events = { "event", event_cols, E_COUNT, false };

struct events_ctx {
    struct etl_printer *p;
    struct etl_file *f;
    const struct etl_view_opts *o;
    int rc;
};

/* Prints one event row; false to stop (write error or --strict). */
static bool event_row(void *vctx, const struct etl_event *ev)
{
    struct events_ctx *x = vctx;
    struct etl_value v[E_COUNT];
    bool ts = (ev->flags & ETL_EV_TS) != 0;
    bool tid = (ev->flags & ETL_EV_TID) != 0;
    v[E_CPU].v.u = ev->cpu;
    v[E_CPU].set = true;
    v[E_TIMESTAMP].v.i = ev->ts;
    v[E_TIMESTAMP].set = ts;
    v[E_HEADER_TYPE].v.s = etl_kind_name(ev->kind);
    v[E_HEADER_TYPE].set = true;
    v[E_HOOK_ID].v.u = ev->hook_id;
    v[E_HOOK_ID].set = (ev->flags & ETL_EV_HOOK) != 0;
    v[E_PROVIDER].v.g = ev->guid;
    v[E_PROVIDER].set = (ev->flags & ETL_EV_GUID) != 0;
    v[E_EVENT_ID].v.u = ev->event_id;
    v[E_EVENT_ID].set = (ev->flags & ETL_EV_EVENT_ID) != 0;
    v[E_OPCODE].v.u = ev->opcode;
    v[E_OPCODE].set = (ev->flags & ETL_EV_OPCODE) != 0;
    v[E_VERSION].v.u = ev->version;
    v[E_VERSION].set = (ev->flags & ETL_EV_VERSION) != 0;
    v[E_TID].v.u = ev->tid;
    v[E_TID].set = tid;
    v[E_PID].v.u = ev->pid;
    v[E_PID].set = tid;
    v[E_SIZE].v.u = ev->size;
    v[E_SIZE].set = true;
    v[E_TIME].v.i = ev->ts;
    v[E_TIME].set = ts;
    v[E_BUFFER_OFFSET].v.u = ev->buffer_offset;
    v[E_BUFFER_OFFSET].set = true;
    v[E_EVENT_OFFSET].v.u = ev->event_offset;
    v[E_EVENT_OFFSET].set = true;
    x->rc = x->p->ops->row(x->p, v);
    return x->rc == 0 && !(x->o->strict && x->f->problems);
}

int etl_view_events(struct etl_printer *p, struct etl_file *f,
                    const struct etl_view_opts *o)
{
    struct etl_streams s;
    if (!etl_streams_init(&s, f)) {
        etl_report(f, 0, "out of memory ordering buffers");
        return 0;
    }
    struct events_ctx x = { p, f, o, 0 };
    x.rc = p->ops->begin_table(p, &etl_table_events);
    if (x.rc == 0)
        etl_merge_events(&s, event_row, &x);
    if (x.rc == 0)
        x.rc = p->ops->end_table(p);
    etl_streams_free(&s);
    return x.rc;
}
