/* test_stats_sphericity.c - sphericity of voxel grains (issue 23).
 *
 * Oracles: closed forms of the shapes the grains voxelise (ball 1, cube
 * (pi/6)^(1/3) = 0.806, plate a x a x t: pi^(1/3) (6 a^2 t)^(2/3) /
 * (2 a^2 + 4 a t)), computed from the voxel counts, and the isoperimetric
 * inequality: no grain, of any size or shape, may exceed 1.  The real maps
 * (data/dct, ../shared/data/in100-a.tif) are checked for the bound. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <math.h>
#include <rve/rve.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
static const double PSI_CUBE = 0.80599597700823482; /* (pi / 6)^(1/3) */

static double psi_box(double a, double b, double c)
{
    return cbrt(M_PI) * pow(6 * a * b * c, 2.0 / 3.0) / (2 * (a * b + b * c + a * c));
}

/* A map of nx x ny x nz voxels with grain 1 where inside(i, j, k). */
typedef int (*shape_fn)(int i, int j, int k, const double *par);

static rve_map *shape_map(int nx, int ny, int nz, shape_fn in, const double *par)
{
    rve_map *m = rve_map_alloc(nx, ny, nz);
    ck_assert_ptr_nonnull(m);
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) m->lab[rve_map_index(m, i, j, k)] = in(i, j, k, par) ? 1 : 2;
    m->nlabels = 2;
    return m;
}

/* par: centre x y z, radius */
static int in_ball(int i, int j, int k, const double *p)
{
    double x = i + 0.5 - p[0], y = j + 0.5 - p[1], z = k + 0.5 - p[2];
    return x * x + y * y + z * z <= p[3] * p[3];
}

/* par: corner i0 j0 k0, sizes a b c (voxels) */
static int in_box(int i, int j, int k, const double *p)
{
    return i >= p[0] && i < p[0] + p[3] && j >= p[1] && j < p[1] + p[4] && k >= p[2] && k < p[2] + p[5];
}

static rve_grain_stat grain1(const rve_map *m)
{
    rve_grain_stat *st = NULL, g;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_msg(rve_map_stats(m, &st, &e) == RVE_OK, "%s", e.msg);
    g = st[1];
    ck_assert(st[2].sphericity <= 1.0);
    free(st);
    return g;
}

START_TEST(test_balls)
{
    /* every radius from 0.5 to 20 voxels: at most 1; from radius 8 within
     * 2 % of 1 (the voxel staircase is smoothed away) */
    for (double r = 0.5; r <= 20; r += (r < 4 ? 0.25 : 1.5)) {
        int n = (int)(2 * r) + 10;
        double p[4] = {n / 2.0 + 0.13, n / 2.0 - 0.21, n / 2.0 + 0.07, r};
        rve_map *m = shape_map(n, n, n, in_ball, p);
        rve_grain_stat g = grain1(m);
        if (g.nvox) {
            ck_assert_msg(g.sphericity <= 1.0, "ball r=%g (%zu voxels): sphericity %.6f > 1", r, g.nvox, g.sphericity);
            ck_assert(g.sphericity > 0.5);
            if (r >= 8) ck_assert_msg(fabs(g.sphericity - 1) < 0.02, "ball r=%g: %.4f", r, g.sphericity);
        }
        rve_map_free(m);
    }
}
END_TEST

START_TEST(test_cubes_and_blocks)
{
    /* cubes of side 1..36 voxels: at most 1.  The smoothing rounds edges
     * over ~1 voxel, which raises the sphericity above the cube's 0.806:
     * measured +7.6 % at side 20, +4.4 % at 36; the error must shrink with
     * the size and stay within 10 % from side 20 on */
    double prev_err = INFINITY;
    for (int a = 1; a <= 36; a += (a < 6 ? 1 : 6)) {
        int n = a + 10;
        double p[6] = {5, 5, 5, a, a, a};
        rve_map *m = shape_map(n, n, n, in_box, p);
        rve_grain_stat g = grain1(m);
        ck_assert_uint_eq(g.nvox, (size_t)a * a * a);
        ck_assert_msg(g.sphericity <= 1.0, "cube %d: %.6f", a, g.sphericity);
        double err = g.sphericity / PSI_CUBE - 1;
        ck_assert_msg(err > -0.01, "cube %d: %.4f below the closed form", a, g.sphericity);
        if (a >= 8) {
            ck_assert_msg(err < prev_err, "cube %d: %.4f, no closer than the smaller cube", a, g.sphericity);
            prev_err = err;
        }
        if (a >= 20) ck_assert_msg(err < 0.10, "cube %d: %.4f", a, g.sphericity);
        rve_map_free(m);
    }
    /* issue 23: a compact grain of 29 voxels in a 5 x 5 x 4 box read 66.6 */
    rve_map *m = rve_map_alloc(15, 15, 14);
    for (size_t v = 0; v < rve_map_nvox(m); v++) m->lab[v] = 2;
    int cnt = 0;
    for (int k = 5; k < 9; k++)
        for (int j = 5; j < 10; j++)
            for (int i = 5; i < 10; i++) {
                double x = i - 7, y = j - 7, z = k - 6.5;
                if (x * x + y * y + z * z <= 6.3 && cnt < 29) m->lab[rve_map_index(m, i, j, k)] = 1, cnt++;
            }
    m->nlabels = 2;
    rve_grain_stat g = grain1(m);
    ck_assert_uint_eq(g.nvox, 29);
    ck_assert_msg(g.sphericity <= 1.0 && g.sphericity > 0.5, "29-voxel grain: %.4f", g.sphericity);
    rve_map_free(m);
}
END_TEST

