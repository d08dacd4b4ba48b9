/*
 * stats.c - the census: events per header kind and HookId (SYSTEM, COMPACT,
 * PERFINFO) or provider GUID (EVENT_HEADER, FULL, INSTANCE), with the name
 * of the HookId's event or of the provider, per CPU, buffers and bytes, and
 * the time span. Buffers are walked in file order: counting needs no merge.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/payload.h"
#include "grow.h"
#include "sort.h"
#include "fmt.h"
#include "view/view.h"

/* Functions kept out of line, so that the usual event's way through
 * census_event stays short. */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

/* At most this many distinct keys are counted one by one. */
#define MAX_KEYS 65536u

enum { S_FILE, S_SECTION, S_NAME, S_COUNT, S_BYTES, S_FIRST, S_LAST, S_EVENT_NAME,
       S_COUNT_COLS };

static const struct etl_column stats_cols[S_COUNT_COLS] = {
    [S_FILE] = { "file", ETL_COL_STR, 0, true },
    [S_SECTION] = { "section", ETL_COL_NAME, -8, false },
    [S_NAME] = { "name", ETL_COL_NAME, -52, false },
    [S_COUNT] = { "count", ETL_COL_UINT, 10, false },
    [S_BYTES] = { "bytes", ETL_COL_UINT, 12, false },
    [S_FIRST] = { "first", ETL_COL_TIME, 14, false },
    [S_LAST] = { "last", ETL_COL_TIME, 14, false },
    [S_EVENT_NAME] = { "event_name", ETL_COL_STR, 0, false },
};

const struct etl_table etl_table_stats = { "stat", stats_cols, S_COUNT_COLS, false, NULL };

/* One census line: a count of events (or buffers) with bytes and times. */
struct tally {
    uint64_t count, bytes;
    int64_t first, last;
    bool timed;
};

/* A census key: header kind plus HookId or provider GUID. */
struct key {
    uint8_t kind;
    uint8_t has_guid;
    uint16_t hook;
    uint8_t guid[16];
};

struct entry {
    struct key k;
    struct tally t;
};

struct census {
    struct entry *ents;      /* every key counted, in the order first seen */
    size_t n, cap;
    uint32_t *hash;          /* keys by GUID or kind: entry index + 1, 0 = empty */
    size_t hcap;             /* a power of two, at least twice n */
    uint32_t *hooks[ETL_KIND_PERFINFO64 + 1]; /* per kernel kind: by HookId, index + 1 */
    struct tally other;      /* events past MAX_KEYS distinct keys */
    struct tally total;      /* the processors' tallies added up at the end */
    struct tally seen;       /* with a filter: every event, counted or not */
    struct tally *cpu;       /* ETL_MAX_CPUS */
    size_t last;             /* the entry of the previous event + 1: runs are common */
    struct etl_file *f;
    bool stop;
    bool strict;
    const struct etl_filter *flt; /* events to count (NULL: all) */
    bool payload;                 /* the filter looks at Process/Thread payloads */
    const struct etl_clock *clk;
    struct etl_procmap *map;      /* for --process only */
    struct etl_payload *pl;       /* names */
    bool names;                   /* the filter looks at names: pl learnt first */
};

/* Adds one event of size bytes at ts to t. */
static inline void tally_add(struct tally *t, uint64_t bytes, int64_t ts, bool timed)
{
    t->count++;
    t->bytes += bytes;
    if (!timed)
        return;
    if (!t->timed) {
        t->first = t->last = ts;
        t->timed = true;
        return;
    }
    t->first = ts < t->first ? ts : t->first;
    t->last = ts > t->last ? ts : t->last;
}

/* Adds tally b to a. */
static inline void tally_merge(struct tally *a, const struct tally *b)
{
    a->count += b->count;
    a->bytes += b->bytes;
    if (b->timed) {
        if (!a->timed || b->first < a->first)
            a->first = b->first;
        if (!a->timed || b->last > a->last)
            a->last = b->last;
        a->timed = true;
    }
}

/* Hashes a key: its bytes as three words, multiplied and folded. */
static size_t key_hash(const struct key *k)
{
    uint64_t a, b;
    memcpy(&a, k->guid, 8);
    memcpy(&b, k->guid + 8, 8);
    uint64_t h = ((uint64_t)k->kind << 24 | (uint64_t)k->has_guid << 16 | k->hook) ^
                 a * 0x9E3779B97F4A7C15ULL ^ b * 0xC2B2AE3D27D4EB4FULL;
    h *= 0xFF51AFD7ED558CCDULL;
    return (size_t)(h ^ (h >> 32));
}

