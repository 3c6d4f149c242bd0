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
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GEN_PI 3.14159265358979323846
/* Lloyd steps stop when the objective stops decreasing, usually after a
 * handful; the cap only bounds the loop */
#define GEN_LLOYD_MAX 50
#define GEN_WFLOOR 0.05
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
        f += rve_smooth_cdf_distance(o->col, o->n, o->h[p], &o->m->dist[p], 100);
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

/* ---------------------------------------------------------------------------
 * Incremental local search.  The state is one tessellation that keeps its
 * voro++ container, so a trial move of one seed (or weight) costs one
 * rve_tess_update (the cell and its neighbours) and, when rejected, an
 * rve_tess_undo (no recomputation), instead of a rebuild of the whole
 * diagram.
 *
 * Objective (what the search lowers), for each prescribed property:
 *   E_p = sum_r w_r (x_(r) - q_r)^2
 * with x_(r) the sorted cell values and q_r the target quantiles at
 * (r + 1/2)/n: a weighted L2 distance between the empirical and target
 * quantile functions, zero exactly when the sorted values sit on the
 * quantiles.  w_r is the squared target density at q_r (over the squared
 * spread), so that a deviation counts as the CDF error it causes, which is
 * what KS measures.  Sizes enter the same way (x = cube root of the volume):
 * cells may trade sizes during the search (a small cell that cannot get round
 * where it is can grow, a large one shrink), and the volumes are re-solved
 * every sweep to the size quantiles *in the current rank order*, which moves
 * the diagram little.  The sorted arrays are kept up to date by moving the
 * changed entries; each E_p is recomputed in O(n) per trial (cheap next to
 * the update itself).
 * ------------------------------------------------------------------------ */
typedef struct {
    size_t n;
    keyed *srt;     /* (value, cell) ascending, ties by cell */
    size_t *pos;    /* position of cell i in srt */
    double *val;    /* per-cell value */
    const double *q; /* target quantiles, ascending */
    const double *w; /* per-rank weights */
} rankset;

typedef struct {
    size_t n;
    rve_tess *t;
    rankset sph, size; /* size.n == 0: no size term */
    double wsize;      /* weight of the size term */
} inc_state;

static int keyed_less(double v, size_t i, const keyed *k)
{
    return v < k->v || (v == k->v && i < k->i);
}

static int keyed_cmp_full(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->v != y->v)
        return (x->v > y->v) - (x->v < y->v);
    return (x->i > y->i) - (x->i < y->i);
}

static double cell_sph(const rve_tess_poly *p)
{
    double v = p->vol > 0 ? p->vol : 0;
    return (v > 0 && p->area > 0) ? cbrt(GEN_PI) * pow(6 * v, 2.0 / 3.0) / p->area : 0;
}

/* Give cell i the value v, moving its entry to keep srt sorted. */
static void rank_set(rankset *s, size_t i, double v)
{
    size_t p = s->pos[i], n = s->n;
    while (p + 1 < n && !keyed_less(v, i, &s->srt[p + 1])) {
        s->srt[p] = s->srt[p + 1];
        s->pos[s->srt[p].i] = p;
        p++;
    }
    while (p > 0 && keyed_less(v, i, &s->srt[p - 1])) {
        s->srt[p] = s->srt[p - 1];
        s->pos[s->srt[p].i] = p;
        p--;
    }
    s->srt[p].v = v;
    s->srt[p].i = i;
    s->pos[i] = p;
    s->val[i] = v;
}

static void rank_init(rankset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        s->srt[i].v = s->val[i];
        s->srt[i].i = i;
    }
    qsort(s->srt, s->n, sizeof *s->srt, keyed_cmp_full);
    for (size_t r = 0; r < s->n; r++)
        s->pos[s->srt[r].i] = r;
}

static double rank_term(const rankset *s)
{
    double e = 0;
    for (size_t r = 0; r < s->n; r++) {
        double d = s->srt[r].v - s->q[r];
        e += s->w[r] * d * d;
    }
    return e;
}

