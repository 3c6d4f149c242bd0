/* Tests of the contact kernels against oracles they do not share code with:
 * the separating-axis oracle (tests/contact_oracle.c, long double), closed forms
 * and exact point classifications. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "contact_oracle.h"
#include "contact_pairs.h"
#include "ph_oracle.h"
#include <rve/dist.h>
#include <float.h>
#include <math.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------ pair helpers */
typedef struct {
    double a[3 * 256], b[3 * 256];
    size_t na, nb;
    rve_polyhedron *A, *B;
    oracle_poly oa, ob;
    oracle_result orc;
    double scale;
} pair_t;

static void pair_free(pair_t *p)
{
    rve_polyhedron_free(p->A);
    rve_polyhedron_free(p->B);
    oracle_poly_free(&p->oa);
    oracle_poly_free(&p->ob);
    p->A = p->B = NULL;
}

/* kinds: 0 random hulls, 1 boxes, 2 tetrahedra, 3 mixed; mode: 0 overlapping at random,
 * 1 grazing (depth ~1e-7 size), 2 deep, 3 separated */
static int pair_make(pair_t *p, cp_rng *r, int kind, int mode)
{
    memset(p, 0, sizeof *p);
    double scale = pow(10, cp_range(r, -4, 4));
    double sb = scale * pow(10, cp_range(r, -0.5, 0.5));
    size_t na = 4 + (size_t)(196 * pow(cp_unif(r), 3)), nb = 4 + (size_t)(196 * pow(cp_unif(r), 3));
    int ka = kind == 3 ? (int)(cp_next(r) % 3) : kind, kb = kind == 3 ? (int)(cp_next(r) % 3) : kind;
    double c0[3] = {0, 0, 0}, u[3], c1[3];
    cp_unit(r, u);
    double dist = mode == 2 ? cp_range(r, 0, 0.8) : mode == 3 ? cp_range(r, 1.6, 3) : cp_range(r, 0.5, 1.6);
    for (int j = 0; j < 3; j++) {
        c0[j] = scale * cp_range(r, -3, 3);
        c1[j] = c0[j] + dist * 0.5 * (scale + sb) * u[j];
    }
    p->na = cp_body(r, ka, na, scale, c0, p->a);
    p->nb = cp_body(r, kb, nb, sb, c1, p->b);
    p->scale = scale > sb ? scale : sb;
    if (oracle_poly_build(&p->oa, p->a, p->na) || oracle_poly_build(&p->ob, p->b, p->nb))
        return -1;
    oracle_contact(&p->oa, &p->ob, 0, &p->orc);
    if (mode == 1 && p->orc.s < 0) {
        /* move B along the oracle normal so that the depth becomes ~1e-7 size */
        double target = 1e-7 * p->scale * cp_range(r, 0.1, 1);
        double shift = (double)(-p->orc.s) - target;
        for (size_t i = 0; i < p->nb; i++)
            for (int j = 0; j < 3; j++)
                p->b[3 * i + j] += shift * (double)p->orc.n[j];
        oracle_poly_free(&p->ob);
        if (oracle_poly_build(&p->ob, p->b, p->nb))
            return -1;
        oracle_contact(&p->oa, &p->ob, 0, &p->orc);
    }
    rve_err e;
    if (rve_polyhedron_alloc(&p->A, p->a, p->na, &e) || rve_polyhedron_alloc(&p->B, p->b, p->nb, &e))
        return -1;
    return 0;
}

static double angle_ld(const double n[3], const long double m[3])
{
    long double c[3] = {n[1] * m[2] - n[2] * m[1], n[2] * m[0] - n[0] * m[2], n[0] * m[1] - n[1] * m[0]};
    long double d = n[0] * m[0] + n[1] * m[1] + n[2] * m[2];
    return (double)atan2l(sqrtl(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), d);
}

/* ------------------------------------------------------------ polyhedron */
START_TEST(test_polyhedron_cube)
{
    double pts[3 * 9];
    for (int i = 0; i < 8; i++) {
        pts[3 * i] = i & 1 ? 2 : 0;
        pts[3 * i + 1] = i & 2 ? 3 : 0;
        pts[3 * i + 2] = i & 4 ? 5 : 0;
    }
    pts[24] = 1;
    pts[25] = 1.5;
    pts[26] = 2.5; /* interior point, dropped */
    rve_polyhedron *P;
    rve_err e;
    ck_assert_int_eq(rve_polyhedron_alloc(&P, pts, 9, &e), RVE_OK);
    ck_assert_uint_eq(P->nv, 8);
    ck_assert_uint_eq(P->nf, 6);
    ck_assert_uint_eq(P->ne, 12);
    ck_assert_double_eq_tol(P->volume, 30, 1e-12);
    ck_assert_double_eq_tol(P->centroid[0], 1, 1e-14);
    ck_assert_double_eq_tol(P->centroid[1], 1.5, 1e-14);
    ck_assert_double_eq_tol(P->centroid[2], 2.5, 1e-14);
    for (size_t f = 0; f < P->nf; f++) {
        const double *pl = P->plane + 4 * f;
        /* outward: centroid strictly inside */
        ck_assert(pl[0] * 1 + pl[1] * 1.5 + pl[2] * 2.5 < pl[3]);
        ck_assert_uint_eq(P->fstart[f + 1] - P->fstart[f], 4);
        /* counter-clockwise loop seen from outside */
        const double *a = P->v + 3 * P->fvert[P->fstart[f]], *b = P->v + 3 * P->fvert[P->fstart[f] + 1],
                     *c = P->v + 3 * P->fvert[P->fstart[f] + 2];
        double x[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, y[3] = {c[0] - b[0], c[1] - b[1], c[2] - b[2]};
        double z[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]};
        ck_assert(z[0] * pl[0] + z[1] * pl[1] + z[2] * pl[2] > 0);
    }
    /* every edge: eface[0] runs edge[0] -> edge[1] */
    for (size_t e2 = 0; e2 < P->ne; e2++) {
        size_t f = P->eface[2 * e2], s = P->fstart[f], m = P->fstart[f + 1] - s;
        int found = 0;
        for (size_t i = 0; i < m; i++)
            if (P->fvert[s + i] == P->edge[2 * e2] && P->fvert[s + (i + 1) % m] == P->edge[2 * e2 + 1])
                found = 1;
        ck_assert(found);
    }
    rve_polyhedron_free(P);
}
END_TEST

