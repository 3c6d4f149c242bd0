/* rasterize.c - label voxel centres by the power distance to weighted seeds.
 *
 * Exact: every voxel gets argmin_i |x - s_i|^2 - w_i^2 (ties: lowest index),
 * computed independently of the polyhedra.  Acceleration: voxels are taken in
 * tiles of T^3; for each tile the candidate seeds are those whose lower bound
 * of the power distance over the tile box does not exceed the smallest upper
 * bound of any seed over the box (a seed that is beaten everywhere in the box
 * cannot win any voxel of it).  Seeds are binned in a uniform grid that is
 * searched in shells of growing Chebyshev distance around the tile, stopping
 * when no further bin can hold a candidate. */
#include "config.h"
#include <rve/tess.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <float.h>

#define TILE 8

typedef struct {
    const double *s; /* 4 n */
    int n;
    double blo[3], bs[3]; /* bin grid origin and bin size */
    int nb[3];
    int *boff;            /* nbins + 1 */
    int *bidx;            /* n seed indices sorted by bin */
    double wmax2;         /* largest w^2 */
} seedgrid;

static void grid_free(seedgrid *g)
{
    free(g->boff);
    free(g->bidx);
}

static int bin_coord(const seedgrid *g, int a, double x)
{
    double f = (x - g->blo[a]) / g->bs[a];
    int i = (int)floor(f);
    if (!(f >= 0)) i = 0; /* also NaN-safe */
    if (i >= g->nb[a]) i = g->nb[a] - 1;
    if (i < 0) i = 0;
    return i;
}

static rve_status grid_build(seedgrid *g, const double *s, int n, const double lo[3],
                             const double hi[3])
{
    memset(g, 0, sizeof *g);
    g->s = s;
    g->n = n;
    double ext[3], vol = 1;
    for (int a = 0; a < 3; a++) {
        ext[a] = hi[a] - lo[a];
        if (!(ext[a] > 0)) ext[a] = 1e-300;
    }
    double emax = fmax(ext[0], fmax(ext[1], ext[2]));
    for (int a = 0; a < 3; a++) {
        if (ext[a] < 1e-9 * emax) ext[a] = 1e-9 * emax;
        vol *= ext[a];
    }
    /* about 2 seeds per bin, at most ~2^21 bins */
    double target = n / 2.0 + 1;
    if (target > 2097152.0) target = 2097152.0;
    double side = cbrt(vol / target);
    size_t nbins = 1;
    for (int a = 0; a < 3; a++) {
        double k = ceil(ext[a] / side);
        if (k < 1) k = 1;
        if (k > 256) k = 256;
        g->nb[a] = (int)k;
        g->bs[a] = ext[a] / k;
        g->blo[a] = lo[a];
        nbins *= (size_t)g->nb[a];
    }
    g->boff = calloc(nbins + 1, sizeof *g->boff);
    g->bidx = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->bidx);
    int *bin = malloc((size_t)(n > 0 ? n : 1) * sizeof *bin);
    if (!g->boff || !g->bidx || !bin) {
        free(bin);
        grid_free(g);
        return RVE_ENOMEM;
    }
    g->wmax2 = 0;
    for (int i = 0; i < n; i++) {
        const double *p = s + 4 * (size_t)i;
        int bi = bin_coord(g, 0, p[0]), bj = bin_coord(g, 1, p[1]), bk = bin_coord(g, 2, p[2]);
        bin[i] = bi + g->nb[0] * (bj + g->nb[1] * bk);
        g->boff[bin[i] + 1]++;
        if (p[3] * p[3] > g->wmax2) g->wmax2 = p[3] * p[3];
    }
    for (size_t b = 0; b < nbins; b++) g->boff[b + 1] += g->boff[b];
    int *fill = malloc(nbins * sizeof *fill);
    if (!fill) {
        free(bin);
        grid_free(g);
        return RVE_ENOMEM;
    }
    memcpy(fill, g->boff, nbins * sizeof *fill);
    for (int i = 0; i < n; i++) g->bidx[fill[bin[i]]++] = i; /* ascending within a bin */
    free(fill);
    free(bin);
    return RVE_OK;
}

/* Squared distance from p to box [a, b] (lower bound) and to its farthest point (upper). */
static inline void box_bounds(const double p[3], const double a[3], const double b[3], double *dmin2,
                              double *dmax2)
{
    double lo2 = 0, hi2 = 0;
    for (int k = 0; k < 3; k++) {
        double d1 = a[k] - p[k], d2 = p[k] - b[k];
        double d = d1 > 0 ? d1 : (d2 > 0 ? d2 : 0);
        lo2 += d * d;
        double f = fmax(fabs(p[k] - a[k]), fabs(p[k] - b[k]));
        hi2 += f * f;
    }
    *dmin2 = lo2;
    *dmax2 = hi2;
}

