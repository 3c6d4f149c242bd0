/* mpi_pvol.c - prescribed-volume Laguerre diagrams solved over MPI ranks
 * (docs/mpi.md): the damped Newton method of the serial solver
 * (src/optim/pvol.c: Kitagawa, Merigot, Thibert 2019) with the diagram and
 * the linear algebra distributed.
 *
 * Rank r owns the cells of the seeds in its z slab of the box.  Each
 * diagram is built with mpi_build_slab (the owned cells plus ghost seeds
 * deepened until every owned cell is exact), so a rank only ever holds the
 * polyhedra of its slab.  The residual T - V, the Laplacian rows (face
 * area / (2 |s_i - s_j|)) and the conjugate-gradient vectors are kept for
 * the owned cells only; norms, dot products and the acceptance tests are
 * reduced over the ranks, so every rank takes the same Newton steps.  The
 * seeds, targets and weights (psi = w^2) are replicated: 8 doubles per cell
 * on every rank, and the Laplacian product gathers the search direction into
 * a replicated n-vector (MPI_Allreduce of the owned entries, exact: every
 * entry has one contributor).  Rounding differs from the serial solver (sums
 * in another order), so the iterates agree to rounding, not bit for bit. */
#include "config.h"
#include <rve/mpi.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "util/pcg.h"

typedef struct {
    MPI_Comm comm;
    long n;
    const double *xyz;   /* 3 n seeds */
    const double *tg;    /* n targets (scaled to the domain volume) */
    double lo[3], hi[3], z0, z1;
    int last;            /* the last slab (z1 included) */
    double *s4, *full;   /* 4 n seeds with weights; n scratch */
    mpi_owned o;         /* owned cells of the current diagram */
    double *diag, *val;  /* owned Laplacian: diagonal, off-diagonal values (o.n x o.kmax) */
    int calls;
    long cg;
    double ghost_max;
} dpv;

static double allsum(const dpv *c, double x)
{
    double y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c->comm);
    return y;
}

/* The diagram of the weights psi (owned cells into c->o). */
static rve_status diagram(dpv *c, const double *psi, rve_err *err)
{
    double pmin = HUGE_VAL;
    for (long i = 0; i < c->n; i++)
        pmin = psi[i] < pmin ? psi[i] : pmin;
    for (long i = 0; i < c->n; i++) {
        memcpy(c->s4 + 4 * i, c->xyz + 3 * i, 3 * sizeof *c->s4);
        double p = psi[i] - pmin;
        c->s4[4 * i + 3] = p > 0 ? sqrt(p) : 0;
    }
    mpi_owned_free(&c->o);
    rve_mpi_seeds src = {c->n, c->s4, NULL, NULL, NULL, NULL, NULL};
    rve_mpi_tess_info ti;
    memset(&ti, 0, sizeof ti);
    c->calls++;
    rve_status st = mpi_build_slab(&src, c->lo, c->hi, c->z0, c->z1, c->last, &c->o, &ti, err);
    c->ghost_max = ti.ghost > c->ghost_max ? ti.ghost : c->ghost_max;
    st = rve_mpi_agree(c->comm, st, err);
    long total = 0;
    MPI_Allreduce(&c->o.n, &total, 1, MPI_LONG, MPI_SUM, c->comm);
    if (st == RVE_OK && total != c->n)
        st = rve_err_set(err, RVE_EINTERNAL, "", "distributed volumes: %ld cells owned for %ld seeds", total, c->n);
    return st;
}

/* Residual g = T - V of the owned cells; global norm, max relative error
 * and smallest volume. */
static void residual(const dpv *c, double *g, double *norm, double *maxrel, double *vmin)
{
    double s = 0, loc[2] = {0, -HUGE_VAL}, glob[2];
    for (long r = 0; r < c->o.n; r++) {
        long i = c->o.idx[r];
        double v = c->o.vol[r];
        g[r] = c->tg[i] - v;
        s += g[r] * g[r];
        double e = fabs(g[r]) / c->tg[i];
        loc[0] = e > loc[0] ? e : loc[0];
        loc[1] = -v > loc[1] ? -v : loc[1];
    }
    MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_MAX, c->comm);
    *norm = sqrt(allsum(c, s));
    *maxrel = glob[0];
    *vmin = -glob[1];
}

/* The owned rows of the Laplacian from the owned cells' faces. */
static rve_status laplacian(dpv *c, rve_err *err)
{
    const mpi_owned *o = &c->o;
    double *v = realloc(c->val, (size_t)(o->n ? o->n : 1) * (size_t)(o->kmax ? o->kmax : 1) * sizeof *v);
    if (!v)
        return rve_mpi_agree(c->comm, rve_err_set(err, RVE_ENOMEM, "", "out of memory"), err);
    c->val = v;
    int bad = 0;
    for (long r = 0; r < o->n; r++) {
        long i = o->idx[r];
        c->diag[r] = 0;
        for (int q = 0; q < o->kmax; q++) {
            size_t e = (size_t)r * o->kmax + q;
            long j = o->nb[e] - 1;
            c->val[e] = 0;
            if (q >= o->deg[r] || j < 0 || j == i || !(o->area[e] > 0))
                continue;
            double d2 = 0;
            for (int a = 0; a < 3; a++)
                d2 += (c->xyz[3 * i + a] - c->xyz[3 * j + a]) * (c->xyz[3 * i + a] - c->xyz[3 * j + a]);
            if (!(d2 > 0)) {
                bad = 1;
                continue;
            }
            c->val[e] = o->area[e] / (2 * sqrt(d2));
            c->diag[r] += c->val[e];
        }
    }
    return rve_mpi_agree(c->comm, bad ? rve_err_set(err, RVE_EDATA, "", "two seeds coincide") : RVE_OK, err);
}

