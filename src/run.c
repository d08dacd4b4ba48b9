/*
 * run.c - the library's entry points (etldump.h): one input through one
 * view and one printer, and the views that read no trace.
 */
#include "etldump.h"
#include "spill.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/groupmask.h"
#include "fmt.h"
#include "decode/loggerctx.h"
#include "etl/etl.h"
#include "pipeline.h"
#include "print/printer.h"
#include "view/groupmask.h"
#include "view/loggerctx.h"
#include "view/view.h"
#include "xmlsetup.h"

/* Messages about one input on their way to the tool and the printer. */
struct run_ctx {
    const struct etl_messages *m;
    const char *name;
    struct etl_printer *p;
};

/* A problem goes into the output (where the format has room for it) and to
 * the tool. */
static void run_problem(void *vctx, uint64_t offset, const char *msg)
{
    struct run_ctx *x = vctx;
    etl_print_problem(x->p, offset, msg);
    if (x->m && x->m->problem)
        x->m->problem(x->m->ctx, x->name, offset, msg);
}

static void run_warning(void *vctx, const char *msg)
{
    struct run_ctx *x = vctx;
    if (x->m && x->m->warning)
        x->m->warning(x->m->ctx, x->name, msg);
}

static void run_note(void *vctx, const char *msg)
{
    struct run_ctx *x = vctx;
    if (x->m && x->m->note)
        x->m->note(x->m->ctx, x->name, msg);
}

static void run_progress(void *vctx, uint64_t done, uint64_t total)
{
    struct run_ctx *x = vctx;
    if (x->m && x->m->progress)
        x->m->progress(x->m->ctx, x->name, done, total);
}

/* One warning per file when the trace says events or buffers were lost. */
static void lost_warning(struct etl_file *f)
{
    const struct etl_logfile *h = etl_file_header(f);
    const struct etl_buffer_totals *t = etl_file_totals(f);
    if (!h->events_lost && !h->buffers_lost && !t->events_lost_flagged &&
        !t->buffer_lost_flagged)
        return;
    etl_warn(f, "the trace lost data: %u events and %u buffers by its header; %llu "
             "buffers flagged as having lost events, %llu as following lost buffers",
             (unsigned)h->events_lost, (unsigned)h->buffers_lost,
             (unsigned long long)t->events_lost_flagged,
             (unsigned long long)t->buffer_lost_flagged);
}

/* Warns when the header gave no usable clock frequency (format.md §5). */
static void clock_warning(struct etl_file *f)
{
    const struct etl_logfile *h = etl_file_header(f);
    if (etl_file_clock(f)->valid)
        return;
    etl_warn(f, "the logfile header gives no clock frequency (%s %lld): times were "
                "computed at 10 MHz",
             h->clock_type == 3 ? "CpuSpeedInMHz" : "PerfFreq",
             h->clock_type == 3 ? (long long)h->cpu_mhz : (long long)h->perf_freq);
}

/* One line naming the trace, for printers that show one before the rows. */
static int describe(struct etl_printer *p, struct etl_file *f)
{
    const struct etl_logfile *h = etl_file_header(f);
    char start[48], line[768];
    if (p->time_mode == ETL_TIME_LOCAL) /* as the rows show times (etl_run_view set tz) */
        etl_filetime_iso_local(h->start_time,
                               etl_tz_offset_in(&p->tz, &p->tz_year, h->start_time), start);
    else
        etl_filetime_iso(h->start_time, start);
    snprintf(line, sizeof line, "%s: Windows %u.%u build %u, %u CPUs, started %s",
             etl_file_name(f), h->version[0], h->version[1], (unsigned)h->build,
             (unsigned)h->cpus, start);
    return etl_print_describe(p, line);
}

