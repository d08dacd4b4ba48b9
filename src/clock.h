/*
 * clock.h - converting a trace's clock values to nanoseconds and to FILETIME
 * (doc/format.md §5). Portable C: no 128-bit integers, exact results.
 */
#ifndef ETLDUMP_CLOCK_H
#define ETLDUMP_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
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

/* The time zone of the machine that recorded a trace, as the logfile
 * header's TIME_ZONE_INFORMATION gives it (doc/format.md §4): biases in
 * minutes (UTC = local time + bias + the standard or the daylight bias),
 * the names (UTF-8) and the SYSTEMTIMEs of the changes to standard and to
 * daylight time (wYear, wMonth, wDayOfWeek, wDay, wHour, wMinute,
 * wSecond, wMilliseconds; wMonth 0: no daylight time; wYear 0: every year,
 * on the wDay-th wDayOfWeek of wMonth, 5 the last; else that date once). */
struct etl_time_zone {
    int32_t bias, standard_bias, daylight_bias;
    uint16_t standard_date[8], daylight_date[8];
    char standard_name[100], daylight_name[100];
};

/* The largest offset from UTC etl_tz_offset gives, in minutes (99:59). */
#define ETL_TZ_MOST (99 * 60 + 59)

/* Returns the minutes local time is ahead of UTC (negative: behind) at
 * FILETIME ft in zone tz, by its rules, at most ETL_TZ_MOST either way;
 * *daylight tells whether daylight time was in effect. The change to daylight time is at its time of day
 * in standard time, the change back at its time in daylight time, as
 * Windows takes them; a zone whose daylight time spans the new year
 * (the southern hemisphere) has it outside the two changes. */
int32_t etl_tz_offset(const struct etl_time_zone *tz, int64_t ft, bool *daylight);

/* One year of a zone's changes, for etl_tz_offset_in: the UTC times whose
 * local year is the year of the time given to etl_tz_year_init, and the
 * UTC times of that year's changes (valid: the zone has daylight time). */
struct etl_tz_year {
    int64_t begin, end, on, off;
    int32_t std, dst;          /* the offsets of standard and daylight time */
    bool valid;
};
void etl_tz_year_init(struct etl_tz_year *yr, const struct etl_time_zone *tz, int64_t ft);

/* etl_tz_offset(tz, ft) (the same minutes), by yr when ft lies in its year:
 * a trace's times mostly do, and then the offset costs two comparisons. */
int32_t etl_tz_offset_in(const struct etl_time_zone *tz, const struct etl_tz_year *yr,
                         int64_t ft);

/* Writes offset minutes as +HH:MM or -HH:MM (7 bytes with the
 * terminator; at most ETL_TZ_MOST either way); returns 6. */
size_t etl_tz_offset_str(int32_t minutes, char out[7]);

#endif
