/*
 * Unit tests for the clock conversion (src/clock.c, clock.h): etl_clock_ns
 * against a reference written here, floor(|ts - t0| * 10^9 / freq) by
 * 128-bit long division one bit at a time, signed and saturated to the
 * int64 range; for clocks whose tick is a whole number of nanoseconds (one
 * multiplication) and clocks whose tick is not (those that older Windows
 * and the processor's cycle counter give: seconds and ticks converted
 * apart), at the edges of a second's ticks, far from t0, at the ends of
 * the range, with frequencies from 1 to past 2^40 and random ones;
 * etl_muldiv_u64 against the same division; and the offset of a recording
 * machine's time zone (etl_tz_offset) at the changes to and from daylight
 * time of zones north and south, by rule and by date, against times the C
 * library's timegm gives.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "clock.h"
#include "unit.h"

/* The state of the generator (unit_rand). */
static uint64_t rng = 0x2545F4914F6CDD1Dull;

/* A 128-bit value. */
struct u128 {
    uint64_t hi, lo;
};

/* a * b, from 32-bit halves. */
static struct u128 mul64(uint64_t a, uint64_t b)
{
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t cross = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    struct u128 r = { p11 + (p01 >> 32) + (p10 >> 32) + (cross >> 32),
                      (cross << 32) | (p00 & 0xFFFFFFFFu) };
    return r;
}

/* floor(n / d) for d > 0: every bit of n from the top, the remainder kept
 * below d (it fits 65 bits: the carry says when it passed 64). */
static struct u128 div128(struct u128 n, uint64_t d)
{
    struct u128 q = { 0, 0 };
    uint64_t rem = 0;
    for (int i = 127; i >= 0; i--) {
        uint64_t bit = i >= 64 ? n.hi >> (i - 64) & 1u : n.lo >> i & 1u;
        bool carry = rem >> 63 != 0;
        rem = rem << 1 | bit;
        if (carry || rem >= d) {
            rem -= d;
            if (i >= 64)
                q.hi |= 1ull << (i - 64);
            else
                q.lo |= 1ull << i;
        }
    }
    return q;
}

/* What etl_clock_ns must return for a clock of freq ticks a second (a
 * frequency of 0 or less means 10 MHz) starting at t0. */
static int64_t reference_ns(int64_t t0, int64_t freq, int64_t ts)
{
    uint64_t f = freq > 0 ? (uint64_t)freq : 10000000u;
    bool neg = ts < t0;
    uint64_t mag = neg ? (uint64_t)t0 - (uint64_t)ts : (uint64_t)ts - (uint64_t)t0;
    struct u128 q = div128(mul64(mag, 1000000000u), f);
    if (neg)
        return q.hi || q.lo > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)q.lo;
    return q.hi || q.lo > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)q.lo;
}

/* Converts ts on the clock (t0, freq) both ways; the test fails (with a
 * message) when they differ. */
static void same(int64_t t0, int64_t freq, int64_t ts)
{
    struct etl_clock c;
    etl_clock_init(&c, t0, freq, 0);
    int64_t got = etl_clock_ns(&c, ts), want = reference_ns(t0, freq, ts);
    /* By hand: a ck_assert passed costs Check a message, and there are
     * some 160,000. */
    if (got != want)
        ck_abort_msg("clock of %lld Hz from %lld: %lld ticks give %lld ns, not %lld",
                     (long long)freq, (long long)t0, (long long)ts, (long long)got,
                     (long long)want);
}

/* Frequencies of real clocks and of the edges of the ways of converting. */
static const int64_t freqs[] = {
    1, 2, 3, 7, 1000, 32768, 1193182, 2338525, 2343750, 3312785, 3579545, 10000000,
    14318180, 24000000, 1000000000, 2593000000, 3000000007, 8589934591, 8589934592,
    8589934593, 1099511627781, INT64_MAX, 0, -5,
};
#define NFREQS (sizeof freqs / sizeof freqs[0])

/* Tick counts past t0 (and before it) on clock freq: at the edges of
 * whole seconds, small ones, far ones, random ones, k choosing which. */
