/*
 * pipeline.c - rows formatted on worker threads and written in order (see
 * pipeline.h).
 *
 * The chunks form a ring in the order they were filled. Each is FREE,
 * FILLING (the view's thread adds items), READY (waiting for a thread to
 * format it), WORKING or DONE; the view's thread writes DONE chunks from
 * the oldest on and frees them. When every chunk is in use it formats the
 * oldest READY one itself, or waits for the oldest to be done. One mutex
 * guards the states; items, kept bytes and held messages belong to the
 * view's thread while a chunk is FILLING and are only read afterwards, and
 * a chunk's formatted rows belong to the thread that formats it.
 */
#include "pipeline.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <cpuid.h>
#endif
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

/* Bytes of a keep block, and how many kept bytes end a chunk early. */
#define KEEP_BLOCK (64u * 1024u)
#define KEEP_MAX (256u * 1024u)
/* A chunk's row buffer to start with, and the most it keeps between uses. */
#define OUT_START (64u * 1024u)
#define OUT_KEEP (4u * 1024u * 1024u)
/* The cache line size assumed where threads must not share a line. */
#define LINE 64u

/* How many items ahead of the one being filled etl_pipe_slot asks for the
 * lines of, to be written. A chunk's item lines were last read by the
 * thread that formatted them, on another core: a store to one waits for
 * the line to come back. On the 2-core virtual machine of the README's
 * benchmarks that wait comes and goes with where the host runs the two
 * cores: at times the stores took 18% of a two-thread run's samples (20 M
 * compact switches to CSV: 2.9 s, 2.2 s with the lines asked for ahead),
 * at others nothing (2 M of them: 0.25 s either way, over 15 runs). Any
 * distance from 2 to 64 did as well. */
#define PREFETCH_AHEAD 8u

/* Whether the processor has x86's PREFETCHW, which asks for a line to be
 * written: the usual prefetch fetches it to be read, and the store that
 * follows still waits for the other core to give it up. */
static bool has_prefetchw(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    unsigned a, b, c, d;
    return __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & bit_PRFCHW);
#else
    return false;
#endif
}

/* Asks for the cache line of a to be brought in, to be written. */
static inline void prefetch_write(const void *a, bool prefetchw)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    if (prefetchw) {
        __asm__ volatile("prefetchw %0" : : "m"(*(const char *)a));
        return;
    }
#else
    (void)prefetchw;
#endif
#if defined(__GNUC__)
    __builtin_prefetch(a, 1, 3);
#else
    (void)a;
#endif
}

enum { C_FREE, C_FILLING, C_READY, C_WORKING, C_DONE };
enum { M_PROBLEM, M_WARNING, M_NOTE };

/* A message held until the rows before it are written. */
struct held {
    size_t at;                 /* items of its chunk before it */
    int kind;                  /* M_* */
    uint64_t offset;           /* M_PROBLEM: the file offset */
    char *text;
};

/* Bytes kept for items. */
struct keep_block {
    struct keep_block *next;
    size_t len, cap;
    unsigned char data[];
};

/* Whole cache lines each (pipe_start): a chunk being filled and one being
 * formatted share none. */
struct chunk {
    _Alignas(LINE) unsigned char *items; /* ETL_PIPE_ITEMS of item_size bytes */
    size_t n;                  /* items committed */
    size_t *ends;              /* out.len after each item was formatted */
    struct keep_block *keep;   /* newest first */
    struct keep_block *spare;  /* blocks of KEEP_BLOCK bytes the chunk used
                                * before, kept for its next use: freeing
                                * them would shrink the heap, and with two
                                * threads every shrink costs a TLB flush on
                                * every core */
    size_t kept;               /* bytes kept */
    struct held *msgs;         /* held by the view's thread */
    size_t nmsgs, msgs_cap;
    struct held *late;         /* reported by render, in item order */
    size_t nlate, late_cap;
    struct etl_out out;        /* the formatted rows */
    int state;
};

struct etl_pipe;

/* A formatting thread, its printer and its own copy of the render's
 * context: the view's thread keeps writing next to the context it passed
 * (often on its stack), and a render that read it there would wait for
 * that cache line on every row. */
struct worker {
    struct etl_pipe *pp;
    struct etl_printer *fork;
    void *ctx;                 /* whole cache lines of its own */
    unsigned index;
    pthread_t tid;
};

