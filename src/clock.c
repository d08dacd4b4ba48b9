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
