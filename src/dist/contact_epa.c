/* Penetration depth of two support-mapped convex shapes: GJK (the distance kernel)
 * and, when the bodies overlap, expansion of GJK's final simplex to the face of the
 * Minkowski difference K = A - B closest to the origin (Descantes' GJK-TD; in effect
 * the expanding polytope algorithm, EPA).
 *
 * The polytope is kept convex: the vertices added along the closest face's normal
 * replace every face they see (the connected visible region around that face) and
 * the horizon is re-triangulated.  Faces are oriented outwards from the polytope's
 * own interior, not from the origin, so touching (origin on the boundary) and
 * degenerate starts need no special case; the smallest face offset is always a
 * lower bound of the depth and the support value along its normal an upper bound,
 * and the loop stops when they meet.  The closest point on the final face uses the
 * in-plane area form of the barycentric weights (no 0/0 at zero depth).
 *
 * Speed (bench/bench_contact): decisions are taken in double unless they are within
 * 1e-11 of the size, then in long double on the exact differences a - b of the
 * support points (kept as a and b; a - b is rounded on demand): visibility from the
 * orientation determinant (no plane made), stopping from the face's long double
 * plane, which then also gives the result; near ties of the closest face are only
 * settled when the loop is about to stop (expanding any nearly closest face is as
 * good).  Everything lives in fixed arrays on the stack (no allocation). */
#include "config.h"
#include <rve/dist.h>
#include "util/vec3.h"
#include "dist/dist_internal.h"
#include "dist/contact_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define EPA_MAX_VERTS 320
#define EPA_MAX_FACES 1024

typedef struct {
    double w[3], a[3], b[3]; /* w = a - b rounded; a - b in long double on demand (vert_wl) */
} epa_vert;

typedef struct {
    int v[3];    /* counter-clockwise seen from outside */
    int nb[3];   /* neighbour across edge (v[i], v[i+1]) */
    int ne[3];   /* edge index of this face in that neighbour */
    double n[3]; /* outward unit normal */
    double d;    /* offset n.x */
    int lplane;  /* the long double plane (epa_ws.FL) is set */
    int apex;    /* the vertex (0..2) shared by the two shorter edges */
    int alive;
    int mark;
} epa_face;

/* the plane of a face in long double (decisions near rounding are taken on it);
 * kept apart from epa_face so that the hot face records stay small */
typedef struct {
    long double nl[3], dl;
} epa_facel;

static const int nx3[3] = {1, 2, 0}, pv3[3] = {2, 0, 1}; /* i + 1, i + 2 (mod 3) */

/* EPA_PAD: the arrays indexed by face are 4 KB or 8 KB long; without padding their
 * starts (and the counters after them) would all fall into the same L1 cache set */
#define EPA_PAD 16

typedef struct {
    const rve_shape *A, *B;
    dist_frame fa, fb;
    int ha, hb;
    int nv, nf, nh, nfree, nvis, pass;
    double scale;
    epa_vert V[EPA_MAX_VERTS + 1]; /* + 1: the candidate support point */
    epa_face F[EPA_MAX_FACES];
    epa_facel FL[EPA_MAX_FACES];
    int horizon_f[EPA_MAX_FACES + EPA_PAD], horizon_e[EPA_MAX_FACES + 2 * EPA_PAD];
    int freeslot[EPA_MAX_FACES + 3 * EPA_PAD];
    int visl[EPA_MAX_FACES + 4 * EPA_PAD];
    double fd[EPA_MAX_FACES + 5 * EPA_PAD]; /* offsets of living faces, +inf for dead slots (hot scan) */
} epa_ws;

/* support of K = A - B in direction d: w = s_A(d) - s_B(-d) */
static void epa_support(epa_ws *W, const double d[3], epa_vert *x)
{
    double m[3] = {-d[0], -d[1], -d[2]};
    dist_support_world(W->A, &W->fa, d, x->a, &W->ha);
    dist_support_world(W->B, &W->fb, m, x->b, &W->hb);
    v3_sub(x->w, x->a, x->b);
}

static void vert_fill(epa_vert *x) { v3_sub(x->w, x->a, x->b); }

/* a - b in long double (exact for coordinates of similar magnitude) */
static inline void vert_wl(const epa_vert *x, long double wl[3])
{
    wl[0] = (long double)x->a[0] - (long double)x->b[0];
    wl[1] = (long double)x->a[1] - (long double)x->b[1];
    wl[2] = (long double)x->a[2] - (long double)x->b[2];
}

