/*
 * main.c - etldump's command line: options, inputs and the output file,
 * messages on standard error and the exit status. Everything else is the
 * library (etldump.h).
 *
 * The output file is never written in place: a regular file named by -o is
 * written to a temporary file beside it and renamed over it only when the
 * run ends, so that a failed or interrupted run leaves the old file as it
 * was; -o naming any input is refused before anything is opened for
 * writing.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "etldump.h"

#ifndef ETLDUMP_VERSION
#define ETLDUMP_VERSION "0.1"
#endif

/* Exit statuses (documented in etldump(1)). */
enum {
    EXIT_CLEAN = 0,      /* everything read */
    EXIT_DAMAGED = 1,    /* output complete, but damaged data was skipped */
    EXIT_USAGE = 2,      /* bad command line */
    EXIT_INPUT = 3,      /* an input could not be read or is not ETL */
    EXIT_WRITE = 4,      /* output could not be written */
    EXIT_NOMEM = 5,      /* out of memory, or a temporary file lost */
    EXIT_NO_LIBXML2 = 6, /* libxml2 was needed and could not be loaded */
};

/* Messages about one file beyond this many are only counted. */
#define MAX_MESSAGES 50

/* The most threads --threads takes. */
#define MAX_THREADS 64u

/* Progress is shown for inputs larger than this, on a terminal. */
#define PROGRESS_MIN (256ull * 1024 * 1024)

static const char *progname = "etldump";

/* The lists of --groupmask given more than once, joined (run's; freed by
 * main). */
static char *gm_joined;

/* The name messages give standard input. */
static const char stdin_name[] = "(standard input)";

/* ---- messages ------------------------------------------------------------ */

static struct {
    unsigned long shown;      /* problems shown about the current file */
    bool quiet;               /* --quiet: no notes, warnings or progress */
    bool progress_ok;         /* standard error is a terminal */
    bool progress_on;         /* a progress line is on the screen */
    bool progress_begun;      /* the current file has reported progress */
    uint64_t begun_at;        /* its bytes done at the first report */
    struct timespec start, last; /* the first report, the last shown */
} msg;

/* Declares a function whose arguments from f on are formatted like printf
 * by the format at argument f (a: 0 for a va_list). */
#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* Writes lead, "etldump: ", text and end to standard error in one write,
 * a control character in text (C0, DEL, C1 in UTF-8), which a file name or
 * an option's value may hold, shown as \xNN as the text view shows one:
 * a message stays one line, and a terminal receives no control sequence. */
static void put_line(const char *lead, const char *text, const char *end)
{
    const unsigned char *t = (const unsigned char *)text;
    size_t len = strlen(text);
    size_t need = strlen(lead) + strlen(progname) + 2 + 4 * len + strlen(end) + 1;
    char small[4096];
    /* The usual message fits on the stack: saying it allocates nothing. */
    char *line = need <= sizeof small ? small : malloc(need);
    if (!line) {
        fprintf(stderr, "%s%s: %s%s", lead, progname, text, end);
        return;
    }
    size_t o = (size_t)sprintf(line, "%s%s: ", lead, progname);
    for (size_t i = 0; i < len; i++) {
        unsigned c = t[i];
        if (c == 0xC2 && t[i + 1] >= 0x80 && t[i + 1] < 0xA0) {
            c = t[++i]; /* a C1 control character, U+0080 to U+009F */
        } else if (c >= 0x20 && c != 0x7F) {
            line[o++] = (char)c;
            continue;
        }
        o += (size_t)sprintf(line + o, "\\x%02x", c);
    }
    o += (size_t)sprintf(line + o, "%s", end);
    fwrite(line, 1, o, stderr);
    if (line != small)
        free(line);
}

/* Writes "etldump: " and the message (formatted like printf) as one line
 * on standard error (put_line). */
static void vsay(const char *fmt, va_list ap) PRINTF_LIKE(1, 0);
static void vsay(const char *fmt, va_list ap)
{
    char small[1024], *text = small;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0)
        small[0] = '\0';
    else if ((size_t)n >= sizeof small && (text = malloc((size_t)n + 1)) != NULL)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    else
        text = small; /* fits, or memory is out and the message is cut */
    va_end(again);
    put_line("", text, "\n");
    if (text != small)
        free(text);
}

static void say(const char *fmt, ...) PRINTF_LIKE(1, 2);
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

/* Erases the progress line, if one is shown. */
static void progress_erase(void)
{
    if (msg.progress_on) {
        fputs("\r\033[K", stderr);
        msg.progress_on = false;
    }
}

/* Prints a problem found in a file: "etldump: FILE: offset 0x...: message". */
static void on_problem(void *ctx, const char *name, uint64_t offset, const char *text)
{
    (void)ctx;
    if (++msg.shown > MAX_MESSAGES)
        return;
    progress_erase();
    say("%s: offset 0x%llx: %s", name, (unsigned long long)offset, text);
}

