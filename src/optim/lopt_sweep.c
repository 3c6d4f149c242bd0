/* lopt_sweep.c - local evaluation and sweeps of simplex searches (see lopt_int.h). */
#include "config.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#include "optim/lopt_int.h"
#include "util/vec3.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seed i needs no search: its last search, with the same cost and steps,
 * found nothing and no cell of its 2-ring changed since; or its cell and its
 * neighbours' already cost exactly 0 (a sum of non-negative costs). */
static int can_skip(const lopt *L, int i)
{
    int zero = L->c[i] == 0;
    for (int q = 0; zero && q < L->nbc[i]; q++)
        zero = L->c[L->nb[(size_t)i * NB_MAX + q]] == 0;
    if (zero && L->nbc[i] > 0)
        return 1;
    if (!L->fruitless[i] || L->sgen[i] != L->gen || L->touched[i] >= L->searched[i])
        return 0;
    for (int q = L->cs[i]; q < L->cs[i + 1]; q++)
        if (L->touched[L->cand[q]] >= L->searched[i])
            return 0;
    return 1;
}

typedef struct {
    double t;
    int i;
} tsort_t;

static int cmp_tdesc(const void *a, const void *b)
{
    double x = ((const tsort_t *)a)->t, y = ((const tsort_t *)b)->t;
    return (x < y) - (x > y);
}

/* ------------------------------------------------------ local evaluation */
/* Fill ws's cache with the cells of i's neighbours without the plane of i. */
static void prepare_cache(lopt *L, lopt_ws *ws, int i)
{
    ws->cache_i = i;
    ws->ncache = 0;
    const int *nb = L->nb + (size_t)i * NB_MAX;
    for (int q = 0; q < L->nbc[i] && ws->ncache < LOPT_NCACHE; q++) {
        int k = nb[q], m = 0;
        for (int c = L->cs[k]; c < L->cs[k + 1]; c++)
            if (L->cand[c] != i)
                ws->tmpc[m++] = L->cand[c];
        cpoly *dst = &ws->cache[ws->ncache];
        const cpoly *P = cpoly_laguerre_cell(&ws->work[2], &ws->work[3], L->lo, L->hi, L->x, k, ws->tmpc, m, -1, NULL);
        memcpy(dst, P, sizeof *dst);
        ws->cache_k[ws->ncache++] = k;
    }
}

/* Cell k (a neighbour of the seed i under trial at p) from the cache: one
 * clip.  NULL when k is not cached or the planes coincide. */
static const cpoly *cached_cell(const lopt *L, lopt_ws *ws, int k, int i, const double p[4], cpoly *out)
{
    if (ws->cache_i != i)
        return NULL;
    for (int c = 0; c < ws->ncache; c++) {
        if (ws->cache_k[c] != k)
            continue;
        const cpoly *B = &ws->cache[c];
        if (B->nv == 0)
            return B;
        const double *sk = L->x + 4 * (size_t)k;
        double n[3];
        v3_sub(n, p, sk);
        if (v3_norm2(n) == 0)
            return NULL;
        double d = 0.5 * (v3_norm2(p) - p[3] - v3_norm2(sk) + sk[3]);
        return cpoly_clip(B, out, n, d, i) ? out : B;
    }
    return NULL;
}

/* Change of F when seed i takes the value p (others frozen).  The affected
 * cells are appended to ws->list (count returned in *na) when na != NULL. */
