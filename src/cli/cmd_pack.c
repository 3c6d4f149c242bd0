/* rve pack - pack grains, spheres or superquadrics into a domain. */
#include "config.h"
#include "cli/cli.h"
#include <rve/pack.h>
#include <rve/tess.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_pack = {
    "pack", "pack grains, spheres or superquadrics into a domain",
    "Usage: rve pack --shape sphere|ellipsoid|superquadric|poly --size DIST -n N\n"
    "                [--periodic] [--domain LX,LY,LZ | --fraction F] -o OUT [options]\n"
    "       rve pack --tess FILE.tess [...] -o OUT\n"
    "       rve pack --bodies FILE [...] -o OUT\n"
    "Pack N convex bodies into a box without overlap and compact them.\n"
    "Spheres are compressed with soft-contact relaxation (FIRE) up to jamming;\n"
    "other shapes by hard-particle Monte Carlo with exact GJK non-overlap checks.\n"
    "\n"
    "Bodies:\n"
    "  --shape S         sphere (default), ellipsoid, superquadric, poly\n"
    "  --size DIST       size law: a number or normal(M,SD), lognormal(M,SD),\n"
    "                    weibull(K,LAMBDA), uniform(LO,HI), optional ,from=A,to=B\n"
    "                    (sphere: radius; others: scale of --axes; poly: circumradius)\n"
    "  -n N              number of bodies\n"
    "  --axes A,B,C      semi-axes ratios of ellipsoids/superquadrics (default 1,0.75,0.5)\n"
    "  --exponents N1,N2 superquadric exponents, >= 2 (default 4,4)\n"
    "  --vertices K      vertices of random convex polyhedra (default 20)\n"
    "  --tess FILE       pack the cells of a Neper .tess tessellation (convex\n"
    "                    polyhedra at their own sizes, random orientations)\n"
    "  --grains MAP      pack grains of a voxel map (any format rve reads): each\n"
    "                    grain's voxels as a convex decomposition (non-convex\n"
    "                    compound bodies; convex grains stay one polyhedron), or\n"
    "                    their convex hull with --hull; -n N draws N grains with\n"
    "                    replacement (default: every grain once); random orientations\n"
    "  --hull            convex hulls of the grains instead of decompositions\n"
    "  --decompose-tol T split a part while its hull exceeds its voxel volume by\n"
    "                    more than T (default 0.25)\n"
    "  --decompose-depth D  at most D split levels, 2^D pieces (default 5; 0: no split)\n"
    "  --min-voxels K    leave out grains of fewer voxels (default 27)\n"
    "  --grain-report F  per grain: label, voxels, voxel volume, body volume,\n"
    "                    relative volume error, pieces\n"
    "  --bodies FILE     pack the bodies of FILE instead (shape syntax of `rve dist`:\n"
    "                    sphere/ellipsoid/superquadric/box/poly; poses are ignored)\n"
    "\n"
    "Domain (origin at 0):\n"
    "  --periodic        periodic box (default: walls)\n"
    "  --domain LX,LY,LZ fixed box: compact until the bodies fit (exit 1 if not)\n"
    "  --fraction F      stop at packing fraction F (free box)\n"
    "                    (neither: as dense as possible within --time)\n"
    "  --aspect AX,AY,AZ proportions of a free box (default 1,1,1)\n"
    "\n"
    "Run:\n"
    "  --method M        auto (default: compress for grains of --grains, soft\n"
    "                    otherwise), soft, mc, compress (Monte Carlo at fixed sizes,\n"
    "                    box shrunk by certified factors), lid (deposition under\n"
    "                    gravity along -z in a walled box closed by a lid that comes\n"
    "                    down onto the bodies; not --periodic)\n"
    "  --seed S          random seed (default 1)\n"
    "  --time SECONDS    compaction budget (default 240)\n"
    "  --jam-tol T       compress: jammed when the fraction gains less than T\n"
    "                    (relative) over --jam-window sweeps (default 2e-3; 0: off)\n"
    "  --jam-window N    sweeps of that window (default 400)\n"
    "  --contact-tol T   contact when the gap <= T x mean bounding radius (default 1e-3)\n"
    "\n"
    "Output:\n"
    "  -o OUT            '# domain LX LY LZ periodic|walls', then one body per line\n"
    "                    in the shape syntax of `rve dist` (world coordinates)\n"
    "  --vtk FILE        the body surfaces as VTK polydata (cell data: body id and,\n"
    "                    for compound bodies, piece id)\n"
    "  --contacts FILE   the contacts (gap <= --contact-tol) from the exact kernels:\n"
    "                    '# contacts N tol T', then per contact: i j sx sy sz ia ib\n"
    "                    s nx ny nz px py pz qx qy qz (bodies i, j from 0, image\n"
    "                    shift of j, pieces, gap or -depth, normal i->j, witnesses)\n"
    "  --orientations F  per body: index, grain id, body rotation (quaternion w x y\n"
    "                    z, active, body frame -> world) and, for grains of a map\n"
    "                    or cells of a .tess with orientations, the packed crystal\n"
    "                    orientation (passive, sample -> crystal: quaternion w x y\n"
    "                    z and Bunge ZXZ Euler angles in degrees): the grain's\n"
    "                    orientation composed with the body rotation\n"
    "  --json            summary on stdout: fraction, void ratio, Z, overlaps, timing\n"
    "  -q, -v, -j N      quiet, verbose, threads\n"
    "\n"
    "Example:\n"
    "  rve pack --shape sphere --size 'lognormal(1,0.2)' -n 1000 --periodic -o spheres.txt\n",
    run,
};

