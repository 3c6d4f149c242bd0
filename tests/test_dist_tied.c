/* test_dist_tied - issue 17: the generated family of near-tied faces
 * (tests/dist_tied.h) against the binary128 oracle, and the brute-force
 * support scans (dist_argmax, dist_argmax_block, dist_argmax2) against a plain scan. */
#include "config.h"
#include "testutil.h"
#include <rve/dist.h>
/* before qhull (dist_tied.h), whose fmax_ macro would rename gjk_internal.h's */
#include "dist/gjk_internal.h"
#include "dist_tied.h"
#include "dist/dist_internal.h"
#include "dist_avx.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The plain scan dist_argmax replaces: first index of the maximum. */
static int scan_argmax(const double *V, int nv, const double d[3])
{
    int best = 0;
    double bd = V[0] * d[0] + V[1] * d[1] + V[2] * d[2];
    for (int i = 1; i < nv; i++) {
        double t = V[3 * i] * d[0] + V[3 * i + 1] * d[1] + V[3 * i + 2] * d[2];
        if (t > bd) {
            bd = t;
            best = i;
        }
    }
    return best;
}

/* The two-set scan of the pair loop (dist_argmax2): both indices equal to
 * the plain scan's, for every pair of sizes 1-70 (the shorter set ends
 * first, either way round), ties from integer coordinates, and NaN
 * products at index 0 (wins) and elsewhere (never wins). */
START_TEST(test_argmax2_scan)
{
    rng_seed(18);
    static double VA[3 * 80], VB[3 * 80];
    long ties = 0;
    for (int r = 0; r < 100000; r++) {
        int na = 1 + r % 70, nb = 1 + (r / 70 + r) % 70, ints = r % 3 != 0;
        for (int i = 0; i < 3 * na; i++)
            VA[i] = ints ? (double)((int)(urand() * 3) - 1) : urand() - 0.5;
        for (int i = 0; i < 3 * nb; i++)
            VB[i] = ints ? (double)((int)(urand() * 3) - 1) : urand() - 0.5;
        double da[3], db[3];
        for (int k = 0; k < 3; k++) {
            da[k] = ints ? (double)((int)(urand() * 3) - 1) : urand() - 0.5;
            db[k] = ints ? (double)((int)(urand() * 3) - 1) : urand() - 0.5;
        }
        if (r % 97 == 5)
            VA[3 * (r % na)] = NAN;
        if (r % 89 == 7)
            VB[3 * (r % nb)] = NAN;
        int ia = -1, ib = -1, sa = scan_argmax(VA, na, da), sb = scan_argmax(VB, nb, db);
        dist_argmax2(VA, na, da, VB, nb, db, &ia, &ib);
        ck_assert_msg(ia == sa && ib == sb, "sizes %d %d: %d %d, the scan %d %d", na, nb, ia, ib, sa, sb);
        double ta = VA[3 * sa] * da[0] + VA[3 * sa + 1] * da[1] + VA[3 * sa + 2] * da[2];
        for (int i = sa + 1; i < na && ints; i++)
            if (VA[3 * i] * da[0] + VA[3 * i + 1] * da[1] + VA[3 * i + 2] * da[2] == ta) {
                ties++;
                break;
            }
    }
    /* a NaN at index 0 of either set wins there; the other set is unaffected */
    double d[3] = {1, 0.5, 0.25};
    for (int i = 0; i < 3 * 20; i++)
        VA[i] = VB[i] = (double)(i % 7) - 3;
    VA[0] = NAN;
    int ia, ib;
    dist_argmax2(VA, 20, d, VB, 20, d, &ia, &ib);
    ck_assert_int_eq(ia, 0);
    ck_assert_int_eq(ib, scan_argmax(VB, 20, d));
    ck_assert_int_ne(ib, 0);
    fprintf(stderr, "argmax2: 100000 pairs of scans equal to the plain scan, %ld with a tied maximum\n", ties);
    ck_assert(ties > 10000);
}
END_TEST

/* A posed pair (A1, B1) and the same bodies with every vertex listed
 * twice (A2, B2: VA and VB hold 2 na and 2 nb vertices), which takes
 * another support path with the same answer */
