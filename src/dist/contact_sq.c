/* Superquadric contacts: convex polyhedron vs superquadric (Peng & Hanley 2019) and
 * superellipsoid pairs by the common normal (Wellmann, Lillie & Wriggers 2008).
 *
 * Both rest on the closed-form superquadric-plane query: the point of a superquadric
 * whose outward normal is a given direction is its support point (dist module's
 * closed form, valid for exponents > 1).  Conventions: Peng & Hanley's
 * F = (|x/a|^n2 + |y/b|^n2)^(n1/n2) + |z/c|^n1; Wellmann uses Barr's eps1, eps2 with
 * n2 = 2/eps1, n1 = 2/eps2 (rve_superquadric_barr). */
#include "config.h"
#include <rve/dist.h>
#include "util/vec3.h"
#include "dist/dist_internal.h"
#include "dist/contact_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rve_superquadric_barr(rve_shape *s, double r1, double r2, double r3, double eps1, double eps2)
{
    rve_shape_superquadric(s, r1, r2, r3, 2 / eps2, 2 / eps1);
}

static int sq_valid(const rve_shape *s)
{
    if (s->kind == RVE_SHAPE_SPHERE)
        return s->radius > 0 && isfinite(s->radius);
    if (s->kind != RVE_SHAPE_SUPERQUADRIC && s->kind != RVE_SHAPE_ELLIPSOID)
        return 0;
    for (int i = 0; i < 3; i++)
        if (!(s->axes[i] > 0) || !isfinite(s->axes[i]) || !isfinite(s->pos[i]))
            return 0;
    if (s->kind == RVE_SHAPE_SUPERQUADRIC && !(s->n1 > 1 && s->n2 > 1 && s->n1 < 1e6 && s->n2 < 1e6))
        return 0;
    return s->radius == 0;
}

/* body-frame coordinates of world point x */
static void to_body(const rve_shape *s, const dist_frame *f, const double x[3], double out[3])
{
    double t[3];
    v3_sub(t, x, s->pos);
    if (!f->rotated) {
        v3_copy(out, t);
        return;
    }
    const double *R = f->R;
    out[0] = R[0] * t[0] + R[3] * t[1] + R[6] * t[2];
    out[1] = R[1] * t[0] + R[4] * t[1] + R[7] * t[2];
    out[2] = R[2] * t[0] + R[5] * t[1] + R[8] * t[2];
}

/* Inside-outside value F(x) of a superquadric / ellipsoid / sphere (1 on the surface). */
double rve_superquadric_F(const rve_shape *s, const double x[3])
{
    dist_frame f;
    dist_frame_init(&f, s);
    double b[3];
    to_body(s, &f, x, b);
    if (s->kind == RVE_SHAPE_SPHERE) {
        double d[3];
        v3_sub(d, b, s->v[0]);
        return v3_norm2(d) / (s->radius * s->radius);
    }
    double n1 = s->kind == RVE_SHAPE_ELLIPSOID ? 2 : s->n1, n2 = s->kind == RVE_SHAPE_ELLIPSOID ? 2 : s->n2;
    double u = fabs(b[0] / s->axes[0]), v = fabs(b[1] / s->axes[1]), w = fabs(b[2] / s->axes[2]);
    double m = u > v ? u : v;
    double rho = m > 0 ? m * pow(pow(u / m, n2) + pow(v / m, n2), 1 / n2) : 0;
    return pow(rho, n1) + pow(w, n1);
}

/* gauge (Minkowski functional): F^(1/n1), convex and 1-homogeneous about the centre */
static double sq_gauge(const rve_shape *s, const dist_frame *f, const double x[3])
{
    double b[3];
    to_body(s, f, x, b);
    if (s->kind == RVE_SHAPE_SPHERE) {
        double d[3];
        v3_sub(d, b, s->v[0]);
        return v3_norm(d) / s->radius;
    }
    double n1 = s->kind == RVE_SHAPE_ELLIPSOID ? 2 : s->n1, n2 = s->kind == RVE_SHAPE_ELLIPSOID ? 2 : s->n2;
    double u = fabs(b[0] / s->axes[0]), v = fabs(b[1] / s->axes[1]), w = fabs(b[2] / s->axes[2]);
    double m = u > v ? u : v;
    double rho = m > 0 ? m * pow(pow(u / m, n2) + pow(v / m, n2), 1 / n2) : 0;
    double M = rho > w ? rho : w;
    return M > 0 ? M * pow(pow(rho / M, n1) + pow(w / M, n1), 1 / n1) : 0;
}

