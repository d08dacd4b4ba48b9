/*
 * map.c - regular files read through a read-only mapping of the whole file
 * instead of copies (those the reader maps: with compressed buffers, or
 * with large buffers on many CPUs; see map_is_better in reader.c), and what
 * happens when a mapped file shrinks.
 *
 * A page of a mapping past the end of its file (one truncated while it is
 * read) raises SIGBUS when touched. A handler, installed once with the
 * first mapping, puts a page of zeros in its place and notes the offset, so
 * reading goes on (zeros end a buffer's events, format.md §2.1) and the
 * reader reports the shrinking as a problem (etl_map_shrunk). A SIGBUS
 * outside every mapping goes to the handler that was there before.
 *
 * Pages behind the reader are handed back (etl_map_release), so that the
 * mapped file does not count in the process's resident memory as it is
 * read: the file stays in the page cache, and a page read again is mapped
 * again from there.
 *
 * Whether a mapping is the faster way depends on the machine and on how
 * its page cache holds the file: on the README's virtual machine a walk in
 * file order of a 1 GB trace took 0.22 s by copying and 0.83 s mapped
 * while the cache held it in 4 KiB pages (a fault every few pages), and
 * 0.19 s mapped against 0.28 s copied while it held it in large folios.
 * etl_map_faster measures it on the file itself, at places spread over it:
 * a cache may hold part of a file one way and the rest the other.
 */
#include "etl/internal.h"

#include "cursor.h"
#include "spill.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Mappings watched at once; past that files are read by copying. */
#define MAX_MAPS 64

/* One watched mapping: its address and length (0 when free), and the
 * lowest offset found past the end of the file, plus one (0: none). */
struct watched {
    _Atomic uintptr_t base;
    _Atomic size_t len;
    _Atomic uint64_t shrunk_at;
};

static struct watched maps[MAX_MAPS];
static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static bool handler_ok;
static size_t page_size;

/* SIGBUS: a page of a watched mapping past the end of its file gets zeros
 * (mmap over it with MAP_FIXED; a system call, as signal handlers may make)
 * and the faulting access runs again; any other goes to the previous
 * handler, or ends the process as it would have. */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    for (size_t i = 0; i < MAX_MAPS; i++) {
        uintptr_t base = atomic_load_explicit(&maps[i].base, memory_order_relaxed);
        size_t len = atomic_load_explicit(&maps[i].len, memory_order_relaxed);
        if (!base || a - base >= len)
            continue;
        uintptr_t page = a & ~(uintptr_t)(page_size - 1);
        if (mmap((void *)page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                 -1, 0) == MAP_FAILED)
            break;
        uint64_t at = (uint64_t)(page > base ? page - base : 0) + 1;
        uint64_t old = atomic_load_explicit(&maps[i].shrunk_at, memory_order_relaxed);
        while ((old == 0 || at < old) &&
               !atomic_compare_exchange_weak_explicit(&maps[i].shrunk_at, &old, at,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed))
            ;
        return;
    }
    if (previous.sa_flags & SA_SIGINFO) {
        previous.sa_sigaction(sig, si, uc);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
    } else {
        signal(SIGBUS, SIG_DFL); /* and die of it, as without this handler */
        raise(SIGBUS);
    }
}

static void install(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0)
        return;
    page_size = (size_t)ps;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    handler_ok = sigaction(SIGBUS, &sa, &previous) == 0;
}

/* Takes a free slot for a mapping; -1 when all are in use. */
static int watch(const uint8_t *base, size_t len)
{
    for (int i = 0; i < MAX_MAPS; i++) {
        uintptr_t zero = 0;
        if (atomic_compare_exchange_strong(&maps[i].base, &zero, (uintptr_t)base)) {
            atomic_store(&maps[i].shrunk_at, 0);
            atomic_store(&maps[i].len, len);
            return i;
        }
    }
    return -1;
}

bool etl_map_open(struct etl_file *f)
{
    if (f->file_size == 0 || f->file_size > SIZE_MAX)
        return false;
    pthread_once(&installed, install);
    if (!handler_ok)
        return false;
    size_t len = (size_t)f->file_size;
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, f->fd, 0);
    if (m == MAP_FAILED)
        return false; /* read by copying instead */
    int slot = watch(m, len);
    if (slot < 0) {
        munmap(m, len);
        return false;
    }
    f->mem = m;
    f->map_len = len;
    f->map_slot = slot;
    return true;
}

void etl_map_close(struct etl_file *f)
{
    if (!f->map_len)
        return;
    atomic_store(&maps[f->map_slot].len, 0);
    munmap((void *)(uintptr_t)f->mem, f->map_len);
    atomic_store(&maps[f->map_slot].base, 0);
    f->mem = NULL;
    f->map_len = 0;
}

void etl_map_release(const struct etl_file *f, uint64_t off, uint64_t len)
{
    if (!f->map_len || off >= f->map_len)
        return;
    if (len > f->map_len - off)
        len = f->map_len - off;
    uintptr_t base = (uintptr_t)f->mem;
    uintptr_t from = (base + (uintptr_t)off) & ~(uintptr_t)(page_size - 1);
    uintptr_t to = base + (uintptr_t)(off + len);
    madvise((void *)from, to - from, MADV_DONTNEED);
}

bool etl_map_shrunk(const struct etl_file *f, uint64_t *at)
{
    if (!f->map_len)
        return false;
    uint64_t a = atomic_load(&maps[f->map_slot].shrunk_at);
    if (!a)
        return false;
    *at = a - 1;
    return true;
}

