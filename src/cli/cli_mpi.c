/* cli_mpi.c - start and stop MPI for the rve program (MPI build only). */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "cli/cli_mpi.h"
#include <fcntl.h>
#include <rve/mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sweeps of frozen rounds of the distributed fit after its overlapping
 * round (rve_mpi_fit, docs/mpi.md); RVE_MPI_FIT_SWEEPS=N overrides. */
#define CLI_MPI_FIT_SWEEPS 1

/* The subcommands that run distributed under mpirun (docs/mpi.md). */
static const char *const distributed[] = {"gen", "tess", "raster", "fit"};

static int mpi_on(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

int cli_mpi_begin(int *argc, char ***argv)
{
    if (!rve_mpi_launched())
        return 0;
    int provided;
    /* MPI is called from the main thread only; OpenMP threads compute */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "rve: MPI_Init failed\n");
        return 1;
    }
    if (cli_mpi_rank() > 0 && !getenv("RVE_MPI_ALL_RANKS_PRINT")) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            fflush(stdout), fflush(stderr);
            dup2(fd, STDOUT_FILENO), dup2(fd, STDERR_FILENO);
            close(fd);
        }
    }
    return 0;
}

void cli_mpi_end(void)
{
    if (mpi_on())
        MPI_Finalize();
}

int cli_mpi_running(void)
{
    return mpi_on();
}

