/*
 * reader.c - opening an ETL file, indexing its buffers, loading (and
 * decompressing) one buffer, walking its events.
 * Layouts: etl-format.md sections 1, 2 (WMI_BUFFER_HEADER), 2.1 (where the
 * events of a buffer end), 2.2 (the CPU of a buffer), 10 (compression).
 */
#include "grow.h"
#include "etl/etl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cursor.h"
#include "etl/lz77.h"

/* WMI_BUFFER_HEADER field offsets (spec section 2). */
#define BH_BUFFER_SIZE 0x00
#define BH_SAVED_OFFSET 0x04
#define BH_SEQUENCE 0x18
#define BH_CLIENT_CONTEXT 0x28
#define BH_OFFSET 0x30
#define BH_FLAG 0x34
#define BH_TYPE 0x36

/* Decompressed bytes allowed per file: this much plus INFLATE_RATIO times the
 * file size. A few bytes of LZ77 can claim a 16 MiB buffer; without a bound a
 * small file on many CPUs would make the per-CPU streams hold gigabytes.
 * (The fuzz build lowers it, so that such inputs do not slow fuzzing.) */
#ifndef ETL_INFLATE_BASE
#define ETL_INFLATE_BASE (16u * 1024u * 1024u)
#endif
#define INFLATE_BASE ETL_INFLATE_BASE
#define INFLATE_RATIO 64u

void etl_report(struct etl_file *f, uint64_t offset, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    f->problems++;
    if (f->diag)
        f->diag(f->diag_ctx, offset, msg);
}

/* Reads exactly n bytes at off; false on a short read or an error. */
static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return true;
}

/* Decodes the fixed fields of a buffer header at h (0x48 bytes). */
static void decode_buffer_header(const uint8_t *h, uint64_t offset,
                                 struct etl_buffer *b)
{
    memset(b, 0, sizeof *b);
    b->offset = offset;
    b->size = etl_le32(h + BH_BUFFER_SIZE);
    b->saved_offset = etl_le32(h + BH_SAVED_OFFSET);
    b->seq = etl_le64(h + BH_SEQUENCE);
    b->offset_field = etl_le32(h + BH_OFFSET);
    b->flags = etl_le16(h + BH_FLAG);
    b->type = etl_le16(h + BH_TYPE);
    /* With PROC_INDEX the CPU is a u16; otherwise a u8 followed by an
     * alignment byte (spec 2.2). */
    if (b->flags & ETL_BUF_FLAG_PROC_INDEX)
        b->cpu = etl_le16(h + BH_CLIENT_CONTEXT);
    else
        b->cpu = h[BH_CLIENT_CONTEXT];
}

/* Appends b to f's buffer index; false when out of memory. */
static bool add_buffer(struct etl_file *f, const struct etl_buffer *b, size_t *cap)
{
    if (!etl_grow(&f->bufs, cap, f->nbufs + 1, sizeof *f->bufs, 64))
        return false;
    f->bufs[f->nbufs++] = *b;
    return true;
}

/* Reads the header buffer's first record into f->hdr; false if it is not an
 * ETL logfile header. */
static bool read_logfile_header(struct etl_file *f)
{
    uint8_t h[ETL_BUF_HEADER_SIZE];
    if (f->file_size < ETL_BUF_HEADER_SIZE || !read_at(f->fd, h, sizeof h, 0))
        return false;
    struct etl_buffer b;
    decode_buffer_header(h, 0, &b);
    if (b.flags & ETL_BUF_FLAG_COMPRESSED)
        return false;
    /* A file cut inside its header buffer still has its logfile header. */
    size_t n = b.size;
    if (n > f->file_size)
        n = (size_t)f->file_size;
    if (n < ETL_BUF_HEADER_SIZE + 0x20 || n > ETL_MAX_BUFFER_SIZE)
        return false;
    uint8_t *mem = malloc(n);
    if (!mem)
        return false;
    bool ok = false;
    if (read_at(f->fd, mem, n, 0)) {
        struct etl_event ev;
        size_t next;
        const char *why;
        if (etl_parse_event(mem, n, ETL_BUF_HEADER_SIZE, &ev, &next, &why) ==
                ETL_PARSE_OK &&
            etl_parse_logfile(&ev, &f->hdr))
            ok = true;
    }
    free(mem);
    return ok;
}

