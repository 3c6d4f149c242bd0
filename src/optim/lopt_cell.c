/* lopt_cell.c - full Laguerre cells: seed grid and nearest-first clipping (see lopt_int.h). */
#include "config.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#include "optim/lopt_int.h"
#include "util/vec3.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ full cells */
static int cmp_dj(const void *a, const void *b)
{
    double x = ((const dist_j_t *)a)->d, y = ((const dist_j_t *)b)->d;
    return (x > y) - (x < y);
}

/* Seeds binned on a uniform grid (about one seed per bin), for full cells
 * in O(seeds near the cell) instead of sorting all n seeds per cell. */
struct lopt_grid {
    int g[3];
    double lo[3], h[3], hmin, tmax;
    int *start; /* g0 g1 g2 + 1 */
    int *idx;   /* n */
};

static int grid_bin(const lopt_grid *G, const double *p, int a)
{
    int b = (int)floor((p[a] - G->lo[a]) / G->h[a]);
    return b < 0 ? 0 : (b >= G->g[a] ? G->g[a] - 1 : b);
}

lopt_grid *lopt_grid_build(int n, const double *x, const double lo[3], const double hi[3])
{
    lopt_grid *G = calloc(1, sizeof *G);
    if (!G || n < 1) {
        free(G);
        return NULL;
    }
    double ext[3], vol = 1;
    for (int a = 0; a < 3; a++) {
        ext[a] = hi[a] - lo[a] > 0 ? hi[a] - lo[a] : 1;
        vol *= ext[a];
    }
    double side = cbrt(vol / n); /* one seed per bin on average */
    size_t nb = 1;
    G->hmin = 1e300;
    for (int a = 0; a < 3; a++) {
        double g = floor(ext[a] / side);
        G->g[a] = g < 1 ? 1 : (g > 1024 ? 1024 : (int)g);
        G->lo[a] = lo[a];
        G->h[a] = ext[a] / G->g[a];
        G->hmin = G->h[a] < G->hmin ? G->h[a] : G->hmin;
        nb *= (size_t)G->g[a];
    }
    G->start = calloc(nb + 1, sizeof(int));
    G->idx = malloc((size_t)n * sizeof(int));
    int *bin = malloc((size_t)n * sizeof(int));
    if (!G->start || !G->idx || !bin) {
        free(bin);
        lopt_grid_free(G);
        return NULL;
    }
    G->tmax = -1e300;
    for (int j = 0; j < n; j++) {
        const double *p = x + 4 * (size_t)j;
        bin[j] = grid_bin(G, p, 0) + G->g[0] * (grid_bin(G, p, 1) + G->g[1] * grid_bin(G, p, 2));
        G->start[bin[j] + 1]++;
        if (p[3] > G->tmax)
            G->tmax = p[3];
    }
    for (size_t b = 0; b < nb; b++)
        G->start[b + 1] += G->start[b];
    int *fill = malloc(nb * sizeof(int));
    if (!fill) {
        free(bin);
        lopt_grid_free(G);
        return NULL;
    }
    memcpy(fill, G->start, nb * sizeof(int));
    for (int j = 0; j < n; j++)
        G->idx[fill[bin[j]]++] = j;
    free(fill);
    free(bin);
    return G;
}

void lopt_grid_free(lopt_grid *G)
{
    if (!G)
        return;
    free(G->start);
    free(G->idx);
    free(G);
}

static double cell_radius(const cpoly *P, const double *sk)
{
    double R = 0;
    for (int i = 0; i < P->nv; i++) {
        double r = v3_dist(P->v[i], sk);
        if (r > R)
            R = r;
    }
    return R;
}

/* clip P (in *pp, scratch *qq) by the plane of seed j; returns 1 when the
 * cell became empty */
