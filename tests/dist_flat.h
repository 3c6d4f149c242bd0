/* dist_flat.h - near-degenerate distance queries (issue 17) and their
 * oracle, shared by tests/test_dist_robust.c (a 10^5 slice) and
 * bench/bench_dist_stress.c (10^7).
 *
 * Families: nearly flat polytopes (thickness 1e-12..1e-6 of their size, with
 * duplicated and exactly coplanar vertices) placed 0..1e4 times their size
 * from the origin, against a point or another flat polytope that touches
 * them within 1e-15..1e-9 of the size (outside or inside), everything
 * multiplied by 10^k, k in -300..300.
 *
 * The oracle does not share code or method with the kernel: it works on the
 * actual double inputs, in a frame centred on one input vertex where the
 * differences are exact in binary128 (__float128), and
 *  - decides "point in hull" by supporting planes of all vertex triples
 *    (a triple's plane supports the hull when no vertex is strictly on its
 *    positive side; the point is outside iff it is strictly beyond some
 *    supporting plane), with orientations in long double under an error
 *    bound, recomputed in binary128 when the bound cannot decide;
 *  - measures distances as the minimum over all vertex triples (point -
 *    triangle) and all vertex pairs (segment - segment) in long double:
 *    for disjoint hulls that minimum is the distance.
 * Signs the binary128 bound still cannot decide make the query "uncertain"
 * (counted, checked only against the distance bounds it does have). */
#ifndef RVE_DIST_FLAT_H
#define RVE_DIST_FLAT_H

#include <rve/dist.h>
#include <stdio.h>
#include "dist_oracle.h"
#include "dist_rng.h"
#include <float.h>
#include <math.h>
#include <string.h>

typedef __float128 q128;
#define FLAT_MAXV 32

/* ----------------------------------------------------------- generator */
typedef struct {
    int na, nb;              /* nb = 1: a point */
    double a[3 * FLAT_MAXV]; /* world coordinates */
    double b[3 * FLAT_MAXV];
    double size, thick, off, touch, mag; /* the draw, for messages */
    int inside;                          /* drawn inside (touch < 0) */
    double axis[3];                      /* pairs: B was placed beyond A along this axis */
    /* posed pairs (flat_pose): the bodies' own vertices and poses; a and b
     * are then R l + pos in binary128, rounded (the oracle's input) */
    int posed;
    double la[3 * FLAT_MAXV], lb[3 * FLAT_MAXV];
    double pa[3], pb[3], qa[4], qb[4];
    /* boxed pairs (flat_box): B is the box of half extents hb posed at pb,
     * qb, placed so that its corner lowest along axis is at contact */
    int box;
    double hb[3], contact[3];
} flat_query;

static inline void flat_rot(double R[9])
{
    double q[4];
    rand_quat(q);
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}

/* a flat body in local coordinates: a disc-like cloud of radius 1 and
 * thickness t; some vertices exactly on the plane z = 0, some duplicated,
 * some nearly (moved by 1e-12 to 1e-6: slivers and near ties) */
static inline void flat_body_local(double *v, int n, double t)
{
    for (int i = 0; i < n; i++) {
        double r = sqrt(urand()), ph = 6.283185307179586 * urand();
        v[3 * i] = r * cos(ph);
        v[3 * i + 1] = (0.3 + 0.7 * urand()) * r * sin(ph);
        v[3 * i + 2] = urand() < 0.3 ? 0.0 : t * urand();
    }
    if (n > 4 && urand() < 0.3) /* a duplicated vertex */
        memcpy(v + 3 * (n - 1), v + 3 * (int)(urand() * (n - 1)), sizeof(double) * 3);
    else if (n > 4 && urand() < 0.3) { /* a nearly duplicated one */
        int j = (int)(urand() * (n - 1));
        double e = pow(10, -12 + 6 * urand());
        for (int k = 0; k < 3; k++)
            v[3 * (n - 1) + k] = v[3 * j + k] + e * (urand() - 0.5);
    }
}

static inline void flat_place(double *v, int n, const double R[9], const double c[3], double s)
{
    for (int i = 0; i < n; i++) {
        double x = v[3 * i] * s, y = v[3 * i + 1] * s, z = v[3 * i + 2] * s;
        v[3 * i] = c[0] + R[0] * x + R[1] * y + R[2] * z;
        v[3 * i + 1] = c[1] + R[3] * x + R[4] * y + R[5] * z;
        v[3 * i + 2] = c[2] + R[6] * x + R[7] * y + R[8] * z;
    }
}

/* ------------------------------------------------------------- oracle */
typedef struct {
    int n;
    q128 x[FLAT_MAXV][3]; /* exact local coordinates */
    ld l[FLAT_MAXV][3];   /* the same rounded to long double */
} flat_set;

