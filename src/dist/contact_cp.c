/* Common-plane contact of convex polyhedra: Descantes' revised Cundall and revised
 * Nezami algorithms (Descantes, Tricoire, Richard 2019, Algorithms 1 and 2), and the
 * witness points of a contact normal.
 *
 * Both maximise the gap g(n) = min_B n.b - max_A n.a over unit n: its maximum is
 * the separation distance of disjoint bodies and minus the penetration depth of
 * overlapping ones.  Deviations from the printed algorithms (checked, see report):
 * the perturbed normals are normalised with sqrt(1 + k^2) (the paper divides by
 * 1 + k^2), the best gap is reset for each of Cundall's three starts (with one
 * shared gap_max the second and third starts can never move), the tangent frame is
 * re-orthogonalised after each accepted perturbation, the step doubles again after
 * two successes in a row (a plain pattern search: without it a walk along a ridge
 * of the gap at a tiny step can take millions of steps), and Nezami's candidate planes
 * are tried with both orientations of their normal.
 *
 * Fixes of local optima (bench/bench_contact pairs and tests/test_contact.c):
 * - Cundall: the gap is a min of linear pieces, so the four compass steps all fail
 *   on a ridge (a kink crossing the search directions) although the gap still rises
 *   along it: 27 of the 36 wrong answers on the 120 bench pairs stopped there.  When
 *   every step fails, a step along the ridge between the current support pair and a
 *   candidate's (t = n x (w_i - w0)) is tried before the step is halved.  The two
 *   starting planes through the centre line are started with both orientations of
 *   their normal (five starts: a plane has no orientation); the remaining wrong
 *   answers are true local maxima of the gap (1 of 120 bench pairs, 2 of 420 test
 *   pairs).
 * - Nezami: the candidate planes come from every vertex of the support features
 *   (vertices within rounding of the deepest), not from one vertex picked among ties
 *   (a face or edge in contact otherwise hides the planes of its other vertices), and
 *   for disjoint bodies the vertex-edge planes (normal from the edge's line to the
 *   vertex) are candidates too.  Left: true local maxima (1 of 120 bench pairs, 1 of
 *   420 test pairs): the candidates are the planes of the features adjacent to the
 *   current closest vertices, a local neighbourhood. */
#include "config.h"
#include <rve/dist.h>
#include "util/vec3.h"
#include "dist/dist_internal.h"
#include "dist/contact_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double gap_of(const rve_polyhedron *A, const rve_polyhedron *B, const double n[3])
{
    double m[3] = {-n[0], -n[1], -n[2]};
    return -ct_support_value(B->v, B->nv, m) - ct_support_value(A->v, A->nv, n);
}

/* the same with the support vertices (first on ties): *ia of A along n, *ib of B
 * along -n (bitwise the same gap) */
static double gap_idx(const rve_polyhedron *A, const rve_polyhedron *B, const double n[3], size_t *ia, size_t *ib)
{
    double m[3] = {-n[0], -n[1], -n[2]};
    *ia = ct_support_index(A->v, A->nv, n);
    *ib = ct_support_index(B->v, B->nv, m);
    const double *a = A->v + 3 * *ia, *b = B->v + 3 * *ib;
    return -(m[0] * b[0] + m[1] * b[1] + m[2] * b[2]) - (n[0] * a[0] + n[1] * a[1] + n[2] * a[2]);
}

/* unit vectors p, q completing n to an orthonormal frame */
static void frame(const double n[3], double p[3], double q[3])
{
    double a[3] = {0, 0, 0};
    int k = fabs(n[0]) < fabs(n[1]) ? (fabs(n[0]) < fabs(n[2]) ? 0 : 2) : (fabs(n[1]) < fabs(n[2]) ? 1 : 2);
    a[k] = 1;
    v3_cross(p, n, a);
    v3_normalize(p);
    v3_cross(q, n, p);
    v3_normalize(q);
}

