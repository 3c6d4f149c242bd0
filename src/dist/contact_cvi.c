/* Intersection of two convex polyhedra (Solfec's cvi.c and goc.c, after Muller and
 * Preparata 1978): an interior point, the face planes made dual about it, the hull
 * of the dual points (qhull), back to the intersection polyhedron; then the contact
 * point (centroid of the intersection surface), the averaged normal (faces of A
 * minus faces of B, weighted by squared area), the contact area (half the surface)
 * and the gap with the sign convention of Solfec's code.
 *
 * The interior point: GJK-TD/EPA gives two points of A and B inside both; the
 * point used is the centre of the largest ball inside A n B (Chebyshev centre, a
 * 4-variable linear programme solved exactly by the simplex method on its dual),
 * which is as far inside as any point can be ("pushed inside"). */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <rve/dist.h>
#include "util/vec3.h"
#include "dist/dist_internal.h"
#include "dist/contact_internal.h"

#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- Chebyshev centre */
/* simplex pivot of the 4-row tableau T (ncol columns) on (leave, enter) */
static void lp_pivot(double *T, double rhs[4], size_t ncol, int leave, size_t enter)
{
    double piv = T[leave * ncol + enter];
    for (size_t j = 0; j < ncol; j++)
        T[leave * ncol + j] /= piv;
    rhs[leave] /= piv;
    for (int r = 0; r < 4; r++)
        if (r != leave) {
            double f = T[r * ncol + enter];
            if (f != 0) {
                for (size_t j = 0; j < ncol; j++)
                    T[r * ncol + j] -= f * T[leave * ncol + j];
                rhs[r] -= f * rhs[leave];
            }
        }
}

/* max t s.t. N_i.x + t <= D_i (unit N_i), via the dual: min D.l s.t.
 * sum l_i (N_i, 1) = (0, 0, 0, 1), l >= 0 (Bland's rule, two phases).
 * Returns 0 on success with x and t filled. */
