/*
 * fields.c - typed field lists and their JSON and text renderings
 * (doc/format.md section 18.1).
 */
#include "fields.h"

#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool etl_fields_init(struct etl_fields *fl, size_t max_entries, size_t max_bytes)
{
    memset(fl, 0, sizeof *fl);
    if (max_bytes > UINT32_MAX)
        max_bytes = UINT32_MAX;
    fl->f = malloc((max_entries ? max_entries : 1) * sizeof *fl->f);
    fl->arena = malloc(max_bytes ? max_bytes : 1);
    if (!fl->f || !fl->arena) {
        etl_fields_free(fl);
        return false;
    }
    fl->cap = max_entries;
    fl->acap = max_bytes;
    return true;
}

void etl_fields_free(struct etl_fields *fl)
{
    free(fl->f);
    free(fl->arena);
    memset(fl, 0, sizeof *fl);
}

void etl_fields_reset(struct etl_fields *fl)
{
    fl->n = 0;
    fl->alen = 0;
    fl->depth = 0;
    fl->truncated = false;
}

/* Takes the next entry, or NULL (truncated set) when the list is full. */
static struct etl_field *take(struct etl_fields *fl, const char *name, size_t nlen,
                              enum etl_ftype t)
{
    return etl_fields_take(fl, name, nlen, t);
}

/* Reserves n arena bytes for entry f; false (entry given back, truncated
 * set) when they do not fit. */
static uint8_t *reserve(struct etl_fields *fl, struct etl_field *f, size_t n)
{
    if (n > fl->acap - fl->alen) {
        fl->n--;
        fl->truncated = true;
        return NULL;
    }
    f->v.a.off = (uint32_t)fl->alen;
    f->v.a.len = (uint32_t)n;
    uint8_t *p = (uint8_t *)fl->arena + fl->alen;
    fl->alen += n;
    return p;
}


/* Appends an entry of type t holding a copy of p[0..n). */
static bool add_bytes(struct etl_fields *fl, const char *name, size_t nlen,
                      enum etl_ftype t, const uint8_t *p, size_t n)
{
    struct etl_field *f = take(fl, name, nlen, t);
    if (!f)
        return false;
    uint8_t *d = reserve(fl, f, n);
    if (!d)
        return false;
    if (n)
        memcpy(d, p, n);
    return true;
}

bool etl_fields_guid(struct etl_fields *fl, const char *name, size_t nlen, const uint8_t g[16])
{
    return add_bytes(fl, name, nlen, ETL_F_GUID, g, 16);
}

bool etl_fields_systemtime(struct etl_fields *fl, const char *name, size_t nlen,
                           const uint8_t st[16])
{
    return add_bytes(fl, name, nlen, ETL_F_SYSTEMTIME, st, 16);
}

bool etl_fields_sid(struct etl_fields *fl, const char *name, size_t nlen,
                    const uint8_t *sid, size_t n)
{
    return add_bytes(fl, name, nlen, ETL_F_SID, sid, n);
}

bool etl_fields_binary(struct etl_fields *fl, const char *name, size_t nlen,
                       const uint8_t *p, size_t n)
{
    return add_bytes(fl, name, nlen, ETL_F_BINARY, p, n);
}

/* Reads 8 bytes as a little-endian word. */
static inline uint64_t load_le64(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
           (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* Marks (0x80 in its byte) every byte of w that needs escaping in JSON or
 * is outside ASCII: below 0x20, 0x22 ('"'), 0x5C ('\\') or 0x80 and above.
 * The lowest mark is exact (a borrow marks only bytes above a marked one). */
static inline uint64_t json_bad8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b) | w) & high;
}

/* Returns true if no byte of w needs escaping in JSON or is outside ASCII. */
static inline bool json_plain8(uint64_t w)
{
    return json_bad8(w) == 0;
}

