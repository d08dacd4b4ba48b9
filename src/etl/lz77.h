/*
 * Plain LZ77 decompression for compressed ETL buffers.
 *
 * Format: Microsoft [MS-XCA] "Plain LZ77" (COMPRESSION_FORMAT_XPRESS), as
 * described in doc/format.md §10 ("Compressed ETL files").
 */
#ifndef ETL_LZ77_H
#define ETL_LZ77_H

#include <stddef.h>
#include <stdint.h>

enum etl_lz77_status {
    ETL_LZ77_OK = 0,
    ETL_LZ77_TRUNCATED,   /* input ended before out_len bytes were produced */
    ETL_LZ77_BAD_DISTANCE,/* a match reaches before the start of the output */
    ETL_LZ77_OVERRUN      /* a match would write past out_len */
};

/* Decompresses in[0..in_len) into out[0..out_len). Succeeds only when exactly
 * out_len bytes are produced. *in_used (may be NULL) receives the number of input
 * bytes consumed, or on failure the input offset where decoding stopped. */
enum etl_lz77_status etl_lz77_decompress(const uint8_t *in, size_t in_len,
                                         uint8_t *out, size_t out_len,
                                         size_t *in_used);

/* etl_lz77_decompress, also giving in *out_made (may be NULL) the bytes of
 * out produced: out_len on success, else those written before decoding
 * stopped (what damaged input left of the buffer, its start sound). */
enum etl_lz77_status etl_lz77_decompress_made(const uint8_t *in, size_t in_len,
                                              uint8_t *out, size_t out_len,
                                              size_t *in_used, size_t *out_made);

/* Returns a short static English description of a status code. */
const char *etl_lz77_strerror(enum etl_lz77_status st);

#endif /* ETL_LZ77_H */
