/* rve mesh - mesh a tessellation into conformal tetrahedra (gmsh). */
#include "config.h"
#include "cli/cli.h"
#include "cli/meshcli.h"
#include <rve/mesh.h>
#include <sys/stat.h>
#include <rve/tess.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_mesh = {
    "mesh", "mesh a tessellation into conformal tetrahedra (gmsh)",
    "Usage: rve mesh TESS -o OUT [--cl L | --rcl R] [--order 1|2] [--format LIST]\n"
    "Mesh a tessellation (Neper .tess, regularised or not) into a conformal mesh of\n"
    "tetrahedra with gmsh: one geometric model whose points, curves and surfaces are\n"
    "shared by the grains, so that the mesh is conformal across grain boundaries by\n"
    "construction.  Planar faces are plane surfaces; non-planar (regularised) faces\n"
    "are the fans of triangles around their face point.  Physical groups: one volume\n"
    "per grain (tag = grain id, name grainID), surface 1 'grain_boundaries' and\n"
    "surfaces 11-16 'domain_x0' .. 'domain_z1'.  Prints the element count and the\n"
    "quality: gamma = 3 r_in / r_circ and Neper's q = 6 sqrt(2) V / l_rms^3 (both 1\n"
    "for a regular tetrahedron): minimum, mean, share below 0.1 and 0.3.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT   output file, or stem when several formats are asked:\n"
    "                     OUT.msh, OUT.inp, OUT.vtk (an extension .msh .inp .vtk on OUT\n"
    "                     picks that format when --format is not given)\n"
    "  --format LIST      comma-separated among msh (gmsh 4.1), msh22 (gmsh 2.2),\n"
    "                     inp (Abaqus: C3D4/C3D10, elset per grain, node sets of the\n"
    "                     domain faces), vtk (legacy, cell data grain), fepx (Neper/FEPX\n"
    "                     .msh: $NSets, $Fasets, $Periodicity, $ElsetOrientations; OUT if\n"
    "                     alone, else STEM-fepx.msh); default msh\n"
    "  --cl L             element size\n"
    "  --max-elements N   refuse before meshing when about more than N tetrahedra\n"
    "                     are expected from the sizes (default 1e7; 0: no cap)\n"
    "  --rcl R            element size relative to the grain size:\n"
    "                     R * 0.5 * (V/N)^(1/3) (default 1)\n"
    "  --order 1|2        linear or quadratic tetrahedra (default 1)\n"
    "  --algo NAME        gmsh 3D algorithm: hxt (default) or delaunay\n"
    "                     (this gmsh has no Netgen, so no frontal 3D algorithm)\n"
    "  --optimize N       gmsh tetrahedral optimisation passes (default 2; 0 = none)\n"
    "  --json             print a JSON summary on standard output\n"
    "  -q, --quiet        no messages;  -v, --verbose  more messages (and gmsh's)\n"
    "  -j, --threads N    gmsh threads (default 1)\n"
    "  -h, --help         this help\n"
    "\n"
    "Periodic tessellations: give the seeds instead of TESS (--seeds FILE --domain\n"
    "LX,LY,LZ --periodic; e.g. the x y z w columns of 'rve gen --periodic --values'):\n"
    "the tessellation is built in memory, its cells are cut at the box faces (each\n"
    "piece in the box, all pieces of a grain in its physical volume) and the mesh is\n"
    "periodic: opposite box faces carry translated meshes, exactly ($Periodic in\n"
    ".msh 4.1; inp: node sets of faces, edges, corners and *Equation periodic\n"
    "constraints with reference nodes RP_X RP_Y RP_Z; vtk: point data\n"
    "periodic_master).  See docs/periodic.md.\n"
    "  --seeds FILE       seeds 'x y z [w]' per line (instead of TESS)\n"
    "  --domain LX,LY,LZ  box [0,LX]x[0,LY]x[0,LZ] for --seeds (default 1,1,1)\n"
    "  --periodic[=AXES]  periodic along AXES (default xyz) for --seeds\n"
    "  --pairs FILE       write the periodic node pairs (node master sx sy sz)\n"
    "  --reg              regularise first with rve reg's defaults (periodic too: the\n"
    "                     box-face edges collapse and box-face vertices move with\n"
    "                     all their periodic copies, so the mesh stays exactly periodic)\n"
    "\n"
    "Regularise first (rve reg, or --reg) to avoid the slivers that short edges\n"
    "force: a TESS with edges shorter than the regularisation threshold (rve reg's,\n"
    "0.25 (V/N)^(1/3)) gets a one-line warning on stderr and in --json (\"warning\",\n"
    "\"short_edges\").  A periodic tessellation regularised by rve reg (its pieces, sharing\n"
    "grain ids, opposite box faces exact translates) is meshed periodically.\n"
    "\n"
    "Examples:\n"
    "  rve mesh fit-reg.tess -o fit.msh\n"
    "  rve mesh fit-reg.tess --rcl 0.7 --order 2 --format msh,inp,vtk -o fit\n",
    run,
};

