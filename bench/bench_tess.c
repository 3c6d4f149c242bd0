/* bench_tess.c - tessellation speed and memory: ours (cells + full topology)
 * beside voro++ alone computing the same cells, in the same run; and the
 * incremental update after moving one seed against a full rebuild.
 *
 * Every measurement runs in a forked child so that its peak memory (max RSS)
 * is its own.  RVE_BENCH_MAXN caps the largest size (default 1000000),
 * RVE_BENCH_MINN skips smaller ones, RVE_BENCH_REPS sets the repetitions,
 * RVE_BENCH_NOUPDATE skips the incremental benchmark, RVE_BENCH_PAIR runs only
 * the fair peer and ours with topology on one thread (the ratio that the
 * target is about, in a third of the time), RVE_BENCH_FAULTS prints each
 * run's minor page faults (fresh pages the kernel zeroes: at 10^6 cells they
 * are a large share of our time). */
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
#include <time.h>
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

enum { M_VORO0, M_VORO, M_CELLS, M_TOPO, M_TOPO2, M_COUNT };

static double cpu_now(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Run one measurement in a forked child (so that its peak memory is its
 * own): returns wall seconds; *cpu the CPU seconds of the computing thread
 * (CLOCK_THREAD_CPUTIME_ID; with two threads the process's CPU time), *rss_mb
 * the child's peak resident memory. */
static double measure(int mode, int n, double wmax, double *cpu, double *rss_mb)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        rs = 0x9E3779B97F4A7C15ULL + (uint64_t)n;
        double *s = make_seeds(n, wmax);
        double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        clockid_t cid = mode == M_TOPO2 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID;
        double c0 = cpu_now(cid), t0 = rve_now(), check = 0;
        if (mode == M_VORO0 || mode == M_VORO) {
            check = tv_plain_all(lo, hi, NULL, n, s, mode == M_VORO);
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
            /* the tessellation is freed by the exit (not timed either way) */
        }
        double r[3] = {rve_now() - t0, cpu_now(cid) - c0, check};
        if (write(fd[1], r, sizeof r) != sizeof r) _exit(1);
        _exit(0);
    }
    close(fd[1]);
    double r[3] = {-1, -1, 0};
    if (read(fd[0], r, sizeof r) != sizeof r) r[0] = -1;
    close(fd[0]);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    *rss_mb = ru.ru_maxrss / 1024.0;
    if (getenv("RVE_BENCH_FAULTS")) /* pages first touched: each one zeroed by the kernel */
        fprintf(stderr, "mode %d n %d: %ld minor page faults\n", mode, n, ru.ru_minflt);
    *cpu = r[1];
    if (!(r[2] > 1 - 1e-9 && r[2] < 1 + 1e-9)) fprintf(stderr, "mode %d: volume check failed: %.17g\n", mode, r[2]);
    return r[0];
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

static void print_uptime(void)
{
    char buf[256] = "";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
        fclose(f);
    }
    double l1 = 0, l5 = 0, l15 = 0;
    if (sscanf(buf, "%lf %lf %lf", &l1, &l5, &l15) != 3) l1 = l5 = l15 = -1;
    printf("   load average (1, 5, 15 min): %.2f %.2f %.2f\n", l1, l5, l15);
}

enum { MAXREP = 15 };

static void bench_build(int n, int reps, double wmax)
{
    static const char *names[M_COUNT] = {
        "voro++ alone, volumes only      ", "voro++ alone, nbr+verts+faces   ",
        "ours, cells only (1 thread)     ", "ours, cells+topology (1 thread) ",
        "ours, cells+topology (2 threads)"};
    double tw[M_COUNT][MAXREP], tc[M_COUNT][MAXREP], rw[M_COUNT][MAXREP], rc[M_COUNT][MAXREP];
    double mem[M_COUNT] = {0};
    if (reps > MAXREP) reps = MAXREP;
    printf("%8d %s, %d interleaved repetitions\n", n, wmax > 0 ? "Laguerre" : "Voronoi", reps);
    print_uptime();
    int pair = getenv("RVE_BENCH_PAIR") != NULL;
    for (int k = 0; k < reps; k++) /* interleaved: noise hits every side */
        for (int m = 0; m < M_COUNT; m++) {
            if (pair && m != M_VORO && m != M_TOPO) {
                tw[m][k] = tc[m][k] = 0;
                continue;
            }
            double r = 0;
            tw[m][k] = measure(m, n, wmax, &tc[m][k], &r);
            if (r > mem[m]) mem[m] = r;
        }
    /* ratios to the fair peer (M_VORO) within each repetition, then medians */
    for (int m = 0; m < M_COUNT; m++)
        for (int k = 0; k < reps; k++) {
            rw[m][k] = tw[m][k] / tw[M_VORO][k];
            rc[m][k] = tc[m][k] / tc[M_VORO][k];
        }
    printf("   %-33s %9s %9s %8s %12s %12s\n", "", "wall", "cpu", "peak", "wall ratio", "cpu ratio");
    for (int m = 0; m < M_COUNT; m++) {
        if (pair && m != M_VORO && m != M_TOPO) continue;
        printf("   %s %8.3fs %8.3fs %6.0fMB %11.2fx %11.2fx\n", names[m], median(tw[m], reps),
               median(tc[m], reps), mem[m], median(rw[m], reps), median(rc[m], reps));
    }
    printf("   (ratios: medians of per-repetition ratios to 'voro++ alone, nbr+verts+faces'; "
           "target <= 1.5x single thread; cpu = thread CPU time, process CPU time for 2 threads)\n");
    print_uptime();
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
    const char *mx = getenv("RVE_BENCH_MAXN"), *mn = getenv("RVE_BENCH_MINN"), *rp = getenv("RVE_BENCH_REPS");
    long maxn = mx ? atol(mx) : 1000000, minn = mn ? atol(mn) : 0;
    printf("tessellation of n random seeds in a unit cube; each run in a forked child, peak memory = its max RSS\n");
    printf("voro++ alone, volumes only = container_poly + compute_cell(voronoicell) + volume() (lower bound)\n");
    printf("voro++ alone, nbr+verts+faces = compute_cell(voronoicell_neighbor) + vertices(), neighbors(),\n"
           "   face_vertices(), volume(): the information our polyhedra are built from (the fair peer)\n");
    printf("ours cells = per-cell polyhedra (vertices, faces, neighbours, areas, volumes, centroids;\n"
           "   face planes oriented, then derived on demand)\n");
    printf("ours +topology = also unique vertices/edges/faces shared between cells\n");
    int sizes[3] = {10000, 100000, 1000000}, reps[3] = {7, 5, 3};
    for (int k = 0; k < 3; k++)
        if (sizes[k] <= maxn && sizes[k] >= minn) bench_build(sizes[k], rp ? atoi(rp) : reps[k], 0.0);
    if (100000 <= maxn && 100000 >= minn) bench_build(100000, rp ? atoi(rp) : 3, 0.2 / cbrt(100000.0));
    if (!getenv("RVE_BENCH_NOUPDATE")) bench_update(maxn >= 100000 ? 100000 : (int)maxn);
    return 0;
}