static int64_t ticks_for(int64_t freq, unsigned k)
{
    uint64_t f = freq > 0 ? (uint64_t)freq : 10000000u;
    uint64_t r = unit_rand(&rng);
    switch (k % 8) {
    case 0: return (int64_t)(r % 4);                         /* 0 to 3 */
    case 1: return (int64_t)(f - 1 + r % 3);                 /* a second's edge */
    case 2: {                                                /* k seconds, off by one */
        uint64_t secs = r % ((uint64_t)INT64_MAX / f + 1);
        return (int64_t)(secs * f + (r >> 62) - 1);
    }
    case 3: return (int64_t)(r % (1ull << 40));              /* hours at GHz rates */
    case 4: return (int64_t)(r >> 1);                        /* anywhere positive */
    case 5: return (int64_t)r;                               /* anywhere */
    case 6: return (int64_t)((r >> 2) | (1ull << 61));       /* near the top of 2^62 */
    default: return INT64_MAX - (int64_t)(r % 3);
    }
}

START_TEST(test_ns_listed_clocks)
{
    const int64_t t0s[] = { 0, 135702918332, -1, INT64_MIN, INT64_MAX, 4611686018427387904 };
    for (size_t i = 0; i < NFREQS; i++)
        for (size_t j = 0; j < sizeof t0s / sizeof t0s[0]; j++)
            for (unsigned k = 0; k < 400; k++) {
                int64_t t0 = t0s[j], d = ticks_for(freqs[i], k);
                /* past t0 and before it, wrapping where the range ends */
                same(t0, freqs[i], (int64_t)((uint64_t)t0 + (uint64_t)d));
                same(t0, freqs[i], (int64_t)((uint64_t)t0 - (uint64_t)d));
            }
    for (size_t i = 0; i < NFREQS; i++) {
        same(0, freqs[i], INT64_MIN);
        same(INT64_MIN, freqs[i], INT64_MAX);
        same(INT64_MAX, freqs[i], INT64_MIN);
    }
}
END_TEST

START_TEST(test_ns_random_clocks)
{
    for (unsigned n = 0; n < 20000; n++) {
        uint64_t r = unit_rand(&rng);
        /* mostly below 2^34 (every clock a machine has), some anywhere */
        int64_t freq = n % 8 ? (int64_t)(r % (1ull << 34)) + 1 : (int64_t)(r >> 1);
        int64_t t0 = (int64_t)unit_rand(&rng) >> (n % 3 ? 8 : 0);
        int64_t d = ticks_for(freq, n);
        same(t0, freq, (int64_t)((uint64_t)t0 + (uint64_t)d));
    }
}
END_TEST

START_TEST(test_ns_whole_ticks)
{
    /* A whole number of ns a tick: one multiplication up to direct_max,
     * past it saturated (100 ns ticks: 2^63 / 100 ticks and more). */
    same(0, 10000000, 92233720368547758);
    same(0, 10000000, 92233720368547759);
    same(5, 10000000, INT64_MAX);
    same(0, 1000000000, INT64_MAX);
    same(0, 1, 9223372036);
    same(0, 1, 9223372037);
}
END_TEST

START_TEST(test_muldiv)
{
    for (unsigned n = 0; n < 20000; n++) {
        uint64_t a = unit_rand(&rng) >> (n % 64), b = unit_rand(&rng) >> (n / 64 % 64);
        uint64_t d = (unit_rand(&rng) >> (n % 63)) | 1u;
        struct u128 q = div128(mul64(a, b), d);
        uint64_t want = q.hi ? UINT64_MAX : q.lo;
        ck_assert_msg(etl_muldiv_u64(a, b, d) == want, "%llu * %llu / %llu",
                      (unsigned long long)a, (unsigned long long)b, (unsigned long long)d);
    }
    ck_assert(etl_muldiv_u64(UINT64_MAX, UINT64_MAX, UINT64_MAX) == UINT64_MAX);
    ck_assert(etl_muldiv_u64(UINT64_MAX, 2, 3) == 12297829382473034410ull);
    ck_assert(etl_muldiv_u64(0, UINT64_MAX, 7) == 0);
}
END_TEST

/* ---- the recording machine's time zone ---- */

/* FILETIME of a UTC date and time, by the C library (timegm), not by the
 * code under test. */
