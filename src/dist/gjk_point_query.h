/* GJK for a point against a polytope: the point loop's support mappings
 * (plain scan, rows, power-of-two scaled) and its run (ptpoly_run).
 * Included twice, as gjk_query.h: by gjk_point.c for the baseline
 * instruction set and by gjk_point_avx.c under AVX (not installed). */
#ifndef RVE_GJK_POINT_QUERY_H
#define RVE_GJK_POINT_QUERY_H

#include <rve/dist.h>
#include "dist/gjk_loop.h"
#include <float.h>
#include <math.h>
#include <string.h>

DIST_INLINE void support_ptpoly(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    v3_copy(a, P->pt);
    *ia = 0;
    int i = dist_argmax(P->V, P->nv, v);
    v3_copy(b, P->V + 3 * i);
    *ib = i;
}

static void vertex_ptpoly(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
{
    (void)ia;
    v3_copy(a, P->pt);
    v3_copy(b, P->V + 3 * ib);
}

/* the same from rows of x, y, z (ptpoly_run's dist_rows, up to DIST_SOA_STRIDE_PT
 * vertices): the index of dist_argmax, the vertex from V itself */
DIST_INLINE void support_ptrows(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    v3_copy(a, P->pt);
    *ia = 0;
    int i = dist_argmax_soa(P->rb, P->nv, DIST_SOA_STRIDE_PT, v);
    v3_copy(b, P->V + 3 * i);
    *ib = i;
}

/* point vs polytope, scaled: the point is in P->pa (scaled) */
static void support_ptpoly_scaled(gjk_pair *P, const double v0[3], double a[3], double b[3], int *ia, int *ib)
{
    double v[3];
    scaled_dir(P, v0, v);
    v3_copy(a, P->pa);
    *ia = 0;
    int i = dist_argmax(P->V, P->nv, v);
    v3_copy(b, P->V + 3 * i);
    scale2(P, b);
    *ib = i;
}

static void vertex_ptpoly_scaled(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
{
    (void)ia;
    v3_copy(a, P->pa);
    v3_copy(b, P->V + 3 * ib);
    scale2(P, b);
}

/* The scaled loop out of line, as scaled_run: a second inlined copy of the
 * loop made the ordinary point query slower (its sub-algorithm call was no
 * longer inlined). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static rve_gjk_status ptpoly_scaled_loop(gjk_pair *P, int nv, const double v0[3], const rve_gjk_opts *o,
                                         rve_gjk_simplex *warm, rve_dist_result *out)
{
    return gjk_loop(P, support_ptpoly_scaled, vertex_ptpoly_scaled, 1, nv, v0, o, warm, out, -1.0, 0);
}

/* The first direction's start: the mean of at most 64 vertices, in two
 * sums (even and odd vertices; half the chain of dependent adds, point rows
 * 3-7 % faster), else the first vertex; only the start depends on it */
static void ptpoly_mid(const double *V, int nv, double m[3])
{
    if (nv > 64) {
        v3_copy(m, V);
        return;
    }
    double m2[3] = {0, 0, 0};
    int i = 0;
    v3_set(m, 0, 0, 0);
    for (; i + 2 <= nv; i += 2) {
        v3_add(m, m, V + 3 * i);
        v3_add(m2, m2, V + 3 * i + 3);
    }
    if (i < nv)
        v3_add(m, m, V + 3 * i);
    v3_add(m, m, m2);
    v3_scale(m, m, 1.0 / nv);
}

/* whether the query takes rows of x, y, z (8 to DIST_SOA_STRIDE_PT
 * vertices, unscaled) */
_Static_assert(DIST_SOA_PAD(DIST_SOA_STRIDE_PT) <= DIST_SOA_STRIDE_PT, "the point rows hold the padding");
static inline int ptpoly_rows(int nv, int scaled)
{
    return !scaled && nv <= DIST_SOA_STRIDE_PT && nv >= 8;
}

static double ptpoly_run(const double p[3], const double *verts, int nv, const rve_gjk_opts *o, int scaled,
                         rve_gjk_simplex *warm, rve_dist_result *out, int *rescale, int want)
{
    gjk_pair P;
    P.want = want;
    P.pt = p;
    P.V = verts;
    P.nv = nv;
    P.sc = 0;
    P.m1 = P.m2 = 1;
    if (scaled) {
        double L = v3_maxabs(p);
        for (int i = 0; i < 3 * nv; i++)
            L = fmax(L, fabs(verts[i]));
        gjk_scale_factors(L, &P);
        v3_copy(P.pa, p);
        scale2(&P, P.pa);
    }
    double v0[3], m[3];
    ptpoly_mid(verts, nv, m);
    /* 8 to DIST_SOA_STRIDE_PT vertices, unscaled: rows of x, y, z copied once
     * per query (a 30-vertex query's copy and scans take 16 % fewer
     * instructions than the plain scan's; below 8 vertices the copy and the
     * padding cost more than they save: 1 vertex 47 -> 23 ns, 4 65 -> 54, 7
     * 68 -> 64; docs/dist.md, stop 34) */
    double rows[3 * DIST_SOA_STRIDE_PT];
    const int use_rows = ptpoly_rows(nv, scaled);
    if (use_rows) {
        dist_rows(NULL, verts, nv, rows, DIST_SOA_STRIDE_PT);
        P.rb = rows;
    }
    if (scaled) {
        scale2(&P, m);
        v3_sub(v0, P.pa, m);
    } else {
        v3_sub(v0, p, m);
    }
    rve_gjk_status st = scaled     ? ptpoly_scaled_loop(&P, nv, v0, o, warm, out)
                        : use_rows ? gjk_loop(&P, support_ptrows, vertex_ptpoly, 1, nv, v0, o, warm, out, -1.0, 1)
                                   : gjk_loop(&P, support_ptpoly, vertex_ptpoly, 1, nv, v0, o, warm, out, -1.0, 1);
    *rescale = needs_rescale(&P, out);
    if (st == RVE_GJK_INTERSECT) {
        v3_copy(out->p, p);
        v3_copy(out->q, p);
        out->d = 0;
    } else if (st != RVE_GJK_DEGENERATE) {
        if (scaled) {
            out->d = ldexp(out->d, P.sc);
            for (int i = 0; i < 3 && want != WANT_D; i++)
                out->q[i] = ldexp(out->q[i], P.sc);
            for (int k = 0; k < out->n; k++)
                for (int i = 0; i < 3; i++) {
                    out->a[k][i] = p[i];
                    out->b[k][i] = ldexp(out->b[k][i], P.sc);
                }
            if (isinf(out->d) && st == RVE_GJK_CONVERGED)
                out->status = st = RVE_GJK_RANGE;
        }
        v3_copy(out->p, p);
    }
    return out->d;
}

#endif
