/*
 * stream.c - per-CPU event streams and their merge into one time order.
 * Each CPU's buffers are read in SequenceNumber order, which also undoes the
 * wrap-around of circular files; the header buffers come first (§11, §12).
 */
#include "etl/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/heap.h"
#include "fmt.h"

struct etl_stream {
    struct etl_file *f;
    size_t span_max;           /* the most bytes read at once (see stream_span) */
    size_t span_next;          /* next index into order whose span is found */
    const uint32_t *order;     /* indexes into the file's buffer index */
    size_t norder;
    size_t next_buf;           /* next index into order */
    bool loaded;               /* mem holds the current buffer */
    struct etl_loaded mem;
    size_t pos;                /* next record in mem */
    bool gap;                  /* a lost or unreadable buffer precedes the last event */
    bool any;                  /* an event was read: last_ts is its time */
    int64_t last_ts;
    bool timed;                /* a CPU's: its time should never go back */
    size_t lane;               /* a CPU's: its place among them (ahead.c) */
    struct back {              /* where it went back, the most */
        uint64_t times;        /* how many times */
        uint64_t by;           /* ticks, the most */
        int64_t from, to;
        uint64_t buffer;       /* the offset of the buffer of the event... */
        size_t at;             /* ...and its offset in the buffer */
        bool compressed;
        uint16_t cpu;
    } back;
};

struct etl_streams {
    struct etl_file *f;
    uint32_t *order;           /* header buffers, then each CPU's in order */
    struct etl_stream header;  /* header buffers */
    struct etl_stream *cpu;    /* one per CPU that has buffers, ascending CPU */
    size_t ncpu;
    bool ahead;                /* f->ahead decompresses ahead of this merge */
};

/* Returns true if buffer i comes before buffer j in a CPU's order: by CPU,
 * SequenceNumber and file position. */
static bool ent_before(const struct etl_bufent *ents, uint32_t i, uint32_t j)
{
    const struct etl_bufent *x = &ents[i], *y = &ents[j];
    uint16_t cx = ETL_ENT_CPU(x), cy = ETL_ENT_CPU(y);
    if (cx != cy)
        return cx < cy;
    if (x->seq != y->seq)
        return x->seq < y->seq;
    return i < j;
}

/* Moves a[k] down the max-heap a[0..n). */
static void sift_down(const struct etl_bufent *ents, uint32_t *a, size_t k, size_t n)
{
    uint32_t x = a[k];
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= n)
            break;
        if (c + 1 < n && ent_before(ents, a[c], a[c + 1]))
            c++;
        if (!ent_before(ents, x, a[c]))
            break;
        a[k] = a[c];
        k = c;
    }
    a[k] = x;
}

/* Sorts buffer indexes into CPU order in place (heapsort: no recursion, no
 * extra memory; the order is total, so stability does not matter). */
static void sort_order(const struct etl_bufent *ents, uint32_t *a, size_t n)
{
    for (size_t k = n / 2; k-- > 0;)
        sift_down(ents, a, k, n);
    for (size_t m = n; m > 1; m--) {
        uint32_t t = a[0];
        a[0] = a[m - 1];
        a[m - 1] = t;
        sift_down(ents, a, 0, m - 1);
    }
}

/* A CPU's buffers lie apart in the file, those of the other CPUs between
 * them. Read by copying, each costs a system call, which for small buffers
 * costs more than the bytes: 1 M buffers of 72 bytes on 4 CPUs took 2.4 s
 * to read, 1 M calls. So where a stream's next buffers lie close together
 * (SPAN_PER_BUFFER bytes of the file or fewer each, at least SPAN_MIN of
 * them in span_max bytes), one read takes them all, the bytes between
 * included, into the stream's window, and its buffers are read from there
 * (reader.c, read_raw). Larger buffers, or buffers on many CPUs, are read
 * one by one: the bytes between would cost more to copy than the calls
 * they spare. Each stream's window is SPAN_MAX bytes at most, and all of
 * them SPAN_ALL. */
#define SPAN_MAX (64u * 1024u)
#define SPAN_ALL (4u * 1024u * 1024u)
#define SPAN_MIN 4u
#define SPAN_PER_BUFFER (16u * 1024u)

/* Sets st->mem.span for loading the buffer at order index i, and where the
 * next span is to be found: the bytes from it to the end of the first read
 * of the last of its next buffers within span_max bytes, or 0 (each buffer
 * read alone). */
static void stream_span(struct etl_stream *st, size_t i)
{
    const struct etl_file *f = st->f;
    st->mem.span = 0;
    st->span_next = i + 1;
    if (f->mem || st->span_max == 0)
        return;
    uint64_t off = ETL_ENT_OFFSET(&f->ents[st->order[i]]), span = 0;
    size_t k = 0;
    for (size_t j = i; j < st->norder; j++) {
        uint64_t o = ETL_ENT_OFFSET(&f->ents[st->order[j]]);
        if (o < off || o - off >= st->span_max) /* behind (a circular file's wrap), or far */
            break;
        uint64_t end = o - off + etl_first_read(f, o);
        if (end > st->span_max)
            break;
        span = end;
        k++;
    }
    if (k >= SPAN_MIN && span <= (uint64_t)k * SPAN_PER_BUFFER) {
        st->mem.span = (size_t)span;
        st->span_next = i + k;
    }
}

