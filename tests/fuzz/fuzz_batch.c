/*
 * fuzz_batch.c - one compact context-switch batch payload (HookId 0x0525)
 * through etl_decode_batch, with several MaximumWaitReason biases and record
 * capacities. Byte 0 picks a small capacity for one extra run; the rest is
 * the payload.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/cswitch.h"

struct diag_state {
    size_t len;
    unsigned long n;
};

/* Checks that a problem points inside the payload. */
static void diag(void *ctx, const struct etl_event *ev, size_t at, const char *msg)
{
    struct diag_state *d = ctx;
    (void)ev;
    if (at > d->len || !msg || !*msg)
        abort();
    d->n++;
}

/* Decodes the batch with room for cap records and checks the result. */
static void decode(const struct etl_event *ev, unsigned bias, size_t cap)
{
    struct etl_switch *out = malloc((cap ? cap : 1) * sizeof *out);
    if (!out)
        abort();
    struct diag_state d = { ev->data_len, 0 };
    uint64_t implausible = 0;
    struct etl_cursor c = etl_cur_make(ev->data, ev->data_len);
    uint64_t state_wr[64] = { 0 };
    size_t n = etl_decode_batch(ev, &c, bias, out, cap, diag, &d, &implausible, state_wr);
    if (n > cap || n > ev->data_len / 2)
        abort();
    uint64_t lite_full = 0, counted = 0;
    for (size_t i = 0; i < n; i++) {
        if (out[i].source != ETL_SW_COMPACT || out[i].form > ETL_CCSWAP_FULL ||
            out[i].cpu != ev->cpu || (out[i].has & SW_NEW_TID))
            abort();
        lite_full += out[i].form >= ETL_CCSWAP_LITE;
    }
    /* Each LITE and FULL record's OldThreadStateWr counted once. */
    for (unsigned v = 0; v < 64; v++)
        counted += state_wr[v];
    if (counted != lite_full)
        abort();
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned biases[] = { 1, 0x1B, 0x25, 0x26, 0x27, 0x2A, 63 };
    if (size < 1)
        return 0;
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ETL_KIND_PERFINFO64;
    ev.flags = ETL_EV_TS | ETL_EV_HOOK;
    ev.hook_id = 0x0525;
    ev.cpu = 7;
    ev.data = data + 1;
    ev.data_len = (uint32_t)(size - 1);
    size_t full = ev.data_len / 2 + 1; /* what the switch reader allows */
    for (size_t i = 0; i < sizeof biases / sizeof biases[0]; i++)
        decode(&ev, biases[i], full);
    decode(&ev, 0x27, data[0] % 8u);
    return 0;
}
