/* Statistical microstructure synthesis.
 *
 * 1. Size stage: target sizes are sampled at the quantiles (k + 1/2)/n of the
 *    size distribution (diameq or size) and given to the seeds by the rank of
 *    their Voronoi volumes (random seeds), or, with size_corr > 0, by the
 *    rank of a smooth random field (see "Spatially correlated sizes"); they
 *    give the cell volumes, which the prescribed-volume Newton solver
 *    (pvol.c) reaches.
 * 2. Shape stage (sphericity prescribed): (a) plain Lloyd steps (seeds to
 *    their centroids, volumes re-solved) while the smoothed-CDF objective
 *    decreases; (b) an incremental local search (see "Incremental local
 *    search"): one seed or weight moves per trial, the diagram is updated in
 *    place (rve_tess_update), and the move is kept when it lowers a weighted
 *    L2 distance between sorted values and target quantiles (sphericity, and
 *    sizes, which cells may trade); the volumes are re-solved to the size
 *    quantiles in the current rank order after each sweep of n trials and
 *    at the end, so the size distribution is still met exactly.
 * Kolmogorov-Smirnov distances are reported as the independent measure. */
#include "config.h"
#include "optim/synth.h"
#include "optim/gen_internal.h"
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lloyd steps stop when the objective stops decreasing, usually after a
 * handful; the cap only bounds the loop */
#define GEN_LLOYD_MAX 50
/* the search stops when its objective is at most this multiple of the one expected
 * of n independent draws from the target: as close to the target as a random
 * sample of it, typically (KS 0.02-0.03 at n = 1000) */
#define GEN_STOP 2.0

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
        f += synth_smooth_cdf_distance_inplace(o->col, o->n, o->h[p], &o->m->dist[p], 100);
    }
    return f;
}

static void report_ks(const rve_morpho *m, size_t n, const double *vals, double *col, rve_gen_info *info)
{
    for (int p = 0; p < RVE_PROP_COUNT; p++) {
        info->ks[p] = -1;
        info->pvalue[p] = -1;
        info->max_dev[p] = -1;
        if (!m->has[p])
            continue;
        if (m->dist[p].kind == RVE_DISTRIB_DIRAC) {
            /* a step CDF: rounding puts half the values on either side of the
             * step, so KS would read about 0.5 for a perfect result */
            double v = m->dist[p].p1, dev = 0;
            for (size_t i = 0; i < n; i++)
                dev = fmax(dev, fabs(vals[RVE_PROP_COUNT * i + p] - v));
            info->max_dev[p] = v != 0 ? dev / fabs(v) : dev;
            continue;
        }
        for (size_t i = 0; i < n; i++)
            col[i] = vals[RVE_PROP_COUNT * i + p];
        info->ks[p] = synth_ks_distance_inplace(col, n, &m->dist[p]);
        info->pvalue[p] = rve_ks_pvalue(info->ks[p], n);
    }
}


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

double gen_gauss(gsl_rng *r)
{
    double u = gsl_rng_uniform_pos(r), v = gsl_rng_uniform(r);
    return sqrt(-2 * log(u)) * cos(2 * GEN_PI * v);
}

/* ---------------------------------------------------------------------------
 * Spatially correlated sizes.  A Laguerre cell is round when its neighbours
 * are about its own size (it then has ~14 of them); a small cell among large
 * ones has few faces and is far from round, a large one among small ones is
 * very round, which widens the sphericity distribution whatever the seeds
 * do later.  So sizes follow a smooth random field g (zero mean, unit
 * variance, correlation length lambda): seeds are drawn with density
 * proportional to 1 / V(g(x)) (V the size quantile at Phi(g)) and the target
 * volumes are given by the rank of g at the seeds.  The size distribution is
 * unchanged (still the quantiles); only its spatial arrangement is.  Wave
 * vectors are integer multiples of 2 pi / L so the field is periodic too.
 * ------------------------------------------------------------------------ */
#define GEN_FIELD_MODES 24
typedef struct {
    double k[GEN_FIELD_MODES][3], ph[GEN_FIELD_MODES];
} size_field;

