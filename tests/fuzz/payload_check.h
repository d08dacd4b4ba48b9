/*
 * payload_check.h - what the payload fuzz targets check after every decode
 * (included by fuzz_kfields.c, fuzz_tracelogging.c and fuzz_metadata.c):
 * the status and offset are in range, every structure and array is closed,
 * payload_hex holds exactly the bytes no field describes, and the list
 * renders as JSON, as the CSV field and as text.
 */
#ifndef ETLDUMP_PAYLOAD_CHECK_H
#define ETLDUMP_PAYLOAD_CHECK_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/payload.h"

/* Decodes ev with pl and checks the result; aborts on a broken rule. */
/* The payload decoder kept across inputs (its tables are large to build),
 * freed at exit so a leak checker sees nothing left. */
static struct etl_payload *kept_payload;

static void free_kept_payload(void)
{
    etl_payload_free(kept_payload);
    kept_payload = NULL;
}

static inline struct etl_payload *payload_kept(void)
{
    if (!kept_payload) {
        if (!(kept_payload = etl_payload_new()))
            abort();
        atexit(free_kept_payload);
    }
    return kept_payload;
}

static inline void check_payload(struct etl_payload *pl, const struct etl_event *ev)
{
    static int devnull = -1;
    if (devnull < 0 && (devnull = open("/dev/null", O_WRONLY)) < 0)
        abort();
    const char *name;
    size_t at;
    enum etl_fdec st = etl_payload_decode(pl, ev, &name, &at);
    const struct etl_fields *fl = &pl->fields;
    if (st > ETL_FDEC_DAMAGED || (name && !*name) || fl->depth != 0 || fl->truncated ||
        ((st == ETL_FDEC_PARTIAL || st == ETL_FDEC_DAMAGED) && at > ev->data_len))
        abort();
    const char *other = etl_payload_name(pl, ev);
    if ((other == NULL) != (name == NULL))
        abort();
    /* payload_hex, when present, is the last field and holds the payload's
     * last bytes: all of them without a layout, none when decoded. */
    size_t n = pl->hex;
    const struct etl_field *last = fl->n ? &fl->f[fl->n - 1] : NULL;
    if (n > ev->data_len || (st == ETL_FDEC_OK && n) ||
        (st == ETL_FDEC_NO_LAYOUT && n != ev->data_len) ||
        ((st == ETL_FDEC_PARTIAL || st == ETL_FDEC_DAMAGED) && n != ev->data_len - at) ||
        (n && (!last || last->type != ETL_F_BINARY || last->v.a.len != n ||
               memcmp(etl_field_bytes(fl, last), ev->data + ev->data_len - n, n) != 0)))
        abort();
    struct etl_out o;
    if (!etl_out_init(&o, devnull, 4096))
        abort();
    if (etl_fields_json(fl, &o) != 0 || etl_fields_json_csv(fl, &o) != 0 ||
        etl_fields_text(fl, &o) != 0 || etl_out_flush(&o) != 0)
        abort();
    etl_out_fini(&o);
}

#endif
