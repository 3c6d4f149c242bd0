/* Compound (non-convex) bodies made of convex pieces: the intrinsic
 * hierarchy of Montanari 2017, section 3.3, Algorithm 6.
 *
 * Each body keeps a binary tree of bounding spheres over its pieces, in the
 * body frame (spheres need no re-fitting when the body rotates).  A pair
 * query walks both trees depth first, nearest node pair first, and prunes a
 * node pair when the distance between its spheres exceeds the best piece
 * distance found so far plus a buffer; only the surviving piece pairs reach
 * GJK.  The cache of a pair keeps the last closest piece pair and its GJK
 * simplex (spatial coherence: that pair is tried first, warm-started), and
 * the last distance with the poses it was found at, so that Eq. 3.14 (the
 * old distance minus the largest displacement of either body) proves
 * separation without any GJK call while it stays positive. */
#include "config.h"
#include <rve/dist.h>
#include "util/vec3.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Depth of the trees: median splits give ceil(log2 n) + 1; the cap only
 * guards the fixed traversal stack below. */
#define TREE_MAX_DEPTH 48
#define STACK_MAX (4 * 2 * TREE_MAX_DEPTH + 8)

typedef struct {
    double c[3];  /* bounding sphere, body frame */
    double r;
    int left, right; /* children, -1 for a leaf */
    int piece;       /* leaf: piece index */
} cnode;

struct rve_compound {
    size_t n;
    rve_shape *piece;   /* body frame; polytope vertices point into vbuf */
    double *vbuf;
    double *pc, *pr;    /* piece bounding spheres */
    cnode *node;
    int nnode, root, depth;
};

/* ------------------------------------------------------------ building */
/* Bounding sphere of a piece in the body frame: the centre of the box
 * around its vertices (vertex kinds) or its position (smooth kinds), and an
 * exact radius for vertices, the box corner for smooth cores (a
 * superquadric with n1, n2 >= 2 lies inside its box [-a,a]x[-b,b]x[-c,c]). */
static void piece_sphere(const rve_shape *s, double c[3], double *r)
{
    int nv = 0;
    const double *v = NULL;
    switch (s->kind) {
    case RVE_SHAPE_POINT: case RVE_SHAPE_SPHERE: nv = 1; v = &s->v[0][0]; break;
    case RVE_SHAPE_SEGMENT: nv = 2; v = &s->v[0][0]; break;
    case RVE_SHAPE_TRIANGLE: nv = 3; v = &s->v[0][0]; break;
    case RVE_SHAPE_TETRA: nv = 4; v = &s->v[0][0]; break;
    case RVE_SHAPE_POLYTOPE: nv = s->nv; v = s->verts; break;
    default: break;
    }
    if (nv > 0) {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int i = 0; i < nv; i++) {
            double w[3];
            v3_qrot(w, s->quat, v + 3 * i);
            v3_add(w, w, s->pos);
            for (int k = 0; k < 3; k++) {
                lo[k] = fmin(lo[k], w[k]);
                hi[k] = fmax(hi[k], w[k]);
            }
        }
        double r2 = 0;
        for (int k = 0; k < 3; k++)
            c[k] = 0.5 * (lo[k] + hi[k]);
        for (int i = 0; i < nv; i++) {
            double w[3];
            v3_qrot(w, s->quat, v + 3 * i);
            v3_add(w, w, s->pos);
            r2 = fmax(r2, v3_dist2(w, c));
        }
        *r = sqrt(r2) + s->radius;
        return;
    }
    v3_copy(c, s->pos);
    double a = s->axes[0], b = s->axes[1], cc = s->axes[2];
    double core = s->kind == RVE_SHAPE_ELLIPSOID ? fmax(a, fmax(b, cc)) : sqrt(a * a + b * b + cc * cc);
    *r = core + s->radius;
}

