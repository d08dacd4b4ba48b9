/*
 * mkproc: processes and threads for mktrace, and the truth about them (see
 * mkproc.h). Independent of etldump: it knows the schedule, not a decoder.
 */
#define _POSIX_C_SOURCE 200809L

#include "mkproc.h"

#include "etlw_pt.h"
#include "mkrng.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* Figures of a thread (or a process: the sum of its threads). */
struct fig {
    int64_t cpu_time, max_run, wait_time, ready_time;
    uint64_t runs, switch_ins, waits, migrations;
    uint32_t wr[256];
};

struct proc {
    uint32_t pid, parent, flags, exit_status, session;
    uint64_t key;
    const char *image, *package, *app_id;
    char cmdline[200];
    bool no_sid, system_sid, user;
    bool alive, ended;
    unsigned nthreads;        /* alive */
};

/* Who readied a thread, by image name. */
struct readier {
    const char *name;
    uint32_t n;
};

struct inst {
    uint32_t tid, proc;
    char name[32];
    bool alive, taken, from_reuse;
    int64_t end_ts;
    /* summary */
    bool row;
    int64_t out_at;
    uint8_t out_kind;
    bool out_counts;
    int32_t last_cpu;
    struct fig f;
    /* settled summary: sn without ReadyThread events, sr with them */
    struct fig sn, sr;
    int32_t s_last_cpu;
    uint8_t out_wr;
    bool out_has_wr;
    int64_t dpc, isr;
    int64_t *rv;              /* known new_ready values (ns) of counted switch-ins */
    size_t nrv, rvcap;
    struct readier *rd;
    size_t nrd, rdcap;
};

struct cpu {
    bool known, seen;
    uint32_t inst, seg;       /* the latest switch's new thread and buffer segment */
    int64_t since, busy, idle;
    uint64_t switches;
    int64_t dpc, isr;
    int64_t cst[256];         /* idle time by the C-state left */
    bool cst_seen[256];
};

struct mkproc {
    struct etlw *w;
    struct mkproc_opts o;
    struct rng r;
    unsigned ncpus;
    int64_t t0, freq;
    bool names;
    struct proc *p;
    size_t np, pcap;
    struct inst *t;
    size_t nt, tcap;
    uint32_t *slot;
    unsigned nslots;
    uint32_t next_pid, next_small_tid, controller;
    uint64_t next_key;
    uint32_t *freeq;          /* ended instances, in end order */
    size_t fhead, ftail, fcap;
    struct cpu *cpu;
    bool settled, any_ready, any_intr;
};

enum { OUT_NONE, OUT_WAIT, OUT_READY };

static const char *const images[] = {
    "svchost.exe", "explorer.exe", "Code.exe", "msedge.exe", "MsMpEng.exe", "conhost.exe",
    "SearchIndexer.exe", "RuntimeBroker.exe", "dotnet.exe", "ServiceHub.Host.CLR.x86.exe",
    "Teams.exe", "CodeSetup-stable-with-a-long-installer-name.tmp",
};
static const char *const cmdlines[] = {
    "C:\\WINDOWS\\system32\\svchost.exe -k netsvcs -p",
    "\"C:\\Program Files\\App\\app.exe\" --type=renderer --lang=de",
    "C:\\Users\\J\xc3\xbcrgen\\D\xc3\xa9sktop\\\xe6\x97\xa5\xe6\x9c\xac.exe /x \xf0\x9d\x84\x9e",
    "",
};

/* ---- options ------------------------------------------------------------------- */

/* Parses seconds ("2", "0.25", "") into ns; -1 when malformed. */
static int parse_secs(const char *s, size_t n, int64_t *ns)
{
    int64_t whole = 0, frac = 0;
    int fd = -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.' && fd < 0) {
            fd = 0;
        } else if (s[i] >= '0' && s[i] <= '9') {
            if (fd >= 0) {
                if (fd == 9)
                    return -1;
                frac = frac * 10 + (s[i] - '0');
                fd++;
            } else {
                whole = whole * 10 + (s[i] - '0');
                if (whole > 1000000000)
                    return -1;
            }
        } else {
            return -1;
        }
    }
    for (int k = fd < 0 ? 0 : fd; k < 9; k++)
        frac *= 10;
    *ns = whole * 1000000000 + frac;
    return 0;
}