START_TEST(test_plates)
{
    /* 40 x 40 x t plates, t = 1..6 voxels: at most 1; measured +12.5 % at
     * t = 1 (the rim recedes), +6.4 % at t = 6 (rounded rim); a fixed 1/2
     * level would have thinned the 2-voxel plate to ~1.2 voxels */
    for (int t = 1; t <= 6; t++) {
        double p[6] = {5, 5, 5, 40, 40, t};
        rve_map *m = shape_map(50, 50, t + 10, in_box, p);
        rve_grain_stat g = grain1(m);
        double want = psi_box(40, 40, t);
        ck_assert_msg(g.sphericity <= 1.0, "plate %d: %.4f", t, g.sphericity);
        ck_assert_msg(fabs(g.sphericity / want - 1) < (t == 1 ? 0.15 : 0.10), "plate t=%d: %.4f, closed form %.4f", t,
                      g.sphericity, want);
        rve_map_free(m);
    }
    /* anisotropic voxels: a 20 x 20 x 20 voxel box of 1 x 1 x 0.25 is a
     * 20 x 20 x 5 plate */
    double p[6] = {5, 5, 5, 20, 20, 20};
    rve_map *m = shape_map(30, 30, 30, in_box, p);
    m->h[2] = 0.25;
    rve_grain_stat g = grain1(m);
    ck_assert_double_eq_tol(g.volume, 2000, 1e-9);
    ck_assert(g.sphericity <= 1.0);
    ck_assert_msg(fabs(g.sphericity / psi_box(20, 20, 5) - 1) < 0.10, "%.4f vs %.4f", g.sphericity, psi_box(20, 20, 5));
    rve_map_free(m);
}
END_TEST

/* Every grain of a random Voronoi map (many small, thin and cut by the
 * border) stays at most 1. */
START_TEST(test_voronoi_map)
{
    int n = 300;
    double *s = malloc(sizeof(double) * 4 * n);
    unsigned x = 12345;
    for (int i = 0; i < 4 * n; i++) {
        x = x * 1103515245u + 12345u;
        s[i] = (i % 4 == 3) ? 0 : (x >> 8) / 16777216.0;
    }
    rve_map *m = rve_map_alloc(30, 30, 30);
    for (int a = 0; a < 3; a++) m->h[a] = 1.0 / 30;
    rve_err e;
    rve_err_clear(&e);
    ck_assert(rve_tess_rasterize_seeds(s, n, NULL, m, &e) == RVE_OK);
    m->nlabels = (uint32_t)n;
    rve_grain_stat *st = NULL;
    ck_assert(rve_map_stats(m, &st, &e) == RVE_OK);
    double mx = 0;
    for (int l = 1; l <= n; l++)
        if (st[l].nvox) {
            ck_assert_msg(st[l].sphericity <= 1.0, "grain %d (%zu voxels): %.4f", l, st[l].nvox, st[l].sphericity);
            mx = fmax(mx, st[l].sphericity);
        }
    ck_assert(mx > 0.5);
    free(st);
    rve_map_free(m);
    free(s);
}
END_TEST

static void real_map(const char *path)
{
    rve_map *m = NULL;
    rve_grain_stat *st = NULL;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_msg(rve_map_read(path, RVE_MAP_AUTO, NULL, &m, &e) == RVE_OK, "%s", e.msg);
    ck_assert(rve_map_stats(m, &st, &e) == RVE_OK);
    double mx = 0;
    int above = 0;
    for (uint32_t l = 1; l <= m->nlabels; l++)
        if (st[l].nvox) {
            mx = fmax(mx, st[l].sphericity);
            above += st[l].sphericity > 1;
            /* the volume enclosed by the surface is the voxel volume */
        }
    fprintf(stderr, "%s: largest sphericity %.4f, %d grains above 1\n", path, mx, above);
    ck_assert_int_eq(above, 0);
    free(st);
    rve_map_free(m);
}

START_TEST(test_dct)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/data/dct/dct.tif", getenv("RVE_SRCDIR") ? getenv("RVE_SRCDIR") : ".");
    FILE *f = fopen(p, "rb");
    if (!f) {
        fprintf(stderr, "SKIP test_dct: %s is absent\n", p);
        test_note_skip();
        return;
    }
    fclose(f);
    real_map(p);
}
END_TEST

START_TEST(test_in100)
{
    TEST_SKIP_WITHOUT_SHARED(dir);
    char p[4096];
    snprintf(p, sizeof p, "%s/in100-a.tif", dir);
    real_map(p);
}
END_TEST

static Suite *sph_suite(void)
{
    Suite *s = suite_create("sphericity");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_balls);
    tcase_add_test(tc, test_cubes_and_blocks);
    tcase_add_test(tc, test_plates);
    tcase_add_test(tc, test_voronoi_map);
    tcase_add_test(tc, test_dct);
    tcase_add_test(tc, test_in100);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(sph_suite());
}
