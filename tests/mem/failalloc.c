/*
 * failalloc.c - an LD_PRELOAD library that makes the Nth memory allocation
 * of a program fail, and reports the blocks still allocated at exit.
 *
 *   FAILALLOC_AT=N     fail allocation number N (1-based); 0: none fails
 *   FAILALLOC_TEMPREAD_AT=N
 *                      fail (EIO) the Nth and every later pread of a file
 *                      that has no name left (an unlinked temporary file),
 *                      as a failing disk would; 0: none fails
 *   FAILALLOC_REPORT=F write "allocations=A tempreads=R live=L failed=0|1"
 *                      to file F at exit (failed: one of the two failed)
 *
 * Counting starts at the program's first getopt_long call (main's first
 * step), so the dynamic loader's and the C library's own start-up
 * allocations are left alone. malloc, calloc, realloc and the functions
 * built on them in the C library are counted. Blocks allocated after the
 * start are tracked in a fixed table to find leaks. One lock serialises the
 * counting and the table, so a program's threads may allocate at once.
 * Allocations made inside pthread_create are counted (they may fail) but not
 * tracked: the C library keeps a joined thread's stack, and with it the
 * thread's TLS vector, for the next thread, and frees it only at its own
 * exit clean-up, after this library's report. Allocations made inside
 * dlopen (etldump loads libxml2 when first needed, and with it the libraries
 * it needs, whose constructors run there), and those of libxml2's own
 * set-up, are neither counted nor tracked, as the dynamic loader's start-up
 * ones are not.
 */
#define _GNU_SOURCE
/* pread and pread64 are both defined below: neither may stand for the
 * other. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_getopt_long)(int, char *const *, const char *, const struct option *,
                               int *);

static bool started, failed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local bool creating; /* inside pthread_create */
static _Thread_local bool loading;  /* inside dlopen */
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                                  void *);
static unsigned long count, fail_at;
static unsigned long tempreads, tempread_at;
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_pread64)(int, void *, size_t, off64_t);

/* Live blocks allocated since the start: open addressing, deletion by
 * tombstones. */
#define TABLE (1u << 22)
#define TOMB ((void *)1)
static void *live[TABLE];
static unsigned long nlive;

static size_t slot_of(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 40) & (TABLE - 1);
}

static void track(void *p)
{
    if (!p)
        return;
    for (size_t i = slot_of(p), n = 0; n < TABLE; i = (i + 1) & (TABLE - 1), n++)
        if (live[i] == NULL || live[i] == TOMB) {
            live[i] = p;
            nlive++;
            return;
        }
}

static bool untrack(void *p)
{
    if (!p)
        return false;
    for (size_t i = slot_of(p), n = 0; n < TABLE && live[i]; i = (i + 1) & (TABLE - 1), n++)
        if (live[i] == p) {
            live[i] = TOMB;
            nlive--;
            return true;
        }
    return false;
}

/* A tiny arena for dlsym's own allocations before the real functions are
 * known. */
static char early[4096];
static size_t early_used;

static void *early_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n > sizeof early - early_used)
        return NULL;
    void *p = early + early_used;
    early_used += n;
    return p;
}

static bool is_early(const void *p)
{
    return (const char *)p >= early && (const char *)p < early + sizeof early;
}

static void resolve(void)
{
    static bool busy;
    if (real_malloc || busy)
        return;
    busy = true;
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    const char *s = getenv("FAILALLOC_AT");
    fail_at = s ? strtoul(s, NULL, 10) : 0;
    s = getenv("FAILALLOC_TEMPREAD_AT");
    tempread_at = s ? strtoul(s, NULL, 10) : 0;
    busy = false;
}

/* Counts one allocation; true if this one must fail. */
static bool must_fail(void)
{
    if (!started || loading)
        return false;
    count++;
    if (fail_at && count == fail_at) {
        failed = true;
        return true;
    }
    return false;
}

void *malloc(size_t n)
{
    resolve();
    if (!real_malloc)
        return early_alloc(n);
    pthread_mutex_lock(&lock);
    void *p = NULL;
    if (must_fail())
        errno = ENOMEM;
    else if ((p = real_malloc(n)) != NULL && started && !creating && !loading)
        track(p);
    pthread_mutex_unlock(&lock);
    return p;
}

