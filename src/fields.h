/*
 * fields.h - the decoded payload of one event as a flat, append-only list of
 * typed fields, and its JSON and text renderings.
 *
 * A list is set up once (etl_fields_init) with a cap on its entries and on the
 * bytes of its arena, and reset per event without freeing: the steady state
 * allocates nothing. Past either cap the list stops taking fields and sets
 * `truncated`; renderers still close every structure and array left open.
 *
 * Names are (pointer, length) pairs that must stay valid while the list is
 * rendered (static strings, or bytes of the event or of a metadata registry).
 * String values are copied into the arena as valid UTF-8: bytes that cannot be
 * converted become U+FFFD, so every format shows the same text.
 *
 * Nesting is expressed by begin/end entries: STRUCT_BEGIN ... STRUCT_END and
 * ARRAY_BEGIN ... ARRAY_END. Entries directly inside an array carry no name.
 *
 * Rendering (doc/format.md section 18.1):
 *   JSON  one object; integers exact, pointers as numbers, doubles finite or
 *         the strings "NaN", "Infinity", "-Infinity"; GUIDs lowercase without
 *         braces; SIDs "S-1-5-18"; FILETIME and SYSTEMTIME as ISO 8601 UTC
 *         strings; binary as a lowercase hex string.
 *   text  name=value pairs separated by one space; nested names dotted
 *         (a.b=1), array elements indexed (a[0]=1); a string is quoted when it
 *         is empty or holds a space, a quote, a backslash, '=' or a control
 *         character (C0, DEL or C1; controls are written \xNN).
 *
 * This module depends on nothing of the reader; rendering writes to the
 * buffered output of print/out.h.
 */
#ifndef ETLDUMP_FIELDS_H
#define ETLDUMP_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "print/out.h"

/* Value types. */
enum etl_ftype {
    ETL_F_UINT,         /* v.u: unsigned integer */
    ETL_F_INT,          /* v.i: signed integer */
    ETL_F_DOUBLE,       /* v.d */
    ETL_F_BOOL,         /* v.u: 0 or 1 */
    ETL_F_PTR,          /* v.u: pointer or address (JSON number, text 0x...) */
    ETL_F_HEX,          /* v.u: a number best read in hex (JSON number, text 0x...) */
    ETL_F_STR,          /* arena: UTF-8 text */
    ETL_F_GUID,         /* arena: 16 bytes in file order */
    ETL_F_SID,          /* arena: a binary SID (8 + 4 * SubAuthorityCount bytes) */
    ETL_F_FILETIME,     /* v.i: 100 ns units since 1601-01-01 UTC */
    ETL_F_SYSTEMTIME,   /* arena: SYSTEMTIME, 8 little-endian u16 */
    ETL_F_BINARY,       /* arena: raw bytes */
    ETL_F_STRUCT_BEGIN,
    ETL_F_STRUCT_END,
    ETL_F_ARRAY_BEGIN,
    ETL_F_ARRAY_END,
};

/* One entry. */
struct etl_field {
    const char *name;   /* not NUL-terminated; NULL with name_len 0 in arrays */
    uint32_t name_len;
    uint8_t type;       /* enum etl_ftype */
    uint8_t plain;      /* the name is known to be printable ASCII without
                         * space, '=', quote, backslash, '&', '<' or '>' (set
                         * by decoders of tables; test_fields checks them) */
    union {
        uint64_t u;
        int64_t i;
        double d;
        struct {
            uint32_t off;   /* in the arena */
            uint32_t len;
        } a;
    } v;
};

/* The list. */
struct etl_fields {
    struct etl_field *f;
    size_t n, cap;          /* entries used, entry cap */
    char *arena;
    size_t alen, acap;      /* arena bytes used, arena cap */
    unsigned depth;         /* structures and arrays open */
    bool truncated;         /* a cap was hit: later fields were dropped */
};

/* Deepest nesting accepted; deeper begins are dropped (truncated set). */
#define ETL_FIELDS_MAX_DEPTH 16u

/* Default caps used by etldump (entries, arena bytes). */
#define ETL_FIELDS_DEFAULT_ENTRIES 16384u
#define ETL_FIELDS_DEFAULT_BYTES (256u * 1024u)

/* Allocates a list with room for max_entries entries and max_bytes arena
 * bytes; false when out of memory. */
