/* fit_classify.c - passive-aggressive classifier epochs (see fit_int.h). */
#include "config.h"
#include "optim/fit_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------ classifier refinement */
/* Grain adjacency in the map (face neighbours), CSR: the rivals of grain g
 * are adj[as[g] .. as[g+1]-1].  Returns -1 when out of memory. */
static int grain_adjacency(const fitctx *F, int **as_out, int **adj_out)
{
    const rve_map *m = F->m;
    int n = F->n;
    size_t cap = 64, na = 0;
    uint64_t *pairs = malloc(cap * sizeof(uint64_t));
    int *as = calloc((size_t)n + 1, sizeof(int)), *adj = NULL;
    if (!pairs || !as)
        goto oom;
    for (int k = 0; k < m->nz; k++)
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++) {
                uint32_t l = m->lab[rve_map_index(m, i, j, k)];
                if (!l)
                    continue;
                for (int a = 0; a < 3; a++) {
                    int ii = i + (a == 0), jj = j + (a == 1), kk = k + (a == 2);
                    if (ii >= m->nx || jj >= m->ny || kk >= m->nz)
                        continue;
                    uint32_t l2 = m->lab[rve_map_index(m, ii, jj, kk)];
                    if (!l2 || l2 == l)
                        continue;
                    int g = F->cell_of[l], h = F->cell_of[l2];
                    if (na + 2 > cap) {
                        uint64_t *np = realloc(pairs, 2 * cap * sizeof(uint64_t));
                        if (!np)
                            goto oom;
                        pairs = np;
                        cap *= 2;
                    }
                    pairs[na++] = ((uint64_t)g << 32) | (uint32_t)h;
                    pairs[na++] = ((uint64_t)h << 32) | (uint32_t)g;
                }
            }
    qsort(pairs, na, sizeof(uint64_t), cmp_u64);
    size_t nu = 0;
    for (size_t q = 0; q < na; q++)
        if (nu == 0 || pairs[q] != pairs[nu - 1])
            pairs[nu++] = pairs[q];
    adj = malloc((nu ? nu : 1) * sizeof(int));
    if (!adj)
        goto oom;
    for (size_t q = 0; q < nu; q++) {
        as[(pairs[q] >> 32) + 1]++;
        adj[q] = (int)(uint32_t)pairs[q];
    }
    for (int g = 0; g < n; g++)
        as[g + 1] += as[g];
    free(pairs);
    *as_out = as;
    *adj_out = adj;
    return 0;
oom:
    free(pairs);
    free(as);
    free(adj);
    return -1;
}

/* One passive-aggressive epoch over every voxel (see classify_refine);
 * returns the number of updates. */
static long pa_epoch(const fitctx *F, double *w, const double *cg, const int *as, const int *adj,
                     const int32_t *assign)
{
    const double delta = 0.02;
    long upd = 0;
    for (int g = 0; g < F->n; g++) {
        double *wg = w + 4 * (size_t)g;
        const double *cgg = cg + 4 * (size_t)g;
        for (size_t p = F->vs[g]; p < F->vs[g + 1]; p++) {
            double v[3], u[3], uj[3];
            vox_centre(F, p, v);
            v3_sub(u, v, cgg);
            double fg = v3_dot(wg, u) + wg[3], worst = 0;
            int jb = -1;
            /* rivals: the grains touching g in the map, and the cell that
             * holds the voxel now (it may touch g only in the fit) */
            int own = assign[rve_map_index(F->m, F->vijk[3 * p], F->vijk[3 * p + 1], F->vijk[3 * p + 2])];
            for (int q = as[g]; q <= as[g + 1]; q++) {
                int j = q < as[g + 1] ? adj[q] : own;
                if (j < 0 || j == g)
                    continue;
                const double *wj = w + 4 * (size_t)j;
                double da[3];
                v3_sub(da, wg, wj);
                v3_sub(uj, v, cg + 4 * (size_t)j);
                double loss = delta * v3_norm(da) - (fg - v3_dot(wj, uj) - wj[3]);
                if (loss > worst) {
                    worst = loss;
                    jb = j;
                }
            }
            if (jb < 0)
                continue;
            double *wj = w + 4 * (size_t)jb, da[3];
            const double *cj = cg + 4 * (size_t)jb;
            v3_sub(uj, v, cj);
            v3_sub(da, wg, wj);
            double lmax = v3_norm(da); /* one voxel length of plane motion */
            double tau = fmin(worst, lmax) / (v3_norm2(u) + cgg[3] + v3_norm2(uj) + cj[3]);
            for (int a = 0; a < 3; a++) {
                wg[a] += tau * u[a];
                wj[a] -= tau * uj[a];
            }
            wg[3] += tau * cgg[3];
            wj[3] -= tau * cj[3];
            upd++;
        }
    }
    return upd;
}

