/*
 * test_sched.c - why a thread was not running.
 *
 * The per-thread state of decode/sched.c on events given by hand: each edge
 * case of the switch columns (etldump(1): new_since_last, new_ready,
 * new_waited, readied_*), thread lifetimes (a reused TID is a new thread)
 * and known gaps. The ReadyThread, DPC and ISR decoders and their dispatch
 * entries on payloads built from doc/format.md §16-§17. The scheduling-event
 * reader (decode/swreader.c) on small traces written by the test writer
 * (tests/gen): time order on a CPU whose compact batch is logged after the
 * ReadyThread that happened during it, the thread running on the readying
 * CPU (before its first switch: that switch's old thread), and no link
 * across a buffer flagged as having lost events.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/dispatch.h"
#include "decode/kfields.h"
#include "decode/procmap.h"
#include "decode/sched.h"
#include "decode/swreader.h"
#include "etlw.h"
#include "unit.h"

/* ---- the per-thread state -------------------------------------------------- */

#define WAITING 5
#define READY 1
#define TRANSITION 6

/* A switch on cpu at ts from old (leaving in state st) to new. */
static struct etl_sched_item sw_item(uint16_t cpu, int64_t ts, uint32_t old, uint8_t st,
                                     uint32_t new_tid)
{
    struct etl_sched_item it;
    memset(&it, 0, sizeof it);
    it.kind = ETL_SCHED_SWITCH;
    it.ts = ts;
    it.cpu = cpu;
    it.u.sw.ts = ts;
    it.u.sw.cpu = cpu;
    it.u.sw.old_tid = old;
    it.u.sw.new_tid = new_tid;
    it.u.sw.old_state = st;
    it.u.sw.old_wait_reason = 13; /* WrUserRequest */
    it.u.sw.has = SW_OLD_TID | SW_NEW_TID | SW_OLD_STATE | SW_OLD_WAIT_REASON;
    return it;
}

/* A ReadyThread on cpu at ts for tid, while `on` runs there (0: unknown). */
static struct etl_sched_item rt_item(uint16_t cpu, int64_t ts, uint32_t tid, uint32_t on,
                                     uint8_t flag)
{
    struct etl_sched_item it;
    memset(&it, 0, sizeof it);
    it.kind = ETL_SCHED_READY;
    it.ts = ts;
    it.cpu = cpu;
    it.u.ready.tid = tid;
    it.u.ready.flag = flag;
    it.on_known = on != 0;
    it.on_tid = on;
    return it;
}

/* Takes one event; returns what a switch says. */
static struct etl_sched_facts take(struct etl_sched *s, struct etl_sched_item it)
{
    struct etl_sched_facts f;
    memset(&f, 0xAB, sizeof f);
    /* Failing by hand: a ck_assert passed costs Check a message to its
     * parent process, and the bounded test takes 786,000 items. */
    if (!etl_sched_take(s, &it, NULL, NULL, &f))
        ck_abort_msg("etl_sched_take failed");
    return f;
}

START_TEST(waiting_then_readied)
{
    struct etl_sched *s = etl_sched_new(NULL);
    ck_assert_ptr_nonnull(s);
    take(s, sw_item(0, 100, 7, WAITING, 8));
    take(s, rt_item(1, 150, 7, 9, 0));
    take(s, rt_item(2, 170, 7, 10, ETL_READY_FROM_DPC)); /* the last one counts */
    struct etl_sched_facts f = take(s, sw_item(3, 200, 11, READY, 7));
    ck_assert_uint_eq(f.has & (ETL_SF_SINCE | ETL_SF_READY | ETL_SF_WAITED | ETL_SF_READIED |
                               ETL_SF_READIER | ETL_SF_WAIT | ETL_SF_REASON),
                      ETL_SF_SINCE | ETL_SF_READY | ETL_SF_WAITED | ETL_SF_READIED |
                          ETL_SF_READIER | ETL_SF_WAIT | ETL_SF_REASON);
    ck_assert(!(f.has & ETL_SF_RUNNABLE));
    ck_assert_int_eq(f.since, 100);       /* new_since_last 100 */
    ck_assert_int_eq(f.ready_from, 170);  /* new_ready 30 */
    ck_assert_int_eq(f.wait_from, 100);   /* new_waited 70 */
    ck_assert_int_eq(f.wait_to, 170);
    ck_assert_int_eq(f.readied_at, 170);
    ck_assert_uint_eq(f.readying_cpu, 2);
    ck_assert_uint_eq(f.readying_tid, 10);
    ck_assert_uint_eq(f.ready_flag & ETL_READY_FROM_DPC, ETL_READY_FROM_DPC);
    ck_assert_uint_eq(f.out_wait_reason, 13);
    /* Switched in: its past is used up. */
    f = take(s, sw_item(0, 300, 8, READY, 7));
    ck_assert_uint_eq(f.has, 0);
    etl_sched_free(s);
}
END_TEST

