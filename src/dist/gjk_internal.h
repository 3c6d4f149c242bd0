/* gjk_internal.h - the sub-algorithms (Signed Volumes, Johnson) shared by
 * gjk_sv.c and the GJK loop of gjk.c, and the pair of bodies the loop works
 * on (set up in gjk.c, finished in gjk_pair.c) (not installed). */
#ifndef RVE_GJK_INTERNAL_H
#define RVE_GJK_INTERNAL_H

#include "dist/dist_internal.h"

typedef struct {
    int n;
    int idx[4];     /* indices into the caller's y[] */
    double lam[4];
    double v[3];
    double vv;
    int sliver;     /* n = 3: the triangle is a sliver (sv_tri_sliver); else not set */
} sv_res;

static inline double fmax_(double a, double b) { return a > b ? a : b; }

/* Barycentric weights: computed ones are clamped to the sign the exact
 * predicate decided (a weight whose sign is certified positive can still
 * round to a tiny negative value), then renormalised. */
static inline void sv_lam_clamp(double lam[], int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (!(lam[i] > 0))
            lam[i] = 0;
        sum += lam[i];
    }
    if (sum > 0 && sum != 1)
        for (int i = 0; i < n; i++)
            lam[i] /= sum;
}

/* The weights of the origin's projection po onto the segment (s1, s2),
 * t = s2 - s1, from the safest axis (largest extent) as in Algorithm 2:
 * the fictitious simplices {po, s2} and {s1, po}, each over their sum (one
 * reciprocal: the two divisions and the clamp's renormalisation were a
 * chain of two divisions at the end of every query with witnesses).  A
 * weight that rounds to <= 0 (its sign is certified positive) is 0. */
static inline void sv_seg_weights(const double *s1, const double *s2, const double t[3], const double po[3],
                                  double lam[2])
{
    int I = 0;
    double at = fabs(t[0]);
    if (fabs(t[1]) > at) { I = 1; at = fabs(t[1]); }
    if (fabs(t[2]) > at) I = 2;
    double x0 = po[I] - s2[I], x1 = s1[I] - po[I];
    double inv = 1 / (x0 + x1);
    lam[0] = x0 * inv;
    lam[1] = x1 * inv;
    if (!(lam[0] > 0)) {
        lam[0] = 0;
        lam[1] = 1;
    } else if (!(lam[1] > 0)) {
        lam[0] = 1;
        lam[1] = 0;
    }
}

/* Whether the triangle (s1, s2, s3) with normal n = (s2 - s1) x (s3 - s1)
 * is a sliver (longest edge over smallest height above 16): the rounding of
 * the points (eps |y| each) tilts its plane by eps |y| / height. */
static inline int sv_tri_sliver(const double *s1, const double *s2, const double *s3, const double n[3])
{
    double e1[3], e2[3], e3[3];
    v3_sub(e1, s2, s1);
    v3_sub(e2, s3, s1);
    v3_sub(e3, s3, s2);
    double em = fmax_(v3_dot(e1, e1), fmax_(v3_dot(e2, e2), v3_dot(e3, e3)));
    return v3_dot(n, n) < 0x1p-8 * em * em;
}

/* The weights of po in the triangle (s1, s2, s3) with normal n, from the
 * safest plane (largest projected area, drop J) as in Algorithm 3: po
 * replaces each vertex in turn, each area over their sum (one reciprocal,
 * no renormalisation: they sum to 1 within 2 eps).  0 when they lost more
 * than half their digits (a sign that disagrees with the area n[J], or a
 * sum off it by 2^-30): the caller takes them from exact values then (the
 * filter's values n . (s_j x s_k) / |n|^2 lose more to rounding: measured
 * worst 38 against 9 eps L on the flat families). */