struct etl_pipe {
    struct etl_printer *p;
    struct etl_file *f;
    size_t item_size;
    etl_pipe_fn fn;
    void *ctx;
    size_t ctx_size;
    unsigned threads;
    bool prefetchw;            /* has_prefetchw() */
    unsigned char *one;        /* one thread: the item */
    int one_rc;
    /* Several threads. */
    struct chunk *ring;
    size_t nring;
    uint64_t next_write;       /* the oldest chunk not written */
    uint64_t filling;          /* the chunk being filled */
    struct chunk *cur;         /* that chunk, chunk_at(pp, filling): looked up
                                * by every item, without chunk_at's division */
    struct worker *w;          /* w[0]: the view's thread; w[1..]: workers */
    unsigned started;          /* workers running */
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    bool stop;                 /* workers: exit */
    bool failed;               /* stop taking items */
    struct etl_diag saved;     /* the file's message destinations */
    bool swapped;
};

/* ---- chunks -------------------------------------------------------------------- */

static struct chunk *chunk_at(struct etl_pipe *pp, uint64_t seq)
{
    return &pp->ring[seq % pp->nring];
}

/* Drops a chunk's kept bytes (its blocks of the usual size are spare
 * again) and frees its held messages; it is empty again. */
static void chunk_clear(struct chunk *c)
{
    while (c->keep) {
        struct keep_block *b = c->keep;
        c->keep = b->next;
        if (b->cap == KEEP_BLOCK) {
            b->next = c->spare;
            c->spare = b;
        } else {
            free(b);
        }
    }
    for (size_t i = 0; i < c->nmsgs; i++)
        free(c->msgs[i].text);
    for (size_t i = 0; i < c->nlate; i++)
        free(c->late[i].text);
    c->nmsgs = c->nlate = 0;
    c->n = 0;
    c->kept = 0;
    if (c->out.cap > OUT_KEEP) { /* an unusually long row: give it back */
        etl_out_fini(&c->out);
        etl_out_init_mem(&c->out, OUT_START);
    }
    etl_out_reset(&c->out);
}

static void chunk_free(struct chunk *c)
{
    chunk_clear(c);
    while (c->spare) {
        struct keep_block *b = c->spare;
        c->spare = b->next;
        free(b);
    }
    free(c->items);
    free(c->ends);
    free(c->msgs);
    free(c->late);
    etl_out_fini(&c->out);
}

/* Allocates a chunk's arrays; false when out of memory. */
static bool chunk_init(struct chunk *c, size_t item_size)
{
    memset(c, 0, sizeof *c);
    c->items = aligned_alloc(LINE, (ETL_PIPE_ITEMS * item_size + LINE - 1) / LINE * LINE);
    c->ends = malloc(ETL_PIPE_ITEMS * sizeof *c->ends);
    bool out = etl_out_init_mem(&c->out, OUT_START);
    if (!out)
        c->out.buf = NULL;
    return c->items && c->ends && out;
}

/* Formats the items of chunk c on thread t, through its printer and with
 * its copy of the context. */
static void chunk_format(struct etl_pipe *pp, struct chunk *c, unsigned t)
{
    struct etl_pipe_job job = { pp, t, c, 0 };
    struct etl_printer *w = pp->w[t].fork;
    void *ctx = pp->w[t].ctx;
    w->out = &c->out;
    c->out.err = 0;
    etl_out_reset(&c->out);
    for (size_t i = 0; i < c->n; i++) {
        job.item = i;
        if (i + PREFETCH_AHEAD < c->n) {
            const unsigned char *ahead = c->items + (i + PREFETCH_AHEAD) * pp->item_size;
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + pp->item_size - 1);
        }
        if (pp->fn(w, c->items + i * pp->item_size, ctx, &job) != 0 && !c->out.err)
            c->out.err = EIO; /* a render that failed without saying why */
        if (c->out.err)
            break;
        c->ends[i] = c->out.len;
    }
}

void etl_pipe_report(struct etl_pipe_job *job, uint64_t offset, const char *msg)
{
    struct chunk *c = job->chunk;
    if (!c) {
        etl_report(job->pp->f, offset, "%s", msg);
        return;
    }
    char *text = strdup(msg);
    if (!text || !etl_grow(&c->late, &c->late_cap, c->nlate + 1, sizeof *c->late, 8)) {
        free(text);
        c->out.err = ENOMEM; /* ends the run: the message cannot be kept */
        return;
    }
    c->late[c->nlate++] = (struct held){ job->item, M_PROBLEM, offset, text };
}

/* ---- messages ------------------------------------------------------------------ */

