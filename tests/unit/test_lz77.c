/*
 * Unit tests for the Plain LZ77 decompressor (src/etl/lz77.c) and the
 * test-only compressor (tests/gen/lz77_compress.c).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/lz77.h"
#include "lz77_compress.h"
#include "unit.h"

/* ---- helpers ---------------------------------------------------------- */

/* Simple deterministic PRNG (xorshift32); returns the next value. */
static uint32_t rng_next(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

/* Returns a heap buffer of n bytes (at least 1 allocated) or aborts the test. */
static uint8_t *xmalloc(size_t n)
{
    uint8_t *p = malloc(n != 0 ? n : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* Returns a safe compression buffer capacity for n input bytes. */
static size_t comp_cap(size_t n)
{
    return n + n / 8 + 8;
}

/* Counts of each length encoding met while walking a stream. */
struct enc_counts {
    size_t literals;
    size_t short_len;   /* 3..9 in the match word */
    size_t nib_low;     /* 10..24 or escape, low nibble of a fresh byte */
    size_t nib_high;    /* high nibble of the previous half byte */
    size_t byte_len;    /* extra length byte */
    size_t u16_len;     /* u16 escape */
    size_t u32_len;     /* u32 escape */
};

/* Walks a valid stream producing out_len bytes and counts its length
 * encodings (an independent parser used only to check coverage); returns 1
 * if the walk completed. */
static int walk_stream(const uint8_t *in, size_t in_len, size_t out_len,
                       struct enc_counts *c)
{
    size_t ip = 0, op = 0;
    unsigned nflags = 0;
    uint32_t flags = 0;
    int have_half = 0;
    unsigned half = 0;

    memset(c, 0, sizeof *c);
    while (op < out_len) {
        if (nflags == 0) {
            if (in_len - ip < 4)
                return 0;
            flags = (uint32_t)in[ip] | ((uint32_t)in[ip + 1] << 8) |
                    ((uint32_t)in[ip + 2] << 16) | ((uint32_t)in[ip + 3] << 24);
            ip += 4;
            nflags = 32;
        }
        nflags--;
        if (((flags >> nflags) & 1u) == 0) {
            if (ip >= in_len)
                return 0;
            ip++;
            op++;
            c->literals++;
            continue;
        }
        if (in_len - ip < 2)
            return 0;
        unsigned w = (unsigned)in[ip] | ((unsigned)in[ip + 1] << 8);
        ip += 2;
        size_t len = w & 7u;
        if (len < 7) {
            c->short_len++;
            len += 3;
        } else {
            unsigned nib;
            if (!have_half) {
                if (ip >= in_len)
                    return 0;
                nib = in[ip] & 15u;
                half = in[ip] >> 4;
                ip++;
                have_half = 1;
                c->nib_low++;
            } else {
                nib = half;
                have_half = 0;
                c->nib_high++;
            }
            if (nib < 15) {
                len = nib + 10u;
            } else {
                if (ip >= in_len)
                    return 0;
                unsigned b = in[ip++];
                if (b < 255) {
                    c->byte_len++;
                    len = b + 25u;
                } else {
                    if (in_len - ip < 2)
                        return 0;
                    uint32_t v = (uint32_t)in[ip] | ((uint32_t)in[ip + 1] << 8);
                    ip += 2;
                    if (v == 0) {
                        if (in_len - ip < 4)
                            return 0;
                        v = (uint32_t)in[ip] | ((uint32_t)in[ip + 1] << 8) |
                            ((uint32_t)in[ip + 2] << 16) | ((uint32_t)in[ip + 3] << 24);
                        ip += 4;
                        c->u32_len++;
                    } else {
                        c->u16_len++;
                    }
                    len = (size_t)v + 3;
                }
            }
        }
        op += len;
    }
    return op == out_len;
}

/* Compresses data, decompresses it again and checks the exact output and the
 * amount of input consumed; returns the compressed length. */
static size_t round_trip(const uint8_t *data, size_t n)
{
    size_t cap = comp_cap(n);
    uint8_t *comp = xmalloc(cap);
    uint8_t *back = xmalloc(n + 1);
    size_t clen = lz77_compress(data, n, comp, cap);
    size_t used = (size_t)-1;

    ck_assert_uint_ge(clen, 4);
    enum etl_lz77_status st = etl_lz77_decompress(comp, clen, back, n, &used);
    ck_assert_msg(st == ETL_LZ77_OK, "n=%zu: %s", n, etl_lz77_strerror(st));
    ck_assert(n == 0 || memcmp(back, data, n) == 0);
    ck_assert_uint_le(used, clen);
    /* Only a final all-ones flag word may be left unread. */
    ck_assert_msg(clen - used == 0 || clen - used == 4,
                  "n=%zu clen=%zu used=%zu", n, clen, used);

    /* Asking for one byte more must fail cleanly (the stream has ended). */
    if (n > 0) {
        st = etl_lz77_decompress(comp, clen, back, n + 1, &used);
        ck_assert_int_ne(st, ETL_LZ77_OK);
    }
    free(comp);
    free(back);
    return clen;
}

/* Fills buf with n pseudo-random bytes from seed; returns nothing. */
static void fill_random(uint8_t *buf, size_t n, uint32_t seed)
{
    uint32_t s = seed ? seed : 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)(rng_next(&s) >> 24);
}

/* Fills buf with n bytes mixing random stretches, runs and copies of earlier
 * data at varied distances and lengths; returns nothing. */
static void fill_mixed(uint8_t *buf, size_t n, uint32_t seed)
{
    uint32_t s = seed ? seed : 1;
    size_t i = 0;
    while (i < n) {
        uint32_t r = rng_next(&s);
        size_t len = 1 + (rng_next(&s) % 300);
        if (r % 7 == 6)
            len = 300 + rng_next(&s) % 2000;
        if (len > n - i)
            len = n - i;
        switch (r % 4) {
        case 0:
            for (size_t k = 0; k < len; k++)
                buf[i + k] = (uint8_t)(rng_next(&s) >> 24);
            break;
        case 1:
            memset(buf + i, (int)(r >> 8 & 0xFF), len);
            break;
        default:
            if (i == 0) {
                buf[i] = (uint8_t)r;
                len = 1;
            } else {
                size_t dist = 1 + rng_next(&s) % (i < 9000 ? i : 9000);
                for (size_t k = 0; k < len; k++)
                    buf[i + k] = buf[i + k - dist];
            }
            break;
        }
        i += len;
    }
}

/* Decodes stream into a buffer of exactly out_len bytes and checks status,
 * input consumed and (on success) the expected output; returns nothing. */
static void check_decode(const uint8_t *in, size_t in_len, size_t out_len,
                         enum etl_lz77_status want, size_t want_used,
                         const uint8_t *want_out)
{
    uint8_t *out = xmalloc(out_len);
    size_t used = (size_t)-1;
    enum etl_lz77_status st = etl_lz77_decompress(in, in_len, out, out_len, &used);
    ck_assert_msg(st == want, "status %d (%s), want %d", (int)st,
                  etl_lz77_strerror(st), (int)want);
    ck_assert_uint_eq(used, want_used);
    if (want == ETL_LZ77_OK && want_out != NULL)
        ck_assert(memcmp(out, want_out, out_len) == 0);
    free(out);
}

/* ---- hand-built streams ---------------------------------------------- */

START_TEST(test_literals_only)
{
    static const uint8_t in[] = { 0x00, 0x00, 0x00, 0x00, 'a', 'b', 'c' };
    check_decode(in, sizeof in, 3, ETL_LZ77_OK, 7, (const uint8_t *)"abc");
    /* Trailing input beyond what is needed is left unread. */
    static const uint8_t in2[] = { 0x00, 0x00, 0x00, 0x00, 'a', 'b', 'c', 0xFF, 0xFF };
    check_decode(in2, sizeof in2, 3, ETL_LZ77_OK, 7, (const uint8_t *)"abc");
}
END_TEST

START_TEST(test_literals_two_flag_words)
{
    uint8_t in[4 + 32 + 4 + 8];
    uint8_t want[40];
    size_t k = 0;
    memset(in, 0, 4);
    k = 4;
    for (size_t i = 0; i < 32; i++)
        in[k++] = want[i] = (uint8_t)('A' + i % 26);
    memset(in + k, 0, 4);
    k += 4;
    for (size_t i = 32; i < 40; i++)
        in[k++] = want[i] = (uint8_t)('0' + i % 10);
    check_decode(in, k, 40, ETL_LZ77_OK, k, want);
}
END_TEST

START_TEST(test_short_match)
{
    /* "abcd" then a match of length 3..9 at distance 4. */
    for (unsigned len = 3; len <= 9; len++) {
        uint8_t in[] = { 0x00, 0x00, 0x00, 0x08, 'a', 'b', 'c', 'd', 0, 0 };
        unsigned w = (3u << 3) | (len - 3);
        in[8] = (uint8_t)w;
        in[9] = (uint8_t)(w >> 8);
        uint8_t want[16];
        memcpy(want, "abcd", 4);
        for (unsigned i = 0; i < len; i++)
            want[4 + i] = want[i];
        check_decode(in, sizeof in, 4 + len, ETL_LZ77_OK, sizeof in, want);
    }
}
END_TEST

START_TEST(test_overlapping_match)
{
    /* 'a' then distance 1 length 9: a run of ten 'a'. */
    static const uint8_t in[] = { 0x00, 0x00, 0x00, 0x40, 'a', 0x06, 0x00 };
    check_decode(in, sizeof in, 10, ETL_LZ77_OK, sizeof in,
                 (const uint8_t *)"aaaaaaaaaa");
    /* "xyz" then distance 3 length 9: period-3 pattern. */
    static const uint8_t in3[] = { 0x00, 0x00, 0x00, 0x10, 'x', 'y', 'z', 0x16, 0x00 };
    check_decode(in3, sizeof in3, 12, ETL_LZ77_OK, sizeof in3,
                 (const uint8_t *)"xyzxyzxyzxyz");
}
END_TEST

START_TEST(test_nibble_low_then_high)
{
    /* "ab"; match d=2 code 7 with low nibble 5 (len 15); match d=1 code 7
     * with the high nibble 3 of the same byte (len 13). Flags: 0 0 1 1. */
    static const uint8_t in[] = { 0x00, 0x00, 0x00, 0x30, 'a', 'b',
                                  0x0F, 0x00, 0x35, 0x07, 0x00 };
    uint8_t want[30];
    want[0] = 'a';
    want[1] = 'b';
    for (size_t i = 2; i < 17; i++)
        want[i] = want[i - 2];
    for (size_t i = 17; i < 30; i++)
        want[i] = want[i - 1];
    check_decode(in, sizeof in, 30, ETL_LZ77_OK, sizeof in, want);
}
END_TEST

START_TEST(test_nibble_escape_both_halves)
{
    /* Both nibbles are 15, so each match also has its own extra byte; the
     * second extra byte follows the second match word, not the half byte.
     * "ab"; d=2 len 25+10=35; d=1 len 25+0=25. */
    static const uint8_t in[] = { 0x00, 0x00, 0x00, 0x30, 'a', 'b',
                                  0x0F, 0x00, 0xFF, 0x0A, 0x07, 0x00, 0x00 };
    uint8_t want[2 + 35 + 25];
    want[0] = 'a';
    want[1] = 'b';
    for (size_t i = 2; i < 37; i++)
        want[i] = want[i - 2];
    for (size_t i = 37; i < sizeof want; i++)
        want[i] = want[i - 1];
    check_decode(in, sizeof in, sizeof want, ETL_LZ77_OK, sizeof in, want);
}
END_TEST

START_TEST(test_byte_escape)
{
    /* 'x' then d=1, code 7, nibble 15, byte 100: length 125. */
    static const uint8_t in[] = { 0x00, 0x00, 0x00, 0x40, 'x',
                                  0x07, 0x00, 0x0F, 100 };
    uint8_t want[126];
    memset(want, 'x', sizeof want);
    check_decode(in, sizeof in, sizeof want, ETL_LZ77_OK, sizeof in, want);
    /* Byte 254 is the largest byte form: length 279. */
    static const uint8_t in2[] = { 0x00, 0x00, 0x00, 0x40, 'x',
                                   0x07, 0x00, 0x0F, 254 };
    uint8_t want2[280];
    memset(want2, 'x', sizeof want2);
    check_decode(in2, sizeof in2, sizeof want2, ETL_LZ77_OK, sizeof in2, want2);
}
END_TEST

START_TEST(test_u16_escape)
{
    /* 'x' then d=1, code 7, nibble 15, byte 255, u16 1000: length 1003. */
    static const uint8_t in[] = { 0x00, 0x00, 0x00, 0x40, 'x',
                                  0x07, 0x00, 0x0F, 0xFF, 0xE8, 0x03 };
    uint8_t *want = xmalloc(1004);
    memset(want, 'x', 1004);
    check_decode(in, sizeof in, 1004, ETL_LZ77_OK, sizeof in, want);
    free(want);
}
END_TEST

START_TEST(test_u32_escape)
{
    /* 'x' then d=1, code 7, nibble 15, byte 255, u16 0, u32 70000:
     * length 70003. */
    static const uint8_t in[] = { 0x00, 0x00, 0x00, 0x40, 'x',
                                  0x07, 0x00, 0x0F, 0xFF, 0x00, 0x00,
                                  0x70, 0x11, 0x01, 0x00 };
    uint8_t *want = xmalloc(70004);
    memset(want, 'x', 70004);
    check_decode(in, sizeof in, 70004, ETL_LZ77_OK, sizeof in, want);
    free(want);
}
END_TEST

START_TEST(test_long_periodic_match)
{
    /* "abcde" then d=5, u16 length 5000: exercises long overlapping copies. */
    static const uint8_t in[] = { 0x00, 0x00, 0x00, 0x04, 'a', 'b', 'c', 'd', 'e',
                                  0x27, 0x00, 0x0F, 0xFF, 0x85, 0x13 };
    size_t n = 5 + 5000;
    uint8_t *want = xmalloc(n);
    for (size_t i = 0; i < n; i++)
        want[i] = (uint8_t)('a' + i % 5);
    check_decode(in, sizeof in, n, ETL_LZ77_OK, sizeof in, want);
    free(want);
}
END_TEST

/* ---- round trips ------------------------------------------------------ */

START_TEST(test_roundtrip_empty)
{
    uint8_t comp[16];
    size_t clen = lz77_compress(NULL, 0, comp, sizeof comp);
    ck_assert_uint_eq(clen, 4);
    size_t used = 99;
    ck_assert_int_eq(etl_lz77_decompress(comp, clen, NULL, 0, &used), ETL_LZ77_OK);
    ck_assert_uint_eq(used, 0);
}
END_TEST

START_TEST(test_roundtrip_random)
{
    static const size_t sizes[] = { 1, 2, 3, 4, 5, 31, 32, 33, 63, 64, 65, 100,
                                     1000, 4095, 4096, 4097, 30000, 65535, 65536 };
    uint8_t *buf = xmalloc(65536);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        fill_random(buf, sizes[i], (uint32_t)(i * 7919 + 1));
        round_trip(buf, sizes[i]);
    }
    /* Every size up to 300. */
    for (size_t n = 0; n <= 300; n++) {
        fill_random(buf, n, (uint32_t)(n + 12345));
        round_trip(buf, n);
    }
    free(buf);
}
END_TEST

START_TEST(test_roundtrip_repetitive)
{
    uint8_t *buf = xmalloc(65536);
    static const size_t periods[] = { 1, 2, 3, 7, 16, 100, 1000, 8192, 9000 };
    static const size_t sizes[] = { 10, 100, 1000, 20000, 65536 };
    for (size_t p = 0; p < sizeof periods / sizeof periods[0]; p++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            uint32_t seed = (uint32_t)(p * 31 + s + 1);
            size_t n = sizes[s];
            size_t per = periods[p] < n ? periods[p] : n;
            fill_random(buf, per, seed);
            for (size_t i = per; i < n; i++)
                buf[i] = buf[i - per];
            size_t clen = round_trip(buf, n);
            if (n == 65536 && periods[p] <= 1000)
                ck_assert_uint_lt(clen, n / 8);
        }
    }
    /* Text-like data. */
    for (size_t i = 0; i < 65536; i++)
        buf[i] = (uint8_t)("the quick brown fox jumps over the lazy dog. "[(i * 7 + i / 45) % 45]);
    round_trip(buf, 65536);
    free(buf);
}
END_TEST