static long double ldotl(const long double a[3], const long double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* signed height of x above the long double plane of face i */
static long double face_height(const epa_ws *W, int i, const epa_vert *x)
{
    long double wl[3];
    vert_wl(x, wl);
    return ldotl(W->FL[i].nl, wl) - W->FL[i].dl;
}

/* plane of face f in double (cross product of the two shortest edges); returns 0
 * for a degenerate triangle.  The long double plane is made on demand. */
DIST_INLINE int face_plane(epa_ws *W, epa_face *f)
{
    const double *a = W->V[f->v[0]].w, *b = W->V[f->v[1]].w, *c = W->V[f->v[2]].w;
    double ab[3], ac[3], bc[3], n[3];
    v3_sub(ab, b, a);
    v3_sub(ac, c, a);
    v3_sub(bc, c, b);
    double lab = v3_norm2(ab), lac = v3_norm2(ac), lbc = v3_norm2(bc);
    const double *x = ab, *y = ac;
    if (lab >= lac && lab >= lbc) {
        x = ac;
        y = bc;
    } else if (lac >= lab && lac >= lbc) {
        x = ab;
        y = bc;
    }
    v3_cross(n, x, y);
    double l = v3_norm(n);
    if (!(l > 1e-300) || !(l > 1e-30 * (lab + lac + lbc)))
        return 0;
    v3_scale(f->n, n, 1 / l);
    /* offset at the vertex the two shorter edges share */
    f->apex = x == ab && y == ac ? 0 : x == ac ? 2 : 1;
    f->d = v3_dot(f->n, W->V[f->v[f->apex]].w);
    f->lplane = 0;
    return 1;
}

/* w above the plane of face i by more than eps, in long double: from the plane
 * when it is made, else from the orientation determinant of the face and w (no
 * square root or division; the threshold eps |n| uses |n|_1 >= |n|, a factor of
 * at most sqrt 3 on a tolerance far below the double rounding) */
static int face_above_l(const epa_ws *W, int i, const epa_vert *w, long double eps)
{
    const epa_face *f = &W->F[i];
    if (f->lplane)
        return face_height(W, i, w) > eps;
    /* edges from the apex (the two shorter ones: the best conditioned normal) */
    long double a[3], b[3], c[3], x[3];
    vert_wl(&W->V[f->v[f->apex]], a);
    vert_wl(&W->V[f->v[nx3[f->apex]]], b);
    vert_wl(&W->V[f->v[pv3[f->apex]]], c);
    vert_wl(w, x);
    long double ab[3], ac[3], ax[3], n[3];
    ab[0] = b[0] - a[0], ab[1] = b[1] - a[1], ab[2] = b[2] - a[2];
    ac[0] = c[0] - a[0], ac[1] = c[1] - a[1], ac[2] = c[2] - a[2];
    ax[0] = x[0] - a[0], ax[1] = x[1] - a[1], ax[2] = x[2] - a[2];
    n[0] = ab[1] * ac[2] - ab[2] * ac[1];
    n[1] = ab[2] * ac[0] - ab[0] * ac[2];
    n[2] = ab[0] * ac[1] - ab[1] * ac[0];
    long double det = ldotl(n, ax);
    return det > eps * (fabsl(n[0]) + fabsl(n[1]) + fabsl(n[2]));
}

/* the long double plane of face i (made once): the cross product of the two
 * shorter edges (those from the apex chosen in double), offset at the apex */
static void face_plane_l(epa_ws *W, int i)
{
    epa_face *f = &W->F[i];
    if (f->lplane)
        return;
    long double a[3], b[3], c[3];
    vert_wl(&W->V[f->v[f->apex]], a);
    vert_wl(&W->V[f->v[nx3[f->apex]]], b);
    vert_wl(&W->V[f->v[pv3[f->apex]]], c);
    long double x[3], y[3], n[3];
    x[0] = b[0] - a[0], x[1] = b[1] - a[1], x[2] = b[2] - a[2];
    y[0] = c[0] - a[0], y[1] = c[1] - a[1], y[2] = c[2] - a[2];
    n[0] = x[1] * y[2] - x[2] * y[1];
    n[1] = x[2] * y[0] - x[0] * y[2];
    n[2] = x[0] * y[1] - x[1] * y[0];
    long double r = 1 / sqrtl(ldotl(n, n));
    epa_facel *fl = &W->FL[i];
    fl->nl[0] = n[0] * r;
    fl->nl[1] = n[1] * r;
    fl->nl[2] = n[2] * r;
    fl->dl = ldotl(fl->nl, a);
    f->lplane = 1;
}

DIST_INLINE int new_face(epa_ws *W, int a, int b, int c)
{
    int i;
    /* reuse a dead slot first */
    if (W->nfree > 0)
        i = W->freeslot[--W->nfree];
    else {
        if (W->nf == EPA_MAX_FACES)
            return -1;
        i = W->nf++;
    }
    epa_face *f = &W->F[i];
    f->v[0] = a;
    f->v[1] = b;
    f->v[2] = c;
    f->alive = 1;
    f->mark = 0;
    if (!face_plane(W, f)) {
        f->alive = 0;
        W->fd[i] = INFINITY;
        W->freeslot[W->nfree++] = i;
        return -2;
    }
    W->fd[i] = f->d;
    return i;
}

static void link(epa_ws *W, int f, int e, int g, int h)
{
    W->F[f].nb[e] = g;
    W->F[f].ne[e] = h;
    W->F[g].nb[h] = f;
    W->F[g].ne[h] = e;
}

/* Initial tetrahedron from GJK's simplex completed with support points; returns 0
 * when K is flat (no tetrahedron of positive volume exists among the candidates). */
static int epa_init(epa_ws *W, const rve_dist_result *g)
{
    epa_vert cand[4 + 14];
    int nc = 0;
    for (int i = 0; i < g->n && i < 4; i++) {
        v3_copy(cand[nc].a, g->a[i]);
        v3_copy(cand[nc].b, g->b[i]);
        vert_fill(&cand[nc]);
        nc++;
    }
    static const double dirs[14][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1},
                                       {0, 0, -1}, {1, 1, 1}, {-1, -1, -1}, {1, -1, 1}, {-1, 1, -1},
                                       {1, 1, -1}, {-1, -1, 1}, {-1, 1, 1}, {1, -1, -1}};
    /* only add supports when the simplex is not already a solid tetrahedron */
    int need = 1;
    if (nc == 4) {
        double u[3], v[3], w[3], x[3];
        v3_sub(u, cand[1].w, cand[0].w);
        v3_sub(v, cand[2].w, cand[0].w);
        v3_sub(w, cand[3].w, cand[0].w);
        v3_cross(x, u, v);
        /* solid when |vol| > 1e-9 l^3, l = 3 max |edge| >= the sum of the edges
         * (squared: no square roots) */
        double vol = v3_dot(x, w), m2 = fmax(v3_norm2(u), fmax(v3_norm2(v), v3_norm2(w)));
        if (vol * vol > 1e-18 * 729 * m2 * m2 * m2)
            need = 0;
    }
    if (need)
        for (int i = 0; i < 14; i++)
            epa_support(W, dirs[i], &cand[nc++]);
    /* greedy largest tetrahedron */
    double sc = 0;
    for (int i = 0; i < nc; i++)
        if (v3_maxabs(cand[i].w) > sc)
            sc = v3_maxabs(cand[i].w);
    W->scale = sc;
    int i0 = 0, i1 = 1, i2 = 2, i3 = 3;
    double sgn = 0;
    if (!need) {
        /* GJK's simplex is a solid tetrahedron: take it as it is */
        double u[3], v[3], w[3], x[3];
        v3_sub(u, cand[1].w, cand[0].w);
        v3_sub(v, cand[2].w, cand[0].w);
        v3_sub(w, cand[3].w, cand[0].w);
        v3_cross(x, u, v);
        sgn = v3_dot(x, w);
    } else {
        i1 = i2 = i3 = -1;
        double best = -1;
        for (int i = 1; i < nc; i++) {
            double d = v3_dist2(cand[i].w, cand[i0].w);
            if (d > best) {
                best = d;
                i1 = i;
            }
        }
        if (!(best > 0))
            return 0;
        double e[3];
        v3_sub(e, cand[i1].w, cand[i0].w);
        best = -1;
        for (int i = 0; i < nc; i++) {
            double t[3], c[3];
            v3_sub(t, cand[i].w, cand[i0].w);
            v3_cross(c, e, t);
            double d = v3_norm2(c);
            if (d > best) {
                best = d;
                i2 = i;
            }
        }
        double nrm[3], t2[3];
        v3_sub(t2, cand[i2].w, cand[i0].w);
        v3_cross(nrm, e, t2);
        double ln = v3_norm(nrm);
        if (!(ln > 1e-14 * v3_norm2(e)))
            return 0;
        best = -1;
        for (int i = 0; i < nc; i++) {
            double t[3];
            v3_sub(t, cand[i].w, cand[i0].w);
            double d = v3_dot(nrm, t);
            if (fabs(d) > best) {
                best = fabs(d);
                i3 = i;
                sgn = d;
            }
        }
        if (!(best > 1e-12 * ln * sqrt(v3_norm2(e))))
            return 0;
    }
    W->V[0] = cand[i0];
    W->V[1] = cand[i1];
    W->V[2] = cand[i2];
    W->V[3] = cand[i3];
    W->nv = 4;
    W->nf = 0;
    W->nfree = 0;
    /* orientation: vertex 3 lies on the side sgn of plane (0,1,2) */
    int f0, f1, f2, f3;
    if (sgn < 0) {
        f0 = new_face(W, 0, 1, 2);
        f1 = new_face(W, 1, 0, 3);
        f2 = new_face(W, 2, 1, 3);
        f3 = new_face(W, 0, 2, 3);
    } else {
        f0 = new_face(W, 0, 2, 1);
        f1 = new_face(W, 1, 2, 3);
        f2 = new_face(W, 2, 0, 3);
        f3 = new_face(W, 0, 1, 3);
    }
    if (f0 < 0 || f1 < 0 || f2 < 0 || f3 < 0)
        return 0;
    /* neighbours (faces in slots 0..3): across edge i, (v[i], v[i+1]), of face f
     * lies face nb[f][i], where that edge is its edge ne[f][i] (run backwards);
     * the rule: across edge (a, b) lies the face that misses f's third vertex */
    static const int nbt[2][4][3] = {{{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}},
                                     {{2, 1, 3}, {0, 2, 3}, {0, 3, 1}, {0, 1, 2}}};
    static const int net[2][4][3] = {{{0, 0, 0}, {0, 2, 1}, {1, 2, 1}, {2, 2, 1}},
                                     {{0, 0, 0}, {1, 2, 1}, {0, 2, 1}, {2, 2, 1}}};
    const int o = sgn < 0 ? 0 : 1;
    for (int f = 0; f < 4; f++)
        for (int i = 0; i < 3; i++) {
            W->F[f].nb[i] = nbt[o][f][i];
            W->F[f].ne[i] = net[o][f][i];
        }
    return 1;
}

