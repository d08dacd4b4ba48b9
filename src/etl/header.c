/*
 * header.c - trace header kinds: classification by the first dword and the
 * fields each kind carries. Layouts: doc/format.md §3.
 */
#include "etl/etl.h"

#include <string.h>

#include "cursor.h"
#include "inline.h"

/* Marker bits of the first dword (§3.1). */
#define MARK_TRACE_HEADER 0x80000000u
#define MARK_EVENT_TRACE 0x40000000u
#define MARK_ULONG32_TIME 0x20000000u
#define MARK_MESSAGE 0x10000000u
/* PERFINFO extended-item bits (§3.4). */
#define MARK_PEBS 0x00008000u
#define MARK_PMC_MASK 0x00000700u
#define MARK_PMC_SHIFT 8

/* HeaderType values (byte 2) mapped to kinds; 0xFF = no layout known. */
static const uint8_t header_type_kind[0x14 + 2] = {
    [0x00] = 0xFF,
    [0x01] = ETL_KIND_SYSTEM32,      [0x02] = ETL_KIND_SYSTEM64,
    [0x03] = ETL_KIND_COMPACT32,     [0x04] = ETL_KIND_COMPACT64,
    [0x05] = 0xFF, [0x06] = 0xFF, [0x07] = 0xFF, [0x08] = 0xFF, [0x09] = 0xFF,
    [0x0A] = ETL_KIND_FULL32,        [0x0B] = ETL_KIND_INSTANCE32,
    [0x0C] = 0xFF, [0x0D] = 0xFF, [0x0E] = 0xFF, [0x0F] = 0xFF,
    [0x10] = ETL_KIND_PERFINFO32,    [0x11] = ETL_KIND_PERFINFO64,
    [0x12] = ETL_KIND_EVENT_HEADER32, [0x13] = ETL_KIND_EVENT_HEADER64,
    [0x14] = ETL_KIND_FULL64,        [0x15] = ETL_KIND_INSTANCE64,
};

static const char *const kind_names[ETL_KIND_COUNT] = {
    "SYSTEM32",       "SYSTEM64",       "COMPACT32",  "COMPACT64",
    "PERFINFO32",     "PERFINFO64",     "FULL32",     "FULL64",
    "INSTANCE32",     "INSTANCE64",     "EVENT_HEADER32", "EVENT_HEADER64",
    "MESSAGE",
};

const char *etl_kind_name(unsigned kind)
{
    return kind < ETL_KIND_COUNT ? kind_names[kind] : "UNKNOWN";
}

size_t etl_kind_name_len(unsigned kind)
{
    static const uint8_t len[ETL_KIND_COUNT] = { 8, 8, 9, 9, 10, 10, 6, 6, 10, 10, 14, 14, 7 };
    return kind < ETL_KIND_COUNT ? len[kind] : 7;
}

/* Fills the fields shared by SYSTEM and COMPACT headers (§3.3). */
static void parse_system(struct etl_cursor *c, struct etl_event *ev)
{
    etl_cur_seek(c, 0);
    ev->version = (uint16_t)(etl_cur_u16(c) & 0xFF);
    etl_cur_skip(c, 4);
    ev->hook_id = etl_cur_u16(c);
    ev->tid = etl_cur_u32(c);
    ev->pid = etl_cur_u32(c);
    ev->ts = (int64_t)etl_cur_u64(c);
    ev->opcode = (uint8_t)(ev->hook_id & 0xFF);
    ev->flags = ETL_EV_TS | ETL_EV_HOOK | ETL_EV_TID | ETL_EV_OPCODE | ETL_EV_VERSION;
}

/* Fills the fields of an EVENT_TRACE_HEADER, also the start of INSTANCE
 * headers (§3.5, §3.6). */
