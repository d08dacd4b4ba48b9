/*
 * fuzz_cswitch.c - one CSwitch event payload (HookId 0x0524) through
 * etl_decode_cswitch. Byte 0 is the event version, the rest the payload.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/cswitch.h"
#include "decode/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct etl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ETL_KIND_PERFINFO64;
    ev.flags = ETL_EV_TS | ETL_EV_HOOK;
    ev.hook_id = 0x0524;
    ev.version = data[0];
    ev.cpu = 3;
    ev.ts = 12345;
    ev.data = data + 1;
    ev.data_len = (uint32_t)(size - 1);
    struct etl_switch sw;
    struct etl_cursor c = etl_cur_make(ev.data, ev.data_len);
    bool ok = etl_decode_cswitch(&ev, &c, &sw);
    if (ok != (size - 1 >= 0x10))
        abort();
    if (ok) {
        /* The names of what was decoded: NULL or a string, never beyond. */
        const char *s = etl_thread_state_name(sw.old_state);
        const char *w = etl_wait_reason_name(sw.old_wait_reason);
        const char *m = etl_wait_mode_name(sw.old_wait_mode);
        if ((s && !*s) || (w && !*w) || !m || sw.cpu != 3)
            abort();
    }
    return 0;
}
