/*
 * procmap.c - the thread -> process map (see procmap.h for the design).
 */
#include "sort.h"
#include "grow.h"
#include "decode/procmap.h"

#include "decode/dispatch.h"

#include <stdlib.h>
#include <string.h>

/* A record kept by the pre-pass: a thread's (TID, owner PID) or a
 * process's (PID, parent), what it says about the lifetime and its name. */
struct rec {
    int64_t ts;
    uint64_t key;             /* processes: UniqueProcessKey */
    uint32_t id;              /* TID or PID */
    uint32_t other;           /* threads: owner PID; processes: parent */
    uint32_t str;             /* thread name or image, or ETL_PM_NONE */
    uint32_t seq;             /* arrival order: ties keep it */
    uint8_t op;               /* enum etl_pt_op */
    uint32_t cmdline;         /* processes: command line, or ETL_PM_NONE */
};

struct rec_list {
    struct rec *r;
    size_t n, cap;
};

/* One ID's lifetimes: [first, first + count) of the sorted array. */
struct slot {
    uint32_t id, first, count;
};

struct index {
    struct slot *tab;
    size_t mask;              /* capacity - 1 (a power of two) */
};

/* Distinct strings, each stored once, NUL-terminated. */
struct pool {
    char *buf;
    size_t len, cap;
    uint32_t *tab;            /* offsets + 1, 0 = empty */
    size_t tcap, n;
    bool nomem;               /* a string could not be stored */
};

