/*
 * info.c - the trace-info view: what the logfile header and the buffer index
 * say about a trace.
 */
#include <stdio.h>

#include "decode/names.h"
#include "view/groupmask.h"
#include "view/view.h"

enum {
    I_FILE, I_OS_VERSION, I_BUILD, I_LAYOUT, I_CPUS, I_POINTER_SIZE,
    I_CLOCK_TYPE, I_PERF_FREQ, I_CPU_MHZ, I_TIMER_RES, I_START, I_END,
    I_BOOT, I_BUFFER_SIZE, I_BUFFERS, I_COMPRESSED, I_BUFFERS_WRITTEN,
    I_LOG_FILE_MODE, I_EVENTS_LOST, I_BUFFERS_LOST, I_LOGGER, I_LOG_FILE,
    I_START_RAW, I_END_RAW, I_LOG_FILE_MODE_NAMES, I_CLOCK_TYPE_NAME,
    I_KERNEL_EVENT_VERSION, I_GROUP_MASKS, I_GROUP_MASK_NAMES, I_ENABLE_FLAG_NAMES,
    I_CONTEXT_SWITCHES, I_TZ_BIAS, I_TZ_STD_NAME, I_TZ_STD_BIAS, I_TZ_DST_NAME,
    I_TZ_DST_BIAS, I_UTC_OFFSET, I_COUNT
};

static const struct etl_column info_cols[I_COUNT] = {
    [I_FILE] = { "file", ETL_COL_STR, 0, false },
    [I_OS_VERSION] = { "os_version", ETL_COL_NAME, 0, false },
    [I_BUILD] = { "build", ETL_COL_UINT, 0, false },
    [I_LAYOUT] = { "layout_version", ETL_COL_NAME, 0, false },
    [I_CPUS] = { "cpus", ETL_COL_UINT, 0, false },
    [I_POINTER_SIZE] = { "pointer_size", ETL_COL_UINT, 0, false },
    [I_CLOCK_TYPE] = { "clock_type", ETL_COL_NAME, 0, false },
    [I_PERF_FREQ] = { "perf_freq", ETL_COL_UINT, 0, false },
    [I_CPU_MHZ] = { "cpu_mhz", ETL_COL_UINT, 0, false },
    [I_TIMER_RES] = { "timer_resolution", ETL_COL_UINT, 0, false },
    [I_START] = { "start_time", ETL_COL_FILETIME, 0, false },
    [I_END] = { "end_time", ETL_COL_FILETIME, 0, false },
    [I_BOOT] = { "boot_time", ETL_COL_FILETIME, 0, false },
    [I_BUFFER_SIZE] = { "buffer_size", ETL_COL_UINT, 0, false },
    [I_BUFFERS] = { "buffers", ETL_COL_UINT, 0, false },
    [I_COMPRESSED] = { "compressed_buffers", ETL_COL_UINT, 0, false },
    [I_BUFFERS_WRITTEN] = { "buffers_written", ETL_COL_UINT, 0, false },
    [I_LOG_FILE_MODE] = { "log_file_mode", ETL_COL_HEX32, 0, false },
    [I_EVENTS_LOST] = { "events_lost", ETL_COL_UINT, 0, false },
    [I_BUFFERS_LOST] = { "buffers_lost", ETL_COL_UINT, 0, false },
    [I_LOGGER] = { "logger_name", ETL_COL_STR, 0, false },
    [I_LOG_FILE] = { "log_file_name", ETL_COL_STR, 0, false },
    [I_START_RAW] = { "start_filetime", ETL_COL_UINT, 0, true },
    [I_END_RAW] = { "end_filetime", ETL_COL_UINT, 0, true },
    [I_LOG_FILE_MODE_NAMES] = { "log_file_mode_names", ETL_COL_NAME, 0, false },
    [I_CLOCK_TYPE_NAME] = { "clock_type_name", ETL_COL_NAME, 0, false },
    [I_KERNEL_EVENT_VERSION] = { "kernel_event_version", ETL_COL_UINT, 0, false },
    [I_GROUP_MASKS] = { "group_masks", ETL_COL_NAME, 0, false },
    [I_GROUP_MASK_NAMES] = { "group_mask_names", ETL_COL_NAME, 0, false },
    [I_ENABLE_FLAG_NAMES] = { "enable_flag_names", ETL_COL_NAME, 0, false },
    [I_CONTEXT_SWITCHES] = { "context_switches", ETL_COL_NAME, 0, false },
    [I_TZ_BIAS] = { "time_zone_bias", ETL_COL_INT, 0, false },
    [I_TZ_STD_NAME] = { "time_zone_standard_name", ETL_COL_STR, 0, false },
    [I_TZ_STD_BIAS] = { "time_zone_standard_bias", ETL_COL_INT, 0, false },
    [I_TZ_DST_NAME] = { "time_zone_daylight_name", ETL_COL_STR, 0, false },
    [I_TZ_DST_BIAS] = { "time_zone_daylight_bias", ETL_COL_INT, 0, false },
    [I_UTC_OFFSET] = { "utc_offset", ETL_COL_NAME, 0, false },
};

const struct etl_table etl_table_info = { "trace", info_cols, I_COUNT, true, NULL };

int etl_view_info(struct etl_printer *p, struct etl_file *f)
{
    return etl_view_info_scan(p, f, false, false);
}