/* Weighted squared deviation of cell i from the quantile at its rank. */
static double rank_dev2(const rankset *s, size_t i)
{
    size_t r = s->pos[i];
    double d = s->val[i] - s->q[r];
    return s->w[r] * d * d;
}

/* w_r = squared target density at q_r (from the quantile spacing),
 * normalised to mean 1, floored (the tails still count), over spread^2.
 * Returns the expected rank_term of n independent draws from the target
 * (order statistic x_(r) has variance u (1 - u) / (n f^2), f the density at
 * q_r, u = (r + 1/2)/n):
 * the scale against which the search judges that it is done. */
static double rank_weights(const double *q, size_t n, double *w)
{
    double wsum = 0;
    for (size_t r = 0; r < n; r++) {
        size_t a = r > 0 ? r - 1 : r, b = r + 1 < n ? r + 1 : r;
        double gap = q[b] - q[a];
        double g = gap > 0 ? (double)(b - a) / gap : 0;
        w[r] = g * g;
        wsum += w[r];
    }
    double spread = n > 1 ? q[(size_t)(0.84 * (double)n)] - q[(size_t)(0.16 * (double)n)] : 0;
    if (!(spread > 0))
        spread = 1;
    double ref = 0;
    for (size_t r = 0; r < n; r++) {
        double g2 = w[r], u = (r + 0.5) / (double)n;
        w[r] = wsum > 0 ? w[r] * (double)n / wsum : 1;
        if (w[r] < GEN_WFLOOR)
            w[r] = GEN_WFLOOR;
        w[r] /= spread * spread;
        if (g2 > 0)
            ref += w[r] * u * (1 - u) * (double)n / g2; /* g is n times the density */
    }
    return ref;
}

static void inc_refresh(inc_state *s, size_t i)
{
    const rve_tess_poly *p = &s->t->cells[i];
    rank_set(&s->sph, i, cell_sph(p));
    if (s->size.n)
        rank_set(&s->size, i, cbrt(p->vol > 0 ? p->vol : 0));
}

static void inc_init(inc_state *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const rve_tess_poly *p = &s->t->cells[i];
        s->sph.val[i] = cell_sph(p);
        if (s->size.n)
            s->size.val[i] = cbrt(p->vol > 0 ? p->vol : 0);
    }
    rank_init(&s->sph);
    if (s->size.n)
        rank_init(&s->size);
}

static double inc_energy(const inc_state *s)
{
    return rank_term(&s->sph) + (s->size.n ? s->wsize * rank_term(&s->size) : 0);
}

/* Diagonal of the volume Hessian for cell i: sum over its faces of
 * area / (2 |s_i - s_j|) (see pvol.c); 0 when it has no neighbour. */
static double inc_lii(const synth_ctx *c, const rve_tess *t, const double *seeds, size_t i)
{
    const rve_tess_poly *p = &t->cells[i];
    double d = 0;
    for (int f = 0; f < p->nf; f++) {
        int j = p->fnbr[f];
        if (j < 0 || (size_t)j == i)
            continue;
        double d2 = synth_face_dist2(c, seeds, i, p, f);
        if (d2 > 0)
            d += p->farea[f] / (2 * sqrt(d2));
    }
    return d;
}

typedef struct {
    long trials, accepted;
    int resolves, sweeps;
} inc_stats;

/* Target volumes = the size quantiles in the current rank order of the
 * volumes (q are cube roots of volumes). */
static void inc_targets(const inc_state *s, double *target)
{
    for (size_t i = 0; i < s->n; i++) {
        double x = s->size.q[s->size.pos[i]];
        target[i] = x * x * x;
    }
}

/* Run the incremental search for at most `sweeps` x n trial moves, until
 * the objective (after the volume re-solve) is at most `stop` or the
 * deadline passes.  seeds/psi in/out; s->t is the current diagram (with
 * container), replaced at each volume re-solve (target, when not NULL,
 * receives the volumes in the current rank order and is solved for). */
