/* dist_oracle.h - independent brute-force distance oracles in long double
 * for the dist tests (closest features of convex hulls, built with qhull). */
#ifndef RVE_DIST_ORACLE_H
#define RVE_DIST_ORACLE_H

#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef long double ld;

static inline ld ld_dot(const ld a[3], const ld b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline void ld_sub(ld r[3], const ld a[3], const ld b[3])
{
    r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}
static inline void ld_from(ld r[3], const double a[3]) { r[0] = a[0]; r[1] = a[1]; r[2] = a[2]; }

/* Closest point of triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5). */
static inline void ld_closest_tri(const ld p[3], const ld a[3], const ld b[3], const ld c[3], ld out[3])
{
    ld ab[3], ac[3], ap[3], bp[3], cp[3];
    ld_sub(ab, b, a); ld_sub(ac, c, a); ld_sub(ap, p, a);
    ld d1 = ld_dot(ab, ap), d2 = ld_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) { memcpy(out, a, sizeof(ld) * 3); return; }
    ld_sub(bp, p, b);
    ld d3 = ld_dot(ab, bp), d4 = ld_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) { memcpy(out, b, sizeof(ld) * 3); return; }
    ld vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        ld v = d1 / (d1 - d3);
        for (int i = 0; i < 3; i++) out[i] = a[i] + v * ab[i];
        return;
    }
    ld_sub(cp, p, c);
    ld d5 = ld_dot(ab, cp), d6 = ld_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) { memcpy(out, c, sizeof(ld) * 3); return; }
    ld vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        ld w = d2 / (d2 - d6);
        for (int i = 0; i < 3; i++) out[i] = a[i] + w * ac[i];
        return;
    }
    ld va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        ld w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int i = 0; i < 3; i++) out[i] = b[i] + w * (c[i] - b[i]);
        return;
    }
    ld den = 1 / (va + vb + vc);
    ld v = vb * den, w = vc * den;
    if (!(v == v) || !(w == w) || !(va + vb + vc > 0)) { /* degenerate triangle: its edges */
        const ld *e0[3] = {a, b, c}, *e1[3] = {b, c, a};
        ld best = INFINITY;
        memcpy(out, a, sizeof(ld) * 3); /* a point of the triangle even if every distance is NaN */
        for (int e = 0; e < 3; e++) {
            ld d[3], r[3], x[3];
            ld_sub(d, e1[e], e0[e]);
            ld_sub(r, p, e0[e]);
            ld dd = ld_dot(d, d), t = dd > 0 ? ld_dot(r, d) / dd : 0;
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            for (int i = 0; i < 3; i++) x[i] = e0[e][i] + t * d[i];
            ld_sub(r, p, x);
            if (ld_dot(r, r) < best) { best = ld_dot(r, r); memcpy(out, x, sizeof x); }
        }
        return;
    }
    for (int i = 0; i < 3; i++) out[i] = a[i] + ab[i] * v + ac[i] * w;
}

static inline ld ld_clamp01(ld x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }

/* Squared distance between segments p1q1 and p2q2 (Ericson 5.1.9). */
static inline ld ld_seg_seg2(const ld p1[3], const ld q1[3], const ld p2[3], const ld q2[3])
{
    ld d1[3], d2[3], r[3];
    ld_sub(d1, q1, p1); ld_sub(d2, q2, p2); ld_sub(r, p1, p2);
    ld a = ld_dot(d1, d1), e = ld_dot(d2, d2), f = ld_dot(d2, r);
    ld s, t;
    if (a <= 0 && e <= 0) { s = t = 0; }
    else if (a <= 0) { s = 0; t = ld_clamp01(f / e); }
    else {
        ld c = ld_dot(d1, r);
        if (e <= 0) { t = 0; s = ld_clamp01(-c / a); }
        else {
            ld b = ld_dot(d1, d2), den = a * e - b * b;
            s = den > 0 ? ld_clamp01((b * f - c * e) / den) : 0;
            t = (b * s + f) / e;
            if (t < 0) { t = 0; s = ld_clamp01(-c / a); }
            else if (t > 1) { t = 1; s = ld_clamp01((b - c) / a); }
        }
    }
    ld x[3];
    for (int i = 0; i < 3; i++) x[i] = (p1[i] + d1[i] * s) - (p2[i] + d2[i] * t);
    return ld_dot(x, x);
}

