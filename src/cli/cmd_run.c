/* rve run - fit (or synthesise), regularise and mesh in one go: a thin layer
 * over the library's pipeline (rve/pipeline.h) that adds the options, the
 * progress bars, the fit's history and report pictures, and the summaries. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/meshcli.h"
#include <rve/pipeline.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_run = {
    "run", "fit (or synthesise), regularise and mesh in one go",
    "Usage: rve run MAP -o DIR [options]\n"
    "       rve run --gen MORPHO -n N [--domain LX,LY,LZ] [--periodic] -o DIR [options]\n"
    "Fit a Laguerre tessellation to the grain map MAP (as rve fit), regularise it\n"
    "(as rve reg) and mesh it (as rve mesh), writing into the folder DIR:\n"
    "  DIR/fit.tess          the fitted tessellation\n"
    "  DIR/fit.csv           the fit's convergence history\n"
    "  DIR/fit_report/       the fit report pictures (slices, convergence, accuracy)\n"
    "  DIR/fit.json          the fit's summary\n"
    "  DIR/reg.tess          the regularised tessellation\n"
    "  DIR/mesh.msh          the conformal tetrahedral mesh (and mesh.inp, mesh.vtk,\n"
    "                        mesh-v22.msh, mesh-fepx.msh with --format)\n"
    "With --gen, N cells following the morphology MORPHO (as rve gen --morpho) are\n"
    "synthesised instead of fitted (DIR/gen.tess), then regularised (DIR/reg.tess)\n"
    "and meshed; with --periodic the cells are regularised as they are meshed, so\n"
    "that opposite box faces stay exact translates (no reg.tess; see rve help mesh).\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR   output folder (created if needed)\n"
    "  --fit-options STR  extra options passed to rve fit, space-separated\n"
    "                     (e.g. \"--max-time 30 --polish 4\"; see rve help fit)\n"
    "  --gen MORPHO       synthesise instead of fitting (MORPHO as rve gen --morpho,\n"
    "                     e.g. gg)\n"
    "  -n, --cells N      cells to synthesise (with --gen)\n"
    "  -d, --domain LX,LY,LZ  box of the synthesis (one value: a cube) [1]\n"
    "  --periodic         periodic synthesis and mesh\n"
    "  --seed S           random seed of the synthesis [1]\n"
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
    "  --format LIST      mesh formats among msh, msh22, inp, vtk, fepx (Neper/FEPX .msh\n"
    "                     with orientations and phases; mesh.msh when alone) [msh]\n"
    "  --no-mesh          stop after regularisation\n"
    "  --json             print a JSON summary on standard output\n"
    "  -q, --quiet        no messages;  -v, --verbose  more messages\n"
    "  -j, --threads N    threads (fit; gmsh)\n"
    "  -h, --help         this help\n"
    "\n"
    "Examples:\n"
    "  rve run data/dct/dct.tif -o dct-run\n"
    "  rve run data/dct/dct.tif -o dct-quick --fit-options \"--max-time 5\" --no-polish --format msh,inp --json\n"
    "  rve run --gen gg -n 50 --periodic -o gg-run --format msh,inp,fepx\n",
    run,
};

enum {
    OPT_FITOPT = CLI_OPT_FIRST, OPT_RSEL, OPT_ANGLE, OPT_RMSMALL, OPT_MINANGLE, OPT_NOPOLISH, OPT_NOREG, OPT_RCL,
    OPT_CL, OPT_ORDER, OPT_FORMAT, OPT_NOMESH, OPT_MAXEL, OPT_GEN, OPT_PERIODIC, OPT_SEED
};

/* everything rve run was asked */
typedef struct {
    cli_common com;
    rve_pipeline_opts po;
    const char *dir, *fitopt, *map, *gen;
    unsigned mask;
    int fepx;            /* also the Neper/FEPX .msh */
    long cells;
    double domain[3];
    int periodic;
    unsigned long seed;
} run_args;