START_TEST(test_polyhedron_bad)
{
    rve_polyhedron *P;
    rve_err e;
    double flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    ck_assert_int_eq(rve_polyhedron_alloc(&P, flat, 4, &e), RVE_EDATA);
    ck_assert_ptr_null(P);
    double few[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    ck_assert_int_eq(rve_polyhedron_alloc(&P, few, 3, &e), RVE_EDATA);
    double nan4[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, NAN};
    ck_assert_int_eq(rve_polyhedron_alloc(&P, nan4, 4, &e), RVE_EDATA);
    double same[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    ck_assert_int_eq(rve_polyhedron_alloc(&P, same, 4, &e), RVE_EDATA);
}
END_TEST

/* ------------------------------------------------------------ the oracle itself */
START_TEST(test_oracle_pruning)
{
    /* the Gauss-map pruning must not change the answer: compare with all edge pairs */
    cp_rng r = {11};
    int n = (int)(300 * test_scale() * (test_long() ? 1 : 0.2)) + 20;
    for (int i = 0; i < n; i++) {
        pair_t p;
        if (pair_make(&p, &r, i % 4, i % 3 == 2 ? 2 : 0))
            ck_abort_msg("pair generation failed");
        oracle_result full;
        oracle_contact(&p.oa, &p.ob, 1, &full);
        ck_assert_msg(fabsl(full.s - p.orc.s) <= 1e-15L * p.scale, "pair %d: pruned %Lg brute %Lg", i, p.orc.s,
                      full.s);
        ck_assert(p.orc.ncand <= full.ncand);
        pair_free(&p);
    }
}
END_TEST

START_TEST(test_oracle_closed_form)
{
    /* unit cubes; B shifted by (1 - d, 0.3, 0.2): depth d along x */
    double a[24], b[24];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 3; j++) {
            a[3 * i + j] = (i >> j) & 1;
            b[3 * i + j] = a[3 * i + j] + (j == 0 ? 0.875 : j == 1 ? 0.3 : 0.2);
        }
    oracle_poly A, B;
    ck_assert_int_eq(oracle_poly_build(&A, a, 8), 0);
    ck_assert_int_eq(oracle_poly_build(&B, b, 8), 0);
    oracle_result r;
    oracle_contact(&A, &B, 0, &r);
    ck_assert(fabsl(r.s + 0.125L) < 1e-18L);
    ck_assert(fabsl(r.n[0] - 1) < 1e-18L);
    ck_assert(r.unique);
    oracle_poly_free(&B);
    /* separated by 0.5 along y with a diagonal offset: distance from corner geometry */
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 3; j++)
            b[3 * i + j] = a[3 * i + j] + (j == 0 ? 1.5 : j == 1 ? 1.25 : 0);
    ck_assert_int_eq(oracle_poly_build(&B, b, 8), 0);
    oracle_contact(&A, &B, 0, &r);
    ck_assert(fabsl(r.s - sqrtl(0.5L * 0.5L + 0.25L * 0.25L)) < 1e-18L);
    oracle_poly_free(&A);
    oracle_poly_free(&B);
}
END_TEST

/* ------------------------------------------------------------ common planes */
START_TEST(test_common_plane_cubes)
{
    double a[24], b[24];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 3; j++) {
            a[3 * i + j] = (i >> j) & 1;
            b[3 * i + j] = a[3 * i + j] + (j == 0 ? 0.875 : j == 1 ? 0.3 : 0.2);
        }
    rve_polyhedron *A, *B;
    rve_err e;
    ck_assert_int_eq(rve_polyhedron_alloc(&A, a, 8, &e), RVE_OK);
    ck_assert_int_eq(rve_polyhedron_alloc(&B, b, 8, &e), RVE_OK);
    rve_contact c;
    ck_assert_int_eq(rve_contact_nezami(A, B, &c, &e), RVE_OK);
    ck_assert_double_eq_tol(c.s, -0.125, 1e-15);
    ck_assert_double_eq_tol(c.n[0], 1, 1e-15);
    ck_assert_double_eq_tol(c.q[0] - c.p[0], -0.125, 1e-15);
    /* contact point: centre of the overlap of the touching faces */
    ck_assert_double_eq_tol(c.p[1], 0.65, 1e-14);
    ck_assert_double_eq_tol(c.p[2], 0.6, 1e-14);
    ck_assert_int_eq(rve_contact_cundall(A, B, &c, &e), RVE_OK);
    ck_assert_double_eq_tol(c.s, -0.125, 1e-9);
    ck_assert_double_eq_tol(c.n[0], 1, 1e-9);
    rve_polyhedron_free(A);
    rve_polyhedron_free(B);
}
END_TEST

static void common_plane_vs_oracle(int method)
{
    cp_rng r = {100 + (uint64_t)method};
    int n = (int)(400 * test_scale()) + 20, bad = 0, total = 0;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        pair_t p;
        if (pair_make(&p, &r, i % 4, i % 4))
            ck_abort_msg("pair generation failed");
        rve_contact c;
        rve_err e;
        rve_status st = method ? rve_contact_cundall(p.A, p.B, &c, &e) : rve_contact_nezami(p.A, p.B, &c, &e);
        ck_assert_msg(st == RVE_OK, "pair %d: %s", i, e.msg);
        ck_assert(isfinite(c.s) && isfinite(c.n[0]) && isfinite(c.p[0]) && isfinite(c.q[0]));
        /* never better than the truth (a gap is a lower bound of the signed distance) */
        double err = (double)((long double)c.s - p.orc.s) / p.scale;
        ck_assert_msg(err <= 1e-13, "pair %d: gap %g above the oracle %Lg", i, c.s, p.orc.s);
        total++;
        if (-err > (method ? 1e-7 : 1e-12))
            bad++;
        if (-err > worst)
            worst = -err;
        pair_free(&p);
    }
    fprintf(stderr, "%s vs oracle: %d of %d pairs off by more than %g x size (worst %.3g)\n",
            method ? "Cundall" : "Nezami", bad, total, method ? 1e-7 : 1e-12, worst);
    /* both are local searches: a pair whose gap has a local maximum the search
     * reaches first stays wrong (2 of 420 for Cundall, 1 for Nezami at full scale);
     * more than 1 % means a regression (premature stops, missing candidates) */
    ck_assert_msg(bad <= 1 + total / 100, "%d of %d pairs off", bad, total);
}

