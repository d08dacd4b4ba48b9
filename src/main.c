/*
 * main.c - etldump's command line: options, the loop over files, messages on
 * standard error and the exit status. Everything else lives in the layers
 * below (reader, decoders, views, printers).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "etl/etl.h"
#include "print/printer.h"
#include "view/groupmask.h"
#include "view/loggerctx.h"
#include "view/view.h"

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
};

/* Messages about one file beyond this many are only counted. */
#define MAX_MESSAGES 50

enum view { VIEW_SWITCHES, VIEW_EVENTS, VIEW_INFO, VIEW_STATS, VIEW_SUMMARY };

struct diag_ctx {
    const char *path;
    struct etl_printer *p;
    unsigned long shown;
};

static const char *progname = "etldump";

/* Prints a problem found in a file: "etldump: FILE: offset 0x...: message". */
static void diag(void *vctx, uint64_t offset, const char *msg)
{
    struct diag_ctx *d = vctx;
    if (d->p)
        d->p->ops->problem(d->p, offset, msg);
    if (++d->shown <= MAX_MESSAGES)
        fprintf(stderr, "%s: %s: offset 0x%llx: %s\n", progname, d->path,
                (unsigned long long)offset, msg);
}

/* Prints a warning about a file: "etldump: FILE: warning: message". A warning
 * does not change the exit status. */
static void warn(const char *path, const char *msg)
{
    fprintf(stderr, "%s: %s: warning: %s\n", progname, path, msg);
}

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
        "      --events=all         every event record in time order\n"
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
        "      --hook=LIST          HookIds, e.g. 0x0501-0x0504 (--events=all, --stats)\n"
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
 * file) and parses their arguments; false after a usage message. */
static bool names_options(const char *gm_list, const char *lc_spec, const char *windows,
                          const char *arch, int nviews, int nfiles,
                          struct etl_groupmask *gm, enum etl_win *win,
                          enum etl_arch *ar)
{
    const char *opt = gm_list ? "--groupmask" : "--logger-context";
    if (gm_list && lc_spec) {
        fprintf(stderr, "%s: choose one of --groupmask and --logger-context\n", progname);
        return false;
    }
    if (nviews || nfiles) {
        fprintf(stderr, "%s: %s takes no view option and no input FILE\n", progname,
                opt);
        return false;
    }
    if (gm_list) {
        char bad[64];
        switch (etl_groupmask_parse(gm_list, gm, bad, sizeof bad)) {
        case ETL_GM_OK:
            return true;
        case ETL_GM_UNKNOWN:
            fprintf(stderr, "%s: --groupmask: unknown name '%s' (PERF_* or "
                    "EVENT_TRACE_FLAG_* names, or 32-bit values)\n", progname, bad);
            return false;
        case ETL_GM_RANGE:
            fprintf(stderr, "%s: --groupmask: '%s' is not a 32-bit value\n", progname, bad);
            return false;
        default:
            fprintf(stderr, "%s: --groupmask: empty item in '%s'\n", progname, gm_list);
            return false;
        }
    }
    if (!windows || !arch) {
        fprintf(stderr, "%s: --logger-context needs --windows=6.1|6.2|6.3|10.0 and "
                "--arch=x86|x64\n", progname);
        return false;
    }
    if (!etl_win_parse(windows, win)) {
        fprintf(stderr, "%s: --windows takes 6.1, 6.2, 6.3 or 10.0\n", progname);
        return false;
    }
    if (!etl_arch_parse(arch, ar)) {
        fprintf(stderr, "%s: --arch takes x86 or x64\n", progname);
        return false;
    }
    return true;
}

/* --logger-context: decodes and prints one WMI_LOGGER_CONTEXT; returns the
 * exit status. */
static int logger_context(struct etl_printer *p, const char *spec, enum etl_win win,
                          enum etl_arch arch)
{
    char *path, err[512];
    uint64_t offset;
    if (!etl_lc_spec_parse(spec, &path, &offset)) {
        fprintf(stderr, "%s: out of memory\n", progname);
        return EXIT_INPUT;
    }
    int rc = etl_view_logger_context(p, path, offset, win, arch, err, sizeof err);
    free(path);
    if (rc == -2) {
        fprintf(stderr, "%s: %s\n", progname, err);
        return EXIT_INPUT;
    }
    return rc != 0 ? EXIT_WRITE : EXIT_CLEAN;
}

