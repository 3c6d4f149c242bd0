/* Issue 17: GJK on near-degenerate touching inputs at any magnitude.
 *  - the exact sign predicates against integer arithmetic (__int128);
 *  - the issue's example;
 *  - a 10^5 slice (RVE_TEST_SCALE) of the flat families of dist_flat.h
 *    against their binary128 / long double oracle: no error beyond
 *    100 eps L, no wrong intersect / separate decision;
 *  - extreme magnitudes (1e155 .. 1e308, subnormals), rounded shapes. */
#include "config.h"
#include "testutil.h"
#include <rve/dist.h>
#include "dist_flat.h"
#include <float.h>
#include <math.h>
#include <stdio.h>

#define EPS DBL_EPSILON

/* the internal predicates (filters inline, exact paths in src/dist/dist_exact.c) */
#include "dist/dist_internal.h"

typedef __int128 i128;
static int sgn128(i128 x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

/* integer points (|k| < 2^20) times a power of two, some exactly degenerate
 * (sums of others), some perturbed by one unit */
static void int_pts(i128 P[4][3], double D[4][3], int e)
{
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++)
            P[j][k] = (i128)(long)((urand() - 0.5) * 2 * 1048575);
    int mode = (int)(urand() * 4);
    if (mode == 1) /* d on the plane of a, b, c (affine combination) */
        for (int k = 0; k < 3; k++) P[3][k] = P[0][k] + P[1][k] - P[2][k];
    if (mode == 2) /* c collinear with a, b */
        for (int k = 0; k < 3; k++) P[2][k] = 2 * P[1][k] - P[0][k];
    if (mode >= 1 && urand() < 0.5)
        P[3][(int)(urand() * 3)] += urand() < 0.5 ? 1 : -1;
    if (mode == 3) /* c = a + b (origin-plane through a, b) */
        for (int k = 0; k < 3; k++) P[2][k] = P[0][k] + P[1][k];
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 3; k++) {
            /* keep |coordinate| < 2^21 before scaling */
            if (P[j][k] > 2097151) P[j][k] -= 2097151;
            if (P[j][k] < -2097151) P[j][k] += 2097151;
            D[j][k] = ldexp((double)P[j][k], e);
        }
}

START_TEST(test_exact_predicates)
{
    rng_seed(17);
    int nex = 0, n = (int)(20000 * test_scale());
    for (int t = 0; t < n; t++) {
        i128 P[4][3];
        double D[4][3], val;
        int e = (int)(urand() * 200) - 100;
        int_pts(P, D, e);
        /* s . (s - t) */
        i128 dd = 0;
        for (int k = 0; k < 3; k++) dd += P[0][k] * (P[0][k] - P[1][k]);
        ck_assert_int_eq(dist_sign_dot_diff(D[0], D[1], &val, &nex), sgn128(dd));
        /* det[a; b; c] */
        i128 det = P[0][0] * (P[1][1] * P[2][2] - P[1][2] * P[2][1]) +
                   P[0][1] * (P[1][2] * P[2][0] - P[1][0] * P[2][2]) +
                   P[0][2] * (P[1][0] * P[2][1] - P[1][1] * P[2][0]);
        ck_assert_int_eq(dist_sign_det3(D[0], D[1], D[2], &val, &nex), sgn128(det));
        /* orient(a, b, c, d) */
        i128 u[3][3];
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) u[j][k] = P[j + 1][k] - P[0][k];
        i128 o = u[0][0] * (u[1][1] * u[2][2] - u[1][2] * u[2][1]) + u[0][1] * (u[1][2] * u[2][0] - u[1][0] * u[2][2]) +
                 u[0][2] * (u[1][0] * u[2][1] - u[1][1] * u[2][0]);
        ck_assert_int_eq(dist_sign_orient3(D[0], D[1], D[2], D[3], &val, &nex), sgn128(o));
        /* triangle weights: n . (s_j x s_k), degree 4 (|k| < 2^21: < 2^90) */
        i128 nn[3], e1[3], e2[3];
        for (int k = 0; k < 3; k++) { e1[k] = P[1][k] - P[0][k]; e2[k] = P[2][k] - P[0][k]; }
        nn[0] = e1[1] * e2[2] - e1[2] * e2[1];
        nn[1] = e1[2] * e2[0] - e1[0] * e2[2];
        nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
        int sg[3];
        double vals[3];
        const double tri[3][3] = {{D[0][0], D[0][1], D[0][2]}, {D[1][0], D[1][1], D[1][2]}, {D[2][0], D[2][1], D[2][2]}};
        dist_signs_tri(tri[0], tri[1], tri[2], sg, vals, &nex);
        for (int i = 0; i < 3; i++) {
            const i128 *a = P[(i + 1) % 3], *b = P[(i + 2) % 3];
            i128 c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
            ck_assert_int_eq(sg[i], sgn128(nn[0] * c[0] + nn[1] * c[1] + nn[2] * c[2]));
        }
    }
    fprintf(stderr, "exact predicates: %d queries, exact path %d times\n", n, nex);
    ck_assert_int_gt(nex, 0); /* the degenerate draws must reach the exact path */
}
END_TEST

/* 53-bit inputs: the sign of s . (s - t) where t = s + tiny d, against
 * long double (exact here: the products need 106 bits... so compare with the
 * sign of s . d computed with an explicit error-free check) */
