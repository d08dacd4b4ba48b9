/*
 * process.h - kernel Process events (group 0x03: Start 0x0301, End 0x0302,
 * DCStart 0x0303, DCEnd 0x0304, Terminate 0x030B, PerfCtr 0x0320/0x0321,
 * Defunct 0x0327) and Thread events (group 0x05: Start 0x0501, End 0x0502,
 * DCStart 0x0503, DCEnd 0x0504, SetName 0x0548) decoded into typed records.
 *
 * The decoders dispatch on the HookId alone, whatever the header kind: the
 * same event arrives with a SYSTEM header on one Windows version and a
 * PERFINFO header on another. Pointer-sized fields take their size from the
 * header kind (ev->ptr_size). Strings are not copied: a record points into
 * the event's data, valid as long as the event is.
 */
#ifndef ETLDUMP_PROCESS_H
#define ETLDUMP_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "etl/etl.h"

#define ETL_HOOK_PROCESS_START 0x0301u
#define ETL_HOOK_PROCESS_END 0x0302u
#define ETL_HOOK_PROCESS_DCSTART 0x0303u
#define ETL_HOOK_PROCESS_DCEND 0x0304u
#define ETL_HOOK_PROCESS_TERMINATE 0x030Bu
#define ETL_HOOK_PROCESS_PERFCTR 0x0320u
#define ETL_HOOK_PROCESS_PERFCTR_RUNDOWN 0x0321u
#define ETL_HOOK_PROCESS_DEFUNCT 0x0327u
#define ETL_HOOK_THREAD_START 0x0501u
#define ETL_HOOK_THREAD_END 0x0502u
#define ETL_HOOK_THREAD_DCSTART 0x0503u
#define ETL_HOOK_THREAD_DCEND 0x0504u
#define ETL_HOOK_THREAD_SETNAME 0x0548u

/* What a Process or Thread record says about a lifetime. */
enum etl_pt_op {
    ETL_PT_START,      /* begins during the trace */
    ETL_PT_END,        /* ends during the trace */
    ETL_PT_DCSTART,    /* alive when the trace started (rundown) */
    ETL_PT_DCEND,      /* alive when the trace ended (rundown) */
    ETL_PT_DEFUNCT,    /* exited, object not yet deleted (adds exit data) */
    ETL_PT_TERMINATE,  /* the process is terminating (ProcessId only) */
    ETL_PT_PERFCTR,    /* counters (ProcessId only) */
    ETL_PT_SETNAME,    /* a thread's description changes */
};

/* Which family a HookId belongs to. */
enum etl_pt_family { ETL_PT_NONE, ETL_PT_PROCESS, ETL_PT_THREAD };

/* Returns the family of hook and its operation in *op. */
enum etl_pt_family etl_pt_classify(uint16_t hook, enum etl_pt_op *op);

/* Which fields of a process record are present. */
enum {
    PR_KEY = 1u << 0,         /* UniqueProcessKey (version 2 on) */
    PR_PARENT = 1u << 1,
    PR_SESSION = 1u << 2,     /* version 1 on */
    PR_EXIT_STATUS = 1u << 3, /* version 1 on */
    PR_DTB = 1u << 4,         /* DirectoryTableBase, version 3 on */
    PR_FLAGS = 1u << 5,       /* version 4 on */
    PR_SID = 1u << 6,         /* a SID follows the TOKEN_USER part */
    PR_IMAGE = 1u << 7,
    PR_CMDLINE = 1u << 8,     /* version 2 on */
    PR_PACKAGE = 1u << 9,     /* version 4 on */
    PR_APP_ID = 1u << 10,     /* version 4 on */
    PR_EXIT_TIME = 1u << 11,  /* version 5 (Defunct) */
};

/* A UTF-16LE string inside event data, its terminator left out. */
struct etl_u16str {
    const uint8_t *p;
    size_t len;               /* bytes, even */
};

/* One Process event. */
struct etl_process_rec {
    uint64_t key;             /* UniqueProcessKey: tells PID reuse apart */
    uint64_t dtb;
    int64_t exit_time;        /* FILETIME */
    uint32_t pid, parent_id, session_id, exit_status, flags;
    uint32_t has;             /* PR_* */
    uint8_t op;               /* enum etl_pt_op */
    uint8_t sid_revision, sid_count;
    uint64_t sid_authority;   /* 48 bits */
    uint32_t sid_sub[15];
    const uint8_t *image;     /* ANSI bytes, no terminator */
    size_t image_len;
    struct etl_u16str cmdline, package, app_id;
};

/* Which fields of a thread record are present. */
enum {
    TR_STACKS = 1u << 0,      /* stack bases and limits, start addresses (v1 on) */
    TR_TEB = 1u << 1,         /* TebBase, SubProcessTag (v2 on) */
    TR_PRIORITIES = 1u << 2,  /* base, page and I/O priority, flags (v3 on) */
    TR_NAME = 1u << 3,        /* ThreadName (v3 on, when present; SetName) */
};

/* One Thread event (or SetName). */
struct etl_thread_rec {
    uint64_t stack_base, stack_limit, user_stack_base, user_stack_limit;
    uint64_t start_addr;      /* StartAddr up to v2, Affinity from v3 */
    uint64_t win32_start_addr, teb_base;
    uint32_t pid, tid, sub_process_tag;
    uint32_t has;             /* TR_* */
    uint8_t op;               /* enum etl_pt_op */
    uint8_t base_priority, page_priority, io_priority, thread_flags;
    struct etl_u16str name;
};

/* Result of decoding; `at` in the record is where the problem lies. */
enum etl_pt_status {
    ETL_PT_OK = 0,
    ETL_PT_SHORT,             /* the fixed fields run past the payload */
    ETL_PT_BAD_STRING,        /* a string has no terminator, or the SID is damaged */
    ETL_PT_TRAILING,          /* bytes left after the last field: strings dropped */
};

/* Decodes a Process event (any group-0x03 hook above) from c, a cursor over
 * its data (c itself is not moved); *at receives the byte offset of a
 * problem. Fields before the problem stay valid. */
enum etl_pt_status etl_decode_process(const struct etl_event *ev, struct etl_cursor *c,
                                      struct etl_process_rec *out, size_t *at);

/* Decodes a Thread event (0x0501-0x0504) or SetName (0x0548) likewise. */
enum etl_pt_status etl_decode_thread(const struct etl_event *ev, struct etl_cursor *c,
                                     struct etl_thread_rec *out, size_t *at);

/* Returns a message for a status (for diagnostics). */
const char *etl_pt_status_msg(enum etl_pt_status st, bool process);

/* Converts s to UTF-8 in out (cap bytes, always terminated, cut short when
 * needed); returns the length written. */
size_t etl_u16str_utf8(const struct etl_u16str *s, char *out, size_t cap);

/* Formats the record's SID as "S-1-5-18" in out (at least 200 bytes);
 * returns false when the record carries none. */
bool etl_process_sid(const struct etl_process_rec *r, char *out, size_t cap);

#endif
