/* Tests of the distance kernel (GJK + Signed Volumes) against closed forms
 * and brute-force oracles in long double. */
#include "config.h"
#include "testutil.h"
#include <rve/dist.h>
#include "dist_oracle.h"
#include <float.h>
#include <math.h>
#include <stdint.h>

#define EPS DBL_EPSILON

#include "dist_rng.h"

/* -------------------------------------------------- thesis examples */
START_TEST(test_thesis_sphere_triangle)
{
    /* Table 4.1: the closest point of the triangle to the origin is s1, distance 0.75 */
    const double y[3][3] = {{0.45, 0.00, -0.60}, {-0.55, -0.75, -1.55}, {-0.55, 0.75, -1.55}};
    double v[3], lam[4];
    int idx[4];
    int n = rve_sv_closest(y, 3, -1, v, idx, lam);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(idx[0], 0);
    ck_assert(fabs(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - 0.75) <= 4 * EPS);
    /* with s1 as newest vertex (GJK tailoring) the answer is the same */
    n = rve_sv_closest(y, 3, 0, v, idx, lam);
    ck_assert_int_eq(n, 1);
    ck_assert(fabs(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - 0.75) <= 4 * EPS);
    /* sphere of diameter 1 at the origin vs the triangle: 0.75 - 0.5 */
    rve_shape a, b;
    const double o[3] = {0, 0, 0};
    rve_shape_sphere(&a, o, 0.5);
    rve_shape_triangle(&b, y[0], y[1], y[2]);
    rve_dist_result r;
    ck_assert_int_eq(rve_gjk_dist(&a, &b, NULL, NULL, &r), RVE_GJK_CONVERGED);
    ck_assert(fabs(r.d - 0.25) <= 8 * EPS);
    ck_assert(vdist(r.q, y[0]) <= 8 * EPS);
    ck_assert(fabs(vdist(r.p, o) - 0.5) <= 8 * EPS);
    ck_assert(fabs(vdist(r.p, r.q) - r.d) <= 8 * EPS);
    /* point vs triangle through the generic path and Johnson */
    rve_shape_point(&a, o);
    rve_gjk_opts opt;
    rve_gjk_opts_default(&opt);
    for (int s = 0; s < 2; s++) {
        opt.sub = s ? RVE_SUB_JOHNSON : RVE_SUB_SV;
        ck_assert_int_eq(rve_gjk_dist(&a, &b, &opt, NULL, &r), RVE_GJK_CONVERGED);
        ck_assert(fabs(r.d - 0.75) <= 8 * EPS);
    }
}
END_TEST

START_TEST(test_thesis_degenerate_tetra)
{
    /* Fig. 4.6: s4 = s1, all z equal: exact volume 0; the closest point is
     * the projection of the origin on the plane z = -31.557752817397152 */
    const double y[4][3] = {{-20.713282046795065, 0.00, -31.557752817397152},
                            {-6.3505362624669246, 19.715748586578577, -31.557752817397152},
                            {20.713255776709875, -0.032989069061845351, -31.557752817397152},
                            {-20.713282046795065, 0.00, -31.557752817397152}};
    double v[3], lam[4];
    int idx[4];
    for (int newest = -1; newest < 4; newest++) {
        int n = rve_sv_closest(y, 4, newest, v, idx, lam);
        ck_assert_int_ge(n, 1);
        ck_assert(isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]));
        double d = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (newest == -1 || newest == 0 || newest == 3) {
            /* the regions holding the answer contain the newest vertex */
            ck_assert_msg(fabs(d - 31.557752817397152) <= 100 * EPS * 31.6, "newest %d: d = %.17g", newest, d);
            ck_assert_int_eq(n, 3);
        }
        double s = 0;
        for (int i = 0; i < n; i++) {
            ck_assert(lam[i] > 0);
            s += lam[i];
        }
        ck_assert(fabs(s - 1) <= 8 * EPS);
    }
}
END_TEST

