/*
 * printer.c - what every printer shares: the printer registry, clock
 * conversion (spec section 5) and the formatting of non-string cells.
 */
#include "print/printer.h"

#include <stdlib.h>
#include <string.h>

/* FILETIME ticks (100 ns) per second. */
#define FT_PER_SEC 10000000LL

void etl_clock_from_header(struct etl_clock *c, const struct etl_logfile *h)
{
    memset(c, 0, sizeof *c);
    c->t0 = h->t0;
    c->start_filetime = h->start_time;
    /* Clock types (ReservedFlags): 1 QPC at PerfFreq; 2 system time, 0 raw
     * (system time before Vista): 100 ns; 3 CPU cycles at CpuSpeedInMHz. */
    switch (h->clock_type) {
    case 1:
        c->freq = h->perf_freq;
        break;
    case 3:
        c->freq = (int64_t)h->cpu_mhz * 1000000;
        break;
    default:
        c->freq = FT_PER_SEC;
        break;
    }
    c->valid = c->freq > 0;
    if (!c->valid)
        c->freq = FT_PER_SEC;
    c->ns_per_tick = 1000000000 % c->freq == 0 ? 1000000000 / c->freq : 0;
}

int64_t etl_clock_ns(const struct etl_clock *c, int64_t ts)
{
    /* Common clocks (10 MHz QPC, 100 ns system time) divide a second evenly:
     * one multiplication, no 128-bit division. */
    if (c->ns_per_tick) {
        int64_t d;
        if (!__builtin_sub_overflow(ts, c->t0, &d) &&
            d < INT64_MAX / c->ns_per_tick && d > INT64_MIN / c->ns_per_tick)
            return d * c->ns_per_tick;
    }
    __int128 d = (__int128)ts - c->t0;
    __int128 ns = d * 1000000000 / c->freq;
    if (ns > INT64_MAX)
        return INT64_MAX;
    if (ns < INT64_MIN)
        return INT64_MIN;
    return (int64_t)ns;
}

/* Two decimal digits for every value 0-99. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Returns the number of decimal digits of v. */
static size_t digits_u64(uint64_t v)
{
    size_t n = 1;
    while (v >= 10000) {
        v /= 10000;
        n += 4;
    }
    return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* Writes v in decimal at out; returns the length. */
static size_t fmt_u64(uint64_t v, char *out)
{
    size_t n = digits_u64(v);
    char *p = out + n;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        p -= 2;
        p[0] = digit_pairs[2 * r];
        p[1] = digit_pairs[2 * r + 1];
    }
    if (v >= 10) {
        p[-2] = digit_pairs[2 * v];
        p[-1] = digit_pairs[2 * v + 1];
    } else {
        p[-1] = (char)('0' + v);
    }
    return n;
}

/* Writes v in signed decimal at out; returns the length. */
static size_t fmt_i64(int64_t v, char *out)
{
    if (v >= 0)
        return fmt_u64((uint64_t)v, out);
    out[0] = '-';
    return 1 + fmt_u64(0 - (uint64_t)v, out + 1);
}

/* Writes v as exactly `digits` hex digits (lowercase) after "0x". */
static size_t fmt_hex(uint64_t v, int digits, char *out)
{
    static const char hex[] = "0123456789abcdef";
    out[0] = '0';
    out[1] = 'x';
    int n = digits;
    while (n < 16 && (v >> (4 * n)) != 0)
        n++;
    for (int i = 0; i < n; i++)
        out[2 + i] = hex[(v >> (4 * (n - 1 - i))) & 0xF];
    return (size_t)n + 2;
}