/* Dumps one file with the chosen view; returns its exit status. */
static int dump_file(const char *path, enum view view, struct etl_printer *p,
                     const struct etl_view_opts *vo)
{
    /* The file's element opens first, so problems found while indexing the
     * buffers are recorded inside it. */
    struct diag_ctx d = { path, p, 0 };
    if (p->ops->begin_file(p, path, NULL) != 0)
        return EXIT_WRITE;
    struct etl_file f;
    enum etl_open_status st = etl_open(&f, path, diag, &d);
    if (st != ETL_OPEN_OK) {
        char msg[160];
        if (st == ETL_OPEN_IO)
            snprintf(msg, sizeof msg, "%s", strerror(errno));
        else
            snprintf(msg, sizeof msg, "not an ETL file (no logfile header at the start)");
        if (st == ETL_OPEN_IO)
            fprintf(stderr, "%s: %s: %s\n", progname, path, msg);
        else
            fprintf(stderr, "%s: %s: offset 0x0: %s\n", progname, path, msg);
        p->ops->problem(p, 0, msg);
        return p->ops->end_file(p) != 0 ? EXIT_WRITE : EXIT_INPUT;
    }
    struct etl_clock clk;
    etl_clock_from_header(&clk, &f.hdr);
    p->clock = clk;
    int rc = 0;
    if (rc == 0 && (view == VIEW_INFO || p->ops->wants_info))
        rc = etl_view_info_scan(p, &f, view == VIEW_INFO);
    if (rc == 0) {
        switch (view) {
        case VIEW_INFO:
            break;
        case VIEW_STATS:
            rc = etl_view_stats(p, &f, vo);
            break;
        case VIEW_EVENTS:
            rc = etl_view_events(p, &f, vo);
            break;
        case VIEW_SUMMARY:
            rc = etl_view_summary(p, &f, vo);
            break;
        default:
            rc = etl_view_switches(p, &f, vo);
            break;
        }
    }
    if (rc == 0)
        rc = p->ops->end_file(p);
    if (d.shown > MAX_MESSAGES)
        fprintf(stderr, "%s: %s: %lu more problems not shown\n", progname, path,
                d.shown - MAX_MESSAGES);
    uint64_t problems = f.problems;
    etl_close(&f);
    if (rc != 0)
        return EXIT_WRITE;
    return problems ? EXIT_DAMAGED : EXIT_CLEAN;
}

int main(int argc, char **argv)
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
    enum view view = VIEW_SWITCHES;
    int nviews = 0;
    enum etl_time_mode tmode = ETL_TIME_REL;
    /* Static: the early returns of usage errors leave it reachable. */
    static struct etl_filter filter;
    struct etl_view_opts vo = { 0, false, &filter };
    char ferr[160];
    unsigned long n;
    int c;

    while ((c = getopt_long(argc, argv, "f:o:hV", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_INFO:
            view = VIEW_INFO;
            nviews++;
            break;
        case OPT_STATS:
            view = VIEW_STATS;
            nviews++;
            break;
        case OPT_EVENTS:
            if (optarg && strcmp(optarg, "all") != 0) {
                fprintf(stderr, "%s: --events takes 'all'\n", progname);
                return EXIT_USAGE;
            }
            view = VIEW_EVENTS;
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
            view = VIEW_SUMMARY;
            nviews++;
            break;
        case OPT_CPU: case OPT_TID: case OPT_PID: case OPT_PROCESS: case OPT_RANGE:
        case OPT_HOOK:
            if (!etl_filter_add(&filter, (enum etl_filter_opt)(c - OPT_CPU), optarg, ferr,
                                sizeof ferr)) {
                static const char *const fname[] = { "cpu", "tid", "pid", "process",
                                                     "range", "hook" };
                fprintf(stderr, "%s: --%s %s\n", progname, fname[c - OPT_CPU], ferr);
                return EXIT_USAGE;
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
    if (filter.hook.set && view != VIEW_EVENTS && view != VIEW_STATS) {
        fprintf(stderr, "%s: --hook goes with --events=all or --stats\n", progname);
        return EXIT_USAGE;
    }
    struct etl_groupmask gm;
    enum etl_win lc_win = ETL_WIN_100;
    enum etl_arch lc_arch = ETL_ARCH_X64;
    if ((gm_list || lc_spec) &&
        !names_options(gm_list, lc_spec, windows, arch, nviews, argc - optind, &gm,
                       &lc_win, &lc_arch))
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
    struct etl_out out;
    if (!etl_out_init(&out, fd, 1 << 16)) {
        fprintf(stderr, "%s: out of memory\n", progname);
        return EXIT_WRITE;
    }
    /* libxml2 (used by the XML printer) is set up here and released at the
     * end, so that its global tables are not left for leak checkers. */
    xmlInitParser();
    struct etl_printer *p = etl_printer_new(format, &out, tmode);
    if (!p) {
        fprintf(stderr, "%s: unknown format '%s' (text, csv, xml or json)\n",
                progname, format);
        etl_out_free(&out);
        xmlCleanupParser();
        return EXIT_USAGE;
    }

    int status = EXIT_CLEAN;
    etl_view_set_warn(warn);
    if (gm_list)
        status = etl_view_groupmask(p, &gm) != 0 ? EXIT_WRITE : EXIT_CLEAN;
    else if (lc_spec)
        status = logger_context(p, lc_spec, lc_win, lc_arch);
    for (int i = optind; i < argc; i++) {
        int s = dump_file(argv[i], view, p, &vo);
        if (s > status)
            status = s;
        if (s == EXIT_WRITE || (vo.strict && s != EXIT_CLEAN))
            break;
    }
    if (p->ops->finish(p) != 0 || out.err)
        status = EXIT_WRITE;
    if (output && close(fd) != 0 && !out.err) {
        out.err = errno;
        status = EXIT_WRITE;
    }
    if (status == EXIT_WRITE) {
        if (out.err == EPIPE) {
            status = EXIT_CLEAN; /* the reader of a pipe went away */
        } else {
            fprintf(stderr, "%s: %s: %s\n", progname,
                    output ? output : "standard output",
                    strerror(out.err ? out.err : EIO));
        }
    }
    etl_printer_free(p);
    etl_out_free(&out);
    xmlCleanupParser();
    etl_filter_free(&filter);
    return status;
}