enum {
    OPT_SHAPE = CLI_OPT_FIRST,
    OPT_SIZE,
    OPT_AXES,
    OPT_EXPONENTS,
    OPT_VERTICES,
    OPT_BODIES,
    OPT_PERIODIC,
    OPT_DOMAIN,
    OPT_FRACTION,
    OPT_ASPECT,
    OPT_METHOD,
    OPT_SEED,
    OPT_TIME,
    OPT_CTOL,
    OPT_VTK,
    OPT_TESS,
    OPT_GRAINS,
    OPT_HULL,
    OPT_DTOL,
    OPT_MINVOX,
    OPT_GREPORT,
    OPT_DDEPTH,
    OPT_CONTACTS,
    OPT_JAMTOL,
    OPT_JAMWIN,
    OPT_ORI,
};

typedef struct {
    cli_progress bar;
    int started;
} progress_state;

static void on_progress(void *ctx, double fraction, double target, const char *extra)
{
    progress_state *ps = ctx;
    char buf[128];
    snprintf(buf, sizeof buf, "fraction %.4f%s%s", fraction, extra && *extra ? ", " : "", extra ? extra : "");
    if (target > 0 && ps->bar.total <= 0)
        ps->bar.total = target;
    cli_progress_update(&ps->bar, fraction, buf);
}

/* Random convex polyhedron: hull of k points on the unit sphere, scaled. */
static rve_status random_poly(rve_pack_body *b, int k, double size, rve_rng *rng, rve_err *err)
{
    double *p = malloc(sizeof(double) * 3 * (size_t)k);
    if (!p)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int i = 0; i < k; i++) {
        double v[3], n2;
        do {
            for (int a = 0; a < 3; a++)
                v[a] = rve_rng_normal(rng);
            n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        } while (n2 < 1e-12);
        double f = size / sqrt(n2);
        for (int a = 0; a < 3; a++)
            p[3 * i + a] = v[a] * f;
    }
    rve_status st = rve_pack_body_poly(b, k, p, err);
    free(p);
    return st;
}

/* The grains of a map: all of them, or n drawn with replacement. */
static int load_grains(const cli_command *cmd, const cli_common *com, const char *path,
                       const rve_pack_grain_opts *o, long n, const char *report, rve_rng *rng,
                       rve_pack_set **out, double *vvox, rve_err *err)
{
    rve_map *m;
    rve_map_load_opts lo;
    rve_map_load_opts_default(&lo);
    if (rve_map_load(path, &lo, &m, err) != RVE_OK)
        return cli_fail(cmd, err);
    rve_pack_body *g;
    rve_pack_grain_info *info;
    size_t ng;
    rve_status st = rve_pack_grains_from_map(m, o, &g, &info, &ng, err);
    if (st == RVE_OK && ng == 0)
        st = rve_err_set(err, RVE_EDATA, path, "no grain of at least %ld voxels", o->min_voxels);
    if (st == RVE_OK && report) {
        rve_afile *af = rve_afile_open(report, 0, err);
        if (af) {
            FILE *fp = rve_afile_fp(af);
            fprintf(fp, "# id voxels voxel_volume body_volume rel_error pieces\n");
            for (size_t i = 0; i < ng; i++)
                fprintf(fp, "%u %ld %.17g %.17g %.6g %d\n", (unsigned)rve_map_id(m, info[i].label), info[i].voxels,
                        info[i].vvox, info[i].volume, info[i].verr, info[i].pieces);
        }
        st = af ? rve_afile_commit(af, err) : RVE_EIO;
    }
    double emax = 0, emean = 0;
    long pieces = 0;
    for (size_t i = 0; i < ng; i++) {
        emax = fmax(emax, fabs(info[i].verr));
        emean += fabs(info[i].verr) / ng;
        pieces += info[i].pieces;
    }
    if (st == RVE_OK)
        cli_info(com, "rve pack: %zu grains (%s), %ld pieces, volume error |V/Vvox - 1| mean %.3f, max %.3f", ng,
                 o->hull ? "convex hulls" : "decomposed", pieces, emean, emax);
    rve_map_free(m);
    size_t nb = n > 0 ? (size_t)n : ng;
    rve_pack_set *set = st == RVE_OK ? rve_pack_set_alloc(nb) : NULL;
    if (st == RVE_OK && !set)
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    *vvox = 0;
    for (size_t i = 0; i < nb && st == RVE_OK; i++) {
        size_t k = n > 0 ? (size_t)(rve_rng_next(rng) % ng) : i;
        st = rve_pack_body_copy(&set->b[i], &g[k], err);
        *vvox += info[k].vvox;
    }
    free(info);
    for (size_t i = 0; i < ng; i++)
        rve_pack_body_free(&g[i]);
    free(g);
    if (st != RVE_OK) {
        rve_pack_set_free(set);
        return cli_fail(cmd, err);
    }
    *out = set;
    return 0;
}

