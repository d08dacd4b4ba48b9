/*
 * spill.c - temporary files (spill.h).
 */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "sort.h"

const char *etl_temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

int etl_temp_fd(bool *nomem)
{
    const char *dir = etl_temp_dir();
#ifdef O_TMPFILE
    /* A file that never has a name (Linux): nothing is left behind, not
     * even by a run killed between making a named one and unlinking it,
     * and no other program sees one come and go. Where the kernel or the
     * file system has none, a named one, unlinked at once. */
    int tfd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (tfd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return tfd;
#endif
    size_t n = strlen(dir) + sizeof "/etldump-XXXXXX";
    char *tmpl = malloc(n);
    if (!tmpl) {
        *nomem = true;
        errno = ENOMEM;
        return -1;
    }
    snprintf(tmpl, n, "%s/etldump-XXXXXX", dir);
    int fd = mkostemp(tmpl, O_CLOEXEC);
    if (fd >= 0)
        unlink(tmpl); /* gone from the directory at once: nothing left behind */
    int e = errno;
    free(tmpl);
    errno = e;
    return fd;
}

bool etl_pwrite_full(int fd, const void *buf, size_t n, uint64_t off)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return false;
        }
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return true;
}

size_t etl_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
    char *p = buf;
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, p + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO; /* the file ended (or shrank under us) */
            break;
        }
        done += (size_t)r;
    }
    return done;
}

/* The write buffer of a file of records. */
#define SPILL_BUF (1u << 16)

struct etl_spill {
    int fd;
    uint64_t at;              /* the file's end: where the buffer goes */
    size_t used;              /* bytes in buf */
    bool broken;              /* a write failed */
    char buf[SPILL_BUF];
};

struct etl_spill *etl_spill_new(bool *nomem)
{
    struct etl_spill *s = malloc(sizeof *s);
    if (!s) {
        *nomem = true;
        return NULL;
    }
    s->fd = etl_temp_fd(nomem);
    if (s->fd < 0) {
        free(s);
        return NULL;
    }
    s->at = 0;
    s->used = 0;
    s->broken = false;
    return s;
}

/* Writes the buffer out; false after a write error. */
static bool drain(struct etl_spill *s)
{
    if (s->broken)
        return false;
    if (s->used && !etl_pwrite_full(s->fd, s->buf, s->used, s->at)) {
        s->broken = true; /* a full disk */
        return false;
    }
    s->at += s->used;
    s->used = 0;
    return true;
}

/* Appends n bytes. */
static bool put(struct etl_spill *s, const char *p, size_t n)
{
    while (n > 0) {
        if (s->used == SPILL_BUF && !drain(s))
            return false;
        size_t k = SPILL_BUF - s->used < n ? SPILL_BUF - s->used : n;
        memcpy(s->buf + s->used, p, k);
        s->used += k;
        p += k;
        n -= k;
    }
    return true;
}

bool etl_spill_append(struct etl_spill *s, const void *rec, size_t n)
{
    if (s->broken || n >= UINT32_MAX) {
        s->broken = true;
        return false;
    }
    unsigned char len[4] = { (unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                             (unsigned char)(n >> 24) };
    return put(s, (const char *)len, 4) && put(s, rec, n);
}

bool etl_spill_mark(struct etl_spill *s, uint64_t *end)
{
    if (!drain(s))
        return false;
    *end = s->at;
    return true;
}

uint64_t etl_spill_size(const struct etl_spill *s)
{
    return s->at + s->used;
}

void etl_spill_free(struct etl_spill *s)
{
    if (!s)
        return;
    close(s->fd);
    free(s);
}

/* The read buffer of a reader: a record longer than that grows it. */
#define READER_BUF (1u << 14)

struct etl_spill_reader {
    struct etl_spill *s;
    uint64_t next, end;       /* the file's bytes not yet read */
    char *buf;
    size_t cap, pos, have;    /* buf[pos, have) read, not yet taken */
};

struct etl_spill_reader *etl_spill_reader_new(struct etl_spill *s, uint64_t start,
                                              uint64_t end)
{
    struct etl_spill_reader *r = malloc(sizeof *r);
    char *buf = malloc(READER_BUF);
    if (!r || !buf) {
        free(r);
        free(buf);
        return NULL;
    }
    *r = (struct etl_spill_reader){ s, start, end, buf, READER_BUF, 0, 0 };
    return r;
}

/* Makes buf[pos, have) hold at least n bytes; 1, 0 at the end of the range
 * (nothing left), -1 on an error (short or unreadable, or memory). */
static int fill(struct etl_spill_reader *r, size_t n, bool *nomem)
{
    if (r->have - r->pos >= n)
        return 1;
    if (r->have == r->pos && r->next == r->end)
        return 0;
    memmove(r->buf, r->buf + r->pos, r->have - r->pos);
    r->have -= r->pos;
    r->pos = 0;
    if (n > r->cap) {
        if (!etl_grow(&r->buf, &r->cap, n, 1, READER_BUF)) {
            *nomem = true;
            return -1;
        }
    }
    size_t want = r->cap - r->have;
    if (want > r->end - r->next)
        want = (size_t)(r->end - r->next);
    if (etl_pread_full(r->s->fd, r->buf + r->have, want, r->next) != want)
        return -1;
    r->have += want;
    r->next += want;
    return r->have >= n ? 1 : -1; /* a record cut short */
}

int etl_spill_next(struct etl_spill_reader *r, const void **rec, size_t *n, bool *nomem)
{
    int k = fill(r, 4, nomem);
    if (k <= 0)
        return k;
    const unsigned char *p = (const unsigned char *)r->buf + r->pos;
    size_t len = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
    if (fill(r, 4 + len, nomem) <= 0)
        return -1;
    *rec = r->buf + r->pos + 4;
    *n = len;
    r->pos += 4 + len;
    return 1;
}

void etl_spill_reader_free(struct etl_spill_reader *r)
{
    if (!r)
        return;
    free(r->buf);
    free(r);
}

/* ---- merging ------------------------------------------------------------- */

struct etl_merge {
    struct etl_spill_reader **r;
    size_t n;                 /* runs; source n is more, when given */
    const void **rec;         /* each source's record */
    size_t *len;
    size_t *heap;             /* sources with a record, least first */
    size_t nheap, last;       /* last: the source whose record went out, or SIZE_MAX */
    etl_rec_cmp cmp;
    etl_rec_source more;
    void *ctx;
};

static bool heap_less(const struct etl_merge *g, size_t i, size_t j)
{
    return g->cmp(g->rec[g->heap[i]], g->rec[g->heap[j]]) < 0;
}

static void sift_down(struct etl_merge *g, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, k = i;
        if (l < g->nheap && heap_less(g, l, k))
            k = l;
        if (l + 1 < g->nheap && heap_less(g, l + 1, k))
            k = l + 1;
        if (k == i)
            return;
        size_t x = g->heap[i];
        g->heap[i] = g->heap[k];
        g->heap[k] = x;
        i = k;
    }
}

