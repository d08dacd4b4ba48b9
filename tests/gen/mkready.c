/*
 * mkready: ReadyThread, DPC and ISR events and the truth of the analysis
 * columns (see mkready.h). Independent of etldump: it knows the schedule.
 */
#define _POSIX_C_SOURCE 200809L

#include "mkready.h"
#include "mkrng.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HOOK_READY_THREAD 0x0532u
#define HOOK_THREADED_DPC 0x0F42u
#define HOOK_ISR 0x0F43u
#define HOOK_DPC 0x0F44u
#define HOOK_TIMER_DPC 0x0F45u
#define HOOK_ISR_MSI 0x0F32u

/* uniform in [0, n), n > 0 */
static int64_t below64(struct rng *r, int64_t n) { return (int64_t)(rnd(r) % (uint64_t)n); }

/* A ReadyThread as its target will see it. */
struct rti {
    int64_t ts;
    int64_t ridx;     /* the readying CPU's latest switch (-1: before its first) */
    uint32_t tid, user; /* the readying thread */
    uint32_t seq;     /* ReadyThread number (its buffer segment: rtseg) */
    uint16_t cpu;
    uint8_t flag;
};

/* A ReadyThread waiting to be written on its CPU. */
struct pend {
    int64_t ts;
    uint32_t tid, seq;
    uint8_t flag;
};

struct mcpu {
    bool any_sw, has_floor, has_ent;
    int64_t last_sw, next_ts, floor;
    uint64_t last_idx, ent, first_idx;
    uint32_t cur_tid, cur_user;
    struct pend *p;
    size_t np, pcap;
    struct mkproc_piece *tail; /* DPC/ISR time after the last switch */
    uint32_t ntail;
};

struct mslot {
    bool has_out, out_wait, has_rt;
    int64_t out_ts;
    uint16_t out_cpu;
    struct rti rt;
};

/* One switch, until its row is written: what the schedule says of its new
 * thread (its last switch-out, the last ReadyThread since), worked into the
 * columns when the row is written (known gaps decide what a reader sees). */
struct ent {
    struct etlw_expect row;
    bool have_row, nt, has_out, out_wait, has_rt;
    uint8_t run_state; /* 0 unknown yet, 1 known, 2 none */
    uint16_t cpu, out_cpu;
    int64_t ts, run, out_ts;
    uint64_t next_idx; /* with run_state 1: the CPU's next switch */
    struct rti rt;
    struct mkproc_piece *pc;
    uint32_t npc;
};

/* An event of an interval, in write order. */
struct ev {
    int64_t ts;
    uint32_t seq;
    uint8_t kind; /* 0 ReadyThread, 1 DPC, 2 ISR */
    uint16_t hook;
    int64_t from;
    uint32_t tid;
    uint8_t flag;
    uint32_t rtseq; /* ReadyThread number */
};

struct mkr {
    struct etlw *w;
    struct mkproc *pm;
    FILE *csv;
    struct mkr_opts o;
    bool rows;
    struct rng r;
    unsigned ncpus, nslots;
    int64_t freq;
    bool p8;
    struct mcpu *cpu;
    struct mslot *slot;
    struct ent *q;
    uint64_t qcap, qhead, qtail, nrows;
    uint8_t *known; /* bit per switch: a reader knows its new thread */
    uint64_t kcap;
    uint8_t *segs;  /* per switch: its buffer segment */
    uint8_t *rtseg; /* per ReadyThread: 1 + its buffer segment, 0 before written */
    size_t rtcap;
    uint32_t nrt;   /* ReadyThreads made */
    bool has_gap;   /* the first event (time, then CPU) in a later buffer segment */
    int64_t gap_ts;
    uint16_t gap_cpu;
    bool finished;  /* every event is written */
    struct ev *ev;
    size_t evcap;
    struct mkproc_piece *pc;
    size_t pccap, nev, npc;
    uint64_t n_ready, n_dpc, n_isr;
    bool failed;
    char err[200];
};

