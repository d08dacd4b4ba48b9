/*
 * names.h - name tables for the enumerations etldump prints (doc/format.md §9).
 * Unknown values have no name: callers print the number instead.
 */
#ifndef ETLDUMP_NAMES_H
#define ETLDUMP_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct etl_name {
    uint32_t value;
    const char *name;
};

/* Returns the name of value in table (n entries), or NULL. */
const char *etl_name_find(const struct etl_name *table, size_t n, uint32_t value);

/* KWAIT_REASON, KTHREAD_STATE and KPROCESSOR_MODE names, or NULL. */
const char *etl_wait_reason_name(unsigned v);
const char *etl_thread_state_name(unsigned v);
const char *etl_wait_mode_name(unsigned v);

/* A name with its length. */
struct etl_sized_name {
    const char *s;
    size_t n;
};

/* The same names with their lengths, or NULL. */
const struct etl_sized_name *etl_wait_reason_sized(unsigned v);
const struct etl_sized_name *etl_thread_state_sized(unsigned v);
const struct etl_sized_name *etl_wait_mode_sized(unsigned v);

/* EVENT_TRACE_CLOCK_* short names (PERFCOUNTER, SYSTEMTIME, ...), or NULL. */
const char *etl_clock_type_name(unsigned v);

#endif