static void centre_direction(const rve_polyhedron *A, const rve_polyhedron *B, double n[3])
{
    v3_sub(n, B->centroid, A->centroid);
    if (v3_normalize(n) == 0)
        v3_set(n, 1, 0, 0);
}

static int check_inputs(const rve_polyhedron *A, const rve_polyhedron *B, rve_contact *out, rve_err *err)
{
    memset(out, 0, sizeof *out);
    if (!A || !B || A->nv == 0 || B->nv == 0) {
        rve_err_set(err, RVE_EUSAGE, NULL, "contact needs two polyhedra");
        return 0;
    }
    return 1;
}

/* ----------------------------------------------------------- revised Cundall */
#define CUNDALL_OUTER_MAX 64
#define CUNDALL_STEPS_MAX 200000

static rve_status cundall_run(const rve_polyhedron *A, const rve_polyhedron *B, rve_contact *out, rve_err *err)
{
    if (!check_inputs(A, B, out, err))
        return RVE_EUSAGE;
    const double deg = CT_PI / 180;
    const double kmax = tan(5 * deg), kmin = tan(1e-7 * deg);
    double n12[3], p12[3], q12[3];
    centre_direction(A, B, n12);
    frame(n12, p12, q12);
    /* the three starting planes (the centres' bisector and the two planes through
     * the centre line perpendicular to it), the last two with both orientations of
     * their normals: a plane has none, and the common-plane normal runs from A to B
     * only once the search has started */
    double mp12[3] = {-p12[0], -p12[1], -p12[2]}, mq12[3] = {-q12[0], -q12[1], -q12[2]};
    const double *starts[5] = {n12, p12, q12, mp12, mq12};
    double best_g = -INFINITY, best_n[3] = {1, 0, 0};
    int iters = 0, capped = 0;
    for (int st = 0; st < 5; st++) {
        double n[3];
        v3_copy(n, starts[st]);
        size_t a0, b0; /* support pair at n */
        double g = gap_idx(A, B, n, &a0, &b0);
        int outer;
        for (outer = 0; outer < CUNDALL_OUTER_MAX; outer++) {
            size_t ia = a0, ib = b0;
            double p1[3], q1[3], g_start = g;
            frame(n, p1, q1);
            for (int fr = 0; fr < 2; fr++) {
                double p[3], q[3];
                if (fr == 0) {
                    v3_copy(p, p1);
                    v3_copy(q, q1);
                } else { /* frame rotated by pi/4 about n */
                    double c = sqrt(0.5);
                    for (int j = 0; j < 3; j++) {
                        p[j] = c * (p1[j] + q1[j]);
                        q[j] = c * (q1[j] - p1[j]);
                    }
                }
                double k = kmax;
                int steps = 0, wins = 0;
                while (k >= kmin) {
                    if (++steps > CUNDALL_STEPS_MAX) {
                        capped = 2;
                        break;
                    }
                    iters++;
                    double cand[4][3], gi[4];
                    size_t ca[4], cb[4];
                    int bi = -1;
                    double bg = g;
                    for (int i = 0; i < 4; i++) {
                        const double *t = i < 2 ? p : q;
                        double sk = (i % 2 == 0) ? k : -k;
                        v3_axpy(cand[i], n, sk, t);
                        v3_normalize(cand[i]);
                        gi[i] = gap_idx(A, B, cand[i], &ca[i], &cb[i]);
                        if (gi[i] > bg) {
                            bg = gi[i];
                            bi = i;
                        }
                    }
                    if (bi < 0) {
                        /* ridge: a candidate that crossed a kink of the gap (its support
                         * pair differs) makes all four steps fail although the gap still
                         * rises along the ridge; step along the ridge, t = n x (w_i - w0),
                         * oriented so that the gap rises (t . w0 > 0) */
                        double w0[3];
                        v3_sub(w0, B->v + 3 * b0, A->v + 3 * a0);
                        for (int i = 0; i < 4 && bi < 0; i++) {
                            if (ca[i] == a0 && cb[i] == b0)
                                continue;
                            double wi[3], dw[3], t[3];
                            v3_sub(wi, B->v + 3 * cb[i], A->v + 3 * ca[i]);
                            v3_sub(dw, wi, w0);
                            v3_cross(t, n, dw);
                            if (v3_normalize(t) == 0)
                                continue;
                            if (v3_dot(t, w0) < 0)
                                v3_scale(t, t, -1);
                            v3_axpy(cand[i], n, k, t);
                            v3_normalize(cand[i]);
                            double gr = gap_idx(A, B, cand[i], &ca[i], &cb[i]);
                            if (gr > bg) {
                                bg = gr;
                                bi = i;
                            }
                        }
                    }
                    if (bi >= 0) {
                        v3_copy(n, cand[bi]);
                        g = bg;
                        a0 = ca[bi];
                        b0 = cb[bi];
                        /* keep p, q tangent to the new n */
                        v3_axpy(p, p, -v3_dot(p, n), n);
                        v3_normalize(p);
                        v3_cross(q, n, p);
                        v3_normalize(q);
                        /* pattern search: after two successes in a row, try a longer step */
                        if (++wins >= 2 && 2 * k <= kmax) {
                            k *= 2;
                            wins = 0;
                        }
                    } else {
                        k *= 0.5;
                        wins = 0;
                    }
                }
            }
            if (!(g > g_start) || (a0 == ia && b0 == ib))
                break;
        }
        if (outer == CUNDALL_OUTER_MAX)
            capped = 3;
        if (g > best_g) {
            best_g = g;
            v3_copy(best_n, n);
        }
    }
    rve_contact_witness(A, B, best_n, out);
    out->iterations = iters;
    if (capped)
        return rve_err_set(err, RVE_ECAP, NULL, "Cundall common plane: iteration cap %d reached", capped);
    return RVE_OK;
}

