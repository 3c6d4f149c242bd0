/* The sub-algorithms of GJK: Signed Volumes (Montanari 2017, Algorithms
 * 1-4, tailored to the Voronoi regions of the newest vertex) with exact
 * signs, and Johnson's sub-algorithm for comparison. */
#include "config.h"
#include "dist/dist_noslp.h" /* before every other header */
#include <rve/dist.h>
#include "dist/gjk_internal.h"
#include <float.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------ signed volumes */
/* CompareSigns (Eq. 3.4): 1 only for two strictly positive or two strictly
 * negative values; zero and NaN compare as different. */
static inline int same_sign(double a, double b) { return (a > 0 && b > 0) || (a < 0 && b < 0); }

/* v is the projection po of the origin onto the line or plane, not sum
 * lambda_i y_i: the sum carries rounding errors of eps max|y| in every
 * direction, which for a flat face far from a touching origin (|v| tiny)
 * tilts v enough that the next support point is an old vertex and GJK stops
 * on the wrong face; po is parallel to the face normal to rounding. */
static inline void sv_project(sv_res *r, const double po[3])
{
    v3_copy(r->v, po);
    r->vv = v3_dot(po, po);
}

/* the loop's path (cx->want_w 0): no weights, nobody reads them (r->n and
 * r->idx set by the caller; the loop copies weights only from Johnson's
 * sub-algorithm, and the witnesses' come from simplex_weights) */
static inline void sv_no_weights(sv_res *r, const double po[3])
{
    sv_project(r, po);
}

/* The whole segment {y[i1], y[i2]} (both weights' signs positive), t =
 * y[i2] - y[i1], with po the origin's projection onto it; the weights (if
 * wanted) from the safest axis as in Algorithm 2. */
DIST_INLINE void s1d_whole(const double y[][3], int i1, int i2, const double t[3], const double po[3], sv_res *r,
                           const sv_ctx *cx)
{
    r->n = 2;
    r->idx[0] = i1;
    r->idx[1] = i2;
    if (!cx->want_w) {
        sv_no_weights(r, po);
        return;
    }
    sv_seg_weights(y[i1], y[i2], t, po, r->lam);
    sv_project(r, po);
}

/* The origin's projection onto the line of s1, s2 (Eq. 3.8, sign
 * corrected), t = s2 - s1, f1 = s2 . t and f2 = -s1 . t (the weights times
 * |t|^2): from the end with the larger weight, the one nearer the
 * projection.  From the other end it carries eps |s| of that end: a point
 * 1e-15 from a vertex, on an edge whose far end is 1.5 away, got v 3e-4
 * off in direction, the far vertices' support values turned to noise and
 * GJK stopped 1.2e-12 away (docs/dist.md, stop 37). */
static inline void s1d_project(const double *s1, const double *s2, const double t[3], double f1, double f2,
                               double po[3])
{
    /* selects, not a branch (it goes either way) */
    int near1 = f1 >= f2;
    const double *s = near1 ? s1 : s2;
    double f = near1 ? f2 : -f1;
    v3_axpy(po, s, f / v3_dot(t, t), t);
}

/* 1-simplex {y[i1], y[i2]}; with tail, i1 is the newest vertex and only the
 * regions (1,2) and (1) are searched.  The region is decided by the exact
 * signs of the weights, s2 . (s2 - s1) for s1 and s1 . (s1 - s2) for s2
 * (thesis Eq. 3.8 up to the positive factor |s2 - s1|^2); the weights
 * themselves come from the safest axis as in Algorithm 2. */
