/* Separating-axis oracle for convex polytope pairs (see contact_oracle.h). */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "contact_oracle.h"
#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef long double ld;

static void lcross(ld r[3], const ld a[3], const ld b[3])
{
    ld x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    r[0] = x;
    r[1] = y;
    r[2] = z;
}
static ld ldot(const ld a[3], const ld b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static ld lnormalize(ld a[3])
{
    ld l = sqrtl(ldot(a, a));
    if (l > 0)
        for (int i = 0; i < 3; i++)
            a[i] /= l;
    return l;
}

void oracle_poly_free(oracle_poly *P)
{
    free(P->v);
    free(P->fn);
    free(P->ftri);
    free(P->fstart);
    free(P->fvert);
    free(P->edge);
    free(P->eface);
    memset(P, 0, sizeof *P);
}

typedef struct {
    size_t a, b, f;
} hedge;
static int hedge_cmp(const void *x, const void *y)
{
    const hedge *h = x, *k = y;
    if (h->a != k->a)
        return h->a < k->a ? -1 : 1;
    if (h->b != k->b)
        return h->b < k->b ? -1 : 1;
    return 0;
}

int oracle_poly_build(oracle_poly *P, const double *pts, size_t n)
{
    memset(P, 0, sizeof *P);
    coordT *c = malloc(3 * n * sizeof *c);
    for (size_t i = 0; i < 3 * n; i++)
        c[i] = pts[i];
    FILE *ferr = fopen("/dev/null", "w");
    qhT qh_qh, *qh = &qh_qh;
    qh_zero(qh, ferr);
    char cmd[] = "qhull";
    int code = qh_new_qhull(qh, 3, (int)n, c, False, cmd, NULL, ferr);
    if (code) {
        qh_freeqhull(qh, !qh_ALL);
        int a, b;
        qh_memfreeshort(qh, &a, &b);
        fclose(ferr);
        free(c);
        return -1;
    }
    size_t *map = malloc(n * sizeof *map);
    for (size_t i = 0; i < n; i++)
        map[i] = (size_t)-1;
    vertexT *vertex;
    facetT *facet;
    size_t nv = 0, nf = 0, nfv = 0;
    FORALLvertices map[qh_pointid(qh, vertex->point)] = nv++;
    FORALLfacets
    {
        nf++;
        nfv += (size_t)qh_setsize(qh, facet->vertices);
    }
    P->nv = nv;
    P->nf = nf;
    P->v = malloc(3 * nv * sizeof *P->v);
    P->fn = malloc(3 * nf * sizeof *P->fn);
    P->fstart = malloc((nf + 1) * sizeof *P->fstart);
    P->fvert = malloc(nfv * sizeof *P->fvert);
    P->ftri = malloc(3 * nfv * sizeof *P->ftri);
    for (size_t i = 0; i < n; i++)
        if (map[i] != (size_t)-1)
            for (int j = 0; j < 3; j++)
                P->v[3 * map[i] + j] = pts[3 * i + j];
    size_t f = 0, k = 0;
    P->fstart[0] = 0;
    FORALLfacets
    {
        setT *vs = qh_facet3vertex(qh, facet);
        vertexT **vertexp;
        size_t s = k;
        FOREACHvertex_(vs) P->fvert[k++] = map[qh_pointid(qh, vertex->point)];
        qh_settempfree(qh, &vs);
        size_t m = k - s;
        /* normal from the largest triangle of the loop, long double */
        ld best[3] = {0, 0, 0}, bl = -1;
        for (size_t i = 0; i < m; i++)
            for (size_t j = i + 1; j < m; j++)
                for (size_t l = j + 1; l < m; l++) {
                    const ld *a = P->v + 3 * P->fvert[s + i], *b = P->v + 3 * P->fvert[s + j],
                             *d = P->v + 3 * P->fvert[s + l];
                    ld x[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
                    ld y[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]}, z[3];
                    lcross(z, x, y);
                    ld len = ldot(z, z);
                    if (len > bl) {
                        bl = len;
                        memcpy(best, z, sizeof best);
                    }
                    if (m > 12)
                        break;
                }
        lnormalize(best);
        ld qn[3] = {facet->normal[0], facet->normal[1], facet->normal[2]};
        if (ldot(best, qn) < 0) {
            for (int j = 0; j < 3; j++)
                best[j] = -best[j];
        }
        memcpy(P->fn + 3 * f, best, sizeof best);
        /* loop orientation: counter-clockwise around the outward normal */
        ld nn[3] = {0, 0, 0};
        for (size_t i = 0; i < m; i++) {
            const ld *a = P->v + 3 * P->fvert[s + i], *b = P->v + 3 * P->fvert[s + (i + 1) % m];
            nn[0] += (a[1] - b[1]) * (a[2] + b[2]);
            nn[1] += (a[2] - b[2]) * (a[0] + b[0]);
            nn[2] += (a[0] - b[0]) * (a[1] + b[1]);
        }
        if (ldot(nn, best) < 0)
            for (size_t i = 0; i < m / 2; i++) {
                size_t t = P->fvert[s + i];
                P->fvert[s + i] = P->fvert[k - 1 - i];
                P->fvert[k - 1 - i] = t;
            }
        for (size_t i = 1; i + 1 < m; i++) {
            P->ftri[3 * P->nt] = P->fvert[s];
            P->ftri[3 * P->nt + 1] = P->fvert[s + i];
            P->ftri[3 * P->nt + 2] = P->fvert[s + i + 1];
            P->nt++;
        }
        f++;
        P->fstart[f] = k;
    }
    qh_freeqhull(qh, !qh_ALL);
    int a, b;
    qh_memfreeshort(qh, &a, &b);
    fclose(ferr);
    free(c);
    free(map);
    /* edges */
    hedge *h = malloc(nfv * sizeof *h);
    for (f = 0; f < nf; f++) {
        size_t s = P->fstart[f], m = P->fstart[f + 1] - s;
        for (size_t i = 0; i < m; i++) {
            size_t u = P->fvert[s + i], w = P->fvert[s + (i + 1) % m];
            h[s + i].a = u < w ? u : w;
            h[s + i].b = u < w ? w : u;
            h[s + i].f = f;
        }
    }
    qsort(h, nfv, sizeof *h, hedge_cmp);
    P->ne = nfv / 2;
    P->edge = malloc(2 * P->ne * sizeof *P->edge);
    P->eface = malloc(2 * P->ne * sizeof *P->eface);
    for (size_t e = 0; e < P->ne; e++) {
        P->edge[2 * e] = h[2 * e].a;
        P->edge[2 * e + 1] = h[2 * e].b;
        P->eface[2 * e] = h[2 * e].f;
        P->eface[2 * e + 1] = h[2 * e + 1].f;
    }
    free(h);
    return 0;
}

static ld support_max(const oracle_poly *P, const ld n[3])
{
    ld m = -INFINITY;
    for (size_t i = 0; i < P->nv; i++) {
        ld t = ldot(n, P->v + 3 * i);
        if (t > m)
            m = t;
    }
    return m;
}

ld oracle_h(const oracle_poly *A, const oracle_poly *B, const ld n[3])
{
    ld m[3] = {-n[0], -n[1], -n[2]};
    return support_max(A, n) + support_max(B, m);
}

int oracle_inside(const oracle_poly *P, const ld x[3], ld tol)
{
    for (size_t f = 0; f < P->nf; f++) {
        const ld *nn = P->fn + 3 * f;
        const ld *a = P->v + 3 * P->fvert[P->fstart[f]];
        ld d[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
        if (ldot(nn, d) > tol)
            return 0;
    }
    return 1;
}

/* ------------------------------------------------ separated: brute force distance */
static ld clampl(ld x, ld lo, ld hi) { return x < lo ? lo : x > hi ? hi : x; }

/* squared distance from p to triangle abc (Ericson 5.1.5) */
static ld pt_tri2(const ld p[3], const ld a[3], const ld b[3], const ld c[3])
{
    ld ab[3], ac[3], ap[3], r[3];
    for (int i = 0; i < 3; i++) {
        ab[i] = b[i] - a[i];
        ac[i] = c[i] - a[i];
        ap[i] = p[i] - a[i];
    }
    ld d1 = ldot(ab, ap), d2 = ldot(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        memcpy(r, a, sizeof r);
        goto out;
    }
    ld bp[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]};
    ld d3 = ldot(ab, bp), d4 = ldot(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        memcpy(r, b, sizeof r);
        goto out;
    }
    ld vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        ld v = d1 / (d1 - d3);
        for (int i = 0; i < 3; i++)
            r[i] = a[i] + v * ab[i];
        goto out;
    }
    ld cp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    ld d5 = ldot(ab, cp), d6 = ldot(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        memcpy(r, c, sizeof r);
        goto out;
    }
    ld vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        ld w = d2 / (d2 - d6);
        for (int i = 0; i < 3; i++)
            r[i] = a[i] + w * ac[i];
        goto out;
    }
    ld va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        ld w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int i = 0; i < 3; i++)
            r[i] = b[i] + w * (c[i] - b[i]);
        goto out;
    }
    {
        ld den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
        for (int i = 0; i < 3; i++)
            r[i] = a[i] + ab[i] * v + ac[i] * w;
    }
