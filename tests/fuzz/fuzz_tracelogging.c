/*
 * fuzz_tracelogging.c - one TraceLogging event: an EVENT_HEADER64 record
 * (EVENT_HEADER32 when bit 0 of byte 0 is set) whose extended data items
 * are bytes 3 .. 3+N (N = bytes 1-2, little-endian) and whose payload is
 * the rest, through the TraceLogging decoder and the payload decoder.
 * Checks: the schema's name, and payload_check.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/tracelogging.h"
#include "payload_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    size_t n = (size_t)data[1] | (size_t)data[2] << 8;
    if (n > size - 3)
        n = size - 3;
    if (n > 65535 || size - 3 - n > 65535) /* an event holds at most 64 KiB */
        return 0;
    struct etl_payload *pl = payload_kept();
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = (data[0] & 1u) ? ETL_KIND_EVENT_HEADER32 : ETL_KIND_EVENT_HEADER64;
    ev.ptr_size = (data[0] & 1u) ? 4 : 8;
    ev.flags = ETL_EV_TS | ETL_EV_GUID | ETL_EV_EVENT_ID | ETL_EV_OPCODE | ETL_EV_VERSION;
    ev.ext_items = n ? data + 3 : NULL;
    ev.ext_items_len = (uint32_t)n;
    ev.data = data + 3 + n;
    ev.data_len = (uint32_t)(size - 3 - n);
    char name[256];
    if (etl_tl_event_name(&ev, name, sizeof name) && strlen(name) >= sizeof name)
        abort();
    etl_payload_learn(pl, &ev);
    check_payload(pl, &ev);
    return 0;
}
