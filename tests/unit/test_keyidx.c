/*
 * Unit tests for the index of items by key (src/keyidx.h): every key added
 * once keeps its position through the index's growth, and is found again
 * without being added; key 0 and keys that share their first slot too.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "keyidx.h"
#include "unit.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;

START_TEST(keys_keep_their_positions)
{
    enum { N = 100000 };
    uint64_t *keys = malloc(N * sizeof *keys);
    ck_assert_ptr_nonnull(keys);
    struct etl_keyidx x = { 0 };
    bool added;
    /* Key 0, then 63 keys whose first slot in the first index (256 slots)
     * is key 0's, then random ones (one may repeat an earlier key). */
    size_t home = etl_keyidx_home(0, 256);
    uint64_t same = 0;
    for (uint32_t i = 0; i < N; i++) {
        if (i > 0 && i < 64)
            while (etl_keyidx_home(++same, 256) != home)
                ;
        keys[i] = i == 0 ? 0 : i < 64 ? same : unit_rand(&rng);
        uint32_t got = etl_keyidx_get(&x, keys[i], i, &added);
        /* By hand: a ck_assert passed costs Check a message. */
        if (got == UINT32_MAX || (added ? got != i : keys[got] != keys[i]))
            ck_abort_msg("key %u: got %u (added %d)", (unsigned)i, (unsigned)got, (int)added);
    }
    ck_assert_uint_ge(x.cap, 2 * x.n);
    size_t n = x.n;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t got = etl_keyidx_get(&x, keys[i], UINT32_MAX - 1, &added);
        if (added || got > i || keys[got] != keys[i])
            ck_abort_msg("key %u again: got %u (added %d)", (unsigned)i, (unsigned)got, (int)added);
    }
    ck_assert_uint_eq(x.n, n);
    ck_assert_uint_ge(n, N - 10);
    etl_keyidx_free(&x);
    ck_assert_uint_eq(x.n, 0);
    /* Usable again after being freed. */
    ck_assert_uint_eq(etl_keyidx_get(&x, 42, 7, &added), 7);
    ck_assert(added);
    ck_assert_uint_eq(etl_keyidx_get(&x, 42, 8, &added), 7);
    ck_assert(!added);
    etl_keyidx_free(&x);
    free(keys);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("keyidx");
    TCase *tc = tcase_create("keyidx");
    tcase_add_test(tc, keys_keep_their_positions);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