struct etl_procmap {
    struct rec_list trec, prec;
    uint32_t seq;
    struct pool pool;
    struct etl_pm_thread *thr;
    size_t nthr;
    struct etl_pm_process *proc;
    size_t nproc;
    struct index tidx, pidx;
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

/* Returns the offset of s[0..n) in the pool, adding it when new; NONE when
 * the pool is full or memory ran out (p->nomem). s must not contain NUL
 * bytes. */
static uint32_t pool_intern(struct pool *p, const char *s, size_t n)
{
    if ((p->n + 1) * 2 > p->tcap && !pool_rehash(p)) {
        p->nomem = true;
        return ETL_PM_NONE;
    }
    size_t j = hash_bytes(s, n) & (p->tcap - 1);
    while (p->tab[j]) {
        const char *t = p->buf + p->tab[j] - 1;
        if (strncmp(t, s, n) == 0 && t[n] == '\0')
            return p->tab[j] - 1;
        j = (j + 1) & (p->tcap - 1);
    }
    if (n + 1 > UINT32_MAX - 2 - p->len)
        return ETL_PM_NONE;
    if (!etl_grow(&p->buf, &p->cap, p->len + n + 1, 1, 4096)) {
        p->nomem = true;
        return ETL_PM_NONE;
    }
    uint32_t off = (uint32_t)p->len;
    memcpy(p->buf + off, s, n);
    p->buf[off + n] = '\0';
    p->len += n + 1;
    p->tab[j] = off + 1;
    p->n++;
    return off;
}

/* ---- records --------------------------------------------------------------- */

/* Appends a record; false when out of memory. */
static bool rec_push(struct rec_list *l, const struct rec *r)
{
    if (!etl_grow(&l->r, &l->cap, l->n + 1, sizeof *l->r, 256))
        return false;
    l->r[l->n++] = *r;
    return true;
}

struct etl_procmap *etl_procmap_new(void)
{
    return calloc(1, sizeof(struct etl_procmap));
}

/* Interns a UTF-16 string converted to UTF-8; NONE when empty. */
static uint32_t intern_u16(struct etl_procmap *m, const struct etl_u16str *s)
{
    if (!s->p || s->len == 0)
        return ETL_PM_NONE;
    char stackbuf[512];
    size_t cap = s->len / 2 * 3 + 1;
    char *buf = cap <= sizeof stackbuf ? stackbuf : malloc(cap);
    if (!buf) {
        m->pool.nomem = true;
        return ETL_PM_NONE;
    }
    size_t n = etl_u16str_utf8(s, buf, cap);
    uint32_t off = n ? pool_intern(&m->pool, buf, n) : ETL_PM_NONE;
    if (buf != stackbuf)
        free(buf);
    return off;
}

bool etl_procmap_add_process(struct etl_procmap *m, int64_t ts,
                             const struct etl_process_rec *r)
{
    if (r->op == ETL_PT_TERMINATE || r->op == ETL_PT_PERFCTR || m->finished)
        return true;
    struct rec x = { ts, r->key, r->pid, r->parent_id, ETL_PM_NONE, m->seq++, r->op,
                     ETL_PM_NONE };
    if ((r->has & PR_IMAGE) && r->image_len > 0 &&
        !memchr(r->image, 0, r->image_len))
        x.str = pool_intern(&m->pool, (const char *)r->image, r->image_len);
    if (r->has & PR_CMDLINE)
        x.cmdline = intern_u16(m, &r->cmdline);
    return rec_push(&m->prec, &x) && !m->pool.nomem;
}

bool etl_procmap_add_thread(struct etl_procmap *m, int64_t ts,
                            const struct etl_thread_rec *r)
{
    if (m->finished)
        return true;
    struct rec x = { ts, 0, r->tid, r->pid, ETL_PM_NONE, m->seq++, r->op, ETL_PM_NONE };
    if (r->has & TR_NAME)
        x.str = intern_u16(m, &r->name);
    return rec_push(&m->trec, &x) && !m->pool.nomem;
}

/* Orders records by ID, time and arrival. */
static int cmp_rec(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct rec *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- the index --------------------------------------------------------------- */

/* Returns the hash of a 32-bit ID. */
static size_t hash_id(uint32_t id)
{
    uint32_t h = id * 2654435761u;
    return (size_t)(h ^ (h >> 16));
}

/* Builds an index of `distinct` IDs; false when out of memory. */
static bool index_init(struct index *x, size_t distinct)
{
    size_t cap = 16;
    while (cap < distinct * 2)
        cap *= 2;
    x->tab = calloc(cap, sizeof *x->tab);
    x->mask = cap - 1;
    return x->tab != NULL;
}

/* Records that id's lifetimes are [first, first + count). */
static void index_put(struct index *x, uint32_t id, uint32_t first, uint32_t count)
{
    size_t j = hash_id(id) & x->mask;
    while (x->tab[j].count)
        j = (j + 1) & x->mask;
    x->tab[j].id = id;
    x->tab[j].first = first;
    x->tab[j].count = count;
}

/* Returns id's slot, or NULL. */
static const struct slot *index_get(const struct index *x, uint32_t id)
{
    if (!x->tab)
        return NULL;
    size_t j = hash_id(id) & x->mask;
    while (x->tab[j].count) {
        if (x->tab[j].id == id)
            return &x->tab[j];
        j = (j + 1) & x->mask;
    }
    return NULL;
}

/* ---- folding records into lifetimes ------------------------------------------ */

/* Returns the number of distinct IDs in sorted records. */
static size_t count_ids(const struct rec *r, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || r[i].id != r[i - 1].id)
            k++;
    return k;
}

/* Folds the process records; false when out of memory. */
static bool fold_processes(struct etl_procmap *m)
{
    struct rec *r = m->prec.r;
    size_t n = m->prec.n;
    if (n > 1) 
        etl_sort(r, n, sizeof *r, cmp_rec, NULL);
    /* Lifetimes never outnumber records. */
    m->proc = malloc((n ? n : 1) * sizeof *m->proc);
    if (!m->proc || !index_init(&m->pidx, count_ids(r, n)))
        return false;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        uint32_t first = (uint32_t)m->nproc;
        struct etl_pm_process *cur = NULL;
        for (; j < n && r[j].id == r[i].id; j++) {
            const struct rec *x = &r[j];
            bool match = cur && !cur->ended && cur->key == x->key;
            if (x->op == ETL_PT_DEFUNCT) {
                /* Exit data of a known instance: nothing new, unless the PID
                 * is known from nothing else. */
                bool known = false;
                for (size_t k = first; k < m->nproc; k++)
                    if (m->proc[k].key == x->key) {
                        known = true;
                        if (m->proc[k].image == ETL_PM_NONE)
                            m->proc[k].image = x->str;
                        if (m->proc[k].cmdline == ETL_PM_NONE)
                            m->proc[k].cmdline = x->cmdline;
                    }
                if (known || cur)
                    continue;
            } else if (match && x->op != ETL_PT_START) {
                if (cur->image == ETL_PM_NONE)
                    cur->image = x->str;
                if (cur->cmdline == ETL_PM_NONE)
                    cur->cmdline = x->cmdline;
                if (x->op == ETL_PT_END) {
                    cur->ended = true;
                    cur->end = x->ts;
                }
                continue;
            }
            cur = &m->proc[m->nproc++];
            memset(cur, 0, sizeof *cur);
            /* A first record other than Start: alive before the trace. */
            cur->start = x->op == ETL_PT_START || m->nproc - 1 > first ? x->ts : ETL_PM_BEFORE;
            cur->key = x->key;
            cur->pid = x->id;
            cur->parent_id = x->other;
            cur->image = x->str;
            cur->cmdline = x->cmdline;
            if (x->op == ETL_PT_END || x->op == ETL_PT_DEFUNCT) {
                cur->ended = true;
                cur->end = x->ts;
            }
        }
        index_put(&m->pidx, r[i].id, first, (uint32_t)m->nproc - first);
        i = j;
    }
    return true;
}