static int cheb_centre(const double *N, const double *D, size_t m, double x[3], double *t)
{
    size_t ncol = m + 4;
    double *T = malloc(4 * ncol * sizeof *T);
    if (!T)
        return -1;
    double rhs[4] = {0, 0, 0, 1};
    size_t basis[4];
    for (size_t i = 0; i < m; i++) {
        T[0 * ncol + i] = N[3 * i];
        T[1 * ncol + i] = N[3 * i + 1];
        T[2 * ncol + i] = N[3 * i + 2];
        T[3 * ncol + i] = 1;
    }
    for (int r = 0; r < 4; r++) {
        for (int k = 0; k < 4; k++)
            T[r * ncol + m + (size_t)k] = r == k;
        basis[r] = m + (size_t)r;
    }
    const double tol = 1e-12;
    int ok = 0;
    for (int phase = 1; phase <= 2; phase++) {
        size_t it, cap = 50 * ncol + 100;
        for (it = 0; it < cap; it++) {
            /* reduced costs, Bland: first improving column */
            size_t enter = ncol;
            size_t lim = phase == 1 ? ncol : m;
            for (size_t j = 0; j < lim && enter == ncol; j++) {
                double cj = phase == 1 ? (j >= m) : D[j];
                double z = cj;
                for (int r = 0; r < 4; r++) {
                    size_t b = basis[r];
                    double cb = phase == 1 ? (b >= m) : (b < m ? D[b] : 0);
                    z -= cb * T[r * ncol + j];
                }
                int basic = 0;
                for (int r = 0; r < 4; r++)
                    basic |= basis[r] == j;
                if (!basic && z < -tol * (phase == 1 ? 1 : 1 + fabs(cj)))
                    enter = j;
            }
            if (enter == ncol)
                break;
            int leave = -1;
            double best = INFINITY;
            for (int r = 0; r < 4; r++) {
                double a = T[r * ncol + enter];
                if (a > tol) {
                    double q = rhs[r] / a;
                    if (q < best - 1e-15 || (q <= best + 1e-15 && leave >= 0 && basis[r] < basis[leave])) {
                        best = q;
                        leave = r;
                    }
                }
            }
            if (leave < 0)
                break; /* unbounded dual: cannot happen for a bounded intersection */
            lp_pivot(T, rhs, ncol, leave, enter);
            basis[leave] = enter;
        }
        if (it == cap)
            goto done;
        if (phase == 1) {
            /* drive artificial variables out of the basis */
            for (int r = 0; r < 4; r++)
                if (basis[r] >= m) {
                    if (rhs[r] > 1e-9)
                        goto done; /* infeasible */
                    size_t j;
                    for (j = 0; j < m; j++) {
                        int basic = 0;
                        for (int k = 0; k < 4; k++)
                            basic |= basis[k] == j;
                        if (!basic && fabs(T[r * ncol + j]) > 1e-9)
                            break;
                    }
                    if (j == m)
                        goto done; /* rank-deficient: unbounded intersection */
                    double piv = T[r * ncol + j];
                    for (size_t k = 0; k < ncol; k++)
                        T[r * ncol + k] /= piv;
                    rhs[r] /= piv;
                    for (int q = 0; q < 4; q++)
                        if (q != r) {
                            double f = T[q * ncol + j];
                            for (size_t k = 0; k < ncol; k++)
                                T[q * ncol + k] -= f * T[r * ncol + k];
                            rhs[q] -= f * rhs[r];
                        }
                    basis[r] = j;
                }
        }
    }
    {
        /* primal solution: (N_b, 1).(x, t) = D_b for the basic columns */
        double M[4][5];
        for (int r = 0; r < 4; r++) {
            size_t b = basis[r];
            M[r][0] = N[3 * b];
            M[r][1] = N[3 * b + 1];
            M[r][2] = N[3 * b + 2];
            M[r][3] = 1;
            M[r][4] = D[b];
        }
        for (int c = 0; c < 4; c++) {
            int p = c;
            for (int r = c + 1; r < 4; r++)
                if (fabs(M[r][c]) > fabs(M[p][c]))
                    p = r;
            if (!(fabs(M[p][c]) > 1e-14))
                goto done;
            if (p != c)
                for (int k = 0; k < 5; k++) {
                    double s = M[c][k];
                    M[c][k] = M[p][k];
                    M[p][k] = s;
                }
            for (int r = c + 1; r < 4; r++) {
                double f = M[r][c] / M[c][c];
                for (int k = c; k < 5; k++)
                    M[r][k] -= f * M[c][k];
            }
        }
        double y[4];
        for (int c = 3; c >= 0; c--) {
            double s = M[c][4];
            for (int k = c + 1; k < 4; k++)
                s -= M[c][k] * y[k];
            y[c] = s / M[c][c];
        }
        x[0] = y[0];
        x[1] = y[1];
        x[2] = y[2];
        /* the true minimum slack at x (robust to rounding in the pivots) */
        double mt = INFINITY;
        for (size_t i = 0; i < m; i++) {
            double s = D[i] - (N[3 * i] * x[0] + N[3 * i + 1] * x[1] + N[3 * i + 2] * x[2]);
            if (s < mt)
                mt = s;
        }
        *t = mt;
        ok = 1;
    }
done:
    free(T);
    return ok ? 0 : -1;
}

/* ------------------------------------------------------------- intersection */
static void empty_result(rve_intersection *out, const rve_contact *c)
{
    memset(out, 0, sizeof *out);
    out->gap = c->s;
    v3_copy(out->normal, c->n);
    for (int j = 0; j < 3; j++)
        out->point[j] = 0.5 * (c->p[j] + c->q[j]);
}

/* gap: extent of the intersection (vertices V relative to its interior
 * point) along the normal n, then Solfec's check by moving A by -|g| n and
 * B by +|g| n and measuring their distance */
static double solfec_gap(const rve_polyhedron *A, const rve_polyhedron *B, const double nsum[3], const double *V,
                         size_t nvert)
{
    double nmin = INFINITY, nmax = -INFINITY;
    for (size_t i = 0; i < nvert; i++) {
        double s = v3_dot(nsum, V + 3 * i);
        if (s < nmin)
            nmin = s;
        if (s > nmax)
            nmax = s;
    }
    double g = nmin - nmax, ag = fabs(g);
    rve_shape sa, sb;
    rve_shape_polytope(&sa, A->v, (int)A->nv, &A->graph);
    rve_shape_polytope(&sb, B->v, (int)B->nv, &B->graph);
    double q1[4] = {1, 0, 0, 0}, pa[3], pb[3];
    v3_scale(pa, nsum, -ag);
    v3_scale(pb, nsum, ag);
    rve_shape_set_pose(&sa, pa, q1);
    rve_shape_set_pose(&sb, pb, q1);
    rve_dist_result dr;
    rve_gjk_dist(&sa, &sb, NULL, NULL, &dr);
    double d2 = dr.status == RVE_GJK_INTERSECT ? 0 : dr.d;
    return fmin(d2 - 2 * ag, 0);
}

