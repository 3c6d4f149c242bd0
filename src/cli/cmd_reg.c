/* rve reg - regularise a tessellation (remove short edges). */
#include "config.h"
#include "cli/cli.h"
#include "cli/meshcli.h"
#include <rve/mesh.h>
#include <math.h>
#include <rve/raster.h>
#include <rve/tess.h>
#include <stdlib.h>

/* The grain map of --map (renumbered when sparse), with a warning when it
 * covers little of the tessellation's domain.  0, or the exit status. */
static int load_map(const cli_command *cmd, const char *mpath, const rve_tess *t, rve_map **out)
{
    rve_err err;
    rve_err_clear(&err);
    *out = NULL;
    rve_map *map = NULL;
    if (rve_map_read(mpath, RVE_MAP_AUTO, NULL, &map, &err) != RVE_OK)
        return cli_fail(cmd, &err);
    /* the polish sizes tables by the largest label and matches grains by
     * id (rve_map_id): renumber a sparse map first, ids kept, so that labels
     * {1, 2^31-1} cost no 16 GB and a failure names the map */
    if (map->nlabels > 1024 && map->nlabels / 2 > rve_map_ngrains(map) && rve_map_renumber(map, &err) != RVE_OK) {
        snprintf(err.file, sizeof err.file, "%s", mpath);
        rve_map_free(map);
        return cli_fail(cmd, &err);
    }
    /* a map beside the tessellation gives an accuracy of 0 that looks
     * like a result: say so */
    double inter = 1, vol = 1;
    int nn[3] = {map->nx, map->ny, map->nz};
    for (int a = 0; a < 3; a++) {
        double lo = fmax(t->lo[a], map->origin[a]), hi = fmin(t->hi[a], map->origin[a] + nn[a] * map->h[a]);
        inter *= hi > lo ? hi - lo : 0;
        vol *= t->hi[a] - t->lo[a];
    }
    if (!(inter > 0.5 * vol))
        fprintf(stderr, "rve reg: warning: %s covers %.1f %% of the tessellation's domain: the voxel "
                        "accuracy is measured on the overlap only (wrong map, or another voxel size?)\n",
                mpath, vol > 0 ? 100 * inter / vol : 0.0);
    *out = map;
    return 0;
}

static int run(int argc, char **argv);

