/*
 * test_procmap.c - the thread -> process map: lifetimes from records given
 * by hand (TID reuse, rundowns only at one end, Defunct, PID reuse, names),
 * and, on the real traces pv-diaghub-kernel.etl and dnperf-dynamicevents.etl
 * (in ../shared/samples/real, or $ETLDUMP_SHARED/samples/real; skipped with
 * a message when absent), agreement of the map with every Process and
 * Thread record of the file: each thread belongs to the process its records
 * name, and each process has the image its records name.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/dispatch.h"
#include "decode/procmap.h"
#include "realtraces.h"
#include "unit.h"

/* Adds a thread record. */
static void thr(struct etl_procmap *m, int64_t ts, enum etl_pt_op op, uint32_t pid,
                uint32_t tid)
{
    struct etl_thread_rec r;
    memset(&r, 0, sizeof r);
    r.op = (uint8_t)op;
    r.pid = pid;
    r.tid = tid;
    /* Failing by hand: a ck_assert passed costs Check a message to its
     * parent process, and some tests add hundreds of thousands. */
    if (!etl_procmap_add_thread(m, ts, &r))
        ck_abort_msg("etl_procmap_add_thread failed");
}

/* Adds a thread record with a name (ASCII, stored as UTF-16LE). */
static void named(struct etl_procmap *m, int64_t ts, enum etl_pt_op op, uint32_t pid,
                  uint32_t tid, const char *name)
{
    uint8_t u16[64];
    size_t n = strlen(name);
    ck_assert_uint_lt(2 * n, sizeof u16);
    for (size_t i = 0; i < n; i++) {
        u16[2 * i] = (uint8_t)name[i];
        u16[2 * i + 1] = 0;
    }
    struct etl_thread_rec r;
    memset(&r, 0, sizeof r);
    r.op = (uint8_t)op;
    r.pid = pid;
    r.tid = tid;
    r.name.p = u16;
    r.name.len = 2 * n;
    r.has = TR_NAME;
    ck_assert(etl_procmap_add_thread(m, ts, &r));
}

/* Adds a process record. */
static void proc(struct etl_procmap *m, int64_t ts, enum etl_pt_op op, uint32_t pid,
                 uint64_t key, const char *image)
{
    struct etl_process_rec r;
    memset(&r, 0, sizeof r);
    r.op = (uint8_t)op;
    r.pid = pid;
    r.key = key;
    r.parent_id = 4;
    r.image = (const uint8_t *)image;
    r.image_len = strlen(image);
    r.has = PR_IMAGE | PR_KEY | PR_PARENT;
    ck_assert(etl_procmap_add_process(m, ts, &r));
}

/* Returns the PID of tid at ts, or -1. */
static long pid_at(const struct etl_procmap *m, uint32_t tid, int64_t ts)
{
    struct etl_who w;
    return etl_procmap_who(m, tid, ts, &w) ? (long)w.pid : -1;
}

/* Returns the image of tid's process at ts, or "". */
static const char *image_at(const struct etl_procmap *m, uint32_t tid, int64_t ts)
{
    struct etl_who w;
    etl_procmap_who(m, tid, ts, &w);
    return w.image ? w.image : "";
}

