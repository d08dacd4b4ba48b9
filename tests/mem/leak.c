/*
 * leak.c - linked into build/tests/etldump-leak: etldump losing one block
 * before main, so that tests/hostile.sh can see that a sanitizer's leak
 * report fails its runs (exit status 86), as a leak in etldump would.
 */
#include <stdlib.h>

/* Where the block was, forgotten at once. */
static void *volatile kept;

__attribute__((constructor)) static void lose_a_block(void)
{
    kept = malloc(64);
    kept = NULL;
}