START_TEST(test_exact_full_mantissa)
{
    rng_seed(23);
    int nex = 0;
    for (int t = 0; t < 5000; t++) {
        /* det3 of a, b, a + b (rounded): exact value = a . (b x r) where r is
         * the rounding error of a + b; compare with binary128 (exact here:
         * each product of three 53-bit values has 159 bits, but b x r has
         * tiny r, so binary128 evaluation is exact to within far below the
         * value's magnitude only when the value is nonzero; we check the
         * sign when binary128 is decisive) */
        double a[3], b[3], c[3], val;
        for (int k = 0; k < 3; k++) {
            a[k] = nrand() * pow(2, (int)(urand() * 20) - 10);
            b[k] = nrand() * pow(2, (int)(urand() * 20) - 10);
            c[k] = a[k] + b[k];
        }
        q128 bc[3] = {(q128)b[1] * c[2] - (q128)b[2] * c[1], (q128)b[2] * c[0] - (q128)b[0] * c[2],
                      (q128)b[0] * c[1] - (q128)b[1] * c[0]};
        q128 ex = (q128)a[0] * bc[0] + (q128)a[1] * bc[1] + (q128)a[2] * bc[2];
        q128 mag = 0;
        for (int k = 0; k < 3; k++) {
            q128 m = (q128)fabs(a[k]) * (q128)(fabs(b[(k + 1) % 3] * c[(k + 2) % 3]) + fabs(b[(k + 2) % 3] * c[(k + 1) % 3]));
            mag += m;
        }
        int s = dist_sign_det3(a, b, c, &val, &nex);
        q128 bound = mag * (q128)1e-31;
        if (ex > bound) ck_assert_int_eq(s, 1);
        else if (ex < -bound) ck_assert_int_eq(s, -1);
    }
    ck_assert_int_gt(nex, 0);
}
END_TEST

/* issue 17's example: point outside a flat 12-vertex polytope by 1.6e-12 */
static const double ex_poly[36] = {
    5798.9030974364869, -4415.0886906844062, 521.91081214438907, 5959.4113310679113, -2784.1263808630374, 521.91081077935621,
    4543.206635127427, -4042.049443116975, 521.91081146719989, 6237.1174115416279, -4334.696043180058, 521.91081202910618,
    5613.503490572075, -2830.7780281149035, 521.91081095439029, 5258.6916073113152, -3068.415305456273, 521.91081149747947,
    4520.4226872855725, -5095.6319448284721, 521.91081079794026, 5781.4720187671801, -4766.1777458883953, 521.9108118653528,
    4425.5197979888217, -4898.9608873682891, 521.91081088355611, 6660.6681983072167, -4591.8540805772336, 521.91080861048033,
    6452.3269816312059, -4686.1621875711435, 521.91081153757875, 5526.1183420146444, -4357.7103886822406, 521.91081218284057};
static const double ex_pt[3] = {5564.7801331289102, -4155.9709264748408, 521.91081205968658};

START_TEST(test_issue_example)
{
    flat_query Q;
    Q.na = 12;
    Q.nb = 1;
    memcpy(Q.a, ex_poly, sizeof ex_poly);
    memcpy(Q.b, ex_pt, sizeof ex_pt);
    flat_truth T;
    flat_oracle(&Q, &T);
    ck_assert_int_eq(T.overlap, 0);
    ck_assert(T.d > 1.5e-12 && T.d < 1.7e-12);
    rve_shape A, B;
    rve_shape_polytope(&A, ex_poly, 12, NULL);
    rve_shape_point(&B, ex_pt);
    rve_dist_result r;
    ck_assert_int_eq(rve_gjk_dist(&A, &B, NULL, NULL, &r), RVE_GJK_CONVERGED);
    double tol = 100 * EPS * T.L;
    ck_assert_msg(fabs(r.d - (double)T.d) <= tol, "d = %.17g, oracle %.17Lg", r.d, T.d);
    double d2 = rve_dist_point_polytope(ex_pt, ex_poly, 12, NULL, &r);
    ck_assert_msg(fabs(d2 - (double)T.d) <= tol, "point-polytope d = %.17g, oracle %.17Lg", d2, T.d);
    fprintf(stderr, "issue example: d = %.17g, oracle %.17Lg (%.2f eps L)\n", r.d, T.d,
            fabs(r.d - (double)T.d) / (EPS * T.L));
}
END_TEST

/* ------------------------------------------------------- the families */
/* run_family_sized's family for flat_draw_near_vertex (beside FLAT_POINT
 * and FLAT_PAIR) */
enum { NEAR_VERTEX = 2 };

static void run_family_sized(int family, long n, uint64_t seed, int posed, const flat_sizes *sz)
{
    rng_seed(seed);
    fam_stats st = {0};
    st.witness = 1;
    char msg[512] = "";
    long first_fail = -1;
    char first_msg[512] = "";
    for (long t = 0; t < n; t++) {
        flat_query Q;
        if (family == NEAR_VERTEX)
            flat_draw_near_vertex(&Q);
        else
            flat_draw_sized(&Q, family, sz);
        if (posed == 1)
            flat_pose(&Q);
        else if (posed == 2)
            flat_box(&Q);
        if (flat_check(&Q, &st, msg, sizeof msg) && first_fail < 0) {
            first_fail = t;
            memcpy(first_msg, msg, sizeof msg);
        }
    }
    fprintf(stderr, "flat %s%s: %ld queries, %ld beyond 100 eps L, %ld wrong decisions, %ld uncertain, worst %.2f eps L,"
                    " witness off its body by at most %.2f eps L, exact fallbacks %.4f per query\n",
            family == FLAT_POINT ? "point" : family == NEAR_VERTEX ? "near vertex" : posed == 2 ? "boxed pair" : posed ? "posed pair" : "pair",
            sz ? " (16-32 vertices)" : "", st.n, st.bad, st.wrong, st.uncertain, st.worst, st.worst_wit,
            (double)st.exact / (double)(st.n ? st.n : 1));
    ck_assert_msg(st.bad == 0 && st.wrong == 0, "query %ld: %s", first_fail, first_msg);
}

