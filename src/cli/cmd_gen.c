/* rve gen - generate a tessellation with target grain size and shape
 * distributions, or cells of prescribed volumes (issue #9). */
#include "config.h"
#include "cli/cli.h"
#include "cli/plot.h"
#include <rve/optim.h>
#include <rve/tess.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_gen = {
    "gen", "generate a tessellation with target grain size and shape distributions",
    "Usage: rve gen -n N --domain LX,LY,LZ --morpho SPEC -o OUT.tess [options]\n"
    "       rve gen --volumes FILE --domain LX,LY,LZ [--seeds FILE] -o OUT.tess [options]\n"
    "Generate a Laguerre tessellation of the box [0,LX]x[0,LY]x[0,LZ] whose cells follow\n"
    "target distributions of size and shape, or whose cells have prescribed volumes.\n"
    "\n"
    "Morphology (--morpho SPEC): comma-separated PROPERTY:DISTRIBUTION items, or the\n"
    "preset 'gg' = diameq:lognormal(1,0.35),1-sphericity:lognormal(0.145,0.03).\n"
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
    "  -m, --morpho SPEC      target distributions (see above)\n"
    "      --volumes FILE     prescribed volumes, one positive number per line (relative:\n"
    "                         they are scaled to fill the domain); the cell count is the\n"
    "                         line count\n"
    "      --seeds FILE       seeds 'x y z [w]' per line for --volumes (default: random;\n"
    "                         w is the initial weight)\n"
    "      --lloyd K          with --volumes: K Lloyd steps (seeds to centroids, volumes\n"
    "                         re-solved) for rounder, more regular cells [0]\n"
    "      --tol T            maximum relative volume error [1e-3]\n"
    "      --max-iter K       shape-optimisation cap: Lloyd steps + sweeps of N trial\n"
    "                         moves [200] (it stops earlier once converged)\n"
    "      --size-corr L      correlation length of the cell sizes, in mean cell sizes:\n"
    "                         neighbours more alike in size, rounder cells [0: none]\n"
    "      --time-limit SEC   stop the shape optimisation after SEC seconds [none]\n"
    "      --seed S           random seed [1]\n"
    "      --ori SPEC         per-cell crystal orientations in the .tess (as rve tess:\n"
    "                         random, cube, goss, brass, copper, s[:SPREAD deg]; --seed)\n"
    "      --crysym NAME      crystal symmetry of --ori [cubic]\n"
    "  -o, --output FILE      output tessellation (.tess, or .vtk)\n"
    "      --values FILE      per-cell table: id x y z w volume diameq sphericity\n"
    "      --plot FILE.png    target vs achieved cumulative distributions\n"
    "  -q, --quiet / -v, --verbose / -j, --threads N / --json (summary on stdout) / -h, --help\n"
    "\n"
    "Example:\n"
    "  rve gen -n 1000 --domain 1,1,1 --morpho gg -o gg.tess --plot gg.png --json\n"
    "  rve gen --volumes vols.txt --domain 10,10,10 --periodic --lloyd 10 -o cells.tess\n",
    run,
};

enum { OPT_PERIODIC = CLI_OPT_FIRST, OPT_VOLUMES, OPT_SEEDS, OPT_TOL, OPT_MAXIT, OPT_TLIM, OPT_SEED, OPT_VALUES,
       OPT_PLOT, OPT_LLOYD, OPT_SIZECORR, OPT_ORI, OPT_CRYSYM };

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
    rve_progress bar;
} prog_ctx;

