/*
 * mutate.c - hostile variants of an ETL file for tests/hostile.sh.
 *
 *   mutate offsets FILE [N]
 *       Prints the offsets to truncate FILE at, one per line, largest first:
 *       every buffer boundary and the bytes either side of it, offsets inside
 *       each buffer header and inside the first records of each buffer, and
 *       N (default 50) more spread pseudo-randomly over the file.
 *   mutate flip FILE OUTDIR FIRST COUNT [MAXBYTES]
 *       Writes COUNT mutants of FILE, OUTDIR/m-SEED.etl for SEED = FIRST ..
 *       FIRST+COUNT-1, and prints "m-SEED.etl: what was changed" for each.
 *       Each mutant gets one to three changes aimed at the fields a reader
 *       trusts: buffer header fields (BufferSize, SavedOffset, Offset,
 *       SequenceNumber, ProcessorIndex, BufferFlag, BufferType), trace header
 *       fields (marker bits, header type, sizes, HookIds, PERFINFO extended
 *       item bits, EVENT_HEADER extended items), compact batches (records,
 *       TidTable, FirstTimeStamp), CSwitch payloads, the logfile header,
 *       compressed streams, and now and then any byte. When FILE is larger
 *       than MAXBYTES, a mutant is made of the first buffer and a run of
 *       whole buffers from a random place, at most MAXBYTES in all.
 *   mutate one FILE OUT SEED [MAXBYTES]
 *       Writes the single mutant SEED (as flip makes it) to OUT.
 *
 * The file is parsed here independently of etldump, just enough to find the
 * fields: buffers by BufferSize, records as the trace header kinds lay them
 * out (doc/format.md §2, §3). Same FILE and SEED, same mutant.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_HDR 0x48u

/* One trace record inside an uncompressed buffer. */
struct rec {
    size_t off;       /* in the file */
    size_t size;      /* record size */
    size_t fixed;     /* header bytes before the data (extended items excluded) */
    size_t avail;     /* bytes from off to the end of the buffer's events */
    unsigned kind;    /* 'S'ystem, 'C'ompact, 'P'erfinfo, 'F'ull, 'I'nstance, 'E'vent header, 'M'essage */
    unsigned hook;    /* for S, C, P */
    int size_in_marker; /* the size is the low u16 of the marker (else the u16 at +4) */
};

struct buf {
    size_t off, size;
    int compressed;
};

struct etl {
    uint8_t *d;
    size_t n;
    struct buf *b;
    size_t nb;
    struct rec *r;
    size_t nr;
};

/* ---- little-endian access ---------------------------------------------- */

static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t get32(const uint8_t *p) { return get16(p) | get16(p + 2) << 16; }
static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }
static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xFFFF); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

/* ---- a small deterministic PRNG (xorshift64*) ---------------------------- */

static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
    rng_state = s * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    if (!rng_state)
        rng_state = 1;
}

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

/* Returns a number in [0, n) (0 when n is 0). */
static size_t pick(size_t n)
{
    return n ? (size_t)(rng() % n) : 0;
}

/* ---- reading and indexing the file --------------------------------------- */

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "mutate: out of memory\n");
        exit(2);
    }
    return q;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "mutate: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    uint8_t *d = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            d = xrealloc(d, cap);
        }
        size_t r = fread(d + len, 1, cap - len, f);
        if (r == 0)
            break;
        len += r;
    }
    fclose(f);
    *n = len;
    return d;
}

/* Classifies the record at p (avail bytes); 0 if it is not a trace header. */
static unsigned classify(const uint8_t *p, size_t avail, size_t *size, size_t *fixed,
                         int *in_marker)
{
    if (avail < 8)
        return 0;
    uint32_t m = get32(p);
    if (m == 0xFFFFFFFFu || !(m & 0x80000000u))
        return 0;
    if (!(m & 0x40000000u)) {
        if (!(m & 0x10000000u))
            return 0;
        *size = m & 0xFFFF;
        *fixed = 8;
        *in_marker = 1;
        return 'M';
    }
    unsigned ht = (m >> 16) & 0xFF, kind;
    switch (ht) {
    case 0x01: case 0x02: kind = 'S'; *fixed = 0x20; break;
    case 0x03: case 0x04: kind = 'C'; *fixed = 0x18; break;
    case 0x10: case 0x11: kind = 'P'; *fixed = 0x10; break;
    case 0x0A: case 0x14: kind = 'F'; *fixed = 0x30; break;
    case 0x0B: case 0x15: kind = 'I'; *fixed = 0x48; break;
    case 0x12: case 0x13: kind = 'E'; *fixed = 0x50; break;
    default: return 0;
    }
    *in_marker = !(kind == 'S' || kind == 'C' || kind == 'P');
    *size = *in_marker ? (m & 0xFFFF) : get16(p + 4);
    return kind;
}

