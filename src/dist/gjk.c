/* GJK (Montanari 2017, Algorithm 5) with the Signed Volumes sub-algorithm
 * (Algorithms 1-4, tailored to the Voronoi regions of the newest vertex),
 * and Johnson's sub-algorithm for comparison. */
#include "config.h"
#include <rve/dist.h>
#include "dist/dist_internal.h"
#include <float.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------ signed volumes */
/* CompareSigns (Eq. 3.4): 1 only for two strictly positive or two strictly
 * negative values; zero and NaN compare as different. */
static inline int same_sign(double a, double b) { return (a > 0 && b > 0) || (a < 0 && b < 0); }

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
    int nex;
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

/* Barycentric weights: computed ones are clamped to the sign the exact
 * predicate decided (a weight whose sign is certified positive can still
 * round to a tiny negative value), then renormalised. */
static inline void sv_clamp(sv_res *r)
{
    double sum = 0;
    for (int i = 0; i < r->n; i++) {
        if (!(r->lam[i] > 0))
            r->lam[i] = 0;
        sum += r->lam[i];
    }
    if (sum > 0 && sum != 1)
        for (int i = 0; i < r->n; i++)
            r->lam[i] /= sum;
}

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

/* 1-simplex {y[i1], y[i2]}; with tail, i1 is the newest vertex and only the
 * regions (1,2) and (1) are searched.  The region is decided by the exact
 * signs of the weights, s2 . (s2 - s1) for s1 and s1 . (s1 - s2) for s2
 * (thesis Eq. 3.8 up to the positive factor |s2 - s1|^2); the weights
 * themselves come from the safest axis as in Algorithm 2. */
static void S1D(const double y[][3], int i1, int i2, int tail, sv_res *r, sv_ctx *cx)
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
        /* projection of the origin onto the line (Eq. 3.8, sign corrected) */
        double po[3];
        v3_axpy(po, s1, -v3_dot(s1, t) / v3_dot(t, t), t);
        /* safest axis: largest extent of the segment */
        int I = 0;
        double at = fabs(t[0]);
        if (fabs(t[1]) > at) { I = 1; at = fabs(t[1]); }
        if (fabs(t[2]) > at) I = 2;
        double mu = s1[I] - s2[I];
        r->n = 2;
        r->idx[0] = i1;
        r->idx[1] = i2;
        r->lam[0] = (po[I] - s2[I]) / mu; /* fictitious simplex {po, s2} */
        r->lam[1] = (s1[I] - po[I]) / mu; /* fictitious simplex {s1, po} */
        sv_clamp(r);
        sv_project(r, po);
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

static inline void keep_best(sv_res *best, const sv_res *c)
{
    if (best->n == 0 || c->vv < best->vv) {
        best->n = c->n;
        for (int i = 0; i < c->n; i++) {
            best->idx[i] = c->idx[i];
            best->lam[i] = c->lam[i];
        }
        v3_copy(best->v, c->v);
        best->vv = c->vv;
    }
}

static inline void sv_copy(sv_res *r, const sv_res *c)
{
    r->n = 0;
    keep_best(r, c);
}

/* 2-simplex {y[i1], y[i2], y[i3]}; with tail, i1 is the newest vertex.
 * Regions by the exact signs of the weights of the origin's projection
 * (dist_signs_tri); weights from the safest plane as in Algorithm 3. */