START_TEST(preempted)
{
    struct etl_sched *s = etl_sched_new(NULL);
    take(s, sw_item(0, 100, 7, READY, 8));
    struct etl_sched_facts f = take(s, sw_item(1, 160, 9, WAITING, 7));
    ck_assert(f.has & ETL_SF_SINCE);
    ck_assert(f.has & ETL_SF_READY);
    ck_assert(f.has & ETL_SF_WAITED);
    ck_assert(f.has & ETL_SF_RUNNABLE);
    ck_assert(!(f.has & (ETL_SF_WAIT | ETL_SF_READIED)));
    ck_assert_int_eq(f.ready_from, 100); /* new_ready = new_since_last = 60 */
    ck_assert_int_eq(f.wait_to - f.wait_from, 0);
    /* Any state but Waiting is preempted; only the runnable ones are ready
     * time without ReadyThread events. */
    take(s, sw_item(1, 200, 7, TRANSITION, 9));
    f = take(s, sw_item(2, 260, 3, READY, 7));
    ck_assert(f.has & ETL_SF_READY);
    ck_assert(f.has & ETL_SF_WAITED);
    ck_assert(!(f.has & ETL_SF_RUNNABLE));
    ck_assert_int_eq(f.ready_from, 200);
    etl_sched_free(s);
}
END_TEST

START_TEST(waiting_not_readied)
{
    struct etl_sched *s = etl_sched_new(NULL);
    take(s, sw_item(0, 100, 7, WAITING, 8));
    struct etl_sched_facts f = take(s, sw_item(1, 300, 9, READY, 7));
    ck_assert_uint_eq(f.has & (ETL_SF_SINCE | ETL_SF_WAIT), ETL_SF_SINCE | ETL_SF_WAIT);
    ck_assert(!(f.has & (ETL_SF_READY | ETL_SF_WAITED | ETL_SF_READIED)));
    ck_assert_int_eq(f.since, 100);
    etl_sched_free(s);
}
END_TEST

START_TEST(no_switch_out_seen)
{
    struct etl_sched *s = etl_sched_new(NULL);
    /* Readied before its first switch-in in the trace. */
    take(s, rt_item(0, 50, 7, 0, 0));
    struct etl_sched_facts f = take(s, sw_item(1, 90, 9, READY, 7));
    ck_assert_uint_eq(f.has & (ETL_SF_SINCE | ETL_SF_READY | ETL_SF_WAITED | ETL_SF_READIED |
                               ETL_SF_READIER),
                      ETL_SF_READY | ETL_SF_READIED); /* the readying thread unknown */
    ck_assert_int_eq(f.ready_from, 50);
    /* Nothing at all seen. */
    f = take(s, sw_item(2, 95, 3, READY, 12));
    ck_assert_uint_eq(f.has, 0);
    etl_sched_free(s);
}
END_TEST

START_TEST(ready_before_switch_out)
{
    /* A ReadyThread before the switch-out does not count for the wait. */
    struct etl_sched *s = etl_sched_new(NULL);
    take(s, sw_item(0, 10, 3, READY, 7));
    take(s, rt_item(1, 50, 7, 4, 0));
    take(s, sw_item(0, 100, 7, WAITING, 8));
    struct etl_sched_facts f = take(s, sw_item(1, 200, 4, READY, 7));
    ck_assert(f.has & ETL_SF_SINCE);
    ck_assert(!(f.has & (ETL_SF_READY | ETL_SF_READIED)));
    etl_sched_free(s);
}
END_TEST

START_TEST(idle_and_unknown_threads)
{
    struct etl_sched *s = etl_sched_new(NULL);
    take(s, sw_item(0, 100, 7, READY, 0));
    take(s, rt_item(1, 110, 0, 3, 0)); /* TID 0 is never readied */
    struct etl_sched_facts f = take(s, sw_item(0, 150, 0, READY, 0)); /* the idle thread */
    ck_assert_uint_eq(f.has, 0);
    struct etl_sched_item it = sw_item(0, 160, 0, READY, 7);
    it.u.sw.has &= ~(uint32_t)SW_NEW_TID; /* a compact switch whose new thread is unknown */
    f = take(s, it);
    ck_assert_uint_eq(f.has, 0);
    f = take(s, sw_item(0, 170, 0, READY, 7)); /* still its switch-out at 100 */
    ck_assert(f.has & ETL_SF_SINCE);
    ck_assert_int_eq(f.since, 100);
    etl_sched_free(s);
}
END_TEST

START_TEST(tid_reuse)
{
    /* TID 500 in process 100 ends at 300; TID 500 starts in process 200 at
     * 400: a new thread, with no switch-out and no ReadyThread of the old. */
    struct etl_procmap *m = etl_procmap_new();
    struct etl_thread_rec r;
    memset(&r, 0, sizeof r);
    r.op = ETL_PT_DCSTART;
    r.pid = 100;
    r.tid = 500;
    ck_assert(etl_procmap_add_thread(m, 0, &r));
    r.op = ETL_PT_END;
    ck_assert(etl_procmap_add_thread(m, 300, &r));
    r.op = ETL_PT_START;
    r.pid = 200;
    ck_assert(etl_procmap_add_thread(m, 400, &r));
    ck_assert(etl_procmap_finish(m));
    struct etl_sched *s = etl_sched_new(m);
    take(s, sw_item(0, 100, 500, WAITING, 8));
    take(s, rt_item(1, 200, 500, 9, 0)); /* for the old thread */
    struct etl_sched_facts f = take(s, sw_item(1, 450, 9, READY, 500));
    ck_assert_uint_eq(f.has, 0);
    /* The same within one lifetime. */
    take(s, sw_item(1, 500, 500, WAITING, 9));
    take(s, rt_item(0, 550, 500, 8, 0));
    f = take(s, sw_item(0, 600, 8, READY, 500));
    ck_assert(f.has & ETL_SF_WAITED);
    ck_assert_int_eq(f.wait_to - f.wait_from, 50);
    etl_sched_free(s);
    etl_procmap_free(m);
}
END_TEST

