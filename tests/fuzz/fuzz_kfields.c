/*
 * fuzz_kfields.c - one payload through the built-in layout tables (the
 * kernel classes and the .NET runtime's events) by way of the payload
 * decoder. Byte 0 picks the header: bits 0-1 at 0, 1 or 2 a kernel header
 * with a HookId (PERFINFO64, PERFINFO32, SYSTEM64); at 3, an EVENT_HEADER64
 * record of the built-in provider (bits 2-6) when bit 7 is set, else a FULL
 * record (FULL32 when bit 6 is set) of the kernel class GUID (bits 2-7).
 * Bytes 1-2 are the HookId or event id (the opcode is byte 1), byte 3 the
 * version, the rest the payload. Checks: payload_check.h; a Process or
 * Thread event also goes through src/decode/process.c's decoders.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/process.h"
#include "payload_check.h"

/* A Process or Thread event also goes through the process map's decoders
 * (src/decode/process.c): a problem lies inside the payload, and what was
 * decoded converts to text. */
static void process_thread(const struct etl_event *ev)
{
    enum etl_pt_op op;
    enum etl_pt_family fam = etl_pt_classify(ev->hook_id, &op);
    if (fam == ETL_PT_NONE)
        return;
    struct etl_cursor c = etl_cur_make(ev->data, ev->data_len);
    size_t at = 0;
    enum etl_pt_status st;
    char buf[256];
    const struct etl_u16str *name;
    struct etl_process_rec pr;
    struct etl_thread_rec tr;
    memset(&pr, 0, sizeof pr);
    memset(&tr, 0, sizeof tr);
    if (fam == ETL_PT_PROCESS) {
        st = etl_decode_process(ev, &c, &pr, &at);
        name = &pr.cmdline;
        if (st == ETL_PT_OK && etl_process_sid(&pr, buf, sizeof buf) &&
            strnlen(buf, sizeof buf) >= sizeof buf)
            abort();
    } else {
        st = etl_decode_thread(ev, &c, &tr, &at);
        name = &tr.name;
    }
    const char *msg = etl_pt_status_msg(st, fam == ETL_PT_PROCESS);
    if (!msg || !*msg || (st != ETL_PT_OK && at > ev->data_len))
        abort();
    if (st == ETL_PT_OK && etl_u16str_utf8(name, buf, 16) >= 16)
        abort(); /* cut short to fit, terminated */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4 || size - 4 > 65535) /* an event holds at most 64 KiB */
        return 0;
    struct etl_payload *pl = payload_kept();
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    unsigned sel = data[0];
    uint16_t id = (uint16_t)(data[1] | data[2] << 8);
    ev.version = data[3];
    ev.opcode = (uint8_t)id;
    ev.data = data + 4;
    ev.data_len = (uint32_t)(size - 4);
    ev.flags = ETL_EV_TS | ETL_EV_OPCODE | ETL_EV_VERSION;
    switch (sel & 3u) {
    case 0: case 1: case 2: {
        static const uint8_t kinds[] = { ETL_KIND_PERFINFO64, ETL_KIND_PERFINFO32,
                                         ETL_KIND_SYSTEM64 };
        ev.kind = kinds[sel & 3u];
        ev.hook_id = id;
        ev.flags |= ETL_EV_HOOK;
        break;
    }
    default:
        if (sel & 0x80u) {
            const struct etl_pprovider *p = &etl_pproviders[(sel >> 2) % etl_npproviders];
            ev.kind = ETL_KIND_EVENT_HEADER64;
            ev.event_id = id;
            ev.flags |= ETL_EV_GUID | ETL_EV_EVENT_ID | ETL_EV_TID;
            memcpy(ev.guid, p->guid, 16);
        } else {
            ev.kind = (sel & 0x40u) ? ETL_KIND_FULL32 : ETL_KIND_FULL64;
            ev.flags |= ETL_EV_GUID | ETL_EV_TID;
            memcpy(ev.guid, etl_kguids[(sel >> 2) % etl_nkguids].guid, 16);
        }
    }
    ev.ptr_size = (ev.kind == ETL_KIND_PERFINFO32 || ev.kind == ETL_KIND_FULL32) ? 4 : 8;
    check_payload(pl, &ev);
    if (ev.flags & ETL_EV_HOOK)
        process_thread(&ev);
    return 0;
}
