/*
 * mkedge.c - writes the crafted ETL files of tests/edge.sh: edge cases that
 * no public trace has, each with what a correct reader must show of it.
 * Written from doc/format.md alone (§2 buffer headers, §3 trace headers, §4
 * the logfile header, §5 clocks, §7 CSwitch, §10 Plain LZ77, §11 order,
 * §14 Process and §15 Thread events); it shares no code with src/.
 *
 *   mkedge CASE OUT EXPECT [ARG]
 *
 * CASE is one of the names in the table at the end of this file. OUT is the
 * trace; EXPECT receives one line per fact, each starting with a tag:
 *
 *   sw CPU,TIMESTAMP,OLD_TID,NEW_TID   a switch, per CPU in the order the
 *                                      CPU's stream defines (§11, §12)
 *   swset CPU,TIMESTAMP,OLD_TID,NEW_TID  a switch whose place in its CPU's
 *                                      order is not defined (only its
 *                                      presence is)
 *   msg OFFSET                         a problem at this file offset (hex)
 *   time TIMESTAMP,REL,ABS             a raw time, seconds since the trace
 *                                      started (9 decimals) and UTC
 *   ev HOOK,CPU,TIMESTAMP,BUFFER_OFFSET,EVENT_OFFSET,SIZE  an event record
 *   who TIMESTAMP,TID,PID,IMAGE        the thread a switch names (switched in
 *                                      or out) and its process then
 *   pn TIMESTAMP,TID,INDEX,PID,IMAGE   the same for the thread of the
 *                                      INDEX-th process of a big rundown
 *   at INDEX,BUFFER_OFFSET,BYTE        where the INDEX-th process's record is
 *                                      (BYTE: in the decompressed buffer)
 *   thr PID,TID,IMAGE,NAME,CPU_TIME    a thread lifetime and its CPU time (s)
 *   proc PID,IMAGE,CPU_TIME            a process and its CPU time (s)
 *   mig PID,TID,SWITCH_INS,MIGRATIONS  a thread's switch-ins and migrations
 *   name KIND,TEXT                     a string as it must be shown (UTF-8)
 *   note TEXT                          anything the test prints
 *
 * Exit status 0, 1 on an error, 77 when the file system cannot hold the file
 * (too large or no sparse files).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- format constants (format.md §2-§4, §7, §9.5, §14, §15) ------------- */
#define BUF_HDR 0x48u
#define BF_FLUSH_MARKER 0x0001u
#define BF_PROC_INDEX 0x0020u
#define BF_COMPRESSED 0x0040u
#define BT_DATA 0u
#define BT_HEADER 4u
#define MODE_SEQUENTIAL 0x00000001u
#define MODE_CIRCULAR 0x00000002u
#define MODE_COMPRESSED 0x04000000u
#define HOOK_HEADER 0x0000u
#define HOOK_HEADER_EXT 0x0005u
#define HOOK_CSWITCH 0x0524u
#define HOOK_SAMPLE 0x0F2Eu
#define HOOK_PROCESS_DCSTART 0x0303u
#define HOOK_THREAD_START 0x0501u
#define HOOK_THREAD_END 0x0502u
#define HOOK_THREAD_DCSTART 0x0503u
#define HOOK_THREAD_SETNAME 0x0548u
#define FT_PER_SEC 10000000
#define NS_PER_SEC 1000000000u

static const char *prog = "mkedge";

static void die(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
    exit(errno == EFBIG || errno == ENOSPC ? 77 : 1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", prog);
        exit(1);
    }
    return p;
}

/* ---- little-endian stores ------------------------------------------------- */
static void st16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void st32(uint8_t *p, uint32_t v) { st16(p, v & 0xFFFFu); st16(p + 2, v >> 16); }
static void st64(uint8_t *p, uint64_t v) { st32(p, (uint32_t)v); st32(p + 4, (uint32_t)(v >> 32)); }
static uint32_t al8(uint32_t v) { return (v + 7u) & ~7u; }

/* A payload under construction. */
struct pl {
    uint8_t b[4096];
    uint32_t n;
};

static void pb(struct pl *p, const void *s, uint32_t n)
{
    if (n > sizeof p->b - p->n) {
        fprintf(stderr, "%s: payload too long\n", prog);
        exit(1);
    }
    memcpy(p->b + p->n, s, n);
    p->n += n;
}
static void p8(struct pl *p, unsigned v) { uint8_t b = (uint8_t)v; pb(p, &b, 1); }
static void p16(struct pl *p, unsigned v) { uint8_t b[2]; st16(b, v); pb(p, b, 2); }
static void p32(struct pl *p, uint32_t v) { uint8_t b[4]; st32(b, v); pb(p, b, 4); }
static void p64(struct pl *p, uint64_t v) { uint8_t b[8]; st64(b, v); pb(p, b, 8); }
/* ASCII as UTF-16LE, with its zero unit. */
static void pu16z(struct pl *p, const char *s)
{
    for (; *s; s++)
        p16(p, (unsigned char)*s);
    p16(p, 0);
}

/* ---- exact arithmetic ---------------------------------------------------------- */

/* floor(a * b / d) for a < d (both below 2^63), by doubling: the partial
 * product stays a quotient q and a remainder r < d. */
static uint64_t frac_muldiv(uint64_t a, uint64_t b, uint64_t d)
{
    uint64_t q = 0, r = 0;
    for (int bit = 63; bit >= 0; bit--) {
        q <<= 1;        /* (q, r) *= 2; r < d <= 2^63 so 2r fits */
        r <<= 1;
        if (r >= d) {
            r -= d;
            q++;
        }
        if ((b >> bit) & 1u) {
            r += a;     /* r, a < d: fits */
            if (r >= d) {
                r -= d;
                q++;
            }
        }
    }
    return q;
}

/* floor(delta * unit / freq) for delta >= 0: whole seconds and a fraction. */
static uint64_t scale(uint64_t delta, uint64_t unit, uint64_t freq)
{
    return delta / freq * unit + frac_muldiv(delta % freq, unit, freq);
}

/* FILETIME as ISO 8601 UTC with 100 ns digits (days to a civil date by the
 * usual era arithmetic on the proleptic Gregorian calendar). */
static void iso(int64_t ft, char *out, size_t cap)
{
    int64_t secs = ft / FT_PER_SEC, frac = ft % FT_PER_SEC;
    int64_t days = secs / 86400, sod = secs % 86400;
    int64_t z = days - 134774 + 719468; /* 1601-01-01 is 134774 days before 1970 */
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2);
    snprintf(out, cap, "%04" PRId64 "-%02" PRId64 "-%02" PRId64 "T%02" PRId64 ":%02" PRId64
             ":%02" PRId64 ".%07" PRId64 "Z", y, m, d, sod / 3600, sod / 60 % 60, sod % 60, frac);
}

/* ---- Plain LZ77 compression (format.md §10) ------------------------------------- */

struct lz {
    uint8_t *out;
    size_t n, cap;
    size_t flag_at;     /* the flag word being filled */
    uint32_t flags;
    unsigned nflags;
    size_t half_at;     /* a byte whose high nibble is free, or SIZE_MAX */
};

static void lz_byte(struct lz *z, unsigned v)
{
    if (z->n == z->cap) {
        fprintf(stderr, "%s: compressed data too long\n", prog);
        exit(1);
    }
    z->out[z->n++] = (uint8_t)v;
}

static void lz_flag(struct lz *z, unsigned bit)
{
    z->flags = (z->flags << 1) | bit;
    if (++z->nflags == 32) {
        st32(z->out + z->flag_at, z->flags);
        z->flag_at = z->n;
        for (int i = 0; i < 4; i++)
            lz_byte(z, 0);
        z->flags = 0;
        z->nflags = 0;
    }
}

/* A match of len >= 3 bytes at distance dist (1..8192). */
static void lz_match(struct lz *z, size_t dist, size_t len)
{
    size_t code = len - 3 < 7 ? len - 3 : 7;
    unsigned w = (unsigned)((dist - 1) << 3 | code);
    lz_byte(z, w & 0xFF);
    lz_byte(z, w >> 8);
    if (code == 7) {
        size_t n = len - 10; /* the half byte: 0-14, or 15 and more */
        unsigned nib = n < 15 ? (unsigned)n : 15u;
        if (z->half_at == SIZE_MAX) {
            z->half_at = z->n;
            lz_byte(z, nib);
        } else {
            z->out[z->half_at] = (uint8_t)(z->out[z->half_at] | nib << 4);
            z->half_at = SIZE_MAX;
        }
        if (nib == 15) {
            size_t b = len - 25;
            if (b < 255) {
                lz_byte(z, (unsigned)b);
            } else {
                lz_byte(z, 255);
                size_t v = len - 3;
                lz_byte(z, v & 0xFF);
                lz_byte(z, (v >> 8) & 0xFF);
            }
        }
    }
    lz_flag(z, 1);
}

/* Compresses in[0..n) (n < 65536) into out; returns the compressed size.
 * Greedy: tries the distance of the last match first (records repeat at a
 * fixed stride), then the last position of the same three bytes. */
