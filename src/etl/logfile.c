/*
 * logfile.c - the logfile header event (HookId 0x0000): TRACE_LOGFILE_HEADER in
 * its 32- and 64-bit layouts, followed by the logger and log file names.
 * Layout: etl-format.md section 4 (GC-TLH, MS-TLH). The header kind of the
 * event (SYSTEM32 or SYSTEM64) selects the layout: pointer-sized members move
 * every later field by 8 bytes in the 64-bit form.
 */
#include "etl/etl.h"

#include <string.h>

#include "cursor.h"

/* Writes code point cp as UTF-8 into out[*o..cap-1), if it fits. */
static void put_utf8(char *out, size_t cap, size_t *o, uint32_t cp)
{
    uint8_t b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (uint8_t)(0xC0 | (cp >> 6));
        b[1] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (uint8_t)(0xE0 | (cp >> 12));
        b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (uint8_t)(0xF0 | (cp >> 18));
        b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 4;
    }
    if (*o + n < cap) {
        memcpy(out + *o, b, n);
        *o += n;
    }
}

size_t etl_utf16z(const uint8_t *p, size_t len, char *out, size_t cap)
{
    size_t i = 0, o = 0;
    while (len - i >= 2) {
        uint32_t u = etl_le16(p + i);
        i += 2;
        if (u == 0)
            break;
        if (u >= 0xD800 && u < 0xDC00 && len - i >= 2) {
            uint32_t lo = etl_le16(p + i);
            if (lo >= 0xDC00 && lo < 0xE000) {
                i += 2;
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            } else {
                u = 0xFFFD;
            }
        } else if (u >= 0xD800 && u < 0xE000) {
            u = 0xFFFD; /* unpaired surrogate */
        }
        put_utf8(out, cap, &o, u);
    }
    if (cap)
        out[o] = '\0';
    return i;
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
