/* rve gen - generate a tessellation with target grain size and shape
 * distributions, or cells of prescribed volumes. */
#include "config.h"
#include "cli/cli.h"
#include "cli/cli_mpi.h"
#include "cli/plot.h"
#include <rve/optim.h>
#include <rve/tess.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_gen = {
    "gen", "generate a tessellation with target grain size and shape distributions",
    "Usage: rve gen -n N [--domain LX,LY,LZ] [--morpho SPEC] -o OUT.tess [options]\n"
    "       rve gen --volumes FILE --domain LX,LY,LZ [--seeds FILE] -o OUT.tess [options]\n"
    "Generate a Laguerre tessellation of the box [0,LX]x[0,LY]x[0,LZ] whose cells follow\n"
    "target distributions of size and shape, or whose cells have prescribed volumes.\n"
    "\n"
    "Morphology (--morpho SPEC): comma-separated PROPERTY:DISTRIBUTION items, or the\n"
    "preset 'gg' = diameq:lognormal(1,0.35),1-sphericity:lognormal(0.145,0.03)\n"
    "(grain growth; the default when neither --morpho nor --volumes is given).\n"
    "  PROPERTY      diameq (equivalent diameter, relative to its mean), size (volume,\n"
    "                relative to the mean volume), sphericity, 1-sphericity\n"
    "  DISTRIBUTION  normal(MEAN,SD), lognormal(MEAN,SD) (mean and SD of the variable),\n"
    "                weibull(SHAPE,SCALE), custom(FILE) (lines 'x density', piecewise\n"
    "                linear), or a number (all cells equal); add ',from=A,to=B' inside\n"
    "                the parentheses to truncate, e.g. lognormal(1,0.35,from=0.3)\n"
    "Sizes are reached exactly by prescribing the cell volumes (damped Newton on the\n"
    "dual of semi-discrete optimal transport); sphericity by Lloyd steps, then a local\n"
    "search that moves one seed or weight at a time (incremental diagram updates) and\n"
    "lets cells trade sizes, the volumes re-solved after each sweep.\n"
    "\n"
    "Options:\n"
    "  -n, --cells N          number of cells (required with --morpho)\n"
    "  -d, --domain LX,LY,LZ  box size (one value: a cube) [1]\n"
    "      --periodic         periodic tessellation\n"
    "  -m, --morpho SPEC      target distributions (see above) [gg]\n"
    "      --volumes FILE     prescribed volumes, one positive number per line (relative:\n"
    "                         they are scaled to fill the domain); the cell count is the\n"
    "                         line count\n"
    "      --seeds FILE       seeds 'x y z [w]' per line for --volumes (default: random;\n"
    "                         w is the initial weight)\n"
    "      --lloyd K          with --volumes: K Lloyd steps (seeds to centroids, volumes\n"
    "                         re-solved) for rounder, more regular cells [0]\n"
    "      --tol T            maximum relative volume error [1e-3]\n"
    "      --max-iter K       shape-optimisation cap: Lloyd steps + sweeps of N trial\n"
    "                         moves [200] (it stops earlier once converged; the\n"
    "                         progress bar and the summary show the iterations done)\n"
    "      --size-corr L      correlation length of the cell sizes, in mean cell sizes:\n"
    "                         neighbours more alike in size, rounder cells [0: none]\n"
    "      --time-limit SEC   stop the shape optimisation after SEC seconds [none]\n"
    "      --seed S           random seed [1]\n"
    "      --ori SPEC         per-cell crystal orientations in the .tess (as rve tess:\n"
    "                         random, cube, goss, brass, copper, s[:SPREAD deg]; --seed)\n"
    "      --crysym NAME      crystal symmetry of --ori [cubic]\n"
    "      --count K          K independent RVEs: RVE k (1..K) is what --seed S+k-1\n"
    "                         gives, written to OUT (and --values, --plot) with _k\n"
    "                         before the extension (gg.tess -> gg_1.tess ...); under\n"
    "                         mpirun (configure --with-mpi) spread over the ranks,\n"
    "                         nothing written unless every RVE succeeded\n"
    "  -o, --output FILE      output tessellation (.tess, or .vtk)\n"
    "                         (under mpirun, --volumes with -o CELLS.h5: the solve is\n"
    "                         distributed and CELLS.h5 is its per-cell table; docs/mpi.md)\n"
    "      --values FILE      per-cell table: id x y z w volume diameq sphericity\n"
    "      --plot FILE.png    target vs achieved cumulative distributions\n"
    "  -q, --quiet / -v, --verbose / -j, --threads N / --json (summary on stdout) / -h, --help\n"
    "\n"
    "Example:\n"
    "  rve gen -n 1000 --domain 1,1,1 --morpho gg -o gg.tess --plot gg.png --json\n"
    "  rve gen --volumes vols.txt --domain 10,10,10 --periodic --lloyd 10 -o cells.tess\n"
    "  mpirun -np 4 rve gen -n 500 --morpho gg --count 16 -o gg.tess\n",
    run,
};

