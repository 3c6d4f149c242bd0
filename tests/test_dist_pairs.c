/* Random polytope pairs (4 to 500 vertices, scales 1e-6 to 1e6; separated,
 * touching within 1e-12, overlapping) against the brute-force closest-feature
 * oracle in long double; degenerate inputs; Johnson's sub-algorithm on the
 * same queries. */
#include "config.h"
#include "testutil.h"
#include <rve/dist.h>
#include "dist_oracle.h"
#include "dist_rng.h"
#include <float.h>
#include <math.h>

#define EPS DBL_EPSILON

static void cloud(double *v, int n, double scale, int kind, const double c[3])
{
    double ax[3] = {1.0, 0.3 + urand(), 0.2 + 1.5 * urand()};
    for (int i = 0; i < n; i++) {
        double u[3];
        rand_unit(u);
        double r = kind == 0 ? 1.0 : pow(urand(), 1.0 / 3);
        for (int k = 0; k < 3; k++)
            v[3 * i + k] = c[k] + scale * r * ax[k] * u[k];
    }
}

static double maxabs2(const double *a, int na, const double *b, int nb)
{
    double m = 0;
    for (int i = 0; i < 3 * na; i++) m = fmax(m, fabs(a[i]));
    for (int i = 0; i < 3 * nb; i++) m = fmax(m, fabs(b[i]));
    return m;
}

static void translate(double *v, int n, const double t[3])
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) v[3 * i + k] += t[k];
}

/* distance from x to the hull of v (0 inside), by the oracle: inside test
 * through the hull triangles' planes in long double */
typedef struct {
    double worst_sv, worst_j, worst_wit;
    long n, miss_j, miss_sv, cap;
} stats;

/* checks one query with both sub-algorithms; exact = NAN means "0 (overlap)" */
static const oracle_set *wit_A, *wit_B; /* when set: check that the witnesses lie on their hulls */

static void check_query(const double *va, int na, const double *vb, int nb, ld exact, const char *what, stats *st)
{
    rve_shape A, B;
    rve_shape_polytope(&A, va, na, NULL);
    rve_shape_polytope(&B, vb, nb, NULL);
    double L = maxabs2(va, na, vb, nb);
    double tol = 100 * EPS * L;
    for (int s = 0; s < 2; s++) {
        rve_gjk_opts o;
        rve_gjk_opts_default(&o);
        o.sub = s ? RVE_SUB_JOHNSON : RVE_SUB_SV;
        rve_dist_result r;
        rve_gjk_status gs = rve_gjk_dist(&A, &B, &o, NULL, &r);
        double err = fabs(r.d - (double)exact);
        int bad = !(err <= tol) || gs == RVE_GJK_CAP || gs == RVE_GJK_DEGENERATE ||
                  !(fabs(sqrt((r.p[0] - r.q[0]) * (r.p[0] - r.q[0]) + (r.p[1] - r.q[1]) * (r.p[1] - r.q[1]) +
                              (r.p[2] - r.q[2]) * (r.p[2] - r.q[2])) - r.d) <= tol);
        if (s == 0) {
            st->worst_sv = fmax(st->worst_sv, err / (EPS * L));
            if (gs == RVE_GJK_CAP) st->cap++;
            if (bad) {
                st->miss_sv++;
                ck_assert_msg(0, "%s: SV d = %.17g exact %.17Lg (%.1f eps L, L %g) status %d it %d", what, r.d, exact,
                              err / (EPS * L), L, gs, r.iterations);
            }
            /* witnesses lie on their bodies' boundaries (within the bound) */
            if (wit_A && wit_B && exact > 0) {
                ld qq[3];
                double ea = sqrt((double)oracle_point_set(r.p, wit_A, qq, INFINITY));
                double eb = sqrt((double)oracle_point_set(r.q, wit_B, qq, INFINITY));
                st->worst_wit = fmax(st->worst_wit, fmax(ea, eb) / (EPS * L));
                ck_assert_msg(ea <= tol && eb <= tol, "%s: witnesses off their bodies by %g, %g", what, ea, eb);
            }
        } else {
            st->worst_j = fmax(st->worst_j, isfinite(err) ? err / (EPS * L) : INFINITY);
            if (bad) st->miss_j++;
        }
    }
    st->n++;
}

