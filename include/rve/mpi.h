/* rve/mpi.h - distributed rasterisation and tessellation with MPI and
 * parallel HDF5 (built with configure --with-mpi; docs/mpi.md).
 *
 * The serial library (librve) has no MPI in it; this module is the MPI
 * layer on top of it, linked into the rve program of the MPI build.  Every
 * function is collective over comm: all processes call it with the same
 * arguments (except where a field says otherwise) and all return the same
 * status; on failure every process holds the same rve_err, the one of the
 * lowest failing rank. */
#ifndef RVE_MPI_H
#define RVE_MPI_H

#include <mpi.h>
#include <rve/raster.h>
#include <rve/util.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Was this process started by mpirun/mpiexec (OpenMPI or PMIx environment)?
 * rve calls MPI_Init only then, so that `rve SUB` alone is the serial
 * program.  Not collective. */
int rve_mpi_launched(void);

/* Agree on a status: returns RVE_OK when st is RVE_OK on every process,
 * else the status of the lowest rank that failed, and copies that rank's
 * err (the one-line message) to every process. */
rve_status rve_mpi_agree(MPI_Comm comm, rve_status st, rve_err *err);

/* The z layers [*k0, *k1) of rank `rank` among `size` for a map of nz
 * layers: contiguous blocks, the first nz % size one layer deeper.  Not
 * collective. */
void rve_mpi_layers(int nz, int rank, int size, int *k0, int *k1);

/* Where the seeds of a distributed raster come from: every process holds
 * all seeds (all != NULL, e.g. read from a .tess), or streams them from a
 * deterministic generator (reset, then next) and keeps only those its slab
 * needs, so that no process holds the n seeds. */
typedef struct {
    long n;                    /* seeds, at most INT32_MAX */
    const double *all;         /* 4 n doubles x y z w (w: Neper radius, power |x-s|^2 - w^2), or NULL */
    void (*reset)(void *ctx);  /* restart the stream at seed 0 */
    void (*next)(void *ctx, double *buf, long count); /* the next count seeds, 4 doubles each */
    void *ctx;
    const uint32_t *labels;    /* label of seed i (all != NULL only), NULL: i + 1 */
    void (*next_labels)(void *ctx, uint32_t *lab, long count); /* streams only: the labels of the
                                  seeds next just gave (NULL: seed i has label i + 1) */
} rve_mpi_seeds;

/* The seeds (*seed, labels from *id) of a Neper .tess file as a stream: the
 * file is scanned once (section offsets, **domain box, **periodicity flags;
 * every seed and id validated) and then read chunk by chunk, so no process
 * holds all seeds nor the topology.  seeds->ctx is the open file; lo and hi
 * receive the domain box, periodic the periodicity flags.  Files without
 * *seed or **domain are refused (RVE_EDATA).  Not collective. */
typedef struct rve_mpi_tessfile rve_mpi_tessfile;
rve_status rve_mpi_tessfile_open(const char *path, rve_mpi_tessfile **f, rve_mpi_seeds *seeds, double lo[3],
                                 double hi[3], int periodic[3], rve_err *err);
void rve_mpi_tessfile_close(rve_mpi_tessfile *f);

typedef struct {
    int nx, ny, nz;       /* voxels */
    double h[3];          /* voxel size */
    double origin[3];     /* corner of voxel (0, 0, 0) */
    int periodic[3];      /* periodic axes of the seeds' domain: the voxels are labelled by the
                             seeds and their images shifted by -1, 0, 1 periods, as
                             rve_tess_rasterize does (ties: lowest seed index) */
    double period[3];     /* the domain's size on the periodic axes */
} rve_mpi_grid;

/* What a distributed raster did on this process (not the same on every
 * process: each reports its own slab). */
typedef struct {
    int k0, k1;           /* this rank's layers */
    long seeds_kept;      /* seeds of its slab and halo */
    double halo;          /* final halo depth (physical units) */
    int rounds;           /* halo enlargements + 1 */
    uint32_t nlabels;     /* largest label of the whole map (same everywhere) */
    double seconds_raster, seconds_write; /* wall time of the two steps */
} rve_mpi_raster_info;