static void post_next(struct etl_stream *st);

struct etl_streams *etl_streams_new(struct etl_file *f)
{
    if (!etl_file_index(f))
        return NULL;
    struct etl_streams *s = calloc(1, sizeof *s);
    size_t n = f->nents;
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!s || !order) {
        free(s);
        free(order);
        f->nomem = true;
        return NULL;
    }
    /* Header buffers first (file order), then the rest sorted by CPU, seq. */
    size_t nh = 0;
    for (size_t i = 0; i < n; i++)
        if (ETL_ENT_HEADER(&f->ents[i]))
            order[nh++] = (uint32_t)i;
    size_t k = nh;
    for (size_t i = 0; i < n; i++)
        if (!ETL_ENT_HEADER(&f->ents[i]))
            order[k++] = (uint32_t)i;
    sort_order(f->ents, order + nh, n - nh);

    size_t ncpu = 0;
    for (size_t i = nh; i < n; i++)
        if (i == nh || ETL_ENT_CPU(&f->ents[order[i]]) != ETL_ENT_CPU(&f->ents[order[i - 1]]))
            ncpu++;
    s->cpu = calloc(ncpu ? ncpu : 1, sizeof *s->cpu);
    if (!s->cpu) {
        free(order);
        free(s);
        f->nomem = true;
        return NULL;
    }
    s->f = f;
    s->order = order;
    s->header.f = f;
    s->header.order = order;
    s->header.norder = nh;
    s->ncpu = ncpu;
    size_t c = 0;
    for (size_t i = nh; i < n;) {
        size_t j = i;
        uint16_t cpu = ETL_ENT_CPU(&f->ents[order[i]]);
        while (j < n && ETL_ENT_CPU(&f->ents[order[j]]) == cpu)
            j++;
        struct etl_stream *st = &s->cpu[c++];
        st->f = f;
        st->order = order + i;
        st->norder = j - i;
        st->span_max = SPAN_ALL / ncpu < SPAN_MAX ? SPAN_ALL / ncpu : SPAN_MAX;
        st->timed = true;
        st->lane = c - 1;
        i = j;
    }
    /* Other threads decompress each stream's next buffer ahead of it (not
     * inside a walk that does so in file order). */
    if (!f->ahead && ncpu > 0) {
        if (!etl_ahead_start_merge(f, f->threads, ncpu, &f->ahead)) {
            etl_streams_free(s);
            f->nomem = true;
            return NULL;
        }
        s->ahead = f->ahead != NULL;
        for (size_t i = 0; s->ahead && i < ncpu; i++)
            post_next(&s->cpu[i]); /* each stream's first */
    }
    return s;
}

/* Asks the helpers, if any, to decompress the buffer stream st loads after
 * the one it has just loaded (or its first). */
static void post_next(struct etl_stream *st)
{
    const struct etl_file *f = st->f;
    size_t j = st->next_buf;
    while (j < st->norder && ETL_ENT_UNREAD(&f->ents[st->order[j]]))
        j++;
    if (j < st->norder)
        etl_ahead_post(f->ahead, st->lane, st->order[j]);
}

/* Counts that the time of stream s goes back from last_ts to ts at the
 * event at byte `at` of the buffer loaded. */
static void went_back(struct etl_stream *s, int64_t ts, size_t at)
{
    struct back *b = &s->back;
    uint64_t by = (uint64_t)s->last_ts - (uint64_t)ts;
    if (b->times++ == 0 || by > b->by) {
        b->by = by;
        b->from = s->last_ts;
        b->to = ts;
        b->buffer = s->mem.b.offset;
        b->at = at;
        b->compressed = (s->mem.b.flags & ETL_BUF_FLAG_COMPRESSED) != 0;
        b->cpu = s->mem.b.cpu;
    }
}

/* Warns when the time of a processor's events went back: they come out of
 * the merge out of time order (no real trace has such; a damaged time
 * does). Said once for all streams: how many times, and the most. */
static void warn_back(const struct etl_streams *s)
{
    const struct back *most = NULL;
    uint64_t times = 0;
    for (size_t i = 0; i < s->ncpu; i++) {
        const struct back *b = &s->cpu[i].back;
        times += b->times;
        if (b->times && (!most || b->by > most->by))
            most = b;
    }
    if (!most)
        return;
    const struct etl_clock *clk = &s->f->clock;
    char from[32], to[32], where[80];
    from[etl_fmt_seconds(etl_clock_ns(clk, most->from), 6, from)] = '\0';
    to[etl_fmt_seconds(etl_clock_ns(clk, most->to), 6, to)] = '\0';
    if (most->compressed)
        snprintf(where, sizeof where, "at byte 0x%zx of the decompressed buffer at offset 0x%llx",
                 most->at, (unsigned long long)most->buffer);
    else
        snprintf(where, sizeof where, "at offset 0x%llx",
                 (unsigned long long)(most->buffer + most->at));
    if (times == 1)
        etl_warn(s->f, "the time of processor %u's events goes back %s, from %s s to %s s: "
                 "the merge puts the events around it out of time order", (unsigned)most->cpu,
                 where, from, to);
    else
        etl_warn(s->f, "the time of a processor's events goes back %llu times, the most %s "
                 "(processor %u, from %s s to %s s): the merge puts the events around them out "
                 "of time order", (unsigned long long)times, where, (unsigned)most->cpu, from, to);
}

