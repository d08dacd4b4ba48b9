/*
 * driver.c - replays inputs through a fuzz target without libFuzzer, so that
 * `make check` runs the corpus and the regression inputs with any compiler.
 *
 * Usage: TARGET [-q] [-t SECONDS] FILE|DIR...
 * Every file given, and every regular file directly in each directory given,
 * is passed once to LLVMFuzzerTestOneInput, each in a child process of its
 * own with a time limit (default 10 s), so that one crash or hang is counted
 * and named and the others still run. ETLDUMP_FUZZ_NOFORK=1 runs them all in
 * this process instead (for debuggers and valgrind). Prints one line per
 * failing input and closes with "NAME: N passed, M failed".
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned timeout_s = 10;
static int quiet;
static int nofork;
static unsigned long passed, failed;

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

/* Runs one input; counts it as passed or failed. */
static void run_one(const char *path)
{
    size_t size = 0;
    uint8_t *data = slurp(path, &size);
    if (!data) {
        fprintf(stderr, "replay: %s: cannot read: %s\n", path, strerror(errno));
        failed++;
        return;
    }
    if (nofork) {
        LLVMFuzzerTestOneInput(data, size);
        free(data);
        passed++;
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "replay: fork: %s\n", strerror(errno));
        free(data);
        failed++;
        return;
    }
    if (pid == 0) {
        alarm(timeout_s);
        LLVMFuzzerTestOneInput(data, size);
        free(data);
        exit(0); /* exit, not _exit: leak checkers run at exit */
    }
    free(data);
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "replay: waitpid: %s\n", strerror(errno));
            failed++;
            return;
        }
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        passed++;
        if (!quiet)
            printf("ok %s\n", path);
        return;
    }
    failed++;
    if (WIFSIGNALED(st))
        fprintf(stderr, "replay: FAIL: %s: %s\n", path,
                WTERMSIG(st) == SIGALRM ? "timeout" : strsignal(WTERMSIG(st)));
    else
        fprintf(stderr, "replay: FAIL: %s: exit status %d\n", path, WEXITSTATUS(st));
}

/* Compares two strings for qsort. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file directly in dir, in name order. */
static void run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        failed++;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
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
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **nn = realloc(names, ncap * sizeof *nn);
            if (!nn) {
                free(p);
                break;
            }
            names = nn;
            cap = ncap;
        }
        names[n++] = p;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        run_one(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/');
    name = name ? name + 1 : argv[0];
    const char *nf = getenv("ETLDUMP_FUZZ_NOFORK");
    nofork = nf && *nf && strcmp(nf, "0") != 0;
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
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            run_dir(argv[i]);
        else
            run_one(argv[i]);
    }
    printf("%s: %lu passed, %lu failed\n", name, passed, failed);
    return failed ? 1 : 0;
}
