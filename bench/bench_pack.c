/* bench_pack - the acceptance runs of `rve pack` (issue 10):
 *   1000 spheres, radii lognormal(1,0.2), periodic box, as dense as possible;
 *   1000 convex polyhedra from the cells of a random Voronoi tessellation,
 *   periodic box, target fraction 0.58.
 * Prints fraction, void ratio e, coordination number Z, the largest overlap
 * (relative to the mean bounding radius) measured by an all-pairs check,
 * the time, and the narrow-phase calls per step with the broad phase against
 * all pairs (the "peer" here is the brute-force all-pairs narrow phase).
 * RVE_BENCH_PACK_N sets the body count (default 1000), RVE_BENCH_PACK_TIME
 * the compaction budget in seconds (default 280). */
#include "config.h"
#include <rve/pack.h>
#include <rve/tess.h>
#include <rve/dist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double all_pairs_max_overlap(const rve_pack_set *s, double *seconds)
{
    /* every pair, every image in {-1,0,1}^3, narrow phase without broad phase */
    double t0 = rve_now(), worst = 0;
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i; j < s->n; j++)
            for (int a = -1; a <= 1; a++)
                for (int b = -1; b <= 1; b++)
                    for (int c = -1; c <= 1; c++) {
                        if (i == j && (a || b || c) == 0)
                            continue;
                        int sh[3] = {a, b, c};
                        double d2 = 0;
                        for (int k = 0; k < 3; k++) {
                            double dk = s->b[j].x[k] + sh[k] * s->L[k] - s->b[i].x[k];
                            d2 += dk * dk;
                        }
                        double rr = s->b[i].rbound + s->b[j].rbound;
                        if (d2 > rr * rr)
                            continue;
                        double sep;
                        int ov;
                        if (rve_pack_separation(s, (int)i, (int)j, sh, &sep, &ov) != RVE_OK)
                            return INFINITY;
                        if (ov && sep >= 0)
                            sep = -1e-300; /* GJK says touching/overlapping */
                        if (-sep > worst)
                            worst = -sep;
                    }
    *seconds = rve_now() - t0;
    return worst;
}

static void report(const char *name, rve_pack_set *s, const rve_pack_result *res, rve_status st,
                   const rve_err *e)
{
    double rmean = 0;
    for (size_t i = 0; i < s->n; i++)
        rmean += s->b[i].rbound / s->n;
    rve_pack_metrics m, m3;
    rve_err err;
    rve_pack_measure(s, 1e-6 * rmean, &m, &err);
    rve_pack_measure(s, 1e-3 * rmean, &m3, &err);
    double tcheck = 0;
    double ov = all_pairs_max_overlap(s, &tcheck);
    double allp = res->method == RVE_PACK_MC ? (double)s->n * (s->n - 1) : (double)s->n * (s->n - 1) / 2;
    printf("%-34s status %s%s%s\n", name, rve_status_name(st), st ? ": " : "", st ? e->msg : "");
    printf("  bodies %zu, box %.4g x %.4g x %.4g periodic, %.1f s, %ld steps\n", s->n, s->L[0], s->L[1],
           s->L[2], res->seconds, res->steps);
    printf("  packing fraction %.4f   void ratio e %.4f\n", m.fraction, m.void_ratio);
    printf("  Z (gap <= 1e-6 r) %.3f (%ld rattlers)   Z (gap <= 1e-3 r) %.3f (%ld rattlers)\n", m.z,
           m.rattlers, m3.z, m3.rattlers);
    printf("  largest overlap, all pairs checked: %.3g (relative to mean radius %.3g), check %.2f s\n", ov,
           ov / rmean, tcheck);
    printf("  narrow-phase calls per step: broad phase %.0f, all pairs %.0f, ratio %.1f\n",
           res->calls_per_step, allp, res->calls_per_step > 0 ? allp / res->calls_per_step : 0);
}

int main(void)
{
    int n = getenv("RVE_BENCH_PACK_N") ? atoi(getenv("RVE_BENCH_PACK_N")) : 1000;
    double tmax = getenv("RVE_BENCH_PACK_TIME") ? atof(getenv("RVE_BENCH_PACK_TIME")) : 280;
    if (n < 2)
        n = 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    rve_err e;
    rve_pack_rng r;
    printf("pack benchmark: %d bodies, budget %.0f s per packing\n\n", n, tmax);

    /* ---- spheres */
    rve_pack_set *s = rve_pack_set_alloc((size_t)n);
    s->periodic = 1;
    rve_pack_law law;
    rve_pack_law_parse("lognormal(1,0.2)", &law, &e);
    rve_pack_rng_seed(&r, 2024);
    for (int i = 0; i < n; i++) {
        double x;
        rve_pack_law_sample(&law, &r, &x);
        rve_pack_body_sphere(&s->b[i], x, &e);
    }
    rve_pack_params p;
    rve_pack_params_init(&p);
    p.max_seconds = tmax;
    rve_pack_result res;
    rve_status st = rve_pack_run(s, &p, &res, &e);
    report("spheres lognormal(1,0.2):", s, &res, st, &e);
    rve_pack_set_free(s);

    /* ---- Voronoi cells */
    double *seeds = malloc(sizeof(double) * 4 * (size_t)n);
    rve_pack_rng_seed(&r, 77);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            seeds[4 * i + k] = rve_pack_rng_uniform(&r);
        seeds[4 * i + 3] = 0;
    }
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    int per[3] = {1, 1, 1};
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    o.topology = 0;
    o.keep_container = 0;
    rve_tess *t;
    if (rve_tess_build(seeds, n, lo, hi, per, &o, &t, &e) != RVE_OK) {
        printf("tessellation failed: %s\n", e.msg);
        free(seeds);
        return 1;
    }
    s = rve_pack_set_alloc((size_t)n);
    s->periodic = 1;
    int k = 0;
    double nvsum = 0;
    for (int i = 0; i < n; i++)
        if (t->cells[i].nv >= 4 && rve_pack_body_poly(&s->b[k], t->cells[i].nv, t->cells[i].v, &e) == RVE_OK) {
            nvsum += s->b[k].nv;
            k++;
        }
    s->n = (size_t)k;
    rve_tess_free(t);
    free(seeds);
    printf("\n(Voronoi cells: %d polyhedra, %.1f vertices on average)\n", k, nvsum / k);
    rve_pack_params_init(&p);
    p.max_seconds = tmax;
    p.target_fraction = 0.58;
    st = rve_pack_run(s, &p, &res, &e);
    report("Voronoi cells, target 0.58:", s, &res, st, &e);
    rve_pack_set_free(s);
    return 0;
}