enum { OPT_PERIODIC = CLI_OPT_FIRST, OPT_VOLUMES, OPT_SEEDS, OPT_TOL, OPT_MAXIT, OPT_TLIM, OPT_SEED, OPT_VALUES,
       OPT_PLOT, OPT_LLOYD, OPT_SIZECORR, OPT_ORI, OPT_CRYSYM, OPT_COUNT };

/* Read one positive number per line ('#' comments, blank lines skipped). */
static rve_status read_volumes(const char *path, double **out, size_t *n, rve_err *err)
{
    char *buf;
    size_t len;
    rve_status st = rve_read_file(path, &buf, &len, err);
    if (st != RVE_OK)
        return st;
    size_t cap = 1024, k = 0;
    double *v = malloc(cap * sizeof *v);
    if (!v) {
        free(buf);
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    }
    int line = 0;
    char *p = buf;
    while (*p) {
        char *e = strchr(p, '\n');
        if (e)
            *e = '\0';
        line++;
        char *c = p;
        while (*c == ' ' || *c == '\t' || *c == '\r')
            c++;
        size_t l = strlen(c);
        while (l > 0 && (c[l - 1] == ' ' || c[l - 1] == '\t' || c[l - 1] == '\r'))
            c[--l] = '\0';
        if (*c && *c != '#') {
            double x;
            if (rve_parse_double(c, &x) != RVE_OK || !(x > 0)) {
                rve_err_set(err, RVE_EDATA, path, "line %d: expected a positive volume, got '%.40s'", line, c);
                free(v);
                free(buf); /* c points into buf: report before freeing it */
                return RVE_EDATA;
            }
            if (k == cap) {
                cap *= 2;
                double *nv = realloc(v, cap * sizeof *v);
                if (!nv) {
                    free(v);
                    free(buf);
                    return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
                }
                v = nv;
            }
            v[k++] = x;
        }
        if (!e)
            break;
        p = e + 1;
    }
    free(buf);
    if (k == 0) {
        free(v);
        return rve_err_set(err, RVE_EDATA, path, "no volumes");
    }
    *out = v;
    *n = k;
    return RVE_OK;
}

typedef struct {
    cli_progress bar;
} prog_ctx;

static void on_progress(void *ctx, int it, int max_iter, double f)
{
    prog_ctx *pc = ctx;
    char extra[64];
    snprintf(extra, sizeof extra, "objective %.4g", f);
    (void)max_iter;
    cli_progress_update(&pc->bar, it, extra);
}

static rve_status write_values(const char *path, size_t n, const double *seeds, const double *w, const double *vol,
                               const double *deq, const double *sph, rve_err *err)
{
    rve_afile *af = rve_afile_open(path, 0, err);
    if (!af)
        return err->code;
    FILE *fp = rve_afile_fp(af);
    fprintf(fp, "# id x y z w volume diameq sphericity\n");
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%zu %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", i + 1, seeds[3 * i], seeds[3 * i + 1],
                seeds[3 * i + 2], w[i], vol[i], deq[i], sph[i]);
    return rve_afile_commit(af, err);
}

/* The command line, parsed. */
typedef struct {
    const char *morpho, *out, *volumes, *seedfile, *valfile, *plotfile, *ori, *crysym;
    long ncells, maxit, seed, lloyd, count;
    double domain[3], tol, tlim, sizecorr;
    int periodic;
} gen_args;

/* What one RVE needs and produces. */
typedef struct {
    rve_morpho m;
    size_t n;
    double *seeds, *w, *vals, *target, *vol, *deq, *sph, *s4;
    rve_tess *t;
    rve_gen_info gi;
    rve_pvol_info pi;
} gen_work;

static void work_free(gen_work *g)
{
    rve_tess_free(g->t);
    rve_morpho_free(&g->m);
    free(g->seeds), free(g->w), free(g->vals), free(g->target);
    free(g->vol), free(g->deq), free(g->sph), free(g->s4);
}