int etl_run_view(struct etl_printer *p, struct etl_file *f, const struct etl_view_opts *o)
{
    p->clock = *etl_file_clock(f);
    p->tz = etl_file_header(f)->tz;
    etl_tz_year_init(&p->tz_year, &p->tz, etl_file_header(f)->start_time);
    if (p->ops->export) /* an output that is not a table reads the file itself */
        return p->ops->export(p, f, o);
    int rc = 0;
    if (o->view == ETL_VIEW_INFO || p->ops->wants_info)
        rc = etl_view_info_scan(p, f, o->view == ETL_VIEW_INFO, o->strict);
    else
        rc = describe(p, f);
    if (rc != 0 || etl_file_is_nomem(f))
        return rc;
    switch (o->view) {
    case ETL_VIEW_INFO:
        return 0;
    case ETL_VIEW_STATS:
        return etl_view_stats(p, f, o);
    case ETL_VIEW_EVENTS:
        return etl_view_events(p, f, o);
    case ETL_VIEW_SUMMARY:
        return etl_view_summary(p, f, o);
    case ETL_VIEW_USAGE:
        return etl_view_usage(p, f, o);
    default:
        return etl_view_switches(p, f, o);
    }
}

/* The result of a run that could not write its output. */
static enum etl_result write_failed(const struct etl_printer *p)
{
    return p->out->err == ENOMEM ? ETL_RESULT_NOMEM : ETL_RESULT_WRITE;
}

/* Opens an input; NULL on failure (*st says why). */
static struct etl_file *open_input(const struct etl_input *in, const struct etl_diag *d,
                                   enum etl_open_status *st)
{
    if (in->path)
        return etl_open_path(in->path, d, st);
    if (in->fd >= 0)
        return in->here ? etl_open_fd_here(in->fd, in->name, d, st)
                        : etl_open_fd(in->fd, in->name, d, st);
    return etl_open_mem(in->data, in->len, in->name, d, st);
}

static enum etl_result dump(const struct etl_input *in, const struct etl_view_opts *o,
                           struct etl_printer *p, const struct etl_messages *m)
{
    /* The file's element opens first, so problems found while indexing the
     * buffers are recorded inside it. */
    struct run_ctx x = { m, in->name, p };
    if (etl_print_begin_file(p, in->name) != 0)
        return write_failed(p);
    struct etl_diag d = { run_problem, run_warning, run_note, run_progress, &x };
    enum etl_open_status st;
    struct etl_file *f = open_input(in, &d, &st);
    if (!f) {
        if (st == ETL_OPEN_NOMEM)
            return ETL_RESULT_NOMEM;
        if (st == ETL_OPEN_IO || st == ETL_OPEN_TEMP) {
            char temp[512];
            const char *why = strerror(errno);
            if (st == ETL_OPEN_TEMP) {
                snprintf(temp, sizeof temp, "cannot copy it to a temporary file in %s: %s",
                         etl_temp_dir(), why);
                why = temp;
            }
            etl_print_problem(p, 0, why);
            if (m && m->unreadable)
                m->unreadable(m->ctx, in->name, why);
        } else {
            run_problem(&x, 0, st == ETL_OPEN_EMPTY ? "not an ETL file (empty)"
                               : st == ETL_OPEN_CUT
                                   ? "truncated: the file ends inside its logfile header"
                                   : "not an ETL file (no logfile header at the start)");
        }
        return etl_print_end_file(p) != 0 ? write_failed(p) : ETL_RESULT_UNREADABLE;
    }
    /* --stats walks the file in order and indexes the buffers as it reads
     * them. The other views, and --strict (which stops at the first
     * problem, those of the index included, before any event as in every
     * view), have them indexed now, so that the problems found doing so are
     * said first. */
    if ((o->view != ETL_VIEW_STATS || o->strict) && !etl_file_index(f)) {
        etl_close(f);
        return ETL_RESULT_NOMEM;
    }
    etl_file_set_threads(f, etl_pipe_threads(o->threads, etl_file_size(f)));
    int rc = etl_run_view(p, f, o);
    if (rc == 0 && !etl_file_is_nomem(f))
        rc = etl_print_end_file(p);
    /* Said last, after the output: a problem found while reading stays the
     * first message. */
    if (rc == 0 && !etl_file_is_nomem(f)) {
        lost_warning(f);
        clock_warning(f);
    }
    enum etl_result res = ETL_RESULT_CLEAN;
    if (etl_file_is_temp_lost(f))
        res = ETL_RESULT_TEMP_LOST;
    else if (etl_file_is_nomem(f))
        res = ETL_RESULT_NOMEM;
    else if (rc != 0)
        res = write_failed(p);
    else if (etl_file_problems(f))
        res = ETL_RESULT_DAMAGED;
    etl_close(f);
    return res;
}

