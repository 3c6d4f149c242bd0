/* lopt_int.h - internals of the local optimiser (lopt.h), shared by
 *   lopt.c        allocation, accessors, rebuild and recost
 *   lopt_cell.c   full cells (seed grid, nearest-first clipping)
 *   lopt_graph.c  neighbour graph, candidate lists (2-rings)
 *   lopt_sweep.c  local evaluation and the sweeps of simplex searches */
#ifndef RVE_OPTIM_LOPT_INT_H
#define RVE_OPTIM_LOPT_INT_H
#include "optim/lopt.h"

#define NB_MAX 120 /* neighbours per cell kept in the graph */

struct lopt {
    int n;
    double lo[3], hi[3];
    double *x;
    lopt_cost_fn cost;
    void *ctx;
    double *c;        /* cached cell costs */
    int *nbc;         /* neighbour counts */
    int *nb;          /* n * NB_MAX */
    int *cs, *cand;   /* candidate lists (CSR): 2-ring of the graph */
    int ncand_alloc;
    int nthreads;
    lopt_ws *ws;
    /* per-seed search results of a batch */
    double *best;     /* 4n */
    double *bestd;    /* n */
    int *color;
    /* adaptive effort: a seed whose last search found nothing is not searched
     * again while nothing it depends on has changed */
    int gen;          /* bumped when the cost or the search steps change */
    long tick;        /* batch commits so far */
    long *touched;    /* n: tick of the last commit that changed cell k */
    long *searched;   /* n: tick of seed i's last search */
    int *sgen;        /* n: gen of that search */
    unsigned char *fruitless; /* n: that search found no improvement */
    double *tsearch;  /* n: seconds of the last search (largest first in a batch) */
    long skipped;
    const unsigned char *frozen; /* n or NULL: seeds never searched */
};

typedef struct {
    double d;
    int j;
} dist_j_t;

static inline int lopt_thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

void lopt_set_neighbours(lopt *L, int k, const cpoly *P);
void lopt_symmetrise(lopt *L);
rve_status lopt_build_candidates(lopt *L, rve_err *err);
#endif
