/*
 * fuzz_lz77.c - Plain LZ77 (MS-XCA) decompression: bytes 0-2 give the
 * output size (little-endian, at most 1 MiB), the rest is the compressed
 * stream. The output buffer has exactly that size, so a write past it is
 * caught.
 */
#include <stdint.h>
#include <stdlib.h>

#include "etl/lz77.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    size_t out_len = ((size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16) &
                     0xFFFFFu;
    uint8_t *out = malloc(out_len ? out_len : 1);
    if (!out)
        abort();
    size_t used = (size_t)-1;
    enum etl_lz77_status st = etl_lz77_decompress(data + 3, size - 3, out, out_len, &used);
    if (used > size - 3)
        abort();
    if (st != ETL_LZ77_OK && st != ETL_LZ77_TRUNCATED && st != ETL_LZ77_BAD_DISTANCE &&
        st != ETL_LZ77_OVERRUN)
        abort();
    if (!etl_lz77_strerror(st))
        abort();
    free(out);
    return 0;
}
