/*
 * clock.c - clock conversion without 128-bit integers (see clock.h).
 */
#include "clock.h"

#define NS_PER_SEC 1000000000u
#define FT_PER_SEC 10000000

void etl_clock_init(struct etl_clock *c, int64_t t0, int64_t freq, int64_t start_filetime)
{
    c->t0 = t0;
    c->start_filetime = start_filetime;
    c->valid = freq > 0;
    c->freq = c->valid ? freq : FT_PER_SEC;
    c->ns_per_tick = NS_PER_SEC % (uint64_t)c->freq == 0
                         ? (int64_t)(NS_PER_SEC / (uint64_t)c->freq) : 0;
    c->direct_max = c->ns_per_tick ? (uint64_t)INT64_MAX / (uint64_t)c->ns_per_tick : 0;
}

/* Multiplies a by b into the 128-bit value hi:lo. */
static void mul_128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    *lo = (ll & 0xFFFFFFFFu) | (mid << 32);
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

uint64_t etl_muldiv_u64(uint64_t a, uint64_t b, uint64_t d)
{
    uint64_t hi, lo;
    mul_128(a, b, &hi, &lo);
    if (hi == 0)
        return lo / d;
    if (hi >= d)
        return UINT64_MAX; /* the quotient needs more than 64 bits */
    /* Long division of hi:lo by d, one bit at a time; hi < d throughout. */
    uint64_t q = 0;
    for (int i = 63; i >= 0; i--) {
        bool carry = (hi >> 63) != 0;
        hi = (hi << 1) | (lo >> 63);
        lo <<= 1;
        q <<= 1;
        if (carry || hi >= d) {
            hi -= d;
            q |= 1;
        }
    }
    return q;
}

int64_t etl_clock_ns_any(const struct etl_clock *c, int64_t ts)
{
    /* |ts - t0| as a magnitude and a sign: the difference can need 64 bits. */
    bool neg = ts < c->t0;
    uint64_t mag = neg ? (uint64_t)c->t0 - (uint64_t)ts : (uint64_t)ts - (uint64_t)c->t0;
    uint64_t ns;
    if (c->ns_per_tick && mag <= UINT64_MAX / (uint64_t)c->ns_per_tick) {
        ns = mag * (uint64_t)c->ns_per_tick;
    } else {
        /* mag = q * freq + r: q seconds and r ticks, each converted exactly. */
        uint64_t f = (uint64_t)c->freq, q = mag / f, r = mag - q * f;
        /* < 1e9: always fits; r * NS_PER_SEC itself below 2^64 for every
         * clock up to 18 GHz (no 128-bit product then) */
        uint64_t frac = r <= UINT64_MAX / NS_PER_SEC ? r * NS_PER_SEC / f
                                                      : etl_muldiv_u64(r, NS_PER_SEC, f);
        ns = q > (UINT64_MAX - frac) / NS_PER_SEC ? UINT64_MAX : q * NS_PER_SEC + frac;
    }
    if (neg)
        return ns >= (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)ns;
    return ns > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ns;
}

int64_t etl_clock_filetime(const struct etl_clock *c, int64_t ts)
{
    int64_t d = etl_clock_ns(c, ts) / 100, s = c->start_filetime;
    if (d > 0 && s > INT64_MAX - d)
        return INT64_MAX;
    if (d < 0 && s < INT64_MIN - d)
        return INT64_MIN;
    return s + d;
}

/* ---- the recording machine's time zone ------------------------------------------ */

#define FT_PER_MIN (60 * (int64_t)FT_PER_SEC)
#define FT_PER_DAY (1440 * FT_PER_MIN)

/* Days from 1601-01-01 to y-m-d (proleptic Gregorian, 1 <= m <= 12). */
static int64_t days_since_1601(int64_t y, unsigned m, unsigned d)
{
    /* Years counted from March, so that the leap day ends a year. */
    int64_t yy = y - (m <= 2) - 1600;
    int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
    int64_t yoe = yy - era * 400;                                   /* 0..399 */
    int64_t doy = (153 * (int64_t)(m > 2 ? m - 3 : m + 9) + 2) / 5 + (int64_t)d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            /* 0..146096 */
    /* 1601-01-01 is day 306 of the year 1600 counted from March. */
    return era * 146097 + doe - 306;
}

/* The year of FILETIME ft (at least 1601). */
static int64_t year_of(int64_t ft)
{
    int64_t days = ft / FT_PER_DAY, y = 1601 + days / 366;
    while (days_since_1601(y + 1, 1, 1) <= days)
        y++;
    return y;
}

