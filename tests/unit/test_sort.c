/*
 * Unit tests for the sorts (src/sort.c, sort.h): etl_sort on elements of
 * several sizes and etl_sort_i64, against the C library's qsort, on arrays
 * with and without repeated values, of every length up to 70 and some long
 * ones;
 * etl_select_u32 against qsort's order, for every k of short arrays and
 * some k of long ones, among them arrays ordered, reversed and all equal;
 * and both introsorts (etl_sort's and ETL_SORT_TYPED's) against qsort on
 * arrays of every such shape, of every length up to 70 and long, with
 * their heapsorts reached by a small depth, and with comparisons that
 * answer at random or always "before" (both sorts end, touch nothing
 * outside the array and lose no element).
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"
#include "unit.h"

/* The state of the generator (unit_rand). */
static uint64_t rng = 88172645463325252ull;

static int cmp_i64_q(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* An element larger than a word, ordered by key, then by tag. */
struct big {
    uint32_t key;
    unsigned char pad[40];
    uint32_t tag;
};

static int cmp_big(const void *a, const void *b, void *ctx)
{
    const struct big *x = a, *y = b;
    if (ctx != &rng) /* the context reaches the comparison (by hand: a
                      * ck_assert passed costs Check a message) */
        ck_abort_msg("the comparison's context is %p, not %p", ctx, (void *)&rng);
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static int cmp_big_q(const void *a, const void *b)
{
    return cmp_big(a, b, &rng);
}

/* Values for an array of n: spread over the range of int64_t, or (few)
 * from a handful, so that many repeat. */
static int64_t value(bool few)
{
    uint64_t r = unit_rand(&rng);
    return few ? (int64_t)(r % 5) - 2 : (int64_t)r;
}

static void check_i64(size_t n, bool few)
{
    int64_t *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] = value(few);
    if (n > 2) { /* the extremes too */
        a[0] = b[0] = INT64_MIN;
        a[n - 1] = b[n - 1] = INT64_MAX;
    }
    etl_sort_i64(a, n);
    qsort(b, n, sizeof *b, cmp_i64_q);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(a[i] == b[i], "n %zu few %d: element %zu", n, few, i);
    free(a);
    free(b);
}

static void check_big(size_t n, bool few)
{
    struct big *a = calloc(n ? n : 1, sizeof *a), *b = calloc(n ? n : 1, sizeof *b);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < n; i++) {
        a[i].key = (uint32_t)(few ? unit_rand(&rng) % 4 : unit_rand(&rng));
        a[i].tag = (uint32_t)i; /* every pair ordered: the result is unique */
        memset(a[i].pad, (int)(i & 0xFF), sizeof a[i].pad);
        b[i] = a[i];
    }
    etl_sort(a, n, sizeof *a, cmp_big, &rng);
    qsort(b, n, sizeof *b, cmp_big_q);
    ck_assert(n == 0 || memcmp(a, b, n * sizeof *a) == 0);
    free(a);
    free(b);
}