START_TEST(tid_reuse_across_processes)
{
    struct etl_procmap *m = etl_procmap_new();
    ck_assert_ptr_nonnull(m);
    /* Added out of time order, as CPUs' buffers come. */
    thr(m, 500, ETL_PT_START, 200, 77);     /* TID 77 again, in process 200 */
    proc(m, 10, ETL_PT_DCSTART, 100, 0xA0, "first.exe");
    proc(m, 20, ETL_PT_DCSTART, 200, 0xB0, "second.exe");
    thr(m, 12, ETL_PT_DCSTART, 100, 77);
    thr(m, 300, ETL_PT_END, 100, 77);
    thr(m, 900, ETL_PT_DCEND, 200, 77);
    ck_assert(etl_procmap_finish(m));
    ck_assert_int_eq(pid_at(m, 77, 0), 100);     /* DCStart: alive before the trace */
    ck_assert_int_eq(pid_at(m, 77, 299), 100);
    ck_assert_int_eq(pid_at(m, 77, 300), 100);   /* its last switch-out follows End */
    ck_assert_int_eq(pid_at(m, 77, 499), 100);
    ck_assert_int_eq(pid_at(m, 77, 500), 200);
    ck_assert_int_eq(pid_at(m, 77, 100000), 200);
    ck_assert_str_eq(image_at(m, 77, 50), "first.exe");
    ck_assert_str_eq(image_at(m, 77, 600), "second.exe");
    ck_assert_int_eq(pid_at(m, 78, 50), -1);
    ck_assert_uint_eq(etl_procmap_nthreads(m), 2);
    etl_procmap_free(m);
}
END_TEST

/* Many TIDs, some started once and some hundreds of times (in another
 * process each time), asked at random times: each answer is the lifetime
 * with the latest start at or before the time, as a search of every start
 * finds it, through the index by TID and the steps among a TID's
 * lifetimes. */
START_TEST(many_lifetimes)
{
    enum { TIDS = 3000, MAXREUSE = 300 };
    struct etl_procmap *m = etl_procmap_new();
    ck_assert_ptr_nonnull(m);
    static int64_t start[TIDS][MAXREUSE];
    static unsigned nlife[TIDS];
    uint64_t seed = 0x5eed;
    uint32_t pid = 8;
    for (unsigned t = 0; t < TIDS; t++) {
        uint64_t r = unit_rand(&seed);
        nlife[t] = t % 97 == 0 ? 1 + (unsigned)(r % MAXREUSE) : 1 + (unsigned)(r % 3);
        int64_t ts = (int64_t)(r >> 40) % 1000;
        for (unsigned k = 0; k < nlife[t]; k++) {
            start[t][k] = ts;
            /* TIDs 4 apart, as Windows gives them; added in no time order */
            thr(m, ts, ETL_PT_START, pid++, 4 * t + 4);
            ts += 1 + (int64_t)(unit_rand(&seed) % 50);
        }
    }
    ck_assert(etl_procmap_finish(m));
    uint32_t first_pid[TIDS];
    for (unsigned t = 0, p = 8; t < TIDS; p += nlife[t], t++)
        first_pid[t] = p;
    unsigned bad = 0;
    for (unsigned q = 0; q < 200000; q++) {
        uint64_t r = unit_rand(&seed);
        unsigned t = (unsigned)(r % (TIDS + 10)); /* and TIDs never seen */
        int64_t ts = (int64_t)((r >> 32) % 20000) - 100;
        long want = -1;
        for (unsigned k = 0; t < TIDS && k < nlife[t]; k++)
            if (start[t][k] <= ts)
                want = (long)(first_pid[t] + k);
        if (pid_at(m, 4 * t + 4, ts) != want)
            bad++;
    }
    ck_assert_uint_eq(bad, 0);
    /* Through a switch pass's cache: the map's answers, whatever came
     * before. A few hundred TIDs (more than the cache's slots, so that
     * they take each other's), times mostly forward, sometimes back. */
    struct etl_who_cache c = { NULL };
    ck_assert(etl_who_cache_init(&c));
    int64_t now = -100;
    for (unsigned q = 0; q < 200000; q++) {
        uint64_t r = unit_rand(&seed);
        uint32_t tid = 4 * (uint32_t)(r % 400) + 4;
        now += (int64_t)((r >> 20) % 3);
        int64_t ts = (r >> 40) % 5 == 0 ? now - (int64_t)((r >> 44) % 200) : now;
        struct etl_who a, b;
        etl_procmap_who_cached(m, &c, tid, ts, &a);
        etl_procmap_who(m, tid, ts, &b);
        if (a.pid != b.pid || a.image != b.image || a.image_len != b.image_len ||
            a.thread != b.thread || a.proc != b.proc || a.known != b.known)
            bad++;
    }
    ck_assert_uint_eq(bad, 0);
    etl_who_cache_fini(&c);
    ck_assert_ptr_null(c.tids);
    etl_procmap_free(m);
}
END_TEST

