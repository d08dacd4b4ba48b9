/*
 * reader.c - opening an ETL file (a path, a descriptor or a memory block),
 * indexing its buffers, loading (and decompressing) one buffer, walking
 * events in file order, diagnostics and their scopes.
 * Layouts: doc/format.md §1, §2 (WMI_BUFFER_HEADER), §2.1 (where the
 * events of a buffer end), §2.2 (the CPU of a buffer), §10 (compression).
 */
#include "grow.h"
#include "spill.h"
#include "etl/internal.h"

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

/* WMI_BUFFER_HEADER field offsets (§2). */
#define BH_BUFFER_SIZE 0x00
#define BH_SAVED_OFFSET 0x04
#define BH_SEQUENCE 0x18
#define BH_CLIENT_CONTEXT 0x28
#define BH_OFFSET 0x30
#define BH_FLAG 0x34
#define BH_TYPE 0x36

/* Decompressed bytes allowed per pass: this much plus INFLATE_RATIO times
 * the file size. A few bytes of LZ77 can claim a 16 MiB buffer; without a
 * bound a small file on many CPUs would take that much time and memory.
 * (The fuzz build lowers it, so that such inputs do not slow fuzzing.) */
#ifndef ETL_INFLATE_BASE
#define ETL_INFLATE_BASE (16u * 1024u * 1024u)
#endif
#define INFLATE_BASE ETL_INFLATE_BASE
#define INFLATE_RATIO 64u

/* LogFileMode EVENT_TRACE_COMPRESSED_MODE: buffers of varying size (§10). */
#define MODE_COMPRESSED 0x04000000u
/* LogFileMode EVENT_TRACE_FILE_MODE_PREALLOCATE: the file's space reserved
 * as the trace starts. */
#define MODE_PREALLOCATE 0x00000020u

/* ---- diagnostics ----------------------------------------------------------- */

struct etl_held {
    uint64_t offset;
    char *msg;
};

/* Holds a problem in the innermost scope, if it keeps them. */
static void scope_hold(struct etl_scope *s, uint64_t offset, const char *msg)
{
    if (!s->keep)
        return;
    if (s->nheld >= ETL_SCOPE_MAX_HELD) {
        s->dropped_held++;
        return;
    }
    char *m = strdup(msg);
    if (!m || !etl_grow(&s->held, &s->cap, s->nheld + 1, sizeof *s->held, 8)) {
        free(m);
        s->dropped_held++;
        return;
    }
    s->held[s->nheld].offset = offset;
    s->held[s->nheld].msg = m;
    s->nheld++;
}

/* Places a file's problems are named once at, at most (8 bytes each, in a
 * table at most half full): past them, once among the last 16 named. */
#define NAMED_MAX (1u << 16)

/* Slot of key (an offset plus one) in the table of places named: its own,
 * or the free one where it goes. */
static size_t named_slot(const struct etl_file *f, uint64_t key)
{
    size_t mask = f->named_cap - 1, k = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & mask;
    while (f->named[k] && f->named[k] != key)
        k = (k + 1) & mask;
    return k;
}

/* Whether the table of places named takes one more (grown when half full);
 * false when it is at NAMED_MAX or cannot grow. */
static bool named_room(struct etl_file *f)
{
    if (f->nnamed >= NAMED_MAX)
        return false;
    if (2 * (f->nnamed + 1) <= f->named_cap)
        return true;
    size_t cap = f->named_cap ? 2 * f->named_cap : 64;
    uint64_t *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    uint64_t *old = f->named;
    size_t ocap = f->named_cap;
    f->named = t;
    f->named_cap = cap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i])
            f->named[named_slot(f, old[i])] = old[i];
    free(old);
    return true;
}

/* True when a problem at offset was reported before: two decoders that
 * read the same damaged bytes (the logfile header at open and as an event,
 * say) name one place once, in whatever order they come to it (rows
 * formatted on other threads report theirs later than one thread would).
 * Else remembers it: in the table, or past NAMED_MAX places among the last
 * ones reported. */
static bool reported_before(struct etl_file *f, uint64_t offset)
{
    uint64_t key = offset + 1;
    if (f->named_cap && f->named[named_slot(f, key)] == key)
        return true;
    if (named_room(f)) {
        f->named[named_slot(f, key)] = key;
        f->nnamed++;
        return false;
    }
    size_t n = sizeof f->recent / sizeof f->recent[0];
    for (size_t i = 0; i < n; i++)
        if (f->recent[i] == key)
            return true;
    f->recent[f->nrecent++ % n] = key;
    f->nrecent %= (unsigned)n;
    return false;
}

/* Passes a problem on: held or dropped inside a scope, else counted and
 * given to the file's callback, once per place. */
static void report_msg(struct etl_file *f, uint64_t offset, const char *msg)
{
    if (f->scope) {
        scope_hold(f->scope, offset, msg);
        return;
    }
    if (reported_before(f, offset))
        return;
    f->problems++;
    if (f->diag.problem)
        f->diag.problem(f->diag.ctx, offset, msg);
}

void etl_report(struct etl_file *f, uint64_t offset, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report_msg(f, offset, msg);
}

/* Formats a warning or a note and hands it to say, when there is one. */
__attribute__((format(printf, 3, 0)))
static void say_v(void (*say)(void *, const char *), void *ctx, const char *fmt, va_list ap)
{
    if (!say)
        return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    say(ctx, msg);
}

void etl_warn(const struct etl_file *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_v(f->diag.warning, f->diag.ctx, fmt, ap);
    va_end(ap);
}

void etl_note(const struct etl_file *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_v(f->diag.note, f->diag.ctx, fmt, ap);
    va_end(ap);
}

/* Progress is reported every this many bytes of buffers loaded. */
#define PROGRESS_STEP (8u * 1024u * 1024u)

/* Reports progress: the bytes of buffers loaded by the view's pass, of the
 * file's bytes less those of the buffers found to repeat earlier ones
 * (never loaded: a file appended to itself would end at half). */
static void report_progress(struct etl_file *f)
{
    uint64_t skip = f->totals.repeated_bytes, size = f->file_size;
    f->progress_next = f->progress_done + PROGRESS_STEP;
    f->diag.progress(f->diag.ctx, f->progress_done, skip < size ? size - skip : size);
}

/* Counts a buffer loaded by the view's pass (pre-passes in scopes are not
 * counted) and reports progress every PROGRESS_STEP bytes. */
static void count_progress(struct etl_file *f, uint32_t bytes)
{
    if (f->scope || !f->diag.progress)
        return;
    f->progress_done += bytes;
    if (f->progress_done >= f->progress_next)
        report_progress(f);
}

void etl_scope_begin(struct etl_file *f, struct etl_scope *s, bool keep)
{
    memset(s, 0, sizeof *s);
    s->outer = f->scope;
    s->inflated = f->inflated;
    s->keep = keep;
    f->scope = s;
}

void etl_scope_keep(struct etl_scope *s, bool keep)
{
    s->keep = keep;
}

void etl_scope_end(struct etl_file *f, struct etl_scope *s)
{
    f->scope = s->outer;
    f->inflated = s->inflated;
}

void etl_scope_replay(struct etl_file *f, struct etl_scope *s)
{
    for (size_t i = 0; i < s->nheld; i++) {
        report_msg(f, s->held[i].offset, s->held[i].msg);
        free(s->held[i].msg);
    }
    if (!f->scope)
        f->problems += s->dropped_held;
    free(s->held);
    s->held = NULL;
    s->nheld = s->cap = 0;
    s->dropped_held = 0;
}

void etl_scope_trim(struct etl_scope *s, size_t n)
{
    for (size_t i = n; i < s->nheld; i++)
        free(s->held[i].msg);
    if (s->nheld > n)
        s->nheld = n;
    s->dropped_held = 0;
}

void etl_file_swap_diag(struct etl_file *f, const struct etl_diag *d, struct etl_diag *old)
{
    *old = f->diag;
    f->diag = *d;
}

void etl_file_nomem(struct etl_file *f)
{
    f->nomem = true;
}

bool etl_file_is_nomem(const struct etl_file *f)
{
    return f->nomem;
}

void etl_file_temp_lost(struct etl_file *f)
{
    f->nomem = true;
    f->temp_lost = true;
}

bool etl_file_is_temp_lost(const struct etl_file *f)
{
    return f->temp_lost;
}

/* ---- reading ----------------------------------------------------------------- */

/* Reads up to n bytes at off into buf, fewer only where the file ends or
 * on an error; returns the bytes read (errno set when fewer: EIO where the
 * file ended). */
static size_t read_upto(const struct etl_file *f, void *buf, size_t n, uint64_t off)
{
    if (f->mem && !f->map_len) {
        if (off > f->file_size || n > f->file_size - off) {
            errno = EIO;
            return 0;
        }
        memcpy(buf, f->mem + off, n);
        return n;
    }
    return etl_pread_full(f->fd, buf, n, off);
}

/* Reads exactly n bytes at off; false on a short read or an error. The
 * index reads every buffer's header this way, before the file is mapped if
 * it is to be: touching each through a mapping would map the whole file. */
static bool read_at(const struct etl_file *f, void *buf, size_t n, uint64_t off)
{
    return read_upto(f, buf, n, off) == n;
}

void etl_decode_buffer_header(const uint8_t *h, uint64_t offset, struct etl_buffer *b)
{
    memset(b, 0, sizeof *b);
    b->offset = offset;
    b->size = etl_le32(h + BH_BUFFER_SIZE);
    b->saved_offset = etl_le32(h + BH_SAVED_OFFSET);
    b->seq = etl_le64(h + BH_SEQUENCE);
    b->offset_field = etl_le32(h + BH_OFFSET);
    b->flags = etl_le16(h + BH_FLAG);
    b->type = etl_le16(h + BH_TYPE);
    /* The file's first buffer holds the logfile header, and is never
     * compressed (§1.1): the flag there is damage (read_logfile_header
     * says so), which left every buffer of the file unread. Not so in a
     * file without a logfile header, whose first buffer may be any. */
    if (offset == 0 && b->type == ETL_BUF_TYPE_HEADER)
        b->flags &= (uint16_t)~ETL_BUF_FLAG_COMPRESSED;
    /* With PROC_INDEX the CPU is a u16; otherwise a u8 followed by an
     * alignment byte (§2.2). */
    if (b->flags & ETL_BUF_FLAG_PROC_INDEX)
        b->cpu = etl_le16(h + BH_CLIENT_CONTEXT);
    else
        b->cpu = h[BH_CLIENT_CONTEXT];
}

/* The logfile header is the first record of the first buffer, whose size
 * is a u16 (§3.3, §4.1): a buffer larger than this is not read whole for
 * it. */
#define LOGFILE_SPAN_MAX (ETL_BUF_HEADER_SIZE + 0xFFFFu)

/* How many bytes from the start of a file of file_size bytes hold its
 * logfile header: 0 when too few for one. Not the header buffer's size: a
 * file cut inside its header buffer still has its logfile header, and so
 * has one whose header buffer's size field is damaged (the index then
 * finds where the buffer ends); the record says where it ends. */
static size_t logfile_span(uint64_t file_size)
{
    uint64_t n = file_size < LOGFILE_SPAN_MAX ? file_size : LOGFILE_SPAN_MAX;
    return n < ETL_BUF_HEADER_SIZE + 0x20 ? 0 : (size_t)n;
}

/* Whether the n bytes at mem (logfile_span of them) begin with a logfile
 * header: parsed into *hdr, its record into *ev. */
static bool logfile_parse(const uint8_t *mem, size_t n, struct etl_event *ev,
                          struct etl_logfile *hdr)
{
    size_t next;
    const char *why;
    return etl_parse_event(mem, n, ETL_BUF_HEADER_SIZE, ev, &next, &why) == ETL_PARSE_OK &&
           etl_parse_logfile(ev, hdr);
}

/* Whether logfile header hdr has a possible buffer size, number of
 * processors and pointer size (bytes that merely parse as one seldom do). */
static bool logfile_plausible(const struct etl_logfile *hdr)
{
    return hdr->buffer_size >= ETL_BUF_HEADER_SIZE && hdr->buffer_size <= ETL_MAX_BUFFER_SIZE &&
           hdr->cpus >= 1 && hdr->cpus <= ETL_MAX_CPUS &&
           (hdr->pointer_size == 4 || hdr->pointer_size == 8);
}

/* Whether the 8 bytes at r begin a logfile header's record (§4): a system
 * header's type and marker (§3.3), of HookId 0. */
static bool logfile_record_at(const uint8_t *r)
{
    return (r[2] == 1 || r[2] == 2) && (r[3] & 0xC0) == 0xC0 && etl_le16(r + 6) == 0;
}

/* Bytes that show whether a header buffer begins at a place, before its
 * logfile header is read (header_buffer_start). */
#define TRACE_START_BYTES (ETL_BUF_HEADER_SIZE + 8)

/* Whether the TRACE_START_BYTES at b may begin a header buffer: BufferType
 * 4, a possible size, known flags, and a logfile header's record first. */
static bool header_buffer_start(const uint8_t *b)
{
    uint32_t size = etl_le32(b + BH_BUFFER_SIZE);
    return etl_le16(b + BH_TYPE) == ETL_BUF_TYPE_HEADER && size >= ETL_BUF_HEADER_SIZE &&
           size <= ETL_MAX_BUFFER_SIZE && !(etl_le16(b + BH_FLAG) & ~ETL_BUF_FLAGS_KNOWN) &&
           logfile_record_at(b + ETL_BUF_HEADER_SIZE);
}

/* Whether another trace begins at off: a header buffer there
 * (header_buffer_start) whose logfile header, read into *hdr (its record
 * alone, as long as its size says), has possible values
 * (logfile_plausible). */
static bool trace_at(const struct etl_file *f, uint64_t off, struct etl_logfile *hdr)
{
    uint8_t h[TRACE_START_BYTES];
    if (read_upto(f, h, sizeof h, off) != sizeof h || !header_buffer_start(h))
        return false;
    size_t n = ETL_BUF_HEADER_SIZE + etl_le16(h + ETL_BUF_HEADER_SIZE + 4);
    uint8_t *mem = malloc(n);
    struct etl_event ev;
    bool yes = mem && read_upto(f, mem, n, off) == n && logfile_parse(mem, n, &ev, hdr) &&
               logfile_plausible(hdr);
    free(mem);
    return yes;
}

