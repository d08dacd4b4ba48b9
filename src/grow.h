/*
 * grow.h - growing an array by doubling, the one way etldump does it.
 */
#ifndef ETLDUMP_GROW_H
#define ETLDUMP_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Makes the array at *itemsp (a pointer to a pointer to elements of `size`
 * bytes, *cap of them) hold at least `need` elements, doubling from `first`.
 * Returns false, leaving the array as it was, when memory runs out or the
 * size would overflow. */
static inline bool etl_grow(void *itemsp, size_t *cap, size_t need, size_t size,
                            size_t first)
{
    if (need <= *cap)
        return true;
    size_t ncap = *cap ? *cap : first;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return false;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / size)
        return false;
    void *old;
    memcpy(&old, itemsp, sizeof old);
    void *items = realloc(old, ncap * size);
    if (!items)
        return false;
    memcpy(itemsp, &items, sizeof items);
    *cap = ncap;
    return true;
}

#endif
