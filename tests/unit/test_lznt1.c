/*
 * Unit tests for the LZNT1 decompressor (src/decode/lznt1.c); test_fields
 * tests the WinSAT decoder that uses it. The streams are built here by hand
 * from [MS-XCA] section 2.5; the comments give the arithmetic.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/lznt1.h"
#include "unit.h"

/* "ABC", then a copy token at position 3: 12 length bits (the position
 * less one is under 16), displacement 3 and length 9 give
 * (3 - 1) << 12 | (9 - 3) = 0x2006. Flags 0x08: items 0-2 literals, item 3
 * the copy. Six bytes of data: header 0xB000 | (6 - 1) (compressed,
 * signature 3). Output "ABCABCABCABC". */
static const uint8_t abc[] = { 0x05, 0xB0, 0x08, 'A', 'B', 'C', 0x06, 0x20 };

/* Decompresses in with out_cap bytes of room; returns the status and fills
 * out, *got and *used. */
static enum etl_lznt1_status run(const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                                 size_t *got, size_t *used)
{
    *got = *used = (size_t)-1;
    return etl_lznt1_decompress(in, n, out, cap, got, used);
}

START_TEST(compressed_chunk_with_overlapping_copy)
{
    uint8_t out[64];
    size_t got, used;
    ck_assert_int_eq(run(abc, sizeof abc, out, sizeof out, &got, &used), ETL_LZNT1_OK);
    ck_assert_uint_eq(got, 12);
    ck_assert_uint_eq(used, sizeof abc);
    ck_assert(memcmp(out, "ABCABCABCABC", 12) == 0);
}
END_TEST

START_TEST(uncompressed_chunk_and_end_marker)
{
    /* Header 0x3000 | (5 - 1): five bytes as they are; then a compressed
     * chunk (its copies reach only inside itself); then a zero header ends
     * the stream before the bytes that follow. */
    uint8_t in[64];
    size_t n = 0;
    static const uint8_t raw[] = { 0x04, 0x30, 'h', 'e', 'l', 'l', 'o' };
    memcpy(in + n, raw, sizeof raw);
    n += sizeof raw;
    memcpy(in + n, abc, sizeof abc);
    n += sizeof abc;
    in[n++] = 0;
    in[n++] = 0;
    in[n++] = 0xFF; /* after the end: not read */
    uint8_t out[64];
    size_t got, used;
    ck_assert_int_eq(run(in, n, out, sizeof out, &got, &used), ETL_LZNT1_OK);
    ck_assert_uint_eq(got, 17);
    ck_assert_uint_eq(used, n - 1);
    ck_assert(memcmp(out, "helloABCABCABCABC", 17) == 0);
}
END_TEST

START_TEST(split_moves_with_position)
{
    /* 17 literals, then a copy at position 17: the position less one is 16,
     * so 11 length bits. Displacement 17, length 3: (17 - 1) << 11 | 0 =
     * 0x8000. Read with 12 length bits it would be displacement 9, and the
     * output would end "89a" instead of "012". Flags: 0x00, 0x00, then 0x02
     * ('g' a literal, the copy). 22 bytes of data: header 0xB015. */
    uint8_t in[64];
    size_t n = 0;
    in[n++] = 0x15;
    in[n++] = 0xB0;
    in[n++] = 0x00;
    memcpy(in + n, "01234567", 8);
    n += 8;
    in[n++] = 0x00;
    memcpy(in + n, "89abcdef", 8);
    n += 8;
    in[n++] = 0x02;
    in[n++] = 'g';
    in[n++] = 0x00;
    in[n++] = 0x80;
    uint8_t out[64];
    size_t got, used;
    ck_assert_int_eq(run(in, n, out, sizeof out, &got, &used), ETL_LZNT1_OK);
    ck_assert_uint_eq(got, 20);
    ck_assert(memcmp(out, "0123456789abcdefg012", 20) == 0);
}
END_TEST

