/*
 * fuzz_file.c - the whole file: the input is written to a memory file and
 * run through every view (switches, --events=all, --stats, --info,
 * --summary) with every printer (text, csv, xml, json), as etldump's
 * dump_file does, the output going to /dev/null. Time modes rotate over the
 * runs; two more runs use --strict and a given --max-wait-reason, four more
 * every kind of filter (--cpu, --tid, --process, --range, --hook).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "etl/etl.h"
#include "print/printer.h"
#include "view/view.h"

enum view { V_SWITCHES, V_EVENTS, V_STATS, V_INFO, V_SUMMARY, V_COUNT };

static const char *const formats[] = { "text", "csv", "xml", "json" };

static int data_fd = -1, null_fd = -1;
static char data_path[64];

struct diag_ctx {
    struct etl_printer *p;
    unsigned long n;
};

/* Hands a problem to the printer, as etldump's diag does. */
static void diag(void *vctx, uint64_t offset, const char *msg)
{
    struct diag_ctx *d = vctx;
    if (!msg || !*msg)
        abort(); /* every problem has a message */
    if (d->p)
        d->p->ops->problem(d->p, offset, msg);
    d->n++;
}

/* Creates the memory file (or a temporary file) and opens /dev/null once. */
static void setup(void)
{
    if (null_fd >= 0)
        return;
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    /* libxml2 (the XML printer) keeps global tables until told it is done. */
    xmlInitParser();
    atexit(xmlCleanupParser);
    data_fd = memfd_create("fuzz_file.etl", MFD_CLOEXEC);
    if (data_fd >= 0) {
        snprintf(data_path, sizeof data_path, "/proc/self/fd/%d", data_fd);
        if (access(data_path, R_OK) == 0)
            return;
        close(data_fd);
    }
    char tmpl[] = "/tmp/fuzz_file.XXXXXX";
    data_fd = mkstemp(tmpl);
    if (data_fd < 0 || null_fd < 0)
        abort();
    unlink(tmpl); /* still reachable through /proc while open */
    snprintf(data_path, sizeof data_path, "/proc/self/fd/%d", data_fd);
}

/* Replaces the file's contents with data. */
static void store(const uint8_t *data, size_t size)
{
    if (ftruncate(data_fd, 0) != 0)
        abort();
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(data_fd, data + done, size - done, (off_t)done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
}

/* One etldump run: one view of the file through one printer. */
static void run(const char *format, enum view view, enum etl_time_mode tmode,
                const struct etl_view_opts *vo)
{
    struct etl_out out;
    if (!etl_out_init(&out, null_fd, 1 << 16))
        abort();
    struct etl_printer *p = etl_printer_new(format, &out, tmode);
    if (!p)
        abort();
    /* As dump_file does: the file's element first, then the file. */
    struct diag_ctx d = { p, 0 };
    int rc = p->ops->begin_file(p, data_path, NULL);
    struct etl_file f;
    if (rc == 0 && etl_open(&f, data_path, diag, &d) == ETL_OPEN_OK) {
        struct etl_clock clk;
        etl_clock_from_header(&clk, &f.hdr);
        p->clock = clk;
        if (view == V_INFO || p->ops->wants_info)
            rc = etl_view_info_scan(p, &f, view == V_INFO);
        if (rc == 0) {
            switch (view) {
            case V_STATS:
                rc = etl_view_stats(p, &f, vo);
                break;
            case V_EVENTS:
                rc = etl_view_events(p, &f, vo);
                break;
            case V_SUMMARY:
                rc = etl_view_summary(p, &f, vo);
                break;
            case V_SWITCHES:
                rc = etl_view_switches(p, &f, vo);
                break;
            default:
                break;
            }
        }
        if (f.problems != d.n)
            abort(); /* every problem counted was reported */
        etl_close(&f);
    } else if (rc == 0) {
        p->ops->problem(p, 0, "not an ETL file");
    }
    if (rc == 0)
        p->ops->end_file(p);
    p->ops->finish(p);
    etl_printer_free(p);
    etl_out_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    store(data, size);
    struct etl_view_opts vo;
    memset(&vo, 0, sizeof vo);
    for (unsigned fi = 0; fi < 4; fi++)
        for (unsigned v = 0; v < V_COUNT; v++)
            run(formats[fi], (enum view)v, (enum etl_time_mode)((fi + v) % 3), &vo);
    /* --strict with a given bias; then filters of every kind. */
    vo.strict = true;
    vo.max_wait_reason = 0x2A;
    run("csv", V_SWITCHES, ETL_TIME_ABS, &vo);
    run("json", V_EVENTS, ETL_TIME_REL, &vo);
    struct etl_filter flt;
    memset(&flt, 0, sizeof flt);
    char err[128];
    if (!etl_filter_add(&flt, ETL_FILTER_CPU, "0,2-3", err, sizeof err) ||
        !etl_filter_add(&flt, ETL_FILTER_TID, "0-5000", err, sizeof err) ||
        !etl_filter_add(&flt, ETL_FILTER_PROCESS, "system,svchost.exe", err, sizeof err) ||
        !etl_filter_add(&flt, ETL_FILTER_RANGE, "0.000001:", err, sizeof err) ||
        !etl_filter_add(&flt, ETL_FILTER_HOOK, "0x0524-0x0525,0x0501", err, sizeof err))
        abort();
    memset(&vo, 0, sizeof vo);
    vo.filter = &flt;
    run("text", V_SWITCHES, ETL_TIME_REL, &vo);
    run("csv", V_EVENTS, ETL_TIME_RAW, &vo);
    run("json", V_STATS, ETL_TIME_ABS, &vo);
    run("xml", V_SUMMARY, ETL_TIME_REL, &vo);
    etl_filter_free(&flt);
    return 0;
}
