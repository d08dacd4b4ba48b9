/*
 * loggerctx.c - WMI_LOGGER_CONTEXT layouts (doc/format.md §13: offsets from
 * Microsoft's symbol files for Windows 7 and later) and their decoder.
 * Every value is read by hand, little-endian, through a bounds-checked
 * cursor; nothing is cast onto the input.
 */
#include "decode/loggerctx.h"

#include <string.h>

#include "cursor.h"
#include "decode/modes.h"
#include "decode/names.h"

#define NA ETL_LC_ABSENT

/* Offsets: x86 for 6.1, 6.2, 6.3, 10.0, then x64 for the same; SAME(a, b):
 * a for 6.1, b later, on both x86 and x64. */
#define OFF(a, b, c, d, e, f, g, h) { { a, b, c, d }, { e, f, g, h } }
#define SAME(a, b) OFF(a, b, b, b, a, b, b, b)

const struct etl_lc_field etl_lc_fields[LC_FIELD_COUNT] = {
    [LC_LOGGER_ID] = { "logger_id", "LoggerId", LC_U32, SAME(0x00, 0x00) },
    [LC_BUFFER_SIZE] = { "buffer_size", "BufferSize", LC_U32, SAME(0x04, 0x04) },
    [LC_MAXIMUM_EVENT_SIZE] = { "maximum_event_size", "MaximumEventSize", LC_U32,
        SAME(0x08, 0x08) },
    [LC_COLLECTION_ON] = { "collection_on", "CollectionOn", LC_I32,
        OFF(0x0C, 0xF0, 0xF8, 0xF8, 0x0C, 0x150, 0x150, 0x150) },
    [LC_LOGGER_MODE] = { "logger_mode", "LoggerMode", LC_HEX32, SAME(0x10, 0x0C) },
    [LC_ACCEPT_NEW_EVENTS] = { "accept_new_events", "AcceptNewEvents", LC_I32,
        SAME(0x14, 0x10) },
    [LC_EVENT_MARKER] = { "event_marker", "EventMarker", LC_U32ARRAY, SAME(NA, 0x14) },
    [LC_ERROR_MARKER] = { "error_marker", "ErrorMarker", LC_HEX32,
        OFF(NA, 0x18, 0x18, 0x18, NA, 0x1C, 0x1C, 0x1C) },
    [LC_SIZE_MASK] = { "size_mask", "SizeMask", LC_HEX32,
        OFF(NA, 0x1C, 0x1C, 0x1C, NA, 0x20, 0x20, 0x20) },
    [LC_GET_CPU_CLOCK] = { "get_cpu_clock", "GetCpuClock", LC_PTR,
        OFF(0x18, 0x20, 0x20, 0x20, 0x18, 0x28, 0x28, 0x28) },
    [LC_START_TIME] = { "start_time", "StartTime", LC_I64,
        OFF(0x20, 0x230, 0x238, 0x240, 0x20, 0x320, 0x320, 0x328) },
    [LC_LOG_FILE_HANDLE] = { "log_file_handle", "LogFileHandle", LC_PTR,
        OFF(0x28, 0x238, 0x240, 0x248, 0x28, 0x328, 0x328, 0x330) },
    [LC_LOGGER_THREAD] = { "logger_thread", "LoggerThread", LC_PTR,
        OFF(0x2C, 0x24, 0x24, 0x24, 0x30, 0x30, 0x30, 0x30) },
    [LC_LOGGER_STATUS] = { "logger_status", "LoggerStatus", LC_HEX32,
        OFF(0x30, 0x28, 0x28, 0x28, 0x38, 0x38, 0x38, 0x38) },
    [LC_FAILURE_REASON] = { "failure_reason", "FailureReason", LC_U32,
        OFF(NA, 0x2C, 0x2C, 0x2C, NA, 0x3C, 0x3C, 0x3C) },
    [LC_NBQ_HEAD] = { "nbq_head", "NBQHead", LC_PTR,
        OFF(0x34, NA, NA, NA, 0x40, NA, NA, NA) },
    [LC_BUFFER_QUEUE] = { "buffer_queue", "BufferQueue", LC_BYTES,
        OFF(NA, 0x30, 0x30, 0x30, NA, 0x40, 0x40, 0x40) },
    [LC_OVERFLOW_NBQ_HEAD] = { "overflow_nbq_head", "OverflowNBQHead", LC_PTR,
        OFF(0x38, NA, NA, NA, 0x48, NA, NA, NA) },
    [LC_OVERFLOW_QUEUE] = { "overflow_queue", "OverflowQueue", LC_BYTES,
        OFF(NA, 0x3C, 0x3C, 0x3C, NA, 0x58, 0x58, 0x58) },
    [LC_QUEUE_BLOCK_FREE_LIST] = { "queue_block_free_list", "QueueBlockFreeList",
        LC_BYTES, OFF(0x40, NA, NA, NA, 0x50, NA, NA, NA) },
    [LC_GLOBAL_LIST] = { "global_list", "GlobalList", LC_LIST,
        OFF(0x48, 0x48, 0x48, 0x48, 0x60, 0x70, 0x70, 0x70) },
    [LC_PROVIDER_BINARY_LIST] = { "provider_binary_list", "ProviderBinaryList",
        LC_LIST, OFF(NA, 0x50, 0x50, 0x50, NA, 0x80, 0x80, 0x80) },
    [LC_BATCHED_BUFFER_LIST] = { "batched_buffer_list",
        "BatchedBufferList/CurrentBuffer", LC_PTR,
        OFF(0x50, 0x58, 0x58, 0x58, 0x70, 0x90, 0x90, 0x90) },
    [LC_LOGGER_NAME] = { "logger_name", "LoggerName", LC_USTR,
        OFF(0x54, 0x5C, 0x5C, 0x5C, 0x78, 0x98, 0x98, 0x98) },
    [LC_LOG_FILE_NAME] = { "log_file_name", "LogFileName", LC_USTR,
        OFF(0x5C, 0x64, 0x64, 0x64, 0x88, 0xA8, 0xA8, 0xA8) },
    [LC_LOG_FILE_PATTERN] = { "log_file_pattern", "LogFilePattern", LC_USTR,
        OFF(0x64, 0x6C, 0x6C, 0x6C, 0x98, 0xB8, 0xB8, 0xB8) },
    [LC_NEW_LOG_FILE_NAME] = { "new_log_file_name", "NewLogFileName", LC_USTR,
        OFF(0x6C, 0x74, 0x74, 0x74, 0xA8, 0xC8, 0xC8, 0xC8) },
    [LC_CLOCK_TYPE] = { "clock_type", "ClockType", LC_U32,
        OFF(0x74, 0x7C, 0x7C, 0x7C, 0xB8, 0xD8, 0xD8, 0xD8) },
    [LC_MAXIMUM_FILE_SIZE] = { "maximum_file_size", "MaximumFileSize", LC_U32,
        OFF(0x78, 0xD4, 0xD8, 0xD8, 0xBC, 0x134, 0x134, 0x134) },
    [LC_LAST_FLUSHED_BUFFER] = { "last_flushed_buffer", "LastFlushedBuffer", LC_U32,
        OFF(0x7C, 0x80, 0x80, 0x80, 0xC0, 0xDC, 0xDC, 0xDC) },
    [LC_FLUSH_TIMER] = { "flush_timer", "FlushTimer", LC_U32,
        OFF(0x80, 0x84, 0x84, 0x84, 0xC4, 0xE0, 0xE0, 0xE0) },
    [LC_FLUSH_THRESHOLD] = { "flush_threshold", "FlushThreshold", LC_U32,
        OFF(0x84, 0x88, 0x88, 0x88, 0xC8, 0xE4, 0xE4, 0xE4) },
    [LC_BYTE_OFFSET] = { "byte_offset", "ByteOffset", LC_I64,
        OFF(0x88, 0x90, 0x90, 0x90, 0xD0, 0xE8, 0xE8, 0xE8) },
    [LC_MINIMUM_BUFFERS] = { "minimum_buffers", "MinimumBuffers", LC_U32,
        OFF(0x90, 0x98, 0x98, 0x98, 0xD8, 0xF0, 0xF0, 0xF0) },
    [LC_BUFFERS_AVAILABLE] = { "buffers_available", "BuffersAvailable", LC_I32,
        OFF(0x94, 0x9C, 0x9C, 0x9C, 0xDC, 0xF4, 0xF4, 0xF4) },
    [LC_NUMBER_OF_BUFFERS] = { "number_of_buffers", "NumberOfBuffers", LC_I32,
        OFF(0x98, 0xA0, 0xA0, 0xA0, 0xE0, 0xF8, 0xF8, 0xF8) },
    [LC_MAXIMUM_BUFFERS] = { "maximum_buffers", "MaximumBuffers", LC_U32,
        OFF(0x9C, 0xA4, 0xA4, 0xA4, 0xE4, 0xFC, 0xFC, 0xFC) },
    [LC_EVENTS_LOST] = { "events_lost", "EventsLost", LC_U32,
        OFF(0xA0, 0xA8, 0xA8, 0xA8, 0xE8, 0x100, 0x100, 0x100) },
    [LC_PEAK_BUFFERS_COUNT] = { "peak_buffers_count", "PeakBuffersCount", LC_I32,
        OFF(NA, NA, 0xAC, 0xAC, NA, NA, 0x104, 0x104) },
    [LC_BUFFERS_WRITTEN] = { "buffers_written", "BuffersWritten", LC_U32,
        OFF(0xA4, 0xAC, 0xB0, 0xB0, 0xEC, 0x104, 0x108, 0x108) },
    [LC_LOG_BUFFERS_LOST] = { "log_buffers_lost", "LogBuffersLost", LC_U32,
        OFF(0xA8, 0xB0, 0xB4, 0xB4, 0xF0, 0x108, 0x10C, 0x10C) },
    [LC_REAL_TIME_BUFFERS_DELIVERED] = { "real_time_buffers_delivered",
        "RealTimeBuffersDelivered", LC_U32,
        OFF(0xAC, 0xB4, 0xB8, 0xB8, 0xF4, 0x10C, 0x110, 0x110) },
    [LC_REAL_TIME_BUFFERS_LOST] = { "real_time_buffers_lost", "RealTimeBuffersLost",
        LC_U32, OFF(0xB0, 0xB8, 0xBC, 0xBC, 0xF8, 0x110, 0x114, 0x114) },
    [LC_SEQUENCE_PTR] = { "sequence_ptr", "SequencePtr", LC_PTR,
        OFF(0xB4, 0xBC, 0xC0, 0xC0, 0x100, 0x118, 0x118, 0x118) },
    [LC_LOCAL_SEQUENCE] = { "local_sequence", "LocalSequence", LC_U32,
        OFF(0xB8, 0xC0, 0xC4, 0xC4, 0x108, 0x120, 0x120, 0x120) },
    [LC_INSTANCE_GUID] = { "instance_guid", "InstanceGuid", LC_GUID,
        OFF(0xBC, 0xC4, 0xC8, 0xC8, 0x10C, 0x124, 0x124, 0x124) },
    [LC_FILE_COUNTER] = { "file_counter", "FileCounter", LC_I32,
        OFF(0xCC, 0xD8, 0xDC, 0xDC, 0x11C, 0x138, 0x138, 0x138) },
    [LC_BUFFER_CALLBACK] = { "buffer_callback", "BufferCallback", LC_PTR,
        OFF(0xD0, NA, NA, NA, 0x120, NA, NA, NA) },
    [LC_POOL_TYPE] = { "pool_type", "PoolType", LC_U32,
        OFF(0xD4, 0xDC, 0xE0, 0xE0, 0x128, 0x13C, 0x13C, 0x13C) },
    [LC_REFERENCE_TIME] = { "reference_time", "ReferenceTime", LC_BYTES,
        OFF(0xD8, 0xE0, 0xE8, 0xE8, 0x130, 0x140, 0x140, 0x140) },
    [LC_PROVIDER_INFO_SIZE] = { "provider_info_size", "ProviderInfoSize", LC_U32,
        OFF(NA, 0xF4, 0xFC, 0xFC, NA, 0x154, 0x154, 0x154) },
    [LC_CONSUMERS] = { "consumers", "Consumers", LC_LIST,
        OFF(0xE8, 0xF8, 0x100, 0x100, 0x140, 0x158, 0x158, 0x158) },
    [LC_NUM_CONSUMERS] = { "num_consumers", "NumConsumers", LC_U32,
        OFF(0xF0, 0x100, 0x108, 0x108, 0x150, 0x168, 0x168, 0x168) },
    [LC_TRANSITION_CONSUMER] = { "transition_consumer", "TransitionConsumer", LC_PTR,
        OFF(0xF4, 0x104, 0x10C, 0x10C, 0x158, 0x170, 0x170, 0x170) },
    [LC_REALTIME_LOGFILE_HANDLE] = { "realtime_logfile_handle",
        "RealtimeLogfileHandle", LC_PTR,
        OFF(0xF8, 0x108, 0x110, 0x110, 0x160, 0x178, 0x178, 0x178) },
    [LC_REALTIME_LOGFILE_NAME] = { "realtime_logfile_name", "RealtimeLogfileName",
        LC_USTR, OFF(0xFC, 0x10C, 0x114, 0x114, 0x168, 0x180, 0x180, 0x180) },
    [LC_REALTIME_WRITE_OFFSET] = { "realtime_write_offset", "RealtimeWriteOffset",
        LC_I64, OFF(0x108, 0x118, 0x120, 0x120, 0x178, 0x190, 0x190, 0x190) },
    [LC_REALTIME_READ_OFFSET] = { "realtime_read_offset", "RealtimeReadOffset",
        LC_I64, OFF(0x110, 0x120, 0x128, 0x128, 0x180, 0x198, 0x198, 0x198) },
    [LC_REALTIME_LOGFILE_SIZE] = { "realtime_logfile_size", "RealtimeLogfileSize",
        LC_I64, OFF(0x118, 0x128, 0x130, 0x130, 0x188, 0x1A0, 0x1A0, 0x1A0) },
    [LC_REALTIME_LOGFILE_USAGE] = { "realtime_logfile_usage", "RealtimeLogfileUsage",
        LC_U64, OFF(0x120, 0x130, 0x138, 0x138, 0x190, 0x1A8, 0x1A8, 0x1A8) },
    [LC_REALTIME_MAXIMUM_FILE_SIZE] = { "realtime_maximum_file_size",
        "RealtimeMaximumFileSize", LC_U64,
        OFF(0x128, 0x138, 0x140, 0x140, 0x198, 0x1B0, 0x1B0, 0x1B0) },
    [LC_REALTIME_BUFFERS_SAVED] = { "realtime_buffers_saved", "RealtimeBuffersSaved",
        LC_U32, OFF(0x130, 0x140, 0x148, 0x148, 0x1A0, 0x1B8, 0x1B8, 0x1B8) },
    [LC_REALTIME_REFERENCE_TIME] = { "realtime_reference_time",
        "RealtimeReferenceTime", LC_BYTES,
        OFF(0x138, 0x148, 0x150, 0x150, 0x1A8, 0x1C0, 0x1C0, 0x1C0) },
    [LC_NEW_RT_EVENTS_LOST] = { "new_rt_events_lost", "NewRTEventsLost", LC_U32,
        OFF(0x148, 0x158, 0x160, 0x160, 0x1B8, 0x1D0, 0x1D0, 0x1D0) },
    [LC_LOGGER_EVENT] = { "logger_event", "LoggerEvent", LC_BYTES,
        OFF(0x14C, 0x15C, 0x164, 0x164, 0x1C0, 0x1D8, 0x1D8, 0x1D8) },
    [LC_FLUSH_EVENT] = { "flush_event", "FlushEvent", LC_BYTES,
        OFF(0x15C, 0x16C, 0x174, 0x174, 0x1D8, 0x1F0, 0x1F0, 0x1F0) },
    [LC_FLUSH_TIME_OUT_TIMER] = { "flush_time_out_timer", "FlushTimeOutTimer",
        LC_BYTES, OFF(0x170, 0x180, 0x188, 0x188, 0x1F0, 0x208, 0x208, 0x208) },
    [LC_FLUSH_DPC] = { "flush_dpc", "FlushDpc", LC_BYTES,
        OFF(0x198, NA, NA, NA, 0x230, NA, NA, NA) },
    [LC_LOGGER_DPC] = { "logger_dpc", "LoggerDpc", LC_BYTES,
        OFF(NA, 0x1A8, 0x1B0, 0x1B0, NA, 0x248, 0x248, 0x248) },
    [LC_LOGGER_MUTEX] = { "logger_mutex", "LoggerMutex", LC_BYTES,
        OFF(0x1B8, 0x1C8, 0x1D0, 0x1D0, 0x270, 0x288, 0x288, 0x288) },
    [LC_LOGGER_LOCK] = { "logger_lock", "LoggerLock", LC_PTR,
        OFF(0x1D8, 0x1E8, 0x1F0, 0x1F0, 0x2A8, 0x2C0, 0x2C0, 0x2C0) },
    [LC_BUFFER_LIST_SPIN_LOCK] = { "buffer_list_spin_lock",
        "BufferListSpinLock/BufferListPushLock", LC_PTR,
        OFF(0x1DC, 0x1EC, 0x1F4, 0x1F4, 0x2B0, 0x2C8, 0x2C8, 0x2C8) },
    [LC_CLIENT_SECURITY_CONTEXT] = { "client_security_context",
        "ClientSecurityContext", LC_BYTES,
        OFF(0x1E0, 0x1F0, 0x1F8, 0x1F8, 0x2B8, 0x2D0, 0x2D0, 0x2D0) },
    [LC_TOKEN_ACCESS_INFORMATION] = { "token_access_information",
        "TokenAccessInformation", LC_PTR, OFF(NA, NA, NA, 0x234, NA, NA, NA, 0x318) },
    [LC_SECURITY_DESCRIPTOR] = { "security_descriptor", "SecurityDescriptor", LC_PTR,
        OFF(0x21C, 0x22C, 0x234, 0x238, 0x300, 0x318, 0x318, 0x320) },
    [LC_BUFFER_SEQUENCE_NUMBER] = { "buffer_sequence_number", "BufferSequenceNumber",
        LC_I64, OFF(0x220, 0x240, 0x248, 0x250, 0x308, 0x330, 0x330, 0x338) },
    [LC_FLAGS] = { "flags", "Flags", LC_HEX32,
        OFF(0x228, 0x248, 0x250, 0x258, 0x310, 0x338, 0x338, 0x340) },
    [LC_REQUEST_FLAG] = { "request_flag", "RequestFlag", LC_HEX32,
        OFF(0x22C, 0x24C, 0x254, 0x25C, 0x314, 0x33C, 0x33C, 0x344) },
    [LC_HOOK_ID_MAP] = { "hook_id_map", "HookIdMap", LC_BITMAP,
        OFF(0x230, 0x250, 0x258, 0x260, 0x318, 0x340, 0x340, 0x348) },
    [LC_STACK_CACHE] = { "stack_cache", "StackCache", LC_PTR,
        OFF(NA, 0x258, 0x260, 0x268, NA, 0x350, 0x350, 0x358) },
    [LC_PMC_DATA] = { "pmc_data", "PmcData", LC_PTR,
        OFF(NA, 0x25C, 0x264, 0x26C, NA, 0x358, 0x358, 0x360) },
    [LC_WIN_RT_PROVIDER_BINARY_LIST] = { "win_rt_provider_binary_list",
        "WinRtProviderBinaryList", LC_LIST,
        OFF(NA, 0x260, 0x268, 0x270, NA, 0x360, 0x360, 0x368) },
    [LC_SCRATCH_ARRAY] = { "scratch_array", "ScratchArray", LC_PTR,
        OFF(NA, 0x268, 0x270, 0x278, NA, 0x370, 0x370, 0x378) },
    [LC_DISALLOWED_GUIDS] = { "disallowed_guids", "DisallowedGuids", LC_BYTES,
        OFF(NA, NA, NA, 0x27C, NA, NA, NA, 0x380) },
    [LC_SERVER_SILO] = { "server_silo", "ServerSilo", LC_PTR,
        OFF(NA, NA, NA, 0x284, NA, NA, NA, 0x390) },
};