/* Label every voxel centre of the grid with the seed of smallest power
 * distance (ties: lowest seed index), exactly as rve_tess_rasterize_seeds
 * does on one process, and write the map to the DREAM3D file path
 * (rve_map_write_hdf5's layout, FeatureIds only) collectively with parallel
 * HDF5: each process holds only its z slab of voxels and the seeds whose z
 * lies within the slab plus a halo; the halo grows until every winning
 * power distance of the slab is below what any seed outside it can reach.
 * The file is written to a temporary name and renamed by rank 0 after
 * every process succeeded; on failure no file is left.  The XDMF companion
 * (rank 0) goes through the rve_afile transaction when one is active.
 * info may be NULL. */
rve_status rve_mpi_raster_hdf5(MPI_Comm comm, const rve_mpi_seeds *seeds, const rve_mpi_grid *grid,
                               const char *path, rve_mpi_raster_info *info, rve_err *err);

/* What a distributed tessellation did on this process. */
typedef struct {
    long cells_owned;     /* cells of the seeds of this rank's z slab */
    long seeds_kept;      /* owned and ghost seeds */
    double ghost;         /* final ghost depth (physical units) */
    int rounds;           /* ghost deepenings + 1 */
    int max_degree;       /* most neighbours of a cell (same everywhere) */
    double seconds_build, seconds_write;
} rve_mpi_tess_info;

/* Per-cell volumes and neighbours of the Laguerre tessellation of the box
 * [lo, hi] (not periodic) by the seeds, written collectively to the HDF5
 * file path: datasets volume (n doubles), degree (n int32) and neighbours
 * (n x max_degree int32: the neighbour cells 1..n, ascending, 0 padded),
 * seeds (n x 4 doubles x y z w, only when seeds->all is given), attributes
 * domain_lo and domain_hi.  Each rank owns the seeds of one z
 * slab of the box, with ghost seeds deep enough to make every owned cell
 * exact (checked at its vertices, deepened until so); the rows are sent to
 * the rank writing their block, so no rank holds all cells.  Volumes equal
 * those of rve_tess_build on all seeds up to rounding of the polyhedron
 * clipping order (1e-12 relative, tested); neighbour lists are equal.
 * Temporary file renamed by rank 0 after a collective success. */
rve_status rve_mpi_tess_cells(MPI_Comm comm, const rve_mpi_seeds *seeds, const double lo[3], const double hi[3],
                              const char *path, rve_mpi_tess_info *info, rve_err *err);

/* Prescribed volumes: rve_pvol_solve (rve/optim.h, same arguments and
 * result; box [0, domain], not periodic) with the diagrams and the Newton
 * linear algebra distributed: each rank builds only the cells of the seeds
 * in its z slab of the box (with ghost seeds deepened until every owned
 * cell is exact), and the residuals, Laplacian products and dot products
 * are reduced across the ranks, so every rank takes the same steps.  The
 * seeds, targets and weights (a few n-vectors) are held by every rank, the
 * cells only by their owner.  Every rank returns the same weights; they
 * equal the serial solver's up to rounding (sums in another order), and the
 * volumes meet p->tol as the serial ones do. */
#include <rve/optim.h>
rve_status rve_mpi_pvol_solve(MPI_Comm comm, size_t n, const double *seeds, const double domain[3],
                              const double *target, double *weights, const rve_pvol_params *p, rve_pvol_info *info,
                              rve_err *err);

/* ------------------------------------------------------ distributed fit */
/* Where the grain map of a distributed fit comes from: the grid of the
 * whole map, and a reader of any range of its z layers [k0, k1) as a map
 * of its own (nx ny (k1 - k0) voxels, origin at layer k0; nlabels: the
 * largest label of those layers).  A rank reads its slab, then the halo
 * layers below and above it; it never asks for more. */
typedef struct {
    int nx, ny, nz;
    double h[3], origin[3];
    rve_status (*read)(void *ctx, int k0, int k1, rve_map **out, rve_err *err);
    void *ctx;
} rve_mpi_map_src;

/* A source over a map held in memory (every rank read it whole: formats
 * that cannot be read in part).  m must outlive src.  Not collective. */
void rve_mpi_map_src_memory(const rve_map *m, rve_mpi_map_src *src);

/* A source reading the map file path by ranges of layers
 * (rve_map_part_open, rve/raster.h: TIFF page ranges; HDF5 hyperslabs of
 * the grain ids, the file opened through the MPI-IO driver on each rank
 * alone, MPI_COMM_SELF, so that reads need no collective calls), with the
 * load options lo.  When the map cannot be read in part, RVE_OK with *f
 * NULL and the reason in why (the caller reads the map whole and uses
 * rve_mpi_map_src_memory).  Not collective. */
