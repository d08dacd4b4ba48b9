/*
 * intype.h - reading one payload value by its TDH input type (the
 * _TDH_IN_TYPE values of Microsoft's tdh.h) into a field list. Shared by the
 * kernel table (kfields.c), TraceLogging (tracelogging.c) and the trace's own
 * metadata (metadata.c). Encodings: doc/format.md sections 18.2 and 19.3.
 */
#ifndef ETLDUMP_INTYPE_H
#define ETLDUMP_INTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "fields.h"

/* TDH input types (tdh.h). */
enum {
    ETL_IN_NULL = 0,
    ETL_IN_UNICODESTRING = 1,     /* UTF-16LE, NUL-terminated unless a length is given */
    ETL_IN_ANSISTRING = 2,        /* 8-bit, NUL-terminated unless a length is given */
    ETL_IN_INT8 = 3,
    ETL_IN_UINT8 = 4,
    ETL_IN_INT16 = 5,
    ETL_IN_UINT16 = 6,
    ETL_IN_INT32 = 7,
    ETL_IN_UINT32 = 8,
    ETL_IN_INT64 = 9,
    ETL_IN_UINT64 = 10,
    ETL_IN_FLOAT = 11,
    ETL_IN_DOUBLE = 12,
    ETL_IN_BOOLEAN = 13,          /* 4 bytes */
    ETL_IN_BINARY = 14,           /* length given, else the rest of the payload */
    ETL_IN_GUID = 15,
    ETL_IN_POINTER = 16,          /* pointer-wide */
    ETL_IN_FILETIME = 17,
    ETL_IN_SYSTEMTIME = 18,
    ETL_IN_SID = 19,              /* a SID, 8 + 4 * SubAuthorityCount bytes */
    ETL_IN_HEXINT32 = 20,
    ETL_IN_HEXINT64 = 21,
    ETL_IN_MANIFEST_COUNTEDSTRING = 22,     /* u16 byte count, UTF-16LE */
    ETL_IN_MANIFEST_COUNTEDANSISTRING = 23, /* u16 byte count, 8-bit */
    ETL_IN_MANIFEST_COUNTEDBINARY = 25,     /* u16 byte count, bytes */
    ETL_IN_COUNTEDSTRING = 300,
    ETL_IN_COUNTEDANSISTRING = 301,
    ETL_IN_REVERSEDCOUNTEDSTRING = 302,     /* big-endian u16 byte count */
    ETL_IN_REVERSEDCOUNTEDANSISTRING = 303,
    ETL_IN_NONNULLTERMINATEDSTRING = 304,   /* UTF-16LE to the end (or length) */
    ETL_IN_NONNULLTERMINATEDANSISTRING = 305,
    ETL_IN_UNICODECHAR = 306,
    ETL_IN_ANSICHAR = 307,
    ETL_IN_SIZET = 308,           /* pointer-wide unsigned */
    ETL_IN_HEXDUMP = 309,         /* u32 byte count, bytes */
    ETL_IN_WBEMSID = 310,         /* MOF Sid: TOKEN_USER then a SID, or a zero u32 */
};

/* How to show a value beyond its input type. */
enum etl_hint {
    ETL_H_NONE = 0,
    ETL_H_HEX,        /* an integer best read in hex */
    ETL_H_BOOL,       /* an integer that is a boolean */
    ETL_H_PORT,       /* u16 in network byte order */
    ETL_H_IPV4,       /* u32 in network byte order, shown a.b.c.d */
    ETL_H_IPV6,       /* 16 bytes, shown as eight hex groups */
    ETL_H_PTR,        /* an integer that is an address */
};

/* No length given. */
#define ETL_LEN_NONE UINT32_MAX

/* Reads one value of input type `in` from c and appends it as a field named
 * name[0..nlen). len is a fixed length (characters for strings, bytes for
 * binary) or ETL_LEN_NONE. ptr_size (4 or 8) sizes POINTER and SIZET. When
 * ival is not NULL it receives the value of an integer (for lengths and
 * counts of later properties), else 0.
 * Returns 1 when read, 0 when the value runs past the cursor's range or a
 * string has no terminator (nothing appended, c->pos unchanged), -1 for an
 * input type this reader does not know. */
int etl_intype_read(struct etl_fields *fl, const char *name, size_t nlen, unsigned in,
                    enum etl_hint hint, uint32_t len, struct etl_cursor *c,
                    unsigned ptr_size, uint64_t *ival);