/* Visible region from w, grown from face f0 by a depth-first walk (as Bullet's
 * btGjkEpa2 expand(): each face entered through edge e continues with e+1, e+2), which
 * meets the horizon edges of the invisible faces in loop order. Returns 0 on overflow
 * or a horizon that does not close into one loop. */
static int epa_horizon2(epa_ws *W, int f0, const epa_vert *w, long double eps)
{
    int sf[EPA_MAX_FACES + 6 * EPA_PAD], sstart[EPA_MAX_FACES + 7 * EPA_PAD], scnt[EPA_MAX_FACES + 8 * EPA_PAD], sp = 0;
    W->nh = 0;
    const int pass = ++W->pass;
    W->F[f0].mark = pass;
    W->visl[0] = f0;
    W->nvis = 1;
    sf[0] = f0;
    sstart[0] = 0;
    scnt[0] = 0;
    sp = 1;
    while (sp > 0) {
        int f = sf[sp - 1];
        if (scnt[sp - 1] == (sp == 1 ? 3 : 2)) {
            sp--;
            continue;
        }
        int e = sstart[sp - 1] + scnt[sp - 1];
        e = e >= 3 ? e - 3 : e;
        scnt[sp - 1]++;
        int g = W->F[f].nb[e], ge = W->F[f].ne[e];
        if (W->F[g].mark == pass)
            continue;
        /* visibility in double unless too close to call */
        double hd = v3_dot(W->F[g].n, w->w) - W->F[g].d;
        int vis;
        if (fabs(hd) > 1e-11 * W->scale)
            vis = hd > 0;
        else
            vis = face_above_l(W, g, w, eps);
        if (vis) {
            W->F[g].mark = pass;
            W->visl[W->nvis++] = g;
            if (sp == EPA_MAX_FACES)
                return 0;
            sf[sp] = g;
            sstart[sp] = nx3[ge];
            scnt[sp] = 0;
            sp++;
        } else {
            W->horizon_f[W->nh] = g;
            W->horizon_e[W->nh] = ge;
            W->nh++;
            if (W->nh >= EPA_MAX_FACES)
                return 0;
        }
    }
    if (W->nh < 3)
        return 0;
    for (int h = 0; h < W->nh; h++) {
        int f = W->horizon_f[h], e = W->horizon_e[h];
        int h1 = h + 1 == W->nh ? 0 : h + 1;
        int g = W->horizon_f[h1], ge = W->horizon_e[h1];
        if (W->F[f].v[e] != W->F[g].v[nx3[ge]])
            return 0;
    }
    return 1;
}

