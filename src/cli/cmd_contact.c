/* rve contact - penetration depth, contact normal and points of convex bodies. */
#include "config.h"
#include "cli/cli.h"
#include "cli/query_read.h"
#include <rve/dist.h>
#include "util/vec3.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_contact = {
    "contact", "penetration depth, contact normal and points of convex bodies",
    "Usage: rve contact [options] [FILE|-]\n"
    "Signed distance, contact normal and contact points of pairs of convex bodies.\n"
    "By default each pair goes to the kernel made for it: a poly or box with a\n"
    "superquadric to Peng & Hanley's polyhedron-superquadric method, two\n"
    "superquadrics to Wellmann's common-normal method, anything else to GJK (Signed\n"
    "Volumes) and, for overlapping bodies, expansion of GJK's final simplex to the\n"
    "closest face of the Minkowski difference (GJK-TD / EPA).\n"
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
    "  compound k SHAPE ... SHAPE                   (union of k convex pieces, world frame:\n"
    "      a non-convex body; its contact is the deepest piece-pair contact, EPA on\n"
    "      every overlapping piece pair after the bounding-volume hierarchy's pruning)\n"
    "\n"
    "Output: one line per query: s nx ny nz px py pz qx qy qz (%.17g), s > 0 the\n"
    "separation distance, s < 0 minus the penetration depth, n the unit normal from\n"
    "the first body to the second, p on the first body's surface, q on the second's,\n"
    "q - p = s n.\n"
    "\n"
    "Options:\n"
    "  --method M        auto (default: by the kinds of the pair, as above), epa (any\n"
    "                    shapes: the minimum translation depth), peng-hanley (a poly or\n"
    "                    box with a superquadric, ellipsoid or sphere, in either order:\n"
    "                    overlap against the contact plane), wellmann (two superquadrics,\n"
    "                    ellipsoids or spheres: distance along the common normal),\n"
    "                    cundall or nezami (Descantes' revised common-plane methods;\n"
    "                    poly and box pairs only)\n"
    "  --volume          append the volume of the intersection of the two bodies\n"
    "                    (poly and box pairs only; Solfec's polar-dual method)\n"
    "  --repeat K        run each query K times; print the mean nanoseconds per query\n"
    "                    on standard error\n"
    "  --json            print a JSON document (results, kernels, statuses, iterations)\n"
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
enum { M_AUTO, M_EPA, M_CUNDALL, M_NEZAMI, M_PH, M_WELLMANN, M_COMPOUND };
static const char *mname[] = {"auto", "epa", "cundall", "nezami", "peng-hanley", "wellmann", "compound"};

typedef struct {
    rve_shape a, b;
    rve_polyhedron *pa, *pb;
    rve_compound *ca, *cb; /* M_COMPOUND: both bodies as compounds */
    int kernel; /* M_EPA .. M_COMPOUND */
    int swap;   /* peng-hanley with the superquadric first: run it on (b, a) */
} query;

static int is_polytope(const rve_shape *s) { return s->kind == RVE_SHAPE_POLYTOPE || s->kind == RVE_SHAPE_BOX; }
static int is_smooth(const rve_shape *s)
{
    return s->kind == RVE_SHAPE_SUPERQUADRIC || s->kind == RVE_SHAPE_ELLIPSOID || s->kind == RVE_SHAPE_SPHERE;
}

