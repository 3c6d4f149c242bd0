/* Statistical microstructure synthesis (issue 9).
 *
 * 1. Size stage: target sizes are sampled at the quantiles (k + 1/2)/n of the
 *    size distribution (diameq or size) and given to the seeds by the rank of
 *    their Voronoi volumes (random seeds); they give the cell volumes, which
 *    the prescribed-volume Newton solver (pvol.c) reaches.
 * 2. Shape stage (sphericity prescribed): (a) plain Lloyd steps (seeds to
 *    their centroids, volumes re-solved) while the objective decreases; (b) a
 *    local search: each cell's target is the target quantile at its current
 *    sphericity rank; batches of pairwise non-adjacent cells move their seeds
 *    (random steps with per-cell adaptive size, plus a pull towards the
 *    centroid for cells that must get rounder) and keep the moves that lower
 *    their local error; volumes are re-solved every 5 batches and at the end.
 *    The best state for the objective (sum over properties of the
 *    Anderson-Darling weighted L2 distance between kernel-smoothed CDFs and the
 *    targets) is returned.  The whole diagram is recomputed by voro++ each
 *    step (rve_tess_build).
 * Kolmogorov-Smirnov distances are reported as the independent measure. */
#include "config.h"
#include "optim/synth.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GEN_PI 3.14159265358979323846

void rve_gen_params_default(rve_gen_params *p)
{
    memset(p, 0, sizeof *p);
    p->n = 1000;
    p->domain[0] = p->domain[1] = p->domain[2] = 1;
    p->seed = 1;
    p->max_iter = 200;
    p->tol = 1e-3;
}

static void values_from_tess(const rve_tess *t, size_t n, const rve_morpho *m, double *vals)
{
    double sd = 0, sv = 0;
    for (size_t i = 0; i < n; i++) {
        const rve_tess_poly *p = &t->cells[i];
        double v = p->vol > 0 ? p->vol : 0;
        double d = cbrt(6 * v / GEN_PI);
        double s = (v > 0 && p->area > 0) ? cbrt(GEN_PI) * pow(6 * v, 2.0 / 3.0) / p->area : 0;
        vals[RVE_PROP_COUNT * i + RVE_PROP_DIAMEQ] = d;
        vals[RVE_PROP_COUNT * i + RVE_PROP_SIZE] = v;
        vals[RVE_PROP_COUNT * i + RVE_PROP_SPHERICITY] = s;
        vals[RVE_PROP_COUNT * i + RVE_PROP_1MSPHERICITY] = 1 - s;
        sd += d;
        sv += v;
    }
    /* sizes relative to their mean, scaled by the target mean */
    double md = m && m->has[RVE_PROP_DIAMEQ] ? rve_distrib_mean(&m->dist[RVE_PROP_DIAMEQ]) : 1;
    double mv = m && m->has[RVE_PROP_SIZE] ? rve_distrib_mean(&m->dist[RVE_PROP_SIZE]) : 1;
    sd /= (double)n;
    sv /= (double)n;
    for (size_t i = 0; i < n; i++) {
        if (sd > 0)
            vals[RVE_PROP_COUNT * i + RVE_PROP_DIAMEQ] *= md / sd;
        if (sv > 0)
            vals[RVE_PROP_COUNT * i + RVE_PROP_SIZE] *= mv / sv;
    }
}

rve_status rve_gen_cell_values(size_t n, const double *seeds, const double *weights, const double domain[3],
                               int periodic, double *vol, double *area, double *diameq, double *sphericity,
                               rve_err *err)
{
    synth_ctx c;
    rve_status st = synth_ctx_init(&c, n, domain, periodic, err);
    double *psi = malloc(n * sizeof *psi);
    rve_tess *t = NULL;
    if (st == RVE_OK && !psi)
        st = rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    if (st == RVE_OK) {
        for (size_t i = 0; i < n; i++)
            psi[i] = weights ? weights[i] * weights[i] : 0;
        st = synth_tess(&c, seeds, psi, &t, err);
    }
    if (st == RVE_OK) {
        for (size_t i = 0; i < n; i++) {
            const rve_tess_poly *p = &t->cells[i];
            double v = p->vol > 0 ? p->vol : 0;
            if (vol)
                vol[i] = v;
            if (area)
                area[i] = p->area;
            if (diameq)
                diameq[i] = cbrt(6 * v / GEN_PI);
            if (sphericity)
                sphericity[i] = (v > 0 && p->area > 0) ? cbrt(GEN_PI) * pow(6 * v, 2.0 / 3.0) / p->area : 0;
        }
    }
    rve_tess_free(t);
    free(psi);
    synth_ctx_free(&c);
    return st;
}

