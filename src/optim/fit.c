/* fit.c - fitting a Laguerre tessellation to a grain map: the driver
 * (rve_fit); the parts are listed in fit_int.h. */
#include "config.h"
#include "optim/fit_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Where a pass starts and what it leaves for the next: the anchor saves its
 * stage-1 state (xs1, internal units) and sweeps; the effort pass starts
 * stage 1 from that state with the sweeps left (warm start). */
typedef struct {
    const double *x0;    /* NULL: the initial guess */
    int sweeps_done;     /* stage-1 sweeps already made from the guess to x0 */
    int save;            /* save the stage-1 state: */
    double *xs1;         /*   here (allocated by the pass, freed by the caller) */
    int s1_sweeps;       /*   and the sweeps it took */
} fit_pass;

/* Warm start: stage 1 goes on from x0 (the anchor's stage-1 state), which
 * is measured, offered and recorded as an Eq. 6.5 row of sweep 0. */
static rve_status warm_start(fitrun *R, const double *x0, rve_err *err)
{
    fitctx *F = R->F;
    memcpy(R->x, x0, (size_t)F->n * 4 * sizeof(double));
    rve_status st = lopt_rebuild(R->L, err);
    if (st != RVE_OK)
        return st;
    R->obj_start = F->W > 0 ? sqrt(lopt_total(R->L) / F->W) : 0;
    double ow = R->obj_start, aw;
    return fit_reached(R, R->x, 1, 0, &ow, &aw, err);
}

/* Rounds of surrogate, classifier and polishing after stage 1 (step and
 * tstep: the sweeps' work arrays). */
static rve_status fit_rounds(fitrun *R, double *step, double *tstep, rve_err *err)
{
    /* Each round starts from the best state so far.  A run with more rounds repeats the run with fewer and
     * goes on from its result, so (the best state being kept) more rounds
     * never end lower; a round that finds nothing better ends the loop (the
     * next would repeat it exactly: the fit is deterministic). */
    const rve_fit_opts *o = R->o;
    rve_fit_result *r = R->r;
    int n = R->F->n;
    rve_status st = RVE_OK;
    for (int round = 0; round < o->rounds && R->accbest < 1; round++) { /* at 100 %: nothing to gain */
        double before = R->accbest;
        memcpy(R->x, R->xbest, (size_t)n * 4 * sizeof(double));
        if (o->hinge > 0 && !fit_past_deadline(R) && (st = fit_hinge(R, o->hinge, err)) != RVE_OK)
            return st;
        memcpy(R->x, R->xbest, (size_t)n * 4 * sizeof(double));
        if (o->classify > 0 && R->accbest < 1 && !fit_past_deadline(R) &&
            ((st = fit_measure(R, R->x, &r->acc_classify, err)) != RVE_OK || (st = fit_classify(R, o->classify, err)) != RVE_OK))
            return st;
        if ((st = fit_stage_end(R, 3, &r->obj_classify, &r->acc_classify, err)) != RVE_OK)
            return st;
        if (o->polish > 0 && R->accbest < 1 && !fit_past_deadline(R) && (st = fit_stage_polish(R, step, tstep, err)) != RVE_OK)
            return st;
        r->rounds = round + 1;
        if (R->accbest <= before || fit_past_deadline(R))
            break;
    }
    return st;
}

/* One pass of the fit with options *opts, its clock started at t0, ending
 * by the deadline (0: none). */
