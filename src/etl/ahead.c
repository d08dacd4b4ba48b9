/*
 * ahead.c - compressed buffers decompressed ahead of a walk in file order,
 * on other threads (see internal.h).
 *
 * Decompressing is the one step of loading a buffer that touches nothing
 * of the file's state: given the compressed bytes and the size they expand
 * to, it is a pure function. So the reader keeps every other step (checks,
 * problems, the budget of inflated bytes, progress) in order on its own
 * thread, and only asks here, just before it would decompress buffer i,
 * whether a helper has done so already. Helpers look at the buffers after
 * the one the reader is at, in order, and decompress those that are
 * compressed and plausible (a decompressed size the reader would accept)
 * into slots of their own, leaving every (threads + 1)-th buffer to the
 * reader, which also parses every event: so it does not only wait. A
 * buffer the reader reaches first it decompresses itself, and the helpers
 * skip it. The bytes the reader gets are the same either way, and so is
 * every message.
 *
 * Only files read in place (mapped, or a memory block) are read ahead: the
 * helpers never read the file through a descriptor the reader also uses.
 * The reader maps every file with compressed buffers for them (reader.c).
 *
 * The merge of the processors' streams (stream.c) loads buffers in no
 * order the helpers could follow through the file: the next is the one of
 * the stream whose next event is earliest. There each stream has a slot of
 * its own (a lane) and, having loaded a buffer, posts the one it will load
 * next (etl_ahead_post); helpers take the posted buffers in the order they
 * came. A buffer the reader reaches before a helper has begun it, the
 * reader decompresses itself, as before.
 */
#include "etl/internal.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "etl/lz77.h"

/* Slots per helper: how far ahead of the reader the helpers go. */
#define SLOTS_PER_THREAD 4u
/* Bytes of all the slots together at most (each holds one buffer). */
#define SLOT_BYTES_MAX (16u * 1024u * 1024u)

enum { S_FREE, S_WORKING, S_DONE, S_QUEUED };

/* One buffer decompressed ahead (or being). */
struct slot {
    size_t idx;                /* index entry */
    int state;
    bool ok;                   /* it ran (memory was there) */
    const uint8_t *z;          /* what was decompressed: the input ... */
    size_t zlen, out;          /* ... its length and the output's */
    uint8_t *mem;              /* the buffer: header room, then the output */
    size_t cap;
    enum etl_lz77_status st;
    size_t used;
    size_t made;               /* bytes of output it produced */
    bool in_fifo;              /* a merge's: its lane is in the fifo */
};

struct etl_ahead {
    const struct etl_file *f;  /* read only: mem, ents, nents, file_size, max_buf */
    pthread_t tid[ETL_AHEAD_MAX_THREADS];
    unsigned started;
    pthread_mutex_t mu;
    pthread_cond_t cv;         /* a slot changed state, or the reader moved on */
    struct slot *slots;
    size_t nslots;
    size_t next;               /* the next entry a helper looks at */
    size_t taken;              /* entries below this are the reader's */
    size_t stride;             /* entries i with i % stride == 0: the reader's */
    bool stop;
    bool nomem;                /* a helper could not allocate a slot's buffer */
    bool posted;               /* ahead of a merge: slot k is lane k's */
    unsigned *fifo;            /* then the lanes posted, oldest first (each once) */
    size_t fhead, fn;
};

/* Whether entry i is a compressed buffer the reader would decompress, and
 * what from and to: the same checks and values as etl_load_buffer's, read
 * from the file in place. */
static bool candidate(const struct etl_file *f, size_t i, const uint8_t **z, size_t *zlen,
                      size_t *out)
{
    uint64_t off = ETL_ENT_OFFSET(&f->ents[i]);
    if (ETL_ENT_UNREAD(&f->ents[i])) /* not read */
        return false;
    struct etl_buffer b;
    etl_entry_header(f, &f->ents[i], f->mem + off, &b); /* the index holds whole headers */
    if (!(b.flags & ETL_BUF_FLAG_COMPRESSED))
        return false;
    uint64_t size = b.size;
    if (size > f->file_size - off)
        size = f->file_size - off;
    if (size < ETL_BUF_HEADER_SIZE || b.saved_offset < ETL_BUF_HEADER_SIZE ||
        b.saved_offset > f->max_buf)
        return false;
    *z = f->mem + off + ETL_BUF_HEADER_SIZE;
    *zlen = (size_t)size - ETL_BUF_HEADER_SIZE;
    *out = b.saved_offset - ETL_BUF_HEADER_SIZE;
    return true;
}

