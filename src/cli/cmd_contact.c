/* rve contact - penetration depth, contact normal and points of convex bodies. */
#include "config.h"
#include "cli/cli.h"
#include <rve/dist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_contact = {
    "contact", "penetration depth, contact normal and points of convex bodies",
    "Usage: rve contact [options] [FILE|-]\n"
    "Signed distance, contact normal and contact points of pairs of convex bodies:\n"
    "GJK (Signed Volumes), then, for overlapping bodies, expansion of GJK's final\n"
    "simplex to the closest face of the Minkowski difference (GJK-TD / EPA).\n"
    "Reads queries from FILE (default: standard input), the same input as `rve dist`.\n"
    "\n"
    "Input: whitespace-separated tokens, '#' starts a comment to the end of the line.\n"
    "A query is two shapes in a row; a shape is one of\n"
    "  point x y z\n"
    "  sphere cx cy cz r\n"
    "  box cx cy cz hx hy hz qw qx qy qz            (half extents in the body frame)\n"
    "  ellipsoid cx cy cz a b c qw qx qy qz         (semi-axes in the body frame)\n"
    "  superquadric cx cy cz a b c n1 n2 qw qx qy qz\n"
    "      (|x/a|^n2 + |y/b|^n2)^(n1/n2) + |z/c|^n1 <= 1, n1, n2 >= 2\n"
    "  poly n x1 y1 z1 ... xn yn zn                 (convex hull of the points, world frame)\n"
    "\n"
    "Output: one line per query: s nx ny nz px py pz qx qy qz (%.17g), s > 0 the\n"
    "separation distance, s < 0 minus the penetration depth, n the unit normal from\n"
    "the first body to the second, p on the first body's surface, q on the second's,\n"
    "q - p = s n.\n"
    "\n"
    "Options:\n"
    "  --method M        epa (default, any shapes), cundall or nezami (Descantes'\n"
    "                    revised common-plane methods; poly and box pairs only)\n"
    "  --volume          append the volume of the intersection of the two bodies\n"
    "                    (poly and box pairs only; Solfec's polar-dual method)\n"
    "  --repeat K        run each query K times; print the mean nanoseconds per query\n"
    "                    on standard error\n"
    "  --json            print a JSON document (results, statuses, iterations) instead\n"
    "  -q, --quiet       no messages;  -v, --verbose  more messages\n"
    "  -j, --threads N   accepted for uniformity (queries run on one thread)\n"
    "  -h, --help        this help\n"
    "\n"
    "A malformed query is reported with its index and the offending token (exit 1).\n"
    "\n"
    "Example:\n"
    "  printf 'box 0 0 0 1 1 1 1 0 0 0  box 1.5 0 0 1 1 1 1 0 0 0\\n' | rve contact\n"
    "  -> -0.5 1 0 0 1 0 0 0.5 0 0   (p and q: centres of the contact faces)\n",
    run,
};

enum { OPT_METHOD = CLI_OPT_FIRST, OPT_VOLUME, OPT_REPEAT };
enum { M_EPA, M_CUNDALL, M_NEZAMI };

typedef struct {
    rve_shape a, b;
    rve_polyhedron *pa, *pb;
} query;

static void free_queries(query *q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rve_shape_free(&q[i].a);
        rve_shape_free(&q[i].b);
        rve_polyhedron_free(q[i].pa);
        rve_polyhedron_free(q[i].pb);
    }
    free(q);
}

static void print_vec(FILE *fp, const double v[3]) { fprintf(fp, " %.17g %.17g %.17g", v[0], v[1], v[2]); }

