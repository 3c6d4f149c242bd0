/* fit_cost.c - cell costs of the local searches and the full Eq. 6.5
 * evaluation (see fit_int.h). */
#include "config.h"
#include "optim/fit_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
double fit_cost_eq65(void *ctx, int k, const double sk[4], const cpoly *P, lopt_ws *ws)
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

/* bounds of the face excess over brick b: *all_out = 1 when some face has
 * every point of the box at least h outside (all voxels count 1); returns the
 * largest excess over the box (<= -h: all voxels count 0).  When rf is not
 * NULL, the faces that may give a voxel of the box an excess above -h (its
 * ramp above 0) are listed in rf[0 .. *nrf - 1]: the others can be left out
 * of every voxel's ramp (ramp_faces).  margin covers the rounding between
 * the box bound and the voxel's own plane test. */
static inline double brick_bound(const cpoly *P, const struct vbrick *b, double h, double margin,
                                 int *all_out, int *rf, int *nrf)
{
    double mx = -1e300;
    *all_out = 0;
    int m = 0;
    for (int f = 0; f < P->nf; f++) {
        const double *nf = P->fn[f];
        double c = nf[0] * b->c[0] + nf[1] * b->c[1] + nf[2] * b->c[2] - P->fd[f];
        double r = fabs(nf[0]) * b->h[0] + fabs(nf[1]) * b->h[1] + fabs(nf[2]) * b->h[2];
        if (c - r >= h) {
            *all_out = 1;
            if (nrf)
                *nrf = m;
            return c + r;
        }
        if (c + r > mx)
            mx = c + r;
        if (rf && c + r > -h - margin)
            rf[m++] = f;
    }
    if (nrf)
        *nrf = m;
    return mx;
}

/* ramp(E / tau + 1/2) of point p, E its face excess on P, from the faces
 * rf[0 .. nrf - 1] that brick_bound kept (the others are below -h - margin
 * on p's brick, where the ramp is 0 whatever they add): equal to ramp of the
 * full face excess, and it stops at the first face that saturates it. */
static inline double ramp_faces(const cpoly *P, const int *rf, int nrf, const double p[3], double it)
{
    double m = -1e300;
    for (int q = 0; q < nrf; q++) {
        const int f = rf[q];
        double s = P->fn[f][0] * p[0] + P->fn[f][1] * p[1] + P->fn[f][2] * p[2] - P->fd[f];
        if (s > m) {
            m = s;
            if (m * it + 0.5 >= 1)
                return 1;
        }
    }
    return nrf > 0 ? ramp(m, it) : 0;
}

/* note face a among the faces of brick b's voxels above -h - margin */
static inline void brick_note_face(struct vbrick *b, int32_t a)
{
    if (b->nfa < 0)
        return;
    for (int q = 0; q < b->nfa; q++)
        if (b->fa[q] == a)
            return;
    if (b->nfa == VB_NFA)
        b->nfa = -1;
    else
        b->fa[b->nfa++] = a;
}

/* brick b (committed, every voxel inside its cell: maxE <= 0) has no voxel
 * above -h - margin whose face is that of seed i */
static inline int brick_misses_face(const struct vbrick *b, int i)
{
    if (b->nfa < 0 || b->maxE > 0)
        return 0;
    for (int q = 0; q < b->nfa; q++)
        if (b->fa[q] == i)
            return 0;
    return 1;
}

/* ramp of the face excess of p on P over all its faces, stopping at the
 * first face that saturates it (equal to ramp(cpoly_plane_excess(P, p))) */
static inline double ramp_all(const cpoly *P, const double p[3], double it)
{
    double m = -1e300;
    for (int f = 0; f < P->nf; f++) {
        double s = P->fn[f][0] * p[0] + P->fn[f][1] * p[1] + P->fn[f][2] * p[2] - P->fd[f];
        if (s > m) {
            m = s;
            if (m * it + 0.5 >= 1)
                return 1;
        }
    }
    return ramp(m, it);
}