START_TEST(rundown_at_one_end)
{
    /* Only the end rundown (as in etwa-tracelogging): DCEnd and End alone
     * describe threads and processes alive since before the trace. */
    struct etl_procmap *m = etl_procmap_new();
    thr(m, 1000, ETL_PT_DCEND, 300, 40);
    proc(m, 1001, ETL_PT_DCEND, 300, 0xC0, "late.exe");
    thr(m, 400, ETL_PT_END, 310, 44);
    proc(m, 401, ETL_PT_END, 310, 0xD0, "gone.exe");
    thr(m, 450, ETL_PT_START, 300, 44);      /* 44 reused after it ended */
    ck_assert(etl_procmap_finish(m));
    ck_assert_int_eq(pid_at(m, 40, -5), 300);
    ck_assert_str_eq(image_at(m, 40, 1), "late.exe");
    ck_assert_int_eq(pid_at(m, 44, 0), 310);
    ck_assert_str_eq(image_at(m, 44, 10), "gone.exe");
    ck_assert_str_eq(image_at(m, 44, 450), "late.exe");
    etl_procmap_free(m);
}
END_TEST

START_TEST(started_during_trace)
{
    struct etl_procmap *m = etl_procmap_new();
    proc(m, 100, ETL_PT_START, 500, 0xE0, "new.exe");
    thr(m, 101, ETL_PT_START, 500, 60);
    thr(m, 101, ETL_PT_SETNAME, 500, 60);    /* a nameless SetName changes nothing */
    named(m, 102, ETL_PT_SETNAME, 500, 60, "Worker");
    named(m, 200, ETL_PT_END, 500, 60, "Worker 2");
    proc(m, 201, ETL_PT_END, 500, 0xE0, "new.exe");
    ck_assert(etl_procmap_finish(m));
    ck_assert_int_eq(pid_at(m, 60, 100), -1); /* not yet started */
    ck_assert_int_eq(pid_at(m, 60, 101), 500);
    ck_assert_int_eq(pid_at(m, 60, 250), 500);
    uint32_t t = etl_procmap_thread_at(m, 60, 150);
    ck_assert_uint_ne(t, ETL_PM_NONE);
    ck_assert_str_eq(etl_procmap_str(m, etl_procmap_thread(m, t)->name), "Worker 2");
    ck_assert_uint_eq(etl_procmap_nprocesses(m), 1);
    const struct etl_pm_process *p = etl_procmap_process(m, 0);
    ck_assert(p->ended);
    ck_assert_int_eq(p->start, 100);
    ck_assert_int_eq(p->end, 201);
    ck_assert(etl_procmap_image(m, 500, 99) == NULL);
    ck_assert_str_eq(etl_procmap_image(m, 500, 150), "new.exe");
    etl_procmap_free(m);
}
END_TEST

START_TEST(defunct_and_pid_reuse)
{
    struct etl_procmap *m = etl_procmap_new();
    proc(m, 10, ETL_PT_DCSTART, 600, 0x100, "old.exe");
    proc(m, 50, ETL_PT_END, 600, 0x100, "old.exe");
    proc(m, 80, ETL_PT_START, 600, 0x200, "reused.exe");  /* same PID, new key */
    proc(m, 90, ETL_PT_DEFUNCT, 600, 0x100, "old.exe");   /* exit data only */
    proc(m, 95, ETL_PT_DEFUNCT, 700, 0x300, "zombie.exe"); /* PID known from nothing else */
    proc(m, 96, ETL_PT_DCEND, 600, 0x200, "reused.exe");
    ck_assert(etl_procmap_finish(m));
    ck_assert_uint_eq(etl_procmap_nprocesses(m), 3);
    ck_assert_str_eq(etl_procmap_image(m, 600, 0), "old.exe");
    ck_assert_str_eq(etl_procmap_image(m, 600, 79), "old.exe");
    ck_assert_str_eq(etl_procmap_image(m, 600, 80), "reused.exe");
    ck_assert_str_eq(etl_procmap_image(m, 600, 1000), "reused.exe");
    ck_assert_str_eq(etl_procmap_image(m, 700, 0), "zombie.exe");
    etl_procmap_free(m);
}
END_TEST