/* A free slot, or NULL (mutex held). */
static struct slot *free_slot(struct etl_ahead *a)
{
    for (size_t k = 0; k < a->nslots; k++)
        if (a->slots[k].state == S_FREE)
            return &a->slots[k];
    return NULL;
}

/* The next buffer of a walk in file order for a helper: a slot set to it,
 * S_WORKING, its input and output in it; NULL when there is none to take
 * now (a slot may free up), and *done when none is left (mutex held). */
static struct slot *next_in_order(struct etl_ahead *a, bool *done)
{
    const struct etl_file *f = a->f;
    for (;;) {
        if (a->next < a->taken)
            a->next = a->taken;
        if (a->next >= f->nents) {
            *done = true; /* nothing left to do */
            return NULL;
        }
        const uint8_t *z;
        size_t zlen, out;
        if (a->next % a->stride == 0 || !candidate(f, a->next, &z, &zlen, &out)) {
            a->next++;
            continue;
        }
        struct slot *s = free_slot(a);
        if (!s)
            return NULL;
        s->idx = a->next++;
        s->z = z;
        s->zlen = zlen;
        s->out = out;
        return s;
    }
}

/* The same ahead of a merge: the oldest lane posted whose buffer is still
 * to be done. */
static struct slot *next_posted(struct etl_ahead *a)
{
    while (a->fn > 0) {
        struct slot *s = &a->slots[a->fifo[a->fhead]];
        a->fhead = (a->fhead + 1) % a->nslots;
        a->fn--;
        s->in_fifo = false;
        if (s->state != S_QUEUED)
            continue; /* taken back by the reader, or posted again and done */
        if (!candidate(a->f, s->idx, &s->z, &s->zlen, &s->out)) {
            s->state = S_FREE;
            continue;
        }
        return s;
    }
    return NULL;
}