static void run_family(int family, long n, uint64_t seed, int posed) { run_family_sized(family, n, seed, posed, NULL); }

START_TEST(test_flat_point) { run_family(FLAT_POINT, (long)(70000 * test_scale() * (test_long() ? 1 : 0.2)), 1701, 0); }
END_TEST

START_TEST(test_flat_pair) { run_family(FLAT_PAIR, (long)(30000 * test_scale() * (test_long() ? 1 : 0.2)), 1702, 0); }
END_TEST

/* the pair family as posed bodies: small rotated polytopes (the loop on
 * vertices rotated once per query), also at magnitudes 1e-300 to 1e300 */
START_TEST(test_flat_posed) { run_family(FLAT_PAIR, (long)(15000 * test_scale() * (test_long() ? 1 : 0.2)), 1704, 1); }
END_TEST

/* the pair family with B a posed flat box (analytic support, rotated
 * directions), A posed in half the draws */
START_TEST(test_flat_box) { run_family(FLAT_PAIR, (long)(15000 * test_scale() * (test_long() ? 1 : 0.2)), 1705, 2); }
END_TEST

/* the pair family with 16 to 32 vertices per body, bare and posed: the
 * pair loop's rows of 16 to 32 vertices (gjk.c, up to GJK_ROWS32_MAX_NV) and their
 * repeated-vertex certificate (the oracle costs O(n^4) per query: few) */
START_TEST(test_flat_rows32)
{
    const flat_sizes sz = {16, 17};
    long n = (long)(1500 * test_scale() * (test_long() ? 1 : 0.2));
    run_family_sized(FLAT_PAIR, n, 1706, 0, &sz);
    run_family_sized(FLAT_PAIR, n, 1707, 1, &sz);
}
END_TEST

/* The lean path (rve_gjk_distance; rve_dist_point_polytope without out)
 * gives the full path's answers bit for bit, and within 100 eps L of the
 * oracle, on the flat families; and bit for bit on rotated, rounded boxes
 * and superquadrics (the rotation matrix is now set once per pose). */
static int same(double x, double y) { return x == y || (isnan(x) && isnan(y)); }

START_TEST(test_lean_path)
{
    rng_seed(1703);
    long n = (long)(4000 * test_scale());
    for (long t = 0; t < 2 * n; t++) {
        flat_query Q;
        flat_draw(&Q, t < n ? FLAT_POINT : FLAT_PAIR);
        rve_shape A, B;
        rve_shape_polytope(&A, Q.a, Q.na, NULL);
        if (Q.nb == 1)
            rve_shape_point(&B, Q.b);
        else
            rve_shape_polytope(&B, Q.b, Q.nb, NULL);
        rve_dist_result r;
        rve_gjk_dist(&A, &B, NULL, NULL, &r);
        double p[3], q[3];
        double d0 = rve_gjk_distance(&A, &B, NULL, NULL, NULL);
        double d1 = rve_gjk_distance(&A, &B, NULL, p, q);
        ck_assert_msg(same(d0, r.d) && same(d1, r.d), "query %ld: lean %.17g / %.17g, full %.17g", t, d0, d1, r.d);
        for (int k = 0; k < 3; k++)
            ck_assert_msg(same(p[k], r.p[k]) && same(q[k], r.q[k]), "query %ld: witnesses differ", t);
        if (Q.nb == 1) {
            double dp = rve_dist_point_polytope(Q.b, Q.a, Q.na, NULL, &r);
            double dl = rve_dist_point_polytope(Q.b, Q.a, Q.na, NULL, NULL);
            ck_assert_msg(same(dp, dl), "query %ld: point lean %.17g, full %.17g", t, dl, dp);
        }
        flat_truth T;
        flat_oracle(&Q, &T);
        if (T.overlap >= 0)
            ck_assert_msg(fabs(d0 - (double)T.d) <= 100 * EPS * T.L, "query %ld: lean %.17g oracle %.17Lg", t, d0, T.d);
    }
    for (long t = 0; t < 2000; t++) {
        rve_shape A, B;
        double pa[3], pb[3], qa[4], qb[4];
        for (int k = 0; k < 3; k++) {
            pa[k] = 4 * urand() - 2;
            pb[k] = 4 * urand() - 2;
        }
        for (int k = 0; k < 4; k++) {
            qa[k] = nrand();
            qb[k] = nrand();
        }
        rve_shape_box(&A, 0.2 + urand(), 0.2 + urand(), 0.2 + urand());
        if (t % 2)
            rve_shape_superquadric(&B, 0.3 + urand(), 0.3 + urand(), 0.3 + urand(), 2 + 4 * urand(), 2 + 4 * urand());
        else
            rve_shape_ellipsoid(&B, 0.3 + urand(), 0.3 + urand(), 0.3 + urand());
        rve_shape_set_pose(&A, pa, qa);
        rve_shape_set_pose(&B, pb, qb);
        if (t % 3 == 0)
            rve_shape_set_radius(&A, 0.1 * urand());
        rve_dist_result r;
        rve_gjk_dist(&A, &B, NULL, NULL, &r);
        double p[3], q[3];
        double d0 = rve_gjk_distance(&A, &B, NULL, NULL, NULL), d1 = rve_gjk_distance(&A, &B, NULL, p, q);
        ck_assert_msg(same(d0, r.d) && same(d1, r.d), "posed %ld: lean %.17g, full %.17g", t, d0, r.d);
        for (int k = 0; k < 3; k++)
            ck_assert(same(p[k], r.p[k]) && same(q[k], r.q[k]));
    }
}
END_TEST

