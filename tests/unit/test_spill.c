/*
 * Unit tests for temporary files of records (src/spill.c): records of every
 * size read back as written, runs merged in order (with a source in
 * memory after them), and the sorter, in memory, in runs on a file,
 * without a place for its file, with a file that fills up or fails.
 */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "spill.h"
#include "unit.h"

/* The state of the generator (unit_rand). */
static uint64_t rng = 88172645463325252ull;

/* A test record: key, id (unique), then len - 8 bytes that follow from
 * both. */
static size_t make_rec(unsigned char *buf, uint32_t key, uint32_t id, size_t len)
{
    memcpy(buf, &key, 4);
    memcpy(buf + 4, &id, 4);
    for (size_t i = 8; i < len; i++)
        buf[i] = (unsigned char)(key * 31u + id * 7u + i);
    return len;
}

/* Checks that rec[0..n) is a test record; returns its key and id. (One
 * assertion a record: Check writes each one down.) */
static void check_rec(const void *rec, size_t n, uint32_t *key, uint32_t *id)
{
    const unsigned char *p = rec;
    ck_assert_uint_ge(n, 8);
    memcpy(key, p, 4);
    memcpy(id, p + 4, 4);
    size_t bad = 0;
    for (size_t i = 8; i < n; i++)
        bad += p[i] != (unsigned char)(*key * 31u + *id * 7u + i);
    ck_assert_msg(bad == 0, "record %u/%u: %zu bytes differ", *key, *id, bad);
}

static int cmp_rec(const void *a, const void *b)
{
    uint32_t ka, kb, ia, ib;
    memcpy(&ka, a, 4);
    memcpy(&kb, b, 4);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    memcpy(&ia, (const char *)a + 4, 4);
    memcpy(&ib, (const char *)b + 4, 4);
    return ia < ib ? -1 : ia > ib;
}

static unsigned char big[200000];

START_TEST(records_read_back)
{
    bool nomem = false;
    struct etl_spill *s = etl_spill_new(&nomem);
    ck_assert_ptr_nonnull(s);
    /* Lengths around the reader's and the writer's buffers (16 and 64 KiB). */
    static const size_t lens[] = { 8, 9, 100, 16380, 16384, 16392, 65532, 65536, 70000,
                                   8, 199999, 12, 40000 };
    size_t nl = sizeof lens / sizeof lens[0];
    struct etl_run run[2];
    ck_assert(etl_spill_mark(s, &run[0].start));
    for (size_t i = 0; i < nl; i++)
        ck_assert(etl_spill_append(s, big, make_rec(big, (uint32_t)i, 1, lens[i])));
    ck_assert(etl_spill_mark(s, &run[0].end));
    run[1].start = run[0].end;
    for (size_t i = 0; i < 1000; i++)
        ck_assert(etl_spill_append(s, big, make_rec(big, (uint32_t)i, 2, 8 + i % 50)));
    ck_assert(etl_spill_mark(s, &run[1].end));
    ck_assert_uint_eq(etl_spill_size(s), run[1].end);
    for (int r = 1; r >= 0; r--) { /* either run alone, the later one first */
        struct etl_spill_reader *rd = etl_spill_reader_new(s, run[r].start, run[r].end);
        ck_assert_ptr_nonnull(rd);
        const void *rec;
        size_t n, got = 0;
        uint32_t key, id;
        while (etl_spill_next(rd, &rec, &n, &nomem) == 1) {
            check_rec(rec, n, &key, &id);
            ck_assert_uint_eq(key, got);
            ck_assert_uint_eq(id, (unsigned)r + 1);
            ck_assert_uint_eq(n, r == 0 ? lens[got] : 8 + got % 50);
            got++;
        }
        ck_assert_uint_eq(got, r == 0 ? nl : 1000);
        ck_assert(!nomem);
        etl_spill_reader_free(rd);
    }
    /* A range that ends inside a record is an error, not a short record. */
    struct etl_spill_reader *rd = etl_spill_reader_new(s, run[0].start, run[0].start + 20);
    const void *rec;
    size_t n;
    ck_assert_int_eq(etl_spill_next(rd, &rec, &n, &nomem), 1);
    ck_assert_int_eq(etl_spill_next(rd, &rec, &n, &nomem), -1);
    ck_assert(!nomem);
    etl_spill_reader_free(rd);
    etl_spill_free(s);
}
END_TEST