static double delta_eval(lopt *L, lopt_ws *ws, int i, const double p[4])
{
    ws->evals++;
    ws->ov_i = i;
    ws->ov_p = p;
    const int *ci = L->cand + L->cs[i];
    int nci = L->cs[i + 1] - L->cs[i];
    const cpoly *P = cpoly_laguerre_cell(&ws->work[0], &ws->work[1], L->lo, L->hi, L->x, i, ci, nci, i, p);
    if (++ws->stampv == 0x7fffffff) {
        memset(ws->stamp, 0, (size_t)L->n * sizeof(int));
        ws->stampv = 1;
    }
    int sv = ws->stampv, m = 0;
    ws->stamp[i] = sv;
    const int *nb = L->nb + (size_t)i * NB_MAX;
    /* The candidates (2-ring) make the new cell exact only while it stays
     * inside the old cells of i and its neighbours: every vertex of the
     * trial cell must belong (old diagram) to i or to a neighbour of i.
     * Larger moves are refused (the next sweep can continue them). */
    if (nci > 0) {
        const double *xo = L->x + 4 * (size_t)i;
        if (L->nbc[i] > 0) {
            for (int q = 0; q < L->nbc[i]; q++)
                ws->stamp[nb[q]] = sv;
        } else {
            /* empty cell: it may reappear inside its host and the host's neighbours */
            int h = ci[0];
            double bh = 1e300;
            for (int q = 0; q < nci; q++) {
                const double *sj = L->x + 4 * (size_t)ci[q];
                double dist_j = v3_dist2(xo, sj) - sj[3];
                if (dist_j < bh) {
                    bh = dist_j;
                    h = ci[q];
                }
            }
            ws->stamp[h] = sv;
            for (int q = 0; q < L->nbc[h]; q++)
                ws->stamp[L->nb[(size_t)h * NB_MAX + q]] = sv;
        }
        for (int a = 0; a < P->nv; a++) {
            const double *V = P->v[a];
            double best = v3_dist2(V, xo) - xo[3];
            int owner = i;
            for (int q = 0; q < nci; q++) {
                const double *sj = L->x + 4 * (size_t)ci[q];
                double dist_j = v3_dist2(V, sj) - sj[3];
                if (dist_j < best) {
                    best = dist_j;
                    owner = ci[q];
                }
            }
            if (owner != i && ws->stamp[owner] != sv) {
                ws->ov_i = -1;
                ws->ov_p = NULL;
                return 1e30;
            }
        }
        if (++ws->stampv == 0x7fffffff) {
            memset(ws->stamp, 0, (size_t)L->n * sizeof(int));
            ws->stampv = 1;
        }
        sv = ws->stampv;
        ws->stamp[i] = sv;
    }
    double d = L->cost(L->ctx, i, p, P, ws) - L->c[i];
    ws->cells++;
    /* affected: old neighbours and new neighbours */
    for (int q = 0; q < L->nbc[i]; q++)
        if (ws->stamp[nb[q]] != sv) {
            ws->stamp[nb[q]] = sv;
            ws->list[m++] = nb[q];
        }
    for (int f = 0; f < P->nf; f++) {
        int j = P->fid[f];
        if (j >= 0 && ws->stamp[j] != sv) {
            ws->stamp[j] = sv;
            ws->list[m++] = j;
        }
    }
    for (int a = 0; a < m; a++) {
        int k = ws->list[a];
        const int *ck = L->cand + L->cs[k];
        int nck = L->cs[k + 1] - L->cs[k];
        const cpoly *Pk = cached_cell(L, ws, k, i, p, &ws->work[2]);
        if (!Pk)
            Pk = cpoly_laguerre_cell(&ws->work[2], &ws->work[3], L->lo, L->hi, L->x, k, ck, nck, i, p);
        d += L->cost(L->ctx, k, L->x + 4 * (size_t)k, Pk, ws) - L->c[k];
        ws->cells++;
    }
    ws->ov_i = -1;
    ws->ov_p = NULL;
    return d;
}

typedef struct {
    lopt *L;
    lopt_ws *ws;
    int i;
    double x0[4], sc[4];
    double bestf, bestp[4];
    int nev;
} nm_ctx;

