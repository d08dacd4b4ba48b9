/*
 * mktrace: writes a pseudo-random but reproducible ETL trace full of context
 * switches (via etlw) and the switches a reader must decode back, as CSV.
 *
 *   mktrace [options] OUT.etl EXPECTED.csv      (EXPECTED.csv "-": not written)
 *
 * The schedule is generated in global time order and streamed: memory does not
 * grow with --switches (unless EXPECTED.csv is written and one CPU stays quiet
 * for a long stretch, which only delays rows a while). See etlw.h for the exact
 * encoding and expectation rules. --encoding=mixed switches each CPU between
 * runs of CSwitch events and runs of compact batches (20..2019 switches each).
 *
 * --ready, --dpc and --settled (mkready.h) change the schedule: some CPUs
 * run a thread when the trace starts, a thread switched out Waiting becomes
 * runnable only after its wake-up (one ReadyThread, two - the first flagged
 * kernel stack or process swapped out - or none), a new thread and, rarely, a
 * preempted one are readied before they run. Wake-ups are handled in global
 * time order with the switches; the ReadyThread goes on any CPU where it can
 * lie strictly between two switches, readied by whatever runs there.
 *
 * Build: cc -std=c11 -O2 -o mktrace (every .c file of tests/gen)
 */
#define _POSIX_C_SOURCE 200809L

#include "etlw.h"
#include "mkproc.h"
#include "mkready.h"
#include "mkrng.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ENC_CSWITCH, ENC_COMPACT, ENC_MIXED };

struct thr {
    uint32_t tid;
    int8_t base;
    uint8_t ideal;
    bool running;
    bool blocked;        /* waiting for its wake-up (--ready, --dpc, --settled) */
    int64_t elig_after;  /* may be switched in only after this time */
};

/* A thread's coming wake-up: a ReadyThread, or none (it just becomes runnable). */
enum { WAKE_READY, WAKE_READY_TWICE, WAKE_SILENT };

struct wake {
    int64_t t;
    uint64_t seq;
    int slot;
    uint8_t kind, flag;
};

struct heap {
    struct wake *a;
    size_t n, cap;
    uint64_t seq;
};

static bool wake_before(const struct wake *x, const struct wake *y)
{
    return x->t != y->t ? x->t < y->t : x->seq < y->seq;
}

static int heap_push(struct heap *h, int64_t t, int slot, uint8_t kind, uint8_t flag)
{
    if (h->n == h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 64;
        struct wake *na = realloc(h->a, ncap * sizeof *na);
        if (!na)
            return -1;
        h->a = na;
        h->cap = ncap;
    }
    size_t i = h->n++;
    h->a[i] = (struct wake){t, h->seq++, slot, kind, flag};
    while (i > 0 && wake_before(&h->a[i], &h->a[(i - 1) / 2])) {
        struct wake x = h->a[i];
        h->a[i] = h->a[(i - 1) / 2];
        h->a[(i - 1) / 2] = x;
        i = (i - 1) / 2;
    }
    return 0;
}

static struct wake heap_pop(struct heap *h)
{
    struct wake top = h->a[0];
    h->a[0] = h->a[--h->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, b = i;
        if (l < h->n && wake_before(&h->a[l], &h->a[b]))
            b = l;
        if (r < h->n && wake_before(&h->a[r], &h->a[b]))
            b = r;
        if (b == i)
            break;
        struct wake x = h->a[i];
        h->a[i] = h->a[b];
        h->a[b] = x;
        i = b;
    }
    return top;
}

struct gcpu {
    int cur; /* thread index, -1 = idle */
    int64_t next_ts;
    int enc; /* ENC_CSWITCH or ENC_COMPACT */
    uint32_t run_left;
};

struct csv {
    FILE *f;
    uint64_t rows;
    struct mkproc *pm; /* --processes: process columns and the summary */
    struct mkr *mk;    /* --ready, --dpc, --settled: analysis columns */
};

