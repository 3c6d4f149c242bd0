/* bench_compound - the intrinsic hierarchy (issue 22) against all piece
 * pairs: distance queries between two compound bodies of 10 to 200 convex
 * pieces (16-vertex polytopes in a ball of radius 1, the second body 2.2 to
 * 3 radii away at random orientations).  "all pairs" is GJK on every piece
 * pair, the minimum kept; "tree" is rve_compound_dist without a cache;
 * "tree+cache" repeats the query along a short random walk with the pair
 * cache (spatial coherence).  Prints medians over the poses, the ratio, and
 * the GJK calls per query.  The results agree to 1e-12 (checked here).
 * Last columns: intersection tests with the second body moved halfway
 * into the gap (separated by half the distance, so all pairs tests every
 * pair), all pairs against rve_compound_intersect (answers checked equal). */
#include "config.h"
#include <rve/dist.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static uint64_t st = 88172645463325252ull;
static double urand(void)
{
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return (double)(st >> 11) * (1.0 / 9007199254740992.0);
}
static double nrand(void) { return sqrt(-2 * log(urand() + 1e-300)) * cos(2 * M_PI * urand()); }
static void rquat(double q[4])
{
    double n = 0;
    for (int k = 0; k < 4; k++) {
        q[k] = nrand();
        n += q[k] * q[k];
    }
    for (int k = 0; k < 4; k++)
        q[k] /= sqrt(n);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static rve_compound *make(size_t n, double *verts)
{
    rve_shape *s = malloc(n * sizeof *s);
    double size = 0.6 / cbrt((double)n) + 0.05;
    for (size_t i = 0; i < n; i++) {
        double *v = verts + 48 * i, c[3], q[4], dir[3] = {nrand(), nrand(), nrand()};
        double dn = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]), rr = cbrt(urand());
        for (int k = 0; k < 16 * 3; k++)
            v[k] = 0.6 * size * nrand();
        for (int k = 0; k < 3; k++)
            c[k] = rr * dir[k] / dn;
        rquat(q);
        rve_shape_polytope(&s[i], v, 16, NULL);
        rve_shape_set_pose(&s[i], c, q);
    }
    rve_compound *C;
    rve_err e;
    if (rve_compound_build(s, n, &C, &e) != RVE_OK) {
        fprintf(stderr, "bench_compound: %s\n", e.msg);
        exit(1);
    }
    free(s);
    return C;
}

/* All-pairs intersection test: stops at the first overlapping pair. */
static int all_pairs_hit(const rve_compound *A, const rve_pose *pa, const rve_compound *B, const rve_pose *pb)
{
    size_t na = rve_compound_npieces(A), nb = rve_compound_npieces(B);
    for (size_t i = 0; i < na; i++) {
        rve_shape sa;
        rve_compound_piece(A, pa, i, &sa);
        for (size_t j = 0; j < nb; j++) {
            rve_shape sb;
            rve_compound_piece(B, pb, j, &sb);
            if (rve_gjk_intersect(&sa, &sb, NULL))
                return 1;
        }
    }
    return 0;
}

static double all_pairs(const rve_compound *A, const rve_pose *pa, const rve_compound *B, const rve_pose *pb)
{
    double best = INFINITY;
    size_t na = rve_compound_npieces(A), nb = rve_compound_npieces(B);
    for (size_t i = 0; i < na; i++) {
        rve_shape sa;
        rve_compound_piece(A, pa, i, &sa);
        for (size_t j = 0; j < nb; j++) {
            rve_shape sb;
            rve_compound_piece(B, pb, j, &sb);
            rve_dist_result r;
            rve_gjk_dist(&sa, &sb, NULL, NULL, &r);
            if (r.d < best)
                best = r.d;
        }
    }
    return best;
}

