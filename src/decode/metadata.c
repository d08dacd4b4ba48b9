/*
 * metadata.c - event descriptions carried in the trace: KernelTraceControl
 * EventMetadata events holding TRACE_EVENT_INFO (Microsoft tdh.h:
 * TRACE_EVENT_INFO, EVENT_PROPERTY_INFO, PROPERTY_FLAGS, EVENT_MAP_INFO),
 * kept in a bounded per-file registry and applied to the events they
 * describe (doc/format.md section 20).
 */
#include "decode/metadata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/intype.h"
#include "decode/kfields.h"
#include "decode/manifest.h"

/* PROPERTY_FLAGS (tdh.h). */
#define PROP_STRUCT 0x1u
#define PROP_PARAM_LENGTH 0x2u
#define PROP_PARAM_COUNT 0x4u
#define PROP_PARAM_FIXED_LENGTH 0x10u
#define PROP_PARAM_FIXED_COUNT 0x20u

/* TRACE_EVENT_INFO offsets (tdh.h). */
#define TEI_PROVIDER_GUID 0
#define TEI_EVENT_GUID 16
#define TEI_DESCRIPTOR 32
#define TEI_DECODING_SOURCE 48
#define TEI_PROVIDER_NAME 52
#define TEI_LEVEL_NAME 56
#define TEI_CHANNEL_NAME 60
#define TEI_KEYWORDS_NAME 64
#define TEI_TASK_NAME 68
#define TEI_OPCODE_NAME 72
#define TEI_EVENT_MESSAGE 76
#define TEI_PROVIDER_MESSAGE 80
#define TEI_EVENT_NAME 92
#define TEI_PROPERTY_COUNT 100
#define TEI_TOP_LEVEL_COUNT 104
#define TEI_PROPERTIES 112
#define EPI_SIZE 24
/* DecodingSourceWbem: classic events are keyed by event GUID and opcode. */
#define DECODING_SOURCE_WBEM 1u

#define MAX_PROPS_PER_EVENT 1024u

struct etl_meta_prop {
    uint32_t name;            /* offset in str */
    uint16_t in, out, flags;
    uint16_t count, length;   /* or property indexes (PROP_PARAM_*) */
    uint16_t sstart, nmem;    /* struct members (PROP_STRUCT) */
};

struct etl_meta_event {
    uint8_t guid[16];         /* provider GUID, or event GUID when classic */
    uint16_t code;            /* event id, or opcode when classic */
    uint8_t version;
    uint8_t classic;
    uint32_t name;            /* offset in str */
    uint32_t prov;            /* the provider's name: offset in str */
    uint32_t prop_first, nprops, ntop;
};

void etl_meta_init(struct etl_meta *m)
{
    memset(m, 0, sizeof *m);
}

void etl_meta_free(struct etl_meta *m)
{
    for (size_t i = 0; i < ETL_META_MAX_PENDING; i++)
        free(m->pend[i].buf);
    free(m->ev);
    free(m->props);
    free(m->str);
    free(m->hash);
    memset(m, 0, sizeof *m);
}

bool etl_meta_is_manifest(const struct etl_event *ev)
{
    return etl_meta_maybe_manifest(ev) && ev->data[3] == ETL_MANIFEST_MAGIC;
}

bool etl_meta_is_metadata(const struct etl_event *ev)
{
    return (etl_kernel_group(ev) == ETL_KG_METADATA && (ev->opcode == 32 || ev->opcode == 33)) ||
           etl_meta_is_manifest(ev);
}

/* Grows an array to hold n more items of size sz; false at the cap. */
static bool grow(struct etl_meta *m, void **arr, size_t *cap, size_t used, size_t more,
                 size_t sz)
{
    if (used + more <= *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < used + more)
        nc *= 2;
    size_t add = (nc - *cap) * sz;
    if (m->bytes + add > ETL_META_MAX_BYTES) {
        m->capped = true;
        return false;
    }
    void *p = realloc(*arr, nc * sz);
    if (!p) {
        m->nomem = true;
        return false;
    }
    *arr = p;
    m->bytes += add;
    *cap = nc;
    return true;
}

