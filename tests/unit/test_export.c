/*
 * test_export.c - the protobuf wire format written by hand (src/export/pb.h)
 * against bytes worked out from Google's "Protocol Buffers Encoding" rules;
 * the Perfetto event encoders against fields laid out by hand from the
 * field numbers of Perfetto's schema; and the usage accumulator (run
 * splitting, intervals handed on in order as open runs allow, INTERVAL
 * parsing).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "export/pb.h"
#include "export/perfetto.h"
#include "view/usage.h"
#include "unit.h"

/* Checks that out[0..n) equals the bytes want[0..wn). */
static void same_bytes(const uint8_t *out, size_t n, const uint8_t *want, size_t wn)
{
    ck_assert_uint_eq(n, wn);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(out[i] == want[i], "byte %zu: 0x%02x, want 0x%02x", i, out[i], want[i]);
}

/* ---- pb ------------------------------------------------------------------- */

START_TEST(varints)
{
    static const struct {
        uint64_t v;
        uint8_t b[10];
        size_t n;
    } cases[] = {
        { 0, { 0x00 }, 1 },
        { 1, { 0x01 }, 1 },
        { 127, { 0x7F }, 1 },
        { 128, { 0x80, 0x01 }, 2 },
        { 300, { 0xAC, 0x02 }, 2 },
        { 16383, { 0xFF, 0x7F }, 2 },
        { 16384, { 0x80, 0x80, 0x01 }, 3 },
        { 0xFFFFFFFFu, { 0xFF, 0xFF, 0xFF, 0xFF, 0x0F }, 5 },
        { UINT64_MAX, { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 }, 10 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t out[PB_VARINT_MAX];
        size_t n = pb_put_varint(out, cases[i].v);
        same_bytes(out, n, cases[i].b, cases[i].n);
        ck_assert_uint_eq(pb_varint_size(cases[i].v), cases[i].n);
    }
}
END_TEST

START_TEST(signed_forms)
{
    ck_assert_uint_eq(pb_zigzag32(0), 0);
    ck_assert_uint_eq(pb_zigzag32(-1), 1);
    ck_assert_uint_eq(pb_zigzag32(1), 2);
    ck_assert_uint_eq(pb_zigzag32(-2), 3);
    ck_assert_uint_eq(pb_zigzag32(2147483647), 0xFFFFFFFEu);
    ck_assert_uint_eq(pb_zigzag32(-2147483647 - 1), 0xFFFFFFFFu);
    /* An int32 of -1 takes ten bytes: it is sign-extended to 64 bits. */
    uint8_t out[PB_VARINT_MAX];
    static const uint8_t minus1[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                      0x01 };
    same_bytes(out, pb_put_varint(out, pb_int32_bits(-1)), minus1, sizeof minus1);
    ck_assert_uint_eq(pb_int32_bits(5), 5);
}
END_TEST

START_TEST(keys_and_lengths)
{
    uint8_t out[32];
    /* field 1 varint 150: 08 96 01 (the encoding guide's first example) */
    static const uint8_t f1[] = { 0x08, 0x96, 0x01 };
    same_bytes(out, pb_put_varint_field(out, 1, 150), f1, sizeof f1);
    ck_assert_uint_eq(pb_varint_field_size(1, 150), 3);
    /* field 95, length 300: key (95 << 3 | 2 = 762) FA 05, length AC 02 */
    static const uint8_t f95[] = { 0xFA, 0x05, 0xAC, 0x02 };
    same_bytes(out, pb_put_len_header(out, 95, 300), f95, sizeof f95);
    ck_assert_uint_eq(pb_len_field_size(95, 300), 304);
    /* field 87 varint true: key 696 = B8 05 */
    static const uint8_t f87[] = { 0xB8, 0x05, 0x01 };
    same_bytes(out, pb_put_varint_field(out, 87, 1), f87, sizeof f87);
    /* field 16 takes a two-byte key: 80 01 */
    static const uint8_t f16[] = { 0x80, 0x01, 0x00 };
    same_bytes(out, pb_put_varint_field(out, 16, 0), f16, sizeof f16);
}
END_TEST

START_TEST(buffers)
{
    struct pb_buf b = { 0, 0, 0 };
    ck_assert(pb_buf_bytes_field(&b, 2, "testing", 7));
    ck_assert(pb_buf_varint_field(&b, 3, 1));
    ck_assert(pb_buf_bytes_field(&b, 4, "", 0));
    /* 12 07 "testing", 18 01, 22 00 */
    static const uint8_t want[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',
                                    0x18, 0x01, 0x22, 0x00 };
    same_bytes(b.p, b.len, want, sizeof want);
    pb_buf_free(&b);
    ck_assert(b.p == NULL && b.len == 0);
}
END_TEST

/* ---- Perfetto events --------------------------------------------------------- */

START_TEST(cswitch_from_idle)
{
    struct etl_switch sw;
    memset(&sw, 0, sizeof sw);
    sw.cpu = 3;
    sw.old_tid = 0;
    sw.new_tid = 5516;
    sw.new_priority = 12;
    sw.old_priority = 0;
    sw.prev_cstate = 2;
    sw.ideal_cpu = 1;
    sw.new_wait_time = 1;
    sw.old_wait_reason = 0;
    sw.old_wait_mode = 0;
    sw.old_state = 2;
    sw.has = SW_OLD_TID | SW_NEW_TID | SW_NEW_PRIORITY | SW_OLD_PRIORITY | SW_PREV_CSTATE |
             SW_IDEAL_CPU | SW_NEW_WAIT_TIME | SW_OLD_WAIT_REASON | SW_OLD_WAIT_MODE |
             SW_OLD_STATE;
    uint8_t out[ETL_PF_EVENT_MAX];
    size_t n = etl_pf_cswitch_event(out, 1000, &sw);
    static const uint8_t want[] = {
        0x12, 0x1C,             /* bundle.event, 28 bytes */
        0x08, 0xE8, 0x07,       /* timestamp 1000 */
        0x12, 0x15,             /* c_switch, 21 bytes */
        0x08, 0x8C, 0x2B,       /* new_thread_id 5516 */
        0x10, 0x00,             /* old_thread_id 0: written, the idle thread */
        0x18, 0x18,             /* new_thread_priority 12 (zigzag 24) */
        0x20, 0x00,             /* old_thread_priority 0 */
        0x28, 0x02,             /* previous_c_state 2 (the old thread is idle) */
        0x48, 0x02,             /* old_thread_wait_ideal_processor 1 (zigzag 2) */
        0x50, 0x01,             /* new_thread_wait_time 1 */
        0x58, 0x00,             /* old_thread_wait_reason_int 0 */
        0x60, 0x00,             /* old_thread_wait_mode_int 0 */
        0x68, 0x04,             /* old_thread_state_int 2 (zigzag 4) */
        0x20, 0x03,             /* cpu 3 */
    };
    same_bytes(out, n, want, sizeof want);
}
END_TEST

START_TEST(cswitch_partial)
{
    /* A compact switch carries fewer fields; a thread's C-state is not
     * written; a negative priority is zigzagged; a big wait reason stays an
     * int32. */
    struct etl_switch sw;
    memset(&sw, 0, sizeof sw);
    sw.cpu = 200;
    sw.old_tid = 300;
    sw.new_tid = 0;
    sw.old_priority = -1;
    sw.prev_cstate = 7;
    sw.old_state = 5;
    sw.old_wait_reason = 200;
    sw.has = SW_OLD_TID | SW_NEW_TID | SW_OLD_PRIORITY | SW_PREV_CSTATE | SW_OLD_STATE |
             SW_OLD_WAIT_REASON;
    uint8_t out[ETL_PF_EVENT_MAX];
    size_t n = etl_pf_cswitch_event(out, 0x80, &sw);
    static const uint8_t want[] = {
        0x12, 0x14,             /* bundle.event, 20 bytes */
        0x08, 0x80, 0x01,       /* timestamp 128 */
        0x12, 0x0C,             /* c_switch, 12 bytes */
        0x08, 0x00,             /* new_thread_id 0 */
        0x10, 0xAC, 0x02,       /* old_thread_id 300 */
        0x20, 0x01,             /* old_thread_priority -1 */
        0x58, 0xC8, 0x01,       /* old_thread_wait_reason_int 200 */
        0x68, 0x0A,             /* old_thread_state_int 5 */
        0x20, 0xC8, 0x01,       /* cpu 200 */
    };
    same_bytes(out, n, want, sizeof want);
    /* An unknown new thread (the end of a compact stream) is left out. */
    sw.has &= ~(uint32_t)SW_NEW_TID;
    n = etl_pf_cswitch_event(out, 0x80, &sw);
    ck_assert_uint_eq(n, sizeof want - 2);
    ck_assert_uint_eq(out[7], 0x10);
}
END_TEST

START_TEST(ready_thread)
{
    uint8_t out[ETL_PF_EVENT_MAX];
    size_t n = etl_pf_ready_event(out, 5, 2, 77, 100, 1, -2, 1);
    static const uint8_t want[] = {
        0x12, 0x10,             /* bundle.event, 16 bytes */
        0x08, 0x05,             /* timestamp 5 */
        0x1A, 0x08,             /* ready_thread, 8 bytes */
        0x08, 0x64,             /* t_thread_id 100 */
        0x18, 0x03,             /* adjust_increment -2 (zigzag 3) */
        0x28, 0x01,             /* adjust_reason_int 1 */
        0x30, 0x01,             /* flag_int 1 */
        0x20, 0x02,             /* cpu 2 */
        0x28, 0x4D,             /* thread_id 77: the readying thread */
    };
    same_bytes(out, n, want, sizeof want);
}
END_TEST

/* ---- usage ---------------------------------------------------------------------- */

/* What the accumulator handed on. */
struct got {
    int64_t start[64], end[64], ns[64][4];
    size_t n;
};

static bool take(void *ctx, int64_t start, int64_t end, struct etl_usage_ent *e, size_t n)
{
    struct got *g = ctx;
    ck_assert_uint_lt(g->n, 64);
    g->start[g->n] = start;
    g->end[g->n] = end;
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_lt(e[i].proc, 4);
        g->ns[g->n][e[i].proc] += e[i].ns;
    }
    g->n++;
    return true;
}