START_TEST(test_nezami_random) { common_plane_vs_oracle(0); }
END_TEST
START_TEST(test_cundall_random) { common_plane_vs_oracle(1); }
END_TEST


/* ------------------------------------------------------------ EPA vs oracle */
typedef struct {
    int n, overlap, unique, capped, bad_depth, bad_normal;
    double worst_rel, worst_abs, worst_ang;
    int kinds[3];
} epa_stats;

static void epa_check_pair(pair_t *p, int i, epa_stats *S, int verbose)
{
    rve_contact c;
    rve_err e;
    rve_status st = rve_contact_epa_polyhedra(p->A, p->B, NULL, &c, &e);
    ck_assert_msg(st == RVE_OK || st == RVE_ECAP, "pair %d: %s", i, e.msg);
    if (st == RVE_ECAP)
        S->capped++;
    ck_assert_msg(isfinite(c.s) && isfinite(c.n[0]) && isfinite(c.n[1]) && isfinite(c.n[2]) && isfinite(c.p[0]) &&
                      isfinite(c.q[0]),
                  "pair %d: NaN", i);
    S->n++;
    long double s0 = p->orc.s;
    double aerr = (double)fabsl((long double)c.s - s0);
    if (s0 < 0) {
        S->overlap++;
        S->kinds[p->orc.kind]++;
        double rel = aerr / (double)fabsl(s0);
        /* relative to the depth, or, for grazing contacts, to the rounding of
         * the coordinates: a few eps times the size (the kernels' bound is
         * 100 eps L; 1e-16 x size, the floor used before, is below one
         * rounding of a coordinate and failed a depth off by 0.5 eps L) */
        double allowed = fmax(1e-12 * (double)fabsl(s0), 16 * DBL_EPSILON * p->scale);
        if (rel > S->worst_rel)
            S->worst_rel = rel;
        if (aerr / p->scale > S->worst_abs)
            S->worst_abs = aerr / p->scale;
        if (aerr > allowed) {
            S->bad_depth++;
            if (verbose)
            {
                long double nl[3] = {c.n[0], c.n[1], c.n[2]};

                fprintf(stderr, "pair %d kind %d: depth %.17g oracle %.17Lg (rel %.3g, size %.3g) h(n_epa) %.17Lg ang %.3g\n", i, p->orc.kind,
                        -c.s, -s0, rel, p->scale, oracle_h(&p->oa, &p->ob, nl), angle_ld(c.n, p->orc.n));
            }
        }
        if (p->orc.unique) {
            S->unique++;
            double ang = angle_ld(c.n, p->orc.n);
            if (ang > S->worst_ang)
                S->worst_ang = ang;
            if (ang > 1e-9) {
                S->bad_normal++;
                if (verbose)
                    fprintf(stderr, "pair %d kind %d: normal off by %.3g rad\n", i, p->orc.kind, ang);
            }
        }
        /* witness points: q - p = s n */
        for (int j = 0; j < 3; j++)
            ck_assert(fabs(c.q[j] - c.p[j] - c.s * c.n[j]) <= 1e-9 * p->scale);
    } else {
        /* separated: the distance kernel's answer */
        ck_assert_msg(aerr <= 1e-9 * p->scale, "pair %d: distance %.17g oracle %.17Lg", i, c.s, s0);
    }
}

START_TEST(test_epa_random)
{
    cp_rng r = {777};
    epa_stats S;
    memset(&S, 0, sizeof S);
    int n = (int)(10000 * test_scale() * (test_long() ? 1 : 0.2));
    if (n < 200)
        n = 200;
    for (int i = 0; i < n; i++) {
        pair_t p;
        int mode = i % 10 < 5 ? 0 : i % 10 < 7 ? 1 : i % 10 < 9 ? 2 : 3;
        if (pair_make(&p, &r, i % 4, mode))
            ck_abort_msg("pair generation failed");
        epa_check_pair(&p, i, &S, S.bad_depth + S.bad_normal < 20);
        pair_free(&p);
    }
    fprintf(stderr,
            "EPA vs oracle: %d pairs, %d overlapping (face A %d, face B %d, edge-edge %d), %d unique normals; "
            "depth beyond 1e-12 rel or 16 eps size: %d (worst rel %.3g, worst abs/size %.3g); normal beyond 1e-9 rad: %d "
            "(worst %.3g); capped %d\n",
            S.n, S.overlap, S.kinds[0], S.kinds[1], S.kinds[2], S.unique, S.bad_depth, S.worst_rel, S.worst_abs,
            S.bad_normal, S.worst_ang, S.capped);
    ck_assert_int_eq(S.bad_depth, 0);
    ck_assert_int_eq(S.bad_normal, 0);
    ck_assert_int_eq(S.capped, 0);
}
END_TEST


/* A coarse tolerance (opts.tol above 1e-11) is honoured: the depth reported is a face
 * offset of an inner polytope, so at most the true depth, and within tol x the size of
 * K = A - B (bounded here by the largest |coordinate| of a - b over all vertex pairs);
 * the run stops no later than the exact one. */
START_TEST(test_epa_coarse_tol)
{
    cp_rng r = {4242};
    int n = (int)(400 * test_scale()), checked = 0, fewer = 0;
    if (n < 100)
        n = 100;
    for (int i = 0; i < n; i++) {
        pair_t p;
        if (pair_make(&p, &r, i % 4, i % 2 ? 0 : 2))
            ck_abort_msg("pair generation failed");
        if (!(p.orc.s < 0)) {
            pair_free(&p);
            continue;
        }
        /* size of K = A - B: the largest |coordinate| of a - b over all vertex pairs */
        double kmax = 0;
        for (size_t a = 0; a < p.na; a++)
            for (size_t b = 0; b < p.nb; b++)
                for (int j = 0; j < 3; j++)
                    kmax = fmax(kmax, fabs(p.a[3 * a + j] - p.b[3 * b + j]));
        rve_shape sa, sb;
        rve_shape_polytope(&sa, p.a, (int)p.na, NULL);
        rve_shape_polytope(&sb, p.b, (int)p.nb, NULL);
        rve_epa_opts o = {1e-2, 0};
        rve_contact c, c0;
        rve_err e;
        ck_assert_int_eq(rve_contact_epa(&sa, &sb, &o, &c, &e), RVE_OK);
        ck_assert_int_eq(rve_contact_epa(&sa, &sb, NULL, &c0, &e), RVE_OK);
        double depth = -c.s, d0 = (double)-p.orc.s;
        ck_assert_msg(depth <= d0 * (1 + 1e-12) + 1e-15 * p.scale, "pair %d: depth %.17g above the oracle %.17g", i,
                      depth, d0);
        ck_assert_msg(d0 - depth <= 1e-2 * kmax * (1 + 1e-12), "pair %d: depth %.17g, oracle %.17g, bound %.3g", i,
                      depth, d0, 1e-2 * kmax);
        ck_assert_msg(c.iterations <= c0.iterations, "pair %d: %d iterations, exact %d; depth %.17g exact %.17g", i, c.iterations, c0.iterations, -c.s, -c0.s);
        fewer += c.iterations < c0.iterations;
        checked++;
        pair_free(&p);
    }
    fprintf(stderr, "EPA tol 1e-2: %d overlapping pairs within the bound, %d stopped earlier than the exact run\n",
            checked, fewer);
    ck_assert_int_gt(checked, n / 4);
    ck_assert_int_gt(fewer, 0);
}
END_TEST