/* Indexes the buffers and the records of the uncompressed ones. */
static void index_file(struct etl *e)
{
    size_t off = 0, bcap = 0, rcap = 0;
    while (off + BUF_HDR <= e->n) {
        size_t size = get32(e->d + off);
        if (size < BUF_HDR || size > e->n - off)
            break;
        if (e->nb == bcap) {
            bcap = bcap ? bcap * 2 : 64;
            e->b = xrealloc(e->b, bcap * sizeof *e->b);
        }
        struct buf *b = &e->b[e->nb++];
        b->off = off;
        b->size = size;
        b->compressed = (get16(e->d + off + 0x34) & 0x40) != 0;
        if (!b->compressed) {
            size_t end = get32(e->d + off + 4);
            size_t o2 = get32(e->d + off + 0x30);
            if (o2 > end)
                end = o2;
            if (end > size)
                end = size;
            size_t pos = BUF_HDR;
            while (pos + 8 <= end) {
                size_t rsize, fixed;
                int in_marker;
                unsigned kind = classify(e->d + off + pos, end - pos, &rsize, &fixed,
                                         &in_marker);
                if (!kind || rsize < fixed || rsize > end - pos)
                    break;
                if (e->nr == rcap) {
                    rcap = rcap ? rcap * 2 : 256;
                    e->r = xrealloc(e->r, rcap * sizeof *e->r);
                }
                struct rec *r = &e->r[e->nr++];
                r->off = off + pos;
                r->size = rsize;
                r->fixed = fixed;
                r->avail = end - pos;
                r->kind = kind;
                r->size_in_marker = in_marker;
                r->hook = (kind == 'S' || kind == 'C' || kind == 'P')
                              ? get16(e->d + off + pos + 6) : 0xFFFFFFFFu;
                if (kind == 'P') {
                    uint32_t m = get32(e->d + off + pos);
                    r->fixed += 8u * (((m >> 8) & 7u) + ((m >> 15) & 1u));
                }
                pos += (rsize + 7) & ~(size_t)7;
            }
        }
        off += size;
    }
}

/* ---- values worth trying ------------------------------------------------- */

/* An interesting replacement for a 32-bit size or offset field. */
static uint32_t odd_u32(uint32_t old, uint32_t bufsize)
{
    const uint32_t fixed[] = {
        0, 1, 2, 7, 8, 0x47, 0x48, 0x49, 0x50, 0x58, 0xFFFF, 0x10000,
        0x1000000, 0x1000001, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu,
    };
    switch (pick(10)) {
    case 0: return old - 1;
    case 1: return old + 1;
    case 2: return old ^ (1u << pick(32));
    case 3: return bufsize - 1;
    case 4: return bufsize + 1;
    case 5: return bufsize * 2;
    case 6: return (uint32_t)rng();
    case 7: return old + 8;
    default: return fixed[pick(sizeof fixed / sizeof fixed[0])];
    }
}

/* An interesting replacement for a 16-bit record size. */
static uint32_t odd_size16(const struct rec *r)
{
    size_t avail = r->avail > 0xFFFF ? 0xFFFF : r->avail;
    const size_t v[] = {
        0, 1, 7, 8, r->fixed - 1, r->fixed, r->fixed + 1, avail - 1, avail,
        avail + 1, 0xFFFF, r->size - 1, r->size + 1, r->size + 8, r->size - 8,
        (size_t)rng() & 0xFFFF,
    };
    return (uint32_t)(v[pick(sizeof v / sizeof v[0])] & 0xFFFF);
}

