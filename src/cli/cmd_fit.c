/* rve fit - fit a Laguerre tessellation to a grain map. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/cli_map.h"
#include "cli/fit_report.h"
#include "cli/cli_mpi.h"
#include <rve/optim.h>
#include <rve/pipeline.h>
#include <rve/raster.h>
#include <rve/tess.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int run(int argc, char **argv);
static int fit_main(int argc, char **argv, const cli_fit_outputs *to);

const cli_command cli_cmd_fit = {
    "fit", "fit a Laguerre tessellation to a grain map",
    "Usage: rve fit MAP -o OUT.tess [options]\n"
    "Fit a Laguerre tessellation to the voxelized grain map MAP (.tif/.tiff,\n"
    ".tesr, or .raw with --raw): one cell per grain, cell i = the i-th grain\n"
    "label in increasing order, *id = the grain's label, in the map's physical\n"
    "coordinates.\n"
    "\n"
    "Stage 1 minimises the objective (thesis Eq. 6.5)\n"
    "  O = sqrt( sum_i sum_{v in B_i} a_v d(v, C_i)^2 / sum a_v )   [voxel lengths]\n"
    "over the boundary voxels B_i of every grain (d: distance from the voxel\n"
    "centre to the cell by GJK, 0 inside) by sweeps of local simplex searches,\n"
    "seed by seed (parallel batches of non-neighbouring seeds).  Then the\n"
    "diagram, read as a linear classifier of the voxels, is trained on a convex\n"
    "surrogate (squared hinge loss over the boundary voxels, L-BFGS), refined by\n"
    "passive-aggressive epochs, and polished on the misassigned volume.  Every\n"
    "reported accuracy is exact (power-distance rasterisation of that state) and\n"
    "the best state seen is returned.  See docs/fit.md.\n"
    "\n"
    "Output:\n"
    "  -o, --output FILE      tessellation (.tess, Neper format 3.5) [required]\n"
    "      --history FILE     convergence history CSV (default: OUT without .tess + .csv)\n"
    "      --report DIR       report folder with PNG pictures (default: OUT without\n"
    "                         .tess + _report); --no-report to skip it\n"
    "      --no-report\n"
    "Options:\n"
    "      --res N            control-point down-sampling: boundary voxels of a grain\n"
    "                         in each N^3 block are merged (default 2; 1: all)\n"
    "      --tol X            stop stage 1 when a sweep improves O by less than X\n"
    "                         (relative, default 1e-2)\n"
    "      --sweeps N         sweep cap of stage 1 (default 8)\n"
    "      --evals N          objective evaluations per seed and sweep (default 25)\n"
    "      --polish N         polishing sweeps (default 12; 0: none)\n"
    "      --hinge N          L-BFGS iterations cap of the convex classifier surrogate\n"
    "                         (default 300; 0: none)\n"
    "      --classify N       epochs cap of the classifier refinement (default 200; 0: none)\n"
    "      --rounds N         rounds of surrogate, classifier and polishing, each from the\n"
    "                         best state so far (default 1); the way to spend more effort:\n"
    "                         a run with more rounds never ends lower than one with fewer\n"
    "      --no-open          keep the tiny cells as found (default: cells below half\n"
    "                         their grain's volume or below 8 voxels are grown, losing\n"
    "                         at most 1e-4 of the voxels; see docs/fit.md)\n"
    "      --max-time S       wall-time cap in seconds (default: none)\n"
    "      --sub sv|johnson   GJK sub-algorithm (default sv: signed volumes)\n"
    "      --exact-dist       GJK distances unrounded (default: rounded to a 2^-32\n"
    "                         voxel grid, so that sv and johnson see the same values)\n"
    "      --raw NX,NY,NZ[,BYTES]  old spelling of --dims NX,NY,NZ --in-bytes BYTES\n"
    "  -j, --threads N        threads\n"
    "  -q, --quiet / -v, --verbose\n"
    "      --json             print a JSON summary on stdout\n"
    "  -h, --help\n"
    "\n"
    CLI_MAP_HELP
    "\n"
    "Examples:\n"
    "  rve fit data/dct/dct.tif -o dct.tess --json\n"
    "  rve fit grains.tif -o fit.tess --max-time 10\n",
    run,
};

enum {
    OPT_HISTORY = CLI_OPT_FIRST,
    OPT_REPORT,
    OPT_NOREPORT,
    OPT_RES,
    OPT_TOL,
    OPT_SWEEPS,
    OPT_EVALS,
    OPT_POLISH,
    OPT_CLASSIFY,
    OPT_HINGE,
    OPT_ROUNDS,
    OPT_MAXTIME,
    OPT_SUB,
    OPT_EXACTDIST,
    OPT_NOOPEN,
    OPT_VSIZE,
    OPT_RAW
};

/* CPU seconds of the process by stage, read at each progress report: the
 * time since the previous report is the reporting stage's (the initial
 * guess: the first report; "other": after the last report, i.e. the tiny
 * cells' opening and the final measure).  Both passes of a monotone-effort
 * run add to the same stages. */
