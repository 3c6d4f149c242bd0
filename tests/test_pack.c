/* Tests of the pack module: size laws, bodies, broad phase, metrics on
 * lattices, and packings checked pair by pair with independent oracles
 * (exact sphere formula in long double, separating axes for polyhedra). */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <rve/pack.h>
#include <rve/dist.h>
#include <float.h>
#include <math.h>
#include <unistd.h>
#include "pack_oracle.h"
#include "pack_sq_oracle.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------ size laws */
START_TEST(test_law_parse)
{
    rve_distrib l;
    rve_err e;
    ck_assert_int_eq(rve_distrib_parse("lognormal(1,0.2)", &l, &e), RVE_OK);
    ck_assert_int_eq(l.kind, RVE_DISTRIB_LOGNORMAL);
    ck_assert(l.p1 == 1 && l.p2 == 0.2 && isinf(l.lo) && isinf(l.hi));
    ck_assert_int_eq(rve_distrib_parse(" Normal( 2 , 0.5 ,from=1, to=3 ) ", &l, &e), RVE_OK);
    ck_assert_int_eq(l.kind, RVE_DISTRIB_NORMAL);
    ck_assert(l.lo == 1 && l.hi == 3);
    ck_assert_int_eq(rve_distrib_parse("2.5", &l, &e), RVE_OK);
    ck_assert_int_eq(l.kind, RVE_DISTRIB_DIRAC);
    ck_assert(l.p1 == 2.5);
    ck_assert_int_eq(rve_distrib_parse("weibull(2,3)", &l, &e), RVE_OK);
    ck_assert_int_eq(rve_distrib_parse("uniform(1,2)", &l, &e), RVE_OK);
    ck_assert_int_eq(rve_distrib_parse("constant(4)", &l, &e), RVE_OK);
    const char *bad[] = {"", "lognormal", "lognormal(1)", "lognormal(1,0.2", "lognormal(-1,0.2)",
                         "lognormal(1,x)", "gauss(1,2)", "normal(1,-1)", "uniform(2,1)",
                         "normal(1,1,from=3,to=2)", "normal(1,1,foo=3)", "normal(1,1)x",
                         "weibull(0,1)", "nan", "normal(nan,1)"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        rve_err_clear(&e);
        ck_assert_msg(rve_distrib_parse(bad[k], &l, &e) == RVE_EUSAGE, "accepted '%s'", bad[k]);
        ck_assert(e.msg[0] != '\0');
    }
    char buf[128];
    rve_distrib_parse("lognormal(1,0.2,from=0.5)", &l, &e);
    rve_distrib_format(&l, buf, sizeof buf);
    rve_distrib l2;
    ck_assert_int_eq(rve_distrib_parse(buf, &l2, &e), RVE_OK);
    ck_assert(l2.kind == l.kind && l2.p1 == l.p1 && l2.p2 == l.p2 && l2.lo == l.lo && isinf(l2.hi));
}
END_TEST

/* Sample moments against the closed forms (5 standard errors). */
static void check_moments(const char *spec, double mean, double sd)
{
    rve_distrib l;
    rve_err e;
    ck_assert_int_eq(rve_distrib_parse(spec, &l, &e), RVE_OK);
    ck_assert_msg(fabs(rve_distrib_base_mean(&l) - mean) < 1e-12 * fmax(1, mean), "%s mean", spec);
    ck_assert_msg(fabs(rve_distrib_base_sd(&l) - sd) < 1e-12 * fmax(1, sd), "%s sd", spec);
    rve_rng r;
    rve_rng_seed(&r, 42);
    const int n = 40000;
    double s1 = 0, s2 = 0;
    for (int i = 0; i < n; i++) {
        double x;
        ck_assert_int_eq(rve_distrib_sample(&l, &r, &x), RVE_OK);
        s1 += x;
        s2 += x * x;
    }
    double m = s1 / n, v = s2 / n - m * m;
    ck_assert_msg(fabs(m - mean) < 5 * sd / sqrt(n) + 1e-12, "%s: sample mean %g vs %g", spec, m, mean);
    ck_assert_msg(fabs(sqrt(v) - sd) < 5 * sd / sqrt(2.0 * n) * 2 + 1e-12, "%s: sample sd %g vs %g", spec,
                  sqrt(v), sd);
}

START_TEST(test_law_moments)
{
    check_moments("lognormal(1,0.2)", 1, 0.2);
    check_moments("lognormal(3,1.5)", 3, 1.5);
    check_moments("normal(2,0.3)", 2, 0.3);
    /* Weibull k=2, lambda=3: mean 3 Gamma(1.5) = 1.5 sqrt(pi), var 9 (1 - pi/4) */
    check_moments("weibull(2,3)", 1.5 * sqrt(M_PI), 3 * sqrt(1 - M_PI / 4));
    check_moments("uniform(1,3)", 2, 2 / sqrt(12.0));
    /* truncation */
    rve_distrib l;
    rve_err e;
    rve_distrib_parse("normal(0,1,from=0.5,to=0.7)", &l, &e);
    rve_rng r;
    rve_rng_seed(&r, 1);
    for (int i = 0; i < 1000; i++) {
        double x;
        ck_assert_int_eq(rve_distrib_sample(&l, &r, &x), RVE_OK);
        ck_assert(x >= 0.5 && x <= 0.7);
    }
    ck_assert_int_eq(rve_distrib_parse("normal(0,1,from=100)", &l, &e), RVE_EUSAGE);
}
END_TEST