START_TEST(test_roundtrip_mixed)
{
    uint8_t *buf = xmalloc(65536);
    for (uint32_t seed = 1; seed <= 40; seed++) {
        size_t n = seed <= 20 ? (size_t)seed * 3271 % 65537 : 65536;
        fill_mixed(buf, n, seed);
        round_trip(buf, n);
    }
    free(buf);
}
END_TEST

START_TEST(test_roundtrip_all_encodings)
{
    /* Runs of every length class in sequence, after a random prefix, then
     * one run long enough for the u32 escape. */
    static const size_t runs[] = { 3, 4, 9, 10, 11, 24, 13, 25, 26, 100, 279,
                                   280, 281, 1000, 65538, 65539, 70000 };
    size_t total = 64;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        total += runs[i] + 8;
    uint8_t *buf = xmalloc(total);
    uint32_t s = 99;
    size_t pos = 0;
    fill_random(buf, 64, 4242);
    pos = 64;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        /* 8 random bytes, then a run repeating the last of them. */
        for (size_t k = 0; k < 8; k++)
            buf[pos++] = (uint8_t)(rng_next(&s) >> 24);
        memset(buf + pos, buf[pos - 1], runs[i]);
        pos += runs[i];
    }
    ck_assert_uint_eq(pos, total);

    size_t cap = comp_cap(total);
    uint8_t *comp = xmalloc(cap);
    size_t clen = lz77_compress(buf, total, comp, cap);
    ck_assert_uint_gt(clen, 0);
    struct enc_counts c;
    ck_assert(walk_stream(comp, clen, total, &c));
    ck_assert_uint_gt(c.literals, 0);
    ck_assert_uint_gt(c.short_len, 0);
    ck_assert_uint_gt(c.nib_low, 0);
    ck_assert_uint_gt(c.nib_high, 0);
    ck_assert_uint_gt(c.byte_len, 0);
    ck_assert_uint_gt(c.u16_len, 0);
    ck_assert_uint_gt(c.u32_len, 0);
    free(comp);
    round_trip(buf, total);
    free(buf);
}
END_TEST

