/*
 * pipeline.h - a view's rows formatted on several threads and written in
 * order.
 *
 * A view that reads its records in one order (the merge of the processors'
 * streams, the scheduling state) hands each row's record to the pipeline as
 * an item of fixed size, and a render function turns items into rows
 * through a printer. With one thread, render runs at once on the view's
 * printer: the single-threaded path, no thread is created. With N threads,
 * items gather into chunks; N - 1 worker threads and the view's own thread
 * render whole chunks into memory, each through its own fork of the
 * printer (etl_printer_fork), and the view's thread writes the chunks in
 * order (etl_print_raw). The output is the same bytes whatever N.
 *
 * Messages. While a pipeline runs, the file's problems, warnings and notes
 * are held in the chunk being filled, at the position of the next item,
 * and passed on (to the printer and the tool) when the chunk is written:
 * in the same order relative to the rows as with one thread. Problems are
 * counted when they are reported, so --strict stops where it did.
 *
 * Memory: a bounded number of chunks (twice the threads and two more), each
 * of at most ETL_PIPE_ITEMS items and their kept bytes, and the formatted
 * rows of those in flight. Running out of memory anywhere, a worker's
 * formatting or starting a thread included, ends the run as out of memory.
 */
#ifndef ETLDUMP_PIPELINE_H
#define ETLDUMP_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"
#include "print/printer.h"

/* Most items a chunk holds. */
#define ETL_PIPE_ITEMS 2048u
/* Most threads a pipeline uses. */
#define ETL_PIPE_MAX_THREADS 64u

/* What a render function is formatting: which thread (0: the view's own,
 * 1 and up: the workers) and, for etl_pipe_report, which item. */
struct etl_pipe_job {
    struct etl_pipe *pp;
    unsigned thread;
    void *chunk;               /* NULL with one thread */
    size_t item;
};

/* Prints the rows of one item through p (etl_print_row); 0, or -1 after an
 * error (p->out keeps it). Called on any of the pipeline's threads: it may
 * only read what the view does not change while the pipeline runs, and
 * what belongs to its job's thread. */
typedef int (*etl_pipe_fn)(struct etl_printer *p, const void *item, void *ctx,
                           struct etl_pipe_job *job);

struct etl_pipe;

/* Starts a pipeline of items of item_size bytes, rendered by fn(ctx) into
 * rows of p's current table, over `threads` threads (0 and 1: one). With
 * several threads each gets its own copy of the ctx_size bytes at ctx, taken
 * here, on cache lines no other thread writes (render reads only the copy:
 * what ctx points to is shared). NULL when out of memory or a thread cannot
 * be started (f is marked). */
struct etl_pipe *etl_pipe_new(struct etl_printer *p, struct etl_file *f, size_t item_size,
                              etl_pipe_fn fn, void *ctx, size_t ctx_size,
                              unsigned threads);

/* Returns room for the next item (its contents undefined), or NULL once the
 * pipeline has failed (a write error, or memory ran out: f is marked). */
void *etl_pipe_slot(struct etl_pipe *pp);

/* Takes the item filled in at etl_pipe_slot's pointer; 0, or -1 once the
 * pipeline has failed. */
int etl_pipe_commit(struct etl_pipe *pp);

/* Takes a copy of the item built at item (item_size bytes), as
 * etl_pipe_slot, a copy and etl_pipe_commit would: the way for a view with
 * other threads. The copy goes around the cache (streaming stores, with
 * SSE2 on x86-64): a slot's lines were last read by the thread that
 * formatted them, and the stores of an ordinary copy each wait for a line
 * to come back from that thread's core. Items of a multiple of sixteen
 * bytes go sixteen at a time (chunks start on a cache line). */
int etl_pipe_put(struct etl_pipe *pp, const void *item);

/* Returns a copy of n bytes at p that lives as long as the next item
 * committed (with one thread, p itself: render runs at once), or NULL when
 * out of memory (f is marked). */
const void *etl_pipe_keep(struct etl_pipe *pp, const void *p, size_t n);

/* Writes every item committed and the messages held, stops the threads and
 * frees the pipeline (NULL is allowed). 0, or -1 after a write error or when
 * memory ran out. */
int etl_pipe_end(struct etl_pipe *pp);

/* Reports a problem with the item being rendered, at a file offset: with
 * one thread at once; else it is counted and passed on when the item's rows
 * are written, after the messages held before the item. A view that stops
 * at the first problem (--strict) must not report from its render function
 * with several threads. */
void etl_pipe_report(struct etl_pipe_job *job, uint64_t offset, const char *msg);

/* Returns how many threads to use when asked for `threads` (0: as many as
 * useful, up to the processors online and ETL_PIPE_AUTO_MAX) over
 * work_bytes of input. Asked for a number, that number (at most
 * ETL_PIPE_MAX_THREADS); else one thread per ETL_PIPE_AUTO_BYTES. */
unsigned etl_pipe_threads(unsigned threads, uint64_t work_bytes);
#define ETL_PIPE_AUTO_MAX 8u
#define ETL_PIPE_AUTO_BYTES (4u * 1024u * 1024u)

#endif
