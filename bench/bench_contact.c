/* Benchmark of the contact kernels (issue 4): nanoseconds per query and depth /
 * normal errors against the separating-axis oracle (long double) on the same
 * overlapping polytope pairs, for
 *   ours: GJK-TD/EPA, revised Nezami, revised Cundall (Descantes 2019's comparison);
 *   peers: libccd GJK+EPA (ccdGJKPenetration), libccd MPR (ccdMPRPenetration),
 *          Bullet btGjkEpa2 (btGjkEpaSolver2::Penetration, Debian's single-precision build).
 * Peers use their default tolerances.  Usage: bench_contact [npairs] */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <rve/dist.h>
#include "contact_oracle.h"
#include "contact_pairs.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_CCD
#include <ccd/ccd.h>
#endif
#ifdef HAVE_BULLET
void *bench_bullet_hull(const double *pts, int n);
void bench_bullet_free(void *h);
int bench_bullet_penetration(void *a, void *b, double *depth, double n[3], double p[3], double q[3]);
#endif

static double cputime(void) /* thread CPU time: time spent descheduled is not counted */
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double *w = malloc(n * sizeof *w);
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, cmpd);
    double m = n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
    free(w);
    return m;
}

typedef struct {
    double pts_a[3 * 256], pts_b[3 * 256];
    int na, nb;
    rve_polyhedron *A, *B;
    rve_shape sa, sb, ga, gb;
    rve_poly_graph gra, grb;
    oracle_result orc;
    double size;
#ifdef HAVE_BULLET
    void *ba, *bb;
#endif
} bpair;

#ifdef HAVE_CCD
typedef struct {
    const double *v;
    int n;
    double c[3];
} ccd_obj;
static void ccd_sup(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
    const ccd_obj *o = obj;
    int best = 0;
    double bv = -INFINITY;
    for (int i = 0; i < o->n; i++) {
        const double *x = o->v + 3 * i;
        double t = x[0] * dir->v[0] + x[1] * dir->v[1] + x[2] * dir->v[2];
        if (t > bv) {
            bv = t;
            best = i;
        }
    }
    for (int j = 0; j < 3; j++)
        out->v[j] = o->v[3 * best + j];
}
static void ccd_cen(const void *obj, ccd_vec3_t *c)
{
    const ccd_obj *o = obj;
    for (int j = 0; j < 3; j++)
        c->v[j] = o->c[j];
}
#endif

enum { M_GJK, M_EPA, M_EPA_GRAPH, M_EPA_POLY, M_EPA_TOL, M_NEZAMI, M_CUNDALL, M_CCD_EPA, M_CCD_MPR, M_BULLET, M_N };
static const char *mname[M_N] = {"(ours GJK alone)", "ours GJK-TD/EPA", "ours EPA + hull graph", "ours EPA polyhedra", "ours EPA tol 1e-2", "ours Nezami (rev.)", "ours Cundall (rev.)",
                                 "libccd GJK+EPA", "libccd MPR", "Bullet btGjkEpa2"};