/* ------------------------------------------------- extreme magnitudes */
START_TEST(test_magnitudes)
{
    rve_shape A, B;
    rve_dist_result r;
    for (int e = 100; e <= 308; e += 8) {
        double x = pow(10, e) * 0.9;
        double a[3] = {x, 0, 0}, b[3] = {-x, 0, 0};
        rve_shape_point(&A, a);
        rve_shape_point(&B, b);
        rve_gjk_status st = rve_gjk_dist(&A, &B, NULL, NULL, &r);
        if (2 * x <= DBL_MAX) {
            ck_assert_int_eq(st, RVE_GJK_CONVERGED);
            ck_assert_msg(fabs(r.d - 2 * x) <= 4 * EPS * x, "1e%d: d = %g", e, r.d);
        } else {
            ck_assert_int_eq(st, RVE_GJK_RANGE);
            ck_assert(isinf(r.d));
        }
        ck_assert(r.p[0] == x && r.q[0] == -x);
    }
    /* tiny: two points 3e-310 apart (subnormal) and at 1e-300 */
    double tiny[] = {1e-300, 3e-310, 4.9406564584124654e-324 * 7};
    for (int i = 0; i < 3; i++) {
        double a[3] = {tiny[i], 0, 0}, b[3] = {0, 0, 0};
        rve_shape_point(&A, a);
        rve_shape_point(&B, b);
        rve_gjk_dist(&A, &B, NULL, NULL, &r);
        ck_assert_msg(r.d == tiny[i] && r.status == RVE_GJK_CONVERGED, "%g: d = %g status %d", tiny[i], r.d, r.status);
    }
    /* two spheres of radius 1e308 at +-1.5e308: separated by 1e308 */
    double c1[3] = {-1.5e308, 0, 0}, c2[3] = {1.5e308, 0, 0};
    rve_shape_sphere(&A, c1, 1e308);
    rve_shape_sphere(&B, c2, 1e308);
    rve_gjk_dist(&A, &B, NULL, NULL, &r);
    ck_assert_msg(r.status == RVE_GJK_CONVERGED && fabs(r.d - 1e308) <= 4 * EPS * 1.5e308, "spheres: d = %g status %d",
                  r.d, r.status);
    /* overlapping huge spheres */
    c1[0] = -0.5e308;
    c2[0] = 0.5e308;
    rve_shape_sphere(&A, c1, 1e308);
    rve_shape_sphere(&B, c2, 1e308);
    ck_assert_int_eq(rve_gjk_dist(&A, &B, NULL, NULL, &r), RVE_GJK_INTERSECT);
    ck_assert(r.d == 0 && isfinite(r.p[0]));
    /* boxes at 1e200 scale: exact answer 1e200 */
    rve_shape_box(&A, 1e200, 1e200, 1e200);
    rve_shape_box(&B, 1e200, 1e200, 1e200);
    double pos[3] = {3e200, 0, 0}, q[4] = {1, 0, 0, 0};
    rve_shape_set_pose(&B, pos, q);
    rve_gjk_dist(&A, &B, NULL, NULL, &r);
    ck_assert_msg(fabs(r.d - 1e200) <= 8 * EPS * 3e200, "boxes: %g", r.d);
    /* ellipsoids (equal axes: a sphere's closed form) posed at 1e-300 to
     * 1e300: |e|^2 of the support overflowed from 1e154 (NaN, "degenerate") */
    for (int e = -300; e <= 300; e += 25) {
        double rad = 0.75 * pow(10, e), c[3] = {2 * rad, -rad, 0.5 * rad};
        double p[3] = {c[0] + 1.5 * rad, c[1] + 2 * rad, c[2]}, qa[4] = {0.5, 0.5, -0.5, 0.5};
        rve_shape_ellipsoid(&A, rad, rad, rad);
        rve_shape_set_pose(&A, c, qa);
        rve_shape_point(&B, p);
        rve_gjk_dist(&A, &B, NULL, NULL, &r);
        double ex = 1.5 * rad; /* |p - c| = 2.5 rad */
        ck_assert_msg(r.status == RVE_GJK_CONVERGED && fabs(r.d - ex) <= 16 * EPS * 3.5 * rad,
                      "ellipsoid at 1e%d: d = %g, exact %g, status %d", e, r.d, ex, r.status);
    }
    /* point vs polytope at 1e250 and 1e-250 */
    double s[2] = {1e250, 1e-250};
    for (int i = 0; i < 2; i++) {
        double V[12] = {0, 0, 0, s[i], 0, 0, 0, s[i], 0, 0, 0, s[i]};
        double p[3] = {s[i], s[i], s[i]};
        double d = rve_dist_point_polytope(p, V, 4, NULL, &r);
        double ex = s[i] * 2 / sqrt(3.0);
        ck_assert_msg(fabs(d - ex) <= 8 * EPS * s[i], "point-polytope at %g: %g vs %g", s[i], d, ex);
        ck_assert_int_eq(rve_gjk_intersect(&A, &A, NULL), 1);
    }
}
END_TEST