/* The memory source of the merge: keys from a sorted array. */
struct mem_src {
    const uint32_t *keys;
    size_t n, next;
    unsigned char buf[64];
};

static int mem_next(void *ctx, const void **rec, size_t *n)
{
    struct mem_src *m = ctx;
    if (m->next == m->n)
        return 0;
    *n = make_rec(m->buf, m->keys[m->next], 1000000u + (uint32_t)m->next, 20);
    m->next++;
    *rec = m->buf;
    return 1;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

START_TEST(runs_merge_in_order)
{
    enum { RUNS = 7, PER = 300, MEM = 250 };
    bool nomem = false;
    struct etl_spill *s = etl_spill_new(&nomem);
    ck_assert_ptr_nonnull(s);
    struct etl_run runs[RUNS];
    uint32_t keys[PER];
    for (int r = 0; r < RUNS; r++) {
        size_t per = r == 3 ? 0 : PER; /* an empty run too */
        for (size_t i = 0; i < per; i++)
            keys[i] = (uint32_t)(unit_rand(&rng) % 500);
        qsort(keys, per, sizeof *keys, cmp_u32);
        ck_assert(etl_spill_mark(s, &runs[r].start));
        for (size_t i = 0; i < per; i++) {
            size_t len = make_rec(big, keys[i], (uint32_t)((size_t)r * PER + i),
                                  8 + (size_t)(unit_rand(&rng) % 300));
            ck_assert(etl_spill_append(s, big, len));
        }
        ck_assert(etl_spill_mark(s, &runs[r].end));
    }
    uint32_t mk[MEM];
    for (size_t i = 0; i < MEM; i++)
        mk[i] = (uint32_t)(unit_rand(&rng) % 500);
    qsort(mk, MEM, sizeof *mk, cmp_u32);
    struct mem_src src = { mk, MEM, 0, { 0 } };
    struct etl_merge *g = etl_merge_new(s, runs, RUNS, cmp_rec, mem_next, &src, &nomem);
    ck_assert_ptr_nonnull(g);
    const void *rec;
    size_t n, got = 0;
    unsigned char last[8] = { 0 };
    bool seen[RUNS * PER] = { false }, seen_mem[MEM] = { false };
    while (etl_merge_next(g, &rec, &n, &nomem) == 1) {
        uint32_t key, id;
        check_rec(rec, n, &key, &id);
        if (got)
            ck_assert_int_lt(cmp_rec(last, rec), 0);
        memcpy(last, rec, 8);
        if (id >= 1000000u) {
            ck_assert(!seen_mem[id - 1000000u]);
            seen_mem[id - 1000000u] = true;
        } else {
            ck_assert(!seen[id]);
            seen[id] = true;
        }
        got++;
    }
    ck_assert_uint_eq(got, (RUNS - 1) * PER + MEM);
    etl_merge_free(g);
    etl_spill_free(s);
}
END_TEST

/* A sorter of records of random keys in mem bytes, its file taking at most
 * file_max, given records 0..n-1; NULL when one could not be added. (No
 * assertion until it is filled: Check's own file of results must not meet
 * the file size limit of sorter_file_fails_midway.) */
static struct etl_sorter *fill_sorter(size_t n, size_t mem, uint64_t file_max)
{
    struct etl_sorter *so = etl_sorter_new(cmp_rec, mem, file_max);
    bool ok = so != NULL;
    for (size_t i = 0; i < n && ok; i++)
        ok = etl_sorter_add(so, big, make_rec(big, (uint32_t)(unit_rand(&rng) % 1000),
                                              (uint32_t)i, 8 + (size_t)(unit_rand(&rng) % 200)));
    if (!ok) {
        etl_sorter_free(so);
        return NULL;
    }
    return so;
}

/* Checks that so gives its n records in order, each once, and frees it. */
static void check_sorted(struct etl_sorter *so, size_t n)
{
    ck_assert_ptr_nonnull(so);
    bool *seen = calloc(n ? n : 1, 1);
    ck_assert_ptr_nonnull(seen);
    const void *rec;
    size_t len, got = 0;
    bool nomem = false;
    unsigned char last[8];
    int k;
    while ((k = etl_sorter_next(so, &rec, &len, &nomem)) == 1) {
        uint32_t key, id;
        check_rec(rec, len, &key, &id);
        ck_assert_uint_lt(id, n);
        ck_assert(!seen[id]);
        seen[id] = true;
        if (got)
            ck_assert_int_lt(cmp_rec(last, rec), 0);
        memcpy(last, rec, 8);
        got++;
    }
    ck_assert_int_eq(k, 0);
    ck_assert_uint_eq(got, n);
    free(seen);
    etl_sorter_free(so);
}

/* Sorts n records in mem bytes, the file taking at most file_max, and
 * checks them; returns the bytes that went to the file. */
static uint64_t check_sorter(size_t n, size_t mem, uint64_t file_max)
{
    struct etl_sorter *so = fill_sorter(n, mem, file_max);
    ck_assert_ptr_nonnull(so);
    uint64_t on_file = etl_sorter_file_size(so);
    check_sorted(so, n);
    return on_file;
}

START_TEST(sorter_in_memory_and_runs)
{
    ck_assert_uint_eq(check_sorter(0, 1000, UINT64_MAX), 0);
    ck_assert_uint_eq(check_sorter(1, 1000, UINT64_MAX), 0);
    ck_assert_uint_eq(check_sorter(500, 1u << 20, UINT64_MAX), 0); /* all in memory */
    /* About 140 runs, about 330 KB: all of it. */
    ck_assert_uint_gt(check_sorter(3000, 4096, UINT64_MAX), 300000);
    ck_assert_uint_gt(check_sorter(600, 1, UINT64_MAX), 60000); /* a run a record */
}
END_TEST

/* A file that may hold 40000 bytes takes the runs that fit, and the rest
 * stays in memory, merged with them. */
START_TEST(sorter_file_full)
{
    uint64_t on_file = check_sorter(3000, 4096, 40000);
    ck_assert_uint_gt(on_file, 30000);
    ck_assert_uint_le(on_file, 40000);
    ck_assert_uint_eq(check_sorter(3000, 4096, 0), 0);
}
END_TEST

/* A file that fails part of the way (files limited to 16 KiB, as on a full
 * disk): the runs written before it stay good, merged with the rest in
 * memory. */
START_TEST(sorter_file_fails_midway)
{
    struct rlimit old, lim;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = 16384;
    int set = setrlimit(RLIMIT_FSIZE, &lim);
    struct etl_sorter *so = fill_sorter(3000, 4096, UINT64_MAX);
    uint64_t on_file = so ? etl_sorter_file_size(so) : 0;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, was);
    ck_assert_int_eq(set, 0);
    /* Some runs, then a write that failed: about 330 KB would have gone. */
    ck_assert_uint_gt(on_file, 0);
    ck_assert_uint_le(on_file, 16384 + 4096 + 4 * 4096);
    check_sorted(so, 3000);
}
END_TEST

START_TEST(sorter_without_a_file)
{
    const char *old = getenv("TMPDIR");
    char *keep = old ? strdup(old) : NULL;
    setenv("TMPDIR", "/nonexistent-etldump-test-dir", 1);
    bool nomem = false;
    ck_assert_int_eq(etl_temp_fd(&nomem), -1);
    ck_assert(!nomem);
    ck_assert_ptr_null(etl_spill_new(&nomem));
    ck_assert(!nomem);
    ck_assert_uint_eq(check_sorter(3000, 4096, UINT64_MAX), 0); /* all in memory */
    if (keep)
        setenv("TMPDIR", keep, 1);
    else
        unsetenv("TMPDIR");
    free(keep);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("spill");
    TCase *tc = tcase_create("spill");
    tcase_add_test(tc, records_read_back);
    tcase_add_test(tc, runs_merge_in_order);
    tcase_add_test(tc, sorter_in_memory_and_runs);
    tcase_add_test(tc, sorter_without_a_file);
    tcase_add_test(tc, sorter_file_full);
    tcase_add_test(tc, sorter_file_fails_midway);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
