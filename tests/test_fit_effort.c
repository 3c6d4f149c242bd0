/* Tests of the fit's guarantees (issue 19): effort, empty cells, tiny cells.
 *
 * Oracles, none of them the fit's own code: maps rasterised by brute-force
 * power distance from known seeds (so an exact fit exists); the accuracy of
 * every returned fit recomputed here by brute force from its seeds and
 * weights; cell volumes by brute-force rasterisation of the returned seeds
 * on a grid 4 times finer. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <rve/optim.h>
#include <rve/raster.h>
#include <math.h>

#define TEST_RNG_SEED 0x9E3779B97F4A7C15ULL
#include "test_rng.h"

/* power-nearest of n seeds (x y z w, w the radius) to c; ties to the lower index */
static int nearest(int n, const double *s, const double *w, const double c[3])
{
    double best = 1e300;
    int b = 0;
    for (int q = 0; q < n; q++) {
        double d = 0;
        for (int a = 0; a < 3; a++)
            d += (c[a] - s[3 * q + a]) * (c[a] - s[3 * q + a]);
        d -= w[q] * w[q];
        if (d < best) {
            best = d;
            b = q;
        }
    }
    return b;
}

/* N^3 map (h = 1) labelled k+1 by brute-force power distance */
static rve_map *brute_map(int N, int n, const double *s, const double *w)
{
    rve_map *m = rve_map_alloc(N, N, N);
    ck_assert_ptr_nonnull(m);
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                double c[3] = {i + 0.5, j + 0.5, k + 0.5};
                m->lab[rve_map_index(m, i, j, k)] = (uint32_t)nearest(n, s, w, c) + 1;
            }
    m->nlabels = (uint32_t)n;
    return m;
}

/* random Laguerre seeds in [2, N-2]^3, radii in [1, 3] */
static void random_seeds(int n, int N, double *s, double *w)
{
    for (int k = 0; k < n; k++) {
        for (int a = 0; a < 3; a++)
            s[3 * k + a] = 2 + urand() * (N - 4);
        w[k] = 1 + 2 * urand();
    }
}

/* labels renumbered 1..g in increasing order (the fit's cell order) */
static int renumber(rve_map *m)
{
    rve_err e;
    ck_assert_int_eq(rve_map_renumber(m, &e), RVE_OK);
    return (int)rve_map_ngrains(m);
}

/* accuracy of a fit by brute force: voxels whose power-nearest seed is their
 * grain's (cell q = label q+1 after renumber); void voxels not counted */
static double brute_acc(const rve_map *m, const rve_fit_result *r)
{
    size_t good = 0, tot = 0;
    for (int k = 0; k < m->nz; k++)
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++) {
                uint32_t l = m->lab[rve_map_index(m, i, j, k)];
                if (!l)
                    continue;
                double c[3] = {m->origin[0] + (i + 0.5) * m->h[0], m->origin[1] + (j + 0.5) * m->h[1],
                               m->origin[2] + (k + 0.5) * m->h[2]};
                tot++;
                good += nearest(r->n, r->seed, r->weight, c) == (int)l - 1;
            }
    return tot ? (double)good / (double)tot : 0;
}

typedef struct {
    const char *name;
    int res, sweeps, evals, hinge, classify, polish, rounds;
    double tol;
} optset;

/* 0 = keep the default */
static const optset SETS[] = {
    {"defaults", 0, 0, 0, 0, 0, 0, 0, 0},
    {"--sweeps 40 --tol 1e-4", 0, 40, 0, 0, 0, 0, 0, 1e-4},
    {"--res 1", 1, 0, 0, 0, 0, 0, 0, 0},
    {"--evals 60", 0, 0, 60, 0, 0, 0, 0, 0},
    {"--hinge 1000 --classify 2000", 0, 0, 0, 1000, 2000, 0, 0, 0},
    {"--polish 60 --rounds 3", 0, 0, 0, 0, 0, 60, 3, 0},
    {"--res 1 --sweeps 40 --evals 60 --polish 60", 1, 40, 60, 0, 0, 60, 0, 0},
};
#define NSETS ((int)(sizeof SETS / sizeof SETS[0]))

