/* rve convert - convert grain maps between TIFF, .tesr and raw (issue #5). */
#include "config.h"
#include "cli/cli_map.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_convert = {
    "convert", "convert grain maps between TIFF, .tesr and raw",
    "Usage: rve convert [OPTIONS] IN OUT\n"
    "       rve convert --synth [SYNTH OPTIONS] OUT\n"
    "Convert a grain map between formats, chosen by extension: .tif/.tiff\n"
    "(multi-page, one page per z slice), .tesr (Neper raster, format 2.1),\n"
    ".raw (bare array, x fastest). Labels, voxel size and origin are kept\n"
    "(TIFF: resolution tags and an ImageJ-style description; .tesr: exactly).\n"
    "Optional clean-up steps run in this order: crop, keep-largest,\n"
    "remove-small, renumber.\n"
    "\n"
    "Output options:\n"
    "      --bytes N         1, 2 or 4 bytes per label (default: smallest that fits;\n"
    "                        .tesr binary16 holds labels up to 32767, as Neper reads)\n"
    "      --ascii           .tesr: ascii data\n"
    "      --big-endian      .tesr/.raw: big-endian binary data\n"
    "      --no-compress     TIFF: no compression (default: deflate + predictor)\n"
    "      --external        .tesr: data in OUT.raw (*file)\n"
    "Clean-up:\n"
    "      --crop X0,Y0,Z0,NX,NY,NZ  keep this box of voxels (origin follows)\n"
    "      --keep-largest    keep the largest 6-connected part of each grain\n"
    "      --remove-small N  grains under N voxels become void (or, with\n"
    "                        --absorb, are absorbed by their neighbours)\n"
    "      --absorb\n"
    "      --renumber        labels 1..N in increasing order (original ids kept\n"
    "                        in .tesr *id)\n"
    CLI_MAP_HELP
    "Synthetic DCT-like map (--synth, no IN): a Laguerre tessellation raster\n"
    "(random seeds, log-normal radii) evolved by Monte Carlo Potts grain growth,\n"
    "then unindexed voxels along some boundaries and the side surface, and noise:\n"
    "      --size NX,NY,NZ   grid (100,100,100)\n"
    "      --seeds N         Laguerre seeds before growth (450)\n"
    "      --mcs N           Potts Monte Carlo steps (60)\n"
    "      --temperature T   Potts kT in bond energies (0.6)\n"
    "      --gb-void F       fraction of boundaries with an unindexed layer (0.08)\n"
    "      --surf-void F     fraction of the side surface unindexed (0.3)\n"
    "      --noise F         fraction of noise voxels (5e-5)\n"
    "      --seed S          random seed (1)\n"
    "  An HDF5 OUT (.dream3d, .h5) also gets a random orientation per grain\n"
    "  (uniform, cubic, phase 1; the same seed), as data/dct/dct.dream3d.\n"
    "  -q, -v, -j N, -h      quiet, verbose, threads, help\n"
    "\n"
    "Examples:\n"
    "  rve convert data/dct/dct.tif dct.tesr\n"
    "  rve convert scan.raw scan.tif --dims 256,256,100 --in-bytes 2 --voxel-size 1.4\n"
    "  rve convert --synth --size 200,200,200 --seeds 2500 big.tif\n",
    run,
};

enum {
    OPT_BYTES = CLI_OPT_FIRST, OPT_ASCII, OPT_BIG, OPT_NOCOMP, OPT_EXTERNAL, OPT_CROP, OPT_KEEP,
    OPT_SMALL, OPT_ABSORB, OPT_RENUMBER, OPT_SYNTH, OPT_SIZE, OPT_SEEDS, OPT_MCS, OPT_TEMP,
    OPT_GBV, OPT_SURFV, OPT_NOISE, OPT_SEED
};

