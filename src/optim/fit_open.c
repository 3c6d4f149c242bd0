/* fit_open.c - opening the tiny cells a fit leaves (see fit_int.h).
 *
 * A grain of a few voxels ends with a cell of a few voxel volumes or less
 * (or a cell can end much smaller than its grain): such a cell has only
 * short edges, which regularisation cannot remove, and makes small, flat
 * tetrahedra in the mesh.  This step, after the last round, grows every
 * cell whose volume is below half its grain's voxel volume or below a floor
 * of 2^3 voxels: its weight is raised (seed kept, so the cell only grows:
 * every voxel either keeps its cell or joins this one) until the cell's
 * volume reaches a target, the largest of {1, 3/4, 1/2} x T (T = the
 * grain's voxel volume, at least the floor) whose change of the correctly
 * assigned voxel count is at least -(target - grain volume): no voxel is
 * lost except those the floor itself must take from the neighbours, and
 * those within a budget of 1e-4 of the map's voxels.  The change is counted
 * exactly, voxel by voxel over the grown cell's box (power distance to the
 * grown cell against the voxel's present cell); the state is then measured
 * by rasterisation like every other one and kept unless it lost more than
 * the budget. */
#include "config.h"
#include "optim/fit_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OPEN_TRIGGER 0.5 /* a cell below this fraction of its grain's volume is opened */
#define OPEN_FLOOR 8.0   /* and so is a cell below 2^3 voxels: no map resolves it */
#define OPEN_BUDGET 1e-4 /* at most this fraction of the voxels lost by the floor */

typedef struct {
    fitrun *R;
    double *x;
    cpoly w[2];
    double *scr;
    long *cnt;           /* voxels of each cell in R->assign */
    long *lost;          /* scratch: voxels a trial takes from each cell (0 outside a trial) */
    int *lostl;          /* the cells with lost != 0 */
} open_ctx;

/* the cell of k in x with t_k = t, and its volume (voxel volumes) */
static const cpoly *cell_at(open_ctx *C, int k, double t, double *vol)
{
    fitctx *F = C->R->F;
    double t0 = C->x[4 * (size_t)k + 3];
    C->x[4 * (size_t)k + 3] = t;
    const cpoly *P = lopt_full_cell(F->n, C->x, F->lo, F->hi, k, &C->w[0], &C->w[1], NULL, C->scr);
    C->x[4 * (size_t)k + 3] = t0;
    *vol = P->overflow ? -1 : cpoly_volume(P);
    return P;
}

/* smallest t >= t_k (to 1e-9 relative) whose cell reaches volume target;
 * NAN when none does (or the cell overflows) */
static double weight_for(open_ctx *C, int k, double target)
{
    double t = C->x[4 * (size_t)k + 3], vol, d = 1;
    cell_at(C, k, t, &vol);
    if (vol < 0)
        return NAN;
    if (vol >= target)
        return t;
    int it = 0;
    for (; it < 80; it++, d *= 2) {
        cell_at(C, k, t + d, &vol);
        if (vol < 0)
            return NAN;
        if (vol >= target)
            break;
    }
    if (it == 80)
        return NAN;
    double a = 0, b = d;
    for (int q = 0; q < 60 && b - a > 1e-9 * (1 + fabs(t) + b); q++) {
        double c = 0.5 * (a + b);
        cell_at(C, k, t + c, &vol);
        if (vol >= target)
            b = c;
        else
            a = c;
    }
    return t + b;
}

/* Change of the correctly assigned voxel count when t_k becomes t (the cell
 * only grows); commit: the voxels change cell in R->assign.  Returns -1
 * (refused) when the growth would take every voxel of another cell. */