/* Silverman bandwidth of the target distribution for n samples. */
static double bandwidth(const rve_distrib *d, size_t n)
{
    const int m = 200;
    double s1 = 0, s2 = 0;
    for (int k = 0; k < m; k++) {
        double x = rve_distrib_quantile(d, (k + 0.5) / m);
        s1 += x;
        s2 += x * x;
    }
    double mean = s1 / m, var = s2 / m - mean * mean;
    double sd = var > 0 ? sqrt(var) : 0;
    double iqr = (rve_distrib_quantile(d, 0.75) - rve_distrib_quantile(d, 0.25)) / 1.34;
    double s = sd < iqr ? sd : iqr;
    if (!(s > 0))
        s = sd > 0 ? sd : 1e-3 * (fabs(mean) + 1e-300);
    return 0.9 * s * pow((double)n, -0.2);
}

typedef struct {
    const rve_morpho *m;
    size_t n;
    double h[RVE_PROP_COUNT];
    double *col; /* n scratch */
} objective_ctx;

static double objective(objective_ctx *o, const double *vals)
{
    double f = 0;
    for (int p = 0; p < RVE_PROP_COUNT; p++) {
        if (!o->m->has[p] || o->m->dist[p].kind == RVE_DISTRIB_DIRAC)
            continue;
        for (size_t i = 0; i < o->n; i++)
            o->col[i] = vals[RVE_PROP_COUNT * i + p];
        f += rve_smooth_cdf_distance(o->col, o->n, o->h[p], &o->m->dist[p], 100);
    }
    return f;
}

static void report_ks(const rve_morpho *m, size_t n, const double *vals, double *col, rve_gen_info *info)
{
    for (int p = 0; p < RVE_PROP_COUNT; p++) {
        info->ks[p] = -1;
        info->pvalue[p] = -1;
        if (!m->has[p])
            continue;
        for (size_t i = 0; i < n; i++)
            col[i] = vals[RVE_PROP_COUNT * i + p];
        info->ks[p] = rve_ks_distance(col, n, &m->dist[p]);
        info->pvalue[p] = rve_ks_pvalue(info->ks[p], n);
    }
}

typedef struct {
    double v;
    size_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    double x = ((const keyed *)a)->v, y = ((const keyed *)b)->v;
    return (x > y) - (x < y);
}

/* target[i] = sorted[rank of cell i's volume]. */
static void assign_by_rank(const rve_tess *t, size_t n, const double *sorted, double *target, keyed *order)
{
    for (size_t i = 0; i < n; i++) {
        order[i].v = t->cells[i].vol;
        order[i].i = i;
    }
    qsort(order, n, sizeof *order, cmp_keyed);
    for (size_t r = 0; r < n; r++)
        target[order[r].i] = sorted[r];
}

static double gauss(gsl_rng *r)
{
    double u = gsl_rng_uniform_pos(r), v = gsl_rng_uniform(r);
    return sqrt(-2 * log(u)) * cos(2 * GEN_PI * v);
}

/* Local error of cell i: squared deviations from the rank targets of i and
 * its neighbours, plus the relative volume error of i. */
