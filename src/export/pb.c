/*
 * pb.c - the growable buffer of the protocol buffers writer (pb.h).
 */
#include "export/pb.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

uint8_t *pb_buf_room(struct pb_buf *b, size_t n)
{
    if (n > SIZE_MAX - b->len || !etl_grow(&b->p, &b->cap, b->len + n, 1, 4096))
        return NULL;
    return b->p + b->len;
}

bool pb_buf_bytes_field(struct pb_buf *b, uint32_t field, const void *s, size_t n)
{
    uint8_t *o = pb_buf_room(b, 2 * PB_VARINT_MAX + n);
    if (!o)
        return false;
    size_t k = pb_put_len_header(o, field, n);
    if (n)
        memcpy(o + k, s, n);
    b->len += k + n;
    return true;
}

bool pb_buf_varint_field(struct pb_buf *b, uint32_t field, uint64_t v)
{
    uint8_t *o = pb_buf_room(b, 2 * PB_VARINT_MAX);
    if (!o)
        return false;
    b->len += pb_put_varint_field(o, field, v);
    return true;
}

void pb_buf_free(struct pb_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}
