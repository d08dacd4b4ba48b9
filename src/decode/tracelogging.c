/*
 * tracelogging.c - TraceLogging self-describing events: the event metadata
 * blob (EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL) and provider traits
 * (EVENT_HEADER_EXT_TYPE_PROV_TRAITS) as described in Microsoft's
 * TraceLoggingProvider.h (TlgIn_t, TlgOut_t), doc/format.md section 19.
 */
#include "decode/tracelogging.h"

#include <stdio.h>
#include <string.h>

#include "decode/intype.h"

/* TlgIn_t flags and types. */
#define TLG_TYPE_MASK 0x1Fu
#define TLG_CCOUNT 0x20u
#define TLG_VCOUNT 0x40u
#define TLG_CUSTOM 0x60u
#define TLG_COUNT_MASK 0x60u
#define TLG_CHAIN 0x80u
#define TLG_IN_BINARY 14u
#define TLG_IN_POINTER 16u
#define TLG_IN_COUNTEDSTRING 22u
#define TLG_IN_COUNTEDANSISTRING 23u
#define TLG_IN_STRUCT 24u
#define TLG_IN_COUNTEDBINARY 25u

/* TlgOut_t values that change how a value is shown. */
#define TLG_OUT_STRING 2u
#define TLG_OUT_BOOLEAN 3u
#define TLG_OUT_HEX 4u
#define TLG_OUT_PORT 7u
#define TLG_OUT_IPV4 8u
#define TLG_OUT_IPV6 9u
#define TLG_OUT_CODE_POINTER 37u

bool etl_ext_item_find(const struct etl_event *ev, unsigned type, const uint8_t **data,
                       size_t *len)
{
    const uint8_t *p = ev->ext_items;
    size_t n = ev->ext_items_len, pos = 0;
    while (p && n - pos >= 8) {
        size_t item = etl_le16(p + pos);
        unsigned t = etl_le16(p + pos + 2);
        size_t dsize = etl_le16(p + pos + 6);
        if (item < 8 || item > n - pos || dsize > item - 8)
            return false;
        if (t == type) {
            *data = p + pos + 8;
            *len = dsize;
            return true;
        }
        pos += item;
    }
    return false;
}

/* Finds an extended item that starts with its own u16 size (the provider
 * traits, a TraceLogging schema) and gives that size, or the item's length
 * when the size is out of range; false when absent or under 3 bytes. */
static bool sized_item(const struct etl_event *ev, unsigned type, const uint8_t **d,
                       size_t *size)
{
    size_t n;
    if (!etl_ext_item_find(ev, type, d, &n) || n < 3)
        return false;
    *size = etl_le16(*d);
    if (*size < 3 || *size > n)
        *size = n;
    return true;
}

const char *etl_tl_provider_name(const struct etl_event *ev, size_t *len)
{
    const uint8_t *d;
    size_t total;
    /* u16 TotalSize, then a NUL-terminated UTF-8 name, then traits. */
    if (!sized_item(ev, ETL_EXT_PROV_TRAITS, &d, &total))
        return NULL;
    const uint8_t *z = memchr(d + 2, 0, total - 2);
    if (!z || z == d + 2)
        return NULL;
    *len = (size_t)(z - (d + 2));
    return (const char *)d + 2;
}

/* The schema's name and first field: u16 Size, extension bytes (read until
 * one has its high bit clear), NUL-terminated UTF-8 name, fields. */
struct tl_schema {
    const uint8_t *name;
    size_t name_len;
    const uint8_t *fields;    /* first field's metadata */
    const uint8_t *end;
};

/* Locates the schema of an event; false when absent or damaged. */
static bool schema(const struct etl_event *ev, struct tl_schema *s)
{
    const uint8_t *d;
    size_t size;
    if (!sized_item(ev, ETL_EXT_EVENT_SCHEMA_TL, &d, &size))
        return false;
    size_t pos = 2;
    while (pos < size && (d[pos] & 0x80))
        pos++;
    pos++; /* the last extension byte */
    if (pos >= size)
        return false;
    const uint8_t *z = memchr(d + pos, 0, size - pos);
    if (!z)
        return false;
    s->name = d + pos;
    s->name_len = (size_t)(z - (d + pos));
    s->fields = z + 1;
    s->end = d + size;
    return true;
}

bool etl_tl_is_tracelogging(const struct etl_event *ev)
{
    struct tl_schema s;
    return ev->ext_items && schema(ev, &s);
}

bool etl_tl_event_name(const struct etl_event *ev, char *name, size_t cap)
{
    struct tl_schema s;
    if (cap == 0 || !ev->ext_items || !schema(ev, &s))
        return false;
    size_t plen = 0;
    const char *prov = etl_tl_provider_name(ev, &plen);
    int w;
    if (prov)
        w = snprintf(name, cap, "%.*s/%.*s", (int)plen, prov, (int)s.name_len,
                     (const char *)s.name);
    else
        w = snprintf(name, cap, "%.*s", (int)s.name_len, (const char *)s.name);
    return w >= 0;
}