/* world-frame hull of a poly or box shape; RVE_EUSAGE for other kinds */
static rve_status shape_polyhedron(const rve_shape *s, rve_polyhedron **out, rve_err *err)
{
    *out = NULL;
    double pts[24];
    const double *v;
    size_t n;
    if (s->kind == RVE_SHAPE_POLYTOPE) {
        v = s->verts;
        n = (size_t)s->nv;
    } else if (s->kind == RVE_SHAPE_BOX) {
        for (int i = 0; i < 8; i++) {
            double d[3] = {(i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1};
            /* support point in that (body) direction gives the corner: rotate first */
            double w = s->quat[0], x = s->quat[1], y = s->quat[2], z = s->quat[3];
            double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                           2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                           2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
            double b[3] = {d[0] * s->axes[0], d[1] * s->axes[1], d[2] * s->axes[2]};
            for (int j = 0; j < 3; j++)
                pts[3 * i + j] = s->pos[j] + R[3 * j] * b[0] + R[3 * j + 1] * b[1] + R[3 * j + 2] * b[2];
        }
        v = pts;
        n = 8;
    } else
        return rve_err_set(err, RVE_EDATA, NULL, "this method needs two polytopes (poly or box)");
    if (s->radius > 0)
        return rve_err_set(err, RVE_EDATA, NULL, "this method needs polytopes without rounding");
    return rve_polyhedron_alloc(out, v, n, err);
}

static int run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_contact;
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        {"method", required_argument, NULL, OPT_METHOD},
        {"volume", no_argument, NULL, OPT_VOLUME},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {NULL, 0, NULL, 0},
    };
    cli_common com;
    cli_common_init(&com);
    int method = M_EPA, volume = 0;
    long repeat = 0;
    int c;
    cli_getopt_reset();
    while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, longopts, NULL)) != -1) {
        int r = cli_common_option(&com, cmd, c, optarg);
        if (r == 1)
            continue;
        if (r == 2)
            return 0;
        if (r < 0)
            return 2;
        switch (c) {
        case OPT_METHOD:
            if (strcmp(optarg, "epa") == 0)
                method = M_EPA;
            else if (strcmp(optarg, "cundall") == 0)
                method = M_CUNDALL;
            else if (strcmp(optarg, "nezami") == 0)
                method = M_NEZAMI;
            else
                return cli_usage_error(cmd, "--method: expected 'epa', 'cundall' or 'nezami', got '%s'", optarg);
            break;
        case OPT_VOLUME: volume = 1; break;
        case OPT_REPEAT:
            if (rve_parse_int_range(optarg, 1, 1000000000L, &repeat) != RVE_OK)
                return cli_usage_error(cmd, "--repeat: expected a count from 1 to 1000000000, got '%s'", optarg);
            break;
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    if (argc - optind > 1)
        return cli_usage_error(cmd, "expected at most one input file, got %d", argc - optind);
    const char *path = optind < argc ? argv[optind] : "-";
    cli_common_apply(&com);

    rve_err err;
    rve_err_clear(&err);
    char *buf = NULL;
    if (rve_read_text_file(path, &buf, &err) != RVE_OK)
        return cli_fail(cmd, &err);
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    int need_poly = method != M_EPA || volume;

    /* parse everything first: a malformed query prints nothing on stdout */
    query *qs = NULL;
    size_t nq = 0, cap = 0;
    const char *cur = buf;
    while (!rve_shape_text_end(&cur)) {
        if (nq == cap) {
            cap = cap ? 2 * cap : 64;
            query *t = realloc(qs, cap * sizeof *t);
            if (!t) {
                free_queries(qs, nq);
                free(buf);
                rve_err_set(&err, RVE_ENOMEM, name, "out of memory");
                return cli_fail(cmd, &err);
            }
            qs = t;
        }
        rve_err e2;
        rve_err_clear(&e2);
        memset(&qs[nq], 0, sizeof qs[nq]);
        rve_status st = rve_shape_parse_pair(&cur, &qs[nq].a, &qs[nq].b, &e2);
        if (st == RVE_OK && need_poly) {
            st = shape_polyhedron(&qs[nq].a, &qs[nq].pa, &e2);
            if (st == RVE_OK)
                st = shape_polyhedron(&qs[nq].b, &qs[nq].pb, &e2);
        }
        if (st != RVE_OK) {
            nq++;
            free_queries(qs, nq);
            free(buf);
            rve_err_set(&err, st, name, "query %zu: %s", nq, e2.msg);
            return cli_fail(cmd, &err);
        }
        nq++;
    }
    free(buf);
    cli_debug(&com, "rve contact: %zu queries", nq);

    rve_contact *res = malloc((nq ? nq : 1) * sizeof *res);
    double *vol = calloc(nq ? nq : 1, sizeof *vol);
    rve_status *sts = malloc((nq ? nq : 1) * sizeof *sts);
    if (!res || !vol || !sts) {
        free(res);
        free(vol);
        free(sts);
        free_queries(qs, nq);
        rve_err_set(&err, RVE_ENOMEM, name, "out of memory");
        return cli_fail(cmd, &err);
    }
    rve_progress prog;
    rve_progress_start(&prog, "contact", (double)nq, nq > 100000 ? com.verbosity : RVE_QUIET);
    double t0 = rve_now();
    long reps = repeat > 0 ? repeat : 1;
    size_t ncap = 0;
    for (size_t i = 0; i < nq; i++) {
        rve_err e2;
        rve_status st = RVE_OK;
        for (long k = 0; k < reps; k++) {
            if (method == M_EPA)
                st = rve_contact_epa(&qs[i].a, &qs[i].b, NULL, &res[i], &e2);
            else if (method == M_CUNDALL)
                st = rve_contact_cundall(qs[i].pa, qs[i].pb, &res[i], &e2);
            else
                st = rve_contact_nezami(qs[i].pa, qs[i].pb, &res[i], &e2);
        }
        sts[i] = st;
        if (st == RVE_ECAP)
            ncap++;
        else if (st != RVE_OK) {
            free(res);
            free(vol);
            free(sts);
            free_queries(qs, nq);
            rve_err_set(&err, st, name, "query %zu: %s", i + 1, e2.msg);
            return cli_fail(cmd, &err);
        }
        if (volume) {
            rve_intersection x;
            st = rve_polyhedra_intersection(qs[i].pa, qs[i].pb, &x, NULL, &e2);
            if (st != RVE_OK) {
                free(res);
                free(vol);
                free(sts);
                free_queries(qs, nq);
                rve_err_set(&err, st, name, "query %zu: %s", i + 1, e2.msg);
                return cli_fail(cmd, &err);
            }
            vol[i] = x.volume;
        }
        if ((i & 4095) == 0)
            rve_progress_update(&prog, (double)i, NULL);
    }
    double elapsed = rve_now() - t0;
    rve_progress_finish(&prog);
    free_queries(qs, nq);
    static const char *mname[] = {"epa", "cundall", "nezami"};

    if (com.json) {
        rve_json j;
        rve_json_init(&j, stdout);
        rve_json_begin_object(&j);
        rve_json_kv_string(&j, "input", name);
        rve_json_kv_string(&j, "method", mname[method]);
        rve_json_kv_int(&j, "queries", (long long)nq);
        rve_json_kv_int(&j, "cap_reached", (long long)ncap);
        if (repeat > 0)
            rve_json_kv_number(&j, "ns_per_query", nq ? elapsed * 1e9 / ((double)nq * (double)reps) : 0);
        rve_json_key(&j, "results");
        rve_json_begin_array(&j);
        for (size_t i = 0; i < nq; i++) {
            rve_json_begin_object(&j);
            rve_json_kv_number(&j, "s", res[i].s);
            const char *keys[3] = {"n", "p", "q"};
            const double *vals[3] = {res[i].n, res[i].p, res[i].q};
            for (int m = 0; m < 3; m++) {
                rve_json_key(&j, keys[m]);
                rve_json_begin_array(&j);
                for (int k = 0; k < 3; k++)
                    rve_json_number(&j, vals[m][k]);
                rve_json_end_array(&j);
            }
            if (volume)
                rve_json_kv_number(&j, "volume", vol[i]);
            rve_json_kv_string(&j, "status", rve_status_name(sts[i]));
            rve_json_kv_int(&j, "iterations", res[i].iterations);
            rve_json_end_object(&j);
        }
        rve_json_end_array(&j);
        rve_json_end_object(&j);
        fputc('\n', stdout);
    } else {
        for (size_t i = 0; i < nq; i++) {
            fprintf(stdout, "%.17g", res[i].s);
            print_vec(stdout, res[i].n);
            print_vec(stdout, res[i].p);
            print_vec(stdout, res[i].q);
            if (volume)
                fprintf(stdout, " %.17g", vol[i]);
            fputc('\n', stdout);
        }
    }
    free(res);
    free(vol);
    free(sts);
    if (repeat > 0 && com.verbosity > RVE_QUIET)
        fprintf(stderr, "rve contact: %.1f ns per query (mean of %zu queries x %ld repeats, %s)\n",
                nq ? elapsed * 1e9 / ((double)nq * (double)reps) : 0.0, nq, reps, mname[method]);
    if (ncap > 0)
        cli_info(&com, "rve contact: %zu queries reached an iteration cap (best estimates printed)", ncap);
    if (fflush(stdout) != 0) {
        rve_err_set(&err, RVE_EIO, "-", "write error on standard output");
        return cli_fail(cmd, &err);
    }
    return 0;
}
