/*
 * fuzz_sched.c - the scheduling events after the reader: ReadyThread and
 * DPC/ISR payloads (etl_decode_ready, etl_decode_intr; doc/format.md §16,
 * §17) and a stream of scheduling items, as the switch reader hands them on
 * (swreader.h), through the per-thread state of sched.h (etl_sched_take)
 * and through the runs and the CPU usage of usage.h (etl_runs_*,
 * etl_usage_*).
 *
 * Input: 2 bytes of options, then items until the bytes run out.
 *   byte 0  bits 0-1: the clock frequency; bit 2: filters (--cpu, --tid,
 *           --pid, --range) for the runs; bit 3: etl_sched_take is given
 *           the threads' identities (else it looks them up);
 *           bits 4-7: the scale of the usage interval
 *   byte 1  the usage interval (0: about 100 intervals over the span)
 *   item    byte k: bits 0-1 the kind (0 switch, 1 ReadyThread, 2 DPC/ISR,
 *           3 ReadyThread of a one-byte TID), bit 2 the item's gap flag,
 *           bit 3 linked (switch) or on_known (others), bits 4-5 the CPU,
 *           bits 6-7 the time step (none, +u8, +u16*16, -u8 ticks), whose
 *           bytes follow; then
 *     switch:      old TID, new TID (a byte each), a byte of flags (bits 0-3
 *                  OldThreadState, 4 has a state, 5 has a wait reason,
 *                  6 has an old TID, 7 has a new TID), OldWaitReason;
 *     ReadyThread: the running thread's TID byte, a length (low 4 bits) and
 *                  that many payload bytes for etl_decode_ready;
 *     kind 3:      the running thread's TID byte, TThreadId byte, Flag byte
 *                  (an 8-byte payload is made of them);
 *     DPC/ISR:     the running thread's TID byte, a selector (bits 0-2 the
 *                  HookId among the five and three others, bit 3 version 2
 *                  else 1, bit 4 32-bit pointers, bit 5 InitialTime counted
 *                  back from the event's time by its low 16 bits), a length
 *                  (low 5 bits) and that many payload bytes.
 *
 * Checks: the decoders accept exactly the payloads long enough and give
 * back their bytes; etl_sched_take gives for each switch what sched.h says
 * (a model of its rules kept here, by TID, in a plain list, until the
 * bound on threads kept makes it forget some), with time
 * order kept no duration is negative; runs are ordered, never overlap on a
 * CPU and keep to the filters, and the DPC and ISR time taken out of a run
 * lies inside it, each part once; usage intervals follow each other from the
 * start to the end, no process's time in one is negative or more than all
 * CPUs', and with time order kept their total is the runs' total less the
 * DPC and ISR time taken out of them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "decode/sched.h"
#include "view/usage.h"

#define NCPU 4
/* Most intervals the usage accumulator is asked for (etldump allows a
 * million; fewer keep the fuzzer fast). */
#define MAX_INTERVALS 4096

/* ---- input ------------------------------------------------------------------- */

struct in {
    const uint8_t *p;
    size_t n, at;
};

static bool take_u8(struct in *in, uint8_t *v)
{
    if (in->at >= in->n)
        return false;
    *v = in->p[in->at++];
    return true;
}

/* ---- the items --------------------------------------------------------------- */

struct items {
    struct etl_sched_item *it;
    size_t n, cap;
    bool ordered;              /* times never go back */
};

static struct etl_sched_item *add_item(struct items *s)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        struct etl_sched_item *t = realloc(s->it, ncap * sizeof *t);
        if (!t)
            abort();
        s->it = t;
        s->cap = ncap;
    }
    struct etl_sched_item *it = &s->it[s->n++];
    memset(it, 0, sizeof *it);
    return it;
}

/* Decodes a ReadyThread payload of len bytes and checks the result. */
static bool ready_payload(const uint8_t *p, size_t len, struct etl_ready *r)
{
    struct etl_cursor c = etl_cur_make(p, len);
    bool ok = etl_decode_ready(&c, r);
    if (ok != (len >= 8))
        abort();
    if (ok && (r->tid != etl_le32(p) || (uint8_t)r->adjust_reason != p[4] ||
               (uint8_t)r->adjust_increment != p[5] || r->flag != p[6]))
        abort();
    return ok;
}

