/* Tests of statistical synthesis and prescribed-volume Laguerre diagrams (issue 9).
 * Oracles: closed-form CDFs and quantiles, brute-force KS suprema, the
 * volumes of a fresh tessellation (voro++, tess module) and voxel counts of
 * the exact power-distance rasteriser, never the solver's own numbers. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <rve/optim.h>
#include <rve/tess.h>
#include <math.h>
#include <unistd.h>

static double urand(unsigned long long *z)
{
    *z += 0x9E3779B97F4A7C15ULL;
    unsigned long long q = *z;
    q = (q ^ (q >> 30)) * 0xBF58476D1CE4E5B9ULL;
    q = (q ^ (q >> 27)) * 0x94D049BB133111EBULL;
    q ^= q >> 31;
    return ((q >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static rve_distrib parse1(const char *spec, rve_morpho *m)
{
    rve_err e;
    ck_assert_msg(rve_morpho_parse(spec, m, &e) == RVE_OK, "%s: %s", spec, e.msg);
    for (int p = 0; p < RVE_PROP_COUNT; p++)
        if (m->has[p])
            return m->dist[p];
    ck_abort_msg("no property in %s", spec);
    return m->dist[0];
}

/* ----------------------------------------------------------- distributions */
START_TEST(test_distrib_closed_forms)
{
    rve_morpho m;
    rve_distrib d = parse1("diameq:normal(2,0.5)", &m);
    ck_assert_double_eq_tol(rve_distrib_cdf(&d, 2.5), 0.841344746068542949, 1e-12);
    ck_assert_double_eq_tol(rve_distrib_quantile(&d, 0.841344746068542949), 2.5, 1e-9);
    rve_morpho_free(&m);

    /* lognormal(mean, sd) of the variable: mean and sd recovered numerically */
    d = parse1("diameq:lognormal(1,0.35)", &m);
    double s1 = 0, s2 = 0;
    const int K = 200000;
    for (int k = 0; k < K; k++) {
        double x = rve_distrib_quantile(&d, (k + 0.5) / K);
        s1 += x;
        s2 += x * x;
    }
    double mean = s1 / K, sd = sqrt(s2 / K - mean * mean);
    ck_assert_double_eq_tol(mean, 1.0, 2e-4);
    ck_assert_double_eq_tol(sd, 0.35, 2e-3);
    /* median of the lognormal: exp(zeta) with sigma^2 = ln(1 + 0.35^2) */
    double sig2 = log(1 + 0.35 * 0.35);
    ck_assert_double_eq_tol(rve_distrib_quantile(&d, 0.5), exp(-0.5 * sig2), 1e-9);
    rve_morpho_free(&m);

    d = parse1("size:weibull(2,3)", &m);
    for (double x = 0.1; x < 10; x += 0.7)
        ck_assert_double_eq_tol(rve_distrib_cdf(&d, x), 1 - exp(-pow(x / 3, 2)), 1e-12);
    rve_morpho_free(&m);

    /* truncation: renormalised CDF, quantiles inside the bounds */
    d = parse1("diameq:normal(0,1,from=-1,to=2)", &m);
    double Fm1 = 0.158655253931457051, F2 = 0.977249868051820793, F05 = 0.691462461274013103;
    ck_assert_double_eq_tol(rve_distrib_cdf(&d, 0.5), (F05 - Fm1) / (F2 - Fm1), 1e-12);
    ck_assert_double_eq(rve_distrib_cdf(&d, -1.5), 0);
    ck_assert_double_eq(rve_distrib_cdf(&d, 2.5), 1);
    for (int k = 0; k <= 10; k++) {
        double x = rve_distrib_quantile(&d, k / 10.0);
        ck_assert(x >= -1 && x <= 2);
    }
    ck_assert_double_eq_tol(rve_distrib_quantile(&d, (F05 - Fm1) / (F2 - Fm1)), 0.5, 1e-9);
    rve_morpho_free(&m);
}
END_TEST

