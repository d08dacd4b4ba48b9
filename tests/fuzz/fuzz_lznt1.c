/*
 * fuzz_lznt1.c - LZNT1 (MS-XCA) decompression: bytes 0-2 give the output
 * room (little-endian, at most 1 MiB), the rest is the compressed stream.
 * The output buffer has exactly that size, so a write past it is caught;
 * the sizes reported stay within the buffers.
 */
#include <stdint.h>
#include <stdlib.h>

#include "decode/lznt1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    size_t cap = ((size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16) & 0xFFFFFu;
    uint8_t *out = malloc(cap ? cap : 1);
    if (!out)
        abort();
    size_t got = (size_t)-1, used = (size_t)-1;
    enum etl_lznt1_status st = etl_lznt1_decompress(data + 3, size - 3, out, cap, &got, &used);
    if (got > cap || used > size - 3)
        abort();
    if (st != ETL_LZNT1_OK && st != ETL_LZNT1_TRUNCATED && st != ETL_LZNT1_BAD_CHUNK &&
        st != ETL_LZNT1_BAD_DISTANCE && st != ETL_LZNT1_OVERRUN)
        abort();
    const char *why = etl_lznt1_strerror(st);
    if (!why || !*why)
        abort();
    free(out);
    return 0;
}