/* A power diagram is a linear multi-class classifier of the points: with
 * u = x - o, cell g has the score f_g(u) = a_g . u + b_g (a_g = 2 s_g,
 * b_g = 2 s_g . o + t_g - |s_g|^2) and x goes to the cell of largest score
 * (smallest power distance).  Fitting the voxel labels is thus a linear
 * classification problem, convex in (a, b); on a raster of a Laguerre
 * tessellation it is separable.  This stage runs passive-aggressive
 * updates (Crammer et al. 2006) over the voxels: a voxel of grain g whose
 * margin f_g - f_j over its best rival j (the grains touching g in the map
 * and the cell that holds the voxel) is below delta |a_g - a_j| (delta voxel
 * lengths) moves both scores by the least change that restores it, capped
 * at one voxel length of plane motion.  The exact voxel accuracy
 * (rasterisation) is measured after every epoch and offered as the best
 * state.  Starts from R->x (whose cells are in R->assign); R->x ends as the
 * last epoch's state. */
rve_status fit_classify(fitrun *R, int epochs, rve_err *err)
{
    fitctx *F = R->F;
    double *x = R->x;
    int n = F->n, *as = NULL, *adj = NULL;
    R->r->classify_epochs = 0;
    double *w = malloc((size_t)n * 4 * sizeof(double)), *cg = malloc((size_t)n * 4 * sizeof(double));
    if (!w || !cg || grain_adjacency(F, &as, &adj) < 0) {
        free(w);
        free(cg);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    /* per-class coordinates: f_g(x) = a_g . (x - c_g) + b_g, c_g the grain's
     * centroid, and the bias scaled by the grain's radius r_g: an update then
     * pulls the seed towards the voxel and leaves the far side of the cell
     * (x - c_g ~ -r_g) nearly in place, instead of inflating the whole cell */
    for (int g = 0; g < n; g++) {
        double nv = fit_grain_centroid(F, g, cg + 4 * (size_t)g);
        double r = cbrt(3.0 * nv / (4.0 * M_PI));
        cg[4 * g + 3] = r * r;
        const double *sg = x + 4 * (size_t)g;
        for (int a = 0; a < 3; a++)
            w[4 * g + a] = 2 * sg[a];
        w[4 * g + 3] = 2 * v3_dot(sg, cg + 4 * (size_t)g) + sg[3] - v3_norm2(sg);
    }
    rve_status st = RVE_OK;
    int stale = 0;
    double runbest = -1;
    for (int ep = 0; ep < epochs && !fit_past_deadline(R); ep++) {
        long upd = pa_epoch(F, w, cg, as, adj, R->assign);
        R->r->classify_epochs = ep + 1;
        for (int g = 0; g < n; g++) {
            double *sg = x + 4 * (size_t)g;
            for (int a = 0; a < 3; a++)
                sg[a] = 0.5 * w[4 * g + a];
            sg[3] = w[4 * g + 3] - 2 * v3_dot(sg, cg + 4 * (size_t)g) + v3_norm2(sg);
        }
        fit_keep_inside(F, x);
        for (int g = 0; F->frozen && g < n; g++) /* frozen: back to their planes */
            if (F->frozen[g]) {
                const double *sg = x + 4 * (size_t)g;
                for (int a = 0; a < 3; a++)
                    w[4 * g + a] = 2 * sg[a];
                w[4 * g + 3] = 2 * v3_dot(sg, cg + 4 * (size_t)g) + sg[3] - v3_norm2(sg);
            }
        double acc;
        double nan_ = NAN;
        if ((st = fit_reached(R, x, 3, ep + 1, &nan_, &acc, err)) != RVE_OK)
            break;
        if (R->o->progress)
            R->o->progress(R->o->progress_ctx, 2, ep + 1, (double)(ep + 1) / epochs, NAN, acc);
        /* patience counted against this stage's own progress: its first
         * epochs may lose accuracy before they gain */
        if (acc > runbest) {
            runbest = acc;
            stale = 0;
        } else if (++stale >= 8)
            break;
        if (upd == 0 || acc >= 1)
            break; /* nothing left to gain */
    }
    free(w);
    free(cg);
    free(as);
    free(adj);
    return st;
}

