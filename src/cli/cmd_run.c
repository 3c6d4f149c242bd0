/* rve run - fit, regularise and mesh a grain map in one go. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/meshcli.h"
#include <rve/mesh.h>
#include <rve/tess.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_run = {
    "run", "fit, regularise and mesh a grain map in one go",
    "Usage: rve run MAP -o DIR [options]\n"
    "Fit a Laguerre tessellation to the grain map MAP (as rve fit), regularise it\n"
    "(as rve reg) and mesh it (as rve mesh), writing into the folder DIR:\n"
    "  DIR/fit.tess          the fitted tessellation\n"
    "  DIR/fit.csv           the fit's convergence history\n"
    "  DIR/fit_report/       the fit report pictures (slices, convergence, accuracy)\n"
    "  DIR/fit.json          the fit's summary\n"
    "  DIR/reg.tess          the regularised tessellation\n"
    "  DIR/mesh.msh          the conformal tetrahedral mesh (and mesh.inp, mesh.vtk\n"
    "                        with --format)\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR   output folder (created if needed)\n"
    "  --fit-options STR  extra options passed to rve fit, space-separated\n"
    "                     (e.g. \"--max-time 30 --polish 4\"; see rve help fit)\n"
    "  --rsel R           regularisation threshold R * 0.25 * (V/N)^(1/3) (default 1)\n"
    "  --max-angle DEG    largest face bend allowed by regularisation (default 20)\n"
    "  --remove-small-cells  regularisation merges the cells smaller than a cube of its\n"
    "                     threshold into one vertex (see rve reg)\n"
    "  --min-angle DEG    regularisation opens angles below DEG (default 12)\n"
    "  --no-polish        no polish of the regularised vertices against MAP\n"
    "  --no-reg           mesh the fitted tessellation without regularising it\n"
    "  --rcl R            element size relative to the grain size (default 1)\n"
    "  --cl L             absolute element size (overrides --rcl)\n"
    "  --max-elements N   mesh size cap (see rve help mesh; default 1e7)\n"
    "  --order 1|2        element order (default 1)\n"
    "  --format LIST      mesh formats among msh, msh22, inp, vtk (default msh)\n"
    "  --no-mesh          stop after regularisation\n"
    "  --json             print a JSON summary on standard output\n"
    "  -q, --quiet        no messages;  -v, --verbose  more messages\n"
    "  -j, --threads N    threads (fit; gmsh)\n"
    "  -h, --help         this help\n"
    "\n"
    "Examples:\n"
    "  rve run data/dct/dct.tesr -o dct-run\n"
    "  rve run in100-a.tif -o in100 --rcl 1 --format msh,inp --json\n",
    run,
};

enum {
    OPT_FITOPT = CLI_OPT_FIRST, OPT_RSEL, OPT_ANGLE, OPT_RMSMALL, OPT_MINANGLE, OPT_NOPOLISH, OPT_NOREG, OPT_RCL, OPT_CL, OPT_ORDER,
    OPT_FORMAT, OPT_NOMESH, OPT_MAXEL
};

static int parse_formats(const char *s, unsigned *mask)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", s);
    *mask = 0;
    char *save = NULL;
    for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "msh") == 0)
            *mask |= 1u << RVE_MESH_MSH41;
        else if (strcmp(tok, "msh22") == 0)
            *mask |= 1u << RVE_MESH_MSH22;
        else if (strcmp(tok, "inp") == 0)
            *mask |= 1u << RVE_MESH_INP;
        else if (strcmp(tok, "vtk") == 0)
            *mask |= 1u << RVE_MESH_VTK;
        else
            return -1;
    }
    return *mask ? 0 : -1;
}

/* Run the fit of cli_fit_main on MAP with the user's --fit-options (split at
 * blanks, any number of them) and the outputs of rve run; its summary is
 * staged into json_path like every other output. */
