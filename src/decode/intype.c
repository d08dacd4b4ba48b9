/*
 * intype.c - one payload value by TDH input type (Microsoft tdh.h,
 * _TDH_IN_TYPE; MOF Sid extension per "Event Tracing MOF Qualifiers").
 * Layout facts: doc/format.md sections 18.2 and 19.3.
 */
#include "decode/intype.h"

#include <stdio.h>
#include <string.h>

/* Finds the end of a NUL-terminated string of unit-byte characters in
 * p[0..n); returns the characters' byte length, or SIZE_MAX if there is no
 * terminator. */
static size_t strz_len(const uint8_t *p, size_t n, unsigned unit)
{
    if (unit == 1) {
        const uint8_t *z = memchr(p, 0, n);
        return z ? (size_t)(z - p) : SIZE_MAX;
    }
    size_t i = 0;
    /* Four units at a time while none is zero. */
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        w = etl_le64((const uint8_t *)&w);
        if ((w - 0x0001000100010001ull) & ~w & 0x8000800080008000ull)
            break;
    }
    for (; i + 1 < n; i += 2)
        if (p[i] == 0 && p[i + 1] == 0)
            return i;
    return SIZE_MAX;
}

/* Appends a string of unit-byte characters (1: 8-bit, 2: UTF-16LE). */
static void add_str(struct etl_fields *fl, const char *name, size_t nlen,
                    const uint8_t *p, size_t n, unsigned unit)
{
    if (unit == 1)
        etl_fields_str_ansi(fl, name, nlen, p, n);
    else
        etl_fields_str_utf16(fl, name, nlen, p, n);
}

/* Appends an integer according to its hint. */
static void add_int(struct etl_fields *fl, const char *name, size_t nlen, uint64_t u,
                    bool is_signed, unsigned bits, enum etl_hint hint)
{
    switch (hint) {
    case ETL_H_HEX:
        etl_fields_hex(fl, name, nlen, u);
        return;
    case ETL_H_PTR:
        etl_fields_ptr(fl, name, nlen, u);
        return;
    case ETL_H_BOOL:
        etl_fields_bool(fl, name, nlen, u != 0);
        return;
    case ETL_H_PORT:
        if (bits == 16) {
            etl_fields_uint(fl, name, nlen, ((u & 0xFF) << 8) | (u >> 8));
            return;
        }
        break;
    case ETL_H_IPV4:
        if (bits == 32) {
            char s[16];
            int k = snprintf(s, sizeof s, "%u.%u.%u.%u", (unsigned)(u & 0xFF),
                             (unsigned)((u >> 8) & 0xFF), (unsigned)((u >> 16) & 0xFF),
                             (unsigned)(u >> 24));
            etl_fields_str_utf8(fl, name, nlen, (const uint8_t *)s, k > 0 ? (size_t)k : 0);
            return;
        }
        break;
    default:
        break;
    }
    if (is_signed) {
        int64_t v;
        switch (bits) {
        case 8: v = (int8_t)(uint8_t)u; break;
        case 16: v = (int16_t)(uint16_t)u; break;
        case 32: v = (int32_t)(uint32_t)u; break;
        default: v = (int64_t)u; break;
        }
        etl_fields_int(fl, name, nlen, v);
    } else {
        etl_fields_uint(fl, name, nlen, u);
    }
}

/* Appends 16 bytes as an IPv6 address "x:x:x:x:x:x:x:x". */
static void add_ipv6(struct etl_fields *fl, const char *name, size_t nlen, const uint8_t *p)
{
    char s[48];
    size_t k = 0;
    for (int i = 0; i < 8; i++) {
        int w = snprintf(s + k, sizeof s - k, i ? ":%x" : "%x",
                         ((unsigned)p[2 * i] << 8) | p[2 * i + 1]);
        if (w > 0)
            k += (size_t)w;
    }
    etl_fields_str_utf8(fl, name, nlen, (const uint8_t *)s, k);
}