/* Consistency of the options: -1 to go on, else the exit status. */
static int check_args(const gen_args *a)
{
    const cli_command *cmd = &cli_cmd_gen;
    if (!a->out)
        return cli_usage_error(cmd, "missing -o OUT.tess");
    if (a->morpho && a->volumes)
        return cli_usage_error(cmd, "give one of --morpho and --volumes, not both");
    if (a->morpho && a->ncells <= 0)
        return cli_usage_error(cmd, "missing -n N (the number of cells)");
    if (a->seedfile && !a->volumes)
        return cli_usage_error(cmd, "--seeds goes with --volumes");
    if (a->crysym && !a->ori)
        return cli_usage_error(cmd, "--crysym goes with --ori");
    if (a->ori && rve_path_has_ext(a->out, ".vtk"))
        return cli_usage_error(cmd, "--ori: orientations go to a .tess output");
    if (a->lloyd && !a->volumes)
        return cli_usage_error(cmd, "--lloyd goes with --volumes");
    if (a->sizecorr > 0 && !a->morpho)
        return cli_usage_error(cmd, "--size-corr goes with --morpho");
    if (a->plotfile && !a->morpho)
        return cli_usage_error(cmd, "--plot needs --morpho");
    if (a->count && a->seedfile)
        return cli_usage_error(cmd, "--count: the RVEs differ by their random seeds, not with --seeds FILE");
    if (!a->count && cli_mpi_running() && a->volumes && rve_path_has_ext(a->out, ".h5")) {
        /* distributed prescribed volumes (docs/mpi.md) */
        if (a->periodic || a->valfile || a->ori)
            return cli_usage_error(cmd, "under mpirun, --volumes -o CELLS.h5 takes neither --periodic, "
                                   "--values nor --ori");
    } else if (!a->count && cli_mpi_size() > 1)
        return cli_usage_error(cmd, "under mpirun, give --count K (K RVEs spread over the ranks), or --volumes "
                               "with -o CELLS.h5 (one distributed solve)");
    const char *ins[2] = {a->volumes, a->seedfile}, *outs[3] = {a->out, a->valfile, a->plotfile};
    if (cli_check_paths(cmd, ins, 2, outs, 3))
        return 2;
    return -1;
}

