/*
 * driver.c - replays inputs through a fuzz target without libFuzzer, so that
 * `make check` runs the corpus and the regression inputs with any compiler.
 *
 * Usage: TARGET [-q] [-t SECONDS] FILE|DIR...
 * Every file given, and every regular file directly in each directory given
 * (in name order), is passed once to LLVMFuzzerTestOneInput, with a time
 * limit for each (default 10 s). They run one after another in a child
 * process. One that crashes, hangs or trips a sanitizer is counted and
 * named; the inputs that child ran before it are run again in a child that
 * ends (a leak checker at its end then looks at them), and a new child goes
 * on after it. A child that fails only as it exits (a leak checker's report
 * covers every input it ran) has its inputs run again, each in a child of
 * its own, to name the ones at fault. A process a batch rather than one an
 * input: under AddressSanitizer, forking the process and checking it for
 * leaks cost about 70 ms an input, more than most inputs take.
 * ETLDUMP_FUZZ_EACH=1 gives every input a child of its own;
 * ETLDUMP_FUZZ_NOFORK=1 runs them all in this process (for debuggers and
 * valgrind). Prints one line per failing input and closes with
 * "NAME: N passed, M failed".
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned timeout_s = 10;
static int quiet;
static unsigned long passed, failed;

/* The inputs, in the order they run. */
static char **paths;
static size_t npaths, cap_paths;

/* Reads a whole file into a buffer of exactly its size (so that sanitizers
 * see reads past the input); NULL on error. */
static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(fp);
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        size_t r = fread(buf + n, 1, cap - n, fp);
        n += r;
        if (r == 0)
            break;
    }
    int err = ferror(fp);
    fclose(fp);
    if (err) {
        free(buf);
        return NULL;
    }
    /* An exact-size copy: a read one past the input is then caught. */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact)
        memcpy(exact, buf, n);
    free(buf);
    *size = n;
    return exact;
}

/* Runs one input in this process: 1 when it returned, 0 when it could not
 * be read (said on standard error). */
static int test_one(const char *path)
{
    size_t size = 0;
    uint8_t *data = slurp(path, &size);
    if (!data) {
        fprintf(stderr, "replay: %s: cannot read: %s\n", path, strerror(errno));
        return 0;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 1;
}

/* Waits for a child: its status, or -1 (said) when waiting failed. */
static int reap(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "replay: waitpid: %s\n", strerror(errno));
            return -1;
        }
    }
    return st;
}

/* Says why a child ended badly, naming what it ran. */
static void say_failed(const char *what, int st)
{
    if (st == -1)
        return;
    if (WIFSIGNALED(st))
        fprintf(stderr, "replay: FAIL: %s: %s\n", what,
                WTERMSIG(st) == SIGALRM ? "timeout" : strsignal(WTERMSIG(st)));
    else
        fprintf(stderr, "replay: FAIL: %s: exit status %d\n", what, WEXITSTATUS(st));
}

/* Counts an input that passed. */
static void pass_one(const char *path)
{
    passed++;
    if (!quiet)
        printf("ok %s\n", path);
}

/* Runs one input in a child of its own; counts it. */
static void run_each(const char *path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "replay: fork: %s\n", strerror(errno));
        failed++;
        return;
    }
    if (pid == 0) {
        alarm(timeout_s);
        exit(test_one(path) ? 0 : 2); /* exit, not _exit: leak checkers run at exit */
    }
    int st = reap(pid);
    if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        pass_one(path);
        return;
    }
    failed++;
    if (!(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 2))
        say_failed(path, st);
}

/* What a batch's child says of each input, in memory it shares with this
 * process: not reached or still running, returned, or not readable. */
enum { NOT_DONE, RETURNED, UNREADABLE };

/* Runs inputs [from, to) one after another in children: each child goes
 * on until an input fails; the one it died in is counted and the next child
 * starts after it. The inputs that returned before it are run again first,
 * in a child that ends as a child should: the one that died never reached
 * its end, where a leak checker would have spoken for them. A child leaves
 * every input after the one it stopped in NOT_DONE (done[from, to) is
 * NOT_DONE on entry). */