/* The owned entries x of a distributed vector, gathered into c->full. */
static void gather(dpv *c, const double *x)
{
    memset(c->full, 0, (size_t)c->n * sizeof *c->full);
    for (long r = 0; r < c->o.n; r++)
        c->full[c->o.idx[r]] = x[r];
    MPI_Allreduce(MPI_IN_PLACE, c->full, (int)c->n, MPI_DOUBLE, MPI_SUM, c->comm);
}

static void lap_mul(dpv *c, const double *x, double *y)
{
    gather(c, x);
    for (long r = 0; r < c->o.n; r++) {
        double s = c->diag[r] * x[r];
        for (int q = 0; q < c->o.deg[r]; q++) {
            size_t e = (size_t)r * c->o.kmax + q;
            if (c->val[e] != 0)
                s -= c->val[e] * c->full[c->o.nb[e] - 1];
        }
        y[r] = s;
    }
}

static void lap_mul_cb(void *ctx, const double *x, double *y)
{
    lap_mul(ctx, x, y);
}

static double allsum_cb(void *ctx, double x)
{
    return allsum(ctx, x);
}

/* Jacobi-preconditioned CG for L x = b over the owned rows, with the serial
 * solver's iteration (util/pcg.h).  Returns iterations. */
static int pcg(dpv *c, const double *b, double *x, double tol, int maxit, double *work)
{
    pcg_ops o = {lap_mul_cb, allsum_cb, c};
    return pcg_jacobi((size_t)c->o.n, c->diag, b, x, tol, maxit, work, &o);
}

/* A first diagram with no empty cell: the weights shrink towards the
 * Voronoi diagram (as the serial solver does for a warm start). */
static rve_status first_diagram(dpv *c, double *psi, rve_err *err)
{
    for (int shrink = 0; shrink <= 13; shrink++) {
        rve_status st = diagram(c, psi, err);
        if (st != RVE_OK)
            return st;
        int empty = 0, any = 0;
        for (long r = 0; r < c->o.n && !empty; r++)
            empty = !(c->o.vol[r] > 0);
        MPI_Allreduce(&empty, &any, 1, MPI_INT, MPI_MAX, c->comm);
        if (!any)
            return RVE_OK;
        for (long i = 0; i < c->n; i++)
            psi[i] = shrink >= 12 ? 0 : 0.5 * psi[i];
    }
    return rve_err_set(err, RVE_EDATA, "", "the Voronoi diagram of the seeds has empty cells (coincident seeds?)");
}

/* The owned step d, applied to the replicated psi: pn = psi + alpha d. */
static void trial(dpv *c, const double *psi, double alpha, double *pn)
{
    for (long i = 0; i < c->n; i++)
        pn[i] = psi[i] + alpha * c->full[i];
}

/* Newton iterations from psi (replicated) until max relative error <= tol. */
static rve_status newton(dpv *c, double *psi, const rve_pvol_params *p, int *iters, double *maxrel_out, rve_err *err)
{
    long m = c->o.n;
    size_t mm = (size_t)(m ? m : 1);
    double *g = malloc(mm * sizeof *g), *gn = malloc(mm * sizeof *gn), *d = malloc(mm * sizeof *d);
    double *work = malloc(4 * mm * sizeof *work), *pn = malloc((size_t)c->n * sizeof *pn);
    c->diag = malloc(mm * sizeof *c->diag);
    rve_status st = g && gn && d && work && pn && c->diag ? RVE_OK
                                                                    : rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    st = rve_mpi_agree(c->comm, st, err);
    double norm = 0, maxrel = HUGE_VAL, vmin, tmin = HUGE_VAL;
    for (long i = 0; i < c->n; i++)
        tmin = c->tg[i] < tmin ? c->tg[i] : tmin;
    if (st == RVE_OK)
        residual(c, g, &norm, &maxrel, &vmin);
    double eps0 = st == RVE_OK ? 0.5 * (vmin < tmin ? vmin : tmin) : 0;
    int it = 0;
    while (st == RVE_OK && maxrel > p->tol) {
        if (it >= p->max_iter) {
            st = rve_err_set(err, RVE_ECAP, "", "prescribed volumes: %d Newton iterations reached (max relative "
                             "error %.3g)", it, maxrel);
            break;
        }
        it++;
        if ((st = laplacian(c, err)) != RVE_OK)
            break;
        double s = 0;
        for (long r = 0; r < m; r++)
            s += g[r];
        double mean = allsum(c, s) / (double)c->n;
        for (long r = 0; r < m; r++)
            gn[r] = g[r] - mean;
        double cgtol = p->cg_tol;
        if (maxrel < 1 && 0.1 * maxrel < cgtol)
            cgtol = 0.1 * maxrel;
        c->cg += pcg(c, gn, d, cgtol, p->max_cg, work);
        gather(c, d); /* the step, replicated in c->full */
        double alpha = 1;
        int accepted = 0;
        for (int bt = 0; bt < 40 && st == RVE_OK; bt++) {
            trial(c, psi, alpha, pn); /* diagram() leaves c->full, the step, alone */
            if ((st = diagram(c, pn, err)) != RVE_OK)
                break;
            double nn, mr, vm;
            residual(c, gn, &nn, &mr, &vm);
            if (vm >= eps0 && nn <= (1 - 0.5 * alpha) * norm) {
                memcpy(psi, pn, (size_t)c->n * sizeof *psi);
                memcpy(g, gn, mm * sizeof *g);
                norm = nn, maxrel = mr, accepted = 1;
                break;
            }
            alpha *= 0.5;
        }
        if (st == RVE_OK && !accepted) {
            st = rve_err_set(err, RVE_ECAP, "", "prescribed volumes: the Newton step cannot be damped enough "
                             "(max relative error %.3g)", maxrel);
            break;
        }
    }
    *iters = it;
    *maxrel_out = maxrel;
    free(g), free(gn), free(d), free(work), free(pn);
    return st;
}