void dist_s1d(const double y[][3], int i1, int i2, int tail, sv_res *r, sv_ctx *cx)
{
    const double *s1 = y[i1], *s2 = y[i2];
    double t[3], a1 = 0, a2 = 0, P1 = 0, P2 = 0;
    v3_sub(t, s2, s1);
    double f1 = v3_dot(s2, t), f2 = -v3_dot(s1, t); /* weights of s1, s2 times |t|^2 */
    for (int i = 0; i < 3; i++) {
        double b1 = fabs(s1[i]), b2 = fabs(s2[i]);
        P1 += b2 * (b1 + b2);
        P2 += b1 * (b1 + b2);
        a1 = a1 > b1 ? a1 : b1;
        a2 = a2 > b2 ? a2 : b2;
    }
    /* the filter of dist_sign_dot_diff (depth 4), both sharing t */
    int g1, g2;
    if (P1 > 0x1p-900 && fabs(f1) > 6 * DBL_EPSILON * P1)
        g1 = f1 > 0 ? 1 : -1;
    else
        g1 = dist_sign_dot_diff(s2, s1, &f1, &cx->nex);
    if (P2 > 0x1p-900 && fabs(f2) > 6 * DBL_EPSILON * P2)
        g2 = f2 > 0 ? 1 : -1;
    else
        g2 = dist_sign_dot_diff(s1, s2, &f2, &cx->nex);
    int k1 = g1 > 0, k2 = g2 > 0;
    if (k1 && k2) {
        double po[3];
        s1d_project(s1, s2, t, f1, f2, po);
        s1d_whole(y, i1, i2, t, po, r, cx);
        return;
    }
    if (tail || (k1 && !k2)) {
        sv_vertex(y, i1, r);
        return;
    }
    if (!k1 && k2) {
        sv_vertex(y, i2, r);
        return;
    }
    /* both weights <= 0: only for s1 = s2 exactly */
    if (v3_dot(s2, s2) < v3_dot(s1, s1))
        sv_vertex(y, i2, r);
    else
        sv_vertex(y, i1, r);
}

/* Copies of a fixed size, inline (loops over n were two memcpy calls of
 * 4-32 bytes each, three to six per S2D / S3D region search), field by
 * field: a whole-struct copy read the fields just written one at a time
 * in 16-byte moves that cannot take them from the stores in flight
 * (with the carried sliver flag and the one-pass witnesses: full 8-vertex
 * calls 2-4 % faster; docs/dist.md, stop 39) */
static inline void sv_copy(sv_res *r, const sv_res *c)
{
    r->n = c->n;
    r->idx[0] = c->idx[0]; r->idx[1] = c->idx[1]; r->idx[2] = c->idx[2]; r->idx[3] = c->idx[3];
    r->lam[0] = c->lam[0]; r->lam[1] = c->lam[1]; r->lam[2] = c->lam[2]; r->lam[3] = c->lam[3];
    r->v[0] = c->v[0]; r->v[1] = c->v[1]; r->v[2] = c->v[2];
    r->vv = c->vv;
    r->sliver = c->sliver;
}

static inline void keep_best(sv_res *best, const sv_res *c)
{
    if (best->n == 0 || c->vv < best->vv)
        sv_copy(best, c);
}

/* The whole triangle {y[i1], y[i2], y[i3]} (all weights' signs positive),
 * n = (y[i2] - y[i1]) x (y[i3] - y[i1]): v by projection onto the plane
 * through `base` (one of the three points), unless known; the weights (if
 * wanted) from the safest plane as in Algorithm 3. */
DIST_INLINE void s2d_whole(const double y[][3], int i1, int i2, int i3, double n[3], const double *base,
                           const double *known, sv_res *r, sv_ctx *cx)
{
    const double *s1 = y[i1], *s2 = y[i2], *s3 = y[i3];
    /* a sliver: the projection po moves by the plane's tilt times the edge; the
     * normal from the exact edges of the bodies' points keeps it at eps
     * (docs/dist.md) */
    int sliver = sv_tri_sliver(s1, s2, s3, n);
    r->sliver = sliver;
    /* with po known, a sliver's weights come from the exact values below:
     * its exact normal is not needed */
    if (sliver && !known) {
        cx->nex++;
        if (cx->a) {
            const double *pa[3] = {cx->a[i1], cx->a[i2], cx->a[i3]};
            const double *pb[3] = {cx->b ? cx->b[i1] : NULL, cx->b ? cx->b[i2] : NULL, cx->b ? cx->b[i3] : NULL};
            dist_exact_normal_ab(pa, cx->b ? pb : NULL, n);
        } else {
            dist_exact_normal(s1, s2, s3, n);
        }
    }
    double po[3];
    if (known)
        v3_copy(po, known);
    else
        v3_scale(po, n, v3_dot(base, n) / v3_dot(n, n)); /* Eq. 3.7 */
    r->n = 3;
    r->idx[0] = i1;
    r->idx[1] = i2;
    r->idx[2] = i3;
    if (!cx->want_w) {
        sv_no_weights(r, po);
        return;
    }
    if (!sv_tri_weights(s1, s2, s3, n, po, r->lam) || sliver) {
        /* a sliver: the weights lost more than half their digits (they
         * disagree with the exact signs or do not sum to 1), and the
         * witnesses sum lambda a with them; take them from the exact
         * values of n . (s_j x s_k) instead (rare: 5e-6 of the flat
         * family's queries) */
        double e[3];
        cx->nex++;
        dist_exact_tri_value(s1, s2, s3, s2, s3, &e[0]);
        dist_exact_tri_value(s1, s2, s3, s3, s1, &e[1]);
        dist_exact_tri_value(s1, s2, s3, s1, s2, &e[2]);
        double es = e[0] + e[1] + e[2];
        for (int i = 0; i < 3; i++)
            r->lam[i] = e[i] / es;
        sv_lam_clamp(r->lam, 3);
    }
    sv_project(r, po);
}