static void doubled_pair(const double *VA, int na, const double *VB, int nb, const double pa[3], const double qa[4],
                         const double pb[3], const double qb[4], rve_shape *A1, rve_shape *B1, rve_shape *A2,
                         rve_shape *B2)
{
    rve_shape_polytope(A1, VA, na, NULL);
    rve_shape_polytope(B1, VB, nb, NULL);
    rve_shape_polytope(A2, VA, 2 * na, NULL);
    rve_shape_polytope(B2, VB, 2 * nb, NULL);
    rve_shape_set_pose(A1, pa, qa);
    rve_shape_set_pose(A2, pa, qa);
    rve_shape_set_pose(B1, pb, qb);
    rve_shape_set_pose(B2, pb, qb);
}

/* The pair loop's one-pass scan (16-63 vertices each, not both at most 32:
 * those take rows, test_flat_rows32) against the generic path: the same
 * hulls with every vertex listed twice (66-126 vertices: the other scans,
 * one body at a time) have the same first
 * indices of the maximum (a later copy never compares greater), so GJK
 * must take the same steps and give the same answer bit for bit, posed
 * (the start comes from the poses, not from the vertex lists: a bare
 * array's start samples its list), rotated or not, and with integer
 * coordinates for tied supports. */
START_TEST(test_fused_pair_path)
{
    rng_seed(19);
    static double VA[3 * 128], VB[3 * 128];
    long fused = 0;
    for (int r = 0; r < 3000; r++) {
        int na = 33 + r % 31, nb = 16 + (r * 7) % 48, ints = r % 4 == 0;
        if (r % 2) { /* either body the larger */
            int t = na;
            na = nb;
            nb = t;
        }
        for (int i = 0; i < 3 * na; i++)
            VA[i] = ints ? (double)((int)(urand() * 5) - 2) : urand() - 0.5;
        for (int i = 0; i < 3 * nb; i++)
            VB[i] = ints ? (double)((int)(urand() * 5) - 2) : urand() - 0.5;
        memcpy(VA + 3 * na, VA, 3 * na * sizeof(double));
        memcpy(VB + 3 * nb, VB, 3 * nb * sizeof(double));
        double qa[4] = {urand() - 0.5, urand() - 0.5, urand() - 0.5, urand() - 0.5}, qb[4] = {1, 0, 0, 0};
        double nq = sqrt(qa[0] * qa[0] + qa[1] * qa[1] + qa[2] * qa[2] + qa[3] * qa[3]);
        for (int k = 0; k < 4; k++)
            qa[k] /= nq;
        /* distant, near touching and overlapping pairs */
        double off = (r % 3 == 0 ? 3.0 : r % 3 == 1 ? 1.0 : 0.3) * (ints ? 2 : 1);
        double pa[3] = {off, 0.25 * off, 0}, pb[3] = {0, 0, 0.5};
        /* B at pb != 0: not a bare array, whose start would sample its list */
        if (r % 2)
            for (int k = 0; k < 4; k++)
                qb[k] = qa[(k + 1) % 4];
        rve_shape A1, B1, A2, B2;
        doubled_pair(VA, na, VB, nb, pa, qa, pb, qb, &A1, &B1, &A2, &B2);
        rve_dist_result r1, r2;
        rve_gjk_dist(&A1, &B1, NULL, NULL, &r1);
        rve_gjk_dist(&A2, &B2, NULL, NULL, &r2);
        ck_assert_msg(r1.d == r2.d && r1.iterations == r2.iterations && r1.status == r2.status,
                      "sizes %d %d: d %.17g (%d iterations) against %.17g (%d)", na, nb, r1.d, r1.iterations, r2.d,
                      r2.iterations);
        for (int k = 0; k < 3; k++)
            ck_assert_msg(r1.p[k] == r2.p[k] && r1.q[k] == r2.q[k], "sizes %d %d: p %.17g %.17g q %.17g %.17g", na, nb, r1.p[k], r2.p[k], r1.q[k], r2.q[k]);
        double p1[3], q1[3], p2[3], q2[3];
        ck_assert(rve_gjk_distance(&A1, &B1, NULL, p1, q1) == rve_gjk_distance(&A2, &B2, NULL, p2, q2));
        ck_assert(rve_gjk_distance(&A1, &B1, NULL, NULL, NULL) == r1.d);
        fused += na < DIST_ARGMAX_PAIRS_NV && nb < DIST_ARGMAX_PAIRS_NV;
    }
    ck_assert_int_eq(fused, 3000);
}
END_TEST

