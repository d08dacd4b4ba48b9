/*
 * cswitch.c - context switches.
 *
 * CSwitch (HookId 0x0524): WMI_CONTEXTSWAP, 0x18 bytes (0x10 in version 1),
 * doc/format.md §7.
 * Compact batch (HookId 0x0525): PERFINFO_CCSWAP_BUFFER (0x58 bytes:
 * FirstTimeStamp, TidTable[16], ThreadBasePriority[16]) followed by packed
 * records of 2, 4 or 8 bytes chosen by the 2-bit DataType, §8.1.
 * Expansion: the new thread of a compact switch is the old thread of the next
 * switch on the same CPU in that CPU's event order (§8.3), never linked
 * across a known gap in the CPU's stream.
 */
#include "decode/cswitch.h"

#include <string.h>

#include "cursor.h"

/* WMI_CONTEXTSWAP (§7), read in order: NewThreadId u32 (0x00), OldThreadId
 * u32 (0x04), NewThreadPriority s8 (0x08), OldThreadPriority s8 (0x09),
 * PreviousCState / OldThreadRank u8 (0x0A), NewThreadPriorityDecrement s8
 * (0x0B), OldThreadWaitReason u8 (0x0C), OldThreadWaitMode u8 (0x0D, bit 0;
 * bits 1-7 flags), OldThreadState u8 (0x0E), OldThreadWaitIdealProcessor u8
 * (0x0F), NewThreadWaitTime u32 (0x10), OldThreadRemainingQuantum s32 (0x14). */
#define CS_SIZE_V1 ETL_CSWITCH_MIN
#define CS_SIZE 0x18

/* PERFINFO_CCSWAP_BUFFER (§8.1): FirstTimeStamp u64, TidTable[16] u32,
 * ThreadBasePriority[16] s8, then the packed records. */
#define CC_HEADER 0x58
#define CC_SLOTS 16

/* KTHREAD_STATE Waiting and the highest state (format.md §8.4, §9.2). */
#define STATE_WAITING 5
#define STATE_MAX 9

void etl_decode_cswitch_bytes(const uint8_t *d, size_t n, unsigned version, int64_t ts,
                              uint16_t cpu, struct etl_switch *sw)
{
    memset(sw, 0, sizeof *sw);
    sw->ts = ts;
    sw->cpu = cpu;
    sw->source = ETL_SW_CSWITCH;
    sw->form = ETL_CCSWAP_NONE;
    sw->new_tid = etl_le32(d);
    sw->old_tid = etl_le32(d + 4);
    sw->new_priority = (int8_t)d[8];
    sw->old_priority = (int8_t)d[9];
    uint8_t cstate_rank = d[10];
    sw->old_wait_reason = d[12];
    sw->old_wait_mode = d[13] & 1;
    sw->flags = (uint8_t)(d[13] >> 1);
    sw->old_state = d[14];
    sw->ideal_cpu = d[15];
    uint32_t has = SW_OLD_TID | SW_NEW_TID | SW_OLD_PRIORITY | SW_NEW_PRIORITY | SW_OLD_STATE |
                   SW_OLD_WAIT_REASON | SW_OLD_WAIT_MODE | SW_IDEAL_CPU;
    /* Byte 10 is a union (format.md §7.3): PreviousCState when the idle
     * thread is leaving, else OldThreadRank. */
    if (sw->old_tid == 0) {
        sw->prev_cstate = cstate_rank;
        has |= SW_PREV_CSTATE;
    } else {
        sw->old_rank = cstate_rank;
        has |= SW_OLD_RANK;
    }
    if ((version & 0xFF) >= 2) {
        sw->new_priority_decrement = (int8_t)d[11];
        has |= SW_NEW_PRI_DECREMENT;
    }
    if ((version & 0xFF) >= 3)
        has |= SW_FLAGS;
    if (n >= CS_SIZE) {
        sw->new_wait_time = etl_le32(d + 16);
        sw->old_remaining_quantum = (int32_t)etl_le32(d + 20);
        has |= SW_NEW_WAIT_TIME | SW_OLD_QUANTUM;
    }
    sw->has = has;
}

