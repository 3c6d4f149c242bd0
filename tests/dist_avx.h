/* The AVX builds of the rows scans and dist_rows (tests/dist_avx.c), with
 * DIST_HAVE_AVX_SCAN (include dist/dist_internal.h first); call them only
 * where __builtin_cpu_supports("avx"). */
#ifndef RVE_TEST_DIST_AVX_H
#define RVE_TEST_DIST_AVX_H
#if DIST_HAVE_AVX_SCAN
int avx_argmax_soa(const double *X, int nv, int stride, const double d[3]);
int avx_argmin_soa(const double *X, int nv, int stride, const double d[3]);
int avx_argmax_soa16(const double *X, int nv, int stride, const double d[3]);
int avx_argmin_soa16(const double *X, int nv, int stride, const double d[3]);
void avx_rows(const double *R, const double *V, int nv, double *buf, int stride);
#endif
#endif