int mkproc_option(struct mkproc_opts *o, const char *name, const char *arg)
{
    if (!strcmp(name, "processes")) {
        o->enabled = true;
    } else if (!strcmp(name, "rundown")) {
        if (!strcmp(arg, "both"))
            o->rundown = MKPROC_RUNDOWN_BOTH;
        else if (!strcmp(arg, "start"))
            o->rundown = MKPROC_RUNDOWN_START;
        else if (!strcmp(arg, "end"))
            o->rundown = MKPROC_RUNDOWN_END;
        else
            return -1;
    } else if (!strcmp(name, "summary")) {
        o->summary_path = arg;
        o->enabled = true;
    } else if (!strcmp(name, "summary-range")) {
        const char *colon = strchr(arg, ':');
        if (!colon)
            return -1;
        o->has_lo = colon > arg;
        o->has_hi = colon[1] != '\0';
        if ((o->has_lo && parse_secs(arg, (size_t)(colon - arg), &o->lo_ns) != 0) ||
            (o->has_hi && parse_secs(colon + 1, strlen(colon + 1), &o->hi_ns) != 0))
            return -1;
    } else if (!strcmp(name, "summary-cpus")) {
        const char *s = arg;
        o->cpu_set = true;
        for (;;) {
            char *end;
            errno = 0;
            unsigned long v = strtoul(s, &end, 10);
            if (errno || end == s || v >= 1024)
                return -1;
            o->cpus[v] = true;
            if (*end == '\0')
                break;
            if (*end != ',')
                return -1;
            s = end + 1;
        }
    } else {
        return -1;
    }
    return 0;
}

/* ---- the model ------------------------------------------------------------------ */

static uint32_t add_proc(struct mkproc *m, uint32_t pid, uint32_t parent, const char *image)
{
    if (m->np == m->pcap) {
        size_t ncap = m->pcap ? m->pcap * 2 : 64;
        struct proc *np = realloc(m->p, ncap * sizeof *np);
        if (!np)
            return NONE;
        m->p = np;
        m->pcap = ncap;
    }
    struct proc *p = &m->p[m->np];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->parent = parent;
    p->image = image;
    p->key = m->next_key;
    m->next_key += 0x6C0u + 0x40u * below(&m->r, 64);
    p->alive = true;
    p->exit_status = 0x103; /* STATUS_PENDING: still running */
    p->session = 1;
    const char *cl = cmdlines[below(&m->r, sizeof cmdlines / sizeof cmdlines[0])];
    snprintf(p->cmdline, sizeof p->cmdline, "%s", cl);
    uint32_t k = below(&m->r, 10);
    if (k == 0) {
        p->flags = 9; /* packaged */
        p->package = "Microsoft.Windows.Search_1.14.0.19041_neutral_neutral_cw5n1h2txyewy";
        p->app_id = "CortanaUI";
    } else if (k == 1) {
        p->flags = 2; /* 32-bit */
    }
    p->no_sid = below(&m->r, 9) == 0;
    p->user = true;
    return (uint32_t)m->np++;
}

static uint32_t add_inst(struct mkproc *m, uint32_t tid, uint32_t proc)
{
    if (m->nt == m->tcap) {
        size_t ncap = m->tcap ? m->tcap * 2 : 256;
        struct inst *nt = realloc(m->t, ncap * sizeof *nt);
        if (!nt)
            return NONE;
        m->t = nt;
        m->tcap = ncap;
    }
    struct inst *t = &m->t[m->nt];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->proc = proc;
    t->alive = true;
    t->last_cpu = -1;
    t->s_last_cpu = -1;
    m->p[proc].nthreads++;
    return (uint32_t)m->nt++;
}

static void describe(const struct mkproc *m, const struct proc *p, struct etlw_process *x)
{
    (void)m;
    memset(x, 0, sizeof *x);
    x->key = 0xFFFFA804E0000000ull + p->key;
    x->dtb = 0x1AD000000ull + (uint64_t)p->pid * 0x1000u;
    x->pid = p->pid;
    x->parent_id = p->parent;
    x->session_id = p->user ? p->session : 0xFFFFFFFFu;
    x->exit_status = p->exit_status;
    x->flags = p->flags;
    x->image = p->image;
    x->command_line = p->cmdline;
    x->package = p->package;
    x->app_id = p->app_id;
    x->no_sid = p->no_sid;
    x->sid_authority = 5;
    if (p->system_sid) {
        x->sid_count = 1;
        x->sid_sub[0] = 18;
    } else {
        x->sid_count = 5;
        x->sid_sub[0] = 21;
        x->sid_sub[1] = 1004336348;
        x->sid_sub[2] = 1177238915;
        x->sid_sub[3] = 682003330;
        x->sid_sub[4] = 1001;
    }
    x->exit_time = 132470000000000000LL + (int64_t)p->pid * 10000;
}