/* -------------------------------------------------- closed forms */
START_TEST(test_spheres_boxes)
{
    rve_shape a, b;
    rve_dist_result r;
    const double c1[3] = {1, 2, 3}, c2[3] = {4, 6, 3};
    rve_shape_sphere(&a, c1, 1.0);
    rve_shape_sphere(&b, c2, 1.5);
    ck_assert_int_eq(rve_gjk_dist(&a, &b, NULL, NULL, &r), RVE_GJK_CONVERGED);
    ck_assert(fabs(r.d - 2.5) <= 16 * EPS);
    ck_assert(fabs(r.p[0] - 1.6) <= 16 * EPS && fabs(r.p[1] - 2.8) <= 16 * EPS);
    rve_shape_sphere(&b, c2, 4.5);
    ck_assert_int_eq(rve_gjk_dist(&a, &b, NULL, NULL, &r), RVE_GJK_INTERSECT);
    ck_assert(r.d == 0);
    ck_assert(vdist(r.p, c1) <= 1 + 1e-14 && vdist(r.p, c2) <= 4.5 + 1e-14);
    /* two boxes: unit cubes 0.5 apart along x, the second rotated 90 deg about x */
    const double q90[4] = {sqrt(0.5), sqrt(0.5), 0, 0}, qid[4] = {1, 0, 0, 0};
    const double pa[3] = {0, 0, 0}, pb[3] = {1.5, 0.2, -0.1};
    rve_shape_box(&a, 0.5, 0.5, 0.5);
    rve_shape_set_pose(&a, pa, qid);
    rve_shape_box(&b, 0.5, 0.5, 0.5);
    rve_shape_set_pose(&b, pb, q90);
    ck_assert_int_eq(rve_gjk_dist(&a, &b, NULL, NULL, &r), RVE_GJK_CONVERGED);
    ck_assert_msg(fabs(r.d - 0.5) <= 16 * EPS, "d = %.17g", r.d);
    ck_assert(fabs(r.p[0] - 0.5) <= 16 * EPS && fabs(r.q[0] - 1.0) <= 16 * EPS);
    /* rounded box (radius 0.1) */
    rve_shape_set_radius(&a, 0.1);
    ck_assert_int_eq(rve_gjk_dist(&a, &b, NULL, NULL, &r), RVE_GJK_CONVERGED);
    ck_assert(fabs(r.d - 0.4) <= 16 * EPS);
    ck_assert(fabs(r.p[0] - 0.6) <= 16 * EPS);
    /* segment vs segment (skew lines, closest points inside both) */
    const double s0[3] = {-1, 0, 0}, s1[3] = {1, 0, 0}, t0[3] = {0, -1, 2}, t1[3] = {0, 1, 2};
    rve_shape_segment(&a, s0, s1);
    rve_shape_segment(&b, t0, t1);
    ck_assert_int_eq(rve_gjk_dist(&a, &b, NULL, NULL, &r), RVE_GJK_CONVERGED);
    ck_assert(fabs(r.d - 2) <= 16 * EPS);
}
END_TEST

/* ----------------------------------------- point vs polytope (fit case) */
static void random_cloud(double *v, int n, double scale, int kind)
{
    for (int i = 0; i < n; i++) {
        double u[3];
        rand_unit(u);
        double r = kind == 0 ? 1.0 : pow(urand(), 1.0 / 3);
        double ax[3] = {1.0, 0.3 + urand(), 0.2 + 1.5 * urand()};
        for (int k = 0; k < 3; k++)
            v[3 * i + k] = scale * r * ax[k] * u[k];
    }
}