static inline void flat_set_init(flat_set *s, const double *v, int n, const double ref[3])
{
    s->n = n;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            s->x[i][k] = (q128)v[3 * i + k] - (q128)ref[k];
            s->l[i][k] = (ld)s->x[i][k];
        }
}

/* Sign of orient(a, b, c, d) = (b - a) . ((c - a) x (d - a)) of local points
 * (indices into s, or -1 for the extra point e).  Long double with the bound
 * 16 eps_ld P (depth 6 plus the rounding of the local coordinates), then
 * binary128 (bound 16 eps_128 P); 2 when neither decides. */
static inline int flat_orient(const flat_set *s, const flat_set *e, int ia, int ib, int ic, int id)
{
    const ld *P4[4];
    const q128 *Q4[4];
    int idx[4] = {ia, ib, ic, id};
    for (int j = 0; j < 4; j++) {
        P4[j] = idx[j] >= 0 ? s->l[idx[j]] : e->l[0];
        Q4[j] = idx[j] >= 0 ? s->x[idx[j]] : e->x[0];
    }
    ld u[3][3], au[3][3];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) {
            u[j][k] = P4[j + 1][k] - P4[0][k];
            au[j][k] = fabsl(P4[j + 1][k]) + fabsl(P4[0][k]);
        }
    ld v = u[0][0] * (u[1][1] * u[2][2] - u[1][2] * u[2][1]) + u[0][1] * (u[1][2] * u[2][0] - u[1][0] * u[2][2]) +
           u[0][2] * (u[1][0] * u[2][1] - u[1][1] * u[2][0]);
    ld P = au[0][0] * (au[1][1] * au[2][2] + au[1][2] * au[2][1]) +
           au[0][1] * (au[1][2] * au[2][0] + au[1][0] * au[2][2]) +
           au[0][2] * (au[1][0] * au[2][1] + au[1][1] * au[2][0]);
    if (fabsl(v) > 16 * LDBL_EPSILON * P)
        return v > 0 ? 1 : -1;
    if (P == 0)
        return 0;
    q128 w[3][3], aw[3][3];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) {
            w[j][k] = Q4[j + 1][k] - Q4[0][k];
            aw[j][k] = (Q4[j + 1][k] < 0 ? -Q4[j + 1][k] : Q4[j + 1][k]) + (Q4[0][k] < 0 ? -Q4[0][k] : Q4[0][k]);
        }
    for (int j = 0; j < 4; j++) /* a repeated point: exactly zero */
        for (int m = j + 1; m < 4; m++)
            if (Q4[j][0] == Q4[m][0] && Q4[j][1] == Q4[m][1] && Q4[j][2] == Q4[m][2])
                return 0;
    q128 V = w[0][0] * (w[1][1] * w[2][2] - w[1][2] * w[2][1]) + w[0][1] * (w[1][2] * w[2][0] - w[1][0] * w[2][2]) +
             w[0][2] * (w[1][0] * w[2][1] - w[1][1] * w[2][0]);
    q128 PQ = aw[0][0] * (aw[1][1] * aw[2][2] + aw[1][2] * aw[2][1]) +
              aw[0][1] * (aw[1][2] * aw[2][0] + aw[1][0] * aw[2][2]) +
              aw[0][2] * (aw[1][0] * aw[2][1] + aw[1][1] * aw[2][0]);
    q128 bound = PQ * (q128)16 * (q128)1.9259299443872358530559779425849273e-34L; /* 2^-112 */
    if (V > bound)
        return 1;
    if (V < -bound)
        return -1;
    return 2;
}

/* Point e (a set of one point) against the hull of s: 1 outside (strictly),
 * 0 inside or on the boundary, -1 uncertain. */
static inline int flat_outside(const flat_set *s, const flat_set *e)
{
    int n = s->n, unsure = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            for (int k = j + 1; k < n; k++) {
                /* orientation of p relative to the plane (i j k); candidates
                 * on both sides: the plane supports on one side at most */
                int sp = flat_orient(s, e, i, j, k, -1);
                if (sp == 0)
                    continue;
                int pos = 0, neg = 0, unk = 0;
                for (int m = 0; m < n && !(pos && neg); m++) {
                    if (m == i || m == j || m == k)
                        continue;
                    /* duplicates of i, j, k: exactly on the plane */
                    if (!memcmp(s->x[m], s->x[i], sizeof s->x[m]) || !memcmp(s->x[m], s->x[j], sizeof s->x[m]) ||
                        !memcmp(s->x[m], s->x[k], sizeof s->x[m]))
                        continue;
                    int sm = flat_orient(s, e, i, j, k, m);
                    if (sm == 1) pos = 1;
                    else if (sm == -1) neg = 1;
                    else if (sm == 2) unk = 1;
                }
                if (pos && neg)
                    continue;
                /* all vertices weakly on one side: a supporting plane */
                if (sp == 2) {
                    unsure = 1;
                    continue;
                }
                if ((sp == 1 && !pos) || (sp == -1 && !neg)) {
                    if (!unk)
                        return 1;
                    unsure = 1;
                }
            }
    return unsure ? -1 : 0;
}