/* The weights of a segment or triangle GJK already chose (idx in the order
 * the sub-algorithm returned it) and its projection v: the arithmetic of
 * the call that chose it, without deciding the signs or projecting again,
 * so bit for bit its weights. */
void dist_sv_whole(const double y[][3], int n, const int idx[], const double v[3], sv_res *r, sv_ctx *cx)
{
    const double *s1 = y[idx[0]], *s2 = y[idx[1]];
    double e1[3];
    v3_sub(e1, s2, s1);
    if (n == 2) {
        s1d_whole(y, idx[0], idx[1], e1, v, r, cx);
        return;
    }
    double e2[3], nn[3];
    v3_sub(e2, y[idx[2]], s1);
    v3_cross(nn, e1, e2);
    s2d_whole(y, idx[0], idx[1], idx[2], nn, s1, v, r, cx);
}

/* 2-simplex {y[i1], y[i2], y[i3]}; with tail, i1 is the newest vertex.
 * Regions by the exact signs of the weights of the origin's projection
 * (dist_signs_tri); weights from the safest plane as in Algorithm 3. */
void dist_s2d(const double y[][3], int i1, int i2, int i3, int tail, sv_res *r, sv_ctx *cx)
{
    const double *s1 = y[i1], *s2 = y[i2], *s3 = y[i3];
    int sg[3];
    double n[3];
    int kmax;
    dist_signs_tri_n(s1, s2, s3, sg, n, &kmax, &cx->nex, &cx->nadapt);
    int k1 = sg[0] > 0, k2 = sg[1] > 0, k3 = sg[2] > 0;
    if (k1 && k2 && k3) {
        /* the plane through the point of the largest weight, the one
         * nearest the projection: through another one it carries eps |s|
         * of that point (as s1d_project) */
        const double *base = kmax == 0 ? s1 : kmax == 1 ? s2 : s3;
        s2d_whole(y, i1, i2, i3, n, base, NULL, r, cx);
        return;
    }
    sv_res best = {0}, c;
    best.n = 0;
    best.vv = 0;
    int searched = 0;
    if (!k2) { /* s2 not supporting: edge (1,3) */
        dist_s1d(y, i1, i3, tail, &c, cx);
        keep_best(&best, &c);
        searched++;
    }
    if (!k3) { /* edge (1,2) */
        dist_s1d(y, i1, i2, tail, &c, cx);
        keep_best(&best, &c);
        searched++;
    }
    if (!tail && !k1) { /* edge (2,3) */
        dist_s1d(y, i2, i3, 0, &c, cx);
        keep_best(&best, &c);
        searched++;
    }
    if (!searched) { /* only the newest vertex was doubtful: search its edges */
        dist_s1d(y, i1, i2, tail, &c, cx);
        keep_best(&best, &c);
        dist_s1d(y, i1, i3, tail, &c, cx);
        keep_best(&best, &c);
    }
    sv_copy(r, &best);
}


/* The adaptive filters of S3D (permanents per value, as dist_sign_det3 and
 * dist_sign_orient3) and the exact path: the signs g of the cofactors C
 * and the sign of det M (returned; *D may be replaced by the edge form). */