/* Appends an entry for k; its index + 1, or 0 when full or out of memory. */
static uint32_t add_entry(struct census *c, const struct key *k)
{
    if (c->n >= MAX_KEYS)
        return 0;
    if (!etl_grow(&c->ents, &c->cap, c->n + 1, sizeof *c->ents, 64)) {
        etl_file_nomem(c->f);
        return 0;
    }
    memset(&c->ents[c->n], 0, sizeof c->ents[c->n]);
    c->ents[c->n].k = *k;
    return (uint32_t)++c->n;
}

/* Makes the hash hold twice its keys; false when out of memory. */
static bool hash_room(struct census *c)
{
    if (c->hcap > 2 * (c->n + 1))
        return true;
    size_t ncap = c->hcap ? c->hcap * 2 : 256;
    uint32_t *nh = calloc(ncap, sizeof *nh);
    if (!nh) {
        etl_file_nomem(c->f);
        return false;
    }
    for (size_t i = 0; i < c->hcap; i++) {
        if (!c->hash[i])
            continue;
        size_t j = key_hash(&c->ents[c->hash[i] - 1].k) & (ncap - 1);
        while (nh[j])
            j = (j + 1) & (ncap - 1);
        nh[j] = c->hash[i];
    }
    free(c->hash);
    c->hash = nh;
    c->hcap = ncap;
    return true;
}

/* Returns the entry of a key by GUID or kind + 1, adding it; 0 when full or
 * out of memory. */
static uint32_t find_hashed(struct census *c, const struct key *k)
{
    if (!hash_room(c))
        return 0;
    size_t j = key_hash(k) & (c->hcap - 1);
    while (c->hash[j]) {
        if (memcmp(&c->ents[c->hash[j] - 1].k, k, sizeof *k) == 0)
            return c->hash[j];
        j = (j + 1) & (c->hcap - 1);
    }
    return c->hash[j] = add_entry(c, k);
}

/* Returns a kernel kind's table of entries by HookId, made empty the first
 * time; NULL when out of memory (f is marked). */
static uint32_t *hook_table(struct census *c, unsigned kind)
{
    if (!c->hooks[kind] && !(c->hooks[kind] = calloc(65536, sizeof *c->hooks[kind])))
        etl_file_nomem(c->f);
    return c->hooks[kind];
}

/* Returns the entry of a kernel kind's HookId + 1, adding it; 0 when full
 * or out of memory. A table per kind, indexed by HookId, finds it. */
static uint32_t find_hook(struct census *c, const struct key *k)
{
    uint32_t *t = hook_table(c, k->kind);
    if (!t)
        return 0;
    if (!t[k->hook])
        t[k->hook] = add_entry(c, k);
    return t[k->hook];
}

/* Returns true if entry e counts events like ev (its kind and HookId or GUID). */
static bool entry_matches(const struct entry *e, const struct etl_event *ev,
                          bool by_guid)
{
    if (e->k.kind != ev->kind || e->k.has_guid != by_guid)
        return false;
    if (by_guid)
        return memcmp(e->k.guid, ev->guid, 16) == 0;
    return e->k.hook == ((ev->flags & ETL_EV_HOOK) ? ev->hook_id : 0);
}

/* The key of events of a kind without a GUID: by HookId (0: none). */
static struct key hook_key(uint8_t kind, uint16_t hook)
{
    struct key k;
    memset(&k, 0, sizeof k);
    k.kind = kind;
    k.hook = hook;
    return k;
}

/* Returns the entry counting ev + 1, or 0 (past MAX_KEYS, out of memory). */
static uint32_t census_find(struct census *c, const struct etl_event *ev, bool by_guid)
{
    bool hook = !by_guid && (ev->flags & ETL_EV_HOOK);
    struct key k = hook_key(ev->kind, hook ? ev->hook_id : 0);
    if (by_guid) {
        k.has_guid = 1;
        memcpy(k.guid, ev->guid, 16);
    }
    if (!by_guid && etl_kind_is_kernel(k.kind))
        return find_hook(c, &k);
    return find_hashed(c, &k);
}

/* Returns the entry counting ev + 1, or 0, for an event that is not a
 * kernel event of a HookId counted before: the previous event's entry
 * when ev is like it (runs are common), else found or added. */
static OUT_OF_LINE uint32_t census_other(struct census *c, const struct etl_event *ev)
{
    bool by_guid = !(ev->flags & ETL_EV_HOOK) && ev->kind != ETL_KIND_MESSAGE &&
                   (ev->flags & ETL_EV_GUID);
    if (c->last && entry_matches(&c->ents[c->last - 1], ev, by_guid))
        return (uint32_t)c->last;
    return census_find(c, ev, by_guid);
}

/* Returns true if the filter lets ev be counted. */
static OUT_OF_LINE bool census_wanted(struct census *c, const struct etl_event *ev)
{
    struct etl_record rec;
    if (c->payload)
        etl_decode_event(ev, &rec);
    const char *name = c->names ? etl_payload_name(c->pl, ev) : NULL;
    return etl_filter_event(c->flt, c->clk, c->map, ev, c->payload ? &rec : NULL, name);
}