/* Prints a warning about a file: "etldump: FILE: warning: message". A warning
 * does not change the exit status. */
static void on_warning(void *ctx, const char *name, const char *text)
{
    (void)ctx;
    if (msg.quiet)
        return;
    progress_erase();
    say("%s: warning: %s", name, text);
}

/* Prints a note about a file: "etldump: FILE: note: message". */
static void on_note(void *ctx, const char *name, const char *text)
{
    (void)ctx;
    if (msg.quiet)
        return;
    progress_erase();
    say("%s: note: %s", name, text);
}

/* Prints why a file cannot be read: "etldump: FILE: reason". */
static void on_unreadable(void *ctx, const char *name, const char *text)
{
    (void)ctx;
    progress_erase();
    say("%s: %s", name, text);
}

/* Returns the seconds from a to b. */
static double seconds(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Shows "etldump: FILE: 42% 310 MB/s 0:12 left" on a terminal, at most four
 * times a second, for large inputs. */
static void on_progress(void *ctx, const char *name, uint64_t done, uint64_t total)
{
    (void)ctx;
    if (msg.quiet || !msg.progress_ok || total < PROGRESS_MIN)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!msg.progress_begun) {
        /* The rate counts from here: what came before (the index, a
         * pass over the processes) is not reading at the rate to come. */
        msg.progress_begun = true;
        msg.start = now;
        msg.begun_at = done;
    }
    if (msg.progress_on && seconds(&msg.last, &now) < 0.25)
        return;
    msg.last = now;
    double t = seconds(&msg.start, &now);
    unsigned pct = done >= total ? 100 : (unsigned)(done * 100 / total);
    char text[1024];
    if (t < 0.25 || done <= msg.begun_at) { /* too soon for a rate: it would promise hours */
        snprintf(text, sizeof text, "%s: %u%%", name, pct);
    } else {
        double rate = (double)(done - msg.begun_at) / t;
        double left = rate > 0 && total > done ? (double)(total - done) / rate : 0;
        snprintf(text, sizeof text, "%s: %u%% %.0f MB/s %u:%02u left", name, pct, rate / 1e6,
                 (unsigned)left / 60, (unsigned)left % 60);
    }
    put_line("\r\033[K", text, "");
    msg.progress_on = true;
}

static const struct etl_messages messages = {
    NULL, on_problem, on_warning, on_note, on_unreadable, on_progress,
};

/* ---- the output file ----------------------------------------------------- */

/* The temporary file being written, removed if the run is interrupted. */
static char *tmp_path;

