/* Prescribed-volume Laguerre diagrams: damped Newton on the concave dual of
 * semi-discrete optimal transport (Kitagawa, Merigot, Thibert 2019; Bourne,
 * Kok, Roper, Spanjer 2020).
 *
 * With psi_i = w_i^2 (Neper's weight is a radius), cell i is
 * { x : |x - s_i|^2 - psi_i <= |x - s_j|^2 - psi_j }.  The dual
 *   g(psi) = sum_i psi_i T_i + int_box min_i (|x - s_i|^2 - psi_i) dx
 * is concave with gradient T_i - V_i(psi) and Hessian -L where L is the
 * weighted graph Laplacian of the diagram: L_ij = -A_ij / (2 |s_i - s_j|)
 * for neighbours (A_ij the area of their common face) and L_ii = -sum_j L_ij.
 * Each Newton step solves L d = T - V by Jacobi-preconditioned conjugate
 * gradients (L is symmetric positive semi-definite with the constants as
 * kernel; the right-hand side sums to zero), then backtracks until every cell
 * keeps a volume of at least eps0 and the residual decreases by (1 - alpha/2)
 * (the damping of Kitagawa-Merigot-Thibert that makes the method globally
 * convergent). */
#include "config.h"
#include "optim/synth.h"
#include "util/pcg.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rve_pvol_params_default(rve_pvol_params *p)
{
    p->tol = 1e-3;
    p->max_iter = 100;
    p->max_cg = 2000;
    p->cg_tol = 1e-4;
}

/* ------------------------------------------------------------ diagrams */
rve_status synth_tess(synth_ctx *c, const double *seeds, const double *psi, rve_tess **out, rve_err *err)
{
    size_t n = c->n;
    double pmin = HUGE_VAL;
    for (size_t i = 0; i < n; i++)
        if (psi[i] < pmin)
            pmin = psi[i];
    for (size_t i = 0; i < n; i++) {
        c->s4[4 * i + 0] = seeds[3 * i + 0];
        c->s4[4 * i + 1] = seeds[3 * i + 1];
        c->s4[4 * i + 2] = seeds[3 * i + 2];
        double p = psi[i] - pmin;
        c->s4[4 * i + 3] = p > 0 ? sqrt(p) : 0;
    }
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    o.topology = 0;
    o.keep_container = c->keep;
    double lo[3] = {0, 0, 0};
    int per[3] = {c->periodic, c->periodic, c->periodic};
    c->tess_calls++;
    double t0 = rve_now();
    rve_status st = rve_tess_build(c->s4, (int)n, lo, c->domain, per, &o, out, err);
    c->tess_seconds += rve_now() - t0;
    return st;
}

rve_status synth_ctx_init(synth_ctx *c, size_t n, const double domain[3], int periodic, rve_err *err)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    memcpy(c->domain, domain, sizeof c->domain);
    c->periodic = periodic;
    c->s4 = malloc(4 * n * sizeof *c->s4);
    if (!c->s4)
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (%zu seeds)", n);
    return RVE_OK;
}

void synth_ctx_free(synth_ctx *c)
{
    free(c->s4);
    free(c->off);
    free(c->col);
    free(c->val);
    c->s4 = NULL;
    c->off = NULL;
    c->col = NULL;
    c->val = NULL;
}

/* Build the Laplacian L (off-diagonal entries, CSR with duplicates summed by
 * the products) and its diagonal from the per-cell faces. */
static rve_status build_laplacian(synth_ctx *c, const rve_tess *t, const double *seeds, double *diag, rve_err *err)
{
    size_t n = c->n, nnz = 0;
    for (size_t i = 0; i < n; i++)
        nnz += (size_t)t->cells[i].nf;
    if (nnz > c->cap) {
        int *nc = realloc(c->col, nnz * sizeof *nc);
        if (!nc)
            return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
        c->col = nc;
        double *nv = realloc(c->val, nnz * sizeof *nv);
        if (!nv)
            return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
        c->val = nv;
        c->cap = nnz;
    }
    if (!c->off) {
        c->off = malloc((n + 1) * sizeof *c->off);
        if (!c->off)
            return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    }
    size_t k = 0;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const rve_tess_poly *p = &t->cells[i];
        c->off[i] = k;
        diag[i] = 0;
        for (int f = 0; f < p->nf; f++) {
            int j = p->fnbr[f];
            if (j < 0 || (size_t)j == i || !(p->farea[f] > 0))
                continue;
            double d2 = synth_face_dist2(c, seeds, i, p, f);
            if (!(d2 > 0)) {
                bad = 1;
                continue;
            }
            double a = p->farea[f] / (2 * sqrt(d2));
            c->col[k] = j;
            c->val[k] = a;
            diag[i] += a;
            k++;
        }
    }
    c->off[n] = k;
    if (bad)
        return rve_err_set(err, RVE_EDATA, "", "two seeds coincide");
    return RVE_OK;
}