/* ------------------------------------------------------------ intersections */
static rve_polyhedron *box_poly(double x0, double x1, double y0, double y1, double z0, double z1, const double q[4],
                                const double c[3])
{
    double pts[24];
    for (int i = 0; i < 8; i++) {
        double x[3] = {i & 1 ? x1 : x0, i & 2 ? y1 : y0, i & 4 ? z1 : z0}, y[3];
        if (q) {
            double t[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
            cp_qrot(y, q, t);
            for (int j = 0; j < 3; j++)
                y[j] += c[j];
        } else
            memcpy(y, x, sizeof y);
        memcpy(pts + 3 * i, y, sizeof y);
    }
    rve_polyhedron *P;
    rve_err e;
    ck_assert_int_eq(rve_polyhedron_alloc(&P, pts, 8, &e), RVE_OK);
    return P;
}

START_TEST(test_intersection_boxes)
{
    rve_err e;
    rve_intersection x;
    rve_polyhedron *A = box_poly(0, 1, 0, 1, 0, 1, NULL, NULL);
    rve_polyhedron *B = box_poly(0.875, 1.875, 0.3, 1.3, 0.2, 1.2, NULL, NULL);
    rve_polyhedron *X;
    ck_assert_int_eq(rve_polyhedra_intersection(A, B, &x, &X, &e), RVE_OK);
    ck_assert_double_eq_tol(x.volume, 0.125 * 0.7 * 0.8, 1e-14);
    /* surface of the box [0.875,1]x[0.3,1]x[0.2,1]: half area, centre, normal */
    ck_assert_double_eq_tol(x.area, 0.7 * 0.8 + 0.125 * 0.8 + 0.125 * 0.7, 1e-14);
    ck_assert_double_eq_tol(x.point[0], 0.9375, 1e-14);
    ck_assert_double_eq_tol(x.point[1], 0.65, 1e-14);
    ck_assert_double_eq_tol(x.point[2], 0.6, 1e-14);
    double n[3] = {2 * 0.56 * 0.56, 2 * 0.1 * 0.1, 2 * 0.0875 * 0.0875}, l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int j = 0; j < 3; j++)
        ck_assert_double_eq_tol(x.normal[j], n[j] / l, 1e-13);
    ck_assert_uint_eq(x.nverts, 8);
    ck_assert_uint_eq(x.nfaces, 6);
    ck_assert_ptr_nonnull(X);
    ck_assert_double_eq_tol(X->volume, x.volume, 1e-14);
    /* gap: extent along n, checked by moving the bodies apart (Solfec's code) */
    ck_assert(x.gap < 0 && x.gap >= -0.2);
    rve_polyhedron_free(X);
    rve_polyhedron_free(B);
    /* the cube rotated by 45 degrees about z around its centre: octagonal prism */
    double q[4] = {cos(M_PI / 8), 0, 0, sin(M_PI / 8)}, c[3] = {0, 0, 0};
    rve_polyhedron_free(A);
    A = box_poly(-1, 1, -1, 1, -1, 1, NULL, NULL);
    B = box_poly(-1, 1, -1, 1, -1, 1, q, c);
    ck_assert_int_eq(rve_polyhedra_intersection(A, B, &x, NULL, &e), RVE_OK);
    ck_assert_double_eq_tol(x.volume, 16 * (sqrt(2) - 1), 1e-13);
    rve_polyhedron_free(B);
    /* disjoint: zero volume, gap = distance */
    B = box_poly(1.5, 2, -1, 1, -1, 1, NULL, NULL);
    ck_assert_int_eq(rve_polyhedra_intersection(A, B, &x, NULL, &e), RVE_OK);
    ck_assert_double_eq(x.volume, 0);
    ck_assert_double_eq_tol(x.gap, 0.5, 1e-15);
    rve_polyhedron_free(B);
    rve_polyhedron_free(A);
    /* tetrahedron cut by a box: V = 1/6 - (1 - c)^3 / 6 */
    double tet[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    ck_assert_int_eq(rve_polyhedron_alloc(&A, tet, 4, &e), RVE_OK);
    for (double cz = 0.1; cz < 1; cz += 0.2) {
        B = box_poly(-1, 2, -1, 2, -1, cz, NULL, NULL);
        ck_assert_int_eq(rve_polyhedra_intersection(A, B, &x, NULL, &e), RVE_OK);
        ck_assert_double_eq_tol(x.volume, 1.0 / 6 - pow(1 - cz, 3) / 6, 1e-14);
        rve_polyhedron_free(B);
    }
    rve_polyhedron_free(A);
}
END_TEST

START_TEST(test_intersection_monte_carlo)
{
    /* volume of random overlapping pairs against a Monte Carlo estimate: points
     * uniform in the box bounding both, classified exactly by the oracle's face
     * planes (long double); the test allows 5 standard errors (a false failure has
     * probability below 1e-6 per pair) */
    cp_rng r = {4242};
    int n = (int)(40 * test_scale()) + 5, checked = 0;
    for (int i = 0; i < n; i++) {
        pair_t p;
        if (pair_make(&p, &r, i % 4, i % 2 ? 2 : 0))
            ck_abort_msg("pair generation failed");
        rve_intersection x;
        rve_err e;
        ck_assert_int_eq(rve_polyhedra_intersection(p.A, p.B, &x, NULL, &e), RVE_OK);
        ck_assert(isfinite(x.volume) && isfinite(x.gap) && isfinite(x.point[0]) && isfinite(x.normal[0]));
        if (p.orc.s >= 0) {
            ck_assert_double_eq(x.volume, 0);
            pair_free(&p);
            continue;
        }
        double lo[3], hi[3];
        for (int j = 0; j < 3; j++) {
            double a0 = INFINITY, a1 = -INFINITY, b0 = INFINITY, b1 = -INFINITY;
            for (size_t k = 0; k < p.na; k++) {
                a0 = fmin(a0, p.a[3 * k + j]);
                a1 = fmax(a1, p.a[3 * k + j]);
            }
            for (size_t k = 0; k < p.nb; k++) {
                b0 = fmin(b0, p.b[3 * k + j]);
                b1 = fmax(b1, p.b[3 * k + j]);
            }
            lo[j] = fmax(a0, b0);
            hi[j] = fmin(a1, b1);
        }
        double box = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
        long ns = 20000, in = 0;
        for (long k = 0; k < ns; k++) {
            long double y[3];
            for (int j = 0; j < 3; j++)
                y[j] = lo[j] + (hi[j] - lo[j]) * cp_unif(&r);
            if (oracle_inside(&p.oa, y, 0) && oracle_inside(&p.ob, y, 0))
                in++;
        }
        double f = (double)in / ns, est = f * box, se = box * sqrt(fmax(f * (1 - f), 1.0 / ns) / ns);
        ck_assert_msg(fabs(x.volume - est) <= 5 * se + 1e-12 * box, "pair %d: volume %g, Monte Carlo %g +- %g", i,
                      x.volume, est, se);
        /* the contact point lies in both bodies */
        long double cpt[3] = {x.point[0], x.point[1], x.point[2]};
        ck_assert(oracle_inside(&p.oa, cpt, 1e-9L * p.scale) && oracle_inside(&p.ob, cpt, 1e-9L * p.scale));
        checked++;
        pair_free(&p);
    }
    ck_assert_int_gt(checked, 0);
}
END_TEST

START_TEST(test_epa_stress)
{
    /* 10^6 queries (make check-long; 2 10^5 in make check): random clouds (no hull needed), flat and duplicate
     * points, identical bodies, touching boxes: never NaN, never the cap */
    cp_rng r = {99};
    long n = (long)(1000000 * test_scale() * (test_long() ? 1 : 0.2)), nan_count = 0, cap_count = 0, other = 0;
    double a[3 * 64], b[3 * 64];
    for (long i = 0; i < n; i++) {
        int kind = (int)(i % 8);
        size_t na = 4 + cp_next(&r) % 40, nb = 4 + cp_next(&r) % 40;
        double sc = pow(10, cp_range(&r, -3, 3)), c0[3] = {0, 0, 0}, c1[3], u[3];
        cp_unit(&r, u);
        for (int j = 0; j < 3; j++)
            c1[j] = sc * cp_range(&r, 0, 2) * u[j];
        na = cp_body(&r, kind == 1 ? 1 : 0, na, sc, c0, a);
        nb = cp_body(&r, kind == 1 ? 1 : 0, nb, sc, c1, b);
        if (kind == 2) /* flat A */
            for (size_t k = 0; k < na; k++)
                a[3 * k + 2] = 0;
        if (kind == 3) { /* B = A */
            memcpy(b, a, 3 * na * sizeof *a);
            nb = na;
        }
        if (kind == 4) { /* touching axis-aligned boxes */
            for (size_t k = 0; k < 8; k++)
                for (int j = 0; j < 3; j++) {
                    a[3 * k + j] = (k >> j) & 1 ? sc : 0;
                    b[3 * k + j] = a[3 * k + j] + (j == 0 ? sc : j == 1 ? sc * cp_range(&r, -0.5, 0.5) : 0);
                }
            na = nb = 8;
        }
        if (kind == 5) /* duplicated points */
            for (size_t k = 1; k < na; k++)
                for (int j = 0; j < 3; j++)
                    a[3 * k + j] = a[j];
        rve_shape sa, sb;
        rve_shape_polytope(&sa, a, (int)na, NULL);
        rve_shape_polytope(&sb, b, (int)nb, NULL);
        if (kind == 6)
            rve_shape_set_radius(&sa, 0.1 * sc);
        rve_contact c;
        rve_err e;
        rve_status st = rve_contact_epa(&sa, &sb, NULL, &c, &e);
        if (!(isfinite(c.s) && isfinite(c.n[0]) && isfinite(c.n[1]) && isfinite(c.n[2]) && isfinite(c.p[0]) &&
              isfinite(c.q[2])))
            nan_count++;
        if (st == RVE_ECAP)
            cap_count++;
        else if (st != RVE_OK)
            other++;
        if (kind == 4 && st == RVE_OK)
            ck_assert_msg(fabs(c.s) <= 1e-15 * sc, "touching boxes: s = %g (size %g)", c.s, sc);
    }
    fprintf(stderr, "EPA stress: %ld queries, %ld NaN, %ld capped, %ld other errors\n", n, nan_count, cap_count,
            other);
    ck_assert_int_eq(nan_count, 0);
    ck_assert_int_eq(cap_count, 0);
    ck_assert_int_eq(other, 0);
}
END_TEST

/* ------------------------------------------------------------ superquadrics */
START_TEST(test_sphere_cube_monte_carlo)
{
    /* Peng & Hanley's verification: sphere of radius 1, centre uniform in a cube of
     * edge 6 around a cube of edge 2; every sample classified exactly (distance from
     * the centre to the cube < 1) instead of comparing counts with volumes */
    double pts[24];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 3; j++)
            pts[3 * i + j] = (i >> j) & 1 ? 1 : -1;
    rve_polyhedron *P;
    rve_err e;
    ck_assert_int_eq(rve_polyhedron_alloc(&P, pts, 8, &e), RVE_OK);
    cp_rng r = {1};
    long n = (long)(200000 * test_scale()), cnt[9] = {0}, contact = 0, nocontact = 0, inside = 0, wrong = 0;
    double worst_face_depth = 0;
    for (long i = 0; i < n; i++) {
        double c[3] = {cp_range(&r, -3, 3), cp_range(&r, -3, 3), cp_range(&r, -3, 3)};
        if (fabs(c[0]) < 1 && fabs(c[1]) < 1 && fabs(c[2]) < 1) {
            inside++; /* the paper's case 8 */
            continue;
        }
        long double d2 = 0;
        int nout = 0;
        for (int j = 0; j < 3; j++) {
            long double t = fabsl((long double)c[j]) - 1;
            if (t > 0) {
                d2 += t * t;
                nout++;
            }
        }
        int truth = d2 < 1;
        rve_shape S;
        rve_shape_sphere(&S, c, 1);
        rve_contact k;
        int cs;
        ck_assert_int_eq(rve_contact_polyhedron_superquadric(P, &S, &k, &cs, &e), RVE_OK);
        ck_assert(cs >= 1 && cs <= 7);
        cnt[cs]++;
        int got = cs % 2 == 0 || cs == 7;
        if (got != truth)
            wrong++;
        if (truth)
            contact++;
        else
            nocontact++;
        ck_assert(isfinite(k.s) && isfinite(k.n[0]));
        if (got && nout == 1) { /* face contact: exact depth */
            double depth = 1 - (double)sqrtl(d2);
            double err = fabs(-k.s - depth);
            if (err > worst_face_depth)
                worst_face_depth = err;
        }
        if (!got && !truth) /* separation distance from GJK */
            ck_assert_msg(fabs(k.s - ((double)sqrtl(d2) - 1)) <= 1e-12, "distance %g vs %g", k.s,
                          (double)sqrtl(d2) - 1);
    }
    fprintf(stderr,
            "sphere-cube Monte Carlo: %ld samples: no contact %ld, contact %ld, inside %ld (volume fractions "
            "exact: 160.962/216, 47.038/216, 8/216 = %.4f %.4f %.4f; here %.4f %.4f %.4f); cases 1..6: %ld %ld "
            "%ld %ld %ld %ld (7: %ld); misclassified %ld; worst face-contact depth error %.2g\n",
            n, nocontact, contact, inside, 160.962 / 216, 47.038 / 216, 8.0 / 216, (double)nocontact / n,
            (double)contact / n, (double)inside / n, cnt[1], cnt[2], cnt[3], cnt[4], cnt[5], cnt[6], cnt[7], wrong,
            worst_face_depth);
    ck_assert_int_eq(wrong, 0);
    ck_assert(worst_face_depth < 1e-14);
    rve_polyhedron_free(P);
}
END_TEST

