/* Bridge to the distance kernel of rve/dist.h (GJK with Signed Volumes). */
#include "config.h"
#include <rve/pack.h>
#include <rve/dist.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
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

/* The compounds and poses of a pair of which one at least is a compound
 * (B shifted by t); a convex body becomes a one-piece compound (built
 * here, freed by cpair_free). */
typedef struct {
    const rve_compound *c[2];
    rve_compound *tmp[2];
    rve_pose pose[2];
} cpair;

static void cpair_free(cpair *cp)
{
    rve_compound_free(cp->tmp[0]);
    rve_compound_free(cp->tmp[1]);
}

static rve_status cpair_init(cpair *cp, const rve_pack_body *A, const rve_pack_body *B, const double t[3])
{
    const rve_pack_body *b[2] = {A, B};
    rve_status st = RVE_OK;
    memset(cp, 0, sizeof *cp);
    for (int k = 0; k < 2 && st == RVE_OK; k++) {
        if (b[k]->pieces) {
            cp->c[k] = b[k]->pieces->cmp;
        } else {
            rve_shape sh;
            rve_err e;
            pack_body_shape(b[k], NULL, &sh);
            st = rve_compound_build(&sh, 1, &cp->tmp[k], &e);
            cp->c[k] = cp->tmp[k];
        }
        v3_copy(cp->pose[k].pos, b[k]->x);
        if (k == 1)
            v3_add(cp->pose[k].pos, b[k]->x, t);
        memcpy(cp->pose[k].quat, b[k]->q, sizeof cp->pose[k].quat);
    }
    if (st != RVE_OK)
        cpair_free(cp);
    return st;
}

rve_status pack_compound_dist(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                              rve_compound_result *r)
{
    cpair cp;
    rve_status st = cpair_init(&cp, A, B, t);
    if (st != RVE_OK)
        return st;
    rve_err e;
    st = rve_compound_dist(cp.c[0], &cp.pose[0], cp.c[1], &cp.pose[1], NULL, r, &e);
    cpair_free(&cp);
    return st;
}

rve_status pack_compound_separation(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                                    double *sep, int *overlap)
{
    rve_compound_result r;
    rve_status st = pack_compound_dist(A, B, t, &r);
    if (st == RVE_OK && r.status == RVE_GJK_CONVERGED && r.d > 0) {
        *sep = r.d;
        *overlap = 0;
    } else {
        /* overlap, or not certified (cap): never accepted */
        *sep = 0;
        *overlap = 1;
    }
    return st;
}

/* Penetration of overlapping bodies by the exact kernels: closed form for
 * sphere pairs, the hierarchy's deepest piece-pair contact (EPA) when a
 * compound is involved, Wellmann's common normal for pairs of smooth
 * superellipsoids (ellipsoids, superquadrics), Peng & Hanley for a
 * polyhedron against a superquadric, EPA otherwise (and whenever a special
 * kernel gives no answer).  ct gets s (-depth), n (A to B), p on A, q on B;
 * piece (may be NULL) the piece pair (0 for convex bodies). */
static rve_status compound_overlap(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                                   rve_contact *ct, size_t piece[2])
{
    cpair cp;
    rve_status st = cpair_init(&cp, A, B, t);
    if (st != RVE_OK)
        return st;
    rve_compound_contact cc;
    rve_err e;
    st = rve_compound_penetration(cp.c[0], &cp.pose[0], cp.c[1], &cp.pose[1], NULL, &cc, NULL, 0, NULL, NULL, &e);
    if (st == RVE_ECAP)
        st = RVE_OK; /* best estimate: the resolution iterates anyway */
    *ct = cc.c;
    if (piece) {
        piece[0] = cc.ia;
        piece[1] = cc.ib;
    }
    cpair_free(&cp);
    return st;
}

/* Peng & Hanley: the polyhedron P (shifted by tp) against the superquadric
 * Q (shifted by tq); 1 when the kernel answered. */
static int poly_superquadric(const rve_pack_body *P, const double tp[3], const rve_pack_body *Q,
                             const double tq[3], rve_contact *ct)
{
    rve_err e;
    double *w = malloc(sizeof(double) * 3 * (size_t)P->nv);
    rve_polyhedron *PP = NULL;
    if (w) {
        for (int k = 0; k < P->nv; k++) {
            rve_pack_body_vertex(P, k, w + 3 * k);
            v3_add(w + 3 * k, w + 3 * k, tp);
        }
        rve_polyhedron_alloc(&PP, w, (size_t)P->nv, &e);
        free(w);
    }
    if (!PP)
        return 0;
    rve_shape sq;
    pack_body_shape(Q, tq, &sq);
    rve_status st = rve_contact_polyhedron_superquadric(PP, &sq, ct, NULL, &e);
    rve_polyhedron_free(PP);
    return st == RVE_OK && isfinite(ct->s) && v3_norm2(ct->n) > 0.5;
}

