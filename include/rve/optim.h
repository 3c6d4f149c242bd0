/* rve/optim.h - fitting tessellations to grain maps and statistical synthesis. */
#ifndef RVE_OPTIM_H
#define RVE_OPTIM_H

#include <rve/util.h>
#include <rve/raster.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================== fitting */
/* A Laguerre tessellation is fitted to a grain map: one cell per grain (cell
 * i = the i-th grain label present, in increasing order), seed s_i and weight
 * w_i (power distance |x - s_i|^2 - w_i^2, Neper's convention).
 *
 * Objective (thesis Eq. 6.5, with its constant c made explicit):
 *     O = sqrt( sum_i sum_{v in B_i} a_v d(v, C_i)^2 / sum_i sum_{v in B_i} a_v )
 * B_i are the control points of grain i (centres of its boundary voxels,
 * optionally down-sampled, a_v their weights = voxels represented), C_i the
 * Laguerre cell clipped to the map's box, d the Euclidean distance from the
 * point to the convex cell (0 inside; GJK with signed volumes), all lengths in
 * voxel lengths L = (hx hy hz)^(1/3).  O is thus an RMS distance in voxels;
 * an empty cell counts its points at distance |v - s_i| + the box diagonal. */

typedef enum { RVE_FIT_SUB_SV = 0, RVE_FIT_SUB_JOHNSON = 1 } rve_fit_sub;

typedef struct {
    int res;              /* control-point down-sampling step in voxels (1 = all boundary voxels) */
    double tol;           /* stop when a sweep improves O by less than tol (relative) */
    int max_sweeps;       /* sweeps over all seeds, Eq. 6.5 stage */
    int max_evals;        /* objective evaluations per seed and sweep (local simplex search) */
    double max_seconds;   /* wall-time cap of the whole fit (0: none); checked between batches */
    rve_fit_sub sub;      /* GJK sub-algorithm */
    int polish;           /* polishing sweeps on the misassigned volume (0: none) */
    int hinge;            /* L-BFGS iterations on the convex (squared hinge) classifier surrogate,
                           * after stage 1 (0: none) */
    int classify;         /* epochs of classifier refinement before polishing (0: none) */
    int rounds;           /* rounds of surrogate + classifier + polishing, each from the best
                           * state so far (default 1; stops at a round without gain) */
    int open_tiny;        /* 1 (default): after the last round, open the cells far smaller than
                           * their grain or than 8 voxels (docs/fit.md, stage 6); 0: return the
                           * best state as found */
    int threads;          /* 0: as set by rve_threads_setup */
    int exact_dist;       /* 1: GJK distances used unrounded (default 0: rounded to a 2^-32
                           * voxel grid, which makes --sub sv and johnson see the same values) */
    /* Optional progress report (called from the calling thread only):
     * stage 0 = Eq. 6.5 sweeps, 1 = polishing, 2 = classifier epochs,
     * 3 = surrogate iterations (objective: the surrogate loss); frac in [0, 1] of the
     * stage's cap.  accuracy is always the exact voxel accuracy (power-distance
     * rasterisation) of the state just reached, objective its exact Eq. 6.5. */
    void (*progress)(void *ctx, int stage, int sweep, double frac, double objective, double accuracy);
    void *progress_ctx;
    /* The distributed fit's hooks (src/mpi, docs/mpi.md); NULL (the default)
     * for the serial fit.  Arrays of n = the grains of the map, label order. */
    const double *init_seed;       /* 3n physical: start from these seeds instead of the centroids */
    const double *init_weight;     /* n Neper weights of those seeds (with init_seed) */
    const unsigned char *frozen;   /* n: 1 = this seed and weight are never moved (the seeds of
                                    * grains another process fits); the seeds are then not brought
                                    * back into the box either (the weights keep their gauge:
                                    * a frozen seed's returned weight w' gives the common shift
                                    * w^2 - w'^2 of the returned weights) */
} rve_fit_opts;