static void run_range(unsigned char *done, size_t from, size_t to)
{
    while (from < to) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "replay: fork: %s\n", strerror(errno));
            failed += to - from;
            return;
        }
        if (pid == 0) {
            for (size_t i = from; i < to; i++) {
                alarm(timeout_s);
                done[i] = test_one(paths[i]) ? RETURNED : UNREADABLE;
            }
            alarm(0);
            exit(0);
        }
        int st = reap(pid);
        size_t stop = from;
        while (stop < to && done[stop] != NOT_DONE)
            stop++;
        int clean = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (!clean && stop == to) {
            /* Every input returned and the child failed as it exited: run
             * them again one by one to find which. */
            fprintf(stderr, "replay: a child failed as it exited after its last input; "
                    "its %zu inputs again, each in a child of its own\n", to - from);
            unsigned long before = failed;
            for (size_t i = from; i < to; i++)
                run_each(paths[i]);
            if (failed == before) {
                /* No input fails alone: the fault is in what they did
                 * together, and still a failure. */
                failed++;
                say_failed("the inputs run together (none fails alone)", st);
            }
            return;
        }
        if (stop == to) {
            for (size_t i = from; i < to; i++) {
                if (done[i] == RETURNED)
                    pass_one(paths[i]);
                else
                    failed++;
            }
            return;
        }
        failed++;
        say_failed(paths[stop], st);
        memset(done + from, NOT_DONE, stop - from);
        run_range(done, from, stop); /* all returned once: it should end */
        from = stop + 1;
    }
}

/* Runs every input in batches (run_range). */
static void run_batches(void)
{
    if (npaths == 0)
        return; /* nothing to run (and nothing to map) */
    unsigned char *done = mmap(NULL, npaths, PROT_READ | PROT_WRITE,
                               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (done == MAP_FAILED) {
        fprintf(stderr, "replay: mmap: %s; a child an input\n", strerror(errno));
        for (size_t i = 0; i < npaths; i++)
            run_each(paths[i]);
        return;
    }
    run_range(done, 0, npaths);
    munmap(done, npaths);
}

/* Adds a path to the inputs (its copy); 0 when out of memory. */
static int add_path(const char *path)
{
    if (npaths == cap_paths) {
        size_t ncap = cap_paths ? cap_paths * 2 : 256;
        char **np = realloc(paths, ncap * sizeof *np);
        if (!np)
            return 0;
        paths = np;
        cap_paths = ncap;
    }
    char *p = strdup(path);
    if (!p)
        return 0;
    paths[npaths++] = p;
    return 1;
}

/* Compares two strings for qsort. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds every regular file directly in dir, in name order. */
static void add_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        failed++;
        return;
    }
    size_t first = npaths;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p)
            break;
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        int ok = stat(p, &st) == 0 && S_ISREG(st.st_mode) ? add_path(p) : 1;
        free(p);
        if (!ok) {
            fprintf(stderr, "replay: %s: out of memory\n", dir);
            failed++;
            break;
        }
    }
    closedir(d);
    if (npaths > first)
        qsort(paths + first, npaths - first, sizeof *paths, cmp_str);
}

/* Whether the environment variable name is set and not "0". */
static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/');
    name = name ? name + 1 : argv[0];
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-q") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            timeout_s = (unsigned)strtoul(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: %s [-q] [-t SECONDS] FILE|DIR...\n", name);
            return 2;
        }
    }
    for (; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            add_dir(argv[i]);
        } else if (!add_path(argv[i])) {
            fprintf(stderr, "replay: %s: out of memory\n", argv[i]);
            failed++;
        }
    }
    if (env_on("ETLDUMP_FUZZ_NOFORK")) {
        for (size_t k = 0; k < npaths; k++) {
            if (test_one(paths[k]))
                pass_one(paths[k]);
            else
                failed++;
        }
    } else if (env_on("ETLDUMP_FUZZ_EACH")) {
        for (size_t k = 0; k < npaths; k++)
            run_each(paths[k]);
    } else {
        run_batches();
    }
    for (size_t k = 0; k < npaths; k++)
        free(paths[k]);
    free(paths);
    printf("%s: %lu passed, %lu failed\n", name, passed, failed);
    return failed ? 1 : 0;
}
