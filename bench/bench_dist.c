/* bench_dist - nanoseconds per distance query: ours (GJK + Signed Volumes,
 * and GJK + Johnson) against Bullet (btGjkPairDetector), FCL (GJK distance)
 * and libccd (GJK intersection test: it has no distance query), on the same
 * queries in the same run.  Medians of several interleaved rounds. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include <rve/dist.h>
#include "bench_dist_peers.h"
#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_CCD
#include <ccd/ccd.h>
#include <ccd/quat.h>
#endif
#ifdef HAVE_OPENGJK
/* openGJK is not packaged and never copied here: bench/dist_opengjk.sh
 * builds this program against a checkout the user names (OPENGJK_SRC) */
#include <openGJK/openGJK.h>
#endif

#define ROUNDS 21
#define TARGET_SEC 0.008 /* per lib per round: short, so that a round's runs are close in time */
#define NQ 1000 /* pairs per row, as the anchors' (anchors.md) */
#define NBODY 8

static uint64_t rs = 88172645463325252ull;
static double urand(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (double)(rs >> 11) * (1.0 / 9007199254740992.0);
}
static double nrand(void) { return sqrt(-2 * log(urand() + 1e-300)) * cos(6.283185307179586 * urand()); }
static void rand_unit(double u[3])
{
    double n;
    do {
        u[0] = nrand(); u[1] = nrand(); u[2] = nrand();
        n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    } while (n < 1e-6);
    for (int k = 0; k < 3; k++) u[k] /= n;
}
static void rand_quat(double q[4])
{
    double n = 0;
    for (int i = 0; i < 4; i++) { q[i] = nrand(); n += q[i] * q[i]; }
    n = sqrt(n);
    for (int i = 0; i < 4; i++) q[i] /= n;
}
static void qrot(double r[3], const double q[4], const double v[3])
{
    double u[3] = {q[1], q[2], q[3]}, t[3], c[3];
    t[0] = 2 * (u[1] * v[2] - u[2] * v[1]); t[1] = 2 * (u[2] * v[0] - u[0] * v[2]); t[2] = 2 * (u[0] * v[1] - u[1] * v[0]);
    c[0] = u[1] * t[2] - u[2] * t[1]; c[1] = u[2] * t[0] - u[0] * t[2]; c[2] = u[0] * t[1] - u[1] * t[0];
    for (int k = 0; k < 3; k++) r[k] = v[k] + q[0] * t[k] + c[k];
}

typedef struct {
    double *v;
    int nv;
    int *tri;
    int nt;
    double radius; /* bounding radius */
    rve_poly_graph g;
    int has_graph;
    void *bt, *fc;
} body;

static int hull_tris(const double *v, int n, int **tri)
{
    coordT *pts = malloc(sizeof(coordT) * 3 * (size_t)n);
    memcpy(pts, v, sizeof(double) * 3 * (size_t)n);
    FILE *dn = fopen("/dev/null", "w");
    qhT qh_qh, *qh = &qh_qh;
    memset(&qh_qh, 0, sizeof qh_qh);
    qh_zero(qh, dn);
    char cmd[] = "qhull Qt";
    int nt = 0, cap = 0;
    *tri = NULL;
    if (qh_new_qhull(qh, 3, n, pts, False, cmd, NULL, dn) == 0) {
        facetT *facet;
        vertexT *vertex, **vertexp;
        FORALLfacets {
            int id[3], k = 0;
            FOREACHvertex_(facet->vertices) { if (k < 3) id[k] = qh_pointid(qh, vertex->point); k++; }
            if (k != 3) continue;
            /* orient outward (FCL wants consistent faces) */
            if (facet->toporient ^ qh_ORIENTclock) { int t = id[1]; id[1] = id[2]; id[2] = t; }
            if (nt == cap) { cap = cap ? 2 * cap : 256; *tri = realloc(*tri, sizeof(int) * 3 * (size_t)cap); }
            memcpy(*tri + 3 * nt, id, sizeof id);
            nt++;
        }
    }
    qh_freeqhull(qh, !qh_ALL);
    int a, b;
    qh_memfreeshort(qh, &a, &b);
    fclose(dn);
    free(pts);
    return nt;
}