/* contact kernels on shapes (EPA, Wellmann) at extreme magnitudes */
START_TEST(test_contact_magnitudes)
{
    rve_shape A, B;
    rve_contact c;
    rve_err err;
    double q[4] = {1, 0, 0, 0};
    const double scales[] = {1e-300, 1e-200, 1, 1e200, 1e300};
    for (int i = 0; i < 5; i++) {
        double s = scales[i];
        for (int gap = -1; gap <= 1; gap++) {
            /* superquadrics of half-size s at -s and (1 + gap / 2) s: signed
             * distance gap s / 2 along x */
            double pa[3] = {-s, 0, 0}, pb[3] = {s + gap * s / 2, 0, 0};
            rve_shape_superquadric(&A, s, s, s, 4, 4);
            rve_shape_superquadric(&B, s, s, s, 4, 4);
            rve_shape_set_pose(&A, pa, q);
            rve_shape_set_pose(&B, pb, q);
            double ex = gap * s / 2;
            ck_assert_int_eq(rve_contact_epa(&A, &B, NULL, &c, &err), RVE_OK);
            ck_assert_msg(fabs(c.s - ex) <= 1e-9 * s && fabs(fabs(c.n[0]) - 1) < 1e-6, "epa at %g gap %d: s = %g n %g",
                          s, gap, c.s, c.n[0]);
            ck_assert_int_eq(rve_contact_superellipsoids(&A, &B, NULL, NULL, &c, NULL, &err), RVE_OK);
            ck_assert_msg(fabs(c.s - ex) <= 1e-9 * s && fabs(fabs(c.n[0]) - 1) < 1e-6,
                          "wellmann at %g gap %d: s = %g n %g", s, gap, c.s, c.n[0]);
        }
    }
    /* spheres of radius 1e308: separated by 1e308, overlapping by 1e308 */
    double c1[3] = {-1.5e308, 0, 0}, c2[3] = {1.5e308, 0, 0};
    rve_shape_sphere(&A, c1, 1e308);
    rve_shape_sphere(&B, c2, 1e308);
    ck_assert_int_eq(rve_contact_epa(&A, &B, NULL, &c, &err), RVE_OK);
    ck_assert_msg(fabs(c.s - 1e308) <= 1e-12 * 1e308 && c.n[0] == 1, "spheres: s = %g", c.s);
    c1[0] = -0.5e308;
    c2[0] = 0.5e308;
    rve_shape_sphere(&A, c1, 1e308);
    rve_shape_sphere(&B, c2, 1e308);
    ck_assert_int_eq(rve_contact_epa(&A, &B, NULL, &c, &err), RVE_OK);
    ck_assert_msg(fabs(c.s + 1e308) <= 1e-12 * 1e308, "overlapping spheres: s = %g", c.s);
}
END_TEST

/* Regressions of the stress run (bench_dist_stress): flat polytopes
 * against a point, each once beyond 100 eps L (kernel or oracle). */
