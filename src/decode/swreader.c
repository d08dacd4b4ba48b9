/*
 * swreader.c - the scheduling events of every CPU, in each CPU's time order,
 * merged by time (see swreader.h).
 */
#include "grow.h"
#include "decode/swreader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/dispatch.h"
#include "etl/heap.h"

#define NONE SIZE_MAX

/* One CPU: its events read but not handed out, in time order. */
struct sw_cpu {
    struct etl_stream *st;
    struct etl_sched_item *q;
    size_t head, n, cap;
    size_t final_end;      /* q[head, final_end) can be handed out */
    size_t last;           /* the latest switch in the queue (or NONE) */
    size_t pend;           /* the same while it waits for the next one (or NONE) */
    uint32_t stretch;      /* of the events being read */
    bool done;
    bool cswitches;        /* the last event read was a CSwitch */
    /* What was handed out. */
    uint32_t out_stretch;  /* the highest stretch */
    uint32_t sw_stretch;   /* of the latest switch */
    uint32_t cur_tid;      /* its new thread */
    bool have_sw, cur_known;
};

struct etl_switch_reader {
    struct etl_file *f;
    struct sw_cpu *cpu;
    size_t ncpu;
    struct etl_heap heap;
    bool started;
    bool all;                   /* ReadyThread, DPC and ISR events too */
    unsigned bias;
    bool chosen;                /* the bias was chosen from the switches
                                 * (choose_bias), the build unknown */
    struct etl_switch *batch;   /* scratch for one decoded batch */
    size_t batch_cap;
    size_t *before;             /* scratch of place_switches */
    size_t before_cap;
    int64_t *sufmin;
    size_t sufmin_cap;
    uint8_t cs_version[256];    /* cswitch_version's answers: 0 not asked, 1 yes, 2 no */
    struct etl_switch_stats stats;
};

/* Reports a problem inside an event for the reader's file. */
static void reader_diag(void *ctx, const struct etl_event *ev, size_t at,
                        const char *msg)
{
    struct etl_switch_reader *r = ctx;
    etl_report_event(r->f, ev, at, msg);
}

/* Makes room for k more events in c's queue; false when out of memory. */
static bool queue_room(struct sw_cpu *c, size_t k)
{
    if (c->n + k > c->cap && c->head > 0) {
        /* Move what is left to the front. */
        memmove(c->q, c->q + c->head, (c->n - c->head) * sizeof *c->q);
        c->n -= c->head;
        c->final_end -= c->head;
        if (c->pend != NONE)
            c->pend -= c->head;
        c->last = c->last != NONE && c->last >= c->head ? c->last - c->head : NONE;
        c->head = 0;
    }
    return etl_grow(&c->q, &c->cap, c->n + k, sizeof *c->q, 64);
}

/* Ends the wait of c's latest switch: what follows is not linked to it.
 * With all, everything queued may leave. Otherwise (a gap) the events of
 * the CPU's next batch may still go before the other events queued: a batch
 * open when events were lost is logged after them, yet holds earlier
 * switches. */
static void cut(struct sw_cpu *c, bool all)
{
    c->pend = NONE;
    if (all)
        c->final_end = c->n;
}

/* Gives switch item p its next switch on the CPU, sw: its run ends there,
 * unless the clock went back (a run does not end before it begins; the
 * switches stay in the CPU's order), and a compact switch learns its new
 * thread (§8.3 step 4). */
static void link_next(struct etl_sched_item *p, const struct etl_switch *sw)
{
    p->has_next = sw->ts >= p->ts;
    p->next_ts = sw->ts;
    if (!(p->u.sw.has & SW_NEW_TID) && (sw->has & SW_OLD_TID)) {
        p->u.sw.new_tid = sw->old_tid;
        p->u.sw.has |= SW_NEW_TID;
    }
}

/* Fills queue item it with switch sw of CPU c (every member: what the
 * union holds past the switch is never read). */