/* Uniform rotations: unit quaternions, E[R] = 0, E[R_ij^2] = 1/3. */
START_TEST(test_uniform_quaternions)
{
    rve_rng r;
    rve_rng_seed(&r, 9);
    const int n = 30000;
    double m[3][3] = {{0}}, m2 = 0;
    for (int i = 0; i < n; i++) {
        double q[4];
        rve_rng_quat(&r, q);
        ck_assert(fabs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1) < 1e-14);
        for (int c = 0; c < 3; c++) {
            double ex[3] = {0, 0, 0}, out[3];
            ex[c] = 1;
            /* rotate e_c by q (independent formula: R = I + 2w[u]x + 2[u]x^2) */
            double w = q[0], u[3] = {q[1], q[2], q[3]};
            double uxe[3] = {u[1] * ex[2] - u[2] * ex[1], u[2] * ex[0] - u[0] * ex[2], u[0] * ex[1] - u[1] * ex[0]};
            double uxuxe[3] = {u[1] * uxe[2] - u[2] * uxe[1], u[2] * uxe[0] - u[0] * uxe[2],
                               u[0] * uxe[1] - u[1] * uxe[0]};
            for (int a = 0; a < 3; a++) {
                out[a] = ex[a] + 2 * w * uxe[a] + 2 * uxuxe[a];
                m[a][c] += out[a];
            }
            m2 += out[0] * out[0];
        }
    }
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++)
            ck_assert_msg(fabs(m[a][c] / n) < 5 * sqrt(1.0 / 3 / n), "E[R_%d%d] = %g", a, c, m[a][c] / n);
    ck_assert(fabs(m2 / (3.0 * n) - 1.0 / 3) < 0.01);
}
END_TEST

/* ------------------------------------------------------------------ bodies */
/* Superquadric volume by quadrature over z of the superellipse area
 * 4 A B Gamma(1+1/n)^2 / Gamma(1+2/n) (independent of the Beta formula). */
static double sq_volume_quad(double a, double b, double c, double n1, double n2)
{
    const int m = 200000;
    double v = 0;
    for (int k = 0; k < m; k++) {
        double z = c * (k + 0.5) / m;
        double t = 1 - pow(z / c, n1);
        if (t <= 0)
            continue;
        double s = pow(t, 1.0 / n1); /* |x/a|^n2+|y/b|^n2 <= s^n2 */
        double area = 4 * a * s * b * s * tgamma(1 + 1 / n2) * tgamma(1 + 1 / n2) / tgamma(1 + 2 / n2);
        v += area * c / m;
    }
    return 2 * v;
}

