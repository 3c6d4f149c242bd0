/* bench_tess.c - tessellation speed and memory: ours (cells + full topology)
 * beside voro++ alone computing the same cells, in the same run; and the
 * incremental update after moving one seed against a full rebuild.
 *
 * Every measurement runs in a forked child so that its peak memory (max RSS)
 * is its own.  RVE_BENCH_MAXN caps the largest size (default 1000000). */
#define _DEFAULT_SOURCE
#include "config.h"
#include <rve/tess.h>
#include "tess/voro_wrap.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t rs = 0x9E3779B97F4A7C15ULL;
static double urand(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (rs >> 11) * (1.0 / 9007199254740992.0);
}

static double *make_seeds(int n, double wmax)
{
    double *s = malloc(sizeof(double) * 4 * (size_t)n);
    for (int i = 0; i < n; i++) {
        s[4 * i] = urand();
        s[4 * i + 1] = urand();
        s[4 * i + 2] = urand();
        s[4 * i + 3] = wmax * urand();
    }
    return s;
}

enum { M_VORO, M_CELLS, M_TOPO, M_TOPO2 };

/* Run one measurement in a child: returns seconds, *rss_mb the child's peak. */
static double measure(int mode, int n, double wmax, double *rss_mb)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        rs = 0x9E3779B97F4A7C15ULL + (uint64_t)n;
        double *s = make_seeds(n, wmax);
        double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        double t0 = rve_now(), check = 0;
        if (mode == M_VORO) {
            check = tv_plain_all(lo, hi, NULL, n, s);
        } else {
            rve_tess_opts o;
            rve_tess_opts_default(&o);
            o.topology = mode != M_CELLS;
            o.threads = mode == M_TOPO2 ? 2 : 1;
            o.keep_container = 0;
            rve_tess *t = NULL;
            rve_err e;
            if (rve_tess_build(s, n, lo, hi, NULL, &o, &t, &e) != RVE_OK) _exit(1);
            for (int i = 0; i < n; i++) check += t->cells[i].vol;
            double dt = rve_now() - t0;
            if (write(fd[1], &dt, sizeof dt) != sizeof dt) _exit(1);
            if (write(fd[1], &check, sizeof check) != sizeof check) _exit(1);
            _exit(0); /* the tessellation is freed by the exit (not timed either way) */
        }
        double dt = rve_now() - t0;
        if (write(fd[1], &dt, sizeof dt) != sizeof dt) _exit(1);
        if (write(fd[1], &check, sizeof check) != sizeof check) _exit(1);
        _exit(0);
    }
    close(fd[1]);
    double dt = -1, check = 0;
    if (read(fd[0], &dt, sizeof dt) != sizeof dt) dt = -1;
    if (read(fd[0], &check, sizeof check) != sizeof check) dt = -1;
    close(fd[0]);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    *rss_mb = ru.ru_maxrss / 1024.0;
    if (!(check > 1 - 1e-9 && check < 1 + 1e-9)) fprintf(stderr, "volume check failed: %.17g\n", check);
    return dt;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void bench_build(int n, int reps, double wmax)
{
    double tv[9], tc[9], tt[9], t2[9], mv = 0, mc = 0, mt = 0, m2 = 0, r;
    for (int k = 0; k < reps; k++) { /* interleaved: noise hits every side */
        tv[k] = measure(M_VORO, n, wmax, &r);
        if (r > mv) mv = r;
        tc[k] = measure(M_CELLS, n, wmax, &r);
        if (r > mc) mc = r;
        tt[k] = measure(M_TOPO, n, wmax, &r);
        if (r > mt) mt = r;
        t2[k] = measure(M_TOPO2, n, wmax, &r);
        if (r > m2) m2 = r;
    }
    double a = median(tv, reps), b = median(tc, reps), c = median(tt, reps), d = median(t2, reps);
    printf("%8d %s reps %d\n", n, wmax > 0 ? "Laguerre" : "Voronoi", reps);
    printf("   voro++ alone (1 thread)        %8.3f s %8.0f MB\n", a, mv);
    printf("   ours, cells only (1 thread)    %8.3f s %8.0f MB   %.2fx voro++\n", b, mc, b / a);
    printf("   ours, cells+topology (1 thr.)  %8.3f s %8.0f MB   %.2fx voro++\n", c, mt, c / a);
    printf("   ours, cells+topology (2 thr.)  %8.3f s %8.0f MB   %.2fx voro++ (target <= 1.5x)\n", d, m2, d / a);
    fflush(stdout);
}

