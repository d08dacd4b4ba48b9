/* Preloaded (LD_PRELOAD) into the runs of tests/hostile.sh: ends the
 * process by SIGALRM after ALARM_SECONDS seconds (default 10) of wall time,
 * as timeout(1) would, without a process of its own for each run (the
 * sweep makes thousands of runs, and a process costs milliseconds here).
 * SIGALRM's default action ends every thread of the process: a loop or a
 * deadlock ends alike, with status 142 (128 + 14) in the shell. */
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void arm(void)
{
    const char *s = getenv("ALARM_SECONDS");
    unsigned long n = s ? strtoul(s, NULL, 10) : 10ul;
    if (n)
        alarm((unsigned)(n > 86400ul ? 86400ul : n));
}