/* An interesting 64-bit timestamp or counter. */
static uint64_t odd_u64(uint64_t old)
{
    const uint64_t v[] = {
        0, 1, 0x7FFFFFFFFFFFFFFFULL, 0x8000000000000000ULL, 0xFFFFFFFFFFFFFFFFULL,
        old - 1, old + 1, old ^ (1ULL << pick(64)), rng(), 0x7FFFFFFFFFFFFF00ULL,
    };
    return v[pick(sizeof v / sizeof v[0])];
}

/* ---- mutations ------------------------------------------------------------ */

static char what[1024];

static void note(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#include <stdarg.h>
static void note(const char *fmt, ...)
{
    size_t n = strlen(what);
    if (n + 4 >= sizeof what)
        return;
    if (n)
        what[n++] = ';', what[n++] = ' ', what[n] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what + n, sizeof what - n, fmt, ap);
    va_end(ap);
}

/* Returns a random record of one of the kinds in kinds ("" for any) whose
 * hook is hook (or any when hook is ~0u); NULL if none. */
static const struct rec *pick_rec(const struct etl *e, const char *kinds, unsigned hook)
{
    size_t n = 0;
    for (size_t i = 0; i < e->nr; i++)
        if ((!*kinds || strchr(kinds, (int)e->r[i].kind)) &&
            (hook == ~0u || e->r[i].hook == hook))
            n++;
    if (!n)
        return NULL;
    size_t k = pick(n);
    for (size_t i = 0; i < e->nr; i++)
        if ((!*kinds || strchr(kinds, (int)e->r[i].kind)) &&
            (hook == ~0u || e->r[i].hook == hook) && k-- == 0)
            return &e->r[i];
    return NULL;
}

/* Changes one field of a buffer header. */
static void mut_buffer(struct etl *e)
{
    if (!e->nb)
        return;
    /* The first buffer (the logfile header) now and then, else any. */
    const struct buf *b = &e->b[pick(4) == 0 ? 0 : pick(e->nb)];
    uint8_t *h = e->d + b->off;
    uint32_t bs = (uint32_t)b->size;
    switch (pick(9)) {
    case 0: put32(h, odd_u32(get32(h), bs)); note("buffer 0x%zx BufferSize=0x%x", b->off, get32(h)); break;
    case 1: put32(h + 4, odd_u32(get32(h + 4), bs)); note("buffer 0x%zx SavedOffset=0x%x", b->off, get32(h + 4)); break;
    case 2: put32(h + 0x30, odd_u32(get32(h + 0x30), bs)); note("buffer 0x%zx Offset=0x%x", b->off, get32(h + 0x30)); break;
    case 3: {
        uint64_t s = get64(h + 0x18);
        if (pick(3) == 0 && e->nb > 1)
            s = get64(e->d + e->b[pick(e->nb)].off + 0x18); /* a duplicate */
        else
            s = odd_u64(s);
        put64(h + 0x18, s);
        note("buffer 0x%zx SequenceNumber=0x%llx", b->off, (unsigned long long)s);
        break;
    }
    case 4: {
        const uint32_t v[] = { 0, 1, 0xFF, 0x7FF, 0x800, 0xFFFF, (uint32_t)rng() & 0xFFFF };
        put16(h + 0x28, v[pick(7)]);
        note("buffer 0x%zx ProcessorIndex=0x%x", b->off, get16(h + 0x28));
        break;
    }
    case 5: case 6: {
        const uint32_t bits[] = { 0x40, 0x20, 0x01, 0x02, 0x04, 0x8000, 0xFFFF };
        put16(h + 0x34, get16(h + 0x34) ^ bits[pick(7)]);
        note("buffer 0x%zx BufferFlag=0x%x", b->off, get16(h + 0x34));
        break;
    }
    case 7: {
        const uint32_t v[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 0xFFFF };
        put16(h + 0x36, v[pick(10)]);
        note("buffer 0x%zx BufferType=%u", b->off, get16(h + 0x36));
        break;
    }
    default: {
        size_t at = pick(BUF_HDR);
        h[at] = (uint8_t)rng();
        note("buffer 0x%zx header byte 0x%zx=0x%02x", b->off, at, h[at]);
        break;
    }
    }
}

