/*
 * heap.h - a binary min-heap of (time, id) pairs, ties broken by id: the merge
 * of per-CPU streams into one time order.
 */
#ifndef ETLDUMP_HEAP_H
#define ETLDUMP_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct etl_heap_item {
    int64_t key;
    uint32_t id;
};

struct etl_heap {
    struct etl_heap_item *item;
    size_t n, cap;
};

/* Returns true if a sorts before b. */
static inline bool etl_heap_less(const struct etl_heap_item *a,
                                 const struct etl_heap_item *b)
{
    return a->key < b->key || (a->key == b->key && a->id < b->id);
}

/* Allocates room for cap items; false when out of memory. */
static inline bool etl_heap_init(struct etl_heap *h, size_t cap)
{
    h->n = 0;
    h->cap = cap;
    h->item = malloc((cap ? cap : 1) * sizeof *h->item);
    return h->item != NULL;
}

/* Frees the heap's items. */
static inline void etl_heap_free(struct etl_heap *h)
{
    free(h->item);
    h->item = NULL;
    h->n = h->cap = 0;
}

/* Moves item i down to its place. */
static inline void etl_heap_down(struct etl_heap *h, size_t i)
{
    struct etl_heap_item x = h->item[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && etl_heap_less(&h->item[c + 1], &h->item[c]))
            c++;
        if (!etl_heap_less(&h->item[c], &x))
            break;
        h->item[i] = h->item[c];
        i = c;
    }
    h->item[i] = x;
}

/* Adds an item (the caller guarantees room for it). */
static inline void etl_heap_push(struct etl_heap *h, int64_t key, uint32_t id)
{
    size_t i = h->n++;
    struct etl_heap_item x = { key, id };
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!etl_heap_less(&x, &h->item[p]))
            break;
        h->item[i] = h->item[p];
        i = p;
    }
    h->item[i] = x;
}

/* Replaces the smallest item by (key, id). */
static inline void etl_heap_replace_top(struct etl_heap *h, int64_t key, uint32_t id)
{
    h->item[0].key = key;
    h->item[0].id = id;
    etl_heap_down(h, 0);
}

/* Removes the smallest item. */
static inline void etl_heap_pop(struct etl_heap *h)
{
    h->item[0] = h->item[--h->n];
    if (h->n > 0)
        etl_heap_down(h, 0);
}

#endif