bool etl_fields_init(struct etl_fields *fl, size_t max_entries, size_t max_bytes);

/* Frees what etl_fields_init allocated. */
void etl_fields_free(struct etl_fields *fl);

/* Empties the list for the next event (keeps its memory). */
void etl_fields_reset(struct etl_fields *fl);

/* Takes the next entry of type t (its value zero), or NULL (truncated set)
 * when the list is full. */
static inline struct etl_field *etl_fields_take(struct etl_fields *fl, const char *name,
                                                size_t nlen, enum etl_ftype t)
{
    if (fl->truncated)
        return NULL;
    if (fl->n >= fl->cap || nlen > UINT32_MAX) {
        fl->truncated = true;
        return NULL;
    }
    struct etl_field *f = &fl->f[fl->n++];
    f->name = name;
    f->name_len = (uint32_t)nlen;
    f->type = (uint8_t)t;
    f->plain = 0;
    f->v.u = 0;
    return f;
}

/* Appenders. Each returns false once the list is full (truncated is then
 * set and the field is dropped). nlen is the name's length in bytes. The
 * scalar ones are inline: they are most of a payload's fields. */
#define ETL_FIELDS_SCALAR(fn, T, member, ftype)                                  \
    static inline bool fn(struct etl_fields *fl, const char *name, size_t nlen, T v) \
    {                                                                            \
        struct etl_field *f = etl_fields_take(fl, name, nlen, ftype);            \
        if (!f)                                                                  \
            return false;                                                        \
        f->v.member = v;                                                         \
        return true;                                                             \
    }
ETL_FIELDS_SCALAR(etl_fields_uint, uint64_t, u, ETL_F_UINT)
ETL_FIELDS_SCALAR(etl_fields_int, int64_t, i, ETL_F_INT)
ETL_FIELDS_SCALAR(etl_fields_double, double, d, ETL_F_DOUBLE)
ETL_FIELDS_SCALAR(etl_fields_ptr, uint64_t, u, ETL_F_PTR)
ETL_FIELDS_SCALAR(etl_fields_hex, uint64_t, u, ETL_F_HEX)
ETL_FIELDS_SCALAR(etl_fields_filetime, int64_t, i, ETL_F_FILETIME)
#undef ETL_FIELDS_SCALAR

static inline bool etl_fields_bool(struct etl_fields *fl, const char *name, size_t nlen,
                                   bool v)
{
    struct etl_field *f = etl_fields_take(fl, name, nlen, ETL_F_BOOL);
    if (!f)
        return false;
    f->v.u = v ? 1 : 0;
    return true;
}

/* Text: UTF-8 (invalid sequences become U+FFFD), UTF-16LE (n bytes; an odd
 * last byte and unpaired surrogates become U+FFFD), or an 8-bit string of
 * unknown code page (kept where it is valid UTF-8, else U+FFFD per byte).
 * A NUL inside the given range is kept as U+0000. */
bool etl_fields_str_utf8(struct etl_fields *fl, const char *name, size_t nlen,
                         const uint8_t *p, size_t n);
bool etl_fields_str_utf16(struct etl_fields *fl, const char *name, size_t nlen,
                          const uint8_t *p, size_t n);
#define etl_fields_str_ansi etl_fields_str_utf8

/* GUID (16 bytes in file order), SYSTEMTIME (16 bytes), SID (n bytes, checked
 * by the caller with etl_sid_len), binary (n bytes). */
bool etl_fields_guid(struct etl_fields *fl, const char *name, size_t nlen, const uint8_t g[16]);
bool etl_fields_systemtime(struct etl_fields *fl, const char *name, size_t nlen, const uint8_t st[16]);
bool etl_fields_sid(struct etl_fields *fl, const char *name, size_t nlen, const uint8_t *sid, size_t n);
bool etl_fields_binary(struct etl_fields *fl, const char *name, size_t nlen, const uint8_t *p, size_t n);

/* Nesting. An end with nothing open is ignored. */
bool etl_fields_struct_begin(struct etl_fields *fl, const char *name, size_t nlen);
bool etl_fields_struct_end(struct etl_fields *fl);
bool etl_fields_array_begin(struct etl_fields *fl, const char *name, size_t nlen);
bool etl_fields_array_end(struct etl_fields *fl);

/* Returns the length of the SID at p (at most n bytes readable), or 0 when
 * p does not hold a whole SID of revision 1. */