/* Structure sizes (format.md §13.1). */
static const uint16_t lc_sizes[ETL_ARCH_COUNT][ETL_WIN_COUNT] = {
    { 0x238, 0x270, 0x278, 0x288 },
    { 0x330, 0x378, 0x378, 0x398 },
};

static const char *const win_names[ETL_WIN_COUNT] = { "6.1", "6.2", "6.3", "10.0" };
static const char *const arch_names[ETL_ARCH_COUNT] = { "x86", "x64" };

size_t etl_lc_size(enum etl_win win, enum etl_arch arch)
{
    return lc_sizes[arch][win];
}

/* Returns the index of s among n names, or -1. */
static int name_index(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

bool etl_win_parse(const char *s, enum etl_win *out)
{
    int i = name_index(win_names, ETL_WIN_COUNT, s);
    if (i >= 0)
        *out = (enum etl_win)i;
    return i >= 0;
}

const char *etl_win_name(enum etl_win win)
{
    return win_names[win];
}

bool etl_arch_parse(const char *s, enum etl_arch *out)
{
    int i = name_index(arch_names, ETL_ARCH_COUNT, s);
    if (i >= 0)
        *out = (enum etl_arch)i;
    return i >= 0;
}

const char *etl_arch_name(enum etl_arch arch)
{
    return arch_names[arch];
}

/* Returns the offset of the first field after `off` in the layout, or the
 * structure's size: where a structure kept as bytes ends. */
static size_t next_offset(enum etl_win win, enum etl_arch arch, size_t off)
{
    size_t next = lc_sizes[arch][win];
    for (size_t i = 0; i < LC_FIELD_COUNT; i++) {
        size_t o = etl_lc_fields[i].off[arch][win];
        if (o != NA && o > off && o < next)
            next = o;
    }
    return next;
}

bool etl_decode_logger_context(const uint8_t *buf, size_t len, enum etl_win win,
                               enum etl_arch arch, struct etl_logger_context *out)
{
    memset(out, 0, sizeof *out);
    out->win = win;
    out->arch = arch;
    out->size = lc_sizes[arch][win];
    if (len < out->size)
        return false;
    unsigned ps = arch == ETL_ARCH_X64 ? 8u : 4u;
    struct etl_cursor all = etl_cur_make(buf, out->size);
    for (size_t i = 0; i < LC_FIELD_COUNT; i++) {
        const struct etl_lc_field *f = &etl_lc_fields[i];
        struct etl_lc_cell *c = &out->cell[i];
        size_t off = f->off[arch][win];
        if (off == NA)
            continue;
        struct etl_cursor cur = all;
        etl_cur_seek(&cur, off);
        switch (f->type) {
        case LC_U32:
        case LC_HEX32:
            c->v[0] = etl_cur_u32(&cur);
            break;
        case LC_I32:
            c->v[0] = (uint64_t)(int64_t)(int32_t)etl_cur_u32(&cur);
            break;
        case LC_I64:
        case LC_U64:
            c->v[0] = etl_cur_u64(&cur);
            break;
        case LC_PTR:
            c->v[0] = etl_cur_ptr(&cur, ps);
            break;
        case LC_GUID:
            c->nbytes = 16;
            break;
        case LC_USTR:
            /* USHORT Length, USHORT MaximumLength, (padding on x64) PWSTR Buffer */
            c->v[0] = etl_cur_u16(&cur);
            c->v[1] = etl_cur_u16(&cur);
            etl_cur_skip(&cur, ps - 4);
            c->v[2] = etl_cur_ptr(&cur, ps);
            break;
        case LC_LIST:
            c->v[0] = etl_cur_ptr(&cur, ps);
            c->v[1] = etl_cur_ptr(&cur, ps);
            break;
        case LC_BITMAP:
            /* ULONG SizeOfBitMap, (padding on x64) PULONG Buffer */
            c->v[0] = etl_cur_u32(&cur);
            etl_cur_skip(&cur, ps - 4);
            c->v[1] = etl_cur_ptr(&cur, ps);
            break;
        case LC_U32ARRAY:
            c->nbytes = ps; /* ULONG[1] on x86, ULONG[2] on x64 */
            break;
        case LC_BYTES:
            c->nbytes = next_offset(win, arch, off) - off;
            break;
        }
        if (c->nbytes) {
            c->bytes = etl_cur_here(&cur);
            etl_cur_skip(&cur, c->nbytes);
        }
        if (!etl_cur_ok(&cur)) {
            /* Cannot happen with the tables above (checked by the unit
             * tests), but a field is never read past the structure. */
            memset(c, 0, sizeof *c);
            continue;
        }
        c->present = true;
        c->offset = (uint32_t)off;
    }
    out->logger_id = (uint32_t)out->cell[LC_LOGGER_ID].v[0];
    out->buffer_size = (uint32_t)out->cell[LC_BUFFER_SIZE].v[0];
    out->logger_mode = (uint32_t)out->cell[LC_LOGGER_MODE].v[0];
    out->clock_type = (uint32_t)out->cell[LC_CLOCK_TYPE].v[0];
    out->events_lost = (uint32_t)out->cell[LC_EVENTS_LOST].v[0];
    out->flags = (uint32_t)out->cell[LC_FLAGS].v[0];
    out->request_flag = (uint32_t)out->cell[LC_REQUEST_FLAG].v[0];
    return true;
}

/* A bit-field name and the versions (enum etl_win, inclusive) that have it. */
struct vname {
    uint32_t value;
    uint8_t from, to;
    const char *name;
};

#define W61 ETL_WIN_61
#define W62 ETL_WIN_62
#define W63 ETL_WIN_63
#define W10 ETL_WIN_100

static const struct vname flag_names[] = {
    { 0x00000001u, W61, W10, "Persistent" },
    { 0x00000002u, W61, W10, "AutoLogger" },
    { 0x00000004u, W61, W10, "FsReady" },
    { 0x00000008u, W61, W10, "RealTime" },
    { 0x00000010u, W61, W10, "Wow" },
    { 0x00000020u, W61, W10, "KernelTrace" },
    { 0x00000040u, W61, W10, "NoMoreEnable" },
    { 0x00000080u, W61, W10, "StackTracing" },
    { 0x00000100u, W61, W10, "ErrorLogged" },
    { 0x00000200u, W61, W10, "RealtimeLoggerContextFreed" },
    { 0x00000400u, W62, W10, "PebsTracing" },
    { 0x00000800u, W62, W10, "PmcCounters" },
    { 0x00001000u, W62, W10, "PageAlignBuffers" },
    { 0x00002000u, W10, W10, "StackLookasideListAllocated" },
    { 0x00004000u, W10, W10, "SecurityTrace" },
    /* 0x00FF0000 SystemLoggerIndex (6.2 and later): a number */
    { 0x01000000u, W62, W10, "StackCaching" },
};

static const struct vname request_names[] = {
    { 0x00000001u, W61, W61, "RequestNewFie" },
    { 0x00000001u, W62, W63, "DbgRequestNewFie" },
    { 0x00000001u, W10, W10, "DbgRequestNewFile" },
    { 0x00000002u, W61, W61, "RequestUpdateFile" },
    { 0x00000002u, W62, W10, "DbgRequestUpdateFile" },
    { 0x00000004u, W61, W61, "RequestFlush" },
    { 0x00000004u, W62, W10, "DbgRequestFlush" },
    { 0x00000008u, W61, W61, "RequestDisableRealtime" },
    { 0x00000008u, W62, W10, "DbgRequestDisableRealtime" },
    { 0x00000010u, W61, W61, "RequestDisconnectConsumer" },
    { 0x00000010u, W62, W10, "DbgRequestDisconnectConsumer" },
    { 0x00000020u, W61, W61, "RequestConnectConsumer" },
    { 0x00000020u, W62, W10, "DbgRequestConnectConsumer" },
    { 0x00000040u, W62, W10, "DbgRequestNotifyConsumer" },
    { 0x00000080u, W62, W10, "DbgRequestUpdateHeader" },
    { 0x00000100u, W62, W63, "DbgRequestDefferdFlush" },
    { 0x00000100u, W10, W10, "DbgRequestDeferredFlush" },
    { 0x00000200u, W62, W63, "DbgRequestDefferdFlushTimer" },
    { 0x00000200u, W10, W10, "DbgRequestDeferredFlushTimer" },
    { 0x00000400u, W62, W10, "DbgRequestFlushTimer" },
    { 0x00000800u, W62, W10, "DbgRequestUpdateDebugger" },
};

/* Formats v with the names table has for version win. */
static size_t vflags_str(const struct vname *t, size_t n, enum etl_win win, uint32_t v,
                         char *buf, size_t cap)
{
    struct etl_name names[32];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 32; i++)
        if (win >= t[i].from && win <= t[i].to) {
            names[k].value = t[i].value;
            names[k].name = t[i].name;
            k++;
        }
    return etl_flags_str(names, k, v, buf, cap);
}

size_t etl_lc_flags_str(enum etl_win win, uint32_t flags, char *buf, size_t cap)
{
    if (win >= ETL_WIN_62)
        flags &= ~0x00FF0000u; /* SystemLoggerIndex */
    return vflags_str(flag_names, sizeof flag_names / sizeof flag_names[0], win, flags,
                      buf, cap);
}

size_t etl_lc_request_flag_str(enum etl_win win, uint32_t rf, char *buf, size_t cap)
{
    return vflags_str(request_names, sizeof request_names / sizeof request_names[0],
                      win, rf, buf, cap);
}
