/* pack_dist_oracle.h - an independent distance oracle for convex
 * polytopes (tests/test_pack_grains.c, bench/bench_pack.c --oracle): brute
 * force over the features in long double, no code of the library. */
#ifndef RVE_TEST_PACK_DIST_ORACLE_H
#define RVE_TEST_PACK_DIST_ORACLE_H
#include <math.h>
#include <stddef.h>

typedef long double ld3[3];

static inline long double ld_dot(const ld3 a, const ld3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Closest point of triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5). */
static inline void ld_closest_tri(const ld3 p, const ld3 a, const ld3 b, const ld3 c, ld3 out)
{
    ld3 ab, ac, ap, bp, cp;
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k];
        bp[k] = p[k] - b[k];
        cp[k] = p[k] - c[k];
    }
    long double d1 = ld_dot(ab, ap), d2 = ld_dot(ac, ap), d3 = ld_dot(ab, bp), d4 = ld_dot(ac, bp);
    long double d5 = ld_dot(ab, cp), d6 = ld_dot(ac, cp);
    long double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    long double v, w;
    if (d1 <= 0 && d2 <= 0) { v = 0; w = 0; }
    else if (d3 >= 0 && d4 <= d3) { v = 1; w = 0; }
    else if (vc <= 0 && d1 >= 0 && d3 <= 0) { v = d1 / (d1 - d3); w = 0; }
    else if (d6 >= 0 && d5 <= d6) { v = 0; w = 1; }
    else if (vb <= 0 && d2 >= 0 && d6 <= 0) { v = 0; w = d2 / (d2 - d6); }
    else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        v = 1 - w;
    } else {
        long double den = va + vb + vc;
        v = vb / den;
        w = vc / den;
    }
    for (int k = 0; k < 3; k++)
        out[k] = a[k] + v * ab[k] + w * ac[k];
}

/* Closest points of segments p1q1 and p2q2 (Ericson 5.1.9). */
static inline void ld_closest_seg(const ld3 p1, const ld3 q1, const ld3 p2, const ld3 q2, ld3 c1, ld3 c2)
{
    ld3 d1, d2, r;
    for (int k = 0; k < 3; k++) {
        d1[k] = q1[k] - p1[k];
        d2[k] = q2[k] - p2[k];
        r[k] = p1[k] - p2[k];
    }
    long double a = ld_dot(d1, d1), e = ld_dot(d2, d2), f = ld_dot(d2, r), s, t;
    if (a <= 1e-30L && e <= 1e-30L) { s = t = 0; }
    else if (a <= 1e-30L) { s = 0; t = fminl(fmaxl(f / e, 0), 1); }
    else {
        long double c = ld_dot(d1, r);
        if (e <= 1e-30L) { t = 0; s = fminl(fmaxl(-c / a, 0), 1); }
        else {
            long double b = ld_dot(d1, d2), den = a * e - b * b;
            s = den > 0 ? fminl(fmaxl((b * f - c * e) / den, 0), 1) : 0;
            t = (b * s + f) / e;
            if (t < 0) { t = 0; s = fminl(fmaxl(-c / a, 0), 1); }
            else if (t > 1) { t = 1; s = fminl(fmaxl((b - c) / a, 0), 1); }
        }
    }
    for (int k = 0; k < 3; k++) {
        c1[k] = p1[k] + s * d1[k];
        c2[k] = p2[k] + t * d2[k];
    }
}

static inline void ld_load(const double *v, int i, const double t[3], ld3 o)
{
    for (int k = 0; k < 3; k++)
        o[k] = (long double)v[3 * i + k] + (t ? t[k] : 0);
}

/* Distance of two convex polytopes (B shifted by t), witnesses p on A, q
 * on B, by brute force over features: every vertex of one against every
 * triangle of the other (ta, tb: vertex triples covering the faces), every
 * segment of A against every segment of B (ea, eb: vertex pairs including
 * the edges).  Covering sets larger than the faces and edges (diagonals,
 * inner triangles) do no harm: they lie inside the hulls. */
static inline long double ld_poly_dist(const double *va, const int *ta, int nta, const int *ea, int nea,
                                       const double *vb, const int *tb, int ntb, const int *eb, int neb, int na,
                                       int nb, const double t[3], ld3 p, ld3 q)
{
    long double best = INFINITY;
    ld3 x, a, b, c, y, z;
    for (int side = 0; side < 2; side++) {
        const double *vp = side ? vb : va, *vt = side ? va : vb;
        const double *tp = side ? t : NULL, *tt = side ? NULL : t;
        const int *tri = side ? ta : tb;
        int np = side ? nb : na, nt = side ? nta : ntb;
        for (int i = 0; i < np; i++) {
            ld_load(vp, i, tp, x);
            for (int f = 0; f < nt; f++) {
                ld_load(vt, tri[3 * f], tt, a);
                ld_load(vt, tri[3 * f + 1], tt, b);
                ld_load(vt, tri[3 * f + 2], tt, c);
                ld_closest_tri(x, a, b, c, y);
                long double d2 = 0;
                for (int m = 0; m < 3; m++)
                    d2 += (x[m] - y[m]) * (x[m] - y[m]);
                if (d2 < best) {
                    best = d2;
                    for (int m = 0; m < 3; m++) {
                        p[m] = side ? y[m] : x[m];
                        q[m] = side ? x[m] : y[m];
                    }
                }
            }
        }
    }
    for (int i = 0; i < nea; i++)
        for (int k = 0; k < neb; k++) {
            ld_load(va, ea[2 * i], NULL, a);
            ld_load(va, ea[2 * i + 1], NULL, b);
            ld_load(vb, eb[2 * k], t, c);
            ld_load(vb, eb[2 * k + 1], t, x);
            ld_closest_seg(a, b, c, x, y, z);
            long double d2 = 0;
            for (int m = 0; m < 3; m++)
                d2 += (y[m] - z[m]) * (y[m] - z[m]);
            if (d2 < best) {
                best = d2;
                for (int m = 0; m < 3; m++) {
                    p[m] = y[m];
                    q[m] = z[m];
                }
            }
        }
    return sqrtl(best);
}

#endif
