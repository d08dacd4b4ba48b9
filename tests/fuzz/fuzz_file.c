/*
 * fuzz_file.c - the whole file through the library's one entry point
 * (etl_dump, as the etldump tool calls it), with one set of options picked
 * by the input's first byte: byte 0 selects an entry of the table `runs`
 * below (byte 0 % its length), and the rest of the input is the file. The
 * table holds every view (switches, --events=all with its decoded fields,
 * --stats, --info, --summary, --summary=routines, --usage) through every
 * table printer (text, csv, xml, json) and the outputs that are not tables
 * (-f perfetto, -f svg, -f svg --usage), with the time modes and the
 * printers' options (--no-header, --crlf, -H) spread over the entries;
 * more entries use --strict with a given --max-wait-reason, filters of
 * every kind (--cpu, --tid, --process, --range, --hook), --events=NAMES
 * with --pid, and --no-fields. Most entries hand the file over in memory;
 * some as an open descriptor, a path or a pipe (which the reader copies
 * to a temporary file), and some write to an output that refuses every
 * write or fills up after 4 KiB (the run must then end without a crash or
 * a leak, and say ETL_RESULT_WRITE when it wrote anything).
 *
 * Checks that every problem and message has a text and that a clean result
 * means no problem was reported; the outputs of the entries marked CHECK are read
 * back (export_check.h: the Perfetto trace walked as protobuf, XML and SVG
 * parsed). Entries marked THREADS are run once per value of thread_counts
 * (byte 0 / the table's length picks the first), and their outputs and
 * results must be the same each time.
 *
 * tests/fuzz/cutseeds.c writes the seeds of this target: traces and their
 * first buffers, each behind a selector byte.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etldump.h"
#include "export_check.h"
#include "fuzz_file.h"

/* What a run sets beyond its view, format and time mode. */
enum {
    NOHDR = 1u << 0,     /* --no-header */
    CRLF = 1u << 1,      /* --crlf */
    FNAME = 1u << 2,     /* -H */
    STRICT = 1u << 3,    /* --strict --max-wait-reason=0x2A */
    ROUTINES = 1u << 4,  /* --summary=routines */
    FILTER = 1u << 5,    /* --cpu --tid --process --range --hook */
    CHECK = 1u << 6,     /* the output is read back */
    THREADS = 1u << 7,   /* made with every thread count, outputs compared */
    NAMES = 1u << 8,     /* --events=NAMES --pid */
    BYFD = 1u << 9,      /* the input is an open descriptor (a memory file) */
    BYPATH = 1u << 10,   /* the input is a path (/proc/self/fd/N) */
    BYPIPE = 1u << 11,   /* the input is a pipe (copied to a temporary file) */
    WFAIL = 1u << 12,    /* every write of the output fails */
    WFULL = 1u << 13,    /* the output fills up after 4 KiB */
    NOFIELDS = 1u << 14, /* --no-fields */
    FORMULAS = 1u << 15, /* --csv-formulas */
};

struct runopt {
    enum etl_view_kind view;
    const char *format;
    enum etl_time_mode tmode;
    unsigned flags;
    int64_t interval;    /* --usage=INTERVAL in ns (0: the default) */
};

#define SW ETL_VIEW_SWITCHES
#define EV ETL_VIEW_EVENTS
#define ST ETL_VIEW_STATS
#define IN ETL_VIEW_INFO
#define SU ETL_VIEW_SUMMARY
#define US ETL_VIEW_USAGE
#define REL ETL_TIME_REL
#define RAW ETL_TIME_RAW
#define ABS ETL_TIME_ABS
#define LOCAL ETL_TIME_LOCAL

