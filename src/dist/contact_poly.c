/* Convex polyhedra for the contact kernels: hull (qhull), faces, edges, adjacency. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <rve/dist.h>
#include "util/vec3.h"
#include "dist/contact_internal.h"
#include "dist/dist_internal.h"

#include <libqhull_r/qhull_ra.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rve_polyhedron_free(rve_polyhedron *P)
{
    if (!P)
        return;
    free(P->v);
    free(P->plane);
    free(P->fstart);
    free(P->fvert);
    free(P->edge);
    free(P->eface);
    free(P->vstart);
    free(P->vedge);
    rve_poly_graph_free(&P->graph);
    free(P);
}

/* The hill-climbing graph of the support queries from the edges (O(nv + ne),
 * no second hull): above DIST_GRAPH_MIN_NV vertices, where the queries use
 * it.  Out of memory leaves it empty (the brute-force support then).  Its
 * start table comes from the final vertices (poly_graph_directions). */
static void poly_graph(rve_polyhedron *P)
{
    memset(&P->graph, 0, sizeof P->graph);
    if (P->nv <= DIST_GRAPH_MIN_NV || P->nv > (size_t)INT_MAX / 2 || P->ne == 0)
        return;
    rve_poly_graph *g = &P->graph;
    g->off = malloc((P->nv + 1) * sizeof *g->off);
    g->nbr = malloc(2 * P->ne * sizeof *g->nbr);
    if (!g->off || !g->nbr) {
        rve_poly_graph_free(g);
        return;
    }
    for (size_t i = 0; i <= P->nv; i++)
        g->off[i] = (int)P->vstart[i];
    for (size_t i = 0; i < P->nv; i++)
        for (size_t k = P->vstart[i]; k < P->vstart[i + 1]; k++) {
            size_t e = P->vedge[k];
            g->nbr[k] = (int)(P->edge[2 * e] == i ? P->edge[2 * e + 1] : P->edge[2 * e]);
        }
    g->nv = (int)P->nv;
    g->start = (int)P->edge[0];
}

static void poly_graph_directions(rve_polyhedron *P)
{
    if (P->graph.off)
        dist_graph_directions(&P->graph, P->v);
}

void rve_polyhedron_support(const rve_polyhedron *P, const double d[3], double out[3])
{
    size_t k = ct_support_index(P->v, P->nv, d);
    v3_copy(out, P->v + 3 * k);
}

typedef struct {
    size_t a, b; /* a < b */
    size_t face;
    int fwd; /* 1 if the face runs a -> b */
} halfedge;

static int halfedge_cmp(const void *x, const void *y)
{
    const halfedge *h = x, *k = y;
    if (h->a != k->a)
        return h->a < k->a ? -1 : 1;
    if (h->b != k->b)
        return h->b < k->b ? -1 : 1;
    return h->fwd - k->fwd;
}

/* Faces given (v, plane, fstart, fvert filled): derive edges, vertex-edge
 * adjacency, volume, centroid, radius. Returns RVE_OK or an error. */
