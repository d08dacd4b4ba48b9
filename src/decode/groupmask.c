/*
 * groupmask.c - PERFINFO_GROUPMASK names (doc/format.md §6.3-§6.5, Microsoft's NTWMI.H
 * names), list parsing and the ETW_KERNEL_HEADER_EXTENSION payload (§6.2).
 */
#include "decode/groupmask.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "decode/modes.h"
#include "fmt.h"

const struct etl_name etl_perf_names[] = {
    /* Masks[0]: the EnableFlags bits that have a PERF_* name */
    { 0x00000001u, "PERF_PROCESS" },
    { 0x00000002u, "PERF_THREAD" },
    { 0x00000004u, "PERF_LOADER" },
    { 0x00000008u, "PERF_PERF_COUNTER" },
    { 0x00000200u, "PERF_FILENAME" },
    { 0x00000400u, "PERF_DISK_IO_INIT" },
    { 0x00001000u, "PERF_ALL_FAULTS" },
    { 0x00002000u, "PERF_HARD_FAULTS" },
    { 0x00008000u, "PERF_VAMAP" },
    { 0x00010000u, "PERF_NETWORK" },
    { 0x00020000u, "PERF_REGISTRY" },
    { 0x00040000u, "PERF_DBGPRINT" },
    { 0x00080000u, "PERF_JOB" },
    { 0x00100000u, "PERF_ALPC" },
    { 0x00200000u, "PERF_SPLIT_IO" },
    { 0x00400000u, "PERF_DEBUG_EVENTS" },
    { 0x02000000u, "PERF_FILE_IO" },
    { 0x04000000u, "PERF_FILE_IO_INIT" },
    { 0x10000000u, "PERF_NO_SYSCONFIG" },
    /* Masks[1] */
    { 0x20000001u, "PERF_MEMORY" },
    { 0x20000002u, "PERF_PROFILE" },
    { 0x20000004u, "PERF_CONTEXT_SWITCH" },
    { 0x20000008u, "PERF_FOOTPRINT" },
    { 0x20000010u, "PERF_DRIVERS" },
    { 0x20000020u, "PERF_REFSET" },
    { 0x20000040u, "PERF_POOL" },
    { 0x20000080u, "PERF_DPC" },
    { 0x20000100u, "PERF_COMPACT_CSWITCH" },
    { 0x20000200u, "PERF_DISPATCHER" },
    { 0x20000400u, "PERF_PMC_PROFILE" },
    { 0x20000800u, "PERF_PROCESS_INSWAP" },
    { 0x20001000u, "PERF_AFFINITY" },
    { 0x20002000u, "PERF_PRIORITY" },
    { 0x20004000u, "PERF_INTERRUPT" },
    { 0x20008000u, "PERF_VIRTUAL_ALLOC" },
    { 0x20010000u, "PERF_SPINLOCK" },
    { 0x20020000u, "PERF_SYNC_OBJECTS" },
    { 0x20040000u, "PERF_DPC_QUEUE" },
    { 0x20080000u, "PERF_MEMINFO" },
    { 0x20100000u, "PERF_CONTMEM_GEN" },
    { 0x20200000u, "PERF_SPINLOCK_CNTRS" },
    { 0x20400000u, "PERF_SESSION" },
    { 0x20800000u, "PERF_MEMINFO_WS" },
    { 0x21000000u, "PERF_KERNEL_QUEUE" },
    { 0x22000000u, "PERF_INTERRUPT_STEER" },
    { 0x24000000u, "PERF_SHOULD_YIELD" },
    { 0x28000000u, "PERF_WS" },
    /* Masks[2] */
    { 0x40000001u, "PERF_ANTI_STARVATION" },
    { 0x40000002u, "PERF_PROCESS_FREEZE" },
    { 0x40000004u, "PERF_PFN_LIST" },
    { 0x40000008u, "PERF_WS_DETAIL" },
    { 0x40000010u, "PERF_WS_ENTRY" },
    { 0x40000020u, "PERF_HEAP" },
    { 0x40000040u, "PERF_SYSCALL" },
    { 0x40000080u, "PERF_UMS" },
    { 0x40000100u, "PERF_BACKTRACE" },
    { 0x40000200u, "PERF_VULCAN" },
    { 0x40000400u, "PERF_OBJECTS" },
    { 0x40000800u, "PERF_EVENTS" },
    { 0x40001000u, "PERF_FULLTRACE" },
    { 0x40002000u, "PERF_DFSS" },
    { 0x40004000u, "PERF_PREFETCH" },
    { 0x40008000u, "PERF_PROCESSOR_IDLE" },
    { 0x40010000u, "PERF_CPU_CONFIG" },
    { 0x40020000u, "PERF_TIMER" },
    { 0x40040000u, "PERF_CLOCK_INTERRUPT" },
    { 0x40080000u, "PERF_LOAD_BALANCER" },
    { 0x40100000u, "PERF_CLOCK_TIMER" },
    { 0x40200000u, "PERF_IDLE_SELECTION" },
    { 0x40400000u, "PERF_IPI" },
    { 0x40800000u, "PERF_IO_TIMER" },
    { 0x41000000u, "PERF_REG_HIVE" },
    { 0x42000000u, "PERF_REG_NOTIF" },
    { 0x44000000u, "PERF_PPM_EXIT_LATENCY" },
    { 0x48000000u, "PERF_WORKER_THREAD" },
    /* Masks[3]: none defined. Masks[4] */
    { 0x80000001u, "PERF_OPTICAL_IO" },
    { 0x80000002u, "PERF_OPTICAL_IO_INIT" },
    { 0x80000008u, "PERF_DLL_INFO" },
    { 0x80000010u, "PERF_DLL_FLUSH_WS" },
    { 0x80000040u, "PERF_OB_HANDLE" },
    { 0x80000080u, "PERF_OB_OBJECT" },
    { 0x80000200u, "PERF_WAKE_DROP" },
    { 0x80000400u, "PERF_WAKE_EVENT" },
    { 0x80000800u, "PERF_DEBUGGER" },
    { 0x80001000u, "PERF_PROC_ATTACH" },
    { 0x80002000u, "PERF_WAKE_COUNTER" },
    { 0x80008000u, "PERF_POWER" },
    { 0x80010000u, "PERF_SOFT_TRIM" },
    { 0x80020000u, "PERF_CC" },
    { 0x80080000u, "PERF_FLT_IO_INIT" },
    { 0x80100000u, "PERF_FLT_IO" },
    { 0x80200000u, "PERF_FLT_FASTIO" },
    { 0x80400000u, "PERF_FLT_IO_FAILURE" },
    { 0x80800000u, "PERF_HV_PROFILE" },
    { 0x81000000u, "PERF_WDF_DPC" },
    { 0x82000000u, "PERF_WDF_INTERRUPT" },
    { 0x84000000u, "PERF_CACHE_FLUSH" },
    /* Masks[5] */
    { 0xA0000001u, "PERF_HIBER_RUNDOWN" },
    /* Masks[6] */
    { 0xC0000001u, "PERF_SYSCFG_SYSTEM" },
    { 0xC0000002u, "PERF_SYSCFG_GRAPHICS" },
    { 0xC0000004u, "PERF_SYSCFG_STORAGE" },
    { 0xC0000008u, "PERF_SYSCFG_NETWORK" },
    { 0xC0000010u, "PERF_SYSCFG_SERVICES" },
    { 0xC0000020u, "PERF_SYSCFG_PNP" },
    { 0xC0000040u, "PERF_SYSCFG_OPTICAL" },
    /* Masks[7] */
    { 0xE0000001u, "PERF_CLUSTER_OFF" },
    { 0xE0000002u, "PERF_MEMORY_CONTROL" },
    /* combinations and second names: accepted when parsing, never printed
     * for a single bit */
    { 0x00000003u, "PERF_PROC_THREAD" },
    { 0x00000300u, "PERF_DISK_IO" },
    { 0x20000041u, "PERF_POOLTRACE" },
    { 0x20000402u, "PERF_PROFILING" },
    { 0x20210000u, "PERF_SPININSTR" },
    { 0x20400000u, "PERF_PFSECTION" },
    { 0xDFFFFFFFu, "PERF_SYSCFG_ALL" },
};
const size_t etl_perf_count = sizeof etl_perf_names / sizeof etl_perf_names[0];