enum { OPT_CL = CLI_OPT_FIRST, OPT_RCL, OPT_ORDER, OPT_FORMAT, OPT_ALGO, OPT_OPTIMIZE, OPT_SEEDS,
       OPT_DOMAIN, OPT_PERIODIC, OPT_PAIRS, OPT_REG, OPT_MAXEL };

/* The periodic tessellation of a seed file (rve mesh --seeds). */
static rve_status seeds_tess(const char *path, const double L[3], const int per[3], rve_tess **t,
                             rve_err *err)
{
    double *seeds = NULL, lo[3] = {0, 0, 0};
    int n = 0;
    rve_status st = rve_tess_read_seeds(path, &seeds, &n, err);
    if (st != RVE_OK)
        return st;
    rve_tess_opts to;
    rve_tess_opts_default(&to);
    to.keep_container = 0;
    st = rve_tess_build(seeds, n, lo, L, per, &to, t, err);
    free(seeds);
    return st;
}

/* Output paths from OUT and the format list (mask of rve_mesh_format bits). */
static int mesh_outputs(const char *out, unsigned mask, char *buf[RVE_MESH_NFORMATS])
{
    static const char *ext[RVE_MESH_NFORMATS] = {".msh", ".msh", ".inp", ".vtk"};
    int n = 0;
    for (int f = 0; f < RVE_MESH_NFORMATS; f++)
        n += (mask >> f) & 1;
    /* several formats: OUT is a stem, and a known extension on it is dropped
     * (-o s.msh --format msh,inp gives s.msh and s.inp, not s.msh.msh) */
    size_t stem = strlen(out);
    if (n > 1)
        for (int f = 0; f < RVE_MESH_NFORMATS; f++)
            if (stem > 4 && rve_path_has_ext(out, ext[f])) {
                stem -= 4;
                break;
            }
    for (int f = 0; f < RVE_MESH_NFORMATS; f++) {
        buf[f] = NULL;
        if (!((mask >> f) & 1))
            continue;
        size_t len = strlen(out) + 16;
        buf[f] = malloc(len);
        if (!buf[f]) {
            for (int g = 0; g < f; g++)
                free(buf[g]);
            return -1;
        }
        struct stat st;
        if (n == 1 && (rve_path_has_ext(out, ext[f]) || strcmp(out, "-") == 0 ||
                       (stat(out, &st) == 0 && !S_ISREG(st.st_mode))))
            snprintf(buf[f], len, "%s", out);
        else if (f == RVE_MESH_MSH22 && ((mask >> RVE_MESH_MSH41) & 1))
            snprintf(buf[f], len, "%.*s-v22.msh", (int)stem, out);
        else
            snprintf(buf[f], len, "%.*s%s", (int)stem, out, ext[f]);
    }
    return 0;
}

typedef struct {
    cli_common com;
    rve_mesh_opts o;
    const char *out, *seedfile, *pairs, *in;
    int reg, fepx;
    double L[3];
    int per[3];
    unsigned mask;
} mesh_args;

/* The Neper/FEPX .msh: OUT when it is the only format, else STEM-fepx.msh
 * (STEM: OUT less a known extension). */