static bool find_trace(const struct etl_file *f, uint64_t from, uint64_t to, uint64_t *at,
                       struct etl_logfile *hdr);

/* Whether the n bytes at mem, the whole of a file, end inside the record
 * of a logfile header that begins at the first event (§4): its trace
 * header's first eight bytes there, a system header's type and marker
 * (§3.3) of HookId 0, whose size runs past the end. */
static bool cut_in_logfile(const uint8_t *mem, size_t n)
{
    const uint8_t *h = mem + ETL_BUF_HEADER_SIZE;
    if (n < ETL_BUF_HEADER_SIZE + 8)
        return false;
    return logfile_record_at(h) && etl_le16(h + 4) > n - ETL_BUF_HEADER_SIZE;
}

/* Bytes from the start of a file with no logfile header there in which
 * its trace, or its first buffer, is looked for (read_without_header). */
#define JUNK_SCAN (1u << 20)

static enum etl_open_status read_without_header(struct etl_file *f);

/* Sets what the logfile header f->hdr says of the buffers: the largest to
 * load (the header's buffer size, raised by the index to the biggest on
 * disk; a decompressed one is at most that) and what a strong buffer
 * header may be (zmost, zstrict, cpus_most: internal.h). */
static void bounds_from_header(struct etl_file *f)
{
    uint32_t stride = f->hdr.buffer_size;
    f->max_buf = stride > ETL_MAX_BUFFER_SIZE ? ETL_MAX_BUFFER_SIZE : stride;
    f->zmost = stride >= ETL_BUF_HEADER_SIZE && stride <= ETL_MAX_BUFFER_SIZE
                   ? stride
                   : ETL_MAX_BUFFER_SIZE;
    f->zstrict = (f->hdr.log_file_mode & MODE_COMPRESSED) != 0;
    f->cpus_most = f->hdr.cpus && f->hdr.cpus <= ETL_MAX_CPUS ? f->hdr.cpus : ETL_MAX_CPUS;
}

/* The logfile header at the start of the file, whose record ev was parsed
 * into f->hdr, may be cut short by another trace's header buffer inside
 * that record (a copy cut in its first few hundred bytes, the trace after
 * it): its fields past the cut are that trace's bytes (its BufferSize,
 * its processors), and the index would step through the file by them.
 * That trace's logfile header is then read instead, said: the buffer at 0,
 * cut there, is read as the index finds it. A copy cut 100 bytes in, the
 * demo trace after it, read 1 of its 800 switches. */
static void logfile_cut_by_trace(struct etl_file *f, const struct etl_event *ev)
{
    uint64_t at;
    struct etl_logfile hdr;
    if (!find_trace(f, 1, ETL_BUF_HEADER_SIZE + (uint64_t)ev->size, &at, &hdr))
        return;
    f->hdr = hdr;
    etl_report(f, ETL_BUF_HEADER_SIZE, "the logfile header is cut short by another trace's "
               "header buffer, at offset 0x%llx: that one's logfile header is read",
               (unsigned long long)at);
}

/* Reads the header buffer's first record into f->hdr: ETL_OPEN_OK,
 * ETL_OPEN_NOT_ETL when it is not an ETL logfile header (ETL_OPEN_EMPTY
 * when there are no bytes at all, ETL_OPEN_CUT when the file ends inside
 * it), ETL_OPEN_IO when it cannot be read (errno set), ETL_OPEN_NOMEM
 * (f->nomem set). */
static enum etl_open_status read_logfile_header(struct etl_file *f)
{
    uint8_t h[ETL_BUF_HEADER_SIZE];
    if (f->file_size == 0)
        return ETL_OPEN_EMPTY;
    if (f->file_size < ETL_BUF_HEADER_SIZE)
        return ETL_OPEN_NOT_ETL;
    if (!read_at(f, h, sizeof h, 0)) /* the bytes are there: a read error */
        return ETL_OPEN_IO;
    size_t n = logfile_span(f->file_size);
    if (n == 0)
        return ETL_OPEN_NOT_ETL;
    uint8_t *mem = malloc(n);
    if (!mem) {
        f->nomem = true;
        return ETL_OPEN_NOMEM;
    }
    enum etl_open_status st = ETL_OPEN_IO;
    if (read_at(f, mem, n, 0)) {
        struct etl_event ev;
        st = logfile_parse(mem, n, &ev, &f->hdr)                ? ETL_OPEN_OK
             : n == f->file_size && cut_in_logfile(mem, n) ? ETL_OPEN_CUT
                                                            : ETL_OPEN_NOT_ETL;
        if (st == ETL_OPEN_OK) {
            logfile_cut_by_trace(f, &ev);
            if (f->hdr.name_damage_at)
                etl_report_event(f, &ev, f->hdr.name_damage_at,
                                 "logfile header: name without its terminator");
            if (etl_le16(h + BH_FLAG) & ETL_BUF_FLAG_COMPRESSED)
                etl_report(f, BH_FLAG, "the first buffer says it is compressed, which the "
                           "one holding the logfile header never is: read as it is");
        } else if (st == ETL_OPEN_NOT_ETL) {
            st = read_without_header(f);
        }
    }
    int e = errno;
    free(mem);
    errno = e;
    return st;
}

static bool header_strong(const struct etl_file *f, const struct etl_buffer *b);

/* Whether the n bytes at head hold what may be a buffer header whose
 * buffer is read without a logfile header (read_without_header): one
 * strong (header_strong) under no logfile header's bounds. A stream that
 * begins with one is copied whole. */
static bool head_holds_buffer(const uint8_t *head, size_t n)
{
    static const struct etl_file unknown = { .zmost = ETL_MAX_BUFFER_SIZE,
                                             .cpus_most = ETL_MAX_CPUS };
    for (size_t i = 0; n - i >= ETL_BUF_HEADER_SIZE; i++) {
        struct etl_buffer b;
        etl_decode_buffer_header(head + i, i, &b);
        if (header_strong(&unknown, &b))
            return true;
    }
    return false;
}

/* Whether the first bytes of a stream, `have` of them (the first
 * LOGFILE_SPAN_MAX at most in head), already show it is not an ETL file
 * whatever follows: read_logfile_header would say so of every file they
 * begin, as long as it may be (logfile_span's cases). The stream is then
 * copied no further. */
static bool stream_not_etl(const uint8_t *head, uint64_t have)
{
    if (have < ETL_BUF_HEADER_SIZE)
        return false;
    /* Every file of `have` bytes or more has its logfile header in its
     * first `need` bytes, or none. */
    size_t need = logfile_span(UINT64_MAX);
    if (have < need)
        return false;
    struct etl_event ev;
    struct etl_logfile hdr;
    return !logfile_parse(head, need, &ev, &hdr) && !head_holds_buffer(head, need);
}

/* Gives buffer b, the index's last entry, counted at b->size, the size
 * `size` (its header's is damaged): entry_header reads it so; false when
 * out of memory. */
static bool resize_last(struct etl_file *f, const struct etl_buffer *b, uint32_t size)
{
    struct etl_bufent *e = &f->ents[f->nents - 1];
    uint64_t off = ETL_ENT_OFFSET(e);
    f->totals.bytes = f->totals.bytes - b->size + size;
    if (b->flags & ETL_BUF_FLAG_COMPRESSED)
        f->totals.compressed_bytes = f->totals.compressed_bytes - b->size + size;
    if (size > f->max_buf)
        f->max_buf = size;
    /* A repeat stays one: its events are those of the bytes compared (a
     * compressed buffer decompresses to its own size; an uncompressed one
     * ends where its header says). */
    if (ETL_ENT_REPEAT(e))
        f->totals.repeated_bytes = f->totals.repeated_bytes - b->size + size;
    if (f->nresized && f->resized[f->nresized - 1].off == off) {
        f->resized[f->nresized - 1].size = size;
        return true;
    }
    if (!etl_grow(&f->resized, &f->resized_cap, f->nresized + 1, sizeof *f->resized, 16))
        return false;
    f->resized[f->nresized++] = (struct etl_resize){ off, size };
    e->pos |= ETL_ENT_RESIZED_BIT;
    return true;
}

void etl_entry_header(const struct etl_file *f, const struct etl_bufent *e, const uint8_t *h,
                      struct etl_buffer *b)
{
    uint64_t off = ETL_ENT_OFFSET(e);
    etl_decode_buffer_header(h, off, b);
    if (!(e->pos & ETL_ENT_RESIZED_BIT))
        return;
    size_t lo = 0, hi = f->nresized; /* in file order, as the index */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->resized[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < f->nresized && f->resized[lo].off == off)
        b->size = f->resized[lo].size;
}

/* ---- buffers found twice ----------------------------------------------------- */

/* SequenceNumber is one counter for all processors (§11): two buffers with
 * the same processor and SequenceNumber are not how a trace is written, but
 * a file appended to itself, or pieced together from copies, has them. A
 * buffer that repeats an earlier one byte for byte is not read (its events
 * would come twice); one with other bytes is read. Both are said once the
 * index is whole. While the SequenceNumbers rise in file order no buffer
 * can repeat one and nothing is looked up; from the first that does not,
 * the entries are kept in a hash table until the index is whole. */

/* Where the entry of processor cpu and SequenceNumber seq is in f->seen,
 * or the empty slot for it. */
static size_t seen_find(const struct etl_file *f, unsigned cpu, uint64_t seq)
{
    uint64_t h = (seq ^ ((uint64_t)cpu << 44)) * 0x9E3779B97F4A7C15ull;
    size_t s = (size_t)(h >> 32) & (f->seen_cap - 1);
    while (f->seen[s]) {
        const struct etl_bufent *o = &f->ents[f->seen[s] - 1];
        if (o->seq == seq && ETL_ENT_CPU(o) == cpu)
            break;
        s = (s + 1) & (f->seen_cap - 1);
    }
    return s;
}

/* Builds f->seen anew from the first n entries, at most half full with
 * one more (at ETL_MAX_BUFFERS entries, 16 MiB beside the index's 32);
 * false when out of memory. */
static bool seen_rebuild(struct etl_file *f, size_t n)
{
    size_t cap = 1024;
    while (cap < 2 * (n + 1))
        cap *= 2;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    free(f->seen);
    f->seen = t;
    f->seen_cap = cap;
    for (size_t i = 0; i < n; i++) {
        const struct etl_bufent *e = &f->ents[i];
        size_t k = seen_find(f, ETL_ENT_CPU(e), e->seq);
        if (!ETL_ENT_REPEAT(e) && !f->seen[k])
            f->seen[k] = (uint32_t)(i + 1);
    }
    return true;
}

/* Whether the n bytes at offsets a and b of f are the same (where a read
 * fails, they are not). */
static bool same_bytes(const struct etl_file *f, uint64_t a, uint64_t b, uint64_t n)
{
    if (f->mem && !f->map_len) /* a memory block; both lie in it */
        return memcmp(f->mem + a, f->mem + b, (size_t)n) == 0;
    uint8_t x[8192], y[8192];
    while (n) {
        size_t k = n < sizeof x ? (size_t)n : sizeof x;
        if (read_upto(f, x, k, a) != k || read_upto(f, y, k, b) != k || memcmp(x, y, k) != 0)
            return false;
        a += k;
        b += k;
        n -= k;
    }
    return true;
}

/* Whether buffer b repeats buffer o (the header of an earlier entry, as the
 * index has it, whose own size field says own) byte for byte: as long (or
 * cut by the end of the file, a beginning of it) and the same bytes; or,
 * o read past its own size up to the next header found (index_lost: the
 * bytes of a copy cut short in the header of the buffer after it), as
 * long as that and the same bytes (a compressed trace's copy cut there,
 * the trace after it, had every buffer of it read twice). */
static bool repeats(const struct etl_file *f, const struct etl_buffer *o, uint32_t own,
                    const struct etl_buffer *b)
{
    uint64_t size = o->size < f->file_size - o->offset ? o->size : f->file_size - o->offset;
    return (b->size == size || (b->truncated && b->size < size) ||
            (own >= ETL_BUF_HEADER_SIZE && own < size && b->size == own)) &&
           same_bytes(f, o->offset, b->offset, b->size);
}

/* Whether buffer o, entry oi of the index, is the beginning of the later
 * buffer b, cut short by the index (a buffer header found inside it,
 * index_realign) and not read by a walk yet: then b, whole, is read in
 * its place. */
static bool cut_beginning_of(const struct etl_file *f, size_t oi, const struct etl_buffer *o,
                             const struct etl_buffer *b)
{
    return (f->ents[oi].pos & ETL_ENT_RESIZED_BIT) && oi >= f->walked && o->size < b->size &&
           same_bytes(f, o->offset, b->offset, o->size);
}

/* Counts buffer x, entry xi, as a repeat (not read); its flags say no loss
 * (those of the one it repeats do). */
static void mark_repeat(struct etl_file *f, size_t xi, const struct etl_buffer *x)
{
    struct etl_buffer_totals *t = &f->totals;
    f->ents[xi].pos |= ETL_ENT_REPEAT_BIT;
    t->repeated++;
    t->repeated_bytes += x->size;
    if (x->flags & ETL_BUF_FLAG_EVENTS_LOST)
        t->events_lost_flagged--;
    if (x->flags & ETL_BUF_FLAG_BUFFER_LOST)
        t->buffer_lost_flagged--;
}

/* Looks for an earlier buffer with the processor and SequenceNumber of b,
 * the index's entry i (its last): marks entry i a repeat of it, or the
 * earlier one a repeat of b when it is b's beginning cut short
 * (cut_beginning_of), or counts b as one with other bytes (but a header
 * buffer: check_repeat). False when out of memory. */
