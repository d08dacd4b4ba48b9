/*
 * procmap.c - the thread -> process map (see procmap.h for the design).
 */
#include "sort.h"
#include "grow.h"
#include "decode/procmap.h"

#include "decode/dispatch.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What orders the records: ID, time, and arrival order and operation
 * packed as seq << 3 | op (arrival keeps ties in order). */
struct rkey {
    int64_t ts;
    uint32_t id;              /* TID or PID */
    uint32_t seqop;
};

/* A thread record kept by the pre-pass (24 bytes). Folding turns the
 * records into lifetimes in the same array (union tslot). */
struct trec {
    struct rkey k;
    uint32_t pid;             /* owner */
    uint32_t name;            /* string, or ETL_PM_NONE */
};

/* A process record (40 bytes; a slot holds a lifetime, 48). */
struct prec {
    struct rkey k;
    uint64_t key;             /* UniqueProcessKey */
    uint32_t parent;
    uint32_t image;           /* string, or ETL_PM_NONE */
    uint32_t cmdline;         /* string, or ETL_PM_NONE */
};

union tslot {
    struct trec r;
    struct etl_pm_thread l;
};

union pslot {
    struct prec r;
    struct etl_pm_process l;
};

#define SEQOP(seq, op) ((seq) << 3 | (uint32_t)(op))
#define OP(seqop) ((enum etl_pt_op)((seqop) & 7u))

/* Distinct strings, each stored once, NUL-terminated. */
struct pool {
    char *buf;
    size_t len, cap;
    uint32_t *tab;            /* offsets + 1, 0 = empty; freed once built */
    size_t tcap, n;
    bool nomem;               /* a string could not be stored */
};

/* Where the lifetimes of each ID begin in their array, once the map is
 * finished: open addressing by ID, half full at most (NULL slots: not
 * built, and the map has no lifetimes to ask of). */
struct id_slot {
    uint32_t id;
    uint32_t first;           /* its first lifetime + 1; 0: an empty slot */
};

struct id_index {
    struct id_slot *s;
    size_t mask;
};

struct etl_procmap {
    struct id_index tix, pix; /* of the thread and the process lifetimes */
    union tslot *t;           /* records, then lifetimes */
    size_t nt, tcap;
    union pslot *p;
    size_t np, pcap;
    uint32_t seq;
    struct pool pool;
    size_t nthr, nproc;       /* lifetimes, once finished */
    uint64_t left_out;        /* records past the limits */
    uint64_t cmdlines_left_out;
    size_t cmdline_bytes;
    bool finished;
};

/* ---- strings ------------------------------------------------------------- */

/* Returns the FNV-1a hash of s[0..n). */
static uint32_t hash_bytes(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 16777619u;
    }
    return h;
}

/* Grows the pool's table to twice its size; false when out of memory. */
static bool pool_rehash(struct pool *p)
{
    size_t ncap = p->tcap ? p->tcap * 2 : 256;
    uint32_t *t = calloc(ncap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < p->tcap; i++) {
        if (!p->tab[i])
            continue;
        const char *s = p->buf + p->tab[i] - 1;
        size_t j = hash_bytes(s, strlen(s)) & (ncap - 1);
        while (t[j])
            j = (j + 1) & (ncap - 1);
        t[j] = p->tab[i];
    }
    free(p->tab);
    p->tab = t;
    p->tcap = ncap;
    return true;
}

/* Finds s[0..n) in the pool, or adds it if the pool stays within `limit`
 * bytes; *off receives its offset and *added the bytes added. Returns 1;
 * 0 when the string is new and would pass the limit; -1 when memory ran out
 * (p->nomem). s must not contain NUL bytes. */
