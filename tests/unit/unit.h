/*
 * unit.h - what the Check unit tests share: running a suite, and a small
 * deterministic generator.
 */
#ifndef ETLDUMP_TESTS_UNIT_H
#define ETLDUMP_TESTS_UNIT_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

/* Runs every test of suite s; returns the exit status (failure when one
 * failed). */
static inline int unit_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The next value of a xorshift64 generator whose state is *s (not 0). */
static inline uint64_t unit_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#endif