/* Parse and check the options: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, gen_args *a, cli_common *com)
{
    static const struct option longs[] = {
        CLI_COMMON_LONG,
        {"cells", required_argument, NULL, 'n'},
        {"domain", required_argument, NULL, 'd'},
        {"morpho", required_argument, NULL, 'm'},
        {"output", required_argument, NULL, 'o'},
        {"periodic", no_argument, NULL, OPT_PERIODIC},
        {"volumes", required_argument, NULL, OPT_VOLUMES},
        {"seeds", required_argument, NULL, OPT_SEEDS},
        {"tol", required_argument, NULL, OPT_TOL},
        {"max-iter", required_argument, NULL, OPT_MAXIT},
        {"time-limit", required_argument, NULL, OPT_TLIM},
        {"seed", required_argument, NULL, OPT_SEED},
        {"values", required_argument, NULL, OPT_VALUES},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"lloyd", required_argument, NULL, OPT_LLOYD},
        {"size-corr", required_argument, NULL, OPT_SIZECORR},
        {"ori", required_argument, NULL, OPT_ORI},
        {"crysym", required_argument, NULL, OPT_CRYSYM},
        {"count", required_argument, NULL, OPT_COUNT},
        {NULL, 0, NULL, 0},
    };
    const cli_command *cmd = &cli_cmd_gen;
    memset(a, 0, sizeof *a);
    a->maxit = 200, a->seed = 1, a->tol = 1e-3;
    a->domain[0] = a->domain[1] = a->domain[2] = 1;
    int opt;
    cli_getopt_reset();
    while ((opt = getopt_long(argc, argv, "n:d:m:o:" CLI_COMMON_SHORT, longs, NULL)) != -1) {
        int r = cli_common_option(com, cmd, opt, optarg);
        if (r == 2)
            return 0;
        if (r < 0)
            return 2;
        if (r == 1)
            continue;
        switch (opt) {
        case 'n':
            if (rve_parse_int_range(optarg, 1, 100000000, &a->ncells) != RVE_OK)
                return cli_usage_error(cmd, "-n: expected a positive cell count, got '%s'", optarg);
            break;
        case 'd':
            if (rve_parse_triplet(optarg, a->domain, 1) != RVE_OK ||
                !(a->domain[0] > 0 && a->domain[1] > 0 && a->domain[2] > 0))
                return cli_usage_error(cmd, "--domain: expected LX,LY,LZ > 0, got '%s'", optarg);
            break;
        case 'm': a->morpho = optarg; break;
        case 'o': a->out = optarg; break;
        case OPT_PERIODIC: a->periodic = 1; break;
        case OPT_VOLUMES: a->volumes = optarg; break;
        case OPT_SEEDS: a->seedfile = optarg; break;
        case OPT_VALUES: a->valfile = optarg; break;
        case OPT_PLOT: a->plotfile = optarg; break;
        case OPT_ORI: a->ori = optarg; break;
        case OPT_CRYSYM: a->crysym = optarg; break;
        case OPT_LLOYD:
            if (rve_parse_int_range(optarg, 0, 1000000, &a->lloyd) != RVE_OK)
                return cli_usage_error(cmd, "--lloyd: expected a count >= 0, got '%s'", optarg);
            break;
        case OPT_TOL:
            if (rve_parse_double(optarg, &a->tol) != RVE_OK || !(a->tol > 0 && a->tol < 1))
                return cli_usage_error(cmd, "--tol: expected a number in (0, 1), got '%s'", optarg);
            break;
        case OPT_MAXIT:
            if (rve_parse_int_range(optarg, 0, 100000000, &a->maxit) != RVE_OK)
                return cli_usage_error(cmd, "--max-iter: expected a count >= 0, got '%s'", optarg);
            break;
        case OPT_SIZECORR:
            if (rve_parse_double(optarg, &a->sizecorr) != RVE_OK || !(a->sizecorr >= 0 && a->sizecorr <= 1e6))
                return cli_usage_error(cmd, "--size-corr: expected a length >= 0, got '%s'", optarg);
            break;
        case OPT_TLIM:
            if (rve_parse_double(optarg, &a->tlim) != RVE_OK || a->tlim < 0)
                return cli_usage_error(cmd, "--time-limit: expected seconds >= 0, got '%s'", optarg);
            break;
        case OPT_SEED:
            if (rve_parse_int_range(optarg, 0, 2147483647L, &a->seed) != RVE_OK)
                return cli_usage_error(cmd, "--seed: expected an integer >= 0, got '%s'", optarg);
            break;
        case OPT_COUNT:
            if (rve_parse_int_range(optarg, 1, 1000000, &a->count) != RVE_OK)
                return cli_usage_error(cmd, "--count: expected a count from 1 to 1000000, got '%s'", optarg);
            break;
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!a->morpho && !a->volumes)
        a->morpho = "gg"; /* the documented default morphology */
    return check_args(a);
}

/* The targets: the morphology (checked for reachable sphericities) or the
 * prescribed volumes. */
static rve_status step_targets(const gen_args *a, const cli_common *com, gen_work *g, rve_err *err)
{
    if (!a->morpho) {
        rve_status st = read_volumes(a->volumes, &g->target, &g->n, err);
        if (st == RVE_OK && a->ncells > 0 && (size_t)a->ncells != g->n)
            st = rve_err_set(err, RVE_EUSAGE, "", "-n %ld but %s has %zu volumes", a->ncells, a->volumes, g->n);
        return st;
    }
    rve_status st = rve_morpho_parse(a->morpho, &g->m, err);
    if (st != RVE_OK)
        return st;
    /* a sphericity above 1 (a sphere) is out of reach of any cell: a
     * target mostly there cannot be approached, only reported as missed */
    const rve_morpho *m = &g->m;
    double above = m->has[RVE_PROP_SPHERICITY] ? 1 - rve_distrib_cdf(&m->dist[RVE_PROP_SPHERICITY], 1)
                   : m->has[RVE_PROP_1MSPHERICITY] ? rve_distrib_cdf(&m->dist[RVE_PROP_1MSPHERICITY], 0)
                                                    : 0;
    if (above > 0.5)
        return rve_err_set(err, RVE_EUSAGE, "", "--morpho %s: %.0f %% of the target sphericities are above 1, "
                           "which no cell reaches (a sphere has 1; Voronoi cells stay below about 0.92)",
                           a->morpho, 100 * above);
    if (above > 0.01)
        cli_info(com, "rve gen: warning: %.1f %% of the target sphericities are above 1 (unreachable)", 100 * above);
    g->n = (size_t)a->ncells;
    return RVE_OK;
}