static inline q128 q_dot(const q128 a[3], const q128 b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline void q_sub(q128 r[3], const q128 a[3], const q128 b[3])
{
    for (int i = 0; i < 3; i++)
        r[i] = a[i] - b[i];
}

/* binary128 copy of ld_closest_tri (tests/dist_oracle.h): the flat
 * families' slivers (aspect up to 1e6) lose too much in long double.
 * Closest point of triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5). */
static inline void q_closest_tri(const q128 p[3], const q128 a[3], const q128 b[3], const q128 c[3], q128 out[3])
{
    q128 ab[3], ac[3], ap[3], bp[3], cp[3];
    q_sub(ab, b, a); q_sub(ac, c, a); q_sub(ap, p, a);
    q128 d1 = q_dot(ab, ap), d2 = q_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) { memcpy(out, a, sizeof(q128) * 3); return; }
    q_sub(bp, p, b);
    q128 d3 = q_dot(ab, bp), d4 = q_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) { memcpy(out, b, sizeof(q128) * 3); return; }
    q128 vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        q128 v = d1 / (d1 - d3);
        for (int i = 0; i < 3; i++) out[i] = a[i] + v * ab[i];
        return;
    }
    q_sub(cp, p, c);
    q128 d5 = q_dot(ab, cp), d6 = q_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) { memcpy(out, c, sizeof(q128) * 3); return; }
    q128 vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        q128 w = d2 / (d2 - d6);
        for (int i = 0; i < 3; i++) out[i] = a[i] + w * ac[i];
        return;
    }
    q128 va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        q128 w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int i = 0; i < 3; i++) out[i] = b[i] + w * (c[i] - b[i]);
        return;
    }
    q128 den = 1 / (va + vb + vc);
    q128 v = vb * den, w = vc * den;
    if (!(v == v) || !(w == w) || !(va + vb + vc > 0)) { /* degenerate triangle: its edges */
        const q128 *e0[3] = {a, b, c}, *e1[3] = {b, c, a};
        q128 best = INFINITY;
        for (int e = 0; e < 3; e++) {
            q128 d[3], r[3], x[3];
            q_sub(d, e1[e], e0[e]);
            q_sub(r, p, e0[e]);
            q128 dd = q_dot(d, d), t = dd > 0 ? q_dot(r, d) / dd : 0;
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            for (int i = 0; i < 3; i++) x[i] = e0[e][i] + t * d[i];
            q_sub(r, p, x);
            if (q_dot(r, r) < best) { best = q_dot(r, r); memcpy(out, x, sizeof x); }
        }
        return;
    }
    /* the face: p projected onto the plane, not a + v ab + w ac, whose
     * weights come from differences of products that cancel to 1e-24 of
     * their size for a sliver of aspect 1e-12 (two near-duplicate
     * vertices): 1e-10 relative in v and w moved the point 2e12 along a
     * face 5e23 long, 0.6e12 from p (seen: the hull distance 2 % high) */
    q128 n[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
    q128 nn = q_dot(n, n);
    if (nn > 0) {
        q128 t = q_dot(n, ap) / nn;
        for (int i = 0; i < 3; i++) out[i] = p[i] - t * n[i];
        return;
    }
    for (int i = 0; i < 3; i++) out[i] = a[i] + ab[i] * v + ac[i] * w;
}

/* distance (local frame) from point x (exact local coordinates xq) to the
 * triangles and segments of the vertices of s; q gets the closest point.
 * Long double first; slivers and the triangles within a margin of the best
 * (2^-40 of the extent) again in binary128: a sliver's long double distance
 * can be off by 1e-13 of the size (seen: the kernel right to 0.03 eps L
 * against exact rationals, the long double oracle 900 eps L high). */