/* Changes the marker, header type or size of a record. */
static void mut_record(struct etl *e)
{
    const struct rec *r = pick_rec(e, "", ~0u);
    if (!r)
        return;
    uint8_t *p = e->d + r->off;
    switch (pick(4)) {
    case 0: {
        const unsigned bits[] = { 0x80, 0x40, 0x20, 0x10, 0xC0, 0x50 };
        p[3] ^= (uint8_t)bits[pick(6)];
        note("record 0x%zx marker flags byte=0x%02x", r->off, p[3]);
        break;
    }
    case 1: {
        const unsigned v[] = { 0, 1, 2, 3, 4, 5, 0x0A, 0x0B, 0x10, 0x11, 0x12,
                               0x13, 0x14, 0x15, 0x16, 0x20, 0xFF };
        p[2] = (uint8_t)v[pick(sizeof v / sizeof v[0])];
        note("record 0x%zx header type=0x%02x", r->off, p[2]);
        break;
    }
    default: {
        uint32_t s = odd_size16(r);
        put16(r->size_in_marker ? p : p + 4, s);
        note("record 0x%zx size=0x%x", r->off, s);
        break;
    }
    }
}

/* Changes a HookId. */
static void mut_hook(struct etl *e)
{
    const struct rec *r = pick_rec(e, "SCP", ~0u);
    if (!r)
        return;
    const uint32_t v[] = { 0x0000, 0x0524, 0x0525, 0x0424, 0x0501, (uint32_t)rng() & 0xFFFF };
    put16(e->d + r->off + 6, v[pick(6)]);
    note("record 0x%zx HookId=0x%04x", r->off, get16(e->d + r->off + 6));
}

/* Changes the PERFINFO extended-item bits (PMC count, PEBS). */
static void mut_perfinfo(struct etl *e)
{
    const struct rec *r = pick_rec(e, "P", ~0u);
    if (!r)
        return;
    uint8_t *p = e->d + r->off;
    if (pick(2))
        p[1] = (uint8_t)((p[1] & ~0x07u) | pick(8));
    else
        p[1] ^= 0x80;
    note("record 0x%zx PERFINFO pmc=%u pebs=%u", r->off, p[1] & 7u, p[1] >> 7);
}

/* Changes an EVENT_HEADER's flags or first extended data item. */
static void mut_event_header(struct etl *e)
{
    const struct rec *r = pick_rec(e, "E", ~0u);
    if (!r)
        return;
    uint8_t *p = e->d + r->off;
    size_t room = r->avail - 0x50;
    if (room < 8 || pick(4) == 0) {
        put16(p + 4, get16(p + 4) ^ 1u); /* EVENT_HEADER_FLAG_EXTENDED_INFO */
        note("record 0x%zx EVENT_HEADER flags=0x%04x", r->off, get16(p + 4));
        return;
    }
    uint8_t *it = p + 0x50;
    size_t item = get16(it);
    switch (pick(3)) {
    case 0: {
        const size_t v[] = { 0, 7, 8, 9, r->size - 0x50, r->size - 0x50 + 1, 0xFFFF, item + 8 };
        put16(it, (uint32_t)(v[pick(8)] & 0xFFFF));
        note("record 0x%zx ext item size=0x%x", r->off, get16(it));
        break;
    }
    case 1:
        put16(it + 4, get16(it + 4) ^ 1u);
        note("record 0x%zx ext item linkage=%u", r->off, get16(it + 4) & 1u);
        break;
    default: {
        const size_t v[] = { 0, item - 8, item - 7, 0xFFFF };
        put16(it + 6, (uint32_t)(v[pick(4)] & 0xFFFF));
        note("record 0x%zx ext item DataSize=0x%x", r->off, get16(it + 6));
        break;
    }
    }
}