START_TEST(test_shapes_volume)
{
    rve_pack_body b;
    rve_err e;
    ck_assert_int_eq(rve_pack_body_sphere(&b, 2, &e), RVE_OK);
    ck_assert(fabs(b.volume - 32 * M_PI / 3) < 1e-12);
    ck_assert_int_eq(rve_pack_body_ellipsoid(&b, 1, 2, 3, &e), RVE_OK);
    ck_assert(fabs(b.volume - 8 * M_PI) < 1e-12);
    ck_assert_int_eq(rve_pack_body_superquadric(&b, 1, 2, 3, 2, 2, &e), RVE_OK);
    ck_assert(fabs(b.volume - 8 * M_PI) < 1e-9);
    double cases[][5] = {{1, 1, 1, 4, 4}, {1, 0.5, 2, 3, 6}, {2, 1, 1, 8, 2.5}, {1, 1, 1, 20, 20}};
    for (int k = 0; k < 4; k++) {
        double *p = cases[k];
        ck_assert_int_eq(rve_pack_body_superquadric(&b, p[0], p[1], p[2], p[3], p[4], &e), RVE_OK);
        double q = sq_volume_quad(p[0], p[1], p[2], p[3], p[4]);
        ck_assert_msg(fabs(b.volume - q) < 1e-6 * q, "superquadric %d: %g vs %g", k, b.volume, q);
    }
    ck_assert_int_eq(rve_pack_body_sphere(&b, -1, &e), RVE_EDATA);
    ck_assert_int_eq(rve_pack_body_sphere(&b, NAN, &e), RVE_EDATA);
    ck_assert_int_eq(rve_pack_body_superquadric(&b, 1, 1, 1, 1.5, 2, &e), RVE_EDATA);
    /* cube [1,3]^3 with interior points: 8 hull vertices, volume 8, centroid (2,2,2) */
    double pts[3 * 12];
    int n = 0;
    for (int c = 0; c < 8; c++) {
        pts[3 * n] = c & 1 ? 3 : 1;
        pts[3 * n + 1] = c & 2 ? 3 : 1;
        pts[3 * n + 2] = c & 4 ? 3 : 1;
        n++;
    }
    double inner[4][3] = {{2, 2, 2}, {1.5, 2, 2.5}, {2.9, 1.1, 2}, {2, 2, 1.01}};
    for (int k = 0; k < 4; k++, n++)
        for (int a = 0; a < 3; a++)
            pts[3 * n + a] = inner[k][a];
    ck_assert_int_eq(rve_pack_body_poly(&b, n, pts, &e), RVE_OK);
    ck_assert_int_eq(b.nv, 8);
    ck_assert_int_eq(b.nf, 6);
    ck_assert(fabs(b.volume - 8) < 1e-12);
    for (int a = 0; a < 3; a++)
        ck_assert(fabs(b.x[a] - 2) < 1e-12);
    ck_assert(fabs(b.rbound - sqrt(3.0)) < 1e-12);
    rve_pack_body_free(&b);
    /* flat and degenerate point sets */
    double flat[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.5, 0.5, 0};
    ck_assert_int_eq(rve_pack_body_poly(&b, 5, flat, &e), RVE_EDATA);
    double same[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    ck_assert_int_eq(rve_pack_body_poly(&b, 4, same, &e), RVE_EDATA);
    double nanp[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, NAN};
    ck_assert_int_eq(rve_pack_body_poly(&b, 4, nanp, &e), RVE_EDATA);
}
END_TEST

/* Issue 21: one support function per shape.  The pack body's support must be
 * the distance kernel's (a shape built here from the same parameters and
 * pose), else a wall check and GJK could disagree about the same surface. */
START_TEST(test_support_is_dist_support)
{
    rve_rng r;
    rve_rng_seed(&r, 21);
    rve_err e;
    double cube[24];
    for (int k = 0; k < 8; k++)
        for (int a = 0; a < 3; a++)
            cube[3 * k + a] = ((k >> a) & 1) ? 0.5 + 0.3 * a : -0.5;
    for (int kind = 0; kind < 5; kind++) {
        rve_pack_body b;
        rve_shape s;
        const double o[3] = {0, 0, 0};
        switch (kind) {
        case 0:
            ck_assert_int_eq(rve_pack_body_sphere(&b, 0.7, &e), RVE_OK);
            rve_shape_sphere(&s, o, 0.7);
            break;
        case 1:
            ck_assert_int_eq(rve_pack_body_ellipsoid(&b, 1, 0.6, 0.3, &e), RVE_OK);
            rve_shape_ellipsoid(&s, 1, 0.6, 0.3);
            break;
        case 2:
            ck_assert_int_eq(rve_pack_body_superquadric(&b, 1, 0.7, 0.4, 4, 3, &e), RVE_OK);
            rve_shape_superquadric(&s, 1, 0.7, 0.4, 4, 3);
            break;
        case 3:
            ck_assert_int_eq(rve_pack_body_superquadric(&b, 0.5, 1, 2, 10, 2.5, &e), RVE_OK);
            rve_shape_superquadric(&s, 0.5, 1, 2, 10, 2.5);
            break;
        default:
            ck_assert_int_eq(rve_pack_body_poly(&b, 8, cube, &e), RVE_OK);
            ck_assert_int_eq(b.nv, 8);
            rve_shape_polytope(&s, b.v, b.nv, NULL);
            break;
        }
        rve_rng_quat(&r, b.q);
        b.x[0] = 1.5;
        b.x[1] = -2;
        b.x[2] = 0.25;
        rve_shape_set_pose(&s, b.x, b.q);
        for (int t = 0; t < 200; t++) {
            double d[3] = {rve_rng_normal(&r), rve_rng_normal(&r), rve_rng_normal(&r)};
            double p1[3], p2[3];
            rve_pack_body_support(&b, d, p1);
            rve_shape_support(&s, d, p2);
            for (int a = 0; a < 3; a++)
                ck_assert_msg(fabs(p1[a] - p2[a]) <= 1e-14 * 4, "shape %d: pack %.17g dist %.17g", kind, p1[a],
                              p2[a]);
        }
        rve_pack_body_free(&b);
    }
}
END_TEST

/* Support points: on the surface and maximal against dense surface samples. */
START_TEST(test_support)
{
    rve_pack_body b;
    rve_err e;
    rve_rng r;
    rve_rng_seed(&r, 3);
    double shapes[][5] = {{1, 0.7, 0.4, 2, 2}, {1, 0.7, 0.4, 4, 3}, {0.5, 1, 2, 10, 2.5}};
    for (int s = 0; s < 3; s++) {
        double *p = shapes[s];
        ck_assert_int_eq(rve_pack_body_superquadric(&b, p[0], p[1], p[2], p[3], p[4], &e), RVE_OK);
        rve_rng_quat(&r, b.q);
        b.x[0] = 1;
        b.x[1] = -2;
        b.x[2] = 0.5;
        for (int t = 0; t < 20; t++) {
            double d[3] = {rve_rng_normal(&r), rve_rng_normal(&r), rve_rng_normal(&r)}, sp[3];
            rve_pack_body_support(&b, d, sp);
            /* back to the body frame: on the surface F = 1 */
            double l[3], qc[4] = {b.q[0], -b.q[1], -b.q[2], -b.q[3]};
            double rel[3] = {sp[0] - b.x[0], sp[1] - b.x[1], sp[2] - b.x[2]};
            /* rotate rel by the conjugate: v + 2w(u x v) + 2u x (u x v) */
            double u[3] = {qc[1], qc[2], qc[3]}, w = qc[0];
            double uv[3] = {u[1] * rel[2] - u[2] * rel[1], u[2] * rel[0] - u[0] * rel[2], u[0] * rel[1] - u[1] * rel[0]};
            double uuv[3] = {u[1] * uv[2] - u[2] * uv[1], u[2] * uv[0] - u[0] * uv[2], u[0] * uv[1] - u[1] * uv[0]};
            for (int a = 0; a < 3; a++)
                l[a] = rel[a] + 2 * w * uv[a] + 2 * uuv[a];
            double F = pow(pow(fabs(l[0] / p[0]), p[4]) + pow(fabs(l[1] / p[1]), p[4]), p[3] / p[4]) +
                       pow(fabs(l[2] / p[2]), p[3]);
            ck_assert_msg(fabs(F - 1) < 1e-9, "shape %d: F = %.17g", s, F);
            /* maximal: no sampled surface point does better */
            double best = -INFINITY;
            for (int i = 0; i <= 200; i++)
                for (int j = 0; j < 400; j++) {
                    double eta = -M_PI / 2 + M_PI * i / 200, om = 2 * M_PI * j / 400;
                    double ce = copysign(pow(fabs(cos(eta)), 2 / p[3]), cos(eta));
                    double se = copysign(pow(fabs(sin(eta)), 2 / p[3]), sin(eta));
                    double x[3] = {p[0] * ce * copysign(pow(fabs(cos(om)), 2 / p[4]), cos(om)),
                                   p[1] * ce * copysign(pow(fabs(sin(om)), 2 / p[4]), sin(om)), p[2] * se};
                    /* world: rotate by q */
                    double uu[3] = {b.q[1], b.q[2], b.q[3]}, ww = b.q[0];
                    double ux[3] = {uu[1] * x[2] - uu[2] * x[1], uu[2] * x[0] - uu[0] * x[2], uu[0] * x[1] - uu[1] * x[0]};
                    double uux[3] = {uu[1] * ux[2] - uu[2] * ux[1], uu[2] * ux[0] - uu[0] * ux[2],
                                     uu[0] * ux[1] - uu[1] * ux[0]};
                    double dot = 0;
                    for (int a = 0; a < 3; a++)
                        dot += d[a] * (x[a] + 2 * ww * ux[a] + 2 * uux[a] + b.x[a]);
                    best = fmax(best, dot);
                }
            double ours = d[0] * sp[0] + d[1] * sp[1] + d[2] * sp[2];
            ck_assert_msg(ours >= best - 1e-9 * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]),
                          "shape %d: support %g below a sample %g", s, ours, best);
        }
    }
}
END_TEST