START_TEST(test_distrib_custom)
{
    char path[] = "/tmp/rve-test-gen-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    /* triangular density on [0, 2] with its peak at 1 (given unnormalised) */
    fprintf(f, "# x density\n0 0\n1 5\n2 0\n");
    fclose(f);
    char spec[256];
    snprintf(spec, sizeof spec, "sphericity:custom(%s)", path);
    rve_morpho m;
    rve_distrib d = parse1(spec, &m);
    for (double x = 0; x <= 2; x += 0.125) {
        double F = x <= 1 ? x * x / 2 : 1 - (2 - x) * (2 - x) / 2;
        ck_assert_double_eq_tol(rve_distrib_cdf(&d, x), F, 1e-12);
    }
    ck_assert_double_eq_tol(rve_distrib_quantile(&d, 0.125), 0.5, 1e-9);
    ck_assert_double_eq_tol(rve_distrib_mean(&d), 1.0, 1e-6);
    rve_morpho_free(&m);
    /* bad files */
    f = fopen(path, "w");
    fprintf(f, "0 1\n1 -1\n");
    fclose(f);
    rve_err e;
    ck_assert_int_eq(rve_morpho_parse(spec, &m, &e), RVE_EDATA);
    ck_assert_str_eq(e.file, path);
    f = fopen(path, "w");
    fprintf(f, "1 1\n0 1\n");
    fclose(f);
    ck_assert_int_eq(rve_morpho_parse(spec, &m, &e), RVE_EDATA);
    unlink(path);
    ck_assert_int_ne(rve_morpho_parse(spec, &m, &e), RVE_OK);
}
END_TEST

START_TEST(test_morpho_parse)
{
    rve_morpho m;
    rve_err e;
    ck_assert_int_eq(rve_morpho_parse("gg", &m, &e), RVE_OK);
    ck_assert(m.has[RVE_PROP_DIAMEQ] && m.has[RVE_PROP_1MSPHERICITY]);
    ck_assert(!m.has[RVE_PROP_SIZE] && !m.has[RVE_PROP_SPHERICITY]);
    ck_assert_int_eq(m.dist[RVE_PROP_DIAMEQ].kind, RVE_DISTRIB_LOGNORMAL);
    ck_assert_double_eq(m.dist[RVE_PROP_1MSPHERICITY].p1, 0.145);
    ck_assert_double_eq(m.dist[RVE_PROP_1MSPHERICITY].p2, 0.03);
    rve_morpho_free(&m);
    ck_assert_int_eq(rve_morpho_parse(" size : 1 , sphericity:normal(0.85, 0.02, from=0.7, to=0.95)", &m, &e), RVE_OK);
    ck_assert_int_eq(m.dist[RVE_PROP_SIZE].kind, RVE_DISTRIB_DIRAC);
    ck_assert_double_eq(m.dist[RVE_PROP_SPHERICITY].lo, 0.7);
    ck_assert_double_eq(m.dist[RVE_PROP_SPHERICITY].hi, 0.95);
    rve_morpho_free(&m);
    const char *bad[] = {"diameq:foo(1,2)", "diameq:lognormal(1)", "xyz:normal(1,1)", "diameq:normal(1,1),size:normal(1,1)",
                         "diameq", "diameq:normal(1,1", "diameq:lognormal(-1,1)", "diameq:normal(1,1,from=2,to=1)",
                         "sphericity:1,1-sphericity:0.1", "diameq:normal(1,0)", "diameq:normal(1,1,2)", ""};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        rve_err_clear(&e);
        ck_assert_msg(rve_morpho_parse(bad[k], &m, &e) == RVE_EUSAGE, "accepted '%s'", bad[k]);
        ck_assert_msg(e.msg[0] != '\0', "no message for '%s'", bad[k]);
    }
}
END_TEST

/* Brute-force KS supremum: the empirical CDF on a fine grid and at the jumps. */
START_TEST(test_ks)
{
    rve_morpho m;
    rve_distrib d = parse1("diameq:normal(0,1)", &m);
    unsigned long long z = 7;
    const size_t n = 300;
    double x[300];
    for (size_t i = 0; i < n; i++)
        x[i] = rve_distrib_quantile(&d, urand(&z)) * 1.1 + 0.05;
    x[7] = x[8]; /* a tie */
    double D = rve_ks_distance(x, n, &d), B = 0;
    for (size_t i = 0; i < n; i++) {
        /* left and right limits of F_n at x[i] */
        size_t below = 0, upto = 0;
        for (size_t j = 0; j < n; j++) {
            below += x[j] < x[i];
            upto += x[j] <= x[i];
        }
        double F = rve_distrib_cdf(&d, x[i]);
        B = fmax(B, fmax(fabs(F - (double)below / n), fabs(F - (double)upto / n)));
    }
    ck_assert_double_eq_tol(D, B, 1e-14);
    /* the critical value at the 5 % level is about 1.358 / sqrt(n) */
    ck_assert_double_eq_tol(rve_ks_pvalue(1.358 / (sqrt(1000.0) + 0.12 + 0.11 / sqrt(1000.0)), 1000), 0.05, 1e-3);
    ck_assert(rve_ks_pvalue(0.01, 1000) > 0.5);
    ck_assert(rve_ks_pvalue(0.1, 1000) < 1e-6);
    /* quantile samples: the distance is exactly 1/(2n) */
    for (size_t i = 0; i < n; i++)
        x[i] = rve_distrib_quantile(&d, (i + 0.5) / n);
    ck_assert_double_eq_tol(rve_ks_distance(x, n, &d), 0.5 / n, 1e-12);
    /* smoothed weighted-L2 distance: small for quantile samples, larger when shifted */
    double f0 = rve_smooth_cdf_distance(x, n, 0.05, &d, 100);
    for (size_t i = 0; i < n; i++)
        x[i] += 0.3;
    double f1 = rve_smooth_cdf_distance(x, n, 0.05, &d, 100);
    ck_assert(f0 < 1e-3);
    ck_assert(f1 > 50 * f0);
    rve_morpho_free(&m);
}
END_TEST