/* Writes ns (nanoseconds) as seconds with `decimals` fractional digits. */
static size_t fmt_seconds(int64_t ns, int decimals, char *out)
{
    size_t n = 0;
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        out[n++] = '-';
    uint64_t scale = 1;
    for (int i = decimals; i < 9; i++)
        scale *= 10;
    a /= scale; /* truncate to the requested precision */
    uint64_t unit = 1;
    for (int i = 0; i < decimals; i++)
        unit *= 10;
    n += fmt_u64(a / unit, out + n);
    out[n++] = '.';
    uint64_t frac = a % unit;
    for (int i = decimals - 1; i >= 0; i--) {
        out[n + (size_t)i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    return n + (size_t)decimals;
}

/* Converts days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    uint64_t doe = (uint64_t)(z - era * 146097);
    uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    uint64_t mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yy + (*m <= 2);
}

/* Writes n as exactly w decimal digits. */
static size_t fmt_fixed(uint64_t n, int w, char *out)
{
    for (int i = w - 1; i >= 0; i--) {
        out[i] = (char)('0' + n % 10);
        n /= 10;
    }
    return (size_t)w;
}

size_t etl_filetime_iso(int64_t ft, char *out)
{
    /* FILETIME counts 100 ns since 1601-01-01; 11644473600 s separate the epochs. */
    int64_t secs = ft / FT_PER_SEC - 11644473600LL;
    int64_t frac = ft % FT_PER_SEC;
    if (frac < 0) {
        frac += FT_PER_SEC;
        secs--;
    }
    int64_t days = secs / 86400, rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t y;
    unsigned mo, d;
    civil_from_days(days, &y, &mo, &d);
    size_t n = 0;
    if (y < 0 || y > 9999)
        y = y < 0 ? 0 : 9999;
    n += fmt_fixed((uint64_t)y, 4, out + n);
    out[n++] = '-';
    n += fmt_fixed(mo, 2, out + n);
    out[n++] = '-';
    n += fmt_fixed(d, 2, out + n);
    out[n++] = 'T';
    n += fmt_fixed((uint64_t)(rem / 3600), 2, out + n);
    out[n++] = ':';
    n += fmt_fixed((uint64_t)(rem / 60 % 60), 2, out + n);
    out[n++] = ':';
    n += fmt_fixed((uint64_t)(rem % 60), 2, out + n);
    out[n++] = '.';
    n += fmt_fixed((uint64_t)frac, 7, out + n);
    out[n++] = 'Z';
    out[n] = '\0';
    return n;
}

size_t etl_format_time(const struct etl_printer *p, int64_t ts, char *buf,
                       bool *is_number)
{
    *is_number = true;
    switch (p->time_mode) {
    case ETL_TIME_RAW:
        return fmt_i64(ts, buf);
    case ETL_TIME_ABS: {
        *is_number = false;
        int64_t ns = etl_clock_ns(&p->clock, ts);
        /* Saturated: a hostile StartTime plus the offset must not overflow. */
        __int128 ft = (__int128)p->clock.start_filetime + ns / 100;
        if (ft > INT64_MAX)
            ft = INT64_MAX;
        else if (ft < INT64_MIN)
            ft = INT64_MIN;
        return etl_filetime_iso((int64_t)ft, buf);
    }
    default:
        /* Text is read by people: microseconds; the others keep nanoseconds. */
        return fmt_seconds(etl_clock_ns(&p->clock, ts),
                           p->ops == &etl_print_text ? 6 : 9, buf);
    }
}

size_t etl_format_scalar(const struct etl_printer *p, const struct etl_column *c,
                         const struct etl_value *v, char *buf, bool *is_number)
{
    *is_number = true;
    switch (c->type) {
    case ETL_COL_UINT:
        return fmt_u64(v->v.u, buf);
    case ETL_COL_INT:
        return fmt_i64(v->v.i, buf);
    case ETL_COL_HEX16:
        *is_number = false;
        return fmt_hex(v->v.u, 4, buf);
    case ETL_COL_HEX32:
        *is_number = false;
        return fmt_hex(v->v.u, 8, buf);
    case ETL_COL_HEX64:
        *is_number = false;
        return fmt_hex(v->v.u, 16, buf);
    case ETL_COL_GUID:
        *is_number = false;
        etl_guid_str(v->v.g, buf);
        return 36;
    case ETL_COL_TIME:
        return etl_format_time(p, v->v.i, buf, is_number);
    case ETL_COL_FILETIME:
        *is_number = false;
        return etl_filetime_iso(v->v.i, buf);
    case ETL_COL_DURATION:
        /* As relative times: microseconds in text, nanoseconds elsewhere. */
        return fmt_seconds(v->v.i, p->ops == &etl_print_text ? 6 : 9, buf);
    default:
        *is_number = false;
        buf[0] = '\0';
        return 0;
    }
}

size_t etl_utf8_decode(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    unsigned v = c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
        return 0;
    *cp = v;
    return len;
}

struct etl_printer *etl_printer_new(const char *name, struct etl_out *out,
                                    enum etl_time_mode time_mode)
{
    static const struct etl_printer_ops *const all[] = {
        &etl_print_text, &etl_print_csv, &etl_print_xml, &etl_print_json,
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(all[i]->name, name) != 0)
            continue;
        struct etl_printer *p = calloc(1, sizeof *p);
        if (!p)
            return NULL;
        p->ops = all[i];
        p->out = out;
        p->time_mode = time_mode;
        p->clock.freq = FT_PER_SEC;
        return p;
    }
    return NULL;
}

void etl_printer_free(struct etl_printer *p)
{
    if (!p)
        return;
    if (p->ops->destroy)
        p->ops->destroy(p);
    free(p);
}
