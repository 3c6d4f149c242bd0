/* Narrow phase (exact sphere formula, GJK distance of rve/dist.h for other
 * shapes) and wall clearances; the metrics are in contact.c. */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

rve_status pack_separation_bodies(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                                  double *sep, int *overlap)
{
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = B->x[k] + t[k] - A->x[k];
    if (A->shape == RVE_PACK_SPHERE && B->shape == RVE_PACK_SPHERE) {
        *sep = v3_norm(d) - A->a[0] - B->a[0];
        *overlap = *sep < 0;
        return RVE_OK;
    }
    if (A->shape == RVE_PACK_COMPOUND || B->shape == RVE_PACK_COMPOUND)
        return pack_compound_separation(A, B, t, sep, overlap);
    return pack_gjk_separation(A, B, t, sep, overlap);
}

rve_status rve_pack_separation(const rve_pack_set *s, int i, int j, const int shift[3], double *sep,
                               int *overlap)
{
    double t[3];
    pack_shift_vec(s, shift, t);
    return pack_separation_bodies(&s->b[i], &s->b[j], t, sep, overlap);
}

double pack_wall_clearance(const rve_pack_body *b, const double L[3])
{
    double c = INFINITY;
    for (int k = 0; k < 3; k++) {
        double lo, hi;
        if (b->shape == RVE_PACK_SPHERE) {
            lo = b->x[k] - b->a[0];
            hi = b->x[k] + b->a[0];
        } else {
            double d[3] = {0, 0, 0}, p[3];
            d[k] = -1;
            rve_pack_body_support(b, d, p);
            lo = p[k];
            d[k] = 1;
            rve_pack_body_support(b, d, p);
            hi = p[k];
        }
        c = fmin(c, fmin(lo, L[k] - hi));
    }
    return c;
}

void pack_wrap(rve_pack_set *s)
{
    if (!s->periodic)
        return;
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < 3; k++) {
            double x = s->b[i].x[k];
            x -= floor(x / s->L[k]) * s->L[k];
            if (x >= s->L[k])
                x = 0;
            s->b[i].x[k] = x;
        }
}