static void body_make(body *b, int n)
{
    memset(b, 0, sizeof *b);
    b->nv = n;
    b->v = calloc(3 * (size_t)n, sizeof(double));
    /* sphere-like, as the anchors' pairs: n points on the unit sphere are
     * all hull vertices */
    double ax[3] = {1.0, 1.0, 1.0};
    b->radius = 0;
    for (int i = 0; i < n; i++) {
        double u[3];
        rand_unit(u);
        for (int k = 0; k < 3; k++) b->v[3 * i + k] = ax[k] * u[k];
        double r = sqrt(b->v[3 * i] * b->v[3 * i] + b->v[3 * i + 1] * b->v[3 * i + 1] + b->v[3 * i + 2] * b->v[3 * i + 2]);
        if (r > b->radius) b->radius = r;
    }
    b->nt = hull_tris(b->v, n, &b->tri);
    b->has_graph = n > 32 && rve_poly_graph_build(b->v, n, &b->g, NULL) == RVE_OK;
    b->bt = peer_bullet_available() ? peer_bullet_make(b->v, n) : NULL;
    b->fc = peer_fcl_available() ? peer_fcl_make(b->v, n, b->tri, b->nt) : NULL;
}

static void body_free(body *b)
{
    free(b->v);
    free(b->tri);
    if (b->has_graph) rve_poly_graph_free(&b->g);
    if (b->bt) peer_bullet_free(b->bt);
    if (b->fc) peer_fcl_free(b->fc);
}

typedef struct {
    body *A, *B;
    double pa[3], qa[4], pb[3], qb[4];
    rve_shape sa, sb;
    rve_shape sa0, sb0; /* the same without the edge graph */
    double *wa, *wb;     /* world-frame vertices (RVE_BENCH_DIST_WORLD) */
    /* point-vs-polytope rows */
    double pt[3];
#ifdef HAVE_OPENGJK
    double *owa, *owb;   /* world-frame vertices for openGJK */
    double **opa, **opb; /* its row pointers */
#endif
} query;

/* RVE_BENCH_DIST_WORLD=1: our shapes are the bodies' vertices in world
 * coordinates with the identity pose (what openGJK's interface takes: bare
 * vertex arrays), the same pairs; the peers keep the poses */
static int world_mode = 0;

static void world_verts(double **w, const body *b, const double p[3], const double q[4])
{
    *w = realloc(*w, sizeof(double) * 3 * (size_t)b->nv);
    for (int j = 0; j < b->nv; j++) {
        double t[3];
        qrot(t, q, b->v + 3 * j);
        for (int k = 0; k < 3; k++) (*w)[3 * j + k] = t[k] + p[k];
    }
}

#ifdef HAVE_OPENGJK
static void ogjk_rows(double ***rows, double *w, int n)
{
    *rows = realloc(*rows, sizeof(double *) * (size_t)n);
    for (int j = 0; j < n; j++) (*rows)[j] = w + 3 * j;
}

/* openGJK's interface: world-coordinate vertex arrays, whatever our mode */
static void query_ogjk(query *q)
{
    world_verts(&q->owa, q->A, q->pa, q->qa);
    world_verts(&q->owb, q->B, q->pb, q->qb);
    ogjk_rows(&q->opa, q->owa, q->A->nv);
    ogjk_rows(&q->opb, q->owb, q->B->nv);
}

static double ogjk_dist(double **a, int na, double **b, int nb)
{
    gkPolytope p1, p2;
    gkSimplex s;
    p1.numpoints = na;
    p1.coord = a;
    p2.numpoints = nb;
    p2.coord = b;
    s.nvrtx = 0;
    return compute_minimum_distance(p1, p2, &s);
}
#endif