START_TEST(test_compress_small_capacity)
{
    uint8_t data[200], comp[300];
    fill_random(data, sizeof data, 5);
    size_t full = lz77_compress(data, sizeof data, comp, sizeof comp);
    ck_assert_uint_gt(full, 0);
    for (size_t cap = 0; cap < full; cap++)
        ck_assert_uint_eq(lz77_compress(data, sizeof data, comp, cap), 0);
    ck_assert_uint_eq(lz77_compress(data, sizeof data, comp, full), full);
}
END_TEST

/* ---- error cases ------------------------------------------------------ */

/* Checks that every proper prefix of a valid stream that is shorter than the
 * input actually needed fails with TRUNCATED; returns nothing. */
static void check_prefixes(const uint8_t *comp, size_t clen, const uint8_t *data,
                           size_t n)
{
    uint8_t *out = xmalloc(n);
    size_t need = 0;
    ck_assert_int_eq(etl_lz77_decompress(comp, clen, out, n, &need), ETL_LZ77_OK);
    for (size_t k = 0; k <= clen; k++) {
        /* Copy the prefix to its own allocation so ASan sees any overread. */
        uint8_t *pre = xmalloc(k);
        memcpy(pre, comp, k);
        size_t used = (size_t)-1, made = (size_t)-1;
        enum etl_lz77_status st = etl_lz77_decompress_made(pre, k, out, n, &used, &made);
        if (k < need) {
            ck_assert_msg(st == ETL_LZ77_TRUNCATED, "prefix %zu: %s", k,
                          etl_lz77_strerror(st));
            ck_assert_uint_le(used, k);
            /* What it made before stopping is the data's start. */
            ck_assert_uint_lt(made, n);
            ck_assert(memcmp(out, data, made) == 0);
        } else {
            ck_assert_int_eq(st, ETL_LZ77_OK);
            ck_assert_uint_eq(used, need);
            ck_assert_uint_eq(made, n);
            ck_assert(memcmp(out, data, n) == 0);
        }
        free(pre);
    }
    free(out);
}

