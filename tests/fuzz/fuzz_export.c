/*
 * fuzz_export.c - the outputs drawn from the switches, on a whole file (the
 * input, as a memory block, through etl_dump as etldump runs it): -f
 * perfetto (plain, with filters, with --strict), -f svg (the switch view,
 * and with --usage=INTERVAL and filters) and the --usage view through each
 * table printer with each time mode, intervals and filters. The outputs are
 * captured and read back (export_check.h): the Perfetto trace walked as the
 * protobuf wire format, the SVG picture and the XML output parsed with
 * libxml2. As fuzz_file.c, checks that every problem has a message and
 * that the result agrees with the problems reported.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etldump.h"
#include "export_check.h"

static unsigned long problems;

static void on_problem(void *ctx, const char *name, uint64_t offset, const char *msg)
{
    (void)ctx;
    (void)offset;
    if (!name || !msg || !*msg)
        abort();
    problems++;
}

static const struct etl_messages messages = { NULL, on_problem, NULL, NULL, NULL, NULL };

static struct capture cap;
static struct etl_filter *flt_ct, *flt_proc;

/* The filters and the capture live as long as the process; freed at exit so
 * a leak checker sees nothing left. */
static void free_kept(void)
{
    etl_filter_free(flt_ct);
    etl_filter_free(flt_proc);
    flt_ct = flt_proc = NULL;
    capture_free(&cap);
}

/* The filters: --cpu, --tid and --range (which Perfetto takes in part), and
 * --process, --pid and --range for the picture and the usage view. */
static void setup(void)
{
    if (flt_ct)
        return;
    atexit(etl_library_end);
    atexit(free_kept);
    char err[128];
    flt_ct = etl_filter_new();
    flt_proc = etl_filter_new();
    if (!flt_ct || !flt_proc ||
        etl_filter_add(flt_ct, ETL_FILTER_CPU, "0,2-3", err, sizeof err) != 0 ||
        etl_filter_add(flt_ct, ETL_FILTER_TID, "0-5000", err, sizeof err) != 0 ||
        etl_filter_add(flt_ct, ETL_FILTER_RANGE, "0.0001:0.5", err, sizeof err) != 0 ||
        etl_filter_add(flt_proc, ETL_FILTER_PROCESS, "system,svchost.exe", err, sizeof err) != 0 ||
        etl_filter_add(flt_proc, ETL_FILTER_PID, "0-1000", err, sizeof err) != 0 ||
        etl_filter_add(flt_proc, ETL_FILTER_RANGE, ":0.25", err, sizeof err) != 0)
        abort();
}

/* One run: view of the input through format, the output captured and
 * checked. */
static void run(const uint8_t *data, size_t size, const char *format, enum etl_time_mode tmode,
                enum etl_view_kind view, const struct etl_filter *flt, int64_t interval,
                bool strict)
{
    char err[256];
    if (etl_format_check(format, view, 1, false, err, sizeof err) != 0)
        abort(); /* only what etldump accepts */
    capture_reset(&cap);
    struct etl_out *out = etl_out_new(cap.fd);
    struct etl_printer *p = out ? etl_printer_new(format, out, tmode) : NULL;
    if (!p)
        abort();
    struct etl_view_opts vo;
    memset(&vo, 0, sizeof vo);
    vo.view = view;
    vo.filter = flt;
    vo.usage_interval_ns = interval;
    vo.strict = strict;
    struct etl_input in = { "fuzz.etl", NULL, -1, data, size, false };
    problems = 0;
    enum etl_result r = etl_dump(&in, &vo, p, &messages);
    if ((r == ETL_RESULT_CLEAN && problems) || (r == ETL_RESULT_DAMAGED && !problems) ||
        r == ETL_RESULT_WRITE || r == ETL_RESULT_NOMEM)
        abort();
    if (etl_printer_finish(p) != 0)
        abort();
    etl_printer_free(p);
    etl_out_free(out);
    capture_read(&cap);
    if (strcmp(format, "perfetto") == 0) {
        if (r != ETL_RESULT_UNREADABLE)
            check_perfetto(cap.buf, cap.len);
    } else if (strcmp(format, "svg") == 0) {
        if (r != ETL_RESULT_UNREADABLE)
            check_xml(cap.buf, cap.len, "svg");
    } else if (strcmp(format, "xml") == 0) {
        check_xml(cap.buf, cap.len, NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    run(data, size, "perfetto", ETL_TIME_REL, ETL_VIEW_SWITCHES, NULL, 0, false);
    run(data, size, "perfetto", ETL_TIME_REL, ETL_VIEW_SWITCHES, flt_ct, 0, false);
    run(data, size, "perfetto", ETL_TIME_REL, ETL_VIEW_SWITCHES, flt_proc, 0, true);
    run(data, size, "svg", ETL_TIME_REL, ETL_VIEW_SWITCHES, NULL, 0, false);
    run(data, size, "svg", ETL_TIME_ABS, ETL_VIEW_USAGE, flt_proc, 1000000, false);
    run(data, size, "svg", ETL_TIME_RAW, ETL_VIEW_SWITCHES, flt_ct, 0, false);
    run(data, size, "csv", ETL_TIME_REL, ETL_VIEW_USAGE, NULL, 0, false);
    run(data, size, "text", ETL_TIME_ABS, ETL_VIEW_USAGE, flt_ct, 100000, false);
    run(data, size, "json", ETL_TIME_RAW, ETL_VIEW_USAGE, flt_proc, 10000000, true);
    run(data, size, "xml", ETL_TIME_REL, ETL_VIEW_USAGE, NULL, 0, false);
    return 0;
}