/* ------------------------------------------------------------ revised Nezami */
#define NEZAMI_MAX 1000
#define NEZAMI_TIES 8
#define NEZAMI_EDGES 64

/* the edges incident to the vertices S[0..ns), each once (at most NEZAMI_EDGES) */
static int feature_edges(const rve_polyhedron *P, const size_t *S, int ns, size_t *E)
{
    int m = 0;
    for (int t = 0; t < ns; t++)
        for (size_t k = P->vstart[S[t]]; k < P->vstart[S[t] + 1] && m < NEZAMI_EDGES; k++) {
            size_t e = P->vedge[k];
            int seen = 0;
            for (int j = 0; j < m && !seen; j++)
                seen = E[j] == e;
            if (!seen)
                E[m++] = e;
        }
    return m;
}

/* up to NEZAMI_TIES vertices of P with n.x within 1e-12 of the size below max n.x
 * (the deepest first); returns their count (>= 1) */
static int support_feature(const rve_polyhedron *P, const double n[3], size_t *S)
{
    size_t i0 = ct_support_index(P->v, P->nv, n);
    double h = v3_dot(n, P->v + 3 * i0), tol = 1e-12 * (P->radius + fabs(h));
    int m = 0;
    S[m++] = i0;
    for (size_t i = 0; i < P->nv && m < NEZAMI_TIES; i++)
        if (i != i0 && v3_dot(n, P->v + 3 * i) >= h - tol)
            S[m++] = i;
    return m;
}

typedef struct {
    double g;
    double n[3];
} best_plane;

static void try_plane(const rve_polyhedron *A, const rve_polyhedron *B, const double c[3], best_plane *b)
{
    double n[3];
    v3_copy(n, c);
    if (v3_normalize(n) == 0)
        return;
    for (int s = 0; s < 2; s++) {
        double g = gap_of(A, B, n);
        if (g > b->g) {
            b->g = g;
            v3_copy(b->n, n);
        }
        v3_scale(n, n, -1);
    }
}

