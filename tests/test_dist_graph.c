/* test_dist_graph - the hill-climbing graph that rve_polyhedron_alloc builds
 * from the hull's edges (and rve_polyhedron_transform rebuilds for its copy):
 * present exactly above DIST_GRAPH_MIN_NV vertices, the support it finds
 * attains the brute-force maximum d.v bit for bit from any start vertex, and
 * the kernels that take polyhedra (EPA) give the answers of the graph-free
 * shapes against the independent separating-axis oracle. */
#include "config.h"
#include "testutil.h"
#include <rve/dist.h>
#include "dist_rng.h"
#include "contact_oracle.h"
#include "dist/dist_internal.h"
#include <float.h>
#include <math.h>
#include <stdio.h>

/* n points: on the unit sphere (all on the hull), or a cloud with interior points */
static void cloud(double *p, int n, int sphere)
{
    for (int i = 0; i < n; i++) {
        double u[3];
        rand_unit(u);
        double r = sphere ? 1 : cbrt(urand());
        for (int k = 0; k < 3; k++)
            p[3 * i + k] = r * u[k] * (k == 2 ? 0.5 : 1.0);
    }
}

static double brute_max(const rve_polyhedron *P, const double d[3])
{
    double m = -INFINITY;
    for (size_t i = 0; i < P->nv; i++)
        m = fmax(m, P->v[3 * i] * d[0] + P->v[3 * i + 1] * d[1] + P->v[3 * i + 2] * d[2]);
    return m;
}

START_TEST(test_polyhedron_graph)
{
    rng_seed(2611);
    static double pts[3 * 400];
    long queries = 0;
    for (int t = 0; t < 60; t++) {
        int n = 8 + (int)(urand() * 390), sphere = t % 2;
        cloud(pts, n, sphere);
        rve_polyhedron *P = NULL, *Q = NULL;
        rve_err e;
        ck_assert_int_eq(rve_polyhedron_alloc(&P, pts, (size_t)n, &e), RVE_OK);
        double q[4], tr[3] = {3, -1, 2};
        rand_quat(q);
        ck_assert_int_eq(rve_polyhedron_transform(&Q, P, q, tr, &e), RVE_OK);
        const rve_polyhedron *H[2] = {P, Q};
        for (int h = 0; h < 2; h++) {
            const rve_polyhedron *X = H[h];
            int want = X->nv > DIST_GRAPH_MIN_NV;
            ck_assert_msg((X->graph.nv == (int)X->nv) == want && (X->graph.off != NULL) == want,
                          "%zu vertices: graph of %d", X->nv, X->graph.nv);
            if (!want)
                continue;
            ck_assert(h == 0 || X->graph.off != P->graph.off); /* the copy owns its own */
            rve_shape s;
            rve_shape_polytope(&s, X->v, (int)X->nv, &X->graph);
            ck_assert(s.graph == &X->graph);
            for (int k = 0; k < 500; k++) {
                double d[3], out[3];
                rand_unit(d);
                int hint = (int)(urand() * (double)X->nv);
                dist_support_body(&s, d, out, &hint);
                double got = out[0] * d[0] + out[1] * d[1] + out[2] * d[2];
                ck_assert_msg(got == brute_max(X, d), "%zu vertices: hill climbing %.17g, brute force %.17g", X->nv,
                              got, brute_max(X, d));
                queries++;
            }
        }
        rve_polyhedron_free(Q);
        rve_polyhedron_free(P);
    }
    fprintf(stderr, "polyhedron graph: %ld support queries equal to the brute-force maximum\n", queries);
}
END_TEST

/* EPA on polyhedra (their graphs) against the separating-axis oracle and
 * against EPA on graph-free shapes of the same vertices */
START_TEST(test_polyhedron_epa)
{
    rng_seed(2612);
    static double pa[3 * 300], pb[3 * 300];
    double worst = 0;
    int n_pairs = 0;
    for (int t = 0; t < 40; t++) {
        int na = 33 + (int)(urand() * 250), nb = 33 + (int)(urand() * 250);
        cloud(pa, na, t % 2);
        cloud(pb, nb, t % 3 == 0);
        double u[3];
        rand_unit(u);
        for (int i = 0; i < nb; i++)
            for (int k = 0; k < 3; k++)
                pb[3 * i + k] += 1.2 * u[k];
        rve_polyhedron *A = NULL, *B = NULL;
        rve_err e;
        ck_assert_int_eq(rve_polyhedron_alloc(&A, pa, (size_t)na, &e), RVE_OK);
        ck_assert_int_eq(rve_polyhedron_alloc(&B, pb, (size_t)nb, &e), RVE_OK);
        rve_contact c1, c2;
        rve_status s1 = rve_contact_epa_polyhedra(A, B, NULL, &c1, &e);
        rve_shape sa, sb;
        rve_shape_polytope(&sa, A->v, (int)A->nv, NULL);
        rve_shape_polytope(&sb, B->v, (int)B->nv, NULL);
        rve_status s2 = rve_contact_epa(&sa, &sb, NULL, &c2, &e);
        ck_assert_int_eq(s1, RVE_OK);
        ck_assert_int_eq(s2, RVE_OK);
        oracle_poly oa, ob;
        ck_assert_int_eq(oracle_poly_build(&oa, pa, (size_t)na), 0);
        ck_assert_int_eq(oracle_poly_build(&ob, pb, (size_t)nb), 0);
        oracle_result r;
        oracle_contact(&oa, &ob, 0, &r);
        oracle_poly_free(&oa);
        oracle_poly_free(&ob);
        double err = fabs(c1.s - (double)r.s);
        worst = fmax(worst, err);
        ck_assert_msg(err <= 1e-12 && fabs(c1.s - c2.s) <= 1e-12, "pair %d: s %.17g (no graph %.17g), oracle %.17Lg", t,
                      c1.s, c2.s, r.s);
        n_pairs++;
        rve_polyhedron_free(A);
        rve_polyhedron_free(B);
    }
    fprintf(stderr, "polyhedron EPA: %d pairs, signed distance within %.3g of the separating-axis oracle\n", n_pairs, worst);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("dist_graph");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_polyhedron_graph);
    tcase_add_test(tc, test_polyhedron_epa);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(suite()); }