void etl_streams_free(struct etl_streams *s)
{
    if (!s)
        return;
    if (s->ahead) {
        if (!etl_ahead_stop(s->f->ahead))
            s->f->nomem = true;
        s->f->ahead = NULL;
    }
    warn_back(s);
    free(s->order);
    etl_loaded_free(&s->header.mem);
    for (size_t i = 0; i < s->ncpu; i++)
        etl_loaded_free(&s->cpu[i].mem);
    free(s->cpu);
    free(s);
}

size_t etl_streams_count(const struct etl_streams *s)
{
    return s->ncpu;
}

struct etl_stream *etl_streams_cpu(struct etl_streams *s, size_t i)
{
    return &s->cpu[i];
}

bool etl_streams_last_ts(const struct etl_streams *s, int64_t *ts)
{
    bool any = s->header.any;
    *ts = s->header.last_ts;
    for (size_t i = 0; i < s->ncpu; i++)
        if (s->cpu[i].any && (!any || s->cpu[i].last_ts > *ts)) {
            *ts = s->cpu[i].last_ts;
            any = true;
        }
    return any;
}

bool etl_stream_gap(const struct etl_stream *s)
{
    return s->gap;
}

size_t etl_stream_heads(struct etl_stream *s, struct etl_head *h, size_t max,
                        const uint8_t **base, uint16_t *cpu)
{
    if (!s->loaded)
        return 0;
    size_t next;
    *base = s->mem.bytes;
    *cpu = s->mem.b.cpu;
    return etl_parse_heads(s->mem.bytes, s->mem.end, s->pos, h, max, &next);
}

void etl_stream_skip(struct etl_stream *s, const struct etl_head *h, size_t n)
{
    const struct etl_head *last = &h[n - 1];
    if (s->timed)
        for (size_t k = 0; k < n; k++) {
            if (h[k].ts < s->last_ts && s->any)
                went_back(s, h[k].ts, h[k].offset);
            s->last_ts = h[k].ts;
            s->any = true;
        }
    s->pos = last->offset + (((size_t)last->size + 7u) & ~(size_t)7u);
    s->last_ts = last->ts;
    s->any = true;
    s->gap = false;
}

bool etl_stream_next(struct etl_stream *s, struct etl_event *ev)
{
    bool gap = false;
    struct etl_file *f = s->f;
    for (;;) {
        if (s->loaded) {
            size_t next;
            const char *why = NULL;
            enum etl_parse_status st =
                etl_parse_event(s->mem.bytes, s->mem.end, s->pos, ev, &next, &why);
            if (st == ETL_PARSE_OK) {
                etl_event_in_buffer(ev, &s->mem.b);
                s->pos = next;
                if (!(ev->flags & ETL_EV_TS))
                    ev->ts = s->last_ts; /* ordered with its predecessor */
                else if (ev->ts < s->last_ts && s->any && s->timed)
                    went_back(s, ev->ts, (size_t)ev->event_offset);
                s->last_ts = ev->ts;
                s->any = true;
                s->gap = gap;
                return true;
            }
            /* First whether the zeros of a file that shrank ended it. */
            etl_check_shrunk(f);
            if (st == ETL_PARSE_BAD) {
                size_t resume = etl_bad_record(f, &s->mem.b, s->mem.bytes, s->mem.end, s->pos,
                                               why);
                gap = true;
                if (resume) {
                    s->pos = resume;
                    continue;
                }
            }
            s->loaded = false;
        }
        if (s->next_buf >= s->norder || f->nomem)
            return false;
        if (s->next_buf >= s->span_next)
            stream_span(s, s->next_buf);
        const struct etl_bufent *e = &f->ents[s->order[s->next_buf++]];
        if (ETL_ENT_UNREAD(e)) /* a repeat, whose events were read from the buffer it
                                 * repeats, or a fragment of a buffer header */
            continue;
        bool loaded = etl_load_buffer(f, e, &s->mem);
        if (f->ahead && s->timed) /* after: the lane's slot may hold this one */
            post_next(s);
        if (!loaded) {
            gap = true;
            continue;
        }
        if (s->mem.b.flags & (ETL_BUF_FLAG_EVENTS_LOST | ETL_BUF_FLAG_BUFFER_LOST))
            gap = true;
        if (s->mem.b.truncated)
            gap = true;
        s->loaded = true;
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
        etl_file_nomem(s->f);
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
