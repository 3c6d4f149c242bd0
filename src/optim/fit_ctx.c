/* fit_ctx.c - the fit context: labels, voxels by brick, control points;
 * initial guess and units (see fit_int.h). */
#include "config.h"
#include "optim/fit_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rve_fit_opts_init(rve_fit_opts *o)
{
    memset(o, 0, sizeof *o);
    o->res = 2;
    o->tol = 1e-2;
    o->max_sweeps = 8;
    o->max_evals = 25;
    o->max_seconds = 0;
    o->sub = RVE_FIT_SUB_SV;
    o->polish = 12;
    o->hinge = 300;
    o->rounds = 1;
    o->classify = 200;
    o->open_tiny = 1;
    o->threads = 0;
}

void rve_fit_result_free(rve_fit_result *r)
{
    if (!r)
        return;
    free(r->label);
    free(r->seed);
    free(r->weight);
    free(r->hist);
    memset(r, 0, sizeof *r);
}

void fitctx_free(fitctx *F)
{
    free(F->label);
    free(F->cell_of);
    free(F->cs);
    free(F->cp);
    free(F->cw);
    free(F->warm);
    free(F->qd);
    free(F->valid_eq);
    free(F->vs);
    free(F->vijk);
    free(F->bs);
    free(F->br);
    free(F->E);
    free(F->A);
    free(F->valid);
    free(F->xfix);
    memset(F, 0, sizeof *F);
}

rve_status fit_check_map(const rve_map *m, rve_err *err)
{
    if (!m || !m->lab || m->nx < 1 || m->ny < 1 || m->nz < 1)
        return rve_err_set(err, RVE_EDATA, NULL, "empty grain map");
    for (int a = 0; a < 3; a++)
        if (!(m->h[a] > 0) || !isfinite(m->h[a]) || !isfinite(m->origin[a]))
            return rve_err_set(err, RVE_EDATA, NULL, "voxel size and origin must be finite, sizes positive");
    if (m->nx > 65535 || m->ny > 65535 || m->nz > 65535)
        return rve_err_set(err, RVE_EDATA, NULL, "map dimensions above 65535 voxels are not supported");
    return RVE_OK;
}