static void parse_full(struct etl_cursor *c, struct etl_event *ev)
{
    etl_cur_seek(c, 4);
    ev->opcode = etl_cur_u8(c);
    etl_cur_skip(c, 1); /* level */
    ev->version = etl_cur_u16(c);
    ev->tid = etl_cur_u32(c);
    ev->pid = etl_cur_u32(c);
    ev->ts = (int64_t)etl_cur_u64(c);
    etl_cur_bytes(c, ev->guid, 16);
    ev->flags = ETL_EV_TS | ETL_EV_GUID | ETL_EV_TID | ETL_EV_OPCODE | ETL_EV_VERSION;
}

/* Fills an EVENT_HEADER and steps over its extended data items (§3.8);
 * returns the offset of the user data or 0 if the items are damaged. */
static size_t parse_event_header(struct etl_cursor *c, struct etl_event *ev)
{
    etl_cur_seek(c, 4);
    uint16_t eflags = etl_cur_u16(c);
    etl_cur_skip(c, 2); /* EventProperty */
    ev->tid = etl_cur_u32(c);
    ev->pid = etl_cur_u32(c);
    ev->ts = (int64_t)etl_cur_u64(c);
    etl_cur_bytes(c, ev->guid, 16);
    ev->event_id = etl_cur_u16(c);
    ev->version = etl_cur_u8(c);
    etl_cur_skip(c, 2); /* channel, level */
    ev->opcode = etl_cur_u8(c);
    ev->flags = ETL_EV_TS | ETL_EV_GUID | ETL_EV_TID | ETL_EV_OPCODE |
                ETL_EV_VERSION | ETL_EV_EVENT_ID;
    if (eflags & 0x0004)
        ev->flags |= ETL_EV_STRING_ONLY;
    size_t pos = 0x50;
    if (eflags & 0x0001) {
        ev->ext_items = c->base + pos;
        /* Each item: u16 total size, u16 type, u16 linkage (bit 0), u16 DataSize. */
        for (;;) {
            etl_cur_seek(c, pos);
            uint16_t item = etl_cur_u16(c);
            etl_cur_skip(c, 2);
            uint16_t link = etl_cur_u16(c);
            uint16_t dsize = etl_cur_u16(c);
            if (!etl_cur_ok(c) || item < 8 || (size_t)dsize + 8 > item ||
                item > c->len - pos)
                return 0;
            pos += item;
            if (!(link & 1))
                break;
        }
        ev->ext_items_len = (uint32_t)(pos - 0x50);
    }
    return pos;
}

/* Fills a MESSAGE_TRACE_HEADER's optional items (§3.7); returns the offset
 * of the argument bytes. */
static size_t parse_message(struct etl_cursor *c, struct etl_event *ev)
{
    etl_cur_seek(c, 4);
    ev->event_id = etl_cur_u16(c); /* MessageNumber */
    uint16_t opt = etl_cur_u16(c);
    ev->flags = ETL_EV_EVENT_ID;
    if (opt & 0x0001)
        etl_cur_skip(c, 4); /* sequence */
    if (opt & 0x0004) {
        etl_cur_skip(c, 4); /* component id wins over the GUID */
    } else if (opt & 0x0002) {
        etl_cur_bytes(c, ev->guid, 16);
        ev->flags |= ETL_EV_GUID;
    }
    if (opt & (0x0008 | 0x0010)) {
        int64_t ts = (int64_t)etl_cur_u64(c);
        if (opt & 0x0008) {
            ev->ts = ts;
            ev->flags |= ETL_EV_TS;
        }
    }
    if (opt & 0x0020) {
        ev->tid = etl_cur_u32(c);
        ev->pid = etl_cur_u32(c);
        ev->flags |= ETL_EV_TID;
    }
    return c->pos;
}

/* Fills a PERFINFO_TRACE_HEADER's fields (§3.4) from its first dword m and
 * its bytes at p (at least 0x10); returns the offset of its data, past
 * the extended items. */