static void query_shapes(query *q)
{
#ifdef HAVE_OPENGJK
    query_ogjk(q);
#endif
    if (world_mode) {
        /* a rigid motion keeps the hull's edges: the graph stays valid */
        world_verts(&q->wa, q->A, q->pa, q->qa);
        world_verts(&q->wb, q->B, q->pb, q->qb);
        rve_shape_polytope(&q->sa, q->wa, q->A->nv, q->A->has_graph ? &q->A->g : NULL);
        rve_shape_polytope(&q->sb, q->wb, q->B->nv, q->B->has_graph ? &q->B->g : NULL);
        rve_shape_polytope(&q->sa0, q->wa, q->A->nv, NULL);
        rve_shape_polytope(&q->sb0, q->wb, q->B->nv, NULL);
        return;
    }
    rve_shape_polytope(&q->sa, q->A->v, q->A->nv, q->A->has_graph ? &q->A->g : NULL);
    rve_shape_set_pose(&q->sa, q->pa, q->qa);
    rve_shape_polytope(&q->sb, q->B->v, q->B->nv, q->B->has_graph ? &q->B->g : NULL);
    rve_shape_set_pose(&q->sb, q->pb, q->qb);
    rve_shape_polytope(&q->sa0, q->A->v, q->A->nv, NULL);
    rve_shape_set_pose(&q->sa0, q->pa, q->qa);
    rve_shape_polytope(&q->sb0, q->B->v, q->B->nv, NULL);
    rve_shape_set_pose(&q->sb0, q->pb, q->qb);
}

/* ------------------------------------------------------------ libccd */
#ifdef HAVE_CCD
typedef struct {
    const body *b;
    ccd_vec3_t pos;
    ccd_quat_t q, qinv;
    const double *world; /* world-frame vertices (point rows) */
} ccd_obj;

static void ccd_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
    const ccd_obj *o = obj;
    ccd_vec3_t d;
    ccdVec3Copy(&d, dir);
    ccdQuatRotVec(&d, &o->qinv);
    const double *V = o->b->v;
    int best = 0;
    double bd = V[0] * d.v[0] + V[1] * d.v[1] + V[2] * d.v[2];
    for (int i = 1; i < o->b->nv; i++) {
        double t = V[3 * i] * d.v[0] + V[3 * i + 1] * d.v[1] + V[3 * i + 2] * d.v[2];
        if (t > bd) { bd = t; best = i; }
    }
    ccdVec3Set(out, V[3 * best], V[3 * best + 1], V[3 * best + 2]);
    ccdQuatRotVec(out, &o->q);
    ccdVec3Add(out, &o->pos);
}

static void ccd_support_point(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
    (void)dir;
    const ccd_obj *o = obj;
    ccdVec3Copy(out, &o->pos);
}

static void ccd_obj_set(ccd_obj *o, const body *b, const double p[3], const double q[4])
{
    o->b = b;
    ccdVec3Set(&o->pos, p[0], p[1], p[2]);
    ccdQuatSet(&o->q, q[1], q[2], q[3], q[0]);
    ccdQuatSet(&o->qinv, -q[1], -q[2], -q[3], q[0]);
}
#endif

/* ------------------------------------------------------------ runners */
/* LIB_LEAN: rve_gjk_distance (d only, the lean path); LIB_BRUTE: ours
 * without the hill-climbing graph (brute-force support; the lean call, the
 * full one under BENCH_THEN); the lean call only in the
 * current tree (BENCH_THEN builds this program on an older kernel) */
enum { LIB_SV, LIB_LEAN, LIB_BRUTE, LIB_JOHNSON, LIB_BULLET, LIB_FCL, LIB_OGJK, LIB_ISECT, LIB_CCD, NLIB };
static const char *lib_name[NLIB] = {"ours SV", "ours lean", "ours brute", "ours Johns", "Bullet", "FCL", "openGJK", "ours isect", "libccd isect"};

static volatile double sink;