const cli_command cli_cmd_reg = {
    "reg", "regularise a tessellation (remove short edges)",
    "Usage: rve reg TESS -o OUT.tess [--rsel R | --length L] [--max-angle DEG] [--map MAP]\n"
    "Remove the edges shorter than a threshold from a tessellation, shortest first:\n"
    "each is collapsed into one vertex placed by least squares against the planes of\n"
    "the initial faces around it (Montanari 2017, Eq. 6.6), on the domain faces it\n"
    "touches.  Faces lose an edge, triangles vanish, edges merge; faces may become\n"
    "non-planar and are then fans of triangles around their face point (written in\n"
    "the .tess).  A collapse is refused when it would bend a face by more than the\n"
    "maximum angle, turn a cell inside out, pinch a face or make two cells share two\n"
    "faces; passes repeat until nothing more can be removed.  Prints the edges\n"
    "removed, the shortest edge left and the edge-length histogram before and after.\n"
    "\n"
    "Then the polish moves vertices (pattern search, face points at the vertex\n"
    "means, topology and all the checks above kept): first to open face corners,\n"
    "dihedral angles and fan-triangle angles below --min-angle (thin wedges force\n"
    "flat tetrahedra), then, with --map, to win back voxel accuracy against the\n"
    "grain map (counted exactly, voxel by voxel) without narrowing any angle below\n"
    "the minimum.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT   regularised tessellation (Neper .tess 3.5)\n"
    "  --rsel R           threshold R * 0.25 * (V/N)^(1/3), V the domain volume and N\n"
    "                     the number of cells (default 1, Neper's -rsel 1)\n"
    "  --length L         absolute threshold (overrides --rsel)\n"
    "  --max-angle DEG    largest bend of a face allowed (default 20; Neper's -fmax)\n"
    "  --passes N         at most N passes (default 20)\n"
    "  --remove-small-cells  merge every cell smaller than a cube of the threshold\n"
    "                     (grains of a few voxels) into one vertex; their grains are\n"
    "                     then absent from OUT (ids printed)\n"
    "  --min-angle DEG    open angles below DEG (default 12; 0: no angle polish)\n"
    "  --map MAP          the grain map of the fit: polish against it, and report\n"
    "                     the voxel accuracy of TESS and OUT (share of its non-void\n"
    "                     voxels inside the cell of their grain; cells rasterised by\n"
    "                     their geometry, faces as the fans written in OUT)\n"
    "  --no-polish        with --map: only report the accuracy, no data polish\n"
    "  --json             print a JSON summary on standard output\n"
    "  -q, --quiet        no messages;  -v, --verbose  more messages\n"
    "  -j, --threads N    accepted (regularisation runs on one thread)\n"
    "  -h, --help         this help\n"
    "\n"
    "Periodic tessellations (rve gen/tess --periodic): the cells are cut at the box\n"
    "faces into pieces, regularised with every periodic copy of a box-face edge\n"
    "collapsing together and box-face vertices moving within their faces with\n"
    "their copies; OUT holds the pieces (pieces of a grain share its id) with\n"
    "opposite box faces exact translates, and rve mesh OUT makes a periodic mesh.\n"
    "--map is refused for them (the polish keeps to a raster of the input).\n"
    "  --box-snap F       before the cut, put the vertices of cells crossing a box\n"
    "                     plane by less than F thresholds onto it (thin caps\n"
    "                     removed where no face bends past 10 deg; default 0: off;\n"
    "                     docs/periodic.md has the measured effect)\n"
    "  --no-box-shift     keep the box where it is (default: the box is translated\n"
    "                     per periodic axis, the same periodic microstructure in\n"
    "                     another window, so that its planes cut no cell face at a\n"
    "                     shallow angle; --json: box_shift, box_cut_angle_deg)\n"
    "\n"
    "Examples:\n"
    "  rve reg fit.tess -o fit-reg.tess\n"
    "  rve reg fit.tess --rsel 1.5 --max-angle 15 -o fit-reg.tess --json\n"
    "  rve reg fit.tess -o fit-reg.tess --map grains.tif\n"
    "  rve reg fit.tess -o fit-reg.tess --remove-small-cells --min-angle 20\n",
    run,
};

enum { OPT_RSEL = CLI_OPT_FIRST, OPT_LENGTH, OPT_ANGLE, OPT_PASSES, OPT_MAP, OPT_RMSMALL, OPT_MINANGLE, OPT_NOPOLISH, OPT_BOXSNAP, OPT_NOBOXSHIFT };

/* Voxel accuracy of t against map: share of the non-void voxels whose
 * grain id is the label of the cell containing their centre (geometric
 * rasterisation, fans around the face points). */
