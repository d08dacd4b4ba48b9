/*
 * swreader.c - expanding and merging the switches of every CPU (see
 * swreader.h).
 */
#include "grow.h"
#include "decode/swreader.h"

#include <stdlib.h>
#include <string.h>

#include "decode/dispatch.h"
#include "etl/heap.h"

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

/* Decodes the batch in cursor bc into the scratch array; returns the
 * number of switches, or SIZE_MAX when memory ran out. */
static size_t expand_batch(struct etl_switch_reader *r, const struct etl_event *ev,
                           struct etl_cursor *bc)
{
    size_t cap = etl_cur_left(bc) / 2 + 1;
    if (!etl_grow(&r->batch, &r->batch_cap, cap, sizeof *r->batch, 64))
        return SIZE_MAX;
    return etl_decode_batch(ev, bc, r->bias, r->batch, cap, reader_diag, r,
                            &r->stats.implausible_states);
}

/* Reads c's events until a switch is ready or the stream ends. */
static void fill(struct etl_switch_reader *r, struct sw_cpu *c)
{
    struct etl_event ev;
    struct etl_record rec;
    while (!c->done && ready(c) == 0) {
        if (!etl_stream_next(c->st, &ev)) {
            c->done = true;
            c->pending = false; /* its new thread stays unknown */
            break;
        }
        if (etl_stream_gap(c->st))
            c->pending = false; /* its new thread stays unknown */
        const struct etl_decoder *d = etl_dispatch(&ev);
        if (d->kind != ETL_REC_CSWITCH && d->kind != ETL_REC_CSWITCH_BATCH)
            continue;
        if (!etl_decode(&ev, d, &rec)) {
            etl_report_event(r->f, &ev, rec.at, rec.problem);
            c->pending = false; /* its new thread stays unknown */
            continue;
        }
        size_t k = 1;
        const struct etl_switch *sws = &rec.u.sw;
        if (d->kind == ETL_REC_CSWITCH_BATCH) {
            k = expand_batch(r, &ev, &rec.u.batch);
            sws = r->batch;
        }
        if (k == SIZE_MAX || !queue_room(c, k)) {
            etl_file_nomem(r->f);
            c->done = true;
            break;
        }
        for (size_t i = 0; i < k; i++)
            append_switch(c, &sws[i]);
        if (d->kind == ETL_REC_CSWITCH)
            r->stats.cswitch++;
        else
            r->stats.compact += k;
    }
}

struct etl_switch_reader *etl_switch_reader_new(struct etl_file *f,
                                                struct etl_streams *s,
                                                unsigned max_wait_reason)
{
    struct etl_switch_reader *r = calloc(1, sizeof *r);
    if (!r) {
        etl_file_nomem(f);
        return NULL;
    }
    r->f = f;
    r->bias = max_wait_reason ? max_wait_reason
                              : etl_max_wait_reason_for_build(etl_file_header(f)->build);
    r->ncpu = etl_streams_count(s);
    r->cpu = calloc(r->ncpu ? r->ncpu : 1, sizeof *r->cpu);
    if (!r->cpu || !etl_heap_init(&r->heap, r->ncpu)) {
        etl_switch_reader_free(r);
        etl_file_nomem(f);
        return NULL;
    }
    for (size_t i = 0; i < r->ncpu; i++)
        r->cpu[i].st = etl_streams_cpu(s, i);
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
    if (r->heap.n == 0 || etl_file_is_nomem(r->f))
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
