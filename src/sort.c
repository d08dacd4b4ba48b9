/*
 * sort.c - introsort and heapsort, and quickselect for uint32_t (see
 * sort.h).
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

/* Heap-sorts the n elements at a. */
static void heap_sort(unsigned char *a, size_t n, size_t size, etl_cmp_fn cmp, void *ctx)
{
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

static void swap_bytes(unsigned char *x, unsigned char *y, size_t size)
{
    unsigned char t[256];
    memcpy(t, x, size);
    memcpy(x, y, size);
    memcpy(y, t, size);
}

/* ETL_SORT_TYPED's introsort (sort.h says how) for elements of any size
 * and a comparison called through cmp. */
void etl_sort_depth(void *base, size_t n, size_t size, etl_cmp_fn cmp, void *ctx,
                    unsigned depth)
{
    unsigned char *a = base, p[256], t[256];
    struct {
        unsigned char *a;
        size_t n;
        unsigned depth;
    } st[64];
    unsigned top = 0;
#define AT(i) (a + (i) * size)
    for (;;) {
        if (n > 16 && depth == 0) {
            heap_sort(a, n, size, cmp, ctx);
            n = 0;
        }
        if (n > 16) {
            depth--;
            size_t mid = n / 2, last = n - 1;
            if (cmp(AT(mid), AT(0), ctx) < 0)
                swap_bytes(AT(mid), AT(0), size);
            if (cmp(AT(last), AT(mid), ctx) < 0) {
                swap_bytes(AT(last), AT(mid), size);
                if (cmp(AT(mid), AT(0), ctx) < 0)
                    swap_bytes(AT(mid), AT(0), size);
            }
            /* a[0] <= a[mid] <= a[last]: the pivot waits at last - 1, and
             * a[0] and it stop the scans (bounded too: a comparison that is
             * not an order leaves a wrong order, never an access out of the
             * part). */
            swap_bytes(AT(mid), AT(last - 1), size);
            memcpy(p, AT(last - 1), size);
            size_t i = 0, j = last - 1;
            for (;;) {
                while (++i < last - 1 && cmp(AT(i), p, ctx) < 0)
                    ;
                while (--j > 0 && cmp(p, AT(j), ctx) < 0)
                    ;
                if (i >= j)
                    break;
                swap_bytes(AT(i), AT(j), size);
            }
            swap_bytes(AT(i), AT(last - 1), size);
            /* [0, i) before p, (i, n) after: the larger waits. */
            unsigned char *ra = AT(i + 1);
            size_t ln = i, rn = n - i - 1;
            if (ln < rn) {
                st[top].a = ra;
                st[top].n = rn;
                n = ln;
            } else {
                st[top].a = a;
                st[top].n = ln;
                a = ra;
                n = rn;
            }
            st[top++].depth = depth;
            continue;
        }
        for (size_t k = 1; k < n; k++) {
            memcpy(t, AT(k), size);
            size_t j = k;
            for (; j > 0 && cmp(t, AT(j - 1), ctx) < 0; j--)
                memcpy(AT(j), AT(j - 1), size);
            memcpy(AT(j), t, size);
        }
        if (top == 0)
            break;
        top--;
        a = st[top].a;
        n = st[top].n;
        depth = st[top].depth;
    }
#undef AT
}

void etl_sort(void *base, size_t n, size_t size, etl_cmp_fn cmp, void *ctx)
{
    unsigned depth = 4;
    for (size_t m = n; m > 1; m >>= 1)
        depth += 2;
    etl_sort_depth(base, n, size, cmp, ctx, depth);
}

/* etl_sort_i64: the introsort of sort.h, on values compared directly. */
#define I64_LESS(x, y) (*(x) < *(y))
ETL_SORT_TYPED(sort_i64, int64_t, I64_LESS)

void etl_sort_i64(int64_t *a, size_t n)
{
    sort_i64(a, n);
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
