/* fit_hinge.c - the convex surrogate: squared hinge loss, L-BFGS (see fit_int.h). */
#include "config.h"
#include "optim/fit_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_multimin.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* -------------------------------------------- convex surrogate (global) */
/* The classifier view of a power diagram (see classify_refine) gives a
 * convex training problem over all 4n parameters at once.  Every voxel v of
 * grain g within one voxel (26-neighbourhood) of grain j != g adds the
 * constraint f_g(v) - f_j(v) >= delta_gj, and the stage minimises the squared
 * hinge loss sum (max(0, 1 - (f_g - f_j) / delta_gj))^2, convex and smooth,
 * by L-BFGS (GSL's vector_bfgs2).  delta_gj is half a voxel of plane motion
 * between g and j at the start (1/2 |a_g - a_j|): the target separates the
 * two sides of every boundary by a margin, which centres each face between
 * the voxels it must separate.  Unlike the local searches, a descent on a
 * convex function is not held by local optima: on the raster of a Laguerre
 * tessellation (separable) it heads for a diagram that classifies every
 * boundary voxel.  Parameters per grain: a_g and beta_g, with
 * f_g(v) = a_g . (v - c_g) + r_g beta_g (c_g the centroid, r_g the
 * equivalent radius: features of comparable size for the descent). */
typedef struct {
    const fitctx *F;
    size_t nc;
    uint32_t *cp;        /* constraint: voxel (index into vijk) */
    int32_t *cj;         /* rival grain */
    int32_t *cgr;        /* own grain */
    double *cen;         /* 4 per grain: centroid, r */
    double *idl;         /* per constraint: 1 / delta_gj */
    double *gbuf;        /* nth * 4n: per-thread gradients */
    int nth;
    long evals;
} hinge_ctx;

/* target margin of the surrogate, in voxel lengths of plane motion at the
 * start: small, so that the loss counts violations, not near-boundary
 * voxels that are already right (at half a voxel, most boundary voxels of
 * a raster lie inside the margin and the descent trades some of them for
 * others: 99.0 % instead of 99.9 % on a Voronoi raster) */
#define HINGE_MARGIN 0.01

static double hinge_fdf_core(const gsl_vector *th, hinge_ctx *H, gsl_vector *grad)
{
    const fitctx *F = H->F;
    const double *t = th->data;
    size_t n4 = (size_t)F->n * 4;
    double L = 0;
    H->evals++;
    /* per-thread gradients (the constraints of one grain touch others),
     * summed in thread order: the same result for a given thread count */
#pragma omp parallel num_threads(H->nth) reduction(+ : L)
    {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        double *gr = grad ? H->gbuf + (size_t)tid * n4 : NULL;
        if (gr)
            memset(gr, 0, n4 * sizeof(double));
#pragma omp for schedule(static)
        for (size_t c = 0; c < H->nc; c++) {
            int g = H->cgr[c], j = H->cj[c];
            double v[3], ug[3], uj[3];
            vox_centre(F, H->cp[c], v);
            v3_sub(ug, v, H->cen + 4 * (size_t)g);
            v3_sub(uj, v, H->cen + 4 * (size_t)j);
            const double *tg = t + 4 * (size_t)g, *tj = t + 4 * (size_t)j;
            double rg = H->cen[4 * (size_t)g + 3], rj = H->cen[4 * (size_t)j + 3];
            double m = v3_dot(tg, ug) + rg * tg[3] - v3_dot(tj, uj) - rj * tj[3];
            double e = 1.0 - m * H->idl[c];
            if (e <= 0)
                continue;
            L += e * e;
            if (gr) {
                double s = 2.0 * e * H->idl[c];
                double *gg = gr + 4 * (size_t)g, *gj = gr + 4 * (size_t)j;
                for (int a = 0; a < 3; a++) {
                    gg[a] -= s * ug[a];
                    gj[a] += s * uj[a];
                }
                gg[3] -= s * rg;
                gj[3] += s * rj;
            }
        }
    }
    if (grad) {
        double *gd = grad->data;
        memcpy(gd, H->gbuf, n4 * sizeof(double));
        for (int q = 1; q < H->nth; q++)
            for (size_t i = 0; i < n4; i++)
                gd[i] += H->gbuf[(size_t)q * n4 + i];
        const unsigned char *fz = H->F->frozen;
        for (size_t g = 0; fz && g < n4 / 4; g++) /* frozen seeds: no descent direction */
            if (fz[g])
                memset(gd + 4 * g, 0, 4 * sizeof(double));
    }
    return L;
}