/* ----------------------------------------------------------- prescribed volumes */
static void random_seeds(double *s, size_t n, const double dom[3], unsigned long long z)
{
    for (size_t i = 0; i < 3 * n; i++)
        s[i] = urand(&z) * dom[i % 3];
}

/* Volumes (and, when sph is not NULL, sphericities) of a fresh tessellation
 * of the returned seeds and weights: an oracle independent of gen's own
 * incremental cells. */
static void fresh_cells(size_t n, const double *s, const double *w, const double dom[3], int periodic, double *vol,
                        double *sph)
{
    double *s4 = malloc(4 * n * sizeof *s4);
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            s4[4 * i + a] = s[3 * i + a];
        s4[4 * i + 3] = w[i];
    }
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    o.topology = 0;
    o.keep_container = 0;
    double lo[3] = {0, 0, 0};
    int per[3] = {periodic, periodic, periodic};
    rve_tess *t;
    rve_err e;
    ck_assert_msg(rve_tess_build(s4, (int)n, lo, dom, per, &o, &t, &e) == RVE_OK, "%s", e.msg);
    for (size_t i = 0; i < n; i++) {
        vol[i] = t->cells[i].vol;
        if (sph) {
            ck_assert(vol[i] > 0 && t->cells[i].area > 0);
            sph[i] = cbrt(3.14159265358979323846) * pow(6 * vol[i], 2.0 / 3.0) / t->cells[i].area;
        }
    }
    rve_tess_free(t);
    free(s4);
}

static void check_pvol(size_t n, int periodic, int equal)
{
    double dom[3] = {2, 1, 1.5}, V = 3;
    double *s = malloc(3 * n * sizeof *s), *w = calloc(n, sizeof *w), *t = malloc(n * sizeof *t), *vol = malloc(n * sizeof *vol);
    random_seeds(s, n, dom, 11 + n + periodic);
    unsigned long long z = 99;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        /* lognormal-like volumes spanning two decades */
        double u = urand(&z);
        t[i] = equal ? 1 : exp(4.6 * (u - 0.5));
        sum += t[i];
    }
    rve_pvol_params p;
    rve_pvol_params_default(&p);
    p.tol = 1e-3;
    rve_pvol_info info;
    rve_err e;
    rve_status st = rve_pvol_solve(n, s, dom, periodic, t, w, &p, &info, &e);
    ck_assert_msg(st == RVE_OK, "%s", e.msg);
    fresh_cells(n, s, w, dom, periodic, vol, NULL);
    double emax = 0, vs = 0;
    for (size_t i = 0; i < n; i++) {
        double tg = t[i] * V / sum;
        emax = fmax(emax, fabs(vol[i] - tg) / tg);
        vs += vol[i];
        ck_assert(w[i] >= 0);
    }
    ck_assert_msg(emax <= 1e-3, "max relative volume error %g", emax);
    ck_assert_double_eq_tol(vs, V, 1e-9 * V);
    ck_assert_double_eq_tol(info.max_rel_err, emax, 1e-9);
    free(s);
    free(w);
    free(t);
    free(vol);
}

START_TEST(test_pvol_random_1000)
{
    size_t n = (size_t)(1000 * test_scale());
    if (n < 100)
        n = 100;
    check_pvol(n, 0, 0);
}
END_TEST

START_TEST(test_pvol_periodic)
{
    check_pvol(300, 1, 0);
}
END_TEST

START_TEST(test_pvol_equal)
{
    check_pvol(500, 0, 1);
    check_pvol(200, 1, 1);
}
END_TEST

/* Voxel counts of the exact power-distance rasteriser agree with the targets
 * up to the discretisation error (independent of the polyhedra). */
