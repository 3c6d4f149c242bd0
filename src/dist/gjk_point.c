/* GJK for a point against a polytope: the public queries
 * (rve_dist_point_polytope).  The loop's supports and run are in
 * gjk_point_query.h, built here for the baseline instruction set and in
 * gjk_point_avx.c for AVX. */
#include "config.h"
#include "dist/gjk_point_query.h"

/* the point query's run for the baseline instruction set (want: WANT_D or
 * WANT_FULL; scaled: the power-of-two rerun) */
double dist_ptpoly_run_base(const double p[3], const double *verts, int nv, const rve_gjk_opts *o, int scaled,
                            rve_gjk_simplex *warm, rve_dist_result *out, int *rescale, int want)
{
    return ptpoly_run(p, verts, nv, o, scaled, warm, out, rescale, want);
}

/* the AVX build where the CPU has it (as gjk_dist_default in gjk.c) and
 * the query takes rows (its scans are where AVX pays: 30 vertices 11-16 %
 * faster; without rows the call into it cost 5-10 % at 4 vertices) */
static inline double point_run(const double p[3], const double *verts, int nv, const rve_gjk_opts *o, int scaled,
                               rve_gjk_simplex *warm, rve_dist_result *out, int *rescale, int want)
{
#if DIST_HAVE_AVX_SCAN
    if (ptpoly_rows(nv, scaled) && __builtin_cpu_supports("avx"))
        return dist_ptpoly_run_avx(p, verts, nv, o, warm, out, rescale, want);
#endif
    return dist_ptpoly_run_base(p, verts, nv, o, scaled, warm, out, rescale, want);
}

double rve_dist_point_polytope_opts(const double p[3], const double *verts, int nv, const rve_gjk_opts *opts,
                                    rve_gjk_simplex *warm, rve_dist_result *out)
{
    rve_dist_result tmp;
    rve_gjk_opts o;
    /* the lean path: without out, only d is computed */
    int want = out ? WANT_FULL : WANT_D;
    if (!out)
        out = &tmp;
    if (opts)
        o = *opts;
    else
        rve_gjk_opts_default(&o);
    if (nv < 1 || !verts || !isfinite(p[0] + p[1] + p[2])) {
        gjk_degenerate_result(out);
        return out->d;
    }
    rve_gjk_simplex w0;
    if (warm)
        w0 = *warm;
    int rescale;
    point_run(p, verts, nv, &o, 0, warm, out, &rescale, want);
    if (rescale) {
        int nex = out->exact;
        if (warm)
            *warm = w0;
        point_run(p, verts, nv, &o, 1, warm, out, &rescale, want);
        out->exact += nex;
    }
    return out->d;
}

double rve_dist_point_polytope(const double p[3], const double *verts, int nv, rve_gjk_simplex *warm,
                               rve_dist_result *out)
{
    return rve_dist_point_polytope_opts(p, verts, nv, NULL, warm, out);
}