/* Holds a message in the chunk being filled, before its next item. */
static void hold(struct etl_pipe *pp, int kind, uint64_t offset, const char *msg)
{
    struct chunk *c = pp->cur;
    char *text = strdup(msg);
    if (!text || !etl_grow(&c->msgs, &c->msgs_cap, c->nmsgs + 1, sizeof *c->msgs, 8)) {
        free(text);
        etl_file_nomem(pp->f);
        pp->failed = true;
        return;
    }
    c->msgs[c->nmsgs++] = (struct held){ c->n, kind, offset, text };
}

static void held_problem(void *ctx, uint64_t offset, const char *msg)
{
    hold(ctx, M_PROBLEM, offset, msg);
}

static void held_warning(void *ctx, const char *msg)
{
    hold(ctx, M_WARNING, 0, msg);
}

static void held_note(void *ctx, const char *msg)
{
    hold(ctx, M_NOTE, 0, msg);
}

/* Progress is shown as it happens. */
static void pass_progress(void *ctx, uint64_t done, uint64_t total)
{
    struct etl_pipe *pp = ctx;
    if (pp->saved.progress)
        pp->saved.progress(pp->saved.ctx, done, total);
}

/* Passes a held message on to where the file's messages go. */
static void replay(struct etl_pipe *pp, const struct held *m)
{
    const struct etl_diag *d = &pp->saved;
    if (m->kind == M_PROBLEM && d->problem)
        d->problem(d->ctx, m->offset, m->text);
    else if (m->kind == M_WARNING && d->warning)
        d->warning(d->ctx, m->text);
    else if (m->kind == M_NOTE && d->note)
        d->note(d->ctx, m->text);
}

/* Reports a problem render found: counted as the file's own, as it would
 * have been with one thread. */
static void replay_late(struct etl_pipe *pp, const struct held *m)
{
    struct etl_diag mine;
    etl_file_swap_diag(pp->f, &pp->saved, &mine);
    etl_report(pp->f, m->offset, "%s", m->text);
    etl_file_swap_diag(pp->f, &mine, &pp->saved);
}

/* Writes the chunk's rows from *pos up to where item `at` starts. */
static void write_upto(struct etl_pipe *pp, const struct chunk *c, size_t at, size_t *pos)
{
    size_t end = at == 0 || pp->failed ? *pos : c->ends[at - 1];
    if (end > *pos && etl_print_raw(pp->p, c->out.buf + *pos, end - *pos) != 0)
        pp->failed = true;
    *pos = end;
}

/* Writes a formatted chunk with its messages in their places: at each
 * item, those held before it, then those its render reported. */
static void chunk_write(struct etl_pipe *pp, struct chunk *c)
{
    if (c->out.err) {
        if (!pp->p->out->err)
            pp->p->out->err = c->out.err;
        pp->failed = true;
    }
    size_t pos = 0, i = 0, j = 0;
    while (i < c->nmsgs || j < c->nlate) {
        bool held = j == c->nlate || (i < c->nmsgs && c->msgs[i].at <= c->late[j].at);
        const struct held *m = held ? &c->msgs[i++] : &c->late[j++];
        write_upto(pp, c, m->at, &pos);
        if (held)
            replay(pp, m);
        else
            replay_late(pp, m);
    }
    if (!pp->failed && c->out.len > pos &&
        etl_print_raw(pp->p, c->out.buf + pos, c->out.len - pos) != 0)
        pp->failed = true;
}

/* ---- threads ------------------------------------------------------------------- */

/* Returns the oldest READY chunk, or NULL (mutex held). */
static struct chunk *ready_chunk(struct etl_pipe *pp)
{
    for (uint64_t s = pp->next_write; s < pp->filling; s++) {
        struct chunk *c = chunk_at(pp, s);
        if (c->state == C_READY)
            return c;
    }
    return NULL;
}

/* Formats chunk c, claimed by the caller, and marks it done (mutex held on
 * entry and exit). */
static void format_claimed(struct etl_pipe *pp, struct chunk *c, unsigned t)
{
    c->state = C_WORKING;
    pthread_mutex_unlock(&pp->mu);
    chunk_format(pp, c, t);
    pthread_mutex_lock(&pp->mu);
    c->state = C_DONE;
    pthread_cond_broadcast(&pp->done);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct etl_pipe *pp = w->pp;
    pthread_mutex_lock(&pp->mu);
    for (;;) {
        struct chunk *c = ready_chunk(pp);
        if (c) {
            format_claimed(pp, c, w->index);
            continue;
        }
        if (pp->stop)
            break;
        pthread_cond_wait(&pp->work, &pp->mu);
    }
    pthread_mutex_unlock(&pp->mu);
    return NULL;
}