static const struct runopt runs[] = {
    { SW, "text", REL, NOHDR, 0 },          { SW, "csv", RAW, CRLF | FNAME | THREADS, 0 },
    { SW, "xml", ABS, CHECK | BYFD, 0 },    { SW, "json", REL, FNAME, 0 },
    { EV, "text", RAW, FNAME, 0 },          { EV, "csv", ABS, NOHDR | BYPATH | FORMULAS, 0 },
    { EV, "xml", REL, FNAME | CHECK, 0 },   { EV, "json", RAW, THREADS, 0 },
    { ST, "text", ABS, BYPIPE, 0 },         { ST, "csv", REL, CRLF | BYFD, 0 },
    { ST, "xml", RAW, CHECK, 0 },           { ST, "json", ABS, THREADS, 0 },
    { IN, "text", REL, FNAME, 0 },          { IN, "csv", RAW, NOHDR, 0 },
    { IN, "xml", ABS, CHECK, 0 },           { IN, "json", REL, BYFD, 0 },
    { SU, "text", RAW, THREADS, 0 },        { SU, "csv", ABS, FNAME | CRLF, 0 },
    { SU, "xml", REL, CHECK, 0 },           { SU, "json", RAW, BYPATH, 0 },
    { SU, "text", ABS, ROUTINES | NOHDR, 0 }, { SU, "json", REL, ROUTINES, 0 },
    { US, "text", REL, BYPIPE, 0 },         { US, "csv", RAW, THREADS, 0 },
    { US, "xml", ABS, CHECK | FILTER, 20000000 }, { US, "json", REL, FNAME, 0 },
    { SW, "perfetto", REL, CHECK | THREADS, 0 }, { SW, "svg", REL, CHECK | THREADS, 0 },
    { US, "svg", ABS, CHECK | FILTER, 5000000 },
    { SW, "csv", ABS, STRICT, 0 },          { EV, "json", REL, STRICT, 0 },
    { SW, "text", REL, FILTER, 0 },         { EV, "csv", RAW, FILTER, 0 },
    { ST, "json", LOCAL, FILTER | BYPATH, 0 }, { SU, "xml", REL, FILTER | CHECK, 0 },
    { SW, "perfetto", RAW, FILTER | CHECK, 0 },
    { EV, "text", REL, NAMES, 0 },          { EV, "xml", ABS, NAMES | CHECK, 0 },
    { SW, "csv", REL, NAMES, 0 },           { SU, "text", REL, NAMES, 0 },
    { SW, "text", REL, WFAIL, 0 },          { EV, "json", ABS, WFULL, 0 },
    { EV, "xml", RAW, WFULL, 0 },           { ST, "csv", REL, WFULL, 0 },
    { IN, "text", ABS, WFULL, 0 },          { SU, "xml", REL, WFULL, 0 },
    { EV, "csv", REL, NOFIELDS | THREADS, 0 }, { EV, "xml", RAW, NOFIELDS | THREADS | CHECK, 0 },
    { SU, "text", REL, ROUTINES | WFULL, 0 }, { US, "json", ABS, WFULL, 0 },
    { SW, "perfetto", REL, WFULL, 0 },      { SW, "svg", REL, WFULL, 0 },
    { EV, "text", REL, WFULL, 0 },          { SW, "xml", RAW, WFAIL, 0 },
};
_Static_assert(sizeof runs / sizeof runs[0] == FUZZ_FILE_RUNS, "fuzz_file.h: FUZZ_FILE_RUNS");

/* ---- --threads -------------------------------------------------------------
 * The worker thread counts (--threads=N) a run is made with: 0 is the
 * default (by the input's size), 1 the single-threaded path. The runs
 * marked THREADS are made with each value and compared with the first. */
static const unsigned thread_counts[] = { 0, 1, 2, 3 };

static void set_threads(struct etl_view_opts *vo, unsigned n)
{
    vo->threads = n;
}
/* ---- end of --threads ------------------------------------------------------ */

/* Problems counted during one run. */
static unsigned long problems;

static void on_problem(void *ctx, const char *name, uint64_t offset, const char *msg)
{
    (void)ctx;
    (void)offset;
    if (!name || !msg || !*msg)
        abort(); /* every problem has a message */
    problems++;
}

/* Every other message has a text. */
static void on_message(void *ctx, const char *name, const char *msg)
{
    (void)ctx;
    if (!name || !msg || !*msg)
        abort();
}