static rve_status epa_shapes(const rve_shape *A, const rve_shape *B, const rve_epa_opts *opts, rve_contact *out,
                             rve_err *err);

rve_status rve_contact_epa(const rve_shape *A, const rve_shape *B, const rve_epa_opts *opts, rve_contact *out,
                           rve_err *err)
{
    /* extreme magnitudes: run on copies scaled by a power of two (exact) */
    dist_scaled_pair S;
    int k = dist_pair_scale(A, B, &S);
    if (k < 0)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory (scaled copies)");
    if (k == 0)
        return epa_shapes(A, B, opts, out, err);
    rve_status st = epa_shapes(&S.a, &S.b, opts, out, err);
    dist_pair_scale_free(&S);
    if (!dist_contact_unscale(out, S.sc) && st == RVE_OK)
        st = rve_err_set(err, RVE_EDATA, NULL, "the signed distance exceeds the double range");
    return st;
}

/* The cores are apart: the contact is GJK's closest pair, radii added back. */
static rve_status epa_apart(const rve_dist_result *g, rve_gjk_status gs, double ra, double rb, rve_contact *out,
                            rve_err *err)
{
    double u[3];
    v3_sub(u, g->q, g->p);
    v3_scale(out->n, u, 1 / g->d);
    out->s = g->d - ra - rb;
    v3_axpy(out->p, g->p, ra, out->n);
    v3_axpy(out->q, g->q, -rb, out->n);
    if (gs == RVE_GJK_CAP)
        return rve_err_set(err, RVE_ECAP, NULL, "GJK iteration cap reached");
    return RVE_OK;
}