out:;
    ld d[3] = {p[0] - r[0], p[1] - r[1], p[2] - r[2]};
    return ldot(d, d);
}

/* squared distance between segments p1q1 and p2q2 (Ericson 5.1.9) */
static ld seg_seg2(const ld p1[3], const ld q1[3], const ld p2[3], const ld q2[3])
{
    ld d1[3], d2[3], r[3];
    for (int i = 0; i < 3; i++) {
        d1[i] = q1[i] - p1[i];
        d2[i] = q2[i] - p2[i];
        r[i] = p1[i] - p2[i];
    }
    ld a = ldot(d1, d1), e = ldot(d2, d2), f = ldot(d2, r), s, t;
    ld c = ldot(d1, r), b = ldot(d1, d2), den = a * e - b * b;
    s = den > 0 ? clampl((b * f - c * e) / den, 0, 1) : 0;
    t = (b * s + f) / e;
    if (t < 0) {
        t = 0;
        s = clampl(-c / a, 0, 1);
    } else if (t > 1) {
        t = 1;
        s = clampl((b - c) / a, 0, 1);
    }
    ld x[3];
    for (int i = 0; i < 3; i++)
        x[i] = p1[i] + d1[i] * s - p2[i] - d2[i] * t;
    return ldot(x, x);
}