/* Hull triangles (qhull Qt) of n points: returns the count, *tri gets 3 ints per triangle (malloc). */
static inline int oracle_hull(const double *v, int n, int **tri)
{
    *tri = NULL;
    if (n < 4)
        return 0;
    coordT *pts = malloc(sizeof(coordT) * 3 * (size_t)n);
    memcpy(pts, v, sizeof(double) * 3 * (size_t)n);
    FILE *dn = fopen("/dev/null", "w");
    qhT qh_qh, *qh = &qh_qh;
    qh_zero(qh, dn);
    char cmd[] = "qhull Qt";
    int code = qh_new_qhull(qh, 3, n, pts, False, cmd, NULL, dn);
    int nt = 0, cap = 0;
    int *t = NULL;
    if (code == 0) {
        facetT *facet;
        vertexT *vertex, **vertexp;
        FORALLfacets {
            int id[3], k = 0;
            FOREACHvertex_(facet->vertices) { if (k < 3) id[k] = qh_pointid(qh, vertex->point); k++; }
            if (k != 3) continue;
            if (nt == cap) { cap = cap ? 2 * cap : 256; t = realloc(t, sizeof(int) * 3 * (size_t)cap); }
            memcpy(t + 3 * nt, id, sizeof id);
            nt++;
        }
    }
    qh_freeqhull(qh, !qh_ALL);
    int cl, tl;
    qh_memfreeshort(qh, &cl, &tl);
    if (dn) fclose(dn);
    free(pts);
    *tri = t;
    return nt;
}

/* Squared distance and closest points between segments p1q1 and p2q2. */
static inline ld ld_seg_seg_pts(const ld p1[3], const ld q1[3], const ld p2[3], const ld q2[3], ld c1[3], ld c2[3])
{
    ld d1[3], d2[3], r[3];
    ld_sub(d1, q1, p1); ld_sub(d2, q2, p2); ld_sub(r, p1, p2);
    ld a = ld_dot(d1, d1), e = ld_dot(d2, d2), f = ld_dot(d2, r);
    ld s, t;
    if (a <= 0 && e <= 0) { s = t = 0; }
    else if (a <= 0) { s = 0; t = ld_clamp01(f / e); }
    else {
        ld c = ld_dot(d1, r);
        if (e <= 0) { t = 0; s = ld_clamp01(-c / a); }
        else {
            ld b = ld_dot(d1, d2), den = a * e - b * b;
            s = den > 0 ? ld_clamp01((b * f - c * e) / den) : 0;
            t = (b * s + f) / e;
            if (t < 0) { t = 0; s = ld_clamp01(-c / a); }
            else if (t > 1) { t = 1; s = ld_clamp01((b - c) / a); }
        }
    }
    ld x[3];
    for (int i = 0; i < 3; i++) {
        c1[i] = p1[i] + d1[i] * s;
        c2[i] = p2[i] + d2[i] * t;
        x[i] = c1[i] - c2[i];
    }
    return ld_dot(x, x);
}

/* A point set prepared for the oracle: hull triangles (qhull) or, for flat
 * and tiny sets (nt == 0), every triple of points. */
typedef struct {
    const double *v;
    int n;
    int *tri;
    int nt;
    double *tc; /* triangle bounding spheres: centre + radius (4 per triangle) */
} oracle_set;

static inline void oracle_set_init(oracle_set *o, const double *v, int n)
{
    o->v = v;
    o->n = n;
    o->nt = oracle_hull(v, n, &o->tri);
    if (o->nt == 0) { /* all triples (n small) */
        int cap = n * (n - 1) * (n - 2) / 6 + 1;
        o->tri = malloc(sizeof(int) * 3 * (size_t)cap);
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                for (int k = j + 1; k < n; k++) {
                    o->tri[3 * o->nt] = i; o->tri[3 * o->nt + 1] = j; o->tri[3 * o->nt + 2] = k;
                    o->nt++;
                }
        if (n < 3) { /* points and a segment: degenerate triangles */
            o->tri[0] = 0; o->tri[1] = n - 1; o->tri[2] = n - 1;
            o->nt = 1;
        }
    }
    o->tc = malloc(sizeof(double) * 4 * (size_t)o->nt);
    for (int k = 0; k < o->nt; k++) {
        const double *a = v + 3 * o->tri[3 * k], *b = v + 3 * o->tri[3 * k + 1], *c = v + 3 * o->tri[3 * k + 2];
        double m[3], r = 0;
        for (int i = 0; i < 3; i++) m[i] = (a[i] + b[i] + c[i]) / 3;
        const double *pp[3] = {a, b, c};
        for (int j = 0; j < 3; j++) {
            double d = sqrt((pp[j][0] - m[0]) * (pp[j][0] - m[0]) + (pp[j][1] - m[1]) * (pp[j][1] - m[1]) +
                            (pp[j][2] - m[2]) * (pp[j][2] - m[2]));
            if (d > r) r = d;
        }
        memcpy(o->tc + 4 * k, m, sizeof m);
        o->tc[4 * k + 3] = r * (1 + 1e-9);
    }
}

