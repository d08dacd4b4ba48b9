/*
 * loggerctx.h - WMI_LOGGER_CONTEXT, the kernel's record of an event tracing
 * session, decoded from a raw memory image with the per-version layouts of
 * doc/format.md §13 (Windows 6.1, 6.2, 6.3 and 10.0; x86 and x64).
 *
 * Every field of the table in §13.2 has an entry in etl_lc_fields with its
 * offset in each layout (ETL_LC_ABSENT where that version has no such
 * field). Structures §13.2 does not lay out (KEVENT, KTIMER, ...) are
 * kept as their bytes, up to the next field of the layout.
 */
#ifndef ETLDUMP_LOGGERCTX_H
#define ETLDUMP_LOGGERCTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Windows versions with a known layout, oldest first. */
enum etl_win { ETL_WIN_61, ETL_WIN_62, ETL_WIN_63, ETL_WIN_100, ETL_WIN_COUNT };
enum etl_arch { ETL_ARCH_X86, ETL_ARCH_X64, ETL_ARCH_COUNT };

/* How a field is stored. */
enum etl_lc_type {
    LC_U32,        /* ULONG: v[0] */
    LC_I32,        /* LONG, NTSTATUS: v[0] (sign-extended) */
    LC_HEX32,      /* ULONG shown in hex (markers, masks, NTSTATUS, flag words) */
    LC_I64,        /* LARGE_INTEGER, LONGLONG: v[0] */
    LC_U64,        /* ULONGLONG: v[0] */
    LC_PTR,        /* pointer, HANDLE, EX_FAST_REF, EX_PUSH_LOCK: v[0] */
    LC_GUID,       /* GUID: bytes (16, file order) */
    LC_USTR,       /* UNICODE_STRING: v[0] Length, v[1] MaximumLength, v[2] Buffer */
    LC_LIST,       /* LIST_ENTRY: v[0] Flink, v[1] Blink */
    LC_BITMAP,     /* RTL_BITMAP: v[0] SizeOfBitMap, v[1] Buffer */
    LC_U32ARRAY,   /* ULONG[n] (EventMarker: 1 on x86, 2 on x64): bytes */
    LC_BYTES,      /* a structure kept as bytes */
};

#define ETL_LC_ABSENT 0xFFFFu

struct etl_lc_field {
    const char *column;    /* column name (the field name in snake_case) */
    const char *name;      /* the field's name in §13.2 */
    enum etl_lc_type type;
    uint16_t off[ETL_ARCH_COUNT][ETL_WIN_COUNT];
};