const struct etl_name etl_enable_flag_names[] = {
    { 0x00000001u, "EVENT_TRACE_FLAG_PROCESS" },
    { 0x00000002u, "EVENT_TRACE_FLAG_THREAD" },
    { 0x00000004u, "EVENT_TRACE_FLAG_IMAGE_LOAD" },
    { 0x00000008u, "EVENT_TRACE_FLAG_PROCESS_COUNTERS" },
    { 0x00000010u, "EVENT_TRACE_FLAG_CSWITCH" },
    { 0x00000020u, "EVENT_TRACE_FLAG_DPC" },
    { 0x00000040u, "EVENT_TRACE_FLAG_INTERRUPT" },
    { 0x00000080u, "EVENT_TRACE_FLAG_SYSTEMCALL" },
    { 0x00000100u, "EVENT_TRACE_FLAG_DISK_IO" },
    { 0x00000200u, "EVENT_TRACE_FLAG_DISK_FILE_IO" },
    { 0x00000400u, "EVENT_TRACE_FLAG_DISK_IO_INIT" },
    { 0x00000800u, "EVENT_TRACE_FLAG_DISPATCHER" },
    { 0x00001000u, "EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS" },
    { 0x00002000u, "EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS" },
    { 0x00004000u, "EVENT_TRACE_FLAG_VIRTUAL_ALLOC" },
    { 0x00008000u, "EVENT_TRACE_FLAG_VAMAP" },
    { 0x00010000u, "EVENT_TRACE_FLAG_NETWORK_TCPIP" },
    { 0x00020000u, "EVENT_TRACE_FLAG_REGISTRY" },
    { 0x00040000u, "EVENT_TRACE_FLAG_DBGPRINT" },
    { 0x00080000u, "EVENT_TRACE_FLAG_JOB" },
    { 0x00100000u, "EVENT_TRACE_FLAG_ALPC" },
    { 0x00200000u, "EVENT_TRACE_FLAG_SPLIT_IO" },
    { 0x00400000u, "EVENT_TRACE_FLAG_DEBUG_EVENTS" },
    { 0x00800000u, "EVENT_TRACE_FLAG_DRIVER" },
    { 0x01000000u, "EVENT_TRACE_FLAG_PROFILE" },
    { 0x02000000u, "EVENT_TRACE_FLAG_FILE_IO" },
    { 0x04000000u, "EVENT_TRACE_FLAG_FILE_IO_INIT" },
    /* 0x08000000 is apparently unused */
    { 0x10000000u, "EVENT_TRACE_FLAG_NO_SYSCONFIG" },
    { 0x20000000u, "EVENT_TRACE_FLAG_ENABLE_RESERVE" },
    { 0x40000000u, "EVENT_TRACE_FLAG_FORWARD_WMI" },
    { 0x80000000u, "EVENT_TRACE_FLAG_EXTENSION" },
};
const size_t etl_enable_flag_count =
    sizeof etl_enable_flag_names / sizeof etl_enable_flag_names[0];