/* Sphere around the piece spheres idx[0..n-1]: centre of their box. */
static void node_sphere(const rve_compound *C, const int *idx, int n, double c[3], double *r)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], C->pc[3 * idx[i] + k] - C->pr[idx[i]]);
            hi[k] = fmax(hi[k], C->pc[3 * idx[i] + k] + C->pr[idx[i]]);
        }
    for (int k = 0; k < 3; k++)
        c[k] = 0.5 * (lo[k] + hi[k]);
    double rr = 0;
    for (int i = 0; i < n; i++)
        rr = fmax(rr, v3_dist(C->pc + 3 * idx[i], c) + C->pr[idx[i]]);
    /* rounding: the sphere must contain every piece sphere exactly */
    *r = rr * (1 + 4 * DBL_EPSILON);
}

/* Top-down build: split the pieces at the median of their centres along the
 * axis of largest spread.  Recursion depth is ceil(log2 n) + 1. */
static int build(rve_compound *C, int *idx, int n, int depth, double *key)
{
    int id = C->nnode++;
    cnode *nd = &C->node[id];
    node_sphere(C, idx, n, nd->c, &nd->r);
    nd->left = nd->right = -1;
    nd->piece = -1;
    if (depth > C->depth)
        C->depth = depth;
    if (n == 1) {
        nd->piece = idx[0];
        return id;
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], C->pc[3 * idx[i] + k]);
            hi[k] = fmax(hi[k], C->pc[3 * idx[i] + k]);
        }
    int ax = 0;
    for (int k = 1; k < 3; k++)
        if (hi[k] - lo[k] > hi[ax] - lo[ax])
            ax = k;
    /* the median by sorting this range's keys (shell sort: in place, bounded) */
    for (int i = 0; i < n; i++)
        key[i] = C->pc[3 * idx[i] + ax];
    for (int gap = n / 2; gap > 0; gap /= 2)
        for (int i = gap; i < n; i++) {
            double kv = key[i];
            int iv = idx[i], j = i;
            for (; j >= gap && key[j - gap] > kv; j -= gap) {
                key[j] = key[j - gap];
                idx[j] = idx[j - gap];
            }
            key[j] = kv;
            idx[j] = iv;
        }
    int h = n / 2;
    int l = build(C, idx, h, depth + 1, key);
    int r = build(C, idx + h, n - h, depth + 1, key);
    C->node[id].left = l;
    C->node[id].right = r;
    return id;
}

static size_t core_vertices(const rve_shape *s) { return s->kind == RVE_SHAPE_POLYTOPE ? (size_t)s->nv : 0; }

rve_status rve_compound_build(const rve_shape *pieces, size_t n, rve_compound **out, rve_err *err)
{
    if (n < 1 || n > (1u << 24))
        return rve_err_set(err, RVE_EDATA, NULL, "a compound needs 1 to 2^24 pieces, got %zu", n);
    size_t nvt = 0;
    for (size_t i = 0; i < n; i++) {
        rve_status st = rve_shape_check(&pieces[i], err);
        if (st != RVE_OK)
            return rve_err_set(err, st, NULL, "compound piece %zu: %s", i + 1, err ? err->msg : "invalid");
        nvt += core_vertices(&pieces[i]);
    }
    rve_compound *C = calloc(1, sizeof *C);
    int *idx = malloc(n * sizeof *idx);
    double *key = malloc(n * sizeof *key);
    if (C) {
        C->n = n;
        C->piece = malloc(n * sizeof *C->piece);
        C->vbuf = malloc(3 * nvt * sizeof(double) + 1);
        C->pc = malloc(3 * n * sizeof(double));
        C->pr = malloc(n * sizeof(double));
        C->node = malloc((2 * n) * sizeof(cnode));
    }
    if (!C || !idx || !key || !C->piece || !C->vbuf || !C->pc || !C->pr || !C->node) {
        free(idx);
        free(key);
        rve_compound_free(C);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        rve_shape *s = &C->piece[i];
        *s = pieces[i];
        s->owned = NULL;
        s->graph = NULL; /* the caller's graph may not outlive the compound */
        if (s->kind == RVE_SHAPE_POLYTOPE) {
            memcpy(C->vbuf + 3 * off, pieces[i].verts, 3 * (size_t)s->nv * sizeof(double));
            s->verts = C->vbuf + 3 * off;
            off += (size_t)s->nv;
        }
        piece_sphere(s, C->pc + 3 * i, &C->pr[i]);
        idx[i] = (int)i;
    }
    C->root = build(C, idx, (int)n, 1, key);
    free(idx);
    free(key);
    *out = C;
    return RVE_OK;
}

