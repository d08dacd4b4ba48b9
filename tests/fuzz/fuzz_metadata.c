/*
 * fuzz_metadata.c - descriptions carried in a trace. Bit 0 of byte 0
 * chooses how the description bytes (bytes 3 .. 3+N, N = bytes 1-2) arrive:
 * as the TRACE_EVENT_INFO of a KernelTraceControl EventMetadata event, or as
 * the text of an EventSource manifest event (read with libxml2). A manifest
 * is cut into K = bits 2-4 + 1 chunks, one event each; bit 5 sends the
 * second chunk first, bit 6 has nine providers send it, their chunks
 * interleaved (one more than the pending manifests kept), bit 7 gives the
 * last chunk a wrong total. The rest of the input is then the payload of an
 * event of each of the first four descriptions kept (bit 1: a 32-bit
 * record). Checks: payload_check.h, for every metadata event too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/kfields.h"
#include "payload_check.h"

/* Learns what a metadata event describes and checks its own decoding. */
static void learn(struct etl_payload *pl, const struct etl_event *ev)
{
    if (!etl_payload_learn(pl, ev))
        abort(); /* memory does not run out here */
    check_payload(pl, ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t metadata_guid[16] = { 0xc1, 0xf6, 0xcc, 0xbb, 0xd1, 0x6c, 0xc4, 0x48,
                                               0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71 };
    static uint8_t buf[8 + 65536];
    if (size < 3)
        return 0;
    size_t n = (size_t)data[1] | (size_t)data[2] << 8;
    if (n > size - 3)
        n = size - 3;
    if (size - 3 - n > 65535) /* an event holds at most 64 KiB */
        return 0;
    bool ptr4 = (data[0] & 2u) != 0;
    struct etl_payload *pl = etl_payload_new();
    if (!pl)
        abort();
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.flags = ETL_EV_TS | ETL_EV_GUID | ETL_EV_OPCODE | ETL_EV_VERSION;
    ev.ptr_size = ptr4 ? 4 : 8;
    if (data[0] & 1u) {
        /* The envelope: format 1, version 1.0, magic, total, chunk. */
        unsigned k = ((data[0] >> 2) & 7u) + 1, nprov = (data[0] & 0x40u) ? 9 : 1;
        ev.kind = ptr4 ? ETL_KIND_EVENT_HEADER32 : ETL_KIND_EVENT_HEADER64;
        ev.flags |= ETL_EV_EVENT_ID;
        ev.event_id = 65534;
        ev.opcode = 254;
        ev.data = buf;
        for (unsigned j = 0; j < k; j++) {
            unsigned c = j;
            if ((data[0] & 0x20u) && k > 1 && j < 2)
                c = 1 - j;
            size_t from = n * c / k, to = n * (c + 1) / k;
            unsigned total = (data[0] & 0x80u) && c == k - 1 ? k + 1 : k;
            const uint8_t env[8] = { 1, 1, 0, 0x5B, (uint8_t)total, 0, (uint8_t)c, 0 };
            memcpy(buf, env, 8);
            memcpy(buf + 8, data + 3 + from, to - from);
            ev.data_len = (uint32_t)(to - from + 8);
            for (unsigned v = 0; v < nprov; v++) {
                ev.guid[0] = (uint8_t)v;
                learn(pl, &ev);
            }
        }
    } else {
        ev.kind = ptr4 ? ETL_KIND_FULL32 : ETL_KIND_FULL64;
        memcpy(ev.guid, metadata_guid, 16);
        ev.opcode = 32;
        ev.data = data + 3;
        ev.data_len = (uint32_t)n;
        learn(pl, &ev);
    }
    /* Events the descriptions describe, with the rest as their payload. */
    for (size_t i = 0; i < 4; i++) {
        struct etl_event d;
        unsigned code, version;
        bool classic;
        memset(&d, 0, sizeof d);
        if (!etl_meta_key(&pl->meta, i, d.guid, &code, &version, &classic))
            break;
        d.flags = ETL_EV_TS | ETL_EV_GUID | ETL_EV_OPCODE | ETL_EV_VERSION;
        d.ptr_size = ev.ptr_size;
        d.version = (uint16_t)version;
        if (classic) {
            d.kind = ptr4 ? ETL_KIND_FULL32 : ETL_KIND_FULL64;
            d.opcode = (uint8_t)code;
        } else {
            d.kind = ptr4 ? ETL_KIND_EVENT_HEADER32 : ETL_KIND_EVENT_HEADER64;
            d.flags |= ETL_EV_EVENT_ID;
            d.event_id = (uint16_t)code;
        }
        d.data = data + 3 + n;
        d.data_len = (uint32_t)(size - 3 - n);
        check_payload(pl, &d);
    }
    etl_payload_free(pl);
    return 0;
}