/* ------------------------------------------------------------ broad phase */
static int pair_cmp(const void *a, const void *b)
{
    const rve_pack_pair *x = a, *y = b;
    if (x->i != y->i) return x->i - y->i;
    if (x->j != y->j) return x->j - y->j;
    for (int k = 0; k < 3; k++)
        if (x->shift[k] != y->shift[k]) return x->shift[k] - y->shift[k];
    return 0;
}

START_TEST(test_broad_phase_all_pairs)
{
    rve_rng r;
    rve_rng_seed(&r, 11);
    int reps = (int)(30 * test_scale() * (test_long() ? 1 : 0.3)) + 2; /* every rep % 12 kind */
    for (int rep = 0; rep < reps; rep++) {
        int n = 5 + (int)(rve_rng_uniform(&r) * (rep % 3 == 0 ? 20 : 400));
        rve_pack_set *s = rve_pack_set_alloc((size_t)n);
        s->periodic = rep % 2;
        for (int k = 0; k < 3; k++)
            s->L[k] = 2 + 20 * rve_rng_uniform(&r);
        rve_err e;
        for (int i = 0; i < n; i++) {
            ck_assert_int_eq(rve_pack_body_sphere(&s->b[i], 0.2 + rve_rng_uniform(&r), &e), RVE_OK);
            /* periodic positions are not always wrapped (the soft relaxation
             * moves bodies freely): every other periodic set has bodies up to
             * two boxes away */
            int unwrapped = s->periodic && rep % 4 == 3;
            for (int k = 0; k < 3; k++)
                s->b[i].x[k] = s->L[k] * (rve_rng_uniform(&r) +
                                          (unwrapped ? (int)(rve_rng_next(&r) % 5) - 2 : 0));
        }
        double margin = 0.3 * rve_rng_uniform(&r);
        rve_pack_pair *p = NULL;
        size_t np = 0, cap = 0;
        ck_assert_int_eq(rve_pack_broad_phase(s, margin, &p, &np, &cap, &e), RVE_OK);
        /* all pairs, all images within a wide range */
        size_t nb = 0, capb = 1024;
        rve_pack_pair *q = malloc(capb * sizeof *q);
        int m = s->periodic ? 6 : 0;
        for (int i = 0; i < n; i++)
            for (int j = i; j < n; j++)
                for (int a = -m; a <= m; a++)
                    for (int b = -m; b <= m; b++)
                        for (int c = -m; c <= m; c++) {
                            if (i == j && (a < 0 || (a == 0 && b < 0) || (a == 0 && b == 0 && c <= 0)))
                                continue;
                            long double d2 = 0;
                            int sh[3] = {a, b, c};
                            for (int k = 0; k < 3; k++) {
                                long double dk = (long double)s->b[j].x[k] + (long double)sh[k] * s->L[k] - s->b[i].x[k];
                                d2 += dk * dk;
                            }
                            long double lim = (long double)s->b[i].rbound + s->b[j].rbound + margin;
                            if (d2 <= lim * lim) {
                                if (nb == capb)
                                    q = realloc(q, (capb *= 2) * sizeof *q);
                                q[nb].i = i;
                                q[nb].j = j;
                                memcpy(q[nb].shift, sh, sizeof sh);
                                nb++;
                            }
                        }
        if (np)
            qsort(p, np, sizeof *p, pair_cmp);
        if (nb)
            qsort(q, nb, sizeof *q, pair_cmp);
        ck_assert_msg(np == nb, "rep %d (n %d, periodic %d): broad phase %zu pairs, all pairs %zu", rep, n,
                      s->periodic, np, nb);
        for (size_t k = 0; k < np; k++)
            ck_assert(pair_cmp(&p[k], &q[k]) == 0);
        free(p);
        free(q);
        rve_pack_set_free(s);
    }
}
END_TEST

