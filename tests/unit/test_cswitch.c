/*
 * test_cswitch.c - the CSwitch decoder on the real payloads of
 * vectors/cswitch-payloads.md, and the compact-batch decoder on batches built
 * by hand from doc/format.md §8.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "decode/cswitch.h"
#include "decode/names.h"
#include "unit.h"

/* Returns an event whose data is d[0..n) with the given version. */
/* Decodes a CSwitch event through a cursor over its data. */
static bool decode_cs(const struct etl_event *ev, struct etl_switch *sw)
{
    struct etl_cursor c = etl_cur_make(ev->data, ev->data_len);
    return etl_decode_cswitch(ev, &c, sw);
}

/* The OldThreadStateWr values counted by the last decode_batch. */
static uint64_t state_wr[64];

/* Decodes a batch through a cursor over its data, counting its
 * OldThreadStateWr values into state_wr (cleared first). */
static size_t decode_batch(const struct etl_event *ev, unsigned bias, struct etl_switch *out,
                           size_t cap, etl_batch_diag_fn diag, void *ctx, uint64_t *bad)
{
    struct etl_cursor c = etl_cur_make(ev->data, ev->data_len);
    memset(state_wr, 0, sizeof state_wr);
    return etl_decode_batch(ev, &c, bias, out, cap, diag, ctx, bad, state_wr);
}

static struct etl_event event_of(const uint8_t *d, size_t n, unsigned version)
{
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.data = d;
    ev.data_len = (uint32_t)n;
    ev.version = (uint16_t)version;
    ev.ts = 1234;
    ev.cpu = 3;
    ev.kind = ETL_KIND_PERFINFO64;
    ev.hook_id = ETL_HOOK_CSWITCH;
    ev.flags = ETL_EV_TS | ETL_EV_HOOK;
    return ev;
}

START_TEST(cswitch_v4_windows10)
{
    /* Vector 1: CSwitch version 4, 64-bit Windows 10. */
    static const uint8_t d[] = {
        0xc0, 0x3b, 0x00, 0x00, 0x48, 0x55, 0x00, 0x00, 0x09, 0x08, 0x00, 0x00,
        0x1f, 0x00, 0x01, 0x02, 0x1f, 0x00, 0x00, 0x00, 0x85, 0x53, 0x00, 0x00,
    };
    struct etl_event ev = event_of(d, sizeof d, 4);
    struct etl_switch sw;
    ck_assert(decode_cs(&ev, &sw));
    ck_assert_uint_eq(sw.new_tid, 15296);
    ck_assert_uint_eq(sw.old_tid, 21832);
    ck_assert_int_eq(sw.new_priority, 9);
    ck_assert_int_eq(sw.old_priority, 8);
    /* The old thread is not the idle thread: byte 10 is its rank (§7.3). */
    ck_assert(!(sw.has & SW_PREV_CSTATE));
    ck_assert(sw.has & SW_OLD_RANK);
    ck_assert_uint_eq(sw.old_rank, 0);
    ck_assert_int_eq(sw.new_priority_decrement, 0);
    ck_assert_str_eq(etl_wait_reason_name(sw.old_wait_reason), "WrDispatchInt");
    ck_assert_str_eq(etl_wait_mode_name(sw.old_wait_mode), "KernelMode");
    ck_assert_str_eq(etl_thread_state_name(sw.old_state), "Ready");
    ck_assert_uint_eq(sw.ideal_cpu, 2);
    ck_assert_uint_eq(sw.new_wait_time, 31);
    ck_assert_int_eq(sw.old_remaining_quantum, 21381);
    ck_assert_int_eq(sw.ts, 1234);
    ck_assert_uint_eq(sw.cpu, 3);
    ck_assert_uint_eq(sw.source, ETL_SW_CSWITCH);
    ck_assert(sw.has & SW_FLAGS);
    ck_assert(sw.has & SW_NEW_TID);
}
END_TEST

