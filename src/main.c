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

#include "etl/etl.h"
#include "print/printer.h"
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

enum view { VIEW_SWITCHES, VIEW_EVENTS, VIEW_INFO, VIEW_STATS };

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

static void usage(FILE *to)
{
    fprintf(to,
        "usage: %s [OPTION]... FILE...\n"
        "Dump Windows Event Trace Log (ETL) files: context switches by default.\n"
        "\n"
        "Views (one at a time; the default is context switches):\n"
        "      --info               summary of the trace header\n"
        "      --stats              census: events per header kind and HookId or\n"
        "                           provider, per CPU, buffers, bytes, time span\n"
        "      --events=all         every event record in time order\n"
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
        rc = etl_view_info(p, &f);
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
    enum { OPT_INFO = 256, OPT_STATS, OPT_EVENTS, OPT_TIME, OPT_MWR, OPT_STRICT };
    static const struct option longopts[] = {
        { "info", no_argument, NULL, OPT_INFO },
        { "stats", no_argument, NULL, OPT_STATS },
        { "events", optional_argument, NULL, OPT_EVENTS },
        { "format", required_argument, NULL, 'f' },
        { "time", required_argument, NULL, OPT_TIME },
        { "output", required_argument, NULL, 'o' },
        { "max-wait-reason", required_argument, NULL, OPT_MWR },
        { "strict", no_argument, NULL, OPT_STRICT },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = "text", *output = NULL;
    enum view view = VIEW_SWITCHES;
    int nviews = 0;
    enum etl_time_mode tmode = ETL_TIME_REL;
    struct etl_view_opts vo = { 0, false };
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
        fprintf(stderr, "%s: choose one of --info, --stats and --events\n", progname);
        return EXIT_USAGE;
    }
    if (optind >= argc) {
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
    struct etl_printer *p = etl_printer_new(format, &out, tmode);
    if (!p) {
        fprintf(stderr, "%s: unknown format '%s' (text, csv, xml or json)\n",
                progname, format);
        etl_out_free(&out);
        return EXIT_USAGE;
    }

    int status = EXIT_CLEAN;
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
    return status;
}