static void S2D(const double y[][3], int i1, int i2, int i3, int tail, sv_res *r, sv_ctx *cx)
{
    const double *s1 = y[i1], *s2 = y[i2], *s3 = y[i3];
    int sg[3];
    double fv[3];
    dist_signs_tri(s1, s2, s3, sg, fv, &cx->nex);
    int k1 = sg[0] > 0, k2 = sg[1] > 0, k3 = sg[2] > 0;
    if (k1 && k2 && k3) {
        double e1[3], e2[3], n[3];
        v3_sub(e1, s2, s1);
        v3_sub(e2, s3, s1);
        v3_cross(n, e1, e2);
        /* a sliver (longest edge over smallest height above 16): the
         * rounding of the points (eps |y| each) tilts the plane by eps |y| /
         * height, and the projection po moves by that times the edge; the
         * normal from the exact edges of the bodies' points keeps it at eps
         * (docs/dist.md) */
        double e3[3];
        v3_sub(e3, s3, s2);
        double em = fmax_(v3_dot(e1, e1), fmax_(v3_dot(e2, e2), v3_dot(e3, e3)));
        int sliver = v3_dot(n, n) < 0x1p-8 * em * em;
        if (sliver) {
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
        v3_scale(po, n, v3_dot(s1, n) / v3_dot(n, n)); /* Eq. 3.7 */
        /* weights from the safest plane (largest projected area, drop J):
         * the filter's values n . (s_j x s_k) / |n|^2 lose more to rounding
         * (measured: worst 38 against 9 eps L on the flat families) */
        int J = 0;
        double an = fabs(n[0]);
        if (fabs(n[1]) > an) { J = 1; an = fabs(n[1]); }
        if (fabs(n[2]) > an) J = 2;
        int k = (J + 1) % 3, l = (J + 2) % 3;
        double mu = n[J];
        /* fictitious simplices: po replaces each vertex in turn */
        double a1k = s1[k] - po[k], a1l = s1[l] - po[l];
        double a2k = s2[k] - po[k], a2l = s2[l] - po[l];
        double a3k = s3[k] - po[k], a3l = s3[l] - po[l];
        r->n = 3;
        r->idx[0] = i1;
        r->idx[1] = i2;
        r->idx[2] = i3;
        r->lam[0] = (a2k * a3l - a2l * a3k) / mu; /* (po, s2, s3) */
        r->lam[1] = (a3k * a1l - a3l * a1k) / mu; /* (s1, po, s3) */
        r->lam[2] = (a1k * a2l - a1l * a2k) / mu; /* (s1, s2, po) */
        double sum = r->lam[0] + r->lam[1] + r->lam[2];
        if (sliver || !(r->lam[0] > 0 && r->lam[1] > 0 && r->lam[2] > 0 && fabs(sum - 1) <= 0x1p-30)) {
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
        }
        sv_clamp(r);
        sv_project(r, po);
        return;
    }
    sv_res best = {0}, c;
    best.n = 0;
    best.vv = 0;
    int searched = 0;
    if (!k2) { /* s2 not supporting: edge (1,3) */
        S1D(y, i1, i3, tail, &c, cx);
        keep_best(&best, &c);
        searched++;
    }
    if (!k3) { /* edge (1,2) */
        S1D(y, i1, i2, tail, &c, cx);
        keep_best(&best, &c);
        searched++;
    }
    if (!tail && !k1) { /* edge (2,3) */
        S1D(y, i2, i3, 0, &c, cx);
        keep_best(&best, &c);
        searched++;
    }
    if (!searched) { /* only the newest vertex was doubtful: search its edges */
        S1D(y, i1, i2, tail, &c, cx);
        keep_best(&best, &c);
        S1D(y, i1, i3, tail, &c, cx);
        keep_best(&best, &c);
    }
    sv_copy(r, &best);
}


/* 3-simplex; with tail, i1 is the newest vertex.  Cofactors C_{4,j} of M
 * (Eq. 3.5-3.6): the volume forms of the fictitious simplices where the
 * origin replaces s_j, i.e. +-det[s_a; s_b; s_c] of the other three
 * vertices, compared in sign with det M = orient(s1, s2, s3, s4) from edge
 * vectors.  All five signs are exact (dist_exact.c): a flat tetrahedron far
 * from the origin keeps the sign of its tiny volume, and an origin on a face
 * gets a zero cofactor, not a rounding-error sign. */
static void S3D(const double y[][3], int i1, int i2, int i3, int i4, int tail, sv_res *r, sv_ctx *cx)
{
    const double *s1 = y[i1], *s2 = y[i2], *s3 = y[i3], *s4 = y[i4];
    /* C1 = det[s2; s3; s4], C2 = -det[s1; s3; s4], C3 = det[s1; s2; s4],
     * C4 = -det[s1; s2; s3] from three cross products; filters as in
     * dist_sign_det3 (depth 5), D = sum C_j (depth 7) first, the edge form
     * dist_sign_orient3 when that cannot decide (flat, far from the origin) */
    double c34[3], c24[3], c23[3], p34[3], p24[3], p23[3];
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        double x0 = s3[j] * s4[k], x1 = s3[k] * s4[j];
        c34[i] = x0 - x1;
        p34[i] = fabs(x0) + fabs(x1);
        x0 = s2[j] * s4[k];
        x1 = s2[k] * s4[j];
        c24[i] = x0 - x1;
        p24[i] = fabs(x0) + fabs(x1);
        x0 = s2[j] * s3[k];
        x1 = s2[k] * s3[j];
        c23[i] = x0 - x1;
        p23[i] = fabs(x0) + fabs(x1);
    }
    double C[4], Pc[4];
    C[0] = v3_dot(s2, c34);
    C[1] = -v3_dot(s1, c34);
    C[2] = v3_dot(s1, c24);
    C[3] = -v3_dot(s1, c23);
    Pc[0] = fabs(s2[0]) * p34[0] + fabs(s2[1]) * p34[1] + fabs(s2[2]) * p34[2];
    Pc[1] = fabs(s1[0]) * p34[0] + fabs(s1[1]) * p34[1] + fabs(s1[2]) * p34[2];
    Pc[2] = fabs(s1[0]) * p24[0] + fabs(s1[1]) * p24[1] + fabs(s1[2]) * p24[2];
    Pc[3] = fabs(s1[0]) * p23[0] + fabs(s1[1]) * p23[1] + fabs(s1[2]) * p23[2];
    int g[4];
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
    double D = C[0] + C[1] + C[2] + C[3], PD = Pc[0] + Pc[1] + Pc[2] + Pc[3];
    int sD;
    if (PD > 0x1p-900 && fabs(D) > 10 * DBL_EPSILON * PD) /* depth 8 */
        sD = D > 0 ? 1 : -1;
    else
        sD = dist_sign_orient3(s1, s2, s3, s4, &D, &cx->nex);
    double C1 = C[0], C2 = C[1], C3 = C[2], C4 = C[3];
    int g1 = g[0], g2 = g[1], g3 = g[2], g4 = g[3];
    int k1 = sD != 0 && g1 == sD, k2 = sD != 0 && g2 == sD, k3 = sD != 0 && g3 == sD, k4 = sD != 0 && g4 == sD;
    if (k1 && k2 && k3 && k4) {
        r->n = 4;
        r->idx[0] = i1;
        r->idx[1] = i2;
        r->idx[2] = i3;
        r->idx[3] = i4;
        r->lam[0] = C1 / D;
        r->lam[1] = C2 / D;
        r->lam[2] = C3 / D;
        r->lam[3] = C4 / D;
        sv_clamp(r);
        /* the origin is inside (exact signs): v = 0, not sum lambda y, whose
         * weights C/D are inaccurate for a flat tetrahedron (a |v| of 1e-7
         * made GJK see "no progress" and stop on a face) */
        const double zero[3] = {0, 0, 0};
        sv_project(r, zero);
        return;
    }
    sv_res best = {0}, c;
    best.n = 0;
    best.vv = 0;
    int searched = 0;
    if (!k2) { S2D(y, i1, i3, i4, tail, &c, cx); keep_best(&best, &c); searched++; }
    if (!k3) { S2D(y, i1, i2, i4, tail, &c, cx); keep_best(&best, &c); searched++; }
    if (!k4) { S2D(y, i1, i2, i3, tail, &c, cx); keep_best(&best, &c); searched++; }
    if (!tail && !k1) { S2D(y, i2, i3, i4, 0, &c, cx); keep_best(&best, &c); searched++; }
    if (!searched) {
        S2D(y, i1, i3, i4, tail, &c, cx); keep_best(&best, &c);
        S2D(y, i1, i2, i4, tail, &c, cx); keep_best(&best, &c);
        S2D(y, i1, i2, i3, tail, &c, cx); keep_best(&best, &c);
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
    case 2: S1D(y, o[0], o[1], tail, r, cx); break;
    case 3: S2D(y, o[0], o[1], o[2], tail, r, cx); break;
    default: S3D(y, o[0], o[1], o[2], o[3], tail, r, cx); break;
    }
}

