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
    double wmax2;   /* largest w^2 of the seeds left out (0: none): only they can cut in */
} mpi_kept;

/* The seeds with z in [zlo, zhi], in ascending order, and the largest w^2
 * of the seeds left out (k is reused: its arrays grow).  With g periodic on some
 * axis (g may be NULL), every seed stands for its images shifted by -1, 0, 1
 * periods on the periodic axes, in rve_tess_rasterize's order (dz, dy, dx
 * from -1 to 1; all images of seed i before those of i + 1), and the images
 * are what is selected. */
rve_status mpi_select_seeds(const rve_mpi_seeds *src, const rve_mpi_grid *g, double zlo, double zhi, mpi_kept *k,
                            rve_err *err);
void mpi_kept_free(mpi_kept *k);
/* The argument checks the distributed commands share: a seed source with
 * 1 .. 2^31 - 1 seeds, all given or streamed ("distributed WHAT: no
 * seeds"), and a slab's kept seeds within int range. */
rve_status mpi_seeds_check(const rve_mpi_seeds *seeds, const char *what, rve_err *err);
rve_status mpi_kept_check(const mpi_kept *k, rve_err *err);

/* The cells a rank owns in a distributed tessellation (mpi_tess.c). */
typedef struct {
    long n;        /* owned cells, in ascending global order */
    long *idx;     /* n global indices (label - 1) */
    double *vol;   /* n volumes */
    int *deg;      /* n neighbour counts */
    long *nb;      /* n * kmax neighbours (label: global index + 1, ascending, 0 padded) */
    double *area;  /* n * kmax areas of the faces shared with them */
    double *cen;   /* 3 n centroids */
    int kmax;
} mpi_owned;

/* The cells of the seeds with z in [z0, z1) (z1 included when last_slab)
 * of the Laguerre tessellation of the box [lo, hi] by the seeds src (labels
 * NULL: seed i has label i + 1), built from the kept seeds with a ghost
 * layer deepened until every owned cell is exact.  o must be empty (zeroed
 * or freed); info receives the ghost figures. */
rve_status mpi_build_slab(const rve_mpi_seeds *src, const double lo[3], const double hi[3], double z0, double z1,
                          int last_slab, mpi_owned *o, rve_mpi_tess_info *info, rve_err *err);
void mpi_owned_free(mpi_owned *o);

#endif