/* Field indexes into etl_lc_fields, in the order of the table in §13.2. */
enum etl_lc_index {
    LC_LOGGER_ID, LC_BUFFER_SIZE, LC_MAXIMUM_EVENT_SIZE, LC_COLLECTION_ON,
    LC_LOGGER_MODE, LC_ACCEPT_NEW_EVENTS, LC_EVENT_MARKER, LC_ERROR_MARKER,
    LC_SIZE_MASK, LC_GET_CPU_CLOCK, LC_START_TIME, LC_LOG_FILE_HANDLE,
    LC_LOGGER_THREAD, LC_LOGGER_STATUS, LC_FAILURE_REASON, LC_NBQ_HEAD,
    LC_BUFFER_QUEUE, LC_OVERFLOW_NBQ_HEAD, LC_OVERFLOW_QUEUE,
    LC_QUEUE_BLOCK_FREE_LIST, LC_GLOBAL_LIST, LC_PROVIDER_BINARY_LIST,
    LC_BATCHED_BUFFER_LIST, LC_LOGGER_NAME, LC_LOG_FILE_NAME,
    LC_LOG_FILE_PATTERN, LC_NEW_LOG_FILE_NAME, LC_CLOCK_TYPE,
    LC_MAXIMUM_FILE_SIZE, LC_LAST_FLUSHED_BUFFER, LC_FLUSH_TIMER,
    LC_FLUSH_THRESHOLD, LC_BYTE_OFFSET, LC_MINIMUM_BUFFERS,
    LC_BUFFERS_AVAILABLE, LC_NUMBER_OF_BUFFERS, LC_MAXIMUM_BUFFERS,
    LC_EVENTS_LOST, LC_PEAK_BUFFERS_COUNT, LC_BUFFERS_WRITTEN,
    LC_LOG_BUFFERS_LOST, LC_REAL_TIME_BUFFERS_DELIVERED,
    LC_REAL_TIME_BUFFERS_LOST, LC_SEQUENCE_PTR, LC_LOCAL_SEQUENCE,
    LC_INSTANCE_GUID, LC_FILE_COUNTER, LC_BUFFER_CALLBACK, LC_POOL_TYPE,
    LC_REFERENCE_TIME, LC_PROVIDER_INFO_SIZE, LC_CONSUMERS, LC_NUM_CONSUMERS,
    LC_TRANSITION_CONSUMER, LC_REALTIME_LOGFILE_HANDLE,
    LC_REALTIME_LOGFILE_NAME, LC_REALTIME_WRITE_OFFSET,
    LC_REALTIME_READ_OFFSET, LC_REALTIME_LOGFILE_SIZE,
    LC_REALTIME_LOGFILE_USAGE, LC_REALTIME_MAXIMUM_FILE_SIZE,
    LC_REALTIME_BUFFERS_SAVED, LC_REALTIME_REFERENCE_TIME,
    LC_NEW_RT_EVENTS_LOST, LC_LOGGER_EVENT, LC_FLUSH_EVENT,
    LC_FLUSH_TIME_OUT_TIMER, LC_FLUSH_DPC, LC_LOGGER_DPC, LC_LOGGER_MUTEX,
    LC_LOGGER_LOCK, LC_BUFFER_LIST_SPIN_LOCK, LC_CLIENT_SECURITY_CONTEXT,
    LC_TOKEN_ACCESS_INFORMATION, LC_SECURITY_DESCRIPTOR,
    LC_BUFFER_SEQUENCE_NUMBER, LC_FLAGS, LC_REQUEST_FLAG, LC_HOOK_ID_MAP,
    LC_STACK_CACHE, LC_PMC_DATA, LC_WIN_RT_PROVIDER_BINARY_LIST,
    LC_SCRATCH_ARRAY, LC_DISALLOWED_GUIDS, LC_SERVER_SILO,
    LC_FIELD_COUNT
};

extern const struct etl_lc_field etl_lc_fields[LC_FIELD_COUNT];

/* One decoded field. */
struct etl_lc_cell {
    bool present;          /* the layout has this field */
    uint32_t offset;       /* its offset in the structure */
    uint64_t v[3];         /* per etl_lc_type */
    const uint8_t *bytes;  /* LC_GUID, LC_U32ARRAY, LC_BYTES: into the input */
    size_t nbytes;
};

struct etl_logger_context {
    enum etl_win win;
    enum etl_arch arch;
    size_t size;           /* bytes of the structure in this layout */
    struct etl_lc_cell cell[LC_FIELD_COUNT];
    /* The fields most asked for, also found in cell[]. */
    uint32_t logger_id, buffer_size, logger_mode, clock_type, events_lost;
    uint32_t flags, request_flag;
};

/* Flags bit 16-23: SystemLoggerIndex (6.2 and later). */
#define ETL_LC_SYSTEM_LOGGER_INDEX(flags) (((flags) >> 16) & 0xFFu)

/* Returns the size of WMI_LOGGER_CONTEXT in a layout. */
size_t etl_lc_size(enum etl_win win, enum etl_arch arch);

/* Parses "6.1", "6.2", "6.3" or "10.0" (false otherwise); names it back. */
bool etl_win_parse(const char *s, enum etl_win *out);
const char *etl_win_name(enum etl_win win);

/* Parses "x86" or "x64"; names it back. */
bool etl_arch_parse(const char *s, enum etl_arch *out);
const char *etl_arch_name(enum etl_arch arch);

/* Decodes the structure at buf[0..len) (pointers into buf are kept); false,
 * with out untouched beyond win, arch and size, if len is below the size. */
bool etl_decode_logger_context(const uint8_t *buf, size_t len, enum etl_win win,
                               enum etl_arch arch, struct etl_logger_context *out);

/* The Flags bit fields by name (SystemLoggerIndex left out: it is a
 * number), other bits in hex; "" for none. */
size_t etl_lc_flags_str(enum etl_win win, uint32_t flags, char *buf, size_t cap);

/* The RequestFlag bit fields by their name in that version. */
size_t etl_lc_request_flag_str(enum etl_win win, uint32_t rf, char *buf, size_t cap);

#endif
