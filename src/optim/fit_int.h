/* fit_int.h - internals of the fit (rve_fit), shared by its files:
 *   fit_ctx.c      the context: labels, voxels by brick, control points,
 *                  initial guess, internal <-> physical units
 *   fit_cost.c     the cell costs of the local searches (Eq. 6.5, smoothed
 *                  misassigned volume) and the full Eq. 6.5 evaluation
 *   fit_quality.c  the exact voxel accuracy (rasterisation)
 *   fit_state.c    a fit in progress: exact measure, best state, history,
 *                  repair of cells without a voxel
 *   fit_classify.c passive-aggressive classifier epochs
 *   fit_hinge.c    the convex surrogate (squared hinge, L-BFGS)
 *   fit_stages.c   Eq. 6.5 sweeps and polishing sweeps
 *   fit_open.c     opening the tiny cells left after the last round
 *   fit.c          the driver (rve_fit)
 *
 * Internal coordinates: u = (x - origin) / L with L = (hx hy hz)^(1/3), so
 * that distances are in voxel lengths and the box is [0, n h / L].  Seeds are
 * kept as (x, y, z, t) with t = w^2 the additive power weight (any real; the
 * diagram is unchanged when a constant is added to every t, which makes all
 * weights real radii on output). */
#ifndef RVE_OPTIM_FIT_INT_H
#define RVE_OPTIM_FIT_INT_H
#include <rve/optim.h>
#include <rve/dist.h>
#include <rve/tess.h>
#include "optim/cpoly.h"
#include "optim/lopt.h"
#include "util/vec3.h"
#include "util/mathconst.h"

#define VB_NFA 4
struct vbrick {
    size_t v0, v1;       /* voxels vijk[v0 .. v1-1] of one grain in one brick */
    double c[3], h[3];   /* centre and half extents of their centres' bounding box */
    double maxE;         /* committed: largest E of its voxels (lazy: an upper bound <= -tau/2) */
    int lazy;            /* committed: E, A not stored (every voxel deeper than tau/2) */
    int nfa;             /* committed: the faces A of its voxels whose E > -tau/2 - margin */
    int32_t fa[VB_NFA];  /*   are fa[0 .. nfa-1]; nfa = -1: more than VB_NFA of them */
};

typedef struct {
    const rve_map *m;
    double L;            /* voxel length */
    double hs[3];        /* voxel size / L */
    double lo[3], hi[3]; /* box (internal) */
    double diag;
    int n;
    uint32_t *label;     /* n labels */
    int32_t *cell_of;    /* nlabels + 1: cell of a label, -1 absent */
    /* control points (Eq. 6.5), grouped by cell */
    size_t *cs;          /* n + 1 */
    double *cp;          /* 3 per point */
    double *cw;
    rve_gjk_simplex *warm;
    double *qd;          /* per control point, committed cell: closest point and distance (-1: recompute) */
    unsigned char *valid_eq; /* n: qd holds the committed cell (non-empty) */
    double W;
    rve_gjk_opts gopts;
    /* voxels of every grain (polishing and accuracy), grouped by cell */
    size_t *vs;          /* n + 1 */
    uint16_t *vijk;      /* 3 per voxel */
    size_t nvox;         /* non-void voxels */
    /* Polishing caches.  Each grain's voxels are stored brick by brick
     * (global 4^3 bricks), so that whole bricks can be settled by one plane
     * test on their bounding box.  For the committed cell of every grain:
     * the face excess E of each voxel and the face attaining it (A), or, for
     * bricks lying at least tau/2 deep inside the cell (lazy), only a bound. */
    size_t *bs;          /* n + 1: bricks of cell k are br[bs[k] .. bs[k+1]-1] */
    struct vbrick *br;
    double *E;           /* nvox */
    int32_t *A;          /* nvox */
    unsigned char *valid;/* n: caches hold the committed cell (non-empty) */
    double tau;          /* ramp width of the polishing cost (voxels) */
    int exact_dist;      /* GJK distances not rounded to the 2^-32 grid */
    const double *x;     /* current seeds (internal) */
    const unsigned char *frozen; /* n or NULL: seeds never moved (distributed fit) */
    double *xfix;        /* 4n: their values (internal), with frozen */
} fitctx;

/* One fit in progress: the stages share the context, the exact measure of
 * a state and the best state seen. */
typedef struct {
    fitctx *F;
    const rve_fit_opts *o;
    rve_fit_result *r;
    lopt *L;
    double *x;           /* current state (internal) */
    double *xbest;       /* best state seen: highest exact accuracy */
    double *xtmp;        /* scratch state */
    double accbest, objbest;
    double obj_start;    /* Eq. 6.5 objective of the state stage 1 starts from */
    int32_t *assign;     /* nx*ny*nz: cell of each voxel in the last measured state */
    int nth;
    double t0, deadline;
} fitrun;

static inline void vox_centre(const fitctx *F, size_t p, double c[3])
{
    c[0] = (F->vijk[3 * p] + 0.5) * F->hs[0];
    c[1] = (F->vijk[3 * p + 1] + 0.5) * F->hs[1];
    c[2] = (F->vijk[3 * p + 2] + 0.5) * F->hs[2];
}

/* fit_ctx.c */
rve_status fit_check_map(const rve_map *m, rve_err *err);
rve_status fitctx_init(fitctx *F, const rve_map *m, int res, int with_voxels, rve_err *err);
void fitctx_free(fitctx *F);
void fit_initial_guess(const fitctx *F, double *x);
void fit_to_physical(const fitctx *F, const double *x, double *seed, double *weight);
void fit_to_internal(const fitctx *F, const double *seed, const double *weight, double *x);
void fit_keep_inside(const fitctx *F, double *x);
void fit_restore_frozen(const fitctx *F, double *x);
double fit_grain_centroid(const fitctx *F, int g, double c[3]);
/* fit_cost.c */
double fit_cost_eq65(void *ctx, int k, const double sk[4], const cpoly *P, lopt_ws *ws);
double fit_cost_mis(void *ctx, int k, const double sk[4], const cpoly *P, lopt_ws *ws);
double fit_eval_eq65(fitctx *F, const double *x, int nthreads, long *gjk);
/* fit_state.c */
int fit_past_deadline(const fitrun *R);
rve_status fit_measure(fitrun *R, const double *x, double *acc, rve_err *err);
rve_status fit_offer(fitrun *R, const double *x, double *accp, double *objp, rve_err *err);
rve_status fit_record(fitrun *R, int stage, int sweep, double obj, double acc, rve_err *err);
rve_status fit_reached(fitrun *R, const double *x, int stage, int sweep, double *obj, double *acc, rve_err *err);
rve_status fit_stage_end(fitrun *R, int stage, double *obj, double *acc, rve_err *err);
int fit_repair_empty(fitctx *F, double *x, double *seed, double *weight, rve_err *err);
/* fit_classify.c, fit_hinge.c, fit_stages.c */
rve_status fit_classify(fitrun *R, int epochs, rve_err *err);
rve_status fit_hinge(fitrun *R, int iters, rve_err *err);
rve_status fit_hinge_eval(const rve_map *m, const double *theta0, const double *theta, double *loss,
                          double *grad, rve_err *err);
rve_status fit_stage_eq65(fitrun *R, double *step, double *tstep, rve_err *err);
rve_status fit_stage_polish(fitrun *R, double *step, double *tstep, rve_err *err);
/* fit_open.c */
rve_status fit_open_tiny(fitrun *R, rve_err *err);
#endif