typedef struct rve_mpi_map_file rve_mpi_map_file;
rve_status rve_mpi_map_open(const char *path, const rve_map_load_opts *lo, rve_mpi_map_file **f,
                            rve_mpi_map_src *src, char *why, size_t whyn, rve_err *err);
/* Voxels this process has read from the file so far. */
uint64_t rve_mpi_map_voxels_read(const rve_mpi_map_file *f);
/* The whole map without voxels (rve_map_part_header): what the writer of
 * a fit needs (geometry, ids, orientations, phases), from the n labels
 * present (e.g. rve_fit_result.label).  Not collective. */
rve_status rve_mpi_map_header(rve_mpi_map_file *f, const uint32_t *labels, size_t n, rve_map **out, rve_err *err);
void rve_mpi_map_close(rve_mpi_map_file *f);

/* What a distributed fit did. */
typedef struct {
    int k0, k1;           /* this rank's layers */
    int s0, s1;           /* the layers it read: slab and halo */
    int halo;             /* halo depth in layers: the largest z extent of a grain (same everywhere) */
    int grains;           /* grains of the whole map (same everywhere) */
    int owned;            /* grains owned by this rank (centroid layer in its slab) */
    int sub_grains;       /* grains present in its slab and halo (owned + frozen) */
    int rounds;           /* exchange rounds run */
    int colours;          /* rank colours of the frozen rounds (same everywhere) */
    double acc_round[16]; /* accuracy after round r (0: the initial guess), rounds + 1 values */
    double seconds_fit;   /* this rank's wall time in the sub-fits */
    double exchange_bytes; /* seeds gathered by every rank over all rounds (same everywhere) */
} rve_mpi_fit_info;

#define RVE_MPI_FIT_ROUNDS_MAX 15 /* acc_round holds rounds + 1 values */

/* Fit a Laguerre tessellation to the grain map of src (rve_fit's problem:
 * cell i = the i-th label present, label order), distributed by z slabs.
 * Each rank reads its slab; the per-grain voxel counts, centroids and z
 * extents are summed over the ranks; the halo is the largest grain's z
 * extent, so that a grain whose centroid lies in a slab (the grains the rank
 * owns) lies whole in that slab plus the halo.  Every rank starts from the
 * serial fit's initial guess (centroids, equivalent-sphere weights) of the
 * whole map.  Round 1: each rank runs rve_fit with the options o on its slab
 * plus halo, all its grains free, and keeps the seeds it owns.  Then
 * `sweeps` sweeps of coloured rounds: in a round the ranks of one colour
 * (rank mod C, C = 2 + (halo - 1) / (nz / P), at most P: ranks fitting
 * together are too far apart for their grains to touch) run rve_fit on their
 * slab plus halo moving only the seeds they own, the others frozen
 * (rve_fit_opts.frozen); at most RVE_MPI_FIT_ROUNDS_MAX rounds in all.
 * After every round the seeds and weights of the grains owned by the ranks
 * that fitted in it are gathered by every rank (one MPI_Allgatherv of 4
 * doubles per such grain).  The accuracy (fraction of non-void voxels whose cell
 * is their grain) of every round is measured on each rank's slab against
 * all seeds and summed; the best state is returned (r: n, label, seed,
 * weight, acc_init, acc_final; the same on every rank).  With one rank, the
 * fit is rve_fit of the whole map. */
rve_status rve_mpi_fit(MPI_Comm comm, const rve_mpi_map_src *src, const rve_fit_opts *o, int rounds,
                       rve_fit_result *r, rve_mpi_fit_info *info, rve_err *err);

/* One Lloyd step of the prescribed-volume synthesis (rve gen --volumes
 * --lloyd, box [0, domain], not periodic): every seed (3 n, every rank the
 * same, replaced) moves to the centroid of its Laguerre cell with the
 * weights w (n radii); a cell without volume keeps its seed.  Each rank
 * builds the cells of its z slab (ghost seeds deepened until exact, as
 * rve_mpi_tess_cells) and the centroids are summed over the ranks (one
 * MPI_Allreduce of 3 n doubles, one contributor each: exact). */
rve_status rve_mpi_lloyd_step(MPI_Comm comm, size_t n, double *seeds, const double *w, const double domain[3],
                              rve_err *err);

#ifdef __cplusplus
}
#endif

#endif