static long grow_delta(open_ctx *C, int k, double t, int commit)
{
    long delta = 0;
    int nl = 0, emptied = 0;
    fitctx *F = C->R->F;
    const rve_map *m = F->m;
    double vol;
    const cpoly *P = cell_at(C, k, t, &vol);
    if (P->nv == 0)
        return 0;
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (int v = 0; v < P->nv; v++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], P->v[v][a]);
            hi[a] = fmax(hi[a], P->v[v][a]);
        }
    int i0[3], i1[3], nd[3] = {m->nx, m->ny, m->nz};
    for (int a = 0; a < 3; a++) {
        i0[a] = (int)fmax(0, floor(lo[a] / F->hs[a] - 0.5));
        i1[a] = (int)fmin(nd[a] - 1, ceil(hi[a] / F->hs[a] - 0.5));
    }
    const double *sk = C->x + 4 * (size_t)k;
    for (int kk = i0[2]; kk <= i1[2]; kk++)
        for (int j = i0[1]; j <= i1[1]; j++)
            for (int i = i0[0]; i <= i1[0]; i++) {
                size_t v = rve_map_index(m, i, j, kk);
                int a = C->R->assign[v];
                if (a == k || a < 0)
                    continue;
                double c[3] = {(i + 0.5) * F->hs[0], (j + 0.5) * F->hs[1], (kk + 0.5) * F->hs[2]};
                const double *sa = C->x + 4 * (size_t)a;
                if (v3_dist2(c, sk) - t >= v3_dist2(c, sa) - sa[3])
                    continue;
                uint32_t l = m->lab[v];
                int g = l ? F->cell_of[l] : -1;
                delta += (g == k) - (g == a);
                if (!C->lost[a]++)
                    C->lostl[nl++] = a;
                if (commit)
                    C->R->assign[v] = k;
            }
    for (int q = 0; q < nl; q++) {
        int a = C->lostl[q];
        emptied |= C->lost[a] >= C->cnt[a];
        if (commit) {
            C->cnt[a] -= C->lost[a];
            C->cnt[k] += C->lost[a];
        }
        C->lost[a] = 0;
    }
    return emptied && !commit ? -1 : delta;
}

/* Opens the tiny cells of the best state (see the top of the file); the
 * result becomes the best state when its exact accuracy is not lower. */
rve_status fit_open_tiny(fitrun *R, rve_err *err)
{
    fitctx *F = R->F;
    int n = F->n, opened = 0;
    open_ctx C;
    C.R = R;
    C.x = R->x;
    C.scr = malloc((size_t)(n + 1) * 2 * sizeof(double));
    C.cnt = calloc((size_t)n, sizeof(long));
    C.lost = calloc((size_t)n, sizeof(long));
    C.lostl = malloc((size_t)n * sizeof(int));
    rve_status st = RVE_OK;
    if (!C.scr || !C.cnt || !C.lost || !C.lostl) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto out;
    }
    memcpy(R->x, R->xbest, (size_t)n * 4 * sizeof(double));
    double acc, obj = NAN;
    if ((st = fit_measure(R, R->x, &acc, err)) != RVE_OK)
        goto out;
    size_t nall = (size_t)F->m->nx * F->m->ny * F->m->nz;
    for (size_t v = 0; v < nall; v++)
        if (R->assign[v] >= 0 && R->assign[v] < n)
            C.cnt[R->assign[v]]++;
    static const double frac[3] = {1.0, 0.75, 0.5};
    long budget = (long)(OPEN_BUDGET * (double)F->nvox);
    for (int k = 0; k < n && st == RVE_OK && !fit_past_deadline(R); k++) {
        double nk = (double)(F->vs[k + 1] - F->vs[k]), vol, target = fmax(nk, OPEN_FLOOR);
        cell_at(&C, k, R->x[4 * (size_t)k + 3], &vol);
        if (nk == 0 || vol < 0 || (vol >= OPEN_TRIGGER * nk && vol >= OPEN_FLOOR) || (F->frozen && F->frozen[k]))
            continue;
        for (int q = 0; q < 3; q++) {
            double t = weight_for(&C, k, frac[q] * target);
            /* voxels the floor takes beyond the grain's own may be lost */
            long allow = (long)fmax(0, floor(frac[q] * target - nk)), d;
            if (allow > budget)
                allow = budget;
            if (isnan(t) || (d = grow_delta(&C, k, t, 0)) < -allow)
                continue;
            if (d < 0)
                budget += d;
            grow_delta(&C, k, t, 1);
            R->x[4 * (size_t)k + 3] = t;
            opened++;
            break;
        }
    }
out:
    free(C.scr);
    free(C.cnt);
    free(C.lost);
    free(C.lostl);
    if (st != RVE_OK || !opened)
        return st;
    if ((st = fit_measure(R, R->x, &acc, err)) != RVE_OK)
        return st;
    if (acc >= R->accbest - OPEN_BUDGET) {
        R->accbest = acc;
        R->objbest = NAN;
        memcpy(R->xbest, R->x, (size_t)n * 4 * sizeof(double));
    } else
        opened = -opened; /* measured lower (ties of the power distance): not kept */
    return fit_record(R, 6, opened, obj, acc, err);
}