/* One field's metadata. */
struct tl_field {
    const uint8_t *name;
    size_t name_len;
    unsigned in, out;
    unsigned ccount;          /* constant count (TLG_CCOUNT) */
    unsigned nchild;          /* struct members (TLG_IN_STRUCT) */
    const uint8_t *next;      /* metadata after this field (children not skipped) */
};

/* Reads one field's metadata at p; false when it runs past end. */
static bool field_meta(const uint8_t *p, const uint8_t *end, struct tl_field *f)
{
    const uint8_t *z = memchr(p, 0, (size_t)(end - p));
    if (!z || end - z < 2)
        return false;
    f->name = p;
    f->name_len = (size_t)(z - p);
    p = z + 1;
    unsigned in = *p++;
    f->in = in;
    f->out = 0;
    f->ccount = 0;
    if (in & TLG_CHAIN) {
        if (p >= end)
            return false;
        unsigned out = *p++;
        f->out = out & 0x7F;
        /* Extension bytes follow an out-type with its high bit set. */
        while ((out & 0x80) && p < end)
            out = *p++;
        if (out & 0x80)
            return false;
    }
    if ((in & TLG_COUNT_MASK) == TLG_CCOUNT) {
        if (end - p < 2)
            return false;
        f->ccount = etl_le16(p);
        p += 2;
    } else if ((in & TLG_COUNT_MASK) == TLG_CUSTOM) {
        if (end - p < 2)
            return false;
        size_t tis = etl_le16(p);
        if ((size_t)(end - p - 2) < tis)
            return false;
        p += 2 + tis;
    }
    /* A struct's member count is its out-type byte. */
    f->nchild = (in & TLG_TYPE_MASK) == TLG_IN_STRUCT ? f->out : 0;
    f->next = p;
    return true;
}

/* Skips the metadata of n fields (with their struct members) starting at p;
 * returns the position after them or NULL when damaged. */
static const uint8_t *skip_fields(const uint8_t *p, const uint8_t *end, unsigned n,
                                  unsigned depth)
{
    if (depth > ETL_FIELDS_MAX_DEPTH)
        return NULL;
    for (unsigned i = 0; i < n; i++) {
        struct tl_field f;
        if (!field_meta(p, end, &f))
            return NULL;
        p = f.next;
        if (f.nchild && !(p = skip_fields(p, end, f.nchild, depth + 1)))
            return NULL;
    }
    return p;
}

/* Decoding state. */
struct tl_state {
    struct etl_fields *out;
    struct etl_cursor *c;
    const uint8_t *end;       /* end of the schema */
    unsigned ptr;
    bool damaged;             /* the payload ended inside a field */
    bool bad_schema;
};

/* Maps a TraceLogging in-type (low 5 bits) and out-type to a TDH in-type
 * and hint; returns false for types without a value (NULL). */
static bool map_type(unsigned tin, unsigned out, unsigned *in, enum etl_hint *hint)
{
    *hint = ETL_H_NONE;
    switch (tin) {
    case TLG_IN_BINARY:
    case TLG_IN_COUNTEDBINARY:
        *in = ETL_IN_MANIFEST_COUNTEDBINARY;
        break;
    case TLG_IN_COUNTEDSTRING:
        *in = ETL_IN_MANIFEST_COUNTEDSTRING;
        break;
    case TLG_IN_COUNTEDANSISTRING:
        *in = ETL_IN_MANIFEST_COUNTEDANSISTRING;
        break;
    case TLG_IN_POINTER:
        *in = ETL_IN_POINTER;
        break;
    default:
        if (tin == 0 || tin > 21)
            return false;
        *in = tin; /* 1..21 are the TDH in-types of the same number */
    }
    switch (out) {
    case TLG_OUT_BOOLEAN: *hint = ETL_H_BOOL; break;
    case TLG_OUT_HEX: *hint = ETL_H_HEX; break;
    case TLG_OUT_PORT: *hint = ETL_H_PORT; break;
    case TLG_OUT_IPV4: *hint = ETL_H_IPV4; break;
    case TLG_OUT_IPV6: *hint = ETL_H_IPV6; break;
    case TLG_OUT_CODE_POINTER: *hint = ETL_H_PTR; break;
    case TLG_OUT_STRING:
        /* An 8- or 16-bit integer shown as a character. */
        if (*in == ETL_IN_INT8 || *in == ETL_IN_UINT8)
            *in = ETL_IN_ANSICHAR;
        else if (*in == ETL_IN_UINT16 || *in == ETL_IN_INT16)
            *in = ETL_IN_UNICODECHAR;
        break;
    default: break;
    }
    return true;
}

static const uint8_t *decode_fields(struct tl_state *st, const uint8_t *p, unsigned n,
                                    unsigned depth);