static inline int sv_tri_weights(const double *s1, const double *s2, const double *s3, const double n[3],
                                 const double po[3], double lam[3])
{
    int J = 0;
    double an = fabs(n[0]);
    if (fabs(n[1]) > an) { J = 1; an = fabs(n[1]); }
    if (fabs(n[2]) > an) J = 2;
    int k = (J + 1) % 3, l = (J + 2) % 3;
    double mu = n[J];
    double a1k = s1[k] - po[k], a1l = s1[l] - po[l];
    double a2k = s2[k] - po[k], a2l = s2[l] - po[l];
    double a3k = s3[k] - po[k], a3l = s3[l] - po[l];
    double x0 = a2k * a3l - a2l * a3k; /* (po, s2, s3) */
    double x1 = a3k * a1l - a3l * a1k; /* (s1, po, s3) */
    double x2 = a1k * a2l - a1l * a2k; /* (s1, s2, po) */
    double sum = x0 + x1 + x2, inv = 1 / sum;
    lam[0] = x0 * inv;
    lam[1] = x1 * inv;
    lam[2] = x2 * inv;
    return lam[0] > 0 && lam[1] > 0 && lam[2] > 0 && fabs(sum - mu) <= 0x1p-30 * fabs(mu);
}

/* The sub-algorithm's context: the points' parts on A and B (y_i = a_i -
 * b_i; b NULL: y = a) for the exact sliver normal, and the count of exact
 * fallbacks. */
typedef struct {
    const double (*a)[3], (*b)[3];
    int want_w; /* the weights lam are used (witnesses); 0: only v, vv and the points */
    int nex;    /* exact sign evaluations */
    int nadapt; /* static filters that could not decide (the adaptive filter ran) */
} sv_ctx;

static inline void sv_finish(const double y[][3], sv_res *r)
{
    double v[3] = {0, 0, 0};
    for (int i = 0; i < r->n; i++)
        v3_axpy(v, v, r->lam[i], y[r->idx[i]]);
    v3_copy(r->v, v);
    r->vv = v3_dot(v, v);
}

static inline void sv_vertex(const double y[][3], int i, sv_res *r)
{
    r->n = 1;
    r->idx[0] = i;
    r->lam[0] = 1;
    v3_copy(r->v, y[i]);
    r->vv = v3_dot(y[i], y[i]);
}

/* 1-, 2-, 3-simplex of y[i1..i4] (with tail, i1 the newest vertex) */
void dist_s1d(const double y[][3], int i1, int i2, int tail, sv_res *r, sv_ctx *cx);
void dist_s2d(const double y[][3], int i1, int i2, int i3, int tail, sv_res *r, sv_ctx *cx);
void dist_s3d(const double y[][3], int i1, int i2, int i3, int i4, int tail, sv_res *r, sv_ctx *cx);
/* the weights of a segment or triangle GJK already chose, in its order */
void dist_sv_whole(const double y[][3], int n, const int idx[], const double v[3], sv_res *r, sv_ctx *cx);
/* Johnson's sub-algorithm on y[0..n-1] */
void dist_johnson_run(const double y[][3], int n, int newest, sv_res *r);

/* a shape's first core vertex (body frame; the origin for the smooth kinds) */
static inline void gjk_shape_first(const rve_shape *s, double c[3])
{
    if (s->kind == RVE_SHAPE_POLYTOPE)
        v3_copy(c, s->verts);
    else if (s->kind <= RVE_SHAPE_SPHERE)
        v3_copy(c, s->v[0]);
    else
        v3_set(c, 0, 0, 0);
}

/* A body-frame point near the middle of a shape, for the first search
 * direction.  A posed polytope (pose other than the identity) is taken to be
 * built around its body origin (grains, DEM particles); a polytope with the
 * identity pose is a bare vertex array in world coordinates, whose middle is
 * estimated by the box centre of at most 16 of its vertices (all up to 16,
 * else every (nv/16)-th), taken once by rve_shape_polytope (per query for a
 * shape pointed at other vertices since).  Simplices: the first vertex, the
 * sphere its centre, the smooth kinds their origin.  Only the start depends
 * on it, never the answer or its certificate.  Forced inline: gcc called it
 * (twice per query), 9 ns of a 40-ns point-vs-point query.  Returns 1 when
 * c is the body origin (a posed polytope), whose place is its position. */
DIST_INLINE int gjk_shape_mid(const rve_shape *s, double c[3])
{
    if (s->kind != RVE_SHAPE_POLYTOPE || s->rotated || s->pos[0] != 0 || s->pos[1] != 0 || s->pos[2] != 0) {
        if (s->kind == RVE_SHAPE_POLYTOPE) {
            v3_set(c, 0, 0, 0);
            return 1;
        }
        gjk_shape_first(s, c);
        return 0;
    }
    if (s->mid_of == s->verts) { /* taken by rve_shape_polytope */
        v3_copy(c, s->mid);
        return 0;
    }
    dist_sample_mid(s->verts, s->nv, c);
    return 0;
}

