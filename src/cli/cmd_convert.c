/* rve convert - convert grain maps between TIFF, .tesr and raw. */
#include "config.h"
#include "cli/cli_map.h"
#include "cli/vti_out.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_convert = {
    "convert", "convert grain maps between TIFF, .tesr and raw",
    "Usage: rve convert [OPTIONS] IN OUT      (or IN -o OUT)\n"
    "       rve convert --synth [SYNTH OPTIONS] OUT\n"
    "Convert a grain map between formats, chosen by extension: .tif/.tiff\n"
    "(multi-page, one page per z slice), .tesr (Neper raster, format 2.1),\n"
    ".raw (bare array, x fastest). Labels, voxel size and origin are kept\n"
    "(TIFF: resolution tags and an ImageJ-style description; .tesr: exactly).\n"
    "OUT .vti: DAMASK grid solver input, VTK image data with the 0-based cell\n"
    "array `material` plus material.yaml beside it (one material per grain with\n"
    "its orientation and phase; void voxels one more material; docs/formats.md,\n"
    "section DAMASK).\n"
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
    "      --material FILE   .vti: write material.yaml to FILE instead\n"
    "  -o, --output OUT      the output (instead of the last argument)\n"
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
    "  An HDF5 OUT (.dream3d, .h5) or a .vti also gets a random orientation per grain\n"
    "  (uniform, cubic, phase 1; the same seed), as data/dct/dct.dream3d.\n"
    "  -q, -v, -j N, -h      quiet, verbose, threads, help\n"
    "\n"
    "Examples:\n"
    "  rve convert data/dct/dct.tif dct.tesr\n"
    "  rve convert data/dct/dct.dream3d -o grid.vti\n"
    "  rve convert scan.raw scan.tif --dims 256,256,100 --in-bytes 2 --voxel-size 1.4\n"
    "  rve convert --synth --size 200,200,200 --seeds 2500 big.tif\n",
    run,
};

enum {
    OPT_BYTES = CLI_OPT_FIRST, OPT_ASCII, OPT_BIG, OPT_NOCOMP, OPT_EXTERNAL, OPT_CROP, OPT_KEEP,
    OPT_SMALL, OPT_ABSORB, OPT_RENUMBER, OPT_SYNTH, OPT_SIZE, OPT_SEEDS, OPT_MCS, OPT_TEMP,
    OPT_GBV, OPT_SURFV, OPT_NOISE, OPT_SEED, OPT_MATERIAL
};

static int parse_frac(const cli_command *cmd, const char *name, const char *arg, double *v)
{
    if (rve_parse_double(arg, v) != RVE_OK || *v < 0 || *v > 1) {
        cli_usage_error(cmd, "%s: expected a number in [0, 1], got '%s'", name, arg);
        return 0;
    }
    return 1;
}

typedef struct {
    cli_common com;
    rve_map_load_opts lo;
    rve_map_write_opts wo;
    rve_synth_opts so;
    int crop, keep, absorb, renumber, synth;
    long box[6], minsize;
    const char *in, *out, *material;
} convert_args;

/* Options of the output and the clean-up: 1 taken, 0 not one of them, -1
 * usage error (reported). */
static int output_option(const cli_command *cmd, convert_args *a, int opt, const char *arg)
{
    double v[6];
    int n;
    long x;
    switch (opt) {
    case 'o': a->out = arg; return 1;
    case OPT_MATERIAL: a->material = arg; return 1;
    case OPT_BYTES:
        if (rve_parse_int_range(arg, 1, 4, &x) != RVE_OK || x == 3)
            return cli_usage_error(cmd, "--bytes: expected 1, 2 or 4, got '%s'", arg), -1;
        a->wo.bytes = (int)x;
        return 1;
    case OPT_ASCII: a->wo.ascii = 1; return 1;
    case OPT_BIG: a->wo.big_endian = 1; return 1;
    case OPT_NOCOMP: a->wo.compress = 0; return 1;
    case OPT_EXTERNAL: a->wo.external = 1; return 1;
    case OPT_CROP:
        if (rve_parse_list(arg, v, 6, &n) != RVE_OK || n != 6)
            return cli_usage_error(cmd, "--crop: expected X0,Y0,Z0,NX,NY,NZ, got '%s'", arg), -1;
        for (int q = 0; q < 6; q++) {
            if (v[q] != (long)v[q] || v[q] < 0 || v[q] > 2147483647.0 || (q >= 3 && v[q] < 1))
                return cli_usage_error(cmd, "--crop: expected non-negative integers and positive sizes, got '%s'",
                                       arg), -1;
            a->box[q] = (long)v[q];
        }
        a->crop = 1;
        return 1;
    case OPT_KEEP: a->keep = 1; return 1;
    case OPT_SMALL:
        if (rve_parse_long(arg, &a->minsize) != RVE_OK || a->minsize < 0)
            return cli_usage_error(cmd, "--remove-small: expected a voxel count, got '%s'", arg), -1;
        return 1;
    case OPT_ABSORB: a->absorb = 1; return 1;
    case OPT_RENUMBER: a->renumber = 1; return 1;
    default: return 0;
    }
}

