/*
 * Test-only Plain LZ77 compressor: Microsoft [MS-XCA] "Plain LZ77" as used in
 * compressed ETL buffers (etldump format notes, section 10).
 *
 * Greedy matcher with a one-entry-per-bucket hash table over 3-byte prefixes,
 * plus an explicit distance-1 candidate so byte runs always compress. Match
 * distances are 1..8192, lengths 3 and up, so every length encoding can occur:
 * 3..9 in the match word, 10..24 in a shared half byte (low nibble first, high
 * nibble of the same byte for the next such match), 25..279 in an extra byte,
 * up to 65538 in a u16 and beyond that in a u32 (both storing length - 3).
 * The final flag word has its unused bits set to 1, as MS-XCA's compressor does.
 */
#include "lz77_compress.h"

#include <string.h>

#define LZC_HASH_BITS 13
#define LZC_HASH_SIZE ((size_t)1 << LZC_HASH_BITS)
#define LZC_MAX_DIST 8192u
#define LZC_MIN_MATCH 3u
#define LZC_MAX_MATCH ((size_t)0xFFFFFFFFu)
#define LZC_NO_HALF ((size_t)-1)

struct lzc_state {
    uint8_t *buf;       /* output buffer */
    size_t cap;         /* its capacity */
    size_t pos;         /* bytes written so far */
    int full;           /* set once a write did not fit */
    size_t flag_pos;    /* offset of the reserved flag word being filled */
    uint32_t flags;     /* flag bits collected so far, latest in bit 0 */
    unsigned nflags;    /* number of flag bits collected */
    size_t half_pos;    /* offset of the half byte with a free high nibble */
};

/* Appends one byte to the output, or marks the state full; returns nothing. */
static void lzc_put8(struct lzc_state *st, unsigned v)
{
    if (st->full || st->pos >= st->cap) {
        st->full = 1;
        return;
    }
    st->buf[st->pos++] = (uint8_t)(v & 0xFFu);
}

/* Appends a 16-bit little-endian value to the output; returns nothing. */
static void lzc_put16(struct lzc_state *st, unsigned v)
{
    lzc_put8(st, v & 0xFFu);
    lzc_put8(st, (v >> 8) & 0xFFu);
}

/* Appends a 32-bit little-endian value to the output; returns nothing. */
static void lzc_put32(struct lzc_state *st, uint32_t v)
{
    lzc_put16(st, (unsigned)(v & 0xFFFFu));
    lzc_put16(st, (unsigned)(v >> 16));
}

/* Stores a 32-bit little-endian value at an already written offset; returns nothing. */
static void lzc_patch32(struct lzc_state *st, size_t at, uint32_t v)
{
    if (st->full || at + 4 > st->pos)
        return;
    st->buf[at] = (uint8_t)(v & 0xFFu);
    st->buf[at + 1] = (uint8_t)((v >> 8) & 0xFFu);
    st->buf[at + 2] = (uint8_t)((v >> 16) & 0xFFu);
    st->buf[at + 3] = (uint8_t)(v >> 24);
}

/* Records the flag bit of the item just written, flushing a full flag word
 * and reserving the next one; returns nothing. */
static void lzc_flag(struct lzc_state *st, uint32_t bit)
{
    st->flags = (st->flags << 1) | bit;
    st->nflags++;
    if (st->nflags == 32) {
        lzc_patch32(st, st->flag_pos, st->flags);
        st->flag_pos = st->pos;
        lzc_put32(st, 0);
        st->flags = 0;
        st->nflags = 0;
    }
}

