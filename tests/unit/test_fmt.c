/*
 * test_fmt.c - the number formatters of fmt.h against the C library's
 * printf: every digit count and its edges, powers of ten and their
 * neighbours, pseudo-random values, seconds at each precision, and GUIDs
 * in their registry form.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "unit.h"

/* A small deterministic generator (xorshift64*). */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* Fails the test unless got[0..n) is want and got[n] was left alone
 * (Check's assertions are kept for failures: each costs a message). */
static void same(const char *got, size_t n, const char *want)
{
    if (n != strlen(want) || memcmp(got, want, n) != 0 || got[n] != 'x')
        ck_abort_msg("wrote '%.*s' (%zu bytes), want '%s'", (int)n, got, n, want);
}

/* Checks etl_fmt_u64 and etl_fmt_i64 on v against printf. */
static void check_u64(uint64_t v)
{
    char want[32], got[32];
    snprintf(want, sizeof want, "%" PRIu64, v);
    memset(got, 'x', sizeof got);
    same(got, etl_fmt_u64(v, got), want);
    int64_t i = (int64_t)v;
    snprintf(want, sizeof want, "%" PRId64, i);
    memset(got, 'x', sizeof got);
    same(got, etl_fmt_i64(i, got), want);
}

START_TEST(integers)
{
    uint64_t p = 1;
    for (int k = 0; k < 20; k++) {
        check_u64(p);
        check_u64(p - 1);
        check_u64(p + 1);
        check_u64(p * 5);
        if (k < 19)
            p *= 10;
    }
    for (int b = 0; b < 64; b++) {
        check_u64((uint64_t)1 << b);
        check_u64(((uint64_t)1 << b) - 1);
    }
    check_u64(0);
    check_u64(UINT64_MAX);
    check_u64((uint64_t)INT64_MAX);
    check_u64((uint64_t)INT64_MAX + 1); /* INT64_MIN as signed */
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        uint64_t v = rnd(&s);
        check_u64(v >> (v & 63)); /* every magnitude */
    }
}
END_TEST

/* etl_fmt_digits8 on every value below 10^8 where it has a way of its own
 * (SSE2) against the word-at-a-time way, and on every thousandth value and
 * each power of ten and its neighbours against printf. */
START_TEST(digits8)
{
#if defined(__SSE2__)
    for (uint32_t v = 0; v < 100000000u; v++)
        if (etl_fmt_digits8(v) != etl_fmt_digits8_swar(v))
            ck_abort_msg("etl_fmt_digits8(%u) differs from the word-at-a-time way", v);
#endif
    for (uint32_t v = 0; v < 100000000u; v += 997) {
        uint32_t p = 1;
        for (int k = 0; k < 9; k++, p *= 10) {
            uint32_t w[3] = { v, p - 1, p < 100000000u ? p : 0 };
            for (int j = 0; j < 3; j++) {
                char want[16], got[16];
                snprintf(want, sizeof want, "%08u", w[j]);
                etl_fmt_store8(got, etl_fmt_digits8(w[j]));
                got[8] = 'x';
                same(got, 8, want);
            }
            if (v)
                break;
        }
    }
}
END_TEST

/* Checks etl_fmt_hex on v with every minimum digit count against printf. */
static void check_hex(uint64_t v)
{
    for (int d = 1; d <= 16; d++) {
        char want[32], got[32];
        snprintf(want, sizeof want, "0x%0*" PRIx64, d, v);
        memset(got, 'x', sizeof got);
        same(got, etl_fmt_hex(v, d, got), want);
    }
    char want[32], got[32]; /* and etl_fmt_hex16, the inline etl_fmt_hex(v, 4) */
    snprintf(want, sizeof want, "0x%04" PRIx64, v);
    memset(got, 'x', sizeof got);
    same(got, etl_fmt_hex16(v, got), want);
}

START_TEST(hex)
{
    check_hex(0);
    check_hex(UINT64_MAX);
    for (int b = 0; b < 64; b++) {
        check_hex((uint64_t)1 << b);
        check_hex(((uint64_t)1 << b) - 1);
    }
    for (uint64_t v = 0; v <= 0x10000; v += 0x101) /* every byte in each place */
        check_hex(v);
    uint64_t s = 2463534242ull;
    for (int i = 0; i < 20000; i++) {
        uint64_t v = rnd(&s);
        check_hex(v >> (v & 63));
    }
}
END_TEST

