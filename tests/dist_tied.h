/* dist_tied.h - the near-tied faces family of issue 17 (tests/test_dist_tied.c,
 * bench/bench_dist_stress): flat bodies whose top faces are coplanar to
 * within rounding, with a point just above (or below) a shared edge or
 * vertex of those faces, so that two or more faces' |v|^2 tie within the
 * rounding of GJK's support points (the case of stress query 1060051, where
 * GJK stopped on "no progress" on the worse of two nearly tied faces).
 *
 * Two shapes, drawn in a local frame of size 1 (the disc of radius 1):
 *  - a flat tetrahedron: a base triangle at z = 0 and an apex at z = t
 *    (t = 1e-12..1e-6) over an interior point; its three top faces meet at
 *    the apex with dihedral angles within t of flat;
 *  - a near-coplanar cap: 4-8 top vertices at z = t + delta_i with
 *    |delta_i| <= 16 eps x 10^[-2,2] (coplanar to rounding) over 3-4 base
 *    vertices at z = 0 (12 vertices at most);
 * and a point over a top vertex, or over a point of a segment between two
 * top vertices, at height h = +-1e-15..1e-9 above the interpolated top (40 %
 * below it, inside or through a body thinner than |h|), jittered sideways by
 * 1e-15..1e-9.  The body is rotated, placed 0 or 1..1e4 sizes from the
 * origin, and half the queries are multiplied by 10^k, k in -300..300.
 * The oracle and the check are those of dist_flat.h (binary128 in a frame at
 * one input vertex; witness on the body). */
#ifndef RVE_DIST_TIED_H
#define RVE_DIST_TIED_H

#include "dist_flat.h"

static inline void tied_draw(flat_query *Q)
{
    Q->posed = 0;
    Q->box = 0;
    double v[3 * FLAT_MAXV];
    int ntop, n;
    double t = pow(10, -12 + 6 * urand());
    int top0; /* index of the first top vertex */
    if (urand() < 0.5) {
        /* flat tetrahedron: base triangle, apex over an interior point */
        for (int i = 0; i < 3; i++) {
            double ph = 6.283185307179586 * (i + 0.3 * (urand() - 0.5)) / 3;
            v[3 * i] = cos(ph);
            v[3 * i + 1] = sin(ph);
            v[3 * i + 2] = 0;
        }
        double w0 = 0.1 + urand(), w1 = 0.1 + urand(), w2 = 0.1 + urand(), ws = w0 + w1 + w2;
        for (int k = 0; k < 2; k++)
            v[9 + k] = (w0 * v[k] + w1 * v[3 + k] + w2 * v[6 + k]) / ws;
        v[11] = t;
        n = 4;
        top0 = 0; /* the top surface: the apex and the base vertices */
        ntop = 4;
    } else {
        int nb = 3 + (int)(urand() * 2);
        ntop = 4 + (int)(urand() * 5);
        n = nb + ntop;
        for (int i = 0; i < nb; i++) {
            double ph = 6.283185307179586 * (i + 0.3 * (urand() - 0.5)) / nb;
            v[3 * i] = cos(ph);
            v[3 * i + 1] = sin(ph);
            v[3 * i + 2] = 0;
        }
        double ds = 16 * DBL_EPSILON * pow(10, -2 + 4 * urand());
        for (int i = nb; i < n; i++) {
            double r = 0.8 * sqrt(urand()), ph = 6.283185307179586 * urand();
            v[3 * i] = r * cos(ph);
            v[3 * i + 1] = r * sin(ph);
            v[3 * i + 2] = t + ds * (urand() - 0.5);
        }
        top0 = nb;
    }
    /* the point: over a top vertex (20 %) or a segment between two */
    int i = top0 + (int)(urand() * ntop), j = top0 + (int)(urand() * ntop);
    double lam = urand() < 0.2 ? 1 : urand();
    double p[3];
    for (int k = 0; k < 3; k++)
        p[k] = lam * v[3 * i + k] + (1 - lam) * v[3 * j + k];
    double h = pow(10, -15 + 6 * urand()), jit = pow(10, -15 + 6 * urand()), ph = 6.283185307179586 * urand();
    int inside = urand() < 0.4;
    p[0] += jit * cos(ph);
    p[1] += jit * sin(ph);
    p[2] += inside ? -h : h;
    Q->size = 1;
    Q->thick = t;
    Q->touch = h;
    Q->inside = inside;
    Q->off = urand() < 0.2 ? 0 : pow(10, 4 * urand());
    Q->mag = urand() < 0.5 ? 1 : pow(10, -300 + 600 * urand());
    /* rotate and place body and point together (one rounding each) */
    double R[9], c[3], u[3];
    flat_rot(R);
    rand_unit(u);
    for (int k = 0; k < 3; k++)
        c[k] = u[k] * Q->off;
    Q->na = n;
    memcpy(Q->a, v, sizeof(double) * 3 * (size_t)n);
    flat_place(Q->a, n, R, c, 1.0);
    Q->nb = 1;
    memcpy(Q->b, p, sizeof p);
    flat_place(Q->b, 1, R, c, 1.0);
    if (Q->mag != 1) {
        for (int m = 0; m < 3 * n; m++) Q->a[m] *= Q->mag;
        for (int k = 0; k < 3; k++) Q->b[k] *= Q->mag;
    }
}

/* How many supporting faces (vertex triples whose plane has no vertex
 * strictly on the far side, certified in binary128) are within `tol` of the
 * closest one, measured in binary128 from the point: 2 or more is a tie the
 * kernel must resolve.  Independent of the kernel. */
static inline int tied_faces(const flat_query *Q, double tol)
{
    flat_set A, P;
    flat_set_init(&A, Q->a, Q->na, Q->a);
    flat_set_init(&P, Q->b, 1, Q->a);
    q128 d2[FLAT_MAXV * FLAT_MAXV * FLAT_MAXV / 6 + 1];
    int nf = 0, n = A.n;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            for (int k = j + 1; k < n; k++) {
                int pos = 0, neg = 0;
                for (int m = 0; m < n; m++) {
                    if (m == i || m == j || m == k)
                        continue;
                    int s = flat_orient(&A, &P, i, j, k, m);
                    pos |= s == 1;
                    neg |= s == -1;
                }
                if ((pos && neg) || (!pos && !neg))
                    continue; /* not a face (or all coplanar) */
                q128 c[3], r[3];
                q_closest_tri(P.x[0], A.x[i], A.x[j], A.x[k], c);
                q_sub(r, P.x[0], c);
                d2[nf++] = q_dot(r, r);
            }
    if (nf == 0)
        return 0;
    q128 best = d2[0];
    for (int f = 1; f < nf; f++)
        if (d2[f] < best)
            best = d2[f];
    ld db = sqrtl((ld)best);
    int ties = 0;
    for (int f = 0; f < nf; f++)
        if (sqrtl((ld)d2[f]) - db <= (ld)tol)
            ties++;
    return ties;
}

#endif
