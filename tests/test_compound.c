/* Tests of the intrinsic hierarchy (compound bodies, issue 22): every
 * hierarchy query against brute force over all piece pairs (the convex
 * kernels on each pair, no tree), and against closed forms for compounds
 * of spheres. */
#include "config.h"
#include "testutil.h"
#include <rve/dist.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <string.h>

/* ------------------------------------------------------------ helpers */
typedef struct {
    uint64_t s;
} rng;

static double urand(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (double)(r->s >> 11) * (1.0 / 9007199254740992.0);
}

static double nrand(rng *r)
{
    double u = urand(r) + 1e-300, v = urand(r);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void rquat(rng *r, double q[4])
{
    double n = 0;
    for (int k = 0; k < 4; k++) {
        q[k] = nrand(r);
        n += q[k] * q[k];
    }
    n = sqrt(n);
    for (int k = 0; k < 4; k++)
        q[k] /= n;
}

/* A random compound: n pieces in a ball of radius ~1 (a grain-like cluster).
 * kinds: 0 polytopes only, 1 spheres only, 2 mixed smooth and polytopes. */
typedef struct {
    rve_shape *s;
    double *verts;
    size_t n;
} pieces;

static void make_pieces(rng *r, size_t n, int kinds, pieces *P)
{
    P->n = n;
    P->s = malloc(n * sizeof *P->s);
    P->verts = malloc(n * 16 * 3 * sizeof(double));
    double size = 0.6 / cbrt((double)n) + 0.05;
    for (size_t i = 0; i < n; i++) {
        double c[3], q[4];
        double rr = cbrt(urand(r));
        double dir[3] = {nrand(r), nrand(r), nrand(r)}, dn = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        for (int k = 0; k < 3; k++)
            c[k] = rr * dir[k] / dn;
        rquat(r, q);
        int kind = kinds == 0 ? 0 : kinds == 1 ? 1 : (int)(urand(r) * 5);
        rve_shape *s = &P->s[i];
        double a = size * (0.5 + urand(r)), b = size * (0.5 + urand(r)), cc = size * (0.5 + urand(r));
        switch (kind) {
        case 0: {
            double *v = P->verts + 48 * i;
            for (int k = 0; k < 16; k++)
                for (int a3 = 0; a3 < 3; a3++)
                    v[3 * k + a3] = size * nrand(r) * 0.6;
            rve_shape_polytope(s, v, 16, NULL);
            break;
        }
        case 1: {
            const double o[3] = {0, 0, 0};
            rve_shape_sphere(s, o, a);
            break;
        }
        case 2: rve_shape_ellipsoid(s, a, b, cc); break;
        case 3: rve_shape_box(s, a, b, cc); break;
        default: rve_shape_superquadric(s, a, b, cc, 2 + 6 * urand(r), 2 + 6 * urand(r)); break;
        }
        rve_shape_set_pose(s, c, q);
    }
}

static void free_pieces(pieces *P)
{
    free(P->s);
    free(P->verts);
}

/* piece k of a body posed by p, built here (not by the library) */
static void posed(const pieces *P, const rve_pose *p, size_t k, rve_shape *out)
{
    *out = P->s[k];
    /* world = R(p) (R(k) x + t_k) + t_p: compose with the quaternion product */
    const double *a = p->quat, *b = P->s[k].quat;
    double q[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    /* rotate t_k by p: v + 2w(u x v) + 2u x (u x v) */
    const double *v = P->s[k].pos, *u = a + 1;
    double w = a[0];
    double uv[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    double uuv[3] = {u[1] * uv[2] - u[2] * uv[1], u[2] * uv[0] - u[0] * uv[2], u[0] * uv[1] - u[1] * uv[0]};
    double pos[3];
    for (int i = 0; i < 3; i++)
        pos[i] = v[i] + 2 * w * uv[i] + 2 * uuv[i] + p->pos[i];
    rve_shape_set_pose(out, pos, q);
}

static void rpose(rng *r, double dist, rve_pose *p)
{
    double dir[3] = {nrand(r), nrand(r), nrand(r)}, dn = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    for (int k = 0; k < 3; k++)
        p->pos[k] = dist * dir[k] / dn;
    rquat(r, p->quat);
}

/* brute force over all piece pairs */
static double brute_dist(const pieces *A, const rve_pose *pa, const pieces *B, const rve_pose *pb, size_t *ia,
                         size_t *ib)
{
    double best = INFINITY;
    for (size_t i = 0; i < A->n; i++)
        for (size_t j = 0; j < B->n; j++) {
            rve_shape sa, sb;
            posed(A, pa, i, &sa);
            posed(B, pb, j, &sb);
            rve_dist_result r;
            rve_gjk_dist(&sa, &sb, NULL, NULL, &r);
            if (r.d < best) {
                best = r.d;
                *ia = i;
                *ib = j;
            }
        }
    return best;
}

static double pair_dist(const pieces *A, const rve_pose *pa, size_t i, const pieces *B, const rve_pose *pb,
                        size_t j)
{
    rve_shape sa, sb;
    posed(A, pa, i, &sa);
    posed(B, pb, j, &sb);
    rve_dist_result r;
    rve_gjk_dist(&sa, &sb, NULL, NULL, &r);
    return r.d;
}

/* ------------------------------------------------------------ tests */
/* Distance: the minimum over all piece pairs to 100 eps L, and the pair the
 * hierarchy reports realises it (the pruning never drops the closest pair).
 * Also with a cache over a short random walk (warm starts, coherence). */
START_TEST(test_dist_vs_brute_force)
{
    rng r = {0x9e3779b97f4a7c15ull};
    static const size_t sizes[] = {10, 37, 80, 200};
    int reps = (int)(6 * test_scale()) + 1;
    long calls = 0, brute_calls = 0;
    for (int si = 0; si < 4; si++)
        for (int rep = 0; rep < reps; rep++) {
            size_t n = sizes[si];
            pieces PA, PB;
            make_pieces(&r, n, rep % 3 == 1 ? 0 : 2, &PA);
            make_pieces(&r, n / 2 + 3, 2, &PB);
            rve_compound *A, *B;
            rve_err e;
            ck_assert_int_eq(rve_compound_build(PA.s, PA.n, &A, &e), RVE_OK);
            ck_assert_int_eq(rve_compound_build(PB.s, PB.n, &B, &e), RVE_OK);
            rve_compound_cache cache;
            rve_compound_cache_init(&cache);
            rve_pose pa, pb;
            rpose(&r, 0, &pa);
            rpose(&r, 1.5 + 2.5 * urand(&r), &pb);
            for (int step = 0; step < 4; step++) {
                if (step > 0) /* a small motion: the cached pair stays a good guess */
                    for (int k = 0; k < 3; k++)
                        pb.pos[k] += 0.05 * nrand(&r);
                rve_compound_result res;
                ck_assert_int_eq(rve_compound_dist(A, &pa, B, &pb, step ? &cache : NULL, &res, &e), RVE_OK);
                if (step == 0) /* fill the cache too */
                    ck_assert_int_eq(rve_compound_dist(A, &pa, B, &pb, &cache, &res, &e), RVE_OK);
                size_t bi = 0, bj = 0;
                double db = brute_dist(&PA, &pa, &PB, &pb, &bi, &bj);
                double L = 4 + 2 * fabs(pb.pos[0]) + 2 * fabs(pb.pos[1]) + 2 * fabs(pb.pos[2]);
                double tol = 100 * DBL_EPSILON * L;
                ck_assert_msg(fabs(res.d - db) <= tol, "n %zu rep %d step %d: hierarchy %.17g brute %.17g", n,
                              rep, step, res.d, db);
                /* the reported pair realises the minimum */
                ck_assert(fabs(pair_dist(&PA, &pa, res.ia, &PB, &pb, res.ib) - db) <= tol);
                /* witnesses on the reported pieces are d apart */
                double w = sqrt((res.p[0] - res.q[0]) * (res.p[0] - res.q[0]) +
                                (res.p[1] - res.q[1]) * (res.p[1] - res.q[1]) +
                                (res.p[2] - res.q[2]) * (res.p[2] - res.q[2]));
                ck_assert(fabs(w - res.d) <= 1e-9 * L);
                calls += res.gjk_calls;
                brute_calls += (long)(PA.n * PB.n);
            }
            rve_compound_free(A);
            rve_compound_free(B);
            free_pieces(&PA);
            free_pieces(&PB);
        }
    /* the hierarchy must prune: far fewer kernel calls than all pairs */
    ck_assert_msg(calls * 5 < brute_calls, "hierarchy %ld GJK calls, all pairs %ld", calls, brute_calls);
}
END_TEST

/* Compounds of spheres: distance, overlap count and the deepest overlap in
 * closed form (centre distances in long double). */
START_TEST(test_spheres_closed_form)
{
    rng r = {12345};
    int reps = (int)(20 * test_scale()) + 2;
    for (int rep = 0; rep < reps; rep++) {
        size_t n = 10 + (size_t)(urand(&r) * 190);
        pieces PA, PB;
        make_pieces(&r, n, 1, &PA);
        make_pieces(&r, 10 + (size_t)(urand(&r) * 50), 1, &PB);
        rve_compound *A, *B;
        rve_err e;
        ck_assert_int_eq(rve_compound_build(PA.s, PA.n, &A, &e), RVE_OK);
        ck_assert_int_eq(rve_compound_build(PB.s, PB.n, &B, &e), RVE_OK);
        rve_pose pa, pb;
        rpose(&r, 0, &pa);
        rpose(&r, 0.5 + 3 * urand(&r), &pb);
        long double best = INFINITY;
        size_t noverlap = 0;
        for (size_t i = 0; i < PA.n; i++)
            for (size_t j = 0; j < PB.n; j++) {
                rve_shape sa, sb;
                posed(&PA, &pa, i, &sa);
                posed(&PB, &pb, j, &sb);
                long double d2 = 0;
                for (int k = 0; k < 3; k++) {
                    long double dk = (long double)sa.pos[k] - sb.pos[k];
                    d2 += dk * dk;
                }
                long double g = sqrtl(d2) - sa.radius - sb.radius;
                if (g < best)
                    best = g;
                if (g < -1e-12)
                    noverlap++;
            }
        rve_compound_result res;
        ck_assert_int_eq(rve_compound_dist(A, &pa, B, &pb, NULL, &res, &e), RVE_OK);
        double exact = best > 0 ? (double)best : 0;
        ck_assert_msg(fabs(res.d - exact) <= 1e-12, "rep %d: %.17g vs %.17g", rep, res.d, exact);
        int hit = rve_compound_intersect(A, &pa, B, &pb, NULL, NULL);
        ck_assert_int_eq(hit, best <= 0);
        rve_compound_contact deep;
        size_t nall = 0;
        rve_status st = rve_compound_penetration(A, &pa, B, &pb, NULL, &deep, NULL, 0, &nall, NULL, &e);
        ck_assert_int_eq(st, RVE_OK);
        ck_assert_msg(fabs(deep.c.s - (double)best) <= 1e-9, "rep %d: deepest %.17g exact %.17Lg", rep, deep.c.s,
                      best);
        if (best < -1e-9)
            ck_assert_msg(nall == noverlap, "rep %d: %zu contacts, %zu overlapping pairs", rep, nall, noverlap);
        rve_compound_free(A);
        rve_compound_free(B);
        free_pieces(&PA);
        free_pieces(&PB);
    }
}
END_TEST

/* Intersection and penetration against all piece pairs; the Eq. 3.14 cache
 * never answers "separated" for overlapping bodies. */
START_TEST(test_intersect_penetration_vs_brute_force)
{
    rng r = {777};
    int reps = (int)(12 * test_scale()) + 2;
    int hits = 0, cached = 0;
    for (int rep = 0; rep < reps; rep++) {
        size_t n = 10 + (size_t)(urand(&r) * 90);
        pieces PA, PB;
        make_pieces(&r, n, rep % 2 ? 0 : 2, &PA);
        make_pieces(&r, 20, rep % 2 ? 0 : 2, &PB);
        rve_compound *A, *B;
        rve_err e;
        ck_assert_int_eq(rve_compound_build(PA.s, PA.n, &A, &e), RVE_OK);
        ck_assert_int_eq(rve_compound_build(PB.s, PB.n, &B, &e), RVE_OK);
        rve_pose pa, pb;
        rpose(&r, 0, &pa);
        rpose(&r, 2.6, &pb);
        rve_compound_cache cache;
        rve_compound_cache_init(&cache);
        rve_compound_result res;
        ck_assert_int_eq(rve_compound_dist(A, &pa, B, &pb, &cache, &res, &e), RVE_OK);
        /* approach in steps: bodies from apart to overlapping */
        for (int step = 0; step < 8; step++) {
            for (int k = 0; k < 3; k++)
                pb.pos[k] *= 0.85;
            int bf = 0;
            double deepest = INFINITY;
            size_t nover = 0;
            for (size_t i = 0; i < PA.n; i++)
                for (size_t j = 0; j < PB.n; j++) {
                    rve_shape sa, sb;
                    posed(&PA, &pa, i, &sa);
                    posed(&PB, &pb, j, &sb);
                    if (rve_gjk_intersect(&sa, &sb, NULL) == 1) {
                        bf = 1;
                        nover++;
                        rve_contact c;
                        rve_status st = rve_contact_epa(&sa, &sb, NULL, &c, &e);
                        ck_assert(st == RVE_OK || st == RVE_ECAP);
                        deepest = fmin(deepest, fmin(c.s, 0));
                    }
                }
            rve_compound_result st1;
            int h = rve_compound_intersect(A, &pa, B, &pb, &cache, &st1);
            ck_assert_msg(h == bf, "rep %d step %d: hierarchy %d brute %d", rep, step, h, bf);
            cached += st1.cached;
            hits += h;
            rve_compound_contact deep, all[64];
            size_t nall = 0;
            rve_status st = rve_compound_penetration(A, &pa, B, &pb, NULL, &deep, all, 64, &nall, NULL, &e);
            ck_assert(st == RVE_OK || st == RVE_ECAP);
            ck_assert_int_eq(nall, nover);
            if (bf) {
                ck_assert_msg(fabs(deep.c.s - deepest) <= 1e-9, "deepest %.17g brute %.17g", deep.c.s, deepest);
                for (size_t k = 0; k < nall && k < 64; k++)
                    ck_assert(all[k].c.s <= 0 && all[k].c.s >= deep.c.s);
            } else {
                size_t bi, bj;
                ck_assert(fabs(deep.c.s - brute_dist(&PA, &pa, &PB, &pb, &bi, &bj)) <= 1e-12);
            }
        }
        rve_compound_free(A);
        rve_compound_free(B);
        free_pieces(&PA);
        free_pieces(&PB);
    }
    ck_assert(hits > 0);
    ck_assert(cached > 0); /* Eq. 3.14 did answer some queries */
}
END_TEST

START_TEST(test_errors)
{
    rve_compound *C = NULL;
    rve_err e;
    ck_assert_int_eq(rve_compound_build(NULL, 0, &C, &e), RVE_EDATA);
    ck_assert_ptr_null(C);
    rve_shape s;
    rve_shape_ellipsoid(&s, -1, 1, 1);
    ck_assert_int_eq(rve_compound_build(&s, 1, &C, &e), RVE_EDATA);
    rve_shape_ellipsoid(&s, 1, 1, 1);
    ck_assert_int_eq(rve_compound_build(&s, 1, &C, &e), RVE_OK);
    rve_pose p = {{0, 0, 0}, {0, 0, 0, 0}}, p2 = {{3, 0, 0}, {1, 0, 0, 0}};
    rve_compound_result res;
    ck_assert_int_eq(rve_compound_dist(C, &p, C, &p2, NULL, &res, &e), RVE_EDATA);
    p.quat[0] = 1;
    ck_assert_int_eq(rve_compound_dist(C, &p, C, &p2, NULL, &res, &e), RVE_OK);
    ck_assert(fabs(res.d - 1) < 1e-12);
    rve_compound_free(C);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("compound");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_spheres_closed_form);
    tcase_add_test(tc, test_dist_vs_brute_force);
    tcase_add_test(tc, test_intersect_penetration_vs_brute_force);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
