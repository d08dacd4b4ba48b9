/*
 * fuzz_logfile.c - the logfile header: byte 0 picks the header kind (bit 0:
 * SYSTEM64, else SYSTEM32) and a cap for etl_utf16z (bits 1-7); the rest is
 * the event data given to etl_parse_logfile. The decoded header then goes
 * through the clock conversion and time formatting that the printers use,
 * in every time mode, at the times that matter (t0, the extremes).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "etl/etl.h"
#include "fmt.h"
#include "print/printer.h"

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    bool is64 = data[0] & 1;
    ev.kind = is64 ? ETL_KIND_SYSTEM64 : ETL_KIND_SYSTEM32;
    ev.ptr_size = is64 ? 8 : 4;
    ev.flags = ETL_EV_TS | ETL_EV_HOOK | ETL_EV_TID;
    ev.hook_id = 0x0000;
    ev.data = data + 1;
    ev.data_len = (uint32_t)(size - 1);
    ev.ts = size >= 9 ? (int64_t)etl_le64(data + 1) : 0;
    struct etl_logfile h;
    if (etl_parse_logfile(&ev, &h)) {
        if (strnlen(h.logger_name, sizeof h.logger_name) >= sizeof h.logger_name ||
            strnlen(h.log_file_name, sizeof h.log_file_name) >= sizeof h.log_file_name)
            abort();
        struct etl_printer p;
        memset(&p, 0, sizeof p);
        etl_clock_from_header(&p.clock, &h);
        sink += (unsigned)etl_clock_filetime(&p.clock, h.t0);
        const int64_t times[] = { h.t0, 0, INT64_MAX, INT64_MIN, h.start_time,
                                  h.end_time, h.boot_time };
        char buf[64];
        for (int mode = 0; mode < 3; mode++) {
            p.time_mode = (enum etl_time_mode)mode;
            p.ops = mode == 1 ? &etl_print_text : &etl_print_csv;
            for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
                bool num;
                size_t n = etl_format_time(&p, times[i], buf, &num);
                if (n >= 40)
                    abort();
                sink += n;
            }
        }
        sink += etl_filetime_iso(h.start_time, buf);
        sink += etl_filetime_iso(h.end_time, buf);
        sink += etl_filetime_iso(h.boot_time, buf);
    }
    /* The UTF-16 conversion alone, with a small output. */
    size_t cap = data[0] >> 1;
    char *out = malloc(cap ? cap : 1);
    if (!out)
        abort();
    size_t used = etl_utf16z(data + 1, size - 1, out, cap);
    if (used > size - 1 || (cap && strnlen(out, cap) >= cap))
        abort();
    free(out);
    return 0;
}