static void *helper_main(void *arg)
{
    struct etl_ahead *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!a->stop) {
        bool done = false;
        struct slot *s = a->posted ? next_posted(a) : next_in_order(a, &done);
        if (done)
            break;
        if (!s) {
            pthread_cond_wait(&a->cv, &a->mu);
            continue;
        }
        s->state = S_WORKING;
        s->ok = false;
        s->used = s->made = 0;
        const uint8_t *z = s->z;
        size_t zlen = s->zlen, out = s->out;
        pthread_mutex_unlock(&a->mu);
        size_t need = ETL_BUF_HEADER_SIZE + out;
        if (s->cap < need) {
            uint8_t *m = realloc(s->mem, need);
            if (m) {
                s->mem = m;
                s->cap = need;
            }
        }
        if (s->cap >= need) {
            s->st = etl_lz77_decompress_made(z, zlen, s->mem + ETL_BUF_HEADER_SIZE, out,
                                             &s->used, &s->made);
            s->ok = true;
        }
        pthread_mutex_lock(&a->mu);
        a->nomem |= !s->ok; /* the reader does it itself; the run ends as out of memory */
        s->state = S_DONE; /* freed by the reader: taken, or passed by */
        pthread_cond_broadcast(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* Starts `helpers` helpers over nslots slots (posted: ahead of a merge);
 * *out NULL when there are none to start; false when memory or a thread
 * could not be had. */
static bool ahead_new(const struct etl_file *f, unsigned helpers, size_t nslots, bool posted,
                      struct etl_ahead **out)
{
    *out = NULL;
    if (helpers > ETL_AHEAD_MAX_THREADS)
        helpers = ETL_AHEAD_MAX_THREADS;
    size_t fit = SLOT_BYTES_MAX / f->max_buf;
    if (nslots > fit)
        nslots = fit;
    if (nslots == 0 || helpers == 0)
        return true; /* buffers too large to keep several: read in turn */
    if (helpers > nslots)
        helpers = (unsigned)nslots; /* a helper a slot at most */
    struct etl_ahead *a = calloc(1, sizeof *a);
    if (!a)
        return false;
    a->slots = calloc(nslots, sizeof *a->slots);
    a->fifo = posted ? calloc(nslots, sizeof *a->fifo) : NULL;
    if (!a->slots || (posted && !a->fifo) || pthread_mutex_init(&a->mu, NULL) != 0) {
        free(a->fifo);
        free(a->slots);
        free(a);
        return false;
    }
    if (pthread_cond_init(&a->cv, NULL) != 0) {
        pthread_mutex_destroy(&a->mu);
        free(a->fifo);
        free(a->slots);
        free(a);
        return false;
    }
    a->f = f;
    a->nslots = nslots;
    a->stride = (size_t)helpers + 2;
    a->posted = posted;
    /* Asynchronous signals stay with the reader's thread; faults (SIGBUS on
     * a file that shrank, map.c) belong to the thread that made them. */
    sigset_t all, old;
    sigfillset(&all);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (unsigned i = 0; i < helpers; i++) {
        if (pthread_create(&a->tid[i], NULL, helper_main, a) != 0)
            break;
        a->started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (a->started < helpers) { /* as the pipeline's threads: out of memory */
        etl_ahead_stop(a);
        return false;
    }
    *out = a;
    return true;
}

bool etl_ahead_start(const struct etl_file *f, unsigned threads, struct etl_ahead **out)
{
    *out = NULL;
    if (threads < 2 || !f->mem || f->totals.compressed == 0 || f->max_buf == 0)
        return true;
    unsigned helpers = threads - 1;
    if (helpers > ETL_AHEAD_MAX_THREADS)
        helpers = ETL_AHEAD_MAX_THREADS;
    return ahead_new(f, helpers, (size_t)helpers * SLOTS_PER_THREAD, false, out);
}

bool etl_ahead_start_merge(const struct etl_file *f, unsigned threads, size_t lanes,
                           struct etl_ahead **out)
{
    *out = NULL;
    if (threads < 2 || !f->mem || f->totals.compressed == 0 || f->max_buf == 0)
        return true;
    return ahead_new(f, threads - 1, lanes, true, out);
}

void etl_ahead_post(struct etl_ahead *a, size_t lane, size_t idx)
{
    if (!a || !a->posted || lane >= a->nslots)
        return;
    pthread_mutex_lock(&a->mu);
    struct slot *s = &a->slots[lane];
    /* Not over a buffer a helper is at (the reader may wait for it), nor
     * over the same buffer done. */
    if (s->state != S_WORKING && !(s->state == S_DONE && s->idx == idx)) {
        s->idx = idx;
        s->state = S_QUEUED;
        if (!s->in_fifo) {
            a->fifo[(a->fhead + a->fn) % a->nslots] = (unsigned)lane;
            a->fn++;
            s->in_fifo = true;
        }
        pthread_cond_broadcast(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
}

bool etl_ahead_take(struct etl_ahead *a, size_t idx, const uint8_t *z, size_t zlen,
                    size_t out, uint8_t **mem, size_t *cap, enum etl_lz77_status *st,
                    size_t *used, size_t *made)
{
    pthread_mutex_lock(&a->mu);
    if (idx + 1 > a->taken)
        a->taken = idx + 1;
    struct slot *mine = NULL;
    for (size_t k = 0; k < a->nslots; k++) {
        struct slot *s = &a->slots[k];
        if (s->state == S_FREE)
            continue;
        if (s->idx == idx)
            mine = s;
        else if (!a->posted && s->idx < idx && s->state == S_DONE)
            s->state = S_FREE; /* a buffer the reader skipped */
    }
    bool got = false;
    if (mine) {
        while (mine->state == S_WORKING)
            pthread_cond_wait(&a->cv, &a->mu);
        if (mine->state == S_DONE && mine->ok && mine->z == z && mine->zlen == zlen &&
            mine->out == out) {
            uint8_t *m = *mem;
            size_t c = *cap;
            *mem = mine->mem;
            *cap = mine->cap;
            mine->mem = m;
            mine->cap = c;
            *st = mine->st;
            *used = mine->used;
            *made = mine->made;
            got = true;
        }
        mine->state = S_FREE;
    }
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return got;
}

bool etl_ahead_stop(struct etl_ahead *a)
{
    if (!a)
        return true;
    pthread_mutex_lock(&a->mu);
    a->stop = true;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    for (unsigned i = 0; i < a->started; i++)
        pthread_join(a->tid[i], NULL);
    for (size_t k = 0; k < a->nslots; k++)
        free(a->slots[k].mem);
    free(a->slots);
    free(a->fifo);
    bool ok = !a->nomem;
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    free(a);
    return ok;
}