/* one query; returns 1 when a penetration was reported (depth >= 0, n A to B) */
static int run_query(int m, bpair *p, double *depth, double n[3])
{
    rve_contact c;
    rve_err e;
    switch (m) {
    case M_GJK: {
        rve_dist_result g;
        rve_gjk_dist(&p->sa, &p->sb, NULL, NULL, &g);
        *depth = 0;
        n[0] = n[1] = n[2] = 0;
        return 0;
    }
    case M_EPA:
        rve_contact_epa(&p->sa, &p->sb, NULL, &c, &e);
        break;
    case M_EPA_GRAPH:
        rve_contact_epa(&p->ga, &p->gb, NULL, &c, &e);
        break;
    case M_EPA_POLY: /* the polyhedra (rve_polyhedron_alloc): their edge graph comes with the hull */
        rve_contact_epa_polyhedra(p->A, p->B, NULL, &c, &e);
        break;
    case M_EPA_TOL: { /* stopped at a coarse tolerance: a depth error bound of 1e-2 the size of A - B */
        rve_epa_opts o = {1e-2, 0};
        rve_contact_epa(&p->sa, &p->sb, &o, &c, &e);
        break;
    }
    case M_NEZAMI:
        rve_contact_nezami(p->A, p->B, &c, &e);
        break;
    case M_CUNDALL:
        rve_contact_cundall(p->A, p->B, &c, &e);
        break;
#ifdef HAVE_CCD
    case M_CCD_EPA:
    case M_CCD_MPR: {
        ccd_obj oa = {p->pts_a, p->na, {0, 0, 0}}, ob = {p->pts_b, p->nb, {0, 0, 0}};
        for (int j = 0; j < 3; j++) {
            oa.c[j] = p->A->centroid[j];
            ob.c[j] = p->B->centroid[j];
        }
        ccd_t ccd;
        CCD_INIT(&ccd);
        ccd.support1 = ccd_sup;
        ccd.support2 = ccd_sup;
        ccd.center1 = ccd_cen;
        ccd.center2 = ccd_cen;
        ccd.max_iterations = 10000;
        ccd_real_t d;
        ccd_vec3_t dir, pos;
        int r = m == M_CCD_EPA ? ccdGJKPenetration(&oa, &ob, &ccd, &d, &dir, &pos)
                               : ccdMPRPenetration(&oa, &ob, &ccd, &d, &dir, &pos);
        if (r != 0)
            return 0;
        *depth = d;
        for (int j = 0; j < 3; j++)
            n[j] = dir.v[j];
        return 1;
    }
#endif
#ifdef HAVE_BULLET
    case M_BULLET: {
        double pp[3], qq[3];
        if (!bench_bullet_penetration(p->ba, p->bb, depth, n, pp, qq))
            return 0;
        return 1;
    }
#endif
    default:
        return 0;
    }
    *depth = -c.s;
    memcpy(n, c.n, 3 * sizeof *n);
    return 1;
}

static int available(int m)
{
#ifndef HAVE_CCD
    if (m == M_CCD_EPA || m == M_CCD_MPR)
        return 0;
#endif
#ifndef HAVE_BULLET
    if (m == M_BULLET)
        return 0;
#endif
    (void)m;
    return 1;
}