static void sq_support(const rve_shape *s, const dist_frame *f, const double d[3], double out[3])
{
    int idx = -1;
    dist_support_world(s, f, d, out, &idx);
    if (s->kind == RVE_SHAPE_SPHERE) {
        double n = v3_norm(d);
        if (n > 0)
            v3_axpy(out, out, s->radius / n, d);
    }
}

static void sq_centre(const rve_shape *s, const dist_frame *f, double c[3])
{
    if (s->kind == RVE_SHAPE_SPHERE) {
        dist_to_world(s, f, s->v[0], c);
        return;
    }
    v3_copy(c, s->pos);
}

/* ================================================= polyhedron vs superquadric */
/* minimum of the gauge along segment [u, v] (convex in t): golden section */
static double seg_gauge_min(const rve_shape *s, const dist_frame *f, const double u[3], const double v[3],
                            double *tbest)
{
    double a = 0, b = 1, g = 0.6180339887498949;
    double x1 = b - g * (b - a), x2 = a + g * (b - a), p[3];
    v3_axpy(p, u, x1, (double[3]){v[0] - u[0], v[1] - u[1], v[2] - u[2]});
    double f1 = sq_gauge(s, f, p);
    v3_axpy(p, u, x2, (double[3]){v[0] - u[0], v[1] - u[1], v[2] - u[2]});
    double f2 = sq_gauge(s, f, p);
    for (int it = 0; it < 80 && b - a > 1e-15; it++) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            v3_axpy(p, u, x1, (double[3]){v[0] - u[0], v[1] - u[1], v[2] - u[2]});
            f1 = sq_gauge(s, f, p);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            v3_axpy(p, u, x2, (double[3]){v[0] - u[0], v[1] - u[1], v[2] - u[2]});
            f2 = sq_gauge(s, f, p);
        }
    }
    double t = 0.5 * (a + b), best;
    v3_axpy(p, u, t, (double[3]){v[0] - u[0], v[1] - u[1], v[2] - u[2]});
    best = sq_gauge(s, f, p);
    /* the ends */
    double g0 = sq_gauge(s, f, u), g1 = sq_gauge(s, f, v);
    if (g0 < best) {
        best = g0;
        t = 0;
    }
    if (g1 < best) {
        best = g1;
        t = 1;
    }
    *tbest = t;
    return best;
}

/* contact depth against a (virtual) plane through x with outward normal n */
static void plane_contact(const rve_shape *s, const dist_frame *f, const double x[3], const double n[3],
                          rve_contact *out)
{
    double m[3] = {-n[0], -n[1], -n[2]}, y[3];
    sq_support(s, f, m, y);
    double depth = v3_dot(n, x) - v3_dot(n, y);
    v3_copy(out->n, n);
    v3_copy(out->p, x);
    out->s = -depth;
    v3_axpy(out->q, x, out->s, n);
}

static rve_status ph_run(const rve_polyhedron *P, const rve_shape *S, rve_contact *out, int *pcase, rve_err *err);

/* extreme magnitudes: the pair scaled by a power of two (exact), as for Wellmann */
rve_status rve_contact_polyhedron_superquadric(const rve_polyhedron *P, const rve_shape *S, rve_contact *out,
                                               int *pcase, rve_err *err)
{
    dist_scaled_poly C;
    int k = P && S && out ? dist_poly_scale(P, NULL, S, &C) : 0;
    if (k < 0)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory (scaled copies)");
    if (k == 0)
        return ph_run(P, S, out, pcase, err);
    rve_status st = ph_run(&C.a, &C.s, out, pcase, err);
    dist_poly_scale_free(&C);
    if (!dist_contact_unscale(out, C.sc) && st == RVE_OK)
        st = rve_err_set(err, RVE_EDATA, NULL, "the signed distance exceeds the double range");
    return st;
}