START_TEST(gap_forgets)
{
    struct etl_sched *s = etl_sched_new(NULL);
    take(s, sw_item(0, 100, 7, WAITING, 8));
    take(s, sw_item(0, 110, 8, WAITING, 9));
    struct etl_sched_item g = rt_item(2, 150, 3, 0, 0);
    g.gap = true; /* lost events before it, on CPU 2 */
    take(s, g);
    take(s, rt_item(1, 170, 8, 4, 0));
    struct etl_sched_facts f = take(s, sw_item(1, 200, 4, READY, 7));
    ck_assert_uint_eq(f.has, 0); /* switched out before the gap */
    f = take(s, sw_item(3, 210, 5, READY, 8));
    ck_assert_uint_eq(f.has & (ETL_SF_SINCE | ETL_SF_READY | ETL_SF_WAITED), ETL_SF_READY);
    ck_assert_int_eq(f.ready_from, 170); /* readied after it */
    etl_sched_free(s);
}
END_TEST

START_TEST(many_threads)
{
    struct etl_sched *s = etl_sched_new(NULL);
    for (uint32_t t = 1; t <= 5000; t++)
        take(s, sw_item(0, t, t, WAITING, t + 1));
    for (uint32_t t = 1; t <= 5000; t++)
        take(s, rt_item(1, 10000 + t, t, 1, 0));
    for (uint32_t t = 1; t <= 5000; t++) {
        struct etl_sched_facts f = take(s, sw_item(2, 20000 + t, 0, READY, t));
        ck_assert(f.has & ETL_SF_WAITED);
        ck_assert_int_eq(f.wait_to - f.wait_from, 10000);
    }
    etl_sched_free(s);
}
END_TEST

START_TEST(terminated_forgotten)
{
    /* Without a process map a TID is the thread: TID 40 leaves Terminated,
     * and a new thread with the same TID is told nothing of it. */
    struct etl_sched *s = etl_sched_new(NULL);
    take(s, sw_item(0, 100, 40, 4 /* Terminated */, 41));
    struct etl_sched_facts f = take(s, sw_item(0, 300, 41, WAITING, 40));
    ck_assert_uint_eq(f.has, 0);
    /* A thread's history is used once: a second switch-in says nothing. */
    take(s, sw_item(0, 400, 40, WAITING, 42));
    f = take(s, sw_item(1, 500, 43, READY, 40));
    ck_assert(f.has & ETL_SF_SINCE);
    f = take(s, sw_item(2, 600, 44, READY, 40));
    ck_assert_uint_eq(f.has, 0);
    ck_assert_uint_eq(etl_sched_forgotten(s), 0);
    etl_sched_free(s);
}
END_TEST

START_TEST(clock_back)
{
    /* Switched out at 500, in at 400 (a clock that went back): nothing. */
    struct etl_sched *s = etl_sched_new(NULL);
    take(s, sw_item(0, 500, 7, WAITING, 8));
    struct etl_sched_facts f = take(s, sw_item(1, 400, 9, READY, 7));
    ck_assert_uint_eq(f.has, 0);
    /* Readied at 90, before its switch-out at 100: the ReadyThread is not
     * its wake-up; the switch-out still counts. */
    take(s, sw_item(0, 100, 7, WAITING, 8));
    take(s, rt_item(1, 90, 7, 9, 0));
    f = take(s, sw_item(1, 150, 9, READY, 7));
    ck_assert_uint_eq(f.has & (ETL_SF_SINCE | ETL_SF_READIED | ETL_SF_WAITED), ETL_SF_SINCE);
    ck_assert_int_eq(f.since, 100);
    etl_sched_free(s);
}
END_TEST

START_TEST(bounded)
{
    /* 2^19 threads switched out in turn, none back: the table keeps at
     * most 2^18; the newest are still known, the oldest are forgotten. */
    enum { N = 1u << 19 };
    struct etl_sched *s = etl_sched_new(NULL);
    for (uint32_t t = 1; t <= N; t++)
        take(s, sw_item(0, t, t, WAITING, 0));
    uint64_t gone = etl_sched_forgotten(s);
    ck_assert_uint_ge(gone, N - (1u << 18));
    ck_assert_uint_lt(gone, N);
    struct etl_sched_facts f = take(s, sw_item(1, N + 10, 0, READY, N));
    ck_assert(f.has & ETL_SF_SINCE);
    ck_assert_int_eq(f.since, N);
    f = take(s, sw_item(1, N + 20, 0, READY, 1));
    ck_assert_uint_eq(f.has, 0);
    /* Every timestamp the same: a sweep still frees room. */
    struct etl_sched *z = etl_sched_new(NULL);
    for (uint32_t t = 1; t <= (1u << 18) + 5; t++)
        take(z, sw_item(0, 77, t, WAITING, 0));
    ck_assert_uint_gt(etl_sched_forgotten(z), 0);
    etl_sched_free(z);
    etl_sched_free(s);
}
END_TEST