enum { CPU_INIT, CPU_EQ65, CPU_POLISH, CPU_CLASSIFY, CPU_HINGE, CPU_OTHER, CPU_TOTAL, CPU_N };

typedef struct {
    cli_progress *pb;
    int total1, total2, total3; /* bar shares of the Eq. 6.5, polishing and classifier stages */
    double cpu0, cpu_last, cpu[CPU_N];
} prog_ctx;

static double cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* acc is the exact voxel accuracy of the state just reached (the library
 * rasterises every reported state) */
static void on_progress(void *ctx, int stage, int sweep, double frac, double obj, double acc)
{
    prog_ctx *p = ctx;
    char extra[96];
    double now = cpu_now();
    /* stage: 0 Eq. 6.5 (sweep 0: the initial guess), 1 polishing, 2 classifier, 3 surrogate */
    int b = stage == 0 ? (sweep == 0 ? CPU_INIT : CPU_EQ65) : stage == 1 ? CPU_POLISH : stage == 2 ? CPU_CLASSIFY : CPU_HINGE;
    p->cpu[b] += now - p->cpu_last;
    p->cpu_last = now;
    if (stage == 2 || stage == 3)
        snprintf(extra, sizeof extra, "%s acc=%.2f%%", stage == 2 ? "classify" : "hinge", 100 * acc);
    else if (isnan(obj)) /* the polishing sweeps do not evaluate Eq. 6.5 */
        snprintf(extra, sizeof extra, "%s acc=%.2f%%", stage ? "polish" : "eq6.5", 100 * acc);
    else
        snprintf(extra, sizeof extra, "%s O=%.4f acc=%.2f%%", stage ? "polish" : "eq6.5", obj, 100 * acc);
    /* the classifier stops early (patience): its share of the bar follows frac */
    double done = stage == 0 ? sweep : stage >= 2 ? p->total1 + frac * p->total3 : p->total1 + p->total3 + sweep;
    cli_progress_update(p->pb, done, extra);
}

/* path without a trailing .tess, plus suffix */
static char *derive(const char *out, const char *suffix)
{
    size_t n = strlen(out);
    if (n > 5 && rve_path_has_ext(out, ".tess"))
        n -= 5;
    char *s = malloc(n + strlen(suffix) + 1);
    if (!s)
        return NULL;
    memcpy(s, out, n);
    strcpy(s + n, suffix);
    return s;
}

static rve_status write_history(const char *path, const rve_fit_result *r, rve_err *err)
{
    rve_afile *af = rve_afile_open(path, 0, err);
    if (!af)
        return err->code ? err->code : RVE_EIO;
    FILE *fp = rve_afile_fp(af);
    /* every row is an exact state; "best" rows close a stage (sweep = the
     * stage closed: 1 eq6.5, 3 classify, 2 polish) with the state the fit
     * would return there; objective empty where not computed */
    static const char *names[7] = {"initial", "eq6.5", "polish", "classify", "best", "hinge", "open"};
    fprintf(fp, "stage,sweep,objective,voxel_accuracy,seconds,evaluations,gjk_calls\n");
    for (int i = 0; i < r->nhist; i++) {
        const rve_fit_hist *h = &r->hist[i];
        char ob[32] = "";
        if (!isnan(h->objective))
            snprintf(ob, sizeof ob, "%.9g", h->objective);
        fprintf(fp, "%s,%d,%s,%.9f,%.3f,%ld,%ld\n", names[h->stage < 0 || h->stage > 6 ? 4 : h->stage], h->sweep,
                ob, 1.0 - h->misassigned, h->seconds, h->evals, h->gjk_calls);
    }
    return rve_afile_commit(af, err);
}