START_TEST(test_point_polytope_oracle)
{
    rng_seed(12345);
    int nq = (int)(3000 * test_scale());
    double worst = 0;
    for (int t = 0; t < nq; t++) {
        int n = 20 + (int)(urand() * 21);
        double scale = pow(10, -6 + 12 * urand());
        double v[3 * 40], off[3];
        random_cloud(v, n, scale, t & 1);
        rand_unit(off);
        double shift = scale * (urand() * 5 - 1);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                v[3 * i + k] += 0; /* polytope stays at the origin */
        int *tri;
        int nt = oracle_hull(v, n, &tri);
        ck_assert_int_gt(nt, 0);
        /* a point outside along a random direction, or a convex combination inside */
        double p[3];
        int inside = (t % 5) == 0;
        if (inside) {
            double w[3] = {urand(), urand(), urand()}, s = w[0] + w[1] + w[2];
            for (int k = 0; k < 3; k++)
                p[k] = (w[0] * v[k] + w[1] * v[3 + k] + w[2] * v[6 + k]) / s * 0.999;
        } else {
            for (int k = 0; k < 3; k++)
                p[k] = off[k] * (2.5 * scale + shift);
        }
        rve_dist_result r;
        double d = rve_dist_point_polytope(p, v, n, NULL, &r);
        ck_assert_msg(r.status == RVE_GJK_CONVERGED || r.status == RVE_GJK_INTERSECT, "status %d", r.status);
        /* is p inside? the oracle's distance to the boundary is exact when outside */
        ld exact = oracle_point_hull(p, v, tri, nt, n);
        double L = fmax(maxabs_pts(v, n), fmax(fabs(p[0]), fmax(fabs(p[1]), fabs(p[2]))));
        if (inside || d == 0) {
            /* inside: 0, and the boundary distance bounds nothing; check p is in the hull
             * by the facet planes in long double */
            int in = 1;
            for (int k = 0; k < nt && in; k++) {
                ld a[3], b[3], c[3], e1[3], e2[3], nn[3], P[3], dpt[3], cen[3] = {0, 0, 0};
                ld_from(a, v + 3 * tri[3 * k]); ld_from(b, v + 3 * tri[3 * k + 1]); ld_from(c, v + 3 * tri[3 * k + 2]);
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < 3; j++) cen[j] += v[3 * i + j] / (ld)n;
                ld_sub(e1, b, a); ld_sub(e2, c, a);
                nn[0] = e1[1] * e2[2] - e1[2] * e2[1]; nn[1] = e1[2] * e2[0] - e1[0] * e2[2]; nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
                ld_sub(dpt, cen, a);
                if (ld_dot(nn, dpt) > 0) { nn[0] = -nn[0]; nn[1] = -nn[1]; nn[2] = -nn[2]; }
                ld_from(P, p);
                ld_sub(dpt, P, a);
                if (ld_dot(nn, dpt) > 0) in = 0;
            }
            if (in) {
                ck_assert_msg(d <= 100 * EPS * L, "inside point: d = %g (L %g)", d, L);
                free(tri);
                continue;
            }
        }
        double err = fabs(d - (double)exact) / (EPS * L);
        if (err > worst) worst = err;
        ck_assert_msg(err <= 100, "query %d: d = %.17g exact %.17Lg (%.1f eps L)", t, d, exact, err);
        ck_assert(fabs(vdist(r.p, r.q) - d) <= 100 * EPS * L);
        ck_assert(vdist(r.p, p) == 0);
        free(tri);
    }
    fprintf(stderr, "point-polytope: %d queries, worst |d - exact| = %.2f eps L\n", nq, worst);
}
END_TEST

START_TEST(test_cli_parser)
{
    const char *txt = "# comment\n sphere 0 0 0 1 point 3 0 0 # trailing\n"
                      "poly 4 0 0 0 1 0 0 0 1 0 0 0 1 box 5 5 5 1 1 1 1 0 0 0\n";
    const char *cur = txt;
    rve_shape a, b;
    rve_err e;
    ck_assert_int_eq(rve_shape_parse(&cur, &a, &e), RVE_OK);
    ck_assert_int_eq(a.kind, RVE_SHAPE_SPHERE);
    ck_assert_int_eq(rve_shape_parse(&cur, &b, &e), RVE_OK);
    ck_assert_int_eq(b.kind, RVE_SHAPE_POINT);
    rve_dist_result r;
    rve_gjk_dist(&a, &b, NULL, NULL, &r);
    ck_assert(fabs(r.d - 2) <= 4 * EPS);
    ck_assert_int_eq(rve_shape_parse(&cur, &a, &e), RVE_OK);
    ck_assert_int_eq(a.kind, RVE_SHAPE_POLYTOPE);
    ck_assert_int_eq(a.nv, 4);
    ck_assert_int_eq(rve_shape_parse(&cur, &b, &e), RVE_OK);
    rve_gjk_dist(&a, &b, NULL, NULL, &r);
    ck_assert_msg(fabs(r.d - sqrt(3.0) * 11.0 / 3.0) <= 16 * EPS * 6, "d = %.17g", r.d);
    rve_shape_free(&a);
    ck_assert(rve_shape_text_end(&cur));
    const char *bad = "sphere 0 0 x 1";
    cur = bad;
    ck_assert_int_eq(rve_shape_parse(&cur, &a, &e), RVE_EDATA);
    ck_assert_ptr_nonnull(strstr(e.msg, "'x'"));
    cur = "box 0 0 0 1 1 1 2 0 0 0";
    ck_assert_int_eq(rve_shape_parse(&cur, &a, &e), RVE_EDATA);
    cur = "superquadric 0 0 0 1 1 1 1.5 2 1 0 0 0";
    ck_assert_int_eq(rve_shape_parse(&cur, &a, &e), RVE_EDATA);
    cur = "poly 2 0 0 0 1 1";
    ck_assert_int_eq(rve_shape_parse(&cur, &a, &e), RVE_EDATA);
    ck_assert_ptr_nonnull(strstr(e.msg, "end of input"));
    cur = "cone 1 2 3";
    ck_assert_int_eq(rve_shape_parse(&cur, &a, &e), RVE_EDATA);
    ck_assert_ptr_nonnull(strstr(e.msg, "'cone'"));
}
END_TEST

