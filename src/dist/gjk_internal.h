/* gjk_internal.h - the sub-algorithms (Signed Volumes, Johnson) shared by
 * gjk_sv.c and the GJK loop of gjk.c (not installed). */
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
/* Johnson's sub-algorithm on y[0..n-1] */
void dist_johnson_run(const double y[][3], int n, int newest, sv_res *r);

#endif
