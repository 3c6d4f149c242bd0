/* rve tess - build a Laguerre/Voronoi tessellation from seeds. */
#include "config.h"
#include "cli/cli.h"
#include "cli/cli_mpi.h"
#include <rve/ori.h>
#include <rve/raster.h>
#include <rve/tess.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_tess = {
    "tess", "build a Laguerre/Voronoi tessellation from seeds",
    "Usage: rve tess -n N [--domain LX,LY,LZ] [--periodic[=AXES]] [--seed S] -o OUT\n"
    "       rve tess --seeds FILE [--domain LX,LY,LZ] [--periodic[=AXES]] -o OUT\n"
    "       rve tess (-n N | --seeds FILE) [--domain ...] --grid NX,NY,NZ -o MAP\n"
    "       mpirun -np P rve tess -n N [--domain ...] --grid NX,NY,NZ -o MAP.dream3d\n"
    "       mpirun -np P rve tess (-n N | --seeds FILE) [--domain ...] -o CELLS.h5\n"
    "Build the Laguerre (power) tessellation of the box [0,LX]x[0,LY]x[0,LZ] from\n"
    "seeds with weights (a weight w is a radius, as in Neper: the power distance is\n"
    "|x - s|^2 - w^2; w = 0 gives Voronoi cells).  Cells are computed by voro++;\n"
    "vertices, edges and faces are shared between cells (full topology).\n"
    "\n"
    "Options:\n"
    "  -n N               N random seeds, uniform in the domain, weight 0\n"
    "  --seeds FILE       seeds from FILE: one 'x y z [w]' line per seed ('#' comments);\n"
    "                     cell i of the output is seed i\n"
    "  --domain LX,LY,LZ  domain size (default 1,1,1; one value for a cube)\n"
    "  --periodic[=AXES]  periodic domain along AXES (default xyz), e.g. --periodic=xy;\n"
    "                     periodic cells are whole polyhedra around their seed\n"
    "  --seed S           random seed for -n (default 1) and --ori, as in gen, pack\n"
    "                     and run (--rng-seed S: the old spelling, still accepted)\n"
    "  --ori SPEC         per-cell crystal orientations in the .tess: random (uniform)\n"
    "                     or an ideal component cube, goss, brass, copper, s, with an\n"
    "                     optional :SPREAD in degrees (e.g. copper:5; normal scatter)\n"
    "  --crysym NAME      crystal symmetry of --ori (default cubic; hexagonal, ...)\n"
    "  --grid NX,NY,NZ    write the voxel map of the cells instead of polyhedra: every\n"
    "                     voxel centre of an NX x NY x NZ grid over the domain gets the\n"
    "                     cell (1..N) of the seed of smallest power distance, as rve\n"
    "                     raster labels them; MAP is .dream3d/.h5 (DREAM3D layout),\n"
    "                     .tif, .tesr or .raw.  Under mpirun (configure --with-mpi)\n"
    "                     each process labels one z slab and all write one HDF5 file\n"
    "                     collectively, bit-identical to the serial map (docs/mpi.md)\n"
    "  -o, --output OUT   output: Neper .tess (format 3.5), or VTK polyhedra when OUT\n"
    "                     ends in .vtk (cell data: id, volume); under mpirun (configure\n"
    "                     --with-mpi) OUT.h5 is the per-cell table (cell table: volume,\n"
    "                     degree, neighbours) computed and written distributed: each\n"
    "                     process owns the seeds of one z slab plus ghosts (docs/mpi.md)\n"
    "  --json             print a JSON summary on standard output\n"
    "  -q, --quiet        no messages;  -v, --verbose  more messages\n"
    "  -j, --threads N    thread count (accepted; voro++ runs on one thread)\n"
    "  -h, --help         this help\n"
    "\n"
    "Empty cells (seeds whose cells vanish under the weights) are reported, not fatal.\n"
    "\n"
    "Examples:\n"
    "  rve tess -n 1000 --domain 1,1,1 --seed 7 -o cells.tess\n"
    "  rve tess --seeds seeds.txt --domain 60,80,50 -o cells.vtk\n"
    "  rve tess -n 1000 --grid 64,64,64 -o cells.dream3d\n",
    run,
};

enum { OPT_SEEDS = CLI_OPT_FIRST, OPT_DOMAIN, OPT_PERIODIC, OPT_RNG, OPT_ORI, OPT_CRYSYM, OPT_GRID };

/* The seeds of -n N: uniform in [0, L), weight 0, from MT19937 seeded with
 * the --rng-seed value; a stream, so that a distributed raster keeps only
 * the seeds of its slab. */