static rve_status nezami_run(const rve_polyhedron *A, const rve_polyhedron *B, rve_contact *out, rve_err *err)
{
    if (!check_inputs(A, B, out, err))
        return RVE_EUSAGE;
    best_plane cur;
    centre_direction(A, B, cur.n);
    cur.g = gap_of(A, B, cur.n);
    int it;
    for (it = 0; it < NEZAMI_MAX; it++) {
        double nm[3] = {-cur.n[0], -cur.n[1], -cur.n[2]};
        /* the closest vertices: every vertex of each body within rounding of the
         * deepest one (the support features), not one picked among ties: with a
         * single vertex of a face or edge the candidate planes of the other
         * vertices of that feature are missed and the search can stop early */
        size_t SA[NEZAMI_TIES], SB[NEZAMI_TIES];
        int nsa = support_feature(A, cur.n, SA), nsb = support_feature(B, nm, SB);
        best_plane b = cur;
        double c[3];
        /* the edges at those vertices, each once */
        size_t EA[NEZAMI_EDGES], EB[NEZAMI_EDGES];
        int nea = feature_edges(A, SA, nsa, EA), neb = feature_edges(B, SB, nsb, EB);
        /* perpendicular bisectors of the closest vertices */
        for (int ta = 0; ta < nsa; ta++)
            for (int tb = 0; tb < nsb; tb++) {
                v3_sub(c, B->v + 3 * SB[tb], A->v + 3 * SA[ta]);
                try_plane(A, B, c, &b);
            }
        /* faces through the closest vertices (through their edges) */
        for (int k = 0; k < nea; k++)
            for (int j = 0; j < 2; j++)
                try_plane(A, B, A->plane + 4 * A->eface[2 * EA[k] + j], &b);
        for (int k = 0; k < neb; k++)
            for (int j = 0; j < 2; j++)
                try_plane(A, B, B->plane + 4 * B->eface[2 * EB[k] + j], &b);
        /* planes spanned by an edge of each, planes containing one edge and turned
         * towards n, and the plane through an edge's line perpendicular to the
         * segment from it to a closest vertex of the other body (vertex-edge closest
         * features of disjoint bodies) */
        for (int k = 0; k < nea; k++) {
            size_t e1 = EA[k];
            const double *e1a = A->v + 3 * A->edge[2 * e1];
            double d1[3];
            v3_sub(d1, A->v + 3 * A->edge[2 * e1 + 1], e1a);
            v3_normalize(d1);
            for (int l = 0; l < neb; l++) {
                size_t e2 = EB[l];
                double d2[3];
                v3_sub(d2, B->v + 3 * B->edge[2 * e2 + 1], B->v + 3 * B->edge[2 * e2]);
                v3_normalize(d2);
                v3_cross(c, d1, d2);
                if (v3_norm(c) > 1e-12)
                    try_plane(A, B, c, &b);
            }
            v3_axpy(c, cur.n, -v3_dot(cur.n, d1), d1);
            try_plane(A, B, c, &b);
            for (int tb = 0; tb < nsb; tb++) {
                double r[3];
                v3_sub(r, B->v + 3 * SB[tb], e1a);
                v3_axpy(c, r, -v3_dot(r, d1), d1);
                try_plane(A, B, c, &b);
            }
        }
        for (int l = 0; l < neb; l++) {
            size_t e2 = EB[l];
            const double *e2a = B->v + 3 * B->edge[2 * e2];
            double d2[3];
            v3_sub(d2, B->v + 3 * B->edge[2 * e2 + 1], e2a);
            v3_normalize(d2);
            v3_axpy(c, cur.n, -v3_dot(cur.n, d2), d2);
            try_plane(A, B, c, &b);
            for (int ta = 0; ta < nsa; ta++) {
                double r[3];
                v3_sub(r, e2a, A->v + 3 * SA[ta]);
                v3_axpy(c, r, -v3_dot(r, d2), d2);
                try_plane(A, B, c, &b);
            }
        }
        if (!(b.g > cur.g))
            break;
        cur = b;
    }
    rve_contact_witness(A, B, cur.n, out);
    out->iterations = it + 1;
    if (it == NEZAMI_MAX)
        return rve_err_set(err, RVE_ECAP, NULL, "Nezami common plane: iteration cap reached");
    return RVE_OK;
}

