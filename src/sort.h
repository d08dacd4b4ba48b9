/*
 * sort.h - sorting an array in place without allocating: heapsort, which
 * needs neither recursion nor memory (the C library's qsort may allocate,
 * and may fail to), with a context argument for the comparison. Not stable:
 * comparisons must order every pair that may be told apart. And finding the
 * k-th smallest of an array of uint32_t without sorting it all.
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

/* Returns the value that would be a[k] were the n values of a sorted
 * ascending (k < n), reordering a: quickselect with a three-way partition
 * (many values may be equal), about 2n comparisons; past 2 log2(n) + 4
 * rounds the part left is heap-sorted instead, so that no input makes it
 * quadratic. */
uint32_t etl_select_u32(uint32_t *a, size_t n, size_t k);

/* etl_select_u32 with the rounds of partitioning before the heapsort given
 * (the tests reach the heapsort with few). */
uint32_t etl_select_u32_rounds(uint32_t *a, size_t n, size_t k, unsigned rounds);

#endif
