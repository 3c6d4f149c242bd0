/* pack_internal.h - shared internals of the pack module (not installed). */
#ifndef RVE_PACK_INTERNAL_H
#define RVE_PACK_INTERNAL_H

#include <rve/pack.h>

/* Support point of the body in its own frame, direction d in its own frame. */
void pack_local_support(const rve_pack_body *b, const double d[3], double s[3]);

/* Separation of bodies A and B, B translated by t (world): >= 0 distance when
 * disjoint; <= 0 when overlapping (minus the depth when known, else 0 with
 * *overlap = 1).  Uses the exact sphere formula or the dist kernels. */
rve_status pack_separation_bodies(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                                  double *sep, int *overlap);

/* GJK separation of two non-sphere bodies (rve/dist.h); RVE_EUSAGE when
 * the distance kernel is not available. */
rve_status pack_gjk_separation(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                               double *sep, int *overlap);

/* Same, also returning for disjoint bodies the unit direction from the
 * witness point on A to the one on B (a separating direction). */
rve_status pack_gjk_normal(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                           double *sep, int *overlap, double n[3]);

/* Penetration depth (> 0 when overlapping), unit normal from A to B and a
 * contact point, by the EPA kernel of rve/dist.h. */
rve_status pack_epa(const rve_pack_body *A, const rve_pack_body *B, const double t[3], double *depth,
                    double n[3], double cp[3]);

/* Image shift vector shift*L. */
static inline void pack_shift_vec(const rve_pack_set *s, const int shift[3], double t[3])
{
    for (int k = 0; k < 3; k++)
        t[k] = shift[k] * s->L[k];
}

/* Largest penetration of body b into the walls of [0,L]^3 (<= 0 when inside:
 * minus the smallest clearance). */
double pack_wall_clearance(const rve_pack_body *b, const double L[3]);

/* Wrap positions into [0,L) (periodic sets). */
void pack_wrap(rve_pack_set *s);

#endif