/* One option of the regularisation or the mesh; 1 handled, 0 not, 2 bad value. */
static int reg_mesh_option(const cli_command *cmd, run_args *a, int c, const char *arg)
{
    rve_reg_opts *ro = &a->po.reg;
    rve_mesh_opts *mo = &a->po.mesh;
    switch (c) {
    case OPT_NOREG: a->po.regularise = 0; return 1;
    case OPT_RMSMALL: ro->remove_small_cells = 1; return 1;
    case OPT_NOPOLISH: a->po.polish_on_map = 0; return 1;
    case OPT_NOMESH: a->po.mesh_enabled = 0; return 1;
    case OPT_MINANGLE:
        return meshcli_reg_option(cmd, "min-angle", arg, ro) ? 2 : 1;
    case OPT_RSEL:
        return meshcli_reg_option(cmd, "rsel", arg, ro) ? 2 : 1;
    case OPT_ANGLE:
        return meshcli_reg_option(cmd, "max-angle", arg, ro) ? 2 : 1;
    case OPT_RCL:
        return meshcli_mesh_option(cmd, "rcl", arg, mo) ? 2 : 1;
    case OPT_MAXEL:
        return meshcli_mesh_option(cmd, "max-elements", arg, mo) ? 2 : 1;
    case OPT_CL:
        return meshcli_mesh_option(cmd, "cl", arg, mo) ? 2 : 1;
    case OPT_ORDER:
        return meshcli_mesh_option(cmd, "order", arg, mo) ? 2 : 1;
    case OPT_FORMAT:
        return meshcli_format_option(cmd, arg, &a->mask, &a->fepx) ? 2 : 1;
    default: return 0;
    }
}

/* One option of the synthesis; 1 handled, 0 not, 2 bad value. */
static int gen_option(const cli_command *cmd, run_args *a, int c, const char *arg)
{
    long lv;
    switch (c) {
    case OPT_GEN: a->gen = arg; return 1;
    case OPT_PERIODIC: a->periodic = 1; return 1;
    case 'n':
        if (rve_parse_int_range(arg, 1, 10000000, &lv) != RVE_OK)
            return cli_usage_error(cmd, "--cells: expected an integer from 1 to 10000000, got '%s'", arg);
        a->cells = lv;
        return 1;
    case 'd':
        if (rve_parse_triplet(arg, a->domain, 1) != RVE_OK ||
            !(a->domain[0] > 0 && a->domain[1] > 0 && a->domain[2] > 0))
            return cli_usage_error(cmd, "--domain: expected LX,LY,LZ > 0, got '%s'", arg);
        return 1;
    case OPT_SEED:
        if (rve_parse_int_range(arg, 0, 2147483647L, &lv) != RVE_OK)
            return cli_usage_error(cmd, "--seed: expected an integer from 0 to 2147483647, got '%s'", arg);
        a->seed = (unsigned long)lv;
        return 1;
    default: return 0;
    }
}

