/*
 * LZNT1 decompression (COMPRESSION_FORMAT_LZNT1), the format of the XML
 * that KernelTraceControl's WinSAT events carry (doc/format.md §18.6).
 *
 * Format: Microsoft [MS-XCA] section 2.5, "LZNT1 Algorithm Details".
 */
#ifndef ETL_LZNT1_H
#define ETL_LZNT1_H

#include <stddef.h>
#include <stdint.h>

enum etl_lznt1_status {
    ETL_LZNT1_OK = 0,
    ETL_LZNT1_TRUNCATED,    /* the input ends inside a chunk */
    ETL_LZNT1_BAD_CHUNK,    /* a chunk header without the signature 3 */
    ETL_LZNT1_BAD_DISTANCE, /* a copy reaches before the start of its chunk */
    ETL_LZNT1_OVERRUN,      /* the output would pass out_cap bytes */
};

/* Decompresses in[0..in_len) into out (out_cap bytes). The stream ends at
 * the end of the input or at a chunk header of zero. *out_len receives the
 * bytes written (on failure, those written before it), *in_used the input
 * bytes consumed (on failure, the offset where decoding stopped). */
enum etl_lznt1_status etl_lznt1_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
                                           size_t out_cap, size_t *out_len, size_t *in_used);

/* Returns a short static English description of a status. */
const char *etl_lznt1_strerror(enum etl_lznt1_status st);

#endif /* ETL_LZNT1_H */