/* Defaults: see rve_fit_opts_init in src/optim/fit.c and docs/fit.md. */
void rve_fit_opts_init(rve_fit_opts *o);

typedef struct {
    int stage;            /* 0 initial, 1 Eq. 6.5 sweep, 2 polishing sweep, 3 classifier epoch,
                           * 4 the returned state (the best seen), 5 surrogate (L-BFGS) */
    int sweep;
    double objective;     /* Eq. 6.5 (voxel lengths) of that state, evaluated in full
                           * (NAN for classifier epochs, where it is not computed) */
    double misassigned;   /* exact: fraction of non-void voxels whose cell (power-distance
                           * rasterisation, as rve_fit_quality) is not their grain's */
    double seconds;
    long evals;           /* cumulative objective evaluations */
    long gjk_calls;       /* cumulative GJK calls */
} rve_fit_hist;

typedef struct {
    int n;                /* cells = grains */
    uint32_t *label;      /* n grain labels, increasing */
    double *seed;         /* 3n, physical coordinates */
    double *weight;       /* n, Neper weights (radius-like, >= 0) */
    double obj_init, obj_final;        /* Eq. 6.5 */
    double obj_stage1;                 /* Eq. 6.5 after its stage (before polishing) */
    double obj_classify, obj_polish;   /* Eq. 6.5 of the best states after those stages */
    double acc_init, acc_stage1, acc_final; /* voxel accuracy (independent rasterisation) */
    double acc_classify;  /* best after the classifier refinement (>= acc_stage1) */
    double acc_polish;    /* best after polishing (>= acc_classify); = acc_final */
    /* Each acc_* and obj_* is the exact figure of the state the fit would
     * return if it stopped at that stage boundary (the best seen so far). */
    int classify_epochs;  /* its epochs run */
    int hinge_iters;      /* L-BFGS iterations of the surrogate run (last round) */
    int rounds;           /* rounds run */
    double iou_min, iou_median;        /* per-grain IoU of the final fit */
    int empty_cells;                   /* grains whose final cell holds no voxel */
    int empty_cells_init;
    int sweeps, polish_sweeps;
    long evals, gjk_calls;
    long ncontrol;                     /* control points */
    double seconds;
    int stopped_by;                    /* 0 tolerance, 1 sweep cap, 2 time cap */
    int nhist;
    rve_fit_hist *hist;
    double weight_shift;  /* the returned weights are w_i^2 = W_i - weight_shift, W_i the power
                           * weights in the gauge of the starting state (init_weight^2, or the
                           * equivalent-sphere radii^2): what the distributed fit needs to put the
                           * weights of several fits in one gauge */
} rve_fit_result;

/* Fit m.  r is filled (free with rve_fit_result_free, also after an error). */
rve_status rve_fit(const rve_map *m, const rve_fit_opts *o, rve_fit_result *r, rve_err *err);
void rve_fit_result_free(rve_fit_result *r);

/* Seeds that left the box [lo, hi] brought back without changing the
 * power diagram: s' = c + l (s - c), W' = |s'|^2 - l |s|^2 + l W (c the box
 * centre, 0 < l <= 1 the largest factor that puts every seed 1e-3 of the box
 * inside), which turns every score 2 s.x - |s|^2 + W into l times itself
 * plus a term common to all seeds.  s4: n x (x, y, z, W), W = w^2 the power
 * weight (any real). */
void rve_fit_keep_inside(int n, double *s4, const double lo[3], const double hi[3]);

/* Initial guess only (centroid seeds, equivalent-sphere weights): fills
 * r->n, label, seed, weight (physical units). */
rve_status rve_fit_initial(const rve_map *m, rve_fit_result *r, rve_err *err);

/* Eq. 6.5 for given seeds (3n, physical) and weights (n) with cell i = i-th
 * label of m: the same control points as rve_fit with step res.  Also returns
 * the number of GJK calls if gjk_calls != NULL. */