/* Two small posed polytopes (up to 15 vertices) take their vertices rotated
 * once per query.  With rotations that permute and flip the axes
 * (quaternion components 0 and +-1/2: R exact) and dyadic coordinates the
 * world vertices are exact, and the binary128 oracle on them is the truth:
 * d within 100 eps L, the intersect decision right.  With any rotation, the
 * same pair through the generic path (every vertex listed twice) agrees
 * within 64 eps L. */
static double dyadic(void) { return (double)((int)(urand() * 1048576) - 524288) / 524288; }

START_TEST(test_prerot_pair_path)
{
    rng_seed(23);
    static const double qs[8][4] = {{0.5, 0.5, 0.5, 0.5}, {0.5, -0.5, 0.5, 0.5}, {0.5, 0.5, -0.5, 0.5},
                                    {0.5, 0.5, 0.5, -0.5}, {0, 1, 0, 0},         {0, 0, 1, 0},
                                    {0, 0, 0, 1},          {0.5, -0.5, -0.5, -0.5}};
    long checked = 0;
    for (int r = 0; r < 6000; r++) {
        int na = 4 + r % 9, nb = 4 + (r * 5) % 9;
        double VA[2 * 3 * 15], VB[2 * 3 * 15];
        for (int i = 0; i < 3 * na; i++)
            VA[i] = dyadic();
        for (int i = 0; i < 3 * nb; i++)
            VB[i] = dyadic();
        double off = r % 3 == 0 ? 3.0 : r % 3 == 1 ? 1.75 : 0.5;
        double pa[3] = {0.25, -0.5, 0}, pb[3] = {off, (int)(urand() * 8) / 8.0 - 0.5, (int)(urand() * 8) / 8.0 - 0.5};
        rve_shape A, B;
        rve_shape_polytope(&A, VA, na, NULL);
        rve_shape_polytope(&B, VB, nb, NULL);
        rve_shape_set_pose(&A, pa, qs[r % 8]);
        rve_shape_set_pose(&B, pb, qs[(r / 8) % 8]);
        rve_dist_result res;
        rve_gjk_dist(&A, &B, NULL, NULL, &res);
        ck_assert(rve_gjk_distance(&A, &B, NULL, NULL, NULL) == res.d);
        flat_query Q;
        memset(&Q, 0, sizeof Q);
        Q.na = na;
        Q.nb = nb;
        for (int i = 0; i < na; i++)
            for (int k = 0; k < 3; k++) /* exact: R is 0 and +-1 */
                Q.a[3 * i + k] = pa[k] + (A.R[3 * k] * VA[3 * i] + A.R[3 * k + 1] * VA[3 * i + 1] + A.R[3 * k + 2] * VA[3 * i + 2]);
        for (int i = 0; i < nb; i++)
            for (int k = 0; k < 3; k++)
                Q.b[3 * i + k] = pb[k] + (B.R[3 * k] * VB[3 * i] + B.R[3 * k + 1] * VB[3 * i + 1] + B.R[3 * k + 2] * VB[3 * i + 2]);
        flat_truth T;
        flat_oracle(&Q, &T);
        if (T.overlap < 0) {
            /* separation certified in binary128 along our witnesses' axis
             * (a wrong axis cannot certify); then dmax is the distance */
            double u[3] = {res.q[0] - res.p[0], res.q[1] - res.p[1], res.q[2] - res.p[2]};
            if (!(res.d > 0) || flat_sep_axis(&Q, u) <= 0)
                continue;
            T.overlap = 0;
            T.d = T.dmax;
        }
        checked++;
        if (T.overlap == 1)
            ck_assert_msg(res.status == RVE_GJK_INTERSECT || res.d <= 100 * DBL_EPSILON * T.L,
                          "query %d: touching or overlapping, d = %.17g", r, res.d);
        else
            ck_assert_msg(fabs(res.d - (double)T.d) <= 100 * DBL_EPSILON * T.L, "query %d: d %.17g, oracle %.17Lg", r,
                          res.d, T.d);
    }
    ck_assert_msg(checked > 5000, "%ld queries decided by the oracle", checked);
    /* any rotation: against the generic path (30 > 15 vertices) */
    for (int r = 0; r < 3000; r++) {
        int na = 4 + r % 12, nb = 4 + (r * 7) % 12;
        double VA[2 * 3 * 15], VB[2 * 3 * 15];
        for (int i = 0; i < 3 * na; i++)
            VA[i] = urand() - 0.5;
        for (int i = 0; i < 3 * nb; i++)
            VB[i] = urand() - 0.5;
        memcpy(VA + 3 * na, VA, 3 * na * sizeof(double));
        memcpy(VB + 3 * nb, VB, 3 * nb * sizeof(double));
        double qa[4], qb[4], off = r % 3 == 0 ? 3.0 : r % 3 == 1 ? 1.0 : 0.3;
        rand_quat(qa);
        rand_quat(qb);
        double pa[3] = {off, 0.25 * off, 0}, pb[3] = {0, 0, 0.5};
        rve_shape A1, B1, A2, B2;
        doubled_pair(VA, na, VB, nb, pa, qa, pb, qb, &A1, &B1, &A2, &B2);
        rve_dist_result r1, r2;
        rve_gjk_dist(&A1, &B1, NULL, NULL, &r1);
        rve_gjk_dist(&A2, &B2, NULL, NULL, &r2);
        ck_assert_msg(fabs(r1.d - r2.d) <= 64 * DBL_EPSILON * 2 * off && r1.status == r2.status,
                      "sizes %d %d: d %.17g against %.17g", na, nb, r1.d, r2.d);
    }
}
END_TEST

