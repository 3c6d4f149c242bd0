/* mpi_raster.c - distributed rasterisation of weighted seeds to one DREAM3D
 * file written collectively with parallel HDF5 (docs/mpi.md).
 *
 * Rank r owns the z layers [k0, k1) (rve_mpi_layers).  It keeps the seeds
 * whose z lies within the slab's voxel centres plus a halo g, labels its
 * layers with the serial kernel (rve_tess_rasterize_seeds_layers: the exact
 * argmin of the power distance, ties to the lowest seed index; the kept
 * seeds are in ascending global order, so the tie rule is the serial one),
 * and checks the halo: a seed left out is more than g away in z from every
 * voxel of the slab, so its power distance exceeds g^2 - wmax^2; when every
 * winning power distance of the slab is below that (with a relative margin
 * for rounding), the slab is exactly the serial raster.  Otherwise the halo
 * grows and the slab is done again (at most HALO_ROUNDS times; the last
 * round keeps every seed). */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <rve/mpi.h>
#include <rve/tess.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* Label layers k0..k1-1 of grid g into lab; the halo grows until exact. */
static rve_status raster_slab(const rve_mpi_seeds *src, const rve_mpi_grid *grid, const rve_map *g, int k0, int k1,
                              uint32_t *lab, rve_mpi_raster_info *info, rve_err *err)
{
    long images = 1; /* seeds with their periodic images */
    for (int a = 0; a < 3; a++)
        images *= grid->periodic[a] ? 3 : 1;
    double zc0 = g->origin[2] + (k0 + 0.5) * g->h[2], zc1 = g->origin[2] + (k1 - 0.5) * g->h[2];
    double vol = g->nx * g->h[0] * g->ny * g->h[1] * g->nz * g->h[2];
    double halo = 3 * cbrt(vol / (double)src->n);
    mpi_kept k = {0};
    rve_status st = RVE_OK;
    size_t nv = (size_t)g->nx * g->ny * (size_t)(k1 - k0);
    for (int round = 1; round <= HALO_ROUNDS; round++) {
        int last = round == HALO_ROUNDS;
        st = mpi_select_seeds(src, grid, last ? -INFINITY : zc0 - halo, last ? INFINITY : zc1 + halo, &k, err);
        if (st != RVE_OK)
            break;
        info->rounds = round;
        info->halo = halo;
        info->seeds_kept = k.m;
        if (k.m == 0 && !last) {
            halo *= 2;
            continue;
        }
        if ((st = mpi_kept_check(&k, err)) != RVE_OK)
            break;
        /* local indices first (labels NULL): the winner's power is then known */
        st = rve_tess_rasterize_seeds_layers(k.s, (int)k.m, NULL, g, k0, k1, lab, NULL, err);
        if (st != RVE_OK)
            break;
        double pmax = -INFINITY;
        for (size_t v = 0; v < nv; v++) {
            size_t i = v % (size_t)g->nx, j = (v / (size_t)g->nx) % (size_t)g->ny, kk = v / ((size_t)g->nx * g->ny);
            double x[3];
            rve_map_voxel_centre(g, (int)i, (int)j, (int)kk + k0, x);
            const double *p = k.s + 4 * (size_t)(lab[v] - 1);
            double dx = x[0] - p[0], dy = x[1] - p[1], dz = x[2] - p[2];
            double pw = dx * dx + dy * dy + dz * dz - p[3] * p[3];
            if (pw > pmax)
                pmax = pw;
        }
        double reach = halo * halo - k.wmax2; /* lowest power of a seed left out */
        int exact = last || k.m == src->n * images || pmax < reach - 1e-9 * (fabs(reach) + fabs(pmax) + k.wmax2);
        if (exact) {
            for (size_t v = 0; v < nv; v++)
                lab[v] = k.lab[lab[v] - 1];
            break;
        }
        double need = sqrt(fmax(pmax + k.wmax2, 0)) * 1.25;
        halo = need > 2 * halo ? need : 2 * halo;
    }
    mpi_kept_free(&k);
    return st;
}

/* Write the slab collectively to tmp; then rank 0 adds the ensemble table
 * (one process, no MPI-IO) and renames tmp to path. */