void etl_groupmask_set(struct etl_groupmask *g, uint32_t conventional)
{
    g->masks[ETL_PERF_INDEX(conventional)] |= ETL_PERF_BITS(conventional);
}

bool etl_groupmask_test(const struct etl_groupmask *g, uint32_t conventional)
{
    uint32_t bits = ETL_PERF_BITS(conventional);
    return (g->masks[ETL_PERF_INDEX(conventional)] & bits) == bits;
}

/* ASCII case-insensitive equality of a (n bytes) and the string b. */
static bool name_eq(const char *a, size_t n, const char *b)
{
    for (size_t i = 0; i < n; i++) {
        char x = a[i], y = b[i];
        if (y == '\0')
            return false;
        if (x >= 'a' && x <= 'z')
            x = (char)(x - 'a' + 'A');
        if (x != y)
            return false;
    }
    return b[n] == '\0';
}

/* Copies the item s[0..n) to bad (cap bytes, terminated). */
static void copy_bad(const char *s, size_t n, char *bad, size_t cap)
{
    if (cap == 0)
        return;
    if (n >= cap)
        n = cap - 1;
    memcpy(bad, s, n);
    bad[n] = '\0';
}

/* Parses one item s[0..n) (no blanks around it) into g. */
static enum etl_gm_parse parse_item(const char *s, size_t n, struct etl_groupmask *g)
{
    if (n == 0)
        return ETL_GM_EMPTY;
    if (s[0] >= '0' && s[0] <= '9') {
        char num[32];
        if (n >= sizeof num)
            return ETL_GM_RANGE;
        memcpy(num, s, n);
        num[n] = '\0';
        uint64_t v;
        const char *end;
        if (!etl_parse_u64(num, &v, &end) || *end || v > 0xFFFFFFFFull)
            return ETL_GM_RANGE;
        etl_groupmask_set(g, (uint32_t)v);
        return ETL_GM_OK;
    }
    for (size_t i = 0; i < etl_perf_count; i++)
        if (name_eq(s, n, etl_perf_names[i].name)) {
            etl_groupmask_set(g, etl_perf_names[i].value);
            return ETL_GM_OK;
        }
    for (size_t i = 0; i < etl_enable_flag_count; i++)
        if (name_eq(s, n, etl_enable_flag_names[i].name)) {
            g->masks[0] |= etl_enable_flag_names[i].value;
            return ETL_GM_OK;
        }
    return ETL_GM_UNKNOWN;
}