/* Removes the temporary output and dies of the signal. */
static void on_signal(int sig)
{
    if (tmp_path)
        unlink(tmp_path); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Has on_signal catch sig, unless it is ignored (nohup, a background job of
 * a shell without job control): such a run goes on as it would have. */
static void catch_signal(int sig)
{
    struct sigaction now;
    if (sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_IGN)
        return;
    signal(sig, on_signal);
}

/* The file that name, a path to no existing file, stands for: where a
 * chain of symbolic links that ends nowhere points (as a shell's > would
 * create it there), else name itself. Malloc'd; NULL when out of memory
 * (errno ENOMEM). */
static char *link_target(const char *name)
{
    char *path = strdup(name);
    for (int hops = 0; path && hops < 40; hops++) { /* 40: the kernel's own limit */
        char to[4096];
        ssize_t n = readlink(path, to, sizeof to - 1);
        if (n < 0 || (size_t)n == sizeof to - 1)
            break; /* not a link (or one too long to follow): this is the file */
        to[n] = '\0';
        const char *slash = strrchr(path, '/');
        size_t dir = to[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1;
        char *next = malloc(dir + (size_t)n + 1);
        if (next) {
            memcpy(next, path, dir);
            memcpy(next + dir, to, (size_t)n + 1);
        }
        free(path);
        path = next;
    }
    if (!path)
        errno = ENOMEM;
    return path;
}

/* Where the output goes. */
struct output {
    const char *name;         /* as given, or NULL for standard output */
    char *target;             /* the file the temporary one replaces */
    int fd;
    bool existed;             /* target is a file that was there */
    bool discarded;           /* the temporary file was removed, not renamed */
};

/* Opens the output: standard output, a device or FIFO as it is, or a
 * temporary file beside a regular file. Returns 0, or the exit status after
 * a message. */
static int output_open(struct output *o, const char *name)
{
    o->name = name;
    o->target = NULL;
    o->fd = STDOUT_FILENO;
    o->existed = false;
    o->discarded = false;
    if (!name)
        return 0;
    struct stat st;
    bool exists = stat(name, &st) == 0;
    if (!exists && errno != ENOENT) {
        say("%s: %s", name, strerror(errno));
        return EXIT_WRITE;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device, FIFO or socket: written as it is. */
        o->fd = open(name, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0) {
            say("%s: %s", name, strerror(errno));
            return EXIT_WRITE;
        }
        return 0;
    }
    /* A file the user may not write is left alone, as a shell's > would
     * leave it, though its directory would let it be replaced. */
    if (exists && faccessat(AT_FDCWD, name, W_OK, AT_EACCESS) != 0) {
        say("%s: %s", name, strerror(errno));
        return EXIT_WRITE;
    }
    /* Through a symbolic link, the file it names is replaced, or made. */
    o->existed = exists;
    o->target = exists ? realpath(name, NULL) : link_target(name);
    if (!o->target) {
        if (errno == ENOMEM) {
            say("out of memory");
            return EXIT_NOMEM;
        }
        say("%s: %s", name, strerror(errno));
        return EXIT_WRITE;
    }
    const char *slash = strrchr(o->target, '/');
    size_t dir = slash ? (size_t)(slash - o->target) + 1 : 0;
    size_t n = dir + sizeof ".etldump-XXXXXX";
    tmp_path = malloc(n);
    if (!tmp_path) {
        say("out of memory");
        free(o->target);
        return EXIT_NOMEM;
    }
    memcpy(tmp_path, o->target, dir);
    memcpy(tmp_path + dir, ".etldump-XXXXXX", sizeof ".etldump-XXXXXX");
    o->fd = mkstemp(tmp_path);
    if (o->fd < 0) {
        say("%s: cannot create a temporary file beside it: %s", name, strerror(errno));
        free(tmp_path);
        tmp_path = NULL;
        free(o->target);
        return EXIT_WRITE;
    }
    /* The new file gets the old one's permissions, or the usual ones. */
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    /* The old file's owner and group too, where the user may give them (root
     * replacing another user's file); should that fail, the file is the
     * user's, and should fchmod fail, it keeps mkstemp's owner-only
     * permissions. */
    if (exists && (st.st_uid != geteuid() || st.st_gid != getegid()))
        (void)!fchown(o->fd, st.st_uid, st.st_gid);
    (void)fchmod(o->fd, mode);
    catch_signal(SIGINT);
    catch_signal(SIGTERM);
    catch_signal(SIGHUP);
    catch_signal(SIGQUIT);
    return 0;
}

/* Ends the output: the temporary file replaces the target when keep is
 * true, else it is removed (discarded). Returns 0, or the errno of a
 * failure. */
static int output_close(struct output *o, bool keep)
{
    int err = 0;
    if (o->name && close(o->fd) != 0)
        err = errno;
    if (tmp_path) {
        if (keep && !err && rename(tmp_path, o->target) != 0)
            err = errno;
        if (!keep || err) {
            unlink(tmp_path);
            o->discarded = true;
        }
        free(tmp_path);
        tmp_path = NULL;
    }
    free(o->target);
    return err;
}

/* Whether the file named path is the output's (so); false when it cannot
 * be looked at. */
static bool same_file(const char *path, const struct stat *so)
{
    struct stat si;
    bool std = strcmp(path, "-") == 0;
    return (std ? fstat(STDIN_FILENO, &si) : stat(path, &si)) == 0 &&
           si.st_dev == so->st_dev && si.st_ino == so->st_ino;
}

/* Returns true if the output (-o output, or standard output when output is
 * NULL: a shell's >> onto an input) is the same file as an input: one of the
 * n inputs, or extra (the file of --logger-context; NULL: none). */
static bool output_is_input(const char *output, char **inputs, int n, const char *extra,
                            const char **which)
{
    struct stat so;
    if (output ? stat(output, &so) != 0
               : fstat(STDOUT_FILENO, &so) != 0 || !S_ISREG(so.st_mode))
        return false;
    for (int i = 0; i < n; i++) {
        if (same_file(inputs[i], &so)) {
            *which = strcmp(inputs[i], "-") == 0 ? stdin_name : inputs[i];
            return true;
        }
    }
    if (extra && strcmp(extra, "-") != 0 && same_file(extra, &so)) {
        *which = extra;
        return true;
    }
    return false;
}

/* ---- options --------------------------------------------------------------- */

static void usage(FILE *to)
{
    fprintf(to,
        "usage: %s [OPTION]... FILE...\n"
        "Dump Windows Event Trace Log (ETL) files: context switches by default.\n"
        "FILE - reads standard input (also a pipe or a FIFO).\n"
        "\n"
        "Views (one at a time; the default is context switches):\n"
        "      --info               summary of the trace header, with what the trace\n"
        "                           records by name: logger mode, clock type, group\n"
        "                           masks and their changes (reads every event)\n"
        "      --stats              census: events per header kind and HookId or\n"
        "                           provider, per CPU, buffers, bytes, time span\n"
        "      --events[=all]       every event record in time order, with its name\n"
        "                           and decoded payload\n"
        "      --events=NAMES       the same for events of these names or name\n"
        "                           prefixes, e.g. Process,Image/Load\n"
        "      --no-fields          with --events: rows without the decoded payload\n"
        "                           (no fields column); event_name stays\n"
        "      --summary            per process, thread and CPU: CPU time, switch-ins,\n"
        "                           mean and longest run, waits and their reasons,\n"
        "                           ready time, who readied, migrations; CPU busy,\n"
        "                           idle, DPC and ISR time; then the DPC and ISR\n"
        "                           routines (not in CSV)\n"
        "      --summary=routines   the DPC and ISR routines by time only\n"
        "      --usage[=INTERVAL]   CPU time per process in each INTERVAL (seconds, or\n"
        "                           with s, ms or us; default: about 100 intervals)\n"
        "\n"
        "Filters (rows are chosen after switches are linked and figures computed):\n"
        "      --cpu=LIST           processors, e.g. 0,2-3\n"
        "      --tid=LIST           thread IDs (a switch matches by its old or new thread)\n"
        "      --pid=LIST           process IDs (likewise)\n"
        "      --process=NAMES      image names, comma-separated, any case; a name\n"
        "                           without extension also matches NAME.exe\n"
        "      --range=START:END    seconds since the trace started; either may be empty\n"
        "      --hook=LIST          HookIds or event names, e.g. 0x0501-0x0504,Image/Load\n"
        "                           (--events, --stats)\n"
        "\n"
        "Output:\n"
        "  -f, --format=FORMAT      text (default), csv, xml or json; or, of the\n"
        "                           context switches of one FILE, perfetto (a binary\n"
        "                           trace for ui.perfetto.dev: -o or a pipe) or svg\n"
        "                           (a timeline)\n"
        "      --time=MODE          rel (seconds since the trace started, default),\n"
        "                           raw (clock ticks), abs (UTC, ISO 8601) or local\n"
        "                           (the recording machine's time and UTC offset)\n"
        "  -o, --output=FILE        write to FILE instead of standard output; it is\n"
        "                           replaced only when the run succeeds, and never\n"
        "                           when it is one of the inputs or read-only\n"
        "      --crlf               CSV lines end in CRLF (default: LF)\n"
        "      --csv-formulas       CSV strings from the trace that begin with =, +, -,\n"
        "                           @, tab or CR as they are (default: an apostrophe\n"
        "                           first, so that a spreadsheet shows them as text)\n"
        "      --no-header          no header row (CSV) or header lines (text)\n"
        "  -H, --with-filename      a first column `file` on every row (the default\n"
        "                           with more than one input)\n"
        "      --no-filename        no `file` column, even with several inputs\n"
        "  -q, --quiet              no notes, warnings or progress (errors still shown)\n"
        "\n"
        "Decoding:\n"
        "      --max-wait-reason=N  MaximumWaitReason of the traced kernel, used to\n"
        "                           decode compact context switches (default: from\n"
        "                           the Windows build in the trace)\n"
        "      --strict             stop at the first damaged data\n"
        "      --threads=N          format rows and read ahead on N threads (default:\n"
        "                           the processors online, at most 8, fewer for small\n"
        "                           inputs; 1: no other thread); the output is the\n"
        "                           same whatever N\n"
        "\n"
        "Decoding without a trace (no FILE, no view):\n"
        "      --groupmask=LIST     the PERFINFO_GROUPMASK of LIST: PERF_* and\n"
        "                           EVENT_TRACE_FLAG_* names and 32-bit values\n"
        "                           (0x20000004: top 3 bits the mask, low 29 the\n"
        "                           bits), comma-separated; one row per mask\n"
        "      --logger-context=FILE[@OFFSET]\n"
        "                           decode the WMI_LOGGER_CONTEXT at OFFSET (default\n"
        "                           0, decimal or 0x hex) of a raw memory image\n"
        "      --windows=VERSION    its layout: 6.1, 6.2, 6.3 or 10.0 (required)\n"
        "      --arch=ARCH          x86 or x64 (required)\n"
        "\n"
        "  -h, --help               show this help and exit\n"
        "  -V, --version            show the version and exit\n"
        "\n"
        "Exit status: 0 clean, 1 damaged data skipped, 2 usage error,\n"
        "3 an input could not be read or is not ETL, 4 write error,\n"
        "5 out of memory or a temporary file lost, 6 libxml2 needed (-f xml,\n"
        "EventSource manifests) and not loadable.\n",
        progname);
}

/* Writes standard output's last bytes; 0, or EXIT_WRITE after a message. */
static int flush_stdout(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return EXIT_CLEAN;
    int e = errno ? errno : EIO;
    if (e == EPIPE)
        return EXIT_CLEAN; /* the reader of a pipe went away */
    say("standard output: %s", strerror(e));
    return EXIT_WRITE;
}

/* A usage error: the message (formatted like printf), the hint, the
 * status. */
static int usage_error(const char *fmt, ...) PRINTF_LIKE(1, 2);
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", progname);
    return EXIT_USAGE;
}

/* The usage error for arg, a long option getopt_long refused: one it does
 * not know, an abbreviation of several, or one that takes no value given
 * one (getopt's optopt is then the option's code, not a character). */
static int long_option_error(const struct option *opts, const char *arg)
{
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    const struct option *hit = NULL;
    int hits = 0;
    char several[512] = "";
    for (const struct option *o = opts; len > 0 && o->name; o++) {
        if (strncmp(o->name, name, len) != 0)
            continue;
        if (o->name[len] == '\0') { /* the whole name: no abbreviation */
            hit = o;
            hits = 1;
            break;
        }
        hit = o;
        hits++;
        size_t used = strlen(several);
        snprintf(several + used, sizeof several - used, "%s--%s", used ? ", " : "", o->name);
    }
    if (hits == 1 && hit->has_arg == no_argument && name[len] == '=')
        return usage_error("option '--%s' takes no value", hit->name);
    if (hits > 1)
        return usage_error("option '--%.*s' is ambiguous: %s", (int)len, name, several);
    if (len == 0)
        return usage_error("unknown option '%s'", arg);
    return usage_error("unknown option '--%.*s'", (int)len, name);
}

/* Parses an unsigned number (decimal or 0x hex) within [lo, hi]. */
static bool parse_uint(const char *s, unsigned long lo, unsigned long hi,
                       unsigned long *out)
{
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    if (!(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits)))
        return false; /* no sign, no blanks (strtoul would take them) */
    char *end;
    errno = 0;
    unsigned long v = strtoul(digits, &end, hex ? 16 : 10); /* 010 is ten, not octal */
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Checks the options of --groupmask and --logger-context (which read no ETL
 * file); false after a usage message. */
static bool names_options(const char *gm_list, const char *lc_spec, const char *windows,
                          const char *arch, bool view, int nfiles)
{
    const char *opt = gm_list ? "--groupmask" : "--logger-context";
    char err[256];
    if (gm_list && lc_spec) {
        say("choose one of --groupmask and --logger-context");
        return false;
    }
    if (view || nfiles) {
        say("%s takes no view option and no input FILE", opt);
        return false;
    }
    if ((gm_list && etl_groupmask_check(gm_list, err, sizeof err) != 0) ||
        (lc_spec && etl_logger_context_check(windows, arch, err, sizeof err) != 0)) {
        say("%s", err);
        return false;
    }
    return true;
}

/* --logger-context: decodes and prints one WMI_LOGGER_CONTEXT; returns the
 * exit status. */
static int logger_context(struct etl_printer *p, const char *spec, const char *windows,
                          const char *arch)
{
    char err[512];
    int rc = etl_run_logger_context(p, spec, windows, arch, err, sizeof err);
    if (rc == -2) {
        say("%s", err);
        return EXIT_INPUT;
    }
    if (rc == -3)
        return EXIT_NOMEM;
    return rc != 0 ? EXIT_WRITE : EXIT_CLEAN;
}

/* Dumps one input with the chosen view; returns its exit status. */
static int dump_file(const char *arg, struct etl_printer *p, const struct etl_view_opts *vo)
{
    static const int status[] = {
        [ETL_RESULT_CLEAN] = EXIT_CLEAN, [ETL_RESULT_DAMAGED] = EXIT_DAMAGED,
        [ETL_RESULT_UNREADABLE] = EXIT_INPUT, [ETL_RESULT_WRITE] = EXIT_WRITE,
        [ETL_RESULT_NOMEM] = EXIT_NOMEM, [ETL_RESULT_TEMP_LOST] = EXIT_NOMEM,
        [ETL_RESULT_NO_LIBXML2] = EXIT_NO_LIBXML2,
    };
    bool std = strcmp(arg, "-") == 0;
    struct etl_input in = { std ? stdin_name : arg, std ? NULL : arg,
                            std ? STDIN_FILENO : -1, NULL, 0, std };
    msg.shown = 0;
    msg.progress_begun = false;
    enum etl_result r = etl_dump(&in, vo, p, &messages);
    progress_erase();
    if (msg.shown > MAX_MESSAGES)
        say("%s: %lu more problems not shown", in.name, msg.shown - MAX_MESSAGES);
    if (r == ETL_RESULT_NOMEM)
        say("%s: out of memory", in.name);
    else if (r == ETL_RESULT_TEMP_LOST)
        say("%s: a temporary file could not be read back", in.name);
    else if (r == ETL_RESULT_NO_LIBXML2)
        say("%s: its EventSource manifests need libxml2, which could not be loaded: %s",
            in.name, etl_library_xml_error());
    return status[r];
}

/* The command line; filter receives the filter options. Returns the exit
 * status. */
static int run(int argc, char **argv, struct etl_filter *filter)
{
    enum { OPT_INFO = 256, OPT_STATS, OPT_EVENTS, OPT_TIME, OPT_MWR, OPT_STRICT,
           OPT_GROUPMASK, OPT_LCTX, OPT_WINDOWS, OPT_ARCH, OPT_CRLF, OPT_NO_HEADER,
           OPT_NO_FILENAME, OPT_USAGE, OPT_THREADS, OPT_NO_FIELDS, OPT_CSV_FORMULAS };
    /* Filter options, in the order of enum etl_filter_opt. */
    enum { OPT_SUMMARY = 512, OPT_CPU, OPT_TID, OPT_PID, OPT_PROCESS, OPT_RANGE, OPT_HOOK };
    static const struct option longopts[] = {
        { "info", no_argument, NULL, OPT_INFO },
        { "stats", no_argument, NULL, OPT_STATS },
        { "events", optional_argument, NULL, OPT_EVENTS },
        { "format", required_argument, NULL, 'f' },
        { "time", required_argument, NULL, OPT_TIME },
        { "output", required_argument, NULL, 'o' },
        { "crlf", no_argument, NULL, OPT_CRLF },
        { "csv-formulas", no_argument, NULL, OPT_CSV_FORMULAS },
        { "no-header", no_argument, NULL, OPT_NO_HEADER },
        { "with-filename", no_argument, NULL, 'H' },
        { "no-filename", no_argument, NULL, OPT_NO_FILENAME },
        { "quiet", no_argument, NULL, 'q' },
        { "max-wait-reason", required_argument, NULL, OPT_MWR },
        { "strict", no_argument, NULL, OPT_STRICT },
        { "threads", required_argument, NULL, OPT_THREADS },
        { "no-fields", no_argument, NULL, OPT_NO_FIELDS },
        { "summary", optional_argument, NULL, OPT_SUMMARY },
        { "usage", optional_argument, NULL, OPT_USAGE },
        { "cpu", required_argument, NULL, OPT_CPU },
        { "tid", required_argument, NULL, OPT_TID },
        { "pid", required_argument, NULL, OPT_PID },
        { "process", required_argument, NULL, OPT_PROCESS },
        { "range", required_argument, NULL, OPT_RANGE },
        { "hook", required_argument, NULL, OPT_HOOK },
        { "groupmask", required_argument, NULL, OPT_GROUPMASK },
        { "logger-context", required_argument, NULL, OPT_LCTX },
        { "windows", required_argument, NULL, OPT_WINDOWS },
        { "arch", required_argument, NULL, OPT_ARCH },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = "text", *output = NULL;
    const char *gm_list = NULL, *lc_spec = NULL, *windows = NULL, *arch = NULL;
    enum etl_view_kind view = ETL_VIEW_SWITCHES;
    unsigned views = 0; /* the views chosen, a bit each (one given twice is one) */
    int filenames = -1; /* -1: by the number of inputs */
    enum etl_time_mode tmode = ETL_TIME_REL;
    struct etl_print_opts po = { false, false, false, 0, false };
    struct etl_view_opts vo = { ETL_VIEW_SWITCHES, 0, false, filter, ETL_SUMMARY_ALL, 0, 0,
                                false };
    char ferr[400];
    unsigned long n;
    int c;

    opterr = 0; /* every message is etldump's own */
    while ((c = getopt_long(argc, argv, ":f:o:hVHq", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_INFO:
            view = ETL_VIEW_INFO;
            views |= 1u << view;
            break;
        case OPT_STATS:
            view = ETL_VIEW_STATS;
            views |= 1u << view;
            break;
        case OPT_EVENTS:
            if (!optarg && optind < argc && strcmp(argv[optind], "all") == 0)
                return usage_error("--events takes its value after '=': --events=%s",
                                   argv[optind]);
            if (optarg) {
                int r = etl_filter_add(filter, ETL_FILTER_EVENTS, optarg, ferr, sizeof ferr);
                if (r == -2) {
                    say("out of memory");
                    return EXIT_NOMEM;
                }
                if (r != 0) {
                    say("--events %s", ferr);
                    return EXIT_USAGE;
                }
            }
            view = ETL_VIEW_EVENTS;
            views |= 1u << view;
            break;
        case 'f':
            format = optarg;
            break;
        case OPT_TIME:
            if (strcmp(optarg, "rel") == 0)
                tmode = ETL_TIME_REL;
            else if (strcmp(optarg, "raw") == 0)
                tmode = ETL_TIME_RAW;
            else if (strcmp(optarg, "abs") == 0)
                tmode = ETL_TIME_ABS;
            else if (strcmp(optarg, "local") == 0)
                tmode = ETL_TIME_LOCAL;
            else
                return usage_error("--time takes rel, raw, abs or local (not '%s')", optarg);
            break;
        case 'o':
            output = optarg;
            break;
        case OPT_CRLF:
            po.crlf = true;
            break;
        case OPT_CSV_FORMULAS:
            po.csv_formulas = true;
            break;
        case OPT_NO_HEADER:
            po.no_header = true;
            break;
        case 'H':
            filenames = 1;
            break;
        case OPT_NO_FILENAME:
            filenames = 0;
            break;
        case 'q':
            msg.quiet = true;
            break;
        case OPT_MWR:
            if (!parse_uint(optarg, 1, 63, &n))
                return usage_error("--max-wait-reason takes a number from 1 to 63 (not '%s')",
                                   optarg);
            vo.max_wait_reason = (unsigned)n;
            break;
        case OPT_STRICT:
            vo.strict = true;
            break;
        case OPT_THREADS:
            if (!parse_uint(optarg, 1, MAX_THREADS, &n))
                return usage_error("--threads takes a number from 1 to %u (not '%s')",
                                   MAX_THREADS, optarg);
            vo.threads = (unsigned)n;
            break;
        case OPT_NO_FIELDS:
            vo.no_fields = true;
            break;
        case OPT_GROUPMASK:
            /* Given twice, it adds to its list, as a filter does. */
            if (gm_list) {
                size_t a = strlen(gm_list), b = strlen(optarg);
                char *both = realloc(gm_joined, a + 1 + b + 1);
                if (!both) {
                    say("out of memory");
                    return EXIT_NOMEM;
                }
                if (!gm_joined)
                    memcpy(both, gm_list, a);
                both[a] = ',';
                memcpy(both + a + 1, optarg, b + 1);
                gm_list = gm_joined = both;
            } else {
                gm_list = optarg;
            }
            break;
        case OPT_LCTX:
            lc_spec = optarg;
            break;
        case OPT_WINDOWS:
            windows = optarg;
            break;
        case OPT_ARCH:
            arch = optarg;
            break;
        case OPT_SUMMARY:
            if (!optarg && optind < argc && strcmp(argv[optind], "routines") == 0)
                return usage_error("--summary takes its value after '=': --summary=%s",
                                   argv[optind]);
            if (optarg && strcmp(optarg, "routines") != 0)
                return usage_error("--summary takes 'routines' (not '%s')", optarg);
            vo.summary_part = optarg ? ETL_SUMMARY_ROUTINES : ETL_SUMMARY_ALL;
            view = ETL_VIEW_SUMMARY;
            views |= 1u << view;
            break;
        case OPT_USAGE:
            if (!optarg && optind < argc && access(argv[optind], F_OK) != 0 &&
                etl_usage_interval_parse(argv[optind], &vo.usage_interval_ns, ferr,
                                         sizeof ferr) == 0)
                return usage_error("--usage takes its value after '=': --usage=%s",
                                   argv[optind]);
            if (optarg && etl_usage_interval_parse(optarg, &vo.usage_interval_ns, ferr,
                                                   sizeof ferr) != 0) {
                say("--usage %s", ferr);
                return EXIT_USAGE;
            }
            view = ETL_VIEW_USAGE;
            views |= 1u << view;
            break;
        case OPT_CPU: case OPT_TID: case OPT_PID: case OPT_PROCESS: case OPT_RANGE:
        case OPT_HOOK:
            switch (etl_filter_add(filter, (enum etl_filter_opt)(c - OPT_CPU), optarg, ferr,
                                   sizeof ferr)) {
            case 0:
                break;
            case -2:
                say("out of memory");
                return EXIT_NOMEM;
            default: {
                static const char *const fname[] = { "cpu", "tid", "pid", "process",
                                                     "range", "hook" };
                say("--%s %s", fname[c - OPT_CPU], ferr);
                return EXIT_USAGE;
            }
            }
            break;
        case 'h':
            usage(stdout);
            return flush_stdout();
        case 'V':
            printf("etldump %s\n", ETLDUMP_VERSION);
            return flush_stdout();
        case ':':
            return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: {
            const char *arg = argv[optind - 1];
            if (strncmp(arg, "--", 2) == 0)
                return long_option_error(longopts, arg);
            char opt[3] = { '-', (char)optopt, 0 };
            return usage_error("unknown option '%s'", opt);
        }
        }
    }
    int ninputs = argc - optind;
    if (views & (views - 1)) {
        say("choose one of --info, --stats, --events, --summary and --usage");
        return EXIT_USAGE;
    }
    if (vo.no_fields && view != ETL_VIEW_EVENTS) {
        say("--no-fields goes with --events");
        return EXIT_USAGE;
    }
    if (etl_filter_has_hook(filter) && view != ETL_VIEW_EVENTS && view != ETL_VIEW_STATS) {
        say("--hook goes with --events or --stats");
        return EXIT_USAGE;
    }
    vo.view = view;
    if ((gm_list || lc_spec) &&
        !names_options(gm_list, lc_spec, windows, arch, views != 0, ninputs))
        return EXIT_USAGE;
    if ((windows || arch) && !lc_spec) {
        say("--windows and --arch go with --logger-context");
        return EXIT_USAGE;
    }
    if (ninputs == 0 && !gm_list && !lc_spec)
        return usage_error("no input file (FILE, or - for standard input)");
    if (!etl_printer_exists(format))
        return usage_error("unknown format '%s' (text, csv, xml, json, perfetto or svg)",
                           format);
    if (output && !*output)
        return usage_error("-o: an empty file name");
    /* The memory image of --logger-context is an input as much as FILE. */
    char *lc_file = NULL;
    if (lc_spec && !(lc_file = etl_logger_context_file(lc_spec))) {
        say("out of memory");
        return EXIT_NOMEM;
    }
    const char *same;
    bool refuse = output_is_input(output, argv + optind, ninputs, lc_file, &same);
    if (refuse && output)
        say("-o %s is the input %s: refusing to overwrite it", output, same);
    else if (refuse)
        say("standard output is the input %s: refusing to write into it", same);
    free(lc_file);
    if (refuse)
        return EXIT_USAGE;
    if (etl_format_check(format, view, ninputs, !output && isatty(STDOUT_FILENO),
                         ferr, sizeof ferr) != 0) {
        say("%s", ferr);
        return EXIT_USAGE;
    }
    /* XML output needs libxml2, loaded when first needed: said before any
     * output is opened. */
    if (strcmp(format, "xml") == 0) {
        int xr = etl_library_xml(ferr, sizeof ferr);
        if (xr == -2) {
            say("out of memory");
            return EXIT_NOMEM;
        }
        if (xr != 0) {
            say("-f xml needs libxml2, which could not be loaded: %s", ferr);
            return EXIT_NO_LIBXML2;
        }
    }
    /* --groupmask and --logger-context read no ETL file: no file column. */
    po.with_filename = !gm_list && !lc_spec && (filenames < 0 ? ninputs > 1 : filenames == 1);
    for (int i = optind; i < argc; i++) {
        size_t len = etl_text_width(strcmp(argv[i], "-") == 0 ? stdin_name : argv[i]);
        if (len > po.file_width)
            po.file_width = (unsigned)len;
    }
    msg.progress_ok = isatty(STDERR_FILENO) == 1;

    /* A reader that goes away is not an error: EPIPE ends the output quietly. */
    signal(SIGPIPE, SIG_IGN);
    /* Past the limit of ulimit -f a write fails with EFBIG, a write error
     * like a full disk (the temporary output removed), instead of the
     * signal ending the run where it stands. */
    signal(SIGXFSZ, SIG_IGN);
    struct output out;
    int ost = output_open(&out, output);
    if (ost != 0)
        return ost;
    struct etl_out *o = etl_out_new(out.fd);
    struct etl_printer *p = o ? etl_printer_new(format, o, tmode) : NULL;
    if (!p) {
        say("out of memory");
        etl_out_free(o);
        output_close(&out, false);
        return EXIT_NOMEM;
    }
    etl_printer_set_options(p, &po);

    int status = EXIT_CLEAN;
    if (gm_list)
        status = etl_run_groupmask(p, gm_list) != 0 ? EXIT_WRITE : EXIT_CLEAN;
    else if (lc_spec)
        status = logger_context(p, lc_spec, windows, arch);
    /* Whether an input was read (its output is in the file), when another
     * could not be: status 3. */
    bool any_read = (gm_list || lc_spec) && status != EXIT_INPUT;
    /* Whether --strict stopped at damaged data (an input that cannot be
     * read or is not ETL is no damage: the others are still dumped). */
    bool stopped = false;
    for (int i = optind; i < argc; i++) {
        int s = dump_file(argv[i], p, &vo);
        any_read = any_read || s != EXIT_INPUT;
        if (s > status)
            status = s;
        stopped = vo.strict && s == EXIT_DAMAGED;
        if (s >= EXIT_WRITE || stopped)
            break;
    }
    int err = 0;
    if (etl_printer_finish(p) != 0 || etl_out_error(o)) {
        err = etl_out_error(o);
        if (status != EXIT_NOMEM && status != EXIT_NO_LIBXML2)
            status = err == ENOMEM ? EXIT_NOMEM : EXIT_WRITE;
    }
    /* The old file is replaced only by a complete output: not by the empty
     * one of a run that could read none of its inputs (a misspelt name),
     * nor by that of a --strict run that stopped at a problem. */
    bool keep = !stopped && (status <= EXIT_DAMAGED || (status == EXIT_INPUT && any_read));
    int cerr = output_close(&out, keep);
    if (cerr && !err) {
        err = cerr;
        status = EXIT_WRITE;
    }
    if (status == EXIT_WRITE) {
        if (err == EPIPE) {
            status = EXIT_CLEAN; /* the reader of a pipe went away */
        } else {
            say("%s: %s", output ? output : "standard output", strerror(err ? err : EIO));
        }
    }
    /* The run's output went nowhere: said, so that an old file is not
     * taken for its output. */
    if (out.discarded && !msg.quiet)
        say("%s: %s", output, out.existed ? "left as it was" : "not written");
    etl_printer_free(p);
    etl_out_free(o);
    return status;
}

int main(int argc, char **argv)
{
    struct etl_filter *filter = NULL;
    if (etl_library_begin() != 0 || !(filter = etl_filter_new())) {
        say("out of memory");
        etl_library_end();
        return EXIT_NOMEM;
    }
    int status = run(argc, argv, filter);
    free(gm_joined);
    etl_filter_free(filter);
    etl_library_end();
    return status;
}
