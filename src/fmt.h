/*
 * fmt.h - formatting numbers, times, GUIDs and text, shared by every layer:
 * decimal and hex without printf, seconds from nanoseconds, FILETIME as
 * ISO 8601, GUIDs, and the UTF-16 to UTF-8 conversion and UTF-8 validation
 * that make every string etldump prints valid UTF-8.
 */
#ifndef ETLDUMP_FMT_H
#define ETLDUMP_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "inline.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Longest output of the number formatters (a sign and 20 digits, or 0x and
 * 16 hex digits), and of etl_filetime_iso, without the terminator. */
#define ETL_FMT_NUM_MAX 21
#define ETL_FMT_ISO_MAX 28

/* The digits of the leading parts of the last two numbers of different
 * leading parts formatted through it: the times of consecutive rows mostly
 * share theirs (a tick count's digits above the last eight, a time's whole
 * seconds), which are then copied, not formatted again. Two, as a row may
 * hold two such numbers (a tick count and a file offset past 100 MB):
 * with one, they took it from each other in every row, and each time the
 * digits just written a byte at a time were read back as one word, which
 * waits for the bytes to reach the cache (a tenth of the CSV rows of
 * --events=all). A cache only: what is written never depends on it. */
struct etl_fmt_memo_way {
    uint64_t key;              /* the leading part */
    uint32_t len;              /* its digits in s */
    bool valid;
    char s[24];
};
struct etl_fmt_memo {
    struct etl_fmt_memo_way way[2];
    unsigned last;             /* the way found or set last */
};

/* Two decimal digits for every value 0-99: "000102...99". */
extern const char etl_digit_pairs[201];

/* etl_fmt_digits8 on one 64-bit word: v is split into two halves of four
 * digits, each of those into two of two, each of those into two digits,
 * every step on all lanes of the word at once (q * 10486 >> 20 is q / 100
 * for q < 10^4, and q * 103 >> 10 is q / 10 for q < 100). */
ETL_INLINE uint64_t etl_fmt_digits8_swar(uint32_t v)
{
    uint64_t x = (uint64_t)(v / 10000u) | ((uint64_t)(v % 10000u) << 32);
    uint64_t hundreds = ((x * 10486u) >> 20) & 0x0000007F0000007Full;
    x = ((x - hundreds * 100u) << 16) | hundreds;
    uint64_t tens = ((x * 103u) >> 10) & 0x000F000F000F000Full;
    x = ((x - tens * 10u) << 8) | tens;
    return x | 0x3030303030303030ull;
}

/* Returns the eight decimal digits of v (< 10^8, leading zeros included)
 * as ASCII bytes, the first digit in the lowest byte. With SSE2 (every
 * x86-64): v's two halves of four digits, hi = v / 10^4 (v * 109951163 >>
 * 40, exact below 10^8) and lo, each in four 16-bit lanes; lane i of each
 * four becomes the half divided by 1000, 100, 10 and 1 (its first i + 1
 * digits) by two multiplications that keep the high half: 4h * A >> 16,
 * then * B >> 16, with A, B = 8389, 128; 5243, 2048; 6554, 16384; 32768,
 * 32768 (h * 8389 >> 23 is h / 1000, h * 5243 >> 19 is h / 100, h * 6554
 * >> 16 is h / 10, all exact for h < 10^4: checked on every h); each lane
 * less ten times the lane before it is its digit. Else etl_fmt_digits8_swar. */
ETL_INLINE uint64_t etl_fmt_digits8(uint32_t v)
{
#if defined(__SSE2__)
    uint32_t hi = (uint32_t)(((uint64_t)v * 109951163u) >> 40), lo = v - hi * 10000u;
    __m128i x = _mm_cvtsi32_si128((int)(hi | lo << 16));
    x = _mm_unpacklo_epi16(x, x);
    x = _mm_unpacklo_epi32(x, x); /* hi hi hi hi lo lo lo lo */
    x = _mm_slli_epi16(x, 2);
    const __m128i a = _mm_set_epi16(-32768, 6554, 5243, 8389, -32768, 6554, 5243, 8389);
    const __m128i b = _mm_set_epi16(-32768, 16384, 2048, 128, -32768, 16384, 2048, 128);
    __m128i q = _mm_mulhi_epu16(_mm_mulhi_epu16(x, a), b);
    __m128i d = _mm_sub_epi16(q, _mm_slli_epi64(_mm_mullo_epi16(q, _mm_set1_epi16(10)), 16));
    d = _mm_add_epi8(_mm_packus_epi16(d, d), _mm_set1_epi8('0'));
    uint64_t r;
    _mm_storel_epi64((__m128i *)(void *)&r, d);
    return r;
#else
    return etl_fmt_digits8_swar(v);
#endif
}

/* Stores the eight bytes of d at out, lowest first. */
ETL_INLINE void etl_fmt_store8(char *out, uint64_t d)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, &d, 8);
#else
    for (unsigned i = 0; i < 8; i++)
        out[i] = (char)(d >> (8 * i));