typedef struct {
    int n;
    double v[3 * FLAT_MAXV], p[3];
    const char *what;
} stress_case;
static const stress_case stress_cases[] = {
    {10,
     {0.051531748488419057, 0.13681374338835173, -0.19219182073509811, -0.21270233181275303, 0.54421531755491603, -0.12889359011562418, -0.23766043452405766, 0.69915222249672715, -0.21975959256657562, 0.16951837632764249, -0.82163430703869866, 0.4253096415011644, -0.059703128830133831, -0.13818203118313763, 0.20576433840517028, -0.22539755488454929, 0.35618135082011282, 0.046794195364799007, 0.2382357621096593, -0.32103489745920349, -0.095558297295893421, -0.25953888647590329, 0.4687579326804121, 0.0051294524067868772, 0.25391527895060989, -0.071007329455260795, -0.32734126089579613, -0.22539755488454929, 0.35618135082011282, 0.046794195364799007},
     {-0.11661495652909043, 0.031619236651904033, 0.15116213116482338},
     "sliver weights (witness distance |p - q| 124 eps L off)"},
    {11,
     {1.0531328363327314e-299, 1.064016205834726e-299, -6.1102210857028537e-300, 1.0713005114872116e-299, 1.1562477768998063e-299, -2.280973053431695e-300, 1.0165094802884189e-299, 8.6721505476804933e-300, -6.4350942335664301e-300, 1.0055179103088836e-299, 8.0581592684153369e-300, -4.9455737311164192e-300, 1.0601306669738988e-299, 1.0958765384033248e-299, -2.143194711311467e-300, 1.0637605779954239e-299, 1.1158661237950117e-299, -2.4398599381606257e-300, 1.0494568480888021e-299, 1.0438204315788615e-299, -5.8421212830338729e-300, 1.0325826787354208e-299, 9.502862524719955e-300, -4.0485166046614852e-300, 1.031316275643042e-299, 9.425844165644078e-300, -3.4501496798514301e-300, 1.0451874284136317e-299, 1.0216943062490551e-299, -6.4349462788927477e-300, 1.0657586992573552e-299, 1.1264828205664075e-299, -2.3402023627637096e-300},
     {1.0309724216008569e-299, 9.4289501420096725e-300, -4.9206231629381335e-300},
     "scaled run at 1e-299: subnormal support products picked a wrong vertex (577 eps L)"},
    {8,
     {-0.0055304978950763027, -0.63736064859125241, -0.20981888802158433, -0.40486458121741936, 0.11151642201516565, -0.064148571722946163, 0.57786262547903489, -0.37707737703175331, 0.020292841642493571, -0.29600959630606477, 0.56697521812973384, 0.11185892514694543, -0.04275873378818662, -0.37034402426507512, -0.13174516239915879, 0.41529685446108017, 0.18362222318865012, 0.16326421982294165, 0.34028115769718287, -0.48308188223999399, -0.073420195653008516, -0.0055304978950763027, -0.63736064859125241, -0.20981888802158433},
     {0.026656949970888771, -0.6230006937020871, -0.19712317405995797},
     "sliver of aspect 1e5: the long double oracle was 900 eps L off, the kernel right"},
    {11,
     {-1.505144954102841, 3.6483864510576316, -5.2424431515865955, -1.2863334880432684, 3.3121648488108124, -3.9290668739061827, -1.5268028880300184, 3.6699053765987317, -4.7562556142068022, -1.3037379656973922, 3.3442017883852939, -4.3108904964620027, -1.3904485175350474, 3.4709955222574584, -4.4937054913746319, -1.2397068094366974, 3.2665018453521135, -5.0105795406481857, -0.95796546432469287, 2.8516205755359589, -4.2645976164730683, -1.1360983178006754, 3.1139317813812397, -4.736243837990429, -1.4610749568908663, 3.5779045842811263, -4.8330648056764645, -0.95033704189174251, 2.8321197054089362, -3.8111932776002893, -1.3904485175350474, 3.4709955222574584, -4.4937054913746319},
     {-1.133379227072383, 3.1099280120573307, -4.7290502021907601},
     "flat tetrahedron: the next face's |v|^2 equal to rounding, GJK stopped on \"no progress\" (169 eps L)"},
    {9,
     {0.51102786021149482, -0.11186371388099603, -0.85225409098719596, -0.52756625337258889, -0.81271322561053505, 0.24732784157900467, 0.032746887057338137, 0.84837328610798812, 0.52838471666616948, -0.41029780376007013, -0.25250622007148271, 0.45099444897476693, -0.006130849076502575, 0.49823496950810636, 0.34882571464991896, 0.17204990761533462, 0.037160471318870021, -0.23594544896012967, 0.23551375484442141, 0.45368992742216885, -0.048480543560018796, 0.26577845809255496, 0.015027580514947949, -0.39335996446979149, 0.24336835162571052, 0.72062206832878539, 0.12148917822303901},
     {-0.22365263673012425, 0.025356860998580887, 0.35690885835945269},
     "point 3.35e-12 inside: GJK stopped on a repeated vertex with a turned v (tied family, seed 20261130)"},
    {12,
     {0.061923876188160684, -0.70582412442168851, -0.55491231322586843, 0.080105802128536657,
      -0.12686263269296374, 0.22063496808226826, -0.10889565102283401, 0.37555919273172111,
      -0.057490225079863358, 0.15258719060917295, -0.092083189847552593, 0.59880638100263661,
      -0.0043583584635651764, 0.24126128528960869, 0.26774676369479117, -0.08618417319468126,
      0.47444978727885523, 0.16604224693890121, -0.033351794417187261, 0.23617623599587373, 0.12701028143299414,
      0.20859938958590304, -0.36026674820409832, 0.53884103534453454, -0.018599080449227555,
      0.19302963601383732, 0.14402912920548933, 0.1481710271439152, -0.34832320131343569, 0.27242494368212405,
      -0.028639921426329713, 0.58659726761743325, 0.56718822767066801, 0.061923876230580314,
      -0.70582412438250308, -0.554912313238902},
     {0.06192387618818955, -0.70582412442161868, -0.55491231322584911},
     "point 7.8e-14 inside by a near-duplicate vertex: GJK stopped on \"no progress\" from a v mostly rounding, 4.04e-14 outside (258 eps L; point family, seed 20261212)"},
    {10,
     {2.4804624362326388e-90, 9.3646199247330924e-91, 9.8654222368761912e-91, -1.709382071139973e-90,
      -1.1001760365041067e-90, 2.6535340045366858e-90, -2.7284155655193478e-91, -1.7998678247801044e-91,
      4.5566541828420813e-91, -3.0677441955566748e-90, -1.2527122233094949e-90, -5.2730518976589829e-91,
      3.1674383220726665e-90, 1.2375453668079303e-90, 9.5396233064797418e-91, -1.6532458486058429e-91,
      -1.1981603484532091e-91, 3.549312340461466e-91, -3.1027735946277457e-90, -1.4518829998375037e-90,
      8.2155756486106686e-91, -2.4098101530664546e-90, -8.6393698114485426e-91, -1.2944853627672729e-90,
      -3.4750163168943075e-90, -1.270257907889587e-90, -1.6875969888455783e-90, -3.4750163169244658e-90,
      -1.270257907833633e-90, -1.687596988871926e-90},
     {-3.4750163169243681e-90, -1.270257907833834e-90, -1.6875969888718567e-90},
     "a point next to two nearly equal vertices, at 1e-90: \"no progress\" from a v mostly rounding, d 9 times too large (246 eps L; seed 20261213)"},
    {5,
     {0.55080283598943991, 0.24088788779470346, 0.32861276822501484, -0.66557876512155034, -0.22544992849785997,
      -0.3579946734719397, 0.064575851552525751, 0.054408918429461578, 0.054112731838869339,
      -0.24814014946010621, 0.026482626242830432, -0.067628176027813333, 0.55080283598814872,
      0.24088788779371426, 0.3286127682254143},
     {0.55080283598814872, 0.24088788779371426, 0.32861276822541552},
     "a point 1.2e-15 from a vertex, on edges 1.5 long: v projected from their far ends, 3e-4 off in direction, "
     "GJK cycled on far vertices and stopped 1.18e-12 away (7.95e3 eps L; point family, seed 20261219)"},
};

START_TEST(test_stress_regressions)
{
    for (size_t i = 0; i < sizeof stress_cases / sizeof *stress_cases; i++) {
        const stress_case *c = &stress_cases[i];
        flat_query Q;
        memset(&Q, 0, sizeof Q);
        Q.na = c->n;
        Q.nb = 1;
        memcpy(Q.a, c->v, sizeof(double) * 3 * (size_t)c->n);
        memcpy(Q.b, c->p, sizeof c->p);
        fam_stats st = {0};
        st.witness = 1;
        char msg[512] = "";
        int bad = flat_check(&Q, &st, msg, sizeof msg);
        fprintf(stderr, "stress case %zu (%s): worst %.2f eps L\n", i, c->what, st.worst);
        ck_assert_msg(!bad, "stress case %zu (%s): %s", i, c->what, msg);
    }
}
END_TEST

/* points next to a near-duplicated vertex on long, nearly aligned edges
 * (flat_draw_near_vertex, tests/dist_flat.h) */
START_TEST(test_near_vertex)
{
    run_family(NEAR_VERTEX, (long)(20000 * test_scale() * (test_long() ? 1 : 0.2)), 1708, 0);
}
END_TEST

