/* rve tess - build a Laguerre/Voronoi tessellation from seeds. */
#include "config.h"
#include "cli/cli.h"
#include <rve/ori.h>
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
    "  -o, --output OUT   output: Neper .tess (format 3.5), or VTK polyhedra when OUT\n"
    "                     ends in .vtk (cell data: id, volume)\n"
    "  --json             print a JSON summary on standard output\n"
    "  -q, --quiet        no messages;  -v, --verbose  more messages\n"
    "  -j, --threads N    thread count (accepted; voro++ runs on one thread)\n"
    "  -h, --help         this help\n"
    "\n"
    "Empty cells (seeds whose cells vanish under the weights) are reported, not fatal.\n"
    "\n"
    "Examples:\n"
    "  rve tess -n 1000 --domain 1,1,1 --seed 7 -o cells.tess\n"
    "  rve tess --seeds seeds.txt --domain 60,80,50 -o cells.vtk\n",
    run,
};

enum { OPT_SEEDS = CLI_OPT_FIRST, OPT_DOMAIN, OPT_PERIODIC, OPT_RNG, OPT_ORI, OPT_CRYSYM };

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
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    cli_common com;
    cli_common_init(&com);
    long n = 0, rng = 1;
    const char *seedfile = NULL, *out = NULL, *ori = NULL, *crysym = NULL;
    double L[3] = {1, 1, 1};
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
            if (!optarg) {
                per[0] = per[1] = per[2] = 1;
            } else {
                if (!*optarg) return cli_usage_error(cmd, "--periodic: expected axes among x, y, z");
                for (const char *p = optarg; *p; p++) {
                    if (*p < 'x' || *p > 'z')
                        return cli_usage_error(cmd, "--periodic: expected axes among x, y, z, got '%s'", optarg);
                    per[*p - 'x'] = 1;
                }
            }
            break;
        case OPT_RNG:
            if (rve_parse_int_range(optarg, 0, 4294967295L, &rng) != RVE_OK)
                return cli_usage_error(cmd, "--seed: expected an integer from 0 to 4294967295, got '%s'", optarg);
            break;
        case OPT_ORI: ori = optarg; break;
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
    if (cli_check_paths(cmd, &seedfile, 1, &out, 1)) return 2;
    cli_common_apply(&com);

    rve_err err;
    rve_err_clear(&err);
    double *seeds = NULL;
    int ns = 0;
    if (seedfile) {
        if (rve_tess_read_seeds(seedfile, &seeds, &ns, &err) != RVE_OK) return cli_fail(cmd, &err);
    } else {
        ns = (int)n;
        seeds = malloc(sizeof(double) * 4 * (size_t)ns);
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        if (!seeds || !r) {
            free(seeds);
            if (r) gsl_rng_free(r);
            rve_err_set(&err, RVE_ENOMEM, "", "out of memory");
            return cli_fail(cmd, &err);
        }
        gsl_rng_set(r, (unsigned long)rng);
        for (int i = 0; i < ns; i++) {
            for (int a = 0; a < 3; a++) seeds[4 * (size_t)i + a] = L[a] * gsl_rng_uniform(r);
            seeds[4 * (size_t)i + 3] = 0;
        }
        gsl_rng_free(r);
    }
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
    if (com.json) {
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
    rve_tess_free(t);
    return 0;
}