bool etl_decode_cswitch(const struct etl_event *ev, struct etl_cursor *c,
                        struct etl_switch *sw)
{
    size_t n = etl_cur_left(c);
    if (n < CS_SIZE_V1) {
        memset(sw, 0, sizeof *sw);
        return false;
    }
    etl_decode_cswitch_bytes(etl_cur_here(c), n, ev->version, ev->ts, ev->cpu, sw);
    etl_cur_skip(c, n >= CS_SIZE ? CS_SIZE : CS_SIZE_V1);
    return true;
}

unsigned etl_max_wait_reason_for_build(uint32_t build)
{
    /* KWAIT_REASON grew with Windows (format.md §8.4): 0x1B in XP, 0x25 in Vista
     * and 7, 0x27 in Windows 10 up to 2004-22H2 (19041-19045, one kernel),
     * 0x2A in Windows 11. Builds between the documented points are inferred. */
    if (build < 6000)
        return 0x1B;
    if (build < 9200)
        return 0x25;
    if (build < 9600)
        return 0x26;
    if (build <= 19045)
        return 0x27;
    return 0x2A;
}

/* Returns how many of the values decode to impossible states with bias b:
 * Waiting (always encoded as a wait reason) or beyond the highest state. */
static uint64_t impossible(const uint64_t hist[64], unsigned b)
{
    uint64_t n = 0;
    for (unsigned v = b; v < 64; v++)
        if (v - b == STATE_WAITING || v - b > STATE_MAX)
            n += hist[v];
    return n;
}

/* The MaximumWaitReason values documented for some Windows kernel
 * (format.md §8.4). */
static const unsigned documented[] = { 0x1B, 0x25, 0x26, 0x27, 0x28, 0x2A, 0x2B };

unsigned etl_max_wait_reason_possible(const uint64_t hist[64], unsigned bias)
{
    unsigned best = 0;
    uint64_t best_ready = 0;
    for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++) {
        unsigned b = documented[i];
        if (b != bias && impossible(hist, b) == 0 && (!best || hist[b + 1] > best_ready)) {
            best = b;
            best_ready = hist[b + 1];
        }
    }
    return best;
}

unsigned etl_max_wait_reason_fit(const uint64_t hist[64], unsigned bias, uint64_t *ready)
{
    /* A thread switched out while runnable is mostly Ready (state 1),
     * encoded as bias + 1. */
    uint64_t total = 0;
    for (unsigned v = 0; v < 64; v++)
        total += hist[v];
    uint64_t have = bias + 1 < 64 ? hist[bias + 1] : 0;
    unsigned best = 0;
    uint64_t best_ready = 0;
    for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++) {
        unsigned b = documented[i];
        if (b == bias || impossible(hist, b) != 0 || hist[b + 1] <= best_ready)
            continue;
        best = b;
        best_ready = hist[b + 1];
    }
    *ready = best_ready;
    if (!best || best_ready < 16 || best_ready < total / 20 || best_ready <= 4 * have)
        return 0;
    return best;
}

/* Sets the old thread's state and wait reason from OldThreadStateWr: a wait
 * reason below the bias (the thread was Waiting), else state + bias. Returns
 * false if the state is not plausible. */
static inline bool set_state_wr(struct etl_switch *sw, unsigned swr, unsigned bias)
{
    if (swr < bias) {
        sw->old_state = STATE_WAITING;
        sw->old_wait_reason = (uint8_t)swr;
        sw->has |= SW_OLD_STATE | SW_OLD_WAIT_REASON;
        return true;
    }
    sw->old_state = (uint8_t)(swr - bias);
    sw->has |= SW_OLD_STATE;
    return sw->old_state <= STATE_MAX && sw->old_state != STATE_WAITING;
}