static void free_queries(query *q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rve_shape_free(&q[i].a);
        rve_shape_free(&q[i].b);
        rve_polyhedron_free(q[i].pa);
        rve_polyhedron_free(q[i].pb);
        rve_compound_free(q[i].ca);
        rve_compound_free(q[i].cb);
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

/* the kernel of one query for --method m; RVE_EDATA when the pair does not fit it */
static rve_status choose_kernel(query *q, int m, rve_err *err)
{
    const rve_shape *a = &q->a, *b = &q->b;
    int round = a->radius > 0 || b->radius > 0;
    int sa = a->kind == RVE_SHAPE_SUPERQUADRIC, sb = b->kind == RVE_SHAPE_SUPERQUADRIC;
    q->swap = 0;
    if (m == M_AUTO) {
        if (!round && is_polytope(a) && sb)
            m = M_PH;
        else if (!round && sa && is_polytope(b))
            m = M_PH;
        else if (!round && sa && sb)
            m = M_WELLMANN;
        else
            m = M_EPA;
    }
    q->kernel = m;
    if (m == M_PH) {
        if (is_polytope(a) && is_smooth(b) && b->radius == 0)
            return RVE_OK;
        if (is_smooth(a) && a->radius == 0 && is_polytope(b)) {
            q->swap = 1;
            return RVE_OK;
        }
        return rve_err_set(err, RVE_EDATA, NULL,
                           "peng-hanley needs a poly or box and a superquadric, ellipsoid or sphere (no rounding)");
    }
    if (m == M_WELLMANN && !(is_smooth(a) && is_smooth(b) && !round))
        return rve_err_set(err, RVE_EDATA, NULL,
                           "wellmann needs two superquadrics, ellipsoids or spheres (no rounding)");
    return RVE_OK;
}

/* a query with a compound body: both sides as compounds (a shape as a
 * one-piece compound), the kernel the hierarchy's deepest piece contact */
static rve_status compound_query(query *q, cli_shape_pair *p, int method, int volume, rve_err *err)
{
    if (method != M_AUTO && method != M_EPA)
        return rve_err_set(err, RVE_EDATA, NULL, "compound bodies take --method auto or epa");
    if (volume)
        return rve_err_set(err, RVE_EDATA, NULL, "--volume is for poly and box pairs");
    q->kernel = M_COMPOUND;
    q->ca = p->ca;
    q->cb = p->cb;
    p->ca = p->cb = NULL;
    rve_status st = RVE_OK;
    if (!q->ca)
        st = rve_compound_build(&p->a, 1, &q->ca, err);
    if (st == RVE_OK && !q->cb)
        st = rve_compound_build(&p->b, 1, &q->cb, err);
    return st;
}

static rve_status run_kernel(const query *q, rve_contact *out, rve_err *err)
{
    switch (q->kernel) {
    case M_COMPOUND: {
        static const rve_pose id = {{0, 0, 0}, {1, 0, 0, 0}};
        rve_compound_contact deepest;
        rve_status st = rve_compound_penetration(q->ca, &id, q->cb, &id, NULL, &deepest, NULL, 0, NULL, NULL, err);
        *out = deepest.c;
        return st;
    }
    case M_CUNDALL: return rve_contact_cundall(q->pa, q->pb, out, err);
    case M_NEZAMI: return rve_contact_nezami(q->pa, q->pb, out, err);
    case M_PH: {
        if (!q->swap)
            return rve_contact_polyhedron_superquadric(q->pa, &q->b, out, NULL, err);
        /* superquadric first: run on (poly, superquadric), then swap the roles */
        rve_status st = rve_contact_polyhedron_superquadric(q->pb, &q->a, out, NULL, err);
        double t[3];
        v3_copy(t, out->p);
        v3_copy(out->p, out->q);
        v3_copy(out->q, t);
        v3_scale(out->n, out->n, -1);
        return st;
    }
    case M_WELLMANN: {
        /* iterate separated pairs to the distance (no early exclusion): s is
         * the separation distance as for the other kernels */
        rve_sep_opts o = {0, 0, 0, 1};
        return rve_contact_superellipsoids(&q->a, &q->b, NULL, &o, out, NULL, err);
    }
    default: return rve_contact_epa(&q->a, &q->b, NULL, out, err);
    }
}

/* the JSON document of --json (ns < 0: no timing; vol NULL: no volumes) */
static void print_json(const char *name, const char *method, size_t nq, size_t ncap, double ns, const rve_contact *res,
                       const double *vol, const int *kern, const rve_status *sts)
{
    rve_json j;
    rve_json_init(&j, stdout);
    rve_json_begin_object(&j);
    rve_json_kv_string(&j, "input", name);
    rve_json_kv_string(&j, "method", method);
    rve_json_kv_int(&j, "queries", (long long)nq);
    rve_json_kv_int(&j, "cap_reached", (long long)ncap);
    if (ns >= 0)
        rve_json_kv_number(&j, "ns_per_query", nq ? ns : 0);
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
        if (vol)
            rve_json_kv_number(&j, "volume", vol[i]);
        if (kern)
            rve_json_kv_string(&j, "kernel", mname[kern[i]]);
        rve_json_kv_string(&j, "status", rve_status_name(sts[i]));
        rve_json_kv_int(&j, "iterations", res[i].iterations);
        rve_json_end_object(&j);
    }
    rve_json_end_array(&j);
    rve_json_end_object(&j);
    fputc('\n', stdout);
}

/* the queries of path with their kernels (and polyhedra where the method
 * or --volume needs them) */