/* --------------------------------------------------------- lattice metrics */
static rve_pack_set *lattice(int kind, int k, double a)
{
    /* kind 0 simple cubic, 1 BCC, 2 FCC; touching spheres */
    static const double basis[3][4][3] = {
        {{0, 0, 0}},
        {{0, 0, 0}, {0.5, 0.5, 0.5}},
        {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}}};
    int nb = kind == 0 ? 1 : kind == 1 ? 2 : 4;
    double r = kind == 0 ? a / 2 : kind == 1 ? a * sqrt(3.0) / 4 : a / (2 * sqrt(2.0));
    rve_pack_set *s = rve_pack_set_alloc((size_t)(nb * k * k * k));
    s->periodic = 1;
    s->L[0] = s->L[1] = s->L[2] = k * a;
    int n = 0;
    rve_err e;
    for (int x = 0; x < k; x++)
        for (int y = 0; y < k; y++)
            for (int z = 0; z < k; z++)
                for (int b = 0; b < nb; b++) {
                    rve_pack_body_sphere(&s->b[n], r, &e);
                    s->b[n].x[0] = (x + basis[kind][b][0] + 0.25) * a;
                    s->b[n].x[1] = (y + basis[kind][b][1] + 0.25) * a;
                    s->b[n].x[2] = (z + basis[kind][b][2] + 0.25) * a;
                    n++;
                }
    return s;
}

START_TEST(test_lattice_metrics)
{
    const double phi[3] = {M_PI / 6, M_PI * sqrt(3.0) / 8, M_PI / (3 * sqrt(2.0))};
    const double z[3] = {6, 8, 12};
    for (int kind = 0; kind < 3; kind++)
        for (int k = 1; k <= 4; k++) {
            rve_pack_set *s = lattice(kind, k, 1.7);
            rve_pack_metrics m;
            rve_err e;
            ck_assert_int_eq(rve_pack_measure(s, 1e-9, &m, &e), RVE_OK);
            ck_assert_msg(fabs(m.fraction - phi[kind]) < 1e-12, "kind %d k %d fraction %.15g", kind, k, m.fraction);
            ck_assert(fabs(m.void_ratio - (1 - phi[kind]) / phi[kind]) < 1e-12);
            if (kind == 0 || k >= 2) /* a 1-cell box holds images of the same pair on several sides */
                ck_assert_msg(fabs(m.z - z[kind]) < 1e-12, "kind %d k %d Z %g", kind, k, m.z);
            ck_assert(m.max_overlap < 1e-12);
            ck_assert_int_eq(m.rattlers, 0);
            rve_pack_set_free(s);
        }
    /* FCC with 0.74048 and Z = 12, larger, on a walled box the contacts drop */
    rve_pack_set *s = lattice(2, 5, 1.0);
    rve_pack_metrics m;
    rve_err e;
    ck_assert_int_eq(rve_pack_measure(s, 1e-9, &m, &e), RVE_OK);
    ck_assert(fabs(m.fraction - 0.74048) < 1e-5 && fabs(m.z - 12) < 1e-12);
    rve_pack_set_free(s);
}
END_TEST

/* The oracle itself: two unit cubes, one turned, at known overlaps. */
START_TEST(test_sat_oracle)
{
    double a[24], b[24];
    for (int c = 0; c < 8; c++)
        for (int k = 0; k < 3; k++)
            a[3 * c + k] = (c >> k) & 1 ? 0.5 : -0.5;
    const double gaps[] = {1e-6, 1e-9, 0, -1e-9, -1e-6, -0.1};
    for (int g = 0; g < 6; g++) {
        /* b: cube turned 45 degrees about z, its edge x = 0.5*sqrt(2) + 0.5 + gap away */
        double off = 0.5 + 0.5 * sqrt(2.0) + gaps[g];
        for (int c = 0; c < 8; c++) {
            double x = (c & 1) ? 0.5 : -0.5, y = (c & 2) ? 0.5 : -0.5, z = (c & 4) ? 0.5 : -0.5;
            b[3 * c] = (x - y) / sqrt(2.0) + off;
            b[3 * c + 1] = (x + y) / sqrt(2.0) + 0.1;
            b[3 * c + 2] = z + 0.2;
        }
        long double o = sat_overlap(a, 8, b, 8);
        ck_assert_msg(fabsl(o + gaps[g]) < 1e-12, "gap %g: oracle overlap %Lg", gaps[g], o);
    }
}
END_TEST

