/*
 * keyidx.h - items of an array found by a 64-bit key: the index of each key
 * in open addressing with linear probing, at most half full, grown by
 * doubling. The items stay in the caller's array; the index keeps each key
 * beside its item's position.
 */
#ifndef ETLDUMP_KEYIDX_H
#define ETLDUMP_KEYIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct etl_keyidx {
    uint64_t *keys;
    uint32_t *pos;            /* the item's position + 1; 0: an empty slot */
    size_t cap, n;
};

/* Doubles the index; false when out of memory (it stays as it was). */
bool etl_keyidx_grow(struct etl_keyidx *x);

void etl_keyidx_free(struct etl_keyidx *x);

/* The first slot to look at for key in an index of cap slots. */
static inline size_t etl_keyidx_home(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

/* Returns the position of key's item; when there is none, key gets
 * position `add` (which must be below UINT32_MAX), returned with *added
 * set. UINT32_MAX when out of memory: nothing is added. */
static inline uint32_t etl_keyidx_get(struct etl_keyidx *x, uint64_t key, uint32_t add,
                                      bool *added)
{
    *added = false;
    if ((x->n + 1) * 2 > x->cap && !etl_keyidx_grow(x))
        return UINT32_MAX;
    size_t j = etl_keyidx_home(key, x->cap);
    for (; x->pos[j]; j = (j + 1) & (x->cap - 1))
        if (x->keys[j] == key)
            return x->pos[j] - 1;
    x->keys[j] = key;
    x->pos[j] = add + 1;
    x->n++;
    *added = true;
    return add;
}

#endif
