/* rve raster - rasterise a tessellation on the voxel grid of a map. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/cli_mpi.h"
#include "cli/vti_out.h"
#include <rve/raster.h>
#include <rve/tess.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_raster = {
    "raster", "rasterise a tessellation on the voxel grid of a map",
    "Usage: rve raster TESS (--like MAP | --grid NX,NY,NZ) -o OUT\n"
    "Label every voxel centre with the cell of the tessellation TESS (a Neper .tess)\n"
    "whose seed has the smallest power distance |x - s|^2 - w^2.  Exact and\n"
    "independent of the polyhedra (only seeds and weights are used); ties go to the\n"
    "lowest cell.  Labels are the cell ids of the .tess (its *id, else 1..N).\n"
    "\n"
    "Options:\n"
    "  --like MAP          use the grid of MAP (.tif, .tesr; size, voxel size, origin)\n"
    "  --grid NX,NY,NZ     or a grid of NX x NY x NZ voxels over the tessellation's domain\n"
    "  -o, --output OUT    output map (.tif, .tesr, .raw or .dream3d/.h5, from the\n"
    "                      extension; under mpirun (configure --with-mpi) each process\n"
    "                      labels one z slab of a .dream3d/.h5 written collectively,\n"
    "                      docs/mpi.md), or\n"
    "                      .vti: DAMASK grid solver input (VTK image data with the\n"
    "                      0-based cell array `material`) plus material.yaml beside it\n"
    "                      (one material per cell with its *ori orientation and a phase\n"
    "                      named after *crysym; docs/formats.md, section DAMASK)\n"
    "  --material FILE     .vti output: write material.yaml to FILE instead\n"
    "  --json              print a JSON summary on standard output\n"
    "  -q, --quiet         no messages;  -v, --verbose  more messages\n"
    "  -j, --threads N     threads (OpenMP)\n"
    "  -h, --help          this help\n"
    "\n"
    "Examples:\n"
    "  rve raster fit.tess --like grains.tif -o fit.tif\n"
    "  rve raster gen.tess --grid 64,64,64 -o grid.vti\n",
    run,
};

enum { OPT_LIKE = CLI_OPT_FIRST, OPT_GRID, OPT_MATERIAL };

typedef struct {
    cli_common com;
    const char *tess, *like, *out, *material;
    double grid[3];
    int vti;
} raster_args;

/* 0: parsed; otherwise the exit status (help printed, usage error). */
static int parse_args(int argc, char **argv, raster_args *a)
{
    const cli_command *cmd = &cli_cmd_raster;
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        {"like", required_argument, NULL, OPT_LIKE},
        {"grid", required_argument, NULL, OPT_GRID},
        {"output", required_argument, NULL, 'o'},
        {"material", required_argument, NULL, OPT_MATERIAL},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    cli_common_init(&a->com);
    int c;
    cli_getopt_reset();
    while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT "o:", longopts, NULL)) != -1) {
        int r = cli_common_option(&a->com, cmd, c, optarg);
        if (r == 1) continue;
        if (r == 2) return -1;
        if (r < 0) return 2;
        switch (c) {
        case 'o': a->out = optarg; break;
        case OPT_LIKE: a->like = optarg; break;
        case OPT_MATERIAL: a->material = optarg; break;
        case OPT_GRID:
            if (rve_parse_triplet(optarg, a->grid, 1) != RVE_OK)
                return cli_usage_error(cmd, "--grid: expected NX,NY,NZ, got '%s'", optarg);
            for (int k = 0; k < 3; k++)
                if (!(a->grid[k] >= 1 && a->grid[k] <= 100000 && a->grid[k] == (double)(long)a->grid[k]))
                    return cli_usage_error(cmd, "--grid: expected voxel counts from 1 to 100000, got '%s'", optarg);
            break;
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    if (argc - optind != 1) return cli_usage_error(cmd, "expected one tessellation file");
    if (!a->out) return cli_usage_error(cmd, "missing the output file (-o OUT)");
    if ((a->like != NULL) == (a->grid[0] > 0)) return cli_usage_error(cmd, "give either --like MAP or --grid NX,NY,NZ");
    a->vti = cli_path_is_vti(a->out);
    if (!a->vti && rve_map_format_from_path(a->out) == RVE_MAP_AUTO)
        return cli_usage_error(cmd, "%s: unknown output format (use .tif, .tesr, .raw or .vti)", a->out);
    if (a->material && !a->vti)
        return cli_usage_error(cmd, "--material: only for a .vti output");
    a->tess = argv[optind];
    return 0;
}

/* The labels of the cells: their *id, else 1..N. */
static rve_status cell_labels(const char *tpath, rve_tess **t, uint32_t **lab, rve_err *err)
{
    int *ids = NULL;
    if (rve_tess_read_tess(tpath, t, &ids, err) != RVE_OK)
        return err->code;
    *lab = malloc(sizeof(uint32_t) * (size_t)(*t)->n);
    rve_status st = *lab ? RVE_OK : rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    for (int i = 0; i < (*t)->n && st == RVE_OK; i++) {
        long v = ids ? ids[i] : i + 1;
        if (v < 1)
            st = rve_err_set(err, RVE_EDATA, tpath, "cell id %ld is not a positive label", v);
        else
            (*lab)[i] = (uint32_t)v;
    }
    free(ids);
    return st;
}

/* An empty map on the grid of `like` or on grid[] over the tessellation's box. */
static rve_status make_grid(const raster_args *a, const rve_tess *t, rve_map **out, rve_err *err)
{
    rve_map *m = NULL;
    if (a->like) {
        rve_map *ref = NULL;
        if (rve_map_read(a->like, RVE_MAP_AUTO, NULL, &ref, err) != RVE_OK)
            return err->code;
        m = rve_map_alloc(ref->nx, ref->ny, ref->nz);
        if (m) {
            memcpy(m->h, ref->h, sizeof m->h);
            memcpy(m->origin, ref->origin, sizeof m->origin);
            m->has_res = ref->has_res;
        }
        rve_map_free(ref);
    } else {
        m = rve_map_alloc((int)a->grid[0], (int)a->grid[1], (int)a->grid[2]);
        if (m)
            for (int k = 0; k < 3; k++) {
                m->origin[k] = t->lo[k];
                m->h[k] = (t->hi[k] - t->lo[k]) / a->grid[k];
            }
    }
    if (!m)
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    *out = m;
    return RVE_OK;
}

/* The cells' orientations (and crystal symmetry) as the map's, by label:
 * label lab[k] gets cell k's quaternion.  Nothing without orientations. */
static rve_status map_ori_from_tess(rve_map *m, const rve_tess *t, const uint32_t *lab, rve_err *err)
{
    if (t->crysym && !(m->crysym = strdup(t->crysym)))
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    if (!t->ori || t->ori_n <= 0 || m->nlabels == 0)
        return RVE_OK;
    double *q = malloc((size_t)t->n * 4 * sizeof *q);
    double *o = calloc((size_t)m->nlabels * 4, sizeof *o);
    char *des = strdup("quaternion");
    rve_status st = q && o && des ? rve_tess_ori_quat(t, q, err) : rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    for (size_t l = 0; st == RVE_OK && l < m->nlabels; l++)
        o[4 * l] = 1; /* labels of no cell (none is in the map) */
    for (int k = 0; st == RVE_OK && k < t->n; k++)
        if (lab[k] <= m->nlabels)
            memcpy(o + 4 * (size_t)(lab[k] - 1), q + 4 * (size_t)k, 4 * sizeof *o);
    free(q);
    if (st != RVE_OK) {
        free(o);
        free(des);
        return st;
    }
    m->ori = o, m->ori_des = des, m->ori_n = 4;
    return RVE_OK;
}

static rve_status write_output(const raster_args *a, rve_map *m, const rve_tess *t, const uint32_t *lab,
                               rve_err *err)
{
    if (!a->vti)
        return rve_map_write(m, a->out, RVE_MAP_AUTO, NULL, err);
    rve_map_update_nlabels(m);
    if (map_ori_from_tess(m, t, lab, err) != RVE_OK)
        return err->code;
    rve_map_damask_opts o;
    rve_map_damask_opts_init(&o);
    o.material = a->material;
    return rve_map_write_damask(m, a->out, &o, err);
}

static void print_json(const raster_args *a, const rve_tess *t, const rve_map *m, double dt)
{
    rve_json j;
    rve_json_init(&j, stdout);
    rve_json_begin_object(&j);
    rve_json_kv_string(&j, "tess", a->tess);
    rve_json_kv_string(&j, "output", a->out);
    rve_json_kv_int(&j, "cells", t->n);
    rve_json_kv_int(&j, "nx", m->nx);
    rve_json_kv_int(&j, "ny", m->ny);
    rve_json_kv_int(&j, "nz", m->nz);
    rve_json_kv_number(&j, "seconds", dt);
    rve_json_end_object(&j);
}

static int run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_raster;
    raster_args a;
    int r = parse_args(argc, argv, &a);
    if (r)
        return r < 0 ? 0 : r;
    char *yaml = NULL;
    rve_err err;
    rve_err_clear(&err);
    if (a.vti && !a.material && rve_map_damask_yaml_path(a.out, &yaml, &err) != RVE_OK)
        return cli_fail(cmd, &err);
    const char *ins[2] = {a.tess, a.like}, *outs[2] = {a.out, a.material ? a.material : yaml};
    r = cli_check_paths(cmd, ins, 2, outs, a.vti ? 2 : 1);
    free(yaml);
    if (r)
        return 2;
    cli_common_apply(&a.com);
    rve_tess *t = NULL;
    uint32_t *lab = NULL;
    rve_map *m = NULL;
    double dt = 0;
#ifdef RVE_HAVE_MPI
    if (cli_mpi_running()) /* distributed: seeds streamed, slab by slab into one HDF5 file (docs/mpi.md) */
        return cli_mpi_raster_tess(cmd, &a.com, a.tess, a.like, a.grid, a.out);
#endif
    rve_status st = cell_labels(a.tess, &t, &lab, &err);
    if (st == RVE_OK)
        st = make_grid(&a, t, &m, &err);
    if (st == RVE_OK) {
        double t0 = rve_now();
        st = rve_tess_rasterize(t, lab, m, &err);
        dt = rve_now() - t0;
    }
    if (st == RVE_OK)
        st = write_output(&a, m, t, lab, &err);
    if (st == RVE_OK) {
        cli_info(&a.com, "rve raster: %d cells on %d x %d x %d voxels in %.3f s -> %s", t->n, m->nx, m->ny, m->nz, dt,
                 a.out);
        if (a.com.json)
            print_json(&a, t, m, dt);
    }
    free(lab);
    rve_tess_free(t);
    rve_map_free(m);
    return st == RVE_OK ? 0 : cli_fail(cmd, &err);
}
