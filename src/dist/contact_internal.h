/* contact_internal.h - helpers shared by the contact kernels (not installed). */
#ifndef RVE_CONTACT_INTERNAL_H
#define RVE_CONTACT_INTERNAL_H

#include <stddef.h>

#define CT_PI 3.14159265358979323846

/* Index of a point of v[0..n) maximising d.x (first one on ties). */
static inline size_t ct_support_index(const double *v, size_t n, const double d[3])
{
    size_t best = 0;
    double bv = d[0] * v[0] + d[1] * v[1] + d[2] * v[2];
    for (size_t i = 1; i < n; i++) {
        const double *x = v + 3 * i;
        double t = d[0] * x[0] + d[1] * x[1] + d[2] * x[2];
        if (t > bv) {
            bv = t;
            best = i;
        }
    }
    return best;
}

/* Largest value of d.x over v[0..n). */
static inline double ct_support_value(const double *v, size_t n, const double d[3])
{
    double bv = d[0] * v[0] + d[1] * v[1] + d[2] * v[2];
    for (size_t i = 1; i < n; i++) {
        const double *x = v + 3 * i;
        double t = d[0] * x[0] + d[1] * x[1] + d[2] * x[2];
        if (t > bv)
            bv = t;
    }
    return bv;
}

#endif