#if defined(__GNUC__)
#define MKR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MKR_PRINTF(a, b)
#endif

static void fail(struct mkr *m, const char *fmt, ...) MKR_PRINTF(2, 3);
static void fail(struct mkr *m, const char *fmt, ...)
{
    if (m->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err, sizeof m->err, fmt, ap);
    va_end(ap);
    m->failed = true;
}

const char *mkr_error(const struct mkr *m) { return m->err; }

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *np = realloc(*p, n * elem);
    if (!np)
        return false;
    *p = np;
    *cap = n;
    return true;
}

struct mkr *mkr_new(struct etlw *w, struct mkproc *pm, bool rows, FILE *csv, const struct mkr_opts *o,
                    uint64_t seed, unsigned ncpus, unsigned nslots)
{
    struct mkr *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->rows = rows;
    m->w = w;
    m->pm = pm;
    m->csv = csv;
    m->o = *o;
    m->r.s = seed * 0x9FB21C651E98DF25ull + 0x5EEDu;
    m->ncpus = ncpus;
    m->nslots = nslots;
    m->freq = etlw_get_config(w)->perf_freq;
    m->p8 = etlw_get_config(w)->ptr_size == 8;
    m->cpu = calloc(ncpus, sizeof *m->cpu);
    m->slot = calloc(nslots ? nslots : 1, sizeof *m->slot);
    if (!m->cpu || !m->slot) {
        mkr_free(m);
        return NULL;
    }
    return m;
}

void mkr_free(struct mkr *m)
{
    if (!m)
        return;
    for (uint64_t i = m->qhead; m->q && i < m->qtail; i++)
        free(m->q[i & (m->qcap - 1)].pc);
    for (unsigned c = 0; m->cpu && c < m->ncpus; c++) {
        free(m->cpu[c].p);
        free(m->cpu[c].tail);
    }
    free(m->cpu);
    free(m->slot);
    free(m->q);
    free(m->known);
    free(m->segs);
    free(m->rtseg);
    free(m->ev);
    free(m->pc);
    free(m);
}

void mkr_counts(const struct mkr *m, uint64_t *ready, uint64_t *dpc, uint64_t *isr)
{
    *ready = m->n_ready;
    *dpc = m->n_dpc;
    *isr = m->n_isr;
}

void mkr_floor(struct mkr *m, unsigned cpu, int64_t ts)
{
    struct mcpu *c = &m->cpu[cpu];
    if (!c->has_floor || ts > c->floor)
        c->floor = ts;
    c->has_floor = true;
}

void mkr_start_cpu(struct mkr *m, unsigned cpu, int slot, uint32_t tid, uint32_t user, int64_t first_ts)
{
    (void)slot;
    m->cpu[cpu].cur_tid = tid;
    m->cpu[cpu].cur_user = user;
    m->cpu[cpu].next_ts = first_ts;
}

void mkr_next(struct mkr *m, unsigned cpu, int64_t next_ts) { m->cpu[cpu].next_ts = next_ts; }

void mkr_new_thread(struct mkr *m, int slot) { memset(&m->slot[slot], 0, sizeof m->slot[slot]); }

/* ---- ReadyThread ---------------------------------------------------------------- */

bool mkr_can_ready(const struct mkr *m, unsigned cpu, int64_t ts, bool dpc)
{
    const struct mcpu *c = &m->cpu[cpu];
    if (c->has_floor && ts <= c->floor)
        return false;
    if (c->any_sw && ts <= c->last_sw)
        return false;
    if (ts >= c->next_ts)
        return false;
    if (!m->o.dpc)
        return !(dpc && !c->any_sw);
    if (dpc && !c->any_sw)
        return false;
    /* The previous point of the interval: a ReadyThread or the switch. */
    bool prev_dpc = c->np && (c->p[c->np - 1].flag & MKR_FLAG_DPC);
    int64_t prev = c->np ? c->p[c->np - 1].ts : c->last_sw;
    if (dpc)
        return c->next_ts - ts >= 2 && (prev_dpc || !c->any_sw || ts - prev >= 2);
    return !prev_dpc || ts - prev >= 2;
}

