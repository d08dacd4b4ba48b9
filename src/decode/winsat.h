/*
 * winsat.h - KernelTraceControl's WinSAT events (ed54dff8-c409-4cf6-bf83-
 * 05e1e61a09c4; opcodes 33 WinSPR, 35 Metrics, 37 SystemConfig): the
 * assessment's XML, compressed (doc/format.md §18.6).
 */
#ifndef ETL_WINSAT_H
#define ETL_WINSAT_H

#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "etl/etl.h"
#include "fields.h"

/* The largest UncompressedLength decoded (bytes of UTF-16). */
#define ETL_WINSAT_MAX (64u * 1024u)

/* Decodes a WinSAT event's payload (ev's group must be ETL_KG_WINSAT) into
 * out: State and UncompressedLength (u32 each), then Xml, the LZNT1 data
 * that follows decompressed into scratch (ETL_WINSAT_MAX bytes) and read as
 * UTF-16. Returns ETL_FDEC_OK, ETL_FDEC_NO_LAYOUT (another opcode) or
 * ETL_FDEC_DAMAGED with *bad_at the offset of the field that is damaged
 * (runs past the payload, or is Xml: compressed data that does not
 * decompress to UncompressedLength bytes, or an UncompressedLength over
 * ETL_WINSAT_MAX) and *why what is wrong (NULL: it runs past), a static
 * string or one written to why_text (why_cap bytes). */
enum etl_fdec etl_winsat_fields(const struct etl_event *ev, struct etl_cursor *c,
                                struct etl_fields *out, uint8_t *scratch, size_t *bad_at,
                                const char **why, char *why_text, size_t why_cap);

#endif