static bool find_repeat(struct etl_file *f, size_t i, const struct etl_buffer *b)
{
    if (!f->seq_fell) {
        if (i == 0 || b->seq >= f->seq_next) {
            f->seq_next = b->seq + 1;
            if (f->seq_next) /* else the next cannot rise past it */
                return true;
        }
        f->seq_fell = true;
    }
    if (2 * (i + 1) > f->seen_cap && !seen_rebuild(f, i))
        return false;
    size_t k = seen_find(f, b->cpu, b->seq);
    if (!f->seen[k]) {
        f->seen[k] = (uint32_t)(i + 1);
        return true;
    }
    size_t oi = f->seen[k] - 1;
    uint64_t at = b->offset, of = ETL_ENT_OFFSET(&f->ents[oi]);
    uint8_t h[ETL_BUF_HEADER_SIZE];
    struct etl_buffer o;
    bool known = read_at(f, h, sizeof h, of);
    if (known)
        etl_entry_header(f, &f->ents[oi], h, &o);
    struct etl_repeats *r = &f->same;
    uint64_t n;
    if (known && repeats(f, &o, etl_le32(h + BH_BUFFER_SIZE), b)) {
        mark_repeat(f, i, b);
        n = f->totals.repeated;
    } else if (known && cut_beginning_of(f, oi, &o, b)) {
        mark_repeat(f, oi, &o);
        f->seen[k] = (uint32_t)(i + 1); /* the whole one stands for both */
        n = f->totals.repeated;
        at = of;
        of = b->offset;
    } else if (b->type == ETL_BUF_TYPE_HEADER) {
        return true;
    } else {
        r = &f->differ;
        n = ++f->ndiffer;
    }
    if (n == 1) {
        r->at = at;
        r->of = of;
    }
    return true;
}

/* What a strong buffer header may be (zmost, cpus_most, zstrict) and the
 * largest buffer loaded (max_buf) widened to the buffers of the trace
 * whose header buffer is at off, when it holds a logfile header: its
 * buffers follow in the file (two traces put together), read with the
 * first's bounds. A trace of compressed buffers of 64 KiB after a cut
 * copy of one of 8 KiB lost every buffer ("compressed buffer claims 22192
 * bytes: buffer skipped"). */
static void widen_for_trace(struct etl_file *f, uint64_t off)
{
    struct etl_logfile hdr;
    if (!trace_at(f, off, &hdr))
        return;
    if (hdr.buffer_size > f->zmost)
        f->zmost = hdr.buffer_size;
    if (hdr.buffer_size > f->max_buf)
        f->max_buf = hdr.buffer_size;
    if (hdr.cpus > f->cpus_most)
        f->cpus_most = hdr.cpus;
    if (!(hdr.log_file_mode & MODE_COMPRESSED))
        f->zstrict = false;
}

/* find_repeat for buffer b, the index's entry i; a header buffer other
 * than the file's first and not a repeat is noted: a file holding two
 * traces (two files put together). */
static bool check_repeat(struct etl_file *f, size_t i, const struct etl_buffer *b)
{
    bool ok = find_repeat(f, i, b);
    if (i > 0 && b->type == ETL_BUF_TYPE_HEADER && !ETL_ENT_REPEAT(&f->ents[i])) {
        if (!f->other_header)
            f->other_header = b->offset + 1;
        widen_for_trace(f, b->offset);
    }
    return ok;
}

/* Says the buffers found twice (check_repeat), with the index whole. */
static void say_repeats(const struct etl_file *f)
{
    const struct etl_repeats *r = &f->same;
    uint64_t n = f->totals.repeated;
    if (n == 1)
        etl_warn(f, "the buffer at offset 0x%llx repeats the one at 0x%llx byte for byte: "
                 "it is read once", (unsigned long long)r->at, (unsigned long long)r->of);
    else if (n)
        etl_warn(f, "%llu buffers repeat earlier ones byte for byte, the first at offset 0x%llx "
                 "(the one at 0x%llx): each is read once", (unsigned long long)n,
                 (unsigned long long)r->at, (unsigned long long)r->of);
    if (f->other_header)
        etl_warn(f, "a second header buffer, at offset 0x%llx (a second trace?): every buffer "
                 "is read as one trace's, with the first header's clock; the second alone is "
                 "the file from there (tail -c +%llu)", (unsigned long long)(f->other_header - 1),
                 (unsigned long long)f->other_header);
    r = &f->differ;
    n = f->ndiffer;
    if (n == 1)
        etl_warn(f, "the buffer at offset 0x%llx has the processor and sequence number of the "
                 "one at 0x%llx, but other bytes: both are read", (unsigned long long)r->at,
                 (unsigned long long)r->of);
    else if (n)
        etl_warn(f, "%llu buffers have the processor and sequence number of earlier ones but "
                 "other bytes, the first at offset 0x%llx (the one at 0x%llx): all are read",
                 (unsigned long long)n, (unsigned long long)r->at, (unsigned long long)r->of);
}

/* The time of the first timed event of the buffer of entry i, in *ts;
 * false when it has none or cannot be read. */
static bool first_time(struct etl_file *f, size_t i, int64_t *ts)
{
    struct etl_loaded l;
    memset(&l, 0, sizeof l);
    bool found = false;
    /* What is damaged there is said when a view reads it. */
    struct etl_scope scope;
    etl_scope_begin(f, &scope, false);
    if (etl_load_buffer(f, &f->ents[i], &l)) {
        size_t pos = ETL_BUF_HEADER_SIZE, next;
        struct etl_event ev;
        const char *why;
        while (!found && etl_parse_event(l.bytes, l.end, pos, &ev, &next, &why) == ETL_PARSE_OK) {
            found = (ev.flags & ETL_EV_TS) != 0;
            *ts = ev.ts;
            pos = next;
        }
    }
    etl_scope_end(f, &scope);
    etl_loaded_free(&l);
    return found;
}

/* Whether the first events of the buffers of entries a, b and c are in
 * time order, those of a and c apart. */
static bool times_in_order(struct etl_file *f, size_t a, size_t b, size_t c)
{
    int64_t ta, tb, tc;
    return first_time(f, a, &ta) && first_time(f, b, &tb) && first_time(f, c, &tc) &&
           ta <= tb && tb <= tc && ta < tc;
}

/* How far SequenceNumber b lies after a, counted around 2^64 (a counter
 * that wraps, as it would after 2^64 buffers, goes on rising): negative
 * when it lies before. */
static int64_t seq_diff(uint64_t a, uint64_t b)
{
    return (int64_t)(b - a);
}

/* Says that the SequenceNumber of entry x is damaged and gives it `seq`. */
static void seq_mend(struct etl_file *f, size_t x, uint64_t seq, uint64_t before,
                     uint64_t after)
{
    etl_report(f, ETL_ENT_OFFSET(&f->ents[x]) + BH_SEQUENCE,
               "buffer SequenceNumber %llu is out of line with those of processor %u's "
               "buffers next to it in the file (%llu, %llu), and the times of their first "
               "events keep it in its place there: read there", (unsigned long long)f->ents[x].seq,
               (unsigned)ETL_ENT_CPU(&f->ents[x]), (unsigned long long)before,
               (unsigned long long)after);
    f->ents[x].seq = seq;
}

/* A processor's buffers lie in the file in the order of their
 * SequenceNumbers but at a wrapped circular file's start (§2), where both
 * fall. Entries a, x and b are three of them one after another in the
 * file (pos: x is the first of them, 0, the second, 1, or the last, 2):
 * when the others' rise and x's is out of line with them, and the times
 * of the first events of the three put x where it lies, x's is damaged:
 * said, and given that of the one beside it that it follows or precedes
 * (the tie goes to the file's order). Before, such a buffer was read
 * where its SequenceNumber put it, its events out of time order (one bit
 * of one of a generated trace's put it last of its processor's, 6
 * switches linked wrongly). */
static void seq_check3(struct etl_file *f, size_t a, size_t x, size_t b, int pos)
{
    const struct etl_bufent *e = f->ents;
    uint64_t sa = e[a].seq, sx = e[x].seq, sb = e[b].seq;
    if (seq_diff(sa, sb) <= 0)
        return;
    if (pos == 1 && (seq_diff(sa, sx) < 0 || seq_diff(sx, sb) < 0) && times_in_order(f, a, x, b))
        seq_mend(f, x, sa, sa, sb);
    else if (pos == 0 && seq_diff(sx, sa) < 0 && times_in_order(f, x, a, b))
        seq_mend(f, x, sa, sa, sb);
    else if (pos == 2 && seq_diff(sb, sx) < 0 && times_in_order(f, a, b, x))
        seq_mend(f, x, sb, sa, sb);
}

/* Entries x and y are the only buffers of a processor, x first in the
 * file. When their SequenceNumbers put y first and the times of their
 * first events put x first (at a wrapped circular file's start both put y
 * first), one of the two SequenceNumbers is damaged, which does not
 * matter to their order: y is given x's (the tie goes to the file's
 * order), said. */
static void seq_check2(struct etl_file *f, size_t x, size_t y)
{
    uint64_t sx = f->ents[x].seq, sy = f->ents[y].seq;
    int64_t tx, ty;
    if (seq_diff(sx, sy) >= 0 || !first_time(f, x, &tx) || !first_time(f, y, &ty) || tx >= ty)
        return;
    etl_report(f, ETL_ENT_OFFSET(&f->ents[y]) + BH_SEQUENCE,
               "buffer SequenceNumber %llu is below that of processor %u's buffer before it in "
               "the file (%llu), whose first event is earlier: read after it",
               (unsigned long long)sy, (unsigned)ETL_ENT_CPU(&f->ents[y]),
               (unsigned long long)sx);
    f->ents[y].seq = sx;
}

/* What seq_check keeps of each processor: its last three buffers in the
 * file (entries + 1, the last in at[2]), how many it had (at most 3), and
 * the trace it keeps them for (a second header buffer begins another). */
struct seq_cpu {
    uint32_t at[3];
    uint32_t n;
    uint32_t trace;
};

/* The checks of the last buffers of the processors cpus[0, n). */
static void seq_check_ends(struct etl_file *f, const struct seq_cpu *c, const uint16_t *cpus,
                           size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const struct seq_cpu *p = &c[cpus[k]];
        if (p->n == 3)
            seq_check3(f, p->at[0] - 1, p->at[2] - 1, p->at[1] - 1, 2);
        else if (p->n == 2)
            seq_check2(f, p->at[1] - 1, p->at[2] - 1);
    }
}

/* seq_check3 over every three buffers of a processor one after another in
 * the file (the first two and the last two of each too), seq_check2 over
 * a processor's two, trace by trace (two put together begin again at the
 * second's header buffer). */
static void seq_check(struct etl_file *f)
{
    struct seq_cpu *c = calloc(ETL_MAX_CPUS, sizeof *c);
    uint16_t *cpus = malloc(ETL_MAX_CPUS * sizeof *cpus); /* those of the trace */
    size_t ncpus = 0;
    uint32_t trace = 1;
    if (!c || !cpus) {
        f->nomem = true;
        free(c);
        free(cpus);
        return;
    }
    for (size_t i = 0; i < f->nents; i++) {
        const struct etl_bufent *e = &f->ents[i];
        if (ETL_ENT_HEADER(e) && i > 0 && ncpus) {
            seq_check_ends(f, c, cpus, ncpus);
            ncpus = 0;
            trace++;
        }
        if (ETL_ENT_HEADER(e) || ETL_ENT_UNREAD(e))
            continue;
        uint16_t cpu = ETL_ENT_CPU(e);
        struct seq_cpu *p = &c[cpu];
        if (p->trace != trace) {
            memset(p, 0, sizeof *p);
            p->trace = trace;
            cpus[ncpus++] = cpu;
        }
        if (p->n == 2) /* i is the third: the first of the processor */
            seq_check3(f, p->at[2] - 1, p->at[1] - 1, i, 0);
        if (p->n >= 2)
            seq_check3(f, p->at[1] - 1, p->at[2] - 1, i, 1);
        p->at[0] = p->at[1];
        p->at[1] = p->at[2];
        p->at[2] = (uint32_t)i + 1;
        p->n = p->n < 3 ? p->n + 1 : 3;
    }
    seq_check_ends(f, c, cpus, ncpus);
    free(c);
    free(cpus);
}

/* The index is whole: mends damaged SequenceNumbers, says what it found
 * twice and lets go of the table. */
static void index_done(struct etl_file *f)
{
    f->indexed = true;
    seq_check(f);
    say_repeats(f);
    /* Indexed by the view's pass, whose progress counted the repeats. */
    if (f->totals.repeated && f->progress_done && !f->scope && f->diag.progress)
        report_progress(f);
    free(f->seen);
    f->seen = NULL;
    f->seen_cap = 0;
}

/* Appends buffer b to the index; false when out of memory. */
static bool add_buffer(struct etl_file *f, const struct etl_buffer *b)
{
    if (f->nents == f->ents_cap) {
        /* Doubling, but never past the cap: the index is the largest thing
         * the reader holds. */
        size_t ncap = f->ents_cap ? f->ents_cap * 2 : 256;
        if (ncap > ETL_MAX_BUFFERS)
            ncap = ETL_MAX_BUFFERS;
        struct etl_bufent *n = realloc(f->ents, ncap * sizeof *n);
        if (!n)
            return false;
        f->ents = n;
        f->ents_cap = ncap;
    }
    /* Without a logfile header, the first buffer is one of a processor's. */
    bool first = b->type == ETL_BUF_TYPE_HEADER || (f->nents == 0 && !f->headerless);
    struct etl_bufent *e = &f->ents[f->nents++];
    e->seq = b->seq;
    e->pos = b->offset | ((uint64_t)b->cpu << 48) | ((uint64_t)first << 59);
    f->totals.buffers++;
    f->totals.bytes += b->size;
    f->totals.cpus[b->cpu / 64] |= 1ull << (b->cpu % 64);
    if (b->flags & ETL_BUF_FLAG_EVENTS_LOST)
        f->totals.events_lost_flagged++;
    if (b->flags & ETL_BUF_FLAG_BUFFER_LOST)
        f->totals.buffer_lost_flagged++;
    if (b->flags & ETL_BUF_FLAG_COMPRESSED) {
        f->totals.compressed++;
        f->totals.compressed_bytes += b->size;
        /* What it decompresses to: past the logfile header's buffer size
         * only where that is impossible or damaged (zmost). */
        if (b->saved_offset > f->max_buf && b->saved_offset <= f->zmost)
            f->max_buf = b->saved_offset;
    }
    if (b->size > f->max_buf)
        f->max_buf = b->size;
    return check_repeat(f, f->nents - 1, b);
}

/* Whether f's buffers all have the size its logfile header gives (not
 * compressed, §10): then one of an impossible size is stepped over. */
static bool fixed_stride(const struct etl_file *f)
{
    uint32_t stride = f->hdr.buffer_size;
    return !(f->hdr.log_file_mode & MODE_COMPRESSED) && stride >= ETL_BUF_HEADER_SIZE &&
           stride <= ETL_MAX_BUFFER_SIZE;
}

