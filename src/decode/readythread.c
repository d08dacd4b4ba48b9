/*
 * readythread.c - the ReadyThread payload (doc/format.md §16): TThreadId
 * u32, AdjustReason s8, AdjustIncrement s8, Flag s8, Reserved s8.
 */
#include "decode/readythread.h"

#include <string.h>

#define READY_SIZE 8

bool etl_decode_ready(struct etl_cursor *c, struct etl_ready *r)
{
    memset(r, 0, sizeof *r);
    if (etl_cur_left(c) < READY_SIZE)
        return false;
    r->tid = etl_cur_u32(c);
    r->adjust_reason = (int8_t)etl_cur_u8(c);
    r->adjust_increment = (int8_t)etl_cur_u8(c);
    r->flag = etl_cur_u8(c);
    return true;
}
