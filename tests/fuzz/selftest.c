/*
 * selftest.c - a fuzz target that fails on purpose, so that tests/fuzz.sh
 * can check what the replay driver (driver.c) promises: an input that
 * crashes, hangs or aborts is named and the inputs after it still run; a
 * child that fails only as it exits, after its last input (as a leak
 * checker's report does), has its inputs run again one by one and the
 * input at fault named. Each input says what to do by its first bytes:
 *
 *   crash    raises SIGSEGV
 *   hang     waits for a signal that only the time limit sends
 *   abort    calls abort()
 *   atexit   has the process end with status 23 as it exits
 *   leak     allocates a block and loses it (found by a leak checker only)
 *   arm      arms "fire" for the rest of the process
 *   fire     once armed, does what "atexit" does: the two fail together
 *            and neither alone
 *   anything else returns at once
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The block a "leak" input loses (kept here until it is lost, so that the
 * compiler cannot drop the allocation). */
void *volatile selftest_block;

static int armed;

static void fail_at_exit(void)
{
    _exit(23);
}

static int is(const uint8_t *data, size_t size, const char *word)
{
    size_t n = strlen(word);
    return size >= n && memcmp(data, word, n) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (is(data, size, "crash"))
        raise(SIGSEGV);
    if (is(data, size, "hang"))
        for (;;)
            pause();
    if (is(data, size, "abort"))
        abort();
    if (is(data, size, "atexit") || (armed && is(data, size, "fire")))
        atexit(fail_at_exit);
    if (is(data, size, "arm"))
        armed = 1;
    if (is(data, size, "leak")) {
        selftest_block = malloc(64);
        selftest_block = NULL;
    }
    return 0;
}
