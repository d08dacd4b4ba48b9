/*
 * fmt.c - number, time, GUID and text formatting (see fmt.h).
 */
#include "fmt.h"

#include <ctype.h>
#include <string.h>

#include "clock.h"
#include "cursor.h"

/* FILETIME ticks (100 ns) per second. */
#define FT_PER_SEC 10000000LL

/* Two decimal digits for every value 0-99 (fmt.h). */
const char etl_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* 10^k for k = 0..19: every power of ten a uint64_t holds. */
static const uint64_t pow10_u64[20] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
    1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
    100000000000000u, 1000000000000000u, 10000000000000000u, 100000000000000000u,
    1000000000000000000u, 10000000000000000000u,
};

/* Returns the number of decimal digits of v (1-20) without dividing: the
 * bit length b gives floor(b * log10(2)) as (b * 1233) >> 12 (1233 / 4096
 * is log10(2) within 5e-6, exact enough for b <= 64), the digit count is
 * that or one more, and one comparison settles it. */
static inline size_t digits_u64(uint64_t v)
{
#if defined(__GNUC__)
    unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1u);
#else
    unsigned bits = 1;
    while (bits < 64 && (v >> bits) != 0)
        bits++;
#endif
    unsigned t = (bits * 1233u) >> 12;
    return (size_t)t + ((v | 1u) >= pow10_u64[t]);
}

/* Stores the low two bytes of d at out, lowest first. */
static inline void store2(char *out, uint64_t d)
{
    out[0] = (char)d;
    out[1] = (char)(d >> 8);
}

/* Writes the n first digits of eight_digits' d at out (n <= 8), exactly n
 * bytes: from two on, as two stores of four or two bytes that may overlap. */
static inline void put_first(char *out, uint64_t d, unsigned n)
{
    if (n >= 4) {
        etl_fmt_store4(out, d);
        etl_fmt_store4(out + n - 4, d >> (8 * (n - 4)));
    } else if (n >= 2) {
        store2(out, d);
        store2(out + n - 2, d >> (8 * (n - 2)));
    } else if (n) {
        out[0] = (char)d;
    }
}

/* Writes the n last digits of eight_digits' d at out (1 <= n <= 8). */
static inline void put_last(char *out, uint64_t d, unsigned n)
{
    put_first(out, d >> (8 * (8 - n)), n);
}

/* etl_fmt_u64 from 10^8 on: apart, so that the shorter numbers (most of
 * them) take a function that saves no registers. The number is cut into
 * pieces of eight digits by two divisions at most (by constants: the
 * compiler multiplies), the first piece written with its own digit count,
 * the others whole. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static size_t fmt_u64_long(uint64_t v, char *out)
{
    uint64_t hi = v / 100000000u;
    uint32_t lo = (uint32_t)(v - hi * 100000000u);
    size_t n = 0;
    if (hi >= 100000000u) { /* 17 to 20 digits */
        uint64_t top = hi / 100000000u;
        uint32_t mid = (uint32_t)(hi - top * 100000000u);
        n = digits_u64(top);
        put_last(out, etl_fmt_digits8((uint32_t)top), (unsigned)n);
        etl_fmt_store8(out + n, etl_fmt_digits8(mid));
        n += 8;
    } else {
        n = digits_u64(hi);
        put_last(out, etl_fmt_digits8((uint32_t)hi), (unsigned)n);
    }
    etl_fmt_store8(out + n, etl_fmt_digits8(lo));
    return n + 8;
}

size_t etl_fmt_u64_wide(uint64_t v, char *out)
{
    if (v < 100000000u) {
        unsigned n = (unsigned)digits_u64(v);
        put_last(out, etl_fmt_digits8((uint32_t)v), n);
        return n;
    }
    return fmt_u64_long(v, out);
}

/* Two lowercase hex digits for every byte value. */
const char etl_hex_pairs[513] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

size_t etl_fmt_hex(uint64_t v, int digits, char *out)
{
    out[0] = '0';
    out[1] = 'x';
    /* The digits v needs, or `digits` when that is more. */
#if defined(__GNUC__)
    int need = v ? (67 - __builtin_clzll(v)) / 4 : 1;
#else
    int need = 1;
    while (need < 16 && (v >> (4 * need)) != 0)
        need++;
#endif
    int n = need > digits ? need : digits;
    /* From the right, two digits at a time. */
    char *p = out + 2 + n;
    int left = n;
    for (; left >= 2; left -= 2) {
        p -= 2;
        memcpy(p, etl_hex_pairs + 2 * (v & 0xFF), 2);
        v >>= 8;
    }
    if (left)
        p[-1] = etl_hex_pairs[2 * (v & 0xF) + 1];
    return (size_t)n + 2;
}

size_t etl_fmt_seconds(int64_t ns, int decimals, char *out)
{
    size_t n = 0;
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        out[n++] = '-';
    uint64_t secs = a / 1000000000u;
    uint32_t frac = (uint32_t)(a - secs * 1000000000u);
    if (secs < 10) /* the usual duration */
        out[n++] = (char)('0' + secs);
    else
        n += etl_fmt_u64(secs, out + n);
    out[n++] = '.';
    /* The fraction, truncated to the requested precision: its first digit,
     * then the other eight at once. */
    uint32_t first = frac / 100000000u;
    out[n] = (char)('0' + first);
    uint64_t rest = etl_fmt_digits8(frac - first * 100000000u);
    if (decimals == 9)
        etl_fmt_store8(out + n + 1, rest);
    else if (decimals > 1)
        put_first(out + n + 1, rest, (unsigned)decimals - 1);
    return n + (size_t)decimals;
}

