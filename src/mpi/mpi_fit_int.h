/* mpi_fit_int.h - what the files of the distributed fit share (not installed). */
#ifndef RVE_MPI_FIT_INT_H
#define RVE_MPI_FIT_INT_H

#include <rve/mpi.h>

/* Per-grain figures of the whole map, the same on every rank (arrays
 * indexed by label 0..nl). */
typedef struct {
    uint32_t nl;      /* largest label */
    int n;            /* grains (labels with voxels) */
    double *sum;      /* 4 per label: sums of the voxel centres (i + 0.5, j + 0.5, k + 0.5) and the count */
    int *zr;          /* 2 per label: lowest layer and minus the highest */
    int *owner;       /* rank owning the grain (its centroid's layer), -1: no voxel */
    int halo;         /* largest z extent of a grain, in layers */
} mpi_grains;

rve_status mpi_grains_reduce(MPI_Comm comm, const rve_mpi_map_src *src, const rve_map *slab, int k0,
                             mpi_grains *g, rve_err *err);
void mpi_grains_free(mpi_grains *g);
rve_status mpi_fit_accuracy(MPI_Comm comm, const rve_mpi_map_src *src, const uint32_t *slab, int k0, int k1,
                            const mpi_grains *g, const double *s4, double *acc, rve_err *err);

#endif
