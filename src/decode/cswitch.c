/*
 * cswitch.c - context switches.
 *
 * CSwitch (HookId 0x0524): WMI_CONTEXTSWAP, 0x18 bytes (0x10 in version 1),
 * seed 002 and etl-format.md section 7.
 * Compact batch (HookId 0x0525): PERFINFO_CCSWAP_BUFFER (0x58 bytes:
 * FirstTimeStamp, TidTable[16], ThreadBasePriority[16]) followed by packed
 * records of 2, 4 or 8 bytes chosen by the 2-bit DataType, seeds 000 and 001
 * and etl-format.md section 8.
 * Expansion: the new thread of a compact switch is the old thread of the next
 * switch on the same CPU in that CPU's event order (spec 8.3), never linked
 * across a known gap in the CPU's stream.
 */
#include "grow.h"
#include "decode/cswitch.h"

#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "etl/heap.h"

/* WMI_CONTEXTSWAP offsets (seed 002). */
#define CS_NEW_TID 0x00
#define CS_OLD_TID 0x04
#define CS_NEW_PRI 0x08
#define CS_OLD_PRI 0x09
#define CS_CSTATE_RANK 0x0A
#define CS_NEW_PRI_DECREMENT 0x0B
#define CS_WAIT_REASON 0x0C
#define CS_WAIT_MODE 0x0D
#define CS_STATE 0x0E
#define CS_IDEAL 0x0F
#define CS_NEW_WAIT_TIME 0x10
#define CS_QUANTUM 0x14
#define CS_SIZE_V1 0x10
#define CS_SIZE 0x18

/* PERFINFO_CCSWAP_BUFFER (seed 001). */
#define CC_FIRST_TS 0x00
#define CC_TID_TABLE 0x08
#define CC_BASE_PRI 0x48
#define CC_HEADER 0x58
#define CC_SLOTS 16

/* KTHREAD_STATE Waiting and the highest state (seed 000). */
#define STATE_WAITING 5
#define STATE_MAX 9

bool etl_decode_cswitch(const struct etl_event *ev, struct etl_switch *sw)
{
    const uint8_t *d = ev->data;
    memset(sw, 0, sizeof *sw);
    if (ev->data_len < CS_SIZE_V1)
        return false;
    sw->ts = ev->ts;
    sw->cpu = ev->cpu;
    sw->source = ETL_SW_CSWITCH;
    sw->form = ETL_CCSWAP_NONE;
    sw->new_tid = etl_le32(d + CS_NEW_TID);
    sw->old_tid = etl_le32(d + CS_OLD_TID);
    sw->new_priority = (int8_t)d[CS_NEW_PRI];
    sw->old_priority = (int8_t)d[CS_OLD_PRI];
    sw->old_wait_reason = d[CS_WAIT_REASON];
    sw->old_wait_mode = d[CS_WAIT_MODE] & 1;
    sw->flags = (uint8_t)(d[CS_WAIT_MODE] >> 1);
    sw->old_state = d[CS_STATE];
    sw->ideal_cpu = d[CS_IDEAL];
    sw->has = SW_OLD_TID | SW_NEW_TID | SW_OLD_PRIORITY | SW_NEW_PRIORITY | SW_OLD_STATE |
              SW_OLD_WAIT_REASON | SW_OLD_WAIT_MODE | SW_IDEAL_CPU;
    /* Byte 10 is a union: PreviousCState, meaningful when the idle thread is
     * leaving, else OldThreadRank. It is shown as the C-state always (as the
     * event's documented field) and as the rank when the old thread is not
     * the idle thread. */
    sw->prev_cstate = d[CS_CSTATE_RANK];
    sw->has |= SW_PREV_CSTATE;
    if (sw->old_tid != 0) {
        sw->old_rank = d[CS_CSTATE_RANK];
        sw->has |= SW_OLD_RANK;
    }
    if ((ev->version & 0xFF) >= 2) {
        sw->new_priority_decrement = (int8_t)d[CS_NEW_PRI_DECREMENT];
        sw->has |= SW_NEW_PRI_DECREMENT;
    }
    if ((ev->version & 0xFF) >= 3)
        sw->has |= SW_FLAGS;
    if (ev->data_len >= CS_SIZE) {
        sw->new_wait_time = etl_le32(d + CS_NEW_WAIT_TIME);
        sw->old_remaining_quantum = (int32_t)etl_le32(d + CS_QUANTUM);
        sw->has |= SW_NEW_WAIT_TIME | SW_OLD_QUANTUM;
    }
    return true;
}

