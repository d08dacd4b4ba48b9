/*
 * peak.c - runs a command and prints its peak resident memory in KiB on
 * standard error as "peak KIB", then exits with the command's status.
 *
 *   peak COMMAND [ARG]...
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: peak COMMAND [ARG]...\n");
        return 2;
    }
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
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0) {
        perror("wait4");
        return 2;
    }
    fprintf(stderr, "peak %ld\n", ru.ru_maxrss);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}
