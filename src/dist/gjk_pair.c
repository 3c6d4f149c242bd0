/* gjk_pair.c - GJK's public trivia (status names, options) and the pair's
 * set-up and finish that run once per query outside the loop: the failed
 * result, the extent and power-of-two factors of the scaled path, and the
 * result's way back from the local (scaled) frame to world coordinates. */
#include "config.h"
#include <rve/dist.h>
#include "dist/gjk_internal.h"
#include <float.h>
#include <math.h>
#include <stdint.h>
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

/* ------------------------------------------ repeated-vertex certificate */

/* Whether vertex i is one of skip[0..nskip-1] */
static int margin_skipped(int i, const int skip[], int nskip)
{
    for (int j = 0; j < nskip; j++)
        if (skip[j] == i)
            return 1;
    return 0;
}

/* whether vertex x is clear of a tie with the chosen xb along sv = sgn v:
 * sv.(x - xb) >= kappa |x - xb|_1 - tau (false for NaN) */
static inline int margin_clear(const double x[3], const double xb[3], const double sv[3], double kappa, double tau)
{
    double d0 = x[0] - xb[0], d1 = x[1] - xb[1], d2 = x[2] - xb[2];
    return sv[0] * d0 + sv[1] * d1 + sv[2] * d2 >= kappa * (fabs(d0) + fabs(d1) + fabs(d2)) - tau;
}

/* bit i for each vertex i < 64 of skip[0..nskip-1] */
static uint64_t margin_skip_mask(const int skip[], int nskip)
{
    uint64_t m = 0;
    for (int j = 0; j < nskip; j++)
        if (skip[j] >= 0 && skip[j] < 64)
            m |= (uint64_t)1 << skip[j];
    return m;
}

/* One body of gjk_dup_certified: every vertex x of X (nv points, x, y, z
 * at X + k * sx, X + sy + k * sx, X + 2 sy + k * sx: points or rows) has
 * sgn vb.(x - x_best) >= kappa |x - x_best|_1 - tau, but those the simplex
 * ties to the chosen one (skip; x_best itself passes: 0 >= -tau). */
static int margin_scan(const double *X, int sx, int sy, int nv, int best, const int skip[], int nskip,
                       const double vb[3], double sgn, double kappa, double tau)
{
    const double xb[3] = {X[best * sx], X[sy + best * sx], X[2 * sy + best * sx]};
    const double sv[3] = {sgn * vb[0], sgn * vb[1], sgn * vb[2]};
    uint64_t mask = margin_skip_mask(skip, nskip);
    for (int i = 0; i < nv; i++) {
        const double x[3] = {X[i * sx], X[sy + i * sx], X[2 * sy + i * sx]};
        if (margin_clear(x, xb, sv, kappa, tau))
            continue;
        if (i < 64 ? !(mask >> i & 1) : !margin_skipped(i, skip, nskip))
            return 0;
    }
    return 1;
}

/* margin_scan on the pair loop's rows (gjk.c pair_rows: at
 * most 32 vertices, padded to DIST_SOA_PAD(nv) <= 32 with vertex 0), two
 * vertices per SSE2 register: the scalar scan was 8 % of a touching
 * 8-vertex query (a bit per vertex in 64 bits: 1u << 32 was undefined) */
static int margin_rows(const double *X, int nv, int best, const int skip[], int nskip, const double v[3], double sgn,
                       double kappa, double tau)
{
#if defined(__GNUC__) && defined(__SSE2__)
    const int st = DIST_SOA_STRIDE;
    const __m128d b0 = _mm_set1_pd(X[best]), b1 = _mm_set1_pd(X[st + best]), b2 = _mm_set1_pd(X[2 * st + best]);
    const __m128d v0 = _mm_set1_pd(sgn * v[0]), v1 = _mm_set1_pd(sgn * v[1]), v2 = _mm_set1_pd(sgn * v[2]);
    const __m128d k = _mm_set1_pd(kappa), tt = _mm_set1_pd(tau);
    const __m128d absm = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
    uint64_t ok = 0;
    for (int i = 0; i < DIST_SOA_PAD(nv); i += 2) {
        __m128d d0 = _mm_sub_pd(_mm_loadu_pd(X + i), b0), d1 = _mm_sub_pd(_mm_loadu_pd(X + st + i), b1),
                d2 = _mm_sub_pd(_mm_loadu_pd(X + 2 * st + i), b2);
        __m128d t = _mm_add_pd(_mm_add_pd(_mm_mul_pd(v0, d0), _mm_mul_pd(v1, d1)), _mm_mul_pd(v2, d2));
        __m128d n = _mm_add_pd(_mm_add_pd(_mm_and_pd(d0, absm), _mm_and_pd(d1, absm)), _mm_and_pd(d2, absm));
        ok |= (uint64_t)_mm_movemask_pd(_mm_cmpge_pd(t, _mm_sub_pd(_mm_mul_pd(k, n), tt))) << i;
    }
    uint64_t need = (((uint64_t)1 << nv) - 1) & ~margin_skip_mask(skip, nskip);
    return (ok & need) == need;
#else
    return margin_scan(X, 1, DIST_SOA_STRIDE, nv, best, skip, nskip, v, sgn, kappa, tau);
#endif
}

