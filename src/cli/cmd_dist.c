/* rve dist - exact distances between convex bodies (GJK, signed volumes). */
#include "config.h"
#include "cli/cli.h"
#include "cli/query_read.h"
#include <rve/dist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_dist = {
    "dist", "exact distances between convex bodies (GJK, signed volumes)",
    "Usage: rve dist [options] [FILE|-]\n"
    "Exact distances between pairs of convex bodies: GJK with the Signed Volumes\n"
    "sub-algorithm (Montanari 2017).  Reads queries from FILE (default: standard input).\n"
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
    "  compound k SHAPE ... SHAPE                   (union of k convex pieces, world frame;\n"
    "                                                the distance is the minimum over the piece pairs)\n"
    "(qw, qx, qy, qz) is a unit quaternion rotating the body frame to the world frame.\n"
    "\n"
    "Output: one line per query, in order: d px py pz qx qy qz (%.17g), d >= 0, p on\n"
    "the first body, q on the second; intersecting bodies give d = 0 and p = q; a\n"
    "distance beyond the double range prints as inf (with a message).  Numbers may be\n"
    "subnormal (they are read as strtod rounds them).\n"
    "\n"
    "Options:\n"
    "  --sub sv|johnson  GJK sub-algorithm: Signed Volumes (default) or Johnson's\n"
    "  --repeat K        run each query K times; print the mean nanoseconds per query\n"
    "                    on standard error\n"
    "  --json            print a JSON document (queries, results, statuses) instead\n"
    "  -q, --quiet       no messages;  -v, --verbose  more messages\n"
    "  -j, --threads N   accepted for uniformity (queries run on one thread)\n"
    "  -h, --help        this help\n"
    "\n"
    "A malformed query is reported with its index and the offending token (exit 1).\n"
    "\n"
    "Example:\n"
    "  printf 'sphere 0 0 0 1  point 3 0 0\\n' | rve dist\n"
    "  -> 2 1 0 0 3 0 0\n",
    run,
};

enum { OPT_SUB = CLI_OPT_FIRST, OPT_REPEAT };

static void print_vec(FILE *fp, const double v[3]) { fprintf(fp, " %.17g %.17g %.17g", v[0], v[1], v[2]); }

/* a query with a compound body (the other body as a one-piece compound):
 * the minimum over the piece pairs (rve_compound_dist); an error (out of
 * memory) stops the command, never a NaN line */
static rve_status dist_compound(const cli_shape_pair *q, rve_dist_result *res, rve_err *err)
{
    rve_compound *A = q->ca, *B = q->cb, *ta = NULL, *tb = NULL;
    rve_status st = RVE_OK;
    if (!A && (st = rve_compound_build(&q->a, 1, &ta, err)) == RVE_OK)
        A = ta;
    if (st == RVE_OK && !B && (st = rve_compound_build(&q->b, 1, &tb, err)) == RVE_OK)
        B = tb;
    memset(res, 0, sizeof *res);
    rve_pose id = {{0, 0, 0}, {1, 0, 0, 0}};
    rve_compound_result r;
    if (st == RVE_OK && (st = rve_compound_dist(A, &id, B, &id, NULL, &r, err)) == RVE_OK) {
        res->d = r.d;
        memcpy(res->p, r.p, sizeof r.p);
        memcpy(res->q, r.q, sizeof r.q);
        res->status = r.status;
    }
    rve_compound_free(ta);
    rve_compound_free(tb);
    return st;
}