/* ---- decoders and dispatch ----------------------------------------------------- */

static struct etl_event ev_of(const uint8_t *d, size_t n, uint16_t hook, unsigned kind,
                              unsigned version)
{
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.data = d;
    ev.data_len = (uint32_t)n;
    ev.hook_id = hook;
    ev.opcode = (uint8_t)(hook & 0xFF);
    ev.kind = (uint8_t)kind;
    ev.version = (uint16_t)version;
    ev.ptr_size = kind == ETL_KIND_PERFINFO32 || kind == ETL_KIND_SYSTEM32 ||
                          kind == ETL_KIND_COMPACT32 ? 4 : 8;
    ev.flags = ETL_EV_TS | ETL_EV_HOOK;
    ev.ts = 5000;
    return ev;
}

START_TEST(ready_thread_payload)
{
    /* TThreadId 0x1234, AdjustReason 1 (unwait), AdjustIncrement 3, Flag 0x5. */
    static const uint8_t d[] = { 0x34, 0x12, 0, 0, 1, 3, 5, 0 };
    struct etl_event ev = ev_of(d, sizeof d, 0x0532, ETL_KIND_PERFINFO64, 2);
    struct etl_record r;
    ck_assert_int_eq(etl_decode_event(&ev, &r), ETL_REC_READY);
    ck_assert_str_eq(etl_kernel_event_name(&ev), "Thread/ReadyThread");
    ck_assert_uint_eq(r.u.ready.tid, 0x1234);
    ck_assert_int_eq(r.u.ready.adjust_reason, 1);
    ck_assert_int_eq(r.u.ready.adjust_increment, 3);
    ck_assert_uint_eq(r.u.ready.flag, ETL_READY_FROM_DPC | ETL_READY_PROCESS_OUT);
    /* Short: a problem, no record. */
    ev = ev_of(d, 7, 0x0532, ETL_KIND_PERFINFO32, 2);
    ck_assert_int_eq(etl_decode_event(&ev, &r), ETL_REC_NONE);
    ck_assert_ptr_nonnull(r.problem);
    /* HookId 0x0532 with another header kind is another event. */
    ev = ev_of(d, sizeof d, 0x0532, ETL_KIND_COMPACT64, 2);
    ck_assert_uint_eq(etl_dispatch(&ev)->kind, ETL_REC_NONE);
    ev = ev_of(d, sizeof d, 0x0532, ETL_KIND_SYSTEM32, 2);
    ck_assert_uint_eq(etl_dispatch(&ev)->kind, ETL_REC_NONE);
    /* The answer for the last HookId, version and kind is remembered: each
     * of the three still decides. */
    static const struct { uint16_t hook; uint8_t kind; uint16_t version; int rec; } seq[] = {
        { 0x0532, ETL_KIND_PERFINFO64, 2, ETL_REC_READY },
        { 0x0532, ETL_KIND_PERFINFO64, 1, ETL_REC_NONE },
        { 0x0532, ETL_KIND_PERFINFO64, 2, ETL_REC_READY },
        { 0x0532, ETL_KIND_SYSTEM64, 2, ETL_REC_NONE },
        { 0x0532, ETL_KIND_PERFINFO32, 2, ETL_REC_READY },
        { 0x0524, ETL_KIND_PERFINFO32, 2, ETL_REC_CSWITCH },
        { 0x0532, ETL_KIND_PERFINFO32, 2, ETL_REC_READY },
        { 0x0532, ETL_KIND_PERFINFO32, 0x102, ETL_REC_READY }, /* the version's low byte */
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        ev = ev_of(d, sizeof d, seq[i].hook, seq[i].kind, seq[i].version);
        ck_assert_int_eq((int)etl_dispatch(&ev)->kind, seq[i].rec);
    }
}
END_TEST