static void csv_row(void *ctx, const struct etlw_expect *row)
{
    struct csv *c = ctx;
    if (c->mk) {
        mkr_row(c->mk, row);
        return;
    }
    char line[512];
    size_t n = etlw_format_expect(row, line, sizeof line);
    if (c->pm && n < sizeof line - 2)
        n += mkproc_row(c->pm, row, line + n, sizeof line - 1 - n);
    if (n >= sizeof line - 1)
        n = sizeof line - 2;
    if (!c->f)
        return;
    line[n] = '\n';
    fwrite(line, 1, n + 1, c->f);
    c->rows++;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mktrace [options] OUT.etl EXPECTED.csv   (EXPECTED.csv '-' or /dev/null: skipped)\n"
            "  --seed=N              PRNG seed (default 1)\n"
            "  --cpus=N              processors (default 4)\n"
            "  --switches=N          total context switches (default 1000)\n"
            "  --threads=N           thread pool size (default 40, at least 2*cpus)\n"
            "  --ptr=4|8             pointer size of the session (default 8)\n"
            "  --buffer-size=BYTES   buffer size, multiple of 8, >= 1536 (default 8192)\n"
            "  --encoding=cswitch|compact|mixed   (default cswitch; mixed = runs of each per CPU)\n"
            "  --cswitch-version=2|3|4            (default from build: 4 for >= 16299)\n"
            "  --build=N             OS build, ProviderVersion (default 19041)\n"
            "  --max-wait-reason=N   compact OldThreadStateWr bias (default 0x27 for build <= 19041, else 0x2A)\n"
            "  --first-ts=first|prev compact FirstTimeStamp: first switch (first delta 0) or previous switch\n"
            "  --pmc=N               0-7 PMC counters on every PERFINFO event\n"
            "  --pebs                PEBS index item on 0x0524 events\n"
            "  --circular            store the buffers in wrapped circular order\n"
            "  --compress            compressed buffers (Plain LZ77), layout version 2.0\n"
            "  --lost-cpu=N          flag one mid-trace buffer of CPU N with BUFFER_LOST\n"
            "  --misc-rate=N         one non-switch event per N switches on average (default 64, 0 none)\n"
            "  --kinds=N             N events of N HookIds (0x0100 up) early on CPU 0, each with a\n"
            "                        3-byte payload: too short for the DiskIo layouts among them\n"
            "  --hole=N              80 bytes zeroed in the middle of the events of the N-th event\n"
            "                        buffer written, before compression (EXPECTED.csv keeps them)\n"
            "  --quiet               no summary on stderr\n"
            "  --processes           Process and Thread events (rundowns, starts, ends, TID reuse)\n"
            "                        and the old/new process columns in EXPECTED.csv\n"
            "  --rundown=both|start|end  which DCStart/DCEnd rundowns (default both)\n"
            "  --summary=FILE        expected --summary CSV (implies --processes)\n"
            "  --summary-range=A:B   ... as with --range=A:B (seconds, either side may be empty)\n"
            "  --summary-cpus=LIST   ... as with --cpu=LIST (comma-separated numbers)\n"
            "  --ready               ReadyThread events (waits end with one, none or two), and the\n"
            "                        analysis columns (new_since_last ... new_run) in EXPECTED.csv\n"
            "  --dpc                 DPC and ISR events (some ISRs nested in DPCs, ReadyThreads from DPCs)\n"
            "  --settled             the analysis columns and the settled summary without those events\n"
            "                        (--ready and --dpc imply it; see mkproc.h)\n");
}

static int parse_u64(const char *name, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "mktrace: bad --%s '%s' (expected %llu..%llu)\n", name, s, (unsigned long long)lo,
                (unsigned long long)hi);
        return -1;
    }
    *out = v;
    return 0;
}

static void os_version(uint32_t build, uint8_t *major, uint8_t *minor)
{
    if (build >= 10240) {
        *major = 10;
        *minor = 0;
    } else if (build >= 9600) {
        *major = 6;
        *minor = 3;
    } else if (build >= 9200) {
        *major = 6;
        *minor = 2;
    } else if (build >= 7600) {
        *major = 6;
        *minor = 1;
    } else {
        *major = 6;
        *minor = 0;
    }
}

static uint32_t kernel_event_version(uint32_t build)
{
    if (build >= 19041)
        return 80;
    if (build >= 17763)
        return 70;
    if (build >= 14393)
        return 65;
    if (build >= 10240)
        return 60;
    if (build >= 9600)
        return 53;
    if (build >= 9200)
        return 42;
    return 25;
}

/* Time to the next switch on a CPU, in clock ticks (10 MHz by default). */
static int64_t next_delta(struct rng *r)
{
    uint32_t x = below(r, 100000);
    if (x < 100)
        return 0; /* same timestamp as the previous switch */
    if (x < 60000)
        return (int64_t)range(r, 1, 2000);
    if (x < 85000)
        return (int64_t)range(r, 2001, 16383); /* still IDLE_SHORT */
    if (x < 93000)
        return (int64_t)range(r, 16384, 131071); /* LITE limit */
    if (x < 99000)
        return (int64_t)range(r, 131072, (1u << 22));
    if (x < 99900)
        return (int64_t)range(r, (1u << 22) + 1u, (1u << 27));
    if (x < 99990)
        return (int64_t)range(r, (1u << 27) + 1u, (1u << 30) - 1u);
    return (int64_t)range(r, (1u << 30), (1u << 30) + (1u << 29)); /* closes a compact batch */
}