static void epa_ws_setup(epa_ws *W, const rve_shape *ca, const rve_shape *cb)
{
    W->A = ca;
    W->B = cb;
    dist_frame_init(&W->fa, ca);
    dist_frame_init(&W->fb, cb);
    W->ha = W->hb = -1;
    W->pass = 0;
    W->nfree = 0;
    if (ca->kind == RVE_SHAPE_POLYTOPE && ca->graph)
        W->ha = ca->graph->start;
    if (cb->kind == RVE_SHAPE_POLYTOPE && cb->graph)
        W->hb = cb->graph->start;
}

/* Remove the faces visible from vertex wi and add the fan around the horizon;
 * 0 when a new face cannot be made (the polytope is then broken). */
static int epa_replace_visible(epa_ws *W, int wi)
{
    for (int k = 0; k < W->nvis; k++) {
        int i = W->visl[k];
        W->F[i].alive = 0;
        W->fd[i] = INFINITY;
        W->freeslot[W->nfree++] = i;
    }
    int first = -1, prev = -1;
    for (int h = 0; h < W->nh; h++) {
        int gface = W->horizon_f[h], ge = W->horizon_e[h];
        int a = W->F[gface].v[nx3[ge]], b = W->F[gface].v[ge];
        int nf = new_face(W, a, b, wi);
        if (nf < 0)
            return 0;
        link(W, nf, 0, gface, ge);
        if (prev >= 0)
            link(W, nf, 2, prev, 1);
        else
            first = nf;
        prev = nf;
    }
    link(W, first, 2, prev, 1);
    return 1;
}

/* The contact from face best of the final polytope: v = d n, barycentric
 * weights by in-plane areas, radii added back. */