/* ------------------------------------------------------------ witness points */
typedef struct {
    double x, y;
} pt2;

static double cross2(pt2 o, pt2 a, pt2 b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

static int pt2_cmp(const void *a, const void *b)
{
    const pt2 *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return (p->y > q->y) - (p->y < q->y);
}

/* convex hull (counter-clockwise, monotone chain) in place; returns the count */
static size_t hull2(pt2 *p, size_t n, pt2 *h)
{
    if (n < 3) {
        memcpy(h, p, n * sizeof *p);
        return n;
    }
    qsort(p, n, sizeof *p, pt2_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        while (k >= 2 && cross2(h[k - 2], h[k - 1], p[i]) <= 0)
            k--;
        h[k++] = p[i];
    }
    for (size_t i = n - 1, t = k + 1; i-- > 0;) {
        while (k >= t && cross2(h[k - 2], h[k - 1], p[i]) <= 0)
            k--;
        h[k++] = p[i];
    }
    return k - 1;
}

/* clip polygon s (n points) by the half-plane left of a->b; result in d */
static size_t clip(const pt2 *s, size_t n, pt2 a, pt2 b, pt2 *d)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        pt2 p = s[i], q = s[(i + 1) % n];
        double cp = cross2(a, b, p), cq = cross2(a, b, q);
        if (cp >= 0)
            d[m++] = p;
        if ((cp >= 0) != (cq >= 0)) {
            double t = cp / (cp - cq);
            d[m].x = p.x + t * (q.x - p.x);
            d[m].y = p.y + t * (q.y - p.y);
            m++;
        }
    }
    return m;
}

static pt2 centroid2(const pt2 *p, size_t n)
{
    pt2 c = {0, 0};
    double a = 0;
    for (size_t i = 0; i < n; i++) {
        pt2 u = p[i], v = p[(i + 1) % n];
        double w = u.x * v.y - v.x * u.y;
        a += w;
        c.x += (u.x + v.x) * w;
        c.y += (u.y + v.y) * w;
    }
    if (fabs(a) > 0) {
        c.x /= 3 * a;
        c.y /= 3 * a;
        return c;
    }
    c.x = c.y = 0;
    for (size_t i = 0; i < n; i++) {
        c.x += p[i].x / (double)n;
        c.y += p[i].y / (double)n;
    }
    return c;
}

#define WIT_MAX 64