static rve_status step_alloc(gen_work *g, rve_err *err)
{
    size_t n = g->n;
    g->seeds = malloc(3 * n * sizeof *g->seeds);
    g->w = calloc(n, sizeof *g->w);
    g->vals = malloc(RVE_PROP_COUNT * n * sizeof *g->vals);
    g->vol = malloc(n * sizeof *g->vol);
    g->deq = malloc(n * sizeof *g->deq);
    g->sph = malloc(n * sizeof *g->sph);
    g->s4 = malloc(4 * n * sizeof *g->s4);
    if (!g->seeds || !g->w || !g->vals || !g->vol || !g->deq || !g->sph || !g->s4)
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (%zu cells)", n);
    return RVE_OK;
}

/* --morpho: rve_gen (sizes by prescribed volumes, shapes by local search). */
static rve_status step_morpho(const gen_args *a, const cli_common *com, unsigned long seed, gen_work *g,
                              rve_err *err)
{
    rve_gen_params gp;
    rve_gen_params_default(&gp);
    gp.n = g->n;
    memcpy(gp.domain, a->domain, sizeof gp.domain);
    gp.periodic = a->periodic;
    gp.seed = seed;
    gp.max_iter = (int)a->maxit;
    gp.time_limit = a->tlim;
    gp.size_corr = a->sizecorr;
    gp.tol = a->tol;
    prog_ctx pc;
    cli_progress_start(&pc.bar, "gen", (double)a->maxit, com->verbosity);
    gp.progress = on_progress;
    gp.progress_ctx = &pc;
    rve_status st = rve_gen(&g->m, &gp, g->seeds, g->w, g->vals, &g->gi, err);
    /* it stops once converged: the bar ends at the iterations done */
    cli_progress_finish_at(&pc.bar, st == RVE_OK ? (double)g->gi.iterations : pc.bar.done);
    return st;
}

/* --volumes: the initial seeds, from --seeds FILE or random (a splitmix64
 * stream from the seed). */
static rve_status step_initial_seeds(const gen_args *a, unsigned long seed, gen_work *g, rve_err *err)
{
    size_t n = g->n;
    if (!a->seedfile) {
        uint64_t z = (uint64_t)seed * 0x9E3779B97F4A7C15ULL + 12345;
        for (size_t i = 0; i < 3 * n; i++)
            g->seeds[i] = ((rve_splitmix64(&z) >> 11) + 0.5) * (1.0 / 9007199254740992.0) * a->domain[i % 3];
        return RVE_OK;
    }
    double *sf = NULL;
    int ns = 0;
    rve_status st = rve_tess_read_seeds(a->seedfile, &sf, &ns, err);
    if (st != RVE_OK)
        return st;
    if ((size_t)ns != n)
        st = rve_err_set(err, RVE_EDATA, a->seedfile, "%d seeds but %zu volumes in %s", ns, n, a->volumes);
    for (size_t i = 0; st == RVE_OK && i < n; i++) {
        for (int k = 0; st == RVE_OK && k < 3; k++) {
            double x = sf[4 * i + k];
            if (a->periodic) {
                x = fmod(x, a->domain[k]);
                if (x < 0)
                    x += a->domain[k];
            } else if (!(x >= 0 && x <= a->domain[k]))
                st = rve_err_set(err, RVE_EDATA, a->seedfile, "seed %zu lies outside the domain", i + 1);
            g->seeds[3 * i + k] = x;
        }
        g->w[i] = sf[4 * i + 3];
        if (!(g->w[i] >= 0))
            g->w[i] = 0;
    }
    free(sf);
    return st;
}

static void pack_seeds(gen_work *g)
{
    for (size_t i = 0; i < g->n; i++) {
        g->s4[4 * i] = g->seeds[3 * i];
        g->s4[4 * i + 1] = g->seeds[3 * i + 1];
        g->s4[4 * i + 2] = g->seeds[3 * i + 2];
        g->s4[4 * i + 3] = g->w[i];
    }
}

/* One Lloyd step: seeds to their cells' centroids (volumes re-solved after). */
static rve_status lloyd_step(const gen_args *a, gen_work *g, rve_err *err)
{
    rve_tess *tl = NULL;
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    o.topology = 0;
    o.keep_container = 0;
    double lo[3] = {0, 0, 0};
    int per[3] = {a->periodic, a->periodic, a->periodic};
    pack_seeds(g);
    rve_status st = rve_tess_build(g->s4, (int)g->n, lo, a->domain, per, &o, &tl, err);
    if (st != RVE_OK)
        return st;
    for (size_t i = 0; i < g->n; i++)
        for (int k = 0; k < 3; k++) {
            double x = tl->cells[i].vol > 0 ? tl->cells[i].centroid[k] : g->seeds[3 * i + k];
            if (a->periodic) {
                x = fmod(x, a->domain[k]);
                if (x < 0)
                    x += a->domain[k];
            }
            g->seeds[3 * i + k] = x;
        }
    rve_tess_free(tl);
    return RVE_OK;
}