/* make check runs the defaults and the set that raises every effort at
 * once; make check-long (RVE_TEST_LONG=1) each effort alone as well. */
static int fast_set(int q) { return test_long() || q == 0 || q == NSETS - 1; }

static void apply(const optset *p, rve_fit_opts *o)
{
    rve_fit_opts_init(o);
    o->threads = 1; /* the fit is deterministic for a given thread count */
    if (p->res)
        o->res = p->res;
    if (p->sweeps)
        o->max_sweeps = p->sweeps;
    if (p->evals)
        o->max_evals = p->evals;
    if (p->hinge)
        o->hinge = p->hinge;
    if (p->classify)
        o->classify = p->classify;
    if (p->polish)
        o->polish = p->polish;
    if (p->rounds)
        o->rounds = p->rounds;
    if (p->tol > 0)
        o->tol = p->tol;
}

/* one fit; returns its accuracy, checked against brute force */
static double fit_acc(const rve_map *m, const rve_fit_opts *o, double *acc_init)
{
    rve_fit_result r;
    rve_err e;
    ck_assert_int_eq(rve_fit(m, o, &r, &e), RVE_OK);
    double b = brute_acc(m, &r);
    ck_assert_msg(fabs(b - r.acc_final) < 1e-12, "reported %.9f, brute force %.9f", r.acc_final, b);
    ck_assert_int_eq(r.empty_cells, 0);
    if (acc_init)
        *acc_init = r.acc_init;
    rve_fit_result_free(&r);
    return b;
}

/* Exact recovery under every option set: a raster of a Laguerre
 * tessellation is fitted to >= 99.9 % whatever the effort, and more effort
 * never ends below the defaults. */
START_TEST(test_effort_exact)
{
    int n = 14, N = 22;
    double s[3 * 14], w[14];
    random_seeds(n, N, s, w);
    rve_map *m = brute_map(N, n, s, w);
    renumber(m);
    double def = 0;
    for (int q = 0; q < NSETS; q++) {
        if (!fast_set(q))
            continue;
        rve_fit_opts o;
        apply(&SETS[q], &o);
        double ai, a = fit_acc(m, &o, &ai);
        fprintf(stderr, "exact raster, %-44s %.5f (initial %.5f)\n", SETS[q].name, a, ai);
        if (q == 0)
            def = a;
        ck_assert_msg(a >= 0.999, "%s: %.5f", SETS[q].name, a);
        ck_assert_msg(a >= def, "%s: %.6f below the defaults' %.6f", SETS[q].name, a, def);
    }
    rve_map_free(m);
}
END_TEST

/* A noisy map (a Laguerre raster with 4 % of its boundary voxels given a
 * neighbour's label and a few void voxels): no exact fit exists, stages
 * find different optima, and still every option set that raises some
 * effort ends at least at the defaults, every option set (even all stages
 * off) at least at the initial guess. */
