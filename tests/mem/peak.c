/*
 * peak.c - runs a command and prints its peak resident memory in KiB on
 * standard error as "peak KIB", then exits with the command's status.
 *
 *   peak COMMAND [ARG]...
 *
 * Environment (the tests start thousands of runs, and every other process
 * they would start for these costs as much as a run):
 *   PEAK_FILE=PATH   the peak goes to PATH instead, as "KIB" on a line of
 *                    its own (PATH emptied first), standard error being
 *                    the command's alone;
 *   PEAK_TIMEOUT=N   the command is killed (SIGKILL) when it has not ended
 *                    within N seconds, and peak exits 124, as timeout(1).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t expired;

static void on_alarm(int sig)
{
    (void)sig;
    expired = 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: peak COMMAND [ARG]...\n");
        return 2;
    }
    const char *path = getenv("PEAK_FILE");
    if (path && *path) {
        FILE *f = fopen(path, "w"); /* a run that dies leaves no old figure */
        if (!f) {
            perror(path);
            return 2;
        }
        fclose(f);
    }
    const char *limit = getenv("PEAK_TIMEOUT");
    unsigned secs = limit ? (unsigned)strtoul(limit, NULL, 10) : 0;
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror(argv[1]);
        _exit(127);
    }
    if (secs) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm; /* no SA_RESTART: wait4 returns EINTR */
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
        alarm(secs);
    }
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0) {
        if (errno != EINTR) {
            perror("wait4");
            return 2;
        }
        if (expired)
            kill(pid, SIGKILL);
    }
    if (path && *path) {
        FILE *f = fopen(path, "w");
        int bad = !f;
        if (f) {
            bad = fprintf(f, "%ld\n", ru.ru_maxrss) < 0;
            bad |= fclose(f) != 0;
        }
        if (bad) {
            perror(path);
            return 2;
        }
    } else {
        fprintf(stderr, "peak %ld\n", ru.ru_maxrss);
    }
    if (expired)
        return 124;
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}
