/*
 * Plain LZ77 decompressor for compressed ETL buffers.
 *
 * Format source: Microsoft [MS-XCA] "Plain LZ77" (COMPRESSION_FORMAT_XPRESS),
 * as summarised in doc/format.md §10 ("Compressed ETL
 * files"). The stream is a sequence of 32-bit little-endian flag words, each
 * governing the next 32 items, most significant bit first: a 0 bit is one
 * literal byte, a 1 bit is a 16-bit little-endian match word (distance =
 * (word >> 3) + 1, length code = word & 7) optionally followed by length
 * extension bytes (shared half byte, one byte, u16, u32).
 *
 * Every read is bounds-checked against in_len and every write against out_len,
 * whatever the input; decoding stops as soon as out_len bytes are produced.
 */
#include "lz77.h"

#include <limits.h>
#include <string.h>

/* Reads a 16-bit little-endian value from p and returns it. */
static unsigned etl_lz77_rd16(const uint8_t *p)
{
    return (unsigned)p[0] | ((unsigned)p[1] << 8);
}

/* Reads a 32-bit little-endian value from p and returns it. */
static uint32_t etl_lz77_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
           ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Returns the number of leading zero bits of a non-zero 32-bit value. */
static unsigned etl_lz77_clz32(uint32_t x)
{
#if (defined(__GNUC__) || defined(__clang__)) && UINT_MAX == 0xFFFFFFFFu
    return (unsigned)__builtin_clz(x);
#else
    unsigned n = 0;
    while ((x & 0x80000000u) == 0) {
        x <<= 1;
        n++;
    }
    return n;
#endif
}

/* Copies an n-byte match from dist bytes back in out to out + op, where the
 * caller has checked 1 <= dist <= op and n <= out_len - op; returns nothing. */