rve_status rve_fit_objective(const rve_map *m, int n, const double *seed, const double *weight,
                             int res, rve_fit_sub sub, double *objective, long *gjk_calls,
                             rve_err *err);

/* Quality of seeds/weights against m by power-distance rasterisation:
 * accuracy (fraction of non-void voxels whose cell is their grain), per-grain
 * IoU min and median, cells with no voxel.  Any pointer may be NULL.
 * assign (optional, nx*ny*nz) receives the cell index of each voxel. */
rve_status rve_fit_quality(const rve_map *m, int n, const double *seed, const double *weight,
                           double *accuracy, double *iou_min, double *iou_median, int *empty,
                           int32_t *assign, rve_err *err);

/* ============================================== end fitting */

/* ====================================================== synthesis
 * Statistical microstructure synthesis and prescribed-volume Laguerre
 * diagrams.  Weights follow Neper's convention: the weight w_i of seed s_i is
 * a radius and the power distance is |x - s_i|^2 - w_i^2.  The domain is the
 * box [0,LX] x [0,LY] x [0,LZ], optionally periodic. */

/* ---- prescribed volumes (semi-discrete optimal transport, damped Newton) */
typedef struct {
    double tol;     /* stop when max_i |V_i - T_i| / T_i <= tol (default 1e-3) */
    int max_iter;   /* Newton iterations cap (default 100) */
    int max_cg;     /* conjugate-gradient iterations cap per Newton step (default 2000) */
    double cg_tol;  /* relative residual of the linear solves (default 1e-3) */
} rve_pvol_params;

typedef struct {
    int iterations;     /* Newton iterations done */
    int tess_calls;     /* tessellations computed (with backtracking) */
    long cg_iterations; /* total conjugate-gradient iterations */
    double max_rel_err; /* final max_i |V_i - T_i| / T_i */
    double seconds;     /* wall time */
} rve_pvol_info;

void rve_pvol_params_default(rve_pvol_params *p);

/* Find weights so that the Laguerre cell of seed i (seeds: 3n coordinates,
 * distinct, inside the domain) has volume target[i].  The targets must be
 * positive; they are rescaled to sum to the domain volume (their relative
 * sizes are what counts).  weights (n radii) holds the initial guess on
 * entry (all zeros = Voronoi diagram) and the solution on return (the
 * smallest weight is 0).  info may be NULL.  Returns RVE_ECAP when the
 * tolerance is not reached within the caps (weights then hold the best
 * iterate), RVE_EDATA for bad seeds or targets. */
rve_status rve_pvol_solve(size_t n, const double *seeds, const double domain[3], int periodic,
                          const double *target, double *weights, const rve_pvol_params *p,
                          rve_pvol_info *info, rve_err *err);

/* ---- distributions and morphology specifications */
/* (rve_distrib, its parser, CDF, quantile and mean are in rve/util.h) */
/* Kolmogorov-Smirnov distance sup |F_n - F| of the n values x (not
 * modified) against d, and the asymptotic p-value of the one-sample test. */
double rve_ks_distance(const double *x, size_t n, const rve_distrib *d);
double rve_ks_pvalue(double dist, size_t n);

typedef enum {
    RVE_PROP_DIAMEQ = 0,     /* equivalent-sphere diameter, relative to its mean */
    RVE_PROP_SIZE,           /* volume, relative to the mean volume domain/N */
    RVE_PROP_SPHERICITY,     /* pi^(1/3) (6V)^(2/3) / A */
    RVE_PROP_1MSPHERICITY,   /* 1 - sphericity */
    RVE_PROP_COUNT
} rve_prop;

const char *rve_prop_name(rve_prop p);

typedef struct {
    int has[RVE_PROP_COUNT];          /* which properties are prescribed */
    rve_distrib dist[RVE_PROP_COUNT];
} rve_morpho;

