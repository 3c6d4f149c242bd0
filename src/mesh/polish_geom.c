/* polish_geom.c - angles, validity checks and trial placement of one vertex
 * for the polish (see polish.c). */
#include "config.h"
#include "mesh/polish_state.h"
#include "util/vec3.h"
#include <limits.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* ---------------------------------------------------------------- geometry */
const double *pol_pos(const pol *P, int w)
{
    return w == P->v ? P->p : P->c->v + 3 * w;
}

/* Face point of f (the vertex mean: it follows the move of v). */
const double *pol_fpos(const pol *P, int f)
{
    for (int j = 0; j < P->nvf; j++)
        if (P->vf[j] == f)
            return P->vfpt[j];
    return P->c->fpt + 3 * f;
}

double pol_tri_omega(const double x[3], const double o[3], const double a[3], const double b[3])
{
    double u[3], w[3], z[3];
    v3_sub(u, o, x);
    v3_sub(w, a, x);
    v3_sub(z, b, x);
    return v3_solid_angle(u, w, z);
}

/* Angle at q between q->a and q->b. */
double pol_corner(const double q[3], const double a[3], const double b[3])
{
    double u[3], w[3], x[3];
    v3_sub(u, a, q);
    v3_sub(w, b, q);
    v3_cross(x, u, w);
    return atan2(v3_norm(x), v3_dot(u, w));
}

int pol_loop_len(const rve_cx *c, int f)
{
    return c->foff[f + 1] - c->foff[f];
}

int pol_loop_at(const rve_cx *c, int f, int i)
{
    int n = pol_loop_len(c, f);
    return c->fv[c->foff[f] + ((i % n) + n) % n];
}

static int loop_find(const rve_cx *c, int f, int v)
{
    for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
        if (c->fv[i] == v)
            return i - c->foff[f];
    return -1;
}

/* Outward normal (not normalised) of face f's fan triangle on loop edge
 * (a, b), for cell k. */
static void fan_normal(const pol *P, int f, int a, int b, int k, double n[3])
{
    double u[3], w[3];
    const double *o = pol_fpos(P, f);
    v3_sub(u, pol_pos(P, a), o);
    v3_sub(w, pol_pos(P, b), o);
    v3_cross(n, u, w);
    if (P->c->fc[2 * f] != k)
        v3_scale(n, n, -1);
}

/* Interior dihedral angle of cell k along edge (a, b): between the fan
 * triangles of its two faces on that edge (pi when not found). */
double pol_dihedral(const pol *P, int k, int a, int b)
{
    const rve_cx *c = P->c;
    double n[2][3];
    int found = 0;
    for (int j = P->vfo[a]; j < P->vfo[a + 1] && found < 2; j++) {
        int f = P->vfl[j];
        if (c->fc[2 * f] != k && c->fc[2 * f + 1] != k)
            continue;
        int i = loop_find(c, f, a);
        if (pol_loop_at(c, f, i + 1) == b)
            fan_normal(P, f, a, b, k, n[found++]);
        else if (pol_loop_at(c, f, i - 1) == b)
            fan_normal(P, f, b, a, k, n[found++]);
    }
    if (found < 2)
        return PI;
    double x[3];
    v3_cross(x, n[0], n[1]);
    return PI - atan2(v3_norm(x), v3_dot(n[0], n[1]));
}

/* Smallest angle that moving vertex v changes: face corners at v and at its
 * loop neighbours, dihedral angles of the cells along the edges at v. */
static double fan_min_angle(const pol *P, int f)
{
    const rve_cx *c = P->c;
    const double *o = pol_fpos(P, f);
    double m = PI;
    for (int i = 0; i < pol_loop_len(c, f); i++) {
        const double *a = pol_pos(P, pol_loop_at(c, f, i)), *b = pol_pos(P, pol_loop_at(c, f, i + 1));
        m = fmin(m, fmin(pol_corner(o, a, b), fmin(pol_corner(a, o, b), pol_corner(b, a, o))));
    }
    return m;
}

/* The angles of the fan triangles count too where the face is meshed as its
 * fan: non-planar faces, and (moved = 1) every face at v once v moved. */