/* The rows scan of small pairs (dist_argmax_soa: all products, their
 * maximum, the first equal index; dist_argmin_soa16 for -d) against the plain scan, on
 * rows made by dist_rows (padded with vertex 0): ties and signed
 * zeros from {-1, 0, 1}, random doubles, NaN products at index 0 and at
 * other lanes, infinite products. */
/* The AVX builds (gjk_avx.c's scans, four products per register, and its
 * dist_rows, four vertices per register) where the CPU has AVX: the plain
 * scan's indices b (in d) and f (in -d), and the baseline dist_rows bit for
 * bit, copied and times a matrix (any nine numbers) */
static void soa_check_avx(const double *X, const double *V, int nv, int stride, const double d[3], int b, int f)
{
#if DIST_HAVE_AVX_SCAN
    if (!__builtin_cpu_supports("avx"))
        return;
    ck_assert_msg(avx_argmax_soa(X, nv, stride, d) == b, "nv %d: AVX rows scan %d, the scan %d", nv,
                  avx_argmax_soa(X, nv, stride, d), b);
    ck_assert_msg(avx_argmin_soa(X, nv, stride, d) == f, "nv %d: AVX rows scan of -d %d, the scan %d", nv,
                  avx_argmin_soa(X, nv, stride, d), f);
    if (nv <= 16) {
        ck_assert_int_eq(avx_argmax_soa16(X, nv, stride, d), b);
        ck_assert_int_eq(avx_argmin_soa16(X, nv, stride, d), f);
    }
    static const double M[9] = {0.375, -0.7, 0.2, 0.6, 0.3, -0.7412, -0.1, 0.9, 0.33};
    for (int rot = 0; rot < 2; rot++) {
        double Y[3 * DIST_SOA_STRIDE_PT], Z[3 * DIST_SOA_STRIDE_PT];
        dist_rows(rot ? M : NULL, V, nv, Y, stride);
        avx_rows(rot ? M : NULL, V, nv, Z, stride);
        int bad = -1; /* one assertion per call: each passing one is a write to Check's log */
        for (int j = 0; j < 3 * stride && bad < 0; j++)
            if (j % stride < DIST_SOA_PAD(nv) && memcmp(&Y[j], &Z[j], sizeof(double)) != 0 &&
                !(isnan(Y[j]) && isnan(Z[j])))
                bad = j;
        ck_assert_msg(bad < 0, "nv %d, vertex %d, coordinate %d: AVX rows %.17g, rows %.17g", nv, bad % stride,
                      bad / stride, bad < 0 ? 0 : Z[bad], bad < 0 ? 0 : Y[bad]);
    }
#else
    (void)X, (void)V, (void)nv, (void)stride, (void)d, (void)b, (void)f;
#endif
}