struct mkproc *mkproc_new(struct etlw *w, const struct mkproc_opts *o, uint64_t seed,
                          unsigned nslots, unsigned ncpus, int64_t t0, int64_t freq)
{
    struct mkproc *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->w = w;
    m->o = *o;
    m->r.s = seed * 0x2545F4914F6CDD1Dull + 0xABCDEF;
    m->ncpus = ncpus;
    m->t0 = t0;
    m->freq = freq > 0 ? freq : 10000000;
    m->names = etlw_thread_names(etlw_get_config(w)->build);
    m->nslots = nslots;
    m->slot = calloc(nslots ? nslots : 1, sizeof *m->slot);
    m->cpu = calloc(ncpus, sizeof *m->cpu);
    m->next_pid = 4u * (300u + below(&m->r, 50));
    m->next_small_tid = 8;
    m->next_key = 0x100000;
    if (!m->slot || !m->cpu) {
        mkproc_free(m);
        return NULL;
    }
    /* Idle (PID 0) and System (PID 4): S-1-5-18, no command line. */
    uint32_t idle = add_proc(m, 0, 0, "Idle"), sys = add_proc(m, 4, 0, "System");
    uint32_t ctl = add_proc(m, m->next_pid, 4, "wpr.exe");
    if (idle == NONE || sys == NONE || ctl == NONE) {
        mkproc_free(m);
        return NULL;
    }
    m->next_pid += 4u * (1u + below(&m->r, 5));
    m->controller = ctl;
    for (uint32_t i = 0; i < 2; i++) {
        struct proc *p = &m->p[i];
        p->cmdline[0] = '\0';
        p->package = p->app_id = NULL;
        p->flags = i == 1 ? 4u : 0u;
        p->no_sid = false;
        p->system_sid = true;
        p->user = false;
        p->exit_status = i == 0 ? 0u : 0x103u;
    }
    m->p[ctl].no_sid = false;
    /* The idle thread: instance 0. */
    add_inst(m, 0, idle);
    snprintf(m->t[0].name, sizeof m->t[0].name, "Idle Thread");
    m->p[idle].nthreads = 1;
    /* System threads that never run. */
    for (int i = 0; i < 3; i++) {
        uint32_t k = add_inst(m, m->next_small_tid, sys);
        m->next_small_tid += 4;
        if (k != NONE && i == 0)
            snprintf(m->t[k].name, sizeof m->t[k].name, "Worker-System");
    }
    /* The controller's own thread. */
    add_inst(m, m->next_small_tid, ctl);
    m->next_small_tid += 4;
    unsigned nuser = nslots / 6 > 3 ? nslots / 6 : 3;
    for (unsigned i = 0; i < nuser; i++) {
        const char *img = images[below(&m->r, sizeof images / sizeof images[0])];
        uint32_t parent = i ? m->p[3 + below(&m->r, i)].pid : 4u * 150u;
        if (add_proc(m, m->next_pid, parent, img) == NONE) {
            mkproc_free(m);
            return NULL;
        }
        m->next_pid += 4u * (1u + below(&m->r, 5));
    }
    return m;
}

void mkproc_slot(struct mkproc *m, unsigned i, uint32_t tid)
{
    /* 10% in System, the rest in a user process. */
    uint32_t proc = below(&m->r, 10) == 0 ? 1u : 3u + below(&m->r, (uint32_t)(m->np - 3));
    uint32_t k = add_inst(m, tid, proc);
    if (k == NONE)
        return;
    if (m->names && below(&m->r, 10) < 4)
        snprintf(m->t[k].name, sizeof m->t[k].name, "Pool-%u", i);
    m->slot[i] = k;
}

uint32_t mkproc_user(const struct mkproc *m, int slot)
{
    return slot < 0 ? 0u : m->slot[slot];
}

/* The name a Thread record carries for instance k. */
static const char *tname(const struct mkproc *m, uint32_t k)
{
    return m->names && m->t[k].name[0] ? m->t[k].name : NULL;
}

int mkproc_start(struct mkproc *m, int64_t *end)
{
    unsigned cpu = m->ncpus - 1;
    int64_t ts = m->t0 + 600; /* after mktrace's group-mask events at t0 + 500 */
    struct etlw_process x;
    uint32_t hpid = m->p[m->controller].pid, htid = 0;
    for (size_t k = 0; k < m->nt; k++)
        if (m->t[k].proc == m->controller)
            htid = m->t[k].tid;
    if (m->o.rundown != MKPROC_RUNDOWN_END) {
        for (uint32_t i = 0; i < m->np; i++) {
            describe(m, &m->p[i], &x);
            if (etlw_add_process(m->w, cpu, ts, ETLW_PT_DCSTART, &x, htid, hpid) != 0)
                return -1;
            ts += 40;
            for (uint32_t k = 0; k < m->nt; k++) {
                if (m->t[k].proc != i)
                    continue;
                /* The idle process has one TID-0 thread per CPU. */
                for (unsigned c = 0; c < (k == 0 ? m->ncpus : 1u); c++) {
                    if (etlw_add_thread(m->w, cpu, ts, ETLW_PT_DCSTART, m->p[i].pid, m->t[k].tid,
                                        tname(m, k), m->t[k].tid, m->p[i].pid) != 0)
                        return -1;
                    ts += 40;
                }
            }
        }
    }
    *end = ts;
    return 0;
}

/* Returns an alive thread of process proc other than instance skip, or 0. */
static uint32_t some_thread(const struct mkproc *m, uint32_t proc, uint32_t skip)
{
    for (size_t k = 1; k < m->nt; k++)
        if (m->t[k].proc == proc && m->t[k].alive && k != skip)
            return m->t[k].tid;
    return 0;
}