static void field_init(size_field *f, const double dom[3], double lambda, gsl_rng *rng)
{
    double kmin = 1 / (1.5 * lambda), kmax = 1.5 / lambda; /* in cycles per unit length */
    int mm[3];
    for (int a = 0; a < 3; a++)
        mm[a] = (int)ceil(kmax * dom[a]);
    for (int j = 0; j < GEN_FIELD_MODES; j++) {
        int m[3] = {1, 0, 0};
        for (int tries = 0; tries < 1000; tries++) { /* rejection; cap then fall back to (1,0,0) */
            double k2 = 0;
            int cand[3];
            for (int a = 0; a < 3; a++) {
                cand[a] = (int)gsl_rng_uniform_int(rng, (unsigned long)(2 * mm[a] + 1)) - mm[a];
                k2 += (cand[a] / dom[a]) * (cand[a] / dom[a]);
            }
            if (k2 >= kmin * kmin && k2 <= kmax * kmax) {
                memcpy(m, cand, sizeof m);
                break;
            }
        }
        for (int a = 0; a < 3; a++)
            f->k[j][a] = 2 * GEN_PI * m[a] / dom[a];
        f->ph[j] = 2 * GEN_PI * gsl_rng_uniform(rng);
    }
}

static double field_at(const size_field *f, const double x[3])
{
    double g = 0;
    for (int j = 0; j < GEN_FIELD_MODES; j++)
        g += cos(f->k[j][0] * x[0] + f->k[j][1] * x[1] + f->k[j][2] * x[2] + f->ph[j]);
    return g * sqrt(2.0 / GEN_FIELD_MODES);
}

/* Size (volume, up to a constant) at field value g. */
static double field_size(const rve_distrib *d, int diameq, double g, size_t n)
{
    double u = gsl_cdf_ugaussian_P(g), lo = 0.5 / (double)n;
    if (u < lo)
        u = lo;
    if (u > 1 - lo)
        u = 1 - lo;
    double x = rve_distrib_quantile(d, u);
    return diameq ? x * x * x : x;
}

/* Draw the seeds (density ~ 1 / size) and fill gval with the field at them. */
static void field_seeds(const size_field *f, const rve_distrib *d, int diameq, size_t n, const double dom[3],
                        gsl_rng *rng, double *seeds, double *gval)
{
    double vmin = field_size(d, diameq, -HUGE_VAL, n);
    for (size_t i = 0; i < n; i++) {
        double x[3];
        for (long tries = 0; tries < 100000; tries++) { /* acceptance is vmin / V >= 1 / 10^5 in practice */
            for (int a = 0; a < 3; a++)
                x[a] = gsl_rng_uniform(rng) * dom[a];
            double g = field_at(f, x);
            if (gsl_rng_uniform(rng) * field_size(d, diameq, g, n) <= vmin)
                break;
        }
        memcpy(seeds + 3 * i, x, sizeof x);
        gval[i] = field_at(f, x);
    }
}

/* Pearson correlation of log volumes over the (ordered) pairs of face
 * neighbours: how alike in size neighbouring cells are. */
static double nb_size_corr(const rve_tess *t, size_t n)
{
    double sx = 0, sxx = 0, sxy = 0;
    long np = 0;
    for (size_t i = 0; t && i < n; i++)
        for (int k = 0; k < t->cells[i].nf; k++) {
            int j = t->cells[i].fnbr[k];
            if (j < 0 || (size_t)j == i || !(t->cells[i].vol > 0) || !(t->cells[j].vol > 0))
                continue;
            double a = log(t->cells[i].vol), b = log(t->cells[j].vol);
            /* the pair list is symmetric: (i, j) and (j, i) both occur, so the
             * two marginals are the same and one set of sums serves both */
            sx += a;
            sxx += a * a;
            sxy += a * b;
            np++;
        }
    if (np < 2)
        return 0;
    double m = sx / (double)np, var = sxx / (double)np - m * m;
    return var > 0 ? (sxy / (double)np - m * m) / var : 0;
}

