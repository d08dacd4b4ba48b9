/*
 * sort.h - sorting an array in place without allocating: heapsort, which
 * needs neither recursion nor memory (the C library's qsort may allocate,
 * and may fail to), with a context argument for the comparison. Not stable:
 * comparisons must order every pair that may be told apart.
 */
#ifndef ETLDUMP_SORT_H
#define ETLDUMP_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Returns <0, 0 or >0 as a sorts before, with or after b. */
typedef int (*etl_cmp_fn)(const void *a, const void *b, void *ctx);

/* Sorts n elements of size bytes at base (size at most 256). */
void etl_sort(void *base, size_t n, size_t size, etl_cmp_fn cmp, void *ctx);

/* Sorts n int64_t values ascending: etl_sort's algorithm, without a call
 * per comparison. */
void etl_sort_i64(int64_t *a, size_t n);

#endif