static size_t lz_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    static uint32_t last[1 << 16]; /* position + 1 of a 3-byte hash */
    memset(last, 0, sizeof last);
    struct lz z = { out, 0, cap, 0, 0, 0, SIZE_MAX };
    for (int i = 0; i < 4; i++)
        lz_byte(&z, 0);
    size_t rep = 0;
    for (size_t i = 0; i < n;) {
        size_t best = 0, bdist = 0;
        uint32_t h = 0;
        if (n - i >= 3) {
            h = ((uint32_t)in[i] * 2654435761u ^ (uint32_t)in[i + 1] * 40503u ^ in[i + 2]) & 0xFFFFu;
            size_t cand[2] = { rep, last[h] ? i - (last[h] - 1) : 0 };
            for (int k = 0; k < 2; k++) {
                size_t d = cand[k];
                if (d == 0 || d > i || d > 8192)
                    continue;
                size_t l = 0;
                while (i + l < n && l < 65000 && in[i + l] == in[i + l - d])
                    l++;
                if (l > best) {
                    best = l;
                    bdist = d;
                }
            }
            last[h] = (uint32_t)(i + 1);
        }
        if (best >= 3) {
            lz_match(&z, bdist, best);
            rep = bdist;
            for (size_t k = 1; k < best && i + k + 2 < n; k++) {
                const uint8_t *q = in + i + k;
                uint32_t hk = ((uint32_t)q[0] * 2654435761u ^ (uint32_t)q[1] * 40503u ^ q[2]) & 0xFFFFu;
                last[hk] = (uint32_t)(i + k + 1);
            }
            i += best;
        } else {
            lz_byte(&z, in[i++]);
            lz_flag(&z, 0);
        }
    }
    /* The last flag word: unused bits set. */
    uint32_t fl = z.nflags ? (z.flags << (32 - z.nflags)) | ((1u << (32 - z.nflags)) - 1u)
                           : 0xFFFFFFFFu;
    st32(z.out + z.flag_at, fl);
    return z.n;
}

/* ---- the writer -------------------------------------------------------------------- */

/* Expected switch rows, sorted at the end into each CPU's stream order. */
struct xsw {
    uint64_t seq, idx;
    int64_t ts;
    uint32_t old_tid, new_tid;
    uint16_t cpu;
    bool ordered;
};

struct w {
    int fd;
    FILE *exp;
    const char *path;
    /* logfile header (format.md §4.2) */
    uint32_t buffer_size, cpus, mode, clock, mhz, build;
    int64_t freq, start, t0;
    uint64_t header_seq;
    const uint8_t *logger_name;   /* raw UTF-16 bytes of the names, or NULL */
    uint32_t logger_name_len;
    const uint8_t *time_zone;     /* TIME_ZONE_INFORMATION (0xAC bytes), or NULL */
    uint64_t names_at;            /* file offset of the names */
    bool compress, sparse;
    /* the buffer being filled */
    uint8_t *b;
    uint32_t cap, fill;
    uint16_t cpu;
    uint64_t seq;
    bool ordered;                 /* its switches have a defined place */
    uint64_t off;                 /* where the next buffer goes */
    uint64_t next_seq;
    uint64_t nbuf;
    /* expectations */
    struct xsw *x;
    size_t nx, xcap;
    uint64_t idx;
    uint8_t *z;
};