START_TEST(cswitch_v2_from_idle)
{
    /* Vector 2: CSwitch version 2, switch away from the idle thread. */
    static const uint8_t d[] = {
        0xcc, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x00,
        0x00, 0x00, 0x02, 0x04, 0x01, 0x00, 0x00, 0x00, 0x87, 0x6d, 0x88, 0x34,
    };
    struct etl_event ev = event_of(d, sizeof d, 2);
    struct etl_switch sw;
    ck_assert(decode_cs(&ev, &sw));
    ck_assert_uint_eq(sw.new_tid, 2252);
    ck_assert_uint_eq(sw.old_tid, 0);
    ck_assert_int_eq(sw.new_priority, 8);
    ck_assert_int_eq(sw.old_priority, 0);
    ck_assert(sw.has & SW_PREV_CSTATE); /* the idle thread leaves */
    ck_assert_uint_eq(sw.prev_cstate, 1);
    ck_assert(!(sw.has & SW_OLD_RANK));
    ck_assert_str_eq(etl_wait_reason_name(sw.old_wait_reason), "Executive");
    ck_assert_str_eq(etl_wait_mode_name(sw.old_wait_mode), "KernelMode");
    ck_assert_str_eq(etl_thread_state_name(sw.old_state), "Running");
    ck_assert_uint_eq(sw.ideal_cpu, 4);
    ck_assert_uint_eq(sw.new_wait_time, 1);
    ck_assert_int_eq(sw.old_remaining_quantum, 881356167);
    ck_assert(!(sw.has & SW_FLAGS)); /* version 2: byte 13 has no flags */
}
END_TEST

START_TEST(cswitch_wait_mode_flags)
{
    /* Byte 13: bit 0 is the mode, the bits above are flags (1709+). */
    uint8_t d[24] = { 0 };
    d[4] = 7;
    d[13] = 0x0b; /* UserMode, flags 0b101 */
    struct etl_event ev = event_of(d, sizeof d, 4);
    struct etl_switch sw;
    ck_assert(decode_cs(&ev, &sw));
    ck_assert_uint_eq(sw.old_wait_mode, 1);
    ck_assert_uint_eq(sw.flags, 5);
}
END_TEST

START_TEST(cswitch_short_payloads)
{
    uint8_t d[24] = { 0 };
    struct etl_switch sw;
    struct etl_event ev = event_of(d, 15, 2);
    ck_assert(!decode_cs(&ev, &sw));
    ev = event_of(d, 16, 1); /* version 1: no wait time, no quantum */
    ck_assert(decode_cs(&ev, &sw));
    ck_assert(!(sw.has & SW_NEW_WAIT_TIME));
    ck_assert(!(sw.has & SW_OLD_QUANTUM));
    ck_assert(!(sw.has & SW_NEW_PRI_DECREMENT));
}
END_TEST

/* --- compact batches ----------------------------------------------------- */

struct batch {
    uint8_t d[1024];
    size_t n;
};

static void put16(struct batch *b, uint32_t v)
{
    b->d[b->n++] = (uint8_t)v;
    b->d[b->n++] = (uint8_t)(v >> 8);
}

static void put32(struct batch *b, uint32_t v)
{
    put16(b, v & 0xFFFF);
    put16(b, v >> 16);
}

/* Starts a batch: FirstTimeStamp, TidTable, ThreadBasePriority (format.md §8.1). */
static void batch_start(struct batch *b, int64_t first, const uint32_t *tids,
                        const int8_t *base, size_t nt)
{
    memset(b, 0, sizeof *b);
    put32(b, (uint32_t)first);
    put32(b, (uint32_t)((uint64_t)first >> 32));
    for (size_t i = 0; i < 16; i++)
        put32(b, i < nt ? tids[i] : 0);
    for (size_t i = 0; i < 16; i++)
        b->d[b->n++] = (uint8_t)(i < nt ? base[i] : 0);
}

struct diag_log {
    int count;
    size_t last_at;
    char last[128];
};

static void diag_cb(void *ctx, const struct etl_event *ev, size_t at, const char *msg)
{
    (void)ev;
    struct diag_log *l = ctx;
    l->count++;
    l->last_at = at;
    strncpy(l->last, msg, sizeof l->last - 1);
}