/* The working state of one rve_gen run. */
typedef struct {
    const rve_morpho *m;
    const rve_gen_params *p;
    rve_gen_info *info;
    size_t n;
    int sizep, sphp;     /* the size and sphericity properties prescribed, or -1 */
    double t0, dvol, f;  /* start time, domain volume, current objective */
    synth_ctx c;
    gsl_rng *rng;
    rve_tess *t;         /* the current diagram */
    rve_pvol_params pp;  /* volume solves at the requested tolerance */
    objective_ctx oc;
    double *seeds, *target, *psi, *vals, *col, *try_s, *try_psi, *sph_t, *sorted_t, *vals2, *step, *qsize, *wsize,
        *wsph, *oldv;
    double *pvals, *pcol; /* progress reports: values and scratch (only with p->progress) */
    int *changed;
    size_t *pos, *pos2;
    keyed *order, *order2;
} gen_ws;

static void ws_free(gen_ws *w)
{
    rve_tess_free(w->t);
    if (w->rng)
        gsl_rng_free(w->rng);
    free(w->target), free(w->psi), free(w->vals), free(w->col), free(w->try_s), free(w->try_psi);
    free(w->sph_t), free(w->sorted_t), free(w->vals2), free(w->step), free(w->changed), free(w->pos);
    free(w->pos2), free(w->order2), free(w->qsize), free(w->wsize), free(w->wsph), free(w->oldv), free(w->order);
    free(w->pvals), free(w->pcol);
}

static rve_status ws_alloc(gen_ws *w, rve_err *err)
{
    size_t n = w->n;
    w->rng = gsl_rng_alloc(gsl_rng_mt19937);
    w->target = malloc(n * sizeof *w->target), w->psi = calloc(n, sizeof *w->psi);
    w->vals = malloc(RVE_PROP_COUNT * n * sizeof *w->vals), w->col = malloc(n * sizeof *w->col);
    w->try_s = malloc(3 * n * sizeof *w->try_s), w->try_psi = malloc(n * sizeof *w->try_psi);
    w->sph_t = malloc(n * sizeof *w->sph_t), w->sorted_t = malloc(n * sizeof *w->sorted_t);
    w->vals2 = malloc(RVE_PROP_COUNT * n * sizeof *w->vals2), w->step = malloc(n * sizeof *w->step);
    w->changed = malloc(n * sizeof *w->changed);
    w->pos = malloc(n * sizeof *w->pos), w->pos2 = malloc(n * sizeof *w->pos2);
    w->order2 = malloc(n * sizeof *w->order2);
    w->qsize = malloc(n * sizeof *w->qsize), w->wsize = malloc(n * sizeof *w->wsize);
    w->wsph = malloc(n * sizeof *w->wsph);
    w->oldv = malloc(2 * n * sizeof *w->oldv);
    w->order = malloc(n * sizeof *w->order);
    if (w->p->progress) {
        w->pvals = malloc(RVE_PROP_COUNT * n * sizeof *w->pvals), w->pcol = malloc(n * sizeof *w->pcol);
        if (!w->pvals || !w->pcol)
            return rve_err_set(err, RVE_ENOMEM, "", "out of memory (%zu cells)", n);
    }
    if (!w->rng || !w->target || !w->psi || !w->vals || !w->col || !w->try_s || !w->try_psi || !w->sph_t ||
        !w->sorted_t || !w->order || !w->vals2 || !w->step || !w->changed || !w->pos || !w->oldv || !w->pos2 ||
        !w->order2 || !w->qsize || !w->wsize || !w->wsph)
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (%zu cells)", n);
    return RVE_OK;
}

/* Size stage: target volumes at the size quantiles, given to the seeds by
 * the rank of their Voronoi volumes or of a correlated field, then reached
 * by the volume solve. */
