/* The AVX builds of the rows scans and of dist_rows (what gjk_avx.c
 * inlines), for test_dist_tied to compare with the plain scan and with the
 * baseline build.  The pragma comes before the headers, as in gjk_avx.c. */
#include "config.h"
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC target("avx")
#include "dist/dist_internal.h"
#include "dist_avx.h"

int avx_argmax_soa(const double *X, int nv, int stride, const double d[3]) { return dist_argmax_soa(X, nv, stride, d); }
int avx_argmin_soa(const double *X, int nv, int stride, const double d[3]) { return dist_argmin_soa(X, nv, stride, d); }
int avx_argmax_soa16(const double *X, int nv, int stride, const double d[3])
{
    return dist_argmax_soa16(X, nv, stride, d);
}
int avx_argmin_soa16(const double *X, int nv, int stride, const double d[3])
{
    return dist_argmin_soa16(X, nv, stride, d);
}
void avx_rows(const double *R, const double *V, int nv, double *buf, int stride)
{
    if (R)
        dist_rows(R, V, nv, buf, stride);
    else
        dist_rows(NULL, V, nv, buf, stride);
}
#else
typedef int dist_avx_unused; /* ISO C: a translation unit is not empty */
#endif