static inline ld flat_point_dist(const flat_set *s, const q128 xq[3], ld q[3])
{
    ld best = INFINITY, x[3] = {(ld)xq[0], (ld)xq[1], (ld)xq[2]};
    int n = s->n;
    if (n == 1) {
        ld d[3];
        ld_sub(d, x, s->l[0]);
        memcpy(q, s->l[0], sizeof(ld) * 3);
        return sqrtl(ld_dot(d, d));
    }
    ld dt[FLAT_MAXV * FLAT_MAXV * FLAT_MAXV / 6 + 1]; /* one per triple */
    int nt = 0;
    ld ext = fabsl(x[0]) + fabsl(x[1]) + fabsl(x[2]);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            ext = fmaxl(ext, fabsl(s->l[i][k]));
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            for (int k = j + 1; k < n + (n == 2); k++) {
                ld c[3], d[3];
                ld_closest_tri(x, s->l[i], s->l[j], s->l[k < n ? k : j], c);
                ld_sub(d, x, c);
                ld t = ld_dot(d, d);
                ld e1[3], e2[3], e3[3], nn[3];
                ld_sub(e1, s->l[j], s->l[i]);
                ld_sub(e2, s->l[k < n ? k : j], s->l[i]);
                ld_sub(e3, s->l[k < n ? k : j], s->l[j]);
                nn[0] = e1[1] * e2[2] - e1[2] * e2[1];
                nn[1] = e1[2] * e2[0] - e1[0] * e2[2];
                nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
                ld em = fmaxl(ld_dot(e1, e1), fmaxl(ld_dot(e2, e2), ld_dot(e3, e3)));
                /* a sliver (aspect above 8) is always redone: long double
                 * can take the wrong region of Ericson's tests there */
                dt[nt++] = ld_dot(nn, nn) * 64 < em * em ? -1 : sqrtl(t);
                if (t < best) {
                    best = t;
                    memcpy(q, c, sizeof c);
                }
            }
    ld lim = sqrtl(best) + ext * 0x1p-40L;
    q128 qbest = INFINITY;
    nt = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            for (int k = j + 1; k < n + (n == 2); k++) {
                if (dt[nt++] > lim)
                    continue;
                q128 c[3], d[3];
                q_closest_tri(xq, s->x[i], s->x[j], s->x[k < n ? k : j], c);
                q_sub(d, xq, c);
                q128 t = q_dot(d, d);
                if (t < qbest) {
                    qbest = t;
                    for (int m = 0; m < 3; m++)
                        q[m] = (ld)c[m];
                }
            }
    return sqrtl((ld)qbest);
}

/* distance between the hulls of two disjoint sets (vertex - triangles both
 * ways, segment - segment), long double */
static inline ld flat_set_dist(const flat_set *A, const flat_set *B)
{
    ld best = INFINITY, q[3];
    for (int i = 0; i < B->n; i++)
        best = fminl(best, flat_point_dist(A, B->x[i], q));
    for (int i = 0; i < A->n; i++)
        best = fminl(best, flat_point_dist(B, A->x[i], q));
    for (int i = 0; i < A->n; i++)
        for (int j = i + 1; j < A->n; j++)
            for (int k = 0; k < B->n; k++)
                for (int m = k + 1; m < B->n; m++)
                    best = fminl(best, sqrtl(ld_seg_seg2(A->l[i], A->l[j], B->l[k], B->l[m])));
    return best;
}

/* The oracle's verdict on a query. */
typedef struct {
    ld d;        /* exact distance (to long double), valid unless uncertain */
    ld dmax;     /* an upper bound of the distance (always valid) */
    int overlap; /* 1 intersecting or touching exactly, 0 separated, -1 uncertain */
    double L;    /* largest |coordinate| of the pair */
} flat_truth;

static inline void flat_oracle(const flat_query *Q, flat_truth *T)
{
    const double *ref = Q->a;
    flat_set A, B;
    flat_set_init(&A, Q->a, Q->na, ref);
    flat_set_init(&B, Q->b, Q->nb, ref);
    T->L = fmax(maxabs_pts(Q->a, Q->na), maxabs_pts(Q->b, Q->nb));
    if (Q->nb == 1) {
        ld q[3];
        T->dmax = flat_point_dist(&A, B.x[0], q);
        int o = flat_outside(&A, &B);
        T->overlap = o == 1 ? 0 : (o == 0 ? 1 : -1);
        T->d = o == 1 ? T->dmax : 0;
        return;
    }
    T->dmax = flat_set_dist(&A, &B);
    /* overlap is certified by a vertex of one set in the hull of the other;
     * separation by flat_sep_axis along the axis the generator used */
    for (int s = 0; s < 2; s++) {
        const flat_set *X = s ? &A : &B, *Y = s ? &B : &A;
        for (int i = 0; i < X->n; i++) {
            flat_set e;
            e.n = 1;
            memcpy(e.x[0], X->x[i], sizeof e.x[0]);
            memcpy(e.l[0], X->l[i], sizeof e.l[0]);
            if (flat_outside(Y, &e) == 0) {
                T->overlap = 1;
                T->d = 0;
                return;
            }
        }
    }
    T->overlap = -1;
    T->d = T->dmax;
}

/* certified gap of the two sets along axis u (binary128): min_B u.b -
 * max_A u.a minus a bound on its rounding; > 0 proves separation */