START_TEST(test_truncated_prefixes)
{
    /* A compressed mixed buffer. */
    size_t n = 6000;
    uint8_t *data = xmalloc(n);
    fill_mixed(data, n, 77);
    size_t cap = comp_cap(n);
    uint8_t *comp = xmalloc(cap);
    size_t clen = lz77_compress(data, n, comp, cap);
    ck_assert_uint_gt(clen, 0);
    check_prefixes(comp, clen, data, n);
    free(comp);
    free(data);

    /* The hand-built escape streams (nibble pair, u16, u32). */
    static const uint8_t nib[] = { 0x00, 0x00, 0x00, 0x30, 'a', 'b',
                                   0x0F, 0x00, 0xFF, 0x0A, 0x07, 0x00, 0x00 };
    uint8_t want[62];
    want[0] = 'a';
    want[1] = 'b';
    for (size_t i = 2; i < 37; i++)
        want[i] = want[i - 2];
    for (size_t i = 37; i < 62; i++)
        want[i] = want[i - 1];
    check_prefixes(nib, sizeof nib, want, sizeof want);

    static const uint8_t u32s[] = { 0x00, 0x00, 0x00, 0x40, 'x',
                                    0x07, 0x00, 0x0F, 0xFF, 0x00, 0x00,
                                    0x70, 0x11, 0x01, 0x00 };
    uint8_t *w2 = xmalloc(70004);
    memset(w2, 'x', 70004);
    check_prefixes(u32s, sizeof u32s, w2, 70004);
    free(w2);
}
END_TEST