/* What indexing one buffer header did. */
enum index_step { INDEX_ADDED, INDEX_SKIPPED, INDEX_END, INDEX_NOMEM };

/* Bytes the index reads at once while buffers are small (INDEX_SMALL at
 * most): the headers of the buffers that follow come from them, a system
 * call fewer each. Larger buffers have their headers read one by one: the
 * bytes between them would be copied for nothing. */
#define INDEX_CHUNK (16u * 1024u)
#define INDEX_SMALL (4u * 1024u)

static void copy_failed(struct etl_file *f, uint64_t off, const char *what);

/* Whether the header of buffer b could be one: flags and type that are
 * known (§2), and what it holds within its size, or for a compressed one
 * (§10) decompressing to a possible size. Its processor is checked apart. */
static bool header_known(const struct etl_file *f, const struct etl_buffer *b)
{
    if (b->size < ETL_BUF_HEADER_SIZE || b->size > ETL_MAX_BUFFER_SIZE ||
        (b->flags & ~ETL_BUF_FLAGS_KNOWN) || b->type > ETL_BUF_TYPE_LAST)
        return false;
    if (!(b->flags & ETL_BUF_FLAG_COMPRESSED))
        return b->saved_offset <= b->size && b->offset_field <= b->size;
    return b->size > ETL_BUF_HEADER_SIZE && b->saved_offset >= ETL_BUF_HEADER_SIZE &&
           b->saved_offset <= f->zmost;
}

/* Whether the header of buffer b, known (header_known), is also what a
 * buffer header of the file is like, beyond what chance gives bytes that
 * are not one: a processor the logfile header counts, a SequenceNumber
 * below 2^40 (a count of buffers), and in a file whose logfile header says
 * its buffers are compressed, a compressed buffer or a header buffer. A
 * scan for a header stops only at such a one: a header shifted by a few
 * bytes passes header_known (the State field read as the flags: 3). */
static bool header_strong(const struct etl_file *f, const struct etl_buffer *b)
{
    return header_known(f, b) && b->cpu < f->cpus_most && b->seq < (1ull << 40) &&
           (!f->zstrict || b->type == ETL_BUF_TYPE_HEADER ||
            (b->flags & ETL_BUF_FLAG_COMPRESSED));
}

/* Whether the bytes at h, read at off, are a strong buffer header
 * (header_strong). */
static bool strong_at(const struct etl_file *f, const uint8_t *h, uint64_t off)
{
    struct etl_buffer b;
    etl_decode_buffer_header(h, off, &b);
    return header_strong(f, &b);
}

/* Whether a buffer that ends at `end` is followed by the end of the file or
 * by the header of a buffer of a possible size and processor; with strong,
 * by a strong one (header_strong). */
static bool leads_on(const struct etl_file *f, uint64_t end, bool strong)
{
    if (end == f->file_size)
        return true;
    uint8_t h[ETL_BUF_HEADER_SIZE];
    if (end > f->file_size || f->file_size - end < sizeof h ||
        read_upto(f, h, sizeof h, end) != sizeof h)
        return false;
    if (strong)
        return strong_at(f, h, end);
    struct etl_buffer n;
    etl_decode_buffer_header(h, end, &n);
    return n.size >= ETL_BUF_HEADER_SIZE && n.size <= ETL_MAX_BUFFER_SIZE &&
           n.cpu < ETL_MAX_CPUS && !(n.flags & ~ETL_BUF_FLAGS_KNOWN);
}

/* Whether, in a file of fixed-size buffers (fixed_stride), the size of
 * buffer b, which is not the file's, is damage: the file's size from it
 * ends the file, or the header it leads to is that of a buffer of the
 * file's size (a bit flipped in the size field would otherwise lose the
 * buffers it swallows, or read the insides of buffers as buffers). Not
 * when b is a strong header whose own, smaller, size leads to another
 * strong one: the buffers are that size here, and it is the logfile
 * header's size that is not theirs (damaged, or a relogger's that has
 * buffers of other sizes). Before, the last buffer from which the file's
 * size reached the end of the file was read at that size, swallowing the
 * buffers after it (the demo trace with its logfile header's BufferSize
 * 16384 lost 353 of its 800 switches). */
static bool stride_is_right(const struct etl_file *f, const struct etl_buffer *b)
{
    uint32_t stride = f->hdr.buffer_size;
    uint64_t off = b->offset;
    if (b->size < stride && header_strong(f, b) && leads_on(f, off + b->size, true))
        return false;
    if (f->file_size - off == stride)
        return true;
    uint8_t h[ETL_BUF_HEADER_SIZE];
    if (f->file_size - off < (uint64_t)stride + sizeof h ||
        read_upto(f, h, sizeof h, off + stride) != sizeof h)
        return false;
    struct etl_buffer n;
    etl_decode_buffer_header(h, off + stride, &n);
    return n.size == stride && n.saved_offset <= stride && n.offset_field <= stride &&
           n.cpu < ETL_MAX_CPUS;
}

/* Whether the bytes at h, at offset off past the file's start, are the
 * header of a buffer a scan may stop at: strong (header_strong), within
 * the file and leading on (leads_on); of size want when that is not 0 (a
 * file of fixed-size buffers has no other size: bytes inside a header
 * buffer passed for a header of 8064 bytes, swallowing the next; a header
 * buffer found there begins a copy of the trace or another trace); else
 * not a header buffer unless it holds a logfile header (another trace
 * begins there: a compressed trace's copy cut in its first buffer, the
 * trace after it, had that header buffer read as part of the cut one, its
 * events lost, in 66 of 100 cuts).
 * A first check of three fields alone keeps the scan quick: 0 when that
 * fails, 1 when all pass, -1 when the others fail. */
static int header_found(const struct etl_file *f, const uint8_t *h, uint64_t off,
                        uint32_t want)
{
    uint32_t size = etl_le32(h + BH_BUFFER_SIZE);
    /* Of another size than want, only another trace's header buffer. */
    bool other = want && size != want;
    if ((other && etl_le16(h + BH_TYPE) != ETL_BUF_TYPE_HEADER) || size < ETL_BUF_HEADER_SIZE ||
        size > ETL_MAX_BUFFER_SIZE || (etl_le16(h + BH_FLAG) & ~ETL_BUF_FLAGS_KNOWN) ||
        etl_le16(h + BH_TYPE) > ETL_BUF_TYPE_LAST)
        return 0;
    struct etl_buffer b;
    struct etl_logfile hdr;
    etl_decode_buffer_header(h, off, &b);
    return header_strong(f, &b) && b.size <= f->file_size - off &&
                   leads_on(f, off + b.size, false) &&
                   ((want && !other) || b.type != ETL_BUF_TYPE_HEADER || trace_at(f, off, &hdr))
               ? 1
               : -1;
}

/* Where the first byte that is not zero lies in p[i, n), or n. */
static size_t nonzero_from(const uint8_t *p, size_t i, size_t n)
{
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, sizeof w);
        if (w)
            break;
    }
    while (i < n && !p[i])
        i++;
    return i;
}

/* Where the first byte of f from off on that is not zero lies (or where a
 * read fails), its end when none does. The last run of zeros found is
 * kept: a place inside it is answered at once (a run of damaged buffers
 * stepped over one at a time asks at each). */
static uint64_t first_nonzero(struct etl_file *f, uint64_t off)
{
    if (off >= f->zeros_from && off < f->zeros_to)
        return f->zeros_to;
    uint8_t chunk[INDEX_CHUNK];
    uint64_t at = off;
    while (at < f->file_size) {
        uint64_t left = f->file_size - at;
        size_t k = left < sizeof chunk ? (size_t)left : sizeof chunk;
        if (read_upto(f, chunk, k, at) != k)
            break;
        size_t z = nonzero_from(chunk, 0, k);
        at += z;
        if (z < k)
            break;
    }
    f->zeros_from = off;
    f->zeros_to = at;
    return at;
}

/* Whether every byte of f from off to its end is zero. */
static bool zeros_to_end(struct etl_file *f, uint64_t off)
{
    return first_nonzero(f, off) >= f->file_size;
}

/* The file ends at off in zeros (zeros_to_end): no damage, but the space a
 * logger preallocated (EVENT_TRACE_FILE_MODE_PREALLOCATE) and did not fill,
 * which stopping the trace gives back (a trace that was not stopped keeps
 * it). Said as a warning; the index ends. */
static void say_zero_tail(struct etl_file *f, uint64_t off)
{
    etl_warn(f, "the file ends in %llu bytes of zeros, from offset 0x%llx: no buffer is "
             "there%s", (unsigned long long)(f->file_size - off), (unsigned long long)off,
             f->hdr.log_file_mode & MODE_PREALLOCATE
                 ? " (space preallocated for the trace, EVENT_TRACE_FILE_MODE_PREALLOCATE, "
                   "and not filled)"
                 : "");
}

/* Headers a scan tries whole (header_found's -1) before it gives up. */
#define SCAN_TRIES 4096u

/* Looks for the first buffer header (header_found, of size want unless 0)
 * from offset from on, before offset to; true with its offset in *at. A
 * file whose buffers have sizes of their own (compressed) has nothing else
 * to find the next one by when a size field is damaged. */
static bool scan_between(const struct etl_file *f, uint64_t from, uint64_t to, uint32_t want,
                         uint64_t *at)
{
    uint8_t chunk[INDEX_CHUNK];
    uint64_t c = from;
    unsigned tries = 0; /* headers that passed header_found's first check */
    while (c < to && c < f->file_size && f->file_size - c >= ETL_BUF_HEADER_SIZE) {
        uint64_t left = f->file_size - c;
        size_t n = read_upto(f, chunk, left < sizeof chunk ? (size_t)left : sizeof chunk, c);
        if (n < ETL_BUF_HEADER_SIZE)
            return false;
        for (size_t i = 0; i + ETL_BUF_HEADER_SIZE <= n; i++) {
            /* A run of zeros is passed at once: a header whose size field
             * lies in it has size 0. */
            if (!chunk[i]) {
                size_t z = nonzero_from(chunk, i, n);
                if (z - i >= 4) {
                    i = z - 4; /* the next tried starts at z - 3 */
                    continue;
                }
            }
            if (c + i >= to)
                return false;
            int r = header_found(f, chunk + i, c + i, want);
            if (r > 0) {
                *at = c + i;
                return true;
            }
            /* Data that passes the first check is rare (about once in 10^9
             * bytes of compressed data): a file made of it ends the scan
             * rather than have each tried with a read of its own. */
            if (r < 0 && ++tries > SCAN_TRIES)
                return false;
        }
        c += n - ETL_BUF_HEADER_SIZE + 1; /* the next chunk holds the headers cut here */
    }
    return false;
}

/* scan_between to the end of the file. */
static bool scan_for_header(const struct etl_file *f, uint64_t from, uint32_t want,
                            uint64_t *at)
{
    return scan_between(f, from, UINT64_MAX, want, at);
}

/* scan_for_header from inside the buffer whose header is at last: from
 * just past its start for a header buffer that holds a logfile header (a
 * copy cut inside that header, another trace after it: last_up_to makes
 * the bytes before a fragment), else from past its header (any other
 * header found inside it would be its own read askew). */
static bool scan_past(const struct etl_file *f, uint64_t last, uint32_t want, uint64_t *at)
{
    struct etl_logfile hdr;
    if (!scan_for_header(f, last + 1, want, at))
        return false; /* nor past its header */
    if (*at >= last + ETL_BUF_HEADER_SIZE || trace_at(f, *at, &hdr))
        return true;
    return scan_for_header(f, last + ETL_BUF_HEADER_SIZE, want, at);
}

/* Whether a buffer of the trace begins at off, in a file with no logfile
 * header: a strong header (header_strong, the logfile header's fields
 * unknown) within the file, with events, leading on to another strong
 * one or to the end of the file, its first record whole (unless
 * compressed, or the header buffer at the start, whose first record is the
 * damaged logfile header): bytes that are no trace seldom pass all of
 * these. */
static bool buffer_of_trace(struct etl_file *f, uint64_t off)
{
    uint8_t h[ETL_BUF_HEADER_SIZE];
    if (read_upto(f, h, sizeof h, off) != sizeof h)
        return false;
    struct etl_buffer b;
    etl_decode_buffer_header(h, off, &b);
    if (!header_strong(f, &b) || b.size > f->file_size - off ||
        b.saved_offset < ETL_BUF_HEADER_SIZE + 16 || !leads_on(f, off + b.size, true))
        return false;
    /* At the start, the header buffer whose logfile header is damaged. */
    if ((b.flags & ETL_BUF_FLAG_COMPRESSED) || (off == 0 && b.type == ETL_BUF_TYPE_HEADER))
        return true;
    /* A record's size is a u16 (§3): its events up to that many bytes. */
    size_t n = b.saved_offset < LOGFILE_SPAN_MAX ? b.saved_offset : LOGFILE_SPAN_MAX, next;
    uint8_t *mem = malloc(n);
    struct etl_event ev;
    const char *why;
    if (!mem)
        f->nomem = true;
    bool yes = mem && read_upto(f, mem, n, off) == n &&
               etl_parse_event(mem, n, ETL_BUF_HEADER_SIZE, &ev, &next, &why) == ETL_PARSE_OK;
    free(mem);
    return yes;
}

/* The file has no logfile header at its start (read_logfile_header): its
 * first record is damaged, or bytes of something else come first (a copy
 * whose start is cut off, a trace carved from a disk or a memory dump).
 * When a trace's header buffer begins in its first JUNK_SCAN bytes, the
 * file is read from there, with that logfile header; else, when a buffer
 * of a trace does (buffer_of_trace), from there without one: f->hdr all
 * zeros (the clock taken as 10 MHz, the build, the processors and the
 * pointer size unknown), its t0 the earliest event's (finish_open). Said
 * once, at offset 0. ETL_OPEN_OK, ETL_OPEN_NOT_ETL when neither is found,
 * ETL_OPEN_NOMEM (f->nomem set). Before, such a file went unread whole:
 * the demo trace with 16 bytes of its first record zeroed, or its first
 * 5000 bytes cut off, gave none of its 800 switches; a trace after bytes
 * of something else was pointed to and not read. */