/* Stores the UTF-16 NUL-terminated string at blob offset off as UTF-8;
 * returns its offset in str (0 = the empty string at str[0]). */
static uint32_t keep_str(struct etl_meta *m, const uint8_t *blob, size_t n, uint32_t off,
                         const char *strip, bool *ok)
{
    if (off == 0 || off >= n)
        return 0;
    size_t len = 0;
    while (off + len + 1 < n && (blob[off + len] || blob[off + len + 1]))
        len += 2;
    if (len == 0)
        return 0;
    if (!grow(m, (void **)&m->str, &m->scap, m->slen, len * 3 / 2 + 4, 1)) {
        *ok = false;
        return 0;
    }
    if (m->slen == 0)
        m->str[m->slen++] = '\0';
    uint32_t at = (uint32_t)m->slen;
    for (size_t i = 0; i < len; i += 2) {
        unsigned c = (unsigned)blob[off + i] | ((unsigned)blob[off + i + 1] << 8);
        /* Names are ASCII in practice; other characters become '?'. */
        m->str[m->slen++] = (char)(c >= 0x20 && c < 0x7F ? c : '?');
    }
    m->str[m->slen++] = '\0';
    if (strip) {
        size_t sl = strlen(strip);
        if (strncmp(m->str + at, strip, sl) == 0 && m->str[at + sl])
            at += (uint32_t)sl;
    }
    return at;
}

static uint32_t hash_key(const uint8_t *g, unsigned code, unsigned version, unsigned classic)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < 16; i++)
        h = (h ^ g[i]) * 16777619u;
    h = (h ^ code) * 16777619u;
    h = (h ^ (version | classic << 8)) * 16777619u;
    return h;
}

/* Finds a description; NULL when absent. */
static const struct etl_meta_event *lookup(const struct etl_meta *m, const uint8_t *g,
                                           unsigned code, unsigned version, unsigned classic)
{
    if (!m->hcap)
        return NULL;
    size_t mask = m->hcap - 1;
    for (size_t i = hash_key(g, code, version, classic) & mask;; i = (i + 1) & mask) {
        uint32_t v = m->hash[i];
        if (v == 0)
            return NULL;
        const struct etl_meta_event *e = &m->ev[v - 1];
        if (e->code == code && e->version == version && e->classic == classic &&
            memcmp(e->guid, g, 16) == 0)
            return e;
    }
}

/* Inserts ev[idx] into the hash table, growing it as needed. */
static bool hash_insert(struct etl_meta *m, size_t idx)
{
    if ((m->nev + 1) * 2 > m->hcap) {
        size_t nc = m->hcap ? m->hcap * 2 : 256;
        if (m->bytes + nc * sizeof(uint32_t) > ETL_META_MAX_BYTES) {
            m->capped = true;
            return false;
        }
        uint32_t *h = calloc(nc, sizeof *h);
        if (!h) {
            m->nomem = true;
            return false;
        }
        m->bytes += nc * sizeof *h;
        free(m->hash);
        m->hash = h;
        m->hcap = nc;
        for (size_t i = 0; i < idx; i++) {
            const struct etl_meta_event *e = &m->ev[i];
            size_t j = hash_key(e->guid, e->code, e->version, e->classic) & (nc - 1);
            while (h[j])
                j = (j + 1) & (nc - 1);
            h[j] = (uint32_t)i + 1;
        }
    }
    const struct etl_meta_event *e = &m->ev[idx];
    size_t mask = m->hcap - 1;
    size_t j = hash_key(e->guid, e->code, e->version, e->classic) & mask;
    while (m->hash[j])
        j = (j + 1) & mask;
    m->hash[j] = (uint32_t)idx + 1;
    return true;
}

