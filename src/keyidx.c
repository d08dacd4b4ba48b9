/*
 * keyidx.c - the growing of an index by key (see keyidx.h).
 */
#include "keyidx.h"

#include <stdlib.h>

bool etl_keyidx_grow(struct etl_keyidx *x)
{
    size_t ncap = x->cap ? x->cap * 2 : 256;
    if (ncap > SIZE_MAX / sizeof *x->keys)
        return false;
    uint64_t *keys = malloc(ncap * sizeof *keys);
    uint32_t *pos = calloc(ncap, sizeof *pos);
    if (!keys || !pos) {
        free(keys);
        free(pos);
        return false;
    }
    for (size_t i = 0; i < x->cap; i++) {
        if (!x->pos[i])
            continue;
        size_t j = etl_keyidx_home(x->keys[i], ncap);
        while (pos[j])
            j = (j + 1) & (ncap - 1);
        keys[j] = x->keys[i];
        pos[j] = x->pos[i];
    }
    free(x->keys);
    free(x->pos);
    x->keys = keys;
    x->pos = pos;
    x->cap = ncap;
    return true;
}

void etl_keyidx_free(struct etl_keyidx *x)
{
    free(x->keys);
    free(x->pos);
    x->keys = NULL;
    x->pos = NULL;
    x->cap = x->n = 0;
}
