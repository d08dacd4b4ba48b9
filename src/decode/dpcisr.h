/*
 * dpcisr.h - DPC and ISR events of the PerfInfo group (doc/format.md §17):
 * ThreadedDPC 0x0F42, DPC 0x0F44, TimerDPC 0x0F45 (class DPC), ISR 0x0F43
 * and ISR-MSI 0x0F32 (class ISR). Each is logged when its routine returns:
 * the header's timestamp is the exit, InitialTime the entry (§17.3).
 */
#ifndef ETLDUMP_DPCISR_H
#define ETLDUMP_DPCISR_H

#include <stdbool.h>
#include <stdint.h>

#include "cursor.h"
#include "etl/etl.h"

#define ETL_HOOK_ISR_MSI 0x0F32u
#define ETL_HOOK_THREADED_DPC 0x0F42u
#define ETL_HOOK_ISR 0x0F43u
#define ETL_HOOK_DPC 0x0F44u
#define ETL_HOOK_TIMER_DPC 0x0F45u

enum etl_intr_type {
    ETL_INTR_DPC,
    ETL_INTR_THREADED_DPC,
    ETL_INTR_TIMER_DPC,
    ETL_INTR_ISR,
    ETL_INTR_ISR_MSI,
    ETL_INTR_TYPES
};

/* Returns true for the ISR types. */
static inline bool etl_intr_is_isr(unsigned type)
{
    return type == ETL_INTR_ISR || type == ETL_INTR_ISR_MSI;
}

/* One DPC or ISR. */
struct etl_intr {
    int64_t initial_time;     /* entry, on the trace's clock */
    uint64_t routine;         /* address of the routine */
    uint32_t return_value;    /* ISR: 1 if the routine claimed the interrupt */
    uint32_t message;         /* ISR-MSI: MessageNumber */
    uint16_t vector;          /* ISR version 2: IDT vector */
    uint8_t type;             /* enum etl_intr_type */
    bool has_vector, has_message;
};

/* Returns the type of a DPC/ISR HookId, or ETL_INTR_TYPES for another. */
unsigned etl_intr_type_of(uint16_t hook);

/* Returns the name of a type ("DPC", "ThreadedDPC", "TimerDPC", "ISR",
 * "ISR-MSI"). */
const char *etl_intr_type_name(unsigned type);

/* Decodes the payload of ev (its HookId gives the type, its header the
 * pointer size, its version the ISR layout) from c; false if too short. */
bool etl_decode_intr(const struct etl_event *ev, struct etl_cursor *c, struct etl_intr *r);

#endif