/* The output lines through the `rve dist` parser: same bodies. */
static void check_roundtrip(const rve_pack_set *s)
{
    char path[] = "/tmp/rve-test-pack-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    rve_err e;
    ck_assert_int_eq(rve_pack_set_write(s, fp, &e), RVE_OK);
    fclose(fp);
    char *text;
    size_t len;
    ck_assert_int_eq(rve_read_file(path, &text, &len, &e), RVE_OK);
    ck_assert(strncmp(text, "# domain ", 9) == 0);
    double L[3];
    char kind[16];
    ck_assert_int_eq(sscanf(text, "# domain %lf %lf %lf %15s", &L[0], &L[1], &L[2], kind), 4);
    ck_assert_str_eq(kind, s->periodic ? "periodic" : "walls");
    for (int a = 0; a < 3; a++)
        ck_assert(L[a] == s->L[a]);
    const char *cur = text;
    for (size_t i = 0; i < s->n; i++) {
        rve_shape sh;
        ck_assert_msg(rve_shape_parse(&cur, &sh, &e) == RVE_OK, "body %zu: %s", i, e.msg);
        const rve_pack_body *b = &s->b[i];
        /* compare support points in a few directions (world frame) */
        for (int d = 0; d < 6; d++) {
            double dir[3] = {0, 0, 0}, p1[3], p2[3];
            dir[d % 3] = d < 3 ? 1 : -1;
            dir[(d + 1) % 3] = 0.3;
            rve_shape_support(&sh, dir, p1);
            rve_pack_body_support(b, dir, p2);
            double dd = dir[0] * (p1[0] - p2[0]) + dir[1] * (p1[1] - p2[1]) + dir[2] * (p1[2] - p2[2]);
            ck_assert_msg(fabs(dd) < 1e-12 * (1 + b->rbound + fabs(b->x[0]) + fabs(b->x[1]) + fabs(b->x[2])),
                          "body %zu direction %d differs by %g", i, d, dd);
        }
        rve_shape_free(&sh);
    }
    ck_assert(rve_shape_text_end(&cur));
    /* and back through our reader */
    rve_pack_set *r;
    ck_assert_int_eq(rve_pack_set_read(path, &r, &e), RVE_OK);
    ck_assert_int_eq(r->n, s->n);
    ck_assert_int_eq(r->periodic, s->periodic);
    for (size_t i = 0; i < s->n; i++)
        ck_assert(fabs(r->b[i].volume - s->b[i].volume) < 1e-9 * s->b[i].volume);
    rve_pack_set_free(r);
    free(text);
    unlink(path);
}

static rve_pack_set *random_spheres(int n, const char *law_s, int periodic, uint64_t seed)
{
    rve_pack_set *s = rve_pack_set_alloc((size_t)n);
    s->periodic = periodic;
    rve_distrib law;
    rve_err e;
    ck_assert_int_eq(rve_distrib_parse(law_s, &law, &e), RVE_OK);
    rve_rng r;
    rve_rng_seed(&r, seed);
    for (int i = 0; i < n; i++) {
        double x;
        ck_assert_int_eq(rve_distrib_sample(&law, &r, &x), RVE_OK);
        ck_assert_int_eq(rve_pack_body_sphere(&s->b[i], x, &e), RVE_OK);
    }
    return s;
}

START_TEST(test_pack_spheres)
{
    int n = test_scale() < 1 || !test_long() ? 60 : 250; /* 250: make check-long */
    for (int periodic = 0; periodic < 2; periodic++) {
        rve_pack_set *s = random_spheres(n, "lognormal(1,0.2)", periodic, 5 + periodic);
        rve_pack_params p;
        rve_pack_params_init(&p);
        p.seed = 3;
        p.max_seconds = 20;
        rve_pack_result res;
        rve_err e;
        ck_assert_msg(rve_pack_run(s, &p, &res, &e) == RVE_OK, "%s", e.msg);
        double rmean = 0;
        for (int i = 0; i < n; i++)
            rmean += s->b[i].a[0] / n;
        long double ov = sphere_max_overlap(s);
        ck_assert_msg(ov <= 1e-9L * rmean, "periodic %d: overlap %Lg", periodic, ov);
        double vs = 0;
        for (int i = 0; i < n; i++)
            vs += 4.0 / 3.0 * M_PI * pow(s->b[i].a[0], 3);
        double phi = vs / (s->L[0] * s->L[1] * s->L[2]);
        ck_assert(fabs(phi - res.fraction) < 1e-12);
        /* a dense random packing: well above random sequential insertion (~0.38) */
        ck_assert_msg(phi > (periodic ? 0.58 : 0.5), "periodic %d: fraction %g", periodic, phi);
        rve_pack_metrics m;
        ck_assert_int_eq(rve_pack_measure(s, 1e-3 * rmean, &m, &e), RVE_OK);
        ck_assert(fabs(m.fraction - phi) < 1e-12);
        ck_assert(m.max_overlap <= 1e-9 * rmean);
        check_roundtrip(s);
        rve_pack_set_free(s);
    }
}
END_TEST