/* Parse argv into a; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, run_args *a)
{
    const cli_command *cmd = &cli_cmd_run;
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        {"output", required_argument, NULL, 'o'},
        {"fit-options", required_argument, NULL, OPT_FITOPT},
        {"gen", required_argument, NULL, OPT_GEN},
        {"cells", required_argument, NULL, 'n'},
        {"domain", required_argument, NULL, 'd'},
        {"periodic", no_argument, NULL, OPT_PERIODIC},
        {"seed", required_argument, NULL, OPT_SEED},
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
    int c;
    cli_getopt_reset();
    while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT "o:n:d:", longopts, NULL)) != -1) {
        int r = cli_common_option(&a->com, cmd, c, optarg);
        if (r == 2)
            return 0;
        if (r < 0)
            return 2;
        if (r == 0 && c == 'o')
            a->dir = optarg, r = 1;
        if (r == 0 && c == OPT_FITOPT)
            a->fitopt = optarg, r = 1;
        if (r == 0)
            r = reg_mesh_option(cmd, a, c, optarg);
        if (r == 0)
            r = gen_option(cmd, a, c, optarg);
        if (r == 2)
            return 2;
        if (r == 0)
            return cli_bad_option(cmd, argc, argv);
    }
    int nargs = argc - optind, want = a->gen ? 0 : 1;
    if (nargs < want)
        return cli_usage_error(cmd, "missing the grain map (or --gen MORPHO)");
    if (nargs > want)
        return cli_usage_error(cmd, "unexpected argument '%s'%s", argv[optind + want],
                               a->gen ? " (--gen synthesises: no grain map)" : "");
    if (a->gen && a->cells < 1)
        return cli_usage_error(cmd, "--gen needs the number of cells (-n N)");
    if (a->gen && a->fitopt)
        return cli_usage_error(cmd, "--fit-options goes with a grain map, not with --gen");
    if (!a->gen && (a->cells || a->periodic))
        return cli_usage_error(cmd, "-n and --periodic go with --gen");
    if (!a->dir || !a->dir[0])
        return cli_usage_error(cmd, "missing the output folder (-o DIR)");
    a->map = a->gen ? NULL : argv[optind];
    if (a->map && rve_path_same_file(a->map, a->dir))
        return cli_usage_error(cmd, "output folder '%s' is the input map", a->dir);
    return -1;
}

/* The user's --fit-options (split at blanks) parsed by rve fit's parser. */
static int fit_options(const run_args *a, cli_fit_parsed *fp)
{
    const char *extra = a->fitopt;
    size_t cap = 4 + (extra ? strlen(extra) / 2 + 1 : 0);
    char **args = malloc(cap * sizeof *args);
    char *copy = extra ? strdup(extra) : NULL;
    if (!args || (extra && !copy)) {
        free(args);
        free(copy);
        fprintf(stderr, "rve run: out of memory\n");
        return 1;
    }
    int n = 0;
    args[n++] = (char *)"fit";
    char *save = NULL;
    if (copy)
        for (char *tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
            args[n++] = tok; /* at most strlen / 2 + 1 tokens: cap suffices */
    args[n++] = (char *)a->map;
    args[n] = NULL;
    cli_fit_outputs to = {"fit.tess", NULL, NULL, NULL, fp, 0};
    int rc = cli_fit_main(n, args, &to);
    free(copy);
    free(args);
    return rc;
}

/* ---------------------------------------------------------- progress */
typedef struct {
    const run_args *a;
    cli_progress pb;
    int stage; /* bar open for this stage, -1 none */
} bars;

static void on_progress(void *ctx, const rve_pipeline_progress *p)
{
    bars *b = ctx;
    static const char *label[RVE_PIPELINE_NSTAGES] = {"fit", "gen", "reg", "mesh"};
    static const char *what[RVE_PIPELINE_NSTAGES] = {"fitting", "synthesising", "regularising", "meshing"};
    if (p->done == 0 && (int)p->stage != b->stage) {
        if (b->stage >= 0)
            cli_progress_finish(&b->pb);
        cli_info(&b->a->com, "rve run: [%d/3] %s%s%s", p->stage <= RVE_PIPELINE_GEN ? 1 : (int)p->stage,
                 what[p->stage], p->stage <= RVE_PIPELINE_GEN ? " " : "",
                 p->stage > RVE_PIPELINE_GEN ? "" : b->a->map ? b->a->map : b->a->gen);
        b->stage = p->stage == RVE_PIPELINE_MESH ? -1 : (int)p->stage;
        if (b->stage >= 0)
            cli_progress_start(&b->pb, label[p->stage], p->total, b->a->com.verbosity);
        return;
    }
    if ((int)p->stage != b->stage || p->done >= p->total)
        return; /* the bar is closed when the stage ends (on_stage) */
    char extra[96] = "";
    if (p->stage == RVE_PIPELINE_FIT && (p->fit_stage == 2 || p->fit_stage == 3))
        snprintf(extra, sizeof extra, "%s acc=%.2f%%", p->fit_stage == 2 ? "classify" : "hinge", 100 * p->accuracy);
    else if (p->stage == RVE_PIPELINE_FIT)
        snprintf(extra, sizeof extra, "%s O=%.4f acc=%.2f%%", p->fit_stage ? "polish" : "eq6.5", p->objective,
                 100 * p->accuracy);
    else if (p->stage == RVE_PIPELINE_GEN && !isnan(p->objective))
        snprintf(extra, sizeof extra, "objective %.4g", p->objective);
    else if (p->stage == RVE_PIPELINE_REG && p->accuracy > 0)
        snprintf(extra, sizeof extra, "%zu moves, accuracy %.2f%%", p->moves, 100 * p->accuracy);
    else if (p->stage == RVE_PIPELINE_REG)
        snprintf(extra, sizeof extra, "%zu moves", p->moves);
    cli_progress_update(&b->pb, p->done, extra);
}

/* --------------------------------------------------- after each stage */
typedef struct {
    const run_args *a;
    const rve_map *map;
    const rve_fit_opts *fo;
    char *path[5];       /* fit.tess (gen.tess), fit.csv, fit_report, fit.json, reg.tess */
    char *mesh[RVE_MESH_NFORMATS];
    char *fepx;          /* the Neper/FEPX .msh, or NULL */
    int ori;             /* .inp/.vtk carry orientations: written here */
    bars *b;
} hook_ctx;

/* the fit's history, report pictures and summary (fit.json) */
static rve_status write_fit(hook_ctx *h, const rve_pipeline_result *r, rve_err *err)
{
    rve_afile *jf = rve_afile_open(h->path[3], 0, err);
    if (!jf)
        return err && err->code ? err->code : RVE_EIO;
    cli_fit_outputs to = {h->path[0], h->path[1], h->path[2], rve_afile_fp(jf), NULL, 1};
    if (cli_fit_write(&h->a->com, h->a->map, h->map, h->fo, &r->fit, &to, err) != 0) {
        rve_afile_abort(jf);
        return err && err->code ? err->code : RVE_EIO;
    }
    return rve_afile_commit(jf, err);
}

static rve_status on_stage(void *ctx, rve_pipeline_stage s, const rve_pipeline_result *r, rve_err *err)
{
    hook_ctx *h = ctx;
    if (h->b->stage >= 0) {
        if (s == RVE_PIPELINE_GEN) /* it stops once converged: end the bar at the iterations done */
            cli_progress_finish_at(&h->b->pb, (double)r->gen.iterations);
        else
            cli_progress_finish(&h->b->pb);
        h->b->stage = -1;
    }
    if (s == RVE_PIPELINE_FIT)
        return write_fit(h, r, err);
    if (s == RVE_PIPELINE_GEN)
        cli_info(&h->a->com, "  %d cells, objective %.4g, %d iterations", r->ncells, r->gen.objective,
                 r->gen.iterations);
    if (s == RVE_PIPELINE_REG) {
        meshcli_print_reg(&h->a->com, &r->reg_report);
        meshcli_print_removed(&h->a->com, r->tess, r->reg, r->ids);
    }
    if (s == RVE_PIPELINE_MESH) {
        if (r->regularised && !r->reg)
            meshcli_print_reg(&h->a->com, &r->reg_report);
        meshcli_print_quality(&h->a->com, r->mesh, &r->quality);
        const rve_tess *t = r->reg ? r->reg : r->tess;
        rve_status st = RVE_OK;
        if (h->ori)
            st = meshcli_ori_write(t, r->ids, h->map, r->mesh, (const char *const *)h->mesh, err);
        if (st == RVE_OK && h->fepx)
            st = meshcli_fepx_write(t, r->ids, h->map, r->mesh, h->fepx, err);
        return st;
    }
    return RVE_OK;
}

/* -------------------------------------------------------------- JSON */
static void print_json(const hook_ctx *h, const rve_pipeline_result *r)
{
    const run_args *a = h->a;
    rve_json j;
    rve_json_init(&j, stdout);
    rve_json_begin_object(&j);
    if (a->map) {
        rve_json_kv_string(&j, "map", a->map);
        rve_json_kv_string(&j, "fit", h->path[0]);
        rve_json_kv_string(&j, "fit_summary", h->path[3]);
        rve_json_kv_number(&j, "fit_voxel_accuracy", r->fit.acc_final);
        rve_json_kv_number(&j, "fit_voxel_accuracy_initial", r->fit.acc_init);
        rve_json_kv_number(&j, "fit_objective", r->fit.obj_final);
        rve_json_kv_number(&j, "fit_objective_initial", r->fit.obj_init);
        rve_json_kv_number(&j, "fit_seconds", r->seconds[RVE_PIPELINE_FIT]);
    } else {
        rve_json_kv_string(&j, "gen", a->gen);
        rve_json_kv_string(&j, "tess", h->path[0]);
        rve_json_kv_bool(&j, "periodic", a->periodic);
        rve_json_kv_number(&j, "gen_objective", r->gen.objective);
        rve_json_kv_int(&j, "gen_iterations", r->gen.iterations);
        rve_json_kv_number(&j, "gen_seconds", r->seconds[RVE_PIPELINE_GEN]);
    }
    rve_json_kv_int(&j, "cells", r->ncells - r->nempty);
    rve_json_kv_int(&j, "empty_cells", r->nempty);
    if (r->regularised) {
        rve_json_key(&j, "reg");
        rve_json_begin_object(&j);
        if (r->reg)
            rve_json_kv_string(&j, "output", a->po.reg_path);
        meshcli_json_reg(&j, &r->reg_report);
        rve_json_kv_number(&j, "seconds", r->seconds[RVE_PIPELINE_REG]);
        rve_json_end_object(&j);
    }
    if (r->mesh) {
        rve_json_key(&j, "mesh");
        rve_json_begin_object(&j);
        rve_json_key(&j, "outputs");
        rve_json_begin_array(&j);
        for (int f = 0; f < RVE_MESH_NFORMATS; f++)
            if (h->mesh[f])
                rve_json_string(&j, h->mesh[f]);
        if (h->fepx)
            rve_json_string(&j, h->fepx);
        rve_json_end_array(&j);
        meshcli_json_quality(&j, r->mesh, &r->quality);
        rve_json_kv_number(&j, "seconds", r->seconds[RVE_PIPELINE_MESH]);
        rve_json_end_object(&j);
    }
    rve_json_kv_number(&j, "seconds", r->seconds_total);
    rve_json_end_object(&j);
    fputc('\n', stdout);
}

/* ------------------------------------------------------------ run */
/* the output paths in DIR; 0 or -1 (out of memory) */
static int make_paths(hook_ctx *h, run_args *a)
{
    static const char *name[5] = {"fit.tess", "fit.csv", "fit_report", "fit.json", "reg.tess"};
    static const char *ext[RVE_MESH_NFORMATS] = {".msh", "-v22.msh", ".inp", ".vtk"};
    size_t plen = strlen(a->dir) + 32;
    for (int i = 0; i < 5; i++) {
        if (!(h->path[i] = malloc(plen)))
            return -1;
        snprintf(h->path[i], plen, "%s/%s", a->dir, i == 0 && a->gen ? "gen.tess" : name[i]);
    }
    for (int f = 0; f < RVE_MESH_NFORMATS; f++)
        if (a->po.mesh_enabled && ((a->mask >> f) & 1)) {
            if (!(h->mesh[f] = malloc(plen)))
                return -1;
            snprintf(h->mesh[f], plen, "%s/mesh%s", a->dir,
                     f == RVE_MESH_MSH22 && !(a->mask & 1u) ? ".msh" : ext[f]);
        }
    if (a->po.mesh_enabled && a->fepx) {
        if (!(h->fepx = malloc(plen)))
            return -1;
        snprintf(h->fepx, plen, "%s/mesh%s", a->dir, a->mask ? "-fepx.msh" : ".msh");
    }
    return 0;
}

/* the grain map with rve fit's input options (--dims, --voxel-size, ...) */
static rve_status read_map(const run_args *a, const cli_fit_parsed *fp, rve_map **m, rve_err *err)
{
    return rve_map_load(a->map, &fp->lo, m, err);
}

static rve_status run_pipeline(run_args *a, hook_ctx *h, rve_pipeline_result *r, rve_err *err)
{
    rve_pipeline_opts *po = &a->po;
    po->reg_path = h->path[4];
    for (int f = 0; f < RVE_MESH_NFORMATS; f++)
        po->mesh_paths[f] = h->ori && (f == RVE_MESH_INP || f == RVE_MESH_VTK) ? NULL : h->mesh[f];
    po->mesh.threads = a->com.threads > 0 ? a->com.threads : 1;
    po->mesh.verbose = a->com.verbosity >= RVE_VERBOSE;
    po->progress = on_progress;
    po->progress_ctx = h->b;
    po->stage_done = on_stage;
    po->stage_ctx = h;
    int saved = meshcli_stdout_to_stderr(); /* gmsh prints on stdout */
    rve_status st;
    if (a->map) {
        po->fit_path = h->path[0];
        st = rve_pipeline_fit(h->map, po, r, err);
    } else {
        rve_morpho m;
        rve_gen_params gp;
        rve_gen_params_default(&gp);
        gp.n = (size_t)a->cells;
        memcpy(gp.domain, a->domain, sizeof gp.domain);
        gp.periodic = a->periodic;
        gp.seed = a->seed;
        st = rve_morpho_parse(a->gen, &m, err);
        if (st == RVE_OK) {
            st = rve_pipeline_gen(&m, &gp, h->path[0], po, r, err);
            rve_morpho_free(&m);
        }
    }
    meshcli_stdout_restore(saved);
    return st;
}

static int run(int argc, char **argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    cli_common_init(&a.com);
    rve_pipeline_opts_init(&a.po);
    a.mask = 1u << RVE_MESH_MSH41;
    a.domain[0] = a.domain[1] = a.domain[2] = 1;
    a.seed = 1;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    cli_fit_parsed fp;
    memset(&fp, 0, sizeof fp);
    if (a.map && (rc = fit_options(&a, &fp)) != 0)
        return rc;
    cli_common_apply(&a.com);
    fp.fo.threads = rve_threads_get();
    a.po.fit = fp.fo;
    bars b = {&a, {0}, -1};
    hook_ctx h;
    memset(&h, 0, sizeof h);
    h.a = &a;
    h.fo = &a.po.fit;
    h.b = &b;
    rve_map *map = NULL;
    rve_pipeline_result r;
    memset(&r, 0, sizeof r);
    rve_err err;
    rve_err_clear(&err);
    rve_status st = RVE_OK;
    /* a folder this run creates goes again if the run fails */
    if (rve_afile_txn_mkdir(a.dir, &err) != RVE_OK)
        return cli_fail(&cli_cmd_run, &err);
    if (make_paths(&h, &a) != 0)
        st = rve_err_set(&err, RVE_ENOMEM, NULL, "out of memory");
    if (st == RVE_OK && a.map && (st = read_map(&a, &fp, &map, &err)) == RVE_OK) {
        h.map = map;
        h.ori = map->ori && map->ori_n > 0;
    }
    if (st == RVE_OK && (st = run_pipeline(&a, &h, &r, &err)) != RVE_OK && !err.file[0])
        snprintf(err.file, sizeof err.file, "%s", a.map ? a.map : a.gen);
    if (b.stage >= 0)
        cli_progress_finish(&b.pb);
    if (st == RVE_OK) {
        /* a periodic tessellation is regularised inside the meshing stage, as
         * its cells are cut at the box faces: one time for both */
        const char *first = a.map ? "fit" : "synthesis";
        double t_first = r.seconds[a.map ? RVE_PIPELINE_FIT : RVE_PIPELINE_GEN];
        if (r.regularised && r.reg == NULL)
            cli_info(&a.com, "rve run: done in %.1f s (%s %.1f s, regularisation and mesh %.1f s) -> %s/",
                     r.seconds_total, first, t_first, r.seconds[RVE_PIPELINE_MESH], a.dir);
        else
            cli_info(&a.com, "rve run: done in %.1f s (%s %.1f s, regularisation %.2f s, mesh %.1f s) -> %s/",
                     r.seconds_total, first, t_first, r.seconds[RVE_PIPELINE_REG], r.seconds[RVE_PIPELINE_MESH],
                     a.dir);
        if (a.com.json)
            print_json(&h, &r);
    }
    rc = st == RVE_OK ? 0 : cli_fail(&cli_cmd_run, &err);
    rve_pipeline_result_free(&r);
    rve_map_free(map);
    for (int i = 0; i < 5; i++)
        free(h.path[i]);
    for (int f = 0; f < RVE_MESH_NFORMATS; f++)
        free(h.mesh[f]);
    free(h.fepx);
    return rc;
}
