/* gen_search.c - the incremental local search of rve_gen's shape stage
 * (see gen.c for the whole synthesis). */
#include "config.h"
#include "optim/gen_internal.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
double gen_rank_weights(const double *q, size_t n, double *w)
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

void gen_inc_init(inc_state *s)
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


/* Target volumes = the size quantiles in the current rank order of the
 * volumes (q are cube roots of volumes). */
void gen_inc_targets(const inc_state *s, double *target)
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
rve_status gen_inc_search(synth_ctx *c, inc_state *s, double *seeds, double *psi, double *target,
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
                    double x = seeds[3 * i + a] + pull * (p->centroid[a] - seeds[3 * i + a]) + sc * gen_gauss(rng);
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
            gen_inc_targets(s, target);
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
            gen_inc_init(s);
            E = inc_energy(s);
        }
        stats->sweeps = sw + 1;
        if (E <= stop)
            break;
    }
    return RVE_OK;
}

