/* mpi_internal.h - what the files of the MPI module share (not installed). */
#ifndef RVE_MPI_INTERNAL_H
#define RVE_MPI_INTERNAL_H

#include <rve/mpi.h>

/* Halo enlargements at most; the last round keeps every seed. */
#define HALO_ROUNDS 40

/* The seeds a rank keeps. */
typedef struct {
    double *s;      /* 4 m: kept seeds x y z w */
    uint32_t *lab;  /* m: their labels (seed i without labels: i + 1) */
    long m, cap;
    double wmax2;   /* largest w^2 of all seeds */
} mpi_kept;

/* The seeds with z in [zlo, zhi], in ascending order, and the largest w^2
 * of all seeds (k is reused: its arrays grow). */
rve_status mpi_select_seeds(const rve_mpi_seeds *src, double zlo, double zhi, mpi_kept *k, rve_err *err);
void mpi_kept_free(mpi_kept *k);

#endif