START_TEST(dispatch_may_be)
{
    /* Whatever a version of a HookId goes to, etl_dispatch_may_be says it
     * may: every kernel kind, the versions at both ends (the table's bounds
     * are 0, 2 and 255), the HookIds of the table and around them. */
    static const uint8_t d[8] = { 0 };
    static const uint8_t kinds[] = { ETL_KIND_SYSTEM32, ETL_KIND_SYSTEM64,
                                     ETL_KIND_COMPACT32, ETL_KIND_COMPACT64,
                                     ETL_KIND_PERFINFO32, ETL_KIND_PERFINFO64 };
    for (uint32_t h = 0; h < 0x1000; h++) {
        for (size_t k = 0; k < sizeof kinds; k++) {
            uint32_t seen = 0;
            for (uint16_t v = 0; v < 256; v = v == 7 ? 248 : v + 1) {
                struct etl_event ev = ev_of(d, sizeof d, (uint16_t)h, kinds[k], v);
                seen |= 1u << etl_dispatch(&ev)->kind;
            }
            for (unsigned rk = ETL_REC_LOGFILE; rk <= ETL_REC_INTR; rk++)
                if (seen & (1u << rk))
                    ck_assert_msg(etl_dispatch_may_be((uint16_t)h, kinds[k], 1u << rk),
                                  "HookId 0x%04x kind %u record %u", (unsigned)h,
                                  (unsigned)kinds[k], rk);
        }
    }
    /* And no more than that where the pre-passes ask. */
    const uint32_t pt = 1u << ETL_REC_PROCESS | 1u << ETL_REC_THREAD;
    ck_assert(!etl_dispatch_may_be(0x0524, ETL_KIND_PERFINFO64, pt));
    ck_assert(!etl_dispatch_may_be(0x0525, ETL_KIND_PERFINFO64, pt));
    ck_assert(!etl_dispatch_may_be(0x0F2E, ETL_KIND_PERFINFO64, pt));
    ck_assert(!etl_dispatch_may_be(0x0532, ETL_KIND_SYSTEM64, 1u << ETL_REC_READY));
    ck_assert(etl_dispatch_may_be(0x0301, ETL_KIND_PERFINFO64, pt));
    ck_assert(etl_dispatch_may_be(0x0548, ETL_KIND_PERFINFO64, pt));
    ck_assert(etl_dispatch_may_be(0x0532, ETL_KIND_PERFINFO64, 1u << ETL_REC_READY));
    /* A pass's pick: a HookId in runs once an event of it has come whole
     * and cannot be of the kinds wanted; one that can stays whole, and so
     * do the HookIds of other kinds' events. */
    static const uint8_t none[1] = { 0 };
    struct etl_runs_pick pick;
    ck_assert(etl_runs_pick_init(&pick, pt));
    static const uint16_t hooks[4] = { 0x0524, 0x0301, 0x0548, 0x0F2E };
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(pick.cls[hooks[i]], 0);
    for (int i = 0; i < 4; i++) {
        struct etl_event ev = ev_of(none, 0, hooks[i], ETL_KIND_PERFINFO64, 2);
        etl_runs_pick_learn(&pick, &ev);
    }
    struct etl_event sys = ev_of(none, 0, 0x0050, ETL_KIND_SYSTEM64, 2);
    etl_runs_pick_learn(&pick, &sys);
    ck_assert_uint_eq(pick.cls[0x0524], 1);
    ck_assert_uint_eq(pick.cls[0x0F2E], 1);
    ck_assert_uint_eq(pick.cls[0x0301], 0);
    ck_assert_uint_eq(pick.cls[0x0548], 0);
    ck_assert_uint_eq(pick.cls[0x0050], 0);
    etl_runs_pick_fini(&pick);
    ck_assert_ptr_null(pick.cls);
    ck_assert(etl_runs_pick_init(&pick, 1u << ETL_REC_HEADER_EXT));
    struct etl_event ev = ev_of(none, 0, 0x0301, ETL_KIND_PERFINFO64, 2);
    etl_runs_pick_learn(&pick, &ev);
    ck_assert_uint_eq(pick.cls[0x0301], 1);
    etl_runs_pick_fini(&pick);
}
END_TEST