/* The integer in-types without a display hint: etl_intype_read's common
 * case, inline for the layout tables. Returns 1 when read, 0 when the value
 * runs past the cursor's range, -1 when in is another type. */
static inline int etl_intype_read_int(struct etl_fields *fl, const char *name, size_t nlen,
                                      unsigned in, struct etl_cursor *c, unsigned ptr_size,
                                      uint64_t *ival)
{
    unsigned size;
    enum { K_UINT, K_INT, K_HEX, K_PTR } kind;
    switch (in) {
    case ETL_IN_UINT8: size = 1; kind = K_UINT; break;
    case ETL_IN_UINT16: size = 2; kind = K_UINT; break;
    case ETL_IN_UINT32: size = 4; kind = K_UINT; break;
    case ETL_IN_UINT64: size = 8; kind = K_UINT; break;
    case ETL_IN_SIZET: size = ptr_size; kind = K_UINT; break;
    case ETL_IN_INT8: size = 1; kind = K_INT; break;
    case ETL_IN_INT16: size = 2; kind = K_INT; break;
    case ETL_IN_INT32: size = 4; kind = K_INT; break;
    case ETL_IN_INT64: size = 8; kind = K_INT; break;
    case ETL_IN_HEXINT32: size = 4; kind = K_HEX; break;
    case ETL_IN_HEXINT64: size = 8; kind = K_HEX; break;
    case ETL_IN_POINTER: size = ptr_size; kind = K_PTR; break;
    default: return -1;
    }
    if (etl_cur_left(c) < size)
        return 0;
    const uint8_t *p = c->base + c->pos;
    uint64_t u = size == 1 ? p[0] : size == 2 ? etl_le16(p) : size == 4 ? etl_le32(p)
                                                                        : etl_le64(p);
    c->pos += size;
    if (ival)
        *ival = u;
    switch (kind) {
    case K_UINT:
        etl_fields_uint(fl, name, nlen, u);
        break;
    case K_INT:
        /* Sign-extended from its size. */
        etl_fields_int(fl, name, nlen,
                       size == 8 ? (int64_t)u
                                 : (int64_t)(u ^ (1ull << (8 * size - 1))) -
                                       (int64_t)(1ull << (8 * size - 1)));
        break;
    case K_HEX:
        etl_fields_hex(fl, name, nlen, u);
        break;
    default:
        etl_fields_ptr(fl, name, nlen, u);
    }
    return 1;
}

/* Returns the fixed size of input type `in` in bytes (POINTER and SIZET:
 * ptr_size), or 0 when it is variable. */
static inline size_t etl_intype_size(unsigned in, unsigned ptr_size)
{
    switch (in) {
    case ETL_IN_INT8: case ETL_IN_UINT8: case ETL_IN_ANSICHAR:
        return 1;
    case ETL_IN_INT16: case ETL_IN_UINT16: case ETL_IN_UNICODECHAR:
        return 2;
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_FLOAT: case ETL_IN_BOOLEAN:
    case ETL_IN_HEXINT32:
        return 4;
    case ETL_IN_INT64: case ETL_IN_UINT64: case ETL_IN_DOUBLE: case ETL_IN_FILETIME:
    case ETL_IN_HEXINT64:
        return 8;
    case ETL_IN_GUID: case ETL_IN_SYSTEMTIME:
        return 16;
    case ETL_IN_POINTER: case ETL_IN_SIZET:
        return ptr_size;
    default:
        return 0;
    }
}

/* Where an element of an array begins: the payload read and the fields kept
 * so far (etl_array_done). */
struct etl_elem_mark {
    size_t pos, kept;
};

static inline struct etl_elem_mark etl_elem_begin(const struct etl_cursor *c,
                                                  const struct etl_fields *out)
{
    struct etl_elem_mark m = { c->pos, out->n };
    return m;
}

/* After one element of an array (TraceLogging and TDH arrays): true when the
 * rest need not be decoded. Past the list's cap nothing more is kept (the
 * payload is then shown whole), and an element that read and kept nothing
 * (a type without a value) makes the rest the same; without this, nested
 * arrays of such elements multiply their counts. */
static inline bool etl_array_done(struct etl_elem_mark m, const struct etl_cursor *c,
                                  const struct etl_fields *out)
{
    return out->truncated || (c->pos == m.pos && out->n == m.kept);
}

#endif
