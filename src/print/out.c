/*
 * out.c - buffered output with sticky errors.
 */
#include "print/out.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

bool etl_out_init(struct etl_out *o, int fd, size_t cap)
{
    o->fd = fd;
    o->len = 0;
    o->err = 0;
    o->cap = cap;
    o->buf = malloc(cap);
    return o->buf != NULL;
}

bool etl_out_init_mem(struct etl_out *o, size_t cap)
{
    return etl_out_init(o, -1, cap ? cap : 1);
}

/* Grows a memory output to hold n more bytes; 0, or -1 (ENOMEM kept). */
static int grow(struct etl_out *o, size_t n)
{
    size_t cap = o->cap;
    while (cap - o->len < n) {
        if (cap > SIZE_MAX / 2) {
            o->err = ENOMEM;
            return -1;
        }
        cap *= 2;
    }
    char *b = realloc(o->buf, cap);
    if (!b) {
        o->err = ENOMEM;
        return -1;
    }
    o->buf = b;
    o->cap = cap;
    return 0;
}

/* Writes all of p[0..n) to the descriptor; returns 0 or -1 with o->err set. */
static int write_all(struct etl_out *o, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            o->err = w < 0 ? errno : EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int etl_out_flush(struct etl_out *o)
{
    if (o->err)
        return -1;
    if (o->fd < 0) /* a memory output keeps its bytes */
        return 0;
    int r = write_all(o, o->buf, o->len);
    o->len = 0;
    return r;
}

int etl_out_room(struct etl_out *o, size_t n)
{
    if (o->err)
        return -1;
    if (o->fd < 0)
        return n <= o->cap - o->len ? 0 : grow(o, n);
    if (etl_out_flush(o) != 0)
        return -1;
    /* A reservation past the buffer (a row of long cells, a small buffer)
     * grows it. */
    return n <= o->cap ? 0 : grow(o, n);
}

int etl_out_write_slow(struct etl_out *o, const void *p, size_t n)
{
    if (o->fd < 0) {
        if (grow(o, n) != 0)
            return -1;
        memcpy(o->buf + o->len, p, n);
        o->len += n;
        return 0;
    }
    if (etl_out_flush(o) != 0)
        return -1;
    if (n >= o->cap)
        return write_all(o, p, n);
    memcpy(o->buf, p, n);
    o->len = n;
    return 0;
}

void etl_out_fini(struct etl_out *o)
{
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
}

struct etl_out *etl_out_new(int fd)
{
    struct etl_out *o = malloc(sizeof *o);
    if (o && !etl_out_init(o, fd, ETL_OUT_BUFFER)) {
        free(o);
        o = NULL;
    }
    return o;
}

int etl_out_error(const struct etl_out *o)
{
    return o->err;
}

void etl_out_free(struct etl_out *o)
{
    if (!o)
        return;
    etl_out_fini(o);
    free(o);
}