static inline size_t parse_perfinfo(const uint8_t *p, uint32_t m, struct etl_event *ev)
{
    ev->version = (uint16_t)(m & 0xFF);
    ev->hook_id = etl_le16(p + 6);
    ev->opcode = (uint8_t)(ev->hook_id & 0xFF);
    ev->ts = (int64_t)etl_le64(p + 8);
    ev->flags = ETL_EV_TS | ETL_EV_HOOK | ETL_EV_OPCODE | ETL_EV_VERSION;
    ev->pebs = (m & MARK_PEBS) ? 1 : 0;
    ev->pmc_count = (uint8_t)((m & MARK_PMC_MASK) >> MARK_PMC_SHIFT);
    ev->ext = p + 0x10;
    return 0x10 + 8u * (ev->pebs + ev->pmc_count);
}

/* Returns true if the record at p, with avail bytes left in its buffer and
 * first dword m, is a PERFINFO64 record whole and sound (its extended items
 * inside it): the kernel's most common header. *sz gets its size. */
static inline bool perfinfo64_sound(const uint8_t *p, uint32_t m, size_t avail,
                                    size_t *sz)
{
    if ((m & 0xC0FF0000u) != 0xC0110000u || avail < 0x10)
        return false;
    *sz = etl_le16(p + 4);
    size_t items = ((m & MARK_PEBS) ? 1u : 0u) + ((m & MARK_PMC_MASK) >> MARK_PMC_SHIFT);
    return *sz >= 0x10 + 8u * items && *sz <= avail;
}

size_t etl_head_data(const uint8_t *rec, unsigned *version)
{
    uint32_t m = etl_le32(rec);
    *version = m & 0xFF;
    return 0x10 + 8u * (((m & MARK_PEBS) ? 1u : 0u) + ((m & MARK_PMC_MASK) >> MARK_PMC_SHIFT));
}

/* How far ahead of the record it is at etl_parse_heads and etl_parse_runs
 * ask for the bytes of a buffer read in place from a mapping (in a copy
 * they are near already): four lines of 64 bytes at that distance, the
 * stretch a run of records crosses per record at about 230 bytes each, so
 * that their headers are not each fetched from memory when the loop
 * reaches them. */
#define HEADS_AHEAD 1024u

/* The size of the record at off in buf[0..len) (off + 0x10 <= len) when it
 * is a PERFINFO64 record whole and sound, else 0: perfinfo64_sound's
 * checks, the usual record (no extended items) in one comparison of its
 * marker. */
static inline size_t sound_size(const uint8_t *buf, size_t len, size_t off)
{
    const uint8_t *p = buf + off;
    uint32_t m = etl_le32(p);
    size_t sz = etl_le16(p + 4), need = 0x10;
    if (ETL_UNLIKELY((m & (0xC0FF0000u | MARK_PEBS | MARK_PMC_MASK)) != 0xC0110000u)) {
        if ((m & 0xC0FF0000u) != 0xC0110000u)
            return 0;
        need += 8u * (((m & MARK_PEBS) ? 1u : 0u) + ((m & MARK_PMC_MASK) >> MARK_PMC_SHIFT));
        return sz >= need && off + sz <= len ? sz : 0;
    }
    return sz >= 0x10 && off + sz <= len ? sz : 0;
}

/* Asks for the bytes HEADS_AHEAD past the record at p. */
static inline void heads_ahead(const uint8_t *p)
{
    uintptr_t ahead = (uintptr_t)p + HEADS_AHEAD;
    ETL_PREFETCH(ahead);
    ETL_PREFETCH(ahead + 64);
    ETL_PREFETCH(ahead + 128);
    ETL_PREFETCH(ahead + 192);
}

size_t etl_parse_heads(const uint8_t *buf, size_t len, size_t off, struct etl_head *h,
                       size_t max, size_t *next)
{
    size_t n = 0;
    /* off + 0x10 <= len: a whole header (off passes len by at most 7,
     * rounded up past a last record). */
    for (; n < max && off + 0x10 <= len; n++) {
        const uint8_t *p = buf + off;
        size_t sz = sound_size(buf, len, off);
        if (!sz)
            break;
        heads_ahead(p);
        h[n].ts = (int64_t)etl_le64(p + 8);
        h[n].offset = (uint32_t)off;
        h[n].hook_id = etl_le16(p + 6);
        h[n].size = (uint16_t)sz;
        off += (sz + 7u) & ~(size_t)7u;
    }
    *next = off;
    return n;
}