static enum etl_open_status read_without_header(struct etl_file *f)
{
    uint64_t at;
    struct etl_logfile hdr;
    if (find_trace(f, 1, JUNK_SCAN, &at, &hdr)) {
        f->hdr = hdr;
        f->index_at = at;
        etl_report(f, 0, "no logfile header at the start, but a trace's header buffer at "
                   "offset 0x%llx, after %llu bytes that begin no trace: the trace is read "
                   "from there", (unsigned long long)at, (unsigned long long)at);
        return ETL_OPEN_OK;
    }
    /* What a strong buffer header may be without a logfile header. */
    memset(&f->hdr, 0, sizeof f->hdr);
    bounds_from_header(f);
    at = 0;
    while (!buffer_of_trace(f, at))
        if (f->nomem || !scan_between(f, at + 1, JUNK_SCAN, 0, &at))
            return f->nomem ? ETL_OPEN_NOMEM : ETL_OPEN_NOT_ETL;
    f->headerless = true;
    f->index_at = at;
    etl_report(f, 0, "no logfile header at the start (damaged, or the file's start cut off): "
               "buffers read from offset 0x%llx on without it: 10 MHz clock from the earliest "
               "event, no absolute time, build and processors unknown", (unsigned long long)at);
    return ETL_OPEN_OK;
}

/* Looks for the first place in [from, to) where another trace begins
 * (trace_at: a header buffer holding a logfile header of possible values);
 * true with its offset in *at and its logfile header in *hdr. Only such a
 * place is looked for: the data of a buffer cut short holds other bytes
 * that pass for buffer headers. */
static bool find_trace(const struct etl_file *f, uint64_t from, uint64_t to, uint64_t *at,
                       struct etl_logfile *hdr)
{
    uint8_t chunk[INDEX_CHUNK];
    uint64_t c = from;
    unsigned tries = 0;
    if (to > f->file_size)
        to = f->file_size;
    while (c < to && f->file_size - c >= TRACE_START_BYTES) {
        uint64_t left = f->file_size - c;
        size_t n = read_upto(f, chunk, left < sizeof chunk ? (size_t)left : sizeof chunk, c);
        if (n < TRACE_START_BYTES)
            return false;
        for (size_t i = 0; i + TRACE_START_BYTES <= n && c + i < to; i++) {
            if (!header_buffer_start(chunk + i))
                continue;
            if (trace_at(f, c + i, hdr)) {
                *at = c + i;
                return true;
            }
            if (++tries > SCAN_TRIES)
                return false;
        }
        c += n - TRACE_START_BYTES + 1; /* the next chunk holds the starts cut here */
    }
    return false;
}

/* Says that the buffer at off, of size `size`, runs past the buffer header
 * found at at, and is read up to it. */
static void say_runs_past(struct etl_file *f, uint64_t off, uint32_t size, uint64_t at)
{
    etl_report(f, off, "buffer size %u runs past a buffer header, at offset 0x%llx: read as "
               "%llu bytes", (unsigned)size, (unsigned long long)at,
               (unsigned long long)(at - off));
}

/* Says that the bytes from off to at, where a buffer header is found, are
 * fewer than a buffer header: no buffer (a copy cut inside one). */
static void say_fragment(struct etl_file *f, uint64_t off, uint64_t at)
{
    etl_report(f, off, "buffer header cut short by a buffer header, at offset 0x%llx: its %llu "
               "bytes are no buffer", (unsigned long long)at, (unsigned long long)(at - off));
}

/* Indexes buffer b, whose header is at f->index_at, and moves index_at
 * past it; resized when its size is the index's, not its header's. */
static enum index_step index_add(struct etl_file *f, struct etl_buffer *b, bool resized)
{
    uint64_t off = f->index_at, left = f->file_size - off, at;
    struct etl_logfile hdr;
    if (b->size > left && find_trace(f, off + 1, f->file_size, &at, &hdr)) {
        /* Not cut short by the end of the file: another trace begins
         * inside it (a copy cut there, a trace of larger buffers after
         * it). */
        if (at - off < ETL_BUF_HEADER_SIZE) {
            say_fragment(f, off, at);
            f->index_at = at;
            return INDEX_SKIPPED;
        }
        say_runs_past(f, off, b->size, at);
        b->size = (uint32_t)(at - off);
        resized = true;
    } else if (b->size > left) {
        etl_report(f, off, "buffer of %u bytes is truncated: the file ends after %llu",
                   (unsigned)b->size, (unsigned long long)left);
        b->size = (uint32_t)left;
        b->truncated = 1;
    }
    enum index_step st = INDEX_ADDED;
    if (b->cpu >= ETL_MAX_CPUS) {
        etl_report(f, off + BH_CLIENT_CONTEXT,
                   "buffer names processor %u, beyond %u: buffer skipped", (unsigned)b->cpu,
                   ETL_MAX_CPUS);
        st = INDEX_SKIPPED;
    } else if (!add_buffer(f, b) || (resized && !resize_last(f, b, b->size))) {
        return INDEX_NOMEM;
    }
    f->index_last = off + 1;
    f->index_at += b->size;
    return st;
}

/* Reads the index's last buffer, whose header is at last, up to offset at
 * (resize_last); with cut, says it runs past the buffer header found
 * there. INDEX_SKIPPED, INDEX_NOMEM, or INDEX_END when its header cannot be
 * read again (said). */
static enum index_step last_up_to(struct etl_file *f, uint64_t last, uint64_t at, bool cut)
{
    struct etl_buffer lb;
    uint8_t h[ETL_BUF_HEADER_SIZE];
    if (!read_at(f, h, sizeof h, last)) {
        copy_failed(f, last, "buffer header");
        return INDEX_END;
    }
    struct etl_bufent *e = &f->ents[f->nents - 1];
    etl_entry_header(f, e, h, &lb);
    if (at - last < ETL_BUF_HEADER_SIZE) {
        /* Not even its header: the bytes of a copy cut inside a buffer's
         * header, and the header read there was made of them and of what
         * follows (its flags and processor another buffer's). It is no
         * buffer: not read nor counted as one. */
        say_fragment(f, last, at);
        if (!ETL_ENT_UNREAD(e)) {
            struct etl_buffer_totals *t = &f->totals;
            t->buffers--;
            t->bytes -= lb.size;
            if (lb.flags & ETL_BUF_FLAG_EVENTS_LOST)
                t->events_lost_flagged--;
            if (lb.flags & ETL_BUF_FLAG_BUFFER_LOST)
                t->buffer_lost_flagged--;
            if (lb.flags & ETL_BUF_FLAG_COMPRESSED) {
                t->compressed--;
                t->compressed_bytes -= lb.size;
            }
        }
        e->pos |= ETL_ENT_FRAGMENT_BIT;
        /* What its made-up header was taken for is unsaid: another trace's
         * header buffer, a buffer with another's processor and
         * SequenceNumber (when it was the only one). */
        if (f->other_header == last + 1)
            f->other_header = 0;
        if (f->ndiffer == 1 && f->differ.at == last)
            f->ndiffer = 0;
        return INDEX_SKIPPED;
    }
    if (cut)
        say_runs_past(f, last, lb.size, at);
    return resize_last(f, &lb, (uint32_t)(at - last)) ? INDEX_SKIPPED : INDEX_NOMEM;
}

/* The bytes at f->index_at, decoded in b, are no buffer header, in a file
 * whose buffers have sizes of their own (compressed, §10): a size field is
 * damaged, theirs or the last buffer's. The index goes on at the next
 * buffer header found (scan_for_header) from just past the last buffer's
 * header, for that one may have claimed too many bytes (swallowing
 * buffers). When b is a header whose size alone is impossible, b is read
 * up to there; else the last buffer is (it may have claimed too few: a
 * compressed one decompresses to the size it says it has, the bytes past
 * that unused). INDEX_END when nothing follows. */
static enum index_step index_lost(struct etl_file *f, struct etl_buffer *b)
{
    uint64_t off = f->index_at, at = f->file_size;
    const struct etl_bufent *le = f->nents ? &f->ents[f->nents - 1] : NULL;
    uint64_t last = le && f->index_last == ETL_ENT_OFFSET(le) + 1 ? f->index_last - 1 : off;
    /* Never from off itself (a last buffer of 0x48 bytes ends there): what
     * is there is no header, and the index would come back to it. */
    bool found = last == off || last + ETL_BUF_HEADER_SIZE >= off
                     ? scan_for_header(f, off + 1, 0, &at)
                     : scan_past(f, last, 0, &at);
    if (!found && zeros_to_end(f, off)) {
        say_zero_tail(f, off);
        return INDEX_END;
    }
    struct etl_buffer whole = *b;
    whole.size = at > off && at - off <= ETL_MAX_BUFFER_SIZE ? (uint32_t)(at - off) : 0;
    if (at > off && whole.size && header_known(f, &whole) &&
        whole.saved_offset > ETL_BUF_HEADER_SIZE) {
        const char *wrong = b->size >= ETL_BUF_HEADER_SIZE && b->size <= ETL_MAX_BUFFER_SIZE
                                ? "leads to no buffer header"
                                : "is impossible";
        if (found)
            etl_report(f, off, "buffer size %u %s: read up to the next buffer header, at "
                       "offset 0x%llx", (unsigned)b->size, wrong, (unsigned long long)at);
        else
            etl_report(f, off, "buffer size %u %s: read up to the end of the file",
                       (unsigned)b->size, wrong);
        return index_add(f, &whole, true);
    }
    /* The last buffer read up to the header found, or the end of the file. */
    bool extended = last != off && at - last <= ETL_MAX_BUFFER_SIZE;
    if (extended) {
        enum index_step st = last_up_to(f, last, at, at < off);
        if (st != INDEX_SKIPPED)
            return st;
        if (at < off) {
            f->index_at = at;
            return INDEX_SKIPPED;
        }
    }
    char up_to[64];
    if (found)
        snprintf(up_to, sizeof up_to, "the next, at offset 0x%llx", (unsigned long long)at);
    else
        snprintf(up_to, sizeof up_to, "the end of the file");
    if (extended)
        etl_report(f, off, "no buffer header here (buffer size %u): the buffer at 0x%llx is "
                   "read up to %s", (unsigned)b->size, (unsigned long long)last, up_to);
    else
        etl_report(f, off, "no buffer header here (buffer size %u): %llu bytes skipped to %s",
                   (unsigned)b->size, (unsigned long long)(at - off), up_to);
    f->index_at = at;
    return found ? INDEX_SKIPPED : INDEX_END;
}

/* Whether the few bytes at the end of a file whose buffers have sizes of
 * their own, where its last buffer's size leads, are no trailing bytes but
 * the sign of a damaged size: a buffer header lies past the last one's own
 * (index_lost then cuts that buffer there and goes on). */
static bool short_tail_lost(const struct etl_file *f)
{
    const struct etl_bufent *le = f->nents ? &f->ents[f->nents - 1] : NULL;
    uint64_t at;
    return !fixed_stride(f) && le && f->index_last == ETL_ENT_OFFSET(le) + 1 &&
           scan_for_header(f, ETL_ENT_OFFSET(le) + ETL_BUF_HEADER_SIZE, 0, &at) &&
           at < f->index_at;
}

/* In a file of fixed-size buffers (fixed_stride), the header at
 * f->index_at, decoded in b, has an impossible size, or one that is not
 * the file's in a header that is not strong (header_strong) or leads to
 * no header. When the file ends there in zeros, that is said
 * (say_zero_tail) and the index ends. When one buffer further on there is
 * no buffer header of the file's size either (header_strong),
 * this is no single damaged buffer but a run of them, or buffers that lie
 * off the file's stride (a file put together from a copy cut short and
 * another): the index goes on at the next buffer header found
 * (scan_for_header), said once. True with *st set when either was done;
 * false to go on as for one damaged buffer, at the next place a buffer
 * would start (also when the scan finds none: it is not tried again). */
static bool index_realign(struct etl_file *f, const struct etl_buffer *b, enum index_step *st)
{
    uint64_t off = f->index_at, next = off + f->hdr.buffer_size, at;
    if (zeros_to_end(f, off)) {
        say_zero_tail(f, off);
        *st = INDEX_END;
        return true;
    }
    uint8_t h[ETL_BUF_HEADER_SIZE];
    if (f->realign_failed ||
        (next < f->file_size && read_upto(f, h, sizeof h, next) == sizeof h &&
         strong_at(f, h, next) && etl_le32(h + BH_BUFFER_SIZE) == f->hdr.buffer_size))
        return false;
    /* From inside the last buffer when it ends here and no walk has read
     * it: a header found in it cuts it there (a copy cut short inside that
     * buffer, the next buffers off the stride: their header buffer lies
     * there). At the file's last place, that alone (a trace of smaller
     * buffers after the cut copy, read at the copy's size, was lost). */
    const struct etl_bufent *le = f->nents ? &f->ents[f->nents - 1] : NULL;
    uint64_t last = le ? ETL_ENT_OFFSET(le) : 0;
    bool inside = le && f->nents > f->walked && f->index_last == last + 1 &&
                  last + f->hdr.buffer_size == off;
    if (next >= f->file_size && !inside)
        return false;
    if (!(inside ? scan_past(f, last, f->hdr.buffer_size, &at)
                 : scan_for_header(f, off + 1, f->hdr.buffer_size, &at))) {
        f->realign_failed = true;
        return false;
    }
    if (at == next)
        return false;
    if (at == off) {
        /* The scan stops here: another trace's header buffer, whose size
         * is not the file's (two traces put together, the second of other
         * buffers). Taken as it is: before, the index came back here
         * without end. */
        struct etl_buffer here = *b;
        *st = index_add(f, &here, false);
        return true;
    }
    if (at < off) {
        *st = last_up_to(f, last, at, true);
        if (*st == INDEX_SKIPPED)
            f->index_at = at;
        return true;
    }
    etl_report(f, off, "no buffer header here (buffer size %u): %llu bytes skipped to the next, "
               "at offset 0x%llx", (unsigned)b->size, (unsigned long long)(at - off),
               (unsigned long long)at);
    f->index_at = at;
    *st = INDEX_SKIPPED;
    return true;
}

/* Whether buffer header b, within the file, is strong (header_strong) but
 * for what the logfile header says of all the buffers: that they
 * decompress to its buffer size at most (f->zmost), are compressed
 * (f->zstrict), or are of its number of processors (f->cpus_most); and is
 * followed by the end of the file or by another header strong but for
 * the same. Then those fields of the logfile header are wrong (damaged:
 * one bit of LogFileMode, or of NumberOfProcessors), and the buffers are
 * read without them, each said once. Before, no buffer was strong that
 * the field did not fit: a real trace with its 65536 damaged to 1024 read
 * 31 of its 28,694 events, the demo with COMPRESSED_MODE set 12 of its
 * 45, a real trace of 28 processors said to have 20 lost 2,710 events. */
