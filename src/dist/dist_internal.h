/* dist_internal.h - support functions shared inside the dist module (not installed). */
#ifndef RVE_DIST_INTERNAL_H
#define RVE_DIST_INTERNAL_H

#include <rve/dist.h>
#include "util/vec3.h"
#include <float.h>
#include <math.h>
#include <string.h>

#if defined(__GNUC__)
#define DIST_INLINE static inline __attribute__((always_inline))
#else
#define DIST_INLINE static inline
#endif

/* Rotation matrix of a shape's pose (row-major, body -> world): the
 * shape's own rve_shape.R, not a copy (a copy of 2 x 72 bytes per query was
 * part of the fixed cost of the lean path). */
typedef struct {
    const double *R;
    int rotated;
} dist_frame;

static inline void dist_frame_init(dist_frame *f, const rve_shape *s)
{
    f->rotated = s->rotated;
    f->R = s->R;
}

/* the rotation matrix of a unit quaternion (w, x, y, z) */
static inline void dist_quat_matrix(const double q[4], double R[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}

/* The box centre of at most 16 of nv >= 1 vertices (all up to 16, else every
 * (nv/16)-th): a point near the middle of a vertex set in O(1), for a first
 * search direction (halved before adding: no overflow). */
static inline void dist_sample_mid(const double *V, int nv, double m[3])
{
    /* six scalars (arrays here were kept in memory: a store-forwarding chain) */
    double lx = V[0], ly = V[1], lz = V[2], hx = lx, hy = ly, hz = lz;
    int ns = nv < 16 ? nv : 16;
    for (int k = 1; k < ns; k++) {
        const double *p = V + 3 * (nv <= 16 ? k : (int)(((long)k * nv) >> 4));
        double x = p[0], y = p[1], z = p[2];
        lx = x < lx ? x : lx;
        ly = y < ly ? y : ly;
        lz = z < lz ? z : lz;
        hx = x > hx ? x : hx;
        hy = y > hy ? y : hy;
        hz = z > hz ? z : hz;
    }
    m[0] = 0.5 * lx + 0.5 * hx;
    m[1] = 0.5 * ly + 0.5 * hy;
    m[2] = 0.5 * lz + 0.5 * hz;
}

/* Number of indexable vertices of a shape's core (0: not vertex-based). */
static inline int dist_nvertices(const rve_shape *s)
{
    switch (s->kind) {
    case RVE_SHAPE_POINT: case RVE_SHAPE_SPHERE: return 1;
    case RVE_SHAPE_SEGMENT: return 2;
    case RVE_SHAPE_TRIANGLE: return 3;
    case RVE_SHAPE_TETRA: return 4;
    case RVE_SHAPE_POLYTOPE: return s->nv;
    case RVE_SHAPE_BOX: return 8;
    default: return 0;
    }
}

/* Exact signs for Signed Volumes: a floating-point filter with a certified
 * error bound (inline, below), exact expansion arithmetic (dist_exact.c,
 * which explains the bounds) only when the filter cannot decide; *exact is
 * incremented each time the exact path runs.  Exact unless intermediate
 * products overflow or underflow (callers keep the pair within 2^+-200). */
#define EXACT_MAXLEN 400
int dist_exact_dot_diff(const double s[3], const double t[3]);
int dist_exact_det3(const double a[3], const double b[3], const double c[3]);
int dist_exact_det3_value(const double a[3], const double b[3], const double c[3], double *approx);
int dist_exact_orient3(const double a[3], const double b[3], const double c[3], const double d[3]);
int dist_exact_tri(const double s1[3], const double s2[3], const double s3[3], const double sj[3],
                   const double sk[3]);
void dist_exact_normal(const double s1[3], const double s2[3], const double s3[3], double n[3]);
void dist_exact_seg_closest(const double y1[3], const double y2[3], double v[3]);
void dist_exact_tri_closest(const double y1[3], const double y2[3], const double y3[3], double v[3]);
void dist_exact_normal_ab(const double *const a[3], const double *const b[3], double n[3]);
int dist_exact_tri_value(const double s1[3], const double s2[3], const double s3[3], const double sj[3],
                         const double sk[3], double *approx);

/* sign of s . (s - t); *val its floating-point value */
static inline int dist_sign_dot_diff(const double s[3], const double t[3], double *val, int *exact)
{
    double v = s[0] * (s[0] - t[0]) + s[1] * (s[1] - t[1]) + s[2] * (s[2] - t[2]);
    double P = fabs(s[0]) * (fabs(s[0]) + fabs(t[0])) + fabs(s[1]) * (fabs(s[1]) + fabs(t[1])) +
               fabs(s[2]) * (fabs(s[2]) + fabs(t[2]));
    *val = v;
    if (P > 0x1p-900 && fabs(v) > 6 * DBL_EPSILON * P) /* depth 4 */
        return v > 0 ? 1 : -1;
    if (!(P > 0))
        return 0;
    (*exact)++;
    return dist_exact_dot_diff(s, t);
}

/* sign of a . (b x c) */
static inline int dist_sign_det3(const double a[3], const double b[3], const double c[3], double *val, int *exact)
{
    double x0 = b[1] * c[2], x1 = b[2] * c[1], y0 = b[2] * c[0], y1 = b[0] * c[2], z0 = b[0] * c[1], z1 = b[1] * c[0];
    double v = a[0] * (x0 - x1) + a[1] * (y0 - y1) + a[2] * (z0 - z1);
    double P = fabs(a[0]) * (fabs(x0) + fabs(x1)) + fabs(a[1]) * (fabs(y0) + fabs(y1)) +
               fabs(a[2]) * (fabs(z0) + fabs(z1));
    *val = v;
    if (P > 0x1p-900 && fabs(v) > 7 * DBL_EPSILON * P) /* depth 5 */
        return v > 0 ? 1 : -1;
    if (!(P > 0))
        return 0;
    (*exact)++;
    return dist_exact_det3(a, b, c);
}

/* sign of (b - a) . ((c - a) x (d - a)) */
static inline int dist_sign_orient3(const double a[3], const double b[3], const double c[3], const double d[3],
                                    double *val, int *exact)
{
    double e1[3], e2[3], e3[3], f1[3], f2[3], f3[3];
    for (int i = 0; i < 3; i++) {
        e1[i] = b[i] - a[i];
        e2[i] = c[i] - a[i];
        e3[i] = d[i] - a[i];
        f1[i] = fabs(b[i]) + fabs(a[i]);
        f2[i] = fabs(c[i]) + fabs(a[i]);
        f3[i] = fabs(d[i]) + fabs(a[i]);
    }
    double v = e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) + e1[1] * (e2[2] * e3[0] - e2[0] * e3[2]) +
               e1[2] * (e2[0] * e3[1] - e2[1] * e3[0]);
    double P = f1[0] * (f2[1] * f3[2] + f2[2] * f3[1]) + f1[1] * (f2[2] * f3[0] + f2[0] * f3[2]) +
               f1[2] * (f2[0] * f3[1] + f2[1] * f3[0]);
    *val = v;
    if (P > 0x1p-900 && fabs(v) > 8 * DBL_EPSILON * P) /* depth 6 */
        return v > 0 ? 1 : -1;
    if (!(P > 0))
        return 0;
    (*exact)++;
    return dist_exact_orient3(a, b, c, d);
}