static uint8_t pick_wait_reason(struct rng *r, unsigned limit)
{
    static const uint8_t common[] = {0, 6, 15, 13, 16, 37, 4, 11, 27, 28, 8, 40, 17, 29};
    if (below(r, 10) < 7) {
        uint8_t v = common[below(r, (uint32_t)(sizeof common))];
        if (v < limit)
            return v;
    }
    return (uint8_t)below(r, limit);
}

static int pick_free(struct rng *r, struct thr *t, int n, int64_t ts)
{
    int start = (int)below(r, (uint32_t)n);
    for (int k = 0; k < n; k++) {
        int i = (start + k) % n;
        if (!t[i].running && !t[i].blocked && t[i].elig_after < ts)
            return i;
    }
    return -1;
}

/* How long a waiting thread waits for its wake-up, in clock ticks. */
static int64_t wake_delay(struct rng *r)
{
    static const struct {
        uint32_t below;
        uint64_t lo, hi;
    } band[] = {{60, 1, 3000}, {90, 3001, 60000}, {98, 60001, 2000000}, {100, 2000001, 50000000}};
    uint32_t x = below(r, 100);
    unsigned i = 0;
    while (x >= band[i].below)
        i++;
    return (int64_t)range(r, band[i].lo, band[i].hi);
}

/* The ReadyThread of a wake-up: on a CPU where it may go (any CPU, whatever
 * runs there); 1 when none may take it at that time, 0, or -1. */
static int place_ready(struct mkr *mk, struct rng *r, unsigned ncpus, const struct wake *wk,
                       const struct thr *t)
{
    unsigned start = below(r, ncpus);
    for (int pass = 0; pass < 2; pass++) {
        uint8_t flag = pass ? (uint8_t)(wk->flag & ~MKR_FLAG_DPC) : wk->flag;
        if (pass && flag == wk->flag)
            break;
        for (unsigned k = 0; k < ncpus; k++) {
            unsigned cpu = (start + k) % ncpus;
            if (mkr_can_ready(mk, cpu, wk->t, (flag & MKR_FLAG_DPC) != 0))
                return mkr_ready(mk, cpu, wk->t, wk->slot, t->tid, flag);
        }
    }
    return 1;
}

/* Handles the wake-ups due by ts. 0, or -1. */
static int wake_up(struct heap *h, struct mkr *mk, struct rng *r, unsigned ncpus, struct thr *thr, int64_t ts)
{
    while (h->n && h->a[0].t <= ts) {
        struct wake wk = heap_pop(h);
        struct thr *t = &thr[wk.slot];
        if (wk.kind != WAKE_SILENT) {
            int rc = place_ready(mk, r, ncpus, &wk, t);
            if (rc < 0)
                return -1;
            if (rc > 0) { /* try a tick later */
                if (heap_push(h, wk.t + 1, wk.slot, wk.kind, wk.flag) != 0)
                    return -1;
                continue;
            }
            if (wk.kind == WAKE_READY_TWICE) { /* swapped out: once more when back */
                uint8_t flag = below(r, 100) < 30 ? MKR_FLAG_DPC : 0;
                if (heap_push(h, wk.t + (int64_t)range(r, 1, 3000), wk.slot, WAKE_READY, flag) != 0)
                    return -1;
                continue;
            }
        }
        t->blocked = false;
        t->elig_after = wk.t;
    }
    return 0;
}

/* The wake-up of a thread that has just been switched out (or started) at ts. */
static int plan_wake(struct heap *h, struct rng *r, struct thr *t, int slot, int64_t ts, int64_t floor,
                     bool ready, int what)
{
    int64_t at = ts + wake_delay(r);
    uint32_t x = below(r, 100);
    uint8_t kind, flag = below(r, 100) < 30 ? MKR_FLAG_DPC : 0;
    if (what == 0) { /* waiting: one ReadyThread, two, or none */
        kind = !ready || x < 12 ? WAKE_SILENT : x < 22 ? WAKE_READY_TWICE : WAKE_READY;
        if (kind == WAKE_READY_TWICE)
            flag = below(r, 2) ? MKR_FLAG_SWAPPED : MKR_FLAG_STACK;
    } else if (ready && x < (what == 1 ? 3u : 60u)) { /* preempted (rarely), new thread */
        kind = WAKE_READY;
        at = ts + (int64_t)range(r, 1, 5000);
        if (what == 1)
            flag = 0;
    } else {
        t->blocked = false;
        t->elig_after = ts - 1;
        return 0;
    }
    if (kind != WAKE_SILENT && at <= floor)
        at = floor + 1 + (int64_t)below(r, 5000);
    t->blocked = true;
    return heap_push(h, at, slot, kind, flag);
}

