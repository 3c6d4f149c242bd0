/* The fit's convex surrogate (docs/fit.md, stage 3): its loss and gradient
 * against an independent implementation written here from the formula in
 * long double, and the gradient against central finite differences of that
 * long-double loss (the surrogate is the only objective of the fit that is
 * minimised by its gradient).
 *
 *   L = sum over (voxel v of grain g, grain h != g among v's 26 neighbours)
 *       of max(0, 1 - m / delta)^2,
 *   m = a_g.(v - c_g) + r_g b_g - a_h.(v - c_h) - r_h b_h,
 *   delta = 0.01 |a0_g - a0_h| (+1e-12),
 * c_g the grain's centroid, r_g = max(1/2, (3 n_g / 4 pi)^(1/3)). */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "optim/fit_int.h"
#include <math.h>

typedef long double ld;

#define TEST_RNG_SEED 0x2545F4914F6CDD1DULL
#include "test_rng.h"

typedef struct {
    int n;
    ld cen[64][4]; /* centroid, r */
    int nc;
    int *cv, *cg, *ch; /* voxel index (i + N j + N^2 k), own grain, rival */
    int N;
} oracle;

static void oracle_build(oracle *O, const rve_map *m, int n)
{
    int N = m->nx;
    O->n = n;
    O->N = N;
    ld cnt[64] = {0};
    for (int g = 0; g < n; g++)
        O->cen[g][0] = O->cen[g][1] = O->cen[g][2] = 0;
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                int g = (int)m->lab[rve_map_index(m, i, j, k)] - 1;
                O->cen[g][0] += i + 0.5L;
                O->cen[g][1] += j + 0.5L;
                O->cen[g][2] += k + 0.5L;
                cnt[g] += 1;
            }
    for (int g = 0; g < n; g++) {
        for (int a = 0; a < 3; a++)
            O->cen[g][a] /= cnt[g];
        ld r = cbrtl(3 * cnt[g] / (4 * 3.14159265358979323846264338327950288L));
        O->cen[g][3] = r < 0.5L ? 0.5L : r;
    }
    int cap = 27 * N * N * N;
    O->cv = malloc((size_t)cap * sizeof(int));
    O->cg = malloc((size_t)cap * sizeof(int));
    O->ch = malloc((size_t)cap * sizeof(int));
    O->nc = 0;
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                int g = (int)m->lab[rve_map_index(m, i, j, k)] - 1;
                unsigned char seen[64] = {0};
                for (int dk = -1; dk <= 1; dk++)
                    for (int dj = -1; dj <= 1; dj++)
                        for (int di = -1; di <= 1; di++) {
                            int ii = i + di, jj = j + dj, kk = k + dk;
                            if (ii < 0 || jj < 0 || kk < 0 || ii >= N || jj >= N || kk >= N)
                                continue;
                            int h = (int)m->lab[rve_map_index(m, ii, jj, kk)] - 1;
                            if (h == g || seen[h])
                                continue;
                            seen[h] = 1;
                            O->cv[O->nc] = i + N * (j + N * k);
                            O->cg[O->nc] = g;
                            O->ch[O->nc++] = h;
                        }
            }
}

static ld oracle_loss(const oracle *O, const ld *th0, const ld *th)
{
    ld L = 0;
    for (int c = 0; c < O->nc; c++) {
        int p = O->cv[c], g = O->cg[c], h = O->ch[c], N = O->N;
        ld v[3] = {p % N + 0.5L, (p / N) % N + 0.5L, p / (N * N) + 0.5L}, da2 = 0, mg = 0;
        for (int a = 0; a < 3; a++) {
            ld d = th0[4 * g + a] - th0[4 * h + a];
            da2 += d * d;
            mg += th[4 * g + a] * (v[a] - O->cen[g][a]) - th[4 * h + a] * (v[a] - O->cen[h][a]);
        }
        mg += O->cen[g][3] * th[4 * g + 3] - O->cen[h][3] * th[4 * h + 3];
        ld delta = 0.01L * sqrtl(da2) + 1e-12L, e = 1 - mg / delta;
        if (e > 0)
            L += e * e;
    }
    return L;
}