static bool logfile_is_wrong(struct etl_file *f, const struct etl_buffer *b)
{
    uint32_t zmost = f->zmost, cpus = f->cpus_most;
    bool zstrict = f->zstrict;
    bool size = (b->flags & ETL_BUF_FLAG_COMPRESSED) && b->saved_offset > zmost,
         mode = zstrict && !(b->flags & ETL_BUF_FLAG_COMPRESSED) && b->type != ETL_BUF_TYPE_HEADER,
         cpu = b->cpu >= cpus;
    if (!(size || mode || cpu) || b->size > f->file_size - b->offset)
        return false;
    if (size)
        f->zmost = ETL_MAX_BUFFER_SIZE;
    if (mode)
        f->zstrict = false;
    if (cpu)
        f->cpus_most = ETL_MAX_CPUS;
    if (!header_strong(f, b) || !leads_on(f, b->offset + b->size, true)) {
        f->zmost = zmost;
        f->zstrict = zstrict;
        f->cpus_most = cpus;
        return false;
    }
    if (size)
        etl_report(f, b->offset + BH_SAVED_OFFSET,
                   "compressed buffer decompresses to %u bytes, past the logfile header's "
                   "buffer size %u: the compressed buffers are read at the sizes they give",
                   (unsigned)b->saved_offset, (unsigned)f->hdr.buffer_size);
    if (mode)
        etl_report(f, b->offset, "the logfile header says the buffers are compressed "
                   "(LogFileMode 0x%08x), and this one is not, nor is it a header buffer: "
                   "buffers are read whether they are compressed or not",
                   (unsigned)f->hdr.log_file_mode);
    if (cpu)
        etl_report(f, b->offset + BH_CLIENT_CONTEXT, "buffer of processor %u, past the %u "
                   "processor%s the logfile header counts: buffers of every processor are read",
                   (unsigned)b->cpu, (unsigned)f->hdr.cpus, f->hdr.cpus == 1 ? "" : "s");
    return true;
}

/* Indexes the buffer whose header h was read at f->index_at (§13 step 2)
 * and moves index_at past it; INDEX_END after reporting why the index ends
 * there. */
static enum index_step index_header(struct etl_file *f, const uint8_t *h)
{
    uint64_t off = f->index_at, left = f->file_size - off;
    uint32_t stride = f->hdr.buffer_size;
    if (f->nents >= ETL_MAX_BUFFERS) {
        etl_report(f, off, "more than %u buffers: the rest of the file is not read",
                   ETL_MAX_BUFFERS);
        return INDEX_END;
    }
    struct etl_buffer b;
    etl_decode_buffer_header(h, off, &b);
    bool possible = b.size >= ETL_BUF_HEADER_SIZE && b.size <= ETL_MAX_BUFFER_SIZE;
    bool resized = false;
    if (!fixed_stride(f)) {
        /* A header is taken as it is when it is strong and within the file,
         * or known and followed by a strong one; a strong one that runs past
         * the end of the file is the last buffer of a file cut short unless
         * a buffer header follows it. Else a size field is damaged. */
        uint64_t next;
        bool strong = possible && (header_strong(f, &b) || logfile_is_wrong(f, &b));
        if (strong ? b.size > left && scan_for_header(f, off + 1, 0, &next)
                   : !possible || !header_known(f, &b) || !leads_on(f, off + b.size, true))
            return index_lost(f, &b);
    } else if (b.size != stride && stride <= left && stride_is_right(f, &b)) {
        etl_report(f, off, "buffer size %u is not the file's %u, whose next buffer follows: "
                   "read as %u bytes", (unsigned)b.size, (unsigned)stride, (unsigned)stride);
        b.size = stride;
        resized = true;
    } else if (!possible) {
        enum index_step st;
        if (index_realign(f, &b, &st))
            return st;
        etl_report(f, off, "buffer size %u is impossible", (unsigned)b.size);
        if (stride < left) {
            f->index_at += stride; /* fixed-size buffers: resume at the next one */
            return INDEX_SKIPPED;
        }
        return INDEX_END;
    } else if (b.size != stride ? !header_strong(f, &b) || b.size > left ||
                                      !leads_on(f, off + b.size, true)
                                : !header_known(f, &b)) {
        /* a possible size, but what is there is no header, or one whose
         * size leads nowhere (index_realign); a strong one that leads on is
         * taken as it is (a relogger's short header buffer). Of the file's
         * size but no header either (its offsets past its size, unknown
         * flags or type): where the next place holds no header, the bytes
         * of something else that begins inside the buffer before, read
         * there (a copy cut in the last 104 bytes of a buffer, the trace
         * after it: its logfile header's BufferSize lay here, and its
         * header buffer was read as the tail of the cut one and lost). */
        enum index_step st;
        if (index_realign(f, &b, &st))
            return st;
    }
    return index_add(f, &b, resized);
}

/* Reports, once, that the file shrank while it was read: at offset at, to
 * now bytes (-1: unknown), and what became of what lay past it (then). */
static void report_shrunk(struct etl_file *f, uint64_t at, long long now, const char *then)
{
    if (f->shrink_reported)
        return;
    /* Said once; but a pre-pass whose problems are dropped (a scope that
     * keeps none) has said nothing: the pass after it says it. */
    f->shrink_reported = !f->scope || f->scope->keep;
    etl_report(f, at, "the file shrank while it was read (from %llu bytes to %lld): %s",
               (unsigned long long)f->file_size, now, then);
}

/* Reports that reading by copying failed at off (what: "buffer" or
 * "buffer header"). A read that came short because the file is now shorter
 * than at open is the file shrinking: said once, as for a mapped file (at
 * the new end of the file), and the buffers past the end are skipped
 * without a word each. */
static void copy_failed(struct etl_file *f, uint64_t off, const char *what)
{
    int e = errno;
    struct stat sb;
    if (e == EIO && f->fd >= 0 && fstat(f->fd, &sb) == 0 &&
        (uint64_t)sb.st_size < f->file_size) {
        report_shrunk(f, (uint64_t)sb.st_size, (long long)sb.st_size,
                      "buffers past this offset were not read");
        return;
    }
    etl_report(f, off, "cannot read %s: %s", what, strerror(e));
}

/* Whether the n bytes at off lie within the len bytes read at start. */
static bool span_holds(uint64_t start, size_t len, uint64_t off, size_t n)
{
    return off >= start && off - start <= len && len - (off - start) >= n;
}

/* Indexes the buffers of the file from f->index_at on, reading each header
 * by itself, or while they are small (read by copying) several at once;
 * false when out of memory. */
static bool index_rest(struct etl_file *f)
{
    uint8_t chunk[INDEX_CHUNK];
    uint64_t c_off = 0;
    size_t c_len = 0;     /* chunk holds the bytes of [c_off, c_off + c_len) */
    bool small = false;   /* the last buffer indexed was small */
    while (!f->indexed) {
        uint64_t off = f->index_at, left = f->file_size - off;
        uint8_t h[ETL_BUF_HEADER_SIZE];
        const uint8_t *hp = h;
        enum index_step st = INDEX_END;
        if (off >= f->file_size)
            ; /* the last buffer ended the file */
        else if (left < ETL_BUF_HEADER_SIZE && short_tail_lost(f))
            st = index_lost(f, &(struct etl_buffer){ .offset = off });
        else if (left < ETL_BUF_HEADER_SIZE && zeros_to_end(f, off))
            say_zero_tail(f, off);
        else if (left < ETL_BUF_HEADER_SIZE)
            etl_report(f, off, "%llu trailing bytes are too few for a buffer header",
                       (unsigned long long)left);
        else if (off >> 48)
            etl_report(f, off, "the file is too large to index past this offset");
        else {
            if (small && !f->mem) {
                if (!span_holds(c_off, c_len, off, sizeof h)) {
                    c_off = off;
                    c_len = read_upto(f, chunk, left < sizeof chunk ? (size_t)left : sizeof chunk,
                                      off);
                }
                if (span_holds(c_off, c_len, off, sizeof h)) /* else a short read: said below */
                    hp = chunk + (off - c_off);
            }
            if (hp == h && !read_at(f, h, sizeof h, off))
                copy_failed(f, off, "buffer header"); /* a file that shrank says so */
            else
                st = index_header(f, hp);
            small = f->index_at > off && f->index_at - off <= INDEX_SMALL;
        }
        if (st == INDEX_NOMEM)
            return false;
        if (st == INDEX_END)
            index_done(f);
    }
    return true;
}

/* Frees a file and closes what it owns. */
static void release(struct etl_file *f)
{
    etl_map_close(f);
    if (f->own_fd && f->fd >= 0)
        close(f->fd);
    free(f->ents);
    free(f->resized);
    free(f->seen);
    free(f->named);
    free(f->name);
    free(f);
}

enum etl_read_way etl_read_way = ETL_READ_CHOOSE;

/* Copies of the buffers of all the CPUs at once, at most: past that a file
 * is mapped rather than read by copying. */
#define COPY_MAX (16u * 1024u * 1024u)

/* Whether to read the indexed file f through a mapping (map.c) rather than
 * by copying each buffer with pread. Copying is the rule: it costs a system
 * call and a copy a buffer, where a mapping costs a page fault every few
 * pages, and on some machines (virtual ones) a fault costs many times a
 * copy: --stats on a 1 GB file just written took 0.22 s copied and 0.83 s
 * mapped on the 2-core virtual machine of the README's benchmarks, and
 * mapped was faster (0.19 s) only while the page cache held the file in
 * 2 MiB pages. Files
 * with compressed buffers are mapped, for the helpers that decompress
 * ahead read them in place (ahead.c), and so are those whose copies, one
 * buffer for each CPU's stream, would take more than COPY_MAX. */
static bool map_is_better(const struct etl_file *f)
{
    if (etl_read_way != ETL_READ_CHOOSE)
        return etl_read_way == ETL_READ_MAP;
    if (f->totals.compressed > 0)
        return true;
    uint8_t seen[ETL_MAX_CPUS / 8] = { 0 };
    uint64_t cpus = 0;
    for (size_t i = 0; i < f->nents; i++) {
        unsigned c = ETL_ENT_CPU(&f->ents[i]);
        if (!(seen[c / 8] & (1u << (c % 8)))) {
            seen[c / 8] = (uint8_t)(seen[c / 8] | (1u << (c % 8)));
            cpus++;
        }
    }
    return cpus * f->max_buf > COPY_MAX;
}

/* Whether the index of f may wait until it is needed: a regular file read
 * by copying whose header does not say its buffers are compressed. A walk
 * in file order then indexes the buffers as it reads them (walk_indexing). */
static bool index_may_wait(const struct etl_file *f)
{
    return f->fd >= 0 && !f->mem && !(f->hdr.log_file_mode & MODE_COMPRESSED) &&
           etl_read_way != ETL_READ_MAP;
}

/* Keeps in *ctx (an int64_t) the earliest time of the events it is given. */
static bool earliest_seen(void *ctx, const struct etl_event *ev)
{
    int64_t *t = ctx;
    if ((ev->flags & ETL_EV_TS) && ev->ts < *t)
        *t = ev->ts;
    return true;
}

/* The earliest time of the events of each processor's first buffer and of
 * the header buffers (0 when none has one): a file without a logfile
 * header counts its times from there. What is damaged there is said when
 * the view reads it. */
static int64_t earliest_event(struct etl_file *f)
{
    struct etl_scope scope;
    int64_t t = INT64_MAX;
    etl_scope_begin(f, &scope, false);
    etl_walk_first_buffers(f, earliest_seen, &t);
    etl_scope_end(f, &scope);
    return t == INT64_MAX ? 0 : t;
}

/* Reads the header of a file whose source is set up, and its index unless
 * that may wait. */
static struct etl_file *finish_open(struct etl_file *f, enum etl_open_status *st)
{
    *st = read_logfile_header(f);
    if (*st != ETL_OPEN_OK) {
        int e = errno;
        release(f);
        errno = e;
        return NULL;
    }
    bounds_from_header(f);
    /* Without a logfile header, times count from the earliest event. */
    if (f->headerless && etl_file_index(f))
        f->hdr.t0 = earliest_event(f);
    etl_clock_from_header(&f->clock, &f->hdr);
    if (f->nomem || (!index_may_wait(f) && !etl_file_index(f))) {
        *st = ETL_OPEN_NOMEM;
        release(f);
        return NULL;
    }
    *st = ETL_OPEN_OK;
    return f;
}

bool etl_file_index(struct etl_file *f)
{
    if (f->indexed)
        return true;
    /* The problems found are the file's, said at once, in no scope. */
    struct etl_scope *s = f->scope;
    f->scope = NULL;
    bool ok = index_rest(f);
    f->scope = s;
    if (!ok) {
        f->nomem = true;
        return false;
    }
    if (f->fd >= 0 && !f->mem && map_is_better(f))
        etl_map_open(f); /* else read by copying */
    return true;
}

/* Allocates a file called name; NULL when out of memory. */
static struct etl_file *new_file(const char *name, const struct etl_diag *d)
{
    struct etl_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->fd = -1;
    f->zmost = ETL_MAX_BUFFER_SIZE; /* until the logfile header gives its own */
    f->cpus_most = ETL_MAX_CPUS;
    f->name = strdup(name);
    if (!f->name) {
        free(f);
        return NULL;
    }
    if (d)
        f->diag = *d;
    return f;
}

/* Copies a stream (a pipe, a FIFO, a terminal, a device) to an unlinked
 * temporary file; returns its descriptor, or -1 (errno set; *nomem when
 * memory ran out, *temp when the temporary file failed, not the stream).
 * A stream whose first bytes show it is not an ETL file (stream_not_etl)
 * is copied no further: what is copied says so, and an endless one
 * (/dev/zero) does not fill the disk. */