static inline int flat_sep_axis(const flat_query *Q, const double u[3])
{
    q128 hA = -1e300, lB = 1e300, mag = 0;
    for (int i = 0; i < Q->na; i++) {
        q128 t = 0, m = 0;
        for (int k = 0; k < 3; k++) {
            q128 x = (q128)Q->a[3 * i + k] - (q128)Q->a[k];
            t += x * (q128)u[k];
            m += (x < 0 ? -x : x) * (q128)fabs(u[k]);
        }
        if (t > hA) hA = t;
        if (m > mag) mag = m;
    }
    for (int i = 0; i < Q->nb; i++) {
        q128 t = 0, m = 0;
        for (int k = 0; k < 3; k++) {
            q128 x = (q128)Q->b[3 * i + k] - (q128)Q->a[k];
            t += x * (q128)u[k];
            m += (x < 0 ? -x : x) * (q128)fabs(u[k]);
        }
        if (t < lB) lB = t;
        if (m > mag) mag = m;
    }
    return lB - hA > mag * (q128)1e-30;
}

/* ---------------------------------------------------------- families */
enum { FLAT_POINT = 0, FLAT_PAIR = 1 };

/* Vertex counts other than the families' own (4-12 for points, 4-8 for
 * pairs): lo + (int)(u^2 span) for each body, u uniform, so that small
 * counts (cheap for the oracle) come more often than large ones. */
typedef struct {
    int lo, span;
} flat_sizes;

static inline int flat_count(const flat_sizes *sz)
{
    double u = urand();
    return sz->lo + (int)(u * u * sz->span);
}

/* Draws a query of the family (FLAT_POINT or FLAT_PAIR): 40 % of the
 * points are moved inside; pairs touch from outside (before rounding).
 * Vertex counts from sz, or (NULL) the family's own. */
static inline void flat_draw_sized(flat_query *Q, int family, const flat_sizes *sz)
{
    double R[9], c[3], u[3];
    Q->size = 1;
    Q->posed = 0;
    Q->box = 0;
    Q->thick = pow(10, -12 + 6 * urand());
    Q->off = urand() < 0.2 ? 0 : pow(10, 4 * urand());
    Q->touch = pow(10, -15 + 6 * urand());
    Q->mag = urand() < 0.5 ? 1 : pow(10, -300 + 600 * urand());
    Q->na = sz ? flat_count(sz) : 4 + (int)(urand() * (family == FLAT_POINT ? 9 : 5));
    flat_body_local(Q->a, Q->na, Q->thick);
    flat_rot(R);
    rand_unit(u);
    for (int k = 0; k < 3; k++) c[k] = u[k] * Q->off;
    flat_place(Q->a, Q->na, R, c, 1.0);
    flat_set A;
    flat_set_init(&A, Q->a, Q->na, Q->a);
    /* a far point, its closest point on A, then a point (or B) just off it */
    double dir[3];
    rand_unit(dir);
    ld far[3] = {dir[0] * 3, dir[1] * 3, dir[2] * 3}, q[3];
    q128 farq[3] = {far[0], far[1], far[2]};
    ld d0 = flat_point_dist(&A, farq, q);
    ld nrm[3] = {(far[0] - q[0]) / d0, (far[1] - q[1]) / d0, (far[2] - q[2]) / d0};
    Q->inside = family == FLAT_POINT && urand() < 0.4;
    double t = Q->inside ? -Q->touch : Q->touch;
    if (family == FLAT_POINT) {
        Q->nb = 1;
        for (int k = 0; k < 3; k++)
            Q->b[k] = (double)(q[k] + (ld)Q->a[k] + nrm[k] * t);
    } else {
        Q->nb = sz ? flat_count(sz) : 4 + (int)(urand() * 5);
        flat_body_local(Q->b, Q->nb, pow(10, -12 + 6 * urand()));
        double R2[9], z[3] = {0, 0, 0}, s2 = 0.2 + urand();
        flat_rot(R2);
        flat_place(Q->b, Q->nb, R2, z, s2);
        /* B's extreme vertex along -nrm lands at q + t nrm */
        int lo = 0;
        ld best = INFINITY;
        for (int i = 0; i < Q->nb; i++) {
            ld s = nrm[0] * Q->b[3 * i] + nrm[1] * Q->b[3 * i + 1] + nrm[2] * Q->b[3 * i + 2];
            if (s < best) { best = s; lo = i; }
        }
        ld sh[3];
        for (int k = 0; k < 3; k++) {
            Q->axis[k] = (double)nrm[k];
            Q->contact[k] = (double)(q[k] + (ld)Q->a[k] + nrm[k] * t);
        }
        for (int k = 0; k < 3; k++)
            sh[k] = q[k] + (ld)Q->a[k] + nrm[k] * t - (ld)Q->b[3 * lo + k];
        for (int i = 0; i < Q->nb; i++)
            for (int k = 0; k < 3; k++)
                Q->b[3 * i + k] = (double)((ld)Q->b[3 * i + k] + sh[k]);
    }
    if (Q->mag != 1) {
        for (int i = 0; i < 3 * Q->na; i++) Q->a[i] *= Q->mag;
        for (int i = 0; i < 3 * Q->nb; i++) Q->b[i] *= Q->mag;
    }
}