/* Random polyhedra against axis-aligned ellipsoids and spheres (superquadrics
 * with n1 = n2 = 2), checked against ph_oracle.h (closed-form support of the
 * Minkowski difference, minimised by brute force; no library code):
 *   - contact or not as the oracle's signed distance says, where it is clear;
 *   - no contact (cases 1, 3, 5): s is the separation distance: p in A, q in
 *     B, s = |q - p| >= the true distance >= -h(n) (a certificate), and
 *     the brute-force minimum agrees;
 *   - face contact (2, 4): n is a face normal of the hull (the oracle's own
 *     qhull call), and -s the overlap of B against that face plane, which is
 *     h(n) in closed form; it bounds the true depth from above;
 *   - edge or vertex contact (6): -s at most h(n) (the plane touches A);
 *   - contact found by the fallback (7): s is the true signed distance. */
START_TEST(test_polyhedron_ellipsoid_oracle)
{
    cp_rng r = {77};
    int n = (int)(1500 * test_scale() * (test_long() ? 1 : 0.2)) + 60, cnt[8] = {0}, clear = 0;
    double worst_face = 0, worst_sep = 0, worst_gap = 0, worst_fallback = 0, worst_n = 0, pts[3 * 64];
    for (int i = 0; i < n; i++) {
        double c0[3] = {0, 0, 0};
        size_t np = cp_body(&r, i % 3, 4 + cp_next(&r) % 40, 1, c0, pts);
        rve_polyhedron *P;
        rve_err e;
        ck_assert_int_eq(rve_polyhedron_alloc(&P, pts, np, &e), RVE_OK);
        oracle_poly op;
        ck_assert_int_eq(oracle_poly_build(&op, P->v, P->nv), 0);
        double u[3], pos[3], ax[3] = {cp_range(&r, 0.05, 1.2), cp_range(&r, 0.05, 1.2), cp_range(&r, 0.05, 1.2)};
        if (i % 4 == 0)
            ax[1] = ax[2] = ax[0]; /* a sphere */
        cp_unit(&r, u);
        double dist = cp_range(&r, 0.3, 2.2);
        for (int j = 0; j < 3; j++)
            pos[j] = dist * u[j];
        /* an axis-aligned ellipsoid is unchanged by the half turns, so the
         * quaternion's component order does not matter */
        const double q[4] = {1, 0, 0, 0};
        rve_shape S;
        rve_shape_superquadric(&S, ax[0], ax[1], ax[2], 2, 2);
        rve_shape_set_pose(&S, pos, q);
        rve_contact k;
        int cs;
        ck_assert_int_eq(rve_contact_polyhedron_superquadric(P, &S, &k, &cs, &e), RVE_OK);
        ck_assert(cs >= 1 && cs <= 7);
        cnt[cs]++;
        long double nb[3], kn[3] = {k.n[0], k.n[1], k.n[2]};
        long double s_true = -pho_min(P->v, P->nv, pos, ax, nb);
        int contact = cs % 2 == 0 || cs == 7;
        ck_assert(isfinite(k.s) && fabsl(kn[0] * kn[0] + kn[1] * kn[1] + kn[2] * kn[2] - 1) < 1e-12L);
        if (fabsl(s_true) > 1e-6L) {
            clear++;
            ck_assert_msg(contact == (s_true < 0), "pair %d: case %d, oracle s = %Lg", i, cs, s_true);
        }
        if (!contact) {
            /* a certificate: -h(n) bounds the distance from below for any n,
             * and |q - p| from above when p is in A and q in B */
            long double lo = -pho_h(P->v, P->nv, pos, ax, kn), Fq = 0, d2 = 0;
            long double pl[3] = {k.p[0], k.p[1], k.p[2]};
            for (int j = 0; j < 3; j++) {
                long double t = (k.q[j] - pos[j]) / (long double)ax[j];
                Fq += t * t;
                d2 += ((long double)k.q[j] - k.p[j]) * ((long double)k.q[j] - k.p[j]);
            }
            ck_assert_msg(oracle_inside(&op, pl, 1e-12L) && Fq <= 1 + 1e-12L, "pair %d: witnesses off", i);
            ck_assert_msg(fabsl(sqrtl(d2) - k.s) <= 1e-12L, "pair %d: s is not |q - p|", i);
            double gap = (double)(k.s - lo);
            worst_gap = fmax(worst_gap, gap);
            ck_assert_msg(gap >= -1e-12 && gap <= 2e-8, "pair %d: separation %.17g, certified above %.17Lg", i, k.s,
                          lo);
            double err = fabs(k.s - (double)s_true);
            worst_sep = fmax(worst_sep, err);
            ck_assert_msg(err <= 1e-5, "pair %d: separation %.17g, brute force %.17Lg", i, k.s, s_true);
        } else if (cs == 2 || cs == 4) {
            double best = INFINITY; /* angle to the nearest face normal of the hull */
            for (size_t f = 0; f < op.nf; f++)
                best = fmin(best, angle_ld(k.n, op.fn + 3 * f));
            worst_n = fmax(worst_n, best);
            ck_assert_msg(best < 1e-9, "pair %d: normal %.3g rad from every face normal", i, best);
            long double h = pho_h(P->v, P->nv, pos, ax, kn);
            double err = (double)fabsl(-k.s - h);
            worst_face = fmax(worst_face, err);
            ck_assert_msg(err <= 1e-12, "pair %d: overlap %.17g, against the face plane %.17Lg", i, -k.s, h);
            ck_assert(-k.s >= (double)-s_true - 1e-5); /* the brute force errs high by up to 1e-5 */
        } else if (cs == 6) {
            ck_assert_msg(-k.s <= (double)pho_h(P->v, P->nv, pos, ax, kn) + 1e-12, "pair %d: vertex/edge", i);
        } else {
            double err = fabs(k.s - (double)s_true);
            worst_fallback = fmax(worst_fallback, err);
            ck_assert_msg(err <= 1e-5, "pair %d: fallback depth %.17g, brute force %.17Lg", i, k.s, s_true);
        }
        oracle_poly_free(&op);
        rve_polyhedron_free(P);
    }
    fprintf(stderr,
            "polyhedron-ellipsoid vs closed-form oracle: %d pairs (%d clear of 1e-6), cases 1..7: %d %d %d %d %d %d "
            "%d; worst: separation vs brute force %.2g, certified gap %.2g, face overlap %.2g, face normal %.2g "
            "rad, fallback depth %.2g\n",
            n, clear, cnt[1], cnt[2], cnt[3], cnt[4], cnt[5], cnt[6], cnt[7], worst_sep, worst_gap, worst_face, worst_n,
            worst_fallback);
}
END_TEST