/* Writes one match item (distance 1..8192, length >= 3); returns nothing. */
static void lzc_match(struct lzc_state *st, size_t dist, size_t len)
{
    size_t code = len - 3 < 7 ? len - 3 : 7;

    lzc_put16(st, (unsigned)(((dist - 1) << 3) | code));
    if (code == 7) {
        size_t m = len - 10;
        unsigned nib = m < 15 ? (unsigned)m : 15u;
        if (st->half_pos == LZC_NO_HALF) {
            st->half_pos = st->pos;
            lzc_put8(st, nib);
        } else {
            if (!st->full)
                st->buf[st->half_pos] = (uint8_t)(st->buf[st->half_pos] | (nib << 4));
            st->half_pos = LZC_NO_HALF;
        }
        if (m >= 15) {
            if (len - 25 < 255) {
                lzc_put8(st, (unsigned)(len - 25));
            } else {
                lzc_put8(st, 255);
                if (len - 3 <= 0xFFFFu) {
                    lzc_put16(st, (unsigned)(len - 3));
                } else {
                    lzc_put16(st, 0);
                    lzc_put32(st, (uint32_t)(len - 3));
                }
            }
        }
    }
    lzc_flag(st, 1);
}

/* Hashes the 3 bytes at p into a table index and returns it. */
static size_t lzc_hash(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
    return (size_t)((v * 2654435761u) >> (32 - LZC_HASH_BITS));
}

/* Returns how many bytes at in + pos equal those dist bytes earlier, at most max. */
static size_t lzc_match_len(const uint8_t *in, size_t pos, size_t dist, size_t max)
{
    size_t n = 0;
    while (n < max && in[pos + n] == in[pos + n - dist])
        n++;
    return n;
}

/* Compresses in[0..in_len) into out (capacity out_cap); returns the
 * compressed length, or 0 if out_cap is too small. */
size_t lz77_compress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap)
{
    size_t head[LZC_HASH_SIZE]; /* position + 1 of the latest 3-byte prefix, 0 = none */
    struct lzc_state st;
    size_t ip = 0;

    memset(head, 0, sizeof head);
    st.buf = out;
    st.cap = out_cap;
    st.pos = 0;
    st.full = 0;
    st.flag_pos = 0;
    st.flags = 0;
    st.nflags = 0;
    st.half_pos = LZC_NO_HALF;
    lzc_put32(&st, 0);

    while (ip < in_len && !st.full) {
        size_t best_len = 0, best_dist = 0;
        size_t max = in_len - ip;
        if (max > LZC_MAX_MATCH)
            max = LZC_MAX_MATCH;

        if (max >= LZC_MIN_MATCH) {
            size_t h = lzc_hash(in + ip);
            size_t cand = head[h];
            head[h] = ip + 1;
            if (cand != 0 && ip - (cand - 1) <= LZC_MAX_DIST) {
                size_t dist = ip - (cand - 1);
                size_t n = lzc_match_len(in, ip, dist, max);
                if (n >= LZC_MIN_MATCH) {
                    best_len = n;
                    best_dist = dist;
                }
            }
            if (ip >= 1 && best_dist != 1) {
                size_t n = lzc_match_len(in, ip, 1, max);
                if (n >= LZC_MIN_MATCH && n > best_len) {
                    best_len = n;
                    best_dist = 1;
                }
            }
        }

        if (best_len == 0) {
            lzc_put8(&st, in[ip]);
            lzc_flag(&st, 0);
            ip++;
            continue;
        }

        lzc_match(&st, best_dist, best_len);
        /* Index the positions covered by the match (bounded for huge runs). */
        size_t end = ip + best_len;
        size_t from = best_len > 4096 ? end - 4096 : ip + 1;
        for (size_t p = from; p < end && in_len - p >= LZC_MIN_MATCH; p++)
            head[lzc_hash(in + p)] = p + 1;
        ip = end;
    }

    /* Close the last flag word: unused bits are set to 1. */
    uint32_t last;
    if (st.nflags == 0)
        last = 0xFFFFFFFFu;
    else
        last = (st.flags << (32 - st.nflags)) | ((1u << (32 - st.nflags)) - 1u);
    lzc_patch32(&st, st.flag_pos, last);

    return st.full ? 0 : st.pos;
}