/* Seconds of the monotonic clock. */
static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The sum of one 64-bit word of every stride bytes of p[0..n). */
static uint64_t sum_words(const uint8_t *p, size_t n, size_t stride)
{
    uint64_t s = 0;
    for (size_t i = 0; i + 8 <= n; i += stride)
        s += etl_le64(p + i);
    return s;
}

/* The sums of the probe, kept so that the reads are not left out. */
static volatile uint64_t probe_sum;

/* Bytes read at a time by the probe, at each of its places: as many as a
 * walk copies at once (its window, reader.c), into one buffer of that size
 * as the walk does. Pieces of 256 KiB, copied into a buffer that stayed in
 * the processor's cache and read mapped where each first touch weighed on
 * a few pages, made the two ways look alike on a machine where the walk of
 * the 1 GB trace took 0.15 s mapped and 0.23 s copied (that probe: about
 * 0.55 ms a way for 4 MiB; this one, 0.55 to 0.75 ms mapped against 0.93
 * to 1.2 copied for 8 MiB). */
#define PROBE_PIECE (1u << 20)
/* Of what it reads the probe sums one word of every PROBE_STRIDE bytes, as
 * a walk reads the header of each record and seldom all of its bytes:
 * copying costs every byte copied, the mapping the pages mapped and the
 * lines read. Summing every word added the same to both ways. */
#define PROBE_STRIDE 256u
/* Places of the file the probe reads at, spread over it: a page cache may
 * hold one part of a file in large folios and the rest in 4 KiB pages (a
 * 1 GB trace written in one go was held so, the first third in large
 * folios: 4 MiB read in place there took 0.18 ms, past it 1.3 to 1.9 ms,
 * copied 0.3 ms everywhere), so that a probe of the file's start alone
 * chose the mapping for a walk that then took 0.27 s against 0.085 s
 * copied; and an hour later the same file was held in large folios but
 * for a few stretches of 4 MiB here and there, each read in place ten
 * times slower than the rest. */
#define PROBE_PLACES (ETL_MAP_PROBE / PROBE_PIECE)
/* Bytes read both ways before the timed reads: the first touch of a
 * mapping and the first copies cost several times what the next do. */
#define PROBE_WARM (1u << 20)
/* The largest folio a page cache holds a file in here (a PMD: 2 MiB on
 * x86-64): a fault in a mapping may map the whole folio around the byte
 * touched, not only the pages read. */
#define PROBE_FOLIO (2u << 20)

/* Hands back the mapped pages of the folios around [at, at + len), which a
 * read of those bytes may have mapped too: without it, each of the probe's
 * places left up to a folio mapped (the 1 GB trace's probe peaked at 16 MiB
 * of the file in memory, against 2 MiB for its pieces). */
static void probe_release(const struct etl_file *f, uint64_t at, uint64_t len)
{
    uint64_t from = at & ~(uint64_t)(PROBE_FOLIO - 1);
    uint64_t to = (at + len + PROBE_FOLIO - 1) & ~(uint64_t)(PROBE_FOLIO - 1);
    etl_map_release(f, from, to - from);
}

bool etl_map_faster(const struct etl_file *f)
{
    if (!f->map_len || f->file_size < 2u * ETL_MAP_PROBE)
        return false;
    _Static_assert(PROBE_WARM <= PROBE_PIECE, "the probe's buffer holds its warming reads");
    uint8_t *buf = malloc(PROBE_PIECE);
    if (!buf)
        return false;
    /* Its pages faulted in before the copies are timed (not with zeros:
     * malloc and a memset of zeros may become a calloc that touches none). */
    memset(buf, 0xA5, PROBE_PIECE);
    uint64_t s = sum_words(f->mem, PROBE_WARM, 8);
    bool whole = etl_pread_full(f->fd, buf, PROBE_WARM, PROBE_WARM) == PROBE_WARM;
    s += sum_words(buf, PROBE_WARM, 8);
    probe_release(f, 0, PROBE_WARM);
    /* Place k: PROBE_PIECE bytes read in place at the middle of the k-th
     * of PROBE_PLACES equal parts, and handed back as a walk hands its
     * pages back; the next as many copied. */
    uint64_t part = f->file_size / PROBE_PLACES;
    double mapped = 0, copied = 0;
    for (uint64_t k = 0; k < PROBE_PLACES && whole; k++) {
        uint64_t at = k * part + part / 2;
        if (at + 2u * PROBE_PIECE > f->file_size)
            at = f->file_size - 2u * PROBE_PIECE;
        at &= ~(uint64_t)(PROBE_FOLIO - 1);
        double t0 = seconds_now();
        s += sum_words(f->mem + at, PROBE_PIECE, PROBE_STRIDE);
        probe_release(f, at, PROBE_PIECE);
        double t1 = seconds_now();
        size_t got = etl_pread_full(f->fd, buf, PROBE_PIECE, at + PROBE_PIECE);
        s += sum_words(buf, got, PROBE_STRIDE);
        double t2 = seconds_now();
        whole = got == PROBE_PIECE;
        mapped += t1 - t0;
        copied += t2 - t1;
    }
    free(buf);
    probe_sum = s;
    /* The mapping only when clearly faster: what it costs varies from
     * place to place, and the probe sees a few places only (with the file
     * above, the probe found mapping 0.35 ms for 4 MiB against copying
     * 0.30 ms, and the walks took 0.25 s and 0.15 s); what copying costs
     * does not. The probe finds the same file, held whole in large folios,
     * between half and four fifths as long mapped as copied from one run
     * to the next (0.50 to 0.77 in 19 runs; the walks 0.155 and 0.235 s). */
    return whole && 5 * mapped < 4 * copied;
}