/* Parse "PROP:DIST[,PROP:DIST...]" or the preset "gg" (= "diameq:lognormal(1,0.35),
 * 1-sphericity:lognormal(0.145,0.03)").  PROP is diameq, size, sphericity or
 * 1-sphericity; DIST is normal(m,s), lognormal(m,s), weibull(k,lambda),
 * custom(FILE) (two columns: x and density) or a number (all cells equal),
 * optionally with truncation ",from=A,to=B" inside the parentheses.  At most
 * one of diameq/size and one of sphericity/1-sphericity.  Fills m (free it
 * with rve_morpho_free); errors name the spec or the file. */
rve_status rve_morpho_parse(const char *spec, rve_morpho *m, rve_err *err);
void rve_morpho_free(rve_morpho *m);

/* ---- synthesis */
typedef struct {
    size_t n;             /* number of cells */
    double domain[3];
    int periodic;
    unsigned long seed;   /* random seed (default 1) */
    int max_iter;         /* shape-optimisation cap: Lloyd steps + sweeps of n trial moves (default 200);
                           * the search stops earlier once its objective is half that of a typical
                           * random sample of the targets */
    double size_corr;     /* correlation length of the cell sizes, in mean cell sizes (0, the
                           * default: sizes given by the rank of the Voronoi volumes of random
                           * seeds; > 0: by a smooth random field, which makes neighbours more
                           * alike in size and the cells rounder) */
    double time_limit;    /* seconds, 0 = none (default 0) */
    double tol;           /* volume tolerance of the size stage (default 1e-3) */
    /* Optional progress callback (called from the calling thread). */
    void (*progress)(void *ctx, int iter, int max_iter, double objective);
    void *progress_ctx;
} rve_gen_params;

void rve_gen_params_default(rve_gen_params *p);

typedef struct {
    int iterations;               /* shape iterations done */
    int tess_calls;
    double objective;             /* final smoothed weighted-L2 objective (sum over properties) */
    double ks[RVE_PROP_COUNT];    /* KS distance per prescribed property (-1 when absent, and
                                     for constant (Dirac) targets, where it means nothing) */
    double pvalue[RVE_PROP_COUNT];
    double max_dev[RVE_PROP_COUNT]; /* constant targets: largest |x - value| / value (else -1) */
    double max_vol_err;           /* max relative volume error of the size stage (0 if none) */
    double seconds;
    long moves, moves_accepted;   /* trial moves of the incremental search */
    double nb_size_corr;          /* correlation of log volumes across faces (diagnostic of the
                                   * spatial arrangement of sizes; 0 for n < 2) */
} rve_gen_info;

/* Generate n seeds (3n, out) and weights (n radii, out) whose Laguerre cells
 * follow the morphology m.  Cell values of the four properties are written
 * to values[RVE_PROP_COUNT * i + prop] when values is not NULL (n *
 * RVE_PROP_COUNT doubles).  The objective is the Anderson-Darling-weighted L2
 * distance between kernel-smoothed empirical CDFs and the targets; info
 * reports Kolmogorov-Smirnov distances as an independent measure. */
rve_status rve_gen(const rve_morpho *m, const rve_gen_params *p, double *seeds, double *weights,
                   double *values, rve_gen_info *info, rve_err *err);

/* Weighted-L2 (Anderson-Darling-like) distance between the kernel-smoothed
 * CDF of the n values x (bandwidth h > 0) and d, integrated over dF on a
 * grid of m target quantiles. */
double rve_smooth_cdf_distance(const double *x, size_t n, double h, const rve_distrib *d, int m);

/* Cell values of a Laguerre diagram: volume, surface area, equivalent
 * diameter and sphericity per cell (each array n long, any may be NULL). */
rve_status rve_gen_cell_values(size_t n, const double *seeds, const double *weights,
                               const double domain[3], int periodic, double *vol, double *area,
                               double *diameq, double *sphericity, rve_err *err);
/* ================================================= end synthesis */

#ifdef __cplusplus
}
#endif
#endif