static inline void put_switch(const struct sw_cpu *c, struct etl_sched_item *it,
                              const struct etl_switch *sw)
{
    it->ts = sw->ts;
    it->next_ts = 0;
    it->stretch = c->stretch;
    it->on_tid = 0;
    it->cpu = sw->cpu;
    it->kind = ETL_SCHED_SWITCH;
    it->gap = it->linked = it->has_next = it->on_known = false;
    it->u.sw = *sw;
}

/* Where the tail of c's queue starts: the events after its latest switch
 * that may still be passed over (place_switches). */
static inline size_t queue_tail(const struct sw_cpu *c)
{
    return c->last != NONE && c->last + 1 > c->final_end ? c->last + 1 : c->final_end;
}

/* place_switches for one switch (a CSwitch), c's queue having room for it:
 * after the last tail event not later than it, as ever. Inline in
 * fill_cswitches, which makes room for a run at once. */
static inline void place_cswitch(struct sw_cpu *c, const struct etl_switch *sw)
{
    size_t lo = queue_tail(c), pos = c->n;
    if (c->pend != NONE)
        link_next(&c->q[c->pend], sw);
    while (pos > lo && c->q[pos - 1].ts > sw->ts)
        pos--;
    if (pos < c->n)
        memmove(c->q + pos + 1, c->q + pos, (c->n - pos) * sizeof *c->q);
    put_switch(c, &c->q[pos], sw);
    c->n++;
    c->last = c->pend = c->final_end = pos;
}

/* Queues the k switches sw (in the CPU's order): each gives the switch
 * before it its next switch (link_next), goes after the events of its CPU
 * that are not later and after the switch before it, and the last waits
 * for the next switch. The events queued after the latest switch (the
 * tail) are passed over once: a switch goes after the last tail event
 * (the one nearest the end) not later than it, found by the suffix minima
 * of the tail's times, and the tail moves back once for the whole batch.
 * False when out of memory. */
static bool place_switches(struct etl_switch_reader *r, struct sw_cpu *c,
                           const struct etl_switch *sw, size_t k)
{
    if (k == 0)
        return true;
    if (!queue_room(c, k))
        return false;
    if (k == 1) {
        place_cswitch(c, &sw[0]);
        return true;
    }
    size_t lo = queue_tail(c);
    size_t m = c->n - lo;
    struct etl_sched_item *tail = c->q + lo;
    if (c->pend != NONE)
        link_next(&c->q[c->pend], &sw[0]);
    if (m == 0) { /* nothing after the latest switch: the batch goes at the end */
        struct etl_sched_item *it = c->q + c->n;
        for (size_t i = 0; i + 1 < k; i++) {
            put_switch(c, &it[i], &sw[i]);
            link_next(&it[i], &sw[i + 1]);
        }
        put_switch(c, &it[k - 1], &sw[k - 1]);
        c->n += k;
        c->last = c->pend = c->final_end = c->n - 1;
        return true;
    }
    if (!etl_grow(&r->before, &r->before_cap, k, sizeof *r->before, 64) ||
        !etl_grow(&r->sufmin, &r->sufmin_cap, m, sizeof *r->sufmin, 64))
        return false;
    r->sufmin[m - 1] = tail[m - 1].ts;
    for (size_t j = m - 1; j-- > 0;)
        r->sufmin[j] = tail[j].ts < r->sufmin[j + 1] ? tail[j].ts : r->sufmin[j + 1];
    /* How many tail events go before each switch: every one up to the last
     * that is not later, which is past the last whose suffix holds one. */
    size_t cur = 0;
    for (size_t i = 0; i < k; i++) {
        while (cur < m && r->sufmin[cur] <= sw[i].ts)
            cur++;
        r->before[i] = cur;
    }
    /* From the end: the tail events after each switch move back past the
     * switches before them, then the switch goes in. */
    size_t w = c->n + k, t = m;
    for (size_t i = k; i-- > 0;) {
        size_t cnt = t - r->before[i];
        if (cnt) {
            w -= cnt;
            memmove(c->q + w, tail + r->before[i], cnt * sizeof *c->q);
            t = r->before[i];
        }
        struct etl_sched_item *it = &c->q[--w];
        put_switch(c, it, &sw[i]);
        if (i + 1 < k)
            link_next(it, &sw[i + 1]);
    }
    c->n += k;
    c->last = c->pend = c->final_end = lo + r->before[k - 1] + k - 1;
    return true;
}