static double local_min_angle(const pol *P, int v, int moved)
{
    const rve_cx *c = P->c;
    double m = PI;
    for (int j = P->vfo[v]; j < P->vfo[v + 1]; j++) {
        int f = P->vfl[j], i = loop_find(c, f, v);
        if (c->fdom[f] < 0 && (moved || !c->fflat[f]))
            m = fmin(m, fan_min_angle(P, f));
        for (int d = -1; d <= 1; d++) {
            int q = pol_loop_at(c, f, i + d);
            m = fmin(m, pol_corner(pol_pos(P, q), pol_pos(P, pol_loop_at(c, f, i + d - 1)),
                               pol_pos(P, pol_loop_at(c, f, i + d + 1))));
        }
        int u = pol_loop_at(c, f, i + 1);
        for (int s = 0; s < 2; s++) {
            int k = c->fc[2 * f + s];
            if (k >= 0)
                m = fmin(m, pol_dihedral(P, k, v, u));
        }
    }
    return m;
}

/* Quality of v's neighbourhood, 1 when it needs nothing: the smallest angle
 * over the minimum angle, and the shortest edge at v over the threshold. */
double pol_local_quality(const pol *P, int v, int moved)
{
    double q = P->qang > 0 ? local_min_angle(P, v, moved) / P->qang : 1;
    for (int t = 0; t < P->ntri; t++)
        if (P->tri[t].a == v || P->tri[t].b == v)
            q = fmin(q, v3_dist(pol_pos(P, P->tri[t].a), pol_pos(P, P->tri[t].b)) / P->thr);
    return fmin(q, 1);
}

/* ------------------------------------------------------------ validity */
/* Faces at v: no fan triangle folded over (normals along the face's vector
 * area, which keeps its side), bend atan(h / r) within the maximum (or not
 * worse than it was). */
int pol_faces_ok(const pol *P)
{
    const rve_cx *c = P->c;
    for (int j = P->vfo[P->v]; j < P->vfo[P->v + 1]; j++) {
        int f = P->vfl[j], n = pol_loop_len(c, f);
        const double *o = pol_fpos(P, f), *o0 = c->fpt + 3 * f;
        double N[3] = {0, 0, 0}, N0[3] = {0, 0, 0}, m[3] = {0, 0, 0};
        for (int i = 0; i < n; i++) {
            int a = pol_loop_at(c, f, i), b = pol_loop_at(c, f, i + 1);
            double u[3], w[3], x[3];
            v3_sub(u, pol_pos(P, a), o);
            v3_sub(w, pol_pos(P, b), o);
            v3_cross(x, u, w);
            v3_add(N, N, x);
            v3_sub(u, c->v + 3 * a, o0);
            v3_sub(w, c->v + 3 * b, o0);
            v3_cross(x, u, w);
            v3_add(N0, N0, x);
            v3_add(m, m, pol_pos(P, a));
        }
        v3_scale(m, m, 1.0 / n);
        double area2 = v3_normalize(N);
        if (!(area2 > 0) || !(v3_dot(N, N0) > 0))
            return 0;
        double h = 0;
        for (int i = 0; i < n; i++) {
            int a = pol_loop_at(c, f, i), b = pol_loop_at(c, f, i + 1);
            double u[3], w[3], x[3], um[3];
            v3_sub(u, pol_pos(P, a), o);
            v3_sub(w, pol_pos(P, b), o);
            v3_cross(x, u, w);
            if (!(v3_dot(x, N) > 1e-12 * v3_norm2(u) + 1e-12 * v3_norm2(w)))
                return 0;
            v3_sub(um, pol_pos(P, a), m);
            h = fmax(h, fabs(v3_dot(um, N)));
        }
        if (c->fdom[f] < 0 && atan2(h, sqrt(0.5 * area2 / PI)) > P->max_bend)
            return 0;
    }
    return 1;
}

/* Cells around v stay star-shaped from their vertex mean. */
int pol_cells_ok(const pol *P)
{
    const rve_cx *c = P->c;
    for (int s = 0; s < P->nstar; s++) {
        int k = P->star[s];
        double cc[3] = {0, 0, 0};
        int cnt = 0;
        for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
            int f = P->cfl[j];
            for (int i = c->foff[f]; i < c->foff[f + 1]; i++, cnt++)
                v3_add(cc, cc, pol_pos(P, c->fv[i]));
        }
        v3_scale(cc, cc, 1.0 / cnt);
        for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
            int f = P->cfl[j], n = pol_loop_len(c, f);
            double sg = c->fc[2 * f] == k ? 1 : -1, z[3];
            v3_sub(z, pol_fpos(P, f), cc);
            for (int i = 0; i < n; i++) {
                double u[3], w[3], x[3];
                v3_sub(u, pol_pos(P, pol_loop_at(c, f, i)), cc);
                v3_sub(w, pol_pos(P, pol_loop_at(c, f, i + 1)), cc);
                v3_cross(x, u, w);
                if (!(sg * v3_dot(z, x) > 1e-9 * v3_norm(u) * v3_norm(w) * v3_norm(z)))
                    return 0;
            }
        }
    }
    return 1;
}