/* Signs of the barycentric weights of the projection of the origin onto the
 * plane of the triangle s[0] s[1] s[2] (S2D): weight i has the sign of
 * n . (s[i+1] x s[i+2]) with n = (s[1] - s[0]) x (s[2] - s[0]) (the weights
 * times |n|^2).  val gets the floating-point values. */
static inline void dist_signs_tri(const double *s0, const double *s1, const double *s2, int sg[3], double val[3],
                                  int *exact)
{
    const double *s[3] = {s0, s1, s2};
    double n[3], pn[3];
    {
        double e1[3], e2[3], f1[3], f2[3];
        for (int i = 0; i < 3; i++) {
            e1[i] = s[1][i] - s[0][i];
            e2[i] = s[2][i] - s[0][i];
            f1[i] = fabs(s[1][i]) + fabs(s[0][i]);
            f2[i] = fabs(s[2][i]) + fabs(s[0][i]);
        }
        v3_cross(n, e1, e2);
        for (int i = 0; i < 3; i++) {
            int j = (i + 1) % 3, k = (i + 2) % 3;
            pn[i] = f1[j] * f2[k] + f1[k] * f2[j];
        }
    }
    for (int t = 0; t < 3; t++) {
        const double *sj = s[(t + 1) % 3], *sk = s[(t + 2) % 3];
        double x0 = sj[1] * sk[2], x1 = sj[2] * sk[1], y0 = sj[2] * sk[0], y1 = sj[0] * sk[2];
        double z0 = sj[0] * sk[1], z1 = sj[1] * sk[0];
        double v = n[0] * (x0 - x1) + n[1] * (y0 - y1) + n[2] * (z0 - z1);
        double P = pn[0] * (fabs(x0) + fabs(x1)) + pn[1] * (fabs(y0) + fabs(y1)) + pn[2] * (fabs(z0) + fabs(z1));
        val[t] = v;
        if (P > 0x1p-900 && fabs(v) > 8 * DBL_EPSILON * P) { /* depth 6 */
            sg[t] = v > 0 ? 1 : -1;
        } else if (!(P > 0)) {
            sg[t] = 0;
        } else {
            (*exact)++;
            sg[t] = dist_exact_tri(s[0], s[1], s[2], sj, sk);
        }
    }
}
int dist_exact_dot_sign(int n, const double *a, const double *b, double *approx);

/* dist_signs_tri out of line, for the rare values the static filter below
 * cannot decide: inlined, it made every S2D call 60 instructions longer */
#if defined(__GNUC__)
__attribute__((noinline, cold, unused))
#endif
static void dist_signs_tri_cold(const double *s0, const double *s1, const double *s2, int sg[3], int *exact)
{
    double val[3];
    dist_signs_tri(s0, s1, s2, sg, val, exact);
}

/* Static filters: one bound per call from m = the largest |coordinate| of
 * the points, instead of the permanent P of each value.  Each factor of a
 * permanent is at most m (a difference's |a| + |b| at most 2m), so
 * P <= 48 m^4 for the values of dist_signs_tri (pn_i <= 8 m^2, |x0| + |x1|
 * <= 2 m^2, three terms), P <= 6 m^3 for a det3 cofactor and <= 24 m^3 for
 * their sum; a value beyond (k + 2) eps times that bound is beyond the
 * dynamic filter's bound, so its sign is certified the same way
 * (docs/dist.md).  The constants carry a 4 % margin for the rounding of
 * m^k; below 2^-900 the dynamic filter (and the exact path) decide. */
#define DIST_STATIC_TRI (400 * DBL_EPSILON)   /* 8 eps x 48 = 384 */
#define DIST_STATIC_DET3 (44 * DBL_EPSILON)   /* 7 eps x 6 = 42 */
#define DIST_STATIC_SUM4 (250 * DBL_EPSILON)  /* 10 eps x 24 = 240 */