void rve_contact_witness(const rve_polyhedron *A, const rve_polyhedron *B, const double n0[3], rve_contact *c)
{
    double n[3], u[3], w[3];
    v3_copy(n, n0);
    v3_normalize(n);
    frame(n, u, w);
    double nm[3] = {-n[0], -n[1], -n[2]};
    double ha = ct_support_value(A->v, A->nv, n), gb = -ct_support_value(B->v, B->nv, nm);
    double tol_a = 1e-9 * (A->radius + fabs(ha)), tol_b = 1e-9 * (B->radius + fabs(gb));
    pt2 fa[WIT_MAX], fb[WIT_MAX], ha2[WIT_MAX + 1], hb2[WIT_MAX + 1];
    size_t na = 0, nb = 0;
    for (size_t i = 0; i < A->nv && na < WIT_MAX; i++) {
        const double *x = A->v + 3 * i;
        if (v3_dot(n, x) >= ha - tol_a) {
            fa[na].x = v3_dot(u, x);
            fa[na].y = v3_dot(w, x);
            na++;
        }
    }
    for (size_t i = 0; i < B->nv && nb < WIT_MAX; i++) {
        const double *x = B->v + 3 * i;
        if (v3_dot(n, x) <= gb + tol_b) {
            fb[nb].x = v3_dot(u, x);
            fb[nb].y = v3_dot(w, x);
            nb++;
        }
    }
    size_t ka = hull2(fa, na, ha2), kb = hull2(fb, nb, hb2);
    pt2 cen;
    pt2 buf1[2 * WIT_MAX + 8], buf2[2 * WIT_MAX + 8];
    if (ka >= 3 && kb >= 3) {
        size_t m = ka;
        memcpy(buf1, ha2, ka * sizeof *buf1);
        for (size_t i = 0; i < kb && m > 0; i++) {
            m = clip(buf1, m, hb2[i], hb2[(i + 1) % kb], buf2);
            memcpy(buf1, buf2, m * sizeof *buf1);
        }
        if (m > 0)
            cen = centroid2(buf1, m);
        else {
            pt2 x = centroid2(ha2, ka), y = centroid2(hb2, kb);
            cen.x = 0.5 * (x.x + y.x);
            cen.y = 0.5 * (x.y + y.y);
        }
    } else {
        /* a vertex or an edge on one side: the point of that feature closest to the
         * other feature's projection (on an edge, the projection of the other
         * centroid clamped to the edge) */
        const pt2 *small = ka < 3 ? ha2 : hb2, *big = ka < 3 ? hb2 : ha2;
        size_t ks = ka < 3 ? ka : kb, kbig = ka < 3 ? kb : ka;
        pt2 o = centroid2(big, kbig);
        if (ks == 1)
            cen = small[0];
        else {
            pt2 a = small[0], b = small[1];
            double dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy;
            double t = l2 > 0 ? ((o.x - a.x) * dx + (o.y - a.y) * dy) / l2 : 0;
            if (kbig >= 2 && kbig < 3) {
                /* edge against edge: intersection of the two segments when they cross */
                pt2 c0 = big[0], c1 = big[1];
                double ex = c1.x - c0.x, ey = c1.y - c0.y, den = dx * ey - dy * ex;
                if (fabs(den) > 0)
                    t = ((c0.x - a.x) * ey - (c0.y - a.y) * ex) / den;
            }
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            cen.x = a.x + t * dx;
            cen.y = a.y + t * dy;
        }
    }
    for (int j = 0; j < 3; j++) {
        c->p[j] = cen.x * u[j] + cen.y * w[j] + ha * n[j];
        c->q[j] = cen.x * u[j] + cen.y * w[j] + gb * n[j];
    }
    c->s = gb - ha;
    v3_copy(c->n, n);
}

/* ------------------------------------------------- extreme magnitudes */
typedef rve_status (*cp_kernel)(const rve_polyhedron *, const rve_polyhedron *, rve_contact *, rve_err *);

/* pairs beyond 2^+-200 run on copies scaled by a power of two (exact) */
static rve_status cp_scaled(cp_kernel kernel, const rve_polyhedron *A, const rve_polyhedron *B, rve_contact *out,
                            rve_err *err)
{
    if (!A || !B || !out)
        return kernel(A, B, out, err);
    dist_scaled_poly S;
    int k = dist_poly_scale(A, B, NULL, &S);
    if (k < 0)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory (scaled copies)");
    if (k == 0)
        return kernel(A, B, out, err);
    rve_status st = kernel(&S.a, &S.b, out, err);
    dist_poly_scale_free(&S);
    if (!dist_contact_unscale(out, S.sc) && (st == RVE_OK || st == RVE_ECAP))
        st = rve_err_set(err, RVE_EDATA, NULL, "the signed distance exceeds the double range");
    return st;
}

rve_status rve_contact_cundall(const rve_polyhedron *A, const rve_polyhedron *B, rve_contact *out, rve_err *err)
{
    return cp_scaled(cundall_run, A, B, out, err);
}

rve_status rve_contact_nezami(const rve_polyhedron *A, const rve_polyhedron *B, rve_contact *out, rve_err *err)
{
    return cp_scaled(nezami_run, A, B, out, err);
}