static int soa_check_stride(const double *V, int nv, const double d[3], int stride)
{
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double X[3 * DIST_SOA_STRIDE_PT];
    for (int i = 0; i < 3 * stride; i++)
        X[i] = 7.0; /* anything past the padding must not count */
    for (int i = 0; i < DIST_SOA_PAD(nv); i++)
        for (int k = 0; k < 3; k++) /* the padding is vertex 0 again */
            X[k * stride + i] = V[3 * (i < nv ? i : 0) + k];
    int a = dist_argmax_soa(X, nv, stride, d), b = scan_argmax(V, nv, d);
    ck_assert_msg(a == b, "nv %d: rows scan %d, the scan %d", nv, a, b);
    /* the minimum's index in d is the plain scan's in -d */
    const double md[3] = {-d[0], -d[1], -d[2]};
    int f = scan_argmax(V, nv, md);
    if (nv <= 16) { /* the small pairs' scans */
        ck_assert_int_eq(dist_argmax_soa16(X, nv, stride, d), b);
        int e = dist_argmin_soa16(X, nv, stride, d);
        ck_assert_msg(e == f, "nv %d: rows scan of -d %d, the scan %d", nv, e, f);
    }
    int e = dist_argmin_soa(X, nv, stride, d);
    ck_assert_msg(e == f, "nv %d: rows scan (32) of -d %d, the scan %d", nv, e, f);
    soa_check_avx(X, V, nv, stride, d, b, f);
    /* dist_rows' copy, and its rotation (identity: finite products equal),
     * padding included */
    double Y[3 * DIST_SOA_STRIDE_PT];
    dist_rows(NULL, V, nv, Y, stride);
    for (int i = 0; i < DIST_SOA_PAD(nv); i++)
        for (int k = 0; k < 3; k++)
            ck_assert(memcmp(&Y[k * stride + i], &X[k * stride + i], sizeof(double)) == 0);
    if (stride == DIST_SOA_STRIDE && isfinite(V[0] + V[1] + V[2])) {
        dist_rows(I, V, nv, Y, DIST_SOA_STRIDE);
        for (int i = 0; i < DIST_SOA_PAD(nv); i++)
            for (int k = 0; k < 3; k++) {
                int j = i < nv ? i : 0;
                if (isfinite(V[3 * j] + V[3 * j + 1] + V[3 * j + 2]))
                    ck_assert(Y[k * DIST_SOA_STRIDE + i] == V[3 * j + k]);
            }
    }
    return a;
}

/* both row layouts: the pair loop's (at most DIST_SOA_STRIDE vertices) and
 * the point loop's (DIST_SOA_STRIDE_PT), once when they are the same */
static int soa_check(const double *V, int nv, const double d[3])
{
    int a = soa_check_stride(V, nv, d, DIST_SOA_STRIDE_PT);
    if (DIST_SOA_STRIDE != DIST_SOA_STRIDE_PT && nv <= DIST_SOA_STRIDE)
        ck_assert_int_eq(soa_check_stride(V, nv, d, DIST_SOA_STRIDE), a);
    return a;
}

START_TEST(test_argmax_soa_scan)
{
    rng_seed(29);
    double V[3 * DIST_SOA_STRIDE_PT];
    for (int r = 0; r < 60000; r++) {
        int nv = 1 + r % DIST_SOA_STRIDE_PT, ints = r % 3 != 0;
        for (int i = 0; i < 3 * nv; i++)
            V[i] = ints ? (double)((int)(urand() * 3) - 1) : urand() - 0.5;
        double d[3];
        for (int k = 0; k < 3; k++)
            d[k] = ints ? (double)((int)(urand() * 3) - 1) : urand() - 0.5;
        soa_check(V, nv, d);
        if (r % 7 == 0) { /* a NaN product somewhere (index 0 wins only there) */
            V[3 * (r % nv)] = NAN;
            soa_check(V, nv, d);
        }
        if (r % 11 == 0) { /* infinite products of either sign */
            V[3 * (r % nv) + 1] = r % 2 ? INFINITY : -INFINITY;
            d[1] = 1;
            soa_check(V, nv, d);
        }
    }
    double dn[3] = {NAN, 1, 0}, dz[3] = {0, 0, 0};
    for (int i = 0; i < 3 * DIST_SOA_STRIDE_PT; i++)
        V[i] = urand() - 0.5;
    for (int nv = 1; nv <= DIST_SOA_STRIDE_PT; nv++) {
        ck_assert_int_eq(soa_check(V, nv, dn), 0);
        ck_assert_int_eq(soa_check(V, nv, dz), 0);
    }
}
END_TEST