unsigned etl_max_wait_reason_for_build(uint32_t build)
{
    /* KWAIT_REASON grew with Windows (spec 8.4): 0x1B in XP, 0x25 in Vista
     * and 7, 0x27 in Windows 10 up to 2004-22H2 (19041-19045, one kernel),
     * 0x2A in Windows 11. Builds between the documented points are inferred. */
    if (build < 6000)
        return 0x1B;
    if (build < 9200)
        return 0x25;
    if (build < 9600)
        return 0x26;
    if (build <= 19045)
        return 0x27;
    return 0x2A;
}

/* Sets the old thread's state and wait reason from OldThreadStateWr: a wait
 * reason below the bias (the thread was Waiting), else state + bias. Returns
 * false if the state is not plausible. */
static bool set_state_wr(struct etl_switch *sw, unsigned swr, unsigned bias)
{
    if (swr < bias) {
        sw->old_state = STATE_WAITING;
        sw->old_wait_reason = (uint8_t)swr;
        sw->has |= SW_OLD_STATE | SW_OLD_WAIT_REASON;
        return true;
    }
    sw->old_state = (uint8_t)(swr - bias);
    sw->has |= SW_OLD_STATE;
    return sw->old_state <= STATE_MAX && sw->old_state != STATE_WAITING;
}

size_t etl_decode_batch(const struct etl_event *ev, unsigned bias,
                        struct etl_switch *out, size_t cap,
                        etl_batch_diag_fn diag, void *ctx,
                        uint64_t *implausible)
{
    const uint8_t *d = ev->data;
    size_t len = ev->data_len;
    if (len < CC_HEADER) {
        diag(ctx, ev, 0, "compact batch shorter than its 0x58-byte header");
        return 0;
    }
    /* Unsigned: a hostile FirstTimeStamp plus deltas wraps instead of overflowing. */
    uint64_t ts = etl_le64(d + CC_FIRST_TS);
    size_t n = 0, pos = CC_HEADER;
    while (pos < len && n < cap) {
        unsigned type = d[pos] & 3u;
        size_t need = type == ETL_CCSWAP_IDLE_SHORT ? 2 : type == ETL_CCSWAP_FULL ? 8 : 4;
        if (need > len - pos) {
            diag(ctx, ev, pos, "compact switch record runs past the end of its batch");
            break;
        }
        struct etl_switch *sw = &out[n];
        memset(sw, 0, sizeof *sw);
        sw->cpu = ev->cpu;
        sw->source = ETL_SW_COMPACT;
        sw->form = (uint8_t)type;
        unsigned idx = 0, swr = 0;
        uint32_t w = type == ETL_CCSWAP_IDLE_SHORT ? etl_le16(d + pos) : etl_le32(d + pos);
        switch (type) {
        case ETL_CCSWAP_IDLE_SHORT: /* TimeDelta:14 */
        case ETL_CCSWAP_IDLE:       /* TimeDelta:30 */
            ts += w >> 2;
            sw->has |= SW_OLD_TID; /* the idle thread, TID 0 */
            break;
        case ETL_CCSWAP_LITE: {
            /* OldThreadIdIndex:4, OldThreadPriInc:3, OldThreadStateWr:6, TimeDelta:17 */
            idx = (w >> 2) & 0xF;
            unsigned inc = (w >> 6) & 0x7;
            swr = (w >> 9) & 0x3F;
            ts += w >> 15;
            sw->old_priority = (int8_t)((int8_t)d[CC_BASE_PRI + idx] + (int)inc);
            sw->has |= SW_OLD_PRIORITY;
            break;
        }
        default: { /* FULL: TimeDelta:30 | OldThreadIdIndex:4, OldThreadStateWr:6,
                      OldThreadPriority:5, NewThreadWaitTime:17 */
            uint32_t w1 = etl_le32(d + pos + 4);
            ts += w >> 2;
            idx = w1 & 0xF;
            swr = (w1 >> 4) & 0x3F;
            sw->old_priority = (int8_t)((w1 >> 10) & 0x1F);
            sw->new_wait_time = w1 >> 15;
            sw->has |= SW_OLD_PRIORITY | SW_NEW_WAIT_TIME;
            break;
        }
        }
        sw->ts = (int64_t)ts;
        if (type >= ETL_CCSWAP_LITE) {
            sw->old_tid = etl_le32(d + CC_TID_TABLE + 4 * idx);
            if (sw->old_tid != 0)
                sw->has |= SW_OLD_TID;
            else /* the idle thread never enters the table: an empty slot */
                diag(ctx, ev, pos, "compact switch names an empty TidTable slot");
            if (!set_state_wr(sw, swr, bias)) {
                if (*implausible == 0)
                    diag(ctx, ev, pos,
                         "compact switch decodes to an impossible thread state "
                         "(check --max-wait-reason)");
                (*implausible)++;
            }
        }
        pos += need;
        n++;
    }
    return n;
}