/* The command line, parsed. */
typedef struct {
    cli_common com;
    const char *shape, *size_s, *bodies_path, *out, *vtk, *contacts, *method_s, *tess_path, *grains_path,
        *greport;
    rve_pack_grain_opts gopt;
    long n, nvert, seed;
    double axes[3], expo[2], domain[3], aspect[3];
    const char *orifile;
    long jam_window;
    double fraction, tbudget, ctol, jam_tol;
    int periodic, have_domain;
    rve_pack_method method;
} pack_args;

static void args_init(pack_args *a)
{
    memset(a, 0, sizeof *a);
    cli_common_init(&a->com);
    a->shape = "sphere";
    a->method_s = "auto";
    rve_pack_grain_opts_init(&a->gopt);
    a->n = -1;
    a->nvert = 20;
    a->seed = 1;
    double axes[3] = {1, 0.75, 0.5}, expo[2] = {4, 4}, aspect[3] = {1, 1, 1};
    memcpy(a->axes, axes, sizeof axes);
    memcpy(a->expo, expo, sizeof expo);
    memcpy(a->aspect, aspect, sizeof aspect);
    a->tbudget = 240;
    a->ctol = 1e-3;
}

/* Options of the body sources: 0, an exit status, or -1 when not one of them. */
static int body_option(pack_args *a, const cli_command *cmd, int opt, const char *arg)
{
    int cnt;
    switch (opt) {
    case OPT_SHAPE: a->shape = arg; return 0;
    case OPT_SIZE: a->size_s = arg; return 0;
    case 'n':
        if (rve_parse_int_range(arg, 1, 100000000, &a->n) != RVE_OK)
            return cli_usage_error(cmd, "-n: expected a positive count, got '%s'", arg);
        return 0;
    case OPT_AXES:
        if (rve_parse_triplet(arg, a->axes, 0) != RVE_OK || !(a->axes[0] > 0 && a->axes[1] > 0 && a->axes[2] > 0))
            return cli_usage_error(cmd, "--axes: expected three positive numbers A,B,C, got '%s'", arg);
        return 0;
    case OPT_EXPONENTS:
        if (rve_parse_list(arg, a->expo, 2, &cnt) != RVE_OK || cnt != 2 || !(a->expo[0] >= 2 && a->expo[1] >= 2))
            return cli_usage_error(cmd, "--exponents: expected N1,N2 both >= 2, got '%s'", arg);
        return 0;
    case OPT_VERTICES:
        if (rve_parse_int_range(arg, 4, 100000, &a->nvert) != RVE_OK)
            return cli_usage_error(cmd, "--vertices: expected a count >= 4, got '%s'", arg);
        return 0;
    case OPT_BODIES: a->bodies_path = arg; return 0;
    case OPT_TESS: a->tess_path = arg; return 0;
    case OPT_GRAINS: a->grains_path = arg; return 0;
    case OPT_HULL: a->gopt.hull = 1; return 0;
    case OPT_DTOL:
        if (rve_parse_double(arg, &a->gopt.tol) != RVE_OK || !(a->gopt.tol > 0))
            return cli_usage_error(cmd, "--decompose-tol: expected a positive number, got '%s'", arg);
        return 0;
    case OPT_MINVOX:
        if (rve_parse_int_range(arg, 1, 1000000000L, &a->gopt.min_voxels) != RVE_OK)
            return cli_usage_error(cmd, "--min-voxels: expected a positive count, got '%s'", arg);
        return 0;
    case OPT_GREPORT: a->greport = arg; return 0;
    case OPT_DDEPTH: {
        long dd;
        if (rve_parse_int_range(arg, 0, 12, &dd) != RVE_OK)
            return cli_usage_error(cmd, "--decompose-depth: expected 0 to 12, got '%s'", arg);
        a->gopt.max_depth = (int)dd;
        return 0;
    }
    default: return -1;
    }
}