static uint32_t new_tid(struct rng *r, uint32_t *next)
{
    *next += 4u * (1u + below(r, 8));
    return *next;
}

static int8_t new_base(struct rng *r)
{
    uint32_t x = below(r, 100);
    if (x < 88)
        return (int8_t)range(r, 8, 15);
    if (x < 95)
        return (int8_t)range(r, 1, 7);
    return (int8_t)range(r, 16, 31); /* real-time */
}

int main(int argc, char **argv)
{
    uint64_t seed = 1, ncpus = 4, nsw = 1000, ptr = 8, bufsize = 8192, build = 19041, pmc = 0;
    uint64_t nthreads = 40, misc_rate = 64, kinds = 0, hole = 0, v;
    int64_t lost_cpu = -1;
    long cswver = -1, mwr = -1;
    int enc = ENC_CSWITCH;
    bool pebs = false, circular = false, compress = false, quiet = false, first_prev = false;
    struct mkr_opts ro = {false, false};
    bool settled = false;
    static struct mkproc_opts po; /* zero: no process events */

    static const struct option opts[] = {
        {"seed", required_argument, 0, 's'},
        {"cpus", required_argument, 0, 'c'},
        {"switches", required_argument, 0, 'n'},
        {"threads", required_argument, 0, 't'},
        {"ptr", required_argument, 0, 'p'},
        {"buffer-size", required_argument, 0, 'b'},
        {"encoding", required_argument, 0, 'e'},
        {"cswitch-version", required_argument, 0, 'v'},
        {"build", required_argument, 0, 'B'},
        {"max-wait-reason", required_argument, 0, 'w'},
        {"first-ts", required_argument, 0, 'f'},
        {"pmc", required_argument, 0, 'P'},
        {"pebs", no_argument, 0, 'E'},
        {"circular", no_argument, 0, 'C'},
        {"compress", no_argument, 0, 'Z'},
        {"lost-cpu", required_argument, 0, 'L'},
        {"misc-rate", required_argument, 0, 'm'},
        {"quiet", no_argument, 0, 'q'},
        {"processes", no_argument, 0, 1001},
        {"rundown", required_argument, 0, 1002},
        {"summary", required_argument, 0, 1003},
        {"summary-range", required_argument, 0, 1004},
        {"summary-cpus", required_argument, 0, 1005},
        {"ready", no_argument, 0, 1006},
        {"dpc", no_argument, 0, 1007},
        {"settled", no_argument, 0, 1008},
        {"kinds", required_argument, 0, 1009},
        {"hole", required_argument, 0, 1010},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    int ch;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        int bad = 0;
        switch (ch) {
        case 's': bad = parse_u64("seed", optarg, 0, UINT64_MAX, &seed); break;
        case 'c': bad = parse_u64("cpus", optarg, 1, 1024, &ncpus); break;
        case 'n': bad = parse_u64("switches", optarg, 0, UINT64_MAX / 2, &nsw); break;
        case 't': bad = parse_u64("threads", optarg, 2, 100000, &nthreads); break;
        case 'p': bad = parse_u64("ptr", optarg, 4, 8, &ptr) || (ptr != 4 && ptr != 8); break;
        case 'b': bad = parse_u64("buffer-size", optarg, 1536, 1u << 30, &bufsize) || bufsize % 8 != 0; break;
        case 'e':
            if (!strcmp(optarg, "cswitch"))
                enc = ENC_CSWITCH;
            else if (!strcmp(optarg, "compact"))
                enc = ENC_COMPACT;
            else if (!strcmp(optarg, "mixed"))
                enc = ENC_MIXED;
            else
                bad = 1;
            break;
        case 'v':
            bad = parse_u64("cswitch-version", optarg, 2, 4, &v);
            cswver = (long)v;
            break;
        case 'B': bad = parse_u64("build", optarg, 1, 0xFFFFFFFFu, &build); break;
        case 'w':
            bad = parse_u64("max-wait-reason", optarg, 1, 54, &v);
            mwr = (long)v;
            break;
        case 'f':
            if (!strcmp(optarg, "first"))
                first_prev = false;
            else if (!strcmp(optarg, "prev"))
                first_prev = true;
            else
                bad = 1;
            break;
        case 'P': bad = parse_u64("pmc", optarg, 0, 7, &pmc); break;
        case 'E': pebs = true; break;
        case 'C': circular = true; break;
        case 'Z': compress = true; break;
        case 'L':
            bad = parse_u64("lost-cpu", optarg, 0, 1023, &v);
            lost_cpu = (int64_t)v;
            break;
        case 'm': bad = parse_u64("misc-rate", optarg, 0, 1u << 30, &misc_rate); break;
        case 'q': quiet = true; break;
        case 1009: bad = parse_u64("kinds", optarg, 0, 0xFE00, &kinds); break;
        case 1010: bad = parse_u64("hole", optarg, 1, UINT64_MAX, &hole); break;
        case 1001: case 1002: case 1003: case 1004: case 1005: {
            static const char *const pn[] = {"processes", "rundown", "summary", "summary-range", "summary-cpus"};
            bad = mkproc_option(&po, pn[ch - 1001], optarg) != 0;
            break;
        }
        case 1006: ro.ready = true; break;
        case 1007: ro.dpc = true; break;
        case 1008: settled = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (bad) {
            fprintf(stderr, "mktrace: bad value for option\n");
            usage(stderr);
            return 2;
        }
    }
    if (argc - optind != 2) {
        usage(stderr);
        return 2;
    }
    const char *out_path = argv[optind], *csv_path = argv[optind + 1];
    if (lost_cpu >= (int64_t)ncpus) {
        fprintf(stderr, "mktrace: --lost-cpu=%lld but only %llu cpus\n", (long long)lost_cpu,
                (unsigned long long)ncpus);
        return 2;
    }
    if (nthreads < 2 * ncpus)
        nthreads = 2 * ncpus;
    bool ext = ro.ready || ro.dpc || settled;

    struct rng rng = {seed * 0xD1B54A32D192ED03ull + 0x1234567ull};
    struct etlw_config cfg;
    etlw_config_defaults(&cfg);
    cfg.ptr_size = (unsigned)ptr;
    cfg.ncpus = (unsigned)ncpus;
    cfg.buffer_size = (uint32_t)bufsize;
    cfg.build = (uint32_t)build;
    os_version(cfg.build, &cfg.os_major, &cfg.os_minor);
    cfg.cswitch_version = cswver > 0 ? (unsigned)cswver : cfg.build >= 16299 ? 4u : cfg.build >= 15063 ? 3u : 2u;
    cfg.max_wait_reason = mwr > 0 ? (unsigned)mwr : etlw_default_max_wait_reason(cfg.build);
    cfg.kernel_event_version = kernel_event_version(cfg.build);
    cfg.pmc_count = (unsigned)pmc;
    cfg.pebs = pebs;
    cfg.circular = circular;
    cfg.compress = compress;
    cfg.hole_buffer = hole;
    cfg.uses_compact = enc != ENC_CSWITCH;
    cfg.first_ts = first_prev ? ETLW_FTS_PREV_SWITCH : ETLW_FTS_FIRST_SWITCH;
    cfg.misc_odd_tid = ext;
    cfg.t0 = (int64_t)(50000000000ull + rnd(&rng) % 100000000000ull);
    cfg.start_filetime = 132000000000000000LL + (int64_t)(rnd(&rng) % 10000000000000ull);

    struct csv csv = {NULL, 0, NULL, NULL};
    if (strcmp(csv_path, "-") != 0 && strcmp(csv_path, "/dev/null") != 0) {
        csv.f = fopen(csv_path, "w");
        if (!csv.f) {
            fprintf(stderr, "mktrace: %s: %s\n", csv_path, strerror(errno));
            return 1;
        }
        static char csvbuf[1 << 20];
        setvbuf(csv.f, csvbuf, _IOFBF, sizeof csvbuf);
        if (ext)
            fputs(po.enabled ? ETLW_CSV_HEADER MKPROC_CSV_COLUMNS MKR_CSV_COLUMNS_PROC "\n"
                             : ETLW_CSV_HEADER MKR_CSV_COLUMNS "\n",
                  csv.f);
        else
            fputs(po.enabled ? ETLW_CSV_HEADER MKPROC_CSV_COLUMNS "\n" : ETLW_CSV_HEADER "\n", csv.f);
    }
    if (csv.f || po.summary_path) {
        cfg.expect_cb = csv_row;
        cfg.expect_ctx = &csv;
    }

    char err[256];
    struct timespec t_start, t_end;
    clock_gettime(CLOCK_MONOTONIC, &t_start);
    struct etlw *w = etlw_open(out_path, &cfg, err, sizeof err);
    if (!w) {
        fprintf(stderr, "mktrace: %s\n", err);
        return 1;
    }

    int nt = (int)nthreads;
    struct thr *thr = calloc((size_t)nt, sizeof *thr);
    struct gcpu *gc = calloc((size_t)ncpus, sizeof *gc);
    if (!thr || !gc) {
        fprintf(stderr, "mktrace: out of memory\n");
        return 1;
    }
    uint32_t tid_next = 4u * (1000u + below(&rng, 500));
    for (int i = 0; i < nt; i++) {
        thr[i].tid = new_tid(&rng, &tid_next);
        thr[i].base = new_base(&rng);
        thr[i].ideal = (uint8_t)below(&rng, (uint32_t)ncpus);
        thr[i].elig_after = INT64_MIN;
    }
    for (unsigned c = 0; c < ncpus; c++) {
        gc[c].cur = -1;
        gc[c].next_ts = cfg.t0 + 1000 + (int64_t)below(&rng, 20000);
        gc[c].enc = enc == ENC_COMPACT ? ENC_COMPACT : ENC_CSWITCH;
        gc[c].run_left = enc == ENC_MIXED ? 1u + below(&rng, 300) : UINT32_MAX;
    }
    /* --ready, --dpc, --settled: a separate stream of choices, wake-ups */
    struct rng xr = {seed * 0x94D049BB133111EBull + 0x77u};
    struct heap heap = {NULL, 0, 0, 0};
    if (ext) { /* some CPUs run a thread when the trace starts */
        for (unsigned c = 0; c < ncpus; c++) {
            if (below(&xr, 2))
                continue;
            gc[c].cur = pick_free(&xr, thr, (int)nthreads, INT64_MAX);
            if (gc[c].cur >= 0)
                thr[gc[c].cur].running = true;
        }
    }
    int rc = 0;
    /* a group-mask update early on CPU 0, as real kernel sessions have */
    if (misc_rate && etlw_add_misc(w, 0, cfg.t0 + 500, ETLW_MISC_GROUP_MASKS, 1) != 0)
        rc = 1;
    static const uint8_t short_payload[3] = { 1, 2, 3 };
    for (uint64_t k = 0; k < kinds && rc == 0; k++)
        if (etlw_add_raw(w, 0, cfg.t0 + 500, ETLW_HDR_PERFINFO, (uint16_t)(0x0100u + k), 2, 0, 0,
                         short_payload, sizeof short_payload) != 0)
            rc = 1;
    struct mkproc *pm = NULL;
    int64_t rundown_end = 0;
    if (po.enabled && rc == 0) { /* the start rundown, on the last CPU */
        pm = mkproc_new(w, &po, seed, (unsigned)nt, (unsigned)ncpus, cfg.t0, cfg.perf_freq);
        int64_t end = 0;
        for (int i = 0; pm && i < nt; i++)
            mkproc_slot(pm, (unsigned)i, thr[i].tid);
        if (!pm || mkproc_start(pm, &end) != 0) {
            fprintf(stderr, "mktrace: process events: %s\n", pm ? etlw_error(w) : "out of memory");
            return 1;
        }
        if (gc[ncpus - 1].next_ts <= end)
            gc[ncpus - 1].next_ts = end + 1;
        csv.pm = pm;
        rundown_end = end;
        if (ext)
            mkproc_settle(pm);
    }
    struct mkr *mk = NULL;
    int64_t rt_floor = rundown_end > cfg.t0 + 600 ? rundown_end : cfg.t0 + 600;
    if (ext && rc == 0) {
        mk = mkr_new(w, pm, cfg.expect_cb != NULL, csv.f, &ro, seed, (unsigned)ncpus, (unsigned)nt);
        if (!mk) {
            fprintf(stderr, "mktrace: out of memory\n");
            return 1;
        }
        if (misc_rate)
            mkr_floor(mk, 0, cfg.t0 + 500);
        if (pm)
            mkr_floor(mk, (unsigned)ncpus - 1, rundown_end);
        for (unsigned c = 0; c < ncpus; c++) {
            int cur = gc[c].cur;
            mkr_start_cpu(mk, c, cur, cur >= 0 ? thr[cur].tid : 0u, pm ? mkproc_user(pm, cur) : 0u,
                          gc[c].next_ts);
        }
        for (int i = 0; i < nt; i++) { /* threads readied before their first run */
            if (thr[i].running || !ro.ready || below(&xr, 2))
                continue;
            thr[i].blocked = true;
            if (heap_push(&heap, rt_floor + 1 + (int64_t)below(&xr, 20000), i, WAKE_READY,
                          below(&xr, 100) < 30 ? MKR_FLAG_DPC : 0) != 0) {
                fprintf(stderr, "mktrace: out of memory\n");
                return 1;
            }
        }
        csv.mk = mk;
    }

    uint64_t lost_at = lost_cpu >= 0 ? nsw / 2 : UINT64_MAX;
    for (uint64_t i = 0; i < nsw && rc == 0; i++) {
        unsigned c = 0;
        for (unsigned k = 1; k < ncpus; k++)
            if (gc[k].next_ts < gc[c].next_ts)
                c = k;
        struct gcpu *g = &gc[c];
        int64_t ts = g->next_ts;
        if (mk && wake_up(&heap, mk, &xr, (unsigned)ncpus, thr, ts) != 0) {
            rc = 1;
            break;
        }
        if (enc == ENC_MIXED && --g->run_left == 0) {
            g->enc = g->enc == ENC_COMPACT ? ENC_CSWITCH : ENC_COMPACT;
            g->run_left = 20u + below(&rng, 2000);
        }
        bool compact = g->enc == ENC_COMPACT;

        int old = g->cur, nw;
        if (old < 0)
            nw = pick_free(&rng, thr, nt, ts);
        else
            nw = below(&rng, 100) < 30 ? -1 : pick_free(&rng, thr, nt, ts);
        if (old < 0 && nw < 0 && mk) { /* every thread waits: the CPU stays idle a while */
            g->next_ts = ts + (int64_t)range(&xr, 1, 2000);
            mkr_next(mk, c, g->next_ts);
            i--;
            continue;
        }
        if (old < 0 && nw < 0) { /* nothing runnable: cannot happen with 2*cpus threads */
            fprintf(stderr, "mktrace: no runnable thread\n");
            rc = 1;
            break;
        }

        struct etlw_switch sw;
        memset(&sw, 0, sizeof sw);
        sw.cpu = (uint16_t)c;
        sw.ts = ts;
        bool terminated = false;
        if (old < 0) {
            sw.old_tid = 0;
            sw.old_priority = 0;
            sw.old_base_priority = 0;
            sw.old_state = ETLW_STATE_RUNNING;
            sw.old_wait_reason = 0;
            sw.old_wait_mode = 0;
            sw.prev_cstate = (uint8_t)below(&rng, 4);
            sw.ideal_cpu = (uint8_t)c;
            sw.old_remaining_quantum = (int32_t)(rnd(&rng) & 0x7FFFFFFF);
        } else {
            struct thr *t = &thr[old];
            sw.old_tid = t->tid;
            sw.old_base_priority = t->base;
            uint32_t x = below(&rng, 100);
            int pri = t->base;
            if (x >= 70 && x < 95)
                pri += (int)range(&rng, 1, 7);
            else if (x >= 95)
                pri += (int)range(&rng, 8, 20); /* beyond LITE's 3-bit increment */
            if (below(&rng, 100) < 2)
                pri = (int)below(&rng, 32); /* anything, even below the base */
            sw.old_priority = (int8_t)(pri > 31 ? 31 : pri);
            x = below(&rng, 100);
            unsigned limit = compact ? cfg.max_wait_reason : 43u;
            if (x < 55) {
                sw.old_state = ETLW_STATE_WAITING;
                sw.old_wait_reason = pick_wait_reason(&rng, limit);
            } else if (x < 80) {
                static const uint8_t pre[] = {32, 30, 31, 33};
                sw.old_state = ETLW_STATE_READY;
                sw.old_wait_reason = pre[below(&rng, 4)];
            } else {
                static const uint8_t other[] = {0, 2, 3, 4, 6, 7, 8, 9};
                sw.old_state = other[below(&rng, (uint32_t)sizeof other)];
                sw.old_wait_reason = (uint8_t)below(&rng, limit);
                terminated = sw.old_state == ETLW_STATE_TERMINATED;
            }
            sw.old_wait_mode = below(&rng, 10) < 4 ? 1 : 0;
            sw.ideal_cpu = t->ideal;
            sw.old_rank = (uint8_t)(t->tid % 3); /* any small rank (not from the PRNG) */
            sw.old_remaining_quantum = (int32_t)range(&rng, 0, 3000000) - 50000;
        }
        if (nw < 0) {
            sw.new_tid = 0;
            sw.new_priority = 0;
            sw.new_wait_time = 0;
        } else {
            struct thr *t = &thr[nw];
            sw.new_tid = t->tid;
            int pri = t->base + (below(&rng, 100) < 70 ? 0 : (int)range(&rng, 1, 7));
            sw.new_priority = (int8_t)(pri > 31 ? 31 : pri);
            uint32_t x = below(&rng, 100);
            sw.new_wait_time = x < 45 ? 0u : x < 75 ? 1u : x < 95 ? (uint32_t)range(&rng, 2, 1000)
                                                                  : (uint32_t)range(&rng, 1001, 131071);
        }
        if (below(&rng, 100) < 15)
            sw.new_priority_decrement = (int8_t)range(&rng, 1, 15);
        if (cfg.cswitch_version >= 3 && below(&rng, 100) < 20)
            sw.wait_mode_flags = (uint8_t)(below(&rng, 64) << 1);
        if (pm) {
            sw.old_user = mkproc_user(pm, old);
            sw.new_user = mkproc_user(pm, nw);
        }
        if (mk && mkr_switch(mk, &sw, old, nw) != 0) {
            rc = 1;
            break;
        }

        if (old >= 0)
            thr[old].running = false;
        if (nw >= 0)
            thr[nw].running = true;
        g->cur = nw;
        if (terminated) { /* the pool slot gets a fresh thread */
            thr[old].tid = new_tid(&rng, &tid_next);
            thr[old].base = new_base(&rng);
            thr[old].ideal = (uint8_t)below(&rng, (uint32_t)ncpus);
            if (pm && mkproc_replace(pm, old, c, ts, &thr[old].tid) != 0) {
                rc = 1;
                break;
            }
            if (mk)
                mkr_new_thread(mk, old);
        }
        if (mk && old >= 0 &&
            plan_wake(&heap, &xr, &thr[old], old, ts, rt_floor, ro.ready,
                      terminated ? 2 : sw.old_state == ETLW_STATE_WAITING ? 0 : 1) != 0) {
            fprintf(stderr, "mktrace: out of memory\n");
            rc = 1;
            break;
        }

        if ((compact ? etlw_add_compact(w, &sw) : etlw_add_cswitch(w, &sw)) != 0) {
            rc = 1;
            break;
        }
        if (misc_rate && below(&rng, (uint32_t)misc_rate) == 0) {
            enum etlw_misc kind = (enum etlw_misc)below(&rng, ETLW_MISC_COUNT);
            uint32_t salt = (uint32_t)rnd(&rng); /* separate statements: same stream with any compiler */
            if (etlw_add_misc(w, c, ts, kind, salt) != 0) {
                rc = 1;
                break;
            }
        }
        if (i == lost_at && etlw_mark_lost(w, (unsigned)lost_cpu) != 0) {
            rc = 1;
            break;
        }
        g->next_ts = ts + next_delta(&rng);
        if (mk)
            mkr_next(mk, c, g->next_ts);
    }
    if (mk && rc == 0 && mkr_finish(mk) != 0)
        rc = 1;
    if (rc != 0)
        fprintf(stderr, "mktrace: %s\n", mk && mkr_error(mk)[0] ? mkr_error(mk) : etlw_error(w));

    if (pm && rc == 0) { /* the end rundown, after every switch */
        int64_t end = 0;
        for (unsigned k = 0; k < ncpus; k++)
            if (gc[k].next_ts > end)
                end = gc[k].next_ts;
        if (mkproc_finish(pm, end + 100) != 0) {
            fprintf(stderr, "mktrace: %s\n", etlw_error(w));
            rc = 1;
        }
    }

    struct etlw_stats st;
    if (etlw_close(w, &st, err, sizeof err) != 0) {
        fprintf(stderr, "mktrace: %s\n", err);
        rc = 1;
    }
    if (mk && rc == 0 && mkr_close(mk) != 0) {
        fprintf(stderr, "mktrace: %s\n", mkr_error(mk));
        rc = 1;
    }
    if (csv.f && fclose(csv.f) != 0) {
        fprintf(stderr, "mktrace: %s: %s\n", csv_path, strerror(errno));
        rc = 1;
    }
    if (pm && rc == 0 && mkproc_write_summary(pm) != 0) {
        fprintf(stderr, "mktrace: %s: %s\n", po.summary_path, strerror(errno));
        rc = 1;
    }
    uint64_t n_ready = 0, n_dpc = 0, n_isr = 0;
    bool had_mk = mk != NULL;
    if (mk)
        mkr_counts(mk, &n_ready, &n_dpc, &n_isr);
    mkr_free(mk);
    free(heap.a);
    mkproc_free(pm);
    clock_gettime(CLOCK_MONOTONIC, &t_end);
    if (!quiet && rc == 0) {
        double secs = (double)(t_end.tv_sec - t_start.tv_sec) + (double)(t_end.tv_nsec - t_start.tv_nsec) / 1e9;
        fprintf(stderr,
                "mktrace: %llu switches (%llu cswitch events, %llu compact batches: %llu idle-short %llu idle "
                "%llu lite %llu full), %llu misc events, %llu event buffers%s, %.2f s\n",
                (unsigned long long)nsw, (unsigned long long)st.cswitch_events,
                (unsigned long long)st.compact_batches, (unsigned long long)st.compact_records[0],
                (unsigned long long)st.compact_records[1], (unsigned long long)st.compact_records[2],
                (unsigned long long)st.compact_records[3], (unsigned long long)st.misc_events,
                (unsigned long long)st.buffers, st.lost_buffers ? " (1 flagged BUFFER_LOST)" : "", secs);
        if (had_mk)
            fprintf(stderr, "mktrace: %llu ReadyThread, %llu DPC, %llu ISR events\n",
                    (unsigned long long)n_ready, (unsigned long long)n_dpc, (unsigned long long)n_isr);
    }
    free(thr);
    free(gc);
    return rc;
}