static void on_progress(void *ctx, const char *name, uint64_t done, uint64_t total)
{
    (void)ctx;
    if (!name || done > total)
        abort();
}

static const struct etl_messages messages = { NULL,       on_problem, on_message,
                                              on_message, on_message, on_progress };

static int null_fd = -1, ro_fd = -1;
static struct etl_filter *flt, *flt_names;
static struct capture input;
static struct capture first, other;

/* The filters and captures live as long as the process; freed at exit so a
 * leak checker sees nothing left. */
static void free_kept(void)
{
    etl_filter_free(flt);
    etl_filter_free(flt_names);
    flt = flt_names = NULL;
    capture_free(&input);
    capture_free(&first);
    capture_free(&other);
}

static void setup(void)
{
    if (null_fd >= 0)
        return;
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    ro_fd = open("/dev/null", O_RDONLY | O_CLOEXEC); /* writes fail (EBADF) */
    if (null_fd < 0 || ro_fd < 0)
        abort();
    /* The XML printer keeps libxml2's global tables until told it is done. */
    atexit(etl_library_end);
    atexit(free_kept);
    flt = etl_filter_new();
    char err[128];
    if (!flt || etl_filter_add(flt, ETL_FILTER_CPU, "0,2-3", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_TID, "0-5000", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_PROCESS, "system,svchost.exe", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_RANGE, "0.000001:", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_HOOK, "0x0524-0x0525,0x0501", err, sizeof err) != 0)
        abort();
    flt_names = etl_filter_new();
    if (!flt_names ||
        etl_filter_add(flt_names, ETL_FILTER_EVENTS, "Process,Image/Load,Thread/CSwitch,DPC",
                       err, sizeof err) != 0 ||
        etl_filter_add(flt_names, ETL_FILTER_PID, "0,4,100-20000", err, sizeof err) != 0)
        abort();
}

/* Puts the input where a run of flags o reads it: memory, a descriptor of
 * a memory file, its path, or a pipe (when the input fits in one; else the
 * descriptor). Returns the pipe's read end to close, or -1. */
static int place_input(const uint8_t *data, size_t size, unsigned flags, struct etl_input *in,
                       char *path, size_t cap)
{
    static const char name[] = "fuzz.etl";
    in->name = name;
    in->path = NULL;
    in->fd = -1;
    in->data = data;
    in->len = size;
    in->here = false; /* the memory file is used again by the next run: read whole */
    if (!(flags & (BYFD | BYPATH | BYPIPE)))
        return -1;
    int pfd[2];
    if ((flags & BYPIPE) && pipe(pfd) == 0) {
        int want = size > 1 ? (int)(size < (1u << 20) ? size : (1u << 20)) : 1;
        if (fcntl(pfd[1], F_SETPIPE_SZ, want) >= 0 && fcntl(pfd[1], F_GETPIPE_SZ) >= (int)want &&
            size <= (size_t)want && write(pfd[1], data, size) == (ssize_t)size) {
            close(pfd[1]);
            in->data = NULL;
            in->fd = pfd[0];
            return pfd[0];
        }
        close(pfd[0]);
        close(pfd[1]);
    }
    capture_reset(&input);
    if (size && pwrite(input.fd, data, size, 0) != (ssize_t)size)
        abort();
    in->data = NULL;
    if (flags & BYPATH) {
        snprintf(path, cap, "/proc/self/fd/%d", input.fd);
        in->path = path;
    } else {
        in->fd = input.fd;
    }
    return -1;
}

/* One etldump run: one view of the input through one printer, into c (or
 * /dev/null when c is NULL); returns how it ended. */