/* Checks etl_fmt_seconds(ns, d), and with d 9 or 6 etl_fmt_seconds9(ns) or
 * etl_fmt_seconds6(ns), against printf of the truncated value. */
static void check_seconds(int64_t ns, int d)
{
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t div = 1;
    for (int k = d; k < 9; k++)
        div *= 10;
    char want[48], got[48];
    snprintf(want, sizeof want, "%s%" PRIu64 ".%0*" PRIu64, ns < 0 ? "-" : "",
             a / 1000000000u, d, a % 1000000000u / div);
    memset(got, 'x', sizeof got);
    same(got, etl_fmt_seconds(ns, d, got), want);
    if (d == 9 || d == 6) { /* and the inline forms of nine and six decimals */
        memset(got, 'x', sizeof got);
        same(got, d == 9 ? etl_fmt_seconds9(ns, got) : etl_fmt_seconds6(ns, got), want);
    }
}

START_TEST(seconds)
{
    static const int64_t fixed[] = {
        0, 1, 9, 10, 999999999, 1000000000, 1000000001, 59999999999, -1, -999999999,
        -1000000000, 99999999999999999, 100000000000000000, INT64_MAX, INT64_MIN,
        INT64_MIN + 1, 123456789012345678,
    };
    for (int d = 1; d <= 9; d++) {
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            check_seconds(fixed[i], d);
        uint64_t s = 2463534242u;
        s += (unsigned)d;
        for (int i = 0; i < 50000; i++) {
            uint64_t v = rnd(&s);
            check_seconds((int64_t)(v >> (v & 63)), d);
            check_seconds(-(int64_t)((v >> 1) >> (v & 63)), d);
        }
    }
}
END_TEST

/* Fails unless got[0..n) is want (what the memo forms write past it is
 * theirs to write). */
static void same_prefix(const char *got, size_t n, const char *want)
{
    if (n != strlen(want) || memcmp(got, want, n) != 0)
        ck_abort_msg("wrote '%.*s' (%zu bytes), want '%s'", (int)n, got, n, want);
}

/* The memo forms against printf on walks of values that mostly share their
 * leading digits with the one before (as a trace's times do), jump
 * sometimes, and go through every magnitude and sign; each memo is reused
 * from value to value. */
START_TEST(memo)
{
    struct etl_fmt_memo mi, mu, ms;
    memset(&mi, 0, sizeof mi);
    memset(&mu, 0, sizeof mu);
    memset(&ms, 0, sizeof ms);
    uint64_t s = 977;
    int64_t v = 88559845653;
    for (int i = 0; i < 400000; i++) {
        uint64_t r = rnd(&s);
        if (r % 100 == 0)
            v = (int64_t)(rnd(&s) >> (r >> 8 & 63)) * (r & 1 << 20 ? -1 : 1); /* a jump */
        else
            v += (int64_t)(r >> 40) % 5000000; /* a step, up to half a second at 10 MHz */
        char want[48], got[48];
        snprintf(want, sizeof want, "%" PRId64, v);
        same_prefix(got, etl_fmt_i64_memo(v, got, &mi), want);
        snprintf(want, sizeof want, "%" PRIu64, (uint64_t)v);
        same_prefix(got, etl_fmt_u64_memo((uint64_t)v, got, &mu), want);
        uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
        snprintf(want, sizeof want, "%s%" PRIu64 ".%09" PRIu64, v < 0 ? "-" : "",
                 a / 1000000000u, a % 1000000000u);
        same_prefix(got, etl_fmt_seconds9_memo(v, got, &ms), want);
    }
}
END_TEST

/* One memo through which the numbers of two or three walks go in turn, as
 * a row's tick count and file offset do, with a third now and then: each
 * written as printf writes it, whichever way of the memo holds its leading
 * digits or none does. */