static int spool(int in, bool *nomem, bool *temp)
{
    enum { CHUNK = 1 << 20 };
    char *buf = malloc(CHUNK);
    uint8_t *head = malloc(LOGFILE_SPAN_MAX);
    bool judged = false; /* what stream_not_etl says is final (false) */
    int fd = -1;
    uint64_t off = 0;
    if (!buf || !head) {
        *nomem = true;
        errno = ENOMEM;
    } else {
        fd = etl_temp_fd(nomem);
        *temp = fd < 0 && !*nomem;
    }
    while (fd >= 0) {
        ssize_t r = read(in, buf, CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            break;
        if (r < 0 || !etl_pwrite_full(fd, buf, (size_t)r, off)) {
            *temp = r >= 0;
            int e = errno;
            close(fd);
            fd = -1;
            errno = e;
            break;
        }
        if (off < LOGFILE_SPAN_MAX) {
            size_t k = LOGFILE_SPAN_MAX - (size_t)off;
            memcpy(head + off, buf, (size_t)r < k ? (size_t)r : k);
        }
        off += (uint64_t)r;
        if (!judged && stream_not_etl(head, off))
            break;
        /* Past these, no later byte changes what stream_not_etl says. */
        judged = off >= LOGFILE_SPAN_MAX;
    }
    free(head);
    free(buf);
    return fd;
}

/* etl_open_fd, and with here etl_open_fd_here. */
static struct etl_file *open_fd(int fd, const char *name, const struct etl_diag *d,
                                enum etl_open_status *st, bool here)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        *st = ETL_OPEN_IO;
        return NULL;
    }
    if (S_ISDIR(sb.st_mode)) {
        *st = ETL_OPEN_IO;
        errno = EISDIR;
        return NULL;
    }
    int own = -1;
    /* A regular file is read where it lies; here, from where its
     * descriptor stands (a shell's standard input after another program
     * read part of it): past its start it is copied like a stream. Either
     * way it is then left at its end, as reading a stream leaves it: the
     * next reader of the descriptor (a second '-') finds nothing left. */
    off_t at = here && S_ISREG(sb.st_mode) ? lseek(fd, 0, SEEK_CUR) : 0;
    if (here && S_ISREG(sb.st_mode) && at <= 0)
        lseek(fd, 0, SEEK_END);
    if (!S_ISREG(sb.st_mode) || at > 0) {
        bool nomem = false, temp = false;
        own = spool(fd, &nomem, &temp);
        if (own < 0 || fstat(own, &sb) != 0) {
            *st = nomem ? ETL_OPEN_NOMEM : temp || own >= 0 ? ETL_OPEN_TEMP : ETL_OPEN_IO;
            if (own >= 0) {
                int e = errno;
                close(own);
                errno = e;
            }
            return NULL;
        }
        fd = own;
    }
    struct etl_file *f = new_file(name, d);
    if (!f) {
        if (own >= 0)
            close(own);
        *st = ETL_OPEN_NOMEM;
        return NULL;
    }
    f->fd = fd;
    f->own_fd = own >= 0;
    f->file_size = (uint64_t)sb.st_size;
    return finish_open(f, st);
}

struct etl_file *etl_open_fd(int fd, const char *name, const struct etl_diag *d,
                             enum etl_open_status *st)
{
    return open_fd(fd, name, d, st, false);
}

struct etl_file *etl_open_fd_here(int fd, const char *name, const struct etl_diag *d,
                                  enum etl_open_status *st)
{
    return open_fd(fd, name, d, st, true);
}

struct etl_file *etl_open_path(const char *path, const struct etl_diag *d,
                               enum etl_open_status *st)
{
    int fd;
    do /* a FIFO's open waits for its writer: a signal may interrupt it */
        fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        *st = ETL_OPEN_IO;
        return NULL;
    }
    struct etl_file *f = open_fd(fd, path, d, st, false);
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (f->own_fd) /* a stream, now spooled: the path's descriptor is done */
        close(fd);
    f->own_fd = true;
    return f;
}

struct etl_file *etl_open_mem(const void *data, size_t len, const char *name,
                              const struct etl_diag *d, enum etl_open_status *st)
{
    struct etl_file *f = new_file(name, d);
    if (!f) {
        *st = ETL_OPEN_NOMEM;
        return NULL;
    }
    static const uint8_t empty[1];
    f->mem = data ? data : empty;
    f->file_size = len;
    return finish_open(f, st);
}

void etl_close(struct etl_file *f)
{
    if (!f)
        return;
    release(f);
}

const char *etl_file_name(const struct etl_file *f)
{
    return f->name;
}

const struct etl_logfile *etl_file_header(const struct etl_file *f)
{
    return &f->hdr;
}

uint64_t etl_file_size(const struct etl_file *f)
{
    return f->file_size;
}

const struct etl_clock *etl_file_clock(const struct etl_file *f)
{
    return &f->clock;
}

const struct etl_buffer_totals *etl_file_totals(struct etl_file *f)
{
    etl_file_index(f);
    return &f->totals;
}

void etl_file_set_threads(struct etl_file *f, unsigned threads)
{
    f->threads = threads;
}

uint64_t etl_file_problems(const struct etl_file *f)
{
    return f->problems;
}

/* ---- one buffer ------------------------------------------------------------ */

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

/* Bytes a walk in file order reads at once when reading by copying: the
 * buffers that follow come from them, a system call fewer each. */
#define WINDOW (1u << 20)
/* Bytes of a buffer read with its header at most: past them only the bytes
 * up to the end of its events are read (a large buffer may hold few). */
#define FIRST_READ (64u * 1024u)

/* Reads, by copying, want bytes of the buffer at off (fewer where the file
 * ends) and points l->raw and l->have at them: into l->zin, or for a walk
 * in file order (and a stream that says l->span) from the window of bytes
 * read at once, read anew from off when it does not hold them. */
static void read_raw(struct etl_file *f, uint64_t off, size_t want, struct etl_loaded *l)
{
    if (f->mem) { /* mapped (for a walk in file order) or a memory block: in place */
        l->raw = f->mem + off;
        l->have = off < f->file_size ? (size_t)(f->file_size - off) : 0;
        if (l->have > want)
            l->have = want;
        return;
    }
    if (l->windowed || l->span) {
        if (!span_holds(l->win_off, l->win_len, off, want)) {
            size_t w = l->windowed ? WINDOW : l->span;
            if (w < want)
                w = want;
            if (w > f->file_size - off)
                w = (size_t)(f->file_size - off);
            l->win_len = 0;
            if (!reserve(&l->win, &l->wcap, w)) {
                f->nomem = true;
                return;
            }
            l->win_off = off;
            l->win_len = read_upto(f, l->win, w, off);
        }
        size_t at = (size_t)(off - l->win_off);
        l->raw = l->win + at;
        l->have = l->win_len - at < want ? l->win_len - at : want;
        return;
    }
    if (!reserve(&l->zin, &l->zcap, want)) {
        f->nomem = true;
        return;
    }
    l->raw = l->zin;
    l->have = read_upto(f, l->zin, want, off);
}

size_t etl_first_read(const struct etl_file *f, uint64_t off)
{
    size_t want = f->max_buf < FIRST_READ ? f->max_buf : FIRST_READ;
    if (want > f->file_size - off)
        want = (size_t)(f->file_size - off);
    if (want < ETL_BUF_HEADER_SIZE)
        want = ETL_BUF_HEADER_SIZE;
    return want;
}

/* Reads the header of the buffer an index entry names into l->b; false
 * after reporting a problem. A file read by copying has the buffer read
 * with it (read_raw): its first FIRST_READ bytes at most, where the file
 * has them. */
static bool entry_header(struct etl_file *f, const struct etl_bufent *e, struct etl_loaded *l)
{
    struct etl_buffer *b = &l->b;
    uint64_t off = ETL_ENT_OFFSET(e);
    l->have = 0;
    if (f->mem) { /* the index holds no buffer whose header runs past the file */
        etl_entry_header(f, e, f->mem + off, b);
    } else {
        read_raw(f, off, etl_first_read(f, off), l);
        if (f->nomem)
            return false;
        if (l->have < ETL_BUF_HEADER_SIZE) {
            copy_failed(f, off, "buffer header");
            return false;
        }
        etl_entry_header(f, e, l->raw, b);
    }
    if (b->size > f->file_size - off) {
        b->size = (uint32_t)(f->file_size - off);
        b->truncated = 1;
    }
    return true;
}

void etl_check_shrunk(struct etl_file *f)
{
    uint64_t at;
    if (f->shrink_reported || !etl_map_shrunk(f, &at))
        return;
    struct stat sb;
    long long now = fstat(f->fd, &sb) == 0 ? (long long)sb.st_size : -1;
    /* The page that faulted first lies at or past the new end, which is
     * where the zeros begin. */
    if (now >= 0 && (uint64_t)now < at)
        at = (uint64_t)now;
    report_shrunk(f, at, now, "what lies past this offset was read as zeros");
}

/* Reads the n bytes at the buffer's offset: in place when the file is
 * mapped or a memory block, else those read with the header (entry_header)
 * and, past them, the rest into l->zin. NULL after reporting a problem or
 * running out of memory. */
static const uint8_t *buffer_bytes(struct etl_file *f, const struct etl_buffer *b, size_t n,
                                   struct etl_loaded *l)
{
    if (f->mem)
        return f->mem + b->offset; /* within the file: the index checked it */
    if (l->have >= n)
        return l->raw;
    bool in_zin = l->raw == l->zin;
    if (!reserve(&l->zin, &l->zcap, n)) { /* realloc: what zin holds stays */
        f->nomem = true;
        return NULL;
    }
    if (!in_zin) /* in the window: the part read moves to zin */
        memcpy(l->zin, l->raw, l->have);
    l->raw = l->zin;
    if (!read_at(f, l->zin + l->have, n - l->have, b->offset + l->have)) {
        copy_failed(f, b->offset + l->have, "buffer");
        return NULL;
    }
    l->have = n;
    return l->zin;
}

/* Reads and decompresses compressed buffer l->b (of index entry e) into l;
 * false after reporting a problem. */
static bool inflate_buffer(struct etl_file *f, const struct etl_bufent *e,
                           struct etl_loaded *l)
{
    const struct etl_buffer *b = &l->b;
    /* SavedOffset is the decompressed size, header included (§10). */
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
    if (!reserve(&l->mem, &l->cap, out)) {
        f->nomem = true;
        return false;
    }
    const uint8_t *z = buffer_bytes(f, b, b->size, l);
    if (!z)
        return false;
    size_t used = 0, made = 0;
    enum etl_lz77_status st;
    size_t idx = (size_t)(e - f->ents); /* e is an entry of f's index */
    if (!f->ahead || idx >= f->nents ||
        !etl_ahead_take(f->ahead, idx, z + ETL_BUF_HEADER_SIZE, b->size - ETL_BUF_HEADER_SIZE,
                        out - ETL_BUF_HEADER_SIZE, &l->mem, &l->cap, &st, &used, &made))
        st = etl_lz77_decompress_made(z + ETL_BUF_HEADER_SIZE, b->size - ETL_BUF_HEADER_SIZE,
                                      l->mem + ETL_BUF_HEADER_SIZE, out - ETL_BUF_HEADER_SIZE,
                                      &used, &made);
    memcpy(l->mem, z, ETL_BUF_HEADER_SIZE);
    if (st != ETL_LZ77_OK && made == 0) {
        etl_report(f, b->offset + ETL_BUF_HEADER_SIZE + used,
                   "compressed buffer does not decompress (%s): buffer skipped",
                   etl_lz77_strerror(st));
        return false;
    }
    if (st != ETL_LZ77_OK) {
        /* What came out before decoding stopped is the buffer's start: its
         * records are read, up to one cut there (said as it is met).
         * Before, the whole buffer was skipped for a damaged byte. */
        etl_report(f, b->offset + ETL_BUF_HEADER_SIZE + used,
                   "compressed buffer does not decompress (%s): the %zu bytes it gives "
                   "before that are read", etl_lz77_strerror(st), made);
        out = ETL_BUF_HEADER_SIZE + made;
    }
    l->bytes = l->mem;
    l->end = out;
    count_progress(f, b->size);
    return true;
}

/* Pages of a mapped file go back (map.c) each time about this many bytes
 * were touched through it. A buffer counts for at least FAULT_WINDOW: the
 * kernel maps the pages around one that is touched (up to 64 KiB on Linux).
 * 4 MiB: --stats of a 1 GB trace peaks at 12 MiB (24 with 16 MiB) in the
 * same time, the handing back costing about a system call per 64 buffers. */
#define RELEASE_STEP (4u * 1024u * 1024u)
#define FAULT_WINDOW (64u * 1024u)

/* Counts the bytes of a buffer about to be read through the mapping, and
 * hands back every page of it at each RELEASE_STEP: those of buffers still
 * being read are mapped again when next touched. */
static void count_mapped(struct etl_file *f, uint32_t size)
{
    if (!f->map_len)
        return;
    f->touched += size > FAULT_WINDOW ? size : FAULT_WINDOW;
    if (f->touched >= RELEASE_STEP) {
        f->touched = 0;
        etl_map_release(f, 0, f->file_size);
    }
}

bool etl_load_buffer(struct etl_file *f, const struct etl_bufent *e, struct etl_loaded *l)
{
    struct etl_buffer *b = &l->b;
    etl_check_shrunk(f);
    l->end = ETL_BUF_HEADER_SIZE;
    if (!entry_header(f, e, l))
        return false;
    count_mapped(f, b->size);
    if (b->flags & ETL_BUF_FLAG_COMPRESSED)
        return inflate_buffer(f, e, l);
    /* Events end at the larger of SavedOffset and Offset, bounded by the
     * buffer (§2.1); the walk also stops at the 0xFF filler. Only the bytes
     * up to there are read. */
    size_t end = b->saved_offset > b->offset_field ? b->saved_offset : b->offset_field;
    if (end > b->size) {
        if (!b->truncated)
            etl_report(f, b->offset + BH_SAVED_OFFSET,
                       "buffer says its data ends at 0x%zx, past its size 0x%x",
                       end, (unsigned)b->size);
        end = b->size;
    }
    if (end < ETL_BUF_HEADER_SIZE)
        end = ETL_BUF_HEADER_SIZE;
    l->bytes = buffer_bytes(f, b, end, l);
    if (!l->bytes)
        return false;
    l->end = end;
    count_progress(f, b->size);
    return true;
}

void etl_loaded_free(struct etl_loaded *l)
{
    free(l->mem);
    free(l->zin);
    free(l->win);
    memset(l, 0, sizeof *l);
}