rve_status rve_compound_build_polyhedra(const rve_polyhedron *const *pieces, size_t n, rve_compound **out,
                                        rve_err *err)
{
    if (n < 1)
        return rve_err_set(err, RVE_EDATA, NULL, "a compound needs at least one piece");
    rve_shape *s = malloc(n * sizeof *s);
    if (!s)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        rve_shape_polytope(&s[i], pieces[i]->v, (int)pieces[i]->nv, NULL);
    rve_status st = rve_compound_build(s, n, out, err);
    free(s);
    return st;
}

void rve_compound_free(rve_compound *c)
{
    if (!c)
        return;
    free(c->piece);
    free(c->vbuf);
    free(c->pc);
    free(c->pr);
    free(c->node);
    free(c);
}

size_t rve_compound_npieces(const rve_compound *c) { return c->n; }

void rve_compound_bound(const rve_compound *c, double centre[3], double *radius)
{
    v3_copy(centre, c->node[c->root].c);
    *radius = c->node[c->root].r;
}

static void quat_mul(double r[4], const double a[4], const double b[4])
{
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    r[0] = w;
    r[1] = x;
    r[2] = y;
    r[3] = z;
}

void rve_compound_piece(const rve_compound *c, const rve_pose *pose, size_t k, rve_shape *out)
{
    *out = c->piece[k];
    double pos[3], q[4];
    v3_qrot(pos, pose->quat, out->pos);
    v3_add(pos, pos, pose->pos);
    quat_mul(q, pose->quat, out->quat);
    rve_shape_set_pose(out, pos, q);
}

void rve_compound_cache_init(rve_compound_cache *c)
{
    memset(c, 0, sizeof *c);
    rve_gjk_simplex_init(&c->warm);
}

/* ------------------------------------------------------------ queries */
/* World centre of node k of a body with pose p. */
static void node_world(const rve_compound *C, const rve_pose *p, int k, double w[3])
{
    v3_qrot(w, p->quat, C->node[k].c);
    v3_add(w, w, p->pos);
}

/* Lower bound of the distance between two nodes (their spheres). */
static double node_gap(const rve_compound *A, const rve_pose *pa, int i, const rve_compound *B,
                       const rve_pose *pb, int j)
{
    double ca[3], cb[3];
    node_world(A, pa, i, ca);
    node_world(B, pb, j, cb);
    return v3_dist(ca, cb) - A->node[i].r - B->node[j].r;
}

/* Largest displacement of any point of body C between poses p0 and p1
 * (Eq. 3.14): the translation of the tree centre plus the rotation angle
 * times the root radius about it. */
static double max_displacement(const rve_compound *C, const rve_pose *p0, const rve_pose *p1)
{
    double c0[3], c1[3];
    node_world(C, p0, C->root, c0);
    node_world(C, p1, C->root, c1);
    double dot = fabs(p0->quat[0] * p1->quat[0] + p0->quat[1] * p1->quat[1] + p0->quat[2] * p1->quat[2] +
                      p0->quat[3] * p1->quat[3]);
    double n0 = sqrt(p0->quat[0] * p0->quat[0] + p0->quat[1] * p0->quat[1] + p0->quat[2] * p0->quat[2] +
                     p0->quat[3] * p0->quat[3]);
    double n1 = sqrt(p1->quat[0] * p1->quat[0] + p1->quat[1] * p1->quat[1] + p1->quat[2] * p1->quat[2] +
                     p1->quat[3] * p1->quat[3]);
    double cosh = fmin(1.0, dot / (n0 * n1));
    double ang = 2 * acos(cosh);
    /* chord 2 r sin(ang/2) <= r ang; rounding margin on top */
    return v3_dist(c0, c1) + ang * C->node[C->root].r + 1e-12 * C->node[C->root].r;
}