/* Decodes a DPC/ISR payload and checks the result against §17.2. */
static bool intr_payload(uint8_t sel, const uint8_t *p, size_t len, struct etl_intr *r)
{
    static const uint16_t hooks[8] = { ETL_HOOK_DPC, ETL_HOOK_THREADED_DPC, ETL_HOOK_TIMER_DPC,
                                       ETL_HOOK_ISR, ETL_HOOK_ISR_MSI, 0x0F46, 0x0524, 0x0F31 };
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = (sel & 0x10u) ? ETL_KIND_PERFINFO32 : ETL_KIND_PERFINFO64;
    ev.ptr_size = (sel & 0x10u) ? 4 : 8;
    ev.flags = ETL_EV_TS | ETL_EV_HOOK;
    ev.hook_id = hooks[sel & 7u];
    ev.version = (sel & 8u) ? 2 : 1;
    ev.data = p;
    ev.data_len = (uint32_t)len;
    struct etl_cursor c = etl_cur_make(p, len);
    bool ok = etl_decode_intr(&ev, &c, r);
    unsigned type = etl_intr_type_of(ev.hook_id);
    if ((type == ETL_INTR_TYPES) != ((sel & 7u) >= 5) ||
        (type < ETL_INTR_TYPES && (!etl_intr_type_name(type) || r->type != type)))
        abort();
    size_t need = 8u + ev.ptr_size;
    bool isr = type < ETL_INTR_TYPES && etl_intr_is_isr(type);
    if (isr)
        need += ev.version >= 2 && type == ETL_INTR_ISR_MSI ? 8 : 4;
    if (ok != (type < ETL_INTR_TYPES && len >= need))
        abort();
    if (ok && ((uint64_t)r->initial_time != etl_le64(p) ||
               r->has_vector != (isr && ev.version >= 2) ||
               r->has_message != (type == ETL_INTR_ISR_MSI && ev.version >= 2)))
        abort();
    return ok;
}

/* Reads the items of the input; false when none. */
static void read_items(struct in *in, struct items *s)
{
    int64_t ts = 1000000;
    uint8_t k;
    s->ordered = true;
    while (take_u8(in, &k)) {
        uint8_t a = 0, b = 0, step = (uint8_t)(k >> 6);
        if (step == 1 && take_u8(in, &a))
            ts += a;
        else if (step == 2 && take_u8(in, &a) && take_u8(in, &b))
            ts += (int64_t)(a | b << 8) * 16;
        else if (step == 3 && take_u8(in, &a)) {
            ts -= a;
            s->ordered = s->ordered && a == 0;
        }
        struct etl_sched_item it;
        memset(&it, 0, sizeof it);
        it.ts = ts;
        it.cpu = (uint16_t)((k >> 4) & 3u);
        it.gap = (k & 4u) != 0;
        uint8_t kind = k & 3u, on, c, d, e, len, sel;
        uint8_t pay[32];
        if (kind == 0) {
            if (!take_u8(in, &a) || !take_u8(in, &b) || !take_u8(in, &c) || !take_u8(in, &d))
                break;
            struct etl_switch *sw = &it.u.sw;
            it.kind = ETL_SCHED_SWITCH;
            it.linked = (k & 8u) != 0;
            sw->ts = ts;
            sw->cpu = it.cpu;
            sw->old_tid = a;
            sw->new_tid = b;
            sw->old_state = c & 15u;
            sw->old_wait_reason = d;
            sw->has = ((c & 0x10u) ? SW_OLD_STATE : 0u) | ((c & 0x20u) ? SW_OLD_WAIT_REASON : 0u) |
                      ((c & 0x40u) ? SW_OLD_TID : 0u) | ((c & 0x80u) ? SW_NEW_TID : 0u);
        } else if (kind == 1 || kind == 3) {
            if (!take_u8(in, &on))
                break;
            if (kind == 1) {
                if (!take_u8(in, &len))
                    break;
                len &= 15u;
                for (e = 0; e < len; e++)
                    if (!take_u8(in, &pay[e]))
                        break;
                if (e < len)
                    break;
            } else {
                if (!take_u8(in, &a) || !take_u8(in, &b))
                    break;
                len = 8;
                memset(pay, 0, 8);
                pay[0] = a;
                pay[6] = b;
            }
            it.kind = ETL_SCHED_READY;
            it.on_known = (k & 8u) != 0;
            it.on_tid = on;
            if (!ready_payload(pay, len, &it.u.ready))
                continue; /* the reader hands on no undecodable event */
        } else {
            if (!take_u8(in, &on) || !take_u8(in, &sel) || !take_u8(in, &len))
                break;
            len &= 31u;
            for (e = 0; e < len; e++)
                if (!take_u8(in, &pay[e]))
                    break;
            if (e < len)
                break;
            it.kind = ETL_SCHED_INTR;
            it.on_known = (k & 8u) != 0;
            it.on_tid = on;
            if (!intr_payload(sel, pay, len, &it.u.intr))
                continue;
            if (sel & 0x20u)
                it.u.intr.initial_time =
                    (int64_t)((uint64_t)ts - (uint64_t)(it.u.intr.initial_time & 0xFFFF));
            if (it.u.intr.initial_time > ts)
                continue; /* the reader reports it and hands it not on */
        }
        *add_item(s) = it;
    }
}