START_TEST(test_pack_spheres_target)
{
    /* a requested fraction is reached exactly, and a fixed domain is filled */
    rve_pack_set *s = random_spheres(80, "uniform(0.5,1)", 1, 7);
    rve_pack_params p;
    rve_pack_params_init(&p);
    p.target_fraction = 0.5;
    rve_pack_result res;
    rve_err e;
    ck_assert_int_eq(rve_pack_run(s, &p, &res, &e), RVE_OK);
    ck_assert(res.reached_target);
    ck_assert(fabs(res.fraction - 0.5) < 1e-6);
    ck_assert(sphere_max_overlap(s) <= 0);
    rve_pack_set_free(s);
    s = random_spheres(80, "1", 0, 8);
    rve_pack_params_init(&p);
    p.fixed_domain = 1;
    s->L[0] = 12;
    s->L[1] = 10;
    s->L[2] = 12; /* fraction 0.233 */
    ck_assert_int_eq(rve_pack_run(s, &p, &res, &e), RVE_OK);
    ck_assert(s->L[0] == 12 && s->L[1] == 10 && s->L[2] == 12);
    ck_assert(sphere_max_overlap(s) <= 0);
    rve_pack_set_free(s);
    /* impossible: 80 unit spheres in a box of volume 300 */
    s = random_spheres(80, "1", 0, 8);
    s->L[0] = s->L[1] = s->L[2] = cbrt(300.0);
    ck_assert_int_eq(rve_pack_run(s, &p, &res, &e), RVE_EDATA);
    rve_pack_set_free(s);
}
END_TEST


START_TEST(test_pack_polyhedra)
{
    int n = test_scale() < 1 || !test_long() ? 12 : 40; /* 40: make check-long */
    for (int periodic = 0; periodic < 2; periodic++) {
        rve_pack_set *s = random_polys(n, periodic, 21 + periodic);
        rve_pack_params p;
        rve_pack_params_init(&p);
        p.max_seconds = 10;
        p.target_fraction = 0.45;
        rve_pack_result res;
        rve_err e;
        ck_assert_msg(rve_pack_run(s, &p, &res, &e) == RVE_OK, "%s", e.msg);
        double rmean = 0;
        for (int i = 0; i < n; i++)
            rmean += s->b[i].rbound / n;
        long double ov = poly_max_overlap(s);
        ck_assert_msg(ov <= 1e-9L * rmean, "periodic %d: SAT overlap %Lg", periodic, ov);
        ck_assert_msg(res.fraction > 0.3, "fraction %g", res.fraction);
        check_roundtrip(s);
        rve_pack_set_free(s);
    }
}
END_TEST

START_TEST(test_pack_ellipsoids_mc)
{
    /* other shapes and the Monte Carlo method, checked with the dist kernel */
    int n = 30;
    rve_pack_set *s = rve_pack_set_alloc((size_t)n);
    s->periodic = 0;
    rve_err e;
    for (int i = 0; i < n; i++) {
        if (i % 2)
            ck_assert_int_eq(rve_pack_body_ellipsoid(&s->b[i], 1, 0.6, 0.4, &e), RVE_OK);
        else
            ck_assert_int_eq(rve_pack_body_superquadric(&s->b[i], 0.8, 0.7, 0.5, 4, 3, &e), RVE_OK);
    }
    for (int method = RVE_PACK_SOFT; method <= RVE_PACK_MC; method++) {
        rve_pack_params p;
        rve_pack_params_init(&p);
        p.method = (rve_pack_method)method;
        p.target_fraction = 0.35;
        p.max_seconds = 10;
        rve_pack_result res;
        ck_assert_msg(rve_pack_run(s, &p, &res, &e) == RVE_OK, "%s", e.msg);
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                double sep;
                int ov;
                int sh[3] = {0, 0, 0};
                ck_assert_int_eq(rve_pack_separation(s, i, j, sh, &sep, &ov), RVE_OK);
                ck_assert_msg(!ov && sep >= 0, "method %d: bodies %d %d overlap", method, i, j);
            }
            /* inside the walls: support points along the axes */
            for (int a = 0; a < 6; a++) {
                double d[3] = {0, 0, 0}, pt[3];
                d[a % 3] = a < 3 ? 1 : -1;
                rve_pack_body_support(&s->b[i], d, pt);
                ck_assert(pt[a % 3] >= -1e-12 && pt[a % 3] <= s->L[a % 3] + 1e-12);
            }
            /* and by an oracle that shares no code with the packer */
            ck_assert_msg(psq_violations(s, (size_t)i) == 0, "method %d: body %d overlaps (surface samples)",
                          method, i);
        }
        check_roundtrip(s);
    }
    rve_pack_set_free(s);
}
END_TEST

/* The surface-sample oracle can fail: two rotated ellipsoids 1e-3 apart
 * along their touching axes pass, 1e-2 into each other fail, and so does a
 * body across a wall. */
