/*
 * out.h - a buffered output stream over a file descriptor that remembers the
 * first write error, so printers can write freely and callers check once.
 * An output without a descriptor (etl_out_init_mem) keeps everything in its
 * buffer, which grows: rows formatted ahead of being written (pipeline.h).
 */
#ifndef ETLDUMP_OUT_H
#define ETLDUMP_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "etldump.h"

/* The buffer etl_out_new gives an output. */
#define ETL_OUT_BUFFER (1u << 16)

struct etl_out {
    int fd;              /* -1: a memory output */
    char *buf;
    size_t len, cap;
    int err;             /* errno of the first failed write, 0 if none */
};

/* Sets up o to write to fd with a buffer of cap bytes; false when out of memory. */
bool etl_out_init(struct etl_out *o, int fd, size_t cap);

/* Sets up o as a memory output, its buffer cap bytes to start with; false
 * when out of memory. Its bytes stay in buf[0..len) until etl_out_reset. */
bool etl_out_init_mem(struct etl_out *o, size_t cap);

/* Empties a memory output (keeps its buffer and any error). */
static inline void etl_out_reset(struct etl_out *o)
{
    o->len = 0;
}

/* Makes room for n more bytes: flushes an output to a descriptor (and grows
 * its buffer when n is more than it holds), grows a memory output. 0, or -1
 * with o->err set. */
int etl_out_room(struct etl_out *o, size_t n);

/* Writes the buffered bytes to the descriptor; returns 0 or -1 (o->err set). */
int etl_out_flush(struct etl_out *o);

/* Frees the buffer (does not flush, does not close the descriptor). */
void etl_out_fini(struct etl_out *o);

/* Slow path of etl_out_write: flushes and writes large blocks directly. */
int etl_out_write_slow(struct etl_out *o, const void *p, size_t n);

/* Appends n bytes; returns 0 or -1 once a write has failed. */
static inline int etl_out_write(struct etl_out *o, const void *p, size_t n)
{
    if (o->err)
        return -1;
    if (n <= o->cap - o->len) {
        memcpy(o->buf + o->len, p, n);
        o->len += n;
        return 0;
    }
    return etl_out_write_slow(o, p, n);
}

/* Returns room for n bytes at the end of the buffered output, flushing or
 * growing first if needed; NULL once a write has failed. The caller then
 * reports what it wrote with etl_out_advance. */
static inline char *etl_out_space(struct etl_out *o, size_t n)
{
    if (o->err)
        return NULL;
    if (n > o->cap - o->len && etl_out_room(o, n) != 0)
        return NULL;
    return o->buf + o->len;
}

/* Accounts for n bytes written at etl_out_space's pointer. */
static inline void etl_out_advance(struct etl_out *o, size_t n)
{
    o->len += n;
}

/* Copies n bytes from s to d (which do not overlap), inline up to 16: two
 * moves of a power of two that may overlap, where a call to memcpy would
 * cost more than the copy. */
static inline void etl_copy_small(char *d, const char *s, size_t n)
{
    if (n >= 8) {
        if (n > 16) {
            memcpy(d, s, n);
            return;
        }
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

/* Appends a NUL-terminated string. */
static inline int etl_out_puts(struct etl_out *o, const char *s)
{
    return etl_out_write(o, s, strlen(s));
}

/* Appends one byte. */
static inline int etl_out_putc(struct etl_out *o, char c)
{
    if (o->len < o->cap && !o->err) {
        o->buf[o->len++] = c;
        return 0;
    }
    return etl_out_write(o, &c, 1);
}

#endif