/* Converts days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    uint64_t doe = (uint64_t)(z - era * 146097);
    uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    uint64_t mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yy + (*m <= 2);
}

/* Writes n as exactly w decimal digits. */
static size_t fmt_fixed(uint64_t n, int w, char *out)
{
    for (int i = w - 1; i >= 0; i--) {
        out[i] = (char)('0' + n % 10);
        n /= 10;
    }
    return (size_t)w;
}

size_t etl_filetime_iso(int64_t ft, char *out)
{
    /* FILETIME counts 100 ns since 1601-01-01; 11644473600 s separate the epochs. */
    int64_t secs = ft / FT_PER_SEC - 11644473600LL;
    int64_t frac = ft % FT_PER_SEC;
    if (frac < 0) {
        frac += FT_PER_SEC;
        secs--;
    }
    int64_t days = secs / 86400, rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t y;
    unsigned mo, d;
    civil_from_days(days, &y, &mo, &d);
    size_t n = 0;
    if (y < 0 || y > 9999)
        y = y < 0 ? 0 : 9999;
    n += fmt_fixed((uint64_t)y, 4, out + n);
    out[n++] = '-';
    n += fmt_fixed(mo, 2, out + n);
    out[n++] = '-';
    n += fmt_fixed(d, 2, out + n);
    out[n++] = 'T';
    n += fmt_fixed((uint64_t)(rem / 3600), 2, out + n);
    out[n++] = ':';
    n += fmt_fixed((uint64_t)(rem / 60 % 60), 2, out + n);
    out[n++] = ':';
    n += fmt_fixed((uint64_t)(rem % 60), 2, out + n);
    out[n++] = '.';
    n += fmt_fixed((uint64_t)frac, 7, out + n);
    out[n++] = 'Z';
    out[n] = '\0';
    return n;
}

size_t etl_filetime_iso_local(int64_t ft, int32_t minutes, char *out)
{
    /* Saturated at the ends of the range, as FILETIMEs are. */
    int64_t shift = (int64_t)minutes * 60 * FT_PER_SEC;
    int64_t local = shift > 0 && ft > INT64_MAX - shift   ? INT64_MAX
                    : shift < 0 && ft < INT64_MIN - shift ? INT64_MIN
                                                          : ft + shift;
    size_t n = etl_filetime_iso(local, out) - 1; /* over the Z */
    return n + etl_tz_offset_str(minutes, out + n);
}

void etl_guid_str(const uint8_t g[16], char out[37])
{
    /* Data1, Data2 and Data3 are little-endian; Data4 is bytes in order.
     * Byte order[i] of the GUID goes to out + at[i], as two hex digits. */
    static const uint8_t order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
    static const uint8_t at[16] = { 0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34 };
    for (size_t i = 0; i < 16; i++)
        memcpy(out + at[i], etl_hex_pairs + 2 * g[order[i]], 2);
    out[8] = out[13] = out[18] = out[23] = '-';
    out[36] = '\0';
}

size_t etl_utf8_decode(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    unsigned v = c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
        return 0;
    *cp = v;
    return len;
}

/* Writes code point cp as UTF-8 into out[*o..cap-1); false if it does not fit. */
static bool put_utf8(char *out, size_t cap, size_t *o, uint32_t cp)
{
    uint8_t b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (uint8_t)(0xC0 | (cp >> 6));
        b[1] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (uint8_t)(0xE0 | (cp >> 12));
        b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (uint8_t)(0xF0 | (cp >> 18));
        b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 4;
    }
    if (*o + n >= cap)
        return false;
    memcpy(out + *o, b, n);
    *o += n;
    return true;
}

size_t etl_utf16z(const uint8_t *p, size_t len, char *out, size_t cap)
{
    size_t i = 0, o = 0;
    bool full = false;
    while (len - i >= 2) {
        uint32_t u = etl_le16(p + i);
        i += 2;
        if (u == 0)
            break;
        if (u >= 0xD800 && u < 0xDC00 && len - i >= 2) {
            uint32_t lo = etl_le16(p + i);
            if (lo >= 0xDC00 && lo < 0xE000) {
                i += 2;
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            } else {
                u = 0xFFFD;
            }
        } else if (u >= 0xD800 && u < 0xE000) {
            u = 0xFFFD; /* unpaired surrogate */
        }
        if (!full)
            full = !put_utf8(out, cap, &o, u);
    }
    if (cap)
        out[o] = '\0';
    return i;
}

bool etl_parse_u64(const char *s, uint64_t *v, const char **end)
{
    unsigned base = 10;
    const char *p = s;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
        base = 16;
        p += 2;
    }
    if (base == 10 && !isdigit((unsigned char)*p))
        return false;
    uint64_t n = 0;
    for (;; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            break;
        if (n > (UINT64_MAX - d) / base)
            return false;
        n = n * base + d;
    }
    *v = n;
    *end = p;
    return true;
}