/* --- expansion and merge -------------------------------------------------- */

/* One CPU's decoded switches waiting to be handed out, in per-CPU order. */
struct sw_cpu {
    struct etl_stream *st;
    struct etl_switch *q;
    size_t head, n, cap;
    bool pending;          /* q[n-1] waits for the next switch's old thread */
    bool done;
};

struct etl_switch_reader {
    struct etl_file *f;
    struct sw_cpu *cpu;
    size_t ncpu;
    struct etl_heap heap;
    bool started;
    unsigned bias;
    struct etl_switch *batch;   /* scratch for one decoded batch */
    size_t batch_cap;
    struct etl_switch_stats stats;
};

/* Reports a problem inside an event for the reader's file. */
static void reader_diag(void *ctx, const struct etl_event *ev, size_t at,
                        const char *msg)
{
    struct etl_switch_reader *r = ctx;
    etl_report_event(r->f, ev, at, msg);
}

/* Makes room for k more switches in c's queue; false when out of memory. */
static bool queue_room(struct sw_cpu *c, size_t k)
{
    if (c->head > 0 && c->head == c->n - (c->pending ? 1 : 0)) {
        /* Everything handed out but the pending one: restart the queue. */
        if (c->pending)
            c->q[0] = c->q[c->n - 1];
        c->n -= c->head;
        c->head = 0;
    }
    return etl_grow(&c->q, &c->cap, c->n + k, sizeof *c->q, 64);
}

/* Appends sw to c's queue, giving the pending switch sw's old thread as its
 * new thread; sw itself is pending if it lacks a new thread. */
static void append_switch(struct sw_cpu *c, const struct etl_switch *sw)
{
    if (c->pending && (sw->has & SW_OLD_TID)) {
        c->q[c->n - 1].new_tid = sw->old_tid;
        c->q[c->n - 1].has |= SW_NEW_TID;
    } /* else the pending switch's new thread stays unknown */
    c->q[c->n++] = *sw;
    c->pending = !(sw->has & SW_NEW_TID);
}

/* Returns the number of c's switches that can be handed out now. */
static size_t ready(const struct sw_cpu *c)
{
    return c->n - c->head - (c->pending ? 1 : 0);
}