static rve_status finish(rve_polyhedron *P, rve_err *err)
{
    size_t nh = P->fstart[P->nf];
    halfedge *h = malloc(nh * sizeof *h);
    if (!h)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    size_t k = 0;
    for (size_t f = 0; f < P->nf; f++) {
        size_t s = P->fstart[f], e = P->fstart[f + 1], m = e - s;
        for (size_t i = 0; i < m; i++) {
            size_t u = P->fvert[s + i], w = P->fvert[s + (i + 1) % m];
            h[k].a = u < w ? u : w;
            h[k].b = u < w ? w : u;
            h[k].face = f;
            h[k].fwd = u < w;
            k++;
        }
    }
    qsort(h, nh, sizeof *h, halfedge_cmp);
    if (nh % 2) {
        free(h);
        return rve_err_set(err, RVE_EINTERNAL, NULL, "hull is not a closed surface");
    }
    P->ne = nh / 2;
    P->edge = malloc(2 * P->ne * sizeof *P->edge);
    P->eface = malloc(2 * P->ne * sizeof *P->eface);
    P->vstart = calloc(P->nv + 1, sizeof *P->vstart);
    P->vedge = malloc(2 * P->ne * sizeof *P->vedge);
    if (!P->edge || !P->eface || !P->vstart || !P->vedge) {
        free(h);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (size_t e = 0; e < P->ne; e++) {
        halfedge *x = &h[2 * e], *y = &h[2 * e + 1];
        if (x->a != y->a || x->b != y->b || x->fwd == y->fwd) {
            free(h);
            return rve_err_set(err, RVE_EINTERNAL, NULL, "hull edges are not manifold");
        }
        /* y->fwd = 1: face y runs a -> b */
        P->edge[2 * e] = x->a;
        P->edge[2 * e + 1] = x->b;
        P->eface[2 * e] = y->face;
        P->eface[2 * e + 1] = x->face;
        P->vstart[x->a + 1]++;
        P->vstart[x->b + 1]++;
    }
    free(h);
    for (size_t i = 0; i < P->nv; i++)
        P->vstart[i + 1] += P->vstart[i];
    size_t *fill = calloc(P->nv, sizeof *fill);
    if (!fill)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (size_t e = 0; e < P->ne; e++)
        for (int j = 0; j < 2; j++) {
            size_t v = P->edge[2 * e + j];
            P->vedge[P->vstart[v] + fill[v]++] = e;
        }
    free(fill);
    poly_graph(P);
    poly_graph_directions(P);

    /* volume and centroid by tetrahedra from the vertex mean */
    long double o[3] = {0, 0, 0};
    for (size_t i = 0; i < P->nv; i++)
        for (int j = 0; j < 3; j++)
            o[j] += P->v[3 * i + j];
    for (int j = 0; j < 3; j++)
        o[j] /= (long double)P->nv;
    long double vol = 0, c[3] = {0, 0, 0};
    for (size_t f = 0; f < P->nf; f++) {
        size_t s = P->fstart[f], m = P->fstart[f + 1] - s;
        const double *a = P->v + 3 * P->fvert[s];
        for (size_t i = 1; i + 1 < m; i++) {
            const double *b = P->v + 3 * P->fvert[s + i], *d = P->v + 3 * P->fvert[s + i + 1];
            long double x[3], y[3], z[3];
            for (int j = 0; j < 3; j++) {
                x[j] = a[j] - o[j];
                y[j] = b[j] - o[j];
                z[j] = d[j] - o[j];
            }
            long double det = x[0] * (y[1] * z[2] - y[2] * z[1]) - x[1] * (y[0] * z[2] - y[2] * z[0]) +
                              x[2] * (y[0] * z[1] - y[1] * z[0]);
            vol += det / 6;
            for (int j = 0; j < 3; j++)
                c[j] += det / 6 * (x[j] + y[j] + z[j]) / 4;
        }
    }
    if (!(vol > 0))
        return rve_err_set(err, RVE_EDATA, NULL, "polyhedron has no volume");
    P->volume = (double)vol;
    for (int j = 0; j < 3; j++)
        P->centroid[j] = (double)(o[j] + c[j] / vol);
    /* in long double: the squares of coordinates beyond 1e154 overflow a double */
    long double r2 = 0;
    for (size_t i = 0; i < P->nv; i++) {
        long double d2 = 0;
        for (int j = 0; j < 3; j++) {
            long double t = (long double)P->v[3 * i + j] - P->centroid[j];
            d2 += t * t;
        }
        if (d2 > r2)
            r2 = d2;
    }
    P->radius = (double)sqrtl(r2);
    return RVE_OK;
}

/* Newell normal of face f in long double, normalised; offset = mean n.v. */
static void face_plane(rve_polyhedron *P, size_t f)
{
    size_t s = P->fstart[f], m = P->fstart[f + 1] - s;
    long double n[3] = {0, 0, 0}, c[3] = {0, 0, 0};
    for (size_t i = 0; i < m; i++)
        for (int j = 0; j < 3; j++)
            c[j] += P->v[3 * P->fvert[s + i] + j];
    for (int j = 0; j < 3; j++)
        c[j] /= (long double)m;
    for (size_t i = 0; i < m; i++) {
        const double *a = P->v + 3 * P->fvert[s + i], *b = P->v + 3 * P->fvert[s + (i + 1) % m];
        long double x[3] = {a[0] - c[0], a[1] - c[1], a[2] - c[2]};
        long double y[3] = {b[0] - c[0], b[1] - c[1], b[2] - c[2]};
        n[0] += x[1] * y[2] - x[2] * y[1];
        n[1] += x[2] * y[0] - x[0] * y[2];
        n[2] += x[0] * y[1] - x[1] * y[0];
    }
    long double l = sqrtl(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double *pl = P->plane + 4 * f;
    for (int j = 0; j < 3; j++)
        pl[j] = (double)(n[j] / l);
    long double d = 0;
    for (size_t i = 0; i < m; i++) {
        const double *a = P->v + 3 * P->fvert[s + i];
        d += (long double)pl[0] * a[0] + (long double)pl[1] * a[1] + (long double)pl[2] * a[2];
    }
    pl[3] = (double)(d / (long double)m);
}

rve_status rve_polyhedron_alloc(rve_polyhedron **out, const double *pts, size_t n, rve_err *err)
{
    *out = NULL;
    if (n < 4)
        return rve_err_set(err, RVE_EDATA, NULL, "a polyhedron needs at least 4 points, got %zu", n);
    if (n > 100000000)
        return rve_err_set(err, RVE_EDATA, NULL, "too many points (%zu)", n);
    for (size_t i = 0; i < 3 * n; i++)
        if (!isfinite(pts[i]))
            return rve_err_set(err, RVE_EDATA, NULL, "point %zu has a non-finite coordinate", i / 3);
    coordT *coords = malloc(3 * n * sizeof *coords);
    if (!coords)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    /* qhull works on the points times 2^-sc (exact), max|coordinate| in
     * [1, 2): its squares and determinants overflow beyond about 1e150 and
     * underflow below 1e-150; the polyhedron keeps the caller's values */
    double L = 0;
    for (size_t i = 0; i < 3 * n; i++)
        L = fmax(L, fabs(pts[i]));
    int sc = L > 0 ? ilogb(L) : 0;
    for (size_t i = 0; i < 3 * n; i++)
        coords[i] = ldexp(pts[i], -sc);
    char *errbuf = NULL;
    size_t errlen = 0;
    FILE *ferr = open_memstream(&errbuf, &errlen);
    if (!ferr) {
        free(coords);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    qhT qh_qh;
    qhT *qh = &qh_qh;
    qh_zero(qh, ferr);
    char cmd[] = "qhull Qs";
    int code = qh_new_qhull(qh, 3, (int)n, coords, False, cmd, NULL, ferr);
    rve_status st = RVE_OK;
    rve_polyhedron *P = NULL;
    if (code) {
        fflush(ferr);
        /* first line of qhull's message, e.g. "QH6154 initial simplex is flat" */
        char line[200] = "";
        if (errbuf) {
            size_t i = 0;
            while (errbuf[i] && errbuf[i] != '\n' && i + 1 < sizeof line) {
                line[i] = errbuf[i];
                i++;
            }
            line[i] = 0;
        }
        st = rve_err_set(err, RVE_EDATA, NULL, "points do not span a solid (qhull: %s)",
                         line[0] ? line : "error");
        goto done;
    }
    P = calloc(1, sizeof *P);
    if (!P) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    /* compact vertex numbering */
    size_t *map = malloc(n * sizeof *map);
    if (!map) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        map[i] = (size_t)-1;
    vertexT *vertex;
    size_t nv = 0;
    FORALLvertices
    {
        int id = qh_pointid(qh, vertex->point);
        if (id >= 0 && (size_t)id < n && map[id] == (size_t)-1)
            map[id] = nv++;
    }
    facetT *facet;
    size_t nf = 0, nfv = 0;
    FORALLfacets
    {
        nf++;
        nfv += (size_t)qh_setsize(qh, facet->vertices);
    }
    P->nv = nv;
    P->nf = nf;
    P->v = malloc(3 * nv * sizeof *P->v);
    P->plane = malloc(4 * nf * sizeof *P->plane);
    P->fstart = malloc((nf + 1) * sizeof *P->fstart);
    P->fvert = malloc(nfv * sizeof *P->fvert);
    if (!P->v || !P->plane || !P->fstart || !P->fvert) {
        free(map);
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (map[i] != (size_t)-1)
            v3_copy(P->v + 3 * map[i], pts + 3 * i);
    size_t f = 0, k = 0;
    P->fstart[0] = 0;
    FORALLfacets
    {
        setT *vs = qh_facet3vertex(qh, facet);
        vertexT **vertexp;
        size_t s = k;
        FOREACHvertex_(vs)
        {
            P->fvert[k++] = map[qh_pointid(qh, vertex->point)];
        }
        qh_settempfree(qh, &vs);
        P->fstart[f + 1] = k;
        /* orient counter-clockwise seen from outside (compare with qhull's normal) */
        size_t m = k - s;
        double nn[3] = {0, 0, 0};
        for (size_t i = 0; i < m; i++) {
            const double *a0 = P->v + 3 * P->fvert[s + i], *b0 = P->v + 3 * P->fvert[s + (i + 1) % m];
            double a[3], b[3]; /* in qhull's units: no overflow */
            for (int j = 0; j < 3; j++) {
                a[j] = ldexp(a0[j], -sc);
                b[j] = ldexp(b0[j], -sc);
            }
            nn[0] += (a[1] - b[1]) * (a[2] + b[2]);
            nn[1] += (a[2] - b[2]) * (a[0] + b[0]);
            nn[2] += (a[0] - b[0]) * (a[1] + b[1]);
        }
        if (v3_dot(nn, facet->normal) < 0)
            for (size_t i = 0; i < m / 2; i++) {
                size_t t = P->fvert[s + i];
                P->fvert[s + i] = P->fvert[k - 1 - i];
                P->fvert[k - 1 - i] = t;
            }
        face_plane(P, f);
        f++;
    }
    free(map);
    st = finish(P, err);
done:
    qh_freeqhull(qh, !qh_ALL);
    int curlong, totlong;
    qh_memfreeshort(qh, &curlong, &totlong);
    fclose(ferr);
    free(errbuf);
    free(coords);
    if (st != RVE_OK) {
        rve_polyhedron_free(P);
        return st;
    }
    *out = P;
    return RVE_OK;
}

rve_status rve_polyhedron_transform(rve_polyhedron **out, const rve_polyhedron *P, const double q[4],
                                    const double t[3], rve_err *err)
{
    *out = NULL;
    double qq[4] = {1, 0, 0, 0}, tt[3] = {0, 0, 0};
    if (q) {
        double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(l > 0) || !isfinite(l))
            return rve_err_set(err, RVE_EDATA, NULL, "rotation quaternion is zero or not finite");
        for (int i = 0; i < 4; i++)
            qq[i] = q[i] / l;
    }
    if (t) {
        if (!isfinite(t[0]) || !isfinite(t[1]) || !isfinite(t[2]))
            return rve_err_set(err, RVE_EDATA, NULL, "translation is not finite");
        v3_copy(tt, t);
    }
    rve_polyhedron *R = calloc(1, sizeof *R);
    if (!R)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    *R = *P;
    memset(&R->graph, 0, sizeof R->graph); /* built below from the copied edges */
    size_t nfv = P->fstart[P->nf];
    R->v = malloc(3 * P->nv * sizeof *R->v);
    R->plane = malloc(4 * P->nf * sizeof *R->plane);
    R->fstart = malloc((P->nf + 1) * sizeof *R->fstart);
    R->fvert = malloc(nfv * sizeof *R->fvert);
    R->edge = malloc(2 * P->ne * sizeof *R->edge);
    R->eface = malloc(2 * P->ne * sizeof *R->eface);
    R->vstart = malloc((P->nv + 1) * sizeof *R->vstart);
    R->vedge = malloc(2 * P->ne * sizeof *R->vedge);
    if (!R->v || !R->plane || !R->fstart || !R->fvert || !R->edge || !R->eface || !R->vstart ||
        !R->vedge) {
        rve_polyhedron_free(R);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    memcpy(R->fstart, P->fstart, (P->nf + 1) * sizeof *R->fstart);
    memcpy(R->fvert, P->fvert, nfv * sizeof *R->fvert);
    memcpy(R->edge, P->edge, 2 * P->ne * sizeof *R->edge);
    memcpy(R->eface, P->eface, 2 * P->ne * sizeof *R->eface);
    memcpy(R->vstart, P->vstart, (P->nv + 1) * sizeof *R->vstart);
    memcpy(R->vedge, P->vedge, 2 * P->ne * sizeof *R->vedge);
    poly_graph(R);
    for (size_t i = 0; i < P->nv; i++) {
        double x[3];
        v3_qrot(x, qq, P->v + 3 * i);
        v3_add(R->v + 3 * i, x, tt);
    }
    poly_graph_directions(R); /* the rotated vertices' extremes */
    for (size_t f = 0; f < P->nf; f++)
        face_plane(R, f);
    double c[3];
    v3_qrot(c, qq, P->centroid);
    v3_add(R->centroid, c, tt);
    *out = R;
    return RVE_OK;
}