/* Queues a ReadyThread, DPC or ISR at the end of c's queue. */
static bool place_other(struct sw_cpu *c, const struct etl_event *ev, uint8_t kind,
                        const struct etl_record *rec)
{
    if (!queue_room(c, 1))
        return false;
    struct etl_sched_item *it = &c->q[c->n++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    it->ts = ev->ts;
    it->cpu = ev->cpu;
    it->stretch = c->stretch;
    if (kind == ETL_SCHED_READY)
        it->u.ready = rec->u.ready;
    else
        it->u.intr = rec->u.intr;
    return true;
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
                            &r->stats.implausible_states, r->stats.state_wr);
}

/* Takes one decoded event into c's queue; false when memory ran out. */
static bool take(struct etl_switch_reader *r, struct sw_cpu *c, const struct etl_event *ev,
                 const struct etl_decoder *d, struct etl_record *rec)
{
    switch (d->kind) {
    case ETL_REC_CSWITCH:
        r->stats.cswitch++;
        return place_switches(r, c, &rec->u.sw, 1);
    case ETL_REC_CSWITCH_BATCH: {
        size_t k = expand_batch(r, ev, &rec->u.batch);
        if (k == SIZE_MAX)
            return false;
        r->stats.compact += k;
        return place_switches(r, c, r->batch, k);
    }
    case ETL_REC_READY:
        return place_other(c, ev, ETL_SCHED_READY, rec);
    default: /* ETL_REC_INTR */
        if (rec->u.intr.initial_time > ev->ts) {
            etl_report_event(r->f, ev, 0, "DPC/ISR event: entry time after its exit");
            return true;
        }
        return place_other(c, ev, ETL_SCHED_INTR, rec);
    }
}

/* Heads fill's fast way looks at, at most, at a time. */
#define RUN_MAX 32

/* Returns true if a CSwitch event (PERFINFO64, HookId 0x0524) of version v
 * goes to the CSwitch decoder (etl_dispatch's answer, kept per version). */
static bool cswitch_version(struct etl_switch_reader *r, unsigned v)
{
    if (!r->cs_version[v])
        r->cs_version[v] = etl_dispatch_kernel(ETL_HOOK_CSWITCH, v, ETL_KIND_PERFINFO64)->kind ==
                                   ETL_REC_CSWITCH
                               ? 1
                               : 2;
    return r->cs_version[v] == 1;
}

/* fill's fast way: the run of CSwitch events at c's place in its stream,
 * PERFINFO64 records whole and sound (etl_stream_heads) that the CSwitch
 * decoder takes whole, decoded from their bytes and queued one after
 * another as the general way would have queued them; it stops before
 * anything else (read the general way: another event, a CSwitch too short
 * to decode, a buffer to load) and when the queue is full. Nothing it takes
 * could have been a problem to report. Returns how many it took, or -1
 * when memory ran out (f is marked). */
