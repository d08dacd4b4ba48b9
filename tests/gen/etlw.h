/*
 * etlw: independent test trace writer. Builds Windows ETL files that contain
 * context switches (CSwitch events, HookId 0x0524, and compact context-switch
 * batches, HookId 0x0525) from a list of switches, and reports the switches a
 * correct reader must decode back ("expected rows").
 *
 * Written from the format notes (shared/spec/etl-format.md, sections 1-4, 7, 8,
 * 10, 11) and the seed documents, NOT from etldump's reader: it shares no code
 * with src/. All multi-byte values are stored little-endian by hand.
 *
 * File produced
 *   - Header buffer (BufferType 4 HEADER, SequenceNumber 0, BufferFlag
 *     FLUSH_MARKER, CPU 0, never compressed): logfile header event (SYSTEM
 *     header, HookId 0x0000, TRACE_LOGFILE_HEADER 32- or 64-bit layout + UTF-16LE
 *     logger and log file names), the header extension (SYSTEM header, HookId
 *     0x0005: 8 group masks + kernel event version) and a SYSTEM64 0x0050
 *     (partition info, zeros) record.
 *   - Event buffers, one current buffer per CPU, flushed when full. Each flush
 *     takes the next global SequenceNumber (1, 2, ...). Buffer: 0x48-byte
 *     WMI_BUFFER_HEADER (BufferFlag PROC_INDEX | extra flags, ProcessorIndex at
 *     +0x28, State 3, BufferType 0, Offset = SavedOffset), 8-aligned events,
 *     0xFF filler up to BufferSize. Fields readers must ignore (+0x08, +0x20,
 *     +0x38) hold plausible junk (fake kernel pointers).
 *     Empty per-CPU buffers are not written, except a BUFFER_LOST-flagged one.
 *     At close the partial buffers are flushed in CPU order with FLUSH_MARKER.
 *   - Compressed (cfg.compress): EVENT_TRACE_COMPRESSED_MODE in LogFileMode,
 *     layout version 2.0; every event buffer has BufferFlag COMPRESSED (0x40),
 *     bytes [0x48, SavedOffset) are Plain-LZ77 compressed (lz77_compress) and
 *     stored after the uncompressed 0x48-byte header; BufferSize = 0x48 +
 *     compressed length, no padding, buffers back to back. The header buffer is
 *     then stored as its valid size rounded up to 0x200 bytes.
 *   - Circular (cfg.circular): LogFileMode FILE_MODE_CIRCULAR (0x2) instead of
 *     SEQUENTIAL (0x1). SequenceNumbers stay as assigned (flush order), but the
 *     event buffers are stored rotated, as in a wrapped ring: file order is
 *     header, then the buffers with sequence numbers k+1..N, then 1..k, where
 *     buffer k is the one that ends at or after 3/8 of the event-buffer bytes
 *     (k >= 1 whenever N >= 2). Nothing is lost: only sorting each CPU's buffers
 *     by SequenceNumber restores the order. (Rotation is done in place at close
 *     with constant memory.)
 *
 * CSwitch event (etlw_add_cswitch): PERFINFO header (Version low byte =
 * cfg.cswitch_version; marker flags PMC count << 8 and PEBS 0x8000; HeaderType
 * 0x10/0x11; Size; HookId 0x0524; timestamp), then the PEBS index u64 (if
 * cfg.pebs), then cfg.pmc_count u64 PMC values, then the 0x18-byte
 * WMI_CONTEXTSWAP. Byte 13 = old_wait_mode bit 0 | wait_mode_flags (bits 1-2
 * kept for version 3, bits 1-6 for version 4, none for version 2).
 *
 * Compact batch (etlw_add_compact), per CPU: PERFINFO header (version 2, PMC
 * items if cfg.pmc_count, never PEBS; HookId 0x0525) + PERFINFO_CCSWAP_BUFFER
 * (FirstTimeStamp, TidTable[16], ThreadBasePriority[16]) + packed records:
 *   old_tid == 0                      -> IDLE_SHORT (delta < 2^14) else IDLE
 *   new_wait_time <= 1 && delta < 2^17 && 0 <= old_priority - base <= 7
 *                                      -> LITE (base = ThreadBasePriority of the
 *                                         thread's TidTable slot, i.e. the
 *                                         old_base_priority given the first time
 *                                         the thread entered this batch)
 *   otherwise                         -> FULL
 * OldThreadStateWr = old_wait_reason if old_state == Waiting (5), else
 * old_state + cfg.max_wait_reason.
 * Time: each TimeDelta is relative to the preceding switch of the batch; the
 * first record's delta is relative to FirstTimeStamp. With
 * ETLW_FTS_FIRST_SWITCH (default) FirstTimeStamp = time of the batch's first
 * switch, so the first delta is 0; with ETLW_FTS_PREV_SWITCH FirstTimeStamp =
 * time of the previous switch on that CPU (any encoding; falls back to the
 * first switch's own time when there is none or the gap does not fit 30 bits).
 * Either way switch time = FirstTimeStamp + sum of the deltas so far.
 * A batch is closed (written as one event) when:
 *   - a non-idle old thread is not in the TidTable and the table already has 16
 *     entries;
 *   - 0x58 + records + the new record would exceed 0x400 bytes;
 *   - the delta to the previous switch of the batch does not fit 30 bits;
 *   - a CSwitch event is added on that CPU (mixed encodings: the batch goes to
 *     the stream before the CSwitch event);
 *   - etlw_close().
 * The switch that triggered the close starts the next batch. The batch event's
 * timestamp is max(time of its last switch, last timestamp already written on
 * that CPU), so each CPU's event stream never goes back in time.
 *
 * Expected rows (cfg.expect_cb; see struct etlw_expect)
 *   CSwitch: every field, new_tid as given.
 *   Compact: cpu, timestamp, old_tid always. IDLE forms carry nothing else.
 *   LITE: old_priority (= base + inc), old_state, and old_wait_reason only when
 *   the state is Waiting; new_wait_time is not carried. FULL: as LITE plus
 *   new_wait_time. Never new_priority, old_wait_mode, ideal_cpu, prev_cstate,
 *   new_priority_decrement, old_remaining_quantum.
 *   new_tid of a compact switch = old_tid of the NEXT switch on the same CPU in
 *   that CPU's stream order, whatever encoding that next switch has (a CSwitch
 *   event after a batch resolves the batch's last switch) -- except:
 *     * the last switch on a CPU: new_tid unknown (empty);
 *     * lost buffer: when the next switch's record lies in a later buffer of
 *       that CPU and a buffer flagged BUFFER_LOST (0x0004) starts in between
 *       (including the case where the next record is in the flagged buffer
 *       itself), new_tid is unknown (empty). The hole is taken to be just
 *       before the flagged buffer; the flagged buffer's own events are valid
 *       and are decoded normally. Since a batch is placed in a buffer only
 *       when it closes, the gap is where the reader sees it: records of one
 *       batch are always linked to each other, and a batch that was still
 *       open when etlw_mark_lost() was called lands in the flagged buffer.
 *   The writer's schedule is a chain (each switch's new_tid is the next
 *   switch's old_tid), so the linked value is also the true value.
 *   Rows are delivered in the CSV order: sorted by (timestamp, cpu, per-CPU
 *   order). For that the caller must add switches in globally non-decreasing
 *   timestamp order (across CPUs) when expect_cb is set; this is checked.
 *
 * Build: cc -std=c11 etlw.c lz77_compress.c (+ mktrace.c for the CLI); POSIX
 * I/O (open/pwrite/pread/ftruncate).
 *
 * Ordering rules checked by the writer: on each CPU, every event (switch or
 * misc) must have a timestamp >= the previous one added on that CPU.
 */
