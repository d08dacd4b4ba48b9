/*
 * manybuf.c - writes a crafted ETL file of many minimal buffers: a header
 * buffer holding the logfile header (64-bit layout) and then COUNT buffers
 * of SIZE bytes (72 to 65536), each with nothing but its 0x48-byte header
 * (SavedOffset and Offset 0x48: no events), spread over CPUS processors.
 * The bytes past each header are left as holes, so the file is sparse.
 * Written from doc/format.md §2 and §4 alone. Their SequenceNumbers rise
 * in file order, or with `falling` fall (the reader then keeps a table of
 * them while it indexes: buffers found twice).
 *
 *   manybuf OUT COUNT SIZE [CPUS [falling]]
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void le16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void le32(uint8_t *p, uint32_t v) { le16(p, v & 0xFFFF); le16(p + 2, v >> 16); }
static void le64(uint8_t *p, uint64_t v) { le32(p, (uint32_t)v); le32(p + 4, (uint32_t)(v >> 32)); }

/* A WMI_BUFFER_HEADER (§2): size, SavedOffset, SequenceNumber, CPU (with
 * PROC_INDEX), Offset, flags, type. */
static void buffer_header(uint8_t *h, uint32_t size, uint32_t saved, uint64_t seq,
                          unsigned cpu, unsigned type)
{
    memset(h, 0, 0x48);
    le32(h + 0x00, size);
    le32(h + 0x04, saved);
    le64(h + 0x18, seq);
    le16(h + 0x28, cpu);
    le32(h + 0x30, saved);
    le16(h + 0x34, 0x0020 | 0x0001); /* PROC_INDEX | FLUSH_MARKER */
    le16(h + 0x36, type);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: manybuf OUT COUNT SIZE [CPUS [falling]]\n");
        return 2;
    }
    unsigned long count = strtoul(argv[2], NULL, 0);
    uint32_t size = (uint32_t)strtoul(argv[3], NULL, 0);
    unsigned cpus = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 0) : 4;
    int falling = argc > 5 && strcmp(argv[5], "falling") == 0;
    if (size < 0x48 || size > 65536 || cpus == 0 || cpus > 2048) {
        fprintf(stderr, "manybuf: bad size or cpus\n");
        return 2;
    }
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    /* Header buffer: 0x48 + a SYSTEM64 record (0x20 header, HookId 0) with
     * a 64-bit TRACE_LOGFILE_HEADER (§4.2) and two empty names. */
    uint8_t hb[1024];
    memset(hb, 0, sizeof hb);
    size_t rec = 0x20 + 0x118 + 4;
    uint8_t *r = hb + 0x48;
    le16(r + 0, 2);                 /* version */
    r[2] = 0x02;                    /* HeaderType SYSTEM64 */
    r[3] = 0xC0;                    /* TRACE_HEADER | EVENT_TRACE */
    le16(r + 4, (unsigned)rec);     /* size */
    le16(r + 6, 0x0000);            /* HookId: logfile header */
    le64(r + 0x10, 1000);           /* timestamp */
    uint8_t *d = r + 0x20;
    le32(d + 0x00, size);           /* BufferSize */
    d[4] = 10; d[6] = 1; d[7] = 5;  /* version 10.0.1.5 */
    le32(d + 0x08, 19041);          /* build */
    le32(d + 0x0C, cpus);
    le32(d + 0x20, 1);              /* LogFileMode: sequential */
    le32(d + 0x2C, 8);              /* PointerSize */
    le64(d + 0x100, 10000000);      /* PerfFreq */
    le64(d + 0x108, 132000000000000000LL); /* StartTime */
    le32(d + 0x110, 1);             /* ReservedFlags: QPC */
    uint32_t used = (uint32_t)(0x48 + ((rec + 7) & ~(size_t)7));
    uint32_t hsize = size < used ? used : size;
    buffer_header(hb, hsize, used, 0, 0, 4);
    memset(hb + used, 0xFF, hsize - used < sizeof hb - used ? hsize - used : sizeof hb - used);
    if (pwrite(fd, hb, hsize < sizeof hb ? hsize : sizeof hb, 0) < 0)
        return 1;
    uint64_t off = hsize;
    for (unsigned long i = 0; i < count; i++) {
        uint8_t h[0x48];
        buffer_header(h, size, 0x48, falling ? count - i : i + 1, (unsigned)(i % cpus), 0);
        if (pwrite(fd, h, sizeof h, (off_t)off) != (ssize_t)sizeof h) {
            perror("pwrite");
            return 1;
        }
        off += size;
    }
    if (ftruncate(fd, (off_t)off) != 0 || close(fd) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