START_TEST(test_random_pairs)
{
    rng_seed(777);
    int npairs = (int)(120 * test_scale());
    if (npairs < 8) npairs = 8;
    stats st = {0};
    double *va = malloc(sizeof(double) * 3 * 500), *vb = malloc(sizeof(double) * 3 * 500);
    for (int t = 0; t < npairs; t++) {
        int na = 4 + (int)(pow(urand(), 2.5) * 497), nb = 4 + (int)(pow(urand(), 2.5) * 497);
        double scale = pow(10, -6 + 12 * urand());
        double ca[3], cb[3];
        rand_unit(ca);
        for (int k = 0; k < 3; k++) { ca[k] *= scale * 3 * urand(); cb[k] = 0; }
        cloud(va, na, scale, t & 1, ca);
        cloud(vb, nb, scale * (0.2 + 2 * urand()), (t >> 1) & 1, cb);
        /* separate along a random axis by a random gap */
        double u[3], hA = -INFINITY, lB = INFINITY;
        rand_unit(u);
        for (int i = 0; i < na; i++) hA = fmax(hA, u[0] * va[3 * i] + u[1] * va[3 * i + 1] + u[2] * va[3 * i + 2]);
        for (int i = 0; i < nb; i++) lB = fmin(lB, u[0] * vb[3 * i] + u[1] * vb[3 * i + 1] + u[2] * vb[3 * i + 2]);
        double gap = scale * (0.05 + 2 * urand()), sh = gap + hA - lB;
        double tr[3] = {u[0] * sh, u[1] * sh, u[2] * sh};
        translate(vb, nb, tr);
        oracle_set A, B;
        oracle_set_init(&A, va, na);
        oracle_set_init(&B, vb, nb);
        ld pa[3], pb[3];
        ld d0 = oracle_set_set(&A, &B, pa, pb);
        char what[128];
        snprintf(what, sizeof what, "pair %d (%d, %d vertices, scale %.3g) distant", t, na, nb, scale);
        wit_A = &A;
        wit_B = &B;
        check_query(va, na, vb, nb, d0, what, &st);
        /* touching within 1e-12: move B along the witness direction */
        double n[3] = {(double)((pa[0] - pb[0]) / d0), (double)((pa[1] - pb[1]) / d0), (double)((pa[2] - pb[2]) / d0)};
        double t1 = (double)d0 - 1e-12 * scale;
        double m1[3] = {n[0] * t1, n[1] * t1, n[2] * t1};
        translate(vb, nb, m1);
        oracle_set_free(&B);
        oracle_set_init(&B, vb, nb);
        ld d1 = oracle_set_set(&A, &B, pa, pb);
        snprintf(what, sizeof what, "pair %d (%d, %d vertices, scale %.3g) touching", t, na, nb, scale);
        wit_B = &B;
        check_query(va, na, vb, nb, d1, what, &st);
        wit_A = wit_B = NULL;
        /* overlapping by 2e-12 along the witness direction: overlap is decided
         * by the separating-axis oracle (small sets only) */
        double m2[3] = {n[0] * 3e-12 * scale, n[1] * 3e-12 * scale, n[2] * 3e-12 * scale};
        translate(vb, nb, m2);
        if (na <= 80 && nb <= 80) {
            oracle_set_free(&B);
            oracle_set_init(&B, vb, nb);
            ld d2 = oracle_sat_separated(&A, &B) ? oracle_set_set(&A, &B, pa, pb) : 0;
            snprintf(what, sizeof what, "pair %d (%d, %d vertices, scale %.3g) overlap 2e-12", t, na, nb, scale);
            check_query(va, na, vb, nb, d2, what, &st);
        }
        /* deep overlap: a point of B's hull (its vertex mean) moved onto A's vertex mean */
        double ma[3] = {0, 0, 0}, mb[3] = {0, 0, 0};
        for (int i = 0; i < na; i++) for (int k = 0; k < 3; k++) ma[k] += va[3 * i + k] / na;
        for (int i = 0; i < nb; i++) for (int k = 0; k < 3; k++) mb[k] += vb[3 * i + k] / nb;
        double m3[3] = {ma[0] - mb[0], ma[1] - mb[1], ma[2] - mb[2]};
        translate(vb, nb, m3);
        snprintf(what, sizeof what, "pair %d (%d, %d vertices, scale %.3g) overlap", t, na, nb, scale);
        check_query(va, na, vb, nb, 0, what, &st);
        oracle_set_free(&A);
        oracle_set_free(&B);
    }
    free(va);
    free(vb);
    fprintf(stderr,
            "random pairs: %ld queries; SV worst %.2f eps L, %ld over 100 eps L, %ld caps, witnesses within %.2f eps L; "
            "Johnson worst %.3g eps L, %ld over 100 eps L\n",
            st.n, st.worst_sv, st.miss_sv, st.cap, st.worst_wit, st.worst_j, st.miss_j);
}
END_TEST

/* Degenerate inputs: duplicated vertices, coplanar and collinear sets, a
 * single point, flat simplices near the origin (gear teeth). */