/* The default pair query and the point query's run built for AVX
 * (gjk_avx.c: four products per register in the scans and the rows)
 * against the baseline build, where the CPU has AVX: the same answers bit
 * for bit (d, witnesses, status, iterations, final simplex, weights and the
 * warm start kept), for each of d, d with witnesses and the full result,
 * on pairs of 1 to 200 vertices, posed and bare, flat, 1e-6 to 1e6 in
 * size, far from the origin, and again warm started after a small move;
 * points against the same bodies (unscaled: the scaled rerun has no AVX
 * build). */
static void same_double(double x, double y, const char *what, int r)
{
    ck_assert_msg(memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)), "query %d: %s %.17g (AVX) against %.17g", r,
                  what, x, y);
}

static void same_result(const rve_dist_result *x, const rve_dist_result *y, int want, int r)
{
    same_double(x->d, y->d, "d", r);
    ck_assert_msg(x->status == y->status && x->iterations == y->iterations && x->exact == y->exact,
                  "query %d: status %d, %d iterations, %d exact (AVX) against %d, %d, %d", r, x->status, x->iterations,
                  x->exact, y->status, y->iterations, y->exact);
    for (int k = 0; k < 3 && want != WANT_D; k++) {
        same_double(x->p[k], y->p[k], "p", r);
        same_double(x->q[k], y->q[k], "q", r);
    }
    if (want != WANT_FULL)
        return;
    ck_assert_int_eq(x->n, y->n);
    for (int i = 0; i < 4; i++) {
        same_double(x->lambda[i], y->lambda[i], "lambda", r);
        for (int k = 0; k < 3 && i < x->n; k++) {
            same_double(x->a[i][k], y->a[i][k], "a", r);
            same_double(x->b[i][k], y->b[i][k], "b", r);
        }
    }
}

START_TEST(test_avx_query_same)
{
#if DIST_HAVE_AVX_SCAN
    if (!__builtin_cpu_supports("avx"))
        return;
    rng_seed(37);
    static const int sizes[] = {1, 2, 3, 4, 5, 8, 12, 15, 16, 20, 24, 32, 33, 64, 200};
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    static double VA[3 * 200], VB[3 * 200];
    for (int r = 0; r < 6000; r++) {
        int na = sizes[r % ns], nb = sizes[(r / ns) % ns], flat = r % 3 == 0;
        double scale = r % 5 == 0 ? 1e6 : r % 5 == 1 ? 1e-6 : 1, far = r % 7 == 0 ? 1e4 * scale : 0;
        for (int i = 0; i < 3 * na; i++)
            VA[i] = (urand() - 0.5) * scale * (flat && i % 3 == 2 ? 1e-9 : 1);
        for (int i = 0; i < 3 * nb; i++)
            VB[i] = (urand() - 0.5) * scale;
        double off = (r % 4 == 0 ? 3.0 : r % 4 == 1 ? 1.0 : r % 4 == 2 ? 0.5 : 0.1) * scale;
        double pa[3] = {far + off, 0.25 * off, far}, pb[3] = {far, 0, far + 0.1 * off}, qa[4], qb[4];
        rand_quat(qa);
        rand_quat(qb);
        rve_shape A, B;
        rve_shape_polytope(&A, VA, na, NULL);
        rve_shape_polytope(&B, VB, nb, NULL);
        if (r % 2) {
            rve_shape_set_pose(&A, pa, qa);
            rve_shape_set_pose(&B, pb, qb);
        }
        for (int want = WANT_D; want <= WANT_FULL; want++) {
            rve_gjk_simplex wx, wy;
            rve_gjk_simplex_init(&wx);
            rve_gjk_simplex_init(&wy);
            for (int pass = 0; pass < 2; pass++) {
                rve_dist_result x, y;
                memset(&x, 0, sizeof x);
                memset(&y, 0, sizeof y);
                dist_gjk_default_avx(&A, &B, &wx, &x, want);
                dist_gjk_default_base(&A, &B, &wy, &y, want);
                same_result(&x, &y, want, r);
                ck_assert(wx.n == wy.n && memcmp(wx.ia, wy.ia, sizeof wx.ia) == 0 &&
                          memcmp(wx.ib, wy.ib, sizeof wx.ib) == 0);
                A.pos[0] += 0.01 * off; /* the warm start's query: moved a little */
            }
        }
        /* the point query's run against A's vertices */
        double pt[3] = {(urand() - 0.5) * 3 * scale, (urand() - 0.5) * 3 * scale, (urand() - 0.5) * 3 * scale};
        rve_gjk_opts o;
        rve_gjk_opts_default(&o);
        for (int k = 0; k < 2; k++) { /* the AVX build runs unscaled queries only */
            int want = k % 2 ? WANT_FULL : WANT_D, rx, ry;
            rve_dist_result x, y;
            memset(&x, 0, sizeof x);
            memset(&y, 0, sizeof y);
            dist_ptpoly_run_avx(pt, VA, na, &o, NULL, &x, &rx, want);
            dist_ptpoly_run_base(pt, VA, na, &o, 0, NULL, &y, &ry, want);
            same_result(&x, &y, want, r);
            ck_assert_int_eq(rx, ry);
        }
    }
#endif
}
END_TEST