/* -------------------------------------------------- Johnson's algorithm */
static void johnson_run(const double y[][3], int n, int newest, sv_res *r)
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
        johnson_run(y, n, newest, &r);
    else
    {
        sv_ctx cx = {NULL, NULL, 0};
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

/* ------------------------------------------------------------------ GJK */
const char *rve_gjk_status_name(rve_gjk_status s)
{
    switch (s) {
    case RVE_GJK_CONVERGED: return "converged";
    case RVE_GJK_INTERSECT: return "intersecting";
    case RVE_GJK_CAP: return "iteration cap reached";
    case RVE_GJK_DEGENERATE: return "degenerate input";
    case RVE_GJK_RANGE: return "distance beyond the double range";
    }
    return "unknown";
}

#define GJK_DEFAULT_MAX_ITER 1000
#define GJK_DEFAULT_EPS_REL (4 * DBL_EPSILON)
#define GJK_DEFAULT_EPS_ABS (4 * DBL_EPSILON)
/* the stopping test's absolute floor, in eps |v| max|w| */
#define DIST_STOP_ABS 16

void rve_gjk_opts_default(rve_gjk_opts *o)
{
    o->sub = RVE_SUB_SV;
    o->max_iter = GJK_DEFAULT_MAX_ITER;
    o->eps_rel = GJK_DEFAULT_EPS_REL;
    o->eps_abs = GJK_DEFAULT_EPS_ABS;
}

void rve_gjk_simplex_init(rve_gjk_simplex *w) { memset(w, 0, sizeof *w); }

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
    /* point-vs-polytope fast path */
    const double *pt;
    const double *V;
    int nv;
} gjk_pair;

typedef void (*gjk_support_fn)(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib);
typedef void (*gjk_vertex_fn)(const gjk_pair *P, int ia, int ib, double a[3], double b[3]);

/* body point b of a shape with frame f at local position pos (out != b) */
DIST_INLINE void pair_place(const dist_frame *f, const double pos[3], const double b[3], double out[3])
{
    if (f->rotated) {
        const double *R = f->R;
        out[0] = pos[0] + (R[0] * b[0] + R[1] * b[1] + R[2] * b[2]);
        out[1] = pos[1] + (R[3] * b[0] + R[4] * b[1] + R[5] * b[2]);
        out[2] = pos[2] + (R[6] * b[0] + R[7] * b[1] + R[8] * b[2]);
    } else {
        v3_add(out, pos, b);
    }
}

DIST_INLINE void body_support(const rve_shape *s, const dist_frame *f, const double d[3], double b[3], int *idx)
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

/* a = s_A(-v), b = s_B(v) */
DIST_INLINE void support_generic(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    double mv[3] = {-v[0], -v[1], -v[2]}, t[3];
    body_support(P->A, &P->fa, mv, t, &P->hintA);
    pair_place(&P->fa, P->pa, t, a);
    *ia = P->hintA;
    body_support(P->B, &P->fb, v, t, &P->hintB);
    pair_place(&P->fb, P->pb, t, b);
    *ib = P->hintB;
}

static inline void scale2(const gjk_pair *P, double t[3])
{
    for (int i = 0; i < 3; i++)
        t[i] = t[i] * P->m1 * P->m2;
}

/* The direction for the bodies' own (unscaled) coordinates, multiplied by a
 * power of two: v of a touching pair is tiny in the scaled units, and
 * v . x for body coordinates x of size 2^sc would underflow into
 * subnormals (for sc = -993 a support point of the wrong vertex, 20 % off
 * the distance, was seen); with max|d| about 2^-sc (clamped to 2^+-1000)
 * the products are near 1.  Power-of-two factors keep the argmax exact. */