/* ---- sched.h, as a model ------------------------------------------------------ */

/* What the model knows of one thread (by TID: no process map here). */
struct mthread {
    uint32_t tid;
    bool has_out, out_has_state, out_has_wr;
    int64_t out_ts;
    uint32_t out_epoch;
    uint8_t out_state, out_wr;
    bool has_rt, rt_on_known;
    int64_t rt_ts;
    uint32_t rt_epoch, rt_on_tid;
    uint16_t rt_cpu;
    uint8_t rt_flag;
};

struct model {
    struct mthread *t;
    size_t n, cap;
    uint32_t epoch;
};

static struct mthread *model_find(struct model *m, uint32_t tid)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->t[i].tid == tid)
            return &m->t[i];
    return NULL;
}

static struct mthread *model_get(struct model *m, uint32_t tid)
{
    struct mthread *t = model_find(m, tid);
    if (t)
        return t;
    if (m->n == m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 64;
        struct mthread *nt = realloc(m->t, ncap * sizeof *nt);
        if (!nt)
            abort();
        m->t = nt;
        m->cap = ncap;
    }
    t = &m->t[m->n++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return t;
}

static void model_drop(struct model *m, struct mthread *t)
{
    *t = m->t[--m->n];
}

/* What sched.h says of the new thread of a switch at ts, from what the
 * model knows of it (its entry is used up). A past later than ts (a clock
 * that went back) says nothing, nor a readying before the switch-out. */
static void model_facts(const struct model *m, const struct mthread *t, int64_t ts,
                        struct etl_sched_facts *f)
{
    memset(f, 0, sizeof *f);
    if (!t)
        return;
    bool out = t->has_out && t->out_epoch == m->epoch && t->out_ts <= ts;
    bool rt = t->has_rt && t->rt_epoch == m->epoch && t->rt_ts <= ts &&
              (!out || t->rt_ts >= t->out_ts);
    if (out) {
        f->has |= ETL_SF_SINCE;
        f->since = t->out_ts;
        if (t->out_has_state && t->out_state == 5) { /* Waiting */
            f->has |= ETL_SF_WAIT;
            if (t->out_has_wr) {
                f->has |= ETL_SF_REASON;
                f->out_wait_reason = t->out_wr;
            }
            if (rt) { /* a ReadyThread ended the wait */
                f->has |= ETL_SF_READY | ETL_SF_WAITED;
                f->ready_from = f->wait_to = t->rt_ts;
                f->wait_from = t->out_ts;
            }
        } else if (t->out_has_state) { /* preempted: ready from the switch-out */
            uint8_t st = t->out_state;
            if (st == 1 || st == 2 || st == 3 || st == 7)
                f->has |= ETL_SF_RUNNABLE;
            f->has |= ETL_SF_READY | ETL_SF_WAITED;
            f->ready_from = f->wait_from = f->wait_to = t->out_ts;
        }
    } else if (rt) { /* its first switch-in seen */
        f->has |= ETL_SF_READY;
        f->ready_from = t->rt_ts;
    }
    if (rt) {
        f->has |= ETL_SF_READIED;
        f->readied_at = t->rt_ts;
        f->readying_cpu = t->rt_cpu;
        f->ready_flag = t->rt_flag;
        if (t->rt_on_known) {
            f->has |= ETL_SF_READIER;
            f->readying_tid = t->rt_on_tid;
        }
    }
}

/* Takes one item into the model; for a switch, *f is what it says. */
static void model_take(struct model *m, const struct etl_sched_item *it, struct etl_sched_facts *f)
{
    if (it->gap)
        m->epoch++;
    memset(f, 0, sizeof *f);
    if (it->kind == ETL_SCHED_READY) {
        if (it->u.ready.tid == 0)
            return;
        struct mthread *t = model_get(m, it->u.ready.tid);
        t->has_rt = true;
        t->rt_ts = it->ts;
        t->rt_epoch = m->epoch;
        t->rt_cpu = it->cpu;
        t->rt_flag = it->u.ready.flag;
        t->rt_on_known = it->on_known;
        t->rt_on_tid = it->on_tid;
        return;
    }
    if (it->kind != ETL_SCHED_SWITCH)
        return;
    const struct etl_switch *sw = &it->u.sw;
    if ((sw->has & SW_OLD_TID) && sw->old_tid != 0) {
        struct mthread *t = model_find(m, sw->old_tid);
        if ((sw->has & SW_OLD_STATE) && sw->old_state == 4) { /* Terminated */
            if (t)
                model_drop(m, t);
        } else {
            t = t ? t : model_get(m, sw->old_tid);
            t->has_out = true;
            t->out_ts = sw->ts;
            t->out_epoch = m->epoch;
            t->out_has_state = (sw->has & SW_OLD_STATE) != 0;
            t->out_state = sw->old_state;
            t->out_has_wr = (sw->has & SW_OLD_WAIT_REASON) != 0;
            t->out_wr = sw->old_wait_reason;
            t->has_rt = false;
        }
    }
    if ((sw->has & SW_NEW_TID) && sw->new_tid != 0) {
        struct mthread *t = model_find(m, sw->new_tid);
        model_facts(m, t, sw->ts, f);
        if (t)
            model_drop(m, t);
    }
}

/* Compares what etl_sched_take said with the model. */
static void same_facts(const struct etl_sched_facts *a, const struct etl_sched_facts *b)
{
    uint32_t h = a->has;
    if (h != b->has || ((h & ETL_SF_SINCE) && a->since != b->since) ||
        ((h & ETL_SF_READY) && a->ready_from != b->ready_from) ||
        ((h & ETL_SF_WAITED) && (a->wait_from != b->wait_from || a->wait_to != b->wait_to)) ||
        ((h & ETL_SF_READIED) && (a->readied_at != b->readied_at ||
                                  a->readying_cpu != b->readying_cpu ||
                                  a->ready_flag != b->ready_flag)) ||
        ((h & ETL_SF_READIER) && a->readying_tid != b->readying_tid) ||
        ((h & ETL_SF_REASON) && a->out_wait_reason != b->out_wait_reason))
        abort();
}

/* With time order kept, every span a switch's facts give ends by the
 * switch: no duration the views print is negative. */
static void no_negative(const struct etl_sched_facts *f, int64_t ts)
{
    uint32_t h = f->has;
    if (((h & ETL_SF_SINCE) && f->since > ts) || ((h & ETL_SF_READY) && f->ready_from > ts) ||
        ((h & ETL_SF_WAITED) && (f->wait_from > f->wait_to || f->wait_to > ts)) ||
        ((h & ETL_SF_READIED) && f->readied_at > ts))
        abort();
}

static void check_sched(const struct items *s, bool give_who)
{
    struct etl_sched *an = etl_sched_new(NULL);
    if (!an)
        abort();
    struct model m = { NULL, 0, 0, 0 };
    bool swept = false;
    for (size_t i = 0; i < s->n; i++) {
        const struct etl_sched_item *it = &s->it[i];
        struct etl_sched_facts got, want;
        struct etl_who wo, wn;
        const struct etl_who *pwo = NULL, *pwn = NULL;
        if (give_who && it->kind == ETL_SCHED_SWITCH) {
            etl_procmap_who(NULL, it->u.sw.old_tid, it->ts, &wo);
            etl_procmap_who(NULL, it->u.sw.new_tid, it->ts, &wn);
            pwo = &wo;
            pwn = &wn;
        }
        bool is_sw = it->kind == ETL_SCHED_SWITCH;
        if (!etl_sched_take(an, it, pwo, pwn, is_sw || (i & 1) ? &got : NULL))
            abort();
        model_take(&m, it, &want);
        /* Past the bound on threads kept (small in the fuzz builds), the
         * forgotten ones are told nothing: the model no longer applies. */
        swept = swept || etl_sched_forgotten(an) != 0;
        if (is_sw) {
            if (!swept)
                same_facts(&got, &want);
            if (s->ordered)
                no_negative(&got, it->ts);
        }
    }
    free(m.t);
    etl_sched_free(an);
}

/* ---- runs and usage ------------------------------------------------------------ */

struct usage_check {
    const struct etl_filter *flt;
    struct etl_runs *runs;
    struct etl_usage *u;
    int64_t start, end, interval;
    int64_t next;              /* where the next interval starts */
    int64_t last_end[NCPU];    /* per CPU: the end of its last run */
    bool ended[NCPU];
    unsigned ncpus;            /* CPUs seen */
    int64_t run_b, taken;      /* the last run's end; where what was taken out of it ends */
    uint16_t run_cpu;
    int64_t runs_ns, intr_ns, usage_ns; /* inside [start, end] */
    bool clipped;              /* a credit fell before an interval handed on */
};

/* The part of [a, b] inside [s, e], 0 when none. */
static int64_t inside(int64_t a, int64_t b, int64_t s, int64_t e)
{
    int64_t x = etl_overlap(a, b, s, e);
    return x > 0 ? x : 0;
}

static bool on_run(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid, int64_t a, int64_t b)
{
    struct usage_check *x = ctx;
    const struct etl_filter *f = x->flt;
    if (cpu >= NCPU || a > b || proc >= etl_runs_nprocs(x->runs) ||
        (x->ended[cpu] && a < x->last_end[cpu]))
        abort(); /* runs on one CPU never overlap */
    if (f && (!etl_id_list_has(&f->cpu, cpu) || !etl_id_list_has(&f->tid, tid) ||
              (f->has_start && a < f->start_ns) || (f->has_end && b > f->end_ns)))
        abort();
    x->ended[cpu] = true;
    x->last_end[cpu] = b;
    x->taken = a;
    x->run_b = b;
    x->run_cpu = cpu;
    x->runs_ns += inside(a, b, x->start, x->end);
    if (a < x->next)
        x->clipped = true;
    return etl_usage_add(x->u, proc, a, b);
}

static bool on_intr(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid, int64_t a, int64_t b,
                    int sign)
{
    struct usage_check *x = ctx;
    (void)tid;
    if (cpu != x->run_cpu || a >= b || sign != -1 || proc >= etl_runs_nprocs(x->runs) ||
        a < x->taken || b > x->run_b)
        abort(); /* parts of the run just counted, each taken out once */
    x->taken = b;
    x->intr_ns += inside(a, b, x->start, x->end);
    if (a < x->next)
        x->clipped = true;
    return etl_usage_credit(x->u, proc, a, b, sign);
}

static bool on_interval(void *ctx, int64_t start, int64_t end, struct etl_usage_ent *e, size_t n)
{
    struct usage_check *x = ctx;
    if (start != x->next || end < start || end - start > x->interval || end > x->end ||
        (end == start && end != x->end))
        abort(); /* intervals follow each other without gaps */
    x->next = end;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++)
            if (e[j].proc == e[i].proc)
                abort(); /* one entry per process */
        if (e[i].proc >= etl_runs_nprocs(x->runs) || e[i].ns < 0 ||
            e[i].ns > (end - start) * (int64_t)x->ncpus)
            abort();
        x->usage_ns += e[i].ns;
    }
    return true;
}