size_t etl_decode_batch(const struct etl_event *ev, struct etl_cursor *c, unsigned bias,
                        struct etl_switch *out, size_t cap,
                        etl_batch_diag_fn diag, void *ctx,
                        uint64_t *implausible, uint64_t *state_wr)
{
    if (etl_cur_left(c) < CC_HEADER) {
        diag(ctx, ev, 0, "compact batch shorter than its 0x58-byte header");
        return 0;
    }
    /* Unsigned: a hostile FirstTimeStamp plus deltas wraps instead of overflowing. */
    uint64_t ts = etl_cur_u64(c);
    uint32_t tids[CC_SLOTS];
    int8_t base[CC_SLOTS];
    for (unsigned i = 0; i < CC_SLOTS; i++)
        tids[i] = etl_cur_u32(c);
    for (unsigned i = 0; i < CC_SLOTS; i++)
        base[i] = (int8_t)etl_cur_u8(c);
    /* The records, each checked to lie within the batch once, read by
     * pointer; pos is where the next one starts. */
    static const uint8_t rec_size[4] = { 2, 4, 4, 8 };
    const uint8_t *b = c->base;
    size_t pos = c->pos, end = c->len, n = 0;
    const uint16_t cpu = ev->cpu;
    while (pos < end && n < cap) {
        const uint8_t *rp = b + pos;
        unsigned type = rp[0] & 3u;
        size_t need = rec_size[type];
        if (need > end - pos) {
            diag(ctx, ev, pos, "compact switch record runs past the end of its batch");
            break;
        }
        struct etl_switch *sw = &out[n++];
        memset(sw, 0, sizeof *sw);
        sw->cpu = cpu;
        sw->source = ETL_SW_COMPACT;
        sw->form = (uint8_t)type;
        if (type < ETL_CCSWAP_LITE) {
            /* IDLE_SHORT: TimeDelta:14 in 2 bytes; IDLE: TimeDelta:30 */
            ts += (type == ETL_CCSWAP_IDLE_SHORT ? etl_le16(rp) : etl_le32(rp)) >> 2;
            sw->ts = (int64_t)ts;
            sw->has = SW_OLD_TID; /* the idle thread, TID 0 */
            pos += need;
            continue;
        }
        uint32_t w = etl_le32(rp);
        unsigned idx, swr;
        if (type == ETL_CCSWAP_LITE) {
            /* OldThreadIdIndex:4, OldThreadPriInc:3, OldThreadStateWr:6, TimeDelta:17 */
            idx = (w >> 2) & 0xF;
            swr = (w >> 9) & 0x3F;
            ts += w >> 15;
            sw->old_priority = (int8_t)(base[idx] + (int)((w >> 6) & 0x7));
            sw->has = SW_OLD_PRIORITY;
        } else { /* FULL: TimeDelta:30 | OldThreadIdIndex:4, OldThreadStateWr:6,
                    OldThreadPriority:5, NewThreadWaitTime:17 */
            uint32_t w1 = etl_le32(rp + 4);
            ts += w >> 2;
            idx = w1 & 0xF;
            swr = (w1 >> 4) & 0x3F;
            sw->old_priority = (int8_t)((w1 >> 10) & 0x1F);
            sw->new_wait_time = w1 >> 15;
            sw->has = SW_OLD_PRIORITY | SW_NEW_WAIT_TIME;
        }
        sw->ts = (int64_t)ts;
        sw->old_tid = tids[idx];
        if (sw->old_tid != 0)
            sw->has |= SW_OLD_TID;
        else /* the idle thread never enters the table: an empty slot */
            diag(ctx, ev, pos, "compact switch names an empty TidTable slot");
        if (state_wr) /* the state and reason as recorded: §8.4 */
            state_wr[swr]++;
        if (!set_state_wr(sw, swr, bias)) {
            if (*implausible == 0)
                diag(ctx, ev, pos,
                     "compact switch decodes to an impossible thread state "
                     "(check --max-wait-reason)");
            (*implausible)++;
        }
        pos += need;
    }
    c->pos = pos;
    return n;
}