/* Indexes every buffer of the file (spec section 13 step 2). */
static bool index_buffers(struct etl_file *f)
{
    size_t cap = 0;
    uint64_t off = 0;
    uint32_t stride = f->hdr.buffer_size;
    bool fixed_stride = !(f->hdr.log_file_mode & 0x04000000u) &&
                        stride >= ETL_BUF_HEADER_SIZE && stride <= ETL_MAX_BUFFER_SIZE;
    while (off < f->file_size) {
        uint64_t left = f->file_size - off;
        if (left < ETL_BUF_HEADER_SIZE) {
            etl_report(f, off, "%llu trailing bytes are too few for a buffer header",
                       (unsigned long long)left);
            break;
        }
        uint8_t h[ETL_BUF_HEADER_SIZE];
        if (!read_at(f->fd, h, sizeof h, off)) {
            etl_report(f, off, "cannot read buffer header: %s", strerror(errno));
            break;
        }
        struct etl_buffer b;
        decode_buffer_header(h, off, &b);
        if (b.size < ETL_BUF_HEADER_SIZE || b.size > ETL_MAX_BUFFER_SIZE) {
            etl_report(f, off, "buffer size %u is impossible", (unsigned)b.size);
            if (fixed_stride && stride < left) {
                off += stride; /* fixed-size buffers: resume at the next one */
                continue;
            }
            break;
        }
        if (b.size > left) {
            etl_report(f, off,
                       "buffer of %u bytes is truncated: the file ends after %llu",
                       (unsigned)b.size, (unsigned long long)left);
            b.size = (uint32_t)left;
            b.truncated = 1;
        }
        if (b.cpu >= ETL_MAX_CPUS) {
            etl_report(f, off + BH_CLIENT_CONTEXT,
                       "buffer names processor %u, beyond %u: buffer skipped",
                       (unsigned)b.cpu, ETL_MAX_CPUS);
        } else if (!add_buffer(f, &b, &cap)) {
            return false;
        }
        off += b.size;
    }
    /* Largest buffer to load: the biggest on disk, or a decompressed one. */
    uint32_t max = f->hdr.buffer_size;
    if (max > ETL_MAX_BUFFER_SIZE)
        max = ETL_MAX_BUFFER_SIZE;
    for (size_t i = 0; i < f->nbufs; i++)
        if (f->bufs[i].size > max)
            max = f->bufs[i].size;
    f->max_buf = max;
    return true;
}

enum etl_open_status etl_open(struct etl_file *f, const char *path,
                              etl_diag_fn diag, void *diag_ctx)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    f->diag = diag;
    f->diag_ctx = diag_ctx;
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0)
        return ETL_OPEN_IO;
    struct stat st;
    if (fstat(f->fd, &st) != 0) {
        int e = errno;
        etl_close(f);
        errno = e;
        return ETL_OPEN_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        etl_close(f);
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return ETL_OPEN_IO;
    }
    f->file_size = (uint64_t)st.st_size;
    if (!read_logfile_header(f)) {
        etl_close(f);
        return ETL_OPEN_NOT_ETL;
    }
    f->have_hdr = true;
    if (!index_buffers(f)) {
        etl_close(f);
        errno = ENOMEM;
        return ETL_OPEN_IO;
    }
    return ETL_OPEN_OK;
}

void etl_close(struct etl_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    free(f->bufs);
    f->bufs = NULL;
    f->nbufs = 0;
}

/* Makes sure *mem holds at least n bytes; false when out of memory. */
static bool reserve(uint8_t **mem, size_t *cap, size_t n)
{
    if (*cap >= n)
        return true;
    uint8_t *m = realloc(*mem, n);
    if (!m)
        return false;
    *mem = m;
    *cap = n;
    return true;
}

