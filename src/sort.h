/*
 * sort.h - sorting an array in place without allocating: an introsort
 * (ETL_SORT_TYPED below says how) that needs neither recursion nor memory
 * (the C library's qsort may allocate, and may fail to), with a context
 * argument for the comparison; and the same for arrays of one type with
 * the comparison compiled in (ETL_SORT_TYPED). Neither is stable:
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

/* etl_sort with the depth of splits past which a part is heap-sorted given
 * (the tests reach the heapsort with a small one). */
void etl_sort_depth(void *base, size_t n, size_t size, etl_cmp_fn cmp, void *ctx,
                    unsigned depth);

/* Sorts n int64_t values ascending (ETL_SORT_TYPED's introsort). */
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

/*
 * ETL_SORT_TYPED(name, T, less) defines
 *     static void name(T *a, size_t n)
 *     static void name##_depth(T *a, size_t n, unsigned depth)
 * which sort n elements of type T in place by less(const T *, const T *)
 * (true when the first goes before the second), for large arrays of one
 * type where etl_sort's call per comparison costs most (the process map's
 * records: 786 k of them took a quarter of a run through the heapsort
 * etl_sort was then). Introsort, still without memory or recursion:
 * quicksort on the median of three, parts of at most 16 elements finished
 * by insertion, the larger part of each split kept on a stack of its own
 * (at most 64 deep: the smaller is sorted first) and any part split more
 * than 2 log2(n) + 4 times deep heap-sorted instead, so that no input makes
 * it quadratic; name##_depth gives that limit (the tests reach the
 * heapsort with a small one). Not stable, as etl_sort.
 */
#define ETL_SORT_TYPED(name, T, less)                                                   \
    static void name##_sift(T *a, size_t k, size_t n, T t)                              \
    {                                                                                   \
        for (;;) {                                                                      \
            size_t c = 2 * k + 1;                                                       \
            if (c >= n)                                                                 \
                break;                                                                  \
            if (c + 1 < n && less(&a[c], &a[c + 1]))                                    \
                c++;                                                                    \
            if (!less(&t, &a[c]))                                                       \
                break;                                                                  \
            a[k] = a[c];                                                                \
            k = c;                                                                      \
        }                                                                               \
        a[k] = t;                                                                       \
    }                                                                                   \
    static void name##_heap(T *a, size_t n)                                             \
    {                                                                                   \
        for (size_t k = n / 2; k-- > 0;)                                                \
            name##_sift(a, k, n, a[k]);                                                 \
        for (size_t m = n; m > 1; m--) {                                                \
            T t = a[m - 1];                                                             \
            a[m - 1] = a[0];                                                            \
            name##_sift(a, 0, m - 1, t);                                                \
        }                                                                               \
    }                                                                                   \
    static void name##_swap(T *x, T *y)                                                 \
    {                                                                                   \
        T t = *x;                                                                       \
        *x = *y;                                                                        \
        *y = t;                                                                         \
    }                                                                                   \
    static void name##_depth(T *a, size_t n, unsigned depth)                            \
    {                                                                                   \
        struct {                                                                        \
            T *a;                                                                       \
            size_t n;                                                                   \
            unsigned depth;                                                             \
        } st[64];                                                                       \
        unsigned top = 0;                                                               \
        for (;;) {                                                                      \
            if (n > 16 && depth == 0) {                                                 \
                name##_heap(a, n);                                                      \
                n = 0;                                                                  \
            }                                                                           \
            if (n > 16) {                                                               \
                depth--;                                                                \
                size_t mid = n / 2, last = n - 1;                                       \
                if (less(&a[mid], &a[0]))                                               \
                    name##_swap(&a[mid], &a[0]);                                        \
                if (less(&a[last], &a[mid])) {                                          \
                    name##_swap(&a[last], &a[mid]);                                     \
                    if (less(&a[mid], &a[0]))                                           \
                        name##_swap(&a[mid], &a[0]);                                    \
                }                                                                       \
                /* a[0] <= a[mid] <= a[last]: the pivot waits at last - 1, and          \
                 * a[0] and it stop the scans (bounded too: a comparison that is        \
                 * not an order leaves a wrong order, never an access out of the        \
                 * part). */                                                            \
                name##_swap(&a[mid], &a[last - 1]);                                     \
                T p = a[last - 1];                                                      \
                size_t i = 0, j = last - 1;                                             \
                for (;;) {                                                              \
                    while (++i < last - 1 && less(&a[i], &p))                           \
                        ;                                                               \
                    while (--j > 0 && less(&p, &a[j]))                                  \
                        ;                                                               \
                    if (i >= j)                                                         \
                        break;                                                          \
                    name##_swap(&a[i], &a[j]);                                          \
                }                                                                       \
                name##_swap(&a[i], &a[last - 1]);                                       \
                /* [0, i) before p, (i, n) after: the larger waits. */                  \
                T *ra = a + i + 1;                                                      \
                size_t ln = i, rn = n - i - 1;                                          \
                if (ln < rn) {                                                          \
                    st[top].a = ra;                                                     \
                    st[top].n = rn;                                                     \
                    n = ln;                                                             \
                } else {                                                                \
                    st[top].a = a;                                                      \
                    st[top].n = ln;                                                     \
                    a = ra;                                                             \
                    n = rn;                                                             \
                }                                                                       \
                st[top++].depth = depth;                                                \
                continue;                                                               \
            }                                                                           \
            for (size_t k = 1; k < n; k++) {                                            \
                T t = a[k];                                                             \
                size_t j = k;                                                           \
                for (; j > 0 && less(&t, &a[j - 1]); j--)                               \
                    a[j] = a[j - 1];                                                    \
                a[j] = t;                                                               \
            }                                                                           \
            if (top == 0)                                                               \
                return;                                                                 \
            top--;                                                                      \
            a = st[top].a;                                                              \
            n = st[top].n;                                                              \
            depth = st[top].depth;                                                      \
        }                                                                               \
    }                                                                                   \
    static void name(T *a, size_t n)                                                    \
    {                                                                                   \
        unsigned depth = 4;                                                             \
        for (size_t m = n; m > 1; m >>= 1)                                              \
            depth += 2;                                                                 \
        name##_depth(a, n, depth);                                                      \
    }

#endif