static int parse_frac(const cli_command *cmd, const char *name, const char *arg, double *v)
{
    if (rve_parse_double(arg, v) != RVE_OK || *v < 0 || *v > 1) {
        cli_usage_error(cmd, "%s: expected a number in [0, 1], got '%s'", name, arg);
        return 0;
    }
    return 1;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        CLI_MAP_LONG,
        {"bytes", required_argument, NULL, OPT_BYTES},
        {"ascii", no_argument, NULL, OPT_ASCII},
        {"big-endian", no_argument, NULL, OPT_BIG},
        {"no-compress", no_argument, NULL, OPT_NOCOMP},
        {"external", no_argument, NULL, OPT_EXTERNAL},
        {"crop", required_argument, NULL, OPT_CROP},
        {"keep-largest", no_argument, NULL, OPT_KEEP},
        {"remove-small", required_argument, NULL, OPT_SMALL},
        {"absorb", no_argument, NULL, OPT_ABSORB},
        {"renumber", no_argument, NULL, OPT_RENUMBER},
        {"synth", no_argument, NULL, OPT_SYNTH},
        {"size", required_argument, NULL, OPT_SIZE},
        {"seeds", required_argument, NULL, OPT_SEEDS},
        {"mcs", required_argument, NULL, OPT_MCS},
        {"temperature", required_argument, NULL, OPT_TEMP},
        {"gb-void", required_argument, NULL, OPT_GBV},
        {"surf-void", required_argument, NULL, OPT_SURFV},
        {"noise", required_argument, NULL, OPT_NOISE},
        {"seed", required_argument, NULL, OPT_SEED},
        {NULL, 0, NULL, 0},
    };
    const cli_command *cmd = &cli_cmd_convert;
    cli_common com;
    cli_common_init(&com);
    rve_map_load_opts lo;
    cli_map_opts_init(&lo);
    rve_map_write_opts wo;
    rve_map_write_opts_default(&wo);
    rve_synth_opts so;
    rve_synth_opts_default(&so);
    int crop = 0, keep = 0, absorb = 0, renumber = 0, synth = 0, opt;
    long box[6] = {0}, minsize = 0, x;
    double v[6];
    int n;
    while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT, longopts, NULL)) != -1) {
        int r = cli_common_option(&com, cmd, opt, optarg);
        if (r == 2)
            return 0;
        if (r < 0)
            return 2;
        if (r == 1)
            continue;
        r = cli_map_option(cmd, &lo, opt, optarg);
        if (r < 0)
            return 2;
        if (r == 1)
            continue;
        switch (opt) {
        case OPT_BYTES:
            if (rve_parse_int_range(optarg, 1, 4, &x) != RVE_OK || x == 3)
                return cli_usage_error(cmd, "--bytes: expected 1, 2 or 4, got '%s'", optarg);
            wo.bytes = (int)x;
            break;
        case OPT_ASCII: wo.ascii = 1; break;
        case OPT_BIG: wo.big_endian = 1; break;
        case OPT_NOCOMP: wo.compress = 0; break;
        case OPT_EXTERNAL: wo.external = 1; break;
        case OPT_CROP:
            if (rve_parse_list(optarg, v, 6, &n) != RVE_OK || n != 6)
                return cli_usage_error(cmd, "--crop: expected X0,Y0,Z0,NX,NY,NZ, got '%s'", optarg);
            for (int q = 0; q < 6; q++) {
                if (v[q] != (long)v[q] || v[q] < 0 || v[q] > 2147483647.0 || (q >= 3 && v[q] < 1))
                    return cli_usage_error(cmd, "--crop: expected non-negative integers and positive sizes, got '%s'", optarg);
                box[q] = (long)v[q];
            }
            crop = 1;
            break;
        case OPT_KEEP: keep = 1; break;
        case OPT_SMALL:
            if (rve_parse_long(optarg, &minsize) != RVE_OK || minsize < 0)
                return cli_usage_error(cmd, "--remove-small: expected a voxel count, got '%s'", optarg);
            break;
        case OPT_ABSORB: absorb = 1; break;
        case OPT_RENUMBER: renumber = 1; break;
        case OPT_SYNTH: synth = 1; break;
        case OPT_SIZE:
            if (rve_parse_list(optarg, v, 3, &n) != RVE_OK || n != 3 || v[0] < 1 || v[1] < 1 ||
                v[2] < 1 || v[0] > 4096 || v[1] > 4096 || v[2] > 4096)
                return cli_usage_error(cmd, "--size: expected NX,NY,NZ (1 to 4096), got '%s'", optarg);
            so.nx = (int)v[0], so.ny = (int)v[1], so.nz = (int)v[2];
            break;
        case OPT_SEEDS:
            if (rve_parse_int_range(optarg, 1, 10000000, &x) != RVE_OK)
                return cli_usage_error(cmd, "--seeds: expected 1 to 10^7, got '%s'", optarg);
            so.nseeds = (int)x;
            break;
        case OPT_MCS:
            if (rve_parse_int_range(optarg, 0, 10000, &x) != RVE_OK)
                return cli_usage_error(cmd, "--mcs: expected 0 to 10000, got '%s'", optarg);
            so.mcs = (int)x;
            break;
        case OPT_TEMP:
            if (rve_parse_double(optarg, &so.temperature) != RVE_OK || so.temperature < 0)
                return cli_usage_error(cmd, "--temperature: expected a non-negative number, got '%s'", optarg);
            break;
        case OPT_GBV: if (!parse_frac(cmd, "--gb-void", optarg, &so.gb_void)) return 2; break;
        case OPT_SURFV: if (!parse_frac(cmd, "--surf-void", optarg, &so.surf_void)) return 2; break;
        case OPT_NOISE: if (!parse_frac(cmd, "--noise", optarg, &so.noise)) return 2; break;
        case OPT_SEED:
            if (rve_parse_long(optarg, &x) != RVE_OK || x < 0)
                return cli_usage_error(cmd, "--seed: expected a non-negative integer, got '%s'", optarg);
            so.seed = (uint64_t)x;
            break;
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    int nargs = argc - optind;
    if (nargs != (synth ? 1 : 2))
        return cli_usage_error(cmd, synth ? "--synth: expected one output file, got %d arguments"
                                          : "expected IN and OUT, got %d arguments", nargs);
    const char *in = synth ? NULL : argv[optind], *out = argv[argc - 1];
    if (rve_map_format_from_path(out) == RVE_MAP_AUTO)
        return cli_usage_error(cmd, "%s: unknown output format (expected .tif, .tiff, .tesr or .raw)", out);
    if (cli_check_paths(cmd, &in, 1, &out, 1))
        return 2;
    cli_common_apply(&com);
    rve_err err;
    rve_err_clear(&err);
    rve_map *m = NULL;
    double t0 = rve_now();
    if (synth) {
        if (rve_map_synth_dct(&so, &m, &err) != RVE_OK)
            return cli_fail(cmd, &err);
        for (int a = 0; a < 3; a++) {
            if (lo.set_h)
                m->h[a] = lo.h[a];
            if (lo.set_origin)
                m->origin[a] = lo.origin[a];
        }
        cli_info(&com, "rve convert: synthetic map %dx%dx%d, %u grains in %.1f s", m->nx, m->ny,
                 m->nz, rve_map_ngrains(m), rve_now() - t0);
        if (rve_map_format_from_path(out) == RVE_MAP_HDF5 && /* a crystallographic map */
            rve_map_set_random_ori(m, "cubic", so.seed, &err) != RVE_OK) {
            rve_map_free(m);
            return cli_fail(cmd, &err);
        }
    } else if (rve_map_load(in, &lo, &m, &err) != RVE_OK) {
        return cli_fail(cmd, &err);
    }
    const char *subj = in ? in : out;
    rve_status s = RVE_OK;
    if (crop) {
        rve_map *c;
        s = rve_map_crop(m, (int)box[0], (int)box[1], (int)box[2], (int)box[3], (int)box[4], (int)box[5], &c, &err);
        if (s == RVE_OK) {
            rve_map_free(m);
            m = c;
            rve_map_update_nlabels(m);
        }
    }
    size_t nrem = 0;
    if (s == RVE_OK && keep) {
        s = rve_map_keep_largest_component(m, &nrem, &err);
        if (s == RVE_OK)
            cli_info(&com, "rve convert: %zu voxels outside the largest part of their grain made void", nrem);
    }
    if (s == RVE_OK && minsize > 0) {
        s = rve_map_remove_small(m, (size_t)minsize, absorb, &nrem, &err);
        if (s == RVE_OK)
            cli_info(&com, "rve convert: %zu grain%s under %ld voxels %s", nrem, nrem == 1 ? "" : "s",
                     minsize, absorb ? "absorbed" : "made void");
    }
    if (s == RVE_OK && renumber)
        s = rve_map_renumber(m, &err);
    if (s == RVE_OK)
        rve_map_update_nlabels(m);
    if (s != RVE_OK) {
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", subj);
        rve_map_free(m);
        return cli_fail(cmd, &err);
    }
    if (rve_map_write(m, out, RVE_MAP_AUTO, &wo, &err) != RVE_OK) {
        rve_map_free(m);
        return cli_fail(cmd, &err);
    }
    if (com.json) {
        rve_json j;
        rve_json_init(&j, stdout);
        rve_json_begin_object(&j);
        if (in)
            rve_json_kv_string(&j, "input", in);
        rve_json_kv_string(&j, "output", out);
        rve_json_key(&j, "dims");
        rve_json_begin_array(&j);
        rve_json_int(&j, m->nx), rve_json_int(&j, m->ny), rve_json_int(&j, m->nz);
        rve_json_end_array(&j);
        rve_json_kv_int(&j, "grains", rve_map_ngrains(m));
        rve_json_kv_int(&j, "max_label", m->nlabels);
        rve_json_kv_number(&j, "seconds", rve_now() - t0);
        rve_json_end_object(&j);
        putchar('\n');
    }
    cli_debug(&com, "rve convert: %s written in %.2f s", out, rve_now() - t0);
    rve_map_free(m);
    return 0;
}