/* Writes code point c as UTF-8 at d; returns the bytes written. */
static size_t put_utf8(uint8_t *d, uint32_t c)
{
    if (c < 0x80) {
        d[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        d[0] = (uint8_t)(0xC0 | (c >> 6));
        d[1] = (uint8_t)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        d[0] = (uint8_t)(0xE0 | (c >> 12));
        d[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        d[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    d[0] = (uint8_t)(0xF0 | (c >> 18));
    d[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    d[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    d[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}

/* Returns the length of the valid UTF-8 sequence at p[0..n), or 0. */
static size_t utf8_seq(const uint8_t *p, size_t n)
{
    uint8_t b = p[0];
    if (b < 0x80)
        return 1;
    size_t len;
    uint32_t min, c;
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2; min = 0x80; c = b & 0x1Fu;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3; min = 0x800; c = b & 0x0Fu;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4; min = 0x10000; c = b & 0x07u;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (p[i] & 0x3Fu);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    return len;
}

bool etl_fields_str_utf8(struct etl_fields *fl, const char *name, size_t nlen,
                         const uint8_t *p, size_t n)
{
    struct etl_field *f = take(fl, name, nlen, ETL_F_STR);
    if (!f)
        return false;
    /* Fast path: all ASCII or valid UTF-8 is copied as it is. */
    size_t i = 0, bad = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t l = utf8_seq(p + i, n - i);
        if (l == 0) {
            bad++;
            l = 1;
        }
        i += l;
    }
    if (n > SIZE_MAX / 3)
        n = SIZE_MAX / 3;
    uint8_t *d = reserve(fl, f, n + 2 * bad);
    if (!d)
        return false;
    if (bad == 0) {
        if (n)
            memcpy(d, p, n);
        return true;
    }
    size_t o = 0;
    for (i = 0; i < n;) {
        size_t l = utf8_seq(p + i, n - i);
        if (l == 0) {
            o += put_utf8(d + o, 0xFFFD);
            i++;
        } else {
            memcpy(d + o, p + i, l);
            o += l;
            i += l;
        }
    }
    return true;
}

bool etl_fields_str_utf16(struct etl_fields *fl, const char *name, size_t nlen,
                          const uint8_t *p, size_t n)
{
    struct etl_field *f = take(fl, name, nlen, ETL_F_STR);
    if (!f)
        return false;
    /* Each 2-byte unit gives at most 3 UTF-8 bytes; an odd byte gives 3. */
    size_t units = n / 2;
    size_t need = units * 3 + (n & 1u) * 3;
    if (need > fl->acap - fl->alen) {
        /* Measure exactly before giving up. */
        need = 0;
        for (size_t i = 0; i < units; i++) {
            uint32_t c = (uint32_t)p[2 * i] | ((uint32_t)p[2 * i + 1] << 8);
            need += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        need += (n & 1u) * 3;
    }
    uint8_t *d = reserve(fl, f, need);
    if (!d)
        return false;
    size_t o = 0;
    for (size_t i = 0; i < units; i++) {
        /* ASCII, the common case: four units at a time. */
        while (i + 4 <= units) {
            uint64_t w = load_le64(p + 2 * i);
            if (w & 0xFF80FF80FF80FF80ull)
                break;
            d[o] = (uint8_t)w;
            d[o + 1] = (uint8_t)(w >> 16);
            d[o + 2] = (uint8_t)(w >> 32);
            d[o + 3] = (uint8_t)(w >> 48);
            o += 4;
            i += 4;
        }
        if (i >= units)
            break;
        if (p[2 * i + 1] == 0 && p[2 * i] < 0x80) {
            d[o++] = p[2 * i];
            continue;
        }
        uint32_t c = (uint32_t)p[2 * i] | ((uint32_t)p[2 * i + 1] << 8);
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < units) {
            uint32_t c2 = (uint32_t)p[2 * i + 2] | ((uint32_t)p[2 * i + 3] << 8);
            if (c2 >= 0xDC00 && c2 <= 0xDFFF) {
                c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00);
                i++;
                o += put_utf8(d + o, c);
                continue;
            }
        }
        if (c >= 0xD800 && c <= 0xDFFF)
            c = 0xFFFD;
        o += put_utf8(d + o, c);
    }
    if (n & 1u)
        o += put_utf8(d + o, 0xFFFD);
    /* Give back what the estimate reserved in excess. */
    fl->alen -= need - o;
    f->v.a.len = (uint32_t)o;
    return true;
}

/* Appends a begin entry. */
static bool begin(struct etl_fields *fl, const char *name, size_t nlen, enum etl_ftype t)
{
    if (!fl->truncated && fl->depth >= ETL_FIELDS_MAX_DEPTH) {
        fl->truncated = true;
        return false;
    }
    if (!take(fl, name, nlen, t))
        return false;
    fl->depth++;
    return true;
}

/* Appends an end entry. */
static bool end(struct etl_fields *fl, enum etl_ftype t)
{
    if (fl->depth == 0)
        return true;
    if (!take(fl, NULL, 0, t))
        return false;
    fl->depth--;
    return true;
}

bool etl_fields_struct_begin(struct etl_fields *fl, const char *name, size_t nlen)
{
    return begin(fl, name, nlen, ETL_F_STRUCT_BEGIN);
}

bool etl_fields_struct_end(struct etl_fields *fl)
{
    return end(fl, ETL_F_STRUCT_END);
}

bool etl_fields_array_begin(struct etl_fields *fl, const char *name, size_t nlen)
{
    return begin(fl, name, nlen, ETL_F_ARRAY_BEGIN);
}

bool etl_fields_array_end(struct etl_fields *fl)
{
    return end(fl, ETL_F_ARRAY_END);
}

size_t etl_sid_len(const uint8_t *p, size_t n)
{
    if (n < 8 || p[0] != 1 || p[1] > 15)
        return 0;
    size_t len = 8u + 4u * p[1];
    return len <= n ? len : 0;
}

const char *etl_fdec_name(enum etl_fdec st)
{
    switch (st) {
    case ETL_FDEC_OK: return "ok";
    case ETL_FDEC_NO_LAYOUT: return "no layout";
    case ETL_FDEC_PARTIAL: return "partly described";
    case ETL_FDEC_DAMAGED: return "damaged";
    }
    return "unknown";
}

/* ---- formatting of scalar values ---- */

/* Signed decimal, terminated; returns the length. */
static size_t fmt_i64(char out[32], int64_t v)
{
    size_t n = etl_fmt_i64(v, out);
    out[n] = '\0';
    return n;
}

size_t etl_field_number_text(const struct etl_field *f, char *out)
{
    switch (f->type) {
    case ETL_F_UINT: return etl_fmt_u64(f->v.u, out);
    case ETL_F_INT: return etl_fmt_i64(f->v.i, out);
    default: return etl_fmt_hex(f->v.u, 1, out); /* PTR, HEX */
    }
}

/* Formats a finite double with the fewest digits that read back exactly. */
static size_t fmt_double(char out[40], double d)
{
    int n = snprintf(out, 40, "%.15g", d);
    if (strtod(out, NULL) != d)
        n = snprintf(out, 40, "%.17g", d);
    return n < 0 ? 0 : (size_t)n;
}

/* Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm). */
static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    unsigned doe = (unsigned)(days - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

size_t etl_fields_filetime_iso(int64_t ft, char *out)
{
    /* 9999-12-31T23:59:59.9999999Z is FILETIME 2650467743999999999. */
    if (ft < 0 || ft > 2650467743999999999LL)
        return fmt_i64(out, ft);
    int64_t secs = ft / 10000000 - 11644473600LL;
    unsigned frac = (unsigned)(ft % 10000000);
    int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
    unsigned sod = (unsigned)(secs - days * 86400);
    int64_t y;
    unsigned mo, d;
    civil(days, &y, &mo, &d);
    int n = snprintf(out, 40, "%04lld-%02u-%02uT%02u:%02u:%02u.%07uZ", (long long)y, mo,
                     d, sod / 3600, sod / 60 % 60, sod % 60, frac);
    return n < 0 ? 0 : (size_t)n;
}

/* Formats a SYSTEMTIME (wYear, wMonth, wDayOfWeek, wDay, wHour, wMinute,
 * wSecond, wMilliseconds) as ISO 8601 into out (64 bytes). */
static size_t fmt_systemtime(char *out, const uint8_t *p)
{
    unsigned w[8];
    for (int i = 0; i < 8; i++)
        w[i] = (unsigned)p[2 * i] | ((unsigned)p[2 * i + 1] << 8);
    int n = snprintf(out, 64, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ", w[0], w[1], w[3],
                     w[4], w[5], w[6], w[7]);
    return n < 0 ? 0 : (size_t)n;
}

/* Formats a GUID in file byte order (lowercase, no braces) into out (37). */
static size_t fmt_guid(char *out, const uint8_t *g)
{
    static const char hx[] = "0123456789abcdef";
    /* Data1 (LE u32), Data2, Data3 (LE u16), Data4 (8 bytes in order). */
    static const signed char order[] = { 3, 2, 1, 0, -1, 5, 4, -1, 7, 6, -1,
                                         8, 9, -1, 10, 11, 12, 13, 14, 15 };
    size_t n = 0;
    for (size_t i = 0; i < sizeof order; i++) {
        if (order[i] < 0) {
            out[n++] = '-';
            continue;
        }
        uint8_t b = g[order[i]];
        out[n++] = hx[b >> 4];
        out[n++] = hx[b & 15];
    }
    out[n] = '\0';
    return n;
}

/* Formats a SID (already checked with etl_sid_len) into out (200 bytes). */
static size_t fmt_sid(char *out, const uint8_t *s, size_t len)
{
    uint64_t auth = 0;
    for (int i = 2; i < 8; i++)
        auth = (auth << 8) | s[i];
    int n;
    if (auth < (1ull << 32))
        n = snprintf(out, 200, "S-%u-%llu", s[0], (unsigned long long)auth);
    else
        n = snprintf(out, 200, "S-%u-0x%012llX", s[0], (unsigned long long)auth);
    size_t k = n < 0 ? 0 : (size_t)n;
    unsigned cnt = s[1];
    for (unsigned i = 0; i < cnt && 8 + 4 * i + 4 <= len; i++) {
        const uint8_t *q = s + 8 + 4 * i;
        uint32_t v = (uint32_t)q[0] | ((uint32_t)q[1] << 8) | ((uint32_t)q[2] << 16) |
                     ((uint32_t)q[3] << 24);
        n = snprintf(out + k, 200 - k, "-%u", v);
        if (n > 0)
            k += (size_t)n;
    }
    return k;
}

/* Formats a scalar value (not STR or BINARY) into out (256 bytes). For a
 * double, *quoted says whether JSON must show it as a string. */
static size_t fmt_scalar(const struct etl_fields *fl, const struct etl_field *f, char *out,
                         bool *json_string)
{
    *json_string = false;
    switch (f->type) {
    case ETL_F_UINT:
    case ETL_F_INT:
    case ETL_F_PTR:
    case ETL_F_HEX: {
        size_t l = etl_field_number_text(f, out);
        out[l] = '\0';
        return l;
    }
    case ETL_F_BOOL:
        strcpy(out, f->v.u ? "true" : "false");
        return f->v.u ? 4 : 5;
    case ETL_F_DOUBLE:
        if (isnan(f->v.d)) {
            *json_string = true;
            strcpy(out, "NaN");
            return 3;
        }
        if (isinf(f->v.d)) {
            *json_string = true;
            strcpy(out, f->v.d > 0 ? "Infinity" : "-Infinity");
            return f->v.d > 0 ? 8 : 9;
        }
        return fmt_double(out, f->v.d);
    case ETL_F_GUID:
        *json_string = true;
        return fmt_guid(out, etl_field_bytes(fl, f));
    case ETL_F_SID:
        *json_string = true;
        return fmt_sid(out, etl_field_bytes(fl, f), f->v.a.len);
    case ETL_F_FILETIME:
        *json_string = f->v.i >= 0 && f->v.i <= 2650467743999999999LL;
        return etl_fields_filetime_iso(f->v.i, out);
    case ETL_F_SYSTEMTIME:
        *json_string = true;
        return fmt_systemtime(out, etl_field_bytes(fl, f));
    default:
        out[0] = '\0';
        return 0;
    }
}

size_t etl_field_value_text(const struct etl_fields *fl, const struct etl_field *f,
                            char *buf, size_t cap)
{
    static const char hx[] = "0123456789abcdef";
    if (f->type == ETL_F_STR || f->type == ETL_F_BINARY) {
        const uint8_t *p = etl_field_bytes(fl, f);
        size_t n = f->v.a.len;
        size_t need = f->type == ETL_F_STR ? n : 2 * n;
        if (cap == 0)
            return need;
        size_t k = 0;
        if (f->type == ETL_F_STR) {
            k = n < cap - 1 ? n : cap - 1;
            memcpy(buf, p, k);
        } else {
            for (size_t i = 0; i < n && k + 2 < cap; i++) {
                buf[k++] = hx[p[i] >> 4];
                buf[k++] = hx[p[i] & 15];
            }
        }
        buf[k] = '\0';
        return need;
    }
    char tmp[256];
    bool js;
    size_t n = fmt_scalar(fl, f, tmp, &js);
    if (cap) {
        size_t k = n < cap - 1 ? n : cap - 1;
        memcpy(buf, tmp, k);
        buf[k] = '\0';
    }
    return n;
}

/* ---- JSON ---- */

/* A JSON writer; dq doubles every quote, for a CSV field (RFC 4180). */
struct jw {
    struct etl_out *o;
    bool dq;
};

/* Writes a quote (two when doubling). */
static inline int jquote(const struct jw *w)
{
    if (etl_out_putc(w->o, '"') != 0)
        return -1;
    return w->dq ? etl_out_putc(w->o, '"') : 0;
}

/* Bytes a JSON string cannot hold as they are: C0 controls, quote,
 * backslash. */
static const uint8_t json_special[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
};

/* Input bytes json_chars escapes into one reservation of the output: each
 * takes 6 bytes at most (\u00XX), and a copy of 8 may run 7 past them. */
#define JSON_CHUNK 64u

/* Writes s[0..n) as the inside of a JSON string (UTF-8 is valid already). */
static int json_chars(const struct jw *w, const char *s, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t end = n - i > JSON_CHUNK ? i + JSON_CHUNK : n;
        char *d0 = etl_out_space(w->o, 6 * JSON_CHUNK + 8);
        if (!d0)
            return -1;
        char *d = d0;
        while (i < end) {
            if (i + 8 <= end) {
                /* Eight bytes copied; kept up to the first that is not
                 * plain ASCII. */
                uint64_t bad = json_bad8(load_le64(u + i));
                memcpy(d, u + i, 8);
                size_t k = bad ? (size_t)__builtin_ctzll(bad) / 8 : 8;
                d += k;
                i += k;
                if (k == 8)
                    continue;
            }
            unsigned char c = u[i++];
            if (!json_special[c]) {
                *d++ = (char)c;
                continue;
            }
            *d++ = '\\';
            switch (c) {
            case '"':
                *d++ = '"';
                if (w->dq)
                    *d++ = '"';
                break;
            case '\\': *d++ = '\\'; break;
            case '\n': *d++ = 'n'; break;
            case '\r': *d++ = 'r'; break;
            case '\t': *d++ = 't'; break;
            default:
                memcpy(d, "u00", 3);
                d[3] = hx[c >> 4];
                d[4] = hx[c & 15];
                d += 5;
            }
        }
        etl_out_advance(w->o, (size_t)(d - d0));
    }
    return 0;
}

/* Writes the bytes of a name, which may come from a file: invalid UTF-8
 * becomes U+FFFD. */
static int json_name(const struct jw *w, const char *s, size_t n)
{
    /* Names are plain ASCII but for those a file gave. */
    const unsigned char *u = (const unsigned char *)s;
    size_t k = 0;
    while (k < n && u[k] < 0x80 && !json_special[u[k]])
        k++;
    if (k == n)
        return etl_out_write(w->o, s, n);
    size_t i = 0, run = 0;
    while (i < n) {
        size_t l = utf8_seq((const uint8_t *)s + i, n - i);
        if (l) {
            i += l;
            continue;
        }
        if (json_chars(w, s + run, i - run) != 0 ||
            etl_out_write(w->o, "\xEF\xBF\xBD", 3) != 0)
            return -1;
        i++;
        run = i;
    }
    return json_chars(w, s + run, n - run);
}

/* Writes the key of a plain name into d; returns the bytes written. */
static inline size_t put_key(const struct jw *w, char *d, bool comma, const char *name, size_t n)
{
    size_t o = 0;
    if (comma)
        d[o++] = ',';
    d[o++] = '"';
    if (w->dq)
        d[o++] = '"';
    etl_copy_small(d + o, name, n); /* most names are of up to 16 bytes */
    o += n;
    d[o++] = '"';
    if (w->dq)
        d[o++] = '"';
    d[o++] = ':';
    return o;
}

/* Writes a member's key: a comma first unless first, then "name": (quotes
 * doubled for CSV). */
static int json_key(const struct jw *w, bool comma, const char *name, size_t n, bool plain)
{
    const unsigned char *u = (const unsigned char *)name;
    size_t k = plain ? n : 0;
    while (k + 8 <= n && json_plain8(load_le64(u + k)))
        k += 8;
    while (k < n && u[k] < 0x80 && !json_special[u[k]])
        k++;
    if (k == n && n <= 256) {
        /* The usual name: written at once. */
        char *d = etl_out_space(w->o, n + 8);
        if (!d)
            return -1;
        etl_out_advance(w->o, put_key(w, d, comma, name, n));
        return 0;
    }
    if ((comma && etl_out_putc(w->o, ',') != 0) || jquote(w) != 0 ||
        json_name(w, name, n) != 0 || jquote(w) != 0)
        return -1;
    return etl_out_putc(w->o, ':');
}

/* Writes a binary value as lowercase hex, quoted when w is not NULL. */
static int hex_string(struct etl_out *o, const uint8_t *p, size_t n, const struct jw *w)
{
    static const char hx[] = "0123456789abcdef";
    if (w && jquote(w) != 0)
        return -1;
    char buf[256];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        buf[k++] = hx[p[i] >> 4];
        buf[k++] = hx[p[i] & 15];
        if (k == sizeof buf) {
            if (etl_out_write(o, buf, k) != 0)
                return -1;
            k = 0;
        }
    }
    if (k && etl_out_write(o, buf, k) != 0)
        return -1;
    return w ? jquote(w) : 0;
}

/* How many members of an object, from entry `from` to entry i (one of
 * them), have entry i's name: a schema from a file may repeat a name, and
 * the keys of a JSON object must not (a reader keeps one value). */
static unsigned earlier_same(const struct etl_fields *fl, size_t from, size_t i)
{
    const struct etl_field *f = &fl->f[i];
    unsigned same = 0;
    for (size_t j = from; j < i; j++) {
        const struct etl_field *g = &fl->f[j];
        if (g->name_len == f->name_len && g->name && f->name &&
            memcmp(g->name, f->name, f->name_len) == 0)
            same++;
        if (g->type == ETL_F_STRUCT_BEGIN || g->type == ETL_F_ARRAY_BEGIN) {
            /* Past its members, to its end. */
            for (unsigned d = 1; d > 0 && j + 1 < i;) {
                j++;
                if (fl->f[j].type == ETL_F_STRUCT_BEGIN || fl->f[j].type == ETL_F_ARRAY_BEGIN)
                    d++;
                else if (fl->f[j].type == ETL_F_STRUCT_END || fl->f[j].type == ETL_F_ARRAY_END)
                    d--;
            }
        }
    }
    return same;
}

/* A bit of 64 for the name of entry f: members whose bits differ have
 * different names. */
static inline uint64_t name_bit(const struct etl_field *f)
{
    size_t n = f->name ? f->name_len : 0;
    unsigned h = n ? (unsigned)n * 31u + (unsigned char)f->name[0] +
                         7u * (unsigned char)f->name[n - 1]
                   : 0;
    return 1ull << (h & 63);
}

/* Writes the key of a member whose name `again` members before it have:
 * "name#N", N = again + 1. */
static int json_key_again(const struct jw *w, bool comma, const char *name, size_t n,
                          unsigned again)
{
    char num[ETL_FMT_NUM_MAX + 2] = "#";
    size_t k = 1 + etl_fmt_u64(again + 1u, num + 1);
    if ((comma && etl_out_putc(w->o, ',') != 0) || jquote(w) != 0 ||
        json_name(w, name, n) != 0 || etl_out_write(w->o, num, k) != 0 || jquote(w) != 0)
        return -1;
    return etl_out_putc(w->o, ':');
}

/* Writes the list as one JSON object through w. */
static int json_object(const struct etl_fields *fl, const struct jw *w)
{
    struct etl_out *o = w->o;
    bool in_array[ETL_FIELDS_MAX_DEPTH + 1];
    bool first[ETL_FIELDS_MAX_DEPTH + 1];
    size_t start[ETL_FIELDS_MAX_DEPTH + 1]; /* each level's first member */
    uint64_t seen[ETL_FIELDS_MAX_DEPTH + 1];  /* a bit per name_bit of its names */
    unsigned depth = 0;
    in_array[0] = false;
    first[0] = true;
    start[0] = 0;
    seen[0] = 0;
    if (etl_out_putc(o, '{') != 0)
        return -1;
    for (size_t i = 0; i < fl->n; i++) {
        const struct etl_field *f = &fl->f[i];
        if (f->type == ETL_F_STRUCT_END || f->type == ETL_F_ARRAY_END) {
            if (depth == 0)
                continue;
            if (etl_out_putc(o, in_array[depth] ? ']' : '}') != 0)
                return -1;
            depth--;
            continue;
        }
        bool number = f->type == ETL_F_UINT || f->type == ETL_F_INT ||
                      f->type == ETL_F_PTR || f->type == ETL_F_HEX;
        if (number && f->plain && !in_array[depth] && f->name_len <= 256) {
            /* The usual member: a plain name and a number, written at once. */
            char *d = etl_out_space(o, f->name_len + 32);
            if (!d)
                return -1;
            size_t k = put_key(w, d, !first[depth], f->name, f->name_len);
            k += f->type == ETL_F_INT ? etl_fmt_i64(f->v.i, d + k) : etl_fmt_u64(f->v.u, d + k);
            etl_out_advance(o, k);
            first[depth] = false;
            continue;
        }
        if (!in_array[depth]) {
            /* Names from a file may repeat (etldump's own do not): those
             * whose bit is set already are looked for among the others. */
            unsigned again = 0;
            if (!f->plain) {
                uint64_t bit = name_bit(f);
                if (seen[depth] & bit)
                    again = earlier_same(fl, start[depth], i);
                seen[depth] |= bit;
            }
            if (again ? json_key_again(w, true, f->name, f->name_len, again) != 0
                      : json_key(w, !first[depth], f->name, f->name_len, f->plain) != 0)
                return -1;
        } else if (!first[depth] && etl_out_putc(o, ',') != 0) {
            return -1;
        }
        first[depth] = false;
        switch (f->type) {
        case ETL_F_STRUCT_BEGIN:
        case ETL_F_ARRAY_BEGIN:
            if (depth >= ETL_FIELDS_MAX_DEPTH)
                return -1; /* cannot happen: appenders cap the depth */
            depth++;
            in_array[depth] = f->type == ETL_F_ARRAY_BEGIN;
            first[depth] = true;
            start[depth] = i + 1;
            seen[depth] = 0;
            if (etl_out_putc(o, in_array[depth] ? '[' : '{') != 0)
                return -1;
            break;
        case ETL_F_STR:
            if (jquote(w) != 0 ||
                json_chars(w, (const char *)etl_field_bytes(fl, f), f->v.a.len) != 0 ||
                jquote(w) != 0)
                return -1;
            break;
        case ETL_F_BINARY:
            if (hex_string(o, etl_field_bytes(fl, f), f->v.a.len, w) != 0)
                return -1;
            break;
        case ETL_F_UINT:
        case ETL_F_PTR:
        case ETL_F_HEX:
        case ETL_F_INT: {
            char *d = etl_out_space(o, 24);
            if (!d)
                return -1;
            etl_out_advance(o, f->type == ETL_F_INT ? etl_fmt_i64(f->v.i, d)
                                                    : etl_fmt_u64(f->v.u, d));
            break;
        }
        default: {
            char tmp[256];
            bool js;
            size_t n = fmt_scalar(fl, f, tmp, &js);
            if ((js && jquote(w) != 0) || etl_out_write(o, tmp, n) != 0 ||
                (js && jquote(w) != 0))
                return -1;
        }
        }
    }
    while (depth > 0) {
        if (etl_out_putc(o, in_array[depth] ? ']' : '}') != 0)
            return -1;
        depth--;
    }
    return etl_out_putc(o, '}');
}

int etl_fields_json(const struct etl_fields *fl, struct etl_out *o)
{
    struct jw w = { o, false };
    return json_object(fl, &w);
}

int etl_fields_json_csv(const struct etl_fields *fl, struct etl_out *o)
{
    if (fl->n == 0)
        return etl_out_write(o, "{}", 2);
    struct jw w = { o, true };
    if (etl_out_putc(o, '"') != 0 || json_object(fl, &w) != 0)
        return -1;
    return etl_out_putc(o, '"');
}

/* ---- flattened iteration and text ---- */

void etl_fields_iter_init(struct etl_fields_iter *it)
{
    it->i = 0;
    it->depth = 0;
    it->lvl[0].name_end = 0;
    it->lvl[0].index = 0;
    it->lvl[0].array = false;
    it->name[0] = '\0';
    it->name_len = 0;
    it->cur = it->name;
    it->cur_len = 0;
}

/* Appends s[0..n) to the iterator's name, cut at the buffer's end. */
static void name_add(struct etl_fields_iter *it, const char *s, size_t n)
{
    size_t room = sizeof it->name - 1 - it->name_len;
    if (n > room)
        n = room;
    memcpy(it->name + it->name_len, s, n);
    it->name_len += n;
    it->name[it->name_len] = '\0';
}

/* Sets the iterator's name to that of entry f at the current level. */
static void name_for(struct etl_fields_iter *it, const struct etl_field *f)
{
    it->name_len = it->lvl[it->depth].name_end;
    it->name[it->name_len] = '\0';
    if (it->lvl[it->depth].array) {
        char tmp[ETL_FMT_NUM_MAX];
        size_t n = etl_fmt_u64(it->lvl[it->depth].index++, tmp);
        name_add(it, "[", 1);
        name_add(it, tmp, n);
        name_add(it, "]", 1);
    } else {
        if (it->depth > 0)
            name_add(it, ".", 1);
        name_add(it, f->name ? f->name : "", f->name_len);
    }
}

const struct etl_field *etl_fields_next(const struct etl_fields *fl,
                                        struct etl_fields_iter *it)
{
    while (it->i < fl->n) {
        const struct etl_field *f = &fl->f[it->i++];
        switch (f->type) {
        case ETL_F_STRUCT_END:
        case ETL_F_ARRAY_END:
            if (it->depth > 0)
                it->depth--;
            continue;
        case ETL_F_STRUCT_BEGIN:
        case ETL_F_ARRAY_BEGIN:
            if (it->depth >= ETL_FIELDS_MAX_DEPTH)
                continue;
            name_for(it, f);
            it->depth++;
            it->lvl[it->depth].name_end = (uint32_t)it->name_len;
            it->lvl[it->depth].index = 0;
            it->lvl[it->depth].array = f->type == ETL_F_ARRAY_BEGIN;
            continue;
        default:
            if (it->depth == 0) { /* a top-level name is the entry's own */
                it->cur = f->name ? f->name : "";
                it->cur_len = f->name ? f->name_len : 0;
                if (it->cur_len > sizeof it->name - 1)
                    it->cur_len = sizeof it->name - 1;
                return f;
            }
            name_for(it, f);
            it->cur = it->name;
            it->cur_len = it->name_len;
            return f;
        }
    }
    return NULL;
}

/* What each byte is to the text view: TX_PLAIN stands for itself; TX_QUOTE
 * (space, '=') only makes the value quoted; TX_ESC (a C0 control, DEL, a
 * quote or backslash) is escaped; TX_C2 and TX_C1 are the two bytes of a C1
 * control (U+0080 to U+009F, C2 80 to C2 9F in UTF-8), which a terminal
 * would act upon, escaped only when they meet. */
enum { TX_PLAIN, TX_QUOTE, TX_ESC, TX_C2, TX_C1 };
#define P TX_PLAIN
#define Q TX_QUOTE
#define E TX_ESC
#define C1 TX_C1
#define C2 TX_C2
static const unsigned char tx_class[256] = {
    E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, /* 0x00 */
    E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, /* 0x10 */
    Q, P, E, P, P, P, P, P, P, P, P, P, P, P, P, P, /* 0x20 */
    P, P, P, P, P, P, P, P, P, P, P, P, P, Q, P, P, /* 0x30 */
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, /* 0x40 */
    P, P, P, P, P, P, P, P, P, P, P, P, E, P, P, P, /* 0x50 */
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, /* 0x60 */
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, E, /* 0x70 */
    C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, /* 0x80 */
    C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, C1, /* 0x90 */
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, /* 0xA0 */
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, /* 0xB0 */
    P, P, C2, P, P, P, P, P, P, P, P, P, P, P, P, P, /* 0xC0 */
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, /* 0xD0 */
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, /* 0xE0 */
    P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, /* 0xF0 */
};
#undef P
#undef Q
#undef E
#undef C1
#undef C2

/* Returns true if byte i of s[0..n) must be escaped in the text view. */
static bool text_escaped(const unsigned char *s, size_t n, size_t i)
{
    switch (tx_class[s[i]]) {
    case TX_ESC: return true;
    case TX_C2: return i + 1 < n && tx_class[s[i + 1]] == TX_C1;
    case TX_C1: return i > 0 && s[i - 1] == 0xC2;
    default: return false;
    }
}

/* Writes a text-view string value, quoted and escaped when needed. */
static int text_string(struct etl_out *o, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n && tx_class[s[i]] == TX_PLAIN)
        i++;
    bool quote = n == 0;
    for (; i < n && !quote; i++)
        quote = tx_class[s[i]] == TX_QUOTE || text_escaped(s, n, i);
    if (!quote)
        return etl_out_write(o, s, n);
    static const char hx[] = "0123456789abcdef";
    if (etl_out_putc(o, '"') != 0)
        return -1;
    size_t run = 0;
    for (i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (tx_class[c] <= TX_QUOTE || !text_escaped(s, n, i))
            continue;
        if (i > run && etl_out_write(o, s + run, i - run) != 0)
            return -1;
        run = i + 1;
        char e[4] = { '\\', (char)c, 0, 0 };
        size_t el = 2;
        if (c == '\n') {
            e[1] = 'n';
        } else if (c == '\t') {
            e[1] = 't';
        } else if (c == '\r') {
            e[1] = 'r';
        } else if (c != '"' && c != '\\') {
            e[1] = 'x';
            e[2] = hx[c >> 4];
            e[3] = hx[c & 15];
            el = 4;
        }
        if (etl_out_write(o, e, el) != 0)
            return -1;
    }
    if (n > run && etl_out_write(o, s + run, n - run) != 0)
        return -1;
    return etl_out_putc(o, '"');
}

int etl_fields_text(const struct etl_fields *fl, struct etl_out *o)
{
    struct etl_fields_iter it;
    etl_fields_iter_init(&it);
    const struct etl_field *f;
    bool first = true;
    while ((f = etl_fields_next(fl, &it)) != NULL) {
        if (etl_field_plain_number(&it, f)) {
            /* The usual field, a number under a table's name: in place. */
            char *d = etl_out_space(o, it.cur_len + 2 + ETL_FMT_NUM_MAX);
            if (!d)
                return -1;
            size_t k = 0;
            if (!first)
                d[k++] = ' ';
            first = false;
            memcpy(d + k, it.cur, it.cur_len);
            k += it.cur_len;
            d[k++] = '=';
            k += etl_field_number_text(f, d + k);
            etl_out_advance(o, k);
            continue;
        }
        if (!first && etl_out_putc(o, ' ') != 0)
            return -1;
        first = false;
        /* Names come from files too: a control character, a space or an
         * '=' is shown as '_', bytes that are not UTF-8 as U+FFFD (as
         * every format shows them). */
        const unsigned char *u = (const unsigned char *)it.cur;
        size_t k = f->plain && it.depth == 0 ? it.cur_len : 0;
        while (k < it.cur_len && u[k] < 0x80 && tx_class[u[k]] == TX_PLAIN)
            k++;
        int r = etl_out_write(o, it.cur, k);
        for (size_t i = k; i < it.cur_len && r == 0;) {
            size_t q = utf8_seq(u + i, it.cur_len - i);
            if (q == 0) {
                r = etl_out_write(o, "\xEF\xBF\xBD", 3);
                i++;
            } else if (tx_class[u[i]] == TX_QUOTE || text_escaped(u, it.cur_len, i)) {
                r = etl_out_putc(o, '_');
                i += q;
            } else {
                r = etl_out_write(o, u + i, q);
                i += q;
            }
        }
        if (r != 0 || etl_out_putc(o, '=') != 0)
            return -1;
        if (f->type == ETL_F_STR) {
            r = text_string(o, (const char *)etl_field_bytes(fl, f), f->v.a.len);
        } else if (f->type == ETL_F_BINARY) {
            r = hex_string(o, etl_field_bytes(fl, f), f->v.a.len, NULL);
        } else {
            char tmp[256];
            bool js;
            size_t n = fmt_scalar(fl, f, tmp, &js);
            r = etl_out_write(o, tmp, n);
        }
        if (r != 0)
            return -1;
    }
    return 0;
}
