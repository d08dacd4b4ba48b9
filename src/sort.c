/*
 * sort.c - heapsort, and quickselect for uint32_t (see sort.h).
 */
#include "sort.h"

#include <string.h>

/* Moves the element held in t, whose place is k, down the max-heap of the
 * first n elements: children larger than it move up one level each, and it
 * goes into the hole left (one copy a level instead of a swap's three). */
static void sift_down(unsigned char *a, size_t k, size_t n, size_t size, etl_cmp_fn cmp,
                      void *ctx, const unsigned char *t)
{
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= n)
            break;
        if (c + 1 < n && cmp(a + c * size, a + (c + 1) * size, ctx) < 0)
            c++;
        if (cmp(t, a + c * size, ctx) >= 0)
            break;
        memcpy(a + k * size, a + c * size, size);
        k = c;
    }
    memcpy(a + k * size, t, size);
}

void etl_sort(void *base, size_t n, size_t size, etl_cmp_fn cmp, void *ctx)
{
    unsigned char *a = base;
    unsigned char t[256];
    if (n < 2)
        return;
    for (size_t k = n / 2; k-- > 0;) {
        memcpy(t, a + k * size, size);
        sift_down(a, k, n, size, cmp, ctx, t);
    }
    for (size_t m = n; m > 1; m--) {
        /* The largest goes last; the last element sifts down from the top. */
        memcpy(t, a + (m - 1) * size, size);
        memcpy(a + (m - 1) * size, a, size);
        sift_down(a, 0, m - 1, size, cmp, ctx, t);
    }
}

/* sift_down for int64_t values, compared directly. */
static void sift_down_i64(int64_t *a, size_t k, size_t n, int64_t t)
{
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= n)
            break;
        if (c + 1 < n && a[c] < a[c + 1])
            c++;
        if (t >= a[c])
            break;
        a[k] = a[c];
        k = c;
    }
    a[k] = t;
}

void etl_sort_i64(int64_t *a, size_t n)
{
    if (n < 2)
        return;
    for (size_t k = n / 2; k-- > 0;)
        sift_down_i64(a, k, n, a[k]);
    for (size_t m = n; m > 1; m--) {
        int64_t t = a[m - 1];
        a[m - 1] = a[0];
        sift_down_i64(a, 0, m - 1, t);
    }
}

static int cmp_u32(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t median3(uint32_t x, uint32_t y, uint32_t z)
{
    if (x > y) {
        uint32_t t = x;
        x = y;
        y = t;
    }
    /* x <= y */
    return z <= x ? x : z >= y ? y : z;
}

uint32_t etl_select_u32(uint32_t *a, size_t n, size_t k)
{
    unsigned rounds = 4;
    for (size_t m = n; m > 1; m >>= 1)
        rounds += 2;
    return etl_select_u32_rounds(a, n, k, rounds);
}

uint32_t etl_select_u32_rounds(uint32_t *a, size_t n, size_t k, unsigned rounds)
{
    size_t lo = 0, hi = n; /* a[k] is in [lo, hi) */
    while (hi - lo > 16 && rounds-- > 0) {
        /* The median of the values a quarter, half and three quarters of
         * the way: the ends would do badly on what a partition leaves of a
         * sorted array (it rotates the part above the pivot by one). */
        size_t q = (hi - lo) / 4;
        uint32_t p = median3(a[lo + q], a[lo + 2 * q], a[hi - 1 - q]);
        /* [lo, lt) < p, [lt, i) == p, [gt, hi) > p */
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            uint32_t v = a[i];
            if (v < p) {
                a[i++] = a[lt];
                a[lt++] = v;
            } else if (v > p) {
                a[i] = a[--gt];
                a[gt] = v;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return p;
    }
    if (hi - lo > 16) { /* out of rounds */
        etl_sort(a + lo, hi - lo, sizeof *a, cmp_u32, NULL);
        return a[k];
    }
    for (size_t i = lo + 1; i < hi; i++) { /* a few left: insertion */
        uint32_t v = a[i];
        size_t j = i;
        for (; j > lo && a[j - 1] > v; j--)
            a[j] = a[j - 1];
        a[j] = v;
    }
    return a[k];
}