static int pool_intern(struct pool *p, const char *s, size_t n, size_t limit,
                       uint32_t *off, size_t *added)
{
    *added = 0;
    if ((p->n + 1) * 2 > p->tcap && !pool_rehash(p)) {
        p->nomem = true;
        return -1;
    }
    size_t j = hash_bytes(s, n) & (p->tcap - 1);
    while (p->tab[j]) {
        const char *t = p->buf + p->tab[j] - 1;
        if (strncmp(t, s, n) == 0 && t[n] == '\0') {
            *off = p->tab[j] - 1;
            return 1;
        }
        j = (j + 1) & (p->tcap - 1);
    }
    if (p->len > limit || n + 1 > limit - p->len)
        return 0;
    if (!etl_grow(&p->buf, &p->cap, p->len + n + 1, 1, 4096)) {
        p->nomem = true;
        return -1;
    }
    *off = (uint32_t)p->len;
    memcpy(p->buf + *off, s, n);
    p->buf[*off + n] = '\0';
    p->len += n + 1;
    p->tab[j] = *off + 1;
    p->n++;
    *added = n + 1;
    return 1;
}

/* ---- records --------------------------------------------------------------- */

struct etl_procmap *etl_procmap_new(void)
{
    return calloc(1, sizeof(struct etl_procmap));
}

/* Interns a UTF-16 string converted to UTF-8 as pool_intern does; an empty
 * one is ETL_PM_NONE. */
static int intern_u16(struct etl_procmap *m, const struct etl_u16str *s, size_t limit,
                      uint32_t *off, size_t *added)
{
    *off = ETL_PM_NONE;
    *added = 0;
    if (!s->p || s->len == 0)
        return 1;
    char stackbuf[512];
    size_t cap = s->len / 2 * 3 + 1;
    char *buf = cap <= sizeof stackbuf ? stackbuf : malloc(cap);
    if (!buf) {
        m->pool.nomem = true;
        return -1;
    }
    size_t n = etl_u16str_utf8(s, buf, cap);
    int st = n ? pool_intern(&m->pool, buf, n, limit, off, added) : 1;
    if (buf != stackbuf)
        free(buf);
    return st;
}

bool etl_procmap_add_process(struct etl_procmap *m, int64_t ts,
                             const struct etl_process_rec *r)
{
    if (r->op == ETL_PT_TERMINATE || r->op == ETL_PT_PERFCTR || m->finished)
        return true;
    if (m->np >= ETL_PM_MAX_PROCESS_RECORDS) {
        m->left_out++;
        return true;
    }
    struct prec x = { { ts, r->pid, SEQOP(m->seq, r->op) }, r->key, r->parent_id,
                      ETL_PM_NONE, ETL_PM_NONE };
    size_t added;
    if ((r->has & PR_IMAGE) && r->image_len > 0 &&
        !memchr(r->image, 0, r->image_len)) {
        int st = pool_intern(&m->pool, (const char *)r->image, r->image_len,
                             ETL_PM_MAX_NAME_BYTES, &x.image, &added);
        if (st < 0)
            return false;
        if (st == 0) {
            m->left_out++;
            return true;
        }
    }
    if (r->has & PR_CMDLINE) {
        /* Command lines take what is left of their own budget. */
        size_t limit = m->pool.len + (ETL_PM_MAX_CMDLINE_BYTES - m->cmdline_bytes);
        if (limit > ETL_PM_MAX_NAME_BYTES)
            limit = ETL_PM_MAX_NAME_BYTES;
        int st = intern_u16(m, &r->cmdline, limit, &x.cmdline, &added);
        if (st < 0)
            return false;
        if (st == 0)
            m->cmdlines_left_out++;
        m->cmdline_bytes += added;
    }
    if (!etl_grow(&m->p, &m->pcap, m->np + 1, sizeof *m->p, 256))
        return false;
    m->p[m->np++].r = x;
    m->seq++;
    return true;
}

bool etl_procmap_add_thread(struct etl_procmap *m, int64_t ts,
                            const struct etl_thread_rec *r)
{
    if (m->finished)
        return true;
    if (m->nt >= ETL_PM_MAX_THREAD_RECORDS) {
        m->left_out++;
        return true;
    }
    struct trec x = { { ts, r->tid, SEQOP(m->seq, r->op) }, r->pid, ETL_PM_NONE };
    if (r->has & TR_NAME) {
        size_t added;
        int st = intern_u16(m, &r->name, ETL_PM_MAX_NAME_BYTES, &x.name, &added);
        if (st < 0)
            return false;
        if (st == 0) {
            m->left_out++;
            return true;
        }
    }
    if (!etl_grow(&m->t, &m->tcap, m->nt + 1, sizeof *m->t, 256))
        return false;
    m->t[m->nt++].r = x;
    m->seq++;
    return true;
}