START_TEST(test_polyhedron_superquadric_random)
{
    /* random polyhedra vs random superquadrics (n1, n2 in [2, 8]) and ellipsoids:
     * contact / no contact against the sign of the GJK-TD/EPA signed distance
     * (an independent method) wherever that distance is clear of rounding.
     * Case 7 is EPA's own answer: those pairs are left to
     * test_polyhedron_ellipsoid_oracle, which checks them by brute force. */
    cp_rng r = {31};
    int n = (int)(3000 * test_scale()) + 50, wrong = 0, clear = 0, fallback = 0;
    double pts[3 * 64];
    for (int i = 0; i < n; i++) {
        double c0[3] = {0, 0, 0};
        size_t np = cp_body(&r, i % 3, 4 + cp_next(&r) % 40, 1, c0, pts);
        rve_polyhedron *P;
        rve_err e;
        ck_assert_int_eq(rve_polyhedron_alloc(&P, pts, np, &e), RVE_OK);
        double u[3], q[4], pos[3];
        cp_unit(&r, u);
        cp_quat(&r, q);
        double dist = cp_range(&r, 0.3, 2.2);
        for (int j = 0; j < 3; j++)
            pos[j] = dist * u[j];
        rve_shape S;
        rve_shape_superquadric(&S, cp_range(&r, 0.2, 1), cp_range(&r, 0.2, 1), cp_range(&r, 0.2, 1),
                               cp_range(&r, 2, 8), cp_range(&r, 2, 8));
        rve_shape_set_pose(&S, pos, q);
        rve_contact k, ke;
        int cs;
        ck_assert_int_eq(rve_contact_polyhedron_superquadric(P, &S, &k, &cs, &e), RVE_OK);
        rve_shape A;
        rve_shape_polytope(&A, P->v, (int)P->nv, NULL);
        rve_epa_opts eo = {1e-12, 0};
        rve_status st = rve_contact_epa(&A, &S, &eo, &ke, &e);
        ck_assert(st == RVE_OK || st == RVE_ECAP);
        if (cs == 7)
            fallback++;
        else if (fabs(ke.s) > 1e-6) {
            clear++;
            if ((cs % 2 == 0 || cs == 7) != (ke.s < 0)) {
                wrong++;
                if (wrong < 10)
                    fprintf(stderr, "pair %d: case %d, EPA s = %g\n", i, cs, ke.s);
            }
        }
        rve_polyhedron_free(P);
    }
    fprintf(stderr, "polyhedron-superquadric vs EPA sign: %d of %d clear pairs disagree (%d contacts found by the "
                    "GJK-TD fallback, case 7, not compared with EPA)\n", wrong, clear, fallback);
    ck_assert_int_eq(wrong, 0);
}
END_TEST

