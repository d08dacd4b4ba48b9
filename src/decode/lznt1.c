/*
 * LZNT1 decompressor (see lznt1.h).
 *
 * Format source: Microsoft [MS-XCA] section 2.5. The stream is a sequence
 * of chunks, each holding at most 4096 bytes of output. A chunk starts with
 * a 16-bit little-endian header: its low 12 bits are the size of the data
 * that follows less one, bits 12-14 the signature 3, bit 15 set when the
 * data is compressed (else it is copied as it is); a header of zero ends the
 * stream. Compressed data is a sequence of groups: a flag byte, then eight
 * items, least significant flag bit first, the group cut short where the
 * chunk ends. A 0 bit is one literal byte; a 1 bit a 16-bit little-endian
 * copy token whose high bits hold the displacement less one and low bits
 * the length less three. The split moves with the position in the chunk's
 * output: 12 length bits up to position 16, one fewer each time the
 * position passes the next power of two, so that the displacement can
 * reach back to the chunk's start. Copies reach only within their chunk and
 * may overlap what they write.
 *
 * Every read is checked against in_len, every write against out_cap and
 * the chunk's 4096 bytes, whatever the input.
 */
#include "decode/lznt1.h"

#include <string.h>

/* Output bytes a chunk holds at most. */
#define CHUNK 4096u

/* Decompresses one chunk's compressed data d[0..n) to out at *o (out_cap in
 * all). On failure *bad is the offset in d where decoding stopped. */
static enum etl_lznt1_status chunk(const uint8_t *d, size_t n, uint8_t *out, size_t out_cap,
                                   size_t *o, size_t *bad)
{
    size_t start = *o, i = 0;
    while (i < n) {
        unsigned flags = d[i++];
        for (unsigned b = 0; b < 8 && i < n; b++, flags >>= 1) {
            size_t pos = *o - start;
            if (pos >= CHUNK || *o >= out_cap) {
                *bad = i;
                return ETL_LZNT1_OVERRUN;
            }
            if (!(flags & 1u)) {
                out[(*o)++] = d[i++];
                continue;
            }
            if (n - i < 2) {
                *bad = i;
                return ETL_LZNT1_TRUNCATED;
            }
            unsigned token = (unsigned)d[i] | ((unsigned)d[i + 1] << 8);
            if (pos == 0) { /* nothing to copy from yet */
                *bad = i;
                return ETL_LZNT1_BAD_DISTANCE;
            }
            unsigned length_bits = 12;
            for (size_t p = pos - 1; p >= 0x10; p >>= 1)
                length_bits--;
            size_t length = (token & ((1u << length_bits) - 1u)) + 3u;
            size_t distance = (token >> length_bits) + 1u;
            if (distance > pos) {
                *bad = i;
                return ETL_LZNT1_BAD_DISTANCE;
            }
            if (length > CHUNK - pos || length > out_cap - *o) {
                *bad = i;
                return ETL_LZNT1_OVERRUN;
            }
            /* Byte by byte: the copy may overlap its own output. */
            for (size_t k = 0; k < length; k++, (*o)++)
                out[*o] = out[*o - distance];
            i += 2;
        }
    }
    return ETL_LZNT1_OK;
}

enum etl_lznt1_status etl_lznt1_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
                                           size_t out_cap, size_t *out_len, size_t *in_used)
{
    size_t i = 0, o = 0;
    enum etl_lznt1_status st = ETL_LZNT1_OK;
    while (i < in_len) {
        if (in_len - i < 2) {
            st = ETL_LZNT1_TRUNCATED;
            break;
        }
        unsigned h = (unsigned)in[i] | ((unsigned)in[i + 1] << 8);
        if (h == 0) { /* the end of the stream */
            i += 2;
            break;
        }
        if (((h >> 12) & 7u) != 3u) {
            st = ETL_LZNT1_BAD_CHUNK;
            break;
        }
        size_t n = (h & 0xFFFu) + 1u;
        if (n > in_len - i - 2) {
            i += 2;
            st = ETL_LZNT1_TRUNCATED;
            break;
        }
        i += 2;
        if (h & 0x8000u) {
            size_t bad = 0;
            st = chunk(in + i, n, out, out_cap, &o, &bad);
            if (st != ETL_LZNT1_OK) {
                i += bad;
                break;
            }
        } else {
            if (n > out_cap - o) {
                st = ETL_LZNT1_OVERRUN;
                break;
            }
            memcpy(out + o, in + i, n);
            o += n;
        }
        i += n;
    }
    if (out_len)
        *out_len = o;
    if (in_used)
        *in_used = i;
    return st;
}

const char *etl_lznt1_strerror(enum etl_lznt1_status st)
{
    switch (st) {
    case ETL_LZNT1_OK: return "ok";
    case ETL_LZNT1_TRUNCATED: return "compressed data ends inside a chunk";
    case ETL_LZNT1_BAD_CHUNK: return "chunk header without its signature";
    case ETL_LZNT1_BAD_DISTANCE: return "a copy reaches before the start of its chunk";
    case ETL_LZNT1_OVERRUN: return "more output than its chunk or its length allows";
    }
    return "unknown LZNT1 status";
}
