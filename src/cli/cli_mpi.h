/* cli_mpi.h - the rve program under mpirun (configure --with-mpi;
 * docs/mpi.md).  Without MPI in the build, or without mpirun, every
 * function here is a no-op and the program is the serial one. */
#ifndef RVE_CLI_MPI_H
#define RVE_CLI_MPI_H

#include "cli/cli.h"

#ifdef RVE_HAVE_MPI
/* MPI_Init when started by mpirun; ranks above 0 then print nothing (their
 * errors reach rank 0 through rve_mpi_agree).  Nonzero on failure. */
int cli_mpi_begin(int *argc, char ***argv);
void cli_mpi_end(void);
/* rank and size in MPI_COMM_WORLD (0 and 1 when MPI is not running) */
int cli_mpi_rank(void);
int cli_mpi_size(void);
/* is MPI running (the program was started by mpirun, any -np)? */
int cli_mpi_running(void);
/* A subcommand that does not run distributed, started on more than one
 * process: print why (rank 0) and return 2; else 0. */
int cli_mpi_refuse(const cli_command *cmd);
/* The exit status every rank agrees on: the largest. */
int cli_mpi_agree_rc(int rc);
/* Per-rank CPU seconds and peak resident memory (MB) gathered on rank 0 and
 * written there as two JSON arrays (keys rank_cpu_seconds,
 * rank_peak_rss_mb) into the open object j.  Collective. */
void cli_mpi_json_ranks(rve_json *j);
#include <rve/mpi.h>
/* The distributed raster of a subcommand (rve_mpi_raster_hdf5) with its
 * messages and JSON summary; the exit status. */
int cli_mpi_raster(const cli_command *cmd, const cli_common *com, const rve_mpi_seeds *seeds,
                   const rve_mpi_grid *grid, const char *out);
/* rve raster TESS under mpirun: the grid of like (read by every rank) or
 * g voxels over the tessellation's box; the seeds and labels (*id) are
 * streamed from the file (rve_mpi_tessfile_open), never loaded whole. */
int cli_mpi_raster_tess(const cli_command *cmd, const cli_common *com, const char *tess, const char *like,
                        const double g[3], const char *out);
/* rve tess -n N -o CELLS.h5 under mpirun: the per-cell table of the box
 * [0, L] (rve_mpi_tess_cells) with its messages and JSON summary. */
int cli_mpi_tess(const cli_command *cmd, const cli_common *com, const rve_mpi_seeds *seeds, const double L[3],
                 const char *out);
/* rve gen --volumes -o CELLS.h5 under mpirun: the distributed prescribed-
 * volume solve (rve_mpi_pvol_solve) of the n seeds (3 n, every rank the
 * same) with initial weights w (n, replaced by the solution) and targets,
 * then lloyd Lloyd steps (rve_mpi_lloyd_step: seeds replaced), each
 * followed by a solve, as the serial rve gen --volumes --lloyd,
 * then the cell table with the seeds of the result (rve_mpi_tess_cells),
 * with messages and JSON summary; the exit status. */
int cli_mpi_gen_volumes(const cli_command *cmd, const cli_common *com, size_t n, double *seeds, double *w,
                        const double *target, const double domain[3], double tol, long lloyd, const char *out);
/* rve fit MAP -o OUT.tess under mpirun: every rank reads its layers of the
 * map (rve_mpi_map_open; maps that cannot be read by layers are read whole
 * by every rank, with a note), the fit is distributed by z slabs
 * (rve_mpi_fit), rank 0 writes the .tess (cli_fit_write: no history, no
 * report); messages and JSON summary; the exit status. */
int cli_mpi_fit(const cli_command *cmd, const cli_common *com, const char *mapf, const rve_map_load_opts *lo,
                const rve_fit_opts *fo, const char *out);
#else
static inline int cli_mpi_begin(int *argc, char ***argv) { (void)argc, (void)argv; return 0; }
static inline void cli_mpi_end(void) {}
static inline int cli_mpi_rank(void) { return 0; }
static inline int cli_mpi_size(void) { return 1; }
static inline int cli_mpi_running(void) { return 0; }
static inline int cli_mpi_refuse(const cli_command *cmd) { (void)cmd; return 0; }
static inline int cli_mpi_agree_rc(int rc) { return rc; }
#endif

#endif