static int fill_cswitches(struct etl_switch_reader *r, struct sw_cpu *c)
{
    struct etl_head h[RUN_MAX];
    const uint8_t *base;
    uint16_t cpu;
    /* The first head alone, so that a run of other events costs one. */
    if (etl_stream_heads(c->st, h, 1, &base, &cpu) == 0 || h[0].hook_id != ETL_HOOK_CSWITCH)
        return 0;
    size_t n = etl_stream_heads(c->st, h, RUN_MAX, &base, &cpu), k = 0;
    if (!queue_room(c, n)) { /* for the whole run at once */
        etl_file_nomem(r->f);
        return -1;
    }
    for (; k < n && h[k].hook_id == ETL_HOOK_CSWITCH && c->n - c->head < ETL_SCHED_QUEUE_MAX;
         k++) {
        const uint8_t *rec = base + h[k].offset;
        unsigned v;
        size_t at = etl_head_data(rec, &v);
        if (h[k].size < at + ETL_CSWITCH_MIN || !cswitch_version(r, v))
            break;
        struct etl_switch sw;
        etl_decode_cswitch_bytes(rec + at, h[k].size - at, v, h[k].ts, cpu, &sw);
        r->stats.cswitch++;
        place_cswitch(c, &sw);
    }
    if (k)
        etl_stream_skip(c->st, h, k);
    return (int)k;
}

/* Reads c's events until one can be handed out or the stream ends (its
 * callers check first that none can). */
static void fill(struct etl_switch_reader *r, struct sw_cpu *c)
{
    struct etl_event ev;
    struct etl_record rec;
    while (!c->done && c->final_end == c->head) {
        if (c->n - c->head >= ETL_SCHED_QUEUE_MAX) {
            cut(c, true); /* the oldest leave without their next switch */
            break;
        }
        /* The fast way is tried after a CSwitch event, until it finds
         * something else: a stream of other events costs nothing more. */
        if (c->cswitches) {
            int k = fill_cswitches(r, c);
            if (k < 0) {
                c->done = true;
                cut(c, true);
                break;
            }
            c->cswitches = k > 0;
            if (k > 0)
                continue;
        }
        if (!etl_stream_next(c->st, &ev)) {
            c->done = true;
            cut(c, true);
            break;
        }
        if (etl_stream_gap(c->st)) {
            c->stretch++;
            cut(c, false);
        }
        const struct etl_decoder *d = etl_dispatch(&ev);
        c->cswitches = d->kind == ETL_REC_CSWITCH;
        bool wanted = d->kind == ETL_REC_CSWITCH || d->kind == ETL_REC_CSWITCH_BATCH ||
                      (r->all && (d->kind == ETL_REC_READY || d->kind == ETL_REC_INTR));
        if (!wanted)
            continue;
        if (!etl_decode(&ev, d, &rec)) {
            etl_report_event(r->f, &ev, rec.at, rec.problem);
            if (d->kind == ETL_REC_CSWITCH) { /* a damaged switch is a gap */
                c->stretch++;
                cut(c, false);
            }
            continue;
        }
        if (!take(r, c, &ev, d, &rec)) {
            etl_file_nomem(r->f);
            c->done = true;
            cut(c, true);
            break;
        }
    }
}

/* What the first buffers tell of the OldThreadStateWr values of compact
 * switches (choose_bias). */
struct bias_seen {
    unsigned bias;
    uint64_t state_wr[64];
    uint64_t implausible;
    struct etl_switch *batch;
    size_t cap;
    bool nomem;
};

/* A batch's problems are said when the view reads it. */
static void unsaid(void *ctx, const struct etl_event *ev, size_t at, const char *msg)
{
    (void)ctx;
    (void)ev;
    (void)at;
    (void)msg;
}

static bool bias_event(void *ctx, const struct etl_event *ev)
{
    struct bias_seen *b = ctx;
    struct etl_record rec;
    if (etl_decode_event(ev, &rec) != ETL_REC_CSWITCH_BATCH)
        return true;
    size_t cap = etl_cur_left(&rec.u.batch) / 2 + 1;
    if (!etl_grow(&b->batch, &b->cap, cap, sizeof *b->batch, 64)) {
        b->nomem = true;
        return false;
    }
    etl_decode_batch(ev, &rec.u.batch, b->bias, b->batch, cap, unsaid, NULL, &b->implausible,
                     b->state_wr);
    return true;
}