static rve_status inc_search(synth_ctx *c, inc_state *s, double *seeds, double *psi, double *target,
                             const rve_pvol_params *ip, int it0, int sweeps, double stop, double deadline, gsl_rng *rng,
                             const rve_gen_params *gp, double *step, int *changed, double *oldv, inc_stats *stats,
                             rve_err *err)
{
    size_t n = s->n;
    rve_status st = RVE_OK;
    double pmin = HUGE_VAL;
    for (size_t i = 0; i < n; i++)
        if (psi[i] < pmin)
            pmin = psi[i];
    double cellv = c->domain[0] * c->domain[1] * c->domain[2] / (double)n;
    double E = inc_energy(s);
    for (int sw = 0; sw < sweeps; sw++) {
        if (deadline > 0 && rve_now() > deadline)
            break;
        for (size_t k = 0; k < n; k++) {
            /* a sweep of 10^4 cells takes seconds: honour the deadline within it */
            if (deadline > 0 && (k & 255) == 255 && rve_now() > deadline)
                break;
            /* tournament: the worst of three random cells, so the cells far
             * from their rank targets get most moves without starving the
             * rest */
            size_t i = 0;
            double worst = -1;
            for (int tk = 0; tk < 3; tk++) {
                size_t j = (size_t)gsl_rng_uniform_int(rng, n);
                double sc = rank_dev2(&s->sph, j) + (s->size.n ? s->wsize * rank_dev2(&s->size, j) : 0);
                if (sc > worst) {
                    worst = sc;
                    i = j;
                }
            }
            const rve_tess_poly *p = &s->t->cells[i];
            double ns[4], os[4];
            for (int a = 0; a < 4; a++)
                os[a] = s->t->seeds[4 * i + a];
            double npsi = psi[i], vol = p->vol > 0 ? p->vol : 0;
            double vt = 0;
            if (s->size.n) {
                vt = s->size.q[s->size.pos[i]];
                vt = vt * vt * vt;
            }
            int wmove = s->size.n && fabs(vol / vt - 1) > 0.01 && gsl_rng_uniform(rng) < 0.3;
            if (wmove) {
                /* one Newton step on this cell's volume alone, towards the
                 * size quantile at its rank */
                double lii = inc_lii(c, s->t, seeds, i);
                if (!(lii > 0))
                    continue;
                npsi = psi[i] + (vt - vol) / lii * (0.5 + 0.5 * gsl_rng_uniform(rng));
                if (npsi < pmin)
                    npsi = pmin;
                for (int a = 0; a < 3; a++)
                    ns[a] = os[a];
            } else {
                double sc = step[i] * cbrt(vol > 0 ? vol : cellv);
                /* a cell that must get rounder is pulled towards its centroid */
                double pull = (p->nv > 0 && s->sph.val[i] < s->sph.q[s->sph.pos[i]]) ? gsl_rng_uniform(rng) : 0;
                int out = 0;
                for (int a = 0; a < 3; a++) {
                    double x = seeds[3 * i + a] + pull * (p->centroid[a] - seeds[3 * i + a]) + sc * gauss(rng);
                    double L = c->domain[a];
                    if (c->periodic) {
                        x = fmod(x, L);
                        if (x < 0)
                            x += L;
                    } else if (!(x > 1e-9 * L && x < L * (1 - 1e-9)))
                        out = 1;
                    ns[a] = x;
                }
                if (out) {
                    step[i] = fmax(0.005, step[i] * 0.8);
                    continue;
                }
            }
            ns[3] = npsi > pmin ? sqrt(npsi - pmin) : 0;
            int id = (int)i, nch = 0;
            stats->trials++;
            st = rve_tess_update(s->t, 1, &id, ns, changed, &nch, err);
            if (st != RVE_OK)
                return st;
            for (int u = 0; u < nch; u++) {
                size_t j = (size_t)changed[u];
                oldv[2 * u] = s->sph.val[j];
                oldv[2 * u + 1] = s->size.n ? s->size.val[j] : 0;
                inc_refresh(s, j);
            }
            double En = s->t->nempty > 0 ? HUGE_VAL : inc_energy(s);
            if (En < E) {
                E = En;
                stats->accepted++;
                for (int a = 0; a < 3; a++)
                    seeds[3 * i + a] = s->t->seeds[4 * i + a];
                psi[i] = npsi;
                if (!wmove)
                    step[i] = fmin(0.5, step[i] * 1.3);
            } else {
                /* back to the saved values (the sorted order is a function
                 * of the values alone), then to the old diagram: the update
                 * kept the old polyhedra, so nothing is recomputed */
                for (int u = 0; u < nch; u++) {
                    size_t j = (size_t)changed[u];
                    rank_set(&s->sph, j, oldv[2 * u]);
                    if (s->size.n)
                        rank_set(&s->size, j, oldv[2 * u + 1]);
                }
                st = rve_tess_undo(s->t, err);
                if (st != RVE_OK)
                    return st;
                if (!wmove)
                    step[i] = fmax(0.005, step[i] * 0.8);
            }
        }
        if (gp->progress)
            gp->progress(gp->progress_ctx, it0 + sw + 1, gp->max_iter, E);
        /* re-solve the volumes every sweep, to the size quantiles in the
         * current rank order: the size term only keeps the volumes near
         * them, one-cell weight steps cannot make them exact, and the next
         * sweep should start from a diagram whose sizes are right */
        if (target && ip) {
            inc_targets(s, target);
            rve_tess_free(s->t);
            s->t = NULL;
            st = synth_pvol(c, seeds, target, psi, ip, NULL, &s->t, err);
            if (st == RVE_ECAP && s->t)
                st = RVE_OK;
            if (st != RVE_OK)
                return st;
            st = rve_tess_undo_enable(s->t, 1, err);
            if (st != RVE_OK)
                return st;
            stats->resolves++;
            pmin = HUGE_VAL;
            for (size_t i = 0; i < n; i++)
                if (psi[i] < pmin)
                    pmin = psi[i];
            inc_init(s);
            E = inc_energy(s);
        }
        stats->sweeps = sw + 1;
        if (E <= stop)
            break;
    }
    return RVE_OK;
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
    double *try_s = malloc(3 * n * sizeof *try_s), *try_psi = malloc(n * sizeof *try_psi);
    double *sph_t = malloc(n * sizeof *sph_t), *sorted_t = malloc(n * sizeof *sorted_t);
    double *vals2 = malloc(RVE_PROP_COUNT * n * sizeof *vals2), *step = malloc(n * sizeof *step);
    int *changed = malloc(n * sizeof *changed);
    size_t *pos = malloc(n * sizeof *pos), *pos2 = malloc(n * sizeof *pos2);
    keyed *order2 = malloc(n * sizeof *order2);
    double *qsize = malloc(n * sizeof *qsize), *wsize = malloc(n * sizeof *wsize), *wsph = malloc(n * sizeof *wsph);
    double *oldv = malloc(2 * n * sizeof *oldv);
    keyed *order = malloc(n * sizeof *order);
    rve_tess *t = NULL;
    if (!rng || !target || !psi || !vals || !col || !try_s || !try_psi || !sph_t || !sorted_t || !order || !vals2 || !step || !changed || !pos || !oldv || !pos2 || !order2 || !qsize || !wsize || !wsph) {
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
        double lambda = p->size_corr;
        if (lambda > 0) {
            size_field fld;
            field_init(&fld, p->domain, lambda * cbrt(dvol / (double)n), rng);
            field_seeds(&fld, &m->dist[sizep], sizep == RVE_PROP_DIAMEQ, n, p->domain, rng, seeds, col);
            for (size_t i = 0; i < n; i++) {
                order[i].v = col[i];
                order[i].i = i;
            }
            qsort(order, n, sizeof *order, cmp_keyed);
            for (size_t r = 0; r < n; r++)
                target[order[r].i] = sorted_t[r];
        } else {
            /* Give the large volumes to the seeds with large Voronoi cells
             * (seeds in sparse regions): the weights then stay moderate. */
            st = synth_tess(&c, seeds, psi, &t, err);
            if (st != RVE_OK)
                goto done;
            assign_by_rank(t, n, sorted_t, target, order);
            rve_tess_free(t);
            t = NULL;
        }
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
        rve_pvol_params ip = pp;
        ip.tol = p->tol > 1e-2 ? p->tol : 1e-2; /* looser inside the loop, final solve below */
        /* phase A: plain Lloyd steps (volumes re-solved) while the objective
         * decreases: cheap, global, and makes the cells rounder overall */
        int it;
        for (it = 0; it < GEN_LLOYD_MAX && it < p->max_iter; it++) {
            if (p->time_limit > 0 && rve_now() - t0 > p->time_limit)
                break;
            for (size_t i = 0; i < n; i++) {
                const rve_tess_poly *q = &t->cells[i];
                for (int k = 0; k < 3; k++) {
                    double s = seeds[3 * i + k];
                    double x = q->vol > 0 ? q->centroid[k] : s;
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
            int better = 0;
            double fn = f;
            if ((s2 == RVE_OK || s2 == RVE_ECAP) && tn && tn->nempty == 0) {
                values_from_tess(tn, n, m, vals);
                fn = objective(&oc, vals);
                better = fn < f;
            }
            if (!better) {
                rve_tess_free(tn);
                values_from_tess(t, n, m, vals);
                break;
            }
            memcpy(seeds, try_s, 3 * n * sizeof *seeds);
            memcpy(psi, try_psi, n * sizeof *psi);
            rve_tess_free(t);
            t = tn;
            f = fn;
        }
        info->iterations = it;
        /* phase B: incremental local search on a diagram that keeps its
         * container */
        int sweeps = p->max_iter - it;
        if (sweeps > 0 && !(p->time_limit > 0 && rve_now() - t0 > p->time_limit)) {
            rve_tess_free(t);
            t = NULL;
            c.keep = 1;
            st = synth_tess(&c, seeds, psi, &t, err);
            if (st == RVE_OK)
                st = rve_tess_undo_enable(t, 1, err);
            if (st != RVE_OK)
                goto done;
            rankset rs = {n, order, pos, col, sph_t, wsph};
            rankset rz = {0, NULL, NULL, NULL, NULL, NULL};
            if (sizep >= 0) {
                for (size_t r = 0; r < n; r++)
                    qsize[r] = cbrt(sorted_t[r]);
                (void)rank_weights(qsize, n, wsize);
                rz = (rankset){n, order2, pos2, vals2, qsize, wsize};
            }
            double eref = rank_weights(sph_t, n, wsph);
            inc_state is = {n, t, rs, rz, 1.0};
            inc_init(&is);
            for (size_t i = 0; i < n; i++)
                step[i] = 0.1;
            inc_stats stats = {0, 0, 0, 0};
            st = inc_search(&c, &is, seeds, psi, sizep >= 0 ? target : NULL, sizep >= 0 ? &ip : NULL, it, sweeps,
                            GEN_STOP * eref,
                            p->time_limit > 0 ? t0 + p->time_limit : 0, rng, p, step, changed, oldv, &stats, err);
            if (sizep >= 0 && st == RVE_OK)
                inc_targets(&is, target);
            t = is.t;
            c.keep = 0;
            if (st != RVE_OK)
                goto done;
            info->moves = stats.trials;
            info->moves_accepted = stats.accepted;
            it += stats.sweeps;
        }
        info->iterations = it;
        /* final volume solve at the requested tolerance (the solves inside
         * the loops use a looser one) */
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
    info->nb_size_corr = nb_size_corr(t, n);
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
    free(try_s);
    free(try_psi);
    free(sph_t);
    free(sorted_t);
    free(vals2);
    free(step);
    free(changed);
    free(pos);
    free(pos2);
    free(order2);
    free(qsize);
    free(wsize);
    free(wsph);
    free(oldv);
    free(order);
    synth_ctx_free(&c);
    return st;
}