/* the largest |coordinate| of a point (a NaN is skipped) */
static inline double dist_maxabs3(const double *p, double m)
{
    double a = fabs(p[0]), b = fabs(p[1]), c = fabs(p[2]);
    m = a > m ? a : m;
    m = b > m ? b : m;
    return c > m ? c : m;
}

/* dist_signs_tri with the static filter first, and for the caller n =
 * (s1 - s0) x (s2 - s0) (the same rounded values S2D computes) and *kmax,
 * the point whose weight's floating-point value is the largest; the
 * adaptive (dynamic) filter and the exact path only when the static one
 * cannot decide (counted in *adapt). */
static inline void dist_signs_tri_n(const double *s0, const double *s1, const double *s2, int sg[3], double n[3],
                                    int *kmax, int *exact, int *adapt)
{
    double e1[3], e2[3];
    v3_sub(e1, s1, s0);
    v3_sub(e2, s2, s0);
    v3_cross(n, e1, e2);
    double m = dist_maxabs3(s2, dist_maxabs3(s1, dist_maxabs3(s0, 0))), m2 = m * m, thr = DIST_STATIC_TRI * (m2 * m2);
    /* the three values written out (a loop over t indexing s[(t + 1) % 3]
     * cost a quarter of the filter's instructions) */
    double c0[3], c1[3], c2[3];
    v3_cross(c0, s1, s2);
    v3_cross(c1, s2, s0);
    v3_cross(c2, s0, s1);
    double v0 = n[0] * c0[0] + n[1] * c0[1] + n[2] * c0[2];
    double v1 = n[0] * c1[0] + n[1] * c1[1] + n[2] * c1[2];
    double v2 = n[0] * c2[0] + n[1] * c2[1] + n[2] * c2[2];
    *kmax = v0 >= v1 ? (v0 >= v2 ? 0 : 2) : (v1 >= v2 ? 1 : 2);
    if (thr > 0x1p-900 && fabs(v0) > thr && fabs(v1) > thr && fabs(v2) > thr) {
        sg[0] = v0 > 0 ? 1 : -1;
        sg[1] = v1 > 0 ? 1 : -1;
        sg[2] = v2 > 0 ? 1 : -1;
    } else {
        (*adapt)++;
        dist_signs_tri_cold(s0, s1, s2, sg, exact);
    }
}


/* Power-of-two rescaling of a pair for the contact kernels (dist_scale.c). */
typedef struct {
    rve_shape a, b;      /* the scaled copies */
    double *bufa, *bufb; /* their polytope vertices (malloc) */
    int sc;              /* copies = originals x 2^-sc */
} dist_scaled_pair;
/* 0: extent within [2^-200, 2^200], nothing done; 1: P holds the copies;
 * -1: out of memory. */
int dist_pair_scale(const rve_shape *A, const rve_shape *B, dist_scaled_pair *P);
void dist_pair_scale_free(dist_scaled_pair *P);
/* s, p, q times 2^sc; 0 when s overflows. */
int dist_contact_unscale(rve_contact *c, int sc);
/* The same for polyhedra (B and S may be NULL): shallow copies with scaled
 * vertices, planes, centroid, volume and radius; topology shared. */
typedef struct {
    rve_polyhedron a, b;
    rve_shape s;
    double *bufa, *bufb, *bufs;
    int sc;
} dist_scaled_poly;
int dist_poly_scale(const rve_polyhedron *A, const rve_polyhedron *B, const rve_shape *S, dist_scaled_poly *P);
void dist_poly_scale_free(dist_scaled_poly *P);
/* a polyhedron the kernel built in scaled units, times 2^sc in place */
void dist_poly_unscale(rve_polyhedron *P, int sc);

void dist_superquadric_support(const rve_shape *s, const double d[3], double out[3]);
/* the same for an ellipsoid (out of line: the pair loop stays small) */
void dist_ellipsoid_support(const rve_shape *s, const double d[3], double out[3]);

/* The same scan for large polytopes (shape.c): four products per step are
 * compared with the running best at once, and the plain scan's updates run
 * only when one of them beats it, so the index is the same, bit for bit.
 * Inside GJK it is faster only from about 512 vertices (25 % at 2048) and
 * slower below 256 (docs/dist.md), hence the threshold. */
#define DIST_ARGMAX_BLOCK_NV 512
int dist_argmax_block(const double *V, int nv, const double d[3]);

/* The plain scan of V[i..nv-1] from the best index `best` so far (value bd):
 * the first index of the maximum (`t > bd`; NaN products never win).
 * Forced inline: in rve_gjk_dist's loop gcc called it (32 vertices 3-5 %). */
DIST_INLINE int dist_argmax_from(const double *V, int nv, const double d[3], int i, int best, double bd)
{
    const double dx = d[0], dy = d[1], dz = d[2];
    for (; i < nv; i++) {
        const double *p = V + 3 * i;
        double t = p[0] * dx + p[1] * dy + p[2] * dz;
        if (t > bd) {
            bd = t;
            best = i;
        }
    }
    return best;
}

/* The same index from two running maxima, of the even and of the odd
 * indices (each the first index of its maximum), merged by value and on a
 * tie by the lower index.  The odd chain starts at -inf (a NaN product never
 * wins), the even one at t_0 (a NaN there wins, as in the plain scan). */