static double run_pairs(int lib, query *qs, int nq, long reps)
{
    double s = 0;
    rve_gjk_opts o;
    rve_gjk_opts_default(&o);
    o.sub = lib == LIB_JOHNSON ? RVE_SUB_JOHNSON : RVE_SUB_SV;
    for (long r = 0; r < reps; r++)
        for (int i = 0; i < nq; i++) {
            query *q = &qs[i];
            switch (lib) {
            case LIB_SV:
            case LIB_JOHNSON: {
                rve_dist_result res;
                rve_gjk_dist(&q->sa, &q->sb, &o, NULL, &res);
                s += res.d;
                break;
            }
#ifndef BENCH_THEN
            case LIB_LEAN: s += rve_gjk_distance(&q->sa, &q->sb, NULL, NULL, NULL); break;
#endif
#ifndef BENCH_THEN
            /* the lean call, as the lean column (the older kernels have only the full one) */
            case LIB_BRUTE: s += rve_gjk_distance(&q->sa0, &q->sb0, NULL, NULL, NULL); break;
#else
            case LIB_BRUTE: {
                rve_dist_result res;
                rve_gjk_dist(&q->sa0, &q->sb0, &o, NULL, &res);
                s += res.d;
                break;
            }
#endif
            case LIB_ISECT: s += rve_gjk_intersect(&q->sa, &q->sb, NULL); break;
            case LIB_BULLET: s += peer_bullet_dist(q->A->bt, q->pa, q->qa, q->B->bt, q->pb, q->qb); break;
            case LIB_FCL: s += peer_fcl_dist(q->A->fc, q->pa, q->qa, q->B->fc, q->pb, q->qb); break;
#ifdef HAVE_OPENGJK
            case LIB_OGJK: s += ogjk_dist(q->opa, q->A->nv, q->opb, q->B->nv); break;
#endif
#ifdef HAVE_CCD
            case LIB_CCD: {
                ccd_t ccd;
                CCD_INIT(&ccd);
                ccd.support1 = ccd_support;
                ccd.support2 = ccd_support;
                ccd.max_iterations = 1000;
                ccd_obj a, b;
                ccd_obj_set(&a, q->A, q->pa, q->qa);
                ccd_obj_set(&b, q->B, q->pb, q->qb);
                s += ccdGJKIntersect(&a, &b, &ccd);
                break;
            }
#endif
            default: break;
            }
        }
    return s;
}