/* --volumes: the transport solve, then --lloyd steps each followed by one. */
static rve_status step_volumes(const gen_args *a, const cli_common *com, unsigned long seed, gen_work *g,
                               rve_err *err)
{
    rve_status st = step_initial_seeds(a, seed, g, err);
    if (st != RVE_OK)
        return st;
    rve_pvol_params pp;
    rve_pvol_params_default(&pp);
    pp.tol = a->tol;
    st = rve_pvol_solve(g->n, g->seeds, a->domain, a->periodic, g->target, g->w, &pp, &g->pi, err);
    if (st != RVE_OK)
        return st;
    double secs = g->pi.seconds;
    int its = g->pi.iterations;
    cli_progress bar;
    cli_progress_start(&bar, "lloyd", (double)a->lloyd, com->verbosity);
    for (long k = 0; st == RVE_OK && k < a->lloyd; k++) {
        st = lloyd_step(a, g, err);
        if (st == RVE_OK)
            st = rve_pvol_solve(g->n, g->seeds, a->domain, a->periodic, g->target, g->w, &pp, &g->pi, err);
        secs += g->pi.seconds;
        its += g->pi.iterations;
        cli_progress_update(&bar, (double)(k + 1), NULL);
    }
    cli_progress_finish(&bar);
    g->pi.seconds = secs;
    g->pi.iterations = its;
    return st;
}

/* The final tessellation, its per-cell values and the output files. */
static rve_status step_output(const gen_args *a, unsigned long seed, const char *out, const char *valfile,
                              const char *plotfile, gen_work *g, rve_err *err)
{
    pack_seeds(g);
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    o.keep_container = 0;
    double lo[3] = {0, 0, 0};
    int per[3] = {a->periodic, a->periodic, a->periodic};
    rve_status st = rve_tess_build(g->s4, (int)g->n, lo, a->domain, per, &o, &g->t, err);
    if (st != RVE_OK)
        return st;
    for (size_t i = 0; i < g->n; i++) {
        g->vol[i] = g->t->cells[i].vol;
        g->deq[i] = rve_tess_cell_eqd(g->t, (int)i);
        g->sph[i] = rve_tess_cell_sphericity(g->t, (int)i);
    }
    if (a->ori)
        st = rve_tess_set_ori_texture(g->t, a->ori, a->crysym ? a->crysym : "cubic", (uint64_t)seed, err);
    if (st == RVE_OK && rve_path_has_ext(out, ".vtk"))
        st = rve_tess_write_vtk(g->t, out, NULL, err);
    else if (st == RVE_OK)
        st = rve_tess_write_tess(g->t, out, NULL, err);
    if (st == RVE_OK && valfile)
        st = write_values(valfile, g->n, g->seeds, g->w, g->vol, g->deq, g->sph, err);
    if (st == RVE_OK && plotfile)
        st = cli_gen_plot_png(plotfile, &g->m, g->n, g->vals, err);
    return st;
}

static void report_info(const gen_args *a, const cli_common *com, const gen_work *g)
{
    const rve_gen_info *gi = &g->gi;
    if (!a->morpho) {
        cli_info(com, "rve gen: %zu cells, max relative volume error %.3g after %d Newton iterations in %.2f s", g->n,
                 g->pi.max_rel_err, g->pi.iterations, g->pi.seconds);
        return;
    }
    cli_info(com, "rve gen: %zu cells in %.2f s (%d shape iterations, %d tessellations, %ld moves, %ld kept), "
             "objective %.4g", g->n, gi->seconds, gi->iterations, gi->tess_calls, gi->moves, gi->moves_accepted,
             gi->objective);
    cli_info(com, "  neighbour log-volume correlation %.3f", gi->nb_size_corr);
    for (int p = 0; p < RVE_PROP_COUNT; p++)
        if (g->m.has[p] && gi->max_dev[p] >= 0)
            cli_info(com, "  %-12s constant %g: largest relative deviation %.3g", rve_prop_name(p), g->m.dist[p].p1,
                     gi->max_dev[p]);
        else if (g->m.has[p])
            cli_info(com, "  %-12s KS distance %.4f (p-value %.3g)", rve_prop_name(p), gi->ks[p], gi->pvalue[p]);
}

