/*
 * fuzz_args.c - the arguments of the options that take text, as etldump's
 * option parser hands them to the library. Byte 0 picks the option, the
 * rest of the input is its argument (a C string: cut at its first NUL):
 *   0-6  etl_filter_add for --cpu, --tid, --pid, --process, --range,
 *        --hook and --events=NAMES, twice over one filter (repeating an
 *        option adds to it);
 *   7    --groupmask: etl_groupmask_check, then, when the list passed,
 *        etl_run_groupmask through each printer;
 *   8    --usage=INTERVAL: etl_usage_interval_parse;
 *   9    -f FORMAT: etl_printer_exists and etl_format_check with each view,
 *        one and two inputs, to a terminal and not;
 *   10   --windows=VERSION,--arch=ARCH of --logger-context (the argument
 *        split at its first comma): etl_logger_context_check;
 *   0xF0-0xFF (before the 11 above: byte 0 % 11 for the rest)
 *        --logger-context FILE[@OFFSET]: etl_run_logger_context with the
 *        argument as a spec inside a scratch directory holding "m", a
 *        1 KiB memory image (an argument with ".." is not run), with the
 *        layout picked by byte 0 % 4: 10.0 x64, 6.1 x86, 6.3 x64 or a
 *        Windows version that does not exist.
 * Checks: each call returns one of its documented results, a refusal
 * comes with a message that fits its buffer, and a parsed interval is
 * positive.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etldump.h"

static int null_fd = -1;

/* A refusal's message: not empty, inside its buffer. */
static void message(const char *err, size_t cap)
{
    size_t n = strnlen(err, cap);
    if (n == 0 || n >= cap)
        abort();
}

static void filter(unsigned which, const char *arg)
{
    static const enum etl_filter_opt opts[7] = { ETL_FILTER_CPU,     ETL_FILTER_TID,
                                                 ETL_FILTER_PID,     ETL_FILTER_PROCESS,
                                                 ETL_FILTER_RANGE,   ETL_FILTER_HOOK,
                                                 ETL_FILTER_EVENTS };
    struct etl_filter *f = etl_filter_new();
    if (!f)
        abort();
    for (int i = 0; i < 2; i++) {
        char err[256];
        err[0] = '\0';
        int rc = etl_filter_add(f, opts[which], arg, err, sizeof err);
        if (rc == -1)
            message(err, sizeof err);
        else if (rc != 0)
            abort(); /* -2: memory does not run out here */
    }
    if (etl_filter_has_hook(f) && !etl_filter_any(f))
        abort();
    etl_filter_free(f);
}

static void groupmask(const char *arg)
{
    static const char *const formats[] = { "text", "csv", "xml", "json" };
    char err[256];
    err[0] = '\0';
    if (etl_groupmask_check(arg, err, sizeof err) != 0) {
        message(err, sizeof err);
        return;
    }
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        struct etl_out *out = etl_out_new(null_fd);
        struct etl_printer *p = out ? etl_printer_new(formats[i], out, ETL_TIME_REL) : NULL;
        if (!p || etl_run_groupmask(p, arg) != 0 || etl_printer_finish(p) != 0)
            abort();
        etl_printer_free(p);
        etl_out_free(out);
    }
}

static void interval(const char *arg)
{
    char err[256];
    int64_t ns = -1;
    err[0] = '\0';
    int rc = etl_usage_interval_parse(arg, &ns, err, sizeof err);
    if (rc == 0 ? ns <= 0 : rc != -1)
        abort();
    if (rc != 0)
        message(err, sizeof err);
}

static void format(const char *arg)
{
    static const enum etl_view_kind views[] = { ETL_VIEW_SWITCHES, ETL_VIEW_EVENTS,
                                                ETL_VIEW_INFO,     ETL_VIEW_STATS,
                                                ETL_VIEW_SUMMARY,  ETL_VIEW_USAGE };
    (void)etl_printer_exists(arg);
    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++)
        for (int n = 1; n <= 2; n++)
            for (int tty = 0; tty <= 1; tty++) {
                char err[256];
                err[0] = '\0';
                int rc = etl_format_check(arg, views[v], n, tty != 0, err, sizeof err);
                if (rc == -1)
                    message(err, sizeof err);
                else if (rc != 0)
                    abort();
            }
}

static void layout(char *arg)
{
    char *arch = strchr(arg, ',');
    if (arch)
        *arch++ = '\0';
    char err[256];
    err[0] = '\0';
    int rc = etl_logger_context_check(arg, arch, err, sizeof err);
    if (rc == -1)
        message(err, sizeof err);
    else if (rc != 0)
        abort();
}

/* The scratch directory of the logger-context specs, made once. */
static char lc_dir[64];

static void lc_cleanup(void)
{
    char m[80];
    snprintf(m, sizeof m, "%s/m", lc_dir);
    unlink(m);
    rmdir(lc_dir);
}

static void lc_setup(void)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 40)
        tmp = "/tmp";
    snprintf(lc_dir, sizeof lc_dir, "%s/fuzz_args.XXXXXX", tmp);
    if (!mkdtemp(lc_dir))
        abort();
    atexit(lc_cleanup);
    char m[80];
    snprintf(m, sizeof m, "%s/m", lc_dir);
    uint8_t image[0x400];
    for (size_t i = 0; i < sizeof image; i++)
        image[i] = (uint8_t)(i * 37u + 11u);
    int fd = open(m, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, image, sizeof image) != (ssize_t)sizeof image || close(fd) != 0)
        abort();
}

static void logger_context(unsigned pick, const char *arg)
{
    static const char *const layouts[4][2] = {
        { "10.0", "x64" }, { "6.1", "x86" }, { "6.3", "x64" }, { "5.1", "x64" }
    };
    if (strstr(arg, ".."))
        return; /* stays inside the scratch directory */
    if (!lc_dir[0])
        lc_setup();
    size_t n = strlen(lc_dir) + 1 + strlen(arg) + 1;
    char *spec = malloc(n);
    struct etl_out *out = etl_out_new(null_fd);
    struct etl_printer *p = out ? etl_printer_new("text", out, ETL_TIME_REL) : NULL;
    if (!spec || !p)
        abort();
    snprintf(spec, n, "%s/%s", lc_dir, arg);
    char err[256];
    err[0] = '\0';
    int rc = etl_run_logger_context(p, spec, layouts[pick][0], layouts[pick][1], err,
                                    sizeof err);
    /* The layout that does not exist, and only it, is refused as such. */
    if ((pick == 3) != (rc == -2 && strcmp(err, "bad layout") == 0))
        abort();
    if (rc == -2)
        message(err, sizeof err);
    else if (rc != 0)
        abort();
    if (etl_printer_finish(p) != 0)
        abort();
    etl_printer_free(p);
    etl_out_free(out);
    free(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (null_fd < 0) {
        null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null_fd < 0)
            abort();
        atexit(etl_library_end);
    }
    char *arg = malloc(size);
    if (!arg)
        abort();
    memcpy(arg, data + 1, size - 1);
    arg[size - 1] = '\0';
    unsigned which = data[0] % 11u;
    if (data[0] >= 0xF0)
        logger_context(data[0] % 4u, arg);
    else if (which < 7)
        filter(which, arg);
    else if (which == 7)
        groupmask(arg);
    else if (which == 8)
        interval(arg);
    else if (which == 9)
        format(arg);
    else
        layout(arg);
    free(arg);
    return 0;
}