uint64_t etl_procmap_left_out(const struct etl_procmap *m, uint64_t *cmdlines)
{
    if (cmdlines)
        *cmdlines = m->cmdlines_left_out;
    return m->left_out;
}

/* Whether record key x goes before y: by ID, time and arrival (seqop holds
 * the record's number, so no two keys are equal and every sort gives the
 * one order). Both kinds of slot begin with their record, which begins
 * with its key. */
static inline bool rkey_less(const struct rkey *x, const struct rkey *y)
{
    if (x->id != y->id)
        return x->id < y->id;
    if (x->ts != y->ts)
        return x->ts < y->ts;
    return x->seqop < y->seqop;
}
#define SLOT_LESS(x, y) rkey_less(&(x)->r.k, &(y)->r.k)
ETL_SORT_TYPED(sort_tslots, union tslot, SLOT_LESS)
ETL_SORT_TYPED(sort_pslots, union pslot, SLOT_LESS)

/* ---- finding lifetimes ---------------------------------------------------------- */

/* Returns the number of lifetimes ordered at or before (id, ts): they are
 * sorted by ID, then start. Thread and process lifetimes both begin with
 * their start; their ID is id_at bytes into each of the n slots of `size`
 * bytes at base. */
static size_t lifetimes_upto(const void *base, size_t n, size_t size, size_t id_at,
                             uint32_t id, int64_t ts)
{
    const unsigned char *b = base;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t start;
        uint32_t mid_id;
        memcpy(&start, b + mid * size, sizeof start);
        memcpy(&mid_id, b + mid * size + id_at, sizeof mid_id);
        if (mid_id < id || (mid_id == id && start <= ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t id_home(uint32_t id, size_t mask)
{
    return (size_t)((id * 0x9E3779B1u) >> 7) & mask;
}

/* Indexes the lifetimes of an array of n (sorted by ID, then start, the ID
 * at id_at in each of size bytes); false when out of memory. */
static bool index_ids(struct id_index *ix, const void *base, size_t n, size_t size,
                      size_t id_at)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    struct id_slot *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    const unsigned char *b = base;
    for (size_t i = 0; i < n;) {
        uint32_t id;
        memcpy(&id, b + i * size + id_at, sizeof id);
        size_t k = i + 1;
        for (;; k++) {
            uint32_t next;
            if (k == n || (memcpy(&next, b + k * size + id_at, sizeof next), next != id))
                break;
        }
        size_t j = id_home(id, cap - 1);
        while (t[j].first)
            j = (j + 1) & (cap - 1);
        t[j] = (struct id_slot){ id, (uint32_t)i + 1 };
        i = k;
    }
    ix->s = t;
    ix->mask = cap - 1;
    return true;
}

/* Returns true if the lifetime at p is one of id's that began at or before
 * ts. */
static bool in_force(const unsigned char *p, size_t id_at, uint32_t id, int64_t ts)
{
    int64_t start;
    uint32_t its;
    memcpy(&start, p, sizeof start);
    memcpy(&its, p + id_at, sizeof its);
    return its == id && start <= ts;
}

/* Returns the lifetime of id with the latest start at or before ts, or
 * ETL_PM_NONE, through the index of the n lifetimes at base; the times
 * [*from, *until) around ts are those for which the answer is the same. */
static inline uint32_t lifetime_at(const struct id_index *ix, const void *base, size_t n,
                                   size_t size, size_t id_at, uint32_t id, int64_t ts,
                                   int64_t *from, int64_t *until)
{
    const unsigned char *b = base;
    *from = INT64_MIN;
    *until = INT64_MAX;
    if (n == 0 || !ix->s)
        return ETL_PM_NONE;
    size_t j = id_home(id, ix->mask);
    while (ix->s[j].first && ix->s[j].id != id)
        j = (j + 1) & ix->mask;
    if (!ix->s[j].first)
        return ETL_PM_NONE;
    size_t lo = ix->s[j].first - 1;
    int64_t start;
    memcpy(&start, b + lo * size, sizeof start);
    if (start > ts) {
        *until = start;
        return ETL_PM_NONE;
    }
    /* The ID's lifetimes from lo on are in force at ts, then not: the last
     * that is, by steps that double, then halve. */
    size_t step = 1;
    while (lo + step < n && in_force(b + (lo + step) * size, id_at, id, ts)) {
        lo += step;
        step *= 2;
    }
    size_t hi = lo + step < n ? lo + step : n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (in_force(b + mid * size, id_at, id, ts))
            lo = mid;
        else
            hi = mid;
    }
    /* Until the ID's next lifetime starts (it starts after ts: lo is the
     * last in force). */
    memcpy(from, b + lo * size, sizeof *from);
    if (lo + 1 < n) {
        uint32_t next;
        memcpy(&next, b + (lo + 1) * size + id_at, sizeof next);
        if (next == id)
            memcpy(until, b + (lo + 1) * size, sizeof *until);
    }
    return (uint32_t)lo;
}

static size_t processes_upto(const struct etl_procmap *m, uint32_t id, int64_t ts)
{
    return lifetimes_upto(m->p, m->nproc, sizeof *m->p, offsetof(struct etl_pm_process, pid),
                          id, ts);
}

/* ---- folding records into lifetimes ------------------------------------------ */

/* Folds the process records into lifetimes, in place: a lifetime is written
 * at or before the slot of the record that makes it, after that record has
 * been read. */
static void fold_processes(struct etl_procmap *m)
{
    union pslot *s = m->p;
    size_t n = m->np, out = 0;
    sort_pslots(s, n);
    for (size_t i = 0; i < n;) {
        uint32_t id = s[i].r.k.id;
        size_t first = out;
        struct etl_pm_process *cur = NULL;
        for (; i < n && s[i].r.k.id == id; i++) {
            const struct prec x = s[i].r;
            enum etl_pt_op op = OP(x.k.seqop);
            bool match = cur && !cur->ended && cur->key == x.key;
            if (op == ETL_PT_DEFUNCT) {
                /* Exit data of a known instance: nothing new, unless the PID
                 * is known from nothing else. */
                bool known = false;
                for (size_t k = first; k < out; k++)
                    if (s[k].l.key == x.key) {
                        known = true;
                        if (s[k].l.image == ETL_PM_NONE)
                            s[k].l.image = x.image;
                        if (s[k].l.cmdline == ETL_PM_NONE)
                            s[k].l.cmdline = x.cmdline;
                    }
                if (known || cur)
                    continue;
            } else if (match && op != ETL_PT_START) {
                if (cur->image == ETL_PM_NONE)
                    cur->image = x.image;
                if (cur->cmdline == ETL_PM_NONE)
                    cur->cmdline = x.cmdline;
                if (op == ETL_PT_END) {
                    cur->ended = true;
                    cur->end = x.k.ts;
                }
                continue;
            }
            cur = &s[out++].l;
            memset(cur, 0, sizeof *cur);
            /* A first record other than Start: alive before the trace. */
            cur->start = op == ETL_PT_START || out - 1 > first ? x.k.ts : ETL_PM_BEFORE;
            cur->key = x.key;
            cur->pid = x.k.id;
            cur->parent_id = x.parent;
            cur->image = x.image;
            cur->cmdline = x.cmdline;
            if (op == ETL_PT_END || op == ETL_PT_DEFUNCT) {
                cur->ended = true;
                cur->end = x.k.ts;
            }
        }
    }
    m->nproc = out;
}

/* Folds the thread records into lifetimes in place, as above. */
static void fold_threads(struct etl_procmap *m)
{
    union tslot *s = m->t;
    size_t n = m->nt, out = 0;
    sort_tslots(s, n);
    for (size_t i = 0; i < n;) {
        uint32_t id = s[i].r.k.id;
        size_t first = out;
        struct etl_pm_thread *cur = NULL;
        bool ended = false;
        for (; i < n && s[i].r.k.id == id; i++) {
            const struct trec x = s[i].r;
            enum etl_pt_op op = OP(x.k.seqop);
            bool match = cur && !ended && cur->pid == x.pid;
            if (!match || op == ETL_PT_START) {
                cur = &s[out++].l;
                cur->start = op == ETL_PT_START || out - 1 > first ? x.k.ts : ETL_PM_BEFORE;
                cur->tid = x.k.id;
                cur->pid = x.pid;
                cur->proc = ETL_PM_NONE;
                cur->name = ETL_PM_NONE;
                ended = false;
            }
            if (x.name != ETL_PM_NONE) /* the latest name wins */
                cur->name = x.name;
            if (op == ETL_PT_END)
                ended = true;
        }
    }
    m->nthr = out;
    /* Each thread belongs to the process lifetime of its PID when it began
     * (or the first one, for threads older than their process's record). */
    for (size_t k = 0; k < m->nthr; k++) {
        struct etl_pm_thread *t = &s[k].l;
        t->proc = etl_procmap_process_at(m, t->pid, t->start);
        if (t->proc == ETL_PM_NONE) {
            size_t first = t->pid ? processes_upto(m, t->pid - 1, INT64_MAX) : 0;
            if (first < m->nproc && m->p[first].l.pid == t->pid)
                t->proc = (uint32_t)first;
        }
    }
}

bool etl_procmap_finish(struct etl_procmap *m)
{
    if (m->finished)
        return true;
    m->finished = true;
    /* Questions go by offset: the table that found names is done. */
    free(m->pool.tab);
    m->pool.tab = NULL;
    m->pool.tcap = m->pool.n = 0;
    fold_processes(m);
    if (!index_ids(&m->pix, m->p, m->nproc, sizeof *m->p, offsetof(struct etl_pm_process, pid)))
        return false;
    fold_threads(m);
    if (!index_ids(&m->tix, m->t, m->nthr, sizeof *m->t, offsetof(struct etl_pm_thread, tid)))
        return false;
    for (size_t i = 0; i < m->nproc; i++) {
        struct etl_pm_process *pr = &m->p[i].l;
        pr->image_len = pr->image != ETL_PM_NONE ? (uint32_t)strlen(m->pool.buf + pr->image) : 0;
    }
    return true;
}

/* ---- the pre-pass ---------------------------------------------------------------- */

struct build_ctx {
    struct etl_file *f;
    struct etl_procmap *m;
    struct etl_scope *scope;
    bool report;
    bool oom;
    bool left_out;            /* where the first record left out is: */
    bool compressed;
    uint64_t buffer_offset;
    uint32_t event_offset;
    struct etl_runs_pick pick; /* PERFINFO64 events wanted whole */
};

/* Collects one event of the pre-pass. */
static bool build_event(void *vctx, const struct etl_event *ev)
{
    struct build_ctx *b = vctx;
    etl_runs_pick_learn(&b->pick, ev);
    const struct etl_decoder *d = etl_dispatch(ev);
    if (d->kind != ETL_REC_PROCESS && d->kind != ETL_REC_THREAD)
        return true;
    struct etl_record r;
    bool valid = etl_decode(ev, d, &r);
    /* Terminate and PerfCtr records name a process but no lifetime. */
    if (d->kind == ETL_REC_PROCESS &&
        (r.u.proc.op == ETL_PT_TERMINATE || r.u.proc.op == ETL_PT_PERFCTR))
        return true;
    if (r.problem && b->report) {
        /* The pre-pass's own finding: kept, unlike the reader's (the view's
         * pass reports those). */
        etl_scope_keep(b->scope, true);
        etl_report_event(b->f, ev, r.at, r.problem);
        etl_scope_keep(b->scope, false);
    }
    if (!valid)
        return true;
    bool ok = d->kind == ETL_REC_PROCESS ? etl_procmap_add_process(b->m, ev->ts, &r.u.proc)
                                         : etl_procmap_add_thread(b->m, ev->ts, &r.u.thr);
    if (!ok)
        b->oom = true;
    else if (!b->left_out && b->m->left_out) {
        b->left_out = true;
        b->compressed = ev->compressed;
        b->buffer_offset = ev->buffer_offset;
        b->event_offset = ev->event_offset;
    }
    return ok;
}

/* Warns once about what the map left out at its limits. */
static void warn_left_out(const struct build_ctx *b)
{
    const struct etl_procmap *m = b->m;
    char where[96] = "";
    if (b->left_out && b->compressed)
        snprintf(where, sizeof where, "offset 0x%llx (byte 0x%x of the decompressed buffer)",
                 (unsigned long long)b->buffer_offset, (unsigned)b->event_offset);
    else if (b->left_out)
        snprintf(where, sizeof where, "offset 0x%llx",
                 (unsigned long long)(b->buffer_offset + b->event_offset));
    if (m->left_out)
        etl_warn(b->f,
                 "%s: the process map is full: %llu Process and Thread records from here "
                 "on are left out (it keeps %u thread and %u process records and %u MiB "
                 "of names), so the threads they name have no process",
                 where, (unsigned long long)m->left_out, ETL_PM_MAX_THREAD_RECORDS,
                 ETL_PM_MAX_PROCESS_RECORDS, ETL_PM_MAX_NAME_BYTES >> 20);
    if (m->cmdlines_left_out)
        etl_warn(b->f, "%llu command lines are left out of the process map (%u MiB of them "
                       "are kept)",
                 (unsigned long long)m->cmdlines_left_out, ETL_PM_MAX_CMDLINE_BYTES >> 20);
}

struct etl_procmap *etl_procmap_build(struct etl_file *f, bool report)
{
    struct etl_procmap *m = etl_procmap_new();
    if (!m) {
        etl_file_nomem(f);
        return NULL;
    }
    struct etl_scope scope;
    struct build_ctx b;
    memset(&b, 0, sizeof b);
    b.f = f;
    b.m = m;
    b.scope = &scope;
    b.report = report;
    if (!etl_runs_pick_init(&b.pick, 1u << ETL_REC_PROCESS | 1u << ETL_REC_THREAD)) {
        etl_file_nomem(f);
        etl_procmap_free(m);
        return NULL;
    }
    etl_scope_begin(f, &scope, false);
    etl_walk_file_runs(f, build_event, etl_runs_skip, b.pick.cls, &b);
    etl_scope_end(f, &scope);
    etl_runs_pick_fini(&b.pick);
    etl_scope_replay(f, &scope);
    if (b.oom || etl_file_is_nomem(f) || !etl_procmap_finish(m)) {
        etl_file_nomem(f);
        etl_procmap_free(m);
        return NULL;
    }
    warn_left_out(&b);
    return m;
}

void etl_procmap_free(struct etl_procmap *m)
{
    if (!m)
        return;
    free(m->t);
    free(m->p);
    free(m->tix.s);
    free(m->pix.s);
    free(m->pool.buf);
    free(m->pool.tab);
    free(m);
}

/* ---- questions ----------------------------------------------------------------------- */

/* etl_procmap_thread_at, and the span of times of its answer (lifetime_at). */
static inline uint32_t thread_span(const struct etl_procmap *m, uint32_t tid, int64_t ts,
                                   int64_t *from, int64_t *until)
{
    *from = INT64_MIN;
    *until = INT64_MAX;
    if (!m || m->nthr == 0)
        return ETL_PM_NONE;
    /* The latest start at or before ts. */
    return lifetime_at(&m->tix, m->t, m->nthr, sizeof *m->t,
                       offsetof(struct etl_pm_thread, tid), tid, ts, from, until);
}

/* etl_procmap_process_at, and the span of times of its answer. */
static inline uint32_t process_span(const struct etl_procmap *m, uint32_t pid, int64_t ts,
                                    int64_t *from, int64_t *until)
{
    *from = INT64_MIN;
    *until = INT64_MAX;
    if (!m || m->nproc == 0)
        return ETL_PM_NONE;
    return lifetime_at(&m->pix, m->p, m->nproc, sizeof *m->p,
                       offsetof(struct etl_pm_process, pid), pid, ts, from, until);
}

uint32_t etl_procmap_thread_at(const struct etl_procmap *m, uint32_t tid, int64_t ts)
{
    int64_t from, until;
    return thread_span(m, tid, ts, &from, &until);
}

uint32_t etl_procmap_process_at(const struct etl_procmap *m, uint32_t pid, int64_t ts)
{
    int64_t from, until;
    return process_span(m, pid, ts, &from, &until);
}

const char *etl_procmap_str(const struct etl_procmap *m, uint32_t s)
{
    return m && s != ETL_PM_NONE ? m->pool.buf + s : NULL;
}

const char *etl_procmap_image(const struct etl_procmap *m, uint32_t pid, int64_t ts)
{
    uint32_t p = etl_procmap_process_at(m, pid, ts);
    const char *img = p != ETL_PM_NONE ? etl_procmap_str(m, m->p[p].l.image) : NULL;
    if (!img && pid == 0)
        img = "Idle";
    return img;
}

/* etl_procmap_who_span, inline in both of its ways. */
static inline bool who_span(const struct etl_procmap *m, uint32_t tid, int64_t ts,
                            struct etl_who *w, int64_t *from, int64_t *until)
{
    w->thread = thread_span(m, tid, ts, from, until);
    w->proc = ETL_PM_NONE;
    w->image = NULL;
    w->image_len = 0;
    w->known = false;
    w->pid = 0;
    if (tid == 0) {
        /* The idle threads (one per CPU, all TID 0) are the Idle process. */
        int64_t pfrom, puntil;
        w->known = true;
        w->proc = process_span(m, 0, ts, &pfrom, &puntil);
        w->image = "Idle";
        w->image_len = 4;
        *from = pfrom > *from ? pfrom : *from;
        *until = puntil < *until ? puntil : *until;
        return true;
    }
    if (w->thread == ETL_PM_NONE)
        return false;
    const struct etl_pm_thread *t = &m->t[w->thread].l;
    w->known = true;
    w->pid = t->pid;
    w->proc = t->proc;
    if (t->proc != ETL_PM_NONE) {
        const struct etl_pm_process *pr = &m->p[t->proc].l;
        w->image = etl_procmap_str(m, pr->image);
        w->image_len = pr->image_len;
    }
    if (!w->image && t->pid == 0) {
        w->image = "Idle";
        w->image_len = 4;
    }
    return true;
}

bool etl_procmap_who(const struct etl_procmap *m, uint32_t tid, int64_t ts,
                     struct etl_who *w)
{
    int64_t from, until;
    return who_span(m, tid, ts, w, &from, &until);
}

bool etl_procmap_who_span(const struct etl_procmap *m, uint32_t tid, int64_t ts,
                          struct etl_who *w, int64_t *from, int64_t *until)
{
    return who_span(m, tid, ts, w, from, until);
}

void etl_who_cache_fini(struct etl_who_cache *c)
{
    free(c->tids);
    c->tids = NULL;
}

bool etl_who_cache_init(struct etl_who_cache *c)
{
    if (!c->tids)
        c->tids = calloc(ETL_WHO_TIDS, sizeof *c->tids);
    return c->tids != NULL;
}

size_t etl_procmap_nthreads(const struct etl_procmap *m)
{
    return m ? m->nthr : 0;
}

size_t etl_procmap_nprocesses(const struct etl_procmap *m)
{
    return m ? m->nproc : 0;
}

const struct etl_pm_thread *etl_procmap_thread(const struct etl_procmap *m, uint32_t i)
{
    return &m->t[i].l;
}

const struct etl_pm_process *etl_procmap_process(const struct etl_procmap *m, uint32_t i)
{
    return &m->p[i].l;
}