START_TEST(dpc_isr_payloads)
{
    /* DPC, 64-bit: InitialTime 4000, Routine 0xFFFFF80612345670. */
    static const uint8_t dpc64[] = { 0xA0, 0x0F, 0, 0, 0, 0, 0, 0,
                                     0x70, 0x56, 0x34, 0x12, 0x06, 0xF8, 0xFF, 0xFF };
    struct etl_event ev = ev_of(dpc64, sizeof dpc64, 0x0F44, ETL_KIND_PERFINFO64, 2);
    struct etl_record r;
    ck_assert_int_eq(etl_decode_event(&ev, &r), ETL_REC_INTR);
    ck_assert_uint_eq(r.u.intr.type, ETL_INTR_DPC);
    ck_assert_int_eq(r.u.intr.initial_time, 4000);
    ck_assert_uint_eq(r.u.intr.routine, 0xFFFFF80612345670ull);
    ck_assert_str_eq(etl_kernel_event_name(&ev), "PerfInfo/DPC");
    /* The same bytes as a 32-bit TimerDPC: the pointer is 4 bytes. */
    ev = ev_of(dpc64, 12, 0x0F45, ETL_KIND_PERFINFO32, 2);
    ck_assert_int_eq(etl_decode_event(&ev, &r), ETL_REC_INTR);
    ck_assert_uint_eq(r.u.intr.type, ETL_INTR_TIMER_DPC);
    ck_assert_uint_eq(r.u.intr.routine, 0x12345670u);
    ev = ev_of(dpc64, 11, 0x0F42, ETL_KIND_PERFINFO32, 2);
    ck_assert_int_eq(etl_decode_event(&ev, &r), ETL_REC_NONE);
    ck_assert_str_eq(r.problem, "DPC event too short");

    /* ISR-MSI, 32-bit: InitialTime, Routine, ReturnValue 1, Vector 0x1B2,
     * Reserved, MessageNumber 7. */
    static const uint8_t msi32[] = { 0xA0, 0x0F, 0, 0, 0, 0, 0, 0, 0x10, 0x20, 0x00, 0x8A,
                                     1, 0xB2, 0x01, 0, 7, 0, 0, 0 };
    ev = ev_of(msi32, sizeof msi32, 0x0F32, ETL_KIND_PERFINFO32, 2);
    ck_assert_int_eq(etl_decode_event(&ev, &r), ETL_REC_INTR);
    ck_assert_uint_eq(r.u.intr.type, ETL_INTR_ISR_MSI);
    ck_assert_uint_eq(r.u.intr.routine, 0x8A002010u);
    ck_assert_uint_eq(r.u.intr.return_value, 1);
    ck_assert(r.u.intr.has_vector && r.u.intr.has_message);
    ck_assert_uint_eq(r.u.intr.vector, 0x1B2);
    ck_assert_uint_eq(r.u.intr.message, 7);
    ck_assert(etl_intr_is_isr(r.u.intr.type));
    /* Without its MessageNumber: too short. An ISR of the same bytes is fine. */
    ev = ev_of(msi32, 16, 0x0F32, ETL_KIND_PERFINFO32, 2);
    ck_assert_int_eq(etl_decode_event(&ev, &r), ETL_REC_NONE);
    ck_assert_str_eq(r.problem, "ISR event too short");
    ev = ev_of(msi32, 16, 0x0F43, ETL_KIND_PERFINFO32, 2);
    ck_assert_int_eq(etl_decode_event(&ev, &r), ETL_REC_INTR);
    ck_assert(!r.u.intr.has_message);
    /* ISR version 1: a u32 ReturnValue, no Vector. */
    ev = ev_of(msi32, 16, 0x0F43, ETL_KIND_PERFINFO32, 1);
    ck_assert_int_eq(etl_decode_event(&ev, &r), ETL_REC_INTR);
    ck_assert(!r.u.intr.has_vector);
    ck_assert_uint_eq(r.u.intr.return_value, 0x1B201);
    /* A SYSTEM header: not these events. */
    ev = ev_of(dpc64, sizeof dpc64, 0x0F44, ETL_KIND_SYSTEM64, 2);
    ck_assert_uint_eq(etl_dispatch(&ev)->kind, ETL_REC_NONE);
    ck_assert_str_eq(etl_intr_type_name(ETL_INTR_THREADED_DPC), "ThreadedDPC");
}
END_TEST

/* ---- the reader on written traces -------------------------------------------------- */

/* A trace being written to a temporary file. */
struct trace {
    char path[64];
    struct etlw *w;
};