static int cmp_u32_q(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The shapes of an array of u32 for etl_select_u32. */
enum shape { RANDOM, FEW, ASCENDING, DESCENDING, EQUAL, ORGAN };

static uint32_t u32_value(enum shape sh, size_t i, size_t n)
{
    switch (sh) {
    case FEW:
        return (uint32_t)(unit_rand(&rng) % 3);
    case ASCENDING:
        return (uint32_t)i;
    case DESCENDING:
        return (uint32_t)(n - i);
    case EQUAL:
        return 7;
    case ORGAN: /* up, then down: a median of three's poor case */
        return (uint32_t)(i < n / 2 ? i : n - i);
    default:
        return (uint32_t)unit_rand(&rng);
    }
}

/* etl_select_u32(a, n, k) for the given k (every k when all), against the
 * k-th of a sorted copy; the values are kept, only their order changes.
 * With rounds below 100, etl_select_u32_rounds with that many rounds of
 * partitioning before the heapsort. */
static void check_select_rounds(size_t n, enum shape sh, bool all, unsigned rounds)
{
    uint32_t *v = malloc(n * sizeof *v), *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    ck_assert(v && a && b);
    for (size_t i = 0; i < n; i++)
        v[i] = b[i] = u32_value(sh, i, n);
    qsort(b, n, sizeof *b, cmp_u32_q);
    size_t ks[] = { 0, n / 2, n - 1, n / 3, n / 2 + 1 < n ? n / 2 + 1 : n - 1 };
    size_t nk = all ? n : sizeof ks / sizeof *ks;
    for (size_t j = 0; j < nk; j++) {
        size_t k = all ? j : ks[j];
        memcpy(a, v, n * sizeof *a);
        uint32_t got = rounds < 100 ? etl_select_u32_rounds(a, n, k, rounds) : etl_select_u32(a, n, k);
        ck_assert_msg(got == b[k], "n %zu shape %d k %zu rounds %u: %u, want %u", n, (int)sh, k,
                      rounds, got, b[k]);
        qsort(a, n, sizeof *a, cmp_u32_q);
        ck_assert_msg(memcmp(a, b, n * sizeof *a) == 0, "n %zu shape %d k %zu: values lost", n,
                      (int)sh, k);
    }
    free(v);
    free(a);
    free(b);
}

static void check_select(size_t n, enum shape sh, bool all)
{
    check_select_rounds(n, sh, all, 100);
}

START_TEST(select_every_short_length)
{
    for (size_t n = 1; n <= 70; n++)
        for (int sh = RANDOM; sh <= ORGAN; sh++)
            check_select(n, (enum shape)sh, true);
}
END_TEST

START_TEST(select_long)
{
    for (int sh = RANDOM; sh <= ORGAN; sh++) {
        check_select(16384, (enum shape)sh, false);
        check_select(100001, (enum shape)sh, false);
    }
}
END_TEST

/* Out of rounds, the part left is heap-sorted: none at all, or a few
 * before it. */
START_TEST(select_heapsort_fallback)
{
    for (unsigned rounds = 0; rounds <= 2; rounds++)
        for (int sh = RANDOM; sh <= ORGAN; sh++) {
            for (size_t n = 17; n <= 70; n += 53)
                check_select_rounds(n, (enum shape)sh, true, rounds);
            check_select_rounds(5000, (enum shape)sh, false, rounds);
        }
}
END_TEST

START_TEST(i64_every_short_length)
{
    for (size_t n = 0; n <= 70; n++) {
        check_i64(n, false);
        check_i64(n, true);
    }
}
END_TEST

START_TEST(i64_long)
{
    check_i64(100000, false);
    check_i64(100000, true);
    check_i64(65537, false);
}
END_TEST

START_TEST(generic_every_short_length)
{
    for (size_t n = 0; n <= 70; n++) {
        check_big(n, false);
        check_big(n, true);
    }
    check_big(20000, true);
}
END_TEST

static int cmp_byte(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    return *(const unsigned char *)a - *(const unsigned char *)b;
}

/* Elements of 256 bytes, ordered by their last. */
static int cmp_wide(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    return ((const unsigned char *)a)[255] - ((const unsigned char *)b)[255];
}

START_TEST(generic_bytes)
{
    /* Elements of one byte and of 256, the largest allowed. */
    unsigned char one[300], want[300];
    for (size_t i = 0; i < sizeof one; i++)
        one[i] = want[i] = (unsigned char)unit_rand(&rng);
    size_t counts[256] = { 0 };
    for (size_t i = 0; i < sizeof want; i++)
        counts[want[i]]++;
    size_t k = 0;
    for (size_t v = 0; v < 256; v++)
        while (counts[v]--)
            want[k++] = (unsigned char)v;
    struct {
        unsigned char b[256];
    } *wide = calloc(40, sizeof *wide);
    ck_assert_ptr_nonnull(wide);
    for (size_t i = 0; i < 40; i++)
        wide[i].b[255] = (unsigned char)(39 - i);
    etl_sort(wide, 40, sizeof *wide, cmp_wide, NULL);
    for (size_t i = 0; i < 40; i++)
        ck_assert_uint_eq(wide[i].b[255], i);
    free(wide);
    etl_sort(one, sizeof one, 1, cmp_byte, NULL);
    ck_assert(memcmp(one, want, sizeof one) == 0);
}
END_TEST

/* ETL_SORT_TYPED on struct big by key, then tag. */
static bool big_less(const struct big *x, const struct big *y)
{
    return x->key != y->key ? x->key < y->key : x->tag < y->tag;
}
#define BIG_LESS(x, y) big_less(x, y)
ETL_SORT_TYPED(sort_big, struct big, BIG_LESS)

/* sort_big (or sort_big_depth with that depth, when depth < 100; with
 * generic, etl_sort and etl_sort_depth) of n elements of shape sh, keys
 * from few values when few, against qsort; every tag differs, so the order
 * is unique and the bytes must match. */
static void check_shaped(size_t n, enum shape sh, bool few, unsigned depth, bool generic)
{
    struct big *a = calloc(n ? n : 1, sizeof *a), *b = calloc(n ? n : 1, sizeof *b);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < n; i++) {
        a[i].key = few ? (uint32_t)(unit_rand(&rng) % 4) : u32_value(sh, i, n);
        a[i].tag = (uint32_t)(sh == DESCENDING ? n - i : i);
        memset(a[i].pad, (int)(i & 0xFF), sizeof a[i].pad);
        b[i] = a[i];
    }
    if (generic && depth < 100)
        etl_sort_depth(a, n, sizeof *a, cmp_big, &rng, depth);
    else if (generic)
        etl_sort(a, n, sizeof *a, cmp_big, &rng);
    else if (depth < 100)
        sort_big_depth(a, n, depth);
    else
        sort_big(a, n);
    qsort(b, n, sizeof *b, cmp_big_q);
    if (n > 0 && memcmp(a, b, n * sizeof *a) != 0) { /* one assertion an array */
        size_t i = 0;
        while (memcmp(&a[i], &b[i], sizeof a[i]) == 0)
            i++;
        ck_abort_msg("n %zu shape %d few %d depth %u generic %d: element %zu", n, (int)sh, few,
                     depth, generic, i);
    }
    free(a);
    free(b);
}