static inline void scaled_dir(const gjk_pair *P, const double v[3], double d[3])
{
    double m = v3_maxabs(v);
    int e = m > 0 && isfinite(m) ? -ilogb(m) - P->sc : 0;
    e = e > 1000 ? 1000 : e < -1000 ? -1000 : e;
    int e1 = e / 2;
    for (int i = 0; i < 3; i++)
        d[i] = ldexp(ldexp(v[i], e1), e - e1);
}

static void support_scaled(gjk_pair *P, const double v0[3], double a[3], double b[3], int *ia, int *ib)
{
    double v[3];
    scaled_dir(P, v0, v);
    double mv[3] = {-v[0], -v[1], -v[2]}, t[3];
    body_support(P->A, &P->fa, mv, t, &P->hintA);
    scale2(P, t);
    pair_place(&P->fa, P->pa, t, a);
    *ia = P->hintA;
    body_support(P->B, &P->fb, v, t, &P->hintB);
    scale2(P, t);
    pair_place(&P->fb, P->pb, t, b);
    *ib = P->hintB;
}

static void vertex_generic(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
{
    double t[3];
    dist_vertex_body(P->A, ia, t);
    scale2(P, t);
    pair_place(&P->fa, P->pa, t, a);
    dist_vertex_body(P->B, ib, t);
    scale2(P, t);
    pair_place(&P->fb, P->pb, t, b);
}

DIST_INLINE void support_ptpoly(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    v3_copy(a, P->pt);
    *ia = 0;
    int i = dist_argmax(P->V, P->nv, v);
    v3_copy(b, P->V + 3 * i);
    *ib = i;
}

static void vertex_ptpoly(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
{
    (void)ia;
    v3_copy(a, P->pt);
    v3_copy(b, P->V + 3 * ib);
}

/* point vs polytope, scaled: the point is in P->pa (scaled) */
static void support_ptpoly_scaled(gjk_pair *P, const double v0[3], double a[3], double b[3], int *ia, int *ib)
{
    double v[3];
    scaled_dir(P, v0, v);
    v3_copy(a, P->pa);
    *ia = 0;
    int i = dist_argmax(P->V, P->nv, v);
    v3_copy(b, P->V + 3 * i);
    scale2(P, b);
    *ib = i;
}

static void vertex_ptpoly_scaled(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
{
    (void)ia;
    v3_copy(a, P->pa);
    v3_copy(b, P->V + 3 * ib);
    scale2(P, b);
}

/* The simplex: n points in logical order (slot s[i] of the storage), so that
 * dropping and reordering points moves indices only (no copy of the coordinates). */
typedef struct {
    int n;
    int s[4];                          /* storage slot of point i */
    double y[4][3], a[4][3], b[4][3]; /* by slot */
    int ia[4], ib[4];                  /* by slot */
    double lam[4];                     /* by point */
} gjk_simplex;

#define SY(S, i) ((S).y[(S).s[i]])
#define SA(S, i) ((S).a[(S).s[i]])
#define SB(S, i) ((S).b[(S).s[i]])
#define SIA(S, i) ((S).ia[(S).s[i]])
#define SIB(S, i) ((S).ib[(S).s[i]])

/* keep the points r->idx (storage slots) in that order */
static inline void simplex_compact(gjk_simplex *S, const sv_res *r)
{
    for (int i = 0; i < r->n; i++) {
        S->s[i] = r->idx[i];
        S->lam[i] = r->lam[i];
    }
    S->n = r->n;
}

/* a storage slot not used by the n points */
static inline int simplex_free_slot(const gjk_simplex *S)
{
    int used = 0;
    for (int i = 0; i < S->n; i++)
        used |= 1 << S->s[i];
    int k = 0;
    while (used & (1 << k))
        k++;
    return k;
}

/* Signed Volumes (or Johnson) on the points of S with newest point `newest`
 * (logical index, or -1); r->idx gets storage slots.  The same visiting order
 * as sv_run on the compacted points: the newest first, then the others in order. */
static inline void simplex_solve(const gjk_simplex *S, int newest, int johnson, sv_res *r, sv_ctx *cx)
{
    if (johnson) {
        double y[4][3];
        for (int i = 0; i < S->n; i++)
            v3_copy(y[i], SY(*S, i));
        johnson_run((const double(*)[3])y, S->n, newest, r);
        for (int i = 0; i < r->n; i++)
            r->idx[i] = S->s[r->idx[i]];
        return;
    }
    const double(*y)[3] = (const double(*)[3])S->y;
    int tail = newest >= 0;
    int o[4], m = 0;
    if (tail)
        o[m++] = S->s[newest];
    for (int i = 0; i < S->n; i++)
        if (i != newest)
            o[m++] = S->s[i];
    switch (S->n) {
    case 1: sv_vertex(y, o[0], r); break;
    case 2: S1D(y, o[0], o[1], tail, r, cx); break;
    case 3: S2D(y, o[0], o[1], o[2], tail, r, cx); break;
    default: S3D(y, o[0], o[1], o[2], o[3], tail, r, cx); break;
    }
}

static inline double simplex_maxy2(const gjk_simplex *S)
{
    double m = 0;
    for (int i = 0; i < S->n; i++) {
        double t = v3_dot(SY(*S, i), SY(*S, i));
        if (t > m)
            m = t;
    }
    return m;
}

/* the final simplex's vertex indices (and direction) for the next query */
static inline void warm_save(rve_gjk_simplex *warm, const gjk_simplex *S, rve_gjk_status status, const double v[3])
{
    int keep = S->n > 0 && status != RVE_GJK_DEGENERATE;
    for (int i = 0; i < S->n && keep; i++)
        if (SIA(*S, i) < 0 || SIB(*S, i) < 0)
            keep = 0;
    warm->n = keep ? S->n : 0;
    for (int i = 0; i < 4; i++) {
        warm->ia[i] = i < S->n ? SIA(*S, i) : -1;
        warm->ib[i] = i < S->n ? SIB(*S, i) : -1;
    }
    if (status == RVE_GJK_CONVERGED || status == RVE_GJK_CAP)
        v3_copy(warm->v, v);
}

DIST_INLINE rve_gjk_status gjk_loop(gjk_pair *P, gjk_support_fn support, gjk_vertex_fn vertex, int nva,
                                     int nvb, const double v0[3], const rve_gjk_opts *o,
                                     rve_gjk_simplex *warm, rve_dist_result *out, double bool_margin)
{
    const int johnson = o->sub == RVE_SUB_JOHNSON;
    const int maxit = o->max_iter > 0 ? o->max_iter : GJK_DEFAULT_MAX_ITER;
    const double eps_rel = o->eps_rel > 0 ? o->eps_rel : GJK_DEFAULT_EPS_REL;
    const double eps_abs = o->eps_abs > 0 ? o->eps_abs : GJK_DEFAULT_EPS_ABS;
    const double eps_abs2 = eps_abs * eps_abs;
    /* absolute floor of the stopping test: DIST_STOP_ABS eps |v| max|w|, the
     * size of the rounding error of vv - v.w itself (docs/dist.md) */
    const double kabs2 = (DIST_STOP_ABS * DBL_EPSILON) * (DIST_STOP_ABS * DBL_EPSILON);
    gjk_simplex S;
    sv_res r;
    double v[3], vv = INFINITY, wmax2 = 0;
    rve_gjk_status status = RVE_GJK_CAP;
    int it = 0;
    sv_ctx cx = {(const double(*)[3])S.a, (const double(*)[3])S.b, 0};
    S.n = 0;

    /* warm start: rebuild the previous simplex from its vertex indices */
    int warm_ok = warm && warm->n > 0 && warm->n <= 4 && nva > 0 && nvb > 0;
    if (warm_ok)
        for (int i = 0; i < warm->n; i++)
            if (warm->ia[i] < 0 || warm->ia[i] >= nva || warm->ib[i] < 0 || warm->ib[i] >= nvb)
                warm_ok = 0;
    if (warm_ok) {
        S.n = warm->n;
        for (int i = 0; i < S.n; i++) {
            S.s[i] = i;
            S.ia[i] = warm->ia[i];
            S.ib[i] = warm->ib[i];
            vertex(P, S.ia[i], S.ib[i], S.a[i], S.b[i]);
            v3_sub(S.y[i], S.a[i], S.b[i]);
        }
        simplex_solve(&S, -1, johnson, &r, &cx);
        simplex_compact(&S, &r);
        v3_copy(v, r.v);
        vv = r.vv;
        if (S.n == 4 || vv <= eps_abs2 * simplex_maxy2(&S)) {
            status = RVE_GJK_INTERSECT;
            goto done;
        }
    } else {
        if (warm && (warm->v[0] != 0 || warm->v[1] != 0 || warm->v[2] != 0) &&
            isfinite(warm->v[0] + warm->v[1] + warm->v[2]))
            v3_copy(v, warm->v);
        else
            v3_copy(v, v0);
        if (!(v3_dot(v, v) > 0) || !isfinite(v3_dot(v, v)))
            v3_set(v, 1, 0, 0);
    }

    for (it = 0; it < maxit; it++) {
        double a[3], b[3], w[3];
        int ia, ib;
        support(P, v, a, b, &ia, &ib);
        v3_sub(w, a, b);
        if (bool_margin >= 0) {
            /* intersection test: the plane normal to v separates (by more than the radii) */
            double vw = v3_dot(v, w);
            if (vw > 0 && vw * vw > bool_margin * bool_margin * v3_dot(v, v)) {
                out->iterations = it + 1;
                out->exact = cx.nex;
                P->wmax2 = fmax_(wmax2, v3_dot(w, w));
                out->status = RVE_GJK_CONVERGED;
                out->d = INFINITY;
                out->n = 0;
                return RVE_GJK_CONVERGED;
            }
        }
        double ww = v3_dot(w, w);
        if (ww > wmax2)
            wmax2 = ww;
        if (S.n > 0) {
            /* relative test (Algorithm 5, line 8): w is no closer than v, up
             * to eps_rel |v| or, for touching pairs where |v| is tiny, up to
             * the rounding of v.w (the absolute floor) */
            double gap = vv - v3_dot(v, w);
            if (gap <= eps_rel * vv || gap * gap <= kabs2 * vv * wmax2) {
                status = RVE_GJK_CONVERGED;
                break;
            }
            int dup = 0;
            for (int i = 0; i < S.n; i++)
                if ((ia >= 0 && ib >= 0) ? (SIA(S, i) == ia && SIB(S, i) == ib)
                                         : (SY(S, i)[0] == w[0] && SY(S, i)[1] == w[1] && SY(S, i)[2] == w[2]))
                    dup = 1;
            if (dup) {
                status = RVE_GJK_CONVERGED;
                break;
            }
        }
        int slot = simplex_free_slot(&S);
        int k = S.n++;
        S.s[k] = slot;
        v3_copy(S.y[slot], w);
        v3_copy(S.a[slot], a);
        v3_copy(S.b[slot], b);
        S.ia[slot] = ia;
        S.ib[slot] = ib;
        simplex_solve(&S, k, johnson, &r, &cx);
        if (!(r.vv < vv)) {
            /* no progress (rounding): keep the previous simplex */
            if (k > 0) {
                S.n = k;
                status = RVE_GJK_CONVERGED;
                break;
            }
        }
        simplex_compact(&S, &r);
        v3_copy(v, r.v);
        vv = r.vv;
        if (S.n == 4 || vv <= eps_abs2 * simplex_maxy2(&S)) {
            status = RVE_GJK_INTERSECT;
            it++;
            break;
        }
        if (!isfinite(vv)) {
            status = RVE_GJK_DEGENERATE;
            break;
        }
    }

done:
    P->wmax2 = wmax2;
    out->iterations = it;
    out->exact = cx.nex;
    out->n = S.n;
    {
        double p[3] = {0, 0, 0}, q[3] = {0, 0, 0};
        for (int i = 0; i < S.n; i++) {
            v3_axpy(p, p, S.lam[i], SA(S, i));
            v3_axpy(q, q, S.lam[i], SB(S, i));
            v3_copy(out->a[i], SA(S, i));
            v3_copy(out->b[i], SB(S, i));
            out->lambda[i] = S.lam[i];
        }
        if (status == RVE_GJK_INTERSECT) {
            double m[3];
            v3_add(m, p, q);
            v3_scale(m, m, 0.5);
            v3_copy(p, m);
            v3_copy(q, m);
            out->d = 0;
        } else {
            /* |v|, not |p - q|: v is the projection of the origin (accurate
             * to the rounding of the support points), while the weights
             * behind p and q can lose digits on a flat face far from the
             * origin (a tangential error of 5e-12 of the size, 577 eps L in
             * |p - q|, seen on the flat families); p and q stay on their bodies */
            out->d = sqrt(vv);
        }
        v3_copy(out->p, p);
        v3_copy(out->q, q);
    }
    if (!isfinite(out->d) || !isfinite(out->p[0] + out->p[1] + out->p[2] + out->q[0] + out->q[1] + out->q[2])) {
        status = RVE_GJK_DEGENERATE;
        out->d = NAN;
    }
    out->status = status;
    if (warm)
        warm_save(warm, &S, status, v);
    return status;
}

static int shape_valid_fast(const rve_shape *s)
{
    if (s->kind == RVE_SHAPE_POLYTOPE && (s->nv < 1 || !s->verts))
        return 0;
    return (unsigned)s->kind <= (unsigned)RVE_SHAPE_SUPERQUADRIC;
}

static void degenerate_result(rve_dist_result *out)
{
    memset(out, 0, sizeof *out);
    out->d = NAN;
    v3_set(out->p, NAN, NAN, NAN);
    v3_set(out->q, NAN, NAN, NAN);
    out->status = RVE_GJK_DEGENERATE;
}

/* Largest |coordinate| a shape can reach (positions, vertices, sizes, radius):
 * sets the scale of the rescaled path, so it runs only there (O(nv)). */
static double shape_extent(const rve_shape *s)
{
    double m = v3_maxabs(s->pos), e = 0;
    switch (s->kind) {
    case RVE_SHAPE_POLYTOPE:
        for (int i = 0; i < 3 * s->nv; i++)
            e = fmax(e, fabs(s->verts[i]));
        break;
    case RVE_SHAPE_BOX: case RVE_SHAPE_ELLIPSOID: case RVE_SHAPE_SUPERQUADRIC:
        e = v3_maxabs(s->axes);
        break;
    default:
        for (int i = 0; i < dist_nvertices(s) && i < 4; i++)
            e = fmax(e, v3_maxabs(s->v[i]));
        break;
    }
    /* a rotated body reaches at most sqrt(3) e per coordinate: 2 e is safe */
    return m + 2 * e + fabs(s->radius);
}

/* sc with 2^-sc L in [1, 2), and the two exact factors 2^-sc = m1 m2 */
static void scale_factors(double L, gjk_pair *P)
{
    int e = 0;
    if (L > 0 && isfinite(L))
        e = ilogb(L);
    else if (!isfinite(L))
        e = 1023;
    P->sc = e;
    int h1 = -e / 2, h2 = -e - h1;
    P->m1 = ldexp(1.0, h1);
    P->m2 = ldexp(1.0, h2);
}

/* The pair in the local frame (origin c = B's position); with scaled, also
 * multiplied by 2^-sc for the pair's extent L. */
static void pair_init(gjk_pair *P, const rve_shape *A, const rve_shape *B, int scaled, double v0[3])
{
    P->A = A;
    P->B = B;
    dist_frame_init(&P->fa, A);
    dist_frame_init(&P->fb, B);
    P->hintA = P->hintB = -1;
    if (A->kind == RVE_SHAPE_POLYTOPE && A->graph)
        P->hintA = A->graph->start;
    if (B->kind == RVE_SHAPE_POLYTOPE && B->graph)
        P->hintB = B->graph->start;
    P->m1 = P->m2 = 1;
    P->sc = 0;
    if (scaled)
        scale_factors(fmax(shape_extent(A), shape_extent(B)), P);
    /* the shift pays when the positions are far from the origin compared
     * with their difference (rounding eps |pos_A - pos_B| instead of eps
     * |pos|); near the origin it would only add that rounding */
    double dab[3];
    v3_sub(dab, A->pos, B->pos);
    int shift = v3_maxabs(dab) < fmax(v3_maxabs(A->pos), v3_maxabs(B->pos));
    if (shift)
        v3_copy(P->c, B->pos);
    else
        v3_set(P->c, 0, 0, 0);
    P->local = shift || scaled;
    for (int i = 0; i < 3; i++) {
        /* scale first: pos_A - pos_B may overflow */
        P->pa[i] = A->pos[i] * P->m1 * P->m2 - P->c[i] * P->m1 * P->m2;
        P->pb[i] = B->pos[i] * P->m1 * P->m2 - P->c[i] * P->m1 * P->m2;
    }
    double ca[3], cb[3];
    if (A->kind == RVE_SHAPE_POLYTOPE)
        v3_copy(ca, A->verts);
    else if (A->kind <= RVE_SHAPE_SPHERE)
        v3_copy(ca, A->v[0]);
    else
        v3_set(ca, 0, 0, 0);
    if (B->kind == RVE_SHAPE_POLYTOPE)
        v3_copy(cb, B->verts);
    else if (B->kind <= RVE_SHAPE_SPHERE)
        v3_copy(cb, B->v[0]);
    else
        v3_set(cb, 0, 0, 0);
    if (scaled) {
        scale2(P, ca);
        scale2(P, cb);
    }
    double wa[3], wb[3]; /* pair_place may not alias its input */
    pair_place(&P->fa, P->pa, ca, wa);
    pair_place(&P->fb, P->pb, cb, wb);
    v3_sub(v0, wa, wb);
}

/* local (scaled) point -> world */
static inline void pair_to_world(const gjk_pair *P, const double l[3], double w[3])
{
    if (P->sc == 0) {
        v3_add(w, P->c, l);
        return;
    }
    for (int i = 0; i < 3; i++)
        w[i] = ldexp(P->c[i] * P->m1 * P->m2 + l[i], P->sc);
}

/* The loop's squares and determinants stay in range unless it met support
 * points w = a - b beyond 2^200 (|w|^2 beyond 2^400) or only below 2^-200
 * (|w|^2 may underflow to 0),
 * or failed (non-finite, cap): then rerun scaled. */
static inline int needs_rescale(const gjk_pair *P, const rve_dist_result *out)
{
    if (out->status == RVE_GJK_DEGENERATE || out->status == RVE_GJK_CAP)
        return 1;
    return !(P->wmax2 <= 0x1p400 && P->wmax2 >= 0x1p-400);
}

/* The result of the loop (local frame) to world coordinates; rounded shapes
 * lose their radii here, in the local (scaled) units where ra + rb is finite. */
static rve_gjk_status pair_finish(const gjk_pair *P, rve_gjk_status st, rve_dist_result *out)
{
    double m = P->m1 * P->m2;
    double ra = P->A->radius * m, rb = P->B->radius * m;
    if (st != RVE_GJK_DEGENERATE && (ra > 0 || rb > 0)) {
        if (st == RVE_GJK_INTERSECT || !(out->d > 0)) {
            out->d = 0;
            st = RVE_GJK_INTERSECT;
        } else {
            double dc = out->d, u[3];
            v3_sub(u, out->q, out->p);
            double lu = v3_norm(u);
            v3_scale(u, u, lu > 0 ? 1.0 / lu : 0.0);
            if (dc > ra + rb) {
                v3_axpy(out->p, out->p, ra, u);
                v3_axpy(out->q, out->q, -rb, u);
                out->d = dc - ra - rb;
            } else {
                v3_axpy(out->p, out->p, dc * (ra / (ra + rb)), u);
                v3_copy(out->q, out->p);
                out->d = 0;
                st = RVE_GJK_INTERSECT;
            }
        }
    }
    if (st != RVE_GJK_DEGENERATE && P->local) {
        double t[3];
        pair_to_world(P, out->p, t);
        v3_copy(out->p, t);
        pair_to_world(P, out->q, t);
        v3_copy(out->q, t);
        for (int i = 0; i < out->n; i++) {
            pair_to_world(P, out->a[i], t);
            v3_copy(out->a[i], t);
            pair_to_world(P, out->b[i], t);
            v3_copy(out->b[i], t);
        }
        if (P->sc != 0)
            out->d = ldexp(out->d, P->sc);
        if (isinf(out->d) && st == RVE_GJK_CONVERGED)
            st = RVE_GJK_RANGE;
    }
    out->status = st;
    return st;
}

/* The rerun on the scaled pair, out of line: a second inlined copy of the
 * loop in the callers made the ordinary path slower.  margin < 0: distance. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static rve_gjk_status scaled_run(gjk_pair *P, const rve_shape *A, const rve_shape *B, const rve_gjk_opts *o,
                                 rve_gjk_simplex *warm, rve_dist_result *out, double margin)
{
    double v0[3];
    pair_init(P, A, B, 1, v0);
    if (margin >= 0)
        margin *= P->m1 * P->m2;
    return gjk_loop(P, support_scaled, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0, o, warm, out,
                    margin);
}

rve_gjk_status rve_gjk_dist(const rve_shape *A, const rve_shape *B, const rve_gjk_opts *opts,
                            rve_gjk_simplex *warm, rve_dist_result *out)
{
    rve_gjk_opts o;
    if (opts)
        o = *opts;
    else
        rve_gjk_opts_default(&o);
    if (!shape_valid_fast(A) || !shape_valid_fast(B)) {
        degenerate_result(out);
        return out->status;
    }
    gjk_pair P;
    double v0[3];
    pair_init(&P, A, B, 0, v0);
    rve_gjk_simplex w0;
    if (warm)
        w0 = *warm;
    rve_gjk_status st = gjk_loop(&P, support_generic, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0,
                                 &o, warm, out, -1.0);
    if (needs_rescale(&P, out)) {
        /* extreme magnitudes (or a failure that might come from them): the
         * same query on the pair scaled by a power of two (exact) */
        int nex = out->exact;
        if (warm)
            *warm = w0;
        st = scaled_run(&P, A, B, &o, warm, out, -1.0);
        out->exact += nex;
    }
    return pair_finish(&P, st, out);
}

int rve_gjk_intersect(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm)
{
    rve_gjk_opts o;
    rve_gjk_opts_default(&o);
    if (!shape_valid_fast(A) || !shape_valid_fast(B))
        return -1;
    gjk_pair P;
    double v0[3];
    rve_dist_result out;
    pair_init(&P, A, B, 0, v0);
    double margin = A->radius + B->radius;
    /* the loop compares squares of the margin and of v.w: pairs whose first
     * direction or margin is beyond 2^+-200 (or that fail) run scaled */
    double m0 = fmax(v3_maxabs(v0), margin);
    rve_gjk_status st = RVE_GJK_DEGENERATE;
    if (m0 <= 0x1p200 && (m0 >= 0x1p-200 || m0 == 0))
        st = gjk_loop(&P, support_generic, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0, &o, warm, &out,
                      margin);
    if (st == RVE_GJK_DEGENERATE || st == RVE_GJK_CAP || needs_rescale(&P, &out)) {
        st = scaled_run(&P, A, B, &o, warm, &out, A->radius + B->radius);
    }
    if (st == RVE_GJK_DEGENERATE)
        return -1;
    if (st == RVE_GJK_INTERSECT)
        return 1;
    return out.d <= margin;
}

static double ptpoly_run(const double p[3], const double *verts, int nv, const rve_gjk_opts *o, int scaled,
                         rve_gjk_simplex *warm, rve_dist_result *out, int *rescale)
{
    gjk_pair P;
    P.pt = p;
    P.V = verts;
    P.nv = nv;
    P.sc = 0;
    P.m1 = P.m2 = 1;
    if (scaled) {
        double L = v3_maxabs(p);
        for (int i = 0; i < 3 * nv; i++)
            L = fmax(L, fabs(verts[i]));
        scale_factors(L, &P);
        v3_copy(P.pa, p);
        scale2(&P, P.pa);
    }
    double v0[3], m[3] = {0, 0, 0};
    if (nv <= 64) {
        for (int i = 0; i < nv; i++)
            v3_add(m, m, verts + 3 * i);
        v3_scale(m, m, 1.0 / nv);
    } else {
        v3_copy(m, verts);
    }
    if (scaled) {
        scale2(&P, m);
        v3_sub(v0, P.pa, m);
    } else {
        v3_sub(v0, p, m);
    }
    rve_gjk_status st = scaled ? gjk_loop(&P, support_ptpoly_scaled, vertex_ptpoly_scaled, 1, nv, v0, o, warm, out,
                                          -1.0)
                               : gjk_loop(&P, support_ptpoly, vertex_ptpoly, 1, nv, v0, o, warm, out, -1.0);
    *rescale = needs_rescale(&P, out);
    if (st == RVE_GJK_INTERSECT) {
        v3_copy(out->p, p);
        v3_copy(out->q, p);
        out->d = 0;
    } else if (st != RVE_GJK_DEGENERATE) {
        if (scaled) {
            out->d = ldexp(out->d, P.sc);
            for (int i = 0; i < 3; i++)
                out->q[i] = ldexp(out->q[i], P.sc);
            for (int k = 0; k < out->n; k++)
                for (int i = 0; i < 3; i++) {
                    out->a[k][i] = p[i];
                    out->b[k][i] = ldexp(out->b[k][i], P.sc);
                }
            if (isinf(out->d) && st == RVE_GJK_CONVERGED)
                out->status = st = RVE_GJK_RANGE;
        }
        v3_copy(out->p, p);
    }
    return out->d;
}

double rve_dist_point_polytope_opts(const double p[3], const double *verts, int nv, const rve_gjk_opts *opts,
                                    rve_gjk_simplex *warm, rve_dist_result *out)
{
    rve_dist_result tmp;
    rve_gjk_opts o;
    if (!out)
        out = &tmp;
    if (opts)
        o = *opts;
    else
        rve_gjk_opts_default(&o);
    if (nv < 1 || !verts || !isfinite(p[0] + p[1] + p[2])) {
        degenerate_result(out);
        return out->d;
    }
    rve_gjk_simplex w0;
    if (warm)
        w0 = *warm;
    int rescale;
    ptpoly_run(p, verts, nv, &o, 0, warm, out, &rescale);
    if (rescale) {
        int nex = out->exact;
        if (warm)
            *warm = w0;
        ptpoly_run(p, verts, nv, &o, 1, warm, out, &rescale);
        out->exact += nex;
    }
    return out->d;
}

double rve_dist_point_polytope(const double p[3], const double *verts, int nv, rve_gjk_simplex *warm,
                               rve_dist_result *out)
{
    return rve_dist_point_polytope_opts(p, verts, nv, NULL, warm, out);
}