#define DIST_ARGMAX_PAIRS_NV 64
static inline int dist_argmax_pairs(const double *V, int nv, const double d[3])
{
    const double dx = d[0], dy = d[1], dz = d[2];
    double b0 = V[0] * dx + V[1] * dy + V[2] * dz, b1 = -INFINITY;
    int i0 = 0, i1 = 1, i = 1;
    for (; i + 1 < nv; i += 2) {
        const double *p = V + 3 * i;
        double t1 = p[0] * dx + p[1] * dy + p[2] * dz;
        double t0 = p[3] * dx + p[4] * dy + p[5] * dz;
        int c1 = t1 > b1, c0 = t0 > b0;
        i1 ^= (i ^ i1) & -c1;
        i0 ^= ((i + 1) ^ i0) & -c0;
        b1 = t1 > b1 ? t1 : b1;
        b0 = t0 > b0 ? t0 : b0;
    }
    if (i < nv) {
        const double *p = V + 3 * i;
        double t1 = p[0] * dx + p[1] * dy + p[2] * dz;
        if (t1 > b1) {
            b1 = t1;
            i1 = i;
        }
    }
    return b1 > b0 || (b1 == b0 && i1 < i0) ? i1 : i0;
}

#define DIST_SOA_STRIDE 32
#define DIST_SOA_STRIDE_PT 32
/* The plain scan (the same products, the same index) of at most stride
 * vertices stored as rows X[0..], X[stride..], X[2 stride..] (x, y, z).
 * (Two SSE2 lanes of running maxima were slower at 8 vertices: 150 against
 * 145 ns per posed query.) */
DIST_INLINE int dist_argmax_soa_plain(const double *X, int nv, int stride, const double d[3])
{
    const double dx = d[0], dy = d[1], dz = d[2], *Y = X + stride, *Z = X + 2 * stride;
    double bd = X[0] * dx + Y[0] * dy + Z[0] * dz;
    int best = 0;
    for (int i = 1; i < nv; i++) {
        double t = X[i] * dx + Y[i] * dy + Z[i] * dz;
        if (t > bd) {
            bd = t;
            best = i;
        }
    }
    return best;
}

#if defined(__GNUC__) && defined(__SSE2__)
#include <emmintrin.h>
#ifdef __AVX__
#include <immintrin.h>
#endif
/* rows padded to 8, 16, 24 or 32 vertices (the pair loop's rows and the
 * point loop's hold at most DIST_SOA_STRIDE = DIST_SOA_STRIDE_PT = 32; 17
 * to 24 vertices padded to 32 were slower than the plain scan) */
#define DIST_SOA_PAD(nv) ((nv) <= 8 ? 8 : (nv) <= 16 ? 16 : (nv) <= 24 ? 24 : 32)
DIST_INLINE __m128d dist_soa_dot2(const double *X, int stride, int k, __m128d dx, __m128d dy, __m128d dz)
{
    return _mm_add_pd(_mm_add_pd(_mm_mul_pd(_mm_loadu_pd(X + 2 * k), dx), _mm_mul_pd(_mm_loadu_pd(X + stride + 2 * k), dy)),
                      _mm_mul_pd(_mm_loadu_pd(X + 2 * stride + 2 * k), dz));
}

#ifdef __AVX__
/* dist_soa_best under AVX (gjk_avx.c): four products per register, their
 * lanes' maxima (minima) merged by value, then the first index equal to
 * it.  Each lane starts at a product of the first register: a NaN there
 * would stay in its lane and hide the lane's maximum from the merge, so
 * any NaN in the first register takes the plain scan (the SSE2 variant's
 * first register holds indices 0 and 1 only, checked by its merge). */
DIST_INLINE int dist_soa_best4(const double *X, int stride, const double d[3], const int nquad, const int lo)
{
    /* broadcasts from memory: one instruction each (set1 from a register is two) */
    const __m256d dx = _mm256_broadcast_sd(d), dy = _mm256_broadcast_sd(d + 1), dz = _mm256_broadcast_sd(d + 2);
    __m256d t[8];
#pragma GCC unroll 8
    for (int k = 0; k < nquad; k++)
        t[k] = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(X + 4 * k), dx),
                                           _mm256_mul_pd(_mm256_loadu_pd(X + stride + 4 * k), dy)),
                             _mm256_mul_pd(_mm256_loadu_pd(X + 2 * stride + 4 * k), dz));
    __m256d m = t[0];
#pragma GCC unroll 8
    for (int k = 1; k < nquad; k++)
        m = lo ? _mm256_min_pd(t[k], m) : _mm256_max_pd(t[k], m);
    __m128d h = _mm256_extractf128_pd(m, 1), l = _mm256_castpd256_pd128(m);
    __m128d m2 = lo ? _mm_min_pd(h, l) : _mm_max_pd(h, l);
    m2 = lo ? _mm_min_sd(m2, _mm_unpackhi_pd(m2, m2)) : _mm_max_sd(m2, _mm_unpackhi_pd(m2, m2));
    const __m256d mm = _mm256_set1_pd(_mm_cvtsd_f64(m2));
    unsigned mask = 0;
#pragma GCC unroll 8
    for (int k = 0; k < nquad; k++)
        mask |= (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(t[k], mm, _CMP_EQ_OQ)) << (4 * k);
    if (mask == 0 || _mm256_movemask_pd(_mm256_cmp_pd(t[0], t[0], _CMP_UNORD_Q)))
        return -1;
    return __builtin_ctz(mask);
}
#endif

/* The first index of the largest (least, with lo) product of nvec
 * registers (a constant where inlined: the loops unroll and t stays in
 * registers); -1 where the plain scan must decide (NaN cases). */