#ifndef ETLW_H
#define ETLW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETLW_CSV_HEADER                                                        \
    "cpu,timestamp,old_tid,new_tid,old_priority,new_priority,old_state,"       \
    "old_wait_reason,old_wait_mode,new_wait_time,ideal_cpu,prev_cstate,"       \
    "new_priority_decrement,old_remaining_quantum,source,old_rank"

/* KTHREAD_STATE values used by the writer. */
enum {
    ETLW_STATE_INITIALIZED = 0,
    ETLW_STATE_READY = 1,
    ETLW_STATE_RUNNING = 2,
    ETLW_STATE_STANDBY = 3,
    ETLW_STATE_TERMINATED = 4,
    ETLW_STATE_WAITING = 5,
    ETLW_STATE_TRANSITION = 6,
    ETLW_STATE_DEFERRED_READY = 7,
    ETLW_STATE_GATE_WAIT = 8,
    ETLW_STATE_WAITING_FOR_PROCESS_IN_SWAP = 9
};

/* Where compact batches take FirstTimeStamp from (see above). */
enum etlw_first_ts { ETLW_FTS_FIRST_SWITCH = 0, ETLW_FTS_PREV_SWITCH = 1 };

/* Non-switch events that make the file realistic; a switch decoder must skip
 * them. All take the timestamp given and belong to the CPU given. */
