/* Benchmarks of synthesis (issue 9): prescribed-volume Laguerre diagrams and
 * the gg morphology.  The peers (Bourne et al.'s MATLAB code, Neper) are not
 * installable here: their published / measured figures (shared/anchors.md)
 * are printed next to ours, with ratios.  Usage: bench_gen [quick], or
 * bench_gen one pvol|gg|ggp N [MAX_ITER] for a single case. */
#include "config.h"
#include <rve/optim.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double urand(unsigned long long *z)
{
    *z += 0x9E3779B97F4A7C15ULL;
    unsigned long long q = *z;
    q = (q ^ (q >> 30)) * 0xBF58476D1CE4E5B9ULL;
    q = (q ^ (q >> 27)) * 0x94D049BB133111EBULL;
    q ^= q >> 31;
    return ((q >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* CPU seconds of this process (user + system): on a shared, loaded machine
 * this is closer to the idle wall time than the wall clock. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static double maxrss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

/* Prescribed volumes: random seeds in the unit cube, volumes from the gg
 * diameq distribution (lognormal(1, 0.35) cubed), as in Bourne et al. */
static void bench_pvol(size_t n, int reps, double peer_s, double peer_err)
{
    double *s = malloc(3 * n * sizeof *s), *w = malloc(n * sizeof *w), *t = malloc(n * sizeof *t);
    double dom[3] = {1, 1, 1}, times[16], errs[16], cpus[16];
    rve_morpho m;
    rve_err e;
    rve_morpho_parse("diameq:lognormal(1,0.35)", &m, &e);
    int its = 0;
    for (int r = 0; r < reps; r++) {
        unsigned long long z = 1000 + r;
        for (size_t i = 0; i < 3 * n; i++)
            s[i] = urand(&z);
        for (size_t i = 0; i < n; i++) {
            double d = rve_distrib_quantile(&m.dist[RVE_PROP_DIAMEQ], urand(&z));
            t[i] = d * d * d;
            w[i] = 0;
        }
        rve_pvol_info info;
        double c0 = cpu_seconds();
        rve_status st = rve_pvol_solve(n, s, dom, 0, t, w, NULL, &info, &e);
        cpus[r] = cpu_seconds() - c0;
        if (st != RVE_OK)
            printf("  run %d: %s\n", r, e.msg);
        times[r] = info.seconds;
        errs[r] = info.max_rel_err;
        its = info.iterations;
    }
    double tm = median(times, reps), em = median(errs, reps), cm = median(cpus, reps);
    printf("prescribed volumes n=%zu: rve median %.2f s wall, %.2f s cpu (max rel error %.4f %%, %d Newton its) | "
           "Bourne et al. MATLAB %.1f s (%.2f %%) | ratio peer/rve %.1f (wall), %.1f (cpu)\n",
           n, tm, cm, 100 * em, its, peer_s, peer_err, peer_s / tm, peer_s / cm);
    rve_morpho_free(&m);
    free(s);
    free(w);
    free(t);
}

static void bench_gg(size_t n, int periodic, int max_iter)
{
    rve_morpho m;
    rve_err e;
    rve_morpho_parse("gg", &m, &e);
    rve_gen_params p;
    rve_gen_params_default(&p);
    p.n = n;
    p.periodic = periodic;
    p.max_iter = max_iter;
    double *s = malloc(3 * n * sizeof *s), *w = malloc(n * sizeof *w);
    rve_gen_info info;
    double c0 = cpu_seconds();
    rve_status st = rve_gen(&m, &p, s, w, NULL, &info, &e);
    double cpu = cpu_seconds() - c0;
    printf("gg n=%zu%s: %s %.1f s wall, %.1f s cpu, %d shape its, %ld moves (%ld kept), KS diameq %.4f, "
           "KS 1-sphericity %.4f, neighbour log-volume correlation %.3f, max rss %.0f MiB "
           "(targets: KS <= 0.02 / 0.05, n=1000 < 60 s, n=10^4 < 600 s within 2 GiB)\n",
           n, periodic ? " periodic" : "", st == RVE_OK ? "ok" : e.msg, info.seconds, cpu, info.iterations,
           info.moves, info.moves_accepted, info.ks[RVE_PROP_DIAMEQ], info.ks[RVE_PROP_1MSPHERICITY],
           info.nb_size_corr, maxrss_mib());
    rve_morpho_free(&m);
    free(s);
    free(w);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    if (argc > 2) { /* bench_gen one pvol|gg|ggp N : a single case */
        size_t n = argc > 3 ? (size_t)atol(argv[3]) : 1000;
        if (strcmp(argv[2], "pvol") == 0)
            bench_pvol(n, 1, n >= 20000 ? 55 : n >= 10000 ? 21 : 1.3, n >= 20000 ? 0.14 : n >= 10000 ? 0.09 : 0.06);
        else
            bench_gg(n, strcmp(argv[2], "ggp") == 0, argc > 4 ? atoi(argv[4]) : 200);
        return 0;
    }
    bench_pvol(1000, 5, 1.3, 0.06);
    bench_pvol(10000, quick ? 1 : 3, 21, 0.09);
    bench_pvol(20000, quick ? 1 : 3, 55, 0.14);
    bench_gg(1000, 0, 200);
    bench_gg(1000, 1, 200);
    if (!quick)
        bench_gg(10000, 0, 200);
    return 0;
}