static rve_status write_file(MPI_Comm comm, const rve_map *slab, int nz, int k0, const char *tmp, const char *path,
                             rve_err *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rve_status st = RVE_OK;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER);
    hid_t f = -1;
    if (fapl < 0 || dxpl < 0 || H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0 ||
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0)
        st = rve_err_set(err, RVE_EIO, path, "parallel HDF5 cannot be set up");
    else if ((f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0)
        st = rve_err_set(err, RVE_EIO, path, "cannot create the HDF5 file");
    if (f >= 0) {
        /* in batches of layers: one call over the slab would have parallel
         * HDF5 deflate all its chunks at once, in a second copy of the slab */
        rve_hdf5_slab where = {nz, k0, rank == 0, dxpl, (nz + size - 1) / size};
        st = rve_map_write_hdf5_cells(f, slab, &where, err);
        if (H5Fclose(f) < 0 && st == RVE_OK)
            st = rve_err_set(err, RVE_EIO, path, "HDF5 write failed");
    }
    if (fapl >= 0)
        H5Pclose(fapl);
    if (dxpl >= 0)
        H5Pclose(dxpl);
    st = rve_mpi_agree(comm, st, err);
    if (st == RVE_OK && rank == 0) {
        hid_t f2 = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
        if (f2 < 0)
            st = rve_err_set(err, RVE_EIO, path, "cannot reopen the HDF5 file");
        else {
            st = rve_map_write_hdf5_tables(f2, slab, err);
            if (H5Fclose(f2) < 0 && st == RVE_OK)
                st = rve_err_set(err, RVE_EIO, path, "HDF5 write failed");
        }
        if (st == RVE_OK && rename(tmp, path) != 0)
            st = rve_err_set(err, RVE_EIO, path, "cannot rename the temporary file");
    }
    st = rve_mpi_agree(comm, st, err);
    if (st != RVE_OK && rank == 0)
        remove(tmp);
    if (st != RVE_OK && err && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", path);
    return st;
}

/* Test hook (docs/mpi.md): RVE_MPI_FAULT_RANK=r makes rank r fail after its
 * slab, as a rank that met bad input would. */
static rve_status fault_hook(int rank, rve_err *err)
{
    const char *f = getenv("RVE_MPI_FAULT_RANK");
    if (f && *f && atoi(f) == rank)
        return rve_err_set(err, RVE_EDATA, "", "fault injected on rank %d (RVE_MPI_FAULT_RANK)", rank);
    return RVE_OK;
}

rve_status rve_mpi_raster_hdf5(MPI_Comm comm, const rve_mpi_seeds *seeds, const rve_mpi_grid *grid,
                               const char *path, rve_mpi_raster_info *info, rve_err *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rve_mpi_raster_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    rve_status st = mpi_seeds_check(seeds, "raster", err);
    if (st == RVE_OK && (!grid || grid->nx < 1 || grid->ny < 1 || grid->nz < 1))
        st = rve_err_set(err, RVE_EUSAGE, "", "distributed raster: no voxel grid");
    rve_map g = {0};
    if (st == RVE_OK) {
        g.nx = grid->nx, g.ny = grid->ny, g.nz = grid->nz;
        memcpy(g.h, grid->h, sizeof g.h);
        memcpy(g.origin, grid->origin, sizeof g.origin);
        rve_mpi_layers(g.nz, rank, size, &info->k0, &info->k1);
    }
    size_t nv = (size_t)g.nx * g.ny * (size_t)(info->k1 - info->k0);
    uint32_t *lab = st == RVE_OK ? malloc((nv ? nv : 1) * sizeof *lab) : NULL;
    if (st == RVE_OK && !lab)
        st = rve_err_set(err, RVE_ENOMEM, path, "out of memory for %zu voxels", nv);
    double t0 = MPI_Wtime();
    if (st == RVE_OK && nv)
        st = raster_slab(seeds, grid, &g, info->k0, info->k1, lab, info, err);
    if (st == RVE_OK)
        st = fault_hook(rank, err);
    info->seconds_raster = MPI_Wtime() - t0;
    uint32_t mx = 0, gmx = 0;
    for (size_t v = 0; st == RVE_OK && v < nv; v++)
        mx = lab[v] > mx ? lab[v] : mx;
    MPI_Allreduce(&mx, &gmx, 1, MPI_UINT32_T, MPI_MAX, comm);
    info->nlabels = gmx;
    st = rve_mpi_agree(comm, st, err);
    if (st != RVE_OK) {
        free(lab);
        if (err && !err->file[0])
            snprintf(err->file, sizeof err->file, "%s", path);
        return st;
    }
    rve_map slab = g;
    slab.nz = info->k1 - info->k0;
    slab.lab = lab;
    slab.nlabels = gmx;
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    st = rve_mpi_agree(comm, tmp ? RVE_OK : rve_err_set(err, RVE_ENOMEM, path, "out of memory"), err);
    t0 = MPI_Wtime();
    if (st == RVE_OK) {
        snprintf(tmp, n, "%s.rve-tmp", path);
        H5E_auto2_t efunc;
        void *edata;
        H5Eget_auto2(H5E_DEFAULT, &efunc, &edata);
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        st = write_file(comm, &slab, g.nz, info->k0, tmp, path, err);
        H5Eset_auto2(H5E_DEFAULT, efunc, edata);
    }
    free(tmp);
    free(lab);
    info->seconds_write = MPI_Wtime() - t0;
    if (st == RVE_OK) { /* the ParaView companion, written by rank 0 */
        slab.lab = NULL;
        st = rve_mpi_agree(comm, rank == 0 ? rve_map_write_hdf5_xdmf(&slab, g.nz, path, err) : RVE_OK, err);
    }
    return st;
}
