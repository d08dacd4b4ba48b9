/*
 * main.c - etldump's command line: options, the loop over files, messages on
 * standard error and the exit status. Everything else is the library
 * (etldump.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    EXIT_NOMEM = 5,      /* out of memory */
};

/* Messages about one file beyond this many are only counted. */
#define MAX_MESSAGES 50

static const char *progname = "etldump";

/* Problems shown about the current file. */
static unsigned long shown;

/* Prints a problem found in a file: "etldump: FILE: offset 0x...: message". */
static void on_problem(void *ctx, const char *name, uint64_t offset, const char *msg)
{
    (void)ctx;
    if (++shown <= MAX_MESSAGES)
        fprintf(stderr, "%s: %s: offset 0x%llx: %s\n", progname, name,
                (unsigned long long)offset, msg);
}

/* Prints a warning about a file: "etldump: FILE: warning: message". A warning
 * does not change the exit status. */
static void on_warning(void *ctx, const char *name, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "%s: %s: warning: %s\n", progname, name, msg);
}

/* Prints why a file cannot be read: "etldump: FILE: reason". */
static void on_unreadable(void *ctx, const char *name, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "%s: %s: %s\n", progname, name, msg);
}

static const struct etl_messages messages = { NULL, on_problem, on_warning, on_unreadable };

static void usage(FILE *to)
{
    fprintf(to,
        "usage: %s [OPTION]... FILE...\n"
        "Dump Windows Event Trace Log (ETL) files: context switches by default.\n"
        "\n"
        "Views (one at a time; the default is context switches):\n"
        "      --info               summary of the trace header, with what the trace\n"
        "                           records by name: logger mode, clock type, group\n"
        "                           masks and their changes (reads every event)\n"
        "      --stats              census: events per header kind and HookId or\n"
        "                           provider, per CPU, buffers, bytes, time span\n"
        "      --events=all         every event record in time order, with its name\n"
        "                           and decoded payload\n"
        "      --events=NAMES       the same for events of these names or name\n"
        "                           prefixes, e.g. Process,Image/Load\n"
        "      --summary            per process, thread and CPU: CPU time, switch-ins,\n"
        "                           mean and longest run, waits and their reasons,\n"
        "                           ready time, migrations; CPU busy and idle time\n"
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
        "  -f, --format=FORMAT      text (default), csv, xml or json\n"
        "      --time=MODE          rel (seconds since the trace started, default),\n"
        "                           raw (clock ticks) or abs (UTC, ISO 8601)\n"
        "  -o, --output=FILE        write to FILE instead of standard output\n"
        "\n"
        "Decoding:\n"
        "      --max-wait-reason=N  MaximumWaitReason of the traced kernel, used to\n"
        "                           decode compact context switches (default: from\n"
        "                           the Windows build in the trace)\n"
        "      --strict             stop at the first damaged data\n"
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
        "3 an input could not be read or is not ETL, 4 write error.\n",
        progname);
}

/* Parses an unsigned number (decimal or 0x hex) within [lo, hi]. */
static bool parse_uint(const char *s, unsigned long lo, unsigned long hi,
                       unsigned long *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '\0')
        return false;
    unsigned long v = strtoul(s, &end, 0);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Checks the options of --groupmask and --logger-context (which read no ETL
 * file); false after a usage message. */
static bool names_options(const char *gm_list, const char *lc_spec, const char *windows,
                          const char *arch, int nviews, int nfiles)
{
    const char *opt = gm_list ? "--groupmask" : "--logger-context";
    char err[256];
    if (gm_list && lc_spec) {
        fprintf(stderr, "%s: choose one of --groupmask and --logger-context\n", progname);
        return false;
    }
    if (nviews || nfiles) {
        fprintf(stderr, "%s: %s takes no view option and no input FILE\n", progname,
                opt);
        return false;
    }
    if ((gm_list && etl_groupmask_check(gm_list, err, sizeof err) != 0) ||
        (lc_spec && etl_logger_context_check(windows, arch, err, sizeof err) != 0)) {
        fprintf(stderr, "%s: %s\n", progname, err);
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
        fprintf(stderr, "%s: %s\n", progname, err);
        return EXIT_INPUT;
    }
    if (rc == -3)
        return EXIT_NOMEM;
    return rc != 0 ? EXIT_WRITE : EXIT_CLEAN;
}