/* Returns true, the census stopped, when it must count no more: with
 * --strict after a problem, or out of memory. */
static bool census_stops(struct census *c)
{
    if ((c->strict && etl_file_problems(c->f)) || etl_file_is_nomem(c->f))
        c->stop = true;
    return c->stop;
}

/* Counts one event. */
static bool census_event(void *ctx, const struct etl_event *ev)
{
    struct census *c = ctx;
    if (census_stops(c))
        return false;
    /* Events without a provider GUID (the kernel's) describe nothing. */
    if (!c->names && (ev->flags & ETL_EV_GUID) && !etl_payload_learn(c->pl, ev)) {
        etl_file_nomem(c->f);
        c->stop = true;
        return false;
    }
    if (c->flt) {
        tally_add(&c->seen, ev->size, ev->ts, (ev->flags & ETL_EV_TS) != 0);
        if (!census_wanted(c, ev))
            return !c->stop;
    }
    const uint32_t *hooks = etl_kind_is_kernel(ev->kind) ? c->hooks[ev->kind] : NULL;
    uint32_t e;
    if (hooks && (ev->flags & ETL_EV_HOOK) && hooks[ev->hook_id])
        e = hooks[ev->hook_id]; /* a kernel event seen before */
    else
        e = census_other(c, ev);
    c->last = e;
    bool timed = (ev->flags & ETL_EV_TS) != 0;
    tally_add(e ? &c->ents[e - 1].t : &c->other, ev->size, ev->ts, timed);
    tally_add(&c->cpu[ev->cpu], ev->size, ev->ts, timed);
    return true;
}

/* Counts runs of PERFINFO64 events of processor cpu added up by their
 * entry (etl_parse_runs, the classes the census's table by HookId: entry
 * index + 1), as census_event would count each: a HookId comes in a run
 * only once census_event has given it an entry. */
static bool census_runs(void *ctx, unsigned cpu, const struct etl_hook_run *r, size_t n)
{
    struct census *c = ctx;
    /* No problem is said inside a run: a check before it is one before each. */
    if (census_stops(c))
        return false;
    struct tally all = { 0, 0, 0, 0, false };
    for (size_t i = 0; i < n; i++) {
        struct tally part = { r[i].count, r[i].bytes, r[i].first, r[i].last, true };
        tally_merge(&c->ents[r[i].cls - 1].t, &part);
        tally_merge(&all, &part);
    }
    c->last = r[n - 1].cls;
    tally_merge(&c->cpu[cpu], &all);
    return true;
}

/* Orders census entries by kind name, then key. */
static int cmp_entry(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct entry *x = a, *y = b;
    int r = strcmp(etl_kind_name(x->k.kind), etl_kind_name(y->k.kind));
    if (r)
        return r;
    if (x->k.hook != y->k.hook)
        return x->k.hook < y->k.hook ? -1 : 1;
    if (x->k.has_guid != y->k.has_guid)
        return x->k.has_guid < y->k.has_guid ? -1 : 1;
    char gx[37], gy[37];
    etl_guid_str(x->k.guid, gx);
    etl_guid_str(y->k.guid, gy);
    return strcmp(gx, gy);
}

/* Prints one census row; ename is the name of the key's events or
 * provider (NULL: none). */
static int emit(struct etl_printer *p, struct etl_file *f, const char *section,
                const char *name, const struct tally *t, const char *ename)
{
    struct etl_value v[S_COUNT_COLS] = { 0 };
    ETL_CELL_STR(v, S_EVENT_NAME, ename, ename != NULL);
    v[S_FILE].v.str = etl_file_name(f);
    v[S_SECTION].v.str = section;
    v[S_NAME].v.str = name;
    v[S_COUNT].v.u = t->count;
    v[S_BYTES].v.u = t->bytes;
    v[S_FIRST].v.i = t->first;
    v[S_LAST].v.i = t->last;
    for (int i = 0; i <= S_BYTES; i++)
        v[i].set = true;
    v[S_FIRST].set = v[S_LAST].set = t->timed;
    return etl_print_row(p, v);
}

/* Returns the name of the events a census key counts: the kernel event of
 * its HookId or the provider of its GUID; NULL when unknown. */
static const char *key_event_name(const struct etl_payload *pl, const struct key *k)
{
    if (k->kind == ETL_KIND_MESSAGE)
        return NULL;
    if (k->has_guid)
        return etl_payload_provider_name(pl, k->guid);
    return k->kind <= ETL_KIND_PERFINFO64 ? etl_kernel_hook_name(k->hook) : NULL;
}