#endif
}

/* Stores the low four bytes of d at out, lowest first. */
ETL_INLINE void etl_fmt_store4(char *out, uint64_t d)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t w = (uint32_t)d;
    memcpy(out, &w, 4);
#else
    for (unsigned i = 0; i < 4; i++)
        out[i] = (char)(d >> (8 * i));
#endif
}

/* etl_fmt_u64 from 10^4 on (fmt.c). */
size_t etl_fmt_u64_wide(uint64_t v, char *out);

/* etl_fmt_u64 for 10^4 <= v < 10^8: the eight digits of etl_fmt_digits8
 * without their leading zeros (the bytes below the first non-zero digit:
 * at most three here), written exactly as two stores of four bytes that
 * overlap; the second holds the last four digits, the upper half of the
 * eight whatever their count. */
ETL_INLINE size_t etl_fmt_u64_5to8(uint32_t v, char *out)
{
    uint64_t d = etl_fmt_digits8(v);
    unsigned lz = etl_ctz64(d & 0x0F0F0F0F0F0F0F0Full) >> 3;
    size_t n = 8 - lz;
    etl_fmt_store4(out, d >> (8 * lz));
    etl_fmt_store4(out + n - 4, d >> 32);
    return n;
}

/* Each writes at out and returns the length; no terminator is written. */
/* Decimal. Inline up to four digits (counts, IDs, priorities: most numbers
 * a row shows), each two from the table. */
ETL_INLINE size_t etl_fmt_u64(uint64_t v, char *out)
{
    if (v < 100) {
        if (v < 10) {
            out[0] = (char)('0' + v);
            return 1;
        }
        memcpy(out, etl_digit_pairs + 2 * v, 2);
        return 2;
    }
    if (v < 10000) {
        unsigned hi = (unsigned)v / 100u, lo = (unsigned)v - hi * 100u;
        if (hi < 10) {
            out[0] = (char)('0' + hi);
            memcpy(out + 1, etl_digit_pairs + 2 * lo, 2);
            return 3;
        }
        memcpy(out, etl_digit_pairs + 2 * hi, 2);
        memcpy(out + 2, etl_digit_pairs + 2 * lo, 2);
        return 4;
    }
    if (v < 100000000u)
        return etl_fmt_u64_5to8((uint32_t)v, out);
    return etl_fmt_u64_wide(v, out);
}

ETL_INLINE size_t etl_fmt_i64(int64_t v, char *out)
{
    if (v >= 0)
        return etl_fmt_u64((uint64_t)v, out);
    out[0] = '-';
    return 1 + etl_fmt_u64(0 - (uint64_t)v, out + 1);
}

/* "0x" and at least `digits` lowercase hex digits (more when v needs them). */
size_t etl_fmt_hex(uint64_t v, int digits, char *out);

/* Two lowercase hex digits for every byte value: "000102...ff". */
extern const char etl_hex_pairs[513];

/* etl_fmt_hex(v, 4, out), inline for v <= 0xFFFF (a HookId, an event ID). */
ETL_INLINE size_t etl_fmt_hex16(uint64_t v, char *out)
{
    if (v > 0xFFFFu)
        return etl_fmt_hex(v, 4, out);
    out[0] = '0';
    out[1] = 'x';
    memcpy(out + 2, etl_hex_pairs + 2 * (v >> 8), 2);
    memcpy(out + 4, etl_hex_pairs + 2 * (v & 0xFFu), 2);
    return 6;
}

/* ns as seconds with `decimals` (1-9) fractional digits, truncated. */
size_t etl_fmt_seconds(int64_t ns, int decimals, char *out);

/* Writes the whole seconds of ns (>= 0) at out; returns their length,
 * and the nanoseconds past them in *frac. */
ETL_INLINE size_t etl_fmt_whole_seconds(uint64_t ns, char *out, uint32_t *frac)
{
    uint64_t secs = ns / 1000000000u;
    *frac = (uint32_t)(ns - secs * 1000000000u);
    if (secs < 10) { /* the usual duration */
        out[0] = (char)('0' + secs);
        return 1;
    }
    return etl_fmt_u64(secs, out);
}

/* Writes the point and the nine decimals of frac (< 10^9) at out: the
 * first decimal, then the other eight in one store; returns 10. */
ETL_INLINE size_t etl_fmt_point9(uint32_t frac, char *out)
{
    uint32_t first = frac / 100000000u;
    out[0] = '.';
    out[1] = (char)('0' + first);
    etl_fmt_store8(out + 2, etl_fmt_digits8(frac - first * 100000000u));
    return 10;
}

/* etl_fmt_seconds(ns, 9, out), inline for ns >= 0. */
ETL_INLINE size_t etl_fmt_seconds9(int64_t ns, char *out)
{
    if (ns < 0)
        return etl_fmt_seconds(ns, 9, out);
    uint32_t frac;
    size_t n = etl_fmt_whole_seconds((uint64_t)ns, out, &frac);
    return n + etl_fmt_point9(frac, out + n);
}