/* Composes "Provider/EventName" or "Provider/Task[/Opcode]". */
static uint32_t compose_name(struct etl_meta *m, uint32_t prov, uint32_t evname,
                             uint32_t task, uint32_t opcode, unsigned id, bool *ok)
{
    char buf[1024];
    const char *p = m->str ? m->str + prov : "";
    int w;
    if (evname)
        w = snprintf(buf, sizeof buf, "%s/%s", p, m->str + evname);
    else if (task && opcode)
        w = snprintf(buf, sizeof buf, "%s/%s/%s", p, m->str + task, m->str + opcode);
    else if (task)
        w = snprintf(buf, sizeof buf, "%s/%s", p, m->str + task);
    else
        w = snprintf(buf, sizeof buf, "%s/%u", p, id);
    size_t len = w < 0 ? 0 : (size_t)w >= sizeof buf ? sizeof buf - 1 : (size_t)w;
    if (!grow(m, (void **)&m->str, &m->scap, m->slen, len + 2, 1)) {
        *ok = false;
        return 0;
    }
    if (m->slen == 0)
        m->str[m->slen++] = '\0';
    uint32_t at = (uint32_t)m->slen;
    memcpy(m->str + m->slen, buf, len);
    m->slen += len;
    m->str[m->slen++] = '\0';
    return at;
}

/* Keeps the description in the TRACE_EVENT_INFO at b[0..n). */
static void add_tei(struct etl_meta *m, const uint8_t *b, size_t n)
{
    if (n < TEI_PROPERTIES) {
        m->dropped++;
        return;
    }
    uint32_t nprops = etl_le32(b + TEI_PROPERTY_COUNT);
    uint32_t ntop = etl_le32(b + TEI_TOP_LEVEL_COUNT);
    if (nprops > MAX_PROPS_PER_EVENT || ntop > nprops ||
        nprops > (n - TEI_PROPERTIES) / EPI_SIZE) {
        m->dropped++;
        return;
    }
    bool classic = etl_le32(b + TEI_DECODING_SOURCE) == DECODING_SOURCE_WBEM;
    const uint8_t *g = b + (classic ? TEI_EVENT_GUID : TEI_PROVIDER_GUID);
    unsigned code = classic ? b[TEI_DESCRIPTOR + 5] : etl_le16(b + TEI_DESCRIPTOR);
    unsigned version = b[TEI_DESCRIPTOR + 2];
    if (lookup(m, g, code, version, classic))
        return; /* the first description wins */
    if (m->nev >= ETL_META_MAX_EVENTS ||
        !grow(m, (void **)&m->ev, &m->cap_ev, m->nev, 1, sizeof *m->ev) ||
        !grow(m, (void **)&m->props, &m->cap_props, m->nprops, nprops, sizeof *m->props)) {
        m->capped = m->capped || !m->nomem;
        m->dropped++;
        return;
    }
    bool ok = true;
    size_t str_mark = m->slen;
    struct etl_meta_event *e = &m->ev[m->nev];
    memcpy(e->guid, g, 16);
    e->code = (uint16_t)code;
    e->version = (uint8_t)version;
    e->classic = classic;
    e->prop_first = (uint32_t)m->nprops;
    e->nprops = nprops;
    e->ntop = ntop;
    uint32_t prov = keep_str(m, b, n, etl_le32(b + TEI_PROVIDER_NAME), NULL, &ok);
    uint32_t evn = keep_str(m, b, n, etl_le32(b + TEI_EVENT_NAME), NULL, &ok);
    uint32_t task = keep_str(m, b, n, etl_le32(b + TEI_TASK_NAME), NULL, &ok);
    uint32_t opc = keep_str(m, b, n, etl_le32(b + TEI_OPCODE_NAME), "win:", &ok);
    e->prov = prov;
    e->name = compose_name(m, prov, evn, task, opc, code, &ok);
    bool bad = false;
    for (uint32_t i = 0; i < nprops && ok && !bad; i++) {
        const uint8_t *q = b + TEI_PROPERTIES + (size_t)i * EPI_SIZE;
        struct etl_meta_prop *p = &m->props[m->nprops + i];
        p->flags = (uint16_t)etl_le32(q);
        p->name = keep_str(m, b, n, etl_le32(q + 4), NULL, &ok);
        p->in = etl_le16(q + 8);
        p->out = etl_le16(q + 10);
        p->sstart = etl_le16(q + 8);
        p->nmem = etl_le16(q + 10);
        p->count = etl_le16(q + 16);
        p->length = etl_le16(q + 18);
        if ((p->flags & PROP_STRUCT) &&
            ((uint32_t)p->sstart + p->nmem > nprops || p->sstart <= i))
            bad = true;
    }
    if (!ok || bad || !hash_insert(m, m->nev)) {
        m->slen = str_mark;
        m->dropped++;
        return;
    }
    m->nprops += nprops;
    m->nev++;
}