START_TEST(idle_thread)
{
    struct etl_who w;
    /* Without any map the idle thread is still the Idle process. */
    ck_assert(etl_procmap_who(NULL, 0, 123, &w));
    ck_assert_uint_eq(w.pid, 0);
    ck_assert_str_eq(w.image, "Idle");
    ck_assert(!etl_procmap_who(NULL, 8, 123, &w));
    ck_assert(w.image == NULL);
    /* One DCStart per CPU, all TID 0: one lifetime. */
    struct etl_procmap *m = etl_procmap_new();
    for (int c = 0; c < 8; c++)
        named(m, 5 + c, ETL_PT_DCSTART, 0, 0, "Idle Thread");
    proc(m, 4, ETL_PT_DCSTART, 0, 0, "Idle");
    ck_assert(etl_procmap_finish(m));
    ck_assert_uint_eq(etl_procmap_nthreads(m), 1);
    ck_assert(etl_procmap_who(m, 0, 0, &w));
    ck_assert_str_eq(w.image, "Idle");
    ck_assert_str_eq(etl_procmap_str(m, etl_procmap_thread(m, w.thread)->name), "Idle Thread");
    etl_procmap_free(m);
}
END_TEST

/* A command line takes this many bytes of the map's names (UTF-8 and NUL). */
#define CMDLINE_BYTES 32500u

/* Adds a record of process 4 (cmd.exe, UniqueProcessKey k) with the k-th
 * of many different command lines of CMDLINE_BYTES. */
static void cmdline(struct etl_procmap *m, int64_t ts, enum etl_pt_op op, unsigned k)
{
    static uint8_t u16[2 * CMDLINE_BYTES];
    memset(u16, 0, sizeof u16);
    for (size_t i = 0; i + 2 < sizeof u16; i += 2)
        u16[i] = (uint8_t)('a' + (i / 2 + k) % 26);
    u16[0] = (uint8_t)('A' + k % 26); /* each one different */
    u16[2] = (uint8_t)('A' + k / 26 % 26);
    struct etl_process_rec r;
    memset(&r, 0, sizeof r);
    r.op = (uint8_t)op;
    r.pid = 4;
    r.key = k;
    r.image = (const uint8_t *)"cmd.exe";
    r.image_len = 7;
    r.cmdline.p = u16;
    r.cmdline.len = sizeof u16 - 2;
    r.has = PR_IMAGE | PR_CMDLINE | PR_KEY;
    ck_assert(etl_procmap_add_process(m, ts, &r));
}