/* Options of the domain, the run and the outputs: 0, an exit status, or -1. */
static int run_option(pack_args *a, const cli_command *cmd, int opt, const char *arg)
{
    switch (opt) {
    case 'o': a->out = arg; return 0;
    case OPT_PERIODIC: a->periodic = 1; return 0;
    case OPT_DOMAIN:
        if (rve_parse_triplet(arg, a->domain, 1) != RVE_OK || !(a->domain[0] > 0 && a->domain[1] > 0 && a->domain[2] > 0))
            return cli_usage_error(cmd, "--domain: expected positive LX,LY,LZ, got '%s'", arg);
        a->have_domain = 1;
        return 0;
    case OPT_FRACTION:
        if (rve_parse_double(arg, &a->fraction) != RVE_OK || !(a->fraction > 0 && a->fraction < 0.9))
            return cli_usage_error(cmd, "--fraction: expected a number in (0,0.9), got '%s'", arg);
        return 0;
    case OPT_ASPECT:
        if (rve_parse_triplet(arg, a->aspect, 0) != RVE_OK || !(a->aspect[0] > 0 && a->aspect[1] > 0 && a->aspect[2] > 0))
            return cli_usage_error(cmd, "--aspect: expected positive AX,AY,AZ, got '%s'", arg);
        return 0;
    case OPT_METHOD: a->method_s = arg; return 0;
    case OPT_SEED:
        if (rve_parse_int_range(arg, 0, 2147483647L, &a->seed) != RVE_OK)
            return cli_usage_error(cmd, "--seed: expected a non-negative integer, got '%s'", arg);
        return 0;
    case OPT_TIME:
        if (rve_parse_double(arg, &a->tbudget) != RVE_OK || !(a->tbudget > 0))
            return cli_usage_error(cmd, "--time: expected positive seconds, got '%s'", arg);
        return 0;
    case OPT_CTOL:
        if (rve_parse_double(arg, &a->ctol) != RVE_OK || !(a->ctol >= 0))
            return cli_usage_error(cmd, "--contact-tol: expected a number >= 0, got '%s'", arg);
        return 0;
    case OPT_VTK: a->vtk = arg; return 0;
    case OPT_CONTACTS: a->contacts = arg; return 0;
    case OPT_ORI: a->orifile = arg; return 0;
    case OPT_JAMTOL:
        if (rve_parse_double(arg, &a->jam_tol) != RVE_OK || !(a->jam_tol >= 0 && a->jam_tol < 1))
            return cli_usage_error(cmd, "--jam-tol: expected a number in [0,1), got '%s'", arg);
        if (a->jam_tol == 0)
            a->jam_tol = -1; /* the window test off */
        return 0;
    case OPT_JAMWIN:
        if (rve_parse_int_range(arg, 1, 100000000L, &a->jam_window) != RVE_OK)
            return cli_usage_error(cmd, "--jam-window: expected a positive number of sweeps, got '%s'", arg);
        return 0;
    default: return -1;
    }
}

/* Checks between options, after parsing: 0 or an exit status. */
static int check_args(pack_args *a, const cli_command *cmd)
{
    if (!a->out)
        return cli_usage_error(cmd, "missing -o OUT");
    if (a->have_domain && a->fraction > 0)
        return cli_usage_error(cmd, "--domain and --fraction exclude each other");
    const char *outs[4] = {a->out, a->vtk, a->contacts, a->orifile};
    if (cli_check_paths(cmd, &a->bodies_path, 1, outs, 4))
        return 2;
    static const struct {
        const char *name;
        rve_pack_method m;
    } methods[] = {{"auto", RVE_PACK_AUTO}, {"soft", RVE_PACK_SOFT}, {"mc", RVE_PACK_MC},
                   {"compress", RVE_PACK_COMPRESS}, {"lid", RVE_PACK_LID}};
    int found = 0;
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
        if (strcmp(a->method_s, methods[k].name) == 0) {
            a->method = methods[k].m;
            found = 1;
        }
    if (!found)
        return cli_usage_error(cmd, "--method: expected auto, soft, mc, compress or lid, got '%s'", a->method_s);
    if (a->method == RVE_PACK_LID && a->periodic)
        return cli_usage_error(cmd, "--method lid packs into a walled box: no --periodic");
    if (a->grains_path && (a->tess_path || a->bodies_path))
        return cli_usage_error(cmd, "--grains excludes --tess and --bodies");
    if (a->grains_path && a->size_s)
        return cli_usage_error(cmd, "--grains takes the grains' own sizes: no --size");
    if (a->tess_path && a->bodies_path)
        return cli_usage_error(cmd, "--tess and --bodies exclude each other");
    if ((a->tess_path || a->bodies_path) && (a->size_s || a->n > 0))
        return cli_usage_error(cmd, "%s takes the bodies of the file: no --size or -n",
                               a->tess_path ? "--tess" : "--bodies");
    if (!a->grains_path && !a->tess_path && !a->bodies_path) {
        if (a->n <= 0)
            return cli_usage_error(cmd, "missing -n N (or --bodies FILE)");
        if (!a->size_s)
            return cli_usage_error(cmd, "missing --size DIST");
    }
    if (a->grains_path && a->method == RVE_PACK_AUTO)
        a->method = RVE_PACK_COMPRESS; /* hulls and decompositions packed the same way, for comparison */
    return 0;
}