static rve_status read_queries(const char *path, int method, int volume, query **out, size_t *n, const char **name,
                               rve_err *err)
{
    cli_shape_pair *pairs = NULL;
    size_t nq = 0;
    rve_status st = cli_read_pairs(path, &pairs, &nq, name, err);
    if (st != RVE_OK)
        return st;
    query *qs = calloc(nq ? nq : 1, sizeof *qs);
    if (!qs) {
        cli_free_pairs(pairs, nq);
        return rve_err_set(err, RVE_ENOMEM, *name, "out of memory");
    }
    for (size_t i = 0; i < nq; i++) { /* the shapes move to the queries */
        if (pairs[i].ca || pairs[i].cb) {
            rve_err e2;
            rve_err_clear(&e2);
            st = compound_query(&qs[i], &pairs[i], method, volume, &e2);
            if (st != RVE_OK) {
                cli_free_pairs(pairs, nq);
                free_queries(qs, nq);
                return rve_err_set(err, st, *name, "query %zu: %s", i + 1, e2.msg);
            }
            continue;
        }
        qs[i].a = pairs[i].a;
        qs[i].b = pairs[i].b;
        memset(&pairs[i].a, 0, sizeof pairs[i].a);
        memset(&pairs[i].b, 0, sizeof pairs[i].b);
    }
    cli_free_pairs(pairs, nq);
    for (size_t i = 0; i < nq; i++) {
        rve_err e2;
        rve_err_clear(&e2);
        query *q = &qs[i];
        if (q->kernel == M_COMPOUND)
            continue;
        st = choose_kernel(q, method, &e2);
        if (st == RVE_OK && (q->kernel == M_CUNDALL || q->kernel == M_NEZAMI || volume)) {
            st = shape_polyhedron(&q->a, &q->pa, &e2);
            if (st == RVE_OK)
                st = shape_polyhedron(&q->b, &q->pb, &e2);
        } else if (st == RVE_OK && q->kernel == M_PH)
            st = shape_polyhedron(q->swap ? &q->b : &q->a, q->swap ? &q->pb : &q->pa, &e2);
        if (st != RVE_OK) {
            free_queries(qs, nq);
            return rve_err_set(err, st, *name, "query %zu: %s", i + 1, e2.msg);
        }
    }
    *out = qs;
    *n = nq;
    return RVE_OK;
}

/* A --method value (every kernel name but "compound", which is chosen per
 * query), or -1. */
static int method_by_name(const char *s)
{
    for (int m = M_AUTO; m < M_COMPOUND; m++)
        if (strcmp(s, mname[m]) == 0)
            return m;
    return -1;
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
    int method = M_AUTO, volume = 0;
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
            if ((method = method_by_name(optarg)) < 0)
                return cli_usage_error(cmd,
                                       "--method: expected 'auto', 'epa', 'peng-hanley', 'wellmann', 'cundall' or "
                                       "'nezami', got '%s'",
                                       optarg);
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
    /* parse everything first: a malformed query prints nothing on stdout */
    query *qs = NULL;
    size_t nq = 0;
    const char *name;
    if (read_queries(path, method, volume, &qs, &nq, &name, &err) != RVE_OK)
        return cli_fail(cmd, &err);
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
    cli_progress prog;
    cli_progress_start(&prog, "contact", (double)nq, nq > 100000 ? com.verbosity : RVE_QUIET);
    double t0 = rve_now();
    long reps = repeat > 0 ? repeat : 1;
    size_t ncap = 0;
    for (size_t i = 0; i < nq; i++) {
        rve_err e2;
        rve_status st = RVE_OK;
        for (long k = 0; k < reps; k++)
            st = run_kernel(&qs[i], &res[i], &e2);
        sts[i] = st;
        if (st == RVE_ECAP)
            ncap++;
        int ok = st == RVE_OK || st == RVE_ECAP;
        rve_intersection x;
        if (ok && volume) {
            st = rve_polyhedra_intersection(qs[i].pa, qs[i].pb, &x, NULL, &e2);
            ok = st == RVE_OK;
            vol[i] = x.volume;
        }
        if (!ok) {
            free(res);
            free(vol);
            free(sts);
            free_queries(qs, nq);
            rve_err_set(&err, st, name, "query %zu: %s", i + 1, e2.msg);
            return cli_fail(cmd, &err);
        }
        if ((i & 4095) == 0)
            cli_progress_update(&prog, (double)i, NULL);
    }
    double elapsed = rve_now() - t0;
    cli_progress_finish(&prog);
    int *kern = malloc((nq ? nq : 1) * sizeof *kern);
    for (size_t i = 0; kern && i < nq; i++)
        kern[i] = qs[i].kernel;
    free_queries(qs, nq);
    if (!kern) {
        free(res);
        free(vol);
        free(sts);
        rve_err_set(&err, RVE_ENOMEM, name, "out of memory");
        return cli_fail(cmd, &err);
    }

    if (com.json) {
        print_json(name, mname[method], nq, ncap, repeat > 0 ? elapsed * 1e9 / ((double)nq * (double)reps) : -1, res,
                   volume ? vol : NULL, kern, sts);
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
    free(kern);
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
