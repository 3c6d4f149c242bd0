/* Bridge to the distance kernel of rve/dist.h (GJK with Signed Volumes). */
#include "config.h"
#include <rve/pack.h>
#include <rve/dist.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <string.h>

rve_status pack_gjk_separation(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                               double *sep, int *overlap)
{
    static const double zero[3] = {0, 0, 0};
    rve_shape sa, sb;
    pack_body_shape(A, zero, &sa);
    pack_body_shape(B, t, &sb);
    rve_dist_result r;
    rve_gjk_status gs = rve_gjk_dist(&sa, &sb, NULL, NULL, &r);
    switch (gs) {
    case RVE_GJK_CONVERGED:
        *sep = r.d;
        *overlap = 0;
        return RVE_OK;
    case RVE_GJK_INTERSECT:
        *sep = 0;
        *overlap = 1;
        return RVE_OK;
    case RVE_GJK_CAP:
        /* not certified: count it as an overlap so that it is never accepted */
        *sep = 0;
        *overlap = 1;
        return RVE_OK;
    default:
        *sep = NAN;
        *overlap = 1;
        return RVE_EDATA;
    }
}

rve_status pack_gjk_normal(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                           double *sep, int *overlap, double n[3])
{
    static const double zero[3] = {0, 0, 0};
    rve_shape sa, sb;
    pack_body_shape(A, zero, &sa);
    pack_body_shape(B, t, &sb);
    rve_dist_result r;
    rve_gjk_status gs = rve_gjk_dist(&sa, &sb, NULL, NULL, &r);
    if (gs == RVE_GJK_DEGENERATE) {
        *sep = NAN;
        *overlap = 1;
        return RVE_EDATA;
    }
    if (gs == RVE_GJK_CONVERGED && r.d > 0) {
        *sep = r.d;
        *overlap = 0;
        v3_sub(n, r.q, r.p);
        v3_scale(n, n, 1.0 / v3_norm(n));
        return RVE_OK;
    }
    *sep = 0;
    *overlap = 1;
    return RVE_OK;
}

rve_status pack_epa(const rve_pack_body *A, const rve_pack_body *B, const double t[3], double *depth,
                    double n[3], double cp[3])
{
    static const double zero[3] = {0, 0, 0};
    rve_shape sa, sb;
    pack_body_shape(A, zero, &sa);
    pack_body_shape(B, t, &sb);
    rve_contact ct;
    rve_err err;
    rve_status st = rve_contact_epa(&sa, &sb, NULL, &ct, &err);
    if (st != RVE_OK || !isfinite(ct.s) || !(v3_norm2(ct.n) > 0.5))
        return st != RVE_OK ? st : RVE_EDATA;
    *depth = -ct.s;
    v3_copy(n, ct.n);
    for (int k = 0; k < 3; k++)
        cp[k] = 0.5 * (ct.p[k] + ct.q[k]);
    return RVE_OK;
}

/* A convex body as a one-piece compound (mixed pairs; allocates). */
static rve_status as_compound(const rve_pack_body *b, rve_compound **out)
{
    rve_shape s;
    pack_body_shape(b, NULL, &s);
    rve_err e;
    return rve_compound_alloc(out, &s, 1, &e);
}

rve_status pack_compound_separation(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                                    double *sep, int *overlap)
{
    rve_compound *ca = A->pieces ? A->pieces->cmp : NULL, *cb = B->pieces ? B->pieces->cmp : NULL;
    rve_compound *ta = NULL, *tb = NULL;
    rve_status st = RVE_OK;
    if (!ca && (st = as_compound(A, &ta)) == RVE_OK)
        ca = ta;
    if (st == RVE_OK && !cb && (st = as_compound(B, &tb)) == RVE_OK)
        cb = tb;
    if (st == RVE_OK) {
        rve_pose pa, pb;
        v3_copy(pa.pos, A->x);
        memcpy(pa.quat, A->q, sizeof pa.quat);
        v3_add(pb.pos, B->x, t);
        memcpy(pb.quat, B->q, sizeof pb.quat);
        rve_compound_result r;
        rve_err e;
        st = rve_compound_dist(ca, &pa, cb, &pb, NULL, &r, &e);
        if (st == RVE_OK && r.status == RVE_GJK_CONVERGED && r.d > 0) {
            *sep = r.d;
            *overlap = 0;
        } else {
            /* overlap, or not certified (cap): never accepted */
            *sep = 0;
            *overlap = 1;
        }
    }
    rve_compound_free(ta);
    rve_compound_free(tb);
    return st;
}