typedef struct {
    gsl_rng *r;
    unsigned long seed;
    double L[3];
} seedgen;

static void seedgen_reset(void *ctx)
{
    seedgen *g = ctx;
    gsl_rng_set(g->r, g->seed);
}

static void seedgen_next(void *ctx, double *buf, long count)
{
    seedgen *g = ctx;
    for (long i = 0; i < count; i++) {
        for (int a = 0; a < 3; a++) buf[4 * i + a] = g->L[a] * gsl_rng_uniform(g->r);
        buf[4 * i + 3] = 0;
    }
}

/* --grid: the voxel map of the seeds (serial: the whole map in memory;
 * under mpirun: rve_mpi_raster_hdf5, slab by slab). */
static int write_grid(const cli_command *cmd, const cli_common *com, const double *seeds, long ns, seedgen *sg,
                      const double L[3], const double g[3], const char *out)
{
    rve_err err;
    rve_err_clear(&err);
#ifdef RVE_HAVE_MPI
    if (cli_mpi_running()) {
        rve_mpi_seeds src = {ns, seeds, seedgen_reset, seedgen_next, sg, NULL, NULL};
        rve_mpi_grid grid = {(int)g[0], (int)g[1], (int)g[2], {L[0] / g[0], L[1] / g[1], L[2] / g[2]}, {0, 0, 0},
                             {0, 0, 0}, {0, 0, 0}};
        return cli_mpi_raster(cmd, com, &src, &grid, out);
    }
#endif
    double *all = NULL;
    if (!seeds) { /* serial: the whole stream */
        all = malloc(sizeof(double) * 4 * (size_t)ns);
        if (!all) {
            rve_err_set(&err, RVE_ENOMEM, "", "out of memory");
            return cli_fail(cmd, &err);
        }
        seedgen_reset(sg);
        seedgen_next(sg, all, ns);
        seeds = all;
    }
    rve_map *m = rve_map_alloc((int)g[0], (int)g[1], (int)g[2]);
    rve_status st = m ? RVE_OK : rve_err_set(&err, RVE_ENOMEM, "", "out of memory");
    for (int a = 0; m && a < 3; a++) m->h[a] = L[a] / g[a];
    double t0 = rve_now();
    if (st == RVE_OK) st = rve_tess_rasterize_seeds(seeds, (int)ns, NULL, m, &err);
    double dt = rve_now() - t0;
    free(all);
    if (st == RVE_OK) st = rve_map_write(m, out, RVE_MAP_AUTO, NULL, &err);
    if (st != RVE_OK) {
        rve_map_free(m);
        return cli_fail(cmd, &err);
    }
    cli_info(com, "rve tess: %ld seeds on %d x %d x %d voxels in %.3f s -> %s", ns, m->nx, m->ny, m->nz, dt, out);
    if (com->json) {
        rve_json j;
        rve_json_init(&j, stdout);
        rve_json_begin_object(&j);
        rve_json_kv_string(&j, "output", out);
        rve_json_kv_int(&j, "ranks", 1);
        rve_json_kv_int(&j, "seeds", ns);
        rve_json_kv_int(&j, "labels", m->nlabels);
        rve_json_kv_number(&j, "seconds", dt);
        rve_json_end_object(&j);
    }
    rve_map_free(m);
    return 0;
}

/* --periodic[=AXES]: 0, or the exit status of a usage error. */
static int parse_periodic(const cli_command *cmd, const char *arg, int per[3])
{
    if (!arg) {
        per[0] = per[1] = per[2] = 1;
        return 0;
    }
    if (!*arg) return cli_usage_error(cmd, "--periodic: expected axes among x, y, z");
    for (const char *p = arg; *p; p++) {
        if (*p < 'x' || *p > 'z') return cli_usage_error(cmd, "--periodic: expected axes among x, y, z, got '%s'", arg);
        per[*p - 'x'] = 1;
    }
    return 0;
}

/* --grid NX,NY,NZ: 0, or the exit status of a usage error. */
static int parse_grid(const cli_command *cmd, const char *arg, double grid[3])
{
    if (rve_parse_triplet(arg, grid, 1) != RVE_OK) return cli_usage_error(cmd, "--grid: expected NX,NY,NZ, got '%s'", arg);
    for (int a = 0; a < 3; a++)
        if (!(grid[a] >= 1 && grid[a] <= 100000 && grid[a] == (double)(long)grid[a]))
            return cli_usage_error(cmd, "--grid: expected voxel counts from 1 to 100000, got '%s'", arg);
    return 0;
}