/* Candidate seeds for the box [a, b] (voxel centres of a tile).  cand must have room for n. */
static int tile_candidates(const seedgrid *g, const double a[3], const double b[3], int *cand,
                           double *low)
{
    int r0[3], r1[3];
    for (int k = 0; k < 3; k++) {
        r0[k] = bin_coord(g, k, a[k]);
        r1[k] = bin_coord(g, k, b[k]);
    }
    double ustar = INFINITY;
    int nc = 0;
    int maxshell = 0;
    for (int k = 0; k < 3; k++) {
        int m = r0[k] > g->nb[k] - 1 - r1[k] ? r0[k] : g->nb[k] - 1 - r1[k];
        if (m > maxshell) maxshell = m;
    }
    double bsmin = fmin(g->bs[0], fmin(g->bs[1], g->bs[2]));
    for (int sh = 0; sh <= maxshell; sh++) {
        /* bins in shell sh are at Chebyshev distance sh from [r0, r1]; their
         * points are at least (sh - 1) * bsmin away from the box */
        if (sh >= 1) {
            double gap = (sh - 1) * bsmin;
            if (gap * gap - g->wmax2 > ustar) break;
        }
        int lo3[3], hi3[3];
        for (int k = 0; k < 3; k++) {
            lo3[k] = r0[k] - sh;
            hi3[k] = r1[k] + sh;
        }
        for (int kz = lo3[2] < 0 ? 0 : lo3[2]; kz <= hi3[2] && kz < g->nb[2]; kz++)
            for (int ky = lo3[1] < 0 ? 0 : lo3[1]; ky <= hi3[1] && ky < g->nb[1]; ky++) {
                int onshell_yz = (kz == lo3[2] || kz == hi3[2] || ky == lo3[1] || ky == hi3[1]);
                for (int kx = lo3[0] < 0 ? 0 : lo3[0]; kx <= hi3[0] && kx < g->nb[0]; kx++) {
                    if (sh > 0 && !onshell_yz && kx != lo3[0] && kx != hi3[0]) {
                        /* interior of the shell: jump to the far side */
                        if (kx < hi3[0]) kx = hi3[0] - 1;
                        continue;
                    }
                    int bidx = kx + g->nb[0] * (ky + g->nb[1] * kz);
                    for (int q = g->boff[bidx]; q < g->boff[bidx + 1]; q++) {
                        int i = g->bidx[q];
                        const double *p = g->s + 4 * (size_t)i;
                        double d0, d1;
                        box_bounds(p, a, b, &d0, &d1);
                        double w2 = p[3] * p[3];
                        double l = d0 - w2, u = d1 - w2;
                        if (u < ustar) ustar = u;
                        if (l <= ustar) {
                            low[nc] = l;
                            cand[nc++] = i;
                        }
                    }
                }
            }
    }
    /* final filter with the final ustar, keep ascending index order */
    int m = 0;
    for (int c = 0; c < nc; c++)
        if (low[c] <= ustar) cand[m++] = cand[c];
    /* sort ascending (small lists; insertion sort) so ties go to the lowest index */
    for (int c = 1; c < m; c++) {
        int v = cand[c], d = c - 1;
        while (d >= 0 && cand[d] > v) {
            cand[d + 1] = cand[d];
            d--;
        }
        cand[d + 1] = v;
    }
    return m;
}