START_TEST(test_bad_distance)
{
    /* A match as the very first item. */
    static const uint8_t in[] = { 0x00, 0x00, 0x00, 0x80, 0x00, 0x00 };
    check_decode(in, sizeof in, 3, ETL_LZ77_BAD_DISTANCE, 4, NULL);
    /* "ab" then distance 3. */
    static const uint8_t in2[] = { 0x00, 0x00, 0x00, 0x20, 'a', 'b', 0x10, 0x00 };
    check_decode(in2, sizeof in2, 5, ETL_LZ77_BAD_DISTANCE, 6, NULL);
    /* Distance 8192 after 8191 bytes. */
    size_t n = 8191;
    uint8_t *big = xmalloc(n + n / 8 + 64);
    size_t k = 0;
    size_t lit = 0;
    while (lit < n) {
        memset(big + k, 0, 4);
        k += 4;
        for (int i = 0; i < 32 && lit < n; i++, lit++)
            big[k++] = (uint8_t)lit;
    }
    /* n = 8191 = 255 * 32 + 31: the last flag word has one free bit. */
    big[k - 31 - 4] = 0x01;
    big[k++] = 0xF8;
    big[k++] = 0xFF;
    check_decode(big, k, n + 3, ETL_LZ77_BAD_DISTANCE, k - 2, NULL);
    free(big);
}
END_TEST