/* A flat polytope and a thin posed box (half extents 0.69, 0.91 and 2.9e-9
 * of 1e248) 9.4e-11 of their size apart: two corners of the box 6e-9 apart
 * along its thin axis nearly tie along v, and GJK stopped on a repeated
 * vertex with d 1 % too large (1.75e4 eps L, box family of
 * bench_dist_stress, seed 20261209).  Also at magnitude 1 (all numbers
 * times 2^-826, exact). */
START_TEST(test_box_near_tie)
{
    static const double a[15] = {6.3415385987773611e+247, -5.2483102122219272e+247, 4.0841944647927158e+247,
                                 -1.0280134761940269e+247, 3.2076747904695357e+247, -6.202590103386302e+246,
                                 -4.4861372661043225e+247, 1.1480580470757954e+248, -2.7514104917195157e+247,
                                 4.0240564520486488e+246, -5.4434760366822627e+247, 1.6848368381315323e+246,
                                 3.6992147058843068e+247, -5.1118748171628565e+247, 2.3460540255309292e+247};
    static const double hb[3] = {6.9115312494733777e+247, 9.1071869261928788e+247, 2.8732550599009646e+239};
    static const double pb[3] = {7.1467379215695114e+247, -1.4976248277074075e+248, -1.8988086513704224e+247};
    static const double qb[4] = {-0.57123078493761625, 0.081973380110125588, 0.81638587809044982, 0.022132630827835793};
    for (int e = 0; e >= -826; e -= 826) {
        flat_query Q;
        memset(&Q, 0, sizeof Q);
        Q.na = 5;
        for (int i = 0; i < 15; i++)
            Q.a[i] = ldexp(a[i], e);
        for (int k = 0; k < 3; k++) {
            Q.hb[k] = ldexp(hb[k], e);
            Q.pb[k] = ldexp(pb[k], e);
        }
        memcpy(Q.qb, qb, sizeof qb);
        flat_box_corners(&Q);
        /* the box, then its corners as a polytope of 8 vertices against A
         * as it is, and as 20 and 32 vertices (its 5 listed again): the
         * pair loop's rows of up to 15 and of 16 to 32 vertices (the near
         * tie is decided on A's side) */
        for (int form = 0; form < 4; form++) {
            if (form > 0) {
                Q.box = 0;
                Q.nb = 8;
                Q.na = form == 1 ? 5 : form == 2 ? 20 : 32;
                for (int i = 5; i < Q.na; i++)
                    memcpy(Q.a + 3 * i, Q.a + 3 * (i % 5), sizeof(double) * 3);
            }
            fam_stats st = {0};
            st.witness = 1;
            char msg[512] = "";
            int bad = flat_check(&Q, &st, msg, sizeof msg);
            fprintf(stderr, "box near tie at 2^%d (%s): worst %.2f eps L\n", e,
                    form == 0 ? "box" : form == 1 ? "8 corners" : form == 2 ? "8 corners, A 20" : "8 corners, A 32", st.worst);
            ck_assert_msg(!bad, "box near tie at 2^%d (form %d): %s", e, form, msg);
        }
    }
}
END_TEST

/* Polyhedra (qhull, Cundall, Nezami, Peng-Hanley, the intersection volume)
 * at 1e-300..1e300: cubes of half-size s, B at x = 2 s + g s / 2, signed
 * distance g s / 2; the overlap (g = -1) is a slab 0.5 s x 2 s x 2 s: volume
 * 2 s^3 (inf beyond the double range), area half its surface, 6 s^2. */
START_TEST(test_polyhedron_magnitudes)
{
    const double scales[] = {1e-300, 1e-200, 1e-150, 1, 1e150, 1e200, 1e300};
    for (int i = 0; i < 7; i++) {
        double s = scales[i];
        for (int g = -1; g <= 1; g++) {
            double va[24], vb[24];
            for (int k = 0; k < 8; k++)
                for (int j = 0; j < 3; j++) {
                    double sg = (k >> j) & 1 ? 1.0 : -1.0;
                    va[3 * k + j] = sg * s;
                    vb[3 * k + j] = sg * s + (j == 0 ? 2 * s + g * s / 2 : 0);
                }
            rve_polyhedron *A = NULL, *B = NULL;
            rve_err err;
            ck_assert_msg(rve_polyhedron_alloc(&A, va, 8, &err) == RVE_OK, "alloc at %g: %s", s, err.msg);
            ck_assert_int_eq(rve_polyhedron_alloc(&B, vb, 8, &err), RVE_OK);
            ck_assert_msg(fabs(A->radius - sqrt(3.0) * s) <= 1e-15 * s, "radius at %g: %g", s, A->radius);
            double ex = g * s / 2;
            rve_contact c;
            ck_assert_int_eq(rve_contact_cundall(A, B, &c, &err), RVE_OK);
            ck_assert_msg(fabs(c.s - ex) <= 1e-12 * s && fabs(c.n[0] - 1) < 1e-12, "cundall at %g g %d: s = %g", s,
                          g, c.s);
            ck_assert_int_eq(rve_contact_nezami(A, B, &c, &err), RVE_OK);
            ck_assert_msg(fabs(c.s - ex) <= 1e-12 * s && fabs(c.n[0] - 1) < 1e-12, "nezami at %g g %d: s = %g", s,
                          g, c.s);
            rve_shape S;
            double pos[3] = {2 * s + g * s / 2, 0, 0}, q[4] = {1, 0, 0, 0};
            rve_shape_superquadric(&S, s, s, s, 4, 4);
            rve_shape_set_pose(&S, pos, q);
            ck_assert_int_eq(rve_contact_polyhedron_superquadric(A, &S, &c, NULL, &err), RVE_OK);
            ck_assert_msg(fabs(c.s - ex) <= 1e-9 * s && fabs(c.n[0] - 1) < 1e-9,
                          "peng-hanley at %g g %d: s = %g n %g %g %g", s, g, c.s, c.n[0], c.n[1], c.n[2]);
            if (g < 0) {
                rve_intersection X;
                ck_assert_int_eq(rve_polyhedra_intersection(A, B, &X, NULL, &err), RVE_OK);
                double vol = 2 * s * s * s, area = 6 * s * s;
                if (isfinite(vol) && vol > 1e-300)
                    ck_assert_msg(fabs(X.volume - vol) <= 1e-12 * vol, "volume at %g: %g", s, X.volume);
                else if (!isfinite(vol))
                    ck_assert_msg(isinf(X.volume), "volume at %g: %g, wanted inf", s, X.volume);
                if (isfinite(area) && area > 1e-300)
                    ck_assert_msg(fabs(X.area - area) <= 1e-12 * area, "area at %g: %g", s, X.area);
                ck_assert_msg(fabs(X.point[0] - 0.75 * s) <= 1e-12 * s, "contact point at %g: %g", s, X.point[0]);
            }
            rve_polyhedron_free(A);
            rve_polyhedron_free(B);
        }
    }
}
END_TEST