START_TEST(usage_split)
{
    struct got g;
    memset(&g, 0, sizeof g);
    /* Intervals of 10 over [0, 35]: the last one is cut at 35. */
    struct etl_usage *u = etl_usage_new(0, 35, 10, take, &g);
    ck_assert_ptr_nonnull(u);
    ck_assert(etl_usage_add(u, 1, 5, 27));   /* 5 + 10 + 7 */
    ck_assert(etl_usage_add(u, 2, 10, 20));  /* exactly the second */
    ck_assert(etl_usage_add(u, 2, 30, 40));  /* cut at the end: 5 */
    ck_assert(etl_usage_add(u, 3, 12, 12));  /* nothing */
    ck_assert(etl_usage_finish(u));
    etl_usage_free(u);
    ck_assert_uint_eq(g.n, 4);
    static const int64_t bounds[] = { 0, 10, 20, 30, 35 };
    for (size_t i = 0; i < 4; i++) {
        ck_assert_int_eq(g.start[i], bounds[i]);
        ck_assert_int_eq(g.end[i], bounds[i + 1]);
    }
    ck_assert_int_eq(g.ns[0][1], 5);
    ck_assert_int_eq(g.ns[1][1], 10);
    ck_assert_int_eq(g.ns[2][1], 7);
    ck_assert_int_eq(g.ns[1][2], 10);
    ck_assert_int_eq(g.ns[3][2], 5);
    ck_assert_int_eq(g.ns[0][2] + g.ns[2][2] + g.ns[1][3], 0);
}
END_TEST