/* What the output and the options allow: -1 to go on, else the exit status. */
static int check_output(const cli_command *cmd, const char *out, const double grid[3], const int per[3],
                        const char *ori)
{
    if (grid[0] > 0) {
        if (per[0] || per[1] || per[2] || ori)
            return cli_usage_error(cmd, "--grid: voxel maps of periodic or oriented cells are not written (write a .tess and use rve raster)");
        if (rve_map_format_from_path(out) == RVE_MAP_AUTO)
            return cli_usage_error(cmd, "%s: unknown map format (use .dream3d, .h5, .tif, .tesr or .raw)", out);
        if (cli_mpi_running() && rve_map_format_from_path(out) != RVE_MAP_HDF5)
            return cli_usage_error(cmd, "%s: under mpirun the map is written with parallel HDF5 (.dream3d, .h5)", out);
    } else if (rve_map_format_from_path(out) == RVE_MAP_HDF5) {
        if (!cli_mpi_running())
            return cli_usage_error(cmd, "%s: the per-cell table (.h5) is written under mpirun (configure --with-mpi); "
                                   "write a .tess or .vtk here", out);
        if (per[0] || per[1] || per[2] || ori)
            return cli_usage_error(cmd, "the distributed tessellation is not periodic and has no orientations");
    } else if (cli_mpi_size() > 1)
        return cli_usage_error(cmd, "under mpirun, write the voxel map (--grid, .dream3d) or the per-cell table (.h5)");
    return -1;
}

static void report_json(const rve_tess *t, const char *out, double tbuild)
{
    long double vs = 0;
    for (int i = 0; i < t->n; i++) vs += t->cells[i].vol;
    rve_json j;
    rve_json_init(&j, stdout);
    rve_json_begin_object(&j);
    rve_json_kv_string(&j, "output", out);
    rve_json_kv_int(&j, "cells", t->n);
    rve_json_kv_int(&j, "empty_cells", t->nempty);
    rve_json_kv_int(&j, "vertices", t->nver);
    rve_json_kv_int(&j, "edges", t->nedge);
    rve_json_kv_int(&j, "faces", t->nface);
    rve_json_kv_number(&j, "volume", (double)vs);
    rve_json_kv_number(&j, "seconds", tbuild);
    rve_json_end_object(&j);
}