static int run_fit(const char *map, const char *dir, const char *extra, const cli_common *com,
                   const char *json_path)
{
    size_t plen = strlen(dir) + 32;
    char *tess = malloc(plen), *csv = malloc(plen), *rep = malloc(plen), thr[32];
    size_t cap = 16 + (extra ? strlen(extra) / 2 + 1 : 0);
    char **args = malloc(cap * sizeof *args);
    char *copy = extra ? strdup(extra) : NULL;
    rve_err err;
    rve_err_clear(&err);
    int rc = 1;
    rve_afile *jf = NULL;
    if (!tess || !csv || !rep || !args || (extra && !copy)) {
        rve_err_set(&err, RVE_ENOMEM, NULL, "out of memory");
        rc = cli_fail(&cli_cmd_run, &err);
        goto done;
    }
    snprintf(tess, plen, "%s/fit.tess", dir);
    snprintf(csv, plen, "%s/fit.csv", dir);
    snprintf(rep, plen, "%s/fit_report", dir);
    int n = 0;
    args[n++] = (char *)"fit";
    args[n++] = (char *)map;
    if (com->verbosity == RVE_QUIET)
        args[n++] = (char *)"-q";
    if (com->verbosity == RVE_VERBOSE)
        args[n++] = (char *)"-v";
    if (com->threads > 0) {
        snprintf(thr, sizeof thr, "%d", com->threads);
        args[n++] = (char *)"-j";
        args[n++] = thr;
    }
    char *save = NULL;
    if (copy)
        for (char *tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
            args[n++] = tok; /* at most strlen / 2 + 1 tokens: cap suffices */
    args[n] = NULL;
    jf = rve_afile_open(json_path, 0, &err);
    if (!jf) {
        rc = cli_fail(&cli_cmd_run, &err);
        goto done;
    }
    cli_fit_outputs to = {tess, csv, rep, rve_afile_fp(jf)};
    rc = cli_fit_main(n, args, &to);
    if (rc == 0) {
        rve_status st = rve_afile_commit(jf, &err);
        jf = NULL;
        if (st != RVE_OK)
            rc = cli_fail(&cli_cmd_run, &err);
    }
done:
    rve_afile_abort(jf);
    free(copy);
    free(args);
    free(tess);
    free(csv);
    free(rep);
    return rc;
}

static int run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_run;
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        {"output", required_argument, NULL, 'o'},
        {"fit-options", required_argument, NULL, OPT_FITOPT},
        {"rsel", required_argument, NULL, OPT_RSEL},
        {"max-angle", required_argument, NULL, OPT_ANGLE},
        {"no-reg", no_argument, NULL, OPT_NOREG},
        {"remove-small-cells", no_argument, NULL, OPT_RMSMALL},
        {"min-angle", required_argument, NULL, OPT_MINANGLE},
        {"no-polish", no_argument, NULL, OPT_NOPOLISH},
        {"rcl", required_argument, NULL, OPT_RCL},
        {"cl", required_argument, NULL, OPT_CL},
        {"max-elements", required_argument, NULL, OPT_MAXEL},
        {"order", required_argument, NULL, OPT_ORDER},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"no-mesh", no_argument, NULL, OPT_NOMESH},
        {NULL, 0, NULL, 0},
    };
    cli_common com;
    cli_common_init(&com);
    rve_reg_opts ro;
    rve_reg_opts_default(&ro);
    int nopolish = 0;
    rve_mesh_opts mo;
    rve_mesh_opts_default(&mo);
    const char *dir = NULL, *fitopt = NULL;
    int noreg = 0, nomesh = 0;
    unsigned mask = 1u << RVE_MESH_MSH41;
    long lv;
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
        case 'o': dir = optarg; break;
        case OPT_FITOPT: fitopt = optarg; break;
        case OPT_NOREG: noreg = 1; break;
        case OPT_RMSMALL: ro.remove_small_cells = 1; break;
        case OPT_NOPOLISH: nopolish = 1; break;
        case OPT_MINANGLE:
            if (rve_parse_double(optarg, &ro.min_angle) != RVE_OK || !(ro.min_angle >= 0 && ro.min_angle < 60))
                return cli_usage_error(cmd, "--min-angle: expected degrees in [0, 60), got '%s'", optarg);
            break;
        case OPT_NOMESH: nomesh = 1; break;
        case OPT_RSEL:
            if (rve_parse_double(optarg, &ro.rsel) != RVE_OK || !(ro.rsel > 0))
                return cli_usage_error(cmd, "--rsel: expected a positive number, got '%s'", optarg);
            break;
        case OPT_ANGLE:
            if (rve_parse_double(optarg, &ro.max_angle) != RVE_OK || !(ro.max_angle > 0 && ro.max_angle < 90))
                return cli_usage_error(cmd, "--max-angle: expected degrees in (0, 90), got '%s'", optarg);
            break;
        case OPT_RCL:
            if (rve_parse_double(optarg, &mo.rcl) != RVE_OK || !(mo.rcl > 0))
                return cli_usage_error(cmd, "--rcl: expected a positive number, got '%s'", optarg);
            break;
        case OPT_MAXEL:
            if (rve_parse_double(optarg, &mo.max_elements) != RVE_OK || !(mo.max_elements >= 0))
                return cli_usage_error(cmd, "--max-elements: expected a count >= 0 (0: no cap), got '%s'", optarg);
            break;
        case OPT_CL:
            if (rve_parse_double(optarg, &mo.cl) != RVE_OK || !(mo.cl > 0))
                return cli_usage_error(cmd, "--cl: expected a positive element size, got '%s'", optarg);
            break;
        case OPT_ORDER:
            if (rve_parse_int_range(optarg, 1, 2, &lv) != RVE_OK)
                return cli_usage_error(cmd, "--order: expected 1 or 2, got '%s'", optarg);
            mo.order = (int)lv;
            break;
        case OPT_FORMAT:
            if (parse_formats(optarg, &mask))
                return cli_usage_error(cmd, "--format: expected a list among msh, msh22, inp, vtk, got '%s'", optarg);
            break;
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "missing the grain map");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (!dir || !dir[0])
        return cli_usage_error(cmd, "missing the output folder (-o DIR)");
    const char *map = argv[optind];
    if (rve_path_same_file(map, dir))
        return cli_usage_error(cmd, "output folder '%s' is the input map", dir);
    cli_common_apply(&com);
    rve_err err;
    rve_err_clear(&err);
    /* a folder this run creates goes again if the run fails */
    if (rve_afile_txn_mkdir(dir, &err) != RVE_OK)
        return cli_fail(cmd, &err);
    size_t plen = strlen(dir) + 64;
    char *fit_tess = malloc(plen), *fit_json = malloc(plen), *reg_tess = malloc(plen),
         *stem = malloc(plen);
    char *paths[RVE_MESH_NFORMATS] = {NULL, NULL, NULL, NULL};
    rve_tess *t = NULL, *r = NULL;
    int *ids = NULL, rc = 0;
    rve_mesh *m = NULL;
    rve_map *gmap = NULL;
    rve_reg_report rep;
    memset(&rep, 0, sizeof rep);
    rve_mesh_quality q;
    memset(&q, 0, sizeof q);
    if (!fit_tess || !fit_json || !reg_tess || !stem) {
        rve_err_set(&err, RVE_ENOMEM, NULL, "out of memory");
        rc = cli_fail(cmd, &err);
        goto done;
    }
    snprintf(fit_tess, plen, "%s/fit.tess", dir);
    snprintf(fit_json, plen, "%s/fit.json", dir);
    snprintf(reg_tess, plen, "%s/reg.tess", dir);
    snprintf(stem, plen, "%s/mesh", dir);
    double t0 = rve_now();
    cli_info(&com, "rve run: [1/3] fitting %s", map);
    rc = run_fit(map, dir, fitopt, &com, fit_json);
    double tfit = rve_now() - t0;
    if (rc != 0)
        goto done; /* rve fit printed the reason */
    /* the outputs are committed together at the end: read the staged ones */
    if (rve_tess_read_tess(rve_afile_staged_path(fit_tess), &t, &ids, &err) != RVE_OK) {
        rc = cli_fail(cmd, &err);
        goto done;
    }
    double t1 = rve_now();
    if (!noreg) {
        cli_info(&com, "rve run: [2/3] regularising (%d cells)", t->n - t->nempty);
        if (!nopolish && rve_map_read(map, RVE_MAP_AUTO, NULL, &gmap, &err) != RVE_OK) {
            rc = cli_fail(cmd, &err);
            goto done;
        }
        /* as in rve reg: a sparse map renumbered (ids kept) before the polish */
        if (gmap && gmap->nlabels > 1024 && gmap->nlabels / 2 > rve_map_ngrains(gmap) &&
            rve_map_renumber(gmap, &err) != RVE_OK) {
            snprintf(err.file, sizeof err.file, "%s", map);
            rc = cli_fail(cmd, &err);
            goto done;
        }
        ro.map = gmap;
        ro.ids = ids;
        if (meshcli_reg(&com, t, &ro, &r, &rep, &err) != RVE_OK ||
            rve_tess_write_tess(r, reg_tess, ids, &err) != RVE_OK) {
            if (!err.file[0])
                snprintf(err.file, sizeof err.file, "%s", fit_tess);
            rc = cli_fail(cmd, &err);
            goto done;
        }
        meshcli_print_reg(&com, &rep);
        meshcli_print_removed(&com, t, r, ids);
        /* mesh what was written, so that `rve mesh DIR/reg.tess` gives this
         * mesh again (the file's planes decide which faces are plane surfaces) */
        rve_tess *back = NULL;
        int *ids2 = NULL;
        if (rve_tess_read_tess(rve_afile_staged_path(reg_tess), &back, &ids2, &err) != RVE_OK) {
            rc = cli_fail(cmd, &err);
            goto done;
        }
        free(ids2);
        rve_tess_free(r);
        r = back;
    }
    double treg = rve_now() - t1;
    double t2 = rve_now(), tmesh = 0;
    if (!nomesh) {
        cli_info(&com, "rve run: [3/3] meshing");
        static const char *ext[RVE_MESH_NFORMATS] = {".msh", "-v22.msh", ".inp", ".vtk"};
        for (int f = 0; f < RVE_MESH_NFORMATS; f++)
            if ((mask >> f) & 1) {
                paths[f] = malloc(plen);
                if (!paths[f]) {
                    rve_err_set(&err, RVE_ENOMEM, NULL, "out of memory");
                    rc = cli_fail(cmd, &err);
                    goto done;
                }
                snprintf(paths[f], plen, "%s%s", stem, f == RVE_MESH_MSH22 && !(mask & 1u) ? ".msh" : ext[f]);
            }
        const char *outs[RVE_MESH_NFORMATS] = {paths[0], paths[1], paths[2], paths[3]};
        mo.threads = com.threads > 0 ? com.threads : 1;
        mo.verbose = com.verbosity >= RVE_VERBOSE;
        if (meshcli_mesh(r ? r : t, ids, gmap, &mo, outs, &m, &err) != RVE_OK) {
            if (!err.file[0])
                snprintf(err.file, sizeof err.file, "%s", r ? reg_tess : fit_tess);
            rc = cli_fail(cmd, &err);
            goto done;
        }
        rve_mesh_quality_compute(m, &q);
        meshcli_print_quality(&com, m, &q);
        tmesh = rve_now() - t2;
    }
    double total = rve_now() - t0;
    cli_info(&com, "rve run: done in %.1f s (fit %.1f s, regularisation %.2f s, mesh %.1f s) -> %s/",
             total, tfit, treg, tmesh, dir);
    if (com.json) {
        rve_json j;
        rve_json_init(&j, stdout);
        rve_json_begin_object(&j);
        rve_json_kv_string(&j, "map", map);
        rve_json_kv_string(&j, "fit", fit_tess);
        rve_json_kv_string(&j, "fit_summary", fit_json);
        rve_json_kv_int(&j, "cells", t->n - t->nempty);
        rve_json_kv_int(&j, "empty_cells", t->nempty);
        rve_json_kv_number(&j, "fit_seconds", tfit);
        if (!noreg) {
            rve_json_key(&j, "reg");
            rve_json_begin_object(&j);
            rve_json_kv_string(&j, "output", reg_tess);
            meshcli_json_reg(&j, &rep);
            rve_json_kv_number(&j, "seconds", treg);
            rve_json_end_object(&j);
        }
        if (!nomesh) {
            rve_json_key(&j, "mesh");
            rve_json_begin_object(&j);
            rve_json_key(&j, "outputs");
            rve_json_begin_array(&j);
            for (int f = 0; f < RVE_MESH_NFORMATS; f++)
                if (paths[f])
                    rve_json_string(&j, paths[f]);
            rve_json_end_array(&j);
            meshcli_json_quality(&j, m, &q);
            rve_json_kv_number(&j, "seconds", tmesh);
            rve_json_end_object(&j);
        }
        rve_json_kv_number(&j, "seconds", total);
        rve_json_end_object(&j);
        fputc('\n', stdout);
    }
done:
    rve_mesh_free(m);
    rve_map_free(gmap);
    rve_tess_free(t);
    rve_tess_free(r);
    free(ids);
    for (int f = 0; f < RVE_MESH_NFORMATS; f++)
        free(paths[f]);
    free(fit_tess);
    free(fit_json);
    free(reg_tess);
    free(stem);
    return rc;
}