enum etl_gm_parse etl_groupmask_parse(const char *list, struct etl_groupmask *g,
                                      char *bad, size_t cap)
{
    memset(g, 0, sizeof *g);
    if (cap)
        bad[0] = '\0';
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        const char *s = p;
        while (n > 0 && (*s == ' ' || *s == '\t')) {
            s++;
            n--;
        }
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        enum etl_gm_parse r = parse_item(s, n, g);
        if (r != ETL_GM_OK) {
            copy_bad(s, n, bad, cap);
            return r;
        }
        if (!comma)
            return ETL_GM_OK;
        p = comma + 1;
    }
}

/* Appends s to buf at *len with a '|' before it unless buf is empty. */
static void put_name(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len > 0 && *len + 1 < cap)
        buf[(*len)++] = '|';
    size_t room = *len < cap ? cap - 1 - *len : 0;
    if (n > room)
        n = room;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
}

/* Writes the names of Masks[index] = mask at buf + *len. */
static void mask_names(unsigned index, uint32_t mask, char *buf, size_t cap, size_t *len)
{
    uint32_t left_low = 0, left_high = 0;
    for (unsigned bit = 0; bit < 32; bit++) {
        uint32_t m = 1u << bit;
        if (!(mask & m))
            continue;
        const char *name = NULL;
        if (bit < 29)
            name = etl_name_find(etl_perf_names, etl_perf_count, (uint32_t)index << 29 | m);
        if (!name && index == 0)
            name = etl_name_find(etl_enable_flag_names, etl_enable_flag_count, m);
        if (name)
            put_name(buf, cap, len, name);
        else if (bit < 29)
            left_low |= m;
        else
            left_high |= m;
    }
    char hex[32];
    if (left_low) {
        snprintf(hex, sizeof hex, "0x%08x", (unsigned)((uint32_t)index << 29 | left_low));
        put_name(buf, cap, len, hex);
    }
    if (left_high) {
        snprintf(hex, sizeof hex, "Masks[%u]:0x%08x", index, (unsigned)left_high);
        put_name(buf, cap, len, hex);
    }
}

size_t etl_groupmask_mask_names(unsigned index, uint32_t mask, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0)
        return 0;
    buf[0] = '\0';
    mask_names(index & 7u, mask, buf, cap, &len);
    return len;
}

size_t etl_groupmask_names(const struct etl_groupmask *g, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0)
        return 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < ETL_GROUPMASK_MASKS; i++)
        mask_names(i, g->masks[i], buf, cap, &len);
    return len;
}

size_t etl_enable_flags_str(uint32_t mask0, char *buf, size_t cap)
{
    return etl_flags_str(etl_enable_flag_names, etl_enable_flag_count, mask0, buf, cap);
}

void etl_groupmask_hex(const struct etl_groupmask *g, char out[72])
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (unsigned i = 0; i < ETL_GROUPMASK_MASKS; i++) {
        if (i)
            out[n++] = ' ';
        for (int d = 7; d >= 0; d--)
            out[n++] = hex[(g->masks[i] >> (4 * d)) & 0xF];
    }
    out[n] = '\0';
}

enum etl_cswitch_expect etl_groupmask_cswitch(const struct etl_groupmask *g)
{
    bool cs = etl_groupmask_test(g, ETL_PERF_CONTEXT_SWITCH) ||
              (g->masks[0] & ETL_EVENT_TRACE_FLAG_CSWITCH) != 0;
    if (!cs)
        return ETL_CS_NONE;
    return etl_groupmask_test(g, ETL_PERF_COMPACT_CSWITCH) ? ETL_CS_COMPACT
                                                            : ETL_CS_CSWITCH;
}

const char *etl_cswitch_expect_name(enum etl_cswitch_expect e)
{
    switch (e) {
    case ETL_CS_CSWITCH:
        return "cswitch";
    case ETL_CS_COMPACT:
        return "compact";
    default:
        return "none";
    }
}

bool etl_decode_header_ext(struct etl_cursor *c, struct etl_header_ext *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < ETL_GROUPMASK_MASKS; i++)
        out->gm.masks[i] = etl_cur_u32(c);
    if (!etl_cur_ok(c)) {
        memset(out, 0, sizeof *out);
        return false;
    }
    if (etl_cur_left(c) >= 4) {
        out->version = etl_cur_u32(c);
        out->has_version = true;
    }
    return true;
}