/* the face whose outward normal is most aligned with dir */
static size_t ph_best_face(const rve_polyhedron *P, const double dir[3])
{
    size_t face = 0;
    double bd = -INFINITY;
    for (size_t i = 0; i < P->nf; i++) {
        double t = v3_dot(P->plane + 4 * i, dir);
        if (t > bd) {
            bd = t;
            face = i;
        }
    }
    return face;
}

static rve_status ph_run(const rve_polyhedron *P, const rve_shape *S, rve_contact *out, int *pcase, rve_err *err)
{
    memset(out, 0, sizeof *out);
    if (pcase)
        *pcase = 0;
    if (!P || !S || !sq_valid(S))
        return rve_err_set(err, RVE_EDATA, NULL, "polyhedron-superquadric contact needs a valid superquadric, "
                                                 "ellipsoid or sphere");
    dist_frame f;
    dist_frame_init(&f, S);
    double cs[3], dir[3];
    sq_centre(S, &f, cs);
    v3_sub(dir, cs, P->centroid);
    /* initial face: normal most aligned with the centre line */
    size_t face = ph_best_face(P, dir), initial = face;
    unsigned char *visited = NULL;
    unsigned char vis_small[256];
    if (P->nf <= sizeof vis_small) {
        memset(vis_small, 0, P->nf);
        visited = vis_small;
    } else {
        visited = calloc(P->nf, 1);
        if (!visited)
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    int result = -1; /* 0 no contact, 1 contact */
    int ccase = 0, it;
    size_t nvisited = 0;
    for (it = 0; it <= (int)P->nf + 1; it++) {
        const double *pl = P->plane + 4 * face;
        double m[3] = {-pl[0], -pl[1], -pl[2]}, X[3];
        sq_support(S, &f, m, X);
        double vf = v3_dot(pl, X) - pl[3];
        out->iterations = it + 1;
        if (vf > 0) { /* plane of this face separates */
            result = 0;
            ccase = face == initial ? 1 : 3;
            break;
        }
        visited[face] = 1;
        nvisited++;
        size_t mpf = face;
        double vmax = 0;
        for (size_t i = 0; i < P->nf; i++) {
            double v = v3_dot(P->plane + 4 * i, X) - P->plane[4 * i + 3];
            if (v > vmax) {
                vmax = v;
                mpf = i;
            }
        }
        if (vmax <= 0) { /* X inside every face: face contact */
            result = 1;
            ccase = face == initial ? 2 : 4;
            v3_copy(out->n, pl);
            out->s = vf;
            v3_copy(out->q, X);
            v3_axpy(out->p, X, -vf, pl);
            break;
        }
        if (visited[mpf])
            break; /* the search returned: edge or vertex */
        face = mpf;
    }
    if (result < 0) {
        /* search and return: the edges of the visited faces against the superquadric */
        double gbest = INFINITY, tb = 0;
        size_t ebest = 0;
        for (size_t e = 0; e < P->ne; e++) {
            if (!visited[P->eface[2 * e]] && !visited[P->eface[2 * e + 1]])
                continue;
            double t, g = seg_gauge_min(S, &f, P->v + 3 * P->edge[2 * e], P->v + 3 * P->edge[2 * e + 1], &t);
            if (g < gbest) {
                gbest = g;
                ebest = e;
                tb = t;
            }
        }
        if (gbest < 1) {
            result = 1;
            const double *u = P->v + 3 * P->edge[2 * ebest], *w = P->v + 3 * P->edge[2 * ebest + 1];
            double Xc[3], n[3];
            if (tb > 0 && tb < 1) { /* edge contact: normal = sum of the two face normals */
                ccase = 6;
                v3_axpy(Xc, u, tb, (double[3]){w[0] - u[0], w[1] - u[1], w[2] - u[2]});
                v3_add(n, P->plane + 4 * P->eface[2 * ebest], P->plane + 4 * P->eface[2 * ebest + 1]);
            } else { /* vertex contact: sum of the edge directions towards the vertex */
                ccase = 6;
                size_t vi = P->edge[2 * ebest + (tb >= 1)];
                v3_copy(Xc, P->v + 3 * vi);
                v3_set(n, 0, 0, 0);
                for (size_t k = P->vstart[vi]; k < P->vstart[vi + 1]; k++) {
                    size_t e = P->vedge[k], o = P->edge[2 * e] == vi ? P->edge[2 * e + 1] : P->edge[2 * e];
                    double l[3];
                    v3_sub(l, P->v + 3 * vi, P->v + 3 * o);
                    v3_normalize(l);
                    v3_add(n, n, l);
                }
            }
            if (v3_normalize(n) == 0)
                v3_sub(n, cs, Xc), v3_normalize(n);
            plane_contact(S, &f, Xc, n, out);
        } else {
            result = 0;
            ccase = 5;
        }
    }
    if (visited != vis_small)
        free(visited);
    if (pcase)
        *pcase = ccase;
    if (result == 0) {
        /* no contact: the separation distance from GJK (superquadric support) */
        rve_shape a;
        if (P->nv > 2147483647u)
            return rve_err_set(err, RVE_EDATA, NULL, "polyhedron too large");
        rve_shape_polytope(&a, P->v, (int)P->nv, &P->graph);
        rve_dist_result g;
        rve_gjk_status gs = rve_gjk_dist(&a, S, NULL, NULL, &g);
        if (ccase == 5 && (gs == RVE_GJK_INTERSECT || !(g.d > 0))) {
            /* the search and return missed a contact (the superquadric crosses a
             * face without reaching its edges, its deepest point lying beyond
             * another face): GJK-TD/EPA decides (case 7) */
            rve_status st = rve_contact_epa(&a, S, NULL, out, err);
            if (pcase)
                *pcase = 7;
            if (st == RVE_ECAP)
                st = RVE_OK;
            if (out->s < 0 || st != RVE_OK)
                return st;
            if (pcase)
                *pcase = 5;
        }
        out->s = g.d > 0 ? g.d : 0;
        v3_copy(out->p, g.p);
        v3_copy(out->q, g.q);
        v3_sub(out->n, g.q, g.p);
        if (v3_normalize(out->n) == 0)
            v3_copy(out->n, dir), v3_normalize(out->n);
        /* a positive gap even when rounding put the bodies in touch */
        if (!(out->s > 0))
            out->s = DBL_MIN;
    }
    return RVE_OK;
}

/* ======================================================= superellipsoid pairs */
typedef struct {
    const rve_shape *A, *B;
    dist_frame fa, fb;
    double e1[3], e2[3], e3[3];
} sep_ctx;

static void dir_of(const sep_ctx *C, const double al[2], double c[3])
{
    double c1 = cos(al[0]), s1 = sin(al[0]), c2 = cos(al[1]), s2 = sin(al[1]);
    for (int j = 0; j < 3; j++)
        c[j] = c1 * c2 * C->e1[j] + s1 * c2 * C->e2[j] + s2 * C->e3[j];
}

/* d(alpha) = p2(-c) - p1(c) */
static void dist_vec(const sep_ctx *C, const double al[2], double d[3], double p1[3], double p2[3], double c[3])
{
    double m[3];
    dir_of(C, al, c);
    v3_scale(m, c, -1);
    sq_support(C->A, &C->fa, c, p1);
    sq_support(C->B, &C->fb, m, p2);
    v3_sub(d, p2, p1);
}

static double f_of(const sep_ctx *C, const double al[2])
{
    double d[3], p1[3], p2[3], c[3];
    dist_vec(C, al, d, p1, p2, c);
    return v3_norm2(d);
}

/* Nelder-Mead on f(alpha) from x with initial step h (derivative-free: robust on
 * the nearly flat faces of boxy superellipsoids, where the support map is not
 * differentiable); at most maxit iterations */
static void nelder_mead(const sep_ctx *C, double x[2], double h, int maxit)
{
    double P[3][2] = {{x[0], x[1]}, {x[0] + h, x[1]}, {x[0], x[1] + h}}, F[3];
    for (int i = 0; i < 3; i++)
        F[i] = f_of(C, P[i]);
    for (int it = 0; it < maxit; it++) {
        /* order: P[0] best, P[2] worst */
        for (int i = 0; i < 3; i++)
            for (int j = i + 1; j < 3; j++)
                if (F[j] < F[i]) {
                    double t = F[i], a = P[i][0], b = P[i][1];
                    F[i] = F[j];
                    P[i][0] = P[j][0];
                    P[i][1] = P[j][1];
                    F[j] = t;
                    P[j][0] = a;
                    P[j][1] = b;
                }
        double size = fabs(P[1][0] - P[0][0]) + fabs(P[1][1] - P[0][1]) + fabs(P[2][0] - P[0][0]) +
                      fabs(P[2][1] - P[0][1]);
        if (size < 1e-13)
            break;
        double m[2] = {0.5 * (P[0][0] + P[1][0]), 0.5 * (P[0][1] + P[1][1])};
        double r[2] = {2 * m[0] - P[2][0], 2 * m[1] - P[2][1]}, fr = f_of(C, r);
        if (fr < F[0]) {
            double e[2] = {3 * m[0] - 2 * P[2][0], 3 * m[1] - 2 * P[2][1]}, fe = f_of(C, e);
            if (fe < fr) {
                P[2][0] = e[0];
                P[2][1] = e[1];
                F[2] = fe;
            } else {
                P[2][0] = r[0];
                P[2][1] = r[1];
                F[2] = fr;
            }
        } else if (fr < F[1]) {
            P[2][0] = r[0];
            P[2][1] = r[1];
            F[2] = fr;
        } else {
            double k[2] = {0.5 * (m[0] + P[2][0]), 0.5 * (m[1] + P[2][1])}, fk = f_of(C, k);
            if (fk < F[2]) {
                P[2][0] = k[0];
                P[2][1] = k[1];
                F[2] = fk;
            } else
                for (int i = 1; i < 3; i++) {
                    P[i][0] = 0.5 * (P[0][0] + P[i][0]);
                    P[i][1] = 0.5 * (P[0][1] + P[i][1]);
                    F[i] = f_of(C, P[i]);
                }
        }
    }
    int b = 0;
    for (int i = 1; i < 3; i++)
        if (F[i] < F[b])
            b = i;
    x[0] = P[b][0];
    x[1] = P[b][1];
}

static rve_status sep_shapes(const rve_shape *A, const rve_shape *B, const double c0[3], const rve_sep_opts *opts,
                             rve_contact *out, rve_sep_info *info, rve_err *err);

rve_status rve_contact_superellipsoids(const rve_shape *A, const rve_shape *B, const double c0[3],
                                       const rve_sep_opts *opts, rve_contact *out, rve_sep_info *info, rve_err *err)
{
    /* extreme magnitudes: run on copies scaled by a power of two (exact) */
    dist_scaled_pair S;
    int k = A && B ? dist_pair_scale(A, B, &S) : 0;
    if (k < 0)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory (scaled copies)");
    if (k == 0)
        return sep_shapes(A, B, c0, opts, out, info, err);
    rve_status st = sep_shapes(&S.a, &S.b, c0, opts, out, info, err);
    dist_pair_scale_free(&S);
    if (!dist_contact_unscale(out, S.sc) && st == RVE_OK)
        st = rve_err_set(err, RVE_EDATA, NULL, "the signed distance exceeds the double range");
    return st;
}

/* the pair, the frame (e1 along the centre line) and the size scale */
static double sep_init(sep_ctx *C, const rve_shape *A, const rve_shape *B)
{
    C->A = A;
    C->B = B;
    dist_frame_init(&C->fa, A);
    dist_frame_init(&C->fb, B);
    double ca[3], cb[3];
    sq_centre(A, &C->fa, ca);
    sq_centre(B, &C->fb, cb);
    v3_sub(C->e1, cb, ca);
    if (v3_normalize(C->e1) == 0)
        v3_set(C->e1, 1, 0, 0);
    double a[3] = {0, 0, 0};
    int k = fabs(C->e1[0]) < fabs(C->e1[1]) ? (fabs(C->e1[0]) < fabs(C->e1[2]) ? 0 : 2)
                                            : (fabs(C->e1[1]) < fabs(C->e1[2]) ? 1 : 2);
    a[k] = 1;
    v3_cross(C->e2, C->e1, a);
    v3_normalize(C->e2);
    v3_cross(C->e3, C->e1, C->e2);
    double scale = 0;
    for (int i = 0; i < 3; i++) {
        scale = fmax(scale, A->kind == RVE_SHAPE_SPHERE ? A->radius : A->axes[i]);
        scale = fmax(scale, B->kind == RVE_SHAPE_SPHERE ? B->radius : B->axes[i]);
    }
    return scale;
}

/* the angles of a given start direction c0 (NULL: keep al) */
static void sep_start(const sep_ctx *C, const double c0[3], double al[2])
{
    if (!c0)
        return;
    double c[3];
    v3_copy(c, c0);
    if (v3_normalize(c) > 0) {
        double x = v3_dot(c, C->e1), y = v3_dot(c, C->e2), z = v3_dot(c, C->e3);
        al[0] = atan2(y, x);
        al[1] = asin(fmax(-1, fmin(1, z)));
    }
}

/* Gauss-Newton normal equations at al: g = J^T d, H = J^T J, with the
 * Jacobian of d by central differences */
static void sep_normal_eq(const sep_ctx *C, const double al[2], const double d[3], double g[2], double H[2][2])
{
    double J[3][2], h = 1e-6;
    for (int k = 0; k < 2; k++) {
        double ap[2] = {al[0], al[1]}, am[2] = {al[0], al[1]}, dp[3], dm[3], t1[3], t2[3], t3[3];
        ap[k] += h;
        am[k] -= h;
        dist_vec(C, ap, dp, t1, t2, t3);
        dist_vec(C, am, dm, t1, t2, t3);
        for (int j = 0; j < 3; j++)
            J[j][k] = (dp[j] - dm[j]) / (2 * h);
    }
    g[0] = g[1] = 0;
    H[0][0] = H[0][1] = H[1][0] = H[1][1] = 0;
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 2; k++) {
            g[k] += J[j][k] * d[j];
            for (int l = 0; l < 2; l++)
                H[k][l] += J[j][k] * J[j][l];
        }
}