static int s3d_signs(const double *s1, const double *s2, const double *s3, const double *s4, const double C[4],
                     int g[4], double *D, sv_ctx *cx)
{
    double p34[3], p24[3], p23[3];
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        p34[i] = fabs(s3[j] * s4[k]) + fabs(s3[k] * s4[j]);
        p24[i] = fabs(s2[j] * s4[k]) + fabs(s2[k] * s4[j]);
        p23[i] = fabs(s2[j] * s3[k]) + fabs(s2[k] * s3[j]);
    }
    double Pc[4];
    Pc[0] = fabs(s2[0]) * p34[0] + fabs(s2[1]) * p34[1] + fabs(s2[2]) * p34[2];
    Pc[1] = fabs(s1[0]) * p34[0] + fabs(s1[1]) * p34[1] + fabs(s1[2]) * p34[2];
    Pc[2] = fabs(s1[0]) * p24[0] + fabs(s1[1]) * p24[1] + fabs(s1[2]) * p24[2];
    Pc[3] = fabs(s1[0]) * p23[0] + fabs(s1[1]) * p23[1] + fabs(s1[2]) * p23[2];
    static const int sgn[4] = {1, -1, 1, -1};
    for (int j = 0; j < 4; j++) {
        if (Pc[j] > 0x1p-900 && fabs(C[j]) > 7 * DBL_EPSILON * Pc[j]) {
            g[j] = C[j] > 0 ? 1 : -1;
        } else {
            double dummy;
            const double *a = j == 0 ? s2 : s1, *b = j <= 1 ? s3 : s2, *c = j == 3 ? s3 : s4;
            g[j] = sgn[j] * dist_sign_det3(a, b, c, &dummy, &cx->nex);
        }
    }
    double PD = Pc[0] + Pc[1] + Pc[2] + Pc[3];
    if (PD > 0x1p-900 && fabs(*D) > 10 * DBL_EPSILON * PD) /* depth 8 */
        return *D > 0 ? 1 : -1;
    return dist_sign_orient3(s1, s2, s3, s4, D, &cx->nex);
}

/* The weights of a tetrahedron that holds the origin fit when sum lam_i
 * y_i is 0 to the rounding of the points (32 eps max|y|): the witnesses
 * sum lam a and lam b, which then differ by as little.  C / D of a flat
 * tetrahedron (bodies touching along flat faces) loses the digits of D: it
 * put the witnesses' midpoint up to 2e6 eps L off both bodies (stress, pair
 * families). */
static inline int s3d_weights_fit(const double *s1, const double *s2, const double *s3, const double *s4,
                                  const double lam[4], double m)
{
    double s[3];
    v3_scale(s, s1, lam[0]);
    v3_axpy(s, s, lam[1], s2);
    v3_axpy(s, s, lam[2], s3);
    v3_axpy(s, s, lam[3], s4);
    return v3_maxabs(s) <= 32 * DBL_EPSILON * m;
}

/* the weights from the cofactors' exact values, each rounded (the signs
 * are all D's, so their rounded sum is D to a few eps): sum lam y is then
 * 0 to a few eps max|y| */
static void s3d_exact_weights(const double *s1, const double *s2, const double *s3, const double *s4, sv_res *r,
                              sv_ctx *cx)
{
    double C[4];
    cx->nex++;
    dist_exact_det3_value(s2, s3, s4, &C[0]);
    dist_exact_det3_value(s1, s3, s4, &C[1]);
    dist_exact_det3_value(s1, s2, s4, &C[2]);
    dist_exact_det3_value(s1, s2, s3, &C[3]);
    C[1] = -C[1];
    C[3] = -C[3];
    double D = C[0] + C[1] + C[2] + C[3];
    for (int i = 0; i < 4; i++)
        r->lam[i] = C[i] / D;
    sv_lam_clamp(r->lam, r->n);
}

/* 3-simplex; with tail, i1 is the newest vertex.  Cofactors C_{4,j} of M
 * (Eq. 3.5-3.6): the volume forms of the fictitious simplices where the
 * origin replaces s_j, i.e. +-det[s_a; s_b; s_c] of the other three
 * vertices, compared in sign with det M = orient(s1, s2, s3, s4) from edge
 * vectors.  All five signs are exact (dist_exact.c): a flat tetrahedron far
 * from the origin keeps the sign of its tiny volume, and an origin on a face
 * gets a zero cofactor, not a rounding-error sign. */