/* Runs of the tracker go into the accumulator. */
struct pass {
    struct etl_usage *u;
    int runs;
};

static bool to_usage(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid, int64_t a, int64_t b)
{
    (void)cpu;
    (void)tid;
    struct pass *p = ctx;
    p->runs++;
    return etl_usage_add(p->u, proc, a, b);
}

/* A switch on cpu at t (ns: the clock ticks in ns) from old to new. */
static struct etl_switch sw_at(uint16_t cpu, int64_t t, uint32_t old, uint32_t new_tid)
{
    struct etl_switch s;
    memset(&s, 0, sizeof s);
    s.cpu = cpu;
    s.ts = t;
    s.old_tid = old;
    s.new_tid = new_tid;
    s.has = SW_OLD_TID | SW_NEW_TID;
    return s;
}

START_TEST(usage_waits_for_open_runs)
{
    struct etl_clock clk;
    etl_clock_init(&clk, 0, 1000000000, 0);
    struct got g;
    memset(&g, 0, sizeof g);
    struct pass p = { NULL, 0 };
    struct etl_runs *r = etl_runs_new(NULL, &clk, NULL, to_usage, &p);
    p.u = etl_usage_new(0, 100, 10, take, &g);
    ck_assert(r && p.u);
    /* CPU 1 runs thread 7 from 5 to 62; CPU 0 switches often. Intervals
     * are handed on only once CPU 1's run has ended. */
    struct etl_switch s[] = {
        sw_at(0, 0, 0, 9), sw_at(1, 5, 0, 7), sw_at(0, 15, 9, 0), sw_at(0, 25, 0, 9),
        sw_at(0, 41, 9, 0), sw_at(1, 62, 7, 0), sw_at(0, 70, 0, 9), sw_at(0, 71, 8, 0),
        sw_at(0, 90, 0, 9),
    };
    size_t handed[sizeof s / sizeof s[0]];
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        ck_assert(etl_runs_switch(r, &s[i], true));
        ck_assert(etl_usage_advance(p.u, r, s[i].ts, s[i].cpu));
        handed[i] = g.n;
    }
    ck_assert_uint_eq(handed[4], 0);         /* CPU 1's run from 5 holds all back */
    ck_assert_uint_eq(handed[5], 4);         /* ... until 62: [0,40) are done, and
                                                CPU 0's idle run from 41 holds on */
    ck_assert_uint_eq(handed[6], 6);         /* ... until 70: CPU 1's from 62 */
    ck_assert_uint_eq(handed[8], 6);
    ck_assert(etl_usage_finish(p.u));
    ck_assert_uint_eq(g.n, 10);
    /* Threads 9 and 7 have no known process: one entry (index 0, met
     * first); the idle thread's is index 1. */
    ck_assert_uint_eq(etl_runs_nprocs(r), 2);
    const struct etl_run_proc *unk = etl_runs_proc(r, 0), *idle = etl_runs_proc(r, 1);
    ck_assert(idle->pid_known && idle->pid == 0 && strcmp(idle->image, "Idle") == 0);
    ck_assert(!unk->pid_known && unk->image == NULL);
    /* 9: 0-15, 25-41; 7: 5-62; 9 from 70 is not ended by the switch of 8
     * at 71 (another thread), so not counted, nor is 9's last run. */
    ck_assert_int_eq(unk->cpu_time, 15 + 16 + 57);
    static const int64_t want_unk[10] = { 15, 15, 15, 20, 11, 10, 2, 0, 0, 0 };
    /* Idle: CPU 0 15-25, 41-70 and 71-90; CPU 1 from 62 never ends. */
    static const int64_t want_idle[10] = { 0, 5, 5, 0, 9, 10, 10, 9, 10, 0 };
    for (size_t i = 0; i < 10; i++) {
        ck_assert_int_eq(g.start[i], (int64_t)i * 10);
        ck_assert_int_eq(g.ns[i][0], want_unk[i]);
        ck_assert_int_eq(g.ns[i][1], want_idle[i]);
    }
    ck_assert_int_eq(idle->cpu_time, 10 + 29 + 19);
    ck_assert_int_eq(p.runs, 6);
    etl_usage_free(p.u);
    etl_runs_free(r);
}
END_TEST

