/* contact_pairs.h - random convex polytope pairs for the contact tests and benchmark
 * (deterministic generator; no library code involved). */
#ifndef RVE_CONTACT_PAIRS_H
#define RVE_CONTACT_PAIRS_H

#include <math.h>
#include <stdint.h>
#include <stddef.h>

typedef struct {
    uint64_t s;
} cp_rng;

static inline uint64_t cp_next(cp_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* uniform in [0,1) */
static inline double cp_unif(cp_rng *r) { return (double)(cp_next(r) >> 11) * 0x1.0p-53; }
static inline double cp_range(cp_rng *r, double a, double b) { return a + (b - a) * cp_unif(r); }
static inline double cp_gauss(cp_rng *r)
{
    double u = cp_unif(r), v = cp_unif(r);
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}
static inline void cp_unit(cp_rng *r, double u[3])
{
    double l;
    do {
        u[0] = cp_gauss(r);
        u[1] = cp_gauss(r);
        u[2] = cp_gauss(r);
        l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    } while (l < 1e-6);
    u[0] /= l;
    u[1] /= l;
    u[2] /= l;
}
/* random unit quaternion */
static inline void cp_quat(cp_rng *r, double q[4])
{
    double l;
    do {
        for (int i = 0; i < 4; i++)
            q[i] = cp_gauss(r);
        l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (l < 1e-6);
    for (int i = 0; i < 4; i++)
        q[i] /= l;
}
static inline void cp_qrot(double r[3], const double q[4], const double v[3])
{
    double u[3] = {q[1], q[2], q[3]}, t[3], c[3];
    t[0] = 2 * (u[1] * v[2] - u[2] * v[1]);
    t[1] = 2 * (u[2] * v[0] - u[0] * v[2]);
    t[2] = 2 * (u[0] * v[1] - u[1] * v[0]);
    c[0] = u[1] * t[2] - u[2] * t[1];
    c[1] = u[2] * t[0] - u[0] * t[2];
    c[2] = u[0] * t[1] - u[1] * t[0];
    for (int i = 0; i < 3; i++)
        r[i] = v[i] + q[0] * t[i] + c[i];
}

/* n points of a random convex body of size ~scale centred at c: points on an
 * ellipsoid (axes 0.4..1) rotated at random; kind 1 = box corners (n ignored, 8),
 * kind 2 = tetrahedron (4). Returns the number of points written (<= nmax). */
static inline size_t cp_body(cp_rng *r, int kind, size_t n, double scale, const double c[3], double *pts)
{
    double ax[3] = {cp_range(r, 0.4, 1), cp_range(r, 0.4, 1), cp_range(r, 0.4, 1)}, q[4];
    cp_quat(r, q);
    if (kind == 1) {
        n = 8;
        for (size_t i = 0; i < 8; i++) {
            double x[3] = {(i & 1 ? 1 : -1) * ax[0], (i & 2 ? 1 : -1) * ax[1], (i & 4 ? 1 : -1) * ax[2]}, y[3];
            cp_qrot(y, q, x);
            for (int j = 0; j < 3; j++)
                pts[3 * i + j] = c[j] + scale * y[j];
        }
        return n;
    }
    if (kind == 2)
        n = 4;
    for (size_t i = 0; i < n; i++) {
        double u[3], y[3];
        cp_unit(r, u);
        for (int j = 0; j < 3; j++)
            u[j] *= ax[j];
        cp_qrot(y, q, u);
        for (int j = 0; j < 3; j++)
            pts[3 * i + j] = c[j] + scale * y[j];
    }
    return n;
}

#endif