/* Integer coordinates in {-1, 0, 1} make most directions tie between
 * several vertices: the first one must win, as in the plain scan; and
 * random doubles, and a NaN direction (index 0, as the scan). */
START_TEST(test_argmax_scan)
{
    rng_seed(17);
    static double V[3 * 600];
    long ties = 0, navx = 0;
    /* the AVX scan (dist_scan.c) directly, on every set size, where the CPU has it */
#if DIST_HAVE_AVX_SCAN
    const int have_avx = __builtin_cpu_supports("avx");
#else
    const int have_avx = 0;
#endif
    for (int r = 0; r < 220000; r++) {
        /* 200000 small sets (the block scan called directly), 10000 of
         * DIST_ARGMAX_PAIRS_NV .. DIST_ARGMAX_BLOCK_NV - 1 vertices (the
         * two-chain scan), 10000 above DIST_ARGMAX_BLOCK_NV (through dist_argmax) */
        int nv = r < 200000   ? 1 + r % 75
                 : r < 210000 ? DIST_ARGMAX_PAIRS_NV + r % (DIST_ARGMAX_BLOCK_NV - DIST_ARGMAX_PAIRS_NV)
                              : DIST_ARGMAX_BLOCK_NV + r % 80,
            ints = r % 3 != 0;
        for (int i = 0; i < 3 * nv; i++)
            V[i] = ints ? (double)((int)(urand() * 3) - 1) : urand() - 0.5;
        double d[3];
        for (int k = 0; k < 3; k++)
            d[k] = ints ? (double)((int)(urand() * 3) - 1) : urand() - 0.5;
        int a = dist_argmax(V, nv, d), b = scan_argmax(V, nv, d), c = dist_argmax_block(V, nv, d);
        ck_assert_msg(a == b && c == b, "nv %d: %d and %d, the scan %d", nv, a, c, b);
#if DIST_HAVE_AVX_SCAN
        if (have_avx) {
            int e = dist_argmax_avx(V, nv, d);
            ck_assert_msg(e == b, "nv %d: avx scan %d, the scan %d", nv, e, b);
            navx++;
        }
#endif
        for (int i = 0; i < nv && ints; i++)
            if (i != b && V[3 * i] * d[0] + V[3 * i + 1] * d[1] + V[3 * i + 2] * d[2] ==
                              V[3 * b] * d[0] + V[3 * b + 1] * d[1] + V[3 * b + 2] * d[2]) {
                ties++;
                break;
            }
    }
    double dn[3] = {NAN, 1, 0};
    ck_assert_int_eq(dist_argmax_block(V, 40, dn), scan_argmax(V, 40, dn));
    ck_assert_int_eq(dist_argmax(V, 40, dn), scan_argmax(V, 40, dn));
    ck_assert_int_eq(dist_argmax(V, 100, dn), scan_argmax(V, 100, dn));
    ck_assert_int_eq(dist_argmax(V, 300, dn), scan_argmax(V, 300, dn));
    /* a NaN vertex at index 0, at an even and at an odd index: only index 0 wins (as the scan) */
    double dd[3] = {1, 0.5, 0.25};
    V[0] = NAN;
    ck_assert_int_eq(dist_argmax(V, 300, dd), 0);
    ck_assert_int_eq(scan_argmax(V, 300, dd), 0);
    V[0] = 0.25;
    for (int k = 1; k <= 2; k++) {
        V[3 * k] = NAN;
        ck_assert_int_eq(dist_argmax(V, 300, dd), scan_argmax(V, 300, dd));
        ck_assert_int_ne(dist_argmax(V, 300, dd), k);
        ck_assert_int_eq(dist_argmax(V, 40, dd), scan_argmax(V, 40, dd));
        ck_assert_int_ne(dist_argmax(V, 40, dd), k);
        ck_assert_int_eq(dist_argmax(V, 100, dd), scan_argmax(V, 100, dd));
        ck_assert_int_ne(dist_argmax(V, 100, dd), k);
    }
    /* all products -inf (an infinite direction on zero coordinates gives NaN; these give -inf):
     * index 0, and a single finite vertex in any lane wins */
    double di[3] = {-INFINITY, 0, 0};
    for (int i = 0; i < 300; i++) {
        V[3 * i] = 1;
        V[3 * i + 1] = V[3 * i + 2] = 0;
    }
    ck_assert_int_eq(dist_argmax(V, 300, di), scan_argmax(V, 300, di));
    for (int k = 0; k < 8; k++) {
        V[3 * (200 + k)] = -1;
        ck_assert_int_eq(dist_argmax(V, 300, di), 200 + k);
        ck_assert_int_eq(scan_argmax(V, 300, di), 200 + k);
        V[3 * (200 + k)] = 1;
        V[3 * (201 + k)] = -1;
        ck_assert_int_eq(dist_argmax(V, 300, di), scan_argmax(V, 300, di));
        V[3 * (201 + k)] = 1;
    }
    fprintf(stderr, "argmax: 220000 scans equal to the plain scan (%ld of them also by the AVX scan), %ld with a tied maximum\n",
            navx, ties);
    ck_assert(!have_avx || navx == 220000);
    ck_assert(ties > 10000);
}
END_TEST