static rve_status sep_shapes(const rve_shape *A, const rve_shape *B, const double c0[3], const rve_sep_opts *opts,
                             rve_contact *out, rve_sep_info *info, rve_err *err)
{
    memset(out, 0, sizeof *out);
    rve_sep_info inf;
    memset(&inf, 0, sizeof inf);
    if (!A || !B || !sq_valid(A) || !sq_valid(B))
        return rve_err_set(err, RVE_EDATA, NULL,
                           "superellipsoid contact needs two valid superquadrics (exponents > 1), ellipsoids or spheres");
    double tol = opts && opts->tol > 0 ? opts->tol : 1e-13;
    int maxit = opts && opts->max_iter > 0 ? opts->max_iter : 50;
    int maxrs = opts && opts->max_restarts > 0 ? opts->max_restarts : 15;
    int exclude = opts ? !opts->no_early_exit : 1;
    sep_ctx C;
    double scale = sep_init(&C, A, B);
    /* start: the given direction or the centre line (alpha = 0) */
    double al[2] = {0, 0};
    sep_start(&C, c0, al);
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    double d[3], p1[3], p2[3], c[3];
    int total = 0, best_valid = -1;
    double best_f = INFINITY, best_al[2] = {0, 0};
    rve_status st = RVE_OK;
    for (int restart = 0;; restart++) {
        int it;
        double lambda = 1e-3;
        for (it = 0; it < maxit; it++) {
            dist_vec(&C, al, d, p1, p2, c);
            total++;
            if (exclude && v3_dot(c, d) > 0) {
                /* separating plane: the tangent plane of A at p1 */
                inf.excluded = 1;
                break;
            }
            double g[2], H[2][2];
            sep_normal_eq(&C, al, d, g, H);
            double gn = hypot(g[0], g[1]), f0 = v3_norm2(d);
            if (gn <= tol * scale * scale)
                break;
            /* Gauss-Newton step, Levenberg-Marquardt damping when H is not
             * positive definite or the step does not decrease f (Armijo) */
            double step[2] = {0, 0}, fn = f0;
            int accepted = 0;
            for (int tries = 0; tries < 30 && !accepted; tries++) {
                double mu = tries == 0 ? 0 : lambda * (H[0][0] + H[1][1] + 1e-300);
                double a11 = H[0][0] + mu, a22 = H[1][1] + mu, a12 = H[0][1];
                double det = a11 * a22 - a12 * a12;
                if (!(det > 1e-30 * (a11 * a22 + 1e-300)) || !(a11 > 0)) {
                    lambda *= 10;
                    continue;
                }
                step[0] = -(a22 * g[0] - a12 * g[1]) / det;
                step[1] = -(a11 * g[1] - a12 * g[0]) / det;
                double an[2] = {al[0] + step[0], al[1] + step[1]}, dn[3], t1[3], t2[3], t3[3];
                dist_vec(&C, an, dn, t1, t2, t3);
                fn = v3_norm2(dn);
                /* Armijo: f decreases by at least 1e-4 of the predicted decrease */
                if (fn <= f0 + 1e-4 * 2 * (g[0] * step[0] + g[1] * step[1]) || fn <= f0 * (1 - 1e-15)) {
                    accepted = 1;
                    al[0] = an[0];
                    al[1] = an[1];
                    if (tries == 0)
                        inf.newton++;
                    else
                        inf.lm++;
                    lambda = fmax(lambda * 0.3, 1e-12);
                } else
                    lambda *= 10;
            }
            if (!accepted || hypot(step[0], step[1]) < 1e-15)
                break;
        }
        inf.iterations += it;
        if (inf.excluded)
            break;
        dist_vec(&C, al, d, p1, p2, c);
        if (it == maxit)
            st = RVE_ECAP;
        /* restart rule: a local minimum has d not parallel to c, or (penetrating)
         * contact points outside the other body */
        double cr[3];
        v3_cross(cr, d, c);
        int parallel = v3_norm(cr) <= 1e-6 * v3_norm(d) + 1e-12 * scale;
        int inside = 1;
        if (v3_dot(c, d) < 0)
            inside = rve_superquadric_F(B, p1) <= 1 + 1e-9 && rve_superquadric_F(A, p2) <= 1 + 1e-9;
        /* keep the best candidate over all starts: valid ones first, then smallest f */
        {
            int valid = parallel && inside;
            double fv = v3_norm2(d);
            if (best_valid < valid || (best_valid == valid && fv < best_f)) {
                best_valid = valid;
                best_f = fv;
                best_al[0] = al[0];
                best_al[1] = al[1];
            }
            if (valid || restart >= maxrs) {
                al[0] = best_al[0];
                al[1] = best_al[1];
                dist_vec(&C, al, d, p1, p2, c);
                break;
            }
        }
        inf.restarts++;
        st = RVE_OK;
        /* random search for a new start: the best of 32 random directions */
        double bestf = INFINITY, besta[2] = {al[0], al[1]};
        for (int k = 0; k < 32; k++) {
            double u[3], a2[2], dd[3], t1[3], t2[3], t3[3];
            for (int j = 0; j < 3; j++) {
                rng += 0x9E3779B97F4A7C15ull;
                uint64_t z = rng;
                z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
                z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
                u[j] = (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53 * 2 - 1;
            }
            if (v3_normalize(u) == 0)
                continue;
            if (v3_dot(u, C.e1) < 0)
                v3_scale(u, u, -1);
            a2[0] = atan2(v3_dot(u, C.e2), v3_dot(u, C.e1));
            a2[1] = asin(fmax(-1, fmin(1, v3_dot(u, C.e3))));
            dist_vec(&C, a2, dd, t1, t2, t3);
            double fv = v3_norm2(dd);
            if (fv < bestf) {
                bestf = fv;
                besta[0] = a2[0];
                besta[1] = a2[1];
            }
        }
        al[0] = besta[0];
        al[1] = besta[1];
        nelder_mead(&C, al, 0.05, 300);
    }
    (void)total;
    v3_copy(out->n, c);
    v3_copy(out->p, p1);
    v3_copy(out->q, p2);
    out->s = v3_dot(c, d);
    out->iterations = inf.iterations;
    if (info)
        *info = inf;
    if (st == RVE_ECAP)
        return rve_err_set(err, RVE_ECAP, NULL, "common-normal iteration cap reached");
    return RVE_OK;
}