rve_status pack_overlap_contact(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                                rve_contact *ct, size_t piece[2])
{
    static const double zero[3] = {0, 0, 0};
    double d[3];
    memset(ct, 0, sizeof *ct);
    if (piece)
        piece[0] = piece[1] = 0;
    for (int k = 0; k < 3; k++)
        d[k] = B->x[k] + t[k] - A->x[k];
    double len = v3_norm(d);
    if (A->shape == RVE_PACK_SPHERE && B->shape == RVE_PACK_SPHERE) {
        ct->s = len - A->a[0] - B->a[0];
        if (len > 0)
            v3_scale(ct->n, d, 1 / len);
        else
            v3_set(ct->n, 1, 0, 0);
        for (int k = 0; k < 3; k++) {
            ct->p[k] = A->x[k] + A->a[0] * ct->n[k];
            ct->q[k] = B->x[k] + t[k] - B->a[0] * ct->n[k];
        }
        return RVE_OK;
    }
    if (A->shape == RVE_PACK_COMPOUND || B->shape == RVE_PACK_COMPOUND) {
        rve_status st = compound_overlap(A, B, t, ct, piece);
        if (st == RVE_OK && !(v3_norm2(ct->n) > 0.5)) /* touching pieces without a normal: the centre line */
            v3_scale(ct->n, d, len > 0 ? 1 / len : 0);
        return st;
    }
    rve_err e;
    int smooth_a = A->shape == RVE_PACK_ELLIPSOID || A->shape == RVE_PACK_SUPERQUADRIC;
    int smooth_b = B->shape == RVE_PACK_ELLIPSOID || B->shape == RVE_PACK_SUPERQUADRIC;
    rve_shape sa, sb;
    pack_body_shape(A, zero, &sa);
    pack_body_shape(B, t, &sb);
    if (smooth_a && smooth_b) {
        rve_sep_opts so;
        memset(&so, 0, sizeof so);
        rve_status st = rve_contact_superellipsoids(&sa, &sb, NULL, &so, ct, NULL, &e);
        if (st == RVE_OK && isfinite(ct->s) && v3_norm2(ct->n) > 0.5)
            return RVE_OK;
    }
    int sq_a = smooth_a || A->shape == RVE_PACK_SPHERE, sq_b = smooth_b || B->shape == RVE_PACK_SPHERE;
    if (A->shape == RVE_PACK_POLY && sq_b && poly_superquadric(A, zero, B, t, ct))
        return RVE_OK;
    if (B->shape == RVE_PACK_POLY && sq_a && poly_superquadric(B, t, A, zero, ct)) {
        /* the kernel's A is our B: flip the normal and the witnesses */
        double tmp[3];
        v3_scale(ct->n, ct->n, -1.0);
        v3_copy(tmp, ct->p);
        v3_copy(ct->p, ct->q);
        v3_copy(ct->q, tmp);
        return RVE_OK;
    }
    rve_status st = rve_contact_epa(&sa, &sb, NULL, ct, &e);
    if (st == RVE_ECAP)
        st = RVE_OK; /* EPA's best estimate at its cap (as for compounds) */
    if (st != RVE_OK || !isfinite(ct->s) || !(v3_norm2(ct->n) > 0.5))
        return st != RVE_OK ? st : RVE_EDATA;
    return RVE_OK;
}

rve_status pack_penetration(const rve_pack_body *A, const rve_pack_body *B, const double t[3], double *depth,
                            double n[3])
{
    rve_contact ct;
    rve_status st = pack_overlap_contact(A, B, t, &ct, NULL);
    if (st == RVE_OK) {
        *depth = -ct.s;
        v3_copy(n, ct.n);
    }
    return st;
}

int pack_bodies_overlap(const rve_pack_body *A, const rve_pack_body *B, const double t[3])
{
    if (A->shape == RVE_PACK_SPHERE && B->shape == RVE_PACK_SPHERE) {
        double d[3];
        for (int k = 0; k < 3; k++)
            d[k] = B->x[k] + t[k] - A->x[k];
        double r = A->a[0] + B->a[0];
        return v3_norm2(d) <= r * r;
    }
    if (A->shape == RVE_PACK_COMPOUND || B->shape == RVE_PACK_COMPOUND) {
        cpair cp;
        if (cpair_init(&cp, A, B, t) != RVE_OK)
            return -1;
        int r = rve_compound_intersect(cp.c[0], &cp.pose[0], cp.c[1], &cp.pose[1], NULL, NULL);
        cpair_free(&cp);
        return r;
    }
    static const double zero[3] = {0, 0, 0};
    rve_shape sa, sb;
    pack_body_shape(A, zero, &sa);
    pack_body_shape(B, t, &sb);
    return rve_gjk_intersect(&sa, &sb, NULL);
}