static rve_status fit_once(const rve_map *m, const rve_fit_opts *opts, double t0, double deadline,
                           fit_pass *pass, rve_fit_result *r, rve_err *err)
{
    rve_fit_opts o = *opts;
    if (pass && pass->x0)
        o.max_sweeps = o.max_sweeps > pass->sweeps_done ? o.max_sweeps - pass->sweeps_done : 0;
    memset(r, 0, sizeof *r);
    fitrun R;
    memset(&R, 0, sizeof R);
    R.t0 = t0;
    R.deadline = deadline;
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
    if (o.init_seed && o.init_weight) /* the distributed fit's starting state */
        fit_to_internal(&F, o.init_seed, o.init_weight, R.x);
    if (o.frozen) {
        if (!(F.xfix = malloc((size_t)n * 4 * sizeof(double)))) {
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            goto done;
        }
        memcpy(F.xfix, R.x, (size_t)n * 4 * sizeof(double));
        F.frozen = o.frozen;
    }
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
    lopt_set_frozen(R.L, o.frozen);
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
    R.obj_start = r->obj_init;
    if (pass && pass->x0 && (st = warm_start(&R, pass->x0, err)) != RVE_OK)
        goto done;
    if ((st = fit_stage_eq65(&R, step, tstep, err)) != RVE_OK)
        goto done;
    if (pass && pass->save) {
        if (!(pass->xs1 = malloc((size_t)n * 4 * sizeof(double)))) {
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            goto done;
        }
        memcpy(pass->xs1, R.x, (size_t)n * 4 * sizeof(double));
        pass->s1_sweeps = r->sweeps;
    }
    if ((st = fit_stage_end(&R, 1, &r->obj_stage1, &r->acc_stage1, err)) != RVE_OK)
        goto done;
    if ((st = fit_rounds(&R, step, tstep, err)) != RVE_OK)
        goto done;
    /* cells far smaller than their grain grown where no voxel is lost */
    if (o.open_tiny && (st = fit_open_tiny(&R, err)) != RVE_OK)
        goto done;
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
    r->weight_shift = 0; /* as fit_to_physical: the smallest t if negative, in physical units */
    for (int k = 0; k < n; k++)
        if (R.xbest[4 * k + 3] < r->weight_shift)
            r->weight_shift = R.xbest[4 * k + 3];
    r->weight_shift *= F.L * F.L;
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

/* The anchor of a run: the default configuration, with every budget the
 * options lower kept lower (and the finer settings of --res and --tol
 * coarsened to the defaults).  The budgets that only extend a run without
 * changing what comes before (polishing sweeps: the last stage of a round;
 * rounds; the time cap) are kept as given.  Returns 1 when the anchor
 * differs from the options (the options raise some effort above the
 * defaults in a way that changes the path). */
static int anchor_opts(const rve_fit_opts *o, rve_fit_opts *a)
{
    rve_fit_opts d;
    rve_fit_opts_init(&d);
    *a = *o;
    if (a->max_sweeps > d.max_sweeps)
        a->max_sweeps = d.max_sweeps;
    if (a->max_evals > d.max_evals)
        a->max_evals = d.max_evals;
    if (a->hinge > d.hinge)
        a->hinge = d.hinge;
    if (a->classify > d.classify)
        a->classify = d.classify;
    if (a->tol < d.tol)
        a->tol = d.tol;
    if (a->res < d.res)
        a->res = d.res;
    return a->max_sweeps != o->max_sweeps || a->max_evals != o->max_evals || a->hinge != o->hinge ||
           a->classify != o->classify || a->tol != o->tol || a->res != o->res;
}

/* Monotone effort.  Raising --sweeps, --evals, --hinge, --classify or
 * lowering --tol, --res changes where every later stage starts, and a
 * different path can end lower.  Such a run therefore first runs its
 * anchor (anchor_opts: the defaults, or less where the options ask for
 * less), then the options as given, and returns the better of the two
 * (the anchor on a tie); the history holds both passes (the second starts
 * with its own "initial" row).  So a run that raises any effort never ends
 * below the defaults with the same polishing sweeps and rounds, which
 * themselves only extend a run. */
rve_status rve_fit(const rve_map *m, const rve_fit_opts *opts, rve_fit_result *r, rve_err *err)
{
    rve_fit_opts o, a;
    if (opts)
        o = *opts;
    else
        rve_fit_opts_init(&o);
    double t0 = rve_now(), deadline = o.max_seconds > 0 ? t0 + o.max_seconds : 0;
    if (!anchor_opts(&o, &a))
        return fit_once(m, &o, t0, deadline, NULL, r, err);
    rve_fit_result A, B;
    fit_pass pa = {NULL, 0, 1, NULL, 0};
    rve_status st = fit_once(m, &a, t0, deadline, &pa, &A, err);
    if (st != RVE_OK) {
        free(pa.xs1);
        rve_fit_result_free(&A);
        return st;
    }
    if ((deadline > 0 && rve_now() > deadline) || !pa.xs1) { /* no stage-1 state: cut by the deadline */
        free(pa.xs1);
        *r = A;
        r->seconds = rve_now() - t0;
        return RVE_OK;
    }
    /* the effort pass: stage 1 goes on from the anchor's stage-1 state with
     * the options' budgets (sweeps counted from the guess), then its rounds */
    fit_pass pb = {pa.xs1, pa.s1_sweeps, 0, NULL, 0};
    st = fit_once(m, &o, t0, deadline, &pb, &B, err);
    free(pa.xs1);
    if (st != RVE_OK) {
        rve_fit_result_free(&A);
        rve_fit_result_free(&B);
        return st;
    }
    rve_fit_result *w = B.acc_final > A.acc_final ? &B : &A, *l = w == &A ? &B : &A;
    rve_fit_hist *h = realloc(A.hist, (size_t)(A.nhist + B.nhist) * sizeof *h);
    if (!h) {
        rve_fit_result_free(&A);
        rve_fit_result_free(&B);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    memcpy(h + A.nhist, B.hist, (size_t)B.nhist * sizeof *h);
    free(B.hist);
    A.hist = B.hist = NULL;
    int nh = A.nhist + B.nhist;
    long ev = A.evals + B.evals, gj = A.gjk_calls + B.gjk_calls;
    *r = *w;
    r->hist = h;
    r->nhist = nh;
    r->evals = ev;
    r->gjk_calls = gj;
    r->seconds = rve_now() - t0;
    w->label = NULL;
    w->seed = NULL;
    w->weight = NULL;
    rve_fit_result_free(l);
    return RVE_OK;
}