static void json_properties(rve_json *j, const gen_work *g)
{
    rve_json_key(j, "properties");
    rve_json_begin_object(j);
    for (int p = 0; p < RVE_PROP_COUNT; p++) {
        if (!g->m.has[p])
            continue;
        double s1 = 0, s2 = 0;
        for (size_t i = 0; i < g->n; i++) {
            double x = g->vals[RVE_PROP_COUNT * i + p];
            s1 += x;
            s2 += x * x;
        }
        double mean = s1 / g->n, var = s2 / g->n - mean * mean;
        rve_json_key(j, rve_prop_name(p));
        rve_json_begin_object(j);
        if (g->gi.max_dev[p] >= 0) {
            rve_json_kv_number(j, "max_rel_dev", g->gi.max_dev[p]);
        } else {
            rve_json_kv_number(j, "ks", g->gi.ks[p]);
            rve_json_kv_number(j, "ks_pvalue", g->gi.pvalue[p]);
        }
        rve_json_kv_number(j, "target_mean", rve_distrib_mean(&g->m.dist[p]));
        rve_json_kv_number(j, "mean", mean);
        rve_json_kv_number(j, "sd", var > 0 ? sqrt(var) : 0);
        rve_json_end_object(j);
    }
    rve_json_end_object(j);
}

static void report_json(const gen_args *a, const char *out, const gen_work *g)
{
    rve_json j;
    rve_json_init(&j, stdout);
    rve_json_begin_object(&j);
    rve_json_kv_string(&j, "command", "gen");
    rve_json_kv_int(&j, "cells", (long long)g->n);
    rve_json_key(&j, "domain");
    rve_json_begin_array(&j);
    for (int k = 0; k < 3; k++)
        rve_json_number(&j, a->domain[k]);
    rve_json_end_array(&j);
    rve_json_kv_bool(&j, "periodic", a->periodic);
    rve_json_kv_string(&j, "output", out);
    if (a->volumes) {
        double vmax = 0, tsum = 0, dv = a->domain[0] * a->domain[1] * a->domain[2];
        for (size_t i = 0; i < g->n; i++)
            tsum += g->target[i];
        for (size_t i = 0; i < g->n; i++) {
            double e = fabs(g->vol[i] - g->target[i] * dv / tsum) / (g->target[i] * dv / tsum);
            if (e > vmax)
                vmax = e;
        }
        rve_json_kv_string(&j, "volumes", a->volumes);
        rve_json_kv_number(&j, "max_rel_volume_error", vmax);
        rve_json_kv_int(&j, "newton_iterations", g->pi.iterations);
        rve_json_kv_int(&j, "tessellations", g->pi.tess_calls);
        rve_json_kv_number(&j, "seconds", g->pi.seconds);
    } else {
        const rve_gen_info *gi = &g->gi;
        rve_json_kv_string(&j, "morpho", a->morpho);
        rve_json_kv_int(&j, "iterations", gi->iterations);
        rve_json_kv_int(&j, "tessellations", gi->tess_calls);
        rve_json_kv_int(&j, "moves", gi->moves);
        rve_json_kv_int(&j, "moves_accepted", gi->moves_accepted);
        rve_json_kv_number(&j, "size_corr", a->sizecorr);
        rve_json_kv_number(&j, "neighbour_size_correlation", gi->nb_size_corr);
        rve_json_kv_number(&j, "objective", gi->objective);
        rve_json_kv_number(&j, "max_rel_volume_error", gi->max_vol_err);
        rve_json_kv_number(&j, "seconds", gi->seconds);
        json_properties(&j, g);
    }
    rve_json_end_object(&j);
}

/* One RVE from the random seed `seed` into out (and valfile, plotfile). */
static rve_status gen_one(const gen_args *a, const cli_common *com, unsigned long seed, const char *out,
                          const char *valfile, const char *plotfile, int json, rve_err *err)
{
    gen_work g;
    memset(&g, 0, sizeof g);
    rve_status st = step_targets(a, com, &g, err);
    if (st == RVE_OK)
        st = step_alloc(&g, err);
    if (st == RVE_OK)
        st = a->morpho ? step_morpho(a, com, seed, &g, err) : step_volumes(a, com, seed, &g, err);
    if (st == RVE_OK)
        st = step_output(a, seed, out, valfile, plotfile, &g, err);
    if (st == RVE_OK) {
        report_info(a, com, &g);
        if (json)
            report_json(a, out, &g);
    }
    work_free(&g);
    return st;
}

static int fail(const rve_err *err)
{
    if (err->code == RVE_EUSAGE && !err->file[0])
        return cli_usage_error(&cli_cmd_gen, "%s", err->msg);
    return cli_fail(&cli_cmd_gen, err);
}

