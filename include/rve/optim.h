/* rve/optim.h - fitting tessellations to grain maps and statistical synthesis. */
#ifndef RVE_OPTIM_H
#define RVE_OPTIM_H

#include <rve/util.h>
#include <rve/raster.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================== fitting (issue 7) */
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
    int threads;          /* 0: as set by rve_threads_setup */
    /* Optional progress report (called from the calling thread only):
     * stage 0 = Eq. 6.5 sweeps, 1 = polishing; frac in [0, 1] of the stage's sweep cap. */
    void (*progress)(void *ctx, int stage, int sweep, double frac, double objective, double accuracy);
    void *progress_ctx;
} rve_fit_opts;

/* Defaults: res 1, tol 1e-3, max_sweeps 30, max_evals 40, max_seconds 0,
 * SV, polish 8, threads 0. */
void rve_fit_opts_init(rve_fit_opts *o);

typedef struct {
    int stage;            /* 0 initial, 1 Eq. 6.5 sweep, 2 polishing sweep */
    int sweep;
    double objective;     /* Eq. 6.5 (voxel lengths) */
    double misassigned;   /* fraction of non-void voxels outside their grain's cell */
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
    double acc_init, acc_stage1, acc_final; /* voxel accuracy (independent rasterisation) */
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
} rve_fit_result;

/* Fit m.  r is filled (free with rve_fit_result_free, also after an error). */
rve_status rve_fit(const rve_map *m, const rve_fit_opts *o, rve_fit_result *r, rve_err *err);
void rve_fit_result_free(rve_fit_result *r);

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

#ifdef __cplusplus
}
#endif
#endif