/* The first search direction of a bare vertex array (identity pose, world
 * coordinates): dist_sample_mid is the box centre of the sampled vertices
 * (all up to 16, else those at floor(k nv / 16), k = 0..15), checked against
 * a brute-force box over the same indices computed in floating point; it
 * stays finite at 1.7e308.  And the start it gives: sphere-like hulls of 32
 * vertices around random centres 10 sizes from the origin, B one diameter
 * away, take at most 2.75 GJK iterations per query on average (2.36 from
 * the middles; the first vertices' difference takes 3.12 on these pairs),
 * with the same distances as the same pairs posed (body origin = centre). */
START_TEST(test_first_direction)
{
    rng_seed(1717);
    static double V[3 * 300];
    for (int t = 0; t < 3000; t++) {
        int nv = 1 + (int)(urand() * 300);
        double big = t % 10 == 0 ? 1.7e308 : 1.0;
        for (int i = 0; i < 3 * nv; i++)
            V[i] = big * (2 * urand() - 1);
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; k < (nv < 16 ? nv : 16); k++) {
            int i = nv <= 16 ? k : (int)floor((double)k * nv / 16.0);
            for (int j = 0; j < 3; j++) {
                lo[j] = fmin(lo[j], V[3 * i + j]);
                hi[j] = fmax(hi[j], V[3 * i + j]);
            }
        }
        double m[3];
        dist_sample_mid(V, nv, m);
        for (int j = 0; j < 3; j++)
            ck_assert_msg(m[j] == 0.5 * lo[j] + 0.5 * hi[j] && isfinite(m[j]), "nv %d: mid %.17g, box %.17g %.17g", nv,
                          m[j], lo[j], hi[j]);
    }
    enum { NV = 32, NP = 300 };
    static double body[2][3 * NV], wa[3 * NV], wb[3 * NV];
    long iters = 0;
    for (int t = 0; t < NP; t++) {
        double ca[3], cb[3], u[3];
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < NV; i++)
                rand_unit(body[b] + 3 * i);
        rand_unit(u);
        rand_unit(ca);
        for (int k = 0; k < 3; k++) {
            ca[k] *= 10;
            cb[k] = ca[k] + 4 * u[k];
        }
        for (int i = 0; i < NV; i++)
            for (int k = 0; k < 3; k++) {
                wa[3 * i + k] = body[0][3 * i + k] + ca[k];
                wb[3 * i + k] = body[1][3 * i + k] + cb[k];
            }
        rve_shape A, B, PA, PB;
        rve_shape_polytope(&A, wa, NV, NULL);
        rve_shape_polytope(&B, wb, NV, NULL);
        rve_shape_polytope(&PA, body[0], NV, NULL);
        rve_shape_polytope(&PB, body[1], NV, NULL);
        static const double qid[4] = {1, 0, 0, 0};
        rve_shape_set_pose(&PA, ca, qid);
        rve_shape_set_pose(&PB, cb, qid);
        rve_dist_result r, rp;
        rve_gjk_dist(&A, &B, NULL, NULL, &r);
        rve_gjk_dist(&PA, &PB, NULL, NULL, &rp);
        ck_assert_int_eq(r.status, RVE_GJK_CONVERGED);
        ck_assert_msg(fabs(r.d - rp.d) <= 100 * EPS * 15, "pair %d: world %.17g, posed %.17g", t, r.d, rp.d);
        iters += r.iterations;
    }
    double mean = (double)iters / NP;
    printf("first direction: %.2f GJK iterations per query (32-vertex bare arrays, distant)\n", mean);
    ck_assert_msg(mean <= 2.75, "%.2f iterations per query", mean);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("dist_robust");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_exact_predicates);
    tcase_add_test(tc, test_exact_full_mantissa);
    tcase_add_test(tc, test_issue_example);
    tcase_add_test(tc, test_magnitudes);
    tcase_add_test(tc, test_contact_magnitudes);
    tcase_add_test(tc, test_polyhedron_magnitudes);
    tcase_add_test(tc, test_stress_regressions);
    tcase_add_test(tc, test_near_vertex);
    tcase_add_test(tc, test_lean_path);
    tcase_add_test(tc, test_first_direction);
    tcase_add_test(tc, test_flat_point);
    tcase_add_test(tc, test_flat_pair);
    tcase_add_test(tc, test_flat_posed);
    tcase_add_test(tc, test_flat_rows32);
    tcase_add_test(tc, test_flat_box);
    tcase_add_test(tc, test_box_near_tie);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(suite()); }