/* The bias for a file whose Windows build is unknown (0: its logfile
 * header lost or damaged), for which the build gives none: from the
 * compact switches of each processor's first buffer, the documented
 * MaximumWaitReason under which all their states are possible when build
 * 0's gives impossible ones, or one they fit much better
 * (etl_max_wait_reason_fit); else build 0's. A trace with its logfile
 * header lost decoded its compact switches with 0x1b, their states and
 * wait reasons wrong, until --max-wait-reason was given as the note after
 * the output said. *chosen: another was. */
static unsigned choose_bias(struct etl_file *f, bool *chosen)
{
    struct bias_seen b;
    memset(&b, 0, sizeof b);
    b.bias = etl_max_wait_reason_for_build(0);
    struct etl_scope scope;
    etl_scope_begin(f, &scope, false);
    etl_walk_first_buffers(f, bias_event, &b);
    etl_scope_end(f, &scope);
    free(b.batch);
    if (b.nomem)
        etl_file_nomem(f);
    uint64_t ready;
    unsigned other = b.implausible ? etl_max_wait_reason_possible(b.state_wr, b.bias)
                                   : etl_max_wait_reason_fit(b.state_wr, b.bias, &ready);
    *chosen = other != 0;
    if (other)
        etl_warn(f, "the Windows build is unknown: compact switches are decoded with "
                 "MaximumWaitReason 0x%x, which the first buffers' switches fit, not 0x%x "
                 "(build 0's); --max-wait-reason gives another", other, b.bias);
    return other ? other : b.bias;
}

static struct etl_switch_reader *reader_new(struct etl_file *f, struct etl_streams *s,
                                            unsigned max_wait_reason, bool all)
{
    struct etl_switch_reader *r = calloc(1, sizeof *r);
    if (!r) {
        etl_file_nomem(f);
        return NULL;
    }
    r->f = f;
    r->all = all;
    uint32_t build = etl_file_header(f)->build;
    r->bias = max_wait_reason ? max_wait_reason
              : build         ? etl_max_wait_reason_for_build(build)
                              : choose_bias(f, &r->chosen);
    r->ncpu = etl_streams_count(s);
    r->cpu = calloc(r->ncpu ? r->ncpu : 1, sizeof *r->cpu);
    if (!r->cpu || !etl_heap_init(&r->heap, r->ncpu)) {
        etl_switch_reader_free(r);
        etl_file_nomem(f);
        return NULL;
    }
    for (size_t i = 0; i < r->ncpu; i++) {
        r->cpu[i].st = etl_streams_cpu(s, i);
        r->cpu[i].pend = r->cpu[i].last = NONE;
    }
    return r;
}

struct etl_switch_reader *etl_switch_reader_new(struct etl_file *f,
                                                struct etl_streams *s,
                                                unsigned max_wait_reason)
{
    return reader_new(f, s, max_wait_reason, false);
}

struct etl_switch_reader *etl_sched_reader_new(struct etl_file *f, struct etl_streams *s,
                                               unsigned max_wait_reason)
{
    return reader_new(f, s, max_wait_reason, true);
}

/* Fills in what the CPU's order says about an event leaving its queue. */
static void annotate(struct etl_switch_reader *r, struct sw_cpu *c, struct etl_sched_item *it)
{
    it->gap = it->stretch > c->out_stretch;
    if (it->gap)
        c->out_stretch = it->stretch;
    if (it->kind == ETL_SCHED_SWITCH) {
        it->linked = c->have_sw && c->sw_stretch == it->stretch;
        c->have_sw = true;
        c->sw_stretch = it->stretch;
        c->cur_known = (it->u.sw.has & SW_NEW_TID) != 0;
        c->cur_tid = it->u.sw.new_tid;
        return;
    }
    if (it->kind == ETL_SCHED_READY)
        r->stats.ready++;
    else if (etl_intr_is_isr(it->u.intr.type))
        r->stats.isr++;
    else
        r->stats.dpc++;
    if (c->have_sw) {
        it->on_known = c->cur_known && c->sw_stretch == it->stretch;
        it->on_tid = c->cur_tid;
        return;
    }
    /* Before the CPU's first switch: that switch's old thread. */
    for (size_t i = c->head; i < c->n; i++) {
        const struct etl_sched_item *s = &c->q[i];
        if (s->kind != ETL_SCHED_SWITCH)
            continue;
        it->on_known = s->stretch == it->stretch && (s->u.sw.has & SW_OLD_TID);
        it->on_tid = s->u.sw.old_tid;
        break;
    }
}

