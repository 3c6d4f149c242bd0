/* Hull edge graph of a point set (qhull, reentrant API) for hill-climbing
 * support queries on large polytopes. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include <rve/dist.h>
#include <libqhull_r/qhull_ra.h>
#include "dist/dist_internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_edge(const void *a, const void *b)
{
    const int *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

void rve_poly_graph_free(rve_poly_graph *g)
{
    if (!g)
        return;
    free(g->off);
    free(g->nbr);
    memset(g, 0, sizeof *g);
}

rve_status rve_poly_graph_build(const double *verts, int nv, rve_poly_graph *g, rve_err *err)
{
    memset(g, 0, sizeof *g);
    if (nv < 4)
        return rve_err_set(err, RVE_EDATA, NULL, "a hull graph needs at least 4 points, got %d", nv);
    coordT *pts = malloc((size_t)nv * 3 * sizeof *pts);
    if (!pts)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory for %d hull points", nv);
    for (size_t i = 0; i < (size_t)nv * 3; i++)
        pts[i] = verts[i];
    FILE *devnull = fopen("/dev/null", "w");
    qhT qh_qh;
    qhT *qh = &qh_qh;
    qh_zero(qh, devnull);
    char cmd[] = "qhull Qt";
    int code = qh_new_qhull(qh, 3, nv, pts, False, cmd, NULL, devnull);
    rve_status st = RVE_OK;
    int *edges = NULL;
    size_t ne = 0, cap = 0;
    if (code != 0) {
        st = rve_err_set(err, RVE_EDATA, NULL, "the %d points have no 3-D hull (flat or degenerate)", nv);
    } else {
        facetT *facet;
        vertexT *vertex, **vertexp;
        FORALLfacets {
            int id[3], k = 0;
            FOREACHvertex_(facet->vertices) {
                if (k < 3)
                    id[k] = qh_pointid(qh, vertex->point);
                k++;
            }
            if (k != 3)
                continue;
            if (ne + 6 > cap) {
                cap = cap ? 2 * cap : 1024;
                int *t = realloc(edges, cap * 2 * sizeof *t);
                if (!t) {
                    st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory for the hull graph");
                    break;
                }
                edges = t;
            }
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    if (a != b && id[a] >= 0 && id[a] < nv && id[b] >= 0 && id[b] < nv) {
                        edges[2 * ne] = id[a];
                        edges[2 * ne + 1] = id[b];
                        ne++;
                    }
        }
    }
    qh_freeqhull(qh, !qh_ALL);
    int curlong, totlong;
    qh_memfreeshort(qh, &curlong, &totlong);
    if (devnull)
        fclose(devnull);
    free(pts);
    if (st == RVE_OK && ne == 0)
        st = rve_err_set(err, RVE_EDATA, NULL, "the hull of the %d points has no edges", nv);
    if (st != RVE_OK) {
        free(edges);
        return st;
    }
    qsort(edges, ne, 2 * sizeof *edges, cmp_edge);
    g->off = calloc((size_t)nv + 1, sizeof *g->off);
    g->nbr = malloc(ne * sizeof *g->nbr);
    if (!g->off || !g->nbr) {
        free(edges);
        rve_poly_graph_free(g);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory for the hull graph");
    }
    size_t m = 0;
    for (size_t i = 0; i < ne; i++) {
        if (i > 0 && edges[2 * i] == edges[2 * i - 2] && edges[2 * i + 1] == edges[2 * i - 1])
            continue;
        g->nbr[m++] = edges[2 * i + 1];
        g->off[edges[2 * i] + 1]++;
    }
    for (int i = 0; i < nv; i++)
        g->off[i + 1] += g->off[i];
    g->nv = nv;
    g->start = edges[0];
    free(edges);
    dist_graph_directions(g, verts);
    return RVE_OK;
}

void dist_graph_directions(rve_poly_graph *g, const double *V)
{
    g->ndir = 0;
    for (int k = 0; k < 14; k++) {
        double d[3] = {0, 0, 0};
        if (k < 6)
            d[k / 2] = k % 2 ? -1 : 1; /* +x, -x, +y, -y, +z, -z */
        else
            for (int c = 0; c < 3; c++)
                d[c] = (k - 6) >> c & 1 ? -1 : 1; /* octant bits: negative x 1, y 2, z 4 */
        /* hull vertices only: a point on a face (no edges) ties with the
         * vertices along some directions but is no place to climb from */
        int best = -1;
        double bd = -INFINITY;
        for (int i = 0; i < g->nv; i++) {
            if (g->off[i] == g->off[i + 1])
                continue;
            double t = V[3 * i] * d[0] + V[3 * i + 1] * d[1] + V[3 * i + 2] * d[2];
            if (t > bd || best < 0) {
                bd = t;
                best = i;
            }
        }
        if (best < 0)
            return;
        g->dir[k] = best;
    }
    for (int i = 0; i < 3; i++) {
        g->dir_at[i] = V[3 * g->dir[0] + i];
        /* axis i's extremes are entries 2 i (+) and 2 i + 1 (-) */
        g->dir_mid[i] = 0.5 * V[3 * g->dir[2 * i] + i] + 0.5 * V[3 * g->dir[2 * i + 1] + i];
    }
    g->ndir = 14;
}
