/*
 * dpcisr.c - DPC and ISR payloads (doc/format.md §17.2):
 *   DPC classes:  InitialTime u64, Routine (pointer);
 *   ISR v2+:      InitialTime u64, Routine, ReturnValue u8, Vector u16,
 *                 Reserved u8, and for ISR-MSI MessageNumber u32;
 *   ISR v1:       InitialTime u64, Routine, ReturnValue u32 (no Vector).
 * InitialTime is 8 bytes on x86 and x64 alike (§17.2).
 */
#include "decode/dpcisr.h"

#include <string.h>

unsigned etl_intr_type_of(uint16_t hook)
{
    switch (hook) {
    case ETL_HOOK_DPC:
        return ETL_INTR_DPC;
    case ETL_HOOK_THREADED_DPC:
        return ETL_INTR_THREADED_DPC;
    case ETL_HOOK_TIMER_DPC:
        return ETL_INTR_TIMER_DPC;
    case ETL_HOOK_ISR:
        return ETL_INTR_ISR;
    case ETL_HOOK_ISR_MSI:
        return ETL_INTR_ISR_MSI;
    default:
        return ETL_INTR_TYPES;
    }
}

const char *etl_intr_type_name(unsigned type)
{
    static const char *const names[ETL_INTR_TYPES] = {
        "DPC", "ThreadedDPC", "TimerDPC", "ISR", "ISR-MSI"
    };
    return type < ETL_INTR_TYPES ? names[type] : NULL;
}

bool etl_decode_intr(const struct etl_event *ev, struct etl_cursor *c, struct etl_intr *r)
{
    memset(r, 0, sizeof *r);
    r->type = (uint8_t)etl_intr_type_of(ev->hook_id);
    if (r->type == ETL_INTR_TYPES)
        return false;
    r->initial_time = (int64_t)etl_cur_u64(c);
    r->routine = etl_cur_ptr(c, ev->ptr_size);
    if (etl_intr_is_isr(r->type)) {
        if ((ev->version & 0xFF) < 2) {
            r->return_value = etl_cur_u32(c);
        } else {
            r->return_value = etl_cur_u8(c);
            r->vector = etl_cur_u16(c);
            etl_cur_skip(c, 1); /* Reserved */
            r->has_vector = true;
            if (r->type == ETL_INTR_ISR_MSI) {
                r->message = etl_cur_u32(c);
                r->has_message = true;
            }
        }
    }
    return etl_cur_ok(c);
}