typedef struct {
    const rve_compound *A, *B;
    const rve_pose *pa, *pb;
    rve_compound_result *res;
} qctx;

static double leaf_dist(qctx *q, int ia, int ib, rve_gjk_simplex *warm, rve_dist_result *r)
{
    rve_shape sa, sb;
    rve_compound_piece(q->A, q->pa, (size_t)ia, &sa);
    rve_compound_piece(q->B, q->pb, (size_t)ib, &sb);
    q->res->gjk_calls++;
    rve_gjk_dist(&sa, &sb, NULL, warm, r);
    return r->d;
}

/* Visit node pairs nearest first; f(leaf pair) is called for every piece
 * pair whose spheres are within *bound + buffer (read again after each
 * call: the distance query tightens it).  Returns 1 when f asked to stop
 * (it returned non-zero), 0 when every surviving pair was visited, -1 when
 * the tree depth exceeded the stack (not for trees built here). */
typedef int (*leaf_fn)(qctx *q, int ia, int ib, void *u);

static int traverse(qctx *q, const double *bound, double buffer, leaf_fn f, void *u)
{
    int sa[STACK_MAX], sb[STACK_MAX];
    double sg[STACK_MAX];
    int top = 0;
    const rve_compound *A = q->A, *B = q->B;
    sa[0] = A->root;
    sb[0] = B->root;
    sg[0] = node_gap(A, q->pa, A->root, B, q->pb, B->root);
    top = 1;
    q->res->node_tests++;
    /* every pop removes a node pair for good: at most (2nA)(2nB) pops */
    while (top > 0) {
        top--;
        int i = sa[top], j = sb[top];
        if (sg[top] > *bound + buffer)
            continue;
        const cnode *ni = &A->node[i], *nj = &B->node[j];
        if (ni->piece >= 0 && nj->piece >= 0) {
            if (f(q, ni->piece, nj->piece, u))
                return 1;
            continue;
        }
        /* split the larger sphere (a leaf is never split) */
        int split_a = nj->piece >= 0 || (ni->piece < 0 && ni->r >= nj->r);
        int c1, c2;
        if (split_a) {
            c1 = ni->left;
            c2 = ni->right;
        } else {
            c1 = nj->left;
            c2 = nj->right;
        }
        if (top + 2 > STACK_MAX)
            return -1;
        double g1 = split_a ? node_gap(A, q->pa, c1, B, q->pb, j) : node_gap(A, q->pa, i, B, q->pb, c1);
        double g2 = split_a ? node_gap(A, q->pa, c2, B, q->pb, j) : node_gap(A, q->pa, i, B, q->pb, c2);
        q->res->node_tests += 2;
        /* push the farther child first so that the nearer one is visited first */
        int far = g1 > g2 ? c1 : c2, near = g1 > g2 ? c2 : c1;
        double gfar = fmax(g1, g2), gnear = fmin(g1, g2);
        sa[top] = split_a ? far : i;
        sb[top] = split_a ? j : far;
        sg[top++] = gfar;
        sa[top] = split_a ? near : i;
        sb[top] = split_a ? j : near;
        sg[top++] = gnear;
    }
    return 0;
}

typedef struct {
    double best;
    rve_dist_result r;
    int ia, ib;
    int skip_a, skip_b; /* the cached pair, already done */
} dist_u;

static int dist_leaf(qctx *q, int ia, int ib, void *u)
{
    dist_u *d = u;
    if (ia == d->skip_a && ib == d->skip_b)
        return 0;
    rve_dist_result r;
    double v = leaf_dist(q, ia, ib, NULL, &r);
    if (v < d->best) {
        d->best = v;
        d->r = r;
        d->ia = ia;
        d->ib = ib;
    }
    return 0;
}