START_TEST(limits)
{
    /* Records past the limits are left out, the first ones kept; a name or
     * a command line past its budget likewise. */
    struct etl_procmap *m = etl_procmap_new();
    ck_assert_ptr_nonnull(m);
    for (uint32_t i = 0; i < ETL_PM_MAX_THREAD_RECORDS + 3; i++)
        thr(m, 10 + i, ETL_PT_DCSTART, 100, 8 + 4 * i);
    char image[32];
    for (uint32_t i = 0; i < ETL_PM_MAX_PROCESS_RECORDS + 2; i++) {
        snprintf(image, sizeof image, "p%u.exe", i);
        proc(m, 5, ETL_PT_DCSTART, 200 + 4 * i, i, image);
    }
    /* Command lines until their budget is spent. */
    unsigned cmdlines = ETL_PM_MAX_CMDLINE_BYTES / CMDLINE_BYTES + 2;
    for (unsigned k = 0; k < cmdlines; k++)
        cmdline(m, 6, ETL_PT_DCSTART, k);
    uint64_t cl;
    ck_assert_uint_eq(etl_procmap_left_out(m, &cl), 3 + 2 + cmdlines);
    ck_assert_uint_eq(cl, 0);
    ck_assert(etl_procmap_finish(m));
    ck_assert_int_eq(pid_at(m, 8, 0), 100);
    ck_assert_int_eq(pid_at(m, 8 + 4 * (ETL_PM_MAX_THREAD_RECORDS - 1), 0), 100);
    ck_assert_int_eq(pid_at(m, 8 + 4 * ETL_PM_MAX_THREAD_RECORDS, 0), -1);
    ck_assert_str_eq(etl_procmap_image(m, 200, 5), "p0.exe");
    snprintf(image, sizeof image, "p%u.exe", ETL_PM_MAX_PROCESS_RECORDS - 1);
    ck_assert_str_eq(etl_procmap_image(m, 200 + 4 * (ETL_PM_MAX_PROCESS_RECORDS - 1), 5), image);
    ck_assert(etl_procmap_image(m, 200 + 4 * ETL_PM_MAX_PROCESS_RECORDS, 5) == NULL);
    ck_assert(etl_procmap_image(m, 4, 6) == NULL); /* no record of PID 4 was kept */
    etl_procmap_free(m);

    /* Under the record limits: command lines past their budget are left
     * out, their processes kept. */
    m = etl_procmap_new();
    ck_assert_ptr_nonnull(m);
    for (unsigned k = 0; k < cmdlines; k++)
        cmdline(m, 10 + k, ETL_PT_START, k);
    ck_assert_uint_eq(etl_procmap_left_out(m, &cl), 0);
    ck_assert_uint_eq(cl, cmdlines - ETL_PM_MAX_CMDLINE_BYTES / CMDLINE_BYTES);
    ck_assert(etl_procmap_finish(m));
    ck_assert_uint_eq(etl_procmap_nprocesses(m), cmdlines);
    ck_assert_ptr_nonnull(etl_procmap_str(m, etl_procmap_process(m, 0)->cmdline));
    ck_assert(etl_procmap_str(m, etl_procmap_process(m, cmdlines - 1)->cmdline) == NULL);
    ck_assert_str_eq(etl_procmap_image(m, 4, 10 + cmdlines), "cmd.exe");
    etl_procmap_free(m);
}
END_TEST

/* ---- the real traces ---------------------------------------------------------- */

struct seen {
    uint32_t pid;
    char image[64];
};

struct real_ctx {
    struct etl_procmap *m;
    struct seen *procs;
    size_t nprocs, cap;
    unsigned long threads, processes, bad;
    int pass;                 /* 1: collect images, 2: check */
};


/* Returns the image the file's Process records give pid, or NULL. */
static const char *image_of_pid(const struct real_ctx *x, uint32_t pid)
{
    for (size_t i = 0; i < x->nprocs; i++)
        if (x->procs[i].pid == pid)
            return x->procs[i].image;
    return NULL;
}