int mkproc_replace(struct mkproc *m, int slot, unsigned cpu, int64_t ts, uint32_t *tid)
{
    uint32_t old = m->slot[slot];
    struct inst *o = &m->t[old];
    struct proc *op = &m->p[o->proc];
    /* The thread ends (logged by itself), then perhaps its process. */
    if (etlw_add_thread(m->w, cpu, ts, ETLW_PT_END, op->pid, o->tid, tname(m, old), o->tid,
                        op->pid) != 0)
        return -1;
    o->alive = false;
    o->end_ts = ts;
    op->nthreads--;
    if (!o->from_reuse) {
        if (m->ftail == m->fcap) {
            size_t ncap = m->fcap ? m->fcap * 2 : 256;
            uint32_t *q = realloc(m->freeq, ncap * sizeof *q);
            if (!q)
                return -1;
            m->freeq = q;
            m->fcap = ncap;
        }
        m->freeq[m->ftail++] = old;
    }
    if (op->nthreads == 0 && op->user) {
        op->alive = false;
        op->ended = true;
        op->exit_status = below(&m->r, 4) == 0 ? 0xC000013Au : 0u;
        struct etlw_process x;
        describe(m, op, &x);
        if (etlw_add_process(m->w, cpu, ts, ETLW_PT_END, &x, o->tid, op->pid) != 0)
            return -1;
    }
    /* The new thread's process: a new one, or a live one. */
    size_t nalive = 0;
    for (size_t i = 3; i < m->np; i++)
        nalive += m->p[i].alive;
    uint32_t q;
    if (nalive == 0 || below(&m->r, 100) < 25) {
        uint32_t parent = m->controller;
        if (nalive) {
            uint32_t pick = below(&m->r, (uint32_t)nalive);
            for (size_t i = 3; i < m->np; i++)
                if (m->p[i].alive && pick-- == 0)
                    parent = (uint32_t)i;
        }
        const char *img = images[below(&m->r, sizeof images / sizeof images[0])];
        q = add_proc(m, m->next_pid, m->p[parent].pid, img);
        if (q == NONE)
            return -1;
        m->next_pid += 4u * (1u + below(&m->r, 5));
        struct etlw_process x;
        describe(m, &m->p[q], &x);
        /* Logged in the parent's context. */
        if (etlw_add_process(m->w, cpu, ts, ETLW_PT_START, &x, some_thread(m, parent, NONE),
                             m->p[parent].pid) != 0)
            return -1;
    } else if (below(&m->r, 20) == 0) {
        q = 1; /* System */
    } else {
        uint32_t pick = below(&m->r, (uint32_t)nalive);
        q = 3;
        for (size_t i = 3; i < m->np; i++)
            if (m->p[i].alive && pick-- == 0)
                q = (uint32_t)i;
    }
    /* Its TID: often one that ended earlier in another process. */
    uint32_t newtid = *tid;
    bool reused = false;
    if (below(&m->r, 100) < 40) {
        for (size_t i = m->fhead; i < m->ftail; i++) {
            struct inst *e = &m->t[m->freeq[i]];
            if (!e->taken && e->end_ts < ts && e->proc != q) {
                e->taken = true;
                newtid = e->tid;
                reused = true;
                break;
            }
        }
        while (m->fhead < m->ftail && m->t[m->freeq[m->fhead]].taken)
            m->fhead++;
    }
    uint32_t k = add_inst(m, newtid, q);
    if (k == NONE)
        return -1;
    m->t[k].from_reuse = reused;
    /* Thread Start is logged by a thread of the new process, or of its parent. */
    uint32_t ctid = some_thread(m, q, k), cpid = m->p[q].pid;
    if (ctid == 0) {
        for (size_t i = 0; i < m->np; i++)
            if (m->p[i].pid == m->p[q].parent)
                ctid = some_thread(m, (uint32_t)i, k);
        cpid = m->p[q].parent;
    }
    if (etlw_add_thread(m->w, cpu, ts, ETLW_PT_START, m->p[q].pid, newtid, NULL, ctid, cpid) != 0)
        return -1;
    if (m->names && below(&m->r, 10) < 3) {
        snprintf(m->t[k].name, sizeof m->t[k].name, "Worker-%u", (unsigned)k);
        if (etlw_add_thread_name(m->w, cpu, ts, m->p[q].pid, newtid, m->t[k].name) != 0)
            return -1;
    }
    m->slot[slot] = k;
    *tid = newtid;
    return 0;
}