/* Decodes one element of field f (array elements have no name). */
static bool element(struct tl_state *st, const struct tl_field *f, bool named,
                    unsigned depth)
{
    const char *nm = named ? (const char *)f->name : NULL;
    size_t nl = named ? f->name_len : 0;
    unsigned tin = f->in & TLG_TYPE_MASK;
    if (tin == TLG_IN_STRUCT) {
        etl_fields_struct_begin(st->out, nm, nl);
        const uint8_t *q = decode_fields(st, f->next, f->nchild, depth + 1);
        etl_fields_struct_end(st->out);
        return q != NULL;
    }
    if ((f->in & TLG_COUNT_MASK) == TLG_CUSTOM) {
        /* Custom serializer: u16 byte count and opaque bytes. */
        int r = etl_intype_read(st->out, nm, nl, ETL_IN_MANIFEST_COUNTEDBINARY, ETL_H_NONE,
                                ETL_LEN_NONE, st->c, st->ptr, NULL);
        if (r != 1)
            st->damaged = true;
        return r == 1;
    }
    unsigned in;
    enum etl_hint hint;
    if (!map_type(tin, f->out, &in, &hint))
        return true; /* no value */
    int r = etl_intype_read(st->out, nm, nl, in, hint, ETL_LEN_NONE, st->c, st->ptr, NULL);
    if (r == 0)
        st->damaged = true;
    if (r == -1)
        st->bad_schema = true;
    return r == 1;
}

/* Decodes n fields whose metadata starts at p; returns the metadata
 * position after them, or NULL on damage. */
static const uint8_t *decode_fields(struct tl_state *st, const uint8_t *p, unsigned n,
                                    unsigned depth)
{
    if (depth > ETL_FIELDS_MAX_DEPTH) {
        st->bad_schema = true;
        return NULL;
    }
    for (unsigned i = 0; i < n; i++) {
        struct tl_field f;
        if (!field_meta(p, st->end, &f)) {
            st->bad_schema = true;
            return NULL;
        }
        const uint8_t *after = f.nchild ? skip_fields(f.next, st->end, f.nchild, depth + 1)
                                        : f.next;
        if (!after) {
            st->bad_schema = true;
            return NULL;
        }
        unsigned cm = f.in & TLG_COUNT_MASK;
        if (cm == TLG_CCOUNT || cm == TLG_VCOUNT) {
            unsigned count = f.ccount;
            if (cm == TLG_VCOUNT) {
                if (etl_cur_left(st->c) < 2) {
                    st->damaged = true;
                    return NULL;
                }
                count = etl_cur_u16(st->c);
            }
            unsigned tin = f.in & TLG_TYPE_MASK;
            if (f.out == TLG_OUT_STRING &&
                (tin == ETL_IN_INT8 || tin == ETL_IN_UINT8 || tin == ETL_IN_UINT16)) {
                /* An array of characters is one string. */
                unsigned unit = tin == ETL_IN_UINT16 ? 2 : 1;
                int r = etl_intype_read(st->out, (const char *)f.name, f.name_len,
                                        unit == 2 ? ETL_IN_NONNULLTERMINATEDSTRING
                                                  : ETL_IN_NONNULLTERMINATEDANSISTRING,
                                        ETL_H_NONE, count, st->c, st->ptr, NULL);
                if (r != 1) {
                    st->damaged = true;
                    return NULL;
                }
                p = after;
                continue;
            }
            etl_fields_array_begin(st->out, (const char *)f.name, f.name_len);
            for (unsigned k = 0; k < count; k++) {
                struct etl_elem_mark mk = etl_elem_begin(st->c, st->out);
                if (!element(st, &f, false, depth)) {
                    etl_fields_array_end(st->out);
                    return NULL;
                }
                if (etl_array_done(mk, st->c, st->out))
                    break;
            }
            etl_fields_array_end(st->out);
        } else if (!element(st, &f, true, depth)) {
            return NULL;
        }
        p = after;
    }
    return p;
}

enum etl_fdec etl_tl_fields(const struct etl_event *ev, struct etl_cursor *c,
                            struct etl_fields *out, size_t *bad_at)
{
    struct tl_schema s;
    *bad_at = 0;
    if (!ev->ext_items || !schema(ev, &s))
        return ETL_FDEC_NO_LAYOUT;
    /* Count the top-level fields first: the schema carries no count. */
    unsigned nfields = 0;
    for (const uint8_t *p = s.fields; p < s.end;) {
        p = skip_fields(p, s.end, 1, 0);
        if (!p)
            return ETL_FDEC_NO_LAYOUT;
        nfields++;
    }
    size_t mark = out->n, amark = out->alen;
    unsigned dmark = out->depth;
    struct tl_state st = { out, c, s.end, ev->ptr_size == 4 ? 4u : 8u, false, false };
    const uint8_t *q = decode_fields(&st, s.fields, nfields, 0);
    if (!q) {
        *bad_at = c->pos;
        if (st.bad_schema && !st.damaged) {
            /* Give back what was appended: the schema cannot be trusted. */
            out->n = mark;
            out->alen = amark;
            out->depth = dmark;
            c->pos = 0;
            return ETL_FDEC_NO_LAYOUT;
        }
        return ETL_FDEC_DAMAGED;
    }
    if (etl_cur_left(c) > 0) {
        *bad_at = c->pos;
        return ETL_FDEC_PARTIAL;
    }
    return ETL_FDEC_OK;
}
