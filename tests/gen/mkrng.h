/*
 * mkrng: the pseudo-random stream of the test trace generators (splitmix64):
 * reproducible from a seed, the same on every platform.
 */
#ifndef MKRNG_H
#define MKRNG_H

#include <stdint.h>

struct rng {
    uint64_t s;
};

static inline uint64_t rnd(struct rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [0, n), n > 0 */
static inline uint32_t below(struct rng *r, uint32_t n)
{
    return (uint32_t)(((rnd(r) >> 32) * (uint64_t)n) >> 32);
}

/* uniform in [lo, hi] */
static inline uint64_t range(struct rng *r, uint64_t lo, uint64_t hi) { return lo + rnd(r) % (hi - lo + 1u); }

#endif /* MKRNG_H */
