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

/* 1-simplex {y[i1], y[i2]}; with tail, i1 is the newest vertex and only the
 * regions (1,2) and (1) are searched. */
static void S1D(const double y[][3], int i1, int i2, int tail, sv_res *r)
{
    const double *s1 = y[i1], *s2 = y[i2];
    double t[3];
    v3_sub(t, s2, s1);
    /* projection of the origin onto the line (Eq. 3.8, sign corrected) */
    double po[3];
    v3_axpy(po, s1, -v3_dot(s1, t) / v3_dot(t, t), t);
    /* safest axis: largest extent of the segment */
    int I = 0;
    double at = fabs(t[0]);
    if (fabs(t[1]) > at) { I = 1; at = fabs(t[1]); }
    if (fabs(t[2]) > at) I = 2;
    double mu = s1[I] - s2[I];
    double C1 = po[I] - s2[I]; /* fictitious simplex {po, s2} */
    double C2 = s1[I] - po[I]; /* fictitious simplex {s1, po} */
    int k1 = same_sign(mu, C1), k2 = same_sign(mu, C2);
    if (k1 && k2) {
        r->n = 2;
        r->idx[0] = i1;
        r->idx[1] = i2;
        r->lam[0] = C1 / mu;
        r->lam[1] = C2 / mu;
        sv_finish(y, r);
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
    /* both undecided (degenerate): the nearer vertex */
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

/* 2-simplex {y[i1], y[i2], y[i3]}; with tail, i1 is the newest vertex. */
static void S2D(const double y[][3], int i1, int i2, int i3, int tail, sv_res *r)
{
    const double *s1 = y[i1], *s2 = y[i2], *s3 = y[i3];
    double e1[3], e2[3], n[3];
    v3_sub(e1, s2, s1);
    v3_sub(e2, s3, s1);
    v3_cross(n, e1, e2);
    double po[3];
    v3_scale(po, n, v3_dot(s1, n) / v3_dot(n, n)); /* Eq. 3.7: NaN for a needle */
    /* safest plane: largest projected area (drop coordinate J) */
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
    double C1 = a2k * a3l - a2l * a3k; /* (po, s2, s3) */
    double C2 = a3k * a1l - a3l * a1k; /* (s1, po, s3) */
    double C3 = a1k * a2l - a1l * a2k; /* (s1, s2, po) */
    int k1 = same_sign(mu, C1), k2 = same_sign(mu, C2), k3 = same_sign(mu, C3);
    if (k1 && k2 && k3) {
        r->n = 3;
        r->idx[0] = i1;
        r->idx[1] = i2;
        r->idx[2] = i3;
        r->lam[0] = C1 / mu;
        r->lam[1] = C2 / mu;
        r->lam[2] = C3 / mu;
        sv_finish(y, r);
        return;
    }
    sv_res best = {0}, c;
    best.n = 0;
    best.vv = 0;
    int searched = 0;
    if (!k2) { /* s2 not supporting: edge (1,3) */
        S1D(y, i1, i3, tail, &c);
        keep_best(&best, &c);
        searched++;
    }
    if (!k3) { /* edge (1,2) */
        S1D(y, i1, i2, tail, &c);
        keep_best(&best, &c);
        searched++;
    }
    if (!tail && !k1) { /* edge (2,3) */
        S1D(y, i2, i3, 0, &c);
        keep_best(&best, &c);
        searched++;
    }
    if (!searched) { /* only the newest vertex was doubtful: search its edges */
        S1D(y, i1, i2, tail, &c);
        keep_best(&best, &c);
        S1D(y, i1, i3, tail, &c);
        keep_best(&best, &c);
    }
    sv_copy(r, &best);
}


/* 3-simplex; with tail, i1 is the newest vertex. */
static void S3D(const double y[][3], int i1, int i2, int i3, int i4, int tail, sv_res *r)
{
    const double *s1 = y[i1], *s2 = y[i2], *s3 = y[i3], *s4 = y[i4];
    /* cofactors C_{4,j} of M (Eq. 3.5-3.6): volume forms of the fictitious simplices
     * (the origin replaces s_j), and det M.  Each is evaluated from edge vectors
     * of the simplex, so that a small simplex far from the origin keeps the
     * sign of its (tiny) volume instead of the cancellation of sum_j C_{4,j}. */
    double e21[3], e31[3], e41[3], e32[3], e42[3], x[3];
    v3_sub(e21, s2, s1);
    v3_sub(e31, s3, s1);
    v3_sub(e41, s4, s1);
    v3_sub(e32, s3, s2);
    v3_sub(e42, s4, s2);
    v3_cross(x, e32, e42);
    double C1 = v3_dot(s2, x);
    v3_cross(x, e31, e41);
    double C2 = -v3_dot(s1, x);
    double D = v3_dot(e21, x);
    v3_cross(x, e41, e21);
    double C3 = -v3_dot(s1, x);
    v3_cross(x, e21, e31);
    double C4 = -v3_dot(s1, x);
    int k1 = same_sign(D, C1), k2 = same_sign(D, C2), k3 = same_sign(D, C3), k4 = same_sign(D, C4);
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
        sv_finish(y, r);
        return;
    }
    sv_res best = {0}, c;
    best.n = 0;
    best.vv = 0;
    int searched = 0;
    if (!k2) { S2D(y, i1, i3, i4, tail, &c); keep_best(&best, &c); searched++; }
    if (!k3) { S2D(y, i1, i2, i4, tail, &c); keep_best(&best, &c); searched++; }
    if (!k4) { S2D(y, i1, i2, i3, tail, &c); keep_best(&best, &c); searched++; }
    if (!tail && !k1) { S2D(y, i2, i3, i4, 0, &c); keep_best(&best, &c); searched++; }
    if (!searched) {
        S2D(y, i1, i3, i4, tail, &c); keep_best(&best, &c);
        S2D(y, i1, i2, i4, tail, &c); keep_best(&best, &c);
        S2D(y, i1, i2, i3, tail, &c); keep_best(&best, &c);
    }
    sv_copy(r, &best);
}

/* Signed Volumes on y[0..n-1] with newest vertex `newest` (or -1). */
static inline void sv_run(const double y[][3], int n, int newest, sv_res *r)
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
    case 2: S1D(y, o[0], o[1], tail, r); break;
    case 3: S2D(y, o[0], o[1], o[2], tail, r); break;
    default: S3D(y, o[0], o[1], o[2], o[3], tail, r); break;
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
        sv_run(y, n, newest, &r);
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
    }
    return "unknown";
}