/* labels, cells, geometry */
static rve_status fitctx_labels(fitctx *F, const rve_map *m, rve_err *err)
{
    memset(F, 0, sizeof *F);
    rve_status st = fit_check_map(m, err);
    if (st != RVE_OK)
        return st;
    F->m = m;
    F->L = cbrt(m->h[0] * m->h[1] * m->h[2]);
    for (int a = 0; a < 3; a++) {
        F->hs[a] = m->h[a] / F->L;
        F->lo[a] = 0;
    }
    F->hi[0] = m->nx * F->hs[0];
    F->hi[1] = m->ny * F->hs[1];
    F->hi[2] = m->nz * F->hs[2];
    F->diag = v3_norm(F->hi);
    size_t nvox = (size_t)m->nx * m->ny * m->nz;
    uint32_t maxl = 0;
    for (size_t v = 0; v < nvox; v++)
        if (m->lab[v] > maxl)
            maxl = m->lab[v];
    if (maxl == 0)
        return rve_err_set(err, RVE_EDATA, NULL, "the map has no grain (all voxels are void)");
    if (maxl > (1u << 28))
        return rve_err_set(err, RVE_EDATA, NULL, "labels above 2^28 are not supported (renumber the map)");
    F->cell_of = malloc(((size_t)maxl + 1) * sizeof(int32_t));
    size_t *cnt = calloc((size_t)maxl + 1, sizeof(size_t));
    if (!F->cell_of || !cnt) {
        free(cnt);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (size_t v = 0; v < nvox; v++)
        cnt[m->lab[v]]++;
    int n = 0;
    for (uint32_t l = 1; l <= maxl; l++)
        if (cnt[l])
            n++;
    F->n = n;
    F->label = malloc((size_t)n * sizeof(uint32_t));
    F->vs = calloc((size_t)n + 1, sizeof(size_t));
    if (!F->label || !F->vs) {
        free(cnt);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    n = 0;
    F->cell_of[0] = -1;
    for (uint32_t l = 1; l <= maxl; l++) {
        if (cnt[l]) {
            F->label[n] = l;
            F->cell_of[l] = n;
            F->vs[n + 1] = cnt[l];
            n++;
        } else
            F->cell_of[l] = -1;
    }
    free(cnt);
    for (int k = 0; k < n; k++)
        F->vs[k + 1] += F->vs[k];
    F->nvox = F->vs[n];
    return RVE_OK;
}

/* every grain's voxels, grouped brick by brick (global 4^3 bricks), and the
 * bricks' bounding boxes (polishing and accuracy) */
static rve_status fitctx_voxels(fitctx *F, rve_err *err)
{
    const rve_map *m = F->m;
    int n = F->n;
    F->vijk = malloc(F->nvox * 3 * sizeof(uint16_t));
    size_t *pos = malloc((size_t)n * sizeof(size_t));
    F->E = malloc((F->nvox ? F->nvox : 1) * sizeof(double));
    F->A = malloc((F->nvox ? F->nvox : 1) * sizeof(int32_t));
    F->valid = calloc((size_t)n, 1);
    F->bs = calloc((size_t)n + 1, sizeof(size_t));
    if (!F->vijk || !pos || !F->E || !F->A || !F->valid || !F->bs) {
        free(pos);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    memcpy(pos, F->vs, (size_t)n * sizeof(size_t));
    /* brick by brick, so that each grain's voxels come grouped by brick */
    for (int bz = 0; bz < m->nz; bz += 4)
        for (int by = 0; by < m->ny; by += 4)
            for (int bx = 0; bx < m->nx; bx += 4)
                for (int k = bz; k < bz + 4 && k < m->nz; k++)
                    for (int j = by; j < by + 4 && j < m->ny; j++)
                        for (int i = bx; i < bx + 4 && i < m->nx; i++) {
                            uint32_t l = m->lab[rve_map_index(m, i, j, k)];
                            if (!l)
                                continue;
                            size_t p = pos[F->cell_of[l]]++;
                            F->vijk[3 * p] = (uint16_t)i;
                            F->vijk[3 * p + 1] = (uint16_t)j;
                            F->vijk[3 * p + 2] = (uint16_t)k;
                        }
    free(pos);
    /* bricks: runs of a grain's voxels with the same brick index */
    size_t nb = 0;
    for (int pass = 0; pass < 2; pass++) {
        nb = 0;
        for (int c = 0; c < n; c++) {
            if (pass == 1)
                F->bs[c] = nb;
            for (size_t p = F->vs[c]; p < F->vs[c + 1];) {
                size_t q = p;
                while (q < F->vs[c + 1] && F->vijk[3 * q] / 4 == F->vijk[3 * p] / 4 &&
                       F->vijk[3 * q + 1] / 4 == F->vijk[3 * p + 1] / 4 &&
                       F->vijk[3 * q + 2] / 4 == F->vijk[3 * p + 2] / 4)
                    q++;
                if (pass == 1) {
                    struct vbrick *b = F->br + nb;
                    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
                    for (size_t r = p; r < q; r++)
                        for (int a = 0; a < 3; a++) {
                            double x = (F->vijk[3 * r + a] + 0.5) * F->hs[a];
                            lo[a] = x < lo[a] ? x : lo[a];
                            hi[a] = x > hi[a] ? x : hi[a];
                        }
                    b->v0 = p;
                    b->v1 = q;
                    for (int a = 0; a < 3; a++) {
                        b->c[a] = 0.5 * (lo[a] + hi[a]);
                        b->h[a] = 0.5 * (hi[a] - lo[a]);
                    }
                    b->maxE = 0;
                    b->lazy = 0;
                    b->nfa = -1;
                }
                nb++;
                p = q;
            }
        }
        if (pass == 0) {
            F->br = malloc((nb ? nb : 1) * sizeof(struct vbrick));
            if (!F->br)
                return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        }
    }
    F->bs[n] = nb;
    return RVE_OK;
}

/* control points of Eq. 6.5 (boundary voxels at resolution res), by cell */
static rve_status fitctx_control(fitctx *F, int res, rve_err *err)
{
    const rve_map *m = F->m;
    int n = F->n;
    rve_status st;
    rve_bpoints *bp = NULL;
    st = rve_map_boundary(m, res, &bp, err);
    if (st != RVE_OK)
        return st;
    F->cs = calloc((size_t)n + 1, sizeof(size_t));
    F->cp = malloc((bp->n ? bp->n : 1) * 3 * sizeof(double));
    F->cw = malloc((bp->n ? bp->n : 1) * sizeof(double));
    F->warm = calloc(bp->n ? bp->n : 1, sizeof(rve_gjk_simplex));
    F->qd = malloc((bp->n ? bp->n : 1) * 4 * sizeof(double));
    F->valid_eq = calloc((size_t)n, 1);
    if (!F->cs || !F->cp || !F->cw || !F->warm || !F->qd || !F->valid_eq) {
        rve_bpoints_free(bp);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    size_t q = 0;
    F->W = 0;
    for (int k = 0; k < n; k++) {
        uint32_t l = F->label[k];
        F->cs[k] = q;
        if (l <= bp->nlabels)
            for (size_t p = bp->start[l]; p < bp->start[l + 1]; p++, q++) {
                for (int a = 0; a < 3; a++)
                    F->cp[3 * q + a] = (bp->x[3 * p + a] - m->origin[a]) / F->L;
                F->cw[q] = bp->w[p];
                F->W += bp->w[p];
            }
    }
    F->cs[n] = q;
    rve_bpoints_free(bp);
    return RVE_OK;
}

/* labels, cells, geometry and control points; with_voxels: per-grain voxel lists */
rve_status fitctx_init(fitctx *F, const rve_map *m, int res, int with_voxels, rve_err *err)
{
    rve_status st = fitctx_labels(F, m, err);
    if (st == RVE_OK && with_voxels)
        st = fitctx_voxels(F, err);
    if (st == RVE_OK)
        st = fitctx_control(F, res, err);
    if (st != RVE_OK)
        return st;
    rve_gjk_opts_default(&F->gopts);
    F->tau = 1.0;
    return RVE_OK;
}

/* centroid of grain g's voxel centres into c (0 without voxels); returns
 * the grain's voxel count */
double fit_grain_centroid(const fitctx *F, int g, double c[3])
{
    double q[3];
    c[0] = c[1] = c[2] = 0;
    for (size_t p = F->vs[g]; p < F->vs[g + 1]; p++) {
        vox_centre(F, p, q);
        v3_add(c, c, q);
    }
    double nv = (double)(F->vs[g + 1] - F->vs[g]);
    v3_scale(c, c, nv > 0 ? 1.0 / nv : 0);
    return nv;
}

/* ------------------------------------------------------- initial guess */
/* Centroids and equivalent-sphere radii (t = r^2), internal units. */
void fit_initial_guess(const fitctx *F, double *x)
{
    const rve_map *m = F->m;
    int n = F->n;
    double *acc = calloc((size_t)n * 4, sizeof(double));
    if (!acc)
        return;
    size_t v = 0;
    for (int k = 0; k < m->nz; k++)
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++, v++) {
                uint32_t l = m->lab[v];
                if (!l)
                    continue;
                double *a = acc + 4 * (size_t)F->cell_of[l];
                a[0] += (i + 0.5) * F->hs[0];
                a[1] += (j + 0.5) * F->hs[1];
                a[2] += (k + 0.5) * F->hs[2];
                a[3] += 1;
            }
    for (int c = 0; c < n; c++) {
        double *a = acc + 4 * (size_t)c;
        for (int q = 0; q < 3; q++)
            x[4 * c + q] = a[q] / a[3];
        double r = cbrt(3.0 * a[3] / (4.0 * M_PI));
        x[4 * c + 3] = r * r;
    }
    free(acc);
}

/* internal (x, y, z, t) -> physical seeds and Neper weights */
void fit_to_physical(const fitctx *F, const double *x, double *seed, double *weight)
{
    double tmin = 0;
    for (int k = 0; k < F->n; k++)
        if (x[4 * k + 3] < tmin)
            tmin = x[4 * k + 3];
    for (int k = 0; k < F->n; k++) {
        for (int a = 0; a < 3; a++)
            seed[3 * k + a] = F->m->origin[a] + F->L * x[4 * k + a];
        weight[k] = F->L * sqrt(x[4 * k + 3] - tmin);
    }
}

void fit_to_internal(const fitctx *F, const double *seed, const double *weight, double *x)
{
    for (int k = 0; k < F->n; k++) {
        for (int a = 0; a < 3; a++)
            x[4 * k + a] = (seed[3 * k + a] - F->m->origin[a]) / F->L;
        double w = weight[k] / F->L;
        x[4 * k + 3] = w * w;
    }
}

/* The frozen seeds back to their values (after a stage that moves every
 * seed through another parametrisation). */
void fit_restore_frozen(const fitctx *F, double *x)
{
    if (!F->frozen)
        return;
    for (int k = 0; k < F->n; k++)
        if (F->frozen[k])
            memcpy(x + 4 * (size_t)k, F->xfix + 4 * (size_t)k, 4 * sizeof(double));
}

rve_status rve_fit_initial(const rve_map *m, rve_fit_result *r, rve_err *err)
{
    memset(r, 0, sizeof *r);
    fitctx F;
    rve_status st = fitctx_init(&F, m, 1, 0, err);
    if (st != RVE_OK) {
        fitctx_free(&F);
        return st;
    }
    int n = F.n;
    double *x = malloc((size_t)n * 4 * sizeof(double));
    r->label = malloc((size_t)n * sizeof(uint32_t));
    r->seed = malloc((size_t)n * 3 * sizeof(double));
    r->weight = malloc((size_t)n * sizeof(double));
    if (!x || !r->label || !r->seed || !r->weight) {
        free(x);
        fitctx_free(&F);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    r->n = n;
    memcpy(r->label, F.label, (size_t)n * sizeof(uint32_t));
    fit_initial_guess(&F, x);
    fit_to_physical(&F, x, r->seed, r->weight);
    free(x);
    fitctx_free(&F);
    return RVE_OK;
}

/* Seeds that left the box are brought back without changing the diagram
 * (rve_fit_keep_inside, in internal units). */
void fit_keep_inside(const fitctx *F, double *x)
{
    if (F->frozen) { /* the frozen seeds fix the diagram's gauge: no transform */
        fit_restore_frozen(F, x);
        return;
    }
    rve_fit_keep_inside(F->n, x, F->lo, F->hi);
}

void rve_fit_keep_inside(int n, double *x, const double lo[3], const double hi[3])
{
    double c[3], l = 1;
    for (int a = 0; a < 3; a++)
        c[a] = lo[a] == 0 ? 0.5 * hi[a] : 0.5 * (lo[a] + hi[a]);
    for (int k = 0; k < n; k++)
        for (int a = 0; a < 3; a++) {
            double mg = 1e-3 * (hi[a] - lo[a]), d = x[4 * k + a] - c[a];
            double half = 0.5 * (hi[a] - lo[a]) - mg;
            if (fabs(d) > half && half / fabs(d) < l)
                l = half / fabs(d);
        }
    if (l >= 1)
        return;
    for (int k = 0; k < n; k++) {
        double *s = x + 4 * (size_t)k, s2 = v3_norm2(s), sn[3];
        for (int a = 0; a < 3; a++)
            sn[a] = c[a] + l * (s[a] - c[a]);
        s[3] = v3_norm2(sn) - l * s2 + l * s[3];
        v3_copy(s, sn);
    }
}