static ld brute_distance(const oracle_poly *A, const oracle_poly *B)
{
    ld best = INFINITY;
    for (int pass = 0; pass < 2; pass++) {
        const oracle_poly *P = pass ? B : A, *Q = pass ? A : B;
        for (size_t i = 0; i < P->nv; i++)
            for (size_t t = 0; t < Q->nt; t++) {
                ld d = pt_tri2(P->v + 3 * i, Q->v + 3 * Q->ftri[3 * t], Q->v + 3 * Q->ftri[3 * t + 1],
                               Q->v + 3 * Q->ftri[3 * t + 2]);
                if (d < best)
                    best = d;
            }
    }
    for (size_t i = 0; i < A->ne; i++)
        for (size_t j = 0; j < B->ne; j++) {
            ld d = seg_seg2(A->v + 3 * A->edge[2 * i], A->v + 3 * A->edge[2 * i + 1], B->v + 3 * B->edge[2 * j],
                            B->v + 3 * B->edge[2 * j + 1]);
            if (d < best)
                best = d;
        }
    return sqrtl(best);
}

/* ------------------------------------------------------------- candidates */
typedef struct {
    ld best, second;
    ld n[3], n2[3];
    size_t count;
    int kind, cur;
} cand_state;

static void consider(cand_state *st, const oracle_poly *A, const oracle_poly *B, const ld n0[3])
{
    for (int sgn = -1; sgn <= 1; sgn += 2) {
        ld n[3] = {sgn * n0[0], sgn * n0[1], sgn * n0[2]};
        ld h = oracle_h(A, B, n);
        st->count++;
        if (h < st->best) {
            /* the old best becomes a second candidate if its normal differs */
            ld c = ldot(n, st->n);
            if (c < 1 - 1e-14L) {
                st->second = st->best;
                memcpy(st->n2, st->n, sizeof st->n2);
            }
            st->best = h;
            st->kind = st->cur;
            memcpy(st->n, n, sizeof st->n);
        } else if (h < st->second) {
            ld c = ldot(n, st->n);
            if (c < 1 - 1e-14L) {
                st->second = h;
                memcpy(st->n2, n, sizeof st->n2);
            }
        }
    }
}