/* Reads c's events until a switch is ready or the stream ends. */
static void fill(struct etl_switch_reader *r, struct sw_cpu *c)
{
    struct etl_event ev;
    while (!c->done && ready(c) == 0) {
        if (!etl_stream_next(c->st, &ev)) {
            c->done = true;
            c->pending = false; /* its new thread stays unknown */
            break;
        }
        if (c->st->gap)
            c->pending = false; /* its new thread stays unknown */
        if (!(ev.flags & ETL_EV_HOOK))
            continue;
        if (ev.hook_id == ETL_HOOK_CSWITCH) {
            struct etl_switch sw;
            if (!etl_decode_cswitch(&ev, &sw)) {
                etl_report_event(r->f, &ev, 0, "CSwitch event too short");
                c->pending = false; /* its new thread stays unknown */
                continue;
            }
            if (!queue_room(c, 1)) {
                etl_report(r->f, ev.buffer_offset, "out of memory expanding switches");
                c->done = true;
                break;
            }
            append_switch(c, &sw);
            r->stats.cswitch++;
        } else if (ev.hook_id == ETL_HOOK_CSWITCH_BATCH) {
            size_t cap = ev.data_len / 2 + 1;
            if (cap > r->batch_cap) {
                struct etl_switch *b = realloc(r->batch, cap * sizeof *b);
                if (!b) {
                    etl_report(r->f, ev.buffer_offset, "out of memory expanding switches");
                    c->done = true;
                    break;
                }
                r->batch = b;
                r->batch_cap = cap;
            }
            size_t k = etl_decode_batch(&ev, r->bias, r->batch, cap, reader_diag, r,
                                        &r->stats.implausible_states);
            if (!queue_room(c, k)) {
                etl_report(r->f, ev.buffer_offset, "out of memory expanding switches");
                c->done = true;
                break;
            }
            for (size_t i = 0; i < k; i++)
                append_switch(c, &r->batch[i]);
            r->stats.compact += k;
        }
    }
}

struct etl_switch_reader *etl_switch_reader_new(struct etl_file *f,
                                                struct etl_streams *s,
                                                unsigned max_wait_reason)
{
    struct etl_switch_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->f = f;
    r->bias = max_wait_reason ? max_wait_reason
                              : etl_max_wait_reason_for_build(f->hdr.build);
    r->ncpu = s->ncpu;
    r->cpu = calloc(s->ncpu ? s->ncpu : 1, sizeof *r->cpu);
    if (!r->cpu || !etl_heap_init(&r->heap, s->ncpu)) {
        etl_switch_reader_free(r);
        return NULL;
    }
    for (size_t i = 0; i < s->ncpu; i++)
        r->cpu[i].st = &s->cpu[i];
    return r;
}

bool etl_switch_next(struct etl_switch_reader *r, struct etl_switch *out)
{
    if (!r->started) {
        r->started = true;
        for (size_t i = 0; i < r->ncpu; i++) {
            fill(r, &r->cpu[i]);
            if (ready(&r->cpu[i]))
                etl_heap_push(&r->heap, r->cpu[i].q[r->cpu[i].head].ts, (uint32_t)i);
        }
    }
    if (r->heap.n == 0)
        return false;
    uint32_t i = r->heap.item[0].id;
    struct sw_cpu *c = &r->cpu[i];
    *out = c->q[c->head++];
    fill(r, c);
    if (ready(c))
        etl_heap_replace_top(&r->heap, c->q[c->head].ts, i);
    else
        etl_heap_pop(&r->heap);
    return true;
}

const struct etl_switch_stats *etl_switch_reader_stats(const struct etl_switch_reader *r)
{
    return &r->stats;
}

unsigned etl_switch_reader_bias(const struct etl_switch_reader *r)
{
    return r->bias;
}

void etl_switch_reader_free(struct etl_switch_reader *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->cpu && i < r->ncpu; i++)
        free(r->cpu[i].q);
    free(r->cpu);
    etl_heap_free(&r->heap);
    free(r->batch);
    free(r);
}
