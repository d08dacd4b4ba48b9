/*
 * Test-only Plain LZ77 compressor (Microsoft [MS-XCA] "Plain LZ77", the format
 * of compressed ETL buffers, etldump format notes section 10). It produces
 * streams that src/etl/lz77.c decompresses; used by the unit tests and by the
 * test trace writer to make compressed ETL buffers.
 */
#ifndef LZ77_COMPRESS_H
#define LZ77_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

/* Compresses in[0..in_len) into out (capacity out_cap). Returns the compressed length, or 0 if out_cap is too small. */
/* (An out_cap of in_len + in_len / 8 + 8 is always enough.) */
size_t lz77_compress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap);

#endif /* LZ77_COMPRESS_H */