uint64_t etl_event_problem(const struct etl_event *ev, size_t at, const char *what,
                           char *msg, size_t cap)
{
    size_t off = (size_t)ev->event_offset + (ev->size - ev->data_len) + at;
    if (ev->compressed) {
        snprintf(msg, cap, "byte 0x%zx of decompressed buffer: %s", off, what);
        return ev->buffer_offset;
    }
    snprintf(msg, cap, "%s", what);
    return ev->buffer_offset + off;
}

void etl_report_event(struct etl_file *f, const struct etl_event *ev, size_t at,
                      const char *msg)
{
    char text[256];
    uint64_t off = etl_event_problem(ev, at, msg, text, sizeof text);
    etl_report(f, off, "%s", text);
}

/* Records a resync may parse (resync) before it gives up, for each 8
 * bytes past the damaged record, and at least: a crafted buffer could have
 * each place lead far before failing; so bounded, a resync costs at most
 * a few parses of the buffer (and there is one a buffer at most: records
 * from where it goes on reach the end soundly). */
#define RESYNC_STEPS_PER_8 4u
#define RESYNC_STEPS_MIN 1024u

/* Where the records of a buffer (its bytes up to end) go on after a
 * damaged one at offset bad: the first place past it, as records are
 * aligned, from which records follow one another soundly to the end of
 * the buffer's events, their times not going back from the latest of the
 * records before bad nor from one to the next; 0 when there is none (or
 * the search took too long). */
static size_t resync(const uint8_t *buf, size_t end, size_t bad)
{
    size_t steps = 0, most = RESYNC_STEPS_MIN;
    if (end > bad)
        most += (end - bad) / 8 * RESYNC_STEPS_PER_8;
    /* The latest time of the records before it, read again here (damage
     * is rare; the walks keep no time for it). */
    bool has_from = false;
    int64_t from = 0;
    for (size_t at = ETL_BUF_HEADER_SIZE, next; at < bad; at = next) {
        struct etl_event ev;
        const char *why = NULL;
        if (etl_parse_event(buf, end, at, &ev, &next, &why) != ETL_PARSE_OK || next <= at)
            break;
        if (ev.flags & ETL_EV_TS) {
            from = has_from && from > ev.ts ? from : ev.ts;
            has_from = true;
        }
    }
    for (size_t p = bad + 8; p < end && end - p >= 4; p += 8) {
        size_t at = p, next;
        bool timed = has_from, any = false;
        int64_t last = from;
        for (;;) {
            struct etl_event ev;
            const char *why = NULL;
            if (++steps > most)
                return 0;
            enum etl_parse_status st = etl_parse_event(buf, end, at, &ev, &next, &why);
            if (st == ETL_PARSE_END && any)
                return p;
            if (st != ETL_PARSE_OK)
                break;
            if (ev.flags & ETL_EV_TS) {
                if (timed && ev.ts < last)
                    break;
                timed = true;
                last = ev.ts;
            }
            any = true;
            at = next;
        }
    }
    return 0;
}

size_t etl_bad_record(struct etl_file *f, const struct etl_buffer *b, const uint8_t *buf,
                      size_t end, size_t off, const char *why)
{
    size_t resume = resync(buf, end, off);
    char rest[96];
    if (!resume)
        snprintf(rest, sizeof rest, "rest of buffer skipped");
    else if (b->flags & ETL_BUF_FLAG_COMPRESSED)
        snprintf(rest, sizeof rest, "%zu bytes skipped to the next record, at 0x%zx", resume - off,
                 resume);
    else
        snprintf(rest, sizeof rest, "%zu bytes skipped to the next record, at offset 0x%llx",
                 resume - off, (unsigned long long)(b->offset + resume));
    if (b->flags & ETL_BUF_FLAG_COMPRESSED)
        etl_report(f, b->offset, "record at 0x%zx of decompressed buffer: %s: %s", off, why, rest);
    else
        etl_report(f, b->offset + off, "%s: %s", why, rest);
    return resume;
}

/* ---- walks in file order ------------------------------------------------------ */

/* What a walk calls: fn for each event, or runs (when not NULL) for runs of
 * PERFINFO64 events whole and sound added up by their class in cls. */
struct walker {
    etl_event_fn fn;
    etl_runs_fn runs;
    const uint32_t *cls;
    void *ctx;
};

/* Runs handed over at a time. */
#define WALK_RUNS 64

/* Calls w's functions for every event of the buffer of entry e; false when
 * one asked to stop. */
static bool walk_buffer(struct etl_file *f, const struct etl_bufent *e,
                        struct etl_loaded *l, const struct walker *w)
{
    if (ETL_ENT_UNREAD(e))
        return true;
    if (!etl_load_buffer(f, e, l))
        return !f->nomem;
    size_t off = ETL_BUF_HEADER_SIZE;
    struct etl_event ev;
    for (;;) {
        size_t next;
        if (w->runs) {
            /* Whatever ended the runs (possibly that there were WALK_RUNS
             * of them) comes whole, below. */
            struct etl_hook_run r[WALK_RUNS];
            bool in_place = f->mem && !(l->b.flags & ETL_BUF_FLAG_COMPRESSED);
            size_t n = etl_parse_runs(l->bytes, l->end, off, w->cls, r, WALK_RUNS, &next,
                                      in_place);
            if (n && !w->runs(w->ctx, l->b.cpu, r, n))
                return false;
            off = next;
        }
        const char *why = NULL;
        enum etl_parse_status st = etl_parse_event(l->bytes, l->end, off, &ev, &next, &why);
        if (st != ETL_PARSE_OK) /* first whether the zeros of a file that shrank ended it */
            etl_check_shrunk(f);
        if (st == ETL_PARSE_END)
            break;
        if (st == ETL_PARSE_BAD) {
            size_t resume = etl_bad_record(f, &l->b, l->bytes, l->end, off, why);
            if (!resume)
                break;
            off = resume;
            continue;
        }
        etl_event_in_buffer(&ev, &l->b);
        if (!w->fn(w->ctx, &ev))
            return false;
        off = next;
    }
    return true;
}

/* Whether b is the header of a usual buffer of a file of fixed-size
 * buffers: of the logfile header's size, not compressed, of a CPU below
 * ETL_MAX_CPUS. */
static bool usual_header(const struct etl_file *f, const struct etl_buffer *b)
{
    return b->size == f->hdr.buffer_size && !(b->flags & ETL_BUF_FLAG_COMPRESSED) &&
           b->cpu < ETL_MAX_CPUS;
}

/* Whether the file ends at off or a usual buffer's header (usual_header)
 * lies there: from the walk's window or the mapping when they hold it,
 * else read. */
static bool usual_at(const struct etl_file *f, uint64_t off, const struct etl_loaded *l)
{
    if (off == f->file_size)
        return true;
    if (off > f->file_size || f->file_size - off < ETL_BUF_HEADER_SIZE)
        return false;
    uint8_t h[ETL_BUF_HEADER_SIZE];
    const uint8_t *p = h;
    if (f->mem)
        p = f->mem + off;
    else if (l->windowed && span_holds(l->win_off, l->win_len, off, sizeof h))
        p = l->win + (off - l->win_off);
    else if (!read_at(f, h, sizeof h, off))
        return false;
    struct etl_buffer b;
    etl_decode_buffer_header(p, off, &b);
    return usual_header(f, &b);
}

/* Walks the file in order while indexing it, from its first buffer: each
 * buffer's header comes from the walk's window (read_raw), not from a read
 * of its own. The usual buffer (of the logfile header's size, not
 * compressed, of a CPU below ETL_MAX_CPUS) is indexed and walked at once
 * when the file ends after it or a usual one follows; else the walk stops,
 * for the rest of the index to be built as etl_open builds it, with its
 * problems said (which may cut that buffer short: index_realign). *walked
 * counts the entries walked. Returns false when one of w's functions asked to stop. */
static bool walk_indexing(struct etl_file *f, struct etl_loaded *l, size_t *walked,
                          const struct walker *w)
{
    uint32_t stride = f->hdr.buffer_size;
    if (!fixed_stride(f))
        return true;
    while (!f->indexed && !f->nomem) {
        uint64_t off = f->index_at;
        if (off == f->file_size) {
            index_done(f);
            break;
        }
        if (f->file_size - off < stride || f->nents >= ETL_MAX_BUFFERS)
            break;
        /* What entry_header will read, so that it finds it in the window. */
        read_raw(f, off, stride < FIRST_READ ? stride : FIRST_READ, l);
        if (f->nomem || l->have < ETL_BUF_HEADER_SIZE)
            break;
        struct etl_buffer b;
        etl_decode_buffer_header(l->raw, off, &b);
        if (!usual_header(f, &b) || !usual_at(f, off + stride, l))
            break;
        if (!add_buffer(f, &b)) {
            f->nomem = true;
            break;
        }
        f->index_at += stride;
        f->walked = f->nents;
        ++*walked;
        if (!walk_buffer(f, &f->ents[f->nents - 1], l, w))
            return false;
    }
    return true;
}

/* Files read by copying at least this long are walked in file order
 * through a mapping when etl_map_faster finds that faster, asked once per
 * file; the mapping lasts the walk. */
#define WALK_MAP_MIN (64u << 20)
#define WALK_MAPPED 1
#define WALK_COPIED 2

/* Maps f, read by copying, for a walk in file order when that is the faster
 * way; true when it did. */
static bool walk_map(struct etl_file *f)
{
    if (f->mem || f->fd < 0)
        return false;
    if (etl_read_way == ETL_READ_WALK_MAP)
        return etl_map_open(f);
    if (etl_read_way != ETL_READ_CHOOSE || f->file_size < WALK_MAP_MIN ||
        f->walk_way == WALK_COPIED || !etl_map_open(f))
        return false;
    if (!f->walk_way)
        f->walk_way = etl_map_faster(f) ? WALK_MAPPED : WALK_COPIED;
    if (f->walk_way == WALK_MAPPED)
        return true;
    etl_map_close(f);
    return false;
}

/* Ends a walk: the shrinking of a mapped file said, the mapping of walk_map
 * let go unless the index now says the file is to be read mapped (it has
 * compressed buffers), the loaded buffer freed. */
static void walk_end(struct etl_file *f, bool mapped, struct etl_loaded *l)
{
    etl_check_shrunk(f);
    etl_loaded_free(l);
    if (mapped && !(f->indexed && map_is_better(f)))
        etl_map_close(f);
}

/* etl_walk_file with w's functions. */
static void walk_file(struct etl_file *f, const struct walker *w)
{
    struct etl_loaded l;
    memset(&l, 0, sizeof l);
    l.windowed = true; /* the index is in file order */
    bool mapped = walk_map(f);
    size_t i = 0;
    bool go = true;
    if (!f->indexed && !f->scope && f->index_at == 0)
        go = walk_indexing(f, &l, &i, w);
    /* The rest of the index (all of it for a walk inside a scope): from the
     * buffer the walk stopped at, for the totals when fn stopped it. */
    if (!f->indexed && (f->nomem || !etl_file_index(f))) {
        walk_end(f, mapped, &l);
        return;
    }
    /* Other threads decompress the buffers ahead (not inside another walk,
     * nor after buffers walked while indexing: they start from the first). */
    bool ahead = false;
    if (go && !f->ahead && i == 0) {
        if (!etl_ahead_start(f, f->threads, &f->ahead)) {
            f->nomem = true;
            walk_end(f, mapped, &l);
            return;
        }
        ahead = f->ahead != NULL;
    }
    for (; go && i < f->nents; i++)
        go = walk_buffer(f, &f->ents[i], &l, w);
    if (ahead) {
        if (!etl_ahead_stop(f->ahead))
            f->nomem = true;
        f->ahead = NULL;
    }
    walk_end(f, mapped, &l);
}

void etl_walk_file(struct etl_file *f, etl_event_fn fn, void *ctx)
{
    const struct walker w = { fn, NULL, NULL, ctx };
    walk_file(f, &w);
}

void etl_walk_file_runs(struct etl_file *f, etl_event_fn fn, etl_runs_fn runs,
                        const uint32_t *cls, void *ctx)
{
    const struct walker w = { fn, runs, cls, ctx };
    walk_file(f, &w);
}

bool etl_runs_skip(void *ctx, unsigned cpu, const struct etl_hook_run *r, size_t n)
{
    (void)ctx;
    (void)cpu;
    (void)r;
    (void)n;
    return true;
}

void etl_walk_first_buffers(struct etl_file *f, etl_event_fn fn, void *ctx)
{
    const struct walker w = { fn, NULL, NULL, ctx };
    if (!etl_file_index(f))
        return;
    size_t *first = calloc(ETL_MAX_CPUS, sizeof *first); /* index + 1 */
    if (!first) {
        f->nomem = true;
        return;
    }
    struct etl_loaded l;
    memset(&l, 0, sizeof l);
    bool go = true;
    for (size_t i = 0; i < f->nents && go; i++) {
        const struct etl_bufent *e = &f->ents[i];
        if (ETL_ENT_HEADER(e)) {
            go = walk_buffer(f, e, &l, &w);
            continue;
        }
        size_t k = first[ETL_ENT_CPU(e)];
        if (k == 0 || e->seq < f->ents[k - 1].seq)
            first[ETL_ENT_CPU(e)] = i + 1;
    }
    for (size_t c = 0; c < ETL_MAX_CPUS && go; c++)
        if (first[c])
            go = walk_buffer(f, &f->ents[first[c] - 1], &l, &w);
    etl_check_shrunk(f);
    etl_loaded_free(&l);
    free(first);
}

/* ---- the clock --------------------------------------------------------------- */

void etl_clock_from_header(struct etl_clock *c, const struct etl_logfile *h)
{
    /* Clock types (ReservedFlags, §5): 1 QPC at PerfFreq; 2 system time and
     * 0 raw (system time before Vista): 100 ns; 3 CPU cycles at
     * CpuSpeedInMHz; any other value: 100 ns. A frequency of 0 or less is
     * taken as 10 MHz (etl_clock_init), with a warning at etl_close. */
    int64_t freq;
    switch (h->clock_type) {
    case 1:
        freq = h->perf_freq;
        break;
    case 3:
        freq = (int64_t)h->cpu_mhz * 1000000;
        break;
    default:
        freq = 10000000;
        break;
    }
    etl_clock_init(c, h->t0, freq, h->start_time);
}