int cli_mpi_rank(void)
{
    int r = 0;
    if (mpi_on())
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int cli_mpi_size(void)
{
    int s = 1;
    if (mpi_on())
        MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

int cli_mpi_refuse(const cli_command *cmd)
{
    if (cli_mpi_size() < 2)
        return 0;
    for (size_t i = 0; i < sizeof distributed / sizeof distributed[0]; i++)
        if (strcmp(cmd->name, distributed[i]) == 0)
            return 0;
    fprintf(stderr, "rve %s: does not run distributed; run it without mpirun, or with -np 1 "
            "(distributed: rve gen, tess, raster, fit; docs/mpi.md)\n", cmd->name);
    return 2;
}

int cli_mpi_agree_rc(int rc)
{
    if (!mpi_on())
        return rc;
    int all = rc;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

#include <sys/resource.h>

void cli_mpi_json_ranks(rve_json *j)
{
    struct rusage ru;
    double mine[2] = {0, 0};
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        mine[0] = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                  ru.ru_stime.tv_usec * 1e-6;
        mine[1] = (double)ru.ru_maxrss / 1024.0; /* kB on Linux */
    }
    int size = cli_mpi_size(), rank = cli_mpi_rank();
    double *all = rank == 0 ? malloc(sizeof(double) * 2 * (size_t)size) : NULL;
    if (mpi_on())
        MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else if (all)
        memcpy(all, mine, sizeof mine);
    if (rank != 0 || !all)
        return;
    static const char *const keys[2] = {"rank_cpu_seconds", "rank_peak_rss_mb"};
    for (int k = 0; k < 2; k++) {
        rve_json_key(j, keys[k]);
        rve_json_begin_array(j);
        for (int r = 0; r < size; r++)
            rve_json_number(j, all[2 * r + k]);
        rve_json_end_array(j);
    }
    free(all);
}

/* The JSON summary of a distributed command on rank 0: opened with the
 * output and the ranks (j is then open on rank 0 only, when com->json). */
static void json_open(rve_json *j, const cli_common *com, const char *out)
{
    rve_json_init(j, stdout);
    if (com->json && cli_mpi_rank() == 0) {
        rve_json_begin_object(j);
        rve_json_kv_string(j, "output", out);
        rve_json_kv_int(j, "ranks", cli_mpi_size());
    }
}

/* ... and closed with the per-rank CPU and memory (collective). */
static void json_close(rve_json *j, const cli_common *com)
{
    if (com->json)
        cli_mpi_json_ranks(j);
    if (com->json && cli_mpi_rank() == 0)
        rve_json_end_object(j);
}

int cli_mpi_raster(const cli_command *cmd, const cli_common *com, const rve_mpi_seeds *seeds,
                   const rve_mpi_grid *grid, const char *out)
{
    rve_err err;
    rve_err_clear(&err);
    rve_mpi_raster_info info;
    double t0 = MPI_Wtime();
    rve_status st = rve_mpi_raster_hdf5(MPI_COMM_WORLD, seeds, grid, out, &info, &err);
    double dt = MPI_Wtime() - t0;
    if (st != RVE_OK)
        return cli_fail(cmd, &err);
    /* the largest slab figures, for the summary */
    long kept = info.seeds_kept, kmax = kept;
    double halo = info.halo, hmax = halo;
    int rounds = info.rounds, rmax = rounds;
    MPI_Reduce(&kept, &kmax, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&halo, &hmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&rounds, &rmax, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    cli_info(com, "rve %s: %ld seeds on %d x %d x %d voxels, %d ranks (at most %ld seeds, halo %g, %d round%s "
             "per rank) in %.3f s -> %s", cmd->name, seeds->n, grid->nx, grid->ny, grid->nz, cli_mpi_size(), kmax,
             hmax, rmax, rmax > 1 ? "s" : "", dt, out);
    rve_json j;
    json_open(&j, com, out);
    if (com->json && cli_mpi_rank() == 0) {
        rve_json_kv_int(&j, "seeds", seeds->n);
        rve_json_kv_int(&j, "labels", info.nlabels);
        rve_json_kv_int(&j, "seeds_kept_max", kmax);
        rve_json_kv_number(&j, "halo_max", hmax);
        rve_json_kv_int(&j, "halo_rounds_max", rmax);
        rve_json_kv_number(&j, "seconds", dt);
    }
    json_close(&j, com);
    return 0;
}

#include <rve/tess.h>

int cli_mpi_raster_tess(const cli_command *cmd, const cli_common *com, const char *tess, const char *like,
                        const double g[3], const char *out)
{
    rve_err err;
    rve_err_clear(&err);
    rve_status st = RVE_OK;
    rve_mpi_tessfile *tf = NULL;
    rve_mpi_seeds src;
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    int grid_per[3] = {0, 0, 0};
    memset(&src, 0, sizeof src);
    if (rve_map_format_from_path(out) != RVE_MAP_HDF5)
        st = rve_err_set(&err, RVE_EUSAGE, out, "under mpirun the map is written with parallel HDF5 (.dream3d, .h5)");
    else /* every rank streams the seeds of the file: no rank loads the tessellation */
        st = rve_mpi_tessfile_open(tess, &tf, &src, lo, hi, grid_per, &err);
    rve_mpi_grid grid;
    memset(&grid, 0, sizeof grid);
    for (int a = 0; a < 3; a++) { /* periodic: images by the box, as rve_tess_rasterize */
        grid.periodic[a] = grid_per[a];
        grid.period[a] = hi[a] - lo[a];
    }
    if (st == RVE_OK && like) { /* every rank reads the reference grid (small next to the output) */
        rve_map *ref = NULL;
        st = rve_map_read(like, RVE_MAP_AUTO, NULL, &ref, &err);
        if (st == RVE_OK) {
            grid.nx = ref->nx, grid.ny = ref->ny, grid.nz = ref->nz;
            memcpy(grid.h, ref->h, sizeof grid.h);
            memcpy(grid.origin, ref->origin, sizeof grid.origin);
        }
        rve_map_free(ref);
    } else if (st == RVE_OK) {
        grid.nx = (int)g[0], grid.ny = (int)g[1], grid.nz = (int)g[2];
        for (int a = 0; a < 3; a++) {
            grid.origin[a] = lo[a];
            grid.h[a] = (hi[a] - lo[a]) / g[a]; /* as rve raster's serial path */
        }
    }
    st = rve_mpi_agree(MPI_COMM_WORLD, st, &err);
    int rc = st != RVE_OK ? cli_fail(cmd, &err) : cli_mpi_raster(cmd, com, &src, &grid, out);
    rve_mpi_tessfile_close(tf);
    return rc;
}

int cli_mpi_tess(const cli_command *cmd, const cli_common *com, const rve_mpi_seeds *seeds, const double L[3],
                 const char *out)
{
    rve_err err;
    rve_err_clear(&err);
    rve_mpi_tess_info info;
    double lo[3] = {0, 0, 0};
    double t0 = MPI_Wtime();
    rve_status st = rve_mpi_tess_cells(MPI_COMM_WORLD, seeds, lo, L, out, &info, &err);
    double dt = MPI_Wtime() - t0;
    if (st != RVE_OK)
        return cli_fail(cmd, &err);
    long kept = info.seeds_kept, kmax = kept;
    double ghost = info.ghost, gmax = ghost;
    int rounds = info.rounds, rmax = rounds;
    MPI_Reduce(&kept, &kmax, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&ghost, &gmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&rounds, &rmax, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    cli_info(com, "rve %s: %ld cells on %d ranks (at most %ld seeds with ghosts, ghost depth %g, %d round%s per "
             "rank) in %.3f s -> %s", cmd->name, seeds->n, cli_mpi_size(), kmax, gmax, rmax, rmax > 1 ? "s" : "", dt,
             out);
    rve_json j;
    json_open(&j, com, out);
    if (com->json && cli_mpi_rank() == 0) {
        rve_json_kv_int(&j, "cells", seeds->n);
        rve_json_kv_int(&j, "max_degree", info.max_degree);
        rve_json_kv_int(&j, "seeds_kept_max", kmax);
        rve_json_kv_number(&j, "ghost_max", gmax);
        rve_json_kv_int(&j, "ghost_rounds_max", rmax);
        rve_json_kv_number(&j, "seconds", dt);
    }
    json_close(&j, com);
    return 0;
}

int cli_mpi_gen_volumes(const cli_command *cmd, const cli_common *com, size_t n, double *seeds, double *w,
                        const double *target, const double domain[3], double tol, long lloyd, const char *out)
{
    rve_err err;
    rve_err_clear(&err);
    rve_pvol_params pp;
    rve_pvol_params_default(&pp);
    pp.tol = tol;
    rve_pvol_info pi;
    memset(&pi, 0, sizeof pi);
    rve_status st = rve_mpi_pvol_solve(MPI_COMM_WORLD, n, seeds, domain, target, w, &pp, &pi, &err);
    double secs = pi.seconds;
    int its = pi.iterations;
    for (long k = 0; st == RVE_OK && k < lloyd; k++) { /* as the serial step_volumes */
        st = rve_mpi_lloyd_step(MPI_COMM_WORLD, n, seeds, w, domain, &err);
        if (st == RVE_OK)
            st = rve_mpi_pvol_solve(MPI_COMM_WORLD, n, seeds, domain, target, w, &pp, &pi, &err);
        secs += pi.seconds;
        its += pi.iterations;
    }
    pi.seconds = secs;
    pi.iterations = its;
    double *s4 = st == RVE_OK ? malloc(4 * n * sizeof *s4) : NULL;
    if (st == RVE_OK)
        st = rve_mpi_agree(MPI_COMM_WORLD, s4 ? RVE_OK : rve_err_set(&err, RVE_ENOMEM, "", "out of memory"), &err);
    if (st != RVE_OK) {
        free(s4);
        return cli_fail(cmd, &err);
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(s4 + 4 * i, seeds + 3 * i, 3 * sizeof *s4);
        s4[4 * i + 3] = w[i];
    }
    cli_info(com, "rve %s: %zu cells, max relative volume error %.3g after %d Newton iterations (%d diagrams) on "
             "%d ranks in %.2f s", cmd->name, n, pi.max_rel_err, pi.iterations, pi.tess_calls, cli_mpi_size(),
             pi.seconds);
    rve_mpi_seeds src = {(long)n, s4, NULL, NULL, NULL, NULL, NULL};
    cli_common quiet = *com;
    quiet.json = 0;
    int rc = cli_mpi_tess(cmd, &quiet, &src, domain, out);
    free(s4);
    if (rc)
        return rc;
    rve_json j;
    json_open(&j, com, out);
    if (com->json && cli_mpi_rank() == 0) {
        rve_json_kv_string(&j, "command", "gen");
        rve_json_kv_int(&j, "cells", (long long)n);
        rve_json_kv_number(&j, "max_rel_volume_error", pi.max_rel_err);
        rve_json_kv_int(&j, "newton_iterations", pi.iterations);
        rve_json_kv_int(&j, "tessellations", pi.tess_calls);
        rve_json_kv_int(&j, "cg_iterations", pi.cg_iterations);
        rve_json_kv_number(&j, "seconds", pi.seconds);
    }
    json_close(&j, com);
    return 0;
}

/* The map of a distributed fit: read by layers when the file allows it
 * (every rank the same answer), else whole by every rank (one line says
 * why).  *mf NULL: *m holds the whole map. */
static rve_status fit_map_source(const cli_common *com, const char *mapf, const rve_map_load_opts *lo,
                                 rve_mpi_map_file **mf, rve_map **m, rve_mpi_map_src *src, rve_err *err)
{
    char why[200] = "RVE_MPI_FIT_WHOLE is set";
    const char *ev = getenv("RVE_MPI_FIT_WHOLE"); /* test hook: the whole-map path */
    rve_status st = ev && ev[0] ? RVE_OK : rve_mpi_map_open(mapf, lo, mf, src, why, sizeof why, err);
    int part = st == RVE_OK && *mf;
    MPI_Allreduce(MPI_IN_PLACE, &part, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (st == RVE_OK && !part) {
        rve_mpi_map_close(*mf);
        *mf = NULL;
        cli_info(com, "rve fit: %s is read whole by every rank: %s", mapf, why[0] ? why : "another rank cannot read it by layers");
        if ((st = rve_map_load(mapf, lo, m, err)) == RVE_OK)
            rve_mpi_map_src_memory(*m, src);
    }
    if (st != RVE_OK && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", mapf);
    return rve_mpi_agree(MPI_COMM_WORLD, st, err);
}

/* JSON: how the map was read, and per rank the layers and voxels read,
 * the grains owned and those of the slab and halo (collective). */
static void fit_json_reads(rve_json *j, const rve_mpi_map_file *mf, const rve_mpi_fit_info *info)
{
    int size = cli_mpi_size(), rank = cli_mpi_rank();
    enum { K = 5 };
    double mine[K] = {info->s0, info->s1, (double)rve_mpi_map_voxels_read(mf), info->owned, info->sub_grains};
    double *all = rank == 0 ? malloc(sizeof(double) * K * (size_t)size) : NULL;
    MPI_Gather(mine, K, MPI_DOUBLE, all, K, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0 || !all)
        return;
    rve_json_kv_string(j, "map_read", mf ? "layers" : "whole");
    rve_json_key(j, "rank_layers_read");
    rve_json_begin_array(j);
    for (int r = 0; r < size; r++) {
        rve_json_begin_array(j);
        rve_json_int(j, (long long)all[K * r]);
        rve_json_int(j, (long long)all[K * r + 1]);
        rve_json_end_array(j);
    }
    rve_json_end_array(j);
    static const char *const keys[3] = {"rank_voxels_read", "rank_grains_owned", "rank_sub_grains"};
    for (int k = 0; k < 3; k++) {
        rve_json_key(j, keys[k]);
        rve_json_begin_array(j);
        for (int r = 0; r < size; r++)
            rve_json_int(j, (long long)all[K * r + 2 + k]);
        rve_json_end_array(j);
    }
    free(all);
}

int cli_mpi_fit(const cli_command *cmd, const cli_common *com, const char *mapf, const rve_map_load_opts *lo,
                const rve_fit_opts *fo, const char *out)
{
    rve_err err;
    rve_err_clear(&err);
    rve_map *m = NULL, *head = NULL;
    rve_mpi_map_file *mf = NULL;
    rve_mpi_map_src src;
    rve_fit_result r;
    memset(&r, 0, sizeof r);
    rve_mpi_fit_info info;
    memset(&info, 0, sizeof info);
    double t0 = MPI_Wtime();
    rve_status st = fit_map_source(com, mapf, lo, &mf, &m, &src, &err);
    if (st == RVE_OK) {
        const char *ev = getenv("RVE_MPI_FIT_SWEEPS");
        int sweeps = ev && atoi(ev) >= 0 && ev[0] ? atoi(ev) : CLI_MPI_FIT_SWEEPS;
        st = rve_mpi_fit(MPI_COMM_WORLD, &src, fo, sweeps, &r, &info, &err);
        if (st != RVE_OK && !err.file[0])
            snprintf(err.file, sizeof err.file, "%s", mapf);
    }
    double dt = MPI_Wtime() - t0;
    if (st == RVE_OK && cli_mpi_rank() == 0) { /* the seeds are small: one rank writes */
        cli_fit_outputs to = {out, NULL, NULL, NULL, NULL, 0};
        cli_common quiet = *com; /* the summary line is this command's own */
        quiet.verbosity = RVE_QUIET;
        /* the writer needs the map's geometry and per-grain tables, not its voxels */
        if (mf && (st = rve_mpi_map_header(mf, r.label, (size_t)r.n, &head, &err)) != RVE_OK && !err.file[0])
            snprintf(err.file, sizeof err.file, "%s", mapf);
        if (st == RVE_OK)
            st = cli_fit_write(&quiet, mapf, mf ? head : m, fo, &r, &to, &err) == 0 ? RVE_OK : err.code;
    }
    st = rve_mpi_agree(MPI_COMM_WORLD, st, &err);
    rve_map_free(m);
    rve_map_free(head);
    int rc = 0;
    if (st != RVE_OK)
        rc = cli_fail(cmd, &err);
    else {
        int hmax = info.halo, smax = info.sub_grains;
        MPI_Allreduce(MPI_IN_PLACE, &smax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        cli_info(com, "rve fit: %d grains on %d ranks (halo %d layers, at most %d grains per rank), accuracy "
                 "%.2f%% -> %.2f%% in %d exchange round%s, %.1f s -> %s", info.grains, cli_mpi_size(), hmax, smax,
                 100 * r.acc_init, 100 * r.acc_final, info.rounds, info.rounds > 1 ? "s" : "", dt, out);
        rve_json j;
        json_open(&j, com, out);
        if (com->json && cli_mpi_rank() == 0) {
            rve_json_kv_string(&j, "command", "fit");
            rve_json_kv_string(&j, "map", mapf);
            rve_json_kv_int(&j, "cells", r.n);
            rve_json_kv_int(&j, "halo_layers", hmax);
            rve_json_kv_int(&j, "colours", info.colours);
            rve_json_kv_int(&j, "sub_grains_max", smax);
            rve_json_kv_number(&j, "accuracy_init", r.acc_init);
            rve_json_kv_number(&j, "accuracy", r.acc_final);
            rve_json_key(&j, "accuracy_rounds");
            rve_json_begin_array(&j);
            for (int k = 0; k <= info.rounds; k++)
                rve_json_number(&j, info.acc_round[k]);
            rve_json_end_array(&j);
            rve_json_kv_number(&j, "seconds", dt);
            rve_json_kv_number(&j, "exchange_bytes", info.exchange_bytes);
        }
        if (com->json)
            fit_json_reads(&j, mf, &info);
        json_close(&j, com);
    }
    rve_mpi_map_close(mf);
    rve_fit_result_free(&r);
    return rc;
}