/* Reads the next record of source i: as etl_merge_next. */
static int source_next(struct etl_merge *g, size_t i, bool *nomem)
{
    if (i < g->n)
        return etl_spill_next(g->r[i], &g->rec[i], &g->len[i], nomem);
    int k = g->more(g->ctx, &g->rec[i], &g->len[i]);
    if (k < 0)
        *nomem = true;
    return k;
}

void etl_merge_free(struct etl_merge *g)
{
    if (!g)
        return;
    for (size_t i = 0; g->r && i < g->n; i++)
        etl_spill_reader_free(g->r[i]);
    free(g->r);
    free(g->rec);
    free(g->len);
    free(g->heap);
    free(g);
}

struct etl_merge *etl_merge_new(struct etl_spill *s, const struct etl_run *runs, size_t n,
                                etl_rec_cmp cmp, etl_rec_source more, void *ctx, bool *nomem)
{
    struct etl_merge *g = calloc(1, sizeof *g);
    size_t sources = n + (more != NULL);
    if (g) {
        g->cmp = cmp;
        g->more = more;
        g->ctx = ctx;
        g->last = SIZE_MAX;
        g->r = calloc(n ? n : 1, sizeof *g->r);
        g->rec = calloc(sources ? sources : 1, sizeof *g->rec);
        g->len = calloc(sources ? sources : 1, sizeof *g->len);
        g->heap = calloc(sources ? sources : 1, sizeof *g->heap);
    }
    if (!g || !g->r || !g->rec || !g->len || !g->heap) {
        etl_merge_free(g);
        *nomem = true;
        return NULL;
    }
    for (; g->n < n; g->n++) {
        g->r[g->n] = etl_spill_reader_new(s, runs[g->n].start, runs[g->n].end);
        if (!g->r[g->n]) {
            etl_merge_free(g);
            *nomem = true;
            return NULL;
        }
    }
    for (size_t i = 0; i < sources; i++) {
        int k = source_next(g, i, nomem);
        if (k < 0) {
            etl_merge_free(g);
            return NULL;
        }
        if (k > 0)
            g->heap[g->nheap++] = i;
    }
    for (size_t i = g->nheap / 2; i-- > 0;)
        sift_down(g, i);
    return g;
}

int etl_merge_next(struct etl_merge *g, const void **rec, size_t *n, bool *nomem)
{
    if (g->last != SIZE_MAX) {
        int k = source_next(g, g->last, nomem);
        if (k < 0)
            return -1;
        if (k == 0)
            g->heap[0] = g->heap[--g->nheap];
        sift_down(g, 0);
        g->last = SIZE_MAX;
    }
    if (g->nheap == 0)
        return 0;
    g->last = g->heap[0];
    *rec = g->rec[g->last];
    *n = g->len[g->last];
    return 1;
}

/* ---- sorting ------------------------------------------------------------- */