int main(void)
{
    static const size_t sizes[] = {10, 25, 50, 100, 200};
    enum { NPOSE = 30, NWALK = 10 };
    printf("bench_compound: distance between two compounds of n convex pieces (16-vertex polytopes)\n");
    printf("%5s %12s %12s %8s %12s %8s %10s %10s %12s %10s %8s\n", "n", "all pairs us", "tree us", "speedup",
           "tree+cache us", "speedup", "GJK/query", "cache GJK", "isect all us", "isect tree", "speedup");
    for (int si = 0; si < 5; si++) {
        size_t n = sizes[si];
        double *va = malloc(n * 48 * sizeof(double)), *vb = malloc(n * 48 * sizeof(double));
        rve_compound *A = make(n, va), *B = make(n, vb);
        double tb[NPOSE], tt[NPOSE], tc[NPOSE], ib[NPOSE], it[NPOSE];
        long calls = 0, ccalls = 0;
        for (int p = 0; p < NPOSE; p++) {
            rve_pose pa = {{0, 0, 0}, {1, 0, 0, 0}}, pb;
            double dir[3] = {nrand(), nrand(), nrand()}, dn = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
            double dist = 2.2 + 0.8 * urand();
            for (int k = 0; k < 3; k++)
                pb.pos[k] = dist * dir[k] / dn;
            rquat(pa.quat);
            rquat(pb.quat);
            double t0 = rve_now();
            double db = all_pairs(A, &pa, B, &pb);
            tb[p] = rve_now() - t0;
            rve_compound_result res;
            rve_err e;
            t0 = rve_now();
            rve_compound_dist(A, &pa, B, &pb, NULL, &res, &e);
            tt[p] = rve_now() - t0;
            calls += res.gjk_calls;
            if (fabs(res.d - db) > 1e-12) {
                fprintf(stderr, "bench_compound: n %zu: tree %.17g, all pairs %.17g\n", n, res.d, db);
                return 1;
            }
            /* intersection tests with B moved halfway into the gap */
            rve_pose pc = pb;
            for (int k = 0; k < 3; k++)
                pc.pos[k] *= 1 - 0.5 * res.d / dist;
            t0 = rve_now();
            int hb = all_pairs_hit(A, &pa, B, &pc);
            ib[p] = rve_now() - t0;
            t0 = rve_now();
            int ht = rve_compound_intersect(A, &pa, B, &pc, NULL, NULL);
            it[p] = rve_now() - t0;
            if (hb != ht) {
                fprintf(stderr, "bench_compound: n %zu: intersect tree %d, all pairs %d\n", n, ht, hb);
                return 1;
            }
            rve_compound_cache cache;
            rve_compound_cache_init(&cache);
            rve_compound_dist(A, &pa, B, &pb, &cache, &res, &e);
            t0 = rve_now();
            for (int w = 0; w < NWALK; w++) {
                for (int k = 0; k < 3; k++)
                    pb.pos[k] += 0.01 * nrand();
                rve_compound_dist(A, &pa, B, &pb, &cache, &res, &e);
                ccalls += res.gjk_calls;
            }
            tc[p] = (rve_now() - t0) / NWALK;
        }
        qsort(tb, NPOSE, sizeof(double), cmpd);
        qsort(tt, NPOSE, sizeof(double), cmpd);
        qsort(tc, NPOSE, sizeof(double), cmpd);
        qsort(ib, NPOSE, sizeof(double), cmpd);
        qsort(it, NPOSE, sizeof(double), cmpd);
        double mib = ib[NPOSE / 2] * 1e6, mit = it[NPOSE / 2] * 1e6;
        double mb = tb[NPOSE / 2] * 1e6, mt = tt[NPOSE / 2] * 1e6, mc = tc[NPOSE / 2] * 1e6;
        printf("%5zu %12.1f %12.1f %8.1f %12.1f %8.1f %10.1f %10.1f %12.1f %10.1f %8.1f\n", n, mb, mt, mb / mt, mc,
               mb / mc, (double)calls / NPOSE, (double)ccalls / (NPOSE * NWALK), mib, mit, mib / mit);
        rve_compound_free(A);
        rve_compound_free(B);
        free(va);
        free(vb);
    }
    return 0;
}