static rve_status geo_accuracy(const rve_tess *t, const int *ids, const rve_map *map, double *acc,
                               rve_err *err)
{
    rve_map *g = rve_map_copy(map);
    uint32_t *lab = malloc(((size_t)t->n + 1) * sizeof(uint32_t));
    if (!g || !lab) {
        rve_map_free(g);
        free(lab);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (int i = 0; i < t->n; i++)
        lab[i] = ids ? (uint32_t)ids[i] : (uint32_t)i + 1;
    int planar = 1; /* a Laguerre tessellation: the power-distance raster is its geometry, and fast */
    for (int f = 0; f < t->nface && planar; f++)
        planar = !(t->face_state && t->face_state[f]);
    rve_status st = planar ? rve_tess_rasterize(t, lab, g, err) : rve_mesh_rasterize(t, lab, g, err);
    if (st == RVE_OK) {
        size_t n = (size_t)map->nx * map->ny * map->nz, nv = 0, good = 0;
        for (size_t i = 0; i < n; i++) {
            if (!map->lab[i])
                continue;
            nv++;
            good += rve_map_id(map, map->lab[i]) == g->lab[i];
        }
        *acc = nv ? (double)good / (double)nv : 0;
    }
    rve_map_free(g);
    free(lab);
    return st;
}

/* The summary on stderr, and the JSON one on stdout. */
static void report(const cli_common *com, const rve_reg_opts *o, const rve_tess *t, const rve_tess *r,
                   const int *ids, const rve_reg_report *rp, const char *in, const char *out,
                   const char *mpath, double acc0, double acc1, double secs)
{
    int periodic = t->periodic[0] || t->periodic[1] || t->periodic[2];
    const rve_reg_report rep = *rp;
    cli_info(com, "rve reg: %s: %d cells, %zu edges removed in %.3f s -> %s", in, t->n - t->nempty,
             rep.removed, secs, out);
    meshcli_print_reg(com, &rep);
    if (periodic)
        cli_info(com, "  periodic: %zu vertices of thin caps put onto the box planes before the cut; "
                       "%d pieces of cells cut at the box faces (%zu caps merged into points), "
                       "opposite box faces exact translates", rep.box_snapped, r->n, rep.pieces_removed);
    else
        meshcli_print_removed(com, t, r, ids);
    if (mpath)
        cli_info(com, "  voxel accuracy against %s: %.2f %% -> %.2f %% (%+.2f points)", mpath,
                 100 * acc0, 100 * acc1, 100 * (acc1 - acc0));
    if (rep.short_after)
        cli_info(com, "rve reg: %zu short edge%s could not be removed without bending a face by more "
                       "than %g deg or inverting a cell",
                 rep.short_after, rep.short_after > 1 ? "s" : "", o->max_angle);
    if (com->json) {
        rve_json j;
        rve_json_init(&j, stdout);
        rve_json_begin_object(&j);
        rve_json_kv_string(&j, "input", in);
        rve_json_kv_string(&j, "output", out);
        rve_json_kv_int(&j, "cells", t->n - t->nempty);
        meshcli_json_reg(&j, &rep);
        if (periodic)
            rve_json_kv_int(&j, "box_snapped", (long long)rep.box_snapped);
        if (mpath) {
            rve_json_kv_number(&j, "accuracy_before", acc0);
            rve_json_kv_number(&j, "accuracy_after", acc1);
        }
        rve_json_kv_number(&j, "seconds", secs);
        rve_json_end_object(&j);
        fputc('\n', stdout);
    }
}

static int run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_reg;
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        {"output", required_argument, NULL, 'o'},
        {"rsel", required_argument, NULL, OPT_RSEL},
        {"length", required_argument, NULL, OPT_LENGTH},
        {"max-angle", required_argument, NULL, OPT_ANGLE},
        {"passes", required_argument, NULL, OPT_PASSES},
        {"map", required_argument, NULL, OPT_MAP},
        {"remove-small-cells", no_argument, NULL, OPT_RMSMALL},
        {"min-angle", required_argument, NULL, OPT_MINANGLE},
        {"no-polish", no_argument, NULL, OPT_NOPOLISH},
        {"box-snap", required_argument, NULL, OPT_BOXSNAP},
        {"no-box-shift", no_argument, NULL, OPT_NOBOXSHIFT},
        {NULL, 0, NULL, 0},
    };
    cli_common com;
    cli_common_init(&com);
    rve_reg_opts o;
    rve_reg_opts_default(&o);
    const char *out = NULL, *mpath = NULL;
    int nopolish = 0;
    int c;
    cli_getopt_reset();
    while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT "o:", longopts, NULL)) != -1) {
        int r = cli_common_option(&com, cmd, c, optarg);
        if (r == 1)
            continue;
        if (r == 2)
            return 0;
        if (r < 0)
            return 2;
        switch (c) {
        case 'o': out = optarg; break;
        case OPT_MAP: mpath = optarg; break;
        case OPT_RMSMALL: o.remove_small_cells = 1; break;
        case OPT_NOPOLISH: nopolish = 1; break;
        case OPT_NOBOXSHIFT: o.box_shift = 0; break;
        case OPT_BOXSNAP:
            if (rve_parse_double(optarg, &o.box_snap) != RVE_OK || !(o.box_snap >= 0 && o.box_snap < 2))
                return cli_usage_error(cmd, "--box-snap: wants a fraction of the threshold in [0, 2), not '%s'",
                                       optarg);
            break;
        case OPT_RSEL:
            if (meshcli_reg_option(cmd, "rsel", optarg, &o))
                return 2;
            break;
        case OPT_LENGTH:
            if (meshcli_reg_option(cmd, "length", optarg, &o))
                return 2;
            break;
        case OPT_MINANGLE:
            if (meshcli_reg_option(cmd, "min-angle", optarg, &o))
                return 2;
            break;
        case OPT_ANGLE:
            if (meshcli_reg_option(cmd, "max-angle", optarg, &o))
                return 2;
            break;
        case OPT_PASSES:
            if (meshcli_reg_option(cmd, "passes", optarg, &o))
                return 2;
            break;
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "missing the input tessellation");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (!out)
        return cli_usage_error(cmd, "missing the output file (-o OUT.tess)");
    if (rve_path_has_ext(out, ".vtk") || rve_path_has_ext(out, ".msh") || rve_path_has_ext(out, ".inp") ||
        rve_path_has_ext(out, ".tif") || rve_path_has_ext(out, ".tesr"))
        return cli_usage_error(cmd, "-o %s: rve reg writes a .tess tessellation (rve mesh makes "
                               ".msh, .inp and .vtk from it)", out);
    const char *in = argv[optind];
    const char *ins[2] = {in, mpath};
    if (cli_check_paths(cmd, ins, 2, &out, 1))
        return 2;
    cli_common_apply(&com);
    rve_err err;
    rve_err_clear(&err);
    rve_tess *t = NULL, *r = NULL;
    int *ids = NULL;
    if (rve_tess_read_tess(in, &t, &ids, &err) != RVE_OK)
        return cli_fail(cmd, &err);
    int periodic = t->periodic[0] || t->periodic[1] || t->periodic[2];
    if (periodic && mpath) {
        rve_tess_free(t);
        free(ids);
        return cli_usage_error(cmd, "--map is not supported with a periodic tessellation (the polish "
                                    "keeps to the input instead)");
    }
    rve_map *map = NULL;
    int mrc = mpath ? load_map(cmd, mpath, t, &map) : 0;
    if (mrc) {
        rve_tess_free(t);
        free(ids);
        return mrc;
    }
    rve_reg_report rep;
    o.map = nopolish ? NULL : map;
    o.ids = ids;
    double t0 = rve_now();
    /* periodic: the regularised box complex, as a tessellation of its pieces
     * (pieces of a grain share its id; rve mesh meshes it periodically) */
    int *pids = NULL;
    rve_status st = periodic ? rve_reg_periodic(t, ids, &o, &r, &pids, &rep, &err)
                             : meshcli_reg(&com, t, &o, &r, &rep, &err);
    double secs = rve_now() - t0;
    if (st != RVE_OK) {
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", in);
        rve_tess_free(t);
        free(ids);
        rve_map_free(map);
        return cli_fail(cmd, &err);
    }
    double acc0 = 0, acc1 = 0;
    if (map) {
        st = geo_accuracy(t, ids, map, &acc0, &err);
        if (st == RVE_OK && o.map)
            acc1 = rep.acc_polish; /* counted exactly by the polish (the tests check it against the rasteriser) */
        else if (st == RVE_OK)
            st = geo_accuracy(r, ids, map, &acc1, &err);
    }
    if (st == RVE_OK)
        st = rve_tess_write_tess(r, out, periodic ? pids : ids, &err);
    free(pids);
    rve_map_free(map);
    if (st != RVE_OK) {
        rve_tess_free(t);
        rve_tess_free(r);
        free(ids);
        return cli_fail(cmd, &err);
    }
    report(&com, &o, t, r, ids, &rep, in, out, mpath, acc0, acc1, secs);
    rve_tess_free(t);
    rve_tess_free(r);
    free(ids);
    return 0;
}
