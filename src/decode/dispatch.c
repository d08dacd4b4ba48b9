/*
 * dispatch.c - the dispatch table (see dispatch.h), sorted by HookId and
 * searched by halving.
 */
#include "decode/dispatch.h"

#include <stdlib.h>
#include <string.h>

/* Typed decoders: each wraps its family's decoder. */
static bool dec_header_ext(const struct etl_event *ev, struct etl_cursor *c,
                           struct etl_record *r)
{
    (void)ev;
    if (etl_decode_header_ext(c, &r->u.ext))
        return true;
    r->problem = "header-extension event shorter than its group masks";
    return false;
}

static bool dec_cswitch(const struct etl_event *ev, struct etl_cursor *c,
                        struct etl_record *r)
{
    if (etl_decode_cswitch(ev, c, &r->u.sw))
        return true;
    r->problem = "CSwitch event too short";
    return false;
}

static bool dec_batch(const struct etl_event *ev, struct etl_cursor *c,
                      struct etl_record *r)
{
    (void)ev;
    r->u.batch = *c; /* the switch reader expands it (decode/cswitch.c) */
    return true;
}

static bool dec_process(const struct etl_event *ev, struct etl_cursor *c,
                        struct etl_record *r)
{
    enum etl_pt_status st = etl_decode_process(ev, c, &r->u.proc, &r->at);
    if (st != ETL_PT_OK)
        r->problem = etl_pt_status_msg(st, true);
    return st != ETL_PT_SHORT;
}

static bool dec_thread(const struct etl_event *ev, struct etl_cursor *c,
                       struct etl_record *r)
{
    enum etl_pt_status st = etl_decode_thread(ev, c, &r->u.thr, &r->at);
    if (st != ETL_PT_OK)
        r->problem = etl_pt_status_msg(st, false);
    return st != ETL_PT_SHORT;
}

static bool dec_ready(const struct etl_event *ev, struct etl_cursor *c,
                      struct etl_record *r)
{
    (void)ev;
    if (etl_decode_ready(c, &r->u.ready))
        return true;
    r->problem = "ReadyThread event shorter than its 8-byte payload";
    return false;
}

static bool dec_intr(const struct etl_event *ev, struct etl_cursor *c,
                     struct etl_record *r)
{
    if (etl_decode_intr(ev, c, &r->u.intr))
        return true;
    r->problem = etl_intr_is_isr(r->u.intr.type) ? "ISR event too short"
                                                  : "DPC event too short";
    return false;
}

#define HOOK(h, last, kind, fn) { h, last, NULL, 0, 0, 255, kind, fn, 0 }
/* An entry for some header kinds and versions only. */
#define HOOKKV(h, kinds, v0, v1, kind, fn) { h, h, NULL, 0, v0, v1, kind, fn, kinds }
/* PERFINFO headers (§3.4): timestamp only. */
#define PERFINFO ((1u << ETL_KIND_PERFINFO32) | (1u << ETL_KIND_PERFINFO64))

/* The table, sorted by HookId; ranges do not overlap but for versions. */
static const struct etl_decoder table[] = {
    HOOK(0x0000, 0x0000, ETL_REC_LOGFILE, NULL),
    HOOK(0x0005, 0x0005, ETL_REC_HEADER_EXT, dec_header_ext),
    HOOK(0x0020, 0x0020, ETL_REC_HEADER_EXT, dec_header_ext),
    HOOK(0x0301, 0x0301, ETL_REC_PROCESS, dec_process),
    HOOK(0x0302, 0x0302, ETL_REC_PROCESS, dec_process),
    HOOK(0x0303, 0x0303, ETL_REC_PROCESS, dec_process),
    HOOK(0x0304, 0x0304, ETL_REC_PROCESS, dec_process),
    HOOK(0x030B, 0x030B, ETL_REC_PROCESS, dec_process),
    HOOK(0x0320, 0x0320, ETL_REC_PROCESS, dec_process),
    HOOK(0x0321, 0x0321, ETL_REC_PROCESS, dec_process),
    HOOK(0x0327, 0x0327, ETL_REC_PROCESS, dec_process),
    HOOK(0x0501, 0x0501, ETL_REC_THREAD, dec_thread),
    HOOK(0x0502, 0x0502, ETL_REC_THREAD, dec_thread),
    HOOK(0x0503, 0x0503, ETL_REC_THREAD, dec_thread),
    HOOK(0x0504, 0x0504, ETL_REC_THREAD, dec_thread),
    HOOK(0x0524, 0x0524, ETL_REC_CSWITCH, dec_cswitch),
    HOOK(0x0525, 0x0525, ETL_REC_CSWITCH_BATCH, dec_batch),
    /* Versions 2 and later share the 8-byte payload (§16); a ReadyThread
     * comes with a PERFINFO header, another header kind is another event. */
    HOOKKV(0x0532, PERFINFO, 2, 255, ETL_REC_READY, dec_ready),
    HOOK(0x0548, 0x0548, ETL_REC_THREAD, dec_thread),
    HOOKKV(0x0F32, PERFINFO, 2, 255, ETL_REC_INTR, dec_intr),
    HOOKKV(0x0F42, PERFINFO, 0, 255, ETL_REC_INTR, dec_intr),
    HOOKKV(0x0F43, PERFINFO, 0, 255, ETL_REC_INTR, dec_intr),
    HOOKKV(0x0F44, PERFINFO, 0, 255, ETL_REC_INTR, dec_intr),
    HOOKKV(0x0F45, PERFINFO, 0, 255, ETL_REC_INTR, dec_intr),
};