static inline void flat_draw(flat_query *Q, int family) { flat_draw_sized(Q, family, NULL); }

/* A flat body of 5 to 8 vertices whose last vertex is a near duplicate
 * (1e-13 to 1e-9 away) of the first, a third vertex 1e-7 to 1e-2 off the
 * line from the duplicate to the second, and a point 1e-17 to 1e-13 from
 * the duplicate (along the body's normal or anywhere), 1 to 1e4 sizes from
 * the origin, half of them scaled by 10^[-300,300].  The edges from the
 * point's vertex are long and nearly aligned: v projected from a far end of
 * an edge (as GJK did before stop 37) carries eps of the size, its
 * direction is off by eps / d, and the supports along those edges turn to
 * noise (seed 20261219 of bench_dist_stress met one such query in 4e6;
 * there the old projection failed 0.3 % of the draws). */
static inline void flat_draw_near_vertex(flat_query *Q)
{
    memset(Q, 0, sizeof *Q);
    Q->size = 1;
    Q->na = 5 + (int)(urand() * 4);
    Q->nb = 1;
    double *v = Q->a;
    int n = Q->na, last = 3 * (n - 1);
    Q->thick = 1e-9; /* for failure messages, as the other draws */
    flat_body_local(v, n, Q->thick);
    double e = pow(10, -13 + 4 * urand());
    for (int k = 0; k < 3; k++)
        v[last + k] = v[k] + e * (urand() - 0.5);
    double f = 0.1 + 0.8 * urand(), a = pow(10, -7 + 5 * urand());
    for (int k = 0; k < 3; k++)
        v[6 + k] = v[last + k] + f * (v[3 + k] - v[last + k]) + (k < 2 ? a * (urand() - 0.5) : 0);
    double R[9], c[3], u[3];
    flat_rot(R);
    rand_unit(u);
    Q->off = urand() < 0.2 ? 0 : pow(10, 4 * urand());
    for (int k = 0; k < 3; k++)
        c[k] = u[k] * Q->off;
    flat_place(v, n, R, c, 1.0);
    Q->touch = pow(10, -17 + 4 * urand());
    int normal = urand() < 0.5;
    double sgn = urand() < 0.5 ? 1 : -1;
    rand_unit(u);
    for (int k = 0; k < 3; k++)
        Q->b[k] = v[last + k] + (normal ? R[3 * k + 2] : u[k]) * Q->touch * sgn;
    Q->mag = urand() < 0.5 ? 1 : pow(10, -300 + 600 * urand());
    if (Q->mag != 1) {
        for (int i = 0; i < 3 * n; i++)
            v[i] *= Q->mag;
        for (int k = 0; k < 3; k++)
            Q->b[k] *= Q->mag;
    }
}

/* One body of a posed pair: a random rotation q and the position pos =
 * its first world vertex; l = R^T (w - pos) (long double, rounded), and w
 * again as R l + pos from the R the shape uses (binary128: the products of
 * doubles are exact, the sums round at 1e-34), rounded to double: the
 * oracle's body is the posed one to eps L, far below the 100 eps L bound
 * and the decisions' tolerance. */
static inline void flat_pose_body(double *w, int n, double *l, double pos[3], double q[4])
{
    rand_quat(q);
    for (int k = 0; k < 3; k++)
        pos[k] = w[k];
    rve_shape s;
    rve_shape_point(&s, pos);
    rve_shape_set_pose(&s, pos, q);
    const double *R = s.R;
    for (int i = 0; i < n; i++) {
        ld d[3];
        for (int k = 0; k < 3; k++)
            d[k] = (ld)w[3 * i + k] - (ld)pos[k];
        for (int k = 0; k < 3; k++)
            l[3 * i + k] = (double)((ld)R[k] * d[0] + (ld)R[3 + k] * d[1] + (ld)R[6 + k] * d[2]);
        for (int k = 0; k < 3; k++) {
            q128 x = (q128)R[3 * k] * l[3 * i] + (q128)R[3 * k + 1] * l[3 * i + 1] + (q128)R[3 * k + 2] * l[3 * i + 2];
            w[3 * i + k] = (double)(x + (q128)pos[k]);
        }
    }
}

/* A pair of the FLAT_PAIR family as posed bodies (the GJK paths of
 * rotated polytopes: at most 8 vertices each, rotated once per query). */