START_TEST(test_degenerate)
{
    rng_seed(4242);
    stats st = {0};
    int nq = (int)(400 * test_scale());
    if (nq < 40) nq = 40;
    double va[3 * 36], vb[3 * 36];
    for (int t = 0; t < nq; t++) {
        int kind = t % 6;
        double scale = pow(10, -6 + 12 * urand());
        int na = 1 + (int)(urand() * 9), nb = 1 + (int)(urand() * 9);
        double c0[3] = {0, 0, 0};
        cloud(va, na, scale, 1, c0);
        cloud(vb, nb, scale, 1, c0);
        double e1[3], e2[3];
        rand_unit(e1);
        rand_unit(e2);
        if (kind == 0) { /* duplicates */
            for (int i = 0; i < na; i++) memcpy(va + 3 * (na + i), va + 3 * i, sizeof(double) * 3);
            na *= 2;
        } else if (kind == 1 || kind == 5) { /* coplanar (A) / flat plates */
            for (int i = 0; i < na; i++) {
                double a = scale * nrand(), b = scale * nrand();
                for (int k = 0; k < 3; k++) va[3 * i + k] = a * e1[k] + b * e2[k];
            }
            if (kind == 5)
                for (int i = 0; i < nb; i++) {
                    double a = scale * nrand(), b = scale * nrand();
                    for (int k = 0; k < 3; k++) vb[3 * i + k] = a * e1[k] + b * e2[k] + 1e-9 * scale * e2[(k + 1) % 3];
                }
        } else if (kind == 2) { /* collinear */
            for (int i = 0; i < na; i++) {
                double a = scale * nrand();
                for (int k = 0; k < 3; k++) va[3 * i + k] = a * e1[k];
            }
        } else if (kind == 3) { /* single point */
            na = 1;
        } else { /* flat sliver tetrahedra */
            na = 4;
            for (int i = 0; i < 4; i++) {
                double a = scale * nrand(), b = scale * nrand();
                for (int k = 0; k < 3; k++) va[3 * i + k] = a * e1[k] + b * e2[k] + (i == 3 ? 1e-13 * scale * e1[k] : 0);
            }
        }
        /* separate B along a random axis (gap tiny or normal) */
        double u[3], hA = -INFINITY, lB = INFINITY;
        rand_unit(u);
        for (int i = 0; i < na; i++) hA = fmax(hA, u[0] * va[3 * i] + u[1] * va[3 * i + 1] + u[2] * va[3 * i + 2]);
        for (int i = 0; i < nb; i++) lB = fmin(lB, u[0] * vb[3 * i] + u[1] * vb[3 * i + 1] + u[2] * vb[3 * i + 2]);
        double gap = (t & 8) ? 1e-12 * scale : scale * urand(), sh = gap + hA - lB;
        for (int i = 0; i < nb; i++)
            for (int k = 0; k < 3; k++) vb[3 * i + k] += u[k] * sh;
        oracle_set A, B;
        oracle_set_init(&A, va, na);
        oracle_set_init(&B, vb, nb);
        ld pa[3], pb[3];
        ld d0 = oracle_set_set(&A, &B, pa, pb);
        char what[128];
        snprintf(what, sizeof what, "degenerate %d kind %d (%d, %d vertices, scale %.3g)", t, kind, na, nb, scale);
        check_query(va, na, vb, nb, d0, what, &st);
        /* point vs the degenerate set through the fast path */
        double p[3] = {vb[0], vb[1], vb[2]};
        rve_dist_result r;
        double d = rve_dist_point_polytope(p, va, na, NULL, &r);
        ld q[3];
        ld dp = sqrtl(oracle_point_set(p, &A, q, INFINITY));
        double L = maxabs2(va, na, vb, nb);
        ck_assert_msg(fabs(d - (double)dp) <= 100 * EPS * L, "%s: point d = %.17g exact %.17Lg", what, d, dp);
        ck_assert(r.status == RVE_GJK_CONVERGED || r.status == RVE_GJK_INTERSECT);
        oracle_set_free(&A);
        oracle_set_free(&B);
    }
    fprintf(stderr, "degenerate: %ld queries; SV worst %.2f eps L, %ld caps; Johnson worst %.3g eps L, %ld over\n",
            st.n, st.worst_sv, st.cap, st.worst_j, st.miss_j);
}
END_TEST

static Suite *pairs_suite(void)
{
    Suite *s = suite_create("dist_pairs");
    TCase *tc = tcase_create("pairs");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_random_pairs);
    tcase_add_test(tc, test_degenerate);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(pairs_suite()); }