void *calloc(size_t a, size_t b)
{
    resolve();
    if (!real_calloc) {
        void *p = b && a > SIZE_MAX / b ? NULL : early_alloc(a * b);
        if (p)
            memset(p, 0, a * b);
        return p;
    }
    pthread_mutex_lock(&lock);
    void *p = NULL;
    if (must_fail())
        errno = ENOMEM;
    else if ((p = real_calloc(a, b)) != NULL && started && !creating && !loading)
        track(p);
    pthread_mutex_unlock(&lock);
    return p;
}

void *realloc(void *old, size_t n)
{
    resolve();
    if (is_early(old)) {
        void *p = malloc(n);
        if (p)
            memcpy(p, old, n < sizeof early ? n : sizeof early);
        return p;
    }
    pthread_mutex_lock(&lock);
    void *p = NULL;
    if (must_fail()) {
        errno = ENOMEM;
    } else {
        bool was = untrack(old);
        p = real_realloc(old, n);
        if (p && started && !creating && !loading)
            track(p);
        else if (!p && was)
            track(old); /* the old block is still allocated */
    }
    pthread_mutex_unlock(&lock);
    return p;
}

void free(void *p)
{
    if (!p || is_early(p))
        return;
    resolve();
    pthread_mutex_lock(&lock);
    untrack(p);
    real_free(p);
    pthread_mutex_unlock(&lock);
}

int getopt_long(int argc, char *const argv[], const char *opts, const struct option *lo,
                int *li)
{
    if (!real_getopt_long)
        real_getopt_long = (int (*)(int, char *const *, const char *, const struct option *,
                                    int *))dlsym(RTLD_NEXT, "getopt_long");
    started = true;
    return real_getopt_long(argc, argv, opts, lo, li);
}

/* Counts a pread of fd; true if this one must fail: the Nth or a later
 * one of a file whose name is gone. */
static bool read_must_fail(int fd)
{
    if (!started)
        return false;
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 0)
        return false;
    target[n] = '\0';
    static const char deleted[] = " (deleted)";
    size_t k = sizeof deleted - 1;
    if ((size_t)n < k || strcmp(target + n - k, deleted) != 0)
        return false;
    pthread_mutex_lock(&lock);
    tempreads++;
    bool fail = tempread_at && tempreads >= tempread_at;
    failed = failed || fail;
    pthread_mutex_unlock(&lock);
    return fail;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    if (!real_pread)
        real_pread = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    if (read_must_fail(fd)) {
        errno = EIO;
        return -1;
    }
    return real_pread(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    if (!real_pread64)
        real_pread64 = (ssize_t (*)(int, void *, size_t, off64_t))dlsym(RTLD_NEXT, "pread64");
    if (read_must_fail(fd)) {
        errno = EIO;
        return -1;
    }
    return real_pread64(fd, buf, n, off);
}

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    if (!real_pthread_create)
        real_pthread_create = (int (*)(pthread_t *, const pthread_attr_t *,
                                       void *(*)(void *), void *))dlsym(RTLD_NEXT,
                                                                        "pthread_create");
    creating = true;
    int rc = real_pthread_create(t, a, fn, arg);
    creating = false;
    return rc;
}

void *dlopen(const char *file, int mode)
{
    static void *(*real_dlopen)(const char *, int);
    if (!real_dlopen)
        real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    loading = true;
    void *h = real_dlopen(file, mode);
    /* libxml2's own set-up is done here too, as part of its load: its
     * xmlInitParser allocates its mutexes with malloc and goes on without
     * them when that fails, which no caller can see (etldump's call to it
     * then finds it done). */
    void (*init)(void) = NULL;
    void *sym = h ? dlsym(h, "xmlInitParser") : NULL;
    if (sym) {
        memcpy(&init, &sym, sizeof sym);
        init();
    }
    loading = false;
    return h;
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("FAILALLOC_REPORT");
    if (!path)
        return;
    pthread_mutex_lock(&lock);
    unsigned long n = count, l = nlive, r = tempreads;
    started = false;
    pthread_mutex_unlock(&lock); /* the program is done: nothing more is counted */
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "allocations=%lu tempreads=%lu live=%lu failed=%d\n", n, r, l, failed ? 1 : 0);
    fclose(f);
}