static void lap_mul(const synth_ctx *c, const double *diag, const double *x, double *y)
{
    long n = (long)c->n;
    for (long i = 0; i < n; i++) {
        double s = diag[i] * x[i];
        for (size_t k = c->off[i]; k < c->off[i + 1]; k++)
            s -= c->val[k] * x[c->col[k]];
        y[i] = s;
    }
}

/* The Laplacian product for pcg_jacobi. */
typedef struct {
    const synth_ctx *c;
    const double *diag;
} lap_ctx;

static void lap_mul_cb(void *ctx, const double *x, double *y)
{
    const lap_ctx *l = ctx;
    lap_mul(l->c, l->diag, x, y);
}

/* Jacobi-preconditioned CG for L x = b (b has zero sum).  Returns iterations. */
static int pcg(const synth_ctx *c, const double *diag, const double *b, double *x, double tol, int maxit,
               double *work)
{
    lap_ctx l = {c, diag};
    pcg_ops o = {lap_mul_cb, NULL, &l};
    return pcg_jacobi(c->n, diag, b, x, tol, maxit, work, &o);
}

static void residual(const rve_tess *t, const double *target, size_t n, double *g, double *norm, double *maxrel,
                     double *vmin)
{
    double s = 0, m = 0, vm = HUGE_VAL;
    for (size_t i = 0; i < n; i++) {
        double v = t->cells[i].vol;
        g[i] = target[i] - v;
        s += g[i] * g[i];
        double e = fabs(g[i]) / target[i];
        if (e > m)
            m = e;
        if (v < vm)
            vm = v;
    }
    *norm = sqrt(s);
    *maxrel = m;
    *vmin = vm;
}

rve_status synth_pvol(synth_ctx *c, const double *seeds, const double *target, double *psi,
                      const rve_pvol_params *p, rve_pvol_info *info, rve_tess **tess_out, rve_err *err)
{
    size_t n = c->n;
    rve_status st = RVE_OK;
    double *g = malloc(n * sizeof *g), *d = malloc(n * sizeof *d), *diag = malloc(n * sizeof *diag);
    double *pn = malloc(n * sizeof *pn), *work = malloc(4 * n * sizeof *work);
    double *gn = malloc(n * sizeof *gn);
    rve_tess *t = NULL, *tn = NULL;
    if (!g || !d || !diag || !pn || !work || !gn) {
        st = rve_err_set(err, RVE_ENOMEM, "", "out of memory (%zu cells)", n);
        goto done;
    }
    /* A warm start (old weights, moved seeds) may leave cells empty: shrink
     * the weights towards the Voronoi diagram (psi = 0), where no cell is
     * empty, until every cell has volume. */
    for (int shrink = 0;; shrink++) {
        st = synth_tess(c, seeds, psi, &t, err);
        if (st != RVE_OK)
            goto done;
        int empty = 0;
        for (size_t i = 0; i < n && !empty; i++)
            empty = !(t->cells[i].vol > 0);
        if (!empty)
            break;
        rve_tess_free(t);
        t = NULL;
        if (shrink >= 12) {
            for (size_t i = 0; i < n; i++)
                psi[i] = 0;
            if (shrink > 12)
                break;
        } else
            for (size_t i = 0; i < n; i++)
                psi[i] *= 0.5;
    }
    if (!t) {
        st = rve_err_set(err, RVE_EDATA, "", "the Voronoi diagram of the seeds has empty cells (coincident seeds?)");
        goto done;
    }
    double norm, maxrel, vmin, tmin = HUGE_VAL;
    for (size_t i = 0; i < n; i++)
        if (target[i] < tmin)
            tmin = target[i];
    residual(t, target, n, g, &norm, &maxrel, &vmin);
    c->max_rel_err = maxrel;
    double eps0 = 0.5 * (vmin < tmin ? vmin : tmin);
    int it = 0;
    while (maxrel > p->tol) {
        if (it >= p->max_iter) {
            st = rve_err_set(err, RVE_ECAP, "", "prescribed volumes: %d Newton iterations reached (max relative error %.3g)",
                             it, maxrel);
            break;
        }
        it++;
        st = build_laplacian(c, t, seeds, diag, err);
        if (st != RVE_OK)
            goto done;
        /* zero-mean right-hand side (sum V = sum T up to rounding) */
        double mean = 0;
        for (size_t i = 0; i < n; i++)
            mean += g[i];
        mean /= (double)n;
        for (size_t i = 0; i < n; i++)
            gn[i] = g[i] - mean;
        double cgtol = p->cg_tol;
        if (maxrel < 1 && 0.1 * maxrel < cgtol)
            cgtol = 0.1 * maxrel;
        c->cg_iterations += pcg(c, diag, gn, d, cgtol, p->max_cg, work);
        double alpha = 1;
        int accepted = 0;
        for (int bt = 0; bt < 40; bt++) {
            for (size_t i = 0; i < n; i++)
                pn[i] = psi[i] + alpha * d[i];
            rve_tess_free(tn);
            tn = NULL;
            st = synth_tess(c, seeds, pn, &tn, err);
            if (st != RVE_OK)
                goto done;
            double nn, mr, vm;
            residual(tn, target, n, gn, &nn, &mr, &vm);
            if (vm >= eps0 && nn <= (1 - 0.5 * alpha) * norm) {
                memcpy(psi, pn, n * sizeof *psi);
                memcpy(g, gn, n * sizeof *g);
                norm = nn;
                maxrel = mr;
                rve_tess_free(t);
                t = tn;
                tn = NULL;
                accepted = 1;
                break;
            }
            alpha *= 0.5;
        }
        if (!accepted) {
            st = rve_err_set(err, RVE_ECAP, "", "prescribed volumes: the Newton step cannot be damped enough "
                             "(max relative error %.3g)", maxrel);
            break;
        }
    }
    c->newton_iterations += it;
    c->max_rel_err = maxrel;
    (void)info;
done:
    if (tess_out && t) {
        *tess_out = t;
        t = NULL;
    }
    rve_tess_free(t);
    rve_tess_free(tn);
    free(g);
    free(gn);
    free(d);
    free(diag);
    free(pn);
    free(work);
    return st;
}