/* Writes the chunks done, oldest first, up to the first that is not (or,
 * with all, up to the one being filled, formatting or waiting as needed). */
static void write_done(struct etl_pipe *pp, bool all)
{
    pthread_mutex_lock(&pp->mu);
    while (pp->next_write < pp->filling) {
        struct chunk *c = chunk_at(pp, pp->next_write);
        if (c->state != C_DONE) {
            if (!all)
                break;
            struct chunk *r = ready_chunk(pp);
            if (r)
                format_claimed(pp, r, 0);
            else
                pthread_cond_wait(&pp->done, &pp->mu);
            continue;
        }
        pthread_mutex_unlock(&pp->mu);
        chunk_write(pp, c);
        chunk_clear(c);
        pthread_mutex_lock(&pp->mu);
        c->state = C_FREE;
        pp->next_write++;
    }
    pthread_mutex_unlock(&pp->mu);
}

/* Hands the chunk being filled to the threads and starts the next one,
 * making room for it first. */
static void submit(struct etl_pipe *pp)
{
#if defined(__SSE2__) && defined(__x86_64__)
    _mm_sfence(); /* the streaming stores of etl_pipe_put land first */
#endif
    pthread_mutex_lock(&pp->mu);
    pp->cur->state = C_READY;
    pp->filling++;
    pp->cur = chunk_at(pp, pp->filling);
    pthread_cond_signal(&pp->work);
    for (;;) {
        struct chunk *c = pp->cur;
        if (c->state == C_FREE) {
            c->state = C_FILLING;
            break;
        }
        /* The ring is full: the oldest chunk is written first. */
        pthread_mutex_unlock(&pp->mu);
        write_done(pp, false);
        pthread_mutex_lock(&pp->mu);
        if (pp->cur->state == C_FREE)
            continue;
        struct chunk *r = ready_chunk(pp);
        if (r)
            format_claimed(pp, r, 0);
        else if (chunk_at(pp, pp->next_write)->state != C_DONE)
            pthread_cond_wait(&pp->done, &pp->mu);
    }
    pthread_mutex_unlock(&pp->mu);
    write_done(pp, false);
}

/* Starts the workers with every asynchronous signal blocked, so that the
 * view's thread receives them; false when one cannot be started. */