/* Folds the thread records; false when out of memory. */
static bool fold_threads(struct etl_procmap *m)
{
    struct rec *r = m->trec.r;
    size_t n = m->trec.n;
    if (n > 1)
        etl_sort(r, n, sizeof *r, cmp_rec, NULL);
    m->thr = malloc((n ? n : 1) * sizeof *m->thr);
    if (!m->thr || !index_init(&m->tidx, count_ids(r, n)))
        return false;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        uint32_t first = (uint32_t)m->nthr;
        struct etl_pm_thread *cur = NULL;
        bool ended = false;
        for (; j < n && r[j].id == r[i].id; j++) {
            const struct rec *x = &r[j];
            bool match = cur && !ended && cur->pid == x->other;
            if (!match || x->op == ETL_PT_START) {
                cur = &m->thr[m->nthr++];
                cur->start = x->op == ETL_PT_START || m->nthr - 1 > first ? x->ts : ETL_PM_BEFORE;
                cur->tid = x->id;
                cur->pid = x->other;
                cur->proc = ETL_PM_NONE;
                cur->name = ETL_PM_NONE;
                ended = false;
            }
            if (x->str != ETL_PM_NONE) /* the latest name wins */
                cur->name = x->str;
            if (x->op == ETL_PT_END)
                ended = true;
        }
        index_put(&m->tidx, r[i].id, first, (uint32_t)m->nthr - first);
        i = j;
    }
    /* Each thread belongs to the process lifetime of its PID when it began
     * (or the first one, for threads older than their process's record). */
    for (size_t k = 0; k < m->nthr; k++) {
        struct etl_pm_thread *t = &m->thr[k];
        t->proc = etl_procmap_process_at(m, t->pid, t->start);
        if (t->proc == ETL_PM_NONE) {
            const struct slot *s = index_get(&m->pidx, t->pid);
            if (s)
                t->proc = s->first;
        }
    }
    return true;
}

bool etl_procmap_finish(struct etl_procmap *m)
{
    if (m->finished)
        return true;
    m->finished = true;
    bool ok = fold_processes(m) && fold_threads(m);
    free(m->prec.r);
    free(m->trec.r);
    memset(&m->prec, 0, sizeof m->prec);
    memset(&m->trec, 0, sizeof m->trec);
    if (!ok) {
        m->nthr = m->nproc = 0;
        free(m->tidx.tab);
        free(m->pidx.tab);
        m->tidx.tab = m->pidx.tab = NULL;
    }
    return ok;
}

/* ---- the pre-pass ---------------------------------------------------------------- */