/* Receives one event description made from a manifest. */
static bool from_manifest(void *ctx, const uint8_t *tei, size_t n)
{
    struct etl_meta *m = ctx;
    add_tei(m, tei, n);
    return !m->nomem;
}

/* Hashes a manifest's text (FNV-1a, 64 bits). */
static uint64_t text_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h ^ n;
}

/* Reads a manifest whole: each of its events becomes a description. A
 * manifest read before (processes each log the same one) is skipped. */
static void read_manifest(struct etl_meta *m, const uint8_t *p, size_t n)
{
    uint64_t h = text_hash(p, n);
    for (size_t i = 0; i < m->nseen; i++)
        if (m->seen[i] == h)
            return;
    if (m->nseen < ETL_META_MAX_MANIFESTS)
        m->seen[m->nseen++] = h;
    int r = etl_manifest_read((const char *)p, n, from_manifest, m);
    if (r < 0)
        m->nomem = true;
    else if (r == 0)
        m->dropped++;
}

/* Takes one chunk of an EventSource manifest (doc/format.md section 20). */
static void add_manifest_chunk(struct etl_meta *m, const struct etl_event *ev)
{
    const uint8_t *d = ev->data;
    unsigned total = etl_le16(d + 4), chunk = etl_le16(d + 6);
    const uint8_t *text = d + ETL_MANIFEST_HEADER;
    size_t len = ev->data_len - ETL_MANIFEST_HEADER;
    if (total == 1 && chunk == 0) {
        read_manifest(m, text, len);
        return;
    }
    /* The pending manifest of this provider, or a free slot. */
    struct etl_meta_pending *pd = NULL;
    for (size_t i = 0; i < ETL_META_MAX_PENDING && !pd; i++)
        if (m->pend[i].used && memcmp(m->pend[i].guid, ev->guid, 16) == 0)
            pd = &m->pend[i];
    if (chunk == 0 && !pd) {
        for (size_t i = 0; i < ETL_META_MAX_PENDING && !pd; i++)
            if (!m->pend[i].used)
                pd = &m->pend[i];
        if (!pd) {
            m->dropped++;
            return;
        }
        memcpy(pd->guid, ev->guid, 16);
        pd->used = true;
    }
    if (!pd)
        return;
    if (chunk == 0) {
        pd->len = 0;
        pd->total = (uint16_t)total;
        pd->next = 0;
    }
    if (chunk != pd->next || total != pd->total || total == 0 ||
        len > ETL_META_MAX_MANIFEST - pd->len) {
        pd->used = false;
        m->dropped++;
        return;
    }
    if (len > 0) {
        if (!grow(m, (void **)&pd->buf, &pd->cap, pd->len, len, 1)) {
            pd->used = false;
            m->dropped += !m->nomem;
            return;
        }
        memcpy(pd->buf + pd->len, text, len);
        pd->len += len;
    }
    if (++pd->next == pd->total) {
        pd->used = false;
        if (pd->len > 0)
            read_manifest(m, pd->buf, pd->len);
        else
            m->dropped++; /* chunks of no text: nothing to read */
    }
}

bool etl_meta_add(struct etl_meta *m, const struct etl_event *ev)
{
    if (etl_meta_is_manifest(ev)) {
        add_manifest_chunk(m, ev);
        return true;
    }
    if (!etl_meta_is_metadata(ev))
        return false;
    if (ev->opcode == 32)
        add_tei(m, ev->data, ev->data_len);
    return true;
}

bool etl_meta_key(const struct etl_meta *m, size_t i, uint8_t guid[16], unsigned *code,
                  unsigned *version, bool *classic)
{
    if (i >= m->nev)
        return false;
    memcpy(guid, m->ev[i].guid, 16);
    *code = m->ev[i].code;
    *version = m->ev[i].version;
    *classic = m->ev[i].classic;
    return true;
}