bool etl_load_buffer(struct etl_file *f, const struct etl_buffer *b,
                     struct etl_loaded *l)
{
    l->end = ETL_BUF_HEADER_SIZE;
    if (b->flags & ETL_BUF_FLAG_COMPRESSED) {
        /* SavedOffset is the decompressed size, header included (spec 10). */
        size_t out = b->saved_offset;
        if (out < ETL_BUF_HEADER_SIZE || out > f->max_buf) {
            etl_report(f, b->offset + BH_SAVED_OFFSET,
                       "compressed buffer claims %u bytes: buffer skipped",
                       (unsigned)b->saved_offset);
            return false;
        }
        uint64_t inflate_max = INFLATE_BASE + INFLATE_RATIO * f->file_size;
        if (f->inflated + out > inflate_max) {
            etl_report(f, b->offset + BH_SAVED_OFFSET,
                       "compressed buffers would expand to more than %llu bytes: "
                       "buffer skipped", (unsigned long long)inflate_max);
            return false;
        }
        f->inflated += out;
        if (!reserve(&l->zin, &l->zcap, b->size) || !reserve(&l->mem, &l->cap, out)) {
            etl_report(f, b->offset, "out of memory loading buffer");
            return false;
        }
        if (!read_at(f->fd, l->zin, b->size, b->offset)) {
            etl_report(f, b->offset, "cannot read buffer: %s", strerror(errno));
            return false;
        }
        memcpy(l->mem, l->zin, ETL_BUF_HEADER_SIZE);
        size_t used = 0;
        enum etl_lz77_status st =
            etl_lz77_decompress(l->zin + ETL_BUF_HEADER_SIZE,
                                b->size - ETL_BUF_HEADER_SIZE,
                                l->mem + ETL_BUF_HEADER_SIZE,
                                out - ETL_BUF_HEADER_SIZE, &used);
        if (st != ETL_LZ77_OK) {
            etl_report(f, b->offset + ETL_BUF_HEADER_SIZE + used,
                       "compressed buffer does not decompress (%s): buffer skipped",
                       etl_lz77_strerror(st));
            return false;
        }
        l->end = out;
        return true;
    }
    if (!reserve(&l->mem, &l->cap, b->size)) {
        etl_report(f, b->offset, "out of memory loading buffer");
        return false;
    }
    if (!read_at(f->fd, l->mem, b->size, b->offset)) {
        etl_report(f, b->offset, "cannot read buffer: %s", strerror(errno));
        return false;
    }
    /* Events end at the larger of SavedOffset and Offset, bounded by the
     * buffer (spec 2.1); the walk also stops at the 0xFF filler. */
    size_t end = b->saved_offset > b->offset_field ? b->saved_offset : b->offset_field;
    if (end > b->size) {
        if (!b->truncated)
            etl_report(f, b->offset + BH_SAVED_OFFSET,
                       "buffer says its data ends at 0x%zx, past its size 0x%x",
                       end, (unsigned)b->size);
        end = b->size;
    }
    l->end = end < ETL_BUF_HEADER_SIZE ? ETL_BUF_HEADER_SIZE : end;
    return true;
}

void etl_loaded_free(struct etl_loaded *l)
{
    free(l->mem);
    free(l->zin);
    memset(l, 0, sizeof *l);
}

void etl_report_event(struct etl_file *f, const struct etl_event *ev, size_t at,
                      const char *msg)
{
    size_t off = (size_t)ev->event_offset + (ev->size - ev->data_len) + at;
    if (ev->compressed)
        etl_report(f, ev->buffer_offset, "byte 0x%zx of decompressed buffer: %s",
                   off, msg);
    else
        etl_report(f, ev->buffer_offset + off, "%s", msg);
}

void etl_report_bad_record(struct etl_file *f, const struct etl_buffer *b,
                           size_t off, const char *why)
{
    if (b->flags & ETL_BUF_FLAG_COMPRESSED)
        etl_report(f, b->offset,
                   "record at 0x%zx of decompressed buffer: %s: rest of buffer skipped",
                   off, why);
    else
        etl_report(f, b->offset + off, "%s: rest of buffer skipped", why);
}

bool etl_walk_buffer(struct etl_file *f, const struct etl_buffer *b,
                     struct etl_loaded *l, etl_event_fn fn, void *ctx)
{
    if (!etl_load_buffer(f, b, l))
        return false;
    size_t off = ETL_BUF_HEADER_SIZE;
    struct etl_event ev;
    for (;;) {
        size_t next;
        const char *why = NULL;
        enum etl_parse_status st = etl_parse_event(l->mem, l->end, off, &ev, &next, &why);
        if (st == ETL_PARSE_END)
            break;
        if (st == ETL_PARSE_BAD) {
            etl_report_bad_record(f, b, off, why);
            break;
        }
        ev.cpu = b->cpu;
        ev.buffer_offset = b->offset;
        ev.compressed = (b->flags & ETL_BUF_FLAG_COMPRESSED) != 0;
        if (!fn(ctx, &ev))
            break;
        off = next;
    }
    return true;
}