static double local_error(const rve_tess *t, size_t i, const double *vals, const double *tgt, const double *target)
{
    double e = 0, d = vals[RVE_PROP_COUNT * i + RVE_PROP_SPHERICITY] - tgt[i];
    e += d * d;
    const rve_tess_poly *q = &t->cells[i];
    for (int f = 0; f < q->nf; f++) {
        int j = q->fnbr[f];
        if (j < 0)
            continue;
        d = vals[RVE_PROP_COUNT * (size_t)j + RVE_PROP_SPHERICITY] - tgt[j];
        e += d * d;
    }
    if (target) {
        double r = q->vol / target[i] - 1;
        e += 0.1 * r * r;
    }
    return e;
}

/* One batch of the local search: pairwise non-adjacent cells get a seed move
 * each (random, plus a pull towards the centroid for cells that must get
 * rounder); a move is kept when it lowers the local error of the cell (its own
 * and its neighbours' deviations from their rank targets, and its volume
 * drift); then, when resolve is set, the volumes are re-solved (pp != NULL).  *tout receives the new
 * tessellation (t is freed), vals its values. */
static rve_status local_batch(synth_ctx *c, const rve_morpho *m, rve_tess *t, double *seeds, double *psi,
                              const double *target, const rve_pvol_params *pp, const double *sph_t, double *step,
                              double *vals, double *vals2, keyed *order, int *mark, double *try_s, gsl_rng *rng,
                              double cell, int resolve, rve_tess **tout, rve_err *err)
{
    size_t n = c->n;
    rve_status st;
    /* rank targets tgt[i]; before[i] the local errors of the moved cells */
    double *tgt = malloc(n * sizeof *tgt), *before = malloc(n * sizeof *before);
    if (!tgt || !before) {
        free(tgt);
        free(before);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        order[i].v = vals[RVE_PROP_COUNT * i + RVE_PROP_SPHERICITY];
        order[i].i = i;
    }
    qsort(order, n, sizeof *order, cmp_keyed);
    for (size_t r = 0; r < n; r++)
        tgt[order[r].i] = sph_t[r];
    /* random order, greedy selection of pairwise non-adjacent cells */
    for (size_t i = 0; i < n; i++) {
        order[i].v = gsl_rng_uniform(rng);
        order[i].i = i;
        mark[i] = 0; /* 2: selected */
    }
    qsort(order, n, sizeof *order, cmp_keyed);
    memcpy(try_s, seeds, 3 * n * sizeof *seeds);
    for (size_t r = 0; r < n; r++) {
        size_t i = order[r].i;
        const rve_tess_poly *q = &t->cells[i];
        int ok = !mark[i];
        for (int f = 0; f < q->nf && ok; f++)
            if (q->fnbr[f] >= 0 && mark[q->fnbr[f]])
                ok = 0;
        if (!ok)
            continue;
        mark[i] = 2;

        before[i] = local_error(t, i, vals, tgt, target);
        double sc = step[i] * cbrt(q->vol > 0 ? q->vol : cell * cell * cell);
        /* a cell that must get rounder moves towards its centroid (with noise) */
        double pull = (vals[RVE_PROP_COUNT * i + RVE_PROP_SPHERICITY] < tgt[i]) ? gsl_rng_uniform(rng) : 0;
        for (int k = 0; k < 3; k++) {
            double x = seeds[3 * i + k] + pull * (q->centroid[k] - seeds[3 * i + k]) + sc * gauss(rng), L = c->domain[k];
            if (c->periodic) {
                x = fmod(x, L);
                if (x < 0)
                    x += L;
            } else if (x <= 0 || x >= L)
                x = seeds[3 * i + k];
            try_s[3 * i + k] = x;
        }
    }
    rve_tess *tn = NULL;
    st = synth_tess(c, try_s, psi, &tn, err);
    if (st != RVE_OK) {
        free(tgt);
        free(before);
        return st;
    }
    values_from_tess(tn, n, m, vals2);
    for (size_t i = 0; i < n; i++) {
        if (mark[i] != 2)
            continue;
        int keep = tn->cells[i].vol > 0;
        if (keep)
            keep = local_error(tn, i, vals2, tgt, target) < before[i];
        if (keep) {
            for (int k = 0; k < 3; k++)
                seeds[3 * i + k] = try_s[3 * i + k];
            step[i] *= 1.3;
            if (step[i] > 0.5)
                step[i] = 0.5;
        } else {
            step[i] *= 0.7;
            if (step[i] < 0.01)
                step[i] = 0.01;
        }
    }
    free(tgt);
    free(before);
    rve_tess_free(tn);
    tn = NULL;
    rve_tess_free(t);
    if (pp && resolve) {
        st = synth_pvol(c, seeds, target, psi, pp, NULL, &tn, err);
        if (st == RVE_ECAP && tn)
            st = RVE_OK;
    } else
        st = synth_tess(c, seeds, psi, &tn, err);
    *tout = tn;
    if (st != RVE_OK)
        return st;
    values_from_tess(tn, n, m, vals);
    return RVE_OK;
}