START_TEST(batch_all_four_forms)
{
    static const uint32_t tids[] = { 100, 200 };
    static const int8_t base[] = { 8, 10 };
    struct batch b;
    batch_start(&b, 1000, tids, base, 2);
    put16(&b, (5u << 2) | 0);                       /* IDLE_SHORT, delta 5 */
    put32(&b, (0x12345u << 2) | 1);                 /* IDLE, delta 0x12345 */
    /* LITE: index 1, PriInc 3, StateWr 6 (UserRequest, Waiting), delta 0x1FFFF */
    put32(&b, 2u | (1u << 2) | (3u << 6) | (6u << 9) | (0x1FFFFu << 15));
    /* FULL: delta 2^30-1 | index 0, StateWr 0x27+1 (Ready), priority 31, wait 0x1FFFF */
    put32(&b, 3u | (0x3FFFFFFFu << 2));
    put32(&b, 0u | ((0x27u + 1) << 4) | (31u << 10) | (0x1FFFFu << 15));
    struct etl_event ev = event_of(b.d, b.n, 2);
    ev.hook_id = ETL_HOOK_CSWITCH_BATCH;
    struct etl_switch out[16];
    struct diag_log log = { 0 };
    uint64_t bad = 0;
    size_t n = decode_batch(&ev, 0x27, out, 16, diag_cb, &log, &bad);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(log.count, 0);
    ck_assert_uint_eq(bad, 0);

    ck_assert_int_eq(out[0].ts, 1005);
    ck_assert_uint_eq(out[0].old_tid, 0);
    ck_assert(out[0].has & SW_OLD_TID);
    ck_assert(!(out[0].has & (SW_OLD_PRIORITY | SW_OLD_STATE | SW_OLD_WAIT_REASON |
                              SW_NEW_WAIT_TIME | SW_NEW_TID)));
    ck_assert_uint_eq(out[0].form, ETL_CCSWAP_IDLE_SHORT);

    ck_assert_int_eq(out[1].ts, 1005 + 0x12345);
    ck_assert_uint_eq(out[1].form, ETL_CCSWAP_IDLE);

    ck_assert_int_eq(out[2].ts, 1005 + 0x12345 + 0x1FFFF);
    ck_assert_uint_eq(out[2].old_tid, 200);
    ck_assert_int_eq(out[2].old_priority, 13);
    ck_assert_uint_eq(out[2].old_state, 5);
    ck_assert_str_eq(etl_wait_reason_name(out[2].old_wait_reason), "UserRequest");
    ck_assert(!(out[2].has & SW_NEW_WAIT_TIME));

    ck_assert_int_eq(out[3].ts, 1005 + 0x12345 + 0x1FFFF + 0x3FFFFFFF);
    ck_assert_uint_eq(out[3].old_tid, 100);
    ck_assert_int_eq(out[3].old_priority, 31);
    ck_assert_str_eq(etl_thread_state_name(out[3].old_state), "Ready");
    ck_assert(!(out[3].has & SW_OLD_WAIT_REASON));
    ck_assert_uint_eq(out[3].new_wait_time, 0x1FFFF);
    /* The values as recorded, of the LITE and FULL records only. */
    uint64_t counted = 0;
    for (unsigned v = 0; v < 64; v++)
        counted += state_wr[v];
    ck_assert_uint_eq(counted, 2);
    ck_assert_uint_eq(state_wr[6], 1);
    ck_assert_uint_eq(state_wr[0x27 + 1], 1);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(out[i].source, ETL_SW_COMPACT);
        ck_assert(!(out[i].has & (SW_NEW_PRIORITY | SW_OLD_WAIT_MODE | SW_IDEAL_CPU |
                                  SW_PREV_CSTATE | SW_NEW_PRI_DECREMENT | SW_OLD_QUANTUM)));
        ck_assert_uint_eq(out[i].cpu, 3);
    }
}
END_TEST

