/*
 * kfields.c - the engine that applies the built-in layout tables (the kernel
 * classes of klayouts.c, the .NET runtime's events of clrlayouts.c) to an
 * event's payload (doc/format.md section 18).
 */
#include "sort.h"
#include "decode/kfields.h"

#include <stdio.h>
#include <string.h>

#include "decode/intype.h"

static int cmp_idx(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct etl_kidx *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->vmin != y->vmin)
        return (int)x->vmin - (int)y->vmin;
    return (int)x->layout - (int)y->layout;
}

void etl_ktable_init(struct etl_ktable *t)
{
    t->n = 0;
    memset(t->memo, 0, sizeof t->memo);
    for (size_t l = 0; l < etl_nklayouts; l++) {
        const struct etl_klayout *k = &etl_klayouts[l];
        for (size_t i = 0; i < k->nops && t->n < ETL_KTABLE_MAX; i++) {
            struct etl_kidx *e = &t->idx[t->n++];
            e->key = (uint32_t)k->group << 8 | k->ops[i];
            e->layout = (uint16_t)l;
            e->vmin = k->vmin;
            e->vmax = k->vmax;
        }
    }
    etl_sort(t->idx, t->n, sizeof t->idx[0], cmp_idx, NULL);
    for (unsigned i = 0; i < ETL_KREPEAT_MAX; i++)
        snprintf(t->repeat[i], sizeof t->repeat[i], "Stack%u", i + 1);
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
static const struct etl_kidx *find(const struct etl_ktable *t, uint32_t key)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->idx[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n && t->idx[lo].key == key ? &t->idx[lo] : NULL;
}

/* Returns the name of (group, opcode), or NULL. */
static const char *kname_find(uint32_t key)
{
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

/* The answers of each thread: the last one, and a small table of others,
 * a slot a key. Events come in runs of one kind, and a trace interleaves a
 * few kinds (a CPU's context switches with its ReadyThread and DPC events,
 * say), each seen again soon after. */
#define KNAME_SLOTS 64u
static _Thread_local uint32_t kname_last_key = UINT32_MAX;
static _Thread_local const char *kname_last;

/* kname's way when the key is not the last one's. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static const char *kname_other(uint32_t key)
{
    static _Thread_local struct {
        uint32_t key1;         /* the key plus one; 0: empty */
        const char *name;
    } memo[KNAME_SLOTS];
    unsigned i = (unsigned)(key ^ (key >> 8)) & (KNAME_SLOTS - 1); /* opcode ^ group */
    if (memo[i].key1 != key + 1) {
        memo[i].name = kname_find(key);
        memo[i].key1 = key + 1;
    }
    kname_last_key = key;
    return kname_last = memo[i].name;
}

static inline const char *kname(uint32_t key)
{
    return key == kname_last_key ? kname_last : kname_other(key);
}

const char *etl_kernel_event_name(const struct etl_event *ev)
{
    int g = etl_kernel_group(ev);
    return g < 0 ? NULL : kname((uint32_t)g << 8 | ev->opcode);
}

const char *etl_kernel_hook_name(uint16_t hook)
{
    return kname(hook);
}

const char *etl_kernel_group_name(int group)
{
    for (size_t i = 0; i < etl_nkgroups; i++)
        if (etl_kgroups[i].group == group)
            return etl_kgroups[i].name;
    return NULL;
}

/* ---- the engine ---------------------------------------------------------------- */

struct kread {
    struct etl_cursor *c;
    struct etl_fields *out;
    unsigned ptr;
    const char (*repeat)[12];
};

static bool read_list(struct kread *r, const struct etl_kfield *list, unsigned depth);

/* Skips the zero padding before field f when it is aligned (base: where its
 * structure begins); false when the padding is missing or not zero. */
static bool align(struct kread *r, const struct etl_kfield *f, size_t base)
{
    size_t a = etl_intype_size(f->in, r->ptr);
    if (!(f->flags & ETL_KF_ALIGN) || a < 2)
        return true;
    size_t pad = (a - (r->c->pos - base) % a) % a;
    if (pad > etl_cur_left(r->c))
        return false;
    for (size_t i = 0; i < pad; i++)
        if (r->c->base[r->c->pos + i] != 0)
            return false;
    r->c->pos += pad;
    return true;
}

static bool read_one(struct kread *r, const struct etl_kfield *f, const char *nm, size_t nl,
                     uint32_t len, unsigned depth, uint64_t *val);

/* Reads one value of field f (an array element when named is false);
 * len is its length or ETL_LEN_NONE; *val receives an integer's value. */
static bool read_value(struct kread *r, const struct etl_kfield *f, bool named,
                       uint32_t len, unsigned depth, uint64_t *val)
{
    const char *nm = named ? f->name : NULL;
    size_t nl = named ? f->nlen : 0;
    size_t at = r->out->n;
    bool ok = read_one(r, f, nm, nl, len, depth, val);
    /* The tables' names need no escaping. */
    if (named && r->out->n > at)
        r->out->f[at].plain = 1;
    return ok;
}

