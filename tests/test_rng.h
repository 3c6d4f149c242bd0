/* test_rng.h - the tests' deterministic random numbers (Marsaglia's 64-bit
 * xorshift): reproducible draws without libc's rand.  A test may define
 * TEST_RNG_SEED before including this to draw another sequence. */
#ifndef RVE_TEST_RNG_H
#define RVE_TEST_RNG_H
#include <stdint.h>

#ifndef TEST_RNG_SEED
#define TEST_RNG_SEED 88172645463325252ULL
#endif

static uint64_t rng_state = TEST_RNG_SEED;

/* the next 64 random bits */
static inline uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* uniform in [0, 1), 53 bits */
static inline double urand(void)
{
    return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}
#endif