#define GJK_DEFAULT_MAX_ITER 1000
#define GJK_DEFAULT_EPS_REL (4 * DBL_EPSILON)
#define GJK_DEFAULT_EPS_ABS (4 * DBL_EPSILON)

void rve_gjk_opts_default(rve_gjk_opts *o)
{
    o->sub = RVE_SUB_SV;
    o->max_iter = GJK_DEFAULT_MAX_ITER;
    o->eps_rel = GJK_DEFAULT_EPS_REL;
    o->eps_abs = GJK_DEFAULT_EPS_ABS;
}

void rve_gjk_simplex_init(rve_gjk_simplex *w) { memset(w, 0, sizeof *w); }

/* What the GJK loop needs from a pair of bodies. */
typedef struct {
    const rve_shape *A, *B;
    dist_frame fa, fb;
    int hintA, hintB;
    /* point-vs-polytope fast path */
    const double *pt;
    const double *V;
    int nv;
} gjk_pair;

typedef void (*gjk_support_fn)(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib);
typedef void (*gjk_vertex_fn)(const gjk_pair *P, int ia, int ib, double a[3], double b[3]);

/* a = s_A(-v), b = s_B(v) */
DIST_INLINE void support_generic(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    double mv[3] = {-v[0], -v[1], -v[2]};
    dist_support_world(P->A, &P->fa, mv, a, &P->hintA);
    *ia = P->hintA;
    dist_support_world(P->B, &P->fb, v, b, &P->hintB);
    *ib = P->hintB;
}

