/* The project's random numbers: xoshiro256** (Blackman and Vigna 2018),
 * seeded through splitmix64; see rve/util.h. */
#include "config.h"
#include <rve/util.h>
#include "util/mathconst.h"
#include <math.h>

uint64_t rve_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rve_rng_seed(rve_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int k = 0; k < 4; k++)
        r->s[k] = rve_splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rve_rng_next(rve_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rve_rng_uniform(rve_rng *r)
{
    return (double)(rve_rng_next(r) >> 11) * 0x1.0p-53;
}

double rve_rng_normal(rve_rng *r)
{
    /* Box-Muller; u1 in (0,1] */
    double u1 = 1.0 - rve_rng_uniform(r);
    double u2 = rve_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void rve_rng_quat(rve_rng *r, double q[4])
{
    double u1 = rve_rng_uniform(r), u2 = rve_rng_uniform(r), u3 = rve_rng_uniform(r);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    q[0] = b * cos(2.0 * M_PI * u3);
    q[1] = a * sin(2.0 * M_PI * u2);
    q[2] = a * cos(2.0 * M_PI * u2);
    q[3] = b * sin(2.0 * M_PI * u3);
}