/* Changes a compact context-switch batch (HookId 0x0525). */
static void mut_batch(struct etl *e)
{
    const struct rec *r = pick_rec(e, "SCP", 0x0525);
    if (!r)
        return;
    if (r->size <= r->fixed)
        return;
    uint8_t *d = e->d + r->off + r->fixed;
    size_t len = r->size - r->fixed;
    switch (len < 0x58 ? 4 : pick(6)) {
    case 0:
        put64(d, odd_u64(get64(d)));
        note("batch 0x%zx FirstTimeStamp=0x%llx", r->off, (unsigned long long)get64(d));
        break;
    case 1: {
        size_t i = pick(16);
        put32(d + 8 + 4 * i, pick(2) ? 0 : (uint32_t)rng());
        note("batch 0x%zx TidTable[%zu]=0x%x", r->off, i, get32(d + 8 + 4 * i));
        break;
    }
    case 2: {
        size_t i = pick(16);
        d[0x48 + i] = (uint8_t)rng();
        note("batch 0x%zx ThreadBasePriority[%zu]=0x%02x", r->off, i, d[0x48 + i]);
        break;
    }
    case 3: case 5: {
        if (len <= 0x58)
            return;
        size_t at = 0x58 + pick(len - 0x58);
        if (pick(2))
            d[at] = (uint8_t)((d[at] & ~3u) | pick(4)); /* DataType */
        else
            d[at] = (uint8_t)rng();
        note("batch 0x%zx record byte 0x%zx=0x%02x", r->off, at, d[at]);
        break;
    }
    default: {
        /* A shorter batch: cut the record size (records no longer fit). */
        size_t cut = 1 + pick(7);
        uint8_t *p = e->d + r->off;
        put16(p + 4, (uint32_t)((r->size - cut) & 0xFFFF));
        note("batch 0x%zx size=0x%zx", r->off, r->size - cut);
        break;
    }
    }
}

/* Changes a byte of a CSwitch payload (HookId 0x0524). */
static void mut_cswitch(struct etl *e)
{
    const struct rec *r = pick_rec(e, "SCP", 0x0524);
    if (!r || r->size <= r->fixed)
        return;
    size_t len = r->size - r->fixed;
    size_t at = pick(len < 0x18 ? len : 0x18);
    e->d[r->off + r->fixed + at] = (uint8_t)(pick(2) ? 0xFF : rng());
    note("cswitch 0x%zx byte %zu=0x%02x", r->off, at, e->d[r->off + r->fixed + at]);
}

/* Changes a field of the logfile header (the first record of the file). */
static void mut_logfile(struct etl *e)
{
    if (!e->nr || e->r[0].off != BUF_HDR || e->r[0].kind != 'S')
        return;
    const struct rec *r = &e->r[0];
    uint8_t *p = e->d + r->off;
    uint8_t *d = p + 0x20;
    size_t len = r->size - 0x20;
    size_t ptr = p[2] == 0x02 ? 8 : 4;
    size_t a = 0x38 + 2 * ptr; /* TimeZone.Bias */
    struct { size_t at, w; const char *name; } f[] = {
        { 0x00, 4, "BufferSize" }, { 0x08, 4, "ProviderVersion" }, { 0x0C, 4, "NumberOfProcessors" },
        { 0x10, 8, "EndTime" }, { 0x20, 4, "LogFileMode" }, { 0x2C, 4, "PointerSize" },
        { 0x34, 4, "CpuSpeedInMHz" }, { a + 0xB0, 8, "BootTime" }, { a + 0xB8, 8, "PerfFreq" },
        { a + 0xC0, 8, "StartTime" }, { a + 0xC8, 4, "ReservedFlags" },
        { a + 0xD0, 2, "LoggerName" }, { (size_t)-0x08, 8, "header TimeStamp" },
    };
    size_t i = pick(sizeof f / sizeof f[0]);
    size_t at = f[i].at == (size_t)-0x08 ? 0 : f[i].at;
    uint8_t *q = f[i].at == (size_t)-0x08 ? p + 0x18 : d + at;
    if (f[i].at != (size_t)-0x08 && at + f[i].w > len)
        return;
    if (f[i].w == 8) {
        put64(q, odd_u64(get64(q)));
        note("logfile %s=0x%llx", f[i].name, (unsigned long long)get64(q));
    } else if (f[i].w == 4) {
        const uint32_t v[] = { 0, 1, 2, 3, 4, 0xFFFFFFFFu, 0x04000000u, get32(q) ^ 0x04000000u,
                               0x1000001, 5999, 9200, 22631, (uint32_t)rng() };
        put32(q, v[pick(sizeof v / sizeof v[0])]);
        note("logfile %s=0x%x", f[i].name, get32(q));
    } else {
        /* Odd UTF-16 in the names: surrogates, controls, no terminator. */
        const uint32_t v[] = { 0xD800, 0xDC00, 0xDBFF, 0x0001, 0x001B, 0xFFFE, 0xFFFF, 0x0041 };
        size_t k = pick(len - at >= 64 ? 32 : (len - at) / 2);
        put16(q + 2 * k, v[pick(8)]);
        note("logfile name char %zu=0x%04x", k, get16(q + 2 * k));
    }
}