static int64_t ft_utc(int y, int mo, int d, int h, int mi, int sec)
{
    struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
                     .tm_hour = h, .tm_min = mi, .tm_sec = sec };
    return ((int64_t)timegm(&tm) + 11644473600LL) * 10000000;
}

/* Zones as Windows describes them: the US Pacific (second Sunday of March
 * to the first of November, at 2:00), Sydney (first Sunday of October to
 * the first of April, at 2:00 and 3:00: daylight time across the new
 * year), Central Europe (the last Sundays of March and October, at 2:00
 * and 3:00), the same by dates of 2021 alone, and China (no daylight
 * time). */
static const struct etl_time_zone pacific = {
    480, 0, -60, { 0, 11, 0, 1, 2, 0, 0, 0 }, { 0, 3, 0, 2, 2, 0, 0, 0 }, "", ""
};
static const struct etl_time_zone sydney = {
    -600, 0, -60, { 0, 4, 0, 1, 3, 0, 0, 0 }, { 0, 10, 0, 1, 2, 0, 0, 0 }, "", ""
};
static const struct etl_time_zone europe = {
    -60, 0, -60, { 0, 10, 0, 5, 3, 0, 0, 0 }, { 0, 3, 0, 5, 2, 0, 0, 0 }, "", ""
};
static const struct etl_time_zone europe2021 = {
    -60, 0, -60, { 2021, 10, 0, 31, 3, 0, 0, 0 }, { 2021, 3, 0, 28, 2, 0, 0, 0 }, "", ""
};
static const struct etl_time_zone china = {
    -480, 0, -60, { 0 }, { 0 }, "", ""
};

