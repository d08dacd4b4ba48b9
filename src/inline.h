/*
 * inline.h - ETL_INLINE: a small function of a row's inner loop that must
 * be inlined where it is called (the compiler's own choice leaves some of
 * them out of line, a call per cell); ETL_UNLIKELY(x): x is usually false,
 * so that the compiler lays out the other way as the straight one;
 * ETL_PREFETCH(a): the bytes at address a (an integer: it may lie past any
 * object, where a prefetch does nothing) are asked for ahead of their use;
 * ETL_NOINLINE: a function kept out of line, the rare case of a loop whose
 * usual case is inlined (its code would crowd the loop's registers).
 */
#ifndef ETLDUMP_INLINE_H
#define ETLDUMP_INLINE_H

#include <stdint.h>

#if defined(__GNUC__)
#define ETL_INLINE static inline __attribute__((always_inline))
#define ETL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ETL_PREFETCH(a) __builtin_prefetch((const void *)(a))
#define ETL_NOINLINE __attribute__((noinline))
#else
#define ETL_INLINE static inline
#define ETL_UNLIKELY(x) (x)
#define ETL_PREFETCH(a) ((void)(a))
#define ETL_NOINLINE
#endif

/* The index of the lowest set bit of m (m != 0). */
ETL_INLINE unsigned etl_ctz64(uint64_t m)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(m);
#else
    unsigned n = 0;
    while (!(m & 1)) {
        m >>= 1;
        n++;
    }
    return n;
#endif
}

#endif
