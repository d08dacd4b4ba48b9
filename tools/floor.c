/*
 * floor.c - the floors etldump's throughput is measured against (make bench).
 *
 *   floor FILE               sums every byte of FILE, 64 bits at a time, read
 *                            two ways: mapped, and copied 1 MiB at a time
 *                            (pread into one buffer): the least any reader of
 *                            the whole file does. Which way is cheaper depends
 *                            on the machine and on how its page cache holds
 *                            the file. Prints the sum and the seconds of the
 *                            faster way, then each way's.
 *   floor --decompress FILE  walks the buffers of an ETL file (doc/format.md
 *                            §2: BufferSize at offset 0 of each buffer
 *                            header) and decompresses every compressed one
 *                            (§10: the 0x48-byte header stored as is, then
 *                            Plain LZ77 to SavedOffset bytes) into one
 *                            output buffer, with the library's decompressor,
 *                            summing the output. Prints the buffers, the
 *                            bytes produced and the seconds taken.
 *   floor --hold FILE...     keeps the files in memory while the benchmark
 *                            runs: maps each and locks its pages (mlock),
 *                            so that a machine that trims its page cache
 *                            (as this project's does) does not send the
 *                            timed runs to the disk. Prints "held" (or why
 *                            not) once they are, then waits until its
 *                            standard input ends.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cursor.h"
#include "etl/lz77.h"

#define HEADER 0x48u
#define FLAG_COMPRESSED 0x0040u

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Sums len bytes at p, eight at a time (four lanes), the tail byte by byte. */
static uint64_t sum_bytes(const uint8_t *p, size_t len)
{
    uint64_t a = 0, b = 0, c = 0, d = 0;
    size_t i = 0;
    for (; i + 32 <= len; i += 32) {
        uint64_t w[4];
        memcpy(w, p + i, sizeof w);
        a += w[0];
        b += w[1];
        c += w[2];
        d += w[3];
    }
    for (; i < len; i++)
        a += p[i];
    return a + b + c + d;
}

/* Sums the size bytes of fd read by copying, CHUNK at a time; the seconds
 * taken in *secs. */
#define CHUNK (1u << 20)
static uint64_t sum_copied(int fd, size_t size, double *secs)
{
    uint8_t *buf = malloc(CHUNK);
    if (!buf) {
        *secs = 0;
        return 0;
    }
    double t0 = now();
    uint64_t sum = 0;
    size_t off = 0;
    while (off < size) {
        ssize_t r = pread(fd, buf, size - off < CHUNK ? size - off : CHUNK, (off_t)off);
        if (r <= 0)
            break;
        sum += sum_bytes(buf, (size_t)r);
        off += (size_t)r;
    }
    *secs = now() - t0;
    free(buf);
    return off == size ? sum : 0;
}

static int decompress_all(const uint8_t *m, size_t size)
{
    uint8_t *out = malloc(16u << 20);
    if (!out) {
        fprintf(stderr, "floor: out of memory\n");
        return 1;
    }
    uint64_t sum = 0, produced = 0, buffers = 0;
    double t0 = now();
    size_t off = 0;
    while (size - off >= HEADER) {
        uint32_t bsize = etl_le32(m + off);
        uint32_t saved = etl_le32(m + off + 4);
        uint16_t flags = etl_le16(m + off + 0x34);
        if (bsize < HEADER || bsize > size - off)
            break;
        if ((flags & FLAG_COMPRESSED) && saved > HEADER && saved <= (16u << 20)) {
            if (etl_lz77_decompress(m + off + HEADER, bsize - HEADER, out, saved - HEADER,
                                    NULL) == ETL_LZ77_OK) {
                sum += out[0] + out[saved - HEADER - 1];
                produced += saved - HEADER;
                buffers++;
            }
        }
        off += bsize;
    }
    double t = now() - t0;
    printf("buffers %llu bytes %llu sum %llu seconds %.6f\n", (unsigned long long)buffers,
           (unsigned long long)produced, (unsigned long long)sum, t);
    free(out);
    return 0;
}

/* floor --hold: see the top. */
static int hold(int n, char **paths)
{
    for (int i = 0; i < n; i++) {
        int fd = open(paths[i], O_RDONLY);
        struct stat sb;
        if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size <= 0) {
            printf("not held: cannot read %s\n", paths[i]);
            return 1;
        }
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED || mlock(m, (size_t)sb.st_size) != 0) {
            printf("not held: cannot lock %s in memory\n", paths[i]);
            return 1;
        }
        close(fd); /* the mapping stays until the process ends */
    }
    printf("held\n");
    fflush(stdout);
    char buf[64];
    while (read(0, buf, sizeof buf) > 0)
        ;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--hold") == 0)
        return hold(argc - 2, argv + 2);
    int decompress = argc == 3 && strcmp(argv[1], "--decompress") == 0;
    if (argc != 2 + decompress) {
        fprintf(stderr, "usage: floor [--decompress] FILE | floor --hold FILE...\n");
        return 2;
    }
    const char *path = argv[1 + decompress];
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size <= 0) {
        fprintf(stderr, "floor: cannot read %s\n", path);
        return 1;
    }
    size_t size = (size_t)sb.st_size;
    double t0 = now();
    const uint8_t *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "floor: cannot map %s\n", path);
        return 1;
    }
    madvise((void *)(uintptr_t)m, size, MADV_SEQUENTIAL);
    int rc = 0;
    if (decompress) {
        rc = decompress_all(m, size);
    } else {
        uint64_t sum = sum_bytes(m, size);
        double mapped = now() - t0, copied;
        if (sum_copied(fd, size, &copied) != sum) {
            fprintf(stderr, "floor: %s read by copying does not sum the same\n", path);
            rc = 1;
        }
        printf("bytes %zu sum %llu seconds %.6f mapped %.6f copied %.6f\n", size,
               (unsigned long long)sum, copied < mapped ? copied : mapped, mapped, copied);
    }
    munmap((void *)(uintptr_t)m, size);
    close(fd);
    return rc;
}
