/*
 * modes.h - names of the numbers that say how a trace was recorded: the
 * logger mode (LogFileMode, WMI_LOGGER_CONTEXT.LoggerMode) bit by bit and
 * the clock type by its full EVENT_TRACE_CLOCK_* name (format.md §9.4), and a
 * formatter for flag words: the names of the set bits, then any bits left
 * over in hex.
 */
#ifndef ETLDUMP_MODES_H
#define ETLDUMP_MODES_H

#include <stddef.h>
#include <stdint.h>

#include "decode/names.h"

/* The separator etl_flags_str puts between names. */
#define ETL_FLAGS_SEP '|'

/* EVENT_TRACE_* logger mode bits (format.md §9.5). */
extern const struct etl_name etl_logger_mode_names[];
extern const size_t etl_logger_mode_count;

/*
 * Writes the names of the bits of v found in table (n single-bit entries),
 * separated by '|', and then the bits no entry names as one 0x%08x value,
 * into buf (cap bytes, always terminated; cut short if too small). Writes
 * "" when v is 0. Returns the length written.
 */
size_t etl_flags_str(const struct etl_name *table, size_t n, uint32_t v,
                     char *buf, size_t cap);

/* The logger mode bits by name (etl_flags_str over etl_logger_mode_names). */
size_t etl_logger_mode_str(uint32_t mode, char *buf, size_t cap);

/* EVENT_TRACE_CLOCK_RAW, _PERFCOUNTER, _SYSTEMTIME, _CPUCYCLE; NULL otherwise. */
const char *etl_clock_type_full_name(uint32_t v);

#endif