/* Cells around v stay convex within tolerance: no vertex of a cell rises
 * above the plane of one of its fan triangles by more than sin(max bend)
 * times the cell's diameter (what regularisation itself guarantees). */
int pol_convex_ok(pol *P)
{
    enum { MAXU = 1024 };
    const rve_cx *c = P->c;
    double lim = sin(P->max_bend), u[MAXU][3];
    for (int s = 0; s < P->nstar; s++) {
        int k = P->star[s], nu = 0;
        /* the cell's distinct vertices (each is on three or more of its faces) */
        if (++P->vgen == 0) {
            memset(P->vmark, 0, (size_t)c->nv * sizeof(uint32_t));
            P->vgen = 1;
        }
        for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++)
            for (int i = c->foff[P->cfl[j]]; i < c->foff[P->cfl[j] + 1]; i++) {
                int w = c->fv[i];
                if (P->vmark[w] == P->vgen)
                    continue;
                if (nu == MAXU)
                    return 0; /* a cell beyond any real one: refuse the move */
                P->vmark[w] = P->vgen;
                v3_copy(u[nu++], pol_pos(P, w));
            }
        double diam2 = 0;
        for (int a = 0; a < nu; a++)
            for (int b = a + 1; b < nu; b++)
                diam2 = fmax(diam2, v3_dist2(u[a], u[b]));
        double tol = lim * sqrt(diam2);
        for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
            int f = P->cfl[j], n = pol_loop_len(c, f);
            const double *o = pol_fpos(P, f);
            for (int i = 0; i < n; i++) {
                double nn[3];
                fan_normal(P, f, pol_loop_at(c, f, i), pol_loop_at(c, f, i + 1), k, nn);
                if (!(v3_normalize(nn) > 0))
                    continue;
                for (int a = 0; a < nu; a++) {
                    double x[3];
                    v3_sub(x, u[a], o);
                    if (v3_dot(x, nn) > tol)
                        return 0;
                }
            }
        }
    }
    return 1;
}

/* Edges at v keep at least min(threshold, their length). */
int pol_edges_ok(const pol *P)
{
    for (int t = 0; t < P->ntri; t++) {
        if (P->tri[t].a != P->v)
            continue; /* each edge at v is the loop edge (v, u) of some face */
        int u = P->tri[t].b;
        double l1 = v3_dist(P->p, P->c->v + 3 * u), l0 = v3_dist(P->c->v + 3 * P->v, P->c->v + 3 * u);
        if (l1 < fmin(P->thr, l0))
            return 0;
    }
    return 1;
}

/* Set up the move of v: its fan triangles and the cells around it.  0 when
 * the vertex is beyond the fixed limits (then it is left alone). */
int pol_setup_vertex(pol *P, int v)
{
    const rve_cx *c = P->c;
    P->v = v;
    v3_copy(P->p, c->v + 3 * v);
    P->ntri = P->nstar = P->nvf = 0;
    for (int j = P->vfo[v]; j < P->vfo[v + 1]; j++) {
        int f = P->vfl[j], n = pol_loop_len(c, f);
        if (P->ntri + n > MAXT || P->nvf == MAXF)
            return 0;
        P->vf[P->nvf] = f;
        v3_copy(P->vfpt[P->nvf++], c->fpt + 3 * f);
        for (int i = 0; i < n; i++)
            P->tri[P->ntri++] = (ptri){f, pol_loop_at(c, f, i), pol_loop_at(c, f, i + 1)};
        for (int s = 0; s < 2; s++) {
            int k = c->fc[2 * f + s], seen = 0;
            if (k < 0)
                continue;
            for (int q = 0; q < P->nstar; q++)
                seen |= P->star[q] == k;
            if (!seen) {
                if (P->nstar == MAXS)
                    return 0;
                P->star[P->nstar++] = k;
            }
        }
    }
    return P->ntri > 0;
}

/* Try v at p: the face points of its faces follow (vertex means). */
void pol_place(pol *P, const double p[3])
{
    const rve_cx *c = P->c;
    v3_copy(P->p, p);
    for (int j = 0; j < P->nvf; j++) {
        int f = P->vf[j], n = pol_loop_len(c, f);
        double *m = P->vfpt[j];
        m[0] = m[1] = m[2] = 0;
        for (int i = 0; i < n; i++)
            v3_add(m, m, pol_pos(P, pol_loop_at(c, f, i)));
        v3_scale(m, m, 1.0 / n);
    }
}

