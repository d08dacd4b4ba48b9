/*
 * etlw_pt: Process and Thread events for the independent test writer.
 *
 * Written from shared/spec/process-thread-events.md (sections 1-4, 6, 7),
 * not from etldump's decoders: every payload is built byte by byte here.
 *
 *   Process Start 0x0301 / End 0x0302: SYSTEM header (the session's pointer
 *     size), version 4 from build 9200 on, else version 3 (Windows 7).
 *   Process DCStart 0x0303 / DCEnd 0x0304: PERFINFO header from build 9200
 *     on, SYSTEM before; same versions.
 *   Process Defunct 0x0327: PERFINFO header, version 5 (version 4 layout +
 *     ExitTime) from build 10240, version 4 before.
 *     Version 4 payload: UniqueProcessKey ptr, ProcessId, ParentId,
 *     SessionId, ExitStatus, DirectoryTableBase ptr, Flags u32, UserSID,
 *     ImageFileName (ANSI, NUL), CommandLine, PackageFullName, ApplicationId
 *     (UTF-16LE, zero unit each). Version 3: no Flags, no PackageFullName or
 *     ApplicationId. UserSID: a u32 0 alone (no SID), or TOKEN_USER (a
 *     non-zero pointer, Attributes u32, 4 bytes of padding junk on 64-bit)
 *     followed by the SID (revision 1, count, 6-byte big-endian authority,
 *     count u32 sub-authorities).
 *   Thread Start 0x0501 / End 0x0502 / DCStart 0x0503 / DCEnd 0x0504:
 *     SYSTEM header, version 3: ProcessId, TThreadId, StackBase, StackLimit,
 *     UserStackBase, UserStackLimit, Affinity, Win32StartAddr, TebBase
 *     (pointers), SubProcessTag u32, BasePriority, PagePriority, IoPriority,
 *     ThreadFlags (u8 each); from build 18362 a UTF-16LE ThreadName follows
 *     (the empty string when there is none; Start records always empty).
 *   Thread SetName 0x0548: PERFINFO header, version 2: ProcessId, ThreadId,
 *     UTF-16LE name.
 * The header's thread and process IDs are given by the caller (section 6:
 * a Start is logged by its creator, an End by the thread itself).
 */
#ifndef ETLW_PT_H
#define ETLW_PT_H

#include "etlw.h"

enum etlw_pt_kind { ETLW_PT_START, ETLW_PT_END, ETLW_PT_DCSTART, ETLW_PT_DCEND };

struct etlw_process {
    uint64_t key;                 /* UniqueProcessKey: a fake kernel address */
    uint64_t dtb;                 /* DirectoryTableBase */
    uint32_t pid, parent_id, session_id, exit_status, flags;
    const char *image;            /* ASCII */
    const char *command_line;     /* UTF-8, stored as UTF-16LE */
    const char *package, *app_id; /* UTF-8, NULL: empty */
    bool no_sid;                  /* the 4-byte zero form of UserSID */
    uint8_t sid_authority;        /* low byte of IdentifierAuthority, e.g. 5 */
    unsigned sid_count;           /* 0..15 */
    uint32_t sid_sub[15];
    int64_t exit_time;            /* FILETIME (Defunct version 5) */
};

int etlw_add_process(struct etlw *w, unsigned cpu, int64_t ts, enum etlw_pt_kind kind,
                     const struct etlw_process *p, uint32_t hdr_tid, uint32_t hdr_pid);
int etlw_add_defunct(struct etlw *w, unsigned cpu, int64_t ts, const struct etlw_process *p);
int etlw_add_thread(struct etlw *w, unsigned cpu, int64_t ts, enum etlw_pt_kind kind,
                    uint32_t pid, uint32_t tid, const char *name, uint32_t hdr_tid,
                    uint32_t hdr_pid);
int etlw_add_thread_name(struct etlw *w, unsigned cpu, int64_t ts, uint32_t pid, uint32_t tid,
                         const char *name);

/* Whether Thread records of this build carry a ThreadName. */
bool etlw_thread_names(uint32_t build);

#endif /* ETLW_PT_H */
