/*
 * cswitch.h - context switches: CSwitch events (HookId 0x0524) and compact
 * batches (HookId 0x0525) decoded into one kind of record, and the per-CPU
 * expansion that gives every compact switch its new thread.
 */
#ifndef ETLDUMP_CSWITCH_H
#define ETLDUMP_CSWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "etl/etl.h"

#define ETL_HOOK_CSWITCH 0x0524u
#define ETL_HOOK_CSWITCH_BATCH 0x0525u

/* Which fields of an etl_switch are carried by its event. */
enum {
    SW_NEW_TID = 1u << 0,
    SW_OLD_PRIORITY = 1u << 1,
    SW_NEW_PRIORITY = 1u << 2,
    SW_OLD_STATE = 1u << 3,
    SW_OLD_WAIT_REASON = 1u << 4,
    SW_OLD_WAIT_MODE = 1u << 5,
    SW_NEW_WAIT_TIME = 1u << 6,
    SW_IDEAL_CPU = 1u << 7,
    SW_PREV_CSTATE = 1u << 8,
    SW_NEW_PRI_DECREMENT = 1u << 9,
    SW_OLD_QUANTUM = 1u << 10,
    SW_OLD_RANK = 1u << 11,
    SW_FLAGS = 1u << 12,
    SW_OLD_TID = 1u << 13,
};

enum etl_switch_source { ETL_SW_CSWITCH, ETL_SW_COMPACT };

/* Compact record forms (PERFINFO_CCSWAP_TYPE, §8.1). */
enum etl_ccswap_form {
    ETL_CCSWAP_IDLE_SHORT = 0,
    ETL_CCSWAP_IDLE = 1,
    ETL_CCSWAP_LITE = 2,
    ETL_CCSWAP_FULL = 3,
    ETL_CCSWAP_NONE = 4,       /* not compact */
};

/* One context switch on a CPU: from old_tid to new_tid at ts. */
struct etl_switch {
    int64_t ts;
    uint32_t old_tid, new_tid;
    uint32_t new_wait_time;
    int32_t old_remaining_quantum;
    uint32_t has;              /* SW_* */
    uint16_t cpu;
    int8_t old_priority, new_priority, new_priority_decrement;
    uint8_t old_state, old_wait_reason, old_wait_mode;
    uint8_t ideal_cpu, prev_cstate, old_rank;
    uint8_t flags;             /* bits 1-7 of byte 13 (newer builds), shifted down */
    uint8_t source;            /* enum etl_switch_source */
    uint8_t form;              /* enum etl_ccswap_form */
};

/* Decodes a CSwitch event's data from c (WMI_CONTEXTSWAP, §7); false if
 * the event is too short. */
bool etl_decode_cswitch(const struct etl_event *ev, struct etl_cursor *c,
                        struct etl_switch *sw);

/* The least data etl_decode_cswitch decodes (WMI_CONTEXTSWAP version 1). */
#define ETL_CSWITCH_MIN 0x10u

/* The same from the n bytes at d (n >= ETL_CSWITCH_MIN) of an event of
 * version `version` at ts on cpu. */
void etl_decode_cswitch_bytes(const uint8_t *d, size_t n, unsigned version, int64_t ts,
                              uint16_t cpu, struct etl_switch *sw);

/* Returns the MaximumWaitReason the kernel of `build` used as the state bias
 * in compact records (§8.4). */
unsigned etl_max_wait_reason_for_build(uint32_t build);

/* Given the counts of each compact OldThreadStateWr value (hist[64]) and the
 * bias in use, returns a documented MaximumWaitReason (§8.4) that explains
 * the values much better, or 0: one under which no value decodes to an
 * impossible state and many more switch-outs decode as Ready (the usual
 * state of a preempted thread) than under the bias in use. *ready receives
 * that many. */
unsigned etl_max_wait_reason_fit(const uint64_t hist[64], unsigned bias, uint64_t *ready);

/* Returns the documented MaximumWaitReason other than bias under which none
 * of the values of hist decodes to an impossible state (of those, the one
 * with the most Ready switch-outs), or 0 when there is none. */
unsigned etl_max_wait_reason_possible(const uint64_t hist[64], unsigned bias);

/* Receives one problem inside a batch at byte offset `at` of the event data. */
typedef void (*etl_batch_diag_fn)(void *ctx, const struct etl_event *ev,
                                  size_t at, const char *msg);

/* Decodes a compact batch (PERFINFO_CCSWAP_BUFFER, §8) from c into out
 * (room for cap records; a batch of n data bytes has at most n/2). new_tid is
 * never set: it is the old thread of the next switch on the CPU. Returns the
 * number of switches; problems go to diag, `at` counted from the start of
 * c. `implausible` counts states that decode to Waiting or beyond 9;
 * state_wr (64 counters, or NULL) counts the OldThreadStateWr values of
 * the LITE and FULL records (§8.4). */
size_t etl_decode_batch(const struct etl_event *ev, struct etl_cursor *c,
                        unsigned max_wait_reason,
                        struct etl_switch *out, size_t cap,
                        etl_batch_diag_fn diag, void *ctx,
                        uint64_t *implausible, uint64_t *state_wr);

#endif