static double nm_f(const gsl_vector *y, void *par)
{
    nm_ctx *c = par;
    double p[4];
    for (int a = 0; a < 4; a++)
        p[a] = c->x0[a] + gsl_vector_get(y, a) * c->sc[a];
    for (int a = 0; a < 3; a++) { /* seeds stay strictly inside the box */
        double m = 1e-6 * (c->L->hi[a] - c->L->lo[a]);
        if (p[a] < c->L->lo[a] + m)
            p[a] = c->L->lo[a] + m;
        if (p[a] > c->L->hi[a] - m)
            p[a] = c->L->hi[a] - m;
    }
    double f = delta_eval(c->L, c->ws, c->i, p);
    c->nev++;
    if (f < c->bestf) {
        c->bestf = f;
        memcpy(c->bestp, p, sizeof c->bestp);
    }
    return f;
}

/* distance-2 greedy colouring; returns the number of colours */
static int colour(lopt *L)
{
    int n = L->n, ncol = 0;
    int *forb = calloc((size_t)n + 1, sizeof(int));
    if (!forb) {
        for (int k = 0; k < n; k++)
            L->color[k] = k; /* sequential fallback */
        return n;
    }
    for (int k = 0; k < n; k++)
        L->color[k] = -1;
    for (int k = 0; k < n; k++) {
        int sv = k + 1;
        if (L->nbc[k] == 0 && n > 1)
            continue; /* empty cells: batches of their own, below */
        for (int q = L->cs[k]; q < L->cs[k + 1]; q++) {
            int j = L->cand[q];
            if (L->color[j] >= 0)
                forb[L->color[j]] = sv;
        }
        int c = 0;
        while (forb[c] == sv)
            c++;
        L->color[k] = c;
        if (c + 1 > ncol)
            ncol = c + 1;
    }
    /* an empty cell's candidates (its host's rings) are not symmetric: it
     * moves alone */
    for (int k = 0; k < n; k++)
        if (L->color[k] < 0)
            L->color[k] = ncol++;
    free(forb);
    return ncol;
}

/* Seeds grouped by colour (CSR: batch[bs[c] .. bs[c+1]-1]), the longest
 * searches first in each batch: the batch ends at a barrier, and a long
 * search started last leaves the other threads idle.  -1: out of memory. */
static int make_batches(lopt *L, int ncol, int **batch_out, int **bs_out)
{
    int n = L->n;
    int *batch = malloc((size_t)n * sizeof(int));
    int *bs = calloc((size_t)ncol + 1, sizeof(int));
    int *pos = malloc((size_t)(ncol > 0 ? ncol : 1) * sizeof(int));
    if (!batch || !bs || !pos) {
        free(batch);
        free(bs);
        free(pos);
        return -1;
    }
    for (int k = 0; k < n; k++)
        bs[L->color[k] + 1]++;
    for (int c = 0; c < ncol; c++)
        bs[c + 1] += bs[c];
    memcpy(pos, bs, (size_t)ncol * sizeof(int));
    for (int k = 0; k < n; k++)
        batch[pos[L->color[k]]++] = k;
    free(pos);
    tsort_t *ts = malloc((size_t)n * sizeof *ts);
    if (ts) {
        for (int c = 0; c < ncol; c++) {
            int len = bs[c + 1] - bs[c];
            for (int b = 0; b < len; b++) {
                ts[b].i = batch[bs[c] + b];
                ts[b].t = L->tsearch[ts[b].i];
            }
            qsort(ts, (size_t)len, sizeof *ts, cmp_tdesc);
            for (int b = 0; b < len; b++)
                batch[bs[c] + b] = ts[b].i;
        }
        free(ts);
    }
    *batch_out = batch;
    *bs_out = bs;
    return 0;
}

/* One simplex search of seed i (others frozen): its best improvement goes
 * to L->bestd[i] and L->best (bestd 0: none). */