static bool real_event(void *vctx, const struct etl_event *ev)
{
    struct real_ctx *x = vctx;
    struct etl_record rec;
    enum etl_rec_kind kind = etl_decode_event(ev, &rec);
    if (kind == ETL_REC_PROCESS && rec.u.proc.op != ETL_PT_TERMINATE &&
        rec.u.proc.op != ETL_PT_PERFCTR) {
        ck_assert_ptr_null(rec.problem);
        const struct etl_process_rec r = rec.u.proc;
        char img[64];
        ck_assert_uint_lt(r.image_len, sizeof img);
        memcpy(img, r.image, r.image_len);
        img[r.image_len] = '\0';
        if (x->pass == 1) {
            const char *known = image_of_pid(x, r.pid);
            if (known) {
                /* No PID is reused within these samples. */
                ck_assert_str_eq(known, img);
            } else {
                if (x->nprocs == x->cap) {
                    x->cap = x->cap ? 2 * x->cap : 64;
                    x->procs = realloc(x->procs, x->cap * sizeof *x->procs);
                    ck_assert_ptr_nonnull(x->procs);
                }
                x->procs[x->nprocs].pid = r.pid;
                snprintf(x->procs[x->nprocs].image, sizeof x->procs[x->nprocs].image, "%s", img);
                x->nprocs++;
            }
        } else {
            /* The map gives the process this image at this time. */
            const char *got = etl_procmap_image(x->m, r.pid, ev->ts);
            ck_assert_ptr_nonnull(got);
            ck_assert_str_eq(got, img);
            x->processes++;
        }
    } else if (kind == ETL_REC_THREAD && x->pass == 2) {
        ck_assert_ptr_null(rec.problem);
        const struct etl_thread_rec r = rec.u.thr;
        struct etl_who w;
        ck_assert(etl_procmap_who(x->m, r.tid, ev->ts, &w));
        if (r.tid != 0)
            ck_assert_uint_eq(w.pid, r.pid);
        /* The thread's process has the image its Process records give. */
        const char *want = r.tid == 0 ? "Idle" : image_of_pid(x, r.pid);
        ck_assert_ptr_nonnull(want);
        ck_assert_ptr_nonnull(w.image);
        ck_assert_str_eq(w.image, want);
        x->threads++;
    }
    return true;
}

/* Checks the map of one real trace; returns false when the file is absent. */
static bool check_real(const char *name, unsigned long *nthreads, unsigned long *nprocs,
                       size_t *lifetimes)
{
    char path[512];
    if (!real_trace_path("test_procmap", name, path, sizeof path))
        return false;
    enum etl_open_status st;
    struct etl_file *f = etl_open_path(path, NULL, &st);
    ck_assert_int_eq(st, ETL_OPEN_OK);
    struct real_ctx x;
    memset(&x, 0, sizeof x);
    x.m = etl_procmap_build(f, true);
    ck_assert_ptr_nonnull(x.m);
    ck_assert_uint_eq(etl_file_problems(f), 0);
    for (x.pass = 1; x.pass <= 2; x.pass++)
        etl_walk_file(f, real_event, &x);
    ck_assert_uint_eq(etl_file_problems(f), 0);
    *nthreads = x.threads;
    *nprocs = x.processes;
    *lifetimes = etl_procmap_nthreads(x.m);
    etl_procmap_free(x.m);
    free(x.procs);
    etl_close(f);
    return true;
}

START_TEST(real_pv_diaghub_kernel)
{
    unsigned long nt, np;
    size_t lt;
    if (!check_real("pv-diaghub-kernel.etl", &nt, &np, &lt))
        return;
    /* 223 DCStart + 223 DCEnd + 18 Start + 3 End + 9 Defunct; no Thread records. */
    ck_assert_uint_eq(np, 476);
    ck_assert_uint_eq(nt, 0);
    ck_assert_uint_eq(lt, 0);
}
END_TEST

START_TEST(real_dnperf_dynamicevents)
{
    unsigned long nt, np;
    size_t lt;
    if (!check_real("dnperf-dynamicevents.etl", &nt, &np, &lt))
        return;
    /* 96 Start + 102 End + 1122 DCStart + 1144 DCEnd + 57 SetName. */
    ck_assert_uint_eq(nt, 2521);
    /* 98 + 98 + 2 + 2 + 2 Defunct. */
    ck_assert_uint_eq(np, 202);
    ck_assert_uint_gt(lt, 1000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("procmap");
    TCase *tc = tcase_create("map");
    tcase_add_test(tc, tid_reuse_across_processes);
    tcase_add_test(tc, many_lifetimes);
    tcase_add_test(tc, rundown_at_one_end);
    tcase_add_test(tc, started_during_trace);
    tcase_add_test(tc, defunct_and_pid_reuse);
    tcase_add_test(tc, idle_thread);
    tcase_add_test(tc, limits);
    tcase_add_test(tc, real_pv_diaghub_kernel);
    tcase_add_test(tc, real_dnperf_dynamicevents);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
