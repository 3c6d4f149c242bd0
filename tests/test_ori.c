/* test_ori.c - orientations against independent oracles: elementary-rotation
 * products, published closed forms, brute force over all symmetry pairs, the
 * Mackenzie distribution, means of noise built symmetric about a centre. */
#include "testutil.h"

#include <math.h>
#include <rve/ori.h>
#include <rve/raster.h>
#include <rve/tess.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define DEG (M_PI / 180)

static int nscaled(int n)
{
    return test_scale() < 1 ? n / 10 : n;
}

/* Distance between rotations q and p (double cover: q ~ -q). */
static double qdist(const double q[4], const double p[4])
{
    double a = 0, b = 0;
    for (int i = 0; i < 4; i++)
        a += (q[i] - p[i]) * (q[i] - p[i]), b += (q[i] + p[i]) * (q[i] + p[i]);
    return sqrt(a < b ? a : b);
}

/* Elementary passive rotations (coordinate transformations). */
static void rz(double a, double m[9])
{
    double c = cos(a), s = sin(a), t[9] = {c, s, 0, -s, c, 0, 0, 0, 1};
    memcpy(m, t, sizeof t);
}
static void rx(double a, double m[9])
{
    double c = cos(a), s = sin(a), t[9] = {1, 0, 0, 0, c, s, 0, -s, c};
    memcpy(m, t, sizeof t);
}
static void ry(double a, double m[9])
{
    double c = cos(a), s = sin(a), t[9] = {c, 0, -s, 0, 1, 0, s, 0, c};
    memcpy(m, t, sizeof t);
}
static void mm(const double a[9], const double b[9], double o[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            o[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}
static double mdist(const double a[9], const double b[9])
{
    double m = 0;
    for (int i = 0; i < 9; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

START_TEST(test_roundtrip_all_pairs)
{
    int n = nscaled(100000);
    rve_rng r;
    rve_rng_seed(&r, 12345);
    double maxerr = 0;
    /* failed conversions are counted, not asserted one by one: each
     * ck_assert in a forked Check test writes to a pipe (20 million
     * system calls here) */
    long bad = 0;
    int bad_it = -1, bad_a = -1, bad_b = -1;
    for (int it = 0; it < n; it++) {
        double q[4];
        rve_ori_random(&r, q);
        for (int a = 0; a < RVE_ORI_NDES; a++)
            for (int b = 0; b < RVE_ORI_NDES; b++) {
                /* alternate conventions and units so that every path is used */
                rve_ori_spec sa = {(rve_ori_des)a, (rve_ori_conv)(it & 1), (it >> 1) & 1};
                rve_ori_spec sb = {(rve_ori_des)b, (rve_ori_conv)((it >> 2) & 1), (it >> 3) & 1};
                double va[9], vb[9], qa[4], qb[4];
                rve_ori_from_quat(q, &sa, va);
                int fa = rve_ori_to_quat(&sa, va, qa, NULL) != RVE_OK;
                rve_ori_from_quat(qa, &sb, vb);
                int fb = rve_ori_to_quat(&sb, vb, qb, NULL) != RVE_OK;
                if (fa || fb) {
                    if (!bad++)
                        bad_it = it, bad_a = a, bad_b = b;
                    continue;
                }
                double e = qdist(q, qb);
                maxerr = e > maxerr ? e : maxerr;
            }
    }
    fprintf(stderr, "round trips: %d rotations x 49 descriptor pairs, max quaternion error %.3g\n",
            n, maxerr);
    ck_assert_msg(bad == 0, "%ld conversions refused, the first: rotation %d, descriptors %d -> %d", bad,
                  bad_it, bad_a, bad_b);
    ck_assert(maxerr < 1e-12);
}
END_TEST

/* Bunge and Roe against products of elementary rotations; Kocks against its
 * definition by azimuths (Kocks et al. 1998): Psi is the azimuth of the
 * crystal c axis in the sample, phi that of the sample Z in the crystal. */
START_TEST(test_euler_definitions)
{
    rve_rng r;
    rve_rng_seed(&r, 7);
    for (int it = 0; it < 1000; it++) {
        double e[3] = {2 * M_PI * rve_rng_uniform(&r), M_PI * rve_rng_uniform(&r),
                       2 * M_PI * rve_rng_uniform(&r)};
        double a[9], b[9], c[9], t[9], g[9], q[4];
        rz(e[2], a), rx(e[1], b), rz(e[0], c);
        mm(a, b, t), mm(t, c, g);
        rve_ori_eu2qu(e, q);
        double om[9];
        rve_ori_qu2om(q, om);
        ck_assert(mdist(om, g) < 1e-14);
        /* Roe: g = Rz(phi) Ry(theta) Rz(psi) */
        rve_ori_spec roe = {RVE_ORI_EULER_ROE, RVE_ORI_PASSIVE, 0};
        ck_assert_int_eq(rve_ori_to_quat(&roe, e, q, NULL), RVE_OK);
        rz(e[2], a), ry(e[1], b), rz(e[0], c);
        mm(a, b, t), mm(t, c, g);
        rve_ori_qu2om(q, om);
        ck_assert(mdist(om, g) < 1e-14);
        /* Kocks */
        rve_ori_spec ko = {RVE_ORI_EULER_KOCKS, RVE_ORI_PASSIVE, 0};
        ck_assert_int_eq(rve_ori_to_quat(&ko, e, q, NULL), RVE_OK);
        rve_ori_qu2om(q, om);
        /* crystal [001] in sample axes: row 2 of g; sample Z in crystal: column 2 */
        double psi = atan2(om[7], om[6]), phi = atan2(om[5], om[2]);
        ck_assert(fabs(remainder(psi - e[0], 2 * M_PI)) < 1e-12);
        ck_assert(fabs(remainder(phi - e[2], 2 * M_PI)) < 1e-12);
        ck_assert(fabs(acos(om[8]) - e[1]) < 1e-7);
    }
}
END_TEST

START_TEST(test_closed_forms)
{
    double q[4], ro[3], om[9];
    /* Bunge (0, 30, 0) is the passive rotation by 30 degrees about x */
    double e[3] = {0, 30 * DEG, 0};
    rve_ori_eu2qu(e, q);
    rve_ori_qu2ro(q, ro);
    ck_assert(fabs(ro[0] - tan(15 * DEG)) < 1e-15 && fabs(ro[1]) < 1e-15 && fabs(ro[2]) < 1e-15);
    /* Bunge (90, 0, 0): sample x is crystal -y (passive), matrix rows as in
     * Rowenhorst eq. (A.3) */
    double e2[3] = {90 * DEG, 0, 0}, g[9] = {0, 1, 0, -1, 0, 0, 0, 0, 1};
    rve_ori_eu2qu(e2, q);
    rve_ori_qu2om(q, om);
    ck_assert(mdist(om, g) < 1e-15);
    ck_assert(fabs(q[0] - cos(45 * DEG)) < 1e-15 && fabs(q[3] - sin(45 * DEG)) < 1e-15);
    /* DREAM3D's unit test (BlueQuartzSoftware/DREAM3D#468): [100] turned by
     * 120 degrees about [111] is [001] passively, [010] actively */
    double q111[4] = {0.5, 0.5, 0.5, 0.5}, v[3] = {1, 0, 0}, out[3];
    rve_ori_qu2om(q111, om);
    for (int i = 0; i < 3; i++)
        out[i] = om[3 * i] * v[0] + om[3 * i + 1] * v[1] + om[3 * i + 2] * v[2];
    ck_assert(fabs(out[0]) < 1e-15 && fabs(out[1]) < 1e-15 && fabs(out[2] - 1) < 1e-15);
    rve_ori_spec act = {RVE_ORI_MATRIX, RVE_ORI_ACTIVE, 0};
    rve_ori_from_quat(q111, &act, om);
    for (int i = 0; i < 3; i++)
        out[i] = om[3 * i] * v[0] + om[3 * i + 1] * v[1] + om[3 * i + 2] * v[2];
    ck_assert(fabs(out[0]) < 1e-15 && fabs(out[1] - 1) < 1e-15 && fabs(out[2]) < 1e-15);
    /* axis-angle of that quaternion: 120 degrees about [111] */
    double ax[4];
    rve_ori_qu2ax(q111, ax);
    ck_assert(fabs(ax[3] - 120 * DEG) < 1e-14 && fabs(ax[0] - 1 / sqrt(3)) < 1e-15);
    /* a rotation by pi: infinite Rodrigues, and back */
    double qpi[4] = {0, 0, 1, 0};
    rve_ori_qu2ro(qpi, ro);
    ck_assert(isinf(ro[1]) && ro[1] > 0 && ro[0] == 0 && ro[2] == 0);
    rve_ori_ro2qu(ro, q);
    ck_assert(qdist(q, qpi) < 1e-15);
    /* Kocks is symmetric: the inverse of (Psi, Theta, phi) is (phi, Theta, Psi) */
    rve_ori_spec ko = {RVE_ORI_EULER_KOCKS, RVE_ORI_PASSIVE, 1};
    double k[3] = {10, 40, 75}, kr[3] = {75, 40, 10}, q1[4], q2[4], q1i[4];
    rve_ori_to_quat(&ko, k, q1, NULL);
    rve_ori_to_quat(&ko, kr, q2, NULL);
    rve_ori_qconj(q1, q1i);
    ck_assert(qdist(q1i, q2) < 1e-14);
}
END_TEST

START_TEST(test_double_cover)
{
    rve_rng r;
    rve_rng_seed(&r, 99);
    for (int it = 0; it < 1000; it++) {
        double q[4], m[4], a[9], b[9], f1[4], f2[4];
        rve_ori_random(&r, q);
        for (int i = 0; i < 4; i++)
            m[i] = -q[i];
        rve_ori_qu2om(q, a);
        rve_ori_qu2om(m, b);
        ck_assert(mdist(a, b) < 1e-15);
        ck_assert(rve_ori_disori_angle(q, m, RVE_LAUE_TRICLINIC) < 1e-7);
        rve_ori_fz(q, RVE_LAUE_CUBIC, f1);
        rve_ori_fz(m, RVE_LAUE_CUBIC, f2);
        ck_assert(qdist(f1, f2) < 1e-15 && f1[0] >= 0);
        rve_ori_spec sq = {RVE_ORI_QUATERNION, RVE_ORI_PASSIVE, 0};
        double back[4];
        ck_assert_int_eq(rve_ori_to_quat(&sq, m, back, NULL), RVE_OK);
        ck_assert(back[0] >= 0 && qdist(back, q) < 1e-15);
    }
}
END_TEST

/* Each Laue group's rotations are distinct unit quaternions closed under
 * the product; the counts are the group orders. */
START_TEST(test_groups)
{
    static const int order[RVE_LAUE_N] = {1, 2, 4, 6, 8, 12, 24};
    for (int g = 0; g < RVE_LAUE_N; g++) {
        int n = rve_laue_nops((rve_laue)g);
        const double *s = rve_laue_ops((rve_laue)g);
        ck_assert_int_eq(n, order[g]);
        ck_assert(s[0] == 1 && s[1] == 0 && s[2] == 0 && s[3] == 0);
        for (int i = 0; i < n; i++) {
            double nn = 0;
            for (int c = 0; c < 4; c++)
                nn += s[4 * i + c] * s[4 * i + c];
            ck_assert(fabs(nn - 1) < 1e-15);
            for (int j = 0; j < n; j++) {
                if (j != i)
                    ck_assert(qdist(s + 4 * i, s + 4 * j) > 0.1);
                double p[4];
                rve_ori_qmul(s + 4 * i, s + 4 * j, p);
                int found = 0;
                for (int k = 0; k < n; k++)
                    found += qdist(p, s + 4 * k) < 1e-14;
                ck_assert_int_eq(found, 1);
            }
        }
        rve_laue back;
        ck_assert_int_eq(rve_laue_parse(rve_laue_name((rve_laue)g), &back), RVE_OK);
        ck_assert_int_eq(back, g);
    }
    rve_laue c;
    ck_assert_int_eq(rve_laue_parse("M-3M", &c), RVE_OK);
    ck_assert_int_eq(c, RVE_LAUE_CUBIC);
    ck_assert_int_eq(rve_laue_parse("6/mmm", &c), RVE_OK);
    ck_assert_int_eq(c, RVE_LAUE_HEXAGONAL);
    ck_assert_int_eq(rve_laue_parse("icosahedral", &c), RVE_EUSAGE);
}
END_TEST

/* Reduced orientations lie in the Rodrigues fundamental zones (Heinz &
 * Neumann 1991): cubic |r_i| <= sqrt2 - 1 and |r1|+|r2|+|r3| <= 1; hexagonal
 * |r_z| <= 2 - sqrt3 and |r . n| <= 1 for the 2-fold axes n every 30 deg. */
START_TEST(test_fundamental_zone)
{
    rve_rng r;
    rve_rng_seed(&r, 3);
    const double eps = 1e-12;
    for (int it = 0; it < nscaled(100000); it++) {
        double q[4], f[4], ro[3];
        rve_ori_random(&r, q);
        rve_ori_fz(q, RVE_LAUE_CUBIC, f);
        rve_ori_qu2ro(f, ro);
        for (int i = 0; i < 3; i++)
            ck_assert(fabs(ro[i]) <= sqrt(2) - 1 + eps);
        ck_assert(fabs(ro[0]) + fabs(ro[1]) + fabs(ro[2]) <= 1 + eps);
        ck_assert(rve_ori_disori_angle(q, f, RVE_LAUE_CUBIC) < 1e-7); /* same orientation */
        rve_ori_fz(q, RVE_LAUE_HEXAGONAL, f);
        rve_ori_qu2ro(f, ro);
        ck_assert(fabs(ro[2]) <= 2 - sqrt(3) + eps);
        for (int j = 0; j < 6; j++)
            ck_assert(fabs(ro[0] * cos(j * 30 * DEG) + ro[1] * sin(j * 30 * DEG)) <= 1 + eps);
    }
    /* on the boundary: 45 degrees about z stays (tie with its -45 twin),
     * 46 degrees about z becomes -44 */
    double ax[4] = {0, 0, 1, 45 * DEG}, q[4], f[4], ro[3];
    rve_ori_ax2qu(ax, q);
    rve_ori_fz(q, RVE_LAUE_CUBIC, f);
    rve_ori_qu2ro(f, ro);
    ck_assert(fabs(fabs(ro[2]) - (sqrt(2) - 1)) < 1e-15);
    ax[3] = 46 * DEG;
    rve_ori_ax2qu(ax, q);
    rve_ori_fz(q, RVE_LAUE_CUBIC, f);
    ck_assert(fabs(rve_ori_qangle(f) - 44 * DEG) < 1e-14);
    /* the corner of the cubic zone: 62.8 degrees about [1, 1, sqrt2 - 1] */
    double c[3] = {1, 1, sqrt(2) - 1}, nc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    double ac[4] = {c[0] / nc, c[1] / nc, c[2] / nc, 2 * atan(nc * (sqrt(2) - 1))};
    rve_ori_ax2qu(ac, q);
    rve_ori_fz(q, RVE_LAUE_CUBIC, f);
    ck_assert(fabs(rve_ori_qangle(f) - ac[3]) < 1e-12);
    ck_assert(fabs(ac[3] / DEG - 62.7994) < 1e-4);
}
END_TEST

/* Brute force: every pair of operators on both sides, and the exchange. */
static double brute_disori(const double a[4], const double b[4], rve_laue g)
{
    const double *s = rve_laue_ops(g);
    int n = rve_laue_nops(g);
    double best = 10;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double as[4], bs[4], ca[4], d[4];
            rve_ori_qmul(a, s + 4 * i, as);
            rve_ori_qmul(b, s + 4 * j, bs);
            rve_ori_qconj(as, ca);
            rve_ori_qmul(ca, bs, d);
            double v = sqrt(d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
            double ang = 2 * atan2(v, fabs(d[0]));
            best = ang < best ? ang : best;
        }
    return best;
}

START_TEST(test_disorientation_brute)
{
    rve_rng r;
    rve_rng_seed(&r, 11);
    for (int g = 0; g < RVE_LAUE_N; g++)
        for (int it = 0; it < 300; it++) {
            double a[4], b[4], ang, ax[3];
            rve_ori_random(&r, a);
            rve_ori_random(&r, b);
            double ref = brute_disori(a, b, (rve_laue)g);
            ck_assert(fabs(rve_ori_disori_angle(a, b, (rve_laue)g) - ref) < 1e-12);
            rve_ori_disori(a, b, (rve_laue)g, &ang, ax);
            ck_assert(fabs(ang - ref) < 1e-12);
            if (g == RVE_LAUE_CUBIC) /* the standard triangle of axes */
                ck_assert(ax[0] >= ax[1] - 1e-9 && ax[1] >= ax[2] - 1e-9 && ax[2] >= -1e-9);
            /* the returned pair is one of the equivalent misorientations */
            double axq[4] = {ax[0], ax[1], ax[2], ang}, d[4];
            rve_ori_ax2qu(axq, d);
            const double *s = rve_laue_ops((rve_laue)g);
            int n = rve_laue_nops((rve_laue)g), found = 0;
            for (int i = 0; i < n && !found; i++)
                for (int j = 0; j < n && !found; j++) {
                    double as[4], bs[4], m1[4], m2[4];
                    rve_ori_qmul(a, s + 4 * i, as);
                    rve_ori_qmul(b, s + 4 * j, bs);
                    rve_ori_misori(as, bs, m1);
                    rve_ori_misori(bs, as, m2);
                    found = qdist(m1, d) < 1e-6 || qdist(m2, d) < 1e-6;
                }
            ck_assert(found);
        }
    /* small angles stay accurate (no acos near 1): 1e-6 rad about [123] */
    double a[4], b[4], d[4], ang, ax[3];
    rve_ori_random(&r, a);
    double n = sqrt(14.0), sm[4] = {1 / n, 2 / n, 3 / n, 1e-6};
    rve_ori_ax2qu(sm, d);
    rve_ori_qmul(a, d, b);
    ck_assert(fabs(rve_ori_disori_angle(a, b, RVE_LAUE_CUBIC) - 1e-6) < 1e-15);
    rve_ori_disori(a, b, RVE_LAUE_CUBIC, &ang, ax);
    ck_assert(fabs(ang - 1e-6) < 1e-15);
}
END_TEST

/* Mackenzie (1958) density of cubic disorientation angles, from the fraction
 * chi of the sphere |r| = tan(w/2) inside the cubic Rodrigues zone (the
 * spherical-triangle areas of Morawiec, "Orientations and Rotations", 2004). */
static double c2abc(double a, double b, double c)
{
    double x = (cos(c) - cos(a) * cos(b)) / (sin(a) * sin(b));
    return acos(x > 1 ? 1 : x < -1 ? -1 : x);
}
static double s2abc(double a, double b, double c)
{
    return 2 * (M_PI - c2abc(a, b, c) - cos(a) * c2abc(c, a, b) - cos(b) * c2abc(b, c, a));
}
static double mackenzie_pdf(double w)
{
    double r = tan(w / 2), chi = 1, h4 = sqrt(2) - 1, h3 = sqrt(3) / 3;
    if (r > h4)
        chi = 3 * h4 / r - 2;
    if (r > h3)
        chi += 4 * (h3 / r - 1);
    if (r > 2 - sqrt(2)) {
        double a1 = acos(h4 / r), a2 = acos(h3 / r);
        chi += 3 * s2abc(a1, a1, M_PI / 2) / M_PI + 6 * s2abc(a1, a2, acos(h3)) / M_PI;
    }
    if (chi < 0)
        chi = 0;
    return 24 * chi * (1 - cos(w)) / M_PI;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(test_mackenzie_ks)
{
    /* CDF on a fine grid (Simpson per cell); closed form below 45 degrees */
    enum { NG = 20000 };
    const double wmax = 2 * atan((sqrt(2) - 1) * sqrt(2 + (sqrt(2) - 1) * (sqrt(2) - 1)));
    static double cdf[NG + 1];
    double hw = wmax / NG;
    cdf[0] = 0;
    for (int i = 0; i < NG; i++) {
        double a = i * hw, b = a + hw;
        cdf[i + 1] = cdf[i] + hw / 6 * (mackenzie_pdf(a) + 4 * mackenzie_pdf(0.5 * (a + b)) + mackenzie_pdf(b));
    }
    ck_assert(fabs(wmax / DEG - 62.7994) < 1e-3);
    ck_assert_msg(fabs(cdf[NG] - 1) < 1e-6, "Mackenzie density integrates to %.9f", cdf[NG]);
    int i45 = (int)(45 * DEG / hw);
    double w45 = i45 * hw;
    ck_assert(fabs(cdf[i45] - 24 * (w45 - sin(w45)) / M_PI) < 1e-10);

    int n = nscaled(100000);
    double *ang = malloc((size_t)n * sizeof *ang), amax = 0;
    ck_assert_ptr_nonnull(ang);
    rve_rng r;
    rve_rng_seed(&r, 2015);
    for (int i = 0; i < n; i++) {
        double a[4], b[4];
        rve_ori_random(&r, a);
        rve_ori_random(&r, b);
        ang[i] = rve_ori_disori_angle(a, b, RVE_LAUE_CUBIC);
        amax = ang[i] > amax ? ang[i] : amax;
    }
    qsort(ang, (size_t)n, sizeof *ang, cmp_d);
    double d = 0;
    for (int i = 0; i < n; i++) {
        double x = ang[i] / hw;
        int k = (int)x;
        double F = k >= NG ? 1 : cdf[k] + (x - k) * (cdf[k + 1] - cdf[k]);
        double d1 = fabs(F - (double)i / n), d2 = fabs(F - (double)(i + 1) / n);
        d = fmax(d, fmax(d1, d2));
    }
    free(ang);
    double crit = 1.949 / sqrt((double)n); /* alpha = 0.001 */
    fprintf(stderr, "Mackenzie: %d cubic disorientations, max %.4f deg, KS D = %.5f (critical %.5f)\n",
            n, amax / DEG, d, crit);
    ck_assert(amax <= wmax + 1e-12);
    ck_assert(d < crit);
}
END_TEST

/* Uniform rotations: the rotation angle has the closed-form CDF
 * (t - sin t) / pi on [0, pi] (Haar measure). */
START_TEST(test_random_uniform)
{
    int n = nscaled(100000);
    double *ang = malloc((size_t)n * sizeof *ang);
    ck_assert_ptr_nonnull(ang);
    rve_rng r;
    rve_rng_seed(&r, 77);
    for (int i = 0; i < n; i++) {
        double q[4];
        rve_ori_random(&r, q);
        ck_assert(q[0] >= 0 && fabs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1) < 1e-12);
        ang[i] = rve_ori_qangle(q);
    }
    qsort(ang, (size_t)n, sizeof *ang, cmp_d);
    double d = 0;
    for (int i = 0; i < n; i++) {
        double F = (ang[i] - sin(ang[i])) / M_PI;
        d = fmax(d, fmax(fabs(F - (double)i / n), fabs(F - (double)(i + 1) / n)));
    }
    free(ang);
    double crit = 1.949 / sqrt((double)n);
    fprintf(stderr, "uniform rotations: %d angles, KS D = %.5f (critical %.5f)\n", n, d, crit);
    ck_assert(d < crit);
}
END_TEST

/* Noise in pairs d, conj(d) about a centre c: sum (c d)(c d)^T has c as its
 * principal eigenvector exactly, whatever symmetric equivalent of each
 * sample is given. */
START_TEST(test_mean_orientation)
{
    rve_rng r;
    rve_rng_seed(&r, 5);
    for (int g = 0; g < RVE_LAUE_N; g++)
        for (int rep = 0; rep < 20; rep++) {
            enum { NP = 50 };
            double c[4], q[8 * NP], ang[NP];
            rve_ori_random(&r, c);
            const double *s = rve_laue_ops((rve_laue)g);
            int ns = rve_laue_nops((rve_laue)g);
            double suma = 0, maxa = 0;
            for (int i = 0; i < NP; i++) {
                double ax[4], d[4], dc[4], t[4];
                double u[4];
                rve_ori_random(&r, u);
                double nv = sqrt(u[1] * u[1] + u[2] * u[2] + u[3] * u[3]);
                ax[0] = u[1] / nv, ax[1] = u[2] / nv, ax[2] = u[3] / nv;
                ax[3] = 8 * DEG * rve_rng_uniform(&r);
                ang[i] = ax[3];
                suma += 2 * ax[3];
                maxa = fmax(maxa, ax[3]);
                rve_ori_ax2qu(ax, d);
                rve_ori_qconj(d, dc);
                for (int h = 0; h < 2; h++) {
                    rve_ori_qmul(c, h ? dc : d, t);
                    int k = (int)(rve_rng_uniform(&r) * ns);
                    double sg = rve_rng_uniform(&r) < 0.5 ? -1 : 1;
                    rve_ori_qmul(t, s + 4 * k, q + 4 * (2 * i + h));
                    for (int cc = 0; cc < 4; cc++)
                        q[4 * (2 * i + h) + cc] *= sg;
                }
            }
            double m[4], avg, mx;
            ck_assert_int_eq(rve_ori_mean(q, NULL, 2 * NP, (rve_laue)g, m, NULL), RVE_OK);
            ck_assert_msg(rve_ori_disori_angle(m, c, (rve_laue)g) < 1e-7, "group %d: mean off by %g",
                          g, rve_ori_disori_angle(m, c, (rve_laue)g));
            rve_ori_spread(q, 2 * NP, (rve_laue)g, m, &avg, &mx);
            ck_assert(fabs(avg - suma / (2 * NP)) < 1e-7);
            ck_assert(fabs(mx - maxa) < 1e-7);
            (void)ang;
        }
    rve_err e;
    double m[4], one[4] = {1, 0, 0, 0}, w0 = 0;
    ck_assert_int_eq(rve_ori_mean(one, NULL, 0, RVE_LAUE_CUBIC, m, &e), RVE_EDATA);
    ck_assert_int_eq(rve_ori_mean(one, &w0, 1, RVE_LAUE_CUBIC, m, &e), RVE_EDATA);
}
END_TEST

START_TEST(test_descriptor_parse)
{
    rve_ori_spec sp;
    rve_err e;
    ck_assert_int_eq(rve_ori_parse_descriptor("rodrigues:passive", 3.5, &sp, &e), RVE_OK);
    ck_assert(sp.des == RVE_ORI_RODRIGUES && sp.conv == RVE_ORI_PASSIVE && !sp.degrees);
    ck_assert_int_eq(rve_ori_parse_descriptor("rodrigues:active", 3.5, &sp, &e), RVE_OK);
    ck_assert(sp.conv == RVE_ORI_ACTIVE);
    /* before format 3.5 the labels were swapped */
    ck_assert_int_eq(rve_ori_parse_descriptor("rodrigues:active", 2.1, &sp, &e), RVE_OK);
    ck_assert(sp.conv == RVE_ORI_PASSIVE);
    ck_assert_int_eq(rve_ori_parse_descriptor("rodrigues", 2.0, &sp, &e), RVE_OK);
    ck_assert(sp.conv == RVE_ORI_PASSIVE);
    ck_assert_int_eq(rve_ori_parse_descriptor("Euler-Bunge:passive", 2.0, &sp, &e), RVE_OK);
    ck_assert(sp.des == RVE_ORI_EULER_BUNGE && sp.conv == RVE_ORI_ACTIVE && sp.degrees);
    ck_assert_int_eq(rve_ori_parse_descriptor("axis-angle", 3.5, &sp, &e), RVE_OK);
    ck_assert(sp.des == RVE_ORI_AXISANGLE && sp.degrees);
    ck_assert_int_eq(rve_ori_parse_descriptor("miller", 3.5, &sp, &e), RVE_EUSAGE);
    ck_assert_int_eq(rve_ori_parse_descriptor("rodrigues:sideways", 3.5, &sp, &e), RVE_EUSAGE);
    for (int d = 0; d < RVE_ORI_NDES; d++) {
        ck_assert_int_eq(rve_ori_parse_descriptor(rve_ori_des_name((rve_ori_des)d), 3.5, &sp, &e), RVE_OK);
        ck_assert_int_eq(sp.des, d);
    }
    /* bad values */
    rve_ori_spec sq = {RVE_ORI_QUATERNION, RVE_ORI_PASSIVE, 0};
    double q[4], bad[4] = {0.5, 0.5, 0.5, 0.6}, nanq[4] = {NAN, 0, 0, 1};
    ck_assert_int_eq(rve_ori_to_quat(&sq, bad, q, &e), RVE_EDATA);
    ck_assert_int_eq(rve_ori_to_quat(&sq, nanq, q, &e), RVE_EDATA);
    rve_ori_spec sm = {RVE_ORI_MATRIX, RVE_ORI_PASSIVE, 0};
    double refl[9] = {-1, 0, 0, 0, 1, 0, 0, 0, 1};
    ck_assert_int_eq(rve_ori_to_quat(&sm, refl, q, &e), RVE_EDATA);
    rve_ori_spec sr = {RVE_ORI_RODRIGUES, RVE_ORI_PASSIVE, 0};
    double rnan[3] = {0, NAN, 0};
    ck_assert_int_eq(rve_ori_to_quat(&sr, rnan, q, &e), RVE_EDATA);
}
END_TEST

/* One Neper 4.10 run wrote n40-reg.tesr (format 2.2) and n40-reg.tess (3.5)
 * with the same "rodrigues:passive" values: Neper itself is the oracle that
 * both readers give one meaning (the .tesr's must not be read with the
 * pre-2.2 labels, which would invert every grain). */
START_TEST(test_neper_tesr_tess_same_orientations)
{
    TEST_SKIP_WITHOUT_SHARED(dir);
    char pr[4096], pt[4096];
    snprintf(pr, sizeof pr, "%s/neper/n40-reg.tesr", dir);
    snprintf(pt, sizeof pt, "%s/neper/n40-reg.tess", dir);
    rve_err e;
    rve_map *m = NULL;
    rve_tess *t = NULL;
    ck_assert_msg(rve_map_read(pr, RVE_MAP_AUTO, NULL, &m, &e) == RVE_OK, "%s", e.msg);
    ck_assert_msg(rve_tess_read_tess(pt, &t, NULL, &e) == RVE_OK, "%s", e.msg);
    ck_assert_int_eq(t->n, 40);
    ck_assert_uint_eq(m->nlabels, 40);
    double *qt = malloc(4 * 40 * sizeof *qt);
    ck_assert_msg(rve_tess_ori_quat(t, qt, &e) == RVE_OK, "%s", e.msg);
    for (uint32_t l = 1; l <= 40; l++) {
        double qm[4];
        ck_assert_msg(rve_map_grain_quat(m, l, qm, &e) == RVE_OK, "%s", e.msg);
        ck_assert_msg(qdist(qm, qt + 4 * (l - 1)) < 1e-9, "grain %u: .tesr and .tess orientations differ (%g)", l,
                      qdist(qm, qt + 4 * (l - 1)));
    }
    free(qt);
    rve_tess_free(t);
    rve_map_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ori");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_roundtrip_all_pairs);
    tcase_add_test(tc, test_euler_definitions);
    tcase_add_test(tc, test_closed_forms);
    tcase_add_test(tc, test_double_cover);
    tcase_add_test(tc, test_groups);
    tcase_add_test(tc, test_fundamental_zone);
    tcase_add_test(tc, test_disorientation_brute);
    tcase_add_test(tc, test_mackenzie_ks);
    tcase_add_test(tc, test_random_uniform);
    tcase_add_test(tc, test_mean_orientation);
    tcase_add_test(tc, test_descriptor_parse);
    tcase_add_test(tc, test_neper_tesr_tess_same_orientations);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
