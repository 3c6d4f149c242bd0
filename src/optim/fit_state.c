/* fit_state.c - a fit in progress: exact measure, best state, history,
 * repair of cells without a voxel (see fit_int.h). */
#include "config.h"
#include "optim/fit_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int fit_past_deadline(const fitrun *R) { return R->deadline > 0 && rve_now() > R->deadline; }

/* Exact voxel accuracy of state x: the seeds and weights as they would be
 * written (physical, into r->seed and r->weight), rasterised by power
 * distance like any reader of the .tess would; the cell of every voxel goes
 * to R->assign. */
rve_status fit_measure(fitrun *R, const double *x, double *acc, rve_err *err)
{
    fit_to_physical(R->F, x, R->r->seed, R->r->weight);
    return rve_fit_quality(R->F->m, R->F->n, R->r->seed, R->r->weight, acc, NULL, NULL, NULL, R->assign, err);
}


/* Offer state x (measured by fit_measure(), its cells in R->assign) with its
 * exact accuracy (and Eq. 6.5 value, NAN when not computed) as the best;
 * ties keep the earlier state.  A grain whose cell holds no voxel would be
 * a grain missing from the fit: such a state is offered after a copy of it
 * has been repaired (repair_empty) and measured again, so the best state
 * never has one that the repair could restore.  R->assign then holds the
 * repaired copy's cells, and *accp, *objp its figures (objective NAN: not
 * evaluated). */
rve_status fit_offer(fitrun *R, const double *x, double *accp, double *objp, rve_err *err)
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
        if (fit_repair_empty(F, R->xtmp, R->r->seed, R->r->weight, err) < 0)
            return err->code;
        if ((st = fit_measure(R, R->xtmp, &acc, err)) != RVE_OK)
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

rve_status fit_record(fitrun *R, int stage, int sweep, double obj, double acc, rve_err *err)
{
    long ev = R->L ? lopt_evals(R->L) : 0, g = R->L ? lopt_counter(R->L) : 0;
    return hist_push(R->r, stage, sweep, obj, 1.0 - acc, rve_now() - R->t0, ev, g, err);
}

/* State x reached: measured, offered as the best, and recorded with the
 * figures of the state as it would be returned (after the repair of
 * grains left without a voxel, see offer), so that no row or progress
 * line shows an accuracy the written fit would not have. */
rve_status fit_reached(fitrun *R, const double *x, int stage, int sweep, double *obj, double *acc, rve_err *err)
{
    rve_status st = fit_measure(R, x, acc, err);
    if (st == RVE_OK)
        st = fit_offer(R, x, acc, obj, err);
    if (st == RVE_OK)
        st = fit_record(R, stage, sweep, *obj, *acc, err);
    return st;
}

/* Grains whose cell holds no voxel get one back: the seed moves to the
 * grain's voxel nearest its centroid and the weight is raised just enough to
 * win that voxel (t_k = eps - min_j pd_j(v)), a tiny cell that the following
 * sweeps can grow.  Returns the number of grains repaired (-1 on error). */
int fit_repair_empty(fitctx *F, double *x, double *seed, double *weight, rve_err *err)
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
        fit_to_physical(F, x, seed, weight);
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
            if (nc[k] > 0 || F->vs[k + 1] == F->vs[k] || (F->frozen && F->frozen[k]))
                continue;
            double c[3], q[3];
            fit_grain_centroid(F, k, c);
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
