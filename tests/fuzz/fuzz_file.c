/*
 * fuzz_file.c - the whole file: the input, as a memory block, goes through
 * the library's one entry point (etl_dump, as the etldump tool calls it)
 * with every view (switches, --events=all, --stats, --info, --summary) and
 * every printer (text, csv, xml, json), the output going to /dev/null.
 * Time modes rotate over the runs; two more runs use --strict and a given
 * --max-wait-reason, four more every kind of filter (--cpu, --tid,
 * --process, --range, --hook). Checks that every problem has a message and
 * that a clean result means no problem was reported.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etldump.h"

static const char *const formats[] = { "text", "csv", "xml", "json" };
static const enum etl_view_kind views[] = { ETL_VIEW_SWITCHES, ETL_VIEW_EVENTS,
                                            ETL_VIEW_STATS, ETL_VIEW_INFO,
                                            ETL_VIEW_SUMMARY };

static int null_fd = -1;

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

/* Opens /dev/null once. */
static void setup(void)
{
    if (null_fd >= 0)
        return;
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd < 0)
        abort();
    /* The XML printer keeps libxml2's global tables until told it is done. */
    atexit(etl_library_end);
}

/* One etldump run: one view of the input through one printer. */
static void run(const uint8_t *data, size_t size, const char *format,
                enum etl_time_mode tmode, const struct etl_view_opts *vo)
{
    struct etl_out *out = etl_out_new(null_fd);
    struct etl_printer *p = out ? etl_printer_new(format, out, tmode) : NULL;
    if (!p)
        abort();
    struct etl_input in = { "fuzz.etl", NULL, -1, data, size };
    problems = 0;
    enum etl_result r = etl_dump(&in, vo, p, &messages);
    if (r == ETL_RESULT_CLEAN && problems)
        abort(); /* a problem was reported, yet the run says it was clean */
    if (r == ETL_RESULT_DAMAGED && !problems)
        abort(); /* damage counted that nobody was told of */
    if (r == ETL_RESULT_WRITE || r == ETL_RESULT_NOMEM)
        abort(); /* /dev/null takes everything; memory is plenty here */
    etl_printer_finish(p);
    etl_printer_free(p);
    etl_out_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    struct etl_view_opts vo;
    memset(&vo, 0, sizeof vo);
    for (unsigned fi = 0; fi < 4; fi++)
        for (unsigned v = 0; v < sizeof views / sizeof views[0]; v++) {
            vo.view = views[v];
            run(data, size, formats[fi], (enum etl_time_mode)((fi + v) % 3), &vo);
        }
    /* --strict with a given bias; then filters of every kind. */
    vo.strict = true;
    vo.max_wait_reason = 0x2A;
    vo.view = ETL_VIEW_SWITCHES;
    run(data, size, "csv", ETL_TIME_ABS, &vo);
    vo.view = ETL_VIEW_EVENTS;
    run(data, size, "json", ETL_TIME_REL, &vo);
    struct etl_filter *flt = etl_filter_new();
    char err[128];
    if (!flt || etl_filter_add(flt, ETL_FILTER_CPU, "0,2-3", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_TID, "0-5000", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_PROCESS, "system,svchost.exe", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_RANGE, "0.000001:", err, sizeof err) != 0 ||
        etl_filter_add(flt, ETL_FILTER_HOOK, "0x0524-0x0525,0x0501", err, sizeof err) != 0)
        abort();
    memset(&vo, 0, sizeof vo);
    vo.filter = flt;
    vo.view = ETL_VIEW_SWITCHES;
    run(data, size, "text", ETL_TIME_REL, &vo);
    vo.view = ETL_VIEW_EVENTS;
    run(data, size, "csv", ETL_TIME_RAW, &vo);
    vo.view = ETL_VIEW_STATS;
    run(data, size, "json", ETL_TIME_ABS, &vo);
    vo.view = ETL_VIEW_SUMMARY;
    run(data, size, "xml", ETL_TIME_REL, &vo);
    etl_filter_free(flt);
    return 0;
}