/* Wellmann's generator: A at the origin, random contact direction c, p1 on A
 * with normal c, p2 = p1 + dist c on B (random rotation) with normal -c. */
static void wellmann_pair(cp_rng *r, double emin, double emax, double dist, rve_shape *A, rve_shape *B, double c[3],
                          double p1[3], double p2[3])
{
    rve_superquadric_barr(A, cp_range(r, 0.5, 3), cp_range(r, 0.5, 3), cp_range(r, 0.5, 3), cp_range(r, emin, emax),
                          cp_range(r, emin, emax));
    rve_superquadric_barr(B, cp_range(r, 0.5, 3), cp_range(r, 0.5, 3), cp_range(r, 0.5, 3), cp_range(r, emin, emax),
                          cp_range(r, emin, emax));
    double q[4], zero[3] = {0, 0, 0}, m[3], x[3];
    cp_quat(r, q);
    rve_shape_set_pose(B, zero, q);
    cp_unit(r, c);
    rve_shape_support(A, c, p1);
    for (int j = 0; j < 3; j++) {
        p2[j] = p1[j] + dist * c[j];
        m[j] = -c[j];
    }
    rve_shape_support(B, m, x); /* B's point with normal -c, B at the origin */
    double pos[3] = {p2[0] - x[0], p2[1] - x[1], p2[2] - x[2]};
    rve_shape_set_pose(B, pos, q);
}