static rve_status write_tess(const char *path, const rve_map *m, const rve_fit_result *r, rve_err *err)
{
    rve_tess *t = NULL;
    int *ids = NULL;
    rve_status st = rve_pipeline_fit_tess(m, r, &t, &ids, err);
    if (st == RVE_OK)
        st = rve_tess_write_tess(t, path, ids, err);
    rve_tess_free(t);
    free(ids);
    return st;
}

static int run(int argc, char **argv)
{
    return fit_main(argc, argv, NULL);
}

int cli_fit_main(int argc, char **argv, const cli_fit_outputs *to)
{
    return fit_main(argc, argv, to);
}

/* the parsed command line of rve fit */
typedef struct {
    cli_common cc;
    rve_fit_opts fo;
    const char *out, *hist, *report;
    int noreport;
    rve_map_load_opts lo; /* --dims, --in-bytes, --voxel-size, ... (cli_map.h); --raw */
} fit_args;

/* Parses the options into A; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, const cli_fit_outputs *to, const cli_command *me, fit_args *A)
{
    static const struct option lopts[] = {
        CLI_COMMON_LONG,
        {"output", required_argument, NULL, 'o'},
        {"history", required_argument, NULL, OPT_HISTORY},
        {"report", required_argument, NULL, OPT_REPORT},
        {"no-report", no_argument, NULL, OPT_NOREPORT},
        {"res", required_argument, NULL, OPT_RES},
        {"tol", required_argument, NULL, OPT_TOL},
        {"sweeps", required_argument, NULL, OPT_SWEEPS},
        {"evals", required_argument, NULL, OPT_EVALS},
        {"polish", required_argument, NULL, OPT_POLISH},
        {"classify", required_argument, NULL, OPT_CLASSIFY},
        {"hinge", required_argument, NULL, OPT_HINGE},
        {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"max-time", required_argument, NULL, OPT_MAXTIME},
        {"sub", required_argument, NULL, OPT_SUB},
        {"exact-dist", no_argument, NULL, OPT_EXACTDIST},
        {"no-open", no_argument, NULL, OPT_NOOPEN},
        {"raw", required_argument, NULL, OPT_RAW},
        CLI_MAP_LONG,
        {NULL, 0, NULL, 0},
    };
    memset(A, 0, sizeof *A);
    cli_common_init(&A->cc);
    rve_fit_opts_init(&A->fo);
    cli_map_opts_init(&A->lo);
    cli_getopt_reset();
    int opt;
    long lv;
    double dv;
    while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT "o:", lopts, NULL)) != -1) {
        if (to && opt == 'h')
            return cli_usage_error(me, "--fit-options: --help is no fit option; see rve help fit");
        int c = cli_common_option(&A->cc, me, opt, optarg);
        if (c == 1)
            continue;
        if (c == 2)
            return 0;
        if (c < 0)
            return 2;
        if (to && (opt == 'o' || opt == OPT_HISTORY || opt == OPT_REPORT || opt == OPT_NOREPORT))
            return cli_usage_error(me, "--fit-options: %s would move an output of rve run; "
                                   "its outputs are fixed (see rve help run)",
                                   opt == 'o' ? "-o" : opt == OPT_HISTORY ? "--history"
                                   : opt == OPT_REPORT ? "--report" : "--no-report");
        int mc = cli_map_option(me, &A->lo, opt, optarg);
        if (mc < 0)
            return 2;
        if (mc > 0)
            continue;
        switch (opt) {
        case 'o': A->out = optarg; break;
        case OPT_HISTORY: A->hist = optarg; break;
        case OPT_REPORT: A->report = optarg; break;
        case OPT_NOREPORT: A->noreport = 1; break;
        case OPT_RES:
            if (rve_parse_int_range(optarg, 1, 64, &lv) != RVE_OK)
                return cli_usage_error(me, "--res: expected an integer from 1 to 64, got '%s'", optarg);
            A->fo.res = (int)lv;
            break;
        case OPT_TOL:
            if (rve_parse_double(optarg, &dv) != RVE_OK || dv < 0)
                return cli_usage_error(me, "--tol: expected a number >= 0, got '%s'", optarg);
            A->fo.tol = dv;
            break;
        case OPT_SWEEPS:
            if (rve_parse_int_range(optarg, 0, 100000, &lv) != RVE_OK)
                return cli_usage_error(me, "--sweeps: expected an integer from 0 to 100000, got '%s'", optarg);
            A->fo.max_sweeps = (int)lv;
            break;
        case OPT_EVALS:
            if (rve_parse_int_range(optarg, 5, 100000, &lv) != RVE_OK)
                return cli_usage_error(me, "--evals: expected an integer from 5 to 100000, got '%s'", optarg);
            A->fo.max_evals = (int)lv;
            break;
        case OPT_POLISH:
            if (rve_parse_int_range(optarg, 0, 100000, &lv) != RVE_OK)
                return cli_usage_error(me, "--polish: expected an integer from 0 to 100000, got '%s'", optarg);
            A->fo.polish = (int)lv;
            break;
        case OPT_CLASSIFY:
            if (rve_parse_int_range(optarg, 0, 100000, &lv) != RVE_OK)
                return cli_usage_error(me, "--classify: expected an integer from 0 to 100000, got '%s'", optarg);
            A->fo.classify = (int)lv;
            break;
        case OPT_HINGE:
            if (rve_parse_int_range(optarg, 0, 100000, &lv) != RVE_OK)
                return cli_usage_error(&cli_cmd_fit, "--hinge: expected an integer from 0 to 100000, got '%s'", optarg);
            A->fo.hinge = (int)lv;
            break;
        case OPT_ROUNDS:
            if (rve_parse_int_range(optarg, 1, 100000, &lv) != RVE_OK)
                return cli_usage_error(&cli_cmd_fit, "--rounds: expected an integer from 1 to 100000, got '%s'", optarg);
            A->fo.rounds = (int)lv;
            break;
        case OPT_MAXTIME:
            if (rve_parse_double(optarg, &dv) != RVE_OK || dv <= 0)
                return cli_usage_error(me, "--max-time: expected seconds > 0, got '%s'", optarg);
            A->fo.max_seconds = dv;
            break;
        case OPT_SUB:
            if (!strcmp(optarg, "sv"))
                A->fo.sub = RVE_FIT_SUB_SV;
            else if (!strcmp(optarg, "johnson"))
                A->fo.sub = RVE_FIT_SUB_JOHNSON;
            else
                return cli_usage_error(me, "--sub: expected sv or johnson, got '%s'", optarg);
            break;
        case OPT_EXACTDIST: A->fo.exact_dist = 1; break;
        case OPT_NOOPEN: A->fo.open_tiny = 0; break;
        case OPT_RAW: {
            double v[4];
            int nv = 0;
            if (rve_parse_list(optarg, v, 4, &nv) != RVE_OK || nv < 3 || v[0] < 1 || v[1] < 1 || v[2] < 1 ||
                (nv == 4 && v[3] != 1 && v[3] != 2 && v[3] != 4))
                return cli_usage_error(me, "--raw: expected NX,NY,NZ[,BYTES], got '%s'", optarg);
            A->lo.fmt = RVE_MAP_RAW;
            A->lo.raw.nx = (int)v[0];
            A->lo.raw.ny = (int)v[1];
            A->lo.raw.nz = (int)v[2];
            A->lo.raw.bytes = nv == 4 ? (int)v[3] : 2;
            break;
        }
        default: return cli_bad_option(me, argc, argv);
        }
    }
    return -1;
}

/* the JSON summary of a fit */
static void print_json(FILE *jout, const char *mapf, const char *out, const rve_fit_opts *fo,
                       const rve_fit_result *rr, const double *cpu)
{
    rve_json j;
    rve_json_init(&j, jout);
    rve_json_begin_object(&j);
    rve_json_kv_string(&j, "map", mapf);
    rve_json_kv_string(&j, "output", out);
    rve_json_kv_int(&j, "cells", rr->n);
    rve_json_kv_int(&j, "control_points", rr->ncontrol);
    rve_json_kv_string(&j, "sub", fo->sub == RVE_FIT_SUB_JOHNSON ? "johnson" : "sv");
    rve_json_kv_number(&j, "objective_initial", rr->obj_init);
    rve_json_kv_number(&j, "objective_eq65_stage", rr->obj_stage1);
    rve_json_kv_number(&j, "objective_final", rr->obj_final);
    rve_json_kv_number(&j, "voxel_accuracy_initial", rr->acc_init);
    rve_json_kv_number(&j, "voxel_accuracy_eq65_stage", rr->acc_stage1);
    rve_json_kv_number(&j, "voxel_accuracy_classify", rr->acc_classify);
    rve_json_kv_int(&j, "classify_epochs", rr->classify_epochs);
    rve_json_kv_int(&j, "hinge_iterations", rr->hinge_iters);
    rve_json_kv_int(&j, "rounds", rr->rounds);
    rve_json_kv_number(&j, "voxel_accuracy_final", rr->acc_final);
    /* per stage: the exact figures of the state returned had the fit stopped there */
    rve_json_key(&j, "stages");
    rve_json_begin_array(&j);
    const char *sn[4] = {"initial", "eq6.5", "classify", "polish"};
    double sa[4] = {rr->acc_init, rr->acc_stage1, rr->acc_classify, rr->acc_polish};
    double so[4] = {rr->obj_init, rr->obj_stage1, rr->obj_classify, rr->obj_polish};
    for (int q = 0; q < 4; q++) {
        rve_json_begin_object(&j);
        rve_json_kv_string(&j, "stage", sn[q]);
        rve_json_kv_number(&j, "voxel_accuracy", sa[q]);
        rve_json_kv_number(&j, "objective", so[q]);
        rve_json_end_object(&j);
    }
    rve_json_end_array(&j);
    rve_json_kv_number(&j, "iou_min", rr->iou_min);
    rve_json_kv_number(&j, "iou_median", rr->iou_median);
    rve_json_kv_int(&j, "empty_cells", rr->empty_cells);
    rve_json_kv_int(&j, "iterations", rr->sweeps + rr->polish_sweeps);
    rve_json_kv_int(&j, "sweeps_eq65", rr->sweeps);
    rve_json_kv_int(&j, "sweeps_polish", rr->polish_sweeps);
    rve_json_kv_int(&j, "evaluations", rr->evals);
    rve_json_kv_int(&j, "gjk_calls", rr->gjk_calls);
    rve_json_kv_number(&j, "seconds", rr->seconds);
    rve_json_kv_string(&j, "stopped_by", rr->stopped_by == 0 ? "tolerance" : rr->stopped_by == 1 ? "sweep cap" : "time cap");
    rve_json_kv_int(&j, "threads", fo->threads);
    if (cpu) { /* rve fit only (rve run's fit has no per-stage clock) */
        static const char *cn[CPU_N] = {"initial", "eq6.5", "polish", "classify", "surrogate", "other", "total"};
        rve_json_key(&j, "cpu_seconds");
        rve_json_begin_object(&j);
        for (int q = 0; q < CPU_N; q++)
            rve_json_kv_number(&j, cn[q], cpu[q]);
        rve_json_end_object(&j);
    }
    rve_json_end_object(&j);
    fputc('\n', jout);
}