DIST_INLINE int dist_soa_best(const double *X, int stride, const double d[3], const int nvec, const int lo)
{
#ifdef __AVX__
    if (nvec % 2 == 0) /* the padded counts: always */
        return dist_soa_best4(X, stride, d, nvec / 2, lo);
#endif
    const __m128d dx = _mm_set1_pd(d[0]), dy = _mm_set1_pd(d[1]), dz = _mm_set1_pd(d[2]);
    __m128d t[16];
#pragma GCC unroll 16
    for (int k = 0; k < nvec; k++)
        t[k] = dist_soa_dot2(X, stride, k, dx, dy, dz);
    __m128d m = t[0];
#pragma GCC unroll 16
    for (int k = 1; k < nvec; k++)
        m = lo ? _mm_min_pd(t[k], m) : _mm_max_pd(t[k], m);
    m = lo ? _mm_min_sd(m, _mm_unpackhi_pd(m, m)) : _mm_max_sd(m, _mm_unpackhi_pd(m, m));
    m = _mm_unpacklo_pd(m, m);
    unsigned mask = 0;
#pragma GCC unroll 16
    for (int k = 0; k < nvec; k++)
        mask |= (unsigned)_mm_movemask_pd(_mm_cmpeq_pd(t[k], m)) << (2 * k);
    if (mask == 0 || _mm_movemask_pd(_mm_cmpunord_pd(t[0], t[0])) & 1)
        return -1;
    return __builtin_ctz(mask);
}

/* The same index without the plain scan's chain of compares and branches:
 * every product first (two per SSE2 register), their maximum m, then the
 * first index whose product equals m (movemask bits).  That is the plain
 * scan's index: its strict > keeps the first of equal values, and -0 == +0
 * for both.  NaN products: max_pd(t, m) returns m when either is NaN, so
 * with m started at the first register a NaN elsewhere is skipped (as the
 * scan skips it) and a NaN at index 0 or 1 stays in m; index 0's NaN (the
 * scan's winner) and an m that equals nothing take the plain scan.  (A tree
 * of maxima would drop a lane's true maximum next to a NaN.)  The rows are
 * padded to DIST_SOA_PAD(nv) <= stride with vertex 0 again (its products
 * equal index 0's, which comes first).  8-vertex pairs: the lean call 5-6 %,
 * the full call 8-11 % faster than with the plain scan (docs/dist.md, stop 33). */
DIST_INLINE int dist_argmax_soa(const double *X, int nv, int stride, const double d[3])
{
    int i = nv <= 8    ? dist_soa_best(X, stride, d, 4, 0)
            : nv <= 16 ? dist_soa_best(X, stride, d, 8, 0)
            : nv <= 24 ? dist_soa_best(X, stride, d, 12, 0)
                       : dist_soa_best(X, stride, d, 16, 0);
    return i >= 0 ? i : dist_argmax_soa_plain(X, nv, stride, d);
}

/* the same for at most 16 vertices (the small pairs' loop): the 16-register
 * variant, inlined there too, cost 117 instructions more per 8-vertex query */
DIST_INLINE int dist_argmax_soa16(const double *X, int nv, int stride, const double d[3])
{
    int i = nv <= 8 ? dist_soa_best(X, stride, d, 4, 0) : dist_soa_best(X, stride, d, 8, 0);
    return i >= 0 ? i : dist_argmax_soa_plain(X, nv, stride, d);
}

/* dist_argmax_soa in direction -d from the products with d: x (-d) is
 * -(x d) exactly (negation commutes with rounding to nearest), so the
 * maximum of -t is the minimum of t, at the same first index, and NaNs
 * fall where they fell (min_pd keeps m on a NaN as max_pd does).  Saves
 * negating the direction and broadcasting it again for the second body. */
DIST_INLINE int dist_argmin_soa16(const double *X, int nv, int stride, const double d[3])
{
    int i = nv <= 8 ? dist_soa_best(X, stride, d, 4, 1) : dist_soa_best(X, stride, d, 8, 1);
    if (i >= 0)
        return i;
    const double md[3] = {-d[0], -d[1], -d[2]};
    return dist_argmax_soa_plain(X, nv, stride, md);
}

/* dist_argmin_soa16 for at most 32 vertices (a loop of its own inlines it) */
DIST_INLINE int dist_argmin_soa(const double *X, int nv, int stride, const double d[3])
{
    int i = nv <= 8    ? dist_soa_best(X, stride, d, 4, 1)
            : nv <= 16 ? dist_soa_best(X, stride, d, 8, 1)
            : nv <= 24 ? dist_soa_best(X, stride, d, 12, 1)
                       : dist_soa_best(X, stride, d, 16, 1);
    if (i >= 0)
        return i;
    const double md[3] = {-d[0], -d[1], -d[2]};
    return dist_argmax_soa_plain(X, nv, stride, md);
}
#else
#define DIST_SOA_PAD(nv) (nv)
#define dist_argmax_soa dist_argmax_soa_plain
#define dist_argmax_soa16 dist_argmax_soa_plain
static inline int dist_argmin_soa16(const double *X, int nv, int stride, const double d[3])
{
    const double md[3] = {-d[0], -d[1], -d[2]};
    return dist_argmax_soa_plain(X, nv, stride, md);
}
#define dist_argmin_soa dist_argmin_soa16
#endif

/* The same index from four lanes of AVX registers (dist_scan.c), x86-64
 * with gcc only, taken from DIST_ARGMAX_AVX_NV vertices where the CPU has
 * AVX (checked per call: one load and a bit test). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define DIST_HAVE_AVX_SCAN 1
#else
#define DIST_HAVE_AVX_SCAN 0
#endif
#define DIST_ARGMAX_AVX_NV 64
#if DIST_HAVE_AVX_SCAN
#include <immintrin.h>
int dist_argmax_avx(const double *V, int nv, const double d[3]);

/* Four vertices p[0..11] as rows: a = x0 y0 z0 x1, b = y1 z1 x2 y2 and
 * c = z2 x3 y3 z3 (three loads) regrouped into x, y and z by blends and one
 * lane swap (for AVX code only: dist_argmax_avx, dist_rows in gjk_avx.c) */