size_t etl_sid_len(const uint8_t *p, size_t n);

/* Returns a pointer to an entry's arena bytes (STR, GUID, SID, SYSTEMTIME,
 * BINARY). */
static inline const uint8_t *etl_field_bytes(const struct etl_fields *fl,
                                             const struct etl_field *f)
{
    return (const uint8_t *)fl->arena + f->v.a.off;
}

/* Formats a scalar entry's value as text into buf (cap bytes, always
 * terminated when cap > 0) the way the text rendering shows it, unquoted;
 * returns the length the whole value needs (like snprintf). Begin and end
 * entries give "". */
size_t etl_field_value_text(const struct etl_fields *fl, const struct etl_field *f,
                            char *buf, size_t cap);

/*
 * Flattened iteration for printers with one name/value per field (text, XML):
 * each scalar entry is returned with its dotted, indexed name. Empty
 * structures and arrays produce nothing.
 */
struct etl_fields_iter {
    size_t i;                               /* next entry */
    unsigned depth;
    struct {
        uint32_t name_end;                  /* length of name before this level */
        uint32_t index;                     /* next element index (arrays) */
        bool array;
    } lvl[ETL_FIELDS_MAX_DEPTH + 1];
    char name[512];                         /* flattened names are built here */
    size_t name_len;
    const char *cur;                        /* the current entry's flattened name */
    size_t cur_len;                         /* (not terminated) */
};

/* Starts an iteration. */
void etl_fields_iter_init(struct etl_fields_iter *it);

/* Whether entry f, the iteration's current one, is a number (UINT, INT, PTR,
 * HEX) under a table's name at the top level: the printers' usual field,
 * whose name needs no escaping (at most 256 bytes) and whose value
 * etl_field_number_text writes. */
static inline bool etl_field_plain_number(const struct etl_fields_iter *it,
                                          const struct etl_field *f)
{
    return f->plain && it->depth == 0 && it->cur_len <= 256 &&
           (f->type == ETL_F_UINT || f->type == ETL_F_INT || f->type == ETL_F_PTR ||
            f->type == ETL_F_HEX);
}

/* Writes a UINT, INT, PTR or HEX entry's value as text (decimal, or 0x and
 * hex digits; at most ETL_FMT_NUM_MAX bytes, no terminator); returns the
 * length. */
size_t etl_field_number_text(const struct etl_field *f, char *out);

/* Returns the next scalar entry (its flattened name at it->cur, it->cur_len
 * bytes, cut short at 511 bytes, not terminated), or NULL at the end. */
const struct etl_field *etl_fields_next(const struct etl_fields *fl,
                                        struct etl_fields_iter *it);

/* Writes the list as one JSON object ({} when empty). Returns 0, or -1 after
 * a write error. */
int etl_fields_json(const struct etl_fields *fl, struct etl_out *o);

/* The same as one CSV field (RFC 4180): the JSON text between quotes, its
 * own quotes doubled ("{}" unquoted when empty). */
int etl_fields_json_csv(const struct etl_fields *fl, struct etl_out *o);

/* Writes the list as name=value pairs separated by spaces (nothing when
 * empty). Returns 0, or -1 after a write error. */
int etl_fields_text(const struct etl_fields *fl, struct etl_out *o);

/* Formats a FILETIME as ISO 8601 UTC ("2020-09-14T22:29:07.1234567Z") into
 * out (at least 40 bytes); returns the length. Values outside years
 * 1601..9999 are written as the plain number. */
size_t etl_fields_filetime_iso(int64_t ft, char *out);

/* Result of a payload decoder (kernel table, TraceLogging, metadata). */
enum etl_fdec {
    ETL_FDEC_OK = 0,      /* every payload byte was decoded into fields */
    ETL_FDEC_NO_LAYOUT,   /* no layout known: show the payload as payload_hex */
    ETL_FDEC_PARTIAL,     /* fields decoded up to *at; bytes [at, end) are not
                           * described (a version newer than the table, or
                           * trailing bytes): show them as payload_hex */
    ETL_FDEC_DAMAGED,     /* a field runs past the payload at offset *at: the
                           * fields before it are valid; report the damage
                           * with the offset and show [at, end) as payload_hex */
};

/* Returns a short English word for a status ("ok", "no layout", ...). */
const char *etl_fdec_name(enum etl_fdec st);

#endif