static void wr(struct w *w, const void *p, size_t n, uint64_t off)
{
    const uint8_t *s = p;
    while (n > 0) {
        ssize_t k = pwrite(w->fd, s, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            die(w->path);
        s += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
}

/* Begins a buffer of CPU cpu with the given SequenceNumber. */
static void buf_begin(struct w *w, unsigned cpu, uint64_t seq)
{
    w->fill = BUF_HDR;
    w->cpu = (uint16_t)cpu;
    w->seq = seq;
    w->ordered = true;
    memset(w->b, 0xFF, w->cap);
}

/* Begins the CPU's next buffer with the next SequenceNumber. */
static void buf_next(struct w *w, unsigned cpu)
{
    buf_begin(w, cpu, w->next_seq++);
}

/* Room for a record of n bytes in the buffer? */
static bool buf_room(const struct w *w, uint32_t n)
{
    return al8(w->fill) + n <= w->cap;
}

/* Appends a record (8-aligned); returns its offset in the buffer. */
static uint32_t rec(struct w *w, const uint8_t *r, uint32_t n)
{
    uint32_t at = al8(w->fill);
    if (at + n > w->cap) {
        fprintf(stderr, "%s: record does not fit its buffer\n", prog);
        exit(1);
    }
    memset(w->b + w->fill, 0xFF, at - w->fill);
    memcpy(w->b + at, r, n);
    w->fill = at + n;
    return at;
}

/* Writes the buffer: BufferSize size (0: the writer's buffer size),
 * SavedOffset and Offset (0: where the records end), type and extra
 * flags. Sparse writers write the header and the records only. Returns its
 * file offset. */
static uint64_t buf_end_ex(struct w *w, uint32_t size, uint32_t saved, uint32_t offset,
                           unsigned type, unsigned flags)
{
    uint8_t *h = w->b;
    uint32_t used = w->fill;
    if (!saved)
        saved = used;
    if (!offset)
        offset = saved;
    if (!size)
        size = w->compress ? 0 : w->buffer_size;
    flags |= BF_PROC_INDEX;
    const uint8_t *data = w->b;
    size_t dlen;
    if (w->compress && type != BT_HEADER) {
        size_t zl = lz_compress(w->b + BUF_HDR, used - BUF_HDR, w->z + BUF_HDR, w->cap * 2);
        size = (uint32_t)(BUF_HDR + zl);
        flags |= BF_COMPRESSED;
        data = w->z;
        dlen = size;
    } else {
        if (!size)
            size = (used + 0x1FFu) & ~0x1FFu; /* a compressed file's header buffer */
        dlen = w->sparse ? used : size;
    }
    memset(h, 0, BUF_HDR);
    st32(h + 0x00, size);
    st32(h + 0x04, saved);
    st32(h + 0x08, size);                   /* CurrentOffset: not used */
    st64(h + 0x18, w->seq);
    st16(h + 0x28, w->cpu);
    st16(h + 0x2A, 20);                     /* LoggerId */
    st32(h + 0x2C, 3);                      /* State: Flush */
    st32(h + 0x30, offset);
    st16(h + 0x34, flags);
    st16(h + 0x36, type);
    if (data == w->z)
        memcpy(w->z, h, BUF_HDR);
    uint64_t at = w->off;
    wr(w, data, dlen, at);
    w->off += size;
    w->nbuf++;
    return at;
}

static uint64_t buf_end(struct w *w)
{
    return buf_end_ex(w, 0, 0, 0, BT_DATA, 0);
}

/* A SYSTEM64 record (format.md §3.3). */
static uint32_t ev_system(struct w *w, uint16_t hook, unsigned version, uint32_t tid, uint32_t pid,
                          int64_t ts, const uint8_t *data, uint32_t len)
{
    uint8_t r[4096 + 0x20];
    uint32_t n = 0x20 + len;
    memset(r, 0, 0x20);
    st16(r, version);
    r[2] = 0x02;
    r[3] = 0xC0;
    st16(r + 4, n);
    st16(r + 6, hook);
    st32(r + 8, tid);
    st32(r + 12, pid);
    st64(r + 16, (uint64_t)ts);
    memcpy(r + 0x20, data, len);
    return rec(w, r, n);
}

/* A PERFINFO64 record (format.md §3.4), no extended items. */
static uint32_t ev_perfinfo(struct w *w, uint16_t hook, unsigned version, int64_t ts,
                            const uint8_t *data, uint32_t len)
{
    uint8_t r[4096 + 0x10];
    uint32_t n = 0x10 + len;
    st32(r, 0xC0110000u | (version & 0xFFu));
    st16(r + 4, n);
    st16(r + 6, hook);
    st64(r + 8, (uint64_t)ts);
    memcpy(r + 0x10, data, len);
    return rec(w, r, n);
}

/* Records a switch the reader must show. */
static void expect_sw(struct w *w, int64_t ts, uint32_t old_tid, uint32_t new_tid)
{
    if (w->nx == w->xcap) {
        w->xcap = w->xcap ? w->xcap * 2 : 256;
        struct xsw *n = realloc(w->x, w->xcap * sizeof *n);
        if (!n) {
            fprintf(stderr, "%s: out of memory\n", prog);
            exit(1);
        }
        w->x = n;
    }
    w->x[w->nx++] = (struct xsw){ w->seq, w->idx++, ts, old_tid, new_tid, w->cpu, w->ordered };
}

/* A CSwitch event, version 4 (format.md §7), and its expected row: its old
 * thread waits for reason `reason` (when it is not idle), its processor
 * left C-state `cstate`. */
static uint32_t ev_cswitch_rc(struct w *w, int64_t ts, uint32_t old_tid, uint32_t new_tid,
                              unsigned reason, unsigned cstate)
{
    uint8_t d[0x18];
    memset(d, 0, sizeof d);
    st32(d + 0x00, new_tid);
    st32(d + 0x04, old_tid);
    d[0x08] = 9;                            /* NewThreadPriority */
    d[0x09] = 8;                            /* OldThreadPriority */
    d[0x0A] = (uint8_t)cstate;              /* PreviousCState */
    d[0x0C] = (uint8_t)reason;              /* WaitReason */
    d[0x0D] = 1;                            /* UserMode */
    d[0x0E] = old_tid ? 5 : 2;              /* Waiting, or Running for idle */
    d[0x0F] = (uint8_t)w->cpu;
    st32(d + 0x10, 1);
    expect_sw(w, ts, old_tid, new_tid);
    return ev_perfinfo(w, HOOK_CSWITCH, 4, ts, d, sizeof d);
}

/* A CSwitch event: the old thread waits for UserRequest, C-state 0. */
static uint32_t ev_cswitch(struct w *w, int64_t ts, uint32_t old_tid, uint32_t new_tid)
{
    return ev_cswitch_rc(w, ts, old_tid, new_tid, 6, 0);
}

/* The header buffer (format.md §1.1, §4): the logfile header and the header
 * extension with the group masks of process, thread and context-switch
 * events (§6.2). */
static void header_buffer(struct w *w)
{
    struct pl p;
    p.n = 0;
    p32(&p, w->buffer_size);
    p8(&p, 10); p8(&p, 0); p8(&p, 1); p8(&p, 5);   /* 10.0, layout 1.5 */
    p32(&p, w->build);
    p32(&p, w->cpus);
    p64(&p, (uint64_t)(w->start + 600 * (int64_t)FT_PER_SEC)); /* EndTime */
    p32(&p, 156250);                                /* TimerResolution */
    p32(&p, 0);                                     /* MaximumFileSize */
    p32(&p, w->mode);
    p32(&p, 0);                                     /* BuffersWritten */
    p32(&p, 1);                                     /* StartBuffers */
    p32(&p, 8);                                     /* PointerSize */
    p32(&p, 0);                                     /* EventsLost */
    p32(&p, w->mhz);
    p64(&p, 9);                                     /* timer sources (6.1+) */
    p64(&p, 10);
    for (int i = 0; i < 0xAC + 4; i++)              /* TimeZone and padding */
        p8(&p, w->time_zone && i < 0xAC ? w->time_zone[i] : 0);
    p64(&p, (uint64_t)(w->start - 3600 * (int64_t)FT_PER_SEC)); /* BootTime */
    p64(&p, (uint64_t)w->freq);
    p64(&p, (uint64_t)w->start);
    p32(&p, w->clock);                              /* ReservedFlags: clock type */
    p32(&p, 0);                                     /* BuffersLost */
    if (w->logger_name)
        pb(&p, w->logger_name, w->logger_name_len);
    else {
        pu16z(&p, "NT Kernel Logger");
        pu16z(&p, "C:\\edge.etl");
    }
    buf_begin(w, 0, w->header_seq);
    uint32_t at = ev_system(w, HOOK_HEADER, 2, 4, 8, w->t0, p.b, p.n);
    w->names_at = w->off + at + 0x20 + 0x118;
    uint8_t ext[0x24];
    memset(ext, 0, sizeof ext);
    st32(ext + 0x00, 0x00000003u);                  /* PROCESS | THREAD */
    st32(ext + 0x04, 0x00000004u);                  /* PERF_CONTEXT_SWITCH */
    st32(ext + 0x20, 80);
    ev_system(w, HOOK_HEADER_EXT, 2, 4, 8, w->t0, ext, sizeof ext);
    buf_end_ex(w, w->compress ? 0 : w->buffer_size, 0, 0, BT_HEADER, BF_FLUSH_MARKER);
}

static void w_open(struct w *w, const char *path, const char *exp)
{
    memset(w, 0, sizeof *w);
    w->path = path;
    w->buffer_size = 4096;
    w->cpus = 4;
    w->mode = MODE_SEQUENTIAL;
    w->clock = 1;
    w->mhz = 3000;
    w->build = 19041;
    w->freq = 10000000;
    w->start = 132000000000000000LL;        /* 2019-04-17T18:40:00Z */
    w->t0 = 5000000000LL;                   /* 500 s of QPC since boot */
    w->next_seq = 1;
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (w->fd < 0)
        die(path);
    w->exp = fopen(exp, "w");
    if (!w->exp)
        die(exp);
}

/* Allocates the buffer once the buffer size is set: cap bytes of records,
 * and the whole buffer unless only its records are written (sparse). */
static void w_start(struct w *w, uint32_t cap)
{
    if (!w->sparse && cap < w->buffer_size)
        cap = w->buffer_size;
    w->cap = cap;
    w->b = xmalloc(cap);
    w->z = xmalloc((size_t)cap * 2 + BUF_HDR);
    header_buffer(w);
}

static int cmp_xsw(const void *a, const void *b)
{
    const struct xsw *x = a, *y = b;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void w_close(struct w *w)
{
    if (ftruncate(w->fd, (off_t)w->off) != 0 || close(w->fd) != 0)
        die(w->path);
    if (w->nx > 1)
        qsort(w->x, w->nx, sizeof *w->x, cmp_xsw);
    for (size_t i = 0; i < w->nx; i++) {
        const struct xsw *x = &w->x[i];
        fprintf(w->exp, "%s %u,%" PRId64 ",%" PRIu32 ",%" PRIu32 "\n", x->ordered ? "sw" : "swset",
                (unsigned)x->cpu, x->ts, x->old_tid, x->new_tid);
    }
    if (fclose(w->exp) != 0)
        die("expectations");
    free(w->x);
    free(w->b);
    free(w->z);
}

static void expect_msg(struct w *w, uint64_t off)
{
    fprintf(w->exp, "msg 0x%" PRIx64 "\n", off);
}

/* ---- Process and Thread payloads (format.md §14.4, §15.2, §15.4) -------------- */

/* Process version 4 (x64) with no SID; image is raw bytes (NUL added),
 * cmdline raw UTF-16 bytes with their terminator (NULL: empty). */
static void process_v4(struct pl *p, uint64_t key, uint32_t pid, uint32_t parent,
                       const char *image, const uint8_t *cmdline, uint32_t cmdlen)
{
    p->n = 0;
    p64(p, key);
    p32(p, pid);
    p32(p, parent);
    p32(p, 1);                                      /* SessionId */
    p32(p, 0x103);                                  /* ExitStatus: still running */
    p64(p, 0x1AD000 + (uint64_t)pid * 0x1000);      /* DirectoryTableBase */
    p32(p, 0);                                      /* Flags */
    p32(p, 0);                                      /* UserSID: none */
    pb(p, image, (uint32_t)strlen(image) + 1);
    if (cmdline)
        pb(p, cmdline, cmdlen);
    else
        p16(p, 0);
    p16(p, 0);                                      /* PackageFullName */
    p16(p, 0);                                      /* ApplicationId */
}

/* Thread version 3 (x64): the 72 fixed bytes, then name[0..len) as is. */
static void thread_v3(struct pl *p, uint32_t pid, uint32_t tid, const uint8_t *name, uint32_t len)
{
    p->n = 0;
    p32(p, pid);
    p32(p, tid);
    p64(p, 0xFFFFF30000006000ull);                  /* StackBase */
    p64(p, 0xFFFFF30000000000ull);                  /* StackLimit */
    p64(p, 0x000000E000100000ull);                  /* UserStackBase */
    p64(p, 0x000000E0000F0000ull);                  /* UserStackLimit */
    p64(p, 0xFF);                                   /* Affinity */
    p64(p, 0x00007FF612340000ull);                  /* Win32StartAddr */
    p64(p, 0x000000E000200000ull);                  /* TebBase */
    p32(p, 0);                                      /* SubProcessTag */
    p8(p, 8); p8(p, 5); p8(p, 2); p8(p, 0);         /* priorities, flags */
    pb(p, name, len);
}

static uint32_t ev_process_dcstart(struct w *w, int64_t ts, uint64_t key, uint32_t pid,
                                   uint32_t parent, const char *image)
{
    struct pl p;
    process_v4(&p, key, pid, parent, image, NULL, 0);
    return ev_perfinfo(w, HOOK_PROCESS_DCSTART, 4, ts, p.b, p.n);
}

/* A Thread event (hook 0x0501-0x0504) with an ASCII name. */
static uint32_t ev_thread(struct w *w, uint16_t hook, int64_t ts, uint32_t hdr_tid,
                          uint32_t hdr_pid, uint32_t pid, uint32_t tid, const char *name)
{
    struct pl n, p;
    n.n = 0;
    pu16z(&n, name);
    thread_v3(&p, pid, tid, n.b, n.n);
    return ev_system(w, hook, 3, hdr_tid, hdr_pid, ts, p.b, p.n);
}

static uint32_t ev_setname(struct w *w, int64_t ts, uint32_t pid, uint32_t tid,
                           const uint8_t *name, uint32_t len)
{
    struct pl p;
    p.n = 0;
    p32(&p, pid);
    p32(&p, tid);
    pb(&p, name, len);
    return ev_perfinfo(w, HOOK_THREAD_SETNAME, 2, ts, p.b, p.n);
}

/* ---- the cases ----------------------------------------------------------------------- */

/* A file over 4 GiB: 16 MiB buffers, the events of each ending at 0x48 so
 * the file stays sparse, and switches in the buffers around and past the
 * 4 GiB offset; the last buffer ends in a damaged record. */
static void case_big(struct w *w, const char *arg)
{
    (void)arg;
    w->buffer_size = 16u << 20;
    w->sparse = true;
    w->cpus = 2;
    w_start(w, 4096);
    int64_t ts = w->t0 + 1000;
    uint32_t tid = 1000;
    for (unsigned k = 1; k <= 258; k++) {
        buf_next(w, k % 2);
        if (k >= 255) {
            uint64_t at = w->off;
            unsigned n = k == 258 ? 2 : 3;
            for (unsigned i = 0; i < n; i++, ts += 500, tid += 4) {
                uint32_t o = ev_cswitch(w, ts, tid, tid + 4);
                fprintf(w->exp, "ev 0x0524,%u,%" PRId64 ",%" PRIu64 ",%u,40\n", w->cpu, ts, at, o);
            }
            if (k == 258) {
                uint8_t junk[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }; /* marker bit 31 clear */
                uint32_t o = rec(w, junk, sizeof junk);
                expect_msg(w, at + o);
            }
        }
        buf_end(w);
    }
    fprintf(w->exp, "note %" PRIu64 "\n", w->off);
}

/* 1024 CPUs as the header says, a buffer on CPU 1500 (above the count but
 * a valid processor index) and one on CPU 3000 (beyond any index). */
static void case_cpus(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 1024;
    w_start(w, 4096);
    unsigned cpus[1026];
    for (unsigned c = 0; c < 1024; c++)
        cpus[c] = c;
    cpus[1024] = 1500;
    cpus[1025] = 3000;
    for (unsigned k = 0; k < 1026; k++) {
        unsigned c = cpus[k];
        buf_next(w, c);
        uint64_t at = w->off;
        uint32_t base = 100000 + 16 * c;
        for (unsigned j = 0; j < 3; j++) {
            int64_t ts = w->t0 + 10000 + j * 100000 + c * 10;
            if (c == 3000) { /* not shown: the buffer is skipped */
                w->idx++;
                continue;
            }
            ev_cswitch(w, ts, base + 4 * j, j < 2 ? base + 4 * (j + 1) : 0);
        }
        if (c == 3000) {
            uint8_t d[0x18];
            memset(d, 0, sizeof d);
            ev_perfinfo(w, HOOK_CSWITCH, 4, w->t0 + 20000, d, sizeof d);
            expect_msg(w, at + 0x28); /* ClientContext: the processor */
        }
        buf_end(w);
    }
}

/* The clock goes back inside one CPU's buffers: between two buffers of CPU
 * 0 and inside one; the CPU's stream order (by SequenceNumber) is the only
 * order defined there. */
static void case_clockback(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 2;
    w_start(w, 1024);
    int64_t t = w->t0;
    static const int64_t c0[3][4] = { { 1000, 1100, 1200, 0 }, { 600, 700, 650, 800 },
                                      { 1300, 1400, 0, 0 } };
    static const int64_t c1[2][2] = { { 1050, 1150 }, { 1250, 1350 } };
    uint32_t a = 200, b = 300;
    for (int k = 0; k < 3; k++) {
        buf_next(w, 0);
        for (int i = 0; i < 4 && c0[k][i]; i++, a += 4)
            ev_cswitch(w, t + c0[k][i] * 10, a, a + 4);
        buf_end(w);
        if (k < 2) {
            buf_next(w, 1);
            for (int i = 0; i < 2; i++, b += 4)
                ev_cswitch(w, t + c1[k][i] * 10, b, b + 4);
            buf_end(w);
        }
    }
}

/* Switches so far from T0 on either side that their times in nanoseconds
 * leave the int64 range (10 MHz): the times saturate to its ends, and so
 * do the durations between them (TID 100 switched out 2^62 ticks before
 * T0, back in 2^61 ticks after it), never wrapping round. */
static void case_farclock(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 1;
    w_start(w, 1024);
    int64_t a = w->t0 - ((int64_t)1 << 62), b = w->t0 + ((int64_t)1 << 61), c = b + 10;
    buf_next(w, 0);
    ev_cswitch(w, a, 100, 104);
    ev_cswitch(w, b, 104, 100);
    ev_cswitch(w, c, 100, 108);
    buf_end(w);
    /* timestamp, time, new_since_last, new_run */
    const char *min = "-9223372036.854775808", *max = "9223372036.854775807";
    fprintf(w->exp, "far %" PRId64 ",%s,,%s\n", a, min, max);
    fprintf(w->exp, "far %" PRId64 ",%s,%s,0.000000000\n", b, max, max);
    fprintf(w->exp, "far %" PRId64 ",%s,,\n", c, max);
}

/* Switches at chosen distances from T0, and their times as the reader must
 * show them at frequency f (the clock's), from a StartTime of w->start. */
static void timed_switches(struct w *w, int64_t f, const uint64_t *deltas, int n)
{
    buf_next(w, 0);
    for (int i = 0; i < n; i++) {
        int64_t ts = w->t0 + (int64_t)deltas[i];
        ev_cswitch(w, ts, 100 + 4 * (uint32_t)i, 104 + 4 * (uint32_t)i);
        uint64_t ns = scale(deltas[i], NS_PER_SEC, (uint64_t)f);
        uint64_t ft = scale(deltas[i], FT_PER_SEC, (uint64_t)f);
        char abs[64];
        iso(w->start + (int64_t)ft, abs, sizeof abs);
        fprintf(w->exp, "time %" PRId64 ",%" PRIu64 ".%09" PRIu64 ",%s\n", ts,
                ns / NS_PER_SEC, ns % NS_PER_SEC, abs);
    }
    buf_end(w);
}

/* The clock cases: ARG names the clock type and frequency fields.
 * The reader converts with PerfFreq (type 1), CpuSpeedInMHz x 10^6 (type
 * 3) or 10 MHz (types 0 and 2, and any other); a frequency of 0 or less
 * is taken as 10 MHz (man/etldump.1, --time). */
static void case_clock(struct w *w, const char *arg)
{
    w->cpus = 1;
    int64_t f;
    const char *what = arg ? arg : "qpc";
    if (strcmp(what, "qpc") == 0) {
        w->freq = 3579545;                          /* the ACPI timer's rate */
        f = w->freq;
    } else if (strcmp(what, "systime") == 0) {
        w->clock = 2;
        w->freq = 3;                                /* not used */
        w->t0 = w->start - 5 * FT_PER_SEC;          /* FILETIMEs */
        f = FT_PER_SEC;
    } else if (strcmp(what, "cycles") == 0) {
        w->clock = 3;
        w->mhz = 2995;
        f = 2995000000LL;
    } else if (strcmp(what, "raw") == 0) {
        w->clock = 0;
        w->freq = 3579545;                          /* not used */
        f = FT_PER_SEC;
    } else if (strcmp(what, "unknown") == 0) {
        w->clock = 7;
        f = FT_PER_SEC;
    } else if (strcmp(what, "freq0") == 0) {
        w->freq = 0;
        f = FT_PER_SEC;
    } else if (strcmp(what, "freqneg") == 0) {
        w->freq = -10000000;
        f = FT_PER_SEC;
    } else if (strcmp(what, "freqmin") == 0) {
        w->freq = INT64_MIN;
        f = FT_PER_SEC;
    } else if (strcmp(what, "cycles0") == 0) {
        w->clock = 3;
        w->mhz = 0;
        f = FT_PER_SEC;
    } else if (strcmp(what, "freqhuge") == 0) {
        w->freq = INT64_MAX - 24;
        w->t0 = 1000;
        f = w->freq;
    } else {
        fprintf(stderr, "%s: unknown clock case %s\n", prog, what);
        exit(2);
    }
    w_start(w, 1024);
    uint64_t d[6] = { 0, 1, 12345, (uint64_t)f / 3, (uint64_t)f + (uint64_t)f / 7,
                      (uint64_t)f * 5 + 123456789 % (uint64_t)f };
    if (strcmp(what, "freqhuge") == 0) { /* ticks stay in range: below 1 s */
        d[4] = (uint64_t)f / 2;
        d[5] = (uint64_t)f - 983;
    }
    timed_switches(w, f, d, 6);
}

/* Sequence numbers: ARG "repeat" (CPU 0's buffers share one number: file
 * order is all that is left), or "wrap" (CPU 0's cross 2^63, where the
 * signed counter wraps and the unsigned order holds; CPU 1's wrap from
 * 2^64 - 1 to 0: order undefined). */
static void case_seq(struct w *w, const char *arg)
{
    bool wrap = arg && strcmp(arg, "wrap") == 0;
    w->cpus = 2;
    w_start(w, 1024);
    static const uint64_t s_wrap0[4] = { 0x7FFFFFFFFFFFFFFEull, 0x7FFFFFFFFFFFFFFFull,
                                         0x8000000000000000ull, 0x8000000000000001ull };
    static const uint64_t s_wrap1[3] = { 0xFFFFFFFFFFFFFFFEull, 0xFFFFFFFFFFFFFFFFull, 0 };
    int64_t t = w->t0 + 1000;
    uint32_t a = 500, b = 900;
    for (int k = 0; k < 4; k++) {
        buf_begin(w, 0, wrap ? s_wrap0[k] : 5);
        for (int i = 0; i < 3; i++, a += 4, t += 100)
            ev_cswitch(w, t, a, a + 4);
        buf_end(w);
        if (k < 3) {
            buf_begin(w, 1, wrap ? s_wrap1[k] : (uint64_t)(10 + k));
            w->ordered = !wrap;
            for (int i = 0; i < 2; i++, b += 4, t += 100)
                ev_cswitch(w, t, b, b + 4);
            buf_end(w);
        }
    }
}

/* A circular file whose every buffer (the header buffer too) has the same
 * SequenceNumber, stored as a wrapped ring: the second half first. */
static void case_circular(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 2;
    w->mode = MODE_CIRCULAR;
    w->header_seq = 7;
    w_start(w, 1024);
    uint64_t ring = w->off;
    int64_t t = w->t0 + 1000;
    uint32_t tid = 400;
    /* Buffers 0..5 in time order; stored 3, 4, 5, 0, 1, 2. */
    for (int k = 0; k < 6; k++) {
        w->off = ring + (uint64_t)((k + 3) % 6) * w->buffer_size;
        buf_begin(w, (unsigned)k % 2, 7);
        w->ordered = false;
        for (int i = 0; i < 3; i++, tid += 4, t += 100)
            ev_cswitch(w, t, tid, tid + 4);
        buf_end(w);
    }
    w->off = ring + 6u * w->buffer_size;
}

/* Buffer sizes that are not a multiple of the page size (nor of 8), one of
 * them a bare header; the logfile header says 4099. */
static void case_oddsize(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 2;
    w->buffer_size = 4099;
    w_start(w, 6001);
    static const uint32_t sizes[6] = { 4099, 1000, 0x48, 6001, 4099, 333 };
    int64_t t = w->t0 + 1000;
    uint32_t tid = 600;
    for (int k = 0; k < 6; k++) {
        buf_next(w, (unsigned)k % 2);
        unsigned n = sizes[k] == 0x48 ? 0 : (sizes[k] - BUF_HDR) / 0x28 / 2;
        for (unsigned i = 0; i < n; i++, tid += 4, t += 100)
            ev_cswitch(w, t, tid, tid + 4);
        buf_end_ex(w, sizes[k], 0, 0, BT_DATA, 0);
    }
}

/* Records whose size runs to the buffer's end: exactly (valid), past the
 * valid data, past the buffer, or a size field cut by the data's end. */
static void case_toend(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 1;
    w_start(w, 1024);
    int64_t t = w->t0 + 1000;
    uint32_t tid = 700;
    uint8_t d[1024];
    memset(d, 0xA5, sizeof d);
    for (int k = 0; k < 5; k++) {
        buf_next(w, 0);
        uint64_t at = w->off;
        for (int i = 0; i < 2; i++, tid += 4, t += 100)
            ev_cswitch(w, t, tid, tid + 4);
        uint32_t off = w->fill;                     /* 0x98, aligned */
        uint32_t size = 0, saved = 0;
        switch (k) {
        case 0: /* a sample whose data run exactly to BufferSize, 0x2D bytes */
            ev_perfinfo(w, HOOK_SAMPLE, 2, t, d, 0x2D - 0x10);
            size = off + 0x2D;
            fprintf(w->exp, "ev 0x0f2e,0,%" PRId64 ",%" PRIu64 ",%u,45\n", t, at, off);
            t += 100;
            break;
        case 1: /* its size runs to BufferSize, the valid data end before */
            ev_perfinfo(w, HOOK_SAMPLE, 2, t, d, 0x60 - 0x10);
            size = off + 0x60;
            saved = off + 0x20;
            expect_msg(w, at + off);
            break;
        case 2: /* its size runs 8 bytes past BufferSize */
            ev_perfinfo(w, HOOK_SAMPLE, 2, t, d, 0x60 - 0x10);
            st16(w->b + off + 4, 0x68);
            size = off + 0x60;
            expect_msg(w, at + off);
            break;
        case 3: /* the valid data end 4 bytes into a record: no size field */
            ev_perfinfo(w, HOOK_SAMPLE, 2, t, d, 0x20);
            size = off + 0x30;
            saved = off + 4;
            expect_msg(w, at + off);
            break;
        default: /* SavedOffset past BufferSize; the records end at BufferSize */
            ev_perfinfo(w, HOOK_SAMPLE, 2, t, d, 0x20);
            size = off + 0x30;
            saved = size + 0x100;
            fprintf(w->exp, "ev 0x0f2e,0,%" PRId64 ",%" PRIu64 ",%u,48\n", t, at, off);
            expect_msg(w, at + 4);
            t += 100;
            break;
        }
        buf_end_ex(w, size, saved, 0, BT_DATA, 0);
    }
}

/* ARG (default 2^19 + 2^16: past both of the reader's limits, 2^18
 * processes and 2^19 threads) processes, each with one thread, as a rundown
 * (Process DCStart, Thread DCStart) on CPU 0 in compressed 64 KiB buffers;
 * then switches of the threads of some of them on CPU 1. "pn" lines name
 * them by index: the reader keeps the first records in file order up to its
 * documented limits. */
static void case_procs(struct w *w, const char *arg)
{
    uint32_t np = arg ? (uint32_t)strtoul(arg, NULL, 0) : (1u << 19) + (1u << 16);
    w->cpus = 2;
    w->buffer_size = 65536;
    w->compress = true;
    w->mode |= MODE_COMPRESSED;
    w_start(w, 65536);
    int64_t t = w->t0 + 100;
    const uint32_t pick[] = { 0, 1, 1000, 1u << 17, (1u << 18) - 1, 1u << 18,
                              (1u << 19) - 1, 1u << 19, np - 1 };
    size_t npick = sizeof pick / sizeof pick[0], next = 0;
    buf_next(w, 0);
    for (uint32_t i = 0; i < np; i++) {
        uint32_t pid = 8 + 4 * i, tid = 0x10000000u + 4 * i;
        char image[32];
        snprintf(image, sizeof image, "p%07" PRIu32 ".exe", i);
        if (!buf_room(w, 80 + 112)) {
            buf_end(w);
            buf_next(w, 0);
        }
        uint32_t at = ev_process_dcstart(w, t, 0xFFFF800000000000ull + (uint64_t)i * 0x80,
                                         pid, 4, image);
        if (next < npick && pick[next] == i) {
            fprintf(w->exp, "at %" PRIu32 ",0x%" PRIx64 ",0x%x\n", i, w->off, at);
            next++;
        }
        ev_thread(w, HOOK_THREAD_DCSTART, t, tid, pid, pid, tid, "");
        t += 2;
    }
    buf_end(w);
    buf_next(w, 1);
    t += 1000;
    for (size_t k = 0; k < npick; k++) {
        uint32_t i = pick[k];
        if (i >= np)
            continue;
        uint32_t pid = 8 + 4 * i, tid = 0x10000000u + 4 * i;
        char image[32];
        snprintf(image, sizeof image, "p%07" PRIu32 ".exe", i);
        ev_cswitch(w, t, 0, tid);
        fprintf(w->exp, "pn %" PRId64 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%s\n", t, tid, i, pid, image);
        t += 10;
        ev_cswitch(w, t, tid, 0);
        fprintf(w->exp, "pn %" PRId64 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%s\n", t, tid, i, pid, image);
        t += 10;
    }
    buf_end(w);
    fprintf(w->exp, "note %" PRIu32 " processes and threads, %" PRIu64 " buffers, %" PRIu64 " bytes\n",
            np, w->nbuf, w->off);
}

/* The TID cases' processes and thread: 2 CPUs; CPU 0's first buffer begun
 * with the rundown of processes 1000 (alpha.exe) and 2000 (beta.exe) and
 * of thread 3000 of 1000, named worker-a, then 3000 switched in 1 ms into
 * the trace; returns that time. */
enum { TID_PA = 1000, TID_PB = 2000, TID_T = 3000 };
static int64_t tid_begin(struct w *w)
{
    w->cpus = 2;
    w_start(w, 4096);
    buf_next(w, 0);
    ev_process_dcstart(w, w->t0 + 10, 0xFFFF8000AAAA0000ull, TID_PA, 4, "alpha.exe");
    ev_process_dcstart(w, w->t0 + 11, 0xFFFF8000BBBB0000ull, TID_PB, 4, "beta.exe");
    ev_thread(w, HOOK_THREAD_DCSTART, w->t0 + 12, TID_T, TID_PA, TID_PA, TID_T, "worker-a");
    ev_cswitch(w, w->t0 + 10000, 0, TID_T);
    return w->t0 + 10000;
}

/* A TID reused within 1 ms: thread 3000 of process 1000 ends, the same TID
 * starts in process 2000 100 us later; switches of it before and after. */
static void case_tidreuse(struct w *w, const char *arg)
{
    (void)arg;
    const uint32_t pa = TID_PA, pbid = TID_PB, t = TID_T;
    int64_t t1 = tid_begin(w);                  /* 1 ms in */
    int64_t te = t1 + 5000;                     /* Thread End */
    ev_cswitch(w, t1 + 2000, t, 0);
    ev_cswitch(w, t1 + 4000, 0, t);
    ev_thread(w, HOOK_THREAD_END, te, t, pa, pa, t, "worker-a");
    ev_cswitch(w, te + 100, t, 0);              /* its last switch-out follows its End */
    ev_cswitch(w, te + 2000, 0, t);
    ev_cswitch(w, te + 3000, t, 0);
    buf_end(w);
    buf_next(w, 1);
    /* Started by a thread of process 1000 (the header's IDs), in 2000. */
    ev_thread(w, HOOK_THREAD_START, te + 1000, 1004, pa, pbid, t, "");
    struct pl n;
    n.n = 0;
    pu16z(&n, "worker-b");
    ev_setname(w, te + 1100, pbid, t, n.b, n.n);
    buf_end(w);
    static const int64_t at[6] = { 0, 2000, 4000, 5100, 7000, 8000 };
    for (int i = 0; i < 6; i++) {
        bool a = i < 4;
        fprintf(w->exp, "who %" PRId64 ",%u,%u,%s\n", t1 + at[i], t, a ? pa : pbid,
                a ? "alpha.exe" : "beta.exe");
    }
    /* CPU time at 10 MHz: 2000 + 1100 ticks before the reuse, 1000 after. */
    fprintf(w->exp, "thr %u,%u,alpha.exe,worker-a,0.000310000\n", pa, t);
    fprintf(w->exp, "thr %u,%u,beta.exe,worker-b,0.000100000\n", pbid, t);
    fprintf(w->exp, "proc %u,alpha.exe,0.000310000\n", pa);
    fprintf(w->exp, "proc %u,beta.exe,0.000100000\n", pbid);
}

/* A TID that changes process while a CPU still runs it: thread 3000 of
 * process 1000 is switched in on CPU 0 and ends; the same TID starts in
 * process 2000; CPU 0 switches TID 3000 out only after that start, so the
 * switch-out is process 2000's thread's, and its switch-in on CPU 1 that
 * follows is a migration. The run on CPU 0 stays the thread it began with
 * (process 1000's). */
static void case_tidmove(struct w *w, const char *arg)
{
    (void)arg;
    int64_t end = tid_begin(w) + 5000;          /* Thread End */
    ev_thread(w, HOOK_THREAD_END, end, TID_T, TID_PA, TID_PA, TID_T, "worker-a");
    ev_cswitch(w, end + 2000, TID_T, 0);        /* after the start in 2000 */
    buf_end(w);
    buf_next(w, 1);
    ev_thread(w, HOOK_THREAD_START, end + 1000, 1004, TID_PA, TID_PB, TID_T, "worker-b");
    ev_cswitch(w, end + 3000, 0, TID_T);
    ev_cswitch(w, end + 4000, TID_T, 0);
    buf_end(w);
    /* CPU time at 10 MHz: 7000 ticks on CPU 0, 1000 on CPU 1. */
    fprintf(w->exp, "thr %u,%u,alpha.exe,worker-a,0.000700000\n", TID_PA, TID_T);
    fprintf(w->exp, "thr %u,%u,beta.exe,worker-b,0.000100000\n", TID_PB, TID_T);
    fprintf(w->exp, "mig %u,%u,1,0\n", TID_PA, TID_T);
    fprintf(w->exp, "mig %u,%u,1,1\n", TID_PB, TID_T);
}

/* Names that are not valid UTF-16 (and an image that is not UTF-8): each
 * must show U+FFFD where the bad unit is; a name without its terminator is
 * damage, reported at its offset. Also the logfile header's names. */
static void case_utf16(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 1;
    /* Logger name with an unpaired high surrogate; the log file name runs
     * to the record's end without a terminator, an odd number of bytes. */
    static const uint8_t lognames[] = { 'L', 0, 0x00, 0xD8, 'g', 0, 0, 0,
                                        'C', 0, ':', 0, 'x' };
    w->logger_name = lognames;
    w->logger_name_len = sizeof lognames;
    w_start(w, 4096);
    fprintf(w->exp, "name logger,L\xEF\xBF\xBDg\n");
    fprintf(w->exp, "name logfile,C:\xEF\xBF\xBD\n");
    expect_msg(w, w->names_at + 8);
    uint64_t at = w->off;
    buf_next(w, 0);
    int64_t t = w->t0 + 100;
    static const uint8_t cmd[] = { 'a', 0, 0x00, 0xD8, 'b', 0, 0, 0 };
    struct pl p;
    process_v4(&p, 0xFFFF800011110000ull, 100, 4, "ok.exe", cmd, sizeof cmd);
    ev_perfinfo(w, HOOK_PROCESS_DCSTART, 4, t++, p.b, p.n);
    fprintf(w->exp, "name cmdline,a\xEF\xBF\xBD" "b\n");
    ev_process_dcstart(w, t++, 0xFFFF800022220000ull, 104, 4, "bad\xFF.exe");
    fprintf(w->exp, "name image,bad\xEF\xBF\xBD.exe\n");
    /* Thread names: a high surrogate before a letter, a low one alone, a
     * high one before the terminator, a valid pair (U+1F600), none. */
    static const uint8_t n1[] = { 'x', 0, 0x00, 0xD8, 'y', 0, 0, 0 };
    static const uint8_t n2[] = { 0x00, 0xDC, 'z', 0, 0, 0 };
    static const uint8_t n3[] = { 'w', 0, 0x00, 0xD8, 0, 0 };
    static const uint8_t n4[] = { 0x3D, 0xD8, 0x00, 0xDE, 'k', 0, 0, 0 };
    static const struct { const uint8_t *b; uint32_t n; uint32_t pid; const char *img; const char *utf8; } th[] = {
        { n1, sizeof n1, 100, "ok.exe", "x\xEF\xBF\xBDy" },
        { n2, sizeof n2, 100, "ok.exe", "\xEF\xBF\xBDz" },
        { n3, sizeof n3, 104, "bad\xEF\xBF\xBD.exe", "w\xEF\xBF\xBD" },
        { n4, sizeof n4, 104, "bad\xEF\xBF\xBD.exe", "\xF0\x9F\x98\x80k" },
    };
    uint32_t tid = 200;
    for (size_t i = 0; i < sizeof th / sizeof th[0]; i++, tid += 4) {
        thread_v3(&p, th[i].pid, tid, th[i].b, th[i].n);
        ev_system(w, HOOK_THREAD_DCSTART, 3, tid, th[i].pid, t++, p.b, p.n);
        fprintf(w->exp, "thr %u,%u,%s,%s,0.000010000\n", th[i].pid, tid, th[i].img, th[i].utf8);
    }
    /* A name without terminator running to the payload's end (odd length). */
    static const uint8_t n5[] = { 'n', 0, 'o', 0, 'e' };
    thread_v3(&p, 104, tid, n5, sizeof n5);
    uint32_t o = ev_system(w, HOOK_THREAD_DCSTART, 3, tid, 104, t++, p.b, p.n);
    expect_msg(w, at + o + 0x20 + 72);
    fprintf(w->exp, "thr 104,%u,bad\xEF\xBF\xBD.exe,,0.000010000\n", tid);
    tid += 4;
    /* SetName, odd length, no terminator. */
    static const uint8_t n6[] = { 'o', 0, 'd', 0, 'd' };
    thread_v3(&p, 104, tid, (const uint8_t *)"\0", 2);
    ev_system(w, HOOK_THREAD_DCSTART, 3, tid, 104, t++, p.b, p.n);
    o = ev_setname(w, t++, 104, tid, n6, sizeof n6);
    expect_msg(w, at + o + 0x10 + 8);
    fprintf(w->exp, "thr 104,%u,bad\xEF\xBF\xBD.exe,,0.000010000\n", tid);
    /* Each thread runs 100 ticks (10 us). */
    t += 1000;
    for (uint32_t k = 200; k <= tid; k += 4) {
        ev_cswitch(w, t, 0, k);
        ev_cswitch(w, t + 100, k, 0);
        t += 1000;
    }
    buf_end(w);
}

/* UTF-8 string s as UTF-16LE, with its zero unit (code points below
 * U+10000: the formula case's strings). */
static void pu16z_utf8(struct pl *p, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned cp = *s++;
        if (cp >= 0xE0) {
            cp = (cp & 0x0Fu) << 12 | (unsigned)(s[0] & 0x3Fu) << 6 | (s[1] & 0x3Fu);
            s += 2;
        } else if (cp >= 0xC0) {
            cp = (cp & 0x1Fu) << 6 | (s[0] & 0x3Fu);
            s += 1;
        }
        p16(p, cp);
    }
    p16(p, 0);
}

/* US Pacific time (TIME_ZONE_INFORMATION: bias 480 minutes, daylight time
 * from the second Sunday of March at 2:00 to the first of November at
 * 2:00, 60 minutes less), a trace started at 9:59:00 UTC on 12 March 2023,
 * a minute before daylight time began (10:00 UTC), and its switches a
 * second apart on 1 CPU for two minutes: --time=local shows -08:00 up to
 * 10:00:00 and -07:00 from there; "tz" lines give each switch's UTC and
 * local time (the test's own arithmetic, not etldump's). */
static void case_dst(struct w *w, const char *arg)
{
    (void)arg;
    static uint8_t tz[0xAC];
    memset(tz, 0, sizeof tz);
    st32(tz, 480);                                   /* Bias */
    static const char std_name[] = "Pacific Standard Time", dst_name[] = "Pacific Daylight Time";
    for (size_t i = 0; std_name[i]; i++)
        st16(tz + 4 + 2 * i, (uint8_t)std_name[i]);
    st16(tz + 68 + 2, 11); st16(tz + 68 + 6, 1); st16(tz + 68 + 8, 2); /* StandardDate */
    for (size_t i = 0; dst_name[i]; i++)
        st16(tz + 88 + 2 * i, (uint8_t)dst_name[i]);
    st16(tz + 152 + 2, 3); st16(tz + 152 + 6, 2); st16(tz + 152 + 8, 2); /* DaylightDate */
    st32(tz + 168, (uint32_t)-60);                   /* DaylightBias */
    w->time_zone = tz;
    w->cpus = 1;
    /* 2023-03-12T09:59:00Z: 133230887400000000 100-ns units since 1601. */
    w->start = 133230887400000000LL;
    w_start(w, 4096);
    buf_next(w, 0);
    for (int s = 1; s <= 120; s++) {
        int64_t t = w->t0 + (int64_t)s * w->freq;
        if (!buf_room(w, 128)) {
            buf_end(w);
            buf_next(w, 0);
        }
        ev_cswitch(w, t, s % 2 ? 100 : 104, s % 2 ? 104 : 100);
        int utc = 9 * 3600 + 59 * 60 + s;             /* seconds of the day, UTC */
        int local = utc - (utc < 10 * 3600 ? 8 : 7) * 3600;
        fprintf(w->exp, "tz 2023-03-12T%02d:%02d:%02d.0000000Z,2023-03-12T%02d:%02d:%02d.0000000%s\n",
                utc / 3600, utc / 60 % 60, utc % 60, local / 3600, local / 60 % 60, local % 60,
                utc < 10 * 3600 ? "-08:00" : "-07:00");
    }
    buf_end(w);
}

/* Strings a spreadsheet takes for formulas (CWE-1236): a process for each
 * string below, its image, command line and thread's name all that
 * string, and its thread run 10 us; 1 CPU. "fx PID,TID" lines give the
 * index of each string's process and thread (the test holds the strings
 * and what CSV makes of them). */
static const char *const formula_strings[] = {
    "=HYPERLINK(\"http://x.test/?\"&A1,\"open\")", "+1+2", "-3+4", "@SUM(1)", "\tTab",
    "\rCr", "\xEF\xBC\x9D" "1", "\xEF\xBC\xA0" "x", "\xEF\xBC\x8B" "2", "\xEF\xBC\x8D" "3",
    "a=b", " sp", "plain", "\xEF\xBC\xA1" "A",
};
static void case_formula(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 1;
    w_start(w, 4096);
    buf_next(w, 0);
    int64_t t = w->t0 + 100;
    size_t n = sizeof formula_strings / sizeof formula_strings[0];
    for (size_t i = 0; i < n; i++) {
        uint32_t pid = 100 + 4 * (uint32_t)i, tid = 1000 + 4 * (uint32_t)i;
        struct pl cmd, p;
        cmd.n = 0;
        pu16z_utf8(&cmd, formula_strings[i]);
        process_v4(&p, 0xFFFF800010000000ull + (uint64_t)i * 0x1000, pid, 4, formula_strings[i],
                   cmd.b, cmd.n);
        ev_perfinfo(w, HOOK_PROCESS_DCSTART, 4, t++, p.b, p.n);
        thread_v3(&p, pid, tid, cmd.b, cmd.n);
        ev_system(w, HOOK_THREAD_DCSTART, 3, tid, pid, t++, p.b, p.n);
        fprintf(w->exp, "fx %u,%u\n", pid, tid);
    }
    t += 1000;
    for (size_t i = 0; i < n; i++) {
        uint32_t tid = 1000 + 4 * (uint32_t)i;
        ev_cswitch(w, t, 0, tid);
        ev_cswitch(w, t + 100, tid, 0);
        t += 1000;
    }
    buf_end(w);
}

/* The "ev" line of an event without a HookId: its CPU, time, buffer
 * offset, offset in the buffer and size. */
static void exp_ev(struct w *w, unsigned cpu, int64_t ts, uint64_t at, uint32_t off,
                   uint32_t size)
{
    fprintf(w->exp, "ev ,%u,%" PRId64 ",%" PRIu64 ",%u,%u\n", cpu, ts, at, off, size);
}

/* The fields the FULL and EVENT_HEADER records have in the same places
 * (format.md §3.5, §3.8): ThreadId, ProcessId, TimeStamp and the GUID. */
static void guid_record_ids(uint8_t *r, int64_t ts, const uint8_t guid[16])
{
    st32(r + 8, 0x1234);  /* ThreadId */
    st32(r + 12, 0x0567); /* ProcessId */
    st64(r + 16, (uint64_t)ts);
    memcpy(r + 0x18, guid, 16);
}

/* An EVENT_HEADER64 record (format.md §3.8) of provider guid[16], without
 * extended items, with the descriptor's Id and Opcode. */
static uint32_t ev_event_header(struct w *w, const uint8_t guid[16], unsigned id,
                                unsigned opcode, int64_t ts, const uint8_t *data, uint32_t len)
{
    uint8_t r[4096 + 0x50];
    uint32_t n = 0x50 + len;
    memset(r, 0, 0x50);
    st16(r, n);
    st16(r + 2, 0xC013);
    guid_record_ids(r, ts, guid);
    st16(r + 0x28, id);
    r[0x2C] = 4; /* Level */
    r[0x2D] = (uint8_t)opcode;
    memcpy(r + 0x50, data, len);
    return rec(w, r, n);
}

/* Events shaped like an EventSource manifest chunk (Id 65534, Opcode 254,
 * format.md §20) that are not one: the magic byte is not 0x5B, or the data
 * are too short for the chunk's header. Among them one true chunk (whose
 * text is no manifest) and switches. The "ev" lines give each such event
 * (its HookId empty: it has none). */
static void case_manifest(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 2;
    w_start(w, 4096);
    static const uint8_t guid[16] = { 0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE,
                                      0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF };
    /* format, major, minor, magic, total chunks, chunk number, text */
    static const uint8_t chunks[4][16] = {
        { 1, 1, 0, 0x00, 1, 0, 0, 0, '<', 'x', '/', '>' },       /* magic 0 */
        { 1, 1, 0, 0x5A, 1, 0, 0, 0, '<', 'x', '/', '>' },       /* magic 0x5A */
        { 1, 1, 0, 0x5B, 1, 0, 0, 0, 'n', 'o', 't', ' ', 'x' }, /* a chunk, not XML */
        { 1, 1, 0, 0x5B },                                      /* 4 bytes: too short */
    };
    static const uint32_t lens[4] = { 12, 12, 13, 4 };
    int64_t t = w->t0 + 1000;
    uint32_t tid = 800;
    for (unsigned k = 0; k < 8; k++) {
        unsigned cpu = k % 2;
        buf_next(w, cpu);
        for (int i = 0; i < 3; i++, tid += 4, t += 100)
            ev_cswitch(w, t, tid, tid + 4);
        uint64_t at = w->off;
        unsigned c = k % 4;
        uint32_t off = ev_event_header(w, guid, 65534, 254, t, chunks[c], lens[c]);
        exp_ev(w, cpu, t, at, off, 0x50 + lens[c]);
        t += 100;
        buf_end(w);
    }
}

/* A FULL_HEADER64 record (format.md §3.5) of class guid[16], with its
 * opcode (Class.Type). */
static uint32_t ev_full(struct w *w, const uint8_t guid[16], unsigned opcode, int64_t ts,
                        const uint8_t *data, uint32_t len)
{
    uint8_t r[4096 + 0x30];
    uint32_t n = 0x30 + len;
    memset(r, 0, 0x30);
    st16(r, n);
    r[2] = 0x14;
    r[3] = 0xC0;
    r[4] = (uint8_t)opcode;
    guid_record_ids(r, ts, guid);
    memcpy(r + 0x30, data, len);
    return rec(w, r, n);
}

/* 16 buffers of 4 KiB on 2 CPUs, CSwitch events in each. Buffer 0 and
 * buffer 8 hold an EVENT_HEADER event of a provider (Id 7, Version 0)
 * that only an EventMetadata event (format.md §20: FULL header, opcode 32,
 * a TRACE_EVENT_INFO naming it "Late/Learnt") in the last buffer
 * describes; every such event is named so wherever it lies (the "name"
 * lines), whatever --threads. The "ev" lines give the described events
 * and the EventMetadata one (none has a HookId). */
static void case_learnt(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 2;
    w_start(w, 4096);
    static const uint8_t prov[16] = { 0x5C, 0x07, 0x7E, 0xD0, 0x11, 0x22, 0x33, 0x44,
                                      0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC };
    static const uint8_t meta[16] = { 0xC1, 0xF6, 0xCC, 0xBB, 0xD1, 0x6C, 0xC4, 0x48,
                                      0x80, 0xFF, 0x83, 0x94, 0x82, 0xE3, 0x76, 0x71 };
    /* TRACE_EVENT_INFO: no properties, then the two names. */
    struct pl tei = { { 0 }, 112 };
    memcpy(tei.b, prov, 16);
    st16(tei.b + 32, 7); /* Id; Version 0 */
    st32(tei.b + 52, tei.n);
    pu16z(&tei, "Late");
    st32(tei.b + 92, tei.n);
    pu16z(&tei, "Learnt");
    static const uint8_t data[4] = { 1, 2, 3, 4 };
    int64_t t = w->t0 + 1000;
    uint32_t tid = 800;
    for (unsigned k = 0; k < 16; k++) {
        unsigned cpu = k % 2;
        buf_next(w, cpu);
        for (int i = 0; i < 3; i++, tid += 4, t += 100)
            ev_cswitch(w, t, tid, tid + 4);
        uint64_t at = w->off;
        if (k == 0 || k == 8) {
            uint32_t off = ev_event_header(w, prov, 7, 0, t, data, sizeof data);
            exp_ev(w, cpu, t, at, off, 0x50 + (uint32_t)sizeof data);
            fprintf(w->exp, "name event,Late/Learnt\n");
        }
        if (k == 15) {
            uint32_t off = ev_full(w, meta, 32, t, tei.b, tei.n);
            exp_ev(w, cpu, t, at, off, 0x30 + tei.n);
        }
        t += 100;
        buf_end(w);
    }
}

/* Buffers on the even processors 0, 2, ..., 198 only (the header says 200),
 * each with one switch: the processors a --cpu note lists make 100 entries
 * of a LIST, more than a note holds. */
static void case_sparsecpus(struct w *w, const char *arg)
{
    (void)arg;
    w->cpus = 200;
    w_start(w, 4096);
    for (unsigned c = 0; c < 200; c += 2) {
        buf_next(w, c);
        ev_cswitch(w, w->t0 + 1000 + c, 0, 100000 + 4 * c);
        buf_end(w);
    }
}

/* Lists in --summary cells longer than any before: one thread that waits
 * for each of the 256 wait reasons, reason r 10 + r % 50 times, and its
 * processor leaving each of the 256 C-states when it ends an idle spell.
 * Expectations: "counts N..." the counts of the reasons, and "cstates
 * N..." the idle ticks that end in each C-state, both in reason (C-state)
 * order. */
static void case_lists(struct w *w, const char *arg)
{
    (void)arg;
    enum { TID = 1000, RUN = 20, IDLE = 10 };
    w->cpus = 1;
    w->buffer_size = 65536;
    w_start(w, 65536);
    buf_next(w, 0);
    uint64_t cst[256] = { 0 };
    int64_t t = w->t0 + 1000;
    unsigned k = 0;
    for (unsigned r = 0; r < 256; r++) {
        for (unsigned j = 0; j < 10 + r % 50; j++, k++) {
            if (!buf_room(w, 2 * 0x28)) {
                buf_end(w);
                buf_next(w, 0);
            }
            unsigned c = k % 256;
            ev_cswitch_rc(w, t, 0, TID, 0, c); /* ends an idle spell */
            if (k > 0)
                cst[c] += IDLE;
            ev_cswitch_rc(w, t + RUN, TID, 0, r, 0);
            t += RUN + IDLE;
        }
    }
    ev_cswitch_rc(w, t, 0, TID, 0, k % 256);
    cst[k % 256] += IDLE;
    buf_end(w);
    fprintf(w->exp, "counts");
    for (unsigned r = 0; r < 256; r++)
        fprintf(w->exp, " %u", 10 + r % 50);
    fprintf(w->exp, "\ncstates");
    for (unsigned c = 0; c < 256; c++)
        fprintf(w->exp, " %" PRIu64, cst[c]);
    fprintf(w->exp, "\n");
}

/* Long image names in --summary's top_readiers: processes A, B and C,
 * whose images are arg bytes long (default 400; "aaa...a.exe" and so on),
 * each with one thread that readies thread 9000 (of target.exe) 3, 2 and 1
 * times (a ReadyThread event while it runs, then a switch to 9000).
 * Expectation: "cell TEXT", the top_readiers cell of 9000's row by its
 * definition: "name:count" entries, the most first, as many whole entries
 * as fit in 1023 bytes. */
static void case_readiers(struct w *w, const char *arg)
{
    size_t len = arg ? (size_t)strtoul(arg, NULL, 0) : 400;
    if (len < 5 || len > 2000) {
        fprintf(stderr, "%s: readiers: a length from 5 to 2000\n", prog);
        exit(2);
    }
    enum { T = 9000, TPID = 500 };
    w->cpus = 1;
    w->buffer_size = 65536;
    w_start(w, 65536);
    buf_next(w, 0);
    int64_t t = w->t0 + 100;
    ev_process_dcstart(w, t++, 0xFFFF800000005000ull, TPID, 4, "target.exe");
    ev_thread(w, HOOK_THREAD_DCSTART, t++, T, TPID, TPID, T, "");
    char cell[4096] = "", image[2048];
    size_t used = 0;
    bool full = false;
    for (unsigned k = 0; k < 3; k++) {
        uint32_t pid = 100 * (k + 1), tid = pid + 1;
        memset(image, 'a' + (int)k, len - 4);
        memcpy(image + len - 4, ".exe", 5);
        ev_process_dcstart(w, t++, 0xFFFF800000001000ull * (k + 1), pid, 4, image);
        ev_thread(w, HOOK_THREAD_DCSTART, t++, tid, pid, pid, tid, "");
        char entry[2100];
        int n = snprintf(entry, sizeof entry, "%s%s:%u", used ? " " : "", image, 3 - k);
        if (!full && used + (size_t)n <= 1023) {
            memcpy(cell + used, entry, (size_t)n + 1);
            used += (size_t)n;
        } else {
            full = true;
        }
    }
    t += 1000;
    for (unsigned k = 0; k < 3; k++) {
        uint32_t tid = 100 * (k + 1) + 1;
        for (unsigned i = 0; i < 3 - k; i++) {
            uint8_t ready[8] = { 0 };
            st32(ready, T);
            ev_cswitch(w, t, 0, tid);
            ev_perfinfo(w, 0x0532, 2, t + 10, ready, sizeof ready);
            ev_cswitch(w, t + 20, tid, T);
            ev_cswitch(w, t + 30, T, 0);
            t += 100;
        }
    }
    buf_end(w);
    fprintf(w->exp, "cell %s\n", cell);
}

static const struct {
    const char *name;
    void (*fn)(struct w *w, const char *arg);
} cases[] = {
    { "big", case_big },
    { "cpus", case_cpus },
    { "clockback", case_clockback },
    { "clock", case_clock },
    { "farclock", case_farclock },
    { "seq", case_seq },
    { "circular", case_circular },
    { "oddsize", case_oddsize },
    { "toend", case_toend },
    { "procs", case_procs },
    { "tidreuse", case_tidreuse },
    { "tidmove", case_tidmove },
    { "utf16", case_utf16 },
    { "formula", case_formula },
    { "dst", case_dst },
    { "manifest", case_manifest },
    { "learnt", case_learnt },
    { "lists", case_lists },
    { "readiers", case_readiers },
    { "sparsecpus", case_sparsecpus },
};

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: mkedge CASE OUT EXPECT [ARG]\ncases:");
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            fprintf(stderr, " %s", cases[i].name);
        fprintf(stderr, "\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) != 0)
            continue;
        struct w w;
        w_open(&w, argv[2], argv[3]);
        cases[i].fn(&w, argc > 4 ? argv[4] : NULL);
        w_close(&w);
        return 0;
    }
    fprintf(stderr, "%s: unknown case %s\n", prog, argv[1]);
    return 2;
}