int mkr_ready(struct mkr *m, unsigned cpu, int64_t ts, int slot, uint32_t tid, uint8_t flag)
{
    struct mcpu *c = &m->cpu[cpu];
    if (!grow((void **)&c->p, &c->pcap, c->np + 1, sizeof *c->p)) {
        fail(m, "out of memory");
        return -1;
    }
    if (!grow((void **)&m->rtseg, &m->rtcap, (size_t)m->nrt + 1, 1)) {
        fail(m, "out of memory");
        return -1;
    }
    m->rtseg[m->nrt] = 0;
    c->p[c->np++] = (struct pend){ts, tid, m->nrt, flag};
    struct mslot *s = &m->slot[slot];
    s->has_rt = true;
    s->rt.seq = m->nrt++;
    s->rt.ts = ts;
    s->rt.ridx = c->any_sw ? (int64_t)c->last_idx : -1;
    s->rt.tid = c->cur_tid;
    s->rt.user = c->cur_user;
    s->rt.cpu = (uint16_t)cpu;
    s->rt.flag = flag;
    return 0;
}

/* ---- the events of one interval ---------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* An event lands on cpu at ts in buffer segment seg: the first in a later
 * segment is where a reader sees the gap. */
static void note_seg(struct mkr *m, unsigned cpu, int64_t ts, uint32_t seg)
{
    if (seg == 0)
        return;
    if (!m->has_gap || ts < m->gap_ts || (ts == m->gap_ts && cpu < m->gap_cpu)) {
        m->has_gap = true;
        m->gap_ts = ts;
        m->gap_cpu = (uint16_t)cpu;
    }
}

static int write_ev(struct mkr *m, unsigned cpu, const struct ev *e)
{
    uint8_t d[32];
    uint32_t seg = etlw_cpu_seg(m->w, cpu);
    note_seg(m, cpu, e->ts, seg);
    if (e->kind == 0)
        m->rtseg[e->rtseq] = (uint8_t)(1 + (seg < 254 ? seg : 254));
    memset(d, 0, sizeof d);
    uint32_t len;
    if (e->kind == 0) {
        put32(d, e->tid);
        uint8_t reason = (uint8_t)below(&m->r, 3);
        d[4] = reason;
        d[5] = reason ? (uint8_t)(1u + below(&m->r, 6)) : 0;
        d[6] = e->flag;
        d[7] = 0;
        len = 8;
        m->n_ready++;
    } else {
        uint32_t ps = m->p8 ? 8u : 4u;
        put64(d, (uint64_t)e->from);
        uint64_t routine = 0x4000u + 0x10u * below(&m->r, 4096);
        if (m->p8)
            put64(d + 8, 0xFFFFF80600000000ull + routine);
        else
            put32(d + 8, 0x8A000000u + (uint32_t)routine);
        len = 8 + ps;
        if (e->kind == 2) {
            d[len] = below(&m->r, 8) ? 1 : 0;              /* ReturnValue: claimed */
            d[len + 1] = (uint8_t)(0x30u + below(&m->r, 0xC0)); /* Vector */
            len += 4;                                      /* Reserved u16 = 0 */
            if (e->hook == HOOK_ISR_MSI) {
                put32(d + len, below(&m->r, 16));
                len += 4;
            }
            m->n_isr++;
        } else {
            m->n_dpc++;
        }
    }
    if (etlw_add_raw(m->w, cpu, e->ts, ETLW_HDR_PERFINFO, e->hook, 2, 0, 0, d, len) != 0) {
        fail(m, "%s", etlw_error(m->w));
        return -1;
    }
    return 0;
}