static void on_progress(void *ctx, int it, int max_iter, double f)
{
    prog_ctx *pc = ctx;
    char extra[64];
    snprintf(extra, sizeof extra, "objective %.4g", f);
    (void)max_iter;
    rve_progress_update(&pc->bar, it, extra);
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

static int run(int argc, char **argv)
{
    cli_common com;
    cli_common_init(&com);
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
        {NULL, 0, NULL, 0},
    };
    const char *morpho = NULL, *out = NULL, *volumes = NULL, *seedfile = NULL, *valfile = NULL, *plotfile = NULL;
    const char *ori = NULL, *crysym = NULL;
    long ncells = 0, maxit = 200, seed = 1, lloyd = 0;
    double domain[3] = {1, 1, 1}, tol = 1e-3, tlim = 0, sizecorr = 0;
    int periodic = 0, opt;
    cli_getopt_reset();
    while ((opt = getopt_long(argc, argv, "n:d:m:o:" CLI_COMMON_SHORT, longs, NULL)) != -1) {
        int r = cli_common_option(&com, &cli_cmd_gen, opt, optarg);
        if (r == 2)
            return 0;
        if (r < 0)
            return 2;
        if (r == 1)
            continue;
        switch (opt) {
        case 'n':
            if (rve_parse_int_range(optarg, 1, 100000000, &ncells) != RVE_OK)
                return cli_usage_error(&cli_cmd_gen, "-n: expected a positive cell count, got '%s'", optarg);
            break;
        case 'd':
            if (rve_parse_triplet(optarg, domain, 1) != RVE_OK || !(domain[0] > 0 && domain[1] > 0 && domain[2] > 0))
                return cli_usage_error(&cli_cmd_gen, "--domain: expected LX,LY,LZ > 0, got '%s'", optarg);
            break;
        case 'm': morpho = optarg; break;
        case 'o': out = optarg; break;
        case OPT_PERIODIC: periodic = 1; break;
        case OPT_VOLUMES: volumes = optarg; break;
        case OPT_SEEDS: seedfile = optarg; break;
        case OPT_VALUES: valfile = optarg; break;
        case OPT_PLOT: plotfile = optarg; break;
        case OPT_ORI: ori = optarg; break;
        case OPT_CRYSYM: crysym = optarg; break;
        case OPT_LLOYD:
            if (rve_parse_int_range(optarg, 0, 1000000, &lloyd) != RVE_OK)
                return cli_usage_error(&cli_cmd_gen, "--lloyd: expected a count >= 0, got '%s'", optarg);
            break;
        case OPT_TOL:
            if (rve_parse_double(optarg, &tol) != RVE_OK || !(tol > 0 && tol < 1))
                return cli_usage_error(&cli_cmd_gen, "--tol: expected a number in (0, 1), got '%s'", optarg);
            break;
        case OPT_MAXIT:
            if (rve_parse_int_range(optarg, 0, 100000000, &maxit) != RVE_OK)
                return cli_usage_error(&cli_cmd_gen, "--max-iter: expected a count >= 0, got '%s'", optarg);
            break;
        case OPT_SIZECORR:
            if (rve_parse_double(optarg, &sizecorr) != RVE_OK || !(sizecorr >= 0 && sizecorr <= 1e6))
                return cli_usage_error(&cli_cmd_gen, "--size-corr: expected a length >= 0, got '%s'", optarg);
            break;
        case OPT_TLIM:
            if (rve_parse_double(optarg, &tlim) != RVE_OK || tlim < 0)
                return cli_usage_error(&cli_cmd_gen, "--time-limit: expected seconds >= 0, got '%s'", optarg);
            break;
        case OPT_SEED:
            if (rve_parse_int_range(optarg, 0, 2147483647L, &seed) != RVE_OK)
                return cli_usage_error(&cli_cmd_gen, "--seed: expected an integer >= 0, got '%s'", optarg);
            break;
        default: return cli_bad_option(&cli_cmd_gen, argc, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error(&cli_cmd_gen, "unexpected argument '%s'", argv[optind]);
    if (!out)
        return cli_usage_error(&cli_cmd_gen, "missing -o OUT.tess");
    if (!morpho == !volumes)
        return cli_usage_error(&cli_cmd_gen, "give exactly one of --morpho and --volumes");
    if (morpho && ncells <= 0)
        return cli_usage_error(&cli_cmd_gen, "--morpho needs -n N");
    if (seedfile && !volumes)
        return cli_usage_error(&cli_cmd_gen, "--seeds goes with --volumes");
    if (crysym && !ori)
        return cli_usage_error(&cli_cmd_gen, "--crysym goes with --ori");
    if (ori && rve_path_has_ext(out, ".vtk"))
        return cli_usage_error(&cli_cmd_gen, "--ori: orientations go to a .tess output");
    if (lloyd && !volumes)
        return cli_usage_error(&cli_cmd_gen, "--lloyd goes with --volumes");
    if (sizecorr > 0 && !morpho)
        return cli_usage_error(&cli_cmd_gen, "--size-corr goes with --morpho");
    if (plotfile && !morpho)
        return cli_usage_error(&cli_cmd_gen, "--plot needs --morpho");
    {
        const char *ins[2] = {volumes, seedfile}, *outs[3] = {out, valfile, plotfile};
        if (cli_check_paths(&cli_cmd_gen, ins, 2, outs, 3))
            return 2;
    }
    cli_common_apply(&com);

    rve_err err;
    rve_err_clear(&err);
    rve_morpho m;
    memset(&m, 0, sizeof m);
    double *seeds = NULL, *w = NULL, *vals = NULL, *target = NULL, *vol = NULL, *deq = NULL, *sph = NULL, *s4 = NULL;
    rve_tess *t = NULL;
    int rc = 0;
    size_t n = 0;
    rve_gen_info gi;
    rve_pvol_info pi;
    memset(&gi, 0, sizeof gi);
    memset(&pi, 0, sizeof pi);
    rve_status st;
    if (morpho) {
        st = rve_morpho_parse(morpho, &m, &err);
        if (st != RVE_OK) {
            rc = cli_fail(&cli_cmd_gen, &err);
            goto done;
        }
        /* a sphericity above 1 (a sphere) is out of reach of any cell: a
         * target mostly there cannot be approached, only reported as missed */
        double above = m.has[RVE_PROP_SPHERICITY] ? 1 - rve_distrib_cdf(&m.dist[RVE_PROP_SPHERICITY], 1)
                       : m.has[RVE_PROP_1MSPHERICITY] ? rve_distrib_cdf(&m.dist[RVE_PROP_1MSPHERICITY], 0)
                                                      : 0;
        if (above > 0.5) {
            rc = cli_usage_error(&cli_cmd_gen, "--morpho %s: %.0f %% of the target sphericities are above 1, "
                                 "which no cell reaches (a sphere has 1; Voronoi cells stay below about 0.92)",
                                 morpho, 100 * above);
            goto done;
        }
        if (above > 0.01)
            cli_info(&com, "rve gen: warning: %.1f %% of the target sphericities are above 1 (unreachable)",
                     100 * above);
        n = (size_t)ncells;
    } else {
        st = read_volumes(volumes, &target, &n, &err);
        if (st != RVE_OK) {
            rc = cli_fail(&cli_cmd_gen, &err);
            goto done;
        }
        if (ncells > 0 && (size_t)ncells != n) {
            rc = cli_usage_error(&cli_cmd_gen, "-n %ld but %s has %zu volumes", ncells, volumes, n);
            goto done;
        }
    }
    seeds = malloc(3 * n * sizeof *seeds);
    w = calloc(n, sizeof *w);
    vals = malloc(RVE_PROP_COUNT * n * sizeof *vals);
    vol = malloc(n * sizeof *vol);
    deq = malloc(n * sizeof *deq);
    sph = malloc(n * sizeof *sph);
    s4 = malloc(4 * n * sizeof *s4);
    if (!seeds || !w || !vals || !vol || !deq || !sph || !s4) {
        rve_err_set(&err, RVE_ENOMEM, "", "out of memory (%zu cells)", n);
        rc = cli_fail(&cli_cmd_gen, &err);
        goto done;
    }
    if (morpho) {
        rve_gen_params gp;
        rve_gen_params_default(&gp);
        gp.n = n;
        memcpy(gp.domain, domain, sizeof gp.domain);
        gp.periodic = periodic;
        gp.seed = (unsigned long)seed;
        gp.max_iter = (int)maxit;
        gp.time_limit = tlim;
        gp.size_corr = sizecorr;
        gp.tol = tol;
        prog_ctx pc;
        rve_progress_start(&pc.bar, "gen", (double)maxit, com.verbosity);
        gp.progress = on_progress;
        gp.progress_ctx = &pc;
        st = rve_gen(&m, &gp, seeds, w, vals, &gi, &err);
        rve_progress_finish(&pc.bar);
        if (st != RVE_OK) {
            rc = cli_fail(&cli_cmd_gen, &err);
            goto done;
        }
    } else {
        if (seedfile) {
            double *sf = NULL;
            int ns = 0;
            st = rve_tess_read_seeds(seedfile, &sf, &ns, &err);
            if (st != RVE_OK) {
                rc = cli_fail(&cli_cmd_gen, &err);
                goto done;
            }
            if ((size_t)ns != n) {
                free(sf);
                rve_err_set(&err, RVE_EDATA, seedfile, "%d seeds but %zu volumes in %s", ns, n, volumes);
                rc = cli_fail(&cli_cmd_gen, &err);
                goto done;
            }
            for (size_t i = 0; i < n; i++) {
                for (int a = 0; a < 3; a++) {
                    double x = sf[4 * i + a];
                    if (periodic) {
                        x = fmod(x, domain[a]);
                        if (x < 0)
                            x += domain[a];
                    } else if (!(x >= 0 && x <= domain[a])) {
                        free(sf);
                        rve_err_set(&err, RVE_EDATA, seedfile, "seed %zu lies outside the domain", i + 1);
                        rc = cli_fail(&cli_cmd_gen, &err);
                        goto done;
                    }
                    seeds[3 * i + a] = x;
                }
                w[i] = sf[4 * i + 3];
                if (!(w[i] >= 0))
                    w[i] = 0;
            }
            free(sf);
        } else {
            /* random seeds (splitmix64 stream from --seed) */
            unsigned long long z = (unsigned long long)seed * 0x9E3779B97F4A7C15ULL + 12345;
            for (size_t i = 0; i < 3 * n; i++) {
                z += 0x9E3779B97F4A7C15ULL;
                unsigned long long q = z;
                q = (q ^ (q >> 30)) * 0xBF58476D1CE4E5B9ULL;
                q = (q ^ (q >> 27)) * 0x94D049BB133111EBULL;
                q ^= q >> 31;
                seeds[i] = ((q >> 11) + 0.5) * (1.0 / 9007199254740992.0) * domain[i % 3];
            }
        }
        rve_pvol_params pp;
        rve_pvol_params_default(&pp);
        pp.tol = tol;
        st = rve_pvol_solve(n, seeds, domain, periodic, target, w, &pp, &pi, &err);
        if (st != RVE_OK) {
            rc = cli_fail(&cli_cmd_gen, &err);
            goto done;
        }
        double secs = pi.seconds;
        int its = pi.iterations;
        rve_progress bar;
        rve_progress_start(&bar, "lloyd", (double)lloyd, com.verbosity);
        for (long k = 0; k < lloyd; k++) { /* Lloyd: seeds to centroids, volumes re-solved */
            rve_tess *tl = NULL;
            rve_tess_opts o;
            rve_tess_opts_default(&o);
            o.topology = 0;
            o.keep_container = 0;
            double lo[3] = {0, 0, 0};
            int per[3] = {periodic, periodic, periodic};
            for (size_t i = 0; i < n; i++) {
                s4[4 * i] = seeds[3 * i];
                s4[4 * i + 1] = seeds[3 * i + 1];
                s4[4 * i + 2] = seeds[3 * i + 2];
                s4[4 * i + 3] = w[i];
            }
            st = rve_tess_build(s4, (int)n, lo, domain, per, &o, &tl, &err);
            if (st != RVE_OK) {
                rve_progress_finish(&bar);
                rc = cli_fail(&cli_cmd_gen, &err);
                goto done;
            }
            for (size_t i = 0; i < n; i++)
                for (int a = 0; a < 3; a++) {
                    double x = tl->cells[i].vol > 0 ? tl->cells[i].centroid[a] : seeds[3 * i + a];
                    if (periodic) {
                        x = fmod(x, domain[a]);
                        if (x < 0)
                            x += domain[a];
                    }
                    seeds[3 * i + a] = x;
                }
            rve_tess_free(tl);
            st = rve_pvol_solve(n, seeds, domain, periodic, target, w, &pp, &pi, &err);
            if (st != RVE_OK) {
                rve_progress_finish(&bar);
                rc = cli_fail(&cli_cmd_gen, &err);
                goto done;
            }
            secs += pi.seconds;
            its += pi.iterations;
            rve_progress_update(&bar, (double)(k + 1), NULL);
        }
        rve_progress_finish(&bar);
        pi.seconds = secs;
        pi.iterations = its;
    }
    /* final tessellation, per-cell values and output */
    for (size_t i = 0; i < n; i++) {
        s4[4 * i] = seeds[3 * i];
        s4[4 * i + 1] = seeds[3 * i + 1];
        s4[4 * i + 2] = seeds[3 * i + 2];
        s4[4 * i + 3] = w[i];
    }
    {
        rve_tess_opts o;
        rve_tess_opts_default(&o);
        o.keep_container = 0;
        double lo[3] = {0, 0, 0};
        int per[3] = {periodic, periodic, periodic};
        st = rve_tess_build(s4, (int)n, lo, domain, per, &o, &t, &err);
        if (st != RVE_OK) {
            rc = cli_fail(&cli_cmd_gen, &err);
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            vol[i] = t->cells[i].vol;
            deq[i] = rve_tess_cell_eqd(t, (int)i);
            sph[i] = rve_tess_cell_sphericity(t, (int)i);
        }
        if (ori)
            st = rve_tess_set_ori_texture(t, ori, crysym ? crysym : "cubic", (uint64_t)seed, &err);
        if (st == RVE_OK && rve_path_has_ext(out, ".vtk"))
            st = rve_tess_write_vtk(t, out, NULL, &err);
        else if (st == RVE_OK)
            st = rve_tess_write_tess(t, out, NULL, &err);
        if (st != RVE_OK) {
            rc = cli_fail(&cli_cmd_gen, &err);
            goto done;
        }
    }
    if (valfile && (st = write_values(valfile, n, seeds, w, vol, deq, sph, &err)) != RVE_OK) {
        rc = cli_fail(&cli_cmd_gen, &err);
        goto done;
    }
    if (plotfile && (st = cli_gen_plot_png(plotfile, &m, n, vals, &err)) != RVE_OK) {
        rc = cli_fail(&cli_cmd_gen, &err);
        goto done;
    }
    if (morpho) {
        cli_info(&com, "rve gen: %zu cells in %.2f s (%d shape iterations, %d tessellations, %ld moves, %ld kept)", n,
                 gi.seconds, gi.iterations, gi.tess_calls, gi.moves, gi.moves_accepted);
        cli_info(&com, "  neighbour log-volume correlation %.3f", gi.nb_size_corr);
        for (int p = 0; p < RVE_PROP_COUNT; p++)
            if (m.has[p] && gi.max_dev[p] >= 0)
                cli_info(&com, "  %-12s constant %g: largest relative deviation %.3g", rve_prop_name(p),
                         m.dist[p].p1, gi.max_dev[p]);
            else if (m.has[p])
                cli_info(&com, "  %-12s KS distance %.4f (p-value %.3g)", rve_prop_name(p), gi.ks[p], gi.pvalue[p]);
    } else
        cli_info(&com, "rve gen: %zu cells, max relative volume error %.3g after %d Newton iterations in %.2f s", n,
                 pi.max_rel_err, pi.iterations, pi.seconds);
    if (com.json) {
        rve_json j;
        rve_json_init(&j, stdout);
        rve_json_begin_object(&j);
        rve_json_kv_string(&j, "command", "gen");
        rve_json_kv_int(&j, "cells", (long long)n);
        rve_json_key(&j, "domain");
        rve_json_begin_array(&j);
        for (int a = 0; a < 3; a++)
            rve_json_number(&j, domain[a]);
        rve_json_end_array(&j);
        rve_json_kv_bool(&j, "periodic", periodic);
        rve_json_kv_string(&j, "output", out);
        double vmax = 0, tsum = 0, dv = domain[0] * domain[1] * domain[2];
        if (volumes) {
            for (size_t i = 0; i < n; i++)
                tsum += target[i];
            for (size_t i = 0; i < n; i++) {
                double e = fabs(vol[i] - target[i] * dv / tsum) / (target[i] * dv / tsum);
                if (e > vmax)
                    vmax = e;
            }
            rve_json_kv_string(&j, "volumes", volumes);
            rve_json_kv_number(&j, "max_rel_volume_error", vmax);
            rve_json_kv_int(&j, "newton_iterations", pi.iterations);
            rve_json_kv_int(&j, "tessellations", pi.tess_calls);
            rve_json_kv_number(&j, "seconds", pi.seconds);
        } else {
            rve_json_kv_string(&j, "morpho", morpho);
            rve_json_kv_int(&j, "iterations", gi.iterations);
            rve_json_kv_int(&j, "tessellations", gi.tess_calls);
            rve_json_kv_int(&j, "moves", gi.moves);
            rve_json_kv_int(&j, "moves_accepted", gi.moves_accepted);
            rve_json_kv_number(&j, "size_corr", sizecorr);
            rve_json_kv_number(&j, "neighbour_size_correlation", gi.nb_size_corr);
            rve_json_kv_number(&j, "objective", gi.objective);
            rve_json_kv_number(&j, "max_rel_volume_error", gi.max_vol_err);
            rve_json_kv_number(&j, "seconds", gi.seconds);
            rve_json_key(&j, "properties");
            rve_json_begin_object(&j);
            for (int p = 0; p < RVE_PROP_COUNT; p++) {
                if (!m.has[p])
                    continue;
                double s1 = 0, s2 = 0;
                for (size_t i = 0; i < n; i++) {
                    double x = vals[RVE_PROP_COUNT * i + p];
                    s1 += x;
                    s2 += x * x;
                }
                double mean = s1 / n, var = s2 / n - mean * mean;
                rve_json_key(&j, rve_prop_name(p));
                rve_json_begin_object(&j);
                if (gi.max_dev[p] >= 0) {
                    rve_json_kv_number(&j, "max_rel_dev", gi.max_dev[p]);
                } else {
                    rve_json_kv_number(&j, "ks", gi.ks[p]);
                    rve_json_kv_number(&j, "ks_pvalue", gi.pvalue[p]);
                }
                rve_json_kv_number(&j, "target_mean", rve_distrib_mean(&m.dist[p]));
                rve_json_kv_number(&j, "mean", mean);
                rve_json_kv_number(&j, "sd", var > 0 ? sqrt(var) : 0);
                rve_json_end_object(&j);
            }
            rve_json_end_object(&j);
        }
        rve_json_end_object(&j);
    }
done:
    rve_tess_free(t);
    rve_morpho_free(&m);
    free(seeds);
    free(w);
    free(vals);
    free(target);
    free(vol);
    free(deq);
    free(sph);
    free(s4);
    return rc;
}