rve_status rve_mpi_pvol_solve(MPI_Comm comm, size_t n, const double *seeds, const double domain[3],
                              const double *target, double *weights, const rve_pvol_params *pp, rve_pvol_info *info,
                              rve_err *err)
{
    double t0 = MPI_Wtime();
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rve_pvol_params p;
    if (pp)
        p = *pp;
    else
        rve_pvol_params_default(&p);
    rve_status st = RVE_OK;
    double tsum = 0, dvol = 1;
    if (n < 1 || n > INT32_MAX)
        st = rve_err_set(err, RVE_EDATA, "", n < 1 ? "no seeds" : "more than 2^31 - 1 seeds");
    for (int a = 0; st == RVE_OK && a < 3; a++)
        if (!(domain[a] > 0 && isfinite(domain[a])))
            st = rve_err_set(err, RVE_EDATA, "", "the domain size must be positive");
        else
            dvol *= domain[a];
    for (size_t i = 0; st == RVE_OK && i < n; i++) {
        if (!(target[i] > 0 && isfinite(target[i])))
            st = rve_err_set(err, RVE_EDATA, "", "volume %zu is not a positive number", i + 1);
        else if (!(weights[i] >= 0 && isfinite(weights[i])))
            st = rve_err_set(err, RVE_EDATA, "", "weight %zu is not a non-negative number", i + 1);
        tsum += target[i];
    }
    dpv c;
    memset(&c, 0, sizeof c);
    c.comm = comm, c.n = (long)n, c.xyz = seeds;
    c.hi[0] = domain[0], c.hi[1] = domain[1], c.hi[2] = domain[2];
    c.z0 = domain[2] * rank / size, c.z1 = rank == size - 1 ? domain[2] : domain[2] * (rank + 1) / size;
    c.last = rank == size - 1;
    double *tg = st == RVE_OK ? malloc(n * sizeof *tg) : NULL, *psi = st == RVE_OK ? malloc(n * sizeof *psi) : NULL;
    c.s4 = st == RVE_OK ? malloc(4 * n * sizeof *c.s4) : NULL;
    c.full = st == RVE_OK ? malloc(n * sizeof *c.full) : NULL;
    if (st == RVE_OK && (!tg || !psi || !c.s4 || !c.full))
        st = rve_err_set(err, RVE_ENOMEM, "", "out of memory (%zu cells)", n);
    st = rve_mpi_agree(comm, st, err);
    int iters = 0;
    double maxrel = HUGE_VAL;
    if (st == RVE_OK) {
        for (size_t i = 0; i < n; i++) {
            tg[i] = target[i] * (dvol / tsum);
            psi[i] = weights[i] * weights[i];
        }
        c.tg = tg;
        st = first_diagram(&c, psi, err);
        st = rve_mpi_agree(comm, st, err);
        if (st == RVE_OK)
            st = rve_mpi_agree(comm, newton(&c, psi, &p, &iters, &maxrel, err), err);
        if (st == RVE_OK || st == RVE_ECAP) {
            double pmin = HUGE_VAL;
            for (size_t i = 0; i < n; i++)
                pmin = psi[i] < pmin ? psi[i] : pmin;
            for (size_t i = 0; i < n; i++)
                weights[i] = sqrt(psi[i] - pmin);
        }
    }
    if (info) {
        info->iterations = iters;
        info->tess_calls = c.calls;
        info->cg_iterations = c.cg;
        info->max_rel_err = maxrel;
        info->seconds = MPI_Wtime() - t0;
    }
    mpi_owned_free(&c.o);
    free(c.diag), free(c.val), free(c.s4), free(c.full), free(tg), free(psi);
    return st;
}