START_TEST(batch_bias_moves_with_build)
{
    /* StateWr 0x2B: Ready under bias 0x2A (Windows 11), a wait reason
     * never: with bias 0x27 it reads as state 4 (Terminated). */
    static const uint32_t tids[] = { 100 };
    static const int8_t base[] = { 8 };
    struct batch b;
    batch_start(&b, 0, tids, base, 1);
    put32(&b, 2u | (0x2Bu << 9) | (1u << 15));
    struct etl_event ev = event_of(b.d, b.n, 2);
    struct etl_switch out[4];
    struct diag_log log = { 0 };
    uint64_t bad = 0;
    ck_assert_uint_eq(decode_batch(&ev, 0x2A, out, 4, diag_cb, &log, &bad), 1);
    ck_assert_str_eq(etl_thread_state_name(out[0].old_state), "Ready");
    ck_assert_uint_eq(decode_batch(&ev, 0x27, out, 4, diag_cb, &log, &bad), 1);
    ck_assert_str_eq(etl_thread_state_name(out[0].old_state), "Terminated");
    ck_assert_uint_eq(etl_max_wait_reason_for_build(19041), 0x27);
    ck_assert_uint_eq(etl_max_wait_reason_for_build(10240), 0x27);
    ck_assert_uint_eq(etl_max_wait_reason_for_build(22631), 0x2A);
    ck_assert_uint_eq(etl_max_wait_reason_for_build(7601), 0x25);
}
END_TEST

START_TEST(batch_implausible_states)
{
    /* StateWr 0x27 + 5 would be "Waiting", 0x27 + 12 beyond any state. */
    static const uint32_t tids[] = { 100 };
    static const int8_t base[] = { 8 };
    struct batch b;
    batch_start(&b, 0, tids, base, 1);
    put32(&b, 2u | ((0x27u + 5) << 9));
    put32(&b, 2u | ((0x27u + 12) << 9));
    struct etl_event ev = event_of(b.d, b.n, 2);
    struct etl_switch out[4];
    struct diag_log log = { 0 };
    uint64_t bad = 0;
    ck_assert_uint_eq(decode_batch(&ev, 0x27, out, 4, diag_cb, &log, &bad), 2);
    ck_assert_uint_eq(bad, 2);
    ck_assert_int_eq(log.count, 1); /* reported once, counted always */
    ck_assert_uint_eq(log.last_at, 0x58);
}
END_TEST

START_TEST(batch_damage)
{
    static const uint32_t tids[] = { 100 };
    static const int8_t base[] = { 8 };
    struct batch b;
    batch_start(&b, 0, tids, base, 1);
    put32(&b, 2u | (5u << 2) | (1u << 15)); /* LITE naming empty slot 5 */
    put16(&b, 3u);                          /* FULL cut after 2 of 8 bytes */
    struct etl_event ev = event_of(b.d, b.n, 2);
    struct etl_switch out[8];
    struct diag_log log = { 0 };
    uint64_t bad = 0;
    size_t n = decode_batch(&ev, 0x27, out, 8, diag_cb, &log, &bad);
    ck_assert_uint_eq(n, 1);
    ck_assert(!(out[0].has & SW_OLD_TID)); /* unknown, not invented */
    ck_assert_int_eq(log.count, 2);
    ck_assert_uint_eq(log.last_at, 0x58 + 4);
    ck_assert(strstr(log.last, "past the end") != NULL);

    /* Shorter than the 0x58-byte header. */
    ev = event_of(b.d, 0x57, 2);
    log.count = 0;
    ck_assert_uint_eq(decode_batch(&ev, 0x27, out, 8, diag_cb, &log, &bad), 0);
    ck_assert_int_eq(log.count, 1);
    /* Exactly the header: no switches, no complaint. */
    ev = event_of(b.d, 0x58, 2);
    log.count = 0;
    ck_assert_uint_eq(decode_batch(&ev, 0x27, out, 8, diag_cb, &log, &bad), 0);
    ck_assert_int_eq(log.count, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cswitch");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, cswitch_v4_windows10);
    tcase_add_test(tc, cswitch_v2_from_idle);
    tcase_add_test(tc, cswitch_wait_mode_flags);
    tcase_add_test(tc, cswitch_short_payloads);
    tcase_add_test(tc, batch_all_four_forms);
    tcase_add_test(tc, batch_bias_moves_with_build);
    tcase_add_test(tc, batch_implausible_states);
    tcase_add_test(tc, batch_damage);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