const char *etl_meta_provider_name(const struct etl_meta *m, const uint8_t guid[16])
{
    for (size_t i = 0; i < m->nev; i++) {
        const struct etl_meta_event *e = &m->ev[i];
        if (e->prov && memcmp(e->guid, guid, 16) == 0)
            return m->str + e->prov;
    }
    return NULL;
}

/* Finds the description of ev. */
static const struct etl_meta_event *describe(const struct etl_meta *m,
                                             const struct etl_event *ev)
{
    if (!m->nev || !(ev->flags & ETL_EV_GUID))
        return NULL;
    if (ev->kind == ETL_KIND_EVENT_HEADER32 || ev->kind == ETL_KIND_EVENT_HEADER64)
        return lookup(m, ev->guid, ev->event_id, ev->version & 0xFF, 0);
    return lookup(m, ev->guid, ev->opcode, ev->version & 0xFF, 1);
}

const char *etl_meta_event_name(const struct etl_meta *m, const struct etl_event *ev)
{
    const struct etl_meta_event *e = describe(m, ev);
    return e ? m->str + e->name : NULL;
}

/* Decoding state. */
struct mstate {
    const struct etl_meta *m;
    const struct etl_meta_event *e;
    struct etl_fields *out;
    struct etl_cursor *c;
    unsigned ptr;
    uint64_t val[MAX_PROPS_PER_EVENT];
    bool bad_desc;
};

static bool decode_props(struct mstate *s, uint32_t first, uint32_t n, unsigned depth);

/* Whether an input type takes a length (strings and binary). */
static bool takes_length(unsigned in)
{
    return in == ETL_IN_UNICODESTRING || in == ETL_IN_ANSISTRING || in == ETL_IN_BINARY ||
           in == ETL_IN_NONNULLTERMINATEDSTRING || in == ETL_IN_NONNULLTERMINATEDANSISTRING ||
           in == ETL_IN_UNICODECHAR || in == ETL_IN_ANSICHAR;
}

/* Decodes one element of property i. */
static bool one(struct mstate *s, uint32_t i, bool named, unsigned depth)
{
    const struct etl_meta_prop *p = &s->m->props[s->e->prop_first + i];
    const char *nm = named ? s->m->str + p->name : NULL;
    size_t nl = named ? strlen(nm) : 0;
    if (p->flags & PROP_STRUCT) {
        etl_fields_struct_begin(s->out, nm, nl);
        bool r = decode_props(s, p->sstart, p->nmem, depth + 1);
        etl_fields_struct_end(s->out);
        return r;
    }
    uint32_t len = ETL_LEN_NONE;
    if (takes_length(p->in)) {
        if (p->flags & PROP_PARAM_LENGTH) {
            uint64_t v = p->length < s->e->nprops ? s->val[p->length] : 0;
            len = v > 0xFFFFFFFEu ? 0xFFFFFFFEu : (uint32_t)v;
        } else if (p->length) {
            len = p->length;
        }
    }
    enum etl_hint hint = ETL_H_NONE;
    if (p->out == 22) /* TDH_OUTTYPE_PORT */
        hint = ETL_H_PORT;
    else if (p->out == 23) /* TDH_OUTTYPE_IPV4 */
        hint = ETL_H_IPV4;
    else if (p->out == 24) /* TDH_OUTTYPE_IPV6 */
        hint = ETL_H_IPV6;
    else if (p->out >= 16 && p->out <= 19) /* TDH_OUTTYPE_HEXINT8..64 */
        hint = ETL_H_HEX;
    uint64_t v = 0;
    int r = etl_intype_read(s->out, nm, nl, p->in, hint, len, s->c, s->ptr, &v);
    if (r == -1)
        s->bad_desc = true;
    if (i < MAX_PROPS_PER_EVENT)
        s->val[i] = v;
    return r == 1;
}

