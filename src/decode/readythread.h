/*
 * readythread.h - the ReadyThread event (HookId 0x0532, Thread group opcode
 * 50, doc/format.md §16): a thread made ready to run, logged on the
 * processor where the readying happened.
 */
#ifndef ETLDUMP_READYTHREAD_H
#define ETLDUMP_READYTHREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "cursor.h"
#include "etl/etl.h"

#define ETL_HOOK_READY_THREAD 0x0532u

/* Flag bits (§16). */
enum {
    ETL_READY_FROM_DPC = 0x1,        /* readied from a DPC */
    ETL_READY_STACK_OUT = 0x2,       /* kernel stack not resident */
    ETL_READY_PROCESS_OUT = 0x4,     /* process swapped out */
};

/* One ReadyThread payload (8 bytes, no pointers). */
struct etl_ready {
    uint32_t tid;                    /* TThreadId: the thread made ready */
    int8_t adjust_reason;            /* 0 none, 1 unwait, 2 boost */
    int8_t adjust_increment;
    uint8_t flag;                    /* ETL_READY_* */
};

/* Decodes the payload from c; false if it is shorter than 8 bytes. */
bool etl_decode_ready(struct etl_cursor *c, struct etl_ready *r);

#endif