static void search_seed(lopt *L, lopt_ws *ws, gsl_multimin_fminimizer *M, gsl_vector *y, gsl_vector *ss,
                        int i, const double *step, const double *tstep, int max_evals)
{
    double ts0 = rve_now();
    nm_ctx cx;
    cx.L = L;
    cx.ws = ws;
    cx.i = i;
    memcpy(cx.x0, L->x + 4 * (size_t)i, sizeof cx.x0);
    cx.sc[0] = cx.sc[1] = cx.sc[2] = step[i];
    cx.sc[3] = tstep[i];
    cx.bestf = 0;
    memcpy(cx.bestp, cx.x0, sizeof cx.bestp);
    cx.nev = 0;
    prepare_cache(L, ws, i);
    gsl_multimin_function fn = {nm_f, 4, &cx};
    gsl_vector_set_zero(y);
    gsl_vector_set_all(ss, 1.0);
    if (gsl_multimin_fminimizer_set(M, &fn, y, ss) == GSL_SUCCESS) {
        for (int it = 0; it < 10 * max_evals && cx.nev < max_evals; it++) {
            if (gsl_multimin_fminimizer_iterate(M) != GSL_SUCCESS)
                break;
            if (gsl_multimin_fminimizer_size(M) < 1e-3)
                break;
        }
    }
    ws->cache_i = -1;
    /* accept only a real improvement */
    double scale = 1e-12 * (1.0 + fabs(L->c[i]));
    if (cx.bestf < -scale) {
        L->bestd[i] = cx.bestf;
        memcpy(L->best + 4 * (size_t)i, cx.bestp, sizeof cx.bestp);
    }
    L->fruitless[i] = !(cx.bestf < -scale);
    L->searched[i] = L->tick;
    L->sgen[i] = L->gen;
    L->tsearch[i] = rve_now() - ts0;
}

/* the searches of one batch (independent seeds), in parallel */
static void search_batch(lopt *L, const int *batch, int b0, int b1, const double *step,
                         const double *tstep, int max_evals)
{
#pragma omp parallel num_threads(L->nthreads)
    {
        lopt_ws *ws = &L->ws[lopt_thread_id()];
        gsl_multimin_fminimizer *M = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, 4);
        gsl_vector *y = gsl_vector_alloc(4), *ss = gsl_vector_alloc(4);
#pragma omp for schedule(dynamic, 1)
        for (int b = b0; b < b1; b++) {
            int i = batch[b];
            L->bestd[i] = 0;
            if (!M || !y || !ss || (L->frozen && L->frozen[i]))
                continue;
            if (can_skip(L, i)) {
#pragma omp atomic update
                L->skipped++;
                continue;
            }
            search_seed(L, ws, M, y, ss, i, step, tstep, max_evals);
        }
        gsl_multimin_fminimizer_free(M);
        gsl_vector_free(y);
        gsl_vector_free(ss);
    }
}

#ifdef LOPT_DEBUG
static void debug_batch(lopt *L, const int *batch, int b0, int b1, int c)
{
    int n = L->n;
    lopt_ws *w0 = &L->ws[0];
    double inc = lopt_total(L), ex = 0;
    double *scr = malloc((size_t)(n + 1) * 2 * sizeof(double));
    for (int k = 0; k < n; k++) {
        const cpoly *P = lopt_full_cell(n, L->x, L->lo, L->hi, k, &w0->work[0], &w0->work[1], NULL, scr);
        double ck = L->cost(L->ctx, k, L->x + 4 * (size_t)k, P, w0);
        if (fabs(ck - L->c[k]) > 1e-6 * (1 + fabs(ck)))
            fprintf(stderr, "  cell %d cached %g exact %g (nv %d, nbc %d)\n", k, L->c[k], ck, P->nv, L->nbc[k]);
        ex += ck;
    }
    free(scr);
    double pred = 0;
    for (int b = b0; b < b1; b++)
        if (L->bestd[batch[b]] < 0)
            pred += L->bestd[batch[b]];
    fprintf(stderr, "batch %d: incremental %.6f exact %.6f predicted delta %.6f\n", c, inc, ex, pred);
}
#endif