static void epa_result(epa_ws *W, int best, double ra, double rb, rve_contact *out)
{
    epa_face *f = &W->F[best];
    if (!f->alive) {
        /* (only after a failed expansion) find the closest living face again */
        double bd = INFINITY;
        for (int i = 0; i < W->nf; i++)
            if (W->F[i].alive && W->F[i].d < bd) {
                bd = W->F[i].d;
                best = i;
            }
        f = &W->F[best];
    }
    /* final face in long double from the support points on A and B (exact inputs):
     * the normal and offset of the face then carry no cancellation from w = a - b */
    const epa_vert *tri[3] = {&W->V[f->v[0]], &W->V[f->v[1]], &W->V[f->v[2]]};
    /* its long double plane (already made by the termination test; same winding,
     * so the same outward orientation as the double plane) */
    long double nn[3], d;
    face_plane_l(W, best);
    const epa_facel *fl = &W->FL[best];
    if (isfinite((double)(fl->nl[0] + fl->nl[1] + fl->nl[2] + fl->dl))) {
        for (int j = 0; j < 3; j++)
            nn[j] = fl->nl[j];
        d = fl->dl;
    } else {
        for (int j = 0; j < 3; j++)
            nn[j] = f->n[j];
        d = f->d;
    }
    /* barycentric weights of v = d n by in-plane areas (double: they only place
     * the witness points, to the rounding of the coordinates) */
    double nd[3] = {(double)nn[0], (double)nn[1], (double)nn[2]}, dd = (double)d, v[3], lam[3], tot = 0;
    v3_scale(v, nd, dd);
    for (int i = 0; i < 3; i++) {
        double t1[3], t2[3], c[3];
        v3_sub(t1, tri[nx3[i]]->w, v);
        v3_sub(t2, tri[pv3[i]]->w, v);
        v3_cross(c, t1, t2);
        lam[i] = v3_dot(nd, c);
        tot += lam[i];
    }
    if (!(fabs(tot) > 0))
        lam[0] = lam[1] = lam[2] = 1.0 / 3;
    else {
        double itot = 1 / tot;
        for (int i = 0; i < 3; i++)
            lam[i] *= itot;
    }
    double p[3] = {0, 0, 0}, q[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        v3_axpy(p, p, lam[i], tri[i]->a);
        v3_axpy(q, q, lam[i], tri[i]->b);
    }
    for (int j = 0; j < 3; j++)
        out->n[j] = nd[j] + 0.0; /* no negative zeros in the output */
    v3_normalize(out->n);
    out->s = (double)-d - ra - rb;
    v3_axpy(out->p, p, ra, out->n);
    v3_axpy(out->q, q, -rb, out->n);
}