START_TEST(test_overrun)
{
    /* 'a' then d=1 length 9, but only 5 bytes of output. */
    static const uint8_t in[] = { 0x00, 0x00, 0x00, 0x40, 'a', 0x06, 0x00 };
    check_decode(in, sizeof in, 5, ETL_LZ77_OVERRUN, 5, NULL);
    /* Exactly fitting is fine. */
    check_decode(in, sizeof in, 10, ETL_LZ77_OK, sizeof in,
                 (const uint8_t *)"aaaaaaaaaa");
    /* A u32 length of 0xFFFFFFFF + 3 must not wrap. */
    static const uint8_t huge[] = { 0x00, 0x00, 0x00, 0x40, 'x',
                                    0x07, 0x00, 0x0F, 0xFF, 0x00, 0x00,
                                    0xFF, 0xFF, 0xFF, 0xFF };
    check_decode(huge, sizeof huge, 100, ETL_LZ77_OVERRUN, 5, NULL);
}
END_TEST

START_TEST(test_out_len_zero)
{
    static const uint8_t in[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00 };
    size_t used = 99;
    ck_assert_int_eq(etl_lz77_decompress(in, sizeof in, NULL, 0, &used), ETL_LZ77_OK);
    ck_assert_uint_eq(used, 0);
    used = 99;
    ck_assert_int_eq(etl_lz77_decompress(NULL, 0, NULL, 0, &used), ETL_LZ77_OK);
    ck_assert_uint_eq(used, 0);
    ck_assert_int_eq(etl_lz77_decompress(NULL, 0, NULL, 0, NULL), ETL_LZ77_OK);
    /* Empty input with output wanted is truncated at offset 0. */
    uint8_t out[4];
    used = 99;
    ck_assert_int_eq(etl_lz77_decompress(NULL, 0, out, sizeof out, &used),
                     ETL_LZ77_TRUNCATED);
    ck_assert_uint_eq(used, 0);
}
END_TEST