/* The outputs of a finished fit: its tessellation (unless written
 * already), history, report pictures, summary line and JSON summary. */
static rve_status fit_write(const cli_common *cc, const char *mapf, const rve_map *m, const rve_fit_opts *fo,
                            const rve_fit_result *r, const cli_fit_outputs *to, const double *cpu, rve_err *err)
{
    const char *out = to->tess, *hist = to->history, *report = to->report;
    rve_status st;
    if (!to->tess_written && (st = write_tess(out, m, r, err)) != RVE_OK)
        return st;
    if (hist && (st = write_history(hist, r, err)) != RVE_OK)
        return st;
    if (report && (st = cli_fit_report(report, m, r, err)) != RVE_OK)
        return st;
    cli_info(cc, "fit: %d cells, objective %.4f -> %.4f, voxel accuracy %.2f%% -> %.2f%% (Eq. 6.5 stage %.2f%%), "
                 "%d empty, %.1f s",
             r->n, r->obj_init, r->obj_final, 100 * r->acc_init, 100 * r->acc_final, 100 * r->acc_stage1,
             r->empty_cells, r->seconds);
    if (to->json && (cc->json || to->json != stdout))
        print_json(to->json, mapf, out, fo, r, cpu);
    return RVE_OK;
}

int cli_fit_write(const cli_common *cc, const char *mapf, const rve_map *m, const rve_fit_opts *fo,
                  const rve_fit_result *r, const cli_fit_outputs *to, rve_err *err)
{
    return fit_write(cc, mapf, m, fo, r, to, NULL, err) == RVE_OK ? 0 : -1;
}