rve_status rve_tess_rasterize_seeds_layers(const double *seeds, int n, const uint32_t *labels,
                                           const rve_map *map, int kz0, int kz1, uint32_t *lab,
                                           double *power, rve_err *err)
{
    if (!map || !lab || map->nx < 1 || map->ny < 1 || map->nz < 1 || kz0 < 0 || kz1 > map->nz || kz0 >= kz1)
        return rve_err_set(err, RVE_EUSAGE, "", "rasterize: no voxel grid");
    if (n < 1 || !seeds)
        return rve_err_set(err, RVE_EDATA, "", "rasterize: no seeds");
    for (int i = 0; i < 4 * n; i++)
        if (!isfinite(seeds[i]))
            return rve_err_set(err, RVE_EDATA, "", "rasterize: seed %d is not finite", i / 4 + 1);
    for (int a = 0; a < 3; a++)
        if (!(map->h[a] > 0) || !isfinite(map->origin[a]))
            return rve_err_set(err, RVE_EDATA, "", "rasterize: bad voxel size or origin");
    double lo[3], hi[3];
    int nn[3] = {map->nx, map->ny, map->nz};
    for (int a = 0; a < 3; a++) {
        lo[a] = map->origin[a];
        hi[a] = map->origin[a] + nn[a] * map->h[a];
    }
    lo[2] = map->origin[2] + kz0 * map->h[2];
    hi[2] = map->origin[2] + kz1 * map->h[2];
    nn[2] = kz1 - kz0; /* tiles over the layers kz0 .. kz1 - 1 */
    /* the bin grid spans the seeds and the map */
    for (int i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            if (seeds[4 * (size_t)i + a] < lo[a]) lo[a] = seeds[4 * (size_t)i + a];
            if (seeds[4 * (size_t)i + a] > hi[a]) hi[a] = seeds[4 * (size_t)i + a];
        }
    seedgrid g;
    if (grid_build(&g, seeds, n, lo, hi) != RVE_OK)
        return rve_err_set(err, RVE_ENOMEM, "", "rasterize: out of memory");
    int nt[3];
    for (int a = 0; a < 3; a++) nt[a] = (nn[a] + TILE - 1) / TILE;
    long ntiles = (long)nt[0] * nt[1] * nt[2];
    int fail = 0;
#pragma omp parallel
    {
        int *cand = malloc((size_t)n * sizeof *cand);
        double *low = malloc((size_t)n * sizeof *low);
        double *cs = malloc((size_t)n * 4 * sizeof *cs);
        if (!cand || !low || !cs) {
#pragma omp atomic write
            fail = 1;
        } else {
#pragma omp for schedule(dynamic, 4)
            for (long t = 0; t < ntiles; t++) {
                int tx = (int)(t % nt[0]), ty = (int)((t / nt[0]) % nt[1]), tz = (int)(t / ((long)nt[0] * nt[1]));
                int i0 = tx * TILE, j0 = ty * TILE, k0 = kz0 + tz * TILE;
                int i1 = i0 + TILE < map->nx ? i0 + TILE : map->nx;
                int j1 = j0 + TILE < map->ny ? j0 + TILE : map->ny;
                int k1 = k0 + TILE < kz1 ? k0 + TILE : kz1;
                double a[3], b[3];
                rve_map_voxel_centre(map, i0, j0, k0, a);
                rve_map_voxel_centre(map, i1 - 1, j1 - 1, k1 - 1, b);
                int nc = tile_candidates(&g, a, b, cand, low);
                for (int c = 0; c < nc; c++) {
                    const double *p = seeds + 4 * (size_t)cand[c];
                    cs[4 * c] = p[0];
                    cs[4 * c + 1] = p[1];
                    cs[4 * c + 2] = p[2];
                    cs[4 * c + 3] = p[3] * p[3];
                }
                for (int k = k0; k < k1; k++)
                    for (int j = j0; j < j1; j++)
                        for (int i = i0; i < i1; i++) {
                            double x[3];
                            rve_map_voxel_centre(map, i, j, k, x);
                            double best = INFINITY;
                            int bi = 0;
                            for (int c = 0; c < nc; c++) {
                                double dx = x[0] - cs[4 * c], dy = x[1] - cs[4 * c + 1],
                                       dz = x[2] - cs[4 * c + 2];
                                double pw = dx * dx + dy * dy + dz * dz - cs[4 * c + 3];
                                if (pw < best) {
                                    best = pw;
                                    bi = c;
                                }
                            }
                            int s = nc > 0 ? cand[bi] : 0;
                            size_t v = rve_map_index(map, i, j, k - kz0);
                            lab[v] = labels ? labels[s] : (uint32_t)s + 1;
                            if (power) power[v] = best;
                        }
            }
        }
        free(cand);
        free(low);
        free(cs);
    }
    grid_free(&g);
    if (fail) return rve_err_set(err, RVE_ENOMEM, "", "rasterize: out of memory");
    return RVE_OK;
}

rve_status rve_tess_rasterize_seeds(const double *seeds, int n, const uint32_t *labels,
                                    rve_map *map, rve_err *err)
{
    if (!map || !map->lab || map->nx < 1 || map->ny < 1 || map->nz < 1)
        return rve_err_set(err, RVE_EUSAGE, "", "rasterize: no voxel grid");
    rve_status st = rve_tess_rasterize_seeds_layers(seeds, n, labels, map, 0, map->nz, map->lab, NULL, err);
    if (st != RVE_OK) return st;
    uint32_t mx = 0;
    size_t nv = (size_t)map->nx * map->ny * map->nz;
    for (size_t v = 0; v < nv; v++)
        if (map->lab[v] > mx) mx = map->lab[v];
    map->nlabels = mx;
    return RVE_OK;
}