START_TEST(test_surrogate_oracle)
{
    /* a noisy Laguerre raster: many constraints violated, others not */
    int n = 9, N = 14;
    double s[27], w[9];
    for (int k = 0; k < n; k++) {
        for (int a = 0; a < 3; a++)
            s[3 * k + a] = 1 + urand() * (N - 2);
        w[k] = 1 + 2 * urand();
    }
    rve_map *m = rve_map_alloc(N, N, N);
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                double c[3] = {i + 0.5, j + 0.5, k + 0.5}, best = 1e300;
                int b = 0;
                for (int q = 0; q < n; q++) {
                    double d = -w[q] * w[q];
                    for (int a = 0; a < 3; a++)
                        d += (c[a] - s[3 * q + a]) * (c[a] - s[3 * q + a]);
                    if (d < best) {
                        best = d;
                        b = q;
                    }
                }
                m->lab[rve_map_index(m, i, j, k)] = (uint32_t)b + 1;
            }
    m->nlabels = (uint32_t)n;
    rve_err e;
    ck_assert_int_eq(rve_map_renumber(m, &e), RVE_OK);
    n = (int)rve_map_ngrains(m);
    oracle O;
    oracle_build(&O, m, n);
    /* theta: a = 2 s (seeds near the centroids, perturbed), b random */
    double th0[4 * 64], th[4 * 64], grad[4 * 64];
    ld l0[4 * 64], lt[4 * 64];
    for (int g = 0; g < n; g++) {
        for (int a = 0; a < 3; a++)
            th0[4 * g + a] = 2 * ((double)O.cen[g][a] + 2 * (urand() - 0.5));
        th0[4 * g + 3] = 3 * (urand() - 0.5);
        for (int a = 0; a < 4; a++)
            th[4 * g + a] = th0[4 * g + a] + 0.3 * (urand() - 0.5);
    }
    for (int i = 0; i < 4 * n; i++) {
        l0[i] = th0[i];
        lt[i] = th[i];
    }
    double loss;
    ck_assert_int_eq(fit_hinge_eval(m, th0, th, &loss, grad, &e), RVE_OK);
    ld Lo = oracle_loss(&O, l0, lt);
    fprintf(stderr, "surrogate: %d constraints, loss %.12g, long-double oracle %.12Lg (rel. %.2Le)\n", O.nc, loss,
            Lo, fabsl(loss - Lo) / Lo);
    ck_assert(Lo > 0);
    ck_assert_msg(fabsl(loss - Lo) <= 1e-12L * Lo, "loss %.15g, oracle %.15Lg", loss, Lo);
    /* gradient against central differences of the oracle */
    ld gmax = 0, dmax = 0;
    for (int i = 0; i < 4 * n; i++) {
        ld h = 1e-6L * (1 + fabsl(lt[i])), sv = lt[i];
        lt[i] = sv + h;
        ld Lp = oracle_loss(&O, l0, lt);
        lt[i] = sv - h;
        ld Lm = oracle_loss(&O, l0, lt);
        lt[i] = sv;
        ld fd = (Lp - Lm) / (2 * h);
        gmax = fmaxl(gmax, fabsl(fd));
        dmax = fmaxl(dmax, fabsl(fd - grad[i]));
    }
    fprintf(stderr, "surrogate gradient: largest |component| %.6Lg, largest difference to finite differences %.3Le\n",
            gmax, dmax);
    ck_assert(gmax > 0);
    ck_assert_msg(dmax <= 1e-6L * gmax, "gradient off by %.3Le (largest component %.3Lg)", dmax, gmax);
    free(O.cv);
    free(O.cg);
    free(O.ch);
    rve_map_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fit_surrogate");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_surrogate_oracle);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