static rve_status stage_sizes(gen_ws *w, rve_err *err)
{
    size_t n = w->n;
    const rve_morpho *m = w->m;
    if (w->sizep < 0)
        return synth_tess(&w->c, w->seeds, w->psi, &w->t, err);
    double s = 0;
    for (size_t k = 0; k < n; k++) {
        double x = rve_distrib_quantile(&m->dist[w->sizep], (k + 0.5) / (double)n);
        if (!(x > 0))
            return rve_err_set(err, RVE_EUSAGE, "", "the %s distribution has non-positive values; truncate it (from=...)",
                               rve_prop_name(w->sizep));
        w->target[k] = w->sizep == RVE_PROP_DIAMEQ ? x * x * x : x;
    }
    for (size_t k = 0; k < n; k++)
        s += w->target[k];
    for (size_t k = 0; k < n; k++) {
        w->target[k] *= w->dvol / s;
        w->sorted_t[k] = w->target[k]; /* ascending: quantiles increase */
    }
    double lambda = w->p->size_corr;
    rve_status st = RVE_OK;
    if (lambda > 0) {
        size_field fld;
        field_init(&fld, w->p->domain, lambda * cbrt(w->dvol / (double)n), w->rng);
        field_seeds(&fld, &m->dist[w->sizep], w->sizep == RVE_PROP_DIAMEQ, n, w->p->domain, w->rng, w->seeds, w->col);
        for (size_t i = 0; i < n; i++) {
            w->order[i].v = w->col[i];
            w->order[i].i = i;
        }
        qsort(w->order, n, sizeof *w->order, cmp_keyed);
        for (size_t r = 0; r < n; r++)
            w->target[w->order[r].i] = w->sorted_t[r];
    } else {
        /* Give the large volumes to the seeds with large Voronoi cells
         * (seeds in sparse regions): the weights then stay moderate. */
        st = synth_tess(&w->c, w->seeds, w->psi, &w->t, err);
        if (st != RVE_OK)
            return st;
        assign_by_rank(w->t, n, w->sorted_t, w->target, w->order);
        rve_tess_free(w->t);
        w->t = NULL;
    }
    st = synth_pvol(&w->c, w->seeds, w->target, w->psi, &w->pp, NULL, &w->t, err);
    w->info->max_vol_err = w->c.max_rel_err;
    return st;
}

/* The seeds moved to their cells' centroids (kept inside a closed box). */
static void centroid_seeds(const gen_ws *w, double *out)
{
    for (size_t i = 0; i < w->n; i++) {
        const rve_tess_poly *q = &w->t->cells[i];
        for (int k = 0; k < 3; k++) {
            double x = q->vol > 0 ? q->centroid[k] : w->seeds[3 * i + k];
            double L = w->p->domain[k];
            if (w->p->periodic) {
                x = fmod(x, L);
                if (x < 0)
                    x += L;
            } else {
                if (x < 1e-9 * L)
                    x = 1e-9 * L;
                if (x > L * (1 - 1e-9))
                    x = L * (1 - 1e-9);
            }
            out[3 * i + k] = x;
        }
    }
}

/* Shape phase A: plain Lloyd steps (volumes re-solved) while the objective
 * decreases: cheap, global, and makes the cells rounder overall.  *it
 * counts them. */
static rve_status lloyd_phase(gen_ws *w, const rve_pvol_params *ip, int *it, rve_err *err)
{
    size_t n = w->n;
    const rve_gen_params *p = w->p;
    for (*it = 0; *it < GEN_LLOYD_MAX && *it < p->max_iter; (*it)++) {
        if (p->time_limit > 0 && rve_now() - w->t0 > p->time_limit)
            break;
        centroid_seeds(w, w->try_s);
        memcpy(w->try_psi, w->psi, n * sizeof *w->psi);
        rve_tess *tn = NULL;
        rve_err e2;
        rve_err_clear(&e2);
        rve_status s2 = w->sizep >= 0 ? synth_pvol(&w->c, w->try_s, w->target, w->try_psi, ip, NULL, &tn, &e2)
                                      : synth_tess(&w->c, w->try_s, w->try_psi, &tn, &e2);
        if (s2 == RVE_ENOMEM) {
            rve_tess_free(tn);
            return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
        }
        int better = 0;
        double fn = w->f;
        if ((s2 == RVE_OK || s2 == RVE_ECAP) && tn && tn->nempty == 0) {
            values_from_tess(tn, n, w->m, w->vals);
            fn = objective(&w->oc, w->vals);
            better = fn < w->f;
        }
        if (!better) {
            rve_tess_free(tn);
            values_from_tess(w->t, n, w->m, w->vals);
            break;
        }
        memcpy(w->seeds, w->try_s, 3 * n * sizeof *w->seeds);
        memcpy(w->psi, w->try_psi, n * sizeof *w->psi);
        rve_tess_free(w->t);
        w->t = tn;
        w->f = fn;
        if (p->progress)
            p->progress(p->progress_ctx, *it + 1, p->max_iter, fn);
    }
    return RVE_OK;
}