START_TEST(test_pvol_raster_oracle)
{
    const size_t n = 40;
    double dom[3] = {1, 1, 1};
    double s[3 * 40], w[40], t[40];
    random_seeds(s, n, dom, 5);
    unsigned long long z = 3;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        t[i] = i < n / 2 ? 1 : 4;
        (void)urand(&z);
        w[i] = 0;
        sum += t[i];
    }
    rve_err e;
    ck_assert_int_eq(rve_pvol_solve(n, s, dom, 0, t, w, NULL, NULL, &e), RVE_OK);
    const int R = 96;
    rve_map *map = rve_map_alloc(R, R, R);
    ck_assert_ptr_nonnull(map);
    map->h[0] = map->h[1] = map->h[2] = 1.0 / R;
    double s4[4 * 40];
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            s4[4 * i + a] = s[3 * i + a];
        s4[4 * i + 3] = w[i];
    }
    ck_assert_msg(rve_tess_rasterize_seeds(s4, (int)n, NULL, map, &e) == RVE_OK, "%s", e.msg);
    long cnt[41] = {0};
    for (size_t k = 0; k < (size_t)R * R * R; k++)
        cnt[map->lab[k]]++;
    for (size_t i = 0; i < n; i++) {
        double v = cnt[i + 1] / (double)R / R / R, tg = t[i] / sum;
        ck_assert_msg(fabs(v - tg) < 0.08 * tg, "cell %zu: voxel volume %g, target %g", i, v, tg);
    }
    rve_map_free(map);
}
END_TEST

START_TEST(test_pvol_bad_input)
{
    double dom[3] = {1, 1, 1}, s[6] = {0.2, 0.2, 0.2, 0.7, 0.7, 0.7}, w[2] = {0, 0}, t[2] = {1, -1};
    rve_err e;
    ck_assert_int_eq(rve_pvol_solve(2, s, dom, 0, t, w, NULL, NULL, &e), RVE_EDATA);
    t[1] = NAN;
    ck_assert_int_eq(rve_pvol_solve(2, s, dom, 0, t, w, NULL, NULL, &e), RVE_EDATA);
    t[1] = 1;
    w[0] = -1;
    ck_assert_int_eq(rve_pvol_solve(2, s, dom, 0, t, w, NULL, NULL, &e), RVE_EDATA);
    w[0] = 0;
    double bad[3] = {1, 0, 1};
    ck_assert_int_eq(rve_pvol_solve(2, s, bad, 0, t, w, NULL, NULL, &e), RVE_EDATA);
    /* two cells, volumes 1:3 along the diagonal: solvable */
    t[1] = 3;
    ck_assert_int_eq(rve_pvol_solve(2, s, dom, 0, t, w, NULL, NULL, &e), RVE_OK);
}
END_TEST

/* ----------------------------------------------------------- synthesis */
START_TEST(test_gen_gg_diameq_ks)
{
    size_t n = (size_t)(1000 * test_scale());
    if (n < 200)
        n = 200;
    rve_morpho m;
    rve_err e;
    ck_assert_int_eq(rve_morpho_parse("gg", &m, &e), RVE_OK);
    rve_gen_params p;
    rve_gen_params_default(&p);
    p.n = n;
    p.max_iter = 10;
    double *s = malloc(3 * n * sizeof *s), *w = malloc(n * sizeof *w), *vol = malloc(n * sizeof *vol),
           *d = malloc(n * sizeof *d);
    rve_gen_info info;
    ck_assert_msg(rve_gen(&m, &p, s, w, NULL, &info, &e) == RVE_OK, "%s", e.msg);
    /* independent: diameq of a fresh tessellation, relative to its mean */
    fresh_cells(n, s, w, p.domain, 0, vol, NULL);
    double mean = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert(vol[i] > 0);
        d[i] = cbrt(6 * vol[i] / 3.14159265358979323846);
        mean += d[i] / n;
    }
    for (size_t i = 0; i < n; i++)
        d[i] /= mean;
    double D = rve_ks_distance(d, n, &m.dist[RVE_PROP_DIAMEQ]);
    ck_assert_msg(rve_ks_pvalue(D, n) > 0.05, "KS %g fails at the 5 %% level", D);
    ck_assert_double_eq_tol(info.ks[RVE_PROP_DIAMEQ], D, 1e-3);
    ck_assert(info.ks[RVE_PROP_1MSPHERICITY] >= 0 && info.ks[RVE_PROP_1MSPHERICITY] <= 1);
    ck_assert_double_eq(info.ks[RVE_PROP_SIZE], -1);
    rve_morpho_free(&m);
    free(s);
    free(w);
    free(vol);
    free(d);
}
END_TEST

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* KS distance of x (sorted in place) from the CDF F, by brute force over
 * the jumps of the empirical CDF. */