static int valid_pose(const rve_pose *p)
{
    double n = 0;
    for (int k = 0; k < 4; k++)
        n += p->quat[k] * p->quat[k];
    return isfinite(p->pos[0]) && isfinite(p->pos[1]) && isfinite(p->pos[2]) && isfinite(n) && n > 0;
}

rve_status rve_compound_dist(const rve_compound *A, const rve_pose *pa, const rve_compound *B, const rve_pose *pb,
                             rve_compound_cache *cache, rve_compound_result *out, rve_err *err)
{
    memset(out, 0, sizeof *out);
    out->d = NAN;
    if (!valid_pose(pa) || !valid_pose(pb))
        return rve_err_set(err, RVE_EDATA, NULL, "compound pose is not finite (or a zero quaternion)");
    qctx q = {A, B, pa, pb, out};
    dist_u u;
    u.best = INFINITY;
    u.ia = u.ib = u.skip_a = u.skip_b = -1;
    memset(&u.r, 0, sizeof u.r);
    if (cache && cache->valid && cache->ia < A->n && cache->ib < B->n) {
        /* spatial coherence: the last closest pair, warm-started, gives the
         * first (usually final) bound */
        u.skip_a = u.ia = (int)cache->ia;
        u.skip_b = u.ib = (int)cache->ib;
        u.best = leaf_dist(&q, u.ia, u.ib, &cache->warm, &u.r);
    }
    if (traverse(&q, &u.best, 0, dist_leaf, &u) < 0)
        return rve_err_set(err, RVE_EINTERNAL, NULL, "compound tree deeper than the traversal stack");
    if (u.ia < 0)
        return rve_err_set(err, RVE_EINTERNAL, NULL, "compound query visited no piece pair");
    out->d = u.r.d;
    v3_copy(out->p, u.r.p);
    v3_copy(out->q, u.r.q);
    out->status = u.r.status;
    out->ia = (size_t)u.ia;
    out->ib = (size_t)u.ib;
    if (cache) {
        if (!cache->valid || cache->ia != out->ia || cache->ib != out->ib) {
            rve_gjk_simplex_init(&cache->warm);
            /* warm the new pair's simplex for the next query */
            rve_dist_result r;
            leaf_dist(&q, u.ia, u.ib, &cache->warm, &r);
        }
        cache->valid = 1;
        cache->ia = out->ia;
        cache->ib = out->ib;
        cache->pa = *pa;
        cache->pb = *pb;
        cache->d = out->d;
    }
    return out->status == RVE_GJK_DEGENERATE ? rve_err_set(err, RVE_EDATA, NULL, "degenerate compound piece")
                                             : RVE_OK;
}

static int isect_leaf(qctx *q, int ia, int ib, void *u)
{
    int *hit = u;
    rve_shape sa, sb;
    rve_compound_piece(q->A, q->pa, (size_t)ia, &sa);
    rve_compound_piece(q->B, q->pb, (size_t)ib, &sb);
    q->res->gjk_calls++;
    int r = rve_gjk_intersect(&sa, &sb, NULL);
    if (r != 0) {
        *hit = r;
        q->res->ia = (size_t)ia;
        q->res->ib = (size_t)ib;
        return 1;
    }
    return 0;
}

int rve_compound_intersect(const rve_compound *A, const rve_pose *pa, const rve_compound *B, const rve_pose *pb,
                           const rve_compound_cache *cache, rve_compound_result *stats)
{
    rve_compound_result dummy;
    rve_compound_result *res = stats ? stats : &dummy;
    memset(res, 0, sizeof *res);
    if (!valid_pose(pa) || !valid_pose(pb))
        return -1;
    if (cache && cache->valid) {
        /* Eq. 3.14: the old distance less the largest displacements is a
         * lower bound of the new distance */
        double dt = cache->d - max_displacement(A, &cache->pa, pa) - max_displacement(B, &cache->pb, pb);
        if (dt > 0) {
            res->cached = 1;
            res->d = dt;
            return 0;
        }
    }
    qctx q = {A, B, pa, pb, res};
    int hit = 0;
    const double zero = 0;
    if (traverse(&q, &zero, 0, isect_leaf, &hit) < 0)
        return -1;
    return hit;
}