/* Commit the improvements of batch c and recompute the affected cells
 * (the moved cells, their old and new neighbours).  Returns the number of
 * seeds moved, -1 when out of memory. */
static int commit_batch(lopt *L, const int *batch, int b0, int b1, int c)
{
    int n = L->n, m = 0, nmoved = 0;
    lopt_ws *w0 = &L->ws[0];
    if (++w0->stampv == 0x7fffffff) {
        memset(w0->stamp, 0, (size_t)n * sizeof(int));
        w0->stampv = 1;
    }
    int sv = w0->stampv;
    int *aff = malloc((size_t)n * sizeof(int));
    if (!aff)
        return -1;
    for (int b = b0; b < b1; b++) {
        int i = batch[b];
        if (L->bestd[i] >= 0)
            continue;
        nmoved++;
        memcpy(L->x + 4 * (size_t)i, L->best + 4 * (size_t)i, 4 * sizeof(double));
        if (w0->stamp[i] != sv) {
            w0->stamp[i] = sv;
            aff[m++] = i;
        }
        for (int q = 0; q < L->nbc[i]; q++) {
            int j = L->nb[(size_t)i * NB_MAX + q];
            if (w0->stamp[j] != sv) {
                w0->stamp[j] = sv;
                aff[m++] = j;
            }
        }
    }
    /* cell i first (its new neighbours join the affected set) */
    for (int a = 0; a < m; a++) {
        int k = aff[a];
        if (L->bestd[k] >= 0 || L->color[k] != c)
            continue;
        const cpoly *P = lopt_cell(L, k, &w0->work[0], &w0->work[1]);
        for (int f = 0; f < P->nf; f++) {
            int j = P->fid[f];
            if (j >= 0 && w0->stamp[j] != sv) {
                w0->stamp[j] = sv;
                aff[m++] = j;
            }
        }
    }
#pragma omp parallel for num_threads(L->nthreads) schedule(dynamic, 2)
    for (int a = 0; a < m; a++) {
        int k = aff[a];
        lopt_ws *ws = &L->ws[lopt_thread_id()];
        const cpoly *P = lopt_cell(L, k, &ws->work[0], &ws->work[1]);
        lopt_set_neighbours(L, k, P);
        ws->commit = 1;
        L->c[k] = L->cost(L->ctx, k, L->x + 4 * (size_t)k, P, ws);
        ws->commit = 0;
        L->touched[k] = L->tick;
    }
    L->tick++;
    free(aff);
    lopt_symmetrise(L);
    return nmoved;
}

rve_status lopt_sweep(lopt *L, const double *step, const double *tstep, int max_evals,
                      double deadline, int *moved, rve_err *err)
{
    rve_status st = lopt_build_candidates(L, err);
    if (st != RVE_OK)
        return st;
    int ncol = colour(L), *batch = NULL, *bs = NULL;
#ifdef LOPT_DEBUG_COLOURS
    fprintf(stderr, "colours %d for %d seeds\n", ncol, L->n);
#endif
    if (make_batches(L, ncol, &batch, &bs) < 0)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    int nmoved = 0;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    for (int c = 0; c < ncol; c++) {
        if (deadline > 0 && rve_now() > deadline) {
            st = RVE_ECAP;
            break;
        }
        search_batch(L, batch, bs[c], bs[c + 1], step, tstep, max_evals);
        int mv = commit_batch(L, batch, bs[c], bs[c + 1], c);
        if (mv < 0) {
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            break;
        }
        nmoved += mv;
#ifdef LOPT_DEBUG
        debug_batch(L, batch, bs[c], bs[c + 1], c);
#endif
    }
    gsl_set_error_handler(old);
    free(batch);
    free(bs);
    if (moved)
        *moved = nmoved;
    return st;
}