/* Decodes n properties starting at index first. */
static bool decode_props(struct mstate *s, uint32_t first, uint32_t n, unsigned depth)
{
    if (depth > ETL_FIELDS_MAX_DEPTH) {
        s->bad_desc = true;
        return false;
    }
    for (uint32_t i = first; i < first + n && i < s->e->nprops; i++) {
        const struct etl_meta_prop *p = &s->m->props[s->e->prop_first + i];
        uint64_t count = p->count;
        if (p->flags & PROP_PARAM_COUNT)
            count = p->count < s->e->nprops ? s->val[p->count] : 0;
        bool array = (p->flags & (PROP_PARAM_COUNT | PROP_PARAM_FIXED_COUNT)) || count > 1;
        if (!array) {
            if (!one(s, i, true, depth))
                return false;
            continue;
        }
        if (count > etl_cur_left(s->c) + 1) /* every element takes a byte at least */
            return false;
        const char *nm = s->m->str + p->name;
        etl_fields_array_begin(s->out, nm, strlen(nm));
        for (uint64_t k = 0; k < count; k++) {
            struct etl_elem_mark mk = etl_elem_begin(s->c, s->out);
            if (!one(s, i, false, depth)) {
                etl_fields_array_end(s->out);
                return false;
            }
            if (etl_array_done(mk, s->c, s->out))
                break;
        }
        etl_fields_array_end(s->out);
    }
    return true;
}

enum etl_fdec etl_meta_fields(const struct etl_meta *m, const struct etl_event *ev,
                              struct etl_cursor *c, struct etl_fields *out,
                              const char **name, size_t *bad_at)
{
    *bad_at = 0;
    *name = NULL;
    const struct etl_meta_event *e = describe(m, ev);
    if (!e)
        return ETL_FDEC_NO_LAYOUT;
    *name = m->str + e->name;
    struct mstate s;
    s.m = m;
    s.e = e;
    s.out = out;
    s.c = c;
    s.ptr = ev->ptr_size == 4 ? 4 : 8;
    s.bad_desc = false;
    if (!decode_props(&s, 0, e->ntop, 0)) {
        *bad_at = c->pos;
        return ETL_FDEC_DAMAGED;
    }
    if (etl_cur_left(c) > 0) {
        *bad_at = c->pos;
        return ETL_FDEC_PARTIAL;
    }
    return ETL_FDEC_OK;
}

/* Appends the UTF-16 string at blob offset off (if any) as a field. */
static void tei_str(struct etl_fields *out, const char *name, const uint8_t *b, size_t n,
                    uint32_t off)
{
    if (off == 0 || off >= n)
        return;
    size_t len = 0;
    while (off + len + 1 < n && (b[off + len] || b[off + len + 1]))
        len += 2;
    etl_fields_str_utf16(out, name, strlen(name), b + off, len);
}

#define NM(s) s, sizeof(s) - 1

