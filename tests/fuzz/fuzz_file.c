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
 * more entries use --strict with a given --max-wait-reason, and filters of
 * every kind (--cpu, --tid, --process, --range, --hook).
 *
 * Checks that every problem has a message and that a clean result means no
 * problem was reported; the outputs of the entries marked CHECK are read
 * back (export_check.h: the Perfetto trace walked as protobuf, XML and SVG
 * parsed). Entries marked THREADS are run once per value of thread_counts
 * (byte 0 / the table's length picks the first), and their outputs and
 * results must be the same each time.
 *
 * tests/fuzz/cutseeds.c writes the seeds of this target: traces and their
 * first buffers, each behind a selector byte.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etldump.h"
#include "export_check.h"

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

static const struct runopt runs[] = {
    { SW, "text", REL, NOHDR, 0 },          { SW, "csv", RAW, CRLF | FNAME | THREADS, 0 },
    { SW, "xml", ABS, CHECK, 0 },           { SW, "json", REL, FNAME, 0 },
    { EV, "text", RAW, FNAME, 0 },          { EV, "csv", ABS, NOHDR, 0 },
    { EV, "xml", REL, FNAME | CHECK, 0 },   { EV, "json", RAW, THREADS, 0 },
    { ST, "text", ABS, 0, 0 },              { ST, "csv", REL, CRLF, 0 },
    { ST, "xml", RAW, CHECK, 0 },           { ST, "json", ABS, THREADS, 0 },
    { IN, "text", REL, FNAME, 0 },          { IN, "csv", RAW, NOHDR, 0 },
    { IN, "xml", ABS, CHECK, 0 },           { IN, "json", REL, 0, 0 },
    { SU, "text", RAW, THREADS, 0 },        { SU, "csv", ABS, FNAME | CRLF, 0 },
    { SU, "xml", REL, CHECK, 0 },           { SU, "json", RAW, 0, 0 },
    { SU, "text", ABS, ROUTINES | NOHDR, 0 }, { SU, "json", REL, ROUTINES, 0 },
    { US, "text", REL, 0, 0 },              { US, "csv", RAW, THREADS, 0 },
    { US, "xml", ABS, CHECK | FILTER, 20000000 }, { US, "json", REL, FNAME, 0 },
    { SW, "perfetto", REL, CHECK | THREADS, 0 }, { SW, "svg", REL, CHECK | THREADS, 0 },
    { US, "svg", ABS, CHECK | FILTER, 5000000 },
    { SW, "csv", ABS, STRICT, 0 },          { EV, "json", REL, STRICT, 0 },
    { SW, "text", REL, FILTER, 0 },         { EV, "csv", RAW, FILTER, 0 },
    { ST, "json", ABS, FILTER, 0 },         { SU, "xml", REL, FILTER | CHECK, 0 },
    { SW, "perfetto", RAW, FILTER | CHECK, 0 },
};

/* ---- --threads -------------------------------------------------------------
 * The worker thread counts (--threads=N) a run is made with: 0 is the
 * default. More values go here once struct etl_view_opts has the option,
 * and set_threads puts one into a run's options; the runs marked THREADS
 * are then made with each value and compared with the first. */
static const unsigned thread_counts[] = { 0 };

static void set_threads(struct etl_view_opts *vo, unsigned n)
{
    (void)vo;
    (void)n;
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

static const struct etl_messages messages = { NULL, on_problem, NULL, NULL, NULL, NULL };

static int null_fd = -1;
static struct etl_filter *flt;
static struct capture first, other;

static void setup(void)
{
    if (null_fd >= 0)
        return;
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd < 0)
        abort();
    /* The XML printer keeps libxml2's global tables until told it is done. */
    atexit(etl_library_end);
    flt = etl_filter_new();
    char err[128];
    if (!flt || etl_filter_add(flt, ETL_FILTER_CPU, "0,2-3", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_TID, "0-5000", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_PROCESS, "system,svchost.exe", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_RANGE, "0.000001:", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_HOOK, "0x0524-0x0525,0x0501", err, sizeof err) != 0)
        abort();
}

/* One etldump run: one view of the input through one printer, into c (or
 * /dev/null when c is NULL); returns how it ended. */
static enum etl_result run(const uint8_t *data, size_t size, const struct runopt *o,
                           unsigned threads, struct capture *c)
{
    if (c)
        capture_reset(c);
    struct etl_out *out = etl_out_new(c ? c->fd : null_fd);
    struct etl_printer *p = out ? etl_printer_new(o->format, out, o->tmode) : NULL;
    if (!p)
        abort();
    struct etl_print_opts po = { (o->flags & CRLF) != 0, (o->flags & NOHDR) != 0,
                                 (o->flags & FNAME) != 0, 12 };
    etl_printer_set_options(p, &po);
    struct etl_view_opts vo;
    memset(&vo, 0, sizeof vo);
    vo.view = o->view;
    vo.strict = (o->flags & STRICT) != 0;
    vo.max_wait_reason = vo.strict ? 0x2A : 0;
    vo.filter = (o->flags & FILTER) ? flt : NULL;
    vo.summary_part = (o->flags & ROUTINES) ? ETL_SUMMARY_ROUTINES : ETL_SUMMARY_ALL;
    vo.usage_interval_ns = o->interval;
    set_threads(&vo, threads);
    struct etl_input in = { "fuzz.etl", NULL, -1, data, size };
    problems = 0;
    enum etl_result r = etl_dump(&in, &vo, p, &messages);
    if (r == ETL_RESULT_CLEAN && problems)
        abort(); /* a problem was reported, yet the run says it was clean */
    if (r == ETL_RESULT_DAMAGED && !problems)
        abort(); /* damage counted that nobody was told of */
    if (r == ETL_RESULT_WRITE || r == ETL_RESULT_NOMEM)
        abort(); /* the output takes everything; memory is plenty here */
    if (etl_printer_finish(p) != 0)
        abort();
    etl_printer_free(p);
    etl_out_free(out);
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
