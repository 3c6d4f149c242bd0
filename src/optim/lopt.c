/* lopt.c - local incremental optimiser of Laguerre seeds (see lopt.h). */
#include "config.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#include "optim/lopt_int.h"
#include "util/vec3.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


lopt *lopt_alloc(int n, const double lo[3], const double hi[3], double *x, int nthreads, rve_err *err)
{
    lopt *L = calloc(1, sizeof *L);
    if (!L) {
        rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    L->n = n;
    v3_copy(L->lo, lo);
    v3_copy(L->hi, hi);
    L->x = x;
    if (nthreads < 1)
        nthreads = 1;
    L->nthreads = nthreads;
    L->c = calloc((size_t)n, sizeof(double));
    L->nbc = calloc((size_t)n, sizeof(int));
    L->nb = malloc((size_t)n * NB_MAX * sizeof(int));
    L->cs = calloc((size_t)n + 1, sizeof(int));
    L->best = malloc((size_t)n * 4 * sizeof(double));
    L->bestd = malloc((size_t)n * sizeof(double));
    L->color = malloc((size_t)n * sizeof(int));
    L->ws = calloc((size_t)nthreads, sizeof(lopt_ws));
    L->touched = calloc((size_t)n, sizeof(long));
    L->searched = calloc((size_t)n, sizeof(long));
    L->sgen = calloc((size_t)n, sizeof(int));
    L->fruitless = calloc((size_t)n, 1);
    L->tsearch = calloc((size_t)n, sizeof(double));
    L->tick = 1;
    if (!L->c || !L->nbc || !L->nb || !L->cs || !L->best || !L->bestd || !L->color || !L->ws || !L->touched ||
        !L->searched || !L->sgen || !L->fruitless || !L->tsearch) {
        lopt_free(L);
        rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    for (int t = 0; t < nthreads; t++) {
        L->ws[t].stamp = calloc((size_t)n, sizeof(int));
        L->ws[t].list = malloc((size_t)n * sizeof(int));
        L->ws[t].L = L;
        L->ws[t].n = n;
        L->ws[t].x = x;
        L->ws[t].ov_i = -1;
        L->ws[t].cache_i = -1;
        L->ws[t].cache_k = malloc(LOPT_NCACHE * sizeof(int));
        L->ws[t].cache = malloc(LOPT_NCACHE * sizeof(cpoly));
        L->ws[t].tmpc = malloc((size_t)n * sizeof(int));
        if (!L->ws[t].stamp || !L->ws[t].list || !L->ws[t].cache_k || !L->ws[t].cache || !L->ws[t].tmpc) {
            lopt_free(L);
            rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            return NULL;
        }
    }
    return L;
}

void lopt_free(lopt *L)
{
    if (!L)
        return;
    if (L->ws)
        for (int t = 0; t < L->nthreads; t++) {
            free(L->ws[t].stamp);
            free(L->ws[t].list);
            free(L->ws[t].cache_k);
            free(L->ws[t].cache);
            free(L->ws[t].tmpc);
        }
    free(L->ws);
    free(L->c);
    free(L->nbc);
    free(L->nb);
    free(L->cs);
    free(L->cand);
    free(L->best);
    free(L->bestd);
    free(L->color);
    free(L->touched);
    free(L->searched);
    free(L->sgen);
    free(L->fruitless);
    free(L->tsearch);
    free(L);
}

void lopt_set_cost(lopt *L, lopt_cost_fn f, void *ctx)
{
    L->cost = f;
    L->ctx = ctx;
    L->gen++;
}

void lopt_set_frozen(lopt *L, const unsigned char *frozen) { L->frozen = frozen; }
void lopt_invalidate(lopt *L) { L->gen++; }
long lopt_skipped(const lopt *L) { return L->skipped; }


void lopt_set_user(lopt *L, void **user)
{
    for (int t = 0; t < L->nthreads; t++)
        L->ws[t].user = user ? user[t] : NULL;
}

int lopt_nthreads(const lopt *L) { return L->nthreads; }
double lopt_cell_cost(const lopt *L, int k) { return L->c[k]; }
const int *lopt_neighbours(const lopt *L, int k, int *count)
{
    *count = L->nbc[k];
    return L->nb + (size_t)k * NB_MAX;
}

double lopt_total(const lopt *L)
{
    double s = 0;
    for (int k = 0; k < L->n; k++)
        s += L->c[k];
    return s;
}

long lopt_evals(const lopt *L)
{
    long s = 0;
    for (int t = 0; t < L->nthreads; t++)
        s += L->ws[t].evals;
    return s;
}

long lopt_counter(const lopt *L)
{
    long s = 0;
    for (int t = 0; t < L->nthreads; t++)
        s += L->ws[t].gjk;
    return s;
}

double lopt_gap(const lopt_ws *ws, int k, const double sk[4])
{
    double best = 1e300;
    for (int j = 0; j < ws->n; j++) { /* all seeds: exact, and empty cells are rare */
        if (j == k)
            continue;
        const double *sj = (j == ws->ov_i) ? ws->ov_p : ws->x + 4 * (size_t)j;
        double d = v3_dist2(sk, sj) - sj[3];
        if (d < best)
            best = d;
    }
    if (best >= 1e300)
        return 0;
    double g = -sk[3] - best;
    return g > 0 ? g : 0;
}

const cpoly *lopt_cell(lopt *L, int k, cpoly *w0, cpoly *w1)
{
    return cpoly_laguerre_cell(w0, w1, L->lo, L->hi, L->x, k, L->cand + L->cs[k],
                               L->cs[k + 1] - L->cs[k], -1, NULL);
}

rve_status lopt_rebuild(lopt *L, rve_err *err)
{
    int n = L->n;
    int fail = 0;
    lopt_grid *G = lopt_grid_build(n, L->x, L->lo, L->hi); /* NULL: sorted scan */
#pragma omp parallel num_threads(L->nthreads)
    {
        lopt_ws *ws = &L->ws[lopt_thread_id()];
        double *scratch = malloc((size_t)(n + 1) * sizeof(dist_j_t));
        if (!scratch) {
#pragma omp atomic write
            fail = 1;
        }
#pragma omp for schedule(dynamic, 4)
        for (int k = 0; k < n; k++) {
            if (!scratch)
                continue;
            const cpoly *P = lopt_full_cell(n, L->x, L->lo, L->hi, k, &ws->work[0], &ws->work[1],
                                            G, scratch);
            lopt_set_neighbours(L, k, P);
            ws->commit = 1;
            L->c[k] = L->cost(L->ctx, k, L->x + 4 * (size_t)k, P, ws);
            ws->commit = 0;
        }
        free(scratch);
    }
    lopt_grid_free(G);
    if (fail)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    lopt_symmetrise(L);
    return lopt_build_candidates(L, err);
}

rve_status lopt_recost(lopt *L, rve_err *err)
{
    (void)err;
    L->gen++;
#pragma omp parallel for num_threads(L->nthreads) schedule(dynamic, 4)
    for (int k = 0; k < L->n; k++) {
        lopt_ws *ws = &L->ws[lopt_thread_id()];
        const cpoly *P = lopt_cell(L, k, &ws->work[0], &ws->work[1]);
        ws->commit = 1;
        L->c[k] = L->cost(L->ctx, k, L->x + 4 * (size_t)k, P, ws);
        ws->commit = 0;
    }
    return RVE_OK;
}