/* read_value's work: the value of field f named nm (NULL in arrays). */
static bool read_one(struct kread *r, const struct etl_kfield *f, const char *nm, size_t nl,
                     uint32_t len, unsigned depth, uint64_t *val)
{
    *val = 0;
    if (f->flags & ETL_KF_STRUCT) {
        etl_fields_struct_begin(r->out, nm, nl);
        bool ok = read_list(r, f->members, depth + 1);
        etl_fields_struct_end(r->out);
        return ok;
    }
    int got = f->hint == ETL_H_NONE
                  ? etl_intype_read_int(r->out, nm, nl, f->in, r->c, r->ptr, val)
                  : -1;
    if (got < 0)
        got = etl_intype_read(r->out, nm, nl, f->in, (enum etl_hint)f->hint, len, r->c,
                              r->ptr, val);
    return got == 1;
}

/* Reads field f (number k of its list, vals holding the values of the
 * fields before it; its structure begins at base); false at damage. */
static bool read_field(struct kread *r, const struct etl_kfield *f, unsigned k,
                       const uint64_t *val, unsigned depth, size_t base, uint64_t *v)
{
    *v = 0;
    if (!align(r, f, base))
        return false;
    if (f->flags & ETL_KF_REPEAT) {
        for (unsigned i = 0; etl_cur_left(r->c) > 0; i++) {
            if (i >= ETL_KREPEAT_MAX || !r->repeat ||
                etl_intype_read(r->out, r->repeat[i], strlen(r->repeat[i]), f->in,
                                (enum etl_hint)f->hint, ETL_LEN_NONE, r->c, r->ptr,
                                NULL) != 1)
                return false;
        }
        return true;
    }
    /* A length or count from an earlier field of this list. */
    uint64_t from = f->len < k && f->len < ETL_KFIELDS_MAX ? val[f->len] : 0;
    uint32_t len = ETL_LEN_NONE;
    if (f->flags & ETL_KF_FIXED)
        len = f->len;
    else if (f->flags & ETL_KF_LEN_FROM)
        len = from > 0xFFFFFFFEu ? 0xFFFFFFFEu : (uint32_t)from;
    if (!(f->flags & (ETL_KF_ARRAY | ETL_KF_COUNT_FROM)))
        return read_value(r, f, true, len, depth, v);
    uint64_t count = (f->flags & ETL_KF_ARRAY) ? f->len : from;
    /* Every element takes a byte at least. */
    if (count > etl_cur_left(r->c))
        return false;
    uint64_t ev;
    bool ok = true;
    if (etl_fields_array_begin(r->out, f->name, f->nlen))
        r->out->f[r->out->n - 1].plain = 1;
    for (uint64_t i = 0; i < count && ok; i++)
        ok = read_value(r, f, false, len, depth, &ev);
    etl_fields_array_end(r->out);
    return ok;
}

/* Reads the fields of list; false at damage. At the top level a damaged
 * field is taken back whole: the cursor is left where it begins. */
static bool read_list(struct kread *r, const struct etl_kfield *list, unsigned depth)
{
    uint64_t val[ETL_KFIELDS_MAX];
    size_t base = r->c->pos;
    if (depth > ETL_FIELDS_MAX_DEPTH)
        return false;
    for (unsigned k = 0; list[k].name; k++) {
        const struct etl_kfield *f = &list[k];
        if ((f->flags & ETL_KF_OPTIONAL) && etl_cur_left(r->c) == 0)
            break;
        size_t pos = r->c->pos, n = r->out->n, alen = r->out->alen;
        unsigned open = r->out->depth;
        uint64_t v;
        int got = -1;
        if (f->flags == 0 && f->hint == ETL_H_NONE) {
            /* The usual field: one integer. */
            got = etl_intype_read_int(r->out, f->name, f->nlen, f->in, r->c, r->ptr, &v);
            if (got == 1 && r->out->n > n)
                r->out->f[n].plain = 1;
        }
        if (got == 0 || (got < 0 && !read_field(r, f, k, val, depth, base, &v))) {
            if (depth == 0) {
                r->c->pos = pos;
                r->out->n = n;
                r->out->alen = alen;
                r->out->depth = open;
            }
            return false;
        }
        if (k < ETL_KFIELDS_MAX)
            val[k] = v;
    }
    return true;
}

/* Decodes with layout fields; newer: the event's version is above the
 * table's. */