static void etl_lz77_copy_match(uint8_t *out, size_t op, size_t out_len,
                                size_t dist, size_t n)
{
    uint8_t *d = out + op;
    const uint8_t *s = d - dist;

    if (dist >= n) {
        /* Source and destination do not overlap. Short matches far enough
         * back use one fixed-size copy that may write a few bytes past the
         * match (still inside out); later output overwrites them. */
        if (n <= 16 && dist >= 16 && out_len - op >= 16)
            memcpy(d, s, 16);
        else
            memcpy(d, s, n);
    } else if (dist == 1) {
        /* Run of a single byte. */
        memset(d, *s, n);
    } else if (n < 32) {
        /* Short overlapping match: plain byte loop. */
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else {
        /* Long overlapping match: [s, d + done) is periodic with period dist
         * while done is a multiple of dist, so copy from s in chunks of
         * doubling size, each chunk ending where its destination begins. */
        size_t done = 0;
        while (done < n) {
            size_t gap = dist + done;
            size_t chunk = n - done < gap ? n - done : gap;
            memcpy(d + done, s, chunk);
            done += chunk;
        }
    }
}

/* Decompresses in[0..in_len) into exactly out_len bytes of out; returns
 * ETL_LZ77_OK or the first error met (details in lz77.h). */
enum etl_lz77_status etl_lz77_decompress(const uint8_t *in, size_t in_len,
                                         uint8_t *out, size_t out_len,
                                         size_t *in_used)
{
    return etl_lz77_decompress_made(in, in_len, out, out_len, in_used, NULL);
}

enum etl_lz77_status etl_lz77_decompress_made(const uint8_t *in, size_t in_len,
                                              uint8_t *out, size_t out_len,
                                              size_t *in_used, size_t *out_made)
{
    size_t ip = 0;           /* input position */
    size_t op = 0;           /* output position */
    size_t stop = 0;         /* input offset reported on failure */
    uint32_t flags = 0;      /* pending flag bits, the next one in bit 31 */
    unsigned nflags = 0;     /* number of pending flag bits */
    unsigned half = 0;       /* saved high nibble of the shared half byte */
    int have_half = 0;       /* whether half holds an unused nibble */
    enum etl_lz77_status st = ETL_LZ77_OK;

    while (op < out_len) {
        if (nflags == 0) {
            if (in_len - ip < 4) {
                stop = ip;
                st = ETL_LZ77_TRUNCATED;
                break;
            }
            flags = etl_lz77_rd32(in + ip);
            ip += 4;
            nflags = 32;
        }

        /* A run of 0 flag bits is a run of literal bytes. While flags is
         * non-zero its leading zeros all lie within the nflags pending bits. */
        unsigned run = flags != 0 ? etl_lz77_clz32(flags) : nflags;
        if (run > 0) {
            size_t n = run;
            if (n > out_len - op)
                n = out_len - op;
            if (n > in_len - ip) {
                stop = in_len;
                st = ETL_LZ77_TRUNCATED;
                break;
            }
            if (n <= 16 && in_len - ip >= 16 && out_len - op >= 16)
                memcpy(out + op, in + ip, 16);
            else
                memcpy(out + op, in + ip, n);
            op += n;
            ip += n;
            if (op == out_len)
                break;
            /* Here n == run; run < 32 whenever flags != 0. */
            if (flags != 0)
                flags <<= run;
            nflags -= run;
            if (nflags == 0)
                continue;
        }

        /* The next flag bit is 1: a match. */
        flags <<= 1;
        nflags--;
        stop = ip;
        if (in_len - ip < 2) {
            st = ETL_LZ77_TRUNCATED;
            break;
        }
        unsigned word = etl_lz77_rd16(in + ip);
        ip += 2;
        size_t dist = (size_t)(word >> 3) + 1;
        uint64_t len = word & 7u;
        if (len == 7) {
            unsigned nib;
            if (!have_half) {
                if (in_len - ip < 1) {
                    st = ETL_LZ77_TRUNCATED;
                    break;
                }
                nib = in[ip] & 15u;
                half = (unsigned)in[ip] >> 4;
                have_half = 1;
                ip += 1;
            } else {
                nib = half;
                have_half = 0;
            }
            if (nib == 15) {
                if (in_len - ip < 1) {
                    st = ETL_LZ77_TRUNCATED;
                    break;
                }
                unsigned b = in[ip];
                ip += 1;
                if (b == 255) {
                    if (in_len - ip < 2) {
                        st = ETL_LZ77_TRUNCATED;
                        break;
                    }
                    uint32_t v = etl_lz77_rd16(in + ip);
                    ip += 2;
                    if (v == 0) {
                        if (in_len - ip < 4) {
                            st = ETL_LZ77_TRUNCATED;
                            break;
                        }
                        v = etl_lz77_rd32(in + ip);
                        ip += 4;
                    }
                    len = (uint64_t)v + 3;
                } else {
                    len = (uint64_t)b + 25;
                }
            } else {
                len = (uint64_t)nib + 10;
            }
        } else {
            len += 3;
        }

        if (dist > op) {
            st = ETL_LZ77_BAD_DISTANCE;
            break;
        }
        if (len > (uint64_t)(out_len - op)) {
            st = ETL_LZ77_OVERRUN;
            break;
        }
        etl_lz77_copy_match(out, op, out_len, dist, (size_t)len);
        op += (size_t)len;
    }

    if (in_used != NULL)
        *in_used = st == ETL_LZ77_OK ? ip : stop;
    if (out_made != NULL)
        *out_made = op;
    return st;
}

/* Returns a short static English description of a status code. */
const char *etl_lz77_strerror(enum etl_lz77_status st)
{
    switch (st) {
    case ETL_LZ77_OK:
        return "success";
    case ETL_LZ77_TRUNCATED:
        return "compressed data truncated";
    case ETL_LZ77_BAD_DISTANCE:
        return "match distance before start of output";
    case ETL_LZ77_OVERRUN:
        return "match runs past end of output";
    }
    return "unknown LZ77 status";
}