int main(int argc, char **argv)
{
    int np = argc > 1 ? atoi(argv[1]) : 120;
    if (np < 4)
        np = 4;
    cp_rng r = {2019};
    bpair *P = calloc(np, sizeof *P);
    int made = 0;
    /* overlapping pairs of DEM-like polyhedra (4-40 vertices: boxes, tetrahedra,
     * random hulls) and larger hulls (up to 200 vertices), sizes 1e-2..1e2,
     * depths from grazing to deep */
    while (made < np) {
        bpair *p = &P[made];
        double size = pow(10, cp_range(&r, -2, 2));
        int kind = made % 4 == 3 ? (int)(cp_next(&r) % 3) : made % 4;
        size_t nv = made % 2 ? 4 + cp_next(&r) % 37 : 4 + cp_next(&r) % 197;
        double c0[3] = {0, 0, 0}, u[3], c1[3];
        cp_unit(&r, u);
        double dist = cp_range(&r, 0.2, 1.4);
        for (int j = 0; j < 3; j++)
            c1[j] = dist * size * u[j];
        p->na = (int)cp_body(&r, kind == 3 ? 0 : kind, nv, size, c0, p->pts_a);
        p->nb = (int)cp_body(&r, kind == 3 ? 1 : kind, nv, size * cp_range(&r, 0.5, 2), c1, p->pts_b);
        oracle_poly oa, ob;
        if (oracle_poly_build(&oa, p->pts_a, p->na) || oracle_poly_build(&ob, p->pts_b, p->nb))
            continue;
        oracle_contact(&oa, &ob, 0, &p->orc);
        oracle_poly_free(&oa);
        oracle_poly_free(&ob);
        if (!(p->orc.s < 0))
            continue;
        rve_err e;
        if (rve_polyhedron_alloc(&p->A, p->pts_a, p->na, &e) || rve_polyhedron_alloc(&p->B, p->pts_b, p->nb, &e))
            continue;
        rve_shape_polytope(&p->sa, p->pts_a, p->na, NULL);
        rve_shape_polytope(&p->sb, p->pts_b, p->nb, NULL);
        if (rve_poly_graph_build(p->pts_a, p->na, &p->gra, &e) || rve_poly_graph_build(p->pts_b, p->nb, &p->grb, &e))
            continue;
        rve_shape_polytope(&p->ga, p->pts_a, p->na, &p->gra);
        rve_shape_polytope(&p->gb, p->pts_b, p->nb, &p->grb);
        p->size = fmax(p->A->radius, p->B->radius);
#ifdef HAVE_BULLET
        p->ba = bench_bullet_hull(p->pts_a, p->na);
        p->bb = bench_bullet_hull(p->pts_b, p->nb);
#endif
        made++;
    }
    printf("%d overlapping convex polytope pairs (4-200 vertices, sizes 1e-2..1e2); errors against the\n"
           "separating-axis oracle in long double; timing (thread CPU time): per pair the fastest of 5\n"
           "interleaved rounds (each the mean of a batch of >= 50 us), then the median and mean over pairs\n\n",
           np);
    printf("%-22s %10s %10s %8s %11s %11s %11s %9s %7s %7s\n", "method", "median ns", "mean ns", "ratio",
           "med |dd|/L", "max |dd|/L", "max |dd|/d", "max ang", "better", "faster");
    /* timing: for each pair, every method in turn, 5 rounds interleaved; the
     * minimum over rounds of the mean thread CPU time of a batch of >= 50 us (the
     * batch size found in the first round by doubling; the clock is read once per
     * batch; robust to the load of a shared machine) */
    double *T = malloc((size_t)np * M_N * sizeof *T);
    int *K = malloc((size_t)np * M_N * sizeof *K);
    for (int i = 0; i < np; i++)
        for (int m = 0; m < M_N; m++) {
            T[i * M_N + m] = INFINITY;
            K[i * M_N + m] = 0;
        }
    for (int round = 0; round < 5; round++)
        for (int i = 0; i < np; i++)
            for (int m = 0; m < M_N; m++) {
                if (!available(m))
                    continue;
                int *k = &K[i * M_N + m], reps = *k > 0 ? *k : 1;
                double t0, t1, d2, n2[3];
                for (;;) {
                    t0 = cputime();
                    for (int r2 = 0; r2 < reps; r2++)
                        run_query(m, &P[i], &d2, n2);
                    t1 = cputime();
                    if (*k > 0 || t1 - t0 >= 5e-5 || reps >= 1 << 20)
                        break;
                    reps *= 2;
                }
                *k = reps;
                double v = (t1 - t0) / reps * 1e9;
                if (v < T[i * M_N + m])
                    T[i * M_N + m] = v;
            }
    double *t = malloc(np * sizeof *t), base_med = 0;
    double tmed[M_N] = {0}, emed[M_N] = {0}, emaxm[M_N] = {0}; /* by method: median time, median / max error */
    double *eo = malloc(np * sizeof *eo), *ao = malloc(np * sizeof *ao);
    double *E = malloc((size_t)np * M_N * sizeof *E); /* depth error / size, by pair and method */
    for (int i = 0; i < np * M_N; i++)
        E[i] = NAN;
    for (int m = 0; m < M_N; m++) {
        if (!available(m)) {
            printf("%-22s (not built: peer library absent)\n", mname[m]);
            continue;
        }
        double *el = malloc(np * sizeof *el);
        double emax = 0, erel = 0, amax = 0, tsum = 0;
        int better = 0, fails = 0, faster = 0;
        for (int i = 0; i < np; i++) {
            bpair *p = &P[i];
            double depth = 0, n[3] = {0, 0, 0};
            int ok = run_query(m, p, &depth, n);
            t[i] = T[i * M_N + m];
            tsum += t[i];
            if (m != M_EPA && t[i] < T[i * M_N + M_EPA])
                faster++;
            double d0 = (double)-p->orc.s;
            double err = ok && isfinite(depth) ? fabs(depth - d0) : INFINITY;
            if (!ok && m != M_GJK)
                fails++;
            el[i] = err / p->size;
            E[i * M_N + m] = el[i];
            if (el[i] > emax)
                emax = el[i];
            if (err / d0 > erel)
                erel = err / d0;
            double ang = 0;
            if (p->orc.unique && ok) {
                long double c[3] = {n[1] * p->orc.n[2] - n[2] * p->orc.n[1], n[2] * p->orc.n[0] - n[0] * p->orc.n[2],
                                    n[0] * p->orc.n[1] - n[1] * p->orc.n[0]};
                long double dd = n[0] * p->orc.n[0] + n[1] * p->orc.n[1] + n[2] * p->orc.n[2];
                long double nn = sqrtl(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                ang = (double)atan2l(sqrtl(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), dd / (nn > 0 ? nn : 1));
                if (!(ang == ang))
                    ang = 3.14159265358979323846;
                if (ang > amax)
                    amax = ang;
            }
            if (m == M_EPA) {
                eo[i] = err;
                ao[i] = ang;
            } else if (err < eo[i] - 1e-16 * p->size)
                better++; /* the peer is more accurate than ours on this pair */
        }
        double med = median(t, np);
        tmed[m] = med;
        emed[m] = median(el, np);
        emaxm[m] = emax;
        if (m == M_EPA)
            base_med = med;
        if (m == M_GJK)
            printf("%-22s %10.0f %10.0f %8s %11s %11s %11s %9s %7s %7s\n", mname[m], med, tsum / np, "-", "-", "-",
                   "-", "-", "-", "-");
        else
            printf("%-22s %10.0f %10.0f %7.2fx %11.2g %11.2g %11.2g %9.2g %7d %7d", mname[m], med, tsum / np,
                   base_med > 0 ? med / base_med : 1.0, median(el, np), emax, erel, amax, m == M_EPA ? 0 : better,
                   m == M_EPA ? 0 : faster);
        if (fails)
            printf("  (%d pairs reported as not penetrating)", fails);
        if (m != M_GJK)
            printf("\n");
        free(el);
    }
    /* the pairs where a peer is faster than ours: how accurate it is there */
    {
        static const int peers[3] = {M_BULLET, M_CCD_EPA, M_CCD_MPR};
        printf("\npairs where a peer is faster than ours GJK-TD/EPA, and its depth error |dd|/L there:\n");
        double *ev = malloc(np * sizeof *ev);
        for (int k = 0; k < 3; k++) {
            int m = peers[k], cnt = 0;
            if (!available(m))
                continue;
            double emx = 0, eours = 0;
            for (int i = 0; i < np; i++)
                if (T[i * M_N + m] < T[i * M_N + M_EPA]) {
                    ev[cnt++] = E[i * M_N + m];
                    emx = fmax(emx, E[i * M_N + m]);
                    eours = fmax(eours, E[i * M_N + M_EPA]);
                }
            printf("  %-18s faster on %3d of %d pairs", mname[m], cnt, np);
            if (cnt)
                printf("; its depth error there: median %.2g, max %.2g (ours: max %.2g)", median(ev, cnt), emx, eours);
            printf("\n");
        }
        free(ev);
    }
    if (getenv("BENCH_CONTACT_PAIRS")) /* per pair: vertex counts, times (ns), peers' depth errors / L */
        for (int i = 0; i < np; i++)
            fprintf(stderr,
                    "pair %3d nv %3d %3d  epa %7.0f  bullet %7.0f (err %7.1e)  ccd-epa %7.0f (err %7.1e)  mpr %7.0f (err %7.1e)  gjk %6.0f\n",
                    i, P[i].na, P[i].nb, T[i * M_N + M_EPA], T[i * M_N + M_BULLET], E[i * M_N + M_BULLET],
                    T[i * M_N + M_CCD_EPA], E[i * M_N + M_CCD_EPA], T[i * M_N + M_CCD_MPR], E[i * M_N + M_CCD_MPR],
                    T[i * M_N + M_GJK]);
    /* by size class: the vertex counts of the pairs matter (supports are O(n),
     * the polytope work is not) */
    {
        static const int lo[4] = {4, 8, 9, 41}, hi[4] = {7, 8, 40, 256};
        static const int show[6] = {M_EPA, M_EPA_GRAPH, M_EPA_POLY, M_BULLET, M_CCD_MPR, M_CCD_EPA};
        printf("\nby vertex count (both bodies in the class): pairs, median ns");
        for (int k = 0; k < 6; k++)
            if (available(show[k]))
                printf(" | %s", mname[show[k]]);
        printf("\n");
        double *tv = malloc(np * sizeof *tv);
        for (int c = 0; c < 4; c++) {
            int cnt = 0;
            printf("  %3d-%-3d vertices:", lo[c], hi[c]);
            for (int i = 0; i < np; i++)
                cnt += P[i].na >= lo[c] && P[i].na <= hi[c] && P[i].nb >= lo[c] && P[i].nb <= hi[c];
            printf(" %3d pairs", cnt);
            for (int k = 0; k < 6 && cnt > 0; k++) {
                if (!available(show[k]))
                    continue;
                int m2 = 0;
                for (int i = 0; i < np; i++)
                    if (P[i].na >= lo[c] && P[i].na <= hi[c] && P[i].nb >= lo[c] && P[i].nb <= hi[c])
                        tv[m2++] = T[i * M_N + show[k]];
                double md = median(tv, m2);
                printf(" | %7.0f", md);
                if (show[k] != M_EPA) {
                    m2 = 0;
                    for (int i = 0; i < np; i++)
                        if (P[i].na >= lo[c] && P[i].na <= hi[c] && P[i].nb >= lo[c] && P[i].nb <= hi[c])
                            tv[m2++] = T[i * M_N + M_EPA];
                    printf(" (%.2fx ours)", md / median(tv, m2));
                }
            }
            printf("\n");
        }
        free(tv);
    }
    if (available(M_CCD_MPR))
        printf("\nMPR is approximate (it measures the overlap along the centre line; no certificate of the\n"
               "closest face).  At an accuracy of MPR's order: ours with tol 1e-2 (a guaranteed bound) %.0f ns,\n"
               "depth error median %.2g / max %.2g of L; libccd MPR %.0f ns, median %.2g / max %.2g; ours exact\n"
               "%.0f ns, median %.2g / max %.2g.\n",
               tmed[M_EPA_TOL], emed[M_EPA_TOL], emaxm[M_EPA_TOL], tmed[M_CCD_MPR], emed[M_CCD_MPR], emaxm[M_CCD_MPR],
               tmed[M_EPA], emed[M_EPA], emaxm[M_EPA]);
    printf("\nratio: median time / ours GJK-TD/EPA (Descantes 2019: Nezami 5.7x, Cundall 64.8x slower than\n"
           "GJK-TD on average).  |dd|/L: depth error over the size of the larger body; |dd|/d: over the depth;\n"
           "ang: normal error in radians (pairs with a unique normal); better: pairs where that method's depth\n"
           "error is below ours by more than 1e-16 L; faster: pairs where that method is faster than ours.\n");
    for (int i = 0; i < np; i++) {
        rve_polyhedron_free(P[i].A);
        rve_polyhedron_free(P[i].B);
        rve_poly_graph_free(&P[i].gra);
        rve_poly_graph_free(&P[i].grb);
#ifdef HAVE_BULLET
        bench_bullet_free(P[i].ba);
        bench_bullet_free(P[i].bb);
#endif
    }
    free(P);
    free(t);
    free(T);
    free(K);
    free(eo);
    free(ao);
    free(E);
    return 0;
}