/* Dumps one file with the chosen view; returns its exit status. */
static int dump_file(const char *path, struct etl_printer *p,
                     const struct etl_view_opts *vo)
{
    static const int status[] = {
        [ETL_RESULT_CLEAN] = EXIT_CLEAN, [ETL_RESULT_DAMAGED] = EXIT_DAMAGED,
        [ETL_RESULT_UNREADABLE] = EXIT_INPUT, [ETL_RESULT_WRITE] = EXIT_WRITE,
        [ETL_RESULT_NOMEM] = EXIT_NOMEM,
    };
    struct etl_input in = { path, path, -1, NULL, 0 };
    shown = 0;
    enum etl_result r = etl_dump(&in, vo, p, &messages);
    if (shown > MAX_MESSAGES)
        fprintf(stderr, "%s: %s: %lu more problems not shown\n", progname, path,
                shown - MAX_MESSAGES);
    if (r == ETL_RESULT_NOMEM)
        fprintf(stderr, "%s: %s: out of memory\n", progname, path);
    return status[r];
}

/* The command line; filter receives the filter options. Returns the exit
 * status. */
static int run(int argc, char **argv, struct etl_filter *filter)
{
    enum { OPT_INFO = 256, OPT_STATS, OPT_EVENTS, OPT_TIME, OPT_MWR, OPT_STRICT,
           OPT_GROUPMASK, OPT_LCTX, OPT_WINDOWS, OPT_ARCH };
    /* Filter options, in the order of enum etl_filter_opt. */
    enum { OPT_SUMMARY = 512, OPT_CPU, OPT_TID, OPT_PID, OPT_PROCESS, OPT_RANGE, OPT_HOOK };
    static const struct option longopts[] = {
        { "info", no_argument, NULL, OPT_INFO },
        { "stats", no_argument, NULL, OPT_STATS },
        { "events", optional_argument, NULL, OPT_EVENTS },
        { "format", required_argument, NULL, 'f' },
        { "time", required_argument, NULL, OPT_TIME },
        { "output", required_argument, NULL, 'o' },
        { "max-wait-reason", required_argument, NULL, OPT_MWR },
        { "strict", no_argument, NULL, OPT_STRICT },
        { "summary", no_argument, NULL, OPT_SUMMARY },
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
    int nviews = 0;
    enum etl_time_mode tmode = ETL_TIME_REL;
    struct etl_view_opts vo = { ETL_VIEW_SWITCHES, 0, false, filter };
    char ferr[160];
    unsigned long n;
    int c;

    while ((c = getopt_long(argc, argv, "f:o:hV", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_INFO:
            view = ETL_VIEW_INFO;
            nviews++;
            break;
        case OPT_STATS:
            view = ETL_VIEW_STATS;
            nviews++;
            break;
        case OPT_EVENTS:
            if (optarg) {
                int r = etl_filter_add(filter, ETL_FILTER_EVENTS, optarg, ferr, sizeof ferr);
                if (r == -2) {
                    fprintf(stderr, "%s: out of memory\n", progname);
                    return EXIT_NOMEM;
                }
                if (r != 0) {
                    fprintf(stderr, "%s: --events %s\n", progname, ferr);
                    return EXIT_USAGE;
                }
            }
            view = ETL_VIEW_EVENTS;
            nviews++;
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
            else {
                fprintf(stderr, "%s: --time takes rel, raw or abs\n", progname);
                return EXIT_USAGE;
            }
            break;
        case 'o':
            output = optarg;
            break;
        case OPT_MWR:
            if (!parse_uint(optarg, 1, 63, &n)) {
                fprintf(stderr, "%s: --max-wait-reason takes a number from 1 to 63\n",
                        progname);
                return EXIT_USAGE;
            }
            vo.max_wait_reason = (unsigned)n;
            break;
        case OPT_STRICT:
            vo.strict = true;
            break;
        case OPT_GROUPMASK:
            gm_list = optarg;
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
            view = ETL_VIEW_SUMMARY;
            nviews++;
            break;
        case OPT_CPU: case OPT_TID: case OPT_PID: case OPT_PROCESS: case OPT_RANGE:
        case OPT_HOOK:
            switch (etl_filter_add(filter, (enum etl_filter_opt)(c - OPT_CPU), optarg, ferr,
                                   sizeof ferr)) {
            case 0:
                break;
            case -2:
                fprintf(stderr, "%s: out of memory\n", progname);
                return EXIT_NOMEM;
            default: {
                static const char *const fname[] = { "cpu", "tid", "pid", "process",
                                                     "range", "hook" };
                fprintf(stderr, "%s: --%s %s\n", progname, fname[c - OPT_CPU], ferr);
                return EXIT_USAGE;
            }
            }
            break;
        case 'h':
            usage(stdout);
            return EXIT_CLEAN;
        case 'V':
            printf("etldump %s\n", ETLDUMP_VERSION);
            return EXIT_CLEAN;
        default:
            fprintf(stderr, "Try '%s --help' for more information.\n", progname);
            return EXIT_USAGE;
        }
    }
    if (nviews > 1) {
        fprintf(stderr, "%s: choose one of --info, --stats, --events and --summary\n",
                progname);
        return EXIT_USAGE;
    }
    if (etl_filter_has_hook(filter) && view != ETL_VIEW_EVENTS && view != ETL_VIEW_STATS) {
        fprintf(stderr, "%s: --hook goes with --events=all or --stats\n", progname);
        return EXIT_USAGE;
    }
    vo.view = view;
    if ((gm_list || lc_spec) &&
        !names_options(gm_list, lc_spec, windows, arch, nviews, argc - optind))
        return EXIT_USAGE;
    if ((windows || arch) && !lc_spec) {
        fprintf(stderr, "%s: --windows and --arch go with --logger-context\n", progname);
        return EXIT_USAGE;
    }
    if (optind >= argc && !gm_list && !lc_spec) {
        fprintf(stderr, "%s: no input file\nTry '%s --help' for more information.\n",
                progname, progname);
        return EXIT_USAGE;
    }
    if (!etl_printer_exists(format)) {
        fprintf(stderr, "%s: unknown format '%s' (text, csv, xml or json)\n",
                progname, format);
        return EXIT_USAGE;
    }

    /* A reader that goes away is not an error: EPIPE ends the output quietly. */
    signal(SIGPIPE, SIG_IGN);
    int fd = STDOUT_FILENO;
    if (output) {
        fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0) {
            fprintf(stderr, "%s: %s: %s\n", progname, output, strerror(errno));
            return EXIT_WRITE;
        }
    }
    struct etl_out *out = etl_out_new(fd);
    struct etl_printer *p = out ? etl_printer_new(format, out, tmode) : NULL;
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", progname);
        etl_out_free(out);
        return EXIT_NOMEM;
    }

    int status = EXIT_CLEAN;
    if (gm_list)
        status = etl_run_groupmask(p, gm_list) != 0 ? EXIT_WRITE : EXIT_CLEAN;
    else if (lc_spec)
        status = logger_context(p, lc_spec, windows, arch);
    for (int i = optind; i < argc; i++) {
        int s = dump_file(argv[i], p, &vo);
        if (s > status)
            status = s;
        if (s >= EXIT_WRITE || (vo.strict && s != EXIT_CLEAN))
            break;
    }
    int err = 0;
    if (etl_printer_finish(p) != 0 || etl_out_error(out)) {
        err = etl_out_error(out);
        if (status != EXIT_NOMEM)
            status = err == ENOMEM ? EXIT_NOMEM : EXIT_WRITE;
    }
    if (output && close(fd) != 0 && !err) {
        err = errno;
        status = EXIT_WRITE;
    }
    if (status == EXIT_WRITE) {
        if (err == EPIPE) {
            status = EXIT_CLEAN; /* the reader of a pipe went away */
        } else {
            fprintf(stderr, "%s: %s: %s\n", progname,
                    output ? output : "standard output",
                    strerror(err ? err : EIO));
        }
    }
    etl_printer_free(p);
    etl_out_free(out);
    return status;
}

int main(int argc, char **argv)
{
    struct etl_filter *filter = NULL;
    if (etl_library_begin() != 0 || !(filter = etl_filter_new())) {
        fprintf(stderr, "%s: out of memory\n", progname);
        etl_library_end();
        return EXIT_NOMEM;
    }
    int status = run(argc, argv, filter);
    etl_filter_free(filter);
    etl_library_end();
    return status;
}