__attribute__((target("avx"), always_inline)) static inline void dist_avx_xyz4(const double *p, __m256d *X,
                                                                               __m256d *Y, __m256d *Z)
{
    __m256d a = _mm256_loadu_pd(p), b = _mm256_loadu_pd(p + 4), c = _mm256_loadu_pd(p + 8);
    __m256d u = _mm256_blend_pd(a, c, 0xC);         /* x0 y0 y3 z3 */
    __m256d w = _mm256_permute2f128_pd(a, c, 0x21); /* z0 x1 z2 x3 */
    *X = _mm256_blend_pd(_mm256_blend_pd(u, w, 0xA), b, 0x4);
    *Y = _mm256_permute_pd(_mm256_blend_pd(u, b, 0x9), 0x5);
    *Z = _mm256_blend_pd(_mm256_blend_pd(w, b, 0x2), u, 0x8);
}
#endif

/* Index of the vertex of verts[0..nv-1] maximising d (brute force): the
 * first index of the maximum, as the plain scan. */
DIST_INLINE int dist_argmax(const double *V, int nv, const double d[3])
{
#if DIST_HAVE_AVX_SCAN
    if (nv >= DIST_ARGMAX_AVX_NV && __builtin_cpu_supports("avx"))
        return dist_argmax_avx(V, nv, d);
#endif
    if (nv >= DIST_ARGMAX_BLOCK_NV)
        return dist_argmax_block(V, nv, d);
    if (nv >= DIST_ARGMAX_PAIRS_NV)
        return dist_argmax_pairs(V, nv, d);
    return dist_argmax_from(V, nv, d, 1, 0, V[0] * d[0] + V[1] * d[1] + V[2] * d[2]);
}

/* The plain scans of two vertex sets in one pass (two independent chains
 * of compares, more work in flight for the small hulls of the pair loop):
 * *ia and *ib get the indices dist_argmax_from gives, bit for bit (the same
 * products, the same strict >, a NaN product at index 0 wins).  The pair
 * loop takes it when both sets have DIST_ARGMAX2_MIN_NV to
 * DIST_ARGMAX_PAIRS_NV - 1 vertices. */
#define DIST_ARGMAX2_MIN_NV 16
static inline void dist_argmax2(const double *VA, int na, const double da[3], const double *VB, int nb,
                                const double db[3], int *ia, int *ib)
{
    const double ax = da[0], ay = da[1], az = da[2], bx = db[0], by = db[1], bz = db[2];
    double ba = VA[0] * ax + VA[1] * ay + VA[2] * az, bb = VB[0] * bx + VB[1] * by + VB[2] * bz;
    int ka = 0, kb = 0, n = na < nb ? na : nb, i = 1;
    for (; i < n; i++) {
        const double *p = VA + 3 * i, *q = VB + 3 * i;
        double ta = p[0] * ax + p[1] * ay + p[2] * az;
        double tb = q[0] * bx + q[1] * by + q[2] * bz;
        if (ta > ba) {
            ba = ta;
            ka = i;
        }
        if (tb > bb) {
            bb = tb;
            kb = i;
        }
    }
    *ia = dist_argmax_from(VA, na, da, i, ka, ba);
    *ib = dist_argmax_from(VB, nb, db, i, kb, bb);
}

/* Polytopes with at most this many vertices ignore their edge graph. */
#define DIST_GRAPH_MIN_NV 32

/* The table of start vertices (g->dir, see rve_poly_graph): the extreme
 * vertices of the 6 axis directions and the 8 diagonals, hull vertices
 * only (graph.c). */
void dist_graph_directions(rve_poly_graph *g, const double *V);

/* Where a climb along d starts: the previous support vertex (the hint)
 * while it lies on d's side of the body's middle (successive directions of
 * a distant or touching pair turn little), else the table's vertex of d's
 * octant or of its largest axis if either is higher along d.  Without the
 * table an overlapping pair's four directions each walked far from the
 * previous vertex: posed 128-vertex overlapping pairs took 1.46 times the
 * brute-force scan; consulting it on every call made posed 128-vertex
 * distant pairs 20 % slower (docs/dist.md, stop 38).  Without a table for
 * these vertices (a graph shared with rotated or moved copies), a hint on
 * the far side of the shape's own middle `mid` (NULL: unknown) returns -1:
 * scan them all instead.  The table's middle is in the frame of the
 * vertices it came from, so it is asked only after dir_at matched. */
DIST_INLINE int dist_graph_start(const double *V, const rve_poly_graph *g, int hint, const double d[3],
                                 const double *mid, double *cd)
{
    const double dx = d[0], dy = d[1], dz = d[2];
    int cur = hint;
    int has_hint = cur >= 0 && cur < g->nv && g->off[cur] != g->off[cur + 1];
    if (!has_hint)
        cur = g->start;
    const double *p = V + 3 * cur;
    double best = p[0] * dx + p[1] * dy + p[2] * dz;
    /* the table only for the vertices it came from (dir_at) */
    int table = g->ndir == 14 && (unsigned)g->dir[0] < (unsigned)g->nv && V[3 * g->dir[0]] == g->dir_at[0] &&
                V[3 * g->dir[0] + 1] == g->dir_at[1] && V[3 * g->dir[0] + 2] == g->dir_at[2];
    const double *m = table ? g->dir_mid : mid;
    int near = m && (p[0] - m[0]) * dx + (p[1] - m[1]) * dy + (p[2] - m[2]) * dz > 0;
    if (has_hint && near)
        goto done;
    if (!table) {
        if (has_hint && m)
            cur = -1;
        goto done;
    }
    double ax = fabs(dx), ay = fabs(dy), az = fabs(dz);
    int k = ax >= ay ? (ax >= az ? 0 : 4) : (ay >= az ? 2 : 4);
    k += (k == 0 ? dx : k == 2 ? dy : dz) < 0;
    int c[2] = {g->dir[6 + ((dx < 0) | (dy < 0) << 1 | (dz < 0) << 2)], g->dir[k]};
    for (int t = 0; t < 2; t++) {
        if ((unsigned)c[t] >= (unsigned)g->nv)
            continue;
        const double *q = V + 3 * c[t];
        double s = q[0] * dx + q[1] * dy + q[2] * dz;
        if (s > best) {
            best = s;
            cur = c[t];
        }
    }
done:
    *cd = best;
    return cur;
}