static int cmp_ev(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct span {
    int64_t a, b; /* occupied [a, b] */
};

static bool add_ev(struct mkr *m, struct ev e)
{
    if (!grow((void **)&m->ev, &m->evcap, m->nev + 1, sizeof *m->ev))
        return false;
    e.seq = (uint32_t)m->nev;
    m->ev[m->nev++] = e;
    return true;
}

static bool add_piece(struct mkr *m, int64_t s, int64_t e, bool isr)
{
    if (!grow((void **)&m->pc, &m->pccap, m->npc + 1, sizeof *m->pc))
        return false;
    m->pc[m->npc++] = (struct mkproc_piece){s, e, isr, 0};
    return true;
}

static uint16_t dpc_hook(struct mkr *m)
{
    static const uint16_t h[] = {HOOK_DPC, HOOK_DPC, HOOK_TIMER_DPC, HOOK_THREADED_DPC};
    return h[below(&m->r, 4)];
}

/* A DPC [s, e], perhaps with an ISR nested in (ia, ib) (ib - ia >= 3 to allow one). */
static bool add_dpc(struct mkr *m, int64_t s, int64_t e, int64_t ia, int64_t ib)
{
    int64_t s2 = 0, e2 = 0;
    bool nested = ib - ia >= 3 && below(&m->r, 10) < 3;
    if (nested) {
        s2 = ia + 1 + below64(&m->r, ib - ia - 2);
        e2 = s2 + 1 + below64(&m->r, ib - s2 - 1);
        if (!add_ev(m, (struct ev){e2, 0, 2, below(&m->r, 4) ? HOOK_ISR : HOOK_ISR_MSI, s2, 0, 0, 0}))
            return false;
        if (!add_piece(m, s, s2, false) || !add_piece(m, s2, e2, true) || !add_piece(m, e2, e, false))
            return false;
    } else if (!add_piece(m, s, e, false)) {
        return false;
    }
    return add_ev(m, (struct ev){e, 0, 1, dpc_hook(m), s, 0, 0, 0});
}

static int cmp_span(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return x->a < y->a ? -1 : x->a > y->a;
}

/* Writes cpu's pending events up to `end` (the next switch), with DPCs around
 * the ReadyThreads from DPCs, and (extra) random DPCs and ISRs in the gaps.
 * The pieces of DPC/ISR time are left in m->pc[0..m->npc). */
static int flush_cpu(struct mkr *m, unsigned cpu, int64_t end, bool extra)
{
    struct mcpu *c = &m->cpu[cpu];
    m->nev = 0;
    m->npc = 0;
    struct span *sp = NULL;
    size_t nsp = 0, spcap = 0;
    bool ok = true;
    int64_t start = c->last_sw;
    for (size_t i = 0; i < c->np && ok; i++)
        ok = add_ev(m, (struct ev){c->p[i].ts, 0, 0, HOOK_READY_THREAD, 0, c->p[i].tid, c->p[i].flag,
                                   c->p[i].seq});
    if (m->o.dpc && c->any_sw) {
        /* DPCs around each run of ReadyThreads from a DPC */
        for (size_t i = 0; i < c->np && ok;) {
            if (!(c->p[i].flag & MKR_FLAG_DPC)) {
                if (grow((void **)&sp, &spcap, nsp + 1, sizeof *sp))
                    sp[nsp++] = (struct span){c->p[i].ts, c->p[i].ts};
                else
                    ok = false;
                i++;
                continue;
            }
            size_t j = i;
            while (j + 1 < c->np && (c->p[j + 1].flag & MKR_FLAG_DPC))
                j++;
            int64_t lo = i ? c->p[i - 1].ts : start, hi = j + 1 < c->np ? c->p[j + 1].ts : end;
            int64_t a = c->p[i].ts, b = c->p[j].ts;
            if (a - lo < 2 || hi - b < 2) {
                fail(m, "cpu %u: no room for a DPC around a ReadyThread at %lld", cpu, (long long)a);
                free(sp);
                return -1;
            }
            int64_t s = lo + 1 + below64(&m->r, a - lo - 1), e = b + 1 + below64(&m->r, hi - b - 1);
            ok = add_dpc(m, s, e, s, a) && grow((void **)&sp, &spcap, nsp + 1, sizeof *sp);
            if (ok)
                sp[nsp++] = (struct span){s, e};
            i = j + 1;
        }
    }
    if (ok && m->o.dpc && extra && c->any_sw && below(&m->r, 100) < 40) {
        unsigned n = 1 + below(&m->r, 3);
        for (unsigned k = 0; k < n && ok; k++) {
            if (nsp > 1)
                qsort(sp, nsp, sizeof *sp, cmp_span);
            /* gaps (prev_b, next_a) with room for s < e strictly inside */
            uint32_t ngap = 0;
            int64_t pb = start;
            for (size_t i = 0; i <= nsp; i++) {
                int64_t na = i < nsp ? sp[i].a : end;
                ngap += na - pb >= 3;
                if (i < nsp)
                    pb = sp[i].b;
            }
            if (ngap == 0)
                break;
            uint32_t pick = below(&m->r, ngap);
            pb = start;
            int64_t ga = 0, gb = 0;
            for (size_t i = 0; i <= nsp; i++) {
                int64_t na = i < nsp ? sp[i].a : end;
                if (na - pb >= 3 && pick-- == 0) {
                    ga = pb;
                    gb = na;
                    break;
                }
                if (i < nsp)
                    pb = sp[i].b;
            }
            int64_t avail = gb - ga - 2; /* the longest e - s */
            int64_t want = below(&m->r, 10) < 8 ? 5 + below64(&m->r, 400) : 400 + below64(&m->r, 20000);
            int64_t dur = 1 + below64(&m->r, avail < want ? avail : want);
            int64_t s = ga + 1 + below64(&m->r, avail - dur + 1), e = s + dur;
            uint32_t kind = below(&m->r, 100);
            if (kind < 55) {
                ok = add_dpc(m, s, e, s, e);
            } else {
                ok = add_ev(m, (struct ev){e, 0, 2, kind < 85 ? HOOK_ISR : HOOK_ISR_MSI, s, 0, 0, 0}) &&
                     add_piece(m, s, e, true);
            }
            if (ok && grow((void **)&sp, &spcap, nsp + 1, sizeof *sp))
                sp[nsp++] = (struct span){s, e};
            else
                ok = false;
        }
    }
    free(sp);
    if (!ok) {
        fail(m, "out of memory");
        return -1;
    }
    if (m->nev > 1)
        qsort(m->ev, m->nev, sizeof *m->ev, cmp_ev);
    for (size_t i = 0; i < m->npc; i++)
        m->pc[i].seg = etlw_cpu_seg(m->w, cpu);
    for (size_t i = 0; i < m->nev; i++)
        if (write_ev(m, cpu, &m->ev[i]) != 0)
            return -1;
    c->np = 0;
    return 0;
}

/* ---- switches and rows --------------------------------------------------------------- */

static struct ent *q_at(const struct mkr *m, uint64_t i) { return &m->q[i & (m->qcap - 1)]; }

static struct ent *q_push(struct mkr *m)
{
    if (m->qtail - m->qhead == m->qcap) {
        uint64_t ncap = m->qcap ? m->qcap * 2 : 1024;
        struct ent *nq = malloc((size_t)ncap * sizeof *nq);
        if (!nq)
            return NULL;
        for (uint64_t i = m->qhead; i < m->qtail; i++)
            nq[i & (ncap - 1)] = m->q[i & (m->qcap - 1)];
        free(m->q);
        m->q = nq;
        m->qcap = ncap;
    }
    struct ent *e = q_at(m, m->qtail++);
    memset(e, 0, sizeof *e);
    return e;
}

/* A copy of the pieces flush_cpu left (none: NULL). 0, or -1. */
static int take_pieces(struct mkr *m, struct mkproc_piece **pc, uint32_t *n)
{
    *pc = NULL;
    *n = 0;
    if (!m->npc)
        return 0;
    *pc = malloc(m->npc * sizeof **pc);
    if (!*pc) {
        fail(m, "out of memory");
        return -1;
    }
    memcpy(*pc, m->pc, m->npc * sizeof **pc);
    *n = (uint32_t)m->npc;
    return 0;
}

int mkr_switch(struct mkr *m, const struct etlw_switch *sw, int old_slot, int new_slot)
{
    if (m->failed)
        return -1;
    struct mcpu *c = &m->cpu[sw->cpu];
    if (flush_cpu(m, sw->cpu, sw->ts, true) != 0)
        return -1;
    if (!m->rows) { /* no rows to write: only the running thread matters */
        c->any_sw = true;
        c->last_sw = sw->ts;
        c->cur_tid = sw->new_tid;
        c->cur_user = sw->new_user;
        return 0;
    }
    uint64_t idx = m->qtail;
    if (c->has_ent) { /* the previous switch's new thread ran until now */
        struct ent *prev = q_at(m, c->ent);
        prev->run = sw->ts - prev->ts;
        prev->run_state = 1;
        prev->next_idx = idx;
    }
    struct ent *e = q_push(m);
    if (!e) {
        fail(m, "out of memory");
        return -1;
    }
    e->cpu = sw->cpu;
    e->ts = sw->ts;
    if (take_pieces(m, &e->pc, &e->npc) != 0)
        return -1;
    if (old_slot >= 0) {
        struct mslot *s = &m->slot[old_slot];
        s->has_out = true;
        s->out_ts = sw->ts;
        s->out_cpu = sw->cpu;
        s->out_wait = sw->old_state == ETLW_STATE_WAITING;
        s->has_rt = false;
    }
    if (new_slot >= 0) {
        struct mslot *s = &m->slot[new_slot];
        e->nt = true;
        e->has_rt = s->has_rt;
        e->rt = s->rt;
        e->has_out = s->has_out;
        e->out_ts = s->out_ts;
        e->out_cpu = s->out_cpu;
        e->out_wait = s->out_wait;
        s->has_rt = false;
    }
    if (!c->any_sw)
        c->first_idx = idx;
    c->any_sw = true;
    c->last_sw = sw->ts;
    c->last_idx = idx;
    c->has_ent = true;
    c->ent = idx;
    c->cur_tid = sw->new_tid;
    c->cur_user = sw->new_user;
    return 0;
}

static bool known_bit(const struct mkr *m, uint64_t i) { return (m->known[i >> 3] >> (i & 7)) & 1u; }

static void put_dur(char *buf, size_t cap, size_t *n, int64_t ticks, int64_t freq)
{
    int64_t ns = (ticks / freq) * 1000000000 + ((ticks % freq) * 1000000000) / freq;
    int k = snprintf(buf + *n, cap - *n, ",%lld.%09lld", (long long)(ns / 1000000000), (long long)(ns % 1000000000));
    if (k > 0)
        *n = *n + (size_t)k < cap ? *n + (size_t)k : cap - 1;
}

static void put_str(char *buf, size_t cap, size_t *n, const char *fmt, ...) MKR_PRINTF(4, 5);
static void put_str(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n = *n + (size_t)k < cap ? *n + (size_t)k : cap - 1;
}

/* Whether an event on cpu at ts comes before the gap (in time, then CPU). */
static bool before_gap(const struct mkr *m, int64_t ts, unsigned cpu)
{
    return m->has_gap && (ts < m->gap_ts || (ts == m->gap_ts && cpu < m->gap_cpu));
}

static void emit(struct mkr *m, struct ent *e, uint64_t idx)
{
    const struct etlw_expect *r = &e->row;
    char line[1024];
    size_t n = etlw_format_expect(r, line, sizeof line);
    if (n >= sizeof line)
        n = sizeof line - 1;
    bool nt = e->nt && (r->has & ETLW_HAS_NEW_TID) && r->new_tid != 0;
    /* A known gap before this switch hides what came before it (lost events
     * may hold any thread's switches and ReadyThreads). */
    bool after = m->has_gap && !before_gap(m, e->ts, e->cpu);
    bool has_out = e->has_out && !(after && before_gap(m, e->out_ts, e->out_cpu));
    bool has_rt = e->has_rt && !(after && before_gap(m, e->rt.ts, e->rt.cpu));
    bool has_since = has_out, has_ready = false, has_waited = false, wait_rt = false;
    int64_t ready_from = 0, wait_from = 0, wait_to = 0;
    if (has_out && !e->out_wait) { /* preempted */
        has_ready = has_waited = true;
        ready_from = wait_from = wait_to = e->out_ts;
    } else if (has_out && has_rt) {
        has_ready = has_waited = wait_rt = true;
        ready_from = wait_to = e->rt.ts;
        wait_from = e->out_ts;
    } else if (!has_out && has_rt) {
        has_ready = true;
        ready_from = e->rt.ts;
    }
    /* A reader knows the readying thread: the new thread of the readying
     * CPU's latest switch (before its first: that switch's old thread), in
     * the ReadyThread's own buffer segment. */
    bool rk = false;
    if (nt && has_rt) {
        uint8_t seg = m->rtseg[e->rt.seq];
        if (e->rt.ridx >= 0)
            rk = known_bit(m, (uint64_t)e->rt.ridx) && 1 + m->segs[e->rt.ridx] == seg;
        else
            rk = m->cpu[e->rt.cpu].any_sw && 1 + m->segs[m->cpu[e->rt.cpu].first_idx] == seg;
    }
    /* new_run: to the CPU's next switch, when no gap lies between. */
    bool run = e->run_state == 1 && m->segs[e->next_idx] == m->segs[idx];
    if (m->pm) {
        struct mkproc_ext x;
        memset(&x, 0, sizeof x);
        x.has_ready = nt && has_ready;
        x.ready_from = ready_from;
        x.has_waited = nt && wait_rt;
        x.wait_from = wait_from;
        x.wait_to = wait_to;
        x.readier = rk;
        x.readier_user = e->rt.user;
        x.out_lost = e->has_out && !has_out;
        x.pc = e->pc;
        x.npc = e->npc;
        n += mkproc_row_ext(m->pm, r, &x, line + n, sizeof line - n);
    }
    if (nt && has_since)
        put_dur(line, sizeof line, &n, e->ts - e->out_ts, m->freq);
    else
        put_str(line, sizeof line, &n, ",");
    if (nt && has_ready)
        put_dur(line, sizeof line, &n, e->ts - ready_from, m->freq);
    else
        put_str(line, sizeof line, &n, ",");
    if (nt && has_waited)
        put_dur(line, sizeof line, &n, wait_to - wait_from, m->freq);
    else
        put_str(line, sizeof line, &n, ",");
    if (nt && has_rt) {
        put_str(line, sizeof line, &n, ",%lld,%u", (long long)e->rt.ts, (unsigned)e->rt.cpu);
        if (rk)
            put_str(line, sizeof line, &n, ",%lu", (unsigned long)e->rt.tid);
        else
            put_str(line, sizeof line, &n, ",");
        if (m->pm) {
            uint32_t pid = 0;
            const char *img = "";
            if (rk) {
                mkproc_who(m->pm, e->rt.user, &pid, &img);
                put_str(line, sizeof line, &n, ",%lu,%s", (unsigned long)pid, img);
            } else {
                put_str(line, sizeof line, &n, ",,");
            }
        }
        put_str(line, sizeof line, &n, ",%u", (unsigned)(e->rt.flag & MKR_FLAG_DPC ? 1 : 0));
    } else {
        put_str(line, sizeof line, &n, m->pm ? ",,,,,," : ",,,,");
    }
    if (run)
        put_dur(line, sizeof line, &n, e->run, m->freq);
    else
        put_str(line, sizeof line, &n, ",");
    if (m->csv) {
        line[n < sizeof line - 1 ? n : sizeof line - 2] = '\n';
        fwrite(line, 1, (n < sizeof line - 1 ? n : sizeof line - 2) + 1, m->csv);
    }
}

/* Whether every event before ts (on any CPU) is written, so that where the
 * gap lies before ts is known. */
static bool written_to(const struct mkr *m, int64_t ts)
{
    if (m->finished)
        return true;
    for (unsigned k = 0; k < m->ncpus; k++)
        if (!m->cpu[k].any_sw || m->cpu[k].last_sw < ts)
            return false;
    return true;
}

static void release(struct mkr *m, bool final)
{
    while (m->qhead < m->qtail) {
        struct ent *e = q_at(m, m->qhead);
        if (!e->have_row)
            break;
        if (!final) {
            if (e->run_state == 0 || (e->run_state == 1 && e->next_idx >= m->nrows))
                break; /* the next switch's row gives the segment */
            if (e->has_rt && e->rt.ridx < 0 &&
                (!m->cpu[e->rt.cpu].any_sw || m->cpu[e->rt.cpu].first_idx >= m->nrows))
                break;
            if (e->has_rt && m->rtseg[e->rt.seq] == 0)
                break; /* not written yet */
            if (!written_to(m, e->ts))
                break;
        }
        if (e->run_state == 0)
            e->run_state = 2;
        emit(m, e, m->qhead);
        free(e->pc);
        e->pc = NULL;
        m->qhead++;
    }
}

void mkr_row(struct mkr *m, const struct etlw_expect *row)
{
    if (m->failed)
        return;
    uint64_t i = m->nrows++;
    if (i >= m->qtail || q_at(m, i)->cpu != row->cpu || q_at(m, i)->ts != row->ts) {
        fail(m, "expected row %llu (cpu %u at %lld) does not match the schedule", (unsigned long long)i,
             (unsigned)row->cpu, (long long)row->ts);
        return;
    }
    size_t need = (size_t)(i >> 3) + 1;
    if (need > m->kcap) {
        size_t ncap = m->kcap ? (size_t)m->kcap : 1024;
        while (ncap < need)
            ncap *= 2;
        uint8_t *nk = realloc(m->known, ncap);
        if (nk) {
            memset(nk + m->kcap, 0, ncap - (size_t)m->kcap);
            m->known = nk;
        }
        uint8_t *ns = nk ? realloc(m->segs, ncap * 8) : NULL;
        if (!ns) {
            fail(m, "out of memory");
            return;
        }
        m->segs = ns;
        m->kcap = ncap;
    }
    if (row->has & ETLW_HAS_NEW_TID)
        m->known[i >> 3] = (uint8_t)(m->known[i >> 3] | (1u << (i & 7)));
    m->segs[i] = (uint8_t)(row->seg < 255 ? row->seg : 255);
    note_seg(m, row->cpu, row->ts, row->seg);
    struct ent *e = q_at(m, i);
    e->row = *row;
    e->have_row = true;
    release(m, false);
}

int mkr_finish(struct mkr *m)
{
    if (m->failed)
        return -1;
    for (unsigned k = 0; k < m->ncpus; k++) {
        struct mcpu *c = &m->cpu[k];
        if (flush_cpu(m, k, c->next_ts, false) != 0)
            return -1;
        if (take_pieces(m, &c->tail, &c->ntail) != 0)
            return -1;
    }
    m->finished = true;
    return 0;
}

int mkr_close(struct mkr *m)
{
    if (!m->failed && m->nrows != m->qtail)
        fail(m, "%llu switches but %llu expected rows", (unsigned long long)m->qtail,
             (unsigned long long)m->nrows);
    if (m->failed)
        return -1;
    release(m, true);
    if (m->pm) {
        for (unsigned k = 0; k < m->ncpus; k++)
            mkproc_tail(m->pm, k, m->cpu[k].tail, m->cpu[k].ntail);
        mkproc_presence(m->pm, m->n_ready > 0, m->n_dpc + m->n_isr > 0);
    }
    return 0;
}