static void vertex_generic(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
{
    double t[3];
    dist_vertex_body(P->A, ia, t);
    dist_to_world(P->A, &P->fa, t, a);
    dist_vertex_body(P->B, ib, t);
    dist_to_world(P->B, &P->fb, t, b);
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
static inline void simplex_solve(const gjk_simplex *S, int newest, int johnson, sv_res *r)
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
    case 2: S1D(y, o[0], o[1], tail, r); break;
    case 3: S2D(y, o[0], o[1], o[2], tail, r); break;
    default: S3D(y, o[0], o[1], o[2], o[3], tail, r); break;
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

DIST_INLINE rve_gjk_status gjk_loop(gjk_pair *P, gjk_support_fn support, gjk_vertex_fn vertex, int nva,
                                     int nvb, const double v0[3], const rve_gjk_opts *o,
                                     rve_gjk_simplex *warm, rve_dist_result *out, double bool_margin)
{
    const int johnson = o->sub == RVE_SUB_JOHNSON;
    const int maxit = o->max_iter > 0 ? o->max_iter : GJK_DEFAULT_MAX_ITER;
    const double eps_rel = o->eps_rel > 0 ? o->eps_rel : GJK_DEFAULT_EPS_REL;
    const double eps_abs = o->eps_abs > 0 ? o->eps_abs : GJK_DEFAULT_EPS_ABS;
    const double eps_abs2 = eps_abs * eps_abs;
    gjk_simplex S;
    sv_res r;
    double v[3], vv = INFINITY;
    rve_gjk_status status = RVE_GJK_CAP;
    int it = 0;
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
        simplex_solve(&S, -1, johnson, &r);
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
                out->status = RVE_GJK_CONVERGED;
                out->d = INFINITY;
                out->n = 0;
                return RVE_GJK_CONVERGED;
            }
        }
        if (S.n > 0) {
            /* relative test (Algorithm 5, line 8): w is no closer than v */
            if (vv - v3_dot(v, w) <= eps_rel * vv) {
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
        simplex_solve(&S, k, johnson, &r);
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
    out->iterations = it;
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
            out->d = v3_dist(p, q);
        }
        v3_copy(out->p, p);
        v3_copy(out->q, q);
    }
    if (!isfinite(out->d) || !isfinite(out->p[0] + out->p[1] + out->p[2] + out->q[0] + out->q[1] + out->q[2])) {
        status = RVE_GJK_DEGENERATE;
        out->d = NAN;
    }
    out->status = status;
    if (warm) {
        int keep = S.n > 0 && status != RVE_GJK_DEGENERATE;
        for (int i = 0; i < S.n && keep; i++)
            if (SIA(S, i) < 0 || SIB(S, i) < 0)
                keep = 0;
        warm->n = keep ? S.n : 0;
        for (int i = 0; i < 4; i++) {
            warm->ia[i] = i < S.n ? SIA(S, i) : -1;
            warm->ib[i] = i < S.n ? SIB(S, i) : -1;
        }
        if (status == RVE_GJK_CONVERGED || status == RVE_GJK_CAP)
            v3_copy(warm->v, v);
    }
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

static void shape_centre(const rve_shape *s, const dist_frame *f, double c[3])
{
    double b[3];
    if (s->kind == RVE_SHAPE_POLYTOPE)
        v3_copy(b, s->verts);
    else if (s->kind <= RVE_SHAPE_SPHERE)
        v3_copy(b, s->v[0]);
    else
        v3_set(b, 0, 0, 0);
    dist_to_world(s, f, b, c);
}

static void pair_init(gjk_pair *P, const rve_shape *A, const rve_shape *B, double v0[3])
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
    double ca[3], cb[3];
    shape_centre(A, &P->fa, ca);
    shape_centre(B, &P->fb, cb);
    v3_sub(v0, ca, cb);
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
    pair_init(&P, A, B, v0);
    rve_gjk_status st = gjk_loop(&P, support_generic, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0,
                                 &o, warm, out, -1.0);
    double ra = A->radius, rb = B->radius;
    if (st != RVE_GJK_DEGENERATE && (ra > 0 || rb > 0)) {
        /* rounded shapes: distance of the cores minus the radii */
        if (st == RVE_GJK_INTERSECT || !(out->d > 0)) {
            out->d = 0;
            out->status = st = RVE_GJK_INTERSECT;
        } else {
            double dc = out->d, u[3];
            v3_sub(u, out->q, out->p);
            v3_scale(u, u, 1.0 / dc);
            if (dc > ra + rb) {
                v3_axpy(out->p, out->p, ra, u);
                v3_axpy(out->q, out->q, -rb, u);
                out->d = dc - ra - rb;
            } else {
                v3_axpy(out->p, out->p, dc * (ra / (ra + rb)), u);
                v3_copy(out->q, out->p);
                out->d = 0;
                out->status = st = RVE_GJK_INTERSECT;
            }
        }
    }
    return st;
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
    pair_init(&P, A, B, v0);
    double margin = A->radius + B->radius;
    rve_gjk_status st = gjk_loop(&P, support_generic, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0,
                                 &o, warm, &out, margin);
    if (st == RVE_GJK_DEGENERATE)
        return -1;
    if (st == RVE_GJK_INTERSECT)
        return 1;
    return out.d <= margin;
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
    gjk_pair P;
    P.pt = p;
    P.V = verts;
    P.nv = nv;
    double v0[3], m[3] = {0, 0, 0};
    if (nv <= 64) {
        for (int i = 0; i < nv; i++)
            v3_add(m, m, verts + 3 * i);
        v3_scale(m, m, 1.0 / nv);
    } else {
        v3_copy(m, verts);
    }
    v3_sub(v0, p, m);
    rve_gjk_status st = gjk_loop(&P, support_ptpoly, vertex_ptpoly, 1, nv, v0, &o, warm, out, -1.0);
    if (st == RVE_GJK_INTERSECT) {
        v3_copy(out->p, p);
        v3_copy(out->q, p);
    } else if (st != RVE_GJK_DEGENERATE) {
        v3_copy(out->p, p);
        out->d = v3_dist(out->p, out->q);
    }
    return out->d;
}

double rve_dist_point_polytope(const double p[3], const double *verts, int nv, rve_gjk_simplex *warm,
                               rve_dist_result *out)
{
    return rve_dist_point_polytope_opts(p, verts, nv, NULL, warm, out);
}