/* etl_parse_runs, asking for the bytes ahead of each record when ahead,
 * every HookId of class 1 when all (constants where it is inlined). A
 * run's first record is checked for a class of its own; the loop that
 * follows it stops at the first record of another class. */
ETL_INLINE size_t parse_runs(const uint8_t *buf, size_t len, size_t off, const uint32_t *cls,
                             struct etl_hook_run *r, size_t max, size_t *next, bool ahead,
                             bool all)
{
    size_t n = 0;
    if (len < 0x10) {
        *next = off;
        return 0;
    }
    /* A whole header at off: off <= lim (off passes len by at most 7,
     * rounded up past a last record). */
    size_t lim = len - 0x10;
    while (n < max && off <= lim) {
        const uint8_t *p = buf + off;
        size_t sz = sound_size(buf, len, off);
        uint32_t k = !sz ? 0 : all ? 1 : cls[etl_le16(p + 6)];
        if (!k)
            break;
        int64_t ts = (int64_t)etl_le64(p + 8);
        struct etl_hook_run run = { k, 0, 0, ts, ts };
        for (;;) {
            if (ahead)
                heads_ahead(p);
            run.count++;
            run.bytes += sz;
            run.first = ts < run.first ? ts : run.first;
            run.last = ts > run.last ? ts : run.last;
            off += (sz + 7u) & ~(size_t)7u;
            if (off > lim)
                break;
            p = buf + off;
            sz = sound_size(buf, len, off);
            if (!sz || (!all && cls[etl_le16(p + 6)] != k))
                break;
            ts = (int64_t)etl_le64(p + 8);
        }
        r[n++] = run;
    }
    *next = off;
    return n;
}

size_t etl_parse_runs(const uint8_t *buf, size_t len, size_t off, const uint32_t *cls,
                      struct etl_hook_run *r, size_t max, size_t *next, bool ahead)
{
    if (!cls)
        return ahead ? parse_runs(buf, len, off, cls, r, max, next, true, true)
                     : parse_runs(buf, len, off, cls, r, max, next, false, true);
    return ahead ? parse_runs(buf, len, off, cls, r, max, next, true, false)
                 : parse_runs(buf, len, off, cls, r, max, next, false, false);
}