static inline void flat_pose(flat_query *Q)
{
    Q->posed = 1;
    flat_pose_body(Q->a, Q->na, Q->la, Q->pa, Q->qa);
    flat_pose_body(Q->b, Q->nb, Q->lb, Q->pb, Q->qb);
}

/* B as the box of half extents hb posed at pb, qb: its 8 corners R l +
 * pos in binary128, rounded (the oracle's B) */
static inline void flat_box_corners(flat_query *Q)
{
    rve_shape s;
    rve_shape_box(&s, Q->hb[0], Q->hb[1], Q->hb[2]);
    rve_shape_set_pose(&s, Q->pb, Q->qb);
    const double *R = s.R;
    Q->box = 1;
    Q->nb = 8;
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++) {
            double x[3];
            for (int j = 0; j < 3; j++)
                x[j] = (i >> j & 1) ? Q->hb[j] : -Q->hb[j];
            q128 w = (q128)R[3 * k] * x[0] + (q128)R[3 * k + 1] * x[1] + (q128)R[3 * k + 2] * x[2];
            Q->b[3 * i + k] = (double)(w + (q128)Q->pb[k]);
        }
}

/* A pair of the FLAT_PAIR family whose B is replaced by a posed box
 * (rve_shape_box: its support is not a vertex scan), flat like the family's
 * bodies (its smallest half extent 1e-12 to 1e-6 of the others), placed
 * like the family's B: its corner lowest along the axis at the contact
 * point, scaled with the pair's magnitude; A posed too in half the draws.
 * The oracle's B is the box's 8 corners R l + pos in binary128, rounded. */
static inline void flat_box(flat_query *Q)
{
    double h[3] = {0.2 + urand(), 0.2 + urand(), pow(10, -12 + 6 * urand())};
    rve_shape s;
    rve_shape_point(&s, (double[3]){0, 0, 0});
    rand_quat(Q->qb);
    rve_shape_set_pose(&s, s.v[0], Q->qb);
    const double *R = s.R;
    double l[8][3];
    int lo = 0;
    ld best = INFINITY;
    for (int i = 0; i < 8; i++) {
        ld a = 0;
        for (int k = 0; k < 3; k++)
            l[i][k] = (i >> k & 1) ? h[k] : -h[k];
        for (int k = 0; k < 3; k++)
            a += (ld)Q->axis[k] * ((ld)R[3 * k] * l[i][0] + (ld)R[3 * k + 1] * l[i][1] + (ld)R[3 * k + 2] * l[i][2]);
        if (a < best) { best = a; lo = i; }
    }
    for (int k = 0; k < 3; k++) {
        ld c = (ld)R[3 * k] * l[lo][0] + (ld)R[3 * k + 1] * l[lo][1] + (ld)R[3 * k + 2] * l[lo][2];
        Q->pb[k] = (double)(((ld)Q->contact[k] - c) * (ld)Q->mag);
        Q->hb[k] = h[k] * Q->mag;
    }
    flat_box_corners(Q);
    if (urand() < 0.5) {
        Q->posed = 1;
        flat_pose_body(Q->a, Q->na, Q->la, Q->pa, Q->qa);
    }
}

/* ------------------------------------------------------- the check */
typedef struct {
    long n, bad, wrong, uncertain, exact;
    double worst;     /* eps L */
    int witness;      /* check that the witness p lies on the polytope */
    double worst_wit; /* its largest distance from it, eps L */
} fam_stats;

/* how far x is outside the hull of the n points v (0 inside or when the
 * oracle cannot tell), in binary128 relative to ref */
static inline double flat_witness_off(const double *v, int n, const double x[3], const double *ref)
{
    flat_set S, X;
    flat_set_init(&S, v, n, ref);
    flat_set_init(&X, x, 1, ref);
    ld qq[3];
    return flat_outside(&S, &X) == 1 ? (double)flat_point_dist(&S, X.x[0], qq) : 0;
}

/* One query: rve_gjk_dist, and for points rve_dist_point_polytope too,
 * each also through its lean call.  Returns 1 when it failed. */
