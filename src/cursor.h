/*
 * cursor.h - a bounds-checked little-endian reader over a byte range.
 *
 * Every read checks `n <= len - pos` before touching memory and never forms a
 * pointer past the range. A failed read sets a sticky error flag and yields
 * zeros, so a decoder may read a whole structure and check `etl_cur_ok()` once.
 */
#ifndef ETLDUMP_CURSOR_H
#define ETLDUMP_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct etl_cursor {
    const uint8_t *base;  /* first byte of the range */
    size_t len;           /* bytes in the range */
    size_t pos;           /* next byte to read */
    bool bad;             /* a read ran past the end */
};

/* Returns a cursor over base[0..len). */
static inline struct etl_cursor etl_cur_make(const uint8_t *base, size_t len)
{
    struct etl_cursor c = { base, len, 0, false };
    return c;
}

/* Returns the number of bytes not yet read. */
static inline size_t etl_cur_left(const struct etl_cursor *c)
{
    return c->len - c->pos;
}

/* Returns true while no read has failed. */
static inline bool etl_cur_ok(const struct etl_cursor *c)
{
    return !c->bad;
}

/* Returns true if n more bytes can be read; otherwise marks the cursor bad. */
static inline bool etl_cur_need(struct etl_cursor *c, size_t n)
{
    if (c->bad || n > c->len - c->pos) {
        c->bad = true;
        return false;
    }
    return true;
}

/* Decodes a little-endian u16 at p (p must have 2 readable bytes). */
static inline uint16_t etl_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)(p[1] << 8));
}

/* Decodes a little-endian u32 at p (p must have 4 readable bytes). */
static inline uint32_t etl_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

/* Decodes a little-endian u64 at p (p must have 8 readable bytes). */
static inline uint64_t etl_le64(const uint8_t *p)
{
    return (uint64_t)etl_le32(p) | ((uint64_t)etl_le32(p + 4) << 32);
}

/* Reads one byte; 0 when past the end. */
static inline uint8_t etl_cur_u8(struct etl_cursor *c)
{
    if (!etl_cur_need(c, 1))
        return 0;
    return c->base[c->pos++];
}

/* Takes the next n bytes: their address, or NULL (the cursor marked bad)
 * when fewer are left. */
static inline const uint8_t *etl_cur_take(struct etl_cursor *c, size_t n)
{
    if (!etl_cur_need(c, n))
        return NULL;
    const uint8_t *p = c->base + c->pos;
    c->pos += n;
    return p;
}

/* Reads a little-endian u16; 0 when past the end. */
static inline uint16_t etl_cur_u16(struct etl_cursor *c)
{
    const uint8_t *p = etl_cur_take(c, 2);
    return p ? etl_le16(p) : 0;
}

/* Reads a little-endian u32; 0 when past the end. */
static inline uint32_t etl_cur_u32(struct etl_cursor *c)
{
    const uint8_t *p = etl_cur_take(c, 4);
    return p ? etl_le32(p) : 0;
}

/* Reads a little-endian u64; 0 when past the end. */
static inline uint64_t etl_cur_u64(struct etl_cursor *c)
{
    const uint8_t *p = etl_cur_take(c, 8);
    return p ? etl_le64(p) : 0;
}

/* Reads a pointer-sized (4 or 8 byte) little-endian value. */
static inline uint64_t etl_cur_ptr(struct etl_cursor *c, unsigned ptr_size)
{
    return ptr_size == 4 ? etl_cur_u32(c) : etl_cur_u64(c);
}

/* Copies n bytes to out (zero-filled when past the end). */
static inline void etl_cur_bytes(struct etl_cursor *c, void *out, size_t n)
{
    const uint8_t *p = etl_cur_take(c, n);
    if (p)
        memcpy(out, p, n);
    else
        memset(out, 0, n);
}

/* Advances by n bytes. */
static inline void etl_cur_skip(struct etl_cursor *c, size_t n)
{
    (void)etl_cur_take(c, n);
}

/* Moves to absolute position pos (marks bad if pos is past the end). */
static inline void etl_cur_seek(struct etl_cursor *c, size_t pos)
{
    if (pos > c->len)
        c->bad = true;
    else
        c->pos = pos;
}

/* Returns a cursor over the next n bytes and advances past them. */
static inline struct etl_cursor etl_cur_sub(struct etl_cursor *c, size_t n)
{
    const uint8_t *p = etl_cur_take(c, n);
    struct etl_cursor s = { p ? p : c->base, p ? n : 0, 0, p == NULL };
    return s;
}

/* Returns a pointer to the unread bytes (valid for etl_cur_left() bytes). */
static inline const uint8_t *etl_cur_here(const struct etl_cursor *c)
{
    return c->base + c->pos;
}

#endif
