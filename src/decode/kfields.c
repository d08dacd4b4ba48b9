/*
 * kfields.c - the engine that applies the kernel layout table
 * (klayouts.c) to an event's payload (doc/format.md section 20).
 */
#include "sort.h"
#include "decode/kfields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/intype.h"

/* Index entry: key = group << 8 | opcode. */
struct kidx {
    uint32_t key;
    uint16_t layout;
    uint8_t vmin, vmax;
};

#define MAX_IDX 4096u
static struct kidx idx[MAX_IDX];
static size_t nidx;
static bool built;

/* Names of repeated fields ("Stack1" ...), made once. */
#define MAX_REPEAT 256u
static char repeat_names[MAX_REPEAT][12];

static int cmp_idx(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct kidx *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->vmin != y->vmin)
        return (int)x->vmin - (int)y->vmin;
    return (int)x->layout - (int)y->layout;
}

/* Builds the (key, version) index of the table once. */
static void build(void)
{
    for (size_t l = 0; l < etl_nklayouts; l++) {
        const struct etl_klayout *k = &etl_klayouts[l];
        for (size_t i = 0; i < k->nops && nidx < MAX_IDX; i++) {
            idx[nidx].key = (uint32_t)k->group << 8 | k->ops[i];
            idx[nidx].layout = (uint16_t)l;
            idx[nidx].vmin = k->vmin;
            idx[nidx].vmax = k->vmax;
            nidx++;
        }
    }
    etl_sort(idx, nidx, sizeof idx[0], cmp_idx, NULL);
    for (unsigned i = 0; i < MAX_REPEAT; i++)
        snprintf(repeat_names[i], sizeof repeat_names[i], "Stack%u", i + 1);
    built = true;
}

int etl_kernel_group(const struct etl_event *ev)
{
    if (ev->flags & ETL_EV_HOOK)
        return ev->hook_id >> 8;
    if (ev->kind < ETL_KIND_FULL32 || ev->kind > ETL_KIND_INSTANCE64)
        return -1;
    for (size_t i = 0; i < etl_nkguids; i++)
        if (etl_kguids[i].guid[0] == ev->guid[0] &&
            memcmp(etl_kguids[i].guid, ev->guid, 16) == 0)
            return etl_kguids[i].group;
    return -1;
}

/* Returns the first index entry with key, or NULL. */
static const struct kidx *find(uint32_t key)
{
    size_t lo = 0, hi = nidx;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (idx[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nidx && idx[lo].key == key ? &idx[lo] : NULL;
}

const char *etl_kernel_event_name(const struct etl_event *ev)
{
    int g = etl_kernel_group(ev);
    if (g < 0)
        return NULL;
    uint32_t key = (uint32_t)g << 8 | ev->opcode;
    size_t lo = 0, hi = etl_nknames;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t k = (uint32_t)etl_knames[mid].group << 8 | etl_knames[mid].op;
        if (k == key)
            return etl_knames[mid].name;
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Reads one table field; returns false at damage (cursor position kept). */
static bool read_field(const struct etl_kfield *f, struct etl_cursor *c,
                       struct etl_fields *out, unsigned ptr)
{
    size_t nlen = strlen(f->name);
    uint32_t len = (f->flags & ETL_KF_FIXED) ? f->len : ETL_LEN_NONE;
    if (f->flags & ETL_KF_ARRAY) {
        size_t start = c->pos;
        etl_fields_array_begin(out, f->name, nlen);
        for (unsigned i = 0; i < f->len; i++) {
            if (etl_intype_read(out, NULL, 0, f->in, (enum etl_hint)f->hint,
                                ETL_LEN_NONE, c, ptr, NULL) != 1) {
                c->pos = start;
                etl_fields_array_end(out);
                return false;
            }
        }
        etl_fields_array_end(out);
        return true;
    }
    return etl_intype_read(out, f->name, nlen, f->in, (enum etl_hint)f->hint, len, c,
                           ptr, NULL) == 1;
}

enum etl_fdec etl_kernel_fields(const struct etl_event *ev, struct etl_cursor *c,
                                struct etl_fields *out, size_t *bad_at)
{
    if (!built)
        build();
    *bad_at = 0;
    int g = etl_kernel_group(ev);
    if (g < 0)
        return ETL_FDEC_NO_LAYOUT;
    uint32_t key = (uint32_t)g << 8 | ev->opcode;
    const struct kidx *e = find(key);
    if (!e)
        return ETL_FDEC_NO_LAYOUT;
    unsigned v = ev->version;
    const struct kidx *pick = NULL, *newest = NULL;
    for (; e < idx + nidx && e->key == key; e++) {
        if (v >= e->vmin && v <= e->vmax) {
            pick = e;
            break;
        }
        if (!newest || e->vmax > newest->vmax)
            newest = e;
    }
    bool newer = false;
    if (!pick) {
        if (!newest || v < newest->vmax)
            return ETL_FDEC_NO_LAYOUT;
        pick = newest;
        newer = true;
    }
    const struct etl_klayout *lay = &etl_klayouts[pick->layout];
    unsigned ptr = ev->ptr_size == 4 ? 4 : 8;
    for (const struct etl_kfield *f = lay->fields; f->name; f++) {
        if ((f->flags & ETL_KF_OPTIONAL) && etl_cur_left(c) == 0)
            break;
        if (f->flags & ETL_KF_REPEAT) {
            for (unsigned i = 0; etl_cur_left(c) > 0; i++) {
                if (i >= MAX_REPEAT ||
                    etl_intype_read(out, repeat_names[i], strlen(repeat_names[i]), f->in,
                                    (enum etl_hint)f->hint, ETL_LEN_NONE, c, ptr,
                                    NULL) != 1) {
                    *bad_at = c->pos;
                    return ETL_FDEC_PARTIAL;
                }
            }
            continue;
        }
        if (!read_field(f, c, out, ptr)) {
            *bad_at = c->pos;
            return newer ? ETL_FDEC_PARTIAL : ETL_FDEC_DAMAGED;
        }
    }
    if (etl_cur_left(c) > 0) {
        *bad_at = c->pos;
        return ETL_FDEC_PARTIAL;
    }
    return ETL_FDEC_OK;
}