static unsigned days_in_month(int64_t y, unsigned m)
{
    static const unsigned n[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return n[m - 1] + (m == 2 && leap);
}

/* The local time (a FILETIME on the local clock) of the change st in year
 * y: a date of that year, or the wDay-th wDayOfWeek of the month. */
static int64_t change_at(const uint16_t st[8], int64_t y)
{
    unsigned m = st[1] >= 1 && st[1] <= 12 ? st[1] : 1, day;
    if (st[0] != 0) {
        day = st[3] >= 1 && st[3] <= days_in_month(y, m) ? st[3] : 1;
    } else {
        /* 1601-01-01 was a Monday: weekday 1, Sunday being 0. */
        unsigned first = (unsigned)((days_since_1601(y, m, 1) + 1) % 7);
        unsigned want = st[2] % 7, nth = st[3] >= 1 && st[3] <= 5 ? st[3] : 1;
        day = 1 + (want + 7 - first) % 7 + 7 * (nth - 1);
        while (day > days_in_month(y, m))
            day -= 7;
    }
    int64_t ms = ((int64_t)st[4] * 60 + st[5]) * 60000 + (int64_t)st[6] * 1000 + st[7];
    return days_since_1601(y, m, day) * FT_PER_DAY + ms * 10000;
}

/* The biases of standard and daylight time in all (minutes). */
static int64_t std_bias(const struct etl_time_zone *tz)
{
    return (int64_t)tz->bias + tz->standard_bias;
}

static int64_t dst_bias(const struct etl_time_zone *tz)
{
    return (int64_t)tz->bias + tz->daylight_bias;
}

/* The year whose changes decide FILETIME ft in zone tz (the year of its
 * local time, near enough: a change is never at a year's edge), or 0 when
 * none do: no daylight time, or a time outside the years 1601 to 9999 (as
 * times are shown), where the sums below stay far from the int64 range
 * whatever the biases. */
static int64_t deciding_year(const struct etl_time_zone *tz, int64_t ft)
{
    int64_t last = days_since_1601(10000, 1, 1) * FT_PER_DAY;
    if (tz->standard_date[1] == 0 || tz->daylight_date[1] == 0 || ft <= 0 || ft >= last)
        return 0;
    int64_t local = ft - std_bias(tz) * FT_PER_MIN;
    return year_of(local > 0 && local < last ? local : ft);
}

/* The offset of daylight or standard time, clamped to what +HH:MM can say
 * (a damaged header's biases). */
static int32_t offset_of(const struct etl_time_zone *tz, bool daylight)
{
    int64_t m = -(daylight ? dst_bias(tz) : std_bias(tz));
    return (int32_t)(m < -ETL_TZ_MOST ? -ETL_TZ_MOST : m > ETL_TZ_MOST ? ETL_TZ_MOST : m);
}

/* Whether daylight time is in effect at ft by year y's changes. */
static bool daylight_at(const struct etl_time_zone *tz, int64_t y, int64_t ft)
{
    int64_t on = change_at(tz->daylight_date, y) + std_bias(tz) * FT_PER_MIN;
    int64_t off = change_at(tz->standard_date, y) + dst_bias(tz) * FT_PER_MIN;
    return on < off ? ft >= on && ft < off : ft >= on || ft < off;
}

int32_t etl_tz_offset(const struct etl_time_zone *tz, int64_t ft, bool *daylight)
{
    int64_t y = deciding_year(tz, ft);
    *daylight = y != 0 && daylight_at(tz, y, ft);
    return offset_of(tz, *daylight);
}

void etl_tz_year_init(struct etl_tz_year *yr, const struct etl_time_zone *tz, int64_t ft)
{
    int64_t y = deciding_year(tz, ft);
    /* The UTC times whose local time (in standard time) falls in year y:
     * exactly those deciding_year gives y, when they lie inside the years
     * it decides for and the year is neither the first nor the last (the
     * edges of deciding_year, left to it). */
    yr->valid = y > 1601 && y < 9999;
    if (!yr->valid)
        return;
    yr->begin = days_since_1601(y, 1, 1) * FT_PER_DAY + std_bias(tz) * FT_PER_MIN;
    yr->end = days_since_1601(y + 1, 1, 1) * FT_PER_DAY + std_bias(tz) * FT_PER_MIN;
    yr->valid = yr->begin > 0 && yr->end < days_since_1601(10000, 1, 1) * FT_PER_DAY;
    yr->on = change_at(tz->daylight_date, y) + std_bias(tz) * FT_PER_MIN;
    yr->off = change_at(tz->standard_date, y) + dst_bias(tz) * FT_PER_MIN;
    yr->std = offset_of(tz, false);
    yr->dst = offset_of(tz, true);
}

int32_t etl_tz_offset_in(const struct etl_time_zone *tz, const struct etl_tz_year *yr,
                         int64_t ft)
{
    if (yr->valid && ft >= yr->begin && ft < yr->end) {
        bool d = yr->on < yr->off ? ft >= yr->on && ft < yr->off : ft >= yr->on || ft < yr->off;
        return d ? yr->dst : yr->std;
    }
    bool daylight;
    return etl_tz_offset(tz, ft, &daylight);
}

size_t etl_tz_offset_str(int32_t minutes, char out[7])
{
    uint32_t a = minutes < 0 ? (uint32_t)-(int64_t)minutes : (uint32_t)minutes;
    if (a > ETL_TZ_MOST)
        a = ETL_TZ_MOST;
    unsigned h = (unsigned)(a / 60), mi = (unsigned)(a % 60);
    out[0] = minutes < 0 ? '-' : '+';
    out[1] = (char)('0' + h / 10);
    out[2] = (char)('0' + h % 10);
    out[3] = ':';
    out[4] = (char)('0' + mi / 10);
    out[5] = (char)('0' + mi % 10);
    out[6] = '\0';
    return 6;
}