/* margin_scan for a polytope that hill climbing searched (its hull graph):
 * the hull neighbours of the chosen vertex only, without the allowance tau
 * (a vertex no neighbour beats along the exact v* is the support of the
 * convex hull along v*; a brute-force scan of large hulls would cost more
 * than the query) */
static int margin_graph(const double *V, const rve_poly_graph *g, int best, const int skip[], int nskip,
                        const double vb[3], double sgn, double kappa)
{
    if (best >= g->nv)
        return 0;
    const double sv[3] = {sgn * vb[0], sgn * vb[1], sgn * vb[2]};
    for (int k = g->off[best]; k < g->off[best + 1]; k++) {
        int i = g->nbr[k];
        if (!margin_clear(V + 3 * i, V + 3 * best, sv, kappa, 0) && !margin_skipped(i, skip, nskip))
            return 0;
    }
    return 1;
}

/* the same for a shape (its vertices in the body frame, v rotated into it) */
static int margin_body(const rve_shape *s, const dist_frame *f, int best, const int skip[], int nskip,
                       const double v[3], double sgn, double kappa, double tau)
{
    int nv = dist_nvertices(s);
    if (best < 0 || best >= nv)
        return 1; /* no vertices (smooth shapes): nothing chosen among them */
    double vb[3];
    if (f->rotated) {
        const double *R = f->R;
        vb[0] = R[0] * v[0] + R[3] * v[1] + R[6] * v[2];
        vb[1] = R[1] * v[0] + R[4] * v[1] + R[7] * v[2];
        vb[2] = R[2] * v[0] + R[5] * v[1] + R[8] * v[2];
    } else {
        v3_copy(vb, v);
    }
    if (s->kind == RVE_SHAPE_POLYTOPE && s->graph && nv > DIST_GRAPH_MIN_NV)
        return margin_graph(s->verts, s->graph, best, skip, nskip, vb, sgn, kappa);
    if (s->kind == RVE_SHAPE_POLYTOPE)
        return margin_scan(s->verts, 3, 1, nv, best, skip, nskip, vb, sgn, kappa, tau);
    double X[8 * 3]; /* box corners, simplex vertices */
    for (int i = 0; i < nv && i < 8; i++)
        dist_vertex_body(s, i, X + 3 * i);
    return margin_scan(X, 3, 1, nv < 8 ? nv : 8, best, skip, nskip, vb, sgn, kappa, tau);
}

/* Whether GJK may stop on the repeated vertex (ia, ib) found in direction
 * -v: v carries an error of at most kappa_v (loop units), so the support
 * of the exact closest point v* of the simplex could be another vertex
 * only where one is within kappa_v |d| of the chosen one along v (a near
 * tie, such as two corners of a thin box, or near-duplicate vertices).
 * Certified when no vertex of either body is (the test's own rounding
 * added to kappa), up to tau (loop units squared): then every point z of A
 * - B has v*.z >= |v*|^2 - 2 tau, and d >= |v*| - 2 tau / |v*|.  Vertices
 * the simplex ties to the chosen one (a_j with b_j = b_ib: v*.a_j =
 * v*.a_ia exactly, and the same for B) are left out.  Rare: only repeated-
 * vertex stops ask (docs/dist.md, stop 34). */
int gjk_dup_certified(const gjk_pair *P, int n, const int sia[], const int sib[], const double v[3], int ia, int ib,
                      double kappa_v, double tau)
{
    double s = P->m1 * P->m2; /* loop units per body unit */
    double kappa = kappa_v + 8 * DBL_EPSILON * (fabs(v[0]) + fabs(v[1]) + fabs(v[2]));
    double tb = tau / s;
    int skipa[4], skipb[4], na = 0, nb = 0;
    for (int j = 0; j < n; j++) {
        if (sib[j] == ib)
            skipa[na++] = sia[j];
        if (sia[j] == ia)
            skipb[nb++] = sib[j];
    }
    if (P->V) /* point query: A is the point, B the world array */
        return ib < 0 || ib >= P->nv || margin_scan(P->V, 3, 1, P->nv, ib, skipb, nb, v, -1, kappa, tb);
    if (P->ra) /* small polytopes as rows (unscaled, rotated: v as it is) */
        return margin_rows(P->ra, P->A->nv, ia, skipa, na, v, 1, kappa, tb) &&
               margin_rows(P->rb, P->B->nv, ib, skipb, nb, v, -1, kappa, tb);
    return margin_body(P->A, &P->fa, ia, skipa, na, v, 1, kappa, tb) &&
           margin_body(P->B, &P->fb, ib, skipb, nb, v, -1, kappa, tb);
}