static char *fepx_path(const char *out, unsigned mask)
{
    size_t stem = strlen(out), len = stem + 16;
    if (stem > 4 && (rve_path_has_ext(out, ".msh") || rve_path_has_ext(out, ".inp") || rve_path_has_ext(out, ".vtk")))
        stem -= 4;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, mask ? "%.*s-fepx.msh" : rve_path_has_ext(out, ".msh") ? "%.*s.msh" : "%.*s-fepx.msh",
                 (int)stem, out);
    return p;
}

/* The options into A: 0 to go on, -1 done (help), 2 usage error. */
static int parse(const cli_command *cmd, int argc, char **argv, mesh_args *A)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        {"output", required_argument, NULL, 'o'},
        {"cl", required_argument, NULL, OPT_CL},
        {"max-elements", required_argument, NULL, OPT_MAXEL},
        {"rcl", required_argument, NULL, OPT_RCL},
        {"order", required_argument, NULL, OPT_ORDER},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"algo", required_argument, NULL, OPT_ALGO},
        {"optimize", required_argument, NULL, OPT_OPTIMIZE},
        {"seeds", required_argument, NULL, OPT_SEEDS},
        {"domain", required_argument, NULL, OPT_DOMAIN},
        {"periodic", optional_argument, NULL, OPT_PERIODIC},
        {"pairs", required_argument, NULL, OPT_PAIRS},
        {"reg", no_argument, NULL, OPT_REG},
        {NULL, 0, NULL, 0},
    };
    memset(A, 0, sizeof *A);
    A->L[0] = A->L[1] = A->L[2] = 1;
    cli_common_init(&A->com);
    rve_mesh_opts_default(&A->o);
    int c;
    cli_getopt_reset();
    while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT "o:", longopts, NULL)) != -1) {
        int r = cli_common_option(&A->com, cmd, c, optarg);
        if (r == 1)
            continue;
        if (r == 2)
            return -1;
        if (r < 0)
            return 2;
        switch (c) {
        case 'o': A->out = optarg; break;
        case OPT_MAXEL:
            if (meshcli_mesh_option(cmd, "max-elements", optarg, &A->o))
                return 2;
            break;
        case OPT_CL:
            if (meshcli_mesh_option(cmd, "cl", optarg, &A->o))
                return 2;
            break;
        case OPT_RCL:
            if (meshcli_mesh_option(cmd, "rcl", optarg, &A->o))
                return 2;
            break;
        case OPT_ORDER:
            if (meshcli_mesh_option(cmd, "order", optarg, &A->o))
                return 2;
            break;
        case OPT_OPTIMIZE:
            if (meshcli_mesh_option(cmd, "optimize", optarg, &A->o))
                return 2;
            break;
        case OPT_ALGO:
            if (strcmp(optarg, "delaunay") == 0)
                A->o.algo3d = 1;
            else if (strcmp(optarg, "hxt") == 0)
                A->o.algo3d = 10;
            else
                return cli_usage_error(cmd, "--algo: expected delaunay or hxt, got '%s'", optarg);
            break;
        case OPT_FORMAT:
            if (meshcli_format_option(cmd, optarg, &A->mask, &A->fepx))
                return 2;
            break;
        case OPT_SEEDS: A->seedfile = optarg; break;
        case OPT_PAIRS: A->pairs = optarg; break;
        case OPT_REG: A->reg = 1; break;
        case OPT_DOMAIN:
            if (rve_parse_triplet(optarg, A->L, 1) != RVE_OK || !(A->L[0] > 0 && A->L[1] > 0 && A->L[2] > 0))
                return cli_usage_error(cmd, "--domain: expected three positive sizes LX,LY,LZ, got '%s'", optarg);
            break;
        case OPT_PERIODIC:
            A->per[0] = A->per[1] = A->per[2] = !optarg;
            for (const char *p = optarg; p && *p; p++) {
                if (*p < 'x' || *p > 'z')
                    return cli_usage_error(cmd, "--periodic: expected axes among x, y, z, got '%s'", optarg);
                A->per[*p - 'x'] = 1;
            }
            if (optarg && !*optarg)
                return cli_usage_error(cmd, "--periodic: expected axes among x, y, z");
            break;
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    if (optind >= argc && !A->seedfile)
        return cli_usage_error(cmd, "missing the input tessellation");
    if (optind < argc && A->seedfile)
        return cli_usage_error(cmd, "give either TESS or --seeds FILE");
    if ((A->per[0] || A->per[1] || A->per[2]) && !A->seedfile)
        return cli_usage_error(cmd, "--periodic goes with --seeds (a .tess file carries its own periodicity)");
    if (optind + 1 < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (!A->out)
        return cli_usage_error(cmd, "missing the output (-o OUT)");
    if (!A->mask && !A->fepx)
        A->mask = rve_path_has_ext(A->out, ".inp")   ? 1u << RVE_MESH_INP
               : rve_path_has_ext(A->out, ".vtk") ? 1u << RVE_MESH_VTK
                                               : 1u << RVE_MESH_MSH41;
    A->in = A->seedfile ? A->seedfile : argv[optind];
    if (strcmp(A->out, "-") == 0 && ((A->mask & (A->mask - 1)) || (A->mask && A->fepx)))
        return cli_usage_error(cmd, "-o -: standard output takes one format only");
    return 0;
}

/* The summary: regularisation and quality on stderr, JSON on stdout. */
static void report(const mesh_args *A, const rve_tess *t, const rve_mesh *m, const rve_reg_report *rep,
                   char *const paths[RVE_MESH_NFORMATS], double secs)
{
    const cli_common *com = &A->com;
    if (A->reg) {
        cli_info(com, "rve mesh: regularised: short edges %zu -> %zu (%zu collapses), shortest %.3g -> %.3g",
                 rep->short_before, rep->short_after, rep->removed, rep->min_before, rep->min_after);
        if (rep->pieces_removed)
            cli_info(com, "rve mesh: %zu caps of cells through a box face merged into points", rep->pieces_removed);
        if (rep->acc_reg > 0)
            cli_info(com, "rve mesh: agreement with the input (voxels at threshold / 2): %.2f %% after "
                          "the collapses, %.2f %% after the polish; smallest angle %.2f -> %.2f deg",
                     100 * rep->acc_reg, 100 * rep->acc_polish, rep->angle_before, rep->angle_after);
    }
    rve_mesh_quality q;
    rve_mesh_quality_compute(m, &q);
    meshcli_print_quality(com, m, &q);
    /* the short edges of an unregularised input give flat tetrahedra; a
     * minimum q of 0.0000 in the summary is easy to miss (one line, and in
     * the JSON; not with --reg, whose report says what is left) */
    char warn[512] = "";
    if (!A->reg && m->short_edges > 0)
        snprintf(warn, sizeof warn, "%s has %zu edges shorter than the regularisation threshold %.3g "
                 "(minimum quality q = %.2g): regularise first (rve reg, or rve mesh --reg)",
                 A->in, m->short_edges, m->short_threshold, q.q_min);
    if (warn[0] && com->verbosity >= RVE_NORMAL)
        fprintf(stderr, "rve mesh: warning: %s\n", warn);
    for (int f = 0; f < RVE_MESH_NFORMATS; f++)
        if (paths[f])
            cli_info(com, "rve mesh: wrote %s", paths[f]);
    cli_info(com, "rve mesh: %.2f s", secs);
    if (!com->json)
        return;
    rve_json j;
    rve_json_init(&j, stdout);
    rve_json_begin_object(&j);
    rve_json_kv_string(&j, "input", A->in);
    rve_json_key(&j, "outputs");
    rve_json_begin_array(&j);
    for (int f = 0; f < RVE_MESH_NFORMATS; f++)
        if (paths[f])
            rve_json_string(&j, paths[f]);
    rve_json_end_array(&j);
    rve_json_kv_int(&j, "cells", t->n - t->nempty);
    rve_json_kv_int(&j, "periodic", m->periodic[0] || m->periodic[1] || m->periodic[2]);
    meshcli_json_quality(&j, m, &q);
    rve_json_kv_int(&j, "short_edges", (long long)m->short_edges);
    rve_json_kv_number(&j, "short_edge_threshold", m->short_threshold);
    if (warn[0])
        rve_json_kv_string(&j, "warning", warn);
    if (A->reg) {
        rve_json_key(&j, "reg");
        rve_json_begin_object(&j);
        meshcli_json_reg(&j, rep);
        rve_json_end_object(&j);
    }
    rve_json_kv_number(&j, "seconds", secs);
    rve_json_end_object(&j);
    fputc('\n', stdout);
}

static int run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_mesh;
    mesh_args A;
    int pr = parse(cmd, argc, argv, &A);
    if (pr)
        return pr < 0 ? 0 : pr;
    cli_common_apply(&A.com);
    A.o.threads = A.com.threads > 0 ? A.com.threads : 1;
    A.o.verbose = A.com.verbosity >= RVE_VERBOSE;
    char *paths[RVE_MESH_NFORMATS];
    rve_err err;
    rve_err_clear(&err);
    if (mesh_outputs(A.out, A.mask, paths)) {
        rve_err_set(&err, RVE_ENOMEM, NULL, "out of memory");
        return cli_fail(cmd, &err);
    }
    rve_tess *t = NULL;
    int *ids = NULL;
    rve_mesh *m = NULL;
    char *fepx = A.fepx ? fepx_path(A.out, A.mask) : NULL;
    const char *all[RVE_MESH_NFORMATS + 1];
    for (int f = 0; f < RVE_MESH_NFORMATS; f++)
        all[f] = paths[f];
    all[RVE_MESH_NFORMATS] = fepx;
    int rc;
    if (A.fepx && !fepx) {
        rve_err_set(&err, RVE_ENOMEM, NULL, "out of memory");
        rc = cli_fail(cmd, &err);
    } else {
        rc = cli_check_paths(cmd, &A.in, 1, all, RVE_MESH_NFORMATS + 1);
    }
    if (rc)
        goto done;
    if ((A.seedfile ? seeds_tess(A.in, A.L, A.per, &t, &err) : rve_tess_read_tess(A.in, &t, &ids, &err)) != RVE_OK) {
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", A.in);
        rc = cli_fail(cmd, &err);
        goto done;
    }
    cli_info(&A.com, "rve mesh: %s: %d cells", A.in, t->n - t->nempty);
    const char *outs[RVE_MESH_NFORMATS]; /* .inp, .vtk with orientations: written below */
    int ori = meshcli_ori_split(t, (const char *const *)paths, outs);
    double t0 = rve_now();
    rve_reg_report rep;
    memset(&rep, 0, sizeof rep);
    int saved = meshcli_stdout_to_stderr();
    rve_status mst = A.reg ? rve_mesh_tess_reg(t, ids, NULL, &rep, &A.o, outs, &m, &err)
                           : rve_mesh_tess(t, ids, &A.o, outs, &m, &err);
    meshcli_stdout_restore(saved);
    if (mst != RVE_OK) {
        if (!err.file[0])
            snprintf(err.file, sizeof err.file, "%s", A.in);
        rc = cli_fail(cmd, &err);
        goto done;
    }
    if ((ori && meshcli_ori_write(t, ids, NULL, m, (const char *const *)paths, &err) != RVE_OK) ||
        (fepx && meshcli_fepx_write(t, ids, NULL, m, fepx, &err) != RVE_OK) ||
        (A.pairs && rve_mesh_write_solver(m, A.pairs, RVE_SOLVER_PAIRS, NULL, &err) != RVE_OK)) {
        rc = cli_fail(cmd, &err);
        goto done;
    }
    report(&A, t, m, &rep, paths, rve_now() - t0);
    if (fepx)
        cli_info(&A.com, "rve mesh: wrote %s (Neper/FEPX flavour)", fepx);
done:
    free(fepx);
    rve_mesh_free(m);
    rve_tess_free(t);
    free(ids);
    for (int f = 0; f < RVE_MESH_NFORMATS; f++)
        free(paths[f]);
    return rc;
}