/* The way of m that holds the digits of key: the one that did, else the
 * one not found or set last, set to them. */
ETL_INLINE const struct etl_fmt_memo_way *etl_fmt_memo_get(struct etl_fmt_memo *m, uint64_t key)
{
    struct etl_fmt_memo_way *w = &m->way[m->last];
    if (w->valid && w->key == key)
        return w;
    m->last ^= 1u;
    w = &m->way[m->last];
    if (!w->valid || w->key != key) {
        w->key = key;
        w->len = (uint32_t)etl_fmt_u64(key, w->s);
        w->valid = true;
    }
    return w;
}

/* etl_fmt_u64(v, out) with the digits above the last eight from m (out has
 * room for 24 bytes). */
ETL_INLINE size_t etl_fmt_u64_memo(uint64_t v, char *out, struct etl_fmt_memo *m)
{
    if (v < 100000000u)
        return etl_fmt_u64(v, out);
    uint64_t hi = v / 100000000u;
    const struct etl_fmt_memo_way *w = etl_fmt_memo_get(m, hi);
    memcpy(out, w->s, 16); /* hi has at most 12 digits */
    etl_fmt_store8(out + w->len, etl_fmt_digits8((uint32_t)(v - hi * 100000000u)));
    return w->len + 8;
}

/* etl_fmt_i64(v, out) through m as etl_fmt_u64_memo. */
ETL_INLINE size_t etl_fmt_i64_memo(int64_t v, char *out, struct etl_fmt_memo *m)
{
    if (v < 0)
        return etl_fmt_i64(v, out);
    return etl_fmt_u64_memo((uint64_t)v, out, m);
}

/* etl_fmt_seconds9(ns, out) with the whole seconds from m (out has room for
 * 32 bytes). */
ETL_INLINE size_t etl_fmt_seconds9_memo(int64_t ns, char *out, struct etl_fmt_memo *m)
{
    uint64_t secs = (uint64_t)ns / 1000000000u;
    if (ns < 0 || secs < 10)
        return etl_fmt_seconds9(ns, out);
    const struct etl_fmt_memo_way *w = etl_fmt_memo_get(m, secs);
    memcpy(out, w->s, 16); /* secs has at most 11 digits */
    return w->len + etl_fmt_point9((uint32_t)((uint64_t)ns - secs * 1000000000u), out + w->len);
}

/* etl_fmt_seconds(ns, 6, out), inline for ns >= 0. */
ETL_INLINE size_t etl_fmt_seconds6(int64_t ns, char *out)
{
    if (ns < 0)
        return etl_fmt_seconds(ns, 6, out);
    uint32_t frac;
    size_t n = etl_fmt_whole_seconds((uint64_t)ns, out, &frac);
    uint32_t first = frac / 100000000u;
    uint64_t rest = etl_fmt_digits8(frac - first * 100000000u);
    out[n] = '.';
    out[n + 1] = (char)('0' + first);
    etl_fmt_store4(out + n + 2, rest);
    out[n + 6] = (char)(rest >> 32);
    return n + 7;
}

/* Writes a FILETIME as ISO 8601 UTC with 7 fractional digits (years
 * clamped to 0000-9999) and a terminator; out holds at least 32 bytes. */
size_t etl_filetime_iso(int64_t ft, char *out);

/* The same for the local time of FILETIME ft (UTC) at an offset of minutes
 * from UTC: the local date and time, then the offset as +HH:MM or -HH:MM
 * instead of Z (33 bytes and the terminator). */
size_t etl_filetime_iso_local(int64_t ft, int32_t minutes, char *out);

/* Formats a GUID stored in file byte order as 8-4-4-4-12 lowercase hex with
 * a terminator; out holds 37 bytes. */
void etl_guid_str(const uint8_t g[16], char out[37]);

/* Returns the length of the valid UTF-8 sequence at s (NUL-terminated) and
 * its code point in *cp, or 0 if s does not start one (overlong forms,
 * surrogates and values past U+10FFFF are not valid). */
size_t etl_utf8_decode(const unsigned char *s, unsigned *cp);

/* Converts UTF-16LE at p[0..len), up to a zero unit, to UTF-8 in out (cap
 * bytes, always terminated, cut short at a character boundary if needed;
 * unpaired surrogates become U+FFFD); returns the bytes of p consumed,
 * terminator included. */
size_t etl_utf16z(const uint8_t *p, size_t len, char *out, size_t cap);

/* Parses the number at s as the command line writes numbers: decimal, or
 * hex after 0x or 0X (a leading zero is not octal, as strtoul's base 0
 * makes it); no sign, no blanks. Returns false when s does not start with
 * a digit or the number passes UINT64_MAX; else sets *v and *end to the
 * first byte past the number. */
bool etl_parse_u64(const char *s, uint64_t *v, const char **end);

#endif