enum etl_result etl_dump(const struct etl_input *in, const struct etl_view_opts *o,
                         struct etl_printer *p, const struct etl_messages *m)
{
    unsigned long refused = etl_xml_refused();
    enum etl_result r = dump(in, o, p, m);
    /* What needed libxml2 in this run and could not load it (the XML
     * printer, an EventSource manifest) ended it as when memory runs out. */
    if (r == ETL_RESULT_NOMEM && etl_xml_refused() != refused)
        r = ETL_RESULT_NO_LIBXML2;
    return r;
}

int etl_format_check(const char *format, enum etl_view_kind view, int ninputs,
                     bool to_terminal, char *err, size_t cap)
{
    bool svg = strcmp(format, "svg") == 0, perfetto = strcmp(format, "perfetto") == 0;
    if (!svg && !perfetto)
        return 0;
    if (view != ETL_VIEW_SWITCHES && !(svg && view == ETL_VIEW_USAGE)) {
        snprintf(err, cap, "-f %s draws the context switches: it goes with no view "
                 "option%s", format, svg ? " but --usage (the interval of its chart)" : "");
        return -1;
    }
    if (ninputs != 1) {
        snprintf(err, cap, "-f %s writes one input FILE", format);
        return -1;
    }
    if (perfetto && to_terminal) {
        snprintf(err, cap, "-f perfetto writes binary data: not to a terminal "
                 "(use -o FILE.pftrace)");
        return -1;
    }
    return 0;
}

int etl_groupmask_check(const char *list, char *err, size_t cap)
{
    struct etl_groupmask gm;
    char bad[64];
    switch (etl_groupmask_parse(list, &gm, bad, sizeof bad)) {
    case ETL_GM_OK:
        return 0;
    case ETL_GM_UNKNOWN:
        snprintf(err, cap, "--groupmask: unknown name '%s' (PERF_* or "
                 "EVENT_TRACE_FLAG_* names, or 32-bit values)", bad);
        return -1;
    case ETL_GM_RANGE:
        snprintf(err, cap, "--groupmask: '%s' is not a 32-bit value", bad);
        return -1;
    default:
        snprintf(err, cap, "--groupmask: empty item in '%s'", list);
        return -1;
    }
}

int etl_run_groupmask(struct etl_printer *p, const char *list)
{
    struct etl_groupmask gm;
    char bad[64];
    if (etl_groupmask_parse(list, &gm, bad, sizeof bad) != ETL_GM_OK)
        return -1;
    return etl_view_groupmask(p, &gm);
}

int etl_logger_context_check(const char *windows, const char *arch, char *err, size_t cap)
{
    enum etl_win win;
    enum etl_arch ar;
    if (!windows || !arch) {
        snprintf(err, cap, "--logger-context needs --windows=6.1|6.2|6.3|10.0 and "
                 "--arch=x86|x64");
        return -1;
    }
    if (!etl_win_parse(windows, &win)) {
        snprintf(err, cap, "--windows takes 6.1, 6.2, 6.3 or 10.0");
        return -1;
    }
    if (!etl_arch_parse(arch, &ar)) {
        snprintf(err, cap, "--arch takes x86 or x64");
        return -1;
    }
    return 0;
}

char *etl_logger_context_file(const char *spec)
{
    char *path;
    uint64_t offset;
    return etl_lc_spec_parse(spec, &path, &offset) ? path : NULL;
}

int etl_run_logger_context(struct etl_printer *p, const char *spec, const char *windows,
                           const char *arch, char *err, size_t cap)
{
    enum etl_win win;
    enum etl_arch ar;
    if (!etl_win_parse(windows, &win) || !etl_arch_parse(arch, &ar)) {
        snprintf(err, cap, "bad layout");
        return -2;
    }
    char *path;
    uint64_t offset;
    if (!etl_lc_spec_parse(spec, &path, &offset))
        return -3;
    int rc = etl_view_logger_context(p, path, offset, win, ar, err, cap);
    free(path);
    return rc;
}
