/*
 * fuzz_header.c - trace headers: the input is the data of one buffer (its
 * 0x48-byte buffer header included when long enough), walked record by
 * record with etl_parse_event as the reader does, from offset 0x48 (or 0 for
 * shorter inputs). Every record parsed must lie inside the buffer, carry its
 * data inside itself and move the walk forward; its bytes are all touched.
 * Each record also goes through the decoders that its HookId selects.
 * From the walk's start, the runs of etl_parse_runs must be those the walk
 * finds: consecutive PERFINFO64 records of one class added up, up to the
 * first record of class 0 or of another kind, or the first not parsed
 * (with classes, and with none: every HookId of class 1).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/dispatch.h"
#include "etl/internal.h"

/* Ignores problems found by the batch decoder. */
static void batch_diag(void *ctx, const struct etl_event *ev, size_t at, const char *msg)
{
    (void)ctx;
    if (at > ev->data_len || !msg)
        abort();
}

/* Sums bytes, so that every byte of a range is read. */
static unsigned touch(const uint8_t *p, size_t n)
{
    unsigned s = 0;
    for (size_t i = 0; i < n; i++)
        s += p[i];
    return s;
}

static volatile unsigned sink;

/* Classes of HookIds for the runs: a third of them none. */
static uint32_t classes[65536];

/* Checks etl_parse_runs from off, asking for the bytes ahead or not, with
 * the classes above or none (every HookId of class 1), against the records
 * etl_parse_event finds there. */
static void runs_agree(const uint8_t *data, size_t size, size_t off, bool ahead, bool all)
{
    if (!classes[1])
        for (size_t i = 0; i < 65536; i++)
            classes[i] = (uint32_t)(i % 3);
    enum { MAX_RUNS = 64 };
    struct etl_hook_run r[MAX_RUNS], want;
    size_t next = 0;
    size_t n = etl_parse_runs(data, size, off, all ? NULL : classes, r, MAX_RUNS, &next,
                              ahead);
    if (n > MAX_RUNS)
        abort();
    size_t k = 0;      /* runs checked */
    bool open = false; /* want holds a run being added up */
    for (;;) {
        struct etl_event ev;
        size_t after = 0;
        const char *why = NULL;
        uint32_t c = 0;
        if (etl_parse_event(data, size, off, &ev, &after, &why) == ETL_PARSE_OK &&
            ev.kind == ETL_KIND_PERFINFO64)
            c = all ? 1 : classes[ev.hook_id];
        if (open && c != want.cls) {
            if (k >= n || memcmp(&r[k], &want, sizeof want) != 0)
                abort();
            k++;
            open = false;
        }
        if (!c || k == MAX_RUNS)
            break;
        if (!open) {
            memset(&want, 0, sizeof want);
            want.cls = c;
            want.first = want.last = ev.ts;
            open = true;
        }
        want.count++;
        want.bytes += ev.size;
        want.first = ev.ts < want.first ? ev.ts : want.first;
        want.last = ev.ts > want.last ? ev.ts : want.last;
        off = after;
    }
    if (k != n || next != off)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = size >= ETL_BUF_HEADER_SIZE ? ETL_BUF_HEADER_SIZE : 0;
    for (int k = 0; k < 4; k++)
        runs_agree(data, size, off, k & 1, k >> 1);
    struct etl_switch *batch = NULL;
    size_t batch_cap = 0;
    for (;;) {
        struct etl_event ev;
        size_t next = 0;
        const char *why = NULL;
        enum etl_parse_status st = etl_parse_event(data, size, off, &ev, &next, &why);
        if (st == ETL_PARSE_END)
            break;
        if (st == ETL_PARSE_BAD) {
            if (!why || !*why)
                abort();
            break;
        }
        if (st != ETL_PARSE_OK || next <= off || ev.event_offset != off ||
            ev.size < 8 || ev.size > size - off || ev.kind >= ETL_KIND_COUNT ||
            ev.data < data + off || ev.data_len > ev.size ||
            ev.data + ev.data_len != data + off + ev.size ||
            (ev.ptr_size != 4 && ev.ptr_size != 8))
            abort();
        sink += touch(data + off, ev.size);
        if (ev.ext) {
            size_t ext = 8u * (ev.pebs + ev.pmc_count);
            if (ev.ext < data + off || ev.ext + ext > ev.data)
                abort();
            sink += touch(ev.ext, ext);
        }
        /* Every typed decoder of the dispatch table, on its sub-cursor. */
        struct etl_record rec;
        enum etl_rec_kind kind = etl_decode_event(&ev, &rec);
        if (kind == ETL_REC_CSWITCH_BATCH) {
            size_t cap = ev.data_len / 2 + 1;
            if (cap > batch_cap) {
                free(batch);
                batch = malloc(cap * sizeof *batch);
                if (!batch)
                    abort();
                batch_cap = cap;
            }
            uint64_t implausible = 0;
            sink += (unsigned)etl_decode_batch(&ev, &rec.u.batch, 0x27, batch, cap,
                                               batch_diag, NULL, &implausible, NULL);
        } else if (kind == ETL_REC_PROCESS) {
            sink += (unsigned)rec.u.proc.image_len + (unsigned)rec.u.proc.cmdline.len;
        } else if (kind == ETL_REC_THREAD) {
            sink += (unsigned)rec.u.thr.name.len;
        } else if (kind == ETL_REC_CSWITCH) {
            sink += rec.u.sw.new_tid;
        }
        if (rec.problem && rec.at > ev.data_len)
            abort(); /* a problem lies inside the event */
        if (ev.flags & ETL_EV_HOOK && ev.hook_id == 0x0000) {
            struct etl_logfile h;
            sink += etl_parse_logfile(&ev, &h);
        }
        off = next;
    }
    free(batch);
    return 0;
}
