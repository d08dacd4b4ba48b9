/*
 * sort.c - heapsort (see sort.h).
 */
#include "sort.h"

#include <string.h>

/* Swaps two elements of size bytes. */
static void swap(unsigned char *a, unsigned char *b, size_t size)
{
    unsigned char t[256];
    memcpy(t, a, size);
    memcpy(a, b, size);
    memcpy(b, t, size);
}

/* Moves element k down the max-heap of the first n elements. */
static void sift_down(unsigned char *a, size_t k, size_t n, size_t size, etl_cmp_fn cmp,
                      void *ctx)
{
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= n)
            return;
        if (c + 1 < n && cmp(a + c * size, a + (c + 1) * size, ctx) < 0)
            c++;
        if (cmp(a + k * size, a + c * size, ctx) >= 0)
            return;
        swap(a + k * size, a + c * size, size);
        k = c;
    }
}

void etl_sort(void *base, size_t n, size_t size, etl_cmp_fn cmp, void *ctx)
{
    unsigned char *a = base;
    if (n < 2)
        return;
    for (size_t k = n / 2; k-- > 0;)
        sift_down(a, k, n, size, cmp, ctx);
    for (size_t m = n; m > 1; m--) {
        swap(a, a + (m - 1) * size, size);
        sift_down(a, 0, m - 1, size, cmp, ctx);
    }
}