/* point rows: q->A is the polytope (world frame: identity pose), q->pt the point */
static double run_points(int lib, query *qs, int nq, long reps, void **bt_point, void **fc_point)
{
    double s = 0;
    static const double qid[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
    rve_gjk_opts o;
    rve_gjk_opts_default(&o);
    o.sub = lib == LIB_JOHNSON ? RVE_SUB_JOHNSON : RVE_SUB_SV;
    for (long r = 0; r < reps; r++)
        for (int i = 0; i < nq; i++) {
            query *q = &qs[i];
            switch (lib) {
            case LIB_SV:
            case LIB_JOHNSON: {
                rve_dist_result res;
                s += rve_dist_point_polytope_opts(q->pt, q->A->v, q->A->nv, &o, NULL, &res);
                break;
            }
            case LIB_LEAN: s += rve_dist_point_polytope_opts(q->pt, q->A->v, q->A->nv, &o, NULL, NULL); break;
            case LIB_ISECT: {
                rve_shape a, b;
                rve_shape_point(&a, q->pt);
                rve_shape_polytope(&b, q->A->v, q->A->nv, NULL);
                s += rve_gjk_intersect(&a, &b, NULL);
                break;
            }
            case LIB_BULLET: s += peer_bullet_dist(*bt_point, q->pt, qid, q->A->bt, zero, qid); break;
            case LIB_FCL: s += peer_fcl_dist(*fc_point, q->pt, qid, q->A->fc, zero, qid); break;
#ifdef HAVE_OPENGJK
            case LIB_OGJK: {
                double *pt = q->pt;
                s += ogjk_dist(&pt, 1, q->opb, q->A->nv);
                break;
            }
#endif
#ifdef HAVE_CCD
            case LIB_CCD: {
                ccd_t ccd;
                CCD_INIT(&ccd);
                ccd.support1 = ccd_support_point;
                ccd.support2 = ccd_support;
                ccd.max_iterations = 1000;
                ccd_obj a, b;
                ccd_obj_set(&a, q->A, q->pt, qid);
                ccd_obj_set(&b, q->A, zero, qid);
                s += ccdGJKIntersect(&a, &b, &ccd);
                break;
            }
#endif
            default: break;
            }
        }
    return s;
}

/* RVE_BENCH_DIST_OURS=1: only our distance calls (SV, lean, brute), for quick
 * iterations on the kernel; the pairs stay the same */
static int ours_only = 0;

static int lib_available(int lib)
{
    if (ours_only && lib != LIB_SV && lib != LIB_LEAN && lib != LIB_BRUTE && lib != LIB_OGJK)
        return 0;
    switch (lib) {
#ifdef HAVE_OPENGJK
    case LIB_OGJK: return 1;
#endif
    case LIB_BULLET: return peer_bullet_available();
    case LIB_FCL: return peer_fcl_available();
#ifdef HAVE_CCD
    case LIB_CCD: return 1;
#endif
    case LIB_SV: case LIB_JOHNSON: case LIB_ISECT: case LIB_BRUTE: return 1;
#ifndef BENCH_THEN
    case LIB_LEAN: return 1;
#endif
    default: return 0;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* thread CPU time: the machine is shared, wall time would measure the other jobs */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the median of t[k] / base[k] over the rounds (NaN when not measured) */
static double round_ratio(const double *t, const double *base, int measured)
{
    if (!measured)
        return NAN;
    double r[ROUNDS];
    for (int k = 0; k < ROUNDS; k++)
        r[k] = t[k] / base[k];
    qsort(r, ROUNDS, sizeof(double), cmp_double);
    return r[ROUNDS / 2];
}

static void bench_row(const char *label, query *qs, int nq, int points, void **btp, void **fcp)
{
    double t[NLIB][ROUNDS];
    long reps[NLIB];
    for (int l = 0; l < NLIB; l++) {
        if (!lib_available(l) || (points && l == LIB_BRUTE)) { reps[l] = 0; continue; }
        /* calibrate */
        long r = 1;
        for (;;) {
            double t0 = now();
            sink = points ? run_points(l, qs, nq, r, btp, fcp) : run_pairs(l, qs, nq, r);
            double dt = now() - t0;
            if (dt > TARGET_SEC / 4 || r > (1L << 24)) {
                r = (long)(r * TARGET_SEC / (dt > 1e-9 ? dt : 1e-9)) + 1;
                break;
            }
            r *= 4;
        }
        reps[l] = r;
    }
    /* the order turns by one library per round: in a fixed order the
     * first one ran on pairs the others had pushed out of the cache (bare
     * 128-vertex touching pairs: whichever of our calls ran first took up
     * to 30 % longer; docs/dist.md, stop 38) */
    for (int k = 0; k < ROUNDS; k++)
        for (int l0 = 0; l0 < NLIB; l0++) {
            int l = (l0 + k) % NLIB;
            if (!reps[l]) continue;
            double t0 = now();
            sink = points ? run_points(l, qs, nq, reps[l], btp, fcp) : run_pairs(l, qs, nq, reps[l]);
            t[l][k] = (now() - t0) * 1e9 / ((double)reps[l] * nq);
        }
    /* ratios: the median over rounds of each round's ratio (the two runs
     * about 0.1 s apart; the machine's speed drifts more over a row) */
    double ratio[NLIB];
    for (int l = 1; l < NLIB; l++)
        ratio[l] = round_ratio(t[l], t[l == LIB_CCD ? LIB_ISECT : LIB_SV], reps[l] && reps[l == LIB_CCD ? LIB_ISECT : LIB_SV]);
#ifdef HAVE_OPENGJK
    double lean_og = round_ratio(t[LIB_LEAN], t[LIB_OGJK], reps[LIB_LEAN] && reps[LIB_OGJK]);
#endif
    double med[NLIB];
    printf("%-26s", label);
    for (int l = 0; l < NLIB; l++) {
        if (!reps[l]) { med[l] = NAN; printf(" %12s", "-"); continue; }
        qsort(t[l], ROUNDS, sizeof(double), cmp_double);
        med[l] = t[l][ROUNDS / 2];
        printf(" %12.0f", med[l]);
    }
    printf("   ");
    for (int l = 1; l < NLIB; l++) {
        if (l == LIB_ISECT) continue;
        if (isnan(ratio[l])) printf(" %6s", "-");
        else printf(" %6.2f", ratio[l]);
    }
#ifdef HAVE_OPENGJK
    printf(" %9.2f", lean_og);
#endif
    /* support calls per query of ours (SV): GJK iterations, one support
     * point of A - B each; and how often the exact sign fallback ran */
    long calls = 0, exact = 0;
    for (int i = 0; i < nq; i++) {
        rve_dist_result r;
        if (points)
            rve_dist_point_polytope(qs[i].pt, qs[i].A->v, qs[i].A->nv, NULL, &r);
        else
            rve_gjk_dist(&qs[i].sa, &qs[i].sb, NULL, NULL, &r);
        calls += r.iterations;
#ifndef BENCH_THEN
        exact += r.exact;
#endif
    }
    printf("   %5.2f %5.3f", (double)calls / nq, (double)exact / nq);
    printf("\n");
    fflush(stdout);
}

/* maximum disagreement of the peers with ours (SV), relative to the body size */
static void agreement(query *qs, int nq, int points, void **btp, void **fcp, double dev[NLIB])
{
    static const double qid[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
    for (int l = 0; l < NLIB; l++) dev[l] = 0;
    rve_gjk_opts oj;
    rve_gjk_opts_default(&oj);
    oj.sub = RVE_SUB_JOHNSON;
    for (int i = 0; i < nq; i++) {
        query *q = &qs[i];
        double d0, dj, db = NAN, df = NAN;
        rve_dist_result r;
        if (points) {
            d0 = rve_dist_point_polytope(q->pt, q->A->v, q->A->nv, NULL, NULL);
            dj = rve_dist_point_polytope_opts(q->pt, q->A->v, q->A->nv, &oj, NULL, NULL);
            if (peer_bullet_available()) db = peer_bullet_dist(*btp, q->pt, qid, q->A->bt, zero, qid);
            if (peer_fcl_available()) df = peer_fcl_dist(*fcp, q->pt, qid, q->A->fc, zero, qid);
        } else {
            rve_gjk_dist(&q->sa, &q->sb, NULL, NULL, &r);
            d0 = r.d;
            rve_gjk_dist(&q->sa, &q->sb, &oj, NULL, &r);
            dj = r.d;
            if (peer_bullet_available()) db = peer_bullet_dist(q->A->bt, q->pa, q->qa, q->B->bt, q->pb, q->qb);
            if (peer_fcl_available()) df = peer_fcl_dist(q->A->fc, q->pa, q->qa, q->B->fc, q->pb, q->qb);
        }
#ifdef HAVE_OPENGJK
        double *pt = q->pt;
        double dg = points ? ogjk_dist(&pt, 1, q->opb, q->A->nv) : ogjk_dist(q->opa, q->A->nv, q->opb, q->B->nv);
        dev[LIB_OGJK] = fmax(dev[LIB_OGJK], fabs(dg - d0));
#endif
        dev[LIB_JOHNSON] = fmax(dev[LIB_JOHNSON], fabs(dj - d0));
        if (!isnan(db)) dev[LIB_BULLET] = fmax(dev[LIB_BULLET], fabs(db - d0));
        if (!isnan(df)) dev[LIB_FCL] = fmax(dev[LIB_FCL], fabs(df - d0));
    }
}

/* the cost of the hill-climbing graph (qhull), to set against the time it
 * saves per query (ours brute - ours SV): the crossover in queries */
static void graph_cost(const body *b, int n)
{
    long reps = 0;
    double t0 = now(), t;
    do {
        rve_poly_graph g;
        if (rve_poly_graph_build(b->v, n, &g, NULL) == RVE_OK)
            rve_poly_graph_free(&g);
        reps++;
        t = now() - t0;
    } while (t < 0.05);
    printf("%4d vertices: building the edge graph (qhull) takes %.0f ns per body\n", n, t * 1e9 / (double)reps);
}

int main(void)
{
    static const int sizes[5] = {8, 32, 128, 512, 2048};
    /* RVE_BENCH_DIST_MAXN=N: time only the rows of at most N vertices (the
     * pairs of every row are drawn anyway, so each row's pairs stay the same) */
    const char *env = getenv("RVE_BENCH_DIST_MAXN");
    int maxn = env ? atoi(env) : 1 << 30;
    env = getenv("RVE_BENCH_DIST_OURS");
    ours_only = env && atoi(env) > 0;
    env = getenv("RVE_BENCH_DIST_WORLD");
    world_mode = env && atoi(env) > 0;
    static const char *cfg_name[3] = {"distant", "touching", "overlapping"};
    printf("GJK distance queries, ns/query (median of %d rounds, %d queries per row, random rotations)\n", ROUNDS, NQ);
    printf("peers: Bullet %s (btGjkPairDetector, btConvexHullShape margin 0), FCL GJKSolver_indep::shapeDistance\n"
           "(Convex, default tolerance); libccd has no distance query: its ccdGJKIntersect is compared\nwith our intersection test (rve_gjk_intersect).  Time = thread CPU time (shared machine).\n",
           peer_bullet_double() ? "double" : "float");
    printf("ours uses the qhull edge graph (hill climbing) above 32 vertices; FCL walks edges above 32 too\n");
    printf("%s\n\n", world_mode ? "ours: world-coordinate vertex arrays, identity poses (RVE_BENCH_DIST_WORLD)" : "ours: body vertices with poses");
    printf("%-26s", "row");
    for (int l = 0; l < NLIB; l++) printf(" %12s", lib_name[l]);
    printf("   ratios: lean/SV brute/SV Johns/SV Bullet/SV FCL/SV openGJK/SV libccd/isect");
#ifdef HAVE_OPENGJK
    printf(" lean/oGJK");
#endif
    printf("   calls exact");
    printf("\n");
    double worst_dev[NLIB] = {0};
    for (int si = 0; si < 5; si++) {
        int n = sizes[si];
        body bodies[NBODY];
        for (int i = 0; i < NBODY; i++) body_make(&bodies[i], n);
        if (n <= maxn && !ours_only)
            graph_cost(&bodies[0], n);
        for (int c = 0; c < 3; c++) {
            static query qs[NQ];
            for (int i = 0; i < NQ; i++) {
                query *q = &qs[i];
                q->A = &bodies[(int)(urand() * NBODY)];
                q->B = &bodies[(int)(urand() * NBODY)];
                rand_quat(q->qa);
                rand_quat(q->qb);
                double u[3];
                rand_unit(u);
                for (int k = 0; k < 3; k++) q->pa[k] = 0;
                double sep = c == 2 ? 0.4 * (q->A->radius + q->B->radius) : (q->A->radius + q->B->radius + 0.5);
                for (int k = 0; k < 3; k++) q->pb[k] = u[k] * sep;
                query_shapes(q);
                if (c < 2) {
                    /* B moved along the witness direction to the distance
                     * D (distant) or 1e-6 D (touching), D = 2 the bodies'
                     * diameter: the distance drops by exactly the shift */
                    double D = 2.0, target = c == 0 ? D : 1e-6 * D;
                    rve_dist_result r;
                    rve_gjk_dist(&q->sa, &q->sb, NULL, NULL, &r);
                    if (r.d > 0) {
                        double m = (r.d - target) / r.d;
                        for (int k = 0; k < 3; k++) q->pb[k] += (r.p[k] - r.q[k]) * m;
                        query_shapes(q);
                    }
                }
            }
            char label[64];
            snprintf(label, sizeof label, "%4d vs %4d %s", n, n, c == 1 ? "touch 1e-6D" : cfg_name[c]);
            if (n > maxn)
                continue;
            bench_row(label, qs, NQ, 0, NULL, NULL);
            double dev[NLIB];
            agreement(qs, NQ, 0, NULL, NULL, dev);
            for (int l = 0; l < NLIB; l++) worst_dev[l] = fmax(worst_dev[l], dev[l]);
        }
        for (int i = 0; i < NBODY; i++) body_free(&bodies[i]);
    }
    /* point vs polytope, 30 vertices (the anchors' row): world-frame vertices */
    {
        body bodies[NBODY];
        for (int i = 0; i < NBODY; i++) {
            body_make(&bodies[i], 30);
            double q[4];
            rand_quat(q);
            for (int j = 0; j < bodies[i].nv; j++) {
                double t[3];
                qrot(t, q, bodies[i].v + 3 * j);
                memcpy(bodies[i].v + 3 * j, t, sizeof t);
            }
            if (bodies[i].bt) peer_bullet_free(bodies[i].bt);
            if (bodies[i].fc) peer_fcl_free(bodies[i].fc);
            free(bodies[i].tri);
            bodies[i].nt = hull_tris(bodies[i].v, bodies[i].nv, &bodies[i].tri);
            bodies[i].bt = peer_bullet_available() ? peer_bullet_make(bodies[i].v, bodies[i].nv) : NULL;
            bodies[i].fc = peer_fcl_available() ? peer_fcl_make(bodies[i].v, bodies[i].nv, bodies[i].tri, bodies[i].nt) : NULL;
        }
        const double origin[3] = {0, 0, 0};
        int tri0[3] = {0, 0, 0};
        void *btp = peer_bullet_available() ? peer_bullet_make(origin, 1) : NULL;
        void *fcp = peer_fcl_available() ? peer_fcl_make(origin, 1, tri0, 0) : NULL;
        static query qs[NQ];
        for (int c = 0; c < 2; c++) {
            /* the point at D = 2 (distant) or 1e-6 D (touching) from the
             * hull, along the normal at its closest point to a far point */
            for (int i = 0; i < NQ; i++) {
                query *q = &qs[i];
                q->A = q->B = &bodies[(int)(urand() * NBODY)];
                double u[3], far[3], target = c == 0 ? 2.0 : 2e-6;
                rand_unit(u);
                for (int k = 0; k < 3; k++) far[k] = 10 * u[k];
                rve_dist_result r;
                double d = rve_dist_point_polytope(far, q->A->v, q->A->nv, NULL, &r);
                for (int k = 0; k < 3; k++) q->pt[k] = r.q[k] + (far[k] - r.q[k]) * (target / d);
#ifdef HAVE_OPENGJK
                ogjk_rows(&q->opb, q->A->v, q->A->nv);
#endif
            }
            bench_row(c == 0 ? "point vs poly 30 distant" : "point vs poly 30 touch", qs, NQ, 1, &btp, &fcp);
            double dev[NLIB];
            agreement(qs, NQ, 1, &btp, &fcp, dev);
            for (int l = 0; l < NLIB; l++) worst_dev[l] = fmax(worst_dev[l], dev[l]);
        }
        if (btp) peer_bullet_free(btp);
        if (fcp) peer_fcl_free(fcp);
        for (int i = 0; i < NBODY; i++) body_free(&bodies[i]);
    }
    /* fixed per-call cost: two points (one support call, no sub-simplex) */
    {
        body pts[NBODY];
        for (int i = 0; i < NBODY; i++) {
            memset(&pts[i], 0, sizeof pts[i]);
            pts[i].nv = 1;
            pts[i].v = malloc(sizeof(double) * 3);
            rand_unit(pts[i].v);
            int t0[3] = {0, 0, 0};
            pts[i].bt = peer_bullet_available() ? peer_bullet_make(pts[i].v, 1) : NULL;
            pts[i].fc = peer_fcl_available() ? peer_fcl_make(pts[i].v, 1, t0, 0) : NULL;
        }
        static query qs[NQ];
        for (int i = 0; i < NQ; i++) {
            query *q = &qs[i];
            q->A = &pts[(int)(urand() * NBODY)];
            q->B = &pts[(int)(urand() * NBODY)];
            rand_quat(q->qa);
            rand_quat(q->qb);
            for (int k = 0; k < 3; k++) { q->pa[k] = 0; q->pb[k] = 3 * urand(); }
            query_shapes(q);
        }
        bench_row("point vs point (per call)", qs, NQ, 0, NULL, NULL);
        for (int i = 0; i < NBODY; i++) {
            if (pts[i].bt) peer_bullet_free(pts[i].bt);
            if (pts[i].fc) peer_fcl_free(pts[i].fc);
            free(pts[i].v);
        }
    }
    printf("\nlargest |d - d(ours SV)| over all rows (bodies of size ~1): Johnson %.3g, Bullet %.3g, FCL %.3g\n",
           worst_dev[LIB_JOHNSON], worst_dev[LIB_BULLET], worst_dev[LIB_FCL]);
#ifdef HAVE_OPENGJK
    printf("largest |d - d(ours SV)| of openGJK: %.3g\n", worst_dev[LIB_OGJK]);
#endif
    return 0;
}