int mkproc_finish(struct mkproc *m, int64_t ts)
{
    if (m->o.rundown == MKPROC_RUNDOWN_START)
        return 0;
    struct etlw_process x;
    for (uint32_t i = 0; i < m->np; i++) {
        struct proc *p = &m->p[i];
        if (!p->alive)
            continue;
        for (uint32_t k = 0; k < m->nt; k++) {
            if (m->t[k].proc != i || !m->t[k].alive)
                continue;
            for (unsigned c = 0; c < (k == 0 ? m->ncpus : 1u); c++) {
                if (etlw_add_thread(m->w, 0, ts, ETLW_PT_DCEND, p->pid, m->t[k].tid, tname(m, k),
                                    m->t[k].tid, p->pid) != 0)
                    return -1;
                ts += 10;
            }
        }
        describe(m, p, &x);
        if (etlw_add_process(m->w, 0, ts, ETLW_PT_DCEND, &x, 0, m->p[m->controller].pid) != 0)
            return -1;
        ts += 10;
    }
    /* Exited processes whose objects live on: Defunct, with their key. */
    for (uint32_t i = 0; i < m->np; i++) {
        if (!m->p[i].ended || (i & 1))
            continue;
        describe(m, &m->p[i], &x);
        if (etlw_add_defunct(m->w, 0, ts, &x) != 0)
            return -1;
        ts += 10;
    }
    return 0;
}

/* ---- the truth ------------------------------------------------------------------------ */

/* Nanoseconds since t0, truncated, in 64 bits: whole seconds and the rest
 * apart (the writer's frequencies are below 9.2 GHz). */
static int64_t to_ns(const struct mkproc *m, int64_t ts)
{
    int64_t d = ts - m->t0;
    return d / m->freq * 1000000000 + d % m->freq * 1000000000 / m->freq;
}

static int64_t clip(const struct mkproc *m, int64_t a, int64_t b)
{
    if (m->o.has_lo && a < m->o.lo_ns)
        a = m->o.lo_ns;
    if (m->o.has_hi && b > m->o.hi_ns)
        b = m->o.hi_ns;
    return b >= a ? b - a : -1;
}

/* Length in ns of the span between two raw timestamps, clipped; 0 if none. */
static int64_t span_ns(const struct mkproc *m, int64_t a, int64_t b)
{
    int64_t d = clip(m, to_ns(m, a), to_ns(m, b));
    return d > 0 ? d : 0;
}

/* DPC/ISR pieces on processor c: its time, and the process's of the thread a
 * reader knows was running there. Returns their clipped sum. */
static int64_t interrupts(struct mkproc *m, struct cpu *c, const struct mkproc_piece *pc, uint32_t n)
{
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t d = span_ns(m, pc[i].s, pc[i].e);
        if (pc[i].isr)
            c->isr += d;
        else
            c->dpc += d;
        if (c->known && pc[i].seg == c->seg) {
            struct inst *t = &m->t[c->inst];
            if (pc[i].isr)
                t->isr += d;
            else
                t->dpc += d;
        }
        sum += d;
    }
    return sum;
}

static int push_value(int64_t **v, size_t *n, size_t *cap, int64_t x)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        int64_t *nv = realloc(*v, ncap * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
        *cap = ncap;
    }
    (*v)[(*n)++] = x;
    return 0;
}

static void tally(struct inst *t, const char *name)
{
    for (size_t i = 0; i < t->nrd; i++) {
        if (!strcmp(t->rd[i].name, name)) {
            t->rd[i].n++;
            return;
        }
    }
    if (t->nrd == t->rdcap) {
        size_t ncap = t->rdcap ? t->rdcap * 2 : 4;
        struct readier *nr = realloc(t->rd, ncap * sizeof *nr);
        if (!nr)
            return;
        t->rd = nr;
        t->rdcap = ncap;
    }
    t->rd[t->nrd++] = (struct readier){name, 1};
}

/* Settled figures of a switch-in of thread t (before its switch-out is forgotten). */
static void settle_in(struct mkproc *m, struct inst *t, const struct etlw_expect *e,
                      const struct mkproc_ext *x, int64_t ns, bool counts)
{
    if (counts && !(x && x->out_lost)) {
        if (t->out_kind == OUT_WAIT) {
            t->sn.waits++;
            if (t->out_has_wr)
                t->sn.wr[t->out_wr]++;
            int64_t d = clip(m, t->out_at, ns);
            t->sn.wait_time += d > 0 ? d : 0;
        } else if (t->out_kind == OUT_READY) {
            int64_t d = clip(m, t->out_at, ns);
            t->sn.ready_time += d > 0 ? d : 0;
        }
    }
    if (counts) {
        if (x && x->has_ready) {
            t->sr.ready_time += span_ns(m, x->ready_from, e->ts);
            push_value(&t->rv, &t->nrv, &t->rvcap, ns - to_ns(m, x->ready_from));
        }
        if (x && x->has_waited) {
            t->sr.waits++;
            if (t->out_has_wr)
                t->sr.wr[t->out_wr]++;
            t->sr.wait_time += span_ns(m, x->wait_from, x->wait_to);
        }
        if (x && x->readier)
            tally(t, m->p[m->t[x->readier_user].proc].image);
        if (t->s_last_cpu >= 0 && t->s_last_cpu != e->cpu)
            t->sn.migrations++;
    }
    t->s_last_cpu = e->cpu;
}