/* Hill climbing on the hull edge graph from dist_graph_start (or the
 * brute-force scan where that says so).  mid: the middle of V, or NULL. */
DIST_INLINE int dist_argmax_graph(const double *V, const rve_poly_graph *g, int hint, const double d[3],
                                  const double *mid)
{
    double cd;
    int cur = dist_graph_start(V, g, hint, d, mid, &cd);
    if (cur < 0)
        return dist_argmax(V, g->nv, d);
    const double dx = d[0], dy = d[1], dz = d[2];
    for (int step = 0; step < g->nv; step++) {
        int next = -1;
        for (int k = g->off[cur]; k < g->off[cur + 1]; k++) {
            int j = g->nbr[k];
            const double *p = V + 3 * j;
            double t = p[0] * dx + p[1] * dy + p[2] * dz;
            if (t > cd) {
                cd = t;
                next = j;
            }
        }
        if (next < 0)
            break;
        cur = next;
    }
    return cur;
}

/* Body-frame support point of the core of s; *idx gets the vertex index
 * (or -1) and is also read as a hill-climbing hint. */
DIST_INLINE void dist_support_body(const rve_shape *s, const double d[3], double out[3], int *idx)
{
    int i;
    switch (s->kind) {
    case RVE_SHAPE_POINT:
    case RVE_SHAPE_SPHERE:
        v3_copy(out, s->v[0]);
        *idx = 0;
        return;
    case RVE_SHAPE_SEGMENT:
        i = dist_argmax(&s->v[0][0], 2, d);
        break;
    case RVE_SHAPE_TRIANGLE:
        i = dist_argmax(&s->v[0][0], 3, d);
        break;
    case RVE_SHAPE_TETRA:
        i = dist_argmax(&s->v[0][0], 4, d);
        break;
    case RVE_SHAPE_POLYTOPE:
        /* fast path: below DIST_GRAPH_MIN_NV vertices the brute-force scan beats
         * hill climbing on the edge graph (bench/bench_contact, by vertex count) */
        i = s->graph && s->nv > DIST_GRAPH_MIN_NV
                ? dist_argmax_graph(s->verts, s->graph, *idx, d, s->mid_of == s->verts ? s->mid : NULL)
                : dist_argmax(s->verts, s->nv, d);
        v3_copy(out, s->verts + 3 * i);
        *idx = i;
        return;
    case RVE_SHAPE_BOX:
        out[0] = d[0] >= 0 ? s->axes[0] : -s->axes[0];
        out[1] = d[1] >= 0 ? s->axes[1] : -s->axes[1];
        out[2] = d[2] >= 0 ? s->axes[2] : -s->axes[2];
        *idx = (d[0] >= 0) | ((d[1] >= 0) << 1) | ((d[2] >= 0) << 2);
        return;
    case RVE_SHAPE_ELLIPSOID:
        dist_ellipsoid_support(s, d, out);
        *idx = -1;
        return;
    case RVE_SHAPE_SUPERQUADRIC:
        dist_superquadric_support(s, d, out);
        *idx = -1;
        return;
    default:
        v3_set(out, NAN, NAN, NAN);
        *idx = -1;
        return;
    }
    v3_copy(out, s->v[i]);
    *idx = i;
}

/* Body-frame vertex number i of a vertex-based core. */
static inline void dist_vertex_body(const rve_shape *s, int i, double out[3])
{
    if (s->kind == RVE_SHAPE_POLYTOPE)
        v3_copy(out, s->verts + 3 * i);
    else if (s->kind == RVE_SHAPE_BOX)
        v3_set(out, (i & 1) ? s->axes[0] : -s->axes[0], (i & 2) ? s->axes[1] : -s->axes[1],
               (i & 4) ? s->axes[2] : -s->axes[2]);
    else
        v3_copy(out, s->v[i]);
}

/* R b (out != b), body -> world rotation of a point: one formula for every
 * support point, whether rotated one at a time or all vertices at once
 * (gjk.c pair_rows_fill, dist_rows), so that both round alike */
static inline void dist_rotate(const double R[9], const double b[3], double out[3])
{
    out[0] = R[0] * b[0] + R[1] * b[1] + R[2] * b[2];
    out[1] = R[3] * b[0] + R[4] * b[1] + R[5] * b[2];
    out[2] = R[6] * b[0] + R[7] * b[1] + R[8] * b[2];
}

#if defined(__GNUC__)
typedef double dist_v2d __attribute__((vector_size(16)));
/* two vertices' coordinates (a pair of lanes each), times r (R's entries,
 * each in both lanes) with dist_rotate's products and sums unless r is
 * NULL, stored at column i of the rows */
