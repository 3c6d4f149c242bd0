/* fit_stages.c - Eq. 6.5 sweeps and polishing sweeps (see fit_int.h). */
#include "config.h"
#include "optim/fit_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
rve_status fit_stage_eq65(fitrun *R, double *step, double *tstep, rve_err *err)
{
    fitctx *F = R->F;
    const rve_fit_opts *o = R->o;
    rve_fit_result *r = R->r;
    lopt *L = R->L;
    rve_status st;
    double obj = R->obj_start, frac = 0.25, acc;
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
        if ((st = fit_reached(R, R->x, 1, s, &orow, &acc, err)) != RVE_OK)
            return st;
        if (o->progress)
            o->progress(o->progress_ctx, 0, s, (double)s / o->max_sweeps, nobj, acc);
        double rel = obj > 0 ? (obj - nobj) / obj : 0;
        obj = nobj;
        if (fit_past_deadline(R)) {
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
    int fixed = fit_repair_empty(F, R->x, r->seed, r->weight, err);
    if (fixed < 0)
        return err->code;
    if (fixed > 0) {
        double o2 = fit_eval_eq65(F, R->x, R->nth, NULL);
        if ((st = fit_reached(R, R->x, 1, r->sweeps, &o2, &acc, err)) != RVE_OK)
            return st;
    }
    return RVE_OK;
}

/* Stage 2: polishing sweeps on the smoothed misassigned volume, from the
 * best state so far; every sweep's state measured exactly and offered. */
rve_status fit_stage_polish(fitrun *R, double *step, double *tstep, rve_err *err)
{
    fitctx *F = R->F;
    const rve_fit_opts *o = R->o;
    lopt *L = R->L;
    int n = F->n;
    memcpy(R->x, R->xbest, (size_t)n * 4 * sizeof(double));
    if (fit_repair_empty(F, R->x, R->r->seed, R->r->weight, err) < 0)
        return err->code;
    lopt_set_cost(L, fit_cost_mis, F);
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
        /* the Eq. 6.5 objective is evaluated once, at the stage's end
         * (fit_stage_end), not per sweep: a full evaluation costs a GJK
         * call per control point outside its cell */
        double acc, ob = NAN;
        if ((st = fit_reached(R, R->x, 2, s, &ob, &acc, err)) != RVE_OK)
            break;
        if (o->progress)
            o->progress(o->progress_ctx, 1, s, (double)s / o->polish, ob, acc);
        if (fit_past_deadline(R)) {
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
rve_status fit_stage_end(fitrun *R, int stage, double *obj, double *acc, rve_err *err)
{
    if (isnan(R->objbest))
        R->objbest = fit_eval_eq65(R->F, R->xbest, R->nth, NULL);
    *obj = R->objbest;
    *acc = R->accbest;
    return fit_record(R, 4, stage, R->objbest, R->accbest, err);
}

