/* Curved shapes (ellipsoids, superquadrics, rounded polytopes) against an
 * independent high-precision maximisation of the separation along a
 * direction (support-function values in long double, Nelder-Mead on the
 * sphere); warm starts, hill climbing, poses; Johnson vs SV on near-touching
 * boxes; a stress run of random and degenerate queries. */
#include "config.h"
#include "testutil.h"
#include <rve/dist.h>
#include "dist_oracle.h"
#include "dist_rng.h"
#include <float.h>
#include <math.h>

#define EPS DBL_EPSILON

/* ------------------------------------------- support values in long double */
static void ld_rot(const double q[4], const ld v[3], ld out[3], int inverse)
{
    ld w = q[0], x = q[1], y = q[2], z = q[3];
    ld n = sqrtl(w * w + x * x + y * y + z * z);
    w /= n; x /= n; y /= n; z /= n;
    if (inverse) { x = -x; y = -y; z = -z; }
    ld R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
               2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
               2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
    for (int i = 0; i < 3; i++) out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

/* h_s(u) = max over s of u.x, in long double, straight from the implicit definitions */
static ld support_value(const rve_shape *s, const ld u[3])
{
    ld ub[3], pos[3];
    ld_rot(s->quat, u, ub, 1);
    ld_from(pos, s->pos);
    ld h = ld_dot(pos, u) + s->radius * sqrtl(ld_dot(u, u));
    ld a = s->axes[0], b = s->axes[1], c = s->axes[2];
    switch (s->kind) {
    case RVE_SHAPE_ELLIPSOID:
        return h + sqrtl(a * a * ub[0] * ub[0] + b * b * ub[1] * ub[1] + c * c * ub[2] * ub[2]);
    case RVE_SHAPE_SUPERQUADRIC: {
        /* dual of the nested norm ||(||(x/a, y/b)||_n2, z/c)||_n1 */
        ld m1 = (ld)s->n1 / (s->n1 - 1), m2 = (ld)s->n2 / (s->n2 - 1);
        ld ex = fabsl(a * ub[0]), ey = fabsl(b * ub[1]), ez = fabsl(c * ub[2]);
        ld rho = powl(powl(ex, m2) + powl(ey, m2), 1 / m2);
        return h + powl(powl(rho, m1) + powl(ez, m1), 1 / m1);
    }
    case RVE_SHAPE_BOX:
        return h + a * fabsl(ub[0]) + b * fabsl(ub[1]) + c * fabsl(ub[2]);
    case RVE_SHAPE_POLYTOPE: {
        ld m = -INFINITY;
        for (int i = 0; i < s->nv; i++) {
            ld x[3];
            ld_from(x, s->verts + 3 * i);
            ld t = ld_dot(x, ub);
            if (t > m) m = t;
        }
        return h + m;
    }
    default: {
        ld x[3];
        ld_from(x, s->v[0]);
        return h + ld_dot(x, ub);
    }
    }
}

/* separation of A and B along unit u (A below, B above) */
static ld sep_along(const rve_shape *A, const rve_shape *B, const ld u[3])
{
    ld m[3] = {-u[0], -u[1], -u[2]};
    return -support_value(B, m) - support_value(A, u);
}

static void basis(const ld u[3], ld t1[3], ld t2[3])
{
    ld a[3] = {0, 0, 0};
    int k = fabsl(u[0]) < fabsl(u[1]) ? (fabsl(u[0]) < fabsl(u[2]) ? 0 : 2) : (fabsl(u[1]) < fabsl(u[2]) ? 1 : 2);
    a[k] = 1;
    t1[0] = u[1] * a[2] - u[2] * a[1]; t1[1] = u[2] * a[0] - u[0] * a[2]; t1[2] = u[0] * a[1] - u[1] * a[0];
    ld n = sqrtl(ld_dot(t1, t1));
    for (int i = 0; i < 3; i++) t1[i] /= n;
    t2[0] = u[1] * t1[2] - u[2] * t1[1]; t2[1] = u[2] * t1[0] - u[0] * t1[2]; t2[2] = u[0] * t1[1] - u[1] * t1[0];
}

static ld eval_at(const rve_shape *A, const rve_shape *B, const ld u0[3], const ld t1[3], const ld t2[3], ld s, ld r)
{
    ld u[3];
    for (int i = 0; i < 3; i++) u[i] = u0[i] + s * t1[i] + r * t2[i];
    ld n = sqrtl(ld_dot(u, u));
    for (int i = 0; i < 3; i++) u[i] /= n;
    return sep_along(A, B, u);
}

/* max over unit u of the separation: Nelder-Mead in a tangent chart, restarted
 * around the best point with shrinking simplices */
static ld oracle_separation(const rve_shape *A, const rve_shape *B, const double u_start[3])
{
    ld u0[3];
    ld_from(u0, u_start);
    ld n = sqrtl(ld_dot(u0, u0));
    for (int i = 0; i < 3; i++) u0[i] /= n;
    ld best = sep_along(A, B, u0);
    ld size = 0.3;
    for (int restart = 0; restart < 60 && size > 1e-15L; restart++) {
        ld t1[3], t2[3];
        basis(u0, t1, t2);
        ld P[3][2] = {{0, 0}, {size, 0}, {0, size}}, F[3];
        for (int i = 0; i < 3; i++) F[i] = eval_at(A, B, u0, t1, t2, P[i][0], P[i][1]);
        for (int it = 0; it < 400; it++) {
            /* order: F[0] best (max) */
            for (int i = 0; i < 3; i++)
                for (int j = i + 1; j < 3; j++)
                    if (F[j] > F[i]) {
                        ld t = F[i]; F[i] = F[j]; F[j] = t;
                        for (int k = 0; k < 2; k++) { t = P[i][k]; P[i][k] = P[j][k]; P[j][k] = t; }
                    }
            ld ext = fabsl(P[1][0] - P[0][0]) + fabsl(P[1][1] - P[0][1]) + fabsl(P[2][0] - P[0][0]) + fabsl(P[2][1] - P[0][1]);
            if (ext < size * 1e-6L) break;
            ld c[2] = {(P[0][0] + P[1][0]) / 2, (P[0][1] + P[1][1]) / 2};
            ld xr[2] = {2 * c[0] - P[2][0], 2 * c[1] - P[2][1]};
            ld fr = eval_at(A, B, u0, t1, t2, xr[0], xr[1]);
            if (fr > F[0]) {
                ld xe[2] = {3 * c[0] - 2 * P[2][0], 3 * c[1] - 2 * P[2][1]};
                ld fe = eval_at(A, B, u0, t1, t2, xe[0], xe[1]);
                if (fe > fr) { P[2][0] = xe[0]; P[2][1] = xe[1]; F[2] = fe; }
                else { P[2][0] = xr[0]; P[2][1] = xr[1]; F[2] = fr; }
            } else if (fr > F[1]) {
                P[2][0] = xr[0]; P[2][1] = xr[1]; F[2] = fr;
            } else {
                ld xc[2] = {(c[0] + P[2][0]) / 2, (c[1] + P[2][1]) / 2};
                ld fc = eval_at(A, B, u0, t1, t2, xc[0], xc[1]);
                if (fc > F[2]) { P[2][0] = xc[0]; P[2][1] = xc[1]; F[2] = fc; }
                else {
                    for (int i = 1; i < 3; i++) {
                        P[i][0] = (P[i][0] + P[0][0]) / 2; P[i][1] = (P[i][1] + P[0][1]) / 2;
                        F[i] = eval_at(A, B, u0, t1, t2, P[i][0], P[i][1]);
                    }
                }
            }
        }
        int bi = F[0] >= F[1] ? (F[0] >= F[2] ? 0 : 2) : (F[1] >= F[2] ? 1 : 2);
        ld moved = fabsl(P[bi][0]) + fabsl(P[bi][1]);
        if (F[bi] > best) {
            best = F[bi];
            ld u[3];
            for (int i = 0; i < 3; i++) u[i] = u0[i] + P[bi][0] * t1[i] + P[bi][1] * t2[i];
            ld nn = sqrtl(ld_dot(u, u));
            for (int i = 0; i < 3; i++) u0[i] = u[i] / nn;
        }
        size = moved > 0 ? fminl(size, 4 * moved) : size / 8;
        if (moved == 0) size /= 2;
    }
    return best;
}

static void rand_smooth(rve_shape *s, double scale, int kind)
{
    double q[4], c[3] = {0, 0, 0};
    rand_quat(q);
    double a = scale * (0.3 + urand()), b = scale * (0.3 + urand()), cc = scale * (0.3 + urand());
    if (kind == 0)
        rve_shape_ellipsoid(s, a, b, cc);
    else
        rve_shape_superquadric(s, a, b, cc, 2 + 8 * urand() * urand(), 2 + 8 * urand() * urand());
    rve_shape_set_pose(s, c, q);
}

START_TEST(test_smooth_vs_oracle)
{
    rng_seed(2024);
    int nq = (int)(300 * test_scale());
    if (nq < 30) nq = 30;
    double worst = 0, worst_w = 0;
    long iters = 0;
    for (int t = 0; t < nq; t++) {
        double scale = pow(10, -3 + 6 * urand());
        rve_shape A, B;
        rand_smooth(&A, scale, t % 3 == 0);
        rand_smooth(&B, scale, t % 3 != 1);
        double pa[3];
        rand_unit(pa);
        for (int k = 0; k < 3; k++) pa[k] *= 5 * scale * urand();
        rve_shape_set_pose(&A, pa, A.quat);
        /* place B beyond A along u: separated by at least gap */
        double u[3];
        rand_unit(u);
        ld U[3], mU[3];
        ld_from(U, u);
        for (int k = 0; k < 3; k++) mU[k] = -U[k];
        rve_shape B0 = B;
        double gap = scale * ((t & 4) ? 1e-9 * urand() : urand());
        double sh = (double)(support_value(&A, U) + support_value(&B0, mU)) + gap;
        double pb[3] = {u[0] * sh, u[1] * sh, u[2] * sh};
        rve_shape_set_pose(&B, pb, B.quat);
        ld exact = oracle_separation(&A, &B, u);
        ck_assert_msg(exact > 0, "query %d: oracle separation %Lg", t, exact);
        rve_dist_result r;
        rve_gjk_status st = rve_gjk_dist(&A, &B, NULL, NULL, &r);
        double L = 0;
        for (int k = 0; k < 3; k++) L = fmax(L, fmax(fabs(pa[k]) + 2 * scale, fabs(pb[k]) + 2 * scale));
        double err = fabs(r.d - (double)exact) / (EPS * L);
        worst = fmax(worst, err);
        iters += r.iterations;
        ck_assert_msg(st == RVE_GJK_CONVERGED, "query %d: status %d", t, st);
        ck_assert_msg(err <= 100, "query %d (%s, %s): d = %.17g exact %.17Lg (%.1f eps L)", t,
                      A.kind == RVE_SHAPE_ELLIPSOID ? "ellipsoid" : "superquadric",
                      B.kind == RVE_SHAPE_ELLIPSOID ? "ellipsoid" : "superquadric", r.d, exact, err);
        /* witnesses: |p - q| = d and each within the bound of its body (the support
         * function bounds: u.p <= h_A(u) for every u; test along p - q and axes) */
        double dpq = sqrt((r.p[0] - r.q[0]) * (r.p[0] - r.q[0]) + (r.p[1] - r.q[1]) * (r.p[1] - r.q[1]) +
                          (r.p[2] - r.q[2]) * (r.p[2] - r.q[2]));
        ck_assert(fabs(dpq - r.d) <= 100 * EPS * L);
        for (int k = 0; k < 8; k++) {
            double w[3];
            rand_unit(w);
            ld W[3], P[3], Q[3];
            ld_from(W, w); ld_from(P, r.p); ld_from(Q, r.q);
            ld ea = ld_dot(W, P) - support_value(&A, W), eb = ld_dot(W, Q) - support_value(&B, W);
            worst_w = fmax(worst_w, (double)fmaxl(ea, eb) / (EPS * L));
            ck_assert_msg(ea <= 100 * EPS * L && eb <= 100 * EPS * L, "query %d: witness outside its body", t);
        }
    }
    fprintf(stderr, "smooth shapes: %d queries, worst |d - exact| = %.2f eps L, witnesses within %.2f eps L, "
            "%.1f iterations on average\n", nq, worst, worst_w, (double)iters / nq);
}
END_TEST

/* Rounded polytopes, poses and hill climbing against the polytope oracle. */
START_TEST(test_pose_rounded_graph)
{
    rng_seed(31337);
    int nq = (int)(200 * test_scale());
    if (nq < 20) nq = 20;
    double worst = 0;
    for (int t = 0; t < nq; t++) {
        int na = 4 + (int)(urand() * 200), nb = 4 + (int)(urand() * 60);
        double scale = pow(10, -4 + 8 * urand());
        double *va = malloc(sizeof(double) * 3 * na), *vb = malloc(sizeof(double) * 3 * nb);
        double *wa = malloc(sizeof(double) * 3 * na), *wb = malloc(sizeof(double) * 3 * nb);
        for (int i = 0; i < na; i++) { double u[3]; rand_unit(u); for (int k = 0; k < 3; k++) va[3 * i + k] = scale * u[k] * (k ? 0.5 : 1); }
        for (int i = 0; i < nb; i++) { double u[3]; rand_unit(u); for (int k = 0; k < 3; k++) vb[3 * i + k] = scale * u[k] * (k == 2 ? 0.3 : 1); }
        double qa[4], qb[4], pa[3], pb[3], u[3];
        rand_quat(qa);
        rand_quat(qb);
        rand_unit(u);
        double ra = (t & 1) ? 0.1 * scale * urand() : 0, rb = (t & 2) ? 0.1 * scale * urand() : 0;
        for (int k = 0; k < 3; k++) { pa[k] = scale * nrand(); pb[k] = pa[k] + u[k] * scale * (2.7 + (ra + rb) / scale + ((t & 4) ? 1e-10 : urand())); }
        /* world vertices in long double -> double (the oracle's input) */
        for (int i = 0; i < na; i++) {
            ld x[3], y[3];
            ld_from(x, va + 3 * i);
            ld_rot(qa, x, y, 0);
            for (int k = 0; k < 3; k++) wa[3 * i + k] = (double)(y[k] + pa[k]);
        }
        for (int i = 0; i < nb; i++) {
            ld x[3], y[3];
            ld_from(x, vb + 3 * i);
            ld_rot(qb, x, y, 0);
            for (int k = 0; k < 3; k++) wb[3 * i + k] = (double)(y[k] + pb[k]);
        }
        oracle_set A, B;
        oracle_set_init(&A, wa, na);
        oracle_set_init(&B, wb, nb);
        ld pw[3], qw[3];
        int sep = oracle_sat_separated(&A, &B);
        ld exact = sep ? oracle_set_set(&A, &B, pw, qw) : 0;
        exact = exact - ra - rb;
        if (exact < 0) exact = 0;
        rve_poly_graph g;
        rve_err e;
        int has_g = rve_poly_graph_build(va, na, &g, &e) == RVE_OK;
        rve_shape SA, SB;
        rve_shape_polytope(&SA, va, na, has_g ? &g : NULL);
        rve_shape_set_pose(&SA, pa, qa);
        rve_shape_set_radius(&SA, ra);
        rve_shape_polytope(&SB, vb, nb, NULL);
        rve_shape_set_pose(&SB, pb, qb);
        rve_shape_set_radius(&SB, rb);
        rve_dist_result r;
        rve_gjk_status st = rve_gjk_dist(&SA, &SB, NULL, NULL, &r);
        double L = 0;
        for (int i = 0; i < 3 * na; i++) L = fmax(L, fabs(wa[i]));
        for (int i = 0; i < 3 * nb; i++) L = fmax(L, fabs(wb[i]));
        double err = fabs(r.d - (double)exact) / (EPS * L);
        worst = fmax(worst, err);
        ck_assert_msg(err <= 100, "query %d: d = %.17g exact %.17Lg (%.1f eps L) status %d graph %d", t, r.d, exact, err, st, has_g);
        ck_assert(st == RVE_GJK_CONVERGED || st == RVE_GJK_INTERSECT);
        /* intersection test agrees (away from the rounding band) */
        if (exact > 1e-9 * scale || exact == 0)
            ck_assert_int_eq(rve_gjk_intersect(&SA, &SB, NULL), exact == 0);
        if (has_g) rve_poly_graph_free(&g);
        oracle_set_free(&A);
        oracle_set_free(&B);
        free(va); free(vb); free(wa); free(wb);
    }
    fprintf(stderr, "poses, rounded shapes, hill climbing: %d queries, worst %.2f eps L\n", nq, worst);
}
END_TEST

/* Warm start: a point moving in small steps past a polytope. */
START_TEST(test_warm_start)
{
    rng_seed(5);
    double v[3 * 40];
    int n = 30;
    for (int i = 0; i < n; i++) { double u[3]; rand_unit(u); for (int k = 0; k < 3; k++) v[3 * i + k] = u[k]; }
    rve_gjk_simplex w;
    rve_gjk_simplex_init(&w);
    long it_cold = 0, it_warm = 0;
    int steps = 20000;
    for (int s = 0; s < steps; s++) {
        double t = s * 1e-3;
        double p[3] = {1.5 * cos(t), 1.5 * sin(1.3 * t), 0.8 * sin(0.7 * t)};
        rve_dist_result rc, rw;
        double dc = rve_dist_point_polytope(p, v, n, NULL, &rc);
        double dw = rve_dist_point_polytope(p, v, n, &w, &rw);
        ck_assert_msg(fabs(dc - dw) <= 100 * EPS * 1.5, "step %d: cold %.17g warm %.17g", s, dc, dw);
        it_cold += rc.iterations;
        it_warm += rw.iterations;
    }
    fprintf(stderr, "warm start: %.2f iterations per query cold, %.2f warm\n", (double)it_cold / steps,
            (double)it_warm / steps);
    ck_assert(it_warm < it_cold);
    /* generic shapes keep the direction */
    rve_shape a, b;
    const double c0[3] = {0, 0, 0};
    rve_shape_ellipsoid(&a, 1, 2, 3);
    rve_shape_sphere(&b, c0, 0.5);
    rve_gjk_simplex_init(&w);
    for (int s = 0; s < 100; s++) {
        double c[3] = {4 + 0.01 * s, 1, 0.5};
        rve_shape_set_pose(&b, c, NULL);
        rve_dist_result rc, rw;
        rve_gjk_dist(&a, &b, NULL, NULL, &rc);
        rve_gjk_dist(&a, &b, NULL, &w, &rw);
        ck_assert(fabs(rc.d - rw.d) <= 100 * EPS * 5);
    }
}
END_TEST

/* Near-touching face-face boxes with random rotations: the exact distance is
 * the constructed gap.  SV meets 100 eps L everywhere; Johnson does not. */
START_TEST(test_johnson_vs_sv)
{
    rng_seed(99);
    int N = 100000; /* cheap (~0.1 s): not scaled, the Johnson failures are rare */
    long miss[2] = {0, 0}, caps[2] = {0, 0};
    double worst[2] = {0, 0};
    for (int t = 0; t < N; t++) {
        double q[4];
        rand_quat(q);
        double h[3] = {0.5 + urand(), 0.5 + urand(), (t & 1) ? 1e-3 * urand() + 1e-9 : 0.5 + urand()};
        double g[3] = {0.5 + urand(), 0.5 + urand(), 0.5 + urand()};
        double gap = (t & 2) ? 1e-12 * pow(10, 6 * urand()) : 0;
        double off = 100 * urand();
        double c[3] = {off * nrand(), off * nrand(), off * nrand()};
        double shift[3] = {0.3 * nrand() * h[0], 0.3 * nrand() * h[1], h[2] + g[2] + gap};
        rve_shape A, B;
        rve_shape_box(&A, h[0], h[1], h[2]);
        rve_shape_set_pose(&A, c, q);
        rve_shape_box(&B, g[0], g[1], g[2]);
        ld s[3], ws[3];
        ld_from(s, shift);
        ld_rot(q, s, ws, 0);
        double pb[3] = {(double)(c[0] + ws[0]), (double)(c[1] + ws[1]), (double)(c[2] + ws[2])};
        double ang = urand() * 6.283;
        double qz[4] = {cos(ang / 2), 0, 0, sin(ang / 2)};
        double qb[4] = {q[0] * qz[0] - q[3] * qz[3], q[1] * qz[0] + q[2] * qz[3], q[2] * qz[0] - q[1] * qz[3],
                        q[3] * qz[0] + q[0] * qz[3]};
        rve_shape_set_pose(&B, pb, qb);
        double L = fmax(fabs(c[0]), fmax(fabs(c[1]), fabs(c[2]))) + 3;
        for (int k = 0; k < 2; k++) {
            rve_gjk_opts o;
            rve_gjk_opts_default(&o);
            o.sub = k ? RVE_SUB_JOHNSON : RVE_SUB_SV;
            rve_dist_result r;
            rve_gjk_dist(&A, &B, &o, NULL, &r);
            /* the pose rounding moves B by at most a few eps L: well inside the bound */
            double err = fabs(r.d - gap) / (EPS * L);
            if (!(err <= 100)) miss[k]++;
            if (!(err <= worst[k])) worst[k] = err;
            if (r.status == RVE_GJK_CAP) caps[k]++;
        }
    }
    fprintf(stderr, "near-touching boxes, %d queries: SV %ld over 100 eps L (worst %.3g eps L, %ld caps); "
            "Johnson %ld over (worst %.3g eps L, %ld caps)\n", N, miss[0], worst[0], caps[0], miss[1], worst[1], caps[1]);
    ck_assert_int_eq(miss[0], 0);
    ck_assert_int_eq(caps[0], 0);
    ck_assert_int_gt(miss[1], 0); /* Johnson's cancellation shows */
}
END_TEST

/* 2 10^5 (make check) or 10^6 (make check-long) random and degenerate queries
 * of every kind: no NaN, no cap. */
START_TEST(test_stress)
{
    rng_seed(8);
    long N = (long)(1000000 * test_scale() * (test_long() ? 1 : 0.2)); /* 10^6 in make check-long */
    long bad = 0, caps = 0;
    double pts[3 * 12];
    for (long t = 0; t < N; t++) {
        rve_shape S[2];
        for (int j = 0; j < 2; j++) {
            int kind = (int)(urand() * 9);
            double scale = pow(10, -6 + 12 * urand());
            double c[3] = {scale * nrand(), scale * nrand(), scale * nrand()}, q[4];
            rand_quat(q);
            double *p = pts + 18 * j / 3 * 0 + (j ? 18 : 0);
            int np = 1 + (int)(urand() * 6);
            int degen = (int)(urand() * 4);
            for (int i = 0; i < np; i++)
                for (int k = 0; k < 3; k++)
                    p[3 * i + k] = degen == 0 ? c[k] : (degen == 1 ? c[k] + scale * (k == 0 ? nrand() : 0)
                                                                  : c[k] + scale * nrand() * (degen == 2 && k == 2 ? 1e-14 : 1));
            switch (kind) {
            case 0: rve_shape_point(&S[j], p); break;
            case 1: rve_shape_segment(&S[j], p, p + 3 * (np > 1)); break;
            case 2: rve_shape_triangle(&S[j], p, p + 3 * (np > 1), p + 3 * (np > 2 ? 2 : 0)); break;
            case 3: rve_shape_tetra(&S[j], p, p + 3 * (np > 1), p + 3 * (np > 2 ? 2 : 0), p + 3 * (np > 3 ? 3 : 0)); break;
            case 4: rve_shape_polytope(&S[j], p, np, NULL); break;
            case 5: rve_shape_sphere(&S[j], c, scale * urand()); break;
            case 6: rve_shape_box(&S[j], scale * urand(), scale * urand() * (degen == 0 ? 0 : 1), scale * urand()); rve_shape_set_pose(&S[j], c, q); break;
            case 7: rve_shape_ellipsoid(&S[j], scale * (1e-3 + urand()), scale * (1e-3 + urand()), scale * (1e-3 + urand())); rve_shape_set_pose(&S[j], c, q); break;
            default: rve_shape_superquadric(&S[j], scale * (1e-3 + urand()), scale * (1e-3 + urand()), scale * (1e-3 + urand()), 2 + 10 * urand(), 2 + 10 * urand()); rve_shape_set_pose(&S[j], c, q); break;
            }
            if (urand() < 0.2) rve_shape_set_radius(&S[j], scale * 0.1 * urand());
        }
        rve_dist_result r;
        rve_gjk_status st = rve_gjk_dist(&S[0], &S[1], NULL, NULL, &r);
        if (!isfinite(r.d) || !isfinite(r.p[0] + r.p[1] + r.p[2] + r.q[0] + r.q[1] + r.q[2]) || r.d < 0) {
            if (bad++ < 5) fprintf(stderr, "stress %ld: kinds %d %d d %g status %d\n", t, S[0].kind, S[1].kind, r.d, st);
        }
        if (st == RVE_GJK_CAP) {
            if (caps++ < 5) fprintf(stderr, "stress %ld: cap, kinds %d %d d %g\n", t, S[0].kind, S[1].kind, r.d);
        }
    }
    fprintf(stderr, "stress: %ld queries, %ld NaN/negative, %ld caps\n", N, bad, caps);
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(caps, 0);
}
END_TEST

/* A point set for the graph tests: sphere-like (all on the hull), or the
 * surface of a box on a grid (many points on faces, not vertices, and
 * exact ties along the axes and diagonals), or a flattened ball with points
 * inside.  Returns the count. */
static int graph_points(double *v, int kind, int max)
{
    int n = 0;
    if (kind == 0) {
        n = 40 + (int)(urand() * (max - 40));
        for (int i = 0; i < n; i++) { double u[3]; rand_unit(u); for (int k = 0; k < 3; k++) v[3 * i + k] = u[k]; }
    } else if (kind == 1) {
        int m = 4 + (int)(urand() * 3); /* grid points per edge */
        for (int x = 0; x < m; x++)
            for (int y = 0; y < m; y++)
                for (int z = 0; z < m; z++)
                    if ((x == 0 || x == m - 1 || y == 0 || y == m - 1 || z == 0 || z == m - 1) && n < max) {
                        v[3 * n] = x; v[3 * n + 1] = 2 * y; v[3 * n + 2] = 0.5 * z;
                        n++;
                    }
        for (int i = n - 1; i > 0; i--) { /* shuffled: a face point may come first among the highest */
            int j = (int)(urand() * (i + 1));
            for (int k = 0; k < 3; k++) { double x = v[3 * i + k]; v[3 * i + k] = v[3 * j + k]; v[3 * j + k] = x; }
        }
    } else {
        n = 40 + (int)(urand() * (max - 40));
        for (int i = 0; i < n; i++) {
            double u[3], r = i % 3 ? 1 : urand();
            rand_unit(u);
            for (int k = 0; k < 3; k++) v[3 * i + k] = r * u[k] * (k == 2 ? 1e-3 : 1);
        }
    }
    return n;
}

/* The climbs' start table (rve_poly_graph.dir): each entry is a hull vertex
 * as high along its direction as the brute-force maximum over all points,
 * and supports with the graph are as high as without it along random,
 * axis and diagonal directions, from the table and from a moved copy of the
 * vertices (which must climb without it).  Then distances with and without
 * the graph on distant, touching and overlapping pairs, posed and bare. */
START_TEST(test_graph_starts)
{
    rng_seed(4141);
    static double v[3 * 300], w[3 * 300];
    int nsets = (int)(60 * test_scale());
    if (nsets < 9) nsets = 9;
    for (int t = 0; t < nsets; t++) {
        int n = graph_points(v, t % 3, 300);
        rve_poly_graph g;
        if (rve_poly_graph_build(v, n, &g, NULL) != RVE_OK)
            continue;
        ck_assert_int_eq(g.ndir, 14);
        for (int k = 0; k < 14; k++) {
            double d[3] = {0, 0, 0};
            if (k < 6)
                d[k / 2] = k % 2 ? -1 : 1;
            else
                for (int c = 0; c < 3; c++) d[c] = (k - 6) >> c & 1 ? -1 : 1;
            double top = -INFINITY;
            for (int i = 0; i < n; i++) top = fmax(top, v[3 * i] * d[0] + v[3 * i + 1] * d[1] + v[3 * i + 2] * d[2]);
            int j = g.dir[k];
            ck_assert(j >= 0 && j < n && g.off[j] < g.off[j + 1]);
            ck_assert_msg(v[3 * j] * d[0] + v[3 * j + 1] * d[1] + v[3 * j + 2] * d[2] == top, "set %d direction %d", t, k);
        }
        /* a moved copy (the same edges): the table must not be used there */
        double q[4], sh[3];
        rand_quat(q);
        rand_unit(sh);
        for (int i = 0; i < n; i++) {
            double x[3] = {v[3 * i], v[3 * i + 1], v[3 * i + 2]};
            double r0[3];
            rve_shape tmp;
            rve_shape_point(&tmp, x);
            rve_shape_set_pose(&tmp, sh, q);
            rve_shape_support(&tmp, sh, r0); /* the rotated point, moved */
            for (int k = 0; k < 3; k++) w[3 * i + k] = r0[k];
        }
        for (int copy = 0; copy < 2; copy++) {
            const double *V = copy ? w : v;
            rve_shape with, without;
            rve_shape_polytope(&with, V, n, &g);
            rve_shape_polytope(&without, V, n, NULL);
            for (int s = 0; s < 300; s++) {
                double d[3];
                if (s < 26) { /* axes, diagonals and edge directions, then random */
                    int c = s < 13 ? s : s + 1; /* skip (0, 0, 0) */
                    d[0] = c % 3 - 1; d[1] = c / 3 % 3 - 1; d[2] = c / 9 - 1;
                } else {
                    rand_unit(d);
                }
                double a[3], b[3];
                rve_shape_support(&with, d, a);
                rve_shape_support(&without, d, b);
                /* equal up to the rounding of the two scans' products (a
                 * near tie may go either way); a climb stuck on a face
                 * point or short of the top is off by far more */
                double ha = a[0] * d[0] + a[1] * d[1] + a[2] * d[2], hb = b[0] * d[0] + b[1] * d[1] + b[2] * d[2];
                double m = fabs(b[0]) + fabs(b[1]) + fabs(b[2]) + fabs(a[0]) + fabs(a[1]) + fabs(a[2]);
                ck_assert_msg(fabs(ha - hb) <= 4 * EPS * m, "set %d copy %d direction %d: %.17g with the graph, %.17g without",
                              t, copy, s, ha, hb);
            }
        }
        /* pairs: A with and without its graph (posed, or the moved copy
         * as a bare array), against a posed copy of the set, distant /
         * touching / overlapping */
        for (int p = 0; p < 30; p++) {
            double qa[4], qb[4], pa[3] = {0, 0, 0}, pb[3], u[3];
            rand_quat(qa);
            rand_quat(qb);
            rand_unit(u);
            double sep = p % 3 == 0 ? 5 : p % 3 == 1 ? 2.5 : 0.5;
            for (int k = 0; k < 3; k++) pb[k] = sep * u[k];
            int bare = p & 1;
            rve_shape A1, A0, B;
            rve_shape_polytope(&A1, bare ? w : v, n, &g);
            rve_shape_polytope(&A0, bare ? w : v, n, NULL);
            if (!bare) {
                rve_shape_set_pose(&A1, pa, qa);
                rve_shape_set_pose(&A0, pa, qa);
            }
            rve_shape_polytope(&B, v, n, NULL);
            rve_shape_set_pose(&B, pb, qb);
            double d1 = rve_gjk_distance(&A1, &B, NULL, NULL, NULL), d0 = rve_gjk_distance(&A0, &B, NULL, NULL, NULL);
            double L = sep;
            for (int i = 0; i < 3 * n; i++) L = fmax(L, fabs(v[i]) + sep + 1);
            ck_assert_msg(fabs(d1 - d0) <= 8 * EPS * L, "set %d pair %d: %.17g with the graph, %.17g without", t, p, d1, d0);
        }
        rve_poly_graph_free(&g);
    }
}
END_TEST

static Suite *smooth_suite(void)
{
    Suite *s = suite_create("dist_smooth");
    TCase *tc = tcase_create("smooth");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_smooth_vs_oracle);
    tcase_add_test(tc, test_pose_rounded_graph);
    tcase_add_test(tc, test_graph_starts);
    tcase_add_test(tc, test_warm_start);
    tcase_add_test(tc, test_johnson_vs_sv);
    tcase_add_test(tc, test_stress);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(smooth_suite()); }