static int run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_tess;
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        {"seeds", required_argument, NULL, OPT_SEEDS},
        {"domain", required_argument, NULL, OPT_DOMAIN},
        {"periodic", optional_argument, NULL, OPT_PERIODIC},
        {"seed", required_argument, NULL, OPT_RNG},
        {"rng-seed", required_argument, NULL, OPT_RNG},
        {"ori", required_argument, NULL, OPT_ORI},
        {"crysym", required_argument, NULL, OPT_CRYSYM},
        {"grid", required_argument, NULL, OPT_GRID},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    cli_common com;
    cli_common_init(&com);
    long n = 0, rng = 1;
    const char *seedfile = NULL, *out = NULL, *ori = NULL, *crysym = NULL;
    double L[3] = {1, 1, 1}, grid[3] = {0, 0, 0};
    int per[3] = {0, 0, 0};
    int c;
    cli_getopt_reset();
    while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT "n:o:", longopts, NULL)) != -1) {
        int r = cli_common_option(&com, cmd, c, optarg);
        if (r == 1) continue;
        if (r == 2) return 0;
        if (r < 0) return 2;
        switch (c) {
        case 'n':
            if (rve_parse_int_range(optarg, 1, 100000000L, &n) != RVE_OK)
                return cli_usage_error(cmd, "-n: expected a seed count from 1 to 100000000, got '%s'", optarg);
            break;
        case 'o': out = optarg; break;
        case OPT_SEEDS: seedfile = optarg; break;
        case OPT_DOMAIN:
            if (rve_parse_triplet(optarg, L, 1) != RVE_OK || !(L[0] > 0 && L[1] > 0 && L[2] > 0))
                return cli_usage_error(cmd, "--domain: expected three positive sizes LX,LY,LZ, got '%s'", optarg);
            break;
        case OPT_PERIODIC:
            if (parse_periodic(cmd, optarg, per) != 0) return 2;
            break;
        case OPT_RNG:
            if (rve_parse_int_range(optarg, 0, 4294967295L, &rng) != RVE_OK)
                return cli_usage_error(cmd, "--seed: expected an integer from 0 to 4294967295, got '%s'", optarg);
            break;
        case OPT_ORI: ori = optarg; break;
        case OPT_GRID:
            if (parse_grid(cmd, optarg, grid) != 0) return 2;
            break;
        case OPT_CRYSYM: {
            rve_laue g;
            if (rve_laue_parse(optarg, &g) != RVE_OK)
                return cli_usage_error(cmd, "--crysym: unknown crystal symmetry '%s' (cubic, hexagonal, "
                                       "tetragonal, trigonal, orthorhombic, monoclinic, triclinic)", optarg);
            crysym = optarg;
            break;
        }
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    if (crysym && !ori) return cli_usage_error(cmd, "--crysym goes with --ori");
    if (ori && rve_path_has_ext(out ? out : "", ".vtk"))
        return cli_usage_error(cmd, "--ori: orientations go to a .tess output");
    if (optind < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!out) return cli_usage_error(cmd, "missing the output file (-o OUT)");
    if ((n > 0) == (seedfile != NULL)) return cli_usage_error(cmd, "give either -n N or --seeds FILE");
    if ((c = check_output(cmd, out, grid, per, ori)) >= 0) return c;
    if (cli_check_paths(cmd, &seedfile, 1, &out, 1)) return 2;
    cli_common_apply(&com);

    rve_err err;
    rve_err_clear(&err);
    double *seeds = NULL;
    int ns = 0;
    seedgen sg = {gsl_rng_alloc(gsl_rng_mt19937), (unsigned long)rng, {L[0], L[1], L[2]}};
    if (!sg.r) {
        rve_err_set(&err, RVE_ENOMEM, "", "out of memory");
        return cli_fail(cmd, &err);
    }
    if (seedfile) {
        if (rve_tess_read_seeds(seedfile, &seeds, &ns, &err) != RVE_OK) {
            gsl_rng_free(sg.r);
            return cli_fail(cmd, &err);
        }
    } else if (grid[0] > 0 || rve_map_format_from_path(out) == RVE_MAP_HDF5) {
        ns = (int)n; /* streamed by the voxel map or the distributed cell table */
    } else {
        ns = (int)n;
        seeds = malloc(sizeof(double) * 4 * (size_t)ns);
        if (!seeds) {
            gsl_rng_free(sg.r);
            rve_err_set(&err, RVE_ENOMEM, "", "out of memory");
            return cli_fail(cmd, &err);
        }
        seedgen_reset(&sg);
        seedgen_next(&sg, seeds, ns);
    }
#ifdef RVE_HAVE_MPI
    if (grid[0] == 0 && rve_map_format_from_path(out) == RVE_MAP_HDF5) { /* distributed cell table */
        rve_mpi_seeds src = {ns, seeds, seedgen_reset, seedgen_next, &sg, NULL, NULL};
        int rc = cli_mpi_tess(cmd, &com, &src, L, out);
        free(seeds);
        gsl_rng_free(sg.r);
        return rc;
    }
#endif
    if (grid[0] > 0) {
        int rc = write_grid(cmd, &com, seeds, ns, &sg, L, grid, out);
        free(seeds);
        gsl_rng_free(sg.r);
        return rc;
    }
    gsl_rng_free(sg.r);
    double lo[3] = {0, 0, 0};
    rve_tess *t = NULL;
    double t0 = rve_now();
    cli_info(&com, "rve tess: %d seeds, domain %g x %g x %g%s", ns, L[0], L[1], L[2],
             (per[0] || per[1] || per[2]) ? ", periodic" : "");
    rve_status st = rve_tess_build(seeds, ns, lo, L, per, NULL, &t, &err);
    free(seeds);
    if (st != RVE_OK) {
        if (seedfile && !err.file[0]) snprintf(err.file, sizeof err.file, "%s", seedfile);
        return cli_fail(cmd, &err);
    }
    double tbuild = rve_now() - t0;
    if (t->nempty) cli_info(&com, "rve tess: %d empty cell%s", t->nempty, t->nempty > 1 ? "s" : "");
    if (ori && rve_tess_set_ori_texture(t, ori, crysym ? crysym : "cubic", (uint64_t)rng, &err) != RVE_OK) {
        rve_tess_free(t);
        return cli_fail(cmd, &err);
    }
    if (rve_path_has_ext(out, ".vtk"))
        st = rve_tess_write_vtk(t, out, NULL, &err);
    else
        st = rve_tess_write_tess(t, out, NULL, &err);
    if (st != RVE_OK) {
        rve_tess_free(t);
        return cli_fail(cmd, &err);
    }
    cli_info(&com, "rve tess: %d cells, %d vertices, %d edges, %d faces in %.3f s -> %s", t->n, t->nver,
             t->nedge, t->nface, tbuild, out);
    if (com.json) report_json(t, out, tbuild);
    rve_tess_free(t);
    return 0;
}