typedef struct {
    const rve_epa_opts *opts;
    rve_compound_contact *deepest, *all;
    size_t max_all, nall;
    rve_status st;
    rve_err *err;
} pen_u;

static int pen_leaf(qctx *q, int ia, int ib, void *u)
{
    pen_u *p = u;
    rve_shape sa, sb;
    rve_compound_piece(q->A, q->pa, (size_t)ia, &sa);
    rve_compound_piece(q->B, q->pb, (size_t)ib, &sb);
    q->res->gjk_calls++;
    if (rve_gjk_intersect(&sa, &sb, NULL) != 1)
        return 0;
    rve_contact c;
    rve_status st = rve_contact_epa(&sa, &sb, p->opts, &c, p->err);
    if (st != RVE_OK && st != RVE_ECAP) {
        p->st = st;
        return 1;
    }
    if (st == RVE_ECAP)
        p->st = RVE_ECAP; /* kept: the best estimate, reported to the caller */
    if (c.s > 0) /* touching within rounding: GJK said overlap, EPA found none */
        c.s = 0;
    if (p->nall < p->max_all && p->all) {
        p->all[p->nall].c = c;
        p->all[p->nall].ia = (size_t)ia;
        p->all[p->nall].ib = (size_t)ib;
    }
    p->nall++;
    if (c.s < p->deepest->c.s) {
        p->deepest->c = c;
        p->deepest->ia = (size_t)ia;
        p->deepest->ib = (size_t)ib;
    }
    return 0;
}

rve_status rve_compound_penetration(const rve_compound *A, const rve_pose *pa, const rve_compound *B,
                                    const rve_pose *pb, const rve_epa_opts *opts, rve_compound_contact *deepest,
                                    rve_compound_contact *all, size_t max_all, size_t *nall,
                                    rve_compound_result *stats, rve_err *err)
{
    rve_compound_result dummy;
    rve_compound_result *res = stats ? stats : &dummy;
    memset(res, 0, sizeof *res);
    memset(deepest, 0, sizeof *deepest);
    deepest->c.s = INFINITY;
    if (nall)
        *nall = 0;
    if (!valid_pose(pa) || !valid_pose(pb))
        return rve_err_set(err, RVE_EDATA, NULL, "compound pose is not finite (or a zero quaternion)");
    qctx q = {A, B, pa, pb, res};
    pen_u u = {opts, deepest, all, max_all, 0, RVE_OK, err};
    const double zero = 0;
    if (traverse(&q, &zero, 0, pen_leaf, &u) < 0)
        return rve_err_set(err, RVE_EINTERNAL, NULL, "compound tree deeper than the traversal stack");
    if (u.st != RVE_OK && u.st != RVE_ECAP)
        return u.st;
    if (nall)
        *nall = u.nall;
    if (u.nall == 0) {
        /* separated: the distance, normal along the witnesses */
        rve_compound_result r;
        rve_status st = rve_compound_dist(A, pa, B, pb, NULL, &r, err);
        if (st != RVE_OK)
            return st;
        res->gjk_calls += r.gjk_calls;
        res->node_tests += r.node_tests;
        deepest->c.s = r.d;
        v3_copy(deepest->c.p, r.p);
        v3_copy(deepest->c.q, r.q);
        double n[3];
        v3_sub(n, r.q, r.p);
        double len = v3_norm(n);
        if (len > 0)
            v3_scale(deepest->c.n, n, 1 / len);
        deepest->ia = r.ia;
        deepest->ib = r.ib;
        return RVE_OK;
    }
    return u.st == RVE_ECAP ? rve_err_set(err, RVE_ECAP, NULL, "EPA reached its cap on a piece pair (best "
                                                               "estimate returned)")
                            : RVE_OK;
}
