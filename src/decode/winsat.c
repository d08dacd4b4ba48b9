/*
 * winsat.c - WinSAT assessment events (see winsat.h).
 *
 * Layout (PerfView's TraceEvent, SymbolTraceEventParser's WinSatXmlTraceData,
 * checked on every WinSAT event of the real traces): a u32 State, a u32
 * UncompressedLength, then the rest of the payload is LZNT1 data that
 * decompresses to exactly UncompressedLength bytes of UTF-16LE XML.
 */
#include "decode/winsat.h"

#include <stdio.h>

#include "decode/lznt1.h"

/* Appends a u32 field under one of this file's names (plain ASCII). */
static bool put_u32(struct etl_fields *out, const char *name, size_t nlen, uint32_t v)
{
    if (!etl_fields_uint(out, name, nlen, v))
        return false;
    out->f[out->n - 1].plain = 1;
    return true;
}

enum etl_fdec etl_winsat_fields(const struct etl_event *ev, struct etl_cursor *c,
                                struct etl_fields *out, uint8_t *scratch, size_t *bad_at,
                                const char **why, char *why_text, size_t why_cap)
{
    if (ev->opcode != 33 && ev->opcode != 35 && ev->opcode != 37)
        return ETL_FDEC_NO_LAYOUT;
    *why = NULL;
    /* A field that runs past the payload is damage at its offset. */
    if (etl_cur_left(c) < 4 || !put_u32(out, "State", 5, etl_cur_u32(c))) {
        *bad_at = 0;
        return ETL_FDEC_DAMAGED;
    }
    if (etl_cur_left(c) < 4) {
        *bad_at = 4;
        return ETL_FDEC_DAMAGED;
    }
    uint32_t ulen = etl_cur_u32(c);
    if (!put_u32(out, "UncompressedLength", 18, ulen)) {
        *bad_at = 4; /* the list is full: payload.c shows the payload whole */
        return ETL_FDEC_DAMAGED;
    }
    if (ulen > ETL_WINSAT_MAX) {
        /* A length past the bound is taken as it is; the data it would
         * give is left undecoded, from the Xml field's start. */
        *bad_at = c->pos;
        *why = "Xml not decompressed: UncompressedLength is over 64 KiB";
        return ETL_FDEC_DAMAGED;
    }
    size_t in_len = etl_cur_left(c), got = 0, used = 0;
    enum etl_lznt1_status st =
        etl_lznt1_decompress(etl_cur_here(c), in_len, scratch, ulen, &got, &used);
    if (st != ETL_LZNT1_OK || got != ulen) {
        *bad_at = c->pos; /* the Xml field's start: its bytes shown as payload_hex */
        if (st == ETL_LZNT1_OK)
            snprintf(why_text, why_cap, "Xml decompresses to fewer bytes than "
                                        "UncompressedLength");
        else
            snprintf(why_text, why_cap, "Xml does not decompress: %s", etl_lznt1_strerror(st));
        *why = why_text;
        return ETL_FDEC_DAMAGED;
    }
    /* The XML ends at its first U+0000, or fills the length. */
    size_t n = 0;
    while (n + 1 < got && (scratch[n] | scratch[n + 1]) != 0)
        n += 2;
    if (etl_fields_str_utf16(out, "Xml", 3, scratch, n))
        out->f[out->n - 1].plain = 1;
    c->pos += in_len;
    return ETL_FDEC_OK;
}
