/* test_tess.c - tessellation tests: exact oracles (brute-force power distance, closed forms). */
#include "config.h"
#include "testutil.h"
#include <rve/tess.h>
#include <math.h>
#include <stdint.h>

static uint64_t rng_state = 88172645463325252ULL;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* Brute force: lowest index of smallest power distance. */
static int brute_owner(const double *s, int n, const double x[3])
{
    int best = 0;
    double bd = INFINITY;
    for (int i = 0; i < n; i++) {
        const double *p = s + 4 * i;
        double d = (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) +
                   (x[2] - p[2]) * (x[2] - p[2]) - p[3] * p[3];
        if (d < bd) {
            bd = d;
            best = i;
        }
    }
    return best;
}

START_TEST(test_rasterize_brute)
{
    /* random weighted seeds, some outside the map, non-cubic voxels, offset origin */
    for (int rep = 0; rep < 4; rep++) {
        int n = rep == 0 ? 1 : 50 + 150 * rep;
        double *s = malloc(sizeof(double) * 4 * n);
        for (int i = 0; i < n; i++) {
            s[4 * i] = -2 + 24 * urand();
            s[4 * i + 1] = 1 + 18 * urand();
            s[4 * i + 2] = -1 + 14 * urand();
            s[4 * i + 3] = (rep & 1) ? 3 * urand() : 0;
        }
        rve_map mm = {.nx = 23, .ny = 17, .nz = 12, .h = {1, 1, 1}}, *m = &mm;
        m->lab = calloc((size_t)23 * 17 * 12, sizeof *m->lab);
        m->h[0] = 0.9; m->h[1] = 1.1; m->h[2] = 1.0;
        m->origin[0] = -0.5; m->origin[1] = 1.0; m->origin[2] = 0.25;
        rve_err e;
        rve_err_clear(&e);
        ck_assert_int_eq(rve_tess_rasterize_seeds(s, n, NULL, m, &e), RVE_OK);
        for (int k = 0; k < m->nz; k++)
            for (int j = 0; j < m->ny; j++)
                for (int i = 0; i < m->nx; i++) {
                    double x[3];
                    rve_map_voxel_centre(m, i, j, k, x);
                    uint32_t want = (uint32_t)brute_owner(s, n, x) + 1;
                    ck_assert_uint_eq(m->lab[rve_map_index(m, i, j, k)], want);
                }
        free(m->lab);
        free(s);
    }
}
END_TEST

static Suite *tess_suite(void)
{
    Suite *s = suite_create("tess");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_rasterize_brute);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(tess_suite());
}