rve_status rve_pvol_solve(size_t n, const double *seeds, const double domain[3], int periodic,
                          const double *target, double *weights, const rve_pvol_params *pp,
                          rve_pvol_info *info, rve_err *err)
{
    double t0 = rve_now();
    rve_pvol_params p;
    if (pp)
        p = *pp;
    else
        rve_pvol_params_default(&p);
    if (n < 1)
        return rve_err_set(err, RVE_EDATA, "", "no seeds");
    for (int a = 0; a < 3; a++)
        if (!(domain[a] > 0 && isfinite(domain[a])))
            return rve_err_set(err, RVE_EDATA, "", "the domain size must be positive");
    double tsum = 0, dvol = domain[0] * domain[1] * domain[2];
    for (size_t i = 0; i < n; i++) {
        if (!(target[i] > 0 && isfinite(target[i])))
            return rve_err_set(err, RVE_EDATA, "", "volume %zu is not a positive number", i + 1);
        if (!(weights[i] >= 0 && isfinite(weights[i])))
            return rve_err_set(err, RVE_EDATA, "", "weight %zu is not a non-negative number", i + 1);
        tsum += target[i];
    }
    synth_ctx c;
    rve_status st = synth_ctx_init(&c, n, domain, periodic, err);
    double *tg = malloc(n * sizeof *tg), *psi = malloc(n * sizeof *psi);
    if (st == RVE_OK && (!tg || !psi))
        st = rve_err_set(err, RVE_ENOMEM, "", "out of memory (%zu cells)", n);
    if (st == RVE_OK) {
        for (size_t i = 0; i < n; i++) {
            tg[i] = target[i] * (dvol / tsum);
            psi[i] = weights[i] * weights[i];
        }
        st = synth_pvol(&c, seeds, tg, psi, &p, info, NULL, err);
        if (st == RVE_OK || st == RVE_ECAP) {
            double pmin = HUGE_VAL;
            for (size_t i = 0; i < n; i++)
                if (psi[i] < pmin)
                    pmin = psi[i];
            for (size_t i = 0; i < n; i++)
                weights[i] = sqrt(psi[i] - pmin);
        }
    }
    if (info) {
        info->iterations = c.newton_iterations;
        info->tess_calls = c.tess_calls;
        info->cg_iterations = c.cg_iterations;
        info->max_rel_err = c.max_rel_err;
        info->seconds = rve_now() - t0;
    }
    free(tg);
    free(psi);
    synth_ctx_free(&c);
    return st;
}