START_TEST(test_tied_family)
{
    long n = (long)(20000 * test_scale() * (test_long() ? 10 : 1));
    rng_seed(1703);
    fam_stats st = {0};
    st.witness = 1;
    char msg[512] = "", first[512] = "";
    long first_fail = -1, tied = 0, checked_ties = 0;
    for (long q = 0; q < n; q++) {
        flat_query Q;
        tied_draw(&Q);
        if (flat_check(&Q, &st, msg, sizeof msg) && first_fail < 0) {
            first_fail = q;
            snprintf(first, sizeof first, "%s", msg);
        }
        if (q % 10 == 0) {
            /* the family is what it claims: two or more faces within the
             * rounding of |v| (16 eps L) of the closest one */
            double L = fmax(maxabs_pts(Q.a, Q.na), maxabs_pts(Q.b, 1));
            checked_ties++;
            tied += tied_faces(&Q, 16 * DBL_EPSILON * L) >= 2;
        }
    }
    fprintf(stderr,
            "tied faces: %ld queries (%ld checks), %ld beyond 100 eps L, %ld wrong decisions, %ld uncertain, worst %.2f eps L, "
            "witness off its body by at most %.2f eps L, exact fallbacks %.4f per check; %ld of %ld sampled queries "
            "have two or more faces within 16 eps L of the closest\n",
            n, st.n, st.bad, st.wrong, st.uncertain, st.worst, st.worst_wit, (double)st.exact / (double)(st.n ? st.n : 1),
            tied, checked_ties);
    ck_assert_msg(st.bad == 0 && st.wrong == 0, "query %ld: %s", first_fail, first);
    ck_assert_msg(2 * tied > checked_ties, "only %ld of %ld queries have tied faces", tied, checked_ties);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("dist_tied");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_argmax_scan);
    tcase_add_test(tc, test_argmax_soa_scan);
    tcase_add_test(tc, test_argmax2_scan);
    tcase_add_test(tc, test_fused_pair_path);
    tcase_add_test(tc, test_prerot_pair_path);
    tcase_add_test(tc, test_tied_family);
    tcase_add_test(tc, test_avx_query_same);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(suite()); }
