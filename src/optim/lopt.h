/* lopt.h - local incremental optimiser of Laguerre seeds (internal to src/optim).
 *
 * The state is n seeds x_k = (x, y, z, t) (power distance |p - s_k|^2 - t_k)
 * in a box, and an objective that is a SUM OF PER-CELL COSTS
 *     F = sum_k cost(k, C_k)
 * where C_k is the Laguerre cell of seed k clipped to the box (a cpoly).
 * Moving seed i changes only C_i and the cells of its old and new
 * neighbours, so the change of F is evaluated on those cells only.
 *
 * A sweep visits every seed once: seeds are grouped by a distance-2 colouring
 * of the neighbour graph (no two seeds of a batch are neighbours or share a
 * neighbour), each batch runs in parallel (OpenMP), and each seed does a small
 * Nelder-Mead search (GSL nmsimplex2) over its 4 variables evaluating only
 * the affected cells, with all other seeds frozen.  Accepted moves are
 * committed after the batch and the costs of affected cells recomputed, so F
 * is always exact.
 *
 * Any per-cell cost can be plugged in (fit: Eq. 6.5 or misassigned volume;
 * synthesis: statistical cell descriptors).  The cost function must be
 * thread-safe for distinct cells and must not write shared state. */
#ifndef RVE_OPTIM_LOPT_H
#define RVE_OPTIM_LOPT_H

#include <rve/util.h>
#include "optim/cpoly.h"

typedef struct {
    cpoly work[4];     /* scratch polytopes */
    long evals;        /* objective evaluations (seed-level) */
    long cells;        /* cell evaluations */
    long gjk;          /* free counter for the cost function (e.g. GJK calls) */
    int commit;        /* 1 while costs of the committed state are computed (caches may be
                        * written for that cell), 0 during trial evaluations */
    int *stamp;        /* n marks */
    int stampv;
    int *list;         /* n */
    void *user;        /* cost-specific scratch (set with lopt_set_user) */
    const struct lopt *L;
    int n;             /* seeds and their values, for lopt_gap */
    const double *x;
    int ov_i;          /* seed under trial (-1: none) and its trial value */
    const double *ov_p;
    /* Cells of the neighbours of the seed under search (cache_i), each
     * clipped by every candidate but that seed: a trial then needs one clip
     * per neighbour cell instead of a rebuild. */
    int cache_i, ncache;
    int *cache_k;      /* LOPT_NCACHE cell ids */
    cpoly *cache;      /* LOPT_NCACHE polytopes */
    int *tmpc;         /* n ints: candidate list scratch */
} lopt_ws;

#define LOPT_NCACHE 64

/* cost of cell k whose seed is sk (x, y, z, t); P may be empty (P->nv == 0). */
typedef double (*lopt_cost_fn)(void *ctx, int k, const double sk[4], const cpoly *P, lopt_ws *ws);

typedef struct lopt lopt;

/* x: 4n doubles, owned by the caller and updated in place by sweeps. */
lopt *lopt_alloc(int n, const double lo[3], const double hi[3], double *x, int nthreads, rve_err *err);
void lopt_free(lopt *L);
void lopt_set_cost(lopt *L, lopt_cost_fn f, void *ctx);
/* Seeds never searched (n flags, owned by the caller; NULL: none). */
void lopt_set_frozen(lopt *L, const unsigned char *frozen);
/* Per-thread user scratch (array of nthreads pointers, owned by the caller). */
void lopt_set_user(lopt *L, void **user);
int lopt_nthreads(const lopt *L);

/* Exact neighbour graph from all seeds (sorted candidates, early exit) and
 * the cost of every cell. */
rve_status lopt_rebuild(lopt *L, rve_err *err);
/* Recompute every cell's cost with the current neighbour graph (after a cost change). */
rve_status lopt_recost(lopt *L, rve_err *err);
double lopt_total(const lopt *L);
double lopt_cell_cost(const lopt *L, int k);
const int *lopt_neighbours(const lopt *L, int k, int *count);

/* One sweep.  A seed is not searched when its last search (same cost, same
 * steps) found nothing and no cell of its 2-ring has changed since, or when
 * its cell and its neighbours' cost 0.  step[k]: position step (length units) of seed k's initial
 * simplex; tstep[k] the t step.  Stops early (returns RVE_ECAP) when
 * rve_now() passes deadline (> 0).  Accepted moves are counted in *moved. */
rve_status lopt_sweep(lopt *L, const double *step, const double *tstep, int max_evals,
                      double deadline, int *moved, rve_err *err);

/* For an empty cell k (seed value sk): the power gap
 * g = pd_k(s_k) - min_{j != k} pd_j(s_k) >= 0 (O(n)), which vanishes when the
 * cell reappears at s_k (used to continue costs across empty cells). */
double lopt_gap(const lopt_ws *ws, int k, const double sk[4]);

/* The cost or the search steps changed: every seed is searched again
 * (lopt_set_cost and lopt_recost do this themselves). */
void lopt_invalidate(lopt *L);
/* Searches skipped so far (see lopt_sweep). */
long lopt_skipped(const lopt *L);

/* Totals over threads. */
long lopt_evals(const lopt *L);
long lopt_counter(const lopt *L);   /* sum of ws->gjk */

/* The (exact) cell of seed k for the current x into P (uses a full candidate
 * list built from the neighbour graph). */
const cpoly *lopt_cell(lopt *L, int k, cpoly *w0, cpoly *w1);

/* Seeds of x binned on a uniform grid (read-only once built, shared by
 * threads); NULL when out of memory. */
typedef struct lopt_grid lopt_grid;
lopt_grid *lopt_grid_build(int n, const double *x, const double lo[3], const double hi[3]);
void lopt_grid_free(lopt_grid *G);

/* Full, exact cell of k against all seeds of x (nearest first, early exit):
 * with G (built from the same x) only the bins near the cell are visited;
 * with G == NULL all n seeds are sorted.  Standalone, thread-safe.
 * dist: 2n doubles scratch. */
const cpoly *lopt_full_cell(int n, const double *x, const double lo[3], const double hi[3], int k,
                            cpoly *w0, cpoly *w1, const lopt_grid *G, double *dist);

#endif
