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
} sv_res;

/* The sub-algorithm's context: the points' parts on A and B (y_i = a_i -
 * b_i; b NULL: y = a) for the exact sliver normal, and the count of exact
 * fallbacks. */
static inline double fmax_(double a, double b) { return a > b ? a : b; }

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

#endif
