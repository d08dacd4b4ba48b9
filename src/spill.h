/*
 * spill.h - temporary files: files of records for what would not fit in
 * memory, and the helpers every temporary file uses.
 *
 * A temporary file is made in TMPDIR (else /tmp) and removed at once, so it
 * goes away with the process whatever happens. A file of records is
 * written at its end only, through a buffer, each record after its length;
 * readers read back a range of it in order.
 */
#ifndef ETLDUMP_SPILL_H
#define ETLDUMP_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Makes a temporary file with no name (O_TMPFILE, or unlinked at once);
 * returns its descriptor, or -1 (errno set; *nomem set when memory ran
 * out). */
int etl_temp_fd(bool *nomem);
/* The directory etl_temp_fd makes its files in: $TMPDIR, or /tmp. */
const char *etl_temp_dir(void);

/* Writes all of buf[0..n) at off; false (errno set) on an error. */
bool etl_pwrite_full(int fd, const void *buf, size_t n, uint64_t off);

/* Reads up to n bytes at off, fewer only where the file ends or on an
 * error; returns the bytes read (errno set when fewer: EIO at the end). */
size_t etl_pread_full(int fd, void *buf, size_t n, uint64_t off);

struct etl_spill;

/* Makes a file of records; NULL when it cannot be made, and *nomem set
 * when memory is out. */
struct etl_spill *etl_spill_new(bool *nomem);

/* Appends record rec[0..n); false after a write error (or n of 4 GiB or
 * more): the file then takes nothing more, and what it held before the
 * last etl_spill_mark stays readable. */
bool etl_spill_append(struct etl_spill *s, const void *rec, size_t n);

/* Writes out what is buffered and returns the file's end, where the next
 * record goes; false after a write error. Records before a mark that
 * returned true can be read back. */
bool etl_spill_mark(struct etl_spill *s, uint64_t *end);

/* Bytes appended so far (buffered or not). */
uint64_t etl_spill_size(const struct etl_spill *s);

/* Closes the file (NULL is fine). */
void etl_spill_free(struct etl_spill *s);

struct etl_spill_reader;

/* Reads back the records in [start, end) of s (both from etl_spill_mark).
 * NULL when memory is out. */
struct etl_spill_reader *etl_spill_reader_new(struct etl_spill *s, uint64_t start,
                                              uint64_t end);

/* The next record: 1 with *rec and *n set (valid until the next call), 0
 * at the end of the range, -1 when it cannot be read (an error of the
 * file, or memory out: *nomem set). */
int etl_spill_next(struct etl_spill_reader *r, const void **rec, size_t *n, bool *nomem);

void etl_spill_reader_free(struct etl_spill_reader *r);

/* ---- merging and sorting records ---- */

/* A run: the records of [start, end) of a file, in order. */
struct etl_run {
    uint64_t start, end;
};

/* Orders two records: <0, 0 or >0. It must tell every two apart. */
typedef int (*etl_rec_cmp)(const void *a, const void *b);

/* Gives the next record of a source in order: 1 with *rec and *n set
 * (valid until the next call), 0 at its end, -1 when out of memory. */
typedef int (*etl_rec_source)(void *ctx, const void **rec, size_t *n);

struct etl_merge;

/* Merges runs[0..n) of s, and the records of more(ctx) when more is not
 * NULL, into one order; NULL when out of memory or a run cannot be read
 * (*nomem tells). */
struct etl_merge *etl_merge_new(struct etl_spill *s, const struct etl_run *runs, size_t n,
                                etl_rec_cmp cmp, etl_rec_source more, void *ctx, bool *nomem);

/* The next record in order: 1 (valid until the next call), 0 at the end,
 * -1 when a run cannot be read (*nomem set when memory ran out). */
int etl_merge_next(struct etl_merge *g, const void **rec, size_t *n, bool *nomem);

void etl_merge_free(struct etl_merge *g);

struct etl_sorter;

/* Sorts records by cmp: mem bytes of them at a time in memory, each such
 * batch written to a file of records as a run, the runs merged at the end.
 * The file holds at most file_max bytes. Without a file, and from when it
 * fails or is full, the records stay in memory and are merged with the runs
 * written before. NULL when out of memory. */
struct etl_sorter *etl_sorter_new(etl_rec_cmp cmp, size_t mem, uint64_t file_max);

/* Adds record rec[0..n); false when out of memory. */
bool etl_sorter_add(struct etl_sorter *so, const void *rec, size_t n);

/* The bytes the sorter's file holds (0 without one). */
uint64_t etl_sorter_file_size(const struct etl_sorter *so);

/* The next record in order, once every one is added: as etl_merge_next. */
int etl_sorter_next(struct etl_sorter *so, const void **rec, size_t *n, bool *nomem);

void etl_sorter_free(struct etl_sorter *so);

#endif