static inline void oracle_set_free(oracle_set *o)
{
    free(o->tri);
    free(o->tc);
}

/* Distance from p to the boundary of the set (exact distance to the hull
 * when p is outside); q gets the closest point. best2 prunes (squared). */
static inline ld oracle_point_set(const double p[3], const oracle_set *o, ld q[3], ld best2)
{
    ld P[3];
    ld_from(P, p);
    double bd = best2 < (ld)INFINITY ? sqrt((double)best2) * (1 + 1e-9) : INFINITY;
    for (int k = 0; k < o->nt; k++) {
        const double *m = o->tc + 4 * k;
        double dm = sqrt((p[0] - m[0]) * (p[0] - m[0]) + (p[1] - m[1]) * (p[1] - m[1]) + (p[2] - m[2]) * (p[2] - m[2]));
        if (dm - m[3] > bd)
            continue;
        ld a[3], b[3], c[3], x[3], d[3];
        ld_from(a, o->v + 3 * o->tri[3 * k]); ld_from(b, o->v + 3 * o->tri[3 * k + 1]);
        ld_from(c, o->v + 3 * o->tri[3 * k + 2]);
        ld_closest_tri(P, a, b, c, x);
        ld_sub(d, P, x);
        ld t = ld_dot(d, d);
        if (t < best2) {
            best2 = t;
            memcpy(q, x, sizeof x);
            bd = sqrt((double)t) * (1 + 1e-9);
        }
    }
    return best2;
}

/* Distance between two separated sets: vertex-face both ways and edge-edge;
 * pa, pb get the witness points. */
static inline ld oracle_set_set(const oracle_set *A, const oracle_set *B, ld pa[3], ld pb[3])
{
    ld best2 = INFINITY, q[3];
    for (int i = 0; i < A->n; i++) {
        ld t = oracle_point_set(A->v + 3 * i, B, q, best2);
        if (t < best2) { best2 = t; ld_from(pa, A->v + 3 * i); memcpy(pb, q, sizeof q); }
    }
    for (int i = 0; i < B->n; i++) {
        ld t = oracle_point_set(B->v + 3 * i, A, q, best2);
        if (t < best2) { best2 = t; ld_from(pb, B->v + 3 * i); memcpy(pa, q, sizeof q); }
    }
    double bd = sqrt((double)best2) * (1 + 1e-9);
    for (int ka = 0; ka < A->nt; ka++) {
        const double *ma = A->tc + 4 * ka;
        for (int kb = 0; kb < B->nt; kb++) {
            const double *mb = B->tc + 4 * kb;
            double dm = sqrt((ma[0] - mb[0]) * (ma[0] - mb[0]) + (ma[1] - mb[1]) * (ma[1] - mb[1]) +
                             (ma[2] - mb[2]) * (ma[2] - mb[2]));
            if (dm - ma[3] - mb[3] > bd)
                continue;
            for (int ea = 0; ea < 3; ea++)
                for (int eb = 0; eb < 3; eb++) {
                    ld A0[3], A1[3], B0[3], B1[3], c1[3], c2[3];
                    ld_from(A0, A->v + 3 * A->tri[3 * ka + ea]); ld_from(A1, A->v + 3 * A->tri[3 * ka + (ea + 1) % 3]);
                    ld_from(B0, B->v + 3 * B->tri[3 * kb + eb]); ld_from(B1, B->v + 3 * B->tri[3 * kb + (eb + 1) % 3]);
                    ld t = ld_seg_seg_pts(A0, A1, B0, B1, c1, c2);
                    if (t < best2) {
                        best2 = t;
                        memcpy(pa, c1, sizeof c1);
                        memcpy(pb, c2, sizeof c2);
                        bd = sqrt((double)t) * (1 + 1e-9);
                    }
                }
        }
    }
    return sqrtl(best2);
}