START_TEST(memo_shared)
{
    struct etl_fmt_memo mu, ms;
    memset(&mu, 0, sizeof mu);
    memset(&ms, 0, sizeof ms);
    uint64_t s = 31337;
    uint64_t walk[3] = { 132517882571u, 524288000u, 99999999999u };
    for (int i = 0; i < 300000; i++) {
        uint64_t r = rnd(&s);
        unsigned k = r % 50 == 0 ? 2 : (unsigned)i & 1;
        walk[k] += (r >> 40) % (k == 1 ? 8192u : 5000000u);
        if (r % 1000 == 1)
            walk[k] = rnd(&s) >> (r >> 10 & 31); /* a jump */
        uint64_t v = walk[k];
        char want[48], got[48];
        snprintf(want, sizeof want, "%" PRIu64, v);
        same_prefix(got, etl_fmt_u64_memo(v, got, &mu), want);
        uint64_t ns = v >> 1; /* not negative as an int64_t */
        snprintf(want, sizeof want, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
        same_prefix(got, etl_fmt_seconds9_memo((int64_t)ns, got, &ms), want);
    }
}
END_TEST

/* Checks etl_guid_str on g against printf of its three little-endian
 * fields and eight bytes. */
static void check_guid(const uint8_t g[16])
{
    char want[48], got[48];
    uint32_t d1 = (uint32_t)g[0] | (uint32_t)g[1] << 8 | (uint32_t)g[2] << 16 |
                  (uint32_t)g[3] << 24;
    unsigned d2 = (unsigned)g[4] | (unsigned)g[5] << 8, d3 = (unsigned)g[6] | (unsigned)g[7] << 8;
    snprintf(want, sizeof want, "%08" PRIx32 "-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             d1, d2, d3, g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
    memset(got, 'x', sizeof got);
    etl_guid_str(g, got);
    if (strcmp(got, want) != 0 || got[37] != 'x')
        ck_abort_msg("wrote '%s', want '%s'", got, want);
}

START_TEST(guid)
{
    uint8_t g[16];
    /* The kernel's EventTraceGuid, as it lies in a file. */
    static const uint8_t event_trace[16] = { 0x00, 0xd9, 0xfd, 0x68, 0x3e, 0x4a, 0xd1, 0x11,
                                             0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 };
    char s[37];
    etl_guid_str(event_trace, s);
    ck_assert_str_eq(s, "68fdd900-4a3e-11d1-84f4-0000f80464e3");
    memset(g, 0, sizeof g);
    check_guid(g);
    memset(g, 0xFF, sizeof g);
    check_guid(g);
    uint64_t r = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        for (int k = 0; k < 16; k++)
            g[k] = (uint8_t)(rnd(&r) >> 56);
        check_guid(g);
    }
}
END_TEST

/* --time=local's ISO form: the local date and time at the offset, across
 * a day's and a year's end, and the offset in place of Z; at the ends of
 * the FILETIME range the date clamped as etl_filetime_iso clamps it. */
START_TEST(iso_local)
{
    static const struct {
        int64_t ft;
        int32_t minutes;
        const char *want;
    } cases[] = {
        /* 2020-09-14T22:49:57.2118091Z */
        { 132445973972118091LL, -420, "2020-09-14T15:49:57.2118091-07:00" },
        { 132445973972118091LL, 0, "2020-09-14T22:49:57.2118091+00:00" },
        { 132445973972118091LL, 330, "2020-09-15T04:19:57.2118091+05:30" },
        /* 2020-12-31T20:00:00Z, and 2021-01-01T05:00:00Z */
        { 132539184000000000LL, 330, "2021-01-01T01:30:00.0000000+05:30" },
        { 132539508000000000LL, -600, "2020-12-31T19:00:00.0000000-10:00" },
        { INT64_MAX, 60, "9999" },
        { INT64_MIN, -60, "0000" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[48];
        size_t n = etl_filetime_iso_local(cases[i].ft, cases[i].minutes, out);
        ck_assert_uint_eq(n, strlen(out));
        ck_assert_uint_eq(n, 33);
        ck_assert_msg(strncmp(out, cases[i].want, strlen(cases[i].want)) == 0, "%s", out);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fmt");
    TCase *tc = tcase_create("fmt");
    tcase_add_test(tc, integers);
    tcase_add_test(tc, digits8);
    tcase_add_test(tc, hex);
    tcase_add_test(tc, seconds);
    tcase_add_test(tc, memo);
    tcase_add_test(tc, memo_shared);
    tcase_add_test(tc, guid);
    tcase_add_test(tc, iso_local);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
