/* mpi_fitmap.c - the grain map of a distributed fit: layers of a map in
 * memory, per-grain statistics summed over the ranks, and the voxel
 * accuracy of a set of seeds measured slab by slab. */
#include "config.h"
#include "mpi/mpi_fit_int.h"
#include <math.h>
#include <rve/tess.h>
#include <stdlib.h>
#include <string.h>

static rve_status mem_read(void *ctx, int k0, int k1, rve_map **out, rve_err *err)
{
    const rve_map *m = ctx;
    *out = NULL;
    if (k0 < 0 || k1 > m->nz || k1 <= k0)
        return rve_err_set(err, RVE_EINTERNAL, NULL, "layers %d..%d outside the map", k0, k1);
    rve_map *s = rve_map_alloc(m->nx, m->ny, k1 - k0);
    if (!s)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    size_t layer = (size_t)m->nx * m->ny;
    memcpy(s->lab, m->lab + layer * (size_t)k0, layer * (size_t)(k1 - k0) * sizeof(uint32_t));
    memcpy(s->h, m->h, sizeof s->h);
    memcpy(s->origin, m->origin, sizeof s->origin);
    s->origin[2] += k0 * m->h[2];
    s->nlabels = 0;
    for (size_t v = 0; v < layer * (size_t)(k1 - k0); v++)
        if (s->lab[v] > s->nlabels)
            s->nlabels = s->lab[v];
    *out = s;
    return RVE_OK;
}

void rve_mpi_map_src_memory(const rve_map *m, rve_mpi_map_src *src)
{
    memset(src, 0, sizeof *src);
    src->nx = m->nx, src->ny = m->ny, src->nz = m->nz;
    memcpy(src->h, m->h, sizeof src->h);
    memcpy(src->origin, m->origin, sizeof src->origin);
    src->read = mem_read;
    src->ctx = (void *)(uintptr_t)m; /* read only */
}

void mpi_grains_free(mpi_grains *g)
{
    free(g->sum);
    free(g->zr);
    free(g->owner);
    memset(g, 0, sizeof *g);
}

/* Sums over the ranks of the voxel counts and centre sums of every label
 * of the slab (layers k0.. of the whole map), the z extents, and the owner
 * of every grain (the rank whose layers hold its centroid's layer). */
rve_status mpi_grains_reduce(MPI_Comm comm, const rve_mpi_map_src *src, const rve_map *slab, int k0,
                             mpi_grains *g, rve_err *err)
{
    memset(g, 0, sizeof *g);
    unsigned long mine = slab ? slab->nlabels : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_MAX, comm);
    g->nl = (uint32_t)all;
    size_t nl1 = (size_t)g->nl + 1;
    g->sum = calloc(4 * nl1, sizeof(double));
    g->zr = malloc(2 * nl1 * sizeof(int));
    g->owner = malloc(nl1 * sizeof(int));
    rve_status st = g->sum && g->zr && g->owner ? RVE_OK : rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    if ((st = rve_mpi_agree(comm, st, err)) != RVE_OK)
        return st;
    for (size_t l = 0; l < 2 * nl1; l++)
        g->zr[l] = INT32_MAX; /* zmin and -zmax: both min-reduced */
    size_t v = 0;
    for (int k = 0; slab && k < slab->nz; k++)
        for (int j = 0; j < slab->ny; j++)
            for (int i = 0; i < slab->nx; i++, v++) {
                uint32_t l = slab->lab[v];
                if (!l)
                    continue;
                double *a = g->sum + 4 * (size_t)l;
                a[0] += i + 0.5, a[1] += j + 0.5, a[2] += k0 + k + 0.5, a[3] += 1;
                if (k0 + k < g->zr[2 * l])
                    g->zr[2 * l] = k0 + k;
                if (-(k0 + k) < g->zr[2 * l + 1])
                    g->zr[2 * l + 1] = -(k0 + k);
            }
    /* exact: counts and half-integer sums below 2^53 */
    MPI_Allreduce(MPI_IN_PLACE, g->sum, (int)(4 * nl1), MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, g->zr, (int)(2 * nl1), MPI_INT, MPI_MIN, comm);
    int size;
    MPI_Comm_size(comm, &size);
    g->halo = 0;
    g->n = 0;
    for (size_t l = 1; l < nl1; l++) {
        g->owner[l] = -1;
        double c = g->sum[4 * l + 3];
        if (c <= 0)
            continue;
        g->n++;
        int ext = -g->zr[2 * l + 1] - g->zr[2 * l] + 1;
        if (ext > g->halo)
            g->halo = ext;
        int kc = (int)floor(g->sum[4 * l + 2] / c);
        kc = kc < 0 ? 0 : kc >= src->nz ? src->nz - 1 : kc;
        for (int r = 0; r < size; r++) { /* the owner: the rank of layer kc */
            int a, b;
            rve_mpi_layers(src->nz, r, size, &a, &b);
            if (kc >= a && kc < b) {
                g->owner[l] = r;
                break;
            }
        }
    }
    g->owner[0] = -1;
    return RVE_OK;
}