static double mis_full(fitctx *F, int k, const cpoly *P, int commit)
{
    double s = 0, it = 1.0 / F->tau, h = 0.5 * F->tau, margin = 1e-9 * (1.0 + F->diag);
    int rf[CP_MAXF], nrf = 0;
    for (size_t bi = F->bs[k]; bi < F->bs[k + 1]; bi++) {
        struct vbrick *b = F->br + bi;
        int out;
        double ub = brick_bound(P, b, h, margin, &out, commit ? NULL : rf, &nrf);
        if (!out && ub <= -h) {
            if (commit) {
                b->lazy = 1;
                b->maxE = ub;
                b->nfa = -1;
            }
            continue;
        }
        if (out && !commit) {
            s += (double)(b->v1 - b->v0);
            continue;
        }
        if (!commit) { /* the ramp only: the faces that can raise it */
            for (size_t p = b->v0; p < b->v1; p++) {
                double c[3];
                vox_centre(F, p, c);
                s += ramp_faces(P, rf, nrf, c, it);
            }
            continue;
        }
        double mx = -1e300;
        b->nfa = 0;
        for (size_t p = b->v0; p < b->v1; p++) {
            double c[3];
            vox_centre(F, p, c);
            int32_t a;
            double e = excess_arg(P, c, &a);
            F->E[p] = e;
            F->A[p] = a;
            mx = e > mx ? e : mx;
            s += ramp(e, it);
            if (e > -h - margin)
                brick_note_face(b, a);
        }
        b->lazy = 0;
        b->maxE = mx;
    }
    return s;
}

double fit_cost_mis(void *ctx, int k, const double sk[4], const cpoly *P, lopt_ws *ws)
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
    double it = 1.0 / F->tau, h = 0.5 * F->tau, delta = 0, margin = 1e-9 * (1.0 + F->diag);
    int rf[CP_MAXF];
    for (size_t bi = F->bs[k]; bi < F->bs[k + 1]; bi++) {
        const struct vbrick *b = F->br + bi;
        double ec = un[0] * b->c[0] + un[1] * b->c[1] + un[2] * b->c[2] - ud;
        double er = fabs(un[0]) * b->h[0] + fabs(un[1]) * b->h[1] + fabs(un[2]) * b->h[2];
        if (b->maxE <= -h && ec + er <= -h)
            continue; /* zero before and after */
        if (ec + er <= -h - margin && brick_misses_face(b, i))
            continue; /* every voxel inside, the new plane deeper than h below
                       * each: a voxel whose face is not i keeps its ramp
                       * (max(E, e) = E or both <= -h), and one whose face is
                       * i is deeper than h (ramp 0 before and after) */
        int nrf = -1, out = 0, nfull = 0; /* faces of P for this brick: computed when needed */
        for (size_t p = b->v0; p < b->v1; p++) {
            double c[3];
            vox_centre(F, p, c);
            double e = v3_dot(un, c) - ud;
            if (b->lazy && e <= -h)
                continue; /* E <= -h: counted 0 before, and still */
            double E = b->lazy ? -1e300 : F->E[p];
            if (E <= -h - margin && e <= -h - margin)
                continue; /* inside the committed cell deeper than h, and the new
                           * plane too: the trial excess is at most max(E, e)
                           * (the other half-spaces are unchanged), ramp 0 */
            if (!b->lazy && E <= 0 && F->A[p] != i && e <= 0) {
                double En = e > E ? e : E;
                if (En != E)
                    delta += ramp(En, it) - ramp(E, it);
                continue;
            }
            /* the full face excess on P, through its ramp; the faces that
             * can raise it are listed for the brick from its third such voxel */
            double rn;
            if (nrf < 0 && nfull < 2) {
                nfull++;
                rn = ramp_all(P, c, it);
            } else {
                if (nrf < 0)
                    brick_bound(P, b, h, margin, &out, rf, &nrf);
                rn = out ? ramp_all(P, c, it) : ramp_faces(P, rf, nrf, c, it);
            }
            delta += rn - (b->lazy ? 0.0 : ramp(E, it));
        }
    }
    return lopt_cell_cost(ws->L, k) + delta;
}

/* --------------------------------------------------------- objective */
double fit_eval_eq65(fitctx *F, const double *x, int nthreads, long *gjk)
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
            s += fit_cost_eq65(F, k, x + 4 * (size_t)k, P, &ws);
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
    fit_to_internal(&F, seed, weight, x);
    *objective = fit_eval_eq65(&F, x, rve_threads_get(), gjk_calls);
    free(x);
    fitctx_free(&F);
    return RVE_OK;
}