START_TEST(test_effort_noisy)
{
    int n = 24, N = 26;
    double s[3 * 24], w[24];
    random_seeds(n, N, s, w);
    rve_map *m = brute_map(N, n, s, w);
    rve_map *c = rve_map_alloc(N, N, N);
    memcpy(c->lab, m->lab, rve_map_nvox(m) * sizeof(uint32_t));
    for (int k = 1; k < N - 1; k++)
        for (int j = 1; j < N - 1; j++)
            for (int i = 1; i < N - 1; i++) {
                size_t v = rve_map_index(m, i, j, k), u = rve_map_index(m, i + 1, j, k);
                if (m->lab[v] != m->lab[u] && urand() < 0.04)
                    c->lab[v] = m->lab[u];
                else if (urand() < 0.002)
                    c->lab[v] = 0;
            }
    c->nlabels = m->nlabels;
    renumber(c);
    double def = 0;
    for (int q = 0; q < NSETS; q++) {
        if (!fast_set(q))
            continue;
        rve_fit_opts o;
        apply(&SETS[q], &o);
        double ai, a = fit_acc(c, &o, &ai);
        fprintf(stderr, "noisy map, %-44s %.5f (initial %.5f)\n", SETS[q].name, a, ai);
        if (q == 0)
            def = a;
        ck_assert_msg(a >= def, "%s: %.6f below the defaults' %.6f", SETS[q].name, a, def);
        ck_assert_msg(a >= ai, "%s: %.6f below the initial guess %.6f", SETS[q].name, a, ai);
    }
    /* less effort, down to no stage at all: never below the initial guess */
    static const int lows[][4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    for (int q = 0; q < 5; q++) {
        rve_fit_opts o;
        apply(&SETS[0], &o);
        o.max_sweeps = lows[q][0];
        o.hinge = lows[q][1] * 20;
        o.classify = lows[q][2] * 3;
        o.polish = lows[q][3] * 2;
        double ai, a = fit_acc(c, &o, &ai);
        ck_assert_msg(a >= ai, "low effort %d: %.6f below the initial guess %.6f", q, a, ai);
    }
    rve_map_free(m);
    rve_map_free(c);
}
END_TEST

/* Empty cells (docs/fit.md: a grain whose cell holds no voxel is given
 * one back; the fit never returns an empty cell): a 1-voxel grain inside a
 * large one.  The initial guess (centroid, equal-volume radius) leaves its
 * cell empty; every returned fit, even with every stage off, gives the
 * grain a cell holding a voxel (brute force). */
START_TEST(test_empty_repaired)
{
    int N = 16;
    double s[3 * 4] = {4, 4, 4, 12, 4, 4, 4, 12, 12, 12, 12, 12}, w[4] = {0, 0, 0, 0};
    rve_map *m = brute_map(N, 4, s, w);
    /* grain 5: one voxel at (9, 5, 5), next to the face between grains 1 and 2 */
    m->lab[rve_map_index(m, 9, 5, 5)] = 5;
    m->nlabels = 5;
    renumber(m);
    rve_fit_result r;
    rve_err e;
    for (int pass = 0; pass < 2; pass++) {
        rve_fit_opts o;
        rve_fit_opts_init(&o);
        o.threads = 1;
        if (pass == 0)
            o.max_sweeps = o.hinge = o.classify = o.polish = 0;
        ck_assert_int_eq(rve_fit(m, &o, &r, &e), RVE_OK);
        ck_assert_msg(r.empty_cells_init > 0, "the initial guess was meant to leave an empty cell");
        int own = -1;
        for (int q = 0; q < r.n; q++)
            if (r.label[q] == m->lab[rve_map_index(m, 9, 5, 5)])
                own = q;
        ck_assert_int_ge(own, 0);
        double c[3] = {9.5, 5.5, 5.5};
        int got = nearest(r.n, r.seed, r.weight, c), nonempty = 0;
        int *cnt = calloc((size_t)r.n, sizeof(int));
        for (int k = 0; k < N; k++)
            for (int j = 0; j < N; j++)
                for (int i = 0; i < N; i++) {
                    double p[3] = {i + 0.5, j + 0.5, k + 0.5};
                    cnt[nearest(r.n, r.seed, r.weight, p)]++;
                }
        for (int q = 0; q < r.n; q++)
            nonempty += cnt[q] > 0;
        free(cnt);
        fprintf(stderr, "empty cells: pass %d, %d empty initially; at the end %d of %d cells hold a voxel (brute "
                "force), the 1-voxel grain's voxel in cell %d (its own: %d)\n",
                pass, r.empty_cells_init, nonempty, r.n, got, own);
        ck_assert_int_eq(nonempty, r.n);
        ck_assert_int_eq(r.empty_cells, 0);
        /* with every stage off the state returned is the repaired guess:
         * the grain's cell is given the grain's voxel back */
        if (pass == 0)
            ck_assert_int_eq(got, own);
        rve_fit_result_free(&r);
    }
    rve_map_free(m);
}
END_TEST

/* Tiny cells: a Laguerre raster (an exact fit exists) with one cell of a
 * single voxel (a corner tetrahedron of the box).  The fit opens such a cell to a
 * few voxel volumes (docs/fit.md: towards a floor of 8, losing at most
 * 1e-4 of the voxels); its volume is measured by brute-force rasterisation
 * of the returned seeds 4x finer, and the accuracy by brute force. */
START_TEST(test_tiny_opened)
{
    int n = 31, N = 40;
    double s[3 * 31], w[31];
    for (int k = 0; k < n - 2; k++) { /* away from the corner (0, 0, 0) */
        for (int a = 0; a < 3; a++)
            s[3 * k + a] = 9 + urand() * (N - 11);
        w[k] = 1 + 2 * urand();
    }
    /* the corner is seed A's (3.5, 3.5, 3.5), radius sqrt(25.8), but for the
     * tiny cell of seed T at (0.5, 0.5, 0.5), radius 0: the plane between
     * them is x + y + z = (|a|^2 - |t|^2 - 25.8) / 6 = 1.7, so T's cell is
     * the corner tetrahedron x + y + z < 1.7, holding the one voxel (0,0,0) */
    for (int a = 0; a < 3; a++) {
        s[3 * (n - 2) + a] = 3.5;
        s[3 * (n - 1) + a] = 0.5;
    }
    w[n - 2] = sqrt(25.8);
    w[n - 1] = 0;
    rve_map *m = brute_map(N, n, s, w);
    uint32_t lt = m->lab[rve_map_index(m, 0, 0, 0)];
    ck_assert_int_eq(lt, n);
    long nt = 0;
    for (size_t v = 0; v < rve_map_nvox(m); v++)
        nt += m->lab[v] == lt;
    renumber(m);
    lt = m->lab[rve_map_index(m, 0, 0, 0)];
    rve_fit_opts o;
    rve_fit_opts_init(&o);
    o.threads = 1;
    rve_fit_result r;
    rve_err e;
    ck_assert_int_eq(rve_fit(m, &o, &r, &e), RVE_OK);
    double b = brute_acc(m, &r);
    ck_assert(fabs(b - r.acc_final) < 1e-12);
    int t = -1;
    for (int q = 0; q < r.n; q++)
        if (r.label[q] == lt)
            t = q;
    ck_assert(t >= 0);
    long ct = 0;
    int F = 4;
    for (int k = 0; k < N * F; k++)
        for (int j = 0; j < N * F; j++)
            for (int i = 0; i < N * F; i++) {
                double c[3] = {(i + 0.5) / F, (j + 0.5) / F, (k + 0.5) / F};
                ct += nearest(r.n, r.seed, r.weight, c) == t;
            }
    double vt = (double)ct / (F * F * F);
    int opened = 0;
    for (int h = 0; h < r.nhist; h++)
        if (r.hist[h].stage == 6)
            opened = r.hist[h].sweep;
    fprintf(stderr, "tiny cell: grain of %ld voxel(s), its fitted cell %.2f voxel volumes (%d opened); accuracy %.6f\n",
            nt, vt, opened, r.acc_final);
    ck_assert_msg(nt == 1, "the tiny grain has %ld voxels", nt);
    ck_assert_msg(vt >= 4, "tiny cell not opened: %.2f voxel volumes", vt);
    ck_assert_msg(r.acc_final >= 1 - 1e-4, "accuracy %.6f", r.acc_final);
    rve_fit_result_free(&r);
    rve_map_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fit_effort");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_effort_exact);
    tcase_add_test(tc, test_effort_noisy);
    tcase_add_test(tc, test_empty_repaired);
    tcase_add_test(tc, test_tiny_opened);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
