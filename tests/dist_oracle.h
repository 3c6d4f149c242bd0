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
    if (!(v == v) || !(w == w)) { /* degenerate triangle: fall back to its edges */
        memcpy(out, a, sizeof(ld) * 3);
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

/* Distance from p to the hull given by triangles (boundary distance; the
 * caller knows p is outside). */
static inline ld oracle_point_hull(const double p[3], const double *v, const int *tri, int nt, int n)
{
    ld P[3], best = INFINITY;
    ld_from(P, p);
    if (nt == 0) { /* no 3-D hull: all vertices (points), edges and triangles */
        for (int i = 0; i < n; i++) {
            ld a[3], d[3];
            ld_from(a, v + 3 * i);
            ld_sub(d, P, a);
            ld x = ld_dot(d, d);
            if (x < best) best = x;
            for (int j = i + 1; j < n; j++) {
                ld b[3];
                ld_from(b, v + 3 * j);
                ld s = ld_seg_seg2(P, P, a, b);
                if (s < best) best = s;
            }
        }
        return sqrtl(best);
    }
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

/* Distance between two separated hulls: vertex-face both ways and edge-edge. */
static inline ld oracle_hull_hull(const double *va, int na, const int *ta, int nta, const double *vb, int nb,
                                  const int *tb, int ntb)
{
    ld best = INFINITY;
    for (int i = 0; i < na; i++) {
        ld x = oracle_point_hull(va + 3 * i, vb, tb, ntb, nb);
        if (x < best) best = x;
    }
    for (int i = 0; i < nb; i++) {
        ld x = oracle_point_hull(vb + 3 * i, va, ta, nta, na);
        if (x < best) best = x;
    }
    /* edges of triangles (each edge visited twice; prune by bounding spheres) */
    double slack = (double)best * (1 + 1e-6) + 1e-300;
    for (int ka = 0; ka < nta; ka++)
        for (int ea = 0; ea < 3; ea++) {
            const double *a0 = va + 3 * ta[3 * ka + ea], *a1 = va + 3 * ta[3 * ka + (ea + 1) % 3];
            double ma[3] = {(a0[0] + a1[0]) / 2, (a0[1] + a1[1]) / 2, (a0[2] + a1[2]) / 2};
            double ra = sqrt((a1[0] - a0[0]) * (a1[0] - a0[0]) + (a1[1] - a0[1]) * (a1[1] - a0[1]) +
                             (a1[2] - a0[2]) * (a1[2] - a0[2])) / 2;
            for (int kb = 0; kb < ntb; kb++)
                for (int eb = 0; eb < 3; eb++) {
                    const double *b0 = vb + 3 * tb[3 * kb + eb], *b1 = vb + 3 * tb[3 * kb + (eb + 1) % 3];
                    double mb[3] = {(b0[0] + b1[0]) / 2, (b0[1] + b1[1]) / 2, (b0[2] + b1[2]) / 2};
                    double rb = sqrt((b1[0] - b0[0]) * (b1[0] - b0[0]) + (b1[1] - b0[1]) * (b1[1] - b0[1]) +
                                     (b1[2] - b0[2]) * (b1[2] - b0[2])) / 2;
                    double dm = sqrt((ma[0] - mb[0]) * (ma[0] - mb[0]) + (ma[1] - mb[1]) * (ma[1] - mb[1]) +
                                     (ma[2] - mb[2]) * (ma[2] - mb[2]));
                    if (dm - ra - rb > slack * (1 + 1e-9) + 1e-12 * (ra + rb))
                        continue;
                    ld A0[3], A1[3], B0[3], B1[3];
                    ld_from(A0, a0); ld_from(A1, a1); ld_from(B0, b0); ld_from(B1, b1);
                    ld x = sqrtl(ld_seg_seg2(A0, A1, B0, B1));
                    if (x < best) { best = x; slack = (double)best; }
                }
        }
    return best;
}

#endif