/* The entry for everything else. */
static const struct etl_decoder generic = { 0, 0xFFFF, NULL, 0, 0, 255, ETL_REC_NONE,
                                            NULL, 0 };

#define NTABLE (sizeof table / sizeof table[0])

/* The first entry whose range does not end before HookId h: from it, the
 * entries that start at or before h are h's (versions may split a HookId). */
static size_t first_entry(uint16_t h)
{
    size_t lo = 0, hi = NTABLE;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (table[mid].hook_last < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Returns true if entry i takes events of header kind `kind`. */
static bool takes_kind(size_t i, unsigned kind)
{
    return !table[i].kinds || (table[i].kinds & (1u << kind));
}

/* The decoder for a kernel event's HookId, version and header kind. */
static const struct etl_decoder *lookup(uint16_t h, unsigned v, unsigned kind)
{
    for (size_t i = first_entry(h); i < NTABLE && table[i].hook <= h; i++)
        if (v >= table[i].vmin && v <= table[i].vmax && takes_kind(i, kind))
            return &table[i];
    return &generic;
}

bool etl_dispatch_may_be(uint16_t h, unsigned kind, uint32_t rec)
{
    for (size_t i = first_entry(h); i < NTABLE && table[i].hook <= h; i++)
        if (takes_kind(i, kind) && (rec & (1u << table[i].kind)))
            return true;
    return false;
}

bool etl_runs_pick_init(struct etl_runs_pick *p, uint32_t rec)
{
    p->rec = rec;
    p->cls = calloc(65536, sizeof *p->cls);
    return p->cls != NULL;
}

void etl_runs_pick_learn(struct etl_runs_pick *p, const struct etl_event *ev)
{
    if (ev->kind == ETL_KIND_PERFINFO64 && (ev->flags & ETL_EV_HOOK) &&
        !etl_dispatch_may_be(ev->hook_id, ETL_KIND_PERFINFO64, p->rec))
        p->cls[ev->hook_id] = 1;
}

void etl_runs_pick_fini(struct etl_runs_pick *p)
{
    free(p->cls);
    p->cls = NULL;
}

/* The answers of each thread for a key (HookId, version and kind): the
 * last one, and a small table of others, a slot a key. Events come in runs
 * of one kind (a CPU's context switches), and a trace interleaves a few
 * kinds, each seen again soon after. */
#define DISPATCH_SLOTS 64u
static _Thread_local uint32_t last_key = UINT32_MAX;
static _Thread_local const struct etl_decoder *last;

/* etl_dispatch's way when the key is not the last one's. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static const struct etl_decoder *dispatch_other(uint32_t key)
{
    static _Thread_local struct {
        uint32_t key1;         /* the key plus one; 0: empty */
        const struct etl_decoder *d;
    } memo[DISPATCH_SLOTS];
    unsigned i = (unsigned)(key ^ (key >> 8) ^ (key >> 16) ^ (key >> 24)) & (DISPATCH_SLOTS - 1);
    if (memo[i].key1 != key + 1) {
        memo[i].d = lookup((uint16_t)(key & 0xFFFFu), key >> 16 & 0xFFu, key >> 24);
        memo[i].key1 = key + 1;
    }
    last_key = key;
    return last = memo[i].d;
}

const struct etl_decoder *etl_dispatch(const struct etl_event *ev)
{
    if (!(ev->flags & ETL_EV_HOOK) || !etl_kind_is_kernel(ev->kind))
        return &generic;
    uint32_t key = (uint32_t)ev->hook_id | (uint32_t)(ev->version & 0xFFu) << 16 |
                   (uint32_t)ev->kind << 24;
    return key == last_key ? last : dispatch_other(key);
}

const struct etl_decoder *etl_dispatch_kernel(uint16_t h, unsigned v, unsigned kind)
{
    uint32_t key = (uint32_t)h | (v & 0xFFu) << 16 | (kind & 0xFFu) << 24;
    return key == last_key ? last : dispatch_other(key);
}

bool etl_decode(const struct etl_event *ev, const struct etl_decoder *d,
                struct etl_record *r)
{
    r->dec = d;
    r->problem = NULL;
    r->at = 0;
    r->valid = false;
    if (!d->decode)
        return false;
    struct etl_cursor c = etl_cur_make(ev->data, ev->data_len);
    r->valid = d->decode(ev, &c, r);
    return r->valid;
}

enum etl_rec_kind etl_decode_event(const struct etl_event *ev, struct etl_record *r)
{
    const struct etl_decoder *d = etl_dispatch(ev);
    return etl_decode(ev, d, r) ? (enum etl_rec_kind)d->kind : ETL_REC_NONE;
}
