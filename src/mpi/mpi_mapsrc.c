/* mpi_mapsrc.c - the grain map of a distributed fit read from its file by
 * ranges of layers (rve_map_part: TIFF page ranges, HDF5 hyperslabs
 * through the MPI-IO driver). */
#include "config.h"
#include <hdf5.h>
#include <rve/mpi.h>
#include <stdlib.h>
#include <string.h>

struct rve_mpi_map_file {
    rve_map_part *part;
    hid_t fapl;
};

static rve_status part_read(void *ctx, int k0, int k1, rve_map **out, rve_err *err)
{
    rve_mpi_map_file *f = ctx;
    return rve_map_part_read(f->part, k0, k1, out, err);
}

rve_status rve_mpi_map_open(const char *path, const rve_map_load_opts *lo, rve_mpi_map_file **out,
                            rve_mpi_map_src *src, char *why, size_t whyn, rve_err *err)
{
    *out = NULL;
    memset(src, 0, sizeof *src);
    rve_mpi_map_file *f = calloc(1, sizeof *f);
    if (!f)
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    /* each rank reads its own layers: the MPI-IO driver on the rank alone
     * (no collective calls, so ranks read different ranges at their pace) */
    f->fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (f->fapl >= 0 && H5Pset_fapl_mpio(f->fapl, MPI_COMM_SELF, MPI_INFO_NULL) < 0) {
        H5Pclose(f->fapl);
        f->fapl = -1;
    }
    rve_status st = rve_map_part_open(path, lo, f->fapl >= 0 ? (int64_t)f->fapl : 0, &f->part, why, whyn, err);
    if (st != RVE_OK || !f->part) {
        rve_mpi_map_close(f);
        return st;
    }
    const rve_map *g = rve_map_part_geometry(f->part);
    src->nx = g->nx, src->ny = g->ny, src->nz = g->nz;
    memcpy(src->h, g->h, sizeof src->h);
    memcpy(src->origin, g->origin, sizeof src->origin);
    src->read = part_read;
    src->ctx = f;
    *out = f;
    return RVE_OK;
}

uint64_t rve_mpi_map_voxels_read(const rve_mpi_map_file *f)
{
    return f ? rve_map_part_voxels_read(f->part) : 0;
}

rve_status rve_mpi_map_header(rve_mpi_map_file *f, const uint32_t *labels, size_t n, rve_map **out, rve_err *err)
{
    return rve_map_part_header(f->part, labels, n, out, err);
}

void rve_mpi_map_close(rve_mpi_map_file *f)
{
    if (!f)
        return;
    rve_map_part_close(f->part);
    if (f->fapl >= 0)
        H5Pclose(f->fapl);
    free(f);
}