static int run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_dist;
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        {"sub", required_argument, NULL, OPT_SUB},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {NULL, 0, NULL, 0},
    };
    cli_common com;
    cli_common_init(&com);
    rve_gjk_opts opts;
    rve_gjk_opts_default(&opts);
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
        case OPT_SUB:
            if (strcmp(optarg, "sv") == 0)
                opts.sub = RVE_SUB_SV;
            else if (strcmp(optarg, "johnson") == 0)
                opts.sub = RVE_SUB_JOHNSON;
            else
                return cli_usage_error(cmd, "--sub: expected 'sv' or 'johnson', got '%s'", optarg);
            break;
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
    /* parse everything first: a malformed query prints nothing on stdout */
    cli_shape_pair *qs = NULL;
    size_t nq = 0;
    const char *name;
    if (cli_read_pairs(path, &qs, &nq, &name, &err) != RVE_OK)
        return cli_fail(cmd, &err);
    cli_debug(&com, "rve dist: %zu queries", nq);

    rve_dist_result *res = malloc((nq ? nq : 1) * sizeof *res);
    if (!res) {
        cli_free_pairs(qs, nq);
        rve_err_set(&err, RVE_ENOMEM, name, "out of memory");
        return cli_fail(cmd, &err);
    }
    cli_progress prog;
    cli_progress_start(&prog, "dist", (double)nq, nq > 100000 ? com.verbosity : RVE_QUIET);
    double t0 = rve_now();
    long reps = repeat > 0 ? repeat : 1;
    size_t ncap = 0, nrange = 0;
    for (size_t i = 0; i < nq; i++) {
        for (long k = 0; k < reps; k++) {
            if (!(qs[i].ca || qs[i].cb)) {
                rve_gjk_dist(&qs[i].a, &qs[i].b, &opts, NULL, &res[i]);
                continue;
            }
            rve_err e2;
            rve_err_clear(&e2);
            rve_status st = dist_compound(&qs[i], &res[i], &e2);
            if (st != RVE_OK) {
                cli_progress_finish(&prog);
                cli_free_pairs(qs, nq);
                free(res);
                rve_err_set(&err, st, name, "query %zu: %s", i + 1, e2.msg);
                return cli_fail(cmd, &err);
            }
        }
        if (res[i].status == RVE_GJK_CAP)
            ncap++;
        if (res[i].status == RVE_GJK_RANGE)
            nrange++;
        if ((i & 4095) == 0)
            cli_progress_update(&prog, (double)i, NULL);
    }
    double elapsed = rve_now() - t0;
    cli_progress_finish(&prog);
    cli_free_pairs(qs, nq);

    if (com.json) {
        rve_json j;
        rve_json_init(&j, stdout);
        rve_json_begin_object(&j);
        rve_json_kv_string(&j, "input", name);
        rve_json_kv_string(&j, "sub", opts.sub == RVE_SUB_JOHNSON ? "johnson" : "sv");
        rve_json_kv_int(&j, "queries", (long long)nq);
        rve_json_kv_int(&j, "cap_reached", (long long)ncap);
        if (repeat > 0)
            rve_json_kv_number(&j, "ns_per_query", nq ? elapsed * 1e9 / ((double)nq * (double)reps) : 0);
        rve_json_key(&j, "results");
        rve_json_begin_array(&j);
        for (size_t i = 0; i < nq; i++) {
            rve_json_begin_object(&j);
            rve_json_kv_number(&j, "d", res[i].d);
            rve_json_key(&j, "p");
            rve_json_begin_array(&j);
            for (int k = 0; k < 3; k++)
                rve_json_number(&j, res[i].p[k]);
            rve_json_end_array(&j);
            rve_json_key(&j, "q");
            rve_json_begin_array(&j);
            for (int k = 0; k < 3; k++)
                rve_json_number(&j, res[i].q[k]);
            rve_json_end_array(&j);
            rve_json_kv_string(&j, "status", rve_gjk_status_name(res[i].status));
            rve_json_kv_int(&j, "iterations", res[i].iterations);
            rve_json_end_object(&j);
        }
        rve_json_end_array(&j);
        rve_json_end_object(&j);
        fputc('\n', stdout);
    } else {
        for (size_t i = 0; i < nq; i++) {
            fprintf(stdout, "%.17g", res[i].d);
            print_vec(stdout, res[i].p);
            print_vec(stdout, res[i].q);
            fputc('\n', stdout);
        }
    }
    free(res);
    if (repeat > 0 && com.verbosity > RVE_QUIET)
        fprintf(stderr, "rve dist: %.1f ns per query (mean of %zu queries x %ld repeats, %s)\n",
                nq ? elapsed * 1e9 / ((double)nq * (double)reps) : 0.0, nq, reps,
                opts.sub == RVE_SUB_JOHNSON ? "johnson" : "sv");
    if (ncap > 0)
        cli_info(&com, "rve dist: %zu queries reached the iteration cap", ncap);
    if (nrange > 0)
        cli_info(&com, "rve dist: %zu distances exceed the double range (printed as inf; the witnesses are exact)",
                 nrange);
    if (fflush(stdout) != 0) {
        rve_err_set(&err, RVE_EIO, "-", "write error on standard output");
        return cli_fail(cmd, &err);
    }
    return 0;
}