/* Adds one expected row to the summary. */
static void account(struct mkproc *m, const struct etlw_expect *e, const struct mkproc_ext *x)
{
    if (e->cpu >= m->ncpus)
        return;
    int64_t ns = to_ns(m, e->ts);
    struct cpu *c = &m->cpu[e->cpu];
    bool cpu_ok = !m->o.cpu_set || (e->cpu < 1024 && m->o.cpus[e->cpu]);
    bool in = (!m->o.has_lo || ns >= m->o.lo_ns) && (!m->o.has_hi || ns <= m->o.hi_ns);
    bool counts = cpu_ok && in;
    c->seen = true;
    if (counts)
        c->switches++;
    int64_t intr = x && cpu_ok ? interrupts(m, c, x->pc, x->npc) : 0;
    if (c->known && c->inst == e->old_user && c->seg == e->seg) {
        struct inst *t = &m->t[c->inst];
        int64_t d = cpu_ok ? clip(m, c->since, ns) : -1;
        if (d >= 0) {
            d -= intr; /* DPC/ISR time is not the thread's */
            t->f.cpu_time += d;
            t->f.runs++;
            if (d > t->f.max_run)
                t->f.max_run = d;
            if (t->tid == 0) {
                c->idle += d;
                if (m->settled && (e->has & ETLW_HAS_PREV_CSTATE)) {
                    c->cst[e->prev_cstate] += d;
                    c->cst_seen[e->prev_cstate] = true;
                }
            } else {
                c->busy += d;
            }
        }
    }
    if (e->old_tid != 0) {
        struct inst *t = &m->t[e->old_user];
        t->row = true;
        t->out_at = ns;
        t->out_counts = cpu_ok;
        t->out_kind = OUT_NONE;
        t->s_last_cpu = e->cpu;
        t->out_has_wr = (e->has & ETLW_HAS_OLD_STATE) && (e->has & ETLW_HAS_OLD_WAIT_REASON) &&
                        e->old_state == ETLW_STATE_WAITING;
        t->out_wr = e->old_wait_reason;
        if (e->has & ETLW_HAS_OLD_STATE) {
            unsigned st = e->old_state;
            if (st == ETLW_STATE_WAITING) {
                t->out_kind = OUT_WAIT;
                if (counts) {
                    t->f.waits++;
                    if (e->has & ETLW_HAS_OLD_WAIT_REASON)
                        t->f.wr[e->old_wait_reason]++;
                }
            } else if (st == ETLW_STATE_READY || st == ETLW_STATE_RUNNING ||
                       st == ETLW_STATE_STANDBY || st == ETLW_STATE_DEFERRED_READY) {
                t->out_kind = OUT_READY;
            }
        }
    }
    c->known = false;
    c->seg = e->seg;
    if (!(e->has & ETLW_HAS_NEW_TID))
        return;
    struct inst *t = &m->t[e->new_user];
    t->row = true;
    if (counts)
        t->f.switch_ins++;
    if (t->out_kind != OUT_NONE && t->out_counts) {
        int64_t d = clip(m, t->out_at, ns);
        if (d >= 0) {
            if (t->out_kind == OUT_WAIT)
                t->f.wait_time += d;
            else
                t->f.ready_time += d;
        }
    }
    if (m->settled && e->new_tid != 0)
        settle_in(m, t, e, x, ns, counts);
    t->out_kind = OUT_NONE;
    if (e->new_tid != 0) {
        if (t->last_cpu >= 0 && t->last_cpu != e->cpu && counts)
            t->f.migrations++;
        t->last_cpu = e->cpu;
    }
    c->known = true;
    c->inst = e->new_user;
    c->since = ns;
}

void mkproc_settle(struct mkproc *m) { m->settled = true; }

void mkproc_presence(struct mkproc *m, bool ready, bool intr)
{
    m->any_ready = ready;
    m->any_intr = intr;
}

void mkproc_who(const struct mkproc *m, uint32_t user, uint32_t *pid, const char **image)
{
    const struct proc *p = &m->p[m->t[user].proc];
    *pid = p->pid;
    *image = p->image;
}

void mkproc_tail(struct mkproc *m, unsigned cpu, const struct mkproc_piece *pc, uint32_t n)
{
    if (cpu >= m->ncpus || (m->o.cpu_set && (cpu >= 1024 || !m->o.cpus[cpu])))
        return;
    interrupts(m, &m->cpu[cpu], pc, n);
}

size_t mkproc_row(struct mkproc *m, const struct etlw_expect *e, char *buf, size_t cap)
{
    return mkproc_row_ext(m, e, NULL, buf, cap);
}