enum etlw_misc {
    ETLW_MISC_EVENT_HEADER,    /* EVENT_HEADER (0xC013/0xC012 by pointer size), provider GUID,
                                  one extended data item, odd-sized user data */
    ETLW_MISC_EVENT_HEADER32,  /* EVENT_HEADER32 (0xC012) whatever the pointer size */
    ETLW_MISC_MESSAGE,         /* MESSAGE_TRACE_HEADER (WPP), odd size */
    ETLW_MISC_SYSTEM_0050,     /* SYSTEM64 HookId 0x0050, 0x30 bytes of zeros */
    ETLW_MISC_COMPACT_SYSTEM,  /* compact SYSTEM header (0x18), HookId 0x0532, 8 data bytes
                                  (the first u32 an odd number with cfg.misc_odd_tid: no thread's TID) */
    ETLW_MISC_FULL_HEADER,     /* EVENT_TRACE_HEADER (0x30), classic provider GUID */
    ETLW_MISC_PERFINFO_SAMPLE, /* PERFINFO, HookId 0x0F2E (profile-like sample) */
    ETLW_MISC_GROUP_MASKS,     /* PERFINFO 0x0020 then 0x0005 with the session's masks */
    ETLW_MISC_RUNDOWN_COMPLETE,/* PERFINFO 0x0008, no data */
    ETLW_MISC_COUNT
};

struct etlw_switch {
    uint16_t cpu;
    int64_t ts;
    uint32_t old_tid, new_tid;           /* TID 0 = idle thread */
    int8_t old_priority, new_priority;
    int8_t old_base_priority;            /* compact: ThreadBasePriority when the
                                            thread enters a batch's TidTable */
    uint8_t old_state;                   /* KTHREAD_STATE */
    uint8_t old_wait_reason;             /* KWAIT_REASON */
    uint8_t old_wait_mode;               /* 0 KernelMode, 1 UserMode */
    uint32_t new_wait_time;
    uint8_t ideal_cpu;
    uint8_t prev_cstate, old_rank;       /* byte 10: PreviousCState when the old thread
                                            is the idle thread, else OldThreadRank */
    int8_t new_priority_decrement;
    int32_t old_remaining_quantum;
    uint32_t old_user, new_user;         /* opaque tags copied to the expected row; a
                                            compact row's new_user is linked like new_tid */
    uint8_t wait_mode_flags;             /* byte-13 flag bits in place (mask 0x7E); the writer
                                            keeps 0x06 for v3, 0x7E for v4, none for v2 */
};