int etl_intype_read(struct etl_fields *fl, const char *name, size_t nlen, unsigned in,
                    enum etl_hint hint, uint32_t len, struct etl_cursor *c,
                    unsigned ptr_size, uint64_t *ival)
{
    if (hint == ETL_H_NONE) {
        int r = etl_intype_read_int(fl, name, nlen, in, c, ptr_size, ival);
        if (r >= 0)
            return r;
    }
    size_t left = etl_cur_left(c);
    const uint8_t *p = etl_cur_here(c);
    size_t used;
    if (ival)
        *ival = 0;

    switch (in) {
    case ETL_IN_INT8: case ETL_IN_UINT8: case ETL_IN_INT16: case ETL_IN_UINT16:
    case ETL_IN_INT32: case ETL_IN_UINT32: case ETL_IN_INT64: case ETL_IN_UINT64:
    case ETL_IN_HEXINT32: case ETL_IN_HEXINT64: case ETL_IN_POINTER: case ETL_IN_SIZET:
    case ETL_IN_BOOLEAN: {
        used = etl_intype_size(in, ptr_size);
        if (used == 0 || used > left)
            return 0;
        uint64_t u = used == 1 ? p[0]
                   : used == 2 ? etl_le16(p)
                   : used == 4 ? etl_le32(p)
                               : etl_le64(p);
        if (ival)
            *ival = u;
        bool sgn = in == ETL_IN_INT8 || in == ETL_IN_INT16 || in == ETL_IN_INT32 ||
                   in == ETL_IN_INT64;
        enum etl_hint h = hint;
        if (in == ETL_IN_HEXINT32 || in == ETL_IN_HEXINT64)
            h = h == ETL_H_NONE ? ETL_H_HEX : h;
        else if (in == ETL_IN_POINTER)
            h = h == ETL_H_NONE ? ETL_H_PTR : h;
        else if (in == ETL_IN_BOOLEAN)
            h = ETL_H_BOOL;
        add_int(fl, name, nlen, u, sgn, (unsigned)used * 8, h);
        break;
    }
    case ETL_IN_FLOAT: {
        if (left < 4)
            return 0;
        uint32_t b = etl_le32(p);
        float f;
        memcpy(&f, &b, 4);
        etl_fields_double(fl, name, nlen, (double)f);
        used = 4;
        break;
    }
    case ETL_IN_DOUBLE: {
        if (left < 8)
            return 0;
        uint64_t b = etl_le64(p);
        double d;
        memcpy(&d, &b, 8);
        etl_fields_double(fl, name, nlen, d);
        used = 8;
        break;
    }
    case ETL_IN_GUID:
        if (left < 16)
            return 0;
        etl_fields_guid(fl, name, nlen, p);
        used = 16;
        break;
    case ETL_IN_FILETIME:
        if (left < 8)
            return 0;
        etl_fields_filetime(fl, name, nlen, (int64_t)etl_le64(p));
        used = 8;
        break;
    case ETL_IN_SYSTEMTIME:
        if (left < 16)
            return 0;
        etl_fields_systemtime(fl, name, nlen, p);
        used = 16;
        break;
    case ETL_IN_SID:
        used = etl_sid_len(p, left);
        if (used == 0)
            return 0;
        etl_fields_sid(fl, name, nlen, p, used);
        break;
    case ETL_IN_WBEMSID: {
        /* A zero first u32 means no SID (4 bytes); otherwise TOKEN_USER
         * (two pointer-sized members) precedes the SID. */
        if (left < 4)
            return 0;
        if (etl_le32(p) == 0) {
            etl_fields_str_utf8(fl, name, nlen, NULL, 0);
            used = 4;
            break;
        }
        size_t tok = 2u * ptr_size;
        if (left < tok)
            return 0;
        size_t sl = etl_sid_len(p + tok, left - tok);
        if (sl == 0)
            return 0;
        etl_fields_sid(fl, name, nlen, p + tok, sl);
        used = tok + sl;
        break;
    }
    case ETL_IN_UNICODESTRING: case ETL_IN_ANSISTRING:
    case ETL_IN_NONNULLTERMINATEDSTRING: case ETL_IN_NONNULLTERMINATEDANSISTRING:
    case ETL_IN_UNICODECHAR: case ETL_IN_ANSICHAR: {
        unsigned unit = (in == ETL_IN_UNICODESTRING || in == ETL_IN_NONNULLTERMINATEDSTRING ||
                         in == ETL_IN_UNICODECHAR) ? 2 : 1;
        size_t n;
        if (len != ETL_LEN_NONE) {
            /* Fixed length in characters; the text ends at the first NUL. */
            if ((size_t)len > left / unit)
                return 0;
            used = (size_t)len * unit;
            n = strz_len(p, used, unit);
            if (n == SIZE_MAX)
                n = used;
        } else if (in == ETL_IN_UNICODECHAR || in == ETL_IN_ANSICHAR) {
            if (left < unit)
                return 0;
            used = n = unit;
        } else if (in == ETL_IN_NONNULLTERMINATEDSTRING ||
                   in == ETL_IN_NONNULLTERMINATEDANSISTRING) {
            used = n = unit == 2 ? left & ~(size_t)1 : left;
        } else {
            n = strz_len(p, left, unit);
            if (n == SIZE_MAX)
                return 0;
            used = n + unit;
        }
        add_str(fl, name, nlen, p, n, unit);
        break;
    }
    case ETL_IN_MANIFEST_COUNTEDSTRING: case ETL_IN_MANIFEST_COUNTEDANSISTRING:
    case ETL_IN_COUNTEDSTRING: case ETL_IN_COUNTEDANSISTRING:
    case ETL_IN_REVERSEDCOUNTEDSTRING: case ETL_IN_REVERSEDCOUNTEDANSISTRING:
    case ETL_IN_MANIFEST_COUNTEDBINARY: {
        if (left < 2)
            return 0;
        bool rev = in == ETL_IN_REVERSEDCOUNTEDSTRING ||
                   in == ETL_IN_REVERSEDCOUNTEDANSISTRING;
        size_t n = rev ? ((size_t)p[0] << 8 | p[1]) : etl_le16(p);
        if (n > left - 2)
            return 0;
        if (in == ETL_IN_MANIFEST_COUNTEDBINARY)
            etl_fields_binary(fl, name, nlen, p + 2, n);
        else
            add_str(fl, name, nlen, p + 2, n,
                    (in == ETL_IN_MANIFEST_COUNTEDSTRING || in == ETL_IN_COUNTEDSTRING ||
                     in == ETL_IN_REVERSEDCOUNTEDSTRING) ? 2 : 1);
        used = 2 + n;
        break;
    }
    case ETL_IN_HEXDUMP: {
        if (left < 4)
            return 0;
        size_t n = etl_le32(p);
        if (n > left - 4)
            return 0;
        etl_fields_binary(fl, name, nlen, p + 4, n);
        used = 4 + n;
        break;
    }
    case ETL_IN_BINARY: {
        used = len != ETL_LEN_NONE ? len : left;
        if (used > left)
            return 0;
        if (hint == ETL_H_IPV6 && used == 16)
            add_ipv6(fl, name, nlen, p);
        else
            etl_fields_binary(fl, name, nlen, p, used);
        break;
    }
    default:
        return -1;
    }
    c->pos += used;
    return 1;
}