/* Parse the command line: 0 to go on, else *rc is the exit status. */
static int parse_args(pack_args *a, const cli_command *cmd, int argc, char **argv, int *rc)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        {"shape", required_argument, NULL, OPT_SHAPE},
        {"size", required_argument, NULL, OPT_SIZE},
        {"axes", required_argument, NULL, OPT_AXES},
        {"exponents", required_argument, NULL, OPT_EXPONENTS},
        {"vertices", required_argument, NULL, OPT_VERTICES},
        {"bodies", required_argument, NULL, OPT_BODIES},
        {"periodic", no_argument, NULL, OPT_PERIODIC},
        {"domain", required_argument, NULL, OPT_DOMAIN},
        {"fraction", required_argument, NULL, OPT_FRACTION},
        {"aspect", required_argument, NULL, OPT_ASPECT},
        {"method", required_argument, NULL, OPT_METHOD},
        {"seed", required_argument, NULL, OPT_SEED},
        {"time", required_argument, NULL, OPT_TIME},
        {"contact-tol", required_argument, NULL, OPT_CTOL},
        {"vtk", required_argument, NULL, OPT_VTK},
        {"contacts", required_argument, NULL, OPT_CONTACTS},
        {"tess", required_argument, NULL, OPT_TESS},
        {"grains", required_argument, NULL, OPT_GRAINS},
        {"hull", no_argument, NULL, OPT_HULL},
        {"decompose-tol", required_argument, NULL, OPT_DTOL},
        {"min-voxels", required_argument, NULL, OPT_MINVOX},
        {"grain-report", required_argument, NULL, OPT_GREPORT},
        {"decompose-depth", required_argument, NULL, OPT_DDEPTH},
        {"jam-tol", required_argument, NULL, OPT_JAMTOL},
        {"jam-window", required_argument, NULL, OPT_JAMWIN},
        {"orientations", required_argument, NULL, OPT_ORI},
        {NULL, 0, NULL, 0},
    };
    cli_getopt_reset();
    int opt;
    *rc = 0;
    while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT "n:o:", longopts, NULL)) != -1) {
        int r = cli_common_option(&a->com, cmd, opt, optarg);
        if (r == 2 || r < 0) {
            *rc = r == 2 ? 0 : 2;
            return 1;
        }
        if (r == 1)
            continue;
        r = body_option(a, cmd, opt, optarg);
        if (r < 0)
            r = run_option(a, cmd, opt, optarg);
        if (r < 0)
            r = cli_bad_option(cmd, argc, argv);
        if (r) {
            *rc = r;
            return 1;
        }
    }
    if (optind < argc) {
        *rc = cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
        return 1;
    }
    *rc = check_args(a, cmd);
    return *rc != 0;
}