START_TEST(test_time_zone)
{
    static const struct {
        const struct etl_time_zone *tz;
        int y, mo, d, h, mi, sec;
        int32_t want;
    } cases[] = {
        { &pacific, 2020, 9, 14, 22, 49, 57, -420 },
        { &pacific, 2024, 1, 14, 7, 36, 2, -480 },
        /* 2023: daylight time from 12 March 10:00 UTC to 5 November 9:00. */
        { &pacific, 2023, 3, 12, 9, 59, 59, -480 },
        { &pacific, 2023, 3, 12, 10, 0, 0, -420 },
        { &pacific, 2023, 11, 5, 8, 59, 59, -420 },
        { &pacific, 2023, 11, 5, 9, 0, 0, -480 },
        /* 2021: standard time from 3 April 16:00 UTC to 2 October 16:00. */
        { &sydney, 2021, 1, 15, 0, 0, 0, 660 },
        { &sydney, 2021, 7, 1, 0, 0, 0, 600 },
        { &sydney, 2021, 4, 3, 15, 59, 59, 660 },
        { &sydney, 2021, 4, 3, 16, 0, 0, 600 },
        { &sydney, 2021, 10, 2, 15, 59, 59, 600 },
        { &sydney, 2021, 10, 2, 16, 0, 0, 660 },
        { &sydney, 2021, 12, 31, 23, 0, 0, 660 },
        /* 2021: daylight time from 28 March 1:00 UTC to 31 October 1:00;
         * 2020 (a leap year): 29 March to 25 October. */
        { &europe, 2021, 3, 28, 0, 59, 59, 60 },
        { &europe, 2021, 3, 28, 1, 0, 0, 120 },
        { &europe, 2021, 10, 31, 0, 59, 59, 120 },
        { &europe, 2021, 10, 31, 1, 0, 0, 60 },
        { &europe, 2020, 3, 29, 0, 59, 59, 60 },
        { &europe, 2020, 3, 29, 1, 0, 0, 120 },
        { &europe, 2020, 10, 25, 1, 0, 0, 60 },
        { &europe2021, 2021, 3, 28, 0, 59, 59, 60 },
        { &europe2021, 2021, 3, 28, 1, 0, 0, 120 },
        { &europe2021, 2021, 10, 31, 1, 0, 0, 60 },
        { &china, 2020, 7, 14, 12, 4, 31, 480 },
        { &china, 2020, 1, 1, 0, 0, 0, 480 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool dst;
        int32_t got = etl_tz_offset(cases[i].tz, ft_utc(cases[i].y, cases[i].mo, cases[i].d,
                                                        cases[i].h, cases[i].mi, cases[i].sec),
                                    &dst);
        ck_assert_msg(got == cases[i].want, "case %zu: %d minutes, not %d", i, (int)got,
                      (int)cases[i].want);
        ck_assert_msg(dst == (cases[i].tz != &china && got != -cases[i].tz->bias),
                      "case %zu: daylight %d", i, (int)dst);
    }
    /* Nonsense from a damaged header: months and days out of range, a
     * FILETIME of 0 or past 9999: an offset, no crash. */
    struct etl_time_zone bad = { 60, 0, -60, { 0, 13, 9, 9, 99, 99, 99, 9999 },
                                 { 7, 0xFFFF, 0xFFFF, 0xFFFF, 0, 0, 0, 0 }, "", "" };
    bool dst;
    (void)etl_tz_offset(&bad, ft_utc(2021, 6, 1, 0, 0, 0), &dst);
    ck_assert_int_eq(etl_tz_offset(&pacific, 0, &dst), -480);
    ck_assert(!dst);
    (void)etl_tz_offset(&pacific, INT64_MAX, &dst);
    struct etl_time_zone huge = { INT32_MAX, INT32_MAX, INT32_MIN, { 0 }, { 0 }, "", "" };
    ck_assert_int_eq(etl_tz_offset(&huge, ft_utc(2021, 6, 1, 0, 0, 0), &dst), -(99 * 60 + 59));
    char out[7];
    static const struct { int32_t m; const char *s; } strs[] = {
        { -420, "-07:00" }, { 330, "+05:30" }, { 0, "+00:00" }, { -570, "-09:30" },
        { 765, "+12:45" }, { 99 * 60 + 59, "+99:59" }, { -100000, "-99:59" },
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        ck_assert_uint_eq(etl_tz_offset_str(strs[i].m, out), 6);
        ck_assert_str_eq(out, strs[i].s);
    }
}
END_TEST

/* etl_tz_offset_in gives etl_tz_offset's minutes at any time, inside the
 * year it was set up for (two comparisons) and outside it: random times
 * around the year's changes and anywhere in the FILETIME range, for the
 * zones above, biases of a damaged header, and years set up at the edges
 * of the range. */
START_TEST(test_time_zone_year)
{
    struct etl_time_zone wild = { 3000000, -4000000, 1000000, { 0, 6, 3, 5, 23, 59, 59, 999 },
                                  { 0, 5, 6, 1, 0, 0, 0, 0 }, "", "" };
    const struct etl_time_zone *zones[] = { &pacific, &sydney, &europe, &europe2021, &china,
                                            &wild };
    const int64_t at[] = { ft_utc(2023, 3, 12, 10, 0, 0), ft_utc(2021, 1, 1, 0, 0, 0),
                           ft_utc(1601, 6, 1, 0, 0, 0), ft_utc(9999, 6, 1, 0, 0, 0), 1, 0,
                           INT64_MAX };
    for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++)
        for (size_t a = 0; a < sizeof at / sizeof at[0]; a++) {
            struct etl_tz_year yr;
            etl_tz_year_init(&yr, zones[z], at[a]);
            for (unsigned n = 0; n < 20000; n++) {
                uint64_t r = unit_rand(&rng);
                /* Near the year (wrapping past the ends of the range), or
                 * anywhere. */
                int64_t ft = n % 2 ? (int64_t)((uint64_t)at[a] + r % (800ull * 86400 * 10000000) -
                                               400ull * 86400 * 10000000)
                                   : (int64_t)(r >> 1) * (n % 4 ? 1 : -1);
                bool d;
                int32_t want = etl_tz_offset(zones[z], ft, &d);
                ck_assert_msg(etl_tz_offset_in(zones[z], &yr, ft) == want,
                              "zone %zu, year of %lld, at %lld", z, (long long)at[a],
                              (long long)ft);
            }
        }
}
END_TEST

static Suite *clock_suite(void)
{
    Suite *s = suite_create("clock");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_ns_listed_clocks);
    tcase_add_test(tc, test_ns_random_clocks);
    tcase_add_test(tc, test_ns_whole_ticks);
    tcase_add_test(tc, test_muldiv);
    tcase_add_test(tc, test_time_zone);
    tcase_add_test(tc, test_time_zone_year);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return unit_run(clock_suite());
}
