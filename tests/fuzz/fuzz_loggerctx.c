/*
 * fuzz_loggerctx.c - --logger-context: the input is a raw memory image
 * holding a WMI_LOGGER_CONTEXT at offset 0. It is decoded in every layout
 * (Windows 6.1, 6.2, 6.3, 10.0; x86, x64) by etl_decode_logger_context
 * straight from the input (so a read past it is caught), then through
 * etl_view_logger_context from a memory file with the printers in turn,
 * the output going to /dev/null; the flag words are named too.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "decode/loggerctx.h"
#include "print/printer.h"
#include "view/loggerctx.h"

static const char *const formats[] = { "text", "csv", "xml", "json" };
static int data_fd = -1, null_fd = -1;
static char data_path[64];

/* Creates the memory file and opens /dev/null once. */
static void setup(void)
{
    if (null_fd >= 0)
        return;
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    xmlInitParser();
    atexit(xmlCleanupParser);
    data_fd = memfd_create("fuzz_loggerctx", MFD_CLOEXEC);
    if (data_fd < 0 || null_fd < 0)
        abort();
    snprintf(data_path, sizeof data_path, "/proc/self/fd/%d", data_fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    if (ftruncate(data_fd, 0) != 0 ||
        (size && pwrite(data_fd, data, size, 0) != (ssize_t)size))
        abort();
    char names[1024];
    for (unsigned w = 0; w < ETL_WIN_COUNT; w++) {
        for (unsigned a = 0; a < ETL_ARCH_COUNT; a++) {
            enum etl_win win = (enum etl_win)w;
            enum etl_arch arch = (enum etl_arch)a;
            struct etl_logger_context lc;
            bool ok = etl_decode_logger_context(data, size, win, arch, &lc);
            if (ok != (size >= etl_lc_size(win, arch)))
                abort();
            if (ok) {
                etl_lc_flags_str(win, lc.flags, names, sizeof names);
                etl_lc_request_flag_str(win, lc.request_flag, names, sizeof names);
                etl_lc_flags_str(win, lc.flags, names, 8); /* a short buffer */
            }
            struct etl_out out;
            if (!etl_out_init(&out, null_fd, 1 << 16))
                abort();
            struct etl_printer *p =
                etl_printer_new(formats[(w + a) % 4], &out, ETL_TIME_REL);
            if (!p)
                abort();
            char err[512];
            err[0] = '\0';
            int rc = etl_view_logger_context(p, data_path, 0, win, arch, err, sizeof err);
            if (rc == -2 && !err[0])
                abort(); /* a failure always says why */
            etl_printer_finish(p);
            etl_printer_free(p);
            etl_out_fini(&out);
        }
    }
    return 0;
}