static rve_status epa_shapes(const rve_shape *A, const rve_shape *B, const rve_epa_opts *opts, rve_contact *out,
                             rve_err *err)
{
    memset(out, 0, sizeof *out);
    rve_epa_opts o = {0, 0};
    if (opts)
        o = *opts;
    double tol = o.tol > 0 ? o.tol : 1e-18;
    int maxit = o.max_iter > 0 ? o.max_iter : EPA_MAX_VERTS - 4;
    if (maxit > EPA_MAX_VERTS - 4)
        maxit = EPA_MAX_VERTS - 4;
    /* GJK on the cores (radii added back at the end) */
    rve_shape ca = *A, cb = *B;
    ca.radius = 0;
    cb.radius = 0;
    double ra = A->radius, rb = B->radius;
    rve_dist_result g;
    rve_gjk_status gs = rve_gjk_dist(&ca, &cb, NULL, NULL, &g);
    if (gs == RVE_GJK_DEGENERATE || !isfinite(g.d))
        return rve_err_set(err, RVE_EDATA, NULL, "degenerate shape (non-finite or empty)");
    out->iterations = g.iterations;
    if (gs != RVE_GJK_INTERSECT && g.d > 0)
        return epa_apart(&g, gs, ra, rb, out, err);
    /* overlap (or touching) of the cores: expand the simplex */
    epa_ws ws, *W = &ws;
    epa_ws_setup(W, &ca, &cb);
    if (!epa_init(W, &g)) {
        /* K is flat: the bodies touch without a solid overlap; depth 0 */
        out->s = -(ra + rb);
        v3_set(out->n, 1, 0, 0);
        v3_copy(out->p, g.p);
        v3_copy(out->q, g.q);
        return RVE_OK;
    }
    rve_status st = RVE_OK;
    int best = -1, it, forced = -1;
    for (it = 0;; it++) {
        /* closest face in double (near ties are settled in long double only when
         * the loop is about to stop: expanding any face of nearly the smallest
         * offset is as good as expanding the smallest) */
        best = forced;
        if (forced < 0) {
            double bd = INFINITY;
            const double *fd = W->fd;
            for (int f = 0; f < W->nf; f++)
                if (fd[f] < bd) {
                    bd = fd[f];
                    best = f;
                }
        }
        forced = -1;
        if (best < 0) {
            st = rve_err_set(err, RVE_EINTERNAL, NULL, "EPA lost its polytope");
            break;
        }
        epa_face *f = &W->F[best];
        /* the support point goes straight into the next vertex slot (kept when added) */
        epa_vert *const x = &W->V[W->nv];
        epa_support(W, f->n, x);
        long double eps = (long double)tol * W->scale;
        /* quick decision in double when far from convergence */
        double hd = v3_dot(f->n, x->w) - f->d;
        int near = !(hd > 1e-11 * W->scale);
        if (tol > 1e-11 && hd <= tol * W->scale)
            break; /* a coarse tolerance is met (decided in double; no near-tie search) */
        if (near) {
            face_plane_l(W, best);
            if (face_height(W, best, x) <= eps) {
                /* best is a face of K: stop, unless a face within rounding of its
                 * offset lies closer in long double (then expand that one) */
                double lim = W->fd[best] + 1e-11 * W->scale;
                long double bl = W->FL[best].dl;
                for (int k = 0; k < W->nf; k++)
                    if (W->fd[k] <= lim && k != best) {
                        face_plane_l(W, k);
                        if (W->FL[k].dl < bl) {
                            bl = W->FL[k].dl;
                            forced = k;
                        }
                    }
                if (forced < 0 || it >= maxit)
                    break;
                /* the closer face lies in the plane of best (every vertex within
                 * eps of it, e.g. another triangle of the same face of K): it is
                 * a face of K too (best's plane supports K), no support needed */
                const epa_face *fg = &W->F[forced];
                if (face_height(W, best, &W->V[fg->v[0]]) >= -eps && face_height(W, best, &W->V[fg->v[1]]) >= -eps &&
                    face_height(W, best, &W->V[fg->v[2]]) >= -eps) {
                    best = forced;
                    forced = -1;
                    break;
                }
                continue;
            }
        }
        if (it >= maxit || W->nv == EPA_MAX_VERTS) {
            st = rve_err_set(err, RVE_ECAP, NULL, "EPA iteration cap reached (%d)", it);
            break;
        }
        /* the new vertex must not duplicate an existing one (only possible when it
         * is within rounding of the face's plane: every vertex lies below it) */
        int dup = 0;
        for (int i = 0; near && i < W->nv && !dup; i++)
            if (v3_dist2(W->V[i].w, x->w) <= 0)
                dup = 1;
        if (dup)
            break;
        int wi = W->nv++;
        /* visibility ties within rounding only: a coarse tolerance must not change
         * the polytope, only where the loop stops */
        if (!epa_horizon2(W, best, &W->V[wi], 0.25L * (tol > 1e-11 ? 1e-18L * W->scale : eps))) {
            W->nv--;
            break; /* cannot expand consistently: keep the current face */
        }
        if (!epa_replace_visible(W, wi)) {
            st = rve_err_set(err, RVE_ECAP, NULL, "EPA could not expand a degenerate face");
            /* the polytope is broken: report the last closest face (still valid data) */
            break;
        }
    }
    if (best < 0)
        return st;
    epa_result(W, best, ra, rb, out);
    out->iterations += it;
    return st;
}

rve_status rve_contact_epa_polyhedra(const rve_polyhedron *A, const rve_polyhedron *B, const rve_epa_opts *opts,
                                     rve_contact *out, rve_err *err)
{
    rve_shape a, b;
    if (A->nv > 2147483647u || B->nv > 2147483647u)
        return rve_err_set(err, RVE_EDATA, NULL, "polyhedron too large");
    rve_shape_polytope(&a, A->v, (int)A->nv, &A->graph);
    rve_shape_polytope(&b, B->v, (int)B->nv, &B->graph);
    return rve_contact_epa(&a, &b, opts, out, err);
}

