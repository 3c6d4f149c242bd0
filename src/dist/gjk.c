/* GJK for pairs of shapes: the public pair queries.  The query itself
 * (supports, set-up, the loop's run) is in gjk_query.h, built here for the
 * baseline instruction set and in gjk_avx.c for AVX; the loop is in
 * gjk_loop.h, the point queries in gjk_point.c, the sub-algorithms in
 * gjk_sv.c. */
#include "config.h"
#include "dist/dist_noslp.h" /* before every other header */
#include "dist/gjk_query.h"

/* The default query (Signed Volumes, default options), one copy for the
 * lean and the full call: as two inlined copies the full call's ran 430
 * instructions more per 8-vertex query than the lean one, of which only
 * some 200 fill in what it asks for */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
rve_gjk_status dist_gjk_default_base(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm,
                                     rve_dist_result *out, int want)
{
    return gjk_dist_run(A, B, NULL, warm, out, want, 1);
}

/* the AVX build where the CPU has it (one load and a bit test per call):
 * 8-vertex pairs 6-8 % faster (docs/dist.md, stop 36) */
static inline rve_gjk_status gjk_dist_default(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm,
                                              rve_dist_result *out, int want)
{
#if DIST_HAVE_AVX_SCAN
    if (__builtin_cpu_supports("avx"))
        return dist_gjk_default_avx(A, B, warm, out, want);
#endif
    return dist_gjk_default_base(A, B, warm, out, want);
}

/* options that run as the defaults do (a value <= 0 takes the default) */
static int opts_are_default(const rve_gjk_opts *o)
{
    return o->sub == RVE_SUB_SV && (o->max_iter <= 0 || o->max_iter == GJK_DEFAULT_MAX_ITER) &&
           (o->eps_rel <= 0 || o->eps_rel == GJK_DEFAULT_EPS_REL) && (o->eps_abs <= 0 || o->eps_abs == GJK_DEFAULT_EPS_ABS);
}

rve_gjk_status rve_gjk_dist(const rve_shape *A, const rve_shape *B, const rve_gjk_opts *opts,
                            rve_gjk_simplex *warm, rve_dist_result *out)
{
    if (!opts || opts_are_default(opts))
        return gjk_dist_default(A, B, warm, out, WANT_FULL);
    /* Signed Volumes in a copy of its own: with the sub-algorithm a run-time
     * choice in the loop, gcc called it out of line in every iteration
     * (8-32 vertices: 10-25 % slower than the lean call) */
    if (opts->sub != RVE_SUB_JOHNSON)
        return gjk_dist_run(A, B, opts, warm, out, WANT_FULL, 1);
    return gjk_dist_run(A, B, opts, warm, out, WANT_FULL, 0);
}

double rve_gjk_distance(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm, double p[3], double q[3])
{
    rve_dist_result out;
    gjk_dist_default(A, B, warm, &out, p || q ? WANT_PQ : WANT_D);
    if (p)
        v3_copy(p, out.p);
    if (q)
        v3_copy(q, out.q);
    return out.d;
}

int rve_gjk_intersect(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm)
{
    rve_gjk_opts o;
    rve_gjk_opts_default(&o);
    if (!shape_valid_fast(A) || !shape_valid_fast(B))
        return -1;
    gjk_pair P;
    double v0[3];
    rve_dist_result out;
    pair_init(&P, A, B, 0, v0);
    P.want = WANT_D;
    double margin = A->radius + B->radius;
    /* the loop compares squares of the margin and of v.w: pairs whose first
     * direction or margin is beyond 2^+-200 (or that fail) run scaled */
    double m0 = fmax_(v3_maxabs(v0), margin);
    rve_gjk_status st = RVE_GJK_DEGENERATE;
    if (m0 <= 0x1p200 && (m0 >= 0x1p-200 || m0 == 0))
        st = gjk_loop(&P, support_generic, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0, &o, warm, &out,
                      margin, 0);
    if (st == RVE_GJK_DEGENERATE || st == RVE_GJK_CAP || needs_rescale(&P, &out)) {
        st = scaled_run(&P, A, B, &o, warm, &out, A->radius + B->radius);
    }
    if (st == RVE_GJK_DEGENERATE)
        return -1;
    if (st == RVE_GJK_INTERSECT)
        return 1;
    return out.d <= margin;
}