static double ks_brute(double *x, size_t n, double (*F)(double, const double *), const double *par)
{
    qsort(x, n, sizeof *x, cmp_dbl);
    double D = 0;
    for (size_t i = 0; i < n; i++) {
        double f = F(x[i], par);
        D = fmax(D, fmax(f - (double)i / n, (double)(i + 1) / n - f));
    }
    return D;
}

/* lognormal with mean par[0] and SD par[1] (of the variable), closed form */
static double lognormal_cdf(double x, const double *par)
{
    double s2 = log(1 + par[1] * par[1] / (par[0] * par[0])), mu = log(par[0]) - s2 / 2;
    return x > 0 ? 0.5 * erfc(-(log(x) - mu) / sqrt(2 * s2)) : 0;
}

/* gg on a periodic box: the 1-sphericity of the cells, measured on a fresh
 * tessellation, passes a KS test against lognormal(0.145, 0.03) at the 5 %
 * level (the size-only stage fails it: KS about 0.2), and the sizes are
 * still the exact quantiles. */
static void check_gg_sphericity(size_t n, int periodic, double size_corr, unsigned long seed)
{
    rve_morpho m;
    rve_err e;
    ck_assert_int_eq(rve_morpho_parse("gg", &m, &e), RVE_OK);
    rve_gen_params p;
    rve_gen_params_default(&p);
    p.n = n;
    p.periodic = periodic;
    p.size_corr = size_corr;
    p.seed = seed;
    double *s = malloc(3 * n * sizeof *s), *w = malloc(n * sizeof *w), *vol = malloc(n * sizeof *vol),
           *x = malloc(n * sizeof *x);
    rve_gen_info info;
    ck_assert_msg(rve_gen(&m, &p, s, w, NULL, &info, &e) == RVE_OK, "%s", e.msg);
    fresh_cells(n, s, w, p.domain, periodic, vol, x);
    for (size_t i = 0; i < n; i++)
        x[i] = 1 - x[i];
    const double par[2] = {0.145, 0.03};
    double D = ks_brute(x, n, lognormal_cdf, par);
    double crit = 1.358 / (sqrt((double)n) + 0.12 + 0.11 / sqrt((double)n)); /* 5 % level */
    ck_assert_msg(D < crit, "n %zu periodic %d: KS 1-sphericity %g >= %g", n, periodic, D, crit);
    ck_assert_double_eq_tol(info.ks[RVE_PROP_1MSPHERICITY], D, 1e-3);
    ck_assert(info.moves > 0 && info.moves_accepted > 0 && info.moves_accepted <= info.moves);
    /* sizes: the quantiles of lognormal(1, 0.35), to the volume tolerance */
    double mean = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = cbrt(vol[i]);
        mean += x[i] / n;
    }
    for (size_t i = 0; i < n; i++)
        x[i] /= mean;
    const double pd[2] = {1, 0.35};
    double Dd = ks_brute(x, n, lognormal_cdf, pd);
    ck_assert_msg(Dd < 0.5 / n + 2e-3, "KS diameq %g", Dd);
    rve_morpho_free(&m);
    free(s);
    free(w);
    free(vol);
    free(x);
}

START_TEST(test_gen_gg_sphericity_periodic)
{
    check_gg_sphericity(300, 1, 0, 1);
    check_gg_sphericity(300, 1, 0, 2);
}
END_TEST

/* With correlated sizes, the sizes are still the exact quantiles and the
 * sphericity target is met on a small non-periodic box too (500 cells, more
 * than half of them cut by the walls: independent sizes fail there). */
START_TEST(test_gen_gg_size_corr)
{
    check_gg_sphericity(500, 0, 4, 3);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gen");
    TCase *tc = tcase_create("distributions");
    tcase_add_test(tc, test_distrib_closed_forms);
    tcase_add_test(tc, test_distrib_custom);
    tcase_add_test(tc, test_morpho_parse);
    tcase_add_test(tc, test_ks);
    suite_add_tcase(s, tc);
    tc = tcase_create("pvol");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_pvol_random_1000);
    tcase_add_test(tc, test_pvol_periodic);
    tcase_add_test(tc, test_pvol_equal);
    tcase_add_test(tc, test_pvol_raster_oracle);
    tcase_add_test(tc, test_pvol_bad_input);
    suite_add_tcase(s, tc);
    tc = tcase_create("synthesis");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_gen_gg_diameq_ks);
    tcase_add_test(tc, test_gen_gg_sphericity_periodic);
    tcase_add_test(tc, test_gen_gg_size_corr);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