/* The filters of byte 0's bit 2. */
static struct etl_filter *make_filter(void)
{
    struct etl_filter *f = etl_filter_new();
    char err[128];
    if (!f || etl_filter_add(f, ETL_FILTER_CPU, "0,2-3", err, sizeof err) != 0 ||
        etl_filter_add(f, ETL_FILTER_TID, "1-100,200", err, sizeof err) != 0 ||
        etl_filter_add(f, ETL_FILTER_PID, "4", err, sizeof err) != 0 ||
        etl_filter_add(f, ETL_FILTER_RANGE, "0.0001:0.02", err, sizeof err) != 0)
        abort();
    return f;
}

static void check_usage(const struct items *s, const struct etl_clock *clk,
                        const struct etl_filter *flt, unsigned scale, unsigned want)
{
    struct usage_check x;
    memset(&x, 0, sizeof x);
    x.flt = flt;
    bool seen[NCPU] = { false };
    int64_t last = 0;
    for (size_t i = 0; i < s->n; i++) {
        int64_t ns = etl_clock_ns(clk, s->it[i].ts);
        last = i == 0 || ns > last ? ns : last;
        if (s->it[i].kind == ETL_SCHED_SWITCH && !seen[s->it[i].cpu]) {
            seen[s->it[i].cpu] = true;
            x.ncpus++;
        }
    }
    /* The bounds as etl_usage_bounds chooses them, with fewer intervals. */
    x.start = flt->has_start ? flt->start_ns : 0;
    x.end = flt->has_end && flt->end_ns < last ? flt->end_ns : last;
    if (x.end < x.start)
        x.end = x.start;
    int64_t span = x.end - x.start;
    x.interval = want ? (int64_t)want << scale : etl_usage_nice_interval(span, 100);
    if (span / x.interval >= MAX_INTERVALS)
        x.interval = span / MAX_INTERVALS + 1;
    x.next = x.start;
    x.runs = etl_runs_new(NULL, clk, flt, on_run, &x);
    x.u = etl_usage_new(x.start, x.end, x.interval, on_interval, &x);
    if (!x.runs || !x.u)
        abort();
    etl_runs_on_intr(x.runs, on_intr);
    for (size_t i = 0; i < s->n; i++) {
        const struct etl_sched_item *it = &s->it[i];
        if (it->kind == ETL_SCHED_INTR) {
            if (!etl_runs_intr(x.runs, it))
                abort();
        } else if (it->kind == ETL_SCHED_SWITCH) {
            if (!etl_runs_switch(x.runs, &it->u.sw, it->linked) ||
                !etl_usage_advance(x.u, x.runs, etl_clock_ns(clk, it->ts), it->cpu))
                abort();
        }
    }
    if (!etl_usage_finish(x.u) || x.next != x.end)
        abort();
    /* With time order kept, nothing is credited to an interval already
     * handed on, so the intervals hold every run's time less the DPCs'. */
    if (s->ordered && !x.clipped && x.usage_ns != x.runs_ns - x.intr_ns)
        abort();
    for (uint32_t i = 0; i < etl_runs_nprocs(x.runs); i++)
        if (etl_runs_proc(x.runs, i)->cpu_time < 0)
            abort();
    etl_usage_free(x.u);
    etl_runs_free(x.runs);
}

/* The filters every input is run with, kept for the process and freed at
 * exit so a leak checker sees nothing left. */
static struct etl_filter *kept_flt, *kept_none;

static void free_filters(void)
{
    etl_filter_free(kept_flt);
    etl_filter_free(kept_none);
    kept_flt = kept_none = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int64_t freqs[4] = { 10000000, 1000000000, 2992530000, 14318180 };
    if (size < 2)
        return 0;
    if (!kept_flt) {
        kept_flt = make_filter();
        kept_none = etl_filter_new();
        if (!kept_none)
            abort();
        atexit(free_filters);
    }
    struct in in = { data, size, 2 };
    struct items s = { NULL, 0, 0, true };
    read_items(&in, &s);
    struct etl_clock clk;
    etl_clock_init(&clk, 1000000, freqs[data[0] & 3u], 132000000000000000);
    check_sched(&s, (data[0] & 8u) != 0);
    check_usage(&s, &clk, (data[0] & 4u) ? kept_flt : kept_none, data[0] >> 4, data[1]);
    free(s.it);
    return 0;
}