static double hinge_f(const gsl_vector *th, void *p) { return hinge_fdf_core(th, p, NULL); }
static void hinge_df(const gsl_vector *th, void *p, gsl_vector *g) { hinge_fdf_core(th, p, g); }
static void hinge_fdf(const gsl_vector *th, void *p, double *f, gsl_vector *g) { *f = hinge_fdf_core(th, p, g); }

/* per grain: centroid and equivalent radius (at least 1/2) */
static void hinge_centres(const fitctx *F, double *cen)
{
    for (int g = 0; g < F->n; g++) {
        double nv = fit_grain_centroid(F, g, cen + 4 * (size_t)g);
        cen[4 * (size_t)g + 3] = fmax(0.5, cbrt(3.0 * nv / (4.0 * M_PI)));
    }
}

/* constraints of the surrogate: voxels within one voxel of another grain */
static int hinge_constraints(hinge_ctx *H)
{
    const fitctx *F = H->F;
    const rve_map *m = F->m;
    size_t cap = F->nvox / 2 + 16;
    H->cp = malloc(cap * sizeof(uint32_t));
    H->cj = malloc(cap * sizeof(int32_t));
    H->cgr = malloc(cap * sizeof(int32_t));
    if (!H->cp || !H->cj || !H->cgr)
        return -1;
    for (int g = 0; g < F->n; g++)
        for (size_t p = F->vs[g]; p < F->vs[g + 1]; p++) {
            int i0 = F->vijk[3 * p], j0 = F->vijk[3 * p + 1], k0 = F->vijk[3 * p + 2], seen[26], ns = 0;
            for (int dk = -1; dk <= 1; dk++)
                for (int dj = -1; dj <= 1; dj++)
                    for (int di = -1; di <= 1; di++) {
                        int i = i0 + di, j = j0 + dj, k = k0 + dk;
                        if (i < 0 || j < 0 || k < 0 || i >= m->nx || j >= m->ny || k >= m->nz)
                            continue;
                        uint32_t l = m->lab[rve_map_index(m, i, j, k)];
                        int h = l ? F->cell_of[l] : -1, dup = 0;
                        if (h < 0 || h == g)
                            continue;
                        for (int q = 0; q < ns; q++)
                            dup |= seen[q] == h;
                        if (dup)
                            continue;
                        seen[ns++] = h;
                        if (H->nc == cap) {
                            cap *= 2;
                            uint32_t *a = realloc(H->cp, cap * sizeof(uint32_t));
                            if (a)
                                H->cp = a;
                            int32_t *b = realloc(H->cj, cap * sizeof(int32_t));
                            if (b)
                                H->cj = b;
                            int32_t *c = realloc(H->cgr, cap * sizeof(int32_t));
                            if (c)
                                H->cgr = c;
                            if (!a || !b || !c)
                                return -1;
                        }
                        H->cp[H->nc] = (uint32_t)p;
                        H->cj[H->nc] = h;
                        H->cgr[H->nc++] = g;
                    }
        }
    return 0;
}

/* Minimise the surrogate from R->x by L-BFGS, at most `iters` iterations;
 * the exact accuracy is measured every 10 iterations and offered as the
 * best; stops early after 5 measurements without a new best of its own. */
