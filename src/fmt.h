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

/* Longest output of the number formatters (a sign and 20 digits, or 0x and
 * 16 hex digits), and of etl_filetime_iso, without the terminator. */
#define ETL_FMT_NUM_MAX 21
#define ETL_FMT_ISO_MAX 28

/* Each writes at out and returns the length; no terminator is written. */
size_t etl_fmt_u64(uint64_t v, char *out);
size_t etl_fmt_i64(int64_t v, char *out);
/* "0x" and at least `digits` lowercase hex digits (more when v needs them). */
size_t etl_fmt_hex(uint64_t v, int digits, char *out);
/* ns as seconds with `decimals` (1-9) fractional digits, truncated. */
size_t etl_fmt_seconds(int64_t ns, int decimals, char *out);

/* Writes a FILETIME as ISO 8601 UTC with 7 fractional digits (years
 * clamped to 0000-9999) and a terminator; out holds at least 32 bytes. */
size_t etl_filetime_iso(int64_t ft, char *out);

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

#endif