/* Accuracy of the seeds s4 (4 per label, x y z W with W = w^2 in one gauge)
 * over the whole map, from each rank's slab (layers k0..k1-1, labels
 * slab): matches and non-void voxels summed over the ranks. */
rve_status mpi_fit_accuracy(MPI_Comm comm, const rve_mpi_map_src *src, const uint32_t *slab, int k0, int k1,
                            const mpi_grains *g, const double *s4, double *acc, rve_err *err)
{
    double *s = malloc((size_t)(g->n ? g->n : 1) * 4 * sizeof(double));
    uint32_t *lab = malloc((size_t)(g->n ? g->n : 1) * sizeof(uint32_t));
    size_t nv = k1 > k0 ? (size_t)src->nx * src->ny * (size_t)(k1 - k0) : 0;
    uint32_t *out = malloc((nv ? nv : 1) * sizeof(uint32_t));
    rve_status st = s && lab && out ? RVE_OK : rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    double wmin = INFINITY;
    int n = 0;
    for (uint32_t l = 1; st == RVE_OK && l <= g->nl; l++)
        if (g->sum[4 * (size_t)l + 3] > 0 && s4[4 * (size_t)l + 3] < wmin)
            wmin = s4[4 * (size_t)l + 3];
    for (uint32_t l = 1; st == RVE_OK && l <= g->nl; l++) {
        if (g->sum[4 * (size_t)l + 3] <= 0)
            continue;
        memcpy(s + 4 * (size_t)n, s4 + 4 * (size_t)l, 3 * sizeof(double));
        s[4 * (size_t)n + 3] = sqrt(s4[4 * (size_t)l + 3] - wmin);
        lab[n++] = l;
    }
    double cnt[2] = {0, 0};
    if (st == RVE_OK && nv) {
        rve_map grid;
        memset(&grid, 0, sizeof grid);
        grid.nx = src->nx, grid.ny = src->ny, grid.nz = src->nz;
        memcpy(grid.h, src->h, sizeof grid.h);
        memcpy(grid.origin, src->origin, sizeof grid.origin);
        st = rve_tess_rasterize_seeds_layers(s, n, lab, &grid, k0, k1, out, NULL, err);
        for (size_t v = 0; st == RVE_OK && v < nv; v++)
            if (slab[v]) {
                cnt[1] += 1;
                cnt[0] += out[v] == slab[v];
            }
    }
    free(s);
    free(lab);
    free(out);
    if ((st = rve_mpi_agree(comm, st, err)) != RVE_OK)
        return st;
    MPI_Allreduce(MPI_IN_PLACE, cnt, 2, MPI_DOUBLE, MPI_SUM, comm);
    *acc = cnt[1] > 0 ? cnt[0] / cnt[1] : 0;
    return RVE_OK;
}
