/* The default pair query (gjk_query.h) built for AVX: the support scans of
 * small polytopes take four products per register (dist_soa_best), and the
 * rest is VEX code.  No FMA (the target is avx only, and ISO C mode
 * does not contract), no reassociation: the same operations as the
 * baseline build, so the same answers bit for bit (tests/test_dist_tied
 * checks it).  gjk.c calls it where the CPU has AVX; gjk_point_avx.c does
 * the same for the point query. */
#include "config.h"
/* DIST_HAVE_AVX_SCAN's test (dist_internal.h): the pragma comes before every
 * header, so that their inline functions are built for AVX too (and
 * dist_internal.h sees __AVX__) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC target("avx")
#include "dist/dist_noslp.h"
#include "dist/gjk_query.h"

rve_gjk_status dist_gjk_default_avx(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm,
                                    rve_dist_result *out, int want)
{
    return gjk_dist_run(A, B, NULL, warm, out, want, 1);
}
#else
typedef int gjk_avx_unused; /* ISO C: a translation unit is not empty */
#endif