/* The search's progress, reported with the objective rve_gen_info gives
 * (the smoothed CDF distance of the diagram just reached), not the search's
 * internal rank energy, so a bar and the final summary speak of one number. */
typedef struct {
    gen_ws *w;
    const inc_state *is;
} search_report;

static void search_progress(void *ctx, int it, int max_iter, double energy)
{
    const search_report *r = ctx;
    gen_ws *w = r->w;
    double f = w->f;
    (void)energy;
    if (r->is->t && r->is->t->nempty == 0) {
        objective_ctx oc = w->oc;
        oc.col = w->pcol;
        values_from_tess(r->is->t, w->n, w->m, w->pvals);
        f = objective(&oc, w->pvals);
    }
    w->p->progress(w->p->progress_ctx, it, max_iter, f);
}

/* Shape phase B: the incremental local search (gen_search.c) on a diagram
 * that keeps its container, for the sweeps left after phase A. */
static rve_status search_phase(gen_ws *w, const rve_pvol_params *ip, int *it, rve_err *err)
{
    size_t n = w->n;
    const rve_gen_params *p = w->p;
    int sweeps = p->max_iter - *it;
    if (sweeps <= 0 || (p->time_limit > 0 && rve_now() - w->t0 > p->time_limit))
        return RVE_OK;
    rve_tess_free(w->t);
    w->t = NULL;
    w->c.keep = 1;
    rve_status st = synth_tess(&w->c, w->seeds, w->psi, &w->t, err);
    if (st == RVE_OK)
        st = rve_tess_undo_enable(w->t, 1, err);
    if (st != RVE_OK)
        return st;
    rankset rs = {n, w->order, w->pos, w->col, w->sph_t, w->wsph};
    rankset rz = {0, NULL, NULL, NULL, NULL, NULL};
    if (w->sizep >= 0) {
        for (size_t r = 0; r < n; r++)
            w->qsize[r] = cbrt(w->sorted_t[r]);
        (void)gen_rank_weights(w->qsize, n, w->wsize);
        rz = (rankset){n, w->order2, w->pos2, w->vals2, w->qsize, w->wsize};
    }
    double eref = gen_rank_weights(w->sph_t, n, w->wsph);
    inc_state is = {n, w->t, rs, rz, 1.0};
    gen_inc_init(&is);
    for (size_t i = 0; i < n; i++)
        w->step[i] = 0.1;
    inc_stats stats = {0, 0, 0, 0};
    rve_gen_params ps = *p;
    search_report rep = {w, &is};
    if (p->progress)
        ps.progress = search_progress, ps.progress_ctx = &rep;
    st = gen_inc_search(&w->c, &is, w->seeds, w->psi, w->sizep >= 0 ? w->target : NULL, w->sizep >= 0 ? ip : NULL,
                        *it, sweeps, GEN_STOP * eref, p->time_limit > 0 ? w->t0 + p->time_limit : 0, w->rng, &ps,
                        w->step, w->changed, w->oldv, &stats, err);
    if (w->sizep >= 0 && st == RVE_OK)
        gen_inc_targets(&is, w->target);
    w->t = is.t;
    w->c.keep = 0;
    if (st != RVE_OK)
        return st;
    w->info->moves = stats.trials;
    w->info->moves_accepted = stats.accepted;
    *it += stats.sweeps;
    return RVE_OK;
}

/* Shape stage (a sphericity distribution prescribed): phases A and B, then
 * the final volume solve at the requested tolerance (the solves inside the
 * loops use a looser one). */
