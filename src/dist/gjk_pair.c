/* gjk_pair.c - GJK's public trivia (status names, options) and the pair's
 * set-up and finish that run once per query outside the loop: the failed
 * result, the extent and power-of-two factors of the scaled path, and the
 * result's way back from the local (scaled) frame to world coordinates. */
#include "config.h"
#include <rve/dist.h>
#include "dist/gjk_internal.h"
#include <float.h>
#include <math.h>
#include <string.h>

const char *rve_gjk_status_name(rve_gjk_status s)
{
    switch (s) {
    case RVE_GJK_CONVERGED: return "converged";
    case RVE_GJK_INTERSECT: return "intersecting";
    case RVE_GJK_CAP: return "iteration cap reached";
    case RVE_GJK_DEGENERATE: return "degenerate input";
    case RVE_GJK_RANGE: return "distance beyond the double range";
    }
    return "unknown";
}

void rve_gjk_opts_default(rve_gjk_opts *o)
{
    o->sub = RVE_SUB_SV;
    o->max_iter = GJK_DEFAULT_MAX_ITER;
    o->eps_rel = GJK_DEFAULT_EPS_REL;
    o->eps_abs = GJK_DEFAULT_EPS_ABS;
}

void rve_gjk_simplex_init(rve_gjk_simplex *w) { memset(w, 0, sizeof *w); }

void gjk_degenerate_result(rve_dist_result *out)
{
    memset(out, 0, sizeof *out);
    out->d = NAN;
    v3_set(out->p, NAN, NAN, NAN);
    v3_set(out->q, NAN, NAN, NAN);
    out->status = RVE_GJK_DEGENERATE;
}

/* Largest |coordinate| a shape can reach (positions, vertices, sizes, radius):
 * sets the scale of the rescaled path, so it runs only there (O(nv)). */
double gjk_shape_extent(const rve_shape *s)
{
    double m = v3_maxabs(s->pos), e = 0;
    switch (s->kind) {
    case RVE_SHAPE_POLYTOPE:
        for (int i = 0; i < 3 * s->nv; i++)
            e = fmax(e, fabs(s->verts[i]));
        break;
    case RVE_SHAPE_BOX: case RVE_SHAPE_ELLIPSOID: case RVE_SHAPE_SUPERQUADRIC:
        e = v3_maxabs(s->axes);
        break;
    default:
        for (int i = 0; i < dist_nvertices(s) && i < 4; i++)
            e = fmax(e, v3_maxabs(s->v[i]));
        break;
    }
    /* a rotated body reaches at most sqrt(3) e per coordinate: 2 e is safe */
    return m + 2 * e + fabs(s->radius);
}

/* sc with 2^-sc L in [1, 2), and the two exact factors 2^-sc = m1 m2 */
void gjk_scale_factors(double L, gjk_pair *P)
{
    int e = 0;
    if (L > 0 && isfinite(L))
        e = ilogb(L);
    else if (!isfinite(L))
        e = 1023;
    P->sc = e;
    int h1 = -e / 2, h2 = -e - h1;
    P->m1 = ldexp(1.0, h1);
    P->m2 = ldexp(1.0, h2);
}

/* local (scaled) point -> world */
static inline void pair_to_world(const gjk_pair *P, const double l[3], double w[3])
{
    if (P->sc == 0) {
        v3_add(w, P->c, l);
        return;
    }
    for (int i = 0; i < 3; i++)
        w[i] = ldexp(P->c[i] * P->m1 * P->m2 + l[i], P->sc);
}

/* The result of the loop (local frame) to world coordinates; rounded shapes
 * lose their radii here, in the local (scaled) units where ra + rb is finite. */
rve_gjk_status gjk_pair_finish(const gjk_pair *P, rve_gjk_status st, rve_dist_result *out)
{
    double m = P->m1 * P->m2;
    double ra = P->A->radius * m, rb = P->B->radius * m;
    if (st != RVE_GJK_DEGENERATE && (ra > 0 || rb > 0)) {
        if (st == RVE_GJK_INTERSECT || !(out->d > 0)) {
            out->d = 0;
            st = RVE_GJK_INTERSECT;
        } else {
            double dc = out->d, u[3];
            v3_sub(u, out->q, out->p);
            double lu = v3_norm(u);
            v3_scale(u, u, lu > 0 ? 1.0 / lu : 0.0);
            if (dc > ra + rb) {
                v3_axpy(out->p, out->p, ra, u);
                v3_axpy(out->q, out->q, -rb, u);
                out->d = dc - ra - rb;
            } else {
                v3_axpy(out->p, out->p, dc * (ra / (ra + rb)), u);
                v3_copy(out->q, out->p);
                out->d = 0;
                st = RVE_GJK_INTERSECT;
            }
        }
    }
    if (st != RVE_GJK_DEGENERATE && P->local) {
        double t[3];
        if (P->want != WANT_D) {
            pair_to_world(P, out->p, t);
            v3_copy(out->p, t);
            pair_to_world(P, out->q, t);
            v3_copy(out->q, t);
        }
        for (int i = 0; i < out->n; i++) {
            pair_to_world(P, out->a[i], t);
            v3_copy(out->a[i], t);
            pair_to_world(P, out->b[i], t);
            v3_copy(out->b[i], t);
        }
        if (P->sc != 0)
            out->d = ldexp(out->d, P->sc);
        if (isinf(out->d) && st == RVE_GJK_CONVERGED)
            st = RVE_GJK_RANGE;
    }
    out->status = st;
    return st;
}