/* rve_shape_polytope keeps the middle of the vertices' box for GJK's first
 * direction: vertices changed in place after it still give the right
 * distance (only the start is stale), and a shape pointed at another array
 * takes that array's middle (bit for bit a fresh shape's answer) */
static void cube_at(double *v, double x, double y, double z)
{
    for (int i = 0; i < 8; i++) {
        v[3 * i] = x + (i & 1);
        v[3 * i + 1] = y + ((i >> 1) & 1);
        v[3 * i + 2] = z + ((i >> 2) & 1);
    }
}

START_TEST(test_shape_mid_cache)
{
    double X[24], Y[24], Bv[24];
    cube_at(X, 0, 0, 0);
    cube_at(Bv, 3, 0.25, 0.125);
    rve_shape sa, sb, fresh;
    rve_shape_polytope(&sa, X, 8, NULL);
    rve_shape_polytope(&sb, Bv, 8, NULL);
    rve_dist_result r, rf;
    rve_gjk_dist(&sa, &sb, NULL, NULL, &r);
    ck_assert_msg(fabs(r.d - 2) <= 16 * EPS * 4, "d = %.17g", r.d);
    /* X moved in place to [1000, 1001]^3: the kept middle is stale */
    cube_at(X, 1000, 1000, 1000);
    rve_gjk_dist(&sa, &sb, NULL, NULL, &r);
    long double dx = 1000.0L - 4, dy = 1000.0L - 1.25L, dz = 1000.0L - 1.125L;
    long double exact = sqrtl(dx * dx + dy * dy + dz * dz);
    ck_assert_msg(fabsl((long double)r.d - exact) <= 16 * EPS * 1001, "stale middle: d = %.17g", r.d);
    /* pointed at Y (another cube, beyond B): Y's own middle */
    cube_at(Y, 6.5, -3, 0.75);
    sa.verts = Y;
    rve_shape_polytope(&fresh, Y, 8, NULL);
    rve_gjk_dist(&sa, &sb, NULL, NULL, &r);
    rve_gjk_dist(&fresh, &sb, NULL, NULL, &rf);
    ck_assert(r.d == rf.d && r.iterations == rf.iterations && r.n == rf.n);
    for (int k = 0; k < 3; k++)
        ck_assert(r.p[k] == rf.p[k] && r.q[k] == rf.q[k]);
    dx = 6.5L - 4;
    dy = 0.25L - (-3 + 1);
    ck_assert_msg(fabsl((long double)r.d - sqrtl(dx * dx + dy * dy)) <= 16 * EPS * 8, "d = %.17g", r.d);
}
END_TEST

static Suite *dist_suite(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_thesis_sphere_triangle);
    tcase_add_test(tc, test_thesis_degenerate_tetra);
    tcase_add_test(tc, test_spheres_boxes);
    tcase_add_test(tc, test_point_polytope_oracle);
    tcase_add_test(tc, test_cli_parser);
    tcase_add_test(tc, test_shape_mid_cache);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(dist_suite()); }