/* area fa and area-weighted centroid tw of the primal face of a dual hull
 * vertex (its facets in cyclic order; fa >= 0, orientation fixed by nf) */
static void face_polygon(qhT *qh, vertexT *vertex, const double *V, const size_t *fidx, const double nf[3],
                         double *fa_out, double tw[3])
{
    facetT *neighbor, **neighborp;
    double fa = 0, first[3] = {0, 0, 0}, prev[3] = {0, 0, 0};
    size_t cnt = 0;
    v3_set(tw, 0, 0, 0);
    (void)qh;
    FOREACHneighbor_(vertex)
    {
        const double *p = V + 3 * fidx[neighbor->id];
        if (cnt == 0)
            v3_copy(first, p);
        else if (cnt >= 2) {
            double e1[3], e2[3], cr[3];
            v3_sub(e1, prev, first);
            v3_sub(e2, p, first);
            v3_cross(cr, e1, e2);
            double a = 0.5 * v3_dot(cr, nf); /* signed by the outward normal */
            fa += a;
            for (int j = 0; j < 3; j++)
                tw[j] += a * (first[j] + prev[j] + p[j]) / 3;
        }
        v3_copy(prev, p);
        cnt++;
    }
    if (fa < 0) { /* the order ran clockwise */
        fa = -fa;
        for (int j = 0; j < 3; j++)
            tw[j] = -tw[j];
    }
    *fa_out = fa;
}

/* primal vertices (relative to the interior point): one per dual facet;
 * fidx maps a facet id to its vertex.  -1 when out of memory. */
static int primal_vertices(qhT *qh, double **Vout, size_t **fidx_out, size_t *nvert)
{
    facetT *facet;
    size_t nfac = 0, n = 0;
    FORALLfacets nfac++;
    double *V = malloc(3 * (nfac ? nfac : 1) * sizeof *V);
    size_t *fidx = malloc((qh->facet_id + 1) * sizeof *fidx);
    *Vout = V;
    *fidx_out = fidx;
    if (!V || !fidx)
        return -1;
    FORALLfacets
    {
        double off = -facet->offset; /* facet: normal.y + offset = 0, offset < 0 */
        for (int j = 0; j < 3; j++)
            V[3 * n + j] = facet->normal[j] / off;
        fidx[facet->id] = n;
        n++;
    }
    *nvert = n;
    return 0;
}

static rve_status cvi_run(const rve_polyhedron *A, const rve_polyhedron *B, rve_intersection *out,
                          rve_polyhedron **poly, rve_err *err);

/* extreme magnitudes: the pair scaled by a power of two (exact); lengths,
 * areas and volumes multiplied back (a volume beyond the double range is inf) */
rve_status rve_polyhedra_intersection(const rve_polyhedron *A, const rve_polyhedron *B, rve_intersection *out,
                                      rve_polyhedron **poly, rve_err *err)
{
    dist_scaled_poly C;
    int k = A && B && out ? dist_poly_scale(A, B, NULL, &C) : 0;
    if (k < 0)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory (scaled copies)");
    if (k == 0)
        return cvi_run(A, B, out, poly, err);
    rve_status st = cvi_run(&C.a, &C.b, out, poly, err);
    dist_poly_scale_free(&C);
    out->volume = ldexp(out->volume, 3 * C.sc);
    out->area = ldexp(out->area, 2 * C.sc);
    out->gap = ldexp(out->gap, C.sc);
    for (int j = 0; j < 3; j++)
        out->point[j] = ldexp(out->point[j], C.sc);
    if (poly && *poly)
        dist_poly_unscale(*poly, C.sc);
    return st;
}