DIST_INLINE void dist_rows_put(const dist_v2d *r, dist_v2d bx, dist_v2d by, dist_v2d bz, double *buf, int stride,
                               int i)
{
    if (r) {
        dist_v2d x = r[0] * bx + r[1] * by + r[2] * bz, y = r[3] * bx + r[4] * by + r[5] * bz,
                 z = r[6] * bx + r[7] * by + r[8] * bz;
        bx = x;
        by = y;
        bz = z;
    }
    memcpy(buf + i, &bx, sizeof bx);
    memcpy(buf + stride + i, &by, sizeof by);
    memcpy(buf + 2 * stride + i, &bz, sizeof bz);
}
#endif

#if defined(__AVX__) && DIST_HAVE_AVX_SCAN
/* dist_rows' whole groups of four vertices under AVX (gjk_avx.c): the same
 * products and sums, four vertices per register; returns how many it did */
DIST_INLINE int dist_rows_avx(const double *R, const double *V, int nv, double *buf, int stride)
{
    __m256d r[9];
    if (R)
        for (int k = 0; k < 9; k++)
            r[k] = _mm256_broadcast_sd(R + k);
    int i = 0;
    for (; i + 3 < nv; i += 4) {
        __m256d x, y, z;
        dist_avx_xyz4(V + 3 * i, &x, &y, &z);
        if (R) {
            __m256d rx = r[0] * x + r[1] * y + r[2] * z, ry = r[3] * x + r[4] * y + r[5] * z,
                    rz = r[6] * x + r[7] * y + r[8] * z;
            x = rx;
            y = ry;
            z = rz;
        }
        _mm256_storeu_pd(buf + i, x);
        _mm256_storeu_pd(buf + stride + i, y);
        _mm256_storeu_pd(buf + 2 * stride + i, z);
    }
    return i;
}
#endif

/* The vertices V (DIST_SOA_PAD(nv) <= stride) as rows of x, y, z, stride
 * apart (dist_argmax_soa), padded to DIST_SOA_PAD(nv) with vertex 0 again:
 * times R with dist_rotate's products and sums (the support points the
 * other paths make), or copied when R is NULL (a constant where inlined).
 * Two vertices per step in a pair of lanes, whole pairs first, then the
 * padding (posed 8-vertex queries: one dist_rotate per vertex was 4 %
 * slower, gcc's vectorisation of a two-vertex scalar loop 13 %, index
 * selects in every step 5 %, explicit loads of x0 y0 | z0 x1 | y1 z1 and
 * shuffles 4 %; a copy one value at a time cost 17 instructions per vertex) */
DIST_INLINE void dist_rows(const double *R, const double *V, int nv, double *buf, int stride)
{
#if defined(__GNUC__)
    int i = 0;
#if defined(__AVX__) && DIST_HAVE_AVX_SCAN
    i = dist_rows_avx(R, V, nv, buf, stride);
    if (i == DIST_SOA_PAD(nv)) /* no pair and no padding left (8, 16, 24, 32 vertices) */
        return;
#endif
    dist_v2d r[9];
    if (R)
        for (int k = 0; k < 9; k++)
            r[k] = (dist_v2d){R[k], R[k]};
    const dist_v2d *rr = R ? r : NULL;
    for (; i + 1 < nv; i += 2) {
        const double *p = V + 3 * i;
        dist_rows_put(rr, (dist_v2d){p[0], p[3]}, (dist_v2d){p[1], p[4]}, (dist_v2d){p[2], p[5]}, buf, stride, i);
    }
    for (; i < DIST_SOA_PAD(nv); i += 2) {
        const double *p = V + 3 * (i < nv ? i : 0), *q = V + 3 * (i + 1 < nv ? i + 1 : 0);
        dist_rows_put(rr, (dist_v2d){p[0], q[0]}, (dist_v2d){p[1], q[1]}, (dist_v2d){p[2], q[2]}, buf, stride, i);
    }
#else
    for (int i = 0; i < DIST_SOA_PAD(nv); i++) {
        const double *p = V + 3 * (i < nv ? i : 0);
        double t[3];
        if (R) {
            dist_rotate(R, p, t);
            p = t;
        }
        buf[i] = p[0];
        buf[stride + i] = p[1];
        buf[2 * stride + i] = p[2];
    }
#endif
}

/* vertex i of rows X (x, y, z) */
DIST_INLINE void dist_soa_point(const double *X, int i, double p[3])
{
    p[0] = X[i];
    p[1] = X[DIST_SOA_STRIDE + i];
    p[2] = X[2 * DIST_SOA_STRIDE + i];
}

static inline void dist_to_world(const rve_shape *s, const dist_frame *f, const double b[3], double out[3])
{
    if (f->rotated) {
        double t[3];
        dist_rotate(f->R, b, t);
        v3_add(out, s->pos, t);
    } else {
        out[0] = s->pos[0] + b[0];
        out[1] = s->pos[1] + b[1];
        out[2] = s->pos[2] + b[2];
    }
}

/* Support point b (body coordinates) of the core of s in world direction
 * d: d taken into the body frame by R^T. */
DIST_INLINE void dist_support_frame(const rve_shape *s, const dist_frame *f, const double d[3], double b[3],
                                    int *idx)
{
    if (f->rotated) {
        const double *R = f->R;
        double dl[3] = {R[0] * d[0] + R[3] * d[1] + R[6] * d[2], R[1] * d[0] + R[4] * d[1] + R[7] * d[2],
                        R[2] * d[0] + R[5] * d[1] + R[8] * d[2]};
        dist_support_body(s, dl, b, idx);
    } else {
        dist_support_body(s, d, b, idx);
    }
}

/* World-frame support point of the core of s in world direction d. */
DIST_INLINE void dist_support_world(const rve_shape *s, const dist_frame *f, const double d[3],
                                    double out[3], int *idx)
{
    double b[3];
    dist_support_frame(s, f, d, b, idx);
    dist_to_world(s, f, b, out);
}

#endif
