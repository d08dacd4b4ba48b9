/*
 * stream.c - per-CPU event streams and their merge into one time order.
 * Each CPU's buffers are read in SequenceNumber order, which also undoes the
 * wrap-around of circular files; the header buffers come first (spec 11, 12).
 */
#include "etl/etl.h"

#include <stdlib.h>
#include <string.h>

#include "etl/heap.h"

/* A buffer's sort key: CPU, then SequenceNumber, then file position. */
struct sort_key {
    uint64_t seq;
    uint32_t index;
    uint16_t cpu;
};

/* Orders sort keys by CPU, SequenceNumber and file position. */
static int cmp_key(const void *a, const void *b)
{
    const struct sort_key *x = a, *y = b;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Returns true for buffers read before all others (the header buffers). */
static bool is_header_buffer(const struct etl_buffer *b, size_t index)
{
    return b->type == ETL_BUF_TYPE_HEADER || index == 0;
}

bool etl_streams_init(struct etl_streams *s, struct etl_file *f)
{
    memset(s, 0, sizeof *s);
    size_t n = f->nbufs;
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return false;
    /* Header buffers first (file order), then the rest sorted by CPU, seq. */
    size_t nh = 0;
    for (size_t i = 0; i < n; i++)
        if (is_header_buffer(&f->bufs[i], i))
            order[nh++] = (uint32_t)i;
    struct sort_key *keys = malloc((n - nh ? n - nh : 1) * sizeof *keys);
    if (!keys) {
        free(order);
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!is_header_buffer(&f->bufs[i], i)) {
            keys[k].seq = f->bufs[i].seq;
            keys[k].cpu = f->bufs[i].cpu;
            keys[k].index = (uint32_t)i;
            k++;
        }
    qsort(keys, k, sizeof *keys, cmp_key);
    for (size_t i = 0; i < k; i++)
        order[nh + i] = keys[i].index;
    free(keys);

    size_t ncpu = 0;
    for (size_t i = nh; i < n; i++)
        if (i == nh || f->bufs[order[i]].cpu != f->bufs[order[i - 1]].cpu)
            ncpu++;
    s->cpu = calloc(ncpu ? ncpu : 1, sizeof *s->cpu);
    if (!s->cpu) {
        free(order);
        return false;
    }
    s->header.f = f;
    s->header.order = order;
    s->header.norder = nh;
    s->ncpu = ncpu;
    size_t c = 0;
    for (size_t i = nh; i < n;) {
        size_t j = i;
        while (j < n && f->bufs[order[j]].cpu == f->bufs[order[i]].cpu)
            j++;
        struct etl_stream *st = &s->cpu[c++];
        st->f = f;
        st->order = order + i;
        st->norder = j - i;
        st->cpu = f->bufs[order[i]].cpu;
        i = j;
    }
    return true;
}

void etl_streams_free(struct etl_streams *s)
{
    free(s->header.order); /* the CPU streams point into the same array */
    etl_loaded_free(&s->header.mem);
    for (size_t i = 0; i < s->ncpu; i++)
        etl_loaded_free(&s->cpu[i].mem);
    free(s->cpu);
    memset(s, 0, sizeof *s);
}

bool etl_stream_next(struct etl_stream *s, struct etl_event *ev)
{
    bool gap = false;
    for (;;) {
        if (s->cur) {
            size_t next;
            const char *why = NULL;
            enum etl_parse_status st =
                etl_parse_event(s->mem.mem, s->mem.end, s->pos, ev, &next, &why);
            if (st == ETL_PARSE_OK) {
                ev->cpu = s->cur->cpu;
                ev->buffer_offset = s->cur->offset;
                ev->compressed = (s->cur->flags & ETL_BUF_FLAG_COMPRESSED) != 0;
                s->pos = next;
                if (!(ev->flags & ETL_EV_TS))
                    ev->ts = s->last_ts; /* ordered with its predecessor */
                s->last_ts = ev->ts;
                s->gap = gap;
                return true;
            }
            if (st == ETL_PARSE_BAD) {
                etl_report_bad_record(s->f, s->cur, s->pos, why);
                gap = true;
            }
            s->cur = NULL;
        }
        if (s->next_buf >= s->norder)
            return false;
        const struct etl_buffer *b = &s->f->bufs[s->order[s->next_buf++]];
        if (b->flags & (ETL_BUF_FLAG_EVENTS_LOST | ETL_BUF_FLAG_BUFFER_LOST))
            gap = true;
        if (!etl_load_buffer(s->f, b, &s->mem)) {
            gap = true;
            continue;
        }
        if (b->truncated)
            gap = true;
        s->cur = b;
        s->pos = ETL_BUF_HEADER_SIZE;
    }
}

void etl_merge_events(struct etl_streams *s, etl_event_fn fn, void *ctx)
{
    struct etl_event ev;
    while (etl_stream_next(&s->header, &ev))
        if (!fn(ctx, &ev))
            return;
    if (s->ncpu == 0)
        return;
    struct etl_event *cur = malloc(s->ncpu * sizeof *cur);
    struct etl_heap h;
    if (!cur || !etl_heap_init(&h, s->ncpu)) {
        free(cur);
        etl_report(s->header.f, 0, "out of memory merging CPU streams");
        return;
    }
    for (size_t i = 0; i < s->ncpu; i++)
        if (etl_stream_next(&s->cpu[i], &cur[i]))
            etl_heap_push(&h, cur[i].ts, (uint32_t)i);
    while (h.n > 0) {
        uint32_t i = h.item[0].id;
        if (!fn(ctx, &cur[i]))
            break;
        if (etl_stream_next(&s->cpu[i], &cur[i]))
            etl_heap_replace_top(&h, cur[i].ts, i);
        else
            etl_heap_pop(&h);
    }
    etl_heap_free(&h);
    free(cur);
}