rve_status fit_hinge(fitrun *R, int iters, rve_err *err)
{
    fitctx *F = R->F;
    int n = F->n;
    hinge_ctx H;
    memset(&H, 0, sizeof H);
    H.F = F;
    H.cen = malloc((size_t)n * 4 * sizeof(double));
    H.nth = R->nth;
    H.gbuf = malloc((size_t)R->nth * n * 4 * sizeof(double));
    double *a0 = malloc((size_t)n * 3 * sizeof(double));
    gsl_vector *th = gsl_vector_alloc((size_t)n * 4);
    gsl_multimin_fdfminimizer *mz = gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, (size_t)n * 4);
    rve_status st = RVE_OK;
    if (!H.cen || !H.gbuf || !a0 || !th || !mz || hinge_constraints(&H) < 0 ||
        !(H.idl = malloc((H.nc ? H.nc : 1) * sizeof(double)))) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto out;
    }
    hinge_centres(F, H.cen);
    for (int g = 0; g < n; g++) {
        const double *cg = H.cen + 4 * (size_t)g;
        const double *s = R->x + 4 * (size_t)g;
        double *t = th->data + 4 * (size_t)g;
        for (int a = 0; a < 3; a++)
            t[a] = a0[3 * g + a] = 2 * s[a];
        t[3] = (2 * v3_dot(s, cg) - v3_norm2(s) + s[3]) / cg[3];
    }
    for (size_t c = 0; c < H.nc; c++) {
        double da[3];
        v3_sub(da, a0 + 3 * (size_t)H.cgr[c], a0 + 3 * (size_t)H.cj[c]);
        H.idl[c] = 1.0 / (HINGE_MARGIN * v3_norm(da) + 1e-12);
    }
    gsl_multimin_function_fdf fn = {hinge_f, hinge_df, hinge_fdf, (size_t)n * 4, &H};
    gsl_multimin_fdfminimizer_set(mz, &fn, th, 1e-2, 0.1);
    double runbest = -1;
    int stale = 0;
    for (int it = 1; it <= iters && !fit_past_deadline(R); it++) {
        int gs = gsl_multimin_fdfminimizer_iterate(mz);
        int last = gs != GSL_SUCCESS || it == iters || mz->f <= 0;
        if (it % 10 && !last)
            continue;
        const double *t = mz->x->data;
        for (int g = 0; g < n; g++) {
            double *s = R->x + 4 * (size_t)g;
            const double *cg = H.cen + 4 * (size_t)g;
            for (int a = 0; a < 3; a++)
                s[a] = 0.5 * t[4 * g + a];
            s[3] = t[4 * g + 3] * cg[3] - 2 * v3_dot(s, cg) + v3_norm2(s);
        }
        fit_keep_inside(F, R->x);
        double acc;
        double nan_ = NAN;
        if ((st = fit_reached(R, R->x, 5, it, &nan_, &acc, err)) != RVE_OK)
            break;
        R->r->hinge_iters = it;
        if (R->o->progress)
            R->o->progress(R->o->progress_ctx, 3, it, (double)it / iters, mz->f, acc);
        if (acc > runbest) {
            runbest = acc;
            stale = 0;
        } else if (++stale >= 5)
            break;
        if (last || acc >= 1)
            break;
    }
out:
    if (mz)
        gsl_multimin_fdfminimizer_free(mz);
    if (th)
        gsl_vector_free(th);
    free(H.cen);
    free(a0);
    free(H.idl);
    free(H.gbuf);
    free(H.cp);
    free(H.cj);
    free(H.cgr);
    return st;
}


/* Test access (tests/test_fit_surrogate.c): the surrogate's loss and
 * gradient at theta (4 per grain: a_g, beta_g, grains in label order), the
 * margins 1 / delta_gj set from the a_g of theta0.  grad: 4n or NULL. */
rve_status fit_hinge_eval(const rve_map *m, const double *theta0, const double *theta, double *loss,
                          double *grad, rve_err *err)
{
    fitctx F;
    rve_status st = fitctx_init(&F, m, 2, 1, err);
    if (st != RVE_OK) {
        fitctx_free(&F);
        return st;
    }
    int n = F.n;
    hinge_ctx H;
    memset(&H, 0, sizeof H);
    H.F = &F;
    H.nth = 1;
    H.cen = malloc((size_t)n * 4 * sizeof(double));
    H.gbuf = malloc((size_t)n * 4 * sizeof(double));
    gsl_vector *th = gsl_vector_alloc((size_t)n * 4), *g = gsl_vector_alloc((size_t)n * 4);
    if (!H.cen || !H.gbuf || !th || !g || hinge_constraints(&H) < 0 ||
        !(H.idl = malloc((H.nc ? H.nc : 1) * sizeof(double)))) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto out;
    }
    hinge_centres(&F, H.cen);
    for (size_t c = 0; c < H.nc; c++) {
        double da[3];
        v3_sub(da, theta0 + 4 * (size_t)H.cgr[c], theta0 + 4 * (size_t)H.cj[c]);
        H.idl[c] = 1.0 / (HINGE_MARGIN * v3_norm(da) + 1e-12);
    }
    memcpy(th->data, theta, (size_t)n * 4 * sizeof(double));
    *loss = hinge_fdf_core(th, &H, grad ? g : NULL);
    if (grad)
        memcpy(grad, g->data, (size_t)n * 4 * sizeof(double));
out:
    if (th)
        gsl_vector_free(th);
    if (g)
        gsl_vector_free(g);
    free(H.cen);
    free(H.idl);
    free(H.gbuf);
    free(H.cp);
    free(H.cj);
    free(H.cgr);
    fitctx_free(&F);
    return st;
}
