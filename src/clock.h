/*
 * clock.h - converting a trace's clock values to nanoseconds and to FILETIME
 * (doc/format.md §5). Portable C: no 128-bit integers, exact results.
 */
#ifndef ETLDUMP_CLOCK_H
#define ETLDUMP_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* What converting clock values needs. */
struct etl_clock {
    int64_t t0;             /* clock value at the start of the trace */
    int64_t freq;           /* clock ticks per second (> 0) */
    int64_t start_filetime; /* FILETIME at t0 */
    int64_t ns_per_tick;    /* when a tick is a whole number of ns, else 0 */
    uint64_t direct_max;    /* ticks past t0 converted by one multiplication
                             * (INT64_MAX / ns_per_tick; 0 without it) */
    bool valid;             /* the trace gave a usable frequency */
};

/* Sets up a clock of freq ticks per second starting at t0 (FILETIME
 * start_filetime); a frequency of 0 or less falls back to 10 MHz and leaves
 * the clock marked invalid. */
void etl_clock_init(struct etl_clock *c, int64_t t0, int64_t freq, int64_t start_filetime);

/* etl_clock_ns for every case (clock.c). */
int64_t etl_clock_ns_any(const struct etl_clock *c, int64_t ts);

/* Converts a clock value to nanoseconds since t0, truncated toward zero and
 * saturated to the int64 range. Inline for the usual case, called for every
 * time a row shows: a value at or after t0 on a clock whose tick is a whole
 * number of nanoseconds. */
static inline int64_t etl_clock_ns(const struct etl_clock *c, int64_t ts)
{
    uint64_t mag = (uint64_t)ts - (uint64_t)c->t0;
    if (ts >= c->t0 && mag <= c->direct_max)
        return (int64_t)(mag * (uint64_t)c->ns_per_tick);
    return etl_clock_ns_any(c, ts);
}

/* Converts a clock value to a FILETIME (100 ns since 1601), saturated. */
int64_t etl_clock_filetime(const struct etl_clock *c, int64_t ts);

/* Returns floor(a * b / d) for d > 0, or UINT64_MAX when it does not fit. */
uint64_t etl_muldiv_u64(uint64_t a, uint64_t b, uint64_t d);

#endif