/* Options of --synth: 1 taken, 0 not one of them, -1 usage error. */
static int synth_option(const cli_command *cmd, rve_synth_opts *so, int opt, const char *arg)
{
    double v[3];
    int n;
    long x;
    switch (opt) {
    case OPT_SIZE:
        if (rve_parse_list(arg, v, 3, &n) != RVE_OK || n != 3 || v[0] < 1 || v[1] < 1 || v[2] < 1 || v[0] > 4096 ||
            v[1] > 4096 || v[2] > 4096)
            return cli_usage_error(cmd, "--size: expected NX,NY,NZ (1 to 4096), got '%s'", arg), -1;
        so->nx = (int)v[0], so->ny = (int)v[1], so->nz = (int)v[2];
        return 1;
    case OPT_SEEDS:
        if (rve_parse_int_range(arg, 1, 10000000, &x) != RVE_OK)
            return cli_usage_error(cmd, "--seeds: expected 1 to 10^7, got '%s'", arg), -1;
        so->nseeds = (int)x;
        return 1;
    case OPT_MCS:
        if (rve_parse_int_range(arg, 0, 10000, &x) != RVE_OK)
            return cli_usage_error(cmd, "--mcs: expected 0 to 10000, got '%s'", arg), -1;
        so->mcs = (int)x;
        return 1;
    case OPT_TEMP:
        if (rve_parse_double(arg, &so->temperature) != RVE_OK || so->temperature < 0)
            return cli_usage_error(cmd, "--temperature: expected a non-negative number, got '%s'", arg), -1;
        return 1;
    case OPT_GBV: return parse_frac(cmd, "--gb-void", arg, &so->gb_void) ? 1 : -1;
    case OPT_SURFV: return parse_frac(cmd, "--surf-void", arg, &so->surf_void) ? 1 : -1;
    case OPT_NOISE: return parse_frac(cmd, "--noise", arg, &so->noise) ? 1 : -1;
    case OPT_SEED:
        if (rve_parse_long(arg, &x) != RVE_OK || x < 0)
            return cli_usage_error(cmd, "--seed: expected a non-negative integer, got '%s'", arg), -1;
        so->seed = (uint64_t)x;
        return 1;
    default: return 0;
    }
}

/* 0: parsed; -1: help printed (exit 0); otherwise the exit status. */
static int parse_args(int argc, char **argv, convert_args *a)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        CLI_MAP_LONG,
        {"output", required_argument, NULL, 'o'},
        {"material", required_argument, NULL, OPT_MATERIAL},
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
    memset(a, 0, sizeof *a);
    cli_common_init(&a->com);
    cli_map_opts_init(&a->lo);
    rve_map_write_opts_default(&a->wo);
    rve_synth_opts_default(&a->so);
    int opt;
    cli_getopt_reset();
    while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT "o:", longopts, NULL)) != -1) {
        int r = cli_common_option(&a->com, cmd, opt, optarg);
        if (r == 0)
            r = cli_map_option(cmd, &a->lo, opt, optarg);
        if (r == 0)
            r = output_option(cmd, a, opt, optarg);
        if (r == 0)
            r = opt == OPT_SYNTH ? (a->synth = 1) : synth_option(cmd, &a->so, opt, optarg);
        if (r == 2) /* --help printed */
            return -1;
        if (r < 0)
            return 2;
        if (r == 0)
            return cli_bad_option(cmd, argc, argv);
    }
    int nargs = argc - optind, want = (a->synth ? 1 : 2) - (a->out != NULL);
    if (nargs != want)
        return cli_usage_error(cmd, a->synth ? "--synth: expected one output file, got %d arguments"
                                             : "expected IN and OUT, got %d arguments", nargs + (a->out != NULL));
    a->in = a->synth ? NULL : argv[optind];
    if (!a->out)
        a->out = argv[argc - 1];
    if (!cli_path_is_vti(a->out) && rve_map_format_from_path(a->out) == RVE_MAP_AUTO)
        return cli_usage_error(cmd, "%s: unknown output format (expected .tif, .tiff, .tesr, .raw or .vti)", a->out);
    if (a->material && !cli_path_is_vti(a->out))
        return cli_usage_error(cmd, "--material: only for a .vti output");
    return 0;
}