/* The DPC/ISR spans a run's time is reduced by. */
struct spans {
    int n;
    int64_t a[8], b[8];
};

static bool count_run(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid, int64_t a, int64_t b)
{
    (void)ctx;
    (void)cpu;
    (void)proc;
    (void)tid;
    (void)a;
    (void)b;
    return true;
}

static bool took(void *ctx, uint16_t cpu, uint32_t proc, uint32_t tid, int64_t a, int64_t b,
                 int sign)
{
    struct spans *x = ctx;
    (void)cpu;
    (void)proc;
    (void)tid;
    ck_assert_int_eq(sign, -1);
    ck_assert_int_lt(x->n, 8);
    x->a[x->n] = a;
    x->b[x->n++] = b;
    return true;
}

START_TEST(usage_intr_spans_taken_once)
{
    struct etl_clock clk;
    etl_clock_init(&clk, 0, 1000000000, 0);
    struct spans x;
    memset(&x, 0, sizeof x);
    struct etl_runs *r = etl_runs_new(NULL, &clk, NULL, count_run, &x);
    ck_assert(r);
    etl_runs_on_intr(r, took);
    /* Thread 9 runs from 0 to 100 on CPU 0. Damaged DPC/ISR spans: 10-30,
     * 20-40 and 35-50 cross each other, 90-130 reaches past the run. */
    struct etl_switch in = sw_at(0, 0, 0, 9), out = sw_at(0, 100, 9, 0);
    ck_assert(etl_runs_switch(r, &in, true));
    static const int64_t span[4][2] = { { 10, 30 }, { 20, 40 }, { 35, 50 }, { 90, 130 } };
    for (size_t i = 0; i < 4; i++) {
        struct etl_sched_item it;
        memset(&it, 0, sizeof it);
        it.kind = ETL_SCHED_INTR;
        it.cpu = 0;
        it.ts = span[i][1];
        it.u.intr.initial_time = span[i][0];
        ck_assert(etl_runs_intr(r, &it));
    }
    ck_assert(etl_runs_switch(r, &out, true));
    /* Each part of the run is taken out once: 10-50 and 90-100. */
    static const int64_t want[4][2] = { { 10, 30 }, { 30, 40 }, { 40, 50 }, { 90, 100 } };
    ck_assert_int_eq(x.n, 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(x.a[i], want[i][0]);
        ck_assert_int_eq(x.b[i], want[i][1]);
    }
    ck_assert_int_eq(etl_runs_proc(r, 0)->cpu_time, 100 - 40 - 10);
    etl_runs_free(r);
}
END_TEST

