/* The point query's run (gjk_point_query.h) built for AVX, as gjk_avx.c
 * builds the pair query: the point rows' scans take four products per
 * register.  A translation unit of its own: beside the pair query in
 * gjk_avx.c, gcc inlined less of the pair loop (100 instructions more per
 * 8-vertex pair query).  gjk_point.c calls it where the CPU has AVX and the
 * query uses rows; test_dist_tied compares it with the baseline build. */
#include "config.h"
/* the pragma before every header, as in gjk_avx.c */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC target("avx")
#include "dist/gjk_point_query.h"

/* only the unscaled run: the scaled rerun takes no rows (ptpoly_rows),
 * so it stays on the baseline build and its loop is not built here */
double dist_ptpoly_run_avx(const double p[3], const double *verts, int nv, const rve_gjk_opts *o,
                           rve_gjk_simplex *warm, rve_dist_result *out, int *rescale, int want)
{
    return ptpoly_run(p, verts, nv, o, 0, warm, out, rescale, want);
}
#else
typedef int gjk_point_avx_unused; /* ISO C: a translation unit is not empty */
#endif
