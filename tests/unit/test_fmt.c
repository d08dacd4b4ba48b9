/*
 * test_fmt.c - the number formatters of fmt.h against the C library's
 * printf: every digit count and its edges, powers of ten and their
 * neighbours, pseudo-random values, and seconds at each precision.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

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

/* Checks etl_fmt_hex on v with every minimum digit count against printf. */
static void check_hex(uint64_t v)
{
    for (int d = 1; d <= 16; d++) {
        char want[32], got[32];
        snprintf(want, sizeof want, "0x%0*" PRIx64, d, v);
        memset(got, 'x', sizeof got);
        same(got, etl_fmt_hex(v, d, got), want);
    }
}

START_TEST(hex)
{
    check_hex(0);
    check_hex(UINT64_MAX);
    for (int b = 0; b < 64; b++) {
        check_hex((uint64_t)1 << b);
        check_hex(((uint64_t)1 << b) - 1);
    }
    uint64_t s = 2463534242ull;
    for (int i = 0; i < 20000; i++) {
        uint64_t v = rnd(&s);
        check_hex(v >> (v & 63));
    }
}
END_TEST

/* Checks etl_fmt_seconds(ns, d) against printf of the truncated value. */
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

int main(void)
{
    Suite *s = suite_create("fmt");
    TCase *tc = tcase_create("fmt");
    tcase_add_test(tc, integers);
    tcase_add_test(tc, hex);
    tcase_add_test(tc, seconds);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
