/* gen_internal.h - what the synthesis files share (not installed): gen.c
 * (rve_gen: size and Lloyd stages, correlated sizes, reports) and
 * gen_search.c (the incremental local search of the shape stage). */
#ifndef RVE_OPTIM_GEN_INTERNAL_H
#define RVE_OPTIM_GEN_INTERNAL_H

#include "optim/synth.h"
#include <gsl/gsl_rng.h>
#include <stddef.h>

#define GEN_PI 3.14159265358979323846
/* smallest per-rank weight of the quantile objective */
#define GEN_WFLOOR 0.05

typedef struct {
    double v;
    size_t i;
} keyed;

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

typedef struct {
    long trials, accepted;
    int resolves, sweeps;
} inc_stats;

/* A standard normal deviate (Box-Muller). */
double gen_gauss(gsl_rng *r);
double gen_rank_weights(const double *q, size_t n, double *w);
void gen_inc_init(inc_state *s);
void gen_inc_targets(const inc_state *s, double *target);
rve_status gen_inc_search(synth_ctx *c, inc_state *s, double *seeds, double *psi, double *target,
                             const rve_pvol_params *ip, int it0, int sweeps, double stop, double deadline, gsl_rng *rng,
                             const rve_gen_params *gp, double *step, int *changed, double *oldv, inc_stats *stats,
                             rve_err *err);

#endif
