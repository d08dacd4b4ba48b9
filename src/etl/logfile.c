/*
 * logfile.c - the logfile header event (HookId 0x0000): TRACE_LOGFILE_HEADER in
 * its 32- and 64-bit layouts, followed by the logger and log file names.
 * Layout: doc/format.md §4. The header kind of the
 * event (SYSTEM32 or SYSTEM64) selects the layout: pointer-sized members move
 * every later field by 8 bytes in the 64-bit form.
 */
#include "etl/etl.h"

#include <string.h>

#include "cursor.h"
#include "fmt.h"

bool etl_parse_logfile(const struct etl_event *ev, struct etl_logfile *h)
{
    if ((ev->kind != ETL_KIND_SYSTEM32 && ev->kind != ETL_KIND_SYSTEM64) ||
        ev->hook_id != 0x0000)
        return false;
    unsigned ptr = ev->ptr_size;
    struct etl_cursor c = etl_cur_make(ev->data, ev->data_len);
    memset(h, 0, sizeof *h);
    h->buffer_size = etl_cur_u32(&c);
    etl_cur_bytes(&c, h->version, 4);
    h->build = etl_cur_u32(&c);
    h->cpus = etl_cur_u32(&c);
    h->end_time = (int64_t)etl_cur_u64(&c);
    h->timer_resolution = etl_cur_u32(&c);
    h->max_file_size = etl_cur_u32(&c);
    h->log_file_mode = etl_cur_u32(&c);
    h->buffers_written = etl_cur_u32(&c);
    h->start_buffers = etl_cur_u32(&c);
    h->pointer_size = etl_cur_u32(&c);
    h->events_lost = etl_cur_u32(&c);
    h->cpu_mhz = etl_cur_u32(&c);
    etl_cur_ptr(&c, ptr); /* LoggerName: a timer source since 6.1 */
    etl_cur_ptr(&c, ptr); /* LogFileName: likewise */
    h->tz_bias = (int32_t)etl_cur_u32(&c);
    etl_cur_skip(&c, 0xAC - 4 + 4); /* rest of TIME_ZONE_INFORMATION, pad */
    h->boot_time = (int64_t)etl_cur_u64(&c);
    h->perf_freq = (int64_t)etl_cur_u64(&c);
    h->start_time = (int64_t)etl_cur_u64(&c);
    h->clock_type = etl_cur_u32(&c);
    h->buffers_lost = etl_cur_u32(&c);
    if (!etl_cur_ok(&c))
        return false;
    size_t n = etl_utf16z(etl_cur_here(&c), etl_cur_left(&c), h->logger_name,
                          sizeof h->logger_name);
    etl_cur_skip(&c, n);
    etl_utf16z(etl_cur_here(&c), etl_cur_left(&c), h->log_file_name,
               sizeof h->log_file_name);
    h->t0 = ev->ts;
    return true;
}
