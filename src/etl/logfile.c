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

/* Reads one of the names that end the record (NUL-terminated UTF-16LE,
 * §4.1) into out. A name that runs to the record's end without its
 * terminator is damage: *damage_at receives where it starts (if not set
 * yet), a last odd byte (half a code unit) becomes U+FFFD, and false is
 * returned. */
static bool read_name(struct etl_cursor *c, char *out, size_t cap, uint32_t *damage_at)
{
    const uint8_t *p = etl_cur_here(c);
    size_t left = etl_cur_left(c);
    size_t n = etl_utf16z(p, left, out, cap);
    etl_cur_skip(c, n);
    if (n >= 2 && p[n - 2] == 0 && p[n - 1] == 0)
        return true;
    if (!*damage_at)
        *damage_at = (uint32_t)(c->pos - n);
    size_t len = strlen(out);
    if (left - n == 1 && cap - len > 3)
        memcpy(out + len, "\xEF\xBF\xBD", 4);
    return false;
}

/* Reads a SYSTEMTIME's eight u16 into st. */
static void read_systemtime(struct etl_cursor *c, uint16_t st[8])
{
    for (int i = 0; i < 8; i++)
        st[i] = etl_cur_u16(c);
}

/* Reads one of TIME_ZONE_INFORMATION's names: WCHAR[32], up to its first
 * zero unit (all 32 units when it has none). */
static void read_zone_name(struct etl_cursor *c, char *out, size_t cap)
{
    out[0] = '\0';
    if (etl_cur_left(c) >= 64)
        etl_utf16z(etl_cur_here(c), 64, out, cap);
    etl_cur_skip(c, 64);
}

/* Reads TIME_ZONE_INFORMATION (0xAC bytes, §4). */
static void read_time_zone(struct etl_cursor *c, struct etl_time_zone *tz)
{
    tz->bias = (int32_t)etl_cur_u32(c);
    read_zone_name(c, tz->standard_name, sizeof tz->standard_name);
    read_systemtime(c, tz->standard_date);
    tz->standard_bias = (int32_t)etl_cur_u32(c);
    read_zone_name(c, tz->daylight_name, sizeof tz->daylight_name);
    read_systemtime(c, tz->daylight_date);
    tz->daylight_bias = (int32_t)etl_cur_u32(c);
}

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
    read_time_zone(&c, &h->tz);
    etl_cur_skip(&c, 4); /* alignment */
    h->boot_time = (int64_t)etl_cur_u64(&c);
    h->perf_freq = (int64_t)etl_cur_u64(&c);
    h->start_time = (int64_t)etl_cur_u64(&c);
    h->clock_type = etl_cur_u32(&c);
    h->buffers_lost = etl_cur_u32(&c);
    if (!etl_cur_ok(&c))
        return false;
    if (!read_name(&c, h->logger_name, sizeof h->logger_name, &h->name_damage_at))
        h->log_file_name[0] = '\0'; /* the logger name took the rest */
    else
        read_name(&c, h->log_file_name, sizeof h->log_file_name, &h->name_damage_at);
    h->t0 = ev->ts;
    return true;
}
