/* fit.c - fitting a Laguerre tessellation to a grain map: the driver
 * (rve_fit); the parts are listed in fit_int.h. */
#include "config.h"
#include "optim/fit_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    fit_initial_guess(&F, R.x);
    F.x = R.x;
    if ((st = fit_measure(&R, R.x, &r->acc_init, err)) != RVE_OK)
        goto done;
    st = rve_fit_quality(m, n, r->seed, r->weight, NULL, NULL, NULL, &r->empty_cells_init, NULL, err);
    if (st != RVE_OK)
        goto done;
    R.L = lopt_alloc(n, F.lo, F.hi, R.x, R.nth, err);
    if (!R.L) {
        st = err ? err->code : RVE_ENOMEM;
        goto done;
    }
    lopt_set_cost(R.L, fit_cost_eq65, &F);
    if ((st = lopt_rebuild(R.L, err)) != RVE_OK)
        goto done;
    r->obj_init = F.W > 0 ? sqrt(lopt_total(R.L) / F.W) : 0;
    R.accbest = -1;
    /* the initial state is recorded as measured (acc_init is the guess's
     * own accuracy); a repaired copy may become the best */
    double ai = r->acc_init, oi = r->obj_init;
    if ((st = fit_offer(&R, R.x, &ai, &oi, err)) != RVE_OK)
        goto done;
    if ((st = fit_record(&R, 0, 0, r->obj_init, r->acc_init, err)) != RVE_OK)
        goto done;
    if (o.progress)
        o.progress(o.progress_ctx, 0, 0, 0.0, r->obj_init, r->acc_init);
    if ((st = fit_stage_eq65(&R, step, tstep, err)) != RVE_OK ||
        (st = fit_stage_end(&R, 1, &r->obj_stage1, &r->acc_stage1, err)) != RVE_OK)
        goto done;
    /* Rounds of surrogate, classifier and polishing, each from the best
     * state so far.  A run with more rounds repeats the run with fewer and
     * goes on from its result, so (the best state being kept) more rounds
     * never end lower; a round that finds nothing better ends the loop (the
     * next would repeat it exactly: the fit is deterministic). */
    for (int round = 0; round < o.rounds && R.accbest < 1; round++) { /* at 100 %: nothing to gain */
        double before = R.accbest;
        memcpy(R.x, R.xbest, (size_t)n * 4 * sizeof(double));
        if (o.hinge > 0 && !fit_past_deadline(&R) && (st = fit_hinge(&R, o.hinge, err)) != RVE_OK)
            goto done;
        memcpy(R.x, R.xbest, (size_t)n * 4 * sizeof(double));
        if (o.classify > 0 && R.accbest < 1 && !fit_past_deadline(&R) &&
            ((st = fit_measure(&R, R.x, &r->acc_classify, err)) != RVE_OK || (st = fit_classify(&R, o.classify, err)) != RVE_OK))
            goto done;
        if ((st = fit_stage_end(&R, 3, &r->obj_classify, &r->acc_classify, err)) != RVE_OK)
            goto done;
        if (o.polish > 0 && R.accbest < 1 && !fit_past_deadline(&R) && (st = fit_stage_polish(&R, step, tstep, err)) != RVE_OK)
            goto done;
        r->rounds = round + 1;
        if (R.accbest <= before || fit_past_deadline(&R))
            break;
    }
    /* the returned state: the best seen, its seeds inside the box (the same
     * diagram), measured from exactly the seeds and weights returned */
    memcpy(R.x, R.xbest, (size_t)n * 4 * sizeof(double));
    fit_keep_inside(&F, R.x);
    R.accbest = -1;
    R.objbest = NAN;
    if ((st = fit_measure(&R, R.x, &r->acc_final, err)) != RVE_OK)
        goto done;
    double of = NAN;
    if ((st = fit_offer(&R, R.x, &r->acc_final, &of, err)) != RVE_OK)
        goto done;
    if ((st = fit_stage_end(&R, 2, &r->obj_polish, &r->acc_polish, err)) != RVE_OK)
        goto done;
    r->obj_final = r->obj_polish;
    fit_to_physical(&F, R.xbest, r->seed, r->weight);
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