/* Distance from p to the hull given by triangles (boundary distance; the
 * caller knows p is outside). */
static inline ld oracle_point_hull(const double p[3], const double *v, const int *tri, int nt, int n)
{
    ld P[3], best = INFINITY;
    ld_from(P, p);
    (void)n;
    for (int k = 0; k < nt; k++) {
        ld a[3], b[3], c[3], q[3], d[3];
        ld_from(a, v + 3 * tri[3 * k]); ld_from(b, v + 3 * tri[3 * k + 1]); ld_from(c, v + 3 * tri[3 * k + 2]);
        ld_closest_tri(P, a, b, c, q);
        ld_sub(d, P, q);
        ld x = ld_dot(d, d);
        if (x < best) best = x;
    }
    return sqrtl(best);
}

/* Separating-axis test in long double: 1 when some face normal or edge-edge
 * cross product separates the two sets with a positive gap, else 0 (they
 * overlap or touch).  Cost O((edges_A * edges_B) * (nA + nB)): small sets. */
static inline int oracle_sat_separated(const oracle_set *A, const oracle_set *B)
{
    const oracle_set *S[2] = {A, B};
    int ncand = 0;
    /* candidate axes */
    int cap = A->nt + B->nt + 9 * A->nt * B->nt + 8;
    ld (*ax)[3] = malloc(sizeof(ld) * 3 * (size_t)cap);
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < S[s]->nt; k++) {
            ld a[3], b[3], c[3], e1[3], e2[3];
            ld_from(a, S[s]->v + 3 * S[s]->tri[3 * k]); ld_from(b, S[s]->v + 3 * S[s]->tri[3 * k + 1]);
            ld_from(c, S[s]->v + 3 * S[s]->tri[3 * k + 2]);
            ld_sub(e1, b, a); ld_sub(e2, c, a);
            ax[ncand][0] = e1[1] * e2[2] - e1[2] * e2[1];
            ax[ncand][1] = e1[2] * e2[0] - e1[0] * e2[2];
            ax[ncand][2] = e1[0] * e2[1] - e1[1] * e2[0];
            ncand++;
        }
    for (int ka = 0; ka < A->nt; ka++)
        for (int ea = 0; ea < 3; ea++) {
            ld a0[3], a1[3], da[3];
            ld_from(a0, A->v + 3 * A->tri[3 * ka + ea]); ld_from(a1, A->v + 3 * A->tri[3 * ka + (ea + 1) % 3]);
            ld_sub(da, a1, a0);
            for (int kb = 0; kb < B->nt; kb++)
                for (int eb = 0; eb < 3; eb++) {
                    ld b0[3], b1[3], db[3];
                    ld_from(b0, B->v + 3 * B->tri[3 * kb + eb]); ld_from(b1, B->v + 3 * B->tri[3 * kb + (eb + 1) % 3]);
                    ld_sub(db, b1, b0);
                    ax[ncand][0] = da[1] * db[2] - da[2] * db[1];
                    ax[ncand][1] = da[2] * db[0] - da[0] * db[2];
                    ax[ncand][2] = da[0] * db[1] - da[1] * db[0];
                    ncand++;
                }
        }
    /* axes along the edges themselves and the coordinate axes (flat/degenerate sets) */
    for (int i = 0; i < 3; i++) {
        ax[ncand][0] = i == 0; ax[ncand][1] = i == 1; ax[ncand][2] = i == 2;
        ncand++;
    }
    int sep = 0;
    for (int c = 0; c < ncand && !sep; c++) {
        ld n2 = ld_dot(ax[c], ax[c]);
        if (!(n2 > 0))
            continue;
        ld lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < S[s]->n; i++) {
                ld x[3];
                ld_from(x, S[s]->v + 3 * i);
                ld t = ld_dot(x, ax[c]);
                if (t < lo[s]) lo[s] = t;
                if (t > hi[s]) hi[s] = t;
            }
        ld gap = fmaxl(lo[1] - hi[0], lo[0] - hi[1]);
        if (gap > 0)
            sep = 1;
    }
    free(ax);
    return sep;
}

#endif
