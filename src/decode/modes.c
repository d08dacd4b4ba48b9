/*
 * modes.c - logger mode bits and clock types by name (doc/format.md §9.4, §9.5; NTWMI.H and
 * EVNTRACE.H names), and the flag-word formatter the other name tables use.
 */
#include "decode/modes.h"

#include <stdio.h>
#include <string.h>

const struct etl_name etl_logger_mode_names[] = {
    { 0x00000001u, "EVENT_TRACE_FILE_MODE_SEQUENTIAL" },
    { 0x00000002u, "EVENT_TRACE_FILE_MODE_CIRCULAR" },
    { 0x00000004u, "EVENT_TRACE_FILE_MODE_APPEND" },
    { 0x00000008u, "EVENT_TRACE_FILE_MODE_NEWFILE" },
    { 0x00000010u, "EVENT_TRACE_USE_MS_FLUSH_TIMER" },
    { 0x00000020u, "EVENT_TRACE_FILE_MODE_PREALLOCATE" },
    { 0x00000040u, "EVENT_TRACE_NONSTOPPABLE_MODE" },
    { 0x00000080u, "EVENT_TRACE_SECURE_MODE" },
    { 0x00000100u, "EVENT_TRACE_REAL_TIME_MODE" },
    { 0x00000200u, "EVENT_TRACE_DELAY_OPEN_FILE_MODE" },
    { 0x00000400u, "EVENT_TRACE_BUFFERING_MODE" },
    { 0x00000800u, "EVENT_TRACE_PRIVATE_LOGGER_MODE" },
    { 0x00001000u, "EVENT_TRACE_ADD_HEADER_MODE" },
    { 0x00002000u, "EVENT_TRACE_USE_KBYTES_FOR_SIZE" },
    { 0x00004000u, "EVENT_TRACE_USE_GLOBAL_SEQUENCE" },
    { 0x00008000u, "EVENT_TRACE_USE_LOCAL_SEQUENCE" },
    { 0x00010000u, "EVENT_TRACE_RELOG_MODE" },
    { 0x00020000u, "EVENT_TRACE_PRIVATE_IN_PROC" },
    { 0x00040000u, "EVENT_TRACE_BUFFER_INTERFACE_MODE" },
    { 0x00080000u, "EVENT_TRACE_KD_FILTER_MODE" },
    { 0x00100000u, "EVENT_TRACE_REAL_TIME_RELOG_MODE" },
    { 0x00200000u, "EVENT_TRACE_LOST_EVENTS_DEBUG_MODE" },
    { 0x00400000u, "EVENT_TRACE_STOP_ON_HYBRID_SHUTDOWN" },
    { 0x00800000u, "EVENT_TRACE_PERSIST_ON_HYBRID_SHUTDOWN" },
    { 0x01000000u, "EVENT_TRACE_USE_PAGED_MEMORY" },
    { 0x02000000u, "EVENT_TRACE_SYSTEM_LOGGER_MODE" },
    { 0x04000000u, "EVENT_TRACE_COMPRESSED_MODE" },
    { 0x08000000u, "EVENT_TRACE_INDEPENDENT_SESSION_MODE" },
    { 0x10000000u, "EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING" },
    { 0x20000000u, "EVENT_TRACE_BLOCKING_MODE" },
    /* 0x40000000 is apparently unused */
    { 0x80000000u, "EVENT_TRACE_ADDTO_TRIAGE_DUMP" },
};
const size_t etl_logger_mode_count =
    sizeof etl_logger_mode_names / sizeof etl_logger_mode_names[0];

static const struct etl_name clock_types[] = {
    { 0, "EVENT_TRACE_CLOCK_RAW" },
    { 1, "EVENT_TRACE_CLOCK_PERFCOUNTER" },
    { 2, "EVENT_TRACE_CLOCK_SYSTEMTIME" },
    { 3, "EVENT_TRACE_CLOCK_CPUCYCLE" },
};

/* Appends s (n bytes) to buf at *len, preceded by the separator unless buf is
 * empty; keeps buf terminated and never writes past cap. */
static void append(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
    if (*len > 0 && *len + 1 < cap)
        buf[(*len)++] = ETL_FLAGS_SEP;
    size_t room = *len < cap ? cap - 1 - *len : 0;
    if (n > room)
        n = room;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
}

size_t etl_flags_str(const struct etl_name *table, size_t n, uint32_t v,
                     char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0)
        return 0;
    buf[0] = '\0';
    uint32_t left = v;
    for (unsigned bit = 0; bit < 32; bit++) {
        uint32_t m = 1u << bit;
        if (!(v & m))
            continue;
        const char *name = etl_name_find(table, n, m);
        if (name) {
            append(buf, cap, &len, name, strlen(name));
            left &= ~m;
        }
    }
    if (left) {
        char hex[16];
        int k = snprintf(hex, sizeof hex, "0x%08x", (unsigned)left);
        append(buf, cap, &len, hex, (size_t)k);
    }
    return len;
}

size_t etl_logger_mode_str(uint32_t mode, char *buf, size_t cap)
{
    return etl_flags_str(etl_logger_mode_names, etl_logger_mode_count, mode, buf, cap);
}

const char *etl_clock_type_full_name(uint32_t v)
{
    return etl_name_find(clock_types, sizeof clock_types / sizeof clock_types[0], v);
}