static void bench_update(int n)
{
    rs = 12345;
    double *s = make_seeds(n, 0.2 / cbrt((double)n));
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    rve_err e;
    /* full rebuilds: cells only and with topology */
    double tfull[3], ttopo[3];
    for (int k = 0; k < 3; k++) {
        rve_tess *t = NULL;
        o.topology = 0;
        double t0 = rve_now();
        rve_tess_build(s, n, lo, hi, NULL, &o, &t, &e);
        tfull[k] = rve_now() - t0;
        rve_tess_free(t);
        o.topology = 1;
        t0 = rve_now();
        rve_tess_build(s, n, lo, hi, NULL, &o, &t, &e);
        ttopo[k] = rve_now() - t0;
        rve_tess_free(t);
    }
    o.topology = 0;
    rve_tess *t = NULL;
    rve_tess_build(s, n, lo, hi, NULL, &o, &t, &e);
    int nmov = 2000;
    double *tu = malloc(sizeof(double) * nmov);
    int *changed = malloc(sizeof(int) * (size_t)n);
    double h = 0.3 / cbrt((double)n), sumch = 0;
    for (int k = 0; k < nmov; k++) {
        int id = (int)(urand() * n);
        double ns[4];
        for (int a = 0; a < 3; a++) {
            ns[a] = t->seeds[4 * id + a] + h * (2 * urand() - 1);
            if (ns[a] < 0) ns[a] = 0;
            if (ns[a] > 1) ns[a] = 1;
        }
        ns[3] = t->seeds[4 * id + 3] * (0.8 + 0.4 * urand());
        int nc = 0;
        double t0 = rve_now();
        rve_tess_update(t, 1, &id, ns, changed, &nc, &e);
        tu[k] = rve_now() - t0;
        sumch += nc;
    }
    double mf = median(tfull, 3), mtp = median(ttopo, 3), mu = median(tu, nmov);
    printf("incremental, %d seeds: one seed moved: median %.1f us (%.1f cells recomputed on average); "
           "full rebuild %.3f s (cells) / %.3f s (with topology): ratio %.0fx / %.0fx (target >= 1000x)\n",
           n, mu * 1e6, sumch / nmov, mf, mtp, mf / mu, mtp / mu);
    free(tu);
    free(changed);
    rve_tess_free(t);
    free(s);
}

int main(void)
{
    const char *mx = getenv("RVE_BENCH_MAXN");
    long maxn = mx ? atol(mx) : 1000000;
    printf("tessellation of n random seeds in a unit cube, one thread; peak memory = max RSS of a forked child\n");
    printf("voro++ alone = container_poly + compute_cell(voronoicell) over all cells (volumes only)\n");
    printf("ours cells = per-cell polyhedra (vertices, faces, neighbours, planes, areas, volumes, centroids)\n");
    printf("ours +topology = also unique vertices/edges/faces shared between cells\n");
    int sizes[3] = {10000, 100000, 1000000}, reps[3] = {5, 3, 1};
    for (int k = 0; k < 3; k++)
        if (sizes[k] <= maxn) bench_build(sizes[k], reps[k], 0.0);
    if (100000 <= maxn) bench_build(100000, 1, 0.2 / cbrt(100000.0));
    bench_update(maxn >= 100000 ? 100000 : (int)maxn);
    return 0;
}