bool etl_sched_next(struct etl_switch_reader *r, struct etl_sched_item *out)
{
    if (!r->started) {
        r->started = true;
        for (size_t i = 0; i < r->ncpu; i++) {
            struct sw_cpu *c = &r->cpu[i];
            fill(r, c);
            if (c->final_end > c->head)
                etl_heap_push(&r->heap, c->q[c->head].ts, (uint32_t)i);
        }
    }
    if (r->heap.n == 0 || etl_file_is_nomem(r->f))
        return false;
    uint32_t i = r->heap.item[0].id;
    struct sw_cpu *c = &r->cpu[i];
    *out = c->q[c->head++];
    annotate(r, c, out);
    if (c->final_end == c->head && !c->done)
        fill(r, c);
    if (c->final_end > c->head)
        etl_heap_replace_top(&r->heap, c->q[c->head].ts, i);
    else
        etl_heap_pop(&r->heap);
    return true;
}

bool etl_switch_next(struct etl_switch_reader *r, struct etl_switch *out)
{
    struct etl_sched_item it;
    while (etl_sched_next(r, &it))
        if (it.kind == ETL_SCHED_SWITCH) {
            *out = it.u.sw;
            return true;
        }
    return false;
}

const struct etl_switch_stats *etl_switch_reader_stats(const struct etl_switch_reader *r)
{
    return &r->stats;
}

unsigned etl_switch_reader_bias(const struct etl_switch_reader *r)
{
    return r->bias;
}

void etl_switch_reader_check_bias(const struct etl_switch_reader *r, bool given)
{
    const struct etl_switch_stats *st = &r->stats;
    char whence[64];
    if (given)
        snprintf(whence, sizeof whence, "given by --max-wait-reason");
    else if (r->chosen)
        snprintf(whence, sizeof whence, "chosen from the first buffers' switches");
    else
        snprintf(whence, sizeof whence, "the default for build %u",
                 (unsigned)etl_file_header(r->f)->build);
    uint64_t fit_ready = 0;
    unsigned fit = etl_max_wait_reason_fit(st->state_wr, r->bias, &fit_ready);
    if (st->implausible_states) {
        /* A documented value under which every state is possible. */
        unsigned good = etl_max_wait_reason_possible(st->state_wr, r->bias);
        char hint[64] = "try --max-wait-reason";
        if (good)
            snprintf(hint, sizeof hint, "0x%x gives none: try --max-wait-reason=0x%x", good,
                     good);
        etl_report(r->f, 0,
                   "%llu compact switches decode to impossible thread states with "
                   "MaximumWaitReason 0x%x (%s); %s",
                   (unsigned long long)st->implausible_states, r->bias, whence, hint);
        return;
    }
    if (fit)
        etl_warn(r->f,
                 "compact switch states fit MaximumWaitReason 0x%x better than 0x%x (%s): "
                 "%llu switch-outs decode as Ready with 0x%x, %llu with 0x%x; "
                 "try --max-wait-reason=0x%x",
                 fit, r->bias, whence, (unsigned long long)fit_ready, fit,
                 (unsigned long long)(r->bias + 1 < 64 ? st->state_wr[r->bias + 1] : 0),
                 r->bias, fit);
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
    free(r->before);
    free(r->sufmin);
    free(r);
}