START_TEST(test_superellipsoids_wellmann)
{
    static const double lo[3] = {1, 0.7, 0.3}, hi[3] = {1, 1.3, 1.7}, paper[3] = {2.34e-6, 2.40e-6, 3.21e-5};
    cp_rng r = {2008};
    int n = (int)(20000 * test_scale() * (test_long() ? 1 : 0.2)) + 100;
    for (int iv = 0; iv < 3; iv++) {
        /* second series: penetrating pairs, depth up to 1.75e-3 */
        double sum_rel = 0, sum_pt = 0, sum_ang = 0;
        long hist[6] = {0}, restarts = 0, capped = 0, newton = 0, lm = 0;
        for (int i = 0; i < n; i++) {
            rve_shape A, B;
            double c[3], p1[3], p2[3], depth = cp_range(&r, 1e-9, 1.75e-3);
            wellmann_pair(&r, lo[iv], hi[iv], -depth, &A, &B, c, p1, p2);
            rve_contact k;
            rve_sep_info inf;
            rve_err e;
            rve_status st = rve_contact_superellipsoids(&A, &B, NULL, NULL, &k, &inf, &e);
            ck_assert(st == RVE_OK || st == RVE_ECAP);
            if (st == RVE_ECAP)
                capped++;
            ck_assert_msg(!inf.excluded, "interval %d pair %d: penetrating pair excluded", iv + 1, i);
            ck_assert(isfinite(k.s));
            sum_rel += fabs(-k.s - depth) / depth;
            if (getenv("SEP_DEBUG") && fabs(-k.s - depth) / depth > 1e-6)
                fprintf(stderr, "iv %d pair %d: depth %.6g got %.6g it %d restarts %d lm %d angle %.3g\n", iv, i, depth,
                        -k.s, inf.iterations, inf.restarts, inf.lm,
                        acos(fmin(1, k.n[0] * c[0] + k.n[1] * c[1] + k.n[2] * c[2])));
            sum_pt += 0.5 * (sqrt((k.p[0] - p1[0]) * (k.p[0] - p1[0]) + (k.p[1] - p1[1]) * (k.p[1] - p1[1]) +
                                  (k.p[2] - p1[2]) * (k.p[2] - p1[2])) +
                             sqrt((k.q[0] - p2[0]) * (k.q[0] - p2[0]) + (k.q[1] - p2[1]) * (k.q[1] - p2[1]) +
                                  (k.q[2] - p2[2]) * (k.q[2] - p2[2])));
            double cd = k.n[0] * c[0] + k.n[1] * c[1] + k.n[2] * c[2];
            sum_ang += acos(fmin(1, cd)) * 180 / M_PI;
            int it = inf.iterations;
            hist[it < 3 ? 0 : it < 5 ? 1 : it < 10 ? 2 : it < 20 ? 3 : it < 50 ? 4 : 5]++;
            restarts += inf.restarts;
            newton += inf.newton;
            lm += inf.lm;
        }
        /* first series: separated pairs, gap up to 0.25: exclusion must be right */
        long excl0 = 0, excl = 0, wrong = 0;
        for (int i = 0; i < n; i++) {
            rve_shape A, B;
            double c[3], p1[3], p2[3], gap = cp_range(&r, 1e-6, 0.25);
            wellmann_pair(&r, lo[iv], hi[iv], gap, &A, &B, c, p1, p2);
            rve_contact k;
            rve_sep_info inf;
            rve_err e;
            rve_contact_superellipsoids(&A, &B, NULL, NULL, &k, &inf, &e);
            if (inf.excluded) {
                excl++;
                if (inf.iterations == 0)
                    excl0++;
            }
            if (!(k.s > 0))
                wrong++;
        }
        double mrel = sum_rel / n;
        fprintf(stderr,
                "Wellmann interval %d [%g, %g], %d pairs: mean relative depth error %.3g (paper %.3g), mean point "
                "error %.3g, mean angle %.3g deg; iterations <3: %.1f%%, 3-4: %.1f%%, 5-9: %.1f%%, 10-19: %.1f%%, "
                "20-49: %.1f%%, >=50: %.1f%%; Newton steps %ld, LM steps %ld, restarts %ld, capped %ld; separated "
                "series: excluded at iteration 0 %.1f%%, in all %.1f%%, wrongly reported in contact %ld\n",
                iv + 1, lo[iv], hi[iv], n, mrel, paper[iv], sum_pt / n, sum_ang / n, 100.0 * hist[0] / n,
                100.0 * hist[1] / n, 100.0 * hist[2] / n, 100.0 * hist[3] / n, 100.0 * hist[4] / n,
                100.0 * hist[5] / n, newton, lm, restarts, capped, 100.0 * excl0 / n, 100.0 * excl / n, wrong);
        ck_assert(mrel < paper[iv]);
        ck_assert_int_eq(wrong, 0);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("contact");
    TCase *t = tcase_create("polyhedron");
    tcase_add_test(t, test_polyhedron_cube);
    tcase_add_test(t, test_polyhedron_bad);
    suite_add_tcase(s, t);
    t = tcase_create("oracle");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_oracle_pruning);
    tcase_add_test(t, test_oracle_closed_form);
    suite_add_tcase(s, t);
    t = tcase_create("common_plane");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_common_plane_cubes);
    tcase_add_test(t, test_nezami_random);
    tcase_add_test(t, test_cundall_random);
    suite_add_tcase(s, t);
    t = tcase_create("intersection");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_intersection_boxes);
    tcase_add_test(t, test_intersection_monte_carlo);
    suite_add_tcase(s, t);
    t = tcase_create("superquadric");
    tcase_set_timeout(t, 900);
    tcase_add_test(t, test_sphere_cube_monte_carlo);
    tcase_add_test(t, test_polyhedron_superquadric_random);
    tcase_add_test(t, test_polyhedron_ellipsoid_oracle);
    tcase_add_test(t, test_superellipsoids_wellmann);
    suite_add_tcase(s, t);
    t = tcase_create("epa");
    tcase_set_timeout(t, 900);
    tcase_add_test(t, test_epa_random);
    tcase_add_test(t, test_epa_coarse_tol);
    tcase_add_test(t, test_epa_stress);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return test_run_suite(suite()); }