/* Changes a byte of a compressed stream. */
static void mut_compressed(struct etl *e)
{
    size_t n = 0;
    for (size_t i = 0; i < e->nb; i++)
        if (e->b[i].compressed)
            n++;
    if (!n)
        return;
    size_t k = pick(n);
    for (size_t i = 0; i < e->nb; i++) {
        const struct buf *b = &e->b[i];
        if (!b->compressed || k-- != 0)
            continue;
        if (b->size <= BUF_HDR)
            return;
        size_t at = BUF_HDR + pick(pick(2) ? (b->size - BUF_HDR < 16 ? b->size - BUF_HDR : 16)
                                           : b->size - BUF_HDR);
        e->d[b->off + at] = (uint8_t)rng();
        note("compressed buffer 0x%zx byte 0x%zx=0x%02x", b->off, at, e->d[b->off + at]);
        return;
    }
}

/* Changes any byte. */
static void mut_any(struct etl *e)
{
    if (!e->n)
        return;
    size_t at = pick(e->n);
    e->d[at] = (uint8_t)rng();
    note("byte 0x%zx=0x%02x", at, e->d[at]);
}

/* Applies one to three mutations. */
static void mutate(struct etl *e)
{
    static void (*const fn[])(struct etl *) = {
        mut_buffer, mut_buffer, mut_buffer, mut_buffer, mut_record, mut_record,
        mut_hook, mut_perfinfo, mut_event_header, mut_batch, mut_batch, mut_batch,
        mut_cswitch, mut_logfile, mut_logfile, mut_compressed, mut_any,
    };
    size_t k = 1 + pick(3);
    for (size_t i = 0; i < k; i++) {
        size_t before = strlen(what);
        /* A mutation that finds nothing to change tries another kind. */
        for (int tries = 0; tries < 8 && strlen(what) == before; tries++)
            fn[pick(sizeof fn / sizeof fn[0])](e);
    }
}

/* ---- building a mutant --------------------------------------------------- */

/* Copies orig (or, when larger than maxbytes, its first buffer and a run of
 * whole buffers) into e and indexes it. */
static void start(struct etl *e, const struct etl *orig, size_t maxbytes)
{
    memset(e, 0, sizeof *e);
    if (maxbytes && orig->n > maxbytes && orig->nb > 1) {
        e->d = xrealloc(NULL, maxbytes);
        size_t n = orig->b[0].size;
        memcpy(e->d, orig->d, n);
        size_t i = 1 + pick(orig->nb - 1);
        for (; i < orig->nb && n + orig->b[i].size <= maxbytes; i++) {
            memcpy(e->d + n, orig->d + orig->b[i].off, orig->b[i].size);
            n += orig->b[i].size;
        }
        e->n = n;
    } else {
        e->d = xrealloc(NULL, orig->n);
        memcpy(e->d, orig->d, orig->n);
        e->n = orig->n;
    }
    index_file(e);
}

static void done(struct etl *e)
{
    free(e->d);
    free(e->b);
    free(e->r);
}

static void write_file(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(d, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "mutate: %s: %s\n", path, strerror(errno));
        exit(2);
    }
}