static void trace_open(struct trace *t, unsigned ncpus)
{
    struct etlw_config cfg;
    etlw_config_defaults(&cfg);
    cfg.ncpus = ncpus;
    cfg.buffer_size = 2048;
    cfg.uses_compact = true;
    snprintf(t->path, sizeof t->path, "%s/sched-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int fd = mkstemp(t->path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char err[200];
    t->w = etlw_open(t->path, &cfg, err, sizeof err);
    ck_assert_msg(t->w != NULL, "%s", err);
}

static void add_switch(struct trace *t, bool compact, uint16_t cpu, int64_t ts, uint32_t old,
                       uint32_t new_tid)
{
    struct etlw_switch sw;
    memset(&sw, 0, sizeof sw);
    sw.cpu = cpu;
    sw.ts = ts;
    sw.old_tid = old;
    sw.new_tid = new_tid;
    sw.old_state = old ? WAITING : 2;
    sw.old_wait_reason = 6;
    sw.old_priority = 8;
    sw.old_base_priority = 8;
    ck_assert_int_eq(compact ? etlw_add_compact(t->w, &sw) : etlw_add_cswitch(t->w, &sw), 0);
}

static void add_ready(struct trace *t, uint16_t cpu, int64_t ts, uint32_t tid)
{
    uint8_t d[8] = { (uint8_t)tid, (uint8_t)(tid >> 8), 0, 0, 1, 1, 0, 0 };
    ck_assert_int_eq(etlw_add_raw(t->w, cpu, ts, ETLW_HDR_PERFINFO, 0x0532, 2, 0, 0, d, 8), 0);
}

/* Closes the writer and reads every scheduling event (at most cap). */
static size_t trace_read(struct trace *t, struct etl_sched_item *out, size_t cap)
{
    char err[200];
    ck_assert_int_eq(etlw_close(t->w, NULL, err, sizeof err), 0);
    enum etl_open_status st;
    struct etl_file *f = etl_open_path(t->path, NULL, &st);
    ck_assert_ptr_nonnull(f);
    struct etl_streams *s = etl_streams_new(f);
    struct etl_switch_reader *r = etl_sched_reader_new(f, s, 0);
    ck_assert_ptr_nonnull(r);
    size_t n = 0;
    while (n < cap && etl_sched_next(r, &out[n]))
        n++;
    ck_assert_uint_eq(etl_file_problems(f), 0);
    etl_switch_reader_free(r);
    etl_streams_free(s);
    etl_close(f);
    unlink(t->path);
    return n;
}

START_TEST(reader_time_order_compact)
{
    /* CPU 1 switches 0 -> 10 -> 11 -> 12 in one compact batch; a ReadyThread
     * for 20 happens while 11 runs: it is written before the batch. CPU 0
     * readies 21 before its first switch, 0 -> 30. */
    struct trace t;
    trace_open(&t, 2);
    add_ready(&t, 0, 1000, 21);
    add_switch(&t, false, 0, 1100, 0, 30);
    add_switch(&t, true, 1, 1200, 0, 10);
    add_switch(&t, true, 1, 1300, 10, 11);
    add_ready(&t, 1, 1350, 20);
    add_switch(&t, true, 1, 1400, 11, 12);
    add_switch(&t, true, 1, 1500, 12, 0);
    struct etl_sched_item it[16];
    size_t n = trace_read(&t, it, 16);
    ck_assert_uint_eq(n, 7);
    for (size_t i = 1; i < n; i++)
        ck_assert_int_ge(it[i].ts, it[i - 1].ts);
    ck_assert_uint_eq(it[0].kind, ETL_SCHED_READY);
    ck_assert(it[0].on_known);
    ck_assert_uint_eq(it[0].on_tid, 0); /* the first switch's old thread */
    ck_assert_uint_eq(it[4].kind, ETL_SCHED_READY);
    ck_assert_int_eq(it[4].ts, 1350);
    ck_assert(it[4].on_known);
    ck_assert_uint_eq(it[4].on_tid, 11);
    /* Each switch knows its CPU's next one. */
    ck_assert_uint_eq(it[2].kind, ETL_SCHED_SWITCH);
    ck_assert(it[2].has_next && it[2].next_ts == 1300);
    ck_assert(!it[2].linked); /* the CPU's first */
    ck_assert(it[3].linked && it[3].has_next && it[3].next_ts == 1400);
    ck_assert(!it[6].has_next); /* the last; its new thread unknown (compact) */
    ck_assert(!(it[6].u.sw.has & SW_NEW_TID));
    ck_assert(it[3].u.sw.has & SW_NEW_TID);
    ck_assert_uint_eq(it[3].u.sw.new_tid, 11);
}
END_TEST

/* One event of the reference's queue: its kind, time and, for a switch,
 * its old thread. */
struct ref_ev {
    uint8_t kind;
    int64_t ts;
    uint32_t old_tid;
};

/* Compact batches on one CPU among many ReadyThreads (logged before the
 * batch that holds the switches around them): the reader hands the events
 * out in the order of the rule it had when it placed each switch alone:
 * the CPU's events in stream order, each switch of a batch put after the
 * last event queued since the switch before it (the one nearest the end)
 * that is not later than it. The reference replays that rule on the
 * stream, read event by event. */
START_TEST(reader_batch_order)
{
    struct trace t;
    trace_open(&t, 1);
    uint64_t seed = 42;
    int64_t ts = 100000;
    uint32_t cur = 0;
    for (int i = 0; i < 3000; i++) {
        uint64_t r = unit_rand(&seed);
        if (r % 3 == 0) { /* a ReadyThread, sometimes at a switch's time */
            ts += (int64_t)((r >> 8) % 3);
            add_ready(&t, 0, ts, 40 + (uint32_t)(r >> 20) % 30);
            continue;
        }
        uint32_t next = r % 7 == 0 ? 0 : 40 + (uint32_t)(r >> 24) % 12;
        ts += 1 + (int64_t)((r >> 32) % 900);
        add_switch(&t, true, 0, ts, cur, next);
        cur = next;
    }
    char err[200];
    ck_assert_int_eq(etlw_close(t.w, NULL, err, sizeof err), 0);
    enum etl_open_status st;
    struct etl_file *f = etl_open_path(t.path, NULL, &st);
    ck_assert_ptr_nonnull(f);
    /* The reference, from the stream. */
    static struct ref_ev q[8192];
    static struct etl_switch batch[2048];
    size_t n = 0, last = SIZE_MAX, passed = 0;
    struct etl_streams *ss = etl_streams_new(f);
    struct etl_stream *cs = etl_streams_cpu(ss, 0);
    struct etl_event ev;
    while (etl_stream_next(cs, &ev)) {
        const struct etl_decoder *d = etl_dispatch(&ev);
        struct etl_record rec;
        if ((d->kind != ETL_REC_READY && d->kind != ETL_REC_CSWITCH_BATCH) ||
            !etl_decode(&ev, d, &rec))
            continue;
        if (d->kind == ETL_REC_READY) {
            ck_assert_uint_lt(n, 8192);
            q[n++] = (struct ref_ev){ ETL_SCHED_READY, ev.ts, 0 };
            continue;
        }
        uint64_t implausible = 0;
        size_t k = etl_decode_batch(&ev, &rec.u.batch, 0x27, batch, 2048, NULL, NULL,
                                    &implausible, NULL);
        for (size_t i = 0; i < k; i++) {
            size_t lo = last == SIZE_MAX ? 0 : last + 1, pos = n;
            while (pos > lo && q[pos - 1].ts > batch[i].ts)
                pos--;
            passed += pos < n;
            ck_assert_uint_lt(n, 8192);
            memmove(q + pos + 1, q + pos, (n - pos) * sizeof *q);
            q[pos] = (struct ref_ev){ ETL_SCHED_SWITCH, batch[i].ts, batch[i].old_tid };
            n++;
            last = pos;
        }
    }
    etl_streams_free(ss);
    /* The reader. */
    struct etl_streams *s = etl_streams_new(f);
    struct etl_switch_reader *r = etl_sched_reader_new(f, s, 0);
    ck_assert_ptr_nonnull(r);
    struct etl_sched_item it;
    size_t got = 0;
    while (etl_sched_next(r, &it)) {
        ck_assert_uint_lt(got, n);
        ck_assert_uint_eq(it.kind, q[got].kind);
        ck_assert_int_eq(it.ts, q[got].ts);
        if (it.kind == ETL_SCHED_SWITCH)
            ck_assert_uint_eq(it.u.sw.old_tid, q[got].old_tid);
        got++;
    }
    ck_assert_uint_eq(got, n);
    ck_assert_uint_gt(passed, 500); /* switches went before ReadyThreads read earlier */
    ck_assert_uint_eq(etl_file_problems(f), 0);
    etl_switch_reader_free(r);
    etl_streams_free(s);
    etl_close(f);
    unlink(t.path);
}
END_TEST

START_TEST(reader_lost_buffer)
{
    /* CSwitch events on CPU 0 with a buffer flagged BUFFER_LOST between the
     * second and the third: the run across it is not linked, and a
     * ReadyThread after it does not know the running thread. */
    struct trace t;
    trace_open(&t, 1);
    add_switch(&t, false, 0, 1000, 0, 10);
    add_switch(&t, false, 0, 1100, 10, 11);
    ck_assert_int_eq(etlw_mark_lost(t.w, 0), 0);
    add_ready(&t, 0, 1150, 10);
    add_switch(&t, false, 0, 1200, 11, 12);
    add_switch(&t, false, 0, 1300, 12, 0);
    struct etl_sched_item it[8];
    size_t n = trace_read(&t, it, 8);
    ck_assert_uint_eq(n, 5);
    ck_assert(it[0].has_next && it[1].linked);
    ck_assert(!it[1].has_next);  /* before the gap */
    ck_assert(!it[1].gap);
    ck_assert_uint_eq(it[2].kind, ETL_SCHED_READY);
    ck_assert(it[2].gap);        /* the first after it */
    ck_assert(!it[2].on_known);
    ck_assert(!it[3].linked && it[3].has_next);
    ck_assert(it[4].linked);
    ck_assert_uint_eq(it[2].stretch, it[3].stretch);
    ck_assert_uint_ne(it[1].stretch, it[3].stretch);
}
END_TEST

START_TEST(bias_fit)
{
    /* States of a kernel with bias 0x25 (Windows 7): waits, many Ready
     * (0x26), some Running, Terminated, DeferredReady. */
    uint64_t h[64] = { 0 };
    h[6] = 300;
    h[15] = 200;
    h[0x25 + 1] = 250;
    h[0x25 + 2] = 20;
    h[0x25 + 4] = 10;
    h[0x25 + 7] = 15;
    uint64_t ready;
    ck_assert_uint_eq(etl_max_wait_reason_fit(h, 0x25, &ready), 0);  /* right */
    ck_assert_uint_eq(etl_max_wait_reason_fit(h, 0x2A, &ready), 0x25); /* too high */
    ck_assert_uint_eq(ready, 250);
    ck_assert_uint_eq(etl_max_wait_reason_fit(h, 0x27, &ready), 0x25);
    /* Too few switch-outs to tell. */
    uint64_t few[64] = { 0 };
    few[0x26] = 5;
    ck_assert_uint_eq(etl_max_wait_reason_fit(few, 0x2A, &ready), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("state");
    tcase_add_test(tc, waiting_then_readied);
    tcase_add_test(tc, terminated_forgotten);
    tcase_add_test(tc, bounded);
    tcase_add_test(tc, clock_back);
    tcase_add_test(tc, preempted);
    tcase_add_test(tc, waiting_not_readied);
    tcase_add_test(tc, no_switch_out_seen);
    tcase_add_test(tc, ready_before_switch_out);
    tcase_add_test(tc, idle_and_unknown_threads);
    tcase_add_test(tc, tid_reuse);
    tcase_add_test(tc, gap_forgets);
    tcase_add_test(tc, many_threads);
    suite_add_tcase(s, tc);
    tc = tcase_create("decode");
    tcase_add_test(tc, ready_thread_payload);
    tcase_add_test(tc, dpc_isr_payloads);
    tcase_add_test(tc, dispatch_may_be);
    tcase_add_test(tc, bias_fit);
    suite_add_tcase(s, tc);
    tc = tcase_create("reader");
    tcase_add_test(tc, reader_time_order_compact);
    tcase_add_test(tc, reader_batch_order);
    tcase_add_test(tc, reader_lost_buffer);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