/* Writes the census key's name: "KIND 0xHOOK", "KIND guid" or "MESSAGE -". */
static void key_name(const struct key *k, char *out, size_t cap)
{
    if (k->kind == ETL_KIND_MESSAGE) {
        snprintf(out, cap, "MESSAGE -");
    } else if (k->has_guid) {
        char g[37];
        etl_guid_str(k->guid, g);
        snprintf(out, cap, "%s %s", etl_kind_name(k->kind), g);
    } else if (k->kind <= ETL_KIND_PERFINFO64) {
        snprintf(out, cap, "%s 0x%04x", etl_kind_name(k->kind), (unsigned)k->hook);
    } else {
        snprintf(out, cap, "%s -", etl_kind_name(k->kind));
    }
}

/* Frees what the census holds (what it never made is NULL). */
static void census_free(struct census *c)
{
    free(c->ents);
    free(c->hash);
    for (size_t i = 0; i < sizeof c->hooks / sizeof c->hooks[0]; i++)
        free(c->hooks[i]);
    free(c->cpu);
    etl_procmap_free(c->map);
    etl_payload_free(c->pl);
}

int etl_view_stats(struct etl_printer *p, struct etl_file *f,
                   const struct etl_view_opts *o)
{
    struct census c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.strict = o->strict;
    c.flt = etl_filter_any(o->filter) ? o->filter : NULL;
    c.payload = c.flt && (c.flt->tid.set || c.flt->pid.set || c.flt->nprocess);
    c.clk = etl_file_clock(f);
    c.cpu = calloc(ETL_MAX_CPUS, sizeof *c.cpu);
    c.pl = etl_payload_new();
    bool made = c.cpu && c.pl;
    if (!made)
        etl_file_nomem(f);
    /* Names by filter need the trace's descriptions before the walk;
     * otherwise the walk gathers them for the names printed at the end. */
    c.names = etl_filter_names(c.flt);
    /* --process needs the image of an event's process at its time.
     * Without a filter, PERFINFO64 events of a HookId seen before are
     * counted by their heads alone, added up in runs while they are read
     * (the classes: the table by HookId). */
    if (!made || (c.names && !etl_payload_prepass(c.pl, f)) ||
        (c.flt && c.flt->nprocess && !(c.map = etl_procmap_build(f, false))) ||
        (!c.flt && !hook_table(&c, ETL_KIND_PERFINFO64))) {
        census_free(&c);
        return 0;
    }
    etl_filter_notes(c.flt, c.map, f);
    if (c.flt)
        etl_walk_file(f, census_event, &c);
    else
        etl_walk_file_runs(f, census_event, census_runs, c.hooks[ETL_KIND_PERFINFO64], &c);
    for (size_t i = 0; i < ETL_MAX_CPUS; i++)
        tally_merge(&c.total, &c.cpu[i]);
    const struct etl_buffer_totals *bt = etl_file_totals(f);
    struct tally bufs = { bt->buffers, bt->bytes, 0, 0, false };
    struct tally zbufs = { bt->compressed, bt->compressed_bytes, 0, 0, false };
    struct tally rbufs = { bt->repeated, bt->repeated_bytes, 0, 0, false };

    /* The entries sorted for a stable census. */
    struct entry *list = c.ents;
    size_t n = c.n;
    int rc = 0;
    etl_sort(list, n, sizeof *list, cmp_entry, NULL);
    rc = etl_print_begin_table(p, &etl_table_stats);
    char name[80];
    rc = rc ? rc : emit(p, f, "buffers", "all", &bufs, NULL);
    rc = rc ? rc : emit(p, f, "buffers", "compressed", &zbufs, NULL);
    if (!rc && rbufs.count) /* a file with buffers found twice: they are not read */
        rc = emit(p, f, "buffers", "repeated", &rbufs, NULL);
    rc = rc ? rc : emit(p, f, "total", "events", &c.total, NULL);
    for (size_t i = 0; i < n && !rc; i++) {
        key_name(&list[i].k, name, sizeof name);
        rc = emit(p, f, "kind", name, &list[i].t, key_event_name(c.pl, &list[i].k));
    }
    if (!rc && c.other.count)
        rc = emit(p, f, "kind", "other", &c.other, NULL);
    for (unsigned i = 0; i < ETL_MAX_CPUS && !rc; i++) {
        if (!c.cpu[i].count)
            continue;
        snprintf(name, sizeof name, "%u", i);
        rc = emit(p, f, "cpu", name, &c.cpu[i], NULL);
    }
    rc = rc ? rc : etl_print_end_table(p);
    if (rc == 0 && !c.stop) /* every event seen */
        etl_filter_notes_end_at(c.flt, c.seen.timed, c.seen.last, ETL_SEEN_EVENTS, NULL, f);
    census_free(&c);
    return rc;
}