void dist_s3d(const double y[][3], int i1, int i2, int i3, int i4, int tail, sv_res *r, sv_ctx *cx)
{
    const double *s1 = y[i1], *s2 = y[i2], *s3 = y[i3], *s4 = y[i4];
    /* C1 = det[s2; s3; s4], C2 = -det[s1; s3; s4], C3 = det[s1; s2; s4],
     * C4 = -det[s1; s2; s3] from three cross products; the static filter
     * first (one bound from the largest coordinate), the adaptive one
     * (s3d_signs) when it cannot decide */
    double c34[3], c24[3], c23[3];
    v3_cross(c34, s3, s4);
    v3_cross(c24, s2, s4);
    v3_cross(c23, s2, s3);
    double C[4];
    C[0] = v3_dot(s2, c34);
    C[1] = -v3_dot(s1, c34);
    C[2] = v3_dot(s1, c24);
    C[3] = -v3_dot(s1, c23);
    double D = C[0] + C[1] + C[2] + C[3];
    double m = dist_maxabs3(s4, dist_maxabs3(s3, dist_maxabs3(s2, dist_maxabs3(s1, 0))));
    double m3 = m * m * m, thr = DIST_STATIC_DET3 * m3;
    int g[4], sD;
    if (thr > 0x1p-900 && fabs(C[0]) > thr && fabs(C[1]) > thr && fabs(C[2]) > thr && fabs(C[3]) > thr &&
        fabs(D) > DIST_STATIC_SUM4 * m3) {
        for (int j = 0; j < 4; j++)
            g[j] = C[j] > 0 ? 1 : -1;
        sD = D > 0 ? 1 : -1;
    } else {
        cx->nadapt++;
        sD = s3d_signs(s1, s2, s3, s4, C, g, &D, cx);
    }
    double C1 = C[0], C2 = C[1], C3 = C[2], C4 = C[3];
    int g1 = g[0], g2 = g[1], g3 = g[2], g4 = g[3];
    int k1 = sD != 0 && g1 == sD, k2 = sD != 0 && g2 == sD, k3 = sD != 0 && g3 == sD, k4 = sD != 0 && g4 == sD;
    if (k1 && k2 && k3 && k4) {
        r->n = 4;
        r->idx[0] = i1;
        r->idx[1] = i2;
        r->idx[2] = i3;
        r->idx[3] = i4;
        const double zero[3] = {0, 0, 0};
        if (!cx->want_w) {
            sv_no_weights(r, zero);
            return;
        }
        r->lam[0] = C1 / D;
        r->lam[1] = C2 / D;
        r->lam[2] = C3 / D;
        r->lam[3] = C4 / D;
        sv_lam_clamp(r->lam, 4);
        if (!s3d_weights_fit(s1, s2, s3, s4, r->lam, m))
            s3d_exact_weights(s1, s2, s3, s4, r, cx);
        /* the origin is inside (exact signs): v = 0, not sum lambda y, whose
         * weights C/D are inaccurate for a flat tetrahedron (a |v| of 1e-7
         * made GJK see "no progress" and stop on a face) */
        sv_project(r, zero);
        return;
    }
    sv_res best = {0}, c;
    best.n = 0;
    best.vv = 0;
    int searched = 0;
    if (!k2) { dist_s2d(y, i1, i3, i4, tail, &c, cx); keep_best(&best, &c); searched++; }
    if (!k3) { dist_s2d(y, i1, i2, i4, tail, &c, cx); keep_best(&best, &c); searched++; }
    if (!k4) { dist_s2d(y, i1, i2, i3, tail, &c, cx); keep_best(&best, &c); searched++; }
    if (!tail && !k1) { dist_s2d(y, i2, i3, i4, 0, &c, cx); keep_best(&best, &c); searched++; }
    if (!searched) {
        dist_s2d(y, i1, i3, i4, tail, &c, cx); keep_best(&best, &c);
        dist_s2d(y, i1, i2, i4, tail, &c, cx); keep_best(&best, &c);
        dist_s2d(y, i1, i2, i3, tail, &c, cx); keep_best(&best, &c);
    }
    sv_copy(r, &best);
}


/* Signed Volumes on y[0..n-1] with newest vertex `newest` (or -1). */
static inline void sv_run(const double y[][3], int n, int newest, sv_res *r, sv_ctx *cx)
{
    int tail = newest >= 0;
    int o[4], m = 0;
    if (tail)
        o[m++] = newest;
    for (int i = 0; i < n; i++)
        if (i != newest)
            o[m++] = i;
    switch (n) {
    case 1: sv_vertex(y, o[0], r); break;
    case 2: dist_s1d(y, o[0], o[1], tail, r, cx); break;
    case 3: dist_s2d(y, o[0], o[1], o[2], tail, r, cx); break;
    default: dist_s3d(y, o[0], o[1], o[2], o[3], tail, r, cx); break;
    }
}