/* The cells of a Neper .tess as convex polyhedra. */
static int bodies_from_tess(const cli_command *cmd, const char *path, rve_pack_set **out, rve_err *err)
{
    rve_tess *t;
    if (rve_tess_read_tess(path, &t, NULL, err) != RVE_OK)
        return cli_fail(cmd, err);
    int ncell = 0;
    for (int i = 0; i < t->n; i++)
        if (t->cells[i].nv >= 4 && t->cells[i].vol > 0)
            ncell++;
    rve_pack_set *set = NULL;
    rve_status st = RVE_OK;
    if (ncell == 0)
        st = rve_err_set(err, RVE_EDATA, path, "no cells with a volume");
    else if (!(set = rve_pack_set_alloc((size_t)ncell)))
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    /* the cells' crystal orientations travel with them (rve_pack_body_crystal_ori) */
    double *q = NULL;
    if (st == RVE_OK && t->ori && t->ori_n > 0) {
        if (!(q = malloc(sizeof(double) * 4 * (size_t)t->n)))
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        else if (rve_tess_ori_quat(t, q, err) != RVE_OK) {
            char msg[RVE_ERR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            st = rve_err_set(err, RVE_EDATA, path, "orientations: %s", msg);
        }
    }
    int k = 0;
    for (int i = 0; i < t->n && st == RVE_OK; i++) {
        if (!(t->cells[i].nv >= 4 && t->cells[i].vol > 0))
            continue;
        if (rve_pack_body_poly(&set->b[k], t->cells[i].nv, t->cells[i].v, err) != RVE_OK) {
            char msg[RVE_ERR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            st = rve_err_set(err, RVE_EDATA, path, "cell %d: %s", i + 1, msg);
        }
        set->b[k].grain = (uint32_t)(i + 1);
        if (q) {
            set->b[k].has_ori = 1;
            memcpy(set->b[k].ori, q + 4 * i, sizeof set->b[k].ori);
        }
        k++;
    }
    free(q);
    rve_tess_free(t);
    if (st != RVE_OK) {
        rve_pack_set_free(set);
        return cli_fail(cmd, err);
    }
    *out = set;
    return 0;
}

/* The bodies of a file in the shape syntax of `rve dist`. */
static int bodies_from_file(const cli_command *cmd, const char *path, rve_pack_set **out, rve_err *err)
{
    char *text;
    size_t len;
    if (rve_read_file(path, &text, &len, err) != RVE_OK)
        return cli_fail(cmd, err);
    rve_pack_body *b;
    size_t nb;
    double L[3];
    int hd, per;
    rve_status st = rve_pack_bodies_parse(text, path, &b, &nb, L, &hd, &per, err);
    free(text);
    if (st != RVE_OK)
        return cli_fail(cmd, err);
    if (nb == 0) {
        free(b);
        rve_err_set(err, RVE_EDATA, path, "no bodies");
        return cli_fail(cmd, err);
    }
    rve_pack_set *set = rve_pack_set_alloc(0);
    if (!set) {
        for (size_t i = 0; i < nb; i++)
            rve_pack_body_free(&b[i]);
        free(b);
        rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        return cli_fail(cmd, err);
    }
    free(set->b);
    set->b = b;
    set->n = nb;
    *out = set;
    return 0;
}

/* n bodies of --shape with sizes drawn from --size. */
static int bodies_random(const cli_command *cmd, const pack_args *a, rve_rng *rng, rve_pack_set **out,
                         rve_err *err)
{
    rve_distrib law;
    if (rve_distrib_parse(a->size_s, &law, err) != RVE_OK)
        return cli_usage_error(cmd, "--size: %s", err->msg);
    static const char *const names[] = {"sphere", "ellipsoid", "superquadric", "poly"};
    static const rve_pack_shape kinds[] = {RVE_PACK_SPHERE, RVE_PACK_ELLIPSOID, RVE_PACK_SUPERQUADRIC, RVE_PACK_POLY};
    int kind = -1;
    for (int k = 0; k < 4; k++)
        if (strcmp(a->shape, names[k]) == 0)
            kind = (int)kinds[k];
    if (kind < 0)
        return cli_usage_error(cmd, "--shape: expected sphere, ellipsoid, superquadric or poly, got '%s'", a->shape);
    rve_pack_set *set = rve_pack_set_alloc((size_t)a->n);
    if (!set) {
        rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        return cli_fail(cmd, err);
    }
    const double *ax = a->axes;
    for (long i = 0; i < a->n; i++) {
        double sz = 0;
        rve_status st = RVE_OK;
        for (int t = 0; t < 1000 && st == RVE_OK; t++) {
            st = rve_distrib_sample(&law, rng, &sz);
            if (sz > 0)
                break;
        }
        if (st != RVE_OK || !(sz > 0)) {
            rve_pack_set_free(set);
            return cli_usage_error(cmd, "--size: '%s' does not give positive sizes (use from=...)", a->size_s);
        }
        rve_pack_body *b = &set->b[i];
        switch (kind) {
        case RVE_PACK_SPHERE: st = rve_pack_body_sphere(b, sz, err); break;
        case RVE_PACK_ELLIPSOID: st = rve_pack_body_ellipsoid(b, sz * ax[0], sz * ax[1], sz * ax[2], err); break;
        case RVE_PACK_SUPERQUADRIC:
            st = rve_pack_body_superquadric(b, sz * ax[0], sz * ax[1], sz * ax[2], a->expo[0], a->expo[1], err);
            break;
        default: st = random_poly(b, (int)a->nvert, sz, rng, err); break;
        }
        if (st != RVE_OK) {
            rve_pack_set_free(set);
            return cli_fail(cmd, err);
        }
    }
    *out = set;
    return 0;
}

/* The bodies to pack, from the source the options name. */
static int make_set(const cli_command *cmd, const pack_args *a, rve_pack_set **set, double *vvox, rve_err *err)
{
    rve_rng rng;
    rve_rng_seed(&rng, (uint64_t)a->seed * 0x9e3779b97f4a7c15ULL + 12345);
    if (a->grains_path)
        return load_grains(cmd, &a->com, a->grains_path, &a->gopt, a->n, a->greport, &rng, set, vvox, err);
    if (a->tess_path)
        return bodies_from_tess(cmd, a->tess_path, set, err);
    if (a->bodies_path)
        return bodies_from_file(cmd, a->bodies_path, set, err);
    return bodies_random(cmd, a, &rng, set, err);
}

/* -o OUT, --vtk, --contacts and --orientations, committed together (all or none). */
static rve_status write_outputs(const pack_args *a, const rve_pack_set *set, double ctol_abs, rve_err *err)
{
    rve_pack_contact *c = NULL;
    size_t nc = 0;
    rve_afile *af[4] = {NULL, NULL, NULL, NULL};
    rve_status st = RVE_OK;
    if (a->contacts)
        st = rve_pack_contacts(set, ctol_abs, &c, &nc, err);
    if (st == RVE_OK && !(af[0] = rve_afile_open(a->out, 0, err)))
        st = RVE_EIO;
    if (st == RVE_OK)
        st = rve_pack_set_write(set, rve_afile_fp(af[0]), err);
    if (st == RVE_OK && a->vtk && !(af[1] = rve_afile_open(a->vtk, 0, err)))
        st = RVE_EIO;
    if (st == RVE_OK && af[1])
        st = rve_pack_set_write_vtk(set, rve_afile_fp(af[1]), err);
    if (st == RVE_OK && a->contacts && !(af[2] = rve_afile_open(a->contacts, 0, err)))
        st = RVE_EIO;
    if (st == RVE_OK && af[2])
        st = rve_pack_contacts_write(c, nc, ctol_abs, rve_afile_fp(af[2]), err);
    if (st == RVE_OK && a->orifile && !(af[3] = rve_afile_open(a->orifile, 0, err)))
        st = RVE_EIO;
    if (st == RVE_OK && af[3])
        st = rve_pack_set_write_ori(set, rve_afile_fp(af[3]), err);
    free(c);
    for (int k = 0; k < 4; k++) {
        if (st == RVE_OK && af[k])
            st = rve_afile_commit(af[k], err);
        else if (af[k])
            rve_afile_abort(af[k]);
    }
    return st;
}

static const char *method_name(rve_pack_method m)
{
    switch (m) {
    case RVE_PACK_SOFT: return "soft";
    case RVE_PACK_MC: return "mc";
    case RVE_PACK_LID: return "lid";
    default: return "compress";
    }
}

/* The summary line, and --json on stdout. */
static void report(const pack_args *a, const rve_pack_set *set, const rve_pack_metrics *m, const rve_pack_result *res,
                   double rmean, double vvox)
{
    const cli_common *com = &a->com;
    const char *mname = method_name(res->method);
    /* say why the target was missed: the time budget, or a jam before it */
    if (a->fraction > 0 && !res->reached_target && res->stop != RVE_PACK_STOP_TIME)
        cli_info(com, "rve pack: warning: fraction %.4f not reached: the compaction stopped (%s) at "
                      "%.4f after %.1f s, before the --time budget of %g s", a->fraction,
                 rve_pack_stop_name(res->stop), m->fraction, res->seconds, a->tbudget);
    else if (a->fraction > 0 && !res->reached_target)
        cli_info(com, "rve pack: warning: fraction %.4f not reached within --time %g s (got %.4f)", a->fraction,
                 a->tbudget, m->fraction);
    cli_info(com, "rve pack: %zu bodies, %s, fraction %.4f, void ratio %.4f, Z %.3f, max overlap %.3g, %.1f s, "
                  "stopped: %s", set->n, mname, m->fraction, m->void_ratio, m->z, m->max_overlap, res->seconds,
             rve_pack_stop_name(res->stop));
    if (!com->json)
        return;
    rve_json j;
    rve_json_init(&j, stdout);
    rve_json_begin_object(&j);
    rve_json_kv_int(&j, "bodies", (long long)set->n);
    rve_json_kv_string(&j, "method", mname);
    rve_json_kv_bool(&j, "periodic", set->periodic);
    rve_json_key(&j, "domain");
    rve_json_begin_array(&j);
    for (int k = 0; k < 3; k++)
        rve_json_number(&j, set->L[k]);
    rve_json_end_array(&j);
    int nori = 0;
    for (size_t i = 0; i < set->n; i++)
        nori += set->b[i].has_ori != 0;
    rve_json_kv_int(&j, "crystal_orientations", nori);
    rve_json_kv_number(&j, "fraction", m->fraction);
    rve_json_kv_number(&j, "void_ratio", m->void_ratio);
    if (a->grains_path) /* the grains' own (voxel) volume over the box: hulls and decompositions compare */
        rve_json_kv_number(&j, "voxel_fraction", vvox / (set->L[0] * set->L[1] * set->L[2]));
    rve_json_kv_number(&j, "coordination", m->z);
    rve_json_kv_int(&j, "contacts", m->contacts);
    rve_json_kv_int(&j, "rattlers", m->rattlers);
    rve_json_kv_number(&j, "contact_tol", a->ctol * rmean);
    rve_json_kv_number(&j, "max_overlap", m->max_overlap);
    rve_json_kv_number(&j, "max_overlap_rel", rmean > 0 ? m->max_overlap / rmean : 0);
    rve_json_kv_int(&j, "overlapping_pairs", m->overlaps);
    if (!set->periodic)
        rve_json_kv_number(&j, "wall_overlap", m->wall_overlap);
    rve_json_kv_number(&j, "mean_bounding_radius", rmean);
    rve_json_kv_int(&j, "steps", res->steps);
    rve_json_kv_int(&j, "narrow_calls", res->narrow_calls);
    rve_json_kv_number(&j, "narrow_calls_per_step", res->calls_per_step);
    rve_json_kv_number(&j, "all_pairs_per_step",
                       res->method == RVE_PACK_MC ? (double)set->n * (set->n - 1) : (double)m->all_pairs);
    rve_json_kv_bool(&j, "reached_target", res->reached_target);
    rve_json_kv_string(&j, "stop", rve_pack_stop_name(res->stop));
    rve_json_kv_number(&j, "seconds", res->seconds);
    rve_json_end_object(&j);
    fputc('\n', stdout);
}

/* Pack the set with the parameters of the options. */
static rve_status pack_set(const pack_args *a, rve_pack_set *set, rve_pack_result *res, rve_err *err)
{
    set->periodic = a->periodic;
    rve_pack_params par;
    rve_pack_params_init(&par);
    par.method = a->method;
    par.seed = (uint64_t)a->seed;
    par.max_seconds = a->tbudget;
    par.target_fraction = a->fraction;
    par.jam_tol = a->jam_tol;
    par.jam_window = a->jam_window;
    memcpy(par.aspect, a->aspect, sizeof a->aspect);
    if (a->have_domain) {
        par.fixed_domain = 1;
        memcpy(set->L, a->domain, sizeof a->domain);
    }
    progress_state ps;
    memset(&ps, 0, sizeof ps);
    cli_progress_start(&ps.bar, "pack", a->fraction > 0 ? a->fraction : 0, a->com.verbosity);
    par.progress = on_progress;
    par.progress_ctx = &ps;
    rve_status st = rve_pack_run(set, &par, res, err);
    cli_progress_finish(&ps.bar);
    return st;
}

static int run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_pack;
    pack_args a;
    args_init(&a);
    int rc;
    if (parse_args(&a, cmd, argc, argv, &rc))
        return rc;
    cli_common_apply(&a.com);
    rve_err err;
    rve_err_clear(&err);
    rve_pack_set *set = NULL;
    double vvox = 0; /* --grains: voxel volume of the grains drawn */
    if ((rc = make_set(cmd, &a, &set, &vvox, &err)) != 0)
        return rc;
    rve_pack_result res;
    rve_pack_metrics m;
    double rmean = 0;
    rve_status st = pack_set(&a, set, &res, &err);
    for (size_t i = 0; i < set->n; i++)
        rmean += set->b[i].rbound / set->n;
    if (st == RVE_OK)
        st = rve_pack_measure(set, a.ctol * rmean, &m, &err);
    if (st == RVE_OK)
        st = write_outputs(&a, set, a.ctol * rmean, &err);
    if (st != RVE_OK) {
        rve_pack_set_free(set);
        return cli_fail(cmd, &err);
    }
    report(&a, set, &m, &res, rmean, vvox);
    rve_pack_set_free(set);
    return 0;
}