static int clip_by(cpoly **pp, cpoly **qq, const double *x, const double *sk, int j, double D, double *R)
{
    const double *sj = x + 4 * (size_t)j;
    double nrm[3];
    v3_sub(nrm, sj, sk);
    double d = 0.5 * (v3_norm2(sj) - sj[3] - v3_norm2(sk) + sk[3]);
    if (D == 0) {
        if (sk[3] >= sj[3])
            return 0;
        (*pp)->nv = (*pp)->nf = (*pp)->ni = 0;
        return 1;
    }
    if ((d - v3_dot(nrm, sk)) >= *R * D)
        return 0;
    if (cpoly_clip(*pp, *qq, nrm, d, j)) {
        cpoly *tmp = *pp;
        *pp = *qq;
        *qq = tmp;
        if ((*pp)->nv == 0)
            return 1;
        *R = cell_radius(*pp, sk);
    }
    return 0;
}

const cpoly *lopt_full_cell(int n, const double *x, const double lo[3], const double hi[3], int k,
                            cpoly *w0, cpoly *w1, const lopt_grid *G, double *dist)
{
    dist_j_t *o = (dist_j_t *)dist; /* caller gives 2n doubles worth of scratch */
    const double *sk = x + 4 * (size_t)k;
    cpoly *P = w0, *Q = w1;
    cpoly_box(P, lo, hi);
    double R = cell_radius(P, sk);
    if (G) {
        /* rings of bins around the seed's bin, nearest seeds first within a
         * ring; a bin of ring r is at least (r - 1) hmin away, and a plane at
         * distance D misses the cell once 0.5 D + 0.5 (t_k - tmax) / D >= R
         * (increasing in D) */
        int c[3], gmax = 0;
        for (int a = 0; a < 3; a++) {
            c[a] = grid_bin(G, sk, a);
            int e = c[a] > G->g[a] - 1 - c[a] ? c[a] : G->g[a] - 1 - c[a];
            gmax = e > gmax ? e : gmax;
        }
        for (int r = 0; r <= gmax; r++) {
            double Dm = (r - 1) * G->hmin;
            if (Dm > 0 && 0.5 * Dm + 0.5 * (sk[3] - G->tmax) / Dm >= R)
                break;
            int m = 0;
            for (int kz = c[2] - r; kz <= c[2] + r; kz++) {
                if (kz < 0 || kz >= G->g[2])
                    continue;
                for (int ky = c[1] - r; ky <= c[1] + r; ky++) {
                    if (ky < 0 || ky >= G->g[1])
                        continue;
                    int onshell = abs(kz - c[2]) == r || abs(ky - c[1]) == r;
                    int step = onshell ? 1 : 2 * r;
                    for (int kx = c[0] - r; kx <= c[0] + r; kx += (step > 0 ? step : 1)) {
                        if (kx < 0 || kx >= G->g[0])
                            continue;
                        int b = kx + G->g[0] * (ky + G->g[1] * kz);
                        for (int q = G->start[b]; q < G->start[b + 1]; q++) {
                            int j = G->idx[q];
                            if (j == k)
                                continue;
                            o[m].d = v3_dist(sk, x + 4 * (size_t)j);
                            o[m].j = j;
                            m++;
                        }
                    }
                }
            }
            qsort(o, (size_t)m, sizeof *o, cmp_dj);
            for (int q = 0; q < m; q++)
                if (clip_by(&P, &Q, x, sk, o[q].j, o[q].d, &R))
                    return P;
        }
        return P;
    }
    double tmax = -1e300;
    int m = 0;
    for (int j = 0; j < n; j++) {
        if (x[4 * j + 3] > tmax)
            tmax = x[4 * j + 3];
        if (j == k)
            continue;
        o[m].d = v3_dist(sk, x + 4 * (size_t)j);
        o[m].j = j;
        m++;
    }
    qsort(o, (size_t)m, sizeof *o, cmp_dj);
    for (int c = 0; c < m; c++) {
        double D = o[c].d;
        if (D > 0 && 0.5 * D + 0.5 * (sk[3] - tmax) / D >= R)
            break; /* this and every farther plane miss the cell */
        if (clip_by(&P, &Q, x, sk, o[c].j, D, &R))
            return P;
    }
    return P;
}

