/* fit.c - fitting a Laguerre tessellation to a grain map.
 *
 * Internal coordinates: u = (x - origin) / L with L = (hx hy hz)^(1/3), so
 * that distances are in voxel lengths and the box is [0, n h / L].  Seeds are
 * kept as (x, y, z, t) with t = w^2 the additive power weight (any real; the
 * diagram is unchanged when a constant is added to every t, which makes all
 * weights real radii on output). */
#include "config.h"
#include <rve/optim.h>
#include <rve/dist.h>
#include <rve/tess.h>
#include "optim/cpoly.h"
#include "optim/lopt.h"
#include "util/vec3.h"
#include <math.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_multimin.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void rve_fit_opts_init(rve_fit_opts *o)
{
    memset(o, 0, sizeof *o);
    o->res = 2;
    o->tol = 1e-2;
    o->max_sweeps = 8;
    o->max_evals = 25;
    o->max_seconds = 0;
    o->sub = RVE_FIT_SUB_SV;
    o->polish = 12;
    o->hinge = 300;
    o->rounds = 1;
    o->classify = 200;
    o->threads = 0;
}

void rve_fit_result_free(rve_fit_result *r)
{
    if (!r)
        return;
    free(r->label);
    free(r->seed);
    free(r->weight);
    free(r->hist);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------ fit context */
struct vbrick {
    size_t v0, v1;       /* voxels vijk[v0 .. v1-1] of one grain in one brick */
    double c[3], h[3];   /* centre and half extents of their centres' bounding box */
    double maxE;         /* committed: largest E of its voxels (lazy: an upper bound <= -tau/2) */
    int lazy;            /* committed: E, A not stored (every voxel deeper than tau/2) */
};

typedef struct {
    const rve_map *m;
    double L;            /* voxel length */
    double hs[3];        /* voxel size / L */
    double lo[3], hi[3]; /* box (internal) */
    double diag;
    int n;
    uint32_t *label;     /* n labels */
    int32_t *cell_of;    /* nlabels + 1: cell of a label, -1 absent */
    /* control points (Eq. 6.5), grouped by cell */
    size_t *cs;          /* n + 1 */
    double *cp;          /* 3 per point */
    double *cw;
    rve_gjk_simplex *warm;
    double *qd;          /* per control point, committed cell: closest point and distance (-1: recompute) */
    unsigned char *valid_eq; /* n: qd holds the committed cell (non-empty) */
    double W;
    rve_gjk_opts gopts;
    /* voxels of every grain (polishing and accuracy), grouped by cell */
    size_t *vs;          /* n + 1 */
    uint16_t *vijk;      /* 3 per voxel */
    size_t nvox;         /* non-void voxels */
    /* Polishing caches.  Each grain's voxels are stored brick by brick
     * (global 4^3 bricks), so that whole bricks can be settled by one plane
     * test on their bounding box.  For the committed cell of every grain:
     * the face excess E of each voxel and the face attaining it (A), or, for
     * bricks lying at least tau/2 deep inside the cell (lazy), only a bound. */
    size_t *bs;          /* n + 1: bricks of cell k are br[bs[k] .. bs[k+1]-1] */
    struct vbrick *br;
    double *E;           /* nvox */
    int32_t *A;          /* nvox */
    unsigned char *valid;/* n: caches hold the committed cell (non-empty) */
    double tau;          /* ramp width of the polishing cost (voxels) */
    int exact_dist;      /* GJK distances not rounded to the 2^-32 grid */
    const double *x;     /* current seeds (internal) */
} fitctx;

static void fitctx_free(fitctx *F)
{
    free(F->label);
    free(F->cell_of);
    free(F->cs);
    free(F->cp);
    free(F->cw);
    free(F->warm);
    free(F->qd);
    free(F->valid_eq);
    free(F->vs);
    free(F->vijk);
    free(F->bs);
    free(F->br);
    free(F->E);
    free(F->A);
    free(F->valid);
    memset(F, 0, sizeof *F);
}

static rve_status check_map(const rve_map *m, rve_err *err)
{
    if (!m || !m->lab || m->nx < 1 || m->ny < 1 || m->nz < 1)
        return rve_err_set(err, RVE_EDATA, NULL, "empty grain map");
    for (int a = 0; a < 3; a++)
        if (!(m->h[a] > 0) || !isfinite(m->h[a]) || !isfinite(m->origin[a]))
            return rve_err_set(err, RVE_EDATA, NULL, "voxel size and origin must be finite, sizes positive");
    if (m->nx > 65535 || m->ny > 65535 || m->nz > 65535)
        return rve_err_set(err, RVE_EDATA, NULL, "map dimensions above 65535 voxels are not supported");
    return RVE_OK;
}

/* labels, cells, geometry; with_voxels: per-grain voxel lists */
static rve_status fitctx_init(fitctx *F, const rve_map *m, int res, int with_voxels, rve_err *err)
{
    memset(F, 0, sizeof *F);
    rve_status st = check_map(m, err);
    if (st != RVE_OK)
        return st;
    F->m = m;
    F->L = cbrt(m->h[0] * m->h[1] * m->h[2]);
    for (int a = 0; a < 3; a++) {
        F->hs[a] = m->h[a] / F->L;
        F->lo[a] = 0;
    }
    F->hi[0] = m->nx * F->hs[0];
    F->hi[1] = m->ny * F->hs[1];
    F->hi[2] = m->nz * F->hs[2];
    F->diag = v3_norm(F->hi);
    size_t nvox = (size_t)m->nx * m->ny * m->nz;
    uint32_t maxl = 0;
    for (size_t v = 0; v < nvox; v++)
        if (m->lab[v] > maxl)
            maxl = m->lab[v];
    if (maxl == 0)
        return rve_err_set(err, RVE_EDATA, NULL, "the map has no grain (all voxels are void)");
    if (maxl > (1u << 28))
        return rve_err_set(err, RVE_EDATA, NULL, "labels above 2^28 are not supported (renumber the map)");
    F->cell_of = malloc(((size_t)maxl + 1) * sizeof(int32_t));
    size_t *cnt = calloc((size_t)maxl + 1, sizeof(size_t));
    if (!F->cell_of || !cnt) {
        free(cnt);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (size_t v = 0; v < nvox; v++)
        cnt[m->lab[v]]++;
    int n = 0;
    for (uint32_t l = 1; l <= maxl; l++)
        if (cnt[l])
            n++;
    F->n = n;
    F->label = malloc((size_t)n * sizeof(uint32_t));
    F->vs = calloc((size_t)n + 1, sizeof(size_t));
    if (!F->label || !F->vs) {
        free(cnt);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    n = 0;
    F->cell_of[0] = -1;
    for (uint32_t l = 1; l <= maxl; l++) {
        if (cnt[l]) {
            F->label[n] = l;
            F->cell_of[l] = n;
            F->vs[n + 1] = cnt[l];
            n++;
        } else
            F->cell_of[l] = -1;
    }
    free(cnt);
    for (int k = 0; k < n; k++)
        F->vs[k + 1] += F->vs[k];
    F->nvox = F->vs[n];
    if (with_voxels) {
        F->vijk = malloc(F->nvox * 3 * sizeof(uint16_t));
        size_t *pos = malloc((size_t)n * sizeof(size_t));
        F->E = malloc((F->nvox ? F->nvox : 1) * sizeof(double));
        F->A = malloc((F->nvox ? F->nvox : 1) * sizeof(int32_t));
        F->valid = calloc((size_t)n, 1);
        F->bs = calloc((size_t)n + 1, sizeof(size_t));
        if (!F->vijk || !pos || !F->E || !F->A || !F->valid || !F->bs) {
            free(pos);
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        }
        memcpy(pos, F->vs, (size_t)n * sizeof(size_t));
        /* brick by brick, so that each grain's voxels come grouped by brick */
        for (int bz = 0; bz < m->nz; bz += 4)
            for (int by = 0; by < m->ny; by += 4)
                for (int bx = 0; bx < m->nx; bx += 4)
                    for (int k = bz; k < bz + 4 && k < m->nz; k++)
                        for (int j = by; j < by + 4 && j < m->ny; j++)
                            for (int i = bx; i < bx + 4 && i < m->nx; i++) {
                                uint32_t l = m->lab[rve_map_index(m, i, j, k)];
                                if (!l)
                                    continue;
                                size_t p = pos[F->cell_of[l]]++;
                                F->vijk[3 * p] = (uint16_t)i;
                                F->vijk[3 * p + 1] = (uint16_t)j;
                                F->vijk[3 * p + 2] = (uint16_t)k;
                            }
        free(pos);
        /* bricks: runs of a grain's voxels with the same brick index */
        size_t nb = 0;
        for (int pass = 0; pass < 2; pass++) {
            nb = 0;
            for (int c = 0; c < n; c++) {
                if (pass == 1)
                    F->bs[c] = nb;
                for (size_t p = F->vs[c]; p < F->vs[c + 1];) {
                    size_t q = p;
                    while (q < F->vs[c + 1] && F->vijk[3 * q] / 4 == F->vijk[3 * p] / 4 &&
                           F->vijk[3 * q + 1] / 4 == F->vijk[3 * p + 1] / 4 &&
                           F->vijk[3 * q + 2] / 4 == F->vijk[3 * p + 2] / 4)
                        q++;
                    if (pass == 1) {
                        struct vbrick *b = F->br + nb;
                        double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
                        for (size_t r = p; r < q; r++)
                            for (int a = 0; a < 3; a++) {
                                double x = (F->vijk[3 * r + a] + 0.5) * F->hs[a];
                                lo[a] = x < lo[a] ? x : lo[a];
                                hi[a] = x > hi[a] ? x : hi[a];
                            }
                        b->v0 = p;
                        b->v1 = q;
                        for (int a = 0; a < 3; a++) {
                            b->c[a] = 0.5 * (lo[a] + hi[a]);
                            b->h[a] = 0.5 * (hi[a] - lo[a]);
                        }
                        b->maxE = 0;
                        b->lazy = 0;
                    }
                    nb++;
                    p = q;
                }
            }
            if (pass == 0) {
                F->br = malloc((nb ? nb : 1) * sizeof(struct vbrick));
                if (!F->br)
                    return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            }
        }
        F->bs[n] = nb;
    }
    /* control points */
    rve_bpoints *bp = NULL;
    st = rve_map_boundary(m, res, &bp, err);
    if (st != RVE_OK)
        return st;
    F->cs = calloc((size_t)n + 1, sizeof(size_t));
    F->cp = malloc((bp->n ? bp->n : 1) * 3 * sizeof(double));
    F->cw = malloc((bp->n ? bp->n : 1) * sizeof(double));
    F->warm = calloc(bp->n ? bp->n : 1, sizeof(rve_gjk_simplex));
    F->qd = malloc((bp->n ? bp->n : 1) * 4 * sizeof(double));
    F->valid_eq = calloc((size_t)n, 1);
    if (!F->cs || !F->cp || !F->cw || !F->warm || !F->qd || !F->valid_eq) {
        rve_bpoints_free(bp);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    size_t q = 0;
    F->W = 0;
    for (int k = 0; k < n; k++) {
        uint32_t l = F->label[k];
        F->cs[k] = q;
        if (l <= bp->nlabels)
            for (size_t p = bp->start[l]; p < bp->start[l + 1]; p++, q++) {
                for (int a = 0; a < 3; a++)
                    F->cp[3 * q + a] = (bp->x[3 * p + a] - m->origin[a]) / F->L;
                F->cw[q] = bp->w[p];
                F->W += bp->w[p];
            }
    }
    F->cs[n] = q;
    rve_bpoints_free(bp);
    rve_gjk_opts_default(&F->gopts);
    F->tau = 1.0;
    return RVE_OK;
}

static inline void vox_centre(const fitctx *F, size_t p, double c[3])
{
    c[0] = (F->vijk[3 * p] + 0.5) * F->hs[0];
    c[1] = (F->vijk[3 * p + 1] + 0.5) * F->hs[1];
    c[2] = (F->vijk[3 * p + 2] + 0.5) * F->hs[2];
}

/* ---------------------------------------------------------- cell costs */
/* distance from control point p to P by GJK (warm start of p; written back at commits) */
static double cp_gjk(fitctx *F, size_t p, const cpoly *P, lopt_ws *ws, double q[3])
{
    rve_gjk_simplex w = F->warm[p];
    for (int a = 0; a < w.n; a++)
        if (w.ia[a] >= P->nv || w.ia[a] < 0) {
            w.n = 0;
            break;
        }
    rve_dist_result out;
    double d = rve_dist_point_polytope_opts(F->cp + 3 * p, &P->v[0][0], P->nv, &F->gopts, &w, q ? &out : NULL);
    ws->gjk++;
    if (ws->commit)
        F->warm[p] = w; /* commits only (each point belongs to one cell) */
    if (q)
        v3_copy(q, out.q);
    /* Distances on a 2^-32 voxel grid: the two GJK sub-algorithms (and warm
     * starts) agree to ~1e-16, and without this the last-bit differences
     * flip near-tie comparisons of the simplex search, after which the
     * two fits follow different (equally good) trajectories.  Quantised,
     * both see the same objective values except when a distance lies within
     * ~1e-16 of a grid point, so --sub sv|johnson compares speed alone. */
    if (isfinite(d) && !F->exact_dist)
        d = ldexp(round(ldexp(d, 32)), -32);
    return d;
}

/* Eq. 6.5 numerator of cell k: sum a_v d(v, C_k)^2.
 *
 * A point inside C_k (plane test) needs no GJK call.  When the cell is that
 * of a neighbour k of the trial seed i, it differs from the committed cell
 * only by the plane against s_i, and the committed closest point q of each
 * point is cached: a point inside the committed cell stays inside if the new
 * plane keeps it; a point outside keeps its distance when the plane is
 * inactive at q before and after (q stays feasible and its normal cone, made
 * of the other active constraints, is unchanged, so q stays the closest
 * point).  Only the points whose closest point involves that plane call GJK. */
static double cost_eq65(void *ctx, int k, const double sk[4], const cpoly *P, lopt_ws *ws)
{
    fitctx *F = ctx;
    double s = 0;
    size_t p0 = F->cs[k], p1 = F->cs[k + 1];
    if (P->nv == 0) {
        /* empty cell: distance to the seed plus sqrt of the power gap, which
         * continues the cost to the moment the cell reappears at its seed */
        if (ws->commit)
            F->valid_eq[k] = 0;
        double g = sqrt(lopt_gap(ws, k, sk));
        for (size_t p = p0; p < p1; p++) {
            double d = v3_dist(F->cp + 3 * p, sk) + g;
            s += F->cw[p] * d * d;
        }
        return s;
    }
    int i = ws->ov_i;
    if (!ws->commit && i >= 0 && i != k && F->valid_eq[k]) {
        const double *si = ws->ov_p, *so = ws->x + 4 * (size_t)i;
        double nn[3], no[3];
        v3_sub(nn, si, sk);
        v3_sub(no, so, sk);
        double ln = v3_norm(nn), lo = v3_norm(no);
        if (ln > 0 && lo > 0) {
            double dn = (0.5 * (v3_norm2(si) - si[3] - v3_norm2(sk) + sk[3])) / ln;
            double dol = (0.5 * (v3_norm2(so) - so[3] - v3_norm2(sk) + sk[3])) / lo;
            v3_scale(nn, nn, 1.0 / ln);
            v3_scale(no, no, 1.0 / lo);
            const double tol = 1e-8 * (1.0 + F->diag);
            for (size_t p = p0; p < p1; p++) {
                const double *x = F->cp + 3 * p, *c = F->qd + 4 * p;
                if (c[3] == 0) {
                    if (v3_dot(nn, x) - dn <= 0)
                        continue; /* still inside */
                } else if (c[3] > 0 && v3_dot(no, c) - dol < -tol && v3_dot(nn, c) - dn < -tol) {
                    s += F->cw[p] * c[3] * c[3];
                    continue;
                }
                double d = cp_gjk(F, p, P, ws, NULL);
                if (isfinite(d))
                    s += F->cw[p] * d * d;
            }
            return s;
        }
    }
    for (size_t p = p0; p < p1; p++) {
        const double *x = F->cp + 3 * p;
        double *c = F->qd + 4 * p;
        if (cpoly_plane_excess(P, x) <= 0) { /* inside: the plane test decides, no GJK call */
            if (ws->commit) {
                v3_copy(c, x);
                c[3] = 0;
            }
            continue;
        }
        double q[3];
        double d = cp_gjk(F, p, P, ws, ws->commit ? q : NULL);
        if (ws->commit) {
            v3_copy(c, q);
            c[3] = isfinite(d) && d > 0 ? d : -1;
        }
        if (isfinite(d))
            s += F->cw[p] * d * d;
    }
    if (ws->commit)
        F->valid_eq[k] = 1;
    return s;
}

/* Smoothed misassigned volume of cell k: sum over its grain's voxels of
 * ramp(E / tau + 1/2), E = the voxel's face excess (largest signed distance
 * to a face plane of C_k, <= 0 inside).
 *
 * Three exact ways to compute it, the cheapest that applies:
 * - commit (the cell becomes the committed one): every brick is bounded by
 *   plane tests on its box; bricks deeper than tau/2 inside the cell count 0
 *   and are marked lazy, the other voxels get E and its face A cached;
 * - trial of a neighbour's seed i (the cell differs from the committed one
 *   only by the plane against s_i): for a voxel inside the committed cell
 *   whose largest excess is not that plane's, E' = max(E, e_i'), e_i' the
 *   excess to the new plane (the other half-spaces are unchanged and, inside
 *   a cell, its face excess is the largest excess over ALL half-spaces); a
 *   brick whose voxels are all deeper than tau/2 and that the new plane
 *   misses by tau/2 keeps its zero contribution; other voxels are
 *   re-evaluated on the trial cell;
 * - otherwise (the moved cell itself): brick bounds on the trial cell, and
 *   voxel by voxel in the bricks the bounds cannot settle. */
static inline double ramp(double e, double it)
{
    e = e * it + 0.5;
    return e <= 0 ? 0 : (e >= 1 ? 1 : e);
}

/* face excess of p and the id of the face attaining it */
static inline double excess_arg(const cpoly *P, const double p[3], int32_t *arg)
{
    double m = -1e300;
    int32_t id = 0;
    for (int f = 0; f < P->nf; f++) {
        double s = P->fn[f][0] * p[0] + P->fn[f][1] * p[1] + P->fn[f][2] * p[2] - P->fd[f];
        if (s > m) {
            m = s;
            id = P->fid[f];
        }
    }
    *arg = id;
    return m;
}

/* bounds of the face excess over brick b: *lo_any = 1 when some face has
 * every point of the box at least h outside (all voxels count 1); returns the
 * largest excess over the box (<= -h: all voxels count 0). */
static inline double brick_bound(const cpoly *P, const struct vbrick *b, double h, int *all_out)
{
    double mx = -1e300;
    *all_out = 0;
    for (int f = 0; f < P->nf; f++) {
        const double *nf = P->fn[f];
        double c = nf[0] * b->c[0] + nf[1] * b->c[1] + nf[2] * b->c[2] - P->fd[f];
        double r = fabs(nf[0]) * b->h[0] + fabs(nf[1]) * b->h[1] + fabs(nf[2]) * b->h[2];
        if (c - r >= h) {
            *all_out = 1;
            return c + r;
        }
        if (c + r > mx)
            mx = c + r;
    }
    return mx;
}

static double mis_full(fitctx *F, int k, const cpoly *P, int commit)
{
    double s = 0, it = 1.0 / F->tau, h = 0.5 * F->tau;
    for (size_t bi = F->bs[k]; bi < F->bs[k + 1]; bi++) {
        struct vbrick *b = F->br + bi;
        int out;
        double ub = brick_bound(P, b, h, &out);
        if (!out && ub <= -h) {
            if (commit) {
                b->lazy = 1;
                b->maxE = ub;
            }
            continue;
        }
        if (out && !commit) {
            s += (double)(b->v1 - b->v0);
            continue;
        }
        double mx = -1e300;
        for (size_t p = b->v0; p < b->v1; p++) {
            double c[3];
            vox_centre(F, p, c);
            int32_t a;
            double e = excess_arg(P, c, &a);
            if (commit) {
                F->E[p] = e;
                F->A[p] = a;
                mx = e > mx ? e : mx;
            }
            s += ramp(e, it);
        }
        if (commit) {
            b->lazy = 0;
            b->maxE = mx;
        }
    }
    return s;
}

static double cost_mis(void *ctx, int k, const double sk[4], const cpoly *P, lopt_ws *ws)
{
    fitctx *F = ctx;
    size_t p0 = F->vs[k], p1 = F->vs[k + 1];
    if (P->nv == 0) { /* all voxels lost, plus a pull towards reappearing */
        if (ws->commit)
            F->valid[k] = 0;
        return (double)(p1 - p0) * (1.0 + 0.1 * sqrt(lopt_gap(ws, k, sk)));
    }
    if (ws->commit) {
        double s = mis_full(F, k, P, 1);
        F->valid[k] = 1;
        return s;
    }
    int i = ws->ov_i;
    if (i < 0 || i == k || !F->valid[k])
        return mis_full(F, k, P, 0);
    /* the plane of cell k against the trial seed i: n . x <= d */
    const double *si = ws->ov_p;
    double n[3];
    v3_sub(n, si, sk);
    double nn = v3_norm(n);
    if (!(nn > 0))
        return mis_full(F, k, P, 0);
    double d = 0.5 * (v3_norm2(si) - si[3] - v3_norm2(sk) + sk[3]);
    double un[3] = {n[0] / nn, n[1] / nn, n[2] / nn}, ud = d / nn;
    double it = 1.0 / F->tau, h = 0.5 * F->tau, delta = 0;
    for (size_t bi = F->bs[k]; bi < F->bs[k + 1]; bi++) {
        const struct vbrick *b = F->br + bi;
        double ec = un[0] * b->c[0] + un[1] * b->c[1] + un[2] * b->c[2] - ud;
        double er = fabs(un[0]) * b->h[0] + fabs(un[1]) * b->h[1] + fabs(un[2]) * b->h[2];
        if (b->maxE <= -h && ec + er <= -h)
            continue; /* zero before and after */
        for (size_t p = b->v0; p < b->v1; p++) {
            double c[3];
            vox_centre(F, p, c);
            double e = v3_dot(un, c) - ud;
            if (b->lazy) { /* E <= -h: counted 0 before */
                if (e > -h)
                    delta += ramp(cpoly_plane_excess(P, c), it);
                continue;
            }
            double E = F->E[p], En;
            if (E <= 0 && F->A[p] != i && e <= 0)
                En = e > E ? e : E;
            else
                En = cpoly_plane_excess(P, c);
            if (En != E)
                delta += ramp(En, it) - ramp(E, it);
        }
    }
    return lopt_cell_cost(ws->L, k) + delta;
}

/* ------------------------------------------------------- initial guess */
/* Centroids and equivalent-sphere radii (t = r^2), internal units. */
static void initial_guess(const fitctx *F, double *x)
{
    const rve_map *m = F->m;
    int n = F->n;
    double *acc = calloc((size_t)n * 4, sizeof(double));
    if (!acc)
        return;
    size_t v = 0;
    for (int k = 0; k < m->nz; k++)
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++, v++) {
                uint32_t l = m->lab[v];
                if (!l)
                    continue;
                double *a = acc + 4 * (size_t)F->cell_of[l];
                a[0] += (i + 0.5) * F->hs[0];
                a[1] += (j + 0.5) * F->hs[1];
                a[2] += (k + 0.5) * F->hs[2];
                a[3] += 1;
            }
    for (int c = 0; c < n; c++) {
        double *a = acc + 4 * (size_t)c;
        for (int q = 0; q < 3; q++)
            x[4 * c + q] = a[q] / a[3];
        double r = cbrt(3.0 * a[3] / (4.0 * M_PI));
        x[4 * c + 3] = r * r;
    }
    free(acc);
}

/* internal (x, y, z, t) -> physical seeds and Neper weights */
static void to_physical(const fitctx *F, const double *x, double *seed, double *weight)
{
    double tmin = 0;
    for (int k = 0; k < F->n; k++)
        if (x[4 * k + 3] < tmin)
            tmin = x[4 * k + 3];
    for (int k = 0; k < F->n; k++) {
        for (int a = 0; a < 3; a++)
            seed[3 * k + a] = F->m->origin[a] + F->L * x[4 * k + a];
        weight[k] = F->L * sqrt(x[4 * k + 3] - tmin);
    }
}

static void to_internal(const fitctx *F, const double *seed, const double *weight, double *x)
{
    for (int k = 0; k < F->n; k++) {
        for (int a = 0; a < 3; a++)
            x[4 * k + a] = (seed[3 * k + a] - F->m->origin[a]) / F->L;
        double w = weight[k] / F->L;
        x[4 * k + 3] = w * w;
    }
}

rve_status rve_fit_initial(const rve_map *m, rve_fit_result *r, rve_err *err)
{
    memset(r, 0, sizeof *r);
    fitctx F;
    rve_status st = fitctx_init(&F, m, 1, 0, err);
    if (st != RVE_OK) {
        fitctx_free(&F);
        return st;
    }
    int n = F.n;
    double *x = malloc((size_t)n * 4 * sizeof(double));
    r->label = malloc((size_t)n * sizeof(uint32_t));
    r->seed = malloc((size_t)n * 3 * sizeof(double));
    r->weight = malloc((size_t)n * sizeof(double));
    if (!x || !r->label || !r->seed || !r->weight) {
        free(x);
        fitctx_free(&F);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    r->n = n;
    memcpy(r->label, F.label, (size_t)n * sizeof(uint32_t));
    initial_guess(&F, x);
    to_physical(&F, x, r->seed, r->weight);
    free(x);
    fitctx_free(&F);
    return RVE_OK;
}

/* ------------------------------------------------------------- quality */
rve_status rve_fit_quality(const rve_map *m, int n, const double *seed, const double *weight,
                           double *accuracy, double *iou_min, double *iou_median, int *empty,
                           int32_t *assign, rve_err *err)
{
    rve_status st = check_map(m, err);
    if (st != RVE_OK)
        return st;
    size_t nvox = (size_t)m->nx * m->ny * m->nz;
    /* labels of the cells: the grains in increasing order */
    uint32_t maxl = 0;
    for (size_t v = 0; v < nvox; v++)
        if (m->lab[v] > maxl)
            maxl = m->lab[v];
    if (maxl > (1u << 28))
        return rve_err_set(err, RVE_EDATA, NULL, "labels above 2^28 are not supported");
    int32_t *cell_of = malloc(((size_t)maxl + 1) * sizeof(int32_t));
    char *present = calloc((size_t)maxl + 1, 1);
    double *sw = malloc((size_t)(n > 0 ? n : 1) * 4 * sizeof(double));
    rve_map *r = rve_map_alloc(m->nx, m->ny, m->nz);
    if (!cell_of || !present || !sw || !r) {
        free(cell_of);
        free(present);
        free(sw);
        rve_map_free(r);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (size_t v = 0; v < nvox; v++)
        present[m->lab[v]] = 1;
    int c = 0;
    for (uint32_t l = 1; l <= maxl; l++)
        cell_of[l] = present[l] ? c++ : -1;
    cell_of[0] = -1;
    free(present);
    if (c != n) {
        free(cell_of);
        free(sw);
        rve_map_free(r);
        return rve_err_set(err, RVE_EUSAGE, NULL, "%d seeds for %d grains", n, c);
    }
    for (int k = 0; k < n; k++) {
        memcpy(sw + 4 * k, seed + 3 * k, 3 * sizeof(double));
        sw[4 * k + 3] = weight[k];
    }
    for (int a = 0; a < 3; a++) {
        r->h[a] = m->h[a];
        r->origin[a] = m->origin[a];
    }
    st = rve_tess_rasterize_seeds(sw, n, NULL, r, err); /* lab = cell + 1 */
    free(sw);
    if (st != RVE_OK) {
        free(cell_of);
        rve_map_free(r);
        return st;
    }
    size_t *inter = calloc((size_t)n, sizeof(size_t));
    size_t *ng = calloc((size_t)n, sizeof(size_t));
    size_t *nc = calloc((size_t)n, sizeof(size_t));
    if (!inter || !ng || !nc) {
        free(inter);
        free(ng);
        free(nc);
        free(cell_of);
        rve_map_free(r);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    size_t good = 0, tot = 0;
    for (size_t v = 0; v < nvox; v++) {
        int a = (int)r->lab[v] - 1;
        if (assign)
            assign[v] = a;
        uint32_t l = m->lab[v];
        if (!l)
            continue;
        int g = cell_of[l];
        tot++;
        ng[g]++;
        nc[a]++;
        if (a == g) {
            good++;
            inter[g]++;
        }
    }
    double *iou = malloc((size_t)n * sizeof(double));
    int ne = 0;
    for (int k = 0; k < n; k++) {
        size_t u = ng[k] + nc[k] - inter[k];
        if (iou)
            iou[k] = u ? (double)inter[k] / (double)u : 0;
        if (nc[k] == 0)
            ne++;
    }
    if (accuracy)
        *accuracy = tot ? (double)good / (double)tot : 0;
    if (empty)
        *empty = ne;
    if (iou) {
        double mn = 1;
        for (int k = 0; k < n; k++)
            if (iou[k] < mn)
                mn = iou[k];
        /* median */
        for (int a = 1; a < n; a++) {
            double t = iou[a];
            int b = a - 1;
            while (b >= 0 && iou[b] > t) {
                iou[b + 1] = iou[b];
                b--;
            }
            iou[b + 1] = t;
        }
        if (iou_min)
            *iou_min = n ? mn : 0;
        if (iou_median)
            *iou_median = n ? (n % 2 ? iou[n / 2] : 0.5 * (iou[n / 2 - 1] + iou[n / 2])) : 0;
    }
    free(iou);
    free(inter);
    free(ng);
    free(nc);
    free(cell_of);
    rve_map_free(r);
    return RVE_OK;
}

/* --------------------------------------------------------- objective */
static double eval_full_eq65(fitctx *F, const double *x, int nthreads, long *gjk)
{
    int n = F->n;
    double s = 0;
    long g = 0;
    lopt_grid *G = lopt_grid_build(n, x, F->lo, F->hi); /* NULL: sorted scan */
#pragma omp parallel num_threads(nthreads) reduction(+ : s, g)
    {
        lopt_ws ws;
        memset(&ws, 0, sizeof ws);
        ws.n = n;
        ws.x = x;
        ws.ov_i = -1;
        cpoly *w = malloc(2 * sizeof(cpoly));
        double *scr = malloc((size_t)(n + 1) * 2 * sizeof(double));
#pragma omp for schedule(dynamic, 4)
        for (int k = 0; k < n; k++) {
            if (!w || !scr)
                continue;
            const cpoly *P = lopt_full_cell(n, x, F->lo, F->hi, k, &w[0], &w[1], G, scr);
            s += cost_eq65(F, k, x + 4 * (size_t)k, P, &ws);
        }
        g += ws.gjk;
        free(w);
        free(scr);
    }
    lopt_grid_free(G);
    if (gjk)
        *gjk = g;
    return F->W > 0 ? sqrt(s / F->W) : 0;
}

rve_status rve_fit_objective(const rve_map *m, int n, const double *seed, const double *weight,
                             int res, rve_fit_sub sub, double *objective, long *gjk_calls,
                             rve_err *err)
{
    fitctx F;
    rve_status st = fitctx_init(&F, m, res, 0, err);
    if (st != RVE_OK) {
        fitctx_free(&F);
        return st;
    }
    if (n != F.n) {
        fitctx_free(&F);
        return rve_err_set(err, RVE_EUSAGE, NULL, "%d seeds for %d grains", n, F.n);
    }
    F.gopts.sub = sub == RVE_FIT_SUB_JOHNSON ? RVE_SUB_JOHNSON : RVE_SUB_SV;
    double *x = malloc((size_t)n * 4 * sizeof(double));
    if (!x) {
        fitctx_free(&F);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    to_internal(&F, seed, weight, x);
    *objective = eval_full_eq65(&F, x, rve_threads_get(), gjk_calls);
    free(x);
    fitctx_free(&F);
    return RVE_OK;
}

/* ------------------------------------------------------------------ fit */
static rve_status hist_push(rve_fit_result *r, int stage, int sweep, double obj, double mis,
                            double sec, long evals, long gjk, rve_err *err)
{
    rve_fit_hist *h = realloc(r->hist, (size_t)(r->nhist + 1) * sizeof *h);
    if (!h)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    r->hist = h;
    h += r->nhist++;
    h->stage = stage;
    h->sweep = sweep;
    h->objective = obj;
    h->misassigned = mis;
    h->seconds = sec;
    h->evals = evals;
    h->gjk_calls = gjk;
    return RVE_OK;
}

/* One fit in progress: the stages share the context, the exact measure of
 * a state and the best state seen. */
typedef struct {
    fitctx *F;
    const rve_fit_opts *o;
    rve_fit_result *r;
    lopt *L;
    double *x;           /* current state (internal) */
    double *xbest;       /* best state seen: highest exact accuracy */
    double *xtmp;        /* scratch state */
    double accbest, objbest;
    int32_t *assign;     /* nx*ny*nz: cell of each voxel in the last measured state */
    int nth;
    double t0, deadline;
} fitrun;

static int past_deadline(const fitrun *R) { return R->deadline > 0 && rve_now() > R->deadline; }

/* Exact voxel accuracy of state x: the seeds and weights as they would be
 * written (physical, into r->seed and r->weight), rasterised by power
 * distance like any reader of the .tess would; the cell of every voxel goes
 * to R->assign. */
static rve_status measure(fitrun *R, const double *x, double *acc, rve_err *err)
{
    to_physical(R->F, x, R->r->seed, R->r->weight);
    return rve_fit_quality(R->F->m, R->F->n, R->r->seed, R->r->weight, acc, NULL, NULL, NULL, R->assign, err);
}

static int repair_empty(fitctx *F, double *x, double *seed, double *weight, rve_err *err);

/* Offer state x (measured by measure(), its cells in R->assign) with its
 * exact accuracy (and Eq. 6.5 value, NAN when not computed) as the best;
 * ties keep the earlier state.  A grain whose cell holds no voxel would be
 * a grain missing from the fit: such a state is offered after a copy of it
 * has been repaired (repair_empty) and measured again, so the best state
 * never has one that the repair could restore.  R->assign then holds the
 * repaired copy's cells, and *accp, *objp its figures (objective NAN: not
 * evaluated). */
static rve_status offer(fitrun *R, const double *x, double *accp, double *objp, rve_err *err)
{
    fitctx *F = R->F;
    int n = F->n, empty = 0;
    double acc = *accp, obj = *objp;
    size_t nvox = (size_t)F->m->nx * F->m->ny * F->m->nz;
    unsigned char *has = calloc((size_t)n, 1);
    if (!has)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (size_t v = 0; v < nvox; v++)
        if (R->assign[v] >= 0 && R->assign[v] < n)
            has[R->assign[v]] = 1;
    for (int k = 0; k < n; k++)
        empty += !has[k] && F->vs[k + 1] > F->vs[k];
    free(has);
    if (empty) {
        memcpy(R->xtmp, x, (size_t)n * 4 * sizeof(double));
        rve_status st;
        if (repair_empty(F, R->xtmp, R->r->seed, R->r->weight, err) < 0)
            return err->code;
        if ((st = measure(R, R->xtmp, &acc, err)) != RVE_OK)
            return st;
        x = R->xtmp;
        obj = NAN;
        *accp = acc;
        *objp = obj;
    }
    if (acc > R->accbest) {
        R->accbest = acc;
        R->objbest = obj;
        memcpy(R->xbest, x, (size_t)n * 4 * sizeof(double));
    }
    return RVE_OK;
}

static rve_status record(fitrun *R, int stage, int sweep, double obj, double acc, rve_err *err)
{
    long ev = R->L ? lopt_evals(R->L) : 0, g = R->L ? lopt_counter(R->L) : 0;
    return hist_push(R->r, stage, sweep, obj, 1.0 - acc, rve_now() - R->t0, ev, g, err);
}

/* State x reached: measured, offered as the best, and recorded with the
 * figures of the state as it would be returned (after the repair of
 * grains left without a voxel, see offer), so that no row or progress
 * line shows an accuracy the written fit would not have. */
static rve_status reached(fitrun *R, const double *x, int stage, int sweep, double *obj, double *acc, rve_err *err)
{
    rve_status st = measure(R, x, acc, err);
    if (st == RVE_OK)
        st = offer(R, x, acc, obj, err);
    if (st == RVE_OK)
        st = record(R, stage, sweep, *obj, *acc, err);
    return st;
}

/* Grains whose cell holds no voxel get one back: the seed moves to the
 * grain's voxel nearest its centroid and the weight is raised just enough to
 * win that voxel (t_k = eps - min_j pd_j(v)), a tiny cell that the following
 * sweeps can grow.  Returns the number of grains repaired (-1 on error). */
static int repair_empty(fitctx *F, double *x, double *seed, double *weight, rve_err *err)
{
    const rve_map *m = F->m;
    int n = F->n, total = 0;
    size_t nvox = (size_t)m->nx * m->ny * m->nz;
    int32_t *as = malloc(nvox * sizeof(int32_t));
    size_t *nc = malloc((size_t)n * sizeof(size_t));
    if (!as || !nc) {
        free(as);
        free(nc);
        rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        return -1;
    }
    for (int pass = 0; pass < 4; pass++) {
        to_physical(F, x, seed, weight);
        if (rve_fit_quality(m, n, seed, weight, NULL, NULL, NULL, NULL, as, err) != RVE_OK) {
            total = -1;
            break;
        }
        memset(nc, 0, (size_t)n * sizeof(size_t));
        for (size_t v = 0; v < nvox; v++)
            if (as[v] >= 0 && as[v] < n)
                nc[as[v]]++;
        int fixed = 0;
        for (int k = 0; k < n; k++) {
            if (nc[k] > 0 || F->vs[k + 1] == F->vs[k])
                continue;
            double c[3] = {0, 0, 0}, q[3];
            for (size_t p = F->vs[k]; p < F->vs[k + 1]; p++) {
                vox_centre(F, p, q);
                v3_add(c, c, q);
            }
            v3_scale(c, c, 1.0 / (double)(F->vs[k + 1] - F->vs[k]));
            double best = 1e300, bv[3] = {c[0], c[1], c[2]};
            for (size_t p = F->vs[k]; p < F->vs[k + 1]; p++) {
                vox_centre(F, p, q);
                double d = v3_dist2(q, c);
                if (d < best) {
                    best = d;
                    v3_copy(bv, q);
                }
            }
            double pmin = 1e300;
            for (int j = 0; j < n; j++) {
                if (j == k)
                    continue;
                double d = v3_dist2(bv, x + 4 * (size_t)j) - x[4 * (size_t)j + 3];
                if (d < pmin)
                    pmin = d;
            }
            v3_copy(x + 4 * (size_t)k, bv);
            x[4 * (size_t)k + 3] = 0.1 - pmin;
            fixed++;
        }
        total += fixed;
        if (!fixed)
            break;
    }
    free(as);
    free(nc);
    return total;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Seeds that left the box are brought back without changing the diagram:
 * s' = c + l (s - c), t' = |s'|^2 - l |s|^2 + l t (0 < l <= 1, c the box
 * centre) turns every score 2 s.x - |s|^2 + t into l times itself plus a
 * term common to all cells, so every point keeps its cell. */
static void keep_seeds_inside(const fitctx *F, double *x)
{
    double c[3], l = 1;
    v3_scale(c, F->hi, 0.5);
    for (int k = 0; k < F->n; k++)
        for (int a = 0; a < 3; a++) {
            double mg = 1e-3 * (F->hi[a] - F->lo[a]), d = x[4 * k + a] - c[a];
            double half = 0.5 * (F->hi[a] - F->lo[a]) - mg;
            if (fabs(d) > half && half / fabs(d) < l)
                l = half / fabs(d);
        }
    if (l >= 1)
        return;
    for (int k = 0; k < F->n; k++) {
        double *s = x + 4 * (size_t)k, s2 = v3_norm2(s), sn[3];
        for (int a = 0; a < 3; a++)
            sn[a] = c[a] + l * (s[a] - c[a]);
        s[3] = v3_norm2(sn) - l * s2 + l * s[3];
        v3_copy(s, sn);
    }
}

/* ------------------------------------------------ classifier refinement */
/* Grain adjacency in the map (face neighbours), CSR: the rivals of grain g
 * are adj[as[g] .. as[g+1]-1].  Returns -1 when out of memory. */
static int grain_adjacency(const fitctx *F, int **as_out, int **adj_out)
{
    const rve_map *m = F->m;
    int n = F->n;
    size_t cap = 64, na = 0;
    uint64_t *pairs = malloc(cap * sizeof(uint64_t));
    int *as = calloc((size_t)n + 1, sizeof(int)), *adj = NULL;
    if (!pairs || !as)
        goto oom;
    for (int k = 0; k < m->nz; k++)
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++) {
                uint32_t l = m->lab[rve_map_index(m, i, j, k)];
                if (!l)
                    continue;
                for (int a = 0; a < 3; a++) {
                    int ii = i + (a == 0), jj = j + (a == 1), kk = k + (a == 2);
                    if (ii >= m->nx || jj >= m->ny || kk >= m->nz)
                        continue;
                    uint32_t l2 = m->lab[rve_map_index(m, ii, jj, kk)];
                    if (!l2 || l2 == l)
                        continue;
                    int g = F->cell_of[l], h = F->cell_of[l2];
                    if (na + 2 > cap) {
                        uint64_t *np = realloc(pairs, 2 * cap * sizeof(uint64_t));
                        if (!np)
                            goto oom;
                        pairs = np;
                        cap *= 2;
                    }
                    pairs[na++] = ((uint64_t)g << 32) | (uint32_t)h;
                    pairs[na++] = ((uint64_t)h << 32) | (uint32_t)g;
                }
            }
    qsort(pairs, na, sizeof(uint64_t), cmp_u64);
    size_t nu = 0;
    for (size_t q = 0; q < na; q++)
        if (nu == 0 || pairs[q] != pairs[nu - 1])
            pairs[nu++] = pairs[q];
    adj = malloc((nu ? nu : 1) * sizeof(int));
    if (!adj)
        goto oom;
    for (size_t q = 0; q < nu; q++) {
        as[(pairs[q] >> 32) + 1]++;
        adj[q] = (int)(uint32_t)pairs[q];
    }
    for (int g = 0; g < n; g++)
        as[g + 1] += as[g];
    free(pairs);
    *as_out = as;
    *adj_out = adj;
    return 0;
oom:
    free(pairs);
    free(as);
    free(adj);
    return -1;
}

/* One passive-aggressive epoch over every voxel (see classify_refine);
 * returns the number of updates. */
static long pa_epoch(const fitctx *F, double *w, const double *cg, const int *as, const int *adj,
                     const int32_t *assign)
{
    const double delta = 0.02;
    long upd = 0;
    for (int g = 0; g < F->n; g++) {
        double *wg = w + 4 * (size_t)g;
        const double *cgg = cg + 4 * (size_t)g;
        for (size_t p = F->vs[g]; p < F->vs[g + 1]; p++) {
            double v[3], u[3], uj[3];
            vox_centre(F, p, v);
            v3_sub(u, v, cgg);
            double fg = v3_dot(wg, u) + wg[3], worst = 0;
            int jb = -1;
            /* rivals: the grains touching g in the map, and the cell that
             * holds the voxel now (it may touch g only in the fit) */
            int own = assign[rve_map_index(F->m, F->vijk[3 * p], F->vijk[3 * p + 1], F->vijk[3 * p + 2])];
            for (int q = as[g]; q <= as[g + 1]; q++) {
                int j = q < as[g + 1] ? adj[q] : own;
                if (j < 0 || j == g)
                    continue;
                const double *wj = w + 4 * (size_t)j;
                double da[3];
                v3_sub(da, wg, wj);
                v3_sub(uj, v, cg + 4 * (size_t)j);
                double loss = delta * v3_norm(da) - (fg - v3_dot(wj, uj) - wj[3]);
                if (loss > worst) {
                    worst = loss;
                    jb = j;
                }
            }
            if (jb < 0)
                continue;
            double *wj = w + 4 * (size_t)jb, da[3];
            const double *cj = cg + 4 * (size_t)jb;
            v3_sub(uj, v, cj);
            v3_sub(da, wg, wj);
            double lmax = v3_norm(da); /* one voxel length of plane motion */
            double tau = fmin(worst, lmax) / (v3_norm2(u) + cgg[3] + v3_norm2(uj) + cj[3]);
            for (int a = 0; a < 3; a++) {
                wg[a] += tau * u[a];
                wj[a] -= tau * uj[a];
            }
            wg[3] += tau * cgg[3];
            wj[3] -= tau * cj[3];
            upd++;
        }
    }
    return upd;
}

/* A power diagram is a linear multi-class classifier of the points: with
 * u = x - o, cell g has the score f_g(u) = a_g . u + b_g (a_g = 2 s_g,
 * b_g = 2 s_g . o + t_g - |s_g|^2) and x goes to the cell of largest score
 * (smallest power distance).  Fitting the voxel labels is thus a linear
 * classification problem, convex in (a, b); on a raster of a Laguerre
 * tessellation it is separable.  This stage runs passive-aggressive
 * updates (Crammer et al. 2006) over the voxels: a voxel of grain g whose
 * margin f_g - f_j over its best rival j (the grains touching g in the map
 * and the cell that holds the voxel) is below delta |a_g - a_j| (delta voxel
 * lengths) moves both scores by the least change that restores it, capped
 * at one voxel length of plane motion.  The exact voxel accuracy
 * (rasterisation) is measured after every epoch and offered as the best
 * state.  Starts from R->x (whose cells are in R->assign); R->x ends as the
 * last epoch's state. */
static rve_status classify_refine(fitrun *R, int epochs, rve_err *err)
{
    fitctx *F = R->F;
    double *x = R->x;
    int n = F->n, *as = NULL, *adj = NULL;
    R->r->classify_epochs = 0;
    double *w = malloc((size_t)n * 4 * sizeof(double)), *cg = malloc((size_t)n * 4 * sizeof(double));
    if (!w || !cg || grain_adjacency(F, &as, &adj) < 0) {
        free(w);
        free(cg);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    /* per-class coordinates: f_g(x) = a_g . (x - c_g) + b_g, c_g the grain's
     * centroid, and the bias scaled by the grain's radius r_g: an update then
     * pulls the seed towards the voxel and leaves the far side of the cell
     * (x - c_g ~ -r_g) nearly in place, instead of inflating the whole cell */
    for (int g = 0; g < n; g++) {
        double c[3] = {0, 0, 0}, q[3];
        for (size_t p = F->vs[g]; p < F->vs[g + 1]; p++) {
            vox_centre(F, p, q);
            v3_add(c, c, q);
        }
        double nv = (double)(F->vs[g + 1] - F->vs[g]);
        v3_scale(cg + 4 * (size_t)g, c, nv > 0 ? 1.0 / nv : 0);
        double r = cbrt(3.0 * nv / (4.0 * M_PI));
        cg[4 * g + 3] = r * r;
        const double *sg = x + 4 * (size_t)g;
        for (int a = 0; a < 3; a++)
            w[4 * g + a] = 2 * sg[a];
        w[4 * g + 3] = 2 * v3_dot(sg, cg + 4 * (size_t)g) + sg[3] - v3_norm2(sg);
    }
    rve_status st = RVE_OK;
    int stale = 0;
    double runbest = -1;
    for (int ep = 0; ep < epochs && !past_deadline(R); ep++) {
        long upd = pa_epoch(F, w, cg, as, adj, R->assign);
        R->r->classify_epochs = ep + 1;
        for (int g = 0; g < n; g++) {
            double *sg = x + 4 * (size_t)g;
            for (int a = 0; a < 3; a++)
                sg[a] = 0.5 * w[4 * g + a];
            sg[3] = w[4 * g + 3] - 2 * v3_dot(sg, cg + 4 * (size_t)g) + v3_norm2(sg);
        }
        keep_seeds_inside(F, x);
        double acc;
        double nan_ = NAN;
        if ((st = reached(R, x, 3, ep + 1, &nan_, &acc, err)) != RVE_OK)
            break;
        if (R->o->progress)
            R->o->progress(R->o->progress_ctx, 2, ep + 1, (double)(ep + 1) / epochs, NAN, acc);
        /* patience counted against this stage's own progress: its first
         * epochs may lose accuracy before they gain */
        if (acc > runbest) {
            runbest = acc;
            stale = 0;
        } else if (++stale >= 8)
            break;
        if (upd == 0 || acc >= 1)
            break; /* nothing left to gain */
    }
    free(w);
    free(cg);
    free(as);
    free(adj);
    return st;
}

/* -------------------------------------------- convex surrogate (global) */
/* The classifier view of a power diagram (see classify_refine) gives a
 * convex training problem over all 4n parameters at once.  Every voxel v of
 * grain g within one voxel (26-neighbourhood) of grain j != g adds the
 * constraint f_g(v) - f_j(v) >= delta_gj, and the stage minimises the squared
 * hinge loss sum (max(0, 1 - (f_g - f_j) / delta_gj))^2, convex and smooth,
 * by L-BFGS (GSL's vector_bfgs2).  delta_gj is half a voxel of plane motion
 * between g and j at the start (1/2 |a_g - a_j|): the target separates the
 * two sides of every boundary by a margin, which centres each face between
 * the voxels it must separate.  Unlike the local searches, a descent on a
 * convex function is not held by local optima: on the raster of a Laguerre
 * tessellation (separable) it heads for a diagram that classifies every
 * boundary voxel.  Parameters per grain: a_g and beta_g, with
 * f_g(v) = a_g . (v - c_g) + r_g beta_g (c_g the centroid, r_g the
 * equivalent radius: features of comparable size for the descent). */
typedef struct {
    const fitctx *F;
    size_t nc;
    uint32_t *cp;        /* constraint: voxel (index into vijk) */
    int32_t *cj;         /* rival grain */
    int32_t *cgr;        /* own grain */
    double *cen;         /* 4 per grain: centroid, r */
    double *idl;         /* per constraint: 1 / delta_gj */
    double *gbuf;        /* nth * 4n: per-thread gradients */
    int nth;
    long evals;
} hinge_ctx;

/* target margin of the surrogate, in voxel lengths of plane motion at the
 * start: small, so that the loss counts violations, not near-boundary
 * voxels that are already right (at half a voxel, most boundary voxels of
 * a raster lie inside the margin and the descent trades some of them for
 * others: 99.0 % instead of 99.9 % on a Voronoi raster) */
#define HINGE_MARGIN 0.01

static double hinge_fdf_core(const gsl_vector *th, hinge_ctx *H, gsl_vector *grad)
{
    const fitctx *F = H->F;
    const double *t = th->data;
    size_t n4 = (size_t)F->n * 4;
    double L = 0;
    H->evals++;
    /* per-thread gradients (the constraints of one grain touch others),
     * summed in thread order: the same result for a given thread count */
#pragma omp parallel num_threads(H->nth) reduction(+ : L)
    {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        double *gr = grad ? H->gbuf + (size_t)tid * n4 : NULL;
        if (gr)
            memset(gr, 0, n4 * sizeof(double));
#pragma omp for schedule(static)
        for (size_t c = 0; c < H->nc; c++) {
            int g = H->cgr[c], j = H->cj[c];
            double v[3], ug[3], uj[3];
            vox_centre(F, H->cp[c], v);
            v3_sub(ug, v, H->cen + 4 * (size_t)g);
            v3_sub(uj, v, H->cen + 4 * (size_t)j);
            const double *tg = t + 4 * (size_t)g, *tj = t + 4 * (size_t)j;
            double rg = H->cen[4 * (size_t)g + 3], rj = H->cen[4 * (size_t)j + 3];
            double m = v3_dot(tg, ug) + rg * tg[3] - v3_dot(tj, uj) - rj * tj[3];
            double e = 1.0 - m * H->idl[c];
            if (e <= 0)
                continue;
            L += e * e;
            if (gr) {
                double s = 2.0 * e * H->idl[c];
                double *gg = gr + 4 * (size_t)g, *gj = gr + 4 * (size_t)j;
                for (int a = 0; a < 3; a++) {
                    gg[a] -= s * ug[a];
                    gj[a] += s * uj[a];
                }
                gg[3] -= s * rg;
                gj[3] += s * rj;
            }
        }
    }
    if (grad) {
        double *gd = grad->data;
        memcpy(gd, H->gbuf, n4 * sizeof(double));
        for (int q = 1; q < H->nth; q++)
            for (size_t i = 0; i < n4; i++)
                gd[i] += H->gbuf[(size_t)q * n4 + i];
    }
    return L;
}

static double hinge_f(const gsl_vector *th, void *p) { return hinge_fdf_core(th, p, NULL); }
static void hinge_df(const gsl_vector *th, void *p, gsl_vector *g) { hinge_fdf_core(th, p, g); }
static void hinge_fdf(const gsl_vector *th, void *p, double *f, gsl_vector *g) { *f = hinge_fdf_core(th, p, g); }

/* constraints of the surrogate: voxels within one voxel of another grain */
static int hinge_constraints(hinge_ctx *H)
{
    const fitctx *F = H->F;
    const rve_map *m = F->m;
    size_t cap = F->nvox / 2 + 16;
    H->cp = malloc(cap * sizeof(uint32_t));
    H->cj = malloc(cap * sizeof(int32_t));
    H->cgr = malloc(cap * sizeof(int32_t));
    if (!H->cp || !H->cj || !H->cgr)
        return -1;
    for (int g = 0; g < F->n; g++)
        for (size_t p = F->vs[g]; p < F->vs[g + 1]; p++) {
            int i0 = F->vijk[3 * p], j0 = F->vijk[3 * p + 1], k0 = F->vijk[3 * p + 2], seen[26], ns = 0;
            for (int dk = -1; dk <= 1; dk++)
                for (int dj = -1; dj <= 1; dj++)
                    for (int di = -1; di <= 1; di++) {
                        int i = i0 + di, j = j0 + dj, k = k0 + dk;
                        if (i < 0 || j < 0 || k < 0 || i >= m->nx || j >= m->ny || k >= m->nz)
                            continue;
                        uint32_t l = m->lab[rve_map_index(m, i, j, k)];
                        int h = l ? F->cell_of[l] : -1, dup = 0;
                        if (h < 0 || h == g)
                            continue;
                        for (int q = 0; q < ns; q++)
                            dup |= seen[q] == h;
                        if (dup)
                            continue;
                        seen[ns++] = h;
                        if (H->nc == cap) {
                            cap *= 2;
                            uint32_t *a = realloc(H->cp, cap * sizeof(uint32_t));
                            if (a)
                                H->cp = a;
                            int32_t *b = realloc(H->cj, cap * sizeof(int32_t));
                            if (b)
                                H->cj = b;
                            int32_t *c = realloc(H->cgr, cap * sizeof(int32_t));
                            if (c)
                                H->cgr = c;
                            if (!a || !b || !c)
                                return -1;
                        }
                        H->cp[H->nc] = (uint32_t)p;
                        H->cj[H->nc] = h;
                        H->cgr[H->nc++] = g;
                    }
        }
    return 0;
}

/* Minimise the surrogate from R->x by L-BFGS, at most `iters` iterations;
 * the exact accuracy is measured every 10 iterations and offered as the
 * best; stops early after 5 measurements without a new best of its own. */
static rve_status hinge_refine(fitrun *R, int iters, rve_err *err)
{
    fitctx *F = R->F;
    int n = F->n;
    hinge_ctx H;
    memset(&H, 0, sizeof H);
    H.F = F;
    H.cen = malloc((size_t)n * 4 * sizeof(double));
    H.nth = R->nth;
    H.gbuf = malloc((size_t)R->nth * n * 4 * sizeof(double));
    double *a0 = malloc((size_t)n * 3 * sizeof(double));
    gsl_vector *th = gsl_vector_alloc((size_t)n * 4);
    gsl_multimin_fdfminimizer *mz = gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, (size_t)n * 4);
    rve_status st = RVE_OK;
    if (!H.cen || !H.gbuf || !a0 || !th || !mz || hinge_constraints(&H) < 0 ||
        !(H.idl = malloc((H.nc ? H.nc : 1) * sizeof(double)))) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto out;
    }
    for (int g = 0; g < n; g++) {
        double c[3] = {0, 0, 0}, q[3];
        for (size_t p = F->vs[g]; p < F->vs[g + 1]; p++) {
            vox_centre(F, p, q);
            v3_add(c, c, q);
        }
        double nv = (double)(F->vs[g + 1] - F->vs[g]);
        double *cg = H.cen + 4 * (size_t)g;
        v3_scale(cg, c, nv > 0 ? 1.0 / nv : 0);
        cg[3] = fmax(0.5, cbrt(3.0 * nv / (4.0 * M_PI)));
        const double *s = R->x + 4 * (size_t)g;
        double *t = th->data + 4 * (size_t)g;
        for (int a = 0; a < 3; a++)
            t[a] = a0[3 * g + a] = 2 * s[a];
        t[3] = (2 * v3_dot(s, cg) - v3_norm2(s) + s[3]) / cg[3];
    }
    for (size_t c = 0; c < H.nc; c++) {
        double da[3];
        v3_sub(da, a0 + 3 * (size_t)H.cgr[c], a0 + 3 * (size_t)H.cj[c]);
        H.idl[c] = 1.0 / (HINGE_MARGIN * v3_norm(da) + 1e-12);
    }
    gsl_multimin_function_fdf fn = {hinge_f, hinge_df, hinge_fdf, (size_t)n * 4, &H};
    gsl_multimin_fdfminimizer_set(mz, &fn, th, 1e-2, 0.1);
    double runbest = -1;
    int stale = 0;
    for (int it = 1; it <= iters && !past_deadline(R); it++) {
        int gs = gsl_multimin_fdfminimizer_iterate(mz);
        int last = gs != GSL_SUCCESS || it == iters || mz->f <= 0;
        if (it % 10 && !last)
            continue;
        const double *t = mz->x->data;
        for (int g = 0; g < n; g++) {
            double *s = R->x + 4 * (size_t)g;
            const double *cg = H.cen + 4 * (size_t)g;
            for (int a = 0; a < 3; a++)
                s[a] = 0.5 * t[4 * g + a];
            s[3] = t[4 * g + 3] * cg[3] - 2 * v3_dot(s, cg) + v3_norm2(s);
        }
        keep_seeds_inside(F, R->x);
        double acc;
        double nan_ = NAN;
        if ((st = reached(R, R->x, 5, it, &nan_, &acc, err)) != RVE_OK)
            break;
        R->r->hinge_iters = it;
        if (R->o->progress)
            R->o->progress(R->o->progress_ctx, 3, it, (double)it / iters, mz->f, acc);
        if (acc > runbest) {
            runbest = acc;
            stale = 0;
        } else if (++stale >= 5)
            break;
        if (last || acc >= 1)
            break;
    }
out:
    if (mz)
        gsl_multimin_fdfminimizer_free(mz);
    if (th)
        gsl_vector_free(th);
    free(H.cen);
    free(a0);
    free(H.idl);
    free(H.gbuf);
    free(H.cp);
    free(H.cj);
    free(H.cgr);
    return st;
}

static void cell_steps(lopt *L, fitctx *F, const double *x, double frac, double minstep,
                       double *step, double *tstep)
{
    cpoly *w = malloc(2 * sizeof(cpoly));
    for (int k = 0; k < F->n; k++) {
        double vol = (double)(F->vs[k + 1] - F->vs[k]);
        if (w) {
            const cpoly *P = lopt_cell(L, k, &w[0], &w[1]);
            double cv = cpoly_volume(P);
            if (cv > 0)
                vol = 0.5 * (vol + cv);
        }
        double r = cbrt(3.0 * vol / (4.0 * M_PI));
        if (r < 0.5)
            r = 0.5;
        double s = frac * r;
        if (s < minstep)
            s = minstep;
        step[k] = s;
        double wr = sqrt(fabs(x[4 * k + 3]));
        if (wr < r)
            wr = r;
        tstep[k] = 2.0 * wr * s;
    }
    free(w);
}

/* Stage 1: Eq. 6.5 sweeps from R->x.  Each sweep's state is measured
 * exactly and offered as the best.  Grains left without a voxel are then
 * given one back (repair_empty) and that state is offered too. */
static rve_status stage_eq65(fitrun *R, double *step, double *tstep, rve_err *err)
{
    fitctx *F = R->F;
    const rve_fit_opts *o = R->o;
    rve_fit_result *r = R->r;
    lopt *L = R->L;
    rve_status st;
    double obj = r->obj_init, frac = 0.25, acc;
    r->stopped_by = 1;
    for (int s = 1; s <= o->max_sweeps; s++) {
        cell_steps(L, F, R->x, frac, 0.05, step, tstep);
        int moved = 0;
        st = lopt_sweep(L, step, tstep, o->max_evals, R->deadline, &moved, err);
        if (st != RVE_OK && st != RVE_ECAP)
            return st;
        if ((st = lopt_rebuild(L, err)) != RVE_OK) /* exact graph and costs */
            return st;
        double nobj = F->W > 0 ? sqrt(lopt_total(L) / F->W) : 0;
        r->sweeps = s;
        double orow = nobj;
        if ((st = reached(R, R->x, 1, s, &orow, &acc, err)) != RVE_OK)
            return st;
        if (o->progress)
            o->progress(o->progress_ctx, 0, s, (double)s / o->max_sweeps, nobj, acc);
        double rel = obj > 0 ? (obj - nobj) / obj : 0;
        obj = nobj;
        if (past_deadline(R)) {
            r->stopped_by = 2;
            break;
        }
        if (rel < o->tol) {
            if (frac > 0.05) {
                frac *= 0.5; /* refine the search scale before stopping */
                lopt_invalidate(L);
                continue;
            }
            r->stopped_by = 0;
            break;
        }
    }
    /* the repair moves seeds: its state is a new one, evaluated in full */
    int fixed = repair_empty(F, R->x, r->seed, r->weight, err);
    if (fixed < 0)
        return err->code;
    if (fixed > 0) {
        double o2 = eval_full_eq65(F, R->x, R->nth, NULL);
        if ((st = reached(R, R->x, 1, r->sweeps, &o2, &acc, err)) != RVE_OK)
            return st;
    }
    return RVE_OK;
}

/* Stage 2: polishing sweeps on the smoothed misassigned volume, from the
 * best state so far; every sweep's state measured exactly and offered. */
static rve_status stage_polish(fitrun *R, double *step, double *tstep, rve_err *err)
{
    fitctx *F = R->F;
    const rve_fit_opts *o = R->o;
    lopt *L = R->L;
    int n = F->n;
    memcpy(R->x, R->xbest, (size_t)n * 4 * sizeof(double));
    if (repair_empty(F, R->x, R->r->seed, R->r->weight, err) < 0)
        return err->code;
    lopt_set_cost(L, cost_mis, F);
    rve_status st = lopt_rebuild(L, err);
    double pfrac = 0.1;
    for (int s = 1; s <= o->polish && st == RVE_OK; s++) {
        double tau = fmax(0.1, pow(0.7, s - 1)); /* ramp width: 1 voxel down to 0.1 */
        if (tau != F->tau || s == 1) {
            F->tau = tau;
            if ((st = lopt_recost(L, err)) != RVE_OK)
                break;
        }
        cell_steps(L, F, R->x, pfrac, 0.05, step, tstep);
        int moved = 0;
        st = lopt_sweep(L, step, tstep, o->max_evals, R->deadline, &moved, err);
        if (st != RVE_OK && st != RVE_ECAP)
            break;
        if ((st = lopt_rebuild(L, err)) != RVE_OK)
            break;
        R->r->polish_sweeps = s;
        double acc, ob = eval_full_eq65(F, R->x, R->nth, NULL);
        if ((st = reached(R, R->x, 2, s, &ob, &acc, err)) != RVE_OK)
            break;
        if (o->progress)
            o->progress(o->progress_ctx, 1, s, (double)s / o->polish, ob, acc);
        if (past_deadline(R)) {
            R->r->stopped_by = 2;
            break;
        }
        if (moved == 0)
            break;
    }
    F->tau = 1.0;
    return st == RVE_ECAP ? RVE_OK : st;
}

/* End of a stage: the best state so far, its exact objective (computed
 * once here when the stage did not) and accuracy, recorded as a stage-4 row
 * (sweep = the stage just ended). */
static rve_status stage_end(fitrun *R, int stage, double *obj, double *acc, rve_err *err)
{
    if (isnan(R->objbest))
        R->objbest = eval_full_eq65(R->F, R->xbest, R->nth, NULL);
    *obj = R->objbest;
    *acc = R->accbest;
    return record(R, 4, stage, R->objbest, R->accbest, err);
}

rve_status rve_fit(const rve_map *m, const rve_fit_opts *opts, rve_fit_result *r, rve_err *err)
{
    rve_fit_opts o;
    if (opts)
        o = *opts;
    else
        rve_fit_opts_init(&o);
    memset(r, 0, sizeof *r);
    fitrun R;
    memset(&R, 0, sizeof R);
    R.t0 = rve_now();
    R.deadline = o.max_seconds > 0 ? R.t0 + o.max_seconds : 0;
    R.nth = o.threads > 0 ? o.threads : rve_threads_get();
    if (R.nth < 1)
        R.nth = 1;
    if (o.max_evals < 5)
        o.max_evals = 5;
    R.o = &o;
    R.r = r;
    fitctx F;
    R.F = &F;
    rve_status st = fitctx_init(&F, m, o.res, 1, err);
    if (st != RVE_OK) {
        fitctx_free(&F);
        return st;
    }
    F.gopts.sub = o.sub == RVE_FIT_SUB_JOHNSON ? RVE_SUB_JOHNSON : RVE_SUB_SV;
    F.exact_dist = o.exact_dist;
    int n = F.n;
    r->n = n;
    r->ncontrol = (long)F.cs[n];
    R.x = malloc((size_t)n * 4 * sizeof(double));
    R.xbest = malloc((size_t)n * 4 * sizeof(double));
    R.xtmp = malloc((size_t)n * 4 * sizeof(double));
    R.assign = malloc((size_t)m->nx * m->ny * m->nz * sizeof(int32_t));
    double *step = malloc((size_t)n * sizeof(double));
    double *tstep = malloc((size_t)n * sizeof(double));
    r->label = malloc((size_t)n * sizeof(uint32_t));
    r->seed = malloc((size_t)n * 3 * sizeof(double));
    r->weight = malloc((size_t)n * sizeof(double));
    if (!R.x || !R.xbest || !R.xtmp || !R.assign || !step || !tstep || !r->label || !r->seed || !r->weight) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    memcpy(r->label, F.label, (size_t)n * sizeof(uint32_t));
    initial_guess(&F, R.x);
    F.x = R.x;
    if ((st = measure(&R, R.x, &r->acc_init, err)) != RVE_OK)
        goto done;
    st = rve_fit_quality(m, n, r->seed, r->weight, NULL, NULL, NULL, &r->empty_cells_init, NULL, err);
    if (st != RVE_OK)
        goto done;
    R.L = lopt_alloc(n, F.lo, F.hi, R.x, R.nth, err);
    if (!R.L) {
        st = err ? err->code : RVE_ENOMEM;
        goto done;
    }
    lopt_set_cost(R.L, cost_eq65, &F);
    if ((st = lopt_rebuild(R.L, err)) != RVE_OK)
        goto done;
    r->obj_init = F.W > 0 ? sqrt(lopt_total(R.L) / F.W) : 0;
    R.accbest = -1;
    /* the initial state is recorded as measured (acc_init is the guess's
     * own accuracy); a repaired copy may become the best */
    double ai = r->acc_init, oi = r->obj_init;
    if ((st = offer(&R, R.x, &ai, &oi, err)) != RVE_OK)
        goto done;
    if ((st = record(&R, 0, 0, r->obj_init, r->acc_init, err)) != RVE_OK)
        goto done;
    if (o.progress)
        o.progress(o.progress_ctx, 0, 0, 0.0, r->obj_init, r->acc_init);
    if ((st = stage_eq65(&R, step, tstep, err)) != RVE_OK ||
        (st = stage_end(&R, 1, &r->obj_stage1, &r->acc_stage1, err)) != RVE_OK)
        goto done;
    /* Rounds of surrogate, classifier and polishing, each from the best
     * state so far.  A run with more rounds repeats the run with fewer and
     * goes on from its result, so (the best state being kept) more rounds
     * never end lower; a round that finds nothing better ends the loop (the
     * next would repeat it exactly: the fit is deterministic). */
    for (int round = 0; round < o.rounds && R.accbest < 1; round++) { /* at 100 %: nothing to gain */
        double before = R.accbest;
        memcpy(R.x, R.xbest, (size_t)n * 4 * sizeof(double));
        if (o.hinge > 0 && !past_deadline(&R) && (st = hinge_refine(&R, o.hinge, err)) != RVE_OK)
            goto done;
        memcpy(R.x, R.xbest, (size_t)n * 4 * sizeof(double));
        if (o.classify > 0 && R.accbest < 1 && !past_deadline(&R) &&
            ((st = measure(&R, R.x, &r->acc_classify, err)) != RVE_OK || (st = classify_refine(&R, o.classify, err)) != RVE_OK))
            goto done;
        if ((st = stage_end(&R, 3, &r->obj_classify, &r->acc_classify, err)) != RVE_OK)
            goto done;
        if (o.polish > 0 && R.accbest < 1 && !past_deadline(&R) && (st = stage_polish(&R, step, tstep, err)) != RVE_OK)
            goto done;
        r->rounds = round + 1;
        if (R.accbest <= before || past_deadline(&R))
            break;
    }
    /* the returned state: the best seen, its seeds inside the box (the same
     * diagram), measured from exactly the seeds and weights returned */
    memcpy(R.x, R.xbest, (size_t)n * 4 * sizeof(double));
    keep_seeds_inside(&F, R.x);
    R.accbest = -1;
    R.objbest = NAN;
    if ((st = measure(&R, R.x, &r->acc_final, err)) != RVE_OK)
        goto done;
    double of = NAN;
    if ((st = offer(&R, R.x, &r->acc_final, &of, err)) != RVE_OK)
        goto done;
    if ((st = stage_end(&R, 2, &r->obj_polish, &r->acc_polish, err)) != RVE_OK)
        goto done;
    r->obj_final = r->obj_polish;
    to_physical(&F, R.xbest, r->seed, r->weight);
    st = rve_fit_quality(m, n, r->seed, r->weight, &r->acc_final, &r->iou_min, &r->iou_median,
                         &r->empty_cells, NULL, err);
    if (st != RVE_OK)
        goto done;
    r->evals = lopt_evals(R.L);
    r->gjk_calls = lopt_counter(R.L);
    r->seconds = rve_now() - R.t0;
done:
    lopt_free(R.L);
    free(R.x);
    free(R.xbest);
    free(R.xtmp);
    free(R.assign);
    free(step);
    free(tstep);
    fitctx_free(&F);
    return st;
}