static rve_status stage_shape(gen_ws *w, rve_err *err)
{
    size_t n = w->n;
    const rve_morpho *m = w->m;
    int sphp = w->sphp;
    if (sphp < 0 || m->dist[sphp].kind == RVE_DISTRIB_DIRAC)
        return RVE_OK;
    /* target sphericity by rank of sphericity (ascending) */
    for (size_t r = 0; r < n; r++) {
        double u = (r + 0.5) / (double)n;
        w->sph_t[r] = sphp == RVE_PROP_SPHERICITY ? rve_distrib_quantile(&m->dist[sphp], u)
                                                  : 1 - rve_distrib_quantile(&m->dist[sphp], 1 - u);
    }
    rve_pvol_params ip = w->pp;
    ip.tol = w->p->tol > 1e-2 ? w->p->tol : 1e-2;
    int it = 0;
    rve_status st = lloyd_phase(w, &ip, &it, err);
    w->info->iterations = it;
    if (st == RVE_OK)
        st = search_phase(w, &ip, &it, err);
    if (st != RVE_OK)
        return st;
    w->info->iterations = it;
    rve_tess_free(w->t);
    w->t = NULL;
    if (w->sizep >= 0) {
        st = synth_pvol(&w->c, w->seeds, w->target, w->psi, &w->pp, NULL, &w->t, err);
        w->info->max_vol_err = w->c.max_rel_err;
    } else
        st = synth_tess(&w->c, w->seeds, w->psi, &w->t, err);
    if (st != RVE_OK)
        return st;
    values_from_tess(w->t, n, m, w->vals);
    w->f = objective(&w->oc, w->vals);
    return RVE_OK;
}

rve_status rve_gen(const rve_morpho *m, const rve_gen_params *p, double *seeds, double *weights, double *values,
                   rve_gen_info *info, rve_err *err)
{
    rve_gen_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    if (p->n < 1)
        return rve_err_set(err, RVE_EUSAGE, "", "the number of cells must be positive");
    for (int a = 0; a < 3; a++)
        if (!(p->domain[a] > 0 && isfinite(p->domain[a])))
            return rve_err_set(err, RVE_EUSAGE, "", "the domain size must be positive");
    gen_ws w;
    memset(&w, 0, sizeof w);
    w.m = m, w.p = p, w.info = info, w.n = p->n, w.seeds = seeds, w.t0 = rve_now();
    w.dvol = p->domain[0] * p->domain[1] * p->domain[2];
    w.sizep = m->has[RVE_PROP_DIAMEQ] ? RVE_PROP_DIAMEQ : m->has[RVE_PROP_SIZE] ? RVE_PROP_SIZE : -1;
    w.sphp = m->has[RVE_PROP_SPHERICITY] ? RVE_PROP_SPHERICITY : m->has[RVE_PROP_1MSPHERICITY] ? RVE_PROP_1MSPHERICITY : -1;
    rve_status st = synth_ctx_init(&w.c, w.n, p->domain, p->periodic, err);
    if (st != RVE_OK)
        return st;
    size_t n = w.n;
    st = ws_alloc(&w, err);
    if (st == RVE_OK) {
        gsl_rng_set(w.rng, p->seed);
        for (size_t i = 0; i < 3 * n; i++)
            seeds[i] = gsl_rng_uniform(w.rng) * p->domain[i % 3];
        rve_pvol_params_default(&w.pp);
        w.pp.tol = p->tol;
        st = stage_sizes(&w, err);
    }
    if (st == RVE_OK) {
        values_from_tess(w.t, n, m, w.vals);
        w.oc = (objective_ctx){m, n, {0}, w.col};
        for (int q = 0; q < RVE_PROP_COUNT; q++)
            if (m->has[q])
                w.oc.h[q] = bandwidth(&m->dist[q], n);
        w.f = objective(&w.oc, w.vals);
        st = stage_shape(&w, err);
    }
    if (st == RVE_OK) {
        info->nb_size_corr = nb_size_corr(w.t, n);
        info->objective = w.f;
        if (p->progress && info->iterations > 0) /* the final figure, after the last volume solve */
            p->progress(p->progress_ctx, info->iterations, p->max_iter, w.f);
        report_ks(m, n, w.vals, w.col, info);
        double pmin = HUGE_VAL;
        for (size_t i = 0; i < n; i++)
            if (w.psi[i] < pmin)
                pmin = w.psi[i];
        for (size_t i = 0; i < n; i++)
            weights[i] = sqrt(w.psi[i] - pmin);
        if (values)
            memcpy(values, w.vals, RVE_PROP_COUNT * n * sizeof *w.vals);
    }
    info->tess_calls = w.c.tess_calls;
    info->seconds = rve_now() - w.t0;
    ws_free(&w);
    synth_ctx_free(&w.c);
    return st;
}
