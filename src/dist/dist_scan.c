/* The brute-force support scans for large vertex sets (dist_argmax in
 * dist_internal.h picks one by the vertex count): every one returns the
 * index of the plain scan, the first index of the maximum of the products
 * (p[0] d[0] + p[1] d[1]) + p[2] d[2], computed with the same roundings. */
#include "config.h"
#include "dist/dist_internal.h"

int dist_argmax_block(const double *V, int nv, const double d[3])
{
    const double dx = d[0], dy = d[1], dz = d[2];
    int best = 0, i = 1;
    double bd = V[0] * dx + V[1] * dy + V[2] * dz;
    for (; i + 4 <= nv; i += 4) {
        const double *p = V + 3 * i;
        double t0 = p[0] * dx + p[1] * dy + p[2] * dz, t1 = p[3] * dx + p[4] * dy + p[5] * dz;
        double t2 = p[6] * dx + p[7] * dy + p[8] * dz, t3 = p[9] * dx + p[10] * dy + p[11] * dz;
        if ((t0 > bd) | (t1 > bd) | (t2 > bd) | (t3 > bd)) {
            if (t0 > bd) { bd = t0; best = i; }
            if (t1 > bd) { bd = t1; best = i + 1; }
            if (t2 > bd) { bd = t2; best = i + 2; }
            if (t3 > bd) { bd = t3; best = i + 3; }
        }
    }
    return dist_argmax_from(V, nv, d, i, best, bd);
}

#if DIST_HAVE_AVX_SCAN
/* Four running maxima in the lanes of one AVX register (lane k: the
 * vertices 4j + k), each the first index of its maximum (strict >; a NaN
 * product never wins: vmaxpd returns its second operand then), merged by
 * value and on a tie by the lower index; the last nv % 4 vertices by the
 * plain scan.  Four vertices at a time as rows (dist_avx_xyz4), so each
 * product is rounded as in the plain scan (no FMA: the target is avx only,
 * and ISO C mode does not contract).  A NaN product at index 0 wins in the
 * plain scan (nothing compares greater): returned first.  Indices are kept
 * as doubles (exact below 2^53). */
__attribute__((target("avx"))) int dist_argmax_avx(const double *V, int nv, const double d[3])
{
    double t0 = V[0] * d[0] + V[1] * d[1] + V[2] * d[2];
    if (t0 != t0)
        return 0;
    const __m256d dx = _mm256_set1_pd(d[0]), dy = _mm256_set1_pd(d[1]), dz = _mm256_set1_pd(d[2]);
    const __m256d four = _mm256_set1_pd(4);
    __m256d best = _mm256_set1_pd(-INFINITY), bi = _mm256_setr_pd(0, 1, 2, 3), cur = bi;
    int i = 0;
    for (; i + 4 <= nv; i += 4) {
        __m256d X, Y, Z;
        dist_avx_xyz4(V + 3 * i, &X, &Y, &Z);
        __m256d t = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(X, dx), _mm256_mul_pd(Y, dy)), _mm256_mul_pd(Z, dz));
        __m256d m = _mm256_cmp_pd(t, best, _CMP_GT_OQ);
        /* and/andnot/or, not blendv: gcc 12 turned blendv into branches */
        bi = _mm256_or_pd(_mm256_and_pd(m, cur), _mm256_andnot_pd(m, bi));
        best = _mm256_max_pd(t, best);
        cur = _mm256_add_pd(cur, four);
    }
    double bv[4], bx[4];
    _mm256_storeu_pd(bv, best);
    _mm256_storeu_pd(bx, bi);
    /* every lane holds a product at its index (lane 0 at least t0 at 0) */
    int r = (int)bx[0];
    double rv = bv[0];
    for (int k = 1; k < 4; k++)
        if (bv[k] > rv || (bv[k] == rv && (int)bx[k] < r)) {
            rv = bv[k];
            r = (int)bx[k];
        }
    if (i == 0)
        return dist_argmax_from(V, nv, d, 1, 0, t0);
    return dist_argmax_from(V, nv, d, i, r, rv);
}
#endif