#define GJK_DEFAULT_MAX_ITER 1000
#define GJK_DEFAULT_EPS_REL (4 * DBL_EPSILON)
#define GJK_DEFAULT_EPS_ABS (4 * DBL_EPSILON)
/* the stopping test's absolute floor, in eps |v| max|w| */
#define DIST_STOP_ABS 16
/* equal-|v| steps GJK may take before it stops on "no progress" */
#define GJK_STALLS 4
#define GJK_REFINES 2 /* exact recomputations of v before a repeated vertex is trusted */

/* What the GJK loop needs from a pair of bodies.  The loop works in a local
 * frame: world coordinates minus c (B's position), so that A - B is formed
 * from the relative position pos_A - pos_B and the bodies' own coordinates,
 * not from two large world coordinates whose rounding (eps |pos|) would swamp
 * a small gap.  In the scaled variant every coordinate is also multiplied by
 * 2^-sc (m1 m2, exact), for pairs whose extent would overflow or underflow
 * the squares and determinants of the loop. */
typedef struct {
    const rve_shape *A, *B;
    dist_frame fa, fb;
    int hintA, hintB;
    double pa[3], pb[3]; /* positions in the local (and scaled) frame */
    double c[3];         /* local frame origin, world coordinates */
    double m1, m2;       /* scale factors (1 unless scaled) */
    int sc;              /* coordinates were multiplied by 2^-sc */
    int local;           /* c != 0 or sc != 0: results need pair_to_world */
    double wmax2;        /* largest |w|^2 the loop met (set by gjk_loop) */
    int want;            /* what the result gets: WANT_D, WANT_PQ or WANT_FULL */
    /* point-vs-polytope fast path */
    const double *pt;
    const double *V;
    int nv;
    /* small posed polytopes: their vertices rotated once per query */
    const double *ra, *rb;
} gjk_pair;

/* What a query fills in (the lean path asks only for d, or d, p and q). */
enum { WANT_D = 0, WANT_PQ = 1, WANT_FULL = 2 };

static inline void scale2(const gjk_pair *P, double t[3])
{
    for (int i = 0; i < 3; i++)
        t[i] = t[i] * P->m1 * P->m2;
}

/* gjk_pair.c */
void gjk_degenerate_result(rve_dist_result *out);
/* largest |coordinate| a shape can reach (O(nv): the scaled path only) */
double gjk_shape_extent(const rve_shape *s);
/* P->sc with 2^-sc L in [1, 2), and the two exact factors 2^-sc = m1 m2 */
void gjk_scale_factors(double L, gjk_pair *P);
/* whether GJK may stop on the repeated vertex (ia, ib) of the simplex
 * (sia, sib: its n vertex index pairs) found in direction -v, v within
 * kappa_v of exact (gjk_pair.c) */
int gjk_dup_certified(const gjk_pair *P, int n, const int sia[], const int sib[], const double v[3], int ia, int ib,
                      double kappa_v, double tau);
/* the loop's result (local frame) to world coordinates, radii removed */
rve_gjk_status gjk_pair_finish(const gjk_pair *P, rve_gjk_status st, rve_dist_result *out);

/* The default query (Signed Volumes, default options; want: WANT_D,
 * WANT_PQ or WANT_FULL) for the baseline instruction set (gjk.c) and built
 * for AVX (gjk_avx.c): where the CPU has AVX, rve_gjk_dist and
 * rve_gjk_distance take the latter; the same answers bit for bit (the same
 * operations, no FMA) */
rve_gjk_status dist_gjk_default_base(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm,
                                     rve_dist_result *out, int want);
/* The point query's run (gjk_point_query.h) in the same two builds
 * (gjk_point.c, gjk_point_avx.c): the point loop's rows scans under AVX too */
double dist_ptpoly_run_base(const double p[3], const double *verts, int nv, const rve_gjk_opts *o, int scaled,
                            rve_gjk_simplex *warm, rve_dist_result *out, int *rescale, int want);
#if DIST_HAVE_AVX_SCAN
rve_gjk_status dist_gjk_default_avx(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm,
                                    rve_dist_result *out, int want);
double dist_ptpoly_run_avx(const double p[3], const double *verts, int nv, const rve_gjk_opts *o,
                           rve_gjk_simplex *warm, rve_dist_result *out, int *rescale, int want);
#endif

#endif