rve_status rve_gen(const rve_morpho *m, const rve_gen_params *p, double *seeds, double *weights, double *values,
                   rve_gen_info *info, rve_err *err)
{
    double t0 = rve_now();
    size_t n = p->n;
    rve_gen_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (n < 1)
        return rve_err_set(err, RVE_EUSAGE, "", "the number of cells must be positive");
    for (int a = 0; a < 3; a++)
        if (!(p->domain[a] > 0 && isfinite(p->domain[a])))
            return rve_err_set(err, RVE_EUSAGE, "", "the domain size must be positive");
    double dvol = p->domain[0] * p->domain[1] * p->domain[2];
    int sizep = m->has[RVE_PROP_DIAMEQ] ? RVE_PROP_DIAMEQ : m->has[RVE_PROP_SIZE] ? RVE_PROP_SIZE : -1;
    int sphp = m->has[RVE_PROP_SPHERICITY] ? RVE_PROP_SPHERICITY : m->has[RVE_PROP_1MSPHERICITY] ? RVE_PROP_1MSPHERICITY : -1;

    synth_ctx c;
    rve_status st = synth_ctx_init(&c, n, p->domain, p->periodic, err);
    if (st != RVE_OK)
        return st;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    double *target = malloc(n * sizeof *target), *psi = malloc(n * sizeof *psi);
    double *vals = malloc(RVE_PROP_COUNT * n * sizeof *vals), *col = malloc(n * sizeof *col);
    double *best_s = malloc(3 * n * sizeof *best_s), *best_psi = malloc(n * sizeof *best_psi);
    double *try_s = malloc(3 * n * sizeof *try_s), *try_psi = malloc(n * sizeof *try_psi);
    double *sph_t = malloc(n * sizeof *sph_t), *sorted_t = malloc(n * sizeof *sorted_t);
    double *vals2 = malloc(RVE_PROP_COUNT * n * sizeof *vals2), *step = malloc(n * sizeof *step);
    int *mark = malloc(n * sizeof *mark);
    keyed *order = malloc(n * sizeof *order);
    rve_tess *t = NULL;
    if (!rng || !target || !psi || !vals || !col || !best_s || !best_psi || !try_s || !try_psi || !sph_t || !sorted_t || !order || !vals2 || !step || !mark) {
        st = rve_err_set(err, RVE_ENOMEM, "", "out of memory (%zu cells)", n);
        goto done;
    }
    gsl_rng_set(rng, p->seed);
    for (size_t i = 0; i < 3 * n; i++)
        seeds[i] = gsl_rng_uniform(rng) * p->domain[i % 3];
    for (size_t i = 0; i < n; i++)
        psi[i] = 0;

    /* ---- size stage ---- */
    rve_pvol_params pp;
    rve_pvol_params_default(&pp);
    pp.tol = p->tol;
    if (sizep >= 0) {
        double s = 0;
        for (size_t k = 0; k < n; k++) {
            double x = rve_distrib_quantile(&m->dist[sizep], (k + 0.5) / (double)n);
            if (!(x > 0)) {
                st = rve_err_set(err, RVE_EUSAGE, "", "the %s distribution has non-positive values; truncate it (from=...)",
                                 rve_prop_name(sizep));
                goto done;
            }
            target[k] = sizep == RVE_PROP_DIAMEQ ? x * x * x : x;
        }
        for (size_t k = 0; k < n; k++)
            s += target[k];
        for (size_t k = 0; k < n; k++) {
            target[k] *= dvol / s;
            sorted_t[k] = target[k]; /* ascending: quantiles increase */
        }
        /* Give the large volumes to the seeds with large Voronoi cells (seeds
         * in sparse regions): the weights then stay moderate and the cells
         * regular, and the size distribution is unchanged. */
        st = synth_tess(&c, seeds, psi, &t, err);
        if (st != RVE_OK)
            goto done;
        assign_by_rank(t, n, sorted_t, target, order);
        rve_tess_free(t);
        t = NULL;
        st = synth_pvol(&c, seeds, target, psi, &pp, NULL, &t, err);
        if (st != RVE_OK)
            goto done;
        info->max_vol_err = c.max_rel_err;
    } else {
        st = synth_tess(&c, seeds, psi, &t, err);
        if (st != RVE_OK)
            goto done;
    }
    values_from_tess(t, n, m, vals);

    objective_ctx oc = {m, n, {0}, col};
    for (int q = 0; q < RVE_PROP_COUNT; q++)
        if (m->has[q])
            oc.h[q] = bandwidth(&m->dist[q], n);
    double f = objective(&oc, vals);

    /* ---- shape stage ---- */
    if (sphp >= 0 && m->dist[sphp].kind != RVE_DISTRIB_DIRAC) {
        /* target sphericity by rank of sphericity (ascending) */
        for (size_t r = 0; r < n; r++) {
            double u = (r + 0.5) / (double)n;
            sph_t[r] = sphp == RVE_PROP_SPHERICITY ? rve_distrib_quantile(&m->dist[sphp], u)
                                                   : 1 - rve_distrib_quantile(&m->dist[sphp], 1 - u);
        }
        double spread = sph_t[(size_t)(0.84 * n)] - sph_t[(size_t)(0.16 * n)];
        if (!(spread > 0))
            spread = 0.02;
        double gain = 0.5;
        double cell = cbrt(dvol / (double)n);
        rve_pvol_params ip = pp;
        ip.tol = p->tol > 1e-2 ? p->tol : 1e-2; /* looser inside the loop, final solve below */
        memcpy(best_s, seeds, 3 * n * sizeof *seeds);
        memcpy(best_psi, psi, n * sizeof *psi);
        double fbest = f;
        for (size_t i = 0; i < n; i++)
            step[i] = 0.1;
        int it, lloyd = 1; /* phase A: plain Lloyd steps while they help */
        for (it = 0; it < p->max_iter; it++) {
            if (p->time_limit > 0 && rve_now() - t0 > p->time_limit)
                break;
            if (gain < 1e-3)
                break;
            if (!lloyd) {
                /* phase B: local search, batches of cells with disjoint neighbourhoods */
                st = local_batch(&c, m, t, seeds, psi, target, sizep >= 0 ? &ip : NULL, sph_t, step, vals, vals2,
                                 order, mark, try_s, rng, cell, (it + 1) % 5 == 0, &t, err);
                if (st != RVE_OK)
                    goto done;
                f = objective(&oc, vals);
                if (f < fbest) {
                    fbest = f;
                    memcpy(best_s, seeds, 3 * n * sizeof *seeds);
                    memcpy(best_psi, psi, n * sizeof *psi);
                }
                if (p->progress)
                    p->progress(p->progress_ctx, it + 1, p->max_iter, f);
                continue;
            }
            for (size_t i = 0; i < n; i++) {
                order[i].v = vals[RVE_PROP_COUNT * i + RVE_PROP_SPHERICITY];
                order[i].i = i;
            }
            qsort(order, n, sizeof *order, cmp_keyed);
            for (size_t r = 0; r < n; r++) {
                size_t i = order[r].i;
                const rve_tess_poly *q = &t->cells[i];
                double dev = (sph_t[r] - order[r].v) / spread;
                double a = lloyd ? 1.0 : gain * dev;
                if (a > 1)
                    a = 1;
                if (a < -0.5)
                    a = -0.5;
                for (int k = 0; k < 3; k++) {
                    double s = seeds[3 * i + k];
                    double cx = q->vol > 0 ? q->centroid[k] : s;
                    double x = s + a * (cx - s);
                    if (a < 0) /* also a small random push for cells that must get rougher */
                        x += -a * 0.05 * cell * (2 * gsl_rng_uniform(rng) - 1);
                    double L = p->domain[k];
                    if (p->periodic) {
                        x = fmod(x, L);
                        if (x < 0)
                            x += L;
                    } else {
                        if (x < 1e-9 * L)
                            x = 1e-9 * L;
                        if (x > L * (1 - 1e-9))
                            x = L * (1 - 1e-9);
                    }
                    try_s[3 * i + k] = x;
                }
            }
            memcpy(try_psi, psi, n * sizeof *psi);
            rve_tess *tn = NULL;
            rve_err e2;
            rve_err_clear(&e2);
            rve_status s2 = sizep >= 0 ? synth_pvol(&c, try_s, target, try_psi, &ip, NULL, &tn, &e2)
                                       : synth_tess(&c, try_s, try_psi, &tn, &e2);
            if (s2 == RVE_ENOMEM) {
                rve_tess_free(tn);
                st = rve_err_set(err, RVE_ENOMEM, "", "out of memory");
                goto done;
            }
            if (s2 != RVE_OK || !tn || tn->nempty > 0) {
                rve_tess_free(tn);
                if (lloyd)
                    lloyd = 0;
                else
                    gain *= 0.5;
                continue;
            }
            values_from_tess(tn, n, m, vals);
            double fn = objective(&oc, vals);
            if (fn < f) {
                memcpy(seeds, try_s, 3 * n * sizeof *seeds);
                memcpy(psi, try_psi, n * sizeof *psi);
                rve_tess_free(t);
                t = tn;
                f = fn;
                if (f < fbest) {
                    fbest = f;
                    memcpy(best_s, seeds, 3 * n * sizeof *seeds);
                    memcpy(best_psi, psi, n * sizeof *psi);
                }
                if (!lloyd)
                    gain *= 1.2;
                if (gain > 1)
                    gain = 1;
            } else {
                rve_tess_free(tn);
                values_from_tess(t, n, m, vals);
                if (lloyd)
                    lloyd = 0;
                else
                    gain *= 0.5;
            }
            if (p->progress)
                p->progress(p->progress_ctx, it + 1, p->max_iter, f);
        }
        info->iterations = it;
        if (fbest < f) { /* the local search wanders: keep the best state */
            memcpy(seeds, best_s, 3 * n * sizeof *seeds);
            memcpy(psi, best_psi, n * sizeof *psi);
        }
        /* final volume solve at the requested tolerance (or the diagram of
         * the best state) */
        rve_tess_free(t);
        t = NULL;
        if (sizep >= 0) {
            st = synth_pvol(&c, seeds, target, psi, &pp, NULL, &t, err);
            info->max_vol_err = c.max_rel_err;
        } else
            st = synth_tess(&c, seeds, psi, &t, err);
        if (st != RVE_OK)
            goto done;
        values_from_tess(t, n, m, vals);
        f = objective(&oc, vals);
    }
    info->objective = f;
    report_ks(m, n, vals, col, info);
    {
        double pmin = HUGE_VAL;
        for (size_t i = 0; i < n; i++)
            if (psi[i] < pmin)
                pmin = psi[i];
        for (size_t i = 0; i < n; i++)
            weights[i] = sqrt(psi[i] - pmin);
    }
    if (values)
        memcpy(values, vals, RVE_PROP_COUNT * n * sizeof *vals);
done:
    info->tess_calls = c.tess_calls;
    info->seconds = rve_now() - t0;
    rve_tess_free(t);
    if (rng)
        gsl_rng_free(rng);
    free(target);
    free(psi);
    free(vals);
    free(col);
    free(best_s);
    free(best_psi);
    free(try_s);
    free(try_psi);
    free(sph_t);
    free(sorted_t);
    free(vals2);
    free(step);
    free(mark);
    free(order);
    synth_ctx_free(&c);
    return st;
}