static int flat_check(const flat_query *Q, fam_stats *st, char *msg, size_t len)
{
    flat_truth T;
    flat_oracle(Q, &T);
    if (T.overlap == -1 && Q->nb > 1 && flat_sep_axis(Q, Q->axis)) {
        T.overlap = 0; /* certified separated: dmax is the distance */
        T.d = T.dmax;
    }
    double tol = 100 * DBL_EPSILON * T.L;
    rve_shape A, B;
    if (Q->box) {
        if (Q->posed) {
            rve_shape_polytope(&A, Q->la, Q->na, NULL);
            rve_shape_set_pose(&A, Q->pa, Q->qa);
        } else {
            rve_shape_polytope(&A, Q->a, Q->na, NULL);
        }
        rve_shape_box(&B, Q->hb[0], Q->hb[1], Q->hb[2]);
        rve_shape_set_pose(&B, Q->pb, Q->qb);
    } else if (Q->posed) {
        rve_shape_polytope(&A, Q->la, Q->na, NULL);
        rve_shape_set_pose(&A, Q->pa, Q->qa);
        rve_shape_polytope(&B, Q->lb, Q->nb, NULL);
        rve_shape_set_pose(&B, Q->pb, Q->qb);
    } else {
        rve_shape_polytope(&A, Q->a, Q->na, NULL);
        if (Q->nb == 1)
            rve_shape_point(&B, Q->b);
        else
            rve_shape_polytope(&B, Q->b, Q->nb, NULL);
    }
    int fail = 0;
    const char *why = "";
    double pq_off = 0; /* ||p - q| - d|, eps L, of the failing witnesses */
    for (int pass = 0; pass < (Q->nb == 1 ? 2 : 1); pass++) {
        rve_dist_result r;
        double d;
        /* and the lean call (d only: no weights, no witnesses), which must
         * give the same d bit for bit */
        double dl;
        if (pass == 0) {
            rve_gjk_dist(&A, &B, NULL, NULL, &r);
            d = r.d;
            dl = rve_gjk_distance(&A, &B, NULL, NULL, NULL);
        } else {
            d = rve_dist_point_polytope(Q->b, Q->a, Q->na, NULL, &r);
            dl = rve_dist_point_polytope(Q->b, Q->a, Q->na, NULL, NULL);
        }
        if (!(dl == d || (dl != dl && d != d))) {
            st->bad++;
            fail = 1;
            why = "lean call differs";
        }
        st->n++;
        st->exact += r.exact;
        int inter = r.status == RVE_GJK_INTERSECT;
        if (T.overlap == -1) {
            st->uncertain++;
            /* the true distance is in [0, dmax] */
            if (!(d <= (double)T.dmax + tol) || r.status == RVE_GJK_CAP || r.status == RVE_GJK_DEGENERATE) {
                st->bad++;
                fail = 1;
                snprintf(msg, len, "%s: d = %.17g above the oracle's bound %.17Lg + 100 eps L (L %g), status %d",
                         pass ? "point_polytope" : "gjk_dist", d, T.dmax, T.L, r.status);
            }
            continue;
        }
        double err = fabs(d - (double)T.d);
        if (!(err <= tol) || r.status == RVE_GJK_CAP || r.status == RVE_GJK_DEGENERATE) {
            st->bad++;
            fail = 1;
            why = "distance";
        }
        if ((inter && T.d > tol) || (!inter && T.overlap == 1 && d > tol)) {
            st->wrong++;
            fail = 1;
            why = "decision";
        }
        if (st->witness && pass == 0) {
            /* p lies on (in) the polytope A within the bound, and for
             * pairs q on B */
            double ew = flat_witness_off(Q->a, Q->na, r.p, Q->a);
            if (Q->nb > 1)
                ew = fmax(ew, flat_witness_off(Q->b, Q->nb, r.q, Q->a));
            if (ew / (DBL_EPSILON * T.L) > st->worst_wit)
                st->worst_wit = ew / (DBL_EPSILON * T.L);
            if (!(ew <= tol)) {
                st->bad++;
                fail = 1;
                why = "witness";
            }
            /* and |p - q| is the distance: the witnesses' weights (a
             * sliver's from exact values) keep p and q on their bodies
             * whatever they are, only this sees them wrong */
            double dx = r.p[0] - r.q[0], dy = r.p[1] - r.q[1], dz = r.p[2] - r.q[2];
            double pq = hypot(hypot(dx, dy), dz); /* no overflow or underflow at 1e+-300 */
            if (!(fabs(pq - (double)T.d) <= tol)) {
                st->bad++;
                fail = 1;
                why = "witness distance |p - q|";
                pq_off = fabs(pq - (double)T.d) / (DBL_EPSILON * T.L);
            }
        }
        double e = err / (DBL_EPSILON * T.L);
        if (e > st->worst || !isfinite(e))
            st->worst = isfinite(e) ? e : INFINITY;
        if (fail)
            snprintf(msg, len, "%s%s (%s): d = %.17g oracle %.17Lg (%s, %.3g eps L, L %g; |p - q| off %.3g eps L) status %d thick %g off %g touch %g mag %g",
                     pass ? "point_polytope" : "gjk_dist", Q->box ? " box" : Q->posed ? " posed" : "", why, d, T.d, T.overlap ? "overlap" : "separated", e, T.L,
                     pq_off, r.status, Q->thick, Q->off, Q->touch, Q->mag);
    }
    return fail;
}

#endif