size_t mkproc_row_ext(struct mkproc *m, const struct etlw_expect *e, const struct mkproc_ext *x,
                      char *buf, size_t cap)
{
    account(m, e, x);
    const struct inst *o = &m->t[e->old_user];
    int n;
    if (e->has & ETLW_HAS_NEW_TID) {
        const struct inst *w = &m->t[e->new_user];
        n = snprintf(buf, cap, ",%u,%s,%u,%s", (unsigned)m->p[o->proc].pid, m->p[o->proc].image,
                     (unsigned)m->p[w->proc].pid, m->p[w->proc].image);
    } else {
        n = snprintf(buf, cap, ",%u,%s,,", (unsigned)m->p[o->proc].pid, m->p[o->proc].image);
    }
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Writes ns as seconds with nine decimals. */
static void put_dur(FILE *f, int64_t ns)
{
    fprintf(f, ",%lld.%09lld", (long long)(ns / 1000000000), (long long)(ns % 1000000000));
}

static void put_fig(FILE *f, const struct fig *g)
{
    put_dur(f, g->cpu_time);
    fprintf(f, ",%llu", (unsigned long long)g->switch_ins);
    if (g->runs) {
        put_dur(f, g->cpu_time / (int64_t)g->runs);
        put_dur(f, g->max_run);
    } else {
        fputs(",,", f);
    }
    put_dur(f, g->wait_time);
    fprintf(f, ",%llu", (unsigned long long)g->waits);
    put_dur(f, g->ready_time);
    fprintf(f, ",%llu,,,", (unsigned long long)g->migrations);
    /* Reasons: most first, then by value. */
    bool done[256] = { false }, first = true;
    for (;;) {
        int best = -1;
        for (int r = 0; r < 256; r++)
            if (!done[r] && g->wr[r] && (best < 0 || g->wr[r] > g->wr[best]))
                best = r;
        if (best < 0)
            break;
        done[best] = true;
        const char *name = etlw_wait_reason_name((unsigned)best);
        if (name)
            fprintf(f, "%s%s:%u", first ? "" : " ", name, (unsigned)g->wr[best]);
        else
            fprintf(f, "%s%d:%u", first ? "" : " ", best, (unsigned)g->wr[best]);
        first = false;
    }
}

static void fig_add(struct fig *a, const struct fig *b)
{
    a->cpu_time += b->cpu_time;
    a->wait_time += b->wait_time;
    a->ready_time += b->ready_time;
    if (b->max_run > a->max_run)
        a->max_run = b->max_run;
    a->runs += b->runs;
    a->switch_ins += b->switch_ins;
    a->waits += b->waits;
    a->migrations += b->migrations;
    for (int r = 0; r < 256; r++)
        a->wr[r] += b->wr[r];
}

struct prow {
    uint32_t proc, threads;
    struct fig f, sn, sr;
    int64_t dpc, isr;
};

/* The figures printed: in the settled summary, waits and ready time by
 * their ends (with ReadyThread events: from new_ready and new_waited). */
static void put_figs(FILE *f, const struct mkproc *m, const struct fig *g, const struct fig *sn,
                     const struct fig *sr)
{
    if (!m->settled) {
        put_fig(f, g);
        return;
    }
    static struct fig o;
    const struct fig *v = m->any_ready ? sr : sn;
    o = *g;
    o.wait_time = v->wait_time;
    o.waits = v->waits;
    o.ready_time = v->ready_time;
    memcpy(o.wr, v->wr, sizeof o.wr);
    o.migrations = sn->migrations;
    put_fig(f, &o);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* ready_p50, ready_p90, ready_p99, ready_max: nearest rank over v (sorted here). */
static void put_pct(FILE *f, int64_t *v, size_t n)
{
    if (n == 0) {
        fputs(",,,,", f);
        return;
    }
    qsort(v, n, sizeof *v, cmp_i64);
    static const unsigned pct[] = {50, 90, 99};
    for (int i = 0; i < 3; i++) {
        size_t rank = (pct[i] * n + 99) / 100; /* ceil(p/100 * n), >= 1 */
        put_dur(f, v[rank - 1]);
    }
    put_dur(f, v[n - 1]);
}

static int cmp_readier(const void *a, const void *b)
{
    const struct readier *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* top_readiers: up to three "name:count", most first, ties by name. */
static void put_readiers(FILE *f, struct inst *t)
{
    if (t->nrd > 1)
        qsort(t->rd, t->nrd, sizeof *t->rd, cmp_readier);
    fputc(',', f);
    for (size_t i = 0; i < t->nrd && i < 3; i++)
        fprintf(f, "%s%s:%u", i ? " " : "", t->rd[i].name, (unsigned)t->rd[i].n);
}

static void put_intr(FILE *f, const struct mkproc *m, int64_t dpc, int64_t isr)
{
    if (m->any_intr) {
        put_dur(f, dpc);
        put_dur(f, isr);
    } else {
        fputs(",,", f);
    }
}

static const struct mkproc *sort_m;

static int cmp_prow(const void *a, const void *b)
{
    const struct prow *x = a, *y = b;
    if (x->f.cpu_time != y->f.cpu_time)
        return x->f.cpu_time > y->f.cpu_time ? -1 : 1;
    uint32_t px = sort_m->p[x->proc].pid, py = sort_m->p[y->proc].pid;
    return px < py ? -1 : px > py;
}

static int cmp_inst(const void *a, const void *b)
{
    const struct inst *x = &sort_m->t[*(const uint32_t *)a], *y = &sort_m->t[*(const uint32_t *)b];
    if (x->f.cpu_time != y->f.cpu_time)
        return x->f.cpu_time > y->f.cpu_time ? -1 : 1;
    uint32_t px = sort_m->p[x->proc].pid, py = sort_m->p[y->proc].pid;
    if (px != py)
        return px < py ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int mkproc_write_summary(struct mkproc *m)
{
    if (!m->o.summary_path)
        return 0;
    FILE *f = fopen(m->o.summary_path, "w");
    if (!f)
        return -1;
    fputs("scope,cpu,pid,tid,process,thread_name,threads,cpu_time,switch_ins,mean_run,max_run,"
          "wait_time,waits,ready_time,migrations,busy_time,idle_time,wait_reasons", f);
    fputs(m->settled ? MKPROC_SUMMARY_EXTRA "\n" : "\n", f);
    struct prow *pr = calloc(m->np, sizeof *pr);
    uint32_t *ti = malloc((m->nt ? m->nt : 1) * sizeof *ti);
    if (!pr || !ti) {
        free(pr);
        free(ti);
        fclose(f);
        return -1;
    }
    size_t n = 0;
    for (uint32_t k = 0; k < m->nt; k++) {
        if (!m->t[k].row)
            continue;
        ti[n++] = k;
        pr[m->t[k].proc].proc = m->t[k].proc;
        pr[m->t[k].proc].threads++;
        fig_add(&pr[m->t[k].proc].f, &m->t[k].f);
        fig_add(&pr[m->t[k].proc].sn, &m->t[k].sn);
        fig_add(&pr[m->t[k].proc].sr, &m->t[k].sr);
        pr[m->t[k].proc].dpc += m->t[k].dpc;
        pr[m->t[k].proc].isr += m->t[k].isr;
    }
    size_t np = 0;
    for (uint32_t i = 0; i < m->np; i++)
        if (pr[i].threads)
            pr[np++] = pr[i];
    sort_m = m;
    qsort(pr, np, sizeof *pr, cmp_prow);
    qsort(ti, n, sizeof *ti, cmp_inst);
    for (size_t i = 0; i < np; i++) {
        const struct proc *p = &m->p[pr[i].proc];
        fprintf(f, "process,,%u,,%s,,%u", (unsigned)p->pid, p->image, (unsigned)pr[i].threads);
        put_figs(f, m, &pr[i].f, &pr[i].sn, &pr[i].sr);
        if (m->settled) {
            size_t nv = 0, cv = 0;
            int64_t *v = NULL;
            for (uint32_t k = 0; k < m->nt; k++)
                if (m->t[k].row && m->t[k].proc == pr[i].proc)
                    for (size_t j = 0; j < m->t[k].nrv; j++)
                        push_value(&v, &nv, &cv, m->t[k].rv[j]);
            put_pct(f, v, nv);
            free(v);
            fputc(',', f); /* top_readiers: threads only */
            put_intr(f, m, pr[i].dpc, pr[i].isr);
            fputc(',', f);
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < n; i++) {
        const struct inst *t = &m->t[ti[i]];
        const struct proc *p = &m->p[t->proc];
        fprintf(f, "thread,,%u,%u,%s,%s,", (unsigned)p->pid, (unsigned)t->tid, p->image,
                m->names ? t->name : "");
        put_figs(f, m, &t->f, &t->sn, &t->sr);
        if (m->settled) {
            struct inst *w = &m->t[ti[i]];
            put_pct(f, w->rv, w->nrv);
            put_readiers(f, w);
            fputs(",,,", f); /* dpc_time, isr_time: processes and processors */
        }
        fputc('\n', f);
    }
    for (unsigned c = 0; c < m->ncpus; c++) {
        const struct cpu *x = &m->cpu[c];
        if (!x->seen || (m->o.cpu_set && !m->o.cpus[c]))
            continue;
        fprintf(f, "cpu,%u,,,,,,,%llu,,,,,,", c, (unsigned long long)x->switches);
        put_dur(f, x->busy);
        put_dur(f, x->idle);
        fputc(',', f);
        if (m->settled) {
            fputs(",,,,,", f);
            put_intr(f, m, x->dpc, x->isr);
            fputc(',', f);
            bool first = true;
            for (int s = 0; s < 256; s++) {
                if (!x->cst_seen[s])
                    continue;
                fprintf(f, "%sC%d:%lld.%09lld", first ? "" : " ", s, (long long)(x->cst[s] / 1000000000),
                        (long long)(x->cst[s] % 1000000000));
                first = false;
            }
        }
        fputc('\n', f);
    }
    free(pr);
    free(ti);
    return fclose(f) == 0 ? 0 : -1;
}

void mkproc_free(struct mkproc *m)
{
    if (!m)
        return;
    free(m->p);
    for (size_t k = 0; m->t && k < m->nt; k++) {
        free(m->t[k].rv);
        free(m->t[k].rd);
    }
    free(m->t);
    free(m->slot);
    free(m->freeq);
    free(m->cpu);
    free(m);
}