START_TEST(intervals_parse)
{
    char err[200];
    int64_t ns;
    ck_assert_int_eq(etl_usage_interval_parse("0.5", &ns, err, sizeof err), 0);
    ck_assert_int_eq(ns, 500000000);
    ck_assert_int_eq(etl_usage_interval_parse("20ms", &ns, err, sizeof err), 0);
    ck_assert_int_eq(ns, 20000000);
    ck_assert_int_eq(etl_usage_interval_parse("250us", &ns, err, sizeof err), 0);
    ck_assert_int_eq(ns, 250000);
    ck_assert_int_eq(etl_usage_interval_parse("2s", &ns, err, sizeof err), 0);
    ck_assert_int_eq(ns, 2000000000);
    ck_assert_int_eq(etl_usage_interval_parse("1.5us", &ns, err, sizeof err), 0);
    ck_assert_int_eq(ns, 1500);
    ck_assert_int_eq(etl_usage_interval_parse(".25", &ns, err, sizeof err), 0);
    ck_assert_int_eq(ns, 250000000);
    static const char *const bad[] = { "", "0", "-1", "abc", "5x", "1.5.2", "ms",
                                       "0.0000000001", "2000000" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(etl_usage_interval_parse(bad[i], &ns, err, sizeof err) == -1,
                      "'%s' accepted", bad[i]);
    /* About 100 intervals, 1, 2 or 5 times a power of ten. */
    ck_assert_int_eq(etl_usage_nice_interval(2300000000, 100), 20000000);
    ck_assert_int_eq(etl_usage_nice_interval(127000000000, 100), 1000000000);
    ck_assert_int_eq(etl_usage_nice_interval(3600000000000, 100), 50000000000);
    ck_assert_int_eq(etl_usage_nice_interval(1000, 100), 1000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("export");
    TCase *tc = tcase_create("export");
    tcase_add_test(tc, varints);
    tcase_add_test(tc, signed_forms);
    tcase_add_test(tc, keys_and_lengths);
    tcase_add_test(tc, buffers);
    tcase_add_test(tc, cswitch_from_idle);
    tcase_add_test(tc, cswitch_partial);
    tcase_add_test(tc, ready_thread);
    tcase_add_test(tc, usage_split);
    tcase_add_test(tc, usage_waits_for_open_runs);
    tcase_add_test(tc, usage_intr_spans_taken_once);
    tcase_add_test(tc, intervals_parse);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