START_TEST(test_sq_oracle)
{
    rve_pack_set *s = rve_pack_set_alloc(2);
    rve_err e;
    s->periodic = 0;
    for (int k = 0; k < 3; k++)
        s->L[k] = 10;
    ck_assert_int_eq(rve_pack_body_ellipsoid(&s->b[0], 1, 0.6, 0.4, &e), RVE_OK);
    ck_assert_int_eq(rve_pack_body_superquadric(&s->b[1], 0.8, 0.7, 0.5, 4, 3, &e), RVE_OK);
    /* a quarter turn about z: body 1's x axis along world y */
    const double h = sqrt(0.5), qz[4] = {h, 0, 0, h}, q0[4] = {1, 0, 0, 0};
    for (int k = 0; k < 4; k++)
        s->b[0].q[k] = q0[k], s->b[1].q[k] = qz[k];
    const double gaps[2] = {1e-3, -1e-2};
    for (int g = 0; g < 2; g++) {
        /* body 0's +x tip at 5 + 1; body 1's -y world side is its -x body side, 0.8 away */
        s->b[0].x[0] = 5, s->b[0].x[1] = 5, s->b[0].x[2] = 5;
        s->b[1].x[0] = 6 + 0.7 + gaps[g], s->b[1].x[1] = 5, s->b[1].x[2] = 5;
        long v = psq_violations(s, 0) + psq_violations(s, 1);
        ck_assert_msg(g == 0 ? v == 0 : v > 0, "gap %g: %ld violations", gaps[g], v);
    }
    s->b[1].x[0] = 9.5; /* 0.7 wide in x: crosses the wall at 10 */
    ck_assert(psq_violations(s, 1) > 0);
    rve_pack_set_free(s);
}
END_TEST

START_TEST(test_bodies_parse_errors)
{
    rve_pack_body *b;
    size_t n;
    double L[3];
    int hd, per;
    rve_err e;
    const char *bad[] = {"sphere 0 0 0 -1", "sphere 0 0 x 1", "sphere 0 0 0", "cube 0 0 0 1",
                         "poly 4 0 0 0 1 0 0 0 1 0 1 1 0", "ellipsoid 0 0 0 1 1 1 0 0 0 0",
                         "superquadric 0 0 0 1 1 1 1 2 1 0 0 0", "# domain 1 1 walls\nsphere 0 0 0 1",
                         "# domain 1 1 1 sideways\nsphere 0 0 0 1", "point 0 0 0", "poly x"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        rve_err_clear(&e);
        ck_assert_msg(rve_pack_bodies_parse(bad[k], "f.txt", &b, &n, L, &hd, &per, &e) == RVE_EDATA,
                      "accepted '%s'", bad[k]);
        ck_assert_str_eq(e.file, "f.txt");
    }
    ck_assert_int_eq(rve_pack_bodies_parse("# domain 2 3 4 walls\nsphere 1 1 1 0.5 # c\nbox 0 0 0 1 1 1 1 0 0 0",
                                           "f", &b, &n, L, &hd, &per, &e),
                     RVE_OK);
    ck_assert_int_eq(n, 2);
    ck_assert(hd == 1 && per == 0 && L[0] == 2 && L[2] == 4);
    ck_assert(fabs(b[1].volume - 8) < 1e-12);
    for (size_t i = 0; i < n; i++)
        rve_pack_body_free(&b[i]);
    free(b);
}
END_TEST

START_TEST(test_vtk)
{
    rve_pack_set *s = random_polys(3, 1, 2);
    rve_err e;
    rve_pack_body_free(&s->b[1]);
    rve_pack_body_sphere(&s->b[1], 1, &e);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_int_eq(rve_pack_set_write_vtk(s, fp, &e), RVE_OK);
    fclose(fp);
    ck_assert(strstr(buf, "DATASET UNSTRUCTURED_GRID") != NULL && strstr(buf, "CELL_TYPES") != NULL);
    size_t np = 0, nt = 0, nn = 0;
    const char *p = strstr(buf, "POINTS ");
    ck_assert(p && sscanf(p, "POINTS %zu", &np) == 1);
    p = strstr(buf, "CELLS ");
    ck_assert(p && sscanf(p, "CELLS %zu %zu", &nt, &nn) == 2);
    ck_assert(nn == 4 * nt && nt > 0 && np > 0);
    p = strstr(buf, "CELL_DATA ");
    size_t nc = 0;
    ck_assert(p && sscanf(p, "CELL_DATA %zu", &nc) == 1 && nc == nt);
    free(buf);
    rve_pack_set_free(s);
}
END_TEST


int main(void)
{
    Suite *s = suite_create("pack");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_law_parse);
    tcase_add_test(tc, test_law_moments);
    tcase_add_test(tc, test_uniform_quaternions);
    tcase_add_test(tc, test_shapes_volume);
    tcase_add_test(tc, test_support);
    tcase_add_test(tc, test_support_is_dist_support);
    tcase_add_test(tc, test_broad_phase_all_pairs);
    tcase_add_test(tc, test_lattice_metrics);
    tcase_add_test(tc, test_sat_oracle);
    tcase_add_test(tc, test_bodies_parse_errors);
    tcase_add_test(tc, test_sq_oracle);
    tcase_add_test(tc, test_vtk);
    tcase_add_test(tc, test_pack_spheres);
    tcase_add_test(tc, test_pack_spheres_target);
    tcase_add_test(tc, test_pack_polyhedra);
    tcase_add_test(tc, test_pack_ellipsoids_mc);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