enum etl_parse_status etl_parse_event(const uint8_t *buf, size_t len, size_t off,
                                      struct etl_event *ev, size_t *next,
                                      const char **why)
{
    if (off > len || len - off < 4)
        return ETL_PARSE_END;
    const uint8_t *p = buf + off;
    uint32_t m = etl_le32(p);
    if (m == 0xFFFFFFFFu)
        return ETL_PARSE_END;

    /* A copy of a zero event, not memset: gcc makes a memset of this size
     * a string instruction (rep stos) that takes longer to start than this
     * whole copy takes to run. */
    static const struct etl_event zero_event;
    *ev = zero_event;
    ev->event_offset = (uint32_t)off;
    size_t avail = len - off;

    /* The kernel's most common header, PERFINFO64, whole and sound: the
     * same fields as below without the classification. Anything else, or
     * anything wrong with it, takes the general way (and its message). */
    size_t sz;
    if (perfinfo64_sound(p, m, avail, &sz)) {
        ev->kind = ETL_KIND_PERFINFO64;
        ev->size = (uint16_t)sz;
        ev->ptr_size = 8;
        size_t d = parse_perfinfo(p, m, ev);
        ev->data = p + d;
        ev->data_len = (uint32_t)(sz - d);
        *next = off + ((sz + 7u) & ~(size_t)7u);
        return ETL_PARSE_OK;
    }
    size_t size;          /* record size */
    size_t fixed;         /* header bytes before data */
    unsigned kind;

    if (!(m & MARK_TRACE_HEADER)) {
        *why = "not a trace header (marker bit 0x80000000 clear)";
        return ETL_PARSE_BAD;
    }
    if (!(m & MARK_EVENT_TRACE)) {
        if (!(m & MARK_MESSAGE) || (m & MARK_ULONG32_TIME)) {
            *why = "unknown trace header marker";
            return ETL_PARSE_BAD;
        }
        kind = ETL_KIND_MESSAGE;
        size = m & 0xFFFF;
        fixed = 8;
    } else {
        unsigned ht = (m >> 16) & 0xFF;
        kind = ht < sizeof header_type_kind ? header_type_kind[ht] : 0xFF;
        if (kind == 0xFF) {
            *why = "trace header of an unknown type";
            return ETL_PARSE_BAD;
        }
        switch (kind) {
        case ETL_KIND_SYSTEM32: case ETL_KIND_SYSTEM64:
            fixed = 0x20; break;
        case ETL_KIND_COMPACT32: case ETL_KIND_COMPACT64:
            fixed = 0x18; break;
        case ETL_KIND_PERFINFO32: case ETL_KIND_PERFINFO64:
            fixed = 0x10; break;
        case ETL_KIND_FULL32: case ETL_KIND_FULL64:
            fixed = 0x30; break;
        case ETL_KIND_INSTANCE32: case ETL_KIND_INSTANCE64:
            fixed = 0x48; break;
        default:
            fixed = 0x50; break;
        }
        if (kind <= ETL_KIND_PERFINFO64)
            size = avail >= 6 ? etl_le16(p + 4) : 0;
        else
            size = m & 0xFFFF;
    }
    if (size < fixed) {
        *why = "record size smaller than its header";
        return ETL_PARSE_BAD;
    }
    if (size > avail) {
        *why = "record runs past the end of the buffer";
        return ETL_PARSE_BAD;
    }

    struct etl_cursor c = etl_cur_make(p, size);
    size_t data_off = fixed;
    ev->kind = (uint8_t)kind;
    ev->size = (uint16_t)size;
    ev->ptr_size = 8;

    switch (kind) {
    case ETL_KIND_SYSTEM32: case ETL_KIND_COMPACT32:
        ev->ptr_size = 4;
        /* fall through */
    case ETL_KIND_SYSTEM64: case ETL_KIND_COMPACT64:
        parse_system(&c, ev);
        break;
    case ETL_KIND_PERFINFO32:
        ev->ptr_size = 4;
        /* fall through */
    case ETL_KIND_PERFINFO64:
        data_off = parse_perfinfo(p, m, ev);
        if (data_off > size) {
            *why = "PERFINFO extended items run past the record";
            return ETL_PARSE_BAD;
        }
        break;
    case ETL_KIND_FULL32: case ETL_KIND_INSTANCE32:
        ev->ptr_size = 4;
        /* fall through */
    case ETL_KIND_FULL64: case ETL_KIND_INSTANCE64:
        parse_full(&c, ev);
        break;
    case ETL_KIND_EVENT_HEADER32:
        ev->ptr_size = 4;
        /* fall through */
    case ETL_KIND_EVENT_HEADER64:
        data_off = parse_event_header(&c, ev);
        if (data_off == 0) {
            *why = "damaged EVENT_HEADER extended data item";
            return ETL_PARSE_BAD;
        }
        break;
    default: /* MESSAGE */
        data_off = parse_message(&c, ev);
        break;
    }
    if (!etl_cur_ok(&c)) {
        *why = "record too short for its header's fields";
        return ETL_PARSE_BAD;
    }
    ev->data = p + data_off;
    ev->data_len = (uint32_t)(size - data_off);
    /* Records are 8-byte aligned relative to the buffer start (§3.1). */
    *next = off + ((size + 7u) & ~(size_t)7u);
    return ETL_PARSE_OK;
}