void oracle_contact(const oracle_poly *A, const oracle_poly *B, int brute, oracle_result *r)
{
    cand_state st = {INFINITY, INFINITY, {1, 0, 0}, {1, 0, 0}, 0, 0, 0};
    for (int side = 0; side < 2; side++) {
        const oracle_poly *P = side ? B : A;
        st.cur = side;
        for (size_t f = 0; f < P->nf; f++) {
            consider(&st, A, B, P->fn + 3 * f);
            /* a merged facet (nearly coplanar vertices, e.g. rotated box faces after
             * rounding): the true hull facets are triangles of its vertices */
            size_t s0 = P->fstart[f], m = P->fstart[f + 1] - s0;
            if (m > 3 && m <= 8)
                for (size_t i = 0; i < m; i++)
                    for (size_t j = i + 1; j < m; j++)
                        for (size_t l = j + 1; l < m; l++) {
                            const ld *a = P->v + 3 * P->fvert[s0 + i], *b = P->v + 3 * P->fvert[s0 + j],
                                     *d = P->v + 3 * P->fvert[s0 + l];
                            ld x[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
                            ld y[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]}, z[3];
                            lcross(z, x, y);
                            if (lnormalize(z) > 0)
                                consider(&st, A, B, z);
                        }
        }
    }
    st.cur = 2;
    const ld tol = 1e-12L;
    for (size_t i = 0; i < A->ne; i++) {
        const ld *a = A->fn + 3 * A->eface[2 * i], *b = A->fn + 3 * A->eface[2 * i + 1];
        const ld *pa = A->v + 3 * A->edge[2 * i], *qa = A->v + 3 * A->edge[2 * i + 1];
        ld ea[3] = {qa[0] - pa[0], qa[1] - pa[1], qa[2] - pa[2]};
        ld bxa[3];
        lcross(bxa, b, a);
        int flat_a = lnormalize(bxa) == 0;
        for (size_t j = 0; j < B->ne; j++) {
            const ld *pb = B->v + 3 * B->edge[2 * j], *qb = B->v + 3 * B->edge[2 * j + 1];
            ld eb[3] = {qb[0] - pb[0], qb[1] - pb[1], qb[2] - pb[2]};
            if (!brute && !flat_a) {
                const ld *c0 = B->fn + 3 * B->eface[2 * j], *d0 = B->fn + 3 * B->eface[2 * j + 1];
                ld c[3] = {-c0[0], -c0[1], -c0[2]}, d[3] = {-d0[0], -d0[1], -d0[2]}, dxc[3];
                lcross(dxc, d, c);
                if (lnormalize(dxc) > 0) {
                    ld cba = ldot(c, bxa), dba = ldot(d, bxa), adc = ldot(a, dxc), bdc = ldot(b, dxc);
                    if (!(cba * dba < tol && adc * bdc < tol && cba * bdc > -tol))
                        continue;
                }
            }
            ld n[3];
            lcross(n, ea, eb);
            if (lnormalize(n) == 0)
                continue;
            consider(&st, A, B, n);
        }
    }
    r->ncand = st.count;
    memcpy(r->n, st.n, sizeof r->n);
    r->kind = st.kind;
    if (st.best > 0) {
        r->s = -st.best;
        /* unique if the runner-up is worse by a clear margin relative to the size */
        ld scale = fabsl(st.best);
        for (size_t i = 0; i < 3 * A->nv; i++)
            if (fabsl(A->v[i]) > scale)
                scale = fabsl(A->v[i]);
        for (size_t i = 0; i < 3 * B->nv; i++)
            if (fabsl(B->v[i]) > scale)
                scale = fabsl(B->v[i]);
        r->unique = st.second - st.best > 1e-6L * scale;
    } else {
        r->s = brute_distance(A, B);
        r->unique = 0;
        r->kind = -1;
    }
}