static rve_status cvi_run(const rve_polyhedron *A, const rve_polyhedron *B, rve_intersection *out,
                          rve_polyhedron **poly, rve_err *err)
{
    memset(out, 0, sizeof *out);
    if (poly)
        *poly = NULL;
    rve_contact c;
    rve_status st = rve_contact_epa_polyhedra(A, B, NULL, &c, err);
    if (st != RVE_OK && st != RVE_ECAP)
        return st;
    double size = A->radius > B->radius ? A->radius : B->radius;
    if (c.s >= 0) {
        empty_result(out, &c);
        return RVE_OK;
    }
    /* planes relative to the reference point o (midpoint of the witnesses) */
    size_t m = A->nf + B->nf;
    double o[3];
    for (int j = 0; j < 3; j++)
        o[j] = 0.5 * (c.p[j] + c.q[j]);
    double *N = malloc(3 * m * sizeof *N), *D = malloc(m * sizeof *D);
    coordT *y = malloc(3 * m * sizeof *y);
    if (!N || !D || !y) {
        free(N);
        free(D);
        free(y);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < m; i++) {
        const double *pl = i < A->nf ? A->plane + 4 * i : B->plane + 4 * (i - A->nf);
        v3_copy(N + 3 * i, pl);
        D[i] = pl[3] - v3_dot(pl, o);
    }
    double x[3], t;
    if (cheb_centre(N, D, m, x, &t) != 0) {
        free(N);
        free(D);
        free(y);
        return rve_err_set(err, RVE_EINTERNAL, NULL, "no interior point found for the intersection");
    }
    if (!(t > 1e-12 * size)) {
        /* touching or a flat intersection: no volume */
        free(N);
        free(D);
        free(y);
        empty_result(out, &c);
        out->gap = fmin(c.s, 0);
        return RVE_OK;
    }
    /* dual points about x */
    for (size_t i = 0; i < m; i++) {
        double s = D[i] - v3_dot(N + 3 * i, x);
        for (int j = 0; j < 3; j++)
            y[3 * i + j] = N[3 * i + j] / s;
    }
    for (int j = 0; j < 3; j++)
        x[j] += o[j];
    char *errbuf = NULL;
    size_t errlen = 0;
    FILE *ferr = open_memstream(&errbuf, &errlen);
    qhT qh_qh, *qh = &qh_qh;
    qh_zero(qh, ferr);
    char cmd[] = "qhull";
    int code = qh_new_qhull(qh, 3, (int)m, y, False, cmd, NULL, ferr);
    double *V = NULL;
    size_t nvert = 0, *fidx = NULL;
    if (code) {
        st = rve_err_set(err, RVE_EINTERNAL, NULL, "qhull failed on the dual points");
        goto done;
    }
    vertexT *vertex;
    if (primal_vertices(qh, &V, &fidx, &nvert) != 0) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    /* faces: dual hull vertices, their facets in cyclic order */
    qh_vertexneighbors(qh);
    double sq_area = 0, area = 0, vol = 0, pc[3] = {0, 0, 0}, nsum[3] = {0, 0, 0};
    size_t nfaces = 0;
    FORALLvertices
    {
        int id = qh_pointid(qh, vertex->point);
        if (id < 0 || (size_t)id >= m)
            continue;
        qh_order_vertexneighbors(qh, vertex);
        size_t k = (size_t)qh_setsize(qh, vertex->neighbors);
        if (k < 3)
            continue;
        const double *nf = N + 3 * (size_t)id;
        double fa, tw[3], fc[3];
        face_polygon(qh, vertex, V, fidx, nf, &fa, tw);
        if (!(fa > 0))
            continue;
        for (int j = 0; j < 3; j++)
            fc[j] = tw[j] / fa;
        nfaces++;
        area += fa;
        /* divergence theorem about x: V = sum (n.c) a / 3 */
        vol += v3_dot(nf, fc) * fa / 3;
        for (int j = 0; j < 3; j++)
            pc[j] += fa * fc[j];
        double w = fa * fa * ((size_t)id < A->nf ? 1 : -1);
        sq_area += fa * fa;
        v3_axpy(nsum, nsum, w, nf);
    }
    if (!(area > 0)) {
        st = rve_err_set(err, RVE_EINTERNAL, NULL, "degenerate intersection polyhedron");
        goto done;
    }
    /* a symmetric overlap can cancel the averaged normal: use the EPA normal then */
    if (!(v3_norm(nsum) > 1e-9 * sq_area))
        v3_copy(nsum, c.n);
    v3_normalize(nsum);
    out->volume = vol;
    out->area = 0.5 * area;
    for (int j = 0; j < 3; j++)
        out->point[j] = x[j] + pc[j] / area;
    v3_copy(out->normal, nsum);
    out->nverts = nvert;
    out->nfaces = nfaces;
    out->gap = solfec_gap(A, B, nsum, V, nvert);
    if (poly) {
        double *P = malloc(3 * nvert * sizeof *P);
        if (!P) {
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < nvert; i++)
            for (int j = 0; j < 3; j++)
                P[3 * i + j] = V[3 * i + j] + x[j];
        st = rve_polyhedron_alloc(poly, P, nvert, err);
        free(P);
    }
done:
    qh_freeqhull(qh, !qh_ALL);
    int curlong, totlong;
    qh_memfreeshort(qh, &curlong, &totlong);
    fclose(ferr);
    free(errbuf);
    free(V);
    free(fidx);
    free(N);
    free(D);
    free(y);
    return st;
}