int etl_view_info_scan(struct etl_printer *p, struct etl_file *f, bool all, bool strict)
{
    const struct etl_logfile *h = etl_file_header(f);
    const struct etl_buffer_totals *bt = etl_file_totals(f);
    struct etl_value v[I_COUNT] = { 0 };
    char os[16], layout[16], clock[16];
    snprintf(os, sizeof os, "%u.%u", h->version[0], h->version[1]);
    snprintf(layout, sizeof layout, "%u.%u", h->version[2], h->version[3]);
    const char *cn = etl_clock_type_name(h->clock_type);
    if (!cn) {
        snprintf(clock, sizeof clock, "%u", (unsigned)h->clock_type);
        cn = clock;
    }
    ETL_CELL_STR(v, I_FILE, etl_file_name(f), true);
    ETL_CELL_STR(v, I_OS_VERSION, os, true);
    ETL_CELL(v, I_BUILD, u, h->build, true);
    ETL_CELL_STR(v, I_LAYOUT, layout, true);
    ETL_CELL(v, I_CPUS, u, h->cpus, true);
    ETL_CELL(v, I_POINTER_SIZE, u, h->pointer_size, true);
    ETL_CELL_STR(v, I_CLOCK_TYPE, cn, true);
    ETL_CELL(v, I_PERF_FREQ, u, (uint64_t)h->perf_freq, true);
    ETL_CELL(v, I_CPU_MHZ, u, h->cpu_mhz, true);
    ETL_CELL(v, I_TIMER_RES, u, h->timer_resolution, true);
    ETL_CELL(v, I_START, i, h->start_time, true);
    if (h->end_time != 0)
        ETL_CELL(v, I_END, i, h->end_time, true);
    if (h->boot_time != 0)
        ETL_CELL(v, I_BOOT, i, h->boot_time, true);
    ETL_CELL(v, I_BUFFER_SIZE, u, h->buffer_size, true);
    ETL_CELL(v, I_BUFFERS, u, bt->buffers, true);
    ETL_CELL(v, I_COMPRESSED, u, bt->compressed, true);
    ETL_CELL(v, I_BUFFERS_WRITTEN, u, h->buffers_written, true);
    ETL_CELL(v, I_LOG_FILE_MODE, u, h->log_file_mode, true);
    ETL_CELL(v, I_EVENTS_LOST, u, h->events_lost, true);
    ETL_CELL(v, I_BUFFERS_LOST, u, h->buffers_lost, true);
    ETL_CELL_STR(v, I_LOGGER, h->logger_name, true);
    ETL_CELL_STR(v, I_LOG_FILE, h->log_file_name, true);
    ETL_CELL(v, I_START_RAW, u, (uint64_t)h->start_time, true);
    if (h->end_time != 0)
        ETL_CELL(v, I_END_RAW, u, (uint64_t)h->end_time, true);
    /* Names, and what the header-extension events say (view/groupmask.c). */
    struct etl_ext_scan scan;
    struct etl_trace_names tn;
    bool scanned = etl_ext_scan(f, all, &scan);
    etl_trace_names_fill(&tn, h, &scan);
    if (tn.log_file_mode[0])
        ETL_CELL_STR(v, I_LOG_FILE_MODE_NAMES, tn.log_file_mode, true);
    ETL_CELL_STR(v, I_CLOCK_TYPE_NAME, tn.clock_type, true);
    if (scan.has_version)
        ETL_CELL(v, I_KERNEL_EVENT_VERSION, u, scan.version, true);
    if (tn.context_switches) {
        ETL_CELL_STR(v, I_GROUP_MASKS, tn.group_masks, true);
        ETL_CELL_STR(v, I_GROUP_MASK_NAMES, tn.group_mask_names, true);
        if (tn.enable_flag_names[0])
            ETL_CELL_STR(v, I_ENABLE_FLAG_NAMES, tn.enable_flag_names, true);
        ETL_CELL_STR(v, I_CONTEXT_SWITCHES, tn.context_switches, true);
    }
    /* The recording machine's time zone, and its offset from UTC when the
     * trace started (by the zone's rules for daylight time). */
    const struct etl_time_zone *tz = &h->tz;
    char offset[7];
    ETL_CELL(v, I_TZ_BIAS, i, tz->bias, true);
    ETL_CELL_STR(v, I_TZ_STD_NAME, tz->standard_name, tz->standard_name[0] != '\0');
    ETL_CELL(v, I_TZ_STD_BIAS, i, tz->standard_bias, true);
    ETL_CELL_STR(v, I_TZ_DST_NAME, tz->daylight_name, tz->daylight_name[0] != '\0');
    ETL_CELL(v, I_TZ_DST_BIAS, i, tz->daylight_bias, true);
    if (h->start_time > 0) {
        bool daylight;
        etl_tz_offset_str(etl_tz_offset(tz, h->start_time, &daylight), offset);
        ETL_CELL_STR(v, I_UTC_OFFSET, offset, true);
    }
    int rc = 0;
    /* --strict stops at the first problem the scan met: said alone, and no
     * changes after it. */
    bool stop = strict && all && (scan.scope.nheld > 0 || scan.scope.dropped_held > 0);
    if (!scanned)
        goto out;
    if (etl_print_begin_table(p, &etl_table_info) || etl_print_row(p, v) ||
        etl_print_end_table(p))
        rc = -1;
    if (rc == 0 && all && !stop)
        rc = etl_view_groupmask_changes(p, f, &scan);
out:
    if (stop)
        etl_scope_trim(&scan.scope, 1);
    etl_ext_scan_replay(&scan);
    etl_ext_scan_free(&scan);
    return rc;
}