enum { ETLW_SRC_CSWITCH = 1, ETLW_SRC_COMPACT = 2 };

/* Bits of etlw_expect.has: which optional columns are known. */
enum {
    ETLW_HAS_NEW_TID = 1u << 0,
    ETLW_HAS_OLD_PRIORITY = 1u << 1,
    ETLW_HAS_NEW_PRIORITY = 1u << 2,
    ETLW_HAS_OLD_STATE = 1u << 3,
    ETLW_HAS_OLD_WAIT_REASON = 1u << 4,
    ETLW_HAS_OLD_WAIT_MODE = 1u << 5,
    ETLW_HAS_NEW_WAIT_TIME = 1u << 6,
    ETLW_HAS_IDEAL_CPU = 1u << 7,
    ETLW_HAS_PREV_CSTATE = 1u << 8,
    ETLW_HAS_NEW_PRIO_DECREMENT = 1u << 9,
    ETLW_HAS_OLD_REMAINING_QUANTUM = 1u << 10,
    ETLW_HAS_OLD_RANK = 1u << 11
};

struct etlw_expect {
    uint16_t cpu;
    uint8_t source;             /* ETLW_SRC_* */
    int64_t ts;                 /* raw clock ticks */
    uint32_t old_tid, new_tid;
    int8_t old_priority, new_priority;
    uint8_t old_state, old_wait_reason, old_wait_mode; /* wait mode: bit 0 only */
    uint32_t new_wait_time;
    uint8_t ideal_cpu, prev_cstate, old_rank;
    int8_t new_priority_decrement;
    int32_t old_remaining_quantum;
    uint32_t has;               /* ETLW_HAS_* */
    uint32_t old_user, new_user;/* the switch's tags; new_user valid with ETLW_HAS_NEW_TID */
    uint32_t seg;               /* buffer segment of the record (see etlw_cpu_seg) */
};

struct etlw_config {
    unsigned ptr_size;          /* 4 or 8 */
    unsigned ncpus;             /* 1..4096 */
    uint32_t buffer_size;       /* multiple of 8, >= 0x600 */
    uint32_t build;             /* ProviderVersion, e.g. 19041 */
    uint8_t os_major, os_minor; /* e.g. 10, 0 */
    int64_t perf_freq;          /* e.g. 10000000 */
    int64_t start_filetime;     /* StartTime, FILETIME */
    int64_t t0;                 /* timestamp of the logfile header event */
    uint32_t clock_type;        /* ReservedFlags: 1 = QPC */
    uint32_t timer_resolution;  /* 100 ns units, e.g. 156250 */
    uint32_t cpu_speed_mhz;     /* e.g. 3000 */
    unsigned cswitch_version;   /* 2, 3 or 4 */
    unsigned max_wait_reason;   /* compact OldThreadStateWr bias, 1..54 */
    unsigned pmc_count;         /* 0..7 PMC u64 items on every PERFINFO event */
    bool pebs;                  /* PEBS index item on 0x0524 events */
    bool circular;
    bool compress;
    uint64_t hole_buffer;       /* 1-based: the event buffer written that many-th has
                                 * 80 bytes zeroed in the middle of its events, before
                                 * compression (damaged records); 0 none */
    bool uses_compact;          /* only for the default group masks */
    uint32_t group_masks[8];    /* all zero -> Masks[1] = 0x4 | (uses_compact ? 0x100 : 0) */
    uint32_t kernel_event_version; /* 0x0005 Version field, e.g. 80 */
    uint16_t logger_id;         /* ClientContext.LoggerId, e.g. 20 */
    enum etlw_first_ts first_ts;
    bool misc_odd_tid;          /* ETLW_MISC_COMPACT_SYSTEM names no real TID (with ReadyThreads) */
    const char *logger_name;    /* ASCII; NULL -> "NT Kernel Logger" */
    const char *log_file_name;  /* ASCII; NULL -> "C:\\etlw\\trace.etl" */
    /* Expected rows, in CSV order. NULL: no bookkeeping at all (fast). */
    void (*expect_cb)(void *ctx, const struct etlw_expect *row);
    void *expect_ctx;
};