static enum etl_fdec decode(const struct etl_kfield *fields, bool newer,
                            const struct etl_event *ev, struct etl_cursor *c,
                            struct etl_fields *out, const char (*repeat)[12],
                            size_t *bad_at)
{
    struct kread r = { c, out, ev->ptr_size == 4 ? 4u : 8u, repeat };
    if (!read_list(&r, fields, 0)) {
        *bad_at = c->pos;
        return newer ? ETL_FDEC_PARTIAL : ETL_FDEC_DAMAGED;
    }
    if (etl_cur_left(c) > 0) {
        *bad_at = c->pos;
        return ETL_FDEC_PARTIAL;
    }
    return ETL_FDEC_OK;
}

/* The layout of the events of key at version v, or -1; *newer when it is
 * the newest below v (its fields are the known prefix of a newer version,
 * doc/format.md 18.3). */
static int32_t layout_of(const struct etl_ktable *t, uint32_t key, unsigned v, bool *newer)
{
    const struct etl_kidx *e = find(t, key);
    const struct etl_kidx *pick = NULL, *newest = NULL;
    for (; e && e < t->idx + t->n && e->key == key; e++) {
        if (v >= e->vmin && v <= e->vmax) {
            pick = e;
            break;
        }
        if (e->vmax < v && (!newest || e->vmax > newest->vmax))
            newest = e;
    }
    *newer = !pick;
    if (!pick)
        pick = newest;
    return pick ? pick->layout : -1;
}

enum etl_fdec etl_kernel_fields(struct etl_ktable *t, const struct etl_event *ev,
                                struct etl_cursor *c, struct etl_fields *out,
                                size_t *bad_at)
{
    *bad_at = 0;
    int g = etl_kernel_group(ev);
    if (g < 0)
        return ETL_FDEC_NO_LAYOUT;
    uint32_t key = (uint32_t)g << 8 | ev->opcode;
    uint8_t v = (uint8_t)(ev->version & 0xFFu);
    /* The lookup is a binary search, about 80 instructions an event of
     * --events=all: the kinds a trace mixes (switches, ready threads,
     * DPCs, ...) find it once each while they stay in their memo slots. */
    uint32_t h = (key * 0x9E3779B1u ^ (uint32_t)v * 0x85EBCA6Bu) >> 24;
    struct etl_kmemo *m = &t->memo[h & (ETL_KMEMO - 1)];
    if (m->key1 != key + 1 || m->version != v) {
        m->layout = layout_of(t, key, v, &m->newer);
        m->key1 = key + 1;
        m->version = v;
    }
    if (m->layout < 0)
        return ETL_FDEC_NO_LAYOUT;
    return decode(etl_klayouts[m->layout].fields, m->newer, ev, c, out, t->repeat, bad_at);
}

/* ---- built-in providers ------------------------------------------------------- */

/* Returns the provider of ev when it has built-in layouts, or NULL. */
static const struct etl_pprovider *pprovider(const uint8_t guid[16])
{
    for (size_t i = 0; i < etl_npproviders; i++)
        if (etl_pproviders[i].guid[0] == guid[0] &&
            memcmp(etl_pproviders[i].guid, guid, 16) == 0)
            return &etl_pproviders[i];
    return NULL;
}

/* Finds the built-in event of ev: its entry for the version, else the
 * newest entry below it (*newer set). NULL when none. */
static const struct etl_pevent *pevent(const struct etl_event *ev, bool *newer)
{
    *newer = false;
    if ((ev->kind != ETL_KIND_EVENT_HEADER32 && ev->kind != ETL_KIND_EVENT_HEADER64) ||
        !(ev->flags & ETL_EV_EVENT_ID))
        return NULL;
    const struct etl_pprovider *p = pprovider(ev->guid);
    if (!p)
        return NULL;
    size_t lo = 0, hi = p->nev;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->ev[mid].id < ev->event_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    unsigned v = ev->version & 0xFFu;
    const struct etl_pevent *newest = NULL;
    for (size_t i = lo; i < p->nev && p->ev[i].id == ev->event_id; i++) {
        if (v >= p->ev[i].vmin && v <= p->ev[i].vmax)
            return &p->ev[i];
        if (p->ev[i].vmax < v)
            newest = &p->ev[i];
    }
    *newer = newest != NULL;
    return newest;
}

enum etl_fdec etl_builtin_fields(const struct etl_event *ev, struct etl_cursor *c,
                                 struct etl_fields *out, const char **name,
                                 size_t *bad_at)
{
    bool newer;
    const struct etl_pevent *e = pevent(ev, &newer);
    *bad_at = 0;
    *name = e ? e->name : NULL;
    if (!e)
        return ETL_FDEC_NO_LAYOUT;
    return decode(e->fields, newer, ev, c, out, NULL, bad_at);
}

const char *etl_builtin_event_name(const struct etl_event *ev)
{
    bool newer;
    const struct etl_pevent *e = pevent(ev, &newer);
    return e ? e->name : NULL;
}

const char *etl_builtin_provider_name(const uint8_t guid[16])
{
    const struct etl_pprovider *p = pprovider(guid);
    return p ? p->name : NULL;
}