/* Makes mutant seed of orig into path; prints what was changed. */
static void make_mutant(const struct etl *orig, uint64_t file_key, unsigned long seed,
                        size_t maxbytes, const char *path, const char *name)
{
    struct etl e;
    rng_seed(file_key ^ ((uint64_t)seed << 20) ^ seed);
    what[0] = '\0';
    start(&e, orig, maxbytes);
    mutate(&e);
    write_file(path, e.d, e.n);
    printf("%s: %s\n", name, what[0] ? what : "(unchanged)");
    done(&e);
}

/* A key for the PRNG from the file's size and first bytes. */
static uint64_t key_of(const struct etl *e)
{
    uint64_t h = 1469598103934665603ULL ^ e->n;
    for (size_t i = 0; i < e->n && i < 4096; i++)
        h = (h ^ e->d[i]) * 1099511628211ULL;
    return h;
}

static int cmp_desc(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Prints the truncation offsets of e. */
static void offsets(const struct etl *e, size_t nrand)
{
    size_t cap = 64 + e->nb * 16 + nrand, n = 0;
    size_t *o = xrealloc(NULL, cap * sizeof *o);
#define ADD(x) do { if (n < cap) o[n++] = (x); } while (0)
    const size_t early[] = { 0, 1, 4, 8, 0x20, 0x47, 0x48, 0x49, 0x4C, 0x50, 0x60,
                             0x68, 0x100, 0x150, 0x1B0, 0x200 };
    for (size_t i = 0; i < sizeof early / sizeof early[0]; i++)
        ADD(early[i]);
    for (size_t i = 0; i < e->nb; i++) {
        size_t b = e->b[i].off;
        if (b) {
            ADD(b - 1);
            ADD(b);
        }
        ADD(b + 1);
        if (i >= 8 && i + 2 < e->nb)
            continue; /* inside the headers of the first and last buffers only */
        ADD(b + 4);     /* inside BufferSize / SavedOffset */
        ADD(b + 0x30);  /* Offset */
        ADD(b + 0x47);  /* the last header byte */
        ADD(b + BUF_HDR + 4); /* inside the first record's header */
        ADD(b + BUF_HDR + 0x10);
    }
    ADD(e->n - 1);
    /* A few records' headers too. */
    for (size_t i = 0; i < e->nr && i < 64; i += 1 + i / 8)
        ADD(e->r[i].off + 6);
    rng_seed(key_of(e));
    for (size_t i = 0; i < nrand && e->n; i++)
        ADD(pick(e->n));
#undef ADD
    qsort(o, n, sizeof *o, cmp_desc);
    for (size_t i = 0; i < n; i++)
        if (o[i] < e->n && (i == 0 || o[i] != o[i - 1]))
            printf("%zu\n", o[i]);
    free(o);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: mutate offsets FILE [N]\n"
            "       mutate flip FILE OUTDIR FIRST COUNT [MAXBYTES]\n"
            "       mutate one FILE OUT SEED [MAXBYTES]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        usage();
    struct etl orig;
    memset(&orig, 0, sizeof orig);
    orig.d = slurp(argv[2], &orig.n);
    index_file(&orig);
    uint64_t key = key_of(&orig);
    if (strcmp(argv[1], "offsets") == 0) {
        offsets(&orig, argc > 3 ? strtoul(argv[3], NULL, 0) : 50);
    } else if (strcmp(argv[1], "flip") == 0 && argc >= 6) {
        unsigned long first = strtoul(argv[4], NULL, 0), count = strtoul(argv[5], NULL, 0);
        size_t maxbytes = argc > 6 ? strtoul(argv[6], NULL, 0) : 0;
        size_t plen = strlen(argv[3]) + 32;
        char *path = xrealloc(NULL, plen);
        for (unsigned long s = first; s < first + count; s++) {
            snprintf(path, plen, "%s/m-%lu.etl", argv[3], s);
            make_mutant(&orig, key, s, maxbytes, path, strrchr(path, '/') + 1);
        }
        free(path);
    } else if (strcmp(argv[1], "one") == 0 && argc >= 5) {
        size_t maxbytes = argc > 5 ? strtoul(argv[5], NULL, 0) : 0;
        make_mutant(&orig, key, strtoul(argv[4], NULL, 0), maxbytes, argv[3], argv[3]);
    } else {
        usage();
    }
    free(orig.d);
    free(orig.b);
    free(orig.r);
    return 0;
}