/* to != NULL: rve run's fit, whose outputs are fixed (options that would
 * move or drop them are refused) and whose summary goes to to->json. */
static int fit_main(int argc, char **argv, const cli_fit_outputs *to)
{
    /* messages name `rve run` when it parses its --fit-options */
    const cli_command *me = to ? &cli_cmd_run : &cli_cmd_fit;
    fit_args A;
    int prc = parse_args(argc, argv, to, me, &A);
    if (prc >= 0)
        return prc;
    cli_common cc = A.cc;
    rve_fit_opts fo = A.fo;
    const char *out = A.out, *hist = A.hist, *report = A.report;
    int noreport = A.noreport;
    if (optind != argc - 1)
        return cli_usage_error(me, optind >= argc ? "missing the grain map" : "expected one grain map");
    if (to) {
        out = to->tess;
        hist = to->history;
        report = to->report;
        noreport = !report;
    }
    if (!out || !out[0])
        return cli_usage_error(me, "missing -o OUT.tess");
    if (rve_path_has_ext(out, ".vtk") || rve_path_has_ext(out, ".msh") || rve_path_has_ext(out, ".tif") ||
        rve_path_has_ext(out, ".tesr"))
        return cli_usage_error(me, "-o %s: the fit writes a .tess tessellation (rve mesh or "
                               "rve raster make other formats from it)", out);
    const char *mapf = argv[optind];
    cli_common_apply(&cc);
    fo.threads = rve_threads_get();
    if (to && to->parsed) {
        /* rve run: the options only; the pipeline fits */
        to->parsed->fo = fo;
        to->parsed->lo = A.lo;
        return 0;
    }

    rve_err err;
    rve_err_clear(&err);
    rve_map *m = NULL;
    rve_status st;
    char *hpath = hist ? NULL : derive(out, ".csv");
    char *rpath = report || noreport ? NULL : derive(out, "_report");
    if (!hist)
        hist = hpath;
    if (!report && !noreport)
        report = rpath;
    if (!hist || (!report && !noreport)) {
        rve_err_set(&err, RVE_ENOMEM, NULL, "out of memory");
        goto fail_early;
    }
    {
        const char *outs[3] = {out, hist, report};
        int rc = cli_check_paths(me, &mapf, 1, outs, 3);
        if (rc) {
            rve_map_free(m);
            free(hpath);
            free(rpath);
            return rc;
        }
    }
#ifdef RVE_HAVE_MPI
    if (cli_mpi_running() && !to) { /* distributed by z slabs: only the .tess (docs/mpi.md) */
        free(hpath);
        free(rpath);
        if (A.hist || A.report)
            return cli_usage_error(me, "--history and --report are not written under mpirun (docs/mpi.md)");
        return cli_mpi_fit(me, &cc, mapf, &A.lo, &fo, out);
    }
#endif
    st = rve_map_load(mapf, &A.lo, &m, &err);
    if (st != RVE_OK)
        goto fail_early;

    cli_progress pb;
    prog_ctx pc = {&pb, fo.max_sweeps, fo.polish, fo.classify > 0 ? 10 : 0, 0, 0, {0}};
    pc.cpu0 = pc.cpu_last = cpu_now();
    cli_progress_start(&pb, "fit", fo.max_sweeps + pc.total3 + fo.polish, cc.verbosity);
    fo.progress = on_progress;
    fo.progress_ctx = &pc;
    rve_fit_result r;
    st = rve_fit(m, &fo, &r, &err);
    cli_progress_finish(&pb);
    pc.cpu[CPU_TOTAL] = cpu_now() - pc.cpu0;
    pc.cpu[CPU_OTHER] = cpu_now() - pc.cpu_last;
    if (st != RVE_OK) {
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", mapf);
        goto fail;
    }
    {
        cli_fit_outputs wo = {out, hist, report, to ? to->json : stdout, NULL, 0};
        if ((st = fit_write(&cc, mapf, m, &fo, &r, &wo, to ? NULL : pc.cpu, &err)) != RVE_OK)
            goto fail;
    }
    rve_fit_result_free(&r);
    rve_map_free(m);
    free(hpath);
    free(rpath);
    return 0;
fail:
    rve_fit_result_free(&r);
fail_early:
    rve_map_free(m);
    free(hpath);
    free(rpath);
    return cli_fail(me, &err);
}