START_TEST(damage)
{
    uint8_t out[64], in[16];
    size_t got, used;
    /* The input ends inside the chunk. */
    ck_assert_int_eq(run(abc, sizeof abc - 1, out, sizeof out, &got, &used),
                     ETL_LZNT1_TRUNCATED);
    ck_assert_uint_le(used, sizeof abc - 1);
    /* One byte where a header should be. */
    ck_assert_int_eq(run(abc, 1, out, sizeof out, &got, &used), ETL_LZNT1_TRUNCATED);
    /* No signature 3 in the header. */
    memcpy(in, abc, sizeof abc);
    in[1] = 0x80;
    ck_assert_int_eq(run(in, sizeof abc, out, sizeof out, &got, &used), ETL_LZNT1_BAD_CHUNK);
    ck_assert_uint_eq(got, 0);
    /* Displacement 4 at position 3: (4 - 1) << 12. */
    memcpy(in, abc, sizeof abc);
    in[6] = 0x00;
    in[7] = 0x30;
    ck_assert_int_eq(run(in, sizeof abc, out, sizeof out, &got, &used),
                     ETL_LZNT1_BAD_DISTANCE);
    ck_assert_uint_eq(got, 3);
    ck_assert_uint_eq(used, 6); /* at the token */
    /* A copy first in its chunk. */
    static const uint8_t first[] = { 0x02, 0xB0, 0x01, 0x00, 0x00 };
    ck_assert_int_eq(run(first, sizeof first, out, sizeof out, &got, &used),
                     ETL_LZNT1_BAD_DISTANCE);
    /* Room for 10 of the 12 bytes: the copy would pass it. */
    ck_assert_int_eq(run(abc, sizeof abc, out, 10, &got, &used), ETL_LZNT1_OVERRUN);
    ck_assert_uint_le(got, 10);
    /* No room at all. */
    ck_assert_int_eq(run(abc, sizeof abc, out, 0, &got, &used), ETL_LZNT1_OVERRUN);
    ck_assert_uint_eq(got, 0);
    for (int s = ETL_LZNT1_OK; s <= ETL_LZNT1_OVERRUN; s++)
        ck_assert(*etl_lznt1_strerror((enum etl_lznt1_status)s) != '\0');
}
END_TEST

START_TEST(chunk_holds_4096_bytes)
{
    /* A literal, then copies of displacement 1 and the longest length the
     * split allows: a chunk that would grow past 4096 bytes is refused. */
    uint8_t in[4096], *out = malloc(1 << 16);
    ck_assert_ptr_nonnull(out);
    size_t n = 2, pos = 1;
    in[n++] = 0xFE; /* a literal, then seven copies */
    in[n++] = 'x';
    for (int k = 0; k < 7; k++) {
        unsigned bits = 12;
        for (size_t p = pos - 1; p >= 0x10; p >>= 1)
            bits--;
        unsigned len_max = (1u << bits) - 1u + 3u;
        in[n++] = (uint8_t)(len_max - 3u); /* displacement 1: high bits 0 */
        in[n++] = (uint8_t)((len_max - 3u) >> 8);
        pos += len_max;
    }
    in[0] = (uint8_t)((n - 2 - 1) & 0xFF);
    in[1] = (uint8_t)(0xB0 | (((n - 2 - 1) >> 8) & 0x0F));
    size_t got, used;
    enum etl_lznt1_status st = run(in, n, out, 1 << 16, &got, &used);
    ck_assert_uint_gt(pos, 4096); /* the copies ask for more than a chunk */
    ck_assert_int_eq(st, ETL_LZNT1_OVERRUN);
    ck_assert_uint_le(got, 4096);
    for (size_t i = 0; i < got; i++)
        ck_assert_int_eq(out[i], 'x');
    free(out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lznt1");
    TCase *tc = tcase_create("lznt1");
    tcase_add_test(tc, compressed_chunk_with_overlapping_copy);
    tcase_add_test(tc, uncompressed_chunk_and_end_marker);
    tcase_add_test(tc, split_moves_with_position);
    tcase_add_test(tc, damage);
    tcase_add_test(tc, chunk_holds_4096_bytes);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
