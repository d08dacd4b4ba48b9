/*
 * pb.h - the protocol buffers wire format, written by hand: varints, zigzag
 * integers, field keys and length-delimited fields (Google's "Protocol
 * Buffers Encoding" page). A message nested in another needs its length
 * before its content, so callers compute sizes first (pb_*_size) and then
 * write fields front to back: every length is canonical (shortest varint).
 *
 * The pb_put_* functions write at out, which must have room (a varint takes
 * at most PB_VARINT_MAX bytes), and return the bytes written.
 */
#ifndef ETLDUMP_PB_H
#define ETLDUMP_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Wire types. */
#define PB_WIRE_VARINT 0u
#define PB_WIRE_LEN 2u

/* The longest varint (a 64-bit value). */
#define PB_VARINT_MAX 10u

/* Returns the bytes the varint of v takes. */
static inline size_t pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Writes v as a varint. */
static inline size_t pb_put_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* The zigzag form of a sint32: 0, -1, 1, -2 ... become 0, 1, 2, 3 ... */
static inline uint32_t pb_zigzag32(int32_t v)
{
    return ((uint32_t)v << 1) ^ (v < 0 ? 0xFFFFFFFFu : 0u);
}

/* The varint value of an int32: negative values are sign-extended to 64 bits. */
static inline uint64_t pb_int32_bits(int32_t v)
{
    return (uint64_t)(int64_t)v;
}

/* Returns the bytes of the key of a field. */
static inline size_t pb_key_size(uint32_t field)
{
    return pb_varint_size((uint64_t)field << 3);
}

/* Writes the key of a field (its number and wire type). */
static inline size_t pb_put_key(uint8_t *out, uint32_t field, unsigned wire)
{
    return pb_put_varint(out, ((uint64_t)field << 3) | wire);
}

/* Size and writing of a varint field (uint32, uint64, bool, enums; for an
 * int32 pass pb_int32_bits, for a sint32 pb_zigzag32). */
static inline size_t pb_varint_field_size(uint32_t field, uint64_t v)
{
    return pb_key_size(field) + pb_varint_size(v);
}

static inline size_t pb_put_varint_field(uint8_t *out, uint32_t field, uint64_t v)
{
    size_t n = pb_put_key(out, field, PB_WIRE_VARINT);
    return n + pb_put_varint(out + n, v);
}

/* Size of a length-delimited field of len bytes, key and length included. */
static inline size_t pb_len_field_size(uint32_t field, size_t len)
{
    return pb_key_size(field) + pb_varint_size(len) + len;
}

/* Writes the key and length of a length-delimited field; its len bytes of
 * content follow. */
static inline size_t pb_put_len_header(uint8_t *out, uint32_t field, size_t len)
{
    size_t n = pb_put_key(out, field, PB_WIRE_LEN);
    return n + pb_put_varint(out + n, len);
}

/* A growable byte buffer. */
struct pb_buf {
    uint8_t *p;
    size_t len, cap;
};

/* Makes room for n more bytes; returns where they go, or NULL when memory
 * runs out. */
uint8_t *pb_buf_room(struct pb_buf *b, size_t n);

/* Appends a length-delimited field holding s[0..n) (a string or bytes);
 * false when memory runs out. */
bool pb_buf_bytes_field(struct pb_buf *b, uint32_t field, const void *s, size_t n);

/* Appends a varint field; false when memory runs out. */
bool pb_buf_varint_field(struct pb_buf *b, uint32_t field, uint64_t v);

/* Frees the buffer's memory and empties it. */
void pb_buf_free(struct pb_buf *b);

#endif