/* check_shaped through both introsorts: ETL_SORT_TYPED's and etl_sort's. */
static void check_both(size_t n, enum shape sh, bool few, unsigned depth)
{
    check_shaped(n, sh, few, depth, false);
    check_shaped(n, sh, few, depth, true);
}

START_TEST(introsort_every_short_length)
{
    /* Past 16 elements the quicksort splits; below, insertion alone. */
    for (size_t n = 0; n <= 70; n++)
        for (int sh = RANDOM; sh <= ORGAN; sh++) {
            check_both(n, (enum shape)sh, false, 100);
            check_both(n, (enum shape)sh, true, 100);
        }
}
END_TEST

START_TEST(introsort_long)
{
    for (int sh = RANDOM; sh <= ORGAN; sh++)
        check_both(30000, (enum shape)sh, false, 100);
    check_both(30000, RANDOM, true, 100);
    check_both(65537, RANDOM, false, 100);
}
END_TEST

START_TEST(introsort_heapsort_fallback)
{
    /* No split allowed, one, a few: the parts left heap-sorted. */
    for (unsigned depth = 0; depth <= 3; depth++) {
        check_both(5000, RANDOM, false, depth);
        check_both(5000, ORGAN, false, depth);
        check_both(5000, RANDOM, true, depth);
        check_both(17, DESCENDING, false, depth);
    }
}
END_TEST

/* "Comparisons" that are no order: at random, or every element before
 * every other (ctx non-NULL), which would run a scan without a bound off
 * the array's end. */
static int cmp_random(const void *a, const void *b, void *ctx)
{
    (void)a;
    (void)b;
    return ctx ? -1 : (int)(unit_rand(&rng) % 3) - 1;
}
static bool chaos_always;
#define RANDOM_LESS(x, y) ((void)(x), (void)(y), chaos_always || unit_rand(&rng) % 2 == 0)
ETL_SORT_TYPED(sort_chaos, struct big, RANDOM_LESS)

START_TEST(no_order)
{
    /* Neither sort reads or writes outside the array (the sanitizer builds
     * would say so; with its scans unbounded, either ran past its part and
     * never ended) and both keep every element, whatever the answers. */
    size_t n = 5000;
    struct big *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    ck_assert(a && b);
    for (size_t i = 0; i < n; i++) {
        a[i].key = (uint32_t)unit_rand(&rng);
        a[i].tag = (uint32_t)i;
        b[i] = a[i];
    }
    for (int round = 0; round < 4; round++) {
        chaos_always = round >= 2;
        if (round % 2)
            etl_sort(a, n, sizeof *a, cmp_random, chaos_always ? &rng : NULL);
        else
            sort_chaos(a, n);
    }
    qsort(a, n, sizeof *a, cmp_big_q);
    qsort(b, n, sizeof *b, cmp_big_q);
    ck_assert(memcmp(a, b, n * sizeof *a) == 0);
    free(a);
    free(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sort");
    TCase *tc = tcase_create("sort");
    tcase_add_test(tc, select_every_short_length);
    tcase_add_test(tc, select_long);
    tcase_add_test(tc, select_heapsort_fallback);
    tcase_add_test(tc, i64_every_short_length);
    tcase_add_test(tc, i64_long);
    tcase_add_test(tc, generic_every_short_length);
    tcase_add_test(tc, generic_bytes);
    tcase_add_test(tc, introsort_every_short_length);
    tcase_add_test(tc, introsort_long);
    tcase_add_test(tc, introsort_heapsort_fallback);
    tcase_add_test(tc, no_order);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