/* A record in the sorter's memory. */
struct sref {
    size_t off, len;
};

struct etl_sorter {
    etl_rec_cmp cmp;
    size_t mem_max;
    uint64_t file_max;        /* bytes the file may hold */
    char *mem;                /* the records, back to back */
    size_t used, cap;
    struct sref *refs;
    size_t n, capref, next;   /* next: the next record to give (in memory) */
    struct etl_spill *sp;
    struct etl_run *runs;
    size_t nruns, capruns;
    struct etl_merge *merge;  /* of the runs and the rest, once all are added */
    bool in_memory;           /* the file failed or is full: the rest stays in memory */
    bool done;                /* every record added */
};

struct etl_sorter *etl_sorter_new(etl_rec_cmp cmp, size_t mem, uint64_t file_max)
{
    struct etl_sorter *so = calloc(1, sizeof *so);
    if (so) {
        so->cmp = cmp;
        so->mem_max = mem;
        so->file_max = file_max;
    }
    return so;
}

static int cmp_sref(const void *a, const void *b, void *ctx)
{
    const struct etl_sorter *so = ctx;
    return so->cmp(so->mem + ((const struct sref *)a)->off, so->mem + ((const struct sref *)b)->off);
}

/* Keeps record rec[0..n) in memory; false when out of memory. */
static bool keep(struct etl_sorter *so, const void *rec, size_t n)
{
    if (!etl_grow(&so->mem, &so->cap, so->used + n, 1, 1u << 16) ||
        !etl_grow(&so->refs, &so->capref, so->n + 1, sizeof *so->refs, 1024))
        return false;
    memcpy(so->mem + so->used, rec, n);
    so->refs[so->n++] = (struct sref){ so->used, n };
    so->used += n;
    return true;
}

/* Writes the records in memory to the file as a sorted run; false when out
 * of memory. When the file fails, or would hold more than file_max bytes,
 * they stay (in_memory); the runs written before stay good. */
static bool flush(struct etl_sorter *so)
{
    bool nomem = false;
    if (etl_sorter_file_size(so) + so->used + 4 * (uint64_t)so->n > so->file_max) {
        so->in_memory = true;
        return true;
    }
    if (!so->sp && !(so->sp = etl_spill_new(&nomem))) {
        so->in_memory = true;
        return !nomem;
    }
    etl_sort(so->refs, so->n, sizeof *so->refs, cmp_sref, so);
    struct etl_run r;
    bool ok = etl_spill_mark(so->sp, &r.start);
    for (size_t i = 0; i < so->n && ok; i++)
        ok = etl_spill_append(so->sp, so->mem + so->refs[i].off, so->refs[i].len);
    if (!ok || !etl_spill_mark(so->sp, &r.end)) {
        so->in_memory = true;
        return true;
    }
    if (!etl_grow(&so->runs, &so->capruns, so->nruns + 1, sizeof *so->runs, 16))
        return false;
    so->runs[so->nruns++] = r;
    so->used = so->n = 0;
    return true;
}

bool etl_sorter_add(struct etl_sorter *so, const void *rec, size_t n)
{
    if (so->used + n > so->mem_max && so->n > 0 && !so->in_memory && !flush(so))
        return false;
    return keep(so, rec, n);
}

uint64_t etl_sorter_file_size(const struct etl_sorter *so)
{
    return so->sp ? etl_spill_size(so->sp) : 0;
}

/* Gives the records in memory in order (an etl_rec_source). */
static int kept_next(void *ctx, const void **rec, size_t *n)
{
    struct etl_sorter *so = ctx;
    if (so->next == so->n)
        return 0;
    *rec = so->mem + so->refs[so->next].off;
    *n = so->refs[so->next].len;
    so->next++;
    return 1;
}

/* Ends adding: the records in memory sorted, and merged with the runs when
 * there are some (those that stayed in memory after the file failed or
 * filled up included); false when out of memory or a run cannot be read
 * (*nomem tells). */
static bool finish(struct etl_sorter *so, bool *nomem)
{
    so->done = true;
    if (so->nruns > 0 && !so->in_memory && so->n > 0 && !flush(so)) {
        *nomem = true;
        return false;
    }
    etl_sort(so->refs, so->n, sizeof *so->refs, cmp_sref, so);
    if (so->nruns > 0)
        return (so->merge = etl_merge_new(so->sp, so->runs, so->nruns, so->cmp, kept_next, so,
                                          nomem)) != NULL;
    return true;
}

int etl_sorter_next(struct etl_sorter *so, const void **rec, size_t *n, bool *nomem)
{
    if (!so->done && !finish(so, nomem))
        return -1;
    if (so->merge)
        return etl_merge_next(so->merge, rec, n, nomem);
    return kept_next(so, rec, n);
}

void etl_sorter_free(struct etl_sorter *so)
{
    if (!so)
        return;
    etl_merge_free(so->merge);
    free(so->mem);
    free(so->refs);
    free(so->runs);
    etl_spill_free(so->sp);
    free(so);
}