enum etl_fdec etl_meta_self_fields(const struct etl_event *ev, struct etl_cursor *c,
                                   struct etl_fields *out, size_t *bad_at)
{
    *bad_at = 0;
    if (!etl_meta_is_metadata(ev))
        return ETL_FDEC_NO_LAYOUT;
    const uint8_t *b = ev->data;
    size_t n = ev->data_len;
    if (etl_meta_is_manifest(ev)) {
        /* EventSource's manifest envelope, then a chunk of the manifest. */
        etl_fields_uint(out, NM("Format"), b[0]);
        etl_fields_uint(out, NM("MajorVersion"), b[1]);
        etl_fields_uint(out, NM("MinorVersion"), b[2]);
        etl_fields_hex(out, NM("Magic"), b[3]);
        etl_fields_uint(out, NM("TotalChunks"), etl_le16(b + 4));
        etl_fields_uint(out, NM("ChunkNumber"), etl_le16(b + 6));
        etl_fields_str_utf8(out, NM("Data"), b + ETL_MANIFEST_HEADER, n - ETL_MANIFEST_HEADER);
        c->pos = c->len;
        return ETL_FDEC_OK;
    }
    if (ev->opcode == 33) {
        /* Provider GUID, then EVENT_MAP_INFO: NameOffset, Flag, EntryCount,
         * MapEntryValueType, then EVENT_MAP_ENTRY {OutputOffset, Value}. */
        if (n < 32)
            return ETL_FDEC_DAMAGED;
        const uint8_t *mi = b + 16;
        size_t mn = n - 16;
        uint32_t cnt = etl_le32(mi + 8);
        etl_fields_guid(out, NM("ProviderGuid"), b);
        tei_str(out, "MapName", mi, mn, etl_le32(mi));
        etl_fields_hex(out, NM("Flag"), etl_le32(mi + 4));
        etl_fields_uint(out, NM("EntryCount"), cnt);
        etl_fields_array_begin(out, NM("MapEntryArray"));
        for (uint32_t i = 0; i < cnt && 16 + 8 * (size_t)i + 8 <= mn; i++) {
            const uint8_t *q = mi + 16 + 8 * (size_t)i;
            etl_fields_struct_begin(out, NULL, 0);
            etl_fields_uint(out, NM("Value"), etl_le32(q + 4));
            tei_str(out, "Output", mi, mn, etl_le32(q));
            etl_fields_struct_end(out);
        }
        etl_fields_array_end(out);
        c->pos = c->len;
        return ETL_FDEC_OK;
    }
    if (n < TEI_PROPERTIES)
        return ETL_FDEC_DAMAGED;
    etl_fields_guid(out, NM("ProviderGuid"), b + TEI_PROVIDER_GUID);
    etl_fields_guid(out, NM("EventGuid"), b + TEI_EVENT_GUID);
    const uint8_t *d = b + TEI_DESCRIPTOR;
    etl_fields_uint(out, NM("Id"), etl_le16(d));
    etl_fields_uint(out, NM("Version"), d[2]);
    etl_fields_uint(out, NM("Channel"), d[3]);
    etl_fields_uint(out, NM("Level"), d[4]);
    etl_fields_uint(out, NM("Opcode"), d[5]);
    etl_fields_uint(out, NM("Task"), etl_le16(d + 6));
    etl_fields_hex(out, NM("Keyword"), etl_le64(d + 8));
    etl_fields_uint(out, NM("DecodingSource"), etl_le32(b + TEI_DECODING_SOURCE));
    tei_str(out, "ProviderName", b, n, etl_le32(b + TEI_PROVIDER_NAME));
    tei_str(out, "LevelName", b, n, etl_le32(b + TEI_LEVEL_NAME));
    tei_str(out, "ChannelName", b, n, etl_le32(b + TEI_CHANNEL_NAME));
    tei_str(out, "KeywordsName", b, n, etl_le32(b + TEI_KEYWORDS_NAME));
    tei_str(out, "TaskName", b, n, etl_le32(b + TEI_TASK_NAME));
    tei_str(out, "OpcodeName", b, n, etl_le32(b + TEI_OPCODE_NAME));
    tei_str(out, "EventMessage", b, n, etl_le32(b + TEI_EVENT_MESSAGE));
    tei_str(out, "ProviderMessage", b, n, etl_le32(b + TEI_PROVIDER_MESSAGE));
    tei_str(out, "EventName", b, n, etl_le32(b + TEI_EVENT_NAME));
    uint32_t np = etl_le32(b + TEI_PROPERTY_COUNT);
    etl_fields_uint(out, NM("PropertyCount"), np);
    etl_fields_uint(out, NM("TopLevelPropertyCount"), etl_le32(b + TEI_TOP_LEVEL_COUNT));
    etl_fields_array_begin(out, NM("EventPropertyInfoArray"));
    for (uint32_t i = 0; i < np && TEI_PROPERTIES + ((size_t)i + 1) * EPI_SIZE <= n; i++) {
        const uint8_t *q = b + TEI_PROPERTIES + (size_t)i * EPI_SIZE;
        etl_fields_struct_begin(out, NULL, 0);
        tei_str(out, "Name", b, n, etl_le32(q + 4));
        etl_fields_hex(out, NM("Flags"), etl_le32(q));
        etl_fields_uint(out, NM("InType"), etl_le16(q + 8));
        etl_fields_uint(out, NM("OutType"), etl_le16(q + 10));
        etl_fields_uint(out, NM("Count"), etl_le16(q + 16));
        etl_fields_uint(out, NM("Length"), etl_le16(q + 18));
        etl_fields_struct_end(out);
    }
    etl_fields_array_end(out);
    c->pos = c->len;
    return ETL_FDEC_OK;
}