struct build_ctx {
    struct etl_file *f;
    struct etl_procmap *m;
    struct etl_scope *scope;
    bool report;
    bool oom;
};

/* Collects one event of the pre-pass. */
static bool build_event(void *vctx, const struct etl_event *ev)
{
    struct build_ctx *b = vctx;
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
    return ok;
}

struct etl_procmap *etl_procmap_build(struct etl_file *f, bool report)
{
    struct etl_procmap *m = etl_procmap_new();
    if (!m) {
        etl_file_nomem(f);
        return NULL;
    }
    struct etl_scope scope;
    struct build_ctx b = { f, m, &scope, report, false };
    etl_scope_begin(f, &scope, false);
    etl_walk_file(f, build_event, &b);
    etl_scope_end(f, &scope);
    etl_scope_replay(f, &scope);
    if (b.oom || etl_file_is_nomem(f) || !etl_procmap_finish(m)) {
        etl_file_nomem(f);
        etl_procmap_free(m);
        return NULL;
    }
    return m;
}

void etl_procmap_free(struct etl_procmap *m)
{
    if (!m)
        return;
    free(m->prec.r);
    free(m->trec.r);
    free(m->pool.buf);
    free(m->pool.tab);
    free(m->thr);
    free(m->proc);
    free(m->tidx.tab);
    free(m->pidx.tab);
    free(m);
}

/* ---- questions ----------------------------------------------------------------------- */

uint32_t etl_procmap_thread_at(const struct etl_procmap *m, uint32_t tid, int64_t ts)
{
    const struct slot *s = m ? index_get(&m->tidx, tid) : NULL;
    if (!s)
        return ETL_PM_NONE;
    /* The latest start at or before ts (lists are short: scan back). */
    for (uint32_t k = s->count; k-- > 0;)
        if (m->thr[s->first + k].start <= ts)
            return s->first + k;
    return ETL_PM_NONE;
}

uint32_t etl_procmap_process_at(const struct etl_procmap *m, uint32_t pid, int64_t ts)
{
    const struct slot *s = m ? index_get(&m->pidx, pid) : NULL;
    if (!s)
        return ETL_PM_NONE;
    for (uint32_t k = s->count; k-- > 0;)
        if (m->proc[s->first + k].start <= ts)
            return s->first + k;
    return ETL_PM_NONE;
}

const char *etl_procmap_str(const struct etl_procmap *m, uint32_t s)
{
    return m && s != ETL_PM_NONE ? m->pool.buf + s : NULL;
}

const char *etl_procmap_image(const struct etl_procmap *m, uint32_t pid, int64_t ts)
{
    uint32_t p = etl_procmap_process_at(m, pid, ts);
    const char *img = p != ETL_PM_NONE ? etl_procmap_str(m, m->proc[p].image) : NULL;
    if (!img && pid == 0)
        img = "Idle";
    return img;
}

bool etl_procmap_who(const struct etl_procmap *m, uint32_t tid, int64_t ts,
                     struct etl_who *w)
{
    w->thread = etl_procmap_thread_at(m, tid, ts);
    w->proc = ETL_PM_NONE;
    w->image = NULL;
    w->known = false;
    w->pid = 0;
    if (tid == 0) {
        /* The idle threads (one per CPU, all TID 0) are the Idle process. */
        w->known = true;
        w->proc = etl_procmap_process_at(m, 0, ts);
        w->image = "Idle";
        return true;
    }
    if (w->thread == ETL_PM_NONE)
        return false;
    const struct etl_pm_thread *t = &m->thr[w->thread];
    w->known = true;
    w->pid = t->pid;
    w->proc = t->proc;
    if (t->proc != ETL_PM_NONE)
        w->image = etl_procmap_str(m, m->proc[t->proc].image);
    if (!w->image && t->pid == 0)
        w->image = "Idle";
    return true;
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
    return &m->thr[i];
}

const struct etl_pm_process *etl_procmap_process(const struct etl_procmap *m, uint32_t i)
{
    return &m->proc[i];
}