static enum etl_result run(const uint8_t *data, size_t size, const struct runopt *o,
                           unsigned threads, struct capture *c)
{
    if (c)
        capture_reset(c);
    int fd = c ? c->fd : null_fd, full[2] = { -1, -1 };
    if (o->flags & WFAIL) {
        fd = ro_fd;
    } else if (o->flags & WFULL) {
        /* A pipe nobody reads, that refuses more than its 4 KiB. */
        if (pipe2(full, O_NONBLOCK | O_CLOEXEC) != 0)
            abort();
        (void)fcntl(full[1], F_SETPIPE_SZ, 4096);
        fd = full[1];
    }
    struct etl_out *out = etl_out_new(fd);
    struct etl_printer *p = out ? etl_printer_new(o->format, out, o->tmode) : NULL;
    if (!p)
        abort();
    struct etl_print_opts po = { (o->flags & CRLF) != 0, (o->flags & NOHDR) != 0,
                                 (o->flags & FNAME) != 0, 12, (o->flags & FORMULAS) != 0 };
    etl_printer_set_options(p, &po);
    struct etl_view_opts vo;
    memset(&vo, 0, sizeof vo);
    vo.view = o->view;
    vo.strict = (o->flags & STRICT) != 0;
    vo.no_fields = (o->flags & NOFIELDS) != 0;
    vo.max_wait_reason = vo.strict ? 0x2A : 0;
    vo.filter = (o->flags & FILTER) ? flt : (o->flags & NAMES) ? flt_names : NULL;
    vo.summary_part = (o->flags & ROUTINES) ? ETL_SUMMARY_ROUTINES : ETL_SUMMARY_ALL;
    vo.usage_interval_ns = o->interval;
    set_threads(&vo, threads);
    struct etl_input in;
    char path[64];
    int opened = place_input(data, size, o->flags, &in, path, sizeof path);
    problems = 0;
    enum etl_result r = etl_dump(&in, &vo, p, &messages);
    if (opened >= 0)
        close(opened);
    if (r == ETL_RESULT_CLEAN && problems)
        abort(); /* a problem was reported, yet the run says it was clean */
    if (r == ETL_RESULT_DAMAGED && !problems)
        abort(); /* damage counted that nobody was told of */
    if (r == ETL_RESULT_NOMEM)
        abort(); /* memory is plenty here */
    bool wrote = etl_printer_finish(p) == 0;
    if ((o->flags & (WFAIL | WFULL)) == 0 && (r == ETL_RESULT_WRITE || !wrote))
        abort(); /* the output takes everything */
    if ((o->flags & WFAIL) && r != ETL_RESULT_WRITE && r != ETL_RESULT_UNREADABLE && wrote &&
        o->view != ETL_VIEW_SUMMARY)
        abort(); /* every view writes something, unless nothing could be read */
    etl_printer_free(p);
    etl_out_free(out);
    if (full[0] >= 0) {
        close(full[0]);
        close(full[1]);
    }
    if (c)
        capture_read(c);
    return r;
}

/* Reads back the output of a CHECK run. */
static void check_output(const struct runopt *o, enum etl_result r, const struct capture *c)
{
    if (strcmp(o->format, "xml") == 0)
        check_xml(c->buf, c->len, NULL);
    else if (r == ETL_RESULT_UNREADABLE)
        return; /* the outputs that are not tables write nothing then */
    else if (strcmp(o->format, "svg") == 0)
        check_xml(c->buf, c->len, "svg");
    else if (strcmp(o->format, "perfetto") == 0)
        check_perfetto(c->buf, c->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const size_t nruns = sizeof runs / sizeof runs[0];
    const size_t nthreads = sizeof thread_counts / sizeof thread_counts[0];
    if (size < 1)
        return 0;
    setup();
    const struct runopt *o = &runs[data[0] % nruns];
    size_t t0 = (size_t)(data[0] / nruns) % nthreads;
    data++;
    size--;
    bool again = (o->flags & THREADS) && nthreads > 1;
    bool keep = (o->flags & CHECK) || again;
    enum etl_result r = run(data, size, o, thread_counts[t0], keep ? &first : NULL);
    unsigned long p0 = problems;
    if (o->flags & CHECK)
        check_output(o, r, &first);
    for (size_t t = 0; again && t < nthreads; t++) {
        if (t == t0)
            continue;
        /* The same output, the same problems, whatever the threads. */
        if (run(data, size, o, thread_counts[t], &other) != r || problems != p0 ||
            other.len != first.len || (first.len && memcmp(other.buf, first.buf, first.len)))
            abort();
    }
    return 0;
}