static bool start_workers(struct etl_pipe *pp)
{
    sigset_t all, old;
    sigfillset(&all);
    sigdelset(&all, SIGBUS); /* faults belong to the thread that made them */
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    bool ok = true;
    for (unsigned i = 1; i < pp->threads && ok; i++) {
        pp->w[i].pp = pp;
        pp->w[i].index = i;
        ok = pthread_create(&pp->w[i].tid, NULL, worker_main, &pp->w[i]) == 0;
        pp->started += ok;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

/* Stops and joins the workers. */
static void stop_workers(struct etl_pipe *pp)
{
    pthread_mutex_lock(&pp->mu);
    pp->stop = true;
    pthread_cond_broadcast(&pp->work);
    pthread_mutex_unlock(&pp->mu);
    for (unsigned i = 1; i <= pp->started; i++)
        pthread_join(pp->w[i].tid, NULL);
    pp->started = 0;
}

/* ---- the pipeline ----------------------------------------------------------------- */

/* Frees what etl_pipe_new set up (workers stopped). */
static void pipe_free(struct etl_pipe *pp)
{
    if (pp->swapped) {
        struct etl_diag mine;
        etl_file_swap_diag(pp->f, &pp->saved, &mine);
    }
    for (size_t i = 0; pp->ring && i < pp->nring; i++)
        chunk_free(&pp->ring[i]);
    free(pp->ring);
    for (unsigned i = 0; pp->w && i < pp->threads; i++) {
        etl_printer_free(pp->w[i].fork);
        free(pp->w[i].ctx);
    }
    free(pp->w);
    if (pp->threads > 1) {
        pthread_cond_destroy(&pp->work);
        pthread_cond_destroy(&pp->done);
        pthread_mutex_destroy(&pp->mu);
    }
    free(pp->one);
    free(pp);
}

/* Sets up the chunks, forks and threads of a pipeline of several threads;
 * false when out of memory or a thread cannot be started. */
static bool pipe_start(struct etl_pipe *pp)
{
    pp->nring = 2 * (size_t)pp->threads + 2;
    pp->ring = aligned_alloc(LINE, pp->nring * sizeof *pp->ring);
    if (!pp->ring)
        return false;
    memset(pp->ring, 0, pp->nring * sizeof *pp->ring); /* before anything can fail */
    pp->w = calloc(pp->threads, sizeof *pp->w);
    if (!pp->w)
        return false;
    size_t lines = (pp->ctx_size / LINE + 1) * LINE;
    for (unsigned i = 0; i < pp->threads; i++) {
        if (!(pp->w[i].ctx = aligned_alloc(LINE, lines)))
            return false;
        memcpy(pp->w[i].ctx, pp->ctx, pp->ctx_size);
    }
    for (size_t i = 0; i < pp->nring; i++)
        if (!chunk_init(&pp->ring[i], pp->item_size))
            return false;
    for (unsigned i = 0; i < pp->threads; i++)
        if (!(pp->w[i].fork = etl_printer_fork(pp->p, &pp->ring[0].out)))
            return false;
    pp->ring[0].state = C_FILLING;
    pp->cur = &pp->ring[0];
    struct etl_diag held = { held_problem, held_warning, held_note, pass_progress, pp };
    etl_file_swap_diag(pp->f, &held, &pp->saved);
    pp->swapped = true;
    return start_workers(pp);
}

struct etl_pipe *etl_pipe_new(struct etl_printer *p, struct etl_file *f, size_t item_size,
                              etl_pipe_fn fn, void *ctx, size_t ctx_size,
                              unsigned threads)
{
    struct etl_pipe *pp = calloc(1, sizeof *pp);
    if (!pp) {
        etl_file_nomem(f);
        return NULL;
    }
    pp->p = p;
    pp->f = f;
    pp->item_size = item_size ? item_size : 1;
    pp->fn = fn;
    pp->ctx = ctx; /* one thread: handed to render as it is */
    pp->ctx_size = ctx_size;
    pp->threads = threads > 1 ? threads : 1;
    if (pp->threads == 1) {
        pp->one = malloc(pp->item_size);
        if (!pp->one) {
            free(pp);
            etl_file_nomem(f);
            return NULL;
        }
        return pp;
    }
    pp->prefetchw = has_prefetchw(); /* for etl_pipe_slot, which one thread skips */
    if (pthread_mutex_init(&pp->mu, NULL) != 0) {
        free(pp);
        etl_file_nomem(f);
        return NULL;
    }
    if (pthread_cond_init(&pp->work, NULL) != 0) {
        pthread_mutex_destroy(&pp->mu);
        free(pp);
        etl_file_nomem(f);
        return NULL;
    }
    if (pthread_cond_init(&pp->done, NULL) != 0) {
        pthread_cond_destroy(&pp->work);
        pthread_mutex_destroy(&pp->mu);
        free(pp);
        etl_file_nomem(f);
        return NULL;
    }
    if (!pipe_start(pp)) {
        stop_workers(pp);
        pipe_free(pp);
        etl_file_nomem(f);
        return NULL;
    }
    return pp;
}

void *etl_pipe_slot(struct etl_pipe *pp)
{
    if (pp->threads == 1)
        return pp->one_rc == 0 ? pp->one : NULL;
    if (pp->failed)
        return NULL;
    struct chunk *c = pp->cur;
    unsigned char *slot = c->items + c->n * pp->item_size;
    if (c->n + PREFETCH_AHEAD < ETL_PIPE_ITEMS) { /* every line of that item, once */
        const unsigned char *a = slot + PREFETCH_AHEAD * pp->item_size;
        const unsigned char *end = a + pp->item_size;
        for (a -= (uintptr_t)a % LINE; a < end; a += LINE)
            prefetch_write(a, pp->prefetchw);
    }
    return slot;
}

/* Copies n bytes from s to d, around the cache where it can: with
 * streaming stores (SSE2 on x86-64) of sixteen bytes when d and n are
 * multiples of sixteen (items of such sizes, in chunks that start on a
 * line: 20 M compact switches to CSV on two threads took 1.17 s with
 * stores of eight bytes, 1.05 s with these), of eight when they are
 * multiples of eight, else by memcpy. The stores are ordered before the
 * chunk changes hands by the fence in submit. */
static void copy_around_cache(void *d, const void *s, size_t n)
{
#if defined(__SSE2__) && defined(__x86_64__)
    if ((uintptr_t)d % 16 == 0 && n % 16 == 0) {
        const unsigned char *src = s;
        __m128i *dst = d;
        size_t k = 0;
        /* A line at a time, then what is left (the loop of one store a
         * turn cost five instructions a store). */
        for (; k + 4 <= n / 16; k += 4) {
            const __m128i *from = (const __m128i *)(const void *)(src + 16 * k);
            __m128i a = _mm_loadu_si128(from), b = _mm_loadu_si128(from + 1),
                    c = _mm_loadu_si128(from + 2), e = _mm_loadu_si128(from + 3);
            _mm_stream_si128(dst + k, a);
            _mm_stream_si128(dst + k + 1, b);
            _mm_stream_si128(dst + k + 2, c);
            _mm_stream_si128(dst + k + 3, e);
        }
        for (; k < n / 16; k++)
            _mm_stream_si128(dst + k, _mm_loadu_si128((const __m128i *)(const void *)(src + 16 * k)));
        return;
    }
    if ((uintptr_t)d % 8 == 0 && n % 8 == 0) {
        const unsigned char *src = s;
        long long *dst = d;
        for (size_t k = 0; k < n / 8; k++) {
            long long v;
            memcpy(&v, src + 8 * k, sizeof v);
            _mm_stream_si64(dst + k, v);
        }
        return;
    }
#endif
    memcpy(d, s, n);
}

int etl_pipe_put(struct etl_pipe *pp, const void *item)
{
    if (pp->threads == 1) {
        if (pp->one_rc != 0)
            return pp->one_rc;
        memcpy(pp->one, item, pp->item_size);
        return etl_pipe_commit(pp);
    }
    if (pp->failed)
        return -1;
    struct chunk *c = pp->cur;
    copy_around_cache(c->items + c->n * pp->item_size, item, pp->item_size);
    return etl_pipe_commit(pp);
}

int etl_pipe_commit(struct etl_pipe *pp)
{
    if (pp->threads == 1) {
        struct etl_pipe_job job = { pp, 0, NULL, 0 };
        if (pp->one_rc == 0)
            pp->one_rc = pp->fn(pp->p, pp->one, pp->ctx, &job);
        return pp->one_rc;
    }
    if (pp->failed)
        return -1;
    struct chunk *c = pp->cur;
    c->n++;
    if (c->n == ETL_PIPE_ITEMS || c->kept >= KEEP_MAX)
        submit(pp);
    return pp->failed ? -1 : 0;
}

const void *etl_pipe_keep(struct etl_pipe *pp, const void *p, size_t n)
{
    if (pp->threads == 1)
        return p;
    struct chunk *c = pp->cur;
    struct keep_block *b = c->keep;
    if (!b || b->cap - b->len < n) {
        size_t cap = n > KEEP_BLOCK ? n : KEEP_BLOCK;
        if (cap == KEEP_BLOCK && c->spare) {
            b = c->spare;
            c->spare = b->next;
        } else {
            b = malloc(sizeof *b + cap);
        }
        if (!b) {
            etl_file_nomem(pp->f);
            pp->failed = true;
            return NULL;
        }
        b->len = 0;
        b->cap = cap;
        b->next = c->keep;
        c->keep = b;
    }
    unsigned char *d = b->data + b->len;
    if (n)
        memcpy(d, p, n);
    b->len += (n + 7) & ~(size_t)7; /* the next copy stays aligned */
    if (b->len > b->cap)
        b->len = b->cap;
    c->kept += n;
    return d;
}

int etl_pipe_end(struct etl_pipe *pp)
{
    if (!pp)
        return 0;
    int rc;
    if (pp->threads == 1) {
        rc = pp->one_rc;
    } else {
        struct chunk *c = pp->cur;
        if (c->n || c->nmsgs)
            submit(pp);
        write_done(pp, true);
        stop_workers(pp);
        rc = pp->failed || pp->p->out->err ? -1 : 0;
    }
    pipe_free(pp);
    return rc;
}

unsigned etl_pipe_threads(unsigned threads, uint64_t work_bytes)
{
    if (threads)
        return threads < ETL_PIPE_MAX_THREADS ? threads : ETL_PIPE_MAX_THREADS;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t n = cores > 0 ? (uint64_t)cores : 1;
    if (n > ETL_PIPE_AUTO_MAX)
        n = ETL_PIPE_AUTO_MAX;
    uint64_t useful = 1 + work_bytes / ETL_PIPE_AUTO_BYTES;
    return (unsigned)(n < useful ? n : useful);
}