struct etlw_stats {
    uint64_t buffers;           /* event buffers written (header buffer excluded) */
    uint64_t file_bytes;
    uint64_t cswitch_events;
    uint64_t compact_batches;
    uint64_t compact_records[4];/* by DataType: IDLE_SHORT, IDLE, LITE, FULL */
    uint64_t misc_events;
    uint64_t lost_buffers;
};

struct etlw;

/* Fills cfg with defaults (64-bit, 4 CPUs, 8 KiB buffers, build 19041, QPC
 * 10 MHz, CSwitch v4, bias 0x27, ...). */
void etlw_config_defaults(struct etlw_config *cfg);

/* Default MaximumWaitReason bias for a build: 0x27 up to 19041, else 0x2A. */
unsigned etlw_default_max_wait_reason(uint32_t build);

/* Creates the file. NULL on error, with a message in err. */
struct etlw *etlw_open(const char *path, const struct etlw_config *cfg, char *err, size_t errcap);

/* Each returns 0, or -1 with etlw_error() set (the writer stays usable only
 * for etlw_close). */
int etlw_add_cswitch(struct etlw *w, const struct etlw_switch *sw);
int etlw_add_compact(struct etlw *w, const struct etlw_switch *sw);
int etlw_add_misc(struct etlw *w, unsigned cpu, int64_t ts, enum etlw_misc kind, uint32_t salt);

/* Flushes the CPU's current buffer (if it holds events) and flags the next one
 * BUFFER_LOST (0x0004); that buffer is written even if it stays empty.
 * The logfile header's BuffersLost counts these. See "lost buffer" above. */
int etlw_mark_lost(struct etlw *w, unsigned cpu);

/* Kernel event with a SYSTEM (0x20 bytes) or PERFINFO (0x10 bytes + the
 * session's PMC items) header of the session's pointer size, HookId hook,
 * the version given, and data[0..len) as its payload. SYSTEM headers carry
 * tid and pid. Used for the Process and Thread events of etlw_pt.h. */
enum etlw_hdr { ETLW_HDR_SYSTEM, ETLW_HDR_PERFINFO };
int etlw_add_raw(struct etlw *w, unsigned cpu, int64_t ts, enum etlw_hdr hdr, uint16_t hook,
                 unsigned version, uint32_t tid, uint32_t pid, const uint8_t *data, uint32_t len);

/* The buffer segment the next event added on cpu lands in: 0, and one more
 * after each etlw_mark_lost of that CPU (a batch still open then lands in
 * the later segment). A reader sees a known gap between two segments. */
uint32_t etlw_cpu_seg(const struct etlw *w, unsigned cpu);

/* The configuration the writer runs with. */
const struct etlw_config *etlw_get_config(const struct etlw *w);

const char *etlw_error(const struct etlw *w);
void etlw_get_stats(const struct etlw *w, struct etlw_stats *st);

/* Closes every batch, flushes, delivers the remaining expected rows, patches
 * the header (BuffersWritten, EndTime, BuffersLost), rotates a circular file,
 * stores the final statistics in *st (if st), frees w. Returns 0, or -1 with a
 * message in err. */
int etlw_close(struct etlw *w, struct etlw_stats *st, char *err, size_t errcap);

/* Formats one expected row as a CSV line (no newline), returns its length
 * (truncated to cap-1 like snprintf). Names per the format notes, section 9;
 * values without a name are printed in decimal. */
size_t etlw_format_expect(const struct etlw_expect *row, char *buf, size_t cap);
const char *etlw_state_name(unsigned state);      /* NULL if unknown */
const char *etlw_wait_reason_name(unsigned wr);   /* NULL if unknown */

#endif /* ETLW_H */