/* The input map, or the synthetic one (with the voxel size and origin given). */
static rve_status load_map(convert_args *a, rve_map **out, rve_err *err)
{
    if (!a->synth)
        return rve_map_load(a->in, &a->lo, out, err);
    double t0 = rve_now();
    rve_map *m = NULL;
    if (rve_map_synth_dct(&a->so, &m, err) != RVE_OK)
        return err->code;
    for (int k = 0; k < 3; k++) {
        if (a->lo.set_h)
            m->h[k] = a->lo.h[k];
        if (a->lo.set_origin)
            m->origin[k] = a->lo.origin[k];
    }
    cli_info(&a->com, "rve convert: synthetic map %dx%dx%d, %u grains in %.1f s", m->nx, m->ny, m->nz,
             rve_map_ngrains(m), rve_now() - t0);
    rve_map_format f = rve_map_format_from_path(a->out);
    if ((f == RVE_MAP_HDF5 || cli_path_is_vti(a->out)) && /* a crystallographic map */
        rve_map_set_random_ori(m, "cubic", a->so.seed, err) != RVE_OK) {
        rve_map_free(m);
        return err->code;
    }
    *out = m;
    return RVE_OK;
}

/* Crop, keep-largest, remove-small, renumber, in this order; *m replaced by the crop. */
static rve_status clean_up(const convert_args *a, rve_map **m, rve_err *err)
{
    rve_status s = RVE_OK;
    if (a->crop) {
        rve_map *c;
        const long *b = a->box;
        s = rve_map_crop(*m, (int)b[0], (int)b[1], (int)b[2], (int)b[3], (int)b[4], (int)b[5], &c, err);
        if (s == RVE_OK) {
            rve_map_free(*m);
            *m = c;
            rve_map_update_nlabels(*m);
        }
    }
    size_t nrem = 0;
    if (s == RVE_OK && a->keep && (s = rve_map_keep_largest_component(*m, &nrem, err)) == RVE_OK)
        cli_info(&a->com, "rve convert: %zu voxels outside the largest part of their grain made void", nrem);
    if (s == RVE_OK && a->minsize > 0 && (s = rve_map_remove_small(*m, (size_t)a->minsize, a->absorb, &nrem, err)) == RVE_OK)
        cli_info(&a->com, "rve convert: %zu grain%s under %ld voxels %s", nrem, nrem == 1 ? "" : "s", a->minsize,
                 a->absorb ? "absorbed" : "made void");
    if (s == RVE_OK && a->renumber)
        s = rve_map_renumber(*m, err);
    if (s == RVE_OK)
        rve_map_update_nlabels(*m);
    return s;
}

static rve_status write_map(const convert_args *a, const rve_map *m, rve_err *err)
{
    if (!cli_path_is_vti(a->out))
        return rve_map_write(m, a->out, RVE_MAP_AUTO, &a->wo, err);
    rve_map_damask_opts o;
    rve_map_damask_opts_init(&o);
    o.material = a->material;
    return rve_map_write_damask(m, a->out, &o, err);
}

static void print_json(const convert_args *a, const rve_map *m, double t0)
{
    rve_json j;
    rve_json_init(&j, stdout);
    rve_json_begin_object(&j);
    if (a->in)
        rve_json_kv_string(&j, "input", a->in);
    rve_json_kv_string(&j, "output", a->out);
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

static int run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_convert;
    convert_args a;
    int r = parse_args(argc, argv, &a);
    if (r)
        return r < 0 ? 0 : r;
    rve_err err;
    rve_err_clear(&err);
    char *yaml = NULL;
    int vti = cli_path_is_vti(a.out);
    if (vti && !a.material && rve_map_damask_yaml_path(a.out, &yaml, &err) != RVE_OK)
        return cli_fail(cmd, &err);
    const char *outs[2] = {a.out, a.material ? a.material : yaml};
    r = cli_check_paths(cmd, &a.in, 1, outs, vti ? 2 : 1);
    free(yaml);
    if (r)
        return 2;
    cli_common_apply(&a.com);
    rve_map *m = NULL;
    double t0 = rve_now();
    if (load_map(&a, &m, &err) != RVE_OK)
        return cli_fail(cmd, &err);
    if (clean_up(&a, &m, &err) != RVE_OK) {
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", a.in ? a.in : a.out);
        rve_map_free(m);
        return cli_fail(cmd, &err);
    }
    if (write_map(&a, m, &err) != RVE_OK) {
        rve_map_free(m);
        return cli_fail(cmd, &err);
    }
    if (a.com.json)
        print_json(&a, m, t0);
    cli_debug(&a.com, "rve convert: %s written in %.2f s", a.out, rve_now() - t0);
    rve_map_free(m);
    return 0;
}