/* PATH with the RVE number k (1..K, zero-padded to K's digits) before its
 * extension: gg.tess -> gg_07.tess; NULL stays NULL. */
static char *indexed_name(const char *path, long k, long K)
{
    if (!path)
        return NULL;
    int width = snprintf(NULL, 0, "%ld", K);
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
        dot = path + strlen(path);
    size_t n = strlen(path) + (size_t)width + 32;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%.*s_%0*ld%s", (int)(dot - path), path, width, k, dot);
    return s;
}

/* --count K: RVE k (1..K) is the one --seed S+k-1 gives, written to the
 * indexed names; under mpirun rank r makes the RVEs k with (k-1) % P == r.
 * Outputs are committed only when every RVE of every rank succeeded. */
static int ensemble(const gen_args *a, const cli_common *com)
{
    int rank = cli_mpi_rank(), size = cli_mpi_size();
    rve_err err;
    rve_err_clear(&err);
    rve_status st = RVE_OK;
    long mine = 0;
    double t0 = rve_now();
    for (long k = 1 + rank; st == RVE_OK && k <= a->count; k += size) {
        char *o = indexed_name(a->out, k, a->count), *v = indexed_name(a->valfile, k, a->count);
        char *p = indexed_name(a->plotfile, k, a->count);
        if (!o || (a->valfile && !v) || (a->plotfile && !p))
            st = rve_err_set(&err, RVE_ENOMEM, "", "out of memory");
        else
            st = gen_one(a, com, (unsigned long)a->seed + (unsigned long)(k - 1), o, v, p, 0, &err);
        if (st == RVE_OK)
            cli_info(com, "rve gen: RVE %ld of %ld (seed %ld) -> %s", k, a->count, a->seed + k - 1, o);
        free(o), free(v), free(p);
        mine++;
    }
#ifdef RVE_HAVE_MPI
    if (cli_mpi_running())
        st = rve_mpi_agree(MPI_COMM_WORLD, st, &err);
#endif
    if (st != RVE_OK)
        return fail(&err);
    rve_json j;
    rve_json_init(&j, stdout);
    if (com->json && rank == 0) {
        rve_json_begin_object(&j);
        rve_json_kv_string(&j, "command", "gen");
        rve_json_kv_int(&j, "count", a->count);
        rve_json_kv_int(&j, "ranks", size);
        rve_json_kv_int(&j, "first_seed", a->seed);
        rve_json_kv_number(&j, "seconds", rve_now() - t0);
    }
#ifdef RVE_HAVE_MPI
    if (com->json && cli_mpi_running())
        cli_mpi_json_ranks(&j);
#endif
    if (com->json && rank == 0)
        rve_json_end_object(&j);
    return 0;
}

#ifdef RVE_HAVE_MPI
/* --volumes -o CELLS.h5 under mpirun: the targets and initial seeds as in
 * the serial path (every rank the same), the solve distributed. */
static int gen_volumes_mpi(const gen_args *a, const cli_common *com)
{
    rve_err err;
    rve_err_clear(&err);
    gen_work g;
    memset(&g, 0, sizeof g);
    rve_status st = step_targets(a, com, &g, &err);
    if (st == RVE_OK)
        st = step_alloc(&g, &err);
    if (st == RVE_OK)
        st = step_initial_seeds(a, (unsigned long)a->seed, &g, &err);
    st = rve_mpi_agree(MPI_COMM_WORLD, st, &err);
    int rc = st == RVE_OK ? cli_mpi_gen_volumes(&cli_cmd_gen, com, g.n, g.seeds, g.w, g.target, a->domain, a->tol,
                                                a->lloyd, a->out)
                          : fail(&err);
    work_free(&g);
    return rc;
}
#endif

static int run(int argc, char **argv)
{
    cli_common com;
    cli_common_init(&com);
    gen_args a;
    int rc = parse_args(argc, argv, &a, &com);
    if (rc >= 0)
        return rc;
    cli_common_apply(&com);
    if (a.count)
        return ensemble(&a, &com);
    rve_err err;
    rve_err_clear(&err);
#ifdef RVE_HAVE_MPI
    if (cli_mpi_running() && a.volumes && rve_path_has_ext(a.out, ".h5"))
        return gen_volumes_mpi(&a, &com);
#endif
    if (gen_one(&a, &com, (unsigned long)a.seed, a.out, a.valfile, a.plotfile, com.json, &err) != RVE_OK)
        return fail(&err);
    return 0;
}