START_TEST(test_garbage_input)
{
    /* Random and mutated streams must never crash or overrun (run under
     * ASan/valgrind); only the status values are checked here. */
    uint32_t s = 2024;
    size_t n = 4000;
    uint8_t *data = xmalloc(n);
    fill_mixed(data, n, 3);
    uint8_t *comp = xmalloc(comp_cap(n));
    size_t clen = lz77_compress(data, n, comp, comp_cap(n));
    ck_assert_uint_gt(clen, 0);

    for (int iter = 0; iter < 3000; iter++) {
        size_t in_len = rng_next(&s) % 600;
        size_t out_len = rng_next(&s) % 5000;
        uint8_t *in = xmalloc(in_len);
        uint8_t *out = xmalloc(out_len);
        if (iter % 2 == 0) {
            fill_random(in, in_len, rng_next(&s));
        } else {
            /* Mutate a prefix of the valid stream. */
            if (in_len > clen)
                in_len = clen;
            memcpy(in, comp, in_len);
            for (int m = 0; m < 3 && in_len > 0; m++)
                in[rng_next(&s) % in_len] = (uint8_t)rng_next(&s);
        }
        size_t used = (size_t)-1;
        enum etl_lz77_status st = etl_lz77_decompress(in, in_len, out, out_len, &used);
        ck_assert(st == ETL_LZ77_OK || st == ETL_LZ77_TRUNCATED ||
                  st == ETL_LZ77_BAD_DISTANCE || st == ETL_LZ77_OVERRUN);
        ck_assert_uint_le(used, in_len);
        free(in);
        free(out);
    }
    free(comp);
    free(data);
}
END_TEST

START_TEST(test_strerror)
{
    ck_assert_str_eq(etl_lz77_strerror(ETL_LZ77_OK), "success");
    ck_assert_ptr_nonnull(etl_lz77_strerror(ETL_LZ77_TRUNCATED));
    ck_assert_ptr_nonnull(etl_lz77_strerror(ETL_LZ77_BAD_DISTANCE));
    ck_assert_ptr_nonnull(etl_lz77_strerror(ETL_LZ77_OVERRUN));
    ck_assert_ptr_nonnull(etl_lz77_strerror((enum etl_lz77_status)42));
}
END_TEST

/* Builds the LZ77 test suite and returns it. */
static Suite *lz77_suite(void)
{
    Suite *s = suite_create("lz77");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, test_literals_only);
    tcase_add_test(tc, test_literals_two_flag_words);
    tcase_add_test(tc, test_short_match);
    tcase_add_test(tc, test_overlapping_match);
    tcase_add_test(tc, test_nibble_low_then_high);
    tcase_add_test(tc, test_nibble_escape_both_halves);
    tcase_add_test(tc, test_byte_escape);
    tcase_add_test(tc, test_u16_escape);
    tcase_add_test(tc, test_u32_escape);
    tcase_add_test(tc, test_long_periodic_match);
    suite_add_tcase(s, tc);

    tc = tcase_create("roundtrip");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_roundtrip_empty);
    tcase_add_test(tc, test_roundtrip_random);
    tcase_add_test(tc, test_roundtrip_repetitive);
    tcase_add_test(tc, test_roundtrip_mixed);
    tcase_add_test(tc, test_roundtrip_all_encodings);
    tcase_add_test(tc, test_compress_small_capacity);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_truncated_prefixes);
    tcase_add_test(tc, test_bad_distance);
    tcase_add_test(tc, test_overrun);
    tcase_add_test(tc, test_out_len_zero);
    tcase_add_test(tc, test_garbage_input);
    tcase_add_test(tc, test_strerror);
    suite_add_tcase(s, tc);
    return s;
}

/* Runs the suite; returns 0 when every test passed, 1 otherwise. */
int main(void)
{
    return unit_run(lz77_suite());
}
