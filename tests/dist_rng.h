/* dist_rng.h - small deterministic random generator and helpers for the dist tests. */
#ifndef RVE_DIST_RNG_H
#define RVE_DIST_RNG_H
#include <math.h>
#include <stdint.h>

/* ------------------------------------------------------------ helpers */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static inline void rng_seed(uint64_t s) { rng_state = s ? s : 1; }
static inline double urand(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static inline double nrand(void)
{
    double u = urand() + 1e-300, v = urand();
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}
static inline void rand_unit(double u[3])
{
    double n;
    do {
        u[0] = nrand(); u[1] = nrand(); u[2] = nrand();
        n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    } while (n < 1e-3);
    u[0] /= n; u[1] /= n; u[2] /= n;
}
static inline void rand_quat(double q[4])
{
    double n;
    do {
        for (int i = 0; i < 4; i++) q[i] = nrand();
        n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (n < 1e-3);
    for (int i = 0; i < 4; i++) q[i] /= n;
}
static inline double vdist(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}
static inline double maxabs_pts(const double *v, int n)
{
    double m = 0;
    for (int i = 0; i < 3 * n; i++)
        if (fabs(v[i]) > m) m = fabs(v[i]);
    return m;
}

#endif