/* -------------------------------------------------- Johnson's algorithm */
void dist_johnson_run(const double y[][3], int n, int newest, sv_res *r)
{
    double dp[4][4];
    double delta[16][4];
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++)
            dp[i][j] = dp[j][i] = v3_dot(y[i], y[j]);
    int full = (1 << n) - 1;
    /* masks in order of increasing cardinality */
    static const int order[15] = {1, 2, 4, 8, 3, 5, 6, 9, 10, 12, 7, 11, 13, 14, 15};
    for (int t = 0; t < 15; t++) {
        int X = order[t];
        if (X & ~full)
            continue;
        if ((X & (X - 1)) == 0) {
            for (int j = 0; j < n; j++)
                delta[X][j] = (X >> j) & 1 ? 1.0 : 0.0;
            continue;
        }
        for (int j = 0; j < n; j++) {
            if (!((X >> j) & 1))
                continue;
            int Y = X & ~(1 << j); /* W; add vertex j */
            int l = 0;
            while (!((Y >> l) & 1))
                l++;
            double s = 0;
            for (int i = 0; i < n; i++)
                if ((Y >> i) & 1)
                    s += delta[Y][i] * (dp[i][l] - dp[i][j]);
            delta[X][j] = s;
        }
    }
    int found = -1;
    for (int t = 0; t < 15 && found < 0; t++) {
        int X = order[t];
        if (X & ~full)
            continue;
        if (newest >= 0 && !((X >> newest) & 1))
            continue;
        int ok = 1;
        for (int i = 0; i < n && ok; i++) {
            if ((X >> i) & 1) {
                if (!(delta[X][i] > 0))
                    ok = 0;
            } else if (!(delta[X | (1 << i)][i] <= 0)) {
                ok = 0;
            }
        }
        if (ok)
            found = X;
    }
    if (found >= 0) {
        double sum = 0;
        r->n = 0;
        for (int i = 0; i < n; i++)
            if ((found >> i) & 1)
                sum += delta[found][i];
        for (int i = 0; i < n; i++)
            if ((found >> i) & 1) {
                r->idx[r->n] = i;
                r->lam[r->n++] = delta[found][i] / sum;
            }
        sv_finish(y, r);
        return;
    }
    /* Backup procedure: the best subset with positive determinants */
    sv_res best = {0}, c;
    best.n = 0;
    best.vv = 0;
    for (int t = 0; t < 15; t++) {
        int X = order[t];
        if (X & ~full)
            continue;
        if (newest >= 0 && !((X >> newest) & 1))
            continue;
        double sum = 0;
        int ok = 1;
        for (int i = 0; i < n; i++)
            if ((X >> i) & 1) {
                if (!(delta[X][i] > 0))
                    ok = 0;
                sum += delta[X][i];
            }
        if (!ok)
            continue;
        c.n = 0;
        for (int i = 0; i < n; i++)
            if ((X >> i) & 1) {
                c.idx[c.n] = i;
                c.lam[c.n++] = delta[X][i] / sum;
            }
        sv_finish(y, &c);
        keep_best(&best, &c);
    }
    if (best.n == 0)
        sv_vertex(y, newest >= 0 ? newest : 0, &best);
    sv_copy(r, &best);
}

static int closest_api(const double y[][3], int n, int newest, double v[3], int idx[4], double lambda[4],
                       int johnson)
{
    sv_res r;
    if (n < 1 || n > 4 || newest >= n)
        return 0;
    if (johnson)
        dist_johnson_run(y, n, newest, &r);
    else
    {
        sv_ctx cx = {NULL, NULL, 1, 0, 0};
        sv_run(y, n, newest, &r, &cx);
    }
    for (int i = 0; i < r.n; i++) {
        if (idx)
            idx[i] = r.idx[i];
        if (lambda)
            lambda[i] = r.lam[i];
    }
    if (v)
        v3_copy(v, r.v);
    return r.n;
}

int rve_sv_closest(const double y[][3], int n, int newest, double v[3], int idx[4], double lambda[4])
{
    return closest_api(y, n, newest, v, idx, lambda, 0);
}

int rve_johnson_closest(const double y[][3], int n, int newest, double v[3], int idx[4], double lambda[4])
{
    return closest_api(y, n, newest, v, idx, lambda, 1);
}

